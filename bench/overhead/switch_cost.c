/* SPDX-License-Identifier: BSD-3-Clause */
/* switch_cost.c — what a context switch costs a thread that carries perf
   events (doc/performance.md, "Oversubscription"). Two threads pinned to
   CPU 0 hand it to each other with sched_yield ITERS times each; the
   figure is CPU time (and wall time) per switch. Modes:
     none     no events
     inherit  a sampling task-clock (period 500 µs, sigtrap, SIGTRAP
              ignored) opened by the main thread with inherit=1 before the
              threads exist: the threads carry clones of its context, which
              the kernel swaps at a switch without stopping the event
     own      each thread opens its own sampling task-clock (per-thread
              sampler: nothing to swap, the event's hrtimer is stopped and
              restarted at every switch)
     inherit+bp  inherit, and each thread opens BP breakpoint events
              (enabled, on a variable nobody touches): this un-clones its
              context, as the runtime's watchpoints do
     inherit+bpoff  the same with the breakpoint events opened disabled
              (the context is un-cloned, no debug register is armed: a
              thread whose watchpoint set is disarmed)
     inherit+ibp  the BP breakpoint events are opened by the main thread
              with inherit=1 too, before the threads exist: every thread
              carries clones of both, so the contexts stay equivalent
     inherit+ibpmod  the same, and the main thread (on CPU 1) re-targets
              the breakpoints every millisecond through its own fds
              (PERF_EVENT_IOC_MODIFY_ATTRIBUTES reaches the children): one
              watched set for the whole process, re-armed as the runtime
              re-arms a set
     inherit+clkoff  inherit, and BP more inherited task-clocks opened
              disabled by the main thread (the crowded rate's coarse and
              heavy events, sampler/rate.h: what they add to a switch)

   With -x (cross), the two threads are pinned to CPUs 0 and 1 and hand a
   token to each other through a futex: every hand-off blocks one thread
   and wakes the other, so each switch goes to or from a task of another
   context (the idle task, another program's task), never to a sibling's
   clone — the case the inherited context cannot swap (performance.md,
   "Oversubscription"). The figure is then CPU time per hand-off (one
   wake-up and one block).

   With -o (other program), one thread of ours and a child process (forked
   before any event is opened: it carries none) share CPU 0 and yield to
   each other, so every switch of ours goes to another program's task and
   back (a yield or a preemption on a loaded machine, spsc's case). The
   figure is our CPU time per switch of ours (getrusage counts: what the
   runtime's switch gate sees), and the child's CPU time per switch.

   Usage: switch_cost [-x|-o] MODE [BP [ITERS]]   (BP default 1, ITERS 200000)
   SWITCH_COST_PERIOD_NS: the task-clock's period (default 500000).
   SWITCH_COST_CLOCK_OFF=1: the inherit modes' task-clock is opened
   disabled (the switching level with HPCRUN_COMM_TICK=1: every inherited
   event disabled, performance.md "Session 18").
   SWITCH_COST_CLOSE=1: once the threads exist, the main thread closes
   every inherited event it opened (the copies go with the parents; the
   threads keep their emptied contexts). */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int nclk, nbp, bp_off, own_clock, cross, other, ibp, ibpmod;
static int bpfd[4];
static struct perf_event_attr bpattr[4];
static volatile int running;
static int token;            /* cross: whose turn it is (0 or 1) */
static long iters = 200000;
static volatile long dummy[8];

static double clk(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The sampling task-clock's period, ns: SWITCH_COST_PERIOD_NS, default
   500000 (the runtime's default); whether the event's hrtimer is usually
   the CPU's earliest at a switch depends on it (the tick: 4 ms at HZ 250). */
static unsigned long long period_ns = 500000;

static int open_clock_off(int inherit, int off)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.size = sizeof a;
	a.sample_period = period_ns;
	a.exclude_kernel = 1;
	a.inherit = (unsigned)inherit;
	a.sigtrap = 1;
	a.remove_on_exec = 1;
	a.disabled = (unsigned)off;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

static int open_clock(int inherit)
{
	return open_clock_off(inherit, 0);
}

static void futex(int *f, int op, int val)
{
	syscall(SYS_futex, f, op, val, NULL, NULL, 0);
}

/* Cross mode: wait for my turn (blocking), then hand the token over. */
static void cross_loop(int me)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(me, &s);
	if (sched_setaffinity(0, sizeof s, &s) < 0)
		perror("switch_cost: sched_setaffinity");
	for (long i = 0; i < iters; i++) {
		while (__atomic_load_n(&token, __ATOMIC_ACQUIRE) != me)
			futex(&token, FUTEX_WAIT_PRIVATE, !me);
		__atomic_store_n(&token, !me, __ATOMIC_RELEASE);
		futex(&token, FUTEX_WAKE_PRIVATE, 1);
	}
}

/* The calling thread's BP breakpoint events (inherited by threads
   created later when inherit is set). */
static void open_bps(int inherit)
{
	for (int i = 0; i < nbp; i++) {
		struct perf_event_attr *a = &bpattr[i];

		memset(a, 0, sizeof *a);
		a->type = PERF_TYPE_BREAKPOINT;
		a->size = sizeof *a;
		a->bp_type = HW_BREAKPOINT_RW;
		a->bp_addr = (unsigned long)&dummy[i];
		a->bp_len = HW_BREAKPOINT_LEN_8;
		a->sample_period = 1;
		a->exclude_kernel = 1;
		a->exclude_hv = 1;
		a->disabled = (unsigned)bp_off;
		a->inherit = (unsigned)inherit;
		bpfd[i] = (int)syscall(SYS_perf_event_open, a, 0, -1, -1, 0);
		if (bpfd[i] < 0) {
			perror("switch_cost: breakpoint");
			exit(1);
		}
	}
}

static void *thread(void *arg)
{
	if (!ibp)
		open_bps(0);
	if (own_clock && open_clock(0) < 0) {
		perror("switch_cost: task-clock");
		exit(1);
	}
	if (cross)
		cross_loop((int)(intptr_t)arg);
	else if (other) {
		struct rusage r0, r1;

		getrusage(RUSAGE_THREAD, &r0);
		for (long i = 0; i < iters; i++)
			sched_yield();
		getrusage(RUSAGE_THREAD, &r1);
		*(long *)arg = (r1.ru_nvcsw + r1.ru_nivcsw) - (r0.ru_nvcsw + r0.ru_nivcsw);
	} else
		for (long i = 0; i < iters; i++)
			sched_yield();
	__atomic_sub_fetch(&running, 1, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode;
	pthread_t t[2];
	cpu_set_t s;
	double w0, c0, w, c;
	long nsw = 0;
	pid_t child = -1;
	int clkfd = -1, clkfds[4], nclkfd = 0;

	if (argc > 1 && (!strcmp(argv[1], "-x") || !strcmp(argv[1], "-o"))) {
		cross = argv[1][1] == 'x';
		other = argv[1][1] == 'o';
		argv++;
		argc--;
	}
	mode = argc > 1 ? argv[1] : "none";
	if (getenv("SWITCH_COST_PERIOD_NS"))
		period_ns = strtoull(getenv("SWITCH_COST_PERIOD_NS"), NULL, 10);
	if (argc > 3)
		iters = atol(argv[3]);
	bp_off = !strcmp(mode, "inherit+bpoff");
	ibpmod = !strcmp(mode, "inherit+ibpmod");
	ibp = !strcmp(mode, "inherit+ibp") || ibpmod;
	if (!strcmp(mode, "inherit+bp") || bp_off || ibp)
		nbp = argc > 2 ? atoi(argv[2]) : 1;
	if (!strcmp(mode, "inherit+clkoff"))
		nclk = argc > 2 ? atoi(argv[2]) : 1;
	if (nbp < 0 || nbp > 4 || nclk < 0 || nclk > 4 || iters < 1) {
		fprintf(stderr, "usage: switch_cost [-x|-o] none|inherit|own|inherit+bp|inherit+bpoff|inherit+ibp|inherit+ibpmod|inherit+clkoff "
		        "[BP 0..4 [ITERS]]\n");
		return 2;
	}
	own_clock = !strcmp(mode, "own");
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	if (sched_setaffinity(0, sizeof s, &s) < 0)
		perror("switch_cost: sched_setaffinity");
	if (other) {
		child = fork();
		if (child < 0) {
			perror("switch_cost: fork");
			return 1;
		}
		if (child == 0)            /* the other program: yields until killed */
			for (;;)
				sched_yield();
	}
	signal(SIGTRAP, SIG_IGN);
	if (!strncmp(mode, "inherit", 7) && (clkfd = open_clock_off(1, getenv("SWITCH_COST_CLOCK_OFF") != NULL)) < 0) {
		perror("switch_cost: task-clock (perf_event_paranoid?)");
		return 1;
	}
	if (ibp)
		open_bps(1);
	for (int i = 0; i < nclk; i++)
		if ((clkfds[nclkfd++] = open_clock_off(1, 1)) < 0) {
			perror("switch_cost: disabled task-clock");
			return 1;
		}
	w0 = clk(CLOCK_MONOTONIC);
	c0 = clk(CLOCK_PROCESS_CPUTIME_ID);
	if (other) {
		struct rusage ru;
		double cc;

		pthread_create(&t[0], NULL, thread, &nsw);
		pthread_join(t[0], NULL);
		w = clk(CLOCK_MONOTONIC) - w0;
		c = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
		kill(child, SIGKILL);
		wait4(child, NULL, 0, &ru);
		cc = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		     ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e-6;
		if (nsw < 1)
			nsw = 1;
		printf("%-10s bp %d other: %.2f us CPU per switch of ours (the other program's: %.2f), "
		       "%.2f us wall (%ld switches in %ld yields)\n", mode, nbp, c / (double)nsw * 1e6,
		       cc / (double)nsw * 1e6, w / (double)nsw * 1e6, nsw, iters);
		return 0;
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, thread, (void *)(intptr_t)i);
	if (getenv("SWITCH_COST_CLOSE") && !ibpmod) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);          /* the threads exist (their copies made) */
		if (clkfd >= 0)
			close(clkfd);
		for (int i = 0; i < nclkfd; i++)
			close(clkfds[i]);
		for (int i = 0; ibp && i < nbp; i++)
			close(bpfd[i]);
	}
	if (ibpmod) {          /* re-target the process's set every ms, from CPU 1 */
		struct timespec ms = { 0, 1000000 };
		long k = 0;

		CPU_ZERO(&s);
		CPU_SET(1, &s);
		sched_setaffinity(0, sizeof s, &s);
		__atomic_store_n(&running, 2, __ATOMIC_RELAXED);
		while (__atomic_load_n(&running, __ATOMIC_RELAXED) > 0) {
			k++;
			for (int i = 0; i < nbp; i++) {
				bpattr[i].bp_addr = (unsigned long)&dummy[(i + (k & 1) * 4) & 7];
				if (ioctl(bpfd[i], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &bpattr[i]) < 0) {
					perror("switch_cost: MODIFY_ATTRIBUTES");
					exit(1);
				}
			}
			nanosleep(&ms, NULL);
		}
		fprintf(stderr, "switch_cost: %ld re-targets of the process's set\n", k);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	w = clk(CLOCK_MONOTONIC) - w0;
	c = clk(CLOCK_PROCESS_CPUTIME_ID) - c0;
	printf("%-10s bp %d%s: %.2f us CPU, %.2f us wall per %s (%ld)\n", mode, nbp,
	       cross ? " cross" : "", c / (2.0 * (double)iters) * 1e6, w / (2.0 * (double)iters) * 1e6,
	       cross ? "hand-off" : "switch", 2 * iters);
	return 0;
}
