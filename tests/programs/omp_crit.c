/* SPDX-License-Identifier: BSD-3-Clause */
/* omp_crit.c — a histogram merged in an OpenMP critical section (NPB IS's
   key_buff1 pattern, doc/detection.md §5.76): every round each thread
   counts keys into its own histogram (most of the time), then adds it to
   the shared histogram `hist` inside `#pragma omp critical` (or, with
   argument `lock`, between omp_set_lock and omp_unset_lock). The shared
   histogram's lines migrate from one holder of the critical section to
   the next: true sharing between every pair of threads, with the merge
   loop's line as both ends of the code pair. The critical section is a
   few percent of the run: a timer sample rarely lands in it, and another
   thread's rarer still.
   Usage: omp_crit [ROUNDS [crit|lock]]; OMP_NUM_THREADS threads. Prints
   the histogram's checksum (the same for the same thread count). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NB 8192          /* 32 KiB of counters: 512 lines */
#define KEYS 131072      /* keys a thread counts a round */

static int hist[NB];
static omp_lock_t lk;

static unsigned next_key(unsigned *x)
{
	*x = *x * 1103515245u + 12345u;
	return (*x >> 8) % NB;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 200;
	int use_lock = argc > 2 && strcmp(argv[2], "lock") == 0;
	long sum = 0;

	omp_init_lock(&lk);
#pragma omp parallel
	{
		static __thread int mine[NB];
		unsigned x = 1u + (unsigned)omp_get_thread_num() * 7919u;

		for (int r = 0; r < rounds; r++) {
			memset(mine, 0, sizeof(mine));
			for (int i = 0; i < KEYS; i++)
				mine[next_key(&x)]++;
			if (use_lock) {
				omp_set_lock(&lk);
				for (int b = 0; b < NB; b++)
					hist[b] += mine[b];               /* merge (lock) */
				omp_unset_lock(&lk);
			} else {
#pragma omp critical
				{
					for (int b = 0; b < NB; b++)
						hist[b] += mine[b];       /* merge (critical) */
				}
			}
		}
	}
	omp_destroy_lock(&lk);
	for (int b = 0; b < NB; b++)
		sum += (long)hist[b] * (b + 1);
	printf("omp_crit rounds=%d %s total=%ld\n", rounds, use_lock ? "lock" : "crit", sum);
	return 0;
}
