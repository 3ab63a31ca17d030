/* SPDX-License-Identifier: BSD-3-Clause */
/* test_blocks.c — the live-block table (lib/runtime/alloc/blocks.c) against a
   reference model: blocks of every size class (1..16 bytes: one mark; up to
   4 KiB: two; big blocks with 4 KiB marks, whole 64 KiB chunks and whole
   1 GiB regions; mmap kind), placed at chunk and region boundaries and at
   random, inserted and removed through the full functions and through the
   inline fast paths alloc.c uses, looked up at every interior address that
   matters and at random ones, removed by base, by interior pointer (nothing
   happens) and by range.
   Then a concurrent run: writer threads churn blocks in their own address
   ranges while reader threads — and a SIGPROF handler interrupting the
   writers — look up random addresses and permanent blocks: a lookup must
   only ever return a block that is consistent (its site encodes its base
   and size) and contains the address, and permanent blocks must always be
   found. No memory at these addresses exists: the table stores numbers.
   Everything runs twice: with the direct-mapped shadow, and in a forked
   child with the directory's leaves only (the fallback). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hc/profile.h"
#include "runtime/alloc/blocks.h"
#include "hc_test.h"

#define R0    0x7f0000000000ull          /* 1 GiB aligned */
#define SPAN  (4ull << 20)
#define MAXB  600

struct mblock { uint64_t base, size; uint32_t site, kind; };
static struct mblock model[MAXB];
static int nmodel;

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static const struct mblock *model_find(uint64_t a)
{
	for (int i = 0; i < nmodel; i++)
		if (a >= model[i].base && a - model[i].base < model[i].size)
			return &model[i];
	return NULL;
}

static bool model_free(uint64_t base, uint64_t size)
{
	for (int i = 0; i < nmodel; i++)
		if (base < model[i].base + model[i].size && model[i].base < base + size)
			return false;
	return true;
}

/* Look a up in the table and in the model; they must agree. */
static void check_addr(uint64_t a, int line)
{
	const struct mblock *m = model_find(a);
	struct rt_block b;
	bool found = blocks__find(a, &b);

	CHECK_MSG(found == (m != NULL), "line %d: address 0x%llx: table %s, model %s", line,
	          (unsigned long long)a, found ? "found" : "missed", m ? "has it" : "has none");
	if (found && m)
		CHECK_MSG(b.base == m->base && b.size == m->size && b.site == m->site && b.kind == m->kind,
		          "line %d: address 0x%llx: table [0x%llx,+%llu) site %u kind %u, model "
		          "[0x%llx,+%llu) site %u kind %u", line, (unsigned long long)a,
		          (unsigned long long)b.base, (unsigned long long)b.size, b.site, b.kind,
		          (unsigned long long)m->base, (unsigned long long)m->size, m->site, m->kind);
}

/* The addresses where a lookup could go wrong around a block. */
static void check_block(const struct mblock *m, int line)
{
	uint64_t pts[] = { m->base - 1, m->base, m->base + 1, m->base + 15, m->base + 16,
	                   m->base + 17, m->base + m->size / 2, m->base + m->size - 1,
	                   m->base + m->size, m->base + m->size + 16, m->base + 4095,
	                   m->base + 4096, m->base + 65535, m->base + 65536 };

	for (size_t i = 0; i < sizeof(pts) / sizeof(pts[0]); i++)
		check_addr(pts[i], line);
	for (int i = 0; i < 8; i++)
		check_addr(m->base + rnd() % m->size, line);
}

/* alloc.c's inline paths, called as alloc.c calls them. */
static bool ins_direct(uint64_t base, uint64_t size, uint32_t site)
{
	uint32_t *sh = blocks__shadow();

	return blocks__insert_direct(sh, sh ? RT_BLK_BAD : UINT64_MAX, base, size,
	                                RT_BLK_FIRST_V(site, 0), site ? RT_BLOCK_SMALL_MAX : 0);
}

static int rm_direct(uint64_t base)
{
	uint32_t *sh = blocks__shadow();

	return blocks__remove_direct(sh, sh ? RT_BLK_BAD : UINT64_MAX, base);
}

static int add(uint64_t base, uint64_t size, uint32_t kind, struct rt_leaf_cache *lc)
{
	uint32_t site = (uint32_t)(rnd() % RT_SITE_MAX) + 1;
	int rc;

	if (nmodel >= MAXB || !model_free(base, size))
		return -EEXIST;
	/* The inline fast path (alloc.c's) where it applies, half the time;
	   where it declines, the full function (as alloc.c does). */
	switch (lc && kind == HC_OBJ_MALLOC ? rnd() % 3 : 0) {
	case 1:
		rc = ins_direct(base, size, site) ? 0 : blocks__insert(lc, base, size, site, kind);
		break;
	case 2:     /* the leaf-cache path (without the direct shadow) */
		rc = blocks__insert_fast(lc, base, size, site);
		break;
	default:
		rc = blocks__insert(lc, base, size, site, kind);
	}
	CHECK_MSG(rc == 0, "insert [0x%llx,+%llu): %d", (unsigned long long)base,
	          (unsigned long long)size, rc);
	if (rc == 0)
		model[nmodel++] = (struct mblock){ base, size, site, kind };
	return rc;
}

static void del(int i, struct rt_leaf_cache *lc)
{
	struct rt_block old;
	struct mblock m = model[i];

	if (m.size > 16) {  /* an interior pointer removes nothing */
		CHECK(!blocks__remove(lc, m.base + 16, NULL));
		if (lc) {
			CHECK(rm_direct(m.base + 16) <= 0);
			CHECK(blocks__remove_fast(lc, m.base + 16) <= 0);
		}
	}
	if (lc && rnd() % 2) {
		/* The inline fast paths: removed (1), or undecided (-EAGAIN). */
		int r = rnd() % 2 ? rm_direct(m.base) : blocks__remove_fast(lc, m.base);
		CHECK(r == 1 || r == -EAGAIN);
		CHECK(r == 1 || blocks__remove(lc, m.base, NULL));
	} else {
		CHECK(blocks__remove(lc, m.base, &old));
		CHECK(old.base == m.base && old.size == m.size && old.site == m.site &&
		      old.kind == m.kind);
	}
	CHECK(!blocks__remove(lc, m.base, NULL));     /* already gone */
	if (lc) {
		CHECK(rm_direct(m.base) <= 0);
		CHECK(blocks__remove_fast(lc, m.base) <= 0);
	}
	model[i] = model[--nmodel];
}

static void test_fixed(void)
{
	struct rt_leaf_cache lc;
	struct rt_block b;
	uint64_t chunk_end = R0 + 0x10000;

	memset(&lc, 0, sizeof(lc));
	/* Refusals. */
	CHECK_EQ_U64(blocks__insert(&lc, R0 + 8, 16, 1, HC_OBJ_MALLOC), -EINVAL);
	CHECK_EQ_U64(blocks__insert(&lc, R0, 0, 1, HC_OBJ_MALLOC), -EINVAL);
	CHECK_EQ_U64(blocks__insert(&lc, R0, 16, 0, HC_OBJ_MALLOC), -EINVAL);
	CHECK_EQ_U64(blocks__insert(&lc, RT_BLOCK_ADDR_END, 16, 1, HC_OBJ_MALLOC), -ERANGE);
	CHECK_EQ_U64(blocks__insert(&lc, RT_BLOCK_ADDR_END - 4096, 8192, 1, HC_OBJ_MALLOC), -ERANGE);
	CHECK(!blocks__find(R0, &b));
	CHECK(!blocks__find(UINT64_MAX, &b));

	/* Every size class, side by side, and across a chunk boundary. */
	add(R0, 1, HC_OBJ_MALLOC, &lc);
	add(R0 + 16, 16, HC_OBJ_MALLOC, &lc);
	add(R0 + 32, 17, HC_OBJ_MALLOC, &lc);
	add(R0 + 64, 4096, HC_OBJ_MALLOC, &lc);
	add(R0 + 64 + 4096, 4097, HC_OBJ_MALLOC, &lc);
	add(chunk_end - 16, 100, HC_OBJ_MALLOC, &lc);             /* SIZE in the next leaf */
	add(chunk_end + 112, 24, HC_OBJ_MALLOC, &lc);
	add(chunk_end + 0x8000 - 48, 3 * 0x10000, HC_OBJ_MALLOC, &lc); /* whole chunks inside */
	add(R0 + 0x100000, 0x10000, HC_OBJ_MMAP, &lc);            /* exactly one chunk */
	add(R0 + 0x200000, 4096, HC_OBJ_MMAP, &lc);               /* small but mmap: big path */
	add(R0 + (1ull << 30) - 4096, (5ull << 29) + 8192, HC_OBJ_MMAP, &lc); /* whole region */
	for (int i = 0; i < nmodel; i++)
		check_block(&model[i], __LINE__);
	/* A region covered whole: its middle, and just past it. */
	check_addr(R0 + (2ull << 30) + 12345, __LINE__);
	check_addr(R0 + (7ull << 29) + 8192 - 4096 - 1, __LINE__);
	check_addr(R0 + (7ull << 29) + 8192 - 4096, __LINE__);

	/* Range removal: two small blocks and the one straddling the start. */
	{
		uint32_t n = blocks__remove_range(R0 + 40, R0 + 64 + 8);
		CHECK_EQ_U64(n, 2);   /* [R0+32,+17) straddles, [R0+64,+4096) starts inside */
		for (int i = 0; i < nmodel; i++)
			if (model[i].base == R0 + 32 || model[i].base == R0 + 64)
				model[i--] = model[--nmodel];
		check_addr(R0 + 40, __LINE__);
		check_addr(R0 + 100, __LINE__);
		check_addr(R0 + 16, __LINE__);
		check_addr(R0 + 64 + 4096, __LINE__);
	}
	/* The whole-region block by range from its middle. */
	CHECK_EQ_U64(blocks__remove_range(R0 + (2ull << 30), R0 + (2ull << 30) + 4096), 1);
	for (int i = 0; i < nmodel; i++)
		if (model[i].base == R0 + (1ull << 30) - 4096)
			model[i--] = model[--nmodel];
	check_addr(R0 + (2ull << 30) + 12345, __LINE__);
	check_addr(R0 + (1ull << 30) - 1, __LINE__);
	while (nmodel)
		del(nmodel - 1, &lc);
	CHECK(!blocks__find(R0 + 16, &b));
}

static void test_random(void)
{
	struct rt_leaf_cache lc;

	memset(&lc, 0, sizeof(lc));
	for (int step = 0; step < 60000; step++) {
		unsigned op = (unsigned)(rnd() % 100);
		if (op < 45 && nmodel < MAXB) {
			static const uint64_t lim[] = { 16, 64, 512, 4096, 4200, 70000, 300000 };
			uint64_t size = rnd() % lim[rnd() % 7] + 1;
			uint64_t base = R0 + (rnd() % SPAN & ~15ull);
			uint32_t kind = rnd() % 10 == 0 ? HC_OBJ_MMAP : HC_OBJ_MALLOC;
			if (kind == HC_OBJ_MMAP) {
				base &= ~4095ull;
				size = (size + 4095) & ~4095ull;
			}
			add(base, size, kind, rnd() % 4 ? &lc : NULL);
		} else if (op < 80 && nmodel > 0) {
			del((int)(rnd() % (uint64_t)nmodel), rnd() % 4 ? &lc : NULL);
		} else if (op < 95) {
			check_addr(R0 - 65536 + rnd() % (SPAN + 2 * 65536), __LINE__);
		} else if (nmodel > 0) {
			check_block(&model[rnd() % (uint64_t)nmodel], __LINE__);
		}
		if (hc_test_failures > 20)
			break;
	}
	/* Range removal against the model. */
	for (int rep = 0; rep < 50 && hc_test_failures <= 20; rep++) {
		uint64_t lo = R0 + (rnd() % SPAN & ~4095ull), hi = lo + rnd() % 200000 + 1;
		uint32_t want = 0, got;
		for (int i = 0; i < nmodel; i++)
			if (model[i].base < hi && lo < model[i].base + model[i].size)
				want++;
		got = blocks__remove_range(lo, hi);
		CHECK_EQ_U64(got, want);
		for (int i = 0; i < nmodel; i++)
			if (model[i].base < hi && lo < model[i].base + model[i].size)
				model[i--] = model[--nmodel];
		for (int k = 0; k < 200; k++)
			check_addr(lo - 70000 + rnd() % (hi - lo + 140000), __LINE__);
		while (nmodel < MAXB / 2) {
			uint64_t size = rnd() % 5000 + 1, base = R0 + (rnd() % SPAN & ~15ull);
			if (model_free(base, size))
				add(base, size, HC_OBJ_MALLOC, &lc);
		}
	}
	while (nmodel)
		del(nmodel - 1, NULL);
}

static void test_sites(void)
{
	uint32_t a = blocks__site_new(3, 77), b = blocks__site_new(4, 78), th, ctx;

	CHECK(a != 0 && b != 0 && a != b);
	CHECK(blocks__site_get(a, &th, &ctx) && th == 3 && ctx == 77);
	CHECK(blocks__site_get(b, &th, &ctx) && th == 4 && ctx == 78);
	CHECK(!blocks__site_get(0, &th, &ctx));
	CHECK(!blocks__site_get(b + 1000, &th, &ctx));
}

/* ---------------- concurrency ---------------- */

#define NW     2
#define NR     2
#define WSPAN  (2ull << 20)
#define NPERM  64

static int stop, writers_ready;     /* atomic (a volatile read would race the store: TSan) */
static volatile long bad_reads, perm_misses, handler_lookups;
static uint64_t perm[NW][NPERM];

static uint32_t site_of(uint64_t base, uint64_t size)
{
	uint64_t h = (base ^ size * 0x9E3779B97F4A7C15ull) * 0xff51afd7ed558ccdull;
	return (uint32_t)(h >> 40) % RT_SITE_MAX + 1;
}

static void verify_lookup(uint64_t a)
{
	struct rt_block b;

	if (blocks__find(a, &b) &&
	    (a - b.base >= b.size || b.site != site_of(b.base, b.size)))
		__atomic_add_fetch(&bad_reads, 1, __ATOMIC_RELAXED);
}

static void verify_perm(int w, int k)
{
	struct rt_block b;
	uint64_t base = perm[w][k];

	if (!blocks__find(base + 40, &b) || b.base != base || b.size != 48 + (uint64_t)k * 16)
		__atomic_add_fetch(&perm_misses, 1, __ATOMIC_RELAXED);
}

static void on_prof(int sig)
{
	static __thread uint64_t s = 0x12345;
	int saved = errno;

	(void)sig;
	for (int i = 0; i < 16; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		verify_lookup(R0 + (s % (NW * WSPAN)));
		verify_perm((int)((s >> 20) % NW), (int)((s >> 30) % NPERM));
	}
	__atomic_add_fetch(&handler_lookups, 1, __ATOMIC_RELAXED);
	errno = saved;
}

static void *writer(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint64_t lo = R0 + (uint64_t)w * WSPAN, s = 0x9E3779B97F4A7C15ull * (uint64_t)(w + 1);
	static __thread uint64_t live[256];
	struct rt_leaf_cache lc;
	long ops = 0;

	memset(&lc, 0, sizeof(lc));
	memset(live, 0, sizeof(live));
	/* Slot i owns [lo + i * 8 KiB, +8 KiB); permanent blocks live in the
	   first 4 KiB of the top slots' ranges, churn in the rest. */
	for (int k = 0; k < NPERM; k++) {
		perm[w][k] = lo + WSPAN / 2 + (uint64_t)k * 8192;
		blocks__insert(&lc, perm[w][k], 48 + (uint64_t)k * 16,
		                  site_of(perm[w][k], 48 + (uint64_t)k * 16), HC_OBJ_MALLOC);
	}
	__atomic_add_fetch(&writers_ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int i;
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		i = (int)(s % 128);
		if (live[i]) {
			if ((s & 4) == 0 || rm_direct(live[i]) < 0)
				blocks__remove(s & 1 ? &lc : NULL, live[i], NULL);
			live[i] = 0;
		} else {
			uint64_t size = (s >> 8) % (s & 2 ? 8000 : 600) + 1;
			uint64_t base = lo + (uint64_t)i * 8192 + ((s >> 24) % 8 * 16);
			uint32_t kind = (s >> 40) % 8 == 0 ? HC_OBJ_MMAP : HC_OBJ_MALLOC;
			if ((kind == HC_OBJ_MALLOC && (s & 4) &&
			     ins_direct(base, size, site_of(base, size))) ||
			    blocks__insert(&lc, base, size, site_of(base, size), kind) == 0)
				live[i] = base;
		}
		ops++;
	}
	for (int i = 0; i < 256; i++)
		if (live[i])
			blocks__remove(&lc, live[i], NULL);
	return (void *)ops;
}

static void *reader(void *arg)
{
	uint64_t s = 0xabcdef12345ull + (uint64_t)(intptr_t)arg;
	long n = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		verify_lookup(R0 + s % (NW * WSPAN));
		verify_perm((int)((s >> 20) % NW), (int)((s >> 30) % NPERM));
		n++;
	}
	return (void *)n;
}

static void test_concurrent(void)
{
	pthread_t wt[NW], rt[NR];
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	struct sigaction sa;
	void *ops;
	long wops = 0, rops = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	for (int w = 0; w < NW; w++)
		pthread_create(&wt[w], NULL, writer, (void *)(intptr_t)w);
	/* Permanent blocks in place before anyone checks them. */
	while (__atomic_load_n(&writers_ready, __ATOMIC_ACQUIRE) < NW)
		usleep(1000);
	for (int r = 0; r < NR; r++)
		pthread_create(&rt[r], NULL, reader, (void *)(intptr_t)r);
	setitimer(ITIMER_PROF, &it, NULL);
	usleep(1500000);
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (int w = 0; w < NW; w++) {
		pthread_join(wt[w], &ops);
		wops += (long)ops;
	}
	for (int r = 0; r < NR; r++) {
		pthread_join(rt[r], &ops);
		rops += (long)ops;
	}
	fprintf(stderr, "concurrent: %ld writer ops, %ld reader lookups, %ld handler runs\n",
	        wops, rops, handler_lookups);
	/* the phase ran concurrently at all: a count, not a rate (under TSan
	   on a loaded machine, session 25's CI: 31,282 and 2,052 in 1.5 s,
	   against ~900,000 and ~90,000 unloaded) */
	CHECK(wops > 1000 && rops > 1000);
	CHECK_EQ_U64(bad_reads, 0);
	CHECK_EQ_U64(perm_misses, 0);
	/* Everything left: the permanent blocks only. */
	for (int w = 0; w < NW; w++)
		for (int k = 0; k < NPERM; k++)
			CHECK(blocks__remove(NULL, perm[w][k], NULL));
	for (int k = 0; k < 4000; k++) {
		struct rt_block b;
		CHECK(!blocks__find(R0 + rnd() % (NW * WSPAN), &b));
	}
}

/* munmap of small mappings in regions where nothing else lives (with the
   direct shadow no directory entry exists there unless the block notes
   its chunks): each is found and removed by range, wholly. */
static void test_range_fresh(void)
{
	uint64_t r = R0 + (40ull << 30);     /* a region no other test uses */
	struct rt_block b;

	CHECK_EQ_U64(blocks__insert(NULL, r + 0x3000, 8192, 7, HC_OBJ_MMAP), 0);
	CHECK_EQ_U64(blocks__insert(NULL, r + 0x1f000, 12288, 8, HC_OBJ_MMAP), 0); /* 2 chunks */
	CHECK_EQ_U64(blocks__insert(NULL, r + (3ull << 30) + 0x5000, 4096, 9, HC_OBJ_MMAP), 0);
	CHECK(blocks__find(r + 0x3000 + 8191, &b) && b.site == 7);
	CHECK(blocks__find(r + 0x20800, &b) && b.site == 8);
	CHECK_EQ_U64(blocks__remove_range(r + 0x3000, r + 0x5000), 1);
	CHECK_EQ_U64(blocks__remove_range(r + 0x20000, r + 0x21000), 1);   /* its tail */
	CHECK_EQ_U64(blocks__remove_range(r + (3ull << 30), r + (3ull << 30) + 0x10000), 1);
	CHECK(!blocks__find(r + 0x3000, &b));
	CHECK(!blocks__find(r + 0x1f000, &b));
	CHECK(!blocks__find(r + 0x21fff, &b));
	CHECK(!blocks__find(r + (3ull << 30) + 0x5000, &b));
	CHECK_EQ_U64(blocks__remove_range(r, r + (4ull << 30)), 0);
}

static void test_reset(void)
{
	struct rt_block b;
	uint32_t th, ctx;

	CHECK_EQ_U64(blocks__insert(NULL, R0, 64, 5, HC_OBJ_MALLOC), 0);
	CHECK(blocks__find(R0 + 3, &b));
	blocks__reset();
	CHECK(blocks__used());       /* never cleared */
	CHECK(!blocks__find(R0 + 3, &b));
	CHECK(!blocks__site_get(1, &th, &ctx));
	CHECK_EQ_U64(blocks__insert(NULL, R0, 64, 5, HC_OBJ_MALLOC), 0);
	CHECK(blocks__find(R0 + 63, &b) && b.size == 64);
}

/* Everything, with the direct-mapped shadow (direct) or with the leaves
   of the directory only (the fallback when the big reservation fails). */
static int run_all(bool direct, const char *name)
{
	if (!direct)
		blocks__no_direct();
	CHECK(!blocks__used());
	CHECK_EQ_U64(blocks__init(), 0);
	CHECK_EQ_U64(blocks__init(), 0);       /* idempotent */
	if (!direct)
		CHECK(blocks__shadow() == NULL);
	else if (!blocks__shadow())
		fprintf(stderr, "%s: no direct-mapped shadow here (mmap of 32 TiB refused)\n", name);
	test_sites();
	test_fixed();
	CHECK(blocks__used());
	test_random();
	test_concurrent();
	test_range_fresh();
	test_reset();
	return hc_test_done(name);
}

int main(void)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0)
		_exit(run_all(false, "test_blocks (directory leaves)"));
	CHECK(pid > 0);
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	return run_all(true, "test_blocks (direct shadow)");
}
