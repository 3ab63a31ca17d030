/* SPDX-License-Identifier: BSD-3-Clause */
/* acc_prog.h — what every pattern program of the accuracy suite shares: the
   command line (THREADS [SCALE]), the iteration count scaled for the
   optimization level, a checked pthread_create/join, and the private work
   between shared accesses (acc_work, defined in work.c: another translation
   unit, so that the compiler must assume it may touch any global memory —
   as any call into a library or another file of a real program — and keeps
   the plain shared stores and loads around it at -O2 without volatile).
   Nothing here runs in signal context. */
#ifndef ACC_PROG_H
#define ACC_PROG_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ACC_MAXT 256

/* Private arithmetic on a caller-owned buffer of n doubles (n >= 1), rounds
   rounds; returns a value depending on all of it. */
#ifdef __cplusplus
extern "C"
#endif
double acc_work(double *buf, int n, int rounds);

/* -O0 code runs several times slower: fewer iterations keep every program
   in the same 1-2 s band natively at both levels. */
#ifdef __OPTIMIZE__
#define ACC_OPT_SCALE 1.0
#else
#define ACC_OPT_SCALE 0.3
#endif

struct acc_args {
	int threads;
	double scale;
};

static inline void acc_usage(const char *prog, const char *what)
{
	fprintf(stderr, "usage: %s THREADS [SCALE]\n  %s\n"
		"  THREADS: 1..%d; SCALE: work multiplier (default 1, > 0)\n",
		prog, what, ACC_MAXT);
	exit(2);
}

static inline struct acc_args acc_parse(int argc, char **argv, const char *what)
{
	struct acc_args a = { 2, 1.0 };
	char *end;

	if (argc < 2 || argc > 3)
		acc_usage(argv[0], what);
	a.threads = (int)strtol(argv[1], &end, 10);
	if (*end || a.threads < 1 || a.threads > ACC_MAXT)
		acc_usage(argv[0], what);
	if (argc == 3) {
		a.scale = strtod(argv[2], &end);
		if (*end || !(a.scale > 0) || a.scale > 1000)
			acc_usage(argv[0], what);
	}
	return a;
}

/* base iterations, scaled by SCALE and the optimization level; at least 1 */
static inline long acc_iters(struct acc_args a, long base)
{
	double n = (double)base * a.scale * ACC_OPT_SCALE;
	return n < 1 ? 1 : (long)n;
}

static inline void acc_start(pthread_t *t, void *(*fn)(void *), void *arg)
{
	int e = pthread_create(t, NULL, fn, arg);
	if (e) {
		fprintf(stderr, "pthread_create: %s\n", strerror(e));
		exit(1);
	}
}

static inline void acc_join(pthread_t t)
{
	int e = pthread_join(t, NULL);
	if (e) {
		fprintf(stderr, "pthread_join: %s\n", strerror(e));
		exit(1);
	}
}

#endif
