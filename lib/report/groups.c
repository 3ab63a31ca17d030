/* SPDX-License-Identifier: BSD-3-Clause */
/* groups.c — many threads made readable (insight.h, struct
   hc_report_groups): threads grouped by start routine, large groups split
   into generations by creation order, and the thread matrix summed over the
   groups. The HTML report draws the grouped matrix first and the full one
   on demand; the text summary prints it when there are more threads than
   groups. Sums come from the whole thread matrix (its cells), so a level of
   100,000 threads groups exactly. No signal context. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/insight.h"
#include "report/json.h"
#include "report/report.h"

struct key { const char *routine; uint32_t t; };

static int cmp_key(const void *a, const void *b)
{
	const struct key *x = a, *y = b;
	int c = strcmp(x->routine, y->routine);

	return c ? c : (x->t > y->t) - (x->t < y->t);
}

static const char *routine_of(const struct hc_db_thread *t)
{
	if (t->start_routine && t->start_routine[0])
		return t->start_routine;
	return t->creator < 0 ? "main thread" : "(unknown start routine)";
}

int hc_report_groups_build(const struct hc_db *db, struct hc_report_groups *g)
{
	size_t nt = db->nthreads;
	struct key *k = calloc(nt ? nt : 1, sizeof(*k));
	uint32_t cap = 0;

	memset(g, 0, sizeof(*g));
	g->of = calloc(nt ? nt : 1, sizeof(*g->of));
	if (!k || !g->of)
		goto nomem;
	for (size_t t = 0; t < nt; t++)
		k[t] = (struct key){ routine_of(&db->threads[t]), (uint32_t)t };
	qsort(k, nt, sizeof(*k), cmp_key);
	for (size_t s = 0; s < nt;) {
		size_t e = s, gen, ng;
		while (e < nt && !strcmp(k[e].routine, k[s].routine))
			e++;
		gen = e - s > HC_REPORT_GEN_MIN ? (e - s + HC_REPORT_GEN_MAX - 1) / HC_REPORT_GEN_MAX : e - s;
		if (gen < HC_REPORT_GEN_MIN && e - s > HC_REPORT_GEN_MIN)
			gen = HC_REPORT_GEN_MIN;
		ng = (e - s + gen - 1) / gen;
		for (size_t q = 0; q < ng; q++) {
			size_t lo = s + q * gen, hi = lo + gen < e ? lo + gen : e;
			char buf[600];
			if (g->n == cap) {
				uint32_t nc = cap ? cap * 2 : 16;
				char **nn = realloc(g->name, nc * sizeof(*nn));
				uint32_t *cc;
				if (!nn)
					goto nomem;
				g->name = nn;
				cc = realloc(g->count, nc * sizeof(*cc));
				if (!cc)
					goto nomem;
				g->count = cc;
				cap = nc;
			}
			if (ng > 1)
				snprintf(buf, sizeof(buf), "%s, generation %zu (threads %u-%u)", k[s].routine,
				         q + 1, k[lo].t, k[hi - 1].t);
			else
				snprintf(buf, sizeof(buf), "%s", k[s].routine);
			if (!(g->name[g->n] = strdup(buf)))
				goto nomem;
			g->count[g->n] = (uint32_t)(hi - lo);
			for (size_t t = lo; t < hi; t++)
				g->of[k[t].t] = g->n;
			g->n++;
		}
		s = e;
	}
	free(k);
	k = NULL;
	for (int kd = 0; kd < HC_DB_KIND_COUNT; kd++) {
		const struct hc_db_matrix *m = &db->mat[HC_DB_LEVEL_THREAD][kd];
		g->m[kd] = calloc((size_t)g->n * g->n + 1, sizeof(uint64_t));
		if (!g->m[kd])
			goto nomem;
		if (!m->present)
			continue;
		for (size_t c = 0; c < m->ncells; c++) {
			const struct hc_db_cell *x = &m->cells[c];
			uint32_t gi, gj;
			if (x->i >= nt || x->j >= nt)
				continue;
			gi = g->of[x->i];
			gj = g->of[x->j];
			g->m[kd][(size_t)gi * g->n + gj] += x->v;
			if (gi != gj)
				g->m[kd][(size_t)gj * g->n + gi] += x->v;
		}
	}
	return 0;
nomem:
	free(k);
	hc_report_groups_free(g);
	return -ENOMEM;
}

void hc_report_groups_free(struct hc_report_groups *g)
{
	for (uint32_t i = 0; g->name && i < g->n; i++)
		free(g->name[i]);
	free(g->name);
	free(g->count);
	free(g->of);
	for (int kd = 0; kd < HC_DB_KIND_COUNT; kd++)
		free(g->m[kd]);
	memset(g, 0, sizeof(*g));
}

void hc_report_json_groups(const struct hc_db *db, struct hc_json *j)
{
	struct hc_report_groups g;

	hc_json_key(j, "thread_groups");
	if (hc_report_groups_build(db, &g)) {
		hc_json_null(j);
		return;
	}
	hc_json_obj(j);
	hc_json_kstr(j, "by", "start routine; a routine with more than 64 threads split into "
	             "generations of consecutive creation order (thread index)");
	hc_json_key(j, "groups");
	hc_json_arr(j);
	for (uint32_t i = 0; i < g.n; i++) {
		hc_json_obj(j);
		hc_json_kstr(j, "name", g.name[i]);
		hc_json_ku64(j, "count", g.count[i]);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_key(j, "of");
	hc_json_arr(j);
	for (size_t t = 0; t < db->nthreads; t++)
		hc_json_u64(j, g.of[t]);
	hc_json_arr_end(j);
	hc_json_key(j, "matrices");
	hc_json_obj(j);
	for (int kd = 0; kd < HC_DB_KIND_COUNT; kd++) {
		hc_json_key(j, hc_db_kind_name(kd));
		hc_json_arr(j);
		for (uint32_t r = 0; r < g.n; r++) {
			hc_json_arr(j);
			for (uint32_t c = 0; c < g.n; c++)
				hc_json_u64(j, g.m[kd][(size_t)r * g.n + c]);
			hc_json_arr_end(j);
		}
		hc_json_arr_end(j);
	}
	hc_json_obj_end(j);
	hc_json_obj_end(j);
	hc_report_groups_free(&g);
}
