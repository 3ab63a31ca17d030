/* SPDX-License-Identifier: BSD-3-Clause */
/* write_matrix.c — writing one matrix file, matrices/<level>-<kind>.csv
   (doc/database-format.md §2): N×N CSV up to dense_max rows, the sparse
   form ("row,column,value", upper triangle) above, from the analyzer's
   non-zero cells. The reader's twin is read_matrix.c. No signal context. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/write.h"
#include "support/fmt.h"
#include "support/out.h"

static char *put_u64(char *p, uint64_t v)
{
	char num[24];
	const char *s = hc_fmt_u64(num, v);
	size_t l = strlen(s);

	memcpy(p, s, l);
	return p + l;
}

/* N×N: header ",0,…,N-1", then "i,v(i,0),…,v(i,N-1)". A row is built in a
   buffer of N values from the cells of row i (i < j) and of column i (the
   cells (k, i), k < i, found through a column index), so the cost is the
   file's size plus the non-zero cells. */
static int write_dense(const struct hc_db_wmatrix *m, int kind, struct hc_out *o)
{
	uint32_t *col = calloc((size_t)m->n + 1, sizeof(*col));
	uint32_t *byc = malloc((m->ncell ? m->ncell : 1) * sizeof(*byc));
	uint64_t *v = calloc(m->n, sizeof(*v));
	char *line = malloc((size_t)m->n * 22 + 32), *p;
	uint32_t i, j, k;
	int ret = 0;

	if (!col || !byc || !v || !line) {
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < m->ncell; k++)
		col[m->cell[k].j + 1]++;
	for (j = 0; j < m->n; j++)
		col[j + 1] += col[j];
	for (k = 0; k < m->ncell; k++)   /* cells are in (i, j) order: stays sorted by i */
		byc[col[m->cell[k].j]++] = k;
	for (j = m->n; j > 0; j--)
		col[j] = col[j - 1];
	col[0] = 0;

	p = line;
	for (j = 0; j < m->n; j++) {
		*p++ = ',';
		p = put_u64(p, j);
	}
	*p++ = '\n';
	*p = '\0';
	hc_out_puts(o, line);
	for (i = 0; i < m->n; i++) {
		for (k = m->row[i]; k < m->row[i + 1]; k++)
			v[m->cell[k].j] = hc_db_kind_of(m->cell[k].v, kind);
		for (k = col[i]; k < col[i + 1]; k++)
			v[m->cell[byc[k]].i] = hc_db_kind_of(m->cell[byc[k]].v, kind);
		p = put_u64(line, i);
		for (j = 0; j < m->n; j++) {
			*p++ = ',';
			p = put_u64(p, v[j]);
		}
		*p++ = '\n';
		*p = '\0';
		hc_out_puts(o, line);
		for (k = m->row[i]; k < m->row[i + 1]; k++)
			v[m->cell[k].j] = 0;
		for (k = col[i]; k < col[i + 1]; k++)
			v[m->cell[byc[k]].i] = 0;
	}
out:
	free(col);
	free(byc);
	free(v);
	free(line);
	return ret;
}

/* Header "row,column,value", then one line "i,j,v" per non-zero cell of the
   upper triangle (i < j), sorted by (i, j). */
static void write_sparse(const struct hc_db_wmatrix *m, int kind, struct hc_out *o)
{
	char line[80], *p;
	uint32_t k;

	hc_out_puts(o, HC_DB_SPARSE_HEADER "\n");
	for (k = 0; k < m->ncell; k++) {
		uint64_t x = hc_db_kind_of(m->cell[k].v, kind);
		if (!x)
			continue;
		p = put_u64(line, m->cell[k].i);
		*p++ = ',';
		p = put_u64(p, m->cell[k].j);
		*p++ = ',';
		p = put_u64(p, x);
		*p++ = '\n';
		*p = '\0';
		hc_out_puts(o, line);
	}
}

int hc_db_write_matrix(const char *dir, const struct hc_db_wmatrix *m, int kind,
                       uint32_t dense_max, char *err, size_t errlen)
{
	char name[64];
	struct hc_out o;
	int ret;

	snprintf(name, sizeof(name), "%s/%s-%s.csv", HC_DB_MATRICES, hc_db_level_name(m->level),
	         hc_db_kind_name(kind));
	ret = hc_out_open(&o, dir, name, err, errlen);
	if (ret)
		return ret;
	if (hc_db_matrix_sparse(m->n, dense_max)) {
		write_sparse(m, kind, &o);
	} else if ((ret = write_dense(m, kind, &o))) {
		char scratch[8];
		hc_out_close(&o, true, scratch, sizeof(scratch));
		snprintf(err, errlen, "out of memory writing %s", name);
		return ret;
	}
	return hc_out_close(&o, true, err, errlen);
}
