/* SPDX-License-Identifier: BSD-3-Clause */
/* summary.c — summary.txt, the text a perf c2c user reads first: what was
   measured and in which unit, the totals with the true/false split and how
   they were detected (sample vs trap), then three top-N tables: thread pairs
   (from the thread matrix), code pairs aggregated by source location
   (file:line <-> file:line, over all calling contexts), and functions by
   exclusive communication (the innermost function of each statement, inlined
   ones counted as themselves). The text is built in memory and written to
   summary.txt and, when asked, to the terminal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "analysis/internal.h"
#include "analysis/regions.h"
#include "report/placement.h"

#define RULE "==============================================================================\n"

struct row {
	uint32_t a, b;
	uint64_t t, f;
};

static int cmp_row(const void *x, const void *y)
{
	const struct row *p = x, *q = y;
	uint64_t vp = p->t + p->f, vq = q->t + q->f;

	if (vp != vq)
		return vp > vq ? -1 : 1;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

static void section(struct hc_out *o, const char *title)
{
	hc_out_printf(o, "\n" RULE " %s\n" RULE, title);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* "file.c:45 (worker)" or "[lib.so+0x1234]" for view node x. */
static void put_loc(struct hc_out *o, const struct an *an, uint32_t x)
{
	const struct view *v = &an->view;
	const struct vnode *n = &v->n[x];
	const char *proc = v->names.s[v->proc[v->n[n->parent].proc].name];

	if (n->file) {
		hc_out_puts(o, base_name(v->files.s[n->file]));
		hc_out_printf(o, ":%u (%s)", n->line, proc);
	} else {
		hc_out_puts(o, proc);
	}
}

static void put_thread(struct hc_out *o, const struct an *an, uint32_t g)
{
	const struct an_thread *t = &an->threads[g];
	const struct an_proc *pr = &an->procs[t->proc];
	char buf[64];

	if (t->prof)
		snprintf(buf, sizeof(buf), "T%u (%u/%u)", g, pr->pid, t->prof->th.tid);
	else
		snprintf(buf, sizeof(buf), "T%u (%u/?)", g, pr->pid);
	hc_out_printf(o, "%-22s", buf);
}

static void put_vals(struct hc_out *o, uint64_t t, uint64_t f, uint64_t total)
{
	char b0[24], b1[24], b2[24];

	hc_out_printf(o, "%14s %6.1f%% %12s %12s", hc_fmt_u64(b0, t + f), pct(t + f, total),
	            hc_fmt_u64(b1, t), hc_fmt_u64(b2, f));
}

/* A runtime counter summed over the used profiles (0 when absent). */
static uint64_t counter_sum(const struct an *an, const char *name)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];
		if (p->status != AN_OK)
			continue;
		for (uint32_t k = 0; k < p->ncounters; k++)
			if (strcmp(p->counters[k].name, name) == 0)
				v += p->counters[k].value;
	}
	return v;
}

static uint64_t counter_of(const struct an_prof *p, const char *name)
{
	for (uint32_t k = 0; k < p->ncounters; k++)
		if (strcmp(p->counters[k].name, name) == 0)
			return p->counters[k].value;
	return 0;
}

/* Each thread whose PMU events ran less than 95 % of the time they were
   enabled (per-thread pmu_time_enabled / pmu_time_running, read from the
   events at the thread's end): its matrices' rows and columns are short by
   about that share. At most 8 named, then a count. */
static void pmu_threads_low(struct hc_out *o, const struct an *an)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];
		uint64_t en, run;

		if (p->status != AN_OK)
			continue;
		en = counter_of(p, "pmu_time_enabled");
		run = counter_of(p, "pmu_time_running");
		if (!en || run >= en - en / 20)
			continue;
		if (n++ < 8)
			hc_out_printf(o, "  warning: thread %u (pid %u, tid %u): its PMU events ran %.1f%% of "
			            "the time they were enabled\n", p->gthread != HC_NONE ? p->gthread : i,
			            p->th.pid, p->th.tid, pct(run, en));
	}
	if (n > 8)
		hc_out_printf(o, "  ... and %u more threads below 95%%\n", n - 8);
}

/* PMU samples whose callers are unknown (an older record of a batch, skid
   past a return, a record drained at the thread's end): attached as their
   instruction alone under the thread's root (doc/samplers.md, "Batches").
   Their code locations and matrices are exact; their calling-context
   paths are not. */
static void pmu_leaf_only(struct hc_out *o, const struct an *an)
{
	uint64_t leaf = counter_sum(an, "pmu_ctx_leaf_only");
	uint64_t all = counter_sum(an, "samples_with_access_at_pc");
	char b[2][24];

	if (!leaf || !counter_sum(an, "pmu_records"))
		return;
	hc_out_printf(o, "  note: %s of %s PMU samples (%.1f%%) have approximate calling contexts: "
	            "callers unknown\n        (batched record, skid past a return, drained at "
	            "thread end), attached as the instruction\n        alone under the thread's "
	            "root; their code locations and matrices are exact.\n",
	            hc_fmt_u64(b[0], leaf), hc_fmt_u64(b[1], all > leaf ? all : leaf), pct(leaf, all > leaf ? all : leaf));
}

/* What the PMU samplers need the reader to know (doc/samplers.md): the
   period the kernel used, events that did not run all the time, throttling. */
static void pmu_notes(struct hc_out *o, const struct an *an)
{
	uint64_t n = counter_sum(an, "pmu_period_records"), en = counter_sum(an, "pmu_time_enabled");
	uint64_t run = counter_sum(an, "pmu_time_running"), thr = counter_sum(an, "pmu_throttled");
	char b[2][24];

	if (n)
		hc_out_printf(o, "  PMU period in effect: mean %s events (%s records)\n",
		            hc_fmt_u64(b[0], counter_sum(an, "pmu_period_sum") / n), hc_fmt_u64(b[1], n));
	if (en && run < en - en / 20)
		hc_out_printf(o, "  warning: the PMU events ran %.1f%% of the time they were enabled: "
		            "stretches went unsampled\n        (other perf users, counter constraints, "
		            "E-cores; see the process logs).\n", pct(run, en));
	pmu_threads_low(o, an);
	pmu_leaf_only(o, an);
	if (thr)
		hc_out_printf(o, "  warning: the kernel throttled the PMU sampler %s times "
		            "(perf_event_max_sample_rate):\n        samples are missing; measure with "
		            "a larger COMM@P.\n", hc_fmt_u64(b[0], thr));
}

static void totals(struct hc_out *o, const struct an *an)
{
	uint64_t d[HC_DB_M_COUNT];
	const uint64_t *m = an->mtot;
	char b[3][24];
	uint64_t all;

	experiment__derive(m, d);
	all = d[HC_DB_M_ALL];
	section(o, "Communication totals");
	hc_out_printf(o, "  %-12s %14s %7s %14s %7s %14s\n", "", "all", "", "true", "", "false");
	hc_out_printf(o, "  %-12s %14s %6.1f%% %14s %6.1f%% %14s %6.1f%%\n", "total",
	            hc_fmt_u64(b[0], all), pct(all, all), hc_fmt_u64(b[1], d[HC_DB_M_TRUE]),
	            pct(d[HC_DB_M_TRUE], all), hc_fmt_u64(b[2], d[HC_DB_M_FALSE]),
	            pct(d[HC_DB_M_FALSE], all));
	hc_out_printf(o, "  %-12s %14s %6.1f%% %14s %6.1f%% %14s %6.1f%%\n", "by sample",
	            hc_fmt_u64(b[0], d[HC_DB_M_SAMPLE]), pct(d[HC_DB_M_SAMPLE], all),
	            hc_fmt_u64(b[1], m[HC_M_TRUE_SAMPLE]), pct(m[HC_M_TRUE_SAMPLE], all),
	            hc_fmt_u64(b[2], m[HC_M_FALSE_SAMPLE]), pct(m[HC_M_FALSE_SAMPLE], all));
	hc_out_printf(o, "  %-12s %14s %6.1f%% %14s %6.1f%% %14s %6.1f%%\n", "by trap",
	            hc_fmt_u64(b[0], d[HC_DB_M_TRAP]), pct(d[HC_DB_M_TRAP], all),
	            hc_fmt_u64(b[1], m[HC_M_TRUE_TRAP]), pct(m[HC_M_TRUE_TRAP], all),
	            hc_fmt_u64(b[2], m[HC_M_FALSE_TRAP]), pct(m[HC_M_FALSE_TRAP], all));
	hc_out_printf(o, "  (percentages of the total; unit: %s)\n", hc_db_unit_name(an->unit));
	hc_out_printf(o, "\n  events: %s records, total weight %s %s\n", hc_fmt_u64(b[0], an->nevents),
	            hc_fmt_u64(b[1], an->event_weight), hc_db_unit_name(an->unit));
	if (an->event_weight != all)
		hc_out_printf(o, "  note: the event records (matrices, code pairs) add up to %s, the "
		            "calling-context metrics to %s:\n        the runtime did not keep every "
		            "event (see the counters in database.xml).\n",
		            hc_fmt_u64(b[0], an->event_weight), hc_fmt_u64(b[1], all));
	pmu_notes(o, an);
}

static int thread_pairs(struct hc_out *o, const struct an *an, const struct matrix *m)
{
	struct row *r = NULL;
	uint32_t n = 0, cap = 0, i, k;
	uint64_t total = matrix__total(m, HC_DB_KIND_ALL);
	int ret;

	for (k = 0; k < m->ncell; k++) {
		const struct mcell *c = &m->cell[k];
		ret = an__grow(&r, &cap, n + 1, sizeof(*r));
		if (ret) {
			free(r);
			return ret;
		}
		r[n++] = (struct row){ c->i, c->j, c->v[0], c->v[1] };
	}
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_row);
	section(o, "Top thread pairs");
	if (!n) {
		hc_out_puts(o, "  no communication between threads\n");
		free(r);
		return 0;
	}
	hc_out_printf(o, "  %3s  %-22s %-22s %14s %7s %12s %12s\n", "#", "thread (pid/tid)",
	            "peer thread", "all", "%", "true", "false");
	for (i = 0; i < n && i < an->top; i++) {
		hc_out_printf(o, "  %3u  ", i + 1);
		put_thread(o, an, r[i].a);
		hc_out_puts(o, " ");
		put_thread(o, an, r[i].b);
		put_vals(o, r[i].t, r[i].f, total);
		hc_out_puts(o, "\n");
	}
	hc_out_printf(o, "  (%u communicating pair%s; %% of all communication between threads)\n",
	            n, n == 1 ? "" : "s");
	free(r);
	return 0;
}

/* Location key of a statement or call site: (file, line, innermost proc). */
static int loc_of(const struct an *an, struct hmap *locs, uint32_t x, uint32_t *id, uint32_t **rep,
                  uint32_t *repcap)
{
	const struct vnode *n = &an->view.n[x];
	struct hkey k = { (uint64_t)n->file | (uint64_t)n->line << 32, an->view.n[n->parent].proc, 0 };
	int ret = hmap__intern(locs, &k, id);

	if (ret < 0)
		return ret;
	if (ret == 1) {
		int r = an__grow(rep, repcap, locs->n, sizeof(**rep));
		if (r)
			return r;
		(*rep)[*id] = x;
	}
	return 0;
}

static int code_pairs(struct hc_out *o, const struct an *an, const struct pair *pairs, uint32_t npairs)
{
	struct hmap locs;
	struct agg by;
	uint32_t *rep = NULL, repcap = 0, i;
	struct row *r = NULL;
	uint64_t total = 0;
	int ret;

	ret = hmap__init(&locs, 256);
	if (ret)
		return ret;
	ret = agg__init(&by, 256);
	if (ret) {
		hmap__free(&locs);
		return ret;
	}
	for (i = 0; i < npairs && !ret; i++) {
		uint32_t a, b = UINT32_MAX;
		struct hkey k;

		ret = loc_of(an, &locs, pairs[i].c, &a, &rep, &repcap);
		if (!ret && pairs[i].p)
			ret = loc_of(an, &locs, pairs[i].p, &b, &rep, &repcap);
		if (ret)
			break;
		if (b < a) {
			uint32_t x = a;
			a = b;
			b = x;
		}
		k = (struct hkey){ a, b, 0 };
		ret = agg__add(&by, &k, pairs[i].t, pairs[i].f);
		total += pairs[i].t + pairs[i].f;
	}
	if (ret)
		goto out;
	r = malloc((by.h.n ? by.h.n : 1) * sizeof(*r));
	if (!r) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < by.h.n; i++)
		r[i] = (struct row){ (uint32_t)by.h.keys[i].a, (uint32_t)by.h.keys[i].b, by.v[i][0],
		                     by.v[i][1] };
	qsort(r, by.h.n, sizeof(*r), cmp_row);
	section(o, "Top code pairs (source line <-> source line, all calling contexts)");
	if (!by.h.n) {
		hc_out_puts(o, "  no code pairs\n");
		goto out;
	}
	hc_out_printf(o, "  %3s  %14s %7s %12s %12s   %s\n", "#", "all", "%", "true", "false",
	            "code <-> peer code");
	for (i = 0; i < by.h.n && i < an->top; i++) {
		hc_out_printf(o, "  %3u  ", i + 1);
		put_vals(o, r[i].t, r[i].f, total);
		hc_out_puts(o, "   ");
		put_loc(o, an, rep[r[i].a]);
		hc_out_puts(o, " <-> ");
		if (r[i].b == UINT32_MAX)
			hc_out_puts(o, "(unknown: peer profile missing)");
		else
			put_loc(o, an, rep[r[i].b]);
		hc_out_puts(o, "\n");
	}
out:
	free(r);
	free(rep);
	agg__free(&by);
	hmap__free(&locs);
	return ret;
}

static int functions(struct hc_out *o, const struct an *an)
{
	const struct view *v = &an->view;
	uint64_t (*sum)[HC_M_COUNT];
	struct row *r;
	uint32_t i, n = 0;
	uint64_t d[HC_DB_M_COUNT], total;
	int k;

	experiment__derive(an->mtot, d);
	total = d[HC_DB_M_ALL];
	sum = calloc(v->procs.n ? v->procs.n : 1, sizeof(*sum));
	r = malloc((v->procs.n ? v->procs.n : 1) * sizeof(*r));
	if (!sum || !r) {
		free(sum);
		free(r);
		return -ENOMEM;
	}
	for (i = 1; i < v->index.n; i++) {
		const struct vnode *x = &v->n[i];
		if (x->kind != V_S && x->kind != V_C)
			continue;
		for (k = 0; k < HC_M_COUNT; k++)
			sum[v->n[x->parent].proc][k] += x->excl[k];
	}
	for (i = 0; i < v->procs.n; i++) {
		experiment__derive(sum[i], d);
		if (d[HC_DB_M_ALL])
			r[n++] = (struct row){ i, 0, d[HC_DB_M_TRUE], d[HC_DB_M_FALSE] };
	}
	qsort(r, n, sizeof(*r), cmp_row);
	section(o, "Top functions (exclusive: accesses in the function itself)");
	if (!n)
		hc_out_puts(o, "  no function with communication\n");
	else
		hc_out_printf(o, "  %3s  %14s %7s %12s %12s   %s\n", "#", "all", "%", "true", "false",
		            "function (file)");
	for (i = 0; i < n && i < an->top; i++) {
		const struct procedure *p = &v->proc[r[i].a];
		hc_out_printf(o, "  %3u  ", i + 1);
		put_vals(o, r[i].t, r[i].f, total);
		hc_out_puts(o, "   ");
		hc_out_puts(o, v->names.s[p->name]);
		if (p->file)
			hc_out_printf(o, " (%s)", base_name(v->files.s[p->file]));
		else
			hc_out_printf(o, " (%s)", base_name(an->modules.s[p->lm]));
		hc_out_puts(o, "\n");
	}
	free(sum);
	free(r);
	return 0;
}

static void header(struct hc_out *o, const struct an *an)
{
	uint32_t i, used = 0, skipped = 0;
	int b, e;

	for (i = 0; i < an->nprofs; i++) {
		used += an->profs[i].status == AN_OK;
		skipped += an->profs[i].status != AN_OK;
	}
	hc_out_printf(o, "hpcprof-comm %s: inter-thread communication summary\n", PACKAGE_VERSION);
	hc_out_printf(o, "  program    %s (%u process%s, %u thread%s)\n", experiment__program(an),
	            an->nused_procs, an->nused_procs == 1 ? "" : "es", an->nthreads,
	            an->nthreads == 1 ? "" : "s");
	hc_out_printf(o, "  profiles   %u used", used);
	if (skipped)
		hc_out_printf(o, ", %u skipped (reasons in %s)", skipped, HC_DB_META);
	hc_out_puts(o, "\n  sampler    ");
	for (b = 0, e = 0; b <= HC_SAMPLER_LAST; b++)
		if (an->samplers & (1u << b))
			hc_out_printf(o, "%s%s", e++ ? ", " : "", hc_db_sampler_name(b));
	hc_out_printf(o, "\n  unit       %s = %s\n", hc_db_unit_name(an->unit),
	              hc_db_unit_text_of(an->unit, an->samplers));
}

/* ---- thread placement (issue 15 point 6; lib/report/placement.c) ---- */

/* Fill a placement input for process p: its threads' row of the thread
   matrix, its host's cores (hwloc topology), each thread's one CPU, and the
   run's volumes from the events' CPUs when the host ran this process only.
   Arrays malloc'd (hc_place_in_free); label[] receives thread indexes. */
static int place_input(const struct an *an, const struct levels *lv, uint32_t p,
                       struct hc_place_in *in, uint32_t *label)
{
	const struct an_proc *pr = &an->procs[p];
	const struct topo *tp = pr->host < an->nhosts ? an->hosts[pr->host].topo : NULL;
	const struct matrix *tm = &lv->m[HC_DB_LEVEL_THREAD];
	struct hc_place_edge *e;
	struct hc_place_core *cores;
	int32_t *ran;
	uint32_t nc = 0, np = 0;

	memset(in, 0, sizeof(*in));
	e = calloc(tm->ncell ? tm->ncell : 1, sizeof(*e));
	cores = calloc(tp && tp->npu ? tp->npu : 1, sizeof(*cores));
	ran = calloc(pr->nthreads ? pr->nthreads : 1, sizeof(*ran));
	if (!e || !cores || !ran) {
		free(e);
		free(cores);
		free(ran);
		return -ENOMEM;
	}
	for (uint32_t k = 0; k < tm->ncell; k++) {
		const struct mcell *c = &tm->cell[k];
		if (c->i >= pr->first && c->i < pr->first + pr->nthreads &&
		    c->j >= pr->first && c->j < pr->first + pr->nthreads)
			e[in->nedges++] = (struct hc_place_edge){ c->i - pr->first, c->j - pr->first,
			                                          c->v[0] + c->v[1] };
	}
	/* cores in logical order, each with its PUs */
	for (uint32_t i = 0; tp && i < tp->npu; i++) {
		const struct topo_pu *u = &tp->pu[i];
		uint32_t k;
		if (u->core < 0)
			continue;
		for (k = 0; k < nc && cores[k].core != u->core; k++)
			;
		if (k == nc) {
			cores[nc].core = u->core;
			cores[nc].socket = u->socket;
			snprintf(cores[nc++].cpus, sizeof(cores[0].cpus), "%d", u->cpu);
		} else {
			size_t len = strlen(cores[k].cpus);
			snprintf(cores[k].cpus + len, sizeof(cores[k].cpus) - len, ",%d", u->cpu);
		}
	}
	for (uint32_t i = 1; i < nc; i++)
		for (uint32_t j = i; j > 0 && cores[j].core < cores[j - 1].core; j--) {
			struct hc_place_core x = cores[j];
			cores[j] = cores[j - 1];
			cores[j - 1] = x;
		}
	for (uint32_t t = 0; t < pr->nthreads; t++) {
		const struct an_thread *th = &an->threads[pr->first + t];
		const struct topo_pu *u = th->ncpus == 1 ? topo__pu(tp, th->cpus[0]) : NULL;
		ran[t] = -1;
		for (uint32_t k = 0; u && k < nc; k++)
			if (cores[k].core == u->core)
				ran[t] = (int32_t)k;
		label[t] = th->idx;
	}
	for (uint32_t q = 0; q < an->nprocs; q++)
		np += an->procs[q].used && an->procs[q].host == pr->host;
	if (np == 1 && tp && lv->m[HC_DB_LEVEL_SOCKET].present && lv->lab[HC_DB_LEVEL_CORE]) {
		const struct matrix *cm = &lv->m[HC_DB_LEVEL_CORE], *sm = &lv->m[HC_DB_LEVEL_SOCKET];
		const struct label *lab = lv->lab[HC_DB_LEVEL_CORE];
		for (uint32_t k = 0; k < cm->ncell; k++) {
			const struct mcell *c = &cm->cell[k];
			if (c->i < lv->n_lab[HC_DB_LEVEL_CORE] && c->j < lv->n_lab[HC_DB_LEVEL_CORE] &&
			    lab[c->i].core != lab[c->j].core)
				in->run_cross_core += c->v[0] + c->v[1];
		}
		for (uint32_t k = 0; k < sm->ncell; k++)
			in->run_cross_socket += sm->cell[k].v[0] + sm->cell[k].v[1];
		in->run_events = true;
	}
	in->nthreads = pr->nthreads;
	in->edges = e;
	in->cores = cores;
	in->ncores = nc;
	in->ran_on = ran;
	return 0;
}

/* One block per process with at least two threads (at most 4 processes). */
static int placement(struct hc_out *o, const struct an *an, const struct levels *lv)
{
	uint32_t shown = 0, skipped = 0;

	section(o, "Thread placement");
	hc_out_printf(o, "  Where to pin which thread: Scotch's mapping of the thread matrix onto "
	            "the host's packages and cores\n  (distance 1 across cores, %d across "
	            "packages), against this run's placement.\n", HC_PLACE_LINK_PACKAGE + 1);
	for (uint32_t p = 0; p < an->nprocs; p++) {
		const struct an_proc *pr = &an->procs[p];
		struct hc_place_in in;
		struct hc_place_out out;
		uint32_t *label;

		if (!pr->used || pr->nthreads < 2)
			continue;
		if (shown == 4) {
			skipped++;
			continue;
		}
		hc_out_printf(o, "\n  process %u (%s, host %08x):\n", pr->pid, base_name(pr->exe),
		            pr->host < an->nhosts ? an->hosts[pr->host].id : 0);
		if (pr->nthreads > HC_PLACE_MAX_THREADS) {
			hc_out_printf(o, "    no placement proposed: %u threads (more than %u): pin "
			            "groups of threads instead (see the thread matrix).\n",
			            pr->nthreads, HC_PLACE_MAX_THREADS);
			shown++;
			continue;
		}
		label = calloc(pr->nthreads, sizeof(*label));
		if (!label || place_input(an, lv, p, &in, label) < 0) {
			free(label);
			return -ENOMEM;
		}
		if (hc_place_compute(&in, &out) < 0) {
			hc_place_in_free(&in);
			free(label);
			return -ENOMEM;
		}
		fflush(o->f);
		hc_place_print(o->f, "    ", &in, &out, label, 64);
		hc_place_free(&out);
		hc_place_in_free(&in);
		free(label);
		shown++;
	}
	if (!shown)
		hc_out_printf(o, "  no process with two threads or more: nothing to place.\n");
	if (skipped)
		hc_out_printf(o, "\n  ... and %u more processes (viewer-export --json has them all).\n", skipped);
	return 0;
}

int summary__write(struct an *an, const struct levels *lv, const struct pair *pairs,
                   uint32_t npairs, const char *dir, char **text, char *err, size_t errlen)
{
	struct hc_out o, f;
	char *buf = NULL;
	size_t len = 0;
	int ret, e;

	*text = NULL;
	memset(&o, 0, sizeof(o));
	o.f = open_memstream(&buf, &len);
	if (!o.f) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_SUMMARY);
		return -ENOMEM;
	}
	header(&o, an);
	totals(&o, an);
	ret = thread_pairs(&o, an, &lv->m[HC_DB_LEVEL_THREAD]);
	if (!ret)
		ret = code_pairs(&o, an, pairs, npairs);
	if (!ret)
		ret = functions(&o, an);
	if (!ret)
		ret = placement(&o, an, lv);
	if (!ret)
		regions__summary(an, &o);
	e = o.err;
	if (fclose(o.f) != 0 || e || ret) {
		free(buf);
		snprintf(err, errlen, "out of memory writing %s", HC_DB_SUMMARY);
		return ret ? ret : -ENOMEM;
	}
	ret = hc_out_open(&f, dir, HC_DB_SUMMARY, err, errlen);
	if (!ret) {
		if (len && fwrite(buf, 1, len, f.f) != len)
			f.err = errno ? errno : EIO;
		ret = hc_out_close(&f, true, err, errlen);
	}
	if (ret) {
		free(buf);
		return ret;
	}
	*text = buf;
	return 0;
}
