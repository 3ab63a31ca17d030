/* SPDX-License-Identifier: BSD-3-Clause */
/* pairs.c — code pairs: which code communicated with which. Each worker
   aggregated its events by (global node, peer's global node), the peer's end
   resolved through the peer's own profile (HC_NONE when that profile is
   missing or the node does not exist); here both ends become experiment.xml
   nodes and are summed per unordered pair {c, p}, since "c detected p" and "p
   detected c" are the same conflict seen from either side. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

static int cmp_pair(const void *x, const void *y)
{
	const struct hc_db_wpair *a = x, *b = y;

	if (a->c != b->c)
		return a->c < b->c ? -1 : 1;
	return (a->p > b->p) - (a->p < b->p);
}

int pairs__collect(struct an *an, struct hc_db_wpair **out, uint32_t *nout)
{
	const uint32_t *of = an->view.of_cct;
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	struct hc_db_wpair *r = NULL;
	struct agg all;
	uint32_t i;
	unsigned w;
	int ret;

	*out = NULL;
	*nout = 0;
	ret = agg__init(&all, 1024);
	if (ret)
		return ret;
	for (w = 0; w < an->nworkers; w++) {
		const struct an_acc *a = &an->workers[w].acc[ui];

		if (!a->used)
			continue;
		for (i = 0; i < a->pairs.h.n; i++) {
			const struct hkey *k = &a->pairs.h.keys[i];
			uint32_t g = (uint32_t)k->a, gp = (uint32_t)k->b;
			uint32_t c = g == HC_NONE ? 0 : of[g], p = gp == HC_NONE ? 0 : of[gp];
			struct hkey key;

			if (c == 0) {
				c = p;
				p = 0;
			}
			if (c == 0)
				continue;   /* neither end has a context */
			if (p != 0 && p < c) {
				uint32_t x = p;
				p = c;
				c = x;
			}
			key = (struct hkey){ c, p, 0 };
			ret = agg__add(&all, &key, a->pairs.v[i][0], a->pairs.v[i][1]);
			if (ret)
				goto out;
		}
	}
	r = malloc((all.h.n ? all.h.n : 1) * sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < all.h.n; i++)
		r[i] = (struct hc_db_wpair){ .c = (uint32_t)all.h.keys[i].a, .p = (uint32_t)all.h.keys[i].b,
		                      .t = all.v[i][0], .f = all.v[i][1] };
	qsort(r, all.h.n, sizeof(*r), cmp_pair);
	*out = r;
	*nout = all.h.n;
out:
	agg__free(&all);
	return ret;
}
