/* SPDX-License-Identifier: BSD-3-Clause */
/* sigtrap_blocked.c — a program that keeps the PMU sampler's records in its
   ring buffers (tests/integration/pmu_standin.sh): each of W workers spins
   CPU_MS of thread CPU time with signals as usual, then blocks SIGTRAP and
   spins BLOCKED_MS more, storing to a line all workers share, and exits
   with SIGTRAP still blocked (with the raw system call, which the runtime
   does not see: it keeps SIGTRAP deliverable through every libc call that
   blocks signals). The sample signals stay pending, so nothing
   drains the ring buffers while blocked: they fill (the kernel counts
   LOST) and what is left at thread exit is only read if the sampler drains
   when it stops. The main thread then does the same, for MAIN_BLOCKED_MS
   (default BLOCKED_MS), before exiting (the process-exit path).

   Usage: sigtrap_blocked WORKERS CPU_MS BLOCKED_MS [MAIN_BLOCKED_MS] */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct { volatile uint64_t w[8]; } __attribute__((aligned(64))) shared;
static long cpu_ms, blocked_ms;

static uint64_t cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void spin(long ms, unsigned slot)
{
	uint64_t end = cpu_now() + (uint64_t)ms * 1000000ull;

	while (cpu_now() < end)
		for (int i = 0; i < 1000; i++)
			shared.w[slot & 7] += (uint64_t)i;
}

static void work(unsigned slot, long blocked)
{
	sigset_t trap;

	spin(cpu_ms, slot);
	sigemptyset(&trap);
	sigaddset(&trap, SIGTRAP);
	/* The raw system call: the runtime keeps SIGTRAP deliverable through
	   pthread_sigmask and friends (sigmask.c, doc/reliability.md). */
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &trap, NULL, _NSIG / 8);
	spin(blocked, slot);
}

static void *worker(void *arg)
{
	work((unsigned)(uintptr_t)arg, blocked_ms);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	long main_blocked;
	int n;

	if (argc < 4 || argc > 5 || (n = atoi(argv[1])) < 0 || n > 16) {
		fprintf(stderr, "usage: sigtrap_blocked WORKERS(0..16) CPU_MS BLOCKED_MS [MAIN_BLOCKED_MS]\n");
		return 2;
	}
	cpu_ms = atol(argv[2]);
	blocked_ms = atol(argv[3]);
	main_blocked = argc == 5 ? atol(argv[4]) : blocked_ms;
	for (int i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)(i + 1)) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	work(0, main_blocked);
	printf("sigtrap_blocked done: %d workers\n", n);
	return 0;
}
