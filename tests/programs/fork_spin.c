/* SPDX-License-Identifier: BSD-3-Clause */
/* fork_spin.c — the parent must keep being sampled after a fork
   (tests/integration/pmu_standin.sh): fork a child that exits at once,
   wait for it, then spin CPU_MS of CPU time in the parent. A child that
   disabled the inherited sampler fds would stop the parent's sampling.

   Usage: fork_spin CPU_MS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

int main(int argc, char **argv)
{
	struct timespec ts;
	uint64_t end, t;
	pid_t p;

	if (argc != 2) {
		fprintf(stderr, "usage: fork_spin CPU_MS\n");
		return 2;
	}
	p = fork();
	if (p < 0) {
		perror("fork");
		return 1;
	}
	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	end = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + (uint64_t)atol(argv[1]) * 1000000ull;
	do {
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	} while (t < end);
	printf("fork_spin done\n");
	return 0;
}
