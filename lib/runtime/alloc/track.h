/* SPDX-License-Identifier: BSD-3-Clause */
/* track.h — recording the program's blocks in the live-block table
   (track.c, blocks.c): what the wrappers call after the real function.
   The common cases (a small block inserted with its cached context, a
   small block freed) are inline and run without setting the re-entrancy
   guard; everything else takes it. Not signal context: a sample or trap
   that interrupts the inline path is refused because its PC lies in the
   runtime (signal.c). */
#ifndef HC_RT_TRACK_H
#define HC_RT_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "runtime/rt.h"
#include "runtime/alloc/context.h"

/* The rest of track__block: blocks the inline path does not record (big,
   mmap, misaligned, no direct shadow), the runtime's own call sites, and
   site 0 (the site table is full). Takes the guard. */
void track__slow(struct rt_thread *t, uint64_t base, uint64_t n, uint32_t mark, uint32_t kind);

/* Record block [p, p+n) allocated from the call site in *slot0. Inlined in
   every wrapper: this is the per-allocation cost. The runtime's own call
   sites are recognized on a context-cache miss (context.c) and cached as
   CONTEXT_MARK_SELF, so the hit path needs no range check.
   The hit path runs without setting the re-entrancy guard (it only reads
   the context cache and writes shadow words in the order lookups accept):
   a sample or trap interrupting it is refused because its PC lies in this
   library (signal.c), and every path that leaves the library or changes
   shared state — a cache miss or check (unwinding, the CCT), the slow
   insert — sets the guard itself. It must still be clear on entry: set, the
   runtime itself is allocating (e.g. libunwind inside a handler). */
static inline __attribute__((always_inline)) void track__block(void *p, size_t n, uint32_t kind,
                                                              const uint64_t *slot0)
{
	struct rt_thread *t = hc_self;
	uint64_t ra0, base = (uint64_t)(uintptr_t)p;
	const struct rt_ctx_entry *e;

	if (!p || !t || t->safety.busy)
		return;
	if (__builtin_expect(n < t->alloc.min, 0)) {
		if (t->alloc.on)
			t->cnt.allocs_below_min++;
		return;
	}
	ra0 = *slot0;
	e = context__get(t, slot0, ra0);
	if (__builtin_expect(kind == HC_OBJ_MALLOC &&
	                     blocks__insert_direct(t->alloc.shadow, t->alloc.bad, base, n, e->mark, e->lim), 1))
		t->cnt.allocs_tracked++;
	else
		track__slow(t, base, n, e->mark, kind);
}

/* Up to max of the last blocks of 64 KiB or more that `thread` allocated
   and that are still live (as blocks__find gives them), into out; how
   many; with written_only, only those it had written when it next created
   a thread (track__creating). Any context. */
uint32_t track__recent_big(uint32_t thread, bool written_only, struct rt_block *out, uint32_t max);
/* `thread` is about to create a thread: each of its big blocks not asked
   about yet is marked written or not by the residency of its pages
   (mincore; pset.h rt_pset_written). Returns how many were written. Not
   signal context. */
uint32_t track__creating(uint32_t thread);
/* The rest of track__free: no direct shadow (the leaf cache), a big block.
   Returns the number of blocks removed (0 or 1). */
int track__free_slow(struct rt_thread *t, uint64_t base);

/* free(p): the common case inline, without setting the guard (as
   track__block's hit path: samples in this library are refused). */
static inline __attribute__((always_inline)) void track__free(void *p)
{
	struct rt_thread *t;
	int r;

	if (!blocks__used())
		return;
	t = hc_self;
	if (__builtin_expect(t && !t->safety.busy, 1)) {
		r = blocks__remove_direct(t->alloc.shadow, t->alloc.bad, (uint64_t)(uintptr_t)p);
		if (__builtin_expect(r > 0, 1))
			t->cnt.frees_tracked++;
		else if (r < 0)
			t->cnt.frees_tracked += (uint64_t)track__free_slow(t, (uint64_t)(uintptr_t)p);
		return;
	}
	blocks__remove(NULL, (uint64_t)(uintptr_t)p, NULL);
}

/* Stop tracking the block at p (if it is one); its description in *old. */
bool track__remove(void *p, struct rt_block *old);
/* Stop tracking every block in [p, p+len) (munmap, a fixed mapping). */
void track__remove_range(void *p, size_t len);
/* Put a block back as it was (a realloc or mremap that failed). */
void track__restore(const struct rt_block *b);

/* Process start (the wrappers' constructor): the block table is this
   process's. */
void track__process_start(void);
/* Set up t's tracking (the table, the context cache, the object buffer);
   called by thread__begin before the thread is published. 0 or -ENOMEM
   (the thread is measured, its allocations are not tracked). */
int track__thread_start(struct rt_thread *t);

#endif
