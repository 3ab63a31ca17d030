/* SPDX-License-Identifier: BSD-3-Clause */
/* internal.h — what the reader files of lib/db share and nobody else sees: the
   load context that carries the database being filled and the first error
   ("FILE[:LINE]: what is wrong"), the streaming XML reader wrapper (xmlr.c)
   and the CSV record reader (csv.c), plus the per-file loaders called by
   db.c in order. No signal context. */
#ifndef HC_VIEWER_INTERNAL_H
#define HC_VIEWER_INTERNAL_H

#include <limits.h>
#include <stdio.h>

#include "hc/common.h"
#include "db/db.h"

struct load {
	struct hc_db *db;
	char *err;
	size_t errsz;
	char path[PATH_MAX];   /* the file being read, as shown in messages */
	const char *rel;       /* its name relative to the database */
	bool skip_region_cells;
	bool skip_phase_cells;   /* hc_db_open_opts */
	hc_db_phases_fill fill_phases;
	void *fill_arg;
	int regions_version;      /* regions.xml's version attribute (read_regions.c) */
};

/* Set ld->path to <dir>/<rel>; returns it. */
const char *load__file(struct load *ld, const char *rel);

/* Record "PATH:LINE: message" (":LINE" only when line > 0) unless an error is
   already recorded; returns -EINVAL. */
int load__fail(struct load *ld, long line, const char *fmt, ...) HC_PRINTF(3, 4);
/* Same with a given errno value, returned negated ("PATH: strerror"). */
int load__errno(struct load *ld, int errnum);

/* Plain decimal non-negative integer (no sign, spaces or exponent). */
bool load__parse_u64(const char *s, uint64_t *out);

/* Grow *arr (element size esz) so that index n is valid; 0 / -ENOMEM. */
int load__grow(void *arr, size_t *cap, size_t n, size_t esz);
/* Make room for element n of an array that only ever grows by appending and
   keeps no capacity: the capacity is implied (8, then powers of two). The new
   element is zeroed. 0 / -ENOMEM. */
int load__push(void *arr, size_t n, size_t esz);
char *load__strdup(const char *s);

/* ---- xmlr.c: xmlTextReader with element-name stack and checked attributes */
struct xr;
int xr__open(struct xr **out, struct load *ld, const char *rel, bool missing_ok);
void xr__close(struct xr *x);
/* Advance to the next element start: 1, 0 at the end of the document,
   -EINVAL on a well-formedness error (recorded in ld). */
int xr__next(struct xr *x);
/* Skips the current element's content (its children are parsed, so still
   checked for well-formedness, but not handed out): the next xr__next gives
   what follows its end tag. 0 or -errno (load__fail). */
int xr__skip(struct xr *x);
const char *xr__name(struct xr *x);
const char *xr__parent(struct xr *x);   /* "" at the root element */
int xr__depth(struct xr *x);            /* 0 for the root element */
long xr__line(struct xr *x);
bool xr__has(struct xr *x, const char *attr);
int xr__u64(struct xr *x, const char *attr, uint64_t *v);                /* required */
int xr__u64_opt(struct xr *x, const char *attr, uint64_t *v, bool *found);
/* all, true and false of the element, checked all = true + false (read.c). */
int load__vol(struct load *ld, struct xr *x, uint64_t *all, uint64_t *tru, uint64_t *fal);
int xr__i64_opt(struct xr *x, const char *attr, int64_t *v);             /* -1 when absent */
int xr__str(struct xr *x, const char *attr, char **s);                   /* required, strdup'ed */
int xr__str_opt(struct xr *x, const char *attr, char **s);               /* NULL when absent */
int xr__text(struct xr *x, char **s);   /* text content of the current element */

/* Largest dimension of a sparse matrix (a dense one: 65536). */
#define HC_DB_SPARSE_MAX_N (1u << 24)

/* ---- csv.c: RFC 4180 records, fields unquoted in place */
struct csv {
	char *buf;
	size_t len, pos;
	long line;       /* line of the record last returned (1-based) */
	long next_line;
	char **f;        /* fields of the last record */
	size_t nf, cap;
};
int csv__open(struct csv *c, struct load *ld, const char *rel);
/* Next record: 1 (fields in c->f, c->nf), 0 at the end, -EINVAL on damage. */
int csv__next(struct csv *c, struct load *ld);
void csv__close(struct csv *c);

/* ---- the per-file loaders, in the order db.c calls them */
int read__meta(struct load *ld);        /* database.xml */
int read__matrices(struct load *ld);  /* matrices/ named by database.xml */
/* What read__matrices checks once the cells are there (sums, all = true + false). */
int read__matrices_check(struct load *ld);
int read__threads(struct load *ld);     /* threads.csv */
int read__experiment(struct load *ld);  /* experiment.xml */
/* What read__experiment checks after parsing (tables, root totals). */
int read__experiment_check(struct load *ld);
int read__objects(struct load *ld);     /* objects.xml, when present */
int read__regions(struct load *ld);     /* regions.xml and regions.csv, when present */
int read__views(struct load *ld);       /* phases.xml, locality.xml, when present */

#endif
