/* SPDX-License-Identifier: BSD-3-Clause */
/* soft.c — the soft address sampler (no PMU needed): a per-thread
   task-clock perf event interrupts the thread every P ns of its CPU time
   with a synchronous SIGTRAP; the handler decodes the interrupted
   instruction and, because timer samples skid past the stalled access,
   first tries the previous instruction (doc/findings.md §4.2; at -O0 through the
   pointer's stack slot). The chosen access goes through the detection core;
   a store, or a load of a line sampled before, is published with its
   calling context. Because stores almost never stall, a sample of a
   possibly shared load may start a single-step burst that finds and
   publishes the thread's next store with exact registers (doc/detection.md
   §5). sampler__on_sample and the burst's steps run in signal context
   (safety.h). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <linux/hw_breakpoint.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "probe/probe.h"
#include "runtime/regs.h"
#include "runtime/loadmap.h"
#include "runtime/pset.h"
#include "runtime/sampler/soft.h"
#include "runtime/sampler/rate.h"
#include "runtime/sampler/startset.h"
#include "runtime/alloc/blocks.h"
#include "runtime/alloc/track.h"
#include "decode/funcstart.h"
#include "detect/scan.h"
#include "detect/step.h"

#define RMW_LOOKAHEAD 3
#define RT_UPDATE_BACK 10  /* instructions a store's update test looks back (§5.54) */
#define RT_UPDATE_AHEAD 10 /* and a trapped load's looks ahead (§5.54) */

/* The period of this thread's samples now, ns: the one asked, times the
   crowded-process multiplier of its latest sample (rate.h). The windows
   counted in periods (recent lines, burst evidence) follow it. */
static inline uint64_t period_now(const struct rt_thread *t)
{
	return hc_rt.opt.period * (t->sampler.mult > 1 ? t->sampler.mult : 1);
}

/* This thread's soft-sampler state (soft.h), behind the sampler slot. */
static inline struct rt_soft_thread *own(const struct rt_thread *t)
{
	return t->sampler.own;
}

/* A PC's slot in the per-thread caches of read-modify-write positions
   (rmw[], upd[]). */
static inline unsigned rmw_slot(uint64_t pc)
{
	return (unsigned)((pc >> 1) ^ (pc >> 11)) & (RT_RMW_CACHE - 1);
}

/* The first store at or after pc, within straight-line code of the same
   function (at most n instructions, no branch), or 0. */
static uint64_t find_store(uint64_t pc, const struct hc_regs *r, int n)
{
	uint64_t start, end, a = pc;
	struct hc_insn in;

	if (!hc_funcs_lookup(pc, &start, &end))
		return 0;
	for (int k = 0; k < n && a < end; k++) {
		size_t avail = end - a < 15 ? (size_t)(end - a) : 15;
		if (hc_decode_insn((const uint8_t *)(uintptr_t)a, avail, a, r, &in) < 0 || in.branch)
			return 0;
		for (int i = 0; i < in.n; i++)
			if ((in.acc[i].rw & HC_ACC_W) && in.acc[i].kind != HC_ACC_STACK)
				return a;
		a += in.len;
	}
	return 0;
}

/* A sampled load is usually the first half of a read-modify-write
   (x = x + 1 compiles to load; op; store). The store is about to run and
   rarely stalls, so timer samples almost never land on it and nothing would
   ever be published. If straight-line code right after the sample stores to
   exactly the loaded bytes, the sample counts as that store. The store's
   position is cached per PC, with the recipe of its address when it has a
   single plain write (then no decode at all: performance.md, F6); the
   address is recomputed from the registers every time (a changed base
   register simply fails to match). */
static bool store_follows(struct rt_thread *t, uint64_t from, const struct hc_regs *r,
                          const struct hc_mem_access *ld)
{
	unsigned slot = rmw_slot(from);
	struct hc_acc_recipe rec[HC_MAX_ACC];
	uint64_t st, ea;
	struct hc_insn in;
	int exact, writes = 0, w = 0;

	if (own(t)->rmw[slot].pc == from) {
		st = own(t)->rmw[slot].store;
		if (st && own(t)->rmw[slot].has_recipe)
			return hc_recipe_ea(&own(t)->rmw[slot].write, r, &ea) && ea == ld->ea &&
			       own(t)->rmw[slot].write.size == ld->size;
	} else {
		st = find_store(from, r, RMW_LOOKAHEAD);
		own(t)->rmw[slot].pc = from;
		own(t)->rmw[slot].store = st;
		own(t)->rmw[slot].has_recipe = false;
		own(t)->rmw[slot].ahead = 0;
	}
	if (!st || (exact = hc_decode_recipes((const uint8_t *)(uintptr_t)st, 15, st, r, &in, rec)) < 0)
		return false;
	for (int i = 0; i < in.n; i++)
		if (in.acc[i].rw & HC_ACC_W) {
			writes++;
			w = i;
		}
	if (exact == 0 && writes == 1) {
		own(t)->rmw[slot].write = rec[w];
		own(t)->rmw[slot].has_recipe = true;
	}
	for (int i = 0; i < in.n; i++)
		if ((in.acc[i].rw & HC_ACC_W) && in.acc[i].ea == ld->ea && in.acc[i].size == ld->size)
			return true;
	return false;
}

/* A sampled load with no store of its bytes within RMW_LOOKAHEAD
   (store_follows said no): -O0's `x += v` stores them further on, after
   computing the address again (hc_decode_store_after with the evaluator
   says 2: only a recomputed address, not -O2's store further on through
   registers left intact; §5.56; HPCRUN_COMM_UPDATE_SAMPLED). Asked again only at a PC where it
   once said yes (the rmw cache's entry, store_follows' for from). */
static bool store_follows_o0(struct rt_thread *t, uint64_t from, const struct hc_regs *r,
                             const struct hc_mem_access *ld)
{
	unsigned slot = rmw_slot(from);
	bool yes;

	if (!hc_rt.dcfg.update_bytes || !hc_rt.opt.update_sampled || !hc_rt.opt.update_recompute ||
	    own(t)->rmw[slot].pc != from ||
	    own(t)->rmw[slot].ahead == 2)
		return false;
	yes = hc_decode_store_after(r, from, RT_UPDATE_AHEAD, ld->ea, ld->size, true, NULL) == 2;
	if (!own(t)->rmw[slot].ahead)
		own(t)->rmw[slot].ahead = yes ? 1 : 2;
	return yes;
}

/* A trap's walk from an update's load reached the store at st, writing
   the bytes the load read with the thread's registers (-O0's address
   computed again, however it is computed: streamcluster-like `t[(x >> 40)
   % 24] += v` divides by a multiply the evaluator does not run
   backwards). The store's later samples are that update's store. */
static void learn_store(struct rt_thread *t, uint64_t st)
{
	unsigned slot = rmw_slot(st);

	own(t)->upd[slot].pc = st;
	own(t)->upd[slot].load = 0;
	own(t)->upd[slot].learned = true;
	t->cnt.updates_learned++;
}

/* Did straight-line code right before the store at leaf load its bytes
   (hc_decode_load_before)? The load's position is cached per store PC
   (the walk back decodes up to RT_UPDATE_BACK instructions); a hit
   decodes that one load again with the registers (its address
   registers were not written between, checked at the walk). A load
   found by evaluating -O0's recomputed address (§5.56) is not r's to
   re-decode: the store is learned as an update's, as from a trap's walk
   (learn_store), and not walked again. */
static bool load_precedes(struct rt_thread *t, uint64_t leaf, const struct hc_regs *r,
                          const struct hc_mem_access *st)
{
	unsigned slot = rmw_slot(leaf);
	uint64_t ld, start, end;
	struct hc_insn in;

	if (own(t)->upd[slot].pc == leaf && own(t)->upd[slot].learned)
		return true;     /* a trap's walk saw it store its load's bytes */

	if (own(t)->upd[slot].pc != leaf) {
		int got = hc_decode_load_before(r, leaf, t->prev, RT_UPDATE_BACK, st->ea, st->size, &ld,
		                                hc_rt.opt.update_recompute);

		own(t)->upd[slot].pc = leaf;
		own(t)->upd[slot].learned = got == 2;
		own(t)->upd[slot].load = got == 1 ? ld : 0;
		return got != 0;
	}
	ld = own(t)->upd[slot].load;
	if (!ld || !hc_funcs_lookup(ld, &start, &end) ||
	    hc_decode_insn((const uint8_t *)(uintptr_t)ld, end - ld < 15 ? (size_t)(end - ld) : 15, ld, r, &in) < 0)
		return false;
	for (int i = 0; i < in.n; i++)
		if (in.acc[i].rw == HC_ACC_R && in.acc[i].ea == st->ea && in.acc[i].size == st->size)
			return true;
	return false;
}

/* Is the access acc of the instruction at leaf (next: the instruction
   after it; r: the registers there) an update, reading and writing the
   same bytes (hc_bb_entry.update, detection.md §5.54)? One RMW
   instruction; a load whose bytes straight-line code right after it
   stores (store_follows; a trap's load: hc_decode_store_after, further);
   a store after a load of its bytes. */
static bool is_update(struct rt_thread *t, uint64_t leaf, uint64_t next, const struct hc_regs *r,
                      const struct hc_mem_access *acc, bool trap)
{
	if (!hc_rt.dcfg.update_bytes || acc->kind != HC_ACC_EXPLICIT)
		return false;
	if ((acc->rw & HC_ACC_R) && (acc->rw & HC_ACC_W))
		return true;
	if (!(acc->rw & HC_ACC_W)) {
		uint64_t st;

		if (store_follows(t, next, r, acc))
			return true;
		if (!trap || !hc_decode_store_after(r, next, RT_UPDATE_AHEAD, acc->ea, acc->size,
		                                    hc_rt.opt.update_recompute, &st))
			return false;
		if (hc_rt.opt.update_learn)
			learn_store(t, st);
		return true;
	}
	return load_precedes(t, leaf, r, acc);
}

/* One event for the whole process (doc/samplers.md, "Soft sampler"):
   opened by the process's first thread with inherit + inherit_thread, so
   the kernel gives every thread created afterwards (CLONE_THREAD only: a
   fork child starts over) its own copy at clone, counting that thread's CPU
   time and sending it its own SIGTRAPs with the same cookie. Thread
   creation makes no system call of ours for sampling (doc/reliability.md). Its fd
   stays with the process until exit, even when the opening thread ends
   (the copies keep sampling and are still inherited: checked on this
   kernel). HPCRUN_COMM_SAMPLER_PER_THREAD=1 opens one event per thread
   instead (the previous scheme). */
static int inh_fd = -1;
static uint32_t inh_pid;

/* The crowded-process rate (rate.h): the coarse event (mult x the period,
   inherited, disabled until the process is crowded), the process's live
   measured threads and CPUs, the rate in effect, and how often it changed.
   crowd_lock: one thread at a time changes the rate (not signal context). */
static int coarse_fd = -1;
/* ... and the heavily crowded level's event (mult x heavy; rate.h), when
   HPCRUN_COMM_CROWDED_HEAVY is not 1; crowd_heavy: its multiplier, 1 while
   there is no such event. crowd_coarse: the level in effect (0 fine,
   1 coarse, 2 heavy). */
static int heavy_fd = -1;
static uint32_t crowd_mult = RT_CROWD_MULT_DEFAULT, crowd_heavy = 1, crowd_live, crowd_ncpu;
/* ... and the switching level's (level 3, rate.h: mult x heavy x switchy),
   when HPCRUN_COMM_SWITCHY and _RATE are not off; crowd_switchy: its
   multiplier over the heavy one, 1 while there is no such event.
   switchy_on: the process switches often (the latest look's verdict);
   switchy_look: one thread at a time looks (getrusage); switchy_sw/_cpu:
   the process's switches and CPU ns at the previous look;
   switchy_max: the highest rate seen (a log figure, switches per CPU s). */
static int switchy_fd = -1;
static uint32_t crowd_switchy = 1;
static bool switchy_on;
static int switchy_look;
static uint64_t switchy_sw, switchy_cpu, switchy_max, switchy_looks, switchy_switches, switchy_early, switchy_early_at;
/* ... the highest rate of voluntary switches per user CPU second since the
   crowding seen, and the looks that found the process switching by that
   rate alone (HPCRUN_COMM_SWITCHY_USER_RATE, rate.h) */
static uint64_t switchy_umax, switchy_by_user;
/* ... and the process's voluntary switches and user CPU ns when it became
   crowded enough for the rule (switchy_based: 1 taking, 2 taken) */
static uint64_t switchy_base_sw, switchy_base_ucpu;
static int switchy_based;
static int crowd_coarse, crowd_lock;
/* The switching level through the tick (rate.h, HPCRUN_COMM_TICK): tick_on,
   level 3 is in effect with per-thread timers and every task-clock event
   disabled. tick_slot: the live measured threads, one word each (rate.h,
   rt_tick_word: tid and timer id + 1, 0 = free), so that the thread that
   changes the level makes or deletes every thread's timer at once (a
   blocked thread takes no sample that could make its own); a thread that
   found no slot (tick_unslotted) keeps the process on the task-clock.
   tick_failed: a timer could not be made (RLIMIT_SIGPENDING: each holds a
   queued signal): level 3 runs on the task-clock from then on. Log
   figures: timers made, failures, changes through the tick, samples and
   overruns (expirations merged into one signal, not weighed). */
static uint64_t tick_slot[RT_TICK_SLOTS];
static bool tick_on, tick_failed;
static uint32_t tick_unslotted;
static uint64_t tick_made, tick_fail_count, tick_samples, tick_overruns, tick_changes;
/* HPCRUN_COMM_TICK_CLOSE (rate.h): tick_closed, the task-clock events were
   closed at the change to level 3 (the process stays there; a thread
   starting later samples on its own timer); which levels had an event (the
   log's lines); when (the process's samples then); threads started since,
   and those of them left without a sampler (no slot or no timer). */
static bool tick_closed, closed_heavy, closed_switchy;
static uint64_t tick_closed_at, tick_closed_threads, tick_closed_unsampled;
static uint64_t heavy_switches;    /* changes to the heavy level */
static uint64_t crowd_samples;     /* the process's samples so far (the warm-up) */
static uint64_t crowd_switches, crowd_switch_failed, crowd_max_live;
/* The quiet-process rule (rate.h): the crowded rule's own state, the
   process's sample count at the latest sign of sharing, and how often the
   rate went coarse while the process was not crowded (quiet). */
static bool crowd_crowded;
static uint64_t quiet_last, quiet_switches;

/* A level's event (rate.h): fine, coarse, heavy, switching. */
static int *level_fd(uint32_t level)
{
	return level == 0 ? &inh_fd : level == 1 ? &coarse_fd : level == 2 ? &heavy_fd : &switchy_fd;
}

/* Is level lv's event open in this process (not a fork child's inherited
   copy of the parent's)? */
static bool level_here(uint32_t lv)
{
	int *fd = level_fd(lv);

	return *fd >= 0 && inh_pid == (uint32_t)getpid() && fds__check(fd);
}

/* The multiplier of the level in effect. */
static uint32_t level_mult(uint32_t level)
{
	return rt_rate_level_mult3(level, crowd_mult, crowd_heavy, crowd_switchy);
}

/* Is the process's inherited event there (this thread has its copy)? */
static bool inherited_here(void)
{
	return !hc_rt.opt.per_thread && (inh_fd >= 0 || __atomic_load_n(&tick_closed, __ATOMIC_ACQUIRE)) &&
	       inh_pid == hc_rt.pid;
}

/* The thread's start needs an fd, except for a thread with its copy of
   the inherited event. */
static int soft_thread_fds(const struct rt_thread *t)
{
	return t->id.index == 0 || !inherited_here();
}

/* mult 1: the fine event (enabled); mult > 1: the coarse one, opened
   disabled (its copies follow the parent's ENABLE and DISABLE). */
static int open_event(int *where, bool inherit, uint32_t mult)
{
	struct perf_event_attr a;
	int fd;

	hc_soft_attr(&a, hc_rt.opt.period * mult, rt_rate_cookie(signal__cookie_sample(), mult));
	a.inherit = inherit;
	a.inherit_thread = inherit;
	/* The fd was reserved by the caller; adopted (fds.c) once open. */
	fd = hc_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	fds__adopt(fd, where, true);
	if (mult > 1)
		return 0;       /* opened disabled (hc_soft_attr) */
	if (ioctl(*where, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		int err = errno;
		fds__close(where, "the sampler");
		fds__reserve(1);      /* the caller gives the reservation back */
		*where = -1;
		return -err;
	}
	return 0;
}

/* Threads of this process that have ended: a thread that begins after
   one did may be a later generation reading what an earlier one wrote. */
static uint32_t threads_ended;
/* The last RT_ENDED_RING of them (index + 1, at position n % RT_ENDED_RING
   for the n-th to end, n counted by threads_ended): the peers of a join
   set. */
#define RT_ENDED_RING HC_JOIN_PEERS
static uint32_t ended_ring[RT_ENDED_RING];
static uint64_t ended_at[RT_ENDED_RING];    /* process__now() at each one's end (the same positions) */
static uint64_t ended_start[RT_ENDED_RING]; /* and at its start (id.start_ns) */
/* Their lifetimes (wall ns, an exponential average, 1/4 per thread): two
   of them bound the age of a start set's candidates. */
static uint64_t lifetime_avg;

static uint64_t start_horizon(void)
{
	return 2 * __atomic_load_n(&lifetime_avg, __ATOMIC_RELAXED);
}

static bool join_found(const struct rt_soft_thread *o, uint32_t peer);

/* The threads that ended from ring position `from` on (the last
   RT_ENDED_RING of them), other than t and than those t's join sets found
   since its last join, into peers; their number. */
static uint32_t ended_peers_at(struct rt_thread *t, uint32_t from, uint32_t *peers, uint64_t *ends,
                               uint64_t *starts)
{
	uint32_t end = __atomic_load_n(&threads_ended, __ATOMIC_ACQUIRE), pos, n = 0;

	pos = end - from > RT_ENDED_RING ? end - RT_ENDED_RING : from;
	for (; pos != end; pos++) {
		uint32_t v = __atomic_load_n(&ended_ring[pos % RT_ENDED_RING], __ATOMIC_ACQUIRE);
		if (v && v - 1 != t->id.index && !join_found(own(t), v - 1)) {
			if (ends)
				ends[n] = __atomic_load_n(&ended_at[pos % RT_ENDED_RING], __ATOMIC_RELAXED);
			if (starts)
				starts[n] = __atomic_load_n(&ended_start[pos % RT_ENDED_RING], __ATOMIC_RELAXED);
			peers[n++] = v - 1;
		}
	}
	return n;
}

static uint32_t ended_peers(struct rt_thread *t, uint32_t from, uint32_t *peers)
{
	return ended_peers_at(t, from, peers, NULL, NULL);
}

/* The publishers a start set of t watches (and `extra`, the one of its
   line on the process-wide set, HC_NONE = none): the late start set
   leaves them out. */
static void start_note_watched(struct rt_thread *t, uint32_t extra)
{
	struct rt_soft_thread *o = own(t);
	uint32_t cap = sizeof o->start_watched / sizeof o->start_watched[0];

	for (uint32_t i = 0; i <= t->det.nwatch && i < HC_MAX_WATCH && o->nstart_watched < cap; i++) {
		uint32_t p = i < t->det.nwatch ? t->det.start[i].thread : extra;

		if (p != HC_NONE)
			o->start_watched[o->nstart_watched++] = p + 1;
	}
}

/* A start set (detection.md §5.8): a thread that begins after others have
   ended watches, from its first instruction, up to D lines other threads
   stored to (hc_detect_arm_start); the hand-off reads of short-lived
   generations are over long before the thread's first sample. At most
   RT_START_SETS per thread (one at its start, more after a start set's
   trap, while no sample has come). Not in signal context at the thread's
   start, but a sample that lands meanwhile is refused (runtime code). */
void soft__start_set(struct rt_thread *t)
{
	struct hc_detect_result res;
	struct hc_detect_config cfg;
	uint32_t peers[RT_ENDED_RING + 1], n, extra_peer = HC_NONE;
	uint64_t ends[RT_ENDED_RING + 1], starts[RT_ENDED_RING + 1];
	bool extra;

	if (!sampler__is(&soft__sampler) || !own(t) || hc_rt.nwatch < 1 || t->id.index == 0 ||
	    !__atomic_load_n(&threads_ended, __ATOMIC_RELAXED) || t->det.nsamples > 0 ||
	    own(t)->start_sets >= RT_START_SETS || t->det.armed)
		return;
	n = ended_peers_at(t, 0, peers, ends, starts);
	/* the first one: the threads that ended last (startset.h) */
	if (hc_rt.opt.start_recent == 1 && own(t)->start_sets == 0)
		n = rt_start_recent(peers, ends, n, __atomic_load_n(&lifetime_avg, __ATOMIC_RELAXED) / 2);
	else if (hc_rt.opt.start_recent == 2 && own(t)->start_sets == 0)
		n = rt_start_overlap(peers, ends, starts, n);
	if (n < RT_ENDED_RING + 1 && t->id.creator != HC_NONE && t->id.creator != t->id.index)
		peers[n++] = t->id.creator;    /* it wrote the thread's input, likely */
	/* One line more than the thread's registers hold goes to the
	   process-wide set while it is idle: the peers are chosen among all
	   of them as if the set had D + 1 registers (their weights say so),
	   the last one taken out of the thread's own set. */
	cfg = hc_rt.dcfg;
	extra = hc_rt.opt.procset_start && cfg.nwatch >= 1 && cfg.nwatch < HC_MAX_WATCH &&
	        (hc_rt.opt.start_share && !hc_rt.opt.start_exempt ? watch__pset_start_ready() : watch__pset_idle());
	if (extra)
		cfg.nwatch++;
	/* Or, while the set watches a sibling's start line, every thread's
	   copy of it does: that line's publisher is left to it, the thread's
	   own registers go to the others (when they would not all fit). */
	else if (hc_rt.opt.procset_start && hc_rt.opt.start_share && n > cfg.nwatch) {
		uint32_t p = watch__pset_start_peer(false), m;

		if (p != HC_NONE && (m = rt_start_drop(peers, n, p)) < n && m > 0) {
			(void)watch__pset_start_peer(true);
			n = m;
			extra_peer = p;
		}
	}
	if (!hc_detect_arm_start(&hc_rt.bb, &cfg, &t->det, process__now(), start_horizon(), peers, n, &res))
		return;
	if (extra && t->det.nwatch > hc_rt.dcfg.nwatch && res.nwatch == t->det.nwatch) {
		uint32_t k = t->det.nwatch - 1;
		const struct hc_bb_entry *e = &t->det.start[k];
		bool on = hc_rt.opt.start_exempt ? watch__pset_start_exempt(t, e, t->det.start_mult[k], res.watch_addr[k])
		                                 : watch__pset_start(t, e, t->det.start_mult[k], res.watch_addr[k]);

		if (on || !hc_rt.opt.start_share)
			extra_peer = e->thread;   /* else the late set may take it */
		t->det.nwatch = k;
		res.nwatch = k;
	}
	own(t)->start_sets++;
	start_note_watched(t, extra_peer);
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u start set %u: %u peers (T%u T%u T%u T%u T%u), watching T%u T%u T%u, T%u on the process-wide set (%s)",
	             t->id.index, own(t)->start_sets, n, n > 0 ? peers[0] : 0, n > 1 ? peers[1] : 0, n > 2 ? peers[2] : 0,
	             n > 3 ? peers[3] : 0, n > 4 ? peers[4] : 0, res.nwatch > 0 ? t->det.start[0].thread : 0,
	             res.nwatch > 1 ? t->det.start[1].thread : 0, res.nwatch > 2 ? t->det.start[2].thread : 0,
	             extra_peer, extra ? "extra" : watch__pset_idle() ? "idle, over budget" : "busy");
	record__apply_set(t, &res);
	if (t->det.armed)
		t->cnt.start_sets++;
}

/* A late start set (HPCRUN_COMM_START_LATE): at a thread's first sample,
   if it began after others ended, one more start set on the ended
   threads (and the creator) that its start sets did not watch. A start
   set is armed before the thread runs and catches what the thread reads
   first (a hand-off, over in microseconds); a thread that goes on
   rewriting what an older thread wrote (generations' overwrite pairs)
   meets that line again and again, and a publisher that a start set
   watched without a trap is not such a peer. Chosen as at the start (the
   board's entries as fresh as then: prev_sample 0), weights among the
   publishers passed. Signal context (the sample's handler). */
void soft__start_set_late(struct rt_thread *t)
{
	struct rt_soft_thread *o = own(t);
	struct hc_detect_result res;
	uint32_t peers[RT_ENDED_RING + 1], all[RT_ENDED_RING + 1], n, m;
	bool armed, start_set, join_set;
	uint32_t nwatch;
	uint64_t prev;

	if (!sampler__is(&soft__sampler) || !o || !hc_rt.opt.start_late || o->start_late_done ||
	    t->id.index == 0 || o->start_sets == 0 || o->start_sets >= RT_START_SETS || hc_rt.nwatch < 1)
		return;
	o->start_late_done = true;
	m = ended_peers(t, 0, all);
	if (m < RT_ENDED_RING + 1 && t->id.creator != HC_NONE && t->id.creator != t->id.index)
		all[m++] = t->id.creator;
	if ((n = rt_start_unwatched(all, m, o->start_watched, o->nstart_watched, peers)) == 0)
		return;
	armed = t->det.armed;
	nwatch = t->det.nwatch;
	start_set = t->det.start_set;
	join_set = t->det.join_set;
	prev = t->det.prev_sample;
	t->det.armed = false;           /* the regular set of this sample gives way */
	t->det.prev_sample = 0;
	if (!hc_detect_arm_start(&hc_rt.bb, &hc_rt.dcfg, &t->det, process__now(), start_horizon(), peers, n,
	                         &res)) {
		t->det.prev_sample = prev;
		t->det.armed = armed;
		t->det.nwatch = nwatch;
		t->det.start_set = start_set;
		t->det.join_set = join_set;
		return;
	}
	t->det.prev_sample = prev;
	o->start_sets++;
	start_note_watched(t, HC_NONE);
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u late start set: %u peers, watching T%u T%u T%u", t->id.index, n,
	             res.nwatch > 0 ? t->det.start[0].thread : 0, res.nwatch > 1 ? t->det.start[1].thread : 0,
	             res.nwatch > 2 ? t->det.start[2].thread : 0);
	record__apply_set(t, &res);
	if (t->det.armed)
		t->cnt.start_sets_late++;
}

void soft__on_create(struct rt_thread *t)
{
	if (sampler__is(&soft__sampler) && own(t))
		own(t)->join_mark = __atomic_load_n(&threads_ended, __ATOMIC_ACQUIRE);
}

/* A creator's block set's block: a page or more. */
#define RT_START_BLOCK_MIN 4096u

/* May anyone have written the line (hc_detect_arm_block)? Its page is
   resident: a page of a fresh mapping nobody touched is not. */
static bool line_resident(uint64_t line)
{
	return rt_page_resident(line) == 1;
}

/* A creator's block set (HPCRUN_COMM_START_BLOCK; detection.md §5.16,
   "Session 14"): a thread that no start set serves (nothing ended, or no
   ended thread's line on the board) watches, from its first instruction,
   D lines of a heap block of a page or more in which a sample of its
   creator saw it store — the arrays the creator initialised before starting
   its workers, which each worker's first sweep reads or overwrites, over
   long before its first sample, while the creator's few samples there put
   one line of them on the board. At the thread's start (not signal
   context). */
/* No store of the creator's on the board (its initialisation was not
   sampled: HPCRUN_COMM_START_BLOCK=2): one of the blocks of 64 KiB or more
   it allocated last and still holds, uniformly; the entry names the
   creator at the block's allocation (its context: the allocation's), the
   line and time filled in by the set. */
static bool block_allocated(struct rt_thread *t, struct hc_bb_entry *e, struct rt_block *b)
{
	struct rt_block big[4];
	uint32_t n, thread, ctx;
	/* mode 2: any of them; HPCRUN_COMM_START_BLOCK_WRITTEN: one it had
	   written when it created its first thread since (track__creating) */
	bool written_only = hc_rt.opt.start_block < 2;

	if ((written_only && !hc_rt.opt.start_block_written) ||
	    (n = track__recent_big(t->id.creator, written_only, big, 4)) == 0)
		return false;
	*b = big[(process__now() >> 6) % n];
	if (!blocks__site_get(b->site, &thread, &ctx))
		return false;
	memset(e, 0, sizeof(*e));
	e->thread = t->id.creator;
	e->ctx = ctx;
	e->addr = e->line = b->base & ~(uint64_t)(HC_LINE - 1);
	e->len = 8;
	e->cpu = -1;
	e->time = process__now();
	e->mask = ~(uint64_t)0;
	return true;
}

static void start_set_block(struct rt_thread *t)
{
	struct hc_detect_result res;
	struct hc_bb_entry e;
	struct rt_block b;
	uint32_t count;
	bool written = false;      /* the line is of a block the creator had written */

	if (!sampler__is(&soft__sampler) || !own(t) || !hc_rt.opt.start_block || hc_rt.nwatch < 1 ||
	    t->id.index == 0 || t->id.creator == HC_NONE || t->id.creator == t->id.index ||
	    t->det.nsamples > 0 || t->det.armed || own(t)->start_sets >= RT_START_SETS)
		return;
	/* any store of the creator's in a heap block of a page or more (a
	   one-word result in a small block is not what workers sweep): a
	   sample at the creator's initialisation is rarely a moving store's */
	for (int i = 0;; i++) {
		if (i == 4 || !hc_detect_pick_line(&hc_rt.bb, &t->det, t->id.creator, false, &e, &count)) {
			if (!block_allocated(t, &e, &b))
				return;
			count = 1;
			written = hc_rt.opt.start_block < 2;
			break;
		}
		if (blocks__find(e.addr, &b) && b.size >= RT_START_BLOCK_MIN)
			break;
	}
	/* A thread whose registers are not open yet (by default,
	   HPCRUN_COMM_START_BLOCK_OPEN=0; with =1 only a thread the switch gate
	   would refuse) gets one line on the idle process-wide set instead of
	   a start set on its own registers. Such a set opens the thread's
	   registers for its life: every later switch pays for them (LULESH 2x:
	   the first two workers opened at their start, when the gate has no
	   evidence and the team is not crowded yet, CPU x2 in those runs;
	   performance.md "Session 15"), and its own sets then watch what the
	   gate kept them off (stencil -O2 -t 4: the barrier's words, pairs
	   exact mode does not count, precision 0.87-0.95 in 3 of 3 runs). */
	if (!t->watch.opened && (!hc_rt.opt.start_block_open || !thread__watch_allowed(t))) {
		struct hc_detect_config one = hc_rt.dcfg;

		one.nwatch = 1;
		if (!hc_rt.opt.procset_start)
			return;
		/* the set busy with a line of this creator's chain: the chain
		   goes on until this thread traps too (pset.h) */
		if (!watch__pset_start_ready()) {
			bool waits = watch__pset_chain_wait(t->id.creator);

			if (waits)
				t->cnt.start_chain_waits++;
			HC_DEBUG_LOG(HC_DBG_WATCH, "T%u creator's block line: the process-wide set is not ready (%s)",
			             t->id.index, waits ? "a line of the creator's chain: waits for it" :
			             watch__pset_idle() ? "over its budget" : "busy");
			return;
		}
		if (!hc_detect_arm_block(&one, &t->det, &e, count, b.base, b.base + b.size, line_resident,
		                         process__now(), &res))
			return;
		if (watch__pset_start_block(t, &t->det.start[0], t->det.start_mult[0], res.watch_addr[0], b.base,
		                            b.base + b.size)) {
			t->cnt.start_sets_block_pset++;
			if (written)
				t->cnt.start_sets_block_written++;
		}
		hc_detect_arm_failed(&t->det);
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u creator's block line on the process-wide set: T%u %#llx%s",
		             t->id.index, t->id.creator, (unsigned long long)res.watch_addr[0],
		             written ? " (a block it had written, none of its stores on the board)" : "");
		return;
	}
	if (!hc_detect_arm_block(&hc_rt.dcfg, &t->det, &e, count, b.base, b.base + b.size, line_resident,
	                         process__now(), &res))
		return;
	own(t)->start_sets++;
	start_note_watched(t, HC_NONE);    /* the late set leaves the creator out */
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u creator's block set: T%u block %#llx+%llu, %u lines, %u candidates",
	             t->id.index, t->id.creator, (unsigned long long)b.base, (unsigned long long)b.size,
	             res.nwatch, count);
	record__apply_set(t, &res);
	if (t->det.armed) {
		t->cnt.start_sets_block++;
		if (written)
			t->cnt.start_sets_block_written++;
	}
}

static bool join_found(const struct rt_soft_thread *o, uint32_t peer)
{
	for (uint32_t i = 0; i < o->join_sets && i < RT_JOIN_SETS; i++)
		if (o->join_found[i] == peer + 1)
			return true;
	return false;
}

/* The heap block holding a join set's trap, [*lo, *hi): where the joiner
   reads its peers' output (HPCRUN_COMM_JOIN_OBJECT). Signal context
   (blocks__find is lock-free). */
static bool join_object(uint64_t trap_addr, uint64_t *lo, uint64_t *hi)
{
	struct rt_block b;

	if (!hc_rt.opt.join_object || !trap_addr || !blocks__find(trap_addr, &b) || !b.size)
		return false;
	*lo = b.base & ~(uint64_t)(HC_LINE - 1);
	*hi = b.base + b.size;
	return true;
}

/* A join set (detection.md §5.15): the joiner reads the joined threads'
   output in the microseconds after pthread_join returns, long before its
   next sample; main's final sum of a generation's results is the
   commonest case. Peers: the threads that ended since this thread last
   created one (its ring positions join_mark..threads_ended, the last
   RT_ENDED_RING of them), minus those a join set since the last join
   found already. After a trap (trap_addr), the next set keeps to the heap
   block that trap read while any peer's line lies there (Session 13). */
void soft__join_set(struct rt_thread *t, bool at_join, uint64_t trap_addr)
{
	struct rt_soft_thread *o = own(t);
	struct hc_detect_result res;
	uint32_t peers[RT_ENDED_RING], n;
	uint64_t lo, hi, prev;
	bool in_object = false, armed;

	if (!sampler__is(&soft__sampler) || !o || hc_rt.nwatch < 1)
		return;
	if (at_join) {
		o->join_sets = 0;
		o->join_prev = t->det.prev_sample;
		t->det.start_skip = 0;
	} else if (t->det.start_skip && o->join_sets > 0) {
		o->join_found[o->join_sets - 1] = t->det.start_skip;   /* the last set's find */
	}
	if (o->join_sets >= RT_JOIN_SETS)
		return;
	/* after a trap: the peers not found yet, in the object the trap read
	   (their lines elsewhere only when none lies there), fresh as at the
	   join — a sample of the joiner since (its sum under way) made every
	   peer's entry look old, and the chain of join sets ended there */
	prev = t->det.prev_sample;
	if (!at_join && hc_rt.opt.join_object && o->join_prev < prev)
		t->det.prev_sample = o->join_prev;
	if ((n = ended_peers(t, o->join_mark, peers)) > 0 && !at_join && join_object(trap_addr, &lo, &hi))
		in_object = hc_detect_arm_join_in(&hc_rt.bb, &hc_rt.dcfg, &t->det, process__now(), start_horizon(),
		                                  peers, n, lo, hi, &res);
	armed = in_object || (n > 0 && hc_detect_arm_join(&hc_rt.bb, &hc_rt.dcfg, &t->det, process__now(),
	                                                   start_horizon(), peers, n, &res));
	t->det.prev_sample = prev;
	if (!armed) {
		if (at_join)
			t->cnt.join_sets_none++;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u join set %s: %u peers, nothing to watch", t->id.index,
		             at_join ? "at a join" : "after a trap", n);
		return;
	}
	o->join_found[o->join_sets] = 0;
	o->join_sets++;
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u join set %u%s: %u peers, %u lines: T%u %#llx, T%u %#llx, T%u %#llx",
	             t->id.index, o->join_sets, in_object ? " (in the trap's object)" : "", n, res.nwatch,
	             t->det.start[0].thread,
	             (unsigned long long)res.watch_addr[0], res.nwatch > 1 ? t->det.start[1].thread : 0,
	             (unsigned long long)(res.nwatch > 1 ? res.watch_addr[1] : 0),
	             res.nwatch > 2 ? t->det.start[2].thread : 0,
	             (unsigned long long)(res.nwatch > 2 ? res.watch_addr[2] : 0));
	record__apply_set(t, &res);
	if (t->det.armed) {
		t->cnt.join_sets++;
		if (in_object)
			t->cnt.join_sets_object++;
	}
}

/* The level the process calls for now (rate.h: the crowding levels 0-2,
   then the switching rule's level 3), from level `now`; *crowded is
   rt_rate_level's state. */
static uint32_t level_wanted(uint32_t now, bool *crowded, uint32_t live)
{
	bool sw = __atomic_load_n(&switchy_on, __ATOMIC_RELAXED);
	uint32_t want = rt_rate_level(now > 2 ? 2 : now, crowded, live, crowd_ncpu, crowd_mult, crowd_heavy,
	                              hc_rt.opt.crowd_heavy_from, __atomic_load_n(&crowd_samples, __ATOMIC_RELAXED),
	                              rt_rate_warmup_left(RT_CROWD_WARMUP, hc_rt.opt.switchy_warmup && crowd_switchy > 1,
	                                                  sw),
	                              __atomic_load_n(&quiet_last, __ATOMIC_RELAXED), hc_rt.opt.quiet_window);

	return rt_rate_level_switchy(want, sw, crowd_switchy);
}

/* A timer on thread tid's user CPU time, armed at the switching level's
   period, sending it SIGTRAP with the sample cookie: its id, or -1 (errno).
   Raw system calls (glibc's timer_create keeps ids of its own). Signal
   context or a thread's start. */
static int tick_create(uint32_t tid)
{
	struct sigevent ev;
	struct itimerspec its;
	int64_t sec, nsec;
	int id = -1;

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGTRAP;
	ev.sigev_value.sival_ptr = (void *)(uintptr_t)rt_rate_cookie(signal__cookie_sample(), level_mult(3));
	ev._sigev_un._tid = (pid_t)tid;
	if (syscall(SYS_timer_create, rt_tick_clockid((int)tid), &ev, &id) < 0)
		return -1;
	rt_tick_interval(hc_rt.opt.period * level_mult(3), &sec, &nsec);
	its.it_interval.tv_sec = (time_t)sec;
	its.it_interval.tv_nsec = (long)nsec;
	its.it_value = its.it_interval;
	if (syscall(SYS_timer_settime, id, 0, &its, NULL) < 0) {
		int err = errno;

		syscall(SYS_timer_delete, id);
		errno = err;
		return -1;
	}
	__atomic_add_fetch(&tick_made, 1, __ATOMIC_RELAXED);
	return id;
}

/* Slot k's thread gets its timer (no-op if it has one or left): false
   when a timer could not be made for a live thread. */
static bool tick_arm_slot(uint32_t k)
{
	uint64_t w = __atomic_load_n(&tick_slot[k], __ATOMIC_ACQUIRE);
	int id;

	if (!w || rt_tick_word_id(w) >= 0)
		return true;
	if ((id = tick_create(rt_tick_word_tid(w))) < 0) {
		/* EINVAL for a thread that has ended meanwhile (its clock and
		   target gone): asked with a null signal, else a failure */
		if ((errno == ESRCH || errno == EINVAL) &&
		    syscall(SYS_tgkill, (pid_t)hc_rt.pid, (pid_t)rt_tick_word_tid(w), 0) < 0 && errno == ESRCH)
			return true;
		__atomic_add_fetch(&tick_fail_count, 1, __ATOMIC_RELAXED);
		return false;
	}
	/* the thread may have ended (its slot freed or taken) meanwhile */
	if (!__atomic_compare_exchange_n(&tick_slot[k], &w, rt_tick_word(rt_tick_word_tid(w), id), false,
	                                 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		syscall(SYS_timer_delete, id);
	return true;
}

/* Slot k's timer deleted (the thread stays in its slot). */
static void tick_disarm_slot(uint32_t k)
{
	uint64_t w = __atomic_load_n(&tick_slot[k], __ATOMIC_ACQUIRE);

	while (w && rt_tick_word_id(w) >= 0) {
		if (__atomic_compare_exchange_n(&tick_slot[k], &w, rt_tick_word(rt_tick_word_tid(w), -1), false,
		                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			syscall(SYS_timer_delete, rt_tick_word_id(w));
			return;
		}
	}
}

static void tick_disarm_all(void)
{
	for (uint32_t k = 0; k < RT_TICK_SLOTS; k++)
		tick_disarm_slot(k);
}

/* HPCRUN_COMM_TICK_CLOSE (rate.h), under crowd_lock, once every thread's
   timer runs: close the four task-clock events; the kernel frees every
   thread's copy with its parent. tick_closed first, so that a thread
   starting meanwhile counts as one with a copy (its timer: tick_register)
   and not as one needing an event of its own. Signal context (close). */
static void tick_close_events(void)
{
	closed_heavy = heavy_fd >= 0;
	closed_switchy = switchy_fd >= 0;
	tick_closed_at = __atomic_load_n(&crowd_samples, __ATOMIC_RELAXED);
	__atomic_store_n(&tick_closed, true, __ATOMIC_RELEASE);
	for (uint32_t lv = 0; lv <= 3; lv++)
		fds__close(level_fd(lv), "the sampler");
}

/* The switching level through the tick (rate.h), under crowd_lock: to
   level 3, every registered thread's timer, then the level in effect's
   event disabled (any failure, or a thread without a slot: the timers
   deleted, and level 3 on its task-clock event as without the tick); from
   level 3, the wanted level's event enabled, then every timer deleted.
   Signal context (system calls only). */
static bool tick_change(uint32_t now, uint32_t want)
{
	int *on = level_fd(want), *off = level_fd(now);

	if (want == 3 && !__atomic_load_n(&tick_failed, __ATOMIC_RELAXED) &&
	    !__atomic_load_n(&tick_unslotted, __ATOMIC_RELAXED)) {
		bool ok = fds__check(off);

		__atomic_store_n(&tick_on, true, __ATOMIC_RELEASE);    /* threads starting now make theirs */
		for (uint32_t k = 0; ok && k < RT_TICK_SLOTS; k++)
			ok = tick_arm_slot(k);
		if (ok && ioctl(*off, PERF_EVENT_IOC_DISABLE, 0) == 0) {
			tick_changes++;
			if (hc_rt.opt.tick_empty)
				watch__pset_per_arm_ask();
			else if (hc_rt.opt.tick_pset_close)
				watch__pset_retire_ask();
			if (hc_rt.opt.tick_close || hc_rt.opt.tick_empty)
				tick_close_events();
			return true;
		}
		__atomic_store_n(&tick_on, false, __ATOMIC_RELEASE);
		__atomic_store_n(&tick_failed, true, __ATOMIC_RELAXED);
		tick_disarm_all();
		/* ... and on to the task-clock's level 3 below */
	}
	if (now == 3 && __atomic_load_n(&tick_on, __ATOMIC_RELAXED)) {
		if (!fds__check(on) || ioctl(*on, PERF_EVENT_IOC_ENABLE, 0) < 0)
			return false;
		__atomic_store_n(&tick_on, false, __ATOMIC_RELEASE);
		tick_disarm_all();
		return true;
	}
	return fds__check(on) && fds__check(off) && ioctl(*on, PERF_EVENT_IOC_ENABLE, 0) == 0 &&
	       ioctl(*off, PERF_EVENT_IOC_DISABLE, 0) == 0;
}

/* The live measured threads' tids, at most max of them, into tids (the
   process-wide set opened per arm, watch.c); returns how many were
   written, *all how many there were. Signal context (loads only). */
uint32_t soft__live_tids(uint32_t *tids, uint32_t max, uint32_t *all)
{
	uint32_t n = 0, a = 0;

	for (uint32_t k = 0; k < RT_TICK_SLOTS; k++) {
		uint64_t w = __atomic_load_n(&tick_slot[k], __ATOMIC_ACQUIRE);

		if (!w)
			continue;
		a++;
		if (n < max)
			tids[n++] = rt_tick_word_tid(w);
	}
	*all = a;
	return n;
}

/* A starting thread takes a slot (and, at the switching level through the
   tick, its timer); an ending one gives it back and deletes its timer. */
static void tick_register(struct rt_thread *t)
{
	uint32_t k0 = t->id.index % RT_TICK_SLOTS;

	own(t)->tick_slot = -1;
	for (uint32_t i = 0; i < RT_TICK_PROBE; i++) {
		uint32_t k = (k0 + i) % RT_TICK_SLOTS;
		uint64_t z = 0;

		if (__atomic_compare_exchange_n(&tick_slot[k], &z, rt_tick_word(t->id.tid, -1), false,
		                                __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			own(t)->tick_slot = (int)k;
			break;
		}
	}
	if (__atomic_load_n(&tick_closed, __ATOMIC_ACQUIRE))
		__atomic_add_fetch(&tick_closed_threads, 1, __ATOMIC_RELAXED);
	if (own(t)->tick_slot < 0) {
		__atomic_add_fetch(&tick_unslotted, 1, __ATOMIC_RELAXED);
		if (__atomic_load_n(&tick_closed, __ATOMIC_ACQUIRE))
			__atomic_add_fetch(&tick_closed_unsampled, 1, __ATOMIC_RELAXED);
		return;
	}
	if (__atomic_load_n(&tick_on, __ATOMIC_ACQUIRE) && !tick_arm_slot((uint32_t)own(t)->tick_slot)) {
		__atomic_store_n(&tick_failed, true, __ATOMIC_RELAXED);   /* crowd_update falls back */
		if (__atomic_load_n(&tick_closed, __ATOMIC_ACQUIRE))   /* ... but has no event left */
			__atomic_add_fetch(&tick_closed_unsampled, 1, __ATOMIC_RELAXED);
	}
}

static void tick_unregister(struct rt_thread *t)
{
	uint64_t w;

	if (own(t)->tick_slot < 0) {
		if (own(t)->tick_slot == -1)
			__atomic_sub_fetch(&tick_unslotted, 1, __ATOMIC_RELAXED);
		own(t)->tick_slot = -2;
		return;
	}
	w = __atomic_exchange_n(&tick_slot[own(t)->tick_slot], 0, __ATOMIC_ACQ_REL);
	if (w && rt_tick_word_id(w) >= 0)
		syscall(SYS_timer_delete, rt_tick_word_id(w));
	own(t)->tick_slot = -2;
}

void soft__on_tick(int overrun)
{
	__atomic_add_fetch(&tick_samples, 1, __ATOMIC_RELAXED);
	if (overrun > 0)
		__atomic_add_fetch(&tick_overruns, (uint64_t)overrun, __ATOMIC_RELAXED);
}

/* Change the process's rate to what its live threads call for (rate.h):
   enable the wanted event before disabling the other, so that no thread
   goes unsampled meanwhile (a sample of either weighs what it stands for).
   Called at each thread's start and end, and by the sample that ends the
   warm-up (signal context: system calls and atomics only); a caller that
   finds another one at it leaves the job to it, and the holder looks again
   after letting go. */
static void crowd_update(void)
{
	for (;;) {
		uint32_t live = __atomic_load_n(&crowd_live, __ATOMIC_RELAXED), want, now;
		bool failed = false;
		int *on, *off;

		if (coarse_fd < 0 || inh_fd < 0 || inh_pid != hc_rt.pid)
			return;
		if (__atomic_exchange_n(&crowd_lock, 1, __ATOMIC_ACQUIRE))
			return;
		if (__atomic_load_n(&tick_closed, __ATOMIC_ACQUIRE)) {   /* level 3 for good */
			__atomic_store_n(&crowd_lock, 0, __ATOMIC_RELEASE);
			return;
		}
		now = (uint32_t)crowd_coarse;
		/* a thread that started at level 3 could not make its timer:
		   level 3 goes on the task-clock (its event, then no timer) */
		if (now == 3 && __atomic_load_n(&tick_on, __ATOMIC_RELAXED) &&
		    __atomic_load_n(&tick_failed, __ATOMIC_RELAXED) && fds__check(&switchy_fd) &&
		    ioctl(switchy_fd, PERF_EVENT_IOC_ENABLE, 0) == 0) {
			__atomic_store_n(&tick_on, false, __ATOMIC_RELEASE);
			tick_disarm_all();
		}
		want = level_wanted(now, &crowd_crowded, live);
		if (want != now) {
			on = level_fd(want);
			off = level_fd(now);
			if (hc_rt.opt.tick ? tick_change(now, want) :
			    fds__check(on) && fds__check(off) && ioctl(*on, PERF_EVENT_IOC_ENABLE, 0) == 0 &&
			    ioctl(*off, PERF_EVENT_IOC_DISABLE, 0) == 0) {
				__atomic_store_n(&crowd_coarse, (int)want, __ATOMIC_RELAXED);
				crowd_switches++;
				if (want && !crowd_crowded)
					quiet_switches++;
				if (want == 2)
					heavy_switches++;
				if (want == 3) {
					uint64_t n = __atomic_load_n(&crowd_samples, __ATOMIC_RELAXED);

					switchy_switches++;
					if (n < RT_CROWD_WARMUP) {   /* its warm-up ended early (rate.h) */
						switchy_early++;
						switchy_early_at = n;
					}
				}
				HC_DEBUG_LOG(HC_DBG_SAMPLE, "sampling rate: %s (%u live threads on %u CPUs%s): every "
				             "%llu ns of a thread's CPU time",
				             want == 3 ? "switching" : want == 2 ? "heavy" : want ? "coarse" : "fine", live,
				             crowd_ncpu, want && !crowd_crowded ? ", quiet" : "",
				             (unsigned long long)(hc_rt.opt.period * level_mult(want)));
			} else {
				/* left as it is (both events may be on: a sample of
				   either weighs what it stands for) */
				crowd_switch_failed++;
				failed = true;
			}
		}
		__atomic_store_n(&crowd_lock, 0, __ATOMIC_RELEASE);
		if (failed)
			return;
		live = __atomic_load_n(&crowd_live, __ATOMIC_RELAXED);
		{
			bool crowded = crowd_crowded;   /* a look, not a change */

			now = (uint32_t)__atomic_load_n(&crowd_coarse, __ATOMIC_RELAXED);
			if (level_wanted(now, &crowded, live) == now)
				return;
		}
	}
}

/* One level's event (disabled until the rate switches to it) on its own
   reserved fd: true when open; else the fd stays -1 and the log says that
   `who` keeps `rate` (the level below). */
static bool level_open(int *fd, uint32_t mult, const char *event, const char *who, const char *rate)
{
	int err;

	if (!fds__reserve(1)) {
		process__log("sampling rate: no fd for the %s: %s keeps the %s rate", event, who, rate);
		return false;
	}
	if ((err = open_event(fd, true, mult)) < 0) {
		fds__unreserve(1);
		*fd = -1;
		process__log("sampling rate: the %s cannot be opened (%s): %s keeps the %s rate", event,
		             strerror(-err), who, rate);
		return false;
	}
	return true;
}

/* The process's first thread: the coarse event beside the fine one (its own
   fd, reserved here; none: the process keeps the fine rate). */
static void crowd_open(void)
{
	cpu_set_t cs;

	if (coarse_fd >= 0)
		return;
	crowd_mult = hc_rt.opt.crowd_mult;
	crowd_ncpu = sched_getaffinity(0, sizeof cs, &cs) == 0 ? (uint32_t)CPU_COUNT(&cs) : 0;
	if (crowd_mult <= 1 || !crowd_ncpu ||
	    !level_open(&coarse_fd, crowd_mult, "coarse event", "a crowded process", "fine"))
		return;
	/* the heavily crowded level (rate.h); without it, the coarse one */
	if (hc_rt.opt.crowd_heavy <= 1 ||
	    !level_open(&heavy_fd, crowd_mult * hc_rt.opt.crowd_heavy, "heavy event", "a heavily crowded process",
	                "coarse"))
		return;
	crowd_heavy = hc_rt.opt.crowd_heavy;
	/* the switching level (rate.h); without it, the heavy one */
	if (hc_rt.opt.switchy <= 1 || !hc_rt.opt.switchy_rate ||
	    !level_open(&switchy_fd, rt_rate_level_mult3(3, crowd_mult, crowd_heavy, hc_rt.opt.switchy),
	                "switching level's event", "a process that switches often", "heavy"))
		return;
	crowd_switchy = hc_rt.opt.switchy;
}

/* The switching rule's look (rate.h, level 3): the process's context
   switches per second of its CPU time since the previous look; a change of
   verdict asks crowd_update for the level. Signal context (one getrusage
   system call, atomics); only while the process is heavily crowded, every
   RT_SWITCHY_EVERY of its samples, one thread at a time. */
static void switchy_look_now(void)
{
	struct rusage ru;
	uint64_t sw, cpu, ucpu, dsw, dcpu, usw = 0, uns = 0;
	bool was, now;

	if (switchy_fd < 0 || __atomic_exchange_n(&switchy_look, 1, __ATOMIC_ACQUIRE))
		return;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		sw = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
		cpu = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
		      ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
		ucpu = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000ull;
		dsw = sw - switchy_sw;
		dcpu = cpu - switchy_cpu;
		if (__atomic_load_n(&switchy_based, __ATOMIC_ACQUIRE) == 2 && (uint64_t)ru.ru_nvcsw >= switchy_base_sw &&
		    ucpu > switchy_base_ucpu) {
			usw = (uint64_t)ru.ru_nvcsw - switchy_base_sw;
			uns = ucpu - switchy_base_ucpu;
		}
		if (sw >= switchy_sw && cpu > switchy_cpu) {
			if (dsw < UINT64_MAX / 1000000000ull && dsw * 1000000000ull / dcpu > switchy_max)
				switchy_max = dsw * 1000000000ull / dcpu;
			if (uns && usw < UINT64_MAX / 1000000000ull && usw * 1000000000ull / uns > switchy_umax)
				switchy_umax = usw * 1000000000ull / uns;
			was = __atomic_load_n(&switchy_on, __ATOMIC_RELAXED);
			now = rt_rate_switchy_user(was, dsw, dcpu, hc_rt.opt.switchy_rate, usw, uns,
			                           hc_rt.opt.switchy_user_rate);
			if (now && !was && !rt_rate_switchy(was, dsw, dcpu, hc_rt.opt.switchy_rate))
				switchy_by_user++;
			__atomic_store_n(&switchy_on, now, __ATOMIC_RELAXED);
			switchy_looks++;
		}
		switchy_sw = sw;
		switchy_cpu = cpu;
	}
	__atomic_store_n(&switchy_look, 0, __ATOMIC_RELEASE);
	{
		uint32_t lv = (uint32_t)__atomic_load_n(&crowd_coarse, __ATOMIC_RELAXED);

		/* ... and in the warm-up (levels 0-1), a process found switching
		   ends it (HPCRUN_COMM_SWITCHY_WARMUP, rate.h) */
		if ((lv == 2 && __atomic_load_n(&switchy_on, __ATOMIC_RELAXED)) ||
		    (lv == 3 && !__atomic_load_n(&switchy_on, __ATOMIC_RELAXED)) ||
		    (lv < 2 && hc_rt.opt.switchy_warmup && __atomic_load_n(&switchy_on, __ATOMIC_RELAXED)))
			crowd_update();
	}
}

/* The switching rule's user rate (rate.h, HPCRUN_COMM_SWITCHY_USER_RATE)
   counts from the process's first thread beyond CPUs + 1: its voluntary
   switches and user CPU time then, once (a thread's start: one getrusage). */
static void switchy_base(void)
{
	struct rusage ru;
	int z = 0;

	if (switchy_fd < 0 || !hc_rt.opt.switchy_user_rate ||
	    !rt_switch_crowded(__atomic_load_n(&crowd_live, __ATOMIC_RELAXED), crowd_ncpu) ||
	    __atomic_load_n(&switchy_based, __ATOMIC_RELAXED) ||
	    !__atomic_compare_exchange_n(&switchy_based, &z, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return;            /* stays 1: no user rate */
	switchy_base_sw = (uint64_t)ru.ru_nvcsw;
	switchy_base_ucpu = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull + (uint64_t)ru.ru_utime.tv_usec * 1000ull;
	__atomic_store_n(&switchy_based, 2, __ATOMIC_RELEASE);
}

/* A sign of sharing (rate.h, the quiet-process rule): the process's
   latest samples are not quiet; a process at the coarse rate only because
   it was quiet returns to the fine rate now. Signal context. */
static void rate_sign(void)
{
	uint64_t n;

	if (coarse_fd < 0 || !hc_rt.opt.quiet_window)
		return;
	n = __atomic_load_n(&crowd_samples, __ATOMIC_RELAXED);
	if (__atomic_load_n(&quiet_last, __ATOMIC_RELAXED) != n)   /* no store when nothing changed */
		__atomic_store_n(&quiet_last, n, __ATOMIC_RELAXED);
	if (__atomic_load_n(&crowd_coarse, __ATOMIC_RELAXED) && !__atomic_load_n(&crowd_crowded, __ATOMIC_RELAXED))
		crowd_update();
}

static int soft_start(struct rt_thread *t)
{
	int ret;

	t->sampler.cookie = signal__cookie_sample();
	t->sampler.inherited = false;
	/* A new thread may burst at once: its first samples are often all
	   there is of a short-lived thread (the budget then refills as usual). */
	own(t)->budget.tokens256 = hc_rt.opt.steps * 256;
	/* Watchpoints only on lines this thread's samples touched. */
	t->det.touched = &own(t)->lines;
	t->det.lines = &own(t)->lines;      /* the re-fetch test (detection.md §5.24) */
	t->det.touched_within = RT_STEP_RECENT * hc_rt.opt.period;
	if (t->id.index != 0 && inherited_here()) {
		t->sampler.inherited = true;   /* its copy has counted since clone */
		own(t)->crowd_counted = true;
		/* its slot, and at the switching level through the tick its
		   timer (its copy of the event may be disabled) */
		if (hc_rt.opt.tick)
			tick_register(t);
		if (__atomic_add_fetch(&crowd_live, 1, __ATOMIC_RELAXED) > crowd_max_live)
			crowd_max_live = crowd_live;    /* racy: a log figure */
		switchy_base();
		crowd_update();
		/* what a trap before its first sample weighs (rate.h) */
		t->sampler.mult = level_mult((uint32_t)__atomic_load_n(&crowd_coarse, __ATOMIC_RELAXED));
		soft__start_set(t);
		start_set_block(t);
		return 0;
	}
	/* Per-thread mode, or the process has no inherited event (its first
	   thread could not open it): one event for this thread alone. */
	if (hc_rt.opt.per_thread || t->id.index != 0 || inh_fd >= 0)
		return open_event(&t->sampler.fd, false, 1);
	if ((ret = open_event(&inh_fd, true, 1)) == 0) {
		inh_pid = hc_rt.pid;
		t->sampler.inherited = true;
		own(t)->crowd_counted = true;
		if (hc_rt.opt.tick)
			tick_register(t);
		crowd_live = crowd_max_live = 1;
		crowd_coarse = 0;
		crowd_crowded = false;
		quiet_last = 0;
		crowd_open();
	}
	return ret;
}

static void soft_stop(struct rt_thread *t)
{
	if (own(t) && own(t)->crowd_counted && hc_rt.opt.tick && (uint32_t)getpid() == t->id.pid)
		tick_unregister(t);
	if (t->id.index != 0 && own(t) && !own(t)->stopped) {
		uint64_t life = process__now() - t->id.start_ns, avg;
		uint32_t pos;

		own(t)->stopped = true;
		/* racy between ending threads: an average, not an account */
		avg = __atomic_load_n(&lifetime_avg, __ATOMIC_RELAXED);
		__atomic_store_n(&lifetime_avg, avg ? avg - avg / 4 + life / 4 : life, __ATOMIC_RELAXED);
		/* Its position in the ring: a joiner that reads the count before
		   the slot is written sees the slot's previous thread, 16 ends
		   ago, whose entries the horizon and freshness mostly exclude. */
		pos = __atomic_fetch_add(&threads_ended, 1, __ATOMIC_ACQ_REL);
		__atomic_store_n(&ended_at[pos % RT_ENDED_RING], process__now(), __ATOMIC_RELAXED);
		__atomic_store_n(&ended_start[pos % RT_ENDED_RING], t->id.start_ns, __ATOMIC_RELAXED);
		__atomic_store_n(&ended_ring[pos % RT_ENDED_RING], t->id.index + 1, __ATOMIC_RELEASE);
		if (own(t)->crowd_counted) {
			own(t)->crowd_counted = false;
			__atomic_sub_fetch(&crowd_live, 1, __ATOMIC_RELAXED);
			if (!hc_rt.stopping)
				crowd_update();
		}
	}
	t->sampler.inherited = false;  /* its copy runs on; handlers refuse its samples */
	if (t->sampler.fd < 0)
		return;
	/* In a fork child the fd is the parent's event: disabling it would
	   stop the parent's sampling (measured: 0 samples after a fork); the
	   child only closes it. Closed only if still ours (fds.c). */
	if ((uint32_t)getpid() == t->id.pid && fds__check(&t->sampler.fd))
		ioctl(t->sampler.fd, PERF_EVENT_IOC_DISABLE, 0);
	fds__close(&t->sampler.fd, "the sampler");
	t->sampler.fd = -1;
}

/* Disabling the inherited event disables every thread's copy. Async-signal-
   safe (fatal-signal flush). */
static void soft_process_stop(void)
{
	for (uint32_t lv = 0; lv <= 3; lv++)
		if (level_here(lv))
			ioctl(*level_fd(lv), PERF_EVENT_IOC_DISABLE, 0);
	if (hc_self)
		soft_stop(hc_self);
}

static void soft_process_resume(void)
{
	struct rt_thread *t = hc_self;

	/* the rate in effect when the process stopped (else the fine one) */
	if (level_here((uint32_t)crowd_coarse))
		ioctl(*level_fd((uint32_t)crowd_coarse), PERF_EVENT_IOC_ENABLE, 0);
	else if (level_here(0))
		ioctl(inh_fd, PERF_EVENT_IOC_ENABLE, 0);
	if (!t || t->sampler.fd >= 0)
		return;
	if (inherited_here())
		t->sampler.inherited = true;
	else if (fds__reserve(1) && soft_start(t) < 0)
		fds__unreserve(1);
}

/* The child has no copy of the event (inherit_thread: threads only) and an
   fd of the parent's, which it closes without disabling it. */
static void soft_atfork_child(void)
{
	for (uint32_t lv = 0; lv <= 3; lv++) {
		int *fd = level_fd(lv);

		if (*fd >= 0)
			fds__close(fd, "the sampler");
		*fd = -1;
	}
	/* POSIX timers do not follow a fork */
	if (hc_self && own(hc_self))
		own(hc_self)->tick_slot = -2;
	memset(tick_slot, 0, sizeof(tick_slot));
	tick_on = tick_failed = false;
	tick_closed = closed_heavy = closed_switchy = false;
	tick_closed_at = tick_closed_threads = tick_closed_unsampled = 0;
	tick_unslotted = 0;
	tick_made = tick_fail_count = tick_samples = tick_overruns = tick_changes = 0;
	crowd_heavy = crowd_switchy = 1;
	switchy_on = false;
	switchy_look = 0;
	switchy_sw = switchy_cpu = switchy_umax = switchy_by_user = 0;
	switchy_base_sw = switchy_base_ucpu = 0;
	switchy_based = 0;
	inh_pid = 0;
	crowd_live = crowd_coarse = crowd_lock = 0;
	crowd_samples = 0;
	crowd_crowded = false;
	quiet_last = 0;
}

/* ---- single-step bursts (doc/detection.md §5) ----
   After a sample whose access is a load of memory that may be shared, the
   handler sets the trap flag in the interrupted context: the thread runs
   one instruction and traps (SIGTRAP, si_code TRAP_TRACE) with exact
   registers before the next one. Each trap decodes the instruction about
   to run: a store to memory that may be shared is published as a store
   sample (with its calling context) and ends the burst, as do the step
   limit and any instruction that must not be stepped (syscall: a clone
   child would inherit the flag, and the signal mask may change; pushf,
   popf, iret, int*). The per-thread budget bounds the steps per sample. */

#define EFLAGS_TF 0x100

static uint64_t step_hist_total[RT_STEP_HIST + 1];   /* exited threads (atomic adds) */
static uint64_t cost_hist_total[RT_COST_KINDS][RT_STEP_HIST + 1];
static uint64_t cost_ns_total[RT_COST_KINDS];

/* The clock of the cost lines (bursts, arms, traps): thread CPU time,
   which leaves out the time a burst waited for a CPU but is a system call
   here (1.6-5 us on this VM, two a trap, arm or burst: 18 % of the trap
   handler's time). HPCRUN_COMM_COST_CPU=0: wall time, vDSO (~80 ns) —
   measured, not the default: the hand-off sets of handoff_pset.sh's
   program armed 33 against 48 a run and communicated 0.74 against 1.33
   (27 runs a side; performance.md "Session 26"), for no reason found. */
static uint64_t cpu_now(void)
{
	struct timespec ts;

	if (!hc_rt.opt.cost_cpu)
		return process__now();
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t soft__cpu_now(void)
{
	return hc_rt.sampler_kind == HC_SAMPLER_SOFT ? cpu_now() : 0;
}

static unsigned hist_slot(uint64_t dt)
{
	unsigned b = hc_hist_bucket(dt);

	return b < RT_STEP_HIST ? b : RT_STEP_HIST;
}

void soft__cost(struct rt_thread *t, unsigned kind, uint64_t t0)
{
	uint64_t dt;

	if (hc_rt.sampler_kind != HC_SAMPLER_SOFT || !own(t) || kind >= RT_COST_KINDS)
		return;
	dt = cpu_now() - t0;
	own(t)->cost_hist[kind][hist_slot(dt)]++;
	own(t)->cost_ns[kind] += dt;
}

/* An access of possibly shared memory, by the instruction at pc, joins
   the thread's recent lines and their byte masks; whether it is a moving
   access (its instruction was seen at other addresses: an array or a
   queue walked through), which is judged as the whole line, goes to
   t->det.moving for the detection that follows (detection.md §5.7; the
   caller clears it after). True if the line was recent. */
static bool note_access(struct rt_thread *t, uint64_t pc, uint64_t addr, uint32_t len, uint64_t now)
{
	bool seen = hc_step_line_note(&own(t)->lines, addr, len, now, RT_STEP_RECENT * period_now(t));

	t->det.moving = hc_step_pc_moves(&own(t)->pcs, pc, addr);
	t->det.move_lo = t->det.move_hi = 0;
	t->det.fixed = !t->det.moving && hc_rt.opt.fixed_bytes &&
	               hc_step_pc_fixed(&own(t)->pcs, pc, hc_rt.opt.fixed_bytes);
	if (t->det.fixed)
		t->cnt.fixed_accesses++;
	if (t->det.moving) {
		uint64_t lo, hi;

		t->cnt.moving_accesses++;
		/* its span (§5.47): a walk within the thread's own part of a line */
		if (hc_rt.opt.move_span && hc_step_pc_span(&own(t)->pcs, pc, &lo, &hi)) {
			struct rt_block b;

			t->det.move_lo = lo;
			t->det.move_hi = hi + (len ? len : 1);
			/* clipped to the access's heap block (MOVE_SPAN=2) */
			if (hc_rt.opt.move_span >= 2 && t->det.move_hi - t->det.move_lo > HC_LINE &&
			    blocks__used() && blocks__find(addr, &b))
				hc_step_span_clip(&t->det.move_lo, &t->det.move_hi, b.base, b.size);
			if (t->det.move_hi - t->det.move_lo < HC_LINE)
				t->cnt.moving_within++;
		}
	}
	return seen;
}

uint64_t rt_main_stack_lo, rt_main_stack_hi;
uint64_t rt_shared_stack[RT_SHARED_STACK_LINES];

static void private_ranges(const struct rt_thread *t, struct hc_step_private *p)
{
	p->stack_lo = t->id.stack_lo;
	p->stack_hi = t->id.stack_hi;
	p->tls_lo = t->id.tls_lo;
	p->tls_hi = t->id.tls_hi;
	p->shared = NULL;
	p->nshared = 0;
	if (t->id.index == 0 && hc_rt.opt.stack_shared) {
		p->shared = rt_shared_stack;
		p->nshared = RT_SHARED_STACK_LINES;
	}
}

/* A shared (not private) access on the main thread's stack (§5.45). By
   another thread — an OpenMP shared local of the master's frame, a
   pthread argument on main's stack: its line is no longer private to
   main (private_ranges), so that main's own accesses there publish and
   are detected too. By main: one on a line so noted, counted. Signal
   context: one relaxed store. */
static void note_stack_shared(struct rt_thread *t, uint64_t addr)
{
	uint64_t line = addr & ~(uint64_t)(HC_LINE - 1);
	uint64_t *slot = &rt_shared_stack[hc_step_shared_slot(line, RT_SHARED_STACK_LINES)];

	if (!hc_rt.opt.stack_shared || addr < rt_main_stack_lo || addr >= rt_main_stack_hi)
		return;
	if (t->id.index == 0) {
		t->cnt.stack_shared_samples++;
		return;
	}
	if (__atomic_load_n(slot, __ATOMIC_RELAXED) != line) {
		__atomic_store_n(slot, line, __ATOMIC_RELAXED);
		t->cnt.stack_shared_noted++;
	}
}

static void set_tf(void *uctx, bool on)
{
	greg_t *fl = &((ucontext_t *)uctx)->uc_mcontext.gregs[REG_EFL];

	*fl = on ? (*fl | EFLAGS_TF) : (*fl & ~(greg_t)EFLAGS_TF);
}

/* A sample inside a forward `rep movs`/`rep stos` (memcpy, memset of a
   large block: glibc's ERMS paths) knows the rest of the copy: rdi is the
   current element, rcx the elements left. Its last line will be written
   within microseconds — often the boundary another thread reads next (a
   halo cell after the barrier that follows the copy: detection.md §5.37).
   Published as this thread's store with the sample's context, on the
   board only: no set (the copy itself would trap it first). Signal
   context. */
static void rep_end(struct rt_thread *t, const struct hc_regs *r, const struct hc_mem_access *acc,
                    uint64_t pc, const struct hc_sample *s)
{
	struct hc_sample e = *s;

	if (s->ctx == HC_NONE ||
	    !hc_rep_end(acc->ea, acc->size, (uint64_t)r->gregs[REG_RCX], (r->gregs[REG_EFL] & (1 << 10)) != 0,
	                &e.addr, &e.len))
		return;
	e.is_store = true;
	e.is_private = false;
	e.time = process__now();
	(void)pc;     /* not one of the thread's recent lines: no set of its own there (its own
	                 sets on the line the copy has yet to write trapped the copy: halo_bar
	                 -O2 -t 2 found its pair in 0 of 8 runs that way, 5 of 8 without) */
	if (hc_detect_publish(&hc_rt.bb, &hc_rt.dcfg, &t->det, &e) == 1)
		t->cnt.rep_end_published++;
}

/* An access a burst found, about to run (exact address): published as a
   sample of its kind, a store always, a load in a return burst (the
   consumer's side of a hand-off). Its look-up sees what the burst's
   sample saw (freshness from before it). The line becomes one of the
   thread's recent lines (watchpoint targets). */
static void publish_access(struct rt_thread *t, void *uctx, uint64_t pc,
                           const struct hc_mem_access *a, bool store)
{
	struct hc_sample s = { 0 };
	uint64_t cur, cur_det;

	note_stack_shared(t, a->ea);   /* a burst's access on main's stack (§5.45) */
	/* A load of a line the burst already published a load of: the first
	   access of the line stays its entry (step.h, hc_burst_line_first). */
	if (!store && hc_rt.opt.burst_first && !hc_burst_line_first(&own(t)->burst_lines, a->ea)) {
		t->cnt.step_loads_again++;
		return;
	}
	switch (lock__sync_sys(pc, a->ea, a->size)) {   /* §5.37 */
	case RT_SYNC_OBJECT:
		t->cnt.sync_sys_bursts++;
		return;
	case RT_SYS_DATA:
		t->cnt.sys_data_bursts++;
		return;
	}
	s.time = process__now();
	s.addr = a->ea;
	s.len = a->size;
	s.is_store = store;
	s.is_private = false;
	s.cpu = regs__cpu();
	if (store && hc_rt.dcfg.update_bytes) {   /* an update's store (§5.54): its load went before */
		struct hc_regs r;

		regs__read(uctx, &r);
		/* the bytes the burst saw loaded (the trapped load it started
		   after: -O0's recomputed address, whatever computes it), or a
		   load before it in the code */
		s.update = (a->kind == HC_ACC_EXPLICIT && own(t)->burst_ld_len && a->ea == own(t)->burst_ld &&
		            a->size == own(t)->burst_ld_len) || is_update(t, pc, 0, &r, a, false);
		if (s.update)
			t->cnt.updates_sampled++;
	}
	note_access(t, pc, s.addr, s.len, s.time);
	t->watch.line_seen = true;
	t->watch.line_heap = true;
	cur = t->det.prev_sample;
	t->det.prev_sample = own(t)->prev_before;
	if (store)
		t->cnt.step_stores++;
	else
		t->cnt.step_loads++;
	cur_det = t->cnt.detections_sample;
	t->det.sync = store && (a->flags & HC_AF_XCHG);   /* a synchronizing store (§5.17) */
	record__detect_sample(t, uctx, pc, &s);
	if (store && t->crit.burst_rec) {
		/* the store a timer sample's burst in a critical section ends
		   at: the sample's record (§5.76), one per sample */
		t->crit.burst_rec = false;
		if (crit__sample(t, &s))
			t->cnt.crit_burst_records++;
	}
	if (t->cnt.detections_sample != cur_det)
		rate_sign();
	t->det.moving = t->det.fixed = false;
	t->det.sync = false;
	t->det.prev_sample = cur;   /* the thread's previous *sample* stays what it was */
}

static void publish_store(struct rt_thread *t, void *uctx, uint64_t pc,
                          const struct hc_mem_access *a)
{
	publish_access(t, uctx, pc, a, true);
}

/* A load of memory that may be shared in `in` (not the thread's stack or
   TLS, not read-only data), or NULL (detect/scan.h: the scan's test). */
static const struct hc_mem_access *shared_load(const struct rt_thread *t, const struct hc_insn *in)
{
	struct hc_step_private p;

	private_ranges(t, &p);
	return hc_scan_shared_load(in, &p, loadmap__readonly);
}

/* What a burst does with the instruction about to run: true if the burst
   goes on. */
static bool burst_insn(struct rt_thread *t, void *uctx, const struct hc_insn *in)
{
	struct hc_step_private p;
	const struct hc_mem_access *a;

	private_ranges(t, &p);
	switch (hc_step_classify(in, &p, &a)) {
	case HC_STEP_STORE:
		if (!loadmap__readonly(a->ea)) {
			publish_store(t, uctx, in->addr, a);
			return false;
		}
		break;
	case HC_STEP_STOP:
		t->cnt.step_stop_unsafe++;
		return false;
	default:
		break;
	}
	for (uint8_t i = 0; i < in->n; i++)   /* the latest explicit load (§5.54) */
		if (in->acc[i].kind == HC_ACC_EXPLICIT && in->acc[i].rw == HC_ACC_R) {
			own(t)->burst_ld = in->acc[i].ea;
			own(t)->burst_ld_len = in->acc[i].size;
		}
	if (own(t)->burst_loads) {
		if (hc_scan_call_or_ret(in)) {
			/* into a call (HPCRUN_COMM_RET_CALL): the -O0 member
			   function that stores what the private work returned */
			if (own(t)->burst_calls && hc_scan_is_call(in)) {
				own(t)->burst_calls--;
				t->cnt.ret_burst_calls++;
				return true;
			}
			t->cnt.step_stop_limit++;
			return false;
		}
		if ((a = shared_load(t, in)))
			publish_access(t, uctx, in->addr, a, false);
	}
	return true;
}

static void burst_end(struct rt_thread *t, void *uctx)
{
	uint64_t dt = cpu_now() - own(t)->burst_t0;

	set_tf(uctx, false);
	hc_step_budget_charge(&own(t)->budget, own(t)->step_taken);
	if (hc_rt.opt.burst_barren)
		rt_barren_note(&own(t)->barren, own(t)->burst_key, own(t)->step_taken,
		               t->cnt.step_stores + t->cnt.step_loads - own(t)->burst_pub0);
	own(t)->burst_key = 0;
	own(t)->step_left = 0;
	t->crit.burst_rec = false;
	own(t)->burst_loads = false;
	own(t)->burst_calls = 0;
	own(t)->burst_hist[hc_hist_bucket(dt) < RT_STEP_HIST ? hc_hist_bucket(dt) : RT_STEP_HIST]++;
	t->cnt.step_ns += dt;
}

/* A burst whose instruction at the PC (`in`, deps `d`) did not end it: if
   the straight-line code after it shows the burst's end with addresses the
   sample's registers give (detect/scan.h), publish what the stepping would
   have published, charge the steps it would have taken and end the burst
   without a trap; true then. Else the caller steps. The publications'
   calling context is the sample's frame (the scan never leaves the
   function) with the instruction as leaf. */
static bool scan_burst(struct rt_thread *t, void *uctx, const struct hc_regs *r,
                       const struct hc_insn *in, const struct hc_insn_deps *d, uint32_t n)
{
	struct hc_scan_result res;
	struct hc_step_private p;
	uint64_t fs, fe;

	if (!hc_rt.opt.step_scan || !hc_funcs_lookup(in->addr, &fs, &fe))
		return false;
	private_ranges(t, &p);
	if (hc_scan_burst(r, in, d, fs, fe, n, own(t)->burst_loads, &p, loadmap__readonly, &res) ==
	    HC_SCAN_UNRESOLVED) {
		t->cnt.step_scan_unresolved++;
		return false;
	}
	/* a return burst that may step into the call the scan stopped at:
	   stepped from the start, the scan's publications with it */
	if (res.end == HC_SCAN_CALLRET && res.end_call && own(t)->burst_calls)
		return false;
	for (uint32_t i = 0; i < res.n; i++)
		publish_access(t, uctx, res.ev[i].pc, &res.ev[i].acc, res.ev[i].store);
	if (res.end == HC_SCAN_STOP)
		t->cnt.step_stop_unsafe++;
	else if (res.end != HC_SCAN_STORE)
		t->cnt.step_stop_limit++;
	t->cnt.step_scan_bursts++;
	t->cnt.step_scanned += res.steps;
	own(t)->step_taken = res.steps;
	burst_end(t, uctx);
	return true;
}

/* After the sample's own detection: start a burst (hc_step_decide)? The
   evidence that the sampled line is shared (`shared`): another thread's
   entry for it on the BulletinBoard (a store, or a load of a line that
   thread samples over and over), at most 8 periods old, looked up before
   the sample published. smp is NULL when the sample's access could not be
   recovered. The instruction at the PC
   has not run yet: if it is itself a store to possibly shared memory it is
   published at once, without stepping. */
static void maybe_burst(struct rt_thread *t, void *uctx, const struct hc_regs *r,
                        const struct hc_sample *smp, bool priv, bool shared, uint64_t prev_before)
{
	const ucontext_t *uc = uctx;
	struct hc_step_config cfg = {
		.k = hc_rt.opt.steps,
		.per_sample256 = hc_rt.opt.step_budget256,
		.seed_every = hc_rt.opt.step_seed,
	};
	struct hc_step_private p;
	struct hc_insn in;
	struct hc_insn_deps d;
	bool evidence, store;
	uint32_t n;

	if (!cfg.k || own(t)->step_left)
		return;
	private_ranges(t, &p);
	if (smp) {
		store = smp->is_store;
		evidence = !priv && !store && shared;   /* the caller's look-up, before publishing */
		/* a sample in a critical section that recorded no store: its
		   burst's store is the record (§5.76), as evidence would */
		if (t->crit.burst_rec && !priv && !store)
			evidence = true;
	} else {
		/* The previous instruction accessed memory at an address its own
		   result overwrote (-O0's mov (%rax),%rax): a load, likely the one
		   that stalled, of unknown address. A candidate, without evidence. */
		priv = store = evidence = false;
	}
	if (!(n = hc_step_decide(&own(t)->budget, &cfg, store, priv, evidence))) {
		if (evidence)
			t->cnt.step_no_budget++;
		return;
	}
	/* SIGTRAP blocked in the interrupted context: a trace trap would be
	   forced through with the default action (never expected: samples
	   arrive only where SIGTRAP is deliverable). */
	if (uc->uc_sigmask.__val[0] & (1ull << (SIGTRAP - 1)))
		return;
	/* The program single-steps itself (a debugger-like tool): its trace
	   traps are its own, and clearing the flag would end its stepping. */
	if (uc->uc_mcontext.gregs[REG_EFL] & EFLAGS_TF)
		return;
	/* A seed from where a seed found nothing (barren.h) */
	if (!evidence && hc_rt.opt.burst_barren &&
	    rt_barren_skip(&own(t)->barren, (uint64_t)r->gregs[REG_RIP])) {
		t->cnt.step_barren++;
		return;
	}
	if (hc_decode_at_pc_deps(r, &in, &d) < 0)
		return;
	own(t)->prev_before = prev_before;
	own(t)->burst_t0 = cpu_now();
	own(t)->step_taken = 0;
	own(t)->burst_loads = false;
	own(t)->burst_calls = 0;
	own(t)->burst_key = evidence ? 0 : (uint64_t)r->gregs[REG_RIP];
	own(t)->burst_pub0 = t->cnt.step_stores + t->cnt.step_loads;
	own(t)->burst_lines.n = 0;
	own(t)->burst_ld = smp && !smp->is_store ? smp->addr : 0;
	own(t)->burst_ld_len = smp && !smp->is_store ? smp->len : 0;
	t->cnt.step_bursts++;
	if (!evidence)
		t->cnt.step_seeds++;
	if (!burst_insn(t, uctx, &in)) {
		burst_end(t, uctx);
		return;
	}
	if (scan_burst(t, uctx, r, &in, &d, n))
		return;
	own(t)->step_left = n;
	set_tf(uctx, true);
}

/* ---- reader sets from a loop's exit (detection.md §5.57) ----
   A sample inside a loop of the thread's start routine (mw_cond -O2's
   inlined compute loop, whose iterations hold every sample of a worker)
   whose exit is followed, in straight-line code, by a store whose address
   the sample's registers give — none of its registers written in the loop
   (hc_decode_loop_body, hc_scan_from) — names the store the loop ends with
   without a breakpoint (a gated thread's return breakpoint goes on the
   process-wide set, which refuses nearly all: mw_cond -t 4, 2 armed of
   256): that store, not yet made, is a reader set's (watch__pset_reader,
   HPCRUN_COMM_READER_LOOP instructions at most to the loop's back-edge, 0 =
   off; counters reader_loops, reader_loop_none; the loop's decode is kept
   per PC in loop[]). Nothing is published: the
   store is not this sample's access.

   The compute loop in a function of its own (mw_cond -O0's spin_work,
   HPCRUN_COMM_READER_CALLEE, §5.67): a sample in a leaf function with a
   frame pointer (hc_decode_leaf_frame) whose return address, [rbp + 8],
   follows a direct call of it in the start routine names the store after
   that return the same way, from the caller's registers: its rbp ([rbp]),
   its rsp (rbp + 16), the callee-saved ones the callee never writes
   (-O0 keeps `&results[t]` in rbx across the call); counters
   reader_callee, reader_callee_none. Signal context. */
__attribute__((no_sanitize_address, noinline))
static uint64_t frame_word(uint64_t a)
{
	return *(const uint64_t *)(uintptr_t)a;
}

/* The caller of a leaf callee at r: its registers in g (from r, rip the
   return address, rsp and rbp its own), *cs and *ce its function; false when
   the frame is not one the start routine's direct call made. */
static bool callee_return(struct rt_thread *t, const struct hc_regs *r, uint64_t callee, long long *g,
                          uint64_t *cs, uint64_t *ce)
{
	uint64_t rsp = (uint64_t)r->gregs[REG_RSP], rbp = (uint64_t)r->gregs[REG_RBP], ret;
	int32_t rel;

	if (!t->id.stack_hi || rsp < t->id.stack_lo || rbp < rsp || rbp + 16 > t->id.stack_hi)
		return false;
	ret = frame_word(rbp + 8);
	if (!hc_funcs_lookup(ret, cs, ce) || *cs != t->id.start_fn || ret < *cs + 5 ||
	    *(const uint8_t *)(uintptr_t)(ret - 5) != 0xe8)
		return false;
	memcpy(&rel, (const void *)(uintptr_t)(ret - 4), sizeof rel);
	if (ret + (uint64_t)(int64_t)rel != callee)
		return false;
	memcpy(g, r->gregs, NGREG * sizeof *g);
	g[REG_RIP] = (long long)ret;
	g[REG_RSP] = (long long)(rbp + 16);
	g[REG_RBP] = (long long)frame_word(rbp);
	return true;
}

static void reader_loop(struct rt_thread *t, void *uctx, const struct hc_regs *r)
{
	uint64_t pc = (uint64_t)r->gregs[REG_RIP], fs, fe, exit, callee = 0, cs, ce;
	unsigned slot = rmw_slot(pc);
	uint16_t written;
	long long g[NGREG];
	struct hc_regs cr = *r;
	struct hc_scan_result res;
	struct hc_step_private p;
	struct hc_sample s = { 0 };
	struct rt_block b;
	const struct hc_scan_event *ev;

	if (!hc_rt.opt.reader_sets || !hc_rt.opt.reader_loop || !t->id.start_fn || !lock__seen() ||
	    !watch__pset_idle() || !hc_funcs_lookup(pc, &fs, &fe) ||
	    (fs != t->id.start_fn && !hc_rt.opt.reader_callee))
		return;
	/* the loop's decode depends on the PC alone: once a PC */
	if (own(t)->loop[slot].pc != pc) {
		uint64_t start;
		uint16_t clob = 0;

		own(t)->loop[slot].pc = pc;
		if (hc_decode_loop_body(pc, hc_rt.opt.reader_loop, &start, &exit, &written) != 0)
			exit = written = 0;
		own(t)->loop[slot].exit = exit;
		own(t)->loop[slot].written = written;
		if (fs == t->id.start_fn || hc_decode_leaf_frame(pc, &callee, &clob) != 0)
			callee = clob = 0;
		own(t)->loop[slot].callee = callee;
		own(t)->loop[slot].clobbered = clob;
	}
	private_ranges(t, &p);
	if (fs != t->id.start_fn) {
		/* a leaf callee's sample (§5.67): the store after its return */
		callee = own(t)->loop[slot].callee;
		if (!callee || !callee_return(t, r, callee, g, &cs, &ce)) {
			t->cnt.reader_callee_none++;
			return;
		}
		cr.gregs = g;
		if (hc_scan_from(&cr, (uint64_t)g[REG_RIP], own(t)->loop[slot].clobbered, cs, ce, hc_rt.opt.reader_loop,
		                 false, &p, loadmap__readonly, &res) != HC_SCAN_STORE || res.n == 0) {
			t->cnt.reader_callee_none++;
			return;
		}
	} else {
		exit = own(t)->loop[slot].exit;
		written = own(t)->loop[slot].written;
		if (!exit ||
		    hc_scan_from(r, exit, written, fs, fe, hc_rt.opt.reader_loop, false, &p, loadmap__readonly, &res) !=
		    HC_SCAN_STORE || res.n == 0) {
			t->cnt.reader_loop_none++;
			return;
		}
	}
	ev = &res.ev[res.n - 1];
	if (!blocks__used() || !blocks__find(ev->acc.ea, &b) || ev->acc.ea - b.base >= b.size)
		return;
	s.time = process__now();
	s.addr = ev->acc.ea;
	s.len = ev->acc.size;
	s.is_store = true;
	s.cpu = regs__cpu();
	s.ctx = callee ? cct__context_caller(t, uctx, (uint64_t)g[REG_RIP], ev->pc) : cct__context(t, uctx, ev->pc);
	if (s.ctx == HC_NONE)
		return;
	if (callee)
		t->cnt.reader_callee++;
	else
		t->cnt.reader_loops++;
	watch__pset_reader(t, &s, ev->pc, b.base, b.base + b.size);
}

#define RT_FEED_REACH 32   /* instructions to a feed loop's back-edge at most */

/* A feed set stands for the samples since the thread's last one was
   armed that could have armed it (the 1 in 4 asked, the busy set's and
   the budget's refusals between: HPCRUN_COMM_FEED_STANDS at most, §5.70),
   as a lock set stands for the hand-offs since the thread's last one.
   Signal context. */
static void feed_note(struct rt_thread *t)
{
	if (own(t)->feed_pending < 1u << 20)
		own(t)->feed_pending++;
}

static void feed_arm(struct rt_thread *t, const struct hc_sample *s)
{
	if (watch__pset_feed(t, s, rt_feed_stands(own(t)->feed_pending, hc_rt.opt.feed_stands)) == 0)
		own(t)->feed_pending = 0;
}

/* Feed sets (HPCRUN_COMM_FEED_SETS, detection.md §5.68): a sample in a
   loop without memory accesses (a task's register-only compute) comes
   after the load that feeds it — the instruction before the loop, within
   4 of straight-line code, whose address registers neither the loop nor
   the instructions between write: the sample's registers give its
   address. That load read what another thread wrote (a thread pool's
   task input, written by the master); the master's next store there is
   the hand-off, which the master's samples (it mostly waits) never see:
   the idle process-wide set watches the line for it, the load its entry.
   One ask in 4 such samples. The feeding load is found once per PC
   (feed[]). Signal context. */
static void feed_loop(struct rt_thread *t, void *uctx, const struct hc_regs *r)
{
	uint64_t pc = (uint64_t)r->gregs[REG_RIP], load;
	unsigned slot = rmw_slot(pc);
	long long g[NGREG];
	struct hc_regs r2 = *r;
	struct hc_insn in;
	struct hc_step_private p;
	const struct hc_mem_access *acc;
	struct hc_sample s = { 0 };

	if (!hc_rt.opt.feed_sets || !t->id.start_fn)
		return;
	if (own(t)->feed[slot].pc == pc && own(t)->feed[slot].load)
		feed_note(t);     /* a loop known to have a feeding load */
	if (++own(t)->feed_skip < 4 || !watch__pset_idle())
		return;
	own(t)->feed_skip = 0;
	t->cnt.feed_asked++;
	if (own(t)->feed[slot].pc != pc) {
		own(t)->feed[slot].pc = pc;
		if (hc_decode_loop_feed(r, t->prev, RT_FEED_REACH, &own(t)->feed[slot].load) != 0 &&
		    (!hc_rt.opt.feed_live ||
		     hc_decode_loop_live_load(pc, RT_FEED_REACH, loadmap__readonly, &own(t)->feed[slot].load) != 0))
			own(t)->feed[slot].load = 0;
		else
			feed_note(t);
	}
	if (!(load = own(t)->feed[slot].load)) {
		t->cnt.feed_none++;
		return;
	}
	memcpy(g, r->gregs, sizeof(g));
	g[REG_RIP] = (long long)load;
	r2.gregs = g;
	private_ranges(t, &p);
	if (hc_decode_at_pc(&r2, &in) < 0 || !(acc = hc_scan_shared_load(&in, &p, loadmap__readonly)) ||
	    lock__sync_sys(load, acc->ea, acc->size)) {
		t->cnt.feed_none++;
		return;
	}
	s.time = process__now();
	s.addr = acc->ea;
	s.len = acc->size;
	s.cpu = regs__cpu();
	s.ctx = cct__context(t, uctx, load);
	if (s.ctx == HC_NONE)
		return;
	feed_arm(t, &s);
}

/* A sampled load that is the only access of its loop (-O0's input
   reloaded in every iteration of a register-free compute loop: the pool's
   task at -O0) asks for a feed set on its own address, as feed_loop's
   found load does (HPCRUN_COMM_FEED_SAMPLED, §5.68). One ask in 4 such
   samples. Signal context. */
static void feed_sampled(struct rt_thread *t, void *uctx, uint64_t leaf, const struct hc_sample *s)
{
	unsigned slot = rmw_slot(leaf);
	struct hc_sample f;

	if (!hc_rt.opt.feed_sets || !hc_rt.opt.feed_sampled || !t->id.start_fn || s->is_store)
		return;
	if (own(t)->feed_only[slot].pc != leaf) {
		own(t)->feed_only[slot].pc = leaf;
		own(t)->feed_only[slot].only =
			hc_decode_loop_only_load(leaf, RT_FEED_REACH, loadmap__readonly) == 0;
	}
	if (!own(t)->feed_only[slot].only)
		return;
	feed_note(t);
	if (++own(t)->feed_load_skip < 4 || !watch__pset_idle())
		return;
	own(t)->feed_load_skip = 0;
	f = *s;                 /* a load seen once publishes nothing: no context yet */
	if (f.ctx == HC_NONE && (f.ctx = cct__context(t, uctx, leaf)) == HC_NONE)
		return;
	t->cnt.feed_asked++;
	t->cnt.feed_sampled++;
	feed_arm(t, &f);
}

/* ---- return bursts ----
   Most samples of a program that communicates through plain loads and
   stores land in its private work — often a function called between the
   shared accesses (a solver kernel, a library call) — and the shared
   accesses follow in the caller. After one in RT_RET_EVERY samples whose
   access is private (or none, or an unseen load), while the thread's watchpoints are free,
   the runtime arms an execute breakpoint on the interrupted function's
   return address (one debug register); when the function returns, the
   breakpoint traps before the caller's next instruction runs and a burst
   starts there that publishes the caller's shared loads (the consumer's
   side) and ends at its first shared store (the producer's), a call or a
   return, or the step limit. Paid from the same step budget: a whole
   burst's worth must be available. */
static void maybe_ret_bp(struct rt_thread *t, void *uctx, bool refill)
{
	const ucontext_t *uc = uctx;
	uint32_t node, k = hc_rt.opt.steps;
	uint64_t t0;
	int err;

	if (!k || !hc_rt.opt.ret_bp)
		return;
	if (refill)      /* a sample that did not consider a burst: its budget share */
		hc_step_budget_refill(&own(t)->budget, hc_rt.opt.step_budget256, 4 * k);
	/* Not while the application wants SIGTRAP blocked: its own SIGTRAP
	   may need the one pending slot (sigmask.c). */
	if (hc_rt.nwatch < 1 || t->det.armed || own(t)->step_left || sigmask__trap_wished())
		return;
	if (++own(t)->ret_skip < RT_RET_EVERY)
		return;
	if (hc_step_budget_allow(&own(t)->budget, k) < k)
		return;
	if ((uc->uc_sigmask.__val[0] & (1ull << (SIGTRAP - 1))) ||
	    (uc->uc_mcontext.gregs[REG_EFL] & EFLAGS_TF))
		return;
	/* The callers' node of the interrupted PC: its ip is the innermost
	   return address (cached unwind). */
	node = cct__context(t, uctx, 0);
	if (node == HC_NONE || node == 0 || node >= t->cct.n)
		return;
	own(t)->ret_skip = 0;
	/* Not into a system library's code (an OpenMP team's outlined
	   function returns into libgomp, a thread's start routine into libc):
	   the burst would step the library's barrier or exit path, 20-90 µs a
	   step on this VM, and what it finds there is the library's own
	   synchronization, which no code pair of the program's and no exact
	   count (instrumented code only) has (performance.md, "Session 13"). */
	uint64_t at = t->cct.nodes[node].ip;
	bool loop = false;

	if (!hc_rt.opt.ret_bp_system && loadmap__system_code(at)) {
		/* A loop of the thread's start routine (its return is libc's):
		   the loop's exit instead, where the iteration's shared store
		   follows (an inlined compute loop after a `+=`: detection.md
		   §5.34; HPCRUN_COMM_LOOP_EXIT). Not an OpenMP outlined
		   function's (libgomp's thread runs them): every parallel
		   region's loops would arm, omp stencil +10 % CPU. */
		uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP], fs, fe;

		if (!hc_rt.opt.loop_exit || !t->id.start_fn || !hc_funcs_lookup(pc, &fs, &fe) ||
		    fs != t->id.start_fn || hc_decode_loop_exit(pc, hc_rt.opt.loop_exit, &at) != 0 ||
		    loadmap__system_code(at)) {
			t->cnt.ret_bp_system++;
			return;
		}
		loop = true;
	}
	/* Nor where a return burst found nothing (barren.h). */
	if (hc_rt.opt.burst_barren && rt_barren_skip(&own(t)->barren, at)) {
		t->cnt.step_barren++;
		return;
	}
	/* Still armed there (the function has not returned since): nothing
	   to do. Otherwise an arm costs an ioctl: one step from the budget. */
	if (t->watch.n > 0 && t->watch.enabled[0] && t->watch.attr[0].bp_type == HW_BREAKPOINT_X &&
	    t->watch.attr[0].bp_addr == at)
		return;
	hc_step_budget_charge(&own(t)->budget, 1);
	t0 = cpu_now();
	own(t)->ret_age = 0;
	err = watch__arm_exec(t, at);
	if (err == 0 && loop)
		t->cnt.ret_bp_loop++;
	if (err == 0)
		t->cnt.ret_bp_armed++;
	else if (err != -EAGAIN)          /* -EAGAIN: the switch gate (cost.h) */
		t->cnt.watch_arm_failed++;
	soft__cost(t, RT_COST_RET_ARM, t0);
}

void soft__on_ret_bp(struct rt_thread *t, void *uctx)
{
	struct hc_regs r;
	struct hc_insn in;
	struct hc_insn_deps d;
	uint32_t k = hc_rt.opt.steps;

	t->cnt.ret_bp_hits++;
	if (!sampler__is(&soft__sampler) || !own(t) || own(t)->step_left || !k)
		return;
	regs__read(uctx, &r);
	if (hc_decode_at_pc_deps(&r, &in, &d) < 0)
		return;
	own(t)->prev_before = t->det.prev_sample;
	own(t)->burst_t0 = cpu_now();
	own(t)->step_taken = 0;
	own(t)->burst_loads = true;
	own(t)->burst_calls = hc_rt.opt.ret_call;
	own(t)->burst_key = (uint64_t)r.gregs[REG_RIP];
	own(t)->burst_pub0 = t->cnt.step_stores + t->cnt.step_loads;
	own(t)->burst_lines.n = 0;
	own(t)->burst_ld = 0;
	own(t)->burst_ld_len = 0;
	t->cnt.step_bursts++;
	if (!burst_insn(t, uctx, &in)) {
		burst_end(t, uctx);
		return;
	}
	k = hc_step_budget_allow(&own(t)->budget, k);
	if (scan_burst(t, uctx, &r, &in, &d, k ? k : 1))
		return;
	own(t)->step_left = k ? k : 1;
	set_tf(uctx, true);
}

/* A watchpoint trap that detected a communication on a load: this thread
   just read a line another thread wrote, the moment a sample with evidence
   would have been. A burst from here finds the store that usually follows
   (the consumer's own reply, index or slot). */
void soft__sharing_sign(void)
{
	if (hc_rt.sampler_kind == HC_SAMPLER_SOFT)
		rate_sign();
}

void soft__after_trap(struct rt_thread *t, void *uctx, const struct hc_sample *s)
{
	struct hc_regs r;

	if (hc_rt.sampler_kind != HC_SAMPLER_SOFT)
		return;
	rate_sign();          /* a matched trap: a communication */
	if (s->is_store)
		return;
	t->cnt.step_after_trap++;
	regs__read(uctx, &r);
	maybe_burst(t, uctx, &r, s, false, true, t->det.prev_sample);
}

bool soft__update(struct rt_thread *t, uint64_t leaf, uint64_t next, const struct hc_regs *r,
                  const struct hc_mem_access *acc)
{
	return sampler__is(&soft__sampler) && own(t) && is_update(t, leaf, next, r, acc, true);
}

/* A trapped access of possibly shared memory joins the thread's line
   bytes (the masks true/false sharing is judged with, detection.md §5.7);
   t->det.moving says whether it moves until the caller clears it. */
void soft__note_access(struct rt_thread *t, uint64_t pc, const struct hc_sample *s)
{
	if (!sampler__is(&soft__sampler) || !own(t) || s->is_private)
		return;
	note_access(t, pc, s->addr, s->len, s->time);
}

bool soft__stepping(const struct rt_thread *t)
{
	return sampler__is(&soft__sampler) && own(t) && own(t)->step_left != 0;
}

void soft__clear_trap_flag(void *uctx)
{
	set_tf(uctx, false);
}

void soft__step_abort(struct rt_thread *t, void *uctx)
{
	t->cnt.step_stop_refused++;
	burst_end(t, uctx);
}

void soft__on_step(struct rt_thread *t, void *uctx)
{
	struct hc_regs r;
	struct hc_insn in;

	t->cnt.steps++;
	own(t)->step_taken++;
	regs__read(uctx, &r);
	if (hc_decode_at_pc(&r, &in) < 0) {
		t->cnt.step_stop_unsafe++;
		burst_end(t, uctx);
		return;
	}
	if (!burst_insn(t, uctx, &in)) {
		burst_end(t, uctx);
		return;
	}
	if (--own(t)->step_left == 0) {
		t->cnt.step_stop_limit++;
		burst_end(t, uctx);
		return;
	}
	set_tf(uctx, true);
}

static void soft_on_sample(struct rt_thread *t, void *uctx)
{
	struct hc_regs r;
	struct hc_insn in;
	const struct hc_mem_access *acc = NULL;
	struct hc_sample s = { 0 };
	uint64_t leaf = 0, next, prev_before = t->det.prev_sample;
	int sys;
	struct hc_step_private p;
	struct hc_insn one = { .n = 1 }, deep;
	const struct hc_mem_access *pa;
	struct hc_bb_entry e;
	bool priv, seen, shared, other;
	uint64_t det;
	int st;

	rt_split(t, RT_SPLIT_ENTRY);
	t->cnt.samples++;
	t->det.touched_within = RT_STEP_RECENT * period_now(t);
	/* Preempted (HPCRUN_COMM_ARM_SHARE, cost.h rt_share_low, watch.c): the
	   thread got less than that share of a CPU since its previous sample;
	   its per-thread arms wait. Not crowded only (its threads never get a
	   whole CPU; the switch gate is for that). */
	if (hc_rt.opt.arm_share)   /* a crowded process has its switch gate (cost.h) */
		t->sampler.share_low = !__atomic_load_n(&crowd_crowded, __ATOMIC_RELAXED) &&
		                       rt_share_low(prev_before, process__now(), hc_rt.opt.arm_share, period_now(t));
	/* The end of the process's warm-up at the fine rate (rate.h): the
	   rate its live threads call for from now on. */
	if (coarse_fd >= 0) {
		uint64_t n = __atomic_add_fetch(&crowd_samples, 1, __ATOMIC_RELAXED);

		/* ... and the start of a quiet stretch (rate.h). */
		if (n == RT_CROWD_WARMUP ||
		    (!__atomic_load_n(&crowd_coarse, __ATOMIC_RELAXED) && !crowd_switch_failed &&
		     rt_rate_quiet(n, __atomic_load_n(&quiet_last, __ATOMIC_RELAXED), hc_rt.opt.quiet_window)))
			crowd_update();
		/* the switching rule's look (rate.h): heavily crowded only, or
		   crowded in the warm-up (HPCRUN_COMM_SWITCHY_WARMUP) */
		if (switchy_fd >= 0 &&
		    rt_rate_switchy_look(n, (uint32_t)__atomic_load_n(&crowd_coarse, __ATOMIC_RELAXED),
		                         rt_switch_crowded(__atomic_load_n(&crowd_live, __ATOMIC_RELAXED), crowd_ncpu),
		                         hc_rt.opt.switchy_warmup, RT_CROWD_WARMUP, RT_SWITCHY_EVERY))
			switchy_look_now();
	}
	/* A return breakpoint lives as a set does: one that has not fired
	   by the second sample after its arming goes off (an armed debug
	   register costs every context switch; in a VM, exits). */
	if (t->watch.n > 0 && t->watch.enabled[0] && t->watch.attr[0].bp_type == HW_BREAKPOINT_X &&
	    ++own(t)->ret_age > 1) {
		watch__disarm(t);
		t->cnt.ret_bp_expired++;
	}
	rt_split(t, RT_SPLIT_PROLOGUE);
	regs__read(uctx, &r);
	st = hc_rt.opt.no_prev ? -1 /* switched off */ : hc_decode_prev(&r, t->prev, &in);
	next = (uint64_t)r.gregs[REG_RIP];
	if (st == HC_PREV_OK && (acc = hc_data_access(&in))) {
		t->cnt.samples_recovered_prev++;
		leaf = in.addr;
	} else if (st == HC_PREV_UNRECOVERABLE &&
	           hc_decode_prev_reload(&r, t->prev, hc_rt.opt.reload_chain, &in) == HC_PREV_OK &&
	           (acc = hc_data_access(&in))) {
		t->cnt.samples_recovered_reload++;
		leaf = in.addr;
	} else if (hc_decode_at_pc(&r, &in) < 0) {
		t->cnt.samples_undecodable++;
		return;
	} else if ((in.n == 0 || !hc_data_access(&in)) && st == HC_PREV_NO_ACCESS && hc_rt.opt.prev_depth &&
	           hc_decode_prev_deep(&r, t->prev, hc_rt.opt.prev_depth, &deep) == HC_PREV_OK &&
	           (acc = hc_data_access(&deep))) {
		/* the skid went past register-only code too (decode.h) */
		t->cnt.samples_recovered_deep++;
		leaf = deep.addr;
	} else if (in.n == 0) {
		rt_split(t, RT_SPLIT_DECODE);
		t->cnt.samples_no_access++;
		record__idle_sample(t);
		reader_loop(t, uctx, &r);
		feed_loop(t, uctx, &r);
		if (st == HC_PREV_UNRECOVERABLE)
			maybe_burst(t, uctx, &r, NULL, false, false, prev_before);
		else
			maybe_ret_bp(t, uctx, true);
		rt_split(t, RT_SPLIT_NOACC);
		return;
	} else if (!(acc = hc_data_access(&in))) {
		rt_split(t, RT_SPLIT_DECODE);
		t->cnt.samples_stack_only++;
		record__idle_sample(t);
		if (hc_rt.opt.feed_live)
			feed_loop(t, uctx, &r);    /* -O0's frame slots around a live load (§5.70) */
		if (st == HC_PREV_UNRECOVERABLE)
			maybe_burst(t, uctx, &r, NULL, false, false, prev_before);
		else
			maybe_ret_bp(t, uctx, true);
		rt_split(t, RT_SPLIT_NOACC);
		return;
	} else {
		t->cnt.samples_with_access_at_pc++;
		leaf = in.addr;
		next = in.addr + in.len;
	}

	rt_split(t, RT_SPLIT_DECODE);
	s.time = process__now();
	rt_cost_add(&t->cost[RT_MECH_DECODE], s.time - t->sampler.busy_cur);   /* since the handler's start */
	s.addr = acc->ea;
	s.len = acc->size;
	/* glibc's barrier, mutex or condition code on a synchronisation
	   object's bytes (detection.md §5.37): not the program's data, as if
	   the sample had seen none — its return may still burst into the
	   caller (the halo exchange after a barrier) */
	if ((sys = lock__sync_sys(leaf, s.addr, s.len)) != 0) {
		if (sys == RT_SYNC_OBJECT)
			t->cnt.sync_sys_samples++;
		else
			t->cnt.sys_data_samples++;
		if (hc_debug_enabled(HC_DBG_DETECT))
			hc_debug_printf(HC_DBG_DETECT, "T%u sample in system code on %s %#llx+%u at %#llx: dropped",
			                t->id.index, sys == RT_SYNC_OBJECT ? "a synchronisation object" :
			                "a system library's data", (unsigned long long)s.addr,
			                s.len, (unsigned long long)leaf);
		record__idle_sample(t);
		if (hc_rt.opt.sync_ret && sys == RT_SYNC_OBJECT)   /* the return is where the program's hand-off loads come */
			own(t)->ret_skip = RT_RET_EVERY;
		maybe_ret_bp(t, uctx, true);
		return;
	}
	s.is_store = (acc->rw & HC_ACC_W) != 0;
	/* §5.75: a rep movs copying out of a buffer the kernel filled for
	   another thread (pigz's workers copy main's read() input into their
	   deflate window) stands for the copy's load of its source */
	if (s.is_store && (acc->flags & HC_AF_REP) && acc->kind == HC_ACC_STRING &&
	    leaf == (uint64_t)r.gregs[REG_RIP]) {
		for (unsigned k = 0; k < in.n; k++)
			if (in.acc[k].kind == HC_ACC_STRING && in.acc[k].rw == HC_ACC_R &&
			    record__fill_other(t, in.acc[k].ea, s.time)) {
				acc = &in.acc[k];
				s.addr = acc->ea;
				s.len = acc->size;
				s.is_store = false;
				t->cnt.io_copy_samples++;
				break;
			}
	}
	if (!s.is_store && acc->kind == HC_ACC_EXPLICIT &&
	    (store_follows(t, next, &r, acc) || store_follows_o0(t, next, &r, acc))) {
		s.is_store = true;
		s.update = hc_rt.dcfg.update_bytes;
		t->cnt.samples_rmw_store++;
	} else if (s.is_store && is_update(t, leaf, next, &r, acc, false)) {
		s.update = true;
	}
	if (s.update)
		t->cnt.updates_sampled++;
	s.cpu = regs__cpu();
	/* an xchg with memory (a seq_cst store's form): a synchronizing store
	   (detection.md §5.17) */
	t->det.sync = s.is_store && (acc->flags & HC_AF_XCHG);
	/* The sampled line into this thread's recent lines (burst evidence,
	   watchpoint targets), unless it is private memory. */
	private_ranges(t, &p);
	one.acc[0].ea = s.addr;
	one.acc[0].size = s.len;
	one.acc[0].rw = HC_ACC_W;   /* hc_step_classify's privacy test, as if it stored */
	priv = hc_step_classify(&one, &p, &pa) != HC_STEP_STORE || loadmap__readonly(s.addr);
	if (!priv)
		note_stack_shared(t, s.addr);
	seen = !priv && note_access(t, leaf, s.addr, s.len, s.time);
	/* Burst evidence: another thread's recent entry for the line, looked
	   up before this sample publishes its own. */
	other = !priv && hc_bulletin_lookup(&hc_rt.bb, s.addr & ~(uint64_t)(HC_LINE - 1), &e) &&
	        e.thread != t->id.index;
	shared = other && e.time + 8 * period_now(t) > s.time;
	/* A load publishes only from a line this thread sampled before: a
	   shared slot, counter or index is sampled over and over, a private
	   array rarely hits the same line twice (and stack/TLS never publish). */
	s.is_private = priv || (!s.is_store && !seen);
	t->watch.line_seen = seen;
	t->watch.line_heap = !priv;
	det = t->cnt.detections_sample;
	rt_split(t, RT_SPLIT_CLASSIFY);
	record__detect_sample(t, uctx, leaf, &s);
	/* a timer sample's record (a burst's steps are no samples): §5.76. A
	   sample that records nothing there (a load: a vectorized merge's
	   samples land after its loads, which stall) lets the store its burst
	   ends at stand for it, once */
	t->crit.burst_rec = t->crit.depth && !crit__sample(t, &s) && hc_rt.opt.crit_burst;
	rt_split(t, RT_SPLIT_PIPE);
	if (hc_rt.opt.rep_end && s.is_store && (acc->flags & HC_AF_REP) && acc->kind == HC_ACC_STRING &&
	    leaf == (uint64_t)r.gregs[REG_RIP])
		rep_end(t, &r, acc, leaf, &s);
	soft__start_set_late(t);
	/* A sign of sharing (rate.h): a line another thread published, however
	   long ago (the board keeps an entry until another line takes its slot),
	   or a communication. */
	if (other || t->cnt.detections_sample != det)
		rate_sign();
	t->det.moving = t->det.fixed = false;
	t->det.sync = false;
	rt_split(t, RT_SPLIT_AFTER);
	maybe_burst(t, uctx, &r, &s, priv, shared, prev_before);
	if (!own(t)->step_left)
		t->crit.burst_rec = false;    /* no burst, or it ended at once */
	rt_split(t, RT_SPLIT_BURST);
	if (!priv)
		feed_sampled(t, uctx, leaf, &s);
	/* Private work (own stack, TLS, read-only data, or a line not
	   evidently shared: a private heap array's load seen once): the
	   shared accesses may follow in the caller. */
	if (priv)
		reader_loop(t, uctx, &r);
	if (priv && hc_rt.opt.feed_live)
		feed_loop(t, uctx, &r);    /* -O0's frame slots around a live load (§5.70) */
	if (priv || (!shared && s.is_private))
		maybe_ret_bp(t, uctx, false);
	rt_split(t, RT_SPLIT_RET);
}

/* A thread's burst costs into the process totals (its final profile). */
void soft__add_totals(const struct rt_thread *t)
{
	if (!sampler__is(&soft__sampler) || !own(t))
		return;
	for (int i = 0; i <= RT_STEP_HIST; i++)
		if (own(t)->burst_hist[i])
			__atomic_add_fetch(&step_hist_total[i], own(t)->burst_hist[i], __ATOMIC_RELAXED);
	for (int k = 0; k < RT_COST_KINDS; k++) {
		__atomic_add_fetch(&cost_ns_total[k], own(t)->cost_ns[k], __ATOMIC_RELAXED);
		for (int i = 0; i <= RT_STEP_HIST; i++)
			if (own(t)->cost_hist[k][i])
				__atomic_add_fetch(&cost_hist_total[k][i], own(t)->cost_hist[k][i],
				                   __ATOMIC_RELAXED);
	}
}

static uint64_t quantile(const uint64_t *h, double q)
{
	uint64_t n = 0, k = 0;

	for (int i = 0; i <= RT_STEP_HIST; i++)
		n += h[i];
	if (!n)
		return 0;
	for (int i = 0; i <= RT_STEP_HIST; i++)
		if ((k += h[i]) >= (uint64_t)(q * (double)n) && k)
			return hc_hist_low((unsigned)i) + hc_hist_width((unsigned)i) / 2;
	return 0;
}

void soft__log(void)
{
	const struct rt_counters *c = &hc_rt.total;

	if (hc_rt.sampler_kind != HC_SAMPLER_SOFT)
		return;
	{
		uint64_t got = c->samples + c->samples_blocked + c->samples_in_runtime;

		if (coarse_fd >= 0 || c->samples_coarse || tick_closed)
			process__log("sampling rate: COMM@%llu, and COMM@%llu (x%u) while the process is crowded "
			             "(more than %u live threads on %u CPUs; fine again at %u or fewer) after its "
			             "first %u samples, or quiet (no sign of sharing in its last %u samples, 0 = "
			             "never; fine again at the next sign); %llu "
			             "changes (%llu failed; %llu to coarse while quiet), at most %llu live threads; %llu of %llu timer samples "
			             "coarse, standing for %llu more periods (counter samples_thinned: in the "
			             "sampled CPU time, and in their communications' weight); effective period "
			             "%llu ns", (unsigned long long)hc_rt.opt.period,
			             (unsigned long long)(hc_rt.opt.period * crowd_mult), crowd_mult,
			             crowd_ncpu + 1, crowd_ncpu, crowd_ncpu, RT_CROWD_WARMUP, hc_rt.opt.quiet_window,
			             (unsigned long long)crowd_switches,
			             (unsigned long long)crowd_switch_failed, (unsigned long long)quiet_switches,
			             (unsigned long long)crowd_max_live,
			             (unsigned long long)c->samples_coarse, (unsigned long long)got,
			             (unsigned long long)c->samples_thinned,
			             (unsigned long long)(got ? hc_rt.opt.period * (got + c->samples_thinned) / got : 0));
		if (heavy_fd >= 0 || closed_heavy)
			process__log("sampling rate: COMM@%llu (x%u) while the process is heavily crowded (more "
			             "than %u live threads on %u CPUs; the coarse rate again at %u or fewer; "
			             "HPCRUN_COMM_CROWDED_HEAVY=%u, HPCRUN_COMM_CROWDED_HEAVY_FROM=%u); %llu changes "
			             "to it", (unsigned long long)(hc_rt.opt.period * crowd_mult * crowd_heavy),
			             crowd_mult * crowd_heavy, hc_rt.opt.crowd_heavy_from * crowd_ncpu + 1, crowd_ncpu,
			             hc_rt.opt.crowd_heavy_from * crowd_ncpu, crowd_heavy, hc_rt.opt.crowd_heavy_from,
			             (unsigned long long)heavy_switches);
		else if (coarse_fd >= 0 && hc_rt.opt.crowd_heavy <= 1)
			process__log("sampling rate: no heavily crowded level (HPCRUN_COMM_CROWDED_HEAVY=1)");
		if (switchy_fd >= 0 || closed_switchy)
			process__log("sampling rate: COMM@%llu (x%u) while the process is heavily crowded and switches "
			             "more than %u times per second of its CPU time (the heavy rate again below %u; "
			             "HPCRUN_COMM_SWITCHY=%u, HPCRUN_COMM_SWITCHY_RATE=%u); %llu changes to it; %llu "
			             "looks, at most %llu switches per CPU second seen; looked at in the warm-up too, "
			             "from its sample %u on (HPCRUN_COMM_SWITCHY_WARMUP, 0 = never): %llu changes to it "
			             "ended the warm-up early (the last after %llu samples); or more than %u voluntary ones "
			             "per second of its user CPU time since it was crowded (HPCRUN_COMM_SWITCHY_USER_RATE, 0 = off; "
			             "off again when both rates are below half): at most %llu seen, %llu looks found it "
			             "switching by that rate alone",
			             (unsigned long long)(hc_rt.opt.period * level_mult(3)), level_mult(3),
			             hc_rt.opt.switchy_rate, hc_rt.opt.switchy_rate / 2, crowd_switchy,
			             hc_rt.opt.switchy_rate, (unsigned long long)switchy_switches,
			             (unsigned long long)switchy_looks, (unsigned long long)switchy_max,
			             hc_rt.opt.switchy_warmup, (unsigned long long)switchy_early,
			             (unsigned long long)switchy_early_at, hc_rt.opt.switchy_user_rate,
			             (unsigned long long)switchy_umax, (unsigned long long)switchy_by_user);
		if ((switchy_fd >= 0 || closed_switchy) && hc_rt.opt.tick) {
			process__log("sampling rate: the switching level through per-thread tick timers "
			             "(HPCRUN_COMM_TICK=1; user CPU time, checked at the scheduler tick): %llu timers "
			             "made, %llu failed (level 3 on the task-clock from then on), %llu changes to it "
			             "(every task-clock event disabled), %u threads without a slot (of %u), %llu timer "
			             "samples, %llu overruns (not weighed)",
			             (unsigned long long)tick_made, (unsigned long long)tick_fail_count,
			             (unsigned long long)tick_changes, tick_unslotted, RT_TICK_SLOTS,
			             (unsigned long long)tick_samples, (unsigned long long)tick_overruns);
			if (tick_closed)
				process__log("sampling rate: the task-clock events closed at the change to the switching "
				             "level through the tick, the level kept for the rest of the run "
				             "(%s; performance.md \"Session 27\"): closed after %llu "
				             "samples; %llu threads started since (on their timers), %llu of them without a "
				             "sampler", hc_rt.opt.tick_close ? "HPCRUN_COMM_TICK_CLOSE=1" : "HPCRUN_COMM_TICK_EMPTY=1",
				             (unsigned long long)tick_closed_at,
				             (unsigned long long)tick_closed_threads, (unsigned long long)tick_closed_unsampled);
			else
				process__log("sampling rate: the task-clock events closed at the change to the switching "
				             "level through the tick, the level kept for the rest of the run "
				             "(HPCRUN_COMM_TICK_CLOSE=%d; performance.md \"Session 27\"): not closed",
				             hc_rt.opt.tick_close ? 1 : 0);
		} else if (switchy_fd >= 0)
			process__log("sampling rate: the switching level through the task-clock (HPCRUN_COMM_TICK=0)");
		else if (heavy_fd >= 0)
			process__log("sampling rate: no switching level (HPCRUN_COMM_SWITCHY=%u, "
			             "HPCRUN_COMM_SWITCHY_RATE=%u)", hc_rt.opt.switchy, hc_rt.opt.switchy_rate);
		if (!(coarse_fd >= 0 || c->samples_coarse))
			process__log("sampling rate: COMM@%llu throughout (%s)", (unsigned long long)hc_rt.opt.period,
			             hc_rt.opt.per_thread ? "one event per thread: no coarse rate" :
			             crowd_mult <= 1 ? "HPCRUN_COMM_CROWDED_PERIOD=1" : "no coarse event");
	}
	{
		static const char *const what[RT_COST_KINDS] = {
			"watchpoint set armed", "watchpoint trap handled", "return breakpoint armed",
		};
		for (int k = 0; k < RT_COST_KINDS; k++) {
			uint64_t n = 0;

			for (int i = 0; i <= RT_STEP_HIST; i++)
				n += cost_hist_total[k][i];
			if (n)
				process__log("cost: %s: %llu times, median %llu ns, mean %llu ns of %s "
				             "(the handler's part; per sample: mean %llu ns)", what[k],
				             (unsigned long long)n,
				             (unsigned long long)quantile(cost_hist_total[k], 0.5),
				             (unsigned long long)(cost_ns_total[k] / n),
				             hc_rt.opt.cost_cpu ? "thread CPU time" : "wall time (HPCRUN_COMM_COST_CPU=0)",
				             (unsigned long long)(c->samples ? cost_ns_total[k] / c->samples : 0));
		}
	}
	if (!c->step_bursts)
		return;
	process__log("single-step bursts: %llu bursts, %llu steps (%llu.%02llu per burst), %llu stores "
	        "published; cost per burst (traps included): median %llu ns, mean %llu ns; "
	        "per sample: mean %llu ns",
	        (unsigned long long)c->step_bursts, (unsigned long long)c->steps,
	        (unsigned long long)(c->steps / c->step_bursts),
	        (unsigned long long)(c->steps * 100 / c->step_bursts % 100),
	        (unsigned long long)c->step_stores,
	        (unsigned long long)quantile(step_hist_total, 0.5),
	        (unsigned long long)(c->step_ns / c->step_bursts),
	        (unsigned long long)(c->samples ? c->step_ns / c->samples : 0));
	process__log("single-step bursts resolved by a forward scan (no trap; detect/scan.h): %llu of "
	        "%llu bursts, standing for %llu steps; %llu scans gave way to stepping",
	        (unsigned long long)c->step_scan_bursts, (unsigned long long)c->step_bursts,
	        (unsigned long long)c->step_scanned, (unsigned long long)c->step_scan_unresolved);
}

const struct rt_sampler soft__sampler = {
	.thread_size = sizeof(struct rt_soft_thread),
	.thread_fds = soft_thread_fds,
	.thread_start = soft_start,
	.thread_stop = soft_stop,
	.process_stop = soft_process_stop,
	.process_resume = soft_process_resume,
	.atfork_child = soft_atfork_child,
	.on_sample = soft_on_sample,
};
