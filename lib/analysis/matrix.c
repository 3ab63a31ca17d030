/* SPDX-License-Identifier: BSD-3-Clause */
/* matrix.c — the communication matrices at four levels (thread, core =
   logical CPU, socket, NUMA node), written by lib/db (write_matrix.c). Raw cells are stored
   as recorded (row = the detecting side, asymmetric, true and false apart);
   every published value is M + Mᵀ off the diagonal and 0 on it, computed
   when read (matrix__cell), so the symmetric, zero-diagonal property holds by
   construction. What lands on the diagonal, or cannot be placed at a level
   (unknown CPU, no topology), is kept as a total for database.xml. Index
   spaces: threads from threads.c; CPUs, sockets and NUMA nodes from each
   host's topology (all of its PUs, packages, nodes, in OS-index order) plus
   CPUs seen in events but absent from it (only the CPUs seen for a host
   without a topology), hosts in id order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

int matrix__init(struct matrix *m, int level, uint32_t n)
{
	m->level = level;
	m->n = n ? n : 1;
	m->present = true;
	return agg__init(&m->acc, 64);
}

/* Published values only: M + Mᵀ adds (i, j) and (j, i) into one cell, so the
   raw asymmetric cells need not be kept. */
int matrix__add(struct matrix *m, uint32_t i, uint32_t j, uint64_t t, uint64_t f)
{
	struct hkey k = { i < j ? i : j, i < j ? j : i, 0 };

	if (i == j) {
		m->diag[0] += t;
		m->diag[1] += f;
		return 0;
	}
	return agg__add(&m->acc, &k, t, f);
}

static int cmp_cell(const void *x, const void *y)
{
	const struct hc_db_mcell *p = x, *q = y;

	if (p->i != q->i)
		return p->i < q->i ? -1 : 1;
	return (p->j > q->j) - (p->j < q->j);
}

/* The accumulated cells -> sorted non-zero cells and row offsets. */
int matrix__finish(struct matrix *m)
{
	uint32_t k, n = 0, r;

	m->cell = malloc((m->acc.h.n ? m->acc.h.n : 1) * sizeof(*m->cell));
	m->row = calloc((size_t)m->n + 1, sizeof(*m->row));
	if (!m->cell || !m->row)
		return -ENOMEM;
	for (k = 0; k < m->acc.h.n; k++) {
		const struct hkey *key = &m->acc.h.keys[k];
		if (!m->acc.v[k][0] && !m->acc.v[k][1])
			continue;
		m->cell[n++] = (struct hc_db_mcell){ (uint32_t)key->a, (uint32_t)key->b,
		                               { m->acc.v[k][0], m->acc.v[k][1] } };
	}
	agg__free(&m->acc);
	m->ncell = n;
	if (n > 1)
		qsort(m->cell, n, sizeof(*m->cell), cmp_cell);
	for (k = 0; k < n; k++)
		m->row[m->cell[k].i + 1]++;
	for (r = 0; r < m->n; r++)
		m->row[r + 1] += m->row[r];
	return 0;
}

uint64_t matrix__cell(const struct matrix *m, int kind, uint32_t i, uint32_t j)
{
	uint32_t lo, hi;

	if (i == j || i >= m->n || j >= m->n)
		return 0;
	if (i > j) {
		uint32_t x = i;
		i = j;
		j = x;
	}
	lo = m->row[i];
	hi = m->row[i + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->cell[mid].j == j)
			return hc_db_kind_of(m->cell[mid].v, kind);
		if (m->cell[mid].j < j)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

uint64_t matrix__total(const struct matrix *m, int kind)
{
	uint64_t s = 0;
	uint32_t k;

	for (k = 0; k < m->ncell; k++)
		s += hc_db_kind_of(m->cell[k].v, kind);
	return s;
}

static int build_thread(struct an *an, struct matrix *m)
{
	uint32_t i, k;
	int ret;

	ret = matrix__init(m, HC_DB_LEVEL_THREAD, an->nthreads);
	if (ret)
		return ret;
	for (i = 0; i < an->nprofs && !ret; i++) {
		const struct an_prof *p = &an->profs[i];

		if (p->status != AN_OK)
			continue;
		m->diag[0] += p->self_weight[0];
		m->diag[1] += p->self_weight[1];
		for (k = 0; k < p->row.h.n && !ret; k++) {
			uint32_t g;
			if (!threads__find(an, p->proc, (uint32_t)p->row.h.keys[k].a, &g))
				continue;
			ret = matrix__add(m, p->gthread, g, p->row.v[k][0], p->row.v[k][1]);
		}
	}
	return ret ? ret : matrix__finish(m);
}

static int add_label(struct label **lab, uint32_t *n, uint32_t *cap, const struct label *l)
{
	int ret = an__grow(lab, cap, *n + 1, sizeof(**lab));

	if (ret)
		return ret;
	(*lab)[(*n)++] = *l;
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Core labels of one host: its PUs, then CPUs seen outside the topology (or
   only the CPUs seen, without one). seen is sorted and distinct. */
static int core_labels(const struct an *an, uint32_t h, const int *seen, uint32_t nseen,
                       struct label **lab, uint32_t *n, uint32_t *cap)
{
	const struct topo *t = an->hosts[h].topo;
	uint32_t i;
	int ret;

	if (t) {
		for (i = 0; i < t->npu; i++) {
			struct label l = { h, t->pu[i].cpu, t->pu[i].core, t->pu[i].socket, t->pu[i].numa };
			ret = add_label(lab, n, cap, &l);
			if (ret)
				return ret;
		}
		for (i = 0; i < nseen; i++) {
			struct label l = { h, seen[i], -1, -1, -1 };
			if (topo__pu(t, seen[i]))
				continue;
			ret = add_label(lab, n, cap, &l);
			if (ret)
				return ret;
		}
		return 0;
	}
	for (i = 0; i < nseen; i++) {
		struct label l = { h, seen[i], -1, -1, -1 };
		ret = add_label(lab, n, cap, &l);
		if (ret)
			return ret;
	}
	return 0;
}

struct index {
	struct hmap h;      /* (host, value + 1, 0) -> label index */
};

static bool idx_find(const struct index *x, uint32_t host, int v, uint32_t *out)
{
	struct hkey k = { host, (uint64_t)v + 1, 0 };

	return hmap__find(&x->h, &k, out);
}

static int idx_build(struct index *x, const struct label *lab, uint32_t n, int level)
{
	uint32_t i, j;
	int ret = hmap__init(&x->h, n + 16);

	for (i = 0; i < n && !ret; i++) {
		int v = level == HC_DB_LEVEL_CORE ? lab[i].cpu :
		        level == HC_DB_LEVEL_SOCKET ? lab[i].socket : lab[i].numa;
		struct hkey k = { lab[i].host, (uint64_t)v + 1, 0 };
		ret = hmap__intern(&x->h, &k, &j);
		ret = ret < 0 ? ret : 0;
	}
	return ret;
}

static int build_places(struct an *an, struct levels *lv)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	uint32_t n[HC_DB_LEVEL_COUNT] = { 0 }, cap[HC_DB_LEVEL_COUNT] = { 0 };
	struct index idx[HC_DB_LEVEL_COUNT];
	struct agg all;
	int *seen = NULL;
	uint32_t nseen, seencap = 0, i, h;
	unsigned w;
	int ret, lev;

	memset(idx, 0, sizeof(idx));
	ret = agg__init(&all, 64);
	if (ret)
		return ret;
	for (w = 0; w < an->nworkers && !ret; w++) {
		const struct an_acc *a = &an->workers[w].acc[ui];
		if (!a->used)
			continue;
		for (i = 0; i < a->cpus.h.n && !ret; i++)
			ret = agg__add(&all, &a->cpus.h.keys[i], a->cpus.v[i][0], a->cpus.v[i][1]);
	}
	if (ret)
		goto out;

	for (h = 0; h < an->nhosts; h++) {
		const struct topo *t = an->hosts[h].topo;

		nseen = 0;
		for (i = 0; i < all.h.n; i++) {
			const struct hkey *k = &all.h.keys[i];
			if (k->a != h)
				continue;
			ret = an__grow(&seen, &seencap, nseen + 2, sizeof(*seen));
			if (ret)
				goto out;
			if (k->b)
				seen[nseen++] = (int)k->b - 1;
			if (k->c)
				seen[nseen++] = (int)k->c - 1;
		}
		if (nseen) {
			uint32_t u = 0;
			qsort(seen, nseen, sizeof(*seen), cmp_int);
			for (i = 0; i < nseen; i++)
				if (u == 0 || seen[u - 1] != seen[i])
					seen[u++] = seen[i];
			nseen = u;
		}
		ret = core_labels(an, h, seen, nseen, &lv->lab[HC_DB_LEVEL_CORE],
		                  &n[HC_DB_LEVEL_CORE], &cap[HC_DB_LEVEL_CORE]);
		if (ret)
			goto out;
		if (!t)
			continue;
		for (i = 0; i < t->nsockets && !ret; i++) {
			struct label l = { h, -1, -1, t->sockets[i], -1 };
			ret = add_label(&lv->lab[HC_DB_LEVEL_SOCKET], &n[HC_DB_LEVEL_SOCKET],
			                &cap[HC_DB_LEVEL_SOCKET], &l);
		}
		for (i = 0; i < t->nnuma && !ret; i++) {
			struct label l = { h, -1, -1, -1, t->numas[i] };
			ret = add_label(&lv->lab[HC_DB_LEVEL_NUMA], &n[HC_DB_LEVEL_NUMA],
			                &cap[HC_DB_LEVEL_NUMA], &l);
		}
		if (ret)
			goto out;
	}

	for (lev = HC_DB_LEVEL_CORE; lev < HC_DB_LEVEL_COUNT; lev++) {
		if (lev != HC_DB_LEVEL_CORE && n[lev] == 0)
			continue;   /* no topology with sockets / NUMA nodes: no file */
		ret = matrix__init(&lv->m[lev], lev, n[lev]);
		if (!ret)
			ret = idx_build(&idx[lev], lv->lab[lev], n[lev], lev);
		if (ret)
			goto out;
		lv->n_lab[lev] = n[lev];
	}

	for (i = 0; i < all.h.n && !ret; i++) {
		const struct hkey *k = &all.h.keys[i];
		uint32_t host = (uint32_t)k->a;
		uint64_t t = all.v[i][0], f = all.v[i][1];
		const struct topo *tp = an->hosts[host].topo;
		const struct topo_pu *p1 = NULL, *p2 = NULL;
		uint32_t a, b;

		if (!k->b || !k->c) {
			for (lev = HC_DB_LEVEL_CORE; lev < HC_DB_LEVEL_COUNT; lev++) {
				lv->m[lev].unplaced[0] += t;
				lv->m[lev].unplaced[1] += f;
			}
			continue;
		}
		if (idx_find(&idx[HC_DB_LEVEL_CORE], host, (int)k->b - 1, &a) &&
		    idx_find(&idx[HC_DB_LEVEL_CORE], host, (int)k->c - 1, &b))
			ret = matrix__add(&lv->m[HC_DB_LEVEL_CORE], a, b, t, f);
		if (tp) {
			p1 = topo__pu(tp, (int)k->b - 1);
			p2 = topo__pu(tp, (int)k->c - 1);
		}
		for (lev = HC_DB_LEVEL_SOCKET; lev < HC_DB_LEVEL_COUNT; lev++) {
			int v1 = -1, v2 = -1;

			if (p1 && p2) {
				v1 = lev == HC_DB_LEVEL_SOCKET ? p1->socket : p1->numa;
				v2 = lev == HC_DB_LEVEL_SOCKET ? p2->socket : p2->numa;
			}
			if (lv->m[lev].present && v1 >= 0 && v2 >= 0 &&
			    idx_find(&idx[lev], host, v1, &a) && idx_find(&idx[lev], host, v2, &b)) {
				ret = matrix__add(&lv->m[lev], a, b, t, f);
			} else {
				lv->m[lev].unplaced[0] += t;
				lv->m[lev].unplaced[1] += f;
			}
		}
	}
	for (lev = HC_DB_LEVEL_CORE; lev < HC_DB_LEVEL_COUNT && !ret; lev++)
		if (lv->m[lev].present)
			ret = matrix__finish(&lv->m[lev]);
out:
	for (lev = 0; lev < HC_DB_LEVEL_COUNT; lev++)
		hmap__free(&idx[lev].h);
	free(seen);
	agg__free(&all);
	return ret;
}

int matrix__build(struct an *an, struct levels *lv)
{
	int ret;

	memset(lv, 0, sizeof(*lv));
	ret = build_thread(an, &lv->m[HC_DB_LEVEL_THREAD]);
	if (!ret)
		ret = build_places(an, lv);
	return ret;
}

void matrix__free(struct levels *lv)
{
	int i;

	for (i = 0; i < HC_DB_LEVEL_COUNT; i++) {
		agg__free(&lv->m[i].acc);
		free(lv->m[i].cell);
		free(lv->m[i].row);
		free(lv->lab[i]);
	}
	memset(lv, 0, sizeof(*lv));
}

int matrix__write(const struct matrix *m, int kind, uint32_t dense_max, const char *dir, char *err,
                  size_t errlen)
{
	const struct hc_db_wmatrix w = { .level = m->level, .n = m->n, .cell = m->cell,
	                                 .ncell = m->ncell, .row = m->row };

	return hc_db_write_matrix(dir, &w, kind, dense_max, err, errlen);
}

int matrix__model(struct hc_db *db, void *arg)
{
	const struct experiment_model *em = arg;

	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++) {
		const struct matrix *m = &em->lv->m[l];

		if (!m->present || !db->mat[l][HC_DB_KIND_ALL].present)
			continue;
		for (int k = 0; k < HC_DB_KIND_COUNT; k++) {
			struct hc_db_matrix *d = &db->mat[l][k];
			size_t n = 0;

			d->cells = malloc((m->ncell ? m->ncell : 1) * sizeof(*d->cells));
			if (!d->cells)
				return -ENOMEM;
			for (uint32_t c = 0; c < m->ncell; c++) {
				uint64_t v = hc_db_kind_of(m->cell[c].v, k);
				if (v && m->cell[c].i != m->cell[c].j)
					d->cells[n++] = (struct hc_db_cell){ m->cell[c].i, m->cell[c].j, v };
			}
			d->ncells = n;
		}
	}
	return 0;
}
