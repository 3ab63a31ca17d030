/* SPDX-License-Identifier: BSD-3-Clause */
/* alloc.c — the allocation family's entry points (doc/objects.md). malloc,
   calloc, realloc, free, posix_memalign, aligned_alloc, memalign, valloc,
   pvalloc, malloc_usable_size, anonymous mmap, munmap and mremap are
   interposed; C++ new/delete reach malloc/aligned_alloc/free through
   libstdc++ and are covered by the same wrappers. Each wrapper decides who
   serves the call and then, for the program's blocks, has track.c record
   or remove it. The parts live beside it: the real functions and the boot
   buffer (real.c), the allocation-context cache (context.c), the
   live-block table (blocks.c) and the thread's view of it (track.c), the
   runtime's own heap (ownheap.c), the objects of recorded events
   (objects.c). Memory stays bounded by the live blocks.

   Who serves a call: before dlsym has found the real functions, the boot
   buffer (real.c). The runtime never allocates from the program's heap
   (doc/runtime.md, "What a measured program can observe"): an allocation
   is the runtime's when this thread is inside the runtime's own code
   (ownheap__depth, or the re-entrancy guard held) or the call comes from
   this library; it is served by the runtime's own heap (ownheap.c), and
   free/realloc recognise those blocks by address whoever frees them.
   One allocation glibc makes for the program is sized by what the runtime
   loaded: the DTV the loader callocs for every new thread has one slot per
   module with TLS, and the runtime and libunwind are two such modules. That
   calloc (from ld.so, 16-byte elements) is served by the runtime's heap
   too, and a "shadow" block of the size the DTV has natively is calloc'd
   from the program's heap in its place, resized and freed with it, so the
   program's heap sees the native call. Everything else: the real function,
   then tracking. Not signal context. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/safety.h"
#include "runtime/alloc/alloc.h"
#include "runtime/alloc/ownheap.h"
#include "runtime/alloc/real.h"
#include "runtime/alloc/track.h"

#define PAGE_SIZE_    4096u

#define unlikely(x) __builtin_expect(!!(x), 0)

/* The wrapper's return-address slot: its caller's call site is in it, and
   its address gives the stack depth. Forces a frame pointer in the wrapper. */
#define CALLER_SLOT() ((const uint64_t *)__builtin_frame_address(0) + 1)

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
		void *sh = real__fn.calloc(nm - loadmap__dtv_extra, 16);
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
		real__fn.free(sh);
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
		void *nsh = real__fn.realloc(sh, want);
		if (!nsh)
			return NULL;
		*ownheap__shadow(p) = nsh;
	}
	q = ownheap__realloc(p, n);
	return q;
}

/* ---------------- the malloc family ---------------- */

HC_EXPORT void *malloc(size_t n)
{
	void *p;

	if (!real__ready() && !real__resolve())
		return real__boot_alloc(n, 16);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(n, 0, false);
	p = real__fn.malloc(n);
	track__block(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void *calloc(size_t nm, size_t sz)
{
	size_t n;
	void *p;

	if (!real__ready() && !real__resolve()) {
		if (__builtin_mul_overflow(nm, sz, &n)) {
			errno = ENOMEM;
			return NULL;
		}
		return real__boot_alloc(n, 16);
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
	p = real__fn.calloc(nm, sz);
	if (p && !__builtin_mul_overflow(nm, sz, &n))
		track__block(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void free(void *p)
{
	if (!p || real__is_boot(p))
		return;
	if (!real__ready() && !real__resolve())
		return;       /* cannot happen: only boot blocks exist before resolution */
	if (unlikely(ownheap__has(p))) {
		own_free(p);
		return;
	}
	track__free(p);
	real__fn.free(p);
}

HC_EXPORT void *realloc(void *p, size_t n)
{
	struct rt_block old;
	bool had = false;
	void *q;

	if (!real__ready() && !real__resolve()) {
		q = real__boot_alloc(n, 16);
		if (q && p)
			memcpy(q, p, real__boot_size(p) < n ? real__boot_size(p) : n);
		return q;
	}
	if (p && ownheap__has(p))
		return own_realloc(p, n);
	if (!p && own(*CALLER_SLOT()))
		return ownheap__alloc(n, 0, false);
	if (p && real__is_boot(p)) {
		if (own(*CALLER_SLOT())) {
			q = ownheap__alloc(n, 0, false);
			if (q)
				memcpy(q, p, real__boot_size(p) < n ? real__boot_size(p) : n);
			return q;
		}
		q = real__fn.malloc(n);
		if (q)
			memcpy(q, p, real__boot_size(p) < n ? real__boot_size(p) : n);
		track__block(q, n, HC_OBJ_MALLOC, CALLER_SLOT());
		return q;
	}
	if (p)
		had = track__remove(p, &old);
	q = real__fn.realloc(p, n);
	if (q)
		track__block(q, n, HC_OBJ_MALLOC, CALLER_SLOT());
	else if (had && n != 0)
		track__restore(&old);     /* failed: the old block is still there */
	return q;
}

HC_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	int ret;

	if (!real__ready() && !real__resolve()) {
		*out = real__boot_alloc(n, align);
		return *out ? 0 : ENOMEM;
	}
	if (unlikely(own(*CALLER_SLOT()))) {
		if (align < sizeof(void *) || (align & (align - 1)))
			return EINVAL;
		*out = ownheap__alloc(n, align, false);
		return *out ? 0 : ENOMEM;
	}
	ret = real__fn.posix_memalign(out, align, n);
	if (ret == 0)
		track__block(*out, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return ret;
}

HC_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	void *p;

	if (!real__ready() && !real__resolve())
		return real__boot_alloc(n, align);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(n, align, false);
	p = real__fn.aligned_alloc(align, n);
	track__block(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void *memalign(size_t align, size_t n)
{
	void *p;

	if (!real__ready() && !real__resolve())
		return real__boot_alloc(n, align);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(n, align, false);
	p = real__fn.memalign(align, n);
	track__block(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void *valloc(size_t n)
{
	void *p;

	if (!real__ready() && !real__resolve())
		return real__boot_alloc(n, PAGE_SIZE_);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(n, PAGE_SIZE_, false);
	p = real__fn.valloc(n);
	track__block(p, n, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT void *pvalloc(size_t n)
{
	size_t r = (n + PAGE_SIZE_ - 1) & ~(size_t)(PAGE_SIZE_ - 1);
	void *p;

	if (r == 0)
		r = PAGE_SIZE_;
	if (!real__ready() && !real__resolve())
		return real__boot_alloc(r, PAGE_SIZE_);
	if (unlikely(own(*CALLER_SLOT())))
		return ownheap__alloc(r, PAGE_SIZE_, false);
	p = real__fn.pvalloc(n);
	track__block(p, r, HC_OBJ_MALLOC, CALLER_SLOT());
	return p;
}

HC_EXPORT size_t malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (real__is_boot(p))
		return real__boot_size(p);
	if (ownheap__has(p))
		return ownheap__usable(p);
	if (!real__ready() && !real__resolve())
		return 0;
	return real__fn.malloc_usable_size(p);
}

/* ---------------- anonymous mappings ---------------- */

static inline size_t page_round(size_t n)
{
	return (n + PAGE_SIZE_ - 1) & ~(size_t)(PAGE_SIZE_ - 1);
}

HC_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	if (!real__ready() && !real__resolve())
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	p = real__fn.mmap(addr, len, prot, flags, fd, off);
	if (p == MAP_FAILED)
		return p;
	/* A fixed mapping replaced whatever was there. */
	if ((flags & MAP_FIXED) && !(flags & MAP_FIXED_NOREPLACE))
		track__remove_range(p, page_round(len));
	if ((flags & MAP_ANONYMOUS) && (prot & (PROT_READ | PROT_WRITE)) && !own(*CALLER_SLOT()))
		track__block(p, page_round(len), HC_OBJ_MMAP, CALLER_SLOT());
	return p;
}

HC_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
	__attribute__((alias("mmap")));

HC_EXPORT int munmap(void *addr, size_t len)
{
	if (!real__ready() && !real__resolve())
		return (int)syscall(SYS_munmap, addr, len);
	/* Before the range can be mapped again by another thread. */
	track__remove_range(addr, page_round(len));
	return real__fn.munmap(addr, len);
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
	if (!real__ready() && !real__resolve())
		return (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
	had = blocks__used() && blocks__find((uint64_t)(uintptr_t)old, &b) &&
	      b.base == (uint64_t)(uintptr_t)old && b.kind == HC_OBJ_MMAP;
	track__remove_range(old, page_round(old_len));
	p = real__fn.mremap(old, old_len, new_len, flags, new_addr);
	if (p == MAP_FAILED) {
		if (had)
			track__restore(&b);
		return p;
	}
	if (p != old)
		track__remove_range(p, page_round(new_len));
	if (had) {
		/* The same object, moved or resized. */
		b.base = (uint64_t)(uintptr_t)p;
		b.size = page_round(new_len);
		track__restore(&b);
	}
	return p;
}

/* ---------------- process start ---------------- */

__attribute__((constructor(101))) static void alloc_ctor(void)
{
	ownheap__enter();
	real__resolve();
	loadmap__self_init();
	ownheap__leave();
	track__process_start();
}
