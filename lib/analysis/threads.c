/* SPDX-License-Identifier: BSD-3-Clause */
/* threads.c — the global thread index and threads.csv. Every thread that has
   a used profile, or that another thread's events name as a peer or that is
   named as a creator, gets one global index: processes ordered by (MPI
   rank, start time, pid, exec generation, host, input order), threads by their index in
   the process. Threads known only from others keep their row in the matrices
   so that what others detected with them is not lost. The file itself is
   written by lib/db (write_threads.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

struct tkey {
	uint32_t order;     /* position of the process */
	uint32_t proc;
	uint32_t idx;
};

static int cmp_proc(const void *x, const void *y, void *arg)
{
	const struct an *an = arg;
	const struct an_proc *a = &an->procs[*(const uint32_t *)x];
	const struct an_proc *b = &an->procs[*(const uint32_t *)y];
	uint32_t ha = an->hosts[a->host].id, hb = an->hosts[b->host].id;

	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->gen != b->gen)
		return a->gen < b->gen ? -1 : 1;
	if (ha != hb)
		return ha < hb ? -1 : 1;
	return (a->input > b->input) - (a->input < b->input);
}

static int cmp_tkey(const void *x, const void *y)
{
	const struct tkey *a = x, *b = y;

	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static int cmp_i32(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;

	return (a > b) - (a < b);
}

static int add_key(struct hmap *h, uint32_t proc, uint32_t idx)
{
	struct hkey k = { proc, idx, 0 };
	uint32_t i;
	int ret = hmap__intern(h, &k, &i);

	return ret < 0 ? ret : 0;
}

const char *an__host_name(const struct an *an, uint32_t h)
{
	struct an_host *x = &an->hosts[h];

	if (x->topo && x->topo->hostname[0])
		return x->topo->hostname;
	snprintf(x->idname, sizeof(x->idname), "%08x", x->id);
	return x->idname;
}

bool threads__find(const struct an *an, uint32_t proc, uint32_t idx, uint32_t *g)
{
	struct hkey k = { proc, idx, 0 };

	if (!hmap__find(&an->thread_of, &k, g))
		return false;
	if (an->thread_g)
		*g = an->thread_g[*g];
	return true;
}

static int collect_cpus(struct an *an)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	uint32_t t, i;
	unsigned w;
	int ret;

	for (w = 0; w < an->nworkers; w++) {
		struct an_acc *a = &an->workers[w].acc[ui];

		if (!a->used)
			continue;
		for (i = 0; i < a->tcpus.h.n; i++) {
			const struct hkey *k = &a->tcpus.h.keys[i];
			struct an_thread *th;
			uint32_t g;

			if (!threads__find(an, (uint32_t)k->a, (uint32_t)k->b, &g))
				continue;
			th = &an->threads[g];
			ret = an__grow(&th->cpus, &th->cpucap, th->ncpus + 1, sizeof(*th->cpus));
			if (ret)
				return ret;
			th->cpus[th->ncpus++] = (int32_t)k->c;
		}
	}
	for (t = 0; t < an->nthreads; t++) {
		struct an_thread *th = &an->threads[t];
		uint32_t n = 0;

		if (th->ncpus > 1)
			qsort(th->cpus, th->ncpus, sizeof(*th->cpus), cmp_i32);
		for (i = 0; i < th->ncpus; i++)
			if (n == 0 || th->cpus[n - 1] != th->cpus[i])
				th->cpus[n++] = th->cpus[i];
		th->ncpus = n;
	}
	return 0;
}

static void match_logs(struct an *an)
{
	uint32_t i, p;

	for (i = 0; i < an->nlogs; i++) {
		const struct an_log *l = &an->logs[i];

		for (p = 0; p < an->nprocs; p++) {
			struct an_proc *pr = &an->procs[p];
			if (pr->used && !pr->log && pr->input == l->input &&
			    an->hosts[pr->host].id == l->name.hostid && pr->pid == l->name.pid &&
			    pr->gen == l->name.gen)
				pr->log = l->path;
		}
	}
}

int threads__assemble(struct an *an)
{
	struct hmap keys;
	struct tkey *tk = NULL;
	uint32_t i, j, n;
	int ret;

	ret = hmap__init(&keys, an->nprofs + 16);
	if (ret)
		return ret;
	for (i = 0; i < an->nprocs; i++) {
		an->procs[i].used = false;
		an->procs[i].start_ns = UINT64_MAX;
	}
	for (i = 0; i < an->nprofs && !ret; i++) {
		struct an_prof *p = &an->profs[i];
		struct an_proc *pr;

		if (p->status != AN_OK)
			continue;
		pr = &an->procs[p->proc];
		pr->used = true;
		if (p->th.start_ns < pr->start_ns)
			pr->start_ns = p->th.start_ns;
		ret = add_key(&keys, p->proc, p->th.index);
		for (j = 0; j < p->row.h.n && !ret; j++)
			ret = add_key(&keys, p->proc, (uint32_t)p->row.h.keys[j].a);
		if (!ret && p->th.creator != HC_NONE && p->th.creator < AN_MAX_THREAD)
			ret = add_key(&keys, p->proc, p->th.creator);
	}
	if (ret)
		goto out;

	/* Process order. */
	an->proc_order = malloc((an->nprocs ? an->nprocs : 1) * sizeof(*an->proc_order));
	if (!an->proc_order) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0, n = 0; i < an->nprocs; i++)
		if (an->procs[i].used)
			an->proc_order[n++] = i;
	an->nused_procs = n;
	qsort_r(an->proc_order, n, sizeof(*an->proc_order), cmp_proc, an);
	for (i = 0; i < n; i++)
		an->procs[an->proc_order[i]].order = i;

	/* Thread order. */
	n = keys.n;
	tk = malloc((n ? n : 1) * sizeof(*tk));
	an->threads = calloc(n ? n : 1, sizeof(*an->threads));
	if (!tk || !an->threads) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		tk[i].proc = (uint32_t)keys.keys[i].a;
		tk[i].idx = (uint32_t)keys.keys[i].b;
		tk[i].order = an->procs[tk[i].proc].order;
	}
	qsort(tk, n, sizeof(*tk), cmp_tkey);
	ret = hmap__init(&an->thread_of, n + 16);
	if (ret)
		goto out;
	for (i = 0; i < n; i++) {
		struct an_proc *pr = &an->procs[tk[i].proc];

		/* Inserted in order: the dense index is the global index. */
		ret = add_key(&an->thread_of, tk[i].proc, tk[i].idx);
		if (ret)
			goto out;
		an->threads[i].proc = tk[i].proc;
		an->threads[i].idx = tk[i].idx;
		an->threads[i].creator = HC_NONE;
		if (pr->nthreads == 0)
			pr->first = i;
		pr->nthreads++;
	}
	an->nthreads = n;

	for (i = 0; i < an->nprofs; i++) {
		struct an_prof *p = &an->profs[i];
		uint32_t g, c;

		if (p->status != AN_OK)
			continue;
		threads__find(an, p->proc, p->th.index, &g);
		p->gthread = g;
		an->threads[g].prof = p;
		if (p->th.creator != HC_NONE && threads__find(an, p->proc, p->th.creator, &c))
			an->threads[g].creator = c;
	}
	ret = collect_cpus(an);
	if (ret)
		goto out;
	match_logs(an);
out:
	free(tk);
	hmap__free(&keys);
	return ret;
}

/* threads.csv through lib/db's writer: one row per thread, plain data. */
int threads__write(struct an *an, const char *dir, char *err, size_t errlen)
{
	struct hc_db_wthread *rows = calloc(an->nthreads ? an->nthreads : 1, sizeof(*rows));
	uint32_t i;
	int ret;

	if (!rows) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_THREADS);
		return -ENOMEM;
	}
	for (i = 0; i < an->nthreads; i++) {
		const struct an_thread *t = &an->threads[i];
		const struct an_proc *pr = &an->procs[t->proc];
		const struct an_prof *p = t->prof;

		rows[i] = (struct hc_db_wthread){
			.process = pr->order, .pid = pr->pid, .thread = t->idx,
			.tid = p ? (int64_t)p->th.tid : -1,
			.creator = t->creator != HC_NONE ? (int64_t)t->creator : -1,
			.start_routine = t->start_name, .creation_context = t->creation_view,
			.cpus = t->cpus, .ncpus = t->ncpus,
			.profile = p ? p->path : NULL, .sampler = p ? (int)p->th.sampler : 0,
			.period = p ? p->th.period : 0,
			.rank = pr->rank, .host = an__host_name(an, pr->host),
		};
	}
	ret = hc_db_write_threads(dir, rows, an->nthreads, err, errlen);
	free(rows);
	return ret;
}
