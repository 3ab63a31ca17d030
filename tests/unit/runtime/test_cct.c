/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cct.c — the per-thread calling-context tree (lib/runtime/cct.c) on its
   own: paths inserted before, across and after the hash table's growth steps
   must keep their node ids (peers hold them) and be found again, parents
   always precede children, the tree drops nodes only at its capacity (and
   counts them), and an arena too small to grow the table leaves the old
   table working. Nothing here unwinds: cct__insert takes the frames. */
#include <stdint.h>
#include <string.h>

#include "runtime/rt.h"
#include "hc_test.h"

#define NPATHS 20000
#define DEPTH  6

static uint64_t frame(uint32_t path, int level)
{
	/* a shared prefix for groups of paths, distinct leaves */
	return 0x400000ull + ((uint64_t)(level < 3 ? path / 97 : path) << 4) + (uint64_t)level;
}

static int setup(struct rt_thread *t, size_t reserve, uint32_t cap)
{
	memset(t, 0, sizeof *t);
	if (hc_arena_init(&t->arena, reserve) < 0)
		return -1;
	return cct__init(t, cap);
}

static uint32_t insert_path(struct rt_thread *t, uint32_t p)
{
	uint64_t ret[DEPTH];

	for (int l = 0; l < DEPTH; l++)
		ret[l] = frame(p, DEPTH - 1 - l);  /* [0] innermost */
	return cct__insert(t, ret, DEPTH, 0x900000ull + p);
}

static void grows_and_keeps_ids(void)
{
	static struct rt_thread t;
	static uint32_t id[NPATHS];
	uint32_t mask0;

	CHECK(setup(&t, 256u << 20, 1u << 20) == 0);
	mask0 = t.cct.mask;
	CHECK(mask0 + 1 <= 4096);
	for (uint32_t p = 0; p < NPATHS; p++)
		id[p] = insert_path(&t, p);
	CHECK_MSG(t.cct.mask > mask0, "the table grew (%u -> %u buckets)", mask0 + 1, t.cct.mask + 1);
	CHECK(t.cct.n <= 2 * (t.cct.mask + 1));
	for (uint32_t p = 0; p < NPATHS; p++) {
		uint32_t again = insert_path(&t, p);
		if (again != id[p]) {
			CHECK_MSG(again == id[p], "path %u: id %u, now %u", p, id[p], again);
			break;
		}
	}
	/* the leaf's ancestry is the inserted path */
	for (uint32_t p = 0; p < NPATHS; p += 997) {
		uint32_t n = id[p];
		CHECK(t.cct.nodes[n].ip == 0x900000ull + p && (t.cct.nodes[n].flags & HC_NODE_LEAF));
		for (int l = DEPTH - 1; l >= 0; l--) {
			n = t.cct.nodes[n].parent;
			CHECK(n != HC_NONE && n != 0 && t.cct.nodes[n].ip == frame(p, l));
		}
		CHECK(t.cct.nodes[n].parent == 0);
	}
	for (uint32_t i = 1; i < t.cct.n; i++)
		if (t.cct.nodes[i].parent >= i) {
			CHECK_MSG(0, "node %u has parent %u", i, t.cct.nodes[i].parent);
			break;
		}
	CHECK_EQ_U64(t.cnt.cct_nodes_dropped, 0);
	hc_arena_destroy(&t.arena);
}

static void full_tree_counts_drops(void)
{
	static struct rt_thread t;
	uint32_t before, id5 = 0;

	CHECK(setup(&t, 64u << 20, 1000) == 0);
	for (uint32_t p = 0; p < 1000; p++) {
		uint32_t n = insert_path(&t, p);
		if (p == 5)
			id5 = n;
	}
	CHECK_EQ_U64(t.cct.n, 1000);
	CHECK(t.cnt.cct_nodes_dropped > 0);
	/* the table never grows past the tree's capacity */
	CHECK(t.cct.mask + 1 <= 4096);
	before = t.cct.n;
	CHECK(insert_path(&t, 5) == id5);   /* known paths still resolve */
	CHECK_EQ_U64(t.cct.n, before);
	hc_arena_destroy(&t.arena);
}

static void small_arena_keeps_old_table(void)
{
	static struct rt_thread t;
	static uint32_t id[8000];
	size_t nodes = (size_t)20000 * sizeof(struct rt_cct_node);

	/* room for the nodes and the first table, not for a 16,384-bucket one */
	CHECK(setup(&t, nodes + 4096 * 4 + 8192, 20000) == 0);
	for (uint32_t p = 0; p < 8000 / DEPTH; p++)
		id[p] = insert_path(&t, p);
	CHECK_EQ_U64(t.cct.mask + 1, 4096);
	for (uint32_t p = 0; p < 8000 / DEPTH; p++)
		CHECK(insert_path(&t, p) == id[p]);
	hc_arena_destroy(&t.arena);
}

int main(void)
{
	grows_and_keeps_ids();
	full_tree_counts_drops();
	small_arena_keeps_old_table();
	return hc_test_done("test_cct");
}
