/* SPDX-License-Identifier: BSD-3-Clause */
/* test_detect.c — the ComDetective rules on synthetic event streams: a few
   simulated threads feed hand-written (time, address, length, load/store)
   samples and traps to hc_detect_sample / hc_detect_trap, and each test
   checks what was detected, armed and published. Deterministic (fixed rng
   seeds), single-threaded, no signals. */
#include <errno.h>

#include "detect/detect.h"
#include "detect/step.h"
#include "../../hc_test.h"

#define NTHREADS 4
#define PERIOD 1000
#define LINE_A 0x7f0000010000ull
#define LINE_B 0x7f0000020040ull

struct world {
	struct hc_bulletin bb;
	struct hc_detect_config cfg;
	struct hc_detect_thread th[NTHREADS];
	struct hc_detect_result res;
	struct hc_comm comm;
};

static void world_init(struct world *w, uint32_t nslots, uint32_t nwatch)
{
	static unsigned char mem[64 * 64] __attribute__((aligned(64)));
	uint32_t i;

	memset(w, 0, sizeof(*w));
	CHECK(nslots <= 64);
	CHECK_EQ_U64(hc_bulletin_init(&w->bb, mem, nslots, 1000000), 0);
	w->cfg.period = PERIOD;
	w->cfg.nwatch = nwatch;
	w->cfg.probes = 64;
	for (i = 0; i < NTHREADS; i++) {
		w->th[i].thread = i;
		w->th[i].rng = 0x1234567ull * (i + 1);
	}
}

/* Thread t samples an access; returns whether a communication was detected.
   The comm record is poisoned first so unfilled fields show. */
static bool sample(struct world *w, uint32_t t, uint64_t time, uint64_t addr,
                   uint32_t len, bool store)
{
	struct hc_sample s = {
		.time = time, .addr = addr, .len = len, .is_store = store,
		.cpu = (int32_t)t + 20, .ctx = 500 + t,
	};

	memset(&w->comm, 0xa5, sizeof(w->comm));
	hc_detect_sample(&w->bb, &w->cfg, &w->th[t], &s, &w->res, &w->comm);
	return w->res.comm;
}

static bool trap(struct world *w, uint32_t t, uint64_t time, uint64_t addr,
                 uint32_t len, bool store)
{
	struct hc_sample s = {
		.time = time, .addr = addr, .len = len, .is_store = store,
		.cpu = (int32_t)t + 20, .ctx = 700 + t,
	};

	memset(&w->comm, 0xa5, sizeof(w->comm));
	return hc_detect_trap(&w->cfg, &w->th[t], &s, &w->comm);
}

/* A fresh world whose two threads keep byte masks of their recent lines
   in l0 and l1 (cleared). */
static void world_masks(struct world *w, struct hc_step_lines *l0, struct hc_step_lines *l1)
{
	world_init(w, 7, 2);
	memset(l0, 0, sizeof *l0);
	memset(l1, 0, sizeof *l1);
	w->th[0].touched = l0;
	w->th[0].touched_within = 100000;
	w->th[1].touched = l1;
	w->th[1].touched_within = 100000;
}

/* sample() with the access marked an update (hc_sample.update, §5.54) */
static bool sample_upd(struct world *w, uint32_t t, uint64_t time, uint64_t addr, uint32_t len, bool update)
{
	struct hc_sample s = {
		.time = time, .addr = addr, .len = len, .is_store = true,
		.cpu = (int32_t)t + 20, .ctx = 500 + t, .update = update,
	};

	memset(&w->comm, 0xa5, sizeof(w->comm));
	hc_detect_sample(&w->bb, &w->cfg, &w->th[t], &s, &w->res, &w->comm);
	return w->res.comm;
}

/* Two updates are judged by their bytes (cfg.update_bytes, §5.54):
   streamcluster's lower[center_table[a]] += …, both threads adding into
   elements their data name, each seen at several of them (moving): the
   masks cover the line, the two elements differ. */
static void test_update_bytes(void)
{
	static struct hc_step_lines l0, l1;
	struct world w;
	int on;

	for (on = 0; on < 2; on++) {
		world_masks(&w, &l0, &l1);
		w.cfg.update_bytes = on;
		w.th[0].moving = w.th[1].moving = true;     /* whole lines */
		CHECK(!sample_upd(&w, 1, 100, LINE_A + 8, 8, true));
		CHECK_EQ_U64(w.res.published, 1);
		/* T0 updates another element of the line */
		CHECK(sample_upd(&w, 0, 200, LINE_A + 40, 8, true));
		CHECK_EQ_U64(!!(w.comm.flags & HC_COMM_TRUE), !on);
		CHECK_EQ_U64(w.comm.false_update, on);
		CHECK_EQ_U64(w.comm.true_by_mask, !on);
		/* the same element: true either way */
		CHECK(sample_upd(&w, 1, 300, LINE_A + 40, 8, true));
		CHECK((w.comm.flags & HC_COMM_TRUE) && !w.comm.false_update);
		/* fixed updates (a total's sum and count, each at one address)
		   keep their masks: T1's sum and count, T0's count */
		w.th[0].moving = w.th[1].moving = false;
		hc_step_line_note(&l1, LINE_A + 0, 8, 350, 100000);
		hc_step_line_note(&l1, LINE_A + 24, 8, 360, 100000);
		sample_upd(&w, 1, 360, LINE_A + 24, 8, true);   /* T1's own entry before: published */
		hc_step_line_note(&l0, LINE_A + 0, 8, 370, 100000);
		CHECK(sample_upd(&w, 0, 370, LINE_A + 0, 8, true));
		CHECK((w.comm.flags & HC_COMM_TRUE) && w.comm.true_by_mask && !w.comm.false_update);
		w.th[0].moving = w.th[1].moving = true;
		/* one side a plain store (a walk writing the line): the masks
		   still judge, true */
		CHECK(sample_upd(&w, 1, 400, LINE_A + 16, 8, false));
		CHECK((w.comm.flags & HC_COMM_TRUE) && w.comm.true_by_mask && !w.comm.false_update);
		CHECK(sample_upd(&w, 0, 500, LINE_A + 56, 8, true));
		CHECK((w.comm.flags & HC_COMM_TRUE) && w.comm.true_by_mask && !w.comm.false_update);
	}
	/* a detecting state that is not the thread's own (a process-wide
	   set's trap): the access says it moves */
	{
		struct hc_sample s = { .time = 600, .addr = LINE_A + 24, .len = 8, .is_store = true,
		                       .cpu = 21, .ctx = 501, .update = true };

		w.th[0].moving = w.th[1].moving = false;
		CHECK(sample_upd(&w, 1, 590, LINE_A + 32, 8, true));    /* T1's entry, an update */
		hc_detect_sample(&w.bb, &w.cfg, &w.th[0], &s, &w.res, &w.comm);
		CHECK(w.res.comm && (w.comm.flags & HC_COMM_TRUE) && !w.comm.false_update);  /* fixed: masks */
		s.time = 620;
		s.moving = true;
		CHECK(sample_upd(&w, 1, 610, LINE_A + 32, 8, true));
		hc_detect_sample(&w.bb, &w.cfg, &w.th[0], &s, &w.res, &w.comm);
		CHECK(w.res.comm && !(w.comm.flags & HC_COMM_TRUE) && w.comm.false_update);
		sample_upd(&w, 0, 630, LINE_A + 56, 8, true);   /* T0's entry again for the board check */
	}
	/* the bulletin keeps the mark */
	{
		struct hc_bb_entry e;

		CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e));
		CHECK(e.update && e.thread == 0 && e.addr == LINE_A + 56 && e.len == 8);
	}
}

static void test_overlap(void)
{
	CHECK(hc_ranges_overlap(8, 8, 12, 4));
	CHECK(hc_ranges_overlap(8, 8, 15, 2));   /* partial, straddles the end */
	CHECK(hc_ranges_overlap(8, 8, 6, 4));    /* partial, straddles the start */
	CHECK(hc_ranges_overlap(8, 8, 0, 64));   /* contains */
	CHECK(!hc_ranges_overlap(8, 8, 16, 8));  /* adjacent above */
	CHECK(!hc_ranges_overlap(8, 8, 4, 4));   /* adjacent below */
	CHECK(!hc_ranges_overlap(8, 0, 8, 8));   /* empty range */
}

static void test_detect_record(void)
{
	struct world w;

	world_init(&w, 7, 0);
	CHECK(!sample(&w, 0, 50, LINE_B, 8, false));           /* T0's previous sample */
	CHECK(!sample(&w, 1, 100, LINE_A + 8, 8, true));       /* T1 publishes */
	CHECK_EQ_U64(w.res.published, 1);
	CHECK(sample(&w, 0, 200, LINE_A + 12, 4, true));       /* T0 stores into it */
	CHECK_EQ_U64(w.comm.time, 200);
	CHECK_EQ_U64(w.comm.weight, PERIOD);
	CHECK_EQ_U64(w.comm.addr, LINE_A + 12);
	CHECK_EQ_U64(w.comm.len, 4);
	CHECK_EQ_U64(w.comm.cpu, 20);
	CHECK_EQ_U64(w.comm.ctx, 500);
	CHECK_EQ_U64(w.comm.peer, 1);
	CHECK_EQ_U64(w.comm.peer_addr, LINE_A + 8);
	CHECK_EQ_U64(w.comm.peer_len, 8);
	CHECK_EQ_U64(w.comm.peer_cpu, 21);
	CHECK_EQ_U64(w.comm.peer_ctx, 501);
	CHECK_EQ_U64(w.comm.flags, HC_COMM_STORE | HC_COMM_PEER_STORE | HC_COMM_TRUE);
	CHECK_EQ_U64(w.th[0].t_prev, 100);
	CHECK_EQ_U64(w.th[0].prev_sample, 200);
	/* T0's store replaced T1's entry on the same line */
	CHECK_EQ_U64(w.res.published, 1);
	/* ... so T1 now sees T0's store: a load, false sharing */
	CHECK(sample(&w, 1, 300, LINE_A + 40, 8, false));
	CHECK_EQ_U64(w.comm.peer, 0);
	CHECK_EQ_U64(w.comm.flags, HC_COMM_PEER_STORE);
	CHECK_EQ_U64(w.res.published, 0);
}

static void test_fresh_vs_expired(void)
{
	struct world w;

	/* first sample ever: everything on the board is fresh */
	world_init(&w, 7, 0);
	sample(&w, 1, 100, LINE_A, 8, true);
	CHECK(sample(&w, 0, 200, LINE_A, 8, false));

	/* published before my previous sample: not fresh */
	world_init(&w, 7, 0);
	sample(&w, 1, 100, LINE_A, 8, true);
	CHECK(!sample(&w, 0, 150, LINE_B, 8, false));
	CHECK(!sample(&w, 0, 200, LINE_A, 8, false));
	CHECK_EQ_U64(w.th[0].t_prev, 0);

	/* published exactly at my previous sample: not after it, not fresh */
	world_init(&w, 7, 0);
	sample(&w, 0, 100, LINE_B, 8, false);
	sample(&w, 1, 100, LINE_A, 8, true);
	CHECK(!sample(&w, 0, 200, LINE_A, 8, false));

	/* published between my previous sample and this one: fresh */
	world_init(&w, 7, 0);
	sample(&w, 0, 99, LINE_B, 8, false);
	sample(&w, 1, 100, LINE_A, 8, true);
	CHECK(sample(&w, 0, 200, LINE_A, 8, false));
	/* and not again at my next sample (now it predates my previous one) */
	CHECK(!sample(&w, 0, 300, LINE_A, 8, false));
}

static void test_t_prev_dedup(void)
{
	struct world w;

	/* Samples of different threads are not time-ordered (a late handler,
	   clocks read at different moments): T1's entry is stamped 300 while
	   T0 samples at 200 and 250. It stays fresh for both, but counts once. */
	world_init(&w, 7, 0);
	sample(&w, 1, 300, LINE_A, 8, true);
	CHECK(sample(&w, 0, 200, LINE_A, 8, false));
	CHECK_EQ_U64(w.th[0].t_prev, 300);
	CHECK(w.th[0].prev_sample < 300);
	CHECK(!sample(&w, 0, 250, LINE_A, 8, false));
	/* a newer publication counts again */
	sample(&w, 1, 310, LINE_A, 8, true);
	CHECK(sample(&w, 0, 260, LINE_A, 8, false));
	CHECK_EQ_U64(w.th[0].t_prev, 310);
	/* t_prev is per thread: T2 still counts T1's entry */
	CHECK(sample(&w, 2, 260, LINE_A, 8, false));
}

static void test_true_false(void)
{
	static const struct { uint64_t off; uint32_t len; bool isTrue; } cases[] = {
		{ 12, 4, true },    /* inside [8,16) */
		{ 15, 2, true },    /* partial overlap at the end */
		{ 6, 4, true },     /* partial overlap at the start */
		{ 0, 64, true },    /* covers */
		{ 16, 8, false },   /* adjacent above */
		{ 4, 4, false },    /* adjacent below */
		{ 40, 1, false },   /* elsewhere on the line */
	};
	struct world w;
	uint64_t now = 100;
	size_t i;

	world_init(&w, 7, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sample(&w, 1, now++, LINE_A + 8, 8, true);
		CHECK_MSG(sample(&w, 0, now++, LINE_A + cases[i].off, cases[i].len, false),
		          "case %zu", i);
		CHECK_MSG(!!(w.comm.flags & HC_COMM_TRUE) == cases[i].isTrue, "case %zu", i);
		CHECK(!(w.comm.flags & HC_COMM_TRAP));
	}
}

static void test_needs_a_store(void)
{
	struct world w;
	uint64_t now = 100;
	struct hc_bb_entry e;
	int i;

	/* two threads loading the same line never communicate: loads never publish */
	world_init(&w, 1, 4);
	for (i = 0; i < 50; i++) {
		CHECK(!sample(&w, i & 1, now, LINE_A + (uint64_t)(i & 7) * 8, 8, false));
		CHECK_EQ_U64(w.res.published, 0);
		CHECK(!w.res.arm);
		now += 100;
	}
	CHECK(!hc_bulletin_read(&w.bb, 0, &e));
	/* one store, and the other thread's load sees it */
	sample(&w, 1, now++, LINE_A, 8, true);
	CHECK_EQ_U64(w.res.published, 1);
	CHECK(sample(&w, 0, now++, LINE_A, 8, false));
}

static void test_never_with_oneself(void)
{
	struct world w;
	uint64_t now = 100;
	int i;

	/* one thread storing and loading its own line: nothing detected, nothing armed */
	world_init(&w, 1, 4);
	for (i = 0; i < 50; i++) {
		CHECK(!sample(&w, 0, now, LINE_A + (uint64_t)(i & 7) * 8, 8, i & 1));
		CHECK(!w.res.arm);
		now += 100;
	}
	CHECK(!w.th[0].armed);
	CHECK(!trap(&w, 0, now, LINE_A, 8, true));
	/* another thread does see it */
	CHECK(sample(&w, 1, now, LINE_A, 8, false));
	CHECK_EQ_U64(w.comm.peer, 0);

	/* My own entries predate my next sample, so freshness alone excludes
	   them — unless my state was reset (fresh per-thread state over a board
	   that outlived it, e.g. inherited across fork). The thread check still
	   holds then, for lookup and for arming. */
	world_init(&w, 1, 4);
	sample(&w, 0, 100, LINE_A + 8, 8, true);
	memset(&w.th[0], 0, sizeof(w.th[0]));
	w.th[0].rng = 99;
	CHECK(!sample(&w, 0, 50, LINE_B, 8, false));
	CHECK(!w.res.arm);
	CHECK(!sample(&w, 0, 60, LINE_A + 8, 8, false));
	CHECK(!w.res.arm);
}

static void test_collision_in_detect(void)
{
	struct world w;
	uint64_t l2 = LINE_A + 64ull * 7;   /* same slot as LINE_A in a 7-slot board */

	world_init(&w, 7, 0);
	sample(&w, 1, 100, LINE_A, 8, true);
	/* a store to a colliding line of another thread, within expiry: kept */
	CHECK(!sample(&w, 2, 200, l2, 8, true));
	CHECK_EQ_U64(w.res.published, (uint64_t)-EEXIST);
	/* the colliding line is not mistaken for LINE_A (T3's first sample:
	   everything on the board is fresh for it) */
	CHECK(!sample(&w, 3, 300, l2, 8, false));
	CHECK(sample(&w, 0, 300, LINE_A, 8, false));
	CHECK_EQ_U64(w.comm.peer, 1);
	CHECK_EQ_U64(w.comm.peer_addr, LINE_A);
}

/* Check a requested set: d distinct 8-aligned chunks of `line`, mirrored in th. */
static void check_set(const struct world *w, uint32_t t, uint64_t line, uint32_t d,
                      unsigned *seen)
{
	uint32_t i, j;

	CHECK(w->res.arm);
	CHECK_EQ_U64(w->res.nwatch, d);
	CHECK(w->th[t].armed);
	CHECK_EQ_U64(w->th[t].nwatch, d);
	for (i = 0; i < d; i++) {
		uint64_t a = w->res.watch_addr[i];

		CHECK_EQ_U64(a & ~63ull, line);
		CHECK_EQ_U64(a & 7, 0);
		CHECK_EQ_U64(w->th[t].watch_addr[i], a);
		for (j = 0; j < i; j++)
			CHECK(w->res.watch_addr[j] != a);
		*seen |= 1u << ((a & 63) / 8);
	}
}

static void test_arm_chunks(void)
{
	struct world w;
	unsigned seen[HC_MAX_WATCH + 1] = { 0 };
	uint64_t now = 100;
	uint32_t d;
	int k;

	for (d = 1; d <= HC_MAX_WATCH; d++) {
		world_init(&w, 1, d);
		for (k = 0; k < 200; k++) {
			sample(&w, 1, now++, LINE_A + 8, 8, true);
			CHECK(!sample(&w, 0, now++, LINE_B, 8, false));
			check_set(&w, 0, LINE_A, d, &seen[d]);
			CHECK_EQ_U64(w.th[0].watched.line, LINE_A);
			CHECK_EQ_U64(w.th[0].watched.thread, 1);
			CHECK_EQ_U64(w.th[0].armed_at, now - 1);
			hc_detect_arm_failed(&w.th[0]);
			CHECK(!w.th[0].armed);
		}
		/* the published chunk (1) always first; the others are random:
		   over 200 sets every chunk was used (D = 1: only the published one) */
		CHECK_EQ_U64(w.res.watch_addr[0], LINE_A + 8);
		CHECK_EQ_U64(seen[d], d == 1 ? 0x02u : 0xffu);
	}
	/* more than the hardware has: clamped */
	world_init(&w, 1, 9);
	sample(&w, 1, 100, LINE_A, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	check_set(&w, 0, LINE_A, HC_MAX_WATCH, &seen[0]);
	/* nwatch = 0: traps off, never armed */
	world_init(&w, 1, 0);
	sample(&w, 1, 100, LINE_A, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(!w.res.arm);
	CHECK(!w.th[0].armed);
}

static void test_arm_choice(void)
{
	struct world w;

	/* an entry of another thread published before my previous sample: not armed */
	world_init(&w, 7, 2);
	sample(&w, 0, 150, LINE_B, 8, false);
	CHECK(!w.res.arm);                      /* empty board */
	sample(&w, 1, 100, LINE_A, 8, true);    /* stamped before T0's 150 */
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(!w.res.arm);
	CHECK(!w.th[0].armed);
	/* my own fresh entry is not a candidate */
	sample(&w, 0, 300, LINE_B + 8, 8, true);
	CHECK_EQ_U64(w.res.published, 1);
	sample(&w, 0, 400, LINE_B, 8, false);
	CHECK(!w.res.arm);
	/* an entry already counted by a sample (t_prev) is not watched again */
	world_init(&w, 1, 2);
	sample(&w, 1, 300, LINE_A, 8, true);
	CHECK(sample(&w, 0, 200, LINE_A, 8, false));
	CHECK(!sample(&w, 0, 250, LINE_B, 8, false));
	CHECK(!w.res.arm);
	/* ...but a fresh uncounted one is */
	sample(&w, 1, 320, LINE_A, 8, true);
	CHECK(!sample(&w, 0, 260, LINE_B, 8, false));
	CHECK(w.res.arm);
	/* a sample that detects does not also arm */
	world_init(&w, 1, 2);
	sample(&w, 1, 100, LINE_A, 8, true);
	CHECK(sample(&w, 0, 200, LINE_A, 8, false));
	CHECK(!w.res.arm);
}

static void test_trap(void)
{
	struct world w;
	uint32_t d;
	uint64_t now = 100;

	for (d = 1; d <= HC_MAX_WATCH; d++) {
		world_init(&w, 1, d);
		/* nothing armed: a trap matches nothing */
		CHECK(!trap(&w, 0, now++, LINE_A, 8, false));

		sample(&w, 1, now++, LINE_A + 8, 8, true);
		sample(&w, 0, now++, LINE_B, 8, false);
		CHECK(w.res.arm);
		/* a late trap off the watched line matches nothing; the set stays */
		CHECK(!trap(&w, 0, now++, LINE_B, 8, false));
		CHECK(w.th[0].armed);

		/* the published chunk (8..15) is always in the set */
		{
			bool has = false;
			for (uint32_t k = 0; k < d; k++)
				has |= w.res.watch_addr[k] == LINE_A + 8;
			CHECK(has);
		}
		CHECK(trap(&w, 0, now, LINE_A + 12, 4, false));
		CHECK_EQ_U64(w.comm.weight, PERIOD);   /* on the published chunk */
		CHECK_EQ_U64(w.comm.time, now);
		CHECK_EQ_U64(w.comm.addr, LINE_A + 12);
		CHECK_EQ_U64(w.comm.len, 4);
		CHECK_EQ_U64(w.comm.cpu, 20);
		CHECK_EQ_U64(w.comm.ctx, 700);
		CHECK_EQ_U64(w.comm.peer, 1);
		CHECK_EQ_U64(w.comm.peer_addr, LINE_A + 8);
		CHECK_EQ_U64(w.comm.peer_len, 8);
		CHECK_EQ_U64(w.comm.peer_cpu, 21);
		CHECK_EQ_U64(w.comm.peer_ctx, 501);
		CHECK_EQ_U64(w.comm.flags, HC_COMM_TRAP | HC_COMM_PEER_STORE | HC_COMM_TRUE);
		/* the whole set is disarmed after the first trap */
		CHECK(!w.th[0].armed);
		CHECK(!trap(&w, 0, now + 1, LINE_A + 12, 4, false));
		now += 2;
	}
	/* a set chosen among 3 store candidates (3 lines of T1 on a 7-slot
	   board) stands for all 3: its trap weighs 3 times more */
	world_init(&w, 7, 4);
	sample(&w, 1, 100, LINE_A, 8, true);
	sample(&w, 1, 101, LINE_A + 64, 8, true);
	sample(&w, 1, 102, LINE_A + 128, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.arm);
	CHECK_EQ_U64(w.th[0].candidates, 3);
	CHECK(trap(&w, 0, 210, w.th[0].watched.addr, 8, false));
	CHECK_EQ_U64(w.comm.weight, PERIOD * 3);
	/* expiry: a set nothing replaced goes off at the second sample after
	   its arming (one interval armed) */
	world_init(&w, 7, 4);
	sample(&w, 0, 90, LINE_B, 8, false);
	sample(&w, 0, 95, LINE_B, 8, false);
	sample(&w, 1, 100, LINE_A, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.arm && !w.res.disarm);
	sample(&w, 0, 300, LINE_B, 8, false);            /* not stale yet */
	CHECK(!w.res.arm && !w.res.disarm && w.th[0].armed);
	sample(&w, 0, 400, LINE_B, 8, false);            /* stale, no new target */
	CHECK(!w.res.arm && w.res.disarm && !w.th[0].armed);
	sample(&w, 0, 500, LINE_B, 8, false);
	CHECK(!w.res.disarm);                            /* once */
	/* another chunk: 1 / ((D-1)/7); D = 3: 7/2, rounded down */
	world_init(&w, 1, 3);
	sample(&w, 1, 100, LINE_A, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(trap(&w, 0, 210, LINE_A + 32, 8, true));
	CHECK_EQ_U64(w.comm.weight, PERIOD * 7 / 2);
	world_init(&w, 1, 4);
	sample(&w, 1, 100, LINE_A + 56, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.watch_addr[0] == LINE_A + 56);
	CHECK(trap(&w, 0, 210, LINE_A, 8, true));
	CHECK_EQ_U64(w.comm.weight, PERIOD * 7 / 3);

	/* a storing trap on other bytes: false sharing, both stores */
	world_init(&w, 1, 2);
	sample(&w, 1, 100, LINE_A + 8, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(trap(&w, 0, 210, LINE_A + 16, 8, true));
	CHECK_EQ_U64(w.comm.flags, HC_COMM_TRAP | HC_COMM_PEER_STORE | HC_COMM_STORE);
	CHECK_EQ_U64(w.th[0].t_prev, 100);
	/* the entry counted by the trap is not counted again by a sample */
	w.th[0].prev_sample = 50;
	CHECK(!sample(&w, 0, 220, LINE_A, 8, false));
}

static void test_stale_rearm(void)
{
	struct world w;

	world_init(&w, 1, 1);
	sample(&w, 1, 90, LINE_A, 8, true);
	sample(&w, 0, 100, LINE_B, 8, false);        /* arms at 100 */
	CHECK(w.res.arm);
	CHECK_EQ_U64(w.th[0].armed_at, 100);

	/* next sample: the set was armed at my previous sample, not before it */
	sample(&w, 1, 150, LINE_A + 64 * 3, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(!w.res.arm);
	CHECK_EQ_U64(w.th[0].armed_at, 100);
	CHECK_EQ_U64(w.th[0].watched.line, LINE_A);

	/* the one after: armed before my previous sample, stale, re-armed */
	sample(&w, 1, 250, LINE_A + 64 * 3, 8, true);
	sample(&w, 0, 300, LINE_B, 8, false);
	CHECK(w.res.arm);
	CHECK_EQ_U64(w.th[0].armed_at, 300);
	CHECK_EQ_U64(w.th[0].watched.line, LINE_A + 64 * 3);
	CHECK_EQ_U64(w.th[0].watched.time, 250);

	/* stale and nothing fresh to watch: the old set expires (it cost
	   every context switch while armed) */
	sample(&w, 0, 400, LINE_B, 8, false);
	CHECK(!w.res.disarm && w.th[0].armed);
	sample(&w, 0, 500, LINE_B, 8, false);
	CHECK(!w.res.arm && w.res.disarm);
	CHECK(!w.th[0].armed);
	CHECK(!trap(&w, 0, 505, LINE_A + 64 * 3, 8, false));

	/* after a trap (disarmed) the very next sample may re-arm */
	sample(&w, 1, 506, LINE_A + 64 * 3, 8, true);
	sample(&w, 0, 507, LINE_B, 8, false);
	CHECK(w.res.arm);
	CHECK(trap(&w, 0, 510, LINE_A + 64 * 3, 8, false));
	sample(&w, 1, 520, LINE_A, 8, true);
	sample(&w, 0, 530, LINE_B, 8, false);
	CHECK(w.res.arm);
	/* after a failed arm, likewise */
	hc_detect_arm_failed(&w.th[0]);
	sample(&w, 1, 540, LINE_A, 8, true);
	sample(&w, 0, 550, LINE_B, 8, false);
	CHECK(w.res.arm);
}

/* A load sample with is_private set, for the publish_loads tests. */
static bool sample_priv(struct world *w, uint32_t t, uint64_t time, uint64_t addr,
                        uint32_t len, bool store, bool priv)
{
	struct hc_sample s = {
		.time = time, .addr = addr, .len = len, .is_store = store, .is_private = priv,
		.cpu = (int32_t)t + 20, .ctx = 500 + t,
	};

	memset(&w->comm, 0xa5, sizeof(w->comm));
	hc_detect_sample(&w->bb, &w->cfg, &w->th[t], &s, &w->res, &w->comm);
	return w->res.comm;
}

/* Loads on the board (issue #14): with publish_loads a non-private load
   publishes, flagged; a later store of another thread to that line
   communicates with it (the peer did not store), two loads never do; a
   thread watches a published load and its own store traps. */
static void test_load_entries(void)
{
	struct world w;
	struct hc_bb_entry e;

	world_init(&w, 7, 0);
	w.cfg.publish_loads = true;
	/* private loads never publish; others do, as loads */
	sample_priv(&w, 1, 100, LINE_A, 8, false, true);
	CHECK_EQ_U64(w.res.published, 0);
	sample_priv(&w, 1, 110, LINE_A + 8, 8, false, false);
	CHECK_EQ_U64(w.res.published, 1);
	CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e) && e.is_load && e.thread == 1 && e.ctx == 501);
	/* another thread's load of the line: nothing */
	CHECK(!sample_priv(&w, 2, 120, LINE_A + 8, 8, false, false));
	/* its store: one communication, the peer a load, true on the same bytes */
	w.th[0].prev_sample = 50;
	CHECK(sample_priv(&w, 0, 130, LINE_A + 8, 8, true, false));
	CHECK(w.comm.flags & HC_COMM_STORE);
	CHECK(!(w.comm.flags & HC_COMM_PEER_STORE));
	CHECK(w.comm.flags & HC_COMM_TRUE);
	CHECK_EQ_U64(w.comm.peer, 2);              /* T2's load replaced T1's */
	CHECK_EQ_U64(w.comm.weight, PERIOD);
	/* the store replaced the load on the board; T1's load now communicates */
	CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e) && !e.is_load && e.thread == 0);
	CHECK(sample_priv(&w, 1, 140, LINE_A, 8, false, false));
	CHECK(w.comm.flags & HC_COMM_PEER_STORE);
	CHECK(!(w.comm.flags & HC_COMM_TRUE));     /* other bytes: false sharing */
	/* without publish_loads a load publishes nothing */
	world_init(&w, 7, 0);
	sample_priv(&w, 1, 100, LINE_A, 8, false, false);
	CHECK_EQ_U64(w.res.published, 0);

	/* watching a published load: the watcher's store traps and counts */
	world_init(&w, 7, 2);
	w.cfg.publish_loads = true;
	sample(&w, 0, 100, LINE_B, 8, false);            /* T0's first sample */
	sample_priv(&w, 1, 150, LINE_A, 8, false, false); /* T1 reads line A */
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.arm);
	CHECK(w.th[0].watched.is_load && w.th[0].watched.line == LINE_A);
	CHECK(!trap(&w, 0, 210, LINE_A, 8, false));      /* T0 reads it too: no communication... */
	CHECK(!w.th[0].armed);                           /* ...and the set is used up */
	sample(&w, 0, 300, LINE_B, 8, false);            /* re-armed on the same load (window) */
	CHECK(!w.res.arm);                               /* not fresh, no window: not a target */
	w.cfg.load_window = 1000;
	sample(&w, 0, 400, LINE_B, 8, false);
	CHECK(w.res.arm && w.th[0].watched.is_load);
	CHECK(trap(&w, 0, 410, LINE_A, 8, true));        /* T0 writes what T1 reads */
	CHECK_EQ_U64(w.comm.peer, 1);
	CHECK(w.comm.flags & HC_COMM_TRAP);
	CHECK(w.comm.flags & HC_COMM_STORE);
	CHECK(!(w.comm.flags & HC_COMM_PEER_STORE));
	CHECK(w.comm.flags & HC_COMM_TRUE);
	CHECK_EQ_U64(w.comm.weight, PERIOD);
	CHECK(w.th[0].writes_only);                      /* a load's set watches writes */
	/* counted once: the same load is no target any more */
	sample(&w, 0, 500, LINE_B, 8, false);
	CHECK(!w.res.arm);
	/* hc_detect_publish of a trapped store */
	{
		struct hc_sample s = { .time = 600, .addr = LINE_A, .len = 8, .is_store = true, .ctx = 9 };
		CHECK_EQ_U64(hc_detect_publish(&w.bb, &w.cfg, &w.th[0], &s), 1);
		CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e) && !e.is_load && e.thread == 0 && e.ctx == 9);
		s.is_store = false;
		s.is_private = true;
		CHECK_EQ_U64(hc_detect_publish(&w.bb, &w.cfg, &w.th[0], &s), 0);
		s.is_store = true;     /* a private store (own stack, TLS) neither */
		CHECK_EQ_U64(hc_detect_publish(&w.bb, &w.cfg, &w.th[0], &s), 0);
	}
}

/* Targeting (issue #14): with a recent-lines table, a store is watched only
   if this thread's samples touched its line; a store wins over a load; the
   recent-publication ring finds a lone entry on a large board. */
static void test_targeting(void)
{
	static struct hc_step_lines lines;
	static unsigned char big[127 * 64] __attribute__((aligned(64)));
	struct world w;

	world_init(&w, 7, 2);
	w.cfg.publish_loads = true;
	w.th[0].touched = &lines;
	w.th[0].touched_within = 1000;
	/* a young thread (first HC_DETECT_YOUNG samples) targets any fresh
	   store: a short-lived thread's first accesses are often to what an
	   earlier (maybe ended) thread wrote */
	sample(&w, 1, 50, LINE_A, 8, true);
	sample(&w, 0, 60, LINE_B, 8, false);
	CHECK(w.res.arm && w.th[0].watched.line == LINE_A);
	hc_detect_arm_failed(&w.th[0]);
	sample(&w, 0, 100, LINE_B, 8, false);
	sample(&w, 1, 150, LINE_A, 8, true);             /* T1 stores line A */
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(!w.res.arm);                               /* T0 never touched A */
	hc_step_line_seen(&lines, LINE_A, 210, 1000);
	sample(&w, 1, 250, LINE_A, 8, true);
	sample(&w, 0, 300, LINE_B, 8, false);
	CHECK(w.res.arm && !w.th[0].watched.is_load && w.th[0].watched.line == LINE_A);
	/* a store target wins over a load target */
	world_init(&w, 7, 2);
	w.cfg.publish_loads = true;
	sample(&w, 0, 100, LINE_B + 64, 8, false);
	sample_priv(&w, 1, 150, LINE_B, 8, false, false);  /* a load of B */
	sample(&w, 2, 160, LINE_A, 8, true);               /* a store to A */
	sample(&w, 0, 200, LINE_B + 64, 8, false);
	CHECK(w.res.arm && !w.th[0].watched.is_load && w.th[0].watched.line == LINE_A);
	/* one entry among 127 slots, one random probe: found through the ring */
	memset(&w, 0, sizeof w);
	CHECK_EQ_U64(hc_bulletin_init(&w.bb, big, 127, 1000000), 0);
	w.cfg.period = PERIOD;
	w.cfg.nwatch = 2;
	w.cfg.probes = 1;
	for (int i = 0; i < NTHREADS; i++) {
		w.th[i].thread = (uint32_t)i;
		w.th[i].rng = 77 + (uint64_t)i;
	}
	sample(&w, 0, 100, LINE_B, 8, false);
	sample(&w, 1, 150, LINE_A + 64 * 40, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.arm && w.th[0].watched.line == LINE_A + 64 * 40);
}

/* Synchronizing stores (§5.17): a locked RMW or xchg published by another
   thread is a watch target even on a line this thread did not touch
   recently (a pipeline's per-row flags); a plain store there is not; the
   option off restores targeting; the set and its trap are marked. */
static void test_sync_targets(void)
{
	static struct hc_step_lines lines;
	struct world w;
	struct hc_sample s;

	memset(&lines, 0, sizeof lines);
	world_init(&w, 7, 2);
	w.cfg.sync_targets = true;
	w.th[0].touched = &lines;
	w.th[0].touched_within = 1000;
	sample(&w, 0, 50, LINE_B, 8, false);
	sample(&w, 0, 60, LINE_B, 8, false);             /* no longer young */
	/* a plain store on a line T0 never touched: not a target */
	sample(&w, 1, 100, LINE_A, 8, true);
	CHECK(!w.th[1].sync);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(!w.res.arm);
	/* T1's xchg on it: published as synchronizing, and a target */
	w.th[1].sync = true;
	sample(&w, 1, 250, LINE_A, 4, true);
	w.th[1].sync = false;
	CHECK_EQ_U64(w.res.published, 1);
	{
		struct hc_bb_entry e;

		CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e) && e.sync && !e.is_load);
	}
	sample(&w, 0, 300, LINE_B, 8, false);
	CHECK(w.res.arm && w.res.sync_set && w.th[0].sync_set && w.th[0].watched.line == LINE_A);
	/* T0 reads the flag: one communication, marked as the rule's */
	CHECK(trap(&w, 0, 350, LINE_A, 4, false));
	CHECK_EQ_U64(w.comm.peer, 1);
	CHECK(w.comm.sync_set);
	CHECK(w.comm.flags & HC_COMM_TRUE);
	/* a synchronizing store on a line T0 touched: a target as before,
	   not counted as the rule's */
	hc_step_line_seen(&lines, LINE_A, 360, 1000);
	w.th[1].sync = true;
	sample(&w, 1, 400, LINE_A, 4, true);
	w.th[1].sync = false;
	sample(&w, 0, 450, LINE_B, 8, false);
	CHECK(w.res.arm && !w.res.sync_set && !w.th[0].sync_set);
	CHECK(trap(&w, 0, 460, LINE_A, 4, false));
	CHECK(!w.comm.sync_set);
	/* the option off: a synchronizing store on an untouched line is not
	   a target */
	memset(&lines, 0, sizeof lines);
	world_init(&w, 7, 2);
	w.th[0].touched = &lines;
	w.th[0].touched_within = 1000;
	sample(&w, 0, 50, LINE_B, 8, false);
	sample(&w, 0, 60, LINE_B, 8, false);
	w.th[1].sync = true;
	sample(&w, 1, 100, LINE_A, 4, true);
	w.th[1].sync = false;
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(!w.res.arm);
	/* a load never publishes as synchronizing */
	s = (struct hc_sample){ .time = 1, .addr = LINE_A, .len = 4, .is_store = false };
	w.th[1].sync = true;
	CHECK(!hc_detect_entry(&w.th[1], &s).sync);
	s.is_store = true;
	CHECK(hc_detect_entry(&w.th[1], &s).sync);
}

/* Thread t samples an access in heap block `block` (allocated by owner-1). */
static bool sample_block(struct world *w, uint32_t t, uint64_t time, uint64_t addr, bool store,
                         uint16_t block, uint8_t owner)
{
	struct hc_sample s = {
		.time = time, .addr = addr, .len = 8, .is_store = store,
		.cpu = (int32_t)t + 20, .ctx = 500 + t, .block = block, .block_owner = owner,
	};

	memset(&w->comm, 0xa5, sizeof(w->comm));
	hc_detect_sample(&w->bb, &w->cfg, &w->th[t], &s, &w->res, &w->comm);
	return w->res.comm;
}

/* Reuse sets (§5.30): another thread's store in a heap block this thread
   accessed before (or allocated) is a target on a line it never touched,
   stays one for a few periods when not fresh (once), and the set lives
   cfg.reuse_life samples; its trap is marked; off, none of it. */
static void test_reuse_sets(void)
{
	static struct hc_step_lines lines;
	struct world w;
	struct hc_bb_entry e;

	memset(&lines, 0, sizeof lines);
	world_init(&w, 7, 2);
	w.cfg.reuse_life = 4;
	w.th[0].touched = &lines;
	w.th[0].touched_within = 1000000;
	/* the tag travels through the board */
	sample_block(&w, 1, 10, LINE_B + 64, true, 0x1234, 3);
	CHECK(hc_bulletin_lookup(&w.bb, LINE_B + 64, &e) && e.block == 0x1234 && e.block_owner == 3);
	CHECK(hc_block_tag(0) != 0 && hc_block_tag(0x1000) != hc_block_tag(0x2000));
	/* T0 writes block 7 (a pooled buffer) at another line, twice, and
	   works elsewhere */
	sample_block(&w, 0, 20, LINE_A + 64 * 10, true, 7, 0);
	sample_block(&w, 0, 30, LINE_A + 64 * 10, true, 7, 0);
	for (uint64_t t = 31; t < 45; t++)      /* in its own block 5 */
		sample_block(&w, 0, t, LINE_B, false, 5, 1);
	/* a block T0 works in (most of its samples in blocks) is no reuse
	   target, however many samples it has outside blocks (stack slots) */
	sample_block(&w, 1, 46, LINE_A + 64 * 20, true, 8, 0);
	for (uint64_t t = 47; t < 50; t++)
		sample_block(&w, 0, t, LINE_A + 64 * 30, true, 8, 0);
	for (uint64_t t = 50; t < 90; t++)
		sample(&w, 0, t, LINE_B - 64, 8, false);
	sample_block(&w, 1, 90, LINE_A + 64 * 20, true, 8, 0);
	sample(&w, 0, 95, LINE_B, 8, false);
	CHECK(!w.res.arm);
	/* T1 writes line A of block 7 (2 of T0's 19 samples in blocks), T0
	   never touched line A: a reuse target */
	sample_block(&w, 1, 100, LINE_A, true, 7, 0);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.arm && w.res.reuse_set && w.th[0].reuse_set && w.th[0].watched.line == LINE_A);
	/* the set outlives the next samples (reuse_life 4), not the 4th; and
	   its entry, no longer fresh, is not armed again */
	sample(&w, 0, 300, LINE_B, 8, false);
	CHECK(!w.res.arm && !w.res.disarm && w.th[0].armed);
	sample(&w, 0, 400, LINE_B, 8, false);
	sample(&w, 0, 500, LINE_B, 8, false);
	CHECK(w.th[0].armed && !w.res.disarm);
	sample(&w, 0, 600, LINE_B, 8, false);
	CHECK(w.res.disarm && !w.res.arm && !w.th[0].armed);
	/* armed again: T0 refills the line (its trap), a communication marked
	   as the rule's, true (the same bytes) */
	sample_block(&w, 1, 700, LINE_A + 8, true, 7, 0);
	sample(&w, 0, 800, LINE_B, 8, false);
	CHECK(w.res.arm && w.res.reuse_set);
	sample(&w, 0, 900, LINE_B, 8, false);
	CHECK(trap(&w, 0, 950, LINE_A + 8, 8, true));
	CHECK_EQ_U64(w.comm.peer, 1);
	CHECK(w.comm.reuse_set);
	CHECK(w.comm.flags & HC_COMM_TRUE);
	/* a block T0 allocated (owner T0 + 1), never sampled by T0 */
	sample_block(&w, 1, 1000, LINE_A + 64 * 4, true, 9, 1);
	CHECK_EQ_U64(w.res.published, 1);
	sample(&w, 0, 1100, LINE_B, 8, false);
	CHECK(w.res.arm && w.res.reuse_set && w.th[0].watched.line == LINE_A + 64 * 4);
	/* published while that set is armed: not fresh at its end, but recent */
	sample_block(&w, 1, 1150, LINE_A + 64 * 5, true, 9, 1);
	CHECK_EQ_U64(w.res.published, 1);
	for (uint64_t t = 1200; t <= 1400; t += 100)
		sample(&w, 0, t, LINE_B, 8, false);
	CHECK(w.th[0].armed && w.th[0].watched.line == LINE_A + 64 * 4);
	sample(&w, 0, 1500, LINE_B, 8, false);
	CHECK(w.res.arm && w.res.reuse_set && w.th[0].watched.line == LINE_A + 64 * 5);
	hc_detect_arm_failed(&w.th[0]);
	/* too old (RECENT_REUSE periods) */
	sample_block(&w, 1, 1600, LINE_A + 64 * 6, true, 9, 1);
	w.th[0].prev_sample = 1700;
	sample(&w, 0, 1600 + 9 * PERIOD, LINE_B, 8, false);
	CHECK(!w.res.arm);
	/* a block of another thread that T0 never accessed: no target */
	sample_block(&w, 1, 20000, LINE_A + 64 * 5, true, 11, 2);
	sample(&w, 0, 20100, LINE_B, 8, false);
	CHECK(!w.res.arm);
	/* a line T0 touched: a target as before, not the rule's */
	hc_step_line_seen(&lines, LINE_A + 64 * 6, 20150, 1000000);
	sample_block(&w, 1, 20200, LINE_A + 64 * 6, true, 7, 0);
	sample(&w, 0, 20300, LINE_B, 8, false);
	CHECK(w.res.arm && !w.res.reuse_set && !w.th[0].reuse_set);
	/* off: block 7's store on an untouched line is no target */
	memset(&lines, 0, sizeof lines);
	world_init(&w, 7, 2);
	w.th[0].touched = &lines;
	w.th[0].touched_within = 1000000;
	sample_block(&w, 0, 20, LINE_A + 64 * 10, true, 7, 0);
	for (uint64_t t = 31; t < 60; t++)
		sample_block(&w, 0, t, LINE_B, false, 5, 1);
	sample_block(&w, 1, 100, LINE_A, true, 7, 1);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(!w.res.arm);
}

/* A sample of T t, a load in block `block` ([lo, hi)), then the hand-off
   rule with writer record *wr; returns whether a hand-off set was asked. */
static bool sample_handoff(struct world *w, uint32_t t, uint64_t time, uint64_t addr, uint16_t block,
                           const struct hc_bb_entry *wr, uint64_t lo, uint64_t hi)
{
	struct hc_sample s = {
		.time = time, .addr = addr, .len = 8, .is_store = false, .is_private = true,
		.cpu = (int32_t)t + 20, .ctx = 500 + t, .block = block,
	};

	memset(&w->comm, 0xa5, sizeof(w->comm));
	hc_detect_sample(&w->bb, &w->cfg, &w->th[t], &s, &w->res, &w->comm);
	return hc_detect_arm_handoff(&w->cfg, &w->th[t], &s, wr, lo, hi, &w->res);
}

/* Kernel fills (§5.75): a load inside the range a fill record stands for
   ([addr, addr + len) of a small block: a 256 KiB read() buffer) arms a
   hand-off set on lines of that range only, standing for the filler; not
   outside the range, not another block's record, not the filler itself,
   not a store; the per-block cap counts the range's lines. */
/* §5.76: a critical-section set on the previous holder's sampled stores */
static void test_arm_entries(void)
{
	const uint64_t a = 0x601000ull + 4, b = 0x601000ull + 64 * 7;
	struct hc_bb_entry e[3] = {
		{ .line = a & ~63ull, .addr = a, .time = 50, .len = 4, .thread = 0, .cpu = 20, .ctx = 901,
		  .mask = 0xfull << 4 },
		{ .line = a & ~63ull, .addr = a - 4, .time = 55, .len = 4, .thread = 0, .cpu = 20, .ctx = 902,
		  .mask = 0xfull },
		{ .line = b & ~63ull, .addr = b, .time = 60, .len = 4, .thread = 0, .cpu = 20, .ctx = 903, .mask = 0xf },
	};
	struct world w;

	world_init(&w, 7, 3);
	CHECK(!hc_detect_arm_entries(&w.cfg, &w.th[1], e, 0, false, 100, &w.res));
	/* two chunks: a's and a - 4's are one 8-byte word */
	CHECK(hc_detect_arm_entries(&w.cfg, &w.th[1], e, 3, false, 100, &w.res));
	CHECK(w.res.arm && w.res.nwatch == 2 && w.th[1].start_set && !w.th[1].lock_set);
	CHECK_EQ_U64(w.res.watch_addr[0], a - 4);
	CHECK_EQ_U64(w.res.watch_addr[1], b);
	CHECK_EQ_U64(w.th[1].start[0].ctx, 901);
	/* an access elsewhere on the line of a watched chunk is still the holder's
	   line (a start set's trap); its own bytes: true, one period */
	CHECK(trap(&w, 1, 110, b, 4, false));
	CHECK_EQ_U64(w.comm.peer, 0);
	CHECK_EQ_U64(w.comm.peer_ctx, 903);
	CHECK_EQ_U64(w.comm.weight, PERIOD);
	CHECK(w.comm.flags & HC_COMM_TRUE);
	CHECK(!w.th[1].armed);
	/* the same line, other bytes than the holder's: false */
	CHECK(hc_detect_arm_entries(&w.cfg, &w.th[2], e + 2, 1, false, 120, &w.res));
	CHECK(trap(&w, 2, 130, b + 32, 4, false));
	CHECK(!(w.comm.flags & HC_COMM_TRUE));
	/* filled: one record, 3 registers: its chunk and the two after it on
	   its line; a trap on a filled chunk is the record's line, judged by
	   its bytes (false here); a record at a line's last chunk has none */
	CHECK(hc_detect_arm_entries(&w.cfg, &w.th[2], e + 2, 1, true, 132, &w.res));
	CHECK(w.res.nwatch == 3);
	CHECK_EQ_U64(w.res.watch_addr[0], b);
	CHECK_EQ_U64(w.res.watch_addr[1], b + 8);
	CHECK_EQ_U64(w.res.watch_addr[2], b + 16);
	CHECK_EQ_U64(w.th[2].start[2].ctx, 903);
	CHECK(trap(&w, 2, 134, b + 16, 4, false));
	CHECK_EQ_U64(w.comm.peer_ctx, 903);
	CHECK(!(w.comm.flags & HC_COMM_TRUE));
	{
		struct hc_bb_entry last = e[2];

		last.addr = (b & ~63ull) + 56;
		CHECK(hc_detect_arm_entries(&w.cfg, &w.th[2], &last, 1, true, 136, &w.res));
		CHECK(w.res.nwatch == 1);
		w.th[2].armed = false;
	}
	/* a regular set armed: not replaced */
	w.th[2].armed = true;
	w.th[2].start_set = false;
	CHECK(!hc_detect_arm_entries(&w.cfg, &w.th[2], e, 3, true, 140, &w.res));
	/* no watch registers: nothing */
	w.cfg.nwatch = 0;
	CHECK(!hc_detect_arm_entries(&w.cfg, &w.th[0], e, 3, true, 150, &w.res));
}

static void test_handoff_range(void)
{
	const uint64_t lo = 0x7f0000200010ull, len = 256 * 1024;
	struct hc_bb_entry wr = {
		.line = 9ull << 6, .addr = lo, .time = 50, .len = (uint32_t)len, .thread = 0,
		.cpu = 20, .ctx = 777, .block = 9, .mask = ~0ull,
	};
	struct world w;
	struct hc_sample s = { .time = 100, .addr = lo + 64 * 40, .len = 8, .is_private = true, .cpu = 21,
	                       .ctx = 501, .block = 9 };

	world_init(&w, 7, 3);
	/* off (handoff_life 0): nothing */
	hc_detect_sample(&w.bb, &w.cfg, &w.th[1], &s, &w.res, &w.comm);
	CHECK(!hc_detect_arm_handoff_range(&w.cfg, &w.th[1], &s, &wr, &w.res));
	w.cfg.handoff_life = 4;
	/* outside the range, another block, the filler, a store: nothing */
	s.time = 110, s.addr = lo + len + 64;
	hc_detect_sample(&w.bb, &w.cfg, &w.th[1], &s, &w.res, &w.comm);
	CHECK(!hc_detect_arm_handoff_range(&w.cfg, &w.th[1], &s, &wr, &w.res));
	s.time = 120, s.addr = lo + 64 * 40, s.block = 8;
	hc_detect_sample(&w.bb, &w.cfg, &w.th[1], &s, &w.res, &w.comm);
	CHECK(!hc_detect_arm_handoff_range(&w.cfg, &w.th[1], &s, &wr, &w.res));
	s.time = 130, s.block = 9;
	hc_detect_sample(&w.bb, &w.cfg, &w.th[0], &s, &w.res, &w.comm);
	CHECK(!hc_detect_arm_handoff_range(&w.cfg, &w.th[0], &s, &wr, &w.res));
	s.time = 140, s.is_store = true;
	hc_detect_sample(&w.bb, &w.cfg, &w.th[2], &s, &w.res, &w.comm);
	CHECK(!hc_detect_arm_handoff_range(&w.cfg, &w.th[2], &s, &wr, &w.res));
	s.is_store = false;
	CHECK(!w.th[1].armed);
	/* armed: 3 lines inside the range's lines, standing for the filler */
	s.time = 150;
	hc_detect_sample(&w.bb, &w.cfg, &w.th[1], &s, &w.res, &w.comm);
	CHECK(hc_detect_arm_handoff_range(&w.cfg, &w.th[1], &s, &wr, &w.res));
	CHECK(w.res.arm && w.res.handoff_set && w.res.nwatch == 3);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK(w.res.watch_addr[i] >= (lo & ~63ull) && w.res.watch_addr[i] < lo + len);
		CHECK_EQ_U64(w.th[1].start[i].thread, 0);
		CHECK_EQ_U64(w.th[1].start[i].ctx, 777);
		CHECK_EQ_U64(w.th[1].start[i].mask, ~0ull);
	}
	/* a trap on a watched line: the filler, true */
	CHECK(trap(&w, 1, 160, w.res.watch_addr[0], 8, false));
	CHECK_EQ_U64(w.comm.peer, 0);
	CHECK_EQ_U64(w.comm.peer_ctx, 777);
	CHECK(w.comm.handoff_set && (w.comm.flags & HC_COMM_TRUE));
	/* the cap: 1 + 4096 lines / 4096 = 2 traps for this fill, then none
	   until the block is filled again */
	s.time = 170, s.addr = lo + 64 * 900;
	hc_detect_sample(&w.bb, &w.cfg, &w.th[1], &s, &w.res, &w.comm);
	CHECK(hc_detect_arm_handoff_range(&w.cfg, &w.th[1], &s, &wr, &w.res));
	CHECK(trap(&w, 1, 180, w.res.watch_addr[0], 8, false));
	s.time = 190, s.addr = lo + 64 * 1900;
	hc_detect_sample(&w.bb, &w.cfg, &w.th[1], &s, &w.res, &w.comm);
	CHECK(!hc_detect_arm_handoff_range(&w.cfg, &w.th[1], &s, &wr, &w.res) && w.res.handoff_capped);
	wr.time = 185;    /* read into again */
	s.time = 200, s.addr = lo + 64 * 2900;
	hc_detect_sample(&w.bb, &w.cfg, &w.th[1], &s, &w.res, &w.comm);
	CHECK(hc_detect_arm_handoff_range(&w.cfg, &w.th[1], &s, &wr, &w.res) && !w.res.handoff_capped);
}

/* Hand-off sets (§5.36): a load in a big block one other thread alone
   stored to arms a start set on lines of the block standing for that
   store; it lives cfg.handoff_life samples; its trap names the writer
   with its context; not for the writer, a block of two writers, a small
   block, a store, or over a set on a store. */
static void test_handoff_sets(void)
{
	static struct hc_step_lines lines;
	const uint64_t lo = 0x7f0000100000ull, hi = lo + 2 * (uint64_t)HC_HANDOFF_BLOCK_MIN;
	struct hc_bb_entry wr = {
		.line = 7ull << 6, .addr = lo + 64 * 3 + 20, .time = 50, .len = 8, .thread = 0,
		.cpu = 20, .ctx = 555, .block = 7, .mask = 0xff,
	};
	struct world w;
	uint64_t a;

	memset(&lines, 0, sizeof lines);
	world_init(&w, 7, 3);
	w.th[1].touched = &lines;
	w.th[1].touched_within = 1000000;
	/* off: nothing */
	CHECK(!sample_handoff(&w, 1, 100, lo + 64 * 100, 7, &wr, lo, hi));
	w.cfg.handoff_life = 4;
	/* the writer's own load, a store, another block's record, a block of
	   two writers, a small block: nothing */
	CHECK(!sample_handoff(&w, 0, 110, lo + 64 * 100, 7, &wr, lo, hi));
	CHECK(!sample_handoff(&w, 1, 120, lo + 64 * 100, 8, &wr, lo, hi));
	wr.spin = 1;
	CHECK(!sample_handoff(&w, 1, 130, lo + 64 * 100, 7, &wr, lo, hi));
	wr.spin = 0;
	CHECK(!sample_handoff(&w, 1, 140, lo + 64 * 100, 7, &wr, lo, lo + HC_HANDOFF_BLOCK_MIN - 64));
	CHECK(!w.th[1].armed);
	/* armed: 3 distinct lines of the block, the writer's chunk, standing
	   for its store (thread, context), whole lines */
	hc_step_line_seen(&lines, lo + 64 * 100, 150, 1000000);
	CHECK(sample_handoff(&w, 1, 150, lo + 64 * 100, 7, &wr, lo, hi));
	CHECK(w.res.arm && w.res.handoff_set && !w.res.reuse_set && w.res.nwatch == 3);
	CHECK(w.th[1].armed && w.th[1].start_set && w.th[1].handoff_set);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK(w.res.watch_addr[i] >= lo && w.res.watch_addr[i] < hi);
		CHECK_EQ_U64(w.res.watch_addr[i] & 63, 16);
		CHECK(w.res.watch_addr[i] != lo + 64 * 100 + 16);    /* a line T1 touched: rarely drawn, never kept */
		CHECK_EQ_U64(w.th[1].start[i].thread, 0);
		CHECK_EQ_U64(w.th[1].start[i].ctx, 555);
		CHECK_EQ_U64(w.th[1].start[i].mask, ~0ull);
		for (uint32_t j = 0; j < i; j++)
			CHECK(w.res.watch_addr[i] != w.res.watch_addr[j]);
	}
	/* it lives handoff_life samples (the arming one counted), a new load
	   in the block leaving it */
	for (uint64_t t = 200; t <= 400; t += 100) {
		CHECK(!sample_handoff(&w, 1, t, lo + 64 * 200, 7, &wr, lo, hi));
		CHECK(!w.res.arm && !w.res.disarm && w.th[1].armed);
	}
	sample(&w, 1, 500, LINE_B, 8, false);
	CHECK(w.res.disarm && !w.th[1].armed);
	/* armed again; a trap on a watched line: the writer, its context, one
	   period, true; the start sets' skip is left alone */
	CHECK(sample_handoff(&w, 1, 600, lo + 64 * 300, 7, &wr, lo, hi));
	a = w.res.watch_addr[1] & ~63ull;
	CHECK(trap(&w, 1, 650, a + 40, 4, false));
	CHECK_EQ_U64(w.comm.peer, 0);
	CHECK_EQ_U64(w.comm.peer_ctx, 555);
	CHECK_EQ_U64(w.comm.ctx, 701);
	CHECK_EQ_U64(w.comm.weight, PERIOD);
	CHECK(w.comm.handoff_set && (w.comm.flags & HC_COMM_TRUE) && (w.comm.flags & HC_COMM_TRAP));
	CHECK(!w.th[1].armed && !w.th[1].handoff_set);
	CHECK_EQ_U64(w.th[1].start_skip, 0);
	/* a set on another thread's store stays; a set asked on a load is
	   replaced */
	hc_step_line_seen(&lines, LINE_A, 690, 1000000);
	sample(&w, 2, 700, LINE_A, 8, true);
	CHECK(!sample_handoff(&w, 1, 750, lo + 64 * 400, 7, &wr, lo, hi));
	CHECK(w.res.arm && !w.res.handoff_set && w.th[1].watched.line == LINE_A);
	hc_detect_arm_failed(&w.th[1]);
	w.th[1].touched = NULL;
	sample(&w, 2, 800, LINE_B, 8, false);     /* T2's load: a load target */
	CHECK(sample_handoff(&w, 1, 850, lo + 64 * 500, 7, &wr, lo, hi));
	CHECK(w.res.arm && w.res.handoff_set && w.th[1].handoff_set && !w.th[1].writes_only);
	/* a failed arm forgets it */
	hc_detect_arm_failed(&w.th[1]);
	CHECK(!w.th[1].armed && !w.th[1].handoff_set);
	/* at most 1 + lines / HC_HANDOFF_LINES_PER_TRAP traps a block: the
	   one trapped above and 8 more in this 32768-line block, then none */
	CHECK_EQ_U64((hi - lo) / 64 / HC_HANDOFF_LINES_PER_TRAP, 8);
	for (int k = 0; k < 8; k++) {
		CHECK(sample_handoff(&w, 1, 1000 + 100 * (uint64_t)k, lo + 64 * 600, 7, &wr, lo, hi));
		CHECK(trap(&w, 1, 1050 + 100 * (uint64_t)k, w.res.watch_addr[0], 8, false));
		CHECK(w.comm.handoff_set);
	}
	CHECK(!sample_handoff(&w, 1, 2000, lo + 64 * 600, 7, &wr, lo, hi));
	CHECK(w.res.handoff_capped && !w.th[1].armed);
	/* another block's count is its own */
	wr.block = 9;
	CHECK(sample_handoff(&w, 1, 2100, lo + 64 * 600, 9, &wr, lo, hi));
	CHECK(!w.th[1].handoff_region);   /* a block's set: HPCRUN_COMM_HANDOFF_UNGATED */
	CHECK(!w.res.handoff_capped);
	/* Session 21 (§5.51): with cfg.handoff_window the lines are drawn from
	   [addr - window / 4, addr + window) clipped to the block; a block
	   not larger than 1.25 windows, or 0, keeps the whole block */
	hc_detect_arm_failed(&w.th[1]);
	w.cfg.handoff_window = 64 * 1024;
	wr.block = 11;
	for (int k = 0; k < 20; k++) {
		uint64_t at = lo + 64 * 8000 + 8;

		CHECK(sample_handoff(&w, 1, 3000 + 10 * (uint64_t)k, at, 11, &wr, lo, hi));
		for (uint32_t i = 0; i < w.res.nwatch; i++)
			CHECK(w.res.watch_addr[i] >= lo + 64 * 8000 - 16 * 1024 &&
			      w.res.watch_addr[i] < lo + 64 * 8000 + 64 * 1024);
		hc_detect_arm_failed(&w.th[1]);
		/* near the block's ends: clipped to it */
		CHECK(sample_handoff(&w, 1, 3005 + 10 * (uint64_t)k, lo + 64 * 2, 11, &wr, lo, hi));
		for (uint32_t i = 0; i < w.res.nwatch; i++)
			CHECK(w.res.watch_addr[i] >= lo && w.res.watch_addr[i] < lo + 64 * 2 + 64 * 1024);
		hc_detect_arm_failed(&w.th[1]);
	}
	CHECK(sample_handoff(&w, 1, 3500, hi - 8, 11, &wr, lo, hi));
	for (uint32_t i = 0; i < w.res.nwatch; i++)
		CHECK(w.res.watch_addr[i] >= hi - 64 - 16 * 1024 && w.res.watch_addr[i] < hi);
	hc_detect_arm_failed(&w.th[1]);
	w.cfg.handoff_window = hi - lo;
	{
		bool far = false;

		for (int k = 0; k < 20; k++) {
			CHECK(sample_handoff(&w, 1, 4000 + 10 * (uint64_t)k, lo + 64 * 8000, 11, &wr, lo, hi));
			for (uint32_t i = 0; i < w.res.nwatch; i++)
				far |= w.res.watch_addr[i] < lo + 64 * 8000 - 16 * 1024 ||
				       w.res.watch_addr[i] >= lo + 64 * 8000 + 64 * 1024;
			hc_detect_arm_failed(&w.th[1]);
		}
		CHECK(far);   /* the whole block: lines outside a 64 KiB window too */
	}
	/* Session 23 (§5.59): a block of exactly HC_HANDOFF_BLOCK_MIN bytes
	   that malloc started 16 bytes into a line (xz's input buffers) is
	   big enough; one byte less is not */
	hc_detect_arm_failed(&w.th[1]);
	w.cfg.handoff_window = 64 * 1024;
	wr.block = 12;
	CHECK(sample_handoff(&w, 1, 5000, lo + 16 + 64 * 100, 12, &wr, lo + 16, lo + 16 + HC_HANDOFF_BLOCK_MIN));
	hc_detect_arm_failed(&w.th[1]);
	CHECK(!sample_handoff(&w, 1, 5010, lo + 16 + 64 * 100, 12, &wr, lo + 16, lo + 15 + HC_HANDOFF_BLOCK_MIN));
}

/* Session 19 (§5.41): a region's record (small blocks) arms a hand-off
   set on the aligned 1 MiB region; a store arms only with
   cfg.handoff_stores, on lines after its own; a record older than
   cfg.handoff_region_age arms nothing. */
static uint32_t sample_region_block;   /* the sample's block tag (0: none) */

static bool sample_region(struct world *w, uint32_t t, uint64_t time, uint64_t addr, bool store,
                          const struct hc_bb_entry *wr)
{
	struct hc_sample s = {
		.time = time, .addr = addr, .len = 8, .is_store = store, .is_private = !store,
		.cpu = (int32_t)t + 20, .ctx = 500 + t, .block = sample_region_block,
	};

	memset(&w->comm, 0xa5, sizeof(w->comm));
	hc_detect_sample(&w->bb, &w->cfg, &w->th[t], &s, &w->res, &w->comm);
	return hc_detect_arm_handoff_region(&w->cfg, &w->th[t], &s, wr, addr, &w->res);
}

static void test_handoff_regions(void)
{
	const uint64_t lo = 0x7f0000300000ull;   /* 1 MiB aligned */
	struct hc_bb_entry wr = {
		.line = 9ull << 6, .addr = lo + 64 * 5 + 8, .time = 50, .len = 8, .thread = 0,
		.cpu = 20, .ctx = 556, .block = 0, .mask = 0xff,
	};
	struct world w;
	uint64_t a;

	CHECK_EQ_U64(lo & (HC_HANDOFF_REGION - 1), 0);
	world_init(&w, 7, 3);
	/* off, the writer's own, a load too old: nothing */
	CHECK(!sample_region(&w, 1, 100, lo + 64 * 1000, false, &wr));
	w.cfg.handoff_life = 4;
	w.cfg.handoff_region_age = 1000;
	CHECK(!sample_region(&w, 0, 110, lo + 64 * 1000, false, &wr));
	CHECK(!sample_region(&w, 1, 2000, lo + 64 * 1000, false, &wr));
	/* a store without handoff_stores: nothing */
	CHECK(!sample_region(&w, 1, 120, lo + 64 * 1000, true, &wr));
	CHECK(!w.th[1].handoff_set);
	hc_detect_arm_failed(&w.th[1]);
	/* a load: lines anywhere in the region, standing for the writer */
	CHECK(sample_region(&w, 1, 130, lo + 64 * 1000 + 8, false, &wr));
	CHECK(w.res.arm && w.res.handoff_set && w.res.nwatch == 3);
	for (uint32_t i = 0; i < 3; i++) {
		CHECK(w.res.watch_addr[i] >= lo && w.res.watch_addr[i] < lo + HC_HANDOFF_REGION);
		CHECK_EQ_U64(w.res.watch_addr[i] & 63, 8);
		CHECK((w.res.watch_addr[i] & ~63ull) != lo + 64 * 1000);
		CHECK_EQ_U64(w.th[1].start[i].ctx, 556);
	}
	a = w.res.watch_addr[2] & ~63ull;
	CHECK(trap(&w, 1, 140, a + 16, 8, true));
	CHECK_EQ_U64(w.comm.peer, 0);
	CHECK_EQ_U64(w.comm.peer_ctx, 556);
	CHECK(w.comm.handoff_set);
	/* a store with handoff_stores: lines after its own (a sweep); a
	   fresh world (the trap's store above is on T2's board) */
	world_init(&w, 7, 3);
	w.cfg.handoff_life = 4;
	w.cfg.handoff_region_age = 1000;
	w.cfg.handoff_stores = true;
	CHECK(sample_region(&w, 2, 150, lo + HC_HANDOFF_REGION - 64 * 10, true, &wr));
	for (uint32_t i = 0; i < w.res.nwatch; i++)
		CHECK(w.res.watch_addr[i] > lo + HC_HANDOFF_REGION - 64 * 10 &&
		      w.res.watch_addr[i] < lo + HC_HANDOFF_REGION);
	/* the last line of the region: no line after it, drawn anywhere */
	hc_detect_arm_failed(&w.th[2]);
	CHECK(sample_region(&w, 2, 160, lo + HC_HANDOFF_REGION - 8, true, &wr));
	CHECK(w.res.nwatch == 3);
	/* age 0: any age */
	hc_detect_arm_failed(&w.th[2]);
	w.cfg.handoff_region_age = 0;
	CHECK(sample_region(&w, 2, 5000000, lo + 64 * 7, false, &wr));
	/* Session 20 (§5.42): a record younger than cfg.handoff_region_settle
	   (a writer still storing beside this thread: generations' workers of
	   one generation, each on its own slice) arms nothing; once it is
	   that old it arms, a store's set as a load's; settle 0 arms at once */
	world_init(&w, 7, 3);
	w.cfg.handoff_life = 4;
	w.cfg.handoff_region_age = 100000;
	w.cfg.handoff_region_settle = 1000;
	w.cfg.handoff_stores = true;
	CHECK(!sample_region(&w, 1, 60, lo + 64 * 100, true, &wr));
	CHECK(!sample_region(&w, 1, 1049, lo + 64 * 100, false, &wr));
	CHECK(!w.th[1].handoff_set);
	CHECK(sample_region(&w, 1, 1050, lo + 64 * 100, true, &wr));
	CHECK(w.res.handoff_set && w.res.nwatch == 3);
	CHECK(w.th[1].handoff_region);   /* the runtime asks the switch gate for it */
	hc_detect_arm_failed(&w.th[1]);
	/* a record stamped after the sample (another CPU's clock): nothing */
	wr.time = 2000;
	CHECK(!sample_region(&w, 1, 1990, lo + 64 * 100, false, &wr));
	w.cfg.handoff_region_settle = 0;
	wr.time = 50;
	CHECK(sample_region(&w, 1, 60, lo + 64 * 200, false, &wr));
	/* Session 21 (§5.50): a record stored in another tracked block than
	   the sample's (each thread's own array, several in the region) arms
	   nothing with cfg.handoff_region_block; the same block, or a tag
	   unknown on either side, arms as before */
	world_init(&w, 7, 3);
	w.cfg.handoff_life = 4;
	w.cfg.handoff_stores = true;
	w.cfg.handoff_region_block = true;
	wr.time = 50;
	wr.block = 0x770;
	sample_region_block = 0xfbc6;
	CHECK(!sample_region(&w, 1, 60, lo + 64 * 300, true, &wr));
	CHECK(w.res.handoff_other_block && !w.res.handoff_set && !w.th[1].handoff_region);
	sample_region_block = 0x770;
	CHECK(sample_region(&w, 1, 70, lo + 64 * 300, true, &wr));
	CHECK(!w.res.handoff_other_block && w.res.handoff_set);
	hc_detect_arm_failed(&w.th[1]);
	sample_region_block = 0;
	CHECK(sample_region(&w, 1, 80, lo + 64 * 400, false, &wr));
	hc_detect_arm_failed(&w.th[1]);
	wr.block = 0;
	sample_region_block = 0xfbc6;
	CHECK(sample_region(&w, 1, 90, lo + 64 * 500, false, &wr));
	hc_detect_arm_failed(&w.th[1]);
	/* off: the region as any record */
	w.cfg.handoff_region_block = false;
	wr.block = 0x770;
	CHECK(sample_region(&w, 1, 100, lo + 64 * 600, true, &wr));
	sample_region_block = 0;
}

/* True and false sharing judged with each side's line bytes (§5.7): the
   bytes a thread was seen to access on the line recently join its access,
   the publisher's through the entry's mask. */
static void test_judged_by_masks(void)
{
	static struct hc_step_lines l0, l1;
	struct world w;
	bool t;

	world_init(&w, 7, 2);
	w.th[0].touched = &l0;
	w.th[0].touched_within = 100000;
	w.th[1].touched = &l1;
	w.th[1].touched_within = 100000;
	/* a queue: T1 (producer) was seen storing items 0 and 2, T0
	   (consumer) loading item 1 before; now T1 stores item 3 and T0
	   loads item 0: the accesses miss each other, the bytes do not */
	hc_step_line_note(&l1, LINE_A + 0, 16, 100, 100000);
	hc_step_line_note(&l1, LINE_A + 32, 16, 110, 100000);
	hc_step_line_note(&l0, LINE_A + 16, 8, 120, 100000);
	hc_step_line_note(&l1, LINE_A + 48, 8, 200, 100000);
	sample(&w, 1, 200, LINE_A + 48, 8, true);
	CHECK_EQ_U64(w.res.published, 1);
	hc_step_line_note(&l0, LINE_A + 0, 8, 300, 100000);
	CHECK(sample(&w, 0, 300, LINE_A + 0, 8, false));
	CHECK(w.comm.flags & HC_COMM_TRUE);
	CHECK(w.comm.true_by_mask);          /* item 0 was in T1's bytes */
	/* two threads that keep to their own field stay false */
	world_masks(&w, &l0, &l1);
	for (uint64_t k = 0; k < 4; k++) {
		hc_step_line_note(&l1, LINE_A + 8, 8, 1000 + 100 * k, 100000);
		sample(&w, 1, 1000 + 100 * k, LINE_A + 8, 8, true);
		hc_step_line_note(&l0, LINE_A + 16, 8, 1050 + 100 * k, 100000);
		t = sample(&w, 0, 1050 + 100 * k, LINE_A + 16, 8, true);
		CHECK(t && !(w.comm.flags & HC_COMM_TRUE) && !w.comm.true_by_mask);
	}
	/* a moving access counts as the whole line: judged so... */
	w.th[0].moving = true;
	sample(&w, 1, 1600, LINE_A + 8, 8, true);
	CHECK(sample(&w, 0, 1650, LINE_A + 16, 8, true));
	CHECK((w.comm.flags & HC_COMM_TRUE) && w.comm.true_by_mask);
	/* ...and published so (the entry's mask: the whole line) */
	w.th[0].moving = false;
	CHECK(sample(&w, 1, 1700, LINE_A + 8, 8, true));
	CHECK((w.comm.flags & HC_COMM_TRUE) && w.comm.true_by_mask);
	/* fixed again: false again */
	CHECK(sample(&w, 0, 1750, LINE_A + 16, 8, true));
	CHECK(!(w.comm.flags & HC_COMM_TRUE));
	/* a moving access whose span is known (§5.47) counts as the bytes
	   of its span: kmeans' per-thread counters, each thread walking its
	   own part of one line, are false sharing... */
	w.th[0].moving = true;
	w.th[0].move_lo = LINE_A + 16;
	w.th[0].move_hi = LINE_A + 40;
	sample(&w, 1, 1780, LINE_A + 8, 8, true);
	CHECK(sample(&w, 0, 1800, LINE_A + 24, 8, true));
	CHECK(!(w.comm.flags & HC_COMM_TRUE));
	w.th[0].moving = false;
	w.th[1].moving = true;
	w.th[1].move_lo = LINE_A - 64 * 3;    /* from lines before, up to +16 */
	w.th[1].move_hi = LINE_A + 12;
	CHECK(sample(&w, 1, 1850, LINE_A + 8, 4, true));
	CHECK(!(w.comm.flags & HC_COMM_TRUE));
	w.th[1].moving = false;
	/* ...a span over T1's bytes is true... */
	w.th[0].moving = true;
	w.th[0].move_lo = LINE_A + 8;
	w.th[0].move_hi = LINE_A + 40;
	sample(&w, 1, 1880, LINE_A + 8, 8, true);
	CHECK(sample(&w, 0, 1900, LINE_A + 24, 8, true));
	CHECK((w.comm.flags & HC_COMM_TRUE) && w.comm.true_by_mask);
	/* ...and a span over the whole line (a walk through an array) too */
	w.th[0].move_lo = LINE_A - 4096;
	w.th[0].move_hi = LINE_A + 4096;
	CHECK(sample(&w, 1, 1950, LINE_A + 8, 8, true));
	CHECK(sample(&w, 0, 2000, LINE_A + 16, 8, true));
	CHECK((w.comm.flags & HC_COMM_TRUE) && w.comm.true_by_mask);
	w.th[0].moving = false;
	w.th[0].move_lo = w.th[0].move_hi = 0;
	w.th[1].move_lo = w.th[1].move_hi = 0;
	/* a confirmed fixed access counts as its bytes alone (§5.47): the
	   master that also read T1's counters in its serial reduction (its
	   mask holds them) loads its own pointer beside them, false... */
	hc_step_line_note(&l0, LINE_A + 8, 8, 2050, 100000);
	sample(&w, 1, 2080, LINE_A + 8, 8, true);
	w.th[0].fixed = true;
	CHECK(sample(&w, 0, 2100, LINE_A + 48, 8, false));
	CHECK(!(w.comm.flags & HC_COMM_TRUE));
	/* ...published so: T1's next store on its counter, false too... */
	sample(&w, 0, 2150, LINE_A + 48, 8, true);
	CHECK_EQ_U64(w.res.published, 1);
	w.th[0].fixed = false;
	CHECK(sample(&w, 1, 2200, LINE_A + 8, 8, true));
	CHECK(!(w.comm.flags & HC_COMM_TRUE));
	/* ...while without it the master's mask makes it true */
	sample(&w, 1, 2280, LINE_A + 8, 8, true);
	CHECK(sample(&w, 0, 2300, LINE_A + 48, 8, false));
	CHECK((w.comm.flags & HC_COMM_TRUE) && w.comm.true_by_mask);
	/* the same through a trap: T0 watches T1's published load, T0's
	   store misses the loaded bytes but T1 was seen reading them */
	world_masks(&w, &l0, &l1);
	w.cfg.publish_loads = true;
	hc_step_line_note(&l1, LINE_A + 40, 8, 100, 100000);
	hc_step_line_note(&l1, LINE_A + 8, 8, 150, 100000);
	sample_priv(&w, 1, 150, LINE_A + 8, 8, false, false);   /* a published load */
	CHECK_EQ_U64(w.res.published, 1);
	hc_step_line_note(&l0, LINE_B, 8, 200, 100000);
	hc_step_line_note(&l0, LINE_A + 48, 8, 190, 100000);     /* T0 touched A */
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.arm && w.th[0].watched.is_load);
	CHECK(trap(&w, 0, 250, LINE_A + 40, 8, true));
	CHECK((w.comm.flags & HC_COMM_TRUE) && w.comm.true_by_mask);
}

/* Start sets: a thread that begins after others ended watches, at once,
   one line of each of up to D other publishers, one chunk each; a trap on
   one is a communication with its publisher, weighted by the candidates
   its line stands for. */
static void test_start_set(void)
{
	struct world w;
	struct hc_detect_result res;
	uint64_t seen = 0, a1 = 0;
	bool saw[2] = { false, false };

	world_init(&w, 61, 4);
	/* T1 stored lines A, A+64*3 (published chunks 1 and 5); T2 line B;
	   T3 a load of A+64*7 (not a candidate); T0 its own store */
	sample(&w, 1, 100, LINE_A + 8, 8, true);
	sample(&w, 1, 110, LINE_A + 64 * 3 + 40, 8, true);
	sample(&w, 2, 120, LINE_B, 8, true);
	w.cfg.publish_loads = true;
	sample(&w, 3, 130, LINE_A + 64 * 7, 8, false);
	sample(&w, 0, 140, LINE_A + 64 * 9, 8, true);
	w.th[0].prev_sample = 0;
	w.th[0].nsamples = 0;
	w.th[0].armed = false;
	CHECK(hc_detect_arm_start(&w.bb, &w.cfg, &w.th[0], 200, 0, NULL, 0, &res));
	/* two publishers: one line each, T1's either of its two */
	CHECK(res.arm && res.nwatch == 2 && w.th[0].start_set && !w.th[0].join_set && w.th[0].candidates == 3);
	for (uint32_t i = 0; i < res.nwatch; i++) {
		seen |= res.watch_addr[i] == LINE_A + 8 ? 1 : res.watch_addr[i] == LINE_A + 64 * 3 + 40 ? 2 :
		        res.watch_addr[i] == LINE_B ? 4 : 8;
		if (res.watch_addr[i] != LINE_B)
			a1 = res.watch_addr[i];
	}
	CHECK(seen == 5 || seen == 6);         /* the published chunks: B and one of T1's */
	/* a set other than a start set is armed: no start set */
	w.th[1].armed = true;
	w.th[1].start_set = false;
	CHECK(!hc_detect_arm_start(&w.bb, &w.cfg, &w.th[1], 200, 0, NULL, 0, &res));
	/* a trap off the watched lines matches nothing, the set stays */
	CHECK(!trap(&w, 0, 250, LINE_A + 64 * 20, 8, false));
	CHECK(w.th[0].armed);
	/* T0 reads T1's watched line (another chunk): one communication with
	   T1, weight period x 2 candidates x 2 publishers / 2 watched */
	CHECK(trap(&w, 0, 260, (a1 & ~63ull) + 16, 8, false));
	CHECK_EQ_U64(w.comm.peer, 1);
	CHECK_EQ_U64(w.comm.weight, 2 * PERIOD);
	CHECK(w.comm.flags & HC_COMM_TRAP);
	CHECK(!w.th[0].armed && !w.th[0].start_set);
	CHECK_EQ_U64(w.th[0].start_skip, 2);
	/* the next start set skips T1: only T2's line is left, weight period */
	CHECK(hc_detect_arm_start(&w.bb, &w.cfg, &w.th[0], 300, 0, NULL, 0, &res));
	CHECK(res.nwatch == 1 && res.watch_addr[0] == LINE_B);
	CHECK(trap(&w, 0, 310, LINE_B + 8, 8, false));
	CHECK_EQ_U64(w.comm.peer, 2);
	CHECK_EQ_U64(w.comm.weight, PERIOD);
	/* an armed start set may be replaced by another start set */
	w.th[0].start_skip = 0;
	CHECK(hc_detect_arm_start(&w.bb, &w.cfg, &w.th[0], 300, 0, NULL, 0, &res));
	CHECK_EQ_U64(res.nwatch, 2);
	/* one register: each publisher watched about half of the time, its
	   line weighing x 2 (2 publishers, 1 watched) */
	w.cfg.nwatch = 1;
	for (int k = 0; k < 64; k++) {
		hc_detect_arm_failed(&w.th[0]);
		CHECK(hc_detect_arm_start(&w.bb, &w.cfg, &w.th[0], 300, 0, NULL, 0, &res));
		CHECK_EQ_U64(res.nwatch, 1);
		saw[res.watch_addr[0] == LINE_B] = true;
		CHECK_EQ_U64(w.th[0].start_mult[0], res.watch_addr[0] == LINE_B ? 2 : 4);
	}
	CHECK(saw[0] && saw[1]);
	w.cfg.nwatch = 4;
	/* only the peers given: T2 and T3 (T1 running alongside, say) */
	{
		const uint32_t ended[] = { 2, 3 };

		hc_detect_arm_failed(&w.th[0]);
		CHECK(hc_detect_arm_start(&w.bb, &w.cfg, &w.th[0], 300, 0, ended, 2, &res));
		CHECK(res.nwatch == 1 && res.watch_addr[0] == LINE_B);
		CHECK_EQ_U64(w.th[0].start_mult[0], 1);
	}
	/* too old for max_age: only the entries of the last 185 ns */
	hc_detect_arm_failed(&w.th[0]);
	CHECK(hc_detect_arm_start(&w.bb, &w.cfg, &w.th[0], 300, 185, NULL, 0, &res));
	CHECK(res.nwatch == 1 && res.watch_addr[0] == LINE_B);
	/* nothing fresh: nothing armed */
	hc_detect_arm_failed(&w.th[0]);
	w.th[0].prev_sample = 1000;
	CHECK(!hc_detect_arm_start(&w.bb, &w.cfg, &w.th[0], 1100, 0, NULL, 0, &res));
	CHECK(!res.arm);
}

/* A store of thread t that walks over the line (a moving access): its
   entry's mask is the whole line. */
static void sample_moving(struct world *w, uint32_t t, uint64_t time, uint64_t addr)
{
	w->th[t].moving = true;
	sample(w, t, time, addr, 8, true);
	w->th[t].moving = false;
}

/* Join sets (§5.15): the joiner watches one line of each joined peer,
   among the lines that peer wrote whole; a trap weighs the candidates
   its line stands for; peers not joined, one-word results, loads and
   entries older than max_age are never watched; freshness over
   lifetimes: an entry stays a candidate after its publisher ended. */
static void test_join_set(void)
{
	struct world w;
	struct hc_detect_result res;
	const uint32_t both[] = { 1, 2 }, two[] = { 2 }, none[] = { 3 };
	bool saw1 = false, saw2 = false;

	world_init(&w, 61, 4);
	/* T1 wrote lines A, A+64*2, A+64*4 whole; T2 line B whole and one
	   word of B+64 (a result); T3, not joined, A+64*6 whole */
	sample_moving(&w, 1, 100, LINE_A + 16);
	sample_moving(&w, 1, 110, LINE_A + 64 * 2 + 16);
	sample_moving(&w, 1, 120, LINE_A + 64 * 4 + 16);
	sample_moving(&w, 2, 130, LINE_B + 8);
	sample(&w, 2, 140, LINE_B + 64, 8, true);
	sample_moving(&w, 3, 150, LINE_A + 64 * 6);
	/* the joiner has a regular set armed: a join set replaces it */
	w.th[0].armed = true;
	w.th[0].nwatch = 4;
	CHECK(hc_detect_arm_join(&w.bb, &w.cfg, &w.th[0], 1000, 0, both, 2, &res));
	CHECK(res.arm && res.nwatch == 2 && w.th[0].start_set && w.th[0].join_set);
	CHECK_EQ_U64(w.th[0].candidates, 4);
	for (uint32_t i = 0; i < res.nwatch; i++) {
		uint64_t l = res.watch_addr[i] & ~63ull;
		CHECK(l == LINE_A || l == LINE_A + 64 * 2 || l == LINE_A + 64 * 4 || l == (LINE_B & ~63ull));
		CHECK_EQ_U64(res.watch_addr[i] & 63, l == (LINE_B & ~63ull) ? 8 : 16);   /* the published chunk */
	}
	CHECK(((res.watch_addr[0] ^ res.watch_addr[1]) & ~63ull) != 0);            /* one line per peer */
	/* the joiner reads T1's output: weight period x 3 candidates x 2 peers / 2 watched */
	uint64_t a1 = (res.watch_addr[0] & ~63ull) == (LINE_B & ~63ull) ? res.watch_addr[1] : res.watch_addr[0];
	CHECK(!trap(&w, 0, 1100, LINE_A + 64 * 6, 8, false));         /* T3's line: not watched */
	CHECK(trap(&w, 0, 1110, (a1 & ~63ull) + 40, 8, false));
	CHECK_EQ_U64(w.comm.peer, 1);
	CHECK_EQ_U64(w.comm.weight, 3 * PERIOD);
	CHECK(w.comm.flags & HC_COMM_TRAP);
	CHECK(!w.th[0].armed && !w.th[0].join_set && w.th[0].start_skip == 2);
	/* the next join set (the runtime passes the peers not found yet):
	   T2's whole line only, never its one-word result */
	CHECK(hc_detect_arm_join(&w.bb, &w.cfg, &w.th[0], 1200, 0, two, 1, &res));
	CHECK(res.nwatch == 1 && res.watch_addr[0] == LINE_B + 8);
	CHECK(trap(&w, 0, 1210, LINE_B, 8, false));
	CHECK_EQ_U64(w.comm.peer, 2);
	CHECK_EQ_U64(w.comm.weight, PERIOD);
	/* a join line's weight (HPCRUN_COMM_JOIN_NS, detection.md §5.72): the
	   lines the trap stands for, each one transfer's ns, not a period */
	w.cfg.join_line_ns = 100;
	w.th[0].start_skip = 0;
	CHECK(hc_detect_arm_join(&w.bb, &w.cfg, &w.th[0], 1250, 0, both, 2, &res));
	a1 = (res.watch_addr[0] & ~63ull) == (LINE_B & ~63ull) ? res.watch_addr[1] : res.watch_addr[0];
	CHECK(trap(&w, 0, 1260, (a1 & ~63ull) + 40, 8, false));
	CHECK_EQ_U64(w.comm.peer, 1);
	CHECK_EQ_U64(w.comm.weight, 3 * 100);
	w.cfg.join_line_ns = 0;
	/* fewer registers than peers: the peers chosen uniformly, the weight
	   scaled by peers / watched */
	w.cfg.nwatch = 1;
	for (int k = 0; k < 64; k++) {
		w.th[0].start_skip = 0;
		CHECK(hc_detect_arm_join(&w.bb, &w.cfg, &w.th[0], 1300, 0, both, 2, &res));
		CHECK_EQ_U64(res.nwatch, 1);
		if ((res.watch_addr[0] & ~63ull) == (LINE_B & ~63ull)) {
			saw2 = true;
			CHECK_EQ_U64(w.th[0].start_mult[0], 2);
		} else {
			saw1 = true;
			CHECK_EQ_U64(w.th[0].start_mult[0], 6);
		}
	}
	CHECK(saw1 && saw2);
	w.cfg.nwatch = 4;
	/* freshness over lifetimes: entries older than max_age are not
	   candidates (only T2's of 130 is younger than 175 at 300) */
	w.th[0].start_skip = 0;
	CHECK(hc_detect_arm_join(&w.bb, &w.cfg, &w.th[0], 300, 175, both, 2, &res));
	CHECK(res.nwatch == 1 && res.watch_addr[0] == LINE_B + 8);
	/* a peer without a whole line, or nothing fresh: nothing armed */
	hc_detect_arm_failed(&w.th[0]);
	CHECK(!hc_detect_arm_join(&w.bb, &w.cfg, &w.th[0], 1400, 0, none + 0, 0, &res));
	const uint32_t results[] = { 2 };
	w.th[0].prev_sample = 135;            /* T2's whole line is older than T0's last sample */
	CHECK(!hc_detect_arm_join(&w.bb, &w.cfg, &w.th[0], 1400, 0, results, 1, &res));
	CHECK(!res.arm);
	/* a start set afterwards is a start set again, not a join set */
	w.th[0].prev_sample = 0;
	CHECK(hc_detect_arm_start(&w.bb, &w.cfg, &w.th[0], 1500, 0, NULL, 0, &res));
	CHECK(w.th[0].start_set && !w.th[0].join_set);
	(void)none;
}

/* A join set kept to one object (hc_detect_arm_join_in, detection.md
   §5.15 "Session 13"): a double buffer's two halves, each peer's whole
   lines in both; after the joiner's trap in the second half, only the
   peers' lines there are watched, weighed among those lines alone; no
   candidate in the object: nothing armed (the caller falls back). */
static void test_join_set_in(void)
{
	struct world w;
	struct hc_detect_result res;
	const uint32_t both[] = { 1, 2 };
	const uint64_t half0 = LINE_A, half1 = LINE_A + 64 * 64;   /* [half1, half1 + 64 lines) */

	world_init(&w, 61, 4);
	sample_moving(&w, 1, 100, half0 + 64 * 1 + 16);
	sample_moving(&w, 1, 110, half1 + 64 * 1 + 16);
	sample_moving(&w, 1, 115, half1 + 64 * 3 + 16);
	sample_moving(&w, 2, 120, half0 + 64 * 40 + 16);
	sample_moving(&w, 2, 130, half1 + 64 * 40 + 16);
	for (int k = 0; k < 32; k++) {
		w.th[0].start_skip = 0;
		hc_detect_arm_failed(&w.th[0]);
		CHECK(hc_detect_arm_join_in(&w.bb, &w.cfg, &w.th[0], 1000, 0, both, 2, half1, half1 + 64 * 64, &res));
		CHECK_EQ_U64(res.nwatch, 2);
		for (uint32_t i = 0; i < res.nwatch; i++) {
			CHECK(res.watch_addr[i] >= half1 && res.watch_addr[i] < half1 + 64 * 64);
			/* T1 has two candidates in the object, T2 one */
			CHECK_EQ_U64(w.th[0].start_mult[i], w.th[0].start[i].thread == 1 ? 2 : 1);
		}
		CHECK(w.th[0].join_set && w.th[0].join_lo == 0 && w.th[0].join_hi == 0);  /* not kept after */
	}
	/* T2 is the one left: its line in the object */
	const uint32_t two[] = { 2 };
	CHECK(hc_detect_arm_join_in(&w.bb, &w.cfg, &w.th[0], 1100, 0, two, 1, half1, half1 + 64 * 64, &res));
	CHECK(res.nwatch == 1 && res.watch_addr[0] == half1 + 64 * 40 + 16);
	CHECK(trap(&w, 0, 1110, half1 + 64 * 40, 8, false));
	CHECK_EQ_U64(w.comm.peer, 2);
	/* nothing of the peers in the object (or an empty range): false */
	hc_detect_arm_failed(&w.th[0]);
	CHECK(!hc_detect_arm_join_in(&w.bb, &w.cfg, &w.th[0], 1200, 0, both, 2, half1 + 64 * 64, half1 + 64 * 128,
	                             &res));
	CHECK(!res.arm);
	CHECK(!hc_detect_arm_join_in(&w.bb, &w.cfg, &w.th[0], 1200, 0, both, 2, half1, half1, &res));
	/* the unrestricted join set still sees both halves */
	w.th[0].start_skip = 0;
	CHECK(hc_detect_arm_join(&w.bb, &w.cfg, &w.th[0], 1300, 0, both, 2, &res));
	CHECK_EQ_U64(w.th[0].candidates, 5);
}

/* A creator's block set (§5.16, Session 14): one of the creator's
   whole-line store entries, then D distinct lines of its block, each
   standing for that entry (publisher, context, chunk), weighing the
   creator's candidates; lines nobody wrote are passed over; a trap on any
   of them is a communication with the creator, true sharing. */
static int resident_calls;
static bool resident_low_half(uint64_t line)
{
	resident_calls++;
	return line < LINE_A + 64 * 32;
}

/* Lock sets on the process-wide set (§5.38): a trap's verdict from the
   words the releaser changed, by exact mode's R2 (doc/exact.md). */
static void test_lock_verdict(void)
{
	uint64_t lo = 0x1000 + 40;     /* word 0 at line offset 40: words 0-2 in the first line, 3-10 the next */

	CHECK(hc_lock_verdict(lo, 1ull << 4, 4) == 1);     /* the word read was written: true */
	CHECK(hc_lock_verdict(lo, 1ull << 4, 5) == 0);     /* its line's neighbour: false */
	CHECK(hc_lock_verdict(lo, 1ull << 4, 10) == 0);    /* last word of that line */
	CHECK(hc_lock_verdict(lo, 1ull << 4, 11) == -1);   /* the next line: no transfer */
	CHECK(hc_lock_verdict(lo, 1ull << 4, 2) == -1);    /* the line before */
	CHECK(hc_lock_verdict(lo, 1ull << 1, 0) == 0);     /* first line, other word */
	CHECK(hc_lock_verdict(lo, 1ull << 1 | 1, 0) == 1);
	CHECK(hc_lock_verdict(lo, 0, 0) == -1);            /* nothing changed */
	CHECK(hc_lock_verdict(lo, ~0ull, 64) == -1);       /* not a word of it */
	CHECK(hc_lock_verdict(0x2000, 1ull << 63, 56) == 0);   /* aligned: words 56-63 one line */
	CHECK(hc_lock_verdict(0x2000, 1ull << 63, 55) == -1);
	/* to the byte: int head (bytes 0-3), int tail (4-7) in one word */
	CHECK(hc_lock_verdict_bytes(1, 0x01, 0x3000, 0x3000, 4) == 1);   /* head read, head changed */
	CHECK(hc_lock_verdict_bytes(1, 0x01, 0x3000, 0x3004, 4) == 0);   /* tail read, head changed */
	CHECK(hc_lock_verdict_bytes(1, 0x30, 0x3000, 0x3004, 4) == 1);   /* tail read, tail changed */
	CHECK(hc_lock_verdict_bytes(1, 0x30, 0x3000, 0x3000, 8) == 1);   /* the whole word */
	CHECK(hc_lock_verdict_bytes(1, 0, 0x3000, 0x3004, 4) == 1);      /* bytes unknown: the word's */
	CHECK(hc_lock_verdict_bytes(0, 0xff, 0x3000, 0x3000, 8) == 0);   /* false stays false */
	CHECK(hc_lock_verdict_bytes(-1, 0xff, 0x3000, 0x3000, 8) == -1);
	CHECK(hc_lock_verdict_bytes(1, 0x80, 0x3000, 0x3007, 1) == 1);
	{       /* §5.53: a later releaser's bytes of the line (mw_cond's q.head, q.tail at +0, +4 of word 0) */
		uint64_t old[8] = { 0x0000000500000004ull, 7, 0, 0, 0, 0, 0, 0x1122334455667788ull };
		uint64_t cur[8] = { 0x0000000600000004ull, 7, 0, 0, 0, 0, 0, 0x1122334455667788ull };
		uint64_t m;

		CHECK(hc_lock_line_bytes(old, old) == 0);
		m = hc_lock_line_bytes(old, cur);       /* tail 5 -> 6: byte 4 */
		CHECK(m == 1ull << 4);
		CHECK(hc_lock_after_verdict(0x4000, m, 0x4004, 4) == 1);    /* tail read: true */
		CHECK(hc_lock_after_verdict(0x4000, m, 0x4000, 4) == 0);    /* head read: false */
		CHECK(hc_lock_after_verdict(0x4000, m, 0x4000, 8) == 1);    /* both */
		CHECK(hc_lock_after_verdict(0x4000, m, 0x4008, 8) == 0);    /* another word of the line */
		CHECK(hc_lock_after_verdict(0x4000, 0, 0x4000, 8) == -1);   /* nothing changed: unknown */
		cur[7] = 0x1122334455667789ull;         /* the line's last byte */
		cur[0] = old[0];
		m = hc_lock_line_bytes(old, cur);
		CHECK(m == 1ull << 56);
		CHECK(hc_lock_after_verdict(0x4000, m, 0x4038, 1) == 1);
		CHECK(hc_lock_after_verdict(0x4000, m, 0x4039, 7) == 0);
		CHECK(hc_lock_after_verdict(0x4000, m, 0x403f, 0) == 0);    /* len 0: one byte */
	}
	{       /* §5.44: a thread alternating two mutexes keeps both releases */
		uint32_t slot[2] = { 0, 0 }, age[2] = { 0, 0 };

		CHECK(hc_lock_way(slot, age, 5, false, 2) == -1);     /* none yet */
		CHECK(hc_lock_way(slot, age, 5, true, 2) == 0);       /* the first empty */
		slot[0] = 5, age[0] = 1;
		CHECK(hc_lock_way(slot, age, 5, false, 2) == 0);
		CHECK(hc_lock_way(slot, age, 9, true, 2) == 1);       /* the other empty */
		slot[1] = 9, age[1] = 2;
		CHECK(hc_lock_way(slot, age, 9, false, 2) == 1);      /* both kept */
		CHECK(hc_lock_way(slot, age, 5, false, 2) == 0);
		CHECK(hc_lock_way(slot, age, 7, true, 2) == 0);       /* a third: the older */
		age[0] = 3;
		CHECK(hc_lock_way(slot, age, 7, true, 2) == 1);
		age[0] = 0xfffffffeu, age[1] = 1;                     /* ages wrap */
		CHECK(hc_lock_way(slot, age, 7, true, 2) == 0);
		CHECK(hc_lock_way(slot, age, 9, false, 1) == -1);     /* one way: way 1 unused */
		CHECK(hc_lock_way(slot, age, 9, true, 1) == 0);
	}
	{       /* four ways: a thread going round more mutexes (pigz's pools) */
		uint32_t slot[4] = { 3, 0, 8, 6 }, age[4] = { 7, 0, 5, 9 };

		CHECK(hc_lock_way(slot, age, 6, false, 4) == 3);
		CHECK(hc_lock_way(slot, age, 4, true, 4) == 1);       /* the empty one */
		slot[1] = 4, age[1] = 10;
		CHECK(hc_lock_way(slot, age, 2, true, 4) == 2);       /* the oldest (5) */
		CHECK(hc_lock_way(slot, age, 6, false, 3) == -1);     /* beyond `ways`: not looked at */
	}
}

/* Lock sets (§5.35): the words watched beside a mutex, the set, its trap. */
/* §5.37: the synchronisation objects' bytes, and the classification:
   system code on them is dropped, system code on other bytes (libc's
   memcpy of the program's data) and the program's code on them are not. */
static void test_sync_words(void)
{
	static struct hc_sync_words w;
	uint64_t bar = 0x555500004000ull + 0xc0;    /* a 32-byte barrier in .bss */
	uint64_t mtx = 0x7f0000100000ull + 40;      /* a 40-byte mutex across two lines */
	uint64_t line;
	int i, full = 0;

	memset(&w, 0, sizeof(w));
	CHECK(!hc_sync_words_has(&w, bar, 4));                 /* empty */
	CHECK_EQ_U64(hc_sync_words_add(&w, bar, 32), 1);
	CHECK_EQ_U64(hc_sync_words_add(&w, bar, 32), 0);       /* already */
	CHECK_EQ_U64(w.used, 1);
	CHECK(hc_sync_words_has(&w, bar + 0xc, 4));            /* the barrier's words */
	CHECK(hc_sync_words_has(&w, bar + 28, 4));
	CHECK(!hc_sync_words_has(&w, bar + 32, 8));            /* the array after it */
	CHECK(!hc_sync_words_has(&w, bar - 0x20, 8));          /* a long before it */
	CHECK(hc_sync_words_has(&w, bar - 4, 8));              /* overlapping its first byte */
	CHECK(!hc_sync_words_has(&w, bar - 4, 4));
	/* across a line boundary: both lines noted, either end found */
	CHECK_EQ_U64(hc_sync_words_add(&w, mtx, 40), 1);
	CHECK_EQ_U64(w.used, 3);
	CHECK(hc_sync_words_has(&w, mtx, 4));
	CHECK(hc_sync_words_has(&w, mtx + 36, 4));
	CHECK(!hc_sync_words_has(&w, mtx + 40, 8));
	CHECK(!hc_sync_words_has(&w, mtx - 8, 8));
	CHECK(hc_sync_words_has(&w, mtx + 20, 16));           /* an access spanning the boundary */
	CHECK(hc_sync_words_has(&w, mtx - 8, 64));
	/* a zero length is one byte */
	CHECK(hc_sync_words_has(&w, bar, 0));
	/* the classification */
	CHECK(hc_sync_drop(&w, bar + 0xc, 4, true));          /* glibc's barrier code: dropped */
	CHECK(!hc_sync_drop(&w, bar + 0xc, 4, false));        /* the program's code: kept */
	CHECK(!hc_sync_drop(&w, bar + 64, 16, true));         /* memcpy of the program's data: kept */
	CHECK(!hc_sync_drop(&w, 0x7f0000200000ull, 1, true)); /* rep movsb into a heap array: kept */
	/* a full table: lines whose probe window is taken are refused, counted
	   by the caller; the others stay */
	for (i = 0, line = 0x100000000ull; i < 4 * (int)HC_SYNC_LINES; i++, line += 64)
		if (hc_sync_words_add(&w, line, 8) < 0)
			full++;
	CHECK(full > 0);
	CHECK(w.used <= HC_SYNC_LINES);
	CHECK(hc_sync_words_has(&w, bar + 0xc, 4));
	CHECK(hc_sync_words_has(&w, mtx + 36, 4));
}

/* §5.37: a rep movs/stos sample's last bytes */
static void test_rep_end(void)
{
	uint64_t a = 0;
	uint32_t n = 0;
	uint64_t u = 0x7f0000100b70ull;      /* a heap array, 48 bytes into its line */

	/* memcpy(u + 1, v + 1, 4096 * 8) by rep movsb, sampled at byte 0x10 */
	CHECK(hc_rep_end(u + 8 + 0x10, 1, 4096 * 8 - 0x10, false, &a, &n));
	CHECK_EQ_U64(a, u + 4096 * 8);       /* u[4096]: the last element written */
	CHECK_EQ_U64(n, 8);
	/* rep movsq: 8-byte elements */
	CHECK(hc_rep_end(u, 8, 100, false, &a, &n));
	CHECK_EQ_U64(a, u + 99 * 8);
	CHECK_EQ_U64(n, 8);
	/* a copy that ends on the sample's line: nothing more to publish */
	CHECK(!hc_rep_end(0x1000, 1, 40, false, &a, &n));
	/* ends just past the line: never before the current element */
	CHECK(hc_rep_end(0x1000 + 60, 1, 6, false, &a, &n));
	CHECK_EQ_U64(a, 0x1000 + 60);
	CHECK_EQ_U64(n, 6);
	CHECK(hc_rep_end(0x103e, 1, 3, false, &a, &n));   /* fewer than 8 bytes left */
	CHECK_EQ_U64(a, 0x103e);
	CHECK_EQ_U64(n, 3);
	/* backwards (DF set), done, no element, implausible counts */
	CHECK(!hc_rep_end(u, 1, 4096, true, &a, &n));
	CHECK(!hc_rep_end(u, 1, 0, false, &a, &n));
	CHECK(!hc_rep_end(u, 0, 4096, false, &a, &n));
	CHECK(!hc_rep_end(u, 1, 1ull << 41, false, &a, &n));
}

/* Reader sets (§5.57): what a set stands for, the chunk it watches */
static void test_reader_sets(void)
{
	const uint64_t lo = 0x10000, hi = 0x10000 + 640000, pc = 0x401505;

	/* the first set, another instruction's, outside the block: 1 */
	CHECK_EQ_U64(hc_reader_count(0, 0, pc, lo + 8, lo, hi, 64), 1);
	CHECK_EQ_U64(hc_reader_count(pc + 4, lo, pc, lo + 800, lo, hi, 64), 1);
	CHECK_EQ_U64(hc_reader_count(pc, lo - 8, pc, lo + 800, lo, hi, 64), 1);
	CHECK_EQ_U64(hc_reader_count(pc, lo, pc, hi, lo, hi, 64), 1);
	/* a sweep: lines or elements between the two stores, either way */
	CHECK_EQ_U64(hc_reader_count(pc, lo + 8, pc, lo + 8 + 6400, lo, hi, 64), 100);
	CHECK_EQ_U64(hc_reader_count(pc, lo + 8, pc, lo + 8 + 6400, lo, hi, 8), 800);
	CHECK_EQ_U64(hc_reader_count(pc, lo + 6408, pc, lo + 8, lo, hi, 64), 100);
	CHECK_EQ_U64(hc_reader_count(pc, lo + 8, pc, lo + 16, lo, hi, 64), 1);   /* the same line */
	CHECK_EQ_U64(hc_reader_count(pc, lo + 8, pc, lo + 16, lo, hi, 8), 1);
	CHECK_EQ_U64(hc_reader_count(pc, lo, pc, hi - 8, lo, hi, 64), 9999);     /* at most the block's */
	CHECK_EQ_U64(hc_reader_count(pc, lo, pc, lo + 64, lo, hi, 0), 64);      /* unit 0: bytes */
	/* on the lock traps' scale: their capped share of the hand-offs */
	CHECK_EQ_U64(hc_reader_scaled(6400, 1, 4), 1600);
	CHECK_EQ_U64(hc_reader_scaled(6400, 4, 4), 6400);
	CHECK_EQ_U64(hc_reader_scaled(6400, 5, 4), 6400);
	CHECK_EQ_U64(hc_reader_scaled(6400, 0, 0), 6400);
	CHECK_EQ_U64(hc_reader_scaled(100, 1, 1000), 1);      /* at least 1 */
	CHECK_EQ_U64(hc_reader_scaled(UINT64_MAX, 1, 2), UINT64_MAX / 2);
		/* the next 8 bytes in the store's line, none after its last */
	CHECK_EQ_U64(hc_reader_chunk(0x1000, 8), 0x1008);
	CHECK_EQ_U64(hc_reader_chunk(0x1030, 8), 0x1038);
	CHECK_EQ_U64(hc_reader_chunk(0x1038, 8), 0);
	CHECK_EQ_U64(hc_reader_chunk(0x1004, 4), 0x1008);
	CHECK_EQ_U64(hc_reader_chunk(0x1001, 2), 0x1008);
	CHECK_EQ_U64(hc_reader_chunk(0x1000, 16), 0x1010);
	CHECK_EQ_U64(hc_reader_chunk(0x103c, 4), 0);
	CHECK_EQ_U64(hc_reader_chunk(0x1000, 0), 0x1008);
}

static void test_lock_sets(void)
{
	struct world w;
	struct hc_detect_result res;
	struct hc_bb_entry e;
	uint32_t out[HC_MAX_WATCH], cursor = 0, n;
	uint64_t addr[3] = { LINE_A + 40, LINE_A + 64 + 17, LINE_A + 88 };

	/* a releaser's stores (latest first) naming a watched word: lock_queue's
	   tot->count (+0x30) and tot->sum (+0x28) through one pointer, an
	   indexed store, a static's absolute address */
	{
		uint8_t kind[4] = { 2, 2, 0, 1 };
		int64_t key[4] = { 0x30, 0x28, 0x10, 0x5000 };
		uint32_t size[4] = { 8, 8, 8, 4 };
		uint64_t lo = 0x1000;

		CHECK(hc_lock_site(lo + 0x30, lo, true, kind, key, size, 4) == 0);
		CHECK(hc_lock_site(lo + 0x28, lo, true, kind, key, size, 4) == 1);
		CHECK(hc_lock_site(lo + 0x2c, lo, true, kind, key, size, 4) == 0);   /* overlaps both: the latest */
		CHECK(hc_lock_site(lo + 0x10, lo, true, kind, key, size, 4) == -1);  /* only the indexed one */
		CHECK(hc_lock_site(lo + 0x30, lo, false, kind, key, size, 4) == -1); /* not a heap block: no base */
		CHECK(hc_lock_site(0x4ffc, lo, true, kind, key, size, 4) == 3);      /* [0x4ffc, 0x5004) over 0x5000 */
		CHECK(hc_lock_site(0x5004, lo, true, kind, key, size, 4) == -1);
		CHECK(hc_lock_site(lo + 0x30, lo, true, kind, key, size, 0) == -1);
	}
	/* words: the good ones only, in order, at most d */
	n = hc_lock_words(0xfe0, 0x800 | 0x20, 0, &cursor, 4, out);
	CHECK(n == 2 && out[0] == 5 && out[1] == 11 && cursor == 0);
	n = hc_lock_words(0xfe0, 0x800, 0x800, &cursor, 4, out);  /* good wins */
	CHECK(n == 1 && out[0] == 11);
	n = hc_lock_words(0xfe0, 0x1000, 0, &cursor, 4, out);      /* good, not a candidate */
	CHECK_EQ_U64(n, 4);
	/* none good: untried candidates round robin, the bad ones skipped */
	cursor = 0;
	n = hc_lock_words(0xfe0, 0, 0x60, &cursor, 4, out);
	CHECK(n == 4 && out[0] == 7 && out[1] == 8 && out[2] == 9 && out[3] == 10 && cursor == 11);
	n = hc_lock_words(0xfe0, 0, 0x60, &cursor, 4, out);
	CHECK(n == 4 && out[0] == 11 && out[1] == 7 && out[2] == 8 && out[3] == 9 && cursor == 10);
	n = hc_lock_words(0xfe0, 0, 0xfe0, &cursor, 4, out);      /* all bad */
	CHECK_EQ_U64(n, 0);
	n = hc_lock_words(0, 0, 0, &cursor, 4, out);
	CHECK_EQ_U64(n, 0);
	n = hc_lock_words(~0ull, 0, 0, &cursor, 2, out);           /* wraps at 64 */
	CHECK(n == 2 && out[0] == 10 && out[1] == 11);
	/* HPCRUN_COMM_LOCK_DRAW (§5.65): one of the eligible words' lines,
	   drawn by r mod k; lo 0x1000 a line's start, lo 0x1030 mid-line */
	{
		uint32_t k = 99;
		uint64_t m;

		m = hc_lock_draw_line(0x1000, 0x3 | 0x100 | (1ull << 40), 0, &k);   /* lines 0, 1, 5 */
		CHECK(k == 3 && m == 0x3);
		m = hc_lock_draw_line(0x1000, 0x3 | 0x100 | (1ull << 40), 4, &k);
		CHECK(k == 3 && m == 0x100);
		m = hc_lock_draw_line(0x1000, 0x3 | 0x100 | (1ull << 40), 5, &k);
		CHECK(k == 3 && m == 1ull << 40);
		m = hc_lock_draw_line(0x1030, 0x3 | 0x4, 1, &k);     /* words 0-1 end line 0x1000, word 2 starts 0x1040 */
		CHECK(k == 2 && m == 0x4);
		m = hc_lock_draw_line(0x1000, 0, 7, &k);
		CHECK(k == 0 && m == 0);
		m = hc_lock_draw_line(0x1000, 0xff00, 12345, &k);  /* one line, all its words */
		CHECK(k == 1 && m == 0xff00);
	}
	/* §5.71: the word choice (good first; untried first when exploring)
	   and the changed lines in turn (HPCRUN_COMM_LOCK_LINES) */
	{
		uint64_t c = 0;
		uint64_t lines = 0xff | 0xff00, good = 0x100, bad = 0x1;

		CHECK_EQ_U64(hc_lock_pick_words(lines, ~0ull, good, bad, false), 0x100);   /* a good word anywhere wins */
		CHECK_EQ_U64(hc_lock_pick_words(lines, ~0ull, good, bad, true), 0xfefe);   /* neither good nor bad */
		CHECK_EQ_U64(hc_lock_pick_words(lines, ~0ull, 0, bad, false), 0xfffe);     /* nothing good: not bad */
		CHECK_EQ_U64(hc_lock_pick_words(0x101, ~0ull, 0x100, 0x1, true), 0x100);   /* nothing untried */
		CHECK_EQ_U64(hc_lock_pick_words(lines, 0xf0f0, good, bad, false), 0xf0f0); /* no good candidate */
		CHECK_EQ_U64(hc_lock_next_line(0x1000, 0x3 | 0x100 | (1ull << 40), &c), 0x3);   /* c 0: line 0x1000 */
		CHECK_EQ_U64(c, 0x1000);
		CHECK_EQ_U64(hc_lock_next_line(0x1000, 0x3 | 0x100 | (1ull << 40), &c), 0x100);
		CHECK_EQ_U64(c, 0x1040);
		CHECK_EQ_U64(hc_lock_next_line(0x1000, 0x3 | 0x100 | (1ull << 40), &c), 1ull << 40);
		CHECK_EQ_U64(c, 0x1140);
		CHECK_EQ_U64(hc_lock_next_line(0x1000, 0x3 | 0x100 | (1ull << 40), &c), 0x3);   /* wraps */
		CHECK_EQ_U64(c, 0x1000);
		c = 0x1040;                                                       /* another mutex's cursor */
		CHECK_EQ_U64(hc_lock_next_line(0x1030, 0x3 | 0x4, &c), 0x3);      /* 0x1040 taken: wraps to 0x1000 */
		CHECK_EQ_U64(c, 0x1000);
		CHECK_EQ_U64(hc_lock_next_line(0x1030, 0x3 | 0x4, &c), 0x4);      /* words 0-1 end line 0x1000 */
		CHECK_EQ_U64(c, 0x1040);
		CHECK_EQ_U64(hc_lock_next_line(0x1000, 0, &c), 0);
		CHECK_EQ_U64(c, 0x1040);                                          /* left as it was */
	}
	/* HPCRUN_COMM_LOCK_PSET_ACQ=2 (§5.67): arm at the acquisition once
	   16 release-armed sets had fewer than one in 8 judged */
	CHECK(!hc_lock_acq_switch(15, 0));                 /* too few to tell */
	CHECK(hc_lock_acq_switch(16, 1));                  /* mw_cond -O0 -t 2: 1 of 16 */
	CHECK(hc_lock_acq_switch(74, 2));
	CHECK(!hc_lock_acq_switch(16, 2));                 /* one in 8: stays */
	CHECK(!hc_lock_acq_switch(51, 12));                /* lock_queue -O0 -t 4 (switched at ratio 4) */
	CHECK(!hc_lock_acq_switch(173, 89));               /* lock_queue -O0 -t 4 */
	CHECK(!hc_lock_acq_switch(0, 0));
	/* HPCRUN_COMM_LOCK_KEEP (§5.62): the spare registers on the changed
	   words and the word after each, on other lines than the taken ones,
	   lowest first, within the mask; lo 0x1000 is a line's start (words
	   0-7 one line, 8-15 the next) */
	out[0] = 9;                                               /* line 1 taken */
	n = hc_lock_fill(0x1000, 0x10000 | 0x600 | 0x2, ~0ull, out, 1, 4);
	CHECK(n == 4 && out[0] == 9 && out[1] == 1 && out[2] == 2 && out[3] == 16);
	n = hc_lock_fill(0x1000, 0x10000 | 0x2, ~0x4ull, out, 1, 4);   /* word 2 masked out */
	CHECK(n == 4 && out[1] == 1 && out[2] == 16 && out[3] == 17);
	n = hc_lock_fill(0x1000, 0x600, ~0ull, out, 1, 4);         /* only the taken line changed */
	CHECK_EQ_U64(n, 1);
	n = hc_lock_fill(0x1000, 0x6, ~0ull, out, 4, 4);           /* no spare register */
	CHECK_EQ_U64(n, 4);
	n = hc_lock_fill(0x1008, 0x40, ~0ull, out, 0, 4);          /* lo mid-line: words 6, 7 */
	CHECK(n == 2 && out[0] == 6 && out[1] == 7);
	n = hc_lock_fill(0x1000, 1ull << 63, ~0ull, out, 0, 4);    /* no word after the last */
	CHECK(n == 1 && out[0] == 63);
	n = hc_lock_fill(0x1000, 0x3, 0, out, 0, 4);               /* nothing in the mask */
	CHECK_EQ_U64(n, 0);

	/* the set: one watchpoint a word (aligned), each naming the releaser */
	world_init(&w, 7, 3);
	memset(&e, 0, sizeof e);
	e.thread = 2;
	e.ctx = 77;
	e.len = 8;
	e.time = 500;
	CHECK(!hc_detect_arm_lock(&w.cfg, &w.th[1], &e, addr, 0, 5000, 1000, &res));
	CHECK(hc_detect_arm_lock(&w.cfg, &w.th[1], &e, addr, 3, 5000, 1000, &res));
	CHECK(res.arm && res.nwatch == 3 && w.th[1].armed && w.th[1].start_set && w.th[1].lock_set);
	CHECK(!w.th[1].join_set);
	CHECK(res.watch_addr[0] == LINE_A + 40 && res.watch_addr[1] == LINE_A + 64 + 16 &&
	      res.watch_addr[2] == LINE_A + 88);
	CHECK(w.th[1].start[1].line == LINE_A + 64 && w.th[1].start[1].addr == LINE_A + 80);
	CHECK(w.th[1].start[0].thread == 2 && w.th[1].start[0].ctx == 77);
	/* its trap: a communication with the releaser, weighing what the
	   caller said, true (the word the releaser wrote) */
	CHECK(trap(&w, 1, 1100, LINE_A + 88, 8, false));
	CHECK(w.comm.peer == 2 && w.comm.peer_ctx == 77 && w.comm.weight == 5000);
	CHECK(w.comm.flags & HC_COMM_TRUE);
	CHECK(!w.th[1].armed && !w.th[1].lock_set && !w.th[1].start_set);
	CHECK_EQ_U64(w.th[1].start_skip, 0);     /* the next start set is not steered */
	/* a regular set is not replaced; a start set is */
	sample(&w, 2, 1200, LINE_B, 8, true);
	w.th[1].touched = NULL;
	sample(&w, 1, 1300, LINE_B + 8, 8, false);
	hc_detect_arm_failed(&w.th[1]);
	w.th[1].armed = true;
	w.th[1].start_set = false;
	CHECK(!hc_detect_arm_lock(&w.cfg, &w.th[1], &e, addr, 3, 5000, 1400, &res));
	w.th[1].start_set = true;
	CHECK(hc_detect_arm_lock(&w.cfg, &w.th[1], &e, addr, 3, 5000, 1400, &res));
	/* a regular set after it is no lock set */
	hc_detect_arm_failed(&w.th[1]);
	CHECK(!w.th[1].lock_set);
	/* at most the set's width */
	world_init(&w, 7, 2);
	CHECK(hc_detect_arm_lock(&w.cfg, &w.th[1], &e, addr, 3, 0, 1000, &res));
	CHECK(res.nwatch == 2 && w.th[1].lock_weight == 1);
}

static void test_block_set(void)
{
	struct world w;
	struct hc_detect_result res;
	struct hc_bb_entry e;
	uint32_t count;
	const uint64_t lo = LINE_A, hi = LINE_A + 64 * 64;

	world_init(&w, 61, 3);
	/* nothing of T0 yet; T0's one-word store and a load are not candidates */
	CHECK(!hc_detect_pick_line(&w.bb, &w.th[1], 0, true, &e, &count));
	sample(&w, 0, 50, LINE_B + 8, 8, true);
	sample(&w, 0, 60, LINE_B + 64 * 3, 8, false);
	CHECK(!hc_detect_pick_line(&w.bb, &w.th[1], 0, true, &e, &count));
	CHECK_EQ_U64(count, 0);
	CHECK(hc_detect_pick_line(&w.bb, &w.th[1], 0, false, &e, &count));    /* any store */
	CHECK(count == 1 && e.line == LINE_B);
	sample_moving(&w, 0, 100, lo + 64 * 10 + 24);
	sample_moving(&w, 0, 110, lo + 64 * 20 + 24);
	sample_moving(&w, 2, 120, lo + 64 * 30 + 24);     /* another thread's */
	CHECK(hc_detect_pick_line(&w.bb, &w.th[1], 0, true, &e, &count));
	CHECK_EQ_U64(count, 2);
	CHECK(e.thread == 0 && (e.line == lo + 64 * 10 || e.line == lo + 64 * 20));
	for (int k = 0; k < 32; k++) {
		hc_detect_arm_failed(&w.th[1]);
		CHECK(hc_detect_arm_block(&w.cfg, &w.th[1], &e, count, lo + 5, hi, NULL, 1000, &res));
		CHECK_EQ_U64(res.nwatch, 3);
		CHECK(w.th[1].start_set && !w.th[1].join_set && w.th[1].armed);
		for (uint32_t i = 0; i < 3; i++) {
			CHECK(res.watch_addr[i] >= lo + 64 && res.watch_addr[i] < hi);    /* lo rounded up */
			CHECK_EQ_U64(res.watch_addr[i] & 63, 24);       /* the entry's chunk */
			CHECK_EQ_U64(w.th[1].start[i].thread, 0);
			CHECK_EQ_U64(w.th[1].start[i].ctx, e.ctx);
			CHECK_EQ_U64(w.th[1].start_mult[i], 2);
			for (uint32_t j = 0; j < i; j++)
				CHECK(res.watch_addr[i] != res.watch_addr[j]);
		}
	}
	/* only lines someone may have written */
	for (int k = 0; k < 32; k++) {
		hc_detect_arm_failed(&w.th[1]);
		resident_calls = 0;
		CHECK(hc_detect_arm_block(&w.cfg, &w.th[1], &e, count, lo, hi, resident_low_half, 1000, &res));
		CHECK(resident_calls <= 12);
		for (uint32_t i = 0; i < res.nwatch; i++)
			CHECK(res.watch_addr[i] < lo + 64 * 32);
	}
	/* a trap on a watched line: T0 is the peer, true sharing, weight 2 periods */
	uint64_t a = res.watch_addr[0] & ~63ull;
	CHECK(trap(&w, 1, 1100, a + 40, 8, true));
	CHECK_EQ_U64(w.comm.peer, 0);
	CHECK_EQ_U64(w.comm.weight, 2 * PERIOD);
	CHECK(w.comm.flags & HC_COMM_TRUE);
	CHECK(!w.th[1].armed);
	/* the creator found: the next pick skips it */
	CHECK(!hc_detect_pick_line(&w.bb, &w.th[1], 0, true, &e, &count));
	/* no line written, an empty block, a regular set armed: false */
	w.th[1].start_skip = 0;
	CHECK(hc_detect_pick_line(&w.bb, &w.th[1], 0, true, &e, &count));
	CHECK(!hc_detect_arm_block(&w.cfg, &w.th[1], &e, count, hi, hi + 64 * 8, resident_low_half, 1000, &res));
	CHECK(!res.arm);
	CHECK(!hc_detect_arm_block(&w.cfg, &w.th[1], &e, count, lo + 8, lo + 60, NULL, 1000, &res));
	sample(&w, 2, 1200, LINE_B + 64 * 9, 8, true);
	sample(&w, 1, 1300, LINE_B + 64 * 9, 8, false);    /* T1's regular set on T2's line */
	if (w.th[1].armed && !w.th[1].start_set)
		CHECK(!hc_detect_arm_block(&w.cfg, &w.th[1], &e, count, lo, hi, NULL, 1400, &res));
}

static void test_rng_zero(void)
{
	struct world w;

	/* a zero rng state would stick at zero; it is reseeded instead */
	world_init(&w, 1, 4);
	w.th[0].rng = 0;
	sample(&w, 1, 100, LINE_A, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.arm);
	CHECK(w.th[0].rng != 0);
}

/* A sample of thread t's own private memory: detection runs (look-up,
   sets), nothing publishes. */
static void idle(struct world *w, uint32_t t, uint64_t time)
{
	sample_priv(w, t, time, LINE_B + 64 * 50, 8, false, true);
}

/* Dry lines (§5.9): a write-only set on another thread's published load
   that ends without a trap makes the line dry for the watcher (it did not
   write it: a queue's consumer watching the head index the producer
   loads); while the record is live (dry_samples of the watcher's own
   samples, doubled per further dry set in a row) the line gets no
   write-only set, only a read probe (RW, not writes_only) at most once per
   dry_samples. The probe's load, published, is the W target of the line's
   writer, whose store traps. A store trap clears the record; without
   dry_samples nothing is remembered. */
static const struct hc_detect_dry *dry_of(const struct hc_detect_thread *th, uint64_t line)
{
	for (uint32_t k = 0; k < HC_DETECT_DRY; k++)
		if (th->dry[k].line == line && th->dry[k].level)
			return &th->dry[k];
	return NULL;
}

static void test_dry_lines(void)
{
	struct world w;
	struct hc_bb_entry e;
	struct hc_sample ld = { .time = 415, .addr = LINE_A, .len = 8, .is_store = false, .ctx = 9 };

	world_init(&w, 7, 2);
	w.cfg.publish_loads = true;
	w.cfg.load_window = 100000;
	w.cfg.dry_samples = 2;
	sample(&w, 1, 100, LINE_A, 8, false);              /* T1 (the writer) loads A */
	idle(&w, 0, 150);                                  /* T0's first sample: the W set */
	CHECK(w.res.arm && w.th[0].watched.line == LINE_A && w.th[0].writes_only && !w.th[0].probe);
	CHECK(!w.res.dry);
	idle(&w, 0, 300);                                  /* within its interval */
	CHECK(!w.res.arm && !w.res.disarm && !w.res.dry);
	idle(&w, 0, 400);                                  /* ended without a trap: dry */
	CHECK(w.res.dry);
	CHECK(w.res.arm && w.th[0].watched.line == LINE_A);
	CHECK(w.th[0].probe && !w.th[0].writes_only);      /* the read probe */
	CHECK(!trap(&w, 0, 410, LINE_A + 8, 8, false));    /* T0 reads A: no communication */
	CHECK(!w.th[0].armed);
	/* the runtime publishes the probe's load: A's entry is T0's load */
	CHECK_EQ_U64(hc_detect_publish(&w.bb, &w.cfg, &w.th[0], &ld), 1);
	CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e) && e.is_load && e.thread == 0);
	/* probed just now: A is no target for T0 */
	idle(&w, 0, 500);
	CHECK(!w.res.arm);
	/* T1 watches T0's load of A (write-only) and its store traps */
	idle(&w, 1, 520);
	CHECK(w.res.arm && w.th[1].watched.line == LINE_A && w.th[1].watched.thread == 0 &&
	      w.th[1].writes_only);
	CHECK(trap(&w, 1, 530, LINE_A, 8, true));
	CHECK_EQ_U64(w.comm.peer, 0);
	CHECK(w.comm.flags & HC_COMM_TRAP);
	CHECK(w.comm.flags & HC_COMM_STORE);
	CHECK(!(w.comm.flags & HC_COMM_PEER_STORE));
	CHECK(w.comm.flags & HC_COMM_TRUE);
	/* counted in T0's samples: still dry and probed one sample ago... */
	sample(&w, 1, 1500, LINE_A, 8, false);             /* T1 loads A again */
	idle(&w, 0, 1600);
	CHECK(!w.res.arm);
	/* ...then the record lapses: a write-only set again */
	idle(&w, 0, 1650);
	CHECK(w.res.arm && w.th[0].watched.line == LINE_A && w.th[0].writes_only && !w.th[0].probe);
	/* a store trap clears the record: the next set is write-only again */
	CHECK(trap(&w, 0, 1660, LINE_A, 8, true));
	CHECK(dry_of(&w.th[0], LINE_A) == NULL);
	sample(&w, 1, 1670, LINE_A, 8, false);
	idle(&w, 0, 1700);
	CHECK(w.res.arm && w.th[0].writes_only && !w.th[0].probe);
	sample(&w, 1, 1710, LINE_A, 8, false);
	idle(&w, 0, 1800);
	idle(&w, 0, 1900);                                 /* ends dry... */
	CHECK(w.res.dry && w.th[0].probe);                 /* ...and is probed next */
	CHECK(dry_of(&w.th[0], LINE_A) && dry_of(&w.th[0], LINE_A)->level == 1);
	/* the probe ends untrapped; the record lapses; the next W set ends dry
	   too: two in a row, the record lasts twice as long */
	idle(&w, 0, 2000);
	idle(&w, 0, 2100);                                 /* probe over, A not a target */
	CHECK(w.res.disarm && !w.res.arm);
	idle(&w, 0, 2200);
	CHECK(w.res.arm && w.th[0].writes_only);
	idle(&w, 0, 2300);
	idle(&w, 0, 2400);
	CHECK(w.res.dry && w.th[0].probe);
	CHECK(dry_of(&w.th[0], LINE_A) && dry_of(&w.th[0], LINE_A)->level == 2);
	/* without dry_samples: never a probe */
	world_init(&w, 7, 2);
	w.cfg.publish_loads = true;
	w.cfg.load_window = 100000;
	sample(&w, 1, 100, LINE_A, 8, false);
	idle(&w, 0, 150);
	idle(&w, 0, 300);
	idle(&w, 0, 400);
	CHECK(w.res.dry && w.res.arm && w.th[0].writes_only && !w.th[0].probe);
	/* more dry lines than records: the oldest make room */
	world_init(&w, 63, 2);
	w.cfg.publish_loads = true;
	w.cfg.load_window = 150;
	w.cfg.dry_samples = 1000;
	for (uint32_t i = 0; i < HC_DETECT_DRY + 3; i++) {
		uint64_t t0 = 1000 + 1000 * (uint64_t)i;

		sample(&w, 1, t0, LINE_A + 64 * i, 8, false);
		idle(&w, 0, t0 + 100);
		CHECK(w.res.arm && w.th[0].watched.line == LINE_A + 64 * i && w.th[0].writes_only);
		idle(&w, 0, t0 + 200);
		idle(&w, 0, t0 + 300);         /* ended dry, nothing else to watch */
		CHECK(w.res.dry && w.res.disarm && !w.res.arm);
	}
	for (uint32_t i = 0; i < HC_DETECT_DRY + 3; i++)
		CHECK((dry_of(&w.th[0], LINE_A + 64 * i) != NULL) == (i >= 3));
}

/* A sample without a shared access (hc_detect_idle): a thread computing
   in registers still takes its set's turn — it arms on a line another
   thread published, never detects or publishes, counts as a sample (a set
   from before its previous sample expires), and a set armed this way traps
   the other thread's store as one armed at an access sample does. */
static void test_idle_sample(void)
{
	struct world w;
	struct hc_bb_entry e;

	world_init(&w, 1, 1);
	sample(&w, 1, 90, LINE_A, 8, true);          /* T1 publishes a store */
	hc_detect_idle(&w.bb, &w.cfg, &w.th[0], 100, &w.res);
	CHECK(w.res.arm && !w.res.comm && w.res.published == 0);
	CHECK_EQ_U64(w.res.nwatch, 1);
	CHECK_EQ_U64(w.res.watch_addr[0], LINE_A);
	CHECK_EQ_U64(w.th[0].nsamples, 1);
	CHECK_EQ_U64(w.th[0].prev_sample, 100);
	/* nothing of T0's on the board: the slot still holds T1's entry */
	CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e) && e.thread == 1);

	/* T0 stores to the watched line: the trap detects the pair */
	CHECK(trap(&w, 0, 130, LINE_A, 8, true));

	/* idle samples with nothing fresh: the set expires after one interval */
	hc_detect_idle(&w.bb, &w.cfg, &w.th[0], 200, &w.res);
	hc_detect_idle(&w.bb, &w.cfg, &w.th[0], 300, &w.res);
	CHECK(!w.res.arm);
	CHECK(!w.th[0].armed);
	CHECK_EQ_U64(w.th[0].nsamples, 3);

	/* a store published before T0's previous (idle) sample is not fresh */
	sample(&w, 1, 310, LINE_B, 8, true);
	hc_detect_idle(&w.bb, &w.cfg, &w.th[0], 400, &w.res);
	CHECK(w.res.arm);
	hc_detect_idle(&w.bb, &w.cfg, &w.th[0], 500, &w.res);
	hc_detect_idle(&w.bb, &w.cfg, &w.th[0], 600, &w.res);
	CHECK(!w.res.arm && w.res.disarm);
	CHECK(!sample(&w, 0, 700, LINE_B, 8, false));
}

/* Spin waits (doc/detection.md §5.14): the evidence on synthetic sample
   sequences, and what it does to a communication's weight. */
#define SPIN_PC 0x401000ull

static void test_spin_note(void)
{
	struct hc_detect_spin sp;
	uint32_t i;

	memset(&sp, 0, sizeof(sp));
	hc_detect_spin_note(&sp, 0, LINE_A, false);          /* no PC: ignored */
	CHECK_EQ_U64(sp.n, 0);
	CHECK_EQ_U64(sp.run, 0);
	/* a wait: loads of the line and register/stack samples of the loop */
	hc_detect_spin_note(&sp, SPIN_PC, LINE_A, false);
	CHECK_EQ_U64(sp.run, 1);
	hc_detect_spin_note(&sp, SPIN_PC + 8, 0, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 0);    /* fewer than HC_SPIN_MIN */
	hc_detect_spin_note(&sp, SPIN_PC - 20, 0, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 3);
	hc_detect_spin_note(&sp, SPIN_PC + 3, LINE_A, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 4);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_B), 0);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, 0), 0);
	/* a sample elsewhere in the code ends it (and starts a run without
	   a line there); it is remembered ... */
	hc_detect_spin_note(&sp, SPIN_PC + 2 * HC_SPIN_WINDOW, 0, false);
	CHECK(sp.run == 1 && sp.line == 0);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 4);
	/* ... a new wait on the line starts at 1, the last run still counts */
	hc_detect_spin_note(&sp, SPIN_PC, LINE_A, false);
	CHECK_EQ_U64(sp.run, 1);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 4);
	/* a run shorter than HC_SPIN_MIN that ends does not replace the
	   remembered one */
	hc_detect_spin_note(&sp, SPIN_PC - 4096, LINE_B, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 4);
	CHECK(sp.run == 1 && sp.line == LINE_B);
	/* ... for as many samples as it lasted */
	for (i = 2; sp.n < sp.last_end + sp.last_run; i++)
		hc_detect_spin_note(&sp, SPIN_PC + 4096 * i, 0, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 4);
	hc_detect_spin_note(&sp, SPIN_PC + 4096 * i, 0, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 0);

	/* a shared store in the loop ends the wait, and starts none */
	memset(&sp, 0, sizeof(sp));
	for (i = 0; i < 3; i++)
		hc_detect_spin_note(&sp, SPIN_PC + 4 * i, LINE_A, false);
	hc_detect_spin_note(&sp, SPIN_PC + 16, LINE_A, true);
	CHECK_EQ_U64(sp.run, 0);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 3);
	/* a load of another line in the loop ends it and starts a run there */
	memset(&sp, 0, sizeof(sp));
	for (i = 0; i < 3; i++)
		hc_detect_spin_note(&sp, SPIN_PC + 4 * i, LINE_A, false);
	hc_detect_spin_note(&sp, SPIN_PC + 8, LINE_B, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 3);
	CHECK(sp.run == 1 && sp.line == LINE_B);
	/* a communication detected on the line ends the wait, and the
	   remembered one */
	hc_detect_spin_reset(&sp, LINE_A);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 0);
	for (i = 0; i < 5; i++)
		hc_detect_spin_note(&sp, SPIN_PC, LINE_A, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 5);
	hc_detect_spin_reset(&sp, LINE_B);                  /* another line: no change */
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 5);
	hc_detect_spin_reset(&sp, LINE_A);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 0);
	hc_detect_spin_note(&sp, SPIN_PC, LINE_A, false);
	CHECK_EQ_U64(sp.run, 1);
	/* register-only first samples start a run without a line; the
	   line's first load in the loop gives it one */
	memset(&sp, 0, sizeof(sp));
	hc_detect_spin_note(&sp, SPIN_PC, 0, false);
	CHECK(sp.run == 1 && sp.line == 0);
	hc_detect_spin_note(&sp, SPIN_PC + 12, 0, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, 0), 0);
	hc_detect_spin_note(&sp, SPIN_PC + 4, LINE_A, false);
	CHECK(sp.run == 3 && sp.line == LINE_A);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 3);
	/* a run without a line that ends is not remembered */
	memset(&sp, 0, sizeof(sp));
	for (i = 0; i < 5; i++)
		hc_detect_spin_note(&sp, SPIN_PC, 0, false);
	hc_detect_spin_note(&sp, SPIN_PC + 4096, LINE_A, false);
	CHECK_EQ_U64(sp.last_line, 0);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), 0);
	/* capped */
	for (i = 0; i < HC_SPIN_MAX + 10; i++)
		hc_detect_spin_note(&sp, SPIN_PC, LINE_A, false);
	CHECK_EQ_U64(hc_detect_spin_len(&sp, LINE_A), HC_SPIN_MAX);
}

/* Thread t's sample at pc (the runtime sets th->pc around a sample). */
static bool sample_at(struct world *w, uint32_t t, uint64_t pc, uint64_t time, uint64_t addr,
                      bool store)
{
	bool r;

	w->th[t].pc = pc;
	r = sample(w, t, time, addr, 8, store);
	w->th[t].pc = 0;
	return r;
}

static void test_spin_weight(void)
{
	struct world w;
	struct hc_bb_entry e;
	uint64_t t;
	uint32_t i;

	/* T0 waits on LINE_A: 5 samples of its load, published */
	world_init(&w, 7, 0);
	w.cfg.publish_loads = true;
	w.cfg.spin_weight = true;
	for (i = 0, t = 100; i < 5; i++, t += 100)
		CHECK(!sample_at(&w, 0, SPIN_PC + 4 * (i % 2), t, LINE_A, false));
	CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e) && e.is_load && e.thread == 0);
	CHECK_EQ_U64(e.spin, 5);
	/* T1's store sample meets the waiter's load: 1/5 of a sample */
	CHECK(sample_at(&w, 1, 0x402000, 550, LINE_A, true));
	CHECK_EQ_U64(w.comm.weight, PERIOD / 5);
	CHECK_EQ_U64(w.comm.spin, 5);
	CHECK_EQ_U64(w.comm.peer, 0);
	/* T0's next load meets T1's store: its own wait, 6 samples; the
	   communication ends the wait */
	CHECK(sample_at(&w, 0, SPIN_PC, 600, LINE_A, false));
	CHECK_EQ_U64(w.comm.weight, PERIOD / 6);
	CHECK_EQ_U64(w.comm.spin, 6);
	CHECK_EQ_U64(hc_detect_spin_len(&w.th[0].spin, LINE_A), 0);
	/* a second wait of 4, T0 leaves (computes elsewhere), T1 stores;
	   T0's next wait finds it at its first sample: the wait that the
	   store ended counts (the last run, 4) */
	for (i = 0, t = 700; i < 4; i++, t += 100)
		CHECK(!sample_at(&w, 0, SPIN_PC, t, LINE_A, false));
	CHECK(!sample_at(&w, 0, 0x405000, 1100, LINE_B, false));
	/* (T0's loads did not replace T1's unexpired store: T1 meets its own) */
	CHECK(!sample_at(&w, 1, 0x402000, 1150, LINE_A + 8, true));
	CHECK(sample_at(&w, 0, SPIN_PC, 1200, LINE_A, false));
	CHECK_EQ_U64(w.comm.spin, 4);
	CHECK_EQ_U64(w.comm.weight, PERIOD / 4);
	/* ... once: the next communication there is not a wait's */
	CHECK(!sample_at(&w, 0, 0x405000, 1300, LINE_B, false));
	CHECK(!sample_at(&w, 1, 0x402000, 1350, LINE_A + 8, true));
	CHECK(sample_at(&w, 0, SPIN_PC, 1400, LINE_A, false));
	CHECK_EQ_U64(w.comm.spin, 0);
	CHECK_EQ_U64(w.comm.weight, PERIOD);

	/* Not a wait: T2 loads LINE_B between calls elsewhere (far PCs), T3
	   stores it; every communication weighs a whole period */
	world_init(&w, 7, 0);
	w.cfg.publish_loads = true;
	w.cfg.spin_weight = true;
	for (i = 0, t = 100; i < 4; i++) {
		CHECK(!sample_at(&w, 2, 0x401000, t, LINE_B, false));
		t += 50;
		CHECK(!sample_at(&w, 2, 0x409000, t, 0x7f0000090000ull, false));
		t += 50;
	}
	CHECK(sample_at(&w, 3, 0x402000, t, LINE_B, true));
	CHECK_EQ_U64(w.comm.weight, PERIOD);
	CHECK_EQ_U64(w.comm.spin, 0);
	/* samples without a PC (a burst's access, a trap's) are no evidence */
	world_init(&w, 7, 0);
	w.cfg.publish_loads = true;
	w.cfg.spin_weight = true;
	for (i = 0, t = 100; i < 5; i++, t += 100)
		CHECK(!sample(&w, 0, t, LINE_A, 8, false));
	CHECK(sample_at(&w, 1, 0x402000, 550, LINE_A, true));
	CHECK_EQ_U64(w.comm.weight, PERIOD);

	/* spin_weight off: the same wait weighs whole periods, entries carry
	   no evidence */
	world_init(&w, 7, 0);
	w.cfg.publish_loads = true;
	for (i = 0, t = 100; i < 5; i++, t += 100)
		CHECK(!sample_at(&w, 0, SPIN_PC, t, LINE_A, false));
	CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e) && e.spin == 0);
	CHECK(sample_at(&w, 1, 0x402000, 550, LINE_A, true));
	CHECK_EQ_U64(w.comm.weight, PERIOD);
	CHECK_EQ_U64(w.comm.spin, 0);

	/* a trap: T1's write-only set on the waiter's load; its store traps
	   (set weight: period on the published chunk, 1 candidate) / 4 */
	world_init(&w, 7, 1);
	w.cfg.publish_loads = true;
	w.cfg.spin_weight = true;
	for (i = 0, t = 100; i < 4; i++, t += 100)
		CHECK(!sample_at(&w, 0, SPIN_PC, t, LINE_A, false));
	w.th[1].thread = 1;
	hc_detect_idle(&w.bb, &w.cfg, &w.th[1], 450, &w.res);
	CHECK(w.res.arm && w.th[1].writes_only);
	CHECK(trap(&w, 1, 470, LINE_A, 4, true));
	CHECK_EQ_U64(w.comm.spin, 4);
	CHECK_EQ_U64(w.comm.weight, PERIOD / 4);
	/* T0's own set on T1's store (published by the trap), trapped by
	   its next load of the line: T0's wait */
	CHECK_EQ_U64(hc_detect_publish(&w.bb, &w.cfg, &w.th[1], &(struct hc_sample){
		.time = 470, .addr = LINE_A, .len = 4, .is_store = true }), 1);
	hc_detect_idle(&w.bb, &w.cfg, &w.th[0], 480, &w.res);
	CHECK(w.res.arm && !w.th[0].writes_only);
	CHECK(trap(&w, 0, 490, LINE_A, 4, false));
	CHECK_EQ_U64(w.comm.spin, 4);
	CHECK_EQ_U64(w.comm.weight, PERIOD / 4);
}

/* Echoes (doc/detection.md §5.19): a trapped store, published, is an
   echo of depth 1; a trap on a set that watched an echo makes depth 2,
   which cfg.echo_depth = 1 does not publish (0: any depth); a sample's
   store is never an echo, even right after a trap of its thread. */
/* §5.73 cfg.trap_lag: a trap matched with an entry more than N periods
   old weighs N periods / lag of its weight; within N periods, all of it;
   off (0), all of it */
static void test_trap_lag(void)
{
	struct world w;

	for (int mode = 0; mode < 3; mode++) {
		uint64_t t0 = 1000, at = mode == 1 ? t0 + 2 * PERIOD : t0 + 40 * PERIOD;

		world_init(&w, 1, 1);
		w.cfg.trap_lag = mode ? 4 : 0;
		sample(&w, 1, t0, LINE_A + 8, 8, true);
		sample(&w, 0, t0 + 10, LINE_B, 8, false);
		CHECK(w.res.arm);
		CHECK(trap(&w, 0, at, LINE_A + 8, 8, false));
		CHECK_EQ_U64(w.comm.lag, at - t0);
		if (mode == 2) {   /* 40 periods late, N = 4: a tenth */
			CHECK_EQ_U64(w.comm.weight, PERIOD / 10);
			CHECK(w.comm.lag_divided);
		} else {
			CHECK_EQ_U64(w.comm.weight, PERIOD);
			CHECK(!w.comm.lag_divided);
		}
	}
}

static void test_trap_echo(void)
{
	struct world w;
	struct hc_bb_entry e;
	struct hc_sample s = { .len = 8, .is_store = true };
	uint32_t depth;

	for (depth = 0; depth <= 1; depth++) {
		world_init(&w, 7, 1);
		w.cfg.echo_depth = depth;
		sample(&w, 1, 100, LINE_A, 8, true);          /* T1's store: published */
		CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e));
		CHECK_EQ_U64(e.echo, 0);
		sample(&w, 0, 200, LINE_B, 8, false);
		CHECK(w.res.arm);
		CHECK(trap(&w, 0, 210, LINE_A, 8, true));
		s.time = 210;
		s.addr = LINE_A;
		CHECK_EQ_U64(hc_detect_publish(&w.bb, &w.cfg, &w.th[0], &s), 1);
		CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e));
		CHECK_EQ_U64(e.thread, 0);
		CHECK_EQ_U64(e.echo, 1);
		/* T1 watches T0's echo and traps: an echo of an echo */
		sample(&w, 1, 300, LINE_B, 8, false);
		CHECK(w.res.arm);
		CHECK_EQ_U64(w.th[1].watched.echo, 1);
		CHECK(trap(&w, 1, 310, LINE_A + 8, 8, true));
		s.time = 310;
		s.addr = LINE_A + 8;
		CHECK_EQ_U64(hc_detect_publish(&w.bb, &w.cfg, &w.th[1], &s), depth ? -ELOOP : 1);
		CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e));
		CHECK_EQ_U64(e.thread, depth ? 0 : 1);
		CHECK_EQ_U64(e.echo, depth ? 1 : 2);
		/* T1's next sampled store is no echo */
		sample(&w, 1, 400, LINE_A + 16, 8, true);
		CHECK(hc_bulletin_lookup(&w.bb, LINE_A, &e));
		CHECK_EQ_U64(e.thread, 1);
		CHECK_EQ_U64(e.time, 400);
		CHECK_EQ_U64(e.echo, 0);
	}
}

/* The re-fetch test (cfg.refetch_false, detection.md §5.24): a detection
   by a thread that accessed the line after the entry's store and before
   this access is false, whatever the bytes: its copy held the stored
   bytes, and what it fetches again another store invalidated. An access
   before the store, or none known, leaves the bytes to judge; a load
   entry is never a re-fetch's peer; off, nothing changes. */
static void test_refetch(void)
{
	static struct hc_step_lines l0;
	struct world w;

	/* spsc: T1 stores item 0 (bytes 0..7) at 100; T0 read the line at
	   150 (item 0's seq, after the store) and reads it again at 300 */
	for (int on = 0; on < 2; on++) {
		world_init(&w, 7, 2);
		memset(&l0, 0, sizeof l0);
		w.cfg.refetch_false = on;
		w.th[0].lines = &l0;
		CHECK(!sample(&w, 1, 100, LINE_A, 8, true));
		hc_step_line_note(&l0, LINE_A, 8, 150, 100000);
		hc_step_line_note(&l0, LINE_A, 8, 300, 100000);   /* the access judged, noted first */
		CHECK(sample(&w, 0, 300, LINE_A, 8, false));
		CHECK_EQ_U64(!(w.comm.flags & HC_COMM_TRUE), on);
		CHECK_EQ_U64(w.comm.false_refetch, on);
		CHECK(!w.comm.true_by_mask);
	}
	/* the same through a trap: T0's set on T1's store, T0's sample of the
	   line after the store (not fresh: no detection), then the trap */
	world_init(&w, 7, 2);
	memset(&l0, 0, sizeof l0);
	w.cfg.refetch_false = true;
	w.th[0].lines = &l0;
	sample(&w, 1, 100, LINE_A + 8, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.arm);
	hc_step_line_note(&l0, LINE_A + 8, 8, 250, 100000);
	CHECK(!sample(&w, 0, 250, LINE_A + 8, 8, false));   /* published before 200: not fresh */
	CHECK(w.th[0].armed);
	hc_step_line_note(&l0, LINE_A + 8, 8, 260, 100000);
	CHECK(trap(&w, 0, 260, LINE_A + 8, 8, false));
	CHECK(!(w.comm.flags & HC_COMM_TRUE) && w.comm.false_refetch);
	/* no access between the store and the trap: judged by the bytes */
	world_init(&w, 7, 2);
	memset(&l0, 0, sizeof l0);
	w.cfg.refetch_false = true;
	w.th[0].lines = &l0;
	hc_step_line_note(&l0, LINE_A + 8, 8, 50, 100000);   /* before the store */
	sample(&w, 1, 100, LINE_A + 8, 8, true);
	sample(&w, 0, 200, LINE_B, 8, false);
	CHECK(w.res.arm);
	hc_step_line_note(&l0, LINE_A + 8, 8, 260, 100000);
	CHECK(trap(&w, 0, 260, LINE_A + 8, 8, false));
	CHECK((w.comm.flags & HC_COMM_TRUE) && !w.comm.false_refetch);
	/* no table: judged by the bytes */
	world_init(&w, 7, 2);
	w.cfg.refetch_false = true;
	sample(&w, 1, 100, LINE_A, 8, true);
	CHECK(sample(&w, 0, 300, LINE_A, 8, false));
	CHECK((w.comm.flags & HC_COMM_TRUE) && !w.comm.false_refetch);
	/* the pure test: a store entry only, strictly between */
	{
		struct hc_detect_thread th = { .lines = &l0 };
		struct hc_bb_entry e = { .line = LINE_A, .addr = LINE_A, .time = 100, .len = 8 };
		struct hc_sample s = { .time = 400, .addr = LINE_A, .len = 8 };

		memset(&l0, 0, sizeof l0);
		hc_step_line_note(&l0, LINE_A + 32, 8, 100, 100000);
		CHECK(!hc_detect_refetch(&th, &s, &e));           /* at the store's time: not after */
		hc_step_line_note(&l0, LINE_A + 32, 8, 101, 100000);
		CHECK(hc_detect_refetch(&th, &s, &e));
		e.is_load = true;
		CHECK(!hc_detect_refetch(&th, &s, &e));
		e.is_load = false;
		s.time = 101;                                     /* the access itself */
		CHECK(!hc_detect_refetch(&th, &s, &e));
		s.time = 400;
		th.lines = NULL;
		CHECK(!hc_detect_refetch(&th, &s, &e));
	}
}

/* The heels test (cfg.heels_ns, detection.md §5.28): a store detected
   against another thread's load of the same bytes at most heels_ns after
   that load is false (the writer a lap ahead, at a ring consumer's heels:
   the consumer's next miss on the line re-fetches bytes this store did
   not write); later, on other bytes, against a store entry, or off, the
   verdict is the bytes'. */
static void test_heels(void)
{
	struct world w;

	for (int on = 0; on < 2; on++) {
		/* T1 reads item 0 (published load, 150); T0's write-only set on it
		   traps T0's store of the same bytes at 410 (260 ns later) */
		world_init(&w, 7, 2);
		w.cfg.publish_loads = true;
		w.cfg.load_window = 1000;
		w.cfg.heels_ns = on ? 300 : 0;
		sample(&w, 0, 100, LINE_B, 8, false);
		sample_priv(&w, 1, 150, LINE_A, 8, false, false);
		sample(&w, 0, 400, LINE_B, 8, false);
		CHECK(w.res.arm && w.th[0].watched.is_load);
		CHECK(trap(&w, 0, 410, LINE_A, 8, true));
		CHECK_EQ_U64(!(w.comm.flags & HC_COMM_TRUE), on);
		CHECK_EQ_U64(w.comm.false_heels, on);
		CHECK(!w.comm.false_refetch);
		CHECK_EQ_U64(w.comm.lag, 260);
	}
	/* the pure test's bounds */
	{
		struct hc_bb_entry e = { .line = LINE_A, .addr = LINE_A + 16, .time = 1000, .len = 8, .is_load = true };
		struct hc_sample s = { .time = 1300, .addr = LINE_A + 16, .len = 8, .is_store = true };

		CHECK(hc_detect_heels(300, &s, &e));
		CHECK(!hc_detect_heels(0, &s, &e));              /* off */
		CHECK(!hc_detect_heels(299, &s, &e));            /* too late */
		s.time = 999;
		CHECK(!hc_detect_heels(300, &s, &e));            /* before the load */
		s.time = 1000;
		CHECK(hc_detect_heels(300, &s, &e));
		s.addr = LINE_A + 24;
		CHECK(!hc_detect_heels(300, &s, &e));            /* other bytes: the masks judge */
		s.addr = LINE_A + 20;
		CHECK(hc_detect_heels(300, &s, &e));             /* overlapping */
		s.is_store = false;
		CHECK(!hc_detect_heels(300, &s, &e));            /* two loads */
		s.is_store = true;
		e.is_load = false;
		CHECK(!hc_detect_heels(300, &s, &e));            /* a store entry: not a reader's */
	}
}

/* §5.31: a trap's weight over the chance that the set watched one of the
   chunks its thread touches on the line */
static void test_trap_footprint(void)
{
	static struct hc_step_lines l0;
	struct world w;
	uint32_t d;

	/* the pure rule: one chunk besides the published one is the old
	   period * 7 / (d - 1); more chunks weigh less; the published chunk,
	   or one register, one period */
	for (d = 2; d <= 4; d++)
		CHECK_EQ_U64(hc_detect_trap_weight(PERIOD, d, 1, 1u << 5), PERIOD * 7 / (d - 1));
	CHECK_EQ_U64(hc_detect_trap_weight(PERIOD, 4, 1, 0), PERIOD * 7 / 3);     /* nothing known: one chunk */
	CHECK_EQ_U64(hc_detect_trap_weight(PERIOD, 4, 1, 0x3u << 4), PERIOD * 35 / 25);  /* 2: 1 - C(5,3)/C(7,3) */
	CHECK_EQ_U64(hc_detect_trap_weight(PERIOD, 4, 1, 0xfu << 4), PERIOD * 35 / 34);  /* 4: 1 - 1/35 */
	CHECK_EQ_U64(hc_detect_trap_weight(PERIOD, 4, 1, 0xfdu), PERIOD);          /* 6 others: always watched */
	CHECK_EQ_U64(hc_detect_trap_weight(PERIOD, 2, 1, 0x3u << 4), PERIOD * 7 / 2);   /* 1 - C(5,1)/C(7,1) */
	CHECK_EQ_U64(hc_detect_trap_weight(PERIOD, 4, 1, 0x22u), PERIOD);          /* holds the published chunk */
	CHECK_EQ_U64(hc_detect_trap_weight(PERIOD, 1, 1, 1u << 5), PERIOD);        /* one register */
	for (d = 2; d <= 4; d++)
		for (uint32_t fp = 1; fp < 256; fp++) {
			uint64_t x = hc_detect_trap_weight(PERIOD, d, 0, fp);

			CHECK(x >= PERIOD && x <= PERIOD * 7 / (d - 1));
		}

	/* in detection: a false-sharing half line. T1 stores chunk 1, T0 (seen
	   touching chunks 4..7) traps on chunk 5: off, one period * 7/3 (off) or
	   period * 35/34 (on); a moving access, the whole line: one period */
	for (int on = 0; on < 3; on++) {
		world_init(&w, 7, 4);
		memset(&l0, 0, sizeof l0);
		w.cfg.trap_footprint = on > 0;
		w.th[0].touched = &l0;
		w.th[0].touched_within = 100000;
		hc_step_line_note(&l0, LINE_A + 32, 32, 90, 100000);
		w.th[0].moving = on == 2;
		sample(&w, 1, 100, LINE_A + 8, 8, true);
		sample(&w, 0, 200, LINE_B, 8, false);
		CHECK(w.res.arm);
		CHECK(trap(&w, 0, 210, LINE_A + 40, 8, true));
		CHECK_EQ_U64(w.comm.weight, on == 0 ? PERIOD * 7 / 3 : on == 1 ? PERIOD * 35 / 34 : PERIOD);
		CHECK_EQ_U64(!!(w.comm.flags & HC_COMM_TRUE), (uint64_t)(on == 2));   /* the verdict is the masks' */
		CHECK(w.comm.footprint_weighed == (on >= 1));
	}
}

int main(void)
{
	test_overlap();
	test_detect_record();
	test_fresh_vs_expired();
	test_t_prev_dedup();
	test_true_false();
	test_needs_a_store();
	test_never_with_oneself();
	test_collision_in_detect();
	test_arm_chunks();
	test_arm_choice();
	test_trap();
	test_stale_rearm();
	test_rng_zero();
	test_load_entries();
	test_targeting();
	test_sync_targets();
	test_reuse_sets();
	test_handoff_sets();
	test_handoff_range();
	test_arm_entries();
	test_handoff_regions();
	test_judged_by_masks();
	test_start_set();
	test_join_set();
	test_join_set_in();
	test_block_set();
	test_lock_sets();
	test_reader_sets();
	test_sync_words();
	test_rep_end();
	test_lock_verdict();
	test_dry_lines();
	test_idle_sample();
	test_spin_note();
	test_spin_weight();
	test_trap_lag();
	test_trap_echo();
	test_refetch();
	test_heels();
	test_trap_footprint();
	test_update_bytes();
	return hc_test_done("test_detect");
}
