/* SPDX-License-Identifier: BSD-3-Clause */
/* embarrassing.c — embarrassingly parallel: every worker allocates its own
   256 KiB array, sweeps it repeatedly with private arithmetic, and stores one
   result into its own 64-byte-aligned slot at the end.
   Designed communication: none (the final results move once each; thread
   creation and exit move a few lines of the thread library). */
#include "acc_prog.h"

#define N (32 * 1024)

struct slot {
	double v;
} __attribute__((aligned(64)));

static struct slot result[ACC_MAXT];
static long iters;

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	double *x = malloc(N * sizeof(double)), s = 0;

	if (!x)
		return (void *)1;
	for (int i = 0; i < N; i++)
		x[i] = (double)(i + me);
	for (long it = 0; it < iters; it++)
		for (int i = 1; i < N; i++) {
			x[i] = x[i] * 0.5 + x[i - 1] * 0.25 + 1.0;
			s += x[i];
		}
	result[me].v = s;
	free(x);
	return NULL;
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "embarrassingly parallel (no sharing)");
	pthread_t t[ACC_MAXT];
	double sum = 0;

	iters = acc_iters(a, 8000 / a.threads);
	for (int i = 0; i < a.threads; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (int i = 0; i < a.threads; i++)
		acc_join(t[i]);
	for (int i = 0; i < a.threads; i++)
		sum += result[i].v;
	printf("embarrassing threads=%d iters=%ld sum=%.6g\n", a.threads, iters, sum);
	return 0;
}
