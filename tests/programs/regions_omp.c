/* SPDX-License-Identifier: BSD-3-Clause */
/* regions_omp.c — an OpenMP parallel region with a loop in it (issue #18):
   four threads of one `omp parallel` each store their own slot and load
   their right neighbour's until thread 0 has seen S seconds pass. The
   database must show the region as "main [parallel region at
   regions_omp.c:LINE]" under main, with the loop (line LOOP-OMP) inside it,
   and its matrices must add up with the whole program's. Usage:
   regions_omp [-s SECONDS] */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NT 4
#define LINE 64

struct slot { volatile uint64_t v; char pad[LINE - 8]; } __attribute__((aligned(LINE)));

static struct slot slots[NT];
static volatile int stop;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) static uint64_t private_work(uint64_t *p, uint64_t *s)
{
	uint64_t x = 0;

	for (int i = 0; i < 16; i++) {
		uint64_t k;
		*s ^= *s << 13;
		*s ^= *s >> 7;
		*s ^= *s << 17;
		k = *s & 8191;
		p[k] += (uint64_t)i;
		x += p[k ^ 1];
	}
	return x;
}

int main(int argc, char **argv)
{
	double seconds = argc > 2 && !strcmp(argv[1], "-s") ? atof(argv[2]) : 1.0, t0 = now();
	uint64_t total = 0;

#pragma omp parallel num_threads(NT) reduction(+ : total)
	{
		int w = omp_get_thread_num();
		uint64_t *p = calloc(8192, sizeof(*p)), acc = 0;
		uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(w + 1);

		for (uint64_t n = 0; !stop; n++) {   /* LOOP-OMP */
			slots[w].v = n;
			acc += private_work(p, &s);
			acc += slots[(w + 1) % NT].v;
			if (w == 0 && (n & 1023) == 0 && now() - t0 > seconds)
				stop = 1;
		}
		free(p);
		total += acc;
	}
	printf("regions_omp: %llu\n", (unsigned long long)(total & 1));
	return 0;
}
