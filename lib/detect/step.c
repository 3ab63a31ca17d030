/* SPDX-License-Identifier: BSD-3-Clause */
/* step.c — the pure decisions of single-step bursts (step.h): what a
   stepped instruction means, and the per-thread budget of steps. No system
   calls, no clocks, no allocation; runs in the runtime's SIGTRAP handler. */
#include "detect/step.h"
#include "hc/common.h"

static bool in_range(uint64_t a, uint32_t len, uint64_t lo, uint64_t hi)
{
	return lo < hi && a >= lo && a + (len ? len : 1) <= hi;
}

static bool is_private(const struct hc_mem_access *a, const struct hc_step_private *p)
{
	if (a->kind == HC_ACC_STACK || (a->flags & HC_AF_SEG))
		return true;
	if (in_range(a->ea, a->size, p->stack_lo, p->stack_hi))
		return !hc_step_shared_has(p->shared, p->nshared, a->ea & ~(uint64_t)(HC_LINE - 1));
	return in_range(a->ea, a->size, p->tls_lo, p->tls_hi);
}

enum hc_step_verdict hc_step_classify(const struct hc_insn *in, const struct hc_step_private *p,
                                      const struct hc_mem_access **acc)
{
	*acc = NULL;
	if (in->flags & HC_AF_NOSTEP)
		return HC_STEP_STOP;
	for (int i = 0; i < in->n; i++) {
		const struct hc_mem_access *a = &in->acc[i];
		if ((a->rw & HC_ACC_W) && a->size > 0 && !is_private(a, p)) {
			*acc = a;
			return HC_STEP_STORE;
		}
	}
	return HC_STEP_NEXT;
}

void hc_step_budget_refill(struct hc_step_budget *b, uint32_t per_sample256, uint32_t cap)
{
	uint64_t t = (uint64_t)b->tokens256 + per_sample256, c = (uint64_t)cap * 256;

	b->tokens256 = (uint32_t)(t < c ? t : c);
}

uint32_t hc_step_budget_allow(const struct hc_step_budget *b, uint32_t k)
{
	uint32_t have = b->tokens256 / 256;

	return have < k ? have : k;
}

void hc_step_budget_charge(struct hc_step_budget *b, uint32_t steps)
{
	uint64_t c = (uint64_t)steps * 256;

	b->tokens256 = c < b->tokens256 ? b->tokens256 - (uint32_t)c : 0;
}

uint32_t hc_step_decide(struct hc_step_budget *b, const struct hc_step_config *c,
                        bool is_store, bool private_access, bool evidence)
{
	uint32_t n;

	if (c->k == 0)
		return 0;
	hc_step_budget_refill(b, c->per_sample256, 4 * c->k);
	if (is_store || private_access)
		return 0;
	if (!evidence) {
		if (c->seed_every == 0 || ++b->candidates % c->seed_every != 0)
			return 0;
		return hc_step_budget_allow(b, c->k) == c->k ? c->k : 0;   /* a whole burst or none */
	}
	n = hc_step_budget_allow(b, c->k);
	return n;
}

bool hc_step_line_recent(const struct hc_step_lines *l, uint64_t line, uint64_t now, uint64_t within)
{
	uint32_t i = (uint32_t)((line / HC_LINE) % HC_STEP_LINES);

	/* A time stamp after `now` (another clock read later, a handler that
	   ran late) counts as recent. */
	return l->line[i] == line && l->time[i] != 0 && (now < l->time[i] || now - l->time[i] <= within);
}

bool hc_step_line_note(struct hc_step_lines *l, uint64_t addr, uint32_t len, uint64_t now,
                       uint64_t within)
{
	uint64_t line = addr & ~(uint64_t)(HC_LINE - 1);
	uint32_t i = (uint32_t)((line / HC_LINE) % HC_STEP_LINES);
	bool seen = hc_step_line_recent(l, line, now, within);

	if (!seen)
		l->mask[i] = 0;
	l->mask[i] |= hc_line_bytes(line, addr, len);
	l->prev[i] = l->line[i] == line ? l->time[i] : 0;
	l->line[i] = line;
	l->time[i] = now ? now : 1;
	return seen;
}

bool hc_step_line_seen(struct hc_step_lines *l, uint64_t line, uint64_t now, uint64_t within)
{
	return hc_step_line_note(l, line, 0, now, within);
}

uint64_t hc_step_line_before(const struct hc_step_lines *l, uint64_t line, uint64_t now)
{
	uint32_t i;

	line &= ~(uint64_t)(HC_LINE - 1);
	i = (uint32_t)((line / HC_LINE) % HC_STEP_LINES);
	if (!l || l->line[i] != line)
		return 0;
	if (l->time[i] < now)
		return l->time[i];
	return l->prev[i] < now ? l->prev[i] : 0;
}

bool hc_burst_line_first(struct hc_burst_lines *b, uint64_t addr)
{
	uint64_t line = addr & ~(uint64_t)(HC_LINE - 1);

	for (uint32_t i = 0; i < b->n && i < HC_BURST_LINES; i++)
		if (b->line[i] == line)
			return false;
	if (b->n < HC_BURST_LINES)
		b->line[b->n++] = line;
	return true;
}

uint64_t hc_step_line_mask(const struct hc_step_lines *l, uint64_t line, uint64_t now, uint64_t within)
{
	line &= ~(uint64_t)(HC_LINE - 1);
	if (!l || !hc_step_line_recent(l, line, now, within))
		return 0;
	return l->mask[(line / HC_LINE) % HC_STEP_LINES];
}

bool hc_step_pc_moves(struct hc_step_pcs *p, uint64_t pc, uint64_t addr)
{
	uint32_t i = (uint32_t)((pc ^ (pc >> 7)) % HC_STEP_PCS);

	if (pc == 0)
		return false;
	if (p->pc[i] != pc) {
		p->pc[i] = pc;
		p->addr[i][0] = addr;
		p->addr[i][1] = addr;
		p->moves[i] = 0;
		p->lo[i] = addr;
		p->hi[i] = addr;
		p->same[i] = 0;
		return false;
	}
	if (addr == p->addr[i][0]) {
		if (p->same[i] < 255)
			p->same[i]++;
	} else {
		p->same[i] = 0;
	}
	if (addr < p->lo[i])
		p->lo[i] = addr;
	if (addr > p->hi[i])
		p->hi[i] = addr;
	if (addr == p->addr[i][0])
		return p->moves[i] != 0;
	if (addr == p->addr[i][1]) {
		/* back to the previous address: one pointer switched between two
		   words, unless a third one was seen before */
		if (p->moves[i] == 1)
			p->moves[i] = 0;
	} else {
		/* a second distinct address: moving, tentatively; a third: for good */
		p->moves[i] = p->addr[i][1] != p->addr[i][0] ? 2 : 1;
	}
	p->addr[i][1] = p->addr[i][0];
	p->addr[i][0] = addr;
	return p->moves[i] != 0;
}

bool hc_step_pc_fixed(const struct hc_step_pcs *p, uint64_t pc, uint32_t n)
{
	uint32_t i = (uint32_t)((pc ^ (pc >> 7)) % HC_STEP_PCS);

	return pc != 0 && p->pc[i] == pc && p->moves[i] == 0 && p->lo[i] == p->hi[i] && p->same[i] >= n;
}

bool hc_step_pc_span(const struct hc_step_pcs *p, uint64_t pc, uint64_t *lo, uint64_t *hi)
{
	uint32_t i = (uint32_t)((pc ^ (pc >> 7)) % HC_STEP_PCS);

	if (pc == 0 || p->pc[i] != pc)
		return false;
	*lo = p->lo[i];
	*hi = p->hi[i];
	return true;
}

const struct hc_mem_access *hc_data_access(const struct hc_insn *in)
{
	const struct hc_mem_access *best = NULL;

	for (int i = 0; i < in->n; i++) {
		const struct hc_mem_access *a = &in->acc[i];
		if (a->kind == HC_ACC_STACK || a->size == 0)
			continue;
		if (!best || ((a->rw & HC_ACC_W) && !(best->rw & HC_ACC_W)))
			best = a;
	}
	return best;
}

void hc_trap_attribute(const struct hc_insn *at_pc, const struct hc_insn *ending, uint64_t pc,
                       uint64_t line, uint64_t bp_addr, bool bp_write, struct hc_trap_attr *out)
{
	const struct hc_mem_access *a = NULL;

	out->leaf = pc;
	out->how = HC_TRAP_REP;
	if (at_pc && (at_pc->flags & HC_AF_REP))
		a = hc_data_access(at_pc);
	if (!a && ending) {
		for (int i = 0; i < ending->n; i++) {
			const struct hc_mem_access *c = &ending->acc[i];
			if (c->size && ((c->ea & ~(uint64_t)(HC_LINE - 1)) == line ||
			                ((c->ea + c->size - 1) & ~(uint64_t)(HC_LINE - 1)) == line)) {
				a = c;
				break;
			}
		}
		if (a) {
			out->leaf = ending->addr;
			out->how = HC_TRAP_EXACT;
		} else if ((a = hc_data_access(ending))) {
			/* the accessing instruction, its address register since
			   overwritten: the kind is its access's (a write-only
			   register that fired saw a store, whatever the decode) */
			out->leaf = ending->addr;
			out->how = HC_TRAP_INSN;
			out->addr = bp_addr;
			out->len = 8;
			out->is_store = bp_write || (a->rw & HC_ACC_W);
			return;
		}
	}
	if (a) {
		out->addr = a->ea;
		out->len = a->size;
		out->is_store = (a->rw & HC_ACC_W) != 0;
	} else {
		out->how = HC_TRAP_UNKNOWN;
		out->addr = bp_addr;
		out->len = 8;
		out->is_store = bp_write;
	}
}
