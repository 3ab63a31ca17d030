/* SPDX-License-Identifier: BSD-3-Clause */
/* scan.c — a single-step burst resolved by decoding forward from the
   sample's registers instead of stepping (scan.h). Mirrors the trace-trap
   handler's per-instruction rule (soft.c burst_insn) exactly: the same
   classification, in the same order, against the addresses the stepping
   would have computed, so a resolved burst publishes what the stepped one
   would have published and charges the same steps. */
#include <string.h>
#include <ucontext.h>

#include "detect/scan.h"

static bool ro(bool (*readonly)(uint64_t), uint64_t a)
{
	return readonly && readonly(a);
}

/* A call or a return: a branch with a stack operand (a return burst has
   left the caller's code). */
bool hc_scan_call_or_ret(const struct hc_insn *in)
{
	if (!in->branch)
		return false;
	for (int i = 0; i < in->n; i++)
		if (in->acc[i].kind == HC_ACC_STACK)
			return true;
	return false;
}

bool hc_scan_is_call(const struct hc_insn *in)
{
	if (!in->branch)
		return false;
	for (int i = 0; i < in->n; i++)
		if (in->acc[i].kind == HC_ACC_STACK && (in->acc[i].rw & HC_ACC_W))
			return true;
	return false;
}

/* A load of memory that may be shared in `in` (not the thread's private
   ranges p, not read-only data), or NULL. */
const struct hc_mem_access *hc_scan_shared_load(const struct hc_insn *in, const struct hc_step_private *p,
                                                bool (*readonly)(uint64_t))
{
	for (int i = 0; i < in->n; i++) {
		const struct hc_mem_access *a = &in->acc[i];
		struct hc_insn one = { .n = 1 };
		const struct hc_mem_access *pa;

		if (!(a->rw & HC_ACC_R) || a->kind == HC_ACC_STACK || a->size == 0)
			continue;
		one.acc[0] = *a;
		one.acc[0].rw = HC_ACC_W;   /* hc_step_classify's privacy test */
		if (hc_step_classify(&one, p, &pa) == HC_STEP_STORE && !ro(readonly, a->ea))
			return a;
	}
	return NULL;
}

static bool add_event(struct hc_scan_result *out, const struct hc_insn *in,
                      const struct hc_mem_access *a, bool store)
{
	if (out->n >= HC_SCAN_EVENTS)
		return false;
	out->ev[out->n].pc = in->addr;
	out->ev[out->n].acc = *a;
	out->ev[out->n].store = store;
	out->n++;
	return true;
}

static enum hc_scan_end scan(const struct hc_regs *r, uint64_t pc, uint16_t written, bool ends, uint64_t fstart,
                             uint64_t fend, uint32_t limit, bool loads, const struct hc_step_private *p,
                             bool (*readonly)(uint64_t addr), struct hc_scan_result *out);

enum hc_scan_end hc_scan_burst(const struct hc_regs *r, const struct hc_insn *first,
                               const struct hc_insn_deps *first_deps, uint64_t fstart, uint64_t fend,
                               uint32_t limit, bool loads, const struct hc_step_private *p,
                               bool (*readonly)(uint64_t addr), struct hc_scan_result *out)
{
	return scan(r, first->addr + first->len, first_deps->written, first_deps->ends || first->len == 0, fstart,
	            fend, limit, loads, p, readonly, out);
}

enum hc_scan_end hc_scan_from(const struct hc_regs *r, uint64_t pc, uint16_t written, uint64_t fstart,
                              uint64_t fend, uint32_t limit, bool loads, const struct hc_step_private *p,
                              bool (*readonly)(uint64_t addr), struct hc_scan_result *out)
{
	/* instruction 1 is the one at pc: scan's loop takes "the one after"
	   the previous, so start with nothing before it */
	return scan(r, pc, written, false, fstart, fend, limit, loads, p, readonly, out);
}

static enum hc_scan_end scan(const struct hc_regs *r, uint64_t pc, uint16_t written, bool ends, uint64_t fstart,
                             uint64_t fend, uint32_t limit, bool loads, const struct hc_step_private *p,
                             bool (*readonly)(uint64_t addr), struct hc_scan_result *out)
{
	long long g[NGREG];
	struct hc_regs rr = { .gregs = g, .fsbase = r->fsbase, .gsbase = r->gsbase };

	out->end = HC_SCAN_UNRESOLVED;
	out->steps = 0;
	out->n = 0;
	out->end_call = false;
	memcpy(g, r->gregs, sizeof g);
	for (uint32_t i = 1; i <= limit; i++) {
		struct hc_insn in;
		struct hc_insn_deps d;
		const struct hc_mem_access *a;
		bool need_addr = false;

		/* Instruction i is the one after i - 1 in address order only if
		   i - 1 falls through; it must lie in the sampled function. */
		if (ends || pc < fstart || pc >= fend)
			return out->end = HC_SCAN_UNRESOLVED;
		g[REG_RIP] = (long long)pc;
		if (hc_decode_at_pc_deps(&rr, &in, &d) < 0 || in.len == 0 || pc + in.len > fend)
			return out->end = HC_SCAN_UNRESOLVED;
		/* Its addresses are the sample's registers' only if none of
		   them was written since (stack operands are private whatever
		   their address: call, ret, push and pop need none). */
		for (int k = 0; k < in.n; k++)
			if (in.acc[k].kind != HC_ACC_STACK)
				need_addr = true;
		if (need_addr && ((d.used & written) || d.dynamic))
			return out->end = HC_SCAN_UNRESOLVED;
		out->steps = i;
		switch (hc_step_classify(&in, p, &a)) {
		case HC_STEP_STORE:
			if (!ro(readonly, a->ea)) {
				if (!add_event(out, &in, a, true))
					return out->end = HC_SCAN_UNRESOLVED;
				return out->end = HC_SCAN_STORE;
			}
			break;
		case HC_STEP_STOP:
			return out->end = HC_SCAN_STOP;
		default:
			break;
		}
		if (loads) {
			if (hc_scan_call_or_ret(&in)) {
				out->end_call = hc_scan_is_call(&in);
				return out->end = HC_SCAN_CALLRET;
			}
			if ((a = hc_scan_shared_load(&in, p, readonly)) && !add_event(out, &in, a, false))
				return out->end = HC_SCAN_UNRESOLVED;
		}
		if (i == limit)
			return out->end = HC_SCAN_LIMIT;
		written |= d.written;
		ends = d.ends;
		pc += in.len;
	}
	return out->end = HC_SCAN_UNRESOLVED;   /* limit 0: nothing to scan */
}
