/* SPDX-License-Identifier: BSD-3-Clause */
/* update_scatter.c — two threads adding into a shared table at places
   their data name, as streamcluster's pgain does with
   `lower[center_table[assign]] += …` inside an OpenMP loop (doc/detection.md
   §5.54): `acc[idx] += v` on 16 doubles (two cache lines), idx drawn from
   each thread's own generator, some private arithmetic between. In exact
   mode's model a transfer is true only when the second thread's update
   meets an element the first updated while it held the line: about one in
   eight here, the rest false sharing. The updates race (as the
   original's do); the sum is not checked. Usage: update_scatter [ROUNDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>

static double acc[16] __attribute__((aligned(64)));
static unsigned long rounds = 8000000;

static void *worker(void *arg)
{
	uint64_t x = 0x9e3779b97f4a7c15ull * (uintptr_t)arg + 1;
	double v = 0;

	for (unsigned long r = 0; r < rounds; r++) {
		for (int k = 0; k < 24; k++)            /* private work between the updates */
			v = v * 0.999 + (double)(x >> 60);
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		acc[x % 16] += v;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	double s = 0;

	if (argc > 1)
		rounds = strtoul(argv[1], NULL, 10);
	for (uintptr_t i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)) != 0)
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 16; i++)
		s += acc[i];
	printf("update_scatter %lu %d\n", rounds, s != 0);
	return 0;
}
