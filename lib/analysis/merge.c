/* SPDX-License-Identifier: BSD-3-Clause */
/* merge.c — reading every profile, in parallel, in two passes. Pass 1: each
   worker takes profiles from a shared queue, opens one (hc_prof_open
   validates it entirely; a failure marks the profile skipped with the
   reader's message), registers its process and thread, and folds its
   calling-context tree into the worker's own tree, keeping the profile's
   node -> worker node map. The combine step then chooses the database unit
   and maps the worker trees into one global tree, visiting profiles in file
   order so that node ids do not depend on scheduling. Pass 2 streams each
   profile's events (the file is opened, and validated, again) into small
   aggregates: the thread's matrix row, CPU pairs, CPUs seen per thread, and
   code pairs keyed by *global* nodes on both ends, the peer's end resolved
   through the peer's own profile map. Nothing per event is kept, so memory
   follows the merged tree and the distinct code pairs among its nodes, not
   the number of events. Only the process, thread and module tables are
   shared while reading pass 1 (under an->lock); pass 2 only reads them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "analysis/regions.h"
#include "support/log.h"

static int acc_init(struct an_acc *a)
{
	int ret;

	memset(a, 0, sizeof(*a));
	ret = cct__init(&a->tree);
	if (!ret)
		ret = agg__init(&a->pairs, 1024);
	if (!ret)
		ret = agg__init(&a->cpus, 64);
	if (!ret)
		ret = agg__init(&a->tcpus, 64);
	if (!ret)
		ret = agg__init(&a->lockx, 16);
	if (ret)
		return ret;
	a->used = true;
	return 0;
}

void merge__acc_free(struct an_acc *a)
{
	if (!a->used)
		return;
	cct__free(&a->tree);
	agg__free(&a->pairs);
	agg__free(&a->cpus);
	agg__free(&a->tcpus);
	agg__free(&a->lockx);
	free(a->remap);
	memset(a, 0, sizeof(*a));
}

static void skip(struct an_prof *p, const char *why)
{
	p->status = AN_SKIPPED;
	free(p->reason);
	p->reason = strdup(why);
}

/* The process a profile belongs to (created on first sight), under the lock. */
static int process_of(struct an *an, struct an_prof *p, const char *exe, uint32_t *out)
{
	const struct an_th *th = &p->th;
	struct hkey k = { (uint64_t)p->input | (uint64_t)p->host << 32,
	                  (uint64_t)th->pid | (uint64_t)p->gen << 32, 0 };
	struct an_proc *pr;
	uint32_t i;
	int ret;

	ret = hmap__intern(&an->prockey, &k, &i);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		ret = an__grow(&an->procs, &an->proccap, an->prockey.n, sizeof(*an->procs));
		if (ret)
			return ret;
		pr = &an->procs[i];
		memset(pr, 0, sizeof(*pr));
		pr->input = p->input;
		pr->host = p->host;
		pr->pid = th->pid;
		pr->gen = p->gen;
		pr->ppid = th->ppid;
		pr->rank = th->rank;
		snprintf(pr->exe, sizeof(pr->exe), "%.*s", (int)sizeof(pr->exe) - 1, exe);
		pr->start_ns = th->start_ns;
		pr->unit = (int)th->unit;
		an->nprocs = an->prockey.n;
	}
	*out = i;
	return 0;
}

/* Register (process, thread index) once; a second profile claiming the same
   thread is skipped. Under the lock. */
static int claim_thread(struct an *an, struct an_prof *p, bool *dup)
{
	struct hkey k = { p->proc, p->th.index, 0 };
	uint32_t i;
	int ret = hmap__intern(&an->claimed, &k, &i);

	if (ret < 0)
		return ret;
	*dup = ret == 0;
	if (ret == 1) {
		ret = an__grow(&an->claim_prof, &an->claimcap, an->claimed.n,
		               sizeof(*an->claim_prof));
		if (ret)
			return ret;
		an->claim_prof[i] = (uint32_t)(p - an->profs);
	}
	return 0;
}

/* The used profile of thread idx of process proc, NULL if none. */
static const struct an_prof *profile_of(const struct an *an, uint32_t proc, uint32_t idx)
{
	struct hkey k = { proc, idx, 0 };
	const struct an_prof *p;
	uint32_t i;

	if (!hmap__find(&an->claimed, &k, &i))
		return NULL;
	p = &an->profs[an->claim_prof[i]];
	return p->status == AN_OK ? p : NULL;
}

/* Adds to the profile's matrix row: sparse, so a thread of a process with
   100,000 threads costs its peers, not the highest peer index. */
static int row_add(struct an_prof *p, uint32_t peer, uint64_t t, uint64_t f)
{
	struct hkey k = { peer, 0, 0 };

	if (!p->row.h.slots) {
		int ret = agg__init(&p->row, 4);
		if (ret)
			return ret;
	}
	return agg__add(&p->row, &k, t, f);
}

uint64_t merge__lock_weight(uint64_t w, uint64_t all, uint64_t weighed)
{
	unsigned __int128 x;

	if (!weighed || all <= weighed)
		return w;
	x = (unsigned __int128)w * all / weighed;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

uint64_t merge__event_weight(const struct an_prof *p, const struct hc_prof_event *ev)
{
	if (!(ev->flags & HC_COMM_LOCK))
		return ev->weight;
	return merge__lock_weight(ev->weight, p->lock_all, p->lock_weighed);
}

/* The lock traps' scale of every process (§5.61): its profiles' counters
   summed (a distributed merge's rank holds whole processes). */
static void lock_scales(struct an *an)
{
	uint64_t *all, *wd;
	uint32_t i, k;

	all = calloc(an->nprocs ? an->nprocs : 1, sizeof(*all));
	wd = calloc(an->nprocs ? an->nprocs : 1, sizeof(*wd));
	if (!all || !wd)
		goto out;       /* unscaled */
	for (i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];

		if (p->status != AN_OK || p->proc >= an->nprocs)
			continue;
		for (k = 0; k < p->ncounters; k++)
			if (strcmp(p->counters[k].name, "lock_scale_handoffs") == 0)
				all[p->proc] += p->counters[k].value;
			else if (strcmp(p->counters[k].name, "lock_scale_weighed") == 0)
				wd[p->proc] += p->counters[k].value;
	}
	for (i = 0; i < an->nprofs; i++) {
		struct an_prof *p = &an->profs[i];

		if (p->status != AN_OK || p->proc >= an->nprocs)
			continue;
		p->lock_all = all[p->proc];
		p->lock_weighed = wd[p->proc];
	}
out:
	free(all);
	free(wd);
}

/* Small direct-mapped memories per profile: the (thread, CPU) facts already
   recorded (threads run on few CPUs, so most events repeat one) and the
   profiles of the peers met. */
#define SEEN_SLOTS 64

static int read_events(struct an *an, struct an_acc *a, struct an_prof *p,
                       const struct hc_prof *hp)
{
	const uint32_t *remap = an->workers[p->worker].acc[an->unit == HC_UNIT_TRANSFERS].remap;
	size_t i, n = hc_prof_nevents(hp);
	uint64_t host = p->host, seen[SEEN_SLOTS];
	struct {
		uint32_t peer;
		const struct an_prof *prof;
	} peers[SEEN_SLOTS];   /* peer index -> its profile, direct-mapped */
	int ret;

	memset(seen, 0xff, sizeof(seen));
	for (i = 0; i < SEEN_SLOTS; i++)
		peers[i].peer = HC_NONE;
	for (i = 0; i < n; i++) {
		struct hc_prof_event ev;
		uint64_t wt, wf, extra;
		uint32_t g, gp = HC_NONE;
		const struct an_prof *peer;
		bool cpu_ok, peer_cpu_ok;

		hc_prof_event(hp, i, &ev);
		extra = ev.weight;
		ev.weight = merge__event_weight(p, &ev);
		extra = ev.weight - extra;
		wt = ev.flags & HC_COMM_TRUE ? ev.weight : 0;
		wf = ev.flags & HC_COMM_TRUE ? 0 : ev.weight;
		p->nevents++;
		p->event_weight += ev.weight;
		if (ev.peer >= AN_MAX_THREAD) {
			p->bad_events++;
			continue;
		}
		if (ev.peer == p->th.index) {
			p->self_weight[0] += wt;
			p->self_weight[1] += wf;
		} else {
			ret = row_add(p, ev.peer, wt, wf);
			if (ret)
				return ret;
		}

		cpu_ok = ev.cpu >= 0 && ev.cpu < AN_MAX_CPU;
		peer_cpu_ok = ev.peer_cpu >= 0 && ev.peer_cpu < AN_MAX_CPU;
		{
			struct hkey k = { host, cpu_ok ? (uint64_t)ev.cpu + 1 : 0,
			                  peer_cpu_ok ? (uint64_t)ev.peer_cpu + 1 : 0 };
			ret = agg__add(&a->cpus, &k, wt, wf);
			if (ret)
				return ret;
		}
		if (cpu_ok) {
			uint64_t fact = (uint64_t)p->th.index << 32 | (uint32_t)ev.cpu;
			uint64_t *slot = &seen[(fact * 0x9e3779b97f4a7c15ULL) >> 58];
			if (*slot != fact) {
				struct hkey k = { p->proc, p->th.index, (uint64_t)ev.cpu };
				ret = agg__add(&a->tcpus, &k, 1, 0);
				if (ret)
					return ret;
				*slot = fact;
			}
		}
		if (peer_cpu_ok) {
			uint64_t fact = (uint64_t)ev.peer << 32 | (uint32_t)ev.peer_cpu;
			uint64_t *slot = &seen[(fact * 0x9e3779b97f4a7c15ULL) >> 58];
			if (*slot != fact) {
				struct hkey k = { p->proc, ev.peer, (uint64_t)ev.peer_cpu };
				ret = agg__add(&a->tcpus, &k, 1, 0);
				if (ret)
					return ret;
				*slot = fact;
			}
		}
		/* Code pair between global nodes; ctx < nnodes (checked by the
		   reader), the peer's node is checked against its own profile. */
		g = remap[p->map[ev.ctx]];
		if (extra) {
			/* the detecting context's metrics as the runtime kept them
			   (record.c): the scaling's part added (§5.61) */
			struct hkey k = { g, 0, 0 };
			bool tr = ev.flags & HC_COMM_TRUE;

			p->mtot[tr ? HC_M_TRUE_TRAP : HC_M_FALSE_TRAP] += extra;
			ret = agg__add(&a->lockx, &k, tr ? extra : 0, tr ? 0 : extra);
			if (ret)
				return ret;
		}
		if (peers[ev.peer % SEEN_SLOTS].peer != ev.peer) {
			peers[ev.peer % SEEN_SLOTS].peer = ev.peer;
			peers[ev.peer % SEEN_SLOTS].prof = profile_of(an, p->proc, ev.peer);
		}
		peer = peers[ev.peer % SEEN_SLOTS].prof;
		if (peer && ev.peer_ctx < peer->nnodes)
			gp = merge__global_node(an, peer, ev.peer_ctx);
		{
			struct hkey k = { g, gp, 0 };
			uint32_t cp;

			ret = agg__add_at(&a->pairs, &k, wt, wf, &cp);
			if (!ret && an->comm)
				ret = dist__raw_add(p, g, gp, ev.peer, wt, wf);
			else if (!ret)
				ret = regions__add(an, p, cp, ev.peer, wt, wf);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int read_tree(struct an *an, struct an_acc *a, struct an_prof *p, const struct hc_prof *hp)
{
	size_t nmod = hc_prof_nmodules(hp), i, n = hc_prof_nnodes(hp);
	uint32_t *gmod = NULL;
	int ret = 0, k;

	if (n > UINT32_MAX)
		return -EOVERFLOW;
	if (nmod) {
		gmod = malloc(nmod * sizeof(*gmod));
		if (!gmod)
			return -ENOMEM;
		pthread_mutex_lock(&an->lock);
		for (i = 0; i < nmod && ret >= 0; i++) {
			struct hc_prof_module m;
			hc_prof_module(hp, i, &m);
			ret = strtab__intern(&an->modules, m.path, &gmod[i]);
		}
		pthread_mutex_unlock(&an->lock);
		if (ret < 0)
			goto out;
		ret = 0;
	}
	if (p->th.start_lm != HC_NONE && p->th.start_lm < nmod)
		p->start_lm = gmod[p->th.start_lm];

	p->nnodes = (uint32_t)n;
	p->map = malloc((n ? n : 1) * sizeof(*p->map));
	if (!p->map) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct hc_prof_node nd;

		hc_prof_node(hp, i, &nd);
		for (k = 0; k < HC_M_COUNT; k++)
			p->mtot[k] += nd.m[k];
		if (i == 0) {
			/* The root: parent and module HC_NONE (checked by the reader). */
			p->map[0] = 0;
			for (k = 0; k < HC_M_COUNT; k++)
				a->tree.m[0][k] += nd.m[k];
			continue;
		}
		ret = cct__add(&a->tree, p->map[nd.parent],
		               nd.lm == HC_NONE ? HC_NONE : gmod[nd.lm],
		               nd.flags & HC_NODE_LEAF, nd.offset, nd.m, &p->map[i]);
		if (ret)
			goto out;
	}
out:
	free(gmod);
	return ret;
}

static int read_counters(struct an_prof *p, const struct hc_prof *hp)
{
	size_t i, n = hc_prof_ncounters(hp);

	if (!n)
		return 0;
	p->counters = calloc(n, sizeof(*p->counters));
	if (!p->counters)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct hc_prof_counter c;
		hc_prof_counter(hp, i, &c);
		memcpy(p->counters[i].name, c.name, sizeof(c.name));
		p->counters[i].name[sizeof(c.name) - 1] = '\0';
		p->counters[i].value = c.value;
	}
	p->ncounters = (uint32_t)n;
	return 0;
}

void merge__header(struct an_th *d, const struct hc_prof_thread *t)
{
	*d = (struct an_th){ .index = t->index, .creator = t->creator, .pid = t->pid,
	                     .tid = t->tid, .ppid = t->ppid, .sampler = t->sampler,
	                     .unit = t->unit, .creation_ctx = t->creation_ctx,
	                     .period = t->period, .start_ns = t->start_ns, .end_ns = t->end_ns,
	                     .stack_lo = t->stack_lo, .stack_hi = t->stack_hi,
	                     .tls_lo = t->tls_lo, .tls_hi = t->tls_hi, .start_lm = t->start_lm,
	                     .rank = t->rank, .start_off = t->start_off };
}

/* One profile. Returns 0 (possibly skipped) or -ENOMEM. */
static int read_profile(struct an_worker *w, struct an_prof *p)
{
	struct an *an = w->an;
	const struct hc_prof_thread *th;
	struct hc_prof *hp = NULL;
	struct an_acc *a;
	char err[1024];
	bool dup = false;
	int ret;

	ret = hc_prof_open(p->path, &hp, err, sizeof(err));
	if (ret) {
		if (!err[0])
			snprintf(err, sizeof(err), "%s: %s", p->path, strerror(-ret));
		skip(p, err);
		return 0;
	}
	th = hc_prof_thread(hp);
	merge__header(&p->th, th);
	a = &w->acc[p->th.unit == HC_UNIT_TRANSFERS ? 1 : 0];
	if (!a->used) {
		ret = acc_init(a);
		if (ret)
			goto out;
	}

	pthread_mutex_lock(&an->lock);
	ret = process_of(an, p, th->exe, &p->proc);
	if (!ret)
		ret = claim_thread(an, p, &dup);
	pthread_mutex_unlock(&an->lock);
	if (ret)
		goto out;
	if (dup) {
		snprintf(err, sizeof(err), "%s: a second profile for thread %u of process %u "
		         "(generation %u); the first one read is used", p->path, p->th.index,
		         p->th.pid, p->gen);
		skip(p, err);
		HC_DEBUG_LOG(HC_DBG_MERGE, "%s", err);
		goto out;
	}

	p->worker = w->id;
	ret = read_tree(an, a, p, hp);
	if (!ret)
		ret = read_counters(p, hp);
	if (!ret)
		p->status = AN_OK;
	HC_DEBUG_LOG(HC_DBG_MERGE, "%s: process %u thread %u (pid %u gen %u), %s", p->path, p->proc,
	             p->th.index, p->th.pid, p->gen, ret ? "failed" : "merged");
out:
	hc_prof_close(hp);
	if (ret && ret != -ENOMEM) {
		snprintf(err, sizeof(err), "%s: %s", p->path, strerror(-ret));
		skip(p, err);
		ret = 0;
	}
	return ret;
}

static void worker_main(void *arg, unsigned id)
{
	struct an *an = arg;
	struct an_worker *w = &an->workers[id];

	for (;;) {
		uint32_t i = __atomic_fetch_add(&an->next_prof, 1, __ATOMIC_RELAXED);
		int ret;

		if (i >= an->nprofs)
			break;
		if (an->profs[i].remote)
			continue;
		ret = read_profile(w, &an->profs[i]);
		__atomic_fetch_add(&an->done_profs, 1, __ATOMIC_RELAXED);
		if (ret) {
			w->err = ret;
			/* Let the others stop early too. */
			__atomic_store_n(&an->next_prof, an->nprofs, __ATOMIC_RELAXED);
			break;
		}
	}
}

int merge__read_all(struct an *an)
{
	unsigned i;
	int ret;

	an->workers = calloc(an->nworkers, sizeof(*an->workers));
	if (!an->workers)
		return -ENOMEM;
	for (i = 0; i < an->nworkers; i++) {
		an->workers[i].an = an;
		an->workers[i].id = i;
	}
	ret = par__run(an, an->nworkers, worker_main, an, "reading profiles", &an->done_profs,
	               an->nprofs);
	for (i = 0; i < an->nworkers && !ret; i++)
		ret = an->workers[i].err;
	return ret;
}

/* Pass 2 for one used profile. Returns 0 or -ENOMEM. */
static int events_of(struct an_worker *w, struct an_prof *p)
{
	struct an *an = w->an;
	struct an_acc *a = &w->acc[an->unit == HC_UNIT_TRANSFERS ? 1 : 0];
	struct hc_prof *hp = NULL;
	char err[1024];
	int ret;

	ret = hc_prof_open(p->path, &hp, err, sizeof(err));
	if (ret) {
		/* It was valid a moment ago: the file is being rewritten. */
		pthread_mutex_lock(&an->lock);
		an__warn(an, "%s changed during the analysis; its calling contexts are used, its "
		         "events are not (%s)", p->path, err[0] ? err : strerror(-ret));
		pthread_mutex_unlock(&an->lock);
		return 0;
	}
	if (!a->used)
		ret = acc_init(a);
	if (!ret && !an->comm)
		ret = regions__reserve(an, p, w->id, hc_prof_nevents(hp));
	if (!ret)
		ret = read_events(an, a, p, hp);
	if (!ret)
		ret = regions__profile_done(p);
	hc_prof_close(hp);
	return ret == -ENOMEM ? ret : 0;
}

static void events_main(void *arg, unsigned id)
{
	struct an *an = arg;
	struct an_worker *w = &an->workers[id];

	for (;;) {
		uint32_t i = __atomic_fetch_add(&an->next_prof, 1, __ATOMIC_RELAXED);
		int ret = 0;

		if (i >= an->nprofs)
			break;
		if (an->profs[i].status == AN_OK)
			ret = events_of(w, &an->profs[i]);
		__atomic_fetch_add(&an->done_profs, 1, __ATOMIC_RELAXED);
		if (ret) {
			w->err = ret;
			__atomic_store_n(&an->next_prof, an->nprofs, __ATOMIC_RELAXED);
			break;
		}
	}
}

int merge__read_events(struct an *an)
{
	unsigned i;
	int ret;

	an->next_prof = 0;
	an->done_profs = 0;
	ret = par__run(an, an->nworkers, events_main, an, "reading events", &an->done_profs,
	               an->nprofs);
	for (i = 0; i < an->nworkers && !ret; i++)
		ret = an->workers[i].err;
	/* the lock traps' scaling in the contexts' metrics and totals (§5.61) */
	for (i = 0; i < an->nworkers && !ret; i++) {
		const struct agg *x = &an->workers[i].acc[an->unit == HC_UNIT_TRANSFERS].lockx;

		if (!an->workers[i].acc[an->unit == HC_UNIT_TRANSFERS].used)
			continue;
		for (uint32_t j = 0; j < x->h.n; j++) {
			uint64_t g = x->h.keys[j].a;

			if (g >= cct__n(&an->tree))
				continue;
			an->tree.m[g][HC_M_TRUE_TRAP] += x->v[j][0];
			an->tree.m[g][HC_M_FALSE_TRAP] += x->v[j][1];
			an->mtot[HC_M_TRUE_TRAP] += x->v[j][0];
			an->mtot[HC_M_FALSE_TRAP] += x->v[j][1];
		}
	}
	return ret;
}

void merge__event_totals(struct an *an)
{
	uint32_t i;

	for (i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];

		if (p->status != AN_OK)
			continue;
		an->nevents += p->nevents;
		an->event_weight += p->event_weight;
		if (p->bad_events)
			an__warn(an, "%s: %llu events name a peer thread index beyond %u and were ignored",
			         p->path, (unsigned long long)p->bad_events, AN_MAX_THREAD - 1);
	}
}

/* The global calling-context node of a profile's node, HC_NONE when the
   profile is not used or the node does not exist. */
uint32_t merge__global_node(const struct an *an, const struct an_prof *p, uint32_t node)
{
	const struct an_acc *a;

	if (!p || p->status != AN_OK || node >= p->nnodes)
		return HC_NONE;
	a = &an->workers[p->worker].acc[an->unit == HC_UNIT_TRANSFERS ? 1 : 0];
	return a->remap ? a->remap[p->map[node]] : HC_NONE;
}

/* Choose the database unit and skip the profiles of the other one. */
static void choose_unit(struct an *an)
{
	uint32_t count[2] = { 0, 0 }, i;
	char why[1024];
	int u;

	for (i = 0; i < an->nprofs; i++)
		if (an->profs[i].status == AN_OK)
			count[an->profs[i].th.unit == HC_UNIT_TRANSFERS]++;
	if (an->comm && an->comm->size > 1) {
		/* Every rank chooses the same unit from the counts of all. */
		uint64_t c[2] = { count[0], count[1] };
		if (an->comm->sum(an->comm->arg, c, 2) == 0) {
			count[0] = (uint32_t)c[0];
			count[1] = (uint32_t)c[1];
		}
	}
	if (an->o->unit == HC_UNIT_NS || an->o->unit == HC_UNIT_TRANSFERS)
		u = an->o->unit;
	else
		u = count[1] >= count[0] ? HC_UNIT_TRANSFERS : HC_UNIT_NS;
	if (!count[0] && !count[1] && an->o->unit < 0)
		u = HC_UNIT_NS;
	an->unit = u;
	for (i = 0; i < an->nprofs; i++) {
		struct an_prof *p = &an->profs[i];
		int pu = p->th.unit == HC_UNIT_TRANSFERS ? HC_UNIT_TRANSFERS : HC_UNIT_NS;

		if (p->status != AN_OK || pu == u)
			continue;
		snprintf(why, sizeof(why), "%s: unit %s (%s sampler) differs from the database "
		         "unit %s; units are never mixed (run again with --unit=%s for these profiles)",
		         p->path, hc_db_unit_name(pu), hc_db_sampler_name((int)p->th.sampler),
		         hc_db_unit_name(u), hc_db_unit_name(pu));
		skip(p, why);
	}
}

static int cmp_modpath(const void *a, const void *b, void *arg)
{
	const struct strtab *t = arg;

	return strcmp(t->s[*(const uint32_t *)a], t->s[*(const uint32_t *)b]);
}

/* Modules were numbered in the order workers met them: number them by path
   instead. The global tree is final at this point, so its keys (which hold
   the module) are rewritten in place; it is never searched again. */
int merge__sort_modules(struct an *an)
{
	uint32_t n = an->modules.n, i, *order, *newid, id;
	struct strtab sorted;
	int ret = -ENOMEM;

	order = malloc((n ? n : 1) * sizeof(*order));
	newid = malloc((n ? n : 1) * sizeof(*newid));
	if (!order || !newid || strtab__init(&sorted))
		goto out;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_modpath, &an->modules);
	for (i = 0; i < n; i++) {
		if (strtab__intern(&sorted, an->modules.s[order[i]], &id) < 0)
			goto out;
		newid[order[i]] = i;
	}
	for (i = 1; i < cct__n(&an->tree); i++) {
		uint32_t lm = cct__lm(&an->tree, i);
		if (lm != HC_NONE)
			an->tree.h.keys[i].a = (uint32_t)an->tree.h.keys[i].a | (uint64_t)newid[lm] << 32;
	}
	for (i = 0; i < an->nprofs; i++)
		if (an->profs[i].start_lm != HC_NONE)
			an->profs[i].start_lm = newid[an->profs[i].start_lm];
	strtab__free(&an->modules);
	an->modules = sorted;
	memset(&sorted, 0, sizeof(sorted));
	ret = 0;
out:
	strtab__free(&sorted);
	free(order);
	free(newid);
	return ret;
}

/* Map worker trees into the global tree, visiting profiles in file order so
   the ids do not depend on scheduling. */
int merge__combine(struct an *an)
{
	int ui, k, ret;
	uint32_t i, j;
	unsigned w;

	choose_unit(an);
	lock_scales(an);
	ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	ret = cct__init(&an->tree);
	if (ret)
		return ret;
	for (w = 0; w < an->nworkers; w++) {
		struct an_acc *a = &an->workers[w].acc[ui];

		if (!a->used)
			continue;
		a->remap = malloc(cct__n(&a->tree) * sizeof(*a->remap));
		if (!a->remap)
			return -ENOMEM;
		memset(a->remap, 0xff, cct__n(&a->tree) * sizeof(*a->remap));
		a->remap[0] = 0;
		for (k = 0; k < HC_M_COUNT; k++)
			an->tree.m[0][k] += a->tree.m[0][k];
	}
	for (i = 0; i < an->nprofs; i++) {
		struct an_prof *p = &an->profs[i];
		struct an_acc *a;

		if (p->status != AN_OK)
			continue;
		a = &an->workers[p->worker].acc[ui];
		for (j = 1; j < p->nnodes; j++) {
			uint32_t l = p->map[j], g;

			if (a->remap[l] != HC_NONE)
				continue;
			uint32_t before = cct__n(&an->tree);

			ret = cct__add(&an->tree, a->remap[cct__parent(&a->tree, l)],
			               cct__lm(&a->tree, l), cct__flags(&a->tree, l),
			               cct__offset(&a->tree, l), a->tree.m[l], &g);
			if (ret)
				return ret;
			a->remap[l] = g;
			if (an->comm && g == before) {
				/* Distributed: where one process would have met it first. */
				ret = an__grow(&an->first, &an->firstcap, g + 1, sizeof(*an->first));
				if (ret)
					return ret;
				an->first[g] = (uint64_t)p->gidx << 32 | j;
			}
		}
		for (k = 0; k < HC_M_COUNT; k++)
			an->mtot[k] += p->mtot[k];
		an->samplers |= 1u << (p->th.sampler & 31);
	}
	/* The local trees' nodes are all in the global tree now; keep only the
	   remap arrays (code pairs need them). */
	for (w = 0; w < an->nworkers; w++) {
		struct an_acc *a = &an->workers[w].acc[ui];
		if (a->used)
			cct__free(&a->tree);
		merge__acc_free(&an->workers[w].acc[1 - ui]);
	}
	/* Distributed: numbered by path once, on rank 0, after the reduction. */
	return an->comm ? 0 : merge__sort_modules(an);
}
