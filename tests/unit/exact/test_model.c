/* SPDX-License-Identifier: BSD-3-Clause */
/* test_model.c — the exact mode's ownership model (lib/exact/model.c) on
   scripted access sequences whose transfers and counts are derived by hand
   from the rules at the top of model.c (cited as R1..W3, A1, S). */
#include <stdlib.h>
#include "exact/model.h"
#include "../../hc_test.h"

#define A 0x100000ull      /* 128-byte aligned */

struct rec { struct hc_xtransfer x[1024]; int n; };
static struct rec rec;

#include "model_alloc.h"
static uint32_t ctx_of(void *arg) { return 1000 + ((struct hc_xthread *)arg)->id; }
static void on_transfer(void *arg, const struct hc_xtransfer *x)
{
	(void)arg;
	if (rec.n < 1024)
		rec.x[rec.n++] = *x;
}

static struct hc_xthread th[256];

static void threads_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		memset(&th[i], 0, sizeof th[i]);
		th[i].id = i;
		th[i].ctx = ctx_of;
		th[i].transfer = on_transfer;
		th[i].arg = &th[i];
	}
}

static void model(struct hc_xmodel *m, unsigned shift)
{
	struct hc_xmodel_config c = { .line_shift = shift, .alloc = zalloc };
	CHECK(hc_xmodel_init(m, &c) == 0);
	threads_init();
	rec.n = 0;
}

/* acc: one access; returns its number of transfers, the last one in *last. */
static unsigned acc(struct hc_xmodel *m, uint32_t t, uint64_t addr, uint64_t len, int kind)
{
	int before = rec.n;
	unsigned n = hc_xmodel_access(m, &th[t], addr, len, kind);
	CHECK_EQ_U64(n, (unsigned)(rec.n - before));
	return n;
}

#define LAST (rec.x[rec.n - 1])

static void test_rules(void)
{
	struct hc_xmodel m;

	model(&m, 6);
	/* R2 cold: T0 reads a fresh line */
	CHECK_EQ_U64(acc(&m, 0, A, 4, HC_X_READ), 0);
	CHECK_EQ_U64(th[0].st.read_misses, 1);
	CHECK_EQ_U64(th[0].st.cold_misses, 1);
	/* W1: T0 is the sole holder: writes are hits */
	CHECK_EQ_U64(acc(&m, 0, A, 4, HC_X_WRITE), 0);
	CHECK(hc_xmodel_hit(&m, 0, A, 4, HC_X_WRITE, 0));
	CHECK(hc_xmodel_hit(&m, 0, A + 1, 2, HC_X_WRITE, 0));
	CHECK(!hc_xmodel_hit(&m, 0, A + 4, 4, HC_X_WRITE, 0));   /* new bytes: slow path */
	CHECK(hc_xmodel_hit(&m, 0, A + 40, 8, HC_X_READ, 0));
	CHECK(!hc_xmodel_hit(&m, 1, A, 4, HC_X_READ, 0));
	/* R2: T1 reads what T0 wrote: one true transfer 0 -> 1 */
	CHECK_EQ_U64(acc(&m, 1, A, 4, HC_X_READ), 1);
	CHECK_EQ_U64(LAST.writer, 0);
	CHECK_EQ_U64(LAST.writer_ctx, 1000);
	CHECK(LAST.is_true);
	CHECK(!LAST.is_write);
	CHECK_EQ_U64(LAST.addr, A);
	CHECK_EQ_U64(LAST.peer_addr, A);
	CHECK_EQ_U64(LAST.peer_len, 4);
	/* R1: T1 now holds the line */
	CHECK_EQ_U64(acc(&m, 1, A + 8, 4, HC_X_READ), 0);
	CHECK_EQ_U64(th[1].st.read_misses, 1);
	/* W2: T1 writes A+8: upgrade, T0's copy invalidated, no transfer */
	CHECK_EQ_U64(acc(&m, 1, A + 8, 4, HC_X_WRITE), 0);
	CHECK_EQ_U64(th[1].st.upgrades, 1);
	CHECK_EQ_U64(th[1].st.invalidated, 1);
	CHECK(!hc_xline_holds(hc_xmodel_line(&m, A), 0));
	/* R2 false: T0 reads A (its own old bytes); W = {8..11} by T1 */
	CHECK_EQ_U64(acc(&m, 0, A, 4, HC_X_READ), 1);
	CHECK_EQ_U64(LAST.writer, 1);
	CHECK_EQ_U64(LAST.writer_ctx, 1001);
	CHECK(!LAST.is_true);
	CHECK_EQ_U64(LAST.peer_addr, A + 8);
	CHECK_EQ_U64(LAST.peer_len, 4);
	/* W3: T2 writes A+8 (write miss), true (overwrites T1's bytes), invalidates T0 and T1 */
	CHECK_EQ_U64(acc(&m, 2, A + 8, 4, HC_X_WRITE), 1);
	CHECK_EQ_U64(LAST.writer, 1);
	CHECK(LAST.is_true);
	CHECK(LAST.is_write);
	CHECK_EQ_U64(th[2].st.write_misses, 1);
	CHECK_EQ_U64(th[2].st.invalidated, 2);
	/* S: T0 writes 8 bytes at A+60: line A is a write miss from T2 (false),
	   line A+64 is fresh (cold, no transfer) */
	CHECK_EQ_U64(acc(&m, 0, A + 60, 8, HC_X_WRITE), 1);
	CHECK_EQ_U64(LAST.writer, 2);
	CHECK(!LAST.is_true);
	CHECK_EQ_U64(LAST.addr, A + 60);
	CHECK_EQ_U64(LAST.len, 4);
	CHECK_EQ_U64(th[0].st.write_misses, 2);
	CHECK_EQ_U64(th[0].st.cold_misses, 2);   /* the first read and line A+64 */
	/* A1: T1's atomic RMW on A+60: a write miss from T0, true */
	CHECK_EQ_U64(acc(&m, 1, A + 60, 4, HC_X_RMW), 1);
	CHECK_EQ_U64(LAST.writer, 0);
	CHECK(LAST.is_true);
	CHECK(LAST.is_write);
	/* the RMW made T1 the sole holder and writer: a second one is a hit */
	CHECK_EQ_U64(acc(&m, 1, A + 60, 4, HC_X_RMW), 0);
	CHECK_EQ_U64(th[1].st.write_misses, 1);
	/* memset by T2 of [A, A+128): two write misses, both true
	   (line A: T1 wrote 60..63; line A+64: T0 wrote 64..67) */
	CHECK_EQ_U64(acc(&m, 2, A, 128, HC_X_WRITE), 2);
	CHECK(rec.x[rec.n - 2].is_true && rec.x[rec.n - 2].writer == 1);
	CHECK(rec.x[rec.n - 1].is_true && rec.x[rec.n - 1].writer == 0);
	/* memcpy by T0 of 8 bytes A+64 -> A+256: the read is a miss from T2
	   (true: T2 wrote the whole line), the write a cold miss */
	CHECK_EQ_U64(acc(&m, 0, A + 64, 8, HC_X_READ) + acc(&m, 0, A + 256, 8, HC_X_WRITE), 1);
	CHECK_EQ_U64(LAST.writer, 2);
	CHECK_EQ_U64(LAST.peer_len, 64);
	/* totals */
	CHECK_EQ_U64(th[0].st.transfers_true + th[0].st.transfers_false, 3);
	CHECK_EQ_U64(th[0].st.transfers_true, 1);
	CHECK_EQ_U64(th[1].st.transfers_true, 2);
	CHECK_EQ_U64(th[2].st.transfers_true, 3);
	/* zero length and kernel addresses are ignored */
	CHECK_EQ_U64(acc(&m, 0, A, 0, HC_X_READ), 0);
	CHECK_EQ_U64(acc(&m, 0, 0xffffffff81000000ull, 8, HC_X_READ), 0);
	CHECK_EQ_U64(th[0].st.ignored, 2);
}

/* The nearest-neighbour ring: T(i) writes slot i, reads slot i-1; slots on
   their own lines. Each round after the first moves every slot once. */
static void test_ring(void)
{
	struct hc_xmodel m;
	const int n = 4, rounds = 10;
	unsigned total = 0;

	model(&m, 6);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < n; i++)
			acc(&m, (uint32_t)i, A + 64 * (uint64_t)i, 8, HC_X_WRITE);
		for (int i = 0; i < n; i++)
			total += acc(&m, (uint32_t)i, A + 64 * (uint64_t)((i + n - 1) % n), 8, HC_X_READ);
	}
	CHECK_EQ_U64(total, (unsigned)(n * rounds));
	for (int k = 0; k < rec.n; k++) {
		CHECK(rec.x[k].is_true);
		CHECK_EQ_U64(rec.x[k].writer, (uint32_t)((rec.x[k].addr - A) / 64));
	}
	/* writes after the first are upgrades (the neighbour's copy invalidated) */
	CHECK_EQ_U64(th[0].st.upgrades, (unsigned)(rounds - 1));
}

/* 128-byte lines: bytes 0 and 64 are one line (adjacent-line prefetch). */
static void test_line128(void)
{
	struct hc_xmodel m64, m128;

	model(&m64, 6);
	CHECK_EQ_U64(acc(&m64, 0, A, 8, HC_X_WRITE), 0);
	CHECK_EQ_U64(acc(&m64, 1, A + 64, 8, HC_X_READ), 0);
	model(&m128, 7);
	CHECK_EQ_U64(acc(&m128, 0, A, 8, HC_X_WRITE), 0);
	CHECK_EQ_U64(acc(&m128, 1, A + 64, 8, HC_X_READ), 1);
	CHECK(!LAST.is_true);
	CHECK_EQ_U64(LAST.peer_addr, A);
	/* the written-byte set spans both 64-byte halves */
	CHECK_EQ_U64(acc(&m128, 0, A + 120, 8, HC_X_WRITE), 0);   /* upgrade */
	CHECK_EQ_U64(acc(&m128, 1, A + 124, 2, HC_X_READ), 1);
	CHECK(LAST.is_true);
	CHECK_EQ_U64(LAST.peer_addr, A + 120);
	CHECK(hc_xmodel_hit(&m128, 0, A + 8, 8, HC_X_READ, 0));
	/* an access crossing the 64-byte half inside a 128-byte line is one line */
	CHECK_EQ_U64(acc(&m128, 2, A + 60, 8, HC_X_READ), 1);
	CHECK(!LAST.is_true);
	CHECK_EQ_U64(LAST.len, 8);
	CHECK(hc_xmodel_init(&m128, &(struct hc_xmodel_config){ .line_shift = 5, .alloc = zalloc }) < 0);
}

/* Holder ids beyond 64 (the overflow bitmap), and its growth. */
static void test_many_threads(void)
{
	struct hc_xmodel m;
	unsigned n = 0;

	model(&m, 6);
	CHECK_EQ_U64(acc(&m, 100, A, 4, HC_X_WRITE), 0);
	CHECK_EQ_U64(acc(&m, 200, A, 4, HC_X_READ), 1);
	CHECK_EQ_U64(LAST.writer, 100);
	CHECK(hc_xline_holds(hc_xmodel_line(&m, A), 100));
	CHECK(hc_xline_holds(hc_xmodel_line(&m, A), 200));
	CHECK(!hc_xline_holds(hc_xmodel_line(&m, A), 199));
	CHECK_EQ_U64(acc(&m, 200, A, 4, HC_X_WRITE), 0);            /* upgrade */
	CHECK_EQ_U64(th[200].st.invalidated, 1);
	CHECK(!hc_xline_holds(hc_xmodel_line(&m, A), 100));
	CHECK_EQ_U64(acc(&m, 100, A, 4, HC_X_READ), 1);
	CHECK_EQ_U64(LAST.writer, 200);
	/* 255 readers of one write: 254 transfers, all from T0 */
	acc(&m, 0, A + 64, 8, HC_X_WRITE);
	for (uint32_t t = 1; t < 255; t++)
		n += acc(&m, t, A + 64, 8, HC_X_READ);
	CHECK_EQ_U64(n, 254);
	for (uint32_t t = 0; t < 255; t++)
		CHECK(hc_xline_holds(hc_xmodel_line(&m, A + 64), t));
	/* one write invalidates them all */
	CHECK_EQ_U64(acc(&m, 7, A + 64, 8, HC_X_WRITE), 0);
	CHECK_EQ_U64(th[7].st.invalidated, 254);
}

/* Rule P (cfg.last_writer): the peer's context of a true transfer is the
   writer's last store site when that site wrote the words read (P2), else
   the ownership's first store (P3); of a false transfer the ownership's
   first store (P1). The context callback returns the thread's current tag
   (its "store site") so each transfer says which store it names. */
static uint32_t ctx_site(void *arg)
{
	const struct hc_xthread *t = arg;
	return 100000 + t->tag * 10 + t->id;
}
#define SITE(tag, id) (100000u + (tag) * 10u + (id))

/* w: thread t writes len bytes at addr from store site tag */
static unsigned w(struct hc_xmodel *m, uint32_t t, uint32_t tag, uint64_t addr, uint64_t len)
{
	th[t].tag = tag;
	return acc(m, t, addr, len, HC_X_WRITE);
}

static void model_lw(struct hc_xmodel *m, unsigned shift, bool on)
{
	struct hc_xmodel_config c = { .line_shift = shift, .alloc = zalloc, .last_writer = on };
	CHECK(hc_xmodel_init(m, &c) == 0);
	threads_init();
	for (int i = 0; i < 256; i++)
		th[i].ctx = ctx_site;
	rec.n = 0;
}

static void test_last_writer(void)
{
	struct hc_xmodel m;
	const uint64_t L = A, L2 = A + 64, L3 = A + 128, L4 = A + 192;

	/* generations.c: T0 fills a line at site 44 (its first store of the
	   ownership), then rewrites words 1..7 at site 47 (the rounds loop) */
	for (int on = 0; on < 2; on++) {
		model_lw(&m, 6, on);
		for (int i = 0; i < 8; i++)
			w(&m, 0, 44, L + 8 * (uint64_t)i, 8);
		for (int r = 0; r < 2; r++)
			for (int i = 1; i < 8; i++)
				w(&m, 0, 47, L + 8 * (uint64_t)i, 8);
		CHECK_EQ_U64(th[0].st.site_changes, on ? 1 : 0);
		/* the fast path: the same site over words it wrote is a hit; a
		   new site, or a word the site has not written, is not (on) */
		CHECK(hc_xmodel_hit(&m, 0, L + 8, 8, HC_X_WRITE, 47));
		CHECK(hc_xmodel_hit(&m, 0, L + 8, 8, HC_X_WRITE, 44) == !on);
		CHECK(hc_xmodel_hit(&m, 0, L, 8, HC_X_WRITE, 47) == !on);
		/* the next generation's T1 reads word 3: true, from site 47 (P2) */
		CHECK_EQ_U64(acc(&m, 1, L + 24, 8, HC_X_READ), 1);
		CHECK(LAST.is_true);
		CHECK_EQ_U64(LAST.writer, 0);
		CHECK_EQ_U64(LAST.writer_ctx, on ? SITE(47, 0) : SITE(44, 0));
		CHECK(LAST.peer_last == (bool)on);
		/* T2 reads word 0, written at 44 only: the last site did not
		   write it, the ownership's first store did (P3) */
		CHECK_EQ_U64(acc(&m, 2, L, 8, HC_X_READ), 1);
		CHECK(LAST.is_true);
		CHECK_EQ_U64(LAST.writer_ctx, SITE(44, 0));
		CHECK(!LAST.peer_last);
		CHECK_EQ_U64(th[1].st.peer_last, on ? 1 : 0);
		CHECK_EQ_U64(th[2].st.peer_owner_true, on ? 1 : 0);
		/* W3 true: T3 overwrites word 5 (written last at 47): P2 */
		CHECK_EQ_U64(w(&m, 3, 60, L + 40, 8), 1);
		CHECK(LAST.is_true && LAST.is_write);
		CHECK_EQ_U64(LAST.writer_ctx, on ? SITE(47, 0) : SITE(44, 0));
		/* T3 is the owner now, its site 60 the last: T0 reads word 5 */
		CHECK_EQ_U64(acc(&m, 0, L + 40, 8, HC_X_READ), 1);
		CHECK_EQ_U64(LAST.writer, 3);
		CHECK_EQ_U64(LAST.writer_ctx, SITE(60, 3));
	}

	/* false sharing: T0 takes L2 at site 5 (word 0), then writes word 1
	   at site 6; T1 reads word 7, which T0 never wrote: false, the peer
	   the store that took the line (P1), whatever came last */
	model_lw(&m, 6, true);
	CHECK_EQ_U64(acc(&m, 1, L2 + 56, 8, HC_X_READ), 0);         /* T1 holds a copy */
	CHECK_EQ_U64(w(&m, 0, 5, L2, 8), 0);                        /* W3 cold, invalidates T1 */
	CHECK_EQ_U64(w(&m, 0, 6, L2 + 8, 8), 0);                    /* W1, new site */
	CHECK_EQ_U64(acc(&m, 1, L2 + 56, 8, HC_X_READ), 1);
	CHECK(!LAST.is_true);
	CHECK_EQ_U64(LAST.writer_ctx, SITE(5, 0));
	CHECK(!LAST.peer_last);
	CHECK_EQ_U64(th[1].st.peer_last + th[1].st.peer_owner_true, 0);

	/* spsc.c: items of 16 bytes (seq, val), four to a line; the producer
	   T0 stores seq at site 53 and val at site 54, alternating. The
	   consumer's read of item 0's seq finds site 54 last (item 1's val):
	   P3, the ownership's first store, 53 (item 0's seq); of item 1's val
	   P2, 54. Every alternation is a site change. */
	CHECK_EQ_U64(w(&m, 0, 53, L3, 8), 0);
	CHECK_EQ_U64(w(&m, 0, 54, L3 + 8, 8), 0);
	CHECK_EQ_U64(w(&m, 0, 53, L3 + 16, 8), 0);
	CHECK_EQ_U64(w(&m, 0, 54, L3 + 24, 8), 0);
	CHECK_EQ_U64(th[0].st.site_changes, 1 + 3);                 /* site 6 above, then 3 */
	CHECK_EQ_U64(acc(&m, 1, L3, 8, HC_X_READ), 1);
	CHECK(LAST.is_true);
	CHECK_EQ_U64(LAST.writer_ctx, SITE(53, 0));
	CHECK(!LAST.peer_last);
	CHECK_EQ_U64(acc(&m, 2, L3 + 24, 8, HC_X_READ), 1);
	CHECK_EQ_U64(LAST.writer_ctx, SITE(54, 0));
	CHECK(LAST.peer_last);

	/* an access of several words: any word the last site wrote names it;
	   a 128-byte line has 16 words (bits up to 15) */
	CHECK_EQ_U64(hc_xwords(0, 8), 0x1);
	CHECK_EQ_U64(hc_xwords(4, 8), 0x3);
	CHECK_EQ_U64(hc_xwords(56, 8), 0x80);
	CHECK_EQ_U64(hc_xwords(0, 128), 0xffff);
	CHECK_EQ_U64(hc_xwords(120, 8), 0x8000);
	CHECK_EQ_U64(w(&m, 0, 70, L4, 8), 0);
	CHECK_EQ_U64(w(&m, 0, 71, L4 + 16, 8), 0);
	CHECK_EQ_U64(acc(&m, 1, L4 + 4, 16, HC_X_READ), 1);        /* words 0..2 */
	CHECK_EQ_U64(LAST.writer_ctx, SITE(71, 0));
	model_lw(&m, 7, true);
	CHECK_EQ_U64(w(&m, 0, 80, A, 8), 0);
	CHECK_EQ_U64(w(&m, 0, 81, A + 120, 8), 0);
	CHECK(hc_xmodel_hit(&m, 0, A + 120, 8, HC_X_WRITE, 81));
	CHECK(!hc_xmodel_hit(&m, 0, A, 8, HC_X_WRITE, 81));
	CHECK_EQ_U64(acc(&m, 1, A + 120, 8, HC_X_READ), 1);
	CHECK_EQ_U64(LAST.writer_ctx, SITE(81, 0));
	CHECK_EQ_U64(acc(&m, 2, A, 8, HC_X_READ), 1);
	CHECK_EQ_U64(LAST.writer_ctx, SITE(80, 0));
}

/* spsc.c's item lines (16-byte items, four to a line) with the producer
   one item ahead of the consumer: the consumer's copy already holds the
   item it reads next, and the producer's store of the following item
   invalidates it. The re-fetch carries no byte the consumer lacked: false
   sharing (rules R2/W2, P1), though the bytes read were written by the
   same producer earlier (what a sampled trap on the producer's store
   sees: doc/detection.md, "Session 16"). */
static void test_spsc_refetch(void)
{
	struct hc_xmodel m;
	const uint64_t L = A;

	model_lw(&m, 6, true);
	w(&m, 0, 53, L, 8);                                 /* item 0 */
	w(&m, 0, 54, L + 8, 8);
	w(&m, 0, 53, L + 16, 8);                            /* item 1 */
	w(&m, 0, 54, L + 24, 8);
	CHECK_EQ_U64(acc(&m, 1, L, 8, HC_X_READ), 1);       /* consumer: item 0's seq */
	CHECK(LAST.is_true);
	CHECK_EQ_U64(acc(&m, 1, L + 8, 8, HC_X_READ), 0);   /* its val: a hit */
	CHECK_EQ_U64(w(&m, 0, 53, L + 32, 8), 0);           /* item 2's seq: upgrade */
	CHECK_EQ_U64(acc(&m, 1, L + 16, 8, HC_X_READ), 1);  /* item 1's seq: held already */
	CHECK(!LAST.is_true);
	CHECK_EQ_U64(LAST.writer_ctx, SITE(53, 0));         /* the invalidating store (P1) */
	CHECK_EQ_U64(w(&m, 0, 54, L + 40, 8), 0);           /* item 2's val: upgrade */
	CHECK_EQ_U64(acc(&m, 1, L + 24, 8, HC_X_READ), 1);  /* item 1's val: false again */
	CHECK(!LAST.is_true);
	CHECK_EQ_U64(LAST.writer_ctx, SITE(54, 0));
	CHECK_EQ_U64(acc(&m, 1, L + 32, 8, HC_X_READ), 0);  /* item 2: in that copy */
	CHECK_EQ_U64(th[1].st.transfers_true, 1);
	CHECK_EQ_U64(th[1].st.transfers_false, 2);
}

int main(void)
{
	test_rules();
	test_ring();
	test_line128();
	test_many_threads();
	test_last_writer();
	test_spsc_refetch();
	CHECK(nblocks <= 4096);
	free_all();
	return hc_test_done("test_model");
}
