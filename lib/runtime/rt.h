/* SPDX-License-Identifier: BSD-3-Clause */
/* rt.h — internal state of the measurement runtime (libhpcrun-comm.so): the
   process-wide options and globals, and the one per-thread record with its
   named sections (safety flags, identity, sampler, watchpoints, detection,
   calling-context tree, events, counters). Both are reached through
   hc_self / hc_rt; nothing else is global. Fields read in signal context are
   written only by their own thread or before the thread starts sampling. */
#ifndef HC_RT_H
#define HC_RT_H

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <linux/perf_event.h>
#include "hc/common.h"
#include "hc/profile.h"
#include "decode/decode.h"
#include "runtime/hist.h"
#include "detect/detect.h"
#include "support/arena.h"
#include "support/log.h"
#include "runtime/alloc/alloc.h"
#include "pmu/perfbuf.h"
#include "probe/probe.h"
#include "runtime/loadmap.h"
#include "runtime/cost.h"

#define HC_MAX_FRAMES     128
#define HC_MAX_LIVE       8192      /* live threads tracked at once */
#define HC_WRITE_BUF      (64u << 10)
#define HC_CTX_CACHE      256       /* unwind cache entries, power of two */
#define HC_CTX_SCAN       64        /* stack words searched for the return address */
#define HC_FRAMES_CAP     1024      /* stack frames remembered per thread, power of two (cct.c) */
#define RT_HEELS_US       0         /* HPCRUN_COMM_HEELS_US: the heels test's window (detection.md
                                       §5.28), 0 = off until measured */

/* Everything the runtime counts; written to the profile's COUNTERS section and
   summed into the process log. X-macro so names and fields never drift. */
#define HC_COUNTERS(X) \
	X(samples) X(samples_blocked) X(samples_in_runtime) X(samples_with_access_at_pc) X(samples_recovered_prev) X(samples_recovered_reload) \
	X(samples_undecodable) X(samples_no_access) X(handler_ns) X(prev_walks) X(samples_stack_only) X(samples_rmw_store) \
	X(published) X(published_loads) X(published_trap) X(publish_lost_race) X(publish_refused) X(detections_sample) \
	X(watch_armed) X(watch_arm_failed) X(watch_gated) X(traps) X(traps_matched) X(traps_unmatched) X(traps_load_load) \
	X(traps_blocked) X(events_dropped) X(events_folded) X(cct_nodes_dropped) X(unwind_failed) X(unwind_faults) X(unwind_cached) \
	X(stack_frames) X(stack_frames_dropped) X(unwind_fork_gated) \
	X(signals_chained) X(allocs_tracked) X(allocs_dropped) X(allocs_below_min) \
	X(frees_tracked) X(alloc_ctx_unwinds) X(alloc_ctx_checks) X(alloc_ctx_mismatches) \
	X(objects_resolved) X(objects_dropped) \
	X(pmu_records) X(pmu_lost) X(pmu_throttled) X(pmu_truncated) X(pmu_kernel) \
	X(pmu_no_addr) X(pmu_not_memory) X(pmu_bad_raw) X(pmu_foreign) X(pmu_batched) \
	X(pmu_stop_drained) X(pmu_in_runtime) X(pmu_unmapped) X(pmu_ctx_leaf_only) \
	X(pmu_period_sum) X(pmu_period_records) X(pmu_time_enabled) X(pmu_time_running) \
	X(pmu_threads_not_running) X(pmu_ibs_unrandomized) X(pmu_ibs_mispredicted) \
	X(step_bursts) X(step_seeds) X(step_after_trap) X(steps) X(step_stores) X(step_stop_limit) X(step_stop_unsafe) \
	X(step_stop_refused) X(step_no_budget) X(step_ns) \
	X(step_loads) X(ret_bp_armed) X(ret_bp_hits) X(watch_expired) X(ret_bp_expired) X(true_by_mask) X(false_update) X(updates_sampled) X(updates_trapped) X(updates_learned) X(moving_accesses) X(moving_within) X(fixed_accesses) X(start_sets) X(start_traps) X(join_sets) X(join_traps) X(join_sets_none) \
	X(watch_armed_w) X(watch_dry) X(watch_probes) X(published_trap_loads) X(watch_threads_gated) X(start_sets_ungated) X(start_sets_late) \
	X(samples_coarse) X(samples_thinned) X(samples_heavy) X(watch_armed_idle) X(spin_weighted) X(traps_lag_divided) X(unwind_loader_gated) \
	X(watch_armed_sync) X(sync_comms) \
	X(join_sets_object) X(step_scan_bursts) X(step_scanned) X(step_scan_unresolved) \
	X(ret_bp_system) X(step_barren) X(ret_burst_calls) \
	X(start_sets_block) X(start_sets_block_pset) X(published_trap_echo) \
	X(false_refetch) X(start_traps_pset) X(samples_recovered_deep) X(false_heels) \
	X(start_chain_waits) X(samples_in_block) X(watch_armed_reuse) X(reuse_comms) \
	X(step_loads_again) X(start_sets_block_written) X(traps_recovered_reload) X(ret_bp_loop) \
	X(lock_handoffs) X(lock_sets) X(lock_sets_kept) X(lock_busy) X(lock_no_ctx) X(lock_ctx_captures) X(lock_ctx_store) \
	X(lock_traps) X(lock_traps_system) X(lock_traps_late) X(lock_gated) \
	X(sync_sys_samples) X(sync_sys_bursts) X(sync_sys_traps) X(sync_sys_pset_traps) X(sync_objects) X(sync_full) \
	X(sys_data_samples) X(sys_data_bursts) X(sys_data_traps) X(rep_end_published) X(stack_shared_noted) \
	X(stack_shared_samples) \
	X(lock_snaps) X(lock_pset_asked) X(lock_pset_arms) X(lock_pset_refused) X(lock_pset_unchanged) \
	X(lock_pset_true) X(lock_pset_false) X(lock_pset_none) X(lock_pset_system) X(lock_words_dropped) \
	X(lock_after_writes) X(lock_after_peer) X(lock_after_own) X(lock_after_noctx) \
	X(lock_scale_handoffs) X(lock_scale_weighed) X(lock_acq_pending) X(lock_acq_arms) X(lock_acq_refused) \
	X(lock_keep_filled) X(lock_keep_rearms) X(lock_keep_ends) \
	X(lock_draw_tokens) X(lock_draw_taken) X(lock_draw_lines) X(lock_untried) X(lock_lines_other) \
	X(lock_verdict_true) X(lock_verdict_false) X(lock_verdict_none) X(lock_verdict_unknown) X(lock_verdict_nested) \
	X(handoff_noted) X(handoff_writers) X(handoff_shared) X(watch_armed_handoff) X(handoff_comms) X(handoff_gated) \
	X(handoff_capped) X(handoff_ungated) X(handoff_region_noted) X(handoff_region_sets) X(handoff_region_other_block) X(handoff_store_sets) \
	X(traps_footprint) X(held_sets) X(held_true) X(held_false) X(held_enable_failed) \
	X(reader_asked) X(reader_edge) X(reader_busy) X(reader_dry) X(reader_lock_block) X(reader_budget) X(reader_armed) X(reader_adopts) \
	X(reader_comms) X(reader_writers) X(reader_loops) X(reader_loop_none) X(feed_asked) X(feed_none) X(feed_busy) X(feed_dry) X(feed_budget) X(feed_armed) X(feed_comms) X(feed_sampled) X(feed_stood) X(reader_chased) \
	X(reader_callee) X(reader_callee_none) X(io_noted) X(io_small) X(io_no_ctx) X(io_not_heap) X(io_lost) X(io_sets) X(io_ctx_cached) X(io_copy_samples) \
	X(crit_enters) X(crit_handoffs) X(crit_records) X(crit_recs_full) X(crit_sets) X(crit_gated) X(crit_busy) X(crit_deep) X(crit_burst_records) \
	X(lock_acq_switched)

struct rt_counters {
#define HC_X(n) uint64_t n;
	HC_COUNTERS(HC_X)
#undef HC_X
};

/* Per-thread calling-context tree: nodes in arena memory, hashed by
   (parent, ip, leaf) with chaining; ids grow in insertion order, so a
   parent's id is always smaller than its children's (the profile's rule). */
struct rt_cct_node {
	uint64_t ip;
	uint32_t parent;
	uint32_t flags;      /* HC_NODE_LEAF */
	uint32_t next;       /* hash chain, HC_NONE = end */
	uint32_t site;       /* allocation site of this context, 0 = none yet (alloc/context.c) */
	uint64_t m[HC_M_COUNT];
};
struct rt_cct {
	struct rt_cct_node *nodes;
	uint32_t n, cap;
	uint32_t *buckets;
	uint32_t mask;       /* nbuckets - 1 */
	struct {             /* unwind cache (cct.c) */
		uint64_t pc, sp;     /* interrupted PC and stack pointer */
		uint64_t ret;        /* the leaf frame's return address ... */
		uint32_t slot;       /* ... found at sp + 8*slot */
		uint32_t parent;     /* CCT node of the callers' path */
	} ctxc[HC_CTX_CACHE];
	/* Stack frames seen by the unwinds (cct.c, doc/objects.md "Stack
	   locals"): open addressing on (cfa, caller node); cfa 0 = empty.
	   Written by the thread only; a snapshot reads entries whose node it
	   copied. */
	struct hc_prof_frame *frames;   /* HC_FRAMES_CAP entries, NULL = none */
	uint32_t nframes;
};

/* File descriptors: what fds.c had to do (process-wide, logged at exit). */
struct rt_fd_stats {
	uint64_t close_refused;         /* the program closed one of ours: left open */
	uint64_t lost;                  /* closed behind libc's back: stopped using it */
	uint64_t moved;                 /* moved out of the way of the program's dup2 */
	uint64_t threads_watch_reduced; /* fewer watchpoints than the process default */
	uint64_t threads_watch_none;    /* no watchpoints (fd budget or open failure) */
	uint64_t threads_no_sampler;    /* no sampler: profile written, nothing sampled */
};

/* The words of a mutex's neighbourhood at one moment (lock.c); an open
   thread keeps up to RT_LOCK_WAYS of them (HPCRUN_COMM_LOCK_WAYS). */
#define RT_LOCK_WAYS 4u
#define RT_CRIT_DEPTH 4u         /* critical sections a thread holds at once that crit.c follows */
struct rt_lock_snap {
	uint32_t slot;                        /* the mutex slot + 1, 0 = none */
	uint32_t age;                         /* the thread's snapshot count then (older replaced first) */
	uint64_t lo, cand;                    /* its neighbourhood then */
	uint64_t w[64];
};

struct rt_thread {
	/* --- safety: read first by every handler (safety.h) --- */
	struct {
		volatile int busy;       /* re-entrancy guard */
		volatile int in_handler; /* a handler is running (for exit-time flush) */
		volatile int on_stack;   /* a handler runs on our altstack (signal.c): a nested
		                            one must not switch to its top */
		int flushed;             /* profile written (claimed with CAS) */
		/* Our own stack walk (cct.c): a synchronous fault while
		   `walking` is set returns to walk_env (signal.c's on_fatal)
		   and the sample is dropped. */
		volatile int walking;
		sigjmp_buf walk_env;
		/* Inside the loader (dlopen, dlclose, our dl_iterate_phdr walk):
		   a handler must not unwind, libunwind would take the loader's
		   lock that this thread may be halfway through taking (cct.c). */
		volatile int in_loader;
	} safety;

	/* --- periodic flush (flush.c): written under its lock --- */
	struct {
		int final;                    /* the thread is writing its last profile */
		int written;                  /* a snapshot file exists (rename may replace it) */
		int busy;                     /* a snapshot of this thread is being written */
		uint64_t key;                 /* activity at the last snapshot */
		uint64_t next_ns;             /* self-flush: not before (0 = not set) */
	} snap;

	/* --- identity --- */
	struct {
		uint32_t index, creator, pid, tid;
		uint32_t creation_ctx;
		uint64_t start_ns, end_ns;
		uint64_t start_fn;            /* start routine address, 0 for main */
		uint64_t stack_lo, stack_hi, tls_lo, tls_hi;
		int slot;                     /* index in the live-thread registry */
	} id;

	/* --- memory --- */
	struct hc_arena arena;
	void *altstack;
	size_t altstack_size;
	uint8_t *wbuf;                        /* profile writer staging buffer */

	/* --- sampler: what every back end shares; each back end's own
	   per-thread state (soft.h, pmu.h) is behind `own` --- */
	struct {
		int fd;                       /* perf fd of the address sampler, -1 */
		bool inherited;               /* soft: event inherited at clone, no fd */
		uint64_t cookie;
		/* soft: the multiplier of the period of the thread's latest
		   sample (sampler/rate.h: 1 fine, > 1 coarse; 0 = none yet);
		   its communications weigh that many periods */
		uint32_t mult;
		bool share_low;               /* its CPU share since its previous sample was below HPCRUN_COMM_ARM_SHARE (soft.c) */
		/* the running sampler's own state: its table's thread_size
		   bytes from the thread's arena, zero at thread start
		   (thread.c); NULL when thread_size is 0 */
		void *own;
		/* the handler's recent runs on this thread, CLOCK_MONOTONIC ns
		   (signal.c): records taken then are the runtime's own */
		uint64_t busy_lo[HC_PMU_BUSY], busy_hi[HC_PMU_BUSY];
		unsigned busy_n;              /* runs recorded (ring index = n % HC_PMU_BUSY) */
		uint64_t busy_cur;            /* start of the run in progress, 0 = none */
	} sampler;

	/* --- watchpoints (watch.c) --- */
	struct {
		int n;                        /* opened debug-register events */
		int want;                     /* fds reserved for them (opened at first arm) */
		bool opened;                  /* the open was attempted (watch.c) */
		int fd[HC_MAX_WATCH];
		bool enabled[HC_MAX_WATCH];
		struct perf_event_attr attr[HC_MAX_WATCH];
		uint64_t dummy;               /* initial, harmless target */
		uint64_t trap_addr;           /* the trap being handled: the address the kernel
		                                 says fired (si_addr: the breakpoint's bp_addr at
		                                 the trap), 0 if unknown (signal.c) */
		uint32_t pset_edge;           /* the edge set being armed: its edge memory slot + 1 << 1 | its
		                                 side (0: none; watch.c pset_edge, §5.64) */
		bool pset_feed;               /* the process-wide set being armed is a feed set (§5.68) */
		uint32_t pset_feed_stands;    /* ... the samples its trap stands for (§5.70) */
		bool pset_handoff;            /* the process-wide set being armed is this thread's
		                                 hand-off set (HPCRUN_COMM_HANDOFF_PSET, §5.60) */
		bool line_seen;               /* the access being recorded: its line is one this
		                                 thread sampled before, or a burst's (soft.c) */
		bool line_heap;               /* ... and it is not the thread's own stack, TLS or
		                                 read-only data, even when it is a load counted
		                                 private for being unseen (soft.c) */
		/* a held verdict (HPCRUN_COMM_HOLD_READER, detection.md §5.31): a
		   write-only set's store off the reader's bytes, recorded when
		   this thread stores the reader's bytes (true) or at its next
		   sample (false), the reader's chunk watched meanwhile */
		bool held;
		int held_reg;                 /* the register left on, -1 none */
		struct hc_comm held_comm;
		/* the thread's latest poll-loop load (§5.58, HPCRUN_COMM_POLL_READER):
		   its 16 KiB region (addr >> 14, 0: none) and context */
		uint64_t poll_region;
		uint32_t poll_ctx;
	} watch;

	/* --- detection, contexts, results --- */
	struct hc_detect_thread det;
	struct hc_prev_cache *prev;
	struct rt_cct cct;
	struct {
		struct hc_prof_event *v;
		uint32_t n, cap;
	} events;
	struct rt_alloc_thread alloc;         /* heap allocation tracking (alloc/) */
	struct rt_numa_thread *numa;          /* page nodes of the events (numa.c), NULL = none */

	/* --- accounting --- */
	struct rt_counters cnt;
	uint32_t hist[HC_HIST_BUCKETS + 1];   /* handler cost; last = overflow */
	struct rt_cost_hist cost[RT_MECH_N];  /* per mechanism (cost.h) */
	/* HPCRUN_COMM_COST_SPLIT (rt_split): the sample handler's steps */
	struct rt_cost_hist split[RT_SPLIT_N];
	uint64_t split_last;
	int split_on;
	struct rt_switch_gate swgate;         /* may this thread open watchpoints (cost.h) */

	/* --- lock sets (lock.c, detection.md §5.35) --- */
	struct {
		uint32_t next_n;              /* no new lock set before this many samples */
		uint32_t slot;                /* the armed lock set's mutex slot */
		uint64_t lo;                  /* and its neighbourhood's first word */
		uint64_t pending;             /* hand-offs to it since its last lock set took one */
		bool open;                    /* it still holds that mutex */
		/* lock sets on the process-wide set (HPCRUN_COMM_LOCK_PSET, §5.38):
		   the neighbourhood's values at an acquisition, compared at the
		   release of the same mutex */
		uint32_t pnext;               /* no snapshot before this many samples */
		struct rt_lock_snap snap;     /* a gated thread's, at an acquisition */
		/* an open thread's, at its releases (§5.38's verdicts): one per
		   mutex, the oldest replaced, so that a thread going round its
		   mutexes (a queue's and a total's; pigz's pools) finds its last
		   release of each (§5.44) */
		struct rt_lock_snap rsnap[RT_LOCK_WAYS];
		uint32_t pcur;                /* the word choice's round robin */
		uint64_t pline;               /* the line the last set took (HPCRUN_COMM_LOCK_LINES, §5.71) */
		uint32_t pexplore;            /* word choices since the last one among untried words (§5.71) */
		bool vvalid;                  /* its armed lock set's verdict from vchanged */
		uint64_t vchanged;            /* words changed since its last release of that mutex */
		uint8_t vbytes[64];           /* and their changed bytes */
		uint8_t parm_bytes;
		uint32_t parm_k;              /* the lines its set stands for (HPCRUN_COMM_LOCK_DRAW, §5.65) */
		uint32_t kdraw;               /* and the armed per-thread lock set's */
		int verdict;                  /* the last trap's (lock__trap): 1 true, 0 false */
		bool parm;                    /* arm after the real unlock: */
		uint32_t parm_slot;
		uint64_t parm_addr, parm_lo, parm_changed;
		struct hc_bb_entry parm_e;
	} lock;
	/* io.c (§5.75): the context of the last noted fill, by its call site
	   (return address) and the wrapper's frame (the stack depth) */
	struct {
		uint64_t ra, fa;
		uint32_t ctx;
	} io;
	/* crit.c (§5.76): the critical sections the thread holds, innermost
	   last (key 0: not followed); the sample handler reads them */
	struct {
		uint32_t depth;
		uint64_t key[RT_CRIT_DEPTH];
		bool burst_rec;       /* a timer sample inside one recorded no store: its burst's
		                         store stands for it (soft.c, crit.c) */
	} crit;

	/* --- reader sets (watch.c, detection.md §5.57) --- */
	struct {
		uint64_t pc, addr;            /* the store its last reader set watched */
	} reader;
};

/* Options, from the environment set by the launcher (parsed once, at load). */
/* Event records a thread keeps (the rest are counted in events_dropped);
   each has up to two object records (alloc/objects.c). */
#define RT_EVENTS_MAX (1u << 20)

struct rt_options {
	uint64_t period;            /* COMM@P */
	int      sampler;           /* enum hc_sampler, or HC_SAMPLER_NONE = auto */
	uint32_t bb_slots;
	int      nwatch;            /* -1 = all available */
	char     dir[PATH_MAX];     /* measurement directory (absolute) */
	unsigned gen;               /* exec generation */
	uint32_t ppid;              /* measured parent, 0 if none */
	uint64_t min_alloc;         /* smallest tracked allocation */
	bool     no_prev;           /* soft sampler: no previous-instruction recovery */
	bool     per_thread;        /* soft sampler: one event opened per thread, not inherited */
	bool     publish_loads;     /* soft sampler: loads of non-private memory publish too */
	bool     spin_weight;       /* soft sampler: spin waits weigh 1/run (detection.md §5.14) */
	bool     sync_targets;      /* soft sampler: synchronizing stores are watch targets (§5.17) */
	uint32_t reuse_life;        /* soft sampler: reuse sets' life in samples, 0 = off (§5.30) */
	bool io_stores;             /* soft sampler: kernel fills noted as stores (io.c, §5.75) */
	bool crit_sets;             /* soft sampler: critical-section sets (crit.c, §5.76) */
	bool crit_fill;             /* ... their spare registers on the records' lines */
	bool crit_burst;            /* ... a sample's burst's store when the sample recorded none */
	uint32_t lock_sets;         /* soft sampler: a lock set at most once in this many samples, 0 = off (§5.35) */
	uint64_t lock_ns;           /* what one hand-off's transfer weighs, ns (§5.35) */
	uint64_t lock_cap;          /* a lock set's trap stands for at most this many hand-offs (§5.35) */
	uint32_t lock_rescale;      /* lock traps flagged HC_COMM_LOCK: the analyzer scales them to the hand-offs (§5.61) */
	uint32_t lock_pset_acq;     /* a process-wide lock set armed at the hand-off's acquisition, not the release (§5.61):
	                               1 always, 2 per mutex once its release-armed sets are seldom judged (§5.67) */
	uint32_t lock_keep;         /* a lock set's spare registers on changed lines, kept armed on them after a trap (§5.62) */
	uint32_t lock_lines;        /* process-wide lock sets: the changed lines in turn, a good word of the line first; 2: weighing k lines (§5.71) */
	uint32_t lock_untried;      /* process-wide lock sets: one word choice in N among the changed lines' untried words (§5.71) */
	uint32_t lock_draw;         /* process-wide lock sets: the next critical section when due, a changed line drawn, k times its weight (§5.65) */
	bool sync_sys;              /* system code on a synchronisation object's bytes is dropped (§5.37) */
	bool sync_ret;              /* such a sample always asks for a return breakpoint (§5.37) */
	bool sys_data;              /* system code on a system library's own data is dropped (§5.37) */
	bool rep_end;               /* a sample in a forward rep movs/stos publishes the copy's last line (§5.37) */
	bool stack_shared;          /* main's stack lines other threads use are not private to it (§5.45) */
	uint32_t lock_pset;         /* gated threads' lock sets on the process-wide set, armed at the release (§5.38) */
	uint32_t lock_pset_budget;  /* their budget, permille of the process's CPU time (§5.38) */
	uint32_t lock_verdict;      /* an open thread's lock set judged by what changed since its release (§5.38) */
	uint64_t lock_pset_cap;     /* a process-wide lock set's trap stands for at most this many hand-offs (§5.38) */
	uint32_t lock_verdict_wait; /* an open thread's lock set waits for a known verdict (§5.38) */
	uint32_t lock_ways;         /* release snapshots an open thread keeps, 1..RT_LOCK_WAYS (§5.44) */
	uint32_t lock_verdict_early; /* release snapshots from this many samples before a lock set is due */
	uint32_t lock_bytes;        /* the verdict to the byte (§5.38) */
	uint32_t lock_pset_after;   /* a process-wide lock set's trap given to a later releaser that wrote its line (§5.53) */
	uint32_t reader_sets;       /* a sampled heap store watched on the process-wide set for its reader (§5.57) */
	uint32_t reader_budget;     /* ... their own budget, permille of the process's CPU time */
	uint32_t reader_loop;       /* ... from a loop's exit: instructions to its back-edge at most, 0 = off */
	uint32_t feed_sets;         /* a register-only loop's feeding load: the process-wide set watches its
	                               line for another thread's next store (HPCRUN_COMM_FEED_SETS, §5.68) */
	uint32_t feed_budget;       /* ... their own budget, permille of the process's CPU time */
	bool feed_sampled;          /* ... also from a sampled load, the only access of its loop (-O0's
	                               reloaded input; HPCRUN_COMM_FEED_SAMPLED) */
	uint32_t feed_life;         /* ... a feed set's life, sampling periods of wall time (§5.70) */
	bool feed_live;             /* ... also the one load of a loop whose address registers still hold its
	                               address at the sample, from stack-only samples too (HPCRUN_COMM_FEED_LIVE) */
	uint32_t feed_stands;       /* ... its trap weighs the samples since the thread's last feed set, at
	                               most this many (0, 1: one, the sample that armed it; §5.70) */
	uint32_t reader_chase;      /* ... on to the next element at the publisher's own store */
	uint32_t reader_scale;      /* ... weighed as the lock traps' caps weigh their hand-offs */
	uint32_t reader_samples;    /* ... from sampled stores too, not only a loop's exit */
	uint32_t reader_callee;     /* ... from a leaf callee of the start routine: the store after its return (§5.67) */
	uint32_t lock_store;        /* a releaser's context ends at its store, up to this many instructions before its unlock (§5.49) */
	uint32_t lock_store_word;   /* ... at the store that names the watched word's address, if one does */
	uint32_t lock_words;        /* drop system code's traps on the program's mutex words (§5.38) */
	uint64_t lock_before;       /* a non-heap mutex's neighbourhood starts this many bytes before it (§5.38) */
	uint32_t handoff_life;      /* soft sampler: hand-off sets' life in samples, 0 = off (§5.36) */
	bool     handoff_ungated;   /* ... and they open a gated thread's registers (§5.36) */
	uint32_t handoff_ungated_crowded; /* ... in a crowded process at most this many threads (performance.md "Session 23") */
	uint32_t handoff_pset;      /* ... a gated thread's goes to the process-wide set instead of opening
	                               its registers: 0 off, 1 on (detection.md §5.60) */
	uint32_t handoff_pset_budget; /* ... within this permille of the process's CPU time (§5.60) */
	uint32_t handoff_region;    /* ... small blocks' 1 MiB regions have writer records: 1 loads and
	                               stores arm sets there, 2 stores only, 0 off (§5.41) */
	bool     handoff_stores;    /* ... a store sample arms one too (§5.41) */
	uint64_t handoff_region_age; /* ... a region's record arms only this long, ns (§5.41) */
	uint64_t handoff_region_settle; /* ... and only once this old, ns (§5.42) */
	bool     handoff_region_ungated; /* ... a region's set opens a gated thread's registers (§5.42) */
	bool     handoff_region_block; /* ... a record in another tracked block arms nothing (§5.50) */
	uint64_t handoff_window; /* a block's hand-off set draws lines near the sample, bytes (§5.51) */
	uint32_t events_cap;        /* event records kept per thread, <= RT_EVENTS_MAX (HPCRUN_COMM_EVENTS) */
	uint32_t echo_depth;        /* trapped stores publish up to this echo depth, 0 = any (§5.19) */
	bool     refetch_false;     /* soft sampler: a re-fetch is false sharing (§5.24) */
	uint64_t heels_ns;          /* soft sampler: a store at a reader's heels is false sharing (§5.28) */
	bool     trap_footprint;    /* soft sampler: a trap weighs by the trapping thread's chunks of the line (§5.31) */
	bool     update_bytes;      /* soft sampler: two updates judged by their bytes alone (§5.54) */
	bool     update_recompute;  /* ... and -O0's recomputed addresses evaluated to find them (§5.56) */
	bool     update_sampled;    /* ... for a sampled load too: it counts as its store (§5.56) */
	bool     update_learn;      /* a store a trap's walk reached is an update's store later (§5.54) */
	uint32_t fixed_bytes;       /* soft sampler: an access its instruction made at the same address this many
	                               times more counts as its bytes only (HPCRUN_COMM_FIXED_BYTES, 0 = off; §5.47) */
	uint32_t move_span;         /* soft sampler: a moving access counts as the bytes of its span, not the
	                               whole line; 2: the span clipped to the access's heap block
	                               (HPCRUN_COMM_MOVE_SPAN, detection.md §5.47) */
	bool     hold_reader;       /* soft sampler: a write-only set's store off the reader's bytes waits for
	                               the writer's store of them (§5.31) */
	bool     poll_reader;       /* soft sampler: a trapped load off a polled flag, by a thread that polls
	                               that flag's region, is its poll's (HPCRUN_COMM_POLL_READER, §5.58) */
	uint32_t poll_budget;       /* soft sampler: the process-wide set's sets on a polled flag's line may go
	                               on over its budget within this one of their own, permille of the
	                               process's CPU time, 0 = none (HPCRUN_COMM_POLL_BUDGET, §5.58) */
	bool     poll_flag;         /* soft sampler: a gated thread's store next to a polled flag arms the
	                               process-wide set on the flag, the entry moved to the
	                               thread's own store of it (HPCRUN_COMM_POLL_FLAG, §5.58) */
	uint32_t pipe;              /* soft sampler: pipeline sets on predicted hand-offs (pipe.h, §5.18):
	                               1 from a writer's store, 2 from a reader's wait, 3 both, 0 off */
	bool     pipe_over_zone;    /* ... and a zone set gives way to one (HPCRUN_COMM_PIPE_OVER_ZONE) */
	uint32_t steps;             /* soft sampler: most steps of a burst after a sample, 0 = none */
	uint32_t step_budget256;    /* soft sampler: steps allowed per sample on average, x 256 */
	uint32_t step_seed;         /* soft sampler: a burst without evidence every n-th candidate */
	uint32_t switch_ns;         /* soft sampler: watchpoint gate's cost per context switch, 0 = off */
	uint32_t switch_other_ns;   /* the same when the process is not crowded (cost.h) */
	uint32_t crowd_mult;        /* soft: period multiplier of a crowded process (sampler/rate.h) */
	uint32_t crowd_heavy;       /* soft: the coarse period's multiplier when heavily crowded (rate.h) */
	uint32_t crowd_heavy_from;  /* soft: heavily crowded above this x CPUs + 1 live threads (rate.h) */
	uint32_t switchy;           /* soft: the heavy period's multiplier while the process switches often (rate.h, level 3) */
	uint32_t switchy_rate;      /* soft: context switches per CPU second that make it so; 0 = off (rate.h) */
	uint32_t switchy_user_rate; /* soft: ... or per second of user CPU time; 0 = off (rate.h, HPCRUN_COMM_SWITCHY_USER_RATE) */
	uint32_t switchy_warmup;    /* soft: ... looked at in the warm-up too from this many samples on, ending it; 0 = never (rate.h, HPCRUN_COMM_SWITCHY_WARMUP) */
	bool tick;                  /* soft: level 3 samples with per-thread tick timers (rate.h, HPCRUN_COMM_TICK) */
	bool tick_pset_close;       /* ... and closes the process-wide set there (HPCRUN_COMM_TICK_PSET=0) */
	bool tick_close;            /* ... and closes the task-clock events there, staying at level 3 (HPCRUN_COMM_TICK_CLOSE) */
	bool tick_empty;            /* ... or empties the threads' perf contexts there: tick_close, and the process-wide set opened per arm (HPCRUN_COMM_TICK_EMPTY) */
	bool cost_split;            /* HPCRUN_COMM_COST_SPLIT: the sample handler's wall time by step (rt_split; performance.md Session 26) */
	bool cost_cpu;              /* HPCRUN_COMM_COST_CPU: the soft sampler's arm/trap/burst costs in thread CPU time (a system call each) instead of wall time */
	uint32_t pset_cpu_periods;  /* HPCRUN_COMM_PROCSET_CPU_PERIODS: the budgets' process CPU time read at most once in this many periods (0: every time; watch.c) */
	bool pset_precheck;         /* HPCRUN_COMM_PROCSET_PRECHECK: no zone pick for a set the budget refuses anyway (watch.c) */
	uint32_t arm_share;         /* soft: per-thread sets only when the thread's CPU share since its previous sample is >= this % (0 = always; watch.c) */
	uint32_t quiet_window;      /* soft: samples without a sign of sharing before the coarse rate (rate.h); 0 = off */
	bool ret_bp;                /* soft sampler: return bursts (HPCRUN_COMM_RET_BP, default 1) */
	bool ret_bp_system;         /* soft sampler: return bursts into system libraries' code too
	                               (HPCRUN_COMM_RET_BP_SYSTEM, default 0; loadmap__system_code) */
	uint32_t ret_call;          /* soft sampler: calls a return burst may step into (HPCRUN_COMM_RET_CALL,
	                               detection.md §5.20) */
	uint32_t reload_chain;      /* soft sampler: instructions between an -O0 pointer reload and the load
	                               it feeds (HPCRUN_COMM_RELOAD_CHAIN; decode.h, detection.md §5.29) */
	uint32_t prev_depth;        /* soft sampler: a register-only sample walks back up to N instructions
	                               for the access it skidded past (HPCRUN_COMM_PREV_DEPTH, default 8, 0 = off) */
	bool burst_first;           /* soft sampler: a burst publishes one load a line, the first
	                               (HPCRUN_COMM_BURST_FIRST; detection.md §5.29) */
	bool step_scan;             /* soft sampler: bursts resolved by a forward scan where it sees their end
	                               (HPCRUN_COMM_STEP_SCAN, default 1; detect/scan.h) */
	bool burst_barren;          /* soft sampler: no seed or return burst from where one found nothing
	                               (HPCRUN_COMM_BURST_BARREN, default 1; sampler/barren.h) */
	int procset;                /* soft sampler: registers of the process-wide watch set
	                               (HPCRUN_COMM_PROCSET, 0 = none; watch.c, pset.h) */
	int procset_target;         /* ... armed on a refused thread's chosen entry, its own
	                               sampled access, or both (RT_PSET_TARGET_*, pset.h) */
	uint32_t procset_budget;    /* its arms' share of the process's CPU time, per mille */
	bool procset_switch_vol;    /* its armed time charged at voluntary switches only
	                               (HPCRUN_COMM_PROCSET_SWITCH_VOL; pset.h rt_pset_switches_charged) */
	bool procset_zone_unseen;   /* zone notes include loads of lines not seen before */
	bool procset_zone_narrow;   /* zones picked in inverse proportion to their lines (zone.h) */
	uint32_t procset_zone_cap;  /* N > 0: a pair's zones picked alike, none thinned, a zone set standing
	                               for at most N lines (HPCRUN_COMM_PROCSET_ZONE_CAP, §5.64) */
	uint32_t procset_zone_overlap_cap; /* N > 0: an overlap's zone set stands for at most N lines
	                               (HPCRUN_COMM_PROCSET_ZONE_OVERLAP_CAP, zone.h, §5.73) */
	bool procset_zone_writer;   /* only zones where either thread's samples stored (zone.h) */
	uint32_t procset_switch_ns;   /* the process-wide set's charge per switch while armed (pset.h) */
	uint32_t procset_switch_crowded_ns; /* the same while the process is crowded (pset.h) */
	uint32_t procset_zone_spread; /* pairs zone sets found are watched less (zone.h): 0 no, 1 / (1 + finds), 2 squared */
	bool procset_start;         /* a start set takes one more line on the idle process-wide set */
	bool procset_ret;           /* a gated thread's return breakpoint on the process-wide set */
	bool procset_zone_open;     /* threads the switch gate lets through arm zone sets too (idle set) */
	uint32_t procset_zone_edge;   /* cross-edge zones kept to this many lines either side of the edge (0: whole; §5.43) */
	bool procset_zone_edge_one;   /* ... a set on one standing for one line (§5.43) */
	bool procset_zone_open_lines; /* ... standing for the zone's lines (else for one: §5.31) */
	bool procset_zone_traps;    /* the process-wide set's traps note their exact accesses in the zone table */
	bool start_late;            /* a start set at the first sample on the publishers not watched yet */
	bool start_share;           /* a start set leaves the publisher of the process-wide set's start line to it */
	bool start_exempt;          /* a start set's extra line does not wait for the process-wide set's budget */
	uint32_t start_recent;      /* a thread's first start set on the threads that ended last
	                               (0 all, 1 a window, 2 the last generation: startset.h) */
	uint32_t start_block;       /* a creator's block set for a thread no start set serves (2: also
	                               from the creator's last big blocks allocated) */
	uint32_t loop_exit;         /* a return burst's breakpoint at the exit of the loop a start
	                               routine's sample is in, found within N instructions
	                               (HPCRUN_COMM_LOOP_EXIT, 0 = off; decode.h hc_decode_loop_exit) */
	bool trap_reload;           /* a trap's -O0 load through a pointer it overwrote: the address from
	                               the pointer's stack slot (HPCRUN_COMM_TRAP_RELOAD; watch.c) */
	bool start_block_written;   /* ... or, none of the creator's stores on the board, from a big
	                               block it had written when it created its first thread since
	                               (HPCRUN_COMM_START_BLOCK_WRITTEN; pset.h rt_pset_written) */
	bool start_block_open;      /* a creator's block set may open a thread's own registers (0: the
	                               process-wide set's line only; HPCRUN_COMM_START_BLOCK_OPEN) */
	uint32_t start_chain;       /* re-arms of a creator's hand-off chain on the process-wide set
	                               (HPCRUN_COMM_START_CHAIN, 0 = none; pset.h) */
	bool start_chain_spread;    /* ... its next line far from where it trapped (rt_pset_chain_pick) */
	bool join_object;           /* join sets after a join trap keep to the object it read */
	uint64_t join_line_ns;      /* a join set's trap weighs this per line, ns; 0 = a period (§5.72) */
	uint32_t trap_lag;          /* a regular trap's entry older than N periods: weight / (lag / N periods) (§5.73) */
	uint32_t procset_zone;      /* ... a refused sample arms a zone, when there is one, with
	                               probability procset_zone / 4 (HPCRUN_COMM_PROCSET_ZONE, zone.h) */
	uint32_t procset_edge;      /* ... a refused sample in a block its thread allocated arms an edge
	                               word of the block with probability procset_edge / 4
	                               (HPCRUN_COMM_PROCSET_EDGE, pset.h rt_pset_edge_word, §5.55) */
	uint32_t procset_edge_words;/* ... words from each end (HPCRUN_COMM_PROCSET_EDGE_WORDS) */
	uint32_t procset_edge_skip; /* ... outermost words passed over (HPCRUN_COMM_PROCSET_EDGE_SKIP) */
	bool procset_edge_first;    /* ... asked before the zones (HPCRUN_COMM_PROCSET_EDGE_FIRST) */
	bool procset_edge_memory;   /* ... each block's sides remembered, dry sides passed over, the side
	                               with fewer communications first (HPCRUN_COMM_PROCSET_EDGE_MEMORY,
	                               pset.h rt_pset_edge_side, §5.64) */
	uint32_t procset_edge_budget;/* ... edge sets over the set's budget while they communicate, within
	                               this many permille of their own (HPCRUN_COMM_PROCSET_EDGE_BUDGET, §5.64) */
	uint64_t flush_interval;    /* s between periodic flushes, 0 = none */
	unsigned dir_mode;          /* mode of a measurement directory we create */
	uint32_t hostid;            /* the launcher's gethostid() (HPCRUN_COMM_HOSTID) */
	bool     have_hostid;
};

/* Process-wide state. */
struct rt_runtime {
	struct rt_options opt;
	int      ready;              /* sampling may start */
	volatile int stopping;       /* process exit in progress: refuse samples */
	int      sampler_kind;       /* what actually runs */
	struct hc_pmu_plan pmu;      /* how the PMU sampler opens its events */
	uint64_t period;             /* the period in effect: COMM@P, raised to the PMU
	                                sampler's floor, IBS-rounded (hc_pmu_period) */
	int      unit;
	char     sampler_why[256];   /* why this sampler (auto selection) */
	int      nwatch;             /* watchpoints per thread actually used */
	int      npset;              /* registers of the process-wide watch set, 0 = none
	                                (taken from the per-thread ones: 4 per CPU in all) */
	int      have_fsgsbase;
	uint32_t hostid;
	uint32_t rank;               /* MPI rank from the launcher's environment, 0 (doc/mpi.md) */
	const char *rank_var;        /* the variable it came from, NULL outside MPI */
	uint32_t pid;
	char     exe[256];           /* basename */
	char     exe_path[PATH_MAX];
	struct hc_bulletin bb;
	uint64_t bb_expiry_updates;       /* PMU: measured-rate updates of bb.expiry (pmu.c) */
	struct hc_detect_config dcfg;
	uint32_t next_index;         /* thread numbering (atomic) */
	struct rt_thread *live[HC_MAX_LIVE];
	/* totals of exited threads, for the process log */
	struct rt_counters total;
	uint64_t hist[HC_HIST_BUCKETS + 1];
	struct rt_cost_total cost[RT_MECH_N];
	struct rt_cost_total split[RT_SPLIT_N];   /* HPCRUN_COMM_COST_SPLIT's totals */
	uint32_t threads_seen, threads_unmeasured;
	uint64_t samples_outside;    /* sample SIGTRAPs in threads without a record (atomic) */
	uint64_t steps_stray;        /* single-step traps no burst claims, the application
	                                without a SIGTRAP handler: trap flag cleared (atomic) */
	uint64_t traps_empty;        /* TRAP_BRKPT debug exceptions (no cause in DR6), the
	                                application without a SIGTRAP handler: ignored (atomic) */
	int      writing;            /* threads writing their own profile right now */
};

extern struct rt_runtime hc_rt;
extern __thread struct rt_thread *hc_self __attribute__((tls_model("initial-exec")));

/* process.c */
uint64_t process__now(void);
/* HPCRUN_COMM_COST_SPLIT=1: the wall ns since the previous mark of the
   sample in progress go to the handler's step k (cost.h, RT_SPLIT_LIST);
   off, a load and a branch. Signal context. */
static inline void rt_split(struct rt_thread *t, int k)
{
	if (!t->split_on)
		return;
	uint64_t now = process__now();
	rt_cost_add(&t->split[k], now - t->split_last);
	t->split_last = now;
}

void process__log(const char *fmt, ...) HC_PRINTF(1, 2);
void process__fatal(const char *fmt, ...) HC_PRINTF(1, 2) __attribute__((noreturn));
void process__init(bool after_fork);
void process__fini(void);
void process__finish(void);
/* The launcher's HPCRUN_COMM_* entries ("NAME=value", NULL-terminated),
   taken out of environ at start, and LD_PRELOAD's value at start (NULL if
   it did not name the runtime): the exec and spawn wrappers give them to
   children. */
const char *const *process__env_saved(void);
const char *process__env_preload(void);
/* Is this "NAME=value" one of the entries the launcher or an exec wrapper sets? */
bool process__env_is_launcher(const char *entry);

/* The main thread's stack (thread.c sets it at its start) and the lines
   of it other threads were seen using (soft.c; §5.45). */
extern uint64_t rt_main_stack_lo, rt_main_stack_hi;
#define RT_SHARED_STACK_LINES 1024u
extern uint64_t rt_shared_stack[RT_SHARED_STACK_LINES];

/* thread.c */
struct rt_thread *thread__begin(uint32_t index, uint32_t creator, uint32_t creation_ctx,
                                   uint64_t start_fn);
void thread__end(struct rt_thread *t);
bool thread__watch_allowed(struct rt_thread *t);
bool thread__crowded(void);
uint32_t watch__handoff_crowded_opened(void);
/* The next definition of a function this library interposes (RTLD_NEXT),
   looked up at its first use and kept in *slot; with a version (the
   condition variables' current ABI, not the 2.2.5 one) that version when
   there is one. Threads may race to that first use: relaxed atomics (each
   stores the same pointer). RT_REAL(f) / RT_REAL_V(f, version) keep the
   slot in a static of the caller. A TSan build (the unit test
   test_lock_mt) takes the default definition, TSan's unversioned
   interceptor: libc's own cond wait would hide the mutex's release and
   re-acquisition from TSan. */
static inline void *rt_next_sym_v(void **slot, const char *name, const char *version)
{
	void *p = __atomic_load_n(slot, __ATOMIC_RELAXED);

	if (__builtin_expect(p == NULL, 0)) {
#ifdef __SANITIZE_THREAD__
		(void)version;
#else
		if (version)
			p = dlvsym(RTLD_NEXT, name, version);
#endif
		if (!p)
			p = dlsym(RTLD_NEXT, name);
		__atomic_store_n(slot, p, __ATOMIC_RELAXED);
	}
	return p;
}
static inline void *rt_next_sym(void **slot, const char *name)
{
	return rt_next_sym_v(slot, name, NULL);
}
#define RT_REAL(name) ({ static void *rt_real_; (__typeof__(&name))rt_next_sym(&rt_real_, #name); })
#define RT_REAL_V(name, version) \
	({ static void *rt_real_; (__typeof__(&name))rt_next_sym_v(&rt_real_, #name, version); })

/* Unmap a thread's arena; safe when the arena holds its own descriptor. */
#define RT_PAGE 4096u

/* Whether addr's page is resident (mincore): 1, 0, or -1 when it is not
   mapped (ENOMEM: a freed block's). Async-signal-safe (a system call). */
static inline int rt_page_resident(uint64_t addr)
{
	unsigned char v = 0;

	if (mincore((void *)(uintptr_t)(addr & ~(uint64_t)(RT_PAGE - 1)), RT_PAGE, &v) != 0)
		return -1;
	return v & 1;
}

static inline void thread__arena_release(struct hc_arena *a)
{
	struct hc_arena copy = *a;
	hc_arena_destroy(&copy);
}

/* cct.c */
int  cct__init(struct rt_thread *t, uint32_t cap);
uint32_t cct__insert(struct rt_thread *t, const uint64_t *ret_addrs, int nret, uint64_t leaf);
uint32_t cct__insert_under(struct rt_thread *t, uint32_t parent, uint64_t leaf);
uint32_t cct__insert_frame(struct rt_thread *t, uint32_t parent, uint64_t ip);
uint32_t cct__context(struct rt_thread *t, void *uctx, uint64_t leaf_ip);
/* The context of the sampled function's caller, leaf_ip its leaf: the
   sample's callers without the innermost frame, whose return address must
   be ret (detection.md §5.67); HC_NONE when it is not. Signal context. */
uint32_t cct__context_caller(struct rt_thread *t, void *uctx, uint64_t ret, uint64_t leaf_ip);
uint32_t cct__context_here(struct rt_thread *t, int skip);
typedef bool (*cct_leaf_fn)(struct rt_thread *t, uint32_t parent, uint64_t ret, void *arg, uint32_t *node);
uint32_t cct__context_here_store(struct rt_thread *t, int skip, cct_leaf_fn leaf_of, void *arg, bool *moved);
/* lock.c: lock sets (detection.md §5.35) */
void lock__enable(bool on);
/* §5.37: note a synchronisation object's bytes; is the access [addr, +len)
   at pc system code on such bytes (async-signal-safe)? */
void lock__sync_enable(bool on);
void lock__sync_note(const void *o, size_t n);
/* 0: the program's (kept); RT_SYNC_OBJECT: system code on a synchronisation
   object's bytes; RT_SYS_DATA: system code on a system library's own data */
enum { RT_SYNC_OBJECT = 1, RT_SYS_DATA = 2 };
int lock__sync_sys(uint64_t pc, uint64_t addr, uint32_t len);
bool lock__trap(struct rt_thread *t, uint64_t bp_addr, uint64_t leaf, uint64_t acc, uint32_t len);
void lock__keep(struct rt_thread *t, const struct hc_bb_entry *start, uint32_t n, uint64_t weight, uint64_t line);
bool lock__mutex_word(uint64_t addr);
bool lock__seen(void);            /* a hand-off seen in the process (reader sets, §5.57) */
bool lock__in_block(uint64_t lo, uint64_t hi);   /* a locked mutex in [lo, hi) (§5.57) */
void lock__scale(uint64_t *weighed, uint64_t *total);   /* lock weights' hand-offs, capped and all (§5.57) */
/* the verdict of a process-wide lock set's trap (signal context): 1 true,
   0 false, -1 no transfer, -2 system code */
/* §5.53: a process-wide lock set's trap after a later releaser of its
   mutex changed the line: 1 true / 0 false with that releaser (*peer, its
   context *ctx); -1 none (the set's own rule); -2 the trapping thread
   wrote the line last; -3 the writer's context unknown. Signal context. */
int  lock__pset_after(struct rt_thread *t, uint32_t slot, uint32_t armer, uint64_t acc, uint32_t len,
                      uint32_t *peer, uint32_t *ctx);
int  lock__pset_verdict(struct rt_thread *t, uint32_t slot, uint64_t lo, uint64_t changed, uint8_t bytes,
                        uint64_t bp_addr, uint64_t leaf, uint64_t acc, uint32_t len, uint32_t armer);
/* watch.c: arm the process-wide set on one word of a lock's neighbourhood
   for the releaser's entry e (0, or -errno) */
int  watch__pset_lock(struct rt_thread *t, const struct hc_bb_entry *e, uint64_t addr, uint32_t slot, uint64_t lo,
                      uint64_t changed, uint8_t bytes, uint64_t weight, uint32_t owner);
int  cct__backtrace(void **fr, int max);
void cct__fork_prepare(void);
void cct__fork_release(bool child);

/* Address samplers: a method table per back end, listed in sampler.c
   (soft.c: timer + decode; pmu.c: PEBS and IBS). on_sample runs in the
   SIGTRAP handler for the sample cookie. */
struct rt_sampler {
	/* bytes of the back end's own per-thread state (t->sampler.own), 0 = none */
	size_t thread_size;
	/* fds a thread's start opens (reserved by the caller in fds.c's
	   budget first); 0 when the thread inherited its event at clone */
	int  (*thread_fds)(const struct rt_thread *t);
	int  (*thread_start)(struct rt_thread *t);   /* 0, or -errno with errno set */
	void (*thread_stop)(struct rt_thread *t);
	/* Whole process: stop every thread's sampling (exit, exec; may run
	   in signal context), resume it (exec failed), forget the parent's
	   events in a fork child (before the child starts over). */
	void (*process_stop)(void);
	void (*process_resume)(void);
	void (*atfork_child)(void);
	void (*on_sample)(struct rt_thread *t, void *uctx);
	/* Pause or resume the thread's events (ioctl request); NULL: the
	   one event t->sampler.fd */
	void (*thread_ioctl)(struct rt_thread *t, unsigned long req);
};
/* sampler.c: dispatch to hc_rt.sampler_kind's table */
int  sampler__thread_fds(const struct rt_thread *t);
int  sampler__thread_start(struct rt_thread *t);
void sampler__thread_stop(struct rt_thread *t);
void sampler__process_stop(void);
void sampler__process_resume(void);
void sampler__atfork_child(void);
void sampler__on_sample(struct rt_thread *t, void *uctx);
size_t sampler__thread_size(void);
void sampler__thread_ioctl(struct rt_thread *t, unsigned long req);
/* Is this back end the one running? */
bool sampler__is(const struct rt_sampler *s);
extern const struct rt_sampler soft__sampler, pmu__sampler, exact__sampler;

/* watch.c */
int  watch__probe(void);
int  watch__thread_start(struct rt_thread *t, int want);
void watch__thread_stop(struct rt_thread *t);
int  watch__arm(struct rt_thread *t, const uint64_t *addr, uint32_t n);
int  watch__arm_exec(struct rt_thread *t, uint64_t pc);
void watch__disarm(struct rt_thread *t);
void watch__held_flush(struct rt_thread *t);
void watch__on_trap(struct rt_thread *t, int slot, void *uctx);
int  watch__pset_registers(int nwatch);
void watch__trap_blocked(struct rt_thread *t, int slot);
void watch__trap_outside(int slot);
void watch__log(void);
void watch__pset_sample(struct rt_thread *t, const struct hc_sample *s, uint64_t leaf);
/* The poll context a load next to a polled flag is charged to, or HC_NONE
   (HPCRUN_COMM_POLL_READER, detection.md §5.58). Signal context. */
uint32_t watch__poll_reader(struct rt_thread *t, const struct hc_sample *s, uint64_t leaf);
void watch__pset_reader(struct rt_thread *t, const struct hc_sample *s, uint64_t leaf, uint64_t lo, uint64_t hi);
int watch__pset_feed(struct rt_thread *t, const struct hc_sample *s, uint32_t stands);
bool watch__pset_idle(void);
bool watch__pset_start(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t mult, uint64_t addr);
bool watch__pset_start_exempt(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t mult, uint64_t addr);
bool watch__pset_start_ready(void);
bool watch__pset_start_block(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t mult, uint64_t addr,
                             uint64_t lo, uint64_t hi);
bool watch__pset_chain_wait(uint32_t creator);
uint32_t watch__pset_start_peer(bool shared);
void watch__pset_tick(struct rt_thread *t);
void watch__pset_retire_ask(void);
void watch__pset_per_arm_ask(void);
int watch__pset_pipe(struct rt_thread *t, uint64_t addr, uint32_t writer, uint32_t stands);
/* pipe.c: pipeline sets (pipe.h, detection.md §5.18) */
void pipe__sample(struct rt_thread *t, uint64_t pc, const struct hc_sample *s);
void pipe__comm(void);
void pipe__writes_only(void);
void pipe__over_zone(void);
void pipe__log(void);

/* record.c: from a sample or trap to a recorded communication */
/* One address sample of any sampler into detection: unwinds for stores
   (and for loads that communicate), publishes, records, arms watchpoints.
   s->ctx is filled here. */
void record__detect_sample(struct rt_thread *t, void *uctx, uint64_t leaf, struct hc_sample *s);
/* What detection decided for the thread's set (disarm, arm: the arm's cost,
   its counters, a failure undone in detect): after a sample or trap, and
   for the start and join sets the soft sampler asks for itself. */
struct hc_detect_result;
void record__apply_set(struct rt_thread *t, const struct hc_detect_result *r);
/* Hand-off sets' board of per-block writer records (detection.md §5.36);
   turns dcfg.handoff_life off if it cannot. */
void record__handoff_init(void);
void record__idle_sample(struct rt_thread *t);
/* One communication into t's event buffer and CCT metrics. */
void record__comm(struct rt_thread *t, const struct hc_comm *c);
/* io.c (§5.75): the kernel filled [addr, addr + n) for t (read(), recv()):
   its store at ctx on the hand-off sets' writer records. Not signal
   context; t's guard is held. */
#define RT_IO_MIN 4096      /* fills shorter than this are not noted (counter io_small) */
void record__io_store(struct rt_thread *t, uint64_t addr, uint64_t n, uint32_t ctx);
/* §5.75: addr lies in a buffer the kernel filled for another thread
   lately (a copy out of it stands for a load there). Signal context. */
bool record__fill_other(struct rt_thread *t, uint64_t addr, uint64_t now);
void io__enable(bool on);
/* crit.c (§5.76): OpenMP critical sections and omp locks */
void crit__enable(bool on);
/* t's sample s (its context in s->ctx) inside a critical section it
   holds: a store kept for the section's next holder (true when kept).
   Signal context. */
bool crit__sample(struct rt_thread *t, const struct hc_sample *s);

/* signal.c */
int  signal__init(void);
/* The cookies (attr.sig_data) that tell our SIGTRAPs apart: the sampler's,
   watchpoint slot's; and whether a SIGTRAP's siginfo carries one. */
uint64_t signal__cookie_sample(void);
uint64_t signal__cookie_watch(int slot);
bool signal__siginfo_ours(const siginfo_t *si);
int  signal__altstack_on(struct rt_thread *t);
void signal__altstack_off(struct rt_thread *t);

/* fds.c */
extern struct rt_fd_stats fds__stats;
void fds__init(void);
void fds__log_limits(void);
void fds__log_stats(void);
/* sandbox.c: the program's Landlock rulesets keep the measurement directory writable */
void sandbox__log(void);
bool fds__reserve(int n);
bool fds__force(int n);
void fds__unreserve(int n);
int  fds__held(void);
int  fds__budget(void);
int  fds__adopt(int fd, int *where, bool perf);
bool fds__check(const int *where);
void fds__close(int *where, const char *what);
void fds__forget(int *where);

/* flush.c */
void flush__start(void);
void flush__need_helper(void);
void flush__self(struct rt_thread *t);
void flush__all(void);
void flush__thread_final(struct rt_thread *t);
void flush__thread_end(struct rt_thread *t);
void flush__thread_added(void);
void flush__atfork_child(void);

/* sigmask.c: the application's signal mask, SIGTRAP kept deliverable */
int  sigmask__inherit(const pthread_attr_t *attr);
void sigmask__thread_start(int inherited);
void sigmask__before_exec(void);
void sigmask__after_exec_failure(void);
/* The real pthread_sigmask, for the runtime's own threads (SIGTRAP included). */
int  sigmask__real(int how, const sigset_t *set, sigset_t *old);
bool sigmask__trap_wished(void);
void sigmask__hold(const siginfo_t *si, void *uc);
void sigmask__init(void);

/* output.c */
int  output__write_profile(struct rt_thread *t);
int  output__write_snapshot(const struct rt_thread *t, struct rt_thread *copy, uint8_t *wbuf);
int  output__write_own_snapshot(struct rt_thread *t);
void output__write_process_log(void);

#endif
