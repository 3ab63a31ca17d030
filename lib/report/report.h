/* SPDX-License-Identifier: BSD-3-Clause */
/* report.h — every report of a database, computed once from lib/db's reader
   model (struct hc_db): the text summary (hpcprof-comm's summary.txt and
   terminal output, viewer-export --text), the report model as JSON
   (viewer-export --json and the data inside report.html, schema
   doc/report.schema.json) and the CSV tables (viewer-export --csv,
   hpcprof-comm's objects.csv). The analyzer builds the model in memory from
   what it writes; viewer-export reads it back from the files: the same code
   turns either into the same bytes. No signal context. */
#ifndef HC_REPORT_H
#define HC_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "db/db.h"

/* Width of the text summary when it is not printed on a terminal: summary.txt
   and viewer-export --text into a file or a pipe: 0, no limit (nothing is
   cut). A width <= 0 given to hc_report_text means the same. */
#define HC_REPORT_WIDTH 0
#define HC_REPORT_UNLIMITED (1 << 20)
/* Without a width limit the grid of a matrix is printed up to this many
   indexes (more is not read as a grid: the thread groups, --csv, --html). */
#define HC_REPORT_GRID_MAX 64u
/* Objects and code pairs the advice covers (lib/report/insight.h). */
#define HC_REPORT_ADVICE_FS 3
#define HC_REPORT_ADVICE_TS 3
/* Rows of each top-N table of the text summary. */
#define HC_REPORT_TOP 10

/* A level with more indexes than this is "large" (100,000 threads): no
   report draws or lists its n² cells; the JSON model and the graphs show the
   HC_REPORT_SHOWN indexes with the most communication, the text a table of
   the top indexes. Totals are always of the whole matrix. */
#define HC_REPORT_LARGE_N 1024u
#define HC_REPORT_SHOWN   64u

struct hc_report_text_opts {
	const char *db_name;   /* the database as named in the header; NULL: db->dir */
	int width;             /* columns; every line fits */
	int level;             /* enum hc_db_level of the pair tables and the grid */
	int kind;              /* enum hc_db_kind they rank by */
};

/* The text summary. 0, or -EINVAL when the level has no matrices (no
   topology). Write errors are the caller's (ferror). */
int hc_report_text(const struct hc_db *db, FILE *f, const struct hc_report_text_opts *o);

/* The report model (doc/report.schema.json) as one JSON document; html: for
   embedding in a <script> element ('<' escaped). */
void hc_report_json(const struct hc_db *db, FILE *f, bool html);

/* CSV tables (RFC 4180, header row first, values in the database unit);
   doc/viewer-export.md lists their columns. 0 or -ENOMEM; write errors are
   the caller's (ferror). */
int hc_report_csv_summary(const struct hc_db *db, FILE *f);
int hc_report_csv_pairs(const struct hc_db *db, int level, FILE *f);
int hc_report_csv_threads(const struct hc_db *db, FILE *f);
/* MPI ranks (several ranks only): rank,host,processes,threads, then within
   (among its threads) and across (with other ranks' threads) all/true/false. */
int hc_report_csv_ranks(const struct hc_db *db, FILE *f);
int hc_report_csv_cct(const struct hc_db *db, FILE *f);
int hc_report_csv_code_pairs(const struct hc_db *db, FILE *f);
int hc_report_csv_objects(const struct hc_db *db, FILE *f);
int hc_report_csv_object_threads(const struct hc_db *db, FILE *f);
int hc_report_csv_object_code_pairs(const struct hc_db *db, FILE *f);

/* v in the database unit, compact: "1.23 ms" (ns) or "4.56 k" (transfers). */
char *hc_report_value(char *buf, size_t sz, uint64_t v, const char *unit);
/* 100 * part / whole with one decimal, "-" when whole is 0. */
char *hc_report_pct(char *buf, size_t sz, uint64_t part, uint64_t whole);

/* Up to k indexes of m with the largest volume (row sum), volume descending,
   ties by index; *vol (m->n entries) receives every volume. Returns the
   count (0 with *idx NULL on no memory); free *idx and *vol. */
uint32_t hc_report_top_indexes(const struct hc_db_matrix *m, uint32_t k, uint32_t **idx,
                               uint64_t **vol);
/* Sum of the cells of m with both ends in idx (n indexes). */
uint64_t hc_report_covered(const struct hc_db_matrix *m, const uint32_t *idx, uint32_t n);

/* Code pairs merged by source location — file, line and the innermost
   procedure around the statement (doc/viewer-export.md "Code pairs") —
   unordered {a, b}, sorted by all descending: the first max rows (0: all)
   in *out, and the number of rows there are in *total (may be NULL). The
   database lists each pair under both its ends; this keeps one. Labels are "file.c:45 (worker)", the
   procedure alone when the file is unknown, HC_REPORT_UNKNOWN_PEER for a
   peer whose profile is missing. wa and wb say where each end's calling
   contexts ran: HC_REPORT_IN_REGION when one of them is inside an OpenMP
   parallel region (a frame up its context is an outlined region, named
   "f [parallel region at ...]"), HC_REPORT_OUT_REGION when one is not, both
   bits when its contexts differ, 0 for an unknown peer. */
#define HC_REPORT_UNKNOWN_PEER "(unknown: peer profile missing)"
enum { HC_REPORT_IN_REGION = 1, HC_REPORT_OUT_REGION = 2 };
struct hc_report_loc_pair {
	char a[512], b[512];
	uint64_t all, tru, fal;
	unsigned wa, wb;
};
int hc_report_loc_pairs(const struct hc_db *db, const struct hc_db_codepair *pairs, size_t n,
                        size_t max, struct hc_report_loc_pair **out, size_t *nout, size_t *total);
/* hc_report_loc_pairs, only rows with true sharing, the first max (0: all) by true
   volume descending, then the first label: what sorting every row of
   hc_report_loc_pairs that way gives, without labelling the rows that
   cannot make the cut (advice.c). */
int hc_report_loc_pairs_true(const struct hc_db *db, const struct hc_db_codepair *pairs, size_t n,
                             size_t max, struct hc_report_loc_pair **out, size_t *nout);

/* Code regions (regions.c, doc/regions.md). The region named spec (its
   name exactly, or FILE:LINE: the innermost region at that line of a file
   given by path, path suffix or basename, else the closest one starting
   at most 3 lines below) into *idx: 0, or -ENOENT with the regions there
   are in err. */
int hc_report_region_find(const struct hc_db *db, const char *spec, size_t *idx, char *err,
                          size_t errlen);
/* Region k: what it is, its totals and its thread matrix. 0 or -ENOMEM. */
int hc_report_region_text(const struct hc_db *db, size_t k, FILE *f);
/* The text summary's brief list: the top regions by exclusive, then
   inclusive volume; nothing without regions. */
void hc_report_text_regions(const struct hc_db *db, FILE *f, int width, unsigned top);

#endif
