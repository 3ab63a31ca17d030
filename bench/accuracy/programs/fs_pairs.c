/* SPDX-License-Identifier: BSD-3-Clause */
/* fs_pairs.c — pairwise false sharing on a static array of structs: pair k
   owns stats[k] (one 64-byte line); worker 2k updates stats[k].hits, worker
   2k+1 stats[k].misses, each with a plain `+=` after private work.
   Designed communication: false sharing only, only in the pair cells
   (2k+1, 2k+2) (thread indexes; the main thread creates and joins); the top
   false-sharing object is `stats`, fields stats[k].hits / stats[k].misses.
   An odd last worker updates a line of its own. */
#include "acc_prog.h"

struct stats {
	long hits;
	long misses;
} __attribute__((aligned(64)));

static struct stats stats[ACC_MAXT / 2 + 1];
static long iters;

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	struct stats *s = &stats[me / 2];
	double buf[32] = { 0 };

	for (long i = 0; i < iters; i++) {
		double w = acc_work(buf, 32, 2);
		if (me % 2 == 0)
			s->hits += (long)w & 1;
		else
			s->misses += (long)w & 3;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "pairwise struct-field false sharing (static array)");
	pthread_t t[ACC_MAXT];
	long sum = 0;

	iters = acc_iters(a, 8000000 / a.threads);
	for (int i = 0; i < a.threads; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (int i = 0; i < a.threads; i++)
		acc_join(t[i]);
	for (int k = 0; k <= a.threads / 2; k++)
		sum += stats[k].hits + stats[k].misses;
	printf("fs_pairs threads=%d iters=%ld sum=%ld\n", a.threads, iters, sum);
	return 0;
}
