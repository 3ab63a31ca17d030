/* SPDX-License-Identifier: BSD-3-Clause */
/* comm_work.c — the ComDetective microbenchmarks of tests/programs/comm_bench.c
   with a fixed amount of WORK instead of a fixed time, for overhead
   benchmarks (bench/overhead): a slower run then shows as a longer runtime.
   The kernels are the same access patterns (pairs, false F, sharing S,
   readwrite R, private; as of comm_bench commit fb049ef); N million
   iterations in total are split evenly over the workers, so the work stays
   the same when the thread count changes. Worker w is measured thread w+1
   (main only creates and joins).

   Usage: comm_work MODE [PARAM] [-t WORKERS] [-n MILLION_ITERATIONS] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
static uint64_t iters;            /* per worker */

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

__attribute__((noinline)) static void pairs_kernel(int w, uint64_t *s)
{
	volatile uint64_t *x = &pair_lines[w / 2].w[0];
	volatile uint64_t *p = priv[w];

	for (uint64_t i = 0; i < iters; i++) {
		*x = *x + 1;
		p[rnd(s) & (PRIV_WORDS - 1)] += 1;
	}
}

__attribute__((noinline)) static void false_kernel(int w, uint64_t *s)
{
	volatile uint64_t *t = &true_line.w[0];
	volatile uint64_t *f = &false_line.w[w % 8];

	for (uint64_t i = 0; i < iters; i++) {
		if (chance(s, param))
			*f = *f + 1;
		else
			*t = *t + 1;
	}
}

__attribute__((noinline)) static void sharing_kernel(int w, uint64_t *s)
{
	volatile uint64_t *p = priv[w];
	/* one xorshift per access: the top 10 bits decide shared vs private,
	   the low bits pick the word, so memory, not arithmetic, dominates */
	uint64_t threshold = (uint64_t)(param * 1024.0), r = *s;

	for (uint64_t i = 0; i < iters; i++) {
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
	volatile uint64_t *x = &rw_line.w[0];
	uint64_t sum = 0;

	(void)w;
	for (uint64_t i = 0; i < iters; i++) {
		if (chance(s, param))
			sum += *x;
		else
			*x = sum + 1;
	}
}

__attribute__((noinline)) static void private_kernel(int w, uint64_t *s)
{
	volatile uint64_t *p = priv[w];

	for (uint64_t i = 0; i < iters; i++)
		p[rnd(s) & (PRIV_WORDS - 1)] += 1;
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(w + 1);

	if (!strcmp(mode, "pairs"))
		pairs_kernel(w, &s);
	else if (!strcmp(mode, "false"))
		false_kernel(w, &s);
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
	fprintf(stderr, "usage: comm_work pairs|false F|sharing S|readwrite R|private"
	        " [-t WORKERS] [-n MILLION_ITERATIONS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t th[MAXW];
	int nw = 2, i = 2;
	double million = 100;

	if (argc < 2)
		usage();
	mode = argv[1];
	if (!strcmp(mode, "false") || !strcmp(mode, "sharing") || !strcmp(mode, "readwrite")) {
		if (argc < 3)
			usage();
		param = atof(argv[2]);
		i = 3;
	} else if (strcmp(mode, "pairs") && strcmp(mode, "private")) {
		usage();
	}
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nw = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			million = atof(argv[++i]);
		else
			usage();
	}
	if (nw < 1 || nw > MAXW || million <= 0)
		usage();
	iters = (uint64_t)(million * 1e6) / (uint64_t)nw;
	for (int w = 0; w < nw; w++) {
		priv[w] = aligned_alloc(4096, PRIV_WORDS * sizeof(uint64_t));
		if (!priv[w])
			return 1;
		memset((void *)priv[w], 0, PRIV_WORDS * sizeof(uint64_t));
	}
	for (int w = 0; w < nw; w++)
		if (pthread_create(&th[w], NULL, worker, (void *)(intptr_t)w) != 0)
			return 1;
	for (int w = 0; w < nw; w++)
		pthread_join(th[w], NULL);
	printf("comm_work %s done: %d workers, %llu iterations each\n", mode, nw,
	       (unsigned long long)iters);
	return 0;
}
