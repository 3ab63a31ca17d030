/* SPDX-License-Identifier: BSD-3-Clause */
/* decode.c — the memory accesses of one x86-64 instruction, with effective
   addresses computed from a signal context, and the previous instruction's
   accesses for timer skid. Zydis 4.0 decodes; we post-process what it gets
   wrong or leaves implicit for our purpose (doc/findings.md §3.1, §9.15):
   stores to the stack go to rsp - size, pop m with an rsp base addresses
   after the increment, xlat adds AL, bt* m,r adds the register bit offset,
   REP with a zero count touches nothing, hints and cache-line operations are
   not accesses, clzero's store is synthesised. The previous instruction is
   found by decoding forward from the enclosing function's start
   (funcstart.h), cached per PC by the caller. After hc_decode_init the
   decoder and our register tables are read-only and shared by all threads;
   every other function runs in signal handlers: no allocation, no locks, no
   stdio, only reads of code the process is executing. */
#include <errno.h>
#include <string.h>
#include <sys/ucontext.h>
#include <sys/uio.h>
#include <unistd.h>
#include <Zydis/Zydis.h>

#include "decode/decode.h"
#include "decode/funcstart.h"

#define MAX_INSN 15      /* longest x86 instruction */
#define CODE_PAGE 4096u  /* smallest page: reading up to its end is safe */
#define NO_GPR 0xff

/* General-purpose registers in hardware order (the order of Zydis's RAX..R15
   and of the REX-extended encodings), as bits of a register set. */
enum { GPR_RAX = 0, GPR_RCX, GPR_RDX, GPR_RBX, GPR_RSP, GPR_RBP, GPR_RSI, GPR_RDI, NGPR = 16 };

static const uint8_t gpr_greg[NGPR] = {
	REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
	REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15,
};

static ZydisDecoder decoder;
static ZydisDecoder walker;  /* minimal mode: length, mnemonic, raw fields; ~25 % faster */
static bool ready;

/* Per Zydis register: the GPR holding it (NO_GPR if none), its width in bits
   and its bit offset in that GPR (8 for ah/ch/dh/bh). */
static uint8_t reg_gpr[ZYDIS_REGISTER_MAX_VALUE + 1];
static uint8_t reg_width[ZYDIS_REGISTER_MAX_VALUE + 1];
static uint8_t reg_shift[ZYDIS_REGISTER_MAX_VALUE + 1];

/* What the previous-instruction filter needs beyond struct hc_insn: the GPRs
   each access's address was computed from, and the GPRs the instruction
   writes. */
struct deps {
	uint16_t used[HC_MAX_ACC];
	uint16_t written;
	struct hc_acc_recipe rec[HC_MAX_ACC];  /* how each access's address was computed */
	bool dynamic;   /* some address or count needs more than its recipe */
	bool no_fallthrough;   /* jmp, ret, call, iret, sysret, ud2 (no_fallthrough) */
};

int hc_decode_init(void)
{
	if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return 0;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64,
	                                   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderInit(&walker, ZYDIS_MACHINE_MODE_LONG_64,
	                                   ZYDIS_STACK_WIDTH_64)) ||
	    !ZYAN_SUCCESS(ZydisDecoderEnableMode(&walker, ZYDIS_DECODER_MODE_MINIMAL, ZYAN_TRUE)))
		return -EINVAL;
	for (int r = 0; r <= ZYDIS_REGISTER_MAX_VALUE; r++) {
		ZydisRegisterClass c = ZydisRegisterGetClass((ZydisRegister)r);
		ZydisRegister big;

		reg_gpr[r] = NO_GPR;
		if (c != ZYDIS_REGCLASS_GPR8 && c != ZYDIS_REGCLASS_GPR16 &&
		    c != ZYDIS_REGCLASS_GPR32 && c != ZYDIS_REGCLASS_GPR64)
			continue;
		big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, (ZydisRegister)r);
		if (big < ZYDIS_REGISTER_RAX || big > ZYDIS_REGISTER_R15)
			continue;
		reg_gpr[r] = (uint8_t)(big - ZYDIS_REGISTER_RAX);
		reg_width[r] = (uint8_t)ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64,
		                                              (ZydisRegister)r);
		reg_shift[r] = (r == ZYDIS_REGISTER_AH || r == ZYDIS_REGISTER_CH ||
		                r == ZYDIS_REGISTER_DH || r == ZYDIS_REGISTER_BH) ? 8 : 0;
	}
	__atomic_store_n(&ready, true, __ATOMIC_RELEASE);
	return 0;
}

static uint16_t gpr_bit(ZydisRegister reg)
{
	if ((unsigned)reg > ZYDIS_REGISTER_MAX_VALUE || reg_gpr[reg] == NO_GPR)
		return 0;
	return (uint16_t)(1u << reg_gpr[reg]);
}

static bool reg_value(const struct hc_regs *r, ZydisRegister reg, uint64_t *v)
{
	uint64_t x;

	if ((unsigned)reg > ZYDIS_REGISTER_MAX_VALUE || reg_gpr[reg] == NO_GPR)
		return false;
	x = (uint64_t)r->gregs[gpr_greg[reg_gpr[reg]]] >> reg_shift[reg];
	if (reg_width[reg] < 64)
		x &= (1ull << reg_width[reg]) - 1;
	*v = x;
	return true;
}

/* The effective address of a recipe, plus extra (register-dependent parts
   that no recipe holds), under the registers r. False if a register is not
   a general-purpose one. */
static bool recipe_ea(const struct hc_acc_recipe *rc, const struct hc_regs *r, uint64_t extra,
                      uint64_t *ea)
{
	uint64_t a = (uint64_t)rc->off + extra, v;

	if (rc->base != ZYDIS_REGISTER_NONE) {
		if (!reg_value(r, (ZydisRegister)rc->base, &v))
			return false;
		a += v;
	}
	if (rc->index != ZYDIS_REGISTER_NONE) {
		if (!reg_value(r, (ZydisRegister)rc->index, &v))
			return false;
		a += v * rc->scale;
	}
	if (rc->flags & HC_AF_ADDR32)
		a &= 0xffffffffull;
	if (rc->seg == 1)
		a += r->fsbase;
	else if (rc->seg == 2)
		a += r->gsbase;
	*ea = a;
	return true;
}

static void add_acc(struct hc_insn *out, struct deps *d, uint64_t ea, uint32_t size,
                    uint8_t rw, uint8_t kind, uint16_t flags, uint16_t used)
{
	struct hc_mem_access *a;

	if (out->n >= HC_MAX_ACC)
		return;
	d->used[out->n] = used;
	a = &out->acc[out->n++];
	a->ea = ea;
	a->size = size;
	a->rw = rw;
	a->kind = kind;
	a->flags = flags;
}

/* Instructions with a memory operand that is not an access: hints and
   cache-line maintenance (lea and bnd* are filtered by operand type). */
static bool not_an_access(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_NOP:
	case ZYDIS_CATEGORY_WIDENOP:
	case ZYDIS_CATEGORY_PREFETCH:
	case ZYDIS_CATEGORY_PREFETCHWT1:
	case ZYDIS_CATEGORY_CLFLUSHOPT:
	case ZYDIS_CATEGORY_CLWB:
	case ZYDIS_CATEGORY_CLDEMOTE:
		return true;
	default:
		return in->mnemonic == ZYDIS_MNEMONIC_CLFLUSH;
	}
}

static bool is_branch(const ZydisDecodedInstruction *in)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
	case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
		return true;
	default:
		return in->meta.branch_type != ZYDIS_BRANCH_TYPE_NONE;
	}
}

/* The next instruction in address order is not the next one executed:
   jmp, ret, and call (the callee runs in between). By mnemonic: the walk's
   minimal-mode decoder promises mnemonics, not categories. */
static bool no_fallthrough(const ZydisDecodedInstruction *in)
{
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_JMP:
	case ZYDIS_MNEMONIC_RET:
	case ZYDIS_MNEMONIC_CALL:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_SYSRET:
	case ZYDIS_MNEMONIC_SYSEXIT:
	case ZYDIS_MNEMONIC_UD2:
		return true;
	default:
		return false;
	}
}

static bool is_string_op(const ZydisDecodedInstruction *in)
{
	return in->meta.category == ZYDIS_CATEGORY_STRINGOP ||
	       in->meta.category == ZYDIS_CATEGORY_IOSTRINGOP;
}

/* Always read-modify-write on their memory operand, whatever the decoder's
   operand actions say (a failing cmpxchg still writes back). */
static bool is_rmw(ZydisMnemonic m)
{
	return m == ZYDIS_MNEMONIC_XCHG || m == ZYDIS_MNEMONIC_XADD ||
	       m == ZYDIS_MNEMONIC_CMPXCHG || m == ZYDIS_MNEMONIC_CMPXCHG8B ||
	       m == ZYDIS_MNEMONIC_CMPXCHG16B;
}

static bool is_bit_test(ZydisMnemonic m)
{
	return m == ZYDIS_MNEMONIC_BT || m == ZYDIS_MNEMONIC_BTS ||
	       m == ZYDIS_MNEMONIC_BTR || m == ZYDIS_MNEMONIC_BTC;
}

static bool is_mask_move(ZydisMnemonic m)
{
	return m == ZYDIS_MNEMONIC_MASKMOVQ || m == ZYDIS_MNEMONIC_MASKMOVDQU ||
	       m == ZYDIS_MNEMONIC_VMASKMOVDQU || m == ZYDIS_MNEMONIC_VMASKMOVPS ||
	       m == ZYDIS_MNEMONIC_VMASKMOVPD || m == ZYDIS_MNEMONIC_VPMASKMOVD ||
	       m == ZYDIS_MNEMONIC_VPMASKMOVQ;
}

/* Instructions a single-step burst must not step (HC_AF_NOSTEP). */
static bool no_step(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_SYSCALL:
	case ZYDIS_MNEMONIC_SYSENTER:
	case ZYDIS_MNEMONIC_INT:
	case ZYDIS_MNEMONIC_INT1:
	case ZYDIS_MNEMONIC_INT3:
	case ZYDIS_MNEMONIC_INTO:
	case ZYDIS_MNEMONIC_PUSHF:
	case ZYDIS_MNEMONIC_PUSHFD:
	case ZYDIS_MNEMONIC_PUSHFQ:
	case ZYDIS_MNEMONIC_POPF:
	case ZYDIS_MNEMONIC_POPFD:
	case ZYDIS_MNEMONIC_POPFQ:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_XBEGIN:
		return true;
	default:
		return false;
	}
}

static uint16_t insn_flags(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops)
{
	uint16_t fl = 0;

	if (no_step(in->mnemonic))
		fl |= HC_AF_NOSTEP;

	if (in->attributes & ZYDIS_ATTRIB_HAS_LOCK)
		fl |= HC_AF_LOCK;
	if (in->mnemonic == ZYDIS_MNEMONIC_XCHG)  /* xchg with memory locks implicitly */
		for (int i = 0; i < in->operand_count_visible; i++)
			if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
				fl |= HC_AF_LOCK | HC_AF_XCHG;
	if ((in->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
	                       ZYDIS_ATTRIB_HAS_REPNE)) && is_string_op(in))
		fl |= HC_AF_REP;
	if (in->meta.category == ZYDIS_CATEGORY_XSAVE ||
	    in->meta.category == ZYDIS_CATEGORY_XSAVEOPT)
		fl |= HC_AF_VARSIZE;
	if ((in->avx.mask.reg != ZYDIS_REGISTER_NONE && in->avx.mask.reg != ZYDIS_REGISTER_K0) ||
	    is_mask_move(in->mnemonic))
		fl |= HC_AF_MASKED;
	return fl;
}

/* One memory operand of in: its effective address, size, direction, kind. */
static void mem_operand(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
                        int i, uint64_t rip, const struct hc_regs *r, uint16_t ifl,
                        struct hc_insn *out, struct deps *d)
{
	const ZydisDecodedOperand *op = &ops[i];
	bool explicit = op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT;
	bool rsp_base = op->mem.base == ZYDIS_REGISTER_RSP || op->mem.base == ZYDIS_REGISTER_ESP;
	uint32_t size = op->size / 8;
	uint16_t fl = ifl, used = 0;
	uint8_t rw = 0, kind = HC_ACC_EXPLICIT;
	uint64_t ea = 0, v;

	if (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_VSIB)
		return;  /* lea, bnd*: address generation only */
	if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
		rw |= HC_ACC_R;
	if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
		rw |= HC_ACC_W;
	if ((ifl & HC_AF_LOCK) || is_rmw(in->mnemonic))
		rw = HC_ACC_R | HC_ACC_W;
	if (!rw)
		return;

	struct hc_acc_recipe rc = { .scale = 1 };
	uint64_t extra = 0;

	if (op->mem.base == ZYDIS_REGISTER_RIP || op->mem.base == ZYDIS_REGISTER_EIP) {
		rc.off = (int64_t)(rip + in->length);
		fl |= HC_AF_RIPREL;
	} else if (op->mem.base != ZYDIS_REGISTER_NONE) {
		if (!reg_value(r, op->mem.base, &v))
			return;
		rc.base = (uint16_t)op->mem.base;
		used |= gpr_bit(op->mem.base);
	}
	if (op->mem.index != ZYDIS_REGISTER_NONE) {
		if (op->mem.type == ZYDIS_MEMOP_TYPE_VSIB) {
			fl |= HC_AF_VSIB;  /* per-element addresses need the vector index */
		} else {
			if (!reg_value(r, op->mem.index, &v))
				return;
			rc.index = (uint16_t)op->mem.index;
			rc.scale = op->mem.scale ? op->mem.scale : 1;
			used |= gpr_bit(op->mem.index);
		}
	}
	if (op->mem.disp.has_displacement)
		rc.off += op->mem.disp.value;

	/* pop m: the address is computed after rsp was incremented. */
	if (in->mnemonic == ZYDIS_MNEMONIC_POP && explicit && rsp_base)
		rc.off += in->operand_width / 8;
	/* bt* m, r: the signed bit offset selects a word away from the base. */
	if (is_bit_test(in->mnemonic) && i == 0 && in->operand_count_visible >= 2 &&
	    ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER && reg_value(r, ops[1].reg.value, &v)) {
		unsigned w = in->operand_width;  /* 16, 32 or 64 */
		int64_t off = w == 64 ? (int64_t)v : w == 32 ? (int64_t)(int32_t)v : (int64_t)(int16_t)v;
		int shift = w == 64 ? 6 : w == 32 ? 5 : 4;

		extra += (uint64_t)((off >> shift) * (int64_t)(w / 8));
		used |= gpr_bit(ops[1].reg.value);
		fl |= HC_AF_BITOFF;
		d->dynamic = true;
	}
	/* xlat: Zydis reports [rbx] without the AL index. */
	if (in->mnemonic == ZYDIS_MNEMONIC_XLAT && op->mem.index == ZYDIS_REGISTER_NONE) {
		extra += (uint64_t)r->gregs[REG_RAX] & 0xff;
		used |= 1u << GPR_RAX;
		d->dynamic = true;
	}

	if (is_string_op(in)) {
		kind = HC_ACC_STRING;
	} else if (!explicit) {
		if (rsp_base) {
			kind = HC_ACC_STACK;
			/* push/call/enter/pushf: Zydis reports [rsp] before the
			   decrement; the store goes below it. */
			if (rw & HC_ACC_W)
				rc.off -= size;
		} else if (in->mnemonic == ZYDIS_MNEMONIC_LEAVE) {
			kind = HC_ACC_STACK;  /* reads the saved rbp at [rbp] */
		} else {
			kind = HC_ACC_IMPLICIT;
		}
	}

	if (in->address_width == 32)
		fl |= HC_AF_ADDR32;
	if (op->mem.segment == ZYDIS_REGISTER_FS) {
		rc.seg = 1;
		fl |= HC_AF_SEG;
	} else if (op->mem.segment == ZYDIS_REGISTER_GS) {
		rc.seg = 2;
		fl |= HC_AF_SEG;
	}
	rc.flags = fl;
	rc.rw = rw;
	rc.kind = kind;
	rc.size = size;
	if (!recipe_ea(&rc, r, extra, &ea))
		return;
	if (out->n < HC_MAX_ACC)
		d->rec[out->n] = rc;
	add_acc(out, d, ea, size, rw, kind, fl, used);
}

/* Decode at code[0..avail) (the instruction's address is rip) into out.
   0, -ENODATA (the instruction runs past avail) or -EINVAL. */
static int decode(const uint8_t *code, size_t avail, uint64_t rip, const struct hc_regs *r,
                  struct hc_insn *out, struct deps *d)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZyanStatus st;
	uint16_t ifl;

	memset(out, 0, sizeof(*out));
	memset(d, 0, sizeof(*d));
	out->addr = rip;
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return -EINVAL;
	st = ZydisDecoderDecodeFull(&decoder, code, avail, &in, ops);
	if (!ZYAN_SUCCESS(st))
		return st == ZYDIS_STATUS_NO_MORE_DATA ? -ENODATA : -EINVAL;
	ifl = insn_flags(&in, ops);
	out->len = in.length;
	out->flags = ifl;
	out->branch = is_branch(&in);
	d->no_fallthrough = no_fallthrough(&in);
	for (int i = 0; i < in.operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			d->written |= gpr_bit(ops[i].reg.value);
	if (not_an_access(&in))
		return 0;

	for (int i = 0; i < in.operand_count; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
			mem_operand(&in, ops, i, rip, r, ifl, out, d);

	/* clzero zeroes the cache line at rax; Zydis lists only the register. */
	if (in.mnemonic == ZYDIS_MNEMONIC_CLZERO) {
		uint64_t a = (uint64_t)r->gregs[REG_RAX];

		if (in.address_width == 32)
			a &= 0xffffffffull;
		add_acc(out, d, a & ~63ull, 64, HC_ACC_W, HC_ACC_IMPLICIT, ifl | HC_AF_SYNTH,
		        1u << GPR_RAX);
		d->dynamic = true;
	}
	/* A REP string op with a zero count does nothing at all. */
	if (ifl & HC_AF_REP) {
		uint64_t count = (uint64_t)r->gregs[REG_RCX];

		if (in.address_width == 32)
			count &= 0xffffffffull;
		if (count == 0)
			out->n = 0;
		d->dynamic = true;
	}
	return 0;
}

int hc_decode_insn(const uint8_t *code, size_t avail, uint64_t rip,
                   const struct hc_regs *r, struct hc_insn *out)
{
	struct deps d;

	return decode(code, avail, rip, r, out, &d) ? -EINVAL : 0;
}

int hc_decode_recipes(const uint8_t *code, size_t avail, uint64_t rip,
                      const struct hc_regs *r, struct hc_insn *out,
                      struct hc_acc_recipe rec[HC_MAX_ACC])
{
	struct deps d;

	if (decode(code, avail, rip, r, out, &d))
		return -EINVAL;
	memcpy(rec, d.rec, out->n * sizeof rec[0]);
	return d.dynamic ? 1 : 0;
}

bool hc_recipe_ea(const struct hc_acc_recipe *rc, const struct hc_regs *r, uint64_t *ea)
{
	return recipe_ea(rc, r, 0, ea);
}

bool hc_code_readable(uint64_t pc)
{
	uint64_t start, end;
	uint8_t byte;
	struct iovec local = { &byte, 1 }, remote = { (void *)(uintptr_t)pc, 1 };

	if (hc_funcs_lookup(pc, &start, &end))
		return true;
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1;
}

static int decode_at_pc(const struct hc_regs *r, struct hc_insn *out, struct deps *d)
{
	uint64_t rip = (uint64_t)r->gregs[REG_RIP];
	const uint8_t *code = (const uint8_t *)(uintptr_t)rip;
	size_t avail = CODE_PAGE - (rip & (CODE_PAGE - 1));
	int err;

	/* The next page may be unmapped: go past the page end only when the
	   instruction really continues there (then the page is mapped). */
	if (avail > MAX_INSN)
		avail = MAX_INSN;
	err = decode(code, avail, rip, r, out, d);
	if (err == -ENODATA && avail < MAX_INSN)
		err = decode(code, MAX_INSN, rip, r, out, d);
	return err ? -EINVAL : 0;
}

int hc_decode_at_pc(const struct hc_regs *r, struct hc_insn *out)
{
	struct deps d;

	return decode_at_pc(r, out, &d);
}

int hc_decode_at_pc_deps(const struct hc_regs *r, struct hc_insn *out, struct hc_insn_deps *deps)
{
	struct deps d;
	int err = decode_at_pc(r, out, &d);

	deps->used = 0;
	deps->written = d.written;
	deps->dynamic = d.dynamic || (out->flags & HC_AF_REP);
	deps->ends = out->branch || d.no_fallthrough;
	for (int i = 0; i < out->n; i++)
		deps->used |= d.used[i];
	return err;
}

/* Decode [start, end) forward to find the instruction that ends exactly at
   pc (*prev) and whether pc may be reached other than by falling through
   from it: the target of a direct branch anywhere in the function (a loop
   head is targeted from after it), or prev itself does not fall through.
   Returns OK, BRANCH_TARGET or UNDECODABLE (with *prev still set when the
   decode failed only after pc). */
static uint8_t walk(uint64_t start, uint64_t end, uint64_t pc, uint64_t *prev)
{
	bool target = false;

	*prev = 0;
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || end - start > HC_PREV_WALK_MAX)
		return HC_PREV_UNDECODABLE;
	for (uint64_t a = start; a < end; ) {
		ZydisDecodedInstruction in;
		size_t avail = end - a < MAX_INSN ? end - a : MAX_INSN;
		uint64_t next;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&walker, NULL,
		                                                (const void *)(uintptr_t)a, avail, &in)))
			return HC_PREV_UNDECODABLE;
		next = a + in.length;
		if (a < pc && next > pc)
			return HC_PREV_UNDECODABLE;  /* pc is inside an instruction */
		if (next == pc) {
			*prev = a;
			target |= no_fallthrough(&in);
		}
		/* Relative immediates belong to branches only (jmp, jcc, call,
		   loop, jrcxz, xbegin). */
		if ((in.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && in.raw.imm[0].is_relative &&
		    next + (uint64_t)in.raw.imm[0].value.s == pc)
			target = true;
		a = next;
	}
	if (!*prev)
		return HC_PREV_UNDECODABLE;
	return target ? HC_PREV_BRANCH_TARGET : HC_PREV_OK;
}

/* ---- function maps (decode.h, struct hc_prev_cache) ---- */

static inline void bit_set(uint64_t *b, uint64_t i) { b[i >> 6] |= 1ull << (i & 63); }
static inline bool bit_get(const uint64_t *b, uint64_t i) { return b[i >> 6] >> (i & 63) & 1; }

/* The highest set bit below i (i > 0), or UINT64_MAX. */
static uint64_t bit_before(const uint64_t *b, uint64_t i)
{
	uint64_t w = (i - 1) >> 6, m = b[w] & (~0ull >> (63 - ((i - 1) & 63)));

	while (!m) {
		if (w == 0)
			return UINT64_MAX;
		m = b[--w];
	}
	return (w << 6) + 63 - (uint64_t)__builtin_clzll(m);
}

/* Decode [start, end) once: instruction starts into starts, and into
   reached the instructions that may be entered other than by falling
   through (as walk() judges one pc). The offset of the first instruction
   that does not decode (its start is marked), or end - start. */
static uint64_t map_walk(uint64_t start, uint64_t end, uint64_t *starts, uint64_t *reached)
{
	for (uint64_t a = start; a < end; ) {
		ZydisDecodedInstruction in;
		size_t avail = end - a < MAX_INSN ? end - a : MAX_INSN;
		uint64_t next;

		bit_set(starts, a - start);
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&walker, NULL,
		                                                (const void *)(uintptr_t)a, avail, &in)))
			return a - start;
		next = a + in.length;
		if (next < end && no_fallthrough(&in))
			bit_set(reached, next - start);
		if ((in.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && in.raw.imm[0].is_relative) {
			uint64_t to = next + (uint64_t)in.raw.imm[0].value.s;

			if (to > start && to < end)
				bit_set(reached, to - start);
		}
		a = next;
	}
	return end - start;
}

/* The map of [start, end), built (one walk) if the cache has none. NULL if
   the function is too large to walk or the decoder is not ready. */
static const struct hc_prev_fmap *fmap_get(struct hc_prev_cache *c, uint64_t start, uint64_t end,
                                           uint32_t gen)
{
	uint64_t len = end - start, nw = (len >> 6) + 1;
	struct hc_prev_fmap *f;

	for (uint32_t i = 0; i < c->nfmap; i++)
		if (c->fmap[i].start == start && c->fmap[i].len == len && c->fmap[i].gen == gen)
			return &c->fmap[i];
	_Static_assert(2 * ((HC_PREV_WALK_MAX >> 6) + 1) <= HC_PREV_FMAP_WORDS,
	               "the pool must hold the map of the largest walkable function");
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || len > HC_PREV_WALK_MAX)
		return NULL;
	if (c->nfmap == HC_PREV_FMAPS || c->pool_used + 2 * nw > HC_PREV_FMAP_WORDS)
		c->nfmap = c->pool_used = 0;   /* full: start over */
	f = &c->fmap[c->nfmap++];
	f->start = start;
	f->len = len;
	f->gen = gen;
	f->word = c->pool_used;
	c->pool_used += (uint32_t)(2 * nw);
	memset(&c->pool[f->word], 0, 2 * nw * sizeof c->pool[0]);
	f->fail = map_walk(start, end, &c->pool[f->word], &c->pool[f->word + nw]);
	c->walks++;
	return f;
}

/* walk()'s answer for pc (start < pc < end) from the function's map. */
static uint8_t fmap_answer(const struct hc_prev_cache *c, const struct hc_prev_fmap *f,
                           uint64_t pc, uint64_t *prev)
{
	const uint64_t *starts = &c->pool[f->word], *reached = starts + (f->len >> 6) + 1;
	uint64_t off = pc - f->start;

	*prev = 0;
	if (off > f->fail || !bit_get(starts, off))
		return HC_PREV_UNDECODABLE;   /* inside an instruction, or past a failure */
	/* off > 0 and bit 0 (the function's start) is always set. */
	*prev = f->start + bit_before(starts, off);
	if (f->fail < f->len)
		return HC_PREV_UNDECODABLE;   /* as walk(): prev is kept for hc_decode_ending_at */
	return bit_get(reached, off) ? HC_PREV_BRANCH_TARGET : HC_PREV_OK;
}

/* The cache's two-way set for pc: a miss costs a whole function walk
   (tens of µs for a large function), so two hot PCs that hash alike must
   not evict each other on every sample. */
static struct hc_prev_cache_entry *cache_set(struct hc_prev_cache *c, uint64_t pc)
{
	_Static_assert(HC_PREV_CACHE_SIZE >= 2 &&
	               (HC_PREV_CACHE_SIZE & (HC_PREV_CACHE_SIZE - 1)) == 0,
	               "HC_PREV_CACHE_SIZE must be a power of two");
	/* Fibonacci hashing: the top bits of pc * 2^64/phi. */
	uint64_t i = (pc * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctz(HC_PREV_CACHE_SIZE));

	return &c->e[i & ~1ull];
}

/* The walk result for pc: from the cache, or computed and cached. The set
   is kept most recently used first; *ent (if asked) is pc's entry, NULL
   without a cache. */
static uint8_t prev_lookup(uint64_t pc, struct hc_prev_cache *c, uint64_t *prev,
                           struct hc_prev_cache_entry **ent)
{
	uint32_t gen = hc_funcs_generation();
	struct hc_prev_cache_entry *set = c ? cache_set(c, pc) : NULL, hit;
	uint64_t start, end;
	uint8_t st;

	for (int w = 0; set && w < 2; w++) {
		if (set[w].pc != pc || set[w].gen != gen)
			continue;
		c->hits++;
		hit = set[w];
		if (w) {
			set[1] = set[0];
			set[0] = hit;
		}
		*prev = hit.prev;
		if (ent)
			*ent = &set[0];
		return hit.status;
	}
	*prev = 0;
	if (ent)
		*ent = set;
	if (!hc_funcs_lookup(pc, &start, &end))
		st = HC_PREV_NO_FUNC;
	else if (pc == start)
		st = HC_PREV_BRANCH_TARGET;  /* entered by a call or a jump */
	else if (!c)
		st = walk(start, end, pc, prev);
	else {
		const struct hc_prev_fmap *f = fmap_get(c, start, end, gen);

		/* No map: too large to walk, or no decoder yet (walk() says
		   the same). */
		st = f ? fmap_answer(c, f, pc, prev) : HC_PREV_UNDECODABLE;
	}
	if (set) {
		c->misses++;
		set[1] = set[0];
		set[0] = (struct hc_prev_cache_entry){ .pc = pc, .prev = *prev, .gen = gen,
		                                       .status = st };
	}
	return st;
}

/* A cached final result: prev's recipes evaluated under r. */
static int from_recipes(const struct hc_prev_cache_entry *e, const struct hc_regs *r,
                        struct hc_insn *out)
{
	out->addr = e->prev;
	out->len = e->len;
	out->flags = e->iflags;
	out->branch = e->branch;
	for (uint8_t i = 0; i < e->n; i++) {
		struct hc_mem_access *a = &out->acc[out->n];

		if (!recipe_ea(&e->rec[i], r, 0, &a->ea))
			continue;  /* cannot happen: the decode computed it */
		a->size = e->rec[i].size;
		a->rw = e->rec[i].rw;
		a->kind = e->rec[i].kind;
		a->flags = e->rec[i].flags;
		out->n++;
	}
	return e->result;
}

int hc_decode_prev(const struct hc_regs *r, struct hc_prev_cache *cache, struct hc_insn *out)
{
	uint64_t pc = (uint64_t)r->gregs[REG_RIP], prev;
	struct hc_prev_cache_entry *e = NULL;
	struct hc_acc_recipe kept[HC_MAX_ACC];
	struct deps d;
	uint8_t st, k = 0;

	memset(out, 0, sizeof(*out));
	st = prev_lookup(pc, cache, &prev, &e);
	if (st != HC_PREV_OK)
		return st;
	if (e && e->decoded)
		return from_recipes(e, r, out);
	if (decode((const uint8_t *)(uintptr_t)prev, pc - prev, prev, r, out, &d) != 0 ||
	    out->len != pc - prev) {
		memset(out, 0, sizeof(*out));
		return HC_PREV_UNDECODABLE;
	}
	if (out->n == 0) {  /* a REP op that ran to rcx == 0 did access memory */
		st = (out->flags & HC_AF_REP) ? HC_PREV_UNRECOVERABLE : HC_PREV_NO_ACCESS;
		goto out_cache;
	}
	/* r is the state after prev ran: keep only addresses it left intact. */
	for (uint8_t i = 0; i < out->n; i++) {
		const struct hc_mem_access *a = &out->acc[i];

		if (a->kind == HC_ACC_STACK || a->kind == HC_ACC_STRING ||
		    (a->flags & HC_AF_SYNTH) || (d.used[i] & d.written))
			continue;
		kept[k] = d.rec[i];
		out->acc[k++] = *a;
	}
	out->n = k;
	st = k ? HC_PREV_OK : HC_PREV_UNRECOVERABLE;
out_cache:
	/* The result depends on the registers only through the recipes. */
	if (e && !d.dynamic && out->n <= HC_PREV_RECIPES) {
		e->result = st;
		e->n = out->n;
		e->len = out->len;
		e->iflags = out->flags;
		e->branch = out->branch;
		memcpy(e->rec, kept, out->n * sizeof kept[0]);
		e->decoded = 1;
	}
	return st;
}

/* A conditional jump (Jcc, not JMP): the mnemonics JB..JZ (Zydis orders
   them alphabetically; JKNZD/JKZD are Knights Corner's mask jumps). */
static bool is_jcc(ZydisMnemonic m)
{
	return m >= ZYDIS_MNEMONIC_JB && m <= ZYDIS_MNEMONIC_JZ && m != ZYDIS_MNEMONIC_JMP &&
	       m != ZYDIS_MNEMONIC_JKNZD && m != ZYDIS_MNEMONIC_JKZD;
}

int hc_decode_loop_exit(uint64_t pc, unsigned max, uint64_t *exit)
{
	uint64_t start, end, a = pc;

	*exit = 0;
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || !hc_funcs_lookup(pc, &start, &end))
		return -ENOENT;
	for (unsigned i = 0; i < max && a >= start && a < end; i++) {
		ZydisDecodedInstruction in;
		size_t avail = end - a < MAX_INSN ? end - a : MAX_INSN;
		uint64_t next, to;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&walker, NULL, (const void *)(uintptr_t)a, avail, &in)))
			return -EINVAL;
		next = a + in.length;
		if (!(in.attributes & ZYDIS_ATTRIB_IS_RELATIVE) || !in.raw.imm[0].is_relative) {
			if (no_fallthrough(&in) || in.mnemonic == ZYDIS_MNEMONIC_SYSCALL)
				return -EINVAL;     /* ret, call, an indirect jump: not one loop */
			a = next;
			continue;
		}
		to = next + (uint64_t)in.raw.imm[0].value.s;
		if (is_jcc(in.mnemonic) && to <= pc && to >= start) {
			*exit = next;           /* the back-edge: the loop exits after it */
			return 0;
		}
		if (in.mnemonic == ZYDIS_MNEMONIC_JMP) {
			if (to <= a)
				return -EINVAL;     /* a loop with no conditional exit here */
			a = to;                 /* -O0's jump to the loop condition */
		} else if (is_jcc(in.mnemonic)) {
			a = next;               /* a forward branch inside: its fall-through */
		} else {
			return -EINVAL;         /* call, loop, jrcxz, xbegin */
		}
	}
	return -EINVAL;
}

int hc_decode_loop_body(uint64_t pc, unsigned max, uint64_t *start, uint64_t *exit, uint16_t *written)
{
	uint64_t fs, fe, a, to;
	long long g[NGREG] = { 0 };
	struct hc_regs r = { .gregs = g };
	ZydisDecodedInstruction in;
	unsigned n = 0;
	int err;

	*start = *exit = 0;
	*written = 0;
	if ((err = hc_decode_loop_exit(pc, max, exit)) != 0)
		return err;
	if (!hc_funcs_lookup(pc, &fs, &fe) || *exit > fe)
		return -EINVAL;
	/* the back-edge is the last instruction before the exit: its target */
	for (a = pc; a < *exit && n < 2 * max; n++) {
		struct hc_insn x;
		struct hc_insn_deps d;

		g[REG_RIP] = (long long)a;
		if (hc_decode_at_pc_deps(&r, &x, &d) < 0 || x.len == 0)
			return -EINVAL;
		if (a + x.len == *exit)
			break;
		a += x.len;
	}
	if (a >= *exit ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&walker, NULL, (const void *)(uintptr_t)a,
	                                                *exit - a, &in)) ||
	    !(in.attributes & ZYDIS_ATTRIB_IS_RELATIVE) || !in.raw.imm[0].is_relative)
		return -EINVAL;
	to = *exit + (uint64_t)in.raw.imm[0].value.s;
	if (to > pc || to < fs)
		return -EINVAL;
	*start = to;
	for (a = to, n = 0; a < *exit; n++) {
		struct hc_insn x;
		struct hc_insn_deps d;

		if (n >= 4 * max)
			return -EINVAL;
		g[REG_RIP] = (long long)a;
		if (hc_decode_at_pc_deps(&r, &x, &d) < 0 || x.len == 0 || d.dynamic)
			return -EINVAL;
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&walker, NULL, (const void *)(uintptr_t)a,
		                                                fe - a < MAX_INSN ? fe - a : MAX_INSN, &in)))
			return -EINVAL;
		if (in.meta.category == ZYDIS_CATEGORY_CALL || in.meta.category == ZYDIS_CATEGORY_RET ||
		    in.mnemonic == ZYDIS_MNEMONIC_SYSCALL ||
		    (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR && !(in.attributes & ZYDIS_ATTRIB_IS_RELATIVE)))
			return -EINVAL;
		*written |= d.written;
		a += x.len;
	}
	return 0;
}

/* A leaf function with a frame pointer (detection.md §5.67): see decode.h. */
int hc_decode_leaf_frame(uint64_t pc, uint64_t *fstart, uint16_t *clobbered)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const uint8_t prologue[4] = { 0x55, 0x48, 0x89, 0xe5 };   /* push %rbp; mov %rsp,%rbp */
	const uint16_t caller_saved = (1u << GPR_RAX) | (1u << GPR_RCX) | (1u << GPR_RDX) | (1u << GPR_RSI) |
	                              (1u << GPR_RDI) | 0x0f00u;        /* r8-r11 */
	uint64_t fs, fe, a, body, epi = 0;
	long long g[NGREG] = { 0 };
	struct hc_regs r = { .gregs = g };
	uint16_t written = 0;

	*fstart = 0;
	*clobbered = 0;
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE))
		return -EINVAL;
	if (!hc_funcs_lookup(pc, &fs, &fe))
		return -ENOENT;
	if (fe - fs > HC_LEAF_FRAME_MAX || fe - fs < 8)
		return -EINVAL;
	a = fs;
	if (!memcmp((const void *)(uintptr_t)a, endbr64, sizeof endbr64))
		a += sizeof endbr64;
	if (fe - a < sizeof prologue || memcmp((const void *)(uintptr_t)a, prologue, sizeof prologue))
		return -EINVAL;
	body = a + sizeof prologue;
	for (a = body; a < fe;) {
		ZydisDecodedInstruction in;
		struct hc_insn x;
		struct hc_insn_deps d;

		g[REG_RIP] = (long long)a;
		if (hc_decode_at_pc_deps(&r, &x, &d) < 0 || x.len == 0 ||
		    !ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&walker, NULL, (const void *)(uintptr_t)a,
		                                                fe - a < MAX_INSN ? fe - a : MAX_INSN, &in)))
			return -EINVAL;
		if (in.meta.category == ZYDIS_CATEGORY_CALL || in.mnemonic == ZYDIS_MNEMONIC_SYSCALL ||
		    (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR && !(in.attributes & ZYDIS_ATTRIB_IS_RELATIVE)))
			return -EINVAL;
		if (d.written & (1u << GPR_RBP)) {
			/* the frame ends (pop %rbp, leave): pc must come before */
			if (in.mnemonic != ZYDIS_MNEMONIC_POP && in.mnemonic != ZYDIS_MNEMONIC_LEAVE)
				return -EINVAL;
			if (!epi)
				epi = a;
		}
		written |= d.written;
		a += x.len;
	}
	if (pc < body || (epi && pc >= epi))
		return -EINVAL;
	*fstart = fs;
	*clobbered = (uint16_t)((caller_saved | written) & ~((1u << GPR_RSP) | (1u << GPR_RBP)));
	return 0;
}

/* -O0's recomputed address (detection.md §5.56): a tiny evaluator of the
   straight-line code between an update's load and its store, over a copy
   of the registers. It knows what -O0 computes an element's address
   with -- a whole reload from a stack slot of the own frame, mov of a
   register or an immediate, movslq/cltq, lea (RIP-relative included),
   add/sub/and/or/xor/shl/shr/sar/imul with an immediate or a known
   register, at 32 or 64 bits -- and marks every other GPR write unknown.
   A slot read counts only if no store of the run may have changed it: a
   store to it, or a store whose address is unknown, anywhere in the run
   voids the proof. Anything else it cannot follow answers "not known". */
#define EV_SLOTS 8
#define EV_STACK_BELOW 128       /* the red zone */
#define EV_STACK_ABOVE 65536     /* a slot is within this of rsp */

struct ev {
	long long g[NGREG];
	struct hc_regs v;        /* v.gregs = g */
	uint16_t unknown;        /* GPRs whose value is not known */
	bool eval;               /* evaluate; false: every write unknown */
	bool wild;               /* a store whose address is unknown */
	uint8_t nrd, nwr;
	struct { uint64_t a; uint32_t n; } rd[EV_SLOTS], wr[EV_SLOTS];
};

static void ev_init(struct ev *e, const struct hc_regs *r, uint16_t unknown, bool eval)
{
	memcpy(e->g, r->gregs, sizeof e->g);
	e->v.gregs = e->g;
	e->v.fsbase = r->fsbase;
	e->v.gsbase = r->gsbase;
	e->unknown = unknown;
	e->eval = eval;
	e->wild = false;
	e->nrd = e->nwr = 0;
}

/* A 32- or 64-bit GPR's known value. */
static bool ev_reg(const struct ev *e, ZydisRegister reg, uint64_t *x)
{
	uint16_t b = gpr_bit(reg);

	if (!b || (e->unknown & b) || reg_shift[reg] || reg_width[reg] < 32)
		return false;
	return reg_value(&e->v, reg, x);
}

/* A memory operand's address under the known registers. */
static bool ev_mem(const struct ev *e, const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
                   uint64_t rip, uint64_t *ea)
{
	uint64_t a = op->mem.disp.has_displacement ? (uint64_t)op->mem.disp.value : 0, x;

	if (op->mem.type != ZYDIS_MEMOP_TYPE_MEM && op->mem.type != ZYDIS_MEMOP_TYPE_AGEN)
		return false;
	if (op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS ||
	    in->address_width != 64)
		return false;
	if (op->mem.base == ZYDIS_REGISTER_RIP)
		a += rip + in->length;
	else if (op->mem.base != ZYDIS_REGISTER_NONE) {
		if (!ev_reg(e, op->mem.base, &x))
			return false;
		a += x;
	}
	if (op->mem.index != ZYDIS_REGISTER_NONE) {
		if (!ev_reg(e, op->mem.index, &x))
			return false;
		a += x * op->mem.scale;
	}
	*ea = a;
	return true;
}

/* A whole read of a slot of the own stack frame (rsp-based, or rbp-based
   below rbp), as the run's code reads it; recorded for the overlap test. */
static bool ev_slot(struct ev *e, const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
                    uint64_t rip, uint32_t n, uint64_t *x)
{
	uint64_t a, sp;

	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.index != ZYDIS_REGISTER_NONE ||
	    !(op->mem.base == ZYDIS_REGISTER_RSP ||
	      (op->mem.base == ZYDIS_REGISTER_RBP && op->mem.disp.value < 0)) ||
	    !ev_mem(e, in, op, rip, &a) || !ev_reg(e, ZYDIS_REGISTER_RSP, &sp) ||
	    a < sp - EV_STACK_BELOW || a + n > sp + EV_STACK_ABOVE || e->nrd == EV_SLOTS)
		return false;
	*x = 0;
	memcpy(x, (const void *)(uintptr_t)a, n);   /* the own frame: the code reads it too */
	e->rd[e->nrd].a = a;
	e->rd[e->nrd++].n = n;
	return true;
}

/* A source operand's value (register, immediate, or a stack slot). */
static bool ev_src(struct ev *e, const ZydisDecodedInstruction *in, const ZydisDecodedOperand *op,
                   uint64_t rip, uint64_t *x)
{
	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER)
		return ev_reg(e, op->reg.value, x);
	if (op->type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
		*x = op->imm.is_signed ? (uint64_t)op->imm.value.s : op->imm.value.u;
		return true;
	}
	if (op->type == ZYDIS_OPERAND_TYPE_MEMORY && (op->size == 32 || op->size == 64))
		return ev_slot(e, in, op, rip, op->size / 8, x);
	return false;
}

/* The value the instruction leaves in its first operand (a 32/64-bit
   GPR), if it is one of the forms above and its sources are known. */
static bool ev_value(struct ev *e, const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
                     uint64_t rip, uint64_t *out)
{
	const ZydisDecodedOperand *d = &ops[0], *s = &ops[1];
	uint64_t a, b;
	unsigned w = d->size;

	if (d->type != ZYDIS_OPERAND_TYPE_REGISTER || !gpr_bit(d->reg.value) || reg_shift[d->reg.value] ||
	    (w != 32 && w != 64))
		return false;
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_CDQE:   /* cltq: rax = (int32_t)eax */
		if (!ev_reg(e, ZYDIS_REGISTER_EAX, &a))
			return false;
		*out = (uint64_t)(int64_t)(int32_t)a;
		return true;
	case ZYDIS_MNEMONIC_MOV:
		if (in->operand_count_visible != 2 || !ev_src(e, in, s, rip, &a))
			return false;
		*out = a;
		break;
	case ZYDIS_MNEMONIC_MOVSXD:
		if (in->operand_count_visible != 2 || s->size != 32 || !ev_src(e, in, s, rip, &a))
			return false;
		*out = (uint64_t)(int64_t)(int32_t)a;
		break;
	case ZYDIS_MNEMONIC_LEA:
		if (!ev_mem(e, in, s, rip, &a))
			return false;
		*out = a;
		break;
	case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_AND:
	case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_SHL:
	case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR: case ZYDIS_MNEMONIC_IMUL:
		if (in->operand_count_visible == 3 && in->mnemonic == ZYDIS_MNEMONIC_IMUL) {
			if (!ev_src(e, in, s, rip, &a) || !ev_src(e, in, &ops[2], rip, &b))
				return false;
		} else if (in->operand_count_visible != 2 || s->type == ZYDIS_OPERAND_TYPE_MEMORY ||
		           !ev_reg(e, d->reg.value, &a) || !ev_src(e, in, s, rip, &b))
			return false;
		if (w == 32)
			a &= 0xffffffffull;
		switch (in->mnemonic) {
		case ZYDIS_MNEMONIC_ADD: a += b; break;
		case ZYDIS_MNEMONIC_SUB: a -= b; break;
		case ZYDIS_MNEMONIC_AND: a &= b; break;
		case ZYDIS_MNEMONIC_OR:  a |= b; break;
		case ZYDIS_MNEMONIC_XOR: a ^= b; break;
		case ZYDIS_MNEMONIC_IMUL: a *= b; break;
		case ZYDIS_MNEMONIC_SHL: a <<= b & (w - 1); break;
		case ZYDIS_MNEMONIC_SHR: a >>= b & (w - 1); break;
		default:   /* SAR */
			a = w == 32 ? (uint64_t)(int64_t)((int32_t)a >> (b & 31)) : (uint64_t)((int64_t)a >> (b & 63));
			break;
		}
		*out = a;
		break;
	default:
		return false;
	}
	if (w == 32)
		*out &= 0xffffffffull;
	return true;
}

/* Run one instruction (at rip) on the copy: its stores recorded, the GPRs
   it writes set (evaluated) or unknown. Returns those GPRs. */
static uint16_t ev_step(struct ev *e, uint64_t rip, size_t avail)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint16_t written = 0;
	uint64_t val, a;
	bool ok;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, (const void *)(uintptr_t)rip, avail, &in, ops))) {
		e->unknown = 0xffff;
		e->wild = true;
		return 0xffff;
	}
	for (int i = 0; i < in.operand_count; i++) {
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			written |= gpr_bit(ops[i].reg.value);
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[i].mem.type == ZYDIS_MEMOP_TYPE_MEM &&
		    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)) {
			if (!ev_mem(e, &in, &ops[i], rip, &a) || e->nwr == EV_SLOTS || (in.attributes & ZYDIS_ATTRIB_HAS_REP) ||
			    (in.attributes & (ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE))) {
				e->wild = true;
			} else {
				e->wr[e->nwr].a = a;
				e->wr[e->nwr++].n = ops[i].size / 8 ? ops[i].size / 8 : 1;
			}
		}
	}
	if (!written)
		return 0;
	/* one written GPR, the first operand (flags aside): evaluate it */
	ok = e->eval && written == gpr_bit(ops[0].reg.value) && ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	     ev_value(e, &in, ops, rip, &val);
	if (ok) {
		e->g[gpr_greg[reg_gpr[ops[0].reg.value]]] = (long long)val;
		e->unknown &= (uint16_t)~written;
	} else {
		e->unknown |= written;
	}
	return written;
}

/* The run's slot reads all stand: no store of the run touched them. */
static bool ev_slots_stand(const struct ev *e)
{
	if (e->nrd && e->wild)
		return false;
	for (uint8_t i = 0; i < e->nrd; i++)
		for (uint8_t j = 0; j < e->nwr; j++)
			if (e->rd[i].a < e->wr[j].a + e->wr[j].n && e->wr[j].a < e->rd[i].a + e->rd[i].n)
				return false;
	return true;
}

#define EV_RUN 32   /* instructions an evaluated update's run holds at most */

int hc_decode_load_before(const struct hc_regs *r, uint64_t pc, struct hc_prev_cache *cache, unsigned depth,
                          uint64_t ea, uint32_t size, uint64_t *load, bool recompute)
{
	uint64_t at[EV_RUN], st_pc = pc, fstart, fend;
	uint16_t written = 0, w[EV_RUN];
	unsigned n = 0, cand = 0;
	struct hc_insn in;
	struct deps d;
	struct ev e;

	*load = 0;
	if (depth > EV_RUN / 2)
		depth = EV_RUN / 2;
	for (unsigned i = 0; i < depth; i++) {
		uint64_t prev;

		if (prev_lookup(pc, cache, &prev, NULL) != HC_PREV_OK ||
		    decode((const uint8_t *)(uintptr_t)prev, pc - prev, prev, r, &in, &d) != 0 ||
		    in.len != pc - prev || d.dynamic || (in.flags & HC_AF_REP))
			break;
		at[n++] = prev;
		for (uint8_t j = 0; j < in.n; j++) {
			const struct hc_mem_access *a = &in.acc[j];

			if (a->kind != HC_ACC_EXPLICIT || (a->flags & HC_AF_SYNTH))
				continue;
			if (d.used[j] & (d.written | written)) {
				/* its address recomputed since (-O0): evaluated below */
				if (!cand && (a->rw == HC_ACC_R) && a->size == size)
					cand = n;
				continue;
			}
			if (a->ea != ea || a->size != size)
				continue;
			/* a store of the same bytes first: not one update */
			if (!(a->rw & HC_ACC_R) || (a->rw & HC_ACC_W))
				return 0;
			*load = prev;
			return 1;
		}
		w[n - 1] = d.written;
		written |= d.written;
		pc = prev;
	}
	if (!recompute || !cand)
		return 0;
	n = cand;   /* the run ends at the candidate; what is older starts over */
	pc = at[n - 1];
	/* The run that computed the candidate's address: further back, up to
	   depth more instructions of straight-line code that store nothing. */
	for (unsigned i = 0; i < depth && n < EV_RUN; i++) {
		uint64_t prev;

		if (prev_lookup(pc, cache, &prev, NULL) != HC_PREV_OK ||
		    decode((const uint8_t *)(uintptr_t)prev, pc - prev, prev, r, &in, &d) != 0 ||
		    in.len != pc - prev || d.dynamic || (in.flags & HC_AF_REP))
			break;
		bool stores = false;
		for (uint8_t j = 0; j < in.n; j++)
			stores |= (in.acc[j].rw & HC_ACC_W) != 0;
		if (stores || d.no_fallthrough || in.branch)
			break;
		w[n] = d.written;
		at[n++] = prev;
		pc = prev;
	}
	written = 0;
	for (unsigned k = 0; k < n; k++)
		written |= w[k];
	/* The registers at the run's start: r's, but for those the run or
	   the store itself writes. */
	if (!hc_funcs_lookup(st_pc, &fstart, &fend) ||
	    decode((const uint8_t *)(uintptr_t)st_pc, fend - st_pc < MAX_INSN ? fend - st_pc : MAX_INSN, st_pc, r,
	           &in, &d) != 0)
		return 0;
	ev_init(&e, r, written | d.written, true);
	for (unsigned k = n; k-- > 0;) {
		uint64_t a = at[k], next = k ? at[k - 1] : st_pc;

		if (k + 1 == cand) {   /* the candidate: its address now */
			if (decode((const uint8_t *)(uintptr_t)a, next - a, a, &e.v, &in, &d) != 0)
				return 0;
			for (uint8_t j = 0; j < in.n; j++)
				if (in.acc[j].kind == HC_ACC_EXPLICIT && in.acc[j].rw == HC_ACC_R &&
				    !(d.used[j] & e.unknown) && in.acc[j].ea == ea && in.acc[j].size == size)
					*load = a;
			if (!*load)
				return 0;
		}
		ev_step(&e, a, next - a);
	}
	/* nothing between wrote memory anywhere its slots or the bytes may be */
	for (uint8_t j = 0; *load && j < e.nwr; j++)
		if (e.wr[j].a < ea + size && ea < e.wr[j].a + e.wr[j].n)
			*load = 0;
	if (!*load || e.wild || !ev_slots_stand(&e)) {
		*load = 0;
		return 0;
	}
	return 2;
}

int hc_decode_store_after(const struct hc_regs *r, uint64_t pc, unsigned depth, uint64_t ea, uint32_t size,
                          bool recompute, uint64_t *store)
{
	uint64_t start, end;
	uint16_t evald = 0;   /* GPRs written (and evaluated) since pc */
	struct ev e;

	if (store)
		*store = 0;
	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || !hc_funcs_lookup(pc, &start, &end))
		return 0;
	/* every register is known at pc; recompute: evaluate what the code
	   writes to them (-O0 recomputes the address), else unknown */
	ev_init(&e, r, 0, recompute);
	for (unsigned i = 0; i < depth && pc < end; i++) {
		size_t avail = end - pc < MAX_INSN ? end - pc : MAX_INSN;
		struct hc_insn in;
		struct deps d;

		if (decode((const uint8_t *)(uintptr_t)pc, avail, pc, &e.v, &in, &d) != 0 || in.branch ||
		    d.no_fallthrough || d.dynamic || (in.flags & HC_AF_REP))
			return 0;
		for (uint8_t j = 0; j < in.n; j++) {
			const struct hc_mem_access *a = &in.acc[j];

			if (!(a->rw & HC_ACC_W) || a->kind == HC_ACC_STACK ||
			    (d.rec[j].index == ZYDIS_REGISTER_NONE &&
			     (d.rec[j].base == ZYDIS_REGISTER_RSP ||
			      (d.rec[j].base == ZYDIS_REGISTER_RBP && d.rec[j].off < 0))))
				continue;   /* a stack slot (as data_store: -O0's locals) */
			/* the first store: its bytes, through registers known,
			   and the stack slots read for them unchanged */
			if (a->kind != HC_ACC_EXPLICIT || (a->flags & HC_AF_SYNTH) || (d.used[j] & e.unknown) ||
			    a->ea != ea || a->size != size || !ev_slots_stand(&e))
				return 0;
			if (store)
				*store = pc;
			return (d.used[j] & evald) ? 2 : 1;
		}
		evald |= ev_step(&e, pc, avail);
		pc += in.len;
	}
	return 0;
}

#define STORE_RING 64   /* instructions hc_decode_stores_before looks back at most */

/* A write to memory that is not a stack slot: an explicit memory operand
   written, not rsp-based, not rbp-based at a negative displacement (a
   frame pointer's local; -O2 code may keep a pointer in rbp). *site gets
   what the operand says of its address. */
static bool data_store(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, uint64_t a,
                       struct hc_store_site *site)
{
	if (not_an_access(in))
		return false;
	for (int i = 0; i < in->operand_count_visible; i++) {
		const ZydisDecodedOperand *op = &ops[i];

		if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.type != ZYDIS_MEMOP_TYPE_MEM ||
		    !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		if (op->mem.base == ZYDIS_REGISTER_RSP || op->mem.base == ZYDIS_REGISTER_ESP)
			continue;
		if ((op->mem.base == ZYDIS_REGISTER_RBP || op->mem.base == ZYDIS_REGISTER_EBP) &&
		    op->mem.index == ZYDIS_REGISTER_NONE && op->mem.disp.has_displacement &&
		    op->mem.disp.value < 0)
			continue;
		site->ip = a;
		site->size = op->size / 8 ? op->size / 8 : 1;
		site->key = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
		if (op->mem.index != ZYDIS_REGISTER_NONE || op->mem.segment == ZYDIS_REGISTER_FS ||
		    op->mem.segment == ZYDIS_REGISTER_GS)
			site->kind = HC_STORE_OTHER;
		else if (op->mem.base == ZYDIS_REGISTER_RIP) {
			site->kind = HC_STORE_ABS;
			site->key = (int64_t)(a + in->length) + site->key;
		} else
			site->kind = op->mem.base == ZYDIS_REGISTER_NONE ? HC_STORE_ABS : HC_STORE_DISP;
		return true;
	}
	return false;
}

int hc_decode_stores_before(uint64_t ret, unsigned max, struct hc_store_site *out, unsigned nmax)
{
	struct { uint64_t a; bool store, stop; struct hc_store_site site; } ring[STORE_RING];
	uint64_t start, end, a, call = 0;
	unsigned n = 0, k, found = 0;
	bool was_call = false;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || !hc_funcs_lookup(ret - 1, &start, &end))
		return -ENOENT;
	if (end - start > HC_PREV_WALK_MAX || ret <= start || ret > end)
		return -EINVAL;
	if (max > STORE_RING - 1)
		max = STORE_RING - 1;
	/* forward to ret: the last STORE_RING instructions before it */
	for (a = start; a < ret; ) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		size_t avail = end - a < MAX_INSN ? end - a : MAX_INSN;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, (const void *)(uintptr_t)a, avail, &in, ops)))
			return -EINVAL;
		k = n++ % STORE_RING;
		ring[k].a = a;
		ring[k].store = data_store(&in, ops, a, &ring[k].site);
		ring[k].stop = no_fallthrough(&in) && in.mnemonic != ZYDIS_MNEMONIC_CALL;
		was_call = in.mnemonic == ZYDIS_MNEMONIC_CALL;
		a += in.length;
	}
	if (a != ret || !was_call || n < 2)
		return -EINVAL;             /* ret inside an instruction, or after no call */
	call = ring[(n - 1) % STORE_RING].a;
	/* back from the call: the stores, latest first, up to a jmp/ret */
	for (unsigned i = 1; i <= max && i < n && i < STORE_RING && found < nmax; i++) {
		k = (n - 1 - i) % STORE_RING;
		if (ring[k].stop)
			break;
		if (ring[k].store)
			out[found++] = ring[k].site;
	}
	if (!found)
		return -ENOENT;
	/* a direct branch into (store, call] cuts that store and the older ones
	   off: the path from them to the call is not the only one */
	for (a = start; a < end; ) {
		ZydisDecodedInstruction in;
		size_t avail = end - a < MAX_INSN ? end - a : MAX_INSN;
		uint64_t next;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&walker, NULL, (const void *)(uintptr_t)a, avail, &in)))
			break;                  /* past ret: padding or data; the window was decoded */
		next = a + in.length;
		if ((in.attributes & ZYDIS_ATTRIB_IS_RELATIVE) && in.raw.imm[0].is_relative &&
		    in.mnemonic != ZYDIS_MNEMONIC_CALL) {
			uint64_t to = next + (uint64_t)in.raw.imm[0].value.s;

			while (found && to > out[found - 1].ip && to <= call)
				found--;
		}
		a = next;
	}
	return found ? (int)found : -ENOENT;
}

int hc_decode_store_before(uint64_t ret, unsigned max, uint64_t *store)
{
	struct hc_store_site site;
	int r = hc_decode_stores_before(ret, max, &site, 1);

	*store = r > 0 ? site.ip : 0;
	return r > 0 ? 0 : r;
}

int hc_decode_prev_deep(const struct hc_regs *r, struct hc_prev_cache *cache, unsigned depth,
                        struct hc_insn *out)
{
	uint64_t pc = (uint64_t)r->gregs[REG_RIP], prev;
	uint16_t written = 0;

	for (unsigned i = 0; i < depth; i++) {
		struct hc_prev_cache_entry *e = NULL;
		struct deps d;
		uint8_t k = 0;

		memset(out, 0, sizeof(*out));
		if (prev_lookup(pc, cache, &prev, &e) != HC_PREV_OK)
			return HC_PREV_NO_ACCESS;
		if (decode((const uint8_t *)(uintptr_t)prev, pc - prev, prev, r, out, &d) != 0 ||
		    out->len != pc - prev || d.dynamic || (out->flags & HC_AF_REP))
			break;
		for (uint8_t j = 0; j < out->n; j++) {
			const struct hc_mem_access *a = &out->acc[j];

			if (a->kind == HC_ACC_STACK || a->kind == HC_ACC_STRING ||
			    (a->flags & HC_AF_SYNTH) || (d.used[j] & (d.written | written)))
				continue;
			out->acc[k++] = *a;
		}
		if (k) {
			out->n = k;
			return HC_PREV_OK;
		}
		written |= d.written;
		pc = prev;
	}
	memset(out, 0, sizeof(*out));
	return HC_PREV_NO_ACCESS;
}

/* an instruction's non-stack data accesses: loads only (*load), stores
   too. A frame slot (an address from rbp or rsp alone: -O0's locals) is
   the stack's, whatever the registers' values. */
static bool data_accesses(const struct hc_insn *in, const struct hc_insn_deps *d, bool *store)
{
	const uint16_t frame = (1u << GPR_RSP) | (1u << GPR_RBP);
	bool any = false;

	*store = false;
	if (d->used && !(d->used & ~frame))
		return false;
	for (uint8_t j = 0; j < in->n; j++) {
		const struct hc_mem_access *a = &in->acc[j];

		if (a->kind == HC_ACC_STACK || a->size == 0)
			continue;
		any = true;
		if (a->rw & HC_ACC_W)
			*store = true;
	}
	return any;
}

/* every non-stack access of the instruction reads read-only memory at a
   RIP-relative address (a constant; the registers are not known) */
static bool rip_readonly(const struct hc_insn *in, bool (*readonly)(uint64_t addr))
{
	for (uint8_t j = 0; j < in->n; j++) {
		const struct hc_mem_access *a = &in->acc[j];

		if (a->kind == HC_ACC_STACK || a->size == 0)
			continue;
		if (!(a->flags & HC_AF_RIPREL) || !readonly(a->ea))
			return false;
	}
	return true;
}

/* The instructions of a loop body [start, exit) with a non-stack data
   access (frame slots and, given readonly, RIP-relative read-only
   constants aside; the one at pc not spared): 0 when there is none, 1
   when there is one load and nothing else — at pc, or anywhere when pc is
   0 (*at, *used: where, and the registers its address uses, when not
   NULL) —, -ENOENT for any other, and with straight for a jump before the
   back-edge; -EINVAL when one does not decode. g: the registers the
   decode uses, its RIP overwritten. */
static int loop_body_accesses(uint64_t start, uint64_t exit, long long *g, uint64_t pc,
                              bool (*readonly)(uint64_t addr), bool straight, uint64_t *at_load,
                              uint16_t *used)
{
	struct hc_regs r2 = { g, 0, 0 };
	struct hc_insn in;
	struct hc_insn_deps d;
	bool store;
	int found = 0;

	for (uint64_t at = start; at < exit; at += in.len) {
		g[REG_RIP] = (long long)at;
		if (hc_decode_at_pc_deps(&r2, &in, &d) < 0 || !in.len)
			return -EINVAL;
		if (straight && at + in.len < exit && (d.ends || d.dynamic))
			return -ENOENT;
		if (!data_accesses(&in, &d, &store))
			continue;
		if (at != pc && !store && readonly && rip_readonly(&in, readonly))
			continue;
		if (store || found || (pc && at != pc))
			return -ENOENT;
		found = 1;
		if (at_load)
			*at_load = at;
		if (used)
			*used = d.used;
	}
	return found;
}

int hc_decode_loop_feed(const struct hc_regs *r, struct hc_prev_cache *cache, unsigned max, uint64_t *load)
{
	uint64_t start, exit, at;
	uint16_t loop_w, later = 0;
	long long g[NGREG];
	struct hc_regs r2 = *r;
	struct hc_insn in;
	struct hc_insn_deps d;
	bool store;
	int rc;

	*load = 0;
	rc = hc_decode_loop_body((uint64_t)r->gregs[REG_RIP], max, &start, &exit, &loop_w);
	if (rc != 0)
		return rc == -EINVAL ? -ENOENT : rc;
	memcpy(g, r->gregs, sizeof(g));
	r2.gregs = g;
	if ((rc = loop_body_accesses(start, exit, g, 0, NULL, false, NULL, NULL)) != 0)
		return rc < 0 ? rc : -ENOENT;
	at = start;
	for (int k = 0; k < 4; k++) {
		if (hc_decode_ending_at(r, at, cache, &in) != 0 || !in.len)
			return -ENOENT;
		at = in.addr;
		g[REG_RIP] = (long long)at;
		if (hc_decode_at_pc_deps(&r2, &in, &d) < 0)
			return -EINVAL;
		if (d.dynamic || d.ends)
			return -ENOENT;
		if (data_accesses(&in, &d, &store)) {
			if (store || (d.used & (loop_w | later | d.written)))
				return -ENOENT;
			*load = at;
			return 0;
		}
		later |= d.written;
	}
	return -ENOENT;
}

int hc_decode_loop_only_load(uint64_t pc, unsigned max, bool (*readonly)(uint64_t addr))
{
	uint64_t start, exit;
	uint16_t loop_w;
	long long g[NGREG] = { 0 };
	int rc = hc_decode_loop_body(pc, max, &start, &exit, &loop_w);

	if (rc != 0)
		return rc == -EINVAL ? -ENOENT : rc;
	rc = loop_body_accesses(start, exit, g, pc, readonly, false, NULL, NULL);
	return rc == 1 ? 0 : rc < 0 ? rc : -ENOENT;
}

int hc_decode_loop_live_load(uint64_t pc, unsigned max, bool (*readonly)(uint64_t addr), uint64_t *load)
{
	uint64_t start, exit, l = 0, at;
	uint16_t loop_w, used = 0, w = 0;
	long long g[NGREG] = { 0 };
	struct hc_regs r2 = { g, 0, 0 };
	struct hc_insn in;
	struct hc_insn_deps d;
	int rc = hc_decode_loop_body(pc, max, &start, &exit, &loop_w);

	*load = 0;
	if (rc != 0)
		return rc == -EINVAL ? -ENOENT : rc;
	/* the body's one access, a load; straight-line code but for the
	   back-edge (the path from the load around to pc is then the only one) */
	rc = loop_body_accesses(start, exit, g, 0, readonly, true, &l, &used);
	if (rc != 1)
		return rc < 0 ? rc : -ENOENT;
	if (!used)
		return -ENOENT;
	/* the registers the instructions after the load write before pc
	   runs, around the back-edge when pc is not after it */
	for (at = l; ; ) {
		g[REG_RIP] = (long long)at;
		if (hc_decode_at_pc_deps(&r2, &in, &d) < 0 || !in.len)
			return -EINVAL;
		if (at != l)
			w |= d.written;
		at += in.len;
		if (at >= exit)
			at = start;
		if (at == pc)
			break;
		if (at == l)
			return -ENOENT;     /* pc is not an instruction of the body */
	}
	if (pc == l || (w & used))
		return -ENOENT;
	*load = l;
	return 0;
}

int hc_decode_ending_at(const struct hc_regs *r, uint64_t pc, struct hc_prev_cache *cache,
                        struct hc_insn *out)
{
	uint64_t start, end, prev;
	struct deps d;

	memset(out, 0, sizeof(*out));
	if (!hc_funcs_lookup(pc - 1, &start, &end))
		return -ENOENT;
	/* Inside the function, pc has the same walk as a sample at pc: share
	   the cache. At the function's end it belongs to no (or another)
	   function: walk without caching. */
	if (pc < end)
		prev_lookup(pc, cache, &prev, NULL);
	else
		walk(start, end, pc, &prev);
	if (!prev)
		return -EINVAL;
	if (decode((const uint8_t *)(uintptr_t)prev, pc - prev, prev, r, out, &d) != 0)
		return -EINVAL;
	return 0;
}

int hc_decode_prev_reload(const struct hc_regs *r, struct hc_prev_cache *cache, unsigned chain,
                          struct hc_insn *out)
{
	uint64_t pc = (uint64_t)r->gregs[REG_RIP], prev, pprev, slot, ptr, ea, at, off = 0;
	uint16_t later;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	struct hc_mem_access acc;
	long long g[NGREG];
	struct hc_regs r2;
	struct deps d;
	uint8_t st;
	int hit = -1;
	unsigned b;
	ZydisRegister xreg = ZYDIS_REGISTER_NONE;

	memset(out, 0, sizeof(*out));
	if ((st = prev_lookup(pc, cache, &prev, NULL)) != HC_PREV_OK)
		return st;
	if (decode((const uint8_t *)(uintptr_t)prev, pc - prev, prev, r, out, &d) != 0 ||
	    out->len != pc - prev || d.dynamic)
		return HC_PREV_UNDECODABLE;
	/* the one explicit access whose address its own result overwrote,
	   through one of its registers: the base, or an index of scale 1 (-O0's
	   global array element: lea sym(%rip),%rax; mov (%rdx,%rax,1),%rax);
	   the other one must have survived */
	for (int i = 0; i < out->n; i++) {
		const struct hc_mem_access *a = &out->acc[i];
		bool bw, iw;
		if (a->kind != HC_ACC_EXPLICIT || (a->flags & (HC_AF_SYNTH | HC_AF_SEG)))
			continue;
		if (!(d.used[i] & d.written))
			continue;
		bw = d.rec[i].base != ZYDIS_REGISTER_NONE && (gpr_bit(d.rec[i].base) & d.written);
		iw = d.rec[i].index != ZYDIS_REGISTER_NONE && (gpr_bit(d.rec[i].index) & d.written);
		if (hit >= 0 || bw == iw || (iw && d.rec[i].scale != 1))
			return HC_PREV_UNRECOVERABLE;
		hit = i;
		xreg = bw ? d.rec[i].base : d.rec[i].index;
	}
	if (hit < 0)
		return HC_PREV_UNRECOVERABLE;
	acc = out->acc[hit];
	b = reg_gpr[xreg];
	if (b == NO_GPR || reg_width[xreg] != 64 || b == GPR_RSP || b == GPR_RBP)
		return HC_PREV_UNRECOVERABLE;
	at = prev;
	later = d.written;   /* registers written after the point walked back to */
	/* The base register's value before prev: walking back from prev
	   through straight-line code (no branch target), at most `chain`
	   instructions that add to it (`add %reg,%b`, `add/sub $imm,%b`:
	   -O0's element address, `mov slot,%rax; add %rdx,%rax`) or leave it
	   and memory alone (the index's own arithmetic in between), to the
	   instruction that loaded it whole from a stack slot or set it to a
	   static address (lea sym(%rip)). An added register must be intact
	   (nothing after the add wrote it), and so must the slot's base. */
	for (unsigned k = 0;; k++) {
		uint16_t w = 0;
		uint64_t v;
		bool anchor;

		if (prev_lookup(at, cache, &pprev, NULL) != HC_PREV_OK)
			return HC_PREV_UNRECOVERABLE;
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, (const uint8_t *)(uintptr_t)pprev,
		                                         at - pprev, &zi, ops)) ||
		    zi.length != at - pprev || is_branch(&zi))
			return HC_PREV_UNRECOVERABLE;
		anchor = (zi.mnemonic == ZYDIS_MNEMONIC_MOV || zi.mnemonic == ZYDIS_MNEMONIC_LEA) &&
		         zi.operand_count_visible == 2 && ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		         reg_gpr[ops[0].reg.value] == b && ops[1].type == ZYDIS_OPERAND_TYPE_MEMORY;
		if (anchor) {
			if (reg_width[ops[0].reg.value] != 64 || ops[1].mem.index != ZYDIS_REGISTER_NONE ||
			    (ops[1].mem.segment != ZYDIS_REGISTER_DS && ops[1].mem.segment != ZYDIS_REGISTER_SS &&
			     ops[1].mem.segment != ZYDIS_REGISTER_NONE))
				return HC_PREV_UNRECOVERABLE;
			break;
		}
		if (k >= chain)
			return HC_PREV_UNRECOVERABLE;
		if ((zi.mnemonic == ZYDIS_MNEMONIC_ADD || zi.mnemonic == ZYDIS_MNEMONIC_SUB) &&
		    zi.operand_count_visible == 2 && ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    reg_gpr[ops[0].reg.value] == b) {
			if (reg_width[ops[0].reg.value] != 64)
				return HC_PREV_UNRECOVERABLE;
			if (ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE)
				v = (uint64_t)ops[1].imm.value.s;
			else if (ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			         zi.mnemonic == ZYDIS_MNEMONIC_ADD && reg_gpr[ops[1].reg.value] != b &&
			         reg_width[ops[1].reg.value] == 64 && gpr_bit(ops[1].reg.value) &&
			         !(later & gpr_bit(ops[1].reg.value)) && reg_value(r, ops[1].reg.value, &v))
				;
			else
				return HC_PREV_UNRECOVERABLE;
			off += zi.mnemonic == ZYDIS_MNEMONIC_ADD ? v : (uint64_t)0 - v;
			at = pprev;
			continue;
		}
		/* anything else: neither the base register nor memory */
		for (int i = 0; i < zi.operand_count; i++) {
			if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
				return HC_PREV_UNRECOVERABLE;
			if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			    (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
				w |= gpr_bit(ops[i].reg.value);
		}
		if (w & (1u << b))
			return HC_PREV_UNRECOVERABLE;
		later |= w;
		at = pprev;
	}
	if (zi.mnemonic == ZYDIS_MNEMONIC_LEA) {
		if (ops[1].mem.base != ZYDIS_REGISTER_RIP)
			return HC_PREV_UNRECOVERABLE;
		ptr = at + (uint64_t)ops[1].mem.disp.value;   /* RIP-relative: from the end of pprev */
	} else {
		if (ops[1].mem.base != ZYDIS_REGISTER_RBP && ops[1].mem.base != ZYDIS_REGISTER_RSP)
			return HC_PREV_UNRECOVERABLE;
		/* rbp/rsp intact since (prev and the walked instructions did not write them) */
		if ((later & gpr_bit(ops[1].mem.base)) || !reg_value(r, ops[1].mem.base, &slot))
			return HC_PREV_UNRECOVERABLE;
		slot += (uint64_t)ops[1].mem.disp.value;
		memcpy(&ptr, (const void *)(uintptr_t)slot, sizeof ptr);   /* the own stack frame */
	}
	ptr += off;
	memcpy(g, r->gregs, sizeof g);
	g[gpr_greg[b]] = (long long)ptr;
	r2.gregs = g;
	r2.fsbase = r->fsbase;
	r2.gsbase = r->gsbase;
	if (!recipe_ea(&d.rec[hit], &r2, 0, &ea))
		return HC_PREV_UNRECOVERABLE;
	acc.ea = ea;
	out->acc[0] = acc;
	out->n = 1;
	return HC_PREV_OK;
}

/* A poll loop (detection.md §5.58): see decode.h. The loop's body is
   decoded once into `b` (its instructions in address order); the sampled
   load's address registers are followed backward through the body (a
   loop-carried definition is one from after pc, met after wrapping
   around) as long as each definition is a mov from a register or a
   stack slot; a stack slot the same way, as long as each store to it is
   a mov from a register. Any other definition (arithmetic, lea, a
   caller-saved register across a call) makes the address move. */
#define POLL_BODY 64
#define POLL_TRACK 8

struct poll_insn {
	uint64_t a;
	uint16_t wregs;         /* GPRs written (explicit register operands) */
	bool call;
	bool data_store;        /* writes memory that is not a stack slot */
	int8_t  mov_src_gpr;    /* mov reg <- reg: the source GPR (-1 none) */
	bool mov_from_slot;     /* mov reg <- [rbp/rsp + d] */
	bool mov_to_slot;       /* mov [rbp/rsp + d] <- reg */
	bool slot_write;        /* writes a stack slot at all */
	uint8_t slot_base;      /* GPR_RBP or GPR_RSP */
	int64_t slot_disp;
	int8_t  mov_to_src_gpr; /* mov_to_slot's source GPR */
};

static bool stack_slot(const ZydisDecodedOperand *op)
{
	return op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.type == ZYDIS_MEMOP_TYPE_MEM &&
	       op->mem.index == ZYDIS_REGISTER_NONE &&
	       (op->mem.base == ZYDIS_REGISTER_RSP || op->mem.base == ZYDIS_REGISTER_RBP);
}

static void poll_insn(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, uint64_t a,
                      struct poll_insn *p)
{
	struct hc_store_site site;

	memset(p, 0, sizeof(*p));
	p->a = a;
	p->mov_src_gpr = p->mov_to_src_gpr = -1;
	p->call = in->mnemonic == ZYDIS_MNEMONIC_CALL;
	p->data_store = data_store(in, ops, a, &site);
	for (int i = 0; i < in->operand_count_visible; i++) {
		const ZydisDecodedOperand *op = &ops[i];

		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER && (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
		    reg_gpr[op->reg.value] != NO_GPR)
			p->wregs |= (uint16_t)(1u << reg_gpr[op->reg.value]);
		if (stack_slot(op) && (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)) {
			p->slot_write = true;
			p->slot_base = op->mem.base == ZYDIS_REGISTER_RBP ? GPR_RBP : GPR_RSP;
			p->slot_disp = op->mem.disp.has_displacement ? op->mem.disp.value : 0;
		}
	}
	if (in->mnemonic == ZYDIS_MNEMONIC_MOV && in->operand_count_visible == 2) {
		const ZydisDecodedOperand *d = &ops[0], *s = &ops[1];

		if (d->type == ZYDIS_OPERAND_TYPE_REGISTER && reg_gpr[d->reg.value] != NO_GPR) {
			if (s->type == ZYDIS_OPERAND_TYPE_REGISTER && reg_gpr[s->reg.value] != NO_GPR)
				p->mov_src_gpr = (int8_t)reg_gpr[s->reg.value];
			else if (stack_slot(s)) {
				p->mov_from_slot = true;
				p->slot_base = s->mem.base == ZYDIS_REGISTER_RBP ? GPR_RBP : GPR_RSP;
				p->slot_disp = s->mem.disp.has_displacement ? s->mem.disp.value : 0;
			}
		} else if (stack_slot(d) && s->type == ZYDIS_OPERAND_TYPE_REGISTER && reg_gpr[s->reg.value] != NO_GPR) {
			p->mov_to_slot = true;
			p->mov_to_src_gpr = (int8_t)reg_gpr[s->reg.value];
		}
	}
}

/* The callee-saved GPRs of the SysV ABI: rbx, rsp, rbp, r12-r15. */
#define POLL_CALLEE_SAVED ((1u << GPR_RBX) | (1u << GPR_RSP) | (1u << GPR_RBP) | (0xfu << 12))

static int poll_invariant(const struct poll_insn *b, uint32_t n, uint32_t at, uint16_t regs)
{
	/* work list: (register or slot, the index to search backward from) */
	struct { bool slot; uint8_t gpr, base; int64_t disp; uint32_t from; } w[POLL_TRACK];
	uint32_t nw = 0, steps = 0;

	for (int g = 0; g < NGPR; g++)
		if ((regs >> g) & 1) {
			if (g == GPR_RSP || g == GPR_RBP)
				continue;          /* the frame (a stack slot's base) */
			if (nw == POLL_TRACK)
				return -EINVAL;
			w[nw++] = (typeof(w[0])){ .slot = false, .gpr = (uint8_t)g, .from = at };
		}
	while (nw) {
		typeof(w[0]) c = w[--nw];
		bool found = false;

		/* backward from c.from (exclusive), wrapping around once */
		for (uint32_t k = 1; k <= n && !found; k++) {
			const struct poll_insn *p = &b[(c.from + n - k) % n];

			if (++steps > 4 * POLL_BODY)
				return -EINVAL;
			if (!c.slot) {
				if (p->call && !((POLL_CALLEE_SAVED >> c.gpr) & 1))
					return -EINVAL;   /* clobbered by the call */
				if (!((p->wregs >> c.gpr) & 1))
					continue;
				found = true;
				if (p->mov_src_gpr >= 0) {
					if (p->mov_src_gpr == GPR_RSP || p->mov_src_gpr == GPR_RBP)
						return -EINVAL;
					if (nw == POLL_TRACK)
						return -EINVAL;
					w[nw++] = (typeof(w[0])){ .slot = false, .gpr = (uint8_t)p->mov_src_gpr,
					                          .from = (uint32_t)((c.from + n - k) % n) };
				} else if (p->mov_from_slot) {
					if (nw == POLL_TRACK)
						return -EINVAL;
					w[nw++] = (typeof(w[0])){ .slot = true, .base = p->slot_base, .disp = p->slot_disp,
					                          .from = (uint32_t)((c.from + n - k) % n) };
				} else {
					return -EINVAL;   /* computed in the loop: the address moves */
				}
			} else {
				if (!p->slot_write || p->slot_base != c.base || p->slot_disp != c.disp)
					continue;
				found = true;
				if (!p->mov_to_slot || p->mov_to_src_gpr < 0 || p->mov_to_src_gpr == GPR_RSP ||
				    p->mov_to_src_gpr == GPR_RBP || nw == POLL_TRACK)
					return -EINVAL;
				w[nw++] = (typeof(w[0])){ .slot = false, .gpr = (uint8_t)p->mov_to_src_gpr,
				                          .from = (uint32_t)((c.from + n - k) % n) };
			}
		}
	}
	return 0;
}

int hc_decode_poll_loop(uint64_t pc, unsigned max)
{
	uint64_t start, end, a = pc, to = 0, back = 0;
	struct poll_insn b[POLL_BODY];
	uint32_t n = 0, at = UINT32_MAX;
	uint16_t regs = 0;
	bool load = false;

	if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE) || !hc_funcs_lookup(pc, &start, &end))
		return -ENOENT;
	/* the back-edge, as hc_decode_loop_exit finds it */
	for (unsigned i = 0; i < max && a >= start && a < end && !back; i++) {
		ZydisDecodedInstruction in;
		size_t avail = end - a < MAX_INSN ? end - a : MAX_INSN;
		uint64_t next, t;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&walker, NULL, (const void *)(uintptr_t)a, avail, &in)))
			return -EINVAL;
		next = a + in.length;
		if (!(in.attributes & ZYDIS_ATTRIB_IS_RELATIVE) || !in.raw.imm[0].is_relative) {
			if (no_fallthrough(&in) || in.mnemonic == ZYDIS_MNEMONIC_SYSCALL)
				return -EINVAL;
			a = next;
			continue;
		}
		t = next + (uint64_t)in.raw.imm[0].value.s;
		if (is_jcc(in.mnemonic) && t <= pc && t >= start) {
			to = t;
			back = a;
		} else if (in.mnemonic == ZYDIS_MNEMONIC_JMP) {
			if (t <= a)
				return -EINVAL;
			a = t;
		} else if (is_jcc(in.mnemonic)) {
			a = next;
		} else {
			return -EINVAL;
		}
	}
	if (!back)
		return -EINVAL;
	/* the body [to, back], in address order */
	for (a = to; a <= back; ) {
		ZydisDecodedInstruction in;
		ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
		size_t avail = end - a < MAX_INSN ? end - a : MAX_INSN;

		if (n == POLL_BODY ||
		    !ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, (const void *)(uintptr_t)a, avail, &in, ops)))
			return -EINVAL;
		poll_insn(&in, ops, a, &b[n]);
		if (b[n].data_store)
			return -EINVAL;            /* the loop writes data: not a wait */
		if (a == pc) {
			at = n;
			for (int i = 0; i < in.operand_count_visible; i++) {
				const ZydisDecodedOperand *op = &ops[i];

				if (op->type != ZYDIS_OPERAND_TYPE_MEMORY || op->mem.type != ZYDIS_MEMOP_TYPE_MEM ||
				    !(op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) || stack_slot(op))
					continue;
				load = true;    /* a RIP-relative flag: no register to follow */
				if (op->mem.base != ZYDIS_REGISTER_NONE && reg_gpr[op->mem.base] != NO_GPR)
					regs |= (uint16_t)(1u << reg_gpr[op->mem.base]);
				if (op->mem.index != ZYDIS_REGISTER_NONE && reg_gpr[op->mem.index] != NO_GPR)
					regs |= (uint16_t)(1u << reg_gpr[op->mem.index]);
			}
		}
		a += in.length;
		n++;
	}
	if (at == UINT32_MAX || !load)
		return -EINVAL;
	return poll_invariant(b, n, at, regs);
}
