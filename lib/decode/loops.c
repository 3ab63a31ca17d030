/* SPDX-License-Identifier: BSD-3-Clause */
/* loops.c — basic blocks, control-flow graph and loop nest of one function
   (loops.h). Decoding is linear from the first byte: x86-64 compilers do
   not put data between a function's instructions, and a branch into the
   middle of an instruction (never emitted by a compiler) is ignored. Edges:
   a direct jmp/jcc inside the function goes to its target (one outside is
   a tail call: no edge), jcc/call and plain instructions fall through,
   ret/ud2/hlt and jmp do not; an indirect jmp is taken to reach every block
   that nothing else reaches (a jump table's cases; HPCToolkit resolves the
   tables, which this does not), so a loop around a switch keeps its cases.
   Loops: Havlak's algorithm with union-find, as in the Hundt loop
   recognition benchmark (the same algorithm hpcstruct's ancestor used):
   blocks are numbered in depth-first preorder, and visited in reverse
   preorder; each header w collects, through union-find representatives,
   the blocks that reach one of its back-edge sources without leaving w's
   depth-first subtree; a predecessor outside the subtree makes the loop
   irreducible (and is passed up to w, so the enclosing loop still holds
   it). Inner loops are found before outer ones; the result lists them
   parents first. */
#include <stddef.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "decode/loops.h"
#include "support/search.h"

#define MAX_INSN 15

enum { K_PLAIN = 0, K_COND, K_JMP, K_INDIRECT, K_STOP };

struct insn {
	uint64_t addr;
	uint64_t target;    /* K_COND, K_JMP: branch target (absolute) */
	uint8_t kind;
};

struct vec {
	uint32_t *v;
	uint32_t n, cap;
};

static int vec_push(struct vec *x, uint32_t e)
{
	if (x->n == x->cap) {
		uint32_t cap = x->cap ? 2 * x->cap : 4;
		uint32_t *p = realloc(x->v, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		x->v = p;
		x->cap = cap;
	}
	x->v[x->n++] = e;
	return 0;
}

static uint8_t classify(const ZydisDecodedInstruction *in, uint64_t next, uint64_t *target)
{
	bool rel = (in->attributes & ZYDIS_ATTRIB_IS_RELATIVE) && in->raw.imm[0].is_relative;

	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_JMP:
		if (!rel)
			return K_INDIRECT;
		*target = next + (uint64_t)in->raw.imm[0].value.s;
		return K_JMP;
	case ZYDIS_MNEMONIC_RET:
	case ZYDIS_MNEMONIC_IRET:
	case ZYDIS_MNEMONIC_IRETD:
	case ZYDIS_MNEMONIC_IRETQ:
	case ZYDIS_MNEMONIC_UD2:
	case ZYDIS_MNEMONIC_HLT:
		return K_STOP;
	case ZYDIS_MNEMONIC_CALL:
		return K_PLAIN;
	default:
		break;
	}
	if (rel && in->meta.category != ZYDIS_CATEGORY_CALL) {
		/* jcc, jrcxz, loop*, xbegin */
		*target = next + (uint64_t)in->raw.imm[0].value.s;
		return K_COND;
	}
	return K_PLAIN;
}

static int32_t find_block(const struct hc_block *b, uint32_t nb, uint64_t a)
{
	uint32_t lo = 0, hi = nb;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (b[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || a >= b[lo - 1].end)
		return -1;
	return (int32_t)(lo - 1);
}

int32_t hc_loops_block(const struct hc_loops *l, uint64_t a)
{
	return find_block(l->b, l->nb, a);
}

void hc_loops_free(struct hc_loops *l)
{
	free(l->b);
	free(l->l);
	free(l->latches);
	free(l->backs);
	memset(l, 0, sizeof(*l));
}

/* Work arrays of one run. */
struct work {
	struct insn *in;
	uint32_t nin;
	uint64_t end;           /* end of the last decoded instruction */
	uint32_t *blast;        /* per block: index of its last instruction */
	struct vec *succ;       /* per block */
	uint32_t *pre;          /* block -> preorder number, UINT32_MAX = unreached */
	uint32_t *node;         /* preorder -> block */
	uint32_t *last;         /* preorder -> last preorder number of its subtree */
	uint32_t nreach;
	struct vec *back, *nonback;  /* by preorder */
	uint32_t *uf;
	uint32_t *mark, *pool;
	int32_t *hloop;         /* preorder -> loop headed there, -1 */
};

static uint32_t uf_find(uint32_t *uf, uint32_t x)
{
	uint32_t r = x;

	while (uf[r] != r)
		r = uf[r];
	while (uf[x] != r) {
		uint32_t n = uf[x];
		uf[x] = r;
		x = n;
	}
	return r;
}

static int decode_all(const uint8_t *code, size_t len, uint64_t addr, struct work *w,
                      bool *partial)
{
	ZydisDecoder dec;
	size_t off = 0;
	uint32_t cap = 0;

	if (!ZYAN_SUCCESS(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	*partial = false;
	while (off < len) {
		ZydisDecodedInstruction in;
		size_t avail = len - off < MAX_INSN ? len - off : MAX_INSN;
		uint64_t next, target = 0;

		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL, code + off, avail, &in))) {
			*partial = true;
			break;
		}
		if (w->nin == cap) {
			uint32_t nc = cap ? 2 * cap : 64;
			struct insn *p = realloc(w->in, nc * sizeof(*p));
			if (!p)
				return -ENOMEM;
			w->in = p;
			cap = nc;
		}
		next = addr + off + in.length;
		w->in[w->nin].addr = addr + off;
		w->in[w->nin].kind = classify(&in, next, &target);
		w->in[w->nin].target = target;
		w->nin++;
		off += in.length;
	}
	w->end = addr + off;
	return w->nin ? 0 : -EINVAL;
}

/* Index of the instruction starting at a, or -1. */
static int32_t insn_at(const struct work *w, uint64_t a)
{
	size_t i = hc_find_u64(w->in, w->nin, sizeof(*w->in), offsetof(struct insn, addr), a);

	return i < w->nin ? (int32_t)i : -1;
}

static int make_blocks(struct work *w, uint64_t end, struct hc_loops *out)
{
	uint8_t *leader = calloc(w->nin + 1, 1);
	uint32_t i, nb = 0;

	if (!leader)
		return -ENOMEM;
	leader[0] = 1;
	for (i = 0; i < w->nin; i++) {
		const struct insn *x = &w->in[i];
		if (x->kind == K_PLAIN)
			continue;
		leader[i + 1] = 1;
		if (x->kind == K_COND || x->kind == K_JMP) {
			int32_t t = insn_at(w, x->target);
			if (t >= 0)
				leader[t] = 1;
		}
	}
	for (i = 0; i < w->nin; i++)
		nb += leader[i];
	out->b = calloc(nb, sizeof(*out->b));
	w->blast = calloc(nb, sizeof(*w->blast));
	w->succ = calloc(nb, sizeof(*w->succ));
	if (!out->b || !w->blast || !w->succ) {
		free(leader);
		return -ENOMEM;
	}
	nb = 0;
	for (i = 0; i < w->nin; i++) {
		if (leader[i]) {
			if (nb)
				out->b[nb - 1].end = w->in[i].addr;
			out->b[nb].start = w->in[i].addr;
			out->b[nb].loop = -1;
			nb++;
		}
		w->blast[nb - 1] = i;
	}
	out->b[nb - 1].end = end;
	out->nb = nb;
	free(leader);
	return 0;
}

static int make_edges(struct work *w, struct hc_loops *out)
{
	uint32_t b, nb = out->nb, *npred = calloc(nb, sizeof(uint32_t));
	bool indirect = false;
	int ret = 0;

	if (!npred)
		return -ENOMEM;
	for (b = 0; b < nb && !ret; b++) {
		const struct insn *x = &w->in[w->blast[b]];
		if ((x->kind == K_PLAIN || x->kind == K_COND) && b + 1 < nb)
			ret = vec_push(&w->succ[b], b + 1);
		if (!ret && (x->kind == K_COND || x->kind == K_JMP)) {
			int32_t t = find_block(out->b, nb, x->target);
			if (t >= 0 && out->b[t].start == x->target)
				ret = vec_push(&w->succ[b], (uint32_t)t);
		}
		indirect |= x->kind == K_INDIRECT;
	}
	for (b = 0; b < nb && !ret; b++)
		for (uint32_t k = 0; k < w->succ[b].n; k++)
			npred[w->succ[b].v[k]]++;
	if (indirect)
		for (b = 0; b < nb && !ret; b++) {
			if (w->in[w->blast[b]].kind != K_INDIRECT)
				continue;
			for (uint32_t t = 1; t < nb && !ret; t++)
				if (!npred[t])
					ret = vec_push(&w->succ[b], t);
		}
	free(npred);
	return ret;
}

/* Iterative depth-first search from block 0: preorder numbers and the last
   number of each subtree. */
static int dfs(struct work *w, uint32_t nb)
{
	uint32_t *stack = malloc(nb * sizeof(*stack)), *edge = calloc(nb, sizeof(*edge));
	uint32_t sp = 0, n = 0, i;

	w->pre = malloc(nb * sizeof(*w->pre));
	w->node = malloc(nb * sizeof(*w->node));
	w->last = malloc(nb * sizeof(*w->last));
	if (!stack || !edge || !w->pre || !w->node || !w->last) {
		free(stack);
		free(edge);
		return -ENOMEM;
	}
	for (i = 0; i < nb; i++)
		w->pre[i] = UINT32_MAX;
	w->pre[0] = n;
	w->node[n++] = 0;
	stack[sp++] = 0;
	while (sp) {
		uint32_t b = stack[sp - 1];
		if (edge[b] < w->succ[b].n) {
			uint32_t s = w->succ[b].v[edge[b]++];
			if (w->pre[s] == UINT32_MAX) {
				w->pre[s] = n;
				w->node[n++] = s;
				stack[sp++] = s;
			}
		} else {
			w->last[w->pre[b]] = n - 1;
			sp--;
		}
	}
	w->nreach = n;
	free(stack);
	free(edge);
	return 0;
}

static inline bool is_ancestor(const struct work *w, uint32_t a, uint32_t d)
{
	return a <= d && d <= w->last[a];
}

/* Is loop l inside loop outer (or outer itself)? */
static bool within(const struct hc_loops *out, int32_t l, int32_t outer)
{
	for (; l >= 0; l = out->l[l].parent)
		if (l == outer)
			return true;
	return false;
}

/* Per loop, its control branches (grouped by loop: a counting sort over
   the blocks' loops): the branches of its own blocks that jump backwards to
   a block inside it, and the conditional branches that can leave it. */
static int backs(struct work *w, struct hc_loops *out)
{
	uint32_t *cnt = calloc(out->nl + 1, sizeof(*cnt)), b, n = 0;

	if (!cnt)
		return -ENOMEM;
	for (int pass = 0; pass < 2; pass++) {
		for (b = 0; b < out->nb; b++) {
			const struct insn *x = &w->in[w->blast[b]];
			int32_t l = out->b[b].loop, t;
			bool back, leaves;

			if (l < 0 || (x->kind != K_COND && x->kind != K_JMP))
				continue;
			t = find_block(out->b, out->nb, x->target);
			back = x->target <= x->addr && t >= 0 && within(out, out->b[t].loop, l);
			leaves = x->kind == K_COND &&
			       (t < 0 || !within(out, out->b[t].loop, l) ||
			        b + 1 >= out->nb || !within(out, out->b[b + 1].loop, l));
			if (!back && !leaves)
				continue;
			if (pass == 0)
				cnt[l + 1]++;
			else
				out->backs[cnt[l]++] = x->addr;
		}
		if (pass == 0) {
			for (b = 0; b < out->nl; b++) {
				out->l[b].nback = cnt[b + 1];
				cnt[b + 1] += cnt[b];
				out->l[b].first_back = cnt[b];
			}
			n = cnt[out->nl];
			out->backs = malloc((n ? n : 1) * sizeof(*out->backs));
			if (!out->backs) {
				free(cnt);
				return -ENOMEM;
			}
		}
	}
	out->nbacks = n;
	free(cnt);
	return 0;
}

static int havlak(struct work *w, struct hc_loops *out)
{
	uint32_t n = w->nreach, b, x, k;
	struct hc_loop *loops = NULL;
	uint32_t nl = 0, lcap = 0;
	struct vec lat = { 0 };
	int ret = 0;

	w->back = calloc(n, sizeof(*w->back));
	w->nonback = calloc(n, sizeof(*w->nonback));
	w->uf = malloc(n * sizeof(*w->uf));
	w->mark = calloc(n, sizeof(*w->mark));
	w->pool = malloc(n * sizeof(*w->pool));
	w->hloop = malloc(n * sizeof(*w->hloop));
	if (!w->back || !w->nonback || !w->uf || !w->mark || !w->pool || !w->hloop)
		return -ENOMEM;
	for (x = 0; x < n; x++) {
		w->uf[x] = x;
		w->hloop[x] = -1;
	}
	for (b = 0; b < out->nb && !ret; b++) {
		uint32_t v = w->pre[b];
		if (v == UINT32_MAX)
			continue;
		for (k = 0; k < w->succ[b].n && !ret; k++) {
			uint32_t t = w->pre[w->succ[b].v[k]];
			ret = is_ancestor(w, t, v) ? vec_push(&w->back[t], v) : vec_push(&w->nonback[t], v);
		}
	}
	for (uint32_t wi = n; wi-- > 0 && !ret;) {
		uint32_t np = 0, stamp = wi + 1;
		bool self = false, irr = false;

		for (k = 0; k < w->back[wi].n; k++) {
			uint32_t v = w->back[wi].v[k];
			if (v == wi) {
				self = true;
				continue;
			}
			x = uf_find(w->uf, v);
			if (w->mark[x] != stamp) {
				w->mark[x] = stamp;
				w->pool[np++] = x;
			}
		}
		for (uint32_t q = 0; q < np && !ret; q++) {
			x = w->pool[q];
			for (k = 0; k < w->nonback[x].n && !ret; k++) {
				uint32_t y = uf_find(w->uf, w->nonback[x].v[k]);
				if (!is_ancestor(w, wi, y)) {
					irr = true;
					ret = vec_push(&w->nonback[wi], y);
				} else if (y != wi && w->mark[y] != stamp) {
					w->mark[y] = stamp;
					w->pool[np++] = y;
				}
			}
		}
		if (ret || (!np && !self))
			continue;
		if (nl == lcap) {
			uint32_t c = lcap ? 2 * lcap : 8;
			struct hc_loop *p = realloc(loops, c * sizeof(*p));
			if (!p) {
				ret = -ENOMEM;
				break;
			}
			loops = p;
			lcap = c;
		}
		loops[nl] = (struct hc_loop){ .head = out->b[w->node[wi]].start, .parent = -1,
		                              .irreducible = irr, .first_latch = lat.n };
		for (k = 0; k < w->back[wi].n && !ret; k++)
			ret = vec_push(&lat, w->blast[w->node[w->back[wi].v[k]]]);
		loops[nl].nlatch = lat.n - loops[nl].first_latch;
		out->b[w->node[wi]].loop = (int32_t)nl;
		w->hloop[wi] = (int32_t)nl;
		for (uint32_t q = 0; q < np; q++) {
			x = w->pool[q];
			if (w->hloop[x] >= 0)
				loops[w->hloop[x]].parent = (int32_t)nl;
			else
				out->b[w->node[x]].loop = (int32_t)nl;
			w->uf[x] = wi;
		}
		nl++;
	}
	if (ret) {
		free(loops);
		free(lat.v);
		return ret;
	}
	/* Parents first: a loop is made after every loop inside it. */
	out->l = calloc(nl ? nl : 1, sizeof(*out->l));
	out->latches = malloc((lat.n ? lat.n : 1) * sizeof(*out->latches));
	if (!out->l || !out->latches) {
		free(loops);
		free(lat.v);
		return -ENOMEM;
	}
	for (k = 0; k < nl; k++) {
		struct hc_loop *d = &out->l[nl - 1 - k];
		*d = loops[k];
		if (d->parent >= 0)
			d->parent = (int32_t)(nl - 1 - (uint32_t)d->parent);
	}
	for (k = 0; k < nl; k++)
		out->l[k].depth = out->l[k].parent >= 0 ? out->l[out->l[k].parent].depth + 1 : 1;
	for (b = 0; b < out->nb; b++)
		if (out->b[b].loop >= 0) {
			out->b[b].loop = (int32_t)(nl - 1 - (uint32_t)out->b[b].loop);
			out->l[out->b[b].loop].nblocks++;
		}
	for (k = 0; k < lat.n; k++)
		out->latches[k] = w->in[lat.v[k]].addr;
	out->nl = nl;
	out->nlatches = lat.n;
	free(loops);
	free(lat.v);
	return backs(w, out);
}

int hc_loops_find(const uint8_t *code, size_t len, uint64_t addr, struct hc_loops *out)
{
	struct work w;
	uint32_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	memset(&w, 0, sizeof(w));
	ret = decode_all(code, len, addr, &w, &out->partial);
	if (!ret)
		ret = make_blocks(&w, w.end, out);
	if (!ret)
		ret = make_edges(&w, out);
	if (!ret)
		ret = dfs(&w, out->nb);
	if (!ret)
		ret = havlak(&w, out);
	for (i = 0; w.succ && i < out->nb; i++)
		free(w.succ[i].v);
	for (i = 0; i < w.nreach; i++) {
		if (w.back)
			free(w.back[i].v);
		if (w.nonback)
			free(w.nonback[i].v);
	}
	free(w.in);
	free(w.blast);
	free(w.succ);
	free(w.pre);
	free(w.node);
	free(w.last);
	free(w.back);
	free(w.nonback);
	free(w.uf);
	free(w.mark);
	free(w.pool);
	free(w.hloop);
	if (ret)
		hc_loops_free(out);
	return ret;
}
