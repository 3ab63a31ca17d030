/* SPDX-License-Identifier: BSD-3-Clause */
/* flush.c — every write of a thread's profile is decided here: the final
   profile at the thread's end (flush__thread_end), every live thread's at
   process exit or before an exec (flush__all), and the periodic snapshots.
   output.c formats and writes the files; this file says when, by whom, and
   makes sure a snapshot never replaces a final profile.

   Periodic flush: every `flush_interval` seconds of wall time the
   profile of every live thread whose measurement changed since its last
   snapshot is re-written, so that a process killed without warning
   (SIGKILL, OOM killer) loses at most the last interval.

   Who writes the snapshots:
     - while the process has one thread (and in every process that never
       creates one: shells, compilers, most tools), the thread itself, at the
       end of a sample in its SIGTRAP handler (flush__self): the profile
       writer is async-signal-safe and the thread's records are not moving.
       No extra thread, so the program stays single-threaded (unshare(2) of
       a user namespace, for one, requires that);
     - from the program's first pthread_create on, a helper thread of the
       runtime (not measured, every signal blocked) that wakes every
       interval and writes the snapshots of all live threads. It leaves
       when the last measured thread has (a main thread that called
       pthread_exit: glibc ends the process with its last thread, and the
       helper must not be that thread for ever).

   A helper snapshot is read while its thread keeps running: the thread's
   node and event counts are published with release stores (cct.c,
   record.c) and read with acquire here, events first, so every event
   written refers to a node written; a node or event being filled at that
   instant may be written half-filled (its ids are still in range), and the
   thread's final profile, written at its exit, replaces the snapshot.
   Lifetime: a thread marks itself final and leaves the registry under
   `lock`, which the helper holds while it reads that thread, so its memory
   cannot go away under the helper. A thread's snapshot is claimed with
   snap.busy (helper or self, never both). Process exit (possibly in a
   fatal-signal handler, so no lock there) sets `stopping` and waits for the
   helper to be idle (quiesce) before the final flush: a snapshot
   can never replace a final profile. flush__self and flush__all run in
   signal context (atomics, the profile writer, sched_yield, nanosleep). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/alloc/ownheap.h"

#define HELPER_STACK (256u << 10)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;    /* the last measured thread left (CLOCK_MONOTONIC) */
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static int busy;               /* the helper is inside a snapshot (seq_cst) */
static int running;            /* a helper thread exists (or is starting) in this process */
static int nlive;              /* measured threads in the registry (atomic) */

static void wake_init(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&wake, &a);
	pthread_condattr_destroy(&a);
}

static uint64_t activity(const struct rt_thread *t)
{
	return __atomic_load_n(&t->events.n, __ATOMIC_RELAXED) + t->cnt.samples + t->cnt.traps +
	       t->cnt.samples_blocked + t->cnt.samples_in_runtime + t->cnt.allocs_tracked + t->cnt.frees_tracked;
}

/* One pass over the registry. */
static void flush_pass(struct rt_thread *copy, uint8_t *wbuf)
{
	unsigned written = 0, failed = 0;

	for (int i = 0; i < HC_MAX_LIVE; i++) {
		struct rt_thread *t;

		if (!__atomic_load_n(&hc_rt.live[i], __ATOMIC_RELAXED))
			continue;
		pthread_mutex_lock(&lock);
		__atomic_store_n(&busy, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&hc_rt.stopping, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&busy, 0, __ATOMIC_SEQ_CST);
			pthread_mutex_unlock(&lock);
			return;
		}
		t = __atomic_load_n(&hc_rt.live[i], __ATOMIC_ACQUIRE);
		if (t && !t->snap.final && !__atomic_load_n(&t->safety.flushed, __ATOMIC_ACQUIRE) &&
		    !__atomic_exchange_n(&t->snap.busy, 1, __ATOMIC_ACQ_REL)) {
			uint64_t key = activity(t);
			if (!t->snap.written || key != t->snap.key) {
				if (output__write_snapshot(t, copy, wbuf) == 0) {
					t->snap.written = 1;
					t->snap.key = key;
					written++;
				} else {
					failed++;
				}
			}
			__atomic_store_n(&t->snap.busy, 0, __ATOMIC_RELEASE);
		}
		__atomic_store_n(&busy, 0, __ATOMIC_SEQ_CST);
		pthread_mutex_unlock(&lock);
	}
	if (failed)
		process__log("periodic flush: %u profiles written, %u failed", written, failed);
}

static void *helper(void *arg)
{
	struct timespec next;
	struct rt_thread *copy;
	uint8_t *wbuf;

	(void)arg;
	ownheap__enter();        /* for its whole life: every block it allocates is the runtime's */
	/* The record is 64-byte aligned (struct rt_thread): malloc's 16 is not
	   enough (UBSan: misaligned member access in output__write_snapshot). */
	copy = ownheap__alloc(sizeof *copy, _Alignof(struct rt_thread), false);
	wbuf = ownheap__alloc(HC_WRITE_BUF, 0, false);
	if (!copy || !wbuf) {
		process__log("periodic flush: out of memory: no periodic flush in this process");
		if (copy)
			ownheap__free(copy);
		if (wbuf)
			ownheap__free(wbuf);
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&lock);
	for (;;) {
		next.tv_sec += (time_t)hc_rt.opt.flush_interval;
		while (__atomic_load_n(&nlive, __ATOMIC_ACQUIRE) > 0 &&
		       pthread_cond_timedwait(&wake, &lock, &next) != ETIMEDOUT)
			;
		/* Every measured thread has left (the main thread by
		   pthread_exit): the helper must not keep the process alive
		   (glibc ends it when its last thread exits). A thread created
		   later starts a new helper (flush__need_helper). */
		if (__atomic_load_n(&nlive, __ATOMIC_ACQUIRE) == 0)
			break;
		pthread_mutex_unlock(&lock);
		if (!__atomic_load_n(&hc_rt.stopping, __ATOMIC_ACQUIRE))
			flush_pass(copy, wbuf);
		pthread_mutex_lock(&lock);
	}
	__atomic_store_n(&running, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	ownheap__free(copy);
	ownheap__free(wbuf);
	return NULL;
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
extern pthread_create_fn thread__real_pthread_create(void);

/* Process start (and a forked child): say how flushing will happen. */
void flush__start(void)
{
	if (hc_rt.opt.flush_interval)
		process__log("periodic flush: every %llu s of wall time (by the thread itself while the process "
		        "has one, then by a helper thread of the runtime)",
		        (unsigned long long)hc_rt.opt.flush_interval);
	else
		process__log("periodic flush: off (profiles are written at thread and process end)");
}

/* The program is about to create a thread (pthread_create wrapper, not
   signal context): from now on the helper writes the snapshots. */
void flush__need_helper(void)
{
	pthread_attr_t attr;
	sigset_t all, old;
	pthread_t th;
	void *stk;
	int err;

	if (!hc_rt.opt.flush_interval || __atomic_load_n(&running, __ATOMIC_ACQUIRE) ||
	    __atomic_exchange_n(&running, 1, __ATOMIC_ACQ_REL))
		return;
	pthread_once(&wake_once, wake_init);
	/* The helper must never run the program's signal handlers: it is born
	   with every signal blocked (synchronous faults still reach it). */
	sigfillset(&all);
	sigmask__real(SIG_SETMASK, &all, &old);   /* SIGTRAP too (sigmask.c) */
	/* Its stack is the runtime's own mapping, not one from glibc's stack
	   cache (where the program's next thread could find it after the
	   helper left); the DTV glibc callocs for it comes from the runtime's
	   heap (ownheap.c). Each helper gets a new stack: one whose thread
	   may still be leaving is never reused (helpers are rare: one, plus
	   one after every time all measured threads had left). */
	ownheap__enter();
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	stk = (void *)syscall(SYS_mmap, NULL, HELPER_STACK, PROT_READ | PROT_WRITE,
	                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (stk != MAP_FAILED) {
		mprotect(stk, 4096, PROT_NONE);      /* guard page */
		pthread_attr_setstack(&attr, (char *)stk + 4096, HELPER_STACK - 4096);
	} else {
		pthread_attr_setstacksize(&attr, HELPER_STACK);
	}
	err = thread__real_pthread_create()(&th, &attr, helper, NULL);
	pthread_attr_destroy(&attr);
	if (err && stk != MAP_FAILED)
		munmap(stk, HELPER_STACK);
	ownheap__leave();
	sigmask__real(SIG_SETMASK, &old, NULL);
	if (err) {
		process__log("periodic flush: cannot start the helper thread: %s: threads are flushed at exit only",
		        strerror(err));
		return;
	}
	process__log("periodic flush: helper thread started (the program creates threads)");
}

/* End of a sample, in the thread's SIGTRAP handler (guard held): while no
   helper exists, the thread writes its own snapshot when one is due. */
void flush__self(struct rt_thread *t)
{
	uint64_t now, key;

	if (!hc_rt.opt.flush_interval || __atomic_load_n(&running, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&hc_rt.stopping, __ATOMIC_ACQUIRE) || t->snap.final)
		return;
	now = process__now();
	if (!t->snap.next_ns) {
		t->snap.next_ns = t->id.start_ns + hc_rt.opt.flush_interval * 1000000000ull;
		return;
	}
	if (now < t->snap.next_ns || __atomic_exchange_n(&t->snap.busy, 1, __ATOMIC_ACQ_REL))
		return;
	key = activity(t);
	if ((!t->snap.written || key != t->snap.key) && output__write_own_snapshot(t) == 0) {
		t->snap.written = 1;
		t->snap.key = key;
	}
	t->snap.next_ns = now + hc_rt.opt.flush_interval * 1000000000ull;
	__atomic_store_n(&t->snap.busy, 0, __ATOMIC_RELEASE);
}

/* Process exit: after `stopping` is set, wait (bounded) until the helper is
   outside any snapshot. Async-signal-safe. */
static void quiesce(void)
{
	for (int ms = 0; __atomic_load_n(&busy, __ATOMIC_SEQ_CST) && ms < 5000; ms++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

/* At process exit (or before exec), after `stopping` is set: every live
   thread's final profile. Async-signal-safe (the fatal-signal path calls
   it). Other threads may still run; their handlers refuse samples once
   `stopping` is set; wait briefly for a handler that is already running. */
void flush__all(void)
{
	quiesce();                  /* no periodic snapshot after this point */
	sampler__process_stop();
	for (int i = 0; i < HC_MAX_LIVE; i++) {
		struct rt_thread *t = __atomic_load_n(&hc_rt.live[i], __ATOMIC_ACQUIRE);
		if (!t)
			continue;
		for (int spin = 0; t->safety.in_handler && spin < 10000; spin++)
			sched_yield();
		if (!t->id.end_ns)
			t->id.end_ns = process__now();
		if (!__atomic_exchange_n(&t->safety.flushed, 1, __ATOMIC_ACQ_REL))
			output__write_profile(t);
	}
	/* Threads that were already writing their own profile when the process
	   began to exit: give them up to 2 s to finish (async-signal-safe). */
	for (int ms = 0; __atomic_load_n(&hc_rt.writing, __ATOMIC_ACQUIRE) > 0 && ms < 2000; ms++) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

void flush__thread_final(struct rt_thread *t)
{
	pthread_mutex_lock(&lock);
	t->snap.final = 1;
	pthread_mutex_unlock(&lock);
}

/* The thread's end (thread.c, its sampler stopped): its final profile,
   unless the process-exit flush wrote it already, then out of the registry. */
void flush__thread_end(struct rt_thread *t)
{
	HC_ASSERT(t->snap.final);        /* flush__thread_final first: no snapshot races the write */
	/* Announce the write before claiming it: an exit in another thread
	   waits for it (flush__all) instead of ending the process mid-write. */
	__atomic_add_fetch(&hc_rt.writing, 1, __ATOMIC_ACQ_REL);
	if (!__atomic_exchange_n(&t->safety.flushed, 1, __ATOMIC_ACQ_REL))
		output__write_profile(t);
	__atomic_sub_fetch(&hc_rt.writing, 1, __ATOMIC_ACQ_REL);
	if (t->id.slot < 0)
		return;
	pthread_mutex_lock(&lock);
	__atomic_store_n(&hc_rt.live[t->id.slot], NULL, __ATOMIC_RELEASE);
	if (__atomic_sub_fetch(&nlive, 1, __ATOMIC_ACQ_REL) == 0 && __atomic_load_n(&running, __ATOMIC_ACQUIRE))
		pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
}

/* A thread entered the registry (thread.c; no lock: the helper may hold it
   for a snapshot's write, which thread creation must not wait for). */
void flush__thread_added(void)
{
	__atomic_add_fetch(&nlive, 1, __ATOMIC_ACQ_REL);
}

/* In a forked child: no helper, and the lock may have been copied held. */
void flush__atfork_child(void)
{
	pthread_mutex_init(&lock, NULL);
	if (__atomic_load_n(&wake_once, __ATOMIC_RELAXED) != PTHREAD_ONCE_INIT)
		wake_init();            /* may have been copied mid-wait */
	busy = 0;
	running = 0;
	nlive = 0;
}
