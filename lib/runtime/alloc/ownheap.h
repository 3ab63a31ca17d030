/* SPDX-License-Identifier: BSD-3-Clause */
/* ownheap.h — the runtime's own heap (ownheap.c): what the allocation
   wrappers (alloc.c) serve instead of the program's malloc when the
   allocation is the runtime's, and the guard that says so. */
#ifndef HC_RT_OWNHEAP_H
#define HC_RT_OWNHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* > 0 while this thread runs the runtime's own code that may allocate
   through libc or a library (start-up, thread start and end, the flush
   helper, exit, exec's environment...): every allocation made meanwhile is
   the runtime's. Nests; ownheap__enter/leave around such code. */
extern __thread int ownheap__depth __attribute__((tls_model("initial-exec")));
static inline void ownheap__enter(void) { ownheap__depth++; }
static inline void ownheap__leave(void) { ownheap__depth--; }

/* n bytes aligned to align (0 or a power of two; at least 16), zeroed if
   asked; NULL with errno set when out of room. */
void *ownheap__alloc(size_t n, size_t align, bool zero);
void *ownheap__realloc(void *p, size_t n);
void ownheap__free(void *p);
/* Is p inside the runtime's heap? (Any pointer; free() asks for every
   block, so inline: one load and one comparison while the heap is unused.) */
extern char *ownheap__base;
extern size_t ownheap__len;
static inline bool ownheap__has(const void *p)
{
	const char *b = __atomic_load_n(&ownheap__base, __ATOMIC_ACQUIRE);

	return b && (uintptr_t)p - (uintptr_t)b < __atomic_load_n(&ownheap__len, __ATOMIC_RELAXED);
}
size_t ownheap__usable(const void *p);
/* The block's shadow slot (NULL unless alloc.c set one). */
void **ownheap__shadow(void *p);
/* Live blocks, their bytes, bytes of the reservation used so far
   (async-signal-safe, a racy snapshot). */
void ownheap__stats(uint64_t *blocks, uint64_t *bytes, uint64_t *reserved_used);
void ownheap__atfork_prepare(void);
void ownheap__atfork_release(void);

#endif
