/* SPDX-License-Identifier: BSD-3-Clause */
/* probe.c — find out what this machine can measure by trying it (see
   probe.h). Shared by the launcher (-L, refusals before exec) and the
   runtime (sampler selection, logged with the reason). Never runs in
   signal context. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include "hc/common.h"
#include "runtime/probe.h"
#include "runtime/pfm.h"

int hc_event_parse(const char *spec, uint64_t *period, char *err, size_t errlen)
{
	const char *at;
	char *end;
	unsigned long long p;

	*period = HC_DEFAULT_PERIOD;
	if (!spec || !*spec) {
		snprintf(err, errlen, "empty event specification (expected COMM or COMM@PERIOD)");
		return -EINVAL;
	}
	at = strchr(spec, '@');
	if (at ? (size_t)(at - spec) != 4 || strncasecmp(spec, "COMM", 4) != 0
	       : strcasecmp(spec, "COMM") != 0) {
		snprintf(err, errlen, "unknown event '%.*s' in '%s': the only event is COMM (e.g. -e COMM@500000)",
		         at ? (int)(at - spec) : (int)strlen(spec), spec, spec);
		return -EINVAL;
	}
	if (!at)
		return 0;
	errno = 0;
	if (!at[1] || at[1] == '-' || at[1] == '+') {
		snprintf(err, errlen, "bad period in '%s': expected a positive decimal number after '@'", spec);
		return -EINVAL;
	}
	p = strtoull(at + 1, &end, 10);
	if (errno || *end || p == 0) {
		snprintf(err, errlen, "bad period in '%s': expected a positive decimal number after '@'", spec);
		return -EINVAL;
	}
	*period = p;
	return 0;
}

int hc_sampler_parse(const char *s, int *kind)
{
	static const struct { const char *name; int kind; } tab[] = {
		{ "auto", HC_SAMPLER_NONE }, { "soft", HC_SAMPLER_SOFT },
		{ "pebs", HC_SAMPLER_PEBS }, { "ibs", HC_SAMPLER_IBS },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (s && strcmp(s, tab[i].name) == 0) {
			*kind = tab[i].kind;
			return 0;
		}
	return -EINVAL;
}

const char *hc_sampler_name(int kind)
{
	switch (kind) {
	case HC_SAMPLER_SOFT: return "soft";
	case HC_SAMPLER_PEBS: return "pebs";
	case HC_SAMPLER_IBS:  return "ibs";
	default:              return "auto";
	}
}

int hc_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

void hc_soft_attr(struct perf_event_attr *a, uint64_t period_ns, uint64_t cookie)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_TASK_CLOCK;
	a->sample_period = period_ns;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = cookie;
}

void hc_watch_attr(struct perf_event_attr *a, uint64_t addr, uint64_t cookie)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = HW_BREAKPOINT_RW;
	a->bp_addr = addr;
	a->bp_len = HW_BREAKPOINT_LEN_8;
	a->sample_period = 1;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = cookie;
}

int hc_perf_paranoid(void)
{
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	char buf[16] = "";
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	return n > 0 ? atoi(buf) : -1;
}

const char *hc_perf_strerror(int err, int paranoid)
{
	switch (err) {
	case EACCES:
	case EPERM:
		if (paranoid > 2)
			return "perf_event_open is refused: kernel.perf_event_paranoid is above 2; "
			       "fix: sudo sysctl kernel.perf_event_paranoid=2";
		return "perf_event_open is refused (EPERM/EACCES) although perf_event_paranoid <= 2: "
		       "a seccomp filter (e.g. a container's default profile) or a security module denies it; "
		       "fix: allow perf_event_open (docker: --security-opt seccomp=unconfined or --cap-add PERFMON)";
	case ENOSYS:
		return "perf_event_open does not exist here (ENOSYS): the kernel lacks CONFIG_PERF_EVENTS "
		       "or a seccomp filter hides it";
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		return "the event is not supported by this kernel/CPU (no such PMU or event: "
		       "typical inside a virtual machine that exposes no hardware PMU)";
	case EINVAL:
		return "the kernel rejected the event attributes (EINVAL): sigtrap needs Linux >= 5.13";
	case EMFILE:
		return "too many open files (EMFILE): raise the limit with ulimit -n";
	case EBUSY:
		return "the hardware is in use by another tool (EBUSY)";
	default:
		return strerror(err);
	}
}

static int why_errno(char *why, size_t len, const char *what, int err)
{
	snprintf(why, len, "%s: %s", what, hc_perf_strerror(err, hc_perf_paranoid()));
	return -err;
}

int hc_probe_soft(char *why, size_t len)
{
	struct perf_event_attr a;
	int fd;

	hc_soft_attr(&a, HC_DEFAULT_PERIOD, 0);
	fd = hc_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return why_errno(why, len, "soft sampler (task-clock with sigtrap)", errno);
	close(fd);
	snprintf(why, len, "soft sampler available: per-thread task-clock timer with sigtrap delivery, "
	         "addresses decoded from the interrupted instruction (Zydis)");
	return 0;
}

/* Encode a named PMU event with libpfm4 and try to open it as a precise
   address-sampling event, precise_ip 3 down to 1. */
static int try_pebs_event(const char *name, char *why, size_t len)
{
	struct perf_event_attr a;
	struct hc_pfm_event ev;
	const char *perr = "";
	int fd = -1, err = 0;

	if (hc_pfm_encode(name, &ev, &perr) < 0) {
		snprintf(why, len, "libpfm4 cannot encode %s on this CPU (%s)", name, perr);
		return -ENOENT;
	}
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = ev.type;
	a.config = ev.config;
	a.config1 = ev.config1;
	a.config2 = ev.config2;
	a.sample_period = HC_DEFAULT_PERIOD;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	for (int p = 3; p >= 1 && fd < 0; p--) {
		a.precise_ip = (unsigned)p;
		fd = hc_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			err = errno;
	}
	if (fd < 0)
		return why_errno(why, len, name, err);
	close(fd);
	snprintf(why, len, "PEBS event %s opens (precise)", name);
	return 0;
}

int hc_probe_pebs(char *why, size_t len)
{
	static const char *const events[] = {
		"MEM_INST_RETIRED:ALL_STORES",   /* Skylake and later */
		"MEM_UOPS_RETIRED:ALL_STORES",   /* Haswell, Broadwell */
	};
	char tmp[256] = "";
	int ret = -ENOENT;

	for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
		ret = try_pebs_event(events[i], tmp, sizeof tmp);
		if (ret == 0 || ret != -ENOENT)
			break;
	}
	snprintf(why, len, "pebs: %s", tmp);
	return ret;
}

int hc_probe_ibs(char *why, size_t len)
{
	struct perf_event_attr a;
	char buf[32] = "";
	int fd = open("/sys/bus/event_source/devices/ibs_op/type", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		snprintf(why, len, "ibs: no ibs_op PMU in /sys/bus/event_source/devices "
		         "(not an AMD CPU, or the hypervisor does not expose IBS)");
		return -ENOENT;
	}
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0) {
		snprintf(why, len, "ibs: cannot read the ibs_op PMU type");
		return -EIO;
	}
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = (uint32_t)atoi(buf);
	a.sample_period = 0x10000;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_RAW | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	a.disabled = 1;
	a.exclude_kernel = 1;
	fd = hc_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return why_errno(why, len, "ibs: per-thread ibs_op event", errno);
	close(fd);
	snprintf(why, len, "ibs: per-thread ibs_op event opens");
	return 0;
}

int hc_probe_watch(int *count, bool *fast_rearm, char *why, size_t len)
{
	static volatile uint64_t target[HC_LINE / 8] __attribute__((aligned(64)));
	struct perf_event_attr a[4];
	int fd[4], n = 0, err = 0;

	*count = 0;
	*fast_rearm = false;
	for (; n < 4; n++) {
		hc_watch_attr(&a[n], (uint64_t)(uintptr_t)&target[n], 0);
		fd[n] = hc_perf_open(&a[n], 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd[n] < 0) {
			err = errno;
			break;
		}
	}
	*count = n;
	if (n > 0) {
		a[0].bp_addr = (uint64_t)(uintptr_t)&target[5];
		*fast_rearm = ioctl(fd[0], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a[0]) == 0;
	}
	for (int i = 0; i < n; i++)
		close(fd[i]);
	if (n == 0)
		return why_errno(why, len, "watchpoints (perf breakpoints)", err);
	snprintf(why, len, "%d debug-register watchpoints per thread, re-arm %s", n,
	         *fast_rearm ? "in place (PERF_EVENT_IOC_MODIFY_ATTRIBUTES)" : "by close/reopen (slow)");
	return 0;
}

int hc_probe_select(int requested, char *why, size_t len)
{
	char p[256], i[256], s[256];
	int rp, ri, rs;

	/* The PMU back ends (issue 7) are not built into this runtime yet: a PMU
	   that opens is reported, but soft is what runs. */
	if (requested == HC_SAMPLER_PEBS || requested == HC_SAMPLER_IBS) {
		int r = requested == HC_SAMPLER_PEBS ? hc_probe_pebs(p, sizeof p) : hc_probe_ibs(p, sizeof p);
		if (r < 0)
			snprintf(why, len, "%s unavailable: %s", hc_sampler_name(requested), p);
		else
			snprintf(why, len, "%s: the hardware answers (%s) but this runtime has no %s back end yet; "
			         "use --sampler soft", hc_sampler_name(requested), p, hc_sampler_name(requested));
		return -ENOTSUP;
	}
	rs = hc_probe_soft(s, sizeof s);
	if (requested == HC_SAMPLER_SOFT) {
		snprintf(why, len, "%s (requested)", s);
		return rs < 0 ? rs : HC_SAMPLER_SOFT;
	}
	rp = hc_probe_pebs(p, sizeof p);
	ri = hc_probe_ibs(i, sizeof i);
	snprintf(why, len, "auto: %s%s; %s%s; %s",
	         p, rp == 0 ? " (no pebs back end built yet)" : "",
	         i, ri == 0 ? " (no ibs back end built yet)" : "",
	         rs == 0 ? "using soft" : s);
	return rs < 0 ? rs : HC_SAMPLER_SOFT;
}
