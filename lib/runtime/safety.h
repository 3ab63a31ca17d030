/* SPDX-License-Identifier: BSD-3-Clause */
/* safety.h — the rulebook for every asynchronous entry into the runtime
   (sample handler, trap handler, fatal-signal flush) and for every wrapper
   that can be interrupted by them. Read this before touching handler code.

   Rules, in this order, for every asynchronous entry:
     1. Save errno first, restore it last.
     2. Find the thread (hc_self); no thread record → count nothing, return.
     3. Refuse when the re-entrancy guard is set (the runtime is busy on this
        thread: in a wrapper, unwinding, writing) or the process is shutting
        down: count the sample as blocked and return.
     4. Set the guard, do the work, clear the guard.
   Inside the work:
     - no malloc/free, no stdio, no locks, no getenv, no dl* calls;
     - memory only from the thread's arena (out of memory → count, drop);
     - only async-signal-safe system calls (write, ioctl, clock_gettime...);
     - every dropped thing has a counter.
   Wrappers (malloc family, pthread_create, fork, exec...) set the guard
   around their bookkeeping so a sample arriving then is refused, not run
   on half-updated state. The one exception is the allocation wrappers' hit
   path (alloc/track.h, track__block/track__free), the per-allocation cost: it only
   reads per-thread state and writes shadow words, stays inside this
   library, and the handlers refuse every sample or trap whose PC lies in
   this library (loadmap__pc_in_self), guard or not. Anything it calls out of
   line sets the guard. */
#ifndef HC_RT_SAFETY_H
#define HC_RT_SAFETY_H

#include <errno.h>
#include <stdbool.h>
#include "runtime/rt.h"

/* Try to enter runtime code on this thread. Returns false (and leaves the
   guard alone) if already inside. Compiler barriers keep the flag's store
   ordered with the work it protects (signals are delivered on this thread). */
static inline bool hc_guard_enter(struct rt_thread *t)
{
	if (t->safety.busy)
		return false;
	t->safety.busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return true;
}

static inline void hc_guard_leave(struct rt_thread *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->safety.busy = 0;
}

/* This thread enters the loader (dlopen, dlclose, a walk of the load
   map): until hc_loader_leave, a sample's or trap's walk is dropped
   (unwind_loader_gated) instead of unwinding into the loader's lock.
   Unlike the guard, the program's own code run meanwhile (a library's
   constructors) keeps allocating from its own heap. Returns the previous
   state, for nesting. */
static inline int hc_loader_enter(struct rt_thread *t)
{
	int was;

	if (!t)
		return 0;
	was = t->safety.in_loader;
	t->safety.in_loader = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return was;
}

static inline void hc_loader_leave(struct rt_thread *t, int was)
{
	if (!t)
		return;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->safety.in_loader = was;
}

#endif
