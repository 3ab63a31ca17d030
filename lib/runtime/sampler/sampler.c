/* SPDX-License-Identifier: BSD-3-Clause */
/* sampler.c — the list of address samplers (one method table per back end)
   and the dispatch on the one chosen at start-up (hc_rt.sampler_kind, set
   by process.c from hc_probe_select). sampler__on_sample runs in the SIGTRAP
   handler; the table is read-only after start-up. */
#include <string.h>
#include <sys/ioctl.h>
#include "runtime/rt.h"

static const struct rt_sampler *const samplers[] = {
	[HC_SAMPLER_SOFT] = &soft__sampler,
	[HC_SAMPLER_PEBS] = &pmu__sampler,
	[HC_SAMPLER_IBS]  = &pmu__sampler,
#ifdef HC_RT_EXACT
	[HC_SAMPLER_EXACT] = &exact__sampler,   /* exact.c, only in libhpcrun-comm-exact.so */
#endif
};

static const struct rt_sampler *current(void)
{
	int k = hc_rt.sampler_kind;

	if (k <= 0 || k >= (int)(sizeof samplers / sizeof samplers[0]) || !samplers[k])
		k = HC_SAMPLER_SOFT;
	return samplers[k];
}

int sampler__thread_fds(const struct rt_thread *t)
{
	return current()->thread_fds(t);
}

int sampler__thread_start(struct rt_thread *t)
{
	int ret = current()->thread_start(t);

	HC_DEBUG_LOG(HC_DBG_SAMPLE, "T%u: %s sampler %s%s%s", t->id.index,
	             hc_sampler_name(hc_rt.sampler_kind), ret == 0 ? "started" : "refused: ",
	             ret == 0 && t->sampler.inherited ? " (event inherited at clone)" : "",
	             ret == 0 ? "" : strerror(-ret));
	return ret;
}

void sampler__thread_stop(struct rt_thread *t)
{
	current()->thread_stop(t);
}

void sampler__process_stop(void)
{
	current()->process_stop();
}

void sampler__process_resume(void)
{
	current()->process_resume();
}

void sampler__atfork_child(void)
{
	current()->atfork_child();
}

void sampler__on_sample(struct rt_thread *t, void *uctx)
{
	current()->on_sample(t, uctx);
	flush__self(t);     /* periodic flush of a single-threaded process (flush.c) */
}

size_t sampler__thread_size(void)
{
	return current()->thread_size;
}

void sampler__thread_ioctl(struct rt_thread *t, unsigned long req)
{
	if (current()->thread_ioctl)
		current()->thread_ioctl(t, req);
	else if (t->sampler.fd >= 0)
		ioctl(t->sampler.fd, req, 0);
}

bool sampler__is(const struct rt_sampler *s)
{
	return current() == s;
}
