/* SPDX-License-Identifier: BSD-3-Clause */
/* test_loops.c — loop recovery (lib/decode/loops.c) on hand-assembled
   functions whose loop structure is known: two nested loops, one loop
   closed by two back edges (a `continue`), an irreducible cycle entered at
   two places, a rotated loop (its latch block ends without a branch), a
   loop around a jump-table switch (indirect jmp), a function
   without loops, a jump out of the function (tail call) and bytes that stop
   decoding. The bytes are written out with their assembly beside them; the
   expected blocks, headers, latches, nesting and innermost loops are
   checked exactly. */
#include <errno.h>
#include <stdint.h>

#include "decode/loops.h"
#include "hc_test.h"

#define BASE 0x401000u

static void nested(void)
{
	static const uint8_t code[] = {
		0x90,             /* 0: nop            entry            */
		0x90,             /* 1: nop            outer header     */
		0x90,             /* 2: nop            inner header     */
		0x75, 0xfd,       /* 3: jne 2          inner back edge  */
		0x75, 0xfa,       /* 5: jne 1          outer back edge  */
		0xc3,             /* 7: ret                             */
	};
	struct hc_loops l;

	CHECK(hc_loops_find(code, sizeof(code), BASE, &l) == 0);
	CHECK_EQ_U64(l.nb, 5);
	CHECK_EQ_U64(l.nl, 2);
	if (l.nl == 2) {
		CHECK_EQ_U64(l.l[0].head, BASE + 1);      /* parents first */
		CHECK(l.l[0].parent == -1);
		CHECK_EQ_U64(l.l[0].depth, 1);
		CHECK_EQ_U64(l.l[1].head, BASE + 2);
		CHECK(l.l[1].parent == 0);
		CHECK_EQ_U64(l.l[1].depth, 2);
		CHECK(!l.l[0].irreducible && !l.l[1].irreducible);
		CHECK_EQ_U64(l.l[0].nlatch, 1);
		CHECK_EQ_U64(l.latches[l.l[0].first_latch], BASE + 5);
		CHECK_EQ_U64(l.l[1].nlatch, 1);
		CHECK_EQ_U64(l.latches[l.l[1].first_latch], BASE + 3);
		CHECK_EQ_U64(l.l[0].nblocks, 2);          /* [1,2) and [5,7) */
		CHECK_EQ_U64(l.l[1].nblocks, 1);          /* [2,5) */
		CHECK_EQ_U64(l.l[0].nback, 1);            /* the loop control: jne 1 */
		CHECK_EQ_U64(l.backs[l.l[0].first_back], BASE + 5);
		CHECK_EQ_U64(l.l[1].nback, 1);
		CHECK_EQ_U64(l.backs[l.l[1].first_back], BASE + 3);
	}
	CHECK(hc_loops_innermost(&l, BASE + 0) == -1);
	CHECK(hc_loops_innermost(&l, BASE + 1) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 3) == 1);
	CHECK(hc_loops_innermost(&l, BASE + 4) == 1);   /* inside the jne */
	CHECK(hc_loops_innermost(&l, BASE + 6) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 7) == -1);
	CHECK(hc_loops_innermost(&l, BASE + 8) == -1);  /* past the end */
	CHECK(hc_loops_innermost(&l, BASE - 1) == -1);
	hc_loops_free(&l);
}

static void two_back_edges(void)
{
	static const uint8_t code[] = {
		0x90,             /* 0: nop                             */
		0x90,             /* 1: nop            header           */
		0x74, 0x03,       /* 2: je 7                            */
		0x75, 0xfb,       /* 4: jne 1          back edge 1      */
		0x90,             /* 6: nop                             */
		0x75, 0xf8,       /* 7: jne 1          back edge 2      */
		0xc3,             /* 9: ret                             */
	};
	struct hc_loops l;

	CHECK(hc_loops_find(code, sizeof(code), BASE, &l) == 0);
	CHECK_EQ_U64(l.nl, 1);
	if (l.nl == 1) {
		uint64_t a = l.latches[l.l[0].first_latch], b = l.latches[l.l[0].first_latch + 1];
		CHECK_EQ_U64(l.l[0].head, BASE + 1);
		CHECK_EQ_U64(l.l[0].nlatch, 2);
		CHECK((a == BASE + 4 && b == BASE + 7) || (a == BASE + 7 && b == BASE + 4));
		CHECK_EQ_U64(l.l[0].nblocks, 4);
		CHECK(!l.l[0].irreducible);
		CHECK_EQ_U64(l.l[0].nback, 2);    /* jne at 4 (back), jne at 7 (back + exit) */
	}
	CHECK(hc_loops_innermost(&l, BASE + 0) == -1);
	CHECK(hc_loops_innermost(&l, BASE + 6) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 7) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 9) == -1);
	hc_loops_free(&l);
}

static void irreducible(void)
{
	static const uint8_t code[] = {
		0x74, 0x05,       /* 0: je 7           enter at B       */
		0x90,             /* 2: nop        A:  (fall-through)   */
		0x74, 0x05,       /* 3: je 0xa         leave            */
		0xeb, 0x00,       /* 5: jmp 7          A -> B           */
		0x75, 0xf9,       /* 7: jne 2      B:  B -> A           */
		0x90,             /* 9: nop                             */
		0xc3,             /* a: ret                             */
	};
	struct hc_loops l;

	CHECK(hc_loops_find(code, sizeof(code), BASE, &l) == 0);
	CHECK_EQ_U64(l.nb, 6);
	CHECK_EQ_U64(l.nl, 1);
	if (l.nl == 1) {
		CHECK_EQ_U64(l.l[0].nback, 2);    /* je at 3 (exit), jne at 7 (back + exit), not the jmp */
		CHECK(l.l[0].irreducible);
		CHECK_EQ_U64(l.l[0].head, BASE + 2);     /* the search takes fall-through first */
		CHECK_EQ_U64(l.l[0].nblocks, 3);
		CHECK_EQ_U64(l.l[0].depth, 1);
	}
	CHECK(hc_loops_innermost(&l, BASE + 0) == -1);
	CHECK(hc_loops_innermost(&l, BASE + 2) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 5) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 7) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 9) == -1);
	CHECK(hc_loops_innermost(&l, BASE + 0xa) == -1);
	hc_loops_free(&l);
}

/* A reducible loop with an irreducible cycle inside: the outer loop holds
   the inner cycle's blocks. */
static void irreducible_nested(void)
{
	static const uint8_t code[] = {
		0x90,             /* 0: nop            outer header     */
		0x74, 0x05,       /* 1: je 8           enter at B       */
		0x90,             /* 3: nop        A:                   */
		0x74, 0x05,       /* 4: je 0xb                          */
		0xeb, 0x00,       /* 6: jmp 8                           */
		0x75, 0xf9,       /* 8: jne 3      B:  B -> A           */
		0x90,             /* a: nop                             */
		0x75, 0xf3,       /* b: jne 0          outer back edge  */
		0xc3,             /* d: ret                             */
	};
	struct hc_loops l;

	CHECK(hc_loops_find(code, sizeof(code), BASE, &l) == 0);
	CHECK_EQ_U64(l.nl, 2);
	if (l.nl == 2) {
		CHECK_EQ_U64(l.l[0].head, BASE + 0);
		CHECK(!l.l[0].irreducible);
		CHECK(l.l[1].irreducible);
		CHECK(l.l[1].parent == 0);
		CHECK_EQ_U64(l.l[1].head, BASE + 3);
	}
	CHECK(hc_loops_innermost(&l, BASE + 1) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 8) == 1);
	CHECK(hc_loops_innermost(&l, BASE + 0xb) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 0xd) == -1);
	hc_loops_free(&l);
}

/* while (..) switch (x) { case ...: } through a jump table: the cases are
   reached only by the indirect jmp and jump back to the header. */
/* A rotated loop: entered by a jump into its middle, the block that falls
   into the header is its latch (no branch there); the loop control is the
   backward jne at 8 (to the latch block). Its line is the jne's. */
static void rotated(void)
{
	static const uint8_t code[] = {
		0xeb, 0x01,       /* 0: jmp 3          enter at the header */
		0x90,             /* 2: nop        latch block (falls through) */
		0x90,             /* 3: nop        header                  */
		0x90,             /* 4: nop                                */
		0x90,             /* 5: nop                                */
		0x90,             /* 6: nop                                */
		0x90,             /* 7: nop                                */
		0x75, 0xf8,       /* 8: jne 2          loop control        */
		0xc3,             /* a: ret                                */
	};
	struct hc_loops l;

	CHECK(hc_loops_find(code, sizeof(code), BASE, &l) == 0);
	CHECK_EQ_U64(l.nl, 1);
	if (l.nl == 1) {
		CHECK_EQ_U64(l.l[0].head, BASE + 3);
		CHECK_EQ_U64(l.l[0].nlatch, 1);
		CHECK_EQ_U64(l.latches[l.l[0].first_latch], BASE + 2);   /* the nop */
		CHECK_EQ_U64(l.l[0].nback, 1);
		CHECK_EQ_U64(l.backs[l.l[0].first_back], BASE + 8);      /* the jne */
	}
	hc_loops_free(&l);
}

static void switch_loop(void)
{
	static const uint8_t code[] = {
		0x90,             /* 0: nop            header           */
		0x74, 0x06,       /* 1: je 9           leave            */
		0xff, 0xe0,       /* 3: jmp *%rax                       */
		0x90,             /* 5: nop        case 1               */
		0xeb, 0xf8,       /* 6: jmp 0                           */
		0xcc,             /* 8: int3       (unreached padding)  */
		0xc3,             /* 9: ret                             */
	};
	struct hc_loops l;

	CHECK(hc_loops_find(code, sizeof(code), BASE, &l) == 0);
	CHECK_EQ_U64(l.nl, 1);
	if (l.nl == 1)
		CHECK_EQ_U64(l.l[0].head, BASE);
	CHECK(hc_loops_innermost(&l, BASE + 3) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 5) == 0);
	CHECK(hc_loops_innermost(&l, BASE + 9) == -1);
	hc_loops_free(&l);
}

static void no_loops_and_edges(void)
{
	static const uint8_t straight[] = {
		0x55,                         /* push %rbp                  */
		0x74, 0x01,                   /* je +1                      */
		0x90,                         /* nop                        */
		0xe8, 0x00, 0x00, 0x00, 0x00, /* call next (falls through)  */
		0xe9, 0x00, 0x10, 0x00, 0x00, /* jmp far outside: tail call */
	};
	static const uint8_t self[] = {
		0xf3, 0x90,       /* 0: pause                           */
		0xeb, 0xfc,       /* 2: jmp 0          spin             */
	};
	static const uint8_t bad[] = {
		0x90,             /* 0: nop                             */
		0xeb, 0xfd,       /* 1: jmp 0                           */
		0x0f, 0xff,       /* 3: ud0 without ModRM: stops here   */
	};
	struct hc_loops l;

	CHECK(hc_loops_find(straight, sizeof(straight), BASE, &l) == 0);
	CHECK_EQ_U64(l.nl, 0);
	CHECK(hc_loops_innermost(&l, BASE + 4) == -1);
	hc_loops_free(&l);

	CHECK(hc_loops_find(self, sizeof(self), BASE, &l) == 0);
	CHECK_EQ_U64(l.nl, 1);
	CHECK_EQ_U64(l.nb, 1);
	if (l.nl == 1) {
		CHECK_EQ_U64(l.l[0].head, BASE);
		CHECK_EQ_U64(l.l[0].nlatch, 1);
		CHECK_EQ_U64(l.latches[0], BASE + 2);
	}
	hc_loops_free(&l);

	CHECK(hc_loops_find(bad, sizeof(bad), BASE, &l) == 0);
	CHECK(l.partial);
	CHECK_EQ_U64(l.nl, 1);
	CHECK(hc_loops_innermost(&l, BASE + 3) == -1);
	hc_loops_free(&l);

	CHECK(hc_loops_find((const uint8_t *)"\x0f\xff", 2, BASE, &l) == -EINVAL);
}

int main(void)
{
	nested();
	two_back_edges();
	irreducible();
	irreducible_nested();
	rotated();
	switch_loop();
	no_loops_and_edges();
	return hc_test_done("test_loops");
}
