/* SPDX-License-Identifier: BSD-3-Clause */
/* trace_cost.c — what a "trace set" on spsc's item lines would cost and
   what it would see (doc/detection.md §5.28). spsc.c's queue (a 256-slot
   ring of 16-byte items, four to a line, acquire/release indexes, the same
   private work per item), one producer and one consumer, run three ways:
     native  no breakpoint; every 8th item the consumer reads the head
             index (relaxed) and records d = head - tail at its read:
             how far ahead the producer is, the queue's regime (exact
             mode's false transfers are re-fetches: 1 <= d <= 3, the
             producer within the line the consumer reads);
     trace   one inherited RW breakpoint (perf, sigtrap, as the runtime's
             process-wide set) on one item chunk (slot 5's seq: the second
             slot of the ring's second line), armed all run: every lap the
             producer's store and the consumer's load trap once each; the
             handler records the trapping side and d at the trap;
     arm     the same event re-targeted by PERF_EVENT_IOC_MODIFY_ATTRIBUTES
             between two chunks every 64 items by the consumer (no trap
             fires: the chunks are on a line nobody touches): the re-arm's
             cost with the other thread running.
   Prints ns per item, the traps, the wall time per trap (the run's extra
   time over native, per trap) and the d histograms. Outside the runtime;
   the handler is async-signal-safe (atomic loads, array increments).

   With "fifo" the producer runs on CPU 0 and the consumer on CPU 1 under
   SCHED_FIFO (priority 1; needs the privilege, else a note and the plain
   run): the two sides side by side whatever else the machine runs — the
   idle machine's regime on a loaded one (the kernel's RT throttling leaves
   the others 5 %).

   Usage: trace_cost MODE [ITEMS [fifo]]   (default 2,000,000 as spsc -t 2) */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CAP 256
#define WATCHED 5          /* slot: the second item of the ring's second line */

double acc_work(double *buf, int n, int rounds);

struct item {
	long seq;
	double val;
};

static struct {
	_Atomic unsigned long head __attribute__((aligned(64)));
	_Atomic unsigned long tail __attribute__((aligned(64)));
	struct item items[CAP] __attribute__((aligned(64)));
	uint64_t spare[16] __attribute__((aligned(64)));   /* "arm": chunks nobody touches */
} q;

static long items;
static pthread_t producer_thread;
static int fifo;

/* "fifo": this thread alone on `cpu`, SCHED_FIFO 1 */
static void side_by_side(int cpu)
{
	struct sched_param sp = { .sched_priority = 1 };
	cpu_set_t set;

	if (!fifo)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ||
	    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		fprintf(stderr, "trace_cost: fifo on CPU %d refused: the plain run\n", cpu);
}

/* d histogram bins: 0..3, 4-7, 8-63, 64-191, 192-252, 253-255, 256. A
   re-fetch of the consumer's line needs the producer storing into it while
   the consumer reads it: d in 1..3 (the producer in the same line, ahead)
   or d in 253..256 (a lap ahead, at the consumer's heels: its store of a
   slot the consumer just read invalidates the rest) — the "window" */
#define NB 10
static const char *bin_name[NB] = { "0", "1", "2", "3", "4-7", "8-63", "64-191", "192-252", "253-255", "256" };
static int bin_of(unsigned long d)
{
	return d < 4 ? (int)d : d < 8 ? 4 : d < 64 ? 5 : d < 192 ? 6 : d < 253 ? 7 : d < 256 ? 8 : 9;
}
static uint64_t hist_native[NB], hist_trap_c[NB], hist_trap_p[NB];
static _Atomic uint64_t traps_c, traps_p;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* signal context: atomics and the handler's own arrays only */
static void on_trap(int sig, siginfo_t *si, void *uc)
{
	unsigned long h = atomic_load_explicit(&q.head, memory_order_relaxed);
	unsigned long t = atomic_load_explicit(&q.tail, memory_order_relaxed);

	(void)sig;
	(void)si;
	(void)uc;
	if (pthread_equal(pthread_self(), producer_thread)) {
		atomic_fetch_add(&traps_p, 1);
		hist_trap_p[bin_of(h - t)]++;
	} else {
		atomic_fetch_add(&traps_c, 1);
		hist_trap_c[bin_of(h - t)]++;
	}
}

static void *producer(void *arg)
{
	double buf[32] = { 0 };
	unsigned long head = 0, tail = 0;

	(void)arg;
	side_by_side(0);
	for (long i = 0; i < items; i++) {
		double v = acc_work(buf, 32, 1);
		int spins = 0;
		while (head - tail == CAP) {
			tail = atomic_load_explicit(&q.tail, memory_order_acquire);
			if (head - tail == CAP && ++spins > 64) {
				sched_yield();
				spins = 0;
			}
		}
		q.items[head % CAP].seq = i;
		q.items[head % CAP].val = v;
		atomic_store_explicit(&q.head, ++head, memory_order_release);
	}
	return NULL;
}

static int arm_fd = -1;
static struct perf_event_attr arm_attr;
static uint64_t arm_ns, arms;

static void *consumer(void *arg)
{
	double buf[32] = { 0 }, sum = 0;
	unsigned long head = 0, tail = 0;
	long bad = 0;
	int native = arg != NULL;

	side_by_side(1);
	for (long i = 0; i < items; i++) {
		int spins = 0;
		while (tail == head) {
			head = atomic_load_explicit(&q.head, memory_order_acquire);
			if (tail == head && ++spins > 64) {
				sched_yield();
				spins = 0;
			}
		}
		if (native && (i & 7) == 0)
			hist_native[bin_of(atomic_load_explicit(&q.head, memory_order_relaxed) - tail)]++;
		bad += q.items[tail % CAP].seq != i;
		sum += q.items[tail % CAP].val;
		atomic_store_explicit(&q.tail, ++tail, memory_order_release);
		sum += acc_work(buf, 32, 1);
		if (arm_fd >= 0 && (i & 63) == 0) {
			uint64_t t0 = now_ns();

			arm_attr.bp_addr = (uint64_t)(uintptr_t)&q.spare[(i >> 6) & 1 ? 8 : 0];
			if (ioctl(arm_fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &arm_attr) == 0) {
				arm_ns += now_ns() - t0;
				arms++;
			}
		}
	}
	if (bad)
		fprintf(stderr, "trace_cost: %ld items out of order\n", bad);
	return (void *)(long)(bad != 0 || sum == 0);
}

static int open_bp(uint64_t addr, struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->type = PERF_TYPE_BREAKPOINT;
	a->size = sizeof(*a);
	a->bp_type = HW_BREAKPOINT_RW;
	a->bp_addr = addr;
	a->bp_len = HW_BREAKPOINT_LEN_8;
	a->sample_period = 1;
	a->inherit = 1;
	a->inherit_thread = 1;
	a->remove_on_exec = 1;
	a->sigtrap = 1;
	a->sig_data = 0x5c;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, a, 0, -1, -1, 0);
}

static void print_hist(const char *what, const uint64_t *h)
{
	uint64_t n = 0;

	for (int b = 0; b < NB; b++)
		n += h[b];
	printf("%-26s n=%-8llu", what, (unsigned long long)n);
	for (int b = 0; b < NB; b++)
		if (h[b])
			printf(" d%s:%.3f", bin_name[b], n ? (double)h[b] / (double)n : 0.0);
	printf("  window %.3f\n", n ? (double)(h[1] + h[2] + h[3] + h[8] + h[9]) / (double)n : 0.0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "native";
	struct perf_event_attr a;
	struct sigaction sa;
	pthread_t c;
	uint64_t t0, t1;
	void *r1, *r2;
	int fd = -1;

	items = argc > 2 ? atol(argv[2]) : 2000000;
	fifo = argc > 3 && !strcmp(argv[3], "fifo");
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGTRAP, &sa, NULL);
	if (!strcmp(mode, "trace")) {
		fd = open_bp((uint64_t)(uintptr_t)&q.items[WATCHED].seq, &a);
		if (fd < 0) {
			perror("trace_cost: perf_event_open");
			return 77;
		}
	} else if (!strcmp(mode, "arm")) {
		arm_fd = open_bp((uint64_t)(uintptr_t)&q.spare[0], &arm_attr);
		if (arm_fd < 0) {
			perror("trace_cost: perf_event_open");
			return 77;
		}
	} else if (strcmp(mode, "native")) {
		fprintf(stderr, "usage: trace_cost native|trace|arm [ITEMS]\n");
		return 2;
	}
	t0 = now_ns();
	pthread_create(&producer_thread, NULL, producer, NULL);
	pthread_create(&c, NULL, consumer, !strcmp(mode, "native") ? (void *)1 : NULL);
	pthread_join(producer_thread, &r1);
	pthread_join(c, &r2);
	t1 = now_ns();
	printf("mode %s%s items %ld wall %.3f ms, %.1f ns per item, %.2f us per lap of %d items\n", mode,
	       fifo ? " (fifo)" : "", items, (double)(t1 - t0) / 1e6, (double)(t1 - t0) / (double)items,
	       (double)(t1 - t0) / (double)items * CAP / 1e3, CAP);
	if (fd >= 0) {
		uint64_t tc = atomic_load(&traps_c), tp = atomic_load(&traps_p);

		printf("traps: consumer %llu, producer %llu (%.2f per lap)\n", (unsigned long long)tc,
		       (unsigned long long)tp, (double)(tc + tp) / ((double)items / CAP));
		print_hist("d at the consumer's trap", hist_trap_c);
		print_hist("d at the producer's trap", hist_trap_p);
	}
	if (arm_fd >= 0)
		printf("re-arms (MODIFY_ATTRIBUTES, the producer running): %llu, mean %.1f us\n",
		       (unsigned long long)arms, arms ? (double)arm_ns / (double)arms / 1e3 : 0.0);
	if (!strcmp(mode, "native"))
		print_hist("d at the consumer's read", hist_native);
	return r1 || r2;
}
