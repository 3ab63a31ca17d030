/* SPDX-License-Identifier: BSD-3-Clause */
/* ownheap.c — the runtime's own heap (doc/runtime.md "What a
   measured program can observe"). Every block the runtime allocates, and
   every block glibc, the loader or a library allocates on the runtime's
   behalf (the allocation wrappers in alloc.c decide: the runtime's guard is
   set on this thread, or the call comes from this library), is served here
   and not by the program's malloc, so the program's heap holds exactly the
   blocks it holds natively and malloc returns the same addresses. free,
   realloc and malloc_usable_size recognise these blocks by address, from any
   thread and any caller (glibc frees some of them later on its own, e.g. a
   thread's DTV when its stack is reclaimed).

   The idea: one reservation of address space (mmap'd with a raw system
   call, so no wrapper sees it), carved by a bump pointer into blocks of 16
   B x 2^k, kept on one free list per size class when freed. The runtime
   allocates little and rarely (start-up, thread start and exit, the load
   map's function tables), so a lock and power-of-two classes are plenty.
   Each block carries 16 bytes before the pointer handed out: its class, the
   offset back to the block's start (aligned blocks), and an optional
   "shadow" (alloc.c: a block of the program's heap that stands in for this
   one, the DTV case). Not signal context: the handlers never allocate
   (safety.h); fork takes the lock around the fork (ownheap__atfork_*). */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "runtime/alloc/ownheap.h"

#define RESERVE_MAX  (1ull << 30)    /* address space tried first; NORESERVE: untouched pages cost nothing */
#define RESERVE_MIN  (64ull << 20)
#define NCLASS       31              /* 16 B .. 16 GiB: more than any reservation */
#define HDR          16u
#define MAGIC        0x6f776e00u     /* "own\0" in the header's high bits */
#define BIG_CLASS    12              /* 64 KiB: freed blocks this big give their pages back */

struct hdr {
	uint32_t cls;                    /* MAGIC | class */
	uint32_t back;                   /* bytes from the block's start to the user pointer */
	void *shadow;
};

__thread int ownheap__depth __attribute__((tls_model("initial-exec")));

char *ownheap__base;                  /* the reservation, set once */
size_t ownheap__len;
static size_t used;
static void *freel[NCLASS];
static int lock;
static uint64_t nblocks, nbytes;     /* live blocks and their class bytes (under the lock) */

static void lock_take(void)
{
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

static void lock_give(void)
{
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

/* The reservation, on first use (under the lock). */
static int reserve(void)
{
	for (size_t want = RESERVE_MAX; want >= RESERVE_MIN; want /= 2) {
		long p = syscall(SYS_mmap, NULL, want, PROT_READ | PROT_WRITE,
		                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p != -1) {
			/* ownheap__len first: ownheap__has reads ownheap__base, then ownheap__len */
			__atomic_store_n(&ownheap__len, want, __ATOMIC_RELAXED);
			__atomic_store_n(&ownheap__base, (char *)p, __ATOMIC_RELEASE);
			return 0;
		}
	}
	return -ENOMEM;
}

static inline struct hdr *hdr_of(const void *p)
{
	return (struct hdr *)((uintptr_t)p - HDR);
}

static inline size_t class_bytes(unsigned c)
{
	return (size_t)HDR << c;
}

void *ownheap__alloc(size_t n, size_t align, bool zero)
{
	size_t need, cb;
	unsigned c = 0;
	char *blk, *user;
	struct hdr *h;

	if (align < HDR)
		align = HDR;
	if ((align & (align - 1)) || n > RESERVE_MAX || align > RESERVE_MAX / 2) {
		errno = align & (align - 1) ? EINVAL : ENOMEM;
		return NULL;
	}
	need = HDR + n + (align > HDR ? align : 0);
	while (class_bytes(c) < need)
		c++;
	cb = class_bytes(c);
	lock_take();
	if (!ownheap__base && reserve() < 0) {
		lock_give();
		errno = ENOMEM;
		return NULL;
	}
	if (freel[c]) {
		blk = freel[c];
		freel[c] = *(void **)blk;
	} else {
		/* Blocks of a class are aligned to min(class, page) within the
		   reservation: alignments up to a page cost no extra room. */
		size_t a = cb < 4096 ? cb : 4096, at = (used + a - 1) & ~(a - 1);
		if (at > ownheap__len || cb > ownheap__len - at) {
			lock_give();
			errno = ENOMEM;
			return NULL;
		}
		blk = ownheap__base + at;
		used = at + cb;
	}
	nblocks++;
	nbytes += cb;
	lock_give();
	user = (char *)(((uintptr_t)blk + HDR + align - 1) & ~(uintptr_t)(align - 1));
	h = hdr_of(user);
	h->cls = MAGIC | c;
	h->back = (uint32_t)(user - blk);
	h->shadow = NULL;
	if (zero)
		memset(user, 0, n);
	return user;
}

size_t ownheap__usable(const void *p)
{
	const struct hdr *h = hdr_of(p);

	return class_bytes(h->cls & 0xff) - h->back;
}

void **ownheap__shadow(void *p)
{
	return &hdr_of(p)->shadow;
}

void ownheap__free(void *p)
{
	struct hdr *h = hdr_of(p);
	unsigned c = h->cls & 0xff;
	char *blk = (char *)p - h->back;

	if ((h->cls & ~0xffu) != MAGIC || c >= NCLASS)
		return;          /* not a block of ours (or freed twice): leave it */
	h->cls = 0;
	if (c >= BIG_CLASS)
		madvise(blk + 4096, class_bytes(c) - 4096, MADV_DONTNEED);
	lock_take();
	*(void **)blk = freel[c];
	freel[c] = blk;
	nblocks--;
	nbytes -= class_bytes(c);
	lock_give();
}

void *ownheap__realloc(void *p, size_t n)
{
	size_t have;
	void *q;

	if (!p)
		return ownheap__alloc(n, 0, false);
	if (n == 0) {
		ownheap__free(p);
		return NULL;
	}
	have = ownheap__usable(p);
	if (n <= have)
		return p;
	q = ownheap__alloc(n, 0, false);
	if (!q)
		return NULL;
	memcpy(q, p, have);
	*ownheap__shadow(q) = *ownheap__shadow(p);
	ownheap__free(p);
	return q;
}

/* Without the lock (async-signal-safe: the fatal-signal flush logs them). */
void ownheap__stats(uint64_t *blocks, uint64_t *bytes, uint64_t *reserved_used)
{
	*blocks = __atomic_load_n(&nblocks, __ATOMIC_RELAXED);
	*bytes = __atomic_load_n(&nbytes, __ATOMIC_RELAXED);
	*reserved_used = __atomic_load_n(&used, __ATOMIC_RELAXED);
}

/* fork: no other thread may be inside the heap while the address space is
   copied; the child has one thread and the heap as it was. */
void ownheap__atfork_prepare(void)
{
	lock_take();
}

void ownheap__atfork_release(void)
{
	lock_give();
}
