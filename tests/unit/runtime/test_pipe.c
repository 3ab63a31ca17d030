/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pipe.c — pipe.h, the stride of a pipeline's stores (doc/detection.md
   §5.18), on synthetic address streams: a flag array's rows sampled out of
   order (samples of different iterations) give the row stride; the same
   address again teaches nothing; a distance within a line starts the
   learning again; another object far away resets it; the prediction is
   one stride on; a reader's load is on the sequence only at the stores'
   offset within a stride and within the span they covered; what a set
   stands for: one row until a reader was seen waiting on the sequence,
   then the rows it spans (a lock array taken at random is no pipeline);
   a restart of the learning forgets the waits. */
#include <stdint.h>

#include "runtime/pipe.h"
#include "hc_test.h"

#define BASE 0x7f0000000040ull
#define ROW  256ull               /* 4 workers' flags of one row, a line each */

static void gcd(void)
{
	CHECK(rt_pipe_gcd(768, 1024) == 256);
	CHECK(rt_pipe_gcd(256, 0) == 256);
	CHECK(rt_pipe_gcd(0, 64) == 64);
	CHECK(rt_pipe_gcd(16000, 48000) == 16000);
}

static void learn(void)
{
	struct rt_pipe_seq q;

	rt_pipe_start(&q, 2, 0x401000, BASE + 7 * ROW, 1);
	CHECK(q.pc == 0x401000 && q.thread == 2 && q.stride == 0 && !rt_pipe_ready(&q));
	rt_pipe_note(&q, BASE + 7 * ROW, 2);           /* the same store again: nothing */
	CHECK(q.stride == 0 && q.diffs == 0 && q.time == 2);
	rt_pipe_note(&q, BASE + 19 * ROW, 3);          /* 12 rows on */
	CHECK(q.stride == 12 * ROW && q.diffs == 1 && !rt_pipe_ready(&q));
	rt_pipe_note(&q, BASE + 3 * ROW, 4);           /* 16 rows back (another iteration) */
	CHECK(q.stride == 4 * ROW && q.diffs == 2 && rt_pipe_ready(&q));
	rt_pipe_note(&q, BASE + 1994 * ROW, 5);        /* 1991 rows on: gcd 1 row */
	CHECK(q.stride == ROW && q.diffs == 3 && rt_pipe_ready(&q));
	CHECK(q.lo == BASE + 3 * ROW && q.hi == BASE + 1994 * ROW && q.last == BASE + 1994 * ROW);
	CHECK(rt_pipe_next(&q, BASE + 5 * ROW) == BASE + 6 * ROW);
	CHECK(q.waits == 0 && rt_pipe_stands(&q) == 1);     /* no reader's wait seen: one row */
	rt_pipe_waited(&q);
	CHECK(q.waits == 1 && rt_pipe_stands(&q) == 1992);
}

static void restart(void)
{
	struct rt_pipe_seq q;

	rt_pipe_start(&q, 1, 0x401000, BASE, 1);
	rt_pipe_note(&q, BASE + 2 * ROW, 2);
	rt_pipe_note(&q, BASE + 6 * ROW, 3);
	CHECK(rt_pipe_ready(&q) && q.stride == 2 * ROW);
	/* a distance within a line (two fields of one record): no row; the
	   learning starts again from that distance */
	rt_pipe_note(&q, BASE + 6 * ROW + 8, 4);
	CHECK(!rt_pipe_ready(&q) && q.stride == 8 && q.diffs == 1);
	CHECK(q.lo == BASE + 6 * ROW && q.hi == BASE + 6 * ROW + 8);
	rt_pipe_note(&q, BASE + 9 * ROW + 8, 5);       /* gcd(8, 3 rows) = 8 < a line: again */
	CHECK(!rt_pipe_ready(&q) && q.stride == 3 * ROW && q.diffs == 1);
	rt_pipe_note(&q, BASE + 12 * ROW + 8, 6);
	CHECK(rt_pipe_ready(&q) && q.stride == 3 * ROW);
	/* another object, farther than any pipeline reaches: reset */
	rt_pipe_note(&q, BASE + (1ull << 40), 7);
	CHECK(!rt_pipe_ready(&q) && q.stride == 0 && q.diffs == 0 && q.lo == BASE + (1ull << 40));
	/* strides too wide are no pipeline */
	rt_pipe_start(&q, 1, 0x401000, BASE, 1);
	rt_pipe_note(&q, BASE + 4 * (uint64_t)RT_PIPE_MAX_STRIDE, 2);
	rt_pipe_note(&q, BASE + 6 * (uint64_t)RT_PIPE_MAX_STRIDE, 3);
	CHECK(q.diffs == 2 && !rt_pipe_ready(&q));
	/* a free slot (pc 0) never predicts */
	q.pc = 0;
	CHECK(!rt_pipe_ready(&q) && !rt_pipe_on(&q, BASE) && rt_pipe_stands(&q) == 1);
}

static void on(void)
{
	struct rt_pipe_seq q;

	rt_pipe_start(&q, 0, 0x401000, BASE + 10 * ROW, 1);
	CHECK(!rt_pipe_on(&q, BASE + 10 * ROW));       /* no stride yet */
	rt_pipe_note(&q, BASE + 30 * ROW, 2);
	rt_pipe_note(&q, BASE + 20 * ROW, 3);
	CHECK(rt_pipe_ready(&q) && q.stride == 10 * ROW);
	/* the reader's load of the word stored, any row of the span, one
	   stride either side, any byte of its 8-byte chunk */
	CHECK(rt_pipe_on(&q, BASE + 10 * ROW));
	CHECK(rt_pipe_on(&q, BASE + 20 * ROW + 4));
	CHECK(rt_pipe_on(&q, BASE + 0 * ROW));
	CHECK(rt_pipe_on(&q, BASE + 40 * ROW));
	CHECK(!rt_pipe_on(&q, BASE + 50 * ROW));       /* beyond the span */
	CHECK(!rt_pipe_on(&q, BASE + 20 * ROW + 64));  /* the next worker's flag */
	CHECK(!rt_pipe_on(&q, BASE + 25 * ROW));       /* not a multiple of the stride */
	CHECK(!rt_pipe_on(&q, BASE - 64));             /* below the span */
	CHECK(rt_pipe_stands(&q) == 1);
	rt_pipe_waited(&q);
	CHECK(rt_pipe_stands(&q) == 3);
}

static void stands_cap(void)
{
	struct rt_pipe_seq q;

	rt_pipe_start(&q, 0, 0x401000, BASE, 1);
	rt_pipe_note(&q, BASE + 64 * 10000, 2);
	rt_pipe_note(&q, BASE + 64 * 5000, 3);
	CHECK(rt_pipe_ready(&q) && q.stride == 64 * 5000);
	rt_pipe_note(&q, BASE + 64 * 5001, 4);
	rt_pipe_waited(&q);
	CHECK(q.stride == 64 && rt_pipe_stands(&q) == RT_PIPE_STAND_MAX);
}

/* The bound: strided xchg stores with no reader's wait (an array of
   test-and-set locks, 64 B apart, taken at random: libcuckoo's striped
   spinlocks) weigh one row however wide their span; a wait makes the
   rows count; a restart of the learning (a distance within a line: two
   fields of one record) or another object forgets the wait. */
static void stands_bound(void)
{
	struct rt_pipe_seq q;
	static const uint64_t locks[] = { 811, 17, 2990, 1203, 64, 3333, 5 };

	rt_pipe_start(&q, 1, 0x402000, BASE + 400 * 64, 1);
	for (unsigned i = 0; i < sizeof(locks) / sizeof(locks[0]); i++)
		rt_pipe_note(&q, BASE + locks[i] * 64, 2 + i);
	CHECK(rt_pipe_ready(&q) && q.stride == 64);
	CHECK(q.hi - q.lo == (3333 - 5) * 64ull);
	CHECK(rt_pipe_stands(&q) == 1);                 /* 3329 rows spanned, no wait: 1 */
	rt_pipe_waited(&q);
	CHECK(rt_pipe_stands(&q) == 3329);
	rt_pipe_note(&q, BASE + 5 * 64 + 8, 20);        /* 8 B on: the learning restarts */
	CHECK(q.waits == 0 && rt_pipe_stands(&q) == 1);
	rt_pipe_note(&q, BASE + 5 * 64 + 8 + 128, 21);
	rt_pipe_note(&q, BASE + 5 * 64 + 8 + 512, 22);
	CHECK(rt_pipe_ready(&q) && rt_pipe_stands(&q) == 1);
	rt_pipe_waited(&q);
	CHECK(rt_pipe_stands(&q) == 5);
	rt_pipe_note(&q, BASE + (1ull << 40), 23);      /* another object */
	CHECK(q.waits == 0 && rt_pipe_stands(&q) == 1);
	rt_pipe_start(&q, 1, 0x402000, BASE, 24);       /* a new sequence in the slot */
	CHECK(q.waits == 0);
}

int main(void)
{
	gcd();
	learn();
	restart();
	on();
	stands_cap();
	stands_bound();
	return hc_test_done("test_pipe");
}
