/* SPDX-License-Identifier: BSD-3-Clause */
/* heap_counters.c — per-thread accumulators carved from one heap array: the
   main thread allocates THREADS counters in one block, worker w adds into
   counter w after private work (a plain `+=`), the main thread sums them at
   the end. Built with -DPADDED, each counter gets its own 64-byte line
   (aligned_alloc, stride 64 bytes): the fix of the unpadded version.
   Designed communication: unpadded, false sharing between the workers
   whose counters share a line (all of them for up to 8 counters in one
   line; where the block crosses a line boundary depends on the heap);
   padded, nothing (the final sum moves each line once). The top
   false-sharing object: the block allocated in main. */
#include "acc_prog.h"

#ifdef PADDED
#define STRIDE 8        /* longs: 64 bytes */
#define NAME "heap_padded"
#else
#define STRIDE 1
#define NAME "heap_counters"
#endif

static long *counters;
static long iters;

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	double buf[32] = { 0 };

	for (long i = 0; i < iters; i++)
		counters[me * STRIDE] += (long)acc_work(buf, 32, 2) & 7;
	return NULL;
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "per-thread counters in one heap block");
	pthread_t t[ACC_MAXT];
	long sum = 0;

#ifdef PADDED
	counters = aligned_alloc(64, (size_t)a.threads * STRIDE * sizeof(long));
	if (counters)
		memset(counters, 0, (size_t)a.threads * STRIDE * sizeof(long));
#else
	counters = calloc((size_t)a.threads, sizeof(long));
#endif
	if (!counters) {
		perror("allocating the counters");
		return 1;
	}
	iters = acc_iters(a, 8000000 / a.threads);
	for (int i = 0; i < a.threads; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (int i = 0; i < a.threads; i++)
		acc_join(t[i]);
	for (int i = 0; i < a.threads; i++)
		sum += counters[i * STRIDE];
	printf("%s threads=%d iters=%ld sum=%ld\n", NAME, a.threads, iters, sum);
	free(counters);
	return 0;
}
