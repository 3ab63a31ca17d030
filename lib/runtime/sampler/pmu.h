/* SPDX-License-Identifier: BSD-3-Clause */
/* sampler/pmu.h — the PMU samplers' own per-thread state (pmu.c): the
   thread's events, their ring-buffer mappings and what draining them
   counted. Reached through t->sampler.own (zero at thread start); written
   by the owning thread, in its SIGTRAP handler or at its start and stop. */
#ifndef HC_RT_PMU_H
#define HC_RT_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pmu/perfbuf.h"

struct rt_pmu_thread {
	int npmu;                     /* events opened */
	int pmu_fd[2];
	void *pmu_base[2];            /* ring-buffer mappings */
	size_t pmu_len[2];
	struct hc_pmu_stream pmu[2];
	struct hc_pmu_counts pmu_cnt;
	bool pmu_fmt_lost;            /* events opened with PERF_FORMAT_LOST */
	uint64_t pmu_lost_base;       /* pmu_cnt.ring.lost when they were opened */
};

#endif
