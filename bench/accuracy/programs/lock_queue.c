/* SPDX-License-Identifier: BSD-3-Clause */
/* lock_queue.c — a master-worker task queue under a mutex and condition
   variables, the data beside its lock (as in most C code: the queue's
   indices and items in one heap struct with its mutex): the main thread
   pushes tasks, the workers pop them (waiting on `more` when it is empty),
   compute privately, and add their result to a shared total under a
   second mutex. Every hand-off of either mutex passes data on: the pushed
   item and the indices (main -> worker, worker -> worker), the total
   (worker -> worker, worker -> main at the end).
   Designed communication: true sharing between main and every worker and
   between the workers, all of it on the program's queue and total (the
   mutex and condition words themselves are glibc's: exact mode does not
   count them). Doc: doc/detection.md §5.35. */
#include "acc_prog.h"

#define QN 8

struct task {
	long arg, seq;
};

struct queue {
	pthread_mutex_t mu;
	pthread_cond_t more, room;
	long head, tail, closed;
	struct task item[QN];
};

struct total {
	pthread_mutex_t mu;
	long sum, count;
};

static struct queue *q;
static struct total *tot;

static void *worker(void *arg)
{
	double buf[32] = { 0 }, s = 0;

	(void)arg;
	for (;;) {
		struct task t;

		pthread_mutex_lock(&q->mu);
		while (q->head == q->tail && !q->closed)
			pthread_cond_wait(&q->more, &q->mu);
		if (q->head == q->tail) {
			pthread_mutex_unlock(&q->mu);
			break;
		}
		t = q->item[q->head % QN];              /* take a task */
		q->head++;
		pthread_cond_signal(&q->room);
		pthread_mutex_unlock(&q->mu);
		s += acc_work(buf, 32, 192);
		pthread_mutex_lock(&tot->mu);
		tot->sum += t.arg + t.seq;              /* add the result */
		tot->count++;
		pthread_mutex_unlock(&tot->mu);
	}
	return (void *)(long)(s != 0);
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "task queue under a mutex and condition variables (THREADS includes main)");
	pthread_t t[ACC_MAXT];
	double buf[32] = { 0 }, s = 0;
	long iters = acc_iters(a, 50000);

	q = calloc(1, sizeof(*q));
	tot = calloc(1, sizeof(*tot));
	if (!q || !tot)
		return 1;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->more, NULL);
	pthread_cond_init(&q->room, NULL);
	pthread_mutex_init(&tot->mu, NULL);
	if (a.threads < 2)
		a.threads = 2;
	for (int i = 1; i < a.threads; i++)
		acc_start(&t[i], worker, NULL);
	for (long i = 0; i < iters; i++) {
		s += acc_work(buf, 32, 64);
		pthread_mutex_lock(&q->mu);
		while (q->tail - q->head == QN)
			pthread_cond_wait(&q->room, &q->mu);
		q->item[q->tail % QN].arg = i;          /* push a task */
		q->item[q->tail % QN].seq = q->tail;
		q->tail++;
		pthread_cond_signal(&q->more);
		pthread_mutex_unlock(&q->mu);
	}
	pthread_mutex_lock(&q->mu);
	q->closed = 1;
	pthread_cond_broadcast(&q->more);
	pthread_mutex_unlock(&q->mu);
	for (int i = 1; i < a.threads; i++)
		acc_join(t[i]);
	pthread_mutex_lock(&tot->mu);
	printf("lock_queue threads=%d iters=%ld count=%ld\n", a.threads, iters, tot->count);
	pthread_mutex_unlock(&tot->mu);
	return tot->count != iters || s == 0;
}
