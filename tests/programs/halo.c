/* SPDX-License-Identifier: BSD-3-Clause */
/* halo.c — a halo exchange through ghost rows (tests/integration/halo.sh):
   W workers own contiguous blocks of ROWS rows of a grid of NX doubles a
   row (4 KiB rows); each sweep, a worker copies its neighbours' boundary
   rows into its own ghost rows (copy_halo: the loads), waits at a
   barrier, computes its block into the other grid (relax: the stores,
   its first and last rows among them) and waits again. Designed
   communication: true sharing between neighbours only, worker w with
   w + 1 (threads w + 1 and w + 2; thread 0 is main), relax ↔ copy_halo;
   the boundary rows are 2 of a worker's ROWS, so a timer sample rarely
   lands on them (doc/detection.md §5.16).
   Usage: halo WORKERS SWEEPS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 512
#define ROWS 96

static double *grid[2];
static int workers;
static long sweeps;
static pthread_barrier_t bar;

struct ghost { double top[NX], bot[NX]; };

__attribute__((noinline)) static void copy_halo(const double *in, int me, struct ghost *g)
{
	int lo = me * ROWS, hi = lo + ROWS;

	for (int x = 0; x < NX; x++) {
		g->top[x] = me > 0 ? in[(lo - 1) * NX + x] : 0.0;
		g->bot[x] = me < workers - 1 ? in[hi * NX + x] : 0.0;
	}
}

__attribute__((noinline)) static void relax(const double *in, double *out, int me, const struct ghost *g)
{
	int lo = me * ROWS, hi = lo + ROWS;

	for (int y = lo; y < hi; y++) {
		const double *up = y == lo ? g->top : in + (y - 1) * NX;
		const double *dn = y == hi - 1 ? g->bot : in + (y + 1) * NX;

		for (int x = 1; x < NX - 1; x++)
			out[y * NX + x] = 0.25 * (up[x] + dn[x] + in[y * NX + x - 1] + in[y * NX + x + 1]);
	}
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	struct ghost *g = malloc(sizeof *g);

	if (!g)
		abort();
	for (long s = 0; s < sweeps; s++) {
		copy_halo(grid[s & 1], me, g);
		pthread_barrier_wait(&bar);
		relax(grid[s & 1], grid[(s + 1) & 1], me, g);
		pthread_barrier_wait(&bar);
	}
	free(g);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	double sum = 0;

	if (argc != 3 || (workers = atoi(argv[1])) < 2 || workers > 64 || (sweeps = atol(argv[2])) < 1) {
		fprintf(stderr, "usage: %s WORKERS(2..64) SWEEPS\n", argv[0]);
		return 2;
	}
	for (int k = 0; k < 2; k++) {
		grid[k] = calloc((size_t)workers * ROWS * NX, sizeof(double));
		if (!grid[k]) {
			perror("allocating the grid");
			return 1;
		}
		for (int y = 0; y < workers * ROWS; y++)
			grid[k][y * NX] = 100.0;
	}
	pthread_barrier_init(&bar, NULL, (unsigned)workers);
	for (int i = 0; i < workers; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)i)) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	for (int i = 0; i < workers; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < workers * ROWS * NX; i++)
		sum += grid[sweeps & 1][i];
	printf("halo workers=%d sweeps=%ld sum=%.6g\n", workers, sweeps, sum);
	return 0;
}
