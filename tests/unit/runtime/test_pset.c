/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pset.c — pset.h, the process-wide watch set's rules on synthetic
   inputs: the arm budget (a share of the process's CPU time plus a grace),
   who may arm the set (idle: anyone; being armed or ended: nobody; armed:
   its owner, or anyone once it is old), what a trap is (late, the
   publisher's own, a foreign one), when own traps end a set, when a set
   outlived its life, and the state word's generation; a creator's
   written block (which pages are asked, the verdict). */
#include <stdint.h>

#include "runtime/pset.h"
#include "runtime/sampler/startset.h"
#include "hc_test.h"

/* rt_pset_switches_charged (detection.md §5.39): every switch since the
   arm, or the voluntary ones only, the involuntary counted exempt; counters that went backwards (a failed getrusage: 0) charge
   nothing. */
static void switch_cost(void)
{
	uint64_t ex = 99;

	CHECK(rt_pset_switches_charged(15, 120, 10, 20, false, &ex) == 105);
	CHECK(ex == 0);
	CHECK(rt_pset_switches_charged(15, 120, 10, 20, true, &ex) == 5);
	CHECK(ex == 100);
	CHECK(rt_pset_switches_charged(0, 0, 10, 20, false, &ex) == 0);
	CHECK(rt_pset_switches_charged(0, 0, 10, 20, true, &ex) == 0 && ex == 0);
	CHECK(rt_pset_switches_charged(10, 20, 10, 20, true, &ex) == 0 && ex == 0);
}

static void budget(void)
{
	/* 2 % (the knob's range; the default is 1 %): 20 ms of arms for 1 s
	   of CPU, plus the grace */
	CHECK(rt_pset_budget_allows(0, 0, 20, 2000000));
	CHECK(rt_pset_budget_allows(2000000, 0, 20, 2000000));          /* the grace alone */
	CHECK(!rt_pset_budget_allows(2000001, 0, 20, 2000000));
	CHECK(rt_pset_budget_allows(22000000, 1000000000, 20, 2000000));
	CHECK(!rt_pset_budget_allows(22000001, 1000000000, 20, 2000000));
	/* a program whose arms cost 130 µs each (a copy running): at 1 s of
	   CPU at most (20 + 2) ms / 130 µs = 169 arms */
	{
		uint64_t spent = 0;
		int arms = 0;

		for (int i = 0; i < 1000; i++)
			if (rt_pset_budget_allows(spent, 1000000000, 20, 2000000)) {
				spent += 130000;
				arms++;
			}
		CHECK(arms == 170);   /* the last one allowed starts at 21.97 ms */
	}
	/* no grace, no CPU: nothing */
	CHECK(!rt_pset_budget_allows(1, 0, 20, 0));
}

static void arming(void)
{
	uint64_t min_age = 1000000;

	CHECK(rt_pset_may_arm(RT_PSET_IDLE, 3, 5, 0, 0, min_age));
	CHECK(!rt_pset_may_arm(RT_PSET_BUSY, 3, 3, 0, 10 * min_age, min_age));
	/* armed: the owner's next set replaces it at once */
	CHECK(rt_pset_may_arm(RT_PSET_ARMED, 3, 3, 5000, 5001, min_age));
	/* another thread waits for the shortest life */
	CHECK(!rt_pset_may_arm(RT_PSET_ARMED, 3, 5, 5000, 5000 + min_age - 1, min_age));
	CHECK(rt_pset_may_arm(RT_PSET_ARMED, 3, 5, 5000, 5000 + min_age, min_age));
	/* a clock that went back does not hold the set for ever */
	CHECK(rt_pset_may_arm(RT_PSET_ARMED, 3, 5, 5000, 4000, min_age));
}

static void traps(void)
{
	uint64_t line = 0x1000;

	/* not armed: late, whoever */
	CHECK(rt_pset_trap_kind(false, 1, 2, line, 8, line, 64) == RT_PSET_TRAP_LATE);
	/* off the line (an older set's register): late */
	CHECK(rt_pset_trap_kind(true, 1, 2, line + 64, 8, line, 64) == RT_PSET_TRAP_LATE);
	CHECK(rt_pset_trap_kind(true, 1, 2, line - 8, 8, line, 64) == RT_PSET_TRAP_LATE);
	/* an access straddling into the line counts */
	CHECK(rt_pset_trap_kind(true, 1, 2, line - 4, 8, line, 64) == RT_PSET_TRAP_FOREIGN);
	/* the publisher's own access; any other thread's, the arming one or not */
	CHECK(rt_pset_trap_kind(true, 1, 1, line + 8, 8, line, 64) == RT_PSET_TRAP_OWN);
	CHECK(rt_pset_trap_kind(true, 1, 2, line + 56, 8, line, 64) == RT_PSET_TRAP_FOREIGN);
	CHECK(rt_pset_trap_kind(true, 1, 7, line + 63, 1, line, 64) == RT_PSET_TRAP_FOREIGN);
	/* a zero length (unknown) counts as one byte */
	CHECK(rt_pset_trap_kind(true, 1, 7, line + 63, 0, line, 64) == RT_PSET_TRAP_FOREIGN);
	CHECK(rt_pset_trap_kind(true, 1, 7, line + 64, 0, line, 64) == RT_PSET_TRAP_LATE);

	/* own traps: the set ends at the RT_PSET_OWN_MAX-th */
	for (uint32_t i = 1; i < RT_PSET_OWN_MAX; i++)
		CHECK(!rt_pset_own_ends(i, RT_PSET_OWN_MAX));
	CHECK(rt_pset_own_ends(RT_PSET_OWN_MAX, RT_PSET_OWN_MAX));
}

static void life(void)
{
	uint64_t period = 500000, life_ns = RT_PSET_LIFE * period;

	CHECK(!rt_pset_expired(1000, 1000, life_ns));
	CHECK(!rt_pset_expired(1000, 1000 + life_ns - 1, life_ns));
	CHECK(rt_pset_expired(1000, 1000 + life_ns, life_ns));
	/* a clock read before the arm's (another CPU): not expired */
	CHECK(!rt_pset_expired(1000, 999, life_ns));
	/* the life is longer than the shortest one before another thread may
	   take the registers (2 periods): a set gets its chance first */
	CHECK(RT_PSET_LIFE > 2);
}

static void words(void)
{
	for (uint64_t g = 0; g < 5; g++)
		for (int s = RT_PSET_IDLE; s <= RT_PSET_ARMED; s++) {
			uint64_t w = rt_pset_word(g, (enum rt_pset_state)s);

			CHECK(rt_pset_gen_of(w) == g);
			CHECK(rt_pset_state_of(w) == (enum rt_pset_state)s);
		}
	/* a re-arm changes the word even to the same state (the CAS that
	   validates a trap's copy of the record fails) */
	CHECK(rt_pset_word(1, RT_PSET_ARMED) != rt_pset_word(2, RT_PSET_ARMED));
}

/* A zone set's traps (its entry is what it trapped before): the
   stencil's halo line, from either end of its cycle, ends in one
   communication between the two threads. */
static void zone_traps(void)
{
	/* the first trap, whoever it is, becomes the entry */
	CHECK(rt_pset_zone_trap_kind(RT_PSET_NOBODY, true, 3, false) == RT_PSET_ZONE_ADOPT);
	CHECK(rt_pset_zone_trap_kind(RT_PSET_NOBODY, true, 3, true) == RT_PSET_ZONE_ADOPT);
	/* the entry's thread again: its store after its load is the new entry */
	CHECK(rt_pset_zone_trap_kind(3, true, 3, true) == RT_PSET_ZONE_ADOPT);
	CHECK(rt_pset_zone_trap_kind(3, true, 3, false) == RT_PSET_ZONE_OWN);
	CHECK(rt_pset_zone_trap_kind(3, false, 3, false) == RT_PSET_ZONE_OWN);
	CHECK(rt_pset_zone_trap_kind(3, false, 3, true) == RT_PSET_ZONE_OWN);
	/* another thread: a communication when a store is on either side;
	   two loads never communicate, the later reader becomes the entry */
	CHECK(rt_pset_zone_trap_kind(3, false, 4, false) == RT_PSET_ZONE_COMM);
	CHECK(rt_pset_zone_trap_kind(3, false, 4, true) == RT_PSET_ZONE_COMM);
	CHECK(rt_pset_zone_trap_kind(3, true, 4, true) == RT_PSET_ZONE_COMM);
	CHECK(rt_pset_zone_trap_kind(3, true, 4, false) == RT_PSET_ZONE_ADOPT);
	/* the halo's cycle: the owner (T2) writes, reads it 3 times, the
	   neighbour (T1) reads it once; armed at any point of the cycle, a
	   communication comes before RT_PSET_ZONE_OWN_MAX own traps */
	{
		static const struct { uint32_t th; bool store; } cyc[] = {
			{ 2, true }, { 2, false }, { 2, false }, { 2, false }, { 1, false },
		};
		for (int start = 0; start < 5; start++) {
			uint32_t who = RT_PSET_NOBODY, own = 0, k;
			bool load = true, comm = false;

			for (k = 0; k < 10 && !comm && own < RT_PSET_ZONE_OWN_MAX; k++) {
				uint32_t th = cyc[(start + k) % 5].th;
				bool st = cyc[(start + k) % 5].store;

				switch (rt_pset_zone_trap_kind(who, load, th, st)) {
				case RT_PSET_ZONE_ADOPT: who = th; load = !st; break;
				case RT_PSET_ZONE_OWN: own++; break;
				case RT_PSET_ZONE_COMM: comm = true; break;
				}
			}
			CHECK_MSG(comm, "armed at step %d of the halo's cycle: no communication", start);
		}
	}
}

/* Threads the switch gate lets through arm zone sets only while no gated
   thread has sampled or asked for the set lately (pset.h). */
static void open_threads(void)
{
	uint64_t period = 500000, quiet = RT_PSET_OPEN_QUIET * period;

	CHECK(rt_pset_open_allows(0, 1000, quiet));                /* no gated thread ever */
	CHECK(!rt_pset_open_allows(1000, 1000, quiet));            /* one just now */
	CHECK(!rt_pset_open_allows(1000, 1000 + quiet - 1, quiet));
	CHECK(rt_pset_open_allows(1000, 1000 + quiet, quiet));     /* quiet long enough */
	/* a time stamp from another CPU's clock, a little ahead: not quiet */
	CHECK(!rt_pset_open_allows(2000, 1000, quiet));
	/* quieter than a set's life: a gated thread's set has had its chance */
	CHECK(RT_PSET_OPEN_QUIET >= RT_PSET_LIFE);
}

/* The late start set's publishers: those the start sets did not watch
   (startset.h). */
static void late_start(void)
{
	const uint32_t all[] = { 1, 2, 3, 4, 5, 6, 7, 8, 0 };   /* 8 ended, the creator 0 */
	const uint32_t watched[] = { 2 + 1, 5 + 1, 0 + 1, 7 + 1 };
	uint32_t out[9], n;

	n = rt_start_unwatched(all, 9, watched, 4, out);
	CHECK_EQ_U64(n, 5);
	CHECK(out[0] == 1 && out[1] == 3 && out[2] == 4 && out[3] == 6 && out[4] == 8);
	CHECK_EQ_U64(rt_start_unwatched(all, 9, watched, 0, out), 9);   /* nothing watched yet */
	CHECK_EQ_U64(out[8], 0);
	CHECK_EQ_U64(rt_start_unwatched(all, 0, watched, 4, out), 0);
	{
		const uint32_t every[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };   /* all watched (+1): none left */
		CHECK_EQ_U64(rt_start_unwatched(all, 9, every, 9, out), 0);
	}
}

/* The first start set's publishers: the threads that ended last, within
   a window of the latest end (startset.h). */
static void recent_start(void)
{
	/* generation 0 ended at 100-130, generation 1 at 1000-1040 */
	uint32_t peers[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint64_t ends[] = { 100, 110, 120, 130, 1000, 1010, 1030, 1040 };
	uint32_t n;

	n = rt_start_recent(peers, ends, 8, 500);
	CHECK_EQ_U64(n, 4);
	CHECK(peers[0] == 5 && peers[1] == 6 && peers[2] == 7 && peers[3] == 8);
	/* a window reaching back to the older generation keeps everyone */
	{
		uint32_t p2[] = { 1, 2, 3, 4, 5, 6, 7, 8 };

		CHECK_EQ_U64(rt_start_recent(p2, ends, 8, 940), 8);
		CHECK_EQ_U64(rt_start_recent(p2, ends, 8, 0), 8);     /* no lifetimes yet: all */
		CHECK_EQ_U64(rt_start_recent(p2, ends, 0, 500), 0);
	}
	/* the ring's order need not be the ends' order */
	{
		uint32_t p3[] = { 9, 5, 1 };
		const uint64_t e3[] = { 2000, 100, 1990 };

		CHECK_EQ_U64(rt_start_recent(p3, e3, 3, 50), 2);
		CHECK(p3[0] == 9 && p3[1] == 1);
	}
}

/* The first start set's publishers: the generation that ended last, the
   threads whose lives overlapped the last one's (startset.h). */
static void overlap_start(void)
{
	/* generation 0 lived 0-130, generation 1 500-1040; its first thread
	   ended at 600, long before the others (a window of half a lifetime
	   of the latest end would leave it out) */
	uint32_t peers[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const uint64_t ends[] = { 100, 110, 120, 130, 600, 1010, 1030, 1040 };
	const uint64_t starts[] = { 0, 1, 2, 3, 500, 501, 502, 503 };

	CHECK_EQ_U64(rt_start_overlap(peers, ends, starts, 8), 4);
	CHECK(peers[0] == 5 && peers[1] == 6 && peers[2] == 7 && peers[3] == 8);
	CHECK_EQ_U64(rt_start_recent((uint32_t[]){ 1, 2, 3, 4, 5, 6, 7, 8 }, ends, 8, 300), 3);
	/* the ring's order need not be the ends' order; the last to end a
	   long-lived thread: everyone overlapped it */
	{
		uint32_t p2[] = { 9, 5, 1 };
		const uint64_t e2[] = { 2000, 100, 1990 }, s2[] = { 0, 50, 1500 };

		CHECK_EQ_U64(rt_start_overlap(p2, e2, s2, 3), 3);
		CHECK(p2[0] == 9 && p2[1] == 5 && p2[2] == 1);
	}
	/* a thread that ended exactly at the last one's start ran alongside it
	   (one clock tick), one that ended before did not; none: none */
	{
		uint32_t p3[] = { 3, 4, 7 };
		const uint64_t e3[] = { 499, 500, 900 }, s3[] = { 0, 0, 500 };

		CHECK_EQ_U64(rt_start_overlap(p3, e3, s3, 3), 2);
		CHECK(p3[0] == 4 && p3[1] == 7);
		CHECK_EQ_U64(rt_start_overlap(p3, e3, s3, 0), 0);
	}
}

/* A start set leaves the publisher the process-wide set watches to it. */
static void drop_start(void)
{
	uint32_t peers[] = { 7, 5, 8, 6, 0 };

	CHECK_EQ_U64(rt_start_drop(peers, 5, 8), 4);
	CHECK(peers[0] == 7 && peers[1] == 5 && peers[2] == 6 && peers[3] == 0);
	CHECK_EQ_U64(rt_start_drop(peers, 4, 9), 4);     /* not among them: all stay */
	CHECK_EQ_U64(rt_start_drop(peers, 1, 7), 0);
	CHECK_EQ_U64(rt_start_drop(peers, 0, 7), 0);
}

/* A creator's hand-off chain (detection.md §5.27): who is new to it, when
   it goes on, where its next line goes, when a block line carries on. */
/* a creator's written block (HPCRUN_COMM_START_BLOCK_WRITTEN, §5.32): the
   pages asked about, spread over the block; the verdict, half or more */
static void written_block(void)
{
	/* 16 probes over a 2 MiB grid (512 pages): every 32nd page, from the first */
	CHECK_EQ_U64(rt_pset_written_page(0x7f0000000010, 2u << 20, 0, 16, 4096), 0x7f0000000000);
	CHECK_EQ_U64(rt_pset_written_page(0x7f0000000010, 2u << 20, 1, 16, 4096), 0x7f0000000000 + 32 * 4096);
	CHECK_EQ_U64(rt_pset_written_page(0x7f0000000010, 2u << 20, 15, 16, 4096), 0x7f0000000000 + 480 * 4096);
	/* each probe inside the block's pages, whatever the sizes */
	for (uint64_t size = 1; size < (1u << 22); size = size * 3 + 7)
		for (uint32_t i = 0; i < 16; i++) {
			uint64_t base = 0x5500000123a0, pg = rt_pset_written_page(base, size, i, 16, 4096);

			CHECK(pg >= (base & ~(uint64_t)4095) && pg <= ((base + size - 1) & ~(uint64_t)4095));
			CHECK((pg & 4095) == 0);
		}
	/* fewer pages than probes: pages repeat, none outside (a 64 KiB block of 17 pages) */
	CHECK_EQ_U64(rt_pset_written_page(0x10008, 65536, 15, 16, 4096), 0x10000 + 15 * 4096);
	CHECK_EQ_U64(rt_pset_written_page(0x10000, 4096, 7, 16, 4096), 0x10000);
	/* out of range or no probes: the first page */
	CHECK_EQ_U64(rt_pset_written_page(0x10000, 65536, 16, 16, 4096), 0x10000);
	CHECK_EQ_U64(rt_pset_written_page(0x10000, 65536, 0, 0, 4096), 0x10000);
	/* written: half or more resident; nothing asked is not written */
	CHECK(rt_pset_written(8, 16));
	CHECK(rt_pset_written(16, 16));
	CHECK(!rt_pset_written(7, 16));
	CHECK(!rt_pset_written(1, 16));    /* calloc's fresh pages: the header's page only */
	CHECK(!rt_pset_written(0, 0));
	CHECK(rt_pset_written(1, 1));
}

static void chain(void)
{
	uint64_t found = 0, r[4], traps[2];

	/* thread bits; 64 and up have none: never a repeat */
	CHECK_EQ_U64(rt_pset_chain_bit(0), 1);
	CHECK_EQ_U64(rt_pset_chain_bit(63), (uint64_t)1 << 63);
	CHECK_EQ_U64(rt_pset_chain_bit(64), 0);
	CHECK(!rt_pset_chain_repeat(found, 2));
	found |= rt_pset_chain_bit(2);
	CHECK(rt_pset_chain_repeat(found, 2));
	CHECK(!rt_pset_chain_repeat(found, 1));
	CHECK(!rt_pset_chain_repeat(~(uint64_t)0, 70));
	/* goes on while fewer threads found than asked, within the re-arms */
	CHECK(rt_pset_chain_goes_on(found, 2, 0, 8));     /* one of two found */
	CHECK(!rt_pset_chain_goes_on(found, 1, 0, 8));    /* the only one that asked */
	CHECK(!rt_pset_chain_goes_on(found, 2, 8, 8));    /* the re-arm limit */
	CHECK(!rt_pset_chain_goes_on(0, 2, 0, 0));        /* off */
	found |= rt_pset_chain_bit(1);
	CHECK(!rt_pset_chain_goes_on(found, 2, 1, 8));
	CHECK(rt_pset_chain_goes_on(found, 4, 1, 8));
	/* lines of a block: rounded in, the r-th mod their count */
	CHECK_EQ_U64(rt_pset_chain_line(0x1000, 0x1100, 64, 0), 0x1000);
	CHECK_EQ_U64(rt_pset_chain_line(0x1000, 0x1100, 64, 5), 0x1040);
	CHECK_EQ_U64(rt_pset_chain_line(0x1010, 0x1100, 64, 0), 0x1040);     /* rounded up */
	CHECK_EQ_U64(rt_pset_chain_line(0x1010, 0x1100, 64, 3), 0x1040);     /* 3 whole lines */
	CHECK_EQ_U64(rt_pset_chain_line(0x1010, 0x1070, 64, 0), 0);          /* none whole */
	CHECK_EQ_U64(rt_pset_chain_line(0x1000, 0x1000, 64, 0), 0);
	/* the next line: the draw farthest from where the chain trapped (a
	   block of 1024 lines, two bands; a trap in the first band at line 100) */
	traps[0] = 0x100000 + 100 * 64 + 8;
	r[0] = 120; r[1] = 900; r[2] = 300; r[3] = 10;
	CHECK_EQ_U64(rt_pset_chain_pick(0x100000, 0x100000 + 1024 * 64, 64, r, 4, traps, 1), 0x100000 + 900 * 64);
	CHECK_EQ_U64(rt_pset_chain_pick(0x100000, 0x100000 + 1024 * 64, 64, r, 1, traps, 1), 0x100000 + 120 * 64);
	/* no trap yet: the first draw */
	CHECK_EQ_U64(rt_pset_chain_pick(0x100000, 0x100000 + 1024 * 64, 64, r, 4, traps, 0), 0x100000 + 120 * 64);
	/* two traps, at lines 100 and 880: 300 is the farthest from both */
	traps[1] = 0x100000 + 880 * 64;
	CHECK_EQ_U64(rt_pset_chain_pick(0x100000, 0x100000 + 1024 * 64, 64, r, 4, traps, 2), 0x100000 + 300 * 64);
	CHECK_EQ_U64(rt_pset_chain_pick(0x1000, 0x1000, 64, r, 4, traps, 2), 0);
	/* carried on: the same creator, recent */
	CHECK(rt_pset_chain_carries(0, 0, 1000, 1500, 2000));
	CHECK(!rt_pset_chain_carries(0, 0, 1000, 3000, 2000));   /* old */
	CHECK(!rt_pset_chain_carries(0, 3, 1000, 1500, 2000));   /* another creator */
	CHECK(!rt_pset_chain_carries(0, 0, 0, 1500, 2000));      /* no chain yet */
	CHECK(!rt_pset_chain_carries(0, 0, 2000, 1500, 2000));   /* the clock behind */
}

/* An edge set's word (§5.55): halo_bar's u, malloc(4098 doubles) at
   0x1000: side r & 1, the (skip + (r >> 1) % words)-th word from that end */
static void edge_words(void)
{
	uint64_t base = 0x1000, size = 4098 * 8, end = base + size;

	CHECK_EQ_U64(rt_pset_edge_word(base, size, 0, 2, 0), base);              /* u[0], the ghost */
	CHECK_EQ_U64(rt_pset_edge_word(base, size, 0, 2, 2), base + 8);          /* u[1] */
	CHECK_EQ_U64(rt_pset_edge_word(base, size, 0, 2, 1), end - 8);          /* u[N + 1] */
	CHECK_EQ_U64(rt_pset_edge_word(base, size, 0, 2, 3), end - 16);         /* u[N] */
	CHECK_EQ_U64(rt_pset_edge_word(base, size, 0, 2, 4), base);              /* mod words */
	/* skip 1: the halo words only */
	CHECK_EQ_U64(rt_pset_edge_word(base, size, 1, 1, 0), base + 8);
	CHECK_EQ_U64(rt_pset_edge_word(base, size, 1, 1, 6), base + 8);
	CHECK_EQ_U64(rt_pset_edge_word(base, size, 1, 1, 1), end - 16);
	CHECK_EQ_U64(rt_pset_edge_word(base, size, 1, 2, 3), end - 24);
	/* an unaligned end rounded in: the last whole word */
	CHECK_EQ_U64(rt_pset_edge_word(base, 1004, 0, 1, 1), base + 992);
	/* too small, or no words */
	CHECK_EQ_U64(rt_pset_edge_word(base, RT_PSET_EDGE_MIN - 16, 0, 2, 0), 0);
	CHECK_EQ_U64(rt_pset_edge_word(base, size, 0, 0, 0), 0);
	CHECK_EQ_U64(rt_pset_edge_word(base, RT_PSET_EDGE_MIN, 16, 1, 0), 0);   /* 32 words < 2 * 17 */
	CHECK(rt_pset_edge_word(base, RT_PSET_EDGE_MIN, 15, 1, 1) == base + RT_PSET_EDGE_MIN - 128);
	/* edge sets go on while they communicate */
	CHECK(rt_pset_edge_allows(0, 0));
	CHECK(rt_pset_edge_allows(RT_PSET_EDGE_TRIES - 1, 0));
	CHECK(!rt_pset_edge_allows(RT_PSET_EDGE_TRIES, 0));
	CHECK(rt_pset_edge_allows(RT_PSET_EDGE_TRIES, 1));
	CHECK(!rt_pset_edge_allows(3 * RT_PSET_EDGE_TRIES, 2));
	/* the pair mark is no thread's */
	CHECK(RT_PSET_EDGE_PAIR != RT_PSET_NOBODY);
}

/* edge memory (HPCRUN_COMM_PROCSET_EDGE_MEMORY, §5.64): a block's side
   worth a set while it communicates, the side with fewer communications
   first, a dry allocation site passed over; the edge sets' own budget only
   while they communicate */
static void edge_memory(void)
{
	uint32_t a[2], c[2];
	uint64_t retry = (uint64_t)RT_PSET_EDGE_RETRY << 8, no_retry = 1ull << 8;

	/* nothing known: the random bit */
	a[0] = a[1] = c[0] = c[1] = 0;
	CHECK(rt_pset_edge_side(a, c, 0) == 0);
	CHECK(rt_pset_edge_side(a, c, 1) == 1);
	/* one side found its neighbour: the other side's pair first */
	c[0] = 1; a[0] = 1;
	CHECK(rt_pset_edge_side(a, c, 0) == 1);
	CHECK(rt_pset_edge_side(a, c, 1) == 1);
	/* ... until that side was tried RT_PSET_EDGE_DRY times for nothing */
	a[1] = RT_PSET_EDGE_DRY;
	CHECK(rt_pset_edge_side(a, c, 1) == 0);
	CHECK(rt_pset_edge_side(a, c, 0) == 0);
	/* both found: the one with fewer communications */
	c[1] = 2; a[1] = 3;
	CHECK(rt_pset_edge_side(a, c, 1) == 0);
	c[0] = 3; a[0] = 3;
	CHECK(rt_pset_edge_side(a, c, 0) == 1);
	/* both dry: -1 but one ask in RT_PSET_EDGE_RETRY */
	a[0] = a[1] = RT_PSET_EDGE_DRY;
	c[0] = c[1] = 0;
	CHECK(rt_pset_edge_side(a, c, no_retry) == -1);
	CHECK(rt_pset_edge_side(a, c, retry | 1) == 1);
	CHECK(rt_pset_edge_side(a, c, retry) == 0);
	CHECK(rt_pset_edge_side_ok(RT_PSET_EDGE_DRY - 1, 0));
	CHECK(!rt_pset_edge_side_ok(RT_PSET_EDGE_DRY, 0));
	CHECK(rt_pset_edge_side_ok(RT_PSET_EDGE_DRY + 1, 1));
	/* a site is dry after RT_PSET_EDGE_DRY sets without a communication
	   (but one ask in RT_PSET_EDGE_RETRY) */
	CHECK(rt_pset_edge_site_dry(RT_PSET_EDGE_DRY, 0, 1ull << 40));
	CHECK(!rt_pset_edge_site_dry(RT_PSET_EDGE_DRY, 0, 0));   /* the retry */
	CHECK(!rt_pset_edge_site_dry(RT_PSET_EDGE_DRY - 1, 0, 1ull << 40));
	CHECK(!rt_pset_edge_site_dry(100, 1, 1ull << 40));
	/* slots spread blocks 64 KiB apart, and per-thread arenas' blocks 64 MiB apart */
	CHECK(rt_pset_edge_slot_of(0x10000) != rt_pset_edge_slot_of(0x20000));
	CHECK(rt_pset_edge_slot_of(0x7f0000000b70) != rt_pset_edge_slot_of(0x7f0004000b70));
	CHECK(rt_pset_edge_slot_of(0x5f19c8000b70) < RT_PSET_EDGE_SLOTS);
	/* the own budget: only while edge sets communicate */
	CHECK(!rt_pset_edge_productive(0, 0));
	CHECK(rt_pset_edge_productive(4, 1));
	CHECK(!rt_pset_edge_productive(5, 1));
	CHECK(rt_pset_edge_productive(4 * RT_PSET_EDGE_PRODUCTIVE, RT_PSET_EDGE_PRODUCTIVE));
	CHECK(rt_pset_edge_productive(40, 10));
}

/* reader sets (§5.57): after RT_READER_DRY sets without a communication,
   one ask in RT_READER_DRY */
static void reader_dry(void)
{
	CHECK(rt_reader_allows(0, 1));
	CHECK(rt_reader_allows(RT_READER_DRY - 1, 7));
	CHECK(!rt_reader_allows(RT_READER_DRY, 7));
	CHECK(!rt_reader_allows(1000, RT_READER_DRY + 1));
	CHECK(rt_reader_allows(RT_READER_DRY, 2 * RT_READER_DRY));
	CHECK(rt_reader_allows(1000, 0));
}

/* a feed set's weight: the samples since its thread's last one (§5.70) */
static void feed_stands(void)
{
	CHECK(rt_feed_stands(0, 8) == 1);
	CHECK(rt_feed_stands(1, 8) == 1);
	CHECK(rt_feed_stands(5, 8) == 5);
	CHECK(rt_feed_stands(8, 8) == 8);
	CHECK(rt_feed_stands(1u << 20, 8) == 8);
	/* off: one */
	CHECK(rt_feed_stands(5, 0) == 1);
	CHECK(rt_feed_stands(5, 1) == 1);
}

/* a gated thread's hand-off set (HPCRUN_COMM_HANDOFF_PSET, §5.60) */
static void handoff_route(void)
{
	/* off: as before (rt_handoff_opens decides) */
	CHECK(rt_pset_handoff_route(true, false, false) == RT_HANDOFF_OPEN);
	CHECK(rt_pset_handoff_route(true, false, true) == RT_HANDOFF_OPEN);
	CHECK(rt_pset_handoff_route(false, false, false) == RT_HANDOFF_GATED);
	/* on: the switch gate decides, whatever the opening rule says */
	CHECK(rt_pset_handoff_route(true, true, true) == RT_HANDOFF_GATED);
	CHECK(rt_pset_handoff_route(false, true, true) == RT_HANDOFF_GATED);
	CHECK(rt_pset_handoff_route(true, true, false) == RT_HANDOFF_PSET);
	CHECK(rt_pset_handoff_route(false, true, false) == RT_HANDOFF_PSET);
	CHECK(RT_HANDOFF_PSET_BUDGET < RT_PSET_BUDGET_PERMILLE);   /* the zone sets keep a share */
	/* the hand-off share of the budget: its own spent time against it */
	CHECK(rt_pset_budget_allows(0, 0, RT_HANDOFF_PSET_BUDGET, RT_PSET_GRACE_NS / 2));
	CHECK(!rt_pset_budget_allows(RT_PSET_GRACE_NS, 0, RT_HANDOFF_PSET_BUDGET, RT_PSET_GRACE_NS / 2));
	CHECK(rt_pset_budget_allows(5000000, 1000000000, RT_HANDOFF_PSET_BUDGET, 0));
	CHECK(!rt_pset_budget_allows(5000001, 1000000000, RT_HANDOFF_PSET_BUDGET, 0));
}

int main(void)
{
	handoff_route();
	reader_dry();
	feed_stands();
	edge_words();
	edge_memory();
	written_block();
	chain();
	overlap_start();
	drop_start();
	zone_traps();
	budget();
	switch_cost();
	arming();
	traps();
	life();
	words();
	open_threads();
	late_start();
	recent_start();
	return hc_test_done("test_pset");
}
