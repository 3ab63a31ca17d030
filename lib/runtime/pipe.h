/* SPDX-License-Identifier: BSD-3-Clause */
/* pipe.h — pipeline sets (doc/detection.md §5.18, session 13): a thread
   that sets a flag or a slot per row for the next thread to read (PRK's
   Synch_p2p: flag(t, j) by an xchg, read by thread t + 1 a few µs later)
   does it at a constant stride. The sampler sees a few of those stores
   (the xchg is slow enough to be sampled) and many of the reader's waits
   at the start of an iteration, but almost none of the per-row hand-offs,
   which are what an exact count sees. From the stores it saw of one
   instruction the writer's stride is learned (the gcd of the distances
   between them); the next hand-off is then predictable — the store one
   stride on from a sampled one, or from a reader's sampled load of a line
   on the writer's sequence — and the process-wide set is armed on it, as a
   zone set (pset.h: its first trap is its entry, a foreign access with a
   store on either side one communication).
   Pure and async-signal-safe; the runtime part is in pipe.c. */
#ifndef HC_RUNTIME_PIPE_H
#define HC_RUNTIME_PIPE_H

#include <stdbool.h>
#include <stdint.h>

#define RT_PIPE_SLOTS      16u          /* sequences in the process's table */
#define RT_PIPE_MIN_STRIDE 64u          /* a stride within a line is no row */
#define RT_PIPE_MAX_STRIDE (1u << 20)   /* 1 MiB: farther apart is no pipeline */
#define RT_PIPE_MIN_DIFFS  2u           /* distances agreeing on the stride before it is used */
#define RT_PIPE_REACH      65536u       /* strides: farther apart, two stores are of two objects */
#define RT_PIPE_LIFE       16u          /* periods (wall) a pipeline set lives, another thread may
                                           take it after half of it: with more threads than CPUs
                                           the reader runs again ms after the writer's store (at
                                           pset.h's 4 and 2, most sets ended or were taken between
                                           the writer's adopted store and the reader's load) */
#define RT_PIPE_OWN_MAX    16u          /* own traps that end a pipeline set: a reader that
                                           waits for the writer traps at every load of its
                                           wait (pset.h's zone limit, 4, ended the set ~60 µs
                                           into a wait, before the writer's store came) */

/* One instruction's stores, by one thread: the last address, the stride
   (gcd of the distances so far, 0 before the first distance) and how many
   distances agreed with it. No direction: samples 0.5 ms apart land on
   rows of different iterations, as often below the last one as above it;
   a pipeline is taken to run towards higher addresses (a descending one is
   not predicted). */
struct rt_pipe_seq {
	uint32_t thread;     /* the writer (its index), valid with pc != 0 */
	uint32_t diffs;
	uint64_t pc;         /* the store instruction, 0 = slot free */
	uint64_t last;       /* the address of its last store seen */
	uint64_t lo, hi;     /* the lowest and highest address seen since the stride's learning began */
	uint64_t stride;
	uint64_t time;       /* when it was last seen (process clock, ns) */
	uint32_t waits;      /* another thread's sampled waits on a word of the sequence since its
	                        stride's learning began (rt_pipe_waited): 0 = no reader seen waiting,
	                        the set weighs one row (rt_pipe_stands) */
};

static inline uint64_t rt_pipe_gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* A store of the sequence's instruction at `addr`: learn. The same
   address again (a corner flag, a lock word) teaches nothing; a distance
   that breaks the stride below a line (two fields of one record) starts
   the learning again from that distance. */
static inline void rt_pipe_note(struct rt_pipe_seq *q, uint64_t addr, uint64_t now)
{
	uint64_t d, g;

	q->time = now;
	if (addr == q->last)
		return;
	d = addr > q->last ? addr - q->last : q->last - addr;
	if (d > RT_PIPE_MAX_STRIDE * (uint64_t)RT_PIPE_REACH) {    /* another object */
		q->stride = 0;
		q->diffs = 0;
		q->waits = 0;
		q->last = q->lo = q->hi = addr;
		return;
	}
	g = q->stride ? rt_pipe_gcd(q->stride, d) : d;
	if (g < RT_PIPE_MIN_STRIDE) {
		q->stride = d;
		q->diffs = 1;
		q->waits = 0;
		q->lo = addr < q->last ? addr : q->last;
		q->hi = addr > q->last ? addr : q->last;
		q->last = addr;
		return;
	}
	q->stride = g;
	q->diffs++;
	if (addr < q->lo)
		q->lo = addr;
	if (addr > q->hi)
		q->hi = addr;
	q->last = addr;
}

/* A new sequence: its first store. */
static inline void rt_pipe_start(struct rt_pipe_seq *q, uint32_t thread, uint64_t pc, uint64_t addr, uint64_t now)
{
	*q = (struct rt_pipe_seq){ .thread = thread, .pc = pc, .last = addr, .lo = addr, .hi = addr, .time = now };
}

/* Is the sequence's stride known well enough to predict? */
static inline bool rt_pipe_ready(const struct rt_pipe_seq *q)
{
	return q->pc && q->diffs >= RT_PIPE_MIN_DIFFS && q->stride >= RT_PIPE_MIN_STRIDE &&
	       q->stride <= RT_PIPE_MAX_STRIDE;
}

/* The next store of the sequence after one at `addr`: one stride on. */
static inline uint64_t rt_pipe_next(const struct rt_pipe_seq *q, uint64_t addr)
{
	return addr + q->stride;
}

/* A reader's sampled wait on a word of the sequence (pipe.c: another
   thread's second sample in a spin on the line, on rt_pipe_on's chunk). */
static inline void rt_pipe_waited(struct rt_pipe_seq *q)
{
	if (q->waits < UINT32_MAX)
		q->waits++;
}

/* What a pipeline set stands for: the rows its sequence spans (chosen on
   one of them, it stands for all, as a zone set for its lines: pset.h,
   detection.md §5.16), at most RT_PIPE_STAND_MAX — but only once a reader
   was seen waiting on the sequence (rt_pipe_waited). The rows are a
   pipeline's claim: every row is handed off, one after the other, to a
   reader that waits for it. Strided xchg stores alone do not make one: an
   array of test-and-set locks taken at random (libcuckoo's striped
   spinlocks, 64 B apart: a stride after 3 samples, spans of ~800 rows)
   hands off one lock in many, and at the rows its few catches (6 a run)
   took 84 % of the volume and the top object from the buckets
   (accuracy.md, Session 13, "on third-party code"). Without a wait seen,
   a set weighs one row, as a catch of any set. */
#define RT_PIPE_STAND_MAX 4096u
static inline uint32_t rt_pipe_stands(const struct rt_pipe_seq *q)
{
	uint64_t rows;

	if (!rt_pipe_ready(q) || q->hi < q->lo || !q->waits)
		return 1;
	rows = (q->hi - q->lo) / q->stride + 1;
	return rows > RT_PIPE_STAND_MAX ? RT_PIPE_STAND_MAX : (uint32_t)rows;
}

/* Does an access at `addr` lie on the sequence: the same 8-byte chunk
   within a stride as its stores, among the addresses its stores spanned
   (one stride either side)? (A reader's load of the word the writer
   stores; with a stride of 4 lines, one chunk in 32 of any memory is at
   the right offset: the span keeps the rest of the heap out.) */
static inline bool rt_pipe_on(const struct rt_pipe_seq *q, uint64_t addr)
{
	uint64_t a = addr & ~(uint64_t)7, l = q->last & ~(uint64_t)7, d;

	if (!rt_pipe_ready(q) || addr + q->stride < q->lo || addr > q->hi + q->stride)
		return false;
	d = a > l ? a - l : l - a;
	return d % q->stride == 0;
}

#endif
