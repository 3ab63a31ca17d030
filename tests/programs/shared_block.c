/* SPDX-License-Identifier: BSD-3-Clause */
/* shared_block.c — an OpenMP region's shared-variable block, by hand
   (doc/detection.md §5.31): every round the main thread fills the eight
   fields of one cache line, one store after another, then publishes the
   round; the worker reads field 6 of it over and over, then says it is
   done. In exact mode's model each of the worker's first reads of a round
   is a true transfer (the main thread wrote the whole line), and the main
   thread's stores after the worker's reads are none (it holds the line:
   an upgrade). Usage: shared_block [ROUNDS] */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>

struct block {
	volatile uint64_t f[8];
} __attribute__((aligned(64)));

static struct block blk;
static _Alignas(64) atomic_ulong gen;
static _Alignas(64) atomic_ulong done;
static unsigned long rounds = 3000;
static volatile uint64_t sink;

static uint64_t spin_work(uint64_t x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

static void *worker(void *arg)
{
	uint64_t s = 0;

	(void)arg;
	for (unsigned long r = 1; r <= rounds; r++) {
		while (atomic_load_explicit(&gen, memory_order_acquire) < r)
			;
		/* a division on each load: the samples land on it, right
		   after the load (the previous instruction's address) */
		for (int i = 0; i < 4000; i++)
			s += (s + 1000003u) / (blk.f[6] + (uint64_t)i + 1u);
		atomic_store_explicit(&done, r, memory_order_release);
	}
	sink = s;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w;
	uint64_t x = 1;

	if (argc > 1)
		rounds = strtoul(argv[1], NULL, 10);
	if (pthread_create(&w, NULL, worker, NULL))
		return 1;
	for (unsigned long r = 1; r <= rounds; r++) {
		/* one store instruction per field, as a compiler fills an
		   omp region's block (a loop's one moving store would count
		   as the whole line) */
		blk.f[0] = r;
		blk.f[1] = r + 1;
		blk.f[2] = r + 2;
		blk.f[3] = r + 3;
		blk.f[4] = r + 4;
		blk.f[5] = r + 5;
		blk.f[6] = r + 6;
		blk.f[7] = r + 7;
		atomic_store_explicit(&gen, r, memory_order_release);
		x = spin_work(x, 40000);
		while (atomic_load_explicit(&done, memory_order_acquire) < r)
			;
	}
	pthread_join(w, NULL);
	sink = x;
	printf("%lu rounds\n", rounds);
	return 0;
}
