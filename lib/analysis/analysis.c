/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis.c — one analyzer run, in order: check the output target and
   create the staging directory (so an unwritable output fails before any
   work), list the inputs, read and merge every profile in parallel, choose
   the unit, number the threads, load the topologies, symbolize into the view
   tree, resolve code pairs, build the matrices, write every file, and move
   the database into place. Damaged inputs are reported by name with the
   reason and skipped; the run fails only when nothing usable is left or the
   output cannot be written. Also the default database name. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/internal.h"
#include "analysis/objects.h"
#include "analysis/views.h"
#include "analysis/regions.h"
#include "db/views.h"
#include "report/insight.h"
#include "support/log.h"

void an__warn(struct an *an, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (an->o->diag)
		fprintf(an->o->diag, "hpcprof-comm: warning: %s\n", s);
	if (an__grow(&an->warns, &an->warncap, an->nwarns + 1, sizeof(*an->warns))) {
		free(s);
		return;
	}
	an->warns[an->nwarns++].text = s;
}

/* Profiles the runtime could not write (a full disk; a program that
   closed stderr, so that the runtime's own message went nowhere, or
   sandboxed itself in a way the runtime could not open up): each
   process log saying "profiles lost: N" is a warning naming the log and
   its first "cannot create" or "lost" line. The number of such logs. */
static unsigned logs_lost(struct an *an, bool warn, char *first, size_t len)
{
	unsigned nlost = 0;

	for (uint32_t i = 0; i < an->nlogs; i++) {
		FILE *f = fopen(an->logs[i].path, "re");
		char line[1024], why[1024] = "";
		unsigned n = 0;

		if (!f)
			continue;
		while (fgets(line, sizeof line, f)) {
			line[strcspn(line, "\n")] = 0;
			if (!why[0] && strstr(line, "thread ") == line && strstr(line, ": cannot "))
				snprintf(why, sizeof why, "%s", line);
			if (sscanf(line, "profiles lost: %u", &n) == 1)
				break;
		}
		fclose(f);
		if (!n)
			continue;
		if (warn)
			an__warn(an, "%s: %u thread profile%s lost (the runtime could not write %s%s%s); the measurement is "
			         "incomplete", an->logs[i].path, n, n == 1 ? "" : "s", n == 1 ? "it" : "them",
			         why[0] ? ": " : "", why);
		if (!nlost++ && first)
			snprintf(first, len, "%s says %u thread profile%s lost%s%s", an->logs[i].path, n,
			         n == 1 ? " was" : "s were", why[0] ? ": " : "", why);
	}
	return nlost;
}

/* HC_DEBUG=time (or all; hc_debug_init parses it, as for every
   category): the duration of each phase on the diagnostic stream, for
   benchmarks. */
struct phase {
	bool on;
	FILE *f;
	struct timespec t, cpu;     /* wall, and the process's CPU time (all threads) */
};

static void phase_start(struct phase *ph, const struct hc_analysis_opts *o)
{
	ph->on = o->diag && hc_debug_enabled(HC_DBG_TIME);
	ph->f = o->diag;
	clock_gettime(CLOCK_MONOTONIC, &ph->t);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ph->cpu);
}

static void phase_end(struct phase *ph, const char *what)
{
	struct timespec t, c;
	struct rusage ru;

	if (!ph->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
	/* CPU time too: on a shared machine the wall time says little; and the
	   process's peak RSS so far, to tell in which phase the peak is reached
	   (the CPU seconds stay the last number but one: bench/prof-scale). */
	fprintf(ph->f, "hpcprof-comm: time: %-12s %8.3f s  peak %6ld MB  cpu %8.3f s\n", what,
	        (double)(t.tv_sec - ph->t.tv_sec) + (double)(t.tv_nsec - ph->t.tv_nsec) / 1e9,
	        getrusage(RUSAGE_SELF, &ru) ? -1L : ru.ru_maxrss / 1024,
	        (double)(c.tv_sec - ph->cpu.tv_sec) + (double)(c.tv_nsec - ph->cpu.tv_nsec) / 1e9);
	ph->t = t;
	ph->cpu = c;
}

static void an_free(struct an *an)
{
	uint32_t i;
	unsigned w;

	sym__drop_all(an);
	for (i = 0; i < an->nprofs; i++) {
		struct an_prof *p = &an->profs[i];
		free(p->path);
		free(p->reason);
		free(p->map);
		agg__free(&p->row);
		regions__rrow_free(&p->rrow);
		free(p->counters);
	}
	free(an->profs);
	for (i = 0; i < an->nhosts; i++) {
		free(an->hosts[i].topo_path);
		topo__free(an->hosts[i].topo);
	}
	free(an->hosts);
	for (i = 0; i < an->nlogs; i++)
		free(an->logs[i].path);
	free(an->logs);
	strtab__free(&an->modules);
	hmap__free(&an->prockey);
	hmap__free(&an->claimed);
	free(an->procs);
	free(an->claim_prof);
	if (an->workers)
		for (w = 0; w < an->nworkers; w++) {
			merge__acc_free(&an->workers[w].acc[0]);
			merge__acc_free(&an->workers[w].acc[1]);
		}
	free(an->workers);
	cct__free(&an->tree);
	for (i = 0; i < an->nthreads; i++) {
		free(an->threads[i].start_name);
		free(an->threads[i].cpus);
	}
	free(an->threads);
	hmap__free(&an->thread_of);
	free(an->thread_g);
	free(an->proc_order);
	view__free(&an->view);
	free(an->cp_rows);
	regions__free(an);
	an__pool_free(&an->pool);
	free(an->ctx_rsid);
	free(an->first);
	hmap__free(&an->owner);
	for (i = 0; i < an->nwarns; i++)
		free(an->warns[i].text);
	free(an->warns);
	pthread_cond_destroy(&an->cond);
	pthread_mutex_destroy(&an->lock);
}

/* The profiles' region events by set, once the region matrices hold them. */
static void drop_region_events(struct an *an)
{
	for (uint32_t i = 0; i < an->nprofs; i++) {
		regions__rrow_free(&an->profs[i].rrow);
	}
}

/* The region matrices: built from the region events, written and freed
   (nothing later reads them), with the events and the modules' symbols.
   A failed write sets err. */
static int regions_pass(struct an *an, const char *stage, struct phase *ph, char *err,
                        size_t errlen)
{
	int ret = regions__build(an);

	drop_region_events(an);
	sym__drop_all(an);   /* the modules' symbols are not read after this */
	if (ret)
		return ret;
	ret = regions__write(an, stage, err, errlen);
	regions__free(an);
	if (!an->views)   /* else the views' window cells take the pages (views__finish) */
		an__pool_close(&an->pool);
	else
		views__pool_cap(an, an->views);
	if (!ret)
		phase_end(ph, "region mat.");
	return ret;
}

static void report_skipped(struct an *an, enum an_status *seen)
{
	uint32_t i;

	for (i = 0; i < an->nprofs; i++) {
		struct an_prof *p = &an->profs[i];
		if (p->status == AN_SKIPPED && seen[i] != AN_SKIPPED && an->o->diag)
			fprintf(an->o->diag, "hpcprof-comm: skipping profile %s\n",
			        p->reason ? p->reason : p->path);
		seen[i] = p->status;
	}
}

static void load_topologies(struct an *an)
{
	char err[1024];
	uint32_t h;

	for (h = 0; h < an->nhosts; h++) {
		struct an_host *x = &an->hosts[h];
		if (!x->topo_path)
			continue;
		if (topo__load(x->topo_path, &x->topo, err, sizeof(err)) < 0)
			an__warn(an, "%s (no socket or NUMA placement for host %08x)", err, x->id);
	}
}

/* Threads whose PMU events ran < 95 % of the time they were enabled (their
   profiles' pmu_time_enabled / pmu_time_running, read per thread by the
   runtime): database.xml's warnings, so every report shows them
   (doc/samplers.md). At most 16 named. */
static void pmu_running_warnings(struct an *an)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];
		uint64_t en = 0, run = 0;

		if (p->status != AN_OK)
			continue;
		for (uint32_t k = 0; k < p->ncounters; k++)
			if (strcmp(p->counters[k].name, "pmu_time_enabled") == 0)
				en = p->counters[k].value;
			else if (strcmp(p->counters[k].name, "pmu_time_running") == 0)
				run = p->counters[k].value;
		if (!en || run >= en - en / 20)
			continue;
		if (n++ < 16)
			an__warn(an, "thread %u (pid %u, tid %u): its PMU events ran %.1f%% of the time they "
			         "were enabled: its communication is short by about the rest",
			         p->gthread != HC_NONE ? p->gthread : i, p->th.pid, p->th.tid,
			         100.0 * (double)run / (double)en);
	}
	if (n > 16)
		an__warn(an, "... and %u more threads whose PMU events ran below 95%% of the time", n - 16);
}

/* What the soft sampler left out to keep its cost down (a crowded
   process: watchpoint sets the switch gate refused, coarse samples),
   summed over the threads: one warning in database.xml, so that every
   report says how much to trust an empty or a thin result
   (lib/report's hc_report_coverage_cut). */
static void coverage_warning(struct an *an)
{
	static const char *const name[] = { "samples", "samples_thinned", "watch_armed",
	                                     "watch_gated", "watch_threads_gated" };
	enum { N = sizeof(name) / sizeof(name[0]) };
	uint64_t v[N] = { 0 };
	struct hc_report_coverage c;
	char buf[768];

	for (uint32_t i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];

		if (p->status != AN_OK)
			continue;
		for (uint32_t k = 0; k < p->ncounters; k++)
			for (size_t n = 0; n < N; n++)
				if (strcmp(p->counters[k].name, name[n]) == 0)
					v[n] += p->counters[k].value;
	}
	c = (struct hc_report_coverage){ .samples = v[0], .thinned = v[1], .armed = v[2],
	                                 .gated = v[3], .threads_gated = v[4] };
	if (hc_report_coverage_cut(&c, buf, sizeof(buf)))
		an__warn(an, "%s", buf);
}

/* Writes the database (regions.xml and regions.csv were written when the
   region matrices were built, and freed). What a file was written from and
   nothing later reads is freed once it is written (the object table, the
   phases and locality), so that the summary's reading back of the
   database does not come on top of them: that was the analyzer's peak. */
static int write_all(struct an *an, const struct levels *lv, const struct hc_db_wpair *pairs,
                     uint32_t npairs, struct objects **objs, const char *dir, char **text,
                     char *err, size_t errlen)
{
	int ret, lev, kind;

	ret = threads__write(an, dir, err, errlen);
	for (lev = 0; lev < HC_DB_LEVEL_COUNT && !ret; lev++) {
		if (!lv->m[lev].present)
			continue;
		for (kind = 0; kind < HC_DB_KIND_COUNT && !ret; kind++)
			ret = matrix__write(&lv->m[lev], kind, an->dense_max, dir, err, errlen);
	}
	if (!ret)
		ret = experiment__write(an, pairs, npairs, dir, err, errlen);
	if (!ret)
		ret = meta__write(an, lv, dir, err, errlen);
	if (!ret)
		ret = objects__write(an, *objs, dir, err, errlen);
	if (!ret && an->views)
		ret = views__write(an, an->views, dir, err, errlen);
	/* the summary's phase table, so that it does not read back phases.xml */
	if (!ret && an->views) {
		an->phases_model = calloc(1, sizeof(*an->phases_model));
		ret = an->phases_model ? views__model(an, an->views, an->phases_model) : -ENOMEM;
		if (ret)
			snprintf(err, errlen, "out of memory");
	}
	views__free(an->views);   /* it points into the objects */
	an->views = NULL;
	objects__free(*objs);
	*objs = NULL;
	/* last: the reports read back what is written above */
	if (!ret)
		ret = summary__write(an, lv, pairs, npairs, dir, text, err, errlen);
	hc_db_views_free(an->phases_model);
	an->phases_model = NULL;
	return ret;
}

static int init(struct an *an, const struct hc_analysis_opts *o)
{
	long ncpu;
	int ret;

	memset(an, 0, sizeof(*an));
	an->o = o;
	an->comm = o->comm && o->comm->size > 1 ? o->comm : NULL;
	an->top = o->top ? o->top : HC_ANALYSIS_DEFAULT_TOP;
	an->dense_max = o->dense_max ? o->dense_max : HC_ANALYSIS_DEFAULT_DENSE_MAX;
	pthread_mutex_init(&an->lock, NULL);
	pthread_cond_init(&an->cond, NULL);
	an__pool_init(&an->pool);
	ret = strtab__init(&an->modules);
	if (!ret)
		ret = hmap__init(&an->prockey, 64);
	if (!ret)
		ret = hmap__init(&an->claimed, 1024);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	an->nworkers = o->jobs ? o->jobs : (ncpu > 0 ? (unsigned)ncpu : 1);
	if (an->nworkers > 1024)
		an->nworkers = 1024;
	return ret;
}

/* Distributed, every rank but 0 after sending its partial result: the
   object pass (with phases and locality) over its own profiles, in rank
   0's numbering, its sums up the tree (dist_objects.c). Returns 0 also when
   rank 0 failed (it says why). */
static int other_rank(struct an *an, struct phase *ph, char *err, size_t errlen)
{
	struct objects *objs = NULL;
	bool stop = false, done;
	int ret;

	ret = dist__ctx_recv(an, &stop, err, errlen);
	if (!ret && !stop) {
		phase_end(ph, "context");
		ret = dist__regions_reduce(an, err, errlen);
		phase_end(ph, "reg. reduce");
		if (!ret)
			ret = objects__build(an, &objs);
		phase_end(ph, "objects");
		if (!ret)
			ret = dist__objects_reduce(an, objs, &done, err, errlen);
		phase_end(ph, "obj. reduce");
	}
	objects__free(objs);
	if (ret && !err[0])
		snprintf(err, errlen, "%s", ret == -ENOMEM ? "out of memory" : strerror(-ret));
	return ret;
}

int hc_analysis_run(const struct hc_analysis_opts *o, struct hc_analysis_result *res,
                    char *err, size_t errlen)
{
	struct levels lv;
	struct phase ph;
	struct an an;
	struct hc_db_wpair *pairs = NULL;
	struct objects *objs = NULL;
	enum an_status *seen = NULL;
	uint32_t npairs = 0, ndirs = 0, i;
	char *stage = NULL, *text = NULL;
	bool dist, root, no_regions, reduced = false;
	int ret;

	if (res)
		memset(res, 0, sizeof(*res));
	memset(&lv, 0, sizeof(lv));
	err[0] = '\0';
	if (!o || !o->ninputs || !o->outdir) {
		snprintf(err, errlen, "no measurement directory or no output directory given");
		return -EINVAL;
	}
	dist = o->comm && o->comm->size > 1;
	root = !dist || o->comm->rank == 0;
	/* Distributed: only rank 0 writes; all ranks learn whether it can. */
	ret = root ? hc_db_check_target(o->outdir, o->force, err, errlen) : 0;
	if (ret && !dist)
		return ret;
	if (!ret)
		ret = init(&an, o);
	else if (init(&an, o) && dist)
		snprintf(err, errlen, "out of memory");
	if (ret)
		goto out_early;
	ret = root ? hc_db_stage(o->outdir, &stage, err, errlen) : 0;
	if (ret)
		goto out_early;

	phase_start(&ph, o);
	ret = scan__inputs(&an, &ndirs);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
out_early:
	if (ret && !err[0])
		snprintf(err, errlen, "%s", strerror(-ret));
	if (dist) {
		uint64_t bad = ret != 0;
		int r = o->comm->sum(o->comm->arg, &bad, 1);
		if (r && !ret) {
			snprintf(err, errlen, "the MPI transport failed: %s", strerror(-r));
			ret = r;
		}
		if (!ret && bad) {
			snprintf(err, errlen, "another rank failed (rank 0 says why)");
			ret = -ECANCELED;
		}
	}
	if (ret)
		goto out;
	phase_end(&ph, "scan");
	hmap__free(&an.owner);
	{
		char lost[1400] = "";

		if (logs_lost(&an, an.nlisted != 0, lost, sizeof lost) && !an.nlisted) {
			snprintf(err, errlen, "nothing to analyze: no profile (*.%s) in %s%s; the log %s", HC_PROF_SUFFIX,
			         o->inputs[0], o->ninputs > 1 ? " or the other inputs" : "", lost);
			ret = -ENOENT;
			goto out;
		}
	}
	if (!an.nlisted) {
		snprintf(err, errlen, "nothing to analyze: no profile (*.%s) in %s%s", HC_PROF_SUFFIX,
		         o->inputs[0], o->ninputs > 1 ? " or the other inputs" : "");
		ret = -ENOENT;
		goto out;
	}
	/* (distributed, a rank's share may be empty) */
	if (an.nworkers > an.nprofs)
		an.nworkers = an.nprofs ? an.nprofs : 1;
	seen = calloc(an.nprofs ? an.nprofs : 1, sizeof(*seen));
	if (!seen)
		goto out_nomem;

	ret = merge__read_all(&an);
	if (ret)
		goto out_nomem;
	phase_end(&ph, "read");
	ret = merge__combine(&an);
	if (!dist)
		report_skipped(&an, seen);
	if (ret)
		goto out_nomem;
	phase_end(&ph, "combine");
	/* The code regions (sequential: made after pass 2, regions__prepare;
	   distributed: the region sets of rank 0's merged tree, after the
	   reduction). HC_BENCH_NO_REGIONS=1: no code regions (no regions.xml / regions.csv), to
	   measure what they cost (doc/performance.md); not for users. */
	no_regions = getenv("HC_BENCH_NO_REGIONS") != NULL;
	ret = dist || no_regions ? 0 : regions__init(&an);
	if (ret)
		goto out_nomem;
	ret = merge__read_events(&an);
	if (ret)
		goto out_nomem;
	phase_end(&ph, "events");
	if (dist) {
		bool done;

		ret = dist__reduce(&an, &done, err, errlen);
		if (ret == -EPROTO)
			goto out;   /* err said it */
		if (ret)
			goto out_nomem;
		phase_end(&ph, "reduce");
		reduced = true;
		if (done) {
			/* sent up the tree: rank 0 goes on, and sends the context for
			   this rank's object pass */
			ret = other_rank(&an, &ph, err, errlen);
			goto out;
		}
		report_skipped(&an, seen);
		ret = no_regions ? 0 : regions__prepare(&an);
		if (!ret && !no_regions)
			ret = dist__regions(&an);
		if (ret)
			goto out_nomem;
	}
	merge__event_totals(&an);
	for (i = 0; i < an.nprofs; i++)
		if (an.profs[i].status == AN_OK)
			break;
	if (i == an.nprofs) {
		snprintf(err, errlen, "nothing usable: all %u profile%s found were skipped (reasons "
		         "above)", an.nprofs, an.nprofs == 1 ? "" : "s");
		ret = -ENOENT;
		goto out;
	}
	ret = threads__assemble(&an);
	if (ret)
		goto out_nomem;
	/* the CPUs each thread ran on are in an.threads[].cpus now */
	for (i = 0; i < an.nworkers; i++) {
		agg__free(&an.workers[i].acc[0].tcpus);
		agg__free(&an.workers[i].acc[1].tcpus);
	}
	load_topologies(&an);
	pmu_running_warnings(&an);
	coverage_warning(&an);
	phase_end(&ph, "threads");
	ret = view__build(&an);
	/* Distributed, rank 0: the other ranks' profiles' node maps were
	   needed for their threads' creation contexts only (symbolized now);
	   each rank's object pass reads its own. */
	for (i = 0; dist && i < an.nprofs; i++)
		if (an.profs[i].theirs) {
			free(an.profs[i].map);
			an.profs[i].map = NULL;
			an.profs[i].nnodes = 0;
		}
	phase_end(&ph, "symbolize");
	/* Sequential: the regions and the loops of the functions that can be
	   kept, now that pass 2's code pairs give the functions' volumes. */
	if (!ret && !dist && !no_regions) {
		ret = regions__prepare(&an);
		phase_end(&ph, "regions");
	}
	/* HC_BENCH_NO_VIEWS=1: no phases.xml or locality.xml, to measure what
	   they cost (doc/performance.md); not for users. Set up here (only
	   view__build warns before), so that distributed, the windows go to the
	   other ranks with the context while rank 0 builds the matrices. */
	if (!ret && !getenv("HC_BENCH_NO_VIEWS"))
		ret = views__init(&an, o->window_ns, &an.views);
	if (!ret && dist)
		ret = dist__ctx_send(&an);
	if (!ret)
		ret = pairs__collect(&an, &pairs, &npairs);
	if (!ret)
		ret = matrix__build(&an, &lv);
	if (!ret && !dist)
		an.thread_cells = lv.m[HC_DB_LEVEL_THREAD].ncell;
	/* the region set pairs' volumes, from the code pairs before they go */
	if (!ret)
		ret = regions__pairs(&an);
	if (ret)
		goto out_nomem;
	/* The profiles' thread-matrix rows are in the matrix now, the workers'
	   code pairs in pairs and the regions' set pairs, their CPU pairs in the
	   CPU-level matrices. */
	for (i = 0; i < an.nprofs; i++)
		agg__free(&an.profs[i].row);
	for (i = 0; i < an.nworkers; i++)
		for (int u = 0; u < 2; u++) {
			agg__free(&an.workers[i].acc[u].pairs);
			agg__free(&an.workers[i].acc[u].cpus);
		}
	phase_end(&ph, "pairs+matrix");
	/* Distributed: the other ranks' region events first (in the sequential
	   order, the region matrices come before the object table). */
	if (dist) {
		ret = dist__regions_reduce(&an, err, errlen);
		if (ret == -EPROTO)
			goto out;
		if (ret)
			goto out_nomem;
		phase_end(&ph, "reg. reduce");
	}
	ret = regions_pass(&an, stage, &ph, err, errlen);
	if (ret)
		goto out_nomem;
	ret = objects__build(&an, &objs);
	if (ret)
		goto out_nomem;
	phase_end(&ph, "objects");
	if (dist) {
		bool done;

		ret = dist__objects_reduce(&an, objs, &done, err, errlen);
		if (ret == -EPROTO)
			goto out;
		if (!ret)
			ret = objects__rank(objs);
		if (ret)
			goto out_nomem;
		phase_end(&ph, "obj. reduce");
	}
	ret = an.views ? views__finish(&an, an.views, objs) : 0;
	an__pool_close(&an.pool);
	if (ret)
		goto out_nomem;
	phase_end(&ph, "views");
	ret = write_all(&an, &lv, pairs, npairs, &objs, stage, &text, err, errlen);
	if (ret)
		goto out;
	phase_end(&ph, "write");
	ret = hc_db_commit(stage, o->outdir, o->force, err, errlen);
	if (ret)
		goto out;
	free(stage);
	stage = NULL;
	if (o->progress)
		o->progress(o->progress_arg, NULL, 0, 0);
	if (o->summary && text) {
		fputs(text, o->summary);
		fflush(o->summary);
	}
	goto out;

out_nomem:   /* err, when set, says more than "out of memory" */
	if (ret == 0 || (ret == -ENOMEM && !err[0])) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
	} else if (!err[0]) {
		snprintf(err, errlen, "%s", strerror(-ret));
	}
out:
	if (res) {
		res->found = an.nprofs;
		for (i = 0; i < an.nprofs; i++) {
			res->read += an.profs[i].status == AN_OK;
			res->skipped += an.profs[i].status != AN_OK;
		}
		res->processes = an.nused_procs;
		res->threads = an.nthreads;
	}
	if (ret && o->progress)
		o->progress(o->progress_arg, NULL, 0, 0);
	/* Rank 0 failed after the reduction: the others wait for the context. */
	if (dist && root && reduced && !an.ctx_sent)
		dist__ctx_abort(&an);
	if (stage) {
		hc_db_discard(stage);
		free(stage);
	}
	free(text);
	free(seen);
	free(pairs);
	objects__free(objs);
	matrix__free(&lv);
	views__free(an.views);
	an_free(&an);
	return ret;
}

int hc_analysis_default_outdir(const char *input, char *buf, size_t len)
{
	static const char meas[] = HC_DB_MEASUREMENTS_SUFFIX;
	char base[4096], name[4200];
	const char *b, *m, *hit = NULL;
	size_t n;
	struct stat st;
	int k;

	n = strlen(input);
	while (n > 1 && input[n - 1] == '/')
		n--;
	if (n >= sizeof(base))
		return -ENAMETOOLONG;
	memcpy(base, input, n);
	base[n] = '\0';
	b = strrchr(base, '/');
	b = b && b[1] ? b + 1 : base;
	if (strcmp(b, ".") == 0 || strcmp(b, "/") == 0 || strcmp(b, "..") == 0)
		b = "hpctoolkit";
	/* The last "-measurements" that ends the name or is followed by "-". */
	for (m = strstr(b, meas); m; m = strstr(m + 1, meas))
		if (m[sizeof(meas) - 1] == '\0' || m[sizeof(meas) - 1] == '-')
			hit = m;
	if (hit)
		snprintf(name, sizeof(name), "%.*s%s%s", (int)(hit - b), b, HC_DB_DATABASE_SUFFIX,
		         hit + sizeof(meas) - 1);
	else
		snprintf(name, sizeof(name), "%s%s", b, HC_DB_DATABASE_SUFFIX);
	for (k = 1; k <= 1000; k++) {
		int w = k == 1 ? snprintf(buf, len, "%s", name) : snprintf(buf, len, "%s-%d", name, k);
		if (w < 0 || (size_t)w >= len)
			return -ENAMETOOLONG;
		if (lstat(buf, &st) < 0 && errno == ENOENT)
			return 0;
	}
	return -EEXIST;
}
