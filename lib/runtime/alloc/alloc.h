/* SPDX-License-Identifier: BSD-3-Clause */
/* alloc.h — heap allocation tracking (lib/runtime/alloc, doc/objects.md):
   the per-thread section of struct rt_thread and the calls the rest of the
   runtime makes (thread start: track.c; one call per recorded event and
   the profile section: objects.c). The wrappers of the allocation family
   themselves are exported from alloc.c and need no declaration here. */
#ifndef HC_RT_ALLOC_H
#define HC_RT_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hc/profile.h"
#include "runtime/alloc/blocks.h"

struct rt_thread;
struct rt_ctx_entry;

/* A thread's allocation-tracking state (struct rt_thread .alloc). Only its
   own thread writes it, under the re-entrancy guard; the signal handler
   appends object records (objects__note_event) while the guard is held by
   the handler itself. */
struct rt_alloc_thread {
	bool on;                          /* this thread tracks its allocations */
	uint32_t verify;                  /* context-cache hits until the next full check */
	uint64_t min;                     /* smallest tracked size (>= 1), UINT64_MAX when off */
	struct rt_ctx_entry *ctx;         /* allocation-context cache (arena) */
	uint32_t *shadow;                 /* blocks__shadow(), NULL: use the leaf cache */
	uint64_t bad;                     /* RT_BLK_BAD; all ones when shadow is NULL */
	struct rt_leaf_cache leaves;      /* shadow leaves used recently */
	struct hc_prof_object *obj;       /* object records of this thread's events (arena) */
	uint32_t nobj, capobj;
};

/* track.c: set up t's tracking (the block table, the context cache, the
   object buffer); called by thread__begin before the thread is published.
   0 or -ENOMEM (the thread is measured, its allocations are not tracked). */
int track__thread_start(struct rt_thread *t);

/* objects.c: t's object buffer, from its arena (track__thread_start);
   0 or -ENOMEM. */
int objects__thread_start(struct rt_thread *t);
/* Event t->events.v[ev] was just recorded: resolve its two addresses to
   live heap blocks and keep an object record for each. Signal context. */
void objects__note_event(struct rt_thread *t, uint32_t ev);
/* Write t's object records (the OBJS section) if it has any. */
int objects__write(struct hc_prof_writer *w, const struct rt_thread *t);

#endif
