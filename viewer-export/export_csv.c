/* SPDX-License-Identifier: BSD-3-Clause */
/* export_csv.c — --csv DIR: the CSV tables of lib/report (report/csv.c),
   one file each, listed in doc/viewer-export.md. A failed export removes
   what it wrote. No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exporter.h"

struct csvdir {
	const char *dir;
	struct hc_out out;
	FILE *f;
	const char *name;          /* table being written */
	const char *written[16];   /* tables committed by this run */
	int nwritten;
};

static int begin(struct csvdir *c, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	if (vx_open(&c->out, path))
		return -1;
	c->name = name;
	c->f = c->out.f;
	return 0;
}

static int end(struct csvdir *c)
{
	char *copy;
	int rc = vx_close(&c->out, true);

	/* begin() names come from string literals or a caller's buffer: keep a copy */
	if (rc == 0 && c->nwritten < (int)(sizeof(c->written) / sizeof(c->written[0])) &&
	    (copy = strdup(c->name)) != NULL)
		c->written[c->nwritten++] = copy;
	return rc;
}

/* A failed export (disk full, ...) must not leave a partial set of tables
   that looks like a complete one: remove what this run wrote, and the
   directory when this run created it. */
static void undo(struct csvdir *c, bool created)
{
	char path[4096];

	for (int k = 0; k < c->nwritten; k++) {
		snprintf(path, sizeof(path), "%s/%s", c->dir, c->written[k]);
		unlink(path);
	}
	if (created)
		rmdir(c->dir);
	vx_error("%s: CSV export incomplete: removed the %d table%s this run had written%s",
	         c->dir, c->nwritten, c->nwritten == 1 ? "" : "s",
	         created ? " and the directory" : "");
}

/* One table: opened, written by lib/report, committed. */
static int table(struct csvdir *c, const char *name, int (*fn)(const struct hc_db *, FILE *),
                 int (*fn_level)(const struct hc_db *, int, FILE *), const struct hc_db *db,
                 int level)
{
	int rc;

	if (begin(c, name))
		return -1;
	rc = fn ? fn(db, c->f) : fn_level(db, level, c->f);
	if (rc) {
		vx_error("%s: %s", name, strerror(-rc));
		vx_close(&c->out, false);
		return -1;
	}
	return end(c);
}

static int csv_run(const struct hc_db *db, const struct export_opts *o)
{
	struct csvdir c = { .dir = o->out };
	struct stat st;
	bool created = true;
	int rc = 0;

	if (mkdir(o->out, 0777)) {
		if (errno != EEXIST)
			return vx_error("%s: %s", o->out, strerror(errno));
		created = false;
	}
	if (stat(o->out, &st) || !S_ISDIR(st.st_mode))
		return vx_error("%s: not a directory", o->out);
	{
		/* threads.csv and objects.csv would replace the database's own */
		struct stat dbst;
		if (stat(o->db_dir, &dbst) == 0 && dbst.st_dev == st.st_dev && dbst.st_ino == st.st_ino)
			return vx_error("%s: is the database directory; write the CSV tables elsewhere",
			                o->out);
	}
	rc |= table(&c, "summary.csv", hc_report_csv_summary, NULL, db, 0);
	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++)
		if (db->mat[l][HC_DB_KIND_ALL].present) {
			char name[64];
			snprintf(name, sizeof(name), "pairs-%s.csv", hc_db_level_name(l));
			rc |= table(&c, name, NULL, hc_report_csv_pairs, db, l);
		}
	rc |= table(&c, "threads.csv", hc_report_csv_threads, NULL, db, 0);
	if (db->nrankrows)
		rc |= table(&c, "ranks.csv", hc_report_csv_ranks, NULL, db, 0);
	rc |= table(&c, "cct.csv", hc_report_csv_cct, NULL, db, 0);
	rc |= table(&c, "code-pairs.csv", hc_report_csv_code_pairs, NULL, db, 0);
	if (db->has_objects) {
		rc |= table(&c, "objects.csv", hc_report_csv_objects, NULL, db, 0);
		rc |= table(&c, "object-threads.csv", hc_report_csv_object_threads, NULL, db, 0);
		rc |= table(&c, "object-code-pairs.csv", hc_report_csv_object_code_pairs, NULL, db, 0);
	}
	if (rc)
		undo(&c, created);
	for (int k = 0; k < c.nwritten; k++)
		free((char *)c.written[k]);
	return rc ? -1 : 0;
}

const struct exporter export_csv = {
	.name = "csv",
	.arg = "DIR",
	.help = "CSV tables (pairs per level, threads, tree, code pairs, objects) into DIR",
	.run = csv_run,
};
