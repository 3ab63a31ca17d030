/* SPDX-License-Identifier: BSD-3-Clause */
/* arena.h — a per-thread bump allocator over one reserved mapping, for the
   runtime's data that signal handlers create (calling-context nodes, event
   buffers). hc_arena_init reserves address space outside signal context
   (mmap PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_NORESERVE): no
   memory is committed and no page is touched until an allocation is first
   written, so a generous reservation per thread costs only address space.
   hc_arena_alloc is async-signal-safe and lock-free: one compare-and-swap on
   the bump offset, so an allocation interrupted by a signal handler that
   allocates from the same arena (or another thread using it) stays correct.
   When the reservation is exhausted it returns NULL and the caller counts the
   loss; nothing is ever freed individually. Memory is zero-filled. */
#ifndef HC_SUPPORT_ARENA_H
#define HC_SUPPORT_ARENA_H

#include <stddef.h>

struct hc_arena {
	char  *base;       /* start of the reservation, NULL when not initialized */
	size_t reserve;    /* bytes reserved (page multiple) */
	size_t used;       /* bump offset; only changed by compare-and-swap */
};

/* Reserve reserve_bytes (rounded up to pages). 0 or -errno. Not signal-safe. */
int hc_arena_init(struct hc_arena *a, size_t reserve_bytes);
/* size bytes aligned to align (a power of two; 0 means 16), or NULL when the
   reservation is exhausted or the arguments are invalid. Async-signal-safe. */
void *hc_arena_alloc(struct hc_arena *a, size_t size, size_t align);
/* Bytes handed out so far (including alignment gaps). */
size_t hc_arena_used(const struct hc_arena *a);
/* Unmap everything; the arena may be initialized again. The descriptor may
   itself live in the arena (it is cleared before the unmap). Not signal-safe. */
void hc_arena_destroy(struct hc_arena *a);

#endif
