/* SPDX-License-Identifier: BSD-3-Clause */
/* objects_static.c — static and stack false sharing for the analyzer's data
   objects (tests/integration/objects_e2e.sh).
     objects_static [-s SECONDS]      two workers increment stats[3].hits and
                                      stats[3].misses: two fields of one
                                      static array of structs, one cache line
     objects_static -p [-s SECONDS]   the same workers on stats[0].hits and
                                      stats[4].misses: other lines, no sharing
     objects_static -k [-s SECONDS]   a buffer on worker 1's stack: worker 1
                                      writes buf[0], worker 2 writes buf[1]
   Workers are measured threads 1 and 2. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct stat_s {
	long hits;
	long misses;
};

/* Aligned to a line, so stats[3] (bytes 48..63) shares a line with nothing
   else of the array's hot fields and stats[4] starts the next one. */
struct stat_s stats[8] __attribute__((aligned(64)));

static volatile int stop;
static volatile long *volatile shared_buf;   /* worker 1's stack buffer */

__attribute__((noinline)) static void bump(volatile long *c)
{
	while (!stop)
		for (int i = 0; i < 1024; i++)
			*c = *c + 1;
}

static void *hits_worker(void *arg)
{
	bump(arg ? &stats[0].hits : &stats[3].hits);
	return NULL;
}

static void *misses_worker(void *arg)
{
	bump(arg ? &stats[4].misses : &stats[3].misses);
	return NULL;
}

/* Owns the buffer: its stack frame stays live until stop. */
static void *stack_owner(void *arg)
{
	volatile long buf[8] __attribute__((aligned(64)));

	(void)arg;
	memset((void *)buf, 0, sizeof(buf));
	shared_buf = buf;
	bump(&buf[0]);
	while (shared_buf)   /* the writer may still be using it */
		;
	return NULL;
}

static void *stack_writer(void *arg)
{
	volatile long *b;

	(void)arg;
	while (!(b = shared_buf) && !stop)
		;
	if (b)
		bump(&b[1]);
	shared_buf = NULL;
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*fn[2])(void *) = { hits_worker, misses_worker };
	void *arg = NULL;
	double seconds = 1.0;
	struct timespec ts;
	pthread_t th[2];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-p")) {
			arg = (void *)1;
		} else if (!strcmp(argv[i], "-k")) {
			fn[0] = stack_owner;
			fn[1] = stack_writer;
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else {
			fprintf(stderr, "usage: objects_static [-p | -k] [-s SECONDS]\n");
			return 2;
		}
	}
	for (int w = 0; w < 2; w++)
		pthread_create(&th[w], NULL, fn[w], arg);
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	stop = 1;
	for (int w = 0; w < 2; w++)
		pthread_join(th[w], NULL);
	printf("stats %p\n", (void *)stats);
	return 0;
}
