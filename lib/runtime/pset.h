/* SPDX-License-Identifier: BSD-3-Clause */
/* pset.h — the rules of the process-wide watch set (doc/detection.md §5.13):
   a few breakpoint events opened once with `inherit` by the process's first
   thread, so that every later thread carries copies and its sibling context
   switches stay cheap (the copies keep the perf contexts clones; a thread's
   own breakpoint events un-clone it: cost.h, the switch gate). One set for
   the whole process: re-targeted from the sample of a thread that the
   switch gate refuses, it traps in every thread that touches the line.
   Pure and async-signal-safe (the runtime part is in watch.c, which runs in
   signal context); the unit test replays the rules on synthetic inputs. */
#ifndef HC_RUNTIME_PSET_H
#define HC_RUNTIME_PSET_H

#include <stdbool.h>
#include <stdint.h>

#define RT_PSET_DEFAULT         1u           /* HPCRUN_COMM_PROCSET: registers, 0 = off (on by
                                                default since session 10: accuracy.md) */

/* What a refused thread arms the set on (HPCRUN_COMM_PROCSET_TARGET): the
   entry its detection chose (another thread's publication, as a
   per-thread set), its own sampled access (Feather's arm: every other
   thread watches the line this thread touches), or both (the entry when
   the sample chose one, else the access). */
#define RT_PSET_TARGET_ENTRY  1
#define RT_PSET_TARGET_SAMPLE 2
#define RT_PSET_TARGET_BOTH   3
#define RT_PSET_TARGET_ZONE   4            /* and zones: where two threads' samples meet
                                               (zone.h; HPCRUN_COMM_PROCSET_ZONE, default on) */
#define RT_PSET_TARGET_DEFAULT RT_PSET_TARGET_BOTH
#define RT_PSET_ZONE_DEFAULT  4u           /* a zone whenever there is one (quarters) */

/* The budget of the re-targeting: MODIFY_ATTRIBUTES on the parent event
   updates every copy, the running ones by an IPI to their CPU — 7–9 µs
   with the copies asleep, ~130 µs with one or two running, 0.5–3 ms at 128
   threads (performance.md, "Session 8: what the gate should charge"; here
   a median of 18 µs per arm in the accuracy suite's stencil and spsc).
   Arms, ends and the set's own-line traps are charged (wall ns) against
   the process's CPU time: at most `permille` of it, plus `grace_ns` so
   that a young process can arm at all. What is charged is not all it
   costs (the IPIs' share on the other CPUs, an armed register's extra at
   each switch to the idle task): at 2 % `stencil -O2` took ~10 % more CPU
   time, at 0.5 % nothing measurable (accuracy.md, "Session 9"); 1 %
   since session 16: stencil pairs 196 against 185 of 256 at 0.5 %,
   costs within the rotations' noise (detection.md §5.25). */
#define RT_PSET_BUDGET_PERMILLE 10u          /* 1 % of the process's CPU time (HPCRUN_COMM_PROCSET_BUDGET) */
#define RT_PSET_GRACE_NS        2000000u     /* 2 ms */
#define RT_PSET_RET_DEFAULT     1u           /* HPCRUN_COMM_PROCSET_RET: a gated thread's return
                                                breakpoint on the set, 0 = off (detection.md §5.21) */
#define RT_PSET_SWITCH_NS       10000u       /* each context switch of the process while a set
                                                is armed (an armed register's extra at a switch
                                                to or from the idle task: +9–10 µs) */
#define RT_PSET_SWITCH_CROWDED_NS 10000u     /* the same in a crowded process (more live threads
                                                than CPUs + 1: most switches are from sibling to
                                                sibling; detection.md §5.40) */
#define RT_PSET_TRAP_NS         15000u       /* the kernel's delivery of one trap, charged with
                                                the handler (a perf breakpoint trap: 12–21 µs) */
#define RT_PSET_OWN_MAX         8u           /* publisher's own traps that end a set (1 for a
                                                set on the arming thread's own access found
                                                less: accuracy.md, "Session 9") */


/* The process's context switches the set's armed time is charged for
   (at HPCRUN_COMM_PROCSET_SWITCH_NS or _CROWDED_NS each): switches now
   (vol, inv: getrusage's voluntary and involuntary) against those at the
   arm (vol0, inv0). With vol_only
   (HPCRUN_COMM_PROCSET_SWITCH_VOL, detection.md §5.39) only the voluntary
   ones: a thread that blocks may leave its CPU to the idle task, where an
   armed copy costs +9-10 us; an involuntary switch (a preemption or a
   sched_yield) leaves it to another runnable task. *exempt: the
   involuntary switches not charged. */
static inline uint64_t rt_pset_switches_charged(uint64_t vol, uint64_t inv, uint64_t vol0, uint64_t inv0,
                                                bool vol_only, uint64_t *exempt)
{
	uint64_t dv = vol > vol0 ? vol - vol0 : 0, di = inv > inv0 ? inv - inv0 : 0;

	*exempt = vol_only ? di : 0;
	return vol_only ? dv : dv + di;
}

static inline bool rt_pset_budget_allows(uint64_t spent_ns, uint64_t cpu_ns, uint32_t permille,
                                         uint64_t grace_ns)
{
	return spent_ns * 1000 <= cpu_ns * permille + grace_ns * 1000;
}

/* The set's state word: a generation (every arm makes a new one) and the
   state, so that a compare-and-swap validates a copy of the set's record
   read meanwhile (a re-arm in between changes the word). */
enum rt_pset_state {
	RT_PSET_IDLE = 0,     /* nothing armed */
	RT_PSET_BUSY = 1,     /* being armed or ended by one thread: hands off */
	RT_PSET_ARMED = 2,
};
static inline uint64_t rt_pset_word(uint64_t gen, enum rt_pset_state s) { return gen << 2 | (uint64_t)s; }
static inline enum rt_pset_state rt_pset_state_of(uint64_t w) { return (enum rt_pset_state)(w & 3); }
static inline uint64_t rt_pset_gen_of(uint64_t w) { return w >> 2; }

/* May thread `req` arm the set now? An idle set, yes; one being armed or
   ended, no; an armed one, only by the thread that armed it (its next
   set: a thread's set lives one of its sampling intervals, as a per-thread
   set does) or once it is `min_age` ns old (a set whose arming thread
   blocks must not hold the process's registers for long). */
static inline bool rt_pset_may_arm(enum rt_pset_state s, uint32_t owner, uint32_t req, uint64_t armed_at,
                                   uint64_t now, uint64_t min_age)
{
	if (s == RT_PSET_IDLE)
		return true;
	if (s == RT_PSET_BUSY)
		return false;
	return req == owner || now < armed_at || now - armed_at >= min_age;
}

/* A set's life, in sampling periods of wall time: an armed set older than
   this ends at the next sample of any thread (a per-thread set lives one
   sampling interval of its thread). */
#define RT_PSET_LIFE 4u
static inline bool rt_pset_expired(uint64_t armed_wall, uint64_t now, uint64_t life_ns)
{
	return now >= armed_wall && now - armed_wall >= life_ns;
}

/* A thread the switch gate lets through (its own registers open) arms
   zone sets too (HPCRUN_COMM_PROCSET_ZONE_OPEN, session 12), on an idle
   set and only while no gated thread has sampled or asked for the set in
   the last RT_PSET_OPEN_QUIET periods (wall): the set is theirs when there
   are such threads (stencil -O0 -t 4: letting the open threads arm too
   found fewer pairs, 21 against 30 of 56, 8 rounds), and nobody's when
   every thread is let through (stencil -O0 -t 2: 19 against 10 of 24). */
#define RT_PSET_OPEN_QUIET 8u
static inline bool rt_pset_open_allows(uint64_t gated_at, uint64_t now, uint64_t quiet_ns)
{
	return gated_at == 0 || (now >= gated_at && now - gated_at >= quiet_ns);
}

/* What a trap of the set in thread `me` is. */
enum rt_pset_trap {
	RT_PSET_TRAP_LATE,    /* the set is no longer armed, or the access is not on its line */
	RT_PSET_TRAP_OWN,     /* the watched entry's publisher touching its own line again */
	RT_PSET_TRAP_FOREIGN, /* any other thread: a communication with the publisher; ends the set */
};
static inline enum rt_pset_trap rt_pset_trap_kind(bool armed, uint32_t publisher, uint32_t me, uint64_t addr,
                                                  uint32_t len, uint64_t line, uint32_t line_size)
{
	if (!armed || addr + (len ? len : 1) <= line || addr >= line + line_size)
		return RT_PSET_TRAP_LATE;
	return me == publisher ? RT_PSET_TRAP_OWN : RT_PSET_TRAP_FOREIGN;
}

/* The publisher's own traps end the set after `own_max` (a thread that
   writes its line in a loop would otherwise trap at every store). */
static inline bool rt_pset_own_ends(uint32_t own_traps, uint32_t own_max)
{
	return own_traps >= own_max;
}

/* A zone set (zone.h) is armed without an entry: nobody published its
   line. What a trap of it is, given the set's entry so far (its thread,
   RT_PSET_NOBODY before the first trap, and whether that access was a
   load) and the trapping access (thread me, a store or not):
   - ADOPT: the access becomes the set's entry — the first trap; the
     entry's own thread storing after its load (the store is what the
     line's next reader communicates with); another thread's load after a
     load (two loads never communicate: the later reader is the one the
     next writer invalidates);
   - OWN: the entry's thread touching the line again (counted; ends the
     set after RT_PSET_OWN_MAX, as a set on a publication does);
   - COMM: another thread, with a store on at least one side: one
     communication with the entry's thread, and the set ends. */
#define RT_PSET_NOBODY UINT32_MAX
#define RT_PSET_ZONE_ADOPT_MAX 16u          /* adoptions that end a zone set (each trap is ~20 µs) */
#define RT_PSET_ZONE_OWN_MAX   4u           /* own traps that end a zone set: in a halo line the
                                               owner's accesses between its store and the
                                               neighbour's load are 3 (stencil), and a line
                                               only one thread touches should not cost 8 traps */
enum rt_pset_zone_trap { RT_PSET_ZONE_ADOPT, RT_PSET_ZONE_OWN, RT_PSET_ZONE_COMM };
static inline enum rt_pset_zone_trap rt_pset_zone_trap_kind(uint32_t entry_thread, bool entry_is_load,
                                                            uint32_t me, bool is_store)
{
	if (entry_thread == RT_PSET_NOBODY)
		return RT_PSET_ZONE_ADOPT;
	if (me == entry_thread)
		return is_store && entry_is_load ? RT_PSET_ZONE_ADOPT : RT_PSET_ZONE_OWN;
	return entry_is_load && !is_store ? RT_PSET_ZONE_ADOPT : RT_PSET_ZONE_COMM;
}

/* An edge set (HPCRUN_COMM_PROCSET_EDGE; detection.md §5.55): a gated
   thread's sample in a heap block that thread allocated arms the set on a
   word at the block's edge instead of its sampled chunk. A thread's own
   block in a domain decomposition (halo_bar's u) is read by its
   neighbours at its first and last interior words — the halo — while the
   thread's samples land in its interior rows, which nobody else touches.
   The word: side r & 1 (0 the first words, 1 the last), the
   (skip + (r >> 1) % words)-th 8-byte word from that end (the block's
   8-byte words only: base and end rounded in; skip 1 passes over the
   outermost word, a ghost cell the owner writes itself); 0 when the block
   holds fewer than RT_PSET_EDGE_MIN bytes, fewer than 2 (skip + words)
   words, or words == 0. Watched as a zone set (its first trap its entry)
   whose pair is RT_PSET_EDGE_PAIR, so the owner's store is the entry and a
   neighbour's read of it one communication; the owner's traps at the pc
   of its previous trap (a rep movs copying into the word one byte a trap)
   do not count towards RT_PSET_ZONE_OWN_MAX. */
#define RT_PSET_EDGE_DEFAULT  4u            /* chance in quarters (measured: §5.55) */
#define RT_PSET_EDGE_MIN      256u          /* bytes: smaller blocks are one object, not a domain */
#define RT_PSET_EDGE_WORDS    1u            /* words from each end */
#define RT_PSET_EDGE_SKIP     1u            /* outermost words passed over (a ghost cell) */
#define RT_PSET_EDGE_PAIR     (UINT32_MAX - 1)   /* zone_a = zone_b of an edge set */
/* Edge sets go on while they communicate: at most RT_PSET_EDGE_TRIES armed
   per communication found, plus RT_PSET_EDGE_TRIES (a process whose own
   blocks' edges nobody reads — gen_heap's next generation reads them
   after the writer ended — stops after that many). */
#define RT_PSET_EDGE_TRIES    8u
static inline bool rt_pset_edge_allows(uint64_t armed, uint64_t comms)
{
	return armed < (uint64_t)RT_PSET_EDGE_TRIES * (comms + 1);
}
static inline uint64_t rt_pset_edge_word(uint64_t base, uint64_t size, uint32_t skip, uint32_t words, uint64_t r)
{
	uint64_t lo = (base + 7) & ~(uint64_t)7, hi = (base + size) & ~(uint64_t)7, k;

	if (!words || size < RT_PSET_EDGE_MIN || hi <= lo || (hi - lo) / 8 < 2 * ((uint64_t)skip + words))
		return 0;
	k = skip + (r >> 1) % words;
	return (r & 1) ? hi - 8 * (k + 1) : lo + 8 * k;
}

/* Edge memory (HPCRUN_COMM_PROCSET_EDGE_MEMORY; detection.md §5.64). An
   edge set's block and side are remembered, with the sets armed there and
   the communications they found, in a small table by block (benign
   races: a lost count is one set more or less). A block's side is worth
   another set while it found its neighbour (armed < RT_PSET_EDGE_DRY + 2 x
   communications): a side nobody reads (the scratch array `v` of a halo
   program, both its sides; a non-periodic domain's outer side) stops after
   RT_PSET_EDGE_DRY sets, one in RT_PSET_EDGE_RETRY asks still tried. Of
   two sides worth a set, the one with fewer communications: a side found
   is a pair found, the other side's pair is what recall waits on.
   rt_pset_edge_side: 0 or 1, or -1 when neither side is worth a set (the
   sample asks elsewhere: the thread's other blocks). r: random bits.
   A block's allocation site counts for all its blocks: every worker's
   scratch array comes from one malloc call, so once RT_PSET_EDGE_DRY sets
   on that site's blocks found nothing (rt_pset_edge_site_dry), none of
   them is asked again but one in RT_PSET_EDGE_RETRY: the sample asks for
   another block of its thread's instead — a process has budget for ~10
   edge sets a run (halo_bar -O0 -t 4), not for 3 on each side of each
   scratch array, and the 8 sets edge sets get before a communication
   (rt_pset_edge_allows) are spread over the sites. */
#define RT_PSET_EDGE_MEMORY_DEFAULT 1u     /* HPCRUN_COMM_PROCSET_EDGE_MEMORY (§5.64) */
#define RT_PSET_EDGE_SLOTS    64u
#define RT_PSET_EDGE_DRY      4u
#define RT_PSET_EDGE_RETRY    4u
struct rt_pset_edge_slot {
	uint64_t base, size;     /* the block (0: a free slot) */
	uint32_t thread;         /* its allocating thread */
	uint32_t site;           /* its allocation site (a calling context) */
	uint32_t armed[2], comms[2];
};
static inline bool rt_pset_edge_side_ok(uint32_t armed, uint32_t comms)
{
	return armed < RT_PSET_EDGE_DRY + 2 * comms;
}
static inline int rt_pset_edge_side(const uint32_t armed[2], const uint32_t comms[2], uint64_t r)
{
	bool ok0 = rt_pset_edge_side_ok(armed[0], comms[0]), ok1 = rt_pset_edge_side_ok(armed[1], comms[1]);

	if (!ok0 && !ok1)
		return (r >> 8) % RT_PSET_EDGE_RETRY == 0 ? (int)(r & 1) : -1;
	if (ok0 != ok1)
		return ok0 ? 0 : 1;
	if (comms[0] != comms[1])
		return comms[0] < comms[1] ? 0 : 1;
	return (int)(r & 1);
}
/* Edge sets over the set's budget (HPCRUN_COMM_PROCSET_EDGE_BUDGET permille
   of the process's CPU time of their own, §5.64): only while they
   communicate — at least RT_PSET_EDGE_PRODUCTIVE communications, one in
   at most 4 sets armed — so a program whose edge sets find nothing (every
   suite program, LULESH) never spends it. */
#define RT_PSET_EDGE_PRODUCTIVE 1u
#define RT_PSET_EDGE_BUDGET_DEFAULT 10u     /* HPCRUN_COMM_PROCSET_EDGE_BUDGET, permille (§5.64) */
static inline bool rt_pset_edge_productive(uint64_t armed, uint64_t comms)
{
	return comms >= RT_PSET_EDGE_PRODUCTIVE && armed <= 4 * comms;
}
static inline bool rt_pset_edge_site_dry(uint64_t site_armed, uint64_t site_comms, uint64_t r)
{
	return site_comms == 0 && site_armed >= RT_PSET_EDGE_DRY && (r >> 40) % RT_PSET_EDGE_RETRY != 0;
}
/* A block's first slot (then the next RT_PSET_EDGE_PROBE - 1): a
   multiplicative hash, per-thread malloc arenas being 64 MiB apart. */
#define RT_PSET_EDGE_PROBE 8u
static inline uint32_t rt_pset_edge_slot_of(uint64_t base)
{
	return (uint32_t)((base * 0x9e3779b97f4a7c15ull) >> 58) % RT_PSET_EDGE_SLOTS;
}

/* A trap weighs what a per-thread set's would: the arms the budget or a
   busy set refused are counted, not stood for (multiplying a trap's weight
   by the refusals since the previous arm, up to 64, let one trap in a run
   outweigh a hundred samples). */

/* A creator's hand-off chain (HPCRUN_COMM_START_CHAIN; detection.md §5.27).
   A creator's block line on the set (soft.c, start_set_block: one line of
   the heap block the creator initialised, armed at a child's start) ends
   at its first foreign trap: one child found. The children that started
   while it was armed got no line (the set was busy) and their hand-off was
   over before their first sample (stencil: main's grids, each worker's
   first sweep). So the trap's handler arms the set again on another line
   of the same block, drawn uniformly, while fewer distinct threads have
   trapped on the chain than asked for a line (`want`: the child that
   armed it and those refused meanwhile), at most `max` re-arms a chain. A
   trap of a thread the chain found already is not a second communication
   (not recorded); the chain goes on. Threads 64 and up have no bit: never
   a repeat, never counted found (the chain ends by `max`). */
#define RT_PSET_CHAIN_DEFAULT 8u
#define RT_PSET_CHAIN_SETTLE_NS 200000u    /* a child's start waits this long for an arm under way */
static inline uint64_t rt_pset_chain_bit(uint32_t thread)
{
	return thread < 64 ? (uint64_t)1 << thread : 0;
}

static inline bool rt_pset_chain_repeat(uint64_t found_before, uint32_t thread)
{
	return (found_before & rt_pset_chain_bit(thread)) != 0;
}

/* A block line armed while the same creator's chain is recent (its last
   start or trap within `window_ns`) goes on with that chain (its finds,
   one thread more to find) instead of starting anew: the children that
   waited for the chain's line still count when its line ended untrapped
   (its owner's first sample) and a later sibling arms the next one. */
static inline bool rt_pset_chain_carries(uint32_t chain_creator, uint32_t creator, uint64_t chain_at, uint64_t now,
                                         uint64_t window_ns)
{
	return chain_at && chain_creator == creator && now >= chain_at && now - chain_at < window_ns;
}

static inline bool rt_pset_chain_goes_on(uint64_t found, uint32_t want, uint32_t rearms, uint32_t max)
{
	return rearms < max && (uint32_t)__builtin_popcountll(found) < want;
}

/* A line of the block: [lo, hi) rounded in to whole lines, the r-th (mod
   their count); 0 when the block holds no whole line. */
static inline uint64_t rt_pset_chain_line(uint64_t lo, uint64_t hi, uint32_t line_size, uint64_t r)
{
	uint64_t n;

	lo = (lo + line_size - 1) & ~(uint64_t)(line_size - 1);
	if (hi <= lo || (n = (hi - lo) / line_size) == 0)
		return 0;
	return lo + (r % n) * line_size;
}

/* The chain's next line: of the lines r[0..nr) draw, the one farthest from
   every address the chain trapped at (traps[0..ntraps)). A thread that
   trapped is sweeping its part of the block; the threads not found yet
   work elsewhere (stencil's row bands: a uniform line landed in the
   trapping worker's band, ahead of its sweep, again and again while the
   other waited at the barrier). 0 when the block holds no whole line. */
#define RT_PSET_CHAIN_DRAWS 4u
#define RT_PSET_CHAIN_TRAPS 8u
static inline uint64_t rt_pset_chain_pick(uint64_t lo, uint64_t hi, uint32_t line_size, const uint64_t *r,
                                          uint32_t nr, const uint64_t *traps, uint32_t ntraps)
{
	uint64_t best = 0, best_d = 0;

	for (uint32_t i = 0; i < nr; i++) {
		uint64_t line = rt_pset_chain_line(lo, hi, line_size, r[i]), d = UINT64_MAX;

		if (!line)
			return 0;
		for (uint32_t k = 0; k < ntraps; k++) {
			uint64_t a = traps[k] & ~(uint64_t)(line_size - 1), dk = a > line ? a - line : line - a;

			if (dk < d)
				d = dk;
		}
		if (!best || d > best_d) {
			best = line;
			best_d = d;
		}
	}
	return best;
}

/* A creator's written block (HPCRUN_COMM_START_BLOCK_WRITTEN; detection.md
   §5.32): when none of the creator's stores is on the board (its
   initialisation ran before its first sample), a child's block line may
   come from a big block the creator allocated and had written before it
   created its first thread since: at that pthread_create, `n` pages spread
   over the block are asked whether they are resident. The block counts as
   written when at least half of them are: the arrays a creator
   initialised (stencil's grids), not those it only allocated for its
   workers to fill (generations' buffers: fresh calloc pages, none
   resident), which named the creator for lines its children wrote
   (detection.md §5.27). */
#define RT_PSET_WRITTEN_PAGES 16u
#define RT_PSET_WRITTEN_DEFAULT 1u

/* The page of a block [base, base + size) that probe i of n asks about
   (0 <= i < n): evenly spread, the first at the block's first page. */
static inline uint64_t rt_pset_written_page(uint64_t base, uint64_t size, uint32_t i, uint32_t n,
                                            uint32_t page_size)
{
	uint64_t first = base & ~(uint64_t)(page_size - 1);
	uint64_t last = (base + (size ? size - 1 : 0)) & ~(uint64_t)(page_size - 1);
	uint64_t pages = (last - first) / page_size + 1;

	if (n == 0 || i >= n)
		return first;
	return first + (pages * i / n) * page_size;
}

/* Written: at least half of the pages asked about were resident. */
static inline bool rt_pset_written(uint32_t resident, uint32_t asked)
{
	return asked > 0 && 2 * resident >= asked;
}

/* Reader sets (detection.md §5.57): after RT_READER_DRY sets armed with no
   communication since, only one ask in RT_READER_DRY (the asker's count)
   may arm. Pure. */
#define RT_READER_DRY 16u
static inline bool rt_reader_allows(uint64_t dry, uint64_t asked)
{
	return dry < RT_READER_DRY || asked % RT_READER_DRY == 0;
}

/* What a feed set's trap weighs, in its trap's weights (detection.md
   §5.70): the samples of its thread that could have asked for one since
   its last one was armed (`pending`: the 1 in 4 asked, the others skipped
   or refused between, this one included), at most `cap`
   (HPCRUN_COMM_FEED_STANDS); 0 or 1 = one. As a lock set stands for the
   hand-offs since its thread's last one. Pure. */
static inline uint32_t rt_feed_stands(uint32_t pending, uint32_t cap)
{
	if (cap <= 1 || pending <= 1)
		return 1;
	return pending < cap ? pending : cap;
}

/* Hand-off sets of gated threads (HPCRUN_COMM_HANDOFF_PSET; detection.md
   §5.60). A hand-off set (§5.36) opens a gated thread's registers as a
   start set does, and the opened thread pays its un-cloned perf context at
   every later switch for its life (the 2x OpenMP stencil's largest cost
   part, performance.md "Session 23"). With the switch on, a thread whose
   registers are still closed asks the switch gate: let through, the set
   is a per-thread set as any; refused, one of its lines goes to the
   process-wide set instead (owned by nobody, its budget's, a trap of any
   thread but the writer one communication with the writer: every reader
   of the hand-off is a first reader, not the asker alone). What becomes of
   the set (`opens`: rt_handoff_opens's answer; `on`: the switch and a
   set to put it on; `gate`: the switch gate's answer). Pure. */
#define RT_HANDOFF_PSET_DEFAULT 0u
#define RT_HANDOFF_PSET_BUDGET  5u       /* permille of the process's CPU time: half the set's own
                                            (RT_PSET_BUDGET_PERMILLE), the zone sets keep the rest */
enum rt_handoff_route {
	RT_HANDOFF_OPEN,      /* open the thread's registers (§5.36) */
	RT_HANDOFF_GATED,     /* a regular set: the gates decide */
	RT_HANDOFF_PSET,      /* one line on the process-wide set */
};
static inline enum rt_handoff_route rt_pset_handoff_route(bool opens, bool on, bool gate)
{
	if (!on)
		return opens ? RT_HANDOFF_OPEN : RT_HANDOFF_GATED;
	return gate ? RT_HANDOFF_GATED : RT_HANDOFF_PSET;
}

#endif
