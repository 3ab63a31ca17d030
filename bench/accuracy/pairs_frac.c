/* SPDX-License-Identifier: BSD-3-Clause */
/* pairs_frac.c — point-to-point pairs with different sharing fractions, for
   the accuracy sweeps (bench/accuracy): workers 2k and 2k+1 form pair k and
   share one cache line; each iteration of a pair-k worker updates word 0 of
   the pair's line with probability f_k, else a random word of its own
   256 KiB private array. Nothing else is shared. The designed matrix has
   volume only in the cells (2k+1, 2k+2) (worker w is measured thread w+1),
   growing with f_k. Runs for a fixed time, like tests/programs/comm_bench.

   Usage: pairs_frac [-t WORKERS] [-s SECONDS] [-f F0,F1,...]
   (default 4 workers, 1 s; default f_k = (k+1)/pairs; a shorter list
   repeats its last value). The last line of output gives the iterations
   each pair ran, for calibrating the cost of an iteration. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINE 64
#define MAXW 64
#define PRIV_WORDS (1u << 15)

struct line { volatile uint64_t w[8]; } __attribute__((aligned(LINE)));

static struct line pair_lines[MAXW / 2];
static volatile uint64_t *priv[MAXW];
static double frac[MAXW / 2];
static uint64_t done_iters[MAXW];
static volatile int stop;

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The generator state is a local whose address never escapes, so it lives
   in a register: the only memory accesses of the loop are the shared word
   and the private array (comm_bench's generator state is on the stack and
   its loads and stores are sampled too). */
__attribute__((noinline)) static uint64_t pair_kernel(int w)
{
	volatile uint64_t *x = &pair_lines[w / 2].w[0];
	volatile uint64_t *p = priv[w];
	uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(w + 1);
	/* threshold on the top 53 bits: P(shared) = frac */
	uint64_t lim = (uint64_t)(frac[w / 2] * 9007199254740992.0), n = 0;

	while (!stop) {
		for (int i = 0; i < 1024; i++) {
			uint64_t r = rnd(&s);
			if ((r >> 11) < lim)
				*x = *x + 1;
			else
				p[r & (PRIV_WORDS - 1)] += 1;
		}
		n += 1024;
	}
	return n;
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;

	done_iters[w] = pair_kernel(w);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: pairs_frac [-t WORKERS (even)] [-s SECONDS] [-f F0,F1,...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	pthread_t th[MAXW];
	int nw = 4, npairs, nf = 0;
	double seconds = 1.0, given[MAXW / 2];
	struct timespec ts;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc) {
			nw = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else if (!strcmp(argv[i], "-f") && i + 1 < argc) {
			for (char *tok = strtok(argv[++i], ","); tok && nf < MAXW / 2; tok = strtok(NULL, ","))
				given[nf++] = atof(tok);
		} else {
			usage();
		}
	}
	if (nw < 2 || nw > MAXW || nw % 2 || seconds <= 0)
		usage();
	npairs = nw / 2;
	for (int k = 0; k < npairs; k++) {
		frac[k] = nf ? given[k < nf ? k : nf - 1] : (double)(k + 1) / npairs;
		if (frac[k] < 0 || frac[k] > 1)
			usage();
	}
	for (int w = 0; w < nw; w++) {
		priv[w] = aligned_alloc(4096, PRIV_WORDS * sizeof(uint64_t));
		if (!priv[w])
			return 1;
		memset((void *)priv[w], 0, PRIV_WORDS * sizeof(uint64_t));
	}
	for (int w = 0; w < nw; w++)
		if (pthread_create(&th[w], NULL, worker, (void *)(intptr_t)w) != 0)
			return 1;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	stop = 1;
	for (int w = 0; w < nw; w++)
		pthread_join(th[w], NULL);
	printf("pairs_frac done: %d workers, %.2f s, fractions", nw, seconds);
	for (int k = 0; k < npairs; k++)
		printf(" %.3g", frac[k]);
	printf("; iterations per pair");
	for (int k = 0; k < npairs; k++)
		printf(" %llu", (unsigned long long)(done_iters[2 * k] + done_iters[2 * k + 1]));
	printf("\n");
	return 0;
}
