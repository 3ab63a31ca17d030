/* SPDX-License-Identifier: BSD-3-Clause */
/* sampler/rate.h — the soft sampler's rate in a crowded process (issue #14
   point 5, doc/performance.md "Session 8: oversubscribed cost"). Pure and
   async-signal-safe; soft.c applies it, test_rate checks it.

   Why: on this VM the kernel's delivery of one timer sample (interrupt,
   signal frame, sigreturn, the hrtimer's re-arm: VM exits) costs 20-35 µs
   of CPU at load ~11 and up to ~100 µs at load 40, and a thread whose
   500-µs timer is the CPU's earliest pays ~4.5 µs more at every switch to
   the idle task or another program. An oversubscribed team (more threads
   than CPUs, blocking at every barrier) pays both in full: 1.15-1.45x its
   native CPU time at the default period, 1.05-1.13x at a 2x longer one and
   0.98-1.08x at 4x (doc/performance.md, Session 8).
   Only fewer timer expirations remove that cost; skipping samples in the
   handler leaves the kernel's part.

   How: the inherited task-clock event's period cannot be changed in the
   threads that already hold a copy (PERF_EVENT_IOC_PERIOD acts on the
   parent event only, and copies move between sibling threads at context
   switches). So the process's first thread opens two inherited events: the
   fine one (the period asked, enabled) and a coarse one (mult x the
   period, default 2, disabled), whose sample cookies carry their multiplier. ENABLE
   and DISABLE act on every copy at once, so the whole process changes
   rate together: coarse while it is crowded (more live measured threads
   than CPUs + 1, the switch gate's rule in cost.h), fine again once it has
   at most one thread per CPU (hysteresis: at exactly CPUs + 1 the rate
   stays as it is). A coarse sample stands for mult periods: its
   communications weigh mult times as much, and mult - 1 periods are
   counted in samples_thinned, which the analyzer adds to the sampled CPU
   time (report/scale.c). All threads change together, so detection — a
   sample against the other threads' recent samples — sees every thread at
   the same rate, as with a longer period from the start. */
#ifndef HC_RT_RATE_H
#define HC_RT_RATE_H

#include <stdbool.h>
#include <stdint.h>

/* HPCRUN_COMM_CROWDED_PERIOD: the coarse period as a multiple of the one
   asked; 1 = no coarse rate. 2: the oversubscribed OpenMP and barrier
   stencils at 1.05-1.13x CPU (4x: 0.98-1.08x), and the accuracy suite's
   short 2x-oversubscribed runs keep their pairs (4x lost one of fs_pairs'
   two in both runs: one detection left in 0.3 s). */
#define RT_CROWD_MULT_DEFAULT 2u
#define RT_CROWD_MULT_MAX     64u
/* A process samples at the fine rate until it has taken this many samples
   (250 ms of CPU at the default period), crowded or not: a short run keeps
   all its samples (the accuracy suite's 2x-oversubscribed runs at the quick
   scale take 100-300 in all, and lost pairs at half of them), a long one
   pays the fine rate for a small part of its time. */
#define RT_CROWD_WARMUP       500u
/* The cookie's low bits that carry a sample event's multiplier. */
#define RT_RATE_MULT_MASK     0xffffull

/* Should the process sample at the coarse period, given the current state,
   its live measured threads, its CPUs (0 = unknown) and the samples it has
   taken so far (fewer than `warmup`: not yet)? */
static inline bool rt_rate_want_coarse(bool coarse_now, uint32_t live, uint32_t ncpu, uint32_t mult,
                                       uint64_t samples, uint64_t warmup)
{
	if (mult <= 1 || ncpu == 0 || samples < warmup)
		return false;
	if (live > ncpu + 1)
		return true;
	if (live <= ncpu)
		return false;
	return coarse_now;
}

/* The quiet-process rule (performance.md, "Session 10"). A process whose
   samples have shown no sign of sharing for `window` samples in a row
   (counted over all its threads) samples at the coarse rate too, and
   returns to the fine rate at the first sign: a sample of a line that
   another thread published recently (the burst evidence of soft.c), or a
   communication recorded from a sample, a step or a trap. Why: the kernel's
   delivery of a sample costs the same whether the handler finds anything
   or not, and a process that shares nothing (a compressor's private
   blocks, an embarrassingly parallel loop) pays it at the full rate for
   nothing. A program whose sharing is a small part of its work shows signs
   rarely (the accuracy suite's cxx_stats at -O0: none in its first 512
   samples in 1 of 3 runs, which then lost its one pair at a 512-sample
   window): the window is long so that only a gap of thousands of samples
   thins, and a program with at least one sign per ~500 samples spends
   ~2 % of its samples coarse (e^-4). The coarse samples weigh what they
   stand for (as when crowded). RT_QUIET_WINDOW_DEFAULT:
   HPCRUN_COMM_QUIET_SAMPLES; 0 = off. */
#define RT_QUIET_WINDOW_DEFAULT 2048u

/* Quiet: `window` samples or more since the latest sign (taken at the
   process's sample count `last_sign`; a count that went back, a racy
   reader's view, is not quiet). */
static inline bool rt_rate_quiet(uint64_t samples, uint64_t last_sign, uint64_t window)
{
	return window > 0 && samples >= last_sign && samples - last_sign >= window;
}

/* The rate the process wants, both rules together: the crowded rule keeps
   its own state (*crowded, with its hysteresis and warm-up), so that a
   quiet stretch ending at exactly CPUs + 1 live threads returns to the fine
   rate; quiet adds nothing when the coarse rate is off (mult <= 1). */
static inline bool rt_rate_decide(bool *crowded, uint32_t live, uint32_t ncpu, uint32_t mult,
                                  uint64_t samples, uint64_t warmup, uint64_t last_sign, uint64_t window)
{
	*crowded = rt_rate_want_coarse(*crowded, live, ncpu, mult, samples, warmup);
	return *crowded || (mult > 1 && rt_rate_quiet(samples, last_sign, window));
}

/* Heavily crowded (performance.md, "Session 11"): more live threads than
   F x CPUs + 1 — the coarse period is multiplied once more, by `heavy`
   (HPCRUN_COMM_CROWDED_HEAVY, default 2: x4 in all; 1 = off), through a
   third inherited event. Why: an oversubscribed team blocks and wakes at
   every barrier, each switch to the idle task restarts the sampler's timer
   (~7 us), and its threads get a fraction of a CPU each, so a sample costs
   the same while the switches around it cost more. F
   (HPCRUN_COMM_CROWDED_HEAVY_FROM) was 2 until Session 14 (an OpenMP team
   of 8 on 2 CPUs; a team of 4 stayed at x2); 1, the default since, takes
   every crowded process to x4 once its warm-up is over: the 2x-oversubscribed
   OpenMP stencil 1.11 -> 1.05 of its native CPU time, and the accuracy
   suite's -t 4 runs (main + 4 workers, 75-260 of their 600-760 samples past
   the warm-up) kept their pairs (performance.md, "Session 14"). The quiet
   rule stays at x mult (level 1). Hysteresis as for the crowded rule: back
   to the coarse level at F x CPUs or fewer, unchanged at exactly
   F x CPUs + 1 (with F = 1 the crowded rule's own edge). */
#define RT_CROWD_HEAVY_DEFAULT 2u
#define RT_CROWD_HEAVY_FROM_DEFAULT 1u

/* The rate level the process wants: 0 fine, 1 coarse (mult), 2 heavily
   crowded (mult x heavy); `now` is the level in effect, *crowded the
   crowded rule's state (rt_rate_decide), heavy_from F above (0 counts as
   1). The quiet rule alone never goes past level 1. */
static inline uint32_t rt_rate_level(uint32_t now, bool *crowded, uint32_t live, uint32_t ncpu, uint32_t mult,
                                     uint32_t heavy, uint32_t heavy_from, uint64_t samples, uint64_t warmup,
                                     uint64_t last_sign, uint64_t window)
{
	uint64_t edge = (uint64_t)(heavy_from ? heavy_from : 1) * ncpu;

	if (!rt_rate_decide(crowded, live, ncpu, mult, samples, warmup, last_sign, window))
		return 0;
	if (!*crowded || heavy <= 1)
		return 1;
	if (live > edge + 1)
		return 2;
	if (live <= edge)
		return 1;
	return now == 2 ? 2 : 1;
}

/* The switching level (performance.md, "Session 16"; level 3): a heavily
   crowded process whose threads block and wake very often — more than
   `rate` context switches (voluntary + involuntary, all its threads:
   getrusage) per second of its CPU time — multiplies the heavy period once
   more, by `switchy` (HPCRUN_COMM_SWITCHY, default 4: x16 in all, 8 ms at
   the default period; 1 = off), through a fourth inherited event. Why: a
   task-clock sample event runs an hrtimer, stopped and restarted at every
   switch of its thread to or from another context (the idle task, another
   program: no sibling clone to swap with), and a timer shorter than the
   tick (4 ms at HZ 250) is usually the CPU's earliest, so both reprogram
   the clock-event device: VM exits on every such switch, whatever the
   handler does. LULESH 2x-oversubscribed switches ~120,000 times per
   second of CPU (its barriers), 4x ~130,000; the OpenMP stencils and the
   accuracy suite's crowded runs < 20,000, the barrier stencil 4x ~41,000
   (hence 75,000, not 50,000: 1.8x below): the switching level takes only
   processes where the per-switch part, not the samples, is the cost.
   HPCRUN_COMM_SWITCHY_RATE: the threshold, switches per CPU second
   (default RT_SWITCHY_RATE_DEFAULT; 0 = off); hysteresis: off again below
   half of it. Looked at every RT_SWITCHY_EVERY samples of the process
   while it is heavily crowded, over the window since the last look. */
#define RT_SWITCHY_DEFAULT      4u
#define RT_SWITCHY_RATE_DEFAULT 75000u
#define RT_SWITCHY_EVERY        64u

/* The switching rule in the warm-up (HPCRUN_COMM_SWITCHY_WARMUP = F,
   default RT_SWITCHY_WARMUP_DEFAULT; performance.md "Session 20"): a
   crowded process is looked at every RT_SWITCHY_EVERY samples from its F-th
   sample on, not only once its warm-up is over, and one found switching
   ends its warm-up there (level 3 at once); 0 = never. Why: LULESH 2x
   spends ~55 % of its CPU in the kernel (its barriers' futex waits), where
   exclude_kernel drops the task-clock's samples, so its 500 warm-up
   samples took ~0.5 s of CPU at the fine period, every switch to the idle
   task or another program restarting the hrtimer (VM exits). A process
   switching that often is one whose per-switch part, not the samples, is
   the cost. Why not from the first look (64): the owner-style `mw_spin
   -O2 -t 4` (sched_yield every 256 spins, 260,000 switches a CPU second)
   takes 25-116 samples in all and needs every one of them; the accuracy
   suite's crowded runs switch < 12,000 times a CPU second and keep their
   warm-up either way. The warm-up the level rule is given: 0 once ended
   early, else `warmup`. */
#define RT_SWITCHY_WARMUP_DEFAULT 256u
static inline uint64_t rt_rate_warmup_left(uint64_t warmup, bool early, bool switching)
{
	return early && switching ? 0 : warmup;
}

/* Should the switching rule look now (sample count n of the process, at
   level `level`; crowded: more live threads than CPUs + 1)? Every `every`
   samples at the heavily crowded levels; before them, while the process is
   crowded and in its warm-up (n < warmup), from sample `from` on (0 =
   never). */
static inline bool rt_rate_switchy_look(uint64_t n, uint32_t level, bool crowded, uint64_t from, uint64_t warmup,
                                        uint32_t every)
{
	if (!every || n % every)
		return false;
	return level >= 2 || (from && crowded && n >= from && n < warmup);
}

/* Is the process switching (level 3 wanted), given the state now and
   `dsw` switches over `dcpu_ns` of its CPU time? No CPU time: unchanged. */
static inline bool rt_rate_switchy(bool now, uint64_t dsw, uint64_t dcpu_ns, uint64_t rate)
{
	if (!rate)
		return false;
	if (!dcpu_ns || dsw > UINT64_MAX / 2000000000ull || rate > UINT64_MAX / 2 / dcpu_ns)
		return now;
	if (dsw * 1000000000ull > rate * dcpu_ns)
		return true;
	if (dsw * 2000000000ull < rate * dcpu_ns)
		return false;
	return now;
}

/* ... or, since the process became crowded enough for the rule (its first
   thread beyond CPUs + 1), `usw` voluntary switches over `uns` of its user
   CPU time above `urate` while the window's rate is at 2/3 of `rate` or
   more (HPCRUN_COMM_SWITCHY_USER_RATE, default RT_SWITCHY_USER_RATE_DEFAULT;
   0 = off; performance.md "Session 27"); off again once the window's rate
   is below half its threshold and the user rate below half its own. Why:
   at the fine period (the warm-up) every switch of a switching process to
   or from another context restarts the task-clock's hrtimer (VM exits):
   system time that lowers its switches per CPU second, a mode that keeps
   itself going (slower hand-offs, more blocking); LULESH 2x's warm-up looks
   missed 75,000 in 3 of 10, 3 of 10 and 3 of 6 quiet runs of session 26
   (750-1,000 samples a run against 500-650: ~0.5 s more at the fine and
   heavy periods, its dearest runs), while its voluntary switches per user
   second stay ~165,000. Since the crowding, not the window of 64 samples:
   the windows are noisy. Voluntary only: another program's preemptions
   (load) are not the process's switching. The window's 2/3: mw_cond -O2
   -t 4 has a regime with little user time (0.08 s user, 0.22 s system:
   668,000 voluntary switches per user second, 44,000 per CPU second).
   Natively (whole runs, 4 threads, voluntary switches per user second):
   LULESH 2x ~165,000; halo_bar -O0 68,000; mw_cond 54,000 (its other
   regime aside); the suite's other crowded programs < 30,000 but
   lock_queue -O2 and spsc -O2, above 75,000 per CPU second already. */
#define RT_SWITCHY_USER_RATE_DEFAULT 120000u
static inline bool rt_rate_switchy_user(bool now, uint64_t dsw, uint64_t dcpu_ns, uint64_t rate, uint64_t usw,
                                        uint64_t uns, uint64_t urate)
{
	bool cpu = rt_rate_switchy(now, dsw, dcpu_ns, rate);

	if (!urate || !uns || usw > UINT64_MAX / 2000000000ull || urate > UINT64_MAX / 2 / uns)
		return cpu;
	if (usw * 1000000000ull > urate * uns && dcpu_ns && dsw <= UINT64_MAX / 3000000000ull &&
	    rate <= UINT64_MAX / 2 / dcpu_ns && dsw * 3000000000ull > 2 * rate * dcpu_ns)
		return true;       /* on by the user rate (the window at 2/3 of its threshold at least) */
	if (!now)
		return cpu;
	/* on: off only when both rates are below half their thresholds */
	return cpu || usw * 2000000000ull >= urate * uns;
}

/* The level with the switching rule: the heavily crowded level (2) becomes
   3 while the process is switching and the level exists (switchy > 1). */
static inline uint32_t rt_rate_level_switchy(uint32_t level, bool switching, uint32_t switchy)
{
	return level == 2 && switching && switchy > 1 ? 3 : level;
}

/* A level's multiplier (saturating at RT_CROWD_MULT_MAX x RT_CROWD_MULT_MAX,
   which the cookie's mask holds). */
static inline uint32_t rt_rate_level_mult(uint32_t level, uint32_t mult, uint32_t heavy)
{
	if (level == 0 || mult <= 1)
		return 1;
	if (level == 1 || heavy <= 1)
		return mult;
	return mult * heavy;
}

/* ... and with the switching level (3: x switchy more, saturating at the
   cookie's mask). */
static inline uint32_t rt_rate_level_mult3(uint32_t level, uint32_t mult, uint32_t heavy, uint32_t switchy)
{
	uint64_t m = rt_rate_level_mult(level > 2 ? 2 : level, mult, heavy);

	if (level > 2 && switchy > 1)
		m *= switchy;
	return m > RT_RATE_MULT_MASK ? (uint32_t)RT_RATE_MULT_MASK : (uint32_t)m;
}

/* A sample event's cookie with its multiplier in the low bits (the kind
   stays in the top byte, signal.c). */
static inline uint64_t rt_rate_cookie(uint64_t base, uint32_t mult)
{
	return (base & ~RT_RATE_MULT_MASK) | ((uint64_t)mult & RT_RATE_MULT_MASK);
}

/* The multiplier of a sample, from its cookie: 0 (a cookie without one)
   is 1. */
static inline uint32_t rt_rate_cookie_mult(uint64_t cookie)
{
	uint32_t m = (uint32_t)(cookie & RT_RATE_MULT_MASK);

	return m ? m : 1;
}

/* A communication's weight at multiplier mult (0 counts as 1), saturating. */
static inline uint64_t rt_rate_weight(uint64_t w, uint32_t mult)
{
	if (mult <= 1)
		return w;
	return w > UINT64_MAX / mult ? UINT64_MAX : w * mult;
}

/* A multiplier option's value: 1..RT_CROWD_MULT_MAX, or 0 when s is not a
   number in that range (unset: def). */
static inline uint32_t rt_rate_parse_factor(const char *s, uint32_t def)
{
	uint32_t v = 0;

	if (!s || !*s)
		return def;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > RT_CROWD_MULT_MAX)
			return 0;
		v = v * 10 + (uint32_t)(*s - '0');
	}
	return v >= 1 && v <= RT_CROWD_MULT_MAX ? v : 0;
}

/* HPCRUN_COMM_CROWDED_PERIOD's value (unset: RT_CROWD_MULT_DEFAULT). */
static inline uint32_t rt_rate_parse_mult(const char *s)
{
	return rt_rate_parse_factor(s, RT_CROWD_MULT_DEFAULT);
}

/* HPCRUN_COMM_CROWDED_HEAVY's value (unset: RT_CROWD_HEAVY_DEFAULT). */
static inline uint32_t rt_rate_parse_heavy(const char *s)
{
	return rt_rate_parse_factor(s, RT_CROWD_HEAVY_DEFAULT);
}

/* HPCRUN_COMM_CROWDED_HEAVY_FROM's value (unset:
   RT_CROWD_HEAVY_FROM_DEFAULT). */
static inline uint32_t rt_rate_parse_heavy_from(const char *s)
{
	return rt_rate_parse_factor(s, RT_CROWD_HEAVY_FROM_DEFAULT);
}

/* HPCRUN_COMM_SWITCHY's value (unset: RT_SWITCHY_DEFAULT). */
static inline uint32_t rt_rate_parse_switchy(const char *s)
{
	return rt_rate_parse_factor(s, RT_SWITCHY_DEFAULT);
}

/* The switching level through the tick (performance.md, "Session 17";
   HPCRUN_COMM_TICK, default RT_TICK_DEFAULT; 0 = off): while the process is
   at level 3, each thread samples with a POSIX timer on its own user CPU
   time (timer_create on the thread's CPUCLOCK_VIRT clock, SIGEV_THREAD_ID,
   SIGTRAP with the sample cookie in si_value) instead of the inherited
   task-clock, whose events are then all disabled. Why: a task-clock sample
   event keeps an hrtimer that is stopped and restarted at every switch of
   its thread to the idle task or another program, and a period below the
   tick reprograms the clock-event device (a TSC-deadline MSR write, a VM
   exit) — counted on LULESH 2x at load 9: native 854 / 972 TSC_DEADLINE
   writes, an empty-handler task-clock at 8 ms 6,335 / 4,739, a POSIX
   thread timer at 8 ms 773 / 742. Thread CPU-time timers are checked at
   the scheduler tick (HZ 250: 4 ms) and cost a switch nothing; their
   samples come at a tick that found the thread in user mode, so a sample
   is an interrupted user instruction as with exclude_kernel. The user-time
   clock's rate matches the task-clock's kept samples (exclude_kernel drops
   those in the kernel: period x user / total), so a timer sample weighs the
   level's multiplier like the event's. Clock id: the kernel's
   MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_VIRT), tid 0 = the calling thread. */
#define RT_TICK_DEFAULT 1u
/* ... and at the change to it, the task-clock events closed
   (HPCRUN_COMM_TICK_CLOSE, default RT_TICK_CLOSE_DEFAULT; performance.md
   "Session 27"): disabled, the four inherited events still cost every
   context switch of a thread whose perf context is its own (a thread that
   opened its watchpoints: ~0.5 us a switch, switch_cost), and LULESH 2x
   switches ~500,000 times a run. Closing the parents removes every
   thread's copy; the process then stays at level 3 for the rest of the run
   (no event to go back to), threads starting later sample on their own
   timer. Off: no gain shown (a futex ring under the runtime was dearer
   with it in 4 of 5 rounds; LULESH within its sittings' spread). */
#define RT_TICK_CLOSE_DEFAULT 0u
/* HPCRUN_COMM_TICK_EMPTY (performance.md "Session 29"): at the change to
   level 3 through the tick, the task-clock events closed (as
   HPCRUN_COMM_TICK_CLOSE) and the process-wide watch set's inherited
   breakpoints too; the set goes on with breakpoints opened on the live
   threads at each arm and closed at its end (watch.c), so that the
   threads' perf contexts are empty between sets. On since session 29:
   LULESH 2x 1.101 / 1.075 of native CPU against 1.144 / 1.180 without,
   the suite's loaded lock_queue/spsc -O2 -t 4 and the holdout's halo_bar
   -O2 -t 4 (level 3 at sample 256) with every figure kept. */
#define RT_TICK_EMPTY_DEFAULT 1u
static inline int rt_tick_clockid(int tid)
{
	return (int)((unsigned)~tid << 3) | 4 /* CPUCLOCK_PERTHREAD_MASK */ | 1 /* CPUCLOCK_VIRT */;
}

/* A period in ns as the timer's interval (seconds, nanoseconds). */
static inline void rt_tick_interval(uint64_t ns, int64_t *sec, int64_t *nsec)
{
	*sec = (int64_t)(ns / 1000000000ull);
	*nsec = (int64_t)(ns % 1000000000ull);
}

/* The table of live measured threads that the thread changing the level
   makes or deletes every timer from (soft.c): RT_TICK_SLOTS words, a
   thread in slot index % RT_TICK_SLOTS or one of the next RT_TICK_PROBE-1.
   A word: the thread's tid (high 32 bits, never 0) and its timer id + 1
   (low 32 bits, 0 = no timer); 0 = a free slot. */
#define RT_TICK_SLOTS 1024u
#define RT_TICK_PROBE 16u
static inline uint64_t rt_tick_word(uint32_t tid, int id)
{
	return (uint64_t)tid << 32 | (uint32_t)(id + 1);
}
static inline uint32_t rt_tick_word_tid(uint64_t w)
{
	return (uint32_t)(w >> 32);
}
static inline int rt_tick_word_id(uint64_t w)
{
	return (int)(uint32_t)w - 1;
}

#endif
