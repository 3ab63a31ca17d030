/* SPDX-License-Identifier: BSD-3-Clause */
/* test_bulletin.c — single-threaded tests of the BulletinBoard: sizing and
   initialisation, the line-to-slot mapping, round trips of every entry field,
   and the publishing policy (same line replaces; a collision replaces only an
   expired entry or one of the same publisher, else -EEXIST). No signals. */
#include <errno.h>

#include "detect/detect.h"
#include "../../hc_test.h"

#define NSLOTS 7
#define EXPIRY 1000

static struct hc_bb_slot *slot_mem(void)
{
	static unsigned char mem[64 * HC_BB_DEFAULT_SLOTS] __attribute__((aligned(64)));

	return (struct hc_bb_slot *)mem;
}

static struct hc_bb_entry entry(uint64_t addr, uint64_t time, uint32_t thread)
{
	struct hc_bb_entry e = {
		.line = addr & ~63ull,
		.addr = addr,
		.time = time,
		.len = 4,
		.thread = thread,
		.cpu = (int32_t)thread + 10,
		.ctx = 100 + thread,
	};
	return e;
}

static void test_init(void)
{
	struct hc_bulletin bb;

	CHECK_EQ_U64(hc_bulletin_size(1), 64);
	CHECK_EQ_U64(hc_bulletin_size(HC_BB_DEFAULT_SLOTS), 64 * HC_BB_DEFAULT_SLOTS);
	CHECK_EQ_U64(hc_bulletin_init(&bb, slot_mem(), 0, EXPIRY), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hc_bulletin_init(&bb, (char *)slot_mem() + 8, NSLOTS, EXPIRY), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hc_bulletin_init(&bb, NULL, NSLOTS, EXPIRY), (uint64_t)-EINVAL);
	CHECK_EQ_U64(hc_bulletin_init(&bb, slot_mem(), NSLOTS, EXPIRY), 0);
	CHECK_EQ_U64(bb.nslots, NSLOTS);
	CHECK_EQ_U64(bb.expiry, EXPIRY);
}

static void test_slot_of(void)
{
	struct hc_bulletin bb;
	uint64_t line = 0x7f0000001000ull;
	uint32_t i, j;
	bool distinct = true;

	hc_bulletin_init(&bb, slot_mem(), HC_BB_DEFAULT_SLOTS, EXPIRY);
	for (i = 0; i < 1000; i++)
		CHECK(hc_bulletin_slot_of(&bb, line + 64ull * i) < HC_BB_DEFAULT_SLOTS);
	/* nslots consecutive lines never collide */
	for (i = 0; i < HC_BB_DEFAULT_SLOTS; i++)
		for (j = i + 1; j < HC_BB_DEFAULT_SLOTS; j++)
			if (hc_bulletin_slot_of(&bb, line + 64ull * i) ==
			    hc_bulletin_slot_of(&bb, line + 64ull * j))
				distinct = false;
	CHECK(distinct);
	/* page-strided lines (one per thread's page) do not alias either */
	CHECK(hc_bulletin_slot_of(&bb, line) != hc_bulletin_slot_of(&bb, line + 4096));
}

static void test_empty_and_roundtrip(void)
{
	struct hc_bulletin bb;
	struct hc_bb_entry e = entry(0x1234567, 42, 3), out;
	uint32_t i;

	hc_bulletin_init(&bb, slot_mem(), NSLOTS, EXPIRY);
	for (i = 0; i < NSLOTS; i++)
		CHECK(!hc_bulletin_read(&bb, i, &out));
	CHECK(!hc_bulletin_read(&bb, NSLOTS, &out));
	CHECK(!hc_bulletin_lookup(&bb, e.line, &out));

	e.cpu = -1;  /* unknown cpu must survive the packing */
	e.ctx = 0xfedcba98;
	e.len = 0x3fffffff;      /* the largest length (bit 31 flags a load, bit 30 an update) */
	e.thread = 0xfffffffe;
	e.mask = 0x8000000000000001ull;
	e.spin = 0xffffffffu;    /* spin evidence (detection.md §5.14) */
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &e), 0);
	CHECK(hc_bulletin_lookup(&bb, e.line, &out));
	CHECK_EQ_U64(out.line, e.line);
	CHECK_EQ_U64(out.addr, e.addr);
	CHECK_EQ_U64(out.time, e.time);
	CHECK_EQ_U64(out.len, e.len);
	CHECK_EQ_U64(out.thread, e.thread);
	CHECK(out.cpu == -1);
	CHECK_EQ_U64(out.ctx, e.ctx);
	CHECK_EQ_U64(out.mask, e.mask);
	CHECK_EQ_U64(out.spin, e.spin);
	CHECK(!out.is_load);
	CHECK(!out.sync);
	e.sync = true;           /* a synchronizing store (detection.md §5.17) */
	e.time++;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &e), 0);
	CHECK(hc_bulletin_lookup(&bb, e.line, &out));
	CHECK(out.sync);
	CHECK_EQ_U64(out.spin, 0xffffffffu);   /* the bit is beside the spin word's 32 bits */
	e.sync = false;
	e.is_load = true;
	e.time++;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &e), 0);
	CHECK(hc_bulletin_lookup(&bb, e.line, &out));
	CHECK(out.is_load);
	CHECK(!out.sync);
	CHECK(!out.update);
	CHECK_EQ_U64(out.len, 0x3fffffff);
	CHECK_EQ_U64(out.thread, e.thread);
	e.update = true;         /* an update (detection.md §5.54): beside the load bit */
	e.time++;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &e), 0);
	CHECK(hc_bulletin_lookup(&bb, e.line, &out));
	CHECK(out.update && out.is_load);
	CHECK_EQ_U64(out.len, 0x3fffffff);
	e.update = false;
	e.is_load = false;
	CHECK(hc_bulletin_read(&bb, hc_bulletin_slot_of(&bb, e.line), &out));
	CHECK_EQ_U64(out.addr, e.addr);
	/* another line of the same slot is not found by lookup */
	CHECK(!hc_bulletin_lookup(&bb, e.line + 64ull * NSLOTS, &out));
	/* the slot's neighbours are still empty */
	CHECK(!hc_bulletin_read(&bb, (hc_bulletin_slot_of(&bb, e.line) + 1) % NSLOTS, &out));
}

static void test_same_line_replaces(void)
{
	struct hc_bulletin bb;
	struct hc_bb_entry a = entry(0x10008, 5000, 1), b = entry(0x10010, 5001, 2), out;

	hc_bulletin_init(&bb, slot_mem(), NSLOTS, EXPIRY);
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &a), 0);
	/* another thread, same line, well within expiry: replaced */
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &b), 0);
	CHECK(hc_bulletin_lookup(&bb, a.line, &out));
	CHECK_EQ_U64(out.thread, 2);
	CHECK_EQ_U64(out.addr, 0x10010);
	/* even an older time on the same line replaces (latest publish wins) */
	a.time = 10;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &a), 0);
	CHECK(hc_bulletin_lookup(&bb, a.line, &out));
	CHECK_EQ_U64(out.thread, 1);
	CHECK_EQ_U64(out.time, 10);
}

static void test_collision_policy(void)
{
	struct hc_bulletin bb;
	uint64_t l1 = 0x20000, l2 = l1 + 64ull * NSLOTS;  /* same slot */
	struct hc_bb_entry a = entry(l1 + 8, 10000, 1), out;
	struct hc_bb_entry b;

	hc_bulletin_init(&bb, slot_mem(), NSLOTS, EXPIRY);
	CHECK_EQ_U64(hc_bulletin_slot_of(&bb, l1), hc_bulletin_slot_of(&bb, l2));
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &a), 0);

	/* another thread's fresh colliding entry is kept */
	b = entry(l2 + 16, 10000 + EXPIRY, 2);   /* age == expiry: not older than it */
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &b), (uint64_t)-EEXIST);
	CHECK(hc_bulletin_lookup(&bb, l1, &out));
	CHECK_EQ_U64(out.thread, 1);
	CHECK(!hc_bulletin_lookup(&bb, l2, &out));

	/* a new entry that looks older than the resident one never expires it */
	b.time = 5;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &b), (uint64_t)-EEXIST);

	/* older than expiry: replaced */
	b.time = 10000 + EXPIRY + 1;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &b), 0);
	CHECK(hc_bulletin_lookup(&bb, l2, &out));
	CHECK_EQ_U64(out.thread, 2);
	CHECK_EQ_U64(out.addr, l2 + 16);
	CHECK(!hc_bulletin_lookup(&bb, l1, &out));

	/* the same publisher always replaces its own colliding entry */
	b = entry(l1 + 24, out.time + 1, 2);
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &b), 0);
	CHECK(hc_bulletin_lookup(&bb, l1, &out));
	CHECK_EQ_U64(out.addr, l1 + 24);
	CHECK_EQ_U64(out.thread, 2);
}

static void test_expiry_zero(void)
{
	struct hc_bulletin bb;
	uint64_t l1 = 0x30000, l2 = l1 + 64ull * NSLOTS;
	struct hc_bb_entry a = entry(l1, 100, 1), b = entry(l2, 100, 2), out;

	/* expiry 0: any strictly older colliding entry is replaced */
	hc_bulletin_init(&bb, slot_mem(), NSLOTS, 0);
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &a), 0);
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &b), (uint64_t)-EEXIST);  /* same time */
	b.time = 101;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &b), 0);
	CHECK(hc_bulletin_lookup(&bb, l2, &out));
}

/* Loads on the board (soft sampler): a load never hides another thread's
   unexpired store of the same line; a store always replaces a load; loads
   replace loads; a publisher replaces its own entry; the recent-slot ring
   names the last publications. */
static void test_loads(void)
{
	struct hc_bulletin bb;
	struct hc_bb_entry st = entry(0x5000, 1000, 1), ld = entry(0x5008, 1100, 2), out;

	hc_bulletin_init(&bb, slot_mem(), NSLOTS, EXPIRY);
	ld.is_load = true;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &st), 0);
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &ld), -EEXIST);          /* T1's store kept */
	CHECK(hc_bulletin_lookup(&bb, st.line, &out) && !out.is_load && out.thread == 1);
	ld.time = st.time + EXPIRY + 1;                                /* ... until it expired */
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &ld), 0);
	CHECK(hc_bulletin_lookup(&bb, st.line, &out) && out.is_load && out.thread == 2);
	/* a load replaces a load */
	ld.thread = 3;
	ld.time++;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &ld), 0);
	CHECK(hc_bulletin_lookup(&bb, st.line, &out) && out.thread == 3);
	/* a store replaces a load at once, whatever its age */
	st.time = ld.time - 500;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &st), 0);
	CHECK(hc_bulletin_lookup(&bb, st.line, &out) && !out.is_load && out.thread == 1);
	/* a load of the store's own publisher replaces it (its own entry) */
	ld.thread = 1;
	CHECK_EQ_U64(hc_bulletin_publish(&bb, &ld), 0);
	CHECK(hc_bulletin_lookup(&bb, st.line, &out) && out.is_load);
	/* the recent ring holds the last publications' slots (+1) */
	CHECK_EQ_U64(bb.recent[(bb.recent_pos - 1) % HC_BB_RECENT], hc_bulletin_slot_of(&bb, st.line) + 1);
	{
		uint32_t before = bb.recent_pos;
		struct hc_bb_entry next = entry(0x5000 + 64, 9000, 4);
		CHECK_EQ_U64(hc_bulletin_publish(&bb, &next), 0);
		CHECK_EQ_U64(bb.recent_pos, before + 1);
		CHECK_EQ_U64(bb.recent[before % HC_BB_RECENT], hc_bulletin_slot_of(&bb, 0x5040) + 1);
	}
	/* a refused publication is not recorded */
	{
		uint32_t before = bb.recent_pos;
		struct hc_bb_entry other = entry(0x5000 + 64, 9001, 5);
		other.is_load = true;
		CHECK_EQ_U64(hc_bulletin_publish(&bb, &other), -EEXIST);
		CHECK_EQ_U64(bb.recent_pos, before);
	}
}

int main(void)
{
	test_init();
	test_slot_of();
	test_empty_and_roundtrip();
	test_same_line_replaces();
	test_collision_policy();
	test_expiry_zero();
	test_loads();
	return hc_test_done("test_bulletin");
}
