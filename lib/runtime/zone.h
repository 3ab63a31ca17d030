/* SPDX-License-Identifier: BSD-3-Clause */
/* zone.h — where two threads' samples meet: the process-wide watch set's
   zone targets (doc/detection.md §5.16). A halo exchange shares the
   boundary rows of each thread's block, 2 of a worker's 255 rows in the
   accuracy suite's stencil: a timer sample lands there a few times per
   run, so neither a sample nor the board ever points at them. But every
   sample says which part of an array its thread works on. The table keeps,
   per 64 KiB block of memory, the range of lines each of the last two
   threads sampled there (fresh within a window); in a block that two
   threads both work in, the lines between the inner ends of their ranges
   (where the ranges overlap, or the gap between them) are where a halo
   lies — the zone. A zone set watches one chunk of one of its lines, in
   every thread (the process-wide set), read and write: the first access
   it traps becomes its entry, and another thread's access after it is a
   communication with that one (watch.c).

   Pure and async-signal-safe: the table is the caller's memory, every
   access is a GCC __atomic on one 64-bit word, no lock; a lost race only
   loses one sample's note (the next sample notes again). The unit test
   replays it on synthetic streams. */
#ifndef HC_RUNTIME_ZONE_H
#define HC_RUNTIME_ZONE_H

#include <stdbool.h>
#include <stdint.h>
#include "detect/detect.h"

#define RT_ZONE_SHIFT   16u                               /* 64 KiB blocks */
#define RT_ZONE_LINES   (1u << (RT_ZONE_SHIFT - 6))       /* 1024 lines a block */
#define RT_ZONE_SLOTS   251u                              /* a prime: page strides do not alias */
#define RT_ZONE_TICK    20u                               /* side times in units of 2^20 ns (~1 ms) */
#define RT_ZONE_WINDOW  256u                              /* a side is fresh for this many periods */
#define RT_ZONE_TAG     0x7fu                             /* a side's tag: the block's low 7 bits */

/* A block's slot: the block (number + 1; 0 = empty) and two sides, each one
   word: thread 16 | lo line 10 | hi line 10 | time 20 (ticks, wrapping) |
   stored 1 (the thread stored somewhere in its range: a sampled store) |
   tag 7 (the block's low bits: a side written for a block that lost the
   slot meanwhile is told apart). */
struct rt_zone_slot {
	uint64_t block;
	uint64_t side[2];
};

struct rt_zone_side {
	uint32_t thread, lo, hi, time, tag;
	bool stored;
	bool valid;
};

static inline uint64_t rt_zone_pack(const struct rt_zone_side *s)
{
	return (uint64_t)(s->thread & 0xffff) << 48 | (uint64_t)(s->lo & 0x3ff) << 38 |
	       (uint64_t)(s->hi & 0x3ff) << 28 | (uint64_t)(s->time & 0xfffff) << 8 | (uint64_t)s->stored << 7 |
	       (s->tag & RT_ZONE_TAG);
}

static inline struct rt_zone_side rt_zone_unpack(uint64_t w)
{
	return (struct rt_zone_side){ .thread = (uint32_t)(w >> 48), .lo = (uint32_t)(w >> 38) & 0x3ff,
	                              .hi = (uint32_t)(w >> 28) & 0x3ff, .time = (uint32_t)(w >> 8) & 0xfffff,
	                              .tag = (uint32_t)w & RT_ZONE_TAG, .stored = (w >> 7) & 1, .valid = w != 0 };
}

static inline uint32_t rt_zone_ticks(uint64_t now_ns)
{
	return (uint32_t)(now_ns >> RT_ZONE_TICK) & 0xfffff;
}

/* Is a side of time `t` fresh at `now` (ticks, modulo 2^20), within `window`
   ticks either way? (Another thread's note may carry a slightly later
   time than this one's clock read: handlers run late.) */
static inline bool rt_zone_fresh(uint32_t t, uint32_t now, uint32_t window)
{
	uint32_t age = (now - t) & 0xfffff;

	return age <= window || age >= 0x100000u - window;
}

/* The zone of two ranges of lines [a0, a1] and [b0, b1]: their overlap,
   or the gap between them (both ends included: the inner ends are lines
   each thread touched). */
static inline void rt_zone_between(uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1, uint32_t *z0,
                                   uint32_t *z1)
{
	uint32_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	if (lo <= hi) {           /* overlap */
		*z0 = lo;
		*z1 = hi;
	} else {                  /* the gap: from the lower range's top to the upper's bottom */
		*z0 = hi;
		*z1 = lo;
	}
}

/* Note thread `me`'s access at `addr` at `now` (ns) in the table of `n`
   slots; `store`: the access was a store (the side remembers that its
   thread stored somewhere in its range). window: freshness in ticks.
   Returns 1 when noted, 0 when the slot belongs to another block whose
   sides are fresh (a collision), -1 on a lost race. */
static inline int rt_zone_note(struct rt_zone_slot *tab, uint32_t n, uint32_t me, uint64_t addr, uint64_t now,
                               uint32_t window, bool store)
{
	uint64_t b = addr >> RT_ZONE_SHIFT, tagb = b + 1;
	struct rt_zone_slot *z = &tab[b % n];
	uint32_t line = (uint32_t)(addr >> 6) & (RT_ZONE_LINES - 1), tn = rt_zone_ticks(now);
	uint32_t tag = (uint32_t)(b & RT_ZONE_TAG);
	uint64_t cur = __atomic_load_n(&z->block, __ATOMIC_ACQUIRE), w[2];
	struct rt_zone_side s[2], mine;
	int victim = -1;

	if (cur != tagb) {
		for (int i = 0; i < 2; i++) {
			struct rt_zone_side o = rt_zone_unpack(__atomic_load_n(&z->side[i], __ATOMIC_RELAXED));
			if (o.valid && rt_zone_fresh(o.time, tn, window))
				return 0;
		}
		if (!__atomic_compare_exchange_n(&z->block, &cur, tagb, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			return -1;
		__atomic_store_n(&z->side[0], 0, __ATOMIC_RELEASE);
		__atomic_store_n(&z->side[1], 0, __ATOMIC_RELEASE);
	}
	for (int i = 0; i < 2; i++) {
		w[i] = __atomic_load_n(&z->side[i], __ATOMIC_ACQUIRE);
		s[i] = rt_zone_unpack(w[i]);
		if (s[i].valid && (s[i].tag != tag || !rt_zone_fresh(s[i].time, tn, window)))
			s[i].valid = false;       /* another block's, or stale: free */
	}
	mine = (struct rt_zone_side){ .thread = me, .lo = line, .hi = line, .time = tn, .tag = tag, .stored = store,
	                              .valid = true };
	for (int i = 0; i < 2; i++)
		if (s[i].valid && s[i].thread == (me & 0xffff)) {
			mine.lo = s[i].lo < line ? s[i].lo : line;
			mine.hi = s[i].hi > line ? s[i].hi : line;
			mine.stored = store || s[i].stored;
			victim = i;
			break;
		}
	if (victim < 0) {
		/* a free side, else the one noted longer ago (a block three
		   threads work in keeps the latest two) */
		if (!s[0].valid)
			victim = 0;
		else if (!s[1].valid)
			victim = 1;
		else
			victim = ((tn - s[0].time) & 0xfffff) >= ((tn - s[1].time) & 0xfffff) ? 0 : 1;
	}
	return __atomic_compare_exchange_n(&z->side[victim], &w[victim], rt_zone_pack(&mine), false,
	                                   __ATOMIC_ACQ_REL, __ATOMIC_RELAXED) ? 1 : -1;
}

/* A zone: its block's first byte, its lines [z0, z1], the two threads,
   whether either stored in its range; after rt_zone_pick, the lines a set
   on it stands for (its weight). */
struct rt_zone {
	uint64_t base;
	uint32_t z0, z1, a, b, stands;
	bool stored, overlap;    /* either thread stored in its range; the ranges overlap (else: a gap) */
	bool cross;              /* across a block edge (rt_zone_cross) */
};

/* Read slot i: a zone if two different threads' fresh sides of its block
   are there. */
static inline bool rt_zone_at(const struct rt_zone_slot *tab, uint32_t i, uint64_t now, uint32_t window,
                              struct rt_zone *out)
{
	uint64_t b = __atomic_load_n(&tab[i].block, __ATOMIC_ACQUIRE);
	uint32_t tn = rt_zone_ticks(now);
	struct rt_zone_side s0, s1;

	if (b == 0)
		return false;
	s0 = rt_zone_unpack(__atomic_load_n(&tab[i].side[0], __ATOMIC_ACQUIRE));
	s1 = rt_zone_unpack(__atomic_load_n(&tab[i].side[1], __ATOMIC_ACQUIRE));
	if (!s0.valid || !s1.valid || s0.thread == s1.thread || s0.tag != ((b - 1) & RT_ZONE_TAG) ||
	    s1.tag != ((b - 1) & RT_ZONE_TAG) || !rt_zone_fresh(s0.time, tn, window) ||
	    !rt_zone_fresh(s1.time, tn, window))
		return false;
	out->base = (b - 1) << RT_ZONE_SHIFT;
	out->a = s0.thread;
	out->b = s1.thread;
	out->stored = s0.stored || s1.stored;
	rt_zone_between(s0.lo, s0.hi, s1.lo, s1.hi, &out->z0, &out->z1);
	out->overlap = (s0.lo > s1.lo ? s0.lo : s1.lo) <= (s0.hi < s1.hi ? s0.hi : s1.hi);
	out->cross = false;
	return true;
}

/* The one fresh side of slot i's block (false if none, or two). */
static inline bool rt_zone_single(const struct rt_zone_slot *tab, uint32_t i, uint64_t b, uint32_t tn,
                                  uint32_t window, struct rt_zone_side *out)
{
	struct rt_zone_side s[2];
	int k = 0;

	if (__atomic_load_n(&tab[i].block, __ATOMIC_ACQUIRE) != b + 1)
		return false;
	for (int j = 0; j < 2; j++) {
		s[j] = rt_zone_unpack(__atomic_load_n(&tab[i].side[j], __ATOMIC_ACQUIRE));
		if (s[j].valid && s[j].tag == (b & RT_ZONE_TAG) && rt_zone_fresh(s[j].time, tn, window)) {
			*out = s[j];
			k++;
		}
	}
	return k == 1;
}

/* A zone across a block edge: block b of slot i worked in by one thread
   only, block b + 1 by another one only (a boundary between two threads'
   blocks of rows that falls on the edge: 1 in 16 for 4 KiB rows). The zone
   is the gap from the top of the first's range to the bottom of the
   second's; its lines count from b's base (z1 above RT_ZONE_LINES). */
static inline bool rt_zone_cross(const struct rt_zone_slot *tab, uint32_t n, uint32_t i, uint64_t now,
                                 uint32_t window, struct rt_zone *out)
{
	uint64_t b1 = __atomic_load_n(&tab[i].block, __ATOMIC_ACQUIRE), b;
	uint32_t tn = rt_zone_ticks(now);
	struct rt_zone_side lo, hi;

	if (b1 == 0)
		return false;
	b = b1 - 1;
	if (!rt_zone_single(tab, i, b, tn, window, &lo) ||
	    !rt_zone_single(tab, (uint32_t)((b + 1) % n), b + 1, tn, window, &hi) || lo.thread == hi.thread)
		return false;
	out->base = b << RT_ZONE_SHIFT;
	out->a = lo.thread;
	out->b = hi.thread;
	out->stored = lo.stored || hi.stored;
	out->z0 = lo.hi;
	out->z1 = RT_ZONE_LINES + hi.lo;
	out->overlap = false;
	out->cross = true;
	return true;
}

/* A zone set is armed on an overlap always, on a gap of `lines` lines
   with probability RT_ZONE_ARM_LINES / lines (at most 1): the
   process-wide set's budget (0.5 % of the CPU time) allows ~15 sets in a
   second-long run, and a set on a zone of at most a page of lines (64)
   communicated in 3 of 4 sets, on one of more than 256 lines in 3 of 35
   (the suite's stencil, 4 threads, accuracy.md "Session 11"): the budget
   goes to the zones that pay. An overlap is never thinned: a halo's two
   rows of 4 KiB are 128 lines, every one shared (thinning those too found
   fewer pairs). A thinned zone's communications are not scaled up (a trap
   on a zone of hundreds of lines already weighs hundreds of periods). r: a
   random number. */
#define RT_ZONE_ARM_LINES 64u
#define RT_ZONE_EDGE_DEFAULT 0u   /* HPCRUN_COMM_PROCSET_ZONE_EDGE (§5.43) */
#define RT_ZONE_OVERLAP_CAP_DEFAULT 0u   /* HPCRUN_COMM_PROCSET_ZONE_OVERLAP_CAP (§5.73: measured, off) */
static inline bool rt_zone_arm_thin(const struct rt_zone *z, uint64_t r)
{
	uint32_t lines = z->z1 - z->z0 + 1;

	return z->overlap || lines <= RT_ZONE_ARM_LINES || (uint32_t)(r % lines) < RT_ZONE_ARM_LINES;
}

/* HPCRUN_COMM_PROCSET_ZONE_CAP=N (detection.md §5.64; default 0 = off):
   the zones of the pair picked alike (not narrow first) and none thinned,
   but a zone set stands for at most N lines — thinning's expected weight
   per pick (RT_ZONE_ARM_LINES, N = 64) without arming only one wide zone
   in lines / 64. A stencil's halo between two gated workers is a wide
   gap of their samples: thinned, it is rarely watched. */
static inline uint32_t rt_zone_stands_cap(uint32_t stands, uint32_t cap)
{
	return cap && stands > cap ? cap : stands;
}

/* HPCRUN_COMM_PROCSET_ZONE_OVERLAP_CAP=N (detection.md §5.73; 0 = off):
   an overlap (both threads' ranges cover it) is never thinned, so a set
   on one of L lines stands for all L, while a gap over RT_ZONE_ARM_LINES
   is armed with chance 64 / L: its expected weight per pick is 64 lines.
   An overlap stands for at most N lines, the same bound. Two threads that
   both read a whole vector (NPB CG's p[colidx[k]], MG's planes) overlap
   in every 64 KiB block of it: one trap weighed 591 periods (295 ms, an
   eighth of the run's CPU time), and two or three such traps were the
   report's volume and its top code pair. A gap's stands are left as the
   pick scaled them. Measured on NPB CG and MG (volumes 5-9 % of the CPU
   time instead of 100-200 %), left off: CG's false fraction then strays
   from exact's 0.002 (its false traps keep their weights), MG's improves
   by as much; the suite's zones never bound. */
static inline uint32_t rt_zone_overlap_stands(uint32_t stands, bool overlap, uint32_t cap)
{
	return overlap ? rt_zone_stands_cap(stands, cap) : stands;
}

/* The caller's xorshift64 state (detect.h's, never 0 after). */
static inline uint64_t rt_zone_rng(uint64_t *st)
{
	return hc_xorshift64(st, 0x9e3779b97f4a7c15ull);
}

/* A gap's weight in the pick among its pair's zones: inversely
   proportional to its lines (an overlap weighs RT_ZONE_WSCALE, as a
   one-line gap). A zone is an estimate of where two threads' working sets
   meet; a gap's width is how little the samples have told so far. Two
   threads' ranges that overlap in a halo's rows, or that meet across a
   partition boundary, make an overlap or a gap of a line or two, all of
   them shared; the gap between two sparse ranges, or between one thread's
   end of one array and the other's start of the next, spans hundreds of
   lines, few of them touched by both (accuracy.md, "Session 11"). */
#define RT_ZONE_WSCALE (1u << 20)
static inline uint32_t rt_zone_weight(uint32_t lines)
{
	uint32_t w = RT_ZONE_WSCALE / (lines ? lines : 1);

	return w ? w : 1;
}

static inline bool rt_zone_same_pair(const struct rt_zone *x, const struct rt_zone *y)
{
	return (x->a == y->a && x->b == y->b) || (x->a == y->b && x->b == y->a);
}

/* The pairs of threads zone sets found communicating, and how often: a
   pair's zones are picked in inverse proportion to 1 + its finds, so that
   the ~15 sets the budget allows in a run spread over the pairs not found
   yet (a halo at 4 threads has 3 pairs; with every set drawn alike, the
   same pair took most of them). Open addressing, one word a slot: the
   pair's key (32 bits: the two 16-bit thread numbers, lower first, + 1)
   and its count (32); lock-free, a full table leaves a pair uncounted. */
#define RT_ZONE_SPREAD_DEFAULT 1u   /* HPCRUN_COMM_PROCSET_ZONE_SPREAD */
#define RT_ZONE_PAIRS 64u
#define RT_ZONE_PROBE 8u
struct rt_zone_found {
	uint64_t slot[RT_ZONE_PAIRS];
	uint32_t power;   /* 0 or 1: 1 / (1 + finds); 2: 1 / (1 + finds)^2 (HPCRUN_COMM_PROCSET_ZONE_SPREAD=2,
	                     detection.md §5.40) */
};

static inline uint32_t rt_zone_pair_key(uint32_t a, uint32_t b)
{
	uint32_t lo = (a < b ? a : b) & 0xffff, hi = (a < b ? b : a) & 0xffff;

	return (lo << 16 | hi) + 1;
}

static inline uint32_t rt_zone_found_get(const struct rt_zone_found *f, uint32_t a, uint32_t b)
{
	uint32_t key = rt_zone_pair_key(a, b), h = key * 2654435761u;

	for (uint32_t k = 0; k < RT_ZONE_PROBE; k++) {
		uint64_t w = __atomic_load_n(&f->slot[(h + k) % RT_ZONE_PAIRS], __ATOMIC_RELAXED);

		if (w == 0)
			return 0;
		if ((uint32_t)(w >> 32) == key)
			return (uint32_t)w;
	}
	return 0;
}

static inline void rt_zone_found_add(struct rt_zone_found *f, uint32_t a, uint32_t b)
{
	uint32_t key = rt_zone_pair_key(a, b), h = key * 2654435761u;

	for (uint32_t k = 0; k < RT_ZONE_PROBE; k++) {
		uint64_t *sl = &f->slot[(h + k) % RT_ZONE_PAIRS], w = __atomic_load_n(sl, __ATOMIC_RELAXED);

		for (;;) {
			if (w != 0 && (uint32_t)(w >> 32) != key)
				break;                                    /* another pair's: probe on */
			if (__atomic_compare_exchange_n(sl, &w, w ? w + 1 : (uint64_t)key << 32 | 1, false,
			                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
				return;
		}
	}
}

/* A pair's weight in the pick: RT_ZONE_WSCALE / (1 + finds), or with
   f->power 2 / (1 + finds)^2 (Session 19: at 4 threads on 2 CPUs a pair
   found early whose zone is one narrow overlap took 29-45 of a run's ~50
   zone asks, its 2-3 finds halving its share only, while the other
   neighbours' wide gaps were thinned out; never below 1). */
static inline uint32_t rt_zone_pair_weight(const struct rt_zone_found *f, const struct rt_zone *z)
{
	uint64_t d;

	if (!f)
		return 1;
	d = 1 + (uint64_t)rt_zone_found_get(f, z->a, z->b);
	if (f->power >= 2)
		d *= d;
	d = RT_ZONE_WSCALE / d;
	return d ? (uint32_t)d : 1;
}

/* A zone across a block edge kept to the `edge` lines either side of
   the edge (HPCRUN_COMM_PROCSET_ZONE_EDGE, doc/detection.md §5.43; 0: the
   whole gap). Two threads each alone in one of two adjacent blocks: the
   boundary between their parts is somewhere in the gap, and a partition
   of a power-of-two array falls on the edge itself (the suite's stencil
   at 4 threads: rows 128 and 256 of 4 KiB, a malloc header's 16 bytes
   past the edge); the whole gap, 200-2200 lines, was thinned out and its
   set on a line far from the halo (§5.40). */
static inline void rt_zone_edge(struct rt_zone *z, uint32_t edge)
{
	if (!z->cross || !edge)
		return;
	if (z->z0 + edge < RT_ZONE_LINES)
		z->z0 = RT_ZONE_LINES - edge;
	if (z->z1 > RT_ZONE_LINES - 1 + edge)
		z->z1 = RT_ZONE_LINES - 1 + edge;
}

/* Zone i of the table (within a block, or across an edge, with `edge`
   kept to the edge's lines: rt_zone_edge), if there is one (with
   `writer`: only where either thread stored). */
static inline bool rt_zone_get_e(const struct rt_zone_slot *tab, uint32_t n, uint32_t i, uint64_t now,
                                 uint32_t window, bool writer, uint32_t edge, struct rt_zone *z)
{
	if ((rt_zone_at(tab, i, now, window, z) || rt_zone_cross(tab, n, i, now, window, z)) &&
	    (!writer || z->stored)) {
		rt_zone_edge(z, edge);
		return true;
	}
	return false;
}

static inline bool rt_zone_get(const struct rt_zone_slot *tab, uint32_t n, uint32_t i, uint64_t now,
                               uint32_t window, bool writer, struct rt_zone *z)
{
	return rt_zone_get_e(tab, n, i, now, window, writer, 0, z);
}

/* Choose a zone and an 8-byte chunk in it uniformly (cross-edge zones
   kept to `edge` lines either side: rt_zone_edge): its address in
   *addr. The zone: first one among the table's (within a block, or across
   an edge) — uniformly, or with `found`, with probability proportional to
   1 / (1 + its pair's finds) —, which names a pair of threads (pairs are
   watched as often as they have zones, as in session 10, less once
   found); then, with `narrow`, one of that pair's zones with probability
   proportional to rt_zone_weight (a second pass, a weighted reservoir).
   zone->stands (if zone) is the lines the watched chunk stands for: the
   zone's lines times the ratio of the uniform choice's probability to the
   actual one — (the mean pair weight / the zone's) × (the pair's mean
   zone weight / the zone's) —, so that a communication's expected weight
   is what a uniform choice gave (the zone's lines, session 10) while
   narrow zones and pairs not found yet are watched more often and each of
   their communications weighs less. `writer`: only zones where either
   thread stored (a sampled store in its range): two threads that only
   read a line — the shared variables of an OpenMP region on `main`'s
   stack, read by every thread — make a zone of a line or two that never
   communicates. Returns the number of zones (0: none, *addr untouched). */
static inline uint32_t rt_zone_pick_e(const struct rt_zone_slot *tab, uint32_t n, uint64_t now, uint32_t window,
                                      bool narrow, bool writer, uint32_t edge, const struct rt_zone_found *found,
                                      uint64_t *rng, uint64_t *addr, struct rt_zone *zone)
{
	uint32_t count = 0, lines, bw1 = 1, np = 1, bw = 1;
	uint64_t w1sum = 0, wsum = 1, r;
	struct rt_zone z, best = { 0 };

	for (uint32_t i = 0; i < n; i++)
		if (rt_zone_get_e(tab, n, i, now, window, writer, edge, &z)) {
			uint32_t w = rt_zone_pair_weight(found, &z);

			count++;
			w1sum += w;
			if (rt_zone_rng(rng) % w1sum < w) {
				best = z;
				bw1 = w;
			}
		}
	if (!count)
		return 0;
	if (narrow && count > 1) {
		struct rt_zone first = best;

		wsum = 0;
		np = 0;
		for (uint32_t i = 0; i < n; i++)
			if (rt_zone_get_e(tab, n, i, now, window, writer, edge, &z) && rt_zone_same_pair(&z, &first)) {
				uint32_t w = z.overlap ? RT_ZONE_WSCALE : rt_zone_weight(z.z1 - z.z0 + 1);

				np++;
				wsum += w;
				if (rt_zone_rng(rng) % wsum < w) {
					best = z;
					bw = w;
				}
			}
		if (!np) {       /* (only if the table changed between the passes: keep the first) */
			best = first;
			np = 1;
			wsum = bw = 1;
		}
	}
	lines = best.z1 - best.z0 + 1;
	{
		/* lines x (w1sum / (count bw1)) x (wsum / (np bw)), rounded; integers
		   only (signal context) */
		unsigned __int128 num = (unsigned __int128)lines * w1sum * wsum,
		                  den = (unsigned __int128)count * bw1 * np * bw, st = (num + den / 2) / den;

		best.stands = st < 1 ? 1 : st > UINT32_MAX ? UINT32_MAX : (uint32_t)st;
	}
	r = rt_zone_rng(rng);
	*addr = best.base + ((uint64_t)(best.z0 + (uint32_t)((r >> 32) % lines)) << 6) + ((r & 7) << 3);
	if (zone)
		*zone = best;
	return count;
}

/* rt_zone_pick_e with cross-edge zones whole (edge 0). */
static inline uint32_t rt_zone_pick(const struct rt_zone_slot *tab, uint32_t n, uint64_t now, uint32_t window,
                                    bool narrow, bool writer, const struct rt_zone_found *found, uint64_t *rng,
                                    uint64_t *addr, struct rt_zone *zone)
{
	return rt_zone_pick_e(tab, n, now, window, narrow, writer, 0, found, rng, addr, zone);
}

#endif
