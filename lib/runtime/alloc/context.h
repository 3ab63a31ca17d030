/* SPDX-License-Identifier: BSD-3-Clause */
/* context.h — the allocation-context cache (context.c, doc/objects.md):
   which allocation site a call to the allocation family comes from, at
   next to no cost per call. The key is the wrapper's return-address slot
   and the return address in it (the call site and the stack depth),
   validated by up to four return addresses further up the stack at the
   slots where the full unwind found them (so wrappers like strdup or
   operator new, whose own call site is shared, still separate their
   callers). A miss — and one hit in CONTEXT_VERIFY_EVERY, to measure the
   approximation — unwinds fully (unw_backtrace) and inserts the path into
   the thread's CCT; the node becomes the block's allocation site.
   The lookup (context__get) is inline: it is on every wrapper's path.
   Runs in the allocation wrappers, never in signal context. */
#ifndef HC_RT_CONTEXT_H
#define HC_RT_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>
#include "runtime/rt.h"

#define CONTEXT_SETS         512
#define CONTEXT_WAYS         2
#define CONTEXT_SLOTS        4        /* return addresses checked above the call site */
#define CONTEXT_VERIFY_EVERY 8192     /* one cache hit in this many is re-unwound */

/* The mark cached for the runtime's own call sites (never a FIRST mark). */
#define CONTEXT_MARK_SELF    RT_BLK_T_SIZE
#define CONTEXT_MARK_SITE(m) ((m) >> 7)

/* A cached allocation context: one cache line. What the inline insert
   needs comes ready-made: the block's first shadow word without its size
   (mark), and lim, the size limit of the inline path — RT_BLOCK_SMALL_MAX
   for a real site, 0 for site 0 (table full: counted as dropped) and for
   the runtime's own call sites (CONTEXT_MARK_SELF: ignored), so one
   comparison sends both to the slow path. */
struct rt_ctx_entry {
	uint64_t slot0, ra0;              /* key: return-address slot and its value */
	uint32_t mark, lim;
	uint64_t off;                     /* 16 bits per caller slot: its byte offset above slot0 (one load) */
	uint64_t val[CONTEXT_SLOTS];      /* the return addresses the unwind found there */
} __attribute__((aligned(64)));

/* A word of the stack, read without sanitizer instrumentation (the slots
   belong to other frames). */
static inline uint64_t context__stack_word(const uint64_t *p)
{
	uint64_t v;

	__asm__("movq %1, %0" : "=r"(v) : "m"(*p));
	return v;
}

static inline struct rt_ctx_entry *context__set(struct rt_thread *t, uint64_t s0, uint64_t ra0)
{
	/* The call site's low bits and the stack depth in words: no multiply
	   on the path to the compare (the two ways absorb collisions). */
	return &t->alloc.ctx[((ra0 ^ s0 >> 3) & (CONTEXT_SETS - 1)) * CONTEXT_WAYS];
}

/* Unused caller slots point at slot0 itself and expect ra0 there, so the
   check is four loads and one branch. */
static inline bool context__match(const struct rt_ctx_entry *e, const uint64_t *slot0, uint64_t ra0)
{
	const char *s = (const char *)slot0;
	uint64_t d, o;

	if (__builtin_expect(e->slot0 != (uint64_t)(uintptr_t)slot0 || e->ra0 != ra0, 0))
		return false;
	o = e->off;
	d = (context__stack_word((const uint64_t *)(s + (o & 0xffff))) ^ e->val[0]) |
	    (context__stack_word((const uint64_t *)(s + (o >> 16 & 0xffff))) ^ e->val[1]) |
	    (context__stack_word((const uint64_t *)(s + (o >> 32 & 0xffff))) ^ e->val[2]) |
	    (context__stack_word((const uint64_t *)(s + (o >> 48))) ^ e->val[3]);
	return __builtin_expect(d == 0, 1);
}

/* A miss in set: unwind, fill a new entry, evict the older way. Takes the
   guard (the caller saw it clear). */
struct rt_ctx_entry *context__miss(struct rt_thread *t, const uint64_t *slot0, uint64_t ra0,
                                   struct rt_ctx_entry *set);
/* Re-unwind a hit and count whether the cache was right. */
struct rt_ctx_entry *context__verify(struct rt_thread *t, const uint64_t *slot0, uint64_t ra0,
                                     struct rt_ctx_entry *e);

/* The cache entry of the allocation context of the call in *slot0. */
static inline __attribute__((always_inline)) const struct rt_ctx_entry *
context__get(struct rt_thread *t, const uint64_t *slot0, uint64_t ra0)
{
	struct rt_ctx_entry *set = context__set(t, (uint64_t)(uintptr_t)slot0, ra0), *e;

	if (__builtin_expect(context__match(&set[0], slot0, ra0), 1))
		e = &set[0];
	else if (context__match(&set[1], slot0, ra0))
		e = &set[1];
	else
		return context__miss(t, slot0, ra0, set);
	if (__builtin_expect(--t->alloc.verify == 0, 0))
		return context__verify(t, slot0, ra0, e);
	return e;
}

/* t's cache, from its arena (thread start); NULL when the arena is full. */
struct rt_ctx_entry *context__alloc(struct rt_thread *t);

#endif
