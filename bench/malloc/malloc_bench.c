/* SPDX-License-Identifier: BSD-3-Clause */
/* malloc_bench.c — a malloc-heavy workload for the allocation-tracking
   overhead (bench/malloc/run.sh): T threads each run N operations on a
   private window of L live objects. One operation retires the oldest
   object (reads it into a checksum, frees it) and creates a new one of a
   random size in [16, S] bytes: malloc, then a constructor that writes its
   header and fills its payload, plus W rounds of arithmetic on it (the
   "work" a program does per object; 0 = allocation churn only). Objects
   come from three call sites (node, leaf, string-like), so the allocation
   context cache sees more than one context. The N operations run R times
   (-r); each thread times every round with its own CPU clock. Prints the
   wall time per operation, the CPU time per operation of the fastest round
   (averaged over the threads: the figure least disturbed by other load on
   the machine), and the checksum (so nothing is optimized away).
   Usage: malloc_bench [-t THREADS] [-n OPS] [-l LIVE] [-s MAXSIZE] [-w WORK] [-r ROUNDS] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct obj {
	uint64_t key;
	uint32_t size, kind;
	unsigned char payload[];
};

static long nops = 4000000;
static int nthreads = 2, live = 1024, work = 4, rounds = 1;
static size_t maxsize = 128;
static uint64_t sums[64];
static double best_cpu[64];

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void construct(struct obj *o, uint64_t key, size_t size, uint32_t kind)
{
	o->key = key;
	o->size = (uint32_t)size;
	o->kind = kind;
	for (size_t i = 0; i < size - sizeof(*o); i++)
		o->payload[i] = (unsigned char)(key + i);
	for (int r = 0; r < work; r++)
		o->key = o->key * 6364136223846793005ull + o->payload[r % (size - sizeof(*o))];
}

__attribute__((noinline)) static struct obj *new_node(uint64_t key, size_t size)
{
	struct obj *o = malloc(size);

	if (o)
		construct(o, key, size, 0);
	return o;
}

__attribute__((noinline)) static struct obj *new_leaf(uint64_t key, size_t size)
{
	struct obj *o = malloc(size);

	if (o)
		construct(o, key, size, 1);
	return o;
}

__attribute__((noinline)) static struct obj *new_string(uint64_t key, size_t size)
{
	struct obj *o = calloc(1, size);

	if (o)
		construct(o, key, size, 2);
	return o;
}

/* One round: N operations on the window. */
static uint64_t round_ops(struct obj **ring, uint64_t *s)
{
	uint64_t sum = 0;

	for (long op = 0; op < nops; op++) {
		struct obj **slot = &ring[op % live];
		uint64_t r = rnd(s);
		size_t size = sizeof(struct obj) + 1 + (r >> 8) % (maxsize - sizeof(struct obj));

		if (*slot) {
			sum += (*slot)->key + (*slot)->payload[0];
			free(*slot);
		}
		switch (r % 4) {
		case 0: case 1: *slot = new_node(r, size); break;
		case 2:         *slot = new_leaf(r, size); break;
		default:        *slot = new_string(r, size); break;
		}
		if (!*slot)
			exit(1);
	}
	return sum;
}

static void *run(void *arg)
{
	int id = (int)(intptr_t)arg;
	uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(id + 1), sum = 0;
	struct obj **ring = calloc((size_t)live, sizeof(*ring));

	if (!ring)
		exit(1);
	best_cpu[id] = 1e300;
	for (int round = 0; round < rounds; round++) {
		double c0 = thread_cpu(), c1;
		sum += round_ops(ring, &s);
		c1 = thread_cpu();
		if (c1 - c0 < best_cpu[id])
			best_cpu[id] = c1 - c0;
	}
	for (int i = 0; i < live; i++)
		free(ring[i]);
	free(ring);
	sums[id] = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	struct timespec t0, t1;
	uint64_t sum = 0;
	double ns, cpu = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			nops = atol(argv[++i]);
		else if (!strcmp(argv[i], "-l") && i + 1 < argc)
			live = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-s") && i + 1 < argc)
			maxsize = (size_t)atol(argv[++i]);
		else if (!strcmp(argv[i], "-w") && i + 1 < argc)
			work = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: malloc_bench [-t THREADS] [-n OPS] [-l LIVE] [-s MAXSIZE] "
			        "[-w WORK] [-r ROUNDS]\n");
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > 64 || live < 1 || maxsize < sizeof(struct obj) + 2 || work < 0 ||
	    rounds < 1)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, run, (void *)(intptr_t)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (int i = 0; i < nthreads; i++) {
		sum += sums[i];
		cpu += best_cpu[i] / nthreads;
	}
	ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
	printf("malloc_bench: %d threads x %d x %ld ops, live %d, size 16..%zu, work %d: "
	       "wall %.1f ns/op, cpu %.1f ns/op (checksum %llx)\n", nthreads, rounds, nops, live,
	       maxsize, work, ns / ((double)nops * rounds), cpu / (double)nops,
	       (unsigned long long)sum);
	return 0;
}
