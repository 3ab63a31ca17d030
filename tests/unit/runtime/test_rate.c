/* SPDX-License-Identifier: BSD-3-Clause */
/* test_rate.c — sampler/rate.h, the soft sampler's rate in a crowded
   process, on synthetic inputs: the coarse/fine rule with its hysteresis
   (an OpenMP team of 4 and of 8 on 2 CPUs, threads = CPUs, a thread
   generation that comes and goes around the edge, unknown CPUs, the rule
   off) and its warm-up, the multiplier carried in a sample cookie without touching its
   kind, the weights (and their saturation), the option's parsing, and that
   samples plus thinned periods add up to the CPU time whatever the rate
   changes (what report/scale.c's denominator relies on); the quiet-process
   rule: coarse after a window of samples without a sign of sharing, fine
   again at the next sign, also at exactly CPUs + 1 live threads (the
   crowded rule's own state), never when off or without a coarse rate. */
#include <stdint.h>

#include "runtime/sampler/rate.h"
#include "hc_test.h"

/* Live counts in order; the state after each. */
static bool run(const uint32_t *live, int n, uint32_t ncpu, uint32_t mult, bool *out)
{
	bool c = false;

	for (int i = 0; i < n; i++)
		out[i] = c = rt_rate_want_coarse(c, live[i], ncpu, mult, 1000, RT_CROWD_WARMUP);
	return c;
}

static void rule(void)
{
	bool st[16];
	/* main, then an OpenMP team of 4 on 2 CPUs; the team ends */
	static const uint32_t team4[] = { 1, 2, 3, 4, 3, 2, 1 };
	static const bool want4[] = { false, false, false, true, true, false, false };
	/* main + 2 workers on 2 CPUs (threads = CPUs, a waiting creator) */
	static const uint32_t eq[] = { 1, 2, 3, 2, 3, 2 };
	/* a generation hovering around the edge: 3, 4, 3, 4 ... stays coarse
	   once crowded, fine once at most one thread per CPU */
	static const uint32_t edge[] = { 3, 4, 3, 4, 3, 2, 3, 4 };
	static const bool wantedge[] = { false, true, true, true, true, false, false, true };

	run(team4, 7, 2, 4, st);
	for (int i = 0; i < 7; i++)
		CHECK_MSG(st[i] == want4[i], "team of 4, step %d: %d", i, st[i]);
	run(eq, 6, 2, 4, st);
	for (int i = 0; i < 6; i++)
		CHECK_MSG(!st[i], "threads = CPUs + a creator, step %d: coarse", i);
	run(edge, 8, 2, 4, st);
	for (int i = 0; i < 8; i++)
		CHECK_MSG(st[i] == wantedge[i], "edge, step %d: %d", i, st[i]);
	/* 8 threads on 2 CPUs; on 64 CPUs the same team is not crowded */
	CHECK(rt_rate_want_coarse(false, 8, 2, 4, 1000, 500));
	CHECK(!rt_rate_want_coarse(false, 8, 64, 4, 1000, 500));
	CHECK(rt_rate_want_coarse(false, 66, 64, 4, 1000, 500));
	/* unknown CPUs, or the rule off (mult 1): never coarse */
	CHECK(!rt_rate_want_coarse(true, 100, 0, 4, 1000, 500));
	CHECK(!rt_rate_want_coarse(true, 100, 2, 1, 1000, 500));
	CHECK(!rt_rate_want_coarse(true, 100, 2, 0, 1000, 500));
	/* the warm-up: fine until the process has taken `warmup` samples */
	CHECK(!rt_rate_want_coarse(false, 8, 2, 2, 0, 500));
	CHECK(!rt_rate_want_coarse(false, 8, 2, 2, 499, 500));
	CHECK(rt_rate_want_coarse(false, 8, 2, 2, 500, 500));
	CHECK(rt_rate_want_coarse(false, 8, 2, 2, 0, 0));
}

static void cookies(void)
{
	uint64_t base = 0x5aull << 56;

	CHECK_EQ_U64(rt_rate_cookie(base, 4) >> 56, 0x5a);
	CHECK_EQ_U64(rt_rate_cookie_mult(rt_rate_cookie(base, 4)), 4);
	CHECK_EQ_U64(rt_rate_cookie_mult(rt_rate_cookie(base, 64)), 64);
	CHECK_EQ_U64(rt_rate_cookie_mult(base), 1);            /* the fine event's cookie: 1 */
	CHECK_EQ_U64(rt_rate_cookie_mult(rt_rate_cookie(base, 1)), 1);
	CHECK_EQ_U64(rt_rate_cookie(base | 0x1234, 4), base | 4);   /* old low bits replaced */
}

static void weights(void)
{
	CHECK_EQ_U64(rt_rate_weight(500000, 0), 500000);
	CHECK_EQ_U64(rt_rate_weight(500000, 1), 500000);
	CHECK_EQ_U64(rt_rate_weight(500000, 4), 2000000);
	CHECK_EQ_U64(rt_rate_weight(UINT64_MAX / 2, 4), UINT64_MAX);
}

static void parse(void)
{
	CHECK_EQ_U64(rt_rate_parse_mult(NULL), RT_CROWD_MULT_DEFAULT);
	CHECK_EQ_U64(rt_rate_parse_mult(""), RT_CROWD_MULT_DEFAULT);
	CHECK_EQ_U64(rt_rate_parse_mult("1"), 1);
	CHECK_EQ_U64(rt_rate_parse_mult("8"), 8);
	CHECK_EQ_U64(rt_rate_parse_mult("64"), 64);
	CHECK_EQ_U64(rt_rate_parse_mult("65"), 0);
	CHECK_EQ_U64(rt_rate_parse_mult("0"), 0);
	CHECK_EQ_U64(rt_rate_parse_mult("4x"), 0);
	CHECK_EQ_U64(rt_rate_parse_mult("-4"), 0);
	CHECK_EQ_U64(rt_rate_parse_mult("99999999999999999999"), 0);
}

/* A thread's CPU time in phases, each at the fine or the coarse rate: the
   timer fires every P or mult x P ns of it. What the runtime counts —
   samples (each expiration) and, for a coarse one, mult - 1 thinned
   periods — times P gives back the CPU time to within a period per phase,
   and the weights of a communication seen at every sample add up to the
   same. */
static void accounting(void)
{
	const uint64_t P = 500000;
	static const struct { uint64_t ns; uint32_t mult; } ph[] = {
		{ 3000000, 1 }, { 40000000, 4 }, { 1500000, 1 }, { 20000000, 4 }, { 7000000, 1 },
	};
	uint64_t cpu = 0, samples = 0, thinned = 0, weight = 0;

	for (unsigned i = 0; i < sizeof ph / sizeof ph[0]; i++) {
		uint64_t n = ph[i].ns / (P * ph[i].mult);

		cpu += ph[i].ns;
		samples += n;
		thinned += n * (ph[i].mult - 1);
		weight += n * rt_rate_weight(P, ph[i].mult);
	}
	CHECK_EQ_U64((samples + thinned) * P, cpu);   /* the phases are whole periods here */
	CHECK_EQ_U64(weight, cpu);
	CHECK(samples * 2 < cpu / P);                  /* mostly coarse: under half the samples */
}

/* A process's samples, one sign of sharing at each index listed in
   `signs` (sorted); the rate the process wants after each sample, with
   `live` threads on 2 CPUs. Returns how many samples it took coarse. */
static unsigned quiet_run(uint64_t n, const uint64_t *signs, int nsigns, uint32_t live, uint64_t window,
                          bool *coarse_at)
{
	bool crowded = false, coarse = false;
	uint64_t last = 0;
	unsigned ncoarse = 0;
	int k = 0;

	for (uint64_t i = 1; i <= n; i++) {
		if (coarse)
			ncoarse++;
		if (k < nsigns && signs[k] == i) {
			last = i;
			k++;
		}
		coarse = rt_rate_decide(&crowded, live, 2, 2, i, RT_CROWD_WARMUP, last, window);
		if (coarse_at)
			coarse_at[i] = coarse;
	}
	return ncoarse;
}

static void quiet(void)
{
	static bool at[2001];
	static const uint64_t signs[] = { 100, 1000, 1100, 1200 };
	bool crowded;

	/* the window: 0 is off; a sign "after" the count (a racy view) is not quiet */
	CHECK(!rt_rate_quiet(10000, 0, 0));
	CHECK(!rt_rate_quiet(511, 0, 512));
	CHECK(rt_rate_quiet(512, 0, 512));
	CHECK(!rt_rate_quiet(100, 200, 512));
	CHECK(rt_rate_quiet(712, 200, 512));
	/* a process that never shows a sign: coarse from sample 512 on, with
	   threads = CPUs + a creator (3 on 2 CPUs, the crowded rule's edge) */
	CHECK_EQ_U64(quiet_run(2000, NULL, 0, 3, 512, at), 2000 - 512);
	CHECK(!at[511] && at[512] && at[2000]);
	/* signs at 100, 1000, 1100, 1200: fine until 612, coarse 612..999,
	   fine again at the sign of 1000 (at the edge too: the coarse rate was
	   the quiet rule's, not the crowded one's), coarse again from 1712 */
	quiet_run(2000, signs, 4, 3, 512, at);
	CHECK(!at[611] && at[612] && at[999]);
	CHECK(!at[1000] && !at[1711] && at[1712]);
	/* a sharing process (a sign every 20 samples) never leaves the fine rate */
	{
		uint64_t many[100];

		for (int i = 0; i < 100; i++)
			many[i] = 20 * (uint64_t)(i + 1);
		CHECK_EQ_U64(quiet_run(2000, many, 100, 3, 512, NULL), 0);
	}
	/* crowded (5 live on 2 CPUs): coarse after the warm-up whatever the signs */
	crowded = false;
	CHECK(rt_rate_decide(&crowded, 5, 2, 2, 600, RT_CROWD_WARMUP, 600, 512));
	CHECK(crowded);
	/* rule off (window 0), or no coarse rate (mult 1): never quiet-coarse */
	CHECK_EQ_U64(quiet_run(2000, NULL, 0, 3, 0, NULL), 0);
	crowded = false;
	CHECK(!rt_rate_decide(&crowded, 3, 2, 1, 5000, RT_CROWD_WARMUP, 0, 512));
	/* quiet with unknown CPUs still thins (the quiet rule needs no count) */
	crowded = false;
	CHECK(rt_rate_decide(&crowded, 3, 0, 2, 5000, RT_CROWD_WARMUP, 0, 512));
	CHECK(!crowded);
}

/* The heavily crowded level (Session 11, from = 2): an OpenMP team of 8 on
   2 CPUs goes to level 2 after the warm-up, a team of 4 (and the accuracy
   suite's -t 4: main + 4 workers = 5 live) stays at level 1, the edge at
   exactly 2 x CPUs + 1 keeps what it has, and the level's multiplier. From
   Session 14 (from = 1, the default) every crowded process goes to level
   2. */
static uint32_t levels_from(const uint32_t *live, int n, uint32_t ncpu, uint32_t heavy, uint32_t from,
                            uint64_t samples, uint32_t *out)
{
	uint32_t lv = 0;
	bool crowded = false;

	for (int i = 0; i < n; i++)
		out[i] = lv = rt_rate_level(lv, &crowded, live[i], ncpu, 2, heavy, from, samples, RT_CROWD_WARMUP,
		                            samples, 2048);
	return lv;
}

static uint32_t levels(const uint32_t *live, int n, uint32_t ncpu, uint32_t heavy, uint64_t samples, uint32_t *out)
{
	return levels_from(live, n, ncpu, heavy, 2, samples, out);
}

static void heavy(void)
{
	uint32_t st[16];
	/* main, a team of 8 on 2 CPUs, the team ends */
	static const uint32_t team8[] = { 1, 2, 4, 6, 8, 6, 5, 4, 3, 2, 1 };
	static const uint32_t want8[] = { 0, 0, 1, 2, 2, 2, 2, 1, 1, 0, 0 };
	/* the accuracy suite at 2x: main + 4 workers */
	static const uint32_t suite[] = { 1, 2, 3, 4, 5, 4, 3, 2, 1 };
	static const uint32_t wantsuite[] = { 0, 0, 0, 1, 1, 1, 1, 0, 0 };
	/* a generation hovering at 5 and 6 on 2 CPUs: heavy once at 6, stays
	   at 5, coarse at 4 */
	static const uint32_t edge[] = { 5, 6, 5, 6, 5, 4, 5, 6 };
	static const uint32_t wantedge[] = { 1, 2, 2, 2, 2, 1, 1, 2 };

	levels(team8, 11, 2, 2, 1000, st);
	for (int i = 0; i < 11; i++)
		CHECK_MSG(st[i] == want8[i], "team of 8, step %d: level %u", i, st[i]);
	levels(suite, 9, 2, 2, 1000, st);
	for (int i = 0; i < 9; i++)
		CHECK_MSG(st[i] == wantsuite[i], "suite at 2x, step %d: level %u", i, st[i]);
	levels(edge, 8, 2, 2, 1000, st);
	for (int i = 0; i < 8; i++)
		CHECK_MSG(st[i] == wantedge[i], "edge, step %d: level %u", i, st[i]);
	/* the warm-up holds for the heavy level too */
	levels(team8, 11, 2, 2, 100, st);
	for (int i = 0; i < 11; i++)
		CHECK_MSG(st[i] == 0, "team of 8 in its warm-up, step %d: level %u", i, st[i]);
	/* heavy 1 (off): the team of 8 stays at the coarse level */
	levels(team8, 11, 2, 1, 1000, st);
	for (int i = 0; i < 11; i++)
		CHECK_MSG(st[i] == (want8[i] ? 1u : 0u), "heavy off, step %d: level %u", i, st[i]);
	/* 8 threads on 64 CPUs: not even crowded */
	{
		bool c = false;

		CHECK_EQ_U64(rt_rate_level(0, &c, 8, 64, 2, 2, 2, 1000, 500, 1000, 2048), 0);
		c = false;
		CHECK_EQ_U64(rt_rate_level(0, &c, 130, 64, 2, 2, 2, 1000, 500, 1000, 2048), 2);
		/* quiet alone (not crowded) never goes past level 1 */
		c = false;
		CHECK_EQ_U64(rt_rate_level(2, &c, 3, 2, 2, 2, 1, 5000, 500, 0, 2048), 1);
		CHECK(!c);
	}
	/* from = 1 (the default): the suite's 2x shape and a team of 4 on 2
	   CPUs go to level 2 once crowded; back to level 1 at CPUs + 1 only
	   from level 1 (the crowded rule's edge keeps what it has), fine at
	   CPUs or fewer; 0 counts as 1; the warm-up holds */
	{
		static const uint32_t wantsuite1[] = { 0, 0, 0, 2, 2, 2, 2, 0, 0 };
		static const uint32_t team4[] = { 1, 2, 3, 4, 5, 3, 4, 3, 2, 1 };
		static const uint32_t want4[] = { 0, 0, 0, 2, 2, 2, 2, 2, 0, 0 };

		levels_from(suite, 9, 2, 2, 1, 1000, st);
		for (int i = 0; i < 9; i++)
			CHECK_MSG(st[i] == wantsuite1[i], "from 1, suite at 2x, step %d: level %u", i, st[i]);
		levels_from(team4, 10, 2, 2, 1, 1000, st);
		for (int i = 0; i < 10; i++)
			CHECK_MSG(st[i] == want4[i], "from 1, team of 4, step %d: level %u", i, st[i]);
		levels_from(suite, 9, 2, 2, 0, 1000, st);
		for (int i = 0; i < 9; i++)
			CHECK_MSG(st[i] == wantsuite1[i], "from 0, suite at 2x, step %d: level %u", i, st[i]);
		levels_from(team8, 11, 2, 2, 1, 100, st);
		for (int i = 0; i < 11; i++)
			CHECK_MSG(st[i] == 0, "from 1, in its warm-up, step %d: level %u", i, st[i]);
		/* heavy 1 (off): crowded is level 1 whatever from says */
		levels_from(suite, 9, 2, 1, 1, 1000, st);
		for (int i = 0; i < 9; i++)
			CHECK_MSG(st[i] == (wantsuite1[i] ? 1u : 0u), "from 1, heavy off, step %d: level %u", i, st[i]);
		CHECK_EQ_U64(rt_rate_parse_heavy_from(NULL), RT_CROWD_HEAVY_FROM_DEFAULT);
		CHECK_EQ_U64(RT_CROWD_HEAVY_FROM_DEFAULT, 1);
		CHECK_EQ_U64(rt_rate_parse_heavy_from("2"), 2);
		CHECK_EQ_U64(rt_rate_parse_heavy_from("0"), 0);
		CHECK_EQ_U64(rt_rate_parse_heavy_from("65"), 0);
	}
	/* the multipliers */
	CHECK_EQ_U64(rt_rate_level_mult(0, 2, 2), 1);
	CHECK_EQ_U64(rt_rate_level_mult(1, 2, 2), 2);
	CHECK_EQ_U64(rt_rate_level_mult(2, 2, 2), 4);
	CHECK_EQ_U64(rt_rate_level_mult(2, 2, 1), 2);
	CHECK_EQ_U64(rt_rate_level_mult(2, 1, 4), 1);
	CHECK_EQ_U64(rt_rate_level_mult(2, 3, 4), 12);
	CHECK_EQ_U64(rt_rate_cookie_mult(rt_rate_cookie(0xab00000000000000ull, rt_rate_level_mult(2, RT_CROWD_MULT_MAX,
	                                                                                            RT_CROWD_MULT_MAX))),
	             RT_CROWD_MULT_MAX * RT_CROWD_MULT_MAX);
	/* the option */
	CHECK_EQ_U64(rt_rate_parse_heavy(NULL), RT_CROWD_HEAVY_DEFAULT);
	CHECK_EQ_U64(rt_rate_parse_heavy(""), RT_CROWD_HEAVY_DEFAULT);
	CHECK_EQ_U64(rt_rate_parse_heavy("1"), 1);
	CHECK_EQ_U64(rt_rate_parse_heavy("4"), 4);
	CHECK_EQ_U64(rt_rate_parse_heavy("0"), 0);
	CHECK_EQ_U64(rt_rate_parse_heavy("65"), 0);
	CHECK_EQ_U64(rt_rate_parse_heavy("x"), 0);
}

/* The switching level (level 3): the rate rule with its hysteresis, the
   level it maps, its multiplier and option. */
static void switchy(void)
{
	/* 120,000 switches in 1 s of CPU (LULESH 2x) against 50,000: on */
	CHECK(rt_rate_switchy(false, 120000, 1000000000ull, 50000));
	/* 7,000 (the OpenMP stencil 2x): off, whatever it was */
	CHECK(!rt_rate_switchy(false, 7000, 1000000000ull, 50000));
	CHECK(!rt_rate_switchy(true, 7000, 1000000000ull, 50000));
	/* between half the threshold and it: unchanged */
	CHECK(rt_rate_switchy(true, 30000, 1000000000ull, 50000));
	CHECK(!rt_rate_switchy(false, 30000, 1000000000ull, 50000));
	/* exactly at the threshold or at its half: unchanged */
	CHECK(!rt_rate_switchy(false, 50000, 1000000000ull, 50000));
	CHECK(rt_rate_switchy(true, 25000, 1000000000ull, 50000));
	/* rate 0: off; no CPU time: unchanged; a huge count does not overflow */
	CHECK(!rt_rate_switchy(true, 1000000, 1000000000ull, 0));
	CHECK(rt_rate_switchy(true, 0, 0, 50000));
	CHECK(!rt_rate_switchy(false, 5, 0, 50000));
	CHECK(!rt_rate_switchy(false, UINT64_MAX, 1, 50000));
	/* ... or by the user rate since the crowding (HPCRUN_COMM_SWITCHY_USER_RATE,
	   Session 27): LULESH 2x at the fine period, 70,000 a CPU second in
	   the window but 480,000 switches over 2.3 s of user time: on */
	CHECK(rt_rate_switchy_user(false, 70000, 1000000000ull, 75000, 480000, 2300000000ull, 150000));
	CHECK(!rt_rate_switchy_user(false, 70000, 1000000000ull, 75000, 480000, 2300000000ull, 0));
	/* ... but not with the window below 2/3 of its threshold (mw_cond -O2's
	   system-time regime: 44,000 a CPU second) */
	CHECK(!rt_rate_switchy_user(false, 44000, 1000000000ull, 75000, 480000, 700000000ull, 150000));
	CHECK(rt_rate_switchy_user(false, 51000, 1000000000ull, 75000, 480000, 700000000ull, 150000));
	/* halo_bar -O0 -t 4: 45,000 over 0.55 s of user time (82,000): off */
	CHECK(!rt_rate_switchy_user(false, 60000, 1000000000ull, 75000, 45000, 550000000ull, 150000));
	/* the window's rate alone still turns it on */
	CHECK(rt_rate_switchy_user(false, 80000, 1000000000ull, 75000, 45000, 550000000ull, 150000));
	/* on: kept while either rate is at half its threshold or above */
	CHECK(rt_rate_switchy_user(true, 10000, 1000000000ull, 75000, 80000, 1000000000ull, 150000));
	CHECK(rt_rate_switchy_user(true, 40000, 1000000000ull, 75000, 10000, 1000000000ull, 150000));
	CHECK(!rt_rate_switchy_user(true, 10000, 1000000000ull, 75000, 70000, 1000000000ull, 150000));
	/* no user time yet (no baseline): the window's rule alone */
	CHECK(!rt_rate_switchy_user(false, 70000, 1000000000ull, 75000, 0, 0, 150000));
	CHECK(rt_rate_switchy_user(true, 40000, 1000000000ull, 75000, 0, 0, 150000));
	CHECK(!rt_rate_switchy_user(false, 5, 1000000000ull, 75000, UINT64_MAX, 1, 150000));
	/* the level: only the heavy one becomes 3, only with the event */
	CHECK_EQ_U64(rt_rate_level_switchy(2, true, 4), 3);
	CHECK_EQ_U64(rt_rate_level_switchy(2, false, 4), 2);
	CHECK_EQ_U64(rt_rate_level_switchy(2, true, 1), 2);
	CHECK_EQ_U64(rt_rate_level_switchy(1, true, 4), 1);
	CHECK_EQ_U64(rt_rate_level_switchy(0, true, 4), 0);
	/* the switching rule in the warm-up (HPCRUN_COMM_SWITCHY_WARMUP):
	   a process found switching ends it, otherwise it stays */
	CHECK_EQ_U64(rt_rate_warmup_left(500, true, true), 0);
	CHECK_EQ_U64(rt_rate_warmup_left(500, true, false), 500);
	CHECK_EQ_U64(rt_rate_warmup_left(500, false, true), 500);
	{
		bool crowded = false;

		/* 5 threads on 2 CPUs, 64 samples: fine in the warm-up, level 3
		   once it ended early */
		CHECK_EQ_U64(rt_rate_level_switchy(rt_rate_level(0, &crowded, 5, 2, 2, 2, 1, 64,
		                                                 rt_rate_warmup_left(500, false, true), 0, 0),
		                                   true, 4), 0);
		crowded = false;
		CHECK_EQ_U64(rt_rate_level_switchy(rt_rate_level(0, &crowded, 5, 2, 2, 2, 1, 64,
		                                                 rt_rate_warmup_left(500, true, true), 0, 0),
		                                   true, 4), 3);
	}
	/* when to look: every `every` samples at levels 2-3; before them only
	   in the warm-up of a crowded process, from sample `from` on */
	CHECK(rt_rate_switchy_look(64, 2, true, 0, 500, 64));
	CHECK(rt_rate_switchy_look(128, 3, false, 256, 500, 64));
	CHECK(rt_rate_switchy_look(640, 2, true, 256, 500, 64));
	CHECK(!rt_rate_switchy_look(65, 2, true, 64, 500, 64));
	CHECK(!rt_rate_switchy_look(64, 0, true, 0, 500, 64));
	CHECK(rt_rate_switchy_look(64, 0, true, 64, 500, 64));
	CHECK(!rt_rate_switchy_look(192, 1, true, 256, 500, 64));
	CHECK(rt_rate_switchy_look(256, 0, true, 256, 500, 64));
	CHECK(rt_rate_switchy_look(448, 1, true, 256, 500, 64));
	CHECK(!rt_rate_switchy_look(512, 1, true, 256, 500, 64));
	CHECK(!rt_rate_switchy_look(256, 0, false, 256, 500, 64));
	CHECK(!rt_rate_switchy_look(64, 2, true, 64, 500, 0));
	/* its multiplier: x16 at the defaults; the levels below unchanged;
	   saturating at the cookie's mask */
	CHECK_EQ_U64(rt_rate_level_mult3(3, 2, 2, 4), 16);
	CHECK_EQ_U64(rt_rate_level_mult3(2, 2, 2, 4), 4);
	CHECK_EQ_U64(rt_rate_level_mult3(1, 2, 2, 4), 2);
	CHECK_EQ_U64(rt_rate_level_mult3(0, 2, 2, 4), 1);
	CHECK_EQ_U64(rt_rate_level_mult3(3, 2, 2, 1), 4);
	CHECK_EQ_U64(rt_rate_level_mult3(3, 64, 64, 64), RT_RATE_MULT_MASK);
	CHECK_EQ_U64(rt_rate_cookie_mult(rt_rate_cookie(0xab00000000000000ull, rt_rate_level_mult3(3, 2, 2, 4))), 16);
	/* the option */
	CHECK_EQ_U64(rt_rate_parse_switchy(NULL), RT_SWITCHY_DEFAULT);
	CHECK_EQ_U64(rt_rate_parse_switchy("1"), 1);
	CHECK_EQ_U64(rt_rate_parse_switchy("8"), 8);
	CHECK_EQ_U64(rt_rate_parse_switchy("0"), 0);
}

/* The switching level through the tick (Session 17): the clock ids the
   kernel's MAKE_THREAD_CPUCLOCK gives, the interval, the hand-over rule. */
static void tick(void)
{
	int64_t sec, nsec;

	/* the calling thread's user-time clock: ~0 << 3 | 4 | 1 */
	CHECK_EQ_U64((uint64_t)(int64_t)rt_tick_clockid(0), (uint64_t)(int64_t)-3);
	/* CLOCK_THREAD_CPUTIME_ID's pattern with VIRT instead of SCHED (2) */
	CHECK_EQ_U64((uint64_t)(rt_tick_clockid(0) & 7), 5);
	CHECK_EQ_U64((uint64_t)(int64_t)(~(rt_tick_clockid(1234) >> 3)), 1234);
	rt_tick_interval(8000000, &sec, &nsec);
	CHECK_EQ_U64((uint64_t)sec, 0);
	CHECK_EQ_U64((uint64_t)nsec, 8000000);
	rt_tick_interval(2500000000ull, &sec, &nsec);
	CHECK_EQ_U64((uint64_t)sec, 2);
	CHECK_EQ_U64((uint64_t)nsec, 500000000);
	/* the table's words: a thread without a timer, with timer 0, with the
	   largest id; never 0 for a live thread */
	CHECK_EQ_U64(rt_tick_word_tid(rt_tick_word(4242, -1)), 4242);
	CHECK_EQ_U64((uint64_t)(int64_t)rt_tick_word_id(rt_tick_word(4242, -1)), (uint64_t)(int64_t)-1);
	CHECK_EQ_U64((uint64_t)rt_tick_word_id(rt_tick_word(4242, 0)), 0);
	CHECK_EQ_U64((uint64_t)rt_tick_word_id(rt_tick_word(1, 0x7ffffffe)), 0x7ffffffe);
	CHECK_EQ_U64(rt_tick_word_tid(rt_tick_word(0xfffffffeu, 7)), 0xfffffffeu);
	CHECK(rt_tick_word(1, -1) != 0);
}

int main(void)
{
	rule();
	tick();
	switchy();
	quiet();
	heavy();
	cookies();
	weights();
	parse();
	accounting();
	return hc_test_done("test_rate");
}
