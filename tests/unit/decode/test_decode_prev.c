/* SPDX-License-Identifier: BSD-3-Clause */
/* test_decode_prev.c — previous-instruction recovery (timer skid) and the
   instruction ending at a watchpoint trap PC, on hand-built asm functions
   with CFI (so funcstart finds them) whose instructions and branch targets
   are known. Register states are synthetic "after the previous instruction"
   contexts, except for one function run for real under single-stepping
   (EFLAGS.TF), whose SIGTRAP context at the instruction after a lock add is
   exactly a skidded timer sample. Also checks the per-PC cache: hits do not
   walk again, and a refresh that changes the module list invalidates it. */
#include <dlfcn.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ucontext.h>

#include "decode/decode.h"
#include "decode/funcstart.h"
#include "runtime/loadmap.h"
#include "hc_test.h"

#define FN(name) ".globl " #name "\n.hidden " #name "\n.type " #name ",@function\n" \
	#name ":\n\t.cfi_startproc\n"
#define ENDFN(name) "\t.cfi_endproc\n.size " #name ",.-" #name "\n"
#define PC(name) ".globl " #name "\n.hidden " #name "\n" #name ":\n"

__asm__(".data\n.p2align 3\n" PC(pv_glob) "\t.quad 0\n"
	".text\n"
	/* store before an unconditional jmp: the bench's true-sharing shape */
	FN(fn_store)
	"\tmov %rsi,(%rdi)\n" PC(store_pc)
	"\tjmp 1f\n1:\tret\n"
	ENDFN(fn_store)
	/* lock add before an add */
	FN(fn_lock)
	"\tlock addq $1,8(%rdi)\n" PC(lock_pc)
	"\tadd $1,%rax\n\tret\n"
	ENDFN(fn_lock)
	/* loop head: reached from the jnz after it */
	FN(fn_loop)
	"\txor %eax,%eax\n\tmov (%rdi),%rcx\n" PC(loop_head)
	"\tadd (%rsi),%rax\n\tdec %rcx\n\tjnz loop_head\n\tret\n"
	ENDFN(fn_loop)
	/* forward branch target */
	FN(fn_fwd)
	"\ttest %rax,%rax\n\tje fwd_pc\n\tmov (%rdi),%rax\n" PC(fwd_pc)
	"\tret\n"
	ENDFN(fn_fwd)
	/* the load overwrites its own base */
	FN(fn_unrec)
	"\tmov (%rax),%rax\n" PC(unrec_pc)
	"\tret\n"
	ENDFN(fn_unrec)
	/* ... its index */
	FN(fn_index)
	"\tmov 8(%rdi,%rcx,4),%ecx\n" PC(index_pc)
	"\tret\n"
	ENDFN(fn_index)
	/* ... but not a register the address does not use */
	FN(fn_other)
	"\tmov (%rdi),%ecx\n" PC(other_pc)
	"\tret\n"
	ENDFN(fn_other)
	/* the private RMW of the spike's bench */
	FN(fn_rmw)
	"\tadd %rsi,(%rbx,%rcx,8)\n" PC(rmw_pc)
	"\tret\n"
	ENDFN(fn_rmw)
	/* the skid past register-only code (hc_decode_prev_deep): HPCCG's
	   sparse mat-vec inner loop at -O2, and a loop head in the way */
	FN(fn_deep)
	"\tmovslq (%r8,%rdx,4),%rcx\n\tmovsd (%r10,%rcx,8),%xmm0\n\tmulsd (%r9,%rdx,8),%xmm0\n"
	"\tadd $1,%rdx\n" PC(deep_add_pc)
	"\taddsd %xmm0,%xmm1\n" PC(deep_addsd_pc)
	"\tcmp %rdi,%rdx\n\tjne fn_deep\n" PC(deep_head_pc)
	"\tadd $1,%rax\n\tadd $2,%rbx\n" PC(deep_head_end)
	"\tjnz deep_head_pc\n\tret\n"
	ENDFN(fn_deep)
	/* no memory access */
	FN(fn_noacc)
	"\tadd $1,%rax\n" PC(noacc_pc)
	"\tret\n"
	ENDFN(fn_noacc)
	/* after an unconditional jmp: not reached from it */
	FN(fn_afterjmp)
	"\tjmp 1f\n" PC(afterjmp_pc)
	"\tmov (%rdi),%rax\n1:\tret\n"
	ENDFN(fn_afterjmp)
	/* after a call: the callee ran in between */
	FN(fn_aftercall)
	"\tcall fn_noacc\n" PC(aftercall_pc)
	"\tret\n"
	ENDFN(fn_aftercall)
	/* stack, string, implicit-AL accesses */
	FN(fn_push)
	"\tpush %rax\n" PC(push_pc)
	"\tpop %rax\n\tret\n"
	ENDFN(fn_push)
	FN(fn_pushm)
	"\tpushq 8(%rdi)\n" PC(pushm_pc)
	"\tpop %rax\n\tret\n"
	ENDFN(fn_pushm)
	FN(fn_rep)
	"\trep movsb\n" PC(rep_pc)
	"\tret\n"
	ENDFN(fn_rep)
	FN(fn_xlat)
	"\txlat\n" PC(xlat_pc)
	"\tret\n"
	ENDFN(fn_xlat)
	/* RIP-relative: recoverable whatever the registers */
	FN(fn_riprel)
	"\taddl $1,pv_glob(%rip)\n" PC(riprel_pc)
	"\tret\n"
	ENDFN(fn_riprel)
	/* address shapes for the recipe cache: fs segment, 32-bit address,
	   scaled index with a negative displacement, two accesses, bt m,r */
	FN(fn_fs)
	"\tmov %fs:0x28(%rdi),%rax\n" PC(fs_pc)
	"\tret\n"
	ENDFN(fn_fs)
	FN(fn_a32)
	"\tmovl %esi,0x10(%edi)\n" PC(a32_pc)
	"\tret\n"
	ENDFN(fn_a32)
	FN(fn_sib)
	"\tmovw %ax,-0x18(%rbx,%rdx,4)\n" PC(sib_pc)
	"\tret\n"
	ENDFN(fn_sib)
	FN(fn_movs)
	"\tmovsq\n" PC(movs_pc)
	"\tret\n"
	ENDFN(fn_movs)
	FN(fn_bt)
	"\tbtsq %rsi,(%rdi)\n" PC(bt_pc)
	"\tret\n"
	ENDFN(fn_bt)
	/* a PC inside an instruction */
	FN(fn_mid)
	"\tmovabs $0x1122334455667788,%rax\n\tret\n"
	ENDFN(fn_mid)
	/* longer than the walk limit */
	FN(fn_big)
	"\tmov (%rdi),%rax\n" PC(big_pc)
	"\t.skip 70000,0x90\n\tret\n"
	ENDFN(fn_big)
	/* an invalid byte (push %es does not exist in 64-bit mode) after a
	   load: every walk result is UNDECODABLE, the load still ends at
	   undec_pc for a trap */
	FN(fn_undec)
	"\tmov (%rdi),%rax\n" PC(undec_pc)
	"\tadd $1,%rax\n"
	"\t.byte 0x06\n\tret\n"
	ENDFN(fn_undec)
	/* the store is the function's last instruction */
	FN(fn_last)
	"\tmov %rsi,(%rdi)\n"
	ENDFN(fn_last)
	PC(fn_last_end)
	"\tnop\n"
	/* -O0 reloads (hc_decode_prev_reload): the pointer from its stack
	   slot; a global array's element through lea sym(%rip) with an
	   intact index; an index the load overwrote */
	FN(fn_reload_slot)
	"\tmov -8(%rbp),%rax\n\tmov 16(%rax),%rax\n" PC(reload_slot_pc)
	"\tret\n"
	ENDFN(fn_reload_slot)
	FN(fn_reload_lea)
	"\tlea pv_glob(%rip),%rax\n\tmov (%rdx,%rax,1),%rax\n" PC(reload_lea_pc)
	"\tret\n"
	ENDFN(fn_reload_lea)
	FN(fn_reload_idx)
	"\tlea pv_glob(%rip),%rax\n\tmov (%rax,%rax,1),%rax\n" PC(reload_idx_pc)
	"\tret\n"
	ENDFN(fn_reload_idx)
	/* -O0's q->items[i % 256].seq (spsc.c:73): the pointer reloaded, the
	   scaled index added; then the same with the index's register
	   written after the add, with a store in between, and an add of
	   the base register to itself */
	FN(fn_reload_chain)
	"\tmovzbl %al,%edx\n\tmov -8(%rbp),%rax\n\tadd $0x8,%rdx\n\tshl $0x4,%rdx\n"
	"\tadd %rdx,%rax\n\tsub $0x10,%rax\n\tmov 0x18(%rax),%rax\n" PC(reload_chain_pc)
	"\tret\n"
	ENDFN(fn_reload_chain)
	FN(fn_reload_chain_late)
	"\tmov -8(%rbp),%rax\n\tadd %rdx,%rax\n\tmov $1,%edx\n\tmov (%rax),%rax\n" PC(reload_chain_late_pc)
	"\tret\n"
	ENDFN(fn_reload_chain_late)
	FN(fn_reload_chain_store)
	"\tmov -8(%rbp),%rax\n\tmov %rdx,-16(%rbp)\n\tadd %rdx,%rax\n\tmov (%rax),%rax\n" PC(reload_chain_store_pc)
	"\tret\n"
	ENDFN(fn_reload_chain_store)
	FN(fn_reload_chain_self)
	"\tmov -8(%rbp),%rax\n\tadd %rax,%rax\n\tmov (%rax),%rax\n" PC(reload_chain_self_pc)
	"\tret\n"
	ENDFN(fn_reload_chain_self)
	/* loop exits (hc_decode_loop_exit): fs_inline's -O2 worker, the
	   store, an inner register-only loop, the outer back-edge; the -O0
	   form (a jmp to the condition at the bottom); a call in the way */
	FN(fn_lexit)
	"\tadd %edx,4(%rcx)\n"
	"\tmov $20,%eax\n" PC(lexit_head)
	"\tmulsd %xmm2,%xmm0\n" PC(lexit_in)
	"\taddsd %xmm1,%xmm0\n\tsub $1,%eax\n\tjne lexit_head\n" PC(lexit_out)
	"\tadd $1,%rdx\n\tcmp %rsi,%rdx\n\tjne fn_lexit\n" PC(lexit_after)
	"\tret\n"
	ENDFN(fn_lexit)
	FN(fn_lexit0)
	"\tmovl $0,-20(%rbp)\n\tjmp 2f\n"
	"1:\tmovsd -16(%rbp),%xmm1\n" PC(lexit0_in)
	"\tmulsd %xmm0,%xmm1\n\ttestl $1,-20(%rbp)\n\tje 3f\n\tnop\n3:\taddl $1,-20(%rbp)\n"
	"2:\tcmpl $19,-20(%rbp)\n\tjle 1b\n" PC(lexit0_out)
	"\tret\n"
	ENDFN(fn_lexit0)
	FN(fn_lexit_call)
	"\tmov $20,%eax\n" PC(lexit_call_head)
	"\tcall fn_noacc\n" PC(lexit_call_in)
	"\tsub $1,%eax\n\tjne lexit_call_head\n\tret\n"
	ENDFN(fn_lexit_call)
	/* feed loops (hc_decode_loop_feed, §5.68): C-Thread-Pool's task at
	   -O2 (the row's load, the count, gcc's nopl pad, a register-only
	   inner loop); not: the inner loop loads, the loop advances the
	   feed's register, a store before the loop */
	FN(fn_feed)
	"\tlea 64(%rdx),%rcx\n"
	"1:\n" PC(feed_load) "\tmovsd (%rdx),%xmm1\n\tmov $2000,%eax\n\tnopl 0(%rax)\n"
	"2:\tmulsd %xmm2,%xmm0\n" PC(feed_in) "\taddsd %xmm1,%xmm0\n\tsub $1,%eax\n\tjne 2b\n"
	"\tadd $8,%rdx\n\tcmp %rcx,%rdx\n\tjne 1b\n\tret\n"
	ENDFN(fn_feed)
	FN(fn_feed_loads)
	"\tmovsd (%rdx),%xmm1\n\tmov $20,%eax\n"
	"2:\taddsd (%rsi),%xmm0\n" PC(feedl_in) "\tsub $1,%eax\n\tjne 2b\n\tret\n"
	ENDFN(fn_feed_loads)
	FN(fn_feed_moves)
	"\tmovsd (%rdx),%xmm1\n\tmov $20,%eax\n"
	"2:\tmulsd %xmm1,%xmm0\n" PC(feedm_in) "\tadd $8,%rdx\n\tsub $1,%eax\n\tjne 2b\n\tret\n"
	ENDFN(fn_feed_moves)
	FN(fn_feed_store)
	"\tmovsd %xmm1,(%rdx)\n\tmov $20,%eax\n"
	"2:\tmulsd %xmm1,%xmm0\n" PC(feeds_in) "\tsub $1,%eax\n\tjne 2b\n\tret\n"
	ENDFN(fn_feed_store)
	/* -O0's task loop (hc_decode_loop_only_load, §5.68): stack slots, a
	   constant, and the input reloaded in every iteration — its only
	   access; not: the same loop with a second global's load */
	FN(fn_only0)
	"\tmovl $0,-0x10(%rbp)\n\tjmp 2f\n"
	"1:\n" PC(only_top) "\tmovsd -8(%rbp),%xmm1\n\tmovsd only_k(%rip),%xmm0\n\tmulsd %xmm0,%xmm1\n"
	PC(only_mov) "\tmov -0xc(%rbp),%eax\n" PC(only_cltq) "\tcltq\n\tmov -0x14(%rbp),%edx\n\tmovslq %edx,%rdx\n"
	"\tshl $3,%rdx\n\tadd %rdx,%rax\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n"
	PC(only_load) "\tmovsd (%rdx,%rax,1),%xmm0\n" PC(only_after) "\taddsd %xmm1,%xmm0\n\tmovsd %xmm0,-8(%rbp)\n"
	"\taddl $1,-0x10(%rbp)\n"
	"2:\n" PC(only_cmp) "\tcmpl $1999,-0x10(%rbp)\n\tjle 1b\n\tret\n"
	ENDFN(fn_only0)
	FN(fn_only2)
	"1:\tmovsd pv_glob(%rip),%xmm1\n"
	PC(only2_load) "\tmovsd (%rdx),%xmm0\n\taddsd %xmm1,%xmm0\n\tmovsd %xmm0,-8(%rbp)\n"
	"\taddl $1,-0x10(%rbp)\n\tcmpl $1999,-0x10(%rbp)\n\tjle 1b\n\tret\n"
	ENDFN(fn_only2)
	".section .rodata\n.p2align 3\n" PC(only_k) "\t.double 0.999\n.text\n"
	/* leaf functions with a frame pointer (hc_decode_leaf_frame, §5.67):
	   mw_cond -O0's spin_work (a loop over stack slots, imul's rdx); one
	   that saves and writes rbx; not: one that calls, one without the
	   prologue */
	FN(fn_leaf0)
	"\tpush %rbp\n\tmov %rsp,%rbp\n\tmov %rdi,-0x18(%rbp)\n\tmov -0x18(%rbp),%rcx\n"
	"\tmov %rcx,%rax\n\timul %rdx\n\tmovl $0,-0xc(%rbp)\n\tjmp 2f\n"
	"1:\tmovsd -8(%rbp),%xmm1\n" PC(leaf0_in)
	"\tmulsd %xmm0,%xmm1\n\tmovsd %xmm1,-8(%rbp)\n\taddl $1,-0xc(%rbp)\n"
	"2:\tcmpl $0x4af,-0xc(%rbp)\n\tjle 1b\n\tmovsd -8(%rbp),%xmm0\n" PC(leaf0_epi)
	"\tpop %rbp\n\tret\n"
	ENDFN(fn_leaf0)
	FN(fn_leafrbx)
	"\tpush %rbp\n\tmov %rsp,%rbp\n\tpush %rbx\n\tmov $1,%ebx\n" PC(leafrbx_in)
	"\tnop\n\tmov -8(%rbp),%rbx\n\tleave\n\tret\n"
	ENDFN(fn_leafrbx)
	FN(fn_leafcall)
	"\tpush %rbp\n\tmov %rsp,%rbp\n" PC(leafcall_in)
	"\tcall fn_noacc\n\tpop %rbp\n\tret\n"
	ENDFN(fn_leafcall)
	/* poll loops (hc_decode_poll_loop, §5.58): mw_spin's -O2 inlined
	   wait (the flag's pointer in rbx, sched_yield's call after the
	   back-edge), its -O0 wait_for (the pointer reloaded through a slot),
	   a RIP-relative flag; not: a reduction (its index moves), a loop
	   that stores data, a caller-saved pointer across a call in the loop,
	   -O0's pointer slot advanced in the loop */
	FN(fn_poll2)
	"\txor %ebp,%ebp\n"
	"1:\n" PC(poll2_pc) "\tmov (%rbx),%eax\n\tcmp $1,%eax\n\tje 2f\n\tadd $1,%ebp\n\ttest %bpl,%bpl\n"
	"\tjne 1b\n\tcall fn_noacc\n\tjmp 1b\n2:\tret\n"
	ENDFN(fn_poll2)
	FN(fn_poll0)
	"\tmov %rdi,-0x28(%rbp)\n\tmovl $0,-4(%rbp)\n\tjmp 2f\n"
	"1:\taddl $1,-4(%rbp)\n\tmov -4(%rbp),%eax\n\tmovzbl %al,%eax\n\ttest %eax,%eax\n\tjne 2f\n"
	"\tcall fn_noacc\n"
	"2:\tmov -0x28(%rbp),%rax\n\tmov %rax,-0x10(%rbp)\n\tmov -0x10(%rbp),%rax\n"
	PC(poll0_pc) "\tmov (%rax),%eax\n\tmov %eax,-0x14(%rbp)\n\tmov -0x14(%rbp),%eax\n"
	"\tcmp -0x2c(%rbp),%eax\n\tjne 1b\n\tret\n"
	ENDFN(fn_poll0)
	FN(fn_pollrip)
	"1:\n" PC(pollrip_pc) "\tmov pv_glob(%rip),%eax\n\ttest %eax,%eax\n\tje 1b\n\tret\n"
	ENDFN(fn_pollrip)
	FN(fn_reduce)
	"1:\n" PC(reduce_pc) "\tadd (%rdi,%rcx,8),%rax\n\tadd $1,%rcx\n\tcmp %rdx,%rcx\n\tjne 1b\n\tret\n"
	ENDFN(fn_reduce)
	FN(fn_pollstore)
	"1:\n" PC(pollstore_pc) "\tmov (%rbx),%eax\n\tmov %eax,(%rsi)\n\ttest %eax,%eax\n\tje 1b\n\tret\n"
	ENDFN(fn_pollstore)
	FN(fn_pollcall)
	"1:\n" PC(pollcall_pc) "\tmov (%rdi),%eax\n\ttest %eax,%eax\n\tjne 2f\n\tcall fn_noacc\n\tjmp 1b\n"
	"2:\tret\n"
	ENDFN(fn_pollcall)
	FN(fn_pollcall2)
	"1:\tcall fn_noacc\n" PC(pollcall2_pc) "\tmov (%rdi),%eax\n\ttest %eax,%eax\n\tje 1b\n\tret\n"
	ENDFN(fn_pollcall2)
	FN(fn_poll0move)
	"1:\tmov -8(%rbp),%rax\n" PC(poll0move_pc) "\tmov (%rax),%eax\n\taddq $8,-8(%rbp)\n"
	"\ttest %eax,%eax\n\tje 1b\n\tret\n"
	ENDFN(fn_poll0move)
	/* run for real under single-stepping */
	/* a releaser's store before its unlock (hc_decode_store_before,
	   §5.49): mw_cond's -O0 `q.tail++; pthread_cond_signal(); unlock()`,
	   stack slots skipped; an rbp pointer's field; a branch target and a
	   jmp in the way */
	FN(fn_rel)
	PC(rel_store) "\tmov %eax,pv_glob(%rip)\n"
	"\tmov %rax,-8(%rbp)\n\tmov %rbx,8(%rsp)\n\tlea pv_glob(%rip),%rdi\n"
	"\tcall fn_noacc\n\tmov %rbx,%rdi\n\tcall fn_noacc\n" PC(rel_ret)
	"\tret\n"
	ENDFN(fn_rel)
	FN(fn_rel_rbp)
	PC(rel_rbp_store) "\tmov %rax,8(%rbp)\n"
	"\tcall fn_noacc\n" PC(rel_rbp_ret)
	"\tret\n"
	ENDFN(fn_rel_rbp)
	/* lock_queue's -O0 `tot->sum += x; tot->count++;` then the unlock: two
	   fields through one pointer, latest first; an indexed store */
	FN(fn_rel_fields)
	PC(relf_idx) "\tmov %rdx,16(%rax,%rcx,8)\n"
	PC(relf_sum) "\tmov %rdx,0x28(%rax)\n"
	PC(relf_count) "\tmov %rdx,0x30(%rax)\n"
	"\tmov %rbx,%rdi\n\tcall fn_noacc\n" PC(relf_ret)
	"\tret\n"
	ENDFN(fn_rel_fields)
	FN(fn_rel_tgt)
	"\tmov %eax,pv_glob(%rip)\n"
	"1:\tmov %rbx,%rdi\n\tcall fn_noacc\n" PC(rel_tgt_ret)
	"\ttest %eax,%eax\n\tjnz 1b\n\tret\n"
	ENDFN(fn_rel_tgt)
	FN(fn_rel_jmp)
	"\tmov %eax,pv_glob(%rip)\n\tjmp 2f\n\tnop\n"
	"2:\tcall fn_noacc\n" PC(rel_jmp_ret)
	"\tret\n"
	ENDFN(fn_rel_jmp)
	/* updates (hc_decode_load_before, §5.54): streamcluster's -O2
	   `lower[c] += v` (addsd then movsd through one register); -O0's
	   load, arithmetic, a stack slot, the store; a store elsewhere; the
	   base register rewritten in between; a loop head in between */
	FN(fn_upd)
	"\tlea (%r12,%rax,8),%rax\n\taddsd (%rax),%xmm0\n" PC(upd_o2_st)
	"\tmovsd %xmm0,(%rax)\n"
	"\tmov 8(%rbx),%edx\n\tadd $1,%edx\n\tmov %edx,-4(%rbp)\n" PC(upd_o0_st)
	"\tmov %edx,8(%rbx)\n" PC(upd_other_st)
	"\tmov %edx,16(%rbx)\n"
	"\tmov 24(%rbx),%edx\n\tmov %rcx,%rbx\n" PC(upd_base_st)
	"\tmov %edx,24(%rbx)\n"
	"\tmov 32(%rcx),%edx\n"
	"2:\tadd $1,%edx\n" PC(upd_tgt_st)
	"\tmov %edx,32(%rcx)\n\tjnz 2b\n\tret\n"
	ENDFN(fn_upd)
	/* -O0's `acc[x %% 16] += v` (§5.56): the address computed again
	   between the load and the store; a different slot reloaded; the slot
	   stored between; another RIP-relative target; a reload from the heap;
	   a slot of the stack out of rsp's reach */
	FN(fn_u0)
	"\tmov -8(%rbp),%rax\n\tand $0xf,%eax\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n\tmovsd (%rdx,%rax,1),%xmm0\n" PC(u0_next)
	"\tmov -8(%rbp),%rax\n\tand $0xf,%eax\n\taddsd -16(%rbp),%xmm0\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n" PC(u0_st)
	"\tmovsd %xmm0,(%rdx,%rax,1)\n\tret\n"
	ENDFN(fn_u0)
	FN(fn_u0_slot)
	"\tmov -8(%rbp),%rax\n\tand $0xf,%eax\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n\tmovsd (%rdx,%rax,1),%xmm0\n" PC(u0_slot_next)
	"\tmov -24(%rbp),%rax\n\tand $0xf,%eax\n\taddsd -16(%rbp),%xmm0\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n" PC(u0_slot_st)
	"\tmovsd %xmm0,(%rdx,%rax,1)\n\tret\n"
	ENDFN(fn_u0_slot)
	FN(fn_u0_stored)
	"\tmov -8(%rbp),%rax\n\tand $0xf,%eax\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n\tmovsd (%rdx,%rax,1),%xmm0\n" PC(u0_stored_next)
	"\tmovl $3,-8(%rbp)\n\tmov -8(%rbp),%rax\n\tand $0xf,%eax\n\taddsd -16(%rbp),%xmm0\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n" PC(u0_stored_st)
	"\tmovsd %xmm0,(%rdx,%rax,1)\n\tret\n"
	ENDFN(fn_u0_stored)
	FN(fn_u0_rip)
	"\tmov -8(%rbp),%rax\n\tand $0xf,%eax\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n\tmovsd (%rdx,%rax,1),%xmm0\n" PC(u0_rip_next)
	"\tmov -8(%rbp),%rax\n\tand $0xf,%eax\n\taddsd -16(%rbp),%xmm0\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob+8(%rip),%rax\n" PC(u0_rip_st)
	"\tmovsd %xmm0,(%rdx,%rax,1)\n\tret\n"
	ENDFN(fn_u0_rip)
	FN(fn_u0_heap)
	"\tmov -8(%rbp),%rax\n\tand $0xf,%eax\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n\tmovsd (%rdx,%rax,1),%xmm0\n" PC(u0_heap_next)
	"\tmov 8(%rbx),%rax\n\tand $0xf,%eax\n\taddsd -16(%rbp),%xmm0\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n" PC(u0_heap_st)
	"\tmovsd %xmm0,(%rdx,%rax,1)\n\tret\n"
	ENDFN(fn_u0_heap)
	FN(fn_u0_movslq)
	"\tmov -8(%rbp),%rax\n\tand $0xf,%eax\n\tlea 0(,%rax,8),%rdx\n\tlea pv_glob(%rip),%rax\n\tmovsd (%rdx,%rax,1),%xmm0\n" PC(u0_movslq_next)
	"\tmovslq -8(%rbp),%rax\n\tand $0xf,%eax\n\taddsd -16(%rbp),%xmm0\n\tshl $3,%rax\n\tmov %rax,%rdx\n\tlea pv_glob(%rip),%rax\n" PC(u0_movslq_st)
	"\tmovsd %xmm0,(%rdx,%rax,1)\n\tret\n"
	ENDFN(fn_u0_movslq)
	FN(fn_step)
	"\tpushfq\n\torq $0x100,(%rsp)\n\tpopfq\n\tnop\n"
	"\tlock addq $1,(%rdi)\n" PC(step_pc)
	"\tjmp 1f\n1:\tpushfq\n\tandq $~0x100,(%rsp)\n\tpopfq\n\tret\n"
	ENDFN(fn_step));

#define ASM_SYM(name) extern const uint8_t name[] __attribute__((visibility("hidden")))
ASM_SYM(fn_store); ASM_SYM(store_pc); ASM_SYM(fn_lock); ASM_SYM(lock_pc);
ASM_SYM(fn_loop); ASM_SYM(loop_head); ASM_SYM(fwd_pc); ASM_SYM(unrec_pc);
ASM_SYM(fn_unrec); ASM_SYM(index_pc); ASM_SYM(other_pc); ASM_SYM(rmw_pc);
ASM_SYM(noacc_pc); ASM_SYM(fn_deep); ASM_SYM(deep_add_pc); ASM_SYM(deep_addsd_pc); ASM_SYM(deep_head_end); ASM_SYM(afterjmp_pc); ASM_SYM(aftercall_pc); ASM_SYM(push_pc);
ASM_SYM(fn_pushm); ASM_SYM(pushm_pc); ASM_SYM(rep_pc); ASM_SYM(xlat_pc);
ASM_SYM(fn_riprel); ASM_SYM(riprel_pc); ASM_SYM(fn_mid); ASM_SYM(big_pc);
ASM_SYM(only_load); ASM_SYM(only_top); ASM_SYM(only_mov); ASM_SYM(only_cltq); ASM_SYM(only_after); ASM_SYM(only_cmp); ASM_SYM(only2_load); ASM_SYM(only_k); ASM_SYM(feed_load); ASM_SYM(feed_in); ASM_SYM(feedl_in); ASM_SYM(feedm_in); ASM_SYM(feeds_in);
ASM_SYM(fn_lexit); ASM_SYM(lexit_head); ASM_SYM(lexit_in); ASM_SYM(lexit_out); ASM_SYM(lexit_after);
ASM_SYM(poll2_pc); ASM_SYM(poll0_pc); ASM_SYM(pollrip_pc); ASM_SYM(reduce_pc); ASM_SYM(pollstore_pc);
ASM_SYM(pollcall_pc); ASM_SYM(pollcall2_pc); ASM_SYM(poll0move_pc); ASM_SYM(fn_poll2);
ASM_SYM(fn_leaf0); ASM_SYM(leaf0_in); ASM_SYM(leaf0_epi); ASM_SYM(fn_leafrbx); ASM_SYM(leafrbx_in);
ASM_SYM(fn_leafcall); ASM_SYM(leafcall_in);
ASM_SYM(fn_lexit0); ASM_SYM(lexit0_in); ASM_SYM(lexit0_out); ASM_SYM(lexit_call_in); ASM_SYM(lexit_call_head);
ASM_SYM(fn_last); ASM_SYM(fn_last_end); ASM_SYM(step_pc); ASM_SYM(fn_undec); ASM_SYM(undec_pc);
ASM_SYM(reload_slot_pc); ASM_SYM(reload_lea_pc); ASM_SYM(reload_idx_pc);
ASM_SYM(fn_reload_slot); ASM_SYM(fn_reload_lea); ASM_SYM(fn_reload_idx);
ASM_SYM(reload_chain_pc); ASM_SYM(reload_chain_late_pc); ASM_SYM(reload_chain_store_pc);
ASM_SYM(reload_chain_self_pc); ASM_SYM(fn_reload_chain); ASM_SYM(fn_reload_chain_late);
ASM_SYM(fn_reload_chain_store); ASM_SYM(fn_reload_chain_self);
ASM_SYM(fs_pc); ASM_SYM(a32_pc); ASM_SYM(sib_pc); ASM_SYM(movs_pc); ASM_SYM(bt_pc);
ASM_SYM(rel_store); ASM_SYM(rel_ret); ASM_SYM(rel_rbp_store); ASM_SYM(rel_rbp_ret);
ASM_SYM(rel_tgt_ret); ASM_SYM(rel_jmp_ret);
ASM_SYM(relf_idx); ASM_SYM(relf_sum); ASM_SYM(relf_count); ASM_SYM(relf_ret);
ASM_SYM(u0_next); ASM_SYM(u0_st); ASM_SYM(u0_slot_next); ASM_SYM(u0_slot_st); ASM_SYM(u0_stored_next); ASM_SYM(u0_stored_st); ASM_SYM(u0_rip_next); ASM_SYM(u0_rip_st); ASM_SYM(u0_heap_next); ASM_SYM(u0_heap_st); ASM_SYM(u0_movslq_next); ASM_SYM(u0_movslq_st);
ASM_SYM(upd_o2_st); ASM_SYM(upd_o0_st); ASM_SYM(upd_other_st); ASM_SYM(upd_base_st); ASM_SYM(upd_tgt_st);
extern long pv_glob __attribute__((visibility("hidden")));
extern void fn_step(long *counter) __attribute__((visibility("hidden")));

static uint64_t addr(const void *p) { return (uint64_t)(uintptr_t)p; }

static long long g[NGREG];
static struct hc_regs regs = { g, 0, 0 };
static struct hc_prev_cache cache;

static void at(const uint8_t *pc) { g[REG_RIP] = (long long)addr(pc); }

static int prev(struct hc_insn *out) { return hc_decode_prev(&regs, &cache, out); }

static const char *status_name(int st)
{
	static const char *const names[] = { "OK", "NO_FUNC", "BRANCH_TARGET", "UNDECODABLE",
	                                     "UNRECOVERABLE", "NO_ACCESS" };

	return st >= 0 && st <= HC_PREV_NO_ACCESS ? names[st] : "?";
}

#define CHECK_STATUS(pcsym, want) do { \
	struct hc_insn o_; \
	int st_; \
	at(pcsym); \
	st_ = prev(&o_); \
	CHECK_MSG(st_ == (want), "%s: %s, want %s", #pcsym, status_name(st_), status_name(want)); \
	CHECK_MSG(st_ == HC_PREV_OK || o_.n == 0, "%s: accesses with status %s", #pcsym, status_name(st_)); \
} while (0)

/* One recoverable access of the previous instruction. */
static void check_one(const char *name, const uint8_t *pc, uint64_t ea, uint32_t size, uint8_t rw,
                      uint16_t flags)
{
	struct hc_insn o;
	int st;

	at(pc);
	st = prev(&o);
	CHECK_MSG(st == HC_PREV_OK, "%s: %s", name, status_name(st));
	CHECK_MSG(o.addr + o.len == addr(pc), "%s: addr 0x%" PRIx64 " len %u", name, o.addr, o.len);
	CHECK_MSG(o.n == 1 && o.acc[0].ea == ea && o.acc[0].size == size && o.acc[0].rw == rw &&
	          (o.acc[0].flags & flags) == flags,
	          "%s: n %u ea 0x%" PRIx64 " size %u rw %u flags 0x%x", name, o.n, o.acc[0].ea,
	          o.acc[0].size, o.acc[0].rw, o.acc[0].flags);
}

static void statuses(void)
{
	struct hc_insn o;
	void *heap = malloc(16);

	memset(g, 0, sizeof(g));
	g[REG_RDI] = 0x10000;
	g[REG_RSI] = 0x20000;
	g[REG_RBX] = 0x30000;
	g[REG_RCX] = 3;
	g[REG_RAX] = 0x40000;
	g[REG_RSP] = 0x7fff0000;

	check_one("store before jmp", store_pc, 0x10000, 8, HC_ACC_W, 0);
	check_one("lock add before add", lock_pc, 0x10008, 8, HC_ACC_R | HC_ACC_W, HC_AF_LOCK);
	check_one("add %rsi,(%rbx,%rcx,8)", rmw_pc, 0x30000 + 3 * 8, 8, HC_ACC_R | HC_ACC_W, 0);
	check_one("mov (%rdi),%ecx: rcx written, not used", other_pc, 0x10000, 4, HC_ACC_R, 0);
	check_one("pushq 8(%rdi): the read stays, the push goes", pushm_pc, 0x10008, 8, HC_ACC_R, 0);
	check_one("addl $1,pv_glob(%rip)", riprel_pc, addr(&pv_glob), 4, HC_ACC_R | HC_ACC_W,
	          HC_AF_RIPREL);

	CHECK_STATUS(loop_head, HC_PREV_BRANCH_TARGET);
	CHECK_STATUS(fwd_pc, HC_PREV_BRANCH_TARGET);
	CHECK_STATUS(afterjmp_pc, HC_PREV_BRANCH_TARGET);
	CHECK_STATUS(aftercall_pc, HC_PREV_BRANCH_TARGET);
	CHECK_STATUS(fn_store, HC_PREV_BRANCH_TARGET);  /* a function's first instruction */
	CHECK_STATUS(unrec_pc, HC_PREV_UNRECOVERABLE);
	CHECK_STATUS(index_pc, HC_PREV_UNRECOVERABLE);
	CHECK_STATUS(push_pc, HC_PREV_UNRECOVERABLE);
	CHECK_STATUS(xlat_pc, HC_PREV_UNRECOVERABLE);
	CHECK_STATUS(rep_pc, HC_PREV_UNRECOVERABLE);
	g[REG_RCX] = 0;  /* a finished rep op: it did access memory */
	CHECK_STATUS(rep_pc, HC_PREV_UNRECOVERABLE);
	CHECK_STATUS(noacc_pc, HC_PREV_NO_ACCESS);
	CHECK_STATUS(fn_mid + 3, HC_PREV_UNDECODABLE);
	CHECK_STATUS(fn_mid + 10, HC_PREV_NO_ACCESS);  /* after the movabs */
	CHECK_STATUS(big_pc, HC_PREV_UNDECODABLE);
	CHECK_STATUS((const uint8_t *)heap, HC_PREV_NO_FUNC);
	/* No cache is allowed too. */
	at(store_pc);
	CHECK_EQ_U64(hc_decode_prev(&regs, NULL, &o), HC_PREV_OK);
	CHECK(o.n == 1 && o.acc[0].ea == 0x10000);
	free(heap);
}

static struct hc_prev_cache_entry *entry_of(const uint8_t *pc)
{
	for (int i = 0; i < HC_PREV_CACHE_SIZE; i++)
		if (cache.e[i].pc == addr(pc))
			return &cache.e[i];
	return NULL;
}

/* The set a PC falls in: mirrors decode.c's hash (white box), to make
   three PCs compete for one two-way set. */
static uint64_t set_of(uint64_t pc)
{
	return ((pc * 0x9e3779b97f4a7c15ull) >> (64 - __builtin_ctz(HC_PREV_CACHE_SIZE))) & ~1ull;
}

static void conflicts(void)
{
	uint64_t pcs[3], base = addr(big_pc), hits, misses;
	struct hc_insn o;
	int n = 0;

	/* Any PC of fn_big is a cache key (its walk result: UNDECODABLE). */
	pcs[n++] = base;
	for (uint64_t a = base + 1; a < base + 60000 && n < 3; a++)
		if (set_of(a) == set_of(base))
			pcs[n++] = a;
	CHECK(n == 3);
	if (n < 3)
		return;
	hits = cache.hits;
	misses = cache.misses;
#define LOOK(i) do { g[REG_RIP] = (long long)pcs[i]; CHECK_EQ_U64(prev(&o), HC_PREV_UNDECODABLE); } while (0)
	LOOK(0); LOOK(1);          /* two misses fill the set: [1, 0] */
	LOOK(0); LOOK(1);          /* both stay: two hits */
	CHECK_EQ_U64(cache.misses - misses, 2);
	CHECK_EQ_U64(cache.hits - hits, 2);
	LOOK(2);                   /* evicts the least recently used, 0 */
	LOOK(1);                   /* hit */
	CHECK_EQ_U64(cache.misses - misses, 3);
	CHECK_EQ_U64(cache.hits - hits, 3);
	LOOK(0);                   /* miss */
	CHECK_EQ_U64(cache.misses - misses, 4);
#undef LOOK
}

static void caching(void)
{
	struct hc_prev_cache_entry *e;
	struct hc_insn o;
	uint64_t hits, misses;
	void *h;

	memset(&cache, 0, sizeof(cache));
	g[REG_RDI] = 0x10000;
	g[REG_RSI] = 0x20000;
	at(lock_pc);
	CHECK_EQ_U64(prev(&o), HC_PREV_OK);
	CHECK_EQ_U64(cache.misses, 1);
	CHECK_EQ_U64(cache.hits, 0);
	g[REG_RDI] = 0x50000;  /* the hit recomputes the address from the new registers */
	CHECK_EQ_U64(prev(&o), HC_PREV_OK);
	CHECK_EQ_U64(cache.misses, 1);
	CHECK_EQ_U64(cache.hits, 1);
	CHECK(o.n == 1 && o.acc[0].ea == 0x50008);
	e = entry_of(lock_pc);
	CHECK(e && e->prev == addr(fn_lock) && e->status == HC_PREV_OK);
	/* A hit answers from the entry without walking the function again. */
	if (e) {
		e->status = HC_PREV_BRANCH_TARGET;
		CHECK_EQ_U64(prev(&o), HC_PREV_BRANCH_TARGET);
		e->status = HC_PREV_OK;
	}
	/* Negative results are cached as well. */
	at(unrec_pc);
	prev(&o);
	prev(&o);
	CHECK_EQ_U64(cache.misses, 2);
	CHECK_EQ_U64(cache.hits, 3);

	conflicts();

	/* A refresh that changes the module list invalidates every entry. */
	h = dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
	if (h) {
		uint32_t gen = hc_funcs_generation();

		CHECK_EQ_U64(loadmap__refresh(), 0);
		if (hc_funcs_generation() != gen) {
			hits = cache.hits;
			misses = cache.misses;
			at(lock_pc);
			CHECK_EQ_U64(prev(&o), HC_PREV_OK);
			CHECK_EQ_U64(cache.misses, misses + 1);
			CHECK_EQ_U64(cache.hits, hits);
		} else {
			fprintf(stderr, "  skip invalidation: the library was already loaded\n");
		}
		dlclose(h);
		CHECK_EQ_U64(loadmap__refresh(), 0);
	} else {
		fprintf(stderr, "  skip invalidation: no libz or libm to dlopen\n");
	}
}

static void ending_at(void)
{
	struct hc_insn o;
	void *heap = malloc(16);

	memset(g, 0, sizeof(g));
	g[REG_RDI] = 0x10000;
	g[REG_RAX] = 0x40000;  /* what mov (%rax),%rax loaded: taken as is */
	CHECK_EQ_U64(hc_decode_ending_at(&regs, addr(store_pc), &cache, &o), 0);
	CHECK(o.len == 3 && o.n == 1 && o.acc[0].ea == 0x10000 && o.acc[0].rw == HC_ACC_W);
	CHECK_EQ_U64(o.addr, addr(fn_store));
	CHECK_EQ_U64(hc_decode_ending_at(&regs, addr(unrec_pc), &cache, &o), 0);
	CHECK(o.n == 1 && o.acc[0].ea == 0x40000 && o.acc[0].rw == HC_ACC_R && o.acc[0].size == 8);
	/* the loop head is a branch target, but the load before it ends there */
	g[REG_RDI] = 0x10000;
	CHECK_EQ_U64(hc_decode_ending_at(&regs, addr(loop_head), NULL, &o), 0);
	CHECK(o.n == 1 && o.acc[0].ea == 0x10000 && o.acc[0].rw == HC_ACC_R);
	/* the last instruction of a function ends at the function's end */
	CHECK_EQ_U64(hc_decode_ending_at(&regs, addr(fn_last_end), &cache, &o), 0);
	CHECK(o.n == 1 && o.acc[0].ea == 0x10000 && o.acc[0].rw == HC_ACC_W);
	CHECK(addr(fn_last_end) - addr(fn_last) == o.len);
	CHECK_EQ_U64(o.addr, addr(fn_last));
	CHECK_EQ_U64(hc_decode_ending_at(&regs, addr(fn_mid + 3), &cache, &o), (uint64_t)-EINVAL);
	CHECK_EQ_U64(o.len, 0);
	CHECK_EQ_U64(o.addr, 0);
	CHECK_EQ_U64(hc_decode_ending_at(&regs, addr(heap), &cache, &o), (uint64_t)-ENOENT);
	free(heap);
}

/* ---- a real skidded context, by single-stepping ------------------------- */

static long step_counter;
static int step_traps, step_status = -1;
static struct hc_insn step_out;

static void on_step(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	struct hc_regs r = { uc->uc_mcontext.gregs, 0, 0 };

	(void)sig;
	(void)si;
	step_traps++;
	if ((uint64_t)uc->uc_mcontext.gregs[REG_RIP] == addr(step_pc))
		step_status = hc_decode_prev(&r, &cache, &step_out);
}

static void single_step(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_step;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, &old);
	step_counter = 41;
	fn_step(&step_counter);
	sigaction(SIGTRAP, &old, NULL);
	CHECK_EQ_U64(step_counter, 42);
	CHECK(step_traps >= 3);
	CHECK_MSG(step_status == HC_PREV_OK, "single-step: %s", status_name(step_status));
	CHECK(step_out.n == 1 && step_out.acc[0].ea == addr(&step_counter) &&
	      step_out.acc[0].size == 8 && step_out.acc[0].rw == (HC_ACC_R | HC_ACC_W) &&
	      (step_out.acc[0].flags & HC_AF_LOCK));
}

/* A cache hit answers from the access recipes (no decode): under any
   registers it must equal a full decode without the cache. Instructions
   whose addresses need more than a recipe (bt m,r, xlat, REP) are decoded
   on every hit and are never marked decoded. */
static void recipes(void)
{
	static const struct { const uint8_t *pc; bool cached; } pcs[] = {
		{ store_pc, true }, { lock_pc, true }, { unrec_pc, true }, { index_pc, true },
		{ other_pc, true }, { rmw_pc, true }, { noacc_pc, true }, { push_pc, true },
		{ pushm_pc, true }, { riprel_pc, true }, { fs_pc, true }, { a32_pc, true },
		{ sib_pc, true }, { movs_pc, true }, { xlat_pc, false }, { rep_pc, false },
		{ bt_pc, false },
	};
	uint64_t rng = 0x243F6A8885A308D3ull;

	memset(&cache, 0, sizeof(cache));
	for (size_t p = 0; p < sizeof pcs / sizeof pcs[0]; p++) {
		struct hc_prev_cache_entry *e;

		for (int round = 0; round < 40; round++) {
			struct hc_insn full, hit;
			int st_full, st_hit;

			for (int r = 0; r < NGREG; r++) {
				rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
				/* small values too: bt offsets, rcx == 0 for rep */
				g[r] = (long long)(round % 3 == 0 ? (rng & 0xff) : rng);
			}
			regs.fsbase = rng ^ 0x5555;
			regs.gsbase = rng ^ 0xaaaa;
			at(pcs[p].pc);
			st_full = hc_decode_prev(&regs, NULL, &full);
			st_hit = prev(&hit);
			CHECK_MSG(st_full == st_hit, "pc %zu round %d: %s vs %s", p, round,
			          status_name(st_full), status_name(st_hit));
			CHECK_MSG(full.n == hit.n && full.len == hit.len && full.addr == hit.addr &&
			          full.flags == hit.flags && full.branch == hit.branch,
			          "pc %zu round %d: n %u/%u len %u/%u", p, round, full.n, hit.n,
			          full.len, hit.len);
			for (uint8_t i = 0; i < full.n && i < hit.n; i++)
				CHECK_MSG(full.acc[i].ea == hit.acc[i].ea &&
				          full.acc[i].size == hit.acc[i].size &&
				          full.acc[i].rw == hit.acc[i].rw &&
				          full.acc[i].kind == hit.acc[i].kind &&
				          full.acc[i].flags == hit.acc[i].flags,
				          "pc %zu round %d access %u: ea %#llx vs %#llx", p, round, i,
				          (unsigned long long)full.acc[i].ea,
				          (unsigned long long)hit.acc[i].ea);
		}
		e = entry_of(pcs[p].pc);
		CHECK_MSG(e && e->decoded == pcs[p].cached, "pc %zu: decoded %d, expected %d", p,
		          e ? e->decoded : -1, pcs[p].cached);
	}
	/* the shapes decode as designed (registers chosen by hand) */
	{
		struct hc_insn o;

		memset(g, 0, sizeof g);
		g[REG_RDI] = (long long)0xffffffff00001000ull;
		g[REG_RSI] = 7;
		g[REG_RBX] = 0x1000;
		g[REG_RDX] = 3;
		regs.fsbase = 0x7f0000000000ull;
		for (int twice = 0; twice < 2; twice++) {  /* decode, then recipe */
			at(fs_pc);
			CHECK(prev(&o) == HC_PREV_OK && o.n == 1 &&
			      o.acc[0].ea == 0x7f0000000000ull + 0xffffffff00001028ull &&
			      (o.acc[0].flags & HC_AF_SEG));
			at(a32_pc);
			CHECK(prev(&o) == HC_PREV_OK && o.n == 1 && o.acc[0].ea == 0x1010 && o.acc[0].size == 4 &&
			      (o.acc[0].flags & HC_AF_ADDR32));
			at(sib_pc);
			CHECK(prev(&o) == HC_PREV_OK && o.n == 1 && o.acc[0].ea == 0x1000 + 12 - 0x18 &&
			      o.acc[0].size == 2 && o.acc[0].rw == HC_ACC_W);
		}
	}
}

/* ---- function maps: the cached path agrees with a plain walk ----------- */

static bool same_insn(const struct hc_insn *a, const struct hc_insn *b)
{
	if (a->n != b->n || a->len != b->len || a->addr != b->addr || a->flags != b->flags ||
	    a->branch != b->branch)
		return false;
	for (uint8_t i = 0; i < a->n; i++)
		if (a->acc[i].ea != b->acc[i].ea || a->acc[i].size != b->acc[i].size ||
		    a->acc[i].rw != b->acc[i].rw || a->acc[i].kind != b->acc[i].kind)
			return false;
	return true;
}

/* hc_decode_prev and hc_decode_ending_at at pc with the cache (function
   maps) and without (a walk per call): the same answers. */
static void compare_at(uint64_t pc, const char *what)
{
	struct hc_insn full, mapped;
	int a, b;

	g[REG_RIP] = (long long)pc;
	a = hc_decode_prev(&regs, NULL, &full);
	b = hc_decode_prev(&regs, &cache, &mapped);
	CHECK_MSG(a == b && same_insn(&full, &mapped), "%s+%#llx: prev %s vs %s (cached)", what,
	          (unsigned long long)pc, status_name(a), status_name(b));
	a = hc_decode_ending_at(&regs, pc, NULL, &full);
	b = hc_decode_ending_at(&regs, pc, &cache, &mapped);
	CHECK_MSG(a == b && same_insn(&full, &mapped), "%s+%#llx: ending_at %d vs %d (cached)", what,
	          (unsigned long long)pc, a, b);
}

static void maps(void)
{
	static const struct { const char *name; const void *fn; } libc[] = {
		{ "vfprintf", (const void *)vfprintf }, { "qsort", (const void *)qsort },
		{ "strtod", (const void *)strtod }, { "regcomp", (const void *)regcomp },
	};
	static const uint8_t *const ours[] = { fn_store, fn_lock, fn_loop, fn_unrec, fn_pushm,
	                                        fn_riprel, fn_mid, fn_undec, fn_last };
	uint64_t rng = 0x9E3779B97F4A7C15ull, start, end, walks;
	struct hc_insn o;

	memset(&cache, 0, sizeof(cache));
	for (int r = 0; r < NGREG; r++)
		g[r] = 0x10000 + 0x100 * r;
	/* every byte of our functions (branch targets, invalid code, the end) */
	for (size_t f = 0; f < sizeof ours / sizeof ours[0]; f++) {
		CHECK(hc_funcs_lookup(addr(ours[f]), &start, &end));
		walks = cache.walks;
		for (uint64_t pc = start; pc <= end; pc++)
			compare_at(pc, "ours");
		CHECK_MSG(cache.walks == walks + 1, "function %zu: %llu walks", f,
		          (unsigned long long)(cache.walks - walks));
	}
	/* the invalid byte: UNDECODABLE, but a trap after the load finds it */
	g[REG_RDI] = 0x10000;
	g[REG_RIP] = (long long)addr(undec_pc);
	CHECK_EQ_U64(hc_decode_prev(&regs, &cache, &o), HC_PREV_UNDECODABLE);
	CHECK_EQ_U64(hc_decode_ending_at(&regs, addr(undec_pc), &cache, &o), 0);
	CHECK(o.n == 1 && o.acc[0].ea == 0x10000 && o.acc[0].rw == HC_ACC_R);
	/* large compiled functions: 400 random PCs each, one walk each */
	for (size_t f = 0; f < sizeof libc / sizeof libc[0]; f++) {
		if (!hc_funcs_lookup(addr(libc[f].fn), &start, &end)) {
			fprintf(stderr, "  skip %s: no FDE\n", libc[f].name);
			continue;
		}
		walks = cache.walks;
		for (int i = 0; i < 400; i++) {
			rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
			compare_at(start + rng % (end - start), libc[f].name);
		}
		CHECK_MSG(cache.walks == walks + (end - start <= HC_PREV_WALK_MAX),
		          "%s (%llu bytes): %llu walks", libc[f].name,
		          (unsigned long long)(end - start), (unsigned long long)(cache.walks - walks));
	}
	/* A full pool starts over: more maps than fit, then the first again. */
	walks = cache.walks;
	for (int round = 0; round < 2; round++)
		for (size_t f = 0; f < sizeof ours / sizeof ours[0]; f++) {
			CHECK(hc_funcs_lookup(addr(ours[f]), &start, &end));
			compare_at(start + 1, "again");
		}
	CHECK_MSG(cache.walks - walks <= sizeof ours / sizeof ours[0],
	          "%llu walks for maps that fit", (unsigned long long)(cache.walks - walks));
	cache.nfmap = HC_PREV_FMAPS;   /* as if the table were full */
	walks = cache.walks;
	compare_at(addr(step_pc), "after reset");   /* fn_step: not mapped yet */
	CHECK_EQ_U64(cache.walks, walks + 1);
	CHECK_EQ_U64(cache.nfmap, 1);
}

/* hc_decode_prev_reload on the -O0 shapes (synthetic registers: the
   state after the load ran, its base register overwritten). */
static void reloads(void)
{
	static uint64_t frame[4] = { 0, 0x5000, 0, 0 };   /* frame[1] is -8(%rbp) for rbp = &frame[2] */
	struct hc_insn o;

	memset(g, 0, sizeof g);
	g[REG_RBP] = (long long)addr(&frame[2]);
	g[REG_RAX] = 0x1234;                     /* the loaded value */
	at(reload_slot_pc);
	CHECK_EQ_U64(prev(&o), HC_PREV_UNRECOVERABLE);
	CHECK_EQ_U64(hc_decode_prev_reload(&regs, &cache, 0, &o), HC_PREV_OK);
	CHECK(o.n == 1 && o.acc[0].ea == 0x5010 && o.acc[0].size == 8 && o.acc[0].rw == HC_ACC_R);
	g[REG_RDX] = 0x40;
	at(reload_lea_pc);
	CHECK_EQ_U64(prev(&o), HC_PREV_UNRECOVERABLE);
	CHECK_EQ_U64(hc_decode_prev_reload(&regs, &cache, 0, &o), HC_PREV_OK);
	CHECK(o.n == 1 && o.acc[0].ea == addr(&pv_glob) + 0x40 && o.acc[0].size == 8);
	at(reload_idx_pc);
	CHECK_EQ_U64(hc_decode_prev_reload(&regs, &cache, 0, &o), HC_PREV_UNRECOVERABLE);
	/* a chain: 0x5000 + rdx (0x40) - 0x10, the load's displacement 0x18 */
	at(reload_chain_pc);
	CHECK_EQ_U64(prev(&o), HC_PREV_UNRECOVERABLE);
	CHECK_EQ_U64(hc_decode_prev_reload(&regs, &cache, 0, &o), HC_PREV_UNRECOVERABLE);
	CHECK_EQ_U64(hc_decode_prev_reload(&regs, &cache, 3, &o), HC_PREV_UNRECOVERABLE);   /* 4 between */
	CHECK_EQ_U64(hc_decode_prev_reload(&regs, &cache, 4, &o), HC_PREV_OK);
	CHECK(o.n == 1 && o.acc[0].ea == 0x5000 + 0x40 - 0x10 + 0x18 && o.acc[0].size == 8 &&
	      o.acc[0].rw == HC_ACC_R);
	at(reload_chain_late_pc);    /* rdx written after the add: its value is gone */
	CHECK_EQ_U64(hc_decode_prev_reload(&regs, &cache, 6, &o), HC_PREV_UNRECOVERABLE);
	at(reload_chain_store_pc);   /* a store in between may have changed the slot */
	CHECK_EQ_U64(hc_decode_prev_reload(&regs, &cache, 6, &o), HC_PREV_UNRECOVERABLE);
	at(reload_chain_self_pc);
	CHECK_EQ_U64(hc_decode_prev_reload(&regs, &cache, 6, &o), HC_PREV_UNRECOVERABLE);
	(void)fn_reload_slot; (void)fn_reload_lea; (void)fn_reload_idx; (void)fn_reload_chain;
	(void)fn_reload_chain_late; (void)fn_reload_chain_store; (void)fn_reload_chain_self;
}

/* hc_decode_prev_deep: the latest straight-line access whose address
   registers nothing after it wrote; never across a branch target. */
static void deep(void)
{
	struct hc_insn o;

	memset(g, 0, sizeof(g));
	g[REG_R8] = 0x10000;
	g[REG_R9] = 0x20000;
	g[REG_R10] = 0x30000;
	g[REG_RDX] = 5;
	g[REG_RCX] = 7;
	/* at the addsd: the add wrote rdx (mulsd's index), so the gather's
	   movsd (%r10,%rcx,8) is the access */
	at(deep_addsd_pc);
	CHECK_EQ_U64(hc_decode_prev(&regs, &cache, &o), HC_PREV_NO_ACCESS);
	CHECK_EQ_U64(hc_decode_prev_deep(&regs, &cache, 8, &o), HC_PREV_OK);
	CHECK_MSG(o.n == 1 && o.acc[0].ea == 0x30000 + 7 * 8 && o.acc[0].size == 8 && o.acc[0].rw == HC_ACC_R,
	          "deep at addsd: n %u ea 0x%" PRIx64, o.n, o.acc[0].ea);
	CHECK_MSG(o.addr == addr(fn_deep) + 4 && o.len == 6, "deep at addsd: the movsd at +%" PRIu64 " len %u",
	          o.addr - addr(fn_deep), o.len);   /* after the 4-byte movslq */
	/* too shallow: two register-only instructions, then nothing */
	CHECK_EQ_U64(hc_decode_prev_deep(&regs, &cache, 2, &o), HC_PREV_NO_ACCESS);
	CHECK(o.n == 0);
	/* at the add: the same walk from one instruction later */
	at(deep_add_pc);
	CHECK_EQ_U64(hc_decode_prev_deep(&regs, &cache, 8, &o), HC_PREV_OK);
	CHECK(o.n == 1 && o.acc[0].ea == 0x30000 + 7 * 8);
	/* the walk stops at a loop head (a branch target): the accesses
	   before it may not have run just before */
	at(deep_head_end);
	CHECK_EQ_U64(hc_decode_prev_deep(&regs, &cache, 8, &o), HC_PREV_NO_ACCESS);
	CHECK_EQ_U64(hc_decode_prev_deep(&regs, &cache, 0, &o), HC_PREV_NO_ACCESS);
}

/* hc_decode_load_before: a store is an update's when straight-line code
   before it loaded its bytes through registers nothing changed since */
static void load_before(void)
{
	uint64_t ld;

	memset(g, 0, sizeof(g));
	g[REG_RAX] = 0x40008;       /* after the lea: &lower[c] */
	g[REG_RBX] = 0x50000;
	g[REG_RCX] = 0x60000;
	/* -O2: addsd (%rax) right before movsd %xmm0,(%rax) */
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(upd_o2_st), &cache, 6, 0x40008, 8, &ld, true), 1);
	CHECK_EQ_U64(ld, addr(upd_o2_st) - 4);   /* the 4-byte addsd */
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(upd_o2_st), &cache, 6, 0x40008, 4, &ld, true), 0);  /* not those bytes */
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(upd_o2_st), &cache, 6, 0x40010, 8, &ld, true), 0);
	/* -O0: over the arithmetic and a stack slot */
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(upd_o0_st), &cache, 6, 0x50008, 4, &ld, true), 1);
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(upd_o0_st), &cache, 2, 0x50008, 4, &ld, true), 0);  /* too shallow */
	/* 16(%rbx) after a store of 8(%rbx): no load of its bytes */
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(upd_other_st), &cache, 6, 0x50010, 4, &ld, true), 0);
	/* a store of the same bytes comes first: the nearest access decides */
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(upd_other_st), &cache, 6, 0x50008, 4, &ld, true), 0);
	/* rbx rewritten between the load and the store */
	g[REG_RBX] = 0x60000;
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(upd_base_st), &cache, 6, 0x60018, 4, &ld, true), 0);
	/* a loop head between */
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(upd_tgt_st), &cache, 6, 0x60020, 4, &ld, true), 0);
	/* outside every function */
	CHECK_EQ_U64(hc_decode_load_before(&regs, 8, &cache, 6, 0x60020, 4, &ld, true), 0);
	/* and forward from the load (hc_decode_store_after) */
	g[REG_RBX] = 0x50000;
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_o2_st), 6, 0x40008, 8, true, NULL), 1);
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_o2_st), 6, 0x40008, 4, true, NULL), 0);
	{       /* the store's address, for the runtime to learn (soft.c learn_store) */
		uint64_t st = 1;

		CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_o2_st), 6, 0x40008, 8, true, &st), 1);
		CHECK_EQ_U64(st, addr(upd_o2_st));
		CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_o2_st), 6, 0x40008, 4, true, &st), 0);
		CHECK_EQ_U64(st, 0);
	}
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_o0_st) - 6, 6, 0x50008, 4, true, NULL), 1);   /* over a stack slot */
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_o0_st) - 6, 2, 0x50008, 4, true, NULL), 0);   /* too near */
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_other_st), 6, 0x50010, 4, true, NULL), 1);
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_base_st) - 3, 6, 0x50018, 4, true, NULL), 0);  /* rbx changed */
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_tgt_st), 6, 0x60024, 4, true, NULL), 0);       /* other bytes */
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(upd_tgt_st) + 3, 6, 0x60020, 4, true, NULL), 0);   /* past it: a jnz, no store */
}

/* -O0's update (§5.56): the address registers computed again between the
   load and the store; the evaluator proves the same address from the own
   frame's slots, or answers 0 */
static void load_before_o0(void)
{
	long long frame[8];
	uint64_t ld, base = addr(&pv_glob), x = 21;   /* x % 16 == 5 */
	char *rbp = (char *)&frame[6];

	memset(g, 0, sizeof(g));
	memset(frame, 0, sizeof(frame));
	memcpy(rbp - 8, &x, 8);                      /* x */
	frame[3] = 22;                               /* -24(%rbp): another local, 22 % 16 == 6 */
	g[REG_RBP] = (long long)addr(rbp);
	g[REG_RSP] = (long long)addr(&frame[0]);
	g[REG_RBX] = (long long)addr(&frame[0]);     /* 8(%rbx): frame[1] == 0 */
	/* at the store: the registers the recomputation left */
	g[REG_RAX] = (long long)base;
	g[REG_RDX] = 5 * 8;
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_st), &cache, 10, base + 40, 8, &ld, true), 2);
	CHECK_EQ_U64(ld, addr(u0_next) - 5);          /* the 5-byte movsd load */
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_st), &cache, 10, base + 40, 8, &ld, false), 0);
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_st), &cache, 10, base + 48, 8, &ld, true), 0);
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_st), &cache, 10, base + 40, 4, &ld, true), 0);
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_st), &cache, 5, base + 40, 8, &ld, true), 0);  /* too shallow */
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_movslq_st), &cache, 10, base + 40, 8, &ld, true), 2);
	/* the load read element x % 16 (5), the store wrote -24(%rbp)'s (6):
	   at the store rax/rdx are what the recomputation left (element 6) */
	g[REG_RDX] = 6 * 8;
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_slot_st), &cache, 10, base + 48, 8, &ld, true), 0);
	/* the slot stored between (3 now): not proved */
	g[REG_RDX] = 5 * 8;
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_stored_st), &cache, 10, base + 40, 8, &ld, true), 0);
	/* another RIP target: the store is pv_glob+8's element */
	g[REG_RAX] = (long long)base + 8;
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_rip_st), &cache, 10, base + 48, 8, &ld, true), 0);
	/* the index from the heap (8(%rbx)), not a slot */
	g[REG_RAX] = (long long)base;
	g[REG_RDX] = 0;
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_heap_st), &cache, 10, base, 8, &ld, true), 0);

	/* forward from the load: the registers right after it */
	g[REG_RAX] = (long long)base;
	g[REG_RDX] = 5 * 8;
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_next), 10, base + 40, 8, true, NULL), 2);   /* recomputed */
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_next), 10, base + 40, 8, false, NULL), 0);
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_next), 10, base + 40, 4, true, NULL), 0);
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_next), 4, base + 40, 8, true, NULL), 0);   /* too near */
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_movslq_next), 10, base + 40, 8, true, NULL), 2);
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_slot_next), 10, base + 40, 8, true, NULL), 0);   /* element 6 */
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_stored_next), 10, base + 40, 8, true, NULL), 0); /* slot stored */
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_rip_next), 10, base + 40, 8, true, NULL), 0);    /* pv_glob+8 */
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_heap_next), 10, base + 40, 8, true, NULL), 0);   /* heap index */
	/* the slot out of rsp's reach: rsp far below */
	g[REG_RSP] = (long long)addr(&frame[0]) - (1 << 20);
	CHECK_EQ_U64(hc_decode_store_after(&regs, addr(u0_next), 10, base + 40, 8, true, NULL), 0);
	CHECK_EQ_U64(hc_decode_load_before(&regs, addr(u0_st), &cache, 10, base + 40, 8, &ld, true), 0);
}

/* hc_decode_store_before: a releaser's latest data store before the call
   that returns to ret (§5.49) */
static void store_before(void)
{
	uint64_t st;

	CHECK_EQ_U64(hc_decode_store_before(addr(rel_ret), 32, &st), 0);
	CHECK_MSG(st == addr(rel_store), "store before the unlock: +%" PRIu64 " (want +0)",
	          st - addr(rel_store));
	/* too few instructions back: the stack slots, the lea, a call are in the way */
	CHECK(hc_decode_store_before(addr(rel_ret), 5, &st) == -ENOENT && st == 0);
	CHECK_EQ_U64(hc_decode_store_before(addr(rel_ret), 6, &st), 0);
	/* a field through a pointer in rbp is the program's data */
	CHECK_EQ_U64(hc_decode_store_before(addr(rel_rbp_ret), 32, &st), 0);
	CHECK_EQ_U64(st, addr(rel_rbp_store));
	/* a branch target or a jmp between the store and the call */
	CHECK(hc_decode_store_before(addr(rel_tgt_ret), 32, &st) == -ENOENT && st == 0);
	CHECK(hc_decode_store_before(addr(rel_jmp_ret), 32, &st) == -ENOENT && st == 0);
	/* every store, latest first, with what its operand says of its address */
	{
		struct hc_store_site site[4];

		CHECK_EQ_U64(hc_decode_stores_before(addr(relf_ret), 32, site, 4), 3);
		CHECK(site[0].ip == addr(relf_count) && site[0].kind == HC_STORE_DISP && site[0].key == 0x30 &&
		      site[0].size == 8);
		CHECK(site[1].ip == addr(relf_sum) && site[1].kind == HC_STORE_DISP && site[1].key == 0x28);
		CHECK(site[2].ip == addr(relf_idx) && site[2].kind == HC_STORE_OTHER);
		CHECK_EQ_U64(hc_decode_stores_before(addr(relf_ret), 32, site, 2), 2);
		CHECK_EQ_U64(hc_decode_stores_before(addr(rel_ret), 32, site, 4), 1);
		CHECK(site[0].ip == addr(rel_store) && site[0].kind == HC_STORE_ABS &&
		      site[0].key == (int64_t)addr(&pv_glob) && site[0].size == 4);
		CHECK(hc_decode_stores_before(addr(rel_tgt_ret), 32, site, 4) == -ENOENT);
	}
	/* not after a call; outside every function */
	CHECK(hc_decode_store_before(addr(rel_store) + 6, 32, &st) == -EINVAL);
	CHECK(hc_decode_store_before(8, 32, &st) == -ENOENT);
}

/* hc_decode_loop_exit: the innermost loop's exit from a PC inside it */
static void loop_exits(void)
{
	uint64_t x;

	/* in the inner loop: after its jne */
	CHECK_EQ_U64(hc_decode_loop_exit(addr(lexit_in), 32, &x), 0);
	CHECK_EQ_U64(x, addr(lexit_out));
	CHECK_EQ_U64(hc_decode_loop_exit(addr(lexit_head), 32, &x), 0);   /* at the head itself */
	CHECK_EQ_U64(x, addr(lexit_out));
	/* after the inner loop: the outer one's exit */
	CHECK_EQ_U64(hc_decode_loop_exit(addr(lexit_out), 32, &x), 0);
	CHECK_EQ_U64(x, addr(lexit_after));
	/* too few instructions to reach the back-edge */
	CHECK(hc_decode_loop_exit(addr(lexit_in), 2, &x) == -EINVAL && x == 0);
	/* -O0: a forward je inside, the condition at the bottom */
	CHECK_EQ_U64(hc_decode_loop_exit(addr(lexit0_in), 32, &x), 0);
	CHECK_EQ_U64(x, addr(lexit0_out));
	/* before the loop: its back-edge jumps past pc, pc is in no loop */
	CHECK(hc_decode_loop_exit(addr(fn_lexit0), 32, &x) == -EINVAL);
	/* a call or a return first: not one loop; after the call, the loop */
	CHECK(hc_decode_loop_exit(addr(lexit_call_head), 32, &x) == -EINVAL);
	CHECK_EQ_U64(hc_decode_loop_exit(addr(lexit_call_in), 32, &x), 0);
	CHECK(hc_decode_loop_exit(addr(lexit_after), 32, &x) == -EINVAL);
	/* outside every function */
	CHECK(hc_decode_loop_exit(8, 32, &x) == -ENOENT);
}

/* hc_decode_poll_loop: a spin wait's load (detection.md §5.58) */
static void poll_loops(void)
{
	CHECK_EQ_U64(hc_decode_poll_loop(addr(poll2_pc), 16), 0);
	CHECK_EQ_U64(hc_decode_poll_loop(addr(poll0_pc), 16), 0);
	CHECK_EQ_U64(hc_decode_poll_loop(addr(pollrip_pc), 16), 0);
	CHECK(hc_decode_poll_loop(addr(reduce_pc), 16) == -EINVAL);       /* the index moves */
	CHECK(hc_decode_poll_loop(addr(pollstore_pc), 16) == -EINVAL);    /* writes data */
	CHECK(hc_decode_poll_loop(addr(pollcall_pc), 16) == -EINVAL);     /* a call before the back-edge */
	CHECK(hc_decode_poll_loop(addr(pollcall2_pc), 16) == -EINVAL);    /* rdi clobbered by the call */
	CHECK(hc_decode_poll_loop(addr(poll0move_pc), 16) == -EINVAL);    /* the slot advances */
	CHECK(hc_decode_poll_loop(addr(poll2_pc), 2) == -EINVAL);         /* back-edge out of reach */
	CHECK(hc_decode_poll_loop(addr(fn_poll2), 16) == -EINVAL);        /* not a load */
	CHECK(hc_decode_poll_loop(8, 16) == -ENOENT);
}

/* hc_decode_loop_body (§5.57): the loop's head, exit and the general
   registers its body writes */
static void loop_bodies(void)
{
	uint64_t st, ex;
	uint16_t w;

	/* the inner loop: mulsd, addsd, sub $1,%eax, jne: only rax */
	CHECK_EQ_U64(hc_decode_loop_body(addr(lexit_in), 32, &st, &ex, &w), 0);
	CHECK_EQ_U64(st, addr(lexit_head));
	CHECK_EQ_U64(ex, addr(lexit_out));
	CHECK_EQ_U64(w, 1u << 0);
	/* the outer loop (from after the inner one): rax and rdx (its add $1) */
	CHECK_EQ_U64(hc_decode_loop_body(addr(lexit_out), 32, &st, &ex, &w), 0);
	CHECK_EQ_U64(st, addr(fn_lexit));
	CHECK_EQ_U64(ex, addr(lexit_after));
	CHECK_EQ_U64(w, (1u << 0) | (1u << 2));
	/* -O0: stack slots and xmm registers only; the head is before pc */
	CHECK_EQ_U64(hc_decode_loop_body(addr(lexit0_in), 32, &st, &ex, &w), 0);
	CHECK(st < addr(lexit0_in) && st > addr(fn_lexit0));
	CHECK_EQ_U64(ex, addr(lexit0_out));
	CHECK_EQ_U64(w, 0);
	/* a call in the body: not one whose registers hold */
	CHECK(hc_decode_loop_body(addr(lexit_call_in), 32, &st, &ex, &w) == -EINVAL);
	/* no loop, or outside every function */
	CHECK(hc_decode_loop_body(addr(lexit_after), 32, &st, &ex, &w) == -EINVAL);
	CHECK(hc_decode_loop_body(8, 32, &st, &ex, &w) == -ENOENT);
}

static bool only_k_readonly(uint64_t a)
{
	return a == addr(only_k);
}

static void loop_feeds(void)
{
	uint64_t ld = 1;

	g[REG_RDX] = 0x10000;
	g[REG_RSI] = 0x20000;
	at(feed_in);
	CHECK_EQ_U64(hc_decode_loop_feed(&regs, &cache, 32, &ld), 0);
	CHECK_EQ_U64(ld, addr(feed_load));
	at(feedl_in);
	CHECK(hc_decode_loop_feed(&regs, &cache, 32, &ld) == -ENOENT && ld == 0);
	at(feedm_in);
	CHECK(hc_decode_loop_feed(&regs, &cache, 32, &ld) == -ENOENT);
	at(feeds_in);
	CHECK(hc_decode_loop_feed(&regs, &cache, 32, &ld) == -ENOENT);
	/* not in a loop */
	at(lexit_after);
	CHECK(hc_decode_loop_feed(&regs, &cache, 32, &ld) == -ENOENT);
	/* -O0: the reloaded input is its loop's only access, the constant
	   read-only; without the read-only test the constant counts */
	CHECK_EQ_U64(hc_decode_loop_only_load(addr(only_load), 32, only_k_readonly), 0);
	CHECK(hc_decode_loop_only_load(addr(only_load), 32, NULL) == -ENOENT);
	CHECK(hc_decode_loop_only_load(addr(only2_load), 32, only_k_readonly) == -ENOENT);
	CHECK(hc_decode_loop_only_load(addr(lexit_after), 32, only_k_readonly) == -ENOENT);
	/* §5.70: a sample elsewhere in that loop, while the load's address
	   registers (rdx, rax) still hold what it read: after it, at the
	   condition, around the back-edge at the top, at the mov that is
	   about to rewrite eax; not once it has (cltq), not at the load
	   itself, not without the read-only test, not with two loads */
	ld = 1;
	CHECK_EQ_U64(hc_decode_loop_live_load(addr(only_after), 32, only_k_readonly, &ld), 0);
	CHECK_EQ_U64(ld, addr(only_load));
	ld = 1;
	CHECK_EQ_U64(hc_decode_loop_live_load(addr(only_cmp), 32, only_k_readonly, &ld), 0);
	CHECK_EQ_U64(ld, addr(only_load));
	CHECK_EQ_U64(hc_decode_loop_live_load(addr(only_top), 32, only_k_readonly, &ld), 0);
	CHECK_EQ_U64(hc_decode_loop_live_load(addr(only_mov), 32, only_k_readonly, &ld), 0);
	CHECK_EQ_U64(ld, addr(only_load));
	CHECK(hc_decode_loop_live_load(addr(only_cltq), 32, only_k_readonly, &ld) == -ENOENT && ld == 0);
	CHECK(hc_decode_loop_live_load(addr(only_load), 32, only_k_readonly, &ld) == -ENOENT);
	CHECK(hc_decode_loop_live_load(addr(only_after), 32, NULL, &ld) == -ENOENT);
	CHECK(hc_decode_loop_live_load(addr(only2_load) + 4, 32, only_k_readonly, &ld) != 0);
	CHECK(hc_decode_loop_live_load(addr(feed_in), 32, only_k_readonly, &ld) == -ENOENT);
	CHECK(hc_decode_loop_live_load(addr(lexit_after), 32, only_k_readonly, &ld) == -ENOENT);
}

/* hc_decode_leaf_frame (§5.67): where a leaf's frame holds its caller's
   rbp and return address, and the registers its caller cannot rely on */
static void leaf_frames(void)
{
	const uint16_t caller_saved = 0x0fc7;   /* rax rcx rdx rsi rdi r8-r11 */
	uint64_t fs;
	uint16_t c;

	CHECK_EQ_U64(hc_decode_leaf_frame(addr(leaf0_in), &fs, &c), 0);
	CHECK_EQ_U64(fs, addr(fn_leaf0));
	CHECK_EQ_U64(c, caller_saved);
	CHECK_EQ_U64(hc_decode_leaf_frame(addr(fn_leaf0) + 4, &fs, &c), 0);        /* right after the prologue */
	CHECK(hc_decode_leaf_frame(addr(fn_leaf0) + 1, &fs, &c) == -EINVAL);       /* inside it */
	CHECK(hc_decode_leaf_frame(addr(leaf0_epi), &fs, &c) == -EINVAL && fs == 0); /* at pop %rbp */
	CHECK_EQ_U64(hc_decode_leaf_frame(addr(leafrbx_in), &fs, &c), 0);
	CHECK_EQ_U64(c, caller_saved | (1u << 3));                                  /* and rbx */
	CHECK(hc_decode_leaf_frame(addr(leafcall_in), &fs, &c) == -EINVAL);       /* it calls */
	CHECK(hc_decode_leaf_frame(addr(lexit_in), &fs, &c) == -EINVAL);          /* no prologue */
	CHECK(hc_decode_leaf_frame(8, &fs, &c) == -ENOENT);
}

int main(void)
{
	CHECK_EQ_U64(hc_decode_init(), 0);
	at(store_pc);
	CHECK_EQ_U64(prev(&(struct hc_insn){ 0 }), HC_PREV_NO_FUNC);  /* no snapshot yet */
	CHECK_EQ_U64(loadmap__refresh(), 0);
	memset(&cache, 0, sizeof(cache));  /* entries of generation 0 are stale anyway */

	statuses();
	caching();
	ending_at();
	single_step();
	recipes();
	maps();
	reloads();
	deep();
	load_before();
	load_before_o0();
	store_before();
	loop_exits();
	poll_loops();
	loop_bodies();
	loop_feeds();
	leaf_frames();
	return hc_test_done("test_decode_prev");
}
