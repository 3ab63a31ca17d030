/* SPDX-License-Identifier: BSD-3-Clause */
/* matrix.c — the matrix files named by database.xml (doc/database-format.md
   §2), in either form: dense, header ",0,1,…,N-1" then row i as
   "i,v(i,0),…,v(i,N-1)", exactly N + 1 lines; sparse (<Matrix
   format="sparse">), header "row,column,value" then "i,j,v" per non-zero
   upper-triangle cell, i < j, in increasing (i, j) order. Beyond the shape it
   checks what every matrix promises — zero diagonal, symmetry, the upper
   triangle summing to the `total` of its <Matrix>, and all = true + false
   cell by cell — because a matrix that breaks them was cut, edited or mixed
   from two analyses, and a heatmap of it would mislead. Either way only the
   non-zero upper-triangle cells are kept: memory follows them (plus the
   file's text while it is read), never n². No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"

static int cmp_cell(const void *x, const void *y)
{
	const struct hc_db_cell *p = x, *q = y;

	if (p->i != q->i)
		return p->i < q->i ? -1 : 1;
	return (p->j > q->j) - (p->j < q->j);
}

static int push(struct hc_db_cell **c, size_t *n, size_t *cap, uint32_t i, uint32_t j, uint64_t v)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		struct hc_db_cell *p = realloc(*c, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		*c = p;
		*cap = nc;
	}
	(*c)[(*n)++] = (struct hc_db_cell){ i, j, v };
	return 0;
}

static int load_dense(struct load *ld, struct hc_db_matrix *m, struct csv *c)
{
	uint32_t n = m->n;
	struct hc_db_cell *low = NULL;   /* (j, i, v) for the cells below the diagonal */
	size_t nlow = 0, lowcap = 0, cap = 0;
	int rc;

	if (c->f[0][0]) {
		rc = load__fail(ld, c->line, "first field of the header is '%.20s', expected it "
		                 "empty (missing header \",0,…,%u\"?)", c->f[0], n - 1);
		goto out;
	}
	if (c->nf != (size_t)n + 1) {
		rc = load__fail(ld, c->line, "header has %zu fields, expected %u (\",0,…,%u\")",
		                 c->nf, n + 1, n - 1);
		goto out;
	}
	for (uint32_t j = 0; j < n; j++) {
		uint64_t h;
		if (!load__parse_u64(c->f[j + 1], &h) || h != j) {
			rc = load__fail(ld, c->line, "header field %u is '%.20s', expected %u",
			                 j + 2, c->f[j + 1], j);
			goto out;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t idx;
		rc = csv__next(c, ld);
		if (rc <= 0) {
			if (rc == 0)
				rc = load__fail(ld, 0, "%u rows, expected %u (file cut short?)", i, n);
			goto out;
		}
		if (c->nf != (size_t)n + 1) {
			rc = load__fail(ld, c->line, "row %u has %zu values, expected %u",
			                 i, c->nf - 1, n);
			goto out;
		}
		if (!load__parse_u64(c->f[0], &idx) || idx != i) {
			rc = load__fail(ld, c->line, "row index is '%.20s', expected %u", c->f[0], i);
			goto out;
		}
		for (uint32_t j = 0; j < n; j++) {
			uint64_t v;
			if (!load__parse_u64(c->f[j + 1], &v)) {
				rc = load__fail(ld, c->line, "column %u: '%.30s' is not a non-negative "
				                 "decimal integer", j, c->f[j + 1]);
				goto out;
			}
			if (!v)
				continue;
			if (i == j) {
				rc = load__fail(ld, c->line, "diagonal cell (%u,%u) is not 0", i, i);
				goto out;
			}
			rc = i < j ? push(&m->cells, &m->ncells, &cap, i, j, v)
			           : push(&low, &nlow, &lowcap, j, i, v);
			if (rc)
				goto out;
		}
	}
	rc = csv__next(c, ld);
	if (rc != 0) {
		if (rc > 0)
			rc = load__fail(ld, c->line, "more than %u rows", n);
		goto out;
	}
	/* The upper cells are in (i, j) order already; the transposed lower
	   ones, sorted the same way, must be the same list. */
	if (nlow > 1)
		qsort(low, nlow, sizeof(*low), cmp_cell);
	for (size_t a = 0, b = 0; a < m->ncells || b < nlow;) {
		const struct hc_db_cell *u = a < m->ncells ? &m->cells[a] : NULL;
		const struct hc_db_cell *l = b < nlow ? &low[b] : NULL;
		int d = !u ? 1 : !l ? -1 : cmp_cell(u, l);
		if (d == 0 && u->v == l->v) {
			a++;
			b++;
			continue;
		}
		/* The first asymmetric cell in (i, j) order. */
		{
			uint32_t i = d <= 0 ? u->i : l->i, j = d <= 0 ? u->j : l->j;
			uint64_t up = d <= 0 ? u->v : 0, lo = d >= 0 ? l->v : 0;
			rc = load__fail(ld, (long)i + 2, "not symmetric: (%u,%u) = %llu but (%u,%u) = "
			                 "%llu", i, j, (unsigned long long)up, j, i, (unsigned long long)lo);
			goto out;
		}
	}
	rc = 0;
out:
	free(low);
	return rc;
}

static int load_sparse(struct load *ld, struct hc_db_matrix *m, struct csv *c)
{
	size_t cap = 0;
	int rc;

	if (c->nf != 3 || strcmp(c->f[0], "row") || strcmp(c->f[1], "column") ||
	    strcmp(c->f[2], "value"))
		return load__fail(ld, c->line, "header is not \"" HC_DB_SPARSE_HEADER "\" (database.xml "
		                   "says format=\"sparse\")");
	while ((rc = csv__next(c, ld)) > 0) {
		uint64_t i, j, v;
		const struct hc_db_cell *last = m->ncells ? &m->cells[m->ncells - 1] : NULL;

		if (c->nf != 3)
			return load__fail(ld, c->line, "%zu fields, expected 3 (row,column,value)", c->nf);
		if (!load__parse_u64(c->f[0], &i) || !load__parse_u64(c->f[1], &j))
			return load__fail(ld, c->line, "row '%.20s' or column '%.20s' is not a "
			                   "non-negative decimal integer", c->f[0], c->f[1]);
		if (!load__parse_u64(c->f[2], &v))
			return load__fail(ld, c->line, "value '%.30s' is not a non-negative decimal "
			                   "integer", c->f[2]);
		if (i >= m->n || j >= m->n)
			return load__fail(ld, c->line, "cell (%llu,%llu) is outside the %u×%u matrix",
			                   (unsigned long long)i, (unsigned long long)j, m->n, m->n);
		if (i >= j)
			return load__fail(ld, c->line, "cell (%llu,%llu) is not above the diagonal (the "
			                   "sparse form lists row < column only)",
			                   (unsigned long long)i, (unsigned long long)j);
		if (!v)
			return load__fail(ld, c->line, "cell (%llu,%llu) is 0 (the sparse form lists "
			                   "non-zero cells only)", (unsigned long long)i,
			                   (unsigned long long)j);
		if (last && (last->i > i || (last->i == i && last->j >= j)))
			return load__fail(ld, c->line, "cell (%llu,%llu) %s (%u,%u): cells must be in "
			                   "increasing (row, column) order, each once",
			                   (unsigned long long)i, (unsigned long long)j,
			                   last->i == i && last->j == j ? "repeats" : "comes after",
			                   last->i, last->j);
		if ((rc = push(&m->cells, &m->ncells, &cap, (uint32_t)i, (uint32_t)j, v)))
			return rc;
	}
	return rc;
}

/* The file line of cell k (for messages): its row in the dense form. */
static long cell_line(const struct hc_db_matrix *m, size_t k, uint32_t i)
{
	return m->sparse ? (long)k + 2 : (long)i + 2;
}

static int load_one(struct load *ld, struct hc_db_matrix *m)
{
	struct csv c;
	uint64_t sum = 0;
	int rc;

	if ((rc = csv__open(&c, ld, m->file)))
		return rc;
	rc = csv__next(&c, ld);
	if (rc <= 0) {
		if (rc == 0)
			rc = m->sparse ? load__fail(ld, 0, "empty file (expected the header \""
			                             HC_DB_SPARSE_HEADER "\")")
			               : load__fail(ld, 0, "empty file (expected a header and %u rows)",
			                             m->n);
		goto out;
	}
	rc = m->sparse ? load_sparse(ld, m, &c) : load_dense(ld, m, &c);
	if (rc)
		goto out;
	for (size_t k = 0; k < m->ncells; k++) {
		if (sum + m->cells[k].v < sum) {
			rc = load__fail(ld, cell_line(m, k, m->cells[k].i), "values overflow 64 bits");
			goto out;
		}
		sum += m->cells[k].v;
	}
	if (sum != m->total)
		rc = load__fail(ld, 0, "upper triangle sums to %llu, database.xml says total=\"%llu\"",
		                 (unsigned long long)sum, (unsigned long long)m->total);
out:
	csv__close(&c);
	return rc;
}

/* all = true + false cell by cell: a merge of the three sorted cell lists. */
static int check_sum(struct load *ld, const struct hc_db_matrix *a, const struct hc_db_matrix *t,
                     const struct hc_db_matrix *f)
{
	size_t x = 0, y = 0, z = 0;

	while (x < a->ncells || y < t->ncells || z < f->ncells) {
		const struct hc_db_cell *ca = x < a->ncells ? &a->cells[x] : NULL;
		const struct hc_db_cell *ct = y < t->ncells ? &t->cells[y] : NULL;
		const struct hc_db_cell *cf = z < f->ncells ? &f->cells[z] : NULL;
		const struct hc_db_cell *lo = ca;
		uint64_t va = 0, vt = 0, vf = 0;
		const struct hc_db_matrix *where = a;
		size_t k = x;

		if (ct && (!lo || cmp_cell(ct, lo) < 0))
			lo = ct;
		if (cf && (!lo || cmp_cell(cf, lo) < 0))
			lo = cf;
		if (ca && !cmp_cell(ca, lo))
			va = a->cells[x++].v;
		if (ct && !cmp_cell(ct, lo))
			vt = t->cells[y++].v;
		if (cf && !cmp_cell(cf, lo))
			vf = f->cells[z++].v;
		if (vt + vf >= vt && va == vt + vf)
			continue;
		if (!va) {   /* not in the all file: say where it is */
			where = vt ? t : f;
			k = vt ? y - 1 : z - 1;
		}
		load__file(ld, where->file);
		return load__fail(ld, cell_line(where, k, lo->i), "cell (%u,%u) = %llu is not true + "
		                   "false = %llu + %llu (from %s and %s)", lo->i, lo->j,
		                   (unsigned long long)va, (unsigned long long)vt,
		                   (unsigned long long)vf, t->file, f->file);
	}
	return 0;
}

int read__matrices(struct load *ld)
{
	struct hc_db *db = ld->db;
	int rc;

	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++) {
		if (!db->mat[l][HC_DB_KIND_ALL].present)
			continue;
		for (int k = 0; k < HC_DB_KIND_COUNT; k++)
			if ((rc = load_one(ld, &db->mat[l][k])))
				return rc;
		rc = check_sum(ld, &db->mat[l][HC_DB_KIND_ALL], &db->mat[l][HC_DB_KIND_TRUE],
		               &db->mat[l][HC_DB_KIND_FALSE]);
		if (rc)
			return rc;
	}
	return 0;
}

int read__matrices_check(struct load *ld)
{
	struct hc_db *db = ld->db;
	int rc;

	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++) {
		if (!db->mat[l][HC_DB_KIND_ALL].present)
			continue;
		for (int k = 0; k < HC_DB_KIND_COUNT; k++) {
			const struct hc_db_matrix *m = &db->mat[l][k];
			uint64_t sum = 0;

			load__file(ld, m->file);
			for (size_t c = 0; c < m->ncells; c++)
				sum += m->cells[c].v;
			if (sum != m->total)
				return load__fail(ld, 0, "upper triangle sums to %llu, database.xml says "
				                   "total=\"%llu\"", (unsigned long long)sum,
				                   (unsigned long long)m->total);
		}
		rc = check_sum(ld, &db->mat[l][HC_DB_KIND_ALL], &db->mat[l][HC_DB_KIND_TRUE],
		               &db->mat[l][HC_DB_KIND_FALSE]);
		if (rc)
			return rc;
	}
	return 0;
}

uint64_t hc_db_matrix_at(const struct hc_db_matrix *m, uint32_t i, uint32_t j)
{
	struct hc_db_cell key = { i < j ? i : j, i < j ? j : i, 0 };
	const struct hc_db_cell *c;

	if (i == j || !m->ncells)
		return 0;
	c = bsearch(&key, m->cells, m->ncells, sizeof(*m->cells), cmp_cell);
	return c ? c->v : 0;
}

void hc_db_matrix_volumes(const struct hc_db_matrix *m, uint64_t *vol)
{
	memset(vol, 0, (size_t)m->n * sizeof(*vol));
	for (size_t k = 0; k < m->ncells; k++) {
		vol[m->cells[k].i] += m->cells[k].v;
		vol[m->cells[k].j] += m->cells[k].v;
	}
}
