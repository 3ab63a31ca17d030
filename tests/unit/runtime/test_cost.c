/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cost.c — cost.h: the per-mechanism cost histograms (add, merge,
   quantiles, mean) and the watchpoints' context-switch gate on synthetic
   getrusage figures: a thread that never switches is allowed, one that
   switches once per 70 µs of CPU (an oversubscribed OpenMP barrier) is
   refused, the verdict follows a change of behaviour within two windows,
   counters that go back restart the gate, the charge follows whether the
   process is crowded (switch_ns) or not (other_ns), and switch_ns 0 turns
   it off. */
#include <stdint.h>
#include <string.h>

#include "runtime/cost.h"
#include "hc_test.h"

static void histograms(void)
{
	struct rt_cost_hist a, b;
	struct rt_cost_total t;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	memset(&t, 0, sizeof t);
	CHECK_EQ_U64(rt_cost_quantile(&t, 0.5), 0);
	for (int i = 0; i < 99; i++)
		rt_cost_add(&a, 1000);                 /* 99 x 1 µs */
	rt_cost_add(&b, 100000);                   /* one 100 µs outlier */
	rt_cost_merge(&t, &a);
	rt_cost_merge(&t, &b);
	CHECK_EQ_U64(t.n, 100);
	CHECK_EQ_U64(t.sum_ns, 99 * 1000 + 100000);
	/* the median lies in 1 µs's bucket (within its quarter octave) */
	CHECK(rt_cost_quantile(&t, 0.5) >= 896 && rt_cost_quantile(&t, 0.5) <= 1152);
	CHECK(rt_cost_quantile(&t, 0.999) >= 90000 && rt_cost_quantile(&t, 0.999) <= 115000);
	/* the mean sees the outlier, the median does not */
	CHECK_EQ_U64(t.sum_ns / t.n, 1990);
	/* overflow: reported as the last bucket's lower bound */
	memset(&a, 0, sizeof a);
	memset(&t, 0, sizeof t);
	rt_cost_add(&a, UINT64_C(1) << 40);
	rt_cost_merge(&t, &a);
	CHECK_EQ_U64(rt_cost_quantile(&t, 0.5), hc_hist_low(HC_HIST_BUCKETS));
	CHECK_EQ_U64(hc_hist_bucket(12345), hc_hist_bucket(12345));
	for (uint64_t ns = 8; ns < (1u << 20); ns += ns / 7) {
		unsigned k = hc_hist_bucket(ns);
		CHECK(ns >= hc_hist_low(k) && ns < hc_hist_low(k) + hc_hist_width(k));
	}
}

static void gate(void)
{
	struct rt_switch_gate g;
	uint64_t cpu = 0, sw = 0;
	int allowed = 0;

	/* never switches: allowed from the start, and stays so */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	CHECK(rt_switch_gate_allows(&g, 0, 0));
	for (cpu = 500000; cpu < 200000000; cpu += 500000)
		CHECK(rt_switch_gate_allows(&g, cpu, 0));

	/* one switch per 70 µs of CPU: 10 µs each is 14 % > 3 %: refused at
	   its first sample (500 µs, 7 switches) and later */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	for (cpu = 500000; cpu < 200000000; cpu += 500000)
		allowed += rt_switch_gate_allows(&g, cpu, cpu / 70000);
	CHECK_EQ_U64(allowed, 0);

	/* one switch per 1 ms of CPU (a barrier per sweep at threads = CPUs):
	   1 % < 3 %: allowed once a window (20 ms) has shown it, and before
	   that only while it had not switched yet (its first ms) */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	allowed = 0;
	for (cpu = 500000; cpu < 200000000; cpu += 500000) {
		bool ok = rt_switch_gate_allows(&g, cpu, cpu / 1000000);
		CHECK_MSG(ok == (cpu < 1000000 || cpu >= 20000000), "cpu %llu: %d", (unsigned long long)cpu, ok);
		allowed += ok;
	}
	CHECK_EQ_U64(allowed, 1 + 360);

	/* just over and just under the budget: 3 % = one 10 µs switch per
	   333 µs */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	CHECK(!rt_switch_gate_allows(&g, 30000000, 91));
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	CHECK(rt_switch_gate_allows(&g, 30000000, 90));
	/* a young thread with a few switches: not yet */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	CHECK(!rt_switch_gate_allows(&g, 5000000, 1));

	/* behaviour changes: a serial phase (allowed), then a blocking phase:
	   refused within two windows (40 ms of CPU); back to no switches:
	   allowed again within two windows */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	sw = 0;
	for (cpu = 0; cpu < 100000000; cpu += 500000)
		CHECK(rt_switch_gate_allows(&g, cpu, sw));
	for (; cpu < 140000000; cpu += 500000)
		sw += 7, (void)rt_switch_gate_allows(&g, cpu, sw);
	CHECK(!rt_switch_gate_allows(&g, cpu, sw));
	for (uint64_t end = cpu + 40500000; cpu < end; cpu += 500000)
		(void)rt_switch_gate_allows(&g, cpu, sw);
	CHECK(rt_switch_gate_allows(&g, cpu, sw));

	/* counters that go back (a recycled record): start over */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	CHECK(!rt_switch_gate_allows(&g, 1000000, 100));
	CHECK(rt_switch_gate_allows(&g, 500000, 0));

	/* a crowded process (an oversubscribed team): a thread that has not
	   switched yet waits for a window's evidence; with no switches in
	   it, allowed; a barrier-bound thread (one switch per 70 µs) never */
	CHECK(rt_switch_crowded(4, 2));
	CHECK(!rt_switch_crowded(3, 2));
	CHECK(!rt_switch_crowded(100, 0));
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	CHECK(!rt_switch_gate_allows_in(&g, 500000, 0, true));
	CHECK(!rt_switch_gate_allows_in(&g, 19500000, 0, true));
	CHECK(rt_switch_gate_allows_in(&g, 20000000, 0, true));
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	allowed = 0;
	for (cpu = 500000; cpu < 200000000; cpu += 500000)
		allowed += rt_switch_gate_allows_in(&g, cpu, cpu < 700000 ? 0 : cpu / 70000, true);
	CHECK_EQ_U64(allowed, 0);
	/* a crowded team member that blocks once per 150 µs of CPU on average
	   but now and then goes quiet for two windows (its partners ran on
	   the other CPU): the recent windows alone would open it (the 2x
	   OpenMP stencil, performance.md "Session 9"); its life's switches
	   keep it refused. The same history in a process that is not
	   crowded opens after the quiet windows. */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	sw = 0;
	for (cpu = 500000; cpu <= 200000000; cpu += 500000) {
		sw += 3;
		CHECK(!rt_switch_gate_allows_in(&g, cpu, sw, true));
	}
	for (uint64_t end = cpu + 40500000; cpu < end; cpu += 500000)
		(void)rt_switch_gate_allows_in(&g, cpu, sw, true);
	CHECK(!rt_switch_gate_allows_in(&g, cpu, sw, true));
	CHECK(rt_switch_gate_allows_in(&g, cpu, sw, false));
	/* ... and once its life's average is within the budget (3 % at 10 µs:
	   one switch per 333 µs), a crowded process opens it too: 1,200
	   switches need 400 ms of CPU */
	CHECK_EQ_U64(sw, 1200);
	CHECK(!rt_switch_gate_allows_in(&g, 399500000, sw, true));
	CHECK(rt_switch_gate_allows_in(&g, 400000000, sw, true));
	/* a master that sets up alone for 20 ms (no switches), then enters its
	   team's barriers (52 switches in 2.4 ms): the two windows together
	   are within the budget (520 µs of 22.4 ms), the current one is not
	   — refused in a crowded process (as it was before in one that is
	   not); a steady thread at 80 % of the budget (one switch per 420 µs)
	   is never refused for its young window */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	CHECK(rt_switch_gate_allows_in(&g, 20000000, 0, false));
	CHECK(!rt_switch_gate_allows_in(&g, 22400000, 52, true));
	CHECK(rt_switch_gate_allows_in(&g, 22400000, 52, false));
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	for (cpu = 500000; cpu < 100000000; cpu += 500000)
		if (cpu >= 20000000)
			CHECK_MSG(rt_switch_gate_allows_in(&g, cpu, cpu / 420000, true), "cpu %llu",
			          (unsigned long long)cpu);
	/* the same thread in a process that is not crowded: allowed at its
	   first sample (it had not switched), which is what opened the
	   breakpoint events of OpenMP workers before */
	rt_switch_gate_init(&g, 10000, 10000, 30, 20000000);
	CHECK(rt_switch_gate_allows_in(&g, 500000, 0, false));

	/* two charges: 10 µs per switch in a crowded process (siblings),
	   3 µs in one that is not (idle, other programs). One switch per
	   200 µs of CPU: 5 % crowded (refused), 1.5 % not (allowed once a
	   window has shown it); the same thread refused again when its
	   process becomes crowded (the window's switches at the crowded
	   charge) */
	rt_switch_gate_init(&g, 10000, 3000, 30, 20000000);
	allowed = 0;
	for (cpu = 500000; cpu < 100000000; cpu += 500000)
		allowed += rt_switch_gate_allows_in(&g, cpu, cpu / 200000, true);
	CHECK_EQ_U64(allowed, 0);
	rt_switch_gate_init(&g, 10000, 3000, 30, 20000000);
	CHECK(!rt_switch_gate_allows_in(&g, 10000000, 50, false));     /* half a window */
	CHECK(rt_switch_gate_allows_in(&g, 20000000, 100, false));
	CHECK(!rt_switch_gate_allows_in(&g, 20000000, 100, true));
	/* the budget's edge at 3 µs: 3 % of 30 ms = 300 switches */
	rt_switch_gate_init(&g, 10000, 3000, 30, 20000000);
	CHECK(rt_switch_gate_allows_in(&g, 30000000, 300, false));
	rt_switch_gate_init(&g, 10000, 3000, 30, 20000000);
	CHECK(!rt_switch_gate_allows_in(&g, 30000000, 301, false));
	/* a yield-bound thread (one switch per 20 µs: spsc on a loaded
	   machine) is refused at either charge */
	rt_switch_gate_init(&g, 10000, 3000, 30, 20000000);
	allowed = 0;
	for (cpu = 500000; cpu < 100000000; cpu += 500000)
		allowed += rt_switch_gate_allows_in(&g, cpu, cpu / 20000, false);
	CHECK_EQ_U64(allowed, 0);
	/* other_ns 0 with switch_ns set: an uncrowded process is not gated,
	   a crowded one is */
	rt_switch_gate_init(&g, 10000, 0, 30, 20000000);
	CHECK(rt_switch_gate_allows_in(&g, 20000000, 1000000, false));
	CHECK(!rt_switch_gate_allows_in(&g, 20000000, 1000000, true));

	/* switch_ns 0: the gate is off */
	rt_switch_gate_init(&g, 0, 10000, 30, 20000000);
	CHECK(rt_switch_gate_allows(&g, 1000, 1000000));
}

/* The preempted-thread rule (HPCRUN_COMM_ARM_SHARE): a 500-us period that
   took 1.2 ms of wall time is a 42 % share. */
static void share(void)
{
	CHECK(rt_share_low(1000000, 2200000, 50, 500000));
	CHECK(!rt_share_low(1000000, 2200000, 40, 500000));
	CHECK(!rt_share_low(1000000, 1500000, 100, 500000));   /* exactly a whole CPU */
	CHECK(rt_share_low(1000000, 1500001, 100, 500000));
	CHECK(!rt_share_low(0, 2200000, 50, 500000));          /* no previous sample */
	CHECK(!rt_share_low(1000000, 900000, 50, 500000));     /* clock went back */
	CHECK(!rt_share_low(1000000, 9000000, 0, 500000));     /* off */
	CHECK(rt_share_low(1, UINT64_MAX, 1, 500000));         /* no overflow */
}

/* Hand-off sets open a gated thread's registers (HPCRUN_COMM_HANDOFF_UNGATED),
   in a crowded process at most `cap` threads (..._UNGATED_CROWDED). */
static void handoff_opens(void)
{
	CHECK(rt_handoff_opens(true, 0, false, 5));     /* not crowded: opens, whatever the count */
	CHECK(!rt_handoff_opens(true, 0, true, 0));     /* crowded, cap 0: asks the gate */
	CHECK(rt_handoff_opens(true, 1, true, 0));      /* crowded, the first thread */
	CHECK(!rt_handoff_opens(true, 1, true, 1));     /* ... not the second */
	CHECK(rt_handoff_opens(true, 4, true, 3));
	CHECK(!rt_handoff_opens(false, 4, false, 0));   /* UNGATED=0: never */
	CHECK(!rt_handoff_opens(false, 4, true, 0));
	CHECK(rt_handoff_opens(true, RT_HANDOFF_UNGATED_CROWDED_DEFAULT, true, 1000));   /* the default: no cap */
}

int main(void)
{
	share();
	handoff_opens();
	histograms();
	gate();
	return hc_test_done("test_cost");
}
