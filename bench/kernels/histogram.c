/* SPDX-License-Identifier: BSD-3-Clause */
/* histogram.c — OpenMP kernel for the overhead benchmarks (bench/overhead):
   REPS passes binning N pseudo-random 32-bit keys into NBINS bins. Each
   thread counts into its own row of a per-thread bin table (rows are
   NBINS x 8 bytes, padded to a cache line), then the rows are summed into
   the result in parallel over the bins: private counting, then one
   all-to-all read of the rows per pass. Fixed work: N x REPS keys.

   Usage: histogram [N] [REPS] [NBINS]   (default 8000000 12 256;
   threads: OMP_NUM_THREADS) */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static void pass(const uint32_t *key, long n, uint64_t *rows,
                                           size_t stride, int nbins, int nthreads,
                                           uint64_t *hist)
{
#pragma omp parallel
	{
		uint64_t *mine = rows + (size_t)omp_get_thread_num() * stride;

		memset(mine, 0, (size_t)nbins * sizeof *mine);
#pragma omp for schedule(static)
		for (long i = 0; i < n; i++)
			mine[key[i] % (uint32_t)nbins]++;
#pragma omp for schedule(static)
		for (int b = 0; b < nbins; b++)
			for (int t = 0; t < nthreads; t++)
				hist[b] += rows[(size_t)t * stride + b];
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 8000000;
	int reps = argc > 2 ? atoi(argv[2]) : 12;
	int nbins = argc > 3 ? atoi(argv[3]) : 256;
	int nthreads = omp_get_max_threads();
	size_t stride = ((size_t)nbins + 7) & ~(size_t)7;   /* 64-byte rows */
	uint32_t *key, s = 2463534242u;
	uint64_t *rows, *hist, check = 0;

	if (n < 1 || reps < 1 || nbins < 1) {
		fprintf(stderr, "usage: histogram [N >= 1] [REPS >= 1] [NBINS >= 1]\n");
		return 2;
	}
	key = malloc((size_t)n * sizeof *key);
	rows = aligned_alloc(64, (size_t)nthreads * stride * sizeof *rows);
	hist = calloc((size_t)nbins, sizeof *hist);
	if (!key || !rows || !hist)
		return 1;
	for (long i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 17;
		s ^= s << 5;
		key[i] = s;
	}
	for (int r = 0; r < reps; r++)
		pass(key, n, rows, stride, nbins, nthreads, hist);
	for (int b = 0; b < nbins; b++)
		check += hist[b];
	printf("histogram %ld keys x %d, %d bins, %d threads: %llu counted\n", n, reps, nbins,
	       nthreads, (unsigned long long)check);
	free(key);
	free(rows);
	free(hist);
	return check == (uint64_t)n * (uint64_t)reps ? 0 : 1;
}
