/* SPDX-License-Identifier: BSD-3-Clause */
/* hmap.c — the analyzer's tables: a hash set of three-word keys with dense
   indexes (the calling-context trees and every aggregate are built on it), sums
   by key, and interned strings. Open addressing with linear probing over a
   power-of-two slot array; a slot holds index + 1 and the high half of the
   key's hash, so probing past other keys rarely touches the key array (a cache
   miss each). Keys live in a dense array in insertion order, so iteration is a
   plain loop and values are parallel arrays. Not thread-safe: each table has
   one owner at a time. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

int an__grow(void *pp, uint32_t *cap, uint32_t need, size_t el)
{
	void **p = pp;
	uint64_t ncap = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX)
		ncap = UINT32_MAX;
	if (ncap < need)
		return -ENOMEM;
	np = realloc(*p, (size_t)ncap * el);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = (uint32_t)ncap;
	return 0;
}

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static inline uint64_t rotl(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

/* Three multiplies spread each word, one finalizer mixes them: cheaper than
   chaining finalizers, and the slot index (low bits) and the slot tag (high
   bits) both depend on every key bit. */
uint64_t an__hash(const struct hkey *k)
{
	return mix64(k->a * 0x9e3779b97f4a7c15ULL ^ rotl(k->b * 0xc2b2ae3d27d4eb4fULL, 29) ^
	             rotl(k->c * 0x165667b19e3779f9ULL, 43));
}

static int slots_resize(uint32_t **slots, uint32_t *mask, uint32_t nslots)
{
	uint32_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	free(*slots);
	*slots = s;
	*mask = nslots - 1;
	return 0;
}

static int slots64_resize(uint64_t **slots, uint32_t *mask, uint32_t nslots)
{
	uint64_t *s = calloc(nslots, sizeof(*s));

	if (!s)
		return -ENOMEM;
	free(*slots);
	*slots = s;
	*mask = nslots - 1;
	return 0;
}

#define SLOT(idx, h) ((uint64_t)((idx) + 1) | ((h) & 0xffffffff00000000ULL))
#define SLOT_IDX(s)  ((uint32_t)(s) - 1)
#define SLOT_TAG(s)  ((s) & 0xffffffff00000000ULL)

int hmap__init(struct hmap *h, uint32_t hint)
{
	uint32_t n = 16;

	memset(h, 0, sizeof(*h));
	while (n < hint * 2 && n < (1u << 30))
		n *= 2;
	return slots64_resize(&h->slots, &h->mask, n);
}

void hmap__free(struct hmap *h)
{
	free(h->slots);
	free(h->keys);
	memset(h, 0, sizeof(*h));
}

static int hmap_rehash(struct hmap *h)
{
	uint32_t i, nslots = (h->mask + 1) * 2;
	int ret;

	if (nslots == 0 || nslots > (1u << 31))
		return -ENOMEM;
	ret = slots64_resize(&h->slots, &h->mask, nslots);
	if (ret)
		return ret;
	for (i = 0; i < h->n; i++) {
		uint64_t hv = an__hash(&h->keys[i]);
		uint32_t s = (uint32_t)hv & h->mask;
		while (h->slots[s])
			s = (s + 1) & h->mask;
		h->slots[s] = SLOT(i, hv);
	}
	return 0;
}

static inline bool key_eq(const struct hkey *x, const struct hkey *y)
{
	return x->a == y->a && x->b == y->b && x->c == y->c;
}

bool hmap__find(const struct hmap *h, const struct hkey *k, uint32_t *idx)
{
	uint64_t hv = an__hash(k), tag = SLOT_TAG(hv);
	uint32_t s = (uint32_t)hv & h->mask;

	while (h->slots[s]) {
		uint64_t v = h->slots[s];
		if (SLOT_TAG(v) == tag && key_eq(&h->keys[SLOT_IDX(v)], k)) {
			*idx = SLOT_IDX(v);
			return true;
		}
		s = (s + 1) & h->mask;
	}
	return false;
}

int hmap__intern(struct hmap *h, const struct hkey *k, uint32_t *idx)
{
	uint64_t hv = an__hash(k), tag = SLOT_TAG(hv);
	uint32_t s = (uint32_t)hv & h->mask;
	int ret;

	while (h->slots[s]) {
		uint64_t v = h->slots[s];
		if (SLOT_TAG(v) == tag && key_eq(&h->keys[SLOT_IDX(v)], k)) {
			*idx = SLOT_IDX(v);
			return 0;
		}
		s = (s + 1) & h->mask;
	}
	if (h->n == UINT32_MAX - 1)
		return -ENOMEM;
	ret = an__grow(&h->keys, &h->cap, h->n + 1, sizeof(*h->keys));
	if (ret)
		return ret;
	h->keys[h->n] = *k;
	h->slots[s] = SLOT(h->n, hv);
	*idx = h->n++;
	/* Keep the load factor at or below 1/2. */
	if ((uint64_t)h->n * 2 > (uint64_t)h->mask + 1) {
		ret = hmap_rehash(h);
		if (ret) {
			/* Undo: slot s was the empty end of its probe chain. */
			h->slots[s] = 0;
			h->n--;
			return ret;
		}
	}
	return 1;
}

int agg__init(struct agg *g, uint32_t hint)
{
	memset(g, 0, sizeof(*g));
	return hmap__init(&g->h, hint);
}

void agg__free(struct agg *g)
{
	hmap__free(&g->h);
	free(g->v);
	memset(g, 0, sizeof(*g));
}

int agg__add(struct agg *g, const struct hkey *k, uint64_t v0, uint64_t v1)
{
	uint32_t i;

	return agg__add_at(g, k, v0, v1, &i);
}

int agg__add_at(struct agg *g, const struct hkey *k, uint64_t v0, uint64_t v1, uint32_t *idx)
{
	uint32_t i;
	int ret = hmap__intern(&g->h, k, &i);

	if (ret < 0)
		return ret;
	if (ret == 1) {
		int r = an__grow(&g->v, &g->vcap, g->h.n, sizeof(*g->v));
		if (r)
			return r;
		g->v[i][0] = 0;
		g->v[i][1] = 0;
	}
	g->v[i][0] += v0;
	g->v[i][1] += v1;
	*idx = i;
	return 0;
}

/* ---- interned strings ---- */

static uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;   /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return mix64(h);
}

int strtab__init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
	return slots_resize(&t->slots, &t->mask, 64);
}

void strtab__free(struct strtab *t)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

bool strtab__find(const struct strtab *t, const char *s, uint32_t *id)
{
	uint32_t k = (uint32_t)str_hash(s) & t->mask;

	while (t->slots[k]) {
		uint32_t i = t->slots[k] - 1;
		if (strcmp(t->s[i], s) == 0) {
			*id = i;
			return true;
		}
		k = (k + 1) & t->mask;
	}
	return false;
}

int strtab__intern(struct strtab *t, const char *s, uint32_t *id)
{
	uint32_t k, i;
	char *copy;
	int ret;

	if (strtab__find(t, s, id))
		return 0;
	ret = an__grow(&t->s, &t->cap, t->n + 1, sizeof(*t->s));
	if (ret)
		return ret;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	if ((uint64_t)(t->n + 1) * 2 > (uint64_t)t->mask + 1) {
		uint32_t nslots = (t->mask + 1) * 2;
		ret = slots_resize(&t->slots, &t->mask, nslots);
		if (ret) {
			free(copy);
			return ret;
		}
		for (i = 0; i < t->n; i++) {
			k = (uint32_t)str_hash(t->s[i]) & t->mask;
			while (t->slots[k])
				k = (k + 1) & t->mask;
			t->slots[k] = i + 1;
		}
	}
	k = (uint32_t)str_hash(copy) & t->mask;
	while (t->slots[k])
		k = (k + 1) & t->mask;
	t->s[t->n] = copy;
	t->slots[k] = t->n + 1;
	*id = t->n++;
	return 1;
}
