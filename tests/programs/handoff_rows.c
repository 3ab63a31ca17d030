/* SPDX-License-Identifier: BSD-3-Clause */
/* handoff_rows.c — NPB MG's initialisation in small blocks (doc/detection.md
   §5.41): a grid of ROWS rows, each its own 2064-byte malloc (MG's rows);
   each round main fills every row serially (a computed value a word, as
   MG's vranlc), then W workers (threads 1..W, created for the round)
   overwrite their share of the rows. A worker's store to a line main wrote
   last is a transfer (exact mode counts a store over another thread's
   store); main's stores over the workers' of the round before are too.
   Usage: handoff_rows [WORKERS [ROUNDS [ROWS]]]  (default 2 12 8192) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define ROW 258   /* doubles: MG class A's n1 */

static double **rows;
static long nrows, nw;

static void *worker(void *arg)
{
	long me = (long)arg - 1, lo = nrows * me / nw, hi = nrows * (me + 1) / nw;

	for (long r = lo; r < hi; r++)
		for (int i = 0; i < ROW; i++)
			rows[r][i] = (double)i * 0.5;
	return NULL;
}

int main(int argc, char **argv)
{
	long rounds = argc > 2 ? atol(argv[2]) : 12;
	pthread_t t[64];
	double x = 314159265.0, sum = 0;

	nw = argc > 1 ? atol(argv[1]) : 2;
	nrows = argc > 3 ? atol(argv[3]) : 8192;
	if (nw < 1 || nw > 63 || rounds < 1 || nrows < nw)
		return 2;
	rows = malloc((size_t)nrows * sizeof(*rows));
	if (!rows)
		return 1;
	for (long r = 0; r < nrows; r++)
		if (!(rows[r] = malloc(ROW * sizeof(double))))
			return 1;
	for (long k = 0; k < rounds; k++) {
		for (long r = 0; r < nrows; r++)       /* main: a linear congruential fill */
			for (int i = 0; i < ROW; i++) {
				x = x * 1220703125.0;
				x -= (double)(int64_t)(x / 4503599627370496.0) * 4503599627370496.0;
				rows[r][i] = x / 4503599627370496.0;
			}
		for (long i = 0; i < nw; i++)
			if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)) != 0)
				return 1;
		for (long i = 0; i < nw; i++)
			pthread_join(t[i], NULL);
	}
	for (long r = 0; r < nrows; r++) {
		sum += rows[r][r % ROW];
		free(rows[r]);
	}
	free(rows);
	printf("handoff_rows workers=%ld rounds=%ld rows=%ld sum=%g\n", nw, rounds, nrows, sum);
	return 0;
}
