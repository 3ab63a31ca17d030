/* SPDX-License-Identifier: BSD-3-Clause */
/* exporter.h — the exporters of viewer-export as method tables, the one list
   of them (exporters[]), and the helpers they share: output files written
   through a temporary name and renamed only when complete (a failed export
   never leaves half a report behind), value formatting in the database unit,
   the report model as JSON (used by --json and embedded in report.html), and
   code pairs aggregated by source location. No signal context. */
#ifndef HC_VIEWER_EXPORTER_H
#define HC_VIEWER_EXPORTER_H

#include <stdbool.h>
#include <stdio.h>

#include "hc/common.h"
#include "db/db.h"

#define VX_NAME "viewer-export"

struct export_opts {
	const char *db_dir;
	const char *out;     /* file or directory for this exporter; NULL: its default */
	int level;           /* enum hc_db_level for single-matrix exports */
	int kind;            /* enum hc_db_kind */
	int width;           /* --text: columns */
};

struct exporter {
	const char *name;    /* the option: --<name> */
	const char *arg;     /* NULL: the option takes no argument; else its metavariable */
	const char *help;
	int (*run)(const struct hc_db *db, const struct export_opts *o);
};

extern const struct exporter export_html, export_text, export_csv, export_json,
	export_dot, export_metis, export_scotch;

/* A level with more indexes than VX_LARGE_N is "large" (100,000 threads):
   no exporter draws or lists its n² cells; pairs-<level>.csv has the
   non-zero pairs only, the report (--json, --html) and --dot the VX_SHOWN
   indexes with the most communication, --text a table of the top indexes.
   Totals are always of the whole matrix. */
#define VX_LARGE_N 1024u
#define VX_SHOWN   64u

/* Up to k indexes of m with the largest volume (row sum), volume descending,
   ties by index; *vol (m->n entries) receives every volume. Returns the
   count (0 with *idx NULL on no memory); free *idx and *vol. */
uint32_t vx_top_indexes(const struct hc_db_matrix *m, uint32_t k, uint32_t **idx, uint64_t **vol);
/* Sum of the cells of m with both ends in idx (n indexes). */
uint64_t vx_covered(const struct hc_db_matrix *m, const uint32_t *idx, uint32_t n);

/* Error to stderr as "viewer-export: ..."; returns -1. */
int vx_error(const char *fmt, ...) HC_PRINTF(1, 2);

/* An output file: "-" is stdout; anything else is written as PATH.tmp.PID and
   renamed onto PATH by out_close(ok = true). */
struct out {
	FILE *f;
	char *path, *tmp;
};
int out_open(struct out *o, const char *path);
/* Flushes and commits (ok) or discards; returns 0 or -1 (error printed). */
int out_close(struct out *o, bool ok);

/* v in the database unit, compact: "1.23 ms" (ns) or "4.56 k" (transfers). */
char *fmt_value(char *buf, size_t sz, uint64_t v, const char *unit);
/* 100 * part / whole with one decimal, "-" when whole is 0. */
char *fmt_pct(char *buf, size_t sz, uint64_t part, uint64_t whole);

/* The report model (doc/report.schema.json) as one JSON document. */
void report_json(const struct hc_db *db, FILE *f, bool html);

/* Code pairs merged by source location, unordered {a, b}, sorted by all
   descending. Each pair of the database appears under both its ends; this
   keeps one. */
struct loc_pair {
	char a[512], b[512];   /* "file:line" (basename), a <= b */
	uint64_t all, tru, fal;
};
int loc_pairs(const struct hc_db *db, const struct hc_db_codepair *pairs, size_t n,
              struct loc_pair **out, size_t *nout);

#endif
