/* SPDX-License-Identifier: BSD-3-Clause */
/* acc_metrics.h — the accuracy suite's comparison of a sampled database with
   an exact one, as pure functions on data already read (no I/O): thread
   matrices, data-object rankings and code pairs. Shapes and fractions only:
   the two runs count in different units (sampled: estimated ns of
   communicating accesses; exact: cache-line transfers), so no raw volume of
   one is ever compared with a volume of the other.

   Definitions (issues 13 and 14; doc/accuracy.md):
   * precision = sampled volume on the thread pairs that hold >= 1 % of the
     exact volume / all sampled volume (undefined when the sampler reported
     nothing);
   * recall = of the thread pairs holding >= 5 % of the exact volume, the
     fraction with a non-zero sampled cell (undefined when no pair does);
   * false-fraction error = |ff_sampled - ff_exact|, ff = false / all
     (undefined when either run has no volume);
   * top false-sharing object: the first object of the ranking (ranked by
     false volume) with false volume > 0, provided the run's false fraction
     is >= 5 % — else "none"; the two runs agree when both name the same
     object (same kind and name) or both say none;
   * top code pair: code pairs aggregated by source location (unordered pair
     of "function file:line", file without directories), the largest one;
     the runs agree at line level, at function level only, or not; exact
     mode's top is every pair within ACC_CP_TIE (10 %) of its largest (a
     near tie has no top to find);
   * what exact mode cannot see is not compared (session 8): exact mode
     counts only the accesses of the code built with its wrappers (the
     program's executable), so a code pair with an end elsewhere (libgomp's
     barrier, libstdc++'s thread start) is left out of the sampled code
     pairs, and an object whose sampled false volume all comes from such
     pairs (libgomp's team structure, allocated inside GOMP_parallel) is
     passed over when the top false-sharing object is chosen ("hidden";
     acc_compare prints it as fs_not_comparable).
   * a program whose exact volume is below ACC_MIN_EXACT transfers (a
     thousand line transfers: well under a millisecond of a run of seconds;
     thread creation and the final join alone give a handful) does not
     communicate: nothing to find (recall undefined), and any sampled volume
     is on no real pair (precision 0; undefined when the sampler reported
     nothing either), no false fraction to compare.
   Matrices are symmetric with a zero diagonal; a pair (i < j) is the upper
   cell; the matrices may differ in size (missing cells are 0). */
#ifndef ACC_METRICS_H
#define ACC_METRICS_H

#include <stddef.h>

#define ACC_PRECISION_SHARE 0.01
#define ACC_RECALL_SHARE 0.05
#define ACC_FS_MIN_FRACTION 0.05
#define ACC_MIN_EXACT 1000.0
#define ACC_CP_TIE 0.10

struct acc_matrix {
	int n;          /* n x n, row-major */
	double *v;
};

/* cell (i, j), 0 outside the matrix */
double acc_cell(const struct acc_matrix *m, int i, int j);
/* sum of the upper triangle */
double acc_total(const struct acc_matrix *m);

/* 0 and *out set; -EDOM when undefined (see above). share: the fraction of
   the exact volume a pair must hold (ACC_PRECISION_SHARE /
   ACC_RECALL_SHARE). acc_recall also gives the number of exact pairs over
   the share and how many of them the sampler reported. */
int acc_precision(const struct acc_matrix *sampled, const struct acc_matrix *exact,
		  double share, double *out);
int acc_recall(const struct acc_matrix *sampled, const struct acc_matrix *exact,
	       double share, double *out, int *pairs, int *found);
/* 1 when an exact volume is too small to call communication (above) */
int acc_negligible(double exact_total);
/* false fraction false_total / all_total; -EDOM when all_total <= 0 */
int acc_false_fraction(double all_total, double false_total, double *out);

/* One object row of objects.csv (ranked by false volume, descending). */
struct acc_object {
	const char *kind;
	const char *name;
	double all, fal;
	int hidden;     /* its false volume is all in code exact mode cannot see */
};

/* index of the top false-sharing object among n rows, or -1 for none
   (run's false fraction ff < ACC_FS_MIN_FRACTION, or no row with false > 0);
   hidden rows are passed over (not comparable: below) */
int acc_top_fs(const struct acc_object *rows, size_t n, double ff);
/* the hidden row acc_top_fs passed over to make its choice (it would
   have been the top), or -1 */
int acc_hidden_fs(const struct acc_object *rows, size_t n, double ff);
/* 1 when the two choices name the same object (kind and name; a heap
   object by its allocation site and context, with or without the variable
   the block was assigned to) or both are none (-1), else 0 */
int acc_same_object(const struct acc_object *a, int ia, const struct acc_object *b, int ib);

/* Code pairs aggregated by location. */
struct acc_loc {
	char *func;     /* function of the context ("?" when unknown) */
	char *where;    /* "file:line" ("?:0" when unknown) */
};

struct acc_cpair {
	struct acc_loc a, b;    /* canonical order: (a.func, a.where) <= (b...) */
	double v;
};

struct acc_cpairs {
	struct acc_cpair *p;
	size_t n, cap;
};

/* adds v to the unordered location pair {x, y} (copies the strings);
   0 or -ENOMEM */
int acc_cpairs_add(struct acc_cpairs *s, const struct acc_loc *x, const struct acc_loc *y, double v);
/* index of the largest pair (ties: the first added), -1 when empty */
long acc_cpairs_top(const struct acc_cpairs *s);
void acc_cpairs_free(struct acc_cpairs *s);

enum acc_agree { ACC_AGREE_NA = -1, ACC_AGREE_NO = 0, ACC_AGREE_FUNC = 1, ACC_AGREE_LINE = 2 };
/* agreement of two top pairs: LINE when the same locations, FUNC when only
   the same (unordered) pair of functions, NO otherwise, NA when either is
   NULL (no code pair) */
enum acc_agree acc_cpair_agree(const struct acc_cpair *x, const struct acc_cpair *y);
/* agreement of the sampled top pair with exact mode's top: as
   acc_cpair_agree, with exact's top taken as every pair within `tie`
   (ACC_CP_TIE) of its volume — the best agreement with any of them. A
   near tie in exact mode has no top a sampler could be asked to find
   (master_worker: the task word and the result slots move once per
   iteration each, 0.500 / 0.500 of the exact volume). */
enum acc_agree acc_cpairs_agree(const struct acc_cpairs *sampled, const struct acc_cpairs *exact, double tie);
const char *acc_agree_name(enum acc_agree a);

/* A reference made of several exact runs (run.sh --refs K): exact mode
   counts what one execution's schedule did, and with more threads than
   CPUs the schedule decides which threads take turns on one CPU (no
   transfer between them) — two exact runs of heap_counters -O0 -t 4 judge
   each other at precision 0.35-0.52. The reference is then the mean of the
   runs' shapes: each run weighed by 1 / its total volume (every run one
   vote, whatever it counted), the sum scaled back to the runs' mean total
   (so ACC_MIN_EXACT still reads transfers). The callers add each run with
   w = mean_total / (K * run_total). */

/* dst += w * src, dst grown to src's size when smaller; 0 or -ENOMEM */
int acc_matrix_add(struct acc_matrix *dst, const struct acc_matrix *src, double w);
/* adds w * each row of src to the row of *rows with the same kind and
   name (a new row, strings copied, when none); an object is hidden only
   when every run that gave it false volume says so. Re-rank with
   acc_objects_rank afterwards. 0 or -ENOMEM */
int acc_objects_add(struct acc_object **rows, size_t *n, size_t *cap,
		    const struct acc_object *src, size_t ns, double w);
/* sorts rows by false volume, descending (ties keep their order), as
   objects.csv ranks them */
void acc_objects_rank(struct acc_object *rows, size_t n);
/* dst += w * each pair of src; 0 or -ENOMEM */
int acc_cpairs_merge(struct acc_cpairs *dst, const struct acc_cpairs *src, double w);

/* Splits one RFC 4180 CSV record (no line end) in place into at most max
   fields; returns the number of fields, or -EINVAL on a malformed quote.
   Quoted fields are unquoted ("" -> "). */
int acc_csv_split(char *line, char **fields, int max);

#endif
