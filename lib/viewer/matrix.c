/* SPDX-License-Identifier: BSD-3-Clause */
/* matrix.c — the matrix files named by database.xml (doc/database-format.md
   §2): header ",0,1,…,N-1", then row i as "i,v(i,0),…,v(i,N-1)", exactly
   N + 1 lines. Beyond the shape it checks what every matrix promises — zero
   diagonal, symmetry, the upper triangle summing to the `total` of its
   <Matrix>, and all = true + false cell by cell — because a matrix that
   breaks them was cut, edited or mixed from two analyses, and a heatmap of it
   would mislead. No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "viewer/internal.h"

static int load_one(struct vload *ld, struct hc_vmatrix *m)
{
	struct vcsv c;
	uint32_t n = m->n;
	uint64_t sum = 0;
	int rc;

	if ((rc = vcsv__open(&c, ld, m->file)))
		return rc;
	m->v = calloc((size_t)n * n, sizeof(*m->v));
	if (!m->v) {
		rc = -ENOMEM;
		goto out;
	}
	rc = vcsv__next(&c, ld);
	if (rc <= 0) {
		if (rc == 0)
			rc = vload__fail(ld, 0, "empty file (expected a header and %u rows)", n);
		goto out;
	}
	if (c.f[0][0]) {
		rc = vload__fail(ld, c.line, "first field of the header is '%.20s', expected it "
		                 "empty (missing header \",0,…,%u\"?)", c.f[0], n - 1);
		goto out;
	}
	if (c.nf != (size_t)n + 1) {
		rc = vload__fail(ld, c.line, "header has %zu fields, expected %u (\",0,…,%u\")",
		                 c.nf, n + 1, n - 1);
		goto out;
	}
	for (uint32_t j = 0; j < n; j++) {
		uint64_t h;
		if (!v__parse_u64(c.f[j + 1], &h) || h != j) {
			rc = vload__fail(ld, c.line, "header field %u is '%.20s', expected %u",
			                 j + 2, c.f[j + 1], j);
			goto out;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint64_t idx;
		rc = vcsv__next(&c, ld);
		if (rc <= 0) {
			if (rc == 0)
				rc = vload__fail(ld, 0, "%u rows, expected %u (file cut short?)", i, n);
			goto out;
		}
		if (c.nf != (size_t)n + 1) {
			rc = vload__fail(ld, c.line, "row %u has %zu values, expected %u",
			                 i, c.nf - 1, n);
			goto out;
		}
		if (!v__parse_u64(c.f[0], &idx) || idx != i) {
			rc = vload__fail(ld, c.line, "row index is '%.20s', expected %u", c.f[0], i);
			goto out;
		}
		for (uint32_t j = 0; j < n; j++)
			if (!v__parse_u64(c.f[j + 1], &m->v[(size_t)i * n + j])) {
				rc = vload__fail(ld, c.line, "column %u: '%.30s' is not a non-negative "
				                 "decimal integer", j, c.f[j + 1]);
				goto out;
			}
	}
	rc = vcsv__next(&c, ld);
	if (rc != 0) {
		if (rc > 0)
			rc = vload__fail(ld, c.line, "more than %u rows", n);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (m->v[(size_t)i * n + i]) {
			rc = vload__fail(ld, (long)i + 2, "diagonal cell (%u,%u) is not 0", i, i);
			goto out;
		}
		for (uint32_t j = i + 1; j < n; j++) {
			uint64_t a = m->v[(size_t)i * n + j];
			if (a != m->v[(size_t)j * n + i]) {
				rc = vload__fail(ld, (long)i + 2, "not symmetric: (%u,%u) = %llu but "
				                 "(%u,%u) = %llu", i, j, (unsigned long long)a, j, i,
				                 (unsigned long long)m->v[(size_t)j * n + i]);
				goto out;
			}
			if (sum + a < sum) {
				rc = vload__fail(ld, (long)i + 2, "values overflow 64 bits");
				goto out;
			}
			sum += a;
		}
	}
	if (sum != m->total)
		rc = vload__fail(ld, 0, "upper triangle sums to %llu, database.xml says total=\"%llu\"",
		                 (unsigned long long)sum, (unsigned long long)m->total);
out:
	vcsv__close(&c);
	return rc;
}

int matrix__load_all(struct vload *ld)
{
	struct hc_vdb *db = ld->db;
	int rc;

	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++) {
		struct hc_vmatrix *a = &db->mat[l][HC_DB_KIND_ALL];
		struct hc_vmatrix *t = &db->mat[l][HC_DB_KIND_TRUE];
		struct hc_vmatrix *f = &db->mat[l][HC_DB_KIND_FALSE];

		if (!a->present)
			continue;
		for (int k = 0; k < HC_DB_KIND_COUNT; k++)
			if ((rc = load_one(ld, &db->mat[l][k])))
				return rc;
		for (size_t c = 0; c < (size_t)a->n * a->n; c++)
			if (a->v[c] != t->v[c] + f->v[c]) {
				vload__file(ld, a->file);
				return vload__fail(ld, (long)(c / a->n) + 2, "cell (%zu,%zu) = %llu is not "
				                   "true + false = %llu + %llu (from %s and %s)",
				                   c / a->n, c % a->n, (unsigned long long)a->v[c],
				                   (unsigned long long)t->v[c], (unsigned long long)f->v[c],
				                   t->file, f->file);
			}
	}
	return 0;
}
