/* SPDX-License-Identifier: BSD-3-Clause */
/* heap_atomic.c — holdout set (README): per-thread counters, 16-byte
   records in one calloc'd block, each updated with atomic_fetch_add after
   inline work; notes at the end. */
#include "holdout.h"

struct rec {
	_Atomic long count;
	long tid;               /* set by main before the start */
};

static struct rec *recs;        /* THREADS records, 4 to a line */
static long iters;

static void *worker(void *arg)
{
	int me = (int)(long)arg;

	for (long i = 0; i < iters; i++) {
		double x = (double)i;

		for (int k = 0; k < 20; k++)            /* the work, inline */
			x = x * 1.0000001 + 0.5;
		atomic_fetch_add(&recs[me].count, 1 + ((long)x & 1));
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "per-thread atomic counters, 16-byte records in one heap block");
	pthread_t t[ACC_MAXT];
	long count = 0;

	iters = acc_iters(a, 12000000 / a.threads);
	if (!(recs = calloc((size_t)a.threads, sizeof *recs))) { perror("calloc"); return 1; }
	for (int i = 0; i < a.threads; i++)
		recs[i].tid = i + 1;
	for (int i = 0; i < a.threads; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (int i = 0; i < a.threads; i++)
		acc_join(t[i]);
	for (int i = 0; i < a.threads; i++)
		count += atomic_load(&recs[i].count) * recs[i].tid;
	printf("heap_atomic threads=%d iters=%ld count=%ld\n", a.threads, iters, count);
	free(recs);
	return 0;
}

/* Notes. The owner-style heap-counter program (written in session 18 as
   /tmp/rel18/own/heap_atomic.c, lost with that machine, recreated in
   session 24 from doc/accuracy.md "Session 18"/"19" and detection.md
   §5.39: per-thread counters, 16-byte records in one calloc'd block,
   atomic_fetch_add; one atomic add an iteration here — a first version
   with two, on two lines, split exact's code pair between `:24 <-> :25`
   and `:24 <-> :24`, which the originals' results never showed).
   Designed communication: false sharing between the
   workers whose records share a line (threads 1..THREADS; where the block
   crosses a line depends on the heap), and main's final reads (true). A
   run whose threads took turns (a loaded machine, -O0 under exact mode's
   instrumentation) counts a few hundred transfers: its reference is
   negligible (§5.39); take references quiet. */
