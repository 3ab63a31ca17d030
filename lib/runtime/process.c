/* SPDX-License-Identifier: BSD-3-Clause */
/* process.c — process life cycle of the runtime: options from the environment
   (set by the launcher), sampler selection, the BulletinBoard, the process
   log, fork handling and the final flush at exit. The constructor runs
   before main() and either starts measurement or stops the process: when
   asked to measure we never run the program unmeasured. Nothing here runs in
   signal context except process__log and process__now (async-signal-safe). */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "config.h"
#include "runtime/rt.h"
#include "runtime/pset.h"
#include "runtime/zone.h"
#include "runtime/sampler/startset.h"
#include "runtime/sampler/soft.h"
#include "runtime/sampler/rate.h"
#include "probe/probe.h"
#include "runtime/safety.h"
#include "runtime/numa.h"
#include "runtime/loadmap.h"
#include "runtime/alloc/ownheap.h"
#include "support/fmt.h"
#include "support/mpienv.h"

struct rt_runtime hc_rt;
__thread struct rt_thread *hc_self __attribute__((tls_model("initial-exec")));

static int logfd = -1;
static char logpath[PATH_MAX];
static dev_t log_dev;
static ino_t log_ino;
static int log_reopening;
static int fini_done;

/* The log fd may have been closed under us by a raw close(2) and its number
   reused by the program (fds.c): write only to the file we created, and
   reopen it by name if needed. The fd, or -errno (no log). Async-signal-safe. */
static void vlog_reopened(int fd);
static int log_fd_checked(void)
{
	struct stat st;
	int fd = __atomic_load_n(&logfd, __ATOMIC_ACQUIRE);

	if (fd < 0)
		return -EBADF;      /* no log (yet, or any more) */
	if (fstat(fd, &st) == 0 && st.st_dev == log_dev && st.st_ino == log_ino)
		return fd;
	if (__atomic_exchange_n(&log_reopening, 1, __ATOMIC_ACQ_REL))
		return -EBUSY;      /* another thread is reopening it */
	fds__forget(&logfd);
	fd = open(logpath, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != log_dev || st.st_ino != log_ino)) {
		close(fd);
		fd = -1;
	}
	if (fd >= 0) {
		fds__adopt(fd, &logfd, false);
		__atomic_add_fetch(&fds__stats.lost, 1, __ATOMIC_RELAXED);
		fd = logfd;
		vlog_reopened(fd);
	} else {
		logfd = -1;
		fd = -EBADF;
	}
	__atomic_store_n(&log_reopening, 0, __ATOMIC_RELEASE);
	return fd;
}

uint64_t process__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void vlog(int fd, const char *prefix, const char *fmt, va_list ap)
{
	char buf[1024];
	size_t n = (size_t)hc_fmt(buf, sizeof buf, "%s", prefix);

	if (n >= sizeof buf)
		n = sizeof buf - 1;
	n += (size_t)hc_vfmt(buf + n, sizeof buf - n, fmt, ap);
	if (n > sizeof buf - 2)
		n = sizeof buf - 2;
	buf[n++] = '\n';
	while (n > 0) {
		ssize_t w = write(fd, buf, n);
		if (w <= 0)
			break;
		n -= (size_t)w;
	}
}

static void vlog_reopened(int fd)
{
	static const char msg[] = "fds: the log fd was closed by the program behind libc's back: "
	                          "reopened (counted in fds_lost)\n";
	ssize_t w = write(fd, msg, sizeof msg - 1);
	(void)w;
}

/* Async-signal-safe: formats on the stack and write(2)s to the process log. */
void process__log(const char *fmt, ...)
{
	va_list ap;
	int saved = errno, fd = log_fd_checked();

	if (fd < 0) {
		errno = saved;
		return;
	}
	va_start(ap, fmt);
	vlog(fd, "", fmt, ap);
	va_end(ap);
	errno = saved;
}

/* The runtime cannot measure: say why on stderr and in the log, and stop the
   process before the program runs unmeasured. */
void process__fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(2, "hpcrun-comm: error: ", fmt, ap);
	va_end(ap);
	if (log_fd_checked() >= 0) {
		va_start(ap, fmt);
		vlog(logfd, "error: ", fmt, ap);
		va_end(ap);
	}
	_exit(126);
}

static uint64_t env_u64(const char *name, uint64_t dflt)
{
	const char *s = getenv(name);
	char *end;
	unsigned long long v;

	if (!s || !*s)
		return dflt;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		process__fatal("bad value '%s' for %s (expected a decimal number)", s, name);
	return v;
}

/* A switch of 0 or 1 (dflt when unset); meaning says what the values do,
   for the error. */
static bool env_01(const char *name, uint64_t dflt, const char *meaning)
{
	uint64_t k = env_u64(name, dflt);

	if (k > 1)
		process__fatal("%s: %llu is not 0 or 1 (%s)", name, (unsigned long long)k, meaning);
	return k == 1;
}

static void read_options(struct rt_options *o)
{
	const char *s;
	char err[256];

	memset(o, 0, sizeof *o);
	o->period = HC_DEFAULT_PERIOD;
	s = getenv("HPCRUN_COMM_EVENT");
	if (s && hc_event_parse(s, &o->period, err, sizeof err) < 0)
		process__fatal("HPCRUN_COMM_EVENT: %s", err);
	o->sampler = HC_SAMPLER_NONE;
	s = getenv("HPCRUN_COMM_SAMPLER");
	if (s && *s && hc_sampler_parse(s, &o->sampler) < 0)
		process__fatal("HPCRUN_COMM_SAMPLER: unknown sampler '%s' (auto, soft, pebs or ibs)", s);
	o->bb_slots = (uint32_t)env_u64("HPCRUN_COMM_BB_SIZE", HC_BB_DEFAULT_SLOTS);
	if (o->bb_slots == 0 || o->bb_slots > (1u << 24))
		process__fatal("HPCRUN_COMM_BB_SIZE: %u is out of range (1..16777216)", o->bb_slots);
	s = getenv("HPCRUN_COMM_WATCHPOINTS");
	o->nwatch = s && *s ? (int)env_u64("HPCRUN_COMM_WATCHPOINTS", 0) : -1;
	if (o->nwatch > HC_MAX_WATCH)
		o->nwatch = HC_MAX_WATCH;
	o->gen = (unsigned)env_u64("HPCRUN_COMM_GEN", 0);
	o->min_alloc = env_u64("HPCRUN_COMM_MIN_ALLOC", 0);
	/* An experiment switch (bench/accuracy): attribute only accesses
	   found at the interrupted PC. */
	s = getenv("HPCRUN_COMM_NO_PREV");
	o->no_prev = s && *s && strcmp(s, "0") != 0;
	/* Soft sampler: one event per thread instead of one inherited by
	   every thread (doc/samplers.md; bench/threads compares both). */
	s = getenv("HPCRUN_COMM_SAMPLER_PER_THREAD");
	o->per_thread = s && *s && strcmp(s, "0") != 0;
	/* Soft sampler: single-step bursts after a sample (doc/detection.md §5). */
	o->steps = (uint32_t)env_u64("HPCRUN_COMM_STEPS", RT_STEPS_DEFAULT);
	if (o->steps > 1000)
		process__fatal("HPCRUN_COMM_STEPS: %u is out of range (0..1000)", o->steps);
	s = getenv("HPCRUN_COMM_STEP_BUDGET");
	if (s && *s) {
		char *end;
		double b = strtod(s, &end);
		if (*end || !(b >= 0 && b <= 1000))
			process__fatal("HPCRUN_COMM_STEP_BUDGET: '%s' is not a number of steps per sample (0..1000)", s);
		o->step_budget256 = (uint32_t)(b * 256 + 0.5);
	} else {
		o->step_budget256 = RT_STEP_BUDGET_DEFAULT256;
	}
	o->step_seed = (uint32_t)env_u64("HPCRUN_COMM_STEP_SEED", RT_STEP_SEED_EVERY);
	/* Soft sampler: the watchpoints' context-switch gate (cost.h). */
	o->switch_ns = (uint32_t)env_u64("HPCRUN_COMM_SWITCH_NS", RT_SWITCH_NS_DEFAULT);
	o->switch_other_ns = (uint32_t)env_u64("HPCRUN_COMM_SWITCH_OTHER_NS", RT_SWITCH_OTHER_NS_DEFAULT);
	/* Soft sampler: the coarse rate of a crowded process (sampler/rate.h). */
	s = getenv("HPCRUN_COMM_CROWDED_PERIOD");
	o->crowd_mult = rt_rate_parse_mult(s);
	if (!o->crowd_mult)
		process__fatal("HPCRUN_COMM_CROWDED_PERIOD: '%s' is not a multiple of the period in 1..%u "
		               "(1: no coarse rate)", s, RT_CROWD_MULT_MAX);
	s = getenv("HPCRUN_COMM_CROWDED_HEAVY");
	o->crowd_heavy = rt_rate_parse_heavy(s);
	if (!o->crowd_heavy)
		process__fatal("HPCRUN_COMM_CROWDED_HEAVY: '%s' is not a multiple of the coarse period in 1..%u "
		               "(1: none beyond it)", s, RT_CROWD_MULT_MAX);
	s = getenv("HPCRUN_COMM_CROWDED_HEAVY_FROM");
	o->crowd_heavy_from = rt_rate_parse_heavy_from(s);
	if (!o->crowd_heavy_from)
		process__fatal("HPCRUN_COMM_CROWDED_HEAVY_FROM: '%s' is not a number of threads per CPU in 1..%u "
		               "(1: as soon as the process is crowded)", s, RT_CROWD_MULT_MAX);
	/* ... and the switching level (level 3: a heavily crowded process whose
	   threads block and wake very often). */
	s = getenv("HPCRUN_COMM_SWITCHY");
	o->switchy = rt_rate_parse_switchy(s);
	if (!o->switchy)
		process__fatal("HPCRUN_COMM_SWITCHY: '%s' is not a multiple of the heavy period in 1..%u "
		               "(1: none beyond it)", s, RT_CROWD_MULT_MAX);
	{
		uint64_t r = env_u64("HPCRUN_COMM_SWITCHY_RATE", RT_SWITCHY_RATE_DEFAULT);

		if (r > 100000000u)
			process__fatal("HPCRUN_COMM_SWITCHY_RATE: %llu is not a number of context switches per "
			               "second of CPU time (0: off; at most 100000000)", (unsigned long long)r);
		o->switchy_rate = (uint32_t)r;
		r = env_u64("HPCRUN_COMM_SWITCHY_USER_RATE", RT_SWITCHY_USER_RATE_DEFAULT);
		if (r > 100000000u)
			process__fatal("HPCRUN_COMM_SWITCHY_USER_RATE: %llu is not a number of context switches per "
			               "second of user CPU time (0: off; at most 100000000)", (unsigned long long)r);
		o->switchy_user_rate = (uint32_t)r;
	}
	{
		uint64_t k = env_u64("HPCRUN_COMM_SWITCHY_WARMUP", RT_SWITCHY_WARMUP_DEFAULT);

		if (k > RT_CROWD_WARMUP)
			process__fatal("HPCRUN_COMM_SWITCHY_WARMUP: %llu is not a sample count in 0..%u (a crowded "
			               "process found switching from that many samples on ends its warm-up at the "
			               "switching level; 0 = never)", (unsigned long long)k, RT_CROWD_WARMUP);
		o->switchy_warmup = (uint32_t)k;
	}
	/* ... sampled through the tick's per-thread timers (rate.h) */
	o->tick = env_01("HPCRUN_COMM_TICK", RT_TICK_DEFAULT, "1: the switching level samples with "
	                 "per-thread CPU-time timers instead of the task-clock");
	/* ... and whether that level keeps the process-wide watch set open
	   (watch.c, performance.md "Session 18": its inherited breakpoint
	   events cost every switch to or from another context, disabled) */
	o->tick_pset_close = !env_01("HPCRUN_COMM_TICK_PSET", 1, "0: the switching level through the "
	                             "tick closes the process-wide watch set for the rest of the run");
	/* ... and whether it closes the task-clock events for good (soft.c,
	   performance.md "Session 27": disabled, they still cost every
	   context switch of a thread whose perf context is its own) */
	o->tick_close = env_01("HPCRUN_COMM_TICK_CLOSE", RT_TICK_CLOSE_DEFAULT, "1: the switching level "
	                       "through the tick closes the task-clock events and stays for the rest of the run");
	/* ... or empties every thread's perf context there: the task-clock
	   events closed as above, and the process-wide set's inherited events
	   closed, the set opened on the live threads at each arm and closed at
	   its end (watch.c, performance.md "Session 29") */
	o->tick_empty = env_01("HPCRUN_COMM_TICK_EMPTY", RT_TICK_EMPTY_DEFAULT, "1: the switching level "
	                       "through the tick closes the task-clock events and opens the process-wide set per arm");
	/* the handler's cost by step, and the clock of the soft sampler's
	   cost lines (performance.md "Session 26") */
	o->cost_split = env_u64("HPCRUN_COMM_COST_SPLIT", 0) != 0;
	o->cost_cpu = env_u64("HPCRUN_COMM_COST_CPU", 1) != 0;   /* 0 measured, not the default: performance.md "Session 26" */
	o->pset_precheck = env_u64("HPCRUN_COMM_PROCSET_PRECHECK", 1) != 0;
	o->pset_cpu_periods = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_CPU_PERIODS", 4);
	/* ... and the preempted thread's arms (watch.c) */
	{
		uint64_t a = env_u64("HPCRUN_COMM_ARM_SHARE", RT_ARM_SHARE_DEFAULT);

		if (a > 100)
			process__fatal("HPCRUN_COMM_ARM_SHARE: %llu is not a CPU share in %% (0: off; at most 100)",
			               (unsigned long long)a);
		o->arm_share = (uint32_t)a;
	}
	/* ... and of a quiet one (no sign of sharing in its latest samples). */
	{
		uint64_t w = env_u64("HPCRUN_COMM_QUIET_SAMPLES", RT_QUIET_WINDOW_DEFAULT);

		if (w > 100000000u)
			process__fatal("HPCRUN_COMM_QUIET_SAMPLES: %llu samples is not a window (0: off; "
			               "at most 100000000)", (unsigned long long)w);
		o->quiet_window = (uint32_t)w;
	}
	o->ret_bp = env_u64("HPCRUN_COMM_RET_BP", 1) != 0;
	o->step_scan = env_u64("HPCRUN_COMM_STEP_SCAN", 1) != 0;
	o->burst_first = env_u64("HPCRUN_COMM_BURST_FIRST", RT_BURST_FIRST_DEFAULT) != 0;
	o->reload_chain = (uint32_t)env_u64("HPCRUN_COMM_RELOAD_CHAIN", RT_RELOAD_CHAIN_DEFAULT);
	o->trap_reload = env_u64("HPCRUN_COMM_TRAP_RELOAD", 1) != 0;
	o->loop_exit = (uint32_t)env_u64("HPCRUN_COMM_LOOP_EXIT", 32);
	if (o->loop_exit > 256)
		process__fatal("HPCRUN_COMM_LOOP_EXIT: %u instructions is more than 256", o->loop_exit);
	o->prev_depth = (uint32_t)env_u64("HPCRUN_COMM_PREV_DEPTH", 8);
	if (o->prev_depth > 64)
		process__fatal("HPCRUN_COMM_PREV_DEPTH: %u instructions back is more than a basic block's walk "
		               "(0..64)", o->prev_depth);
	o->burst_barren = env_u64("HPCRUN_COMM_BURST_BARREN", 1) != 0;
	o->ret_bp_system = env_u64("HPCRUN_COMM_RET_BP_SYSTEM", 0) != 0;
	o->ret_call = (uint32_t)env_u64("HPCRUN_COMM_RET_CALL", RT_RET_CALL_DEFAULT);
	/* Soft sampler: the process-wide watch set's registers (watch.c). */
	o->procset = (int)env_u64("HPCRUN_COMM_PROCSET", RT_PSET_DEFAULT);
	o->procset_budget = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_BUDGET", RT_PSET_BUDGET_PERMILLE);
	if (o->procset_budget > 1000)
		process__fatal("HPCRUN_COMM_PROCSET_BUDGET: %u is not a share of the CPU time in per mille "
		               "(0..1000)", o->procset_budget);
	o->procset_switch_vol = env_u64("HPCRUN_COMM_PROCSET_SWITCH_VOL", 1) != 0;
	s = getenv("HPCRUN_COMM_PROCSET_TARGET");
	if (!s || !*s || !strcmp(s, "both"))
		o->procset_target = s && *s ? RT_PSET_TARGET_BOTH : RT_PSET_TARGET_DEFAULT;
	else if (!strcmp(s, "entry"))
		o->procset_target = RT_PSET_TARGET_ENTRY;
	else if (!strcmp(s, "sample"))
		o->procset_target = RT_PSET_TARGET_SAMPLE;
	else
		process__fatal("HPCRUN_COMM_PROCSET_TARGET: '%s' is not entry, sample or both", s);
	o->procset_zone = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_ZONE", RT_PSET_ZONE_DEFAULT);
	if (o->procset_zone > 4)
		process__fatal("HPCRUN_COMM_PROCSET_ZONE: %u is not a chance in quarters (0..4)", o->procset_zone);
	if (o->procset_zone)
		o->procset_target |= RT_PSET_TARGET_ZONE;
	o->procset_edge = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_EDGE", RT_PSET_EDGE_DEFAULT);
	if (o->procset_edge > 4)
		process__fatal("HPCRUN_COMM_PROCSET_EDGE: %u is not a chance in quarters (0..4)", o->procset_edge);
	o->procset_edge_words = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_EDGE_WORDS", RT_PSET_EDGE_WORDS);
	o->procset_edge_skip = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_EDGE_SKIP", RT_PSET_EDGE_SKIP);
	o->procset_edge_first = env_u64("HPCRUN_COMM_PROCSET_EDGE_FIRST", 1) != 0;
	o->procset_edge_memory = env_u64("HPCRUN_COMM_PROCSET_EDGE_MEMORY", RT_PSET_EDGE_MEMORY_DEFAULT) != 0;
	o->procset_edge_budget = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_EDGE_BUDGET", RT_PSET_EDGE_BUDGET_DEFAULT);
	if (o->procset_edge_budget > 100)
		process__fatal("HPCRUN_COMM_PROCSET_EDGE_BUDGET: %u permille is more than 10 %%", o->procset_edge_budget);
	o->procset_zone_unseen = env_u64("HPCRUN_COMM_PROCSET_ZONE_UNSEEN", 1) != 0;
	o->procset_zone_narrow = env_u64("HPCRUN_COMM_PROCSET_ZONE_NARROW", 1) != 0;
	o->procset_zone_cap = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_ZONE_CAP", 0);
	o->procset_zone_overlap_cap = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_ZONE_OVERLAP_CAP", RT_ZONE_OVERLAP_CAP_DEFAULT);
	o->procset_zone_writer = env_u64("HPCRUN_COMM_PROCSET_ZONE_WRITER", 1) != 0;
	o->procset_switch_ns = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_SWITCH_NS", RT_PSET_SWITCH_NS);
	o->procset_switch_crowded_ns = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_SWITCH_CROWDED_NS", RT_PSET_SWITCH_CROWDED_NS);
	o->procset_zone_spread = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_ZONE_SPREAD", RT_ZONE_SPREAD_DEFAULT);
	if (o->procset_zone_spread > 2)
		process__fatal("HPCRUN_COMM_PROCSET_ZONE_SPREAD: %u is not 0, 1 or 2", o->procset_zone_spread);
	o->procset_start = env_u64("HPCRUN_COMM_PROCSET_START", 1) != 0;
	o->procset_ret = env_u64("HPCRUN_COMM_PROCSET_RET", RT_PSET_RET_DEFAULT) != 0;
	o->procset_zone_open = env_u64("HPCRUN_COMM_PROCSET_ZONE_OPEN", 1) != 0;
	o->procset_zone_open_lines = env_u64("HPCRUN_COMM_PROCSET_ZONE_OPEN_LINES", 1) != 0;
	o->procset_zone_edge = (uint32_t)env_u64("HPCRUN_COMM_PROCSET_ZONE_EDGE", RT_ZONE_EDGE_DEFAULT);
	o->procset_zone_edge_one = env_u64("HPCRUN_COMM_PROCSET_ZONE_EDGE_ONE", 0) != 0;
	if (o->procset_zone_edge > RT_ZONE_LINES)
		process__fatal("HPCRUN_COMM_PROCSET_ZONE_EDGE: %u is more than %u lines", o->procset_zone_edge, RT_ZONE_LINES);
	o->procset_zone_traps = env_u64("HPCRUN_COMM_PROCSET_ZONE_TRAPS", 1) != 0;
	o->start_late = env_u64("HPCRUN_COMM_START_LATE", RT_START_LATE_DEFAULT) != 0;
	o->start_share = env_u64("HPCRUN_COMM_START_SHARE", RT_START_SHARE_DEFAULT) != 0;
	o->start_exempt = env_u64("HPCRUN_COMM_START_EXEMPT", RT_START_EXEMPT_DEFAULT) != 0;
	o->start_recent = (uint32_t)env_u64("HPCRUN_COMM_START_RECENT", RT_START_RECENT_DEFAULT);
	if (o->start_recent > 2)
		process__fatal("HPCRUN_COMM_START_RECENT: %u is not 0 (all ended threads), 1 (a window) or 2 (the last generation)",
		               o->start_recent);
	o->start_block = (uint32_t)env_u64("HPCRUN_COMM_START_BLOCK", 1);
	o->start_block_open = env_u64("HPCRUN_COMM_START_BLOCK_OPEN", 0) != 0;
	o->start_block_written = env_u64("HPCRUN_COMM_START_BLOCK_WRITTEN", RT_PSET_WRITTEN_DEFAULT) != 0;
	o->start_chain = (uint32_t)env_u64("HPCRUN_COMM_START_CHAIN", RT_PSET_CHAIN_DEFAULT);
	if (o->start_chain > 64)
		process__fatal("HPCRUN_COMM_START_CHAIN: %u re-arms is more than 64", o->start_chain);
	o->start_chain_spread = env_u64("HPCRUN_COMM_START_CHAIN_SPREAD", 1) != 0;
	o->join_object = env_u64("HPCRUN_COMM_JOIN_OBJECT", 1) != 0;
	o->join_line_ns = env_u64("HPCRUN_COMM_JOIN_NS", 100);   /* §5.72: a transfer, as HPCRUN_COMM_LOCK_NS */
	o->trap_lag = (uint32_t)env_u64("HPCRUN_COMM_TRAP_LAG", 0);   /* §5.73: measured, off */
	if (o->procset > HC_MAX_WATCH - 1)
		process__fatal("HPCRUN_COMM_PROCSET: %d is not a number of registers in 0..%d", o->procset,
		               HC_MAX_WATCH - 1);
	s = getenv("HPCRUN_COMM_PUBLISH_LOADS");
	o->publish_loads = !(s && *s && strcmp(s, "0") == 0);
	o->spin_weight = env_u64("HPCRUN_COMM_SPIN_WEIGHT", 1) != 0;
	o->sync_targets = env_u64("HPCRUN_COMM_SYNC_TARGETS", 1) != 0;
	o->io_stores = env_u64("HPCRUN_COMM_IO_STORES", 1) != 0;   /* §5.75 */
	o->crit_sets = env_u64("HPCRUN_COMM_CRIT_SETS", 1) != 0;   /* §5.76 */
	o->crit_fill = env_u64("HPCRUN_COMM_CRIT_FILL", 1) != 0;
	o->crit_burst = env_u64("HPCRUN_COMM_CRIT_BURST", 1) != 0;
	o->lock_sets = (uint32_t)env_u64("HPCRUN_COMM_LOCK_SETS", 4);
	if (o->lock_sets > 1u << 20)
		process__fatal("HPCRUN_COMM_LOCK_SETS: %u samples is too many", o->lock_sets);
	o->lock_ns = env_u64("HPCRUN_COMM_LOCK_NS", 100);
	o->lock_cap = env_u64("HPCRUN_COMM_LOCK_CAP", 64);
	o->sync_sys = env_u64("HPCRUN_COMM_SYNC_SYS", 1) != 0;
	o->sync_ret = env_u64("HPCRUN_COMM_SYNC_RET", 1) != 0;
	o->sys_data = env_u64("HPCRUN_COMM_SYS_DATA", 1) != 0;
	o->rep_end = env_u64("HPCRUN_COMM_REP_END", 1) != 0;
	o->stack_shared = env_u64("HPCRUN_COMM_STACK_SHARED", 1) != 0;
	o->lock_pset = (uint32_t)env_u64("HPCRUN_COMM_LOCK_PSET", 1) != 0;
	o->lock_pset_budget = (uint32_t)env_u64("HPCRUN_COMM_LOCK_PSET_BUDGET", 10);
	o->lock_before = env_u64("HPCRUN_COMM_LOCK_BEFORE", 256);
	o->lock_words = env_u64("HPCRUN_COMM_LOCK_WORDS", 0) != 0;
	o->lock_verdict = env_u64("HPCRUN_COMM_LOCK_VERDICT", 1) != 0;
	o->lock_bytes = env_u64("HPCRUN_COMM_LOCK_BYTES", 1) != 0;
	o->lock_pset_after = env_u64("HPCRUN_COMM_LOCK_PSET_AFTER", 0) != 0;
	o->reader_sets = env_u64("HPCRUN_COMM_READER_SETS", 1) != 0;
	o->reader_budget = (uint32_t)env_u64("HPCRUN_COMM_READER_BUDGET", 10);
	o->reader_loop = (uint32_t)env_u64("HPCRUN_COMM_READER_LOOP", 32);
	o->feed_sets = env_u64("HPCRUN_COMM_FEED_SETS", 1) != 0;
	o->feed_budget = (uint32_t)env_u64("HPCRUN_COMM_FEED_BUDGET", 10);
	o->feed_sampled = env_u64("HPCRUN_COMM_FEED_SAMPLED", 1) != 0;
	o->feed_life = (uint32_t)env_u64("HPCRUN_COMM_FEED_LIFE", 16);
	o->feed_stands = (uint32_t)env_u64("HPCRUN_COMM_FEED_STANDS", 8);
	o->feed_live = env_u64("HPCRUN_COMM_FEED_LIVE", 1) != 0;
	if (o->feed_stands > 1024)
		process__fatal("HPCRUN_COMM_FEED_STANDS: %u samples is more than 1024", o->feed_stands);
	if (o->feed_life < 2 || o->feed_life > 64)
		process__fatal("HPCRUN_COMM_FEED_LIFE: %u periods is not within 2..64", o->feed_life);
	if (o->feed_budget > 1000)
		process__fatal("HPCRUN_COMM_FEED_BUDGET: %u permille is more than 1000", o->feed_budget);
	o->reader_chase = env_u64("HPCRUN_COMM_READER_CHASE", 1) != 0;
	o->reader_scale = env_u64("HPCRUN_COMM_READER_SCALE", 0) != 0;
	o->lock_rescale = env_u64("HPCRUN_COMM_LOCK_RESCALE", 1) != 0;
	o->lock_pset_acq = (uint32_t)env_u64("HPCRUN_COMM_LOCK_PSET_ACQ", 2);
	if (o->lock_pset_acq > 2)
		process__fatal("HPCRUN_COMM_LOCK_PSET_ACQ: %u is not 0, 1 or 2", o->lock_pset_acq);
	o->lock_keep = env_u64("HPCRUN_COMM_LOCK_KEEP", 0) != 0;
	o->lock_draw = (uint32_t)env_u64("HPCRUN_COMM_LOCK_DRAW", 0);
	o->lock_untried = (uint32_t)env_u64("HPCRUN_COMM_LOCK_UNTRIED", 0);
	o->lock_lines = (uint32_t)env_u64("HPCRUN_COMM_LOCK_LINES", 0);
	if (o->lock_lines > 2)
		process__fatal("HPCRUN_COMM_LOCK_LINES: %u is not 0, 1 or 2", o->lock_lines);
	o->reader_samples = env_u64("HPCRUN_COMM_READER_SAMPLES", 0) != 0;
	o->reader_callee = env_u64("HPCRUN_COMM_READER_CALLEE", 1) != 0;
	if (o->reader_loop > 256)
		process__fatal("HPCRUN_COMM_READER_LOOP: %u instructions is more than 256", o->reader_loop);
	o->lock_store = (uint32_t)env_u64("HPCRUN_COMM_LOCK_STORE", 32);
	o->lock_store_word = env_u64("HPCRUN_COMM_LOCK_STORE_WORD", 1) != 0;
	if (o->lock_store > 63)
		process__fatal("HPCRUN_COMM_LOCK_STORE: %u instructions is more than 63", o->lock_store);
	o->lock_verdict_wait = env_u64("HPCRUN_COMM_LOCK_VERDICT_WAIT", 0) != 0;
	o->lock_pset_cap = env_u64("HPCRUN_COMM_LOCK_PSET_CAP", 64);
	o->lock_ways = (uint32_t)env_u64("HPCRUN_COMM_LOCK_WAYS", 2);
	o->lock_verdict_early = (uint32_t)env_u64("HPCRUN_COMM_LOCK_VERDICT_EARLY", 1);
	if (o->lock_verdict_early > 64)
		process__fatal("HPCRUN_COMM_LOCK_VERDICT_EARLY: %u samples is more than 64", o->lock_verdict_early);
	if (o->lock_ways < 1 || o->lock_ways > RT_LOCK_WAYS)
		process__fatal("HPCRUN_COMM_LOCK_WAYS: %u is not 1..%u (release snapshots a thread keeps)", o->lock_ways,
		               RT_LOCK_WAYS);
	if (o->lock_draw > 3)
		process__fatal("HPCRUN_COMM_LOCK_DRAW: %u is not 0, 1, 2 or 3", o->lock_draw);
	if (o->lock_before > 512)
		process__fatal("HPCRUN_COMM_LOCK_BEFORE: %llu bytes is more than 512", (unsigned long long)o->lock_before);
	if (o->lock_pset_budget > 1000)
		process__fatal("HPCRUN_COMM_LOCK_PSET_BUDGET: %u is not a permille (0..1000)", o->lock_pset_budget);
	o->reuse_life = (uint32_t)env_u64("HPCRUN_COMM_REUSE_LIFE", 16);
	if (o->reuse_life > 1024)
		process__fatal("HPCRUN_COMM_REUSE_LIFE: %u is more than 1024 samples", o->reuse_life);
	o->handoff_life = (uint32_t)env_u64("HPCRUN_COMM_HANDOFF_LIFE", 16);
	if (o->handoff_life > 1024)
		process__fatal("HPCRUN_COMM_HANDOFF_LIFE: %u is more than 1024 samples", o->handoff_life);
	o->handoff_ungated = env_u64("HPCRUN_COMM_HANDOFF_UNGATED", 1) != 0;
	{
		uint64_t cap = env_u64("HPCRUN_COMM_HANDOFF_UNGATED_CROWDED", RT_HANDOFF_UNGATED_CROWDED_DEFAULT);

		o->handoff_ungated_crowded = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;   /* threads */
	}
	o->handoff_pset = (uint32_t)env_u64("HPCRUN_COMM_HANDOFF_PSET", RT_HANDOFF_PSET_DEFAULT);   /* §5.60 */
	if (o->handoff_pset > 1)
		process__fatal("HPCRUN_COMM_HANDOFF_PSET: %u is not 0 or 1", o->handoff_pset);
	o->handoff_pset_budget = (uint32_t)env_u64("HPCRUN_COMM_HANDOFF_PSET_BUDGET", RT_HANDOFF_PSET_BUDGET);
	if (o->handoff_pset_budget > 1000)
		process__fatal("HPCRUN_COMM_HANDOFF_PSET_BUDGET: %u is not a permille (0..1000)", o->handoff_pset_budget);
	o->handoff_region = (uint32_t)env_u64("HPCRUN_COMM_HANDOFF_REGION", 2);   /* §5.41; default 2 since §5.42 */
	if (o->handoff_region > 2)
		process__fatal("HPCRUN_COMM_HANDOFF_REGION: %u is not 0, 1 or 2", o->handoff_region);
	o->handoff_stores = env_u64("HPCRUN_COMM_HANDOFF_STORES", 1) != 0;   /* §5.41; default on since §5.42 */
	o->handoff_region_age = env_u64("HPCRUN_COMM_HANDOFF_REGION_AGE", 2000) * 1000000ull;   /* ms */
	o->handoff_region_settle = env_u64("HPCRUN_COMM_HANDOFF_REGION_SETTLE", 10) * 1000000ull;   /* ms, §5.42 */
	o->handoff_region_ungated = env_u64("HPCRUN_COMM_HANDOFF_REGION_UNGATED", 0) != 0;   /* §5.42 */
	o->handoff_region_block = env_u64("HPCRUN_COMM_HANDOFF_REGION_BLOCK", 1) != 0;   /* §5.50 */
	o->handoff_window = env_u64("HPCRUN_COMM_HANDOFF_WINDOW", 256) * 1024ull;   /* KiB, §5.51 */
	o->events_cap = (uint32_t)env_u64("HPCRUN_COMM_EVENTS", RT_EVENTS_MAX);
	if (o->events_cap == 0 || o->events_cap > RT_EVENTS_MAX)
		process__fatal("HPCRUN_COMM_EVENTS: %u is not a number of event records per thread in 1..%u",
		               o->events_cap, RT_EVENTS_MAX);
	o->echo_depth = (uint32_t)env_u64("HPCRUN_COMM_ECHO_DEPTH", 1);
	o->refetch_false = env_u64("HPCRUN_COMM_REFETCH_FALSE", 0) != 0;
	o->heels_ns = env_u64("HPCRUN_COMM_HEELS_US", RT_HEELS_US) * 1000;
	o->trap_footprint = env_u64("HPCRUN_COMM_TRAP_FOOTPRINT", 0) != 0;
	o->update_bytes = env_u64("HPCRUN_COMM_UPDATE_BYTES", 1) != 0;   /* §5.54 */
	o->update_recompute = env_u64("HPCRUN_COMM_UPDATE_RECOMPUTE", 1) != 0;   /* §5.56 */
	o->update_sampled = env_u64("HPCRUN_COMM_UPDATE_SAMPLED", 1) != 0;       /* §5.56 */
	o->update_learn = env_u64("HPCRUN_COMM_UPDATE_LEARN", 1) != 0;           /* §5.54 */
	o->hold_reader = env_u64("HPCRUN_COMM_HOLD_READER", 1) != 0;
	o->poll_flag = env_u64("HPCRUN_COMM_POLL_FLAG", 0) != 0;
	o->poll_reader = env_u64("HPCRUN_COMM_POLL_READER", 0) != 0;
	o->poll_budget = (uint32_t)env_u64("HPCRUN_COMM_POLL_BUDGET", 20);
	if (o->poll_budget > 1000)
		o->poll_budget = 1000;
	o->move_span = (uint32_t)env_u64("HPCRUN_COMM_MOVE_SPAN", 2);   /* §5.47 */
	if (o->move_span > 2)
		process__fatal("HPCRUN_COMM_MOVE_SPAN: %u is not 0, 1 or 2", o->move_span);
	o->fixed_bytes = (uint32_t)env_u64("HPCRUN_COMM_FIXED_BYTES", 2);   /* §5.47 */
	o->pipe = (uint32_t)env_u64("HPCRUN_COMM_PIPE", 3) & 3;
	o->pipe_over_zone = env_u64("HPCRUN_COMM_PIPE_OVER_ZONE", 1) != 0;
	o->flush_interval = env_u64("HPCRUN_COMM_FLUSH_INTERVAL", HC_DEFAULT_FLUSH_INTERVAL);
	s = getenv("HPCRUN_COMM_DIR_MODE");
	o->dir_mode = 0700;
	if (s && *s) {
		char *end;
		unsigned long m = strtoul(s, &end, 8);
		if (*end || m > 07777)
			process__fatal("bad value '%s' for HPCRUN_COMM_DIR_MODE (expected an octal mode, e.g. 0750)", s);
		o->dir_mode = (unsigned)m;
	}
	/* The launcher's gethostid(): glibc's asks the name service when
	   /etc/hostid is missing, and the name service's state would then be
	   set up by us, not by the program's first lookup (its blocks land
	   elsewhere: doc/runtime.md "What a measured program can observe"). */
	s = getenv("HPCRUN_COMM_HOSTID");
	if (s && *s) {
		char *end;
		unsigned long h = strtoul(s, &end, 16);
		if (*end || h > UINT32_MAX)
			process__fatal("bad value '%s' for HPCRUN_COMM_HOSTID (expected 8 hex digits)", s);
		o->hostid = (uint32_t)h;
		o->have_hostid = true;
	}
	s = getenv("HPCRUN_COMM_DIR");
	if (s && *s) {
		if (strlen(s) >= sizeof o->dir)
			process__fatal("HPCRUN_COMM_DIR is too long");
		strcpy(o->dir, s);
	} else {
		hc_fmt(o->dir, sizeof o->dir, "hpctoolkit-%s-measurements", hc_rt.exe);
	}
}

/* ---- the environment the launcher added ----
   Read once, then taken out of environ: the program sees the environment
   it has natively (a setenv copies the whole array into the program's heap:
   eight entries more would move every later block). Children get it back
   from the exec and spawn wrappers (interpose.c), which add the saved
   entries. Only what the launcher (or our exec wrapper) sets goes: the
   user's own HPCRUN_COMM_* switches and test hooks are the program's
   environment natively too (and a forked child's probes read the hooks
   again). */
extern char **environ;
#define ENV_SAVED_MAX 32
static const char *env_saved[ENV_SAVED_MAX + 1];
static const char *env_preload;            /* LD_PRELOAD's value at start, NULL if none */
static char env_user_preload[PATH_MAX * 2];

static bool starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* Did the launcher (hpcrun-comm.c) or exec_env (interpose.c) set it? */
bool process__env_is_launcher(const char *e)
{
	static const char *const set[] = {
		"DIR=", "EVENT=", "SAMPLER=", "BB_SIZE=", "WATCHPOINTS=", "MIN_ALLOC=",
		"FLUSH_INTERVAL=", "DIR_MODE=", "HOSTID=", "GEN=",
	};

	if (!starts(e, "HPCRUN_COMM_"))
		return false;
	for (size_t i = 0; i < sizeof set / sizeof set[0]; i++)
		if (starts(e + strlen("HPCRUN_COMM_"), set[i]))
			return true;
	return false;
}

/* In LD_PRELOAD's value: what follows this library (the launcher puts the
   runtime, in a sanitizer build after the ASan runtime, before the user's
   own entries), NULL if the runtime is not in it. */
static const char *preload_user_part(const char *v)
{
	Dl_info info;
	const char *me, *w;

	if (!dladdr((void *)preload_user_part, &info) || !info.dli_fname)
		return NULL;
	me = strrchr(info.dli_fname, '/');
	me = me ? me + 1 : info.dli_fname;
	for (w = v; *w;) {
		size_t k = strcspn(w, ": \t"), m = strlen(me);
		if (k >= m && strncmp(w + k - m, me, m) == 0 && (k == m || w[k - m - 1] == '/'))
			return w + k + (w[k] ? 1 : 0);
		w += k + (w[k] ? 1 : 0);
	}
	return NULL;
}

static void env_hide(void)
{
	char **r, **w;
	unsigned n = 0;

	if (!environ)
		return;
	for (r = w = environ; *r; r++) {
		if (process__env_is_launcher(*r) && n < ENV_SAVED_MAX) {
			env_saved[n++] = *r;
			continue;
		}
		if (starts(*r, "LD_PRELOAD=") && !env_preload) {
			const char *user = preload_user_part(*r + strlen("LD_PRELOAD="));
			if (user) {
				env_preload = *r + strlen("LD_PRELOAD=");
				if (!*user)
					continue;
				hc_fmt(env_user_preload, sizeof env_user_preload, "LD_PRELOAD=%s", user);
				*w++ = env_user_preload;
				continue;
			}
		}
		*w++ = *r;
	}
	*w = NULL;
}

const char *const *process__env_saved(void)
{
	return env_saved;
}

const char *process__env_preload(void)
{
	return env_preload;
}

static void read_exe(void)
{
	ssize_t n = readlink("/proc/self/exe", hc_rt.exe_path, sizeof hc_rt.exe_path - 1);
	const char *base;

	if (n < 0)
		n = 0;
	hc_rt.exe_path[n] = 0;
	base = strrchr(hc_rt.exe_path, '/');
	base = base ? base + 1 : hc_rt.exe_path;
	hc_fmt(hc_rt.exe, sizeof hc_rt.exe, "%s", *base ? base : "unknown");
}

static void open_log(void)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	hc_fmt(path, sizeof path, "%s/%s-%06u-%08x-%u-%u.log", hc_rt.opt.dir, hc_rt.exe,
	       hc_rt.rank, hc_rt.hostid, hc_rt.pid, hc_rt.opt.gen);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_APPEND, 0600);
	if (fd < 0 || fstat(fd, &st) < 0)
		process__fatal("cannot create the log %s: %s", path, strerror(errno));
	hc_fmt(logpath, sizeof logpath, "%s", path);
	log_dev = st.st_dev;
	log_ino = st.st_ino;
	fds__reserve(1);
	fds__adopt(fd, &logfd, false);
}

static void atfork_prepare(void)
{
	if (hc_self)
		hc_guard_enter(hc_self);
	cct__fork_prepare();
	ownheap__atfork_prepare();
}

static void atfork_parent(void)
{
	ownheap__atfork_release();
	cct__fork_release(false);
	if (hc_self)
		hc_guard_leave(hc_self);
}

/* The child has one thread, copies of every thread record and inherited
   perf fds bound to the parent's threads: drop them all (the parent writes
   those profiles) and start over as a new measured process. */
static void atfork_child(void)
{
	struct rt_thread *self = hc_self;

	ownheap__atfork_release();
	cct__fork_release(true);
	if (!hc_rt.ready)
		return;
	ownheap__enter();
	sampler__atfork_child();
	for (int i = 0; i < HC_MAX_LIVE; i++) {
		struct rt_thread *t = hc_rt.live[i];
		if (!t)
			continue;
		hc_rt.live[i] = NULL;
		sampler__thread_stop(t);
		watch__thread_stop(t);
		if (t != self)
			thread__arena_release(&t->arena);
	}
	if (self) {
		hc_self = NULL;
		signal__altstack_off(self);
		thread__arena_release(&self->arena);
	}
	if (logfd >= 0)
		fds__close(&logfd, "the log");
	logfd = -1;
	flush__atfork_child();
	loadmap__atfork_child();
	process__init(true);
	ownheap__leave();
}

static void process_init(bool after_fork);

/* Start measuring this process (the constructor, or a forked child). Every
   allocation meanwhile is the runtime's (ownheap.c). */
void process__init(bool after_fork)
{
	ownheap__enter();
	process_init(after_fork);
	ownheap__leave();
}

static void process_init(bool after_fork)
{
	char why[768];
	int kind, nw = 0;
	bool fast = false;
	size_t bbsz;
	void *bbmem;
	uint32_t ppid = hc_rt.pid;
	int parent_kind = hc_rt.sampler_kind;

	if (after_fork) {
		struct rt_options keep = hc_rt.opt;
		char exe[sizeof hc_rt.exe], path[sizeof hc_rt.exe_path];
		memcpy(exe, hc_rt.exe, sizeof exe);
		memcpy(path, hc_rt.exe_path, sizeof path);
		memset(&hc_rt, 0, sizeof hc_rt);
		hc_rt.opt = keep;
		hc_rt.opt.gen = 0;
		memcpy(hc_rt.exe, exe, sizeof exe);
		memcpy(hc_rt.exe_path, path, sizeof path);
		hc_rt.opt.ppid = ppid;
		fini_done = 0;
	} else {
		hc_debug_init();       /* HC_DEBUG=cat,cat (doc/runtime.md) */
		read_exe();
		read_options(&hc_rt.opt);
		hc_rt.opt.ppid = (uint32_t)getppid();
	}
	hc_rt.pid = (uint32_t)getpid();
	hc_rt.hostid = hc_rt.opt.have_hostid ? hc_rt.opt.hostid : (uint32_t)gethostid();
	{
		/* The MPI rank, from the launcher's environment (an exec'ed child
		   keeps its parent's: the same variables). */
		struct hc_mpienv me;
		hc_mpienv_read(&me, NULL);
		hc_rt.rank = me.rank;
		hc_rt.rank_var = me.rank_var;
	}
	if (mkdir(hc_rt.opt.dir, 0700) == 0)
		chmod(hc_rt.opt.dir, hc_rt.opt.dir_mode);   /* exactly the mode asked, not umask's */
	else if (errno != EEXIST)
		process__fatal("cannot create the measurement directory %s: %s", hc_rt.opt.dir, strerror(errno));
	fds__init();                 /* before the first fd we keep: the log */
	open_log();
	if (!after_fork)
		numa__init();       /* after the log: it says what it records */
	process__log("hpcrun-comm runtime %s: pid %u ppid %u gen %u exe %s", PACKAGE_VERSION, hc_rt.pid,
	        hc_rt.opt.ppid, hc_rt.opt.gen, hc_rt.exe_path);

	/* A fork child keeps its parent's sampler (the parent's self-check
	   decided it; the machine has not changed): probed, not re-checked. */
	kind = after_fork ? hc_probe_select(parent_kind, &hc_rt.pmu, why, sizeof why)
	                  : hc_probe_select_checked(hc_rt.opt.sampler, &hc_rt.pmu, why, sizeof why);
	if (kind < 0)
		process__fatal("no address sampler can run: %s", why);
#ifndef HC_RT_EXACT
	if (kind == HC_SAMPLER_EXACT)
		process__fatal("exact mode needs the exact runtime libhpcrun-comm-exact.so (hpcrun-comm --exact "
		          "preloads it), not %s", "libhpcrun-comm.so");
#endif
	if (kind == HC_SAMPLER_EXACT)
		hc_rt.opt.period = 1;    /* every access: the profiles' period says so */
	hc_rt.sampler_kind = kind;
	hc_rt.unit = kind == HC_SAMPLER_SOFT ? HC_UNIT_NS : HC_UNIT_TRANSFERS;
	hc_rt.period = hc_pmu_period(kind, hc_rt.opt.period);
	hc_fmt(hc_rt.sampler_why, sizeof hc_rt.sampler_why, "%s", why);
	process__log("sampler: %s (%s)", hc_sampler_name(kind), why);
	process__log("event: COMM@%llu (%s), unit: %s", (unsigned long long)hc_rt.opt.period,
	        kind == HC_SAMPLER_SOFT ? "ns of thread CPU time between samples" :
	        kind == HC_SAMPLER_PEBS ? "retired loads, and retired stores, between samples" :
	        kind == HC_SAMPLER_EXACT ? "exact mode: every access of instrumented code" :
	        "ops between IBS samples; each load/store sample weighs P memory ops",
	        hc_rt.unit == HC_UNIT_NS ? "ns" : "transfers");
	if (hc_rt.period != hc_rt.opt.period)
		process__log("period: COMM@%llu is below the %s sampler's floor or not a multiple of 16: "
		        "sampling every %llu events (the period in effect, in the profiles and "
		        "the database)", (unsigned long long)hc_rt.opt.period, hc_sampler_name(kind),
		        (unsigned long long)hc_rt.period);

	if (kind == HC_SAMPLER_EXACT) {
		nw = 0;
		process__log("watchpoints: none (exact mode)");
	} else if (hc_probe_watch(&nw, &fast, why, sizeof why) < 0)
		process__log("watchpoints: none (%s): detection by samples only", why);
	else
		process__log("watchpoints: %s", why);
	if (hc_rt.opt.nwatch >= 0 && hc_rt.opt.nwatch < nw)
		nw = hc_rt.opt.nwatch;
	/* The process-wide set's registers come out of the thread's four
	   (a thread cannot open more breakpoint events than debug registers:
	   ENOSPC, detection.md §5.13). */
	hc_rt.npset = watch__pset_registers(nw);
	nw -= hc_rt.npset;
	hc_rt.nwatch = nw;
	process__log("watchpoints per armed set: %d", nw);
	if (hc_rt.npset)
		process__log("process-wide watch set: %d register%s, inherited by every thread, armed for the "
		        "threads the switch gate refuses (HPCRUN_COMM_PROCSET; budget %u.%u%% of the process's "
		        "CPU time)", hc_rt.npset, hc_rt.npset == 1 ? "" : "s", hc_rt.opt.procset_budget / 10,
		        hc_rt.opt.procset_budget % 10);
	if (hc_rt.npset)
		process__log("process-wide watch set: its armed time charged at %s context switch "
		             "(HPCRUN_COMM_PROCSET_SWITCH_VOL=%d; the involuntary ones not charged are counted "
		             "at the end)", hc_rt.opt.procset_switch_vol ? "each voluntary" : "each",
		             hc_rt.opt.procset_switch_vol);

	hc_rt.have_fsgsbase = (getauxval(AT_HWCAP2) & 2) != 0;
	fds__log_limits();

	bbsz = hc_bulletin_size(hc_rt.opt.bb_slots);
	bbmem = mmap(NULL, bbsz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bbmem == MAP_FAILED)
		process__fatal("cannot allocate the bulletin board (%zu bytes)", bbsz);
	/* Expiry of colliding entries: two sampling intervals, in ns (the
	   board's clock); a PMU period counts events (hc_bb_expiry_ns). */
	if (hc_bulletin_init(&hc_rt.bb, bbmem, hc_rt.opt.bb_slots,
	                     hc_bb_expiry_ns(kind, hc_rt.period)) < 0)
		process__fatal("cannot initialise the bulletin board (%u slots)", hc_rt.opt.bb_slots);
	hc_rt.dcfg.period = hc_rt.period;
	hc_rt.dcfg.nwatch = (uint32_t)nw;
	hc_rt.dcfg.probes = 8;
	hc_rt.dcfg.publish_loads = kind == HC_SAMPLER_SOFT && hc_rt.opt.publish_loads;
	hc_rt.dcfg.load_window = RT_STEP_RECENT * hc_rt.opt.period;
	hc_rt.dcfg.dry_samples = 4;   /* dry lines (detection.md §5.9) */
	hc_rt.dcfg.spin_weight = kind == HC_SAMPLER_SOFT && hc_rt.opt.spin_weight;   /* §5.14 */
	hc_rt.dcfg.sync_targets = kind == HC_SAMPLER_SOFT && hc_rt.opt.sync_targets; /* §5.17 */
	hc_rt.dcfg.reuse_life = kind == HC_SAMPLER_SOFT ? hc_rt.opt.reuse_life : 0;  /* §5.30 */
	hc_rt.dcfg.handoff_life = kind == HC_SAMPLER_SOFT ? hc_rt.opt.handoff_life : 0;  /* §5.36 */
	hc_rt.dcfg.handoff_stores = hc_rt.opt.handoff_stores;                         /* §5.41 */
	hc_rt.dcfg.handoff_region_age = hc_rt.opt.handoff_region_age;
	hc_rt.dcfg.handoff_region_settle = hc_rt.opt.handoff_region_settle;
	hc_rt.dcfg.handoff_region_block = hc_rt.opt.handoff_region_block;
	hc_rt.dcfg.handoff_window = hc_rt.opt.handoff_window;
	if (hc_rt.dcfg.handoff_life)
		record__handoff_init();
	hc_rt.dcfg.echo_depth = hc_rt.opt.echo_depth;                                 /* §5.19 */
	hc_rt.dcfg.refetch_false = kind == HC_SAMPLER_SOFT && hc_rt.opt.refetch_false; /* §5.24 */
	hc_rt.dcfg.heels_ns = kind == HC_SAMPLER_SOFT ? hc_rt.opt.heels_ns : 0;          /* §5.28 */
	hc_rt.dcfg.trap_footprint = kind == HC_SAMPLER_SOFT && hc_rt.opt.trap_footprint; /* §5.31 */
	hc_rt.dcfg.update_bytes = kind == HC_SAMPLER_SOFT && hc_rt.opt.update_bytes;     /* §5.54 */
	hc_rt.dcfg.join_line_ns = kind == HC_SAMPLER_SOFT ? hc_rt.opt.join_line_ns : 0;   /* §5.72 */
	hc_rt.dcfg.trap_lag = kind == HC_SAMPLER_SOFT ? hc_rt.opt.trap_lag : 0;   /* §5.73 */
	if (hc_rt.rank_var)
		process__log("MPI rank %u (from %s)", hc_rt.rank, hc_rt.rank_var);
	process__log("bulletin board: %u slots, entries expire after %llu ns%s", hc_rt.opt.bb_slots,
	        (unsigned long long)hc_rt.bb.expiry,
	        kind == HC_SAMPLER_PEBS ? " (2 x P events at an assumed 1 event/ns)" :
	        kind == HC_SAMPLER_IBS ? " (2 x P ops at an assumed 3 ops/ns)" : " (2 x P ns)");
	if (hc_rt.opt.no_prev)
		process__log("previous-instruction recovery: off (HPCRUN_COMM_NO_PREV)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("soft sampler events: %s", hc_rt.opt.per_thread ?
		        "one per thread (HPCRUN_COMM_SAMPLER_PER_THREAD)" :
		        "one per process, inherited by every thread at clone");
	if (kind == HC_SAMPLER_SOFT)
		process__log("single-step bursts: up to %u steps after a sample, %u.%02u steps per sample "
		        "on average at most%s", hc_rt.opt.steps, hc_rt.opt.step_budget256 / 256,
		        hc_rt.opt.step_budget256 % 256 * 100 / 256,
		        hc_rt.opt.steps ? "" : " (off: HPCRUN_COMM_STEPS=0)");
	if (kind == HC_SAMPLER_SOFT && hc_rt.opt.steps)
		process__log("bursts resolved without stepping where straight-line code shows their end "
		        "(forward scan from the sample's registers): %s", hc_rt.opt.step_scan ? "on" :
		        "off (HPCRUN_COMM_STEP_SCAN=0)");
	if (kind == HC_SAMPLER_SOFT && hc_rt.opt.steps)
		process__log("a burst publishes only the first of its loads of a line "
		        "(HPCRUN_COMM_BURST_FIRST; counter step_loads_again): %s",
		        hc_rt.opt.burst_first ? "on" : "off (HPCRUN_COMM_BURST_FIRST=1 for on)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("samples after a load that overwrote its pointer recover it from the reload up to "
		        "%u instructions back (HPCRUN_COMM_RELOAD_CHAIN, 0 = only right before; counter "
		        "samples_recovered_reload)", hc_rt.opt.reload_chain);
	if (kind == HC_SAMPLER_SOFT)
		process__log("watchpoint traps on a load that overwrote its pointer take its address from the reload "
		        "too, not the watched 8-byte chunk (HPCRUN_COMM_TRAP_RELOAD; counter traps_recovered_reload): %s",
		        hc_rt.opt.trap_reload ? "on" : "off");
	if (kind == HC_SAMPLER_SOFT)
		process__log("feed sets: a sample in a loop without memory accesses watches, on the idle process-wide "
		        "set, the line of the load before the loop for another thread's next store (one ask in 4 "
		        "such samples; detection.md §5.68): %s (HPCRUN_COMM_FEED_SETS; a budget of %u permille of the "
		        "process's CPU time of their own, HPCRUN_COMM_FEED_BUDGET; after 16 sets without a "
		        "communication one ask in 16; counters feed_asked, feed_none, feed_busy, feed_dry, "
		        "feed_budget, feed_armed, feed_comms); a sampled load that is the only access of its loop "
		        "asks too: %s (HPCRUN_COMM_FEED_SAMPLED; counter feed_sampled); a sample anywhere in a loop "
		        "whose only access is one load, its address registers unchanged since it ran, asks for that "
		        "load: %s (HPCRUN_COMM_FEED_LIVE; detection.md §5.70); a feed set lives %u sampling periods "
		        "(HPCRUN_COMM_FEED_LIFE) and its trap weighs the samples since the thread's last one, at most "
		        "%u (HPCRUN_COMM_FEED_STANDS, 0: one; counter feed_stood)",
		        hc_rt.opt.feed_sets ? "on" : "off", hc_rt.opt.feed_budget,
		        hc_rt.opt.feed_sets && hc_rt.opt.feed_sampled ? "on" : "off",
		        hc_rt.opt.feed_sets && hc_rt.opt.feed_live ? "on" : "off", hc_rt.opt.feed_life,
		        hc_rt.opt.feed_stands);
	if (kind == HC_SAMPLER_SOFT)
		process__log("a start routine's sample in a loop arms its return burst at the loop's exit, found within %u "
		        "instructions (HPCRUN_COMM_LOOP_EXIT, 0 = off; counter ret_bp_loop)", hc_rt.opt.loop_exit);
	if (kind == HC_SAMPLER_SOFT)
		process__log("samples in register-only code after register-only code walk back up to %u "
		        "instructions of straight-line code for the access they skidded past "
		        "(HPCRUN_COMM_PREV_DEPTH, 0 = off; counter samples_recovered_deep)", hc_rt.opt.prev_depth);
	if (kind == HC_SAMPLER_SOFT && !hc_rt.opt.per_thread)
		process__log("watchpoints' context-switch gate: a thread opens its watchpoints only while "
		        "its context switches x %u ns (%u ns while the process is not crowded) stay within "
		        "%u.%u%% of its CPU time%s (opening them un-clones its perf context: every later "
		        "switch restarts the sampler's timer)",
		        hc_rt.opt.switch_ns, hc_rt.opt.switch_other_ns, RT_SWITCH_BUDGET_PERMILLE / 10,
		        RT_SWITCH_BUDGET_PERMILLE % 10,
		        hc_rt.opt.switch_ns ? "" : " (off: HPCRUN_COMM_SWITCH_NS=0)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("return bursts (execute breakpoint on a sampled function's return address): %s",
		             !hc_rt.opt.ret_bp ? "off (HPCRUN_COMM_RET_BP=0)" :
		             hc_rt.opt.steps && nw > 0 ? (hc_rt.opt.ret_bp_system ? "on, system libraries too "
		             "(HPCRUN_COMM_RET_BP_SYSTEM=1)" : "on, not into system libraries' code") :
		             "off (no steps or no watchpoints)");
	if (kind == HC_SAMPLER_SOFT && hc_rt.opt.ret_bp)
		process__log("return bursts step into %u call%s before they stop at a call or return "
		             "(HPCRUN_COMM_RET_CALL; counter ret_burst_calls)", hc_rt.opt.ret_call,
		             hc_rt.opt.ret_call == 1 ? "" : "s");
	if (kind == HC_SAMPLER_SOFT)
		process__log("barren bursts (a seed or return burst that ran %u steps or more and published "
		             "nothing): %s%u%s", RT_BARREN_MIN, hc_rt.opt.burst_barren ? "none again from the "
		             "same place but one in " : "off (HPCRUN_COMM_BURST_BARREN=0; retry ",
		             RT_BARREN_RETRY, hc_rt.opt.burst_barren ? " (counter step_barren)" : ")");
	if (kind == HC_SAMPLER_SOFT)
		process__log("loads of shared-looking memory published: %s", hc_rt.dcfg.publish_loads ?
		        "yes" : "no (HPCRUN_COMM_PUBLISH_LOADS=0)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("spin waits: a communication on a line its thread waited on for n samples "
		        "weighs 1/n (counter spin_weighted): %s",
		        hc_rt.dcfg.spin_weight ? "on" : "off (HPCRUN_COMM_SPIN_WEIGHT=0)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("synchronizing stores (xchg with memory: seq_cst stores, flags) are watch targets on lines the thread "
		        "did not touch recently (counters watch_armed_sync, sync_comms): %s",
		        hc_rt.dcfg.sync_targets ? "on" : "off (HPCRUN_COMM_SYNC_TARGETS=0)");
	if (kind == HC_SAMPLER_SOFT) {
		if (hc_rt.dcfg.reuse_life)
			process__log("reuse sets: another thread's store in a heap block this thread touches now and "
			        "then (or allocated) is a watch target, the set lives up to %u samples (HPCRUN_COMM_REUSE_LIFE; counters samples_in_block, "
			        "watch_armed_reuse, reuse_comms)", hc_rt.dcfg.reuse_life);
		else
			process__log("reuse sets: off (HPCRUN_COMM_REUSE_LIFE=0)");
		if (hc_rt.dcfg.handoff_life)
			process__log("hand-off sets: a load in a heap block of at least %u KiB that one other thread alone "
			        "was seen storing to arms a set on %u lines of the block this thread did not touch "
			        "lately, drawn from %llu KiB around the sample (0: the whole block), standing for that store, at most 1 + lines/%u traps a thread and block; it lives up to %u samples and %s "
			        "(HPCRUN_COMM_HANDOFF_LIFE, HPCRUN_COMM_HANDOFF_WINDOW (KiB), HPCRUN_COMM_HANDOFF_UNGATED; counters handoff_noted, handoff_writers, handoff_shared, "
			        "watch_armed_handoff, handoff_ungated, handoff_gated, handoff_capped, handoff_comms)",
			        HC_HANDOFF_BLOCK_MIN / 1024, hc_rt.dcfg.nwatch,
			        (unsigned long long)(hc_rt.dcfg.handoff_window / 1024), HC_HANDOFF_LINES_PER_TRAP,
			        hc_rt.dcfg.handoff_life, hc_rt.opt.handoff_ungated ?
			        "opens a gated thread's registers (as a start set)" : "asks the switch and share gates");
		if (hc_rt.dcfg.handoff_life)
			process__log("hand-off sets of a thread the switch gate refuses: %s (HPCRUN_COMM_HANDOFF_PSET; "
			        "detection.md §5.60)", hc_rt.opt.handoff_pset ?
			        "one line on the process-wide set, its registers stay closed" :
			        "as above (=1: one line on the process-wide set instead)");

		else
			process__log("hand-off sets: off (HPCRUN_COMM_HANDOFF_LIFE=0)");
		if (hc_rt.dcfg.handoff_life)
			process__log("hand-off sets (session 19): small heap blocks' %u KiB regions keep writer records %s "
			        "(HPCRUN_COMM_HANDOFF_REGION, a record arms from %llu ms (HPCRUN_COMM_HANDOFF_REGION_SETTLE) for %llu ms: HPCRUN_COMM_HANDOFF_REGION_AGE; %s: HPCRUN_COMM_HANDOFF_REGION_UNGATED); store samples arm hand-off sets %s "
			        "(HPCRUN_COMM_HANDOFF_STORES; counters handoff_region_noted, handoff_region_sets, handoff_store_sets); "
			        "a record in another tracked block than the sample's arms %s (HPCRUN_COMM_HANDOFF_REGION_BLOCK; counter handoff_region_other_block)",
			        HC_HANDOFF_REGION / 1024, hc_rt.opt.handoff_region == 1 ? "on (loads and stores arm)" :
			        hc_rt.opt.handoff_region == 2 ? "on (stores arm)" : "off",
			        (unsigned long long)(hc_rt.dcfg.handoff_region_settle / 1000000ull),
			        (unsigned long long)(hc_rt.dcfg.handoff_region_age / 1000000ull),
			        hc_rt.opt.handoff_region_ungated ? "opens a gated thread's registers" : "asks the switch gate",
			        hc_rt.dcfg.handoff_stores ? "on" : "off",
			        hc_rt.dcfg.handoff_region_block ? "nothing" : "the region as any record");
		process__log("creator's block sets (HPCRUN_COMM_START_BLOCK=%u): when none of the creator's stores is on the "
		        "board, %s (HPCRUN_COMM_START_BLOCK_WRITTEN=%d; counter start_sets_block_written)",
		        hc_rt.opt.start_block,
		        !hc_rt.opt.start_block ? "none (off)" :
		        hc_rt.opt.start_block >= 2 ? "a big block it allocated last" :
		        hc_rt.opt.start_block_written ? "a big block it had written when it created its first thread since" :
		        "none", hc_rt.opt.start_block_written ? 1 : 0);
	}
	if (kind == HC_SAMPLER_SOFT) {
		lock__sync_enable(hc_rt.opt.sync_sys);
		if (hc_rt.opt.sync_sys)
			process__log("synchronisation objects: system code's accesses to the bytes of the pthread barriers, "
			        "mutexes and condition variables the program uses are the lock implementation's, not the "
			        "program's data: not published, not detected, no set armed on them (HPCRUN_COMM_SYNC_SYS; "
			        "counters sync_objects, sync_full, sync_sys_samples, sync_sys_bursts, sync_sys_traps, "
			        "sync_sys_pset_traps)");
		else
			process__log("synchronisation objects: counted as any data (HPCRUN_COMM_SYNC_SYS=0)");
		if (hc_rt.opt.sys_data)
			process__log("system libraries' own data: system code's accesses to a system library's variables "
			        "(libc's malloc arena, memcpy's tunables) are not the program's data: not published, not "
			        "detected, no set armed on them (HPCRUN_COMM_SYS_DATA; counters sys_data_samples, "
			        "sys_data_bursts, sys_data_traps)");
		else
			process__log("system libraries' own data: counted as any data (HPCRUN_COMM_SYS_DATA=0)");
		process__log("copies' last lines: %s (HPCRUN_COMM_REP_END; counter rep_end_published)",
		             hc_rt.opt.rep_end ? "a sample inside a forward rep movs/stos (memcpy, memset) publishes the "
		             "last bytes the copy will write as the thread's store, on the board only" : "off");
		process__log("main's stack: %s (HPCRUN_COMM_STACK_SHARED; counters stack_shared_noted, "
		             "stack_shared_samples)",
		             hc_rt.opt.stack_shared ? "private, but for the lines other threads were seen using (OpenMP "
		             "shared locals, arguments on main's stack), which publish and detect as shared data" :
		             "private whole");
	}
	if (kind == HC_SAMPLER_SOFT) {
		bool io = hc_rt.opt.io_stores && hc_rt.dcfg.handoff_life && hc_rt.nwatch >= 1;

		io__enable(io);
		process__log("kernel fills: %s (HPCRUN_COMM_IO_STORES; detection.md §5.75; counters io_noted, "
		             "io_small, io_no_ctx, io_not_heap, io_lost, io_sets, io_ctx_cached, io_copy_samples)",
		             io ? "read(), pread(), recv() and recvfrom() of at least 4096 bytes into a heap block are "
		             "the calling thread's store at the call over the range filled; another thread's load sample "
		             "in the range arms a hand-off set on its lines" : "off");
	}
	if (kind == HC_SAMPLER_SOFT) {
		bool on = hc_rt.opt.crit_sets && hc_rt.nwatch >= 1;

		crit__enable(on);
		process__log("critical sections: %s (HPCRUN_COMM_CRIT_SETS; detection.md §5.76; counters crit_enters, "
		             "crit_handoffs, crit_records, crit_recs_full, crit_sets, crit_gated, crit_busy, crit_deep)",
		             on ? "a store sampled inside an OpenMP critical section or omp lock is kept for the "
		             "section's next holder, whose entry arms a set on it" : "off");
		if (on) {
			process__log("critical sections' spare registers: %s (HPCRUN_COMM_CRIT_FILL)",
			             hc_rt.opt.crit_fill ? "the chunks after the sampled word on its line" : "unused");
			process__log("critical sections' samples without a store: %s (HPCRUN_COMM_CRIT_BURST; counter "
			             "crit_burst_records)", hc_rt.opt.crit_burst ? "the store their burst ends at stands for "
			             "them, once a sample" : "nothing recorded");
		}
	}
	if (kind == HC_SAMPLER_SOFT) {
		bool on = hc_rt.opt.lock_sets && hc_rt.nwatch >= 1;

		lock__enable(on);
		if (on)
			process__log("lock sets: a thread that takes a mutex another thread released last watches words "
			        "beside the mutex for the releaser's data, at most once in %u of its samples, a trap weighing "
			        "%llu ns per hand-off since the thread's last lock set, at most %llu of them (HPCRUN_COMM_LOCK_SETS, HPCRUN_COMM_LOCK_NS, "
			        "HPCRUN_COMM_LOCK_CAP; counters lock_handoffs, lock_sets, lock_sets_kept, lock_busy, "
			        "lock_no_ctx, lock_ctx_captures, lock_traps, lock_traps_system, lock_traps_late, lock_gated)",
			        hc_rt.opt.lock_sets, (unsigned long long)hc_rt.opt.lock_ns,
			        (unsigned long long)hc_rt.opt.lock_cap);
		if (on)
			process__log("lock traps' weights: flagged for the analyzer to scale by the process's hand-offs "
			        "against what the caps let weigh: %s (HPCRUN_COMM_LOCK_RESCALE, detection.md §5.61; counters "
			        "lock_scale_handoffs, lock_scale_weighed); a gated releaser's process-wide lock set armed "
			        "at the next other thread's acquisition of the mutex, not after the release: %s "
			        "(HPCRUN_COMM_LOCK_PSET_ACQ, =2: a mutex's sets once %u armed after its releases had fewer "
			        "than 1 in %u judged by a trap, detection.md §5.67; counters lock_acq_pending, lock_acq_arms, "
			        "lock_acq_refused, lock_acq_switched)",
			        hc_rt.opt.lock_rescale ? "on" : "off",
			        hc_rt.opt.lock_pset_acq == 2 ? "per mutex" : hc_rt.opt.lock_pset_acq ? "on" : "off",
			        HC_LOCK_ACQ_LEARN, HC_LOCK_ACQ_RATIO);
		if (on)
			process__log("lock sets kept: a lock set's spare registers on the first changed word of each "
			        "other changed line, the set re-armed on its other lines after a trap while the thread "
			        "holds the mutex, each trap its weight: %s (HPCRUN_COMM_LOCK_KEEP, detection.md §5.62; "
			        "counters lock_keep_filled, lock_keep_rearms, lock_keep_ends)",
			        hc_rt.opt.lock_keep ? "on" : "off");
		if (on)
			process__log("lock sets' words: the changed lines' words no trap has read yet, one choice in %u (0: "
			        "never; the words other threads were seen reading first otherwise): %s (HPCRUN_COMM_LOCK_UNTRIED, "
			        "detection.md §5.71; counter lock_untried); the changed lines taken in turn, a good word of the "
			        "line first: %s (HPCRUN_COMM_LOCK_LINES, =2 its trap weighing the lines changed; counter "
			        "lock_lines_other: sets on another line than the choice by word's)",
			        hc_rt.opt.lock_untried, hc_rt.opt.lock_untried ? "on" : "off",
			        hc_rt.opt.lock_lines == 2 ? "on, weighing the lines" : hc_rt.opt.lock_lines ? "on" : "off");
		if (on)
			process__log("lock sets drawn: a gated thread's due process-wide lock set taken by the next "
			        "critical section of any gated thread, on one of the lines it changed drawn uniformly, a "
			        "word other threads read after that releaser's critical sections, its trap weighing the "
			        "number of such lines: %s%s (HPCRUN_COMM_LOCK_DRAW=1, =2 with open threads' lock sets too; "
			        "=3 the next critical section of the same mutex only, its word chosen as without (detection.md §5.65, "
			        "§5.71); "
			        "counters lock_draw_tokens, lock_draw_taken, lock_draw_lines)",
			        hc_rt.opt.lock_draw ? "on" : "off", hc_rt.opt.lock_draw == 2 ? ", open threads' too" :
			        hc_rt.opt.lock_draw == 3 ? ", the next critical section only" : "");
		if (on)
			process__log("lock sets on the process-wide set: %s (HPCRUN_COMM_LOCK_PSET; a gated thread's "
			        "critical section compared with its start, the set armed at the release on a word of a changed "
			        "line, true when the word changed; counters lock_snaps, lock_pset_asked, lock_pset_arms, "
			        "lock_pset_refused, lock_pset_unchanged, lock_pset_true, lock_pset_false, lock_pset_none, "
			        "lock_pset_system; budget HPCRUN_COMM_LOCK_PSET_BUDGET=%u permille); a non-heap mutex's "
			        "neighbourhood from %llu bytes before it (HPCRUN_COMM_LOCK_BEFORE); traps of system code on "
			        "its words dropped: %s (HPCRUN_COMM_LOCK_WORDS; counter lock_words_dropped); an open thread's "
			        "lock set judged by the words changed since its last release: %s (HPCRUN_COMM_LOCK_VERDICT; "
			        "counters lock_verdict_true, lock_verdict_false, lock_verdict_none, lock_verdict_unknown, "
			        "lock_verdict_nested; the "
			        "last releases of %u mutexes kept, HPCRUN_COMM_LOCK_WAYS, from %u samples before a set is due, "
			        "HPCRUN_COMM_LOCK_VERDICT_EARLY); verdicts to "
			        "the byte: %s (HPCRUN_COMM_LOCK_BYTES)",
			        hc_rt.opt.lock_pset ? "on" : "off", hc_rt.opt.lock_pset_budget,
			        (unsigned long long)hc_rt.opt.lock_before, hc_rt.opt.lock_words ? "on" : "off",
			        hc_rt.opt.lock_verdict ? "on" : "off", hc_rt.opt.lock_ways, hc_rt.opt.lock_verdict_early,
			        hc_rt.opt.lock_bytes ? "on" : "off");
		if (on && hc_rt.opt.lock_pset)
			process__log("lock sets on the process-wide set: a later releaser of the mutex that changed the "
			        "watched line is its last writer, the trap its communication judged by the bytes it changed: "
			        "%s (HPCRUN_COMM_LOCK_PSET_AFTER; counters lock_after_writes, lock_after_peer, "
			        "lock_after_own, lock_after_noctx)", hc_rt.opt.lock_pset_after ? "on" : "off");
		if (on)
			process__log("reader sets: a store in a heap block holding no mutex, once a hand-off of a mutex was "
			        "seen, and the 8 bytes after it in its line watched by the idle process-wide set, the "
			        "publisher's own store there its new entry; a trap weighs %llu ns (HPCRUN_COMM_LOCK_NS) per "
			        "line (a load) or element (a store) the store's instruction wrote since the thread's last "
			        "reader set (detection.md §5.57): %s (HPCRUN_COMM_READER_SETS; a budget of %u permille of "
			        "the process's CPU time, HPCRUN_COMM_READER_BUDGET; after 16 sets without a communication "
			        "one ask in 16; counters reader_asked, reader_edge, reader_busy, reader_dry, "
			        "reader_lock_block, reader_budget, reader_armed, reader_adopts, reader_comms, reader_writers)",
			        (unsigned long long)hc_rt.opt.lock_ns, hc_rt.opt.reader_sets ? "on" : "off",
			        hc_rt.opt.reader_budget);
		if (on)
			process__log("reader sets' stores: the one a sample's loop of the start routine ends with, its exit "
			        "within %u instructions (HPCRUN_COMM_READER_LOOP, 0 = off; counters reader_loops, "
			        "reader_loop_none); sampled stores too: %s (HPCRUN_COMM_READER_SAMPLES); the watch moved on "
			        "to the next element at the publisher's own store: %s (HPCRUN_COMM_READER_CHASE; counter "
			        "reader_chased); a trap weighed as the lock traps' caps weigh their hand-offs: %s "
			        "(HPCRUN_COMM_READER_SCALE)", hc_rt.opt.reader_loop, hc_rt.opt.reader_samples ? "on" : "off",
			        hc_rt.opt.reader_chase ? "on" : "off", hc_rt.opt.reader_scale ? "on" : "off");
		if (on)
			process__log("reader sets' stores from a leaf callee: a sample in a function with a frame pointer "
			        "that the start routine calls names the store after its return, in the caller's registers "
			        "(the callee's and the caller-saved ones unknown): %s (HPCRUN_COMM_READER_CALLEE, detection.md "
			        "§5.67; counters reader_callee, reader_callee_none)", hc_rt.opt.reader_callee ? "on" : "off");
		if (on)
			process__log("lock sets: a releaser's context at its latest store up to %u instructions before "
			        "its unlock (HPCRUN_COMM_LOCK_STORE, 0 = at the unlock; counter lock_ctx_store); a watched "
			        "word at the store that names its address: %s (HPCRUN_COMM_LOCK_STORE_WORD)",
			        hc_rt.opt.lock_store, hc_rt.opt.lock_store_word ? "on" : "off");
		else
			process__log("lock sets: off (%s)", hc_rt.opt.lock_sets ? "no watchpoints" : "HPCRUN_COMM_LOCK_SETS=0");
	}
	if (hc_rt.dcfg.echo_depth)
		process__log("trapped stores published up to echo depth %u (a trap on a set whose entry a trap "
		        "published is an echo of depth 2; counter published_trap_echo; HPCRUN_COMM_ECHO_DEPTH, 0 = any)",
		        hc_rt.dcfg.echo_depth);
	else
		process__log("trapped stores published at any echo depth (HPCRUN_COMM_ECHO_DEPTH=0)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("re-fetches (a detection by a thread seen accessing the line after the entry's store) "
		        "are false sharing (counter false_refetch; detection.md §5.24): %s",
		        hc_rt.dcfg.refetch_false ? "on (HPCRUN_COMM_REFETCH_FALSE=1)" : "off (HPCRUN_COMM_REFETCH_FALSE=1 for on)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("a store detected against another thread's load of its bytes at most %llu us after it "
		        "is false sharing, the writer at the reader's heels (counter false_heels; detection.md "
		        "§5.28; HPCRUN_COMM_HEELS_US, 0 = off)", (unsigned long long)(hc_rt.dcfg.heels_ns / 1000));
	if (kind == HC_SAMPLER_SOFT)
		process__log("a trap off the published chunk weighs the period over the chance that the set watched one of "
		        "the chunks its thread touches on the line (detection.md §5.31): %s",
		        hc_rt.dcfg.trap_footprint ? "on (HPCRUN_COMM_TRAP_FOOTPRINT=1)" : "off, one chunk (HPCRUN_COMM_TRAP_FOOTPRINT=1 for on)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("two updates (each access reads and writes its own bytes: x[i] += v) are judged by their "
		        "bytes alone, not by the threads' byte masks or moving spans (counters updates_sampled, "
		        "updates_trapped, false_update; detection.md §5.54): %s",
		        hc_rt.dcfg.update_bytes ? "on (HPCRUN_COMM_UPDATE_BYTES=0 for off)" : "off (HPCRUN_COMM_UPDATE_BYTES=1 for on)");
	if (kind == HC_SAMPLER_SOFT && hc_rt.dcfg.update_bytes)
		process__log("an update's load and store found over -O0's recomputed address (a small evaluator of the "
		        "code between; detection.md §5.56): %s",
		        hc_rt.opt.update_recompute ? "on (HPCRUN_COMM_UPDATE_RECOMPUTE=0 for off)" : "off (HPCRUN_COMM_UPDATE_RECOMPUTE=1 for on)");
	if (kind == HC_SAMPLER_SOFT && hc_rt.dcfg.update_bytes && hc_rt.opt.update_recompute)
		process__log("a sampled load whose bytes -O0's code stores further on counts as that store (detection.md §5.56): %s",
		        hc_rt.opt.update_sampled ? "on (HPCRUN_COMM_UPDATE_SAMPLED=0 for off)" : "off (HPCRUN_COMM_UPDATE_SAMPLED=1 for on)");
	if (kind == HC_SAMPLER_SOFT && hc_rt.dcfg.update_bytes)
		process__log("a store a trap's walk from an update's load reached is that update's store at its later "
		        "samples (counter updates_learned; detection.md §5.54): %s",
		        hc_rt.opt.update_learn ? "on (HPCRUN_COMM_UPDATE_LEARN=0 for off)" : "off (HPCRUN_COMM_UPDATE_LEARN=1 for on)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("a write-only set's trapped store off the reader's bytes keeps the reader's chunk watched: true "
		        "if this thread stores it before its next sample, else false (counters held_sets, held_true, "
		        "held_false; detection.md §5.31): %s",
		        hc_rt.opt.hold_reader ? "on (HPCRUN_COMM_HOLD_READER=0 for off)" : "off (HPCRUN_COMM_HOLD_READER=0)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("poll flags: a sampled load in a poll loop (a spin wait: detection.md §5.58) marks its word "
		        "the line's flag; a gated thread's store next to a flag arms the process-wide set on the flag, "
		        "its entry moved to the thread's own store of the flag, a trap judged by the bytes of the "
		        "entry then (counters in the process-wide set's poll-flag line): %s",
		        hc_rt.opt.poll_flag ? "on (HPCRUN_COMM_POLL_FLAG=0 for off)" : "off (HPCRUN_COMM_POLL_FLAG=1 for on)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("poll readers: a process-wide set's trap on a load off a polled flag's word, by a thread "
		        "whose latest poll-loop load was in that flag's 16 KiB region, is charged to that poll's "
		        "context (the line moved at the poll, detection.md §5.58; counter in the process-wide set's "
		        "poll-flag line): %s",
		        hc_rt.opt.poll_reader ? "on (HPCRUN_COMM_POLL_READER=0 for off)" : "off (HPCRUN_COMM_POLL_READER=1 for on)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("poll lines' budget: the process-wide set's sets on a line with a polled flag go on over its "
		        "budget within %u.%u%% of the process's CPU time of their own (HPCRUN_COMM_POLL_BUDGET=%u permille, "
		        "0 = none; detection.md §5.58; counter in the process-wide set's poll-flag line)",
		        hc_rt.opt.poll_budget / 10, hc_rt.opt.poll_budget % 10, hc_rt.opt.poll_budget);
	if (kind == HC_SAMPLER_SOFT)
		process__log("a moving access (an instruction seen at several addresses) counts as the bytes of the line its "
		        "addresses span, not the whole line (counter moving_within: spans under a line; detection.md §5.47): %s",
		        hc_rt.opt.move_span == 2 ? "on, clipped to the access's heap block (HPCRUN_COMM_MOVE_SPAN=1 unclipped, 0 off)" :
		        hc_rt.opt.move_span ? "on, not clipped (HPCRUN_COMM_MOVE_SPAN=1; 2 clipped to the heap block)" :
		        "off, the whole line (HPCRUN_COMM_MOVE_SPAN=0)");
	if (kind == HC_SAMPLER_SOFT)
		process__log("a fixed access (its instruction seen at the same address %u times more in a row) counts as "
		        "its own bytes only, not with its thread's other bytes of the line (counter fixed_accesses; "
		        "detection.md §5.47; HPCRUN_COMM_FIXED_BYTES, 0 = off)", hc_rt.opt.fixed_bytes);
	if (kind == HC_SAMPLER_SOFT)
		process__log("join sets' traps (the joiner's read of its peers' output after pthread_join, counter "
		        "join_traps) weigh per line they stand for: %llu ns (HPCRUN_COMM_JOIN_NS, 0 = a sampling "
		        "period; detection.md §5.72)", (unsigned long long)(hc_rt.opt.join_line_ns ?
		        hc_rt.opt.join_line_ns : hc_rt.dcfg.period));
	if (kind == HC_SAMPLER_SOFT)
		process__log("a regular set's trap matched with an entry more than N periods old weighs N periods / "
		        "its lag of what it would (the line moved once, long before; counter traps_lag_divided): %s%u "
		        "(HPCRUN_COMM_TRAP_LAG, 0 = off; detection.md §5.73)", hc_rt.opt.trap_lag ? "N = " : "off, ",
		        hc_rt.opt.trap_lag);
	if (kind == HC_SAMPLER_SOFT)
		process__log("pipeline sets (the process-wide set on the next hand-off of a strided "
		        "sequence of synchronizing stores: detection.md §5.18): %s",
		        !hc_rt.opt.pipe ? "off (HPCRUN_COMM_PIPE=0)" : hc_rt.npset <= 0 ? "on, but no process-wide set" :
		        hc_rt.opt.pipe == 1 ? "on, from writers' stores" : hc_rt.opt.pipe == 2 ?
		        "on, from readers' waits" : "on, from writers' stores and readers' waits");

	if (!after_fork) {
		if (hc_decode_init() < 0)
			process__fatal("cannot initialise the instruction decoder (Zydis)");
		if (signal__init() < 0)
			process__fatal("cannot install the SIGTRAP handler: %s", strerror(errno));
		pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
	}
	loadmap__refresh();
	/* After the first walk: it reads LD_PRELOAD (loadmap.c, the DTV). */
	if (!after_fork)
		env_hide();
	HC_DEBUG_LOG(HC_DBG_INIT, "pid %u: sampler %s, COMM@%llu, %d watchpoints, bulletin board %u slots, into %s",
	             hc_rt.pid, hc_sampler_name(kind), (unsigned long long)hc_rt.opt.period, nw,
	             hc_rt.opt.bb_slots, hc_rt.opt.dir);
	hc_rt.next_index = 1;
	hc_rt.ready = 1;
	if (!thread__begin(0, HC_NONE, HC_NONE, 0))
		process__fatal("cannot start measuring the main thread (see the log in %s)", hc_rt.opt.dir);
	flush__start();
}

/* Flush every profile and the process log, once. */
void process__fini(void)
{
	if (!hc_rt.ready || fini_done)
		return;
	ownheap__enter();
	/* No samples of our own exit path (the refresh walks every module). */
	sampler__process_stop();
	loadmap__refresh();
	process__finish();
	ownheap__leave();
}

/* The flush itself, async-signal-safe (no load-map refresh: the fatal-signal
   path uses the last snapshot). */
void process__finish(void)
{
	if (!hc_rt.ready || __atomic_exchange_n(&fini_done, 1, __ATOMIC_ACQ_REL))
		return;
	__atomic_store_n(&hc_rt.stopping, 1, __ATOMIC_SEQ_CST);
	flush__all();               /* every live thread's final profile (flush.c) */
	output__write_process_log();
}

__attribute__((constructor(101))) static void hc_runtime_ctor(void)
{
	/* Children inherit LD_PRELOAD; the launcher itself never loads us. */
	process__init(false);
}

__attribute__((destructor(101))) static void hc_runtime_dtor(void)
{
	process__fini();
}

/* exec failed after we flushed: keep measuring under the next generation,
   with fresh metrics and events (the flushed profiles keep the old ones;
   CCT nodes stay so that node ids held by peers remain valid). */
void process__resume_after_exec_failure(void);
void process__resume_after_exec_failure(void)
{
	hc_rt.opt.gen++;
	memset(&hc_rt.total, 0, sizeof hc_rt.total);
	memset(hc_rt.hist, 0, sizeof hc_rt.hist);
	memset(hc_rt.cost, 0, sizeof hc_rt.cost);
	for (int i = 0; i < HC_MAX_LIVE; i++) {
		struct rt_thread *t = hc_rt.live[i];
		if (!t)
			continue;
		for (uint32_t k = 0; k < t->cct.n; k++)
			memset(t->cct.nodes[k].m, 0, sizeof t->cct.nodes[k].m);
		t->events.n = 0;
		memset(&t->cnt, 0, sizeof t->cnt);
		memset(t->hist, 0, sizeof t->hist);
		memset(t->cost, 0, sizeof t->cost);
		t->id.end_ns = 0;
		t->snap.written = 0;           /* new generation, new file names */
		t->snap.key = 0;
		__atomic_store_n(&t->safety.flushed, 0, __ATOMIC_RELEASE);
	}
	fini_done = 0;
	__atomic_store_n(&hc_rt.stopping, 0, __ATOMIC_RELEASE);
	sampler__process_resume();
	process__log("exec failed: measurement continues as generation %u", hc_rt.opt.gen);
}
