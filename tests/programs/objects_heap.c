/* SPDX-License-Identifier: BSD-3-Clause */
/* objects_heap.c — heap false sharing for the allocation tracker. The main
   thread carves one counter per worker out of a single malloc in
   alloc_counters(): adjacent 8-byte counters, so the workers false-share
   its cache line (objects_padded.c builds the same program with every
   counter on its own line: no sharing). Workers increment their own
   counter; a noise thread meanwhile churns small blocks from another call
   site, so the tracker is busy while events are resolved. Prints what the
   integration test compares with the profiles:
     block BASE SIZE                      the counters' block
     thread INDEX STACK TLS ERRNO         addresses of a local, a __thread
                                          variable and libc's errno
   Worker w is measured thread w + 1, the noise thread comes last.
   Usage: objects_heap [-t WORKERS] [-s SECONDS] */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef PAD
#define PAD 8          /* bytes per counter */
#endif
#define MAXW 16

static volatile uint64_t *counters;
static volatile int stop;
static __thread volatile uint64_t tls_var;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

/* The allocation context the test looks for. */
__attribute__((noinline)) static volatile uint64_t *alloc_counters(int n)
{
	void *p = malloc((size_t)n * PAD);

	if (!p)
		exit(1);
	memset(p, 0, (size_t)n * PAD);
	printf("block %p %zu\n", p, (size_t)n * PAD);
	return p;
}

static void say_where(int index)
{
	volatile uint64_t local = 0;

	tls_var = (uint64_t)index;
	pthread_mutex_lock(&print_lock);
	printf("thread %d %p %p %p\n", index, (void *)&local, (void *)&tls_var, (void *)&errno);
	pthread_mutex_unlock(&print_lock);
	(void)local;
}

__attribute__((noinline)) static void count(volatile uint64_t *c)
{
	while (!stop)
		for (int i = 0; i < 1024; i++)
			*c = *c + 1;
}

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;

	say_where(w + 1);
	count(&counters[w * (PAD / 8)]);
	return NULL;
}

__attribute__((noinline)) static void *noise_alloc(size_t n)
{
	return malloc(n);
}

static void *noise(void *arg)
{
	void *ring[256] = { 0 };
	uint64_t s = 12345;
	unsigned i = 0;

	say_where((int)(intptr_t)arg);
	while (!stop) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		free(ring[i & 255]);
		ring[i & 255] = noise_alloc(s % 200 + 1);
		if (ring[i & 255])
			memset(ring[i & 255], 1, s % 200 + 1);
		i++;
	}
	for (i = 0; i < 256; i++)
		free(ring[i]);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[MAXW + 1];
	int nw = 2;
	double seconds = 1.0;
	struct timespec ts;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nw = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else {
			fprintf(stderr, "usage: objects_heap [-t WORKERS] [-s SECONDS]\n");
			return 2;
		}
	}
	if (nw < 1 || nw > MAXW)
		return 2;
	say_where(0);
	counters = alloc_counters(nw);
	for (int w = 0; w < nw; w++)
		pthread_create(&th[w], NULL, worker, (void *)(intptr_t)w);
	pthread_create(&th[nw], NULL, noise, (void *)(intptr_t)(nw + 1));
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	stop = 1;
	for (int w = 0; w <= nw; w++)
		pthread_join(th[w], NULL);
	free((void *)counters);
	fflush(stdout);
	return 0;
}
