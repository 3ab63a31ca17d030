/* SPDX-License-Identifier: BSD-3-Clause */
/* thread_bench.c — what the runtime adds to a thread's life (issue #8:
   "thread creation is not slowed by more than 50 µs per thread"). Creates
   and joins N threads one after the other; for each one it times, with
   CLOCK_MONOTONIC:
     create  — from the pthread_create call to the first instruction of the
               start routine (what the program waits for: our trampoline's
               arena, sigaltstack, perf fds run in between);
     call    — the pthread_create call itself;
     exit    — from the start routine's return to pthread_join's return
               (our key destructor stops the perf events and writes the
               thread's profile in between);
     total   — create + join, end to end.
   Prints the median and the 90th percentile of each, in µs.
   Usage: thread_bench [-n THREADS] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t t_start, t_end;

static void *body(void *arg)
{
	t_start = now();
	t_end = now();
	return arg;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *name, uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	printf("%-7s median %8.1f us  p90 %8.1f us\n", name, (double)v[n / 2] / 1e3, (double)v[n * 9 / 10] / 1e3);
}

int main(int argc, char **argv)
{
	int n = 2000, c;
	uint64_t *create, *call, *exitc, *total;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c == 'n') {
			n = atoi(optarg);
		} else {
			fprintf(stderr, "usage: thread_bench [-n THREADS]\n");
			return 2;
		}
	}
	if (n < 10) {
		fprintf(stderr, "thread_bench: -n must be at least 10\n");
		return 2;
	}
	create = calloc((size_t)n, sizeof *create);
	call = calloc((size_t)n, sizeof *call);
	exitc = calloc((size_t)n, sizeof *exitc);
	total = calloc((size_t)n, sizeof *total);
	if (!create || !call || !exitc || !total)
		return 1;
	for (int i = 0; i < n; i++) {
		pthread_t t;
		uint64_t t0 = now(), t1, t2;
		if (pthread_create(&t, NULL, body, NULL) != 0) {
			perror("pthread_create");
			return 1;
		}
		t1 = now();
		pthread_join(t, NULL);
		t2 = now();
		create[i] = t_start - t0;
		call[i] = t1 - t0;
		exitc[i] = t2 - t_end;
		total[i] = t2 - t0;
	}
	printf("threads %d\n", n);
	report("create", create, n);
	report("call", call, n);
	report("exit", exitc, n);
	report("total", total, n);
	return 0;
}
