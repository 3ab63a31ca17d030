/* SPDX-License-Identifier: BSD-3-Clause */
/* cost.h — what each mechanism of the runtime costs per use, and the
   context-switch gate of the watchpoints (doc/performance.md, "Cost per
   mechanism" and "Oversubscription"). Pure and async-signal-safe: the
   histograms use the handler-cost buckets of rt.h (4 per octave); the
   runtime keeps one set per thread (signal context, no atomics) and adds
   it into process totals when the thread ends. */
#ifndef HC_RUNTIME_COST_H
#define HC_RUNTIME_COST_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "runtime/hist.h"

/* The mechanisms, in the order of the log's lines. */
#define RT_COST_LIST(X) \
	X(SAMPLE,  "sample handler (all of it, user time)") \
	X(DECODE,  "decode (registers, previous instruction, access)") \
	X(UNWIND,  "unwind (calling context)") \
	X(DETECT,  "detect + publish (bulletin board)") \
	X(ARM,     "watchpoint arm (MODIFY_ATTRIBUTES ioctls)") \
	X(TRAP,    "watchpoint / breakpoint trap handler") \
	X(STEP,    "single-step trap handler (one step)")

/* HPCRUN_COMM_COST_SPLIT=1: the sample handler's wall time by step, in
   the order a sample goes through them (a step a sample skips is not
   counted; rt_split in rt.h marks the end of each). performance.md
   "Session 26": what the mechanism lines above do not name. */
#define RT_SPLIT_LIST(X) \
	X(ENTRY,    "entry (guard, dispatch)") \
	X(PROLOGUE, "prologue (rate levels, return breakpoint's age)") \
	X(DECODE,   "decode (registers, previous instruction, access)") \
	X(NOACC,    "a sample without a data access: idle set turn, reader loop, burst or return breakpoint") \
	X(CLASSIFY, "classify (sync objects, update look-ahead, privacy, recent lines, board lookup)") \
	X(BLOCK,    "held traps, heap block tag") \
	X(UNWIND,   "unwind (calling context)") \
	X(DETECT,   "detect + publish (board, hand-off records)") \
	X(APPLY,    "the thread's set: disarm, switch gate, arm") \
	X(PSET,     "process-wide set: the rest (edge sets, picks without a zone, thinned zones)") \
	X(PIPE,     "pipeline and reader sets") \
	X(AFTER,    "after detection (rep end, start set, sharing sign)") \
	X(BURST,    "single-step burst (scan or first step)") \
	X(RET,      "feed set, reader loop, return breakpoint") \
	X(TAIL,     "tail (periodic flush, back in the handler)") \
	X(IDLE,     "idle sample's detection (hc_detect_idle)") \
	X(PTICK,    "process-wide set: expiry (its end's ioctl and getrusage)") \
	X(ZNOTE,    "process-wide set: zone note") \
	X(FLAG,     "process-wide set: poll flag note") \
	X(GATE,     "process-wide set: gate and state checks, edge set first") \
	X(ZPICK,    "process-wide set: zone pick (or a sampled line's set: its entry)") \
	X(ZARM,     "process-wide set: zone set armed (ioctls, getrusage)") \
	X(ZREFUSED, "process-wide set: zone set refused (busy, budget)") \
	X(FEATHER,  "process-wide set: the sampled line's set armed or refused")

enum rt_split_step {
#define RT_SPLIT_X(n, d) RT_SPLIT_##n,
	RT_SPLIT_LIST(RT_SPLIT_X)
#undef RT_SPLIT_X
	RT_SPLIT_N
};

enum rt_cost_mech {
#define RT_COST_X(n, d) RT_MECH_##n,
	RT_COST_LIST(RT_COST_X)
#undef RT_COST_X
	RT_MECH_N
};

/* One mechanism's durations: histogram (last bucket = overflow), sum,
   count. uint32 buckets per thread; the process totals are uint64. */
struct rt_cost_hist {
	uint32_t b[HC_HIST_BUCKETS + 1];
	uint64_t sum_ns, n;
};
struct rt_cost_total {
	uint64_t b[HC_HIST_BUCKETS + 1];
	uint64_t sum_ns, n;
};

/* Now, in ns (CLOCK_MONOTONIC, vDSO: async-signal-safe). */
static inline uint64_t rt_cost_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void rt_cost_add(struct rt_cost_hist *h, uint64_t ns)
{
	h->b[hc_hist_bucket(ns)]++;
	h->sum_ns += ns;
	h->n++;
}

/* Thread totals into the process totals (atomic adds: threads end
   concurrently). */
static inline void rt_cost_merge(struct rt_cost_total *to, const struct rt_cost_hist *h)
{
	if (!h->n)
		return;
	for (int i = 0; i <= HC_HIST_BUCKETS; i++)
		if (h->b[i])
			__atomic_add_fetch(&to->b[i], h->b[i], __ATOMIC_RELAXED);
	__atomic_add_fetch(&to->sum_ns, h->sum_ns, __ATOMIC_RELAXED);
	__atomic_add_fetch(&to->n, h->n, __ATOMIC_RELAXED);
}

/* The q-quantile in ns: the midpoint of the bucket that holds it (the
   overflow bucket answers its lower bound); 0 when empty. */
static inline uint64_t rt_cost_quantile(const struct rt_cost_total *t, double q)
{
	return hc_hist_quantile(t->b, q);
}

/* The context-switch gate of the watchpoints.

   Why: the soft sampler's task-clock event is inherited, so every thread's
   perf context is a clone of its creator's, and at a context switch
   between two such threads the kernel swaps the contexts without stopping
   the event (perf_event_context_sched_out, context_equiv). The first
   breakpoint event a thread opens un-clones its context for good: from
   then on every switch in or out of it stops and restarts the task-clock's
   hrtimer, two timer reprogrammings that trap to the hypervisor on this VM
   (≈ 10 µs of CPU per switch, bench/overhead/switch_cost.c). A thread
   that blocks often (an OpenMP barrier with more threads than CPUs: one
   switch per ≈ 70 µs of CPU) then pays more in switches than in samples.

   What a switch of an opened thread adds, by the kind of switch
   (switch_cost, per switch that getrusage counts): to a sibling thread
   +11 µs (the un-cloned context, also while the set is disarmed); to the
   idle task (a block with nothing else to run) +9 µs while a set is armed;
   to another program's task (a preemption or a yield on a loaded machine)
   +1–1.6 µs. Hence two charges: `switch_ns` in a crowded process (more
   live measured threads than CPUs + 1: the next task is likely a sibling)
   and `other_ns` in one that is not (performance.md, "Session 8": why the
   default is the same charge for both).

   The rule: a thread opens its watchpoints only while its switches, each
   charged as above, stay within `budget_permille` of its CPU time,
   judged over the current window together with the previous one (a window
   ends once it holds `min_cpu_ns` of CPU; the verdict reflects the last
   two, whatever the thread did long ago). A thread that has not switched
   is allowed at once, unless the process is crowded (an oversubscribed
   OpenMP team, whose threads have often not blocked yet at their first
   sample and block at every barrier afterwards); one that has switches, or
   any thread of a crowded process, is allowed only on a whole window's
   evidence (allowing is for good, refusing is for now); in a crowded
   process, moreover, never while the current window alone (over at least
   a quarter of a window's CPU) is over the budget, and only while its
   switches since it began are within the budget too. Once a thread has
   opened its watchpoints the gate is no longer asked (the un-cloning
   cannot be undone). Pure: the runtime feeds it getrusage(RUSAGE_THREAD)
   figures and the count of live threads. */
#define RT_SWITCH_NS_DEFAULT       10000u    /* HPCRUN_COMM_SWITCH_NS; measured 9.6-12 µs */
#define RT_SWITCH_OTHER_NS_DEFAULT 10000u    /* HPCRUN_COMM_SWITCH_OTHER_NS (performance.md, Session 8) */
#define RT_SWITCH_BUDGET_PERMILLE  30u       /* 3 % of the thread's CPU time */
#define RT_SWITCH_WINDOW_NS        20000000u /* 20 ms of CPU per window */

struct rt_switch_gate {
	uint64_t cpu0_ns, sw0;        /* the current window's start */
	uint64_t prev_cpu_ns, prev_sw; /* the previous window's length and switches */
	uint32_t switch_ns;           /* cost charged per switch, crowded process; 0 = gate off */
	uint32_t other_ns;            /* cost charged per switch, process not crowded */
	uint32_t budget_permille;     /* allowed share of the CPU time */
	uint64_t min_cpu_ns;          /* a window's length in CPU time */
};

static inline void rt_switch_gate_init(struct rt_switch_gate *g, uint32_t switch_ns, uint32_t other_ns,
                                       uint32_t budget_permille, uint64_t min_cpu_ns)
{
	g->cpu0_ns = g->sw0 = g->prev_cpu_ns = g->prev_sw = 0;
	g->switch_ns = switch_ns;
	g->other_ns = other_ns;
	g->budget_permille = budget_permille;
	g->min_cpu_ns = min_cpu_ns;
}

/* More live threads than CPUs, beyond one creator waiting for its workers
   (main + one worker per CPU is not crowded). */
static inline bool rt_switch_crowded(uint32_t live, uint32_t ncpu)
{
	return ncpu > 0 && live > ncpu + 1;
}

/* Verdict for a thread that has used cpu_ns of CPU and switched sw times in
   all (since its start), in a crowded process or not (rt_switch_crowded):
   the window's switches are charged at the charge of the process's state
   now. */
static inline bool rt_switch_gate_allows_in(struct rt_switch_gate *g, uint64_t cpu_ns, uint64_t sw,
                                            bool crowded)
{
	uint64_t dcpu, dsw, charge;

	if (!g->switch_ns)
		return true;
	if (cpu_ns < g->cpu0_ns || sw < g->sw0) {      /* counters went back: start over */
		g->cpu0_ns = cpu_ns;
		g->sw0 = sw;
		g->prev_cpu_ns = g->prev_sw = 0;
	}
	dcpu = cpu_ns - g->cpu0_ns;
	dsw = sw - g->sw0;
	if (dcpu >= g->min_cpu_ns) {                     /* window complete: roll */
		g->prev_cpu_ns = dcpu;
		g->prev_sw = dsw;
		g->cpu0_ns = cpu_ns;
		g->sw0 = sw;
		dcpu = dsw = 0;
	}
	charge = crowded ? g->switch_ns : g->other_ns;
	/* In a crowded process, the current window on its own, over at least
	   a quarter of a window: a thread that starts blocking now (an OpenMP
	   master entering its parallel region after 20 ms of serial set-up:
	   52 switches in its first 2.4 ms of the team) must not open on the
	   quiet window before (the 2x OpenMP stencil's master did,
	   performance.md "Session 9"). Not in a process that is not crowded:
	   there the barrier and queue programs of the accuracy suite open on
	   their quiet stretches, and found pairs that way. */
	if (crowded && dsw * charge * 1000 > (dcpu > g->min_cpu_ns / 4 ? dcpu : g->min_cpu_ns / 4) * g->budget_permille)
		return false;
	dcpu += g->prev_cpu_ns;
	dsw += g->prev_sw;
	/* An allowed thread opens for good, a refused one asks again: allow
	   only on evidence, a window's worth of CPU time, unless it has not
	   switched at all and its process is not crowded. */
	if (dsw == 0 && !crowded)
		return true;
	if (dcpu < g->min_cpu_ns || dsw * charge * 1000 > dcpu * g->budget_permille)
		return false;
	/* In a crowded process the thread's whole life must be within the
	   budget too: a barrier-bound team member (one switch per 100-300 µs
	   on average) now and then has two quiet windows — its partners ran
	   on the other CPU — and opened then, for good: one such thread cost
	   the 4-thread OpenMP stencil on 2 CPUs 1.09 -> 1.17x CPU
	   (performance.md, "Session 9"). */
	return !crowded || sw * charge * 1000 <= cpu_ns * g->budget_permille;
}

/* Preempted (HPCRUN_COMM_ARM_SHARE=P, performance.md "Session 17"): did a
   thread whose previous sample was at wall time prev_ns (0 = none) and
   whose samples come every period_ns of its CPU time get less than P % of
   a CPU until now_ns? Its per-thread arms then wait (watch.c): an arm of a
   thread that is being descheduled costs the partner that spins on it
   milliseconds of wall time (LULESH threads = CPUs under load: 22 µs of
   CPU, 1.46 ms of wall per arm, Session 16). P = 0: never. */
#define RT_ARM_SHARE_DEFAULT 50u  /* performance.md "Session 18": the watch tests pass with it under two CPU hogs */
static inline bool rt_share_low(uint64_t prev_ns, uint64_t now_ns, uint32_t share_pct, uint64_t period_ns)
{
	if (!share_pct || !prev_ns || now_ns <= prev_ns || !period_ns)
		return false;
	if (now_ns - prev_ns > UINT64_MAX / 100)
		return true;
	return (now_ns - prev_ns) * share_pct > period_ns * 100;
}

/* Does a hand-off set (detection.md §5.36) open a gated thread's registers
   as a start set does? HPCRUN_COMM_HANDOFF_UNGATED (`ungated`, default 1)
   says yes, but in a crowded process only while fewer than `cap` threads
   (HPCRUN_COMM_HANDOFF_UNGATED_CROWDED) were opened that way already
   (`opened`): there an opened thread is an oversubscribed team member that
   blocks at every barrier, and its un-cloned perf context costs each of
   its switches and its siblings' (the 4-thread OpenMP stencil on 2 CPUs:
   1-2 workers opened a run by hand-off sets, ~140 of ~5,300 perf samples
   of the run, performance.md "Session 23"). Refused, the set asks the
   switch gate like a regular set. Pure. The default is no cap: with 0,
   HPCCG -t 4 on 2 CPUs (main's hand-off to 3 gated workers, §5.36) found
   8 of 30 pairs against 26 of 30, for 0.02-0.04 of the stencil's CPU. */
#define RT_HANDOFF_UNGATED_CROWDED_DEFAULT UINT32_MAX   /* threads; performance.md "Session 23" */
static inline bool rt_handoff_opens(bool ungated, uint32_t cap, bool crowded, uint32_t opened)
{
	return ungated && (!crowded || opened < cap);
}

static inline bool rt_switch_gate_allows(struct rt_switch_gate *g, uint64_t cpu_ns, uint64_t sw)
{
	return rt_switch_gate_allows_in(g, cpu_ns, sw, false);
}

#endif
