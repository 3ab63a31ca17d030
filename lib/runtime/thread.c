/* SPDX-License-Identifier: BSD-3-Clause */
/* thread.c — one measured thread from birth to profile: pthread_create is
   interposed so every new thread gets its number (creation order, main = 0),
   its creator and creation context, its own memory (one arena holding the
   record, the sigaltstack, the CCT and the event buffers), its sampler and
   watchpoints; a pthread key destructor tears it down and has flush.c write
   its profile on every exit path (return, pthread_exit, cancellation). Not signal
   context, but every step that touches state a handler reads runs under the
   thread's re-entrancy guard. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <sanitizer/asan_interface.h>   /* ASAN_UNPOISON_MEMORY_REGION: a no-op without ASan */
#include "runtime/rt.h"
#include "runtime/safety.h"
#include "runtime/numa.h"
#include "runtime/alloc/ownheap.h"
#include "runtime/alloc/track.h"
#include "runtime/sampler/soft.h"

#define ARENA_RESERVE   (320ull << 20)  /* address space per thread, touched on use */
#define ALTSTACK_SIZE   (128u << 10)
#define CCT_CAP         (1u << 20)

/* Arenas of exited threads, kept for the next threads (doc/reliability.md): a fresh
   arena costs an mmap and a page fault for every page its start touches
   (the record, the CCT's hash: ~12 faults, 5-8 µs each on this loaded VM),
   a recycled one neither. Slots hold the arena's base; taken and given
   back with atomic exchanges (no lock: fork-safe). An arena is kept only
   if its thread stayed small (POOL_KEEP bytes of events and CCT nodes), so
   the pool holds at most POOL_MAX x (record + stacks + those) of memory. */
#define POOL_MAX        32
#define POOL_KEEP       (1u << 20)

static char *pool[POOL_MAX];
static size_t pool_prefix;      /* arena bytes of thread__begin's fixed allocations */

static char *pool_get(void)
{
	for (int i = 0; i < POOL_MAX; i++)
		if (__atomic_load_n(&pool[i], __ATOMIC_RELAXED)) {
			char *b = __atomic_exchange_n(&pool[i], NULL, __ATOMIC_ACQUIRE);
			if (b)
				return b;
		}
	return NULL;
}

static bool pool_put(char *b)
{
	for (int i = 0; i < POOL_MAX; i++) {
		char *none = NULL;
		if (__atomic_compare_exchange_n(&pool[i], &none, b, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			return true;
	}
	return false;
}

/* The thread's arena, back to the state of a fresh one where that matters:
   the record zeroed (fresh memory is zero: thread__begin does not clear
   it), everything allocated after the fixed part (CCT hash growth, the
   allocation tracker's tables) given back to the kernel, so that it reads
   zero again. The fixed part's other blocks need no clearing: the altstack
   and the write buffer are scratch, events and CCT nodes are written before
   they are read (cct.c clears a node when it creates it), the root and the
   hash are set up by cct__init, and the previous-instruction cache holds
   facts about the process's code (keyed by PC and code generation), as
   true for the next thread as for this one. Else the arena is unmapped. */
static void arena_recycle(struct rt_thread *t)
{
	struct hc_arena a = t->arena;
	size_t prefix = __atomic_load_n(&pool_prefix, __ATOMIC_RELAXED);
	size_t big = (size_t)t->events.n * sizeof *t->events.v + (size_t)t->cct.n * sizeof *t->cct.nodes;

	if (!prefix || a.used < prefix || a.reserve != ARENA_RESERVE || big > POOL_KEEP ||
	    (uint32_t)getpid() != t->id.pid) {
		thread__arena_release(&t->arena);
		return;
	}
	if (a.used > prefix)
		madvise(a.base + prefix, a.used - prefix, MADV_DONTNEED);
	if (t->sampler.own)             /* in the kept prefix: cleared for the next thread */
		memset(t->sampler.own, 0, sampler__thread_size());
	memset(t, 0, sizeof *t);        /* t is the arena's first block */
	/* An exit-time flush that found t in the registry before we left it
	   must still see it written (it was). */
	t->safety.flushed = 1;
	t->safety.busy = 1;
	if (!pool_put(a.base))
		munmap(a.base, a.reserve);
}

static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

static void on_thread_exit(void *arg);

static void make_key(void)
{
	pthread_key_create(&exit_key, on_thread_exit);
}

/* For the switch gate (cost.h): measured threads alive now (atomic), and
   the CPUs the process may run on (counted at its first thread's start;
   0 = unknown). A forked child inherits the parent's count, which errs on
   the crowded side (its watchpoints then wait for a window's evidence). */
static uint32_t gate_live, gate_ncpu;

static int registry_add(struct rt_thread *t)
{
	for (int i = 0; i < HC_MAX_LIVE; i++) {
		struct rt_thread *none = NULL;
		if (__atomic_compare_exchange_n(&hc_rt.live[i], &none, t, false,
		                                __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return i;
	}
	return -ENOSPC;
}

static void stack_range(struct rt_thread *t)
{
	pthread_attr_t a;
	void *addr;
	size_t size;
	uint64_t fs;

	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &addr, &size) == 0) {
			t->id.stack_lo = (uint64_t)(uintptr_t)addr;
			t->id.stack_hi = t->id.stack_lo + size;
		}
		pthread_attr_destroy(&a);
	}
	/* Static TLS lies just below the thread pointer on x86-64 (variant II). */
	__asm__ volatile("mov %%fs:0, %0" : "=r"(fs));
	t->id.tls_hi = fs;
	t->id.tls_lo = fs - loadmap__static_tls_size();
	/* glibc keeps a thread's static TLS and descriptor at the top of the
	   stack mapping it reports: the stack proper ends below them. */
	if (t->id.tls_lo > t->id.stack_lo && t->id.tls_lo < t->id.stack_hi)
		t->id.stack_hi = t->id.tls_lo;
}

/* The thread's perf fds within the runtime's fd budget (fds.c): the
   sampler first, then watchpoints while they use at most half the budget,
   so that with a low RLIMIT_NOFILE later threads still get a sampler.
   Every degradation is counted (fds line of the process log) and said once. */
static int start_perf(struct rt_thread *t)
{
	static int said_watch, said_sampler;
	int w = hc_rt.nwatch, room, ret = 0;
	/* The soft sampler's threads inherit their event at clone: no fd. */
	int need = sampler__thread_fds(t);
	/* The main thread always gets its sampler (a process is measured or
	   refused, never silently unsampled); the budget then only shrinks. */
	bool sampler = !need || fds__reserve(need) || (t->id.index == 0 && fds__force(need));

	room = fds__budget() / 2 - fds__held();
	if (w > room)
		w = room > 0 ? room : 0;
	if (w > 0 && !fds__reserve(w))
		w = 0;
	if (w > 0)
		w = watch__thread_start(t, w);
	if (!__atomic_load_n(&gate_ncpu, __ATOMIC_RELAXED)) {
		cpu_set_t cs;

		if (sched_getaffinity(0, sizeof cs, &cs) == 0)
			__atomic_store_n(&gate_ncpu, (uint32_t)CPU_COUNT(&cs), __ATOMIC_RELAXED);
	}
	rt_switch_gate_init(&t->swgate, hc_rt.sampler_kind == HC_SAMPLER_SOFT && !hc_rt.opt.per_thread ?
	                    hc_rt.opt.switch_ns : 0, hc_rt.opt.switch_other_ns, RT_SWITCH_BUDGET_PERMILLE,
	                    RT_SWITCH_WINDOW_NS);
	if (w < hc_rt.nwatch) {
		__atomic_add_fetch(w ? &fds__stats.threads_watch_reduced : &fds__stats.threads_watch_none,
		                   1, __ATOMIC_RELAXED);
		if (!__atomic_exchange_n(&said_watch, 1, __ATOMIC_RELAXED))
			process__log("thread %u: %d of %d watchpoints (the runtime holds %d of its %d fds): "
			        "detection by %s", t->id.index, w, hc_rt.nwatch, fds__held(), fds__budget(),
			        w ? "smaller watchpoint sets" : "samples only");
	}
	if (sampler && (ret = sampler__thread_start(t)) < 0)
		fds__unreserve(need);
	if (!sampler || ret < 0) {
		__atomic_add_fetch(&fds__stats.threads_no_sampler, 1, __ATOMIC_RELAXED);
		if (!__atomic_exchange_n(&said_sampler, 1, __ATOMIC_RELAXED) || t->id.index == 0)
			process__log("thread %u: no sampler: %s (its profile is written, without samples; "
			        "counted in the fds line at exit)", t->id.index,
			        sampler ? strerror(-ret) : "the runtime's fd budget is used up (raise ulimit -n)");
		return ret < 0 ? ret : -EMFILE;
	}
	return 0;
}

static struct rt_thread *thread_begin(uint32_t index, uint32_t creator, uint32_t creation_ctx,
                                      uint64_t start_fn);

/* May the thread open its watchpoints now (its first arm)? Not while it
   switches so often that the un-cloned perf context would cost more than
   the budget, nor, in a crowded process, before a window has shown that
   it does not (cost.h, the context-switch gate). Signal context: one
   getrusage system call. */
bool thread__watch_allowed(struct rt_thread *t)
{
	struct rusage ru;
	uint64_t cpu, sw;
	uint32_t live;

	if (!t->swgate.switch_ns || getrusage(RUSAGE_THREAD, &ru) < 0)
		return true;
	cpu = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
	      ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
	sw = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	live = __atomic_load_n(&gate_live, __ATOMIC_RELAXED);
	if (rt_switch_gate_allows_in(&t->swgate, cpu, sw,
	                             rt_switch_crowded(live, __atomic_load_n(&gate_ncpu, __ATOMIC_RELAXED)))) {
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u: switch gate opens its watchpoints (%llu us of CPU, %llu "
		             "switches, %u live threads)", t->id.index, (unsigned long long)(cpu / 1000),
		             (unsigned long long)sw, live);
		return true;
	}
	t->cnt.watch_gated++;
	return false;
}

/* More live measured threads than CPUs + 1 (cost.h, rt_switch_crowded):
   most switches go from one sibling to another, whose cloned contexts an
   armed process-wide set does not make dearer (watch.c
   pset_armed_cost). Async-signal-safe. */
bool thread__crowded(void)
{
	return rt_switch_crowded(__atomic_load_n(&gate_live, __ATOMIC_RELAXED),
	                         __atomic_load_n(&gate_ncpu, __ATOMIC_RELAXED));
}

/* Measure the calling thread from now on. What libc allocates meanwhile
   (pthread_getattr_np's attribute copies, the main thread's read of
   /proc/self/maps) is the runtime's (ownheap.c). */
struct rt_thread *thread__begin(uint32_t index, uint32_t creator, uint32_t creation_ctx,
                                   uint64_t start_fn)
{
	struct rt_thread *t;

	ownheap__enter();
	t = thread_begin(index, creator, creation_ctx, start_fn);
	ownheap__leave();
	return t;
}

static struct rt_thread *thread_begin(uint32_t index, uint32_t creator, uint32_t creation_ctx,
                                      uint64_t start_fn)
{
	struct hc_arena arena;
	struct rt_thread *t;
	void *warm[4];

	pthread_once(&key_once, make_key);
	if ((arena.base = pool_get())) {
		arena.reserve = ARENA_RESERVE;
		arena.used = 0;
	} else if (hc_arena_init(&arena, ARENA_RESERVE) < 0) {
		__atomic_add_fetch(&hc_rt.threads_unmeasured, 1, __ATOMIC_RELAXED);
		process__log("thread %u: cannot reserve memory: unmeasured", index);
		return NULL;
	}
	/* Fresh arena memory is zero, a recycled arena's record was cleared
	   (arena_recycle): no memset (a fresh arena's pages are touched only as
	   the record's fields are used). The first block is at the base. */
	t = hc_arena_alloc(&arena, sizeof *t, 64);
	t->arena = arena;
	t->safety.busy = 1;
	t->safety.flushed = 0;
	t->id.index = index;
	t->id.creator = creator;
	t->id.creation_ctx = creation_ctx;
	t->id.pid = hc_rt.pid;
	t->id.tid = (uint32_t)syscall(SYS_gettid);
	t->id.start_fn = start_fn;
	t->id.start_ns = process__now();
	t->sampler.fd = -1;
	t->altstack_size = ALTSTACK_SIZE;
	t->altstack = hc_arena_alloc(&t->arena, ALTSTACK_SIZE, 4096);
	/* Our handlers run on this stack (signal__call_on_stack), which ASan
	   does not know as one: a recycled arena can hold the altstack of a
	   thread that was inside a handler when the process forked, whose
	   shadow still marks that handler's redzones; the forked child's first
	   sample on it then reports a stack-buffer-overflow (ASan build). */
	if (t->altstack)
		ASAN_UNPOISON_MEMORY_REGION(t->altstack, ALTSTACK_SIZE);
	t->wbuf = hc_arena_alloc(&t->arena, HC_WRITE_BUF, 4096);
	t->prev = hc_arena_alloc(&t->arena, sizeof *t->prev, 64);
	t->events.v = hc_arena_alloc(&t->arena, (size_t)hc_rt.opt.events_cap * sizeof *t->events.v, 64);
	t->events.cap = hc_rt.opt.events_cap;
	/* The running sampler's own state (its header), zero: fresh arena
	   memory, or cleared by arena_recycle. */
	if (sampler__thread_size())
		t->sampler.own = hc_arena_alloc(&t->arena, sampler__thread_size(), 64);
	numa__thread_start(t, hc_rt.opt.events_cap);
	if (!t->altstack || !t->wbuf || !t->prev || !t->events.v ||
	    (sampler__thread_size() && !t->sampler.own) ||
	    cct__init(t, CCT_CAP) < 0) {
		process__log("thread %u: arena too small: unmeasured", index);
		thread__arena_release(&t->arena);
		__atomic_add_fetch(&hc_rt.threads_unmeasured, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	/* The same for every thread: what a recycled arena keeps as is. */
	__atomic_store_n(&pool_prefix, hc_arena_used(&t->arena), __ATOMIC_RELAXED);
	t->det.thread = index;
	t->det.rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)t->id.tid << 17) ^ t->id.start_ns;
	if (!t->det.rng)
		t->det.rng = 1;
	stack_range(t);
	if (index == 0) {
		rt_main_stack_lo = t->id.stack_lo;
		rt_main_stack_hi = t->id.stack_hi;
	}
	track__thread_start(t);     /* failure: measured, allocations untracked */
	t->id.slot = registry_add(t);
	if (t->id.slot < 0) {
		process__log("thread %u: more than %d live threads: unmeasured", index, HC_MAX_LIVE);
		thread__arena_release(&t->arena);
		__atomic_add_fetch(&hc_rt.threads_unmeasured, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	flush__thread_added();
	__atomic_add_fetch(&gate_live, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&hc_rt.threads_seen, 1, __ATOMIC_RELAXED);
	/* unw_backtrace sets up libunwind's process-wide state on first use
	   (pthread_once, its memory pool): do that here, on the main thread.
	   Every other thread builds its own trace cache (mmap, no malloc, under
	   a lock taken with signals blocked: signal-safe) at its first unwind,
	   so a thread that is never sampled does not pay ~140 µs for it. */
	if (index == 0)
		cct__backtrace(warm, 4);
	hc_self = t;
	pthread_setspecific(exit_key, t);
	if (signal__altstack_on(t) < 0)
		process__log("thread %u: sigaltstack failed: %s", index, strerror(errno));
	if (start_perf(t) < 0 && index == 0)
		return NULL;
	HC_DEBUG_LOG(HC_DBG_THREAD, "T%u started: tid %u, creator %u, stack [%#llx, %#llx), TLS [%#llx, %#llx)",
	             index, t->id.tid, creator, (unsigned long long)t->id.stack_lo,
	             (unsigned long long)t->id.stack_hi, (unsigned long long)t->id.tls_lo,
	             (unsigned long long)t->id.tls_hi);
	hc_guard_leave(t);
	return t;
}

/* Stop sampling, write the profile (unless already written), release. */
static void thread_end(struct rt_thread *t);

void thread__end(struct rt_thread *t)
{
	ownheap__enter();
	thread_end(t);
	ownheap__leave();
}

static void thread_end(struct rt_thread *t)
{
	t->safety.busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	flush__thread_final(t);     /* no periodic snapshot from now on */
	sampler__thread_stop(t);    /* an inherited event runs on: the guard refuses */
	watch__held_flush(t);       /* a held verdict: false (§5.31) */
	watch__thread_stop(t);
	t->id.end_ns = process__now();
	HC_DEBUG_LOG(HC_DBG_THREAD, "T%u ends: %llu samples, %llu detections, %llu traps matched",
	             t->id.index, (unsigned long long)t->cnt.samples,
	             (unsigned long long)t->cnt.detections_sample, (unsigned long long)t->cnt.traps_matched);
	if (t->id.slot >= 0)
		__atomic_sub_fetch(&gate_live, 1, __ATOMIC_RELAXED);
	flush__thread_end(t);       /* its profile, then out of the registry */
	if (hc_self == t) {
		hc_self = NULL;
		signal__altstack_off(t);
		arena_recycle(t);
		return;
	}
	thread__arena_release(&t->arena);
}

static void on_thread_exit(void *arg)
{
	struct rt_thread *t = arg;

	/* The process-exit flush may be writing our profile concurrently. */
	if (__atomic_load_n(&hc_rt.stopping, __ATOMIC_ACQUIRE)) {
		t->safety.busy = 1;
		return;
	}
	thread__end(t);
}

/* ---------------- pthread_create interposition ---------------- */

struct start_args {
	void *(*fn)(void *);
	void *arg;
	uint32_t index, creator, creation_ctx;
	int trap_blocked;       /* the application's SIGTRAP wish (sigmask.c) */
};

static void *thread_trampoline(void *p)
{
	struct start_args a = *(struct start_args *)p;

	free(p);
	sigmask__thread_start(a.trap_blocked);   /* F4: SIGTRAP deliverable */
	thread__begin(a.index, a.creator, a.creation_ctx, (uint64_t)(uintptr_t)a.fn);
	return a.fn(a.arg);
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* libc's pthread_create, for the runtime's own (unmeasured) threads. */
pthread_create_fn thread__real_pthread_create(void);
pthread_create_fn thread__real_pthread_create(void)
{
	static void *real;

	return (pthread_create_fn)rt_next_sym(&real, "pthread_create");
}

HC_EXPORT int pthread_create(pthread_t *thr, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	pthread_create_fn real = thread__real_pthread_create();
	struct rt_thread *self = hc_self;
	struct start_args *a;
	int ret;

	if (!hc_rt.ready || hc_rt.stopping || !(a = malloc(sizeof *a)))
		return real(thr, attr, fn, arg);
	a->fn = fn;
	a->arg = arg;
	a->index = __atomic_fetch_add(&hc_rt.next_index, 1, __ATOMIC_RELAXED);
	a->creator = self ? self->id.index : HC_NONE;
	a->creation_ctx = HC_NONE;
	a->trap_blocked = sigmask__inherit(attr);
	if (self && hc_guard_enter(self)) {
		a->creation_ctx = cct__context_here(self, 1);
		hc_guard_leave(self);
	}
	if (self && hc_guard_enter(self)) {
		soft__on_create(self);      /* its next joins wait for threads ending from now on */
		/* which of its big blocks it wrote before this child (a creator's
		   written block, soft.c; HPCRUN_COMM_START_BLOCK_WRITTEN) */
		if (hc_rt.opt.start_block_written && hc_rt.opt.start_block)
			track__creating(self->id.index);
		hc_guard_leave(self);
	}
	flush__need_helper();       /* periodic flush by a helper from now on (flush.c) */
	ret = real(thr, attr, thread_trampoline, a);
	if (ret != 0)
		free(a);
	return ret;
}

/* pthread_join: the joiner is about to read what the joined thread wrote
   (a join set, soft.c; detection.md §5.15). Only after a successful join,
   and only for a measured thread outside the runtime. */
HC_EXPORT int pthread_join(pthread_t thr, void **retval)
{
	struct rt_thread *self;
	int ret;

	ret = RT_REAL(pthread_join)(thr, retval);
	self = hc_self;
	if (ret == 0 && hc_rt.ready && !hc_rt.stopping && self && hc_guard_enter(self)) {
		soft__join_set(self, true, 0);
		hc_guard_leave(self);
	}
	return ret;
}
