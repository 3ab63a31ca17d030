/* SPDX-License-Identifier: BSD-3-Clause */
/* context.c — the allocation-context cache's slow paths (context.h says
   what the cache is): a miss or a verification unwinds from the wrapper,
   puts the path from the call site outward into the thread's CCT, and
   describes it as a cache entry. Built without ASan with the wrappers.
   Runs in the allocation wrappers under the thread's re-entrancy guard,
   never in signal context. */
#include <string.h>
#include "runtime/rt.h"
#include "runtime/safety.h"
#include "runtime/alloc/context.h"

#define SCAN 512            /* stack words searched per caller slot (offsets < 64 KiB) */

/* The allocation site of CCT node `node` of t, created on first use. */
static uint32_t node_site(struct rt_thread *t, uint32_t node)
{
	uint32_t *s = &t->cct.nodes[node].site;

	if (!*s)
		*s = blocks__site_new(t->id.index, node);
	return *s;
}

/* Unwind from here, put the path from the call site outward into the CCT,
   and describe it as a cache entry: the return addresses of the callers are
   looked for in the stack above slot0 (only within this thread's stack). */
static __attribute__((noinline)) void fill(struct rt_thread *t, const uint64_t *slot0,
                                           uint64_t ra0, struct rt_ctx_entry *ne)
{
	void *fr[HC_MAX_FRAMES];
	int n = cct__backtrace(fr, HC_MAX_FRAMES), i;
	uint64_t s0 = (uint64_t)(uintptr_t)slot0;
	uint32_t node, site;

	memset(ne, 0, sizeof(*ne));
	ne->slot0 = s0;
	ne->ra0 = ra0;
	for (int j = 0; j < CONTEXT_SLOTS; j++)
		ne->val[j] = ra0;      /* off 0: slot0 itself, always ra0 */
	if (loadmap__pc_in_self(ra0)) {
		ne->mark = CONTEXT_MARK_SELF;  /* the runtime's own call: never tracked */
		return;
	}
	t->cnt.alloc_ctx_unwinds++;
	for (i = 0; i < n; i++)
		if ((uint64_t)(uintptr_t)fr[i] == ra0)
			break;
	if (i >= n) {
		/* The unwinder lost the way: keep the call site alone. */
		t->cnt.unwind_failed++;
		node = cct__insert(t, &ra0, 1, 0);
	} else {
		node = cct__insert(t, (const uint64_t *)(fr + i), n - i, 0);
		if (s0 >= t->id.stack_lo && s0 + 8 <= t->id.stack_hi) {
			const uint64_t *p = slot0 + 1, *top = (const uint64_t *)(uintptr_t)t->id.stack_hi;
			for (int j = 1; j <= CONTEXT_SLOTS && i + j < n; j++) {
				uint64_t want = (uint64_t)(uintptr_t)fr[i + j];
				const uint64_t *lim = top - p > SCAN ? p + SCAN : top, *q;
				for (q = p; q < lim && context__stack_word(q) != want; q++)
					;
				if (q >= lim)
					break;
				if ((const char *)q - (const char *)slot0 > UINT16_MAX)
					break;
				ne->off |= (uint64_t)((const char *)q - (const char *)slot0) << 16 * (j - 1);
				ne->val[j - 1] = want;
				p = q + 1;
			}
		}
	}
	site = node == HC_NONE ? 0 : node_site(t, node);
	if (hc_debug_enabled(HC_DBG_ALLOC)) {
		int slots = 0;
		for (int j = 0; j < CONTEXT_SLOTS; j++)
			slots += (ne->off >> 16 * j & 0xffff) != 0;
		hc_debug_printf(HC_DBG_ALLOC, "T%u: allocation context unwound (cache miss or check), call site %#llx: %d frames, "
		                "CCT node %u, site %u, %d caller slots checked on hits", t->id.index,
		                (unsigned long long)ra0, i < n ? n - i : 1, node, site, slots);
	}
	ne->mark = site ? RT_BLK_FIRST_V(site, 0) : 0;
	ne->lim = site ? RT_BLOCK_SMALL_MAX : 0;
	/* Blocks may be inserted from now on without blocks__insert (the
	   inline direct path): free() must look them up. Every cached context
	   was filled here first, in this process or before a fork (the flag
	   survives blocks__reset). */
	if (site && !blocks__used())
		__atomic_store_n(&blocks__any, 1, __ATOMIC_RELAXED);
}

__attribute__((noinline)) struct rt_ctx_entry *context__miss(struct rt_thread *t,
                                                             const uint64_t *slot0, uint64_t ra0,
                                                             struct rt_ctx_entry *set)
{
	struct rt_ctx_entry ne;

	hc_guard_enter(t);      /* the wrapper saw it clear; unwinding needs it */
	fill(t, slot0, ra0, &ne);
	set[1] = set[0];
	set[0] = ne;
	hc_guard_leave(t);
	return &set[0];
}

__attribute__((noinline)) struct rt_ctx_entry *context__verify(struct rt_thread *t,
                                                               const uint64_t *slot0, uint64_t ra0,
                                                               struct rt_ctx_entry *e)
{
	struct rt_ctx_entry ne;

	hc_guard_enter(t);
	t->alloc.verify = CONTEXT_VERIFY_EVERY;
	if (e->mark != CONTEXT_MARK_SELF)
		t->cnt.alloc_ctx_checks++;
	fill(t, slot0, ra0, &ne);
	if (ne.mark != e->mark)
		t->cnt.alloc_ctx_mismatches++;
	*e = ne;
	hc_guard_leave(t);
	return e;
}

struct rt_ctx_entry *context__alloc(struct rt_thread *t)
{
	return hc_arena_alloc(&t->arena, CONTEXT_SETS * CONTEXT_WAYS * sizeof(struct rt_ctx_entry), 64);
}
