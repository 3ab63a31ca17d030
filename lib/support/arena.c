/* SPDX-License-Identifier: BSD-3-Clause */
/* arena.c — the bump arena (see arena.h). The idea: reserve once with
   MAP_NORESERVE so untouched pages cost nothing, then allocate by advancing an
   offset with compare-and-swap, which makes hc_arena_alloc safe against a
   signal handler interrupting it on the same thread. Only init and destroy
   make system calls; hc_arena_alloc runs in signal context. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "support/arena.h"

int hc_arena_init(struct hc_arena *a, size_t reserve_bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len;
	void *p;

	a->base = NULL;
	a->reserve = 0;
	a->used = 0;
	if (reserve_bytes == 0 || reserve_bytes > SIZE_MAX - page)
		return -EINVAL;
	len = (reserve_bytes + page - 1) & ~(page - 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
	         -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	a->base = p;
	a->reserve = len;
	return 0;
}

void *hc_arena_alloc(struct hc_arena *a, size_t size, size_t align)
{
	size_t old, start, end;

	if (align == 0)
		align = 16;
	if ((align & (align - 1)) != 0 || !a->base)
		return NULL;
	if (size == 0)
		size = 1;          /* distinct allocations get distinct addresses */
	old = __atomic_load_n(&a->used, __ATOMIC_RELAXED);
	do {
		/* Align the address, not just the offset: base is page aligned,
		   but align may exceed the page size. */
		uintptr_t addr = (uintptr_t)a->base + old;
		uintptr_t aligned = (addr + align - 1) & ~(uintptr_t)(align - 1);

		if (aligned < addr)
			return NULL;
		start = old + (size_t)(aligned - addr);
		if (start > a->reserve || size > a->reserve - start)
			return NULL;
		end = start + size;
	} while (!__atomic_compare_exchange_n(&a->used, &old, end, true,
	                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return a->base + start;
}

size_t hc_arena_used(const struct hc_arena *a)
{
	return __atomic_load_n(&a->used, __ATOMIC_RELAXED);
}

void hc_arena_destroy(struct hc_arena *a)
{
	char *base = a->base;
	size_t len = a->reserve;

	/* Clear first: the descriptor may live inside its own arena. */
	a->base = NULL;
	a->reserve = 0;
	a->used = 0;
	if (base)
		munmap(base, len);
}
