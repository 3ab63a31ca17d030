/* SPDX-License-Identifier: BSD-3-Clause */
/* stencil.c — OpenMP kernel for the overhead benchmarks (bench/overhead): a
   2-D Jacobi 5-point stencil on an N x N grid of doubles, ITERS sweeps with
   two buffers. Rows are split statically between the threads, so threads
   communicate through the rows at the edges of their blocks (true sharing,
   read after the neighbour's write) and the implicit barrier of each sweep.
   Fixed work: N^2 x ITERS point updates whatever the thread count.

   Usage: stencil [N] [ITERS]   (default 1024 400; threads: OMP_NUM_THREADS) */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void sweep(double *restrict out, const double *restrict in, int n)
{
#pragma omp parallel for schedule(static)
	for (int i = 1; i < n - 1; i++)
		for (int j = 1; j < n - 1; j++)
			out[(size_t)i * n + j] = 0.25 * (in[(size_t)(i - 1) * n + j] +
			                                 in[(size_t)(i + 1) * n + j] +
			                                 in[(size_t)i * n + j - 1] +
			                                 in[(size_t)i * n + j + 1]);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1024;
	int iters = argc > 2 ? atoi(argv[2]) : 400;
	double *a, *b, sum = 0;

	if (n < 3 || iters < 1) {
		fprintf(stderr, "usage: stencil [N >= 3] [ITERS >= 1]\n");
		return 2;
	}
	a = calloc((size_t)n * n, sizeof *a);
	b = calloc((size_t)n * n, sizeof *b);
	if (!a || !b)
		return 1;
	for (int j = 0; j < n; j++)        /* hot top edge, cold elsewhere */
		a[j] = b[j] = 100.0;
	for (int k = 0; k < iters; k++) {
		sweep(b, a, n);
		double *t = a; a = b; b = t;
	}
	for (size_t i = 0; i < (size_t)n * n; i++)
		sum += a[i];
	printf("stencil %d x %d, %d sweeps: sum %.6g\n", n, n, iters, sum);
	free(a);
	free(b);
	return 0;
}
