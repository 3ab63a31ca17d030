/* SPDX-License-Identifier: BSD-3-Clause */
/* mailbox_spin.c — a master hands jobs to workers through per-worker
   mailboxes of one cache line each (detection.md §5.58, after the
   owner-style mw_spin): the master writes a worker's job and then its
   flag (a release store); the worker spins on the flag (an acquire load,
   sched_yield every 256 spins), computes, writes its result next to the
   flag and then the flag. The flag's load is in a poll loop; the job and
   result share the flag's line. Usage: mailbox_spin THREADS ITERATIONS */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct mbox {
	_Atomic int state;
	long job;
	double out;
} __attribute__((aligned(64)));

static struct mbox box[64];
static long iters;

static void wait_for(_Atomic int *st, int v)
{
	int n = 0;

	while (atomic_load_explicit(st, memory_order_acquire) != v)
		if (++n % 256 == 0)
			sched_yield();
}

static double work(double x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 1.0000001 + 0.5;
	return x;
}

static void *worker(void *a)
{
	int me = (int)(long)a;

	for (long i = 0; i < iters; i++) {
		wait_for(&box[me].state, 1);
		box[me].out = work((double)box[me].job, 300);
		atomic_store_explicit(&box[me].state, 2, memory_order_release);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t th[64];
	double sum = 0;

	iters = argc > 2 ? atol(argv[2]) : 20000;
	if (n < 2 || n > 64 || iters < 1)
		return 2;
	for (int i = 1; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	for (long i = 0; i < iters; i++) {
		for (int w = 1; w < n; w++) {
			box[w].job = i * w;
			atomic_store_explicit(&box[w].state, 1, memory_order_release);
		}
		sum = work(sum, 100);
		for (int w = 1; w < n; w++) {
			wait_for(&box[w].state, 2);
			sum += box[w].out;
		}
	}
	for (int i = 1; i < n; i++)
		pthread_join(th[i], NULL);
	printf("mailbox_spin %d %g\n", n, sum);
	return 0;
}
