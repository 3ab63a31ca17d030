/* SPDX-License-Identifier: BSD-3-Clause */
/* read_regions.c — regions.xml and regions.csv, the optional code-region
   files of a database (doc/database-format.md §8, doc/regions.md, schema
   doc/regions.xsd): the region tree (program, procedures, parallel
   regions, loops) as nested <Region> elements with their inclusive and
   exclusive totals, and one sparse thread matrix per region. Checked: ids
   in document order, one program region at the top, known kinds, cells
   inside the thread range, in order and exclusive <= inclusive, each
   region's cells summing to its totals, a child never above its parent,
   the root equal to the whole-program thread matrix and the exclusive
   totals of all regions summing to it. Without regions.xml has_regions
   stays false. No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"

#define MAX_DEPTH 4096

static bool known_kind(const char *k)
{
	return hc_db_region_kind_parse(k) >= 0;
}

static int load_region(struct load *ld, struct xr *x, size_t *cap, uint32_t *stack, int depth)
{
	struct hc_db *db = ld->db;
	struct hc_db_region *r;
	uint64_t v;
	char *irr = NULL, *cells = NULL;
	int rc;

	if (depth < 1 || depth >= MAX_DEPTH)
		return load__fail(ld, xr__line(x), "<Region> nested %d deep", depth);
	if (depth == 1 && db->nregions)
		return load__fail(ld, xr__line(x), "a second top-level <Region>");
	if (load__grow(&db->regions, cap, db->nregions, sizeof(*db->regions)))
		return -ENOMEM;
	r = &db->regions[db->nregions];
	memset(r, 0, sizeof(*r));
	db->nregions++;
	r->parent = depth == 1 ? HC_DB_NONE : stack[depth - 1];
	stack[depth] = (uint32_t)(db->nregions - 1);
	rc = xr__u64(x, "i", &r->i);
	if (!rc && r->i != db->nregions - 1)
		rc = load__fail(ld, xr__line(x), "<Region i=\"%llu\">: expected i=\"%zu\" (document "
		                 "order)", (unsigned long long)r->i, db->nregions - 1);
	if (!rc)
		rc = xr__str(x, "kind", &r->kind);
	if (!rc && !known_kind(r->kind))
		rc = load__fail(ld, xr__line(x), "<Region kind=\"%s\">: not program, procedure, "
		                 "parallel or loop", r->kind);
	if (!rc && (depth == 1) != (hc_db_region_kind_parse(r->kind) == HC_DB_REG_PROGRAM))
		rc = load__fail(ld, xr__line(x), "<Region kind=\"%s\"> at depth %d: the program is "
		                 "the one top-level region", r->kind, depth);
	if (!rc)
		rc = xr__str(x, "n", &r->name);
	if (!rc)
		rc = xr__str_opt(x, "lm", &r->lm);
	if (!rc)
		rc = xr__str_opt(x, "f", &r->file);
	if (!rc)
		rc = xr__i64_opt(x, "l", &r->line);
	if (!rc)
		rc = xr__i64_opt(x, "depth", &r->depth);
	if (!rc)
		rc = xr__str_opt(x, "irreducible", &irr);
	r->irreducible = irr && !strcmp(irr, "1");
	free(irr);
	if (!rc)
		rc = xr__str_opt(x, "cells", &cells);
	r->cells_of = HC_DB_NONE;
	if (!rc && cells && !strcmp(cells, "parent")) {
		if (depth == 1 || ld->regions_version < 2)
			rc = load__fail(ld, xr__line(x), "<Region cells=\"parent\">: only below the "
			                 "program, from version 2");
		r->cells_parent = true;
		r->cells_of = r->parent;
	} else if (!rc && cells) {
		/* version 3: the cells of an earlier region K, by its i */
		char *end;
		unsigned long long of = strtoull(cells, &end, 10);

		if (ld->regions_version < 3 || cells[0] < '0' || cells[0] > '9' || *end ||
		    of >= db->nregions - 1)
			rc = load__fail(ld, xr__line(x), "<Region cells=\"%s\">: \"parent\" (version 2) "
			                 "or the i of an earlier region (version 3) expected", cells);
		else
			r->cells_of = (uint32_t)of;
	}
	free(cells);
	if (!rc && xr__has(x, "addr")) {
		char *a = NULL, *end;
		rc = xr__str(x, "addr", &a);
		if (!rc) {
			r->addr = strtoull(a, &end, 16);
			if (strncmp(a, "0x", 2) || *end)
				rc = load__fail(ld, xr__line(x), "<Region addr=\"%s\">: not 0x<hex>", a);
		}
		free(a);
	}
	if (!rc)
		rc = xr__u64(x, "true", &r->tru);
	if (!rc)
		rc = xr__u64(x, "false", &r->fal);
	if (!rc)
		rc = xr__u64(x, "self", &r->self);
	if (!rc)
		rc = xr__u64(x, "xtrue", &r->xtru);
	if (!rc)
		rc = xr__u64(x, "xfalse", &r->xfal);
	if (!rc)
		rc = xr__u64(x, "xself", &r->xself);
	if (!rc && (r->xtru > r->tru || r->xfal > r->fal || r->xself > r->self))
		rc = load__fail(ld, xr__line(x), "<Region i=\"%llu\">: exclusive above inclusive",
		                 (unsigned long long)r->i);
	if (!rc && r->parent != HC_DB_NONE) {
		const struct hc_db_region *p = &db->regions[r->parent];
		if (r->tru > p->tru || r->fal > p->fal || r->self > p->self)
			rc = load__fail(ld, xr__line(x), "<Region i=\"%llu\">: inclusive totals above "
			                 "its parent's", (unsigned long long)r->i);
	}
	(void)v;
	return rc;
}

/* One row "r,i,j,t,f,xt,xf\n" of unsigned decimals (the writer's form:
   no quotes, no spaces), from *pp; false on anything else. A database of
   many regions has millions of rows: this is the reader's hot loop. */
static bool parse_row(const char **pp, const char *end, uint64_t v[7])
{
	const char *p = *pp;

	for (int k = 0; k < 7; k++) {
		uint64_t x = 0;
		const char *s = p;

		while (p < end && *p >= '0' && *p <= '9') {
			unsigned d = (unsigned)(*p - '0');
			if (x > UINT64_MAX / 10 || (x == UINT64_MAX / 10 && d > UINT64_MAX % 10))
				return false;
			x = x * 10 + d;
			p++;
		}
		if (p == s)
			return false;
		v[k] = x;
		if (k < 6) {
			if (p >= end || *p != ',')
				return false;
			p++;
		}
	}
	if (p < end && *p == '\n')
		p++;
	else if (p != end)
		return false;
	*pp = p;
	return true;
}

static int read_cells(struct load *ld)
{
	struct hc_db *db = ld->db;
	struct csv c;
	size_t cap = 0, reg = 0;
	uint64_t last_i = 0, last_j = 0, *sums;
	bool first = true;
	int rc;

	rc = csv__open(&c, ld, db->regions_matrices);
	if (rc)
		return rc;
	sums = calloc(db->nregions * 4, sizeof(*sums));
	if (!sums) {
		csv__close(&c);
		return -ENOMEM;
	}
	rc = csv__next(&c, ld);
	if (rc == 1) {
		char head[128] = "";
		for (size_t k = 0; k < c.nf; k++)
			snprintf(head + strlen(head), sizeof(head) - strlen(head), "%s%s", k ? "," : "",
			         c.f[k]);
		rc = strcmp(head, HC_DB_REGION_HEADER) ? load__fail(ld, c.line, "header '%s', expected "
		                 "'%s'", head, HC_DB_REGION_HEADER) : 0;
	} else if (rc == 0) {
		rc = load__fail(ld, 1, "empty file, expected the header " HC_DB_REGION_HEADER);
	}
	const char *p = c.buf + c.pos, *end = c.buf + c.len;
	long line = c.next_line;

	for (; !rc && p < end; line++) {
		uint64_t v[7];
		struct hc_db_region *r;

		c.line = line;
		if (!parse_row(&p, end, v)) {
			const char *e = memchr(p, '\n', (size_t)(end - p));
			rc = load__fail(ld, c.line, "'%.*s': expected 7 unsigned integers (%s)",
			                 (int)((e ? e : end) - p > 80 ? 80 : (e ? e : end) - p), p,
			                 HC_DB_REGION_HEADER);
			break;
		}
		if (v[0] >= db->nregions || v[1] >= v[2] || v[2] >= db->nthreads) {
			rc = load__fail(ld, c.line, "cell (%llu, %llu) of region %llu: needs region < %zu "
			                 "and row < column < %zu threads", (unsigned long long)v[1],
			                 (unsigned long long)v[2], (unsigned long long)v[0], db->nregions,
			                 db->nthreads);
			break;
		}
		if (!first && (v[0] < reg || (v[0] == reg && (v[1] < last_i ||
		                                               (v[1] == last_i && v[2] <= last_j))))) {
			rc = load__fail(ld, c.line, "rows not sorted by (region, row, column)");
			break;
		}
		if (v[5] > v[3] || v[6] > v[4]) {
			rc = load__fail(ld, c.line, "exclusive above inclusive");
			break;
		}
		if (v[0] != reg || first)
			cap = 0;
		first = false;
		reg = v[0];
		last_i = v[1];
		last_j = v[2];
		r = &db->regions[reg];
		if (load__grow(&r->cells, &cap, r->ncells, sizeof(*r->cells))) {
			rc = -ENOMEM;
			break;
		}
		r->cells[r->ncells++] = (struct hc_db_rcell){ (uint32_t)v[1], (uint32_t)v[2], v[3], v[4],
		                                              v[5], v[6] };
		for (int k = 0; k < 4; k++)
			sums[reg * 4 + k] += v[3 + k];
	}
	/* cells="parent" / cells="K": that region's inclusive cells (complete:
	   it comes first), with the exclusive parts of the region's own rows. */
	for (size_t i = 0; i < db->nregions && !rc; i++) {
		struct hc_db_region *r = &db->regions[i];
		const struct hc_db_region *par;
		const char *how = r->cells_parent ? "cells=\"parent\"" : "cells=\"K\"";
		struct hc_db_rcell *n;
		size_t q = 0;

		if (r->cells_of == HC_DB_NONE)
			continue;
		par = &db->regions[r->cells_of];
		n = malloc((par->ncells ? par->ncells : 1) * sizeof(*n));
		if (!n) {
			rc = -ENOMEM;
			break;
		}
		sums[i * 4] = sums[i * 4 + 1] = 0;
		for (size_t k = 0; k < par->ncells; k++) {
			n[k] = (struct hc_db_rcell){ par->cells[k].i, par->cells[k].j, par->cells[k].tru,
			                             par->cells[k].fal, 0, 0 };
			sums[i * 4] += n[k].tru;
			sums[i * 4 + 1] += n[k].fal;
			if (q < r->ncells && r->cells[q].i == n[k].i && r->cells[q].j == n[k].j) {
				if (r->cells[q].tru != n[k].tru || r->cells[q].fal != n[k].fal)
					rc = load__fail(ld, 0, "region %zu (%s, region %u): cell (%u, %u) is "
					                 "not that region's", i, how, r->cells_of, n[k].i, n[k].j);
				n[k].xtru = r->cells[q].xtru;
				n[k].xfal = r->cells[q].xfal;
				q++;
			}
		}
		if (!rc && q < r->ncells)
			rc = load__fail(ld, 0, "region %zu (%s, region %u): cell (%u, %u) is not one "
			                 "of that region's", i, how, r->cells_of, r->cells[q].i, r->cells[q].j);
		free(r->cells);
		r->cells = n;
		r->ncells = par->ncells;
	}
	for (size_t i = 0; i < db->nregions && !rc; i++) {
		const struct hc_db_region *r = &db->regions[i];
		if (sums[i * 4] != r->tru || sums[i * 4 + 1] != r->fal || sums[i * 4 + 2] != r->xtru ||
		    sums[i * 4 + 3] != r->xfal)
			rc = load__fail(ld, 0, "the cells of region %zu do not sum to its totals in "
			                 HC_DB_REGIONS, i);
	}
	free(sums);
	csv__close(&c);
	return rc;
}

static int check_totals(struct load *ld)
{
	struct hc_db *db = ld->db;
	const struct hc_db_region *root = &db->regions[0];
	uint64_t xt = 0, xf = 0, xs = 0;

	load__file(ld, HC_DB_REGIONS);
	if (root->tru != db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_TRUE].total ||
	    root->fal != db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_FALSE].total ||
	    root->self != db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_ALL].diagonal)
		return load__fail(ld, 0, "the program region (%llu true, %llu false, %llu self) is not "
		                   "the thread matrix (%llu, %llu, %llu)", (unsigned long long)root->tru,
		                   (unsigned long long)root->fal, (unsigned long long)root->self,
		                   (unsigned long long)db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_TRUE].total,
		                   (unsigned long long)db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_FALSE].total,
		                   (unsigned long long)db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_ALL].diagonal);
	for (size_t i = 0; i < db->nregions; i++) {
		xt += db->regions[i].xtru;
		xf += db->regions[i].xfal;
		xs += db->regions[i].xself;
	}
	if (xt != root->tru || xf != root->fal || xs != root->self)
		return load__fail(ld, 0, "the exclusive totals of the regions do not sum to the "
		                   "program's");
	return 0;
}

int read__regions(struct load *ld)
{
	struct hc_db *db = ld->db;
	uint32_t *stack = NULL;
	size_t cap = 0;
	struct xr *x;
	int rc;

	rc = xr__open(&x, ld, HC_DB_REGIONS, true);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	stack = malloc(MAX_DEPTH * sizeof(*stack));
	if (!stack) {
		xr__close(x);
		return -ENOMEM;
	}
	db->has_regions = true;
	while ((rc = xr__next(x)) > 0) {
		const char *name = xr__name(x);
		rc = 0;
		if (xr__depth(x) == 0) {
			uint64_t version;
			char *unit = NULL;
			if (strcmp(name, HC_DB_ROOT_REGIONS)) {
				rc = load__fail(ld, xr__line(x), "root element is <%s>, expected <Regions>",
				                 name);
				break;
			}
			if ((rc = xr__u64(x, "version", &version)))
				break;
			if (version < 1 || version > HC_DB_REGIONS_VERSION) {
				rc = load__fail(ld, xr__line(x), "format version %llu, this reader reads "
				                 "versions 1 to %d", (unsigned long long)version,
				                 HC_DB_REGIONS_VERSION);
				break;
			}
			ld->regions_version = (int)version;
			if ((rc = xr__str(x, "unit", &unit)))
				break;
			if (strcmp(unit, db->unit))
				rc = load__fail(ld, xr__line(x), "unit '%s', but database.xml says '%s'",
				                 unit, db->unit);
			free(unit);
			if (!rc)
				rc = xr__str(x, "matrices", &db->regions_matrices);
			if (!rc && (strchr(db->regions_matrices, '/') || db->regions_matrices[0] == '.'))
				rc = load__fail(ld, xr__line(x), "matrices=\"%s\": a file name in the "
				                 "database is expected", db->regions_matrices);
			if (!rc)
				rc = xr__str_opt(x, "exclusive", &db->regions_exclusive);
		} else if (!strcmp(name, "Region")) {
			rc = load_region(ld, x, &cap, stack, xr__depth(x));
		}
		if (rc)
			break;
	}
	xr__close(x);
	free(stack);
	if (!rc && !db->nregions)
		rc = load__fail(ld, 0, "no <Region>: the program region is required");
	if (!rc && !ld->skip_region_cells)
		rc = read_cells(ld);
	if (!rc)
		rc = check_totals(ld);
	return rc;
}
