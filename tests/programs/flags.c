/* SPDX-License-Identifier: BSD-3-Clause */
/* flags.c — a wavefront pipeline of per-row flags (doc/detection.md §5.17,
   after PRK Synch_p2p): worker w waits until flag(w - 1, j) reaches the
   iteration's number, computes its private row j, and sets flag(w, j)
   with an atomic exchange (an xchg: the form of a seq_cst store). Each
   flag has a 64-byte line of its own, so a reader touches a given flag
   line once an iteration — never a "recent" line of its own samples.
   Designed communication: worker w -> w + 1 on the flag lines only (the
   rows are private); none between non-neighbours.
   Usage: flags WORKERS ROWS ITERATIONS */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define LINEWORDS 16                /* ints per 64-byte line */
#define WORK 256

static int nworkers, rows, iters;
static int *flag;                   /* flag(w, j) at ((w) + (j) * nworkers) * LINEWORDS */
static double sink[64 * 8];

#define FLAG(w, j) flag[((w) + (j) * nworkers) * LINEWORDS]

static void *worker(void *arg)
{
	int w = (int)(long)arg;
	double row[WORK] = { 0 }, acc = 0;

	for (int it = 1; it <= iters; it++) {
		for (int j = 0; j < rows; j++) {
			if (w > 0) {
				int spins = 0;

				while (__atomic_load_n(&FLAG(w - 1, j), __ATOMIC_ACQUIRE) < it)
					if (++spins > 64) {
						sched_yield();
						spins = 0;
					}
			}
			for (int k = 0; k < WORK; k++) {
				row[k] = row[k] * 0.5 + (double)(k + j + it);
				acc += row[k];
			}
			__atomic_exchange_n(&FLAG(w, j), it, __ATOMIC_SEQ_CST);
		}
	}
	sink[w * 8] = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	double sum = 0;

	if (argc != 4 || (nworkers = atoi(argv[1])) < 2 || nworkers > 64 || (rows = atoi(argv[2])) < 1 ||
	    (iters = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: flags WORKERS(2-64) ROWS ITERATIONS\n");
		return 2;
	}
	if (posix_memalign((void **)&flag, 64, sizeof(int) * LINEWORDS * (size_t)nworkers * (size_t)rows))
		return 1;
	for (long i = 0; i < (long)LINEWORDS * nworkers * rows; i++)
		flag[i] = 0;
	for (int i = 0; i < nworkers; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)i))
			return 1;
	for (int i = 0; i < nworkers; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < nworkers; i++)
		sum += sink[i * 8];
	printf("flags workers=%d rows=%d iterations=%d ok (%g)\n", nworkers, rows, iters, sum);
	free(flag);
	return 0;
}
