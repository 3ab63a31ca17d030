/* SPDX-License-Identifier: BSD-3-Clause */
/* decode.h — effective addresses of the memory accesses of one x86-64
   instruction, computed from a signal context (Zydis, with the fix-ups the
   spike found: doc/findings.md §3.1, §9.15), and recovery of the
   *previous* instruction's access for timer skid (decode forward from the
   enclosing function's start, found in the in-memory .eh_frame_hdr tables,
   funcstart.h). After hc_decode_init() every function here is
   async-signal-safe: no allocation, no locks, no stdio. */
#ifndef HC_DECODE_H
#define HC_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* direction */
#define HC_ACC_R 1u
#define HC_ACC_W 2u

/* kind of access */
enum hc_acc_kind {
	HC_ACC_EXPLICIT = 0, /* a ModRM/moffs memory operand */
	HC_ACC_STACK    = 1, /* push/pop/call/ret/enter/leave hidden operand */
	HC_ACC_STRING   = 2, /* movs/stos/lods/cmps/scas (current element) */
	HC_ACC_IMPLICIT = 3, /* other hidden operands (xlat, maskmovdqu...) */
};

/* flags */
#define HC_AF_LOCK    0x0001u /* lock prefix or implicitly locked (xchg m,r): RMW */
#define HC_AF_VSIB    0x0002u /* gather/scatter: ea = base+disp only */
#define HC_AF_BITOFF  0x0004u /* bt* m,r: register bit offset applied */
#define HC_AF_REP     0x0008u /* rep string op */
#define HC_AF_SEG     0x0010u /* fs/gs base added */
#define HC_AF_ADDR32  0x0020u /* 0x67 prefix */
#define HC_AF_RIPREL  0x0040u
#define HC_AF_SYNTH   0x0080u /* synthesised by us */
#define HC_AF_VARSIZE 0x0100u /* xsave & co: size is a guess */
#define HC_AF_MASKED  0x0200u /* AVX-512 {k} or maskmov: not every byte touched */
#define HC_AF_NOSTEP  0x0400u /* instruction flag: a single-step burst must stop before it
                                 (syscall/sysenter/int*: a clone child would inherit the
                                 trap flag; pushf/popf/iret: would save or change it) */
#define HC_AF_XCHG    0x0800u /* xchg with memory (also HC_AF_LOCK): a seq_cst store's form, a flag
                                 or lock word set for another thread (detection.md §5.17) */

struct hc_mem_access {
	uint64_t ea;
	uint32_t size;   /* bytes (element size for string ops) */
	uint8_t  rw;     /* HC_ACC_R | HC_ACC_W */
	uint8_t  kind;   /* enum hc_acc_kind */
	uint16_t flags;  /* HC_AF_* */
};

#define HC_MAX_ACC 4
struct hc_insn {
	uint64_t addr;   /* address of this instruction (set by every hc_decode_* call;
	                    0 when hc_decode_prev/_ending_at found none) */
	uint8_t  len;    /* instruction length, 0 = not decoded */
	uint8_t  n;      /* accesses in acc[] (hints, lea, nops, clflush filtered out) */
	uint16_t flags;  /* HC_AF_* for the whole instruction */
	bool     branch; /* control-flow instruction (jmp/jcc/call/ret...) */
	struct hc_mem_access acc[HC_MAX_ACC];
};

/* How to compute one access's effective address from registers, as the
   full decode found it: ea = segment base + (base + index * scale + off),
   truncated to 32 bits before the segment base under HC_AF_ADDR32. A
   RIP-relative operand's next-instruction address is folded into off. */
struct hc_acc_recipe {
	int64_t  off;
	uint16_t base, index;   /* Zydis register ids, 0 (ZYDIS_REGISTER_NONE) = none */
	uint8_t  scale;
	uint8_t  seg;           /* 0 none, 1 fs, 2 gs */
	uint8_t  rw, kind;      /* as in struct hc_mem_access */
	uint16_t flags;
	uint32_t size;
};

/* Register state at the sample: the interrupted context. */
struct hc_regs {
	const long long *gregs;  /* ucontext_t.uc_mcontext.gregs (greg_t[NGREG]) */
	uint64_t fsbase, gsbase;
};

/* Once, before any signal: initialise the shared, read-only decoder. */
int hc_decode_init(void);

/* Decode the instruction at rip (code = its bytes, avail readable bytes) and
   compute its accesses against the register state r. 0 or -EINVAL. */
int hc_decode_insn(const uint8_t *code, size_t avail, uint64_t rip,
                   const struct hc_regs *r, struct hc_insn *out);

/* As hc_decode_insn, and the recipe of each access in rec[0..out->n): 0
   when the recipes compute the addresses under any registers (hc_recipe_ea),
   1 when some address or count needs more (bt* m,r, xlat, REP, clzero),
   -EINVAL when it does not decode. */
int hc_decode_recipes(const uint8_t *code, size_t avail, uint64_t rip,
                      const struct hc_regs *r, struct hc_insn *out,
                      struct hc_acc_recipe rec[HC_MAX_ACC]);

/* The effective address a recipe gives under the registers r; false if it
   names a register that is not a general-purpose one. */
bool hc_recipe_ea(const struct hc_acc_recipe *rc, const struct hc_regs *r, uint64_t *ea);

/* Decode the instruction at the interrupted PC of r (reads code memory
   safely: up to the page end first, 15 bytes only if needed). */
int hc_decode_at_pc(const struct hc_regs *r, struct hc_insn *out);

/* What a forward scan of straight-line code needs beyond struct hc_insn
   (hc_scan_burst, lib/detect/scan.h): the general-purpose registers the
   accesses' addresses were computed from, the ones the instruction writes
   (explicit and hidden register operands, any width), whether some address
   or count needs more than base, index and displacement (bt* m,r, xlat,
   REP, clzero), and whether the next instruction in address order may not
   be the next one executed (any branch, ud2). Bits: hardware register
   numbers (rax 0 .. r15 15). */
struct hc_insn_deps {
	uint16_t used;
	uint16_t written;
	bool dynamic;
	bool ends;
};

/* hc_decode_at_pc, with the instruction's register dependencies. */
int hc_decode_at_pc_deps(const struct hc_regs *r, struct hc_insn *out, struct hc_insn_deps *deps);

/* Whether the code byte at pc can be read without a fault: pc lies in a
   function of a module of the current snapshot (hc_funcs_lookup; dlclose
   refreshes it), or else a one-byte process_vm_readv of our own memory
   succeeds (EFAULT for an unmapped page, no signal). For records read
   late, whose code may have been unloaded since. Async-signal-safe. */
bool hc_code_readable(uint64_t pc);

/* Per-thread cache for previous-instruction lookups (by PC, two-way set
   associative: entries 2k and 2k+1 form a set, most recently used first).
   Zero-initialise it (static, calloc or memset) before first use; one cache
   per thread, never shared, never used re-entrantly. An entry holds the
   result of the forward walk (prev and its status) and, once prev has been
   decoded, the *recipe* of its recoverable accesses: a hit then computes the
   addresses from the registers without decoding (performance.md, F6).
   Instructions whose accesses depend on more than base, index and
   displacement (bt* m,r, xlat, REP counts, clzero) or that have more than
   HC_PREV_RECIPES of them are decoded on every hit. Entries are tagged with
   hc_funcs_generation(), so a refresh after dlopen/dlclose invalidates them. */
#define HC_PREV_CACHE_SIZE 1024  /* power of two */
#define HC_PREV_RECIPES    2
struct hc_prev_cache_entry {
	uint64_t pc;     /* key; 0 = empty */
	uint64_t prev;   /* address of the instruction before pc, 0 = none */
	uint32_t gen;    /* hc_funcs_generation() when filled */
	uint8_t  status; /* walk result: OK, NO_FUNC, BRANCH_TARGET or UNDECODABLE */
	uint8_t  decoded;/* 1: the fields below hold prev's final result */
	uint8_t  result; /* hc_decode_prev's status: OK, NO_ACCESS or UNRECOVERABLE */
	uint8_t  n;      /* recipes */
	uint8_t  len;
	bool     branch;
	uint16_t iflags;
	struct hc_acc_recipe rec[HC_PREV_RECIPES];
};
/* Behind the per-PC entries, the cache keeps *function maps*: a walk decodes
   the whole function anyway (to see every branch into pc), so it records,
   per code byte, whether an instruction starts there and whether that
   instruction may be reached other than by falling through (a direct
   branch targets it, or its predecessor does not fall through). A per-PC
   miss in a mapped function then costs a bitmap scan instead of a walk:
   one walk per function, not per sampled PC (a large function is ~10^4
   instructions, hundreds of µs). The maps share a pool of
   HC_PREV_FMAP_WORDS words (2 bits per code byte); when the pool or the
   table is full, all maps are dropped and rebuilt on demand. */
#define HC_PREV_FMAPS      32
#define HC_PREV_FMAP_WORDS 8192  /* 64 KiB: room for four maps of the largest walkable function */
struct hc_prev_fmap {
	uint64_t start, len;     /* the function [start, start + len) */
	uint32_t gen;            /* hc_funcs_generation() when built */
	uint32_t word;           /* its bitmaps in pool: starts, then reached */
	uint64_t fail;           /* offset of the first undecodable instruction, len if none */
};
struct hc_prev_cache {
	struct hc_prev_cache_entry e[HC_PREV_CACHE_SIZE];
	uint64_t hits, misses;   /* per-PC lookups answered from an entry, or not */
	uint64_t walks;          /* functions decoded from their start (function-map misses) */
	uint32_t nfmap, pool_used;
	struct hc_prev_fmap fmap[HC_PREV_FMAPS];
	uint64_t pool[HC_PREV_FMAP_WORDS];
};

enum hc_prev_status {
	HC_PREV_OK = 0,          /* out filled with the recoverable accesses */
	HC_PREV_NO_FUNC = 1,     /* pc not inside a known function */
	HC_PREV_BRANCH_TARGET = 2,/* pc is a direct-branch target: predecessor may not have run */
	HC_PREV_UNDECODABLE = 3, /* forward decode from the function start failed */
	HC_PREV_UNRECOVERABLE = 4,/* the previous insn overwrote its own address registers */
	HC_PREV_NO_ACCESS = 5,   /* the previous instruction accesses no memory */
};

/* Longest function the forward walk decodes; larger ones are UNDECODABLE
   (their branch targets cannot all be seen within a bounded walk). */
#define HC_PREV_WALK_MAX 65536

/* The previous instruction's recoverable memory accesses, computed from the
   post-execution registers r (i.e. the sample's context). Stack, string and
   synthesised accesses, and accesses whose base/index register the
   instruction itself writes, are dropped. Returns enum hc_prev_status.
   The function containing the PC comes from hc_funcs_lookup (funcstart.h):
   hc_funcs_update() must have run (the runtime's loadmap). BRANCH_TARGET also covers a PC at a
   function start and a previous instruction that cannot fall through to
   PC (jmp, ret, and call: the callee ran in between). cache may be NULL. */
int hc_decode_prev(const struct hc_regs *r, struct hc_prev_cache *cache, struct hc_insn *out);

/* -O0's pointer dereference: when hc_decode_prev says UNRECOVERABLE because
   the previous instruction overwrote one of its own address registers
   -- `mov (%rax),%rax`, or `mov (%rdx,%rax,1),%rax` (an index of scale 1;
   the other register intact) -- and it directly follows (is no branch target of)
   a whole reload of that register from a stack slot -- `mov -8(%rbp),%rax`
   -- or a load of a static address into it -- `lea sym(%rip),%rax` (-O0's
   global array element) --, the address is recovered from the slot, which
   still holds the pointer, or from the static address. out gets that one access (address, size, direction).
   With chain > 0 up to `chain` instructions may stand between the reload and
   the load: additions to the register (`add %rdx,%rax` with rdx intact since,
   `add/sub $imm,%rax`: -O0's `p->items[i].seq`, the pointer reloaded, the
   scaled index added) and instructions that write neither it nor memory
   (the index's arithmetic); detection.md §5.29. Returns
   enum hc_prev_status (OK only when recovered). The slot is read from the
   interrupted frame: call it on the thread's own registers only. */
int hc_decode_prev_reload(const struct hc_regs *r, struct hc_prev_cache *cache, unsigned chain,
                          struct hc_insn *out);

/* The store half of an update (x[i] += v compiled as a load, arithmetic
   and a store of the same bytes; detection.md §5.54): walking back from pc
   at most `depth` instructions of straight-line code (none a branch
   target), does an instruction read exactly [ea, ea + size) through
   registers that neither it nor any instruction up to pc changed? r is
   the thread's registers at pc (the store's own register writes are the
   caller's to rule out). 1 if so (*load: that instruction's address), 0
   if not or not known (a store of those bytes first, a REP op, an
   undecodable or dynamic address). recompute (-O0, detection.md §5.56):
   a load whose address registers were written between counts when a
   small evaluator proves its address: the straight-line run before it
   (no store in it) evaluated forward over r's registers that nothing in
   the run or the store wrote, whole reloads of the own frame's slots
   (read now: no store between may touch them), mov/lea/movslq/cltq and
   add/sub/and/or/xor/shl/shr/sar/imul; then 2 (*load: the load; its
   address is not r's: the caller must ask again, not re-decode it).
   Async-signal-safe. */
int hc_decode_load_before(const struct hc_regs *r, uint64_t pc, struct hc_prev_cache *cache, unsigned depth,
                          uint64_t ea, uint32_t size, uint64_t *load, bool recompute);

/* The load half of an update, seen from the instruction after it (pc):
   within `depth` instructions of straight-line code, is the first store
   (not a stack slot) one of exactly [ea, ea + size), through registers
   no instruction from pc on changed? r: the registers at pc. 1 or 0 (not
   known included). -O0's `x += v` recomputes the address between the
   two: with recompute the registers written between are evaluated (as
   hc_decode_load_before's evaluator, from r: every register known at pc),
   otherwise they are unknown; 2 when the store's address uses a register
   so evaluated (the address was computed again). *store (if given): that
   store's address, 0 when the answer is 0. Async-signal-safe. */
int hc_decode_store_after(const struct hc_regs *r, uint64_t pc, unsigned depth, uint64_t ea, uint32_t size,
                          bool recompute, uint64_t *store);

/* hc_decode_prev, walking back up to `depth` instructions of straight-line
   code (none of them a branch target): the latest instruction before pc
   with a recoverable access, i.e. whose address registers neither it nor
   any instruction after it (up to pc) wrote. A timer's skid past a stalled
   load in arithmetic (`movsd (%r10,%rcx,8),%xmm0; mulsd ...; add $1,%rdx;
   addsd` sampled at the addsd) lands several instructions after it.
   OK (out holds the accesses, out->addr that instruction) or NO_ACCESS.
   Not cached beyond the per-PC predecessors. */
int hc_decode_prev_deep(const struct hc_regs *r, struct hc_prev_cache *cache, unsigned depth,
                        struct hc_insn *out);

/* The exit of the innermost loop pc is in: decoding forward from pc at
   most max instructions (the fall-through of forward conditional
   branches, the target of a forward jmp), the first conditional relative
   branch back to pc or before it within pc's function; *exit is the
   instruction after it. 0, or -ENOENT (no function) / -EINVAL (a call, a
   return, an indirect or backward jmp first, too far). For a return
   burst's breakpoint when the sample is in a loop of the thread's start
   routine, whose return address is libc's (soft.c). Async-signal-safe. */
int hc_decode_loop_exit(uint64_t pc, unsigned max, uint64_t *exit);

/* A poll loop (a spin wait, detection.md §5.58): pc is a load of memory
   that is not a stack slot, inside the innermost loop whose back-edge
   hc_decode_loop_exit's walk finds within max instructions (a
   conditional branch back to pc or before it); that loop's body, from
   the back-edge's target to the back-edge, at most 64 instructions,
   writes no memory but stack slots (calls allowed: sched_yield), and the
   load's address registers keep their value around the loop (each
   definition in the body a mov from a register or a stack slot that is
   itself only written by movs from such registers: -O0's reloads; no
   caller-saved register live across a call). A reduction over an array
   moves its address; a queue or a stencil writes data. 0, or -ENOENT
   (no function) / -EINVAL (not such a loop). Async-signal-safe. */
int hc_decode_poll_loop(uint64_t pc, unsigned max);

/* The innermost loop pc is in, as hc_decode_loop_exit finds it (the
   first conditional branch back to pc or before it, within max
   instructions): *start its target, *exit the instruction after it, and
   *written the general registers any instruction of [*start, *exit)
   writes (hc_insn_deps' bits), for a scan from the exit with the
   registers of a sample inside the loop (detection.md §5.57: those the
   loop does not write hold at its exit). -EINVAL also when the body has a
   call, a return, an indirect jump, an instruction with a dynamic
   register use or one that does not decode. Async-signal-safe. */
int hc_decode_loop_body(uint64_t pc, unsigned max, uint64_t *start, uint64_t *exit, uint16_t *written);

/* The load that feeds the innermost loop pc is in (feed sets, detection.md
   §5.68): the loop (hc_decode_loop_body, max instructions) accesses no
   memory but stack slots, and within 4 instructions of straight-line code
   before its first one there is an instruction with a non-stack load (no
   store) whose address registers neither the loop nor any instruction
   between writes — with r, a sample's registers inside the loop, its
   address now is the one it read. The instructions between access no
   memory. *load: that instruction's address. 0; -ENOENT (no such loop or
   load), -EINVAL (not decodable). Async-signal-safe. */
int hc_decode_loop_feed(const struct hc_regs *r, struct hc_prev_cache *cache, unsigned max, uint64_t *load);

/* Whether the instruction at pc is the only one with a non-stack memory
   access in the innermost loop around it (hc_decode_loop_body, max
   instructions), and that access a load: -O0's `s = s * c + in[i][k]`,
   the input reloaded in every iteration among stack slots (feed sets,
   detection.md §5.68). Loads of read-only memory by a RIP-relative
   address (its constants: readonly(addr), NULL = none) do not count.
   0 if so; -ENOENT (no such loop, or another access in it), -EINVAL (not
   decodable). Async-signal-safe. */
int hc_decode_loop_only_load(uint64_t pc, unsigned max, bool (*readonly)(uint64_t addr));

/* The one load of the innermost loop around pc (hc_decode_loop_body, max
   instructions), when its address registers still hold the address it
   last read as pc is about to run: the loop's only instruction with a
   non-stack access (frame slots and, given readonly, RIP-relative
   read-only constants aside) is that load, the body is straight-line
   code but for its back-edge, and no instruction from the load (after
   it) around to pc (before it) writes a register the load uses. -O0's
   `s = s * c + in[i][k]` sampled at the multiply of the next iteration
   (detection.md §5.70): a sample's registers then give in[i][k]'s
   address. *load: the load's address; pc the load itself does not count
   (its sample has the access). 0; -ENOENT (no such loop or load, or a
   register rewritten), -EINVAL (not decodable). Async-signal-safe. */
int hc_decode_loop_live_load(uint64_t pc, unsigned max, bool (*readonly)(uint64_t addr), uint64_t *load);

/* A leaf function with a frame pointer (detection.md §5.67: mw_cond -O0's
   spin_work, called by the worker between its pop and its store of the
   result): pc's function begins with push %rbp; mov %rsp,%rbp (after an
   endbr64), calls nothing, jumps nowhere indirectly, writes rbp only in
   its epilogue (pop %rbp, leave), is at most HC_LEAF_FRAME_MAX bytes, and
   pc lies after the prologue and before the epilogue's first instruction:
   at pc, [rbp] is the caller's rbp and [rbp + 8] the return address.
   *fstart the function's start; *clobbered the general registers the
   caller cannot rely on when the call returns (hc_insn_deps' bits): the
   System V caller-saved ones and any the function writes, never rsp and
   rbp. 0, -ENOENT (no function), -EINVAL (not such a function or pc).
   Decodes the whole function: its callers cache the answer per PC.
   Async-signal-safe. */
#define HC_LEAF_FRAME_MAX 4096
int hc_decode_leaf_frame(uint64_t pc, uint64_t *fstart, uint16_t *clobbered);

/* The releaser's store before its unlock (detection.md §5.49): ret is the
   return address of a call (pthread_mutex_unlock's caller); walking back
   from that call at most max instructions of straight-line code in ret's
   function (over other calls: pthread_cond_signal before the unlock), the
   latest instruction with an explicit memory write that is not a stack
   slot (rsp-based, or rbp-based below rbp). *store is its address. 0;
   -ENOENT (no function, or no such store: a jmp/ret, or a direct branch
   target between it and the call, i.e. the path may not have passed it);
   -EINVAL (the code does not decode, ret follows no call, the function is
   longer than HC_PREV_WALK_MAX). Decodes the whole function twice: not for
   a hot path (lock.c calls it when it captures a releaser's context, a few
   times a run). Async-signal-safe. */
int hc_decode_store_before(uint64_t ret, unsigned max, uint64_t *store);

/* hc_decode_store_before's walk, every store on it, latest first, at most
   nmax: the count, or -ENOENT/-EINVAL as there. A store's address as its
   operand says it: HC_STORE_ABS, an absolute address (RIP-relative or
   displacement only) in key; HC_STORE_DISP, a displacement from one
   register (no index) in key, e.g. a field of the struct the register
   points to; HC_STORE_OTHER, an indexed or segment-based address. */
enum { HC_STORE_OTHER = 0, HC_STORE_ABS = 1, HC_STORE_DISP = 2 };
struct hc_store_site {
	uint64_t ip;
	int64_t key;
	uint32_t size;
	uint8_t kind;
};
int hc_decode_stores_before(uint64_t ret, unsigned max, struct hc_store_site *out, unsigned nmax);

/* The instruction that ends exactly at pc (a data watchpoint traps after the
   access): its accesses, computed from r as they are (registers the
   instruction overwrote are not corrected for: the caller judges
   plausibility). The function is the one containing pc - 1, so an access
   that is the last instruction of a function is found too. 0, -ENOENT (no
   function) or -EINVAL (no instruction ends at pc). cache may be NULL. */
int hc_decode_ending_at(const struct hc_regs *r, uint64_t pc, struct hc_prev_cache *cache,
                        struct hc_insn *out);

#endif
