/* SPDX-License-Identifier: BSD-3-Clause */
/* export_text.c — --text: the text summary of lib/report (the same bytes as
   the database's summary.txt at the same width) on standard output or into
   a file. No signal context. */
#include "exporter.h"

static int text_run(const struct hc_db *db, const struct export_opts *o)
{
	struct hc_report_text_opts t = { .db_name = db->dir, .width = o->width, .level = o->level,
	                                 .kind = o->kind };
	struct hc_out out;

	if (!db->mat[o->level][o->kind].present)
		return vx_error("%s: no %s matrices in this database (no topology was found)",
		                db->dir, hc_db_level_name(o->level));
	if (vx_open(&out, o->out ? o->out : "-"))
		return -1;
	return vx_close(&out, hc_report_text(db, out.f, &t) == 0);
}

const struct exporter export_text = {
	.name = "text",
	.arg = NULL,
	.help = "summary tables for a terminal, fitted to its width",
	.run = text_run,
};
