/* SPDX-License-Identifier: BSD-3-Clause */
/* numa.c — NUMA locality per data object (doc/hpcprof-comm.md "NUMA
   locality", doc/database-format.md "locality.xml"), after HPCToolkit-NUMA.

   Each communication event is two accesses: the detecting thread's at addr
   and the peer's at peer_addr, each weighing the event's weight. The runtime
   recorded the NUMA node of both pages (profile section PNOD); the node a
   thread ran on is the node of the CPU it ran on (the event's cpu and
   peer_cpu) in its host's hwloc topology. An access is local when both
   nodes are known and equal, remote when both are known and differ, else
   unlocated. Per object: volume by page node, by thread node, local and
   remote, and the thread that most likely touched it first (for heap
   blocks the allocating thread — the allocation context is the object's
   context in objects.xml; for a stack or TLS block its owner; unknown for
   statics). A measurement whose hosts all have one NUMA node says so
   ("single NUMA domain") instead of writing empty columns. No signal
   context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dbuf.h"
#include "analysis/views.h"
#include "analysis/objects.h"

/* objects.c's kinds (the first word of an object key). */
#define KIND_HEAP  1u
#define KIND_STACK 2u
#define KIND_TLS   3u

struct numa_w {
	struct agg acc;             /* (kind | (page node + 1) << 8 | (thread node + 1) << 32, a, b) */
	struct agg first;           /* (kind | (allocating thread + 1) << 8, a, b) -> (events, 0) */
};

struct nobj {
	uint32_t obj;               /* objects.xml index */
	uint64_t local, remote, unknown;
	uint32_t first;             /* global thread, HC_NONE */
	uint64_t *page, *thr;       /* volume by node (ndom entries) */
};

struct numa {
	unsigned nw;
	struct numa_w *w;
	bool pages;                 /* some event had a page node */
	uint32_t ndom;              /* node numbers below this (topology and pages) */
	uint32_t topo_dom;          /* most NUMA nodes of one host's topology, 0 = none known */
	struct nobj *o;
	uint32_t n;
	uint64_t local, remote, unknown;
	const struct objects *ob;
};

int numa__init(struct numa **out, unsigned nworkers)
{
	struct numa *n = calloc(1, sizeof(*n));

	*out = NULL;
	if (!n)
		return -ENOMEM;
	n->nw = nworkers ? nworkers : 1;
	n->w = calloc(n->nw, sizeof(*n->w));
	if (!n->w) {
		free(n);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n->nw; i++)
		if (agg__init(&n->w[i].acc, 64) || agg__init(&n->w[i].first, 16)) {
			numa__free(n);
			return -ENOMEM;
		}
	*out = n;
	return 0;
}

void numa__free(struct numa *n)
{
	if (!n)
		return;
	for (unsigned i = 0; n->w && i < n->nw; i++) {
		agg__free(&n->w[i].acc);
		agg__free(&n->w[i].first);
	}
	free(n->w);
	for (uint32_t i = 0; n->o && i < n->n; i++) {
		free(n->o[i].page);
		free(n->o[i].thr);
	}
	free(n->o);
	free(n);
}

static int32_t cpu_node(const struct an *an, uint32_t host, int32_t cpu)
{
	const struct topo *t = host < an->nhosts ? an->hosts[host].topo : NULL;
	const struct topo_pu *pu;

	if (!t || cpu < 0 || !(pu = topo__pu(t, cpu)) || pu->numa < 0 || pu->numa > HC_PNODE_MAX)
		return -1;
	return pu->numa;
}

static int side(struct numa_w *w, const struct hkey *k, int32_t pn, int32_t tn, uint64_t wt,
                uint64_t wf)
{
	struct hkey x = { k->a | (uint64_t)(uint32_t)(pn + 1) << 8 |
	                  (uint64_t)(uint32_t)(tn + 1) << 32, k->b, k->c };
	return agg__add(&w->acc, &x, wt, wf);
}

static int first_touch(struct numa_w *w, const struct an *an, const struct an_prof *p,
                       const struct hc_prof *hp, uint32_t evi, uint32_t sd, const struct hkey *k)
{
	struct hc_prof_object rec;
	uint32_t g;

	if (k->a != KIND_HEAP || !hc_prof_object_find(hp, evi, sd, &rec) ||
	    !threads__find(an, p->proc, rec.thread, &g))
		return 0;
	struct hkey x = { k->a | (uint64_t)(g + 1) << 8, k->b, k->c };
	return agg__add(&w->first, &x, 1, 0);
}

int numa__event(struct numa *n, unsigned worker, const struct an *an, const struct an_prof *p,
                const struct hc_prof *hp, uint32_t evi, const struct hc_prof_event *ev,
                uint32_t g, uint32_t gp, const struct hkey *ka, const struct hkey *kb,
                uint64_t wt, uint64_t wf)
{
	struct numa_w *w = &n->w[worker];
	struct hc_prof_pnode pn = { evi, -1, -1, 0 };
	const struct topo *t = p->host < an->nhosts ? an->hosts[p->host].topo : NULL;
	int ret;

	(void)g;
	(void)gp;
	/* Nothing to say without page nodes on a host of one node (or
	   unknown topology): skip the work. */
	if (!hc_prof_npnodes(hp) && (!t || t->nnuma <= 1))
		return 0;
	hc_prof_pnode_find(hp, evi, &pn);
	if ((ret = side(w, ka, pn.node, cpu_node(an, p->host, ev->cpu), wt, wf)) ||
	    (ret = side(w, kb, pn.peer_node, cpu_node(an, p->host, ev->peer_cpu), wt, wf)))
		return ret;
	if ((ret = first_touch(w, an, p, hp, evi, HC_SIDE_ADDR, ka)))
		return ret;
	if (kb->a != ka->a || kb->b != ka->b || kb->c != ka->c)
		ret = first_touch(w, an, p, hp, evi, HC_SIDE_PEER, kb);
	return ret;
}

/* Distributed (dist_objects.c): every worker's sums, and another rank's
   added to worker 0's. */
void numa__pack(const struct numa *n, struct wbuf *b)
{
	for (int a = 0; a < 2; a++) {
		uint32_t tot = 0;

		for (unsigned x = 0; x < n->nw; x++)
			tot += a ? n->w[x].first.h.n : n->w[x].acc.h.n;
		dbuf__put32(b, tot);
		for (unsigned x = 0; x < n->nw; x++) {
			const struct agg *g = a ? &n->w[x].first : &n->w[x].acc;

			for (uint32_t i = 0; i < g->h.n; i++) {
				dbuf__put(b, &g->h.keys[i], sizeof(struct hkey));
				dbuf__put64(b, g->v[i][0]);
				dbuf__put64(b, g->v[i][1]);
			}
		}
	}
}

int numa__unpack(struct numa *n, struct rbuf *b)
{
	for (int a = 0; a < 2 && !b->bad; a++) {
		struct agg *g = a ? &n->w[0].first : &n->w[0].acc;
		uint32_t cnt = dbuf__count(b, sizeof(struct hkey) + 16);

		for (uint32_t i = 0; i < cnt && !b->bad; i++) {
			struct hkey k;
			uint64_t v0, v1;

			dbuf__get(b, &k, sizeof(k));
			v0 = dbuf__get64(b);
			v1 = dbuf__get64(b);
			if (!b->bad && agg__add(g, &k, v0, v1))
				return -ENOMEM;
		}
	}
	return 0;
}

static int cmp_nobj(const void *x, const void *y)
{
	const struct nobj *a = x, *b = y;

	if (a->remote != b->remote)
		return a->remote > b->remote ? -1 : 1;
	if (a->local + a->unknown != b->local + b->unknown)
		return a->local + a->unknown > b->local + b->unknown ? -1 : 1;
	return (a->obj > b->obj) - (a->obj < b->obj);
}

int numa__finish(struct an *an, struct numa *n, const struct objects *ob)
{
	struct agg acc, first;
	struct hmap okey;
	uint32_t i, nobj = objects__count(ob), *slot = NULL;
	uint64_t *fbest = NULL;
	int ret = -ENOMEM;

	memset(&acc, 0, sizeof(acc));
	memset(&first, 0, sizeof(first));
	memset(&okey, 0, sizeof(okey));
	n->ob = ob;
	for (i = 0; i < an->nhosts; i++)
		if (an->hosts[i].topo && an->hosts[i].topo->nnuma > n->topo_dom)
			n->topo_dom = an->hosts[i].topo->nnuma;
	for (i = 0; i < an->nhosts; i++)
		for (uint32_t k = 0; an->hosts[i].topo && k < an->hosts[i].topo->nnuma; k++)
			if (an->hosts[i].topo->numas[k] >= 0 &&
			    (uint32_t)an->hosts[i].topo->numas[k] + 1 > n->ndom)
				n->ndom = (uint32_t)an->hosts[i].topo->numas[k] + 1;
	if (agg__init(&acc, 64) || agg__init(&first, 16) || hmap__init(&okey, 64))
		goto out;
	for (unsigned x = 0; x < n->nw; x++) {
		for (i = 0; i < n->w[x].acc.h.n; i++)
			if (agg__add(&acc, &n->w[x].acc.h.keys[i], n->w[x].acc.v[i][0],
			             n->w[x].acc.v[i][1]))
				goto out;
		for (i = 0; i < n->w[x].first.h.n; i++)
			if (agg__add(&first, &n->w[x].first.h.keys[i], n->w[x].first.v[i][0], 0))
				goto out;
		agg__free(&n->w[x].acc);
		agg__free(&n->w[x].first);
		memset(&n->w[x], 0, sizeof(n->w[x]));
	}
	for (i = 0; i < acc.h.n; i++) {
		uint64_t a = acc.h.keys[i].a;
		uint32_t pn = (uint32_t)(a >> 8) & 0xffffffu, tn = (uint32_t)(a >> 32);
		if (pn)
			n->pages = true;
		if (pn > n->ndom)
			n->ndom = pn;
		if (tn > n->ndom)
			n->ndom = tn;
	}
	if (objects__index_keys(ob, &okey))
		goto out;
	slot = malloc((nobj ? nobj : 1) * sizeof(*slot));
	fbest = calloc(nobj ? nobj : 1, sizeof(*fbest));
	if (!slot || !fbest)
		goto out;
	for (i = 0; i < nobj; i++)
		slot[i] = HC_NONE;
	if (n->topo_dom <= 1 && n->ndom <= 1 && !n->pages)
		goto done;   /* single NUMA domain, or nothing located: no table */
	for (i = 0; i < acc.h.n; i++) {
		const struct hkey *k = &acc.h.keys[i];
		struct hkey ok = { k->a & 0xff, k->b, k->c };
		int32_t pn = (int32_t)((k->a >> 8) & 0xffffffu) - 1, tn = (int32_t)(k->a >> 32) - 1;
		uint64_t v = acc.v[i][0] + acc.v[i][1];
		uint32_t oi;
		struct nobj *o;

		if (!hmap__find(&okey, &ok, &oi))
			continue;
		if (slot[oi] == HC_NONE) {
			o = realloc(n->o, (n->n + 1) * sizeof(*n->o));
			if (!o)
				goto out;
			n->o = o;
			o = &n->o[n->n];
			memset(o, 0, sizeof(*o));
			o->obj = oi;
			o->first = HC_NONE;
			slot[oi] = n->n++;
			o->page = calloc(n->ndom ? n->ndom : 1, sizeof(*o->page));
			o->thr = calloc(n->ndom ? n->ndom : 1, sizeof(*o->thr));
			if (!o->page || !o->thr)
				goto out;
			if ((ok.a == KIND_STACK || ok.a == KIND_TLS))
				o->first = (uint32_t)ok.b;
		}
		o = &n->o[slot[oi]];
		if (pn >= 0)
			o->page[pn] += v;
		if (tn >= 0)
			o->thr[tn] += v;
		if (pn >= 0 && tn >= 0 && pn == tn)
			o->local += v;
		else if (pn >= 0 && tn >= 0)
			o->remote += v;
		else
			o->unknown += v;
	}
	for (i = 0; i < first.h.n; i++) {
		const struct hkey *k = &first.h.keys[i];
		struct hkey ok = { k->a & 0xff, k->b, k->c };
		uint32_t oi, g = (uint32_t)(k->a >> 8) - 1;

		if (!hmap__find(&okey, &ok, &oi) || slot[oi] == HC_NONE)
			continue;
		if (first.v[i][0] > fbest[oi] ||
		    (first.v[i][0] == fbest[oi] && g < n->o[slot[oi]].first)) {
			fbest[oi] = first.v[i][0];
			n->o[slot[oi]].first = g;
		}
	}
	for (i = 0; i < n->n; i++) {
		n->local += n->o[i].local;
		n->remote += n->o[i].remote;
		n->unknown += n->o[i].unknown;
	}
	if (n->n)     /* n->o is NULL then: qsort's pointer must not be */
		qsort(n->o, n->n, sizeof(*n->o), cmp_nobj);
done:
	ret = 0;
out:
	free(slot);
	free(fbest);
	agg__free(&acc);
	agg__free(&first);
	hmap__free(&okey);
	return ret;
}

static bool single(const struct numa *n)
{
	return n->topo_dom <= 1 && n->ndom <= 1;
}

static bool flagged(const struct numa *n, const struct nobj *o)
{
	uint64_t loc = o->local + o->remote;

	return loc && (double)o->remote >= VIEWS_REMOTE_FLAG * (double)loc &&
	       (double)loc >= VIEWS_REMOTE_MIN * (double)(n->local + n->remote);
}

/* What locality.xml holds, as lib/db's plain rows (db/write.h). */
int numa__write(struct an *an, const struct numa *n, const struct objects *ob, const char *dir,
                char *err, size_t errlen)
{
	struct hc_db_wlocobj *o = calloc(n->n ? n->n : 1, sizeof(*o));
	struct hc_db_wlocality l;
	uint32_t i;
	int ret;

	if (!o) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_LOCALITY);
		return -ENOMEM;
	}
	for (i = 0; i < n->n; i++) {
		const struct nobj *x = &n->o[i];
		uint64_t key[3];

		o[i] = (struct hc_db_wlocobj){ .obj = x->obj, .local = x->local, .remote = x->remote,
		                               .unknown = x->unknown, .flagged = flagged(n, x),
		                               .first = x->first == HC_NONE ? UINT32_MAX : x->first,
		                               .page = x->page, .thr = x->thr };
		objects__ranked(ob, x->obj, key, &o[i].name);
	}
	l = (struct hc_db_wlocality){ .unit = an->unit,
	                              .domains = single(n) ? 1u : (n->topo_dom > n->ndom ?
	                                                           n->topo_dom : n->ndom),
	                              .single = single(n), .pages = n->pages,
	                              .flag = VIEWS_REMOTE_FLAG, .local = n->local,
	                              .remote = n->remote, .unknown = n->unknown, .ndom = n->ndom,
	                              .o = o, .n = n->n };
	ret = hc_db_write_locality(dir, &l, err, errlen);
	free(o);
	return ret;
}
