/* SPDX-License-Identifier: BSD-3-Clause */
/* loops.h — loops of one x86-64 function recovered from its machine code, as
   HPCToolkit's hpcstruct recovers them: the function is decoded linearly
   with Zydis into basic blocks and a control-flow graph (direct branches;
   an indirect jump may go to any block nothing else reaches, which is where
   a jump table's cases are), and Havlak's algorithm ("Nesting of reducible
   and irreducible loops", TOPLAS 1997) finds the loops from a depth-first
   search: a retreating edge v -> w (w an ancestor of v) closes a loop headed
   by w, loops nest, and a loop that can be entered other than through its
   header is kept and marked irreducible (its header is the block the search
   met first). Pure: the bytes come in as data; for the analyzer (not
   async-signal-safe: it allocates). */
#ifndef HC_DECODE_LOOPS_H
#define HC_DECODE_LOOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hc_block {
	uint64_t start, end;     /* [start, end) */
	int32_t loop;            /* innermost loop holding it, -1 for none */
};

struct hc_loop {
	uint64_t head;           /* start of the header block */
	int32_t parent;          /* enclosing loop, -1 for an outermost one */
	uint32_t depth;          /* 1 for an outermost loop */
	bool irreducible;        /* enterable other than through head */
	uint32_t first_latch, nlatch;  /* latches[first_latch ..]: last instructions of the
	                                  blocks with an edge back to the header */
	uint32_t first_back, nback;    /* backs[first_back ..]: the loop's control: the
	                                  direct branches of its own blocks that jump
	                                  back to a block inside it, and its
	                                  conditional exits (where a compiler puts the
	                                  for/while test; a rotated loop's latch block
	                                  may end without a branch) */
	uint32_t nblocks;        /* blocks whose innermost loop it is */
};

struct hc_loops {
	struct hc_block *b;      /* sorted by start */
	uint32_t nb;
	struct hc_loop *l;       /* parents before children */
	uint32_t nl;
	uint64_t *latches;       /* addresses of the instructions that close each loop */
	uint32_t nlatches;
	uint64_t *backs;         /* addresses of loop-control branches, by loop */
	uint32_t nbacks;
	bool partial;            /* decoding stopped early (bad bytes): blocks up to there */
};

/* The loops of the function whose code is code[0 .. len), loaded at addr.
   0, -ENOMEM, or -EINVAL when not even the first instruction decodes. */
int hc_loops_find(const uint8_t *code, size_t len, uint64_t addr, struct hc_loops *out);
void hc_loops_free(struct hc_loops *l);
/* The block holding address a, or -1. */
int32_t hc_loops_block(const struct hc_loops *l, uint64_t a);
/* The innermost loop holding address a, or -1. */
static inline int32_t hc_loops_innermost(const struct hc_loops *l, uint64_t a)
{
	int32_t b = hc_loops_block(l, a);

	return b < 0 ? -1 : l->b[b].loop;
}

#endif
