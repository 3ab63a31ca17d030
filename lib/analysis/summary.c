/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.c — the database's reports, through the one report
   implementation: once every data file is written, the staged database is
   read back with lib/db's validating reader and lib/report turns it into
   summary.txt (hc_report_text at HC_REPORT_WIDTH, no limit: the same bytes
   as `viewer-export --text` into a file or a pipe) and
   objects.csv (hc_report_csv_objects, as `viewer-export --csv` writes it).
   Every file is read back and checked as viewer-export reads it, except
   experiment.xml (a quarter of the analyzer's time to parse): its part of
   the model comes from what it was written from (experiment__model); the
   tests check that parsing it gives the same text. regions.csv (the
   regions' thread matrices, tens of MB) is not read: the text shows the
   regions' totals only; nor are phases.xml's per-phase cells (the text
   shows the phase table): phases.xml's part of the model comes from what
   it was written from (views__model, as experiment.xml's). No signal
   context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "analysis/views.h"
#include "db/views.h"
#include "report/report.h"

/* phases.xml's part of the model, handed over (write_all made it). */
static int fill_phases(struct hc_db_views *v, void *arg)
{
	const struct experiment_model *em = arg;
	struct hc_db_views *m = em->an->phases_model;

	if (!m)
		return 0;
	*v = *m;   /* v is empty: the reader fills locality.xml's part next */
	memset(m, 0, sizeof(*m));
	return 0;
}

int summary__write(struct an *an, const struct levels *lv, const struct hc_db_wpair *pairs,
                   uint32_t npairs, const char *dir, char **text, char *err, size_t errlen)
{
	struct experiment_model em = { an, pairs, npairs, lv };
	struct hc_db_open_opts oo = { .fill = experiment__model, .fill_matrices = matrix__model,
	                              .arg = &em, .skip_region_cells = true,
	                              .skip_phase_cells = true, .fill_phases = fill_phases };
	struct hc_report_text_opts t = { .db_name = an->o->outdir, .width = HC_REPORT_WIDTH,
	                                 .level = HC_DB_LEVEL_THREAD, .kind = HC_DB_KIND_ALL };
	struct hc_db *db = NULL;
	char *buf = NULL, rerr[1024];
	size_t len = 0;
	FILE *m;
	int ret;

	*text = NULL;
	ret = hc_db_open_with(dir, &oo, &db, rerr, sizeof(rerr));
	if (ret) {
		/* the analyzer wrote something its own reader refuses: a bug */
		snprintf(err, errlen, "internal error: the database just written does not read "
		         "back: %s", rerr);
		return ret;
	}
	if (db->has_objects) {
		m = open_memstream(&buf, &len);
		ret = !m ? -ENOMEM : hc_report_csv_objects(db, m);
		if (m && (fclose(m) || ret))
			ret = ret ? ret : -ENOMEM;
		if (ret)
			snprintf(err, errlen, "out of memory writing %s", HC_DB_OBJECTS_CSV);
		else
			ret = hc_db_write_file(dir, HC_DB_OBJECTS_CSV, buf, len, err, errlen);
		free(buf);
		buf = NULL;
		len = 0;
	}
	if (!ret) {
		m = open_memstream(&buf, &len);
		ret = !m ? -ENOMEM : hc_report_text(db, m, &t);
		if (m && (fclose(m) || ret))
			ret = ret ? ret : -ENOMEM;
		if (ret)
			snprintf(err, errlen, "cannot write %s: %s", HC_DB_SUMMARY, strerror(-ret));
		else
			ret = hc_db_write_file(dir, HC_DB_SUMMARY, buf, len, err, errlen);
	}
	hc_db_close(db);
	if (ret) {
		free(buf);
		return ret;
	}
	*text = buf;
	return 0;
}
