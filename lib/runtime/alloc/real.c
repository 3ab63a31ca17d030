/* SPDX-License-Identifier: BSD-3-Clause */
/* real.c — the real allocation functions (dlsym(RTLD_NEXT), once, by the
   first caller) and the boot buffer that serves the allocations made
   before they are found: dlsym itself calls calloc. The buffer is a bump
   allocator, zero-filled and never reused or freed. Built without ASan
   with the wrappers (lib/runtime/Makefile.inc). Not signal context. */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "runtime/alloc/real.h"

struct rt_real_fns real__fn;
int real__state;
char real__boot_buf[REAL_BOOT_SIZE] __attribute__((aligned(64)));

static __thread int resolving __attribute__((tls_model("initial-exec")));
static size_t boot_used;

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
	*(void **)&real__fn.name = dlsym(RTLD_NEXT, #name); \
	if (!real__fn.name) die(#name); \
} while (0)

bool real__resolve(void)
{
	int expect = 0;

	if (real__ready())
		return true;
	if (resolving || !__atomic_compare_exchange_n(&real__state, &expect, 1, false,
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
	__atomic_store_n(&real__state, 2, __ATOMIC_RELEASE);
	return true;
}

/* The size sits in the 16 bytes before each block. */
void *real__boot_alloc(size_t n, size_t align)
{
	size_t old = __atomic_load_n(&boot_used, __ATOMIC_RELAXED), start;

	if (align < 16)
		align = 16;
	do {
		start = (old + 16 + align - 1) & ~(align - 1);
		if (n > REAL_BOOT_SIZE || start > REAL_BOOT_SIZE - n) {
			errno = ENOMEM;
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&boot_used, &old, start + n, true,
	                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*(size_t *)(real__boot_buf + start - 16) = n;
	return real__boot_buf + start;
}
