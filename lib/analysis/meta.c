/* SPDX-License-Identifier: BSD-3-Clause */
/* meta.c — what database.xml holds (doc/database-format.md section 4),
   handed to lib/db's writer (write_meta.c) as plain rows: the unit, inputs,
   skipped profiles with their reasons, hosts and their topologies,
   processes, the MPI ranks (ranks.c), the matrices' totals, the labels of
   the core/socket/NUMA indexes, totals, counters summed over the profiles,
   and warnings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct an_counter *)a)->name, ((const struct an_counter *)b)->name);
}

/* Counters summed by name over the used profiles, sorted by name. */
static int sum_counters(const struct an *an, struct an_counter **out, uint32_t *nout)
{
	struct strtab names;
	struct an_counter *c = NULL;
	uint32_t cap = 0, i, k, id;
	int ret;

	*out = NULL;
	*nout = 0;
	ret = strtab__init(&names);
	if (ret)
		return ret;
	for (i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];

		if (p->status != AN_OK)
			continue;
		for (k = 0; k < p->ncounters; k++) {
			ret = strtab__intern(&names, p->counters[k].name, &id);
			if (ret < 0)
				goto out;
			if (ret == 1) {
				ret = an__grow(&c, &cap, names.n, sizeof(*c));
				if (ret)
					goto out;
				memset(&c[id], 0, sizeof(c[id]));
				memcpy(c[id].name, p->counters[k].name, sizeof(c[id].name));
			}
			c[id].value += p->counters[k].value;
		}
	}
	ret = 0;
	if (c)
		qsort(c, names.n, sizeof(*c), cmp_counter);
	*out = c;
	*nout = names.n;
	c = NULL;
out:
	free(c);
	strtab__free(&names);
	return ret;
}

/* What database.xml holds, as lib/db's plain rows (db/write.h). */
int meta__write(struct an *an, const struct levels *lv, const char *dir, char *err, size_t errlen)
{
	struct hc_db_wmeta m = { .unit = an->unit, .samplers = an->samplers,
	                         .inputs = an->o->inputs, .ninputs = an->o->ninputs,
	                         .found = an->nprofs, .dense_max = an->dense_max,
	                         .events = an->nevents, .event_weight = an->event_weight,
	                         .nhosts = an->nhosts, .nprocs = an->nused_procs,
	                         .nwarnings = an->nwarns };
	struct an_counter *cnt = NULL;
	struct hc_db_wskip *skips = calloc(an->nprofs ? an->nprofs : 1, sizeof(*skips));
	struct hc_db_whost *hosts = calloc(an->nhosts ? an->nhosts : 1, sizeof(*hosts));
	struct hc_db_wprocess *procs = calloc(an->nused_procs ? an->nused_procs : 1, sizeof(*procs));
	struct hc_db_wlabel *labels[HC_DB_LEVEL_COUNT] = { NULL };
	struct hc_db_wcounter *counters = NULL;
	const char **warnings = calloc(an->nwarns ? an->nwarns : 1, sizeof(*warnings));
	struct hc_db_wrank *ranks = NULL;
	struct hc_db_wrankpair *rankpairs = NULL;
	uint32_t ncnt = 0, i;
	int ret, lev, kind;

	ret = !skips || !hosts || !procs || !warnings ? -ENOMEM : 0;
	if (!ret)
		ret = sum_counters(an, &cnt, &ncnt);
	if (!ret && !(counters = calloc(ncnt ? ncnt : 1, sizeof(*counters))))
		ret = -ENOMEM;
	if (!ret)
		ret = ranks__build(an, lv, &ranks, &m.nranks, &rankpairs, &m.nrankpairs);
	for (lev = HC_DB_LEVEL_CORE; lev < HC_DB_LEVEL_COUNT && !ret; lev++)
		if (!(labels[lev] = calloc(lv->n_lab[lev] ? lv->n_lab[lev] : 1, sizeof(*labels[lev]))))
			ret = -ENOMEM;
	if (ret) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_META);
		goto out;
	}
	for (i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];

		if (p->status == AN_OK) {
			m.read++;
			continue;
		}
		m.skipped++;
		skips[m.nskips++] = (struct hc_db_wskip){ p->path, p->reason ? p->reason : "not read" };
	}
	for (i = 0; i < an->nhosts; i++) {
		const struct an_host *h = &an->hosts[i];

		hosts[i] = (struct hc_db_whost){ .id = h->id };
		if (h->topo) {
			hosts[i].name = h->topo->hostname;
			hosts[i].topology = h->topo_path;
			hosts[i].pus = h->topo->npu;
			hosts[i].cores = h->topo->ncores;
			hosts[i].sockets = h->topo->nsockets;
			hosts[i].numa = h->topo->nnuma;
		}
	}
	for (i = 0; i < an->nused_procs; i++) {
		const struct an_proc *pr = &an->procs[an->proc_order[i]];

		procs[i] = (struct hc_db_wprocess){ .host = an->hosts[pr->host].id, .rank = pr->rank,
		                                    .pid = pr->pid, .ppid = pr->ppid, .gen = pr->gen,
		                                    .exe = pr->exe, .start_ns = pr->start_ns,
		                                    .threads = pr->nthreads, .first_thread = pr->first,
		                                    .log = pr->log };
	}
	for (lev = 0; lev < HC_DB_LEVEL_COUNT; lev++) {
		const struct matrix *x = &lv->m[lev];
		struct hc_db_wmatinfo *w = &m.mat[lev];

		*w = (struct hc_db_wmatinfo){ .present = x->present, .n = x->n,
		                              .diag = { x->diag[0], x->diag[1] },
		                              .unplaced = { x->unplaced[0], x->unplaced[1] } };
		for (kind = 0; x->present && kind < HC_DB_KIND_COUNT; kind++)
			w->total[kind] = matrix__total(x, kind);
	}
	for (lev = HC_DB_LEVEL_CORE; lev < HC_DB_LEVEL_COUNT; lev++) {
		for (i = 0; i < lv->n_lab[lev]; i++) {
			const struct label *l = &lv->lab[lev][i];
			labels[lev][i] = (struct hc_db_wlabel){ an->hosts[l->host].id, l->cpu, l->core,
			                                        l->socket, l->numa };
		}
		m.labels[lev] = labels[lev];
		m.nlabels[lev] = lv->n_lab[lev];
	}
	for (i = 0; i < ncnt; i++)
		counters[i] = (struct hc_db_wcounter){ cnt[i].name, cnt[i].value };
	for (i = 0; i < an->nwarns; i++)
		warnings[i] = an->warns[i].text;
	memcpy(m.totals, an->mtot, sizeof(m.totals));
	m.skips = skips;
	m.hosts = hosts;
	m.procs = procs;
	m.ranks = ranks;
	m.rankpairs = rankpairs;
	m.counters = counters;
	m.ncounters = ncnt;
	m.warnings = warnings;
	ret = hc_db_write_meta(dir, &m, err, errlen);
out:
	for (lev = 0; lev < HC_DB_LEVEL_COUNT; lev++)
		free(labels[lev]);
	free(skips);
	free(hosts);
	free(procs);
	free(counters);
	free(warnings);
	free(ranks);
	free(rankpairs);
	free(cnt);
	return ret;
}
