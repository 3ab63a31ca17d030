/* SPDX-License-Identifier: BSD-3-Clause */
/* funcstart.c — which function contains a PC, for every loaded module.
   hc_funcs_update (outside signal context) takes the load map as plain data
   (the runtime's loadmap walks it; nothing here does), keeps the
   modules whose PT_GNU_EH_FRAME table we can read (ehframe.c), sorts them by
   text address and publishes the array as an immutable snapshot through one
   atomic pointer. hc_funcs_lookup (signal context) loads that pointer, binary
   searches the modules and then the module's own table: no lock, no
   allocation. A reader may still hold an older snapshot after a refresh, so
   snapshots are never freed: each new one links to its predecessor, which
   keeps them reachable (leak checkers stay quiet) and costs a few KiB per
   refresh that changed the module list. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "decode/ehframe.h"
#include "decode/funcstart.h"
#include "support/log.h"

struct module {
	uint64_t lo, hi;          /* executable PT_LOAD span, [lo, hi) */
	struct ehframe_table tab;
};

struct snapshot {
	const struct snapshot *older; /* kept alive for readers that still hold it */
	uint32_t gen;
	size_t n;
	struct module m[];
};

static const struct snapshot *current;
static pthread_mutex_t refresh_lock = PTHREAD_MUTEX_INITIALIZER;

/* Modules collected from the caller's list. */
struct collect {
	struct module *m;
	size_t n, cap;
	bool nomem;
};

static int collect_one(struct collect *c, const struct hc_code_module *cm)
{
	struct module mod;

	if (!cm->eh_frame_hdr || cm->xlo >= cm->xhi)
		return 0;
	/* The table and the records it points to lie in the module's mapped
	   segments; nothing outside them is ever read. */
	if (ehframe__open(&mod.tab, cm->eh_frame_hdr, cm->lo, cm->hi) != 0)
		return 0;
	mod.lo = cm->xlo;
	mod.hi = cm->xhi;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;
		struct module *m = realloc(c->m, cap * sizeof(*m));

		if (!m) {
			c->nomem = true;
			return 1;
		}
		c->m = m;
		c->cap = cap;
	}
	c->m[c->n++] = mod;
	return 0;
}

static int module_cmp(const void *a, const void *b)
{
	const struct module *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool same_modules(const struct snapshot *s, const struct module *m, size_t n)
{
	if (!s || s->n != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s->m[i].lo != m[i].lo || s->m[i].hi != m[i].hi ||
		    s->m[i].tab.hdr != m[i].tab.hdr || s->m[i].tab.count != m[i].tab.count ||
		    s->m[i].tab.lo != m[i].tab.lo || s->m[i].tab.hi != m[i].tab.hi)
			return false;
	return true;
}

int hc_funcs_update(const struct hc_code_module *cm, size_t ncm)
{
	struct collect c = { 0 };
	const struct snapshot *old;
	struct snapshot *s;
	int err = 0;

	pthread_mutex_lock(&refresh_lock);
	for (size_t i = 0; i < ncm && !c.nomem; i++)
		collect_one(&c, &cm[i]);
	if (c.nomem) {
		err = -ENOMEM;
		goto out_collect;
	}
	if (c.n)
		qsort(c.m, c.n, sizeof(*c.m), module_cmp);
	for (size_t i = 1; i < c.n; i++)
		HC_ASSERT(c.m[i - 1].lo <= c.m[i].lo);   /* lookup's binary search */
	old = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	if (same_modules(old, c.m, c.n))
		goto out_collect;
	s = malloc(sizeof(*s) + c.n * sizeof(s->m[0]));
	if (!s) {
		err = -ENOMEM;
		goto out_collect;
	}
	s->older = old;
	s->gen = old ? old->gen + 1 : 1;
	s->n = c.n;
	if (c.n)
		memcpy(s->m, c.m, c.n * sizeof(s->m[0]));
	/* Release: a reader that sees the pointer sees the filled array. */
	__atomic_store_n(&current, s, __ATOMIC_RELEASE);
out_collect:
	free(c.m);
	pthread_mutex_unlock(&refresh_lock);
	return err;
}

bool hc_funcs_lookup(uint64_t pc, uint64_t *start, uint64_t *end)
{
	const struct snapshot *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);
	size_t lo = 0, hi;

	if (!s)
		return false;
	/* Last module whose text starts at or below pc. */
	hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->m[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || pc >= s->m[lo - 1].hi)
		return false;
	return ehframe__lookup(&s->m[lo - 1].tab, pc, start, end);
}

uint32_t hc_funcs_generation(void)
{
	const struct snapshot *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);

	return s ? s->gen : 0;
}
