/* SPDX-License-Identifier: BSD-3-Clause */
/* mw_cond.c — holdout set (README): master -> workers through a mutex + condition-variable queue; notes at the end */
#include "holdout.h"
#define QN 64
static struct { long task[QN]; int head, tail, done; pthread_mutex_t mu; pthread_cond_t ne, nf; } q __attribute__((aligned(64))) =
	{ .mu = PTHREAD_MUTEX_INITIALIZER, .ne = PTHREAD_COND_INITIALIZER, .nf = PTHREAD_COND_INITIALIZER };
double *results, main_sum; /* results[t]: the workers' outputs (calloc'd); main_sum: main's reads of them */
static double spin_work(long t) { double x = (double)(t % 97); for (int i = 0; i < 1200; i++) x = x * 0.999 + 1.0; return x; }
static void *worker(void *arg)
{	(void)arg; for (;;) { pthread_mutex_lock(&q.mu);
		while (q.head == q.tail && !q.done) pthread_cond_wait(&q.ne, &q.mu);
		if (q.head == q.tail) { pthread_mutex_unlock(&q.mu); return NULL; }
		long t = q.task[q.head % QN]; q.head++;
		pthread_cond_signal(&q.nf);
		pthread_mutex_unlock(&q.mu);
		results[t] = spin_work(t);
	} }
int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "master -> workers through a mutex + condvar queue (THREADS >= 2, includes the master)");
	long n = acc_iters(a, 65536); pthread_t th[ACC_MAXT]; double sum = 0, check = 0;
	ho_min_threads(a, 2, argv[0], "master -> workers through a mutex + condvar queue (THREADS >= 2, includes the master)");
	if (!(results = calloc((size_t)n, sizeof *results))) { perror("calloc"); return 1; }
	for (int i = 1; i < a.threads; i++) acc_start(&th[i], worker, NULL);
	/* the master: push task t (waiting while the queue is full), then read
	   the result of task t - QN, which a worker may not have stored yet */
	for (long t = 0; t < n; t++) {
		pthread_mutex_lock(&q.mu);
		while (q.tail - q.head == QN) pthread_cond_wait(&q.nf, &q.mu);
		q.task[q.tail % QN] = t; q.tail++;
		pthread_cond_signal(&q.ne);
		pthread_mutex_unlock(&q.mu);
		if (t >= QN) sum += results[t - QN];
	}
	pthread_mutex_lock(&q.mu);
	q.done = 1;
	pthread_cond_broadcast(&q.ne);
	pthread_mutex_unlock(&q.mu);
	for (int i = 1; i < a.threads; i++) acc_join(th[i]);
	main_sum = sum;
	for (long t = 0; t < n; t++) check += results[t];
	printf("mw_cond threads=%d tasks=%ld check=%.6e\n", a.threads, n, check);
	free(results);
	return 0;
}

/* Notes. The owner-style master-worker program with a lock (written in
   session 18 as /tmp/rel18/own/mw_cond.c, lost with that machine, recreated
   in session 24 from what doc/detection.md §5.38, §5.49, §5.53 and §5.57
   quote of it):
   - a static queue struct, its data before its mutex: `long task[64]; int
     head, tail, done; pthread_mutex_t mu; pthread_cond_t ne, nf` (aligned
     to a line here, so that the `results` pointer, which every worker reads
     at each task, shares no line with q: the originals' exact volume was
     q's and the heap array's only);
   - worker :11 the condition wait (the worker's first release), :13 the pop
     (`t = q.task[q.head % QN]; q.head++`), :15 its unlock, :16 its store
     `results[t]` into the calloc'd array (the workers' stores beside each
     other: `worker :16 <-> worker :16`, false);
   - main :29 the wait while full, :30 the push (`q.task[...] = t;
     q.tail++`), :31 the signal between the store and :32 the unlock, :33
     the read of `results[t - 64]` (stale when the worker has not stored it
     yet: `main :33 <-> worker :16`);
   - the compute loop: spin_work, a function of its own at -O0, inlined at
     -O2 (a `mulsd` by a read-only constant; the store after the loop).
   Designed communication: true sharing main <-> every worker on q (and
   worker <-> worker through the lock at -t 4), false sharing on q's words
   (head/tail share a word) and on results' adjacent slots. Exact counts
   depend on the schedule and so on the machine's load: references quiet. */
