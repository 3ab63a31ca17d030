/* SPDX-License-Identifier: BSD-3-Clause */
/* common.h — types shared by the runtime, the profile format and the analyzer:
   sampler kinds, matrix units, the communication metric set and the flags of a
   communication event. Plain data, no functions; safe to use in signal context. */
#ifndef HC_COMMON_H
#define HC_COMMON_H

#include <stdint.h>

#define HC_EXPORT __attribute__((visibility("default")))
#define HC_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Cache-line size used for true/false sharing (x86). */
#define HC_LINE 64u

/* Which address sampler produced a profile. */
enum hc_sampler {
	HC_SAMPLER_NONE = 0,
	HC_SAMPLER_SOFT = 1,  /* timer + instruction decode (no PMU) */
	HC_SAMPLER_PEBS = 2,  /* Intel precise load/store events */
	HC_SAMPLER_IBS  = 3,  /* AMD IBS op sampling */
	HC_SAMPLER_EXACT = 4, /* exact mode: every access of instrumented code (doc/exact.md) */
	HC_SAMPLER_LAST = HC_SAMPLER_EXACT,
};

/* Unit of every matrix cell / metric value; never mixed in one database. */
enum hc_unit {
	HC_UNIT_NS        = 0, /* estimated CPU ns spent in communicating accesses (soft) */
	HC_UNIT_TRANSFERS = 1, /* cache-line transfers: estimated (pebs/ibs), counted (exact) */
};

/* The per-context metric set: true/false sharing x detected by sample/by trap.
   "all" is always true + false and is derived, never stored. */
enum hc_metric {
	HC_M_TRUE_SAMPLE  = 0,
	HC_M_FALSE_SAMPLE = 1,
	HC_M_TRUE_TRAP    = 2,
	HC_M_FALSE_TRAP   = 3,
	HC_M_COUNT        = 4,
};

/* Flags of one communication event (struct hc_comm / profile event record). */
enum hc_comm_flag {
	HC_COMM_STORE      = 1u << 0, /* the detecting access wrote */
	HC_COMM_PEER_STORE = 1u << 1, /* the published (peer) access wrote */
	HC_COMM_TRUE       = 1u << 2, /* byte ranges overlap: true sharing */
	HC_COMM_TRAP       = 1u << 3, /* detected by a watchpoint trap (else by a sample) */
	HC_COMM_LOCK       = 1u << 4, /* a lock set's trap: its weight counts mutex hand-offs, capped;
	                                 the analyzer scales it by its process's hand-offs against
	                                 what the caps let weigh (counters lock_scale_*, §5.61) */
};

/* Origin of the sampled address in the soft sampler. */
enum hc_addr_origin {
	HC_ORIGIN_PC   = 0, /* the instruction at the interrupted PC */
	HC_ORIGIN_PREV = 1, /* recovered from the previous instruction (skid) */
	HC_ORIGIN_PMU  = 2, /* hardware-provided data address */
	HC_ORIGIN_TRAP = 3, /* watchpoint trap */
};

static inline int hc_metric_is_true(int m) { return m == HC_M_TRUE_SAMPLE || m == HC_M_TRUE_TRAP; }
static inline int hc_metric_is_trap(int m) { return m >= HC_M_TRUE_TRAP; }

#endif
