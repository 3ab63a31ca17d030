/* SPDX-License-Identifier: BSD-3-Clause */
/* scatter_add.c — the accumulator of Rodinia/PARSEC streamcluster's pgain
   (`lower[center_table[assign]] += current_cost - x_cost` inside `#pragma omp
   parallel for`): a parallel loop over points, each point's private work,
   then a plain `+=` into the shared table's element its centre names (24
   doubles, three cache lines; the centres drawn from the point's index).
   The updates race, as the original's do (the sum is not checked); 40
   parallel regions (the team is reused).
   Designed communication: all-to-all between the team's threads on the
   table, mostly false sharing — an update meets another thread's element
   about one time in eight (exact mode: ~0.8 false) — and the code pair
   the `+=` against itself; the top false-sharing object `table`.
   detection.md §5.54. */
#include <omp.h>
#include <stdint.h>
#include "acc_prog.h"

#define K 24

static double table[K] __attribute__((aligned(64)));

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "OpenMP loop adding into a shared table's elements (THREADS = team size)");
	long reps = acc_iters(a, 40), n = 100000;
	double s = 0;

	omp_set_dynamic(0);
	for (long r = 0; r < reps; r++) {
#pragma omp parallel num_threads(a.threads)
		{
			double buf[32] = { 0 };
#pragma omp for schedule(static)
			for (long i = 0; i < n; i++) {
				uint64_t x = (uint64_t)(i + r * n) * 0x9e3779b97f4a7c15ull;
				double v = acc_work(buf, 32, 2);

				table[(x >> 40) % K] += v;
			}
		}
	}
	for (int k = 0; k < K; k++)
		s += table[k];
	printf("scatter_add threads=%d reps=%ld nonzero=%d\n", a.threads, reps, s != 0);
	return 0;
}
