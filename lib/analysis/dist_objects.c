/* SPDX-License-Identifier: BSD-3-Clause */
/* dist_objects.c — the distributed merge's second round (doc/mpi.md): the
   data-object pass, and the phases and locality it feeds, run on the rank
   that read each profile, and their partial results are reduced over the
   same binomial tree as the first round (dist.c).

   After the first reduction rank 0 alone knows the global numbering: the
   renumbered calling-context tree, the sorted module table, the symbolized
   view tree, processes and threads. Right after symbolizing (view__build)
   and setting up the phase windows (views__init) it sends down the tree
   what the object pass needs of that — the context: modules, tree keys,
   the view's nodes, procedures and names, the process and thread tables,
   each profile's global thread, the windows, the hosts' topologies (no
   rank parses the XML again: topo__load forks, which a rank that is a
   thread of a test must not do while others run). A rank receives it from its
   parent (r minus its lowest set bit), passes it on to its children and
   translates its own state: its tree nodes to global ones (by key, parents
   first), its processes by their (input, host, pid, generation) key, and
   rewrites its profiles' region events by region set (the context carries
   every node's set). Those go up the tree at once, each rank merging its
   own with its children's in process order (dist__regions_reduce), so
   that rank 0 credits each process's into the region matrices as it comes
   and frees them, before its own object pass, as one process does.
   Then every rank resolves the events of its own profiles (objects.c, the
   threads' stack frames and the modules' DWARF read where the profiles
   are) and sends its object table and window, object and locality sums up
   the tree (inner ranks pass their subtree's on as they came); rank 0 adds
   each to its own as objects.c adds one worker's table to another's, so
   the database does not depend on which rank resolved what. Rank 0 ranks
   the objects and writes.

   Rank 0 failing before the context went out sends an empty context, so
   the other ranks stop instead of waiting (under MPI the failing rank 0
   also aborts the job). No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dbuf.h"
#include "analysis/internal.h"
#include "analysis/objects.h"
#include "analysis/regions.h"
#include "analysis/views.h"
#include "support/log.h"

#define CTX_MAGIC   "HCDCTX\r\n"
#define OBJ_MAGIC   "HCDOBJ\r\n"
#define REG_MAGIC   "HCDREG\r\n"
#define OFW_MAGIC   "HCDOFW\r\n"
#define CTX_VERSION 3u

static int lowbit(int r)
{
	return r & -r;
}

/* Send buf to this rank's children in the broadcast tree, farthest first. */
static int send_down(const struct an *an, const void *buf, size_t len)
{
	const struct hc_analysis_comm *c = an->comm;
	int top = c->rank ? lowbit(c->rank) : 1, s, ret = 0;

	if (!c->rank)
		while (top < c->size)
			top <<= 1;
	for (s = top >> 1; s >= 1 && !ret; s >>= 1)
		if (c->rank + s < c->size)
			ret = c->send(c->arg, c->rank + s, buf, len);
	return ret;
}

/* ---------------- rank 0: the context ---------------- */

static void pack_ctx(const struct an *an, struct wbuf *b)
{
	const struct view *w = &an->view;
	uint32_t i, n = cct__n(&an->tree);

	dbuf__put(b, CTX_MAGIC, 8);
	dbuf__put32(b, CTX_VERSION);
	dbuf__put32(b, an->nlisted);
	dbuf__put32(b, an->modules.n);
	for (i = 0; i < an->modules.n; i++)
		dbuf__putstr(b, an->modules.s[i]);
	dbuf__put32(b, n);
	for (i = 1; i < n; i++)
		dbuf__put(b, &an->tree.h.keys[i], sizeof(struct hkey));
	for (i = 0; i < n; i++)
		dbuf__put32(b, w->of_cct[i]);
	dbuf__put32(b, w->index.n);
	for (i = 0; i < w->index.n; i++) {
		dbuf__put32(b, w->n[i].parent);
		dbuf__put32(b, w->n[i].kind);
		dbuf__put32(b, w->n[i].proc);
		dbuf__put32(b, w->n[i].file);
		dbuf__put32(b, w->n[i].line);
	}
	dbuf__put32(b, w->procs.n);
	for (i = 0; i < w->procs.n; i++)
		dbuf__put(b, &w->proc[i], sizeof(w->proc[i]));
	dbuf__put32(b, w->names.n);
	for (i = 0; i < w->names.n; i++)
		dbuf__putstr(b, w->names.s[i]);
	dbuf__put32(b, w->files.n);
	for (i = 0; i < w->files.n; i++)
		dbuf__putstr(b, w->files.s[i]);
	dbuf__put32(b, an->nprocs);
	for (i = 0; i < an->nprocs; i++) {
		const struct an_proc *pr = &an->procs[i];

		dbuf__put(b, &an->prockey.keys[i], sizeof(struct hkey));
		dbuf__put32(b, pr->first);
		dbuf__put32(b, pr->nthreads);
		dbuf__put32(b, pr->used);
	}
	dbuf__put32(b, an->nthreads);
	for (i = 0; i < an->nthreads; i++) {
		dbuf__put32(b, an->threads[i].proc);
		dbuf__put32(b, an->threads[i].idx);
	}
	for (i = 0; i < an->nprofs; i++)
		dbuf__put32(b, an->profs[i].status == AN_OK ? an->profs[i].gthread : HC_NONE);
	views__pack_params(an->views, an->nhosts, b);
	/* the hosts' topologies as rank 0 loaded them (locality), so every rank
	   places CPUs on the same NUMA nodes and none parses the XML again */
	dbuf__put32(b, an->nhosts);
	for (i = 0; i < an->nhosts; i++) {
		const struct topo *t = an->hosts[i].topo;

		dbuf__put32(b, t != NULL);
		if (!t)
			continue;
		dbuf__put32(b, t->npu);
		dbuf__put32(b, t->ncores);
		dbuf__put(b, t->pu, (size_t)t->npu * sizeof(*t->pu));
		dbuf__put32(b, t->nsockets);
		dbuf__put(b, t->sockets, (size_t)t->nsockets * sizeof(*t->sockets));
		dbuf__put32(b, t->nnuma);
		dbuf__put(b, t->numas, (size_t)t->nnuma * sizeof(*t->numas));
		dbuf__put(b, t->hostname, sizeof(t->hostname));
	}
	/* the code regions' set of every node (regions__prepare), NULL: none */
	dbuf__put32(b, an->rsid != NULL);
	if (an->rsid)
		dbuf__put(b, an->rsid, (size_t)n * sizeof(*an->rsid));
}

static int get_topologies(struct an *an, struct rbuf *b)
{
	if (dbuf__get32(b) != an->nhosts) {
		b->bad = true;
		return 0;
	}
	for (uint32_t h = 0; h < an->nhosts && !b->bad; h++) {
		struct topo *t;

		topo__free(an->hosts[h].topo);
		an->hosts[h].topo = NULL;
		if (!dbuf__get32(b))
			continue;
		if (!(t = calloc(1, sizeof(*t))))
			return -ENOMEM;
		an->hosts[h].topo = t;
		t->npu = dbuf__count(b, sizeof(*t->pu));
		t->ncores = dbuf__get32(b);
		if (!(t->pu = calloc(t->npu ? t->npu : 1, sizeof(*t->pu))))
			return -ENOMEM;
		dbuf__get(b, t->pu, (size_t)t->npu * sizeof(*t->pu));
		t->nsockets = dbuf__count(b, sizeof(*t->sockets));
		if (!(t->sockets = calloc(t->nsockets ? t->nsockets : 1, sizeof(*t->sockets))))
			return -ENOMEM;
		dbuf__get(b, t->sockets, (size_t)t->nsockets * sizeof(*t->sockets));
		t->nnuma = dbuf__count(b, sizeof(*t->numas));
		if (!(t->numas = calloc(t->nnuma ? t->nnuma : 1, sizeof(*t->numas))))
			return -ENOMEM;
		dbuf__get(b, t->numas, (size_t)t->nnuma * sizeof(*t->numas));
		dbuf__get(b, t->hostname, sizeof(t->hostname));
		t->hostname[sizeof(t->hostname) - 1] = '\0';
	}
	return 0;
}

int dist__ctx_send(struct an *an)
{
	struct wbuf b = { 0 };
	int ret;

	an->ctx_sent = true;
	pack_ctx(an, &b);
	ret = b.err;
	if (!ret)
		ret = send_down(an, b.p, b.n);
	HC_DEBUG_LOG(HC_DBG_TIME, "rank 0: sent the context (%zu bytes) down the tree", b.n);
	free(b.p);
	return ret;
}

int dist__ctx_abort(struct an *an)
{
	an->ctx_sent = true;
	return send_down(an, "", 0);
}

/* ---------------- the other ranks: receive and translate ---------------- */

/* This rank's region events (by node, pass 2: dist__raw_add) by region
   set as one process sums them (regions__add), now that the nodes have
   global ids (glob) and the sets are known. */
static int own_regions(struct an *an, const uint32_t *glob, uint32_t nl)
{
	for (uint32_t i = 0; i < an->nprofs; i++) {
		int ret = dist__raw_sets(an, &an->profs[i], glob, nl);

		if (ret)
			return ret;
	}
	return 0;
}

static int apply_ctx(struct an *an, struct rbuf *b)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	struct an_acc *f = &an->workers[0].acc[ui];
	struct strtab mods;
	struct cct gt;
	struct view v;
	struct hmap pk;
	struct an_proc *procs = NULL;
	struct an_thread *th = NULL;
	uint32_t *mt = NULL, *glob = NULL, *ptr = NULL, n, nl, i, k, x, nth = 0, nprocs = 0;
	bool *mine = NULL;
	char magic[8];
	bool oom = false;
	int ret = -ENOMEM;

	memset(&mods, 0, sizeof(mods));
	memset(&gt, 0, sizeof(gt));
	memset(&v, 0, sizeof(v));
	memset(&pk, 0, sizeof(pk));
	dbuf__get(b, magic, 8);
	if (b->bad || memcmp(magic, CTX_MAGIC, 8) || dbuf__get32(b) != CTX_VERSION ||
	    dbuf__get32(b) != an->nlisted) {
		b->bad = true;
		return 0;
	}
	if (strtab__init(&mods) || cct__init(&gt) || strtab__init(&v.names) ||
	    strtab__init(&v.files) || hmap__init(&v.index, 16) || hmap__init(&v.procs, 16))
		goto out;
	/* modules, and this rank's module ids in them */
	n = dbuf__count(b, 4);
	for (i = 0; i < n && !b->bad; i++) {
		char *s = dbuf__getstr(b, &oom);
		if (!s) {
			b->bad = true;
			break;
		}
		ret = strtab__intern(&mods, s, &x);
		free(s);
		if (ret < 0)
			goto out;
		ret = -ENOMEM;
		if (x != i)
			b->bad = true;
	}
	if (!(mt = malloc(((size_t)an->modules.n + 1) * sizeof(*mt))))
		goto out;
	for (i = 0; i < an->modules.n; i++)
		if (!strtab__find(&mods, an->modules.s[i], &mt[i]))
			mt[i] = HC_NONE;
	/* the global tree (ids as rank 0's: added in its order) */
	n = dbuf__count(b, 4);
	for (i = 1; i < n && !b->bad; i++) {
		static const uint64_t zero[HC_M_COUNT];
		struct hkey key;
		uint32_t parent, lm, g;

		dbuf__get(b, &key, sizeof(key));
		parent = (uint32_t)key.a;
		lm = (uint32_t)(key.a >> 32);
		if (b->bad || parent >= i || (lm != HC_NONE && lm >= mods.n)) {
			b->bad = true;
			break;
		}
		if (cct__add(&gt, parent, lm, (uint32_t)key.c, key.b, zero, &g))
			goto out;
		if (g != i)
			b->bad = true;
	}
	if (b->bad)
		goto out;
	if (!(v.of_cct = malloc(((size_t)n + 1) * sizeof(*v.of_cct))))
		goto out;
	for (i = 0; i < n; i++)
		v.of_cct[i] = dbuf__get32(b);
	/* this rank's nodes in global ids, parents first */
	nl = cct__n(&an->tree);
	if (!(glob = malloc(((size_t)nl + 1) * sizeof(*glob))))
		goto out;
	glob[0] = 0;
	for (i = 1; i < nl && !b->bad; i++) {
		uint32_t parent = cct__parent(&an->tree, i), l = cct__lm(&an->tree, i), lm;
		struct hkey key;

		/* a node of no module (an address outside every module) stays so */
		lm = l == HC_NONE ? HC_NONE : l < an->modules.n ? mt[l] : HC_NONE;
		key = (struct hkey){ (uint64_t)glob[parent] | (uint64_t)lm << 32,
		                     cct__offset(&an->tree, i), cct__flags(&an->tree, i) };
		if (glob[parent] == HC_NONE || (l != HC_NONE && lm == HC_NONE) ||
		    !hmap__find(&gt.h, &key, &glob[i]))
			glob[i] = HC_NONE;   /* not in rank 0's tree: cannot be */
	}
	/* the view */
	k = dbuf__count(b, 20);
	if (k && !(v.n = calloc(k, sizeof(*v.n))))
		goto out;
	v.ncap = k;
	for (i = 0; i < k && !b->bad; i++) {
		v.n[i].parent = dbuf__get32(b);
		v.n[i].kind = dbuf__get32(b);
		v.n[i].proc = dbuf__get32(b);
		v.n[i].file = dbuf__get32(b);
		v.n[i].line = dbuf__get32(b);
	}
	for (i = 0; i < n && !b->bad; i++)
		if (v.of_cct[i] >= k)
			b->bad = true;
	k = dbuf__count(b, sizeof(struct hc_db_tproc));
	if (k && !(v.proc = malloc(k * sizeof(*v.proc))))
		goto out;
	v.proccap = k;
	dbuf__get(b, v.proc, (size_t)k * sizeof(*v.proc));
	for (int s = 0; s < 2 && !b->bad; s++) {
		struct strtab *t = s ? &v.files : &v.names;

		k = dbuf__count(b, 4);
		for (i = 0; i < k && !b->bad; i++) {
			char *str = dbuf__getstr(b, &oom);
			if (!str) {
				b->bad = true;
				break;
			}
			ret = strtab__intern(t, str, &x);
			free(str);
			if (ret < 0)
				goto out;
			ret = -ENOMEM;
			if (x != i)
				b->bad = true;
		}
	}
	/* processes: rank 0's numbering, and this rank's in it */
	nprocs = dbuf__count(b, sizeof(struct hkey) + 12);
	if (hmap__init(&pk, nprocs + 16) ||
	    !(procs = calloc(nprocs ? nprocs : 1, sizeof(*procs))))
		goto out;
	for (i = 0; i < nprocs && !b->bad; i++) {
		struct hkey key;

		dbuf__get(b, &key, sizeof(key));
		if (hmap__intern(&pk, &key, &x) < 0)
			goto out;
		procs[i].input = (unsigned)(uint32_t)key.a;
		procs[i].host = (uint32_t)(key.a >> 32);
		procs[i].pid = (uint32_t)key.b;
		procs[i].gen = (uint32_t)(key.b >> 32);
		procs[i].first = dbuf__get32(b);
		procs[i].nthreads = dbuf__get32(b);
		procs[i].used = dbuf__get32(b) != 0;
		if (x != i || procs[i].host >= an->nhosts)
			b->bad = true;
	}
	if (!(ptr = malloc(((size_t)an->nprocs + 1) * sizeof(*ptr))))
		goto out;
	for (i = 0; i < an->nprocs; i++)
		if (!hmap__find(&pk, &an->prockey.keys[i], &ptr[i]))
			ptr[i] = HC_NONE;
	/* threads: all of them in the table (global ids), the lookup by
	   (process, index) only for this rank's processes' (a thread's peers
	   are of its own process), so a rank holds 48 bytes per thread of the
	   run, not a hash entry too */
	if (!(mine = calloc(nprocs ? nprocs : 1, sizeof(*mine))))
		goto out;
	for (i = 0; i < an->nprocs; i++)
		if (ptr[i] != HC_NONE)
			mine[ptr[i]] = true;
	nth = dbuf__count(b, 8);
	if (!(th = calloc(nth ? nth : 1, sizeof(*th))))
		goto out;
	hmap__free(&an->thread_of);
	free(an->thread_g);
	an->thread_g = NULL;
	an->thread_gcap = 0;
	if (hmap__init(&an->thread_of, 64))
		goto out;
	for (i = 0; i < nth && !b->bad; i++) {
		struct hkey key;
		int r;

		th[i].proc = dbuf__get32(b);
		th[i].idx = dbuf__get32(b);
		th[i].creator = HC_NONE;
		if (th[i].proc >= nprocs) {
			b->bad = true;
			break;
		}
		if (!mine[th[i].proc])
			continue;
		key = (struct hkey){ th[i].proc, th[i].idx, 0 };
		if ((r = hmap__intern(&an->thread_of, &key, &x)) < 0 ||
		    an__grow(&an->thread_g, &an->thread_gcap, x + 1, sizeof(*an->thread_g)))
			goto out;
		an->thread_g[x] = i;
		if (r == 0)
			b->bad = true;
	}
	/* this rank's profiles (its share, in file order): global thread,
	   process, and nodes (through remap); the list names every profile */
	for (i = 0, k = 0; i < an->nlisted && !b->bad; i++) {
		struct an_prof *p;
		uint32_t g = dbuf__get32(b);

		if (k >= an->nprofs || an->profs[k].gidx != i)
			continue;
		p = &an->profs[k++];
		if (p->theirs || p->status != AN_OK) {
			p->gthread = HC_NONE;
			continue;
		}
		agg__free(&p->row);
		if (g != HC_NONE && (g >= nth || p->proc >= an->nprocs || ptr[p->proc] == HC_NONE)) {
			b->bad = true;
			break;
		}
		p->gthread = g;
		p->proc = p->proc < an->nprocs ? ptr[p->proc] : HC_NONE;
		if (g != HC_NONE)
			th[g].prof = p;
	}
	if (b->bad)
		goto out;
	ret = views__unpack_params(an, b);
	if (!ret && !b->bad)
		ret = get_topologies(an, b);
	if (!ret && !b->bad && dbuf__get32(b)) {
		if (!(an->ctx_rsid = malloc(((size_t)n + 1) * sizeof(*an->ctx_rsid))))
			ret = -ENOMEM;
		else
			dbuf__get(b, an->ctx_rsid, (size_t)n * sizeof(*an->ctx_rsid));
		an->rsid = an->ctx_rsid;
	}
	if (ret || b->bad)
		goto out;
	/* in place */
	free(f->remap);
	f->remap = glob;
	glob = NULL;
	cct__free(&an->tree);
	an->tree = gt;
	memset(&gt, 0, sizeof(gt));
	strtab__free(&an->modules);
	an->modules = mods;
	memset(&mods, 0, sizeof(mods));
	view__free(&an->view);
	an->view = v;
	memset(&v, 0, sizeof(v));
	hmap__free(&an->prockey);
	an->prockey = pk;
	memset(&pk, 0, sizeof(pk));
	free(an->procs);
	an->procs = procs;
	an->nprocs = an->proccap = nprocs;
	procs = NULL;
	free(an->threads);
	an->threads = th;
	an->nthreads = nth;
	th = NULL;
	ret = own_regions(an, f->remap, nl);
out:
	if (oom)
		ret = -ENOMEM;
	strtab__free(&mods);
	if (gt.h.slots)
		cct__free(&gt);
	view__free(&v);
	hmap__free(&pk);
	free(procs);
	free(th);
	free(mt);
	free(glob);
	free(ptr);
	free(mine);
	return ret;
}

int dist__ctx_recv(struct an *an, bool *stop, char *err, size_t errlen)
{
	const struct hc_analysis_comm *c = an->comm;
	int parent = c->rank - lowbit(c->rank), ret;
	struct rbuf b = { 0 };
	void *buf = NULL;
	size_t len = 0;

	*stop = false;
	ret = c->recv(c->arg, parent, &buf, &len);
	if (ret)
		return ret;
	/* pass it on first: the children start while this rank translates */
	ret = send_down(an, buf, len);
	if (!ret && len == 0)
		*stop = true;   /* rank 0 failed: it says why */
	if (!ret && len) {
		b = (struct rbuf){ buf, len, 0, false };
		ret = apply_ctx(an, &b);
		if (!ret && (b.bad || b.off != len)) {
			snprintf(err, errlen, "the context from rank %d is malformed at byte %zu of %zu",
			         parent, b.off, len);
			ret = -EPROTO;
		}
	}
	free(buf);
	return ret;
}

/* ---------------- up the tree: region events, then objects ---------------- */

/* The region events go up as one stream per rank, sorted by (global
   thread, profile) — processes are numbered in thread order — in messages
   of about REG_CHUNK bytes (whole profiles): magic, version, a count, then
   (thread, profile, entries, the entries) each; a count of 0 ends the
   stream. A rank merges its own profiles' stream with its children's,
   holding one message of each child at a time, and sends the merged stream
   on; rank 0 credits each process (regions__build_upto) as soon as an
   event of a later thread arrives, and frees its events, so it never holds
   every rank's region events at once. A process whose profiles are on
   several ranks (a renamed file) comes in order all the same. */
#define REG_CHUNK ((size_t)8 << 20)
#define REG_HEAD  16u   /* magic, version, count */

struct rstream {
	int from;                   /* the child; -1: this rank's own profiles */
	bool done;
	void *buf;                  /* a child's current message */
	struct rbuf b;
	uint32_t left;              /* items left in it */
	size_t got;
	uint32_t *own, nown, at;    /* own: profiles by (thread, profile) */
	uint64_t last;              /* the previous item's (thread, profile) + 1 */
	/* the head item */
	uint32_t key, gidx, n;
	struct an_prof *p;          /* own: the profile */
	const uint8_t *e;           /* a child's: n entries in buf */
};

static int cmp_own(const void *x, const void *y, void *arg)
{
	const struct an *an = arg;
	const struct an_prof *a = &an->profs[*(const uint32_t *)x];
	const struct an_prof *b = &an->profs[*(const uint32_t *)y];

	if (a->gthread != b->gthread)
		return a->gthread < b->gthread ? -1 : 1;
	return (a->gidx > b->gidx) - (a->gidx < b->gidx);
}

/* This rank's profiles with region events, in stream order. */
static int own_order(struct an *an, struct rstream *st)
{
	uint32_t i;

	st->own = malloc((an->nprofs ? an->nprofs : 1) * sizeof(*st->own));
	if (!st->own)
		return -ENOMEM;
	for (i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];

		if (p->status == AN_OK && p->gthread != HC_NONE && p->rrow.n)
			st->own[st->nown++] = i;
	}
	qsort_r(st->own, st->nown, sizeof(*st->own), cmp_own, an);
	return 0;
}

/* The stream's next item into its head (done at the end). */
static int head_next(struct an *an, struct rstream *st, char *err, size_t errlen)
{
	const struct hc_analysis_comm *c = an->comm;
	uint64_t k;

	if (st->from < 0) {
		if (st->at >= st->nown) {
			st->done = true;
			return 0;
		}
		st->p = &an->profs[st->own[st->at++]];
		st->key = st->p->gthread;
		st->gidx = st->p->gidx;
		st->n = st->p->rrow.n;
		return 0;
	}
	while (!st->left) {
		char magic[8];
		size_t len = 0;
		int ret;

		free(st->buf);
		st->buf = NULL;
		if (st->b.bad || st->b.off != st->b.n)
			goto bad;
		ret = c->recv(c->arg, st->from, &st->buf, &len);
		if (ret)
			return ret;
		st->got += len;
		st->b = (struct rbuf){ st->buf, len, 0, false };
		dbuf__get(&st->b, magic, 8);
		if (memcmp(magic, REG_MAGIC, 8) || dbuf__get32(&st->b) != CTX_VERSION)
			st->b.bad = true;
		st->left = dbuf__count(&st->b, 12);
		if (st->b.bad)
			goto bad;
		if (!st->left) {
			if (st->b.off != len)
				goto bad;
			free(st->buf);
			st->buf = NULL;
			st->done = true;
			return 0;
		}
	}
	st->left--;
	st->key = dbuf__get32(&st->b);
	st->gidx = dbuf__get32(&st->b);
	st->n = dbuf__count(&st->b, sizeof(struct rrow_ent));
	st->e = st->b.p + st->b.off;
	if (!st->b.bad)
		st->b.off += (size_t)st->n * sizeof(struct rrow_ent);
	k = (uint64_t)st->key << 32 | st->gidx;
	/* sorted, distinct, a profile of the listing with events */
	if (st->b.bad || !st->n || st->key == HC_NONE || st->gidx >= an->nlisted || k < st->last)
		goto bad;
	st->last = k + 1;
	return 0;
bad:
	snprintf(err, errlen, "the region events from rank %d are malformed at byte %zu of %zu",
	         st->from, st->b.off, st->b.n);
	return -EPROTO;
}

/* Rank 0: a child's head item into its profile's record. */
static int take_item(struct an *an, const struct rstream *st, char *err, size_t errlen)
{
	struct an_prof *p = st->gidx < an->nprofs ? &an->profs[st->gidx] : NULL;
	struct rrow *r;

	if (!p || !p->theirs || p->rrow.e || p->status != AN_OK || p->gthread != st->key) {
		snprintf(err, errlen, "the region events from rank %d name profile %u, which is "
		         "not one of its own", st->from, st->gidx);
		return -EPROTO;
	}
	r = &p->rrow;
	if (!(r->e = malloc((size_t)st->n * sizeof(*r->e))))
		return -ENOMEM;
	memcpy(r->e, st->e, (size_t)st->n * sizeof(*r->e));
	r->n = r->cap = r->merged = st->n;
	return 0;
}

/* Another rank: the head item into the message being filled (sent when
   full); its own profile's events are freed once copied. */
static int put_item(struct an *an, struct wbuf *out, uint32_t *count, struct rstream *st,
                    size_t *sent)
{
	const struct hc_analysis_comm *c = an->comm;
	int ret = 0;

	if (!out->n) {
		dbuf__put(out, REG_MAGIC, 8);
		dbuf__put32(out, CTX_VERSION);
		dbuf__put32(out, 0);   /* the count, set when sent */
	}
	dbuf__put32(out, st->key);
	dbuf__put32(out, st->gidx);
	dbuf__put32(out, st->n);
	if (st->from < 0) {
		struct rrow *r = &st->p->rrow;

		dbuf__put(out, r->e, (size_t)r->n * sizeof(*r->e));
		regions__rrow_free(r);
	} else {
		dbuf__put(out, st->e, (size_t)st->n * sizeof(struct rrow_ent));
	}
	(*count)++;
	if (out->err)
		return out->err;
	if (out->n >= REG_CHUNK) {
		memcpy(out->p + 12, count, 4);
		ret = c->send(c->arg, c->rank - lowbit(c->rank), out->p, out->n);
		*sent += out->n;
		out->n = 0;
		*count = 0;
	}
	return ret;
}

/* Every rank's profiles' region events by set, up the tree right after the
   context: rank 0 credits them into the region matrices as they come (in
   the sequential order, before the object pass: they do not come on top of
   the object table and the windows). A rank but 0 drops its own once sent. */
int dist__regions_reduce(struct an *an, char *err, size_t errlen)
{
	const struct hc_analysis_comm *c = an->comm;
	struct rstream *st;
	struct wbuf out = { 0 };
	uint32_t ns = 0, k, count = 0;
	int s, top = c->rank ? lowbit(c->rank) : c->size, ret = 0;
	size_t sent = 0;

	st = calloc(33, sizeof(*st));
	if (!st)
		return -ENOMEM;
	if (c->rank) {
		st[ns].from = -1;
		ret = own_order(an, &st[ns++]);
	} else {
		ret = regions__build_begin(an);
	}
	for (s = 1; s < top && c->rank + s < c->size; s <<= 1)
		st[ns++].from = c->rank + s;
	for (k = 0; k < ns && !ret; k++)
		ret = head_next(an, &st[k], err, errlen);
	while (!ret) {
		struct rstream *m = NULL;

		for (k = 0; k < ns; k++)
			if (!st[k].done && (!m || st[k].key < m->key ||
			                    (st[k].key == m->key && st[k].gidx < m->gidx)))
				m = &st[k];
		if (!m)
			break;
		if (!c->rank) {
			ret = regions__build_upto(an, m->key);
			if (!ret)
				ret = take_item(an, m, err, errlen);
		} else {
			ret = put_item(an, &out, &count, m, &sent);
		}
		if (!ret)
			ret = head_next(an, m, err, errlen);
	}
	if (!ret && c->rank) {
		/* the last message, then the end */
		if (out.n) {
			memcpy(out.p + 12, &count, 4);
			ret = c->send(c->arg, c->rank - top, out.p, out.n);
			sent += out.n;
			out.n = 0;
		}
		count = 0;
		if (!ret) {
			dbuf__put(&out, REG_MAGIC, 8);
			dbuf__put32(&out, CTX_VERSION);
			dbuf__put32(&out, 0);
			ret = out.err;
		}
		if (!ret)
			ret = c->send(c->arg, c->rank - top, out.p, out.n);
		sent += out.n;
		HC_DEBUG_LOG(HC_DBG_TIME, "rank %d: sent %zu bytes of region events to rank %d",
		             c->rank, sent, c->rank - top);
	}
	for (k = 0; k < ns; k++) {
		if (!ret && st[k].from >= 0)
			HC_DEBUG_LOG(HC_DBG_TIME, "rank %d: merged %zu bytes of region events from "
			             "rank %d", c->rank, st[k].got, st[k].from);
		free(st[k].buf);
		free(st[k].own);
	}
	free(st);
	free(out.p);
	return ret;
}

/* Rank 0: one rank's objects, windows and locality sums added to its own. */
static int objects_in(struct an *an, struct objects *ob, const void *buf, size_t len, int from,
                      char *err, size_t errlen)
{
	struct rbuf b = { buf, len, 0, false };
	char magic[8];
	int ret = 0;

	dbuf__get(&b, magic, 8);
	if (memcmp(magic, OBJ_MAGIC, 8) || dbuf__get32(&b) != CTX_VERSION)
		b.bad = true;
	if (!b.bad)
		ret = objects__unpack(an, ob, &b);
	if (!ret && !b.bad && (dbuf__get32(&b) != 0) != (an->views != NULL))
		b.bad = true;
	if (!ret && !b.bad && an->views)
		ret = views__unpack(an->views, &b);
	HC_DEBUG_LOG(HC_DBG_TIME, "rank %d: merged %zu bytes of objects from rank %d",
	             an->comm->rank, len, from);
	if (!ret && (b.bad || b.off != len)) {
		snprintf(err, errlen, "the objects from rank %d are malformed at byte %zu of %zu",
		         from, b.off, len);
		ret = -EPROTO;
	}
	return ret;
}

/* Up the tree as the first round goes (dist.c): a header with the number
   of buffers, this rank's own, then its subtree's passed on as they came
   (an inner rank holds their bytes, not their tables merged into its
   own); rank 0 adds each to its own. */
int dist__objects_reduce(struct an *an, struct objects *ob, bool *done, char *err,
                         size_t errlen)
{
	const struct hc_analysis_comm *c = an->comm;
	struct { void *p; size_t n; } *rl = NULL;
	uint32_t nrl = 0, rlcap = 0, i;
	int s, ret = 0;

	*done = false;
	for (s = 1; s < c->size && !ret; s <<= 1) {
		if (c->rank & s) {
			struct wbuf h = { 0 }, b = { 0 };

			dbuf__put(&h, OFW_MAGIC, 8);
			dbuf__put32(&h, CTX_VERSION);
			dbuf__put32(&h, nrl + 1);
			ret = h.err;
			if (!ret)
				ret = c->send(c->arg, c->rank - s, h.p, h.n);
			free(h.p);
			dbuf__put(&b, OBJ_MAGIC, 8);
			dbuf__put32(&b, CTX_VERSION);
			objects__pack(ob, &b);
			dbuf__put32(&b, an->views != NULL);
			if (!ret)
				ret = an->views ? views__pack(an->views, &b) : 0;
			if (!ret)
				ret = b.err;
			if (!ret)
				ret = c->send(c->arg, c->rank - s, b.p, b.n);
			HC_DEBUG_LOG(HC_DBG_TIME, "rank %d: sent %zu bytes of objects to rank %d",
			             c->rank, b.n, c->rank - s);
			free(b.p);
			for (i = 0; i < nrl; i++) {
				if (!ret)
					ret = c->send(c->arg, c->rank - s, rl[i].p, rl[i].n);
				HC_DEBUG_LOG(HC_DBG_TIME, "rank %d: passed %zu bytes of objects on to rank %d",
				             c->rank, rl[i].n, c->rank - s);
				free(rl[i].p);
				rl[i].p = NULL;
			}
			*done = true;
			break;
		}
		if (c->rank + s < c->size) {
			void *buf = NULL;
			size_t len = 0;
			uint32_t k, n = 0;
			struct rbuf h;
			char magic[8];

			ret = c->recv(c->arg, c->rank + s, &buf, &len);
			if (ret)
				break;
			h = (struct rbuf){ buf, len, 0, false };
			dbuf__get(&h, magic, 8);
			if (memcmp(magic, OFW_MAGIC, 8) || dbuf__get32(&h) != CTX_VERSION ||
			    (n = dbuf__get32(&h)) > (uint32_t)c->size || h.bad || h.off != len) {
				snprintf(err, errlen, "the objects from rank %d are malformed",
				         c->rank + s);
				ret = -EPROTO;
			}
			free(buf);
			for (k = 0; k < n && !ret; k++) {
				ret = c->recv(c->arg, c->rank + s, &buf, &len);
				if (ret)
					break;
				if (c->rank == 0) {
					ret = objects_in(an, ob, buf, len, c->rank + s, err, errlen);
					free(buf);
				} else if (an__grow(&rl, &rlcap, nrl + 1, sizeof(*rl))) {
					free(buf);
					ret = -ENOMEM;
				} else {
					rl[nrl].p = buf;
					rl[nrl++].n = len;
				}
			}
		}
	}
	for (i = 0; i < nrl; i++)
		free(rl[i].p);
	free(rl);
	return ret;
}
