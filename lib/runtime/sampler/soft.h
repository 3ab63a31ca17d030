/* SPDX-License-Identifier: BSD-3-Clause */
/* sampler/soft.h — the soft sampler's own per-thread state (soft.c): the
   single-step burst that follows a sample (issue #14, doc/detection.md §5)
   and its cost histogram. Written only by the owning thread, in its
   SIGTRAP handler. */
#ifndef HC_RT_SOFT_H
#define HC_RT_SOFT_H

#include <stdbool.h>
#include <stdint.h>
#include "decode/decode.h"
#include "detect/step.h"
#include "runtime/sampler/barren.h"

#define RT_STEP_HIST 88
/* Defaults of HPCRUN_COMM_STEPS and HPCRUN_COMM_STEP_BUDGET (x 256). */
#define RT_STEPS_DEFAULT 32
#define RT_STEP_BUDGET_DEFAULT256 (1 * 256)
/* "Recently", for a thread's own sampled lines: this many periods. */
#define RT_STEP_RECENT 1024
/* A burst without evidence of sharing: one in this many candidate samples. */
#define RT_STEP_SEED_EVERY 32   /* as HC_HIST_BUCKETS: 4 buckets per octave */
#define RT_RMW_CACHE 512        /* read-modify-write look-ahead entries, power of two */
/* What soft__cost times (thread CPU time of the handler's part). */
enum { RT_COST_ARM, RT_COST_TRAP, RT_COST_RET_ARM, RT_COST_KINDS };
/* A return breakpoint after one in this many samples of private work. */
#define RT_RET_EVERY 2
/* Calls a return burst may step into before a call or return ends it
   (HPCRUN_COMM_RET_CALL, detection.md §5.20): -O0 C++'s member function
   called right after the private work returns (cxx_stats' s.record()).
   Default 1 again in session 16: cxx_stats -O0 -t 4 found its pairs in
   28 of 30 runs against 7 of 30 with 0 (precision 1.00); pairs.sh's
   low-volume mode, which sent it back to 0 in session 15, is the
   scheduler's placement of a pair on one CPU, and no code path of this
   switch acts there (detection.md §5.23). */
#define RT_RET_CALL_DEFAULT 1
/* A burst publishes only the first of its loads of a line
   (HPCRUN_COMM_BURST_FIRST, detection.md §5.29): off by default, spsc's
   top code pair 57 of 108 runs on against 50 of 108 off, the suite's
   figures unchanged — no measurable gain. */
#define RT_BURST_FIRST_DEFAULT 0
/* Instructions that may stand between an -O0 pointer reload and the load
   it feeds (HPCRUN_COMM_RELOAD_CHAIN, hc_decode_prev_reload; detection.md
   §5.29): spsc -O0 recovers 1.7x as many such samples (645 against 370
   in 40 runs), the suite's figures unchanged. */
#define RT_RELOAD_CHAIN_DEFAULT 6
/* Start sets per thread at most (soft__start_set). */
#define RT_START_SETS 3
/* Join sets after one pthread_join at most (soft__join_set): one more
   after each trap, for the joined peers not found yet. */
#define RT_JOIN_SETS 4

/* The soft sampler's own per-thread state (t->sampler.own, sized by
   soft__sampler.thread_size; zero at thread start). */
struct rt_soft_thread {
	struct hc_step_budget budget;
	struct hc_step_lines lines;   /* lines this thread's samples touched */
	struct hc_step_pcs pcs;       /* its accessing instructions: moving or fixed */
	uint32_t step_left;     /* steps the running burst may still take; 0 = none */
	uint32_t step_taken;    /* steps taken by the running burst */
	uint64_t prev_before;   /* det.prev_sample before the burst's sample */
	uint64_t burst_t0;      /* thread CPU time when the burst started */
	bool burst_loads;       /* the burst publishes shared loads too (a return burst) */
	uint32_t burst_calls;   /* calls a return burst may still step into (HPCRUN_COMM_RET_CALL) */
	uint64_t burst_key;     /* a seed's PC or a return burst's address (barren.h); 0 = none */
	uint64_t burst_pub0;    /* step_stores + step_loads when the burst started */
	struct hc_burst_lines burst_lines;   /* lines the burst published a load of (HPCRUN_COMM_BURST_FIRST) */
	uint64_t burst_ld;      /* the burst's latest load (the trapped one it started after, or a
	                           stepped one): a store of exactly its bytes is an update (§5.54) */
	uint32_t burst_ld_len;
	struct rt_barren barren;   /* where its bursts found nothing (barren.h) */
	uint32_t ret_skip;      /* private-work samples since the last return breakpoint */
	uint32_t ret_age;       /* samples since the armed return breakpoint was armed */
	uint32_t start_sets;    /* start sets armed (soft__start_set) */
	uint32_t start_watched[HC_MAX_WATCH * RT_START_SETS + 1];  /* publishers + 1 its start sets watched */
	uint32_t nstart_watched;
	bool start_late_done;   /* its late start set was tried (soft__start_set_late) */
	uint32_t join_mark;     /* threads ended when this thread last created one */
	uint32_t join_sets;     /* join sets armed since its last pthread_join */
	uint32_t join_found[RT_JOIN_SETS];   /* peers + 1 its join sets found since */
	uint64_t join_prev;     /* its previous sample's time at its last pthread_join */
	bool stopped;           /* counted in the process's ended threads */
	bool crowd_counted;     /* counted in the live threads of the rate rule (rate.h) */
	int tick_slot;          /* its slot in soft.c's tick table (rate.h); -1 none, -2 left */
	uint32_t burst_hist[RT_STEP_HIST + 1];   /* burst durations, trap costs included */
	uint32_t cost_hist[RT_COST_KINDS][RT_STEP_HIST + 1];   /* soft__cost, thread CPU ns */
	uint64_t cost_ns[RT_COST_KINDS];
	struct {                /* read-modify-write look-ahead cache */
		uint64_t pc;            /* where the look-ahead starts */
		uint64_t store;         /* the store found there, 0 = none */
		bool has_recipe;        /* its one write, as a recipe (no decode) */
		uint8_t ahead;          /* -O0's store further on (§5.56): 0 not asked, 1 found, 2 not */
		struct hc_acc_recipe write;
	} rmw[RT_RMW_CACHE];
	struct {                /* an update's store: the load before it (§5.54) */
		uint64_t pc;            /* the store */
		uint64_t load;          /* the load of its bytes, 0 = none */
		bool learned;           /* an update's store: a trap's walk from its load reached it, or
		                           the walk back evaluated -O0's recomputed address (§5.54, §5.56) */
	} upd[RT_RMW_CACHE];
	struct {                /* a loop around a PC (reader sets, §5.57): its decode */
		uint64_t pc;            /* the sampled PC */
		uint64_t exit;          /* the loop's exit, 0 = not in a loop the decode follows */
		uint16_t written;       /* registers the loop writes */
		uint64_t callee;        /* the PC's function when it is a leaf with a frame pointer (§5.67), else 0 */
		uint16_t clobbered;     /* ... the registers its caller cannot rely on after it */
	} loop[RT_RMW_CACHE];
	struct {                /* the load that feeds the loop around a PC (feed sets, §5.68) */
		uint64_t pc;            /* the sampled PC */
		uint64_t load;          /* the load's PC, 0 = none */
	} feed[RT_RMW_CACHE];
	uint32_t feed_skip;     /* no-access samples since the last feed set asked */
	struct {                /* a sampled load, the only access of its loop (feed sets, §5.68) */
		uint64_t pc;            /* the load */
		bool only;              /* hc_decode_loop_only_load said so */
	} feed_only[RT_RMW_CACHE];
	uint32_t feed_load_skip;  /* such loads since the last one asked */
	uint32_t feed_pending;    /* samples a feed set could have stood for since the thread's last one
	                             armed (§5.70: its trap weighs them, HPCRUN_COMM_FEED_STANDS) */
};

struct rt_thread;
/* A TRAP_TRACE SIGTRAP: is it a step of this thread's burst? */
bool soft__stepping(const struct rt_thread *t);
/* A tick timer's sample arrived (signal.c; its overrun count): counted for
   the log (signal context). */
void soft__on_tick(int overrun);
/* The live measured threads' tids (at most max; *all: how many live). */
uint32_t soft__live_tids(uint32_t *tids, uint32_t max, uint32_t *all);
/* One step of the burst (signal context, under the guard). */
void soft__on_step(struct rt_thread *t, void *uctx);
/* After a matched watchpoint trap on a load: a burst (signal context). */
struct hc_sample;
void soft__after_trap(struct rt_thread *t, void *uctx, const struct hc_sample *s);
/* A communication found otherwise (a trap of the process-wide set): a sign
   of sharing for the quiet-process rule (rate.h). Signal context. */
void soft__sharing_sign(void);
/* A start set for a thread that begins after others ended (or after a
   start set's trap). */
void soft__start_set(struct rt_thread *t);
/* At a thread's first sample: a start set on the publishers its start
   sets did not watch (HPCRUN_COMM_START_LATE). Signal context. */
void soft__start_set_late(struct rt_thread *t);
/* This thread creates one (pthread_create; not in signal context, under
   the guard): the threads that end from now on are the ones its next
   joins wait for. */
void soft__on_create(struct rt_thread *t);
/* A join set (detection.md §5.15): after pthread_join returned (at_join;
   not in signal context, under the guard) or after a join set's trap
   (signal context), watch the lines the threads that ended since this
   thread last created one wrote whole. */
void soft__join_set(struct rt_thread *t, bool at_join, uint64_t trap_addr);
/* Is a trapped access an update (the same bytes read and written: one RMW
   instruction, a load with its store right after, a store after its
   load; detection.md §5.54)? leaf: its instruction, next: the one after
   it, r: the registers at next. False unless the soft sampler measures.
   Signal context. */
struct hc_regs;
struct hc_mem_access;
bool soft__update(struct rt_thread *t, uint64_t leaf, uint64_t next, const struct hc_regs *r,
                  const struct hc_mem_access *acc);
/* A trapped access (at pc) joins the thread's line bytes. */
void soft__note_access(struct rt_thread *t, uint64_t pc, const struct hc_sample *s);
/* The execute breakpoint on a return address fired (watch.c; signal
   context): a burst from the caller's code. */
void soft__on_ret_bp(struct rt_thread *t, void *uctx);
/* Thread CPU time now, ns, and the cost of one mechanism's run since t0
   (watch.c: arms and traps; signal context). No-ops under other samplers. */
uint64_t soft__cpu_now(void);
void soft__cost(struct rt_thread *t, unsigned kind, uint64_t t0);
/* End the burst now (the step could not be handled). */
void soft__step_abort(struct rt_thread *t, void *uctx);
/* Clear the interrupted context's trap flag (a stray single step, signal.c). */
void soft__clear_trap_flag(void *uctx);
/* A thread's burst cost histogram into the process totals (output.c). */
void soft__add_totals(const struct rt_thread *t);
/* Process log lines of the bursts (output.c). */
void soft__log(void);

#endif
