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

int pairs__each_at(const struct an *an,
                   int (*fn)(void *arg, unsigned w, uint32_t i, uint32_t g, uint32_t gp,
                             const uint64_t v[2]),
                   void *arg)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;

	for (unsigned w = 0; w < an->nworkers; w++) {
		const struct an_acc *a = &an->workers[w].acc[ui];

		if (!a->used)
			continue;
		for (uint32_t i = 0; i < a->pairs.h.n; i++) {
			const struct hkey *k = &a->pairs.h.keys[i];
			int ret = fn(arg, w, i, (uint32_t)k->a, (uint32_t)k->b, a->pairs.v[i]);

			if (ret)
				return ret;
		}
	}
	return 0;
}

struct each {
	int (*fn)(void *arg, uint32_t g, uint32_t gp, const uint64_t v[2]);
	void *arg;
};

static int each_one(void *arg, unsigned w, uint32_t i, uint32_t g, uint32_t gp, const uint64_t v[2])
{
	const struct each *e = arg;

	(void)w;
	(void)i;
	return e->fn(e->arg, g, gp, v);
}

int pairs__each(const struct an *an, int (*fn)(void *arg, uint32_t g, uint32_t gp, const uint64_t v[2]),
                void *arg)
{
	struct each e = { fn, arg };

	return pairs__each_at(an, each_one, &e);
}

struct collect {
	const uint32_t *of;
	struct agg all;
};

/* One code pair into the sums by view pair. */
static int collect_one(void *arg, uint32_t g, uint32_t gp, const uint64_t v[2])
{
	struct collect *cl = arg;
	uint32_t c = g == HC_NONE ? 0 : cl->of[g], p = gp == HC_NONE ? 0 : cl->of[gp];
	struct hkey key;

	if (c == 0) {
		c = p;
		p = 0;
	}
	if (c == 0)
		return 0;   /* neither end has a context */
	if (p != 0 && p < c) {
		uint32_t x = p;
		p = c;
		c = x;
	}
	key = (struct hkey){ c, p, 0 };
	return agg__add(&cl->all, &key, v[0], v[1]);
}

int pairs__collect(struct an *an, struct hc_db_wpair **out, uint32_t *nout)
{
	struct collect cl = { .of = an->view.of_cct };
	struct hc_db_wpair *r = NULL;
	uint32_t i;
	int ret;

	*out = NULL;
	*nout = 0;
	ret = agg__init(&cl.all, 1024);
	if (ret)
		return ret;
	ret = pairs__each(an, collect_one, &cl);
	if (ret)
		goto out;
	r = malloc((cl.all.h.n ? cl.all.h.n : 1) * sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < cl.all.h.n; i++)
		r[i] = (struct hc_db_wpair){ .c = (uint32_t)cl.all.h.keys[i].a, .p = (uint32_t)cl.all.h.keys[i].b,
		                      .t = cl.all.v[i][0], .f = cl.all.v[i][1] };
	qsort(r, cl.all.h.n, sizeof(*r), cmp_pair);
	*out = r;
	*nout = cl.all.h.n;
out:
	agg__free(&cl.all);
	return ret;
}
