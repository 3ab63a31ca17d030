/* SPDX-License-Identifier: BSD-3-Clause */
/* halo_bar.c — holdout set (README): 1-D halo exchange, one heap array per worker, two barriers a step; notes at the end */
#include "holdout.h"
#define N 4096
static double *part[ACC_MAXT]; /* part[w]: worker w's array u, N interior cells and a ghost cell each side */
static pthread_barrier_t bar; static int nw; static long steps; static double res[ACC_MAXT];
static void *worker(void *arg)
{	int me = (int)(long)arg, L = (me + nw - 1) % nw, R = (me + 1) % nw;
	double *u = malloc((N + 2) * 8), *v = malloc((N + 2) * 8);
	if (!u || !v) { perror("malloc"); exit(1); }
	for (int i = 0; i <= N + 1; i++) u[i] = v[i] = me + i * 1e-3;
	part[me] = u; pthread_barrier_wait(&bar); for (long s = 0; s < steps; s++) {
		u[0] = part[L][N];         /* the halo: the left neighbour's last cell */
		u[N + 1] = part[R][1];     /* and the right neighbour's first */
		pthread_barrier_wait(&bar);
		for (int i = 1; i <= N; i++) v[i] = (u[i - 1] + u[i] + u[i + 1]) * (1.0 / 3);
		for (int i = 1; i <= N; i++) u[i] = v[i]; /* the copy back (a memcpy call at -O2) */
		pthread_barrier_wait(&bar);
	}
	double sum = 0; /* the worker's own checksum: main reads no halo line */
	for (int i = 1; i <= N; i++) sum += u[i];
	res[me] = sum;
	free(v);
	return NULL;
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "1-D halo exchange with two barriers a step (THREADS workers in a ring)");
	pthread_t th[ACC_MAXT];
	double sum = 0;

	nw = a.threads;
	steps = acc_iters(a, 20000);
	pthread_barrier_init(&bar, NULL, (unsigned)nw);
	for (int w = 0; w < nw; w++) acc_start(&th[w], worker, (void *)(long)w);
	for (int w = 0; w < nw; w++) acc_join(th[w]);
	for (int w = 0; w < nw; w++) {
		sum += res[w];
		free(part[w]);
	}
	pthread_barrier_destroy(&bar);
	printf("halo_bar threads=%d steps=%ld sum=%.9e\n", nw, steps, sum);
	return 0;
}

/* Notes. The owner-style nearest-neighbour program (written in session 18
   as /tmp/rel18/own/halo_bar.c, lost with that machine, recreated in
   session 24 from what doc/detection.md §5.37, §5.48, §5.52, §5.55 and
   accuracy.md "Session 18"/"19" quote of it):
   - THREADS workers in a ring (thread indexes 1..THREADS; main creates and
     joins), 20,000 steps at scale 1 (-O2; 6,000 at -O0), N = 4096 cells;
   - each worker's own `u = malloc((N + 2) * 8)` (and the scratch `v`),
     published in the static `part[]`; the neighbours read `u[1]`
     (`part[R][1]`, :14) and `u[N]` (`part[L][N]`, :13) once a step, right
     after a barrier; the owner writes them in its copy loop (:17, a
     `memcpy` call, `rep movsb`, at -O2): exact's code pairs `:13/:14 <->
     :17`, 2 transfers a worker a step (the originals' -O2 -t 2: 80,006;
     -O0 -t 4: 48,013-48,015 — main reads no array at the end);
   - two `pthread_barrier_wait` a step on the static `bar` (glibc's words,
     which exact mode does not instrument).
   Designed communication: true sharing between ring neighbours only (at
   -t 2 the pair (1,2), at -t 4 (1,2) (2,3) (3,4) (1,4)); the ghost cells
   u[0], u[N+1] share lines with the halo cells (`:13 <-> :14`, rare). */
