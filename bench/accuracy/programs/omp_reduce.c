/* SPDX-License-Identifier: BSD-3-Clause */
/* omp_reduce.c — an OpenMP reduction written with atomics: a parallel loop
   over elements, each thread computes a value per element (private work)
   and adds it to one shared integer sum with `#pragma omp atomic`; 40
   parallel regions (the team is reused). An integer on purpose: GCC 12's
   -fsanitize=thread leaves the compare-and-swap loop of an atomic update of
   a double uninstrumented (only its load is seen), so exact mode could not
   count that program's writes when built with gcc (clang instruments it).
   Designed communication: true sharing between every pair of team threads
   (all-to-all) on the line of `total`; the top object `total`. libgomp's own
   barrier words (not instrumented) add a little. */
#include <omp.h>
#include "acc_prog.h"

static long total;

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "OpenMP reduction with atomics (THREADS = team size)");
	long reps = acc_iters(a, 40), n = 100000;

	omp_set_dynamic(0);
	for (long r = 0; r < reps; r++) {
#pragma omp parallel num_threads(a.threads)
		{
			double buf[32] = { 0 };
#pragma omp for schedule(static)
			for (long i = 0; i < n; i++) {
				long v = ((long)acc_work(buf, 32, 2) & 3) + (i & 7);
#pragma omp atomic
				total += v;
			}
		}
	}
	printf("omp_reduce threads=%d reps=%ld total=%ld\n", a.threads, reps, total);
	return 0;
}
