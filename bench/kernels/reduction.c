/* SPDX-License-Identifier: BSD-3-Clause */
/* reduction.c — OpenMP kernel for the overhead benchmarks (bench/overhead):
   REPS passes of a `reduction(+:sum)` over an array of N doubles (a
   polynomial of each element, so the loop is not purely memory-bound). Each
   thread accumulates privately; the only communication is the combination
   of the partial sums and the barrier at the end of each pass. Fixed work:
   N x REPS elements whatever the thread count.

   Usage: reduction [N] [REPS]   (default 4000000 60; threads: OMP_NUM_THREADS) */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double pass(const double *x, long n, double c)
{
	double sum = 0;

#pragma omp parallel for schedule(static) reduction(+:sum)
	for (long i = 0; i < n; i++) {
		double v = x[i];
		sum += ((v * c + 1.0) * v + 0.5) * v;
	}
	return sum;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 4000000;
	int reps = argc > 2 ? atoi(argv[2]) : 60;
	double *x, total = 0;

	if (n < 1 || reps < 1) {
		fprintf(stderr, "usage: reduction [N >= 1] [REPS >= 1]\n");
		return 2;
	}
	x = malloc((size_t)n * sizeof *x);
	if (!x)
		return 1;
	for (long i = 0; i < n; i++)
		x[i] = (double)(i % 1000) * 1e-3;
	for (int r = 0; r < reps; r++)
		total += pass(x, n, 1.0 + r * 1e-3);
	printf("reduction %ld x %d: %.9g\n", n, reps, total);
	free(x);
	return 0;
}
