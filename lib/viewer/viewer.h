/* SPDX-License-Identifier: BSD-3-Clause */
/* viewer.h — an hpcprof-comm database directory read into memory, for
   viewer-export and its tests. The reader knows the database only through its
   documented format (doc/database-format.md, names in hc/database.h): it
   parses database.xml, threads.csv, the matrices, experiment.xml and, when
   present, objects.xml, checks what the format promises (shapes, symmetry,
   totals, references between files) and on the first violation fails with a
   message of the form "FILE[:LINE]: what is wrong". The XML files are
   streamed with libxml2's xmlTextReader so that a 10^5-node calling-context
   tree costs its node array, not a DOM. Ordinary program code: no signal
   context anywhere. */
#ifndef HC_VIEWER_H
#define HC_VIEWER_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "hc/database.h"

#define HC_V_NONE UINT32_MAX   /* "no index" in the uint32_t references below */

/* A non-zero cell of the upper triangle of a matrix. */
struct hc_vcell {
	uint32_t i, j;         /* i < j */
	uint64_t v;
};

/* One square matrix file (matrices/<level>-<kind>.csv), dense or sparse on
   disk; in memory always its non-zero upper-triangle cells (the matrix is
   symmetric with a zero diagonal), so memory follows the cells, not n². */
struct hc_vmatrix {
	bool present;
	bool sparse;           /* <Matrix format="sparse">: the file's form */
	char *file;            /* as named in database.xml, relative to the database */
	uint32_t n;
	uint64_t total, diagonal, unplaced;
	struct hc_vcell *cells; /* sorted by (i, j) */
	size_t ncells;
};

/* One index of a core/socket/numa level (<Labels>); -1 = attribute absent. */
struct hc_vlabel {
	char *host;
	int64_t cpu, core, socket, numa;
};

struct hc_vhost {
	uint64_t i;
	char *id, *topology;   /* topology may be NULL */
	int64_t pus, cores, sockets, numa;   /* -1 when absent */
};

struct hc_vprocess {
	uint64_t i, pid, ppid, gen, start_ns, threads, first_thread;
	char *host, *exe, *log;   /* log may be NULL */
};

/* One row of threads.csv. Empty numeric fields are -1, empty strings "". */
struct hc_vthread {
	uint64_t index, process, pid, thread;
	int64_t tid, creator, creation_context, period;
	char *start_routine, *cpus, *sampler, *profile;
};

struct hc_vskipped { char *file, *reason; };
struct hc_vcounter { char *name; uint64_t v; };

/* experiment.xml tables. */
struct hc_vname { uint64_t i; char *n; };
struct hc_vproc { uint64_t i; char *n; uint64_t lm, f, l; };

enum hc_vnode_type { HC_VN_PF = 0, HC_VN_A = 1, HC_VN_C = 2, HC_VN_S = 3 };

#define HC_V_METRICS (2 * HC_DB_M_COUNT)   /* metric ids 0..9, HC_DB_METRIC_ID */

/* One calling-context node, in document order (a parent precedes its
   children). proc is the procedure id for PF/A, lm the load module of a PF. */
struct hc_vnode {
	uint64_t id;
	uint32_t parent;       /* index in nodes[], HC_V_NONE for the root's children */
	uint8_t type;          /* enum hc_vnode_type */
	uint64_t proc, lm, f, l;
	uint64_t m[HC_V_METRICS];
};

struct hc_vcodepair {
	uint64_t c, p;         /* node ids; p == 0: peer context unknown */
	uint64_t all, tru, fal;
};

/* objects.xml (optional). */
struct hc_vobjcell { uint32_t i, j; uint64_t all, tru, fal; };

struct hc_vfield {
	char *name;            /* field name, or "" for a bare offset range */
	uint64_t offset, size;
	uint64_t all, tru, fal;
	uint32_t *threads;     /* threads that accessed it in communication */
	size_t nthreads;
};

struct hc_vobject {
	uint64_t i;
	char *kind;            /* static | heap | stack | tls | unknown */
	char *name;            /* symbol, "heap @ <context>", "stack of thread N", ... */
	char *module;          /* load module of a static, "" otherwise */
	uint64_t context;      /* experiment.xml node id of the allocation context, 0 if none */
	uint64_t size, blocks;
	uint64_t all, tru, fal;
	struct hc_vobjcell *cells;  size_t ncells;   /* sparse symmetric thread matrix, i < j */
	struct hc_vfield *fields;   size_t nfields;
	struct hc_vcodepair *pairs; size_t npairs;
};

struct hc_vdb {
	char *dir;

	/* database.xml */
	uint64_t version;
	char *generator;
	char *unit, *unit_text, *samplers;
	char **inputs;                 size_t ninputs;
	uint64_t found, read, skipped;
	struct hc_vskipped *skips;     size_t nskips;
	struct hc_vhost *hosts;        size_t nhosts;
	struct hc_vprocess *procs;     size_t nprocs;
	struct hc_vmatrix mat[HC_DB_LEVEL_COUNT][HC_DB_KIND_COUNT];
	struct hc_vlabel *labels[HC_DB_LEVEL_COUNT];   /* [thread] is NULL */
	size_t nlabels[HC_DB_LEVEL_COUNT];
	uint64_t t_all, t_true, t_false, t_sample, t_trap, events, event_weight;
	struct hc_vcounter *counters;  size_t ncounters;
	char **warnings;               size_t nwarnings;

	/* threads.csv */
	struct hc_vthread *threads;    size_t nthreads;

	/* experiment.xml */
	char *program;                 /* Header n */
	uint64_t root_m[HC_V_METRICS]; /* the root's metrics: the totals */
	struct hc_vname *lms;          size_t nlms;
	struct hc_vname *files;        size_t nfiles;
	struct hc_vproc *procedures;   size_t nprocedures;
	struct hc_vnode *nodes;        size_t nnodes;
	uint64_t pairs_top;
	struct hc_vcodepair *pairs;    size_t npairs;

	/* objects.xml; has_objects false when the file is absent */
	bool has_objects;
	struct hc_vobject *objects;    size_t nobjects;

	/* lookup: node ids sorted, with their index in nodes[] */
	uint64_t *node_ids;
	uint32_t *node_idx;
};

/* Read database directory `dir`. On success *out owns everything and 0 is
   returned; on failure returns -errno (-EINVAL for a format violation), with
   the message "FILE[:LINE]: what is wrong" in err. */
int hc_vdb_open(const char *dir, struct hc_vdb **out, char *err, size_t errsz);
void hc_vdb_close(struct hc_vdb *db);

/* Lookups; NULL when absent. */
const struct hc_vnode *hc_vdb_node(const struct hc_vdb *db, uint64_t id);
const char *hc_vdb_file_name(const struct hc_vdb *db, uint64_t f);
const struct hc_vproc *hc_vdb_procedure(const struct hc_vdb *db, uint64_t i);
const char *hc_vdb_lm_name(const struct hc_vdb *db, uint64_t i);

/* The innermost procedure name around node `n` (its own for PF/A), or "?". */
const char *hc_vdb_node_proc_name(const struct hc_vdb *db, const struct hc_vnode *n);

/* "file:line" of a node's source location into buf (basename of the file
   when `base`), "<unknown>" when the file is unknown. Returns buf. */
char *hc_vdb_node_where(const struct hc_vdb *db, const struct hc_vnode *n, bool base,
                        char *buf, size_t sz);

/* A human label for index i of a level: "3 worker", "cpu 1", "socket 0". */
char *hc_vdb_index_label(const struct hc_vdb *db, int level, uint32_t i, char *buf, size_t sz);

/* Value of the (level, kind) matrix at (i, j): 0 on the diagonal, symmetric;
   O(log cells). */
uint64_t hc_vmatrix_at(const struct hc_vmatrix *m, uint32_t i, uint32_t j);
/* Per index: the sum of its row (= its column), i.e. all the communication
   it takes part in; vol has m->n entries. O(n + cells). */
void hc_vmatrix_volumes(const struct hc_vmatrix *m, uint64_t *vol);

/* Level/kind spellings -> enums; -1 when unknown. */
int hc_vdb_level_parse(const char *s);
int hc_vdb_kind_parse(const char *s);

#endif
