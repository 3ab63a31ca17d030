/* SPDX-License-Identifier: BSD-3-Clause */
/* gen_heap.c — holdout set (README): three generations of workers, each
   mallocs its output block, the next generation reads it, main frees it;
   notes at the end. */
#include "holdout.h"

#define GENS 3
#define BLK 8192                /* doubles: a 64 KiB block, 1024 lines */

static double *blk[GENS][ACC_MAXT];
static int nt, gen;
static long passes;

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	const double *in = gen ? blk[gen - 1][(me + 1) % nt] : NULL;
	double *out = malloc(BLK * sizeof *out);

	if (!out) { perror("malloc"); exit(1); }
	/* read the previous generation's block of worker me + 1 once, write
	   this thread's own block; then private passes over its own block */
	for (int k = 0; k < BLK; k++)
		out[k] = (in ? in[k] : (double)(me + k)) * 0.5 + 1.0;
	for (long p = 0; p < passes; p++)
		for (int k = 0; k < BLK; k++) {
			double x = out[k];
			for (int r = 0; r < 32; r++)     /* inline work */
				x = x * 0.9999 + 0.0001;
			out[k] = x;
		}
	blk[gen][me] = out;
	return NULL;
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "three generations of THREADS workers handing heap blocks on");
	pthread_t th[ACC_MAXT];
	double sum = 0;

	nt = a.threads;
	passes = acc_iters(a, 800 / a.threads);
	for (gen = 0; gen < GENS; gen++) {
		for (int w = 0; w < nt; w++) acc_start(&th[w], worker, (void *)(long)w);
		for (int w = 0; w < nt; w++) acc_join(th[w]);
		/* generation gen - 1's blocks are read: free them, so that the
		   next generation's mallocs reuse them */
		if (gen >= 1)
			for (int w = 0; w < nt; w++) { free(blk[gen - 1][w]); blk[gen - 1][w] = NULL; }
	}
	/* main reads the last generation's block of worker 0 */
	for (int k = 0; k < BLK; k++) sum += blk[GENS - 1][0][k];
	for (int w = 0; w < nt; w++) free(blk[GENS - 1][w]);
	printf("gen_heap threads=%d passes=%ld sum=%.9e\n", nt, passes, sum);
	return 0;
}

/* Notes. The owner-style heap program (written in session 18 as
   /tmp/rel18/own/gen_heap.c, lost with that machine, recreated in session
   24 from what doc/detection.md §5.39 and accuracy.md "Session 18"/"19"
   quote of it): 3 generations of THREADS workers (thread indexes: main 0,
   generation g's worker i is 1 + g*THREADS + i); generation g's worker i
   reads generation g-1's block of worker i+1 (the planned pairs) and writes
   its own malloc'd 64 KiB block; main frees generation g-1's blocks after
   generation g, so generation 2's blocks are generation 0's, in whichever
   glibc arena a new thread picks up (an exited thread's, in the order the
   threads ran): a write into a line another thread wrote last is a
   transfer to exact mode, 1024 lines, as big as a planned pair — at -t 2
   the reuse pairs are (1,6)+(2,5) or (1,5)+(2,6), a coin flip between
   runs (§5.39: exact against itself misses recall at -O0 -t 2). Main reads
   the last generation's block of worker 0 (the planned pair (0,9) at
   -t 4). Planned: 2*THREADS + 1 pairs of 1024 lines each, plus THREADS
   reuse pairs (-t 4: 13,312 transfers and a few; the originals' exact
   runs counted 13,355-13,361). */
