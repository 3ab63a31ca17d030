/* SPDX-License-Identifier: BSD-3-Clause */
/* handoff.c — an initialisation handed to workers, as in XSBench
   (doc/detection.md §5.36): main allocates a table of SIZE MiB, fills it
   (PASSES passes, the last one leaving each line's final value), and only
   then starts W workers (threads 1..W) that look up random lines of it
   for LOOKUPS lookups each, never writing it. Each worker's first read of
   each line is a transfer from main, long after main's stores left the
   BulletinBoard; a worker re-reading a line it read already is not. The
   workers write nothing shared but their own padded result slot.
   With MODE "sweep" (session 21, §5.51) each worker instead reads its own
   slice of the table once, word by word in address order, with some
   arithmetic on each (a worker reading main's initialisation back: NW's
   matrices, a solver's input): each line of the slice is one transfer.
   Usage: handoff [WORKERS [LOOKUPS [SIZE_MIB [PASSES [MODE]]]]]  (default 2 20000000 16 16 random) */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t *table;
static size_t words;
static long lookups, nworkers;
static int sweep;
static struct {
	uint64_t v;
	char pad[56];
} result[64];

static void *worker(void *arg)
{
	long me = (long)arg;
	uint64_t x = 0x9e3779b97f4a7c15ull * (uint64_t)(me + 1), s = 0;

	if (sweep) {
		size_t from = words / (size_t)nworkers * (size_t)(me - 1), to = words / (size_t)nworkers * (size_t)me;

		for (size_t i = from; i < to; i++) {
			uint64_t v = table[i];

			for (int k = 0; k < 256; k++)
				v = v * 6364136223846793005ull + 1442695040888963407ull;
			s += v;
		}
		result[me].v = s;
		return NULL;
	}
	for (long i = 0; i < lookups; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		s += table[(x >> 11) % words] * (uint64_t)i;
	}
	result[me].v = s;
	return NULL;
}

int main(int argc, char **argv)
{
	long nw = argc > 1 ? atol(argv[1]) : 2, mib = argc > 3 ? atol(argv[3]) : 16;
	long passes = argc > 4 ? atol(argv[4]) : 16;
	pthread_t t[64];
	uint64_t sum = 0;

	lookups = argc > 2 ? atol(argv[2]) : 20000000;
	sweep = argc > 5 && argv[5][0] == 's';
	nworkers = nw;
	if (nw < 1 || nw > 63 || mib < 1 || passes < 1)
		return 2;
	words = (size_t)mib << 17;
	table = malloc(words * sizeof(uint64_t));
	if (!table)
		return 1;
	for (long p = 0; p < passes; p++)
		for (size_t i = 0; i < words; i++)
			table[i] = (i * 2654435761u) ^ (uint64_t)p;
	for (long i = 0; i < nw; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)) != 0)
			return 1;
	for (long i = 0; i < nw; i++)
		pthread_join(t[i], NULL);
	for (long i = 1; i <= nw; i++)
		sum += result[i].v;
	printf("handoff workers=%ld lookups=%ld size=%ld MiB sum=%llu\n", nw, lookups, mib,
	       (unsigned long long)sum);
	free(table);
	return 0;
}
