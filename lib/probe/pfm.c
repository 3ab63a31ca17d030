/* SPDX-License-Identifier: BSD-3-Clause */
/* pfm.c — the one place that includes libpfm4's perf header (its copy of
   perf_event.h clashes with the kernel's <linux/perf_event.h> used by
   everything else): encode a named PMU event into the fields the probes
   and samplers need, and the table of precise load/store events per Intel
   microarchitecture. Not signal context.

   libpfm4 is loaded with dlopen on first use, not linked: its 41,000
   relocations cost every measured process ~2 MB of RSS and 1-2 ms at start
   (performance.md, F2), while only the PEBS probe on a machine with a core
   PMU ever calls it. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <perfmon/pfmlib_perf_event.h>
#include "probe/pfm.h"

#define LIBPFM_SONAME "libpfm.so.4"

static struct {
	__typeof__(&pfm_initialize) initialize;
	__typeof__(&pfm_strerror) strerror;
	__typeof__(&pfm_get_os_event_encoding) encode;
	__typeof__(&pfm_get_pmu_info) pmu_info;
} lib;
static char lib_error[256];
static pthread_once_t lib_once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen(LIBPFM_SONAME, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (!h) {
		e = dlerror();
		snprintf(lib_error, sizeof lib_error, "libpfm4 is not installed (%s; Debian package libpfm4)",
		         e ? e : LIBPFM_SONAME);
		return;
	}
	lib.initialize = (__typeof__(lib.initialize))dlsym(h, "pfm_initialize");
	lib.strerror = (__typeof__(lib.strerror))dlsym(h, "pfm_strerror");
	lib.encode = (__typeof__(lib.encode))dlsym(h, "pfm_get_os_event_encoding");
	lib.pmu_info = (__typeof__(lib.pmu_info))dlsym(h, "pfm_get_pmu_info");
	if (!lib.initialize || !lib.strerror || !lib.encode || !lib.pmu_info) {
		snprintf(lib_error, sizeof lib_error, "%s lacks the libpfm4 4.x interface", LIBPFM_SONAME);
		lib.initialize = NULL;
		dlclose(h);
	}
}

/* A libpfm4 error as -errno: an unknown event or PMU is -ENOENT, a lack
   of memory -ENOMEM, anything else -EINVAL (*errstr keeps libpfm4's words). */
static int pfm_errno(int ret)
{
	switch (ret) {
	case PFM_ERR_NOTFOUND:
	case PFM_ERR_NOTSUPP:
		return -ENOENT;
	case PFM_ERR_NOMEM:
		return -ENOMEM;
	default:
		return -EINVAL;
	}
}

/* pfm_initialize through the loaded library: 0, or -ENOENT (no usable
   libpfm4) / -errno, and *errstr says why. */
static int initialize(const char **errstr)
{
	int ret;

	pthread_once(&lib_once, load);
	if (!lib.initialize) {
		*errstr = lib_error;
		return -ENOENT;
	}
	ret = lib.initialize();
	if (ret != PFM_SUCCESS) {
		*errstr = lib.strerror(ret);
		return pfm_errno(ret);
	}
	return 0;
}

int hc_pfm_encode(const char *name, struct hc_pfm_event *out, const char **errstr)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;
	int ret;

	ret = initialize(errstr);
	if (ret < 0)
		return ret;
	memset(&a, 0, sizeof a);
	memset(&arg, 0, sizeof arg);
	arg.attr = &a;
	arg.size = sizeof arg;
	ret = lib.encode(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret != PFM_SUCCESS) {
		*errstr = lib.strerror(ret);
		return pfm_errno(ret);
	}
	out->type = a.type;
	out->config = a.config;
	out->config1 = a.config1;
	out->config2 = a.config2;
	return 0;
}

/* libpfm4 PMU name -> the PEBS events ComDetective samples. Names of PMUs
   a given libpfm4 does not know are simply never present (libpfm4 4.13, in
   Debian 12, has no hybrid table yet: adl_glc / mtl_rwc come with later
   releases). */
static const struct {
	const char *pmu, *loads, *stores;
} models[] = {
	{ "hsw",     "MEM_UOPS_RETIRED:ALL_LOADS", "MEM_UOPS_RETIRED:ALL_STORES" },
	{ "hsw_ep",  "MEM_UOPS_RETIRED:ALL_LOADS", "MEM_UOPS_RETIRED:ALL_STORES" },
	{ "bdw",     "MEM_UOPS_RETIRED:ALL_LOADS", "MEM_UOPS_RETIRED:ALL_STORES" },
	{ "bdw_ep",  "MEM_UOPS_RETIRED:ALL_LOADS", "MEM_UOPS_RETIRED:ALL_STORES" },
	{ "skl",     "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
	{ "skx",     "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
	{ "clx",     "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
	{ "icl",     "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
	{ "icx",     "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
	{ "spr",     "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
	{ "emr",     "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
	{ "gnr",     "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
	{ "adl_glc", "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
	{ "mtl_rwc", "MEM_INST_RETIRED:ALL_LOADS", "MEM_INST_RETIRED:ALL_STORES" },
};

int hc_pfm_pebs_events(struct hc_pfm_event *loads, struct hc_pfm_event *stores,
                       const char **model, char *err, size_t errlen)
{
	char present[256] = "", name[96];
	const char *perr = "";
	size_t used = 0;
	pfm_pmu_t p;

	*model = NULL;
	if (initialize(&perr) < 0) {
		snprintf(err, errlen, "libpfm4 cannot initialise: %s", perr);
		return -ENOENT;
	}
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;
		memset(&info, 0, sizeof info);
		info.size = sizeof info;
		if (lib.pmu_info(p, &info) != PFM_SUCCESS || !info.is_present || !info.name)
			continue;
		for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
			if (strcmp(info.name, models[i].pmu) != 0)
				continue;
			snprintf(name, sizeof name, "%s::%s", models[i].pmu, models[i].loads);
			if (hc_pfm_encode(name, loads, &perr) < 0)
				goto out_encode;
			snprintf(name, sizeof name, "%s::%s", models[i].pmu, models[i].stores);
			if (hc_pfm_encode(name, stores, &perr) < 0)
				goto out_encode;
			*model = models[i].pmu;
			return 0;
		}
		if (info.type == PFM_PMU_TYPE_CORE && used < sizeof present - 1)
			used += (size_t)snprintf(present + used, sizeof present - used, "%s%s",
			                         used ? ", " : "", info.name);
	}
	snprintf(err, errlen, "no PEBS-capable Intel core PMU known to libpfm4 here "
	         "(libpfm4 found: %s)", used ? present : "no core PMU");
	return -ENOENT;
out_encode:
	snprintf(err, errlen, "libpfm4 cannot encode %s: %s", name, perr);
	return -ENOENT;
}
