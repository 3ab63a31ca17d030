/* SPDX-License-Identifier: BSD-3-Clause */
/* phases.c — how the communication pattern changes over the run
   (doc/hpcprof-comm.md "Phases", doc/database-format.md "phases.xml").

   Time: every event carries its CLOCK_MONOTONIC time; it is measured from
   the origin of its host (the earliest thread start there), so processes of
   one host share one clock and different hosts are aligned at their starts.
   The span (latest thread end minus its host's origin) is cut into windows
   of equal width: VIEWS_AUTO_WINDOWS of them, or the --window width.

   Phases: each window's thread matrix (all = true + false) is a sparse
   vector; two vectors are alike by the Bhattacharyya coefficient of their
   normalised forms, sum_ij sqrt(a_ij/|a| * b_ij/|b|) — 1 for the same
   shape at any volume, 0 for disjoint pairs, and forgiving to the sampling
   noise in how volume is split among the same pairs ((0.8, 0.2) and
   (0.4, 0.6) are 0.91 alike; a plain histogram intersection says 0.6).
   Windows are taken in time order: one joins the current phase when its
   vector and the phase's sum so far are at least VIEWS_SIMILAR alike, else
   it starts a phase; a quiet window (below VIEWS_QUIET of the busiest)
   always joins the current phase. Then a phase of a single busy window that
   is at least VIEWS_MIX alike to a neighbour joins the most alike one (a
   window that straddles a change is a mixture of both sides, a:1-a, and is
   sqrt(a) and sqrt(1-a) alike to them: at least 0.71 to one), and adjacent
   phases that have become alike are merged. No signal context. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/dbuf.h"
#include "analysis/views.h"
#include "analysis/objects.h"
#include "db/format.h"
#include "db/views.h"
#include "support/out.h"

/* A direct-mapped combining cache in front of an agg: a thread's events
   come in time order, so within a window the same few (window, peer) and
   (window, object) keys repeat; summing them in 160 KB that stay in cache
   (4096 slots: 1024 let twice the window cells through at 1024 threads) and
   handing each key to the big table once per stay costs a fraction of a
   hash-table probe per event (doc/performance.md, "Phases and locality"). */
#define CC_SLOTS 4096u
struct ccache {
	struct hkey k[CC_SLOTS];    /* a = UINT64_MAX: empty */
	uint64_t v[CC_SLOTS][2];
};


/* views__finish carves the windows' vectors and the phases' cells from
   the window cells' sort scratch */
_Static_assert(sizeof(struct vcell) <= sizeof(struct wc), "vcell fits a window cell");
_Static_assert(sizeof(struct hc_db_mcell) <= sizeof(struct wc), "mcell fits a window cell");

struct views_worker {
	struct wc *raw;             /* window cells as the cache lets them go: (window, i, j),
	                               i < j, repeated keys summed at the end (sorting, no
	                               hashing) */
	uint32_t nraw, rawcap;
	struct an_parr rawpa;       /* raw's address space when reserved (raw_grow): backed by
	                               the pool's pages (the region matrices' and events') */
	struct an_pool *pool;
	size_t rawmax;              /* bytes to reserve for raw: every event a cell at most */
	struct agg objs;            /* (window | kind << 32, a, b) -> (true, false) */
	struct ccache *cc_cells, *cc_objs;
	/* the last window seen: [wlo, whi) in the profile's clock, for origin wo
	   (a thread's events come in time order: one division per window, not
	   per event); wlo == whi, none */
	uint64_t wo, wlo, whi, wwin;
	/* numa.c has nothing to do for profile numa_p (no page nodes, one NUMA
	   node or none known): asked once per profile, not per event */
	const struct an_prof *numa_p;
	bool numa_skip;
};

static void cc_init(struct ccache *c)
{
	for (uint32_t i = 0; i < CC_SLOTS; i++)
		c->k[i].a = UINT64_MAX;
}

/* A buffer let go: a reserved one's pages to the pool. */
static void buf_free(struct an_pool *pl, void *p, struct an_parr *pa)
{
	if (p && pa->base && p == (void *)pa->base)
		an__parr_release(pl, pa);
	else
		free(p);
}

/* p freed: by whichever of a, b it is the base of, else free(). */
static void buf_free2(struct an_pool *pl, void *p, struct an_parr *a, struct an_parr *b)
{
	if (p && a->base && p == (void *)a->base)
		an__parr_release(pl, a);
	else
		buf_free(pl, p, b);
}

/* bytes for an array written before it is read: the pool's pages (pa
   reserved) when it has any and the array is large, else malloc's. */
static void *pool_alloc(struct an_pool *pl, size_t bytes, struct an_parr *pa)
{
	memset(pa, 0, sizeof(*pa));
	if (pl && pl->n && bytes >= ((size_t)64 << 10)) {
		if (!an__parr_init(pa, bytes) && !an__parr_back(pl, pa, bytes))
			return pa->base;
		an__parr_release(NULL, pa);
	}
	return malloc(bytes ? bytes : 1);
}

/* Room for need raw cells: address space reserved on first use (rawmax
   bytes) and backed by the pool's pages as it fills (the window cells are
   the largest array the views fill: 1,024 threads 10 K new pages), else
   (none reserved, or beyond it) the heap's. */
static __attribute__((noinline)) int raw_grow(struct views_worker *w, uint32_t need)
{
	size_t el = sizeof(*w->raw), bytes = (size_t)need * el;
	struct wc *c;

	if (!w->raw && !w->rawpa.base && w->rawmax >= ((size_t)64 << 10) &&
	    !an__parr_init(&w->rawpa, w->rawmax))
		w->raw = (struct wc *)(void *)w->rawpa.base;
	if (w->rawpa.base) {
		if (!an__parr_back(w->pool, &w->rawpa, bytes)) {
			w->rawcap = w->rawpa.backed / el > UINT32_MAX ? UINT32_MAX :
			            (uint32_t)(w->rawpa.backed / el);
			return 0;
		}
		if (!(c = malloc(bytes)))
			return -ENOMEM;
		memcpy(c, w->raw, (size_t)w->nraw * el);
		an__parr_release(w->pool, &w->rawpa);
		w->raw = c;
		w->rawcap = need;
		return 0;
	}
	return an__grow(&w->raw, &w->rawcap, need, el);
}

/* Let one entry go: into the objects' table, or (g NULL) onto the raw cells. */
static int cc_out(struct views_worker *w, struct agg *g, const struct hkey *k, const uint64_t v[2])
{
	if (g)
		return agg__add(g, k, v[0], v[1]);
	if (w->nraw == w->rawcap && raw_grow(w, w->nraw + 1))
		return -ENOMEM;
	w->raw[w->nraw++] = (struct wc){ (uint32_t)k->a, (uint32_t)k->b, (uint32_t)k->c, v[0], v[1] };
	return 0;
}

static int cc_flush(struct ccache *c, struct views_worker *w, struct agg *g)
{
	for (uint32_t i = 0; i < CC_SLOTS; i++)
		if (c->k[i].a != UINT64_MAX) {
			int ret = cc_out(w, g, &c->k[i], c->v[i]);
			if (ret)
				return ret;
			c->k[i].a = UINT64_MAX;
		}
	return 0;
}

static __attribute__((noinline)) int cc_miss(struct ccache *c, struct views_worker *w,
                                              struct agg *g, const struct hkey *k, uint32_t s,
                                              uint64_t t, uint64_t f);

/* Inlined: three calls per event (doc/performance.md). */
static inline int cc_add(struct ccache *c, struct views_worker *w, struct agg *g,
                         const struct hkey *k, uint64_t t, uint64_t f)
{
	uint64_t h = (k->a * 0x9E3779B97F4A7C15ull) ^ (k->b * 0xC2B2AE3D27D4EB4Full) ^
	             (k->c * 0x165667B19E3779F9ull);
	uint32_t s = (uint32_t)(h >> 54) & (CC_SLOTS - 1);

	if (c->k[s].a == k->a && c->k[s].b == k->b && c->k[s].c == k->c) {
		c->v[s][0] += t;
		c->v[s][1] += f;
		return 0;
	}
	return cc_miss(c, w, g, k, s, t, f);
}

static int cc_miss(struct ccache *c, struct views_worker *w, struct agg *g, const struct hkey *k,
                   uint32_t s, uint64_t t, uint64_t f)
{
	if (c->k[s].a != UINT64_MAX) {
		int ret = cc_out(w, g, &c->k[s], c->v[s]);
		if (ret)
			return ret;
	}
	c->k[s] = *k;
	c->v[s][0] = t;
	c->v[s][1] = f;
	return 0;
}

struct vphase {
	uint32_t first, last;       /* windows */
	uint64_t t, f;
	uint32_t pi, pj;            /* top pair, HC_NONE */
	uint64_t pv;
	uint32_t obj;               /* objects.xml index of the top object, HC_NONE */
	uint64_t ov;
	struct hc_db_mcell *cell;         /* sorted by (i, j) */
	uint32_t ncell;
};

struct vline {
	uint32_t i, j;              /* pair, or object (i) with j = HC_NONE */
};

struct views {
	struct an *an;
	uint64_t width, span;
	uint32_t nwin;
	uint64_t *origin;           /* per host */
	unsigned nw;
	struct views_worker *w;
	struct numa *numa;
	const struct objects *ob;

	/* after views__finish */
	uint64_t (*wvol)[2];        /* per window */
	uint32_t *wphase;
	struct vphase *ph;
	uint32_t nph;
	void *cellmem;              /* the phases' cells (views__finish: the sort's scratch) */
	struct an_parr cellpa;      /* cellmem's address space when it came from the pool */
	struct vline line[2 * VIEWS_TIMELINE_TOP];
	uint32_t nline;
	uint64_t *lval;             /* nwin × nline: all volume of each line per window */
};

/* ---------------- similarity and the phase rule ---------------- */

static long double vec_sum(const struct vcell *a, uint32_t na)
{
	long double sa = 0;

	for (uint32_t x = 0; x < na; x++)
		sa += a[x].v;
	return sa;
}

/* The coefficient with both sums known (vec_sum's, the same additions in
   the same order). Symmetric to the bit: a/sa * (b/sb) and b/sb * (a/sa)
   are the same product and the terms are added in key order either way. */
static double similarity_sums(const struct vcell *a, uint32_t na, long double sa,
                              const struct vcell *b, uint32_t nb, long double sb)
{
	long double s = 0;
	uint32_t x = 0, y = 0;

	if (sa == 0 && sb == 0)
		return 1.0;
	if (sa == 0 || sb == 0)
		return 0.0;
	while (x < na && y < nb) {
		if (a[x].key < b[y].key) {
			x++;
		} else if (a[x].key > b[y].key) {
			y++;
		} else {
			s += sqrtl((long double)a[x].v / sa * ((long double)b[y].v / sb));
			x++;
			y++;
		}
	}
	return (double)s;
}

double views__similarity(const struct vcell *a, uint32_t na, const struct vcell *b, uint32_t nb)
{
	return similarity_sums(a, na, vec_sum(a, na), b, nb, vec_sum(b, nb));
}

/* dst = a + b (sorted sparse vectors); malloc'd. */
static int vec_add(const struct vcell *a, uint32_t na, const struct vcell *b, uint32_t nb,
                   struct vcell **dst, uint32_t *nd)
{
	struct vcell *d = malloc(((size_t)na + nb + 1) * sizeof(*d));
	uint32_t x = 0, y = 0, n = 0;

	if (!d)
		return -ENOMEM;
	while (x < na || y < nb) {
		if (y >= nb || (x < na && a[x].key < b[y].key))
			d[n++] = a[x++];
		else if (x >= na || b[y].key < a[x].key)
			d[n++] = b[y++];
		else {
			d[n] = a[x++];
			d[n++].v += b[y++].v;
		}
	}
	*dst = d;
	*nd = n;
	return 0;
}

/* A segment (a run of windows) while the phases are found. Each version
   of a segment's vector has an id of its own (never reused), its sum is
   computed once, and the similarity to the right neighbour is remembered
   with that neighbour's id: at 10^5 threads a window holds ~400 K cells and
   the rule below asks for each neighbours' similarity up to three times
   (doc/performance.md, Session 10). */
struct seg {
	struct vcell *v;
	uint32_t n;
	uint32_t first, last;
	uint32_t busy;              /* busy windows in it */
	uint64_t id;
	long double sum;
	uint64_t rid;               /* id of the right neighbour rsim is for; 0: none */
	double rsim;
};

/* The new vector of s; ids counts the ids given. */
static void seg_set(struct seg *s, struct vcell *v, uint32_t n, uint64_t *ids)
{
	s->v = v;
	s->n = n;
	s->id = ++*ids;
	s->sum = vec_sum(v, n);
	s->rid = 0;
}

/* The similarity of s[k] and s[k + 1]. */
static double seg_sim(struct seg *s, uint32_t k)
{
	if (s[k].rid != s[k + 1].id) {
		s[k].rsim = similarity_sums(s[k].v, s[k].n, s[k].sum, s[k + 1].v, s[k + 1].n,
		                            s[k + 1].sum);
		s[k].rid = s[k + 1].id;
	}
	return s[k].rsim;
}

static void segs_free(struct seg *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		free(s[i].v);
	free(s);
}

/* Merge segment k + 1 into k and close the gap. */
static int seg_join(struct seg *s, uint32_t *n, uint32_t k, uint64_t *ids)
{
	struct vcell *v;
	uint32_t nv;

	if (vec_add(s[k].v, s[k].n, s[k + 1].v, s[k + 1].n, &v, &nv))
		return -ENOMEM;
	free(s[k].v);
	free(s[k + 1].v);
	seg_set(&s[k], v, nv, ids);
	s[k].last = s[k + 1].last;
	s[k].busy += s[k + 1].busy;
	memmove(&s[k + 1], &s[k + 2], (*n - k - 2) * sizeof(*s));
	s[*n - 1].v = NULL;         /* moved down (or freed): not twice in the array */
	s[*n - 1].n = 0;
	(*n)--;
	return 0;
}

int views__segment(const struct vcell *const *win, const uint32_t *nwc, uint32_t nwin,
                   uint32_t *phase, uint32_t *nphases)
{
	/* one more than the windows: a busy window's vector goes into s[n]
	   first and becomes a segment only if it does not join s[n - 1] */
	struct seg *s = calloc((size_t)nwin + 1, sizeof(*s));
	uint64_t maxv = 0, q, ids = 0;
	uint32_t n = 0, w, k;
	bool changed;
	int ret = -ENOMEM;

	if (!s)
		return -ENOMEM;
	for (w = 0; w < nwin; w++) {
		uint64_t v = 0;
		for (k = 0; k < nwc[w]; k++)
			v += win[w][k].v;
		if (v > maxv)
			maxv = v;
	}
	q = (uint64_t)ceil(VIEWS_QUIET * (double)maxv);
	for (w = 0; w < nwin; w++) {
		uint64_t v = 0;
		bool quiet;

		for (k = 0; k < nwc[w]; k++)
			v += win[w][k].v;
		quiet = v < q || v == 0;
		if (n && !quiet) {
			/* the window as the candidate segment s[n], compared once */
			struct vcell *nv;
			uint32_t nn;
			if (vec_add(win[w], nwc[w], NULL, 0, &nv, &nn))
				goto out;
			seg_set(&s[n], nv, nn, &ids);
		}
		if (n && (quiet || seg_sim(s, n - 1) >= VIEWS_SIMILAR)) {
			struct vcell *nv;
			uint32_t nn;
			if (vec_add(s[n - 1].v, s[n - 1].n, win[w], nwc[w], &nv, &nn))
				goto out;
			free(s[n - 1].v);
			seg_set(&s[n - 1], nv, nn, &ids);
			s[n - 1].last = w;
			s[n - 1].busy += !quiet;
			free(s[n].v);
			s[n].v = NULL;
			s[n].n = 0;
			continue;
		}
		if (n == 1 && !s[0].busy) {
			/* Quiet windows before the first busy one open the first phase. */
			struct vcell *nv;
			uint32_t nn;
			if (vec_add(s[0].v, s[0].n, win[w], nwc[w], &nv, &nn))
				goto out;
			free(s[0].v);
			seg_set(&s[0], nv, nn, &ids);
			s[0].last = w;
			s[0].busy = 1;
			free(s[1].v);
			s[1].v = NULL;
			s[1].n = 0;
			continue;
		}
		if (!n) {
			struct vcell *nv;
			uint32_t nn;
			if (vec_add(win[w], nwc[w], NULL, 0, &nv, &nn))
				goto out;
			seg_set(&s[n], nv, nn, &ids);
		}
		s[n].first = s[n].last = w;
		s[n].busy = !quiet;
		n++;
	}
	/* One-window mixtures join their most alike neighbour; then alike
	   neighbours merge; until nothing changes. */
	do {
		changed = false;
		for (k = 0; k < n && n > 1; k++) {
			double l = -1, r = -1;
			if (s[k].busy != 1)
				continue;
			if (k > 0)
				l = seg_sim(s, k - 1);
			if (k + 1 < n)
				r = seg_sim(s, k);
			if (l < VIEWS_MIX && r < VIEWS_MIX)
				continue;
			if ((ret = seg_join(s, &n, l >= r ? k - 1 : k, &ids)))
				goto out;
			ret = -ENOMEM;
			changed = true;
			break;
		}
		for (k = 0; !changed && k + 1 < n; k++)
			if (seg_sim(s, k) >= VIEWS_SIMILAR) {
				if ((ret = seg_join(s, &n, k, &ids)))
					goto out;
				ret = -ENOMEM;
				changed = true;
			}
	} while (changed);
	for (k = 0; k < n; k++)
		for (w = s[k].first; w <= s[k].last; w++)
			phase[w] = k;
	*nphases = n;
	ret = 0;
out:
	segs_free(s, n + 1);
	return ret;
}

/* ---------------- accumulation ---------------- */

int views__init(struct an *an, uint64_t window_ns, struct views **out)
{
	struct views *v = calloc(1, sizeof(*v));
	uint64_t *end;
	uint32_t i;
	int ret = -ENOMEM;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	v->an = an;
	v->nw = an->nworkers ? an->nworkers : 1;
	v->origin = calloc(an->nhosts ? an->nhosts : 1, sizeof(*v->origin));
	end = calloc(an->nhosts ? an->nhosts : 1, sizeof(*end));
	v->w = calloc(v->nw, sizeof(*v->w));
	if (!v->origin || !end || !v->w)
		goto out;
	for (i = 0; i < an->nhosts; i++)
		v->origin[i] = UINT64_MAX;
	for (i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];
		if (p->status != AN_OK)
			continue;
		if (p->th.start_ns < v->origin[p->host])
			v->origin[p->host] = p->th.start_ns;
		if (p->th.end_ns > end[p->host])
			end[p->host] = p->th.end_ns;
	}
	for (i = 0; i < an->nhosts; i++)
		if (v->origin[i] != UINT64_MAX && end[i] > v->origin[i] &&
		    end[i] - v->origin[i] > v->span)
			v->span = end[i] - v->origin[i];
	if (!v->span)
		v->span = 1;
	if (window_ns) {
		v->width = window_ns;
		if (v->span / v->width >= VIEWS_MAX_WINDOWS) {
			v->width = (v->span + VIEWS_MAX_WINDOWS - 1) / VIEWS_MAX_WINDOWS;
			an__warn(an, "--window %.3f ms would make more than %u windows; using %.3f ms",
			         (double)window_ns / 1e6, VIEWS_MAX_WINDOWS, (double)v->width / 1e6);
		}
	} else {
		v->width = (v->span + VIEWS_AUTO_WINDOWS - 1) / VIEWS_AUTO_WINDOWS;
	}
	if (v->width < VIEWS_MIN_WINDOW_NS)
		v->width = VIEWS_MIN_WINDOW_NS;
	v->nwin = (uint32_t)((v->span + v->width - 1) / v->width);
	if (!v->nwin)
		v->nwin = 1;
	for (i = 0; i < v->nw; i++) {
		uint64_t most = (an->nevents + 2 * (uint64_t)CC_SLOTS) * sizeof(struct wc);

		v->w[i].pool = &an->pool;
		v->w[i].rawmax = most < ((uint64_t)16 << 30) ? (size_t)most : (size_t)16 << 30;
		if (agg__init(&v->w[i].objs, 64))
			goto out;
		v->w[i].cc_cells = malloc(sizeof(struct ccache));
		v->w[i].cc_objs = malloc(sizeof(struct ccache));
		if (!v->w[i].cc_cells || !v->w[i].cc_objs)
			goto out;
		cc_init(v->w[i].cc_cells);
		cc_init(v->w[i].cc_objs);
	}
	if ((ret = numa__init(&v->numa, v->nw)))
		goto out;
	*out = v;
	v = NULL;
	ret = 0;
out:
	free(end);
	views__free(v);
	return ret;
}

void views__free(struct views *v)
{
	if (!v)
		return;
	for (unsigned i = 0; v->w && i < v->nw; i++) {
		buf_free(v->w[i].pool, v->w[i].raw, &v->w[i].rawpa);
		agg__free(&v->w[i].objs);
		free(v->w[i].cc_cells);
		free(v->w[i].cc_objs);
	}
	free(v->w);
	buf_free(&v->an->pool, v->cellmem, &v->cellpa);
	free(v->ph);
	free(v->origin);
	free(v->wvol);
	free(v->wphase);
	free(v->lval);
	numa__free(v->numa);
	free(v);
}

void views__pool_cap(struct an *an, const struct views *v)
{
	/* the workers' raw cells, and their copy into one array when several
	   have some (views__finish); the sort's scratch takes new pages then */
	uint64_t most = (an->nevents + 2 * (uint64_t)CC_SLOTS) * sizeof(struct wc) * (v->nw > 1 ? 2 : 1);

	an__pool_cap(&an->pool, most < SIZE_MAX ? (size_t)most : SIZE_MAX);
}

struct views_worker *views__worker(struct views *v, unsigned id)
{
	return v && id < v->nw ? &v->w[id] : NULL;
}

int views__event(struct views_worker *w, const struct an *an, const struct an_prof *p,
                 const struct hc_prof *hp, uint32_t evi, const struct hc_prof_event *ev,
                 uint32_t g, uint32_t gp, const struct hkey *ka, const struct hkey *kb,
                 uint64_t wt, uint64_t wf)
{
	struct views *v = an->views;
	uint64_t o, win;
	struct hkey k;
	int ret;

	if (!w || !v)
		return 0;
	o = v->origin[p->host];
	if (ev->time >= w->wlo && ev->time < w->whi && o == w->wo) {
		win = w->wwin;
	} else {
		win = ev->time <= o ? 0 : (ev->time - o) / v->width;
		if (win >= v->nwin) {
			win = v->nwin - 1;
		} else if (ev->time > o && win + 1 < v->nwin) {
			w->wo = o;
			w->wlo = o + win * v->width;
			w->whi = w->wlo + v->width;
			w->wwin = win;
		}
	}
	if (g != HC_NONE && gp != HC_NONE && g != gp) {
		k = (struct hkey){ win, g < gp ? g : gp, g < gp ? gp : g };
		if ((ret = cc_add(w->cc_cells, w, NULL, &k, wt, wf)))
			return ret;
	}
	k = (struct hkey){ win | ka->a << 32, ka->b, ka->c };
	if ((ret = cc_add(w->cc_objs, w, &w->objs, &k, wt, wf)))
		return ret;
	if (kb->a != ka->a || kb->b != ka->b || kb->c != ka->c) {
		k = (struct hkey){ win | kb->a << 32, kb->b, kb->c };
		if ((ret = cc_add(w->cc_objs, w, &w->objs, &k, wt, wf)))
			return ret;
	}
	if (p != w->numa_p) {
		const struct topo *t = p->host < an->nhosts ? an->hosts[p->host].topo : NULL;

		w->numa_p = p;
		w->numa_skip = !hc_prof_npnodes(hp) && (!t || t->nnuma <= 1);
	}
	if (w->numa_skip)
		return 0;
	return numa__event(v->numa, (unsigned)(w - v->w), an, p, hp, evi, ev, g, gp, ka, kb, wt, wf);
}

/* ---------------- distributed (dist_objects.c, doc/mpi.md) ---------------- */

static int cmp_wc(const void *x, const void *y);

void views__pack_params(const struct views *v, uint32_t nhosts, struct wbuf *b)
{
	dbuf__put32(b, v != NULL);
	if (!v)
		return;
	dbuf__put64(b, v->width);
	dbuf__put64(b, v->span);
	dbuf__put32(b, v->nwin);
	dbuf__put32(b, nhosts);
	dbuf__put(b, v->origin, (size_t)nhosts * sizeof(*v->origin));
}

int views__unpack_params(struct an *an, struct rbuf *b)
{
	struct views *v;
	int ret;

	if (!dbuf__get32(b) || b->bad)
		return 0;
	/* The windows of all profiles are rank 0's: its own (0 = automatic, so
	   no warning twice) are replaced. */
	if ((ret = views__init(an, 0, &an->views)))
		return ret;
	v = an->views;
	v->width = dbuf__get64(b);
	v->span = dbuf__get64(b);
	v->nwin = dbuf__get32(b);
	if (dbuf__get32(b) != an->nhosts || !v->width || !v->nwin || v->nwin > VIEWS_MAX_WINDOWS + 1)
		b->bad = true;
	else
		dbuf__get(b, v->origin, (size_t)an->nhosts * sizeof(*v->origin));
	return 0;
}

/* Window cells (summed, in order), the objects' window sums and numa.c's
   sums of every worker. */
int views__pack(struct views *v, struct wbuf *b)
{
	struct wc *wc;
	uint32_t total = 0, n = 0, o = 0, x;

	for (x = 0; x < v->nw; x++) {
		if (cc_flush(v->w[x].cc_cells, &v->w[x], NULL) ||
		    cc_flush(v->w[x].cc_objs, &v->w[x], &v->w[x].objs))
			return -ENOMEM;
		total += v->w[x].nraw;
	}
	if (!(wc = malloc((total ? total : 1) * sizeof(*wc))))
		return -ENOMEM;
	for (x = 0; x < v->nw; x++) {
		if (v->w[x].nraw)
			memcpy(wc + n, v->w[x].raw, (size_t)v->w[x].nraw * sizeof(*wc));
		n += v->w[x].nraw;
	}
	qsort(wc, n, sizeof(*wc), cmp_wc);
	for (x = 0; x < n; x++) {
		if (o && wc[o - 1].win == wc[x].win && wc[o - 1].i == wc[x].i && wc[o - 1].j == wc[x].j) {
			wc[o - 1].t += wc[x].t;
			wc[o - 1].f += wc[x].f;
		} else {
			wc[o++] = wc[x];
		}
	}
	dbuf__put32(b, o);
	for (x = 0; x < o; x++) {
		dbuf__put32(b, wc[x].win);
		dbuf__put32(b, wc[x].i);
		dbuf__put32(b, wc[x].j);
		dbuf__put64(b, wc[x].t);
		dbuf__put64(b, wc[x].f);
	}
	free(wc);
	for (x = 0, n = 0; x < v->nw; x++)
		n += v->w[x].objs.h.n;
	dbuf__put32(b, n);
	for (x = 0; x < v->nw; x++)
		for (uint32_t i = 0; i < v->w[x].objs.h.n; i++) {
			dbuf__put(b, &v->w[x].objs.h.keys[i], sizeof(struct hkey));
			dbuf__put64(b, v->w[x].objs.v[i][0]);
			dbuf__put64(b, v->w[x].objs.v[i][1]);
		}
	numa__pack(v->numa, b);
	return 0;
}

int views__unpack(struct views *v, struct rbuf *b)
{
	struct views_worker *w = &v->w[0];
	uint32_t n, i;

	n = dbuf__count(b, 28);
	if (n && w->nraw + n > w->rawcap && raw_grow(w, w->nraw + n))
		return -ENOMEM;
	for (i = 0; i < n && !b->bad; i++) {
		struct wc c;

		c.win = dbuf__get32(b);
		c.i = dbuf__get32(b);
		c.j = dbuf__get32(b);
		c.t = dbuf__get64(b);
		c.f = dbuf__get64(b);
		if (c.win >= v->nwin || c.i >= v->an->nthreads || c.j >= v->an->nthreads)
			b->bad = true;
		else
			w->raw[w->nraw++] = c;
	}
	n = dbuf__count(b, sizeof(struct hkey) + 16);
	for (i = 0; i < n && !b->bad; i++) {
		struct hkey k;
		uint64_t t, f;

		dbuf__get(b, &k, sizeof(k));
		t = dbuf__get64(b);
		f = dbuf__get64(b);
		if (!b->bad && agg__add(&w->objs, &k, t, f))
			return -ENOMEM;
	}
	return b->bad ? 0 : numa__unpack(v->numa, b);
}

/* ---------------- finishing ---------------- */

/* Window cells by (i, j, window): a pair's windows adjacent, so that the
   whole-run cells, each window's and each phase's come out in (i, j)
   order from one sort. */
static int cmp_wc(const void *x, const void *y)
{
	const struct wc *a = x, *b = y;

	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	if (a->j != b->j)
		return a->j < b->j ? -1 : 1;
	return (a->win > b->win) - (a->win < b->win);
}

struct rank_ent {
	uint64_t v;
	uint32_t x;
};

static int cmp_rank_ent(const void *x, const void *y)
{
	const struct rank_ent *a = x, *b = y;

	if (a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return (a->x > b->x) - (a->x < b->x);
}

/* The first k entries of r[0..n) in cmp_rank_ent's order (a total order:
   the indices differ) into r[0..min(k, n)), sorted, as qsort would leave
   them: one pass keeping the best k by insertion, instead of sorting all
   the pairs to name 8 (10^5 threads: 1.3 M pairs, 0.25 s of qsort). */
static inline void rank_offer(struct rank_ent *r, uint32_t *m, uint32_t k, struct rank_ent e,
                              uint32_t (*ij)[2], uint32_t i, uint32_t j)
{
	uint32_t y;

	if (*m == k && cmp_rank_ent(&e, &r[*m - 1]) >= 0)
		return;
	y = *m < k ? (*m)++ : *m - 1;   /* the last place is free or dropped */
	while (y > 0 && cmp_rank_ent(&e, &r[y - 1]) < 0) {
		r[y] = r[y - 1];
		if (ij) {
			ij[y][0] = ij[y - 1][0];
			ij[y][1] = ij[y - 1][1];
		}
		y--;
	}
	r[y] = e;
	if (ij) {
		ij[y][0] = i;
		ij[y][1] = j;
	}
}

static void rank_top(struct rank_ent *r, uint32_t n, uint32_t k)
{
	uint32_t m = 0;

	for (uint32_t x = 0; x < n; x++)
		rank_offer(r, &m, k, r[x], NULL, 0, 0);
}

/* Sort the window cells by (i, j, window): an LSD radix sort, 11 bits a
   pass, on the three fields packed into one 64-bit key of as many bits as
   their largest values need (at 10^5 threads 39 bits, 4 passes; 256
   threads 21 bits, 2 passes), the records moved whole; passes whose digit
   is the same in every record skipped. Window cells are 10^5..10^7 records
   here: qsort was most of the views' time (doc/performance.md). Equal keys
   are summed by the caller, so the order among them does not matter. tmp
   is a scratch of n records; the sorted records are in c or tmp, the one
   returned. Falls back on qsort in c when the key needs more than 64 bits
   (or without memory for the counts). */
#define RADIX_BITS 11
static unsigned bits_of(uint32_t x)
{
	unsigned b = 0;

	while (x) {
		b++;
		x >>= 1;
	}
	return b;
}

#define WC_KEY(x) ((uint64_t)(x)->i << (bj + bw) | (uint64_t)(x)->j << bw | (x)->win)

/* One bucket a[0..n) of the MSD split (its keys agree above bit lowbits),
   sorted by np LSD passes of pb bits (np * pb >= lowbits), every pass done,
   with s[0..n) as scratch: the result is in a for np even, else in s. */
static void sort_bucket(struct wc *a, struct wc *s, uint32_t n, unsigned bj, unsigned bw,
                        unsigned np, unsigned pb, uint32_t (*cnt)[1u << RADIX_BITS])
{
	const uint32_t mask = (1u << pb) - 1;
	struct wc *src = a, *dst = s, *t;
	unsigned pass;
	uint32_t k;

	memset(cnt, 0, np * sizeof(*cnt));
	for (k = 0; k < n; k++) {
		uint64_t key = WC_KEY(&a[k]);
		for (pass = 0; pass < np; pass++)
			cnt[pass][(key >> (pb * pass)) & mask]++;
	}
	for (pass = 0; pass < np; pass++) {
		uint32_t sum = 0, x, b;

		for (b = 0; b <= mask; b++) {
			x = cnt[pass][b];
			cnt[pass][b] = sum;
			sum += x;
		}
		for (k = 0; k < n; k++)
			dst[cnt[pass][(WC_KEY(&src[k]) >> (pb * pass)) & mask]++] = src[k];
		t = src;
		src = dst;
		dst = t;
	}
}

/* Many records and a long key: one MSD pass on the top RADIX_BITS bits
   into tmp, then each bucket (at 10^5 threads ~3,000 records, 96 KB)
   sorted by LSD passes while it stays in cache; instead of every LSD pass
   moving all the records through memory (10^5 threads: 4 passes over
   194 MB, 0.4 s). */
#define MSD_MIN ((size_t)1 << 16)
static struct wc *sort_msd(struct wc *c, struct wc *tmp, size_t n, unsigned bits, unsigned bj,
                           unsigned bw)
{
	unsigned lowbits = bits - RADIX_BITS;
	unsigned np = (lowbits + RADIX_BITS - 1) / RADIX_BITS;
	unsigned pb = (lowbits + np - 1) / np;
	size_t *top = calloc((size_t)1 << RADIX_BITS, sizeof(*top)), k, sum = 0, x, b, lo;
	uint32_t (*cnt)[1u << RADIX_BITS] = malloc(np * sizeof(*cnt));

	if (!top || !cnt) {
		free(top);
		free(cnt);
		return NULL;
	}
	for (k = 0; k < n; k++)
		top[WC_KEY(&c[k]) >> lowbits]++;
	for (b = 0; b < ((size_t)1 << RADIX_BITS); b++) {
		x = top[b];
		top[b] = sum;
		sum += x;
	}
	for (k = 0; k < n; k++)
		tmp[top[WC_KEY(&c[k]) >> lowbits]++] = c[k];
	/* top[b] is now the end of bucket b */
	for (b = 0, lo = 0; b < ((size_t)1 << RADIX_BITS); lo = top[b], b++)
		if (top[b] - lo > 1)
			sort_bucket(tmp + lo, c + lo, (uint32_t)(top[b] - lo), bj, bw, np, pb, cnt);
		else if (top[b] - lo == 1 && np % 2)
			c[lo] = tmp[lo];
	free(top);
	free(cnt);
	return np % 2 ? c : tmp;
}

struct wc *views__sort_wc(struct wc *c, struct wc *tmp, size_t n)
{
	const uint32_t mask = (1u << RADIX_BITS) - 1;
	uint32_t oi = 0, oj = 0, ow = 0;
	unsigned bj, bw, npass, pass;
	size_t (*cnt)[1u << RADIX_BITS], k;
	struct wc *src, *dst;

	if (n < 2)
		return c;
	for (k = 0; k < n; k++) {
		oi |= c[k].i;
		oj |= c[k].j;
		ow |= c[k].win;
	}
	bj = bits_of(oj);
	bw = bits_of(ow);
	npass = (bits_of(oi) + bj + bw + RADIX_BITS - 1) / RADIX_BITS;
	if (bits_of(oi) + bj + bw > 64) {
		qsort(c, n, sizeof(*c), cmp_wc);
		return c;
	}
	if (n >= MSD_MIN && npass > 2 && n <= UINT32_MAX &&
	    (src = sort_msd(c, tmp, n, bits_of(oi) + bj + bw, bj, bw)))
		return src;
	cnt = calloc(npass ? npass : 1, sizeof(*cnt));
	if (!cnt) {
		qsort(c, n, sizeof(*c), cmp_wc);
		return c;
	}
	for (k = 0; k < n; k++) {
		uint64_t key = WC_KEY(&c[k]);
		for (pass = 0; pass < npass; pass++)
			cnt[pass][(key >> (RADIX_BITS * pass)) & mask]++;
	}
	src = c;
	dst = tmp;
	for (pass = 0; pass < npass; pass++) {
		unsigned sh = RADIX_BITS * pass;
		size_t sum = 0, x, b;

		for (b = 0; b <= mask && cnt[pass][b] != n; b++)
			;
		if (b <= mask)
			continue;   /* one digit value in every record */
		for (b = 0; b <= mask; b++) {
			x = cnt[pass][b];
			cnt[pass][b] = sum;
			sum += x;
		}
		for (k = 0; k < n; k++)
			dst[cnt[pass][(WC_KEY(&src[k]) >> sh) & mask]++] = src[k];
		struct wc *t = src;
		src = dst;
		dst = t;
	}
#undef WC_KEY
	free(cnt);
	return src;
}

int views__finish(struct an *an, struct views *v, const struct objects *ob)
{
	struct agg objs;
	struct hmap okey;           /* object key -> objects.xml index */
	struct wc *wc = NULL, *tmp = NULL;
	struct an_parr wpa, tpa;    /* wc's, tmp's address space when reserved (either way
	                               round after the sort) */
	struct vcell **vec = NULL;
	uint32_t *nvec = NULL, *oidx = NULL, nwc = 0, i, w, k, nobj;
	uint64_t *objtot = NULL;
	size_t total = 0;
	struct rank_ent ptop[VIEWS_TIMELINE_TOP];
	uint32_t ptop_ij[VIEWS_TIMELINE_TOP][2], nptop = 0;
	int ret = -ENOMEM;

	memset(&objs, 0, sizeof(objs));
	memset(&okey, 0, sizeof(okey));
	memset(&wpa, 0, sizeof(wpa));
	memset(&tpa, 0, sizeof(tpa));
	v->ob = ob;
	if (agg__init(&objs, 256) || hmap__init(&okey, 64))
		goto out;
	for (unsigned x = 0; x < v->nw; x++) {
		if (cc_flush(v->w[x].cc_cells, &v->w[x], NULL) ||
		    cc_flush(v->w[x].cc_objs, &v->w[x], &v->w[x].objs))
			goto out;
		total += v->w[x].nraw;
	}
	/* Window cells in order, repeated keys summed: the workers' cells
	   together (those of the only worker with any taken as they are). */
	for (unsigned x = 0, nwith = 0; x < v->nw; x++) {
		nwith += v->w[x].nraw != 0;
		if (nwith == 1 && v->w[x].nraw == total) {
			wc = v->w[x].raw;
			nwc = v->w[x].nraw;
			wpa = v->w[x].rawpa;
			memset(&v->w[x].rawpa, 0, sizeof(v->w[x].rawpa));
			v->w[x].raw = NULL;
			v->w[x].nraw = v->w[x].rawcap = 0;
			break;
		}
	}
	if (!wc && !(wc = pool_alloc(&an->pool, total * sizeof(*wc), &wpa)))
		goto out;
	for (unsigned x = 0; x < v->nw; x++) {
		if (v->w[x].nraw)   /* raw is NULL for a worker that saw no event (UBSan) */
			memcpy(wc + nwc, v->w[x].raw, (size_t)v->w[x].nraw * sizeof(*wc));
		nwc += v->w[x].nraw;
		buf_free(v->w[x].pool, v->w[x].raw, &v->w[x].rawpa);
		v->w[x].raw = NULL;
		v->w[x].nraw = v->w[x].rawcap = 0;
		for (i = 0; i < v->w[x].objs.h.n; i++)
			if (agg__add(&objs, &v->w[x].objs.h.keys[i], v->w[x].objs.v[i][0],
			             v->w[x].objs.v[i][1]))
				goto out;
		agg__free(&v->w[x].objs);
		memset(&v->w[x].objs, 0, sizeof(v->w[x].objs));
	}
	/* The sort's scratch: after the sort, the windows' vectors and then
	   the phases' cells (no new pages for either: at 10^5 threads 6.1 M
	   window cells, 194 MB) */
	if (!(tmp = pool_alloc(&an->pool, (size_t)nwc * sizeof(*tmp), &tpa)))
		goto out;
	{
		struct wc *sorted = views__sort_wc(wc, tmp, nwc);
		if (sorted != wc) {
			tmp = wc;
			wc = sorted;
		}
	}
	{
		uint32_t o = 0;
		for (i = 0; i < nwc; i++) {
			if (o && wc[o - 1].win == wc[i].win && wc[o - 1].i == wc[i].i &&
			    wc[o - 1].j == wc[i].j) {
				wc[o - 1].t += wc[i].t;
				wc[o - 1].f += wc[i].f;
			} else {
				wc[o++] = wc[i];
			}
		}
		nwc = o;
	}
	/* Objects: their objects.xml index by key. */
	nobj = objects__count(ob);
	if (objects__index_keys(ob, &okey))
		goto out;
	vec = calloc(v->nwin, sizeof(*vec));
	nvec = calloc(v->nwin, sizeof(*nvec));
	v->wvol = calloc(v->nwin, sizeof(*v->wvol));
	v->wphase = calloc(v->nwin, sizeof(*v->wphase));
	objtot = calloc(nobj ? nobj : 1, sizeof(*objtot));
	oidx = malloc((objs.h.n ? objs.h.n : 1) * sizeof(*oidx));
	if (!vec || !nvec || !v->wvol || !v->wphase || !objtot || !oidx)
		goto out;
	/* The whole run's pairs, in (i, j) order as the window cells are: the
	   top ones by volume (ties: the first), taken as they come; and the
	   cells of each window. */
	for (i = 0; i < nwc; i++) {
		uint64_t pv = 0;
		uint32_t x = i;

		for (; x < nwc && wc[x].i == wc[i].i && wc[x].j == wc[i].j; x++) {
			pv += wc[x].t + wc[x].f;
			nvec[wc[x].win]++;
		}
		rank_offer(ptop, &nptop, VIEWS_TIMELINE_TOP, (struct rank_ent){ pv, i }, ptop_ij,
		           wc[i].i, wc[i].j);
		i = x - 1;
	}
	/* each window's vector in the scratch (16 of its 32 bytes a cell) */
	{
		struct vcell *vm = (struct vcell *)(void *)tmp;
		size_t off = 0;

		for (w = 0; w < v->nwin; w++) {
			vec[w] = nvec[w] ? vm + off : NULL;
			off += nvec[w];
			nvec[w] = 0;
		}
	}
	for (i = 0; i < nwc; i++) {
		w = wc[i].win;
		vec[w][nvec[w]++] = (struct vcell){ (uint64_t)wc[i].i << 32 | wc[i].j,
		                                    wc[i].t + wc[i].f };
		v->wvol[w][0] += wc[i].t;
		v->wvol[w][1] += wc[i].f;
	}
	if ((ret = views__segment((const struct vcell *const *)vec, nvec, v->nwin, v->wphase,
	                          &v->nph)))
		goto out;
	for (w = 0; w < v->nwin; w++)   /* read no more: the scratch holds the phases' cells next */
		vec[w] = NULL;
	ret = -ENOMEM;
	v->ph = calloc(v->nph ? v->nph : 1, sizeof(*v->ph));
	if (!v->ph)
		goto out;
	for (k = 0; k < v->nph; k++) {
		v->ph[k].first = UINT32_MAX;
		v->ph[k].pi = v->ph[k].pj = v->ph[k].obj = HC_NONE;
	}
	for (w = 0; w < v->nwin; w++) {
		struct vphase *p = &v->ph[v->wphase[w]];
		if (p->first == UINT32_MAX)
			p->first = w;
		p->last = w;
		p->t += v->wvol[w][0];
		p->f += v->wvol[w][1];
	}
	/* Per phase: its matrix. A phase is a run of windows, and a pair's
	   windows are adjacent in (i, j, window) order: a phase's part of a
	   pair is one run, appended in (i, j) order. Counted first. */
	for (i = 0; i < nwc; i++) {
		k = v->wphase[wc[i].win];
		if (!i || wc[i - 1].i != wc[i].i || wc[i - 1].j != wc[i].j ||
		    v->wphase[wc[i - 1].win] != k)
			v->ph[k].ncell++;
	}
	/* in the scratch (24 of its 32 bytes a cell; the phases' cells are at
	   most the window cells), which the views keep */
	{
		struct hc_db_mcell *cm = (struct hc_db_mcell *)(void *)tmp;
		size_t off = 0;

		v->cellmem = tmp;
		if (tmp == (void *)wpa.base) {
			v->cellpa = wpa;
			memset(&wpa, 0, sizeof(wpa));
		} else if (tmp == (void *)tpa.base) {
			v->cellpa = tpa;
			memset(&tpa, 0, sizeof(tpa));
		}
		tmp = NULL;
		for (k = 0; k < v->nph; k++) {
			v->ph[k].cell = cm + off;
			off += v->ph[k].ncell;
			v->ph[k].ncell = 0;
		}
	}
	for (i = 0; i < nwc; i++) {
		struct vphase *p = &v->ph[v->wphase[wc[i].win]];

		if (p->ncell && p->cell[p->ncell - 1].i == wc[i].i && p->cell[p->ncell - 1].j == wc[i].j) {
			p->cell[p->ncell - 1].v[0] += wc[i].t;
			p->cell[p->ncell - 1].v[1] += wc[i].f;
		} else {
			p->cell[p->ncell++] = (struct hc_db_mcell){ wc[i].i, wc[i].j, { wc[i].t, wc[i].f } };
		}
	}
	for (k = 0; k < v->nph; k++) {
		struct vphase *p = &v->ph[k];
		uint32_t c;

		for (c = 0; c < p->ncell; c++)
			if (p->cell[c].v[0] + p->cell[c].v[1] > p->pv) {   /* ties: the first (i, j) */
				p->pv = p->cell[c].v[0] + p->cell[c].v[1];
				p->pi = p->cell[c].i;
				p->pj = p->cell[c].j;
			}
	}
	/* Objects per window and per phase. */
	{
		uint64_t *pov = NULL;
		for (i = 0; i < objs.h.n; i++) {
			const struct hkey *hk = &objs.h.keys[i];
			struct hkey ok = { hk->a >> 32, hk->b, hk->c };
			oidx[i] = HC_NONE;
			if (hmap__find(&okey, &ok, &oidx[i]))
				objtot[oidx[i]] += objs.v[i][0] + objs.v[i][1];
		}
		for (k = 0; k < v->nph; k++) {
			free(pov);
			pov = calloc(nobj ? nobj : 1, sizeof(*pov));
			if (!pov)
				goto out;
			for (i = 0; i < objs.h.n; i++)
				if (oidx[i] != HC_NONE &&
				    v->wphase[(uint32_t)objs.h.keys[i].a] == k)
					pov[oidx[i]] += objs.v[i][0] + objs.v[i][1];
			for (i = 0; i < nobj; i++)
				if (pov[i] > v->ph[k].ov) {
					v->ph[k].ov = pov[i];
					v->ph[k].obj = i;
				}
		}
		free(pov);
	}
	/* Timeline lines: the top pairs and the top objects of the whole run. */
	{
		uint32_t nl = 0;
		struct rank_ent *r = malloc((nobj + 1) * sizeof(*r));
		if (!r)
			goto out;
		for (i = 0; i < nptop; i++)
			v->line[nl++] = (struct vline){ ptop_ij[i][0], ptop_ij[i][1] };
		for (i = 0; i < nobj; i++)
			r[i] = (struct rank_ent){ objtot[i], i };
		rank_top(r, nobj, VIEWS_TIMELINE_TOP);
		for (i = 0; i < nobj && i < VIEWS_TIMELINE_TOP && r[i].v; i++)
			v->line[nl++] = (struct vline){ r[i].x, HC_NONE };
		free(r);
		v->nline = nl;
		v->lval = calloc((size_t)v->nwin * (nl ? nl : 1), sizeof(*v->lval));
		if (!v->lval)
			goto out;
		/* a pair's window cells are one run of wc, sorted by (i, j) */
		for (k = 0; k < nl; k++) {
			uint32_t lo = 0, hi = nwc;

			if (v->line[k].j == HC_NONE)
				continue;
			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;
				if (wc[mid].i < v->line[k].i ||
				    (wc[mid].i == v->line[k].i && wc[mid].j < v->line[k].j))
					lo = mid + 1;
				else
					hi = mid;
			}
			for (i = lo; i < nwc && wc[i].i == v->line[k].i && wc[i].j == v->line[k].j; i++)
				v->lval[(size_t)wc[i].win * nl + k] += wc[i].t + wc[i].f;
		}
		for (i = 0; i < objs.h.n; i++)
			for (k = 0; k < nl; k++)
				if (v->line[k].j == HC_NONE && oidx[i] == v->line[k].i)
					v->lval[(size_t)(uint32_t)objs.h.keys[i].a * nl + k] +=
						objs.v[i][0] + objs.v[i][1];
	}
	ret = numa__finish(an, v->numa, ob);
out:
	free(vec);
	free(nvec);
	buf_free2(&an->pool, wc, &wpa, &tpa);
	buf_free2(&an->pool, tmp, &wpa, &tpa);
	free(objtot);
	free(oidx);
	agg__free(&objs);
	hmap__free(&okey);
	return ret;
}

/* ---------------- output ---------------- */

/* What phases.xml holds, as lib/db's plain rows (db/write.h). */
static int write_phases(struct an *an, const struct views *v, const char *dir, char *err,
                        size_t errlen)
{
	struct hc_db_wphase *ph = calloc(v->nph ? v->nph : 1, sizeof(*ph));
	struct hc_db_wline lines[2 * VIEWS_TIMELINE_TOP];
	struct hc_db_wphases w;
	uint32_t k;
	int ret;

	if (!ph) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_PHASES);
		return -ENOMEM;
	}
	for (k = 0; k < v->nph; k++) {
		const struct vphase *p = &v->ph[k];

		ph[k] = (struct hc_db_wphase){ .first = p->first, .last = p->last, .t = p->t,
		                               .f = p->f, .pi = p->pi == HC_NONE ? UINT32_MAX : p->pi,
		                               .pj = p->pj, .pv = p->pv,
		                               .obj = p->obj == HC_NONE ? UINT32_MAX : p->obj,
		                               .ov = p->ov, .cells = p->cell, .ncells = p->ncell };
		if (p->obj != HC_NONE) {
			uint64_t key[3];
			objects__ranked(v->ob, p->obj, key, &ph[k].object_name);
		}
	}
	for (k = 0; k < v->nline; k++)
		lines[k] = (struct hc_db_wline){ v->line[k].i,
		                                 v->line[k].j == HC_NONE ? UINT32_MAX : v->line[k].j };
	w = (struct hc_db_wphases){ .unit = an->unit, .width = v->width, .span = v->span,
	                            .nwin = v->nwin, .similarity = VIEWS_SIMILAR, .ph = ph,
	                            .nph = v->nph, .lines = lines, .nline = v->nline,
	                            .wphase = v->wphase, .wvol = (const uint64_t (*)[2])v->wvol,
	                            .lval = v->lval };
	ret = hc_db_write_phases(dir, &w, err, errlen);
	free(ph);
	return ret;
}

/* A name as phases.xml's reader gives it back (hc_put_xml's replacements). */
static char *name_as_read(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d)
		return NULL;
	hc_utf8_fix(d);
	for (char *p = d; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
			*p = '?';
	return d;
}

int views__model(const struct an *an, const struct views *v, struct hc_db_views *out)
{
	char sim[32];
	uint32_t k, w;

	(void)an;
	out->has_phases = true;
	out->window = v->width;
	out->span = v->span;
	snprintf(sim, sizeof(sim), "%.2f", VIEWS_SIMILAR);   /* as written, then read */
	out->similarity = strtod(sim, NULL);
	out->rule = strdup(HC_DB_PHASE_RULE);
	out->phases = calloc(v->nph ? v->nph : 1, sizeof(*out->phases));
	out->lines = calloc(v->nline ? v->nline : 1, sizeof(*out->lines));
	out->windows = calloc(v->nwin ? v->nwin : 1, sizeof(*out->windows));
	if (!out->rule || !out->phases || !out->lines || !out->windows)
		return -ENOMEM;
	for (k = 0; k < v->nph; k++) {
		const struct vphase *p = &v->ph[k];
		struct hc_db_phase *q = &out->phases[out->nphases++];
		const char *name = NULL;

		*q = (struct hc_db_phase){ .i = k, .start = (uint64_t)p->first * v->width,
		                           .end = (uint64_t)(p->last + 1) * v->width, .first = p->first,
		                           .last = p->last, .all = p->t + p->f, .tru = p->t,
		                           .fal = p->f, .pair_i = -1, .pair_j = -1, .object = -1 };
		if (p->pi != HC_NONE && p->pi != UINT32_MAX) {
			q->pair_i = p->pi;
			q->pair_j = p->pj;
			q->pair_all = p->pv;
		}
		if (p->obj != HC_NONE && p->obj != UINT32_MAX) {
			uint64_t key[3];
			objects__ranked(v->ob, p->obj, key, &name);
			q->object = p->obj;
			q->object_all = p->ov;
		}
		q->object_name = name_as_read(name);
		if (!q->object_name)
			return -ENOMEM;
	}
	for (k = 0; k < v->nline; k++) {
		struct hc_db_line *l = &out->lines[out->nlines++];
		l->object = v->line[k].j == HC_NONE || v->line[k].j == UINT32_MAX;
		l->i = v->line[k].i;
		l->j = l->object ? 0 : v->line[k].j;
	}
	for (w = 0; w < v->nwin; w++) {
		struct hc_db_window *x = &out->windows[out->nwindows++];

		*x = (struct hc_db_window){ .i = w, .start = (uint64_t)w * v->width,
		                            .end = (uint64_t)(w + 1) * v->width, .phase = v->wphase[w],
		                            .all = v->wvol[w][0] + v->wvol[w][1], .tru = v->wvol[w][0],
		                            .fal = v->wvol[w][1] };
		x->lines = calloc(v->nline ? v->nline : 1, sizeof(*x->lines));
		if (!x->lines)
			return -ENOMEM;
		for (k = 0; k < v->nline; k++)
			x->lines[k] = v->lval[(size_t)w * v->nline + k];
	}
	return 0;
}

int views__write(struct an *an, const struct views *v, const char *dir, char *err, size_t errlen)
{
	int ret = write_phases(an, v, dir, err, errlen);

	if (!ret)
		ret = numa__write(an, v->numa, v->ob, dir, err, errlen);
	return ret;
}
