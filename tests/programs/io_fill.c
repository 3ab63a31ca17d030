/* SPDX-License-Identifier: BSD-3-Clause */
/* io_fill.c — a reader thread hands buffers the kernel filled to workers
   (tests/integration/io_fills.sh, doc/detection.md §5.75): main writes a
   scratch file of MIB MiB (argument 2, default 32), then reads it back
   with read() in 256 KiB chunks into a ring of 8 malloc'd buffers and
   hands each filled buffer to the workers (argument 1, default 2) in turn
   through a mutex and condition variables; a worker sums the buffer's
   bytes (16 passes, so that load samples land there) and gives it back.
   Main never stores to a buffer itself: its only "store" is the kernel's
   copy in read(), at io_fill.c's read call. Usage: io_fill [WORKERS [MIB]]. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (256 * 1024)
#define RING 8
#define MAXW 8

static unsigned char *buf[RING];
static size_t len[RING];
static int state[RING];             /* 0 free, 1 filled (for worker w = index % workers), 2 done */
static int stop, workers = 2;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t filled = PTHREAD_COND_INITIALIZER, freed = PTHREAD_COND_INITIALIZER;
static unsigned long long sums[MAXW];

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	unsigned long long s = 0;

	for (int k = me;; k = (k + workers) % RING) {
		pthread_mutex_lock(&mu);
		while (state[k] != 1 && !stop)
			pthread_cond_wait(&filled, &mu);
		if (state[k] != 1) {
			pthread_mutex_unlock(&mu);
			break;
		}
		pthread_mutex_unlock(&mu);
		for (int pass = 0; pass < 16; pass++)
			for (size_t i = 0; i < len[k]; i++)
				s += buf[k][i] * (unsigned)(pass + 1);   /* the worker's loads of main's data */
		pthread_mutex_lock(&mu);
		state[k] = 0;
		pthread_cond_broadcast(&freed);
		pthread_mutex_unlock(&mu);
	}
	sums[me] = s;
	return NULL;
}

int main(int argc, char **argv)
{
	int mib = argc > 2 ? atoi(argv[2]) : 32;
	char path[] = "/tmp/io_fill.XXXXXX";
	pthread_t th[MAXW];
	unsigned char *page;
	unsigned long long total = 0;
	int fd;

	workers = argc > 1 ? atoi(argv[1]) : 2;
	if (workers < 1 || workers > MAXW || RING % workers || mib < 1) {
		fprintf(stderr, "usage: io_fill [WORKERS (1, 2, 4 or 8) [MIB]]\n");
		return 2;
	}
	if ((fd = mkstemp(path)) < 0) {
		perror("mkstemp");
		return 1;
	}
	unlink(path);
	page = malloc(CHUNK);
	for (int i = 0; i < mib * 4; i++) {
		for (size_t j = 0; j < CHUNK; j++)
			page[j] = (unsigned char)(i * 31 + j);
		if (write(fd, page, CHUNK) != CHUNK) {
			perror("write");
			return 1;
		}
	}
	free(page);
	for (int k = 0; k < RING; k++)
		buf[k] = malloc(CHUNK);
	for (int w = 0; w < workers; w++)
		pthread_create(&th[w], NULL, worker, (void *)(long)w);
	lseek(fd, 0, SEEK_SET);
	for (int i = 0;; i++) {
		int k = i % RING;
		ssize_t r;

		pthread_mutex_lock(&mu);
		while (state[k] != 0)
			pthread_cond_wait(&freed, &mu);
		pthread_mutex_unlock(&mu);
		r = read(fd, buf[k], CHUNK);   /* the kernel fills the buffer: main's "store" */
		if (r <= 0)
			break;
		pthread_mutex_lock(&mu);
		len[k] = (size_t)r;
		state[k] = 1;
		pthread_cond_broadcast(&filled);
		pthread_mutex_unlock(&mu);
	}
	pthread_mutex_lock(&mu);
	stop = 1;
	pthread_cond_broadcast(&filled);
	pthread_mutex_unlock(&mu);
	for (int w = 0; w < workers; w++)
		pthread_join(th[w], NULL);
	for (int w = 0; w < workers; w++)
		total += sums[w];
	printf("io_fill workers=%d mib=%d sum=%llu\n", workers, mib, total);
	close(fd);
	return 0;
}
