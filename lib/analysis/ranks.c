/* SPDX-License-Identifier: BSD-3-Clause */
/* ranks.c — the MPI rank view of database.xml (doc/database-format.md,
   <Ranks>): for a measurement whose processes carry more than one MPI rank,
   each rank's host, processes and threads, the communication among its own
   threads (within) and with threads of other ranks (across: the row sum of
   the rank × rank matrix), and the non-zero cells of that matrix. All of it
   is the thread matrix (published values, i < j) summed by the ranks of the
   two threads, so it adds up to the thread matrix's total. Written (by
   lib/db's hc_db_write_meta) only when there are several ranks: other
   databases do not change. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

struct rk {
	uint32_t rank, host, procs, threads;
	uint64_t within[2], across[2];
};

int ranks__build(struct an *an, const struct levels *lv, struct hc_db_wrank **rows,
                 uint32_t *nrows, struct hc_db_wrankpair **rpairs, uint32_t *nrpairs)
{
	const struct matrix *m = &lv->m[HC_DB_LEVEL_THREAD];
	struct rk *r = NULL;
	uint32_t *of_thread = NULL, n = 0, i, k;
	struct hc_db_wrank *wr = NULL;
	struct hc_db_wrankpair *wp = NULL;
	struct agg pairs;
	int ret;

	*rows = NULL;
	*rpairs = NULL;
	*nrows = *nrpairs = 0;

	/* Processes are in rank order (threads.c): one entry per change. */
	for (i = 0; i < an->nused_procs; i++) {
		const struct an_proc *pr = &an->procs[an->proc_order[i]];
		if (i == 0 || pr->rank != an->procs[an->proc_order[i - 1]].rank)
			n++;
	}
	if (n < 2)
		return 0;
	ret = agg__init(&pairs, 16);
	if (ret)
		return ret;
	r = calloc(n, sizeof(*r));
	of_thread = calloc(an->nthreads ? an->nthreads : 1, sizeof(*of_thread));
	if (!r || !of_thread) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0, k = 0; i < an->nused_procs; i++) {
		const struct an_proc *pr = &an->procs[an->proc_order[i]];
		if (i && pr->rank != an->procs[an->proc_order[i - 1]].rank)
			k++;
		if (!r[k].procs) {
			r[k].rank = pr->rank;
			r[k].host = pr->host;
		}
		r[k].procs++;
		r[k].threads += pr->nthreads;
		for (uint32_t t = 0; t < pr->nthreads; t++)
			of_thread[pr->first + t] = k;
	}
	for (k = 0; k < m->ncell && !ret; k++) {
		const struct hc_db_mcell *c = &m->cell[k];
		uint32_t a = of_thread[c->i], b = of_thread[c->j];

		if (a == b) {
			r[a].within[0] += c->v[0];
			r[a].within[1] += c->v[1];
			continue;
		}
		r[a].across[0] += c->v[0];
		r[a].across[1] += c->v[1];
		r[b].across[0] += c->v[0];
		r[b].across[1] += c->v[1];
		{
			struct hkey key = { a < b ? a : b, a < b ? b : a, 0 };
			ret = agg__add(&pairs, &key, c->v[0], c->v[1]);
		}
	}
	if (ret)
		goto out;
	wr = calloc(n, sizeof(*wr));
	wp = calloc(pairs.h.n ? pairs.h.n : 1, sizeof(*wp));
	if (!wr || !wp) {
		ret = -ENOMEM;
		goto out;
	}
	for (k = 0; k < n; k++)
		wr[k] = (struct hc_db_wrank){ .rank = r[k].rank, .host = an__host_name(an, r[k].host),
		                              .processes = r[k].procs, .threads = r[k].threads,
		                              .within = { r[k].within[0], r[k].within[1] },
		                              .across = { r[k].across[0], r[k].across[1] } };
	/* The matrix's non-zero cells, by (rank, rank): sorted for a stable file. */
	{
		uint64_t *keys = malloc((pairs.h.n ? pairs.h.n : 1) * sizeof(*keys));
		if (!keys) {
			ret = -ENOMEM;
			goto out;
		}
		for (k = 0; k < pairs.h.n; k++)
			keys[k] = pairs.h.keys[k].a << 32 | pairs.h.keys[k].b;
		for (k = 1; k < pairs.h.n; k++)   /* few ranks pairs: insertion sort */
			for (uint32_t j = k; j > 0 && keys[j - 1] > keys[j]; j--) {
				uint64_t x = keys[j];
				keys[j] = keys[j - 1];
				keys[j - 1] = x;
			}
		for (k = 0; k < pairs.h.n; k++) {
			struct hkey key = { keys[k] >> 32, (uint32_t)keys[k], 0 };
			uint32_t at;
			hmap__find(&pairs.h, &key, &at);
			wp[k] = (struct hc_db_wrankpair){ r[key.a].rank, r[key.b].rank,
			                                  { pairs.v[at][0], pairs.v[at][1] } };
		}
		free(keys);
	}
	*rows = wr;
	*nrows = n;
	*rpairs = wp;
	*nrpairs = pairs.h.n;
	wr = NULL;
	wp = NULL;
out:
	free(wr);
	free(wp);
	agg__free(&pairs);
	free(r);
	free(of_thread);
	return ret;
}
