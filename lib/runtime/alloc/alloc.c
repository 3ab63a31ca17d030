/* SPDX-License-Identifier: BSD-3-Clause */
/* alloc.c — heap allocation tracking (doc/objects.md). The
   allocation family (malloc, calloc, realloc, free, posix_memalign,
   aligned_alloc, memalign, valloc, pvalloc, anonymous mmap, munmap, mremap)
   is interposed; C++ new/delete reach malloc/aligned_alloc/free through
   libstdc++ and are covered by the same wrappers. Each wrapper calls the
   real function first and then, under the thread's re-entrancy guard,
   records the block in the live-block table (blocks.c) with its allocation
   site, or removes it. Memory stays bounded by the live blocks.

   The allocation context must cost next to nothing per call, so it is
   cached: the key is the wrapper's return-address slot and the return
   address in it (the call site and the stack depth), validated by up to four
   return addresses further up the stack at the slots where the full unwind
   found them (so wrappers like strdup or operator new, whose own call site
   is shared, still separate their callers). A miss — and one hit in
   VERIFY_EVERY, to measure the approximation — unwinds fully
   (unw_backtrace) and inserts the path into the thread's CCT; the node
   becomes the block's allocation site.

   Communication events are resolved online: when a thread records an event,
   alloc__note_event (signal context, lock-free, read-only on the table)
   looks both addresses up and keeps the live block each falls in.

   Until dlsym has found the real functions (dlsym itself calls calloc),
   allocations come from a static bump buffer that is never freed.

   The runtime never allocates from the program's heap (doc/runtime.md, "What a measured program can observe"): an
   allocation is the runtime's when this thread is inside the runtime's own
   code (ownheap__depth, or the re-entrancy guard held) or the call comes
   from this library; it is served by the runtime's own heap (ownheap.c),
   and free/realloc recognise those blocks by address whoever frees them.
   One allocation glibc makes for the program is sized by what the runtime
   loaded: the DTV the loader callocs for every new thread has one slot per
   module with TLS, and the runtime and libunwind are two such modules. That
   calloc (from ld.so, 16-byte elements) is served by the runtime's heap
   too, and a "shadow" block of the size the DTV has natively is calloc'd
   from the program's heap in its place, resized and freed with it, so the
   program's heap sees the native call. */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "runtime/rt.h"
#include "runtime/safety.h"
#include "runtime/alloc/alloc.h"
#include "runtime/alloc/ownheap.h"

#define CTX_SETS      512
#define CTX_WAYS      2
#define CTX_SLOTS     4              /* return addresses checked above the call site */
#define CTX_SCAN      512            /* stack words searched per caller slot (offsets < 64 KiB) */
#define VERIFY_EVERY  8192           /* one cache hit in this many is re-unwound */
#define OBJ_CAP       (1u << 20)     /* object records per thread */
#define BOOT_SIZE     (64u << 10)
#define PAGE_SIZE_    4096u

/* The mark cached for the runtime's own call sites (never a FIRST mark). */
#define MARK_SELF     RT_BLK_T_SIZE
#define MARK_SITE(m)  ((m) >> 7)

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* The wrapper's return-address slot: its caller's call site is in it, and
   its address gives the stack depth. Forces a frame pointer in the wrapper. */
#define CALLER_SLOT() ((const uint64_t *)__builtin_frame_address(0) + 1)

/* A cached allocation context: one cache line. What the inline insert
   needs comes ready-made: the block's first shadow word without its size
   (mark), and lim, the size limit of the inline path — RT_BLOCK_SMALL_MAX
   for a real site, 0 for site 0 (table full: counted as dropped) and for
   the runtime's own call sites (MARK_SELF: ignored), so one comparison
   sends both to track_slow. */
struct rt_ctx_entry {
	uint64_t slot0, ra0;              /* key: return-address slot and its value */
	uint32_t mark, lim;
	uint64_t off;                     /* 16 bits per caller slot: its byte offset above slot0 (one load) */
	uint64_t val[CTX_SLOTS];          /* the return addresses the unwind found there */
} __attribute__((aligned(64)));

/* ---------------- the real functions and the bootstrap ---------------- */

static struct {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void  (*free)(void *);
	int   (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*malloc_usable_size)(void *);
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int   (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
} real;

static int rstate;                    /* 0 unresolved, 1 resolving, 2 ready */
static __thread int resolving __attribute__((tls_model("initial-exec")));
static char boot_buf[BOOT_SIZE] __attribute__((aligned(64)));
static size_t boot_used;

static inline bool ready(void)
{
	return likely(__atomic_load_n(&rstate, __ATOMIC_ACQUIRE) == 2);
}

/* No real allocator behind us: nothing can run. */
static void die(const char *what)
{
	static const char pre[] = "hpcrun-comm: error: dlsym cannot find the real ";
	ssize_t r = write(2, pre, sizeof(pre) - 1);

	r += write(2, what, strlen(what));
	r += write(2, "\n", 1);
	(void)r;
	_exit(127);
}

#define RESOLVE(name) do { \
	*(void **)&real.name = dlsym(RTLD_NEXT, #name); \
	if (!real.name) die(#name); \
} while (0)

/* Find the real functions once. Returns false while they are not usable on
   this thread: dlsym is running (here, or in another thread) — the caller
   then serves the request from the boot buffer. */
static bool resolve(void)
{
	int expect = 0;

	if (ready())
		return true;
	if (resolving || !__atomic_compare_exchange_n(&rstate, &expect, 1, false,
	                                              __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return false;
	resolving = 1;
	RESOLVE(malloc);
	RESOLVE(calloc);
	RESOLVE(realloc);
	RESOLVE(free);
	RESOLVE(posix_memalign);
	RESOLVE(aligned_alloc);
	RESOLVE(memalign);
	RESOLVE(valloc);
	RESOLVE(pvalloc);
	RESOLVE(malloc_usable_size);
	RESOLVE(mmap);
	RESOLVE(munmap);
	RESOLVE(mremap);
	resolving = 0;
	__atomic_store_n(&rstate, 2, __ATOMIC_RELEASE);
	return true;
}

/* Boot buffer: a bump allocator with the size in the 16 bytes before each
   block; zero-filled (never reused), never freed. */
static void *boot_alloc(size_t n, size_t align)
{
	size_t old = __atomic_load_n(&boot_used, __ATOMIC_RELAXED), start;

	if (align < 16)
		align = 16;
	do {
		start = (old + 16 + align - 1) & ~(align - 1);
		if (n > BOOT_SIZE || start > BOOT_SIZE - n) {
			errno = ENOMEM;
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&boot_used, &old, start + n, true,
	                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*(size_t *)(boot_buf + start - 16) = n;
	return boot_buf + start;
}

/* ---------------- whose allocation ---------------- */

/* Is the allocation asked for by return address ra the runtime's? */
static inline bool own(uint64_t ra)
{
	struct rt_thread *t;

	if (ownheap__depth)
		return true;
	t = hc_self;
	return (t && t->safety.busy) || loadmap__pc_in_self(ra);
}

/* The loader's calloc of a new thread's DTV (elf/dl-tls.c allocate_dtv:
   calloc(max module id + DTV_SURPLUS (14) + 2, sizeof(dtv_t))): the
   runtime's heap, with the native-sized shadow in the program's heap. */
static inline bool is_dtv(size_t nm, size_t sz, uint64_t ra)
{
	return sz == 16 && nm >= 18 && loadmap__dtv_extra && ra - loadmap__ldso_lo < loadmap__ldso_len;
}

static void *dtv_calloc(size_t nm, bool runtime)
{
	void *p = ownheap__alloc(nm * 16, 0, true);

	if (!p)
		return NULL;
	if (!runtime && nm > loadmap__dtv_extra) {
		void *sh = real.calloc(nm - loadmap__dtv_extra, 16);
		if (!sh) {
			ownheap__free(p);
			return NULL;
		}
		*ownheap__shadow(p) = sh;
	}
	return p;
}

static void own_free(void *p)
{
	void *sh = *ownheap__shadow(p);

	if (sh)
		real.free(sh);
	ownheap__free(p);
}

/* A block of ours resized (by whoever holds it: the loader resizes a DTV
   when a dlopen'd module needs more slots); its shadow follows. */
static void *own_realloc(void *p, size_t n)
{
	void *sh = *ownheap__shadow(p), *q;

	if (n == 0) {
		own_free(p);
		return NULL;
	}
	if (sh) {
		size_t want = n > loadmap__dtv_extra * 16 ? n - loadmap__dtv_extra * 16 : 1;
		void *nsh = real.realloc(sh, want);
		if (!nsh)
			return NULL;
		*ownheap__shadow(p) = nsh;
	}
	q = ownheap__realloc(p, n);
	return q;
}

static inline bool is_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)boot_buf < BOOT_SIZE;
}

static size_t boot_size(const void *p)
{
	return *(const size_t *)((const char *)p - 16);
}

/* ---------------- allocation contexts ---------------- */

/* A word of the stack, read without sanitizer instrumentation (the slots
   belong to other frames). */
static inline uint64_t stack_word(const uint64_t *p)
{
	uint64_t v;

	__asm__("movq %1, %0" : "=r"(v) : "m"(*p));
	return v;
}

static inline struct rt_ctx_entry *ctx_set(struct rt_thread *t, uint64_t s0, uint64_t ra0)
{
	/* The call site's low bits and the stack depth in words: no multiply
	   on the path to the compare (the two ways absorb collisions). */
	return &t->alloc.ctx[((ra0 ^ s0 >> 3) & (CTX_SETS - 1)) * CTX_WAYS];
}

/* Unused caller slots point at slot0 itself and expect ra0 there, so the
   check is four loads and one branch. */
static inline bool ctx_match(const struct rt_ctx_entry *e, const uint64_t *slot0, uint64_t ra0)
{
	const char *s = (const char *)slot0;
	uint64_t d, o;

	if (unlikely(e->slot0 != (uint64_t)(uintptr_t)slot0 || e->ra0 != ra0))
		return false;
	o = e->off;
	d = (stack_word((const uint64_t *)(s + (o & 0xffff))) ^ e->val[0]) |
	    (stack_word((const uint64_t *)(s + (o >> 16 & 0xffff))) ^ e->val[1]) |
	    (stack_word((const uint64_t *)(s + (o >> 32 & 0xffff))) ^ e->val[2]) |
	    (stack_word((const uint64_t *)(s + (o >> 48))) ^ e->val[3]);
	return likely(d == 0);
}

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
static __attribute__((noinline)) void ctx_fill(struct rt_thread *t, const uint64_t *slot0,
                                               uint64_t ra0, struct rt_ctx_entry *ne)
{
	void *fr[HC_MAX_FRAMES];
	int n = cct__backtrace(fr, HC_MAX_FRAMES), i;
	uint64_t s0 = (uint64_t)(uintptr_t)slot0;
	uint32_t node, site;

	memset(ne, 0, sizeof(*ne));
	ne->slot0 = s0;
	ne->ra0 = ra0;
	for (int j = 0; j < CTX_SLOTS; j++)
		ne->val[j] = ra0;      /* off 0: slot0 itself, always ra0 */
	if (loadmap__pc_in_self(ra0)) {
		ne->mark = MARK_SELF;  /* the runtime's own call: never tracked */
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
			for (int j = 1; j <= CTX_SLOTS && i + j < n; j++) {
				uint64_t want = (uint64_t)(uintptr_t)fr[i + j];
				const uint64_t *lim = top - p > CTX_SCAN ? p + CTX_SCAN : top, *q;
				for (q = p; q < lim && stack_word(q) != want; q++)
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
	ne->mark = site ? RT_BLK_FIRST_V(site, 0) : 0;
	ne->lim = site ? RT_BLOCK_SMALL_MAX : 0;
	/* Blocks may be inserted from now on without blocks__insert (the
	   inline direct path): free() must look them up. Every cached context
	   was filled here first, in this process or before a fork (the flag
	   survives blocks__reset). */
	if (site && !blocks__used())
		__atomic_store_n(&blocks__any, 1, __ATOMIC_RELAXED);
}

static __attribute__((noinline)) struct rt_ctx_entry *ctx_miss(struct rt_thread *t,
                                                               const uint64_t *slot0, uint64_t ra0,
                                                               struct rt_ctx_entry *set)
{
	struct rt_ctx_entry ne;

	hc_guard_enter(t);      /* track() saw it clear; unwinding needs it */
	ctx_fill(t, slot0, ra0, &ne);
	set[1] = set[0];
	set[0] = ne;
	hc_guard_leave(t);
	return &set[0];
}

/* Re-unwind a hit and count whether the cache was right. */
static __attribute__((noinline)) struct rt_ctx_entry *ctx_verify(struct rt_thread *t,
                                                                 const uint64_t *slot0,
                                                                 uint64_t ra0,
                                                                 struct rt_ctx_entry *e)
{
	struct rt_ctx_entry ne;

	hc_guard_enter(t);
	t->alloc.verify = VERIFY_EVERY;
	if (e->mark != MARK_SELF)
		t->cnt.alloc_ctx_checks++;
	ctx_fill(t, slot0, ra0, &ne);
	if (ne.mark != e->mark)
		t->cnt.alloc_ctx_mismatches++;
	*e = ne;
	hc_guard_leave(t);
	return e;
}

/* The cache entry of the allocation context of the call in *slot0. */
static inline __attribute__((always_inline)) const struct rt_ctx_entry *
ctx_get(struct rt_thread *t, const uint64_t *slot0, uint64_t ra0)
{
	struct rt_ctx_entry *set = ctx_set(t, (uint64_t)(uintptr_t)slot0, ra0), *e;

	if (likely(ctx_match(&set[0], slot0, ra0)))
		e = &set[0];
	else if (ctx_match(&set[1], slot0, ra0))
		e = &set[1];
	else
		return ctx_miss(t, slot0, ra0, set);
	if (unlikely(--t->alloc.verify == 0))
		return ctx_verify(t, slot0, ra0, e);
	return e;
}

/* ---------------- tracking ---------------- */

/* The rest of track(): blocks the inline path does not record (big,
   mmap, misaligned, no direct shadow), the runtime's own call sites, and
   site 0 (the site table is full). Takes the guard (track() saw it clear). */
static __attribute__((noinline)) void track_slow(struct rt_thread *t, uint64_t base, uint64_t n,
                                                 uint32_t mark, uint32_t kind)
{
	int ret;

	if (mark == MARK_SELF)
		return;     /* the runtime's own allocation */
	hc_guard_enter(t);
	if (kind == HC_OBJ_MALLOC)     /* small blocks without the direct shadow, big ones */
		ret = blocks__insert_fast(&t->alloc.leaves, base, n, MARK_SITE(mark));
	else
		ret = blocks__insert(&t->alloc.leaves, base, n, MARK_SITE(mark), kind);
	if (ret == 0)
		t->cnt.allocs_tracked++;
	else
		t->cnt.allocs_dropped++;
	hc_guard_leave(t);
}

/* Record block [p, p+n) allocated from the call site in *slot0. Inlined in
   every wrapper: this is the per-allocation cost. The runtime's own call
   sites are recognized on a context-cache miss (ctx_fill) and cached as
   MARK_SELF, so the hit path needs no range check.
   The hit path runs without setting the re-entrancy guard (it only reads
   the context cache and writes shadow words in the order lookups accept):
   a sample or trap interrupting it is refused because its PC lies in this
   library (signal.c), and every path that leaves the library or changes
   shared state — a cache miss or check (unwinding, the CCT), the slow
   insert — sets the guard itself. It must still be clear on entry: set, the
   runtime itself is allocating (e.g. libunwind inside a handler). */
static inline __attribute__((always_inline)) void track(void *p, size_t n, uint32_t kind,
                                                       const uint64_t *slot0)
{
	struct rt_thread *t = hc_self;
	uint64_t ra0, base = (uint64_t)(uintptr_t)p;
	const struct rt_ctx_entry *e;

	if (!p || !t || t->safety.busy)
		return;
	if (unlikely(n < t->alloc.min)) {
		if (t->alloc.on)
			t->cnt.allocs_below_min++;
		return;
	}
	ra0 = *slot0;
	e = ctx_get(t, slot0, ra0);
	if (likely(kind == HC_OBJ_MALLOC &&
	           blocks__insert_direct(t->alloc.shadow, t->alloc.bad, base, n, e->mark, e->lim)))
		t->cnt.allocs_tracked++;
	else
		track_slow(t, base, n, e->mark, kind);
}

/* Stop tracking the block at p (if it is one); its description in *old. */
static bool untrack(void *p, struct rt_block *old)
{
	struct rt_thread *t;
	bool had;

	if (!blocks__used())
		return false;
	t = hc_self;
	if (t && hc_guard_enter(t)) {
		had = blocks__remove(&t->alloc.leaves, (uint64_t)(uintptr_t)p, old);
		if (had)
			t->cnt.frees_tracked++;
		hc_guard_leave(t);
		return had;
	}
	/* Inside the runtime, or a thread without a record: no thread state. */
	return blocks__remove(NULL, (uint64_t)(uintptr_t)p, old);
}

/* The rest of untrack_free: no direct shadow (the leaf cache), a big block. */
static __attribute__((noinline)) int untrack_slow(struct rt_thread *t, uint64_t base)
{
	int r;

	hc_guard_enter(t);      /* untrack_free saw it clear */
	r = blocks__remove_fast(&t->alloc.leaves, base);
	if (r < 0)
		r = blocks__remove(&t->alloc.leaves, base, NULL);
	hc_guard_leave(t);
	return r;
}

/* untrack for free(): the common case inline, without setting the guard
   (as track()'s hit path: samples in this library are refused). */
static inline __attribute__((always_inline)) void untrack_free(void *p)
{
	struct rt_thread *t;
	int r;

	if (!blocks__used())
		return;
	t = hc_self;
	if (likely(t && !t->safety.busy)) {
		r = blocks__remove_direct(t->alloc.shadow, t->alloc.bad, (uint64_t)(uintptr_t)p);
		if (likely(r > 0))
			t->cnt.frees_tracked++;
		else if (r < 0)
			t->cnt.frees_tracked += (uint64_t)untrack_slow(t, (uint64_t)(uintptr_t)p);
		return;
	}
	blocks__remove(NULL, (uint64_t)(uintptr_t)p, NULL);
}

static void untrack_range(void *p, size_t len)
{
	struct rt_thread *t;
	uint32_t n;

	if (!blocks__used() || len == 0)
		return;
	t = hc_self;
	if (t && hc_guard_enter(t)) {
		n = blocks__remove_range((uint64_t)(uintptr_t)p, (uint64_t)(uintptr_t)p + len);
		t->cnt.frees_tracked += n;
		hc_guard_leave(t);
	} else {
		blocks__remove_range((uint64_t)(uintptr_t)p, (uint64_t)(uintptr_t)p + len);
	}
}

/* Put a block back as it was (a realloc or mremap that failed). */
static void retrack(const struct rt_block *b)
{
	struct rt_thread *t = hc_self;

	if (t && hc_guard_enter(t)) {
		if (blocks__insert(&t->alloc.leaves, b->base, b->size, b->site, b->kind) == 0)
			t->cnt.allocs_tracked++;
		else
			t->cnt.allocs_dropped++;
		hc_guard_leave(t);
	} else {
		blocks__insert(NULL, b->base, b->size, b->site, b->kind);
	}
}

/* ---------------- the malloc family ---------------- */

HC_EXPORT void *malloc(size_t n)
{
	void *p;

	if (!ready() && !resolve())
		return boot_alloc(n, 16);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(n, 0, false);
	p = real.malloc(n);
	track(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void *calloc(size_t nm, size_t sz)
{
	size_t n;
	void *p;

	if (!ready() && !resolve()) {
		if (__builtin_mul_overflow(nm, sz, &n)) {
			errno = ENOMEM;
			return NULL;
		}
		return boot_alloc(n, 16);
	}
	if (unlikely(is_dtv(nm, sz, *CALLER_SLOT())))
		return dtv_calloc(nm, own(*CALLER_SLOT()));
	if (unlikely(own(*CALLER_SLOT()))) {
		if (__builtin_mul_overflow(nm, sz, &n)) {
			errno = ENOMEM;
			return NULL;
		}
		return ownheap__alloc(n, 0, true);
	}
	p = real.calloc(nm, sz);
	if (p && !__builtin_mul_overflow(nm, sz, &n))
		track(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void free(void *p)
{
	if (!p || is_boot(p))
		return;
	if (!ready() && !resolve())
		return;       /* cannot happen: only boot blocks exist before resolution */
	if (unlikely(ownheap__has(p))) {
		own_free(p);
		return;
	}
	untrack_free(p);
	real.free(p);
}

HC_EXPORT void *realloc(void *p, size_t n)
{
	struct rt_block old;
	bool had = false;
	void *q;

	if (!ready() && !resolve()) {
		q = boot_alloc(n, 16);
		if (q && p)
			memcpy(q, p, boot_size(p) < n ? boot_size(p) : n);
		return q;
	}
	if (p && ownheap__has(p))
		return own_realloc(p, n);
	if (!p && own(*CALLER_SLOT()))
		return ownheap__alloc(n, 0, false);
	if (p && is_boot(p)) {
		if (own(*CALLER_SLOT())) {
			q = ownheap__alloc(n, 0, false);
			if (q)
				memcpy(q, p, boot_size(p) < n ? boot_size(p) : n);
			return q;
		}
		q = real.malloc(n);
		if (q)
			memcpy(q, p, boot_size(p) < n ? boot_size(p) : n);
		track(q, n, HC_OBJ_MALLOC, CALLER_SLOT());
		return q;
	}
	if (p)
		had = untrack(p, &old);
	q = real.realloc(p, n);
	if (q)
		track(q, n, HC_OBJ_MALLOC, CALLER_SLOT());
	else if (had && n != 0)
		retrack(&old);     /* failed: the old block is still there */
	return q;
}

HC_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int ret;

	if (!ready() && !resolve()) {
		*out = boot_alloc(n, align);
		return *out ? 0 : ENOMEM;
	}
	if (unlikely(own(*CALLER_SLOT()))) {
		if (align < sizeof(void *) || (align & (align - 1)))
			return EINVAL;
		*out = ownheap__alloc(n, align, false);
		return *out ? 0 : ENOMEM;
	}
	ret = real.posix_memalign(out, align, n);
	if (ret == 0)
		track(*out, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return ret;
}

HC_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (!ready() && !resolve())
		return boot_alloc(n, align);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(n, align, false);
	p = real.aligned_alloc(align, n);
	track(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void *memalign(size_t align, size_t n)
{
	void *p;

	if (!ready() && !resolve())
		return boot_alloc(n, align);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(n, align, false);
	p = real.memalign(align, n);
	track(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void *valloc(size_t n)
{
	void *p;

	if (!ready() && !resolve())
		return boot_alloc(n, PAGE_SIZE_);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(n, PAGE_SIZE_, false);
	p = real.valloc(n);
	track(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void *pvalloc(size_t n)
{
	size_t r = (n + PAGE_SIZE_ - 1) & ~(size_t)(PAGE_SIZE_ - 1);
	void *p;

	if (r == 0)
		r = PAGE_SIZE_;
	if (!ready() && !resolve())
		return boot_alloc(r, PAGE_SIZE_);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(r, PAGE_SIZE_, false);
	p = real.pvalloc(n);
	track(p, r, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (is_boot(p))
		return boot_size(p);
	if (ownheap__has(p))
		return ownheap__usable(p);
	if (!ready() && !resolve())
		return 0;
	return real.malloc_usable_size(p);
}

/* ---------------- anonymous mappings ---------------- */

static inline size_t page_round(size_t n)
{
	return (n + PAGE_SIZE_ - 1) & ~(size_t)(PAGE_SIZE_ - 1);
}

HC_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if (!ready() && !resolve())
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	p = real.mmap(addr, len, prot, flags, fd, off);
	if (p == MAP_FAILED)
		return p;
	/* A fixed mapping replaced whatever was there. */
	if ((flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE))
		untrack_range(p, page_round(len));
	if ((flags & MAP_ANONYMOUS) && (prot & (PROT_READ | PROT_WRITE)) && !own(*CALLER_SLOT()))
		track(p, page_round(len), HC_OBJ_MMAP, CALLER_SLOT());
	return p;
}

HC_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

HC_EXPORT int munmap(void *addr, size_t len)
{
	if (!ready() && !resolve())
		return (int)syscall(SYS_munmap, addr, len);
	/* Before the range can be mapped again by another thread. */
	untrack_range(addr, page_round(len));
	return real.munmap(addr, len);
}

HC_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	struct rt_block b;
	void *new_addr = NULL, *p;
	bool had = false;
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		new_addr = va_arg(ap, void *);
		va_end(ap);
	}
	if (!ready() && !resolve())
		return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
	had = blocks__used() && blocks__find((uint64_t)(uintptr_t)old, &b) &&
	      b.base == (uint64_t)(uintptr_t)old && b.kind == HC_OBJ_MMAP;
	untrack_range(old, page_round(old_len));
	p = real.mremap(old, old_len, new_len, flags, new_addr);
	if (p == MAP_FAILED) {
		if (had)
			retrack(&b);
		return p;
	}
	if (p != old)
		untrack_range(p, page_round(new_len));
	if (had) {
		/* The same object, moved or resized. */
		b.base = (uint64_t)(uintptr_t)p;
		b.size = page_round(new_len);
		retrack(&b);
	}
	return p;
}

/* ---------------- thread and process life cycle ---------------- */

/* fork: the child's table is still the parent's (its blocks belong to the
   parent's threads and contexts): it is dropped when the child's first
   thread starts (alloc__thread_start sees the new pid). The table has no
   lock that a fork could leave held. */
static uint32_t table_pid;

__attribute__((constructor(101))) static void alloc_ctor(void)
{
	ownheap__enter();
	resolve();
	loadmap__self_init();
	ownheap__leave();
	if (!table_pid)
		table_pid = (uint32_t)getpid();
}

int alloc__thread_start(struct rt_thread *t)
{
	static int said;

	memset(&t->alloc, 0, sizeof(t->alloc));
	t->alloc.min = UINT64_MAX;
	t->alloc.bad = UINT64_MAX;
	loadmap__self_init();
	if (table_pid && t->id.pid != table_pid) {
		/* A forked child: nothing tracked yet in this process. */
		blocks__reset();
	}
	table_pid = t->id.pid;
	if (blocks__init() < 0) {
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			process__log("allocation tracking: cannot reserve the block table: heap objects untracked");
		return -ENOMEM;
	}
	t->alloc.shadow = blocks__shadow();
	t->alloc.bad = t->alloc.shadow ? RT_BLK_BAD : UINT64_MAX;
	t->alloc.ctx = hc_arena_alloc(&t->arena, CTX_SETS * CTX_WAYS * sizeof(*t->alloc.ctx), 64);
	t->alloc.obj = hc_arena_alloc(&t->arena, OBJ_CAP * sizeof(*t->alloc.obj), 64);
	if (!t->alloc.ctx || !t->alloc.obj) {
		t->alloc.obj = NULL;
		process__log("thread %u: arena too small: allocations untracked", t->id.index);
		return -ENOMEM;
	}
	t->alloc.capobj = OBJ_CAP;
	t->alloc.verify = VERIFY_EVERY;
	t->alloc.min = hc_rt.opt.min_alloc ? hc_rt.opt.min_alloc : 1;
	t->alloc.on = true;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
		if (hc_rt.opt.min_alloc > 1)
			process__log("allocation tracking: blocks of %llu bytes or more (--min-alloc)",
			        (unsigned long long)hc_rt.opt.min_alloc);
		else
			process__log("allocation tracking: every heap block");
	}
	HC_DEBUG_LOG(HC_DBG_ALLOC, "T%u: tracking blocks of %llu bytes or more, block table %s",
	             t->id.index, (unsigned long long)t->alloc.min, t->alloc.shadow ? "shared" : "none");
	return 0;
}

void alloc__note_event(struct rt_thread *t, uint32_t ev)
{
	const struct hc_prof_event *e = &t->events.v[ev];
	struct rt_alloc_thread *a = &t->alloc;

	if (!a->obj)
		return;
	/* Event numbering restarted (measurement resumed after a failed exec):
	   the old records describe events that are gone. */
	if (a->nobj && a->obj[a->nobj - 1].event >= ev)
		a->nobj = 0;
	for (uint32_t side = HC_SIDE_ADDR; side <= HC_SIDE_PEER; side++) {
		uint64_t addr = side == HC_SIDE_ADDR ? e->addr : e->peer_addr;
		struct hc_prof_object *o;
		struct rt_block b;
		uint32_t th, ctx;

		if (!addr || !blocks__find(addr, &b) || !blocks__site_get(b.site, &th, &ctx))
			continue;
		if (a->nobj >= a->capobj) {
			t->cnt.objects_dropped++;
			continue;
		}
		o = &a->obj[a->nobj];
		o->event = ev;
		o->side = side;
		o->base = b.base;
		o->size = b.size;
		o->thread = th;
		o->ctx = ctx;
		o->kind = b.kind;
		o->reserved = 0;
		a->nobj++;
		t->cnt.objects_resolved++;
	}
}

int alloc__write(struct hc_prof_writer *w, const struct rt_thread *t)
{
	int ret;

	if (!t->alloc.nobj)
		return 0;
	ret = hc_prof_section_begin(w, HC_SEC_OBJECTS);
	for (uint32_t i = 0; !ret && i < t->alloc.nobj; i++)
		if (t->alloc.obj[i].event < t->events.n)
			ret = hc_prof_put_object(w, &t->alloc.obj[i]);
	return ret ? ret : hc_prof_section_end(w);
}
