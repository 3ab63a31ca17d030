/* SPDX-License-Identifier: BSD-3-Clause */
/* record.h — helpers shared by the sample and trap paths (record.c). */
#ifndef HC_RT_RECORD_H
#define HC_RT_RECORD_H

#include "runtime/rt.h"

/* The data access to use from a decoded instruction: stack operands are
   private and skipped; a store is preferred over a load. NULL if none. */
const struct hc_mem_access *record__pick_access(const struct hc_insn *in);
int32_t record__cpu(void);
uint64_t signal__cookie_sample(void);
uint64_t signal__cookie_watch(int slot);
bool signal__siginfo_ours(const siginfo_t *si);

#endif
