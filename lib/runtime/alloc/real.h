/* SPDX-License-Identifier: BSD-3-Clause */
/* real.h — the real allocation functions behind the wrappers (real.c):
   found once with dlsym(RTLD_NEXT); until they are (dlsym itself calls
   calloc), requests are served from a static boot buffer that is never
   freed. Not signal context. */
#ifndef HC_RT_REAL_H
#define HC_RT_REAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define REAL_BOOT_SIZE (64u << 10)

struct rt_real_fns {
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
};

/* The real functions: usable once real__ready() (or real__resolve()) said so.
   Declared hidden so the wrappers reach them PC-relative, as they did when
   this was a file-static of alloc.c (not through the GOT). */
#define REAL_HIDDEN __attribute__((visibility("hidden")))
extern REAL_HIDDEN struct rt_real_fns real__fn;
extern REAL_HIDDEN int real__state;    /* 0 unresolved, 1 resolving, 2 ready */
extern REAL_HIDDEN char real__boot_buf[REAL_BOOT_SIZE];

/* Are the real functions found? (Inline: every wrapper asks first.) */
static inline bool real__ready(void)
{
	return __builtin_expect(__atomic_load_n(&real__state, __ATOMIC_ACQUIRE) == 2, 1);
}

/* Find the real functions once. False while they are not usable on this
   thread (dlsym is running here or in another thread): the caller serves
   the request from the boot buffer. No real allocator at all: the process
   exits with status 127 and a message. */
bool real__resolve(void);

/* n bytes from the boot buffer aligned to align, zero-filled; NULL with
   errno ENOMEM when it is exhausted. */
void *real__boot_alloc(size_t n, size_t align);

static inline bool real__is_boot(const void *p)
{
	return (uintptr_t)p - (uintptr_t)real__boot_buf < REAL_BOOT_SIZE;
}

/* The size asked for the boot block p. */
static inline size_t real__boot_size(const void *p)
{
	return *(const size_t *)((const char *)p - 16);
}

#endif
