/* SPDX-License-Identifier: BSD-3-Clause */
/* db.h — the database format's library (libhcdb.a): the one validating
   reader and the writer's directory handling; the writer of each file is
   db/write.h. The format is specified in
   doc/database-format.md with the schemas doc/database.xsd,
   doc/experiment.xsd and doc/objects.xsd; its names (files, versions, levels,
   kinds, metrics, CSV headers) are in db/format.h.

   Reading: a database directory read into memory, for viewer-export,
   lib/report and the analyzer's tests. The reader knows the database only
   through its documented format: it parses database.xml, threads.csv, the
   matrices, experiment.xml and, when present, objects.xml, checks what the
   format promises (shapes, symmetry, totals, references between files) and
   on the first violation fails with a message of the form "FILE[:LINE]: what
   is wrong". The XML files are streamed with libxml2's xmlTextReader so that
   a 10^5-node calling-context tree costs its node array, not a DOM.

   Writing: every file is written by db/write.h's hc_db_write_* from plain
   rows (write_*.c); the directory is staged next to its target and renamed
   into place when complete (write.c). Ordinary program code: no signal context
   anywhere. */
#ifndef HC_DB_H
#define HC_DB_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "db/format.h"

#define HC_DB_NONE UINT32_MAX   /* "no index" in the uint32_t references below */

/* A non-zero cell of the upper triangle of a matrix. */
struct hc_db_cell {
	uint32_t i, j;         /* i < j */
	uint64_t v;
};

/* One square matrix file (matrices/<level>-<kind>.csv), dense or sparse on
   disk; in memory always its non-zero upper-triangle cells (the matrix is
   symmetric with a zero diagonal), so memory follows the cells, not n². */
struct hc_db_matrix {
	bool present;
	bool sparse;           /* <Matrix format="sparse">: the file's form */
	char *file;            /* as named in database.xml, relative to the database */
	uint32_t n;
	uint64_t total, diagonal, unplaced;
	struct hc_db_cell *cells; /* sorted by (i, j) */
	size_t ncells;
};

/* One index of a core/socket/numa level (<Labels>); -1 = attribute absent. */
struct hc_db_label {
	char *host;
	int64_t cpu, core, socket, numa;
};

struct hc_db_host {
	uint64_t i;
	char *id, *topology;   /* topology may be NULL */
	char *name;            /* the host's name (topology HostName), NULL when absent */
	int64_t pus, cores, sockets, numa;   /* -1 when absent */
};

struct hc_db_process {
	uint64_t i, pid, ppid, gen, start_ns, threads, first_thread;
	uint64_t rank;            /* MPI rank, 0 when absent (databases before MPI support) */
	char *host, *exe, *log;   /* log may be NULL */
};

/* One row of threads.csv. Empty numeric fields are -1, empty strings "". */
struct hc_db_thread {
	uint64_t index, process, pid, thread;
	int64_t tid, creator, creation_context, period;
	char *start_routine, *cpus, *sampler, *profile;
	uint64_t rank;         /* MPI rank of its process, 0 in databases before the column */
	char *host;            /* host name or id, "" in databases before the column */
};

/* One MPI rank: the communication among its own threads (within) and with
   threads of other ranks (across = its row sum in the rank × rank matrix);
   [0] true, [1] false sharing. */
struct hc_db_rank {
	uint64_t rank, processes, threads;
	char *host;
	uint64_t within[2], across[2];
};
/* A non-zero cell of the rank × rank matrix, a < b (rank numbers). */
struct hc_db_rankpair {
	uint64_t a, b, v[2];
};

struct hc_db_skipped { char *file, *reason; };
struct hc_db_counter { char *name; uint64_t v; };

/* experiment.xml tables. */
struct hc_db_name { uint64_t i; char *n; };
struct hc_db_proc { uint64_t i; char *n; uint64_t lm, f, l; };

enum hc_db_node_type { HC_DB_N_PF = 0, HC_DB_N_A = 1, HC_DB_N_C = 2, HC_DB_N_S = 3 };

#define HC_DB_METRICS (2 * HC_DB_M_COUNT)   /* metric ids 0..9, HC_DB_METRIC_ID */

/* One calling-context node, in document order (a parent precedes its
   children). proc is the procedure id for PF/A, lm the load module of a PF. */
struct hc_db_node {
	uint64_t id;
	uint32_t parent;       /* index in nodes[], HC_DB_NONE for the root's children */
	uint8_t type;          /* enum hc_db_node_type */
	uint64_t proc, lm, f, l;
	uint64_t m[HC_DB_METRICS];
};

struct hc_db_codepair {
	uint64_t c, p;         /* node ids; p == 0: peer context unknown */
	uint64_t all, tru, fal;
};

/* objects.xml (optional). */
struct hc_db_objcell { uint32_t i, j; uint64_t all, tru, fal; };

struct hc_db_field {
	char *name;            /* field name, or "" for a bare offset range */
	uint64_t offset, size;
	uint64_t access;       /* bytes of the accesses counted here; 0 when not recorded */
	uint64_t all, tru, fal;
	uint32_t *threads;     /* threads that accessed it in communication */
	size_t nthreads;
};

struct hc_db_object {
	uint64_t i;
	char *kind;            /* static | heap | stack | tls | unknown */
	char *name;            /* symbol, "heap @ <context>", "stack of thread N", ... */
	char *module;          /* load module of a static, "" otherwise */
	uint64_t context;      /* experiment.xml node id of the allocation context, 0 if none */
	uint64_t size, blocks;
	char *type;            /* element type ("struct stat", "lreg_args"), "" when unknown */
	uint64_t elem;         /* its size in bytes, 0 when unknown */
	uint64_t all, tru, fal;
	struct hc_db_objcell *cells;  size_t ncells;   /* sparse symmetric thread matrix, i < j */
	struct hc_db_field *fields;   size_t nfields;
	struct hc_db_codepair *pairs; size_t npairs;
};

/* regions.xml / regions.csv (optional): code regions, doc/regions.md. */
struct hc_db_rcell {
	uint32_t i, j;                 /* i < j, thread indexes */
	uint64_t tru, fal;             /* inclusive */
	uint64_t xtru, xfal;           /* exclusive */
};

struct hc_db_region {
	uint64_t i;                    /* = index in regions[] (document order, parents first) */
	uint32_t parent;               /* index, HC_DB_NONE for the program */
	char *kind;                    /* program | procedure | parallel | loop */
	char *name;
	char *lm, *file;               /* NULL when absent */
	int64_t line, depth;           /* -1 when absent; depth: loops only */
	bool irreducible;
	uint64_t addr;                 /* function start or loop header in lm, 0 for the program */
	uint64_t tru, fal, self;       /* inclusive: off-diagonal true, false; diagonal */
	uint64_t xtru, xfal, xself;    /* exclusive */
	struct hc_db_rcell *cells;     /* sorted by (i, j) */
	size_t ncells;
	bool cells_parent;             /* regions.xml said cells="parent": the inclusive cells
	                                  were read from the parent's rows (cells holds them) */
	uint32_t cells_of;             /* cells="parent" or cells="K" (version 3): the region
	                                  whose inclusive cells these are (cells holds them),
	                                  HC_DB_NONE when its own rows are */
};

struct hc_db {
	char *dir;

	/* database.xml */
	uint64_t version;
	char *generator;
	char *unit, *unit_text, *samplers;
	char **inputs;                 size_t ninputs;
	uint64_t found, read, skipped;
	struct hc_db_skipped *skips;     size_t nskips;
	struct hc_db_host *hosts;        size_t nhosts;
	struct hc_db_process *procs;     size_t nprocs;
	size_t nranks;                   /* distinct MPI ranks of the processes (>= 1) */
	/* <Ranks> (several ranks only; nrankrows 0 otherwise) */
	struct hc_db_rank *rankrows;     size_t nrankrows;
	struct hc_db_rankpair *rankpairs; size_t nrankpairs;
	struct hc_db_matrix mat[HC_DB_LEVEL_COUNT][HC_DB_KIND_COUNT];
	struct hc_db_label *labels[HC_DB_LEVEL_COUNT];   /* [thread] is NULL */
	size_t nlabels[HC_DB_LEVEL_COUNT];
	uint64_t t_all, t_true, t_false, t_sample, t_trap, events, event_weight;
	struct hc_db_counter *counters;  size_t ncounters;
	char **warnings;               size_t nwarnings;

	/* threads.csv */
	struct hc_db_thread *threads;    size_t nthreads;

	/* experiment.xml */
	char *program;                 /* Header n */
	uint64_t root_m[HC_DB_METRICS]; /* the root's metrics: the totals */
	struct hc_db_name *lms;          size_t nlms;
	struct hc_db_name *files;        size_t nfiles;
	struct hc_db_proc *procedures;   size_t nprocedures;
	struct hc_db_node *nodes;        size_t nnodes;
	uint64_t pairs_top;
	struct hc_db_codepair *pairs;    size_t npairs;

	/* objects.xml; has_objects false when the file is absent */
	bool has_objects;
	struct hc_db_object *objects;    size_t nobjects;
	/* regions.xml; has_regions false when the file is absent */
	bool has_regions;
	char *regions_matrices, *regions_exclusive;
	struct hc_db_region *regions;    size_t nregions;

	/* phases.xml and locality.xml (db/views.h); NULL when neither exists */
	struct hc_db_views *views;

	/* lookup: node ids sorted, with their index in nodes[] */
	uint64_t *node_ids;
	uint32_t *node_idx;
};

/* Read database directory `dir`. On success *out owns everything and 0 is
   returned; on failure returns -errno (-EINVAL for a format violation), with
   the message "FILE[:LINE]: what is wrong" in err. */
int hc_db_open(const char *dir, struct hc_db **out, char *err, size_t errsz);
void hc_db_close(struct hc_db *db);

/* The writer's shortcut (hpcprof-comm's reports, which read back the
   database they just wrote): as hc_db_open, but experiment.xml — by far the
   largest file, whose parsing would cost the analyzer about a quarter of its
   time — is not parsed: fill() sets what its parser would, from the model
   the file was written from: program, lms, files, procedures (strings
   malloc'd, owned by db), nodes (document order, parent indexes, metrics
   zero unless written), root_m, pairs and pairs_top. The tables are then
   checked and indexed as after parsing, and every other file is read and
   checked as by hc_db_open. fill returns 0 or -errno. The analyzer's tests
   check that both ways give the same model. skip_region_cells: regions.csv
   (the regions' thread matrices, tens of MB; the text summary shows only
   the regions' totals) is not read: every region's ncells is 0;
   skip_phase_cells, likewise, skips phases.xml's per-phase thread matrices
   (20 x 285,000 cells at 100,000 threads; the text shows the phase table
   only): every phase's ncells is 0, the rest of the file is read and checked.
   fill_matrices, likewise, sets the cells of every present matrix (the
   dense n x n files of a 1,024-thread run are 3 M values to parse) instead
   of reading matrices/; their sums are checked against database.xml as
   after reading. */
typedef int (*hc_db_experiment_fill)(struct hc_db *db, void *arg);
/* fill_phases, likewise, sets phases.xml's part of db/views.h's struct
   (has_phases and what read_phases sets, every phase's ncells 0) instead of
   reading phases.xml (389 MB at 100,000 threads); its windows' sums are
   checked against its phases as after reading. */
struct hc_db_views;
typedef int (*hc_db_phases_fill)(struct hc_db_views *v, void *arg);
struct hc_db_open_opts {
	hc_db_experiment_fill fill;            /* NULL: experiment.xml is parsed */
	hc_db_experiment_fill fill_matrices;   /* NULL: matrices/ are read */
	void *arg;
	bool skip_region_cells;
	bool skip_phase_cells;   /* phases.xml's per-phase <T> cells: every ncells 0 */
	hc_db_phases_fill fill_phases;   /* NULL: phases.xml is read */
};
int hc_db_open_with(const char *dir, const struct hc_db_open_opts *o, struct hc_db **out,
                    char *err, size_t errsz);

/* Lookups; NULL when absent. */
const struct hc_db_node *hc_db_node_find(const struct hc_db *db, uint64_t id);
const char *hc_db_file_name(const struct hc_db *db, uint64_t f);
const struct hc_db_proc *hc_db_procedure(const struct hc_db *db, uint64_t i);
const char *hc_db_lm_name(const struct hc_db *db, uint64_t i);

/* The innermost procedure name around node `n` (its own for PF/A), or "?". */
const char *hc_db_node_proc_name(const struct hc_db *db, const struct hc_db_node *n);

/* "file:line" of a node's source location into buf (basename of the file
   when `base`), "<unknown>" when the file is unknown. Returns buf. */
char *hc_db_node_where(const struct hc_db *db, const struct hc_db_node *n, bool base,
                        char *buf, size_t sz);

/* A human label for index i of a level: "3 worker", "cpu 1", "socket 0". */
char *hc_db_index_label(const struct hc_db *db, int level, uint32_t i, char *buf, size_t sz);

/* Value of the (level, kind) matrix at (i, j): 0 on the diagonal, symmetric;
   O(log cells). */
uint64_t hc_db_matrix_at(const struct hc_db_matrix *m, uint32_t i, uint32_t j);
/* Per index: the sum of its row (= its column), i.e. all the communication
   it takes part in; vol has m->n entries. O(n + cells). */
void hc_db_matrix_volumes(const struct hc_db_matrix *m, uint64_t *vol);

/* Level/kind spellings -> enums; -1 when unknown. */
int hc_db_level_parse(const char *s);
int hc_db_kind_parse(const char *s);

/* ---- writing (write.c) ---- */

/* May outdir be created (or replaced with force)? 0, or -EEXIST / -errno
   with the reason in err. */
int hc_db_check_target(const char *outdir, bool force, char *err, size_t errlen);
/* Create the staging directory (with matrices/) next to outdir. */
int hc_db_stage(const char *outdir, char **stage, char *err, size_t errlen);
/* Move the staging directory into place as outdir. */
int hc_db_commit(const char *stage, const char *outdir, bool force, char *err, size_t errlen);
/* Remove a staging directory after a failure. */
void hc_db_discard(const char *stage);

#endif
