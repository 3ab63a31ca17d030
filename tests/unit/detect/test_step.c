/* SPDX-License-Identifier: BSD-3-Clause */
/* test_step.c — the pure decisions of the soft sampler's single-step
   bursts (lib/detect/step.c): what a stepped instruction means (decoded
   from real instruction bytes with exact registers, as the trace-trap
   handler does), the step budget, when a sample starts a burst, and the
   thread's recent lines. Deterministic, no signals. */
#include <errno.h>
#include <ucontext.h>

#include "decode/decode.h"
#include "detect/step.h"
#include "hc_test.h"

#define STACK_LO 0x7ffd00000000ull
#define STACK_HI 0x7ffd00100000ull
#define TLS_LO   0x7f1200000000ull
#define TLS_HI   0x7f1200001000ull
#define HEAP     0x000055550000a000ull

static long long gregs[NGREG];

static enum hc_step_verdict classify_bytes(const uint8_t *code, size_t n, uint64_t fs,
                                           const struct hc_mem_access **a, struct hc_insn *in)
{
	struct hc_regs r = { .gregs = gregs, .fsbase = fs, .gsbase = 0 };
	struct hc_step_private p = { STACK_LO, STACK_HI, TLS_LO, TLS_HI, NULL, 0 };

	CHECK_EQ_U64(hc_decode_insn(code, n, 0x401000, &r, in), 0);
	return hc_step_classify(in, &p, a);
}

static void test_classify(void)
{
	static const uint8_t mov_store[] = { 0x48, 0x89, 0x07 };          /* mov %rax,(%rdi) */
	static const uint8_t mov_load[] = { 0x48, 0x8b, 0x07 };           /* mov (%rdi),%rax */
	static const uint8_t add_rmw[] = { 0x48, 0x01, 0x07 };            /* add %rax,(%rdi) */
	static const uint8_t push[] = { 0x50 };                           /* push %rax */
	static const uint8_t fs_store[] = { 0x64, 0x48, 0x89, 0x04, 0x25, 0x10, 0, 0, 0 }; /* mov %rax,%fs:0x10 */
	static const uint8_t syscall_[] = { 0x0f, 0x05 };
	static const uint8_t pushfq[] = { 0x9c };
	static const uint8_t popfq[] = { 0x9d };
	static const uint8_t int3[] = { 0xcc };
	static const uint8_t iretq[] = { 0x48, 0xcf };
	static const uint8_t nop[] = { 0x90 };
	const struct hc_mem_access *a;
	struct hc_insn in;

	gregs[REG_RSP] = (long long)(STACK_HI - 256);
	/* a store to the heap: published, exact address and size */
	gregs[REG_RDI] = (long long)(HEAP + 0x48);
	CHECK_EQ_U64(classify_bytes(mov_store, sizeof mov_store, 0, &a, &in), HC_STEP_STORE);
	CHECK(a && a->ea == HEAP + 0x48 && a->size == 8);
	/* a read-modify-write stores too */
	CHECK_EQ_U64(classify_bytes(add_rmw, sizeof add_rmw, 0, &a, &in), HC_STEP_STORE);
	/* a load: step on */
	CHECK_EQ_U64(classify_bytes(mov_load, sizeof mov_load, 0, &a, &in), HC_STEP_NEXT);
	CHECK(a == NULL);
	/* stores to the thread's own stack, its TLS block or through %fs: private */
	gregs[REG_RDI] = (long long)(STACK_LO + 64);
	CHECK_EQ_U64(classify_bytes(mov_store, sizeof mov_store, 0, &a, &in), HC_STEP_NEXT);
	gregs[REG_RDI] = (long long)(STACK_HI - 8);   /* the last word of the stack */
	CHECK_EQ_U64(classify_bytes(mov_store, sizeof mov_store, 0, &a, &in), HC_STEP_NEXT);
	gregs[REG_RDI] = (long long)STACK_HI;         /* just above it: not the stack */
	CHECK_EQ_U64(classify_bytes(mov_store, sizeof mov_store, 0, &a, &in), HC_STEP_STORE);
	gregs[REG_RDI] = (long long)(TLS_LO + 16);
	CHECK_EQ_U64(classify_bytes(mov_store, sizeof mov_store, 0, &a, &in), HC_STEP_NEXT);
	CHECK_EQ_U64(classify_bytes(fs_store, sizeof fs_store, 0x7f3300000000ull, &a, &in), HC_STEP_NEXT);
	CHECK_EQ_U64(classify_bytes(push, sizeof push, 0, &a, &in), HC_STEP_NEXT);
	CHECK_EQ_U64(classify_bytes(nop, sizeof nop, 0, &a, &in), HC_STEP_NEXT);
	/* never stepped: a clone child would inherit the trap flag, the mask
	   may change; pushf/popf/iret would save or change the flag itself */
	CHECK_EQ_U64(classify_bytes(syscall_, sizeof syscall_, 0, &a, &in), HC_STEP_STOP);
	CHECK(in.flags & HC_AF_NOSTEP);
	CHECK_EQ_U64(classify_bytes(pushfq, sizeof pushfq, 0, &a, &in), HC_STEP_STOP);
	CHECK_EQ_U64(classify_bytes(popfq, sizeof popfq, 0, &a, &in), HC_STEP_STOP);
	CHECK_EQ_U64(classify_bytes(int3, sizeof int3, 0, &a, &in), HC_STEP_STOP);
	CHECK_EQ_U64(classify_bytes(iretq, sizeof iretq, 0, &a, &in), HC_STEP_STOP);
	/* no ranges known (a thread before its start): only %fs and stack operands are private */
	{
		struct hc_step_private none = { 0, 0, 0, 0, NULL, 0 };
		struct hc_insn one = { .n = 1 };
		one.acc[0] = (struct hc_mem_access){ .ea = STACK_LO + 8, .size = 8, .rw = HC_ACC_W };
		CHECK_EQ_U64(hc_step_classify(&one, &none, &a), HC_STEP_STORE);
		one.acc[0].size = 0;      /* nothing written */
		CHECK_EQ_U64(hc_step_classify(&one, &none, &a), HC_STEP_NEXT);
	}
	/* §5.45: a line of the stack that other threads use is not private */
	{
		uint64_t table[8] = { 0 };
		struct hc_step_private sp = { STACK_LO, STACK_HI, TLS_LO, TLS_HI, table, 8 };
		struct hc_insn one = { .n = 1 };
		uint64_t line = (STACK_LO + 0x1000) & ~(uint64_t)63;

		one.acc[0] = (struct hc_mem_access){ .ea = line + 8, .size = 4, .rw = HC_ACC_W };
		CHECK_EQ_U64(hc_step_classify(&one, &sp, &a), HC_STEP_NEXT);     /* private until noted */
		CHECK(!hc_step_shared_has(table, 8, line));
		table[hc_step_shared_slot(line, 8)] = line;
		CHECK(hc_step_shared_has(table, 8, line));
		CHECK_EQ_U64(hc_step_classify(&one, &sp, &a), HC_STEP_STORE);    /* shared now */
		one.acc[0].ea = line + 64;                                        /* the next line: still private */
		CHECK_EQ_U64(hc_step_classify(&one, &sp, &a), HC_STEP_NEXT);
		one.acc[0] = (struct hc_mem_access){ .ea = line + 8, .size = 8, .rw = HC_ACC_W, .kind = HC_ACC_STACK };
		CHECK_EQ_U64(hc_step_classify(&one, &sp, &a), HC_STEP_NEXT);     /* a push stays private */
		CHECK(!hc_step_shared_has(NULL, 0, line));
	}
}

static void test_budget(void)
{
	struct hc_step_budget b = { 0, 0 };

	CHECK_EQ_U64(hc_step_budget_allow(&b, 16), 0);
	hc_step_budget_refill(&b, 256 / 2, 64);          /* half a step per sample */
	CHECK_EQ_U64(hc_step_budget_allow(&b, 16), 0);
	hc_step_budget_refill(&b, 256 / 2, 64);
	CHECK_EQ_U64(hc_step_budget_allow(&b, 16), 1);
	for (int i = 0; i < 1000; i++)
		hc_step_budget_refill(&b, 256 * 4, 64);
	CHECK_EQ_U64(hc_step_budget_allow(&b, 1000), 64); /* capped */
	CHECK_EQ_U64(hc_step_budget_allow(&b, 16), 16);
	hc_step_budget_charge(&b, 60);
	CHECK_EQ_U64(hc_step_budget_allow(&b, 16), 4);
	hc_step_budget_charge(&b, 100);                   /* never below zero */
	CHECK_EQ_U64(b.tokens256, 0);
}

static void test_decide(void)
{
	struct hc_step_budget b = { 0, 0 };
	struct hc_step_config c = { .k = 16, .per_sample256 = 256, .seed_every = 4 };
	uint32_t n, seeds = 0;

	/* stores and private accesses never start one */
	for (int i = 0; i < 100; i++) {
		CHECK_EQ_U64(hc_step_decide(&b, &c, true, false, true), 0);
		CHECK_EQ_U64(hc_step_decide(&b, &c, false, true, true), 0);
	}
	/* 200 samples refilled 200 steps, capped at 4k = 64 */
	CHECK_EQ_U64(hc_step_budget_allow(&b, 1000), 64);
	/* with evidence: up to k from the budget */
	CHECK_EQ_U64(hc_step_decide(&b, &c, false, false, true), 16);
	hc_step_budget_charge(&b, 60);
	n = hc_step_decide(&b, &c, false, false, true);   /* 4 left + 1 refilled */
	CHECK_EQ_U64(n, 5);
	hc_step_budget_charge(&b, n);
	/* without evidence: every 4th candidate, and only a whole burst */
	for (int i = 0; i < 400; i++) {
		n = hc_step_decide(&b, &c, false, false, false);
		CHECK(n == 0 || n == 16);
		if (n) {
			seeds++;
			hc_step_budget_charge(&b, n);
		}
	}
	/* 400 candidates: 100 chances; the budget (1 step/sample) pays 25 bursts */
	CHECK_MSG(seeds >= 20 && seeds <= 26, "seeds %u", seeds);
	/* k = 0: off */
	c.k = 0;
	CHECK_EQ_U64(hc_step_decide(&b, &c, false, false, true), 0);
	/* seed_every = 0: no seeds */
	c.k = 16;
	c.seed_every = 0;
	for (int i = 0; i < 200; i++)
		CHECK_EQ_U64(hc_step_decide(&b, &c, false, false, false), 0);
}

static void test_lines(void)
{
	static struct hc_step_lines l;
	uint64_t a = 0x5555000040ull, b = a + 64ull * HC_STEP_LINES;   /* same entry */

	CHECK(!hc_step_line_seen(&l, a, 1000, 500));
	CHECK(hc_step_line_recent(&l, a, 1200, 500));
	CHECK(hc_step_line_seen(&l, a, 1400, 500));        /* again within 500 ns */
	CHECK(!hc_step_line_seen(&l, a, 2000, 500));       /* 600 ns later: too old */
	CHECK(!hc_step_line_recent(&l, a + 64, 2000, 500));
	CHECK(!hc_step_line_seen(&l, b, 2100, 500));       /* evicts a */
	CHECK(!hc_step_line_recent(&l, a, 2100, 500));
	CHECK(hc_step_line_recent(&l, b, 2000, 500));      /* stamped after `now`: recent */
	/* the query records nothing */
	CHECK(!hc_step_line_recent(&l, a + 128, 3000, 500));
	CHECK(!hc_step_line_recent(&l, a + 128, 3000, 500));
}

/* The bytes of a line an access covers, and the per-line masks. */
static void test_line_masks(void)
{
	static struct hc_step_lines l;
	uint64_t a = 0x5555000040ull, b = a + 64ull * HC_STEP_LINES;

	CHECK_EQ_U64(hc_line_bytes(a, a, 8), 0xffull);
	CHECK_EQ_U64(hc_line_bytes(a, a + 8, 8), 0xff00ull);
	CHECK_EQ_U64(hc_line_bytes(a, a, 64), ~0ull);
	CHECK_EQ_U64(hc_line_bytes(a, a + 60, 8), 0xfull << 60);    /* crosses into the next line */
	CHECK_EQ_U64(hc_line_bytes(a, a - 4, 8), 0xfull);           /* from the previous line */
	CHECK_EQ_U64(hc_line_bytes(a, a + 64, 8), 0);
	CHECK_EQ_U64(hc_line_bytes(a, a - 8, 8), 0);
	CHECK_EQ_U64(hc_line_bytes(a, a + 8, 0), 0);
	/* masks accumulate while the line stays recent */
	CHECK(!hc_step_line_note(&l, a + 8, 8, 1000, 500));
	CHECK(hc_step_line_note(&l, a + 24, 4, 1200, 500));
	CHECK_EQ_U64(hc_step_line_mask(&l, a, 1300, 500), 0xff00ull | (0xfull << 24));
	CHECK_EQ_U64(hc_step_line_mask(&l, a + 32, 1300, 500), 0xff00ull | (0xfull << 24));
	/* a line-only note (hc_step_line_seen) keeps the mask */
	CHECK(hc_step_line_seen(&l, a, 1400, 500));
	CHECK_EQ_U64(hc_step_line_mask(&l, a, 1400, 500), 0xff00ull | (0xfull << 24));
	/* too old: no mask, and the next note starts over */
	CHECK_EQ_U64(hc_step_line_mask(&l, a, 2000, 500), 0);
	CHECK(!hc_step_line_note(&l, a, 8, 2000, 500));
	CHECK_EQ_U64(hc_step_line_mask(&l, a, 2000, 500), 0xffull);
	/* another line in the same entry starts over too */
	CHECK(!hc_step_line_note(&l, b + 56, 8, 2100, 500));
	CHECK_EQ_U64(hc_step_line_mask(&l, b, 2100, 500), 0xffull << 56);
	CHECK_EQ_U64(hc_step_line_mask(&l, a, 2100, 500), 0);
	CHECK_EQ_U64(hc_step_line_mask(NULL, a, 2100, 500), 0);
}

/* When the thread accessed a line before a given time (the re-fetch test,
   detection.md §5.24): the last noted access, or the one before it when
   the last is the access at `now` itself; recency does not matter. */
static void test_line_before(void)
{
	static struct hc_step_lines l;
	uint64_t a = 0x5555000040ull, b = a + 64ull * HC_STEP_LINES;

	CHECK_EQ_U64(hc_step_line_before(&l, a, 100), 0);
	CHECK_EQ_U64(hc_step_line_before(NULL, a, 100), 0);
	hc_step_line_note(&l, a + 8, 8, 1000, 500);
	CHECK_EQ_U64(hc_step_line_before(&l, a, 1000), 0);      /* the access itself */
	CHECK_EQ_U64(hc_step_line_before(&l, a + 40, 1001), 1000);
	hc_step_line_note(&l, a + 16, 8, 1100, 500);
	CHECK_EQ_U64(hc_step_line_before(&l, a, 1100), 1000);   /* the one before */
	CHECK_EQ_U64(hc_step_line_before(&l, a, 5000), 1100);   /* long ago: still an access */
	hc_step_line_note(&l, a, 8, 9000, 500);                 /* no longer recent: the time stays */
	CHECK_EQ_U64(hc_step_line_before(&l, a, 9000), 1100);
	/* another line in the entry: nothing known of a, none of b before */
	hc_step_line_note(&l, b, 8, 9100, 500);
	CHECK_EQ_U64(hc_step_line_before(&l, a, 9200), 0);
	CHECK_EQ_U64(hc_step_line_before(&l, b, 9100), 0);
	CHECK_EQ_U64(hc_step_line_before(&l, b, 9200), 9100);
}

/* A burst's lines: the first load of a line is new, later ones of any
   byte of it are not; past HC_BURST_LINES lines everything is new. */
static void test_burst_line_first(void)
{
	struct hc_burst_lines b = { .n = 0 };
	uint64_t item = 0x5555000340ull;   /* spsc: seq at +0, val at +8 */

	CHECK(hc_burst_line_first(&b, item));
	CHECK(!hc_burst_line_first(&b, item + 8));
	CHECK(!hc_burst_line_first(&b, item + 0x3f));            /* the line's last byte */
	CHECK(hc_burst_line_first(&b, item + 0x40));            /* the next line */
	CHECK_EQ_U64(b.n, 2);
	for (uint64_t i = 2; i < HC_BURST_LINES; i++)
		CHECK(hc_burst_line_first(&b, item + 0x40 * i));
	CHECK_EQ_U64(b.n, HC_BURST_LINES);
	CHECK(hc_burst_line_first(&b, item + 0x40ull * HC_BURST_LINES));   /* no room: new */
	CHECK(hc_burst_line_first(&b, item + 0x40ull * HC_BURST_LINES));
	CHECK(!hc_burst_line_first(&b, item + 8));                        /* the first ones stay */
	b.n = 0;                                                            /* a new burst */
	CHECK(hc_burst_line_first(&b, item + 8));
}

/* Moving and fixed accesses by instruction. */
static void test_pc_moves(void)
{
	static struct hc_step_pcs p;
	uint64_t pc1 = 0x401000, pc2 = 0x401010, pc3 = pc1 + HC_STEP_PCS * 0x1000ull;

	CHECK(!hc_step_pc_moves(&p, pc1, 0x1000));
	CHECK(!hc_step_pc_moves(&p, pc1, 0x1000));   /* a field: always the same address */
	CHECK(!hc_step_pc_moves(&p, pc2, 0x2000));
	CHECK(hc_step_pc_moves(&p, pc2, 0x2100));    /* a second address: moving, tentatively */
	CHECK(!hc_step_pc_moves(&p, pc2, 0x2000));   /* back: two words, one pointer */
	CHECK(!hc_step_pc_moves(&p, pc2, 0x2100));
	CHECK(!hc_step_pc_moves(&p, pc2, 0x2000));
	CHECK(hc_step_pc_moves(&p, pc2, 0x2010));    /* a third address: an array walk */
	CHECK(hc_step_pc_moves(&p, pc2, 0x2010));    /* moving stays moving */
	CHECK(hc_step_pc_moves(&p, pc2, 0x2000));
	CHECK(!hc_step_pc_moves(&p, pc1, 0x1000));
	CHECK(!hc_step_pc_moves(&p, 0, 0x3000));     /* no pc: never moving */
	CHECK(!hc_step_pc_moves(&p, 0, 0x3008));
	/* the span of its addresses (§5.47): lowest and highest seen */
	{
		uint64_t lo = 0, hi = 0;

		CHECK(hc_step_pc_span(&p, pc2, &lo, &hi));
		CHECK_EQ_U64(lo, 0x2000);
		CHECK_EQ_U64(hi, 0x2100);
		CHECK(hc_step_pc_span(&p, pc1, &lo, &hi) && lo == 0x1000 && hi == 0x1000);
		CHECK(!hc_step_pc_span(&p, 0x409990, &lo, &hi));   /* never seen */
		/* kmeans' partial_len[tid][cluster]++: a walk within 32 bytes */
		CHECK(!hc_step_pc_moves(&p, 0x401020, 0x5024));
		CHECK(hc_step_pc_moves(&p, 0x401020, 0x5030));
		CHECK(hc_step_pc_moves(&p, 0x401020, 0x5020));
		CHECK(hc_step_pc_span(&p, 0x401020, &lo, &hi) && lo == 0x5020 && hi == 0x5030);
		/* a span clipped to the access's heap block: kmeans' thread 0
		   walking its 8 centre blocks (144 B apart) covers only the
		   bytes of the block it is in on the line it shares with
		   thread 1's first block */
		lo = 0x7010;
		hi = 0x7010 + 8 * 144;
		hc_step_span_clip(&lo, &hi, 0x7010 + 7 * 144, 136);
		CHECK(lo == 0x7010 + 7 * 144 && hi == 0x7010 + 7 * 144 + 136);
		lo = 0x7000;
		hi = 0x7100;
		hc_step_span_clip(&lo, &hi, 0, 0);              /* no block: as is */
		CHECK(lo == 0x7000 && hi == 0x7100);
		hc_step_span_clip(&lo, &hi, 0x9000, 64);        /* outside: unknown */
		CHECK(lo == 0 && hi == 0);
		/* a fixed access confirmed: seen again at its address n times */
		CHECK(!hc_step_pc_fixed(&p, 0x401020, 2));          /* moving */
		CHECK(!hc_step_pc_moves(&p, 0x401030, 0x6000));
		CHECK(!hc_step_pc_fixed(&p, 0x401030, 2));          /* once */
		CHECK(!hc_step_pc_moves(&p, 0x401030, 0x6000));
		CHECK(!hc_step_pc_fixed(&p, 0x401030, 2));
		CHECK(!hc_step_pc_moves(&p, 0x401030, 0x6000));
		CHECK(hc_step_pc_fixed(&p, 0x401030, 2));           /* three times */
		CHECK(!hc_step_pc_fixed(&p, 0x409990, 0));          /* never seen */
		CHECK(hc_step_pc_moves(&p, 0x401030, 0x6008));      /* it moved: never again */
		CHECK(!hc_step_pc_moves(&p, 0x401030, 0x6000));
		CHECK(!hc_step_pc_moves(&p, 0x401030, 0x6000));
		CHECK(!hc_step_pc_moves(&p, 0x401030, 0x6000));
		CHECK(!hc_step_pc_fixed(&p, 0x401030, 2));
	}
	/* a PC that takes the slot starts over */
	if (((pc3 ^ (pc3 >> 7)) % HC_STEP_PCS) == ((pc2 ^ (pc2 >> 7)) % HC_STEP_PCS)) {
		CHECK(!hc_step_pc_moves(&p, pc3, 0x4000));
		CHECK(!hc_step_pc_moves(&p, pc2, 0x2020));
		CHECK(hc_step_pc_moves(&p, pc2, 0x2030));
	}
}

/* A data watchpoint's trap (hc_trap_attribute): the accessing instruction
   is the one ending at the PC, also when it overwrote its own address
   register; a REP op at the PC traps on itself. Registers as at the trap
   (after the access). */
static void decode_at(const uint8_t *code, size_t n, uint64_t rip, struct hc_insn *in)
{
	struct hc_regs r = { .gregs = gregs, .fsbase = 0, .gsbase = 0 };

	CHECK_EQ_U64(hc_decode_insn(code, n, rip, &r, in), 0);
}

static void test_trap_attribute(void)
{
	static const uint8_t load_over[] = { 0x48, 0x8b, 0x04, 0x02 };  /* mov (%rdx,%rax,1),%rax */
	static const uint8_t store_idx[] = { 0x48, 0x89, 0x0c, 0x02 };  /* mov %rcx,(%rdx,%rax,1) */
	static const uint8_t add_rr[] = { 0x48, 0x01, 0xc3 };           /* add %rax,%rbx */
	static const uint8_t push[] = { 0x50 };                         /* push %rax */
	static const uint8_t rep_stos[] = { 0xf3, 0x48, 0xab };         /* rep stos %rax,(%rdi) */
	const uint64_t at = 0x401000, line = HEAP + 0x40, chunk = HEAP + 0x48;
	struct hc_insn e, pc_in;
	struct hc_trap_attr ta;

	gregs[REG_RSP] = (long long)(STACK_HI - 256);
	/* -O0's indexed load: rax (the index) now holds the loaded value, so
	   the address decodes off the line — still this instruction, a load,
	   at the register's chunk (before session 8: leaf = the next one) */
	gregs[REG_RDX] = (long long)HEAP;
	gregs[REG_RAX] = 12345;
	decode_at(load_over, sizeof load_over, at, &e);
	hc_trap_attribute(NULL, &e, at + sizeof load_over, line, chunk, false, &ta);
	CHECK_EQ_U64(ta.how, HC_TRAP_INSN);
	CHECK_EQ_U64(ta.leaf, at);
	CHECK(!ta.is_store);
	CHECK_EQ_U64(ta.addr, chunk);
	CHECK_EQ_U64(ta.len, 8);
	/* the same fired on a write-only register: a store */
	hc_trap_attribute(NULL, &e, at + sizeof load_over, line, chunk, true, &ta);
	CHECK(ta.is_store && ta.leaf == at);
	/* an indexed store, registers intact: exact address and size */
	gregs[REG_RAX] = 0x48;
	decode_at(store_idx, sizeof store_idx, at, &e);
	hc_trap_attribute(NULL, &e, at + sizeof store_idx, line, chunk, false, &ta);
	CHECK_EQ_U64(ta.how, HC_TRAP_EXACT);
	CHECK_EQ_U64(ta.leaf, at);
	CHECK(ta.is_store);
	CHECK_EQ_U64(ta.addr, HEAP + 0x48);
	CHECK_EQ_U64(ta.len, 8);
	/* no data access ending at the PC (a register op, a push): unknown,
	   the PC stays the leaf, the kind is the register's */
	decode_at(add_rr, sizeof add_rr, at, &e);
	hc_trap_attribute(NULL, &e, at + sizeof add_rr, line, chunk, true, &ta);
	CHECK_EQ_U64(ta.how, HC_TRAP_UNKNOWN);
	CHECK_EQ_U64(ta.leaf, at + sizeof add_rr);
	CHECK(ta.is_store && ta.addr == chunk && ta.len == 8);
	decode_at(push, sizeof push, at, &e);
	hc_trap_attribute(NULL, &e, at + sizeof push, line, chunk, false, &ta);
	CHECK_EQ_U64(ta.how, HC_TRAP_UNKNOWN);
	CHECK(!ta.is_store && ta.leaf == at + sizeof push);
	/* nothing decodes */
	hc_trap_attribute(NULL, NULL, at, line, chunk, false, &ta);
	CHECK(ta.how == HC_TRAP_UNKNOWN && ta.leaf == at && !ta.is_store);
	/* a REP string op at the PC traps on itself, at its current element */
	gregs[REG_RDI] = (long long)(HEAP + 0x50);
	gregs[REG_RCX] = 3;
	decode_at(rep_stos, sizeof rep_stos, at, &pc_in);
	decode_at(add_rr, sizeof add_rr, at - sizeof add_rr, &e);
	hc_trap_attribute(&pc_in, &e, at, line, chunk, false, &ta);
	CHECK_EQ_U64(ta.how, HC_TRAP_REP);
	CHECK_EQ_U64(ta.leaf, at);
	CHECK(ta.is_store && ta.addr == HEAP + 0x50 && ta.len == 8);
	/* a plain instruction at the PC does not count: the one ending there does */
	gregs[REG_RAX] = 0x48;
	decode_at(store_idx, sizeof store_idx, at - sizeof store_idx, &e);
	decode_at(add_rr, sizeof add_rr, at, &pc_in);
	hc_trap_attribute(&pc_in, &e, at, line, chunk, false, &ta);
	CHECK(ta.how == HC_TRAP_EXACT && ta.leaf == at - sizeof store_idx && ta.is_store);
}

int main(void)
{
	if (hc_decode_init() < 0) {
		fprintf(stderr, "cannot initialise the decoder\n");
		return 1;
	}
	test_classify();
	test_budget();
	test_decide();
	test_lines();
	test_line_masks();
	test_line_before();
	test_burst_line_first();
	test_pc_moves();
	test_trap_attribute();
	return hc_test_done("test_step");
}
