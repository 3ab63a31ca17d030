/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pmu_sample.c — from a hardware sample to a detection sample
   (lib/pmu/pmusample.c): AMD IBS op register images (loads, stores,
   locked RMW, software prefetch, invalid linear address, invalid RIP,
   non-memory ops, invalid samples, short images, the optional branch-target
   register) and the access length / direction / stack check obtained by
   decoding the instruction at the sample's IP, on hand-assembled
   instructions with CFI (so the precise_ip = 1 "IP is the next
   instruction" path can find the function); the per-IP cache of that
   path; the TEST-ONLY stand-in's addresses from the signal's registers. */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <ucontext.h>
#include "hc_test.h"
#include "kbuf.h"
#include "hc/common.h"
#include "hc/profile.h"
#include "decode/decode.h"
#include "decode/funcstart.h"
#include "runtime/loadmap.h"
#include "pmu/perfbuf.h"
#include "probe/probe.h"

#define FN(name) ".globl " #name "\n.hidden " #name "\n.type " #name ",@function\n" \
	#name ":\n\t.cfi_startproc\n"
#define ENDFN(name) "\t.cfi_endproc\n.size " #name ",.-" #name "\n"
#define PC(name) ".globl " #name "\n.hidden " #name "\n" #name ":\n"

/* Never called: only decoded. */
__asm__(".text\n"
	FN(pmu_fn)
	PC(at_st4)   "\tmovl %eax,(%rdi)\n"
	PC(at_ld8)   "\tmovq (%rsi),%rdx\n"
	PC(at_push)  "\tpush %rbx\n"
	PC(at_pop)   "\tpop %rbx\n"
	PC(at_lock)  "\tlock addl $1,(%rdi)\n"
	PC(at_st1)   "\tmovb %al,(%rdi)\n"
	PC(at_nop)   "\tnop\n"
	PC(at_ld16)  "\tmovdqu (%rsi),%xmm0\n"
	PC(at_ret)   "\tret\n"
	ENDFN(pmu_fn));
extern const char at_st4[], at_ld8[], at_push[], at_pop[], at_lock[], at_st1[], at_nop[],
	at_ld16[], at_ret[];
#define IP(x) ((uint64_t)(uintptr_t)(x))

static void null_sink(void *arg, uint64_t leaf, struct hc_sample *s, bool exact_ctx)
{
	(void)arg; (void)leaf; (void)s; (void)exact_ctx;
}
#define NULL_SINK null_sink

static void test_ibs_decode(void)
{
	struct kibs k = { .caps = 0x1ff | HC_IBS_CAPS_ZEN4, .ctl = KIBS_CTL_VAL | KIBS_CTL_EN,
	                  .rip = 0x401000, .linaddr = 0x7f1234567890ull, .physaddr = 0x1000 };
	struct hc_ibs_op op;
	uint8_t img[128];
	uint32_t n;

	/* load, 8 bytes (op_mem_width 4 = qword) */
	k.data3 = KIBS_D3_LD | KIBS_D3_LINVALID | KIBS_D3_PHYVALID | KIBS_D3_WIDTH(4);
	n = kibs_image(&k, img);
	CHECK(n == HC_IBS_RAW_MIN);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	CHECK(op.load && !op.store && !op.locked);
	CHECK_EQ_U64(op.addr, 0x7f1234567890ull);
	CHECK_EQ_U64(op.rip, 0x401000);
	CHECK_EQ_U64(op.width, 8);
	/* store, a dc miss, no width reported (before Zen 4) */
	k.data3 = KIBS_D3_ST | KIBS_D3_LINVALID | KIBS_D3_DC_MISS;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	CHECK(op.store && !op.load && op.width == 0);
	/* locked RMW: both bits */
	k.data3 = KIBS_D3_LD | KIBS_D3_ST | KIBS_D3_LOCKED | KIBS_D3_LINVALID | KIBS_D3_WIDTH(3);
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	CHECK(op.load && op.store && op.locked && op.width == 4);
	/* before Zen 4 (no IBS_CAPS_ZEN4) those bits are reserved: no width */
	k.caps = 0x1ff;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	CHECK(op.locked && op.width == 0);
	k.caps |= HC_IBS_CAPS_ZEN4;
	/* a memory op without a valid linear address */
	k.data3 = KIBS_D3_LD | KIBS_D3_PHYVALID;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_NO_ADDR);
	CHECK_EQ_U64(op.addr, 0);
	/* not a memory op (an ALU op or a branch) */
	k.data3 = 0;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_NOT_MEMORY);
	/* a software prefetch is not an access of the program's data */
	k.data3 = KIBS_D3_LD | KIBS_D3_SWPF | KIBS_D3_LINVALID;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_NOT_MEMORY);
	/* invalid RIP */
	k.data3 = KIBS_D3_LD | KIBS_D3_LINVALID;
	k.data = KIBS_D1_RIP_INV;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_NO_RIP);
	k.data = 0;
	/* the sample's valid bit is clear */
	k.ctl = KIBS_CTL_EN;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_NOT_VALID);
	k.ctl = KIBS_CTL_VAL | KIBS_CTL_EN;
	/* short images */
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n - 8, &op) == HC_IBS_SHORT);
	CHECK(hc_ibs_decode(NULL, 0, &op) == HC_IBS_SHORT);
	/* with the branch-target register appended (caps BRNTRGT) */
	k.with_brtarget = 1;
	k.brtarget = 0xdeadbeef;
	n = kibs_image(&k, img);
	CHECK(n == HC_IBS_RAW_MIN + 8);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	CHECK_EQ_U64(op.addr, 0x7f1234567890ull);
	k.with_brtarget = 0;

	/* issue 19: the op data bits and the capability word, checked as the
	   kernel does. RIP-invalid (IbsOpData 38) only where implemented
	   (IBS_CAPS_RIPINVALIDCHK, caps bit 7): elsewhere the bit is reserved. */
	k.data3 = KIBS_D3_LD | KIBS_D3_LINVALID;
	k.data = KIBS_D1_RIP_INV;
	k.caps = HC_IBS_CAPS_ZEN4;                       /* no RIPINVALIDCHK */
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	k.caps |= HC_IBS_CAPS_RIPINVALIDCHK;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_NO_RIP);
	k.data = 0;
	/* a zero RIP is never the op's */
	k.rip = 0;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_NO_RIP);
	k.rip = 0x401000;
	/* a retired, mispredicted branch op: not memory (flagged as a branch) */
	k.data3 = 0;
	k.data = (1ull << 37) | (1ull << 36);
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_NOT_MEMORY);
	CHECK(op.branch && op.mispredicted);
	/* a fused compare-with-memory + branch: the load is real, kept */
	k.data3 = KIBS_D3_LD | KIBS_D3_LINVALID;
	k.data = 1ull << 37;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	CHECK(op.branch && !op.mispredicted && op.load);
	k.data = 0;
	/* period randomization: op-counting mode (IbsOpCntCtl) on a CPU with
	   IBS_CAPS_RDWROPCNT, whose random IbsOpCurCnt bits the kernel keeps */
	k.caps = HC_IBS_CAPS_RDWROPCNT;
	k.ctl = KIBS_CTL_VAL | KIBS_CTL_EN | HC_IBS_OPCTL_CNT_CTL;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	CHECK(op.randomized && !op.branch);
	k.ctl = KIBS_CTL_VAL | KIBS_CTL_EN;              /* cycle counting: not our mode */
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	CHECK(!op.randomized);
	k.caps = 0;
	k.ctl = KIBS_CTL_VAL | KIBS_CTL_EN | HC_IBS_OPCTL_CNT_CTL;
	n = kibs_image(&k, img);
	CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
	CHECK(!op.randomized);
	/* op_mem_width: every encoding, only with IBS_CAPS_ZEN4 */
	for (unsigned w = 0; w < 16; w++) {
		k.data3 = KIBS_D3_LD | KIBS_D3_LINVALID | KIBS_D3_WIDTH(w);
		k.caps = HC_IBS_CAPS_ZEN4;
		n = kibs_image(&k, img);
		CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
		CHECK_EQ_U64(op.width, w >= 1 && w <= 5 ? 1u << (w - 1) : 0);
		k.caps = 0x7ff;                          /* everything before Zen 4 */
		n = kibs_image(&k, img);
		CHECK(hc_ibs_decode(img, n, &op) == HC_IBS_MEM);
		CHECK_EQ_U64(op.width, 0);
	}

	CHECK_EQ_U64(hc_ibs_period(500000), 500000);
	CHECK_EQ_U64(hc_ibs_period(1000001), 1000000);
	CHECK_EQ_U64(hc_ibs_period(15), 16);
	CHECK_EQ_U64(hc_ibs_period(0), 16);
}

static struct hc_perf_sample ps_at(uint64_t ip, uint64_t addr)
{
	struct hc_perf_sample p = { .ip = ip, .addr = addr, .time = 777, .cpu = 3, .tid = 9 };
	return p;
}

static void test_pebs_convert(void)
{
	struct hc_pmu_source st = { .kind = HC_SAMPLER_PEBS, .store_event = true };
	struct hc_pmu_source ld = { .kind = HC_SAMPLER_PEBS, .store_event = false };
	struct hc_perf_sample p;
	struct hc_sample s;
	uint64_t leaf = 0;

	p = ps_at(IP(at_st4), 0x7f0000001004ull);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK_EQ_U64(s.addr, 0x7f0000001004ull);
	CHECK_EQ_U64(s.len, 4);
	CHECK(s.is_store);
	CHECK_EQ_U64(s.time, 777);
	CHECK(s.cpu == 3 && s.ctx == HC_NONE);
	CHECK_EQ_U64(leaf, IP(at_st4));

	p = ps_at(IP(at_ld8), 0x7f0000002000ull);
	CHECK(hc_pmu_to_sample(&ld, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK(!s.is_store && s.len == 8);
	p = ps_at(IP(at_ld16), 0x7f0000002000ull);
	CHECK(hc_pmu_to_sample(&ld, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK_EQ_U64(s.len, 16);
	p = ps_at(IP(at_st1), 0x7f0000002001ull);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK_EQ_U64(s.len, 1);
	/* the loads event on a locked RMW: an atomic counts as a store */
	p = ps_at(IP(at_lock), 0x7f0000002000ull);
	CHECK(hc_pmu_to_sample(&ld, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK(s.is_store && s.len == 4);
	/* direction mismatch, stack slots, no access */
	p = ps_at(IP(at_ld8), 0x7f0000002000ull);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_NO_ACCESS);
	p = ps_at(IP(at_push), 0x7ffc00000ff8ull);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_STACK);
	p = ps_at(IP(at_pop), 0x7ffc00000ff8ull);
	CHECK(hc_pmu_to_sample(&ld, &p, NULL, &s, &leaf) == HC_PMU_STACK);
	p = ps_at(IP(at_nop), 0x7f0000002000ull);
	CHECK(hc_pmu_to_sample(&ld, &p, NULL, &s, &leaf) == HC_PMU_NO_ACCESS);
	/* no address, kernel IP, kernel address */
	p = ps_at(IP(at_st4), 0);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_NO_ADDR);
	p = ps_at(0xffffffff81000000ull, 0x7f0000002000ull);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_KERNEL);
	p = ps_at(IP(at_st4), 0xffff888000001000ull);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_KERNEL);
	p = ps_at(0, 0x7f0000002000ull);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_KERNEL);

	/* precise_ip = 1: the IP is the instruction after the access */
	st.ip_is_next = true;
	ld.ip_is_next = true;
	p = ps_at(IP(at_ld8), 0x7f0000001004ull);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK(s.is_store && s.len == 4);
	CHECK_EQ_U64(leaf, IP(at_st4));
	p = ps_at(IP(at_push), 0x7f0000002000ull);
	CHECK(hc_pmu_to_sample(&ld, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK(!s.is_store && s.len == 8);
	CHECK_EQ_U64(leaf, IP(at_ld8));
	/* an IP that is no instruction boundary */
	p = ps_at(IP(at_ld8) + 1, 0x7f0000002000ull);
	CHECK(hc_pmu_to_sample(&ld, &p, NULL, &s, &leaf) == HC_PMU_UNDECODABLE);

	for (int i = 0; i < HC_PMU_STATUS_COUNT; i++)
		CHECK(strcmp(hc_pmu_status_name(i), "?") != 0);
}

static struct hc_perf_sample ibs_sample(struct kibs *k, uint8_t *img)
{
	struct hc_perf_sample p = { .ip = k->rip, .time = 55, .cpu = 1 };
	p.raw_size = kibs_image(k, img);
	p.raw = img;
	return p;
}

static void test_ibs_convert(void)
{
	struct hc_pmu_source src = { .kind = HC_SAMPLER_IBS };
	struct kibs k = { .caps = HC_IBS_CAPS_ZEN4, .ctl = KIBS_CTL_VAL | KIBS_CTL_EN,
	                  .linaddr = 0x7f0000003008ull };
	struct hc_perf_sample p;
	struct hc_sample s;
	uint8_t img[128];
	uint64_t leaf;

	k.rip = IP(at_st4);
	k.data3 = KIBS_D3_ST | KIBS_D3_LINVALID;
	p = ibs_sample(&k, img);
	CHECK(hc_pmu_to_sample(&src, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK(s.is_store && s.len == 4 && s.addr == 0x7f0000003008ull && s.time == 55);
	/* a 16-byte load reported as an 8-byte op (split): the op's width wins */
	k.rip = IP(at_ld16);
	k.data3 = KIBS_D3_LD | KIBS_D3_LINVALID | KIBS_D3_WIDTH(4);
	p = ibs_sample(&k, img);
	CHECK(hc_pmu_to_sample(&src, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK(!s.is_store && s.len == 8);
	k.data3 = KIBS_D3_LD | KIBS_D3_LINVALID | KIBS_D3_WIDTH(5);
	p = ibs_sample(&k, img);
	CHECK(hc_pmu_to_sample(&src, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK_EQ_U64(s.len, 16);
	/* locked RMW */
	k.rip = IP(at_lock);
	k.data3 = KIBS_D3_LD | KIBS_D3_ST | KIBS_D3_LOCKED | KIBS_D3_LINVALID;
	p = ibs_sample(&k, img);
	CHECK(hc_pmu_to_sample(&src, &p, NULL, &s, &leaf) == HC_PMU_OK);
	CHECK(s.is_store);
	/* rejected ops */
	k.data3 = 0;
	p = ibs_sample(&k, img);
	CHECK(hc_pmu_to_sample(&src, &p, NULL, &s, &leaf) == HC_PMU_NOT_MEMORY);
	k.data3 = KIBS_D3_LD;
	p = ibs_sample(&k, img);
	CHECK(hc_pmu_to_sample(&src, &p, NULL, &s, &leaf) == HC_PMU_NO_ADDR);
	k.ctl = 0;
	k.data3 = KIBS_D3_LD | KIBS_D3_LINVALID;
	p = ibs_sample(&k, img);
	CHECK(hc_pmu_to_sample(&src, &p, NULL, &s, &leaf) == HC_PMU_BAD_RAW);
	p.raw = NULL;
	p.raw_size = 0;
	CHECK(hc_pmu_to_sample(&src, &p, NULL, &s, &leaf) == HC_PMU_BAD_RAW);
	/* kernel ops are dropped (kernels without exclude_kernel for IBS) */
	k.ctl = KIBS_CTL_VAL;
	k.rip = 0xffffffff81234567ull;
	p = ibs_sample(&k, img);
	CHECK(hc_pmu_to_sample(&src, &p, NULL, &s, &leaf) == HC_PMU_KERNEL);
}

/* precise_ip = 1 decodes the instruction ending at the IP: the walk from
   the function start is cached per IP in the thread's previous-instruction
   cache, so a repeated IP is a hit with the same result. */
static void test_prev_cache(void)
{
	struct hc_pmu_source ld = { .kind = HC_SAMPLER_PEBS, .ip_is_next = true };
	struct hc_pmu_env env = { .cache = calloc(1, sizeof(struct hc_prev_cache)) };
	struct hc_perf_sample p = ps_at(IP(at_push), 0x7f0000002000ull);
	struct hc_sample s1, s2;
	uint64_t l1 = 0, l2 = 0, h, m;
	struct kbuf k;
	struct krec r;
	struct hc_pmu_stream stream = { .src = ld };
	struct hc_pmu_counts c;
	size_t n;

	if (!env.cache) {
		CHECK(env.cache != NULL);
		return;
	}
	CHECK(hc_pmu_to_sample(&ld, &p, &env, &s1, &l1) == HC_PMU_OK);
	CHECK_EQ_U64(env.cache->hits, 0);
	m = env.cache->misses;
	CHECK(m >= 1);
	CHECK(hc_pmu_to_sample(&ld, &p, &env, &s2, &l2) == HC_PMU_OK);
	CHECK_EQ_U64(env.cache->hits, 1);
	CHECK_EQ_U64(env.cache->misses, m);
	CHECK_EQ_U64(l1, IP(at_ld8));
	CHECK_EQ_U64(l2, l1);
	CHECK(s1.len == 8 && s2.len == 8 && !s1.is_store && !s2.is_store);
	/* another IP: a miss, then hits through the drain */
	p = ps_at(IP(at_push) + 1, 0x7f0000002000ull);   /* after push: ends at at_pop */
	ld.store_event = true;                               /* push: a stack store */
	CHECK(hc_pmu_to_sample(&ld, &p, &env, &s1, &l1) == HC_PMU_STACK);
	ld.store_event = false;
	CHECK_EQ_U64(env.cache->misses, m + 1);
	h = env.cache->hits;

	if (kbuf_open(&k, 4, 1) < 0) {
		CHECK(!"kbuf_open");
		free(env.cache);
		return;
	}
	kbuf_seek(&k, 0);
	for (int i = 0; i < 3; i++) {
		struct kpebs e = { .ip = IP(at_push), .addr = 0x7f0000002000ull + 8u * (unsigned)i,
		                   .time = 100u + (unsigned)i, .pid = 9, .tid = 9 };
		n = krec_pebs(&r, &e);
		kbuf_put(&k, r.b, n);
	}
	CHECK(hc_perfbuf_init(&stream.buf, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE) == 0);
	memset(&c, 0, sizeof c);
	CHECK_EQ_U64(hc_pmu_drain(&stream, 1, 9, &env, NULL_SINK, NULL, &c), 3);
	CHECK_EQ_U64(env.cache->hits, h + 3);
	CHECK_EQ_U64(env.cache->misses, m + 1);
	kbuf_close(&k);
	free(env.cache);
}

/* The TEST-ONLY stand-in (addr_from_regs): a record without an address
   gets the one of the instruction before the interrupted PC, computed
   from the signal's registers, only when it is the newest record and its
   IP is that PC, and only in the event's direction. */
static void test_standin_addr(void)
{
	struct hc_pmu_source st = { .kind = HC_SAMPLER_PEBS, .store_event = true,
	                            .ip_is_next = true, .addr_from_regs = true };
	struct hc_pmu_source ld = st;
	static long long gregs[NGREG];
	struct hc_regs regs = { .gregs = gregs };
	struct hc_pmu_env env = { .regs = &regs, .cache = calloc(1, sizeof(struct hc_prev_cache)) };
	struct hc_perf_sample p = ps_at(IP(at_ld8), 0);
	struct hc_sample s;
	uint64_t leaf = 0;

	ld.store_event = false;
	gregs[REG_RIP] = (long long)IP(at_ld8);      /* after movl %eax,(%rdi) */
	gregs[REG_RDI] = 0x7f0000005004ll;
	p.newest = true;
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_OK);
	CHECK_EQ_U64(s.addr, 0x7f0000005004ull);
	CHECK(s.is_store && s.len == 4);
	CHECK_EQ_U64(leaf, IP(at_st4));
	/* the loads event at a store: no address */
	CHECK(hc_pmu_to_sample(&ld, &p, &env, &s, &leaf) == HC_PMU_NO_ADDR);
	/* an older record of the batch, or another IP: the registers are not its own */
	p.newest = false;
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_NO_ADDR);
	p.newest = true;
	p.ip = IP(at_push);
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_NO_ADDR);
	/* drained at stop (no registers), or not the stand-in */
	p.ip = IP(at_ld8);
	CHECK(hc_pmu_to_sample(&st, &p, NULL, &s, &leaf) == HC_PMU_NO_ADDR);
	st.addr_from_regs = false;
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_NO_ADDR);
	/* a real address wins over the registers */
	st.addr_from_regs = true;
	p.addr = 0x7f0000009000ull;
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_OK);
	CHECK_EQ_U64(s.addr, 0x7f0000009000ull);
	free(env.cache);
}


/* Issue 19: records of the runtime's own accesses (IP or data address in
   its code or memory) are dropped and counted; records whose code is no
   longer mapped are dropped without reading there; PERF_SAMPLE_PERIOD is
   collected; the context is exact only for the newest record sampled in
   the interrupted function. */
struct seen { int n, exact; uint64_t leaf[8]; };
static void seen_sink(void *arg, uint64_t leaf, struct hc_sample *s, bool exact_ctx)
{
	struct seen *v = arg;
	(void)s;
	if (v->n < 8)
		v->leaf[v->n] = leaf;
	v->n++;
	v->exact += exact_ctx;
}

static void test_self_and_unmapped(void)
{
	struct hc_pmu_source st = { .kind = HC_SAMPLER_PEBS, .store_event = true };
	static uint8_t arena[4096];
	static long long gregs[NGREG];
	struct hc_regs regs = { .gregs = gregs };
	struct hc_pmu_env env = { .code_readable = hc_code_readable };
	struct hc_perf_sample p;
	struct hc_sample s;
	uint64_t leaf;
	size_t pg = 4096;
	uint8_t *code;

	/* the runtime's code range (here: the test's own pmu_fn) and its
	   memory (a stand-in arena) */
	env.self[0].lo = IP(at_st4);
	env.self[0].hi = IP(at_ret) + 1;
	env.self[1].lo = (uint64_t)(uintptr_t)arena;
	env.self[1].hi = env.self[1].lo + sizeof arena;
	env.nself = 2;
	p = ps_at(IP(at_st4), 0x7f0000001000ull);          /* IP in the runtime */
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_IN_RUNTIME);
	env.self[0].lo = env.self[0].hi = 0;               /* code range elsewhere */
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_OK);
	p.addr = (uint64_t)(uintptr_t)(arena + 100);       /* address in its arena */
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_IN_RUNTIME);
	p.addr = (uint64_t)(uintptr_t)(arena + sizeof arena);   /* one past: the program's */
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_OK);
	CHECK_STR(hc_pmu_status_name(HC_PMU_IN_RUNTIME), "in-runtime");
	/* taken while the handler ran (time in a busy interval; ps_at's
	   records are at t = 777), whatever the IP and address: libc or
	   libunwind called from the handler, reading the program's stack */
	env.busy[0].lo = 700;
	env.busy[0].hi = 777;                              /* [700, 777): just before */
	env.busy[1].lo = 800;
	env.busy[1].hi = UINT64_MAX;                       /* the run in progress */
	env.nbusy = 2;
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_OK);
	env.busy[0].hi = 778;
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_IN_RUNTIME);
	env.busy[0].hi = 777;
	env.busy[1].lo = 777;
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_IN_RUNTIME);
	env.nbusy = 0;

	/* code that was mapped and is gone (a dlclose'd module, JIT code
	   freed): dropped, no fault, both with the exact IP and with the
	   "next instruction" IP of precise_ip 1 */
	code = mmap(NULL, pg, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(code != MAP_FAILED);
	if (code == MAP_FAILED)
		return;
	memcpy(code, at_st4, 2);                            /* movl %eax,(%rdi) */
	p = ps_at((uint64_t)(uintptr_t)code, 0x7f0000001000ull);
	CHECK(hc_code_readable(p.ip));
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_OK);   /* mapped: decoded */
	CHECK_EQ_U64(s.len, 4);
	munmap(code, pg);
	CHECK(!hc_code_readable(p.ip));
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_UNMAPPED);
	st.ip_is_next = true;
	p.ip += 2;
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_UNMAPPED);
	st.ip_is_next = false;
	CHECK_STR(hc_pmu_status_name(HC_PMU_UNMAPPED), "unmapped");

	/* through the drain: counted by verdict; periods collected; only
	   the newest record at the interrupted function has an exact context */
	{
		struct kbuf k;
		struct krec r;
		static struct hc_pmu_stream stream;
		struct hc_pmu_counts c;
		struct seen v = { 0 };
		size_t n;

		if (kbuf_open(&k, 4, 1) < 0) {
			CHECK(!"kbuf_open");
			return;
		}
		kbuf_seek(&k, 0);
		/* a fresh code page, unmapped once the records are written (after
		   the buffer's own mmap, which could otherwise reuse the page) */
		code = mmap(NULL, pg, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(code != MAP_FAILED);
		for (int i = 0; i < 5; i++) {
			/* ip|tid|time|addr|cpu|period|weight|data_src */
			uint64_t ip = i == 1 ? (uint64_t)(uintptr_t)code : IP(at_st4);
			uint64_t addr = i == 2 ? (uint64_t)(uintptr_t)arena : 0x7f0000001000ull + 64u * (unsigned)i;
			krec_begin(&r, PERF_RECORD_SAMPLE);
			krec_u64(&r, ip);
			krec_u32x2(&r, 9, 9);
			krec_u64(&r, 100 + (unsigned)i);
			krec_u64(&r, addr);
			krec_u32x2(&r, 1, 0);
			krec_u64(&r, 20000 + 16u * (unsigned)i);   /* the period the kernel used */
			krec_u64(&r, 0);
			krec_u64(&r, 0);
			n = krec_end(&r);
			kbuf_put(&k, r.b, n);
		}
		krec_lost_samples(&r, 3);
		kbuf_put(&k, r.b, krec_end(&r));
		munmap(code, pg);
		stream.src = st;
		CHECK(hc_perfbuf_init(&stream.buf, k.base, k.len, k.page,
		                      HC_PEBS_SAMPLE_TYPE | HC_PMU_SAMPLE_EXTRA) == 0);
		memset(&c, 0, sizeof c);
		gregs[REG_RIP] = (long long)IP(at_ld8);          /* interrupted in pmu_fn */
		env.regs = &regs;
		CHECK_EQ_U64(hc_pmu_drain(&stream, 1, 9, &env, seen_sink, &v, &c), 3);
		CHECK_EQ_U64(c.status[HC_PMU_UNMAPPED], 1);
		CHECK_EQ_U64(c.status[HC_PMU_IN_RUNTIME], 1);
		CHECK_EQ_U64(c.ring.lost_samples, 3);
		CHECK_EQ_U64(c.period_min, 20000);
		CHECK_EQ_U64(c.period_max, 20064);
		CHECK_EQ_U64(c.period_n, 5);
		CHECK_EQ_U64(c.period_sum, 5 * 20000 + 16 * 10);
		/* the last sample record is not the newest record (LOST_SAMPLES
		   follows): no exact context for any */
		CHECK_EQ_U64(v.exact, 0);
		CHECK_EQ_U64(c.ctx_approx, 3);
		/* a newest record sampled in the interrupted function: exact;
		   interrupted elsewhere (the function returned): leaf only */
		{
			struct kpebs e = { .ip = IP(at_st4), .addr = 0x7f0000003000ull, .time = 200,
			                   .pid = 9, .tid = 9 };
			struct hc_pmu_stream s2;
			s2.src = st;
			kbuf_seek(&k, 4096);
			kbuf_put(&k, r.b, krec_pebs(&r, &e));
			CHECK(hc_perfbuf_init(&s2.buf, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE) == 0);
			v.n = v.exact = 0;
			CHECK_EQ_U64(hc_pmu_drain(&s2, 1, 9, &env, seen_sink, &v, &c), 1);
			CHECK_EQ_U64(v.exact, 1);
			kbuf_put(&k, r.b, krec_pebs(&r, &e));
			gregs[REG_RIP] = (long long)(uintptr_t)test_self_and_unmapped;   /* elsewhere */
			v.n = v.exact = 0;
			CHECK_EQ_U64(hc_pmu_drain(&s2, 1, 9, &env, seen_sink, &v, &c), 1);
			CHECK_EQ_U64(v.exact, 0);
			/* no registers (drained at stop): never exact */
			kbuf_put(&k, r.b, krec_pebs(&r, &e));
			env.regs = NULL;
			v.n = v.exact = 0;
			CHECK_EQ_U64(hc_pmu_drain(&s2, 1, 9, &env, seen_sink, &v, &c), 1);
			CHECK_EQ_U64(v.exact, 0);
		}
		kbuf_close(&k);
	}
}

/* A library loaded before the first walk that nothing links (dlopen'd):
   what the runtime's own dependencies look like to loadmap.c (loaded at
   start, not reachable from the program's DT_NEEDED or LD_PRELOAD). */
static uint64_t private_fn;
int main(void);

static void load_private(void)
{
	static const char *const cand[][2] = {
		{ "libz.so.1", "crc32" }, { "liblzma.so.5", "lzma_version_number" },
		{ "libbz2.so.1.0", "BZ2_bzlibVersion" }, { "libzstd.so.1", "ZSTD_versionNumber" },
	};
	for (size_t i = 0; i < sizeof cand / sizeof cand[0] && !private_fn; i++) {
		void *h;
		if (dlopen(cand[i][0], RTLD_NOW | RTLD_NOLOAD))
			continue;                               /* already linked: native */
		h = dlopen(cand[i][0], RTLD_NOW | RTLD_LOCAL);
		if (h)
			private_fn = (uint64_t)(uintptr_t)dlsym(h, cand[i][1]);
	}
}

static int self_value = 42;

/* Issue 19: records the runtime's own code took outside its handler (its
   start-up, a wrapper, the flush helper's copies, a thread's start or end)
   fall in no busy interval; the ranges catch them whatever the thread was
   doing. The env is built as pmu.c's self_ranges builds it: the library's
   whole loaded range (loadmap__self_*: here this test binary, which
   compiles loadmap.c in), the runtime's heap (a stand-in buffer), the
   modules only the runtime loaded (loadmap__private); no busy interval,
   no registers (a drain at stop). */
static void test_runtime_ranges(void)
{
	struct hc_pmu_source st = { .kind = HC_SAMPLER_PEBS, .store_event = false };
	struct hc_pmu_env env = { .code_readable = hc_code_readable };
	struct loadmap_range pm[LOADMAP_PRIVATE_MAX];
	static uint8_t heap[8192];
	const uint64_t libc_ip = (uint64_t)(uintptr_t)&memcpy;
	const uint64_t ips[] = { IP(main), IP(loadmap__refresh), IP(hc_pmu_drain), IP(hc_decode_init),
	                         IP(at_ld8) };
	uint32_t np = loadmap__private(pm, LOADMAP_PRIVATE_MAX);
	struct hc_perf_sample p;
	struct hc_sample s;
	uint64_t leaf;
	bool found = false;

	loadmap__self_init();
	CHECK(loadmap__self_len > 0);
	env.self[env.nself].lo = loadmap__self_lo;
	env.self[env.nself++].hi = loadmap__self_lo + loadmap__self_len;
	env.self[env.nself].lo = (uint64_t)(uintptr_t)heap;
	env.self[env.nself++].hi = (uint64_t)(uintptr_t)heap + sizeof heap;
	for (uint32_t i = 0; i < np; i++) {
		env.self[env.nself].lo = pm[i].lo;
		env.self[env.nself++].hi = pm[i].hi;
		found |= private_fn - pm[i].lo < pm[i].hi - pm[i].lo;
		/* never this binary (the runtime itself), libc (native), the vDSO */
		CHECK(!(loadmap__self_lo - pm[i].lo < pm[i].hi - pm[i].lo));
		CHECK(!(libc_ip - pm[i].lo < pm[i].hi - pm[i].lo));
		CHECK(!(getauxval(AT_SYSINFO_EHDR) - pm[i].lo < pm[i].hi - pm[i].lo));
	}
	fprintf(stderr, "private modules: %u, the dlopen'd library's function at %#llx\n", np,
	        (unsigned long long)private_fn);
	CHECK_MSG(private_fn != 0, "none of the candidate libraries could be dlopen'd");
	if (private_fn)
		CHECK_MSG(found, "the dlopen'd library is not among the %u private modules", np);
	/* IPs anywhere in the runtime's text, none in a handler run */
	for (size_t i = 0; i < sizeof ips / sizeof ips[0]; i++) {
		p = ps_at(ips[i], 0x7f0000001000ull);
		CHECK_MSG(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_IN_RUNTIME, "ip #%zu", i);
	}
	/* libc's code (memcpy called by the runtime) on the runtime's data,
	   its heap: the address decides */
	p = ps_at(libc_ip, (uint64_t)(uintptr_t)&self_value);
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_IN_RUNTIME);
	p = ps_at(libc_ip, (uint64_t)(uintptr_t)(heap + 4000));
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_IN_RUNTIME);
	/* code of a module only the runtime loaded (libunwind, Zydis...) */
	if (private_fn) {
		p = ps_at(private_fn, 0x7f0000001000ull);
		CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) == HC_PMU_IN_RUNTIME);
	}
	/* a program's load outside all of them goes on (libc's memcpy reading
	   the program's memory: decoded; whatever the verdict, not in-runtime) */
	p = ps_at(libc_ip, 0x7f0000001000ull);
	CHECK(hc_pmu_to_sample(&st, &p, &env, &s, &leaf) != HC_PMU_IN_RUNTIME);
}

int main(void)
{
	load_private();
	if (hc_decode_init() < 0 || loadmap__refresh() < 0) {
		fprintf(stderr, "cannot initialise the decoder\n");
		return 1;
	}
	test_ibs_decode();
	test_pebs_convert();
	test_ibs_convert();
	test_prev_cache();
	test_standin_addr();
	test_self_and_unmapped();
	test_runtime_ranges();
	return hc_test_done("test_pmu_sample");
}
