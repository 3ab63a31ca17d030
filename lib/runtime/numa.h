/* SPDX-License-Identifier: BSD-3-Clause */
/* numa.h — NUMA nodes of the pages of recorded events (numa.c). */
#ifndef HC_RT_NUMA_H
#define HC_RT_NUMA_H

#include <stdbool.h>
#include <stdint.h>
#include "hc/profile.h"

struct rt_thread;
struct rt_numa_thread;

/* Process start: decide whether to record, read an injected page map. */
void numa__init(void);
bool numa__on(void);
/* Thread start: its page cache and per-event array from its arena (none
   when off or the arena is full: the thread records no page nodes). */
void numa__thread_start(struct rt_thread *t, uint32_t events_cap);
/* Signal context: the nodes of event's two addresses (before the event is
   published). */
void numa__note(struct rt_thread *t, uint32_t event, uint64_t addr, uint64_t peer_addr,
                   uint64_t now);
/* The PNOD section of t's profile (nothing when t records none). */
int numa__write(struct hc_prof_writer *w, const struct rt_thread *t);

#endif
