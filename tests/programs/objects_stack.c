/* SPDX-License-Identifier: BSD-3-Clause */
/* objects_stack.c — stack locals shared between threads, for the analyzer's
   names of stack objects (tests/integration/objects_stack.sh; built at -O2
   and, as objects_stack_O0, at -O0).
     objects_stack [-s SECONDS]      main's local array slots[4] of
                                     { long a; long b; } (one cache line):
                                     worker 1 increments slots[1].a, worker 2
                                     slots[2].a, main waits in pthread_join
     objects_stack -k [-s SECONDS]   worker 1's local buf[8]: worker 1 writes
                                     buf[0], worker 2 writes buf[3]
   Workers are measured threads 1 and 2. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct slot {
	long a;
	long b;
};

static volatile int stop;
static volatile long *volatile shared_buf;   /* worker 1's stack buffer */

__attribute__((noinline)) static void bump(volatile long *c)
{
	while (!stop)
		for (int i = 0; i < 1024; i++)
			*c = *c + 1;
}

static void *slot_worker(void *arg)
{
	bump(&((volatile struct slot *)arg)->a);
	return NULL;
}

/* Owns the buffer: its frame stays live until the writer is done. */
static void *buf_owner(void *arg)
{
	volatile long buf[8] __attribute__((aligned(64)));

	(void)arg;
	memset((void *)buf, 0, sizeof(buf));
	shared_buf = buf;
	bump(&buf[0]);
	while (shared_buf)
		;
	return NULL;
}

static void *buf_writer(void *arg)
{
	volatile long *b;

	(void)arg;
	while (!(b = shared_buf) && !stop)
		;
	if (b)
		bump(&b[3]);
	shared_buf = NULL;
	return NULL;
}

int main(int argc, char **argv)
{
	struct slot slots[4] __attribute__((aligned(64)));
	void *(*fn[2])(void *) = { slot_worker, slot_worker };
	void *arg[2] = { &slots[1], &slots[2] };
	double seconds = 1.0;
	struct timespec ts;
	pthread_t th[2];

	memset(slots, 0, sizeof(slots));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-k")) {
			fn[0] = buf_owner;
			fn[1] = buf_writer;
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else {
			fprintf(stderr, "usage: objects_stack [-k] [-s SECONDS]\n");
			return 2;
		}
	}
	for (int w = 0; w < 2; w++)
		pthread_create(&th[w], NULL, fn[w], arg[w]);
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	stop = 1;
	for (int w = 0; w < 2; w++)
		pthread_join(th[w], NULL);
	printf("slots %ld %ld\n", slots[1].a, slots[2].a);
	return 0;
}
