/* SPDX-License-Identifier: BSD-3-Clause */
/* cct.c — the per-thread calling-context tree and the unwinds that feed it.
   Nodes live in the thread's arena and are found through a chained hash on
   (parent, ip, leaf); ids grow in insertion order, so parents always precede
   children. Frames are raw addresses here; output.c turns them into
   (load module, offset) with the load map at write time. The unwind uses
   libunwind's unw_backtrace (no syscalls once warm, correct through the
   signal frame: FINDINGS §7). rt__cct_insert and rt__context run in signal
   context: arena memory only, no locks. */
#include <string.h>
#include <ucontext.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "runtime/rt.h"

int rt__cct_init(struct hc_thread *t, uint32_t cap)
{
	uint32_t nb = 1;

	while (nb < cap)
		nb <<= 1;
	t->cct.nodes = hc_arena_alloc(&t->arena, (size_t)cap * sizeof *t->cct.nodes, 64);
	t->cct.buckets = hc_arena_alloc(&t->arena, (size_t)nb * sizeof *t->cct.buckets, 64);
	if (!t->cct.nodes || !t->cct.buckets)
		return -1;
	memset(t->cct.buckets, 0xff, (size_t)nb * sizeof *t->cct.buckets);
	t->cct.cap = cap;
	t->cct.mask = nb - 1;
	/* node 0: the root */
	memset(&t->cct.nodes[0], 0, sizeof t->cct.nodes[0]);
	t->cct.nodes[0].parent = HC_NONE;
	t->cct.nodes[0].next = HC_NONE;
	t->cct.n = 1;
	return 0;
}

static inline uint32_t hash(uint32_t parent, uint64_t ip, uint32_t flags)
{
	uint64_t h = (ip ^ ((uint64_t)parent << 32) ^ flags) * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32);
}

/* Child of `parent` for ip; created if missing. HC_NONE when full. */
static uint32_t child(struct hc_thread *t, uint32_t parent, uint64_t ip, uint32_t flags)
{
	struct hc_cct *c = &t->cct;
	uint32_t b = hash(parent, ip, flags) & c->mask;
	struct hc_cct_node *n;

	for (uint32_t i = c->buckets[b]; i != HC_NONE; i = c->nodes[i].next)
		if (c->nodes[i].ip == ip && c->nodes[i].parent == parent && c->nodes[i].flags == flags)
			return i;
	if (c->n >= c->cap) {
		t->cnt.cct_nodes_dropped++;
		return HC_NONE;
	}
	n = &c->nodes[c->n];
	memset(n, 0, sizeof *n);
	n->ip = ip;
	n->parent = parent;
	n->flags = flags;
	n->next = c->buckets[b];
	c->buckets[b] = c->n;
	return c->n++;
}

/* ret_addrs[0] is the innermost return address, ret_addrs[nret-1] the
   outermost. leaf (if nonzero) is the accessing instruction's address. */
uint32_t rt__cct_insert(struct hc_thread *t, const uint64_t *ret_addrs, int nret, uint64_t leaf)
{
	uint32_t node = 0;

	for (int i = nret - 1; i >= 0; i--) {
		uint32_t c = child(t, node, ret_addrs[i], 0);
		if (c == HC_NONE)
			return node;
		node = c;
	}
	if (leaf) {
		uint32_t c = child(t, node, leaf, HC_NODE_LEAF);
		if (c != HC_NONE)
			node = c;
	}
	return node;
}

/* Context of the interrupted instruction: unwind from the handler, skip to
   the interrupted PC, keep the callers' return addresses. */
uint32_t rt__context(struct hc_thread *t, void *uctx, uint64_t leaf_ip)
{
	const ucontext_t *uc = uctx;
	uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	void *fr[HC_MAX_FRAMES];
	int n = unw_backtrace(fr, HC_MAX_FRAMES), i;

	for (i = 0; i < n; i++)
		if ((uint64_t)(uintptr_t)fr[i] == pc)
			break;
	if (i >= n) {
		t->cnt.unwind_failed++;
		return rt__cct_insert(t, NULL, 0, leaf_ip);
	}
	return rt__cct_insert(t, (const uint64_t *)(fr + i + 1), n - i - 1, leaf_ip);
}

/* Context of our caller's caller (skip = frames of the runtime to drop). */
uint32_t rt__context_here(struct hc_thread *t, int skip)
{
	void *fr[HC_MAX_FRAMES];
	int n = unw_backtrace(fr, HC_MAX_FRAMES);

	skip += 1;  /* this function */
	if (n <= skip)
		return 0;
	return rt__cct_insert(t, (const uint64_t *)(fr + skip), n - skip, 0);
}
