/* SPDX-License-Identifier: BSD-3-Clause */
/* pool.c — pooled buffers refilled by whichever worker comes next, as in
   pigz (doc/detection.md §5.30): W workers (threads 1..W; main is 0)
   take a buffer from a FIFO pool (mutex), fill it chunk by chunk — each
   chunk computed in the worker's own heap block, then copied in with
   memcpy, as zlib copies its pending output into pigz's buffer — and put
   it back; the pool holds NBUF buffers of SIZE bytes, each worker
   allocating its share at its start. A buffer's lines move from the
   worker that filled it last to the next one (write after write), a few
   jobs later — far longer than a watchpoint set lives one sampling
   interval. Nothing else is shared but the pool's lock and queue.
   Usage: pool [WORKERS [FILLS [SIZE_KIB]]]  (default 2 4000 64) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define NBUF 16
#define CHUNK 4096   /* bytes computed, then copied */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *pool[NBUF];
static unsigned head, count, made;
static size_t words;
static long fills;
static volatile uint64_t sink;

static uint64_t *get_buf(void)
{
	uint64_t *b = NULL;

	pthread_mutex_lock(&lock);
	if (count) {
		b = pool[head];
		head = (head + 1) % NBUF;
		count--;
	}
	pthread_mutex_unlock(&lock);
	return b;
}

static void put_buf(uint64_t *b)
{
	pthread_mutex_lock(&lock);
	pool[(head + count) % NBUF] = b;
	count++;
	pthread_mutex_unlock(&lock);
}

static int nworkers;

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
	uint64_t *work = malloc(CHUNK);      /* the worker's own state */

	if (!work) {
		perror("malloc");
		exit(1);
	}
	for (int k = (int)(uintptr_t)arg - 1; k < NBUF; k += nworkers) {
		uint64_t *b = malloc(words * sizeof *b);

		if (!b) {
			perror("malloc");
			exit(1);
		}
		memset(b, 0, words * sizeof *b);
		pthread_mutex_lock(&lock);
		made++;
		pthread_mutex_unlock(&lock);
		put_buf(b);
	}
	for (long n = 0; n < fills; n++) {
		uint64_t *b;

		while (!(b = get_buf()))
			sched_yield();
		for (size_t off = 0; off < words; off += CHUNK / 8) {
			size_t nw = words - off < CHUNK / 8 ? words - off : CHUNK / 8;

			/* a few dependent operations per word, several rounds: the
			   computing is most of the work, the copy a small part */
			for (int round = 0; round < 4; round++)
				for (size_t i = 0; i < nw; i++) {
					x ^= x << 13;
					x ^= x >> 7;
					x ^= x << 17;
					work[i] += x;
				}
			memcpy(b + off, work, nw * 8);
		}
		sink += b[words / 2];
		put_buf(b);
	}
	free(work);
	return NULL;
}

int main(int argc, char **argv)
{
	int w = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t t[64];

	fills = argc > 2 ? atol(argv[2]) : 4000;
	words = (argc > 3 ? (size_t)atol(argv[3]) : 64) * 1024 / sizeof(uint64_t);
	nworkers = w;
	if (w < 1 || w > 64 || fills < 1 || words < 8) {
		fprintf(stderr, "usage: pool [WORKERS [FILLS [SIZE_KIB]]]\n");
		return 2;
	}
	for (int i = 0; i < w; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1)) != 0) {
			perror("pthread_create");
			return 1;
		}
	for (int i = 0; i < w; i++)
		pthread_join(t[i], NULL);
	printf("pool: %d workers, %ld fills of %zu KiB, %u buffers\n", w, fills, words * 8 / 1024, made);
	return 0;
}
