/* SPDX-License-Identifier: BSD-3-Clause */
/* test_decode_isa.c — effective addresses, sizes and directions of tricky
   x86-64 instruction classes, checked against the real machine: each case
   executes "int3; <insn>" with known register values, and the SIGTRAP
   handler decodes the interrupted instruction from its ucontext exactly as
   the sampler does (hc_decode_at_pc). The 62 cases of the feasibility
   prototype's isa_test (doc/findings.md §3.1) plus more. Cases the CPU cannot run
   (AVX-512 here) are skipped one by one; their encodings are also decoded
   without executing them against a synthetic register file, so the EVEX
   paths are checked on every machine. Built with -mno-red-zone: the inline
   asm pushes below rsp. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <unistd.h>
#include <asm/prctl.h>

#include "decode/decode.h"
#include "hc_test.h"

#define R  HC_ACC_R
#define W  HC_ACC_W
#define RW (HC_ACC_R | HC_ACC_W)

long g_glob = 7;
__thread long g_tls = 3;

/* ---- register state of the trap ------------------------------------- */

static bool have_fsgsbase;

static uint64_t fs_base(void)
{
	unsigned long v = 0;

	if (have_fsgsbase) {
		__asm__ volatile("rdfsbase %0" : "=r"(v));
		return v;
	}
	syscall(SYS_arch_prctl, ARCH_GET_FS, &v);
	return v;
}

static uint64_t gs_base(void)
{
	unsigned long v = 0;

	if (have_fsgsbase) {
		__asm__ volatile("rdgsbase %0" : "=r"(v));
		return v;
	}
	syscall(SYS_arch_prctl, ARCH_GET_GS, &v);
	return v;
}

static struct hc_insn got;
static int got_rc;
static uint64_t ctx_rsp, ctx_rbp, ctx_rip;
static int traps;

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct hc_regs r = { uc->uc_mcontext.gregs, fs_base(), gs_base() };

	(void)sig;
	(void)si;
	ctx_rsp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	ctx_rbp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
	ctx_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	got_rc = hc_decode_at_pc(&r, &got);
	traps++;
}

/* ---- expectations ----------------------------------------------------- */

enum { ABS, RSP, RBP };  /* what an expected address is relative to */

struct want {
	int base;
	int64_t v;
	uint32_t size;
	uint8_t rw;
	int kind;        /* -1: any */
	uint16_t flags;  /* flags that must be set */
};

static struct want want[HC_MAX_ACC];
static int nwant, ncases, nskipped, traps_before;
static const char *case_name;

static void begin(const char *name)
{
	case_name = name;
	nwant = 0;
	memset(&got, 0xa5, sizeof(got));
	got_rc = -1;
	traps_before = traps;
}

static void want_acc(int base, int64_t v, uint32_t size, uint8_t rw, int kind, uint16_t flags)
{
	want[nwant++] = (struct want){ base, v, size, rw, kind, flags };
}

#define WANT(b, v, s, rw)          want_acc((b), (int64_t)(v), (s), (rw), -1, 0)
#define WANTK(b, v, s, rw, k, f)   want_acc((b), (int64_t)(v), (s), (rw), (k), (f))

static uint64_t want_ea(const struct want *w)
{
	return w->base == RSP ? ctx_rsp + (uint64_t)w->v :
	       w->base == RBP ? ctx_rbp + (uint64_t)w->v : (uint64_t)w->v;
}

static void dump_got(void)
{
	fprintf(stderr, "  %s: rc %d len %u n %u flags 0x%x branch %d\n", case_name, got_rc,
	        got.len, got.n, got.flags, got.branch);
	for (int i = 0; i < got.n && i < HC_MAX_ACC; i++)
		fprintf(stderr, "    got ea 0x%" PRIx64 " (rsp%+" PRId64 ") size %u rw %u kind %u flags 0x%x\n",
		        got.acc[i].ea, (int64_t)(got.acc[i].ea - ctx_rsp), got.acc[i].size,
		        got.acc[i].rw, got.acc[i].kind, got.acc[i].flags);
	for (int i = 0; i < nwant; i++)
		fprintf(stderr, "    want ea 0x%" PRIx64 " size %u rw %u kind %d flags 0x%x\n",
		        want_ea(&want[i]), want[i].size, want[i].rw, want[i].kind, want[i].flags);
}

/* Every expected access is present (address, size, direction, and kind and
   flags where given) and nothing else is. */
static bool matches(void)
{
	bool used[HC_MAX_ACC] = { false };

	if (got_rc != 0 || got.len == 0 || got.addr != ctx_rip || got.n > HC_MAX_ACC ||
	    got.n != nwant)
		return false;
	for (int i = 0; i < nwant; i++) {
		bool ok = false;

		for (int j = 0; j < got.n && !ok; j++) {
			const struct hc_mem_access *a = &got.acc[j];

			if (used[j] || a->ea != want_ea(&want[i]) || a->size != want[i].size ||
			    a->rw != want[i].rw || (want[i].kind >= 0 && a->kind != want[i].kind) ||
			    (a->flags & want[i].flags) != want[i].flags)
				continue;
			used[j] = ok = true;
		}
		if (!ok)
			return false;
	}
	return true;
}

static void end(void)
{
	ncases++;
	CHECK_MSG(traps == traps_before + 1, "%s: trap count", case_name);
	CHECK_MSG(matches(), "%s", case_name);
	if (!matches())
		dump_got();
}

static void skip(const char *name, const char *why)
{
	fprintf(stderr, "  skip %s: %s\n", name, why);
	nskipped++;
}

/* ---- code in executable pages, for what inline asm cannot express ------ */

/* Run bytes as a function of arg (int3 first, ret last) from a fresh
   mapping at offset off of its first page; the page after it is left
   PROT_NONE unless two_pages, so any read past the first page faults. */
static long run_code(const uint8_t *bytes, size_t n, size_t off, bool two_pages, void *arg)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	long (*fn)(long);
	long rv;

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	memcpy(p + off, bytes, n);
	mprotect(p, pg, PROT_READ | PROT_EXEC);
	mprotect(p + pg, pg, two_pages ? PROT_READ | PROT_EXEC : PROT_NONE);
	fn = (long (*)(long))(void *)(p + off);
	rv = fn((long)(uintptr_t)arg);
	munmap(p, 2 * pg);
	return rv;
}

/* ---- encodings decoded without running them --------------------------- */

#define ASM_SYM(name) extern const uint8_t name[] __attribute__((visibility("hidden")))
#define STATIC_INSN(name, text) \
	".globl " #name "\n.hidden " #name "\n" #name ":\n\t" text "\n" \
	".globl " #name "_end\n.hidden " #name "_end\n" #name "_end:\n"

__asm__(".pushsection .rodata.hc_test_insns,\"a\"\n"
	STATIC_INSN(s_zmm_store, "vmovdqu64 %zmm0,(%rdi)")
	STATIC_INSN(s_zmm_store_k, "vmovdqu32 %zmm0,0x40(%rdi){%k1}")
	STATIC_INSN(s_zmm_load_kz, "vmovdqu32 (%rdi),%zmm0{%k1}{z}")
	STATIC_INSN(s_bcst, "vaddps (%rdi){1to16},%zmm1,%zmm2")
	STATIC_INSN(s_scatter, "vpscatterdd %zmm1,(%rax,%zmm2,4){%k1}")
	STATIC_INSN(s_gather, "vpgatherdd 8(%rax,%zmm1,4),%zmm3{%k1}")
	STATIC_INSN(s_evex_index, ".byte 0x62,0xe1,0xf5,0x20,0xef,0x4c,0x17,0xfe")
	STATIC_INSN(s_kmov, "kmovq (%rdi),%k1")
	STATIC_INSN(s_addr32_movsb, "addr32 movsb")
	STATIC_INSN(s_rep_addr32_ecx0, "addr32 rep stosb")
	STATIC_INSN(s_truncated, "movabs 0x1122334455667788,%rax")
	".popsection\n");

ASM_SYM(s_zmm_store); ASM_SYM(s_zmm_store_end);
ASM_SYM(s_zmm_store_k); ASM_SYM(s_zmm_store_k_end);
ASM_SYM(s_zmm_load_kz); ASM_SYM(s_zmm_load_kz_end);
ASM_SYM(s_bcst); ASM_SYM(s_bcst_end);
ASM_SYM(s_scatter); ASM_SYM(s_scatter_end);
ASM_SYM(s_gather); ASM_SYM(s_gather_end);
ASM_SYM(s_evex_index); ASM_SYM(s_evex_index_end);
ASM_SYM(s_kmov); ASM_SYM(s_kmov_end);
ASM_SYM(s_addr32_movsb); ASM_SYM(s_addr32_movsb_end);
ASM_SYM(s_rep_addr32_ecx0); ASM_SYM(s_rep_addr32_ecx0_end);
ASM_SYM(s_truncated); ASM_SYM(s_truncated_end);

static long long sregs[NGREG];

/* Decode [b, e) against sregs (after begin() and the WANTs). */
static void static_run(const uint8_t *b, const uint8_t *e)
{
	struct hc_regs r = { sregs, 0x7000000000ull, 0 };
	const char *name = case_name;

	ctx_rsp = (uint64_t)sregs[REG_RSP];
	ctx_rip = (uint64_t)(uintptr_t)b;
	ctx_rbp = (uint64_t)sregs[REG_RBP];
	got_rc = hc_decode_insn(b, (size_t)(e - b), (uint64_t)(uintptr_t)b, &r, &got);
	ncases++;
	CHECK_MSG(got_rc == 0 && got.len == e - b, "%s: length", name);
	CHECK_MSG(matches(), "%s", name);
	if (!matches())
		dump_got();
}

static void static_cases(void)
{
	memset(sregs, 0, sizeof(sregs));
	sregs[REG_RDI] = 0x10000;
	sregs[REG_RSI] = 0x20000;
	sregs[REG_RAX] = 0x30000;
	sregs[REG_RDX] = 0x100;
	sregs[REG_RCX] = 7;
	sregs[REG_RSP] = 0x7ffff000;

	begin("zmm store (static)"); WANT(ABS, 0x10000, 64, W);
	static_run(s_zmm_store, s_zmm_store_end);
	begin("masked zmm store, disp8*N (static)");
	WANTK(ABS, 0x10040, 64, W, HC_ACC_EXPLICIT, HC_AF_MASKED);
	static_run(s_zmm_store_k, s_zmm_store_k_end);
	begin("masked zeroing zmm load (static)");
	WANTK(ABS, 0x10000, 64, R, HC_ACC_EXPLICIT, HC_AF_MASKED);
	static_run(s_zmm_load_kz, s_zmm_load_kz_end);
	begin("{1to16} broadcast (static)"); WANT(ABS, 0x10000, 4, R);
	static_run(s_bcst, s_bcst_end);
	begin("vpscatterdd VSIB (static)");
	WANTK(ABS, 0x30000, 4, W, HC_ACC_EXPLICIT, HC_AF_VSIB | HC_AF_MASKED);
	static_run(s_scatter, s_scatter_end);
	begin("vpgatherdd zmm VSIB (static)");
	WANTK(ABS, 0x30008, 4, R, HC_ACC_EXPLICIT, HC_AF_VSIB | HC_AF_MASKED);
	static_run(s_gather, s_gather_end);
	/* Capstone 4 decoded this index as xmm2 (doc/findings.md §3.2). */
	begin("vpxorq -0x40(%rdi,%rdx,1) EVEX (static)"); WANT(ABS, 0x10000 + 0x100 - 0x40, 32, R);
	static_run(s_evex_index, s_evex_index_end);
	begin("kmovq (%rdi),%k1 (static)"); WANT(ABS, 0x10000, 8, R);
	static_run(s_kmov, s_kmov_end);

	sregs[REG_RSI] = 0x1234500020000ll;  /* upper halves ignored with 0x67 */
	sregs[REG_RDI] = 0x1234500010000ll;
	begin("addr32 movsb (static)");
	WANTK(ABS, 0x20000, 1, R, HC_ACC_STRING, HC_AF_ADDR32);
	WANTK(ABS, 0x10000, 1, W, HC_ACC_STRING, HC_AF_ADDR32);
	static_run(s_addr32_movsb, s_addr32_movsb_end);
	sregs[REG_RCX] = 0x100000000ll;      /* ecx == 0: nothing happens */
	begin("addr32 rep stosb, ecx=0 (static)");
	static_run(s_rep_addr32_ecx0, s_rep_addr32_ecx0_end);

	/* A truncated buffer is refused, not read past. */
	begin("truncated movabs");
	got_rc = hc_decode_insn(s_truncated, (size_t)(s_truncated_end - s_truncated) - 1,
	                        (uint64_t)(uintptr_t)s_truncated,
	                        &(struct hc_regs){ sregs, 0, 0 }, &got);
	CHECK_EQ_U64(got_rc, (uint64_t)-EINVAL);
	CHECK_EQ_U64(got.len, 0);
}

/* ---- the executed cases ------------------------------------------------ */

/* CPUID feature bits __builtin_cpu_supports does not know. */
static bool have_clzero(void)
{
	unsigned a = 0x80000008, b, c = 0, d;

	__asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return b & 1;
}

static bool have_prefetchw(void)
{
	unsigned a = 0x80000001, b, c = 0, d;

	__asm__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return c & (1u << 8);  /* 3DNowPrefetch / PRFCHW */
}

int main(void)
{
	static long buf_[64] __attribute__((aligned(64)));
	static char src[64], dst[64];
	static char fx[1024] __attribute__((aligned(64)));
	struct sigaction sa;
	long *buf = buf_ + 16, out = 0, v = 1, old;
	char *b = (char *)buf;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);
	have_fsgsbase = getauxval(AT_HWCAP2) & 2;  /* HWCAP2_FSGSBASE */
	__builtin_cpu_init();
	CHECK_EQ_U64(hc_decode_init(), 0);
	CHECK_EQ_U64(hc_decode_init(), 0);  /* idempotent */

	/* basic forms */
	begin("mov (%r),%r load8"); WANT(ABS, b, 8, R);
	__asm__ volatile("int3\n\tmov (%1),%0" : "=r"(out) : "r"(buf) : "memory"); end();
	CHECK(!got.branch);

	begin("movl %r,0x10(%b,%i,4)"); WANT(ABS, b + 0x10 + 12, 4, W);
	__asm__ volatile("int3\n\tmovl %k2,0x10(%0,%1,4)" :: "r"(buf), "r"(3L), "r"(5) : "memory"); end();

	begin("movzbl -3(%r)"); WANT(ABS, b + 5, 1, R);
	__asm__ volatile("int3\n\tmovzbl -3(%1),%k0" : "=r"(out) : "r"(b + 8) : "memory"); end();

	/* atomics */
	begin("lock incq (%r)"); WANTK(ABS, b, 8, RW, HC_ACC_EXPLICIT, HC_AF_LOCK);
	__asm__ volatile("int3\n\tlock incq (%0)" :: "r"(buf) : "memory", "cc"); end();

	old = buf[0];
	begin("lock cmpxchg %r,(%r)"); WANTK(ABS, b, 8, RW, HC_ACC_EXPLICIT, HC_AF_LOCK);
	__asm__ volatile("int3\n\tlock cmpxchgq %2,(%1)" : "+a"(old) : "r"(buf), "r"(9L) : "memory", "cc"); end();

	old = buf[0] + 1;  /* a failing cmpxchg writes back too */
	begin("cmpxchg %r,(%r) (failing, no lock)"); WANT(ABS, b, 8, RW);
	__asm__ volatile("int3\n\tcmpxchgq %2,(%1)" : "+a"(old) : "r"(buf), "r"(9L) : "memory", "cc"); end();

	begin("xchg %r,(%r) (implicit lock)"); WANTK(ABS, b, 8, RW, HC_ACC_EXPLICIT, HC_AF_LOCK | HC_AF_XCHG);
	__asm__ volatile("int3\n\txchgq %0,(%1)" : "+r"(v) : "r"(buf) : "memory"); end();

	begin("lock xadd %r,(%r)"); WANT(ABS, b, 8, RW);
	__asm__ volatile("int3\n\tlock xaddq %0,(%1)" : "+r"(v) : "r"(buf) : "memory", "cc"); end();

	old = buf[0];
	begin("cmpxchg8b (%r)"); WANT(ABS, b, 8, RW);
	__asm__ volatile("xor %%edx,%%edx\n\tint3\n\tcmpxchg8b (%0)" :: "r"(buf), "a"(old), "b"(0L), "c"(0L)
	                 : "rdx", "memory", "cc"); end();

	/* RIP-relative, absolute, segment bases */
	begin("addq %r,g_glob(%rip)"); WANTK(ABS, &g_glob, 8, RW, HC_ACC_EXPLICIT, HC_AF_RIPREL);
	__asm__ volatile("int3\n\taddq %0,g_glob(%%rip)" :: "r"(1L) : "memory", "cc"); end();

	begin("mov g_glob(%rip),%r"); WANTK(ABS, &g_glob, 8, R, HC_ACC_EXPLICIT, HC_AF_RIPREL);
	__asm__ volatile("int3\n\tmov g_glob(%%rip),%0" : "=r"(out) :: "memory"); end();

	{	/* movabs moffs64 needs an absolute address in the code: built at run time */
		uint8_t code[] = { 0xcc, 0x48, 0xa1, 0, 0, 0, 0, 0, 0, 0, 0, 0xc3 };
		uint64_t a = (uint64_t)(uintptr_t)&g_glob;

		memcpy(code + 3, &a, 8);
		begin("movabs g_glob,%rax (moffs64)"); WANT(ABS, &g_glob, 8, R);
		CHECK_EQ_U64(run_code(code, sizeof(code), 0, false, NULL), g_glob); end();
	}

	begin("mov %fs:g_tls@tpoff (TLS LE)"); WANTK(ABS, &g_tls, 8, R, HC_ACC_EXPLICIT, HC_AF_SEG);
	__asm__ volatile("int3\n\tmovq %%fs:g_tls@tpoff,%0" : "=r"(out) :: "memory"); end();

	begin("mov %fs:0 (TCB self ptr)"); WANT(ABS, fs_base(), 8, R);
	__asm__ volatile("int3\n\tmovq %%fs:0,%0" : "=r"(out) :: "memory"); end();

	begin("mov %fs:(%r) (base reg + FS)"); WANTK(ABS, (char *)&g_tls, 8, R, HC_ACC_EXPLICIT, HC_AF_SEG);
	__asm__ volatile("int3\n\tmovq %%fs:(%1),%0" : "=r"(out) : "r"((uint64_t)(uintptr_t)&g_tls - fs_base()) : "memory"); end();

	if (syscall(SYS_arch_prctl, ARCH_SET_GS, (unsigned long)buf) == 0) {
		begin("mov %gs:8 (GS base set)"); WANTK(ABS, b + 8, 8, R, HC_ACC_EXPLICIT, HC_AF_SEG);
		__asm__ volatile("int3\n\tmovq %%gs:8,%0" : "=r"(out) :: "memory"); end();
		syscall(SYS_arch_prctl, ARCH_SET_GS, 0UL);
	} else {
		skip("mov %gs:8", "arch_prctl(ARCH_SET_GS) refused");
	}

	/* stack */
	begin("push %r"); WANTK(RSP, -8, 8, W, HC_ACC_STACK, 0);
	__asm__ volatile("int3\n\tpush %0\n\tpop %0" : "+r"(v) :: "memory"); end();

	begin("pushw %r16"); WANTK(RSP, -2, 2, W, HC_ACC_STACK, 0);
	__asm__ volatile("int3\n\tpushw %w0\n\tpopw %w0" : "+r"(v) :: "memory"); end();

	begin("pop %r"); WANTK(RSP, 0, 8, R, HC_ACC_STACK, 0);
	__asm__ volatile("push %0\n\tint3\n\tpop %0" : "+r"(v) :: "memory"); end();

	begin("pushq 8(%r)"); WANTK(ABS, b + 8, 8, R, HC_ACC_EXPLICIT, 0); WANTK(RSP, -8, 8, W, HC_ACC_STACK, 0);
	__asm__ volatile("int3\n\tpushq 8(%1)\n\tpop %0" : "=r"(out) : "r"(buf) : "memory"); end();

	begin("pushq 8(%rsp) (EA before dec)"); WANT(RSP, 8, 8, R); WANT(RSP, -8, 8, W);
	__asm__ volatile("int3\n\tpushq 8(%%rsp)\n\tpop %0" : "=r"(out) :: "memory"); end();

	begin("popq 8(%r)"); WANT(RSP, 0, 8, R); WANTK(ABS, b + 8, 8, W, HC_ACC_EXPLICIT, 0);
	__asm__ volatile("push %1\n\tint3\n\tpopq 8(%0)" :: "r"(buf), "r"(v) : "memory"); end();

	begin("popq 8(%rsp) (EA after inc)"); WANT(RSP, 0, 8, R); WANT(RSP, 16, 8, W);
	__asm__ volatile("push %0\n\tpush %0\n\tint3\n\tpopq 8(%%rsp)\n\tpop %0" : "+r"(v) :: "memory"); end();

	begin("call *8(%r)"); WANT(ABS, b + 8, 8, R); WANTK(RSP, -8, 8, W, HC_ACC_STACK, 0);
	__asm__ volatile("lea 1f(%%rip),%%rax\n\tmov %%rax,8(%0)\n\tint3\n\tcall *8(%0)\n\tjmp 2f\n1:\tret\n2:"
	                 :: "r"(buf) : "rax", "memory"); end();
	CHECK(got.branch);

	begin("call rel32"); WANTK(RSP, -8, 8, W, HC_ACC_STACK, 0);
	__asm__ volatile("int3\n\tcall 1f\n\tjmp 2f\n1:\tret\n2:" ::: "memory"); end();
	CHECK(got.branch);

	begin("ret"); WANTK(RSP, 0, 8, R, HC_ACC_STACK, 0);
	__asm__ volatile("call 1f\n\tjmp 2f\n1:\tint3\n\tret\n2:" ::: "memory"); end();
	CHECK(got.branch);

	begin("jmp *(%r)"); WANT(ABS, b, 8, R);
	__asm__ volatile("lea 1f(%%rip),%%rax\n\tmov %%rax,(%0)\n\tint3\n\tjmp *(%0)\n1:" :: "r"(buf) : "rax", "memory"); end();
	CHECK(got.branch);

	begin("jne rel8 (no access)");
	__asm__ volatile("cmp %0,%0\n\tint3\n\tjne 1f\n1:" :: "r"(v) : "cc"); end();
	CHECK(got.branch);

	begin("leave (rsp!=rbp)"); WANTK(RBP, 0, 8, R, HC_ACC_STACK, 0);
	__asm__ volatile("push %%rbp\n\tmov %%rsp,%%rbp\n\tsub $32,%%rsp\n\tint3\n\tleave" ::: "memory"); end();

	begin("enter $16,$0"); WANTK(RSP, -8, 8, W, HC_ACC_STACK, 0);
	__asm__ volatile("int3\n\tenter $16,$0\n\tleave" ::: "memory"); end();

	begin("pushfq"); WANTK(RSP, -8, 8, W, HC_ACC_STACK, 0);
	__asm__ volatile("int3\n\tpushfq\n\tpopfq" ::: "memory", "cc"); end();

	begin("popfq"); WANTK(RSP, 0, 8, R, HC_ACC_STACK, 0);
	__asm__ volatile("pushfq\n\tint3\n\tpopfq" ::: "memory", "cc"); end();

	begin("addq $0,(%rsp)"); WANTK(RSP, 0, 8, RW, HC_ACC_EXPLICIT, 0);
	__asm__ volatile("int3\n\taddq $0,(%%rsp)" ::: "memory", "cc"); end();

	/* string ops: the current element */
	{ void *s = src, *d = dst; long n = 5;
	begin("rep movsb"); WANTK(ABS, src, 1, R, HC_ACC_STRING, HC_AF_REP); WANTK(ABS, dst, 1, W, HC_ACC_STRING, HC_AF_REP);
	__asm__ volatile("int3\n\trep movsb" : "+S"(s), "+D"(d), "+c"(n) :: "memory"); end(); }

	{ void *s = src, *d = dst;
	begin("movsq"); WANTK(ABS, src, 8, R, HC_ACC_STRING, 0); WANTK(ABS, dst, 8, W, HC_ACC_STRING, 0);
	__asm__ volatile("int3\n\tmovsq" : "+S"(s), "+D"(d) :: "memory"); end(); }

	{ void *s = src + 16, *d = dst + 16;
	begin("std; movsq (DF=1)"); WANT(ABS, src + 16, 8, R); WANT(ABS, dst + 16, 8, W);
	__asm__ volatile("std\n\tint3\n\tmovsq\n\tcld" : "+S"(s), "+D"(d) :: "memory", "cc"); end(); }

	{ void *d = dst; long n = 2;
	begin("rep stosq"); WANTK(ABS, dst, 8, W, HC_ACC_STRING, HC_AF_REP);
	__asm__ volatile("int3\n\trep stosq" : "+D"(d), "+c"(n) : "a"(0L) : "memory"); end(); }

	{ void *s = src;
	begin("lodsb"); WANT(ABS, src, 1, R);
	__asm__ volatile("int3\n\tlodsb" : "+S"(s) :: "rax", "memory"); end(); }

	{ void *s = src, *d = dst;
	begin("cmpsb"); WANT(ABS, src, 1, R); WANT(ABS, dst, 1, R);
	__asm__ volatile("int3\n\tcmpsb" : "+S"(s), "+D"(d) :: "memory", "cc"); end(); }

	{ void *d = dst;
	begin("scasb"); WANT(ABS, dst, 1, R);
	__asm__ volatile("int3\n\tscasb" : "+D"(d) : "a"(0L) : "memory", "cc"); end(); }

	{ void *d = dst; long n = 0;
	begin("rep stosb, rcx=0 (no access)");
	__asm__ volatile("int3\n\trep stosb" : "+D"(d), "+c"(n) : "a"(0L) : "memory"); end();
	CHECK(got.flags & HC_AF_REP); }

	/* not accesses */
	begin("lea 8(%r),%r");
	__asm__ volatile("int3\n\tlea 8(%1),%0" : "=r"(out) : "r"(buf)); end();

	begin("nopw 0(%rax,%rax,1)");
	__asm__ volatile("int3\n\tnopw 0x0(%%rax,%%rax,1)" ::: "memory"); end();

	begin("prefetcht0 (%r)");
	__asm__ volatile("int3\n\tprefetcht0 (%0)" :: "r"(buf) : "memory"); end();

	if (have_prefetchw()) {
		begin("prefetchw (%r)");
		__asm__ volatile("int3\n\tprefetchw (%0)" :: "r"(buf) : "memory"); end();
	} else {
		skip("prefetchw", "no PRFCHW");
	}

	begin("clflush (%r)");
	__asm__ volatile("int3\n\tclflush (%0)" :: "r"(buf) : "memory"); end();

	if (__builtin_cpu_supports("clflushopt")) {
		begin("clflushopt (%r)");
		__asm__ volatile("int3\n\tclflushopt (%0)" :: "r"(buf) : "memory"); end();
	} else {
		skip("clflushopt", "no CLFLUSHOPT");
	}
	if (__builtin_cpu_supports("clwb")) {
		begin("clwb (%r)");
		__asm__ volatile("int3\n\tclwb (%0)" :: "r"(buf) : "memory"); end();
	} else {
		skip("clwb", "no CLWB");
	}

	/* bit tests */
	begin("btq %r(=100),(%r)"); WANTK(ABS, b + 8, 8, R, HC_ACC_EXPLICIT, HC_AF_BITOFF);
	__asm__ volatile("int3\n\tbtq %1,(%0)" :: "r"(buf), "r"(100L) : "memory", "cc"); end();

	begin("btsq %r(=-1),(%r)"); WANT(ABS, b - 8, 8, RW);
	__asm__ volatile("int3\n\tbtsq %1,(%0)" :: "r"(buf), "r"(-1L) : "memory", "cc"); end();

	begin("lock btrl %r(=40),(%r)"); WANTK(ABS, b + 4, 4, RW, HC_ACC_EXPLICIT, HC_AF_LOCK | HC_AF_BITOFF);
	__asm__ volatile("int3\n\tlock btrl %k1,(%0)" :: "r"(buf), "r"(40) : "memory", "cc"); end();

	begin("btq $3,(%r) (imm)"); WANT(ABS, b, 8, R);
	__asm__ volatile("int3\n\tbtq $3,(%0)" :: "r"(buf) : "memory", "cc"); end();

	/* reads, writes, sizes */
	begin("cmpq $5,(%r)"); WANT(ABS, b, 8, R);
	__asm__ volatile("int3\n\tcmpq $5,(%0)" :: "r"(buf) : "memory", "cc"); end();

	begin("testq %r,(%r)"); WANT(ABS, b, 8, R);
	__asm__ volatile("int3\n\ttestq %1,(%0)" :: "r"(buf), "r"(1L) : "memory", "cc"); end();

	begin("cmove (%r),%r (always reads)"); WANT(ABS, b, 8, R);
	__asm__ volatile("int3\n\tcmoveq (%1),%0" : "+r"(v) : "r"(buf) : "memory"); end();

	begin("sete (%r)"); WANT(ABS, b, 1, W);
	__asm__ volatile("int3\n\tsete (%0)" :: "r"(buf) : "memory"); end();

	begin("incw (%r)"); WANT(ABS, b, 2, RW);
	__asm__ volatile("int3\n\tincw (%0)" :: "r"(buf) : "memory", "cc"); end();

	begin("movnti %r,(%r)"); WANT(ABS, b, 8, W);
	__asm__ volatile("int3\n\tmovnti %1,(%0)" :: "r"(buf), "r"(1L) : "memory"); end();

	if (__builtin_cpu_supports("movbe")) {
		begin("movbe (%r),%eax"); WANT(ABS, b, 4, R);
		__asm__ volatile("int3\n\tmovbe (%0),%%eax" :: "r"(buf) : "rax", "memory"); end();
	} else {
		skip("movbe", "no MOVBE");
	}

	begin("xlat (rbx=buf, al=5)"); WANTK(ABS, b + 5, 1, R, HC_ACC_IMPLICIT, 0);
	__asm__ volatile("mov $5,%%eax\n\tint3\n\txlat" :: "b"(buf) : "rax", "memory"); end();

	{ char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	  uint64_t dirty = (uint64_t)(uintptr_t)low | 0xdead00000000ULL;

	if (low != MAP_FAILED) {
		begin("addr32 movl (%edi) (0x67)"); WANTK(ABS, low, 4, R, HC_ACC_EXPLICIT, HC_AF_ADDR32);
		__asm__ volatile("int3\n\tmovl (%%edi),%%eax" :: "D"(dirty) : "rax", "memory"); end();
		munmap(low, 4096);
	} else {
		skip("addr32", "no MAP_32BIT mapping");
	} }

	/* vector and x87 */
	begin("movsd (%r),%xmm0 (SSE, not string)"); WANTK(ABS, b, 8, R, HC_ACC_EXPLICIT, 0);
	__asm__ volatile("int3\n\tmovsd (%0),%%xmm0" :: "r"(buf) : "xmm0", "memory"); end();

	begin("movdqu (%r),%xmm0"); WANT(ABS, b, 16, R);
	__asm__ volatile("int3\n\tmovdqu (%0),%%xmm0" :: "r"(buf) : "xmm0", "memory"); end();

	begin("maskmovdqu %xmm1,%xmm0 ([rdi])"); WANTK(ABS, b, 16, W, HC_ACC_IMPLICIT, HC_AF_MASKED);
	__asm__ volatile("pxor %%xmm1,%%xmm1\n\tint3\n\tmaskmovdqu %%xmm1,%%xmm0" :: "D"(buf) : "xmm0", "xmm1", "memory"); end();

	begin("lock cmpxchg16b (%r)"); WANT(ABS, b, 16, RW);
	__asm__ volatile("xor %%eax,%%eax\n\txor %%edx,%%edx\n\tint3\n\tlock cmpxchg16b (%0)" :: "r"(buf), "b"(0L), "c"(0L) : "rax", "rdx", "memory", "cc"); end();

	begin("fldt (%r) (x87 80-bit)"); WANT(ABS, b, 10, R);
	__asm__ volatile("int3\n\tfldt (%0)\n\tfstp %%st(0)" :: "r"(buf) : "memory"); end();

	begin("fxsave (%r)"); WANT(ABS, fx, 512, W);
	__asm__ volatile("int3\n\tfxsave64 (%0)" :: "r"(fx) : "memory"); end();

	if (__builtin_cpu_supports("avx")) {  /* AVX implies the OS enabled XSAVE */
		memset(fx, 0, sizeof(fx));
		begin("xsave (%r) (variable size)"); WANTK(ABS, fx, 576, RW, HC_ACC_EXPLICIT, HC_AF_VARSIZE);
		__asm__ volatile("int3\n\txsave (%0)" :: "r"(fx), "a"(1), "d"(0) : "memory"); end();

		begin("vmovdqu %ymm0,(%r)"); WANT(ABS, b, 32, W);
		__asm__ volatile("int3\n\tvmovdqu %%ymm0,(%0)" :: "r"(buf) : "memory"); end();

		begin("vbroadcastss (%r),%ymm0"); WANT(ABS, b, 4, R);
		__asm__ volatile("int3\n\tvbroadcastss (%0),%%ymm0" :: "r"(buf) : "xmm0", "memory"); end();

		begin("vmaskmovps %ymm1,%ymm2,(%r)"); WANTK(ABS, b, 32, W, HC_ACC_EXPLICIT, HC_AF_MASKED);
		__asm__ volatile("vpxor %%xmm2,%%xmm2,%%xmm2\n\tint3\n\tvmaskmovps %%ymm1,%%ymm2,(%0)"
		                 :: "r"(buf) : "xmm2", "memory"); end();
		__asm__ volatile("vzeroupper");
	} else {
		skip("AVX cases", "no AVX");
	}

	if (__builtin_cpu_supports("avx2")) {
		static int idx[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

		begin("vpgatherdd (%r,%ymm1,4) VSIB"); WANTK(ABS, b, 4, R, HC_ACC_EXPLICIT, HC_AF_VSIB);
		__asm__ volatile("vmovdqu (%1),%%ymm1\n\tvpcmpeqd %%ymm2,%%ymm2,%%ymm2\n\tint3\n\t"
		                 "vpgatherdd %%ymm2,(%0,%%ymm1,4),%%ymm3\n\tvzeroupper"
		                 :: "r"(buf), "r"(idx) : "xmm1", "xmm2", "xmm3", "memory"); end();
	} else {
		skip("vpgatherdd", "no AVX2");
	}

	/* k1 is not a clobber the compiler knows without -mavx512f; this
	   translation unit never uses mask registers itself. */
	if (__builtin_cpu_supports("avx512f")) {
		begin("vmovdqu64 %zmm0,(%r)"); WANT(ABS, b, 64, W);
		__asm__ volatile("int3\n\tvmovdqu64 %%zmm0,(%0)" :: "r"(buf) : "memory"); end();

		begin("vmovdqu32 %zmm0,0x40(%r){k1} disp8*N"); WANTK(ABS, b + 0x40, 64, W, HC_ACC_EXPLICIT, HC_AF_MASKED);
		__asm__ volatile("kxnorw %%k1,%%k1,%%k1\n\tint3\n\tvmovdqu32 %%zmm0,0x40(%0)%{%%k1%}" :: "r"(buf) : "memory"); end();

		begin("vaddps (%r){1to16},%zmm1,%zmm2"); WANT(ABS, b, 4, R);
		__asm__ volatile("int3\n\tvaddps (%0)%{1to16%},%%zmm1,%%zmm2" :: "r"(buf) : "xmm2", "memory"); end();

		begin("vpscatterdd %zmm1,(%r,%zmm2,4){k1}"); WANTK(ABS, b, 4, W, HC_ACC_EXPLICIT, HC_AF_VSIB | HC_AF_MASKED);
		__asm__ volatile("vpxord %%zmm2,%%zmm2,%%zmm2\n\tkxnorw %%k1,%%k1,%%k1\n\tint3\n\t"
		                 "vpscatterdd %%zmm1,(%0,%%zmm2,4)%{%%k1%}\n\tvzeroupper"
		                 :: "r"(buf) : "xmm2", "memory"); end();
	} else {
		skip("vmovdqu64 zmm store", "no AVX-512F");
		skip("vmovdqu32 masked zmm store", "no AVX-512F");
		skip("vaddps {1to16}", "no AVX-512F");
		skip("vpscatterdd", "no AVX-512F");
	}

	if (have_clzero()) {
		begin("clzero (synthesised line store)"); WANTK(ABS, b, 64, W, HC_ACC_IMPLICIT, HC_AF_SYNTH);
		__asm__ volatile("int3\n\tclzero" :: "a"(b + 13) : "memory"); end();
	} else {
		skip("clzero", "no CLZERO");
	}

	/* hc_decode_at_pc must not read past a page end into an unmapped page,
	   and must read across it when the instruction continues there. */
	{
		size_t pg = (size_t)sysconf(_SC_PAGESIZE);
		/* int3; mov (%rdi),%rax; ret — the ret is the page's last byte */
		const uint8_t at_end[] = { 0xcc, 0x48, 0x8b, 0x07, 0xc3 };
		/* int3; mov 0x8(%rdi),%rax straddling the page end; ret */
		const uint8_t straddle[] = { 0xcc, 0x48, 0x8b, 0x87, 0x08, 0, 0, 0, 0xc3 };

		begin("mov (%rdi),%rax at a page end, next page PROT_NONE"); WANT(ABS, &g_glob, 8, R);
		CHECK_EQ_U64(run_code(at_end, sizeof(at_end), pg - sizeof(at_end), false, &g_glob), g_glob); end();
		buf[1] = 42;
		begin("mov 8(%rdi),%rax across a page end"); WANT(ABS, b + 8, 8, R);
		CHECK_EQ_U64(run_code(straddle, sizeof(straddle), pg - 4, true, buf), 42); end();
	}

	static_cases();

	fprintf(stderr, "test_decode_isa: %d cases, %d skipped (CPU)\n", ncases, nskipped);
	return hc_test_done("test_decode_isa");
}
