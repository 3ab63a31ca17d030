/* SPDX-License-Identifier: BSD-3-Clause */
/* watch_cost.c — what arming and disarming a set of D watchpoints costs
   with the sequences the kernel allows (lib/runtime/watch.c):
     two-ioctl      DISABLE every enabled event, then MODIFY_ATTRIBUTES +
                    ENABLE per watchpoint (the runtime before commit 83a3276);
     modify-enable  one MODIFY_ATTRIBUTES per watchpoint with attr.disabled = 0
                    (the kernel's perf_event_modify_breakpoint disables the
                    event, re-targets it and enables it when the new attr is
                    enabled) — the runtime since 83a3276; disarm (after a
                    trap) still DISABLEs each event;
     group-disable  the same arm, with the D events opened as one group, so
                    one IOC_DISABLE(PERF_IOC_FLAG_GROUP) disarms the set;
     group          the group's members re-targeted while disabled (MODIFY
                    only), then one IOC_ENABLE(PERF_IOC_FLAG_GROUP) arms all.
   Each sequence also checks that it works: after arming, a store to a
   watched word must trap (SIGTRAP with our sig_data), and after disarming it
   must not. Runs outside the runtime, on this thread only; not signal-context
   code except the counting SIGTRAP handler. The events are the runtime's
   own (hc_watch_attr, lib/probe): built against the build tree's
   libhcprobe.a (bench/overhead/run.sh).

   Usage: watch_cost [ITERATIONS] [D]   (default 20000 4) */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "probe/probe.h"

#define MAXD 4

static volatile uint64_t target[8] __attribute__((aligned(64)));
static volatile uint64_t dummy;
static volatile int traps;

static void on_trap(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	traps++;
}

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int open_set(int *fd, struct perf_event_attr *a, int d, int grouped)
{
	for (int i = 0; i < d; i++) {
		/* the runtime's watchpoint (lib/probe), with our cookie */
		hc_watch_attr(&a[i], (uint64_t)(uintptr_t)&dummy, 0xb900000000000000ull | (uint64_t)i);
		fd[i] = (int)syscall(SYS_perf_event_open, &a[i], 0, -1,
		                     grouped && i ? fd[0] : -1, PERF_FLAG_FD_CLOEXEC);
		if (fd[i] < 0)
			return -errno;
	}
	return 0;
}

static void close_set(int *fd, int d)
{
	for (int i = 0; i < d; i++)
		close(fd[i]);
}

/* The runtime's sequence before 83a3276 (watch.c: rt__watch_arm / rt__watch_disarm). */
static int arm_two_ioctl(int *fd, struct perf_event_attr *a, int *en, int d, const uint64_t *addr)
{
	for (int i = 0; i < d; i++)
		if (en[i]) {
			ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
			en[i] = 0;
		}
	for (int i = 0; i < d; i++) {
		a[i].bp_addr = addr[i];
		if (ioctl(fd[i], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a[i]) < 0 ||
		    ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
		en[i] = 1;
	}
	return 0;
}

static void disarm_each(int *fd, int *en, int d)
{
	for (int i = 0; i < d; i++)
		if (en[i]) {
			ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
			en[i] = 0;
		}
}

/* One MODIFY per watchpoint, enabled by the attr itself. */
static int arm_modify_enable(int *fd, struct perf_event_attr *a, int *en, int d, const uint64_t *addr)
{
	for (int i = 0; i < d; i++) {
		struct perf_event_attr m = a[i];
		m.bp_addr = addr[i];
		m.disabled = 0;
		if (ioctl(fd[i], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &m) < 0)
			return -errno;
		a[i].bp_addr = addr[i];
		en[i] = 1;
	}
	return 0;
}

/* Re-target the disabled members (a cheap MODIFY: no enable), then enable
   the whole group with one ioctl. The set must be disarmed (group-disabled)
   before, as it is after every trap and by disarm_group. */
static int arm_group(int *fd, struct perf_event_attr *a, int *en, int d, const uint64_t *addr)
{
	for (int i = 0; i < d; i++) {
		a[i].bp_addr = addr[i];
		if (ioctl(fd[i], PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &a[i]) < 0)
			return -errno;
	}
	if (ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0)
		return -errno;
	for (int i = 0; i < d; i++)
		en[i] = 1;
	return 0;
}

static void disarm_group(int *fd, int *en, int d)
{
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	for (int i = 0; i < d; i++)
		en[i] = 0;
}

/* A store to each watched word must trap once; after disarming, none. */
static int check(const char *name, int *fd, struct perf_event_attr *a, int *en, int d, int grouped,
                 int (*arm)(int *, struct perf_event_attr *, int *, int, const uint64_t *),
                 void (*disarm)(int *, int *, int))
{
	uint64_t addr[MAXD];
	int before, ok = 1;

	for (int i = 0; i < d; i++)
		addr[i] = (uint64_t)(uintptr_t)&target[2 * i];
	for (int i = 0; i < d; i++) {
		if (arm(fd, a, en, d, addr) < 0) {
			printf("%s: arm failed: %s\n", name, strerror(errno));
			return 0;
		}
		before = traps;
		target[2 * i] = 1;
		if (traps != before + 1)
			ok = 0;
		disarm(fd, en, d);
	}
	before = traps;
	for (int i = 0; i < d; i++)
		target[2 * i] = 2;
	if (traps != before)
		ok = 0;
	printf("check %-28s %s (grouped=%d)\n", name, ok ? "ok: traps when armed, none after disarm" : "FAILED", grouped);
	return ok;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/* Median cost of arm and of disarm over iters cycles (medians: the machine
   is shared, a preempted cycle must not count). */
static void bench(int *fd, struct perf_event_attr *a, int *en, int d, long iters,
                  int (*arm)(int *, struct perf_event_attr *, int *, int, const uint64_t *),
                  void (*disarm)(int *, int *, int), uint64_t *arm_ns, uint64_t *dis_ns)
{
	uint64_t addr[MAXD], t0, *ta = calloc((size_t)iters, 8), *td = calloc((size_t)iters, 8);

	if (!ta || !td)
		exit(1);
	for (long k = 0; k < iters; k++) {
		for (int i = 0; i < d; i++)   /* never touched: no trap */
			addr[i] = (uint64_t)(uintptr_t)&target[(k + 2 * i) & 7];
		t0 = now();
		arm(fd, a, en, d, addr);
		ta[k] = now() - t0;
		t0 = now();
		disarm(fd, en, d);
		td[k] = now() - t0;
	}
	qsort(ta, (size_t)iters, 8, cmp_u64);
	qsort(td, (size_t)iters, 8, cmp_u64);
	arm_ns[0] = ta[iters / 2];
	arm_ns[1] = ta[iters * 9 / 10];
	dis_ns[0] = td[iters / 2];
	dis_ns[1] = td[iters * 9 / 10];
	free(ta);
	free(td);
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 20000;
	int d = argc > 2 ? atoi(argv[2]) : 4;
	struct perf_event_attr a[MAXD];
	struct sigaction sa;
	int fd[MAXD], en[MAXD] = { 0 }, err;
	uint64_t arm_ns[2], dis_ns[2];

	if (iters < 1 || d < 1 || d > MAXD) {
		fprintf(stderr, "usage: watch_cost [ITERATIONS] [D 1..4]\n");
		return 2;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);

	printf("watch_cost: D = %d, %ld arm/disarm cycles per sequence; median / p90 ns\n", d, iters);
	if ((err = open_set(fd, a, d, 0)) < 0) {
		printf("cannot open breakpoint events: %s\n", strerror(-err));
		return 77;
	}
	check("two-ioctl (disable+modify+enable)", fd, a, en, d, 0, arm_two_ioctl, disarm_each);
	bench(fd, a, en, d, iters, arm_two_ioctl, disarm_each, arm_ns, dis_ns);
	printf("two-ioctl      arm %6llu / %6llu  (%d ioctls, +%d DISABLE when the set is armed)  disarm %6llu / %6llu (%d ioctls)\n",
	       (unsigned long long)arm_ns[0], (unsigned long long)arm_ns[1], 2 * d, d,
	       (unsigned long long)dis_ns[0], (unsigned long long)dis_ns[1], d);
	check("modify with disabled=0", fd, a, en, d, 0, arm_modify_enable, disarm_each);
	bench(fd, a, en, d, iters, arm_modify_enable, disarm_each, arm_ns, dis_ns);
	printf("modify-enable  arm %6llu / %6llu  (%d ioctls)  disarm %6llu / %6llu (%d ioctls)\n",
	       (unsigned long long)arm_ns[0], (unsigned long long)arm_ns[1], d,
	       (unsigned long long)dis_ns[0], (unsigned long long)dis_ns[1], d);
	close_set(fd, d);

	if ((err = open_set(fd, a, d, 1)) < 0) {
		printf("cannot open a breakpoint group: %s\n", strerror(-err));
		return 0;
	}
	check("modify + group disable", fd, a, en, d, 1, arm_modify_enable, disarm_group);
	bench(fd, a, en, d, iters, arm_modify_enable, disarm_group, arm_ns, dis_ns);
	printf("group-disable  arm %6llu / %6llu  (%d ioctls)  disarm %6llu / %6llu (1 ioctl)\n",
	       (unsigned long long)arm_ns[0], (unsigned long long)arm_ns[1], d,
	       (unsigned long long)dis_ns[0], (unsigned long long)dis_ns[1]);
	check("modify + group enable/disable", fd, a, en, d, 1, arm_group, disarm_group);
	bench(fd, a, en, d, iters, arm_group, disarm_group, arm_ns, dis_ns);
	printf("group          arm %6llu / %6llu  (%d ioctls)  disarm %6llu / %6llu (1 ioctl)\n",
	       (unsigned long long)arm_ns[0], (unsigned long long)arm_ns[1], d + 1,
	       (unsigned long long)dis_ns[0], (unsigned long long)dis_ns[1]);
	close_set(fd, d);
	return 0;
}
