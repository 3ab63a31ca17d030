/* SPDX-License-Identifier: BSD-3-Clause */
/* blocks.h — the table of live heap blocks (doc/objects.md): which tracked
   block, if any, holds an address, for any address, from any thread, in
   signal context. A shadow map at 16-byte granularity (one word per
   granule of the 47-bit user address space, direct-mapped in one 32 TiB
   MAP_NORESERVE reservation, or — when that is refused — leaves created on
   first use under a two-level directory) marks
   each small block with two words — its first granule holds the allocation
   site, the second its size — and interior granules stay zero, so a lookup
   scans back at most 4 KiB to the nearest mark; blocks above 4 KiB and mmap
   regions get a descriptor, marks every 4 KiB and whole-chunk (64 KiB) and
   whole-region (1 GiB) tags. Insert and remove touch one or two shadow words
   for small blocks and never lock; lookups never lock, never write and never
   touch user memory (a block freed while a lookup runs is either still seen
   whole or not seen). Memory never goes back to the system except in a
   forked child (blocks__reset), so a reader can never fault.
   Nothing takes a lock, so a fork can interrupt no critical section.
   Insertion and removal run in the allocation wrappers, under the thread's
   re-entrancy guard (the leaf cache is the thread's own); blocks__find
   and blocks__site_get are async-signal-safe. */
#ifndef HC_RT_BLOCKS_H
#define HC_RT_BLOCKS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include "hc/profile.h"

#define RT_BLOCK_GRAN      16u          /* shadow granule = the allocator's alignment */
#define RT_BLOCK_SMALL_MAX 4096u        /* larger blocks get a descriptor */
#define RT_BLOCK_ADDR_END  (1ull << 47) /* user addresses tracked: [0, 2^47) */
#define RT_SITE_MAX        ((1u << 25) - 1)
#define RT_LEAF_CACHE      64

/* One live block as a lookup sees it. */
struct rt_block {
	uint64_t base, size;
	uint32_t site;     /* allocation site (blocks__site_get) */
	uint32_t kind;     /* enum hc_obj_kind */
};

/* A thread's cache of shadow leaves it used recently (chunk -> leaf), so
   most inserts and removes skip the directory walk. All-zero = empty; any
   cache is invalid after blocks__reset. */
struct rt_leaf_cache {
	struct {
		uint64_t chunk;            /* chunk number + 1, 0 = empty */
		uint32_t *leaf;
	} e[RT_LEAF_CACHE];
} __attribute__((aligned(64)));

/* Something was ever inserted, or may be by the inline path (context.c sets
   it when it caches a context); free() skips the lookup until then. Never
   cleared. */
extern int blocks__any;
static inline bool blocks__used(void)
{
	return __atomic_load_n(&blocks__any, __ATOMIC_RELAXED) != 0;
}

/* Reserve the shadow map, the descriptors and the site table (address
   space only). Idempotent; 0 or -errno. Not signal-safe. */
int blocks__init(void);
/* Forget everything (in a forked child, before it tracks anything). */
void blocks__reset(void);

/* A new allocation site for (thread, context node), 0 when the table is
   full. Sites are never reused; the caller keeps one per context. */
uint32_t blocks__site_new(uint32_t thread, uint32_t ctx);
/* The (thread, context) of a site; false for an unknown site. Signal-safe. */
bool blocks__site_get(uint32_t site, uint32_t *thread, uint32_t *ctx);

/* Track [base, base + size): base 16-byte aligned, size > 0, below
   RT_BLOCK_ADDR_END, overlapping no tracked block (the allocator's promise).
   lc may be NULL. 0, -EINVAL (misaligned or empty), -ERANGE (address out of
   range), -ENOMEM (shadow or descriptors exhausted: nothing recorded). */
int blocks__insert(struct rt_leaf_cache *lc, uint64_t base, uint64_t size,
                      uint32_t site, uint32_t kind);
/* Stop tracking the block starting exactly at base; true (and *old filled,
   if old is not NULL) if there was one. An interior address removes nothing. */
bool blocks__remove(struct rt_leaf_cache *lc, uint64_t base, struct rt_block *old);
/* Stop tracking every block that overlaps [lo, hi) (munmap, MAP_FIXED);
   returns how many. */
uint32_t blocks__remove_range(uint64_t lo, uint64_t hi);
/* The live block holding addr (interior addresses included): true and *out
   filled, false if none. Async-signal-safe, lock-free, read-only. */
bool blocks__find(uint64_t addr, struct rt_block *out);

/* ---- inline fast paths for the common small block (track.h's inline path);
   they share the shadow encoding described in blocks.c ---- */
#define RT_BLK_GRAN_SHIFT  4
#define RT_BLK_CHUNK_SHIFT 16
#define RT_BLK_LEAF_N      (1u << (RT_BLK_CHUNK_SHIFT - RT_BLK_GRAN_SHIFT))
#define RT_BLK_T_FIRST     1u
#define RT_BLK_T_SIZE      2u
#define RT_BLK_T_BIG       3u
#define RT_BLK_FIRST_V(site, sz) (RT_BLK_T_FIRST | (uint32_t)(sz) << 2 | (uint32_t)(site) << 7)
#define RT_BLK_SIZE_V(n)         (RT_BLK_T_SIZE | (uint32_t)(n) << 2)

/* The direct-mapped shadow: when the table could reserve address space for
   one word per granule of the whole user address space (2^45 bytes,
   MAP_NORESERVE: pages are committed when first written, as the leaves
   are), the word of address a is shadow[a >> 4] and no directory walk or
   leaf cache is needed. NULL when that reservation failed (strict
   overcommit, an address-space limit): the leaves then come from the
   directory. Constant once blocks__init succeeded. */
uint32_t *blocks__shadow(void);
/* Do not try the direct-mapped shadow (tests of the directory; before
   blocks__init). */
void blocks__no_direct(void);

/* The direct-mapped shadow covers [0, 2^RT_BLK_DIRECT_BITS); addresses
   above it use the directory's leaves. 47 = the whole user address space;
   a smaller value only for measuring under valgrind, which refuses the big
   reservation (doc/performance.md). */
#ifndef RT_BLK_DIRECT_BITS
#define RT_BLK_DIRECT_BITS 47
#endif
#define RT_BLK_DIRECT_END (1ull << RT_BLK_DIRECT_BITS)
/* Granule-aligned addresses the direct shadow covers: base & RT_BLK_BAD == 0. */
#define RT_BLK_BAD (~(RT_BLK_DIRECT_END - 1) | (RT_BLOCK_GRAN - 1))

/* blocks__insert of a small malloc block through the direct-mapped
   shadow: one store of the size word (blocks above 16 bytes) and one
   release store of the first word. bad: RT_BLK_BAD, or all ones when
   shadow is NULL; mark: RT_BLK_FIRST_V(site, 0); lim: RT_BLOCK_SMALL_MAX,
   or 0 to decline. false: not done here (no direct shadow, a big or
   misaligned block, lim 0) — call blocks__insert. */
static inline bool blocks__insert_direct(uint32_t *shadow, uint64_t bad, uint64_t base,
                                            uint64_t size, uint32_t mark, uint32_t lim)
{
	uint32_t *w;

	if (__builtin_expect((base & bad) || size - 1 >= lim, 0))
		return false;
	w = shadow + (base >> RT_BLK_GRAN_SHIFT);
	if (__builtin_expect(size > RT_BLOCK_GRAN, 1)) {   /* falls through: no taken branch */
		__atomic_store_n(&w[1], RT_BLK_SIZE_V(size), __ATOMIC_RELAXED);
		size = 0;
	}
	__atomic_store_n(&w[0], mark | (uint32_t)size << 2, __ATOMIC_RELEASE);
	return true;
}

/* blocks__remove through the direct-mapped shadow, without the old
   block's description (bad as above): 1 removed, 0 no tracked block starts
   at base, -EAGAIN not decided here (call blocks__remove). */
static inline int blocks__remove_direct(uint32_t *shadow, uint64_t bad, uint64_t base)
{
	uint32_t *w, v;

	if (__builtin_expect(base & bad, 0))
		return -EAGAIN;
	w = shadow + (base >> RT_BLK_GRAN_SHIFT);
	v = __atomic_load_n(&w[0], __ATOMIC_RELAXED);
	if (__builtin_expect((v - RT_BLK_T_FIRST) & 3, 0))     /* tag != FIRST */
		return v == 0 || (v & 3) == RT_BLK_T_SIZE ? 0 : -EAGAIN;
	/* FIRST first: a lookup that still sees SIZE finds no block. */
	__atomic_store_n(&w[0], 0, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect((v >> 2 & 31) == 0, 1))
		__atomic_store_n(&w[1], 0, __ATOMIC_RELAXED);
	return 1;
}

/* ---- without the direct shadow: the leaf cache (track.c's slow path) ---- */

/* The leaf of address a if the thread's cache has it, else NULL. */
static inline uint32_t *blocks__leaf_cached(const struct rt_leaf_cache *lc, uint64_t a)
{
	uint64_t chunk = a >> RT_BLK_CHUNK_SHIFT;
	unsigned k = (unsigned)chunk & (RT_LEAF_CACHE - 1);

	return lc->e[k].chunk == chunk + 1 ? lc->e[k].leaf : NULL;
}

/* blocks__insert of a malloc block; small blocks in a cached leaf are
   recorded here, everything else by blocks__insert. site comes from
   blocks__site_new (0, or at most RT_SITE_MAX). */
static inline int blocks__insert_fast(struct rt_leaf_cache *lc, uint64_t base, uint64_t size,
                                         uint32_t site)
{
	uint32_t *leaf = blocks__leaf_cached(lc, base);
	unsigned g = (unsigned)(base >> RT_BLK_GRAN_SHIFT) & (RT_BLK_LEAF_N - 1);

	if (__builtin_expect(!leaf || (base & (RT_BLOCK_GRAN - 1)) || size - 1 >= RT_BLOCK_SMALL_MAX ||
	                     !site, 0))
		return blocks__insert(lc, base, size, site, HC_OBJ_MALLOC);
	if (size > RT_BLOCK_GRAN) {
		if (__builtin_expect(g == RT_BLK_LEAF_N - 1, 0))   /* size word in the next leaf */
			return blocks__insert(lc, base, size, site, HC_OBJ_MALLOC);
		__atomic_store_n(&leaf[g + 1], RT_BLK_SIZE_V(size), __ATOMIC_RELAXED);
		size = 0;
	}
	__atomic_store_n(&leaf[g], RT_BLK_FIRST_V(site, size), __ATOMIC_RELEASE);
	return 0;
}

/* blocks__remove without the old block's description: 1 removed, 0 no
   tracked block starts at base, -EAGAIN not decided here (call blocks__remove). */
static inline int blocks__remove_fast(struct rt_leaf_cache *lc, uint64_t base)
{
	uint32_t *leaf = blocks__leaf_cached(lc, base), v;
	unsigned g = (unsigned)(base >> RT_BLK_GRAN_SHIFT) & (RT_BLK_LEAF_N - 1);

	if (!leaf || (base & (RT_BLOCK_GRAN - 1)))
		return -EAGAIN;
	v = __atomic_load_n(&leaf[g], __ATOMIC_RELAXED);
	if ((v & 3) != RT_BLK_T_FIRST)
		return v == 0 || (v & 3) == RT_BLK_T_SIZE ? 0 : -EAGAIN;
	if ((v >> 2 & 31) == 0 && g == RT_BLK_LEAF_N - 1)
		return -EAGAIN;     /* its size word is in the next leaf */
	__atomic_store_n(&leaf[g], 0, __ATOMIC_RELAXED);
	if ((v >> 2 & 31) == 0)
		__atomic_store_n(&leaf[g + 1], 0, __ATOMIC_RELAXED);
	return 1;
}

#endif
