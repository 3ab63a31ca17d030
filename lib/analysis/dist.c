/* SPDX-License-Identifier: BSD-3-Clause */
/* dist.c — the distributed merge (doc/mpi.md). Several copies of the
   analyzer, one per rank, list the same inputs in the same order; a rank
   keeps a record only for the profiles of its own processes (whole
   processes, so a thread's peers — always of its own process — are read on
   the same rank and pass 2 stays local), dealt round robin in order of
   first appearance in the file list while listing (dist__owner); rank 0
   keeps one for every profile (the database's thread table). Each rank runs
   the ordinary threaded passes 1 and 2 on its share. Its partial result —
   calling-context tree, per-profile records with their node maps, code
   pairs, CPU pairs, CPUs per thread, process and module tables — is
   serialized into a versioned byte buffer and sent up a binomial tree: at
   step s, rank r with bit s set sends to r - s and stops; before that it
   received the buffers of ranks r + 1, r + 2, r + 4, ... (their subtrees),
   which it passes on as they came, after its own (it does not merge them:
   it holds its share and the bytes of its subtree's, not their records).
   Rank 0 merges every buffer into its state, ends with everything and goes
   on (symbolization, matrices, regions, writing), so the database is the
   one a single run writes; the region events, the data-object pass, phases
   and locality are further rounds over the same tree (dist_objects.c).

   Identity of node numbers: one process numbers tree nodes in the order it
   first meets them, visiting profiles in file order and each profile's nodes
   in order (merge.c). Every node here carries the smallest (profile, node)
   key that holds it; merging keeps the minimum, and rank 0 renumbers the
   merged tree by that key, which is the same order. Sums are sums, so the
   rest does not depend on who added what. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dbuf.h"
#include "analysis/internal.h"
#include "analysis/regions.h"
#include "support/log.h"

#define DIST_MAGIC   "HCDIST\r\n"
#define FWD_MAGIC    "HCDFWD\r\n"
#define DIST_VERSION 3u

/* ---------------- the partition ---------------- */

int dist__owner(struct an *an, unsigned input, uint32_t host_id, const struct an_name *nm,
                bool *mine)
{
	/* The process as its file name says; unnamed files go to rank 0. */
	struct hkey k = { (uint64_t)input | (uint64_t)host_id << 32,
	                  (uint64_t)(nm->ok ? nm->pid : 0) | (uint64_t)(nm->ok ? nm->gen : 0) << 32, 0 };
	uint32_t idx;
	int ret;

	if (!an->owner.slots && (ret = hmap__init(&an->owner, 64)))
		return ret;
	ret = hmap__intern(&an->owner, &k, &idx);
	if (ret < 0)
		return ret;
	*mine = (nm->ok && nm->pid ? (int)(idx % (uint32_t)an->comm->size) : 0) == an->comm->rank;
	return 0;
}

/* ---------------- this rank's state as one flat worker ---------------- */

static int agg_merge(struct agg *dst, const struct agg *src)
{
	uint32_t k;
	int ret = 0;

	for (k = 0; k < src->h.n && !ret; k++)
		ret = agg__add(dst, &src->h.keys[k], src->v[k][0], src->v[k][1]);
	return ret;
}

/* After the local passes: profile maps in tree ids, every worker's
   aggregates in worker 0's, first keys for every node. */
static int flatten(struct an *an)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	struct an_acc *f = &an->workers[0].acc[ui];
	uint32_t i, j, n = cct__n(&an->tree);
	unsigned w;
	int ret;

	ret = an__grow(&an->first, &an->firstcap, n ? n : 1, sizeof(*an->first));
	if (ret)
		return ret;
	an->first[0] = 0;
	for (i = 0; i < an->nprofs; i++) {
		struct an_prof *p = &an->profs[i];
		const uint32_t *remap;

		if (p->status != AN_OK)
			continue;
		remap = an->workers[p->worker].acc[ui].remap;
		for (j = 0; j < p->nnodes; j++)
			p->map[j] = remap[p->map[j]];
		p->worker = 0;
	}
	if (!f->used) {
		memset(f, 0, sizeof(*f));
		ret = agg__init(&f->pairs, 1024);
		if (!ret)
			ret = agg__init(&f->cpus, 64);
		if (!ret)
			ret = agg__init(&f->tcpus, 64);
		if (ret)
			return ret;
		f->used = true;
	}
	for (w = 1; w < an->nworkers; w++) {
		struct an_acc *a = &an->workers[w].acc[ui];

		if (!a->used)
			continue;
		ret = agg_merge(&f->pairs, &a->pairs);
		if (!ret)
			ret = agg_merge(&f->cpus, &a->cpus);
		if (!ret)
			ret = agg_merge(&f->tcpus, &a->tcpus);
		if (ret)
			return ret;
		merge__acc_free(a);
	}
	free(f->remap);
	f->remap = NULL;
	return 0;
}

/* ---------------- serialization ---------------- */

static void put_agg(struct wbuf *b, const struct agg *g)
{
	uint32_t k;

	dbuf__put32(b, g->h.n);
	for (k = 0; k < g->h.n; k++) {
		dbuf__put64(b, g->h.keys[k].a);
		dbuf__put64(b, g->h.keys[k].b);
		dbuf__put64(b, g->h.keys[k].c);
		dbuf__put64(b, g->v[k][0]);
		dbuf__put64(b, g->v[k][1]);
	}
}

/* Also frees each record's matrix row and counters once written (sent next). */
static int serialize(struct an *an, struct wbuf *b)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	const struct an_acc *f = &an->workers[0].acc[ui];
	uint32_t i, k, n = cct__n(&an->tree), nrec = 0;

	dbuf__put(b, DIST_MAGIC, 8);
	dbuf__put32(b, DIST_VERSION);
	dbuf__put32(b, (uint32_t)sizeof(struct an_th));
	dbuf__put32(b, HC_M_COUNT);
	dbuf__put32(b, an->nlisted);
	dbuf__put32(b, an->modules.n);
	for (i = 0; i < an->modules.n; i++)
		dbuf__putstr(b, an->modules.s[i]);
	dbuf__put32(b, n);
	for (i = 0; i < n; i++) {
		dbuf__put32(b, cct__parent(&an->tree, i));
		dbuf__put32(b, cct__lm(&an->tree, i));
		dbuf__put32(b, cct__flags(&an->tree, i));
		dbuf__put64(b, cct__offset(&an->tree, i));
		dbuf__put(b, an->tree.m[i], sizeof(an->tree.m[i]));
		dbuf__put64(b, an->first[i]);
	}
	dbuf__put32(b, an->nprocs);
	for (i = 0; i < an->nprocs; i++) {
		const struct an_proc *pr = &an->procs[i];
		dbuf__put32(b, pr->input);
		dbuf__put32(b, pr->host);
		dbuf__put32(b, pr->pid);
		dbuf__put32(b, pr->gen);
		dbuf__put32(b, pr->ppid);
		dbuf__put32(b, pr->rank);
		dbuf__put32(b, (uint32_t)pr->unit);
		dbuf__put64(b, pr->start_ns);
		dbuf__putstr(b, pr->exe);
	}
	for (i = 0; i < an->nprofs; i++)
		nrec += !an->profs[i].remote;
	dbuf__put32(b, nrec);
	for (i = 0; i < an->nprofs; i++) {
		struct an_prof *p = &an->profs[i];

		if (p->remote)
			continue;
		dbuf__put32(b, p->gidx);
		dbuf__put32(b, (uint32_t)p->status);
		dbuf__putstr(b, p->reason);
		if (p->status != AN_OK)
			continue;
		dbuf__put(b, &p->th, sizeof(p->th));
		dbuf__put32(b, p->proc);
		dbuf__put32(b, p->nnodes);
		dbuf__put(b, p->map, (size_t)p->nnodes * sizeof(*p->map));
		dbuf__put32(b, p->start_lm);
		dbuf__put64(b, p->self_weight[0]);
		dbuf__put64(b, p->self_weight[1]);
		dbuf__put64(b, p->bad_events);
		dbuf__put64(b, p->nevents);
		dbuf__put64(b, p->event_weight);
		dbuf__put(b, p->mtot, sizeof(p->mtot));
		dbuf__put32(b, p->ncounters);
		for (k = 0; k < p->ncounters; k++) {
			dbuf__put(b, p->counters[k].name, sizeof(p->counters[k].name));
			dbuf__put64(b, p->counters[k].value);
		}
		put_agg(b, &p->row);
		/* (not needed on this rank any more: freed now, so that the
		   buffer does not come on top) */
		agg__free(&p->row);
		free(p->counters);
		p->counters = NULL;
		p->ncounters = 0;
		/* region events stay here: summed by region set on this rank once
		   the sets are known (dist_objects.c), they go up with the objects */
	}
	put_agg(b, &f->pairs);
	put_agg(b, &f->cpus);
	put_agg(b, &f->tcpus);
	return b->err;
}

/* ---------------- merging a received buffer ---------------- */

/* Translation: x -> t[x] (HC_NONE stays), bad when out of range. */
static uint32_t tr(const uint32_t *t, uint32_t n, uint32_t x, bool *bad)
{
	if (x == HC_NONE)
		return HC_NONE;
	if (x >= n) {
		*bad = true;
		return HC_NONE;
	}
	return t[x];
}

enum { K_PAIRS, K_CPUS, K_TCPUS };

static int get_agg(struct rbuf *b, struct agg *dst, int kind, const uint32_t *nt, uint32_t nn,
                   const uint32_t *pt, uint32_t np)
{
	uint32_t n = dbuf__get32(b), k;
	bool bad = false;

	if (n > b->n) {
		b->bad = true;
		return 0;
	}
	if (n && !dst->h.slots) {
		int ret = agg__init(dst, n);
		if (ret)
			return ret;
	}
	for (k = 0; k < n && !b->bad; k++) {
		struct hkey key;
		uint64_t v0, v1;
		int ret;

		key.a = dbuf__get64(b);
		key.b = dbuf__get64(b);
		key.c = dbuf__get64(b);
		v0 = dbuf__get64(b);
		v1 = dbuf__get64(b);
		if (kind == K_PAIRS) {
			key.a = tr(nt, nn, (uint32_t)key.a, &bad);
			key.b = tr(nt, nn, (uint32_t)key.b, &bad);
		} else if (kind == K_TCPUS) {
			key.a = tr(pt, np, (uint32_t)key.a, &bad);
		}
		if (bad)
			b->bad = true;
		if (b->bad)
			break;
		ret = agg__add(dst, &key, v0, v1);
		if (ret)
			return ret;
	}
	return 0;
}

static int merge_in(struct an *an, const void *data, size_t len, int from, char *err, size_t errlen)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	struct an_acc *f = &an->workers[0].acc[ui];
	struct rbuf b = { data, len, 0, false };
	uint32_t *mt = NULL, *nt = NULL, *pt = NULL, nm = 0, nn = 0, np = 0, i, k, nrec;
	char magic[8];
	bool oom = false, bad = false;
	int ret = 0;

	dbuf__get(&b, magic, 8);
	if (b.bad || memcmp(magic, DIST_MAGIC, 8) || dbuf__get32(&b) != DIST_VERSION ||
	    dbuf__get32(&b) != sizeof(struct an_th) || dbuf__get32(&b) != HC_M_COUNT ||
	    dbuf__get32(&b) != an->nlisted) {
		snprintf(err, errlen, "the partial result from rank %d is not this version's "
		         "(another hpcprof-comm binary, or other inputs?)", from);
		return -EPROTO;
	}
	/* modules */
	nm = dbuf__get32(&b);
	if (!b.bad && nm > len) b.bad = true;
	if (!b.bad && !(mt = malloc(((size_t)nm + 1) * sizeof(*mt))))
		goto nomem;
	for (i = 0; i < nm && !b.bad; i++) {
		char *s = dbuf__getstr(&b, &oom);
		if (!s) {
			b.bad = true;
			break;
		}
		ret = strtab__intern(&an->modules, s, &mt[i]);
		free(s);
		if (ret < 0)
			goto nomem;
		ret = 0;
	}
	/* tree: parents first */
	nn = dbuf__get32(&b);
	if (!b.bad && nn > len) b.bad = true;
	if (!b.bad && !(nt = malloc(((size_t)nn + 1) * sizeof(*nt))))
		goto nomem;
	for (i = 0; i < nn && !b.bad; i++) {
		uint32_t parent = dbuf__get32(&b), lm = dbuf__get32(&b), flags = dbuf__get32(&b), g;
		uint64_t off = dbuf__get64(&b), m[HC_M_COUNT], key, before = cct__n(&an->tree);

		dbuf__get(&b, m, sizeof(m));
		key = dbuf__get64(&b);
		if (b.bad)
			break;
		if (i == 0) {
			parent = HC_NONE;
		} else if (parent >= i) {
			b.bad = true;
			break;
		} else {
			parent = nt[parent];
		}
		lm = tr(mt, nm, lm, &bad);
		if (bad) {
			b.bad = true;
			break;
		}
		ret = cct__add(&an->tree, parent, lm, flags, off, m, &g);
		if (!ret)
			ret = an__grow(&an->first, &an->firstcap, g + 1, sizeof(*an->first));
		if (ret)
			goto nomem;
		if (g == before || key < an->first[g])
			an->first[g] = key;
		nt[i] = g;
	}
	/* processes */
	np = dbuf__get32(&b);
	if (!b.bad && np > len) b.bad = true;
	if (!b.bad && !(pt = malloc(((size_t)np + 1) * sizeof(*pt))))
		goto nomem;
	for (i = 0; i < np && !b.bad; i++) {
		struct an_proc pr;
		struct hkey key;
		char *exe;
		uint32_t idx;

		memset(&pr, 0, sizeof(pr));
		pr.input = dbuf__get32(&b);
		pr.host = dbuf__get32(&b);
		pr.pid = dbuf__get32(&b);
		pr.gen = dbuf__get32(&b);
		pr.ppid = dbuf__get32(&b);
		pr.rank = dbuf__get32(&b);
		pr.unit = (int)dbuf__get32(&b);
		pr.start_ns = dbuf__get64(&b);
		exe = dbuf__getstr(&b, &oom);
		if (!exe || pr.host >= an->nhosts) {
			free(exe);
			b.bad = true;
			break;
		}
		snprintf(pr.exe, sizeof(pr.exe), "%s", exe);
		free(exe);
		key = (struct hkey){ (uint64_t)pr.input | (uint64_t)pr.host << 32,
		                     (uint64_t)pr.pid | (uint64_t)pr.gen << 32, 0 };
		ret = hmap__intern(&an->prockey, &key, &idx);
		if (ret < 0)
			goto nomem;
		if (ret == 1) {
			ret = an__grow(&an->procs, &an->proccap, an->prockey.n, sizeof(*an->procs));
			if (ret)
				goto nomem;
			an->procs[idx] = pr;
			an->nprocs = an->prockey.n;
		}
		ret = 0;
		pt[i] = idx;
	}
	/* profiles */
	nrec = b.bad ? 0 : dbuf__get32(&b);
	for (k = 0; k < nrec && !b.bad; k++) {
		uint32_t idx = dbuf__get32(&b), st = dbuf__get32(&b), j;
		struct an_prof *p;

		if (b.bad || idx >= an->nprofs || !an->profs[idx].remote ||
		    (st != AN_OK && st != AN_SKIPPED)) {
			b.bad = true;
			break;
		}
		p = &an->profs[idx];
		p->remote = false;
		p->status = (enum an_status)st;
		free(p->reason);
		p->reason = dbuf__getstr(&b, &oom);
		if (st != AN_OK)
			continue;
		dbuf__get(&b, &p->th, sizeof(p->th));
		p->proc = tr(pt, np, dbuf__get32(&b), &bad);
		p->nnodes = dbuf__get32(&b);
		if (bad || b.bad || p->nnodes > (len - b.off) / sizeof(uint32_t)) {
			b.bad = true;
			break;
		}
		free(p->map);
		p->map = malloc((p->nnodes ? p->nnodes : 1) * sizeof(*p->map));
		if (!p->map)
			goto nomem;
		dbuf__get(&b, p->map, (size_t)p->nnodes * sizeof(*p->map));
		for (j = 0; j < p->nnodes && !bad; j++)
			p->map[j] = tr(nt, nn, p->map[j], &bad);
		p->start_lm = tr(mt, nm, dbuf__get32(&b), &bad);
		p->worker = 0;
		p->self_weight[0] = dbuf__get64(&b);
		p->self_weight[1] = dbuf__get64(&b);
		p->bad_events = dbuf__get64(&b);
		p->nevents = dbuf__get64(&b);
		p->event_weight = dbuf__get64(&b);
		dbuf__get(&b, p->mtot, sizeof(p->mtot));
		p->ncounters = dbuf__get32(&b);
		if (bad || b.bad || p->ncounters > len / sizeof(struct an_counter)) {
			p->ncounters = 0;
			b.bad = true;
			break;
		}
		if (p->ncounters) {
			p->counters = calloc(p->ncounters, sizeof(*p->counters));
			if (!p->counters)
				goto nomem;
		}
		for (j = 0; j < p->ncounters; j++) {
			dbuf__get(&b, p->counters[j].name, sizeof(p->counters[j].name));
			p->counters[j].name[sizeof(p->counters[j].name) - 1] = '\0';
			p->counters[j].value = dbuf__get64(&b);
		}
		ret = get_agg(&b, &p->row, K_CPUS, nt, nn, pt, np);
		if (ret)
			goto nomem;
	}
	if (!b.bad)
		ret = get_agg(&b, &f->pairs, K_PAIRS, nt, nn, pt, np);
	if (!ret && !b.bad)
		ret = get_agg(&b, &f->cpus, K_CPUS, nt, nn, pt, np);
	if (!ret && !b.bad)
		ret = get_agg(&b, &f->tcpus, K_TCPUS, nt, nn, pt, np);
	if (ret)
		goto nomem;
	if (oom)
		goto nomem;
	if (b.bad || b.off != len) {
		snprintf(err, errlen, "the partial result from rank %d is malformed at byte %zu of %zu",
		         from, b.off, len);
		ret = -EPROTO;
	}
	goto out;
nomem:
	ret = -ENOMEM;
	snprintf(err, errlen, "out of memory merging the partial result from rank %d", from);
out:
	free(mt);
	free(nt);
	free(pt);
	return ret;
}

/* ---------------- rank 0: one process's numbering ---------------- */

static int cmp_first(const void *x, const void *y, void *arg)
{
	const uint64_t *first = arg;
	uint64_t a = first[*(const uint32_t *)x], b = first[*(const uint32_t *)y];

	return (a > b) - (a < b);
}

static int renumber(struct an *an)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	struct an_acc *f = &an->workers[0].acc[ui];
	uint32_t n = cct__n(&an->tree), *order, *newid, i, j, k;
	struct cct t;
	struct agg pairs;
	int ret = -ENOMEM;

	order = malloc((size_t)n * sizeof(*order));
	newid = malloc((size_t)n * sizeof(*newid));
	f->remap = malloc((size_t)n * sizeof(*f->remap));
	if (!order || !newid || !f->remap)
		goto out;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_first, an->first);
	for (i = 0; i < n; i++)
		newid[order[i]] = i;
	ret = cct__init(&t);
	if (ret)
		goto out;
	for (k = 0; k < HC_M_COUNT; k++)
		t.m[0][k] = an->tree.m[0][k];
	for (i = 1; i < n && !ret; i++) {
		uint32_t o = order[i], g;

		ret = cct__add(&t, newid[cct__parent(&an->tree, o)], cct__lm(&an->tree, o),
		               cct__flags(&an->tree, o), cct__offset(&an->tree, o), an->tree.m[o], &g);
		if (!ret && g != i)
			ret = -EPROTO;   /* a parent after its child: cannot happen */
	}
	if (ret) {
		cct__free(&t);
		goto out;
	}
	cct__free(&an->tree);
	an->tree = t;
	for (i = 0; i < n; i++)
		f->remap[i] = i;
	/* merge.c summed this rank's own profiles: sum all of them. */
	memset(an->mtot, 0, sizeof(an->mtot));
	an->samplers = 0;
	for (i = 0; i < an->nprofs; i++) {
		struct an_prof *p = &an->profs[i];

		if (p->status != AN_OK)
			continue;
		for (j = 0; j < p->nnodes; j++)
			p->map[j] = newid[p->map[j]];
		for (k = 0; k < HC_M_COUNT; k++)
			an->mtot[k] += p->mtot[k];
		an->samplers |= 1u << (p->th.sampler & 31);
	}
	ret = agg__init(&pairs, f->pairs.h.n + 16);
	for (i = 0; i < f->pairs.h.n && !ret; i++) {
		const struct hkey *o = &f->pairs.h.keys[i];
		struct hkey key = { newid[o->a], o->b == HC_NONE ? HC_NONE : newid[o->b], o->c };
		ret = agg__add(&pairs, &key, f->pairs.v[i][0], f->pairs.v[i][1]);
	}
	agg__free(&f->pairs);
	f->pairs = pairs;
	/* this rank's region events are still keyed by node (dist__raw_add) */
	for (i = 0; i < an->nprofs && !ret; i++) {
		struct rrow *r = &an->profs[i].rrow;

		for (k = 0; an->profs[i].status == AN_OK && k < r->n; k++) {
			uint32_t g = (uint32_t)r->e[k].sets, gp = (uint32_t)(r->e[k].sets >> 32);

			r->e[k].sets = newid[g] | (uint64_t)(gp == HC_NONE ? HC_NONE : newid[gp]) << 32;
		}
	}
	if (!ret)
		ret = merge__sort_modules(an);
out:
	free(order);
	free(newid);
	return ret;
}

/* Pass 2, distributed: the region sets are not known yet (they are
   computed on rank 0's merged tree), so a profile's region events are
   summed in its struct rrow by (node, peer's node) instead, 16 bytes an
   entry as the sets' will be; dist__raw_sets rewrites them in place. */
int dist__raw_add(struct an_prof *p, uint32_t g, uint32_t gp, uint32_t peer, uint64_t t,
                  uint64_t f)
{
	uint64_t key = g | (uint64_t)gp << 32;
	int ret = 0;

	if (t)
		ret = regions__add_kind(p, key, peer, 0, t);
	if (f && !ret)
		ret = regions__add_kind(p, key, peer, 1, f);
	return ret;
}

int dist__raw_sets(struct an *an, struct an_prof *p, const uint32_t *tr, uint32_t ntr)
{
	struct rrow *r = &p->rrow;
	uint32_t k, n = 0;

	if (!an->rsid || p->status != AN_OK) {
		regions__rrow_free(r);
		return 0;
	}
	for (k = 0; k < r->n; k++) {
		uint32_t g = (uint32_t)r->e[k].sets, gp = (uint32_t)(r->e[k].sets >> 32);

		if (tr) {
			if (g >= ntr || (gp != HC_NONE && gp >= ntr) || tr[g] == HC_NONE)
				continue;   /* not in rank 0's tree: cannot be */
			g = tr[g];
			gp = gp == HC_NONE ? HC_NONE : tr[gp];
		}
		r->e[n] = r->e[k];
		r->e[n].sets = an->rsid[g] | (uint64_t)(gp == HC_NONE ? 0 : an->rsid[gp]) << 32;
		n++;
	}
	r->n = n;
	r->merged = 0;   /* keys changed: merged again when large (regions__profile_done) */
	return regions__profile_done(p);
}

int dist__regions(struct an *an)
{
	uint32_t i;
	int ret = 0;

	for (i = 0; i < an->nprofs && !ret; i++)
		if (an->profs[i].rrow.n || an->profs[i].rrow.e)
			ret = dist__raw_sets(an, &an->profs[i], NULL, 0);
	return ret;
}

/* A rank but 0 once its partial result is sent: what only the merge
   needed goes (its profiles' matrix rows and counters went as they were
   serialized) — the code and CPU pairs, the first holders — so that it
   holds its share (the object pass's input) and no more. */
static void drop_sent(struct an *an)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	struct an_acc *f = &an->workers[0].acc[ui];

	agg__free(&f->pairs);
	agg__free(&f->cpus);
	agg__free(&f->tcpus);
	free(an->first);
	an->first = NULL;
	an->firstcap = 0;
}

/* One step of the tree: a header (how many partial results follow), then
   each partial result as a message of its own. */
struct relay {
	void *p;
	size_t n;
};

static int send_up(struct an *an, int to, struct relay *rl, uint32_t nrl)
{
	const struct hc_analysis_comm *c = an->comm;
	struct wbuf h = { 0 }, b = { 0 };
	uint32_t i;
	int ret;

	dbuf__put(&h, FWD_MAGIC, 8);
	dbuf__put32(&h, DIST_VERSION);
	dbuf__put32(&h, nrl + 1);
	ret = h.err;
	if (!ret)
		ret = c->send(c->arg, to, h.p, h.n);
	free(h.p);
	if (!ret)
		ret = serialize(an, &b);
	if (!ret)
		ret = c->send(c->arg, to, b.p, b.n);
	HC_DEBUG_LOG(HC_DBG_TIME, "rank %d: sent %zu bytes to rank %d", c->rank, b.n, to);
	free(b.p);
	drop_sent(an);
	for (i = 0; i < nrl; i++) {
		if (!ret)
			ret = c->send(c->arg, to, rl[i].p, rl[i].n);
		HC_DEBUG_LOG(HC_DBG_TIME, "rank %d: passed %zu bytes on to rank %d", c->rank,
		             rl[i].n, to);
		free(rl[i].p);
		rl[i].p = NULL;
	}
	return ret;
}

int dist__reduce(struct an *an, bool *done, char *err, size_t errlen)
{
	const struct hc_analysis_comm *c = an->comm;
	struct relay *rl = NULL;
	uint32_t nrl = 0, rlcap = 0, i;
	int s, ret;

	*done = false;
	ret = flatten(an);
	for (s = 1; s < c->size && !ret; s <<= 1) {
		if (c->rank & s) {
			ret = send_up(an, c->rank - s, rl, nrl);
			*done = true;
			break;
		}
		if (c->rank + s < c->size) {
			struct rbuf h;
			void *buf = NULL;
			size_t len = 0;
			uint32_t k, n = 0;
			char magic[8];

			ret = c->recv(c->arg, c->rank + s, &buf, &len);
			if (ret)
				break;
			h = (struct rbuf){ buf, len, 0, false };
			dbuf__get(&h, magic, 8);
			if (memcmp(magic, FWD_MAGIC, 8) || dbuf__get32(&h) != DIST_VERSION ||
			    (n = dbuf__get32(&h)) > (uint32_t)c->size || h.bad) {
				snprintf(err, errlen, "the partial result from rank %d is not this "
				         "version's (another hpcprof-comm binary?)", c->rank + s);
				ret = -EPROTO;
			}
			free(buf);
			/* Rank 0 merges each; the others pass them on as they came (a
			   rank holds its share and the bytes of its subtree's, not
			   their records merged into its own). */
			for (k = 0; k < n && !ret; k++) {
				ret = c->recv(c->arg, c->rank + s, &buf, &len);
				if (ret)
					break;
				if (c->rank == 0) {
					ret = merge_in(an, buf, len, c->rank + s, err, errlen);
					HC_DEBUG_LOG(HC_DBG_TIME, "rank %d: merged %zu bytes from rank %d",
					             c->rank, len, c->rank + s);
					free(buf);
				} else if (an__grow(&rl, &rlcap, nrl + 1, sizeof(*rl))) {
					free(buf);
					ret = -ENOMEM;
				} else {
					rl[nrl++] = (struct relay){ buf, len };
				}
			}
		}
	}
	for (i = 0; i < nrl; i++)
		free(rl[i].p);
	free(rl);
	if (ret || *done)
		return ret;
	return renumber(an);
}
