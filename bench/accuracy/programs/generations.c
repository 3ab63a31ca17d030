/* SPDX-License-Identifier: BSD-3-Clause */
/* generations.c — thread generations that reuse each other's
   memory: 3 generations of THREADS threads, one after the other (main joins
   a generation before it creates the next). Worker w of generation g reads
   the slice that worker (w+1) mod THREADS of generation g-1 wrote (a pipeline
   stage handing its output to the next), writes its own slice of the other
   buffer (the slice worker w of generation g-2 wrote), then works on that
   slice privately; main sums the last generation's output.
   Designed communication: true sharing between thread 1 + g*THREADS + w and
   thread 1 + (g-1)*THREADS + (w+1) mod THREADS (thread indexes: main is 0),
   and between 1 + g*THREADS + w and 1 + (g-2)*THREADS + w, pairs whose
   lifetimes never overlapped — the data really moves from the cache of one
   to the cache of the other —, and main with each thread of the last
   generation; the top object the slices' buffer (heap, main). Every
   designed pair moves one slice (512 lines), so each holds 1/(4 THREADS)
   of the volume (12.5 % at 2 threads, 6.25 % at 4), above the 5 % that
   makes a pair count for recall. The slices start on a cache line: with
   calloc's 16-byte alignment (until session 10) neighbouring slices shared
   a line, and the two workers' private work on it, written once per round
   each, was false sharing inside a generation that held 44-81 % of exact
   mode's transfers and made the designed pairs fall under 5 %
   (doc/accuracy.md, "Session 10"); four generations at 4 threads gave 24
   designed pairs of ~4 % each. */
#include "acc_prog.h"

#include <stdint.h>

#define GENS 3
#define SLICE 4096      /* doubles: 32 KiB, 512 lines */

static double *buf[2];
static void *raw[2];     /* calloc's blocks; buf[k] is raw[k] rounded up to a line */
static int nthreads;
static long rounds;
static int gen;

static void *worker(void *arg)
{
	int me = (int)(long)arg, from = (me + 1) % nthreads;
	const double *in = buf[(gen + 1) & 1] + (size_t)from * SLICE;
	double *out = buf[gen & 1] + (size_t)me * SLICE, s = 0;

	for (int i = 0; i < SLICE; i++)                 /* take the previous stage's output */
		out[i] = in[i] * 0.5 + 1.0;
	for (long r = 0; r < rounds; r++)               /* private work on it */
		for (int i = 1; i < SLICE; i++)
			out[i] = out[i] * 0.999 + out[i - 1] * 0.001;
	for (int i = 0; i < SLICE; i++)
		s += out[i];
	return (void *)(long)(s == 0);
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "short-lived thread generations handing data on");
	pthread_t t[ACC_MAXT];
	double sum = 0;

	nthreads = a.threads;
	rounds = acc_iters(a, 16000 / a.threads);
	for (int k = 0; k < 2; k++) {
		raw[k] = calloc((size_t)nthreads * SLICE + 8, sizeof(double));
		if (!raw[k]) {
			perror("allocating the buffers");
			return 1;
		}
		buf[k] = (double *)(((uintptr_t)raw[k] + 63) & ~(uintptr_t)63);
	}
	for (gen = 0; gen < GENS; gen++) {
		for (int i = 0; i < nthreads; i++)
			acc_start(&t[i], worker, (void *)(long)i);
		for (int i = 0; i < nthreads; i++)
			acc_join(t[i]);
	}
	for (size_t i = 0; i < (size_t)nthreads * SLICE; i++)
		sum += buf[(GENS - 1) & 1][i];
	printf("generations threads=%d gens=%d rounds=%ld sum=%.6g\n", nthreads, GENS, rounds, sum);
	free(raw[0]);
	free(raw[1]);
	return 0;
}
