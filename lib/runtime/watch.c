/* SPDX-License-Identifier: BSD-3-Clause */
/* watch.c — debug-register watchpoints (doc/detection.md). Each thread opens its
   D breakpoint events once, disabled, on a harmless address, and re-targets
   them in place with PERF_EVENT_IOC_MODIFY_ATTRIBUTES (the attr must stay
   byte-identical apart from the breakpoint fields: doc/findings.md §5.3), so arming
   costs a few ioctls and no open. One-shot: the first trap disarms the whole
   set. x86 data traps fire after the access, so the accessing instruction
   is the one ending at the trap PC — except REP string ops, which trap on
   the REP itself. watch__arm/disarm and watch__on_trap run in signal
   context.

   The process-wide set (HPCRUN_COMM_PROCSET, doc/detection.md §5.13): a
   few more breakpoint events, opened with `inherit` by the first thread
   before any other exists, so that every thread carries copies that keep
   its perf context a clone (sibling switches stay cheap, unlike with the
   per-thread events above). A thread that the switch gate refuses arms
   this one set instead, by MODIFY_ATTRIBUTES on the parent events (every
   copy follows); it traps in any thread that touches the line. Its rules
   are pset.h's. */
#include <errno.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/sampler/soft.h"
#include "probe/probe.h"
#include "runtime/regs.h"
#include "detect/step.h"
#include "runtime/pset.h"
#include "runtime/zone.h"
#include "runtime/pipe.h"
#include "runtime/alloc/blocks.h"

/* ---- the process-wide set ---- */

#define PSET_SLOT 0x80            /* cookie slot bit: a process-wide set's register */

static struct {
	int n;                        /* inherited events open, 0 = none */
	uint32_t pid;                 /* the process that opened them (a fork child has none) */
	int fd[HC_MAX_WATCH];
	bool enabled[HC_MAX_WATCH];   /* written by the thread holding the set BUSY */
	struct perf_event_attr attr[HC_MAX_WATCH];
	uint64_t dummy;
	uint64_t state;               /* rt_pset_word (atomic) */
	/* the armed set, written while BUSY by the arming thread */
	struct {
		uint32_t owner;           /* the arming thread */
		uint32_t nwatch, candidates;
		bool writes_only;
		bool zone;                /* a zone set: its entry is its first trap (zone.h) */
		uint32_t zone_a, zone_b;  /* a zone set's pair of threads (zone.h, rt_zone_found) */
		uint64_t edge_pc;         /* an edge set's last trap's pc (pset.h, §5.55) */
		uint32_t edge_mem;        /* its edge memory slot + 1 << 1 | side (0: none; §5.64) */
		bool edge_extra;          /* armed over the set's budget, on the edge sets' own (§5.64) */
		uint32_t adopts;          /* a zone set's entries so far */
		bool pipe;                /* a pipeline set (pipe.c): a zone set owned by nobody */
		bool exec;                /* a return breakpoint (watch__arm_exec): register 0, execute */
		uint64_t block_lo, block_hi;   /* a creator's block line: its block (the chain's, pset.h), else 0 */
		uint64_t armed_at;        /* the owner's detection time of the set */
		uint64_t armed_wall;      /* process__now() at the arm */
		struct hc_bb_entry watched;
		uint64_t addr[HC_MAX_WATCH];
		/* a lock set (lock.c, HPCRUN_COMM_LOCK_PSET, detection.md §5.38): the
		   mutex's slot, its neighbourhood's first word, the words its
		   releaser changed, what a trap weighs */
		bool lock;
		uint32_t lock_slot;
		uint64_t lock_lo, lock_changed, lock_weight;
		uint8_t lock_bytes;           /* the watched word's changed bytes */
		/* a poll-flag set (HPCRUN_COMM_POLL_FLAG, detection.md §5.58): the
		   flag it watches (0: not one), and whether its entry moved to
		   the owner's own store of the flag */
		uint64_t flag;
		bool flag_moved;
		/* a reader set (watch__pset_reader, detection.md §5.57): a trap
		   weighs reader_weight (a load), reader_weight_store (a store), not
		   a period */
		bool reader;
		uint64_t reader_weight, reader_weight_store;
		bool handoff;             /* a gated thread's hand-off set (pset_handoff, §5.60) */
		bool feed;                /* a feed set (watch__pset_feed, §5.68) */
		uint32_t feed_stands;     /* ... its trap weighs this many times the trap's weight (§5.70) */
	} rec;
	uint32_t own_traps;           /* of the current set (atomic) */
	uint64_t sw_armed, sw_armed_inv;   /* the process's voluntary, involuntary switches at the arm */
	uint64_t sw_exempt;                /* involuntary switches not charged to the budget
	                                      (HPCRUN_COMM_PROCSET_SWITCH_VOL; atomic) */
	uint64_t spent_ns;            /* arms, ends, own traps: wall ns (atomic) */
	uint64_t sw_charged;          /* the process's switches while a set was armed, charged
	                                 HPCRUN_COMM_PROCSET_SWITCH_NS each (atomic) */
	uint64_t sw_charged_crowded;  /* those while the process was crowded (thread__crowded),
	                                 HPCRUN_COMM_PROCSET_SWITCH_CROWDED_NS each */
	uint64_t lock_spent_ns;       /* lock sets' arms (and a trap each): wall ns (atomic) */
	uint64_t reader_spent_ns;     /* reader sets' arms (and a trap each): wall ns (atomic, §5.57) */
	uint64_t reader_dry;          /* reader sets armed since the last one's communication (atomic) */
	uint64_t feed_spent_ns;       /* feed sets' arms (and a trap each): wall ns (atomic, §5.68) */
	uint64_t feed_dry;            /* feed sets armed since the last one's communication (atomic) */
	/* counters for the log (atomic) */
	uint64_t armed, arm_failed, refused_busy, refused_budget, traps_foreign, traps_comm, traps_own,
	         traps_late, traps_stale, traps_blocked, traps_outside, ended_trap, ended_own, ended_owner, ended_age;
	struct rt_cost_total cost_arm, cost_end;
	/* zone sets (zone.h; atomic counters) */
	uint64_t sample_unseen, zone_notes, zone_collisions, zone_asked, zone_armed, zone_adopts, zone_comms, zone_own;
	uint64_t zone_armed_new;  /* zone sets armed on a pair no zone set had found yet (Session 19) */
	uint64_t zone_lines, zone_stands;   /* sums over the zone sets armed: the zone's lines, what it stood for */
	uint64_t zone_overlap_capped;       /* overlaps whose set stood for fewer lines than the zone's (§5.73) */
	uint64_t zone_thinned;              /* zones picked, not armed: wide (zone.h, rt_zone_arm_thin) */
	uint64_t zone_skipped;              /* zone turns refused before the pick (pset_zone_refused) */
	uint64_t zone_notes_store;          /* notes of sampled stores (a zone needs a writer: zone.h) */
	uint64_t zone_pairs_new;            /* zone communications of a pair found the first time */
	uint64_t edge_asked, edge_armed, edge_comms;   /* edge sets (HPCRUN_COMM_PROCSET_EDGE, §5.55) */
	uint64_t edge_stopped;              /* ... samples not asked: too few communications (rt_pset_edge_allows) */
	/* edge memory (HPCRUN_COMM_PROCSET_EDGE_MEMORY, pset.h, §5.64; benign races) */
	struct rt_pset_edge_slot edge_tab[RT_PSET_EDGE_SLOTS];
	uint64_t edge_dry, edge_moved, edge_slots_full;   /* blocks passed over, asks moved to another block of
	                                                     the thread, blocks without a slot */
	uint64_t edge_extra_arms, edge_spent_ns;          /* edge sets over the set's budget (HPCRUN_COMM_PROCSET_EDGE_BUDGET) */
	uint64_t start_armed;               /* a start set's extra line armed (watch__pset_start) */
	uint64_t start_failed;              /* ... not armed (taken meanwhile, or over the budget) */
	uint64_t start_word;                /* the state word of the set that extra line armed (atomic) */
	uint64_t start_shared;              /* start sets that left that line's publisher to it
	                                       (watch__pset_start_peer) */
	uint64_t zone_open;                 /* zone sets armed by threads the gate let through */
	/* poll flags (§5.58; atomic counters) */
	uint64_t poll_spent_ns, poll_budget_arms;   /* sets over the budget on poll lines (HPCRUN_COMM_POLL_BUDGET) */
	uint64_t flag_polls, flag_noted, flag_region, flag_reader, flag_sets, flag_moved, flag_true, flag_false, flag_refused;
	uint64_t zone_notes_trap;           /* notes of the set's traps (exact accesses) */
	uint64_t gated_at;                  /* process__now() at a gated thread's last sample or ask (atomic) */
	uint64_t ret_armed, ret_failed, ret_hits;   /* return breakpoints on the set (HPCRUN_COMM_PROCSET_RET) */
	/* the creator's hand-off chain (pset.h; HPCRUN_COMM_START_CHAIN): the
	   threads it found (bits), how many asked for a line, its re-arms (atomic) */
	uint64_t chain_found;
	uint32_t chain_want, chain_rearms, chain_ntraps, chain_creator;
	uint64_t chain_at;                           /* its last start or trap (process__now) */
	uint64_t chain_traps[RT_PSET_CHAIN_TRAPS];   /* where it trapped (rt_pset_chain_pick) */
	uint64_t chain_started, chain_carried, chain_waiting, chain_armed, chain_new, chain_repeat, chain_dropped, chain_done,
	         chain_max;
} pset;

/* The switching level closed the set (HPCRUN_COMM_TICK_PSET=0,
   pset_retire): asked, done (atomic). */
static int pset_retire_wanted, pset_retired;

/* HPCRUN_COMM_TICK_EMPTY (rate.h, performance.md "Session 29"): at the
   switching level through the tick the set's inherited events are closed
   like pset_retire's, and the set goes on with breakpoints opened on the
   live measured threads (soft__live_tids, at most PSET_TIDS of them) at
   each arm and closed at its end, so that a thread's perf context is
   empty between sets: LULESH 2x's contexts, even with every event
   disabled, cost 0.07-0.2 of its native CPU time (the threads switch
   ~160,000 times a second), the set's arms ~40 a run. A register is
   enabled (pset.enabled) while its events are open; pset.fd is -1.
   Threads started while a set is armed carry no copy of it. */
#define PSET_TIDS 64
static struct {
	int wanted, on;                      /* asked, in effect (atomic) */
	int nfd[HC_MAX_WATCH];               /* events open per register */
	int fd[HC_MAX_WATCH][PSET_TIDS];
	uint64_t opens, open_failed, uncovered, arms, closes;   /* log figures (atomic) */
} per_arm;
static void per_arm_close(int i);

/* A gated thread sampled or asked for the set now (pset.gated_at, read by
   rt_pset_open_allows at a period's resolution): written at most once a
   period, not at every sample of every gated thread (one shared line). */
static void pset_note_gated(void)
{
	uint64_t now = process__now();

	if (now - __atomic_load_n(&pset.gated_at, __ATOMIC_RELAXED) >= hc_rt.period)
		__atomic_store_n(&pset.gated_at, now, __ATOMIC_RELAXED);
}

/* Where two threads' samples meet (zone.h): the process's table, noted at
   every sample with a shared-looking access while the set is open. */
static struct rt_zone_slot zones[RT_ZONE_SLOTS];
/* The pairs zone sets found, and how often (zone.h: pairs not found yet
   are watched first) */
static struct rt_zone_found zone_found;

static uint32_t zone_window(void)
{
	uint64_t w = ((uint64_t)RT_ZONE_WINDOW * hc_rt.period) >> RT_ZONE_TICK;

	return w < 1 ? 1 : w > 0x7ffff ? 0x7ffff : (uint32_t)w;
}

static void pset_cost_add(struct rt_cost_total *c, uint64_t ns)
{
	__atomic_add_fetch(&c->b[hc_hist_bucket(ns)], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->sum_ns, ns, __ATOMIC_RELAXED);
	__atomic_add_fetch(&c->n, 1, __ATOMIC_RELAXED);
}

static void pset_count(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* Registers the process-wide set takes from every thread (0 = none):
   HPCRUN_COMM_PROCSET, soft sampler with its inherited event only (the
   set's copies are what keep a thread's context a clone). */
int watch__pset_registers(int nwatch)
{
	int p = hc_rt.opt.procset;

	if (hc_rt.sampler_kind != HC_SAMPLER_SOFT || hc_rt.opt.per_thread || nwatch < 2 || p <= 0)
		return 0;
	return p < nwatch ? p : nwatch - 1;    /* at least one per-thread register stays */
}

/* Open the process-wide set: the first thread, before any other exists
   (a thread created earlier would carry no copy). Disabled, on a harmless
   address; `inherit_thread`: threads only, a fork child gets no copy. */
static void pset_open(int want)
{
	pset.n = 0;
	pset.pid = (uint32_t)getpid();
	zone_found.power = hc_rt.opt.procset_zone_spread;
	for (int i = 0; i < want; i++) {
		int fd;

		if (!fds__reserve(1))
			break;
		hc_watch_attr(&pset.attr[i], (uint64_t)(uintptr_t)&pset.dummy, signal__cookie_watch(PSET_SLOT | i));
		pset.attr[i].inherit = 1;
		pset.attr[i].inherit_thread = 1;
		fd = hc_perf_open(&pset.attr[i], 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			fds__unreserve(1);
			process__log("process-wide watch set: register %d: %s", i, hc_perf_strerror(errno, -1));
			break;
		}
		fds__adopt(fd, &pset.fd[i], true);
		pset.enabled[i] = false;
		pset.n++;
	}
	__atomic_store_n(&pset.state, rt_pset_word(0, RT_PSET_IDLE), __ATOMIC_RELEASE);
}

/* A fork child: the fds name the parent's events (and the child's thread
   carries no copy: inherit_thread). Dropped with the parent's set, state
   and counters: the child opens its own and logs what it did itself. */
static void pset_drop_if_forked(void)
{
	if (pset.n && pset.pid != (uint32_t)getpid()) {
		for (int i = 0; i < pset.n; i++) {
			fds__close(&pset.fd[i], "the process-wide watch set");
			per_arm_close(i);
		}
		memset(&pset, 0, sizeof(pset));
		memset(&per_arm, 0, sizeof(per_arm));
	}
}

/* Turn the set's registers from the `from`th on off (every copy follows
   the parent's DISABLE), the caller holding it BUSY. */
static void per_arm_close(int i)
{
	for (int k = 0; k < per_arm.nfd[i]; k++)
		fds__close(&per_arm.fd[i][k], "the process-wide watch set");
	if (per_arm.nfd[i])
		pset_count(&per_arm.closes);
	per_arm.nfd[i] = 0;
}

static void pset_disable_from(int from)
{
	for (int i = from; i < pset.n; i++)
		if (pset.enabled[i]) {
			if (__atomic_load_n(&per_arm.on, __ATOMIC_ACQUIRE))
				per_arm_close(i);
			else
				ioctl(pset.fd[i], PERF_EVENT_IOC_DISABLE, 0);
			pset.enabled[i] = false;
			pset.attr[i].disabled = 1;
		}
}

/* Register i as pset.attr[i] says (enabled), the caller holding the set
   BUSY: the inherited event modified (its copies follow), or, opened per
   arm, the live threads' events opened if the register is not enabled yet,
   else each modified. 0 or -errno (none of them took it). Signal context. */
static int pset_modify(int i)
{
	uint32_t tids[PSET_TIDS], all = 0, n;
	int err = 0;

	if (!__atomic_load_n(&per_arm.on, __ATOMIC_ACQUIRE))
		return ioctl(pset.fd[i], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &pset.attr[i]) < 0 ? -errno : 0;
	if (pset.enabled[i]) {
		int ok = 0;

		for (int k = 0; k < per_arm.nfd[i]; k++) {
			if (ioctl(per_arm.fd[i][k], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &pset.attr[i]) == 0)
				ok++;
			else
				err = -errno;
		}
		return ok ? 0 : err ? err : -ESRCH;
	}
	n = soft__live_tids(tids, PSET_TIDS, &all);
	if (all > n)
		__atomic_add_fetch(&per_arm.uncovered, all - n, __ATOMIC_RELAXED);
	per_arm.nfd[i] = 0;
	for (uint32_t k = 0; k < n; k++) {
		int fd;

		if (!fds__reserve(1)) {
			err = -EMFILE;
			break;
		}
		fd = hc_perf_open(&pset.attr[i], (pid_t)tids[k], -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			/* a thread that has just ended (ESRCH) goes without */
			err = -errno;
			fds__unreserve(1);
			pset_count(&per_arm.open_failed);
			continue;
		}
		fds__adopt(fd, &per_arm.fd[i][per_arm.nfd[i]], true);
		per_arm.nfd[i]++;
		pset_count(&per_arm.opens);
	}
	if (per_arm.nfd[i])
		pset_count(&per_arm.arms);
	return per_arm.nfd[i] ? 0 : err ? err : -ESRCH;
}

/* All of them; returns the wall ns spent. */
static uint64_t pset_off(void)
{
	uint64_t t0 = process__now();

	pset_disable_from(0);
	return process__now() - t0;
}

static uint64_t pset_armed_cost(void);

/* End the armed set of generation word w (CAS ARMED -> BUSY -> IDLE);
   false when someone else ended or re-armed it first. */
static bool pset_end(uint64_t w, uint64_t *counter)
{
	uint64_t busy = rt_pset_word(rt_pset_gen_of(w), RT_PSET_BUSY), ns;

	if (rt_pset_state_of(w) != RT_PSET_ARMED ||
	    !__atomic_compare_exchange_n(&pset.state, &w, busy, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	ns = pset_off();
	pset_cost_add(&pset.cost_end, ns);
	ns += pset_armed_cost();
	__atomic_add_fetch(&pset.spent_ns, ns, __ATOMIC_RELAXED);
	if (pset.rec.edge_extra)
		__atomic_add_fetch(&pset.edge_spent_ns, ns, __ATOMIC_RELAXED);
	__atomic_store_n(&pset.state, rt_pset_word(rt_pset_gen_of(w), RT_PSET_IDLE), __ATOMIC_RELEASE);
	pset_count(counter);
	return true;
}

/* The process's context switches so far (all threads: getrusage),
   voluntary and involuntary. */
static void process_switches(uint64_t *vol, uint64_t *inv)
{
	struct rusage ru;

	*vol = *inv = 0;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;
	*vol = (uint64_t)ru.ru_nvcsw;
	*inv = (uint64_t)ru.ru_nivcsw;
}

/* What a set cost while it was armed beyond its arm: every switch of a
   thread carrying an armed copy to or from the idle task costs more
   (+9–10 µs, performance.md "Session 8"), charged for each of the
   process's switches meanwhile (the caller holds the set BUSY). */
static uint64_t pset_armed_cost(void)
{
	uint64_t vol, inv, exempt, n;

	process_switches(&vol, &inv);
	n = rt_pset_switches_charged(vol, inv, pset.sw_armed, pset.sw_armed_inv, hc_rt.opt.procset_switch_vol, &exempt);
	__atomic_add_fetch(&pset.sw_exempt, exempt, __ATOMIC_RELAXED);
	if (thread__crowded()) {
		__atomic_add_fetch(&pset.sw_charged_crowded, n, __ATOMIC_RELAXED);
		return n * hc_rt.opt.procset_switch_crowded_ns;
	}
	__atomic_add_fetch(&pset.sw_charged, n, __ATOMIC_RELAXED);
	return n * hc_rt.opt.procset_switch_ns;
}

/* The process's CPU time for the budgets, read at most once in
   4 sampling periods of wall time by any thread (a process CPU
   clock is a system call of 2-5 us on this VM, not a vDSO one; the budget
   checks asked for it 0.5 times a sample on the OpenMP stencil:
   performance.md "Session 26"). The value read last is a lower bound of
   the CPU time now: a budget that allows with it allows with the true
   value too, and one that refuses lets the next arm through at most 2 ms
   later (at 1 % of 2 CPUs, 40 us of allowance: a shift, not a rate — the
   allowance still grows with the CPU time). Racing threads may leave an
   older value: still a lower bound. Async-signal-safe (relaxed atomics,
   one clock_gettime). HPCRUN_COMM_PROCSET_CPU_PERIODS=N: N periods
   (default 4; 0 reads at every check). */
static uint64_t pcpu_ns, pcpu_at;     /* the value read last, and process__now() then */
static uint64_t pcpu_reads, pcpu_cached;   /* for the log (atomic) */

static uint64_t process_cpu_ns(void)
{
	struct timespec ts;
	uint64_t now = process__now(), at = __atomic_load_n(&pcpu_at, __ATOMIC_RELAXED), v;

	if (at && now >= at && now - at < hc_rt.opt.pset_cpu_periods * hc_rt.period) {
		pset_count(&pcpu_cached);
		return __atomic_load_n(&pcpu_ns, __ATOMIC_RELAXED);
	}
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	v = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	__atomic_store_n(&pcpu_ns, v, __ATOMIC_RELAXED);
	__atomic_store_n(&pcpu_at, now, __ATOMIC_RELAXED);
	pset_count(&pcpu_reads);
	return v;
}

static uint64_t pset_min_age(void);

/* Would pset_arm_set refuse a zone set now, busy or over every budget
   that could take it (the main one; the poll flags' when no poll loop
   was ever sampled, flag_of then knows no line)? Then the zone pick (a
   walk over the zone table's 251 slots, twice: 7-13 us median on the
   stencil, cold in cache) is not worth making (HPCRUN_COMM_PROCSET_PRECHECK;
   detection.md §5.66). Counts the refusal as the arm would. */
static bool pset_zone_refused(struct rt_thread *t)
{
	uint64_t w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE), cpu;

	if (!rt_pset_may_arm(rt_pset_state_of(w), pset.rec.owner, t->id.index, pset.rec.armed_wall, process__now(),
	                     pset_min_age())) {
		pset_count(&pset.refused_busy);
		return true;
	}
	cpu = process_cpu_ns();
	if (rt_pset_budget_allows(__atomic_load_n(&pset.spent_ns, __ATOMIC_RELAXED), cpu, hc_rt.opt.procset_budget,
	                          RT_PSET_GRACE_NS))
		return false;
	if (hc_rt.opt.poll_budget && __atomic_load_n(&pset.flag_polls, __ATOMIC_RELAXED) &&
	    rt_pset_budget_allows(__atomic_load_n(&pset.poll_spent_ns, __ATOMIC_RELAXED), cpu, hc_rt.opt.poll_budget,
	                          RT_PSET_GRACE_NS))
		return false;
	pset_count(&pset.refused_budget);
	return true;
}

/* The armed set's life in sampling periods (wall time): a pipeline set's
   (pipe.h), a feed set's (HPCRUN_COMM_FEED_LIFE, §5.70), else RT_PSET_LIFE. */
static uint32_t pset_life(void)
{
	return pset.rec.pipe ? RT_PIPE_LIFE : pset.rec.feed ? hc_rt.opt.feed_life : RT_PSET_LIFE;
}

/* A set's shortest life before another thread may take the registers:
   half its life (wall ns). */
static uint64_t pset_min_age(void)
{
	return pset_life() / 2 * hc_rt.period;
}

/* Arm the process-wide set for thread t's set (t->det: the entry, its
   candidates), refused by the switch gate. Signal context. 0, -EAGAIN
   (busy, budget: counted), or the ioctl's -errno. */
static int pset_arm_set(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t candidates,
                        bool writes_only, uint64_t armed_at, const uint64_t *addr, uint32_t n, bool zone,
                        uint32_t za, uint32_t zb);
static int pset_arm_set_x(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t candidates,
                          bool writes_only, uint64_t armed_at, const uint64_t *addr, uint32_t n, bool zone,
                          uint32_t za, uint32_t zb, bool budget, bool exec, const uint64_t *block);

struct pset_lock_arg;
static int pset_arm_set_l(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t candidates,
                          bool writes_only, uint64_t armed_at, const uint64_t *addr, uint32_t n, bool zone,
                          uint32_t za, uint32_t zb, bool budget, bool exec, const uint64_t *block,
                          const struct pset_lock_arg *lk, uint64_t flag);

static int pset_arm(struct rt_thread *t, const uint64_t *addr, uint32_t n)
{
	return pset_arm_set(t, &t->det.watched, t->det.candidates, t->det.writes_only, t->det.armed_at, addr, n,
	                    false, 0, 0);
}

/* An edge set (pset.h, rt_pset_edge_word; detection.md §5.55): the
   sample is in a heap block its thread allocated; the set watches one of
   the block's edge words, as a zone set (no entry: its first trap is; the
   zone "pair" RT_PSET_EDGE_PAIR marks it an edge set), with
   HPCRUN_COMM_PROCSET_EDGE's chance, while rt_pset_edge_allows. True when
   the sample went to it (armed, or refused: busy or over the budget).
   Signal context (blocks__find and blocks__site_get are
   async-signal-safe). */
/* The edge memory's slot of block b (allocated by thread `thread` at
   `site`), taken when free within RT_PSET_EDGE_PROBE slots; -1 when
   other blocks hold them (counted). */
static int edge_slot(const struct rt_block *b, uint32_t thread, uint32_t site)
{
	uint32_t k0 = rt_pset_edge_slot_of(b->base);

	for (uint32_t i = 0; i < RT_PSET_EDGE_PROBE; i++) {
		uint32_t k = (k0 + i) % RT_PSET_EDGE_SLOTS;
		struct rt_pset_edge_slot *e = &pset.edge_tab[k];
		uint64_t base = __atomic_load_n(&e->base, __ATOMIC_ACQUIRE), zero = 0;

		if (base == b->base)
			return (int)k;
		if (base != 0)
			continue;
		if (!__atomic_compare_exchange_n(&e->base, &zero, b->base, false, __ATOMIC_ACQ_REL,
		                                 __ATOMIC_RELAXED)) {
			if (zero == b->base)
				return (int)k;
			continue;
		}
		e->size = b->size;
		e->thread = thread;
		e->site = site;
		return (int)k;
	}
	pset_count(&pset.edge_slots_full);
	return -1;
}

/* Is the allocation site of slot k dry (rt_pset_edge_site_dry)? */
static bool edge_site_dry(uint32_t k, uint64_t r)
{
	uint32_t site = pset.edge_tab[k].site;
	uint64_t armed = 0, comms = 0;

	for (uint32_t j = 0; j < RT_PSET_EDGE_SLOTS; j++) {
		const struct rt_pset_edge_slot *o = &pset.edge_tab[j];

		if (__atomic_load_n(&o->base, __ATOMIC_ACQUIRE) && o->site == site) {
			armed += __atomic_load_n(&o->armed[0], __ATOMIC_RELAXED) + __atomic_load_n(&o->armed[1], __ATOMIC_RELAXED);
			comms += __atomic_load_n(&o->comms[0], __ATOMIC_RELAXED) + __atomic_load_n(&o->comms[1], __ATOMIC_RELAXED);
		}
	}
	return rt_pset_edge_site_dry(armed, comms, r);
}

/* The side of slot k worth an edge set now (rt_pset_edge_side), or -1. */
static int edge_side_of(uint32_t k, uint64_t r)
{
	const struct rt_pset_edge_slot *e = &pset.edge_tab[k];
	uint32_t armed[2] = { __atomic_load_n(&e->armed[0], __ATOMIC_RELAXED), __atomic_load_n(&e->armed[1], __ATOMIC_RELAXED) };
	uint32_t comms[2] = { __atomic_load_n(&e->comms[0], __ATOMIC_RELAXED), __atomic_load_n(&e->comms[1], __ATOMIC_RELAXED) };

	return rt_pset_edge_side(armed, comms, r);
}

static bool pset_edge(struct rt_thread *t, const struct hc_sample *s)
{
	struct rt_block b;
	struct hc_bb_entry e;
	uint32_t thread, ctx;
	uint64_t a, r;
	int k = -1, side = -1;

	/* a tagged block (record.c) of another thread's: no lookup */
	if (s->block && s->block_owner && s->block_owner != t->id.index + 1)
		return false;
	if (!rt_pset_edge_allows(__atomic_load_n(&pset.edge_armed, __ATOMIC_RELAXED),
	                         __atomic_load_n(&pset.edge_comms, __ATOMIC_RELAXED))) {
		pset_count(&pset.edge_stopped);
		return false;
	}
	if (!blocks__used() || !blocks__find(s->addr, &b) || !blocks__site_get(b.site, &thread, &ctx) ||
	    thread != t->id.index)
		return false;
	/* the chance drawn only here: programs with no block of their own
	   draw nothing, their zone picks' random stream unchanged */
	if ((rt_zone_rng(&t->det.rng) & 3) >= hc_rt.opt.procset_edge)
		return false;
	r = rt_zone_rng(&t->det.rng);
	/* edge memory (§5.64): the block's side worth a set, or another block
	   of this thread's that has one (the scratch array's sides are dry,
	   its samples move to the domain's block) */
	if (hc_rt.opt.procset_edge_memory && b.size >= RT_PSET_EDGE_MIN && (k = edge_slot(&b, thread, ctx)) >= 0) {
		side = edge_site_dry((uint32_t)k, r) ? -1 : edge_side_of((uint32_t)k, r);
		if (side < 0) {
			uint32_t k0 = (uint32_t)(r >> 16) % RT_PSET_EDGE_SLOTS;
			int k0s = k;

			k = -1;
			for (uint32_t i = 0; i < RT_PSET_EDGE_SLOTS; i++) {
				uint32_t j = (k0 + i) % RT_PSET_EDGE_SLOTS;
				const struct rt_pset_edge_slot *o = &pset.edge_tab[j];

				if (__atomic_load_n(&o->base, __ATOMIC_ACQUIRE) && o->thread == t->id.index &&
				    j != (uint32_t)k0s && (side = edge_side_of(j, r >> 24)) >= 0 && !edge_site_dry(j, r)) {
					k = (int)j;
					b.base = o->base;
					b.size = o->size;
					break;
				}
			}
			if (k < 0) {
				pset_count(&pset.edge_dry);
				return false;
			}
			pset_count(&pset.edge_moved);
		}
		r = (r & ~(uint64_t)1) | (uint64_t)side;
	}
	a = rt_pset_edge_word(b.base, b.size, hc_rt.opt.procset_edge_skip, hc_rt.opt.procset_edge_words, r);
	if (!a)
		return false;
	pset_count(&pset.edge_asked);
	e = (struct hc_bb_entry){ .line = a & ~(uint64_t)(HC_LINE - 1), .addr = a, .len = 8,
	                          .thread = RT_PSET_NOBODY, .ctx = HC_NONE, .is_load = true };
	t->watch.pset_edge = k >= 0 ? ((uint32_t)k + 1) << 1 | (uint32_t)side : 0;
	if (pset_arm_set(t, &e, 1, false, 0, &a, 1, true, RT_PSET_EDGE_PAIR, RT_PSET_EDGE_PAIR) == 0) {
		pset_count(&pset.edge_armed);
		if (k >= 0)
			__atomic_add_fetch(&pset.edge_tab[k].armed[side], 1, __ATOMIC_RELAXED);
		t->cnt.watch_armed++;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u edge set on %#llx (block %#llx+%llu, side %d)", t->id.index,
		             (unsigned long long)a, (unsigned long long)b.base, (unsigned long long)b.size, side);
	}
	t->watch.pset_edge = 0;
	return true;
}

/* Poll flags (HPCRUN_COMM_POLL_FLAG, detection.md §5.58). A sampled load
   in a poll loop (hc_decode_poll_loop: a spin wait on a word whose address
   stays, in a loop that writes no data) marks that word its line's flag,
   in a direct-mapped table by line (the word's address | its length <<
   56; benign races: a lost or stale mark is a set not armed or one armed
   as before). The loop test is cached by PC (the PC | POLL_KNOWN |
   POLL_YES). */
#define FLAG_SLOTS 64
#define POLL_SLOTS 64
#define POLL_KNOWN (1ull << 62)
#define POLL_YES (1ull << 63)
#define POLL_MAX_FWD 16
/* A poll-flag set whose entry moved to the owner's store of the flag: the
   owner polls the flag next (mw_spin's worker waits on the word it just
   set), and each of its loads is an own trap until the other thread's
   load comes; it ends after this many (RT_PSET_OWN_MAX: 8, which ended
   every such set before the poller's load on a loaded machine) */
#define FLAG_OWN_MAX 32u
static uint64_t flag_tab[FLAG_SLOTS], poll_cache[POLL_SLOTS];
/* The flag's offset in its line by 16 KiB region (the region's number <<
   16 | offset << 8 | length): an array of mailboxes, one line each, polls
   the same word of every line; a line whose own flag no sample saw yet
   takes its region's (mw_spin -O0: 0-1 poll samples a run). */
#define FLAG_REGION_SHIFT 14
static uint64_t flag_region[FLAG_SLOTS];

static uint32_t flag_slot(uint64_t line)
{
	return (uint32_t)((line >> 6) ^ (line >> 12)) % FLAG_SLOTS;
}

/* Is leaf a poll loop's load (cached)? */
static bool poll_pc(uint64_t leaf)
{
	uint32_t k = (uint32_t)((leaf >> 1) ^ (leaf >> 7)) % POLL_SLOTS;
	uint64_t c = __atomic_load_n(&poll_cache[k], __ATOMIC_RELAXED);
	bool yes;

	if ((c & POLL_KNOWN) && (c & ~(POLL_KNOWN | POLL_YES)) == leaf)
		return (c & POLL_YES) != 0;
	yes = !loadmap__system_code(leaf) && hc_decode_poll_loop(leaf, POLL_MAX_FWD) == 0;
	__atomic_store_n(&poll_cache[k], leaf | POLL_KNOWN | (yes ? POLL_YES : 0), __ATOMIC_RELAXED);
	return yes;
}

/* Note a sample's load of a poll loop's flag. True if it is one. */
static bool flag_note(const struct hc_sample *s, uint64_t leaf)
{
	uint64_t line = s->addr & ~(uint64_t)(HC_LINE - 1);

	if (s->is_store || s->is_private || !s->addr || !leaf || s->len == 0 || s->len > 8 ||
	    (s->addr & 7) + s->len > 8 || s->addr >= (1ull << 56))
		return false;
	if (!poll_pc(leaf))
		return false;
	pset_count(&pset.flag_polls);
	if (__atomic_exchange_n(&flag_tab[flag_slot(line)], s->addr | (uint64_t)s->len << 56, __ATOMIC_RELAXED) !=
	    (s->addr | (uint64_t)s->len << 56))
		pset_count(&pset.flag_noted);
	__atomic_store_n(&flag_region[(s->addr >> FLAG_REGION_SHIFT) % FLAG_SLOTS],
	                 (s->addr >> FLAG_REGION_SHIFT) << 16 | (s->addr & (HC_LINE - 1)) << 8 | s->len,
	                 __ATOMIC_RELAXED);
	return true;
}

/* A poll-loop load's context, the thread's latest (HPCRUN_COMM_POLL_READER). */
static void poll_remember(struct rt_thread *t, uint64_t addr, uint32_t ctx)
{
	if (ctx == HC_NONE)
		return;
	t->watch.poll_region = addr >> FLAG_REGION_SHIFT;
	t->watch.poll_ctx = ctx;
}

/* The flag word of line (its address, 0: none known). */
static uint64_t flag_of(uint64_t line)
{
	uint64_t v = __atomic_load_n(&flag_tab[flag_slot(line)], __ATOMIC_RELAXED);
	uint64_t a = v & ((1ull << 56) - 1);

	if (a && (a & ~(uint64_t)(HC_LINE - 1)) == line)
		return a;
	v = __atomic_load_n(&flag_region[(line >> FLAG_REGION_SHIFT) % FLAG_SLOTS], __ATOMIC_RELAXED);
	if (v && v >> 16 == line >> FLAG_REGION_SHIFT) {
		pset_count(&pset.flag_region);
		return line + ((v >> 8) & (HC_LINE - 1));
	}
	return 0;
}

/* HPCRUN_COMM_POLL_READER (§5.58): the context a thread's load of line
   data next to a polled flag is charged to — its latest poll-loop load's
   in the flag's 16 KiB region, read first when the line came (the data
   read follows the poll that saw the flag) — or HC_NONE (a store, the
   flag's own word, no poll of the region known, the switch off). A
   poll-loop load itself is noted (its flag, and as the thread's latest
   poll, with s->ctx) and answers HC_NONE. Signal context. */
uint32_t watch__poll_reader(struct rt_thread *t, const struct hc_sample *s, uint64_t leaf)
{
	uint64_t f, c;

	if (!hc_rt.opt.poll_reader || s->is_store || !s->addr || s->ctx == HC_NONE)
		return HC_NONE;
	if (flag_note(s, leaf)) {
		poll_remember(t, s->addr, s->ctx);
		return HC_NONE;
	}
	if (t->watch.poll_region != s->addr >> FLAG_REGION_SHIFT || t->watch.poll_ctx == HC_NONE ||
	    !t->watch.poll_region)
		return HC_NONE;
	f = flag_of(s->addr & ~(uint64_t)(HC_LINE - 1));
	c = f & ~(uint64_t)7;
	if (!f || (s->addr < c + 8 && s->addr + s->len > c))
		return HC_NONE;
	pset_count(&pset.flag_reader);
	return t->watch.poll_ctx;
}

/* A gated thread's sampled store next to its line's flag: the
   process-wide set on the flag's 8-byte chunk (read or write), its entry
   the store; the owner's own store of the flag moves the entry there
   (pset_trap). True when the sample went to it. */
static bool flag_arm(struct rt_thread *t, const struct hc_sample *s)
{
	struct hc_bb_entry e;
	uint64_t f, chunk;

	if (!s->is_store || s->is_private || !s->addr || s->ctx == HC_NONE)
		return false;
	f = flag_of(s->addr & ~(uint64_t)(HC_LINE - 1));
	if (!f)
		return false;
	chunk = f & ~(uint64_t)7;
	if (s->addr < chunk + 8 && s->addr + s->len > chunk)
		return false;          /* the flag itself: watched as before */
	e = hc_detect_entry(&t->det, s);
	if (pset_arm_set_l(t, &e, 1, false, 0, &chunk, 1, false, 0, 0, true, false, NULL, NULL, f) == 0) {
		pset_count(&pset.flag_sets);
		t->cnt.watch_armed++;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u poll-flag set: store %#llx+%u, flag %#llx", t->id.index,
		             (unsigned long long)s->addr, s->len, (unsigned long long)f);
	} else {
		pset_count(&pset.flag_refused);
	}
	return true;
}

/* Feather's arm (HPCRUN_COMM_PROCSET_TARGET sample or both): the sampled access of a
   thread the switch gate refuses, watched in every other thread — its
   chunk, and npset - 1 other chunks of the line at random; a load's line
   for writes only. The set's "entry" is the sample itself: a foreign trap
   is a communication with the sampling thread. Signal context. */
void watch__pset_sample(struct rt_thread *t, const struct hc_sample *s, uint64_t leaf)
{
	struct hc_bb_entry e;
	uint64_t addr[HC_MAX_WATCH];
	uint64_t w;
	struct rt_zone zone;
	bool gated, zone_turn;

	watch__pset_tick(t);
	rt_split(t, RT_SPLIT_PTICK);

	/* every access of shared-looking memory says where its thread works,
	   loads of lines not seen before too (a halo's reader) */
	if (pset.n && (hc_rt.opt.procset_target & RT_PSET_TARGET_ZONE) && s->addr &&
	    (!s->is_private || (t->watch.line_heap && hc_rt.opt.procset_zone_unseen))) {
		int r = rt_zone_note(zones, RT_ZONE_SLOTS, t->id.index, s->addr, process__now(), zone_window(),
		                     s->is_store);
		pset_count(r == 1 ? &pset.zone_notes : &pset.zone_collisions);
		if (r == 1 && s->is_store)
			pset_count(&pset.zone_notes_store);
	}
	rt_split(t, RT_SPLIT_ZNOTE);
	if (pset.n && (hc_rt.opt.poll_flag || hc_rt.opt.poll_reader || hc_rt.opt.poll_budget) && !s->is_store &&
	    flag_note(s, leaf))
		poll_remember(t, s->addr, s->ctx);
	rt_split(t, RT_SPLIT_FLAG);
	if (!pset.n || !(hc_rt.opt.procset_target & RT_PSET_TARGET_SAMPLE) || s->is_private ||
	    s->ctx == HC_NONE)
		return;
	/* a thread the gate lets through (its own registers open, or never
	   refused) arms zone sets only, on an idle set
	   (HPCRUN_COMM_PROCSET_ZONE_OPEN: stencil -O0 -t 2, whose workers pass
	   the gate and whose halo no per-thread set watches) */
	gated = !t->watch.opened && t->cnt.watch_threads_gated;
	if (gated)
		pset_note_gated();
	else if (!(hc_rt.opt.procset_zone_open && (hc_rt.opt.procset_target & RT_PSET_TARGET_ZONE) &&
	           watch__pset_idle() &&
	           rt_pset_open_allows(__atomic_load_n(&pset.gated_at, __ATOMIC_RELAXED), process__now(),
	                               RT_PSET_OPEN_QUIET * hc_rt.period)))
		return;
	/* an entry set this thread armed at this very sample goes first */
	w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);
	if (rt_pset_state_of(w) == RT_PSET_ARMED && pset.rec.owner == t->id.index && pset.rec.armed_at &&
	    t->det.armed && pset.rec.armed_at == t->det.armed_at)
		return;
	/* a store next to a poll loop's flag: the flag (§5.58) */
	if (gated && hc_rt.opt.poll_flag && flag_arm(t, s))
		return;
	/* an edge set before the zones, with HPCRUN_COMM_PROCSET_EDGE_FIRST (§5.55) */
	if (gated && hc_rt.opt.procset_edge_first && hc_rt.opt.procset_edge && s->addr && pset_edge(t, s))
		return;
	/* a zone, if two threads' samples meet somewhere (its first trap is
	   its entry: pset_trap), with HPCRUN_COMM_PROCSET_ZONE's chance */
	rt_split(t, RT_SPLIT_GATE);
	zone_turn = (hc_rt.opt.procset_target & RT_PSET_TARGET_ZONE) &&
	            (rt_zone_rng(&t->det.rng) & 3) < hc_rt.opt.procset_zone;
	/* a zone set the arm would refuse: no pick, and nothing after it
	   (the sampled line's set below waits for the same budget), unless
	   an edge set may follow on its own budget */
	if (zone_turn && hc_rt.opt.pset_precheck && !(gated && hc_rt.opt.procset_edge && !hc_rt.opt.procset_edge_first) &&
	    pset_zone_refused(t)) {
		pset_count(&pset.zone_skipped);
		return;
	}
	if (zone_turn &&
	    rt_zone_pick_e(zones, RT_ZONE_SLOTS, process__now(), zone_window(),
	                 hc_rt.opt.procset_zone_narrow && !hc_rt.opt.procset_zone_cap,
	                 hc_rt.opt.procset_zone_writer, hc_rt.opt.procset_zone_edge, hc_rt.opt.procset_zone_spread ? &zone_found : NULL, &t->det.rng, &addr[0], &zone)) {
		rt_split(t, RT_SPLIT_ZPICK);
		pset_count(&pset.zone_asked);
		if (hc_rt.opt.procset_zone_narrow && !hc_rt.opt.procset_zone_cap &&
		    !rt_zone_arm_thin(&zone, rt_zone_rng(&t->det.rng))) {
			pset_count(&pset.zone_thinned);
			return;
		}
		/* HPCRUN_COMM_PROCSET_ZONE_CAP (§5.64): every zone armed, a wide
		   one weighing at most the cap (thinning's expected weight, without
		   its variance) */
		zone.stands = rt_zone_stands_cap(zone.stands, hc_rt.opt.procset_zone_cap);
		/* HPCRUN_COMM_PROCSET_ZONE_OVERLAP_CAP (§5.73): an overlap, never
		   thinned, stands for at most what a thinned gap's pick does */
		if (zone.overlap && zone.stands > rt_zone_overlap_stands(zone.stands, true,
		                                                         hc_rt.opt.procset_zone_overlap_cap)) {
			zone.stands = rt_zone_overlap_stands(zone.stands, true, hc_rt.opt.procset_zone_overlap_cap);
			pset_count(&pset.zone_overlap_capped);
		}
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u zone of T%u and T%u: block %#llx lines %u..%u (%s), watching %#llx "
		             "(stands for %u lines)", t->id.index, zone.a, zone.b, (unsigned long long)zone.base,
		             zone.z0, zone.z1, zone.overlap ? "overlap" : "gap", (unsigned long long)addr[0], zone.stands);
		e = (struct hc_bb_entry){ .line = addr[0] & ~(uint64_t)(HC_LINE - 1), .addr = addr[0], .len = 8,
		                          .thread = RT_PSET_NOBODY, .ctx = HC_NONE, .is_load = true };
		/* chosen among the zone's lines, the set stands for all of them
		   (as an entry set for its candidates: a trap weighs the period
		   times the lines), scaled by how much more often than its share
		   a narrow zone is picked (zone.h); a thread with registers of
		   its own, with HPCRUN_COMM_PROCSET_ZONE_OPEN_LINES=0, one line
		   (its per-thread sets cover the zone's published lines: §5.31) */
		if (!gated && !hc_rt.opt.procset_zone_open_lines)
			zone.stands = 1;
		/* a cross-edge zone kept to the edge, with HPCRUN_COMM_PROCSET_ZONE_EDGE_ONE: one line (§5.43) */
		if (zone.cross && hc_rt.opt.procset_zone_edge && hc_rt.opt.procset_zone_edge_one)
			zone.stands = 1;
		int zr = pset_arm_set(t, &e, zone.stands, false, 0, addr, 1, true, zone.a, zone.b);
		rt_split(t, zr == 0 ? RT_SPLIT_ZARM : RT_SPLIT_ZREFUSED);
		if (zr == 0) {
			pset_count(&pset.zone_armed);
			if (!rt_zone_found_get(&zone_found, zone.a, zone.b))
				pset_count(&pset.zone_armed_new);
			if (!gated)
				pset_count(&pset.zone_open);
			__atomic_add_fetch(&pset.zone_lines, zone.z1 - zone.z0 + 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&pset.zone_stands, zone.stands, __ATOMIC_RELAXED);
			t->cnt.watch_armed++;
		}
		return;
	}
	if (!gated)
		return;
	/* an edge word of the thread's own block instead, with
	   HPCRUN_COMM_PROCSET_EDGE's chance (§5.55) */
	if (hc_rt.opt.procset_edge && !hc_rt.opt.procset_edge_first && s->addr && pset_edge(t, s))
		return;
	/* Feather's arm on the sampled access: only on a line this thread
	   sampled before (a slot, counter or queue index comes back; a private
	   array's line rarely does, and a set on it is 8 own traps of the
	   budget: stencil's sets, all on private rows, spent it before its
	   zones were known) */
	if ((hc_rt.opt.procset_target & RT_PSET_TARGET_ZONE) && !t->watch.line_seen) {
		pset_count(&pset.sample_unseen);
		return;
	}
	rt_split(t, RT_SPLIT_ZPICK);
	e = hc_detect_entry(&t->det, s);
	hc_detect_set_chunks(&t->det, &e, (uint32_t)pset.n, addr);
	if (pset_arm_set(t, &e, 1, e.is_load, 0, addr, (uint32_t)pset.n, false, 0, 0) == 0)
		t->cnt.watch_armed++;
	rt_split(t, RT_SPLIT_FEATHER);
}

/* Is the process-wide set open and idle (nothing armed, nobody arming)? */
bool watch__pset_idle(void)
{
	return pset.n > 0 && rt_pset_state_of(__atomic_load_n(&pset.state, __ATOMIC_ACQUIRE)) == RT_PSET_IDLE;
}

/* One more line of a start set (soft.c, soft__start_set): a peer's
   publication that the thread's own registers have no room for, watched
   by the process-wide set (read and write, as a start set) while it is
   idle; a trap of another thread than the publisher is a communication
   with it, weighing `mult` periods (what the start set's choice makes it
   stand for). Not in signal context (the thread's start). False when the
   set was not armed (taken meanwhile, or its budget spent): the line is
   not watched. watch__pset_start_exempt: the same without waiting for
   the budget (HPCRUN_COMM_START_EXEMPT; the cost is still charged). */
static bool pset_start(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t mult, uint64_t addr, bool budget,
                       const uint64_t *block)
{
	if (!watch__pset_idle())
		return false;
	if (pset_arm_set_x(t, e, mult ? mult : 1, false, 0, &addr, 1, false, 0, 0, budget, false, block) == 0) {
		uint64_t w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);

		/* still ours (no other thread ended or re-armed it meanwhile) */
		if (rt_pset_state_of(w) == RT_PSET_ARMED && pset.rec.owner == t->id.index &&
		    pset.rec.watched.line == e->line && __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE) == w)
			__atomic_store_n(&pset.start_word, w, __ATOMIC_RELAXED);
		pset_count(&pset.start_armed);
		t->cnt.watch_armed++;
		return true;
	}
	pset_count(&pset.start_failed);
	return false;
}

bool watch__pset_start(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t mult, uint64_t addr)
{
	return pset_start(t, e, mult, addr, true, NULL);
}

bool watch__pset_start_exempt(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t mult, uint64_t addr)
{
	return pset_start(t, e, mult, addr, false, NULL);
}

/* A creator's block line (soft.c, start_set_block): a start line on the
   idle set, in heap block [lo, hi), which starts a hand-off chain when
   HPCRUN_COMM_START_CHAIN allows one (pset.h): its traps arm the next
   line of the block. Not in signal context (the thread's start). */
bool watch__pset_start_block(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t mult, uint64_t addr,
                             uint64_t lo, uint64_t hi)
{
	uint64_t block[2] = { lo, hi };

	if (!hc_rt.opt.start_chain)
		return pset_start(t, e, mult, addr, true, NULL);
	/* before the arm (a trap may come before it returns): a new chain, or
	   the same creator's chain goes on with one thread more to find */
	if (rt_pset_chain_carries(__atomic_load_n(&pset.chain_creator, __ATOMIC_RELAXED), e->thread,
	                          __atomic_load_n(&pset.chain_at, __ATOMIC_RELAXED), process__now(),
	                          RT_PSET_LIFE * hc_rt.period)) {
		__atomic_add_fetch(&pset.chain_want, 1, __ATOMIC_RELAXED);
		pset_count(&pset.chain_carried);
	} else {
		__atomic_store_n(&pset.chain_creator, e->thread, __ATOMIC_RELAXED);
		__atomic_store_n(&pset.chain_found, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&pset.chain_want, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&pset.chain_ntraps, 0, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&pset.chain_rearms, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&pset.chain_at, process__now(), __ATOMIC_RELAXED);
	if (!pset_start(t, e, mult, addr, true, block))
		return false;
	pset_count(&pset.chain_started);
	return true;
}

/* A child of `creator` that found the set not ready for its block line:
   if a line of that creator's chain is armed, the chain wants one more
   thread (pset.h). Not in signal context (the thread's start). */
bool watch__pset_chain_wait(uint32_t creator)
{
	uint64_t w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE), t0 = process__now();
	bool chained;

	if (!pset.n || !hc_rt.opt.start_chain || __atomic_load_n(&pset_retired, __ATOMIC_ACQUIRE))
		return false;
	/* being armed (a sibling's block line, most often: the children
	   start together): what it becomes decides, within the arm's p99 */
	while (rt_pset_state_of(w) == RT_PSET_BUSY && process__now() - t0 < RT_PSET_CHAIN_SETTLE_NS) {
		sched_yield();
		w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);
	}
	if (rt_pset_state_of(w) != RT_PSET_ARMED)
		return false;
	chained = pset.rec.block_lo && pset.rec.watched.thread == creator;
	if (!chained || __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE) != w)
		return false;
	__atomic_add_fetch(&pset.chain_want, 1, __ATOMIC_RELAXED);
	pset_count(&pset.chain_waiting);
	return true;
}

/* A foreign trap of a creator's block line in thread t, which ended the
   set (pset_trap): note t among the chain's finds, and arm the set on
   another line of the block while the chain goes on (pset.h). e: the
   trapped set's entry (the creator's store), mult: what it stands for.
   False when t was found already: no second communication. Signal
   context: atomics, mincore and the set's ioctls. */
static bool chain_trap(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t mult, uint64_t lo, uint64_t hi,
                       uint64_t trap_addr)
{
	uint64_t found = __atomic_fetch_or(&pset.chain_found, rt_pset_chain_bit(t->id.index), __ATOMIC_RELAXED);
	bool repeat = rt_pset_chain_repeat(found, t->id.index);
	uint32_t rearms = __atomic_load_n(&pset.chain_rearms, __ATOMIC_RELAXED);
	uint64_t block[2] = { lo, hi }, off = e->addr - e->line, line = 0, r[RT_PSET_CHAIN_DRAWS];
	uint64_t traps[RT_PSET_CHAIN_TRAPS];
	uint32_t ntraps = __atomic_fetch_add(&pset.chain_ntraps, 1, __ATOMIC_RELAXED);
	struct hc_bb_entry next;

	if (ntraps < RT_PSET_CHAIN_TRAPS)
		__atomic_store_n(&pset.chain_traps[ntraps], trap_addr, __ATOMIC_RELAXED);
	ntraps = ntraps + 1 < RT_PSET_CHAIN_TRAPS ? ntraps + 1 : RT_PSET_CHAIN_TRAPS;
	for (uint32_t k = 0; k < ntraps; k++)
		traps[k] = __atomic_load_n(&pset.chain_traps[k], __ATOMIC_RELAXED);
	pset_count(repeat ? &pset.chain_repeat : &pset.chain_new);
	__atomic_store_n(&pset.chain_at, process__now(), __ATOMIC_RELAXED);
	found |= rt_pset_chain_bit(t->id.index);
	if (!rt_pset_chain_goes_on(found, __atomic_load_n(&pset.chain_want, __ATOMIC_RELAXED), rearms,
	                           hc_rt.opt.start_chain)) {
		pset_count(rearms >= hc_rt.opt.start_chain ? &pset.chain_max : &pset.chain_done);
		return !repeat;
	}
	for (int i = 0; i < 4 && !line; i++) {
		for (uint32_t k = 0; k < RT_PSET_CHAIN_DRAWS; k++)
			r[k] = rt_zone_rng(&t->det.rng);
		line = rt_pset_chain_pick(lo, hi, HC_LINE, r, hc_rt.opt.start_chain_spread ? RT_PSET_CHAIN_DRAWS : 1,
		                          traps, ntraps);
		if (line == e->line || (line && rt_page_resident(line) != 1))
			line = 0;
	}
	next = *e;
	next.line = line;
	next.addr = line + off;
	__atomic_add_fetch(&pset.chain_rearms, 1, __ATOMIC_RELAXED);
	if (!line || !watch__pset_idle() ||
	    pset_arm_set_x(t, &next, mult, false, 0, &next.addr, 1, false, 0, 0, true, false, block) != 0) {
		pset_count(&pset.chain_dropped);
		return !repeat;
	}
	{
		uint64_t w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);

		if (rt_pset_state_of(w) == RT_PSET_ARMED && pset.rec.watched.line == line &&
		    __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE) == w)
			__atomic_store_n(&pset.start_word, w, __ATOMIC_RELAXED);
	}
	pset_count(&pset.chain_armed);
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u chain of T%u's block: next line %#llx (%u re-arms)", t->id.index, e->thread,
	             (unsigned long long)next.addr, rearms + 1);
	return !repeat;
}

/* May a start set count on the set for one more line now: idle, and its
   budget not spent (pset_arm_set's tests; it may still be taken
   meanwhile)? A start set that chose D + 1 publishers while the budget
   was spent lost the last one's line, and the late start set took that
   publisher for watched (Session 14: in 5 of 8 runs of generations -t 4
   every such arm failed). */
bool watch__pset_start_ready(void)
{
	return watch__pset_idle() &&
	       rt_pset_budget_allows(__atomic_load_n(&pset.spent_ns, __ATOMIC_RELAXED), process_cpu_ns(),
	                             hc_rt.opt.procset_budget, RT_PSET_GRACE_NS);
}

/* The publisher of the line a start set's extra line keeps watched on the
   process-wide set now (watch__pset_start), HC_NONE when the set holds
   something else or nothing: every thread's copy watches that line, and a
   trap of any thread but the publisher is a communication with it, so a
   thread that starts meanwhile (a sibling of the same generation) leaves
   that publisher to the set and spends its own registers on the others
   (soft.c, soft__start_set; detection.md §5.15, "Session 14"). Counts the
   start set that does (`shared`). */
uint32_t watch__pset_start_peer(bool shared)
{
	uint64_t w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);
	uint32_t p;

	if (!pset.n || rt_pset_state_of(w) != RT_PSET_ARMED || w != __atomic_load_n(&pset.start_word, __ATOMIC_RELAXED))
		return HC_NONE;
	p = pset.rec.watched.thread;
	if (__atomic_load_n(&pset.state, __ATOMIC_ACQUIRE) != w)
		return HC_NONE;
	if (shared)
		pset_count(&pset.start_shared);
	return p;
}

static int pset_arm_set(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t candidates,
                        bool writes_only, uint64_t armed_at, const uint64_t *addr, uint32_t n, bool zone,
                        uint32_t za, uint32_t zb)
{
	return pset_arm_set_x(t, e, candidates, writes_only, armed_at, addr, n, zone, za, zb, true, false, NULL);
}

/* budget false: the arm does not wait for the budget (its cost is still
   charged to it); exec: an execute breakpoint on addr[0] (a return
   address), one register; block: {lo, hi} of a creator's block line (its
   chain's block, pset.h), else NULL */
struct pset_lock_arg {
	uint32_t slot;
	uint64_t lo, changed, weight;
	uint8_t bytes;
	bool reader;                  /* not a lock set: a reader set (§5.57) of that weight (a load's; a
	                                 store's weight_store), owned by nobody */
	uint64_t weight_store;
	bool acq;                     /* a lock set armed at its hand-off's acquisition (§5.61): */
	uint32_t owner;               /* ... the releaser owns it (the acquirer's trap is foreign) */
};

static int pset_arm_set_l(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t candidates,
                          bool writes_only, uint64_t armed_at, const uint64_t *addr, uint32_t n, bool zone,
                          uint32_t za, uint32_t zb, bool budget, bool exec, const uint64_t *block,
                          const struct pset_lock_arg *lk, uint64_t flag);

static int pset_arm_set_x(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t candidates,
                          bool writes_only, uint64_t armed_at, const uint64_t *addr, uint32_t n, bool zone,
                          uint32_t za, uint32_t zb, bool budget, bool exec, const uint64_t *block)
{
	return pset_arm_set_l(t, e, candidates, writes_only, armed_at, addr, n, zone, za, zb, budget, exec, block,
	                      NULL, 0);
}

/* A lock set on the process-wide set (lock.c, detection.md §5.38): one
   word of a lock's neighbourhood, for its releaser's entry e, on an idle
   set within its budget; not in signal context (the unlock wrapper, under
   the thread's guard). */
int watch__pset_lock(struct rt_thread *t, const struct hc_bb_entry *e, uint64_t addr, uint32_t slot, uint64_t lo,
                     uint64_t changed, uint8_t bytes, uint64_t weight, uint32_t owner)
{
	struct pset_lock_arg lk = { .slot = slot, .lo = lo, .changed = changed, .bytes = bytes, .weight = weight,
	                            .acq = owner != HC_NONE, .owner = owner };
	int r;

	uint64_t t0;

	if (!pset.n)
		return -ENODEV;
	if (!watch__pset_idle())
		return -EBUSY;
	/* a budget of their own (HPCRUN_COMM_LOCK_PSET_BUDGET, permille of the
	   process's CPU time): the regular sets' may be spent by gated
	   threads' samples that find nothing (lock_queue: 20 a run, no trap);
	   still charged to the set's budget too (what it cost) */
	if (!rt_pset_budget_allows(__atomic_load_n(&pset.lock_spent_ns, __ATOMIC_RELAXED), process_cpu_ns(),
	                           hc_rt.opt.lock_pset_budget, RT_PSET_GRACE_NS))
		return -EAGAIN;
	t0 = process__now();
	r = pset_arm_set_l(t, e, 1, false, 0, &addr, 1, false, 0, 0, false, false, NULL, &lk, 0);
	__atomic_add_fetch(&pset.lock_spent_ns, process__now() - t0 + RT_PSET_TRAP_NS, __ATOMIC_RELAXED);
	if (r == 0)
		t->cnt.watch_armed++;
	return r;
}

/* A reader set (HPCRUN_COMM_READER_SETS, detection.md §5.57): a sampled
   store in a heap block [lo, hi), in a process whose lock sets have seen a
   hand-off, and the chunk after it in its line (hc_reader_chunk: a sweep's
   next element) watched by the idle process-wide set: mw_cond's results,
   one double a task, each read by main when its task is handed out (stale
   if no worker has stored it yet) and written beside the others' by the
   worker that took it. The entry is the store; the publisher's own later
   store of the chunk becomes the entry (pset_trap): the next access by
   another thread is then a communication judged as exact mode's last
   writer rule judges the line's move — a read before the element was
   written false, after it true, another writer's store beside it false.
   Owned by nobody (the writer's next sample does not end it); not in a
   block that holds a mutex (lock__in_block: the lock sets'). A trap
   weighs what a lock set's trap weighs per transfer (HPCRUN_COMM_LOCK_NS):
   times the lines the store's instruction wrote since the thread's last
   reader set when a reader's load trapped (a line moves once to its
   reader), times its elements when another writer's store did (writers
   taking turns in a line move it at each element): the lock sets' scale,
   not a period's (hc_reader_count). Signal context. */
void watch__pset_reader(struct rt_thread *t, const struct hc_sample *s, uint64_t leaf, uint64_t lo, uint64_t hi)
{
	struct pset_lock_arg rd = { .reader = true };
	struct hc_bb_entry e;
	uint64_t addr, ns = hc_rt.opt.lock_ns ? hc_rt.opt.lock_ns : 1, t0;
	uint32_t len = s->len ? s->len : 1;
	int r;

	if (!hc_rt.opt.reader_sets || !pset.n || !s->is_store || s->is_private || s->ctx == HC_NONE ||
	    s->addr < lo || s->addr >= hi || !lock__seen())
		return;
	t->cnt.reader_asked++;
	addr = hc_reader_chunk(s->addr, len);
	if (!addr || addr >= hi) {
		t->cnt.reader_edge++;        /* the line's last element */
		return;
	}
	if (!watch__pset_idle()) {
		t->cnt.reader_busy++;
		return;
	}
	/* a program whose swept lines nobody else touches (pigz's buffers:
	   26-82 sets a run, no communication) keeps the set from the others:
	   after RT_READER_DRY sets without a communication, one ask in
	   RT_READER_DRY arms */
	if (!rt_reader_allows(__atomic_load_n(&pset.reader_dry, __ATOMIC_RELAXED), t->cnt.reader_asked)) {
		t->cnt.reader_dry++;
		return;
	}
	/* a block holding a mutex is the lock sets' (lock_queue's queue: its
	   items' next element is judged by the indices beside them, which
	   one watched element does not see) */
	if (lock__in_block(lo, hi)) {
		t->cnt.reader_lock_block++;
		return;
	}
	/* a budget of their own, as the lock sets' (HPCRUN_COMM_READER_BUDGET,
	   permille of the process's CPU time): the regular one is spent by the
	   switches of a process that blocks on its locks (mw_cond -O2 -t 2: 183
	   of 202 sets refused over it); still charged to it too */
	if (!rt_pset_budget_allows(__atomic_load_n(&pset.reader_spent_ns, __ATOMIC_RELAXED), process_cpu_ns(),
	                           hc_rt.opt.reader_budget, RT_PSET_GRACE_NS)) {
		t->cnt.reader_budget++;
		return;
	}
	/* the entry as published (its byte mask), else the sample's own */
	if (!hc_bulletin_lookup(&hc_rt.bb, s->addr & ~(uint64_t)(HC_LINE - 1), &e) ||
	    e.thread != t->id.index || e.time != s->time) {
		e = hc_detect_entry(&t->det, s);
		e.mask = hc_line_bytes(e.line, s->addr, len);
	}
	rd.weight = ns * hc_reader_count(t->reader.pc, t->reader.addr, leaf, s->addr, lo, hi, HC_LINE);
	rd.weight_store = ns * hc_reader_count(t->reader.pc, t->reader.addr, leaf, s->addr, lo, hi, len);
	/* HPCRUN_COMM_READER_SCALE: on the lock traps' scale as their caps
	   make it, the share of the hand-offs they weigh */
	if (hc_rt.opt.reader_scale) {
		uint64_t wd, tot;

		lock__scale(&wd, &tot);
		if (tot > 0 && wd < tot) {
			rd.weight = hc_reader_scaled(rd.weight, wd, tot);
			rd.weight_store = hc_reader_scaled(rd.weight_store, wd, tot);
		}
	}
	t0 = process__now();
	r = pset_arm_set_l(t, &e, 1, false, 0, &addr, 1, false, 0, 0, false, false, NULL, &rd, 0);
	__atomic_add_fetch(&pset.reader_spent_ns, process__now() - t0 + RT_PSET_TRAP_NS, __ATOMIC_RELAXED);
	if (r != 0)
		return;
	t->cnt.reader_armed++;
	t->cnt.watch_armed++;
	__atomic_add_fetch(&pset.reader_dry, 1, __ATOMIC_RELAXED);
	t->reader.pc = leaf;
	t->reader.addr = s->addr;
}

/* A feed set (§5.68, soft.c feed_loop): the load s that feeds a
   register-only loop, its line watched for writes by the idle
   process-wide set, the load the entry: the next store there by another
   thread (the master writing the next task's input) traps with its own
   context, a communication with the load's. On a budget of its own. 0
   when armed (counted: feed_armed, watch_armed). Signal context. */
int watch__pset_feed(struct rt_thread *t, const struct hc_sample *s, uint32_t stands)
{
	struct hc_bb_entry e;
	uint64_t addr = s->addr & ~(uint64_t)7, t0;
	int r;

	if (!pset.n || !watch__pset_idle()) {
		t->cnt.feed_busy++;
		return -EBUSY;
	}
	/* a program whose loops' inputs nobody writes again (a solver's
	   read-only matrix) keeps the set from the others: after
	   RT_READER_DRY sets without a communication, one ask in
	   RT_READER_DRY arms (the reader sets' rule) */
	if (!rt_reader_allows(__atomic_load_n(&pset.feed_dry, __ATOMIC_RELAXED), t->cnt.feed_asked)) {
		t->cnt.feed_dry++;
		return -EAGAIN;
	}
	/* a budget of their own (HPCRUN_COMM_FEED_BUDGET): the regular one
	   is the gated threads' own sets' (the pool's workers switch at
	   every task and spend it) */
	if (!rt_pset_budget_allows(__atomic_load_n(&pset.feed_spent_ns, __ATOMIC_RELAXED), process_cpu_ns(),
	                           hc_rt.opt.feed_budget, RT_PSET_GRACE_NS)) {
		t->cnt.feed_budget++;
		return -EAGAIN;
	}
	e = hc_detect_entry(&t->det, s);
	e.mask = hc_line_bytes(e.line, s->addr, s->len ? s->len : 1);
	t0 = process__now();
	t->watch.pset_feed = true;
	t->watch.pset_feed_stands = stands;
	r = pset_arm_set_x(t, &e, 1, true, s->time, &addr, 1, false, 0, 0, false, false, NULL);
	t->watch.pset_feed = false;
	__atomic_add_fetch(&pset.feed_spent_ns, process__now() - t0 + RT_PSET_TRAP_NS, __ATOMIC_RELAXED);
	if (r == 0) {
		__atomic_add_fetch(&pset.feed_dry, 1, __ATOMIC_RELAXED);
		t->cnt.feed_armed++;
		t->cnt.feed_stood += stands ? stands : 1;
		t->cnt.watch_armed++;
	}
	return r;
}

/* A set's trapped access becomes its new entry (reader_adopt,
   zone_adopt): shared, now, on this CPU, with its calling context; false
   when the walk faulted. Signal context. */
static bool adopt_access(struct rt_thread *t, void *uctx, uint64_t leaf, struct hc_sample *s)
{
	s->is_private = false;
	s->time = process__now();
	s->cpu = regs__cpu();
	s->ctx = cct__context(t, uctx, leaf);
	return s->ctx != HC_NONE;
}

/* A reader set's publisher stored the watched chunk: that store is the
   entry from now on (§5.57), under a new generation. Signal context. */
static void reader_adopt(struct rt_thread *t, uint64_t w, void *uctx, uint64_t leaf, struct hc_sample *s)
{
	uint64_t gen = rt_pset_gen_of(w), busy = rt_pset_word(gen, RT_PSET_BUSY), next;
	struct hc_bb_entry e;

	if (!adopt_access(t, uctx, leaf, s))
		return;
	e = hc_detect_entry(&t->det, s);
	e.mask = hc_line_bytes(e.line, s->addr, s->len ? s->len : 1);
	if (!__atomic_compare_exchange_n(&pset.state, &w, busy, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	pset.rec.watched = e;
	/* HPCRUN_COMM_READER_CHASE: on to the next element of the line, not yet
	   written — whoever touches it first says what exact mode's last
	   writer rule would: another writer's store, or a read before it is
	   written, false; the line's last element stays watched for its
	   reader (true) */
	next = hc_rt.opt.reader_chase ? hc_reader_chunk(s->addr, s->len ? s->len : 1) : 0;
	if (next && pset.enabled[0]) {
		uint64_t t0 = process__now(), was = pset.attr[0].bp_addr;

		pset.attr[0].bp_addr = next;
		if (pset_modify(0) < 0) {
			pset.attr[0].bp_addr = was;
		} else {
			pset.rec.addr[0] = next;
			t->cnt.reader_chased++;
		}
		__atomic_add_fetch(&pset.reader_spent_ns, process__now() - t0, __ATOMIC_RELAXED);
		__atomic_add_fetch(&pset.spent_ns, process__now() - t0, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&pset.state, rt_pset_word(gen + 1, RT_PSET_ARMED), __ATOMIC_RELEASE);
	t->cnt.reader_adopts++;
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u reader set entry: store %#llx+%u", t->id.index, (unsigned long long)s->addr,
	             s->len);
}

static int pset_arm_set_l(struct rt_thread *t, const struct hc_bb_entry *e, uint32_t candidates,
                          bool writes_only, uint64_t armed_at, const uint64_t *addr, uint32_t n, bool zone,
                          uint32_t za, uint32_t zb, bool budget, bool exec, const uint64_t *block,
                          const struct pset_lock_arg *lk, uint64_t flag)
{
	uint32_t type = exec ? HW_BREAKPOINT_X : writes_only ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;
	uint64_t w, now = process__now(), t0, ns, gen;
	uint32_t m = n < (uint32_t)pset.n ? n : (uint32_t)pset.n;
	int err = 0;
	bool via_poll = false, via_edge = false;

	w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);
	if (!rt_pset_may_arm(rt_pset_state_of(w), pset.rec.owner, t->id.index, pset.rec.armed_wall, now,
	                     pset_min_age())) {
		pset_count(&pset.refused_busy);
		return -EAGAIN;
	}
	if (budget && !rt_pset_budget_allows(__atomic_load_n(&pset.spent_ns, __ATOMIC_RELAXED), process_cpu_ns(),
	                                     hc_rt.opt.procset_budget, RT_PSET_GRACE_NS)) {
		/* an edge set while edge sets communicate: a budget of their own (§5.64) */
		if (zone && za == RT_PSET_EDGE_PAIR && hc_rt.opt.procset_edge_budget &&
		    rt_pset_edge_productive(__atomic_load_n(&pset.edge_armed, __ATOMIC_RELAXED),
		                            __atomic_load_n(&pset.edge_comms, __ATOMIC_RELAXED)) &&
		    rt_pset_budget_allows(__atomic_load_n(&pset.edge_spent_ns, __ATOMIC_RELAXED), process_cpu_ns(),
		                          hc_rt.opt.procset_edge_budget, 0)) {
			via_edge = true;
		/* a polled flag's line: a budget of its own (§5.58) */
		} else if (!hc_rt.opt.poll_budget || exec || !flag_of(addr[0] & ~(uint64_t)(HC_LINE - 1)) ||
		    !rt_pset_budget_allows(__atomic_load_n(&pset.poll_spent_ns, __ATOMIC_RELAXED), process_cpu_ns(),
		                           hc_rt.opt.poll_budget, RT_PSET_GRACE_NS)) {
			pset_count(&pset.refused_budget);
			return -EAGAIN;
		} else {
			via_poll = true;
		}
	}
	gen = rt_pset_gen_of(w) + 1;
	if (!__atomic_compare_exchange_n(&pset.state, &w, rt_pset_word(gen, RT_PSET_BUSY), false,
	                                 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		pset_count(&pset.refused_busy);
		return -EAGAIN;
	}
	if (rt_pset_state_of(w) == RT_PSET_ARMED) {       /* replaced: its owner's next set, or aged */
		uint64_t c = pset_armed_cost();

		pset_count(pset.rec.owner == t->id.index ? &pset.ended_owner : &pset.ended_age);
		__atomic_add_fetch(&pset.spent_ns, c, __ATOMIC_RELAXED);
		if (pset.rec.edge_extra)
			__atomic_add_fetch(&pset.edge_spent_ns, c, __ATOMIC_RELAXED);
	}
	pset.rec.owner = t->id.index;
	pset.rec.nwatch = m;
	pset.rec.candidates = candidates;
	pset.rec.writes_only = writes_only;
	pset.rec.zone = zone;
	pset.rec.zone_a = za;
	pset.rec.zone_b = zb;
	pset.rec.adopts = 0;
	pset.rec.edge_pc = 0;
	pset.rec.edge_mem = zone && za == RT_PSET_EDGE_PAIR ? t->watch.pset_edge : 0;
	pset.rec.edge_extra = via_edge;
	pset.rec.pipe = false;
	pset.rec.exec = exec;
	pset.rec.block_lo = block ? block[0] : 0;
	pset.rec.block_hi = block ? block[1] : 0;
	pset.rec.armed_at = armed_at;
	pset.rec.armed_wall = now;
	pset.rec.watched = *e;
	for (uint32_t i = 0; i < m; i++)
		pset.rec.addr[i] = addr[i];
	pset.rec.reader = lk && lk->reader;
	pset.rec.reader_weight = lk && lk->reader ? lk->weight : 0;
	pset.rec.reader_weight_store = lk && lk->reader ? lk->weight_store : 0;
	if (pset.rec.reader)
		pset.rec.owner = RT_PSET_NOBODY;    /* its arming thread's next sample leaves it be */
	if (pset.rec.reader)
		lk = NULL;
	if (lk && lk->acq)
		pset.rec.owner = lk->owner;         /* armed by its acquirer for the releaser (§5.61) */
	pset.rec.lock = lk != NULL;
	pset.rec.lock_slot = lk ? lk->slot : 0;
	pset.rec.lock_lo = lk ? lk->lo : 0;
	pset.rec.lock_changed = lk ? lk->changed : 0;
	pset.rec.lock_weight = lk ? lk->weight : 0;
	pset.rec.lock_bytes = lk ? lk->bytes : 0;
	pset.rec.flag = flag;
	pset.rec.flag_moved = false;
	pset.rec.handoff = t->watch.pset_handoff;   /* a gated thread's hand-off set (§5.60) */
	pset.rec.feed = t->watch.pset_feed;         /* a feed set (§5.68): its loop's thread leaves it be */
	pset.rec.feed_stands = t->watch.pset_feed ? t->watch.pset_feed_stands : 0;
	if (pset.rec.handoff || pset.rec.feed)
		pset.rec.owner = RT_PSET_NOBODY;
	__atomic_store_n(&pset.own_traps, 0, __ATOMIC_RELAXED);
	t0 = process__now();
	for (uint32_t i = 0; i < m; i++) {
		pset.attr[i].bp_addr = addr[i];
		pset.attr[i].bp_type = type;
		pset.attr[i].disabled = 0;
		if ((err = pset_modify((int)i)) < 0) {
			pset.attr[i].disabled = 1;
			break;
		}
		pset.enabled[i] = true;
	}
	if (err) {
		pset_off();
		pset_count(&pset.arm_failed);
		__atomic_store_n(&pset.state, rt_pset_word(gen, RT_PSET_IDLE), __ATOMIC_RELEASE);
		return err;
	}
	pset_disable_from((int)m);
	ns = process__now() - t0;
	__atomic_add_fetch(&pset.spent_ns, ns, __ATOMIC_RELAXED);
	pset_cost_add(&pset.cost_arm, ns);
	if (via_poll) {
		__atomic_add_fetch(&pset.poll_spent_ns, ns + RT_PSET_TRAP_NS, __ATOMIC_RELAXED);
		pset_count(&pset.poll_budget_arms);
	}
	if (via_edge) {
		__atomic_add_fetch(&pset.edge_spent_ns, ns, __ATOMIC_RELAXED);
		pset_count(&pset.edge_extra_arms);
	}
	process_switches(&pset.sw_armed, &pset.sw_armed_inv);
	pset_count(&pset.armed);
	__atomic_store_n(&pset.state, rt_pset_word(gen, RT_PSET_ARMED), __ATOMIC_RELEASE);
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u armed the process-wide set on %#llx (%u registers, %llu ns)",
	             t->id.index, (unsigned long long)addr[0], m, (unsigned long long)ns);
	return 0;
}

/* A pipeline set (pipe.c, pipe.h; detection.md §5.18): the predicted next
   hand-off of `writer`'s strided sequence of synchronizing stores, armed on
   an idle set as a zone set (its first trap is its entry; another thread
   with a store on either side is one communication, weighing one period)
   between the writer and the line's reader, weighing a period times the
   rows it stands for (pipe.h) — and owned by nobody, so that
   the arming thread's next sample does not end it: it ends at its
   communication, by own traps, or aged (RT_PSET_LIFE), and may be taken
   once RT_PSET_LIFE / 2 periods old. Signal context. */
int watch__pset_pipe(struct rt_thread *t, uint64_t addr, uint32_t writer, uint32_t stands)
{
	struct hc_bb_entry e;
	uint64_t w, busy;
	int r;

	w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);
	/* a zone set (a guess where two threads' samples meet) gives way to a
	   predicted hand-off (HPCRUN_COMM_PIPE_OVER_ZONE) */
	if (hc_rt.opt.pipe_over_zone && pset.n && rt_pset_state_of(w) == RT_PSET_ARMED && pset.rec.zone &&
	    !pset.rec.pipe && pset_end(w, &pset.ended_age))
		pipe__over_zone();
	if (!watch__pset_idle())
		return -EBUSY;     /* another set armed: counted apart from the budget's refusals */
	addr &= ~(uint64_t)7;
	e = (struct hc_bb_entry){ .line = addr & ~(uint64_t)(HC_LINE - 1), .addr = addr, .len = 8,
	                          .thread = RT_PSET_NOBODY, .ctx = HC_NONE, .is_load = true };
	r = pset_arm_set(t, &e, stands, false, 0, &addr, 1, true, writer, t->id.index);
	if (r)
		return r;
	t->cnt.watch_armed++;
	/* not the arming thread's: its next sample (pset_expire) leaves it be */
	w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);
	busy = rt_pset_word(rt_pset_gen_of(w), RT_PSET_BUSY);
	if (rt_pset_state_of(w) == RT_PSET_ARMED && pset.rec.owner == t->id.index && !pset.rec.adopts &&
	    __atomic_compare_exchange_n(&pset.state, &w, busy, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		pset.rec.owner = RT_PSET_NOBODY;
		pset.rec.pipe = true;
		__atomic_store_n(&pset.state, w, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Thread t's own set is over (its next sample, a blocked trap, the
   thread masking signals): the process-wide set it armed ends too, and
   one armed by another thread that outlived its life. */
static void pset_expire(struct rt_thread *t)
{
	uint64_t w;

	if (!pset.n)
		return;
	w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);
	if (rt_pset_state_of(w) == RT_PSET_ARMED && pset.rec.owner == t->id.index)
		pset_end(w, &pset.ended_owner);
	else
		watch__pset_tick(t);
}

/* At every sample of every thread: a set that outlived its life ends. A
   set nobody touches would otherwise stay armed until the next arm, which
   the budget may refuse for long, and an armed copy makes every switch to
   the idle task dearer (stencil -O2: +15 % CPU from ~10 sets left armed). */
/* The switching level through the tick (soft.c, HPCRUN_COMM_TICK_PSET=0)
   asked for the set to be closed: every thread carries a copy of its
   breakpoint events, which, even disabled, cost each switch to or from
   another context (the idle task, another program) ~2.5 µs on this VM
   (performance.md "Session 18"). Taken at a sample that finds the set
   IDLE: BUSY for the rest of the run (every later arm is refused busy),
   then the parent events closed, which removes every thread's copy. One
   way: a copy cannot be given back to a thread that exists. Signal
   context (close only). */

void watch__pset_retire_ask(void)
{
	__atomic_store_n(&pset_retire_wanted, 1, __ATOMIC_RELEASE);
}

static void pset_retire(void)
{
	uint64_t w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);

	if (rt_pset_state_of(w) != RT_PSET_IDLE || pset.pid != (uint32_t)getpid() ||
	    !__atomic_compare_exchange_n(&pset.state, &w, rt_pset_word(rt_pset_gen_of(w), RT_PSET_BUSY), false,
	                                 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&pset_retire_wanted, 0, __ATOMIC_RELAXED);
	for (int i = 0; i < pset.n; i++) {
		pset.enabled[i] = false;
		fds__close(&pset.fd[i], "the process-wide watch set");
	}
	__atomic_store_n(&pset_retired, 1, __ATOMIC_RELEASE);
}

void watch__pset_per_arm_ask(void)
{
	__atomic_store_n(&per_arm.wanted, 1, __ATOMIC_RELEASE);
}

/* HPCRUN_COMM_TICK_EMPTY: taken at a sample that finds the set IDLE, as
   pset_retire, then IDLE again with its registers opened per arm. */
static void pset_to_per_arm(void)
{
	uint64_t w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);

	if (rt_pset_state_of(w) != RT_PSET_IDLE || pset.pid != (uint32_t)getpid() ||
	    !__atomic_compare_exchange_n(&pset.state, &w, rt_pset_word(rt_pset_gen_of(w), RT_PSET_BUSY), false,
	                                 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&per_arm.wanted, 0, __ATOMIC_RELAXED);
	for (int i = 0; i < pset.n; i++) {
		pset.enabled[i] = false;
		pset.attr[i].disabled = 1;
		fds__close(&pset.fd[i], "the process-wide watch set");
		per_arm.nfd[i] = 0;
	}
	__atomic_store_n(&per_arm.on, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&pset.state, rt_pset_word(rt_pset_gen_of(w) + 1, RT_PSET_IDLE), __ATOMIC_RELEASE);
}

void watch__pset_tick(struct rt_thread *t)
{
	uint64_t w;

	(void)t;
	if (!pset.n)
		return;
	if (__atomic_load_n(&pset_retire_wanted, __ATOMIC_ACQUIRE))
		pset_retire();
	if (__atomic_load_n(&per_arm.wanted, __ATOMIC_ACQUIRE))
		pset_to_per_arm();
	w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE);
	if (rt_pset_state_of(w) == RT_PSET_ARMED &&
	    rt_pset_expired(pset.rec.armed_wall, process__now(),
	                    pset_life() * hc_rt.period))
		pset_end(w, &pset.ended_age);
}

/* The thread's watchpoints are opened at its first arm, not at its start:
   four perf_event_open calls cost ~40 µs, which a short-lived thread that
   is never sampled should not pay (thread creation budget, doc/reliability.md). `want`
   fds are already reserved (fds.c). */
int watch__thread_start(struct rt_thread *t, int want)
{
	pset_drop_if_forked();
	if (t->id.index == 0 && !pset.n && hc_rt.npset > 0)
		pset_open(hc_rt.npset);
	t->watch.n = 0;
	t->watch.want = want;
	t->watch.opened = want == 0;
	return want;
}

/* Open the reserved breakpoint events, disabled, on a harmless address.
   Signal context (the first arm): system calls and process__log only. */
static void open_all(struct rt_thread *t)
{
	static int said;
	int want = t->watch.want;

	t->watch.opened = true;
	t->cnt.watch_threads_gated = 0;
	for (int i = 0; i < want; i++) {
		int fd;
		hc_watch_attr(&t->watch.attr[i], (uint64_t)(uintptr_t)&t->watch.dummy, signal__cookie_watch(i));
		fd = hc_perf_open(&t->watch.attr[i], 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
				process__log("thread %u: watchpoint %d: %s (first failure; threads with fewer "
				        "watchpoints are counted in the fds line at exit)",
				        t->id.index, i, hc_perf_strerror(errno, -1));
			break;
		}
		fds__adopt(fd, &t->watch.fd[i], true);
		t->watch.enabled[i] = false;
		t->watch.n++;
	}
	if (t->watch.n < want) {
		fds__unreserve(want - t->watch.n);
		if (want == hc_rt.nwatch)    /* fewer than the budget allowed: count it here */
			__atomic_add_fetch(t->watch.n ? &fds__stats.threads_watch_reduced
			                              : &fds__stats.threads_watch_none, 1, __ATOMIC_RELAXED);
	}
	/* Fewer registers than the process default (fd limit, contention):
	   this thread arms smaller sets; the weight uses the set's own D. */
}

void watch__thread_stop(struct rt_thread *t)
{
	if (!t->watch.opened)
		fds__unreserve(t->watch.want);
	for (int i = 0; i < t->watch.n; i++)
		fds__close(&t->watch.fd[i], "a watchpoint");
	t->watch.n = 0;
	t->watch.want = 0;
	t->watch.opened = true;       /* never (re)opened after stop */
}

void watch__disarm(struct rt_thread *t)
{
	pset_expire(t);
	for (int i = 0; i < t->watch.n; i++)
		if (t->watch.enabled[i]) {
			ioctl(t->watch.fd[i], PERF_EVENT_IOC_DISABLE, 0);
			t->watch.enabled[i] = false;
			t->watch.attr[i].disabled = 1;
		}
}

static int watch_arm(struct rt_thread *t, const uint64_t *addr, uint32_t n);

/* The switch gate's answer for a thread whose registers are not open yet.
   watch_threads_gated is 1 while the thread has asked and was refused
   every time, 0 once it opens (or never asked): summed, the threads whose
   sets were all refused — whenever the counters are written, a thread
   alive at exit included. */
static bool gate_allows(struct rt_thread *t)
{
	if (thread__watch_allowed(t))
		return true;
	t->cnt.watch_threads_gated = 1;
	return false;
}

/* Re-target in place: one MODIFY_ATTRIBUTES per register, with disabled=0
   so the same call enables it (the kernel allows the attr to differ only
   in the breakpoint fields — address, type, length — and `disabled`).
   Registers beyond n go off. A set on a published load (t->det.writes_only)
   watches writes only: the load's writer is what it is there to catch. */
int watch__arm(struct rt_thread *t, const uint64_t *addr, uint32_t n)
{
	uint64_t t0 = soft__cpu_now();
	int ret = watch_arm(t, addr, n);

	soft__cost(t, RT_COST_ARM, t0);
	return ret;
}

/* Threads whose registers a hand-off set opened in a crowded process
   (HPCRUN_COMM_HANDOFF_UNGATED_CROWDED caps them; a log figure). */
static uint32_t handoff_crowded_opened;

uint32_t watch__handoff_crowded_opened(void)
{
	return __atomic_load_n(&handoff_crowded_opened, __ATOMIC_RELAXED);
}

/* Per-thread arms refused because the thread was preempted
   (HPCRUN_COMM_ARM_SHARE, soft.c's share_low; a log figure). */
static uint64_t arms_share_refused;

/* A gated thread's hand-off set on the process-wide set (§5.60): one of
   its lines (drawn by detection, hc_detect_arm_handoff), the writer's
   record its entry, read and write (a reader's load traps), owned by
   nobody (the asker's next sample leaves it be; it ends at a foreign
   trap, by the writer's own traps, or aged), within the set's budget.
   Detection is told nothing was armed (record.c: hc_detect_arm_failed on
   -EAGAIN), so the thread's next samples go on as before; the set's trap
   is a communication with the writer weighing one period (pset_trap, as
   a per-thread hand-off set's). Signal context. */
static uint64_t handoff_pset_asked, handoff_pset_armed, handoff_pset_comms, handoff_pset_budget,
                handoff_pset_spent_ns;

static int pset_handoff(struct rt_thread *t, const uint64_t *addr, uint32_t n)
{
	uint32_t k = n > 1 ? (uint32_t)(rt_zone_rng(&t->det.rng) % n) : 0;
	struct hc_bb_entry e = t->det.start[k];
	int err;

	uint64_t t0;

	__atomic_add_fetch(&handoff_pset_asked, 1, __ATOMIC_RELAXED);
	if (!n || !watch__pset_idle())
		return -EAGAIN;
	/* a share of the set's budget of their own, so that the zone sets
	   (a halo's pairs) keep the rest (HPCRUN_COMM_HANDOFF_PSET_BUDGET) */
	if (!rt_pset_budget_allows(__atomic_load_n(&handoff_pset_spent_ns, __ATOMIC_RELAXED), process_cpu_ns(),
	                           hc_rt.opt.handoff_pset_budget, RT_PSET_GRACE_NS / 2)) {
		__atomic_add_fetch(&handoff_pset_budget, 1, __ATOMIC_RELAXED);
		return -EAGAIN;
	}
	t->watch.pset_handoff = true;
	t0 = process__now();
	err = pset_arm_set(t, &e, 1, false, 0, &addr[k], 1, false, 0, 0);
	t->watch.pset_handoff = false;
	if (err)
		return err == -EAGAIN ? -EAGAIN : err;
	/* the arm, and its trap's delivery as the set charges a trap */
	__atomic_add_fetch(&handoff_pset_spent_ns, process__now() - t0 + RT_PSET_TRAP_NS, __ATOMIC_RELAXED);
	__atomic_add_fetch(&handoff_pset_armed, 1, __ATOMIC_RELAXED);
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u hand-off set on the process-wide set: %#llx for T%u's store",
	             t->id.index, (unsigned long long)addr[k], e.thread);
	/* one-shot for detection: the thread's next sample may ask again */
	return -EAGAIN;
}

static int watch_arm(struct rt_thread *t, const uint64_t *addr, uint32_t n)
{
	uint32_t type = t->det.writes_only ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;
	/* A hand-off set (detection.md §5.36) is a start set in form, armed
	   at any sample; like a start set it opens a gated thread's registers
	   (HPCRUN_COMM_HANDOFF_UNGATED, default 1: HPCCG -t 4's gated workers
	   found main's pairs 26 vs 14 of 40 times, CPU 1.39x vs 1.36x of
	   native), else it asks the gates as a regular set does. A region's
	   (§5.41) asks the gates unless HPCRUN_COMM_HANDOFF_REGION_UNGATED=1
	   (§5.42: LULESH 2x, whose 4 gated threads the region sets opened,
	   cost 2.73x native against 1.06x). In a crowded process a
	   hand-off set asks the gates too unless
	   it has opened HPCRUN_COMM_HANDOFF_UNGATED_CROWDED threads already
	   (cost.h rt_handoff_opens: the 2x OpenMP stencil's workers,
	   performance.md "Session 23"). */
	bool crowded = t->det.handoff_set && !t->watch.opened && thread__crowded();
	bool start = t->det.start_set && (!t->det.handoff_set ||
	             (t->det.handoff_region ? hc_rt.opt.handoff_region_ungated
	                                    : rt_handoff_opens(hc_rt.opt.handoff_ungated,
	                                                       hc_rt.opt.handoff_ungated_crowded, crowded,
	                                                       __atomic_load_n(&handoff_crowded_opened,
	                                                                       __ATOMIC_RELAXED))));

	/* A block's hand-off set of a thread whose registers are closed, with
	   HPCRUN_COMM_HANDOFF_PSET: the switch gate's, and refused, one line
	   on the process-wide set (pset.h rt_pset_handoff_route; §5.60) */
	if (t->det.handoff_set && !t->det.handoff_region && !t->watch.opened && hc_rt.opt.handoff_pset && pset.n) {
		switch (rt_pset_handoff_route(start, true, gate_allows(t))) {
		case RT_HANDOFF_PSET:
			pset_note_gated();
			return pset_handoff(t, addr, n);
		case RT_HANDOFF_GATED:
			start = false;   /* the gate let it through: a regular set's arm */
			break;
		case RT_HANDOFF_OPEN:
			break;
		}
	}

	/* A thread that gets a small share of a CPU now is likely to be
	   descheduled between its arm and its partner's access, or in the
	   handler while the partner spins (performance.md, "Session 17"). */
	if (t->sampler.share_low && !start) {
		__atomic_add_fetch(&arms_share_refused, 1, __ATOMIC_RELAXED);
		return -EAGAIN;
	}

	/* A start set is armed once, before the thread has run: the switch
	   gate has no evidence yet and, in a crowded process, refuses every
	   new thread, so a later generation's hand-off reads (its first
	   microseconds) went unwatched (generations -t 4 on 2 CPUs: 7 of 12
	   threads refused; detection.md §5.9). It opens without asking; the
	   thread then pays the opened registers' switch cost for its life. */
	if (!t->watch.opened && !start && !gate_allows(t)) {
		/* switches too often for now (cost.h): the process-wide set,
		   whose copies cost no switch, if there is one (not for a read
		   probe: its load trap is this thread's business) */
		if (pset.n)
			pset_note_gated();
		if (pset.n && (hc_rt.opt.procset_target & RT_PSET_TARGET_ENTRY) && !t->det.probe && t->det.armed &&
		    !t->det.handoff_set)
			return pset_arm(t, addr, n);
		return -EAGAIN;
	}
	if (!t->watch.opened) {
		if (start && t->det.handoff_set) {
			t->cnt.handoff_ungated++;
			if (crowded)    /* two threads at once may both pass the cap: a log figure says */
				__atomic_add_fetch(&handoff_crowded_opened, 1, __ATOMIC_RELAXED);
		}
		else if (start)
			t->cnt.start_sets_ungated++;
		open_all(t);
	}
	if (n > (uint32_t)t->watch.n)
		return -ENOSPC;
	for (uint32_t i = 0; i < n; i++) {
		t->watch.attr[i].bp_addr = addr[i];
		t->watch.attr[i].bp_type = type;
		t->watch.attr[i].disabled = 0;
		if (ioctl(t->watch.fd[i], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &t->watch.attr[i]) < 0) {
			int err = errno;
			t->watch.attr[i].disabled = 1;
			watch__disarm(t);
			return -err;
		}
		t->watch.enabled[i] = true;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u armed slot %u on %#llx", t->id.index, i,
		             (unsigned long long)addr[i]);
	}
	for (int i = (int)n; i < t->watch.n; i++)
		if (t->watch.enabled[i]) {
			ioctl(t->watch.fd[i], PERF_EVENT_IOC_DISABLE, 0);
			t->watch.enabled[i] = false;
		}
	return 0;
}

/* A return breakpoint of a thread the gate refused, on the process-wide
   set (HPCRUN_COMM_PROCSET_RET): its copies cost no switch, and whichever
   thread returns there first (the same code: a sibling of the same role)
   traps and runs the return burst (pset_trap). One register, on an idle
   set or the owner's own, within the set's budget. Signal context. */
static int pset_arm_ret(struct rt_thread *t, uint64_t pc)
{
	struct hc_bb_entry e;
	int err;

	if (!hc_rt.opt.procset_ret || !pset.n)
		return -EAGAIN;
	pset_note_gated();
	memset(&e, 0, sizeof(e));
	e.thread = t->id.index;
	e.ctx = HC_NONE;
	e.addr = pc;
	e.line = pc & ~(uint64_t)(HC_LINE - 1);
	e.cpu = -1;
	err = pset_arm_set_x(t, &e, 1, false, 0, &pc, 1, false, 0, 0, true, true, NULL);
	pset_count(err ? &pset.ret_failed : &pset.ret_armed);
	return err ? -EAGAIN : 0;
}

/* An execute breakpoint on pc (the return address of a sampled function,
   soft.c) in register 0, the others off: the thread's data set must not
   be armed. A thread the gate refuses: on the process-wide set. */
int watch__arm_exec(struct rt_thread *t, uint64_t pc)
{
	if (!t->watch.opened && !gate_allows(t))
		return pset_arm_ret(t, pc);
	if (!t->watch.opened)
		open_all(t);
	if (t->watch.n < 1)
		return -ENOSPC;
	t->watch.attr[0].bp_addr = pc;
	t->watch.attr[0].bp_type = HW_BREAKPOINT_X;
	t->watch.attr[0].disabled = 0;
	if (ioctl(t->watch.fd[0], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &t->watch.attr[0]) < 0) {
		int err = errno;
		t->watch.attr[0].disabled = 1;
		watch__disarm(t);
		return -err;
	}
	t->watch.enabled[0] = true;
	for (int i = 1; i < t->watch.n; i++)
		if (t->watch.enabled[i]) {
			ioctl(t->watch.fd[i], PERF_EVENT_IOC_DISABLE, 0);
			t->watch.enabled[i] = false;
		}
	return 0;
}

/* The trapping access and its instruction (hc_trap_attribute, step.h):
   a REP string op traps on itself (current element); otherwise the
   instruction ending at the PC, even when its address register was
   overwritten (then the watched chunk stands for the address). */
static void access_at(struct rt_thread *t, const struct hc_regs *r, uint64_t line, uint64_t bp_addr,
                      bool bp_write, struct hc_sample *s, uint64_t *leaf);

static void trapping_access(struct rt_thread *t, const struct hc_regs *r, int slot,
                            struct hc_sample *s, uint64_t *leaf)
{
	int k = slot >= 0 && slot < t->watch.n ? slot : 0;
	uint64_t line = t->det.start_set && slot >= 0 && slot < t->watch.n
	                ? t->watch.attr[slot].bp_addr & ~(uint64_t)(HC_LINE - 1) : t->det.watched.line;

	access_at(t, r, line, t->watch.attr[k].bp_addr, t->watch.attr[k].bp_type == HW_BREAKPOINT_W, s, leaf);
}

static void access_at(struct rt_thread *t, const struct hc_regs *r, uint64_t line, uint64_t bp_addr,
                      bool bp_write, struct hc_sample *s, uint64_t *leaf)
{
	uint64_t pc = (uint64_t)r->gregs[REG_RIP];
	struct hc_insn at, end;
	struct hc_trap_attr ta;
	bool have_at = hc_decode_at_pc(r, &at) == 0;
	/* the instruction ending at the PC is not needed when a REP op at the
	   PC has the access (decoding it walks the function) */
	bool have_end = !(have_at && (at.flags & HC_AF_REP) && hc_data_access(&at)) &&
	                hc_decode_ending_at(r, pc, t->prev, &end) == 0;

	hc_trap_attribute(have_at ? &at : NULL, have_end ? &end : NULL, pc, line, bp_addr, bp_write, &ta);
	/* An -O0 load through a pointer it overwrote (`mov -0x18(%rbp),%rax;
	   mov 0x4(%rax),%eax`): the pointer is still in its stack slot, as
	   for a sample (hc_decode_prev_reload: the instruction ending at the
	   trap's PC is the sample's "previous" one). Without it the watched
	   8-byte chunk stood for a 4-byte field's access, and a thread
	   updating the int next to another thread's was judged true sharing
	   (detection.md §5.33; HPCRUN_COMM_TRAP_RELOAD). */
	if (ta.how == HC_TRAP_INSN && hc_rt.opt.trap_reload) {
		struct hc_insn rel;
		const struct hc_mem_access *a;

		if (hc_decode_prev_reload(r, t->prev, hc_rt.opt.reload_chain, &rel) == HC_PREV_OK &&
		    (a = hc_data_access(&rel)) && rel.addr == ta.leaf && a->size &&
		    a->ea < bp_addr + 8 && a->ea + a->size > bp_addr) {
			ta.addr = a->ea;
			ta.len = a->size;
			t->cnt.traps_recovered_reload++;
		}
	}
	*leaf = ta.leaf;
	s->addr = ta.addr;
	s->len = ta.len;
	s->is_store = ta.is_store;
	/* an update's half (§5.54): its bytes read and written */
	s->update = false;
	if (hc_rt.dcfg.update_bytes && ta.how == HC_TRAP_EXACT && have_end && end.addr == ta.leaf) {
		struct hc_mem_access a = { .ea = ta.addr, .size = ta.len, .kind = HC_ACC_EXPLICIT,
		                           .rw = ta.is_store ? HC_ACC_W : HC_ACC_R };

		for (uint8_t i = 0; i < end.n; i++)
			if (end.acc[i].ea == ta.addr && end.acc[i].rw == (HC_ACC_R | HC_ACC_W))
				a.rw = HC_ACC_R | HC_ACC_W;
		s->update = soft__update(t, ta.leaf, pc, r, &a);
		if (s->update)
			t->cnt.updates_trapped++;
	}
}

static void on_trap(struct rt_thread *t, int slot, void *uctx);
static void pset_trap(struct rt_thread *t, int slot, void *uctx);

/* Held verdicts (HPCRUN_COMM_HOLD_READER, detection.md §5.31). A
   write-only set watches another thread's published load for this
   thread's store; in exact mode's model (lib/exact/model.c, W2) that
   store is no transfer: the transfer is the reader's next read, true iff
   its bytes meet what this thread writes until then. The first trapped
   store is one of those writes, not all (the master filling an omp
   region's shared-variable block, field after field): when it misses the
   reader's bytes, the register on the reader's chunk goes back on, and
   the communication is recorded true at this thread's store of them, or
   false at its next sample. Signal context. */
static bool held_start(struct rt_thread *t, const struct hc_comm *c)
{
	uint64_t line = t->det.watched.line, off = t->det.watched.addr - line;
	uint64_t chunk = line + (off < HC_LINE ? off & ~(uint64_t)7 : 0);

	for (int i = 0; i < t->watch.n; i++) {
		if (t->watch.attr[i].bp_addr != chunk)
			continue;
		if (ioctl(t->watch.fd[i], PERF_EVENT_IOC_ENABLE, 0) < 0) {
			t->cnt.held_enable_failed++;
			return false;
		}
		t->watch.enabled[i] = true;
		t->watch.attr[i].disabled = 0;
		t->watch.held = true;
		t->watch.held_reg = i;
		t->watch.held_comm = *c;
		t->cnt.held_sets++;
		return true;
	}
	return false;
}

/* The held verdict ends false (the thread's next sample, its end). */
void watch__held_flush(struct rt_thread *t)
{
	int i = t->watch.held_reg;

	if (!t->watch.held)
		return;
	t->watch.held = false;
	if (i >= 0 && i < t->watch.n && t->watch.enabled[i]) {
		ioctl(t->watch.fd[i], PERF_EVENT_IOC_DISABLE, 0);
		t->watch.enabled[i] = false;
		t->watch.attr[i].disabled = 1;
	}
	t->watch.held_reg = -1;
	t->cnt.held_false++;
	record__comm(t, &t->watch.held_comm);
}

void watch__on_trap(struct rt_thread *t, int slot, void *uctx)
{
	uint64_t t0 = soft__cpu_now();

	if (slot & PSET_SLOT) {
		pset_trap(t, slot & ~PSET_SLOT, uctx);
		soft__cost(t, RT_COST_TRAP, t0);
		return;
	}
	bool exec = slot == 0 && t->watch.n > 0 && t->watch.attr[0].bp_type == HW_BREAKPOINT_X;

	on_trap(t, slot, uctx);
	if (!exec)     /* a return breakpoint's burst is timed as a burst */
		soft__cost(t, RT_COST_TRAP, t0);
}

static void on_trap(struct rt_thread *t, int slot, void *uctx)
{
	struct hc_regs r;
	struct hc_sample s = { 0 };
	struct hc_comm comm;
	uint64_t leaf;
	bool watched_load, start, joined, locked;
	struct hc_bb_entry kstart[HC_MAX_WATCH];
	uint64_t kweight = 0, kline = 0;
	uint32_t kn = 0;
	int sys;

	if (slot == 0 && t->watch.n > 0 && t->watch.attr[0].bp_type == HW_BREAKPOINT_X) {
		/* a return breakpoint (before the instruction runs): soft.c */
		watch__disarm(t);
		soft__on_ret_bp(t, uctx);
		return;
	}
	t->cnt.traps++;
	watch__disarm(t);
	regs__read(uctx, &r);
	trapping_access(t, &r, slot, &s, &leaf);
	s.is_private = false;
	watched_load = t->det.armed && t->det.watched.is_load && !t->det.start_set;
	start = t->det.armed && t->det.start_set && !t->det.handoff_set;
	joined = start && t->det.join_set;
	s.time = process__now();
	s.cpu = regs__cpu();
	s.ctx = cct__context(t, uctx, leaf);
	if (s.ctx == HC_NONE) {            /* the walk faulted: trap dropped */
		hc_detect_arm_failed(&t->det);
		return;
	}
	{
		uint32_t pctx = watch__poll_reader(t, &s, leaf);   /* §5.58 */

		if (pctx != HC_NONE)
			s.ctx = pctx;
	}
	soft__note_access(t, leaf, &s);
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u trap slot %d: %s %#llx+%u at %#llx", t->id.index, slot,
	             s.is_store ? "store" : "load", (unsigned long long)s.addr, s.len,
	             (unsigned long long)leaf);
	if (t->watch.held) {
		/* the held register: this thread's store of the reader's chunk */
		struct hc_comm *h = &t->watch.held_comm;

		t->watch.held = false;
		t->watch.held_reg = -1;
		if (s.is_store && hc_ranges_overlap(s.addr, s.len ? s.len : 1, h->peer_addr, h->peer_len ? h->peer_len : 1)) {
			h->flags |= HC_COMM_TRUE;
			h->true_by_mask = true;
			t->cnt.held_true++;
			t->cnt.true_by_mask++;
		} else {
			t->cnt.held_false++;
		}
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u   held verdict: %s", t->id.index, (h->flags & HC_COMM_TRUE) ? "true" : "false");
		record__comm(t, h);
		t->det.moving = t->det.fixed = false;
		return;
	}
	/* a lock set (lock.c, detection.md §5.35): the lock implementation's
	   own words, or a trap after the critical section, are dropped */
	/* the program's mutex words, touched by the lock implementation
	   (HPCRUN_COMM_LOCK_WORDS, §5.38): glibc's, not the program's data
	   (exact mode does not count them) */
	if (!(start && t->det.lock_set) && loadmap__system_code(leaf) && lock__mutex_word(s.addr)) {
		t->cnt.lock_words_dropped++;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u   trap on a mutex's word in system code dropped", t->id.index);
		t->det.moving = t->det.fixed = false;
		hc_detect_arm_failed(&t->det);
		return;
	}
	locked = start && t->det.lock_set;
	if (locked && hc_rt.opt.lock_keep) {    /* the set's entries, for lock__keep (§5.62) */
		kn = t->det.nwatch < HC_MAX_WATCH ? t->det.nwatch : HC_MAX_WATCH;
		for (uint32_t i = 0; i < kn; i++)
			kstart[i] = t->det.start[i];
		kweight = t->det.lock_weight;
		kline = (slot >= 0 && slot < t->watch.n ? t->watch.attr[slot].bp_addr : s.addr) & ~(uint64_t)(HC_LINE - 1);
	}
	if (locked && !lock__trap(t, slot >= 0 && slot < t->watch.n ? t->watch.attr[slot].bp_addr : s.addr, leaf, s.addr, s.len)) {
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u   lock set trap dropped (system code or late)", t->id.index);
		t->det.moving = t->det.fixed = false;
		hc_detect_arm_failed(&t->det);
		return;
	}
	/* system code on a synchronisation object's bytes (§5.37): the lock
	   implementation's, not the program's (its set is over: the registers
	   are off). After the lock sets' own test, which marks such a word bad
	   for its mutex (not watched again) */
	if ((sys = lock__sync_sys(leaf, s.addr, s.len)) != 0) {
		if (sys == RT_SYNC_OBJECT)
			t->cnt.sync_sys_traps++;
		else
			t->cnt.sys_data_traps++;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u   trap in system code on a synchronisation object: dropped",
		             t->id.index);
		t->det.moving = t->det.fixed = false;
		hc_detect_arm_failed(&t->det);
		return;
	}
	if (hc_detect_trap(&hc_rt.dcfg, &t->det, &s, &comm)) {
		t->cnt.traps_matched++;
		if (joined)
			t->cnt.join_traps++;
		else if (start)
			t->cnt.start_traps++;
		if (locked && t->lock.verdict == 0)     /* what changed since its release (§5.38) */
			comm.flags &= ~(uint32_t)HC_COMM_TRUE;
		if (locked && hc_rt.opt.lock_rescale)   /* its weight in hand-offs, scaled by the analyzer (§5.61) */
			comm.flags |= HC_COMM_LOCK;
		if (comm.true_by_mask)
			t->cnt.true_by_mask++;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u   matched: %s sharing with T%u", t->id.index,
		             (comm.flags & HC_COMM_TRUE) ? "true" : "false", comm.peer);
		if (!(hc_rt.opt.hold_reader && watched_load && s.is_store && !start && !(comm.flags & HC_COMM_TRUE) &&
		      held_start(t, &comm)))
			record__comm(t, &comm);
		/* A trapped store is exact (no skid): publish it for the line's
		   next readers, as a sampled store would be (not an echo of an
		   echo: detection.md §5.19). */
		if (s.is_store) {
			int rc = hc_detect_publish(&hc_rt.bb, &hc_rt.dcfg, &t->det, &s);

			if (rc == 1)
				t->cnt.published_trap++;
			else if (rc == -ELOOP)
				t->cnt.published_trap_echo++;
		}
		t->det.moving = t->det.fixed = false;
		if (joined)
			soft__join_set(t, false, s.addr);    /* the joined peers not found yet */
		else if (start && !locked)
			soft__start_set(t);    /* a second one while the thread is young */
		soft__after_trap(t, uctx, &s);
		if (locked && hc_rt.opt.lock_keep && kn && !t->det.armed &&
		    !(t->watch.n > 0 && t->watch.enabled[0] && t->watch.attr[0].bp_type == HW_BREAKPOINT_X))
			lock__keep(t, kstart, kn, kweight, kline);
	} else if (watched_load && !s.is_store && !t->det.armed) {
		/* A set on a published load, hit by this thread's own load (a
		   read probe of a dry line): no communication, but an exact load
		   of a line another thread loads, published as one — the target
		   a write-only set of the line's writer needs (§5.9). */
		t->cnt.traps_load_load++;
		if (hc_detect_publish(&hc_rt.bb, &hc_rt.dcfg, &t->det, &s) == 1)
			t->cnt.published_trap_loads++;
		t->det.moving = t->det.fixed = false;
	} else {
		t->det.moving = t->det.fixed = false;
		/* A late trap of an older set: the registers are off now, so the
		   detection state must not believe a set is still armed. */
		t->cnt.traps_unmatched++;
		hc_detect_arm_failed(&t->det);
	}
}

/* A zone set's trap says exactly where its thread works: its access is
   noted in the zone table as a sample's would be
   (HPCRUN_COMM_PROCSET_ZONE_TRAPS; detection.md §5.16, "Session 13"). A
   zone set on a wide gap between two threads' sparse ranges traps its
   owner's accesses first (adopt, own traps): noted, they extend that
   owner's range to the watched line, so the gap — where the two threads'
   blocks meet, a halo — narrows by half on average with every such set,
   and the next zone sets of the pair land nearer the boundary. The other
   sets' traps are not noted: a start set's extra line, trapped by a new
   thread reading an ended one's output, made zones between generations
   that never communicate and kept the set from the next start sets
   (generations -t 4). Signal context. */
static void zone_note_trap(struct rt_thread *t, const struct hc_sample *s)
{
	int r;

	if (!hc_rt.opt.procset_zone_traps || !(hc_rt.opt.procset_target & RT_PSET_TARGET_ZONE) || !s->addr)
		return;
	r = rt_zone_note(zones, RT_ZONE_SLOTS, t->id.index, s->addr, process__now(), zone_window(), s->is_store);
	pset_count(r == 1 ? &pset.zone_notes_trap : &pset.zone_collisions);
}

/* A zone set's trap that becomes its entry (pset.h, rt_pset_zone_trap_kind):
   the exact access, with its context, as if published; the set stays armed
   under a new generation (a trap that copied the old record meanwhile is
   late), and ends after RT_PSET_ZONE_ADOPT_MAX. Signal context. */
static void zone_adopt(struct rt_thread *t, uint64_t w, void *uctx, uint64_t leaf, struct hc_sample *s,
                       uint64_t t_start)
{
	uint64_t gen = rt_pset_gen_of(w), busy = rt_pset_word(gen, RT_PSET_BUSY), nw;
	struct hc_bb_entry e;

	if (!adopt_access(t, uctx, leaf, s))   /* the walk faulted: trap dropped */
		return;
	soft__note_access(t, leaf, s);
	t->det.moving = t->det.fixed = false;
	e = hc_detect_entry(&t->det, s);
	e.thread = t->id.index;
	if (!__atomic_compare_exchange_n(&pset.state, &w, busy, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		pset_count(&pset.traps_late);
		return;
	}
	pset.rec.watched = e;
	pset.rec.adopts++;
	pset.rec.edge_pc = leaf;
	nw = rt_pset_word(gen + 1, RT_PSET_ARMED);
	__atomic_store_n(&pset.state, nw, __ATOMIC_RELEASE);
	pset_count(&pset.zone_adopts);
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u zone set entry: %s %#llx+%u", t->id.index, s->is_store ? "store" : "load",
	             (unsigned long long)s->addr, s->len);
	if (pset.rec.adopts >= RT_PSET_ZONE_ADOPT_MAX)
		pset_end(nw, &pset.ended_own);
	__atomic_add_fetch(&pset.spent_ns, process__now() - t_start + RT_PSET_TRAP_NS, __ATOMIC_RELAXED);
}

/* A pipeline set whose first trap was the reader's load (pipe.c): the
   reader waits for the writer (it is ahead of it), and would trap at every
   load of its wait; the set watches the line's writes only from then on,
   so that the writer's store is its next trap (one communication). The
   registers re-typed in place, under a new generation. Signal context. */
static void pipe_writes_only(struct rt_thread *t)
{
	uint64_t w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE), gen = rt_pset_gen_of(w), t0;
	uint64_t busy = rt_pset_word(gen, RT_PSET_BUSY);

	if (rt_pset_state_of(w) != RT_PSET_ARMED || !pset.rec.pipe || pset.rec.writes_only ||
	    pset.rec.watched.thread != t->id.index ||
	    !__atomic_compare_exchange_n(&pset.state, &w, busy, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	t0 = process__now();
	for (uint32_t i = 0; i < pset.rec.nwatch; i++) {
		pset.attr[i].bp_type = HW_BREAKPOINT_W;
		if (pset.enabled[i] && pset_modify((int)i) < 0) {
			/* left as it was: an RW register, the own-trap limit ends it */
			pset.attr[i].bp_type = HW_BREAKPOINT_RW;
			__atomic_store_n(&pset.state, rt_pset_word(gen, RT_PSET_ARMED), __ATOMIC_RELEASE);
			return;
		}
	}
	pset.rec.writes_only = true;
	__atomic_add_fetch(&pset.spent_ns, process__now() - t0, __ATOMIC_RELAXED);
	pipe__writes_only();
	__atomic_store_n(&pset.state, rt_pset_word(gen + 1, RT_PSET_ARMED), __ATOMIC_RELEASE);
}

/* A trap of the process-wide set, in whichever thread touched its line
   (pset.h's rules): the publisher's own access is counted (and ends the
   set after RT_PSET_OWN_MAX), any other thread's is one communication
   with the publisher — the arming thread's own trap exactly as a
   per-thread set's, another thread's through a copy of the set — and ends
   the set for every thread. */
static void pset_trap(struct rt_thread *t, int slot, void *uctx)
{
	uint64_t w = __atomic_load_n(&pset.state, __ATOMIC_ACQUIRE), t_start = process__now(), leaf;
	struct hc_detect_thread tmp, *th;
	struct hc_regs r;
	struct hc_sample s = { 0 };
	struct hc_comm comm;
	enum rt_pset_trap kind;
	bool matched, was_zone, was_pipe;
	uint32_t zone_a = 0, zone_b = 0;
	uint64_t blo = 0, bhi = 0;
	bool lk = false;
	uint32_t lk_slot = 0;
	uint64_t lk_lo = 0, lk_changed = 0, lk_weight = 0, lk_bp = 0, rd_weight = 0, rd_weight_store = 0;
	bool rd = false;
	uint8_t lk_bytes = 0;
	int lk_v = 1, lk_a = -1;
	uint32_t lk_peer = 0, lk_ctx = 0;
	uint64_t fl = 0;
	bool fl_moved = false;
	bool hof = false;                 /* a gated thread's hand-off set (§5.60) */
	bool fd = false;                  /* a feed set (§5.68) */
	uint32_t fd_stands = 0;           /* ... the samples it stands for (§5.70) */
	bool edge_extra = false;          /* an edge set on its own budget (§5.64) */
	uint32_t edge_mem = 0;            /* an edge set's memory slot and side (§5.64) */

	if (pset.pid != hc_rt.pid || slot >= pset.n || rt_pset_state_of(w) != RT_PSET_ARMED ||
	    (uint32_t)slot >= pset.rec.nwatch) {
		pset_count(&pset.traps_late);
		return;
	}
	/* the record as of generation w (validated below by the CAS, or by
	   re-reading the word) */
	tmp.watched = pset.rec.watched;
	tmp.candidates = pset.rec.candidates;
	tmp.writes_only = pset.rec.writes_only;
	tmp.nwatch = pset.rec.nwatch;
	tmp.armed_at = pset.rec.armed_at;
	{
		uint32_t owner = pset.rec.owner;
		uint64_t bp = pset.rec.addr[slot];
		bool zone = pset.rec.zone;

		was_zone = zone;
		was_pipe = pset.rec.pipe;
		blo = pset.rec.block_lo;
		bhi = pset.rec.block_hi;
		zone_a = pset.rec.zone_a;
		zone_b = pset.rec.zone_b;
		lk = pset.rec.lock;
		lk_slot = pset.rec.lock_slot;
		lk_lo = pset.rec.lock_lo;
		lk_changed = pset.rec.lock_changed;
		lk_weight = pset.rec.lock_weight;
		lk_bytes = pset.rec.lock_bytes;
		lk_bp = bp;
		fl = pset.rec.flag;
		fl_moved = pset.rec.flag_moved;
		rd = pset.rec.reader;
		rd_weight = pset.rec.reader_weight;
		rd_weight_store = pset.rec.reader_weight_store;
		hof = pset.rec.handoff;
		fd = pset.rec.feed;
		fd_stands = pset.rec.feed_stands;
		edge_extra = pset.rec.edge_extra;
		edge_mem = pset.rec.edge_mem;

		if (__atomic_load_n(&pset.state, __ATOMIC_ACQUIRE) != w) {
			pset_count(&pset.traps_late);
			return;
		}
		/* A trap of an earlier set, re-targeted by another thread between
		   the trap and this handler (the thread preempted on its way back
		   to user mode, a busy CPU): the record is the new set's, and the
		   access, off its line, would be attributed to its watched chunk
		   — a communication that did not happen, and a third address for
		   the instruction that made it a moving access for good (its every
		   later communication judged true: e2e_matrices' false fraction
		   0.00, detection.md §5.13). The kernel's si_addr says which
		   address fired. */
		if (t->watch.trap_addr && t->watch.trap_addr != bp) {
			pset_count(&pset.traps_stale);
			return;
		}
		/* a return breakpoint (before the instruction runs): the thread
		   that ends the set runs the burst (soft.c) */
		if (pset.rec.exec) {
			if (pset_end(w, &pset.ret_hits))
				soft__on_ret_bp(t, uctx);
			else
				pset_count(&pset.traps_late);
			return;
		}
		regs__read(uctx, &r);
		access_at(t, &r, tmp.watched.line, bp, tmp.writes_only, &s, &leaf);
		kind = rt_pset_trap_kind(true, tmp.watched.thread, t->id.index, s.addr, s.len, tmp.watched.line,
		                         HC_LINE);
		/* a poll-flag set (§5.58): the owner's own store of the flag is
		   the line's last write now, its entry (a new generation: a
		   trap that read the old record meanwhile is late); once a set
		   (a later own store is an own trap, as the test and §5.58 say) */
		if (fl && !fl_moved && kind == RT_PSET_TRAP_OWN && s.is_store && s.addr < (fl & ~(uint64_t)7) + 8 &&
		    s.addr + s.len > (fl & ~(uint64_t)7) && !was_zone) {
			uint32_t ctx = cct__context(t, uctx, leaf);
			uint64_t busy = rt_pset_word(rt_pset_gen_of(w), RT_PSET_BUSY);

			if (ctx != HC_NONE &&
			    __atomic_compare_exchange_n(&pset.state, &w, busy, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
				pset.rec.watched.addr = s.addr;
				pset.rec.watched.len = s.len;
				pset.rec.watched.ctx = ctx;
				pset.rec.watched.time = process__now();
				pset.rec.watched.cpu = regs__cpu();
				pset.rec.watched.is_load = false;
				pset.rec.watched.mask = 0;
				pset.rec.watched.update = false;
				pset.rec.flag_moved = true;
				__atomic_store_n(&pset.state, rt_pset_word(rt_pset_gen_of(w) + 1, RT_PSET_ARMED),
				                 __ATOMIC_RELEASE);
				pset_count(&pset.flag_moved);
				HC_DEBUG_LOG(HC_DBG_WATCH, "T%u poll-flag set: own store %#llx+%u is the entry now",
				             t->id.index, (unsigned long long)s.addr, s.len);
				return;
			}
		}
		if ((hc_rt.opt.poll_flag || hc_rt.opt.poll_budget) && !hc_rt.opt.poll_reader && !s.is_store &&
		    kind != RT_PSET_TRAP_LATE) {
			s.is_private = false;
			flag_note(&s, leaf);     /* else watch__poll_reader notes it */
		}
		if (zone && kind != RT_PSET_TRAP_LATE)
			zone_note_trap(t, &s);
		if (zone && kind != RT_PSET_TRAP_LATE) {
			/* a zone set: its entry is what it trapped before (pset.h) */
			switch (rt_pset_zone_trap_kind(tmp.watched.thread, tmp.watched.is_load, t->id.index,
			                               s.is_store)) {
			case RT_PSET_ZONE_ADOPT:
				zone_adopt(t, w, uctx, leaf, &s, t_start);
				if (pset.rec.pipe && !s.is_store)
					pipe_writes_only(t);
				return;
			case RT_PSET_ZONE_OWN:
				kind = RT_PSET_TRAP_OWN;
				pset_count(&pset.zone_own);
				break;
			case RT_PSET_ZONE_COMM:
				kind = RT_PSET_TRAP_FOREIGN;
				break;
			}
		}
		if (kind == RT_PSET_TRAP_OWN && lk &&
		    lock__pset_verdict(t, lk_slot, lk_lo, lk_changed, lk_bytes, lk_bp, leaf, s.addr, s.len,
		                       HC_NONE) == -2) {
			/* the releaser's own lock calls (a condition variable's
			   words): not the program's, never watched again */
			t->cnt.lock_pset_system++;
			if (!pset_end(w, &pset.ended_own))
				pset_count(&pset.traps_late);
			return;
		}
		if (kind == RT_PSET_TRAP_OWN && rd && s.is_store) {
			/* a reader set's publisher wrote the watched element (§5.57) */
			pset_count(&pset.traps_own);
			reader_adopt(t, w, uctx, leaf, &s);
			__atomic_add_fetch(&pset.spent_ns, process__now() - t_start + RT_PSET_TRAP_NS, __ATOMIC_RELAXED);
			return;
		}
		if (kind == RT_PSET_TRAP_OWN) {
			/* an edge set's trap at its previous trap's pc: not counted (§5.55) */
			bool again = zone && zone_a == RT_PSET_EDGE_PAIR && leaf == pset.rec.edge_pc;

			pset_count(&pset.traps_own);
			if (zone && zone_a == RT_PSET_EDGE_PAIR)
				pset.rec.edge_pc = leaf;
			if (!again && rt_pset_own_ends(__atomic_add_fetch(&pset.own_traps, 1, __ATOMIC_RELAXED),
			                     lk ? 4 : was_pipe ? RT_PIPE_OWN_MAX : zone ? RT_PSET_ZONE_OWN_MAX :
			                     fl_moved ? FLAG_OWN_MAX : RT_PSET_OWN_MAX))
				pset_end(w, &pset.ended_own);
			__atomic_add_fetch(&pset.spent_ns, process__now() - t_start + RT_PSET_TRAP_NS, __ATOMIC_RELAXED);
			if (edge_extra)
				__atomic_add_fetch(&pset.edge_spent_ns, process__now() - t_start + RT_PSET_TRAP_NS,
				                   __ATOMIC_RELAXED);
			return;
		}
		/* a lock set: the lock implementation's words (system code), or a
		   word whose line the releaser did not change, end it without a
		   communication; else true or false by what the releaser changed */
		if (kind == RT_PSET_TRAP_FOREIGN && loadmap__system_code(leaf) && lock__mutex_word(s.addr)) {
			t->cnt.lock_words_dropped++;
			if (!pset_end(w, &pset.ended_trap))
				pset_count(&pset.traps_late);
			return;
		}
		if (lk && kind == RT_PSET_TRAP_FOREIGN) {
			lk_v = lock__pset_verdict(t, lk_slot, lk_lo, lk_changed, lk_bytes, lk_bp, leaf, s.addr, s.len,
			                          tmp.watched.thread);
			if (lk_v < 0) {
				if (lk_v == -2)
					t->cnt.lock_pset_system++;
				else
					t->cnt.lock_pset_none++;
				if (!pset_end(w, &pset.ended_trap))
					pset_count(&pset.traps_late);
				return;
			}
			/* §5.53: a later releaser wrote the line last */
			lk_a = lock__pset_after(t, lk_slot, tmp.watched.thread, s.addr, s.len, &lk_peer, &lk_ctx);
			if (lk_a == -2 || lk_a == -3) {
				if (lk_a == -2)
					t->cnt.lock_after_own++;
				else
					t->cnt.lock_after_noctx++;
				if (!pset_end(w, &pset.ended_trap))
					pset_count(&pset.traps_late);
				return;
			}
			if (lk_a >= 0)
				lk_v = lk_a;
		}
		if (kind == RT_PSET_TRAP_LATE || !pset_end(w, &pset.ended_trap)) {
			pset_count(&pset.traps_late);
			return;
		}
		pset_count(&pset.traps_foreign);
		/* a start set's line (watch__pset_start): counted in the trapping
		   thread, as a per-thread start set's trap is */
		if (w == __atomic_load_n(&pset.start_word, __ATOMIC_RELAXED))
			t->cnt.start_traps_pset++;
		/* a creator's block line: the chain's next line (a thread it
		   found already: not a second communication) */
		if (blo && !chain_trap(t, &tmp.watched, tmp.candidates, blo, bhi, bp))
			return;
		/* The arming thread with its set still the one detection knows:
		   its own state, exactly as a per-thread set's trap. */
		th = owner == t->id.index && tmp.armed_at && t->det.armed && !t->det.start_set &&
		     t->det.armed_at == tmp.armed_at ? &t->det : &tmp;
	}
	if (lk_a >= 0 && th == &tmp) {
		tmp.watched.thread = lk_peer;
		tmp.watched.ctx = lk_ctx;
		tmp.watched.cpu = -1;
		t->cnt.lock_after_peer++;
	}
	if (th == &tmp) {
		tmp.thread = t->id.index;
		tmp.touched = NULL;
		tmp.lines = t->det.lines;  /* the re-fetch test (detection.md §5.24) */
		tmp.moving = tmp.fixed = false;
		tmp.sync = tmp.sync_set = tmp.reuse_set = tmp.handoff_set = false;
		tmp.nsamples = t->det.nsamples;
		tmp.t_prev = t->det.t_prev;
		tmp.armed = true;
		tmp.start_set = false;
		tmp.probe = false;
		tmp.dry_next = 0;
		for (int i = 0; i < HC_DETECT_DRY; i++)
			tmp.dry[i].level = 0;
		tmp.pc = 0;
		tmp.spin = t->det.spin;    /* the trapping thread's waits (detection.md §5.14) */
	}
	s.is_private = false;
	s.time = process__now();
	s.cpu = regs__cpu();
	switch (lock__sync_sys(leaf, s.addr, s.len)) {   /* §5.37: the lock implementation's */
	case RT_SYNC_OBJECT:
		t->cnt.sync_sys_pset_traps++;
		return;
	case RT_SYS_DATA:
		t->cnt.sys_data_traps++;
		return;
	}
	s.ctx = cct__context(t, uctx, leaf);
	if (s.ctx == HC_NONE)              /* the walk faulted: trap dropped */
		return;
	if (!was_zone && !lk) {
		/* a load off the flag of a line this thread polls (§5.58): the
		   line came to it at its poll, which read the flag first */
		uint32_t pctx = watch__poll_reader(t, &s, leaf);

		if (pctx != HC_NONE)
			s.ctx = pctx;
	}
	soft__note_access(t, leaf, &s);
	s.moving = t->det.moving;     /* the trapping instruction's, for §5.54 (tmp's is not) */
	/* the set's registers, not the arming thread's per-thread set size: a
	   trap off the published chunk of a 1-register set weighs one period,
	   not 7/(D - 1) of one (it watched that chunk alone) */
	th->nwatch = tmp.nwatch;
	matched = hc_detect_trap(&hc_rt.dcfg, th, &s, &comm);
	if (th == &tmp && tmp.t_prev > t->det.t_prev)
		t->det.t_prev = tmp.t_prev;
	if (th == &tmp)
		t->det.spin = tmp.spin;
	t->det.moving = t->det.fixed = false;
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u process-wide set trap slot %d: %s %#llx+%u, set of T%u on T%u's entry: %s",
	             t->id.index, slot, s.is_store ? "store" : "load", (unsigned long long)s.addr, s.len,
	             pset.rec.owner, tmp.watched.thread, matched ? "communication" : "none");
	if (!matched)
		return;
	pset_count(&pset.traps_comm);
	soft__sharing_sign();         /* the quiet-process rule (rate.h) */
	if (was_pipe) {
		pipe__comm();
	} else if (was_zone && zone_a == RT_PSET_EDGE_PAIR) {
		pset_count(&pset.edge_comms);         /* an edge set (§5.55) */
		if (edge_mem)                         /* its block's side found its neighbour (§5.64) */
			__atomic_add_fetch(&pset.edge_tab[(edge_mem >> 1) - 1].comms[edge_mem & 1], 1, __ATOMIC_RELAXED);
	} else if (was_zone) {
		pset_count(&pset.zone_comms);
		if (!rt_zone_found_get(&zone_found, zone_a, zone_b))
			pset_count(&pset.zone_pairs_new);
		rt_zone_found_add(&zone_found, zone_a, zone_b);
	}
	if (fl && !was_zone) {
		/* by the bytes of the entry (the store next to the flag, or the
		   flag's store), not the threads' masks of the line */
		if (s.addr < tmp.watched.addr + tmp.watched.len && tmp.watched.addr < s.addr + s.len) {
			comm.flags |= HC_COMM_TRUE;
			pset_count(&pset.flag_true);
		} else {
			comm.flags &= ~(uint32_t)HC_COMM_TRUE;
			pset_count(&pset.flag_false);
		}
	}
	if (lk) {
		if (lk_v == 1) {
			comm.flags |= HC_COMM_TRUE;
			t->cnt.lock_pset_true++;
		} else {
			comm.flags &= ~(uint32_t)HC_COMM_TRUE;
			t->cnt.lock_pset_false++;
		}
		comm.weight = lk_weight ? lk_weight : 1;
		if (hc_rt.opt.lock_rescale)
			comm.flags |= HC_COMM_LOCK;
	}
	if (rd) {
		/* a reader set's (§5.57): the lock sets' scale, a reader's line
		   or another writer's elements */
		comm.weight = s.is_store ? rd_weight_store : rd_weight;
		if (comm.weight == 0)
			comm.weight = 1;
		t->cnt.reader_comms++;
		__atomic_store_n(&pset.reader_dry, 0, __ATOMIC_RELAXED);
		if (s.is_store)
			t->cnt.reader_writers++;
	}
	if (fd) {
		if (fd_stands > 1)
			comm.weight *= fd_stands;
		t->cnt.feed_comms++;
		__atomic_store_n(&pset.feed_dry, 0, __ATOMIC_RELAXED);
	}
	if (hof) {
		comm.handoff_set = true;      /* counted in handoff_comms too */
		__atomic_add_fetch(&handoff_pset_comms, 1, __ATOMIC_RELAXED);
	}
	t->cnt.traps_matched++;
	record__comm(t, &comm);
	if (s.is_store && hc_detect_publish(&hc_rt.bb, &hc_rt.dcfg, &t->det, &s) == 1)
		t->cnt.published_trap++;
}

/* A trap that came while the thread could not take it (signal.c: the
   runtime busy, our own code, an asynchronous one): a per-thread set is
   dropped; a process-wide set's stays for the other threads. */
void watch__trap_blocked(struct rt_thread *t, int slot)
{
	if (slot & PSET_SLOT) {
		pset_count(&pset.traps_blocked);
		return;
	}
	t->cnt.traps_blocked++;
	watch__disarm(t);
	hc_detect_arm_failed(&t->det);
}

/* A trap in a thread without a record (the runtime's helper, a thread
   before its start or after its end). */
void watch__trap_outside(int slot)
{
	if (slot & PSET_SLOT)
		pset_count(&pset.traps_outside);
}

/* The process log's lines for the process-wide set (at exit). */
void watch__log(void)
{
	if (hc_rt.opt.arm_share)
		process__log("watchpoints: %llu per-thread arms refused while the thread had less than %u %% of "
		             "a CPU since its previous sample (HPCRUN_COMM_ARM_SHARE)",
		             (unsigned long long)arms_share_refused, hc_rt.opt.arm_share);
	if (hc_rt.dcfg.handoff_life && hc_rt.opt.handoff_ungated)
	{
		if (hc_rt.opt.handoff_ungated_crowded == UINT32_MAX)
			process__log("hand-off sets in a crowded process: open gated threads' registers, no cap "
			             "(HPCRUN_COMM_HANDOFF_UNGATED_CROWDED=N: at most N, then ask the gates): %u opened",
			             watch__handoff_crowded_opened());
		else
			process__log("hand-off sets in a crowded process: open at most %u gated threads' registers, "
			             "then ask the switch and share gates like a regular set "
			             "(HPCRUN_COMM_HANDOFF_UNGATED_CROWDED): %u opened",
			             hc_rt.opt.handoff_ungated_crowded, watch__handoff_crowded_opened());
	}
	if (hc_rt.dcfg.handoff_life && hc_rt.opt.handoff_pset)
		process__log("hand-off sets of threads the switch gate refuses: on the process-wide set, one line, "
		             "instead of opening their registers (HPCRUN_COMM_HANDOFF_PSET=1, detection.md §5.60): "
		             "%llu asked, %llu armed, %llu communications; %llu refused over their share of the "
		             "budget (%u permille of the process's CPU time, HPCRUN_COMM_HANDOFF_PSET_BUDGET; "
		             "spent %llu us)",
		             (unsigned long long)__atomic_load_n(&handoff_pset_asked, __ATOMIC_RELAXED),
		             (unsigned long long)__atomic_load_n(&handoff_pset_armed, __ATOMIC_RELAXED),
		             (unsigned long long)__atomic_load_n(&handoff_pset_comms, __ATOMIC_RELAXED),
		             (unsigned long long)__atomic_load_n(&handoff_pset_budget, __ATOMIC_RELAXED),
		             hc_rt.opt.handoff_pset_budget,
		             (unsigned long long)__atomic_load_n(&handoff_pset_spent_ns, __ATOMIC_RELAXED) / 1000);
	if (!pset.n) {
		if (hc_rt.opt.procset > 0 && hc_rt.sampler_kind == HC_SAMPLER_SOFT)
			process__log("process-wide watch set: none (HPCRUN_COMM_PROCSET=%d; no registers, "
			             "a per-thread sampler, or a fork child)", hc_rt.opt.procset);
		return;
	}
	if (__atomic_load_n(&pset_retired, __ATOMIC_ACQUIRE))
		process__log("process-wide watch set: closed at the switching level through the tick "
		             "(HPCRUN_COMM_TICK_PSET=0; its later asks are counted busy)");
	else if (__atomic_load_n(&pset_retire_wanted, __ATOMIC_ACQUIRE))
		process__log("process-wide watch set: asked to close at the switching level, never found idle");
	if (__atomic_load_n(&per_arm.on, __ATOMIC_ACQUIRE))
		process__log("process-wide watch set: opened per arm from the switching level through the tick on "
		             "(HPCRUN_COMM_TICK_EMPTY=1; performance.md \"Session 29\"): %llu registers opened on "
		             "%llu threads' events, %llu closed, %llu opens failed, %llu live threads beyond the %d "
		             "covered",
		             (unsigned long long)per_arm.arms, (unsigned long long)per_arm.opens,
		             (unsigned long long)per_arm.closes, (unsigned long long)per_arm.open_failed,
		             (unsigned long long)per_arm.uncovered, PSET_TIDS);
	else if (__atomic_load_n(&per_arm.wanted, __ATOMIC_ACQUIRE))
		process__log("process-wide watch set: asked to open per arm at the switching level, never found idle");
	process__log("process-wide watch set: %d registers in every thread; %llu sets armed for threads the "
	        "switch gate refused (%llu refused: %llu busy, %llu over the %u.%u%% budget; %llu failed); "
	        "traps: %llu foreign (%llu communications), %llu the publisher's own, %llu late (%llu of an "
	        "earlier set: another address fired), %llu blocked, %llu outside; ended by a foreign trap "
	        "%llu, own traps %llu, the owner %llu, age %llu; spent %llu us (%llu of the process's switches while "
	        "a set was armed, charged %u ns each: HPCRUN_COMM_PROCSET_SWITCH_NS; %llu while it was crowded, %u ns "
	        "each: HPCRUN_COMM_PROCSET_SWITCH_CROWDED_NS)",
	        pset.n, (unsigned long long)pset.armed,
	        (unsigned long long)(pset.refused_busy + pset.refused_budget),
	        (unsigned long long)pset.refused_busy, (unsigned long long)pset.refused_budget,
	        hc_rt.opt.procset_budget / 10, hc_rt.opt.procset_budget % 10, (unsigned long long)pset.arm_failed,
	        (unsigned long long)pset.traps_foreign, (unsigned long long)pset.traps_comm,
	        (unsigned long long)pset.traps_own,
	        (unsigned long long)(pset.traps_late + pset.traps_stale), (unsigned long long)pset.traps_stale,
	        (unsigned long long)pset.traps_blocked, (unsigned long long)pset.traps_outside,
	        (unsigned long long)pset.ended_trap, (unsigned long long)pset.ended_own,
	        (unsigned long long)pset.ended_owner, (unsigned long long)pset.ended_age,
	        (unsigned long long)(pset.spent_ns / 1000), (unsigned long long)pset.sw_charged,
	        hc_rt.opt.procset_switch_ns, (unsigned long long)pset.sw_charged_crowded,
	        hc_rt.opt.procset_switch_crowded_ns);
	process__log("process-wide watch set: %llu involuntary context switches while armed not charged "
	             "(HPCRUN_COMM_PROCSET_SWITCH_VOL=%d: voluntary ones only)", (unsigned long long)pset.sw_exempt,
	             hc_rt.opt.procset_switch_vol);
	process__log("process-wide watch set poll flags (HPCRUN_COMM_POLL_FLAG=%d, §5.58): %llu poll-loop loads "
	             "sampled (samples and traps), %llu flags noted, %llu flags a line took from its region; %llu sets on a flag for a store next to it (%llu refused: busy or "
	             "budget), %llu entries moved to the owner's store of the flag; communications %llu true, "
	             "%llu false (by the entry's bytes); %llu trapped loads charged to their thread's poll (HPCRUN_COMM_POLL_READER=%d); %llu sets "
	             "on poll lines over the budget, within their own (HPCRUN_COMM_POLL_BUDGET=%u permille; %llu us)",
	             hc_rt.opt.poll_flag ? 1 : 0,
	             (unsigned long long)pset.flag_polls, (unsigned long long)pset.flag_noted,
	             (unsigned long long)pset.flag_region,
	             (unsigned long long)pset.flag_sets, (unsigned long long)pset.flag_refused,
	             (unsigned long long)pset.flag_moved, (unsigned long long)pset.flag_true,
	             (unsigned long long)pset.flag_false, (unsigned long long)pset.flag_reader,
	             hc_rt.opt.poll_reader ? 1 : 0, (unsigned long long)pset.poll_budget_arms, hc_rt.opt.poll_budget,
	             (unsigned long long)(pset.poll_spent_ns / 1000));
	if (hc_rt.opt.procset_target & RT_PSET_TARGET_ZONE)
		process__log("process-wide watch set zones (where two threads' samples meet, 64 KiB blocks; "
		        "HPCRUN_COMM_PROCSET_ZONE): %llu samples noted (%llu of them stores; zones %s; %llu "
		        "collisions or lost races); %llu zone "
		        "sets asked, %llu armed (%llu on a pair not found yet; zones of %llu lines on average, picked %s, standing for %llu lines on "
		        "average; %llu wider than %u lines thinned out); %llu entries adopted, %llu own traps, %llu "
		        "communications (%llu of a pair the first time; pairs found are watched less: %s); %llu samples on "
		        "a line their thread had not sampled before armed nothing; %llu zone sets armed by threads "
		        "the switch gate let through (HPCRUN_COMM_PROCSET_ZONE_OPEN=%d), standing for %s; %llu of the set's traps "
		        "noted (HPCRUN_COMM_PROCSET_ZONE_TRAPS=%d)",
		        (unsigned long long)pset.zone_notes, (unsigned long long)pset.zone_notes_store,
		        hc_rt.opt.procset_zone_writer ? "only where either thread stored" :
		        "with or without a store (HPCRUN_COMM_PROCSET_ZONE_WRITER=0)",
		        (unsigned long long)pset.zone_collisions,
		        (unsigned long long)pset.zone_asked, (unsigned long long)pset.zone_armed,
		        (unsigned long long)pset.zone_armed_new,
		        (unsigned long long)(pset.zone_armed ? pset.zone_lines / pset.zone_armed : 0),
		        hc_rt.opt.procset_zone_cap ? "among a pair's zones alike, a set standing for at most "
		        "HPCRUN_COMM_PROCSET_ZONE_CAP lines (§5.64)" :
		        hc_rt.opt.procset_zone_narrow ? "among a pair's zones in inverse proportion to their lines" :
		        "alike (HPCRUN_COMM_PROCSET_ZONE_NARROW=0)",
		        (unsigned long long)(pset.zone_armed ? pset.zone_stands / pset.zone_armed : 0),
		        (unsigned long long)pset.zone_thinned, RT_ZONE_ARM_LINES,
		        (unsigned long long)pset.zone_adopts, (unsigned long long)pset.zone_own,
		        (unsigned long long)pset.zone_comms, (unsigned long long)pset.zone_pairs_new,
		        hc_rt.opt.procset_zone_spread >= 2 ? "on, squared (HPCRUN_COMM_PROCSET_ZONE_SPREAD=2)" :
		        hc_rt.opt.procset_zone_spread ? "on (HPCRUN_COMM_PROCSET_ZONE_SPREAD=1)" : "off (HPCRUN_COMM_PROCSET_ZONE_SPREAD=0)",
		        (unsigned long long)pset.sample_unseen, (unsigned long long)pset.zone_open,
		        hc_rt.opt.procset_zone_open ? 1 : 0,
		        hc_rt.opt.procset_zone_open_lines ? "the zone's lines" : "one line (HPCRUN_COMM_PROCSET_ZONE_OPEN_LINES=0: §5.31)",
		        (unsigned long long)pset.zone_notes_trap,
		        hc_rt.opt.procset_zone_traps ? 1 : 0);
	if ((hc_rt.opt.procset_target & RT_PSET_TARGET_ZONE) && hc_rt.opt.procset_zone_overlap_cap)
		process__log("process-wide watch set zones that overlap (both threads' ranges cover them; never "
		             "thinned): a set stands for at most %u lines, as a thinned gap's pick "
		             "(HPCRUN_COMM_PROCSET_ZONE_OVERLAP_CAP; detection.md §5.73): %llu sets capped",
		             hc_rt.opt.procset_zone_overlap_cap, (unsigned long long)pset.zone_overlap_capped);
	else if (hc_rt.opt.procset_target & RT_PSET_TARGET_ZONE)
		process__log("process-wide watch set zones that overlap (both threads' ranges cover them; never "
		             "thinned): a set stands for all their lines (HPCRUN_COMM_PROCSET_ZONE_OVERLAP_CAP=N "
		             "caps them at N, 64 measured; detection.md §5.73)");
	process__log("process-wide watch set budget checks: the process's CPU time read %llu times, %llu answers "
	             "from the last read (at most %u periods old, HPCRUN_COMM_PROCSET_CPU_PERIODS; performance.md "
	             "\"Session 26\"); %llu zone turns refused (busy or over the budget) before their zone pick "
	             "(HPCRUN_COMM_PROCSET_PRECHECK=%d)",
	             (unsigned long long)pcpu_reads, (unsigned long long)pcpu_cached, hc_rt.opt.pset_cpu_periods,
	             (unsigned long long)pset.zone_skipped, hc_rt.opt.pset_precheck ? 1 : 0);
	if (hc_rt.opt.procset_target & RT_PSET_TARGET_ZONE)
		process__log("process-wide watch set zones across a block edge: %s (HPCRUN_COMM_PROCSET_ZONE_EDGE=%u), "
		             "a set on one standing for %s (HPCRUN_COMM_PROCSET_ZONE_EDGE_ONE=%d)",
		             hc_rt.opt.procset_zone_edge ? "kept to the lines either side of the edge" : "the whole gap",
		             hc_rt.opt.procset_zone_edge,
		             hc_rt.opt.procset_zone_edge && hc_rt.opt.procset_zone_edge_one ? "one line" : "the zone's lines",
		             hc_rt.opt.procset_zone_edge_one ? 1 : 0);
	process__log("process-wide watch set edge sets (a gated thread's sample in a block it allocated, "
	             "on one of the block's first or last %u words, HPCRUN_COMM_PROCSET_EDGE_WORDS, after %u, HPCRUN_COMM_PROCSET_EDGE_SKIP; chance %u/4, "
	             "HPCRUN_COMM_PROCSET_EDGE, before the zones: %s, HPCRUN_COMM_PROCSET_EDGE_FIRST; §5.55): %llu asked, %llu armed, "
	             "%llu communications; %llu samples not asked (more than %u armed a communication)",
	             hc_rt.opt.procset_edge_words, hc_rt.opt.procset_edge_skip, hc_rt.opt.procset_edge,
	             hc_rt.opt.procset_edge_first ? "yes" : "no", (unsigned long long)pset.edge_asked,
	             (unsigned long long)pset.edge_armed, (unsigned long long)pset.edge_comms,
	             (unsigned long long)pset.edge_stopped, RT_PSET_EDGE_TRIES);
	process__log("process-wide watch set edge memory (HPCRUN_COMM_PROCSET_EDGE_MEMORY=%d, §5.64: a block's side worth a set "
	             "while armed < %u + 2 x its communications, the side with fewer first): %llu samples' blocks passed over "
	             "(no side worth one, no other block of the thread's), %llu moved to another block of their thread's, "
	             "%llu blocks without a slot; over the set's budget while edge sets communicate "
	             "(HPCRUN_COMM_PROCSET_EDGE_BUDGET=%u permille of their own): %llu armed, spent %llu us",
	             hc_rt.opt.procset_edge_memory ? 1 : 0, RT_PSET_EDGE_DRY, (unsigned long long)pset.edge_dry,
	             (unsigned long long)pset.edge_moved, (unsigned long long)pset.edge_slots_full,
	             hc_rt.opt.procset_edge_budget, (unsigned long long)pset.edge_extra_arms,
	             (unsigned long long)(pset.edge_spent_ns / 1000));
	process__log("process-wide watch set at thread starts: %llu start sets' extra line armed on the idle set "
	        "(HPCRUN_COMM_PROCSET_START=%d), %llu not (taken meanwhile, or over the budget); %llu start sets left that line's publisher to the set while it "
	        "watched it (HPCRUN_COMM_START_SHARE=%d); the extra line waits for the set's budget: %s "
	        "(HPCRUN_COMM_START_EXEMPT=%d)", (unsigned long long)pset.start_armed,
	        hc_rt.opt.procset_start ? 1 : 0, (unsigned long long)pset.start_failed, (unsigned long long)pset.start_shared, hc_rt.opt.start_share ? 1 : 0,
	        hc_rt.opt.start_exempt ? "no" : "yes", hc_rt.opt.start_exempt ? 1 : 0);
	process__log("process-wide watch set's creator's hand-off chains (HPCRUN_COMM_START_CHAIN=%u re-arms at "
	        "most): %llu started (%llu of them going on with a chain of the same creator that had not found all), %llu threads refused meanwhile (wanted by the chain), %llu lines re-armed, "
	        "%llu not (busy, budget, no resident line); traps %llu by a thread new to the chain, %llu by one it "
	        "found already (not recorded); chains ended with every thread found %llu, at the re-arm limit %llu",
	        hc_rt.opt.start_chain, (unsigned long long)pset.chain_started, (unsigned long long)pset.chain_carried,
	        (unsigned long long)pset.chain_waiting,
	        (unsigned long long)pset.chain_armed, (unsigned long long)pset.chain_dropped,
	        (unsigned long long)pset.chain_new, (unsigned long long)pset.chain_repeat,
	        (unsigned long long)pset.chain_done, (unsigned long long)pset.chain_max);
	process__log("process-wide watch set's return breakpoints (HPCRUN_COMM_PROCSET_RET=%d): %llu armed, "
	        "%llu not (busy, budget), %llu hit", hc_rt.opt.procset_ret ? 1 : 0,
	        (unsigned long long)pset.ret_armed, (unsigned long long)pset.ret_failed,
	        (unsigned long long)pset.ret_hits);
	process__log("process-wide watch set cost: arm median %llu ns, mean %llu ns, p99 %llu ns (n %llu); "
	        "end median %llu ns, mean %llu ns (n %llu) (wall time of the MODIFY_ATTRIBUTES / DISABLE "
	        "ioctls: every running copy is updated on its CPU)",
	        (unsigned long long)rt_cost_quantile(&pset.cost_arm, 0.5),
	        (unsigned long long)(pset.cost_arm.n ? pset.cost_arm.sum_ns / pset.cost_arm.n : 0),
	        (unsigned long long)rt_cost_quantile(&pset.cost_arm, 0.99), (unsigned long long)pset.cost_arm.n,
	        (unsigned long long)rt_cost_quantile(&pset.cost_end, 0.5),
	        (unsigned long long)(pset.cost_end.n ? pset.cost_end.sum_ns / pset.cost_end.n : 0),
	        (unsigned long long)pset.cost_end.n);
}
