/* SPDX-License-Identifier: BSD-3-Clause */
/* soft.c — the soft address sampler (no PMU needed): a per-thread
   task-clock perf event interrupts the thread every P ns of its CPU time
   with a synchronous SIGTRAP; the handler decodes the interrupted
   instruction and, because timer samples skid past the stalled access,
   first tries the previous instruction (FINDINGS §4.2). The chosen access
   goes through the detection core; a store is published with its calling
   context. rt__on_sample runs in signal context (safety.h). */
#include <errno.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/probe.h"
#include "runtime/record.h"

int rt__sampler_thread_start(struct hc_thread *t)
{
	struct perf_event_attr a;

	t->sampler.cookie = rt__cookie_sample();
	hc_soft_attr(&a, hc_rt.opt.period, t->sampler.cookie);
	t->sampler.fd = hc_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (t->sampler.fd < 0)
		return -errno;
	if (ioctl(t->sampler.fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		int err = errno;
		close(t->sampler.fd);
		t->sampler.fd = -1;
		return -err;
	}
	return 0;
}

void rt__sampler_thread_stop(struct hc_thread *t)
{
	if (t->sampler.fd < 0)
		return;
	ioctl(t->sampler.fd, PERF_EVENT_IOC_DISABLE, 0);
	close(t->sampler.fd);
	t->sampler.fd = -1;
}

void rt__on_sample(struct hc_thread *t, void *uctx)
{
	struct hc_regs r;
	struct hc_insn in;
	const struct hc_mem_access *acc = NULL;
	struct hc_sample s;
	struct hc_detect_result res;
	struct hc_comm comm;
	uint64_t leaf = 0;
	int st;

	t->cnt.samples++;
	rt__regs(uctx, &r);
	st = hc_decode_prev(&r, t->prev, &in);
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
	}

	s.time = rt__now();
	s.addr = acc->ea;
	s.len = acc->size;
	s.is_store = (acc->rw & HC_ACC_W) != 0;
	s.cpu = rt__cpu();
	/* Only stores publish, and the publisher's context travels with the
	   entry: unwind now for stores, lazily for loads that communicate. */
	s.ctx = s.is_store ? rt__context(t, uctx, leaf) : HC_NONE;

	hc_detect_sample(&hc_rt.bb, &hc_rt.dcfg, &t->det, &s, &res, &comm);
	if (res.published == 1)
		t->cnt.published++;
	else if (res.published == -EBUSY)
		t->cnt.publish_lost_race++;
	else if (res.published == -EEXIST)
		t->cnt.publish_refused++;
	if (res.comm) {
		t->cnt.detections_sample++;
		if (comm.ctx == HC_NONE)
			comm.ctx = rt__context(t, uctx, leaf);
		rt__record_comm(t, &comm);
	}
	if (res.arm) {
		if (rt__watch_arm(t, res.watch_addr, res.nwatch) == 0) {
			t->cnt.watch_armed++;
		} else {
			t->cnt.watch_arm_failed++;
			hc_detect_arm_failed(&t->det);
		}
	}
}
