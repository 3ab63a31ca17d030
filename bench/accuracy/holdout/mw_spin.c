/* SPDX-License-Identifier: BSD-3-Clause */
#include "holdout.h"
static void wait_for(atomic_int *f, int v) { for (int n = 1; atomic_load_explicit(f, memory_order_acquire) != v; n++) if (n % 256 == 0) sched_yield(); }
/* mw_spin.c — holdout set (README): master -> workers through per-worker mailboxes, acquire/release flags; notes at the end */
struct box { atomic_int flag; long job; double out; } __attribute__((aligned(64)));
static struct box box[ACC_MAXT]; /* box[w]: flag (+0), job (+8), out (+16) in one line */
static double spin_work(long j) { double x = (double)(j % 89); for (int i = 0; i < 250; i++) x = x * 0.999 + 1.0; return x; }
static void *worker(void *arg)
{	int me = (int)(long)arg; for (;;) { wait_for(&box[me].flag, 1);
		long j = box[me].job; if (j < 0) return NULL;
		box[me].out = spin_work(j);
		atomic_store_explicit(&box[me].flag, 0, memory_order_release);
	} }
int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "master -> workers through per-worker spin mailboxes (THREADS >= 2, includes the master)");
	long rounds = acc_iters(a, 20000); pthread_t th[ACC_MAXT]; double sum = 0, mine = 0;
	ho_min_threads(a, 2, argv[0], "master -> workers through per-worker spin mailboxes (THREADS >= 2, includes the master)");
	for (int w = 1; w < a.threads; w++) acc_start(&th[w], worker, (void *)(long)w);
	for (long i = 0; i < rounds; i++) {
		/* publish one job a worker: its word, then the flag */
		for (int w = 1; w < a.threads; w++)
			{ box[w].job = i * ACC_MAXT + w; atomic_store_explicit(&box[w].flag, 1, memory_order_release); }
		mine += spin_work(i); /* the master's own job meanwhile */
		for (int w = 1; w < a.threads; w++) {
			wait_for(&box[w].flag, 0);
			sum += box[w].out;
		}
	}
	for (int w = 1; w < a.threads; w++)
		{ box[w].job = -1; atomic_store_explicit(&box[w].flag, 1, memory_order_release); }
	for (int w = 1; w < a.threads; w++) acc_join(th[w]);
	printf("mw_spin threads=%d rounds=%ld sum=%.6e mine=%.6e\n", a.threads, rounds, sum, mine);
	return 0;
}

/* Notes. The owner-style master-worker program with spin flags (written in
   session 18 as /tmp/rel18/own/mw_spin.c, lost with that machine, recreated
   in session 24 from what doc/detection.md §5.39, §5.49, §5.53 and §5.58
   quote of it):
   - wait_for :3, the poll loop (an acquire load of the flag, sched_yield
     every 256 spins; -O0 copies the pointer through a stack slot);
   - box[w]: flag, job and out in one 64-byte line (`store box+0`, `load
     box+8`, `load box+16`);
   - worker :11 its store of `out`, :12 its flag store (release), then it
     polls its own flag again;
   - main :23 the job's store and the flag's (one line, so exact's code
     pair `main :23 <-> wait_for :3` is partly true, partly false), :27
     `sum += box[w].out`;
   - scale 1 is short on purpose (20,000 rounds at -O2, 6,000 at -O0;
     20-60 ms natively, 23-98 samples a run: §5.53); `SCALE 10` is
     session 22's `mw_spin10`.
   Designed communication: true sharing main <-> every worker on box[w];
   false sharing when a poller re-reads the flag between the other side's
   store of job/out and its flag store (a coin flip between runs: §5.39). */
