/* SPDX-License-Identifier: BSD-3-Clause */
/* pmu.c — the PMU address samplers, Intel PEBS and AMD IBS, in the runtime.
   Each thread opens its own events as the probe planned them (hc_rt.pmu:
   PEBS loads + stores, or one ibs_op event), each with a ring buffer mapped
   read-write, and every overflow delivers a synchronous SIGTRAP carrying
   the sample cookie, as the soft sampler's timer does. The handler is thin
   on purpose: drain each ring buffer with the tested reader
   (hc_perfbuf_drain), turn each hardware sample into a detection sample
   with the tested conversion (hc_pmu_to_sample), and pass it to
   rt__detect_sample, the same entry the soft sampler uses. Only the
   opening, mapping and enabling below need a real PMU.
   pmu_on_sample runs in signal context (safety.h); start/stop do not. */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/record.h"

/* Data pages per ring buffer: a power of two. With one SIGTRAP per sample
   a buffer rarely holds more than a few records; 16 KiB absorbs bursts. */
#define PMU_DATA_PAGES 4

static void close_event(struct rt_pmu_event *e)
{
	if (e->fd >= 0) {
		ioctl(e->fd, PERF_EVENT_IOC_DISABLE, 0);
		close(e->fd);
	}
	if (e->base)
		munmap(e->base, e->len);
	e->fd = -1;
	e->base = NULL;
}

static void pmu_stop(struct hc_thread *t)
{
	for (int i = 0; i < t->sampler.npmu; i++)
		close_event(&t->sampler.pmu[i]);
	t->sampler.npmu = 0;
	t->sampler.fd = -1;
}

static int pmu_start(struct hc_thread *t)
{
	const struct hc_pmu_plan *plan = &hc_rt.pmu;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_attr a;
	int err = 0;

	t->sampler.cookie = rt__cookie_sample();
	t->sampler.npmu = 0;
	for (int i = 0; i < plan->nevents && i < 2; i++) {
		struct rt_pmu_event *e = &t->sampler.pmu[i];

		e->fd = -1;
		e->base = NULL;
		e->len = (1 + PMU_DATA_PAGES) * page;
		e->src.kind = plan->kind;
		e->src.store_event = plan->store_event[i];
		e->src.ip_is_next = plan->kind == HC_SAMPLER_PEBS && plan->precise < 2;
		t->sampler.npmu = i + 1;
		hc_plan_attr(plan, i, hc_rt.opt.period, t->sampler.cookie, &a);
		e->fd = hc_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (e->fd < 0) {
			err = errno;
			goto out_fail;
		}
		e->base = mmap(NULL, e->len, PROT_READ | PROT_WRITE, MAP_SHARED, e->fd, 0);
		if (e->base == MAP_FAILED) {
			e->base = NULL;
			err = errno;
			goto out_fail;
		}
		if (hc_perfbuf_init(&e->buf, e->base, e->len, page, a.sample_type) < 0) {
			err = EINVAL;
			goto out_fail;
		}
	}
	for (int i = 0; i < t->sampler.npmu; i++)
		if (ioctl(t->sampler.pmu[i].fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
			err = errno;
			goto out_fail;
		}
	t->sampler.fd = t->sampler.pmu[0].fd;
	return 0;
out_fail:
	pmu_stop(t);
	errno = err;
	return -err;
}

struct drain {
	struct hc_thread *t;
	void *uctx;
	const struct hc_pmu_source *src;
	unsigned n;
};

/* One hardware sample: the same path as a soft sample from here on. */
static void on_hw_sample(const struct hc_perf_sample *ps, void *arg)
{
	struct drain *d = arg;
	struct hc_thread *t = d->t;
	struct hc_sample s;
	uint64_t leaf = 0;

	t->cnt.samples++;
	if (++d->n > 1)
		t->cnt.pmu_batched++;         /* its context is unwound from a later PC */
	if (ps->tid != t->id.tid) {
		t->cnt.pmu_foreign++;         /* per-thread events: never expected */
		return;
	}
	switch (hc_pmu_to_sample(d->src, ps, &s, &leaf)) {
	case HC_PMU_OK:
		break;
	case HC_PMU_KERNEL:      t->cnt.pmu_kernel++; return;
	case HC_PMU_NO_ADDR:     t->cnt.pmu_no_addr++; return;
	case HC_PMU_NOT_MEMORY:  t->cnt.pmu_not_memory++; return;
	case HC_PMU_UNDECODABLE: t->cnt.samples_undecodable++; return;
	case HC_PMU_NO_ACCESS:   t->cnt.samples_no_access++; return;
	case HC_PMU_STACK:       t->cnt.samples_stack_only++; return;
	default:                 t->cnt.pmu_bad_raw++; return;
	}
	if (s.time == 0)
		s.time = rt__now();
	t->cnt.samples_with_access_at_pc++;
	rt__detect_sample(t, d->uctx, leaf, &s);
}

static void pmu_on_sample(struct hc_thread *t, void *uctx)
{
	struct drain d = { .t = t, .uctx = uctx };
	struct hc_perfbuf_stats *st = &t->sampler.pmu_stats;

	for (int i = 0; i < t->sampler.npmu; i++) {
		d.src = &t->sampler.pmu[i].src;
		hc_perfbuf_drain(&t->sampler.pmu[i].buf, on_hw_sample, &d, st);
	}
	t->cnt.pmu_records = st->records;
	t->cnt.pmu_lost = st->lost;
	t->cnt.pmu_throttled = st->throttle;
	t->cnt.pmu_truncated = st->truncated + st->corrupt;
}

const struct rt_sampler rt__pmu_sampler = {
	.thread_start = pmu_start,
	.thread_stop = pmu_stop,
	.on_sample = pmu_on_sample,
};
