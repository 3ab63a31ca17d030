/* SPDX-License-Identifier: BSD-3-Clause */
/* stencil.c — 2-D Jacobi halo stencil: a 512 x 512 grid of doubles, two
   copies (read one, write the other, swap), rows split in contiguous blocks,
   one per worker, a pthread barrier after each sweep. A worker reads the
   boundary rows of its upper and lower neighbours that they wrote in the
   previous sweep.
   Designed communication: true sharing between workers with adjacent
   blocks, cells (w+1, w+2) (worker w is thread w+1; the main thread
   creates and joins); the top object is the grid (heap, allocated in
   main). The barrier's own words (glibc, not instrumented) add a little
   all-to-all traffic. */
#include "acc_prog.h"

#define NX 512
#define NY 512

static double *grid[2];
static int nthreads;
static long iters;
static pthread_barrier_t bar;

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	int lo = 1 + (NY - 2) * me / nthreads, hi = 1 + (NY - 2) * (me + 1) / nthreads;

	for (long it = 0; it < iters; it++) {
		const double *in = grid[it & 1];
		double *out = grid[(it + 1) & 1];
		for (int y = lo; y < hi; y++)
			for (int x = 1; x < NX - 1; x++)
				out[y * NX + x] = 0.25 * (in[(y - 1) * NX + x] + in[(y + 1) * NX + x] +
							  in[y * NX + x - 1] + in[y * NX + x + 1]);
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "2-D halo stencil (Jacobi, row blocks, barrier per sweep)");
	pthread_t t[ACC_MAXT];
	double sum = 0;

	nthreads = a.threads;
	if (nthreads > NY - 2)
		acc_usage(argv[0], "at most 510 threads");
	iters = acc_iters(a, 2000);
	for (int k = 0; k < 2; k++) {
		grid[k] = malloc(sizeof(double) * NX * NY);
		if (!grid[k]) {
			perror("allocating the grid");
			return 1;
		}
		for (int i = 0; i < NX * NY; i++)
			grid[k][i] = (i % NX == 0) ? 100.0 : 0.0;   /* hot left edge */
	}
	pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
	for (int i = 0; i < nthreads; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (int i = 0; i < nthreads; i++)
		acc_join(t[i]);
	for (int i = 0; i < NX * NY; i++)
		sum += grid[iters & 1][i];
	printf("stencil threads=%d iters=%ld sum=%.6g\n", nthreads, iters, sum);
	pthread_barrier_destroy(&bar);
	free(grid[0]);
	free(grid[1]);
	return 0;
}
