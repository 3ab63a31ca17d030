/* SPDX-License-Identifier: BSD-3-Clause */
/* test_zone.c — zone.h, where two threads' samples meet, on synthetic
   streams: the side word, the zone of two ranges (overlap, gap), notes
   that extend a thread's range, a third thread and a stale side, a block
   that collides with another's slot, and the picks: on a stencil-like
   stream (two threads, each sampling its own block of rows of a grid and
   the neighbour's boundary row) every pick lies near the boundary, most
   on the two rows the threads share. */
#include <stdint.h>
#include <string.h>

#include "runtime/zone.h"
#include "hc_test.h"

#define MS 1000000ull

static void words(void)
{
	struct rt_zone_side s = { .thread = 513, .lo = 7, .hi = 1023, .time = 0xfffff, .tag = 0x2b, .stored = true, .valid = true };
	struct rt_zone_side u = rt_zone_unpack(rt_zone_pack(&s));

	CHECK(u.valid && u.thread == 513 && u.lo == 7 && u.hi == 1023 && u.time == 0xfffff && u.tag == 0x2b && u.stored);
	CHECK(!rt_zone_unpack(0).valid);
	/* freshness modulo the 20-bit clock */
	CHECK(rt_zone_fresh(10, 20, 10));
	CHECK(!rt_zone_fresh(10, 21, 10));
	CHECK(rt_zone_fresh(0xffffa, 3, 10));    /* wrapped */
	CHECK(!rt_zone_fresh(0xffff0, 3, 10));
	CHECK(rt_zone_fresh(25, 20, 10));        /* a little ahead of this clock read */
	CHECK(!rt_zone_fresh(31, 20, 10));
}

static void between(void)
{
	uint32_t z0, z1;

	rt_zone_between(0, 500, 400, 900, &z0, &z1);     /* overlap */
	CHECK(z0 == 400 && z1 == 500);
	rt_zone_between(400, 900, 0, 500, &z0, &z1);
	CHECK(z0 == 400 && z1 == 500);
	rt_zone_between(0, 300, 600, 900, &z0, &z1);     /* gap */
	CHECK(z0 == 300 && z1 == 600);
	rt_zone_between(600, 900, 0, 300, &z0, &z1);
	CHECK(z0 == 300 && z1 == 600);
	rt_zone_between(5, 5, 5, 5, &z0, &z1);           /* one line */
	CHECK(z0 == 5 && z1 == 5);
	rt_zone_between(0, 1023, 100, 200, &z0, &z1);    /* one inside the other */
	CHECK(z0 == 100 && z1 == 200);
}

static void notes(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	uint64_t blk = 0x7f0000a00000ull, now = 1000 * MS;
	uint32_t win = 100;
	struct rt_zone z;
	uint32_t slot = (uint32_t)((blk >> RT_ZONE_SHIFT) % RT_ZONE_SLOTS);

	CHECK(!rt_zone_at(tab, slot, now, win, &z));
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 1, blk + 10 * 64, now, win, true) == 1);
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 1, blk + 20 * 64 + 8, now, win, true) == 1);
	CHECK(!rt_zone_at(tab, slot, now, win, &z));         /* one thread: no zone */
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 2, blk + 40 * 64, now, win, true) == 1);
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 2, blk + 30 * 64, now, win, true) == 1);
	CHECK(rt_zone_at(tab, slot, now, win, &z));
	CHECK(z.base == blk && z.z0 == 20 && z.z1 == 30);     /* the gap between 10..20 and 30..40 */
	CHECK((z.a == 1 && z.b == 2) || (z.a == 2 && z.b == 1));
	/* thread 1 reaches into thread 2's range: the overlap */
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 1, blk + 33 * 64, now, win, true) == 1);
	CHECK(rt_zone_at(tab, slot, now, win, &z) && z.z0 == 30 && z.z1 == 33);
	/* a third thread takes the side noted longer ago (thread 2's, now
	   that thread 1 noted again later) */
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 1, blk + 12 * 64, now + 5 * MS, win, true) == 1);
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 3, blk + 900 * 64, now + 5 * MS, win, true) == 1);
	CHECK(rt_zone_at(tab, slot, now + 5 * MS, win, &z));
	CHECK((z.a == 1 && z.b == 3) || (z.a == 3 && z.b == 1));
	CHECK(z.z0 == 33 && z.z1 == 900);
	/* stale: both lapse, no zone */
	CHECK(!rt_zone_at(tab, slot, now + 200 * MS, win, &z));
	/* another block on the same slot: refused while a side is fresh,
	   takes the slot once both lapsed */
	{
		uint64_t other = blk + ((uint64_t)RT_ZONE_SLOTS << RT_ZONE_SHIFT);

		CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 4, other, now + 1 * MS, win, true) == 0);
		CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 4, other + 64, now + 300 * MS, win, true) == 1);
		CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 5, other + 128, now + 300 * MS, win, true) == 1);
		CHECK(rt_zone_at(tab, slot, now + 300 * MS, win, &z) && z.base == other && z.z0 == 1 && z.z1 == 2);
	}
}

/* Two workers of a 512-row grid of 64 lines a row (4 KiB rows, the
   accuracy suite's stencil): worker 0 writes rows 1..255 and reads rows
   0..256, worker 1 writes 256..510 and reads 255..511; samples at random
   rows of each worker's reach. Every pick must lie within 4 rows of the
   boundary; most on rows 255..256. */
static void stencil(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	uint64_t grid = 0x7f1234500000ull + 16, now = 5000 * MS, rng = 12345, addr;
	uint32_t win = 1000, near = 0, halo = 0, picks = 0;
	struct rt_zone z;

	CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, win, true, false, NULL, &rng, &addr, &z) == 0);
	for (int i = 0; i < 400; i++) {
		for (uint32_t w = 0; w < 2; w++) {
			uint64_t r = rt_zone_rng(&rng);
			uint32_t row = w == 0 ? (uint32_t)(r % 257) : 255 + (uint32_t)(r % 257);
			uint32_t x = (uint32_t)((r >> 20) % 512);

			rt_zone_note(tab, RT_ZONE_SLOTS, w + 1, grid + (uint64_t)row * 4096 + x * 8, now, win, true);
		}
	}
	for (int i = 0; i < 1000; i++) {
		uint64_t row;

		if (!rt_zone_pick(tab, RT_ZONE_SLOTS, now, win, true, false, NULL, &rng, &addr, &z))
			continue;
		picks++;
		CHECK(addr >= z.base && addr < z.base + (1u << RT_ZONE_SHIFT) && (addr & 7) == 0);
		row = (addr - grid) / 4096;
		near += row >= 251 && row <= 260;
		halo += row == 255 || row == 256;
	}
	CHECK(picks == 1000);
	CHECK_MSG(near == picks, "%u of %u picks within 4 rows of the boundary", near, picks);
	CHECK_MSG(halo * 2 >= picks, "%u of %u picks on the two shared rows", halo, picks);
}

/* The boundary between two threads' rows on a block edge: thread 1's
   rows end at the last line of block b, thread 2's begin at b + 1's first;
   the zone spans the edge. */
static void edge(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	uint64_t b = 0x7f2000000000ull >> RT_ZONE_SHIFT, base = b << RT_ZONE_SHIFT, now = 77 * MS, rng = 3, addr = 0;
	struct rt_zone z;
	uint32_t slot = (uint32_t)(b % RT_ZONE_SLOTS);

	for (uint32_t l = 0; l < RT_ZONE_LINES; l += 37) {
		rt_zone_note(tab, RT_ZONE_SLOTS, 1, base + (uint64_t)l * 64, now, 100, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 2, base + (1u << RT_ZONE_SHIFT) + (uint64_t)(l + 5) * 64, now, 100, true);
	}
	rt_zone_note(tab, RT_ZONE_SLOTS, 1, base + (RT_ZONE_LINES - 3) * 64, now, 100, true);
	CHECK(!rt_zone_at(tab, slot, now, 100, &z));
	CHECK(rt_zone_cross(tab, RT_ZONE_SLOTS, slot, now, 100, &z));
	CHECK(z.base == base && z.a == 1 && z.b == 2 && z.z0 == RT_ZONE_LINES - 3 && z.z1 == RT_ZONE_LINES + 5);
	CHECK(!rt_zone_cross(tab, RT_ZONE_SLOTS, (uint32_t)((b + 1) % RT_ZONE_SLOTS), now, 100, &z));
	for (int i = 0; i < 100; i++) {
		CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, false, NULL, &rng, &addr, &z) == 1);
		CHECK(addr >= base + (RT_ZONE_LINES - 3) * 64 && addr < base + (RT_ZONE_LINES + 6) * 64);
	}
	/* the same thread on both sides of the edge: no zone */
	rt_zone_note(tab, RT_ZONE_SLOTS, 1, base + (1u << RT_ZONE_SHIFT), now + 200 * MS, 100, true);
	CHECK(!rt_zone_cross(tab, RT_ZONE_SLOTS, slot, now + 200 * MS, 100, &z));
}

/* HPCRUN_COMM_PROCSET_ZONE_EDGE (§5.43): a wide gap across an edge kept
   to `edge` lines either side of it; a narrow one, or a zone within a
   block, left as it is. */
static void edge_kept(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	uint64_t b = 0x7f3000000000ull >> RT_ZONE_SHIFT, base = b << RT_ZONE_SHIFT, now = 77 * MS, rng = 5, addr = 0;
	uint32_t slot = (uint32_t)(b % RT_ZONE_SLOTS);
	struct rt_zone z;

	/* thread 1 in lines 0..400 of block b, thread 2 in 600..1023 of b + 1 */
	for (uint32_t l = 0; l <= 400; l += 20)
		rt_zone_note(tab, RT_ZONE_SLOTS, 1, base + (uint64_t)l * 64, now, 100, true);
	for (uint32_t l = 600; l < RT_ZONE_LINES; l += 20)
		rt_zone_note(tab, RT_ZONE_SLOTS, 2, base + (1u << RT_ZONE_SHIFT) + (uint64_t)l * 64, now, 100, true);
	CHECK(rt_zone_get(tab, RT_ZONE_SLOTS, slot, now, 100, false, &z) && z.cross);
	CHECK(z.z0 == 400 && z.z1 == RT_ZONE_LINES + 600);
	CHECK(rt_zone_get_e(tab, RT_ZONE_SLOTS, slot, now, 100, false, 32, &z) && z.cross);
	CHECK(z.z0 == RT_ZONE_LINES - 32 && z.z1 == RT_ZONE_LINES + 31);
	for (int i = 0; i < 200; i++) {
		CHECK(rt_zone_pick_e(tab, RT_ZONE_SLOTS, now, 100, true, false, 32, NULL, &rng, &addr, &z) == 1);
		CHECK(addr >= base + (RT_ZONE_LINES - 32) * 64 && addr < base + (RT_ZONE_LINES + 32) * 64);
		CHECK(z.stands == 64);
	}
	/* a narrower gap than the edge's lines: unchanged */
	z = (struct rt_zone){ .z0 = RT_ZONE_LINES - 3, .z1 = RT_ZONE_LINES + 5, .cross = true };
	rt_zone_edge(&z, 32);
	CHECK(z.z0 == RT_ZONE_LINES - 3 && z.z1 == RT_ZONE_LINES + 5);
	/* one side wide, the other narrow */
	z = (struct rt_zone){ .z0 = 10, .z1 = RT_ZONE_LINES + 2, .cross = true };
	rt_zone_edge(&z, 32);
	CHECK(z.z0 == RT_ZONE_LINES - 32 && z.z1 == RT_ZONE_LINES + 2);
	/* within a block: unchanged */
	z = (struct rt_zone){ .z0 = 10, .z1 = 900, .cross = false };
	rt_zone_edge(&z, 32);
	CHECK(z.z0 == 10 && z.z1 == 900);
}

/* Threads that each keep to their own block never make a zone. */
static void apart(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	uint64_t now = 100 * MS, rng = 7, addr;

	for (uint32_t i = 0; i < 200; i++)
		for (uint32_t w = 0; w < 4; w++)
			rt_zone_note(tab, RT_ZONE_SLOTS, w, 0x500000000000ull + ((uint64_t)w << 20) + i * 512, now, 100, true);
	CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, false, NULL, &rng, &addr, NULL) == 0);
}

/* A pair's zones picked in inverse proportion to their lines: threads 1
   and 2 meet in a zone of 4 lines (their ranges overlapping in a boundary
   row) and one of 400 (the gap between two sparse ranges in another
   block). The narrow one takes ~99 % of the picks; what a pick stands for
   keeps each zone's expected weight what a uniform choice of the zone
   gave; narrow false picks alike and stands for the zone's lines. Then a
   second pair (threads 3 and 4) with one wide zone: the pairs are picked
   alike, whatever their zones' widths. */
static void narrow(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	uint64_t b1 = 0x7f3000000000ull, b2 = b1 + (5ull << RT_ZONE_SHIFT), b3 = b1 + (9ull << RT_ZONE_SHIFT);
	uint64_t now = 50 * MS, rng = 99, addr;
	uint32_t picks1 = 0, picks2 = 0, picks3 = 0, n = 20000;
	double e1 = 0, e2 = 0;
	struct rt_zone z;

	rt_zone_note(tab, RT_ZONE_SLOTS, 1, b1 + 100 * 64, now, 100, true);
	rt_zone_note(tab, RT_ZONE_SLOTS, 1, b1 + 203 * 64, now, 100, true);
	rt_zone_note(tab, RT_ZONE_SLOTS, 2, b1 + 200 * 64, now, 100, true);
	rt_zone_note(tab, RT_ZONE_SLOTS, 2, b1 + 300 * 64, now, 100, true);     /* overlap 200..203: 4 lines */
	rt_zone_note(tab, RT_ZONE_SLOTS, 2, b2 + 10 * 64, now, 100, true);
	rt_zone_note(tab, RT_ZONE_SLOTS, 2, b2 + 100 * 64, now, 100, true);
	rt_zone_note(tab, RT_ZONE_SLOTS, 1, b2 + 499 * 64, now, 100, true);
	rt_zone_note(tab, RT_ZONE_SLOTS, 1, b2 + 900 * 64, now, 100, true);     /* gap 100..499: 400 lines */
	for (uint32_t i = 0; i < n; i++) {
		CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, false, NULL, &rng, &addr, &z) == 2);
		if (z.base == b1) {
			CHECK(z.z0 == 200 && z.z1 == 203 && addr >= b1 + 200 * 64 && addr < b1 + 204 * 64);
			CHECK(z.stands == 2);           /* an overlap: 4 x (W + W/400) / (2 x W) = 2.005 */
			picks1++;
			e1 += z.stands;
		} else {
			CHECK(z.base == b2 && z.z0 == 100 && z.z1 == 499);
			CHECK(z.stands >= 80150 && z.stands <= 80250);   /* 400 x 1.0025 W / (2 x W/400), W rounded */
			picks2++;
			e2 += z.stands;
		}
	}
	CHECK_MSG(picks1 > n * 99 / 100 && picks2 > 0, "narrow zone %u, wide %u of %u picks", picks1, picks2, n);
	/* each zone's expected weight per pick, P x stands: its lines / 2
	   zones, as a uniform choice gives (2 and 200) */
	CHECK_MSG(e1 / n > 1.8 && e1 / n < 2.2 && e2 / n > 160 && e2 / n < 240,
	          "expected weights %.3f and %.3f, 2 and 200", e1 / n, e2 / n);
	picks1 = 0;
	for (uint32_t i = 0; i < 2000; i++) {
		CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, false, false, NULL, &rng, &addr, &z) == 2);
		CHECK(z.stands == z.z1 - z.z0 + 1);
		picks1 += z.base == b1;
	}
	CHECK_MSG(picks1 > 850 && picks1 < 1150, "alike: %u of 2000 on the narrow zone", picks1);
	/* a second pair, one wide zone (gap 50..949) */
	rt_zone_note(tab, RT_ZONE_SLOTS, 3, b3 + 10 * 64, now, 100, true);
	rt_zone_note(tab, RT_ZONE_SLOTS, 3, b3 + 50 * 64, now, 100, true);
	rt_zone_note(tab, RT_ZONE_SLOTS, 4, b3 + 949 * 64, now, 100, true);
	picks1 = picks2 = 0;
	for (uint32_t i = 0; i < 3000; i++) {
		CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, false, NULL, &rng, &addr, &z) == 3);
		if (z.base == b3) {
			CHECK(z.a + z.b == 7 && z.stands == 900);   /* its pair's only zone */
			picks3++;
		} else {
			picks1 += z.base == b1;
			picks2 += z.base == b2;
		}
	}
	/* pair {1, 2} has 2 of the 3 zones: 2/3 of the picks, nearly all on its narrow zone */
	CHECK_MSG(picks3 > 850 && picks3 < 1150 && picks1 > 1900 && picks2 < 60,
	          "pair {3, 4}: %u, pair {1, 2}: %u narrow + %u wide, of 3000", picks3, picks1, picks2);
}

/* Zone sets on gaps wider than a page of lines are armed with
   probability 64 / lines; overlaps always. */
static void thin(void)
{
	uint64_t rng = 5;
	uint32_t armed = 0;

	struct rt_zone z = { .z0 = 10 };

	for (uint32_t l = 1; l <= RT_ZONE_ARM_LINES; l++) {
		z.z1 = z.z0 + l - 1;
		CHECK(rt_zone_arm_thin(&z, rt_zone_rng(&rng)));
	}
	z.z1 = z.z0 + 639;
	for (int i = 0; i < 10000; i++)
		armed += rt_zone_arm_thin(&z, rt_zone_rng(&rng));
	CHECK_MSG(armed > 850 && armed < 1150, "%u of 10000 gaps of 640 lines armed (1000)", armed);
	z.overlap = true;             /* an overlap is armed whatever its width */
	for (int i = 0; i < 100; i++)
		CHECK(rt_zone_arm_thin(&z, rt_zone_rng(&rng)));
}

/* HPCRUN_COMM_PROCSET_ZONE_CAP (§5.64): a zone set's lines capped, off at 0 */
static void stands_cap(void)
{
	CHECK(rt_zone_stands_cap(640, 0) == 640);
	CHECK(rt_zone_stands_cap(640, RT_ZONE_ARM_LINES) == RT_ZONE_ARM_LINES);
	CHECK(rt_zone_stands_cap(12, RT_ZONE_ARM_LINES) == 12);
	CHECK(rt_zone_stands_cap(1, 1) == 1);
	/* §5.73: an overlap stands for at most the cap, a gap as picked, 0 = off */
	CHECK(rt_zone_overlap_stands(591, true, RT_ZONE_ARM_LINES) == RT_ZONE_ARM_LINES);
	CHECK(rt_zone_overlap_stands(40, true, RT_ZONE_ARM_LINES) == 40);
	CHECK(rt_zone_overlap_stands(591, false, RT_ZONE_ARM_LINES) == 591);
	CHECK(rt_zone_overlap_stands(591, true, RT_ZONE_OVERLAP_CAP_DEFAULT) == 591);   /* off by default */
}

/* Zones need a writer: two threads that only load a line (a shared
   variable every thread reads) make no zone with `writer`; a store of
   either side noted in its range makes one. */
static void writer(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	uint64_t b = 0x7ffe00000000ull, now = 70 * MS, rng = 11, addr;
	struct rt_zone z;

	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 1, b + 738 * 64, now, 100, false) == 1);
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 2, b + 738 * 64 + 8, now, 100, false) == 1);
	CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, false, NULL, &rng, &addr, &z) == 1 && !z.stored);
	CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, true, NULL, &rng, &addr, &z) == 0);
	/* thread 2 stores elsewhere in its range: its side remembers it */
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 2, b + 740 * 64, now, 100, true) == 1);
	CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, 2, b + 739 * 64, now, 100, false) == 1);
	CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, true, NULL, &rng, &addr, &z) == 1 && z.stored);
	CHECK(z.z0 == 738 && z.z1 == 738 && addr >= b + 738 * 64 && addr < b + 739 * 64);
}

/* The pairs zone sets found: counted either way round, lock-free slots
   (a full table leaves a pair uncounted); a pair found 9 times is picked
   ~1/21 as often as each of two pairs not found yet, and its picks stand
   for 7 times its lines (each zone's expected weight, 1/3 of its lines
   per pick, stays what a uniform choice gave). */
static void spread(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	static struct rt_zone_found f, full;
	uint64_t base = 0x7f4000000000ull, now = 90 * MS, rng = 21, addr;
	uint32_t picks[3] = { 0 }, n = 21000;
	double e[3] = { 0 };
	struct rt_zone z;

	CHECK(rt_zone_found_get(&f, 3, 5) == 0);
	rt_zone_found_add(&f, 3, 5);
	rt_zone_found_add(&f, 5, 3);
	CHECK(rt_zone_found_get(&f, 5, 3) == 2 && rt_zone_found_get(&f, 3, 4) == 0);
	for (uint32_t a = 0; a < 200; a++)
		rt_zone_found_add(&full, a, a + 1);
	for (uint32_t a = 0, got = 0; a < 200; a++, got = 0) {
		got = rt_zone_found_get(&full, a + 1, a);
		CHECK(got <= 1);
	}
	/* three pairs, one 10-line overlap each, in three blocks */
	for (uint32_t k = 0; k < 3; k++) {
		uint64_t b = base + ((uint64_t)(3 * k + 1) << RT_ZONE_SHIFT);

		rt_zone_note(tab, RT_ZONE_SLOTS, 10 + 2 * k, b + 100 * 64, now, 100, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 10 + 2 * k, b + 209 * 64, now, 100, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 11 + 2 * k, b + 200 * 64, now, 100, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 11 + 2 * k, b + 300 * 64, now, 100, true);
	}
	for (int i = 0; i < 9; i++)
		rt_zone_found_add(&f, 11, 10);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k;

		CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, false, &f, &rng, &addr, &z) == 3);
		k = (z.a - 10) / 2;
		CHECK(k < 3 && z.z1 - z.z0 + 1 == 10);
		CHECK(k == 0 ? z.stands == 70 : z.stands == 7);   /* 10 x (2.1 / 3) / (1/10 or 1) */
		picks[k]++;
		e[k] += z.stands;
	}
	CHECK_MSG(picks[0] > 700 && picks[0] < 1300 && picks[1] > 9000 && picks[2] > 9000,
	          "picks %u (found 9 times), %u, %u of %u", picks[0], picks[1], picks[2], n);
	for (int k = 0; k < 3; k++)
		CHECK_MSG(e[k] / n > 2.8 && e[k] / n < 3.9, "pair %d: expected weight %.2f per pick, 3.33", k, e[k] / n);
	/* without the table: alike */
	picks[0] = 0;
	for (uint32_t i = 0; i < 3000; i++) {
		CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, false, NULL, &rng, &addr, &z) == 3);
		CHECK(z.stands == 10);
		picks[0] += z.a == 10;
	}
	CHECK_MSG(picks[0] > 850 && picks[0] < 1150, "alike: %u of 3000", picks[0]);
}

/* HPCRUN_COMM_PROCSET_ZONE_SPREAD=2 (detection.md §5.40): a pair's weight
   1 / (1 + finds)^2 — found 3 times, picked ~1/33 as often as each of two
   pairs not found yet (1/16 against 1 + 1), its picks standing for 16 + 1
   + 1 ... (the uniform choice's expected weight stays); 0 finds weigh as
   before; the weight never reaches 0. */
static void spread_squared(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	static struct rt_zone_found f;
	uint64_t base = 0x7f5000000000ull, now = 90 * MS, rng = 33, addr;
	uint32_t picks[3] = { 0 }, n = 33000;
	double e[3] = { 0 };
	struct rt_zone z, zz = { .a = 1, .b = 2 };

	f.power = 2;
	CHECK(rt_zone_pair_weight(&f, &zz) == RT_ZONE_WSCALE);
	rt_zone_found_add(&f, 1, 2);
	CHECK(rt_zone_pair_weight(&f, &zz) == RT_ZONE_WSCALE / 4);
	for (int i = 0; i < 5000; i++)
		rt_zone_found_add(&f, 1, 2);
	CHECK(rt_zone_pair_weight(&f, &zz) == 1);
	f.power = 1;
	CHECK(rt_zone_pair_weight(&f, &zz) == RT_ZONE_WSCALE / 5002);
	f.power = 2;
	for (uint32_t k = 0; k < 3; k++) {
		uint64_t b = base + ((uint64_t)(3 * k + 1) << RT_ZONE_SHIFT);

		rt_zone_note(tab, RT_ZONE_SLOTS, 10 + 2 * k, b + 100 * 64, now, 100, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 10 + 2 * k, b + 209 * 64, now, 100, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 11 + 2 * k, b + 200 * 64, now, 100, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 11 + 2 * k, b + 300 * 64, now, 100, true);
	}
	for (int i = 0; i < 3; i++)
		rt_zone_found_add(&f, 11, 10);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k;

		CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, 100, true, false, &f, &rng, &addr, &z) == 3);
		k = (z.a - 10) / 2;
		CHECK(k < 3);
		picks[k]++;
		e[k] += z.stands;
	}
	CHECK_MSG(picks[0] > 600 && picks[0] < 1400 && picks[1] > 14000 && picks[2] > 14000,
	          "picks %u (found 3 times), %u, %u of %u", picks[0], picks[1], picks[2], n);
	for (int k = 0; k < 3; k++)
		CHECK_MSG(e[k] / n > 2.6 && e[k] / n < 4.1, "pair %d: expected weight %.2f per pick, 3.33", k, e[k] / n);
}

/* Trap notes (watch.c zone_note_trap, detection.md §5.16 "Session 13"):
   a zone set's traps are its owner's exact accesses, noted like samples.
   Two threads own lines 0..499 and 500..1023 of a block and their samples
   have noted only 10..100 and 900..1000: a gap of 801 lines. Each zone set
   watches a line of the gap, its owner traps first, and the note moves
   that owner's end there: the gap halves on average, and within a few
   sets it is a page around the boundary, always containing it. */
static void trap_notes(void)
{
	static struct rt_zone_slot tab[RT_ZONE_SLOTS];
	uint64_t blk = 0x7f0000c00000ull, now = 1000 * MS, rng = 0x1234567ull, addr;
	uint32_t win = 100, total = 0, worst = 0, trials = 200;
	struct rt_zone z;

	for (uint32_t k = 0; k < trials; k++) {
		uint32_t sets = 0;

		memset(tab, 0, sizeof(tab));
		rt_zone_note(tab, RT_ZONE_SLOTS, 1, blk + 10 * 64, now, win, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 1, blk + 100 * 64, now, win, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 2, blk + 900 * 64, now, win, true);
		rt_zone_note(tab, RT_ZONE_SLOTS, 2, blk + 1000 * 64, now, win, true);
		for (;;) {
			uint32_t line;

			CHECK(rt_zone_pick(tab, RT_ZONE_SLOTS, now, win, true, true, NULL, &rng, &addr, &z) == 1);
			CHECK(z.z0 <= 499 && z.z1 >= 500);        /* the boundary stays inside */
			if (z.z1 - z.z0 + 1 <= RT_ZONE_ARM_LINES || sets >= 40)
				break;
			line = (uint32_t)((addr - blk) >> 6);
			CHECK(line >= z.z0 && line <= z.z1);
			/* the set's first trap: the line's owner */
			CHECK(rt_zone_note(tab, RT_ZONE_SLOTS, line < 500 ? 1 : 2, addr, now, win, false) == 1);
			sets++;
		}
		total += sets;
		worst = sets > worst ? sets : worst;
	}
	CHECK_MSG(total <= 8 * trials && worst < 40, "sets to narrow 801 lines to a page: mean %.2f, worst %u",
	          (double)total / trials, worst);
}

int main(void)
{
	words();
	between();
	notes();
	stencil();
	edge();
	edge_kept();
	apart();
	narrow();
	thin();
	stands_cap();
	writer();
	spread();
	spread_squared();
	trap_notes();
	return hc_test_done("test_zone");
}
