/* SPDX-License-Identifier: BSD-3-Clause */
/* pfm.h — libpfm4 event encoding, isolated from <linux/perf_event.h>. */
#ifndef HC_RT_PFM_H
#define HC_RT_PFM_H

#include <stdint.h>

struct hc_pfm_event {
	uint32_t type;
	uint64_t config, config1, config2;
};

/* Encode a libpfm4 event name for user-level counting. 0, or -1 with *errstr. */
int hc_pfm_encode(const char *name, struct hc_pfm_event *out, const char **errstr);

#endif
