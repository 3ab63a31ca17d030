/* SPDX-License-Identifier: BSD-3-Clause */
/* test_scan.c — single-step bursts resolved by a forward scan
   (lib/detect/scan.c) on real instruction bytes and synthetic registers:
   the store the stepping would have found, with its exact address and the
   steps it would have taken; the loads a return burst publishes; the
   limit, the unsteppable instruction, the call/return; and every case the
   scan must leave to the stepping (an address register written on the
   way, a branch, the function's end, a string operation, a full event
   list). Deterministic, no signals. */
#include <ucontext.h>

#include "decode/decode.h"
#include "detect/scan.h"
#include "hc_test.h"

#define STACK_LO 0x7ffd00000000ull
#define STACK_HI 0x7ffd00100000ull
#define TLS_LO   0x7f1200000000ull
#define TLS_HI   0x7f1200001000ull
#define HEAP     0x000055550000a000ull
#define RODATA   0x0000555500002000ull

static long long gregs[NGREG];
static const struct hc_step_private priv = { STACK_LO, STACK_HI, TLS_LO, TLS_HI, NULL, 0 };

static bool readonly(uint64_t a)
{
	return a >= RODATA && a < RODATA + 0x1000;
}

static void regs_reset(void)
{
	for (int i = 0; i < NGREG; i++)
		gregs[i] = 0;
	gregs[REG_RDI] = (long long)HEAP;
	gregs[REG_RSI] = (long long)(HEAP + 0x100);
	gregs[REG_RDX] = (long long)(HEAP + 0x200);
	gregs[REG_RSP] = (long long)(STACK_HI - 256);
}

/* Scan code[0..n) as a function, the sample at its first instruction. */
static enum hc_scan_end scan(const uint8_t *code, size_t n, uint32_t limit, bool loads,
                             struct hc_scan_result *res)
{
	struct hc_regs r = { .gregs = gregs };
	struct hc_insn first;
	struct hc_insn_deps d;
	uint64_t fs = (uint64_t)(uintptr_t)code;

	gregs[REG_RIP] = (long long)fs;
	CHECK_EQ_U64(hc_decode_at_pc_deps(&r, &first, &d), 0);
	return hc_scan_burst(&r, &first, &d, fs, fs + n, limit, loads, &priv, readonly, res);
}

static void test_store_found(void)
{
	/* mov (%rdi),%rax; add $1,%rax; mov %rax,(%rsi) */
	static const uint8_t c[] = { 0x48, 0x8b, 0x07, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x89, 0x06 };
	/* mov (%rdi),%rax; push %rbx; mov %rax,0x18(%rsi) */
	static const uint8_t c_push[] = { 0x48, 0x8b, 0x07, 0x53, 0x48, 0x89, 0x46, 0x18 };
	/* mov (%rdi),%rax; mov %rax,(%rsp); mov %eax,%fs:0x10; mov %rax,0x8(%rdx) */
	static const uint8_t c_priv[] = { 0x48, 0x8b, 0x07, 0x48, 0x89, 0x04, 0x24,
	                                  0x64, 0x89, 0x04, 0x25, 0x10, 0, 0, 0, 0x48, 0x89, 0x42, 0x08 };
	struct hc_scan_result res;

	regs_reset();
	CHECK_EQ_U64(scan(c, sizeof c, 32, false, &res), HC_SCAN_STORE);
	CHECK_EQ_U64(res.steps, 2);
	CHECK_EQ_U64(res.n, 1);
	CHECK(res.ev[0].store && res.ev[0].acc.ea == HEAP + 0x100 && res.ev[0].acc.size == 8);
	CHECK_EQ_U64(res.ev[0].pc, (uint64_t)(uintptr_t)c + 7);
	/* a written register that no later address uses does not matter;
	   push writes rsp, the store's address is rsi */
	CHECK_EQ_U64(scan(c_push, sizeof c_push, 32, false, &res), HC_SCAN_STORE);
	CHECK(res.steps == 2 && res.n == 1 && res.ev[0].acc.ea == HEAP + 0x118);
	/* stores to the stack and through %fs are stepped over, as stepping does */
	CHECK_EQ_U64(scan(c_priv, sizeof c_priv, 32, false, &res), HC_SCAN_STORE);
	CHECK(res.steps == 3 && res.n == 1 && res.ev[0].acc.ea == HEAP + 0x208);
	/* a store into read-only memory is not the burst's end */
	gregs[REG_RSI] = (long long)(RODATA + 8);
	CHECK_EQ_U64(scan(c, sizeof c, 32, false, &res), HC_SCAN_UNRESOLVED);  /* runs off the end */
	CHECK_EQ_U64(scan(c, sizeof c, 2, false, &res), HC_SCAN_LIMIT);
	CHECK(res.steps == 2 && res.n == 0);
}

static void test_limit_and_stop(void)
{
	/* mov (%rdi),%rax; add $1,%rax x3; mov %rax,(%rsi) */
	static const uint8_t c[] = { 0x48, 0x8b, 0x07, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x01,
	                             0x48, 0x83, 0xc0, 0x01, 0x48, 0x89, 0x06 };
	/* mov (%rdi),%rax; nop; syscall; mov %rax,(%rsi) */
	static const uint8_t c_sys[] = { 0x48, 0x8b, 0x07, 0x90, 0x0f, 0x05, 0x48, 0x89, 0x06 };
	struct hc_scan_result res;

	regs_reset();
	CHECK_EQ_U64(scan(c, sizeof c, 2, false, &res), HC_SCAN_LIMIT);
	CHECK(res.steps == 2 && res.n == 0);
	CHECK_EQ_U64(scan(c, sizeof c, 4, false, &res), HC_SCAN_STORE);
	CHECK(res.steps == 4 && res.n == 1);
	CHECK_EQ_U64(scan(c, sizeof c, 3, false, &res), HC_SCAN_LIMIT);
	/* the stepping ends before a syscall: so does the scan, at step 2 */
	CHECK_EQ_U64(scan(c_sys, sizeof c_sys, 32, false, &res), HC_SCAN_STOP);
	CHECK(res.steps == 2 && res.n == 0);
	/* limit 0: nothing to decide */
	CHECK_EQ_U64(scan(c, sizeof c, 0, false, &res), HC_SCAN_UNRESOLVED);
}

static void test_unresolved(void)
{
	/* mov (%rdi),%rax; mov 8(%rdi),%rsi; mov %rax,(%rsi): the store's
	   address comes from a register loaded on the way */
	static const uint8_t c_dep[] = { 0x48, 0x8b, 0x07, 0x48, 0x8b, 0x77, 0x08, 0x48, 0x89, 0x06 };
	/* mov (%rdi),%rax; jne +3; mov %rax,(%rsi) */
	static const uint8_t c_br[] = { 0x48, 0x8b, 0x07, 0x75, 0x03, 0x48, 0x89, 0x06 };
	/* jne +3 at the PC itself */
	static const uint8_t c_br0[] = { 0x75, 0x03, 0x48, 0x89, 0x06 };
	/* mov (%rdi),%rax; call +0; mov %rax,(%rsi) (a sample burst steps into the callee) */
	static const uint8_t c_call[] = { 0x48, 0x8b, 0x07, 0xe8, 0, 0, 0, 0, 0x48, 0x89, 0x06 };
	/* mov (%rdi),%rax; rep stosb (count and addresses move) */
	static const uint8_t c_rep[] = { 0x48, 0x8b, 0x07, 0xf3, 0xaa };
	/* mov (%rdi),%rax; xor %esi,%esi (writes rsi, 32-bit form); mov %rax,(%rsi) */
	static const uint8_t c_sub[] = { 0x48, 0x8b, 0x07, 0x31, 0xf6, 0x48, 0x89, 0x06 };
	/* mov (%rdi),%rax; mul %rcx (writes rdx, hidden); mov %rax,(%rdx) */
	static const uint8_t c_hid[] = { 0x48, 0x8b, 0x07, 0x48, 0xf7, 0xe1, 0x48, 0x89, 0x02 };
	/* mov (%rdi),%rax; ud2; mov %rax,(%rsi) */
	static const uint8_t c_ud2[] = { 0x48, 0x8b, 0x07, 0x0f, 0x0b, 0x48, 0x89, 0x06 };
	/* mov (%rdi),%rax; add $1,%rax; mov %rax,(%rsi) with the function ending before the store */
	static const uint8_t c[] = { 0x48, 0x8b, 0x07, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x89, 0x06 };
	struct hc_scan_result res;

	regs_reset();
	CHECK_EQ_U64(scan(c_dep, sizeof c_dep, 32, false, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c_br, sizeof c_br, 32, false, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c_br, sizeof c_br, 1, false, &res), HC_SCAN_LIMIT);  /* the branch is the last step */
	CHECK_EQ_U64(scan(c_br0, sizeof c_br0, 32, false, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c_call, sizeof c_call, 32, false, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c_rep, sizeof c_rep, 32, false, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c_sub, sizeof c_sub, 32, false, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c_hid, sizeof c_hid, 32, false, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c_ud2, sizeof c_ud2, 32, false, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c, 7, 32, false, &res), HC_SCAN_UNRESOLVED);
}

static void test_return_burst(void)
{
	/* mov (%rdi),%rax; mov 8(%rdx),%rcx; mov (%rsp),%rbx; add (%rsi),%rcx?
	   -- here: mov 0x10(%rsi),%r8; ret */
	static const uint8_t c[] = { 0x48, 0x8b, 0x07, 0x48, 0x8b, 0x4a, 0x08, 0x48, 0x8b, 0x1c, 0x24,
	                             0x4c, 0x8b, 0x46, 0x10, 0xc3 };
	/* mov (%rdi),%rax; mov 8(%rdx),%rcx; mov %rcx,(%rsi): loads, then the store ends it */
	static const uint8_t c_st[] = { 0x48, 0x8b, 0x07, 0x48, 0x8b, 0x4a, 0x08, 0x48, 0x89, 0x0e };
	/* nine shared loads in a row: more than the scan keeps */
	static const uint8_t c_many[] = { 0x48, 0x8b, 0x07,
		0x48, 0x8b, 0x4a, 0x08, 0x48, 0x8b, 0x4a, 0x08, 0x48, 0x8b, 0x4a, 0x08,
		0x48, 0x8b, 0x4a, 0x08, 0x48, 0x8b, 0x4a, 0x08, 0x48, 0x8b, 0x4a, 0x08,
		0x48, 0x8b, 0x4a, 0x08, 0x48, 0x8b, 0x4a, 0x08, 0x48, 0x8b, 0x4a, 0x08, 0xc3 };
	struct hc_scan_result res;

	regs_reset();
	CHECK_EQ_U64(scan(c, sizeof c, 32, true, &res), HC_SCAN_CALLRET);
	CHECK_EQ_U64(res.steps, 4);
	CHECK_EQ_U64(res.n, 2);   /* the stack load is private */
	CHECK(!res.ev[0].store && res.ev[0].acc.ea == HEAP + 0x208 && res.ev[0].pc == (uint64_t)(uintptr_t)c + 3);
	CHECK(!res.ev[1].store && res.ev[1].acc.ea == HEAP + 0x110 && res.ev[1].pc == (uint64_t)(uintptr_t)c + 11);
	/* a sample burst does not publish loads and cannot see past the ret */
	CHECK_EQ_U64(scan(c, sizeof c, 32, false, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c_st, sizeof c_st, 32, true, &res), HC_SCAN_STORE);
	CHECK(res.n == 2 && !res.ev[0].store && res.ev[1].store && res.ev[1].acc.ea == HEAP + 0x100);
	/* loads of read-only memory are not published */
	gregs[REG_RDX] = (long long)RODATA;
	CHECK_EQ_U64(scan(c_st, sizeof c_st, 32, true, &res), HC_SCAN_STORE);
	CHECK(res.n == 1 && res.ev[0].store);
	regs_reset();
	CHECK_EQ_U64(scan(c_many, sizeof c_many, 32, true, &res), HC_SCAN_UNRESOLVED);
	CHECK_EQ_U64(scan(c_many, sizeof c_many, HC_SCAN_EVENTS, true, &res), HC_SCAN_LIMIT);
	CHECK_EQ_U64(res.n, HC_SCAN_EVENTS);
}

/* HPCRUN_COMM_RET_CALL (detection.md §5.20): a return burst's scan says
   whether it stopped at a call or a return, and hc_scan_is_call tells
   them apart (a call writes its return address, a return reads it). */
static void test_call_or_return(void)
{
	/* mov (%rdi),%rax; call .+5 */
	static const uint8_t c_call[] = { 0x48, 0x8b, 0x07, 0xe8, 0x00, 0x00, 0x00, 0x00 };
	/* mov (%rdi),%rax; call *%rax */
	static const uint8_t c_icall[] = { 0x48, 0x8b, 0x07, 0xff, 0xd0 };
	/* mov (%rdi),%rax; ret */
	static const uint8_t c_ret[] = { 0x48, 0x8b, 0x07, 0xc3 };
	static const uint8_t jmp[] = { 0xeb, 0x00 }, push[] = { 0x53 }, ret[] = { 0xc3 }, call[] = { 0xe8, 0, 0, 0, 0 };
	struct hc_scan_result res;
	struct hc_regs r = { .gregs = gregs };
	struct hc_insn in;

	regs_reset();
	CHECK_EQ_U64(scan(c_call, sizeof c_call, 32, true, &res), HC_SCAN_CALLRET);
	CHECK(res.end_call && res.steps == 1);
	CHECK_EQ_U64(scan(c_icall, sizeof c_icall, 32, true, &res), HC_SCAN_CALLRET);
	CHECK(res.end_call);
	CHECK_EQ_U64(scan(c_ret, sizeof c_ret, 32, true, &res), HC_SCAN_CALLRET);
	CHECK(!res.end_call);
	/* the function ends before the call: end_call stays false */
	CHECK_EQ_U64(scan(c_call, 3, 32, true, &res), HC_SCAN_UNRESOLVED);
	CHECK(!res.end_call);
	gregs[REG_RIP] = (long long)(uintptr_t)call;
	CHECK(hc_decode_at_pc(&r, &in) == 0 && hc_scan_is_call(&in) && hc_scan_call_or_ret(&in));
	gregs[REG_RIP] = (long long)(uintptr_t)ret;
	CHECK(hc_decode_at_pc(&r, &in) == 0 && !hc_scan_is_call(&in) && hc_scan_call_or_ret(&in));
	gregs[REG_RIP] = (long long)(uintptr_t)jmp;
	CHECK(hc_decode_at_pc(&r, &in) == 0 && !hc_scan_is_call(&in) && !hc_scan_call_or_ret(&in));
	gregs[REG_RIP] = (long long)(uintptr_t)push;
	CHECK(hc_decode_at_pc(&r, &in) == 0 && !hc_scan_is_call(&in) && !hc_scan_call_or_ret(&in));
}

/* hc_scan_from (§5.57): from a loop's exit with the registers of a sample
   inside the loop, those the loop writes not holding: mw_cond -O2's
   `movsd %xmm0,(%rdx)` after its compute loop, rdx set before it */
static void test_scan_from(void)
{
	/* movsd %xmm0,(%rdx); jmp . (ends the function's straight line) */
	static const uint8_t c[] = { 0xf2, 0x0f, 0x11, 0x02, 0xeb, 0xfe };
	struct hc_regs r = { .gregs = gregs };
	struct hc_scan_result res;
	uint64_t fs = (uint64_t)(uintptr_t)c;

	regs_reset();
	/* the loop wrote rax (its counter): the store's address holds */
	CHECK(hc_scan_from(&r, fs, 1u << 0, fs, fs + sizeof c, 8, false, &priv, readonly, &res) == HC_SCAN_STORE);
	CHECK_EQ_U64(res.n, 1);
	CHECK_EQ_U64(res.ev[0].acc.ea, HEAP + 0x200);
	CHECK_EQ_U64(res.ev[0].acc.size, 8);
	CHECK_EQ_U64(res.ev[0].pc, fs);
	CHECK(res.ev[0].store);
	CHECK_EQ_U64(res.steps, 1);
	/* the loop wrote rdx: not known */
	CHECK(hc_scan_from(&r, fs, 1u << 2, fs, fs + sizeof c, 8, false, &priv, readonly, &res) ==
	      HC_SCAN_UNRESOLVED);
	/* outside the function; a limit of 0 */
	CHECK(hc_scan_from(&r, fs + sizeof c, 0, fs, fs + sizeof c, 8, false, &priv, readonly, &res) ==
	      HC_SCAN_UNRESOLVED);
	CHECK(hc_scan_from(&r, fs, 0, fs, fs + sizeof c, 0, false, &priv, readonly, &res) == HC_SCAN_UNRESOLVED);
	/* a stack slot is private: no store to end at, the jmp stops it */
	gregs[REG_RDX] = (long long)(STACK_HI - 64);
	CHECK(hc_scan_from(&r, fs, 0, fs, fs + sizeof c, 8, false, &priv, readonly, &res) == HC_SCAN_UNRESOLVED);
}

int main(void)
{
	if (hc_decode_init() < 0) {
		fprintf(stderr, "cannot initialise the decoder\n");
		return 1;
	}
	test_store_found();
	test_limit_and_stop();
	test_unresolved();
	test_return_burst();
	test_call_or_return();
	test_scan_from();
	return hc_test_done("test_scan");
}
