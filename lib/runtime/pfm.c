/* SPDX-License-Identifier: BSD-3-Clause */
/* pfm.c — the one place that includes libpfm4's perf header (its copy of
   perf_event.h clashes with the kernel's <linux/perf_event.h> used by
   everything else): encode a named PMU event into the fields the probes
   and samplers need. Not signal context. */
#include <string.h>
#include <perfmon/pfmlib_perf_event.h>
#include "runtime/pfm.h"

int hc_pfm_encode(const char *name, struct hc_pfm_event *out, const char **errstr)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	int ret = pfm_initialize();

	if (ret != PFM_SUCCESS) {
		*errstr = pfm_strerror(ret);
		return -1;
	}
	memset(&a, 0, sizeof a);
	memset(&arg, 0, sizeof arg);
	arg.attr = &a;
	arg.size = sizeof arg;
	ret = pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		*errstr = pfm_strerror(ret);
		return -1;
	}
	out->type = a.type;
	out->config = a.config;
	out->config1 = a.config1;
	out->config2 = a.config2;
	return 0;
}
