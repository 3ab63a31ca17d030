/* SPDX-License-Identifier: BSD-3-Clause */
/* regs.c — reading the interrupted instruction, for the sample and trap
   paths alike: the register state of its context with the FS/GS bases
   (rdfsbase/rdgsbase when the CPU lets user space use them, else
   arch_prctl; doc/findings.md §4.5), the data access to take from its
   decoding, and the CPU. Signal context: no locks, no allocation. */
#include <sched.h>
#include <ucontext.h>
#include <unistd.h>
#include <asm/prctl.h>
#include <sys/syscall.h>
#include "runtime/rt.h"
#include "runtime/regs.h"

void regs__read(void *uctx, struct hc_regs *r)
{
	const ucontext_t *uc = uctx;
	uint64_t fs = 0, gs = 0;

	r->gregs = (const long long *)uc->uc_mcontext.gregs;
	if (hc_rt.have_fsgsbase) {
		__asm__ volatile("rdfsbase %0" : "=r"(fs));
		__asm__ volatile("rdgsbase %0" : "=r"(gs));
	} else {
		syscall(SYS_arch_prctl, ARCH_GET_FS, &fs);
		syscall(SYS_arch_prctl, ARCH_GET_GS, &gs);
	}
	r->fsbase = fs;
	r->gsbase = gs;
}

int32_t regs__cpu(void)
{
	return (int32_t)sched_getcpu();
}
