/* SPDX-License-Identifier: BSD-3-Clause */
/* scan.h — a single-step burst resolved without stepping (issue #14
   point 5). A burst steps the instructions after a sample one trace trap
   at a time (step.h) until a store to possibly shared memory, an
   instruction that must not be stepped, a call or return (return bursts),
   or its step limit; on this VM every trap is a debug exception the
   hypervisor intercepts plus a signal, 20-50 µs of CPU each
   (doc/performance.md, "Session 13"). When the instructions up to the
   burst's end are straight-line code of the sampled function whose
   addresses depend on no register an earlier one of them writes, the
   registers of the sample already give every address the stepping would
   have seen: the scan decodes them forward and yields the same
   publications and the same end, with no trap. Anything it cannot see
   past (a branch, an address from a written register, a string or bit-test
   access, the function's end, a decode failure, more loads than it keeps)
   leaves the burst unresolved and the caller steps as before.
   Pure, async-signal-safe: reads code bytes only inside [fstart, fend). */
#ifndef HC_SCAN_H
#define HC_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "decode/decode.h"
#include "detect/step.h"

#define HC_SCAN_EVENTS 8   /* publications one resolved burst may hold */

enum hc_scan_end {
	HC_SCAN_UNRESOLVED = 0,  /* step as before */
	HC_SCAN_STORE,           /* ended at a published store (the last event) */
	HC_SCAN_STOP,            /* ended before an instruction that must not be stepped */
	HC_SCAN_CALLRET,         /* return burst: ended before a call or return */
	HC_SCAN_LIMIT,           /* ran out of steps */
};

struct hc_scan_event {
	uint64_t pc;                 /* the instruction's address: the publication's leaf */
	struct hc_mem_access acc;    /* its access, with the exact address */
	bool store;
};

struct hc_scan_result {
	enum hc_scan_end end;
	uint32_t steps;              /* traps the stepping would have taken */
	uint32_t n;                  /* events, in program order */
	bool end_call;               /* HC_SCAN_CALLRET at a call (else at a return) */
	struct hc_scan_event ev[HC_SCAN_EVENTS];
};

/* A burst that goes on after the instruction `first` at the sampled PC
   (decoded with deps `first_deps` under the registers r, and judged by the
   caller: not its end), with up to `limit` steps; `loads`: a return burst,
   which publishes the shared loads it passes and ends at a call or return.
   p: the thread's private ranges; readonly(addr): read-only memory (never
   published; NULL = none). Returns out->end. */
enum hc_scan_end hc_scan_burst(const struct hc_regs *r, const struct hc_insn *first,
                               const struct hc_insn_deps *first_deps, uint64_t fstart, uint64_t fend,
                               uint32_t limit, bool loads, const struct hc_step_private *p,
                               bool (*readonly)(uint64_t addr), struct hc_scan_result *out);

/* The same scan from the instruction at pc, registers r holding except
   those in `written` (a loop's, when r is a sample's inside it and pc the
   loop's exit: detection.md §5.57). */
enum hc_scan_end hc_scan_from(const struct hc_regs *r, uint64_t pc, uint16_t written, uint64_t fstart,
                              uint64_t fend, uint32_t limit, bool loads, const struct hc_step_private *p,
                              bool (*readonly)(uint64_t addr), struct hc_scan_result *out);

/* The stepping's own per-instruction tests (soft.c uses them too, so that
   a resolved burst and a stepped one judge alike): */
/* a call or a return (a branch with a stack operand) */
bool hc_scan_call_or_ret(const struct hc_insn *in);
/* a call: a branch that writes the stack (its return address); a return
   only reads it */
bool hc_scan_is_call(const struct hc_insn *in);
/* a load of memory that may be shared: not in p's private ranges, not
   read-only (readonly(addr); NULL = none); NULL if none */
const struct hc_mem_access *hc_scan_shared_load(const struct hc_insn *in, const struct hc_step_private *p,
                                                bool (*readonly)(uint64_t addr));

#endif
