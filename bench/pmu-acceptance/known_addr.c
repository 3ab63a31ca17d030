/* SPDX-License-Identifier: BSD-3-Clause */
/* known_addr.c — the acceptance run's workload (bench/pmu-acceptance): threads
   pinned one per CPU doing loads and stores whose addresses and counts are
   known exactly, so that what the PMU samplers report can be checked against
   them. Prints the buffer's range first ("buffer LO HI") for the address
   checks. Modes:
     private  each thread its own cache line, pages apart (no communication)
     true     every thread reads and writes the same 8-byte word (true sharing)
     false    thread i reads and writes word i of one cache line (false sharing)
     atomic   every thread does lock add on the same word
     count    as private, and prints the exact number of loads and stores
   Each iteration is one load and one store through a volatile pointer (the
   atomic mode: one locked RMW), nothing else touches memory in the loop.
   usage: known_addr MODE THREADS ITERS */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PAGE 4096
static uint8_t buf[64 * PAGE] __attribute__((aligned(PAGE)));
static const char *mode;
static unsigned long iters;

static void *run(void *arg)
{
	long i = (long)arg, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	volatile uint64_t *w;
	const unsigned long it = iters;    /* a local: no reload of the global in the loop */
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET((int)(i % (ncpu > 0 ? ncpu : 1)), &set);
	pthread_setaffinity_np(pthread_self(), sizeof set, &set);
	if (strcmp(mode, "true") == 0 || strcmp(mode, "atomic") == 0)
		w = (volatile uint64_t *)buf;
	else if (strcmp(mode, "false") == 0)
		w = (volatile uint64_t *)buf + i;
	else
		w = (volatile uint64_t *)(buf + (size_t)(i + 1) * 2 * PAGE);
	if (strcmp(mode, "atomic") == 0)
		for (unsigned long k = 0; k < it; k++)
			__atomic_fetch_add(w, 1, __ATOMIC_RELAXED);
	else
		for (unsigned long k = 0; k < it; k++)
			*w = *w + 1;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	long n;

	if (argc != 4) {
		fprintf(stderr, "usage: known_addr private|true|false|atomic|count THREADS ITERS\n");
		return 2;
	}
	mode = argv[1];
	n = atol(argv[2]);
	iters = strtoul(argv[3], NULL, 10);
	if (n < 1 || n > 64 || iters == 0) {
		fprintf(stderr, "known_addr: THREADS in 1..64, ITERS > 0\n");
		return 2;
	}
	printf("buffer 0x%lx 0x%lx\n", (unsigned long)(uintptr_t)buf,
	       (unsigned long)(uintptr_t)(buf + sizeof buf));
	fflush(stdout);
	for (long i = 0; i < n; i++)
		pthread_create(&th[i], NULL, run, (void *)i);
	for (long i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (strcmp(mode, "count") == 0)
		printf("loads %lu stores %lu\n", (unsigned long)n * iters, (unsigned long)n * iters);
	return 0;
}
