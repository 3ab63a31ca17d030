/* SPDX-License-Identifier: BSD-3-Clause */
/* test_probe.c — PMU sampler encodings, probing and selection without the
   hardware (lib/probe/pfm.c, probe.c).
   Encodings: for each supported Intel model, libpfm4 is forced to that PMU
   (LIBPFM_FORCE_PMU) and the encoded events must be the documented raw
   codes (MEM_INST_RETIRED.ALL_LOADS = event 0xD0 umask 0x81, ALL_STORES =
   0xD0/0x82 on Skylake and later; MEM_UOPS_RETIRED.* the same codes on
   Haswell and Broadwell).
   Probing and selection: the probes read sysfs under HPCRUN_COMM_SYSFS_ROOT
   (trees in tests/data/pmu) and open events through an injected function
   that plays the kernel: it opens fine, or refuses with EACCES, ENOENT,
   EOPNOTSUPP or EINVAL depending on the attr. Each scenario runs in a child
   process because libpfm4 reads LIBPFM_FORCE_PMU once per process. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hc_test.h"
#include "hc/common.h"
#include "probe/pfm.h"
#include "probe/probe.h"
#include "pmu/perfbuf.h"

static char datadir[1024];

/* ---- the fake kernel ---- */

static struct {
	int hw_err[4];        /* errno for a hardware (raw or cpu_core) event at precise_ip 0..3, 0 = opens */
	int ibs_err_excl;     /* errno for ibs_op with exclude_kernel = 1 */
	int ibs_err_all;      /* ... with exclude_kernel = 0 */
	int soft_err;
	int group_err[4];     /* errno for a group sibling at precise_ip 0..3 (x86 validate_group) */
	int ibs_err_swfilt;   /* errno for ibs_op with config2 bit 0 (swfilt) */
	int ngroup;           /* siblings opened in a group */
	int calls;
	struct perf_event_attr last_ok[8];
	int nok;
} k;

static int fake_open(struct perf_event_attr *a, int pid, int cpu, int group, unsigned long flags)
{
	int err;

	k.calls++;
	if (pid != 0 || cpu != -1 || group < -1 || !(flags & PERF_FLAG_FD_CLOEXEC) || a->size != sizeof *a) {
		errno = EINVAL;               /* the probes open per-thread, self, cloexec */
		return -1;
	}
	if (group >= 0 && fcntl(group, F_GETFD) < 0) {
		errno = EBADF;                /* a leader must be an fd we returned, still open */
		return -1;
	}
	if (a->type == PERF_TYPE_SOFTWARE)
		err = k.soft_err;
	else if (a->type == 11 || a->type == 10)   /* ibs_op of amd-zen3 / amd-noopcnt */
		err = a->config2 & 1 ? k.ibs_err_swfilt : a->exclude_kernel ? k.ibs_err_excl : k.ibs_err_all;
	else if (a->type == PERF_TYPE_RAW || a->type == 44)
		err = k.hw_err[a->precise_ip & 3];
	else
		err = ENOENT;
	if (!err && group >= 0) {
		err = k.group_err[a->precise_ip & 3];
		if (!err)
			k.ngroup++;
	}
	if (err) {
		errno = err;
		return -1;
	}
	if (k.nok < 8)
		k.last_ok[k.nok++] = *a;
	return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static void use_tree(const char *name)
{
	char root[1200];
	snprintf(root, sizeof root, "%s/%s", datadir, name);
	setenv("HPCRUN_COMM_SYSFS_ROOT", root, 1);
}

/* Run fn in a child with LIBPFM_FORCE_PMU=pmu (NULL: unset); it passes when
   all its checks held. */
static void scenario(const char *what, const char *pmu, void (*fn)(void))
{
	pid_t p;
	int status = 0;

	fflush(stderr);
	p = fork();
	if (p == 0) {
		if (pmu)
			setenv("LIBPFM_FORCE_PMU", pmu, 1);
		else
			unsetenv("LIBPFM_FORCE_PMU");
		memset(&k, 0, sizeof k);
		hc_probe_set_open(fake_open);
		fn();
		fflush(stdout);
		_exit(hc_test_failures ? 1 : 0);
	}
	CHECK(p > 0 && waitpid(p, &status, 0) == p);
	CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "scenario '%s' failed", what);
	fprintf(stderr, "scenario %-48s %s\n", what, WIFEXITED(status) && !WEXITSTATUS(status) ? "ok" : "FAILED");
}

static bool has(const char *s, const char *needle)
{
	bool ok = strstr(s, needle) != NULL;
	if (!ok)
		fprintf(stderr, "  expected '%s' in: %s\n", needle, s);
	return ok;
}

/* ---- encodings ---- */

static const char *expect_model;

static void encode_one(void)
{
	struct hc_pfm_event ld, st;
	const char *model = NULL;
	char err[256] = "";

	CHECK_MSG(hc_pfm_pebs_events(&ld, &st, &model, err, sizeof err) == 0, "%s", err);
	CHECK_STR(model, expect_model);
	CHECK_EQ_U64(ld.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(st.type, PERF_TYPE_RAW);
	CHECK_EQ_U64(ld.config & 0xff, 0xd0);            /* event code */
	CHECK_EQ_U64((ld.config >> 8) & 0xff, 0x81);     /* umask ALL_LOADS */
	CHECK_EQ_U64(st.config & 0xff, 0xd0);
	CHECK_EQ_U64((st.config >> 8) & 0xff, 0x82);     /* umask ALL_STORES */
	CHECK_EQ_U64(ld.config, 0x81d0);                 /* nothing else set (cmask, inv, edge...) */
	CHECK_EQ_U64(st.config, 0x82d0);
	CHECK_EQ_U64(ld.config1 | st.config1, 0);
}

static void encode_none(void)
{
	struct hc_pfm_event ld, st;
	const char *model = NULL;
	char err[256] = "";

	CHECK(hc_pfm_pebs_events(&ld, &st, &model, err, sizeof err) == -ENOENT);
	CHECK(model == NULL);
	CHECK(has(err, "no PEBS-capable Intel core PMU"));
	CHECK(has(err, expect_model));                   /* names what libpfm4 found */
}

static void test_encodings(void)
{
	static const char *const intel[] = { "hsw", "hsw_ep", "bdw", "bdw_ep", "skl", "skx", "clx",
	                                     "icl", "icx", "spr" };
	char what[64];

	for (size_t i = 0; i < sizeof intel / sizeof intel[0]; i++) {
		expect_model = intel[i];
		snprintf(what, sizeof what, "encode PEBS events for %s", intel[i]);
		scenario(what, intel[i], encode_one);
	}
	expect_model = "amd64_fam19h_zen3";
	scenario("no PEBS events on AMD Zen 3", "amd64_fam19h_zen3", encode_none);
}

/* ---- probing ---- */

static void check_pebs_attr(const struct perf_event_attr *a, uint64_t config, int precise)
{
	CHECK_EQ_U64(a->type, PERF_TYPE_RAW);
	CHECK_EQ_U64(a->config, config);
	CHECK_EQ_U64(a->sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_TID |
	             PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC);
	CHECK_EQ_U64(a->precise_ip, precise);
	CHECK(a->exclude_kernel && a->exclude_hv && a->disabled);
	CHECK(a->sigtrap && a->remove_on_exec && !a->inherit);
	CHECK(a->use_clockid && a->clockid == CLOCK_MONOTONIC);
	CHECK_EQ_U64(a->wakeup_events, 1);
	CHECK(!a->watermark);
}

/* The TEST-ONLY stand-in: only for an explicit pebs request, PEBS's attrs
   on a software event, precise_ip 0; auto never uses it; a bad value is
   refused with the reason. */
static void pebs_standin(void)
{
	struct hc_pmu_plan plan;
	struct perf_event_attr a;
	char why[1024];

	use_tree("vm");
	setenv("HPCRUN_COMM_PMU_STANDIN", "task-clock", 1);
	CHECK(hc_probe_select(HC_SAMPLER_PEBS, &plan, why, sizeof why) == HC_SAMPLER_PEBS);
	CHECK(has(why, "STAND-IN (test only"));
	CHECK(plan.kind == HC_SAMPLER_PEBS && plan.nevents == 2 && plan.standin && plan.precise == 0);
	CHECK(!plan.store_event[0] && plan.store_event[1]);
	for (int i = 0; i < 2; i++) {
		hc_plan_attr(&plan, i, 200000, 0x5a00000000000001ull, &a);
		CHECK_EQ_U64(a.type, PERF_TYPE_SOFTWARE);
		CHECK_EQ_U64(a.config, PERF_COUNT_SW_TASK_CLOCK);
		a.type = PERF_TYPE_RAW;             /* everything else exactly as PEBS */
		check_pebs_attr(&a, PERF_COUNT_SW_TASK_CLOCK, 0);
		CHECK_EQ_U64(a.sample_period, 200000);
		CHECK_EQ_U64(a.sig_data, 0x5a00000000000001ull);
	}
	CHECK(k.nok == 1 && k.last_ok[0].type == PERF_TYPE_SOFTWARE);
	setenv("HPCRUN_COMM_PMU_STANDIN", "cpu-clock", 1);
	CHECK(hc_probe_select(HC_SAMPLER_PEBS, &plan, why, sizeof why) == HC_SAMPLER_PEBS);
	CHECK_EQ_U64(plan.attr[1].config, PERF_COUNT_SW_CPU_CLOCK);
	/* auto: the real probes, never the stand-in */
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK(!plan.standin && has(why, "pebs: no hardware core PMU"));
	setenv("HPCRUN_COMM_PMU_STANDIN", "cycles", 1);
	CHECK(hc_probe_select(HC_SAMPLER_PEBS, &plan, why, sizeof why) == -EINVAL);
	CHECK(has(why, "'cycles' is not task-clock or cpu-clock"));
	unsetenv("HPCRUN_COMM_PMU_STANDIN");
}

static void pebs_opens(void)
{
	struct hc_pmu_plan plan;
	char why[1024];

	use_tree("intel-skx");
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_PEBS);
	CHECK(has(why, "using pebs"));
	CHECK(has(why, "skx"));
	CHECK(has(why, "precise_ip=3"));
	CHECK(plan.kind == HC_SAMPLER_PEBS && plan.nevents == 2 && plan.precise == 3);
	CHECK(!plan.store_event[0] && plan.store_event[1]);
	CHECK_STR(plan.model, "skx");
	check_pebs_attr(&plan.attr[0], 0x81d0, 3);
	check_pebs_attr(&plan.attr[1], 0x82d0, 3);
	/* what the probe really opened */
	CHECK(k.nok == 2);
	if (k.nok == 2) {
		check_pebs_attr(&k.last_ok[0], 0x81d0, 3);
		check_pebs_attr(&k.last_ok[1], 0x82d0, 3);
	}
	/* the per-thread attr: period and cookie filled in */
	{
		struct perf_event_attr a;
		hc_plan_attr(&plan, 1, 123457, 0x5a00000000000000ull, &a);
		CHECK_EQ_U64(a.sample_period, 123457);
		CHECK_EQ_U64(a.sig_data, 0x5a00000000000000ull);
		check_pebs_attr(&a, 0x82d0, 3);
	}
}

static void pebs_precise2(void)
{
	struct hc_pmu_plan plan;
	char why[1024];

	use_tree("intel-skx");
	k.hw_err[3] = EOPNOTSUPP;
	CHECK(hc_probe_pebs_plan(&plan, why, sizeof why) == 0);
	CHECK(plan.precise == 2);
	CHECK(plan.attr[0].precise_ip == 2 && plan.attr[1].precise_ip == 2);
	CHECK(has(why, "precise_ip=2"));
}

static void pebs_precise1(void)
{
	struct hc_pmu_plan plan;
	char why[1024];

	use_tree("intel-hsw");           /* max_precise 2: precise 3 is never tried */
	k.hw_err[3] = EACCES;            /* would fail the probe if tried */
	k.hw_err[2] = EOPNOTSUPP;
	CHECK(hc_probe_pebs_plan(&plan, why, sizeof why) == 0);
	CHECK(plan.precise == 1);
	CHECK(has(why, "hsw"));
	CHECK(has(why, "next instruction"));
	check_pebs_attr(&plan.attr[0], 0x81d0, 1);
}

static void pebs_no_precise(void)
{
	struct hc_pmu_plan plan;
	char why[2048];

	use_tree("intel-skx");
	k.hw_err[1] = k.hw_err[2] = k.hw_err[3] = EOPNOTSUPP;
	CHECK(hc_probe_pebs_plan(&plan, why, sizeof why) == -EOPNOTSUPP);
	CHECK(has(why, "refused at every precise_ip"));
	/* auto falls back to soft and says why */
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK(has(why, "using soft"));
	CHECK(has(why, "using soft; pebs: skx"));
	CHECK(has(why, "; ibs: no ibs_op PMU"));
	/* asked for pebs explicitly: refused with the reason */
	CHECK(hc_probe_select(HC_SAMPLER_PEBS, &plan, why, sizeof why) == -EOPNOTSUPP);
	CHECK(has(why, "pebs (requested) unavailable"));
}

static void pebs_paranoid(void)
{
	char why[1024];
	char root[1200], tree[1300];

	/* a copy of intel-skx's sys/ with perf_event_paranoid = 3 */
	snprintf(root, sizeof root, "%s/probe-paranoid-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(root) != NULL);
	snprintf(tree, sizeof tree, "%s/intel-skx/sys", datadir);
	{
		char p[1400];
		FILE *f;
		snprintf(p, sizeof p, "%s/sys", root);
		CHECK(symlink(tree, p) == 0);
		snprintf(p, sizeof p, "%s/proc", root);  mkdir(p, 0700);
		snprintf(p, sizeof p, "%s/proc/sys", root);  mkdir(p, 0700);
		snprintf(p, sizeof p, "%s/proc/sys/kernel", root);  mkdir(p, 0700);
		snprintf(p, sizeof p, "%s/proc/sys/kernel/perf_event_paranoid", root);
		f = fopen(p, "w");
		CHECK(f != NULL);
		if (f) { fputs("3\n", f); fclose(f); }
	}
	setenv("HPCRUN_COMM_SYSFS_ROOT", root, 1);
	k.hw_err[1] = k.hw_err[2] = k.hw_err[3] = EACCES;
	{
		int par = 0;
		CHECK(hc_perf_paranoid(&par) == 0 && par == 3);
	}
	/* -1 is a level (everything allowed), not an error */
	{
		char p[1400];
		FILE *f;
		int par = 0;
		snprintf(p, sizeof p, "%s/proc/sys/kernel/perf_event_paranoid", root);
		f = fopen(p, "w");
		CHECK(f != NULL);
		if (f) { fputs("-1\n", f); fclose(f); }
		CHECK(hc_perf_paranoid(&par) == 0 && par == -1);
		unlink(p);
		par = 7;
		CHECK(hc_perf_paranoid(&par) == -ENOENT && par == 7);   /* unreadable: unchanged */
		f = fopen(p, "w");
		CHECK(f != NULL);
		if (f) { fputs("3\n", f); fclose(f); }
	}
	CHECK(hc_probe_pebs(why, sizeof why) == -EACCES);
	CHECK(has(why, "perf_event_paranoid is above 2"));
	CHECK(k.calls == 1);             /* EACCES: lower precision is not tried */
	/* same refusal at paranoid 2: a seccomp filter or LSM */
	use_tree("intel-skx");
	CHECK(hc_probe_pebs(why, sizeof why) == -EACCES);
	CHECK(has(why, "seccomp"));
	{
		char cmd[1500];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
		CHECK(system(cmd) == 0);
	}
}

static void pebs_enoent(void)
{
	char why[1024];

	use_tree("intel-skx");
	k.hw_err[1] = k.hw_err[2] = k.hw_err[3] = ENOENT;
	CHECK(hc_probe_pebs(why, sizeof why) == -ENOENT);
	CHECK(has(why, "no such PMU or event"));
	CHECK(has(why, "skx precise load/store events"));
}

static void pebs_hybrid(void)
{
	struct hc_pmu_plan plan;
	char why[1024];

	/* libpfm4 4.13 has no Alder Lake table: forced to its Golden Cove
	   sibling spr, the events must go to the cpu_core PMU's type */
	use_tree("intel-adl");
	CHECK(hc_probe_pebs_plan(&plan, why, sizeof why) == 0);
	CHECK(has(why, "hybrid CPU"));
	CHECK(has(why, "cpu_core (type 4)"));
	CHECK_EQ_U64(plan.attr[0].type, 4);
}

static void pebs_hybrid_type(void)
{
	/* the same with a cpu_core type other than PERF_TYPE_RAW: the attr
	   must carry the sysfs type, not libpfm4's */
	char root[1200], cmd[2600], why[1024];
	struct hc_pmu_plan plan;

	snprintf(root, sizeof root, "%s/probe-hybrid-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(root) != NULL);
	snprintf(cmd, sizeof cmd, "cp -r '%s/intel-adl/.' '%s/' && echo 44 > '%s/sys/bus/event_source/devices/cpu_core/type'",
	         datadir, root, root);
	CHECK(system(cmd) == 0);
	setenv("HPCRUN_COMM_SYSFS_ROOT", root, 1);
	CHECK(hc_probe_pebs_plan(&plan, why, sizeof why) == 0);
	CHECK_EQ_U64(plan.attr[0].type, 44);
	CHECK_EQ_U64(plan.attr[1].type, 44);
	CHECK_EQ_U64(plan.attr[1].config, 0x82d0);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

static void vm_soft(void)
{
	struct hc_pmu_plan plan;
	char why[2048];

	use_tree("vm");
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK(has(why, "no hardware core PMU"));
	CHECK(has(why, "no ibs_op PMU"));
	CHECK(plan.kind == 0);
	CHECK(k.calls == 1);             /* only soft was opened */
	/* nothing at all */
	k.soft_err = EACCES;
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == -EACCES);
	CHECK(has(why, "nothing can sample"));
	k.soft_err = ENOSYS;
	CHECK(hc_probe_select(HC_SAMPLER_SOFT, &plan, why, sizeof why) == -ENOSYS);
	CHECK(has(why, "ENOSYS"));
}

static void ibs_opens(void)
{
	struct hc_pmu_plan plan;
	char why[2048];

	use_tree("amd-zen3");
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_IBS);
	CHECK(has(why, "using ibs"));
	CHECK(has(why, "; pebs: no PEBS-capable Intel core PMU"));
	CHECK(has(why, "amd64_fam19h_zen3"));
	CHECK(plan.kind == HC_SAMPLER_IBS && plan.nevents == 1);
	CHECK_EQ_U64(plan.attr[0].type, 11);
	CHECK_EQ_U64(plan.attr[0].config, 1ull << 19);   /* cnt_ctl: count ops */
	CHECK_EQ_U64(plan.attr[0].sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
	             PERF_SAMPLE_CPU | PERF_SAMPLE_RAW);
	CHECK(plan.attr[0].exclude_kernel && plan.attr[0].sigtrap && plan.attr[0].remove_on_exec);
	CHECK_EQ_U64(plan.attr[0].wakeup_events, 1);
	{
		struct perf_event_attr a;
		hc_plan_attr(&plan, 0, 500001, 7, &a);
		CHECK_EQ_U64(a.sample_period, 500000);       /* low nibble cleared */
		CHECK_EQ_U64(a.sig_data, 7);
	}
}

static void ibs_no_exclude(void)
{
	struct hc_pmu_plan plan;
	char why[2048];

	use_tree("amd-zen3");
	k.ibs_err_excl = EINVAL;
	CHECK(hc_probe_ibs_plan(&plan, why, sizeof why) == 0);
	CHECK(!plan.attr[0].exclude_kernel);
	CHECK(has(why, "kernel ops are sampled too and dropped"));
	/* ... and paranoid 2 forbids kernel samples */
	k.ibs_err_all = EACCES;
	CHECK(hc_probe_ibs_plan(&plan, why, sizeof why) == -EACCES);
	CHECK(has(why, "cannot exclude kernel samples"));
	CHECK(has(why, "perf_event_paranoid=2"));
}

static void ibs_cpu_wide_only(void)
{
	struct hc_pmu_plan plan;
	char why[2048];

	use_tree("amd-zen3");
	k.ibs_err_excl = k.ibs_err_all = EINVAL;
	CHECK(hc_probe_ibs_plan(&plan, why, sizeof why) == -EINVAL);
	CHECK(has(why, "refuses a per-thread ibs_op event"));
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK(has(why, "using soft"));
	CHECK(has(why, "; ibs: the kernel refuses a per-thread"));
	CHECK(hc_probe_select(HC_SAMPLER_IBS, &plan, why, sizeof why) == -EINVAL);
}

static void ibs_no_opcount(void)
{
	char why[1024];

	use_tree("amd-noopcnt");
	CHECK(hc_probe_ibs(why, sizeof why) == -EOPNOTSUPP);
	CHECK(has(why, "no op-counting mode"));
	CHECK(k.calls == 0);
}

static void ibs_enoent(void)
{
	char why[1024];

	use_tree("amd-zen3");
	k.ibs_err_excl = ENOENT;
	CHECK(hc_probe_ibs(why, sizeof why) == -ENOENT);
	CHECK(has(why, "no such PMU"));
}


/* ---- issue 19: precise_ip 3 pairs, swfilt, kernel versions ---- */

static void pebs_spr_pair(void)
{
	struct hc_pmu_plan plan;
	char why[1024];

	/* Sapphire Rapids: max_precise 3, but at 3 both events need GP
	   counter 0 (spr_get_event_constraints): the kernel refuses the
	   group; each alone would open and they would take turns. */
	use_tree("intel-spr");
	k.group_err[3] = EINVAL;
	CHECK(hc_probe_pebs_plan(&plan, why, sizeof why) == 0);
	CHECK_EQ_U64(plan.precise, 2);
	CHECK(plan.group);
	CHECK(plan.attr[0].precise_ip == 2 && plan.attr[1].precise_ip == 2);
	CHECK(has(why, "open as one group with precise_ip=2"));
	CHECK(has(why, "precise_ip=3 refused for the pair"));
	CHECK_EQ_U64(k.ngroup, 1);       /* the stores event opened as the loads event's sibling */
	/* without the constraint (Skylake) the pair opens at 3 */
	memset(&k, 0, sizeof k);
	use_tree("intel-skx");
	CHECK(hc_probe_pebs_plan(&plan, why, sizeof why) == 0);
	CHECK_EQ_U64(plan.precise, 3);
	CHECK(!strstr(why, "refused for the pair"));
}

static void ibs_swfilt(void)
{
	struct hc_pmu_plan plan;
	char why[2048];

	/* the kernel filters kernel samples itself: exclude_kernel with
	   config2 bit 0, which is what makes IBS work at paranoid 2 */
	use_tree("amd-zen4-swfilt");
	k.ibs_err_excl = EINVAL;         /* without swfilt it would be refused */
	k.ibs_err_all = EACCES;          /* ... and at paranoid 2 the retry too */
	CHECK(hc_probe_ibs_plan(&plan, why, sizeof why) == 0);
	CHECK(plan.swfilt);
	CHECK_EQ_U64(plan.attr[0].config2, 1);
	CHECK(plan.attr[0].exclude_kernel);
	CHECK(has(why, "kernel samples filtered by the kernel (swfilt)"));
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_IBS);
	/* the same machine without swfilt (amd-zen3, paranoid 2): soft, and why */
	memset(&k, 0, sizeof k);
	use_tree("amd-zen3");
	k.ibs_err_excl = EINVAL;
	k.ibs_err_all = EACCES;
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK(has(why, "no format/swfilt"));
	CHECK(has(why, "Linux 6.14"));
	CHECK(has(why, "kernel.perf_event_paranoid=2"));
	CHECK(has(why, "CAP_PERFMON"));
	CHECK_EQ_U64(plan.attr[0].config2, 0);
}

static void ibs_old_kernel(void)
{
	struct hc_pmu_plan plan;
	char why[2048];

	/* Linux 5.15: no per-task IBS context at all (30093056f7b2, 6.2):
	   the reason names the version, not paranoid, and nothing is tried */
	use_tree("amd-zen3-old");
	CHECK(hc_probe_ibs_plan(&plan, why, sizeof why) == -EOPNOTSUPP);
	CHECK(has(why, "per-thread IBS needs Linux >= 6.2"));
	CHECK(has(why, "5.15.0-91-generic"));
	CHECK(!strstr(why, "paranoid"));
	CHECK_EQ_U64(k.calls, 0);
	CHECK(hc_probe_select(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK(has(why, "; ibs: per-thread IBS needs Linux >= 6.2"));
}

/* ---- the self-check ---- */

static struct hc_selfcheck fake_outcome[2];
static int fake_checks;

static int fake_check(const struct hc_pmu_plan *plan, struct hc_selfcheck *o)
{
	*o = fake_outcome[fake_checks < 2 ? fake_checks : 1];
	o->nevents = plan->nevents;
	fake_checks++;
	return -o->err;
}

static struct hc_selfcheck good(int n)
{
	struct hc_selfcheck o;

	memset(&o, 0, sizeof o);
	o.nevents = n;
	o.loop_ops = 3200000;
	for (int i = 0; i < n; i++) {
		o.records[i] = o.with_addr[i] = 150;
		o.in_buffer[i] = 149;
		o.enabled[i] = o.running[i] = 2000000;
	}
	return o;
}

static void selfcheck_decide(void)
{
	struct hc_pmu_plan pebs = { .kind = HC_SAMPLER_PEBS, .nevents = 2 };
	struct hc_pmu_plan ibs = { .kind = HC_SAMPLER_IBS, .nevents = 1 };
	struct hc_selfcheck o;
	char why[512];

	o = good(2);
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == 0);
	CHECK(has(why, "passed (150 + 150 records"));
	/* no records */
	o = good(2);
	o.records[0] = o.records[1] = o.with_addr[0] = o.with_addr[1] = o.in_buffer[0] = o.in_buffer[1] = 0;
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == -EIO);
	CHECK(has(why, "no records at all from a loop of 3200000 loads and stores"));
	/* one event only */
	o = good(2);
	o.records[1] = o.with_addr[1] = o.in_buffer[1] = 0;
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == -EIO);
	CHECK(has(why, "only the loads event produced records (150; the stores event none)"));
	o = good(2);
	o.records[0] = o.with_addr[0] = o.in_buffer[0] = 0;
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == -EIO);
	CHECK(has(why, "only the stores event produced records"));
	/* zero addresses */
	o = good(2);
	o.with_addr[1] = o.in_buffer[1] = 0;
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == -EIO);
	CHECK(has(why, "the stores event's 150 records carry no data address (zero)"));
	/* addresses elsewhere */
	o = good(2);
	o.in_buffer[0] = 100;
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == -EIO);
	CHECK(has(why, "100 of 150 in its buffer"));
	/* not running all the time it was enabled */
	o = good(2);
	o.running[0] = o.running[1] = 1000000;
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == -EIO);
	CHECK(has(why, "the loads event ran only 50% of the time it was enabled"));
	o = good(2);
	o.running[1] = 1910000;          /* 95.5 %: fine */
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == 0);
	/* throttled: records and addresses fine, a note */
	o = good(2);
	o.throttled = 3;
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == 0);
	CHECK(has(why, "note: throttled during the check"));
	/* throttled into silence: no records */
	o = good(2);
	o.throttled = 1;
	o.records[0] = o.records[1] = 0;
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == -EIO);
	CHECK(has(why, "no records at all"));
	/* an event that could not be run */
	o = good(2);
	o.err = ENODEV;
	snprintf(o.stage, sizeof o.stage, "mmap");
	CHECK(hc_selfcheck_decide(&pebs, &o, why, sizeof why) == -ENODEV);
	CHECK(has(why, "could not be run (mmap:"));
	/* IBS: one event */
	o = good(1);
	CHECK(hc_selfcheck_decide(&ibs, &o, why, sizeof why) == 0);
	CHECK(has(why, "passed (150 records"));
	o.with_addr[0] = o.in_buffer[0] = 0;
	CHECK(hc_selfcheck_decide(&ibs, &o, why, sizeof why) == -EIO);
	CHECK(has(why, "the ibs_op event's 150 records carry no data address"));
	/* the running-time rule itself */
	CHECK(!hc_pmu_running_low(0, 0));
	CHECK(!hc_pmu_running_low(100, 100));
	CHECK(!hc_pmu_running_low(100, 95));
	CHECK(hc_pmu_running_low(100, 94));
}

static void selfcheck_fallback(void)
{
	struct hc_pmu_plan plan;
	char why[3000];

	hc_probe_set_selfcheck(fake_check);
	/* PEBS passes: kept, and the log says so */
	use_tree("intel-skx");
	fake_outcome[0] = good(2);
	fake_checks = 0;
	CHECK(hc_probe_select_checked(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_PEBS);
	CHECK(has(why, "auto: using pebs"));
	CHECK(has(why, "self-check: passed"));
	/* PEBS opens, but its events run only half the time (an injected
	   kernel whose read() says running < enabled): auto falls back to
	   soft (no IBS on Intel) and says why */
	fake_outcome[0] = good(2);
	fake_outcome[0].running[0] = fake_outcome[0].running[1] = 1000000;
	fake_checks = 0;
	CHECK(hc_probe_select_checked(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK(has(why, "auto: using soft; pebs opens but failed the self-check: the loads event ran only 50%"));
	CHECK(has(why, "ibs: no ibs_op PMU"));
	CHECK(plan.kind == 0);
	/* asked for explicitly: a clear refusal */
	fake_checks = 0;
	CHECK(hc_probe_select_checked(HC_SAMPLER_PEBS, &plan, why, sizeof why) == -EIO);
	CHECK(has(why, "pebs (requested) failed the self-check: the loads event ran only 50%"));
	/* IBS (swfilt) whose records have no address: soft */
	memset(&k, 0, sizeof k);
	use_tree("amd-zen4-swfilt");
	fake_outcome[0] = good(1);
	fake_outcome[0].with_addr[0] = fake_outcome[0].in_buffer[0] = 0;
	fake_checks = 0;
	CHECK(hc_probe_select_checked(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK(has(why, "auto: using soft; ibs opens but failed the self-check: the ibs_op event's 150 "
	               "records carry no data address"));
	CHECK(has(why, "; pebs: skx: the kernel reports max_precise=0"));
	CHECK(hc_probe_select_checked(HC_SAMPLER_IBS, &plan, why, sizeof why) == -EIO);
	CHECK(has(why, "ibs (requested) failed the self-check"));
	/* soft needs no check */
	fake_checks = 0;
	CHECK(hc_probe_select_checked(HC_SAMPLER_SOFT, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK_EQ_U64(fake_checks, 0);
	/* the real measurement step against this fake kernel (its fds are
	   /dev/null: no ring buffer can be mapped): refused at mmap */
	hc_probe_set_selfcheck(NULL);
	use_tree("intel-skx");
	CHECK(hc_probe_select_checked(HC_SAMPLER_NONE, &plan, why, sizeof why) == HC_SAMPLER_SOFT);
	CHECK(has(why, "pebs opens but failed the self-check: the events could not be run (mmap:"));
}

static void periods(void)
{
	CHECK_EQ_U64(hc_pmu_period(HC_SAMPLER_SOFT, 1000), 1000);
	CHECK_EQ_U64(hc_pmu_period(HC_SAMPLER_PEBS, 1000), HC_MIN_PEBS_PERIOD);
	CHECK_EQ_U64(hc_pmu_period(HC_SAMPLER_PEBS, 500000), 500000);
	CHECK_EQ_U64(hc_pmu_period(HC_SAMPLER_IBS, 1000), HC_MIN_IBS_PERIOD);
	CHECK_EQ_U64(hc_pmu_period(HC_SAMPLER_IBS, 500001), 500000);
	CHECK_EQ_U64(hc_bb_expiry_ns(HC_SAMPLER_SOFT, 500000), 1000000);
	CHECK_EQ_U64(hc_bb_expiry_ns(HC_SAMPLER_PEBS, 500000), 1000000);
	CHECK_EQ_U64(hc_bb_expiry_ns(HC_SAMPLER_IBS, 300000), 200000);
}

/* The bulletin-board expiry from a measured event rate (issue 19: a PMU
   period counts events, the board's clock is ns). */
static void expiry_measured(void)
{
	const uint64_t P = 500000, fb = hc_bb_expiry_ns(HC_SAMPLER_PEBS, P);   /* 1 ms */

	/* 1 event/ns: 2 x P ns, what the assumed rate gives */
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 100 * P, 100 * P, fb), 2 * P);
	/* 0.25 loads/ns (a thread doing mostly arithmetic): 4x longer */
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 40 * P, 160 * P, fb), 8 * P);
	/* IBS, 3 ops/ns measured: 2P/3 */
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 300 * P, 100 * P, hc_bb_expiry_ns(HC_SAMPLER_IBS, P)),
	             2 * P / 3);
	/* the event ran half the time it was enabled: it counted 50 P in the
	   100 P ns the thread ran, samples every 2 P ns of the thread's time */
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 50 * P, 100 * P, fb), 4 * P);
	/* too few periods counted yet (< 16): the assumed rate */
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 15 * P, 1000 * P, fb), fb);
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 16 * P, 16 * P, fb), 2 * P);
	/* nothing measured, or no period */
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 100 * P, 0, fb), fb);
	CHECK_EQ_U64(hc_bb_expiry_measured(0, 100 * P, 100, fb), fb);
	/* clamped to [fb/64, 64 fb] */
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 1000000 * P, 16 * P, fb), fb / 64);
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 16 * P, 1000000 * P, fb), 64 * fb);
	/* large values do not overflow: 10^12 events in 10^12 ns */
	CHECK_EQ_U64(hc_bb_expiry_measured(P, 1000000000000ull, 1000000000000ull, fb), 2 * P);
	/* the soft sampler's own unit: task-clock counts ns, so the expiry is 2 P */
	CHECK_EQ_U64(hc_bb_expiry_measured(100000, 3000000, 3000000, hc_bb_expiry_ns(HC_SAMPLER_SOFT, 100000)),
	             200000);
	/* blending into the board's value: 1/4 of the new one */
	CHECK_EQ_U64(hc_bb_expiry_blend(1000000, 2000000), 1250000);
	CHECK_EQ_U64(hc_bb_expiry_blend(0, 2000000), 2000000);
	{
		uint64_t b = 1000000;
		for (int i = 0; i < 64; i++)
			b = hc_bb_expiry_blend(b, 4000000);
		CHECK(b > 3990000 && b <= 4000000);
	}
}

int main(void)
{
	const char *src = getenv("HC_SRCDIR");

	snprintf(datadir, sizeof datadir, "%s/tests/data/pmu", src ? src : ".");
	if (access(datadir, R_OK) != 0) {
		fprintf(stderr, "cannot find %s (set HC_SRCDIR)\n", datadir);
		return 1;
	}
	test_encodings();
	scenario("skx: pebs opens at precise 3, auto picks it", "skx", pebs_opens);
	scenario("skx: precise 3 refused, 2 used", "skx", pebs_precise2);
	scenario("hsw: max_precise 2, 2 refused, 1 used", "hsw", pebs_precise1);
	scenario("skx: no precise support -> soft", "skx", pebs_no_precise);
	scenario("skx: EACCES at paranoid 3 and 2", "skx", pebs_paranoid);
	scenario("skx: ENOENT", "skx", pebs_enoent);
	scenario("adl: hybrid, cpu_core", "spr", pebs_hybrid);
	scenario("adl: cpu_core type from sysfs", "spr", pebs_hybrid_type);
	scenario("vm: soft, or nothing", "amd64_fam17h_zen1", vm_soft);
	scenario("zen3: ibs opens, auto picks it", "amd64_fam19h_zen3", ibs_opens);
	scenario("zen3: ibs without exclude_kernel", "amd64_fam19h_zen3", ibs_no_exclude);
	scenario("zen3: per-thread ibs refused -> soft", "amd64_fam19h_zen3", ibs_cpu_wide_only);
	scenario("old amd: no op counting", "amd64_fam17h_zen1", ibs_no_opcount);
	scenario("zen3: ENOENT", "amd64_fam19h_zen3", ibs_enoent);
	scenario("vm: pebs stand-in (test only)", "amd64_fam17h_zen1", pebs_standin);
	scenario("spr: precise 3 pair refused as a group, 2 used", "spr", pebs_spr_pair);
	scenario("zen4: ibs with swfilt; zen3 without: why", "amd64_fam19h_zen3", ibs_swfilt);
	scenario("amd on Linux 5.15: no per-thread ibs", "amd64_fam19h_zen3", ibs_old_kernel);
	scenario("self-check verdicts on synthetic outcomes", "skx", selfcheck_decide);
	scenario("self-check fallback pebs/ibs -> soft, words", "skx", selfcheck_fallback);
	scenario("periods: floors, ibs rounding, expiry", "skx", periods);
	scenario("expiry from a measured event rate", "skx", expiry_measured);
	return hc_test_done("test_probe");
}
