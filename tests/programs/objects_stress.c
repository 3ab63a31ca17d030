/* SPDX-License-Identifier: BSD-3-Clause */
/* objects_stress.c — allocation stress for the runtime's wrappers: T
   threads (default 8) each run N (default 10^6) operations of the whole
   allocation family — malloc, calloc, realloc (grow, shrink, to zero),
   posix_memalign, aligned_alloc, memalign, valloc, pvalloc, anonymous
   mmap (also MAP_FIXED over itself)/munmap/mremap, strdup — on a private
   ring of live blocks, and trade blocks through a shared exchange so that
   many are freed by another thread than the one that allocated them. Every block carries a pattern derived
   from its size, checked before it is freed or reallocated (a wrapper that
   corrupts, loses or shrinks a block fails the run); calloc memory must be
   zero and aligned allocations aligned. With -f, thread 0 forks once in the
   middle: the child allocates and frees for a while and exits 0. Exits 0
   and prints "stress done" on success.
   Usage: objects_stress [-t THREADS] [-n OPS] [-f] */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define RING 512
#define XCHG 64

struct blk { unsigned char *p; size_t n; int mm; };

static long nops = 1000000;
static int nthreads = 8, do_fork;
static struct blk xchg[XCHG];
static pthread_mutex_t xlock = PTHREAD_MUTEX_INITIALIZER;
static volatile int failed;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void fail(const char *what, size_t n)
{
	fprintf(stderr, "objects_stress: %s (size %zu)\n", what, n);
	failed = 1;
}

static void fill(struct blk *b)
{
	if (b->n >= 8)
		memcpy(b->p, &b->n, 8);
	for (size_t i = b->n >= 8 ? 8 : 0; i < b->n; i++)
		b->p[i] = (unsigned char)(b->n + i);
}

static int intact(const struct blk *b, size_t upto)
{
	size_t n = upto < b->n ? upto : b->n;

	if (b->n >= 8 && n >= 8 && memcmp(b->p, &b->n, 8))
		return 0;
	for (size_t i = b->n >= 8 ? 8 : 0; i < n; i++)
		if (b->p[i] != (unsigned char)(b->n + i))
			return 0;
	return 1;
}

static void release(struct blk *b)
{
	if (!b->p)
		return;
	if (!intact(b, b->n))
		fail("block corrupted before free", b->n);
	if (b->mm)
		munmap(b->p, b->n);
	else
		free(b->p);
	b->p = NULL;
}

__attribute__((noinline)) static void make(struct blk *b, uint64_t *s)
{
	uint64_t r = rnd(s);
	unsigned kind = (unsigned)(r % 1000);
	size_t n = (r >> 12) % (r & 0x100 ? 8192 : 256) + 1;
	void *p = NULL;

	b->mm = 0;
	if (kind < 600) {
		p = malloc(n);
	} else if (kind < 750) {
		p = calloc(1, n);
		for (size_t i = 0; p && i < n; i++)
			if (((unsigned char *)p)[i])
				fail("calloc memory not zero", n);
	} else if (kind < 800) {
		if (posix_memalign(&p, 64, n))
			p = NULL;
	} else if (kind < 850) {
		n = (n + 63) & ~(size_t)63;
		p = aligned_alloc(64, n);
	} else if (kind < 900) {
		p = memalign(128, n);
	} else if (kind < 990) {
		char tmp[64];
		n = n % 60 + 1;
		memset(tmp, 'x', n - 1);
		tmp[n - 1] = 0;
		p = strdup(tmp);
		if (p && strlen(p) != n - 1)
			fail("strdup", n);
	} else if (kind < 995) {
		p = kind & 1 ? valloc(n) : pvalloc(n);
		if (p && ((uintptr_t)p & 4095))
			fail("valloc/pvalloc not page aligned", n);
	} else {
		n = (n % 4 + 1) * 16384;
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			p = NULL;
		b->mm = 1;
		if (p && kind & 2) {
			/* A fixed mapping over itself: the old region goes away. */
			void *q = mmap(p, n, PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			if (q != p)
				fail("MAP_FIXED over a mapping moved it", n);
		}
		if (p && kind & 1) {
			void *q = mremap(p, n, 2 * n, MREMAP_MAYMOVE);
			if (q != MAP_FAILED) {
				p = q;
				n *= 2;
			}
		}
	}
	if (!p) {
		fail("allocation failed", n);
		b->p = NULL;
		return;
	}
	if ((kind >= 750 && kind < 900) && ((uintptr_t)p & 63))
		fail("aligned allocation misaligned", n);
	b->p = p;
	b->n = n;
	fill(b);
}

__attribute__((noinline)) static void resize(struct blk *b, uint64_t *s)
{
	size_t n = rnd(s) % 600;
	unsigned char *q;

	if (!b->p || b->mm)
		return;
	if (!intact(b, b->n))
		fail("block corrupted before realloc", b->n);
	q = realloc(b->p, n);
	if (n == 0) {   /* glibc: realloc(p, 0) frees p */
		free(q);
		b->p = NULL;
		return;
	}
	if (!q) {
		fail("realloc failed", n);
		return;
	}
	{
		struct blk nb = { q, b->n, 0 };
		if (!intact(&nb, n))
			fail("realloc lost the contents", n);
	}
	b->p = q;
	b->n = n;
	fill(b);
}

static void child_work(void)
{
	uint64_t s = 777;
	struct blk ring[64] = { { 0 } };

	for (int i = 0; i < 20000; i++) {
		struct blk *b = &ring[rnd(&s) % 64];
		release(b);
		make(b, &s);
	}
	for (int i = 0; i < 64; i++)
		release(&ring[i]);
	/* _exit: the blocks of the parent's other threads were copied but are
	   nobody's here (a leak checker would report them at exit). */
	_exit(failed);
}

static void *run(void *arg)
{
	int id = (int)(intptr_t)arg;
	uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(id + 1);
	struct blk *ring = calloc(RING, sizeof(*ring));

	if (!ring) {
		fail("ring", 0);
		return NULL;
	}
	for (long op = 0; op < nops && !failed; op++) {
		struct blk *b = &ring[rnd(&s) % RING];
		unsigned what = (unsigned)(rnd(&s) % 100);

		if (id == 0 && do_fork && op == nops / 2) {
			pid_t pid = fork();
			int st = 0;
			if (pid == 0)
				child_work();
			if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
				fail("forked child failed", 0);
		}
		if (what < 80) {
			release(b);
			make(b, &s);
		} else if (what < 92) {
			resize(b, &s);
		} else {
			/* Trade with the exchange: the block is freed by whoever takes it. */
			struct blk t;
			unsigned k = (unsigned)(rnd(&s) % XCHG);
			pthread_mutex_lock(&xlock);
			t = xchg[k];
			xchg[k] = *b;
			pthread_mutex_unlock(&xlock);
			*b = t;
		}
	}
	for (int i = 0; i < RING; i++)
		release(&ring[i]);
	free(ring);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-t") && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			nops = atol(argv[++i]);
		else if (!strcmp(argv[i], "-f"))
			do_fork = 1;
		else {
			fprintf(stderr, "usage: objects_stress [-t THREADS] [-n OPS] [-f]\n");
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > 64 || nops < 1)
		return 2;
	for (int i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, run, (void *)(intptr_t)i);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	for (int k = 0; k < XCHG; k++)
		release(&xchg[k]);
	if (failed)
		return 1;
	printf("stress done: %d threads x %ld operations\n", nthreads, nops);
	return 0;
}
