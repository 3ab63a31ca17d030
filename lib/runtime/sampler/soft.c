/* SPDX-License-Identifier: BSD-3-Clause */
/* soft.c — the soft address sampler (no PMU needed): a per-thread
   task-clock perf event interrupts the thread every P ns of its CPU time
   with a synchronous SIGTRAP; the handler decodes the interrupted
   instruction and, because timer samples skid past the stalled access,
   first tries the previous instruction (FINDINGS §4.2). The chosen access
   goes through the detection core; a store is published with its calling
   context. rt__on_sample runs in signal context (safety.h). */
#include <errno.h>
#include <ucontext.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "probe/probe.h"
#include "runtime/record.h"
#include "decode/funcstart.h"

#define RMW_LOOKAHEAD 3

/* The first store at or after pc, within straight-line code of the same
   function (at most RMW_LOOKAHEAD instructions, no branch), or 0. */
static uint64_t find_store(uint64_t pc, const struct hc_regs *r)
{
	uint64_t start, end, a = pc;
	struct hc_insn in;

	if (!hc_funcs_lookup(pc, &start, &end))
		return 0;
	for (int k = 0; k < RMW_LOOKAHEAD && a < end; k++) {
		size_t avail = end - a < 15 ? (size_t)(end - a) : 15;
		if (hc_decode_insn((const uint8_t *)(uintptr_t)a, avail, a, r, &in) < 0 || in.branch)
			return 0;
		for (int i = 0; i < in.n; i++)
			if ((in.acc[i].rw & HC_ACC_W) && in.acc[i].kind != HC_ACC_STACK)
				return a;
		a += in.len;
	}
	return 0;
}

/* A sampled load is usually the first half of a read-modify-write
   (x = x + 1 compiles to load; op; store). The store is about to run and
   rarely stalls, so timer samples almost never land on it and nothing would
   ever be published. If straight-line code right after the sample stores to
   exactly the loaded bytes, the sample counts as that store. The store's
   position is cached per PC, with the recipe of its address when it has a
   single plain write (then no decode at all: performance.md, F6); the
   address is recomputed from the registers every time (a changed base
   register simply fails to match). */
static bool store_follows(struct hc_thread *t, uint64_t from, const struct hc_regs *r,
                          const struct hc_mem_access *ld)
{
	unsigned slot = (unsigned)((from >> 1) ^ (from >> 11)) & (HC_RMW_CACHE - 1);
	struct hc_acc_recipe rec[HC_MAX_ACC];
	uint64_t st, ea;
	struct hc_insn in;
	int exact, writes = 0, w = 0;

	if (t->rmw[slot].pc == from) {
		st = t->rmw[slot].store;
		if (st && t->rmw[slot].has_recipe)
			return hc_recipe_ea(&t->rmw[slot].write, r, &ea) && ea == ld->ea &&
			       t->rmw[slot].write.size == ld->size;
	} else {
		st = find_store(from, r);
		t->rmw[slot].pc = from;
		t->rmw[slot].store = st;
		t->rmw[slot].has_recipe = false;
	}
	if (!st || (exact = hc_decode_recipes((const uint8_t *)(uintptr_t)st, 15, st, r, &in, rec)) < 0)
		return false;
	for (int i = 0; i < in.n; i++)
		if (in.acc[i].rw & HC_ACC_W) {
			writes++;
			w = i;
		}
	if (exact == 0 && writes == 1) {
		t->rmw[slot].write = rec[w];
		t->rmw[slot].has_recipe = true;
	}
	for (int i = 0; i < in.n; i++)
		if ((in.acc[i].rw & HC_ACC_W) && in.acc[i].ea == ld->ea && in.acc[i].size == ld->size)
			return true;
	return false;
}

/* One event for the whole process (doc/samplers.md, "Soft sampler"):
   opened by the process's first thread with inherit + inherit_thread, so
   the kernel gives every thread created afterwards (CLONE_THREAD only: a
   fork child starts over) its own copy at clone, counting that thread's CPU
   time and sending it its own SIGTRAPs with the same cookie. Thread
   creation makes no system call of ours for sampling (issue #8). Its fd
   stays with the process until exit, even when the opening thread ends
   (the copies keep sampling and are still inherited: checked on this
   kernel). HPCRUN_COMM_SAMPLER_PER_THREAD=1 opens one event per thread
   instead (the previous scheme). */
static int inh_fd = -1;
static uint32_t inh_pid;

/* Is the process's inherited event there (this thread has its copy)? */
static bool inherited_here(void)
{
	return !hc_rt.opt.per_thread && inh_fd >= 0 && inh_pid == hc_rt.pid;
}

/* The thread's start needs an fd, except for a thread with its copy of
   the inherited event. */
static int soft_thread_fds(const struct hc_thread *t)
{
	return t->id.index == 0 || !inherited_here();
}

static int open_event(int *where, bool inherit)
{
	struct perf_event_attr a;
	int fd;

	hc_soft_attr(&a, hc_rt.opt.period, rt__cookie_sample());
	a.inherit = inherit;
	a.inherit_thread = inherit;
	/* The fd was reserved by the caller; adopted (fds.c) once open. */
	fd = hc_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	rt__fd_adopt(fd, where, true);
	if (ioctl(*where, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		int err = errno;
		rt__fd_close(where, "the sampler");
		rt__fd_reserve(1);      /* the caller gives the reservation back */
		*where = -1;
		return -err;
	}
	return 0;
}

static int soft_start(struct hc_thread *t)
{
	int ret;

	t->sampler.cookie = rt__cookie_sample();
	t->sampler.inherited = false;
	if (t->id.index != 0 && inherited_here()) {
		t->sampler.inherited = true;   /* its copy has counted since clone */
		return 0;
	}
	/* Per-thread mode, or the process has no inherited event (its first
	   thread could not open it): one event for this thread alone. */
	if (hc_rt.opt.per_thread || t->id.index != 0 || inh_fd >= 0)
		return open_event(&t->sampler.fd, false);
	if ((ret = open_event(&inh_fd, true)) == 0) {
		inh_pid = hc_rt.pid;
		t->sampler.inherited = true;
	}
	return ret;
}

static void soft_stop(struct hc_thread *t)
{
	t->sampler.inherited = false;  /* its copy runs on; handlers refuse its samples */
	if (t->sampler.fd < 0)
		return;
	/* In a fork child the fd is the parent's event: disabling it would
	   stop the parent's sampling (measured: 0 samples after a fork); the
	   child only closes it. Closed only if still ours (fds.c). */
	if ((uint32_t)getpid() == t->id.pid && rt__fd_check(&t->sampler.fd))
		ioctl(t->sampler.fd, PERF_EVENT_IOC_DISABLE, 0);
	rt__fd_close(&t->sampler.fd, "the sampler");
	t->sampler.fd = -1;
}

/* Disabling the inherited event disables every thread's copy. Async-signal-
   safe (fatal-signal flush). */
static void soft_process_stop(void)
{
	if (inh_fd >= 0 && inh_pid == (uint32_t)getpid() && rt__fd_check(&inh_fd))
		ioctl(inh_fd, PERF_EVENT_IOC_DISABLE, 0);
	if (hc_self)
		soft_stop(hc_self);
}

static void soft_process_resume(void)
{
	struct hc_thread *t = hc_self;

	if (inh_fd >= 0 && inh_pid == (uint32_t)getpid() && rt__fd_check(&inh_fd))
		ioctl(inh_fd, PERF_EVENT_IOC_ENABLE, 0);
	if (!t || t->sampler.fd >= 0)
		return;
	if (inherited_here())
		t->sampler.inherited = true;
	else if (rt__fd_reserve(1) && soft_start(t) < 0)
		rt__fd_unreserve(1);
}

/* The child has no copy of the event (inherit_thread: threads only) and an
   fd of the parent's, which it closes without disabling it. */
static void soft_atfork_child(void)
{
	if (inh_fd >= 0)
		rt__fd_close(&inh_fd, "the sampler");
	inh_fd = -1;
	inh_pid = 0;
}

static void soft_on_sample(struct hc_thread *t, void *uctx)
{
	struct hc_regs r;
	struct hc_insn in;
	const struct hc_mem_access *acc = NULL;
	struct hc_sample s;
	uint64_t leaf = 0, next;
	int st;

	t->cnt.samples++;
	rt__regs(uctx, &r);
	st = hc_rt.opt.no_prev ? -1 /* switched off */ : hc_decode_prev(&r, t->prev, &in);
	next = (uint64_t)r.gregs[REG_RIP];
	if (st == HC_PREV_OK && (acc = rt__pick_access(&in))) {
		t->cnt.samples_recovered_prev++;
		leaf = in.addr;
	} else if (hc_decode_at_pc(&r, &in) < 0) {
		t->cnt.samples_undecodable++;
		return;
	} else if (in.n == 0) {
		t->cnt.samples_no_access++;
		return;
	} else if (!(acc = rt__pick_access(&in))) {
		t->cnt.samples_stack_only++;
		return;
	} else {
		t->cnt.samples_with_access_at_pc++;
		leaf = in.addr;
		next = in.addr + in.len;
	}

	s.time = rt__now();
	s.addr = acc->ea;
	s.len = acc->size;
	s.is_store = (acc->rw & HC_ACC_W) != 0;
	if (!s.is_store && acc->kind == HC_ACC_EXPLICIT && store_follows(t, next, &r, acc)) {
		s.is_store = true;
		t->cnt.samples_rmw_store++;
	}
	s.cpu = rt__cpu();
	rt__detect_sample(t, uctx, leaf, &s);
}

const struct rt_sampler rt__soft_sampler = {
	.thread_fds = soft_thread_fds,
	.thread_start = soft_start,
	.thread_stop = soft_stop,
	.process_stop = soft_process_stop,
	.process_resume = soft_process_resume,
	.atfork_child = soft_atfork_child,
	.on_sample = soft_on_sample,
};
