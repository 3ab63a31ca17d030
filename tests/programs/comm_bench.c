/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_bench.c — the ComDetective microbenchmarks plus a private control,
   as one program with designed communication patterns (used by the
   integration tests, the demo and bench/accuracy). Worker w (0-based) is
   measured thread w+1: the main thread only creates and joins.

     pairs     workers 2k and 2k+1 share one line (both store to word 0);
               no other sharing. Expect cells (2k+1, 2k+2) only.
     false F   in a fraction F of shared 4 ms wall-clock phases every worker
               stores to its own 8-byte slot of one line (false sharing), in
               the others all store to one word (true sharing). Expect false
               fraction F.
     mixed     every access picks, by a coin toss, the worker's own 8-byte slot
               of one line (false sharing) or one word all workers store
               (true sharing, another line): the same code and contention
               for both, decided per access, not per wall-clock phase, so
               however the workers are scheduled the two halves are alike
               and the false fraction is 0.5 by symmetry.
     sharing S with probability S a store to a random word of a small
               shared array, else to a private array. Volume grows with S.
     readwrite R  accesses to one shared line: load with probability R,
               else store.
     private   each worker updates its own padded private array only.

   The work is time-bound (-s: the main thread sleeps, then stops the
   workers) unless -n ITERS asks for an amount: every worker then runs
   ITERS blocks of 1024 accesses and main joins them, so a loaded machine
   stretches the run instead of shrinking the sample count (a task-clock
   sampler samples CPU time). -1 runs every worker on one CPU (the first
   the process may use): the workers then take turns whatever else the
   machine runs, so how often their accesses interleave no longer depends
   on the load (tests/integration/sharing.sh). -p pins worker w to the
   (w mod n)-th of the n CPUs the process may use, so that with n >= 2 the
   two workers of a pair run on different CPUs: left to the scheduler, 4
   busy workers on 2 CPUs put a pair on one CPU in a fifth to a third of
   the runs, where its workers take turns and their line never moves
   between caches (exact mode counts ~25x fewer transfers for the pair:
   doc/detection.md §5.23; tests/integration/pairs.sh).

   Usage: comm_bench MODE [PARAM] [-t WORKERS] [-s SECONDS | -n ITERS] [-1 | -p] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINE 64
#define MAXW 64
#define PRIV_WORDS (1u << 15)     /* 256 KiB per worker */
#define SHARED_LINES 4

struct line { volatile uint64_t w[8]; } __attribute__((aligned(LINE)));

static struct line true_line, false_line, rw_line;
static struct line pair_lines[MAXW / 2];
static struct line shared[SHARED_LINES];
static volatile uint64_t *priv[MAXW];

static const char *mode;
static double param;
static double seconds = 1.0;
static volatile int stop;
static long iters;                /* > 0: blocks of 1024 per worker (-n) */
static int spread_cpu[MAXW];      /* -p: worker w's CPU, -1 = not pinned */

/* May the worker run another block of 1024 accesses? */
static inline int more(long *done)
{
	if (iters > 0)
		return (*done)++ < iters;
	return !stop;
}

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline int chance(uint64_t *s, double p)
{
	return (double)(rnd(s) >> 11) * (1.0 / 9007199254740992.0) < p;
}

/* Each kernel is its own non-inlined function so profiles name it. */
__attribute__((noinline)) static void pairs_kernel(int w, uint64_t *s)
{
	long blk = 0;
	volatile uint64_t *x = &pair_lines[w / 2].w[0];
	volatile uint64_t *p = priv[w];
	while (more(&blk))
		for (int i = 0; i < 1024; i++) {
			*x = *x + 1;
			p[rnd(s) & (PRIV_WORDS - 1)] += 1;
		}
}

/* The false-sharing fraction is designed in time: wall-clock phases of
   PHASE_NS shared by all workers; a fraction F of the phases store to each
   worker's own slot (false sharing), the others to one shared word (true
   sharing). Both phases run the same instructions at the same contention,
   so the communication volume splits as F : 1-F whatever the scheduling. */
#define PHASE_NS 4000000ull
#define PHASES   20u

static inline int false_phase(void)
{
	struct timespec ts;
	uint64_t n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	n = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) / PHASE_NS;
	return (double)(n % PHASES) < param * PHASES;
}

__attribute__((noinline)) static void false_kernel(int w, uint64_t *s)
{
	long blk = 0;
	volatile uint64_t *t = &true_line.w[0];
	volatile uint64_t *f = &false_line.w[w % 8];
	(void)s;
	while (more(&blk)) {
		volatile uint64_t *x = false_phase() ? f : t;
		for (int i = 0; i < 1024; i++)
			*x = *x + 1;
	}
}

__attribute__((noinline)) static void mixed_kernel(int w, uint64_t *s)
{
	long blk = 0;
	volatile uint64_t *t = &true_line.w[0];
	volatile uint64_t *f = &false_line.w[w % 8];
	uint64_t r = *s;

	while (more(&blk))
		for (int i = 0; i < 1024; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			volatile uint64_t *x = (r >> 63) ? f : t;
			*x = *x + 1;
		}
	*s = r;
}

__attribute__((noinline)) static void sharing_kernel(int w, uint64_t *s)
{
	long blk = 0;
	volatile uint64_t *p = priv[w];
	/* one xorshift per access: the top 10 bits decide shared vs private,
	   the low bits pick the word, so memory, not arithmetic, dominates */
	uint64_t threshold = (uint64_t)(param * 1024.0), r = *s;
	while (more(&blk))
		for (int i = 0; i < 1024; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			if ((r >> 54) < threshold)
				shared[r % SHARED_LINES].w[(r >> 8) & 7] += 1;
			else
				p[r & (PRIV_WORDS - 1)] += 1;
		}
	*s = r;
}

__attribute__((noinline)) static void readwrite_kernel(int w, uint64_t *s)
{
	long blk = 0;
	volatile uint64_t *x = &rw_line.w[0];
	uint64_t sum = 0;
	(void)w;
	while (more(&blk))
		for (int i = 0; i < 1024; i++) {
			if (chance(s, param))
				sum += *x;
			else
				*x = sum + 1;
		}
}

__attribute__((noinline)) static void private_kernel(int w, uint64_t *s)
{
	long blk = 0;
	volatile uint64_t *p = priv[w];
	while (more(&blk))
		for (int i = 0; i < 1024; i++)
			p[rnd(s) & (PRIV_WORDS - 1)] += 1;
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(w + 1);

	if (spread_cpu[w] >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(spread_cpu[w], &set);
		if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
			fprintf(stderr, "comm_bench: worker %d: pinning to CPU %d failed\n", w, spread_cpu[w]);
	}
	if (!strcmp(mode, "pairs"))
		pairs_kernel(w, &s);
	else if (!strcmp(mode, "false"))
		false_kernel(w, &s);
	else if (!strcmp(mode, "mixed"))
		mixed_kernel(w, &s);
	else if (!strcmp(mode, "sharing"))
		sharing_kernel(w, &s);
	else if (!strcmp(mode, "readwrite"))
		readwrite_kernel(w, &s);
	else
		private_kernel(w, &s);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: comm_bench pairs|false F|mixed|sharing S|readwrite R|private [-t WORKERS] "
	        "[-s SECONDS | -n ITERS] [-1 | -p]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t th[MAXW];
	int nw = 4, i = 2, one_cpu = 0, spread = 0;
	struct timespec ts;

	if (argc < 2)
		usage();
	mode = argv[1];
	if (!strcmp(mode, "false") || !strcmp(mode, "sharing") || !strcmp(mode, "readwrite")) {
		if (argc < 3)
			usage();
		param = atof(argv[2]);
		i = 3;
	} else if (strcmp(mode, "pairs") && strcmp(mode, "private") && strcmp(mode, "mixed")) {
		usage();
	}
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nw = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			iters = atol(argv[++i]);
		else if (!strcmp(argv[i], "-1"))
			one_cpu = 1;
		else if (!strcmp(argv[i], "-p"))
			spread = 1;
		else
			usage();
	}
	if (nw < 1 || nw > MAXW || iters < 0 || (one_cpu && spread))
		usage();
	for (int w = 0; w < MAXW; w++)
		spread_cpu[w] = -1;
	if (spread) {
		cpu_set_t set;
		int cpus[CPU_SETSIZE], n = 0;

		if (sched_getaffinity(0, sizeof set, &set) < 0) {
			perror("comm_bench: sched_getaffinity");
			return 1;
		}
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				cpus[n++] = c;
		for (int w = 0; w < nw && n > 1; w++)
			spread_cpu[w] = cpus[w % n];
	}
	if (one_cpu) {
		cpu_set_t set;
		int c = 0;

		if (sched_getaffinity(0, sizeof set, &set) < 0) {
			perror("comm_bench: sched_getaffinity");
			return 1;
		}
		while (c < CPU_SETSIZE && !CPU_ISSET(c, &set))
			c++;
		CPU_ZERO(&set);
		CPU_SET(c, &set);
		/* the workers inherit it */
		if (sched_setaffinity(0, sizeof set, &set) < 0) {
			perror("comm_bench: sched_setaffinity");
			return 1;
		}
	}
	for (int w = 0; w < nw; w++) {
		priv[w] = aligned_alloc(4096, PRIV_WORDS * sizeof(uint64_t));
		if (!priv[w])
			return 1;
		memset((void *)priv[w], 0, PRIV_WORDS * sizeof(uint64_t));
	}
	for (int w = 0; w < nw; w++)
		pthread_create(&th[w], NULL, worker, (void *)(intptr_t)w);
	if (!iters) {
		ts.tv_sec = (time_t)seconds;
		ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		stop = 1;
	}
	for (int w = 0; w < nw; w++)
		pthread_join(th[w], NULL);
	if (iters)
		printf("comm_bench %s done: %d workers, %ld x 1024 accesses each%s\n", mode, nw, iters,
		       one_cpu ? ", on one CPU" : spread ? ", spread over the CPUs" : "");
	else
		printf("comm_bench %s done: %d workers, %.2f s%s\n", mode, nw, seconds,
		       one_cpu ? ", on one CPU" : spread ? ", spread over the CPUs" : "");
	return 0;
}
