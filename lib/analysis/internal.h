/* SPDX-License-Identifier: BSD-3-Clause */
/* internal.h — the analyzer's cross-file pieces: hash tables, the address
   calling-context tree, per-profile and per-worker records, symbolization,
   topology, the symbolized ("view") tree. Each part is
   owned by one .c file, named by its prefix (hmap__, strtab__, cct__, scan__,
   merge__, sym__, topo__, view__, pairs__ ...); the database's files are
   written by lib/db (db/write.h) from what these parts hand it, into a
   directory staged by lib/db. Nothing here runs in signal context. */
#ifndef HC_ANALYSIS_INTERNAL_H
#define HC_ANALYSIS_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hc/common.h"
#include "db/format.h"
#include "hc/profile.h"
#include "analysis/analysis.h"
#include "db/db.h"
#include "db/write.h"
#include "support/out.h"

/* Sanity bounds applied to values a profile can name but the reader cannot
   check (they refer to other profiles or to the machine). */
/* Thread indexes within one process: the runtime never reuses one, so a
   process that churns short-lived threads goes past pid_max (at most 2^22);
   the matrices are sparse, so the bound only rejects garbage. */
#define AN_MAX_THREAD (1u << 24)
#define AN_MAX_CPU    8192     /* logical CPU numbers (Linux's largest NR_CPUS) */
#define AN_MAX_INLINE 64       /* inlined frames kept per address */

/* ---------------- hmap.c: tables ---------------- */

/* A key of three 64-bit words. */
struct hkey {
	uint64_t a, b, c;
};

/* Open-addressing hash set of keys with dense indexes 0..n-1 in insertion
   order; callers keep their values in parallel arrays indexed the same way. */
struct hmap {
	uint64_t *slots;      /* index + 1 | high half of the hash, 0 = empty */
	uint32_t mask;
	struct hkey *keys;
	uint32_t n, cap;
};

int hmap__init(struct hmap *h, uint32_t hint);
void hmap__free(struct hmap *h);
/* Find k or append it: *idx is its index; returns 1 if added, 0 if found,
   -ENOMEM. */
int hmap__intern(struct hmap *h, const struct hkey *k, uint32_t *idx);
bool hmap__find(const struct hmap *h, const struct hkey *k, uint32_t *idx);

/* Sums of two 64-bit values by key (code pairs, CPU pairs). */
struct agg {
	struct hmap h;
	uint64_t (*v)[2];
	uint32_t vcap;
};

int agg__init(struct agg *g, uint32_t hint);
void agg__free(struct agg *g);
int agg__add(struct agg *g, const struct hkey *k, uint64_t v0, uint64_t v1);
/* agg__add that also gives the key's index in the table (dense from 0,
   stable while the table lives). */
int agg__add_at(struct agg *g, const struct hkey *k, uint64_t v0, uint64_t v1, uint32_t *idx);

/* Interned strings: id <-> string, ids dense from 0. */
struct strtab {
	uint32_t *slots;
	uint32_t mask;
	char **s;
	uint32_t n, cap;
};

int strtab__init(struct strtab *t);
void strtab__free(struct strtab *t);
int strtab__intern(struct strtab *t, const char *s, uint32_t *id);
bool strtab__find(const struct strtab *t, const char *s, uint32_t *id);

/* Grow *p (elements of size el) to hold at least need; 0 or -ENOMEM. */
int an__grow(void *pp, uint32_t *cap, uint32_t need, size_t el);

/* ---------------- pages.c: pages let go, for reuse ---------------- */

/* Mappings let go (the region events, the region matrices), kept so that
   the next large array takes their pages (moved by mremap: no fault, no
   zeroing) instead of new ones. Thread-safe. Closed (an__pool_close):
   what it holds is unmapped, and what comes is unmapped at once. */
struct an_pool {
	struct an_piece {
		void *p;
		size_t n;
	} *pc;
	uint32_t n, cap;
	size_t bytes;
	bool ok, open;
	pthread_mutex_t lock;
};
void an__pool_init(struct an_pool *pl);
void an__pool_put(struct an_pool *pl, void *p, size_t n);   /* p page-aligned, pl may be NULL */
void an__pool_cap(struct an_pool *pl, size_t max);   /* the oldest pieces unmapped */
void an__pool_close(struct an_pool *pl);
void an__pool_free(struct an_pool *pl);

/* An array in address space reserved at once (an__parr_init, bytes at
   most) and backed as it fills: an__parr_back(need) before writing below
   byte need — by pool pages while there are any, else by new pages as
   they are touched. Its pages hold old data until written. Released:
   back to the pool (NULL: unmapped). */
struct an_parr {
	uint8_t *base;
	size_t res, backed;
	struct an_seg {
		size_t off, n;
		bool moved;
	} *seg;                     /* its mappings, in order */
	uint32_t nseg, segcap;
};
int an__parr_init(struct an_parr *a, size_t bytes);
int an__parr_back(struct an_pool *pl, struct an_parr *a, size_t need);   /* 0 or -ENOMEM */
void an__parr_release(struct an_pool *pl, struct an_parr *a);
uint64_t an__hash(const struct hkey *k);

/* ---------------- cct.c: the address calling-context tree ---------------- */

/* Nodes are (parent, module, offset, leaf flag), merged by identity; node 0
   is the root. Parents always have smaller ids than their children. */
struct cct {
	struct hmap h;              /* key a = parent | lm << 32, b = offset, c = flags */
	uint64_t (*m)[HC_M_COUNT];  /* exclusive metrics */
	uint32_t mcap;
};

int cct__init(struct cct *t);
void cct__free(struct cct *t);
int cct__add(struct cct *t, uint32_t parent, uint32_t lm, uint32_t flags, uint64_t offset,
             const uint64_t m[HC_M_COUNT], uint32_t *id);
static inline uint32_t cct__n(const struct cct *t) { return t->h.n; }
static inline uint32_t cct__parent(const struct cct *t, uint32_t i) { return (uint32_t)t->h.keys[i].a; }
static inline uint32_t cct__lm(const struct cct *t, uint32_t i) { return (uint32_t)(t->h.keys[i].a >> 32); }
static inline uint64_t cct__offset(const struct cct *t, uint32_t i) { return t->h.keys[i].b; }
static inline uint32_t cct__flags(const struct cct *t, uint32_t i) { return (uint32_t)t->h.keys[i].c; }

/* ---------------- scan.c: inputs ---------------- */

/* Parsed "<exe>-<rank>-<thread>-<hostid>-<pid>-<gen>.hcprof" or
   "<exe>-<rank>-<hostid>-<pid>-<gen>.log". */
struct an_name {
	bool ok;
	uint32_t rank, thread, hostid, pid, gen;
};

bool scan__parse_profile_name(const char *base, struct an_name *out);
bool scan__parse_log_name(const char *base, struct an_name *out);
bool scan__parse_topology_name(const char *base, uint32_t *hostid);
struct an;
/* List every input directory (profiles, logs, topologies); hosts sorted by id.
   *ndirs_ok counts the directories that could be listed. 0 or -ENOMEM. */
int scan__inputs(struct an *an, uint32_t *ndirs_ok);

/* ---------------- per-profile and per-process records ---------------- */

struct an_counter {
	char name[40];
	uint64_t value;
};

enum an_status {
	AN_PENDING = 0,
	AN_OK,
	AN_SKIPPED,
};

/* A profile's thread header (struct hc_prof_thread) without the program
   path (256 bytes: the process record keeps it, struct an_proc), so that a
   record per profile stays small at 10^5-10^6 profiles; merge__header fills it. */
struct an_th {
	uint32_t index, creator, pid, tid, ppid, sampler, unit, creation_ctx;
	uint64_t period, start_ns, end_ns, stack_lo, stack_hi, tls_lo, tls_hi;
	uint32_t start_lm, rank;
	uint64_t start_off;
};

struct an_prof {
	char *path;
	unsigned input;             /* index of the measurement directory */
	uint32_t host;              /* index into an->hosts */
	uint32_t host_id;           /* the host id itself (file name) */
	uint32_t gen;               /* exec generation from the file name, 0 if unnamed */
	enum an_status status;
	char *reason;               /* why skipped */
	struct an_th th;
	uint32_t proc;              /* index into an->procs */
	unsigned worker;
	uint32_t *map;              /* profile node -> worker-local cct node */
	uint32_t nnodes;
	uint32_t start_lm;          /* global module id of the start routine, HC_NONE */
	/* Row of the thread matrix: (peer index, 0, 0) -> (true, false), only
	   the peers named by at least one event (h.slots NULL until the first). */
	struct agg row;
	uint64_t self_weight[2];    /* events naming this thread as its own peer (true, false) */
	uint64_t bad_events;        /* events naming an impossible peer */
	uint64_t nevents, event_weight;
	uint64_t mtot[HC_M_COUNT];  /* sum of node metrics */
	struct an_counter *counters;
	uint32_t ncounters;
	uint32_t gthread;           /* global thread index, HC_NONE until assigned */
	/* regions.c: events summed in pass 2 (the region sets are not known
	   yet) by (code pair, peer) — sequential, regions__add: the code
	   pair's index in the table of the worker that read the profile (wk)
	   — or by (node, peer's node, peer) — distributed, dist__raw_add; by
	   (region sets of both contexts, peer) once translated (distributed:
	   dist__raw_sets; sequential: in pass A). */
	struct rrow {
		struct rrow_ent {
			uint64_t sets;      /* the context's region set | the peer context's << 32
			                       (before pass A: the key above) */
			uint32_t peer;
			uint32_t vk;        /* volume << 1 | kind (1: false sharing); a larger sum
			                       than RROW_VMAX takes several entries (16 B an entry:
			                       one per event on bench/prof-scale) */
		} *e;
		uint32_t n, cap, merged;  /* merged: entries after the last compaction */
		uint32_t wk;              /* sequential: the worker whose code pairs key them */
		bool mapped;              /* e is a mapping of its own (regions__reserve);
		                             freed by regions__rrow_free */
		struct rrow_slot {        /* while reading: recent keys -> entry (the key here:
		                             a new key reads no entry; on bench/prof-scale every
		                             event is one) */
			uint64_t sets;
			uint32_t pk;          /* peer << 1 | kind */
			uint32_t x;
		} *cache;
	} rrow;
	/* Its process's lock traps' scale (§5.61): the hand-offs its lock sets
	   stood for and what their capped weights counted (the counters
	   lock_scale_handoffs, lock_scale_weighed summed over the process's
	   profiles); an HC_COMM_LOCK event weighs w * lock_all / lock_weighed. */
	uint64_t lock_all, lock_weighed;
	uint32_t name_pid;          /* pid from the file name, 0 if unnamed */
	uint32_t gidx;              /* index in the listing of every input (file order); the
	                               same as the index in profs except on the distributed
	                               merge's other ranks, which hold their share only */
	bool remote;                /* distributed merge: another rank reads it (dist.c) */
	bool theirs;                /* ... and resolves its objects: stays set on rank 0 */
};

struct an_proc {
	unsigned input;
	uint32_t host;
	uint32_t pid, gen, ppid;
	uint32_t rank;              /* MPI rank (profile header), 0 outside MPI */
	char exe[256];
	uint64_t start_ns;
	char *log;
	int unit;                   /* unit of its first profile */
	uint32_t first;             /* global index of its first thread */
	uint32_t nthreads;
	uint32_t order;             /* position after sorting */
	bool used;
};

struct an_thread {
	uint32_t proc;              /* index into an->procs */
	uint32_t idx;               /* index within the process */
	struct an_prof *prof;       /* NULL for a thread known only from others */
	uint32_t creator;           /* global index or HC_NONE */
	uint32_t creation_view;     /* experiment.xml node id or 0 */
	char *start_name;           /* symbolized start routine, NULL for main */
	int32_t *cpus;              /* sorted */
	uint32_t ncpus, cpucap;
};

/* One unit's aggregates inside a worker. */
struct an_acc {
	bool used;
	struct cct tree;
	struct agg pairs;           /* a = global node, b = peer's global node or HC_NONE */
	struct agg cpus;            /* a = host, b = cpu, c = peer cpu (+1, 0 = unknown) */
	struct agg tcpus;           /* a = proc, b = thread index, c = cpu: presence */
	struct agg lockx;           /* a = global node: what scaling its lock traps added
	                               (true, false), for its metrics (§5.61) */
	uint32_t *remap;            /* local cct node -> global, after the merge */
};

struct an_worker {
	struct an *an;
	unsigned id;
	struct an_acc acc[2];       /* by enum hc_unit */
	int err;                    /* -ENOMEM */
};

struct an_host {
	uint32_t id;
	char *topo_path;            /* first topology-<id>.xml found */
	struct topo *topo;          /* loaded, or NULL */
	char idname[16];            /* the id in hex, the name when the topology has none */
};

struct an_log {
	unsigned input;
	struct an_name name;
	char *path;
};

/* ---------------- symbols.c: libdw ---------------- */

struct sym_frame {
	const char *name;           /* NULL when unknown */
	const char *decl_file;
	int decl_line;
	const char *call_file;      /* where this frame is inlined into the previous one */
	int call_line;
};

struct sym_result {
	int nframes;                /* 0 when nothing is known */
	struct sym_frame fr[AN_MAX_INLINE];  /* outermost (real function) first */
	const char *file;           /* source location of the address itself */
	int line;
	char filebuf[4096];         /* file, when made absolute with the CU's directory */
};

struct symmod;

/* names.c: display names (doc/hpcprof-comm.md "Symbolization"). */
enum names_omp { NAMES_OMP_NONE = 0, NAMES_OMP_GCC, NAMES_OMP_CLANG };
/* raw demangled without parameters (C++, Rust), gfortran "__m_MOD_f" as
   "m::f", "x@plt" as demangled x + "@plt"; otherwise a copy. malloc'd, NULL
   when out of memory. */
char *names__demangle(const char *raw);
/* Is raw the outlined body of an OpenMP parallel region? For GCC's
   "parent._omp_fn.N" *parent_len is the length of the parent's raw name. */
enum names_omp names__omp_kind(const char *raw, size_t *parent_len);
/* "parent [parallel region at file:line]" (parent may be NULL, file NULL or
   line 0 when unknown). malloc'd. */
char *names__omp_region(const char *parent, const char *file, int line);

/* Open one module's ELF (and its separate debug information) at bias 0.
   Returns NULL and says why in err when the file cannot be used. */
struct symmod *sym__open(const char *path, char *err, size_t errlen);
void sym__close(struct symmod *m);
/* The same through a cache of one open module per load module, so that
   the stages reading a module (code regions, symbolization, the regions'
   names) open it and load its DWARF (inflating libc's compressed debug
   sections: tens of ms) once: sym__take hands the cached one to one
   thread at a time, or opens it (NULL, err set, when it cannot);
   sym__give puts it back (or closes it, when one is cached already);
   sym__drop_all closes the cached ones. */
struct symmod *sym__take(struct an *an, uint32_t lm, char *err, size_t errlen);
void sym__give(struct an *an, uint32_t lm, struct symmod *m);
void sym__drop_all(struct an *an);
/* Symbolize addr (relative to the load bias); strings stay valid until
   sym__close. Never fails: unknown parts are NULL / 0. */
void sym__lookup(struct symmod *m, uint64_t addr, struct sym_result *out);
/* Neither DWARF nor a full symbol table (.symtab): only exported names. */
bool sym__stripped(struct symmod *m);
/* regions.c: the function symbol holding addr (start, size 0 when unsized,
   raw name), a sized function symbol by raw name, and a malloc'd copy of
   the code bytes [addr, addr + len) (NULL when not in one executable
   section of the file). */
bool sym__function(struct symmod *m, uint64_t addr, uint64_t *lo, uint64_t *size,
                   const char **raw);
bool sym__function_named(struct symmod *m, const char *raw, uint64_t *lo, uint64_t *size);
uint8_t *sym__code(struct symmod *m, uint64_t addr, uint64_t len);
/* The display name of the function symbol raw starting at entry (names.c:
   an OpenMP region as "parent [parallel region at file:line]", with *file
   and *line where it starts; NULL / 0 otherwise). NULL when unknown. */
const char *sym__display_name(struct symmod *m, const char *raw, uint64_t entry, const char **file,
                              int *line);

/* ---------------- topology.c: hwloc ---------------- */

struct topo_pu {
	int cpu;                    /* PU os_index */
	int core;                   /* Core logical index, -1 */
	int socket;                 /* Package os_index, -1 */
	int numa;                   /* NUMA node os_index, -1 */
};

struct topo {
	struct topo_pu *pu;         /* sorted by cpu */
	uint32_t npu, ncores;
	int *sockets;               /* sorted os indexes */
	uint32_t nsockets;
	int *numas;
	uint32_t nnuma;
	char hostname[256];         /* the root's HostName info, "" if none */
};

/* The name of host h: its topology's HostName, else its id in hex (static
   buffer per call site is not needed: the id form is kept in an_host). */
const char *an__host_name(const struct an *an, uint32_t h);
int topo__load(const char *xmlpath, struct topo **out, char *err, size_t errlen);
void topo__free(struct topo *t);
const struct topo_pu *topo__pu(const struct topo *t, int cpu);

/* ---------------- view.c: the symbolized tree ---------------- */

/* Nodes and procedures are lib/db's writer types (db/write.h): the tree is
   handed to the experiment.xml writer as it is. */
enum view_kind { V_ROOT = HC_DB_T_ROOT, V_PF = HC_DB_T_PF, V_A = HC_DB_T_A, V_C = HC_DB_T_C,
                 V_S = HC_DB_T_S };

struct view {
	struct hmap index;          /* (parent | kind << 32, proc | file << 32, line) */
	struct hc_db_tnode *n;
	uint32_t ncap;
	struct strtab names, files; /* file 0 = "<unknown file>" */
	struct hmap procs;          /* (name | lm << 32, file | line << 32, 0) */
	struct hc_db_tproc *proc;
	uint32_t proccap;
	uint32_t *of_cct;           /* address node -> view node (terminal C or S) */
};

/* ---------------- analysis.c: the whole run ---------------- */

struct an_warn {
	char *text;
};

struct an {
	const struct hc_analysis_opts *o;
	unsigned top;
	struct hc_db_wpair *cp_rows;       /* experiment.xml's code-pair rows, for the model */
	uint32_t ncp_rows;
	uint32_t dense_max;         /* largest matrix written in the dense form */
	char **inputs_abs;

	/* inputs */
	struct an_prof *profs;
	uint32_t nprofs, profcap;
	uint32_t nlisted;           /* profiles listed in all inputs: nprofs, except on the
	                               distributed merge's ranks but 0 (their share only) */
	struct an_host *hosts;
	uint32_t nhosts, hostcap;
	struct an_log *logs;
	uint32_t nlogs, logcap;

	/* filled by the workers under lock */
	pthread_mutex_t lock;
	struct strtab modules;      /* global module ids by path */
	uint32_t unknown_lm;        /* the "<unknown>" module, for addresses outside any */
	struct hmap prockey;        /* (input | host << 32, pid | gen << 32, 0) */
	struct an_proc *procs;
	uint32_t nprocs, proccap;
	pthread_cond_t cond;        /* a worker finished (with lock) */
	unsigned running;           /* workers still running */
	struct hmap claimed;        /* (proc, thread index, 0): one profile per thread */
	uint32_t *claim_prof;       /* claimed index -> profile index */
	uint32_t claimcap;
	uint32_t next_prof;         /* work queue */
	uint32_t done_profs;

	struct an_worker *workers;
	unsigned nworkers;

	/* after the merge */
	int unit;
	uint32_t samplers;          /* bit per enum hc_sampler */
	struct cct tree;
	struct an_thread *threads;
	uint32_t nthreads;
	struct hmap thread_of;      /* (proc, idx, 0) -> global index (or through thread_g) */
	uint32_t *thread_g;         /* distributed, ranks but 0: thread_of holds their
	                               processes' threads only, dense index -> global */
	uint32_t thread_gcap;
	uint32_t *proc_order;       /* sorted position -> proc index */
	uint32_t nused_procs;
	uint64_t mtot[HC_M_COUNT];
	uint64_t nevents, event_weight;
	struct view view;
	struct regions *reg;        /* regions.c */
	struct an_pool pool;        /* pages.c: the region events' and matrices' pages, reused */
	uint32_t thread_cells;      /* the thread matrix's cells (sequential, after
	                               matrix__build; 0: not known): a region matrix's
	                               cells are among them (regions.c reserves as many) */
	struct symmod **symkeep;    /* sym__take's cache, per load module */
	uint32_t nsymkeep;
	const uint32_t *rsid;       /* global cct node -> region set (regions.c), NULL = none */
	struct an_warn *warns;
	uint32_t nwarns, warncap;
	struct views *views;        /* phases and locality (views.h), fed by the object pass */
	struct hc_db_views *phases_model;   /* phases.xml as read back, without cells: kept
	                                       for the summary when views is freed (write_all) */
	bool ctx_sent;              /* distributed, rank 0: the context went down (dist_objects.c) */
	uint32_t *ctx_rsid;         /* distributed, other ranks: rsid as rank 0 sent it */

	/* the distributed merge (dist.c); comm NULL when alone */
	const struct hc_analysis_comm *comm;
	uint64_t *first;            /* tree node -> first (profile << 32 | node) holding it */
	uint32_t firstcap;
	struct hmap owner;          /* while listing: processes in order of appearance */
};

void an__warn(struct an *an, const char *fmt, ...) HC_PRINTF(2, 3);

/* par.c: run fn(arg, id) on n threads; report progress of *done / total. */
int par__run(struct an *an, unsigned n, void (*fn)(void *arg, unsigned id), void *arg,
             const char *what, const uint32_t *done, size_t total);

/* merge.c */
void merge__acc_free(struct an_acc *a);
void merge__header(struct an_th *d, const struct hc_prof_thread *t);
uint32_t merge__global_node(const struct an *an, const struct an_prof *p, uint32_t node);
int merge__read_all(struct an *an);      /* pass 1: trees */
int merge__combine(struct an *an);       /* unit, global tree */
int merge__read_events(struct an *an);   /* pass 2: events */
/* An event's weight: a lock set's trap (HC_COMM_LOCK) scaled by its
   process's hand-offs against what the caps let weigh (§5.61). Pure. */
uint64_t merge__lock_weight(uint64_t w, uint64_t all, uint64_t weighed);
uint64_t merge__event_weight(const struct an_prof *p, const struct hc_prof_event *ev);
/* Event totals and the warning per profile with impossible peers, in file order. */
void merge__event_totals(struct an *an);
/* Module ids in path order (the tree's keys and start_lm rewritten). */
int merge__sort_modules(struct an *an);

/* dist.c: the distributed merge (analysis.h, doc/mpi.md). owner tells
   the listing whether a profile is this rank's (whole processes, round
   robin in order of first appearance; files whose name does not parse go
   to rank 0): ranks but 0 keep a record for their own profiles only;
   reduce sends this rank's partial result up the reduction tree and, on
   rank 0, receives and merges the others' and renumbers the tree as one
   process would have. After reduce, only rank 0 goes on (*done false). */
int dist__owner(struct an *an, unsigned input, uint32_t host_id, const struct an_name *nm,
                bool *mine);
int dist__reduce(struct an *an, bool *done, char *err, size_t errlen);
/* Rank 0 after reduce, once the region sets exist: its profiles' region
   events from by node to by set (dist__raw_sets). */
int dist__regions(struct an *an);
/* dist_objects.c: the second round. Rank 0, once symbolized and the phase
   windows set: the context down the tree (ctx_abort: an empty one, when it
   failed before); the other ranks receive it (*stop: rank 0 failed), pass it
   on and translate their state to rank 0's numbering. After every rank's
   object pass over its own profiles: objects, window and locality sums up
   the tree (*done: sent, this rank is finished; rank 0 ends with all). */
struct objects;
int dist__ctx_send(struct an *an);
int dist__ctx_abort(struct an *an);
int dist__ctx_recv(struct an *an, bool *stop, char *err, size_t errlen);
int dist__objects_reduce(struct an *an, struct objects *ob, bool *done, char *err,
                         size_t errlen);
/* Between the two: every rank's region events by set up the tree (rank 0
   then builds the region matrices, before its object pass). */
int dist__regions_reduce(struct an *an, char *err, size_t errlen);
int dist__raw_add(struct an_prof *p, uint32_t g, uint32_t gp, uint32_t peer, uint64_t t,
                  uint64_t f);
/* p's region events keyed by node (dist__raw_add) rewritten by region set
   (an->rsid), through tr (this rank's node -> rank 0's; NULL: the same). */
int dist__raw_sets(struct an *an, struct an_prof *p, const uint32_t *tr, uint32_t ntr);

/* threads.c: process/thread table and threads.csv */
int threads__assemble(struct an *an);
bool threads__find(const struct an *an, uint32_t proc, uint32_t idx, uint32_t *g);
int threads__write(struct an *an, const char *dir, char *err, size_t errlen);

/* symbolize + view.c */
int view__build(struct an *an);
/* objects.c: a module or source path of the system (libc, libstdc++ and its
   headers, libgomp) or of this runtime: code that is not the application's */
bool objects__system_path(const char *p);
void view__free(struct view *v);
/* Code pairs resolved to view ids and summed per unordered pair: c < p, or
   p = 0 when the peer's context is unknown; sorted by (c, p). A pair is
   lib/db's code-pair row (struct hc_db_wpair: c, p view ids; t, f true and
   false volume). */
int pairs__collect(struct an *an, struct hc_db_wpair **out, uint32_t *n);
/* Every worker's code pairs of the run's unit, in table order: fn(arg, the
   node, the peer's node or HC_NONE, true and false volume); stops at fn's
   first nonzero return and returns it. */
int pairs__each(const struct an *an, int (*fn)(void *arg, uint32_t g, uint32_t gp, const uint64_t v[2]),
                void *arg);
/* pairs__each with the worker w and the code pair's index i in that
   worker's table (agg__add_at's: the key of the region events, merge.c). */
int pairs__each_at(const struct an *an,
                   int (*fn)(void *arg, unsigned w, uint32_t i, uint32_t g, uint32_t gp,
                             const uint64_t v[2]),
                   void *arg);

/* experiment.c */
const char *experiment__program(const struct an *an);
/* The model experiment.xml is written from, as lib/db's reader would read
   it back: an hc_db_experiment_fill for hc_db_open_with (summary.c); arg is
   a struct experiment_model. */
struct experiment_model {
	const struct an *an;
	const struct hc_db_wpair *pairs;
	uint32_t npairs;
	const struct levels *lv;    /* for matrix__model */
};
int experiment__model(struct hc_db *db, void *arg);
/* experiment.xml through lib/db (hc_db_write_experiment). */
int experiment__write(struct an *an, const struct hc_db_wpair *pairs, uint32_t npairs,
                      const char *dir, char *err, size_t errlen);

/* matrix.c */
/* A published cell is lib/db's struct hc_db_mcell (i < j, true and false). */
/* Sparse: memory is proportional to n (row offsets) plus the non-zero cells,
   so a measurement of 100,000 threads does not need n² of anything. */
struct matrix {
	int level;
	uint32_t n;
	struct agg acc;             /* (min, max, 0) -> (true, false) while building */
	struct hc_db_mcell *cell;         /* then: the non-zero cells sorted by (i, j) */
	uint32_t ncell;
	uint32_t *row;              /* n + 1 offsets: row i is cell[row[i] .. row[i+1]) */
	uint64_t diag[2], unplaced[2];
	bool present;
};

struct label {
	uint32_t host;              /* index into an->hosts */
	int cpu, core, socket, numa;
};

struct levels {
	struct matrix m[HC_DB_LEVEL_COUNT];
	struct label *lab[HC_DB_LEVEL_COUNT];  /* core, socket, numa */
	uint32_t n_lab[HC_DB_LEVEL_COUNT];
};

int matrix__build(struct an *an, struct levels *lv);
/* Building one matrix (matrix__build does it; exposed for the unit tests):
   init, add raw cells (row = detecting side; i == j goes to diag), finish. */
int matrix__init(struct matrix *m, int level, uint32_t n);
int matrix__add(struct matrix *m, uint32_t i, uint32_t j, uint64_t t, uint64_t f);
int matrix__finish(struct matrix *m);
void matrix__free(struct levels *lv);
/* Through lib/db's writer (hc_db_write_matrix): dense CSV when m->n <=
   dense_max, sparse otherwise (doc/database-format.md §2). */
int matrix__write(const struct matrix *m, int kind, uint32_t dense_max, const char *dir, char *err,
                  size_t errlen);
static inline bool matrix__sparse(const struct matrix *m, uint32_t dense_max)
{
	return hc_db_matrix_sparse(m->n, dense_max);
}
/* Published value: raw(i,j) + raw(j,i) off the diagonal, 0 on it. */
uint64_t matrix__cell(const struct matrix *m, int kind, uint32_t i, uint32_t j);
/* Sum of the upper triangle. */
uint64_t matrix__total(const struct matrix *m, int kind);
/* The cells matrix__write writes, as lib/db's reader would read them back:
   an hc_db_experiment_fill for hc_db_open_opts.fill_matrices (summary.c);
   arg is a struct experiment_model. */
int matrix__model(struct hc_db *db, void *arg);

/* ranks.c: database.xml's <Ranks> (several MPI ranks only; *nrows 0
   otherwise): the rows and the rank matrix's cells, malloc'd. */
int ranks__build(struct an *an, const struct levels *lv, struct hc_db_wrank **rows,
                 uint32_t *nrows, struct hc_db_wrankpair **rpairs, uint32_t *nrpairs);

/* meta.c: database.xml */
int meta__write(struct an *an, const struct levels *lv, const char *dir, char *err, size_t errlen);

/* summary.c: once every data file is in dir, read it back (lib/db) and
   write summary.txt and objects.csv through lib/report; *text receives
   summary.txt's text (malloc'd). */
int summary__write(struct an *an, const struct levels *lv, const struct hc_db_wpair *pairs,
                   uint32_t npairs, const char *dir, char **text, char *err, size_t errlen);

#endif
