/* SPDX-License-Identifier: BSD-3-Clause */
/* blocks.c — the table of live heap blocks (blocks.h, doc/objects.md).

   Shadow map. Address space [0, 2^47) is cut into 1 GiB regions (a `top`
   array of 2^17 words), each region into 16384 chunks of 64 KiB (a `mid`
   node: one word per chunk for a whole-chunk tag and one for its leaf), each
   chunk into 4096 granules of 16 bytes (a `leaf`: one word per granule). A
   granule word is 0 or tagged in its low two bits:
     FIRST (1)  first granule of a small block: site << 7 | size << 2 when
                the size is 1..16 bytes, else site << 7 (size follows);
     SIZE  (2)  second granule of a small block of 17..4096 bytes: size << 2;
     BIG   (3)  a descriptor id << 2: at the first granule of a big block and
                at every 4 KiB boundary inside it, in chunks it covers only
                partly.
   A chunk (region) that a big block covers entirely holds the descriptor id
   in its whole-chunk (whole-region) word instead. So every byte of a block
   has a mark of its block at most 4 KiB back, and every other mark in
   between belongs to it; a lookup checks the whole-region and whole-chunk
   words, then scans back granule by granule to the first mark and checks
   the address against the block the mark describes.

   Direct shadow: when a reservation of 2^45 bytes (MAP_NORESERVE) for the
   words of all granules succeeds, leaf_of is one shift and add and the
   mids' leaf words only flag chunks that hold big-block marks
   (direct_note; blocks__remove_range scans those). Else the leaves come
   from the directory as below.

   Memory: one reservation (MAP_NORESERVE) holds top, the whole-region array,
   mids and leaves, handed out by an atomic bump and installed with a
   compare-and-swap (the loser's pages stay untouched); descriptors and sites
   are arrays with their own reservations. Nothing is unmapped, so a reader
   in a signal handler never faults. Resident memory: 4 bytes per 16 bytes of
   address range that ever held a small block, 32 bytes per live big block.

   Concurrency: a small block's marks are written SIZE first, FIRST last
   (release), removed FIRST first; readers re-read FIRST after SIZE.
   Descriptors are seqlocks (odd while written); their free list is a
   lock-free stack. Nothing locks, so a fork can interrupt nothing. */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include "hc/profile.h"
#include "runtime/alloc/blocks.h"

#define GRAN_SHIFT   RT_BLK_GRAN_SHIFT
#define CHUNK_SHIFT  RT_BLK_CHUNK_SHIFT
#define REGION_SHIFT 30
#define LEAF_N       RT_BLK_LEAF_N                         /* granules per chunk */
#define MID_N        (1u << (REGION_SHIFT - CHUNK_SHIFT))  /* chunks per region */
#define TOP_N        (1u << (47 - REGION_SHIFT))           /* regions */
#define PAGE         4096u
#define MARK_STEP    4096u                                 /* big-block mark spacing */
#define CHUNK        (1ull << CHUNK_SHIFT)
#define REGION       (1ull << REGION_SHIFT)

#define T_FIRST RT_BLK_T_FIRST
#define T_SIZE  RT_BLK_T_SIZE
#define T_BIG   RT_BLK_T_BIG
#define TAG(v)            ((v) & 3u)
#define FIRST_V(site, sz) RT_BLK_FIRST_V(site, sz)
#define FIRST_SMALL(v)    (((v) >> 2) & 31u)
#define FIRST_SITE(v)     ((v) >> 7)
#define SIZE_V(n)         RT_BLK_SIZE_V(n)
#define SIZE_N(v)         ((v) >> 2)
#define BIG_V(id)         (T_BIG | (uint32_t)(id) << 2)
#define BIG_ID(v)         ((v) >> 2)

#define HEAP_MAX     (16ull << 30)       /* shadow reservation, halved until mmap agrees */
#define HEAP_MIN     (64ull << 20)
#define BIG_CAP      (1u << 22)          /* live big blocks */
#define SITE_CAP     (1u << 24)          /* allocation sites */

struct mid {
	uint32_t whole[MID_N];    /* descriptor id of a big block covering the chunk */
	uint32_t leaf[MID_N];     /* leaf page index, 0 = none */
};
#define MID_PAGES  (sizeof(struct mid) / PAGE)
#define LEAF_PAGES (LEAF_N * 4 / PAGE)
#define TOP_PAGES  (TOP_N * 4 / PAGE)

/* A big block's descriptor; a seqlock (seq odd while written). */
struct big {
	uint32_t seq;
	uint32_t site;
	uint64_t base;            /* 0 when free */
	uint64_t size;
	uint32_t kind;
	uint32_t next;            /* free list */
};

struct site {
	uint32_t thread, ctx;
};

int blocks__any;

static struct {
	char     *heap;           /* shadow reservation */
	uint64_t  heap_pages;
	uint64_t  heap_next;      /* bump, in pages */
	uint32_t *top;            /* region -> mid page index */
	uint32_t *topwhole;       /* region -> descriptor id */
	struct big *big;
	uint32_t  big_next;
	uint64_t  big_free;       /* free descriptors: id | ABA tag << 32 */
	struct site *site;
	uint32_t  site_next;
	uint32_t *direct;         /* direct-mapped leaves (see blocks__shadow), or NULL */
	int       state;          /* 0 none, 1 initializing, 2 ready, -1 failed */
} g;

/* The direct-mapped shadow: one word per granule of [0, RT_BLK_DIRECT_END),
   plus a page so that the word after the last granule exists. */
#define DIRECT_LEN (RT_BLK_DIRECT_END / RT_BLOCK_GRAN * 4 + PAGE)

static inline uint32_t ld(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline uint32_t ld_acq(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void st(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

static inline void st_rel(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* Compare-clear: a word shared with a neighbour keeps the neighbour's mark. */
static inline void clear_if(uint32_t *p, uint32_t v)
{
	if (ld(p) == v)
		st(p, 0);
}

static void *reserve(uint64_t *len, uint64_t min)
{
	for (; *len >= min; *len /= 2) {
		void *p = mmap(NULL, *len, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != MAP_FAILED)
			return p;
	}
	return NULL;
}

static bool no_direct;

void blocks__no_direct(void)
{
	no_direct = true;
}

uint32_t *blocks__shadow(void)
{
	return __atomic_load_n(&g.state, __ATOMIC_ACQUIRE) == 2 ? g.direct : NULL;
}

int blocks__init(void)
{
	uint64_t hl = HEAP_MAX, bl = (uint64_t)BIG_CAP * sizeof(struct big);
	uint64_t sl = (uint64_t)SITE_CAP * sizeof(struct site);
	int expect = 0;

	if (!__atomic_compare_exchange_n(&g.state, &expect, 1, false, __ATOMIC_ACQ_REL,
	                                 __ATOMIC_ACQUIRE)) {
		while (expect == 1) {
			sched_yield();
			expect = __atomic_load_n(&g.state, __ATOMIC_ACQUIRE);
		}
		return expect == 2 ? 0 : -ENOMEM;
	}
	g.heap = reserve(&hl, HEAP_MIN);
	g.big = reserve(&bl, bl);
	g.site = reserve(&sl, sl);
	if (!g.heap || !g.big || !g.site) {
		if (g.heap)
			munmap(g.heap, hl);
		if (g.big)
			munmap(g.big, (uint64_t)BIG_CAP * sizeof(struct big));
		if (g.site)
			munmap(g.site, (uint64_t)SITE_CAP * sizeof(struct site));
		memset(&g, 0, sizeof(g));
		__atomic_store_n(&g.state, -1, __ATOMIC_RELEASE);
		return -ENOMEM;
	}
	if (!no_direct) {
		void *d = mmap(NULL, DIRECT_LEN, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		g.direct = d == MAP_FAILED ? NULL : d;
		/* A core dump would list 32 TiB (as ASan's shadow, left out);
		   huge pages would commit 2 MiB of shadow per 8 MiB of heap range
		   on first touch, which the memory bound below does not allow. */
		if (g.direct) {
			madvise(g.direct, DIRECT_LEN, MADV_DONTDUMP);
			madvise(g.direct, DIRECT_LEN, MADV_NOHUGEPAGE);
		}
	}
	g.heap_pages = hl / PAGE;
	g.top = (uint32_t *)g.heap;
	g.topwhole = (uint32_t *)(g.heap + (uint64_t)TOP_PAGES * PAGE);
	g.heap_next = 2 * TOP_PAGES;
	g.big_next = 1;
	g.site_next = 1;
	__atomic_store_n(&g.state, 2, __ATOMIC_RELEASE);
	return 0;
}

void blocks__reset(void)
{
	uint64_t used;

	if (g.state != 2)
		return;
	used = g.heap_next < g.heap_pages ? g.heap_next : g.heap_pages;
	madvise(g.heap, used * PAGE, MADV_DONTNEED);
	if (g.direct)
		madvise(g.direct, DIRECT_LEN, MADV_DONTNEED);
	madvise(g.big, (uint64_t)(g.big_next < BIG_CAP ? g.big_next : BIG_CAP) * sizeof(struct big),
	        MADV_DONTNEED);
	madvise(g.site, (uint64_t)(g.site_next < SITE_CAP ? g.site_next : SITE_CAP) *
	        sizeof(struct site), MADV_DONTNEED);
	g.heap_next = 2 * TOP_PAGES;
	g.big_next = 1;
	g.big_free = 0;
	g.site_next = 1;
	/* blocks__any stays: the forking thread's context cache survives,
	   and its hits insert blocks without blocks__insert (track.h). */
}

/* ---------------- sites ---------------- */

uint32_t blocks__site_new(uint32_t thread, uint32_t ctx)
{
	uint32_t id;

	if (g.state != 2)
		return 0;
	id = __atomic_fetch_add(&g.site_next, 1, __ATOMIC_RELAXED);
	if (id >= SITE_CAP || id > RT_SITE_MAX)
		return 0;
	g.site[id].thread = thread;
	g.site[id].ctx = ctx;
	return id;
}

bool blocks__site_get(uint32_t site, uint32_t *thread, uint32_t *ctx)
{
	uint32_t n = __atomic_load_n(&g.site_next, __ATOMIC_RELAXED);

	if (site == 0 || site >= n || site >= SITE_CAP || !g.site)
		return false;
	*thread = g.site[site].thread;
	*ctx = g.site[site].ctx;
	return true;
}

/* ---------------- the shadow directory ---------------- */

/* A page index for `pages` fresh pages, 0 when the reservation is used up. */
static uint32_t pages_alloc(uint32_t pages)
{
	uint64_t i = __atomic_fetch_add(&g.heap_next, pages, __ATOMIC_RELAXED);

	return i + pages <= g.heap_pages ? (uint32_t)i : 0;
}

/* The page index in *slot, installing fresh pages if asked and empty. */
static uint32_t install(uint32_t *slot, uint32_t pages, bool create)
{
	uint32_t cur = ld_acq(slot), fresh;

	if (cur || !create)
		return cur;
	fresh = pages_alloc(pages);
	if (!fresh)
		return ld_acq(slot);
	if (__atomic_compare_exchange_n(slot, &cur, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return fresh;
	return cur;     /* lost the race: our pages are never touched */
}

static inline void *page_ptr(uint32_t idx)
{
	return g.heap + (uint64_t)idx * PAGE;
}

static struct mid *mid_of(uint64_t a, bool create)
{
	uint32_t i = install(&g.top[a >> REGION_SHIFT], MID_PAGES, create);

	return i ? page_ptr(i) : NULL;
}

static uint32_t *leaf_of(struct rt_leaf_cache *lc, uint64_t a, bool create)
{
	uint64_t chunk = a >> CHUNK_SHIFT;
	unsigned k = (unsigned)(chunk & (RT_LEAF_CACHE - 1));
	struct mid *m;
	uint32_t i, *leaf;

	if (g.direct && a < RT_BLK_DIRECT_END)
		return g.direct + (chunk << (CHUNK_SHIFT - GRAN_SHIFT));
	if (lc && lc->e[k].chunk == chunk + 1)
		return lc->e[k].leaf;
	m = mid_of(a, create);
	if (!m)
		return NULL;
	i = install(&m->leaf[chunk & (MID_N - 1)], LEAF_PAGES, create);
	if (!i)
		return NULL;
	leaf = page_ptr(i);
	if (lc) {
		lc->e[k].chunk = chunk + 1;
		lc->e[k].leaf = leaf;
	}
	return leaf;
}

static inline unsigned gran(uint64_t a)
{
	return (unsigned)(a >> GRAN_SHIFT) & (LEAF_N - 1);
}

/* The shadow word of address a, or NULL if its leaf does not exist. */
static uint32_t *word_of(struct rt_leaf_cache *lc, uint64_t a, bool create)
{
	uint32_t *leaf = leaf_of(lc, a, create);

	return leaf ? &leaf[gran(a)] : NULL;
}

/* The whole-chunk or whole-region tag over a, 0 if none. */
static uint32_t whole_of(uint64_t a)
{
	uint32_t v = ld_acq(&g.topwhole[a >> REGION_SHIFT]);
	struct mid *m;

	if (v)
		return v;
	m = mid_of(a, false);
	return m ? ld_acq(&m->whole[(a >> CHUNK_SHIFT) & (MID_N - 1)]) : 0;
}

/* ---------------- big blocks ---------------- */

/* The free descriptors are a lock-free stack (Treiber) with an ABA tag in
   the head's high half: a `fork` can interrupt no critical section, and a
   descriptor's `next` may be read after another thread took it (memory is
   never unmapped; the tag makes that compare-and-swap fail). */
static uint32_t big_alloc(void)
{
	uint64_t h = __atomic_load_n(&g.big_free, __ATOMIC_ACQUIRE), n;
	uint32_t id;

	for (;;) {
		id = (uint32_t)h;
		if (!id)
			break;
		n = (uint64_t)__atomic_load_n(&g.big[id].next, __ATOMIC_RELAXED) |
		    ((h >> 32) + 1) << 32;
		if (__atomic_compare_exchange_n(&g.big_free, &h, n, true, __ATOMIC_ACQUIRE,
		                                __ATOMIC_ACQUIRE))
			return id;
	}
	id = __atomic_fetch_add(&g.big_next, 1, __ATOMIC_RELAXED);
	return id < BIG_CAP ? id : 0;
}

static void big_release(uint32_t id)
{
	uint64_t h = __atomic_load_n(&g.big_free, __ATOMIC_RELAXED), n;

	do {
		__atomic_store_n(&g.big[id].next, (uint32_t)h, __ATOMIC_RELAXED);
		n = (uint64_t)id | ((h >> 32) + 1) << 32;
	} while (!__atomic_compare_exchange_n(&g.big_free, &h, n, true, __ATOMIC_RELEASE,
	                                      __ATOMIC_RELAXED));
}

/* The seqlock's writer. The fields are release stores, so that a reader
   whose acquire load (big_read) sees one of them also sees the odd seq
   stored before it: what a release fence between the odd seq and relaxed
   field stores gave, per store instead of by a fence, which TSan does not
   model (gcc's -Wtsan). A release store is a plain mov on x86-64. */
static void big_write(struct big *b, uint64_t base, uint64_t size, uint32_t site, uint32_t kind)
{
	uint32_t s = ld(&b->seq);

	st(&b->seq, s + 1);
	__atomic_store_n(&b->base, base, __ATOMIC_RELEASE);
	__atomic_store_n(&b->size, size, __ATOMIC_RELEASE);
	st_rel(&b->site, site);
	st_rel(&b->kind, kind);
	st_rel(&b->seq, s + 2);
}

/* A consistent copy of descriptor id; false if it is free or kept changing.
   The fields are acquire loads: the seq's re-read cannot move before any of
   them (what an acquire fence before the re-read gave; see big_write). */
static bool big_read(uint32_t id, struct rt_block *out)
{
	const struct big *b;

	if (id == 0 || id >= BIG_CAP || id >= __atomic_load_n(&g.big_next, __ATOMIC_RELAXED))
		return false;
	b = &g.big[id];
	for (int tries = 0; tries < 8; tries++) {
		uint32_t s1 = ld_acq(&b->seq), s2;
		if (s1 & 1)
			continue;
		out->base = __atomic_load_n(&b->base, __ATOMIC_ACQUIRE);
		out->size = __atomic_load_n(&b->size, __ATOMIC_ACQUIRE);
		out->site = ld_acq(&b->site);
		out->kind = ld_acq(&b->kind);
		s2 = ld(&b->seq);
		if (s1 == s2)
			return out->base != 0;
	}
	return false;
}

/* Visit every shadow word that a big block [base, end) with descriptor id
   owns: whole-region and whole-chunk tags, and in partly covered chunks the
   mark at base and at every 4 KiB boundary. set: write (creating leaves);
   else compare-clear. Returns false if a leaf could not be created. */
/* With the direct-mapped shadow no directory entry says which chunks hold
   marks, so a big block notes each chunk it marks in its mid (the leaf
   word, unused then, set to 1): blocks__remove_range scans only those.
   false if the mid cannot be created. */
static bool direct_note(uint64_t a)
{
	uint32_t *f;
	struct mid *m;

	if (!g.direct || a >= RT_BLK_DIRECT_END)
		return true;
	m = mid_of(a, true);
	if (!m)
		return false;
	f = &m->leaf[(a >> CHUNK_SHIFT) & (MID_N - 1)];
	if (!ld(f))
		st_rel(f, 1);
	return true;
}

/* A chunk blocks__remove_range must scan: its leaf exists (directory),
   or it holds big-block marks (direct shadow, direct_note). */
static bool direct_noted(const struct mid *m, uint64_t a)
{
	return !g.direct || a >= RT_BLK_DIRECT_END ||
	       ld(&m->leaf[(a >> CHUNK_SHIFT) & (MID_N - 1)]) != 0;
}

static bool big_marks(struct rt_leaf_cache *lc, uint64_t base, uint64_t end, uint32_t id, bool set)
{
	uint32_t v = BIG_V(id), *w;
	uint64_t x = base;

	if (set && !direct_note(base))
		return false;

	/* The mark at base, even when its chunk is covered whole, so that
	   removal by base finds the descriptor where a small block's FIRST is. */
	w = word_of(lc, base, set);
	if (w) {
		if (set)
			st_rel(w, v);
		else
			clear_if(w, v);
	} else if (set) {
		return false;
	}
	while (x < end) {
		uint64_t rs = x & ~(REGION - 1), cs = x & ~(CHUNK - 1);
		if (rs >= base && rs + REGION <= end) {
			uint32_t *t = &g.topwhole[rs >> REGION_SHIFT];
			if (set)
				st_rel(t, id);
			else
				clear_if(t, id);
			x = rs + REGION;
			continue;
		}
		if (cs >= base && cs + CHUNK <= end) {
			struct mid *m = mid_of(cs, set);
			if (!m) {
				if (set)
					return false;
			} else if (set) {
				st_rel(&m->whole[(cs >> CHUNK_SHIFT) & (MID_N - 1)], id);
			} else {
				clear_if(&m->whole[(cs >> CHUNK_SHIFT) & (MID_N - 1)], id);
			}
			x = cs + CHUNK;
			continue;
		}
		/* A partly covered chunk: marks at the 4 KiB boundaries in it. */
		{
			uint64_t hi = cs + CHUNK < end ? cs + CHUNK : end;
			uint64_t m0 = (x + MARK_STEP - 1) & ~(uint64_t)(MARK_STEP - 1);
			uint32_t *leaf;

			if (set && m0 < hi && !direct_note(cs))
				return false;
			leaf = leaf_of(lc, cs, set);
			if (!leaf) {
				if (set)
					return false;
			} else {
				for (uint64_t y = m0; y < hi; y += MARK_STEP) {
					if (set)
						st_rel(&leaf[gran(y)], v);
					else
						clear_if(&leaf[gran(y)], v);
				}
			}
			x = hi;
		}
	}
	return true;
}

static int big_insert(struct rt_leaf_cache *lc, uint64_t base, uint64_t size, uint32_t site,
                      uint32_t kind)
{
	uint32_t id = big_alloc();

	if (!id)
		return -ENOMEM;
	big_write(&g.big[id], base, size, site, kind);
	if (!big_marks(lc, base, base + size, id, true)) {
		big_marks(lc, base, base + size, id, false);
		big_write(&g.big[id], 0, 0, 0, 0);
		big_release(id);
		return -ENOMEM;
	}
	return 0;
}

/* Remove descriptor id (found through a mark); false if it is already free. */
static bool big_remove(uint32_t id, struct rt_block *old)
{
	struct rt_block b;

	if (!big_read(id, &b))
		return false;
	big_marks(NULL, b.base, b.base + b.size, id, false);
	big_write(&g.big[id], 0, 0, 0, 0);
	big_release(id);
	if (old)
		*old = b;
	return true;
}

/* ---------------- insert, remove, find ---------------- */

int blocks__insert(struct rt_leaf_cache *lc, uint64_t base, uint64_t size,
                      uint32_t site, uint32_t kind)
{
	uint32_t *leaf;
	unsigned g0;

	if (g.state != 2)
		return -ENOMEM;
	if (size == 0 || (base & (RT_BLOCK_GRAN - 1)) || site == 0 || site > RT_SITE_MAX)
		return -EINVAL;
	if (base >= RT_BLOCK_ADDR_END || size > RT_BLOCK_ADDR_END - base)
		return -ERANGE;
	if (!blocks__any)
		__atomic_store_n(&blocks__any, 1, __ATOMIC_RELAXED);
	if (size > RT_BLOCK_SMALL_MAX || kind != HC_OBJ_MALLOC)
		return big_insert(lc, base, size, site, kind);
	leaf = leaf_of(lc, base, true);
	if (!leaf)
		return -ENOMEM;
	g0 = gran(base);
	if (size <= RT_BLOCK_GRAN) {
		st_rel(&leaf[g0], FIRST_V(site, size));
		return 0;
	}
	if (g0 + 1 < LEAF_N) {
		st(&leaf[g0 + 1], SIZE_V(size));
	} else {
		uint32_t *w = word_of(lc, base + RT_BLOCK_GRAN, true);
		if (!w)
			return -ENOMEM;
		st(w, SIZE_V(size));
	}
	st_rel(&leaf[g0], FIRST_V(site, 0));
	return 0;
}

bool blocks__remove(struct rt_leaf_cache *lc, uint64_t base, struct rt_block *old)
{
	uint32_t *w, v;

	if (g.state != 2 || base >= RT_BLOCK_ADDR_END || (base & (RT_BLOCK_GRAN - 1)))
		return false;
	w = word_of(lc, base, false);
	if (!w)
		return false;
	v = ld_acq(w);
	if (TAG(v) == T_FIRST) {
		uint64_t size = FIRST_SMALL(v);
		st(w, 0);
		if (!size) {
			uint32_t *s = word_of(lc, base + RT_BLOCK_GRAN, false);
			uint32_t sv = s ? ld(s) : 0;
			if (TAG(sv) == T_SIZE) {
				size = SIZE_N(sv);
				st(s, 0);
			}
		}
		if (old) {
			old->base = base;
			old->size = size;
			old->site = FIRST_SITE(v);
			old->kind = HC_OBJ_MALLOC;
		}
		return true;
	}
	if (TAG(v) == T_BIG) {
		struct rt_block b;
		uint32_t id = BIG_ID(v);
		if (!big_read(id, &b) || b.base != base)
			return false;
		return big_remove(id, old);
	}
	return false;
}

bool blocks__find(uint64_t a, struct rt_block *out)
{
	uint64_t x = a & ~(uint64_t)(RT_BLOCK_GRAN - 1), chunk = UINT64_MAX;
	uint32_t v = 0, *leaf = NULL, *fw = NULL, sv;

	if (__atomic_load_n(&g.state, __ATOMIC_ACQUIRE) != 2 || a >= RT_BLOCK_ADDR_END)
		return false;
	v = whole_of(a);
	if (v)
		return big_read(v, out) && a - out->base < out->size;
	/* Scan back to the nearest mark, at most 4 KiB + one granule. */
	for (unsigned k = 0; k <= RT_BLOCK_SMALL_MAX / RT_BLOCK_GRAN; k++) {
		if (x >> CHUNK_SHIFT != chunk) {
			chunk = x >> CHUNK_SHIFT;
			/* A chunk covered whole by a big block cannot hold the start
			   of the block containing a (a's own chunk would be covered
			   or marked). */
			if (k > 0 && whole_of(x))
				return false;
			leaf = leaf_of(NULL, x, false);
		}
		if (leaf) {
			v = ld_acq(&leaf[gran(x)]);
			if (v) {
				fw = &leaf[gran(x)];
				break;
			}
		}
		if (x < RT_BLOCK_GRAN)
			return false;
		x -= RT_BLOCK_GRAN;
	}
	if (!v)
		return false;
	if (TAG(v) == T_BIG)
		return big_read(BIG_ID(v), out) && a - out->base < out->size;
	if (TAG(v) == T_SIZE) {
		/* The block's first granule is just before its size. */
		if (x < RT_BLOCK_GRAN)
			return false;
		x -= RT_BLOCK_GRAN;
		fw = word_of(NULL, x, false);
		v = fw ? ld_acq(fw) : 0;
		if (TAG(v) != T_FIRST)
			return false;
	}
	out->base = x;
	out->size = FIRST_SMALL(v);
	out->site = FIRST_SITE(v);
	out->kind = HC_OBJ_MALLOC;
	if (!out->size) {
		uint32_t *s = word_of(NULL, x + RT_BLOCK_GRAN, false);
		sv = s ? ld_acq(s) : 0;
		if (TAG(sv) != T_SIZE)
			return false;
		out->size = SIZE_N(sv);
	}
	/* The block must not have changed under us (removed, or replaced).
	   Every load above is an acquire load (the directory's in install,
	   the marks, the size word), so this re-read cannot move before any of
	   them: what an acquire fence here gave, which TSan does not model
	   (gcc's -Wtsan); on x86-64 the same movs. */
	if (ld(fw) != v)
		return false;
	return a - out->base < out->size;
}

uint32_t blocks__remove_range(uint64_t lo, uint64_t hi)
{
	struct rt_block b;
	uint32_t n = 0;
	uint64_t x;

	if (g.state != 2 || lo >= hi || lo >= RT_BLOCK_ADDR_END)
		return 0;
	if (hi > RT_BLOCK_ADDR_END)
		hi = RT_BLOCK_ADDR_END;
	/* A block that starts before lo and reaches into the range. */
	if (blocks__find(lo, &b) && b.base < lo && blocks__remove(NULL, b.base, NULL))
		n++;
	x = lo & ~(uint64_t)(RT_BLOCK_GRAN - 1);
	while (x < hi) {
		uint64_t rs = x & ~(REGION - 1), cs = x & ~(CHUNK - 1), ce;
		uint32_t v = ld_acq(&g.topwhole[rs >> REGION_SHIFT]);
		struct mid *m;
		uint32_t *leaf;

		if (v && big_remove(v, NULL))
			n++;
		m = mid_of(x, false);
		if (!m) {
			x = rs + REGION;
			continue;
		}
		v = ld_acq(&m->whole[(x >> CHUNK_SHIFT) & (MID_N - 1)]);
		if (v && big_remove(v, NULL))
			n++;
		ce = cs + CHUNK < hi ? cs + CHUNK : hi;
		/* Direct shadow: only chunks with big-block marks. A small block
		   inside an unmapped range means the program unmapped memory of
		   the allocator (undefined behaviour); only the directory finds
		   those too. */
		leaf = direct_noted(m, x) ? leaf_of(NULL, x, false) : NULL;
		for (uint64_t y = x; leaf && y < ce; y += RT_BLOCK_GRAN) {
			uint32_t w = ld(&leaf[gran(y)]);
			if (TAG(w) == T_FIRST && y >= lo && blocks__remove(NULL, y, NULL))
				n++;
			else if (TAG(w) == T_BIG && big_remove(BIG_ID(w), NULL))
				n++;
		}
		x = cs + CHUNK;
	}
	return n;
}
