/* SPDX-License-Identifier: BSD-3-Clause */
/* patterns.c — producer->consumer communication through plain stores and
   loads, with private work between (issue #14): the patterns a timer
   sampler misses because a store never stalls retirement. Worker w
   (0-based) is measured thread w+1; the main thread only creates and joins.
   Each shared access is a separate, non-inlined function, so a profile
   names the storing and the loading code.

     ring      each worker stores its own 64-byte-aligned slot (ring_store)
               and loads its left neighbour's (ring_load). Designed cells:
               (w+1, left+1), true sharing only.
     mw        worker 0 is the master: it stores a task word (mw_post) and
               loads every worker's result slot (mw_collect); the other
               workers load the task word (mw_fetch) and store their result
               slot (mw_reply). Designed cells: (1, w+1), true sharing.
     queue     workers 2k (producer) and 2k+1 (consumer) share a
               single-producer/single-consumer ring of 256 words: q_push
               stores an item and the head index, q_pop loads them and
               stores the tail index. Designed cells: (2k+1, 2k+2), true.
     pairwise  workers 2k and 2k+1 increment the two adjacent fields of one
               static struct (pair_inc_a / pair_inc_b): cells (2k+1, 2k+2),
               false sharing only.
     heap      per-worker counters carved from one calloc'd array
               (heap_inc): false sharing among all workers.
     pairint   as pairwise with int fields (pair_int_a / pair_int_b): both
               in one 8-byte watchpoint chunk; at -O0 the `+=` loads
               through the pointer it overwrites (detection.md §5.33).

   -w N: private work per iteration (default 64 random updates of a private
   64 KiB array). Built at -O2 (patterns) and -O0 (patterns_O0).

   Usage: patterns MODE [-t WORKERS] [-s SECONDS] [-w WORK] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINE 64
#define MAXW 64
#define PRIV_WORDS (1u << 13)     /* 64 KiB per worker */
#define QLEN 256

struct slot { volatile uint64_t v; char pad[LINE - 8]; } __attribute__((aligned(LINE)));
struct pair { long a, b; } __attribute__((aligned(LINE)));
struct ipair { int a, b; } __attribute__((aligned(LINE)));
struct queue {
	struct slot head, tail;
	volatile uint64_t buf[QLEN] __attribute__((aligned(LINE)));
};

static struct slot ring[MAXW];
static struct slot task, result[MAXW];
static struct queue queues[MAXW / 2];
static struct pair pairs[MAXW / 2];
static struct ipair ipairs[MAXW / 2];
static long *heap_cnt;

static const char *mode;
static int kind;          /* index in modes[] */
static const char *const modes[] = { "ring", "mw", "queue", "pairwise", "heap", "pairint" };
#define NMODES 6
static int nworkers = 4, work = 64;
static double seconds = 1.0;
static struct slot stop;
static uint64_t iters[MAXW];

static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

__attribute__((noinline)) static uint64_t private_work(uint64_t *p, uint64_t *s)
{
	uint64_t x = 0;

	for (int i = 0; i < work; i++) {
		uint64_t k = rnd(s) & (PRIV_WORDS - 1);
		p[k] += i;
		x += p[k ^ 1];
	}
	return x;
}

__attribute__((noinline)) void ring_store(struct slot *me, uint64_t v) { me->v = v; }
__attribute__((noinline)) uint64_t ring_load(const struct slot *left) { return left->v; }
__attribute__((noinline)) void mw_post(uint64_t v) { task.v = v; }
__attribute__((noinline)) uint64_t mw_collect(int w) { return result[w].v; }
__attribute__((noinline)) uint64_t mw_fetch(void) { return task.v; }
__attribute__((noinline)) void mw_reply(int w, uint64_t v) { result[w].v = v; }

__attribute__((noinline)) int q_push(struct queue *q, uint64_t x)
{
	uint64_t h = q->head.v;

	if (h - q->tail.v >= QLEN)
		return 0;
	q->buf[h % QLEN] = x;
	__atomic_store_n(&q->head.v, h + 1, __ATOMIC_RELEASE);
	return 1;
}

__attribute__((noinline)) int q_pop(struct queue *q, uint64_t *x)
{
	uint64_t t = q->tail.v;

	if (__atomic_load_n(&q->head.v, __ATOMIC_ACQUIRE) == t)
		return 0;
	*x = q->buf[t % QLEN];
	__atomic_store_n(&q->tail.v, t + 1, __ATOMIC_RELEASE);
	return 1;
}

__attribute__((noinline)) void pair_inc_a(struct pair *p) { p->a += 1; }
__attribute__((noinline)) void pair_inc_b(struct pair *p) { p->b += 1; }
__attribute__((noinline)) void heap_inc(long *c) { *c += 1; }
__attribute__((noinline)) void pair_int_a(struct ipair *p) { p->a += 1; }
__attribute__((noinline)) void pair_int_b(struct ipair *p) { p->b += 1; }

static void *worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t s = 0x9e3779b97f4a7c15ull * (uint64_t)(w + 1), n = 0, acc = 0, x;
	uint64_t *p = calloc(PRIV_WORDS, sizeof *p);

	if (!p)
		abort();
	while (!stop.v) {
		for (int i = 0; i < 64; i++, n++) {
			if (kind == 0) {
				ring_store(&ring[w], n);
				acc += private_work(p, &s);
				acc += ring_load(&ring[(w + nworkers - 1) % nworkers]);
			} else if (kind == 1) {
				if (w == 0) {
					mw_post(n);
					acc += private_work(p, &s);
					for (int k = 1; k < nworkers; k++)
						acc += mw_collect(k);
				} else {
					x = mw_fetch();
					acc += private_work(p, &s);
					mw_reply(w, x + acc);
				}
			} else if (kind == 2) {
				struct queue *q = &queues[w / 2];
				if (w % 2 == 0)
					acc += (uint64_t)q_push(q, n);
				else if (q_pop(q, &x))
					acc += x;
				acc += private_work(p, &s);
			} else if (kind == 3) {
				if (w % 2 == 0)
					pair_inc_a(&pairs[w / 2]);
				else
					pair_inc_b(&pairs[w / 2]);
				acc += private_work(p, &s);
			} else if (kind == 4) {
				heap_inc(&heap_cnt[w]);
				acc += private_work(p, &s);
			} else if (kind == 5) {
				if (w % 2 == 0)
					pair_int_a(&ipairs[w / 2]);
				else
					pair_int_b(&ipairs[w / 2]);
				acc += private_work(p, &s);
			}
		}
	}
	iters[w] = n + (acc & 0);   /* acc kept alive */
	free(p);
	return (void *)(uintptr_t)acc;
}

int main(int argc, char **argv)
{
	pthread_t th[MAXW];
	struct timespec ts;
	uint64_t total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: patterns ring|mw|queue|pairwise|heap|pairint [-t WORKERS] [-s SECONDS] [-w WORK]\n");
		return 2;
	}
	mode = argv[1];
	for (kind = 0; kind < NMODES && strcmp(mode, modes[kind]); kind++)
		;
	if (kind == NMODES) {
		fprintf(stderr, "patterns: unknown mode '%s'\n", mode);
		return 2;
	}
	for (int i = 2; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-t"))
			nworkers = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-s"))
			seconds = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "-w"))
			work = atoi(argv[i + 1]);
		else {
			fprintf(stderr, "patterns: unknown option '%s'\n", argv[i]);
			return 2;
		}
	}
	if (nworkers < 2 || nworkers > MAXW || seconds <= 0 || work < 0) {
		fprintf(stderr, "patterns: need 2..%d workers, a positive time, work >= 0\n", MAXW);
		return 2;
	}
	heap_cnt = calloc((size_t)nworkers, sizeof *heap_cnt);
	if (!heap_cnt)
		return 1;
	for (int w = 0; w < nworkers; w++)
		if (pthread_create(&th[w], NULL, worker, (void *)(intptr_t)w) != 0) {
			perror("pthread_create");
			return 1;
		}
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	stop.v = 1;
	for (int w = 0; w < nworkers; w++) {
		pthread_join(th[w], NULL);
		total += iters[w];
	}
	printf("%s: %d workers, %llu iterations\n", mode, nworkers, (unsigned long long)total);
	free(heap_cnt);
	return 0;
}
