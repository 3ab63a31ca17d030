/* SPDX-License-Identifier: BSD-3-Clause */
/* regs.h — the interrupted instruction as the sample and trap paths see it
   (regs.c): its register state, the data access to take from its decoding,
   the CPU it ran on. Signal context. */
#ifndef HC_RT_REGS_H
#define HC_RT_REGS_H

#include <stdint.h>
#include "runtime/rt.h"

/* The register state of the interrupted context uctx (a ucontext_t), with
   the FS and GS bases the decoder needs for TLS operands. */
void regs__read(void *uctx, struct hc_regs *r);
/* The CPU this thread runs on (sched_getcpu), -1 if unknown. */
int32_t regs__cpu(void);

#endif
