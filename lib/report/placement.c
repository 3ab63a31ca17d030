/* SPDX-License-Identifier: BSD-3-Clause */
/* placement.c — a thread -> core placement from the thread matrix and the
   host's topology (placement.h), by Scotch's static mapping: the threads
   are a graph (edge weight = the volume between two threads, both
   directions), the host a tree-leaf target (packages x cores, link costs
   HC_PLACE_LINK_PACKAGE and 1), and SCOTCH_graphMap places every vertex on
   a leaf minimising the sum of weight x distance under Scotch's load
   balance. The target holds only as many packages as the threads need
   (ceil(threads / cores per package)), so that a few threads that fit on
   one package are not spread over two by the balance; which packages: the
   ones the run used most. Scotch is deterministic once its random
   generator is reset. Then the run's placement (each thread's one core,
   when every thread stayed on one) is kept if it was already as good.
   Volumes: cross-core = between threads on different cores, cross-package
   = between threads on different packages (a subset of cross-core), both
   over the volume between distinct threads. No signal context. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scotch/scotch.h>

#include "report/placement.h"
#include "report/report.h"

static int cmp_edge(const void *x, const void *y)
{
	const struct hc_place_edge *a = x, *b = y;

	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	return (a->b > b->b) - (a->b < b->b);
}

/* Edges with a < b, sorted, merged; self edges and bad indexes dropped. */
static struct hc_place_edge *norm_edges(const struct hc_place_in *in, size_t *n, uint64_t *total)
{
	struct hc_place_edge *e = malloc((in->nedges ? in->nedges : 1) * sizeof(*e));
	size_t k = 0, u = 0;

	*n = 0;
	*total = 0;
	if (!e)
		return NULL;
	for (size_t i = 0; i < in->nedges; i++) {
		struct hc_place_edge x = in->edges[i];
		if (x.a == x.b || x.a >= in->nthreads || x.b >= in->nthreads || !x.w)
			continue;
		if (x.a > x.b) {
			uint32_t t = x.a;
			x.a = x.b;
			x.b = t;
		}
		e[k++] = x;
	}
	qsort(e, k, sizeof(*e), cmp_edge);
	for (size_t i = 0; i < k; i++) {
		if (u && e[u - 1].a == e[i].a && e[u - 1].b == e[i].b)
			e[u - 1].w += e[i].w;
		else
			e[u++] = e[i];
		*total += e[i].w;
	}
	*n = u;
	return e;
}

/* Volumes and cost of a placement (core index per thread). */
static void measure(const struct hc_place_in *in, const struct hc_place_edge *e, size_t n,
                    const int32_t *core, uint64_t *cc, uint64_t *cs, uint64_t *cost)
{
	*cc = *cs = *cost = 0;
	for (size_t i = 0; i < n; i++) {
		const struct hc_place_core *x = &in->cores[core[e[i].a]], *y = &in->cores[core[e[i].b]];
		if (core[e[i].a] == core[e[i].b])
			continue;
		*cc += e[i].w;
		if (x->socket != y->socket) {
			*cs += e[i].w;
			*cost += e[i].w * (HC_PLACE_LINK_PACKAGE + 1);
		} else {
			*cost += e[i].w;
		}
	}
}

/* Packages in order of first appearance among the cores; members[s] lists
   core indexes. Returns the count, or 0 on no memory. */
static uint32_t packages(const struct hc_place_in *in, int **ids, uint32_t **cnt, uint32_t ***members)
{
	uint32_t ns = 0;

	*ids = calloc(in->ncores, sizeof(**ids));
	*cnt = calloc(in->ncores, sizeof(**cnt));
	*members = calloc(in->ncores, sizeof(**members));
	if (!*ids || !*cnt || !*members)
		return 0;
	for (uint32_t c = 0; c < in->ncores; c++) {
		uint32_t s;
		for (s = 0; s < ns && (*ids)[s] != in->cores[c].socket; s++)
			;
		if (s == ns) {
			(*ids)[ns] = in->cores[c].socket;
			(*members)[ns] = calloc(in->ncores, sizeof(uint32_t));
			if (!(*members)[ns])
				return 0;
			ns++;
		}
		(*members)[s][(*cnt)[s]++] = c;
	}
	return ns;
}

static void free_packages(int *ids, uint32_t *cnt, uint32_t **members, uint32_t ns)
{
	for (uint32_t s = 0; members && s < ns; s++)
		free(members[s]);
	free(members);
	free(cnt);
	free(ids);
}

/* Scotch's static mapping of the thread graph onto nleaf leaves (the
   tree-leaf target levels sizes[0..nlev) with link costs links[]): part[]
   receives each thread's leaf. 0, or -1 with why. */
static int scotch_map(const struct hc_place_in *in, const struct hc_place_edge *e, size_t ne,
                      int nlev, const SCOTCH_Num *sizes, const SCOTCH_Num *links, SCOTCH_Num *part,
                      char *why, size_t wlen)
{
	SCOTCH_Num *vert = NULL, *adj = NULL, *w = NULL, *fill = NULL;
	SCOTCH_Graph g;
	SCOTCH_Arch a;
	SCOTCH_Strat s;
	uint64_t wmax = 0;
	int ret = -1, ga = 0, aa = 0, sa = 0;
	uint32_t n = in->nthreads;

	vert = calloc((size_t)n + 1, sizeof(*vert));
	fill = calloc((size_t)n + 1, sizeof(*fill));
	adj = calloc(2 * ne + 1, sizeof(*adj));
	w = calloc(2 * ne + 1, sizeof(*w));
	if (!vert || !fill || !adj || !w) {
		snprintf(why, wlen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < ne; i++) {
		vert[e[i].a + 1]++;
		vert[e[i].b + 1]++;
		if (e[i].w > wmax)
			wmax = e[i].w;
	}
	for (uint32_t v = 0; v < n; v++)
		vert[v + 1] += vert[v];
	/* Scotch's loads are ints: scale the largest to 10^6, keep every edge >= 1 */
	for (size_t i = 0; i < ne; i++) {
		SCOTCH_Num x = (SCOTCH_Num)((unsigned __int128)e[i].w * 1000000u / (wmax ? wmax : 1));
		SCOTCH_Num p = vert[e[i].a] + fill[e[i].a]++, q = vert[e[i].b] + fill[e[i].b]++;
		if (x < 1)
			x = 1;
		adj[p] = (SCOTCH_Num)e[i].b;
		w[p] = x;
		adj[q] = (SCOTCH_Num)e[i].a;
		w[q] = x;
	}
	if (SCOTCH_graphInit(&g) != 0) {
		snprintf(why, wlen, "Scotch: cannot initialise a graph");
		goto out;
	}
	ga = 1;
	if (SCOTCH_graphBuild(&g, 0, (SCOTCH_Num)n, vert, vert + 1, NULL, NULL, vert[n], adj, w) != 0 ||
	    SCOTCH_graphCheck(&g) != 0) {
		snprintf(why, wlen, "Scotch refused the thread graph (%u threads, %zu edges)", n, ne);
		goto out;
	}
	if (SCOTCH_archInit(&a) != 0) {
		snprintf(why, wlen, "Scotch: cannot initialise a target");
		goto out;
	}
	aa = 1;
	if (SCOTCH_archTleaf(&a, nlev, sizes, links) != 0) {
		snprintf(why, wlen, "Scotch refused the tree-leaf target");
		goto out;
	}
	if (SCOTCH_stratInit(&s) != 0) {
		snprintf(why, wlen, "Scotch: cannot initialise a strategy");
		goto out;
	}
	sa = 1;
	if (SCOTCH_stratGraphMapBuild(&s, SCOTCH_STRATQUALITY, SCOTCH_archSize(&a), 0.0) != 0) {
		snprintf(why, wlen, "Scotch: no mapping strategy");
		goto out;
	}
	SCOTCH_randomReset();
	if (SCOTCH_graphMap(&g, &a, &s, part) != 0) {
		snprintf(why, wlen, "Scotch's mapping failed");
		goto out;
	}
	ret = 0;
out:
	if (sa)
		SCOTCH_stratExit(&s);
	if (aa)
		SCOTCH_archExit(&a);
	if (ga)
		SCOTCH_graphExit(&g);
	free(vert);
	free(fill);
	free(adj);
	free(w);
	return ret;
}

/* With no more threads than cores, every thread gets a core of its own:
   a thread that shares one moves to a free core, of its package first. */
static void spread(const struct hc_place_in *in, int32_t *core)
{
	uint8_t *used = calloc(in->ncores, 1);

	if (!used || in->nthreads > in->ncores) {
		free(used);
		return;
	}
	for (uint32_t t = 0; t < in->nthreads; t++) {
		int32_t c = core[t], best = -1;
		if (!used[c]) {
			used[c] = 1;
			continue;
		}
		for (uint32_t k = 0; k < in->ncores; k++)
			if (!used[k] && (best < 0 || (in->cores[k].socket == in->cores[c].socket &&
			                              in->cores[best].socket != in->cores[c].socket)))
				best = (int32_t)k;
		core[t] = best;
		used[best] = 1;
	}
	free(used);
}

int hc_place_compute(const struct hc_place_in *in, struct hc_place_out *out)
{
	struct hc_place_edge *e = NULL;
	SCOTCH_Num *part = NULL;
	int *ids = NULL;
	uint32_t *cnt = NULL, **members = NULL, ns = 0, use = 0, *order = NULL;
	size_t ne = 0;
	bool ran_all;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	out->nthreads = in->nthreads;
	out->ncores = in->ncores;
	if (in->nthreads < 2) {
		out->status = HC_PLACE_ONE_THREAD;
		snprintf(out->why, sizeof(out->why), "%s: nothing to place",
		         in->nthreads ? "one thread" : "no threads");
		return 0;
	}
	if (in->ncores == 0) {
		out->status = HC_PLACE_NO_TOPOLOGY;
		snprintf(out->why, sizeof(out->why), "the host's cores are unknown (no topology recorded)");
		return 0;
	}
	e = norm_edges(in, &ne, &out->total);
	out->core = calloc(in->nthreads, sizeof(*out->core));
	if (!e || !out->core)
		goto nomem;
	ns = packages(in, &ids, &cnt, &members);
	if (!ns)
		goto nomem;
	out->nsockets = ns;
	out->cores_per_socket = cnt[0];
	for (uint32_t s = 1; s < ns; s++)
		if (cnt[s] != cnt[0])
			out->flat = true;

	ran_all = in->ran_on != NULL;
	for (uint32_t t = 0; ran_all && t < in->nthreads; t++)
		ran_all = in->ran_on[t] >= 0 && (uint32_t)in->ran_on[t] < in->ncores;
	if (ran_all) {
		measure(in, e, ne, in->ran_on, &out->run_cross_core, &out->run_cross_socket, &out->run_cost);
		out->run_known = out->run_cost_known = true;
	} else if (in->run_events) {
		out->run_known = true;
		out->run_cross_core = in->run_cross_core;
		out->run_cross_socket = in->run_cross_socket;
	}

	if (in->ncores == 1) {
		out->status = HC_PLACE_ONE_CORE;
		snprintf(out->why, sizeof(out->why), "one core: every thread runs there, nothing to choose");
		goto out;
	}
	if (out->total == 0) {
		out->status = HC_PLACE_NO_COMM;
		snprintf(out->why, sizeof(out->why), "no communication between threads was measured: "
		         "every placement is as good");
		goto out;
	}

	part = calloc(in->nthreads, sizeof(*part));
	order = calloc(ns, sizeof(*order));
	if (!part || !order)
		goto nomem;
	{
		uint32_t slots = in->nthreads < in->ncores ? in->nthreads : in->ncores;
		SCOTCH_Num sizes[2], links[2];
		int nlev;

		if (out->flat) {
			/* packages of unequal size: one level of every core (cross-package
			   distance not modelled) */
			sizes[0] = (SCOTCH_Num)in->ncores;
			links[0] = 1;
			nlev = 1;
			use = 0;
		} else {
			uint32_t cps = cnt[0];
			/* packages by the run's use (threads that stayed on one of their
			   cores), then in order */
			uint32_t *used = calloc(ns, sizeof(*used));
			if (!used)
				goto nomem;
			for (uint32_t t = 0; in->ran_on && t < in->nthreads; t++)
				for (uint32_t s = 0; in->ran_on[t] >= 0 && s < ns; s++)
					if (ids[s] == in->cores[in->ran_on[t]].socket)
						used[s]++;
			for (uint32_t s = 0; s < ns; s++)
				order[s] = s;
			for (uint32_t i = 1; i < ns; i++)
				for (uint32_t j = i; j > 0 && used[order[j]] > used[order[j - 1]]; j--) {
					uint32_t x = order[j];
					order[j] = order[j - 1];
					order[j - 1] = x;
				}
			free(used);
			use = (slots + cps - 1) / cps;
			if (use > ns)
				use = ns;
			if (use > 1) {
				sizes[0] = (SCOTCH_Num)use;
				links[0] = HC_PLACE_LINK_PACKAGE;
				sizes[1] = (SCOTCH_Num)cps;
				links[1] = 1;
				nlev = 2;
			} else {
				sizes[0] = (SCOTCH_Num)cps;
				links[0] = 1;
				nlev = 1;
			}
		}
		if (scotch_map(in, e, ne, nlev, sizes, links, part, out->why, sizeof(out->why)) < 0) {
			out->status = HC_PLACE_ERROR;
			goto out;
		}
		for (uint32_t t = 0; t < in->nthreads; t++) {
			SCOTCH_Num p = part[t];
			if (out->flat) {
				out->core[t] = (int32_t)(p >= 0 && (uint32_t)p < in->ncores ? p : 0);
			} else {
				uint32_t cps = cnt[0], s = (uint32_t)p / cps, k = (uint32_t)p % cps;
				if (p < 0 || s >= ns)
					s = k = 0;
				out->core[t] = (int32_t)members[order[s]][k];
			}
		}
	}
	spread(in, out->core);
	measure(in, e, ne, out->core, &out->cross_core, &out->cross_socket, &out->cost);
	/* The run's own placement, when every thread stayed on one core (a
	   pinned run) and no two shared one: kept if it costs no more. */
	if (ran_all && out->run_cost <= out->cost) {
		bool distinct = true;
		uint8_t *seen = calloc(in->ncores, 1);
		if (!seen)
			goto nomem;
		for (uint32_t t = 0; t < in->nthreads && in->nthreads <= in->ncores; t++) {
			distinct &= !seen[in->ran_on[t]];
			seen[in->ran_on[t]] = 1;
		}
		free(seen);
		if (distinct || in->nthreads > in->ncores) {
			memcpy(out->core, in->ran_on, in->nthreads * sizeof(*out->core));
			out->cross_core = out->run_cross_core;
			out->cross_socket = out->run_cross_socket;
			out->cost = out->run_cost;
			out->kept = true;
		}
	}
	out->status = HC_PLACE_OK;
	snprintf(out->why, sizeof(out->why), "%s", out->kept ?
	         "the run's placement is already as good as Scotch's: keep it" :
	         "Scotch static mapping onto the package/core tree");
	goto out;
nomem:
	out->status = HC_PLACE_ERROR;
	snprintf(out->why, sizeof(out->why), "out of memory");
	ret = -ENOMEM;
out:
	free_packages(ids, cnt, members, ns ? ns : (members ? in->ncores : 0));
	free(part);
	free(order);
	free(e);
	if (out->status != HC_PLACE_OK && out->status != HC_PLACE_ONE_CORE) {
		free(out->core);
		out->core = NULL;
	}
	return ret;
}

void hc_place_free(struct hc_place_out *out)
{
	free(out->core);
	out->core = NULL;
}

char *hc_place_omp_places(const struct hc_place_in *in, const struct hc_place_out *out,
                          char *buf, size_t sz)
{
	size_t k = 0;

	if (sz)
		buf[0] = 0;
	/* an OpenMP team has one thread per place: only while threads fit */
	if (!out->core || out->status != HC_PLACE_OK || out->nthreads > out->ncores)
		return buf;
	for (uint32_t t = 0; t < out->nthreads && k + 1 < sz; t++) {
		int n = snprintf(buf + k, sz - k, "%s{%s}", t ? "," : "", in->cores[out->core[t]].cpus);
		if (n < 0 || (size_t)n >= sz - k) {
			buf[k] = 0;
			break;
		}
		k += (size_t)n;
	}
	return buf;
}

static void pct_line(FILE *f, const char *indent, const char *what, uint64_t run, bool run_known,
                     uint64_t prop, uint64_t total)
{
	char r[32], p[32], c[32];

	if (run_known && run)
		snprintf(c, sizeof(c), "%+.1f%%", 100.0 * ((double)prop - (double)run) / (double)run);
	else
		snprintf(c, sizeof(c), "-");
	fprintf(f, "%s  %-22s %12s %12s %9s\n", indent, what,
	        run_known ? hc_report_pct(r, sizeof(r), run, total) : "?",
	        hc_report_pct(p, sizeof(p), prop, total), c);
}

void hc_place_print(FILE *f, const char *indent, const struct hc_place_in *in,
                    const struct hc_place_out *out, const uint32_t *label, uint32_t max_threads)
{
	char *places;
	size_t psz;

	if (out->status != HC_PLACE_OK) {
		fprintf(f, "%sno placement proposed: %s.\n", indent, out->why);
		return;
	}
	if (out->flat)
		fprintf(f, "%s%u threads on %u cores (packages of unequal size: mapped on the cores "
		        "alone, cross-package distance not modelled)\n", indent, out->nthreads, out->ncores);
	else
		fprintf(f, "%s%u threads on %u cores (%u package%s x %u cores); %s\n", indent,
		        out->nthreads, out->ncores, out->nsockets, out->nsockets == 1 ? "" : "s",
		        out->cores_per_socket, out->why);
	fprintf(f, "%s  %-22s %12s %12s %9s\n", indent, "share of the volume", "this run",
	        "proposed", "change");
	pct_line(f, indent, "across packages", out->run_cross_socket, out->run_known, out->cross_socket,
	         out->total);
	pct_line(f, indent, "across cores", out->run_cross_core, out->run_known, out->cross_core,
	         out->total);
	if (!out->run_known)
		fprintf(f, "%s  (this run's placement is unknown: threads moved between CPUs and the "
		        "host ran other measured processes)\n", indent);
	if (out->nthreads > out->ncores)
		fprintf(f, "%smore threads than cores: threads that share a core are assumed not to run at "
		        "the same time\n%s(short-lived threads, one generation after another); no OMP_PLACES "
		        "(an OpenMP team has one thread per place)\n", indent, indent);
	psz = (size_t)out->nthreads * 140 + 16;
	places = out->nthreads <= out->ncores ? malloc(psz) : NULL;
	if (places) {
		hc_place_omp_places(in, out, places, psz);
		fprintf(f, "%sOpenMP (OpenMP thread i = thread i of the process, in creation order):\n", indent);
		fprintf(f, "%s  OMP_PLACES='%s' OMP_PROC_BIND=close\n", indent, places);
		free(places);
	}
	fprintf(f, "%sper thread ($TID_i: thread i's Linux thread id in the new run, ps -L), "
	        "either command:\n", indent);
	for (uint32_t t = 0; t < out->nthreads; t++) {
		const struct hc_place_core *c = &in->cores[out->core[t]];
		uint32_t i = label ? label[t] : t;
		if (max_threads && t >= max_threads) {
			fprintf(f, "%s  ... and %u more threads\n", indent, out->nthreads - t);
			break;
		}
		fprintf(f, "%s  T%-3u -> core %d (cpus %s):  taskset -pc %s $TID_%u   hwloc-bind --tid "
		        "$TID_%u core:%d\n", indent, i, c->core, c->cpus, c->cpus, i, i, c->core);
	}
}

/* ---- from a database ---- */

void hc_place_in_free(struct hc_place_in *in)
{
	free((void *)in->edges);
	free((void *)in->cores);
	free((void *)in->ran_on);
	memset(in, 0, sizeof(*in));
}

/* CPUs of a threads.csv "cpus" field ("0-3;8;10-11"): the only one, or -1
   when none or several. */
static int64_t only_cpu(const char *s)
{
	char *end;
	long long v;

	if (!s || !*s)
		return -1;
	v = strtoll(s, &end, 10);
	return *end == 0 && v >= 0 ? v : -1;
}

int hc_place_from_db(const struct hc_db *db, size_t p, struct hc_place_in *in, uint32_t **label,
                     struct hc_place_out *out)
{
	const struct hc_db_matrix *tm = &db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_ALL];
	const struct hc_db_matrix *cm = &db->mat[HC_DB_LEVEL_CORE][HC_DB_KIND_ALL];
	const struct hc_db_matrix *sm = &db->mat[HC_DB_LEVEL_SOCKET][HC_DB_KIND_ALL];
	const struct hc_db_label *lab = db->labels[HC_DB_LEVEL_CORE];
	const struct hc_db_process *pr = &db->procs[p];
	struct hc_place_edge *e = NULL;
	struct hc_place_core *cores = NULL;
	int32_t *ran = NULL, *tmap = NULL;
	uint32_t *lb = NULL, nt = 0, nc = 0;
	size_t ne = 0, procs_here = 0;

	memset(in, 0, sizeof(*in));
	*label = NULL;
	tmap = malloc((tm->n ? tm->n : 1) * sizeof(*tmap));
	lb = calloc(db->nthreads ? db->nthreads : 1, sizeof(*lb));
	if (!tmap || !lb)
		goto nomem;
	for (uint32_t g = 0; g < tm->n; g++)
		tmap[g] = -1;
	for (size_t g = 0; g < db->nthreads; g++)
		if (db->threads[g].process == pr->i && db->threads[g].index < tm->n) {
			tmap[db->threads[g].index] = (int32_t)nt;
			lb[nt++] = (uint32_t)db->threads[g].thread;
		}
	e = calloc(tm->ncells ? tm->ncells : 1, sizeof(*e));
	if (!e)
		goto nomem;
	for (size_t k = 0; k < tm->ncells; k++) {
		const struct hc_db_cell *c = &tm->cells[k];
		if (c->i < tm->n && c->j < tm->n && tmap[c->i] >= 0 && tmap[c->j] >= 0)
			e[ne++] = (struct hc_place_edge){ (uint32_t)tmap[c->i], (uint32_t)tmap[c->j], c->v };
	}
	/* the host's cores, from the core level's labels (one per PU) */
	cores = calloc(db->nlabels[HC_DB_LEVEL_CORE] ? db->nlabels[HC_DB_LEVEL_CORE] : 1, sizeof(*cores));
	if (!cores)
		goto nomem;
	for (size_t i = 0; lab && i < db->nlabels[HC_DB_LEVEL_CORE]; i++) {
		const struct hc_db_label *l = &lab[i];
		uint32_t k;
		if (!l->host || !pr->host || strcmp(l->host, pr->host) != 0 || l->core < 0 || l->cpu < 0)
			continue;
		for (k = 0; k < nc && cores[k].core != l->core; k++)
			;
		if (k == nc) {
			cores[nc].core = (int)l->core;
			cores[nc].socket = (int)l->socket;
			snprintf(cores[nc].cpus, sizeof(cores[nc].cpus), "%lld", (long long)l->cpu);
			nc++;
		} else {
			size_t len = strlen(cores[k].cpus);
			snprintf(cores[k].cpus + len, sizeof(cores[k].cpus) - len, ",%lld", (long long)l->cpu);
		}
	}
	/* hwloc's logical order */
	for (uint32_t i = 1; i < nc; i++)
		for (uint32_t j = i; j > 0 && cores[j].core < cores[j - 1].core; j--) {
			struct hc_place_core x = cores[j];
			cores[j] = cores[j - 1];
			cores[j - 1] = x;
		}
	ran = malloc((nt ? nt : 1) * sizeof(*ran));
	if (!ran)
		goto nomem;
	for (size_t g = 0, t = 0; g < db->nthreads; g++) {
		int64_t cpu;
		if (db->threads[g].process != pr->i || db->threads[g].index >= tm->n)
			continue;
		ran[t] = -1;
		cpu = only_cpu(db->threads[g].cpus);
		for (size_t i = 0; cpu >= 0 && lab && i < db->nlabels[HC_DB_LEVEL_CORE]; i++)
			if (lab[i].cpu == cpu && lab[i].host && pr->host && strcmp(lab[i].host, pr->host) == 0)
				for (uint32_t k = 0; k < nc; k++)
					if (cores[k].core == lab[i].core)
						ran[t] = (int32_t)k;
		t++;
	}
	/* the run's volumes from the events' CPUs: only when this process was
	   the host's only one (the CPU matrix mixes the host's processes) */
	for (size_t q = 0; q < db->nprocs; q++)
		if (db->procs[q].host && pr->host && strcmp(db->procs[q].host, pr->host) == 0)
			procs_here++;
	if (procs_here == 1 && cm->present && lab) {
		uint64_t cc = 0, cs = 0;
		for (size_t k = 0; k < cm->ncells; k++) {
			const struct hc_db_cell *c = &cm->cells[k];
			if (c->i < db->nlabels[HC_DB_LEVEL_CORE] && c->j < db->nlabels[HC_DB_LEVEL_CORE] &&
			    lab[c->i].core != lab[c->j].core)
				cc += c->v;
		}
		if (sm->present)
			cs = sm->total;          /* the upper triangle: between distinct packages */
		in->run_events = sm->present;
		in->run_cross_core = cc;
		in->run_cross_socket = cs;
	}
	free(tmap);
	in->nthreads = nt;
	in->edges = e;
	in->nedges = ne;
	in->cores = cores;
	in->ncores = nc;
	in->ran_on = ran;
	*label = lb;
	return hc_place_compute(in, out);
nomem:
	free(tmap);
	free(lb);
	free(e);
	free(cores);
	free(ran);
	memset(out, 0, sizeof(*out));
	out->status = HC_PLACE_ERROR;
	snprintf(out->why, sizeof(out->why), "out of memory");
	return -ENOMEM;
}
