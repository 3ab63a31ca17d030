/* SPDX-License-Identifier: BSD-3-Clause */
/* write_regions.c — writing regions.xml (the code regions' tree and totals)
   and regions.csv (their sparse thread matrices, HC_DB_REGION_HEADER), see
   doc/regions.md and doc/database-format.md, from the kept regions the
   analyzer hands over in document order. The reader's twin is
   read_regions.c. No signal context. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/write.h"
#include "support/out.h"

static void put_totals(struct hc_out *o, const char *pre, uint64_t tru, uint64_t fal,
                       uint64_t self)
{
	char name[32];

	snprintf(name, sizeof(name), "%strue", pre);
	hc_db_attr_u64(o, name, tru);
	snprintf(name, sizeof(name), "%sfalse", pre);
	hc_db_attr_u64(o, name, fal);
	snprintf(name, sizeof(name), "%sself", pre);
	hc_db_attr_u64(o, name, self);
}

/* Region k's inclusive cells are written as its parent's (cells="parent") */
static bool by_parent(const struct hc_db_wregion *r)
{
	return r->cells_parent && r->parent != UINT32_MAX;
}

/* ... or as an earlier region's (cells="K", version 3) */
static bool by_earlier(const struct hc_db_wregion *r, uint32_t k)
{
	return !by_parent(r) && r->cells_as && r->cells_as - 1 < k;
}

static bool any_as(const struct hc_db_wregions *R)
{
	for (uint32_t k = 0; k < R->n; k++)
		if (by_earlier(&R->r[k], k))
			return true;
	return false;
}

static uint64_t cells_hash(const struct hc_db_mcell *c, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;

	for (uint32_t k = 0; k < n; k++) {
		h = (h ^ ((uint64_t)c[k].i << 32 | c[k].j)) * 0xff51afd7ed558ccdULL;
		h = (h ^ c[k].v[0]) * 0xc4ceb9fe1a85ec53ULL;
		h = (h ^ c[k].v[1]) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	return h;
}

uint32_t hc_db_region_share(struct hc_db_wregion *r, uint32_t n)
{
	uint64_t *h = calloc(n ? n : 1, sizeof(*h));
	bool *hashed = calloc(n ? n : 1, sizeof(*hashed));
	uint32_t k, q, shared = 0;

	for (k = 0; k < n; k++)
		r[k].cells_as = 0;
	if (!h || !hashed)
		goto out;   /* nothing shared: the rows are written in full */
	for (k = 1; k < n; k++) {
		if (r[k].cells_parent || !r[k].ncells)
			continue;
		for (q = 0; q < k; q++) {
			/* the first earlier region of the same cells that names no
			   other's by number (the reader resolves in document order);
			   hashed only when two counts agree */
			if (r[q].ncells != r[k].ncells || r[q].cells_as)
				continue;
			if (!hashed[k]) {
				h[k] = cells_hash(r[k].cells, r[k].ncells);
				hashed[k] = true;
			}
			if (!hashed[q]) {
				h[q] = cells_hash(r[q].cells, r[q].ncells);
				hashed[q] = true;
			}
			if (h[q] != h[k])
				continue;
			if (r[q].cells != r[k].cells &&
			    memcmp(r[q].cells, r[k].cells, (size_t)r[k].ncells * sizeof(*r[k].cells)))
				continue;
			r[k].cells_as = q + 1;
			shared++;
			break;
		}
	}
out:
	free(h);
	free(hashed);
	return shared;
}

int hc_db_write_regions(const char *dir, const struct hc_db_wregions *R, char *err,
                        size_t errlen)
{
	struct hc_out o;
	uint32_t k, depth = 0, *open = NULL;
	int ret;

	ret = hc_out_open(&o, dir, HC_DB_REGIONS, err, errlen);
	if (ret)
		return ret;
	open = malloc((R->n + 1) * sizeof(*open));
	if (!open) {
		char scratch[8];
		hc_out_close(&o, false, scratch, sizeof(scratch));
		snprintf(err, errlen, "out of memory writing %s", HC_DB_REGIONS);
		return -ENOMEM;
	}
	hc_out_puts(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<" HC_DB_ROOT_REGIONS);
	/* version 3 only when a region names another's cells (cells="K"): a
	   database without stays readable by the readers of version 2 */
	hc_db_attr_u64(&o, "version", any_as(R) ? HC_DB_REGIONS_VERSION : 2);
	hc_db_attr_str(&o, "unit", hc_db_unit_name(R->unit));
	hc_out_printf(&o, " threshold=\"%g\"", R->threshold);
	hc_db_attr_str(&o, "exclusive", HC_DB_REGION_EXCLUSIVE);
	hc_db_attr_str(&o, "matrices", HC_DB_REGION_MATRICES);
	hc_db_attr_u64(&o, "threads", R->threads);
	hc_out_puts(&o, ">\n");
	for (k = 0; k < R->n; k++) {
		const struct hc_db_wregion *r = &R->r[k];
		uint32_t d;

		while (depth > 0 && open[depth - 1] != r->parent) {
			depth--;
			for (d = 0; d <= depth; d++)
				hc_out_puts(&o, " ");
			hc_out_puts(&o, "</Region>\n");
		}
		for (d = 0; d <= depth; d++)
			hc_out_puts(&o, " ");
		hc_out_puts(&o, "<Region");
		hc_db_attr_u64(&o, "i", r->i);
		hc_db_attr_str(&o, "kind", hc_db_region_kind_name(r->kind));
		hc_db_attr_str(&o, "n", r->name);
		if (r->lm)
			hc_db_attr_str(&o, "lm", r->lm);
		if (r->file)
			hc_db_attr_str(&o, "f", r->file);
		if (r->line)
			hc_db_attr_u64(&o, "l", r->line);
		if (r->kind != HC_DB_REG_PROGRAM)
			hc_out_printf(&o, " addr=\"0x%llx\"", (unsigned long long)r->addr);
		if (r->kind == HC_DB_REG_LOOP) {
			hc_db_attr_u64(&o, "depth", r->depth);
			if (r->irreducible)
				hc_db_attr_str(&o, "irreducible", "1");
		}
		put_totals(&o, "", r->tru, r->fal, r->self);
		put_totals(&o, "x", r->xtru, r->xfal, r->xself);
		if (by_parent(r))
			hc_db_attr_str(&o, "cells", "parent");
		else if (by_earlier(r, k))
			hc_db_attr_u64(&o, "cells", R->r[r->cells_as - 1].i);
		hc_out_puts(&o, ">\n");
		open[depth++] = r->i;
	}
	while (depth > 0) {
		uint32_t d;
		depth--;
		for (d = 0; d <= depth; d++)
			hc_out_puts(&o, " ");
		hc_out_puts(&o, "</Region>\n");
	}
	hc_out_puts(&o, "</" HC_DB_ROOT_REGIONS ">\n");
	free(open);
	return hc_out_close(&o, true, err, errlen);
}

/* regions.csv is the largest file of a database with many regions (2 M
   rows at 256 threads on bench/prof-scale): rows are formatted two digits
   at a time into a 64 KB buffer written in one call. */
static inline char *put_u64(char *p, uint64_t v, char sep)
{
	p = hc_db_put_dec(p, v);
	*p++ = sep;
	return p;
}

struct csvbuf {
	struct hc_out *o;
	size_t n;
	/* "region,row," of the last row, formatted: the rows of a region's
	   matrix row repeat it (a thread's cells with its peers) */
	uint32_t preg, pi;
	unsigned plen;              /* 0: none */
	char pre[24];
	char b[65536];
};

static void csv_flush(struct csvbuf *c)
{
	if (c->n && fwrite(c->b, 1, c->n, c->o->f) != c->n && !c->o->err)
		c->o->err = errno ? errno : EIO;
	c->n = 0;
}

static void put_row(struct csvbuf *c, uint32_t reg, uint32_t i, uint32_t j, const uint64_t in[2],
                    const uint64_t ex[2])
{
	char *p;

	if (c->n > sizeof(c->b) - 192)
		csv_flush(c);
	p = c->b + c->n;
	if (!c->plen || c->preg != reg || c->pi != i) {
		char *q = put_u64(c->pre, reg, ',');
		q = put_u64(q, i, ',');
		c->plen = (unsigned)(q - c->pre);
		c->preg = reg;
		c->pi = i;
	}
	memcpy(p, c->pre, sizeof(c->pre));   /* the whole array: a fixed-size copy */
	p += c->plen;
	p = put_u64(p, j, ',');
	p = put_u64(p, in[0], ',');
	p = put_u64(p, in[1], ',');
	p = put_u64(p, ex[0], ',');
	p = put_u64(p, ex[1], '\n');
	c->n = (size_t)(p - c->b);
}

static inline bool cell_before(const struct hc_db_mcell *c, const struct hc_db_mcell *x)
{
	return c->i < x->i || (c->i == x->i && c->j < x->j);
}

/* The first of cells[a..n) not before x (both sorted by (i, j)), by
   galloping from a: the exclusive cells of a region with cells="parent"
   are few against its parent's inclusive ones (48 K of 1.06 M on
   bench/prof-scale's 256 threads), which are not walked one by one. */
static uint32_t seek_cell(const struct hc_db_mcell *cells, uint32_t a, uint32_t n,
                          const struct hc_db_mcell *x)
{
	uint32_t step = 1, lo = a, hi;

	while (lo + step < n && cell_before(&cells[lo + step], x)) {
		lo += step;
		step *= 2;
	}
	/* cells[lo] is before x unless lo == a; the answer is in (lo, lo + step] */
	if (lo == a && (a >= n || !cell_before(&cells[a], x)))
		return a;
	hi = lo + step < n ? lo + step : n;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cell_before(&cells[mid], x))
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

int hc_db_write_region_matrices(const char *dir, const struct hc_db_wregions *R, char *err,
                                size_t errlen)
{
	struct hc_out o;
	struct csvbuf *c;
	uint32_t k;
	int ret;

	c = malloc(sizeof(*c));
	if (!c) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_REGION_MATRICES);
		return -ENOMEM;
	}
	ret = hc_out_open(&o, dir, HC_DB_REGION_MATRICES, err, errlen);
	if (ret) {
		free(c);
		return ret;
	}
	c->o = &o;
	c->n = 0;
	c->plen = 0;
	hc_out_puts(&o, HC_DB_REGION_HEADER "\n");
	for (k = 0; k < R->n; k++) {
		const struct hc_db_wregion *r = &R->r[k];
		uint32_t a = 0, b = 0;
		static const uint64_t zero[2];

		/* cells="parent": the inclusive cells are read from the parent's
		   rows; only the exclusive ones are written (54 % fewer rows on
		   bench/prof-scale, doc/performance.md), each with its inclusive
		   value. cells="K" (version 3) the same with region K's rows. */
		if (by_parent(r) || by_earlier(r, k)) {
			for (b = 0; b < r->nxcells; b++) {
				const struct hc_db_mcell *y = &r->xcells[b];

				a = seek_cell(r->cells, a, r->ncells, y);
				if (a < r->ncells && r->cells[a].i == y->i && r->cells[a].j == y->j)
					put_row(c, k, y->i, y->j, r->cells[a].v, y->v);
			}
			continue;
		}
		/* The exclusive cells are a subset of the inclusive ones. */
		for (a = 0; a < r->ncells; a++) {
			const struct hc_db_mcell *x = &r->cells[a];
			const uint64_t *ex = zero;

			while (b < r->nxcells && (r->xcells[b].i < x->i ||
			                          (r->xcells[b].i == x->i && r->xcells[b].j < x->j)))
				b++;
			if (b < r->nxcells && r->xcells[b].i == x->i && r->xcells[b].j == x->j)
				ex = r->xcells[b].v;
			put_row(c, k, x->i, x->j, x->v, ex);
		}
	}
	csv_flush(c);
	free(c);
	return hc_out_close(&o, true, err, errlen);
}
