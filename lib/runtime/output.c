/* SPDX-License-Identifier: BSD-3-Clause */
/* output.c — writing measurements: one profile per thread, named as
   HPCToolkit does (<exe>-<rank>-<thread>-<hostid>-<pid>-<gen>.hcprof),
   written to a temporary file opened O_EXCL|O_NOFOLLOW and moved into place
   without replacing anything (renameat2 RENAME_NOREPLACE) but the thread's
   own periodic snapshot (flush.c), and the process
   log with the counters and the handler cost. Uses only the profile writer,
   hc_fmt and system calls, so a fatal-signal flush may call it too. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/sampler/soft.h"
#include "runtime/numa.h"
#include "probe/probe.h"
#include "runtime/alloc/alloc.h"
#include "runtime/alloc/ownheap.h"
#include "support/fmt.h"

static const struct hc_prof_module *module_of(uint64_t ip, const struct hc_prof_module *mods, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (ip >= mods[i].lo && ip < mods[i].hi)
			return &mods[i];
	return NULL;
}

static void to_lm(uint64_t ip, uint32_t *lm, uint64_t *off, const struct hc_prof_module *mods, uint32_t n)
{
	const struct hc_prof_module *m = module_of(ip, mods, n);

	*lm = m ? m->id : HC_NONE;
	*off = m ? ip - m->base : ip;
}

static void counters_add(struct rt_counters *dst, const struct rt_counters *src)
{
#define HC_X(n) __atomic_add_fetch(&dst->n, src->n, __ATOMIC_RELAXED);
	HC_COUNTERS(HC_X)
#undef HC_X
}

/* The FRAM section: the stack frames the unwinds saw (cct.c), those whose
   node this profile holds (a snapshot's copy may have fewer nodes than the
   table names: the thread keeps running). None: no section. */
static int put_frames(struct hc_prof_writer *w, const struct rt_thread *t)
{
	int ret;

	if (!t->cct.frames || !__atomic_load_n(&t->cct.nframes, __ATOMIC_RELAXED))
		return 0;
	ret = hc_prof_section_begin(w, HC_SEC_FRAMES);
	for (uint32_t i = 0; !ret && i < HC_FRAMES_CAP; i++) {
		struct hc_prof_frame f;

		f.cfa = __atomic_load_n(&t->cct.frames[i].cfa, __ATOMIC_ACQUIRE);
		f.node = t->cct.frames[i].node;
		f.count = t->cct.frames[i].count;
		f.size = t->cct.frames[i].size;
		f.reserved = 0;
		if (f.cfa && f.node < t->cct.n)
			ret = hc_prof_put_frame(w, &f);
	}
	return ret ? ret : hc_prof_section_end(w);
}

static int put_counters(struct hc_prof_writer *w, const struct rt_thread *t)
{
	int ret = hc_prof_section_begin(w, HC_SEC_COUNTERS);
#define HC_X(n) if (!ret) ret = hc_prof_put_counter(w, #n, t->cnt.n);
	HC_COUNTERS(HC_X)
#undef HC_X
	if (!ret)
		ret = hc_prof_put_counter(w, "cct_nodes", t->cct.n);
	if (!ret)
		ret = hc_prof_put_counter(w, "events", t->events.n);
	if (!ret)
		ret = hc_prof_put_counter(w, "alloc_min_size", hc_rt.opt.min_alloc);
	return ret ? ret : hc_prof_section_end(w);
}

/* Profiles that could not be written (disk full, quota, I/O error). The log
   may be on the same full file system, so a loss is also said on stderr: the
   launcher has exec'ed the program and cannot tell, and the exit status is
   the program's. */
static uint32_t profiles_lost;

static void say_lost(const char *fmt, ...) HC_PRINTF(1, 2);
static void say_lost(const char *fmt, ...)
{
	char buf[PATH_MAX + 256];
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	hc_vfmt(buf, sizeof buf, fmt, ap);
	va_end(ap);
	n = strlen(buf);
	if (write(2, buf, n) < 0)
		return;   /* nowhere left to say it */
}

#define WRITES_BORROWED 8
static int borrowed;            /* profile writes holding one of the program's fds */

/* A profile's file when the process's fds are used up for a moment
   (EMFILE, ENFILE: a thousand threads ending at once on a loaded machine,
   each waiting writer giving up its turn after its bounded wait, the CI's
   tests/integration/threads.sh 'hardpt' under ASan at load ~180 lost 61
   of 1,001): retried every millisecond while the episode lasts, at most
   OPEN_RETRY_NS of wall time for all writers together, so a program that
   keeps every fd makes the exit wait once, not once per thread; a later
   shortage (OPEN_RETRY_NS after the episode's end) is a new episode.
   Counted in open_retries. Async-signal-safe (open, nanosleep, atomics). */
#define OPEN_RETRY_NS 10000000000ull
static uint64_t open_retry_until;     /* the current episode's end, 0 = none yet */
static uint64_t open_retries;

static int open_profile(const char *tmp)
{
	int fd, err;

	while ((fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0 &&
	       ((err = errno) == EMFILE || err == ENFILE)) {
		uint64_t now = process__now(), until = __atomic_load_n(&open_retry_until, __ATOMIC_RELAXED);
		struct timespec ts = { 0, 1000000 };

		if (until == 0 || now > until + OPEN_RETRY_NS) {   /* a new episode */
			__atomic_compare_exchange_n(&open_retry_until, &until, now + OPEN_RETRY_NS, false,
			                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
			until = __atomic_load_n(&open_retry_until, __ATOMIC_RELAXED);
		}
		if (now >= until) {
			errno = err;
			break;
		}
		__atomic_add_fetch(&open_retries, 1, __ATOMIC_RELAXED);
		nanosleep(&ts, NULL);
	}
	return fd;
}

/* Write t's profile to its file: through NAME.tmp (O_EXCL|O_NOFOLLOW),
   then renamed into place; without replacing anything unless a periodic
   snapshot of this thread is there (`replace`). A failed final write
   (`final`) counts as a lost profile; a failed snapshot is only logged. */
static int write_file(const struct rt_thread *t, bool replace, bool final)
{
	uint32_t nmods;
	const struct hc_prof_module *mods = loadmap__modules(&nmods);
	struct hc_prof_thread th;
	struct hc_prof_writer w;
	char tmp[PATH_MAX], path[PATH_MAX];
	const char *stage = "open";
	bool counted;
	int fd, ret;

	memset(&th, 0, sizeof th);
	th.index = t->id.index;
	th.creator = t->id.creator;
	th.pid = t->id.pid;
	th.tid = t->id.tid;
	th.ppid = hc_rt.opt.ppid;
	th.sampler = (uint32_t)hc_rt.sampler_kind;
	th.unit = (uint32_t)hc_rt.unit;
	th.creation_ctx = t->id.creation_ctx;
	th.period = hc_rt.period;   /* in effect (floor, IBS rounding) */
	th.start_ns = t->id.start_ns;
	th.end_ns = t->id.end_ns ? t->id.end_ns : process__now();
	th.stack_lo = t->id.stack_lo;
	th.stack_hi = t->id.stack_hi;
	th.tls_lo = t->id.tls_lo;
	th.tls_hi = t->id.tls_hi;
	th.start_lm = HC_NONE;
	if (t->id.start_fn)
		to_lm(t->id.start_fn, &th.start_lm, &th.start_off, mods, nmods);
	hc_fmt(th.exe, sizeof th.exe, "%s", hc_rt.exe_path);

	th.rank = hc_rt.rank;

	hc_fmt(path, sizeof path, "%s/%s-%06u-%03u-%08x-%u-%u.%s", hc_rt.opt.dir, hc_rt.exe,
	       hc_rt.rank, t->id.index, hc_rt.hostid, hc_rt.pid, hc_rt.opt.gen, HC_PROF_SUFFIX);
	hc_fmt(tmp, sizeof tmp, "%s.tmp", path);
	/* The fd comes out of the runtime's budget (fds.c) when it can; if the
	   budget is used up, at most WRITES_BORROWED writes at a time borrow one
	   of the program's (it keeps at least 16), so a thousand threads exiting
	   at once never leave the program without fds. */
	counted = fds__reserve(1);
	if (!counted) {
		for (int ms = 0; __atomic_add_fetch(&borrowed, 1, __ATOMIC_ACQ_REL) > WRITES_BORROWED &&
		                 !hc_rt.stopping && ms < 5000; ms++) {
			struct timespec ts = { 0, 200000 };
			__atomic_sub_fetch(&borrowed, 1, __ATOMIC_ACQ_REL);
			nanosleep(&ts, NULL);
		}
	}
	fd = open_profile(tmp);
	if (fd < 0) {
		ret = -errno;
		process__log("thread %u: cannot create %s: %s", t->id.index, tmp, strerror(-ret));
		if (counted)
			fds__unreserve(1);
		else
			__atomic_sub_fetch(&borrowed, 1, __ATOMIC_ACQ_REL);
		if (final && __atomic_fetch_add(&profiles_lost, 1, __ATOMIC_RELAXED) == 0)
			say_lost("hpcrun-comm: error: process %u: profile of thread %u lost: cannot "
			         "create %s: %s\n", hc_rt.pid, t->id.index, tmp, strerror(-ret));
		return ret;
	}
	stage = "header";
	ret = hc_prof_writer_init(&w, fd, t->wbuf, HC_WRITE_BUF, &th);
	if (!ret && (stage = "load map"))
		ret = hc_prof_section_begin(&w, HC_SEC_LOADMAP);
	for (uint32_t i = 0; !ret && i < nmods; i++)
		ret = hc_prof_put_module(&w, &mods[i]);
	if (!ret)
		ret = hc_prof_section_end(&w);
	if (!ret && (stage = "calling-context tree"))
		ret = hc_prof_section_begin(&w, HC_SEC_CCT);
	for (uint32_t i = 0; !ret && i < t->cct.n; i++) {
		const struct rt_cct_node *c = &t->cct.nodes[i];
		struct hc_prof_node n;
		memset(&n, 0, sizeof n);
		n.id = i;
		n.parent = c->parent;
		n.flags = c->flags;
		if (i == 0) {
			n.lm = HC_NONE;
		} else {
			to_lm(c->ip, &n.lm, &n.offset, mods, nmods);
		}
		memcpy(n.m, c->m, sizeof n.m);
		ret = hc_prof_put_node(&w, &n);
	}
	if (!ret)
		ret = hc_prof_section_end(&w);
	if (!ret && (stage = "events"))
		ret = hc_prof_section_begin(&w, HC_SEC_EVENTS);
	for (uint32_t i = 0; !ret && i < t->events.n; i++)
		ret = hc_prof_put_event(&w, &t->events.v[i]);
	if (!ret)
		ret = hc_prof_section_end(&w);
	if (!ret && (stage = "page nodes"))
		ret = numa__write(&w, t);
	if (!ret && (stage = "data objects"))
		ret = objects__write(&w, t);
	if (!ret && (stage = "stack frames"))
		ret = put_frames(&w, t);
	if (!ret && (stage = "counters"))
		ret = put_counters(&w, t);
	if (!ret)
		ret = hc_prof_writer_finish(&w);
	if (close(fd) < 0 && !ret)
		ret = -errno;
	if (counted)
		fds__unreserve(1);
	else
		__atomic_sub_fetch(&borrowed, 1, __ATOMIC_ACQ_REL);
	if (!ret && renameat2(AT_FDCWD, tmp, AT_FDCWD, path, replace ? 0 : RENAME_NOREPLACE) < 0)
		ret = -errno;
	if (ret) {
		process__log("thread %u: writing %s failed (%s): %s", t->id.index, path, stage, strerror(-ret));
		unlink(tmp);
		if (final && __atomic_fetch_add(&profiles_lost, 1, __ATOMIC_RELAXED) == 0)
			say_lost("hpcrun-comm: error: process %u: profile of thread %u lost: writing %s "
			         "failed (%s): %s\n", hc_rt.pid, t->id.index, path, stage, strerror(-ret));
	}
	HC_DEBUG_LOG(HC_DBG_OUTPUT, "T%u: %s %s: %u nodes, %u events, %u modules%s", t->id.index,
	             final ? "profile" : "snapshot", path, t->cct.n, t->events.n, nmods,
	             ret ? " (failed)" : "");
	return ret;
}

/* The thread's final profile; its counters go into the process totals. */
int output__write_profile(struct rt_thread *t)
{
	int ret = write_file(t, t->snap.written, true);

	counters_add(&hc_rt.total, &t->cnt);
	for (int i = 0; i <= HC_HIST_BUCKETS; i++)
		if (t->hist[i])
			__atomic_add_fetch(&hc_rt.hist[i], t->hist[i], __ATOMIC_RELAXED);
	for (int m = 0; m < RT_MECH_N; m++)
		rt_cost_merge(&hc_rt.cost[m], &t->cost[m]);
	for (int m = 0; m < RT_SPLIT_N; m++)
		rt_cost_merge(&hc_rt.split[m], &t->split[m]);
	soft__add_totals(t);
	return ret;
}

/* A periodic snapshot written by the thread itself, in its sample handler
   (flush.c, single-threaded processes): its records are not moving. */
int output__write_own_snapshot(struct rt_thread *t)
{
	return write_file(t, t->snap.written, false);
}

/* A periodic snapshot of a thread that keeps running (flush.c): counts
   read first (acquire), then a shallow copy of the record with those
   counts, written through the helper's own staging buffer. */
int output__write_snapshot(const struct rt_thread *t, struct rt_thread *copy, uint8_t *wbuf)
{
	uint32_t nev = __atomic_load_n(&t->events.n, __ATOMIC_ACQUIRE);
	uint32_t nnodes = __atomic_load_n(&t->cct.n, __ATOMIC_ACQUIRE);

	memcpy(copy, t, sizeof *copy);
	copy->events.n = nev;
	copy->cct.n = nnodes;
	copy->wbuf = wbuf;
	return write_file(copy, t->snap.written, false);
}

/* What the PMU samplers add to the process log: the period the kernel
   used, the events' running time, self-samples, throttling. */
static void pmu_log(const struct rt_counters *c)
{
	if (c->pmu_period_records)
		process__log("pmu: period in effect: mean %llu events over %llu records (asked: COMM@%llu)",
		        (unsigned long long)(c->pmu_period_sum / c->pmu_period_records),
		        (unsigned long long)c->pmu_period_records, (unsigned long long)hc_rt.period);
	if (c->pmu_time_enabled)
		process__log("pmu: events ran %llu%% of the time they were enabled%s (threads below 95%%: %llu)",
		        (unsigned long long)(c->pmu_time_running * 100 / c->pmu_time_enabled),
		        hc_pmu_running_low(c->pmu_time_enabled, c->pmu_time_running) ?
		        " -- warning: below 95%, whole stretches were not sampled" : "",
		        (unsigned long long)c->pmu_threads_not_running);
	process__log("pmu: %llu records of the runtime's own accesses dropped (in-runtime), %llu pointing at "
	        "unmapped code, %llu with callers unknown (leaf only), %llu lost",
	        (unsigned long long)c->pmu_in_runtime, (unsigned long long)c->pmu_unmapped,
	        (unsigned long long)c->pmu_ctx_leaf_only, (unsigned long long)c->pmu_lost);
	if (c->pmu_throttled)
		process__log("warning: pmu: the kernel throttled the events %llu times "
		        "(kernel.perf_event_max_sample_rate): samples are missing; use a larger COMM@P",
		        (unsigned long long)c->pmu_throttled);
	process__log("pmu: bulletin-board expiry %llu ns at the end (%llu updates from the threads' "
	        "measured event rates; %llu ns at the start, from the assumed rate)",
	        (unsigned long long)__atomic_load_n(&hc_rt.bb.expiry, __ATOMIC_RELAXED),
	        (unsigned long long)__atomic_load_n(&hc_rt.bb_expiry_updates, __ATOMIC_RELAXED),
	        (unsigned long long)hc_bb_expiry_ns(hc_rt.pmu.kind, hc_rt.period));
	if (hc_rt.pmu.kind == HC_SAMPLER_IBS && c->pmu_records)
		process__log("ibs: %llu samples with an unrandomized period (the hardware randomizes "
		        "IbsOpCurCnt's low 7 bits only in op-counting mode with IBS_CAPS_RDWROPCNT: "
		        "otherwise a loop whose op count divides P is sampled at the same ops); "
		        "%llu sampled branches mispredicted",
		        (unsigned long long)c->pmu_ibs_unrandomized,
		        (unsigned long long)c->pmu_ibs_mispredicted);
}

void output__write_process_log(void)
{
	const struct rt_counters *c = &hc_rt.total;

	uint32_t lost = __atomic_load_n(&profiles_lost, __ATOMIC_RELAXED);

	process__log("threads measured: %u, unmeasured: %u", hc_rt.threads_seen, hc_rt.threads_unmeasured);
	process__log("samples outside measured threads (before a thread's start, after its end): %llu",
	        (unsigned long long)__atomic_load_n(&hc_rt.samples_outside, __ATOMIC_RELAXED));
	process__log("single-step traps no burst claimed (trap flag cleared; the program has no SIGTRAP handler): %llu",
	        (unsigned long long)__atomic_load_n(&hc_rt.steps_stray, __ATOMIC_RELAXED));
	process__log("debug exceptions without a cause (TRAP_BRKPT; ignored, the program has no SIGTRAP handler): %llu",
	        (unsigned long long)__atomic_load_n(&hc_rt.traps_empty, __ATOMIC_RELAXED));
	process__log("profile files: %llu opens retried while the process's fds were used up (EMFILE/ENFILE, "
	        "a millisecond apart, at most 10 s an episode; until this line)",
	        (unsigned long long)__atomic_load_n(&open_retries, __ATOMIC_RELAXED));
	fds__log_stats();
	sandbox__log();
	{
		uint64_t nb, nby, res;
		ownheap__stats(&nb, &nby, &res);
		process__log("runtime heap (never the program's): %llu blocks live, %llu bytes; %llu KiB of its "
		        "reservation used; DTV slots added by the runtime's modules: %zu (shadowed)",
		        (unsigned long long)nb, (unsigned long long)nby, (unsigned long long)(res >> 10),
		        (size_t)loadmap__dtv_extra);
	}
	if (lost) {
		process__log("profiles lost: %u (could not be written)", lost);
		say_lost("hpcrun-comm: error: process %u: %u thread profile%s lost (could not be "
		         "written into %s); the measurement is incomplete\n", hc_rt.pid, lost,
		         lost == 1 ? "" : "s", hc_rt.opt.dir);
	}
#define HC_X(n) process__log("counter %-28s %llu", #n, (unsigned long long)c->n);
	HC_COUNTERS(HC_X)
#undef HC_X
	if (hc_rt.sampler_kind == HC_SAMPLER_IBS && c->samples)
		/* IBS samples all ops; only loads/stores feed detection
		   (doc/samplers.md: the weight stays P, this sets the cost). */
		process__log("ibs: measured memory-op fraction %llu/%llu samples = %llu%% "
		        "(non-memory ops %llu, memory ops without address %llu)",
		        (unsigned long long)(c->samples - c->pmu_not_memory),
		        (unsigned long long)c->samples,
		        (unsigned long long)((c->samples - c->pmu_not_memory) * 100 / c->samples),
		        (unsigned long long)c->pmu_not_memory, (unsigned long long)c->pmu_no_addr);
	if (hc_rt.sampler_kind == HC_SAMPLER_PEBS || hc_rt.sampler_kind == HC_SAMPLER_IBS)
		pmu_log(c);
	process__log("handler cost: median %llu ns, p99 %llu ns, mean %llu ns, total %llu ms "
	        "(sample handler, %llu samples)",
	        (unsigned long long)hc_hist_quantile(hc_rt.hist, 0.5),
	        (unsigned long long)hc_hist_quantile(hc_rt.hist, 0.99),
	        (unsigned long long)(c->samples ? c->handler_ns / c->samples : 0),
	        (unsigned long long)(c->handler_ns / 1000000), (unsigned long long)c->samples);
	if (hc_rt.opt.cost_split) {
		/* HPCRUN_COMM_COST_SPLIT: the sample handler's wall time by step
		   (cost.h RT_SPLIT_LIST; each step's mark reads the clock once) */
		static const char *const step[RT_SPLIT_N] = {
#define RT_SPLIT_X(n, d) d,
			RT_SPLIT_LIST(RT_SPLIT_X)
#undef RT_SPLIT_X
		};
		for (int m = 0; m < RT_SPLIT_N; m++) {
			const struct rt_cost_total *k = &hc_rt.split[m];

			process__log("handler step %2d median %llu ns, p90 %llu ns, mean %llu ns, n %llu, per sample %llu "
			             "ns (wall): %s", m, (unsigned long long)rt_cost_quantile(k, 0.5),
			             (unsigned long long)rt_cost_quantile(k, 0.9),
			             (unsigned long long)(k->n ? k->sum_ns / k->n : 0), (unsigned long long)k->n,
			             (unsigned long long)(c->samples ? k->sum_ns / c->samples : 0), step[m]);
		}
	}
	soft__log();
	watch__log();
	pipe__log();
	{
		static const char *const name[RT_MECH_N] = {
#define RT_COST_X(n, d) d,
			RT_COST_LIST(RT_COST_X)
#undef RT_COST_X
		};
		for (int m = 0; m < RT_MECH_N; m++) {
			const struct rt_cost_total *k = &hc_rt.cost[m];
			/* per sample: the mechanism's total over the timer samples
			   (what it adds to each; issue 14 point 5) */
			process__log("mechanism %-6s median %llu ns, mean %llu ns, p99 %llu ns, n %llu, total %llu us "
			        "(wall time in the handler), per sample %llu ns: %s",
			        m == RT_MECH_SAMPLE ? "sample" : m == RT_MECH_DECODE ? "decode" :
			        m == RT_MECH_UNWIND ? "unwind" : m == RT_MECH_DETECT ? "detect" :
			        m == RT_MECH_ARM ? "arm" : m == RT_MECH_TRAP ? "trap" : "step",
			        (unsigned long long)rt_cost_quantile(k, 0.5),
			        (unsigned long long)(k->n ? k->sum_ns / k->n : 0),
			        (unsigned long long)rt_cost_quantile(k, 0.99),
			        (unsigned long long)k->n, (unsigned long long)(k->sum_ns / 1000),
			        (unsigned long long)(c->samples ? k->sum_ns / c->samples : 0), name[m]);
		}
	}
}
