/* SPDX-License-Identifier: BSD-3-Clause */
/* sampler.c — the list of address samplers (one method table per back end)
   and the dispatch on the one chosen at start-up (hc_rt.sampler_kind, set
   by init.c from hc_probe_select). rt__on_sample runs in the SIGTRAP
   handler; the table is read-only after start-up. */
#include <string.h>
#include "runtime/rt.h"

static const struct rt_sampler *const samplers[] = {
	[HC_SAMPLER_SOFT] = &rt__soft_sampler,
	[HC_SAMPLER_PEBS] = &rt__pmu_sampler,
	[HC_SAMPLER_IBS]  = &rt__pmu_sampler,
#ifdef HC_RT_EXACT
	[HC_SAMPLER_EXACT] = &rt__exact_sampler,   /* exact.c, only in libhpcrun-comm-exact.so */
#endif
};

static const struct rt_sampler *current(void)
{
	int k = hc_rt.sampler_kind;

	if (k <= 0 || k >= (int)(sizeof samplers / sizeof samplers[0]) || !samplers[k])
		k = HC_SAMPLER_SOFT;
	return samplers[k];
}

int rt__sampler_thread_fds(const struct hc_thread *t)
{
	return current()->thread_fds(t);
}

int rt__sampler_thread_start(struct hc_thread *t)
{
	int ret = current()->thread_start(t);

	HC_DEBUG_LOG(HC_DBG_SAMPLE, "T%u: %s sampler %s%s%s", t->id.index,
	             hc_sampler_name(hc_rt.sampler_kind), ret == 0 ? "started" : "refused: ",
	             ret == 0 && t->sampler.inherited ? " (event inherited at clone)" : "",
	             ret == 0 ? "" : strerror(-ret));
	return ret;
}

void rt__sampler_thread_stop(struct hc_thread *t)
{
	current()->thread_stop(t);
}

void rt__sampler_process_stop(void)
{
	current()->process_stop();
}

void rt__sampler_process_resume(void)
{
	current()->process_resume();
}

void rt__sampler_atfork_child(void)
{
	current()->atfork_child();
}

void rt__on_sample(struct hc_thread *t, void *uctx)
{
	current()->on_sample(t, uctx);
	rt__flush_self(t);     /* periodic flush of a single-threaded process (flush.c) */
}
