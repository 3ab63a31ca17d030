/* SPDX-License-Identifier: BSD-3-Clause */
/* nn_ring.c — nearest-neighbour exchange on a ring: worker w stores into its
   own 64-byte-aligned slot and loads its left neighbour's, with private work
   between, no synchronization in the loop (a relaxed exchange, as in an
   asynchronous iterative solver). Plain stores and loads.
   Designed communication: true sharing on the ring cells only, between
   worker w and worker w-1 (mod THREADS); worker w is thread index w+1 (the
   main thread creates and joins); one worker communicates with nobody. */
#include "acc_prog.h"

struct slot {
	long v;
} __attribute__((aligned(64)));

static struct slot slots[ACC_MAXT];
static int nthreads;
static long iters;

static void *worker(void *arg)
{
	int me = (int)(long)arg, left = (me + nthreads - 1) % nthreads;
	double buf[32] = { 0 }, sum = 0;

	for (long i = 0; i < iters; i++) {
		slots[me].v = i * nthreads + me;        /* publish */
		sum += acc_work(buf, 32, 2);
		sum += (double)slots[left].v;           /* consume the neighbour's */
		sum += acc_work(buf, 32, 2);
	}
	return (void *)(long)(sum != 0);
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "nearest-neighbour exchange on a ring");
	pthread_t t[ACC_MAXT];

	nthreads = a.threads;
	iters = acc_iters(a, 4000000 / a.threads);
	for (int i = 0; i < nthreads; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (int i = 0; i < nthreads; i++)
		acc_join(t[i]);
	printf("nn_ring threads=%d iters=%ld\n", nthreads, iters);
	return 0;
}
