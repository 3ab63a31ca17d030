/* SPDX-License-Identifier: BSD-3-Clause */
/* pmu.c — the PMU address samplers, Intel PEBS and AMD IBS, in the runtime.
   Each thread opens its own events as the probe planned them (hc_rt.pmu:
   PEBS loads + stores, or one ibs_op event), each with a ring buffer mapped
   read-write, and every overflow delivers a synchronous SIGTRAP carrying
   the sample cookie, as the soft sampler's timer does. The handler is thin
   on purpose: hc_pmu_drain (libhcpmu, tested on the kernel's byte layout
   in tests/unit/pmu) reads every ring buffer and converts each hardware
   sample; usable ones go to record__detect_sample, the same entry the soft
   sampler uses. Only the opening, mapping and enabling below need a real
   PMU. pmu_on_sample runs in signal context (safety.h); start/stop do not. */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/loadmap.h"
#include "runtime/regs.h"
#include "runtime/safety.h"
#include "runtime/sampler/pmu.h"
#include "runtime/alloc/ownheap.h"
#include "probe/probe.h"

/* Data pages per ring buffer: a power of two. With one SIGTRAP per sample
   a buffer rarely holds more than a few records; 16 KiB absorbs bursts. */
#define PMU_DATA_PAGES 4

static int release(struct rt_thread *t, bool mapped_here);

/* This thread's PMU-sampler state (pmu.h), behind the sampler slot. */
static inline struct rt_pmu_thread *own(const struct rt_thread *t)
{
	return t->sampler.own;
}

/* Pause or resume this thread's events (sigmask.c, around a held SIGTRAP). */
static void pmu_thread_ioctl(struct rt_thread *t, unsigned long req)
{
	if (own(t)->npmu > 0) {
		for (int i = 0; i < own(t)->npmu && i < 2; i++)
			if (own(t)->pmu_fd[i] >= 0)
				ioctl(own(t)->pmu_fd[i], req, 0);
	} else if (t->sampler.fd >= 0) {
		ioctl(t->sampler.fd, req, 0);
	}
}

static int pmu_start(struct rt_thread *t)
{
	const struct hc_pmu_plan *plan = &hc_rt.pmu;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_attr a;
	int err = 0, group;

	t->sampler.cookie = signal__cookie_sample();
	own(t)->npmu = 0;
	own(t)->pmu_lost_base = own(t)->pmu_cnt.ring.lost;
	for (int i = 0; i < plan->nevents && i < 2; i++) {
		struct hc_pmu_stream *st = &own(t)->pmu[i];
		void *base;
		int fd;

		own(t)->pmu_fd[i] = -1;
		own(t)->pmu_base[i] = NULL;
		own(t)->pmu_len[i] = (1 + PMU_DATA_PAGES) * page;
		own(t)->npmu = i + 1;
		st->src.kind = plan->kind;
		st->src.store_event = plan->store_event[i];
		st->src.ip_is_next = plan->kind == HC_SAMPLER_PEBS && plan->precise < 2;
		st->src.addr_from_regs = plan->standin;
		hc_plan_attr(plan, i, hc_rt.period, t->sampler.cookie, &a);
		a.sample_type |= HC_PMU_SAMPLE_EXTRA;     /* the period the kernel used, per record */
		/* Enabled and running times: an event that is enabled but not
		   scheduled (counter constraints, other users, the one IBS unit
		   per CPU, E-cores) samples nothing while it waits, silently.
		   The kernel's own count of samples it could not write (Linux
		   >= 6.0): read at stop, for a buffer still full then (no LOST
		   record is written until space frees). Older kernels: without. */
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
		                PERF_FORMAT_LOST;
		/* PEBS loads and stores as one group: the kernel schedules them
		   together or not at all, and the probe's group open already
		   refused a pair no counter assignment can hold (precise_ip 3 on
		   Sapphire Rapids: both on counter 0). */
		group = plan->group && i > 0 ? own(t)->pmu_fd[0] : -1;
		fd = hc_perf_open(&a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == EINVAL) {
			a.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
			fd = hc_perf_open(&a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
		}
		own(t)->pmu_fmt_lost = fd >= 0 && (a.read_format & PERF_FORMAT_LOST) &&
		                          (i == 0 || own(t)->pmu_fmt_lost);
		if (fd < 0) {
			err = errno;
			goto out_fail;
		}
		/* Reserved by the caller (pmu_thread_fds); moved above the
		   program's fds and protected from its closes (fds.c). */
		fd = fds__adopt(fd, &own(t)->pmu_fd[i], true);
		base = mmap(NULL, own(t)->pmu_len[i], PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (base == MAP_FAILED) {
			err = errno;
			goto out_fail;
		}
		own(t)->pmu_base[i] = base;
		if (hc_perfbuf_init(&st->buf, base, own(t)->pmu_len[i], page, a.sample_type) < 0) {
			err = EINVAL;
			goto out_fail;
		}
	}
	for (int i = 0; i < own(t)->npmu; i++)
		if (ioctl(own(t)->pmu_fd[i], PERF_EVENT_IOC_ENABLE, 0) < 0) {
			err = errno;
			goto out_fail;
		}
	t->sampler.fd = own(t)->pmu_fd[0];
	return 0;
out_fail:
	/* Nothing was sampled: nothing to drain. The caller gives back the
	   whole reservation: keep the closed fds' share reserved until then. */
	(void)fds__force(release(t, true));
	errno = err;
	return -err;
}

struct sink_arg {
	struct rt_thread *t;
	void *uctx;                      /* NULL: drained at stop, no interrupted context */
};

/* A usable hardware sample: from here on, the soft sampler's path. The
   calling context is unwound from the signal's context (the sampled IP is
   the leaf): exact for the sample that raised the signal, approximate for
   older ones drained together (counted as pmu_batched). Records drained
   when the sampler stops have no interrupted context: the leaf alone,
   under the thread's root (counted as pmu_stop_drained). */
static void sink(void *arg, uint64_t leaf, struct hc_sample *s, bool exact_ctx)
{
	struct sink_arg *a = arg;

	if (s->time == 0)
		s->time = process__now();
	a->t->cnt.samples_with_access_at_pc++;
	/* Callers unknown (an older record of a batch, skid past a return):
	   the leaf alone under the thread's root, never someone else's
	   callers (counted pmu_ctx_leaf_only). */
	record__detect_sample(a->t, exact_ctx ? a->uctx : NULL, leaf, s);
}

/* The runtime's own code and memory, as the records of this thread may
   touch them from the handler or anywhere else: the library's loaded range
   (code, data, bss: hc_rt, the live-thread table), this thread's arena
   (its record, signal stack, CCT, events, caches, write buffer), its ring
   buffers (the drain reads them), the bulletin board, the runtime's own
   heap (ownheap.c: the flush helper's copies, start-up's allocations), and
   the modules only the runtime loaded (libunwind, Zydis...: loadmap.c).
   These hold whatever the thread was doing when the record was taken: in
   the handler, in a wrapper, at its start or end, in the runtime's
   initialisation. Not listed: libc's own memory and the allocation
   tracker's tables, covered only by the handler's busy intervals (below,
   and doc/samplers.md). */
static void self_ranges(const struct rt_thread *t, struct hc_pmu_env *env)
{
	int n = 0;

#define RANGE(lo_, len_) do { if ((len_) && n < HC_PMU_SELF_RANGES) { \
		env->self[n].lo = (uint64_t)(uintptr_t)(lo_); \
		env->self[n].hi = env->self[n].lo + (uint64_t)(len_); n++; } } while (0)
	RANGE(loadmap__self_lo, loadmap__self_len);
	RANGE(t->arena.base, t->arena.reserve);
	for (int i = 0; i < own(t)->npmu && i < 2; i++)
		RANGE(own(t)->pmu_base[i], own(t)->pmu_base[i] ? own(t)->pmu_len[i] : 0);
	RANGE(hc_rt.bb.slots, hc_rt.bb.slots ? hc_bulletin_size(hc_rt.bb.nslots) : 0);
	{
		const char *hb = __atomic_load_n(&ownheap__base, __ATOMIC_ACQUIRE);
		RANGE(hb, hb ? __atomic_load_n(&ownheap__len, __ATOMIC_RELAXED) : 0);
	}
	{
		struct loadmap_range pm[LOADMAP_PRIVATE_MAX];
		uint32_t np = loadmap__private(pm, LOADMAP_PRIVATE_MAX);
		for (uint32_t i = 0; i < np; i++)
			RANGE(pm[i].lo, pm[i].hi - pm[i].lo);
	}
#undef RANGE
	env->nself = n;
	n = 0;
	for (unsigned i = 0; i < t->sampler.busy_n && i < HC_PMU_BUSY; i++) {
		env->busy[n].lo = t->sampler.busy_lo[i];
		env->busy[n++].hi = t->sampler.busy_hi[i];
	}
	if (t->sampler.busy_cur) {
		env->busy[n].lo = t->sampler.busy_cur;
		env->busy[n++].hi = UINT64_MAX;
	}
	env->nbusy = n;
}

/* The bulletin board's expiry in its own clock (ns): two sampling
   intervals. A PMU period counts events, so the interval is the period
   over the thread's event rate, read from its first event: count and
   time enabled (hc_bb_expiry_measured, pure, tests/unit/pmu/test_probe),
   folded into the board's value (hc_bb_expiry_blend) by a CAS: every
   thread's handler may do it. read() is async-signal-safe; it runs once
   every EXPIRY_EVERY records per thread. */
#define EXPIRY_FIRST 16
#define EXPIRY_EVERY 64
static void measure_expiry(struct rt_thread *t)
{
	uint64_t v[4], m, old, fallback = hc_bb_expiry_ns(hc_rt.pmu.kind, hc_rt.period);
	size_t want = own(t)->pmu_fmt_lost ? 4 * sizeof(uint64_t) : 3 * sizeof(uint64_t);

	if (own(t)->npmu < 1 || own(t)->pmu_fd[0] < 0 ||
	    read(own(t)->pmu_fd[0], v, want) != (ssize_t)want)
		return;
	m = hc_bb_expiry_measured(hc_rt.period, v[0], v[1], fallback);
	if (m == fallback && v[0] / HC_BB_RATE_MIN_PERIODS < hc_rt.period)
		return;                      /* not enough counted yet: nothing learnt */
	old = __atomic_load_n(&hc_rt.bb.expiry, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&hc_rt.bb.expiry, &old, hc_bb_expiry_blend(old, m), true,
	                                    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
	__atomic_fetch_add(&hc_rt.bb_expiry_updates, 1, __ATOMIC_RELAXED);
}

/* Drain every ring buffer of t (its own thread only) and add what this
   drain counted to the profile's counters (which the runtime may reset,
   e.g. after a failed exec). */
static void drain(struct rt_thread *t, void *uctx)
{
	struct sink_arg a = { .t = t, .uctx = uctx };
	struct hc_pmu_counts *c = &own(t)->pmu_cnt;
	struct hc_pmu_counts was = *c;
	struct hc_regs r;
	struct hc_pmu_env env = { .regs = NULL, .cache = t->prev, .code_readable = hc_code_readable };

	if (uctx) {
		regs__read(uctx, &r);
		env.regs = &r;
	}
	self_ranges(t, &env);
	hc_pmu_drain(own(t)->pmu, own(t)->npmu, t->id.tid, &env, sink, &a, c);
#define ADD(field, expr) t->cnt.field += c->expr - was.expr
	ADD(samples, samples);
	ADD(samples_undecodable, status[HC_PMU_UNDECODABLE]);
	ADD(samples_no_access, status[HC_PMU_NO_ACCESS]);
	ADD(samples_stack_only, status[HC_PMU_STACK]);
	ADD(pmu_kernel, status[HC_PMU_KERNEL]);
	ADD(pmu_no_addr, status[HC_PMU_NO_ADDR]);
	ADD(pmu_not_memory, status[HC_PMU_NOT_MEMORY]);
	ADD(pmu_bad_raw, status[HC_PMU_BAD_RAW]);
	ADD(pmu_foreign, foreign);
	ADD(pmu_batched, batched);
	ADD(pmu_records, ring.records);
	ADD(pmu_lost, ring.lost);
	ADD(pmu_lost, ring.lost_samples);
	ADD(pmu_in_runtime, status[HC_PMU_IN_RUNTIME]);
	ADD(pmu_unmapped, status[HC_PMU_UNMAPPED]);
	ADD(pmu_period_sum, period_sum);
	ADD(pmu_period_records, period_n);
	ADD(pmu_ctx_leaf_only, ctx_approx);
	ADD(pmu_throttled, ring.throttle);
	ADD(pmu_truncated, ring.truncated);
	ADD(pmu_truncated, ring.corrupt);
	ADD(pmu_ibs_unrandomized, ibs_unrandomized);
	ADD(pmu_ibs_mispredicted, ibs_mispredicted);
	if (!uctx)
		ADD(pmu_stop_drained, samples);
#undef ADD
	/* Every EXPIRY_EVERY records (the first time after EXPIRY_FIRST): the
	   board's expiry from this thread's measured event rate. */
	if (c->period_n / EXPIRY_EVERY != was.period_n / EXPIRY_EVERY ||
	    (was.period_n < EXPIRY_FIRST && c->period_n >= EXPIRY_FIRST))
		measure_expiry(t);
}

static void pmu_on_sample(struct rt_thread *t, void *uctx)
{
	drain(t, uctx);
}

/* Stop sampling. In the owning thread (thread exit, process exit, exec,
   a failed start) the events are disabled first and the records still in
   the ring buffers are drained into the profile before it is written;
   the guard keeps a SIGTRAP already queued from draining concurrently.
   Anywhere else nothing is read and nothing is disabled: in a fork child
   the mappings were not inherited (perf maps them VM_DONTCOPY) and the
   fds are the parent's events, which must keep running; another thread
   of the same process must not move this thread's data_tail. Not in
   signal context, but async-signal-safe (the fatal-signal flush). */
/* Close (through fds.c: only if still ours, the budget released) and unmap
   (mappings only in the process that made them). Returns the fds closed. */
static int release(struct rt_thread *t, bool mapped_here)
{
	int closed = 0;

	for (int i = 0; i < own(t)->npmu; i++) {
		if (own(t)->pmu_fd[i] >= 0) {
			fds__close(&own(t)->pmu_fd[i], "a PMU sampler");
			closed++;
		}
		if (own(t)->pmu_base[i] && mapped_here)
			munmap(own(t)->pmu_base[i], own(t)->pmu_len[i]);
		own(t)->pmu_fd[i] = -1;
		own(t)->pmu_base[i] = NULL;
	}
	own(t)->npmu = 0;
	t->sampler.fd = -1;
	return closed;
}

/* At stop, from each event's read(): its enabled and running times (an
   event that waited for a counter sampled nothing meanwhile: the thread's
   share below 95 % is logged), and the samples the kernel dropped on a full
   buffer that no PERF_RECORD_LOST reported (the buffer was still full when
   the events stopped): the events' own lost counts minus the LOST records
   read since they opened. */
static void read_times(struct rt_thread *t)
{
	uint64_t v[4], kernel = 0, en = 0, run = 0, seen = own(t)->pmu_cnt.ring.lost - own(t)->pmu_lost_base;
	size_t want = own(t)->pmu_fmt_lost ? 4 * sizeof(uint64_t) : 3 * sizeof(uint64_t);

	for (int i = 0; i < own(t)->npmu; i++) {
		if (read(own(t)->pmu_fd[i], v, want) != (ssize_t)want)
			return;
		en += v[1];
		run += v[2];
		if (own(t)->pmu_fmt_lost)
			kernel += v[3];
	}
	t->cnt.pmu_time_enabled += en;
	t->cnt.pmu_time_running += run;
	if (hc_pmu_running_low(en, run)) {
		t->cnt.pmu_threads_not_running++;
		process__log("warning: thread %u: its PMU events ran %llu%% of the time they were enabled "
		        "(%llu of %llu us): while they waited for a counter (other perf users, counter "
		        "constraints, the CPU's one IBS unit, E-cores) nothing was sampled",
		        t->id.index, (unsigned long long)(en ? run * 100 / en : 0),
		        (unsigned long long)(run / 1000), (unsigned long long)(en / 1000));
	}
	if (kernel > seen) {
		t->cnt.pmu_lost += kernel - seen;
		own(t)->pmu_cnt.ring.lost += kernel - seen;
	}
}

static void pmu_stop(struct rt_thread *t)
{
	bool process = (uint32_t)getpid() == t->id.pid;
	bool owner = process && (uint32_t)syscall(SYS_gettid) == t->id.tid;

	/* Not from inside our own handler (a fault there reaching the
	   fatal-signal flush): that drain is what failed. */
	if (owner && own(t)->npmu > 0 && !t->safety.in_handler) {
		bool guarded = hc_guard_enter(t);   /* false: the caller holds it */

		for (int i = 0; i < own(t)->npmu; i++)
			ioctl(own(t)->pmu_fd[i], PERF_EVENT_IOC_DISABLE, 0);
		drain(t, NULL);
		read_times(t);
		if (guarded)
			hc_guard_leave(t);
	}
	release(t, process);
}

/* One fd per planned event (PEBS: loads and stores; IBS: one). */
static int pmu_thread_fds(const struct rt_thread *t)
{
	(void)t;
	return hc_rt.pmu.nevents < 1 ? 1 : hc_rt.pmu.nevents > 2 ? 2 : hc_rt.pmu.nevents;
}

/* Per-thread events only: the process stops with the calling thread (the
   others' handlers refuse samples once hc_rt.stopping is set). */
static void pmu_process_stop(void)
{
	if (hc_self)
		pmu_stop(hc_self);
}

static void pmu_process_resume(void)
{
	int need;

	if (!hc_self || hc_self->sampler.fd >= 0)
		return;
	need = pmu_thread_fds(hc_self);
	if (fds__reserve(need) && pmu_start(hc_self) < 0)
		fds__unreserve(need);
}

static void pmu_atfork_child(void)
{
}

const struct rt_sampler pmu__sampler = {
	.thread_size = sizeof(struct rt_pmu_thread),
	.thread_ioctl = pmu_thread_ioctl,
	.thread_fds = pmu_thread_fds,
	.thread_start = pmu_start,
	.thread_stop = pmu_stop,
	.process_stop = pmu_process_stop,
	.process_resume = pmu_process_resume,
	.atfork_child = pmu_atfork_child,
	.on_sample = pmu_on_sample,
};
