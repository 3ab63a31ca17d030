/* SPDX-License-Identifier: BSD-3-Clause */
/* regions_loops.c — one function, two loops, two communication patterns
   (issue #18: a loop region each, with its own matrix). Four workers
   (measured threads 1-4) run work(): first LOOP-RING for S seconds, in
   which worker w stores its own slot and loads its left neighbour's (cells
   1-4, 1-2, 2-3, 3-4), then, after a barrier, LOOP-CROSS for S seconds, in
   which worker w stores its own slot of a second array and loads the one
   of the worker two places away (cells 1-3, 2-4). The two cell sets do not
   overlap. Each loop's header is on the line marked LOOP-RING /
   LOOP-CROSS (tests/integration/regions.sh greps for them). The shared
   accesses are written inline in the loop bodies (volatile), the private
   work between them is a function of its own (its loop is not in work()).

   Usage: regions_loops [-s SECONDS] [-w WORK] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NW 4
#define LINE 64
#define PRIV_WORDS (1u << 13)

struct slot { volatile uint64_t v; char pad[LINE - 8]; } __attribute__((aligned(LINE)));

static struct slot ring[NW], cross[NW];
static volatile int phase;            /* 0 ring, 1 cross, 2 done */
static pthread_barrier_t bar;
static int work_n = 16;
static double seconds = 1.0;

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

__attribute__((noinline)) static uint64_t private_work(uint64_t *p, uint64_t *s)
{
	uint64_t x = 0;

	for (int i = 0; i < work_n; i++) {
		uint64_t k = rnd(s) & (PRIV_WORDS - 1);
		p[k] += (uint64_t)i;
		x += p[k ^ 1];
	}
	return x;
}

__attribute__((noinline)) static uint64_t work(int w, uint64_t *p, uint64_t *s)
{
	uint64_t acc = 0, n;

	for (n = 0; phase == 0; n++) {   /* LOOP-RING */
		ring[w].v = n;
		acc += private_work(p, s);
		acc += ring[(w + NW - 1) % NW].v;
	}
	pthread_barrier_wait(&bar);
	for (n = 0; phase == 1; n++) {   /* LOOP-CROSS */
		cross[w].v = n;
		acc += private_work(p, s);
		acc += cross[(w + 2) % NW].v;
	}
	return acc;
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(w + 1);
	uint64_t *p = calloc(PRIV_WORDS, sizeof *p);

	if (!p)
		abort();
	uintptr_t r = (uintptr_t)work(w, p, &s);
	free(p);
	return (void *)(r & 1);
}

static void sleep_s(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (double)(time_t)t) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	pthread_t th[NW];
	int i;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-s"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "-w"))
			work_n = atoi(argv[i + 1]);
	}
	pthread_barrier_init(&bar, NULL, NW + 1);
	for (i = 0; i < NW; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i))
			return 1;
	sleep_s(seconds);
	phase = 1;
	pthread_barrier_wait(&bar);
	sleep_s(seconds);
	phase = 2;
	for (i = 0; i < NW; i++)
		pthread_join(th[i], NULL);
	printf("regions_loops: done\n");
	return 0;
}
