/* SPDX-License-Identifier: BSD-3-Clause */
/* watch.c — debug-register watchpoints (doc/detection.md). Each thread opens its
   D breakpoint events once, disabled, on a harmless address, and re-targets
   them in place with PERF_EVENT_IOC_MODIFY_ATTRIBUTES (the attr must stay
   byte-identical apart from the breakpoint fields: doc/findings.md §5.3), so arming
   costs a few ioctls and no open. One-shot: the first trap disarms the whole
   set. x86 data traps fire after the access, so the accessing instruction
   is the one ending at the trap PC — except REP string ops, which trap on
   the REP itself. watch__arm/disarm and watch__on_trap run in signal
   context. */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <sys/ioctl.h>
#include <ucontext.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/sampler/soft.h"
#include "probe/probe.h"
#include "runtime/regs.h"
#include "detect/step.h"

/* The thread's watchpoints are opened at its first arm, not at its start:
   four perf_event_open calls cost ~40 µs, which a short-lived thread that
   is never sampled should not pay (thread creation budget, doc/reliability.md). `want`
   fds are already reserved (fds.c). */
int watch__thread_start(struct rt_thread *t, int want)
{
	t->watch.n = 0;
	t->watch.want = want;
	t->watch.opened = want == 0;
	return want;
}

/* Open the reserved breakpoint events, disabled, on a harmless address.
   Signal context (the first arm): system calls and process__log only. */
static void open_all(struct rt_thread *t)
{
	static int said;
	int want = t->watch.want;

	t->watch.opened = true;
	t->cnt.watch_threads_gated = 0;
	for (int i = 0; i < want; i++) {
		int fd;
		hc_watch_attr(&t->watch.attr[i], (uint64_t)(uintptr_t)&t->watch.dummy, signal__cookie_watch(i));
		fd = hc_perf_open(&t->watch.attr[i], 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
				process__log("thread %u: watchpoint %d: %s (first failure; threads with fewer "
				        "watchpoints are counted in the fds line at exit)",
				        t->id.index, i, hc_perf_strerror(errno, -1));
			break;
		}
		fds__adopt(fd, &t->watch.fd[i], true);
		t->watch.enabled[i] = false;
		t->watch.n++;
	}
	if (t->watch.n < want) {
		fds__unreserve(want - t->watch.n);
		if (want == hc_rt.nwatch)    /* fewer than the budget allowed: count it here */
			__atomic_add_fetch(t->watch.n ? &fds__stats.threads_watch_reduced
			                              : &fds__stats.threads_watch_none, 1, __ATOMIC_RELAXED);
	}
	/* Fewer registers than the process default (fd limit, contention):
	   this thread arms smaller sets; the weight uses the set's own D. */
}

void watch__thread_stop(struct rt_thread *t)
{
	if (!t->watch.opened)
		fds__unreserve(t->watch.want);
	for (int i = 0; i < t->watch.n; i++)
		fds__close(&t->watch.fd[i], "a watchpoint");
	t->watch.n = 0;
	t->watch.want = 0;
	t->watch.opened = true;       /* never (re)opened after stop */
}

void watch__disarm(struct rt_thread *t)
{
	for (int i = 0; i < t->watch.n; i++)
		if (t->watch.enabled[i]) {
			ioctl(t->watch.fd[i], PERF_EVENT_IOC_DISABLE, 0);
			t->watch.enabled[i] = false;
			t->watch.attr[i].disabled = 1;
		}
}

static int watch_arm(struct rt_thread *t, const uint64_t *addr, uint32_t n);

/* The switch gate's answer for a thread whose registers are not open yet.
   watch_threads_gated is 1 while the thread has asked and was refused
   every time, 0 once it opens (or never asked): summed, the threads whose
   sets were all refused — whenever the counters are written, a thread
   alive at exit included. */
static bool gate_allows(struct rt_thread *t)
{
	if (thread__watch_allowed(t))
		return true;
	t->cnt.watch_threads_gated = 1;
	return false;
}

/* Re-target in place: one MODIFY_ATTRIBUTES per register, with disabled=0
   so the same call enables it (the kernel allows the attr to differ only
   in the breakpoint fields — address, type, length — and `disabled`).
   Registers beyond n go off. A set on a published load (t->det.writes_only)
   watches writes only: the load's writer is what it is there to catch. */
int watch__arm(struct rt_thread *t, const uint64_t *addr, uint32_t n)
{
	uint64_t t0 = soft__cpu_now();
	int ret = watch_arm(t, addr, n);

	soft__cost(t, RT_COST_ARM, t0);
	return ret;
}

static int watch_arm(struct rt_thread *t, const uint64_t *addr, uint32_t n)
{
	uint32_t type = t->det.writes_only ? HW_BREAKPOINT_W : HW_BREAKPOINT_RW;

	/* A start set is armed once, before the thread has run: the switch
	   gate has no evidence yet and, in a crowded process, refuses every
	   new thread, so a later generation's hand-off reads (its first
	   microseconds) went unwatched (generations -t 4 on 2 CPUs: 7 of 12
	   threads refused; detection.md §5.9). It opens without asking; the
	   thread then pays the opened registers' switch cost for its life. */
	if (!t->watch.opened && !t->det.start_set && !gate_allows(t))
		return -EAGAIN;            /* switches too often for now (cost.h) */
	if (!t->watch.opened) {
		if (t->det.start_set)
			t->cnt.start_sets_ungated++;
		open_all(t);
	}
	if (n > (uint32_t)t->watch.n)
		return -ENOSPC;
	for (uint32_t i = 0; i < n; i++) {
		t->watch.attr[i].bp_addr = addr[i];
		t->watch.attr[i].bp_type = type;
		t->watch.attr[i].disabled = 0;
		if (ioctl(t->watch.fd[i], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &t->watch.attr[i]) < 0) {
			int err = errno;
			t->watch.attr[i].disabled = 1;
			watch__disarm(t);
			return -err;
		}
		t->watch.enabled[i] = true;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u armed slot %u on %#llx", t->id.index, i,
		             (unsigned long long)addr[i]);
	}
	for (int i = (int)n; i < t->watch.n; i++)
		if (t->watch.enabled[i]) {
			ioctl(t->watch.fd[i], PERF_EVENT_IOC_DISABLE, 0);
			t->watch.enabled[i] = false;
		}
	return 0;
}

/* An execute breakpoint on pc (the return address of a sampled function,
   soft.c) in register 0, the others off: the thread's data set must not
   be armed. */
int watch__arm_exec(struct rt_thread *t, uint64_t pc)
{
	if (!t->watch.opened && !gate_allows(t))
		return -EAGAIN;
	if (!t->watch.opened)
		open_all(t);
	if (t->watch.n < 1)
		return -ENOSPC;
	t->watch.attr[0].bp_addr = pc;
	t->watch.attr[0].bp_type = HW_BREAKPOINT_X;
	t->watch.attr[0].disabled = 0;
	if (ioctl(t->watch.fd[0], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &t->watch.attr[0]) < 0) {
		int err = errno;
		t->watch.attr[0].disabled = 1;
		watch__disarm(t);
		return -err;
	}
	t->watch.enabled[0] = true;
	for (int i = 1; i < t->watch.n; i++)
		if (t->watch.enabled[i]) {
			ioctl(t->watch.fd[i], PERF_EVENT_IOC_DISABLE, 0);
			t->watch.enabled[i] = false;
		}
	return 0;
}

/* The trapping access and its instruction (hc_trap_attribute, step.h):
   a REP string op traps on itself (current element); otherwise the
   instruction ending at the PC, even when its address register was
   overwritten (then the watched chunk stands for the address). */
static void trapping_access(struct rt_thread *t, const struct hc_regs *r, int slot,
                            struct hc_sample *s, uint64_t *leaf)
{
	uint64_t pc = (uint64_t)r->gregs[REG_RIP];
	int k = slot >= 0 && slot < t->watch.n ? slot : 0;
	uint64_t line = t->det.start_set && slot >= 0 && slot < t->watch.n
	                ? t->watch.attr[slot].bp_addr & ~(uint64_t)(HC_LINE - 1) : t->det.watched.line;
	struct hc_insn at, end;
	struct hc_trap_attr ta;
	bool have_at = hc_decode_at_pc(r, &at) == 0;
	/* the instruction ending at the PC is not needed when a REP op at the
	   PC has the access (decoding it walks the function) */
	bool have_end = !(have_at && (at.flags & HC_AF_REP) && hc_data_access(&at)) &&
	                hc_decode_ending_at(r, pc, t->prev, &end) == 0;

	hc_trap_attribute(have_at ? &at : NULL, have_end ? &end : NULL, pc, line, t->watch.attr[k].bp_addr,
	                  t->watch.attr[k].bp_type == HW_BREAKPOINT_W, &ta);
	*leaf = ta.leaf;
	s->addr = ta.addr;
	s->len = ta.len;
	s->is_store = ta.is_store;
}

static void on_trap(struct rt_thread *t, int slot, void *uctx);

void watch__on_trap(struct rt_thread *t, int slot, void *uctx)
{
	uint64_t t0 = soft__cpu_now();
	bool exec = slot == 0 && t->watch.n > 0 && t->watch.attr[0].bp_type == HW_BREAKPOINT_X;

	on_trap(t, slot, uctx);
	if (!exec)     /* a return breakpoint's burst is timed as a burst */
		soft__cost(t, RT_COST_TRAP, t0);
}

static void on_trap(struct rt_thread *t, int slot, void *uctx)
{
	struct hc_regs r;
	struct hc_sample s;
	struct hc_comm comm;
	uint64_t leaf;
	bool watched_load, start;

	if (slot == 0 && t->watch.n > 0 && t->watch.attr[0].bp_type == HW_BREAKPOINT_X) {
		/* a return breakpoint (before the instruction runs): soft.c */
		watch__disarm(t);
		soft__on_ret_bp(t, uctx);
		return;
	}
	t->cnt.traps++;
	watch__disarm(t);
	regs__read(uctx, &r);
	trapping_access(t, &r, slot, &s, &leaf);
	s.is_private = false;
	watched_load = t->det.armed && t->det.watched.is_load && !t->det.start_set;
	start = t->det.armed && t->det.start_set;
	s.time = process__now();
	s.cpu = regs__cpu();
	s.ctx = cct__context(t, uctx, leaf);
	if (s.ctx == HC_NONE) {            /* the walk faulted: trap dropped */
		hc_detect_arm_failed(&t->det);
		return;
	}
	soft__note_access(t, leaf, &s);
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u trap slot %d: %s %#llx+%u at %#llx", t->id.index, slot,
	             s.is_store ? "store" : "load", (unsigned long long)s.addr, s.len,
	             (unsigned long long)leaf);
	if (hc_detect_trap(&hc_rt.dcfg, &t->det, &s, &comm)) {
		t->cnt.traps_matched++;
		if (start)
			t->cnt.start_traps++;
		if (comm.true_by_mask)
			t->cnt.true_by_mask++;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u   matched: %s sharing with T%u", t->id.index,
		             (comm.flags & HC_COMM_TRUE) ? "true" : "false", comm.peer);
		record__comm(t, &comm);
		/* A trapped store is exact (no skid): publish it for the line's
		   next readers, as a sampled store would be. */
		if (s.is_store && hc_detect_publish(&hc_rt.bb, &hc_rt.dcfg, &t->det, &s) == 1)
			t->cnt.published_trap++;
		t->det.moving = false;
		if (start)
			soft__start_set(t);    /* a second one while the thread is young */
		soft__after_trap(t, uctx, &s);
	} else if (watched_load && !s.is_store && !t->det.armed) {
		/* A set on a published load, hit by this thread's own load (a
		   read probe of a dry line): no communication, but an exact load
		   of a line another thread loads, published as one — the target
		   a write-only set of the line's writer needs (§5.9). */
		t->cnt.traps_load_load++;
		if (hc_detect_publish(&hc_rt.bb, &hc_rt.dcfg, &t->det, &s) == 1)
			t->cnt.published_trap_loads++;
		t->det.moving = false;
	} else {
		t->det.moving = false;
		/* A late trap of an older set: the registers are off now, so the
		   detection state must not believe a set is still armed. */
		t->cnt.traps_unmatched++;
		hc_detect_arm_failed(&t->det);
	}
}
