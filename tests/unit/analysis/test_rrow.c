/* SPDX-License-Identifier: BSD-3-Clause */
/* test_rrow.c — the per-profile event aggregate of code regions
   (regions.h, struct rrow_ent): an entry holds 31 bits of volume and one
   kind; a larger sum takes several entries, true and false sharing are
   apart, compaction merges equal keys without overflowing, and no volume
   is lost on the way. Events are keyed by code pair (the index of
   (node, peer's node) in the reading worker's table, named by
   regions__reserve): pass A turns them into region sets later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/regions.h"
#include "hc_test.h"

/* Sum of one key's volumes of one kind. */
static uint64_t sum(const struct an_prof *p, uint64_t sets, uint32_t peer, uint32_t kind,
                    uint32_t *nent)
{
	uint64_t s = 0;

	*nent = 0;
	for (uint32_t k = 0; k < p->rrow.n; k++) {
		const struct rrow_ent *e = &p->rrow.e[k];
		if (e->sets != sets || e->peer != peer || (e->vk & 1) != kind)
			continue;
		CHECK((e->vk >> 1) <= RROW_VMAX);
		s += e->vk >> 1;
		(*nent)++;
	}
	return s;
}

int main(void)
{
	uint32_t n;
	struct an an;
	struct regions *reg = (struct regions *)&n;   /* only tested for NULL */
	struct an_prof p;
	uint64_t big = 5000000000ull, want[4][2];

	memset(&an, 0, sizeof(an));
	memset(&p, 0, sizeof(p));

	/* No regions: nothing is kept. */
	CHECK(regions__add(&an, &p, 12, 3, 10, 0) == 0);
	CHECK(p.rrow.n == 0);
	an.reg = reg;

	/* 5e9 bytes of true sharing: three entries, none above RROW_VMAX. */
	CHECK(regions__add(&an, &p, 12, 3, big, 0) == 0);
	CHECK_EQ_U64(sum(&p, 12, 3, 0, &n), big);
	CHECK(n == 3);
	/* More of both kinds on the same key: the true part joins the last
	   entry, the false part is an entry of its own; weightless events are
	   not kept. */
	CHECK(regions__add(&an, &p, 12, 3, 10, 20) == 0);
	CHECK(regions__add(&an, &p, 12, 3, 0, 0) == 0);
	CHECK_EQ_U64(sum(&p, 12, 3, 0, &n), big + 10);
	CHECK(n == 3);
	CHECK_EQ_U64(sum(&p, 12, 3, 1, &n), 20);
	CHECK(n == 1);
	/* Another code pair, the same peer: apart. */
	CHECK(regions__add(&an, &p, 4, 3, 0, 7) == 0);
	CHECK_EQ_U64(sum(&p, 4, 3, 1, &n), 7);
	CHECK_EQ_U64(sum(&p, 12, 3, 1, &n), 20);

	/* Many events over a few keys, interleaved so that the cache misses
	   and the array is compacted: the sums per key and kind stay. */
	memset(want, 0, sizeof(want));
	for (uint32_t i = 0; i < 200000; i++) {
		uint32_t key = (i * 7919u) % 4, g = 4 + key;
		uint64_t t = i % 3 ? (uint64_t)i * 400 : 0, f = i % 5 ? 0 : i;

		CHECK(regions__add(&an, &p, g, 100 + key, t, f) == 0);
		want[key][0] += t;
		want[key][1] += f;
	}
	CHECK(regions__profile_done(&p) == 0);
	CHECK(p.rrow.cache == NULL);
	for (uint32_t key = 0; key < 4; key++) {
		uint64_t sets = 4 + key;
		CHECK_EQ_U64(sum(&p, sets, 100 + key, 0, &n), want[key][0]);
		/* merged up to RROW_VMAX: at most twice the fewest entries, plus one */
		CHECK_MSG(n <= 2 * (want[key][0] / RROW_VMAX) + 2, "key %u: %u true entries", key, n);
		CHECK_EQ_U64(sum(&p, sets, 100 + key, 1, &n), want[key][1]);
	}
	CHECK_MSG(p.rrow.n < 20000, "%u entries for 200000 events on 4 keys", p.rrow.n);
	regions__rrow_free(&p.rrow);
	CHECK(p.rrow.e == NULL && p.rrow.n == 0 && !p.rrow.mapped);

	/* A profile of many events: its array reserved up front is a mapping of
	   its own (RROW_MAP), kept when trimmed to a size still that large,
	   copied to the heap when trimmed below it; the entries stay. */
	for (uint32_t keys = 30000; keys; keys = keys == 30000 ? 1000 : 0) {
		CHECK(regions__reserve(&an, &p, 1, 100000) == 0);
		CHECK(p.rrow.mapped && p.rrow.cap == REGIONS_RESERVE && p.rrow.wk == 1);
		for (uint32_t i = 0; i < keys; i++)
			CHECK(regions__add(&an, &p, i, 7, i + 1, 0) == 0);
		CHECK(regions__profile_done(&p) == 0);
		CHECK(p.rrow.n == keys && p.rrow.cap == keys);
		CHECK(p.rrow.mapped == (keys == 30000));
		for (uint32_t i = 0; i < keys; i += 997)
			CHECK_EQ_U64(sum(&p, i, 7, 0, &n), i + 1);
		regions__rrow_free(&p.rrow);
	}
	return hc_test_done("test_rrow");
}
