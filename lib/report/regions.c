/* SPDX-License-Identifier: BSD-3-Clause */
/* regions.c — the code-region reports (doc/regions.md) from lib/db's model:
   finding a region by NAME or FILE:LINE (hpcprof-comm --region), one
   region's matrix as text, and the "regions" member of the JSON model
   (report.html's region browser reads it). No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/json.h"

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');

	return b && b[1] ? b + 1 : p;
}

/* FILE matches a region's file: the same path, the same basename, or a
   path suffix at a '/' boundary. */
static bool file_matches(const char *want, const char *have)
{
	size_t lw = strlen(want), lh = strlen(have);

	if (!strcmp(want, have) || !strcmp(want, base_name(have)))
		return true;
	return lh > lw && !strcmp(have + lh - lw, want) && have[lh - lw - 1] == '/';
}

#define REGION_SLACK 3

int hc_report_region_find(const struct hc_db *db, const char *spec, size_t *idx, char *err,
                          size_t errlen)
{
	const char *colon = strrchr(spec, ':');
	char *end = NULL, *file = NULL;
	long line = -1;
	size_t k, found = SIZE_MAX, nfound = 0;

	if (!db->has_regions || !db->nregions) {
		snprintf(err, errlen, "%s: no code regions in this database (no %s; written by "
		         "hpcprof-comm since issue 18)", db->dir, HC_DB_REGIONS);
		return -ENOENT;
	}
	if (colon && colon[1] && colon > spec) {
		line = strtol(colon + 1, &end, 10);
		if (*end || line <= 0)
			line = -1;
	}
	if (line > 0) {
		file = strndup(spec, (size_t)(colon - spec));
		if (!file)
			return -ENOMEM;
	}
	/* By name first (a name may hold "file:line"), then FILE:LINE: the
	   innermost region at that line (loops before their procedure). */
	for (k = 0; k < db->nregions; k++)
		if (!strcmp(db->regions[k].name, spec)) {
			if (!nfound++)
				found = k;
		}
	/* FILE:LINE: the innermost region at that line; else the closest
	   region starting up to REGION_SLACK lines below (a loop is named by
	   its loop control's line, which for a vectorised or rotated loop can
	   be the first statement of its body: doc/regions.md). */
	for (long d = 0; !nfound && file && d <= REGION_SLACK; d++)
		for (k = 0; k < db->nregions; k++) {
			const struct hc_db_region *r = &db->regions[k];
			if (r->file && r->line == line + d && file_matches(file, r->file)) {
				found = k;   /* document order: the innermost comes last */
				nfound = 1;
			}
		}
	if (!nfound) {
		size_t n = 0, shown = 0;

		n += (size_t)snprintf(err, errlen, "no region named '%s'%s; regions:", spec,
		                      file ? " or at that FILE:LINE" : "");
		for (k = 1; k < db->nregions && n < errlen && shown < 12; k++, shown++) {
			const struct hc_db_region *r = &db->regions[k];
			if (r->file && r->line > 0)
				n += (size_t)snprintf(err + n, errlen - n, " '%s' (%s:%lld);", r->name,
				                      base_name(r->file), (long long)r->line);
			else
				n += (size_t)snprintf(err + n, errlen - n, " '%s';", r->name);
		}
		if (k < db->nregions && n < errlen)
			snprintf(err + n, errlen - n, " ... (%zu in all, %s)", db->nregions - 1,
			         HC_DB_REGIONS);
		free(file);
		return -ENOENT;
	}
	free(file);
	*idx = found;
	return 0;
}

static void path_of(const struct hc_db *db, size_t k, FILE *f)
{
	uint32_t chain[64];
	size_t n = 0;

	for (uint32_t x = db->regions[k].parent; x != HC_DB_NONE && n < 64; x = db->regions[x].parent)
		chain[n++] = x;
	while (n-- > 0)
		fprintf(f, "%s > ", db->regions[chain[n]].name);
	fprintf(f, "%s", db->regions[k].name);
}

static int cmp_cell(const void *a, const void *b)
{
	const struct hc_db_rcell *x = a, *y = b;
	uint64_t u = x->tru + x->fal, v = y->tru + y->fal;

	if (u != v)
		return u > v ? -1 : 1;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return (x->j > y->j) - (x->j < y->j);
}

#define GRID_MAX 16u
#define PAIRS_MAX 30u

int hc_report_region_text(const struct hc_db *db, size_t k, FILE *f)
{
	const struct hc_db_region *r = &db->regions[k], *root = &db->regions[0];
	uint64_t tot = root->tru + root->fal + root->self;
	uint64_t in = r->tru + r->fal + r->self, ex = r->xtru + r->xfal + r->xself;
	char a[32], b[32], c[32], p1[16], p2[16], lab1[128], lab2[128];
	struct hc_db_rcell *cells;
	uint32_t n = (uint32_t)db->nthreads;

	fprintf(f, "Region %zu: %s\n  kind       %s%s\n", k, r->name, r->kind,
	        r->irreducible ? " (irreducible: entered at more than one place)" : "");
	if (r->file)
		fprintf(f, "  source     %s:%lld\n", r->file, (long long)r->line);
	if (r->lm)
		fprintf(f, "  module     %s (0x%llx)\n", r->lm, (unsigned long long)r->addr);
	fputs("  path       ", f);
	path_of(db, k, f);
	fprintf(f, "\n  inclusive  %s (%s of the program): true %s, false %s, same thread %s\n",
	        hc_report_value(a, sizeof(a), in, db->unit), hc_report_pct(p1, sizeof(p1), in, tot),
	        hc_report_value(b, sizeof(b), r->tru, db->unit),
	        hc_report_value(c, sizeof(c), r->fal, db->unit),
	        hc_report_value(lab1, sizeof(lab1), r->self, db->unit));
	fprintf(f, "  exclusive  %s (%s): the detecting side's innermost region is this one\n",
	        hc_report_value(a, sizeof(a), ex, db->unit), hc_report_pct(p2, sizeof(p2), ex, tot));
	fprintf(f, "  unit       %s; an event counts here when either side's calling context passes "
	        "through the region (doc/regions.md)\n", db->unit);
	if (!r->ncells) {
		fputs("\n  no communication between threads in this region\n", f);
		return 0;
	}
	if (n <= GRID_MAX) {
		fprintf(f, "\nThread matrix, inclusive, all (row/column = thread index of threads.csv)\n%6s", "");
		for (uint32_t j = 0; j < n; j++)
			fprintf(f, " %10u", j);
		fputc('\n', f);
		for (uint32_t i = 0; i < n; i++) {
			fprintf(f, "%6u", i);
			for (uint32_t j = 0; j < n; j++) {
				uint64_t v = 0;
				uint32_t lo = i < j ? i : j, hi = i < j ? j : i;
				for (size_t q = 0; q < r->ncells && i != j; q++)
					if (r->cells[q].i == lo && r->cells[q].j == hi)
						v = r->cells[q].tru + r->cells[q].fal;
				fprintf(f, " %10s", i == j ? "-" : hc_report_value(a, sizeof(a), v, db->unit));
			}
			fputc('\n', f);
		}
	}
	cells = malloc(r->ncells * sizeof(*cells));
	if (!cells)
		return -ENOMEM;
	memcpy(cells, r->cells, r->ncells * sizeof(*cells));
	qsort(cells, r->ncells, sizeof(*cells), cmp_cell);
	fprintf(f, "\nThread pairs (%zu), largest first\n  %-22s %-22s %10s %6s %10s %10s %10s\n",
	        r->ncells, "thread", "peer thread", "inclusive", "%", "true", "false", "exclusive");
	for (size_t q = 0; q < r->ncells && q < PAIRS_MAX; q++) {
		const struct hc_db_rcell *x = &cells[q];
		char v[32], t[32], fa[32], e[32], pc[16];
		hc_db_index_label(db, HC_DB_LEVEL_THREAD, x->i, lab1, sizeof(lab1));
		hc_db_index_label(db, HC_DB_LEVEL_THREAD, x->j, lab2, sizeof(lab2));
		fprintf(f, "  %-22.22s %-22.22s %10s %6s %10s %10s %10s\n", lab1, lab2,
		        hc_report_value(v, sizeof(v), x->tru + x->fal, db->unit),
		        hc_report_pct(pc, sizeof(pc), x->tru + x->fal, r->tru + r->fal),
		        hc_report_value(t, sizeof(t), x->tru, db->unit),
		        hc_report_value(fa, sizeof(fa), x->fal, db->unit),
		        hc_report_value(e, sizeof(e), x->xtru + x->xfal, db->unit));
	}
	if (r->ncells > PAIRS_MAX)
		fprintf(f, "  ... %zu more pairs (%s, region %zu)\n", r->ncells - PAIRS_MAX,
		        db->regions_matrices, k);
	free(cells);
	return 0;
}

void hc_report_json_regions(const struct hc_db *db, struct hc_json *j)
{
	hc_json_key(j, "regions");
	if (!db->has_regions) {
		hc_json_null(j);
		return;
	}
	hc_json_arr(j);
	for (size_t k = 0; k < db->nregions; k++) {
		const struct hc_db_region *r = &db->regions[k];
		hc_json_obj(j);
		hc_json_ku64(j, "i", r->i);
		hc_json_ki64(j, "parent", r->parent == HC_DB_NONE ? -1 : (int64_t)r->parent);
		hc_json_kstr(j, "kind", r->kind);
		hc_json_kstr(j, "name", r->name);
		hc_json_kstr(j, "module", r->lm);
		hc_json_kstr(j, "file", r->file);
		hc_json_ki64(j, "line", r->line > 0 ? r->line : -1);
		hc_json_ki64(j, "depth", r->depth);
		hc_json_key(j, "irreducible");
		hc_json_bool(j, r->irreducible);
		hc_json_ku64(j, "true", r->tru);
		hc_json_ku64(j, "false", r->fal);
		hc_json_ku64(j, "self", r->self);
		hc_json_ku64(j, "xtrue", r->xtru);
		hc_json_ku64(j, "xfalse", r->xfal);
		hc_json_ku64(j, "xself", r->xself);
		hc_json_key(j, "cells");
		hc_json_arr(j);
		for (size_t c = 0; c < r->ncells; c++) {
			hc_json_arr(j);
			hc_json_u64(j, r->cells[c].i);
			hc_json_u64(j, r->cells[c].j);
			hc_json_u64(j, r->cells[c].tru);
			hc_json_u64(j, r->cells[c].fal);
			hc_json_u64(j, r->cells[c].xtru);
			hc_json_u64(j, r->cells[c].xfal);
			hc_json_arr_end(j);
		}
		hc_json_arr_end(j);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
}

struct rank {
	size_t k;
	uint64_t ex, in;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;

	if (x->ex != y->ex)
		return x->ex > y->ex ? -1 : 1;
	if (x->in != y->in)
		return x->in > y->in ? -1 : 1;
	return (x->k > y->k) - (x->k < y->k);
}

void hc_report_text_regions(const struct hc_db *db, FILE *f, int width, unsigned top)
{
	const struct hc_db_region *root;
	struct rank *v;
	uint64_t tot;
	size_t n = 0;

	if (!db->has_regions || db->nregions < 2)
		return;
	root = &db->regions[0];
	tot = root->tru + root->fal + root->self;
	v = malloc(db->nregions * sizeof(*v));
	if (!v)
		return;
	for (size_t k = 1; k < db->nregions; k++) {
		const struct hc_db_region *r = &db->regions[k];
		v[n++] = (struct rank){ k, r->xtru + r->xfal + r->xself, r->tru + r->fal + r->self };
	}
	qsort(v, n, sizeof(*v), cmp_rank);
	fputs("\nTop code regions (doc/regions.md)\n", f);
	fprintf(f, "  %-3s %9s %9s  %s\n", "#", "incl.", "excl.", "region");
	for (size_t q = 0; q < n && q < top; q++) {
		const struct hc_db_region *r = &db->regions[v[q].k];
		char line[1024], p1[16], p2[16];
		int len = snprintf(line, sizeof(line), "  %-3zu %9s %9s  %s%s%s%s", q + 1,
		                   hc_report_pct(p1, sizeof(p1), v[q].in, tot),
		                   hc_report_pct(p2, sizeof(p2), v[q].ex, tot), r->name,
		                   r->parent != HC_DB_NONE && r->parent != 0 ? "  (in " : "",
		                   r->parent != HC_DB_NONE && r->parent != 0 ? db->regions[r->parent].name : "",
		                   r->parent != HC_DB_NONE && r->parent != 0 ? ")" : "");
		if (width > 4 && len > width && (size_t)width < sizeof(line)) {
			line[width - 3] = '.';
			line[width - 2] = '.';
			line[width - 1] = '.';
			line[width] = '\0';
		}
		fprintf(f, "%s\n", line);
	}
	if (n > top)
		fprintf(f, "  (%zu more: hpcprof-comm --region)\n", n - top);
	free(v);
}
