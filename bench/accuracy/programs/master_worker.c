/* SPDX-License-Identifier: BSD-3-Clause */
/* master_worker.c — master-worker hand-off: the main thread (the master)
   publishes a task word, does private work, and sums the workers' result
   slots; each worker loads the task word, computes, and stores its result
   into its own 64-byte-aligned slot. Plain stores and loads, free-running
   (no handshake: the workers take whatever task is current).
   Designed communication: true sharing between thread 0 (the master) and
   every worker (threads 1..THREADS-1), nothing between workers. */
#include "acc_prog.h"

struct task {
	long arg;
} __attribute__((aligned(64)));

struct result {
	long v;
} __attribute__((aligned(64)));

static struct task task;
static struct result results[ACC_MAXT];
static int nthreads;
static long iters;

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	double buf[32] = { 0 }, sum = 0;

	for (long i = 0; i < iters; i++) {
		long t = task.arg;                      /* take the current task */
		sum += acc_work(buf, 32, 2);
		results[me].v = t + me;                 /* publish the result */
		sum += acc_work(buf, 32, 2);
	}
	return (void *)(long)(sum != 0);
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "master-worker hand-off (THREADS includes the master)");
	pthread_t t[ACC_MAXT];
	double buf[32] = { 0 }, sum = 0;
	long got = 0;

	nthreads = a.threads;
	iters = acc_iters(a, 4000000 / a.threads);
	for (int i = 1; i < nthreads; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (long i = 0; i < iters; i++) {
		task.arg = i;                           /* publish work */
		sum += acc_work(buf, 32, 2);
		for (int w = 1; w < nthreads; w++)      /* collect results */
			got += results[w].v;
		sum += acc_work(buf, 32, 2);
	}
	for (int i = 1; i < nthreads; i++)
		acc_join(t[i]);
	printf("master_worker threads=%d iters=%ld\n", nthreads, iters);
	return got < 0 && sum == 0;
}
