/* SPDX-License-Identifier: BSD-3-Clause */
/* spsc.c — single-producer/single-consumer queues: workers 2k (producer) and
   2k+1 (consumer) share queue k, a 256-slot ring of 16-byte items with a
   head index (written by the producer) and a tail index (written by the
   consumer) on lines of their own, C11 acquire/release atomics, cached
   copies of the other side's index, and a yield after a few empty polls
   (threads may outnumber the CPUs). The items are written and read with
   plain stores and loads; private work on both sides.
   Designed communication: true sharing only, in the pair cells (2k+1, 2k+2)
   (thread indexes; the main thread creates and joins), on the item array
   and the two index lines. An odd last worker is idle. */
#include <sched.h>
#include <stdatomic.h>
#include "acc_prog.h"

#define CAP 256

struct item {
	long seq;
	double val;
};

struct queue {
	_Atomic unsigned long head __attribute__((aligned(64)));
	_Atomic unsigned long tail __attribute__((aligned(64)));
	struct item items[CAP] __attribute__((aligned(64)));
};

static struct queue queues[ACC_MAXT / 2];
static long items;

static void wait_a_bit(int *spins)
{
	if (++*spins > 64) {
		sched_yield();
		*spins = 0;
	}
}

static void *producer(struct queue *q)
{
	double buf[32] = { 0 };
	unsigned long head = 0, tail = 0;

	for (long i = 0; i < items; i++) {
		double v = acc_work(buf, 32, 1);
		int spins = 0;
		while (head - tail == CAP) {
			tail = atomic_load_explicit(&q->tail, memory_order_acquire);
			if (head - tail == CAP)
				wait_a_bit(&spins);
		}
		q->items[head % CAP].seq = i;
		q->items[head % CAP].val = v;
		atomic_store_explicit(&q->head, ++head, memory_order_release);
	}
	return NULL;
}

static void *consumer(struct queue *q)
{
	double buf[32] = { 0 }, sum = 0;
	unsigned long head = 0, tail = 0;
	long bad = 0;

	for (long i = 0; i < items; i++) {
		int spins = 0;
		while (tail == head) {
			head = atomic_load_explicit(&q->head, memory_order_acquire);
			if (tail == head)
				wait_a_bit(&spins);
		}
		bad += q->items[tail % CAP].seq != i;
		sum += q->items[tail % CAP].val;
		atomic_store_explicit(&q->tail, ++tail, memory_order_release);
		sum += acc_work(buf, 32, 1);
	}
	if (bad)
		fprintf(stderr, "spsc: %ld items out of order\n", bad);
	return (void *)(long)(bad != 0 || sum == 0);
}

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	return me % 2 == 0 ? producer(&queues[me / 2]) : consumer(&queues[me / 2]);
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "single-producer/single-consumer queues (THREADS/2 pairs)");
	pthread_t t[ACC_MAXT];
	int npair = a.threads / 2, bad = 0;

	if (npair < 1)
		acc_usage(argv[0], "needs at least 2 threads");
	items = acc_iters(a, 4000000 / npair / 2);
	for (int i = 0; i < 2 * npair; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (int i = 0; i < 2 * npair; i++) {
		void *r;
		int e = pthread_join(t[i], &r);
		if (e || r)
			bad = 1;
	}
	printf("spsc threads=%d pairs=%d items=%ld %s\n", a.threads, npair, items, bad ? "FAILED" : "ok");
	return bad;
}
