/* SPDX-License-Identifier: BSD-3-Clause */
/* views_prog.c — designed programs for the phase and NUMA views
   (tests/integration/views.sh). Worker w (0-based) is measured thread w+1.

     phases [-s S]  four workers: for S seconds a ring (worker w shares one
                    line with w+1 mod 4: cells (1,2) (2,3) (3,4) (1,4)), then,
                    after a barrier, for S seconds pairs across the ring
                    (workers 0+2 and 1+3: cells (1,3) (2,4)). Expect two
                    phases with those cells.
     numa [-s S]    three workers pinned: workers 0 and 1 to CPU 0, worker 2
                    to CPU 1 (CPU 0 if there is one CPU). Three arrays mapped
                    at fixed addresses (the test's page map puts them on
                    nodes): X at BASE shared by workers 0 and 1, Y at
                    BASE + 2 MiB shared by workers 0 and 1, Z at BASE + 4 MiB
                    shared by workers 0 and 2 — each for S seconds in turn;
                    BASE is the first free of bases[].

   Usage: views_prog phases|numa [-s SECONDS] */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* X, Y and Z are at BASE, BASE + 2 MiB and BASE + 4 MiB for the first BASE
   that is free (the runtime of a sanitizer build reserves a large range
   below the executable); the test's page map lists all of them. */
static const uint64_t bases[] = { 0x100080000000ull, 0x3e0000000000ull, 0x200000000000ull };
#define STEP 0x200000ull
#define ARRAY  (64 * 1024)

struct line { volatile uint64_t w[8]; } __attribute__((aligned(64)));

static struct line ring[4], pairs[2];
static double seconds = 1.0;
static volatile int stage;
static pthread_barrier_t bar;
static volatile uint64_t *arr[3];

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) static void ring_kernel(int w)
{
	volatile uint64_t *a = &ring[w].w[0], *b = &ring[(w + 3) % 4].w[0];
	while (stage == 0)
		for (int i = 0; i < 1024; i++) {
			*a = *a + 1;
			*b = *b + 1;
		}
}

__attribute__((noinline)) static void pairs_kernel(int w)
{
	volatile uint64_t *a = &pairs[w % 2].w[0];
	while (stage == 1)
		for (int i = 0; i < 1024; i++)
			*a = *a + 1;
}

static void *phases_worker(void *arg)
{
	int w = (int)(intptr_t)arg;

	ring_kernel(w);
	pthread_barrier_wait(&bar);
	pairs_kernel(w);
	return NULL;
}

__attribute__((noinline)) static void array_kernel(volatile uint64_t *x, int want)
{
	while (stage == want)
		for (int i = 0; i < 1024; i++)
			x[(i * 8) % (ARRAY / 8)] += 1;
}

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static void *numa_worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	int other = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;

	pin(w == 2 ? other : 0);
	for (int st = 0; st < 3; st++) {
		pthread_barrier_wait(&bar);
		if ((st < 2 && w < 2) || (st == 2 && w != 1))
			array_kernel(arr[st], st);
		else
			while (stage == st)
				usleep(1000);
	}
	return NULL;
}

static void run_stage(int next)
{
	struct timespec ts = { (time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9) };
	nanosleep(&ts, NULL);
	stage = next;
}

int main(int argc, char **argv)
{
	pthread_t th[4];
	int numa, n;

	if (argc < 2 || (strcmp(argv[1], "phases") && strcmp(argv[1], "numa"))) {
		fprintf(stderr, "usage: views_prog phases|numa [-s SECONDS]\n");
		return 2;
	}
	if (argc == 4 && !strcmp(argv[2], "-s"))
		seconds = atof(argv[3]);
	numa = !strcmp(argv[1], "numa");
	n = numa ? 3 : 4;
	pthread_barrier_init(&bar, NULL, numa ? 4 : 5);
	if (numa) {
		/* Three call sites: three objects (one per allocation context). */
		const int fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
		void *x = MAP_FAILED, *y = MAP_FAILED, *z = MAP_FAILED;
		for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
			x = mmap((void *)bases[b], ARRAY, PROT_READ | PROT_WRITE, fl, -1, 0);
			y = mmap((void *)(bases[b] + STEP), ARRAY, PROT_READ | PROT_WRITE, fl, -1, 0);
			z = mmap((void *)(bases[b] + 2 * STEP), ARRAY, PROT_READ | PROT_WRITE, fl, -1, 0);
			if (x == (void *)bases[b] && y == (void *)(bases[b] + STEP) &&
			    z == (void *)(bases[b] + 2 * STEP))
				break;
			if (x != MAP_FAILED)
				munmap(x, ARRAY);
			if (y != MAP_FAILED)
				munmap(y, ARRAY);
			if (z != MAP_FAILED)
				munmap(z, ARRAY);
			x = y = z = MAP_FAILED;
		}
		if (x == MAP_FAILED) {
			perror("views_prog: mmap at a fixed address");
			return 1;
		}
		arr[0] = x;
		arr[1] = y;
		arr[2] = z;
	}
	for (int w = 0; w < n; w++)
		pthread_create(&th[w], NULL, numa ? numa_worker : phases_worker, (void *)(intptr_t)w);
	if (numa) {
		for (int st = 0; st < 3; st++) {
			pthread_barrier_wait(&bar);
			run_stage(st + 1);
		}
	} else {
		uint64_t t0 = now_ns();
		run_stage(1);
		pthread_barrier_wait(&bar);
		run_stage(2);
		fprintf(stderr, "views_prog: %.3f s\n", (double)(now_ns() - t0) / 1e9);
	}
	for (int w = 0; w < n; w++)
		pthread_join(th[w], NULL);
	return 0;
}
