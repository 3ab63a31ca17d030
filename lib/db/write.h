/* SPDX-License-Identifier: BSD-3-Clause */
/* write.h — lib/db's writer: every file of a database directory is written
   here (write_*.c, one per file, mirroring the reader's read_*.c), from plain
   data the analyzer hands over: arrays of rows, strings and numbers, no
   analyzer types. The analyzer computes (what is in a file); the writer only
   spells it (how it looks on disk), with the names of db/format.h that the
   reader uses too. The directory itself is staged and committed by write.c
   (db.h). Every function writes one file into `dir` through
   lib/support/out.h (temp file, renamed when complete) and returns 0 or
   -errno with a message naming the file in err. Ordinary program code: no
   signal context. */
#ifndef HC_DB_WRITE_H
#define HC_DB_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "hc/common.h"
#include "db/format.h"

struct hc_out;

/* ---- shared by the writers ---- */

/* The five published metrics (enum hc_db_metric) from the four stored ones
   (enum hc_metric: true/false x sample/trap). */
static inline void hc_db_derive(const uint64_t m[HC_M_COUNT], uint64_t d[HC_DB_M_COUNT])
{
	d[HC_DB_M_TRUE] = m[HC_M_TRUE_SAMPLE] + m[HC_M_TRUE_TRAP];
	d[HC_DB_M_FALSE] = m[HC_M_FALSE_SAMPLE] + m[HC_M_FALSE_TRAP];
	d[HC_DB_M_ALL] = d[HC_DB_M_TRUE] + d[HC_DB_M_FALSE];
	d[HC_DB_M_SAMPLE] = m[HC_M_TRUE_SAMPLE] + m[HC_M_FALSE_SAMPLE];
	d[HC_DB_M_TRAP] = m[HC_M_TRUE_TRAP] + m[HC_M_FALSE_TRAP];
}

/* XML attributes: ` name="v"` (v escaped), ` name="decimal"`. */
void hc_db_attr_str(struct hc_out *o, const char *name, const char *v);
void hc_db_attr_u64(struct hc_out *o, const char *name, uint64_t v);
/* ` all="t+f" true="t" false="f"`. */
void hc_db_attr_vol(struct hc_out *o, uint64_t t, uint64_t f);
/* v in decimal at p (no terminator); returns the end. For the rows the
   large files have millions of (regions.csv, phases.xml's cells): two
   digits at a time from a table, a number of more than 8 digits cut at
   10^8 first so that the two halves of 8 digits are independent. */
extern const char hc_db_digits2[201];
static inline void hc_db_put2(char *p, uint32_t x)   /* x < 100: exactly 2 digits */
{
	memcpy(p, hc_db_digits2 + 2 * x, 2);
}
static inline void hc_db_put4(char *p, uint32_t x)   /* x < 10^4: exactly 4 digits */
{
	hc_db_put2(p, x / 100);
	hc_db_put2(p + 2, x % 100);
}
static inline void hc_db_put8(char *p, uint32_t x)   /* x < 10^8: exactly 8 digits */
{
	hc_db_put4(p, x / 10000);
	hc_db_put4(p + 4, x % 10000);
}
static inline char *hc_db_put_dec4(char *p, uint32_t x)   /* x < 10^4 */
{
	if (x < 100) {
		if (x < 10) {
			*p = (char)('0' + x);
			return p + 1;
		}
		hc_db_put2(p, x);
		return p + 2;
	}
	if (x < 1000) {
		*p = (char)('0' + x / 100);
		hc_db_put2(p + 1, x % 100);
		return p + 3;
	}
	hc_db_put4(p, x);
	return p + 4;
}
static inline char *hc_db_put_dec8(char *p, uint32_t x)   /* x < 10^8 */
{
	if (x < 10000)
		return hc_db_put_dec4(p, x);
	p = hc_db_put_dec4(p, x / 10000);
	hc_db_put4(p, x % 10000);
	return p + 4;
}
static inline char *hc_db_put_dec(char *p, uint64_t v)
{
	uint64_t r;

	if (v < 100000000)
		return hc_db_put_dec8(p, (uint32_t)v);
	if (v < 10000000000000000ull) {
		p = hc_db_put_dec8(p, (uint32_t)(v / 100000000));
		hc_db_put8(p, (uint32_t)(v % 100000000));
		return p + 8;
	}
	r = v % 10000000000000000ull;
	p = hc_db_put_dec8(p, (uint32_t)(v / 10000000000000000ull));
	hc_db_put8(p, (uint32_t)(r / 100000000));
	hc_db_put8(p + 8, (uint32_t)(r % 100000000));
	return p + 16;
}
/* The space-separated sampler names of bit set `samplers`. */
void hc_db_put_samplers(struct hc_out *o, uint32_t samplers);
/* Opens dir/name and writes the XML declaration and the start tag
   `<root version="HC_DB_VERSION" generator="hpcprof-comm VERSION">` with its
   newline (database.xml, experiment.xml). */
int hc_db_xml_open(struct hc_out *o, const char *dir, const char *name, const char *root, char *err,
                   size_t errlen);
/* A whole file from a buffer (summary.txt, objects.csv: lib/report's text). */
int hc_db_write_file(const char *dir, const char *name, const char *buf, size_t len, char *err,
                     size_t errlen);

/* ---- threads.csv (write_threads.c) ---- */

struct hc_db_wthread {
	uint32_t process, pid, thread;     /* process = its <Process i> */
	int64_t tid;                       /* -1: no profile of its own */
	int64_t creator;                   /* global index, -1 when unknown */
	const char *start_routine;         /* NULL for main */
	uint32_t creation_context;         /* experiment.xml node id, 0 when unknown */
	const int32_t *cpus;               /* sorted */
	uint32_t ncpus;
	const char *profile;               /* NULL: no profile (sampler, period empty) */
	int sampler;                       /* enum hc_sampler */
	uint64_t period;
	uint32_t rank;
	const char *host;
};
int hc_db_write_threads(const char *dir, const struct hc_db_wthread *t, size_t n, char *err,
                        size_t errlen);

/* ---- matrices/<level>-<kind>.csv (write_matrix.c) ---- */

/* One published cell: the upper triangle (i < j) of M + Mᵀ, true and false. */
struct hc_db_mcell {
	uint32_t i, j;
	uint64_t v[2];
};

/* A matrix as the analyzer keeps it: the non-zero cells sorted by (i, j),
   row offsets (row i is cell[row[i] .. row[i+1])). */
struct hc_db_wmatrix {
	int level;
	uint32_t n;
	const struct hc_db_mcell *cell;
	uint32_t ncell;
	const uint32_t *row;
};

static inline uint64_t hc_db_kind_of(const uint64_t v[2], int kind)
{
	return kind == HC_DB_KIND_TRUE ? v[0] : kind == HC_DB_KIND_FALSE ? v[1] : v[0] + v[1];
}

/* Dense CSV when n <= dense_max, sparse otherwise (doc/database-format.md §2). */
static inline bool hc_db_matrix_sparse(uint32_t n, uint32_t dense_max)
{
	return n > dense_max;
}
int hc_db_write_matrix(const char *dir, const struct hc_db_wmatrix *m, int kind,
                       uint32_t dense_max, char *err, size_t errlen);

/* ---- experiment.xml (write_experiment.c) ---- */

enum hc_db_tkind { HC_DB_T_ROOT = 0, HC_DB_T_PF, HC_DB_T_A, HC_DB_T_C, HC_DB_T_S };

/* A node of the symbolized calling-context tree, as the analyzer builds it:
   node 0 is the root; children by sibling links; id = index. */
struct hc_db_tnode {
	uint32_t parent;
	uint32_t kind;              /* enum hc_db_tkind */
	uint32_t proc;              /* PF, A: procedure id */
	uint32_t file, line;        /* see doc/database-format.md 5.2 */
	uint32_t first_child, next_sibling, last_child;
	uint64_t excl[HC_M_COUNT];
	uint64_t incl[HC_M_COUNT];
};

struct hc_db_tproc {
	uint32_t name;              /* index into names */
	uint32_t lm, file, line;
};

/* A code-pair row: context c, peer p (0: unknown), true and false volume. */
struct hc_db_wpair {
	uint32_t c, p;
	uint64_t t, f;
};

struct hc_db_wexperiment {
	const char *program;
	int unit;                               /* enum hc_unit */
	uint32_t samplers;                      /* bit per enum hc_sampler */
	uint32_t processes, threads;
	char *const *lms;         uint32_t nlms;
	char *const *files;       uint32_t nfiles;
	char *const *names;                     /* procedure names */
	const struct hc_db_tproc *procs;  uint32_t nprocs;
	const struct hc_db_tnode *nodes;        /* nodes[0] = the root */
	const struct hc_db_wpair *rows;   uint32_t nrows;   /* the code-pair table, in order */
	unsigned top;
};
int hc_db_write_experiment(const char *dir, const struct hc_db_wexperiment *x, char *err,
                           size_t errlen);

/* The tree in document order (preorder, children by sibling links):
   visit(ctx, node, depth) when a node opens, leave(ctx, node) when it closes;
   an explicit stack (call chains can be thousands deep). A non-zero return
   of visit stops the walk and is returned; -ENOMEM. */
int hc_db_tree_walk(const struct hc_db_tnode *n,
                    int (*visit)(void *ctx, uint32_t i, uint32_t depth),
                    void (*leave)(void *ctx, uint32_t i), void *ctx);

/* ---- objects.xml (write_objects.c) ---- */

/* One cell of an object's thread matrix, i < j; and a code pair (c, p: view
   ids, p 0 when unknown) are struct hc_db_wpair. */
struct hc_db_wocell {
	uint32_t i, j;
	uint64_t t, f;
};

struct hc_db_wfield {
	const char *name;                  /* NULL: a bare byte range */
	uint64_t offset, size;
	uint32_t access;                   /* bytes of the accesses counted here */
	uint64_t t, f;
	const uint32_t *threads;           /* ascending */
	uint32_t nthreads;
};

struct hc_db_wobject {
	int kind;                          /* enum hc_db_okind */
	const char *name, *module;
	uint32_t context;                  /* experiment.xml node id, 0 when none */
	uint64_t size, blocks;
	const char *type;                  /* element type, "" when unknown */
	uint64_t elem;                     /* its size, 0 when unknown */
	uint64_t t, f;
	const struct hc_db_wocell *cells;  uint32_t ncells;   /* sorted by (i, j) */
	const struct hc_db_wfield *fields; uint32_t nfields;
	const struct hc_db_wpair *pairs;   uint32_t npairs;   /* the top ones, by volume */
};

/* objects, ranked (i = position); unit: enum hc_unit. */
int hc_db_write_objects(const char *dir, int unit, const struct hc_db_wobject *objects, size_t n,
                        char *err, size_t errlen);

/* ---- database.xml (write_meta.c) ---- */

struct hc_db_wskip { const char *file, *reason; };

struct hc_db_whost {
	uint32_t id;
	const char *name;                  /* the topology's host name, NULL or "" when none */
	const char *topology;              /* topology file, NULL when none (then no sizes) */
	uint32_t pus, cores, sockets, numa;
};

struct hc_db_wprocess {
	uint32_t host;                     /* host id */
	uint32_t rank, pid, ppid, gen;
	const char *exe;
	uint64_t start_ns;
	uint32_t threads, first_thread;
	const char *log;                   /* NULL when none */
};

/* <Ranks>: one row per MPI rank, the non-zero cells of the rank matrix. */
struct hc_db_wrank {
	uint32_t rank;
	const char *host;
	uint32_t processes, threads;
	uint64_t within[2], across[2];      /* [0] true, [1] false */
};
struct hc_db_wrankpair { uint32_t a, b; uint64_t v[2]; };   /* rank numbers, a < b */

/* A <Matrix> entry of one level (its three kinds). */
struct hc_db_wmatinfo {
	bool present;
	uint32_t n;
	uint64_t total[HC_DB_KIND_COUNT];
	uint64_t diag[2], unplaced[2];     /* [0] true, [1] false */
};

struct hc_db_wlabel {
	uint32_t host;                     /* host id */
	int cpu, core, socket, numa;       /* -1: absent */
};

struct hc_db_wcounter { const char *name; uint64_t v; };

struct hc_db_wmeta {
	int unit;                          /* enum hc_unit */
	uint32_t samplers;                 /* bit per enum hc_sampler */
	const char *const *inputs;         size_t ninputs;
	uint32_t found, read, skipped;
	const struct hc_db_wskip *skips;   uint32_t nskips;
	const struct hc_db_whost *hosts;   uint32_t nhosts;
	const struct hc_db_wprocess *procs; uint32_t nprocs;
	const struct hc_db_wrank *ranks;   uint32_t nranks;     /* < 2: no <Ranks> */
	const struct hc_db_wrankpair *rankpairs; uint32_t nrankpairs;
	struct hc_db_wmatinfo mat[HC_DB_LEVEL_COUNT];
	uint32_t dense_max;
	const struct hc_db_wlabel *labels[HC_DB_LEVEL_COUNT]; uint32_t nlabels[HC_DB_LEVEL_COUNT];
	uint64_t totals[HC_M_COUNT];       /* the four stored metrics */
	uint64_t events, event_weight;
	const struct hc_db_wcounter *counters; uint32_t ncounters;   /* sorted by name */
	const char *const *warnings;       uint32_t nwarnings;
};
int hc_db_write_meta(const char *dir, const struct hc_db_wmeta *m, char *err, size_t errlen);

/* ---- regions.xml and regions.csv (write_regions.c) ---- */

/* A kept code region, in document order (parents first); its inclusive and
   exclusive thread matrices as the non-zero upper-triangle cells sorted by
   (i, j), the exclusive ones a subset of the inclusive ones. */
struct hc_db_wregion {
	uint32_t i;                        /* output id */
	uint32_t parent;                   /* the parent's output id, UINT32_MAX for the program */
	int kind;                          /* enum hc_db_rkind */
	const char *name;
	const char *lm, *file;             /* NULL when unknown */
	uint32_t line;                     /* 0 when unknown */
	uint64_t addr;                     /* not written for the program */
	uint64_t depth;                    /* loops only */
	bool irreducible;                  /* loops only */
	uint64_t tru, fal, self;           /* inclusive totals (self: the diagonal) */
	uint64_t xtru, xfal, xself;        /* exclusive */
	const struct hc_db_mcell *cells;   uint32_t ncells;     /* inclusive */
	const struct hc_db_mcell *xcells;  uint32_t nxcells;    /* exclusive */
	bool cells_parent;                 /* the inclusive cells are the parent's: written as
	                                      cells="parent", rows only where xcells has one */
	uint32_t cells_as;                 /* 0, or 1 + the index in r[] of an earlier region
	                                      whose inclusive cells are exactly these (not the
	                                      parent): written as cells="K" (version 3), rows
	                                      only where xcells has one; hc_db_region_share */
};

struct hc_db_wregions {
	int unit;                          /* enum hc_unit */
	double threshold;                  /* share of the volume under which regions are dropped */
	uint32_t threads;
	const struct hc_db_wregion *r;     uint32_t n;
};
/* Sets r[k].cells_as where region k's inclusive cells (ncells, every (i, j,
   true, false)) equal those of an earlier region that is not its parent
   and k is not cells_parent: regions.csv then holds only k's exclusive rows
   (on bench/prof-scale's 1,024 threads 79 distinct cell sets among 118
   regions with rows, doc/performance.md Session 16). Returns how many. */
uint32_t hc_db_region_share(struct hc_db_wregion *r, uint32_t n);
int hc_db_write_regions(const char *dir, const struct hc_db_wregions *R, char *err,
                        size_t errlen);
int hc_db_write_region_matrices(const char *dir, const struct hc_db_wregions *R, char *err,
                                size_t errlen);

/* ---- phases.xml and locality.xml (write_views.c; read by read_views.c) ---- */

struct hc_db_wphase {
	uint32_t first, last;              /* windows */
	uint64_t t, f;
	uint32_t pi, pj;                   /* top pair, UINT32_MAX when none */
	uint64_t pv;
	uint32_t obj;                      /* objects.xml index of the top object, UINT32_MAX */
	uint64_t ov;
	const char *object_name;
	const struct hc_db_mcell *cells;   uint32_t ncells;     /* sorted by (i, j) */
};

struct hc_db_wline { uint32_t i, j; };  /* pair, or object i when j is UINT32_MAX */

struct hc_db_wphases {
	int unit;                          /* enum hc_unit */
	uint64_t width, span;              /* ns */
	uint32_t nwin;
	double similarity;                 /* the phase rule's threshold */
	const struct hc_db_wphase *ph;     uint32_t nph;
	const struct hc_db_wline *lines;   uint32_t nline;
	const uint32_t *wphase;            /* per window: its phase */
	const uint64_t (*wvol)[2];         /* per window: true, false */
	const uint64_t *lval;              /* nwin x nline */
};
int hc_db_write_phases(const char *dir, const struct hc_db_wphases *p, char *err, size_t errlen);

struct hc_db_wlocobj {
	uint32_t obj;                      /* objects.xml index */
	const char *name;
	uint64_t local, remote, unknown;
	bool flagged;
	uint32_t first;                    /* first-touch thread, UINT32_MAX when unknown */
	const uint64_t *page, *thr;        /* volume by node, ndom entries */
};

struct hc_db_wlocality {
	int unit;                          /* enum hc_unit */
	uint32_t domains;
	bool single, pages;
	double flag;                       /* remote share that flags an object */
	uint64_t local, remote, unknown;
	uint32_t ndom;
	const struct hc_db_wlocobj *o;     uint32_t n;
};
int hc_db_write_locality(const char *dir, const struct hc_db_wlocality *l, char *err,
                         size_t errlen);

#endif
