/* SPDX-License-Identifier: BSD-3-Clause */
/* sampler/barren.h — where a thread's single-step bursts found nothing
   (issue #14 point 5, doc/performance.md "Session 14"). Pure and
   async-signal-safe; soft.c keeps one table per thread, test_barren
   checks it.

   Why: a burst that runs its whole step limit without publishing a store
   or a load costs ~30 steps of ~20 µs of thread CPU each (and ~90 µs of
   process CPU: the debug exceptions exit to this VM's hypervisor) for
   nothing; it happens where a sample without evidence (a seed) or a
   return breakpoint lands in a loop over private data — an OpenMP
   reduction's partial sums, a compressor's match finder — and the next
   burst from the same place steps the same loop. So a barren burst's key
   (the sampled PC of a seed, the return address of a return burst) goes
   into a small direct-mapped table, and a burst from a key in the table
   is skipped, except one in RT_BARREN_RETRY (the loop may have changed: a
   burst that publishes clears its key). Bursts with evidence (another
   thread's entry for the sampled line) are never skipped. */
#ifndef HC_RT_BARREN_H
#define HC_RT_BARREN_H

#include <stdbool.h>
#include <stdint.h>

#define RT_BARREN_N      16u   /* keys per thread (direct-mapped) */
#define RT_BARREN_RETRY  8u    /* one in this many bursts from a barren key still runs */
#define RT_BARREN_MIN    16u   /* steps a burst must have taken to be barren */

struct rt_barren {
	uint64_t key[RT_BARREN_N];
	uint8_t skips[RT_BARREN_N];     /* bursts skipped since the key's last run */
};

static inline uint32_t rt_barren_slot(uint64_t key)
{
	key ^= key >> 17;
	key *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(key >> 60) & (RT_BARREN_N - 1);
}

/* Should a burst from `key` be skipped? Counts the skip; every
   RT_BARREN_RETRY-th one is let through. Key 0 is never barren. */
static inline bool rt_barren_skip(struct rt_barren *b, uint64_t key)
{
	uint32_t s = rt_barren_slot(key);

	if (!key || b->key[s] != key)
		return false;
	if (++b->skips[s] >= RT_BARREN_RETRY) {
		b->skips[s] = 0;
		return false;
	}
	return true;
}

/* A burst from `key` ended after `steps` steps having published
   `published` accesses: remember it as barren, or forget it. */
static inline void rt_barren_note(struct rt_barren *b, uint64_t key, uint32_t steps, uint64_t published)
{
	uint32_t s = rt_barren_slot(key);

	if (!key)
		return;
	if (published) {
		if (b->key[s] == key)
			b->key[s] = 0;
	} else if (steps >= RT_BARREN_MIN) {
		b->key[s] = key;
		b->skips[s] = 0;
	}
}

#endif
