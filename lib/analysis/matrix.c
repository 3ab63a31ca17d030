/* SPDX-License-Identifier: BSD-3-Clause */
/* matrix.c — the communication matrices at four levels (thread, core =
   logical CPU, socket, NUMA node) and their CSV files. Raw cells are stored
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

static int mat_alloc(struct matrix *m, int level, uint32_t n)
{
	m->level = level;
	m->n = n ? n : 1;
	m->t = calloc((size_t)m->n * m->n, sizeof(*m->t));
	m->f = calloc((size_t)m->n * m->n, sizeof(*m->f));
	m->present = true;
	return m->t && m->f ? 0 : -ENOMEM;
}

static void mat_add(struct matrix *m, uint32_t i, uint32_t j, uint64_t t, uint64_t f)
{
	if (i == j) {
		m->diag[0] += t;
		m->diag[1] += f;
		return;
	}
	m->t[(size_t)i * m->n + j] += t;
	m->f[(size_t)i * m->n + j] += f;
}

uint64_t matrix__cell(const struct matrix *m, int kind, uint32_t i, uint32_t j)
{
	size_t a = (size_t)i * m->n + j, b = (size_t)j * m->n + i;
	uint64_t t, f;

	if (i == j)
		return 0;
	t = m->t[a] + m->t[b];
	f = m->f[a] + m->f[b];
	return kind == HC_DB_KIND_TRUE ? t : kind == HC_DB_KIND_FALSE ? f : t + f;
}

uint64_t matrix__total(const struct matrix *m, int kind)
{
	uint64_t s = 0;
	uint32_t i, j;

	for (i = 0; i < m->n; i++)
		for (j = i + 1; j < m->n; j++)
			s += matrix__cell(m, kind, i, j);
	return s;
}

static int build_thread(struct an *an, struct matrix *m)
{
	uint32_t i, k;
	int ret;

	ret = mat_alloc(m, HC_DB_LEVEL_THREAD, an->nthreads);
	if (ret)
		return ret;
	for (i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];

		if (p->status != AN_OK)
			continue;
		m->diag[0] += p->self_weight[0];
		m->diag[1] += p->self_weight[1];
		for (k = 0; k < p->nrow; k++) {
			uint32_t g;
			if (!p->ref[k] || !threads__find(an, p->proc, k, &g))
				continue;
			mat_add(m, p->gthread, g, p->row[k][0], p->row[k][1]);
		}
	}
	return 0;
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
		ret = mat_alloc(&lv->m[lev], lev, n[lev]);
		if (!ret)
			ret = idx_build(&idx[lev], lv->lab[lev], n[lev], lev);
		if (ret)
			goto out;
		lv->n_lab[lev] = n[lev];
	}

	for (i = 0; i < all.h.n; i++) {
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
			mat_add(&lv->m[HC_DB_LEVEL_CORE], a, b, t, f);
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
				mat_add(&lv->m[lev], a, b, t, f);
			} else {
				lv->m[lev].unplaced[0] += t;
				lv->m[lev].unplaced[1] += f;
			}
		}
	}
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
		free(lv->m[i].t);
		free(lv->m[i].f);
		free(lv->lab[i]);
	}
	memset(lv, 0, sizeof(*lv));
}

int matrix__write(const struct matrix *m, int kind, const char *dir, char *err, size_t errlen)
{
	char name[64], *line, *p, num[24];
	struct out o;
	uint32_t i, j;
	int ret;

	snprintf(name, sizeof(name), "%s/%s-%s.csv", HC_DB_MATRICES, hc_db_level_name(m->level),
	         hc_db_kind_name(kind));
	line = malloc((size_t)m->n * 22 + 32);
	if (!line) {
		snprintf(err, errlen, "out of memory writing %s", name);
		return -ENOMEM;
	}
	ret = out__open(&o, dir, name, err, errlen);
	if (ret) {
		free(line);
		return ret;
	}
	p = line;
	for (j = 0; j < m->n; j++) {
		const char *s = out__fmt_u64(num, j);
		size_t l = strlen(s);
		*p++ = ',';
		memcpy(p, s, l);
		p += l;
	}
	*p++ = '\n';
	*p = '\0';
	out__puts(&o, line);
	for (i = 0; i < m->n; i++) {
		const char *s = out__fmt_u64(num, i);
		size_t l = strlen(s);

		p = line;
		memcpy(p, s, l);
		p += l;
		for (j = 0; j < m->n; j++) {
			s = out__fmt_u64(num, matrix__cell(m, kind, i, j));
			l = strlen(s);
			*p++ = ',';
			memcpy(p, s, l);
			p += l;
		}
		*p++ = '\n';
		*p = '\0';
		out__puts(&o, line);
	}
	free(line);
	return out__close(&o, err, errlen);
}
