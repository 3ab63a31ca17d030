/* SPDX-License-Identifier: BSD-3-Clause */
/* probe.c — find out what this machine can measure by trying it (see
   probe.h). Shared by the launcher (-L, refusals before exec) and the
   runtime (sampler selection, logged with the reason). Never runs in
   signal context. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include "hc/common.h"
#include "probe/probe.h"
#include "probe/pfm.h"
#include "pmu/perfbuf.h"

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
		{ "exact", HC_SAMPLER_EXACT },
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
	case HC_SAMPLER_EXACT: return "exact";
	default:              return "auto";
	}
}

int hc_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/* What every event of ours shares: user space only, created disabled, a
   synchronous SIGTRAP carrying the cookie on overflow, gone at exec. */
static void sigtrap_attr(struct perf_event_attr *a, uint32_t type, uint64_t period,
                         uint64_t cookie)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = type;
	a->sample_period = period;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = cookie;
}

void hc_soft_attr(struct perf_event_attr *a, uint64_t period_ns, uint64_t cookie)
{
	sigtrap_attr(a, PERF_TYPE_SOFTWARE, period_ns, cookie);
	a->config = PERF_COUNT_SW_TASK_CLOCK;
}

void hc_watch_attr(struct perf_event_attr *a, uint64_t addr, uint64_t cookie)
{
	sigtrap_attr(a, PERF_TYPE_BREAKPOINT, 1, cookie);
	a->bp_type = HW_BREAKPOINT_RW;
	a->bp_addr = addr;
	a->bp_len = HW_BREAKPOINT_LEN_8;
}

/* ---- test hooks: the open function and the file-system root ---- */

static hc_perf_open_fn open_hook;

void hc_probe_set_open(hc_perf_open_fn fn)
{
	open_hook = fn;
}

/* Every open made by a probe goes through here (group: a leader's fd, or -1). */
static int probe_open_group(struct perf_event_attr *a, int group)
{
	if (open_hook)
		return open_hook(a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
	return hc_perf_open(a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static int probe_open(struct perf_event_attr *a)
{
	return probe_open_group(a, -1);
}

/* Read a small file under $HPCRUN_COMM_SYSFS_ROOT (default /), trailing
   newline removed. Length read, or -errno. */
static int read_small(const char *rel, char *buf, size_t len)
{
	const char *root = getenv("HPCRUN_COMM_SYSFS_ROOT");
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof path, "%s%s", root && *root ? root : "", rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return (int)n;
}

#define PMU_DIR "/sys/bus/event_source/devices/"

/* The dynamic type of PMU `pmu` from sysfs, or -ENOENT. */
static int pmu_type(const char *pmu)
{
	char rel[128], buf[32], *end;
	long v;

	snprintf(rel, sizeof rel, PMU_DIR "%s/type", pmu);
	if (read_small(rel, buf, sizeof buf) <= 0)
		return -ENOENT;
	v = strtol(buf, &end, 10);
	return *end || v < 0 || v > INT32_MAX ? -EINVAL : (int)v;
}

int hc_perf_paranoid(int *level)
{
	char buf[16], *end;
	long v;
	int n = read_small("/proc/sys/kernel/perf_event_paranoid", buf, sizeof buf);

	if (n <= 0)
		return n < 0 ? n : -EINVAL;
	v = strtol(buf, &end, 10);
	if (*end || v < INT32_MIN || v > INT32_MAX)
		return -EINVAL;
	*level = (int)v;
	return 0;
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
		return "the kernel has no such PMU or event (ENOENT): typical inside a virtual machine "
		       "that exposes no hardware PMU";
	case EOPNOTSUPP:
		return "the PMU does not support this kind of event (EOPNOTSUPP): no precise/address "
		       "sampling here (a virtual PMU without PEBS, or sampling not supported)";
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
	int par = HC_PARANOID_UNKNOWN;

	(void)hc_perf_paranoid(&par);
	snprintf(why, len, "%s: %s", what, hc_perf_strerror(err, par));
	return -err;
}

int hc_probe_soft(char *why, size_t len)
{
	struct perf_event_attr a;
	int fd;

	hc_soft_attr(&a, HC_DEFAULT_PERIOD, 0);
	fd = probe_open(&a);
	if (fd < 0)
		return why_errno(why, len, "soft sampler (task-clock with sigtrap)", errno);
	close(fd);
	snprintf(why, len, "soft sampler available: per-thread task-clock timer with sigtrap delivery, "
	         "addresses decoded from the interrupted instruction (Zydis)");
	return 0;
}

/* ---- PMU sampler attrs ---- */

void hc_pebs_attr(struct perf_event_attr *a, uint32_t type, uint64_t config, uint64_t config1,
                  uint64_t period, int precise, uint64_t cookie)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = type;
	a->config = config;
	a->config1 = config1;
	a->sample_period = period;
	a->sample_type = HC_PEBS_SAMPLE_TYPE;
	a->precise_ip = (unsigned)precise;
	a->disabled = 1;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->exclude_callchain_kernel = 1;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;    /* comparable with process__now() across threads */
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = cookie;
	/* A poll wake-up per record (sigtrap signals every overflow anyway):
	   records pile up only when the handler cannot run (doc/samplers.md). */
	a->wakeup_events = 1;
}

void hc_ibs_attr(struct perf_event_attr *a, uint32_t type, int cnt_bit, uint64_t period,
                 bool exclude_kernel, uint64_t cookie)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = type;
	a->config = cnt_bit >= 0 ? 1ull << cnt_bit : 0;
	a->sample_period = hc_ibs_period(period);
	a->sample_type = HC_IBS_SAMPLE_TYPE;
	a->disabled = 1;
	a->exclude_kernel = exclude_kernel;
	a->use_clockid = 1;
	a->clockid = CLOCK_MONOTONIC;
	a->sigtrap = 1;
	a->remove_on_exec = 1;
	a->sig_data = cookie;
	a->wakeup_events = 1;
}

uint64_t hc_ibs_period(uint64_t period)
{
	period &= ~0xfull;
	return period < 0x10 ? 0x10 : period;
}

void hc_plan_attr(const struct hc_pmu_plan *plan, int i, uint64_t period, uint64_t cookie,
                  struct perf_event_attr *out)
{
	*out = plan->attr[i];
	out->sample_period = plan->kind == HC_SAMPLER_IBS ? hc_ibs_period(period) : period;
	out->sig_data = cookie;
}

/* ---- PEBS ---- */

/* Open the loads event and, in its group, the stores event, both at
   precise_ip p. 0, or the errno of the refusal (*which: 0 loads, 1 stores). */
static int open_pair(struct perf_event_attr *ld, struct perf_event_attr *st, int p, int *which)
{
	int fd0, fd1, err;

	ld->precise_ip = st->precise_ip = (unsigned)p;
	*which = 0;
	fd0 = probe_open_group(ld, -1);
	if (fd0 < 0)
		return errno;
	*which = 1;
	fd1 = probe_open_group(st, fd0);
	err = fd1 < 0 ? errno : 0;
	if (fd1 >= 0)
		close(fd1);
	close(fd0);
	return err;
}

int hc_probe_pebs_plan(struct hc_pmu_plan *plan, char *why, size_t len)
{
	struct hc_pfm_event ld, st;
	struct hc_pmu_plan tmp;
	const char *model = NULL;
	char err[256], caps[64] = "", hybrid[96] = "", pair[200] = "";
	int core, maxp = 3, p, e = EOPNOTSUPP, which = 0;

	if (!plan)
		plan = &tmp;
	memset(plan, 0, sizeof *plan);
	/* The core PMU: "cpu", or "cpu_core" (the P-cores) on hybrid parts. */
	core = pmu_type("cpu_core");
	if (core >= 0) {
		snprintf(hybrid, sizeof hybrid, "; hybrid CPU: P-core PMU cpu_core (type %d), "
		         "threads while on E-cores are not sampled", core);
		if (read_small(PMU_DIR "cpu_core/caps/max_precise", caps, sizeof caps) > 0)
			maxp = atoi(caps);
	} else if (pmu_type("cpu") < 0) {
		snprintf(why, len, "pebs: no hardware core PMU in " PMU_DIR " (no 'cpu' or 'cpu_core': "
		         "a virtual machine without a virtual PMU, or not an x86 PMU)");
		return -ENOENT;
	} else if (read_small(PMU_DIR "cpu/caps/max_precise", caps, sizeof caps) > 0) {
		maxp = atoi(caps);
	}
	if (hc_pfm_pebs_events(&ld, &st, &model, err, sizeof err) < 0) {
		snprintf(why, len, "pebs: %s", err);
		return -ENOENT;
	}
	if (maxp < 1) {
		snprintf(why, len, "pebs: %s: the kernel reports max_precise=%d: no precise (PEBS) "
		         "sampling on this PMU (a virtual PMU without PEBS?)", model, maxp);
		return -EOPNOTSUPP;
	}
	if (maxp > 3)
		maxp = 3;
	if (core >= 0)
		ld.type = st.type = (uint32_t)core;
	hc_pebs_attr(&plan->attr[0], ld.type, ld.config, ld.config1, HC_DEFAULT_PERIOD, maxp, 0);
	hc_pebs_attr(&plan->attr[1], st.type, st.config, st.config1, HC_DEFAULT_PERIOD, maxp, 0);
	/* Loads and stores as one group, from max_precise down: the kernel
	   validates a group's counter assignment at open (x86 validate_group),
	   so a pair that could only take turns is refused here instead of
	   running each event half the time. At precise_ip 3 Sapphire Rapids
	   and later P-cores put both on counter 0 (spr_get_event_constraints):
	   refused, and 2 is used. */
	for (p = maxp; p >= 1; p--) {
		e = open_pair(&plan->attr[0], &plan->attr[1], p, &which);
		if (e == 0)
			break;
		if (which == 1 && e == EINVAL && !pair[0])
			snprintf(pair, sizeof pair, "; precise_ip=%d refused for the pair (the loads and "
			         "stores events cannot be scheduled together at that level, e.g. both need "
			         "counter 0)", p);
		if (e != EOPNOTSUPP && e != EINVAL)
			break;               /* refused outright: lower levels will not help */
	}
	if (e != 0)
		goto out_refused;
	plan->kind = HC_SAMPLER_PEBS;
	plan->nevents = 2;
	plan->store_event[1] = true;
	plan->precise = p;
	plan->group = true;
	snprintf(plan->model, sizeof plan->model, "%s", model);
	snprintf(why, len, "pebs: %s load and store events (raw 0x%llx, 0x%llx) open as one group with "
	         "precise_ip=%d%s%s%s", model, (unsigned long long)ld.config, (unsigned long long)st.config,
	         p, p == 1 ? " (IP is the next instruction: the access is decoded backwards)" : "",
	         pair, hybrid);
	return 0;
out_refused:
	if (e == EOPNOTSUPP || e == EINVAL)
		snprintf(why, len, "pebs: %s: the precise load/store events are refused at every "
		         "precise_ip %d..1 (%s): no PEBS here", model, maxp, strerror(e));
	else {
		char what[96];
		snprintf(what, sizeof what, "pebs: %s precise load/store events", model);
		why_errno(why, len, what, e);
	}
	return -e;
}

int hc_probe_standin_plan(const char *event, struct hc_pmu_plan *plan, char *why, size_t len)
{
	struct hc_pmu_plan tmp;
	uint64_t config;
	int fd;

	if (!plan)
		plan = &tmp;
	memset(plan, 0, sizeof *plan);
	if (strcmp(event, "task-clock") == 0)
		config = PERF_COUNT_SW_TASK_CLOCK;
	else if (strcmp(event, "cpu-clock") == 0)
		config = PERF_COUNT_SW_CPU_CLOCK;
	else {
		snprintf(why, len, "pebs: HPCRUN_COMM_PMU_STANDIN='%s' is not task-clock or cpu-clock", event);
		return -EINVAL;
	}
	for (int i = 0; i < 2; i++)
		hc_pebs_attr(&plan->attr[i], PERF_TYPE_SOFTWARE, config, 0, HC_DEFAULT_PERIOD, 0, 0);
	fd = probe_open(&plan->attr[0]);
	if (fd < 0)
		return why_errno(why, len, "pebs: STAND-IN software event", errno);
	close(fd);
	plan->kind = HC_SAMPLER_PEBS;
	plan->nevents = 2;
	plan->store_event[1] = true;
	plan->precise = 0;
	plan->standin = true;
	plan->group = true;
	snprintf(plan->model, sizeof plan->model, "standin-%s", event);
	snprintf(why, len, "pebs: STAND-IN (test only, HPCRUN_COMM_PMU_STANDIN): software %s events "
	         "in place of the load and store events, PEBS settings otherwise; no hardware "
	         "addresses: the newest record at the interrupted PC is decoded with the signal's "
	         "registers", event);
	return 0;
}

int hc_probe_pebs(char *why, size_t len)
{
	return hc_probe_pebs_plan(NULL, why, len);
}

/* ---- IBS ---- */

/* The bit of a sysfs format file "<field>:<bit>" of ibs_op (cnt_ctl:
   "config:19", swfilt: "config2:0"), or -ENOENT if absent. */
static int ibs_format_bit(const char *name, const char *field)
{
	char buf[32], rel[128];
	size_t n = strlen(field);
	int bit;

	snprintf(rel, sizeof rel, PMU_DIR "ibs_op/format/%s", name);
	if (read_small(rel, buf, sizeof buf) <= 0 || strncmp(buf, field, n) != 0 || buf[n] != ':')
		return -ENOENT;
	bit = atoi(buf + n + 1);
	return bit >= 0 && bit < 64 ? bit : -ENOENT;
}

/* The running kernel's major*100 + minor, from proc/sys/kernel/osrelease
   (under $HPCRUN_COMM_SYSFS_ROOT); 0 when unknown. */
static int kernel_version(char *rel, size_t len)
{
	int maj = 0, min = 0;

	if (read_small("/proc/sys/kernel/osrelease", rel, len) <= 0 ||
	    sscanf(rel, "%d.%d", &maj, &min) != 2)
		return 0;
	return maj * 100 + min;
}

int hc_probe_ibs_plan(struct hc_pmu_plan *plan, char *why, size_t len)
{
	struct hc_pmu_plan tmp;
	char rel[64] = "";
	int type = pmu_type("ibs_op"), bit, sw, kv, fd, e, par;

	if (!plan)
		plan = &tmp;
	memset(plan, 0, sizeof *plan);
	if (type < 0) {
		snprintf(why, len, "ibs: no ibs_op PMU in " PMU_DIR
		         " (not an AMD CPU, or the hypervisor does not expose IBS)");
		return -ENOENT;
	}
	bit = ibs_format_bit("cnt_ctl", "config");
	if (bit < 0) {
		snprintf(why, len, "ibs: ibs_op has no op-counting mode (no format/cnt_ctl): its period "
		         "would count cycles, not ops; not used");
		return -EOPNOTSUPP;
	}
	/* Per-task IBS events exist since Linux 6.2 (30093056f7b2: before,
	   ibs_op had no task context and any per-thread event is EINVAL,
	   whatever the privileges). */
	kv = kernel_version(rel, sizeof rel);
	if (kv && kv < 602) {
		snprintf(why, len, "ibs: per-thread IBS needs Linux >= 6.2 (this kernel is %s: its "
		         "ibs_op PMU accepts only CPU-wide events, for any user)", rel);
		return -EOPNOTSUPP;
	}
	/* Without the software filter (format/swfilt = config2:0, Linux 6.14)
	   IBS refuses exclude_kernel (perf_ibs_init: EINVAL); with it the
	   kernel drops kernel samples itself. */
	sw = ibs_format_bit("swfilt", "config2");
	hc_ibs_attr(&plan->attr[0], (uint32_t)type, bit, HC_DEFAULT_PERIOD, true, 0);
	if (sw >= 0)
		plan->attr[0].config2 |= 1ull << sw;
	fd = probe_open(&plan->attr[0]);
	if (fd < 0 && errno == EINVAL && sw < 0) {
		/* Sample everything, drop kernel ops when decoding. Including
		   kernel samples needs perf_event_paranoid <= 1 (or
		   CAP_PERFMON): perf_event_open checks it before IBS sees the
		   event. */
		plan->attr[0].exclude_kernel = 0;
		fd = probe_open(&plan->attr[0]);
		par = HC_PARANOID_UNKNOWN;
		(void)hc_perf_paranoid(&par);
		if (fd < 0 && (errno == EACCES || errno == EPERM) && par > 1) {
			e = errno;
			snprintf(why, len, "ibs: this kernel's IBS cannot exclude kernel samples (no "
			         "format/swfilt: it refuses exclude_kernel; the filter came with Linux 6.14), "
			         "and kernel.perf_event_paranoid=%d forbids including them: run as root or "
			         "with CAP_PERFMON, or sudo sysctl kernel.perf_event_paranoid=1", par);
			return -e;
		}
	}
	if (fd < 0 && errno == EINVAL) {
		snprintf(why, len, "ibs: the kernel refuses a per-thread ibs_op event (EINVAL)%s",
		         kv ? "" : " (per-thread IBS needs Linux >= 6.2)");
		return -EINVAL;
	}
	if (fd < 0)
		return why_errno(why, len, "ibs: per-thread ibs_op event", errno);
	close(fd);
	plan->kind = HC_SAMPLER_IBS;
	plan->nevents = 1;
	plan->swfilt = sw >= 0;
	snprintf(plan->model, sizeof plan->model, "ibs_op");
	snprintf(why, len, "ibs: per-thread ibs_op event (type %d) opens, counting ops (config:%d)%s",
	         type, bit, plan->swfilt ? "; kernel samples filtered by the kernel (swfilt)" :
	         plan->attr[0].exclude_kernel ? "" :
	         "; kernel ops are sampled too and dropped (this kernel cannot exclude them)");
	return 0;
}

int hc_probe_ibs(char *why, size_t len)
{
	return hc_probe_ibs_plan(NULL, why, len);
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
	/* Do they fire? Some hypervisors accept the events but never raise
	   the debug exception (seen on this project's KVM guests: 0 hits).
	   A counting event without a signal, on a word written just below. */
	{
		struct perf_event_attr c = a[0];
		uint64_t hits = 0;
		int cfd;

		c.bp_addr = (uint64_t)(uintptr_t)&target[7];
		c.sigtrap = 0;
		c.remove_on_exec = 0;
		c.sample_period = 0;
		c.disabled = 0;
		cfd = hc_perf_open(&c, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (cfd >= 0) {
			for (int i = 0; i < 4; i++)
				target[7] = (uint64_t)i;
			if (read(cfd, &hits, sizeof hits) != (ssize_t)sizeof hits)
				hits = 0;
			close(cfd);
			if (hits == 0) {
				*count = 0;
				snprintf(why, len, "the debug registers open (%d per thread) but never fire "
				         "(4 writes to a watched word, 0 hits: the hypervisor does not deliver "
				         "debug exceptions)", n);
				return -ENODEV;
			}
		}
	}
	snprintf(why, len, "%d debug-register watchpoints per thread, re-arm %s", n,
	         *fast_rearm ? "in place (PERF_EVENT_IOC_MODIFY_ATTRIBUTES)" : "by close/reopen (slow)");
	return 0;
}

int hc_probe_select(int requested, struct hc_pmu_plan *plan, char *why, size_t len)
{
	char p[512], i[512], s[512];
	struct hc_pmu_plan tmp;
	int rp, ri, rs;

	if (!plan)
		plan = &tmp;
	memset(plan, 0, sizeof *plan);
	if (requested == HC_SAMPLER_EXACT) {
		snprintf(why, len, "exact (requested): every access of the instrumented code "
		         "(hpcrun-comm-cc), no sampling");
		return HC_SAMPLER_EXACT;
	}
	if (requested == HC_SAMPLER_PEBS || requested == HC_SAMPLER_IBS) {
		const char *standin = getenv("HPCRUN_COMM_PMU_STANDIN");
		int r = requested == HC_SAMPLER_IBS ? hc_probe_ibs_plan(plan, p, sizeof p) :
		        standin && *standin ? hc_probe_standin_plan(standin, plan, p, sizeof p) :
		        hc_probe_pebs_plan(plan, p, sizeof p);
		if (r < 0) {
			snprintf(why, len, "%s (requested) unavailable: %s", hc_sampler_name(requested), p);
			return r;
		}
		snprintf(why, len, "%s (requested)", p);
		return requested;
	}
	if (requested == HC_SAMPLER_SOFT) {
		rs = hc_probe_soft(s, sizeof s);
		snprintf(why, len, "%s (requested)", s);
		return rs < 0 ? rs : HC_SAMPLER_SOFT;
	}
	rp = hc_probe_pebs_plan(plan, p, sizeof p);
	if (rp == 0) {
		snprintf(why, len, "auto: using pebs; %s", p);
		return HC_SAMPLER_PEBS;
	}
	ri = hc_probe_ibs_plan(plan, i, sizeof i);
	if (ri == 0) {
		snprintf(why, len, "auto: using ibs; %s; %s", i, p);
		return HC_SAMPLER_IBS;
	}
	rs = hc_probe_soft(s, sizeof s);
	if (rs == 0)
		snprintf(why, len, "auto: using soft; %s; %s", p, i);
	else
		snprintf(why, len, "auto: nothing can sample; %s; %s; soft: %s", p, i, s);
	return rs < 0 ? rs : HC_SAMPLER_SOFT;
}

/* ---- periods ---- */

uint64_t hc_pmu_period(int kind, uint64_t requested)
{
	switch (kind) {
	case HC_SAMPLER_PEBS:
		return requested < HC_MIN_PEBS_PERIOD ? HC_MIN_PEBS_PERIOD : requested;
	case HC_SAMPLER_IBS:
		return hc_ibs_period(requested < HC_MIN_IBS_PERIOD ? HC_MIN_IBS_PERIOD : requested);
	default:
		return requested;
	}
}

uint64_t hc_bb_expiry_ns(int kind, uint64_t period)
{
	switch (kind) {
	case HC_SAMPLER_PEBS: return 2 * period;        /* ~1 load (or store) per ns */
	case HC_SAMPLER_IBS:  return 2 * period / 3;    /* ~3 ops per ns */
	default:              return 2 * period;        /* already ns of CPU time */
	}
}

uint64_t hc_bb_expiry_measured(uint64_t period, uint64_t count, uint64_t enabled,
                               uint64_t fallback)
{
	unsigned __int128 e;
	uint64_t lo = fallback / 64 ? fallback / 64 : 1, hi = fallback > UINT64_MAX / 64 ? UINT64_MAX : fallback * 64;

	if (period == 0 || enabled == 0 || count / HC_BB_RATE_MIN_PERIODS < period)
		return fallback;
	e = (unsigned __int128)2 * period * enabled / count;
	return e < lo ? lo : e > hi ? hi : (uint64_t)e;
}

uint64_t hc_bb_expiry_blend(uint64_t board, uint64_t measured)
{
	if (board == 0)
		return measured;
	return board - board / 4 + measured / 4;
}

/* ---- the self-check ---- */

/* Sampling period of the check: prime (no phase lock with the loop),
   small enough for tens of records in a few ms, large enough not to be
   throttled at the kernel's default rate. */
#define CHECK_PEBS_PERIOD 10007ull
#define CHECK_IBS_PERIOD  (HC_MIN_IBS_PERIOD / 4)
#define CHECK_BUF  (64u << 10)
#define CHECK_ITERS 400000u           /* ~4 loads + 4 stores each: ~3.2 M ops, 1-3 ms */

static uint64_t check_buf[CHECK_BUF / 8] __attribute__((aligned(64)));
static hc_selfcheck_fn selfcheck_hook;

void hc_probe_set_selfcheck(hc_selfcheck_fn fn)
{
	selfcheck_hook = fn;
}

struct check_drain {
	struct hc_selfcheck *o;
	int i;
	int kind;
};

static void check_record(const struct hc_perf_sample *ps, void *arg)
{
	struct check_drain *d = arg;
	uint64_t lo = (uint64_t)(uintptr_t)check_buf, addr = ps->addr;

	d->o->records[d->i]++;
	if (d->kind == HC_SAMPLER_IBS) {
		struct hc_ibs_op op;
		if (hc_ibs_decode(ps->raw, ps->raw_size, &op) != HC_IBS_MEM)
			return;
		addr = op.addr;
	}
	if (!addr)
		return;
	d->o->with_addr[d->i]++;
	if (addr - lo < sizeof check_buf)
		d->o->in_buffer[d->i]++;
}

/* The known loop: loads and stores on check_buf only (its index in a
   register), nothing else in memory. */
static __attribute__((noinline)) uint64_t check_loop(unsigned iters)
{
	volatile uint64_t *b = check_buf;
	uint64_t sum = 0;
	const unsigned n = CHECK_BUF / 8;

	for (unsigned k = 0; k < iters; k++) {
		unsigned j = (k * 8) & (n - 1);
		sum += b[j] + b[j + 1] + b[j + 2] + b[j + 3];
		b[j + 4] = sum;
		b[j + 5] = k;
		b[j + 6] = sum ^ k;
		b[j + 7] = sum + k;
	}
	return sum;
}

int hc_selfcheck_run(const struct hc_pmu_plan *plan, struct hc_selfcheck *o)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (1 + 8) * page;
	struct hc_perfbuf buf[2];
	struct perf_event_attr a[2];
	void *base[2] = { NULL, NULL };
	int fd[2] = { -1, -1 }, n = plan->nevents > 2 ? 2 : plan->nevents, err = 0;

	memset(o, 0, sizeof *o);
	o->nevents = n;
#define FAIL(st) do { err = errno ? errno : EINVAL; snprintf(o->stage, sizeof o->stage, "%s", st); \
		goto out; } while (0)
	for (int i = 0; i < n; i++) {
		a[i] = plan->attr[i];
		a[i].sample_period = plan->kind == HC_SAMPLER_IBS ? hc_ibs_period(CHECK_IBS_PERIOD)
		                                                 : CHECK_PEBS_PERIOD;
		a[i].sigtrap = 0;                /* no handler needed: runs in the launcher too */
		a[i].remove_on_exec = 0;
		a[i].sig_data = 0;
		a[i].disabled = 1;
		a[i].read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
		errno = 0;
		fd[i] = probe_open_group(&a[i], plan->group && i > 0 ? fd[0] : -1);
		if (fd[i] < 0)
			FAIL("open");
		base[i] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd[i], 0);
		if (base[i] == MAP_FAILED) {
			base[i] = NULL;
			FAIL("mmap");
		}
		if (hc_perfbuf_init(&buf[i], base[i], len, page, a[i].sample_type) < 0) {
			errno = EINVAL;
			FAIL("mmap");
		}
	}
	for (int i = 0; i < n; i++)
		if (ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			FAIL("enable");
	(void)check_loop(CHECK_ITERS);
	for (int i = 0; i < n; i++)
		ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
	o->loop_ops = 8ull * CHECK_ITERS;
	for (int i = 0; i < n; i++) {
		uint64_t v[3];
		struct hc_perfbuf_stats st;
		struct check_drain d = { .o = o, .i = i, .kind = plan->kind };

		if (read(fd[i], v, sizeof v) != (ssize_t)sizeof v)
			FAIL("read");
		o->enabled[i] = v[1];
		o->running[i] = v[2];
		memset(&st, 0, sizeof st);
		hc_perfbuf_drain(&buf[i], check_record, &d, &st);
		o->throttled += st.throttle;
		o->lost += st.lost + st.lost_samples;
	}
#undef FAIL
out:
	for (int i = n - 1; i >= 0; i--) {
		if (base[i])
			munmap(base[i], len);
		if (fd[i] >= 0)
			close(fd[i]);
	}
	o->err = err;
	return -err;
}

int hc_selfcheck_decide(const struct hc_pmu_plan *plan, const struct hc_selfcheck *o,
                        char *why, size_t len)
{
	static const char *const pebs_names[2] = { "loads", "stores" };
	const char *name[2] = { "ibs_op", "ibs_op" };
	int n = o->nevents, none = 0, some = 0;

	if (plan->kind == HC_SAMPLER_PEBS)
		name[0] = pebs_names[0], name[1] = pebs_names[1];
	if (o->err) {
		snprintf(why, len, "the events could not be run (%s: %s)", o->stage[0] ? o->stage : "?",
		         strerror(o->err));
		return -o->err;
	}
	for (int i = 0; i < n; i++)
		o->records[i] ? some++ : none++;
	if (some == 0) {
		snprintf(why, len, "no records at all from a loop of %llu loads and stores: the events "
		         "open but do not sample here", (unsigned long long)o->loop_ops);
		return -EIO;
	}
	if (none) {
		int got = o->records[0] ? 0 : 1;
		snprintf(why, len, "only the %s event produced records (%llu; the %s event none): the "
		         "pair does not sample together", name[got], (unsigned long long)o->records[got],
		         name[1 - got]);
		return -EIO;
	}
	for (int i = 0; i < n; i++) {
		if (o->with_addr[i] == 0) {
			snprintf(why, len, "the %s event's %llu records carry no data address (zero)",
			         name[i], (unsigned long long)o->records[i]);
			return -EIO;
		}
		if (o->in_buffer[i] * 10 < o->with_addr[i] * 9) {
			snprintf(why, len, "the %s event's addresses are not where the loop accessed: "
			         "%llu of %llu in its buffer (expected >= 90%%)", name[i],
			         (unsigned long long)o->in_buffer[i], (unsigned long long)o->with_addr[i]);
			return -EIO;
		}
		if (hc_pmu_running_low(o->enabled[i], o->running[i])) {
			snprintf(why, len, "the %s event ran only %llu%% of the time it was enabled (not "
			         "scheduled meanwhile: counters taken by other users or constraints)", name[i],
			         (unsigned long long)(o->running[i] * 100 / o->enabled[i]));
			return -EIO;
		}
	}
	char cnt[64];
	if (n > 1)
		snprintf(cnt, sizeof cnt, "%llu + %llu", (unsigned long long)o->records[0],
		         (unsigned long long)o->records[1]);
	else
		snprintf(cnt, sizeof cnt, "%llu", (unsigned long long)o->records[0]);
	snprintf(why, len, "passed (%s records, addresses in the loop's buffer, running = enabled)%s",
	         cnt, o->throttled ? "; note: throttled during the check (kernel.perf_event_max_sample_rate "
	         "is low: the measurement may be throttled too)" : "");
	return 0;
}

static int run_check(const struct hc_pmu_plan *plan, char *why, size_t len)
{
	struct hc_selfcheck o;

	(selfcheck_hook ? selfcheck_hook : hc_selfcheck_run)(plan, &o);
	return hc_selfcheck_decide(plan, &o, why, len);
}

int hc_probe_select_checked(int requested, struct hc_pmu_plan *plan, char *why, size_t len)
{
	char sel[1024], chk[384], first[512], ibs[512], soft[512];
	struct hc_pmu_plan tmp;
	int r;

	if (!plan)
		plan = &tmp;
	r = hc_probe_select(requested, plan, sel, sizeof sel);
	if ((r != HC_SAMPLER_PEBS && r != HC_SAMPLER_IBS) || plan->standin) {
		snprintf(why, len, "%s", sel);
		return r;
	}
	if (run_check(plan, chk, sizeof chk) == 0) {
		snprintf(why, len, "%s; self-check: %s", sel, chk);
		return r;
	}
	if (requested == HC_SAMPLER_PEBS || requested == HC_SAMPLER_IBS) {
		snprintf(why, len, "%s (requested) failed the self-check: %s; (%s)",
		         hc_sampler_name(requested), chk, sel);
		return -EIO;
	}
	/* auto: the next sampler, checked too */
	snprintf(first, sizeof first, "%s opens but failed the self-check: %s", hc_sampler_name(r), chk);
	if (r == HC_SAMPLER_PEBS && hc_probe_ibs_plan(plan, ibs, sizeof ibs) == 0) {
		if (run_check(plan, chk, sizeof chk) == 0) {
			snprintf(why, len, "auto: using ibs; %s; self-check: %s; pebs: %s", ibs, chk, first);
			return HC_SAMPLER_IBS;
		}
		snprintf(ibs, sizeof ibs, "ibs opens but failed the self-check: %s", chk);
	} else if (r == HC_SAMPLER_PEBS) {
		/* ibs[] holds hc_probe_ibs_plan's reason */
	} else {
		(void)hc_probe_pebs(ibs, sizeof ibs);   /* ibs was chosen: pebs's reason, for the words */
	}
	memset(plan, 0, sizeof *plan);
	r = hc_probe_soft(soft, sizeof soft);
	if (r < 0) {
		snprintf(why, len, "auto: nothing can sample; %s%s%s; soft: %s", first, ibs[0] ? "; " : "",
		         ibs, soft);
		return r;
	}
	snprintf(why, len, "auto: using soft; %s%s%s", first, ibs[0] ? "; " : "", ibs);
	return HC_SAMPLER_SOFT;
}
