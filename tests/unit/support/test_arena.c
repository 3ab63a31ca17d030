/* SPDX-License-Identifier: BSD-3-Clause */
/* test_arena.c — the bump arena: alignment, zero fill, disjointness,
   exhaustion (NULL, never past the reservation, no size overflow), pages not
   touched until used (mincore), two threads sharing one arena, and
   allocations from a signal handler interleaved with the main loop's — all
   must stay disjoint, which only holds if the compare-and-swap is right. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <unistd.h>

#include "support/arena.h"
#include "hc_test.h"

static size_t page;

static size_t resident_pages(const struct hc_arena *a)
{
	size_t n = a->reserve / page, i, r = 0;
	unsigned char *vec = malloc(n);

	if (!vec || mincore(a->base, a->reserve, vec) != 0) {
		free(vec);
		return (size_t)-1;
	}
	for (i = 0; i < n; i++)
		r += vec[i] & 1;
	free(vec);
	return r;
}

static void test_basics(void)
{
	static const size_t aligns[] = { 1, 2, 4, 8, 16, 64, 4096, 16384 };
	struct hc_arena a;
	char *prev_end = NULL;
	size_t i, k;

	CHECK_EQ_U64(hc_arena_init(&a, 0), -EINVAL);
	CHECK(hc_arena_alloc(&a, 8, 8) == NULL);       /* failed init leaves it unusable */
	CHECK_EQ_U64(hc_arena_init(&a, (1u << 20) + 1), 0);
	CHECK_EQ_U64(a.reserve % page, 0);
	CHECK(a.reserve >= (1u << 20) + 1);
	CHECK_EQ_U64(hc_arena_used(&a), 0);
	CHECK_EQ_U64(resident_pages(&a), 0);           /* reserved, not touched */
	CHECK(hc_arena_alloc(&a, 100000, 16) != NULL);
	CHECK_EQ_U64(resident_pages(&a), 0);           /* allocating does not touch either */

	for (i = 0; i < 3; i++) {
		for (k = 0; k < sizeof(aligns) / sizeof(aligns[0]); k++) {
			size_t size = 1 + i * 13 + k;
			char *p = hc_arena_alloc(&a, size, aligns[k]);
			size_t j, zero = 1;
			CHECK(p != NULL);
			if (!p)
				continue;
			CHECK_EQ_U64((uintptr_t)p % aligns[k], 0);
			CHECK(p >= a.base && p + size <= a.base + a.reserve);
			CHECK(prev_end == NULL || p >= prev_end);
			for (j = 0; j < size; j++)
				zero &= p[j] == 0;
			CHECK(zero);
			memset(p, 0xcc, size);
			prev_end = p + size;
		}
	}
	CHECK(resident_pages(&a) > 0);
	CHECK(resident_pages(&a) < a.reserve / page / 2);
	CHECK(hc_arena_alloc(&a, 8, 3) == NULL);       /* not a power of two */
	CHECK(hc_arena_alloc(&a, 8, 0) != NULL);       /* 0 = default 16 */
	{
		char *z1 = hc_arena_alloc(&a, 0, 1), *z2 = hc_arena_alloc(&a, 0, 1);
		CHECK(z1 && z2 && z1 != z2);
	}
	hc_arena_destroy(&a);
	CHECK(a.base == NULL);
	CHECK(hc_arena_alloc(&a, 8, 8) == NULL);

	/* A descriptor moved into its own arena can destroy it. */
	{
		struct hc_arena tmp, *self;
		CHECK_EQ_U64(hc_arena_init(&tmp, 1u << 16), 0);
		self = hc_arena_alloc(&tmp, sizeof(*self), 64);
		CHECK(self != NULL);
		if (self) {
			*self = tmp;
			CHECK(hc_arena_alloc(self, 100, 8) != NULL);
			hc_arena_destroy(self);   /* must not write to the unmapped page */
		}
	}
}

static void test_exhaustion(void)
{
	struct hc_arena a;
	size_t n = 0, used;
	void *p;

	CHECK_EQ_U64(hc_arena_init(&a, 64 * 1024), 0);
	while ((p = hc_arena_alloc(&a, 1000, 8)) != NULL)
		n++;
	CHECK_EQ_U64(n, a.reserve / 1000);             /* 1000 is a multiple of 8: no gaps */
	used = hc_arena_used(&a);
	CHECK(used <= a.reserve);
	CHECK(hc_arena_alloc(&a, SIZE_MAX, 1) == NULL);
	CHECK(hc_arena_alloc(&a, SIZE_MAX - 4096, 4096) == NULL);
	CHECK(hc_arena_alloc(&a, 8, (size_t)1 << 62) == NULL);
	CHECK_EQ_U64(hc_arena_used(&a), used);        /* failures change nothing */
	/* Exactly what is left fits, then nothing does. */
	p = hc_arena_alloc(&a, a.reserve - used, 1);
	CHECK(p != NULL);
	CHECK_EQ_U64(hc_arena_used(&a), a.reserve);
	CHECK(hc_arena_alloc(&a, 1, 1) == NULL);
	hc_arena_destroy(&a);
}

/* Writers share one arena; each record holds its owner and sequence. */
struct rec {
	uint32_t owner, seq;
	uint64_t check;
};

static struct hc_arena shared;
#define PER_THREAD 20000

static void *alloc_thread(void *arg)
{
	uint32_t owner = (uint32_t)(uintptr_t)arg, i;
	struct rec **out = malloc(PER_THREAD * sizeof(*out));

	for (i = 0; i < PER_THREAD; i++) {
		struct rec *r = hc_arena_alloc(&shared, sizeof(*r), 8);
		if (r) {
			r->owner = owner;
			r->seq = i;
			r->check = ((uint64_t)owner << 32 | i) * 0x9e3779b97f4a7c15ull;
		}
		out[i] = r;
	}
	return out;
}

static void test_threads(void)
{
	pthread_t t[2];
	struct rec **res[2];
	int bad = 0;
	uint32_t k, i;

	CHECK_EQ_U64(hc_arena_init(&shared, 2 * PER_THREAD * sizeof(struct rec)), 0);
	for (k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, alloc_thread, (void *)(uintptr_t)k);
	for (k = 0; k < 2; k++)
		pthread_join(t[k], (void **)&res[k]);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < PER_THREAD; i++) {
			struct rec *r = res[k][i];
			bad += !r || r->owner != k || r->seq != i ||
			       r->check != ((uint64_t)k << 32 | i) * 0x9e3779b97f4a7c15ull;
		}
		free(res[k]);
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(hc_arena_used(&shared), 2 * PER_THREAD * sizeof(struct rec));
	hc_arena_destroy(&shared);
}

/* Allocations from a signal handler interleaved with the main loop's. */
static struct hc_arena sig_arena;
static volatile sig_atomic_t handler_allocs;

static void on_alarm(int sig)
{
	struct rec *r = hc_arena_alloc(&sig_arena, sizeof(*r), 8);

	(void)sig;
	if (r) {
		r->owner = 1;
		r->seq = (uint32_t)handler_allocs++;
		r->check = ~(uint64_t)r->seq;
	}
}

static void test_signal_reentry(void)
{
	struct itimerval it = { .it_interval = { 0, 200 }, .it_value = { 0, 200 } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	uint32_t main_allocs = 0, seen_main = 0, seen_sig = 0;
	int bad = 0;
	char *p, *end;

	CHECK_EQ_U64(hc_arena_init(&sig_arena, 8u << 20), 0);
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	while (main_allocs < 200000 || handler_allocs < 50) {
		struct rec *r = hc_arena_alloc(&sig_arena, sizeof(*r), 8);
		if (!r)
			break;
		r->owner = 0;
		r->seq = main_allocs++;
		r->check = r->seq * 3ull;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	/* Walk the arena: records are dense, each intact and in order per owner. */
	end = sig_arena.base + hc_arena_used(&sig_arena);
	for (p = sig_arena.base; p < end; p += sizeof(struct rec)) {
		struct rec *r = (struct rec *)p;
		if (r->owner == 0)
			bad += r->seq != seen_main++ || r->check != r->seq * 3ull;
		else
			bad += r->owner != 1 || r->seq != seen_sig++ || r->check != ~(uint64_t)r->seq;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(seen_main, main_allocs);
	CHECK_EQ_U64(seen_sig, handler_allocs);
	CHECK(handler_allocs > 0);
	hc_arena_destroy(&sig_arena);
}

int main(void)
{
	page = (size_t)sysconf(_SC_PAGESIZE);
	test_basics();
	test_exhaustion();
	test_threads();
	test_signal_reentry();
	return hc_test_done("test_arena");
}
