/* SPDX-License-Identifier: BSD-3-Clause */
/* pmusample.c — from one hardware sample to one detection-core sample
   (perfbuf.h). PEBS gives the data address and (precise_ip >= 2) the exact
   IP; AMD IBS gives both in its raw op registers, with load/store bits and
   an address-valid bit that we check. Neither says how many bytes were
   accessed, which true/false-sharing classification needs, so the
   instruction at the IP is decoded with Zydis and its access in the sampled
   direction supplies the length (and tells a private stack slot from an
   explicit operand). Runs in signal context: async-signal-safe. */
#include <string.h>
#include <ucontext.h>
#include "hc/common.h"
#include "hc/profile.h"
#include "decode/decode.h"
#include "decode/funcstart.h"
#include "pmu/perfbuf.h"

/* The lowest non-canonical / kernel half of the x86-64 address space. */
#define USER_TOP 0x0000800000000000ull

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* The access of in that the hardware sampled: in the sampled direction,
   preferring an explicit operand over a stack slot. */
static const struct hc_mem_access *pick(const struct hc_insn *in, bool store, int *status)
{
	const struct hc_mem_access *stack = NULL;

	for (int i = 0; i < in->n; i++) {
		const struct hc_mem_access *a = &in->acc[i];
		if (a->size == 0 || !(a->rw & (store ? HC_ACC_W : HC_ACC_R)))
			continue;
		if (a->kind != HC_ACC_STACK)
			return a;
		stack = a;
	}
	*status = stack ? HC_PMU_STACK : HC_PMU_NO_ACCESS;
	return NULL;
}

/* TEST-ONLY software stand-in (src->addr_from_regs): a task-clock record
   has no data address. Its IP is where the timer interrupted, after the
   last retired instruction, as PEBS's with precise_ip 1 (the stand-in
   opens with precise_ip 0, so ip_is_next is set). When the record is the
   newest of its buffer and its IP is the PC the signal interrupted, the
   signal's registers are the ones that instruction left: recover its
   address as the soft sampler does (hc_decode_prev: only accesses whose
   address registers it did not overwrite) and take the access in the
   sampled direction. Anything else keeps address 0 (no-address). */
static uint64_t standin_addr(const struct hc_pmu_source *src, const struct hc_perf_sample *ps,
                             const struct hc_pmu_env *env, bool store)
{
	const struct hc_mem_access *a;
	struct hc_insn in;
	int status;

	if (!src->addr_from_regs || !env || !env->regs || !ps->newest ||
	    ps->ip != (uint64_t)env->regs->gregs[REG_RIP])
		return 0;
	if (hc_decode_prev(env->regs, env->cache, &in) != HC_PREV_OK ||
	    !(a = pick(&in, store, &status)))
		return 0;
	return a->ea;
}

int hc_pmu_to_sample(const struct hc_pmu_source *src, const struct hc_perf_sample *ps,
                     const struct hc_pmu_env *env, struct hc_sample *s, uint64_t *leaf)
{
	long long gregs[NGREG];
	struct hc_regs r = { .gregs = gregs };
	const struct hc_mem_access *a;
	struct hc_insn in;
	uint64_t ip, addr;
	bool store, locked = false;
	uint32_t hwlen = 0;
	int status = HC_PMU_OK;

	if (src->kind == HC_SAMPLER_IBS) {
		struct hc_ibs_op op;
		switch (hc_ibs_decode(ps->raw, ps->raw_size, &op)) {
		case HC_IBS_MEM: break;
		case HC_IBS_NOT_MEMORY: return HC_PMU_NOT_MEMORY;
		case HC_IBS_NO_ADDR: return HC_PMU_NO_ADDR;
		default: return HC_PMU_BAD_RAW;
		}
		ip = op.rip;
		addr = op.addr;
		store = op.store;            /* a locked RMW sets both: it counts as a store */
		locked = op.locked;
		hwlen = op.width;
	} else {
		ip = ps->ip;
		addr = ps->addr;
		store = src->store_event;
		if (addr == 0 && src->addr_from_regs)
			addr = standin_addr(src, ps, env, store);
	}
	if (ip == 0 || ip >= USER_TOP || addr >= USER_TOP)
		return HC_PMU_KERNEL;
	/* The runtime's own accesses (its SIGTRAP handler: drain, decode,
	   unwind, bulletin board, watchpoints; its wrappers) are counted by
	   the hardware like the program's: never the program's communication. */
	if (env && ps->time)
		for (int i = 0; i < env->nbusy && i <= HC_PMU_BUSY; i++)
			if (ps->time - env->busy[i].lo < env->busy[i].hi - env->busy[i].lo)
				return HC_PMU_IN_RUNTIME;
	if (env)
		for (int i = 0; i < env->nself && i < HC_PMU_SELF_RANGES; i++)
			if (ip - env->self[i].lo < env->self[i].hi - env->self[i].lo ||
			    (addr && addr - env->self[i].lo < env->self[i].hi - env->self[i].lo))
				return HC_PMU_IN_RUNTIME;
	if (addr == 0)
		return HC_PMU_NO_ADDR;
	/* A record read late (SIGTRAP blocked, drained at stop) may point
	   into code unloaded since: ask before any read there. */
	if (env && env->code_readable && !env->code_readable(src->ip_is_next ? ip - 1 : ip))
		return HC_PMU_UNMAPPED;

	/* Registers are unknown here (the hardware computed the address), so
	   the decoder computes addresses from zeros; only the instruction's
	   operand sizes, directions and kinds are used. */
	memset(gregs, 0, sizeof gregs);
	if (src->ip_is_next) {
		if (hc_decode_ending_at(&r, ip, env ? env->cache : NULL, &in) < 0)
			return HC_PMU_UNDECODABLE;
	} else {
		gregs[REG_RIP] = (long long)ip;
		if (hc_decode_at_pc(&r, &in) < 0)
			return HC_PMU_UNDECODABLE;
	}
	a = pick(&in, store, &status);
	if (!a)
		return status;

	memset(s, 0, sizeof *s);
	s->time = ps->time;
	s->addr = addr;
	s->len = a->size;
	if (hwlen && hwlen < s->len && !(a->flags & HC_AF_VSIB))
		s->len = hwlen;
	s->is_store = store || locked || (a->flags & HC_AF_LOCK);
	s->is_private = false;
	s->cpu = (int32_t)ps->cpu;
	s->ctx = HC_NONE;
	*leaf = in.addr ? in.addr : ip;
	return HC_PMU_OK;
}

const char *hc_pmu_status_name(int status)
{
	static const char *const names[HC_PMU_STATUS_COUNT] = {
		[HC_PMU_OK] = "ok", [HC_PMU_KERNEL] = "kernel", [HC_PMU_NO_ADDR] = "no-address",
		[HC_PMU_NOT_MEMORY] = "not-memory", [HC_PMU_UNDECODABLE] = "undecodable",
		[HC_PMU_NO_ACCESS] = "no-access", [HC_PMU_STACK] = "stack",
		[HC_PMU_BAD_RAW] = "bad-raw", [HC_PMU_IN_RUNTIME] = "in-runtime",
		[HC_PMU_UNMAPPED] = "unmapped",
	};
	return status >= 0 && status < HC_PMU_STATUS_COUNT ? names[status] : "?";
}

struct drain {
	const struct hc_pmu_source *src;
	const struct hc_pmu_env *env;
	uint32_t tid;
	unsigned n;
	hc_pmu_sink sink;
	void *arg;
	struct hc_pmu_counts *c;
};

/* Is the interrupted context the sample's own (hc_pmu_sink)? */
static bool exact_context(const struct hc_pmu_env *env, const struct hc_perf_sample *ps, uint64_t leaf)
{
	uint64_t pc, start, end;

	if (!env || !env->regs || !ps->newest)
		return false;
	pc = (uint64_t)env->regs->gregs[REG_RIP];
	if (pc == leaf)
		return true;
	return hc_funcs_lookup(leaf, &start, &end) && pc >= start && pc < end;
}

static void on_record(const struct hc_perf_sample *ps, void *arg)
{
	struct drain *d = arg;
	struct hc_sample s = { 0 };
	uint64_t leaf = 0;
	int st;

	d->c->samples++;
	if (++d->n > 1)
		d->c->batched++;
	if (ps->tid != d->tid) {
		d->c->foreign++;
		return;
	}
	if (ps->period) {
		if (!d->c->period_min || ps->period < d->c->period_min)
			d->c->period_min = ps->period;
		if (ps->period > d->c->period_max)
			d->c->period_max = ps->period;
	}
	if (ps->period) {
		d->c->period_sum += ps->period;
		d->c->period_n++;
	}
	if (d->src->kind == HC_SAMPLER_IBS) {
		struct hc_ibs_op op;
		int ist = hc_ibs_decode(ps->raw, ps->raw_size, &op);
		if (ist != HC_IBS_SHORT && ist != HC_IBS_NOT_VALID) {
			if (!op.randomized)
				d->c->ibs_unrandomized++;
			if (op.mispredicted)
				d->c->ibs_mispredicted++;
		}
	}
	st = hc_pmu_to_sample(d->src, ps, d->env, &s, &leaf);
	d->c->status[st >= 0 && st < HC_PMU_STATUS_COUNT ? st : HC_PMU_BAD_RAW]++;
	if (st == HC_PMU_OK) {
		bool exact = exact_context(d->env, ps, leaf);
		if (!exact)
			d->c->ctx_approx++;
		d->sink(d->arg, leaf, &s, exact);
	}
}

uint64_t hc_pmu_drain(struct hc_pmu_stream *v, int n, uint32_t tid, const struct hc_pmu_env *env,
                      hc_pmu_sink sink, void *arg, struct hc_pmu_counts *c)
{
	struct drain d = { .env = env, .tid = tid, .sink = sink, .arg = arg, .c = c };
	uint64_t before = c->status[HC_PMU_OK];

	for (int i = 0; i < n; i++) {
		d.src = &v[i].src;
		hc_perfbuf_drain(&v[i].buf, on_record, &d, &c->ring);
	}
	return c->status[HC_PMU_OK] - before;
}
