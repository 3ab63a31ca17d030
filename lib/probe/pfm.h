/* SPDX-License-Identifier: BSD-3-Clause */
/* pfm.h — libpfm4 event encoding, isolated from <linux/perf_event.h>. */
#ifndef HC_RT_PFM_H
#define HC_RT_PFM_H

#include <stddef.h>
#include <stdint.h>

struct hc_pfm_event {
	uint32_t type;
	uint64_t config, config1, config2;
};

/* Encode a libpfm4 event name for user-level counting. 0, or -errno
   (-ENOENT: no libpfm4, or it does not know the event) with *errstr. */
int hc_pfm_encode(const char *name, struct hc_pfm_event *out, const char **errstr);

/* The precise load and store events of this CPU's core PMU, by name from
   the per-microarchitecture table in pfm.c (MEM_UOPS_RETIRED on Haswell and
   Broadwell, MEM_INST_RETIRED on Skylake and later, the P-core PMU of hybrid
   parts), encoded by libpfm4 for the PMU libpfm4 detects (or is forced to
   with LIBPFM_FORCE_PMU). *model gets libpfm4's PMU name. 0, or -ENOENT
   with err[] naming what libpfm4 found instead. */
int hc_pfm_pebs_events(struct hc_pfm_event *loads, struct hc_pfm_event *stores,
                       const char **model, char *err, size_t errlen);

#endif
