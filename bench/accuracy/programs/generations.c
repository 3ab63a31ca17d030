/* SPDX-License-Identifier: BSD-3-Clause */
/* generations.c — thread generations that reuse each other's
   memory: 4 generations of THREADS threads, one after the other (main joins
   a generation before it creates the next). Worker w of generation g reads
   the slice that worker (w+1) mod THREADS of generation g-1 wrote (a pipeline
   stage handing its output to the next), writes its own slice of the other
   buffer, then works on that slice privately; thread stacks and the
   allocator's memory are reused by the next generation as well.
   Designed communication: true sharing between thread 1 + g*THREADS + w and
   thread 1 + (g-1)*THREADS + (w+1) mod THREADS (thread indexes: main is 0),
   pairs whose lifetimes never overlapped — the data really moves from the
   cache of one to the cache of the other — plus whatever the reused stacks
   and heap carry; the top object the slices' buffer (heap, main). Four
   generations, not dozens: each designed pair then holds more than the 5 %
   of the volume that makes it count for recall. */
#include "acc_prog.h"

#define GENS 4
#define SLICE 4096      /* doubles: 32 KiB, 512 lines */

static double *buf[2];
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
		buf[k] = calloc((size_t)nthreads * SLICE, sizeof(double));
		if (!buf[k]) {
			perror("allocating the buffers");
			return 1;
		}
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
	free(buf[0]);
	free(buf[1]);
	return 0;
}
