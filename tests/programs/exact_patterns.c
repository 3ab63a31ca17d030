/* SPDX-License-Identifier: BSD-3-Clause */
/* exact_patterns.c — communication patterns whose exact transfer counts
   follow from the ownership model's rules (lib/exact/model.c), for the
   exact-mode integration tests (built there with hpcrun-comm-cc). Rounds
   are separated by pthread barriers (libc, uninstrumented), so the counts
   do not depend on the schedule. Usage: exact_patterns MODE [THREADS] [ROUNDS]
     ring     worker i stores its slot (own line), then loads slot i-1:
              THREADS true transfers per round, on the ring cells
     pairs    workers (0,1), (2,3)... ping-pong a word each way on their
              pair's line: 2 true transfers per round per pair
     fields   worker i does fs_counters.f[i] += 1 (adjacent fields of one
              static line): about THREADS false transfers per round
     private  each worker updates its own padded heap block: no transfer
     sweep    round r: worker i does heap_sweep[r][i] += 1 (one malloc'd
              array, a new row of adjacent longs each round): the heap
              pattern at a new address every round, so every transfer is
              an event record of its own (the record cap's test)
     heap     worker i does heap_counters[i] += 1 (one malloc'd array,
              adjacent longs): false sharing on a heap object
     copy     worker i memcpy's 256 bytes into its mailbox, then memcpy's
              worker i-1's out (libc calls, seen through the runtime's
              memcpy): 4 true transfers (4 lines) per round on the ring cells */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 64

struct slot { long v; char pad[56]; } __attribute__((aligned(64)));
struct fs_counters { long f[8]; } __attribute__((aligned(64)));

static struct slot ring_slots[MAXT];
static struct slot pair_lines[MAXT / 2];
struct fs_counters fs_counters;
static long *private_blocks[MAXT];
static long *heap_counters;
static long (*heap_sweep)[8];
static char mailbox[MAXT][256] __attribute__((aligned(64)));
static char inbox[MAXT][256] __attribute__((aligned(64)));
static char outbox[MAXT][256] __attribute__((aligned(64)));
static long results[MAXT];
static pthread_barrier_t bar;
static int nthreads, rounds;
static const char *mode;

__attribute__((noinline)) static void ring_store(int me, long v) { ring_slots[me].v = v; }
__attribute__((noinline)) static long ring_load(int me) { return ring_slots[(me + nthreads - 1) % nthreads].v; }
__attribute__((noinline)) static void pair_store(int me, long v) { ((long *)&pair_lines[me / 2])[me % 2] = v; }
__attribute__((noinline)) static long pair_load(int me) { return ((long *)&pair_lines[me / 2])[1 - me % 2]; }
__attribute__((noinline)) static void field_add(int me) { fs_counters.f[me] += 1; }
__attribute__((noinline)) static void heap_add(int me) { heap_counters[me] += 1; }
__attribute__((noinline)) static void sweep_add(int me, int r) { heap_sweep[r][me] += 1; }
__attribute__((noinline)) static void private_work(int me, long r) { private_blocks[me][r % 8] += r; }

static void *worker(void *p)
{
	int me = (int)(long)p;
	long s = 0;

	for (int r = 0; r < rounds; r++) {
		if (!strcmp(mode, "ring")) {
			ring_store(me, r);
			pthread_barrier_wait(&bar);
			s += ring_load(me);
		} else if (!strcmp(mode, "pairs")) {
			if (me % 2 == 0)
				pair_store(me, r);
			pthread_barrier_wait(&bar);
			if (me % 2 == 1) {
				s += pair_load(me);
				pair_store(me, r);
			}
			pthread_barrier_wait(&bar);
			if (me % 2 == 0)
				s += pair_load(me);
		} else if (!strcmp(mode, "copy")) {
			outbox[me][r % 256] = (char)r;
			memcpy(mailbox[me], outbox[me], sizeof mailbox[me]);
			pthread_barrier_wait(&bar);
			memcpy(inbox[me], mailbox[(me + nthreads - 1) % nthreads], sizeof inbox[me]);
			s += inbox[me][r % 256];
		} else if (!strcmp(mode, "heap")) {
			heap_add(me);
		} else if (!strcmp(mode, "sweep")) {
			sweep_add(me, r);
		} else if (!strcmp(mode, "fields")) {
			field_add(me);
		} else {
			private_work(me, r);
		}
		pthread_barrier_wait(&bar);
	}
	results[me] = s;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[MAXT];

	mode = argc > 1 ? argv[1] : "ring";
	nthreads = argc > 2 ? atoi(argv[2]) : 4;
	rounds = argc > 3 ? atoi(argv[3]) : 1000;
	if (nthreads < 2 || nthreads > 8 || rounds < 1 ||
	    (strcmp(mode, "ring") && strcmp(mode, "pairs") && strcmp(mode, "fields") && strcmp(mode, "private") &&
	     strcmp(mode, "copy") && strcmp(mode, "heap") && strcmp(mode, "sweep"))) {
		fprintf(stderr, "usage: exact_patterns ring|pairs|fields|private|copy|heap|sweep [THREADS 2..8] [ROUNDS]\n");
		return 2;
	}
	for (int i = 0; i < nthreads; i++) {
		if (posix_memalign((void **)&private_blocks[i], 4096, 4096))
			return 1;
		memset(private_blocks[i], 0, 4096);
	}
	heap_counters = calloc((size_t)nthreads, sizeof *heap_counters);
	heap_sweep = calloc((size_t)rounds, sizeof *heap_sweep);
	if (!heap_counters || !heap_sweep)
		return 1;
	pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
	for (long i = 0; i < nthreads; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("%s: %d threads, %d rounds, %ld %ld\n", mode, nthreads, rounds, results[0], fs_counters.f[0]);
	return 0;
}
