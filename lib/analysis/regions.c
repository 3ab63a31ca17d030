/* SPDX-License-Identifier: BSD-3-Clause */
/* regions.c — code regions (regions.h, doc/regions.md). The region tree:
   the program at the root; below it every function of the binary that a
   calling context passes through (a "procedure"), with an OpenMP outlined
   function (a "parallel region") placed under the procedure it was
   outlined from; below a function its loops, nested, recovered from its
   machine code by lib/decode/loops.c and named by the source line of their
   back-edge branches (libdw). Functions are decoded once each, and each
   module is opened once, however many contexts pass through it (the loop
   nest is cached per function of each load module).
   Membership: every merged calling-context node gets a "region set" id: the
   regions its path from the root passes through (each frame adds the
   region that holds its address and all regions around that one) and its
   innermost region (the deepest frame's). Sets are interned as chains
   (parent set, added region, innermost), so the ids are few and an event
   needs one lookup per side. Pass 2 sums events per (set of the detecting
   side, set of the peer's side, thread pair). Then: an event counts
   *inclusively* for every region in the union of the two sides' sets, once
   (so a pair cell is credited once even when both sides are in the
   region), and *exclusively* for the innermost region of the detecting
   side's context only (so the exclusive matrices partition the whole
   program's). Regions under REGIONS_MIN_SHARE of the volume are dropped
   (their exclusive part goes to the closest kept region around them);
   since a region's inclusive volume is at most its parent's, the kept ones
   form a tree. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "analysis/regions.h"
#include "decode/loops.h"
#include "support/log.h"

enum { R_PROGRAM = HC_DB_REG_PROGRAM, R_PROCEDURE = HC_DB_REG_PROCEDURE,
       R_PARALLEL = HC_DB_REG_PARALLEL, R_LOOP = HC_DB_REG_LOOP };

#define MAX_CHAIN 512
#define MAX_FUNC  (1u << 22)   /* larger "functions" are not decoded */

struct region {
	uint32_t parent, kind, lm, depth;
	uint64_t addr;          /* function start, loop header */
	uint64_t key;           /* the order of regions of equal volume (struct regions) */
	char *name, *file;      /* file NULL when unknown */
	uint32_t line;
	bool irreducible;
	uint64_t in_all;        /* pass A: inclusive volume (true + false + self) */
	bool keep;
	uint32_t out;           /* output id */
	struct matrix mi, mx;   /* inclusive, exclusive (kept ones) */
	struct an_parr ia, xa;  /* mi's, mx's cells when reserved (reserve_cells), base NULL:
	                           malloc'd */
	bool same_in;           /* mi's cells and rows are those of the closest region around
	                           it that owns its own (equal inclusive cells), not owned */
	uint32_t first_child, next_sibling;
	uint32_t fn;            /* function index (procedures, parallel regions, loops) */
	int32_t loop;           /* loop index in the function, -1 */
};

struct fn {
	uint32_t lm;
	uint64_t lo, size;
	char *raw;              /* the symbol's name */
	uint32_t region;
	uint32_t lseq;          /* its loops' place in the creation order (struct regions) */
	bool decode;            /* its loops are wanted (regions__prepare) */
	struct hc_loops loops;
	uint32_t *loopreg;
};

struct regions {
	struct region *r;
	uint32_t n, cap;
	struct hmap fnidx;      /* (lm, lo, 0) */
	struct fn *fn;
	uint32_t fncap;
	struct hmap sids;       /* (parent set, region, innermost) -> sd[] */
	struct sid {
		uint32_t par, reg, inner;   /* reg 0: the innermost changes, nothing is added */
	} *sd;
	uint32_t scap;
	uint32_t *rsid;         /* per global cct node */
	uint32_t *order;        /* kept regions in output order */
	uint32_t nkept;
	uint32_t *stamp, epoch, *list;
	struct sym_result *sres;
	uint64_t decoded, undecodable;
	struct build *b;            /* from regions__pairs to regions__build */
	double tpairs;              /* its CPU s (HC_DEBUG=time) */
	/* Regions are made as the contexts need them, and a function's loops
	   only where it can hold a kept region (by_volume: the function's own
	   volume, from pass 2's code pairs, is at least REGIONS_MIN_SHARE), so
	   the loop regions come after all functions. Regions of equal volume
	   are ordered (output order, dense ids) as if every function had been
	   decoded when it was first met: key = seq << 32 for a function's
	   region, a loop's = its function's lseq << 32 | (loop + 1), seq
	   counting those two events in the order they would have happened. */
	uint32_t seq;
	bool by_volume;             /* regions__init: pass 2's entries are keyed by
	                               code pair (regions__add), translated in pass A */
	double tprep;               /* regions__prepare's CPU s */
};

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

static int new_region(struct regions *R, uint32_t parent, uint32_t kind, uint32_t lm,
                      uint64_t addr, uint64_t key, uint32_t *out)
{
	int ret = an__grow(&R->r, &R->cap, R->n + 1, sizeof(*R->r));

	if (ret)
		return ret;
	memset(&R->r[R->n], 0, sizeof(R->r[R->n]));
	R->r[R->n].parent = parent;
	R->r[R->n].kind = kind;
	R->r[R->n].lm = lm;
	R->r[R->n].addr = addr;
	R->r[R->n].first_child = HC_NONE;
	R->r[R->n].next_sibling = HC_NONE;
	R->r[R->n].fn = HC_NONE;
	R->r[R->n].loop = -1;
	R->r[R->n].key = key;
	*out = R->n++;
	return 0;
}

/* The source line a loop is named by: the smallest line of its control
   branches (backward branches and conditional exits: the for/while
   condition or increment) in the function itself (inlined code: the line
   of the inlined call); without one, its latch blocks' last instructions;
   without a line there, the header's. */
static void loop_line(struct regions *R, struct symmod *m, const struct hc_loops *L,
                      const struct hc_loop *lp, char **file, uint32_t *line)
{
	struct sym_result *s = R->sres;
	uint32_t k, n = lp->nback + lp->nlatch;

	*file = NULL;
	*line = 0;
	for (k = 0; k <= n; k++) {
		uint64_t a = k < lp->nback ? L->backs[lp->first_back + k] :
		             k < n ? L->latches[lp->first_latch + k - lp->nback] : lp->head;
		const char *f;
		int ln;

		if ((k == lp->nback && *line) || (k == n && *line))
			break;
		sym__lookup(m, a, s);
		if (s->nframes > 1 && s->fr[1].call_line > 0) {
			f = s->fr[1].call_file;
			ln = s->fr[1].call_line;
		} else {
			f = s->file;
			ln = s->line;
		}
		if (!f || ln <= 0 || (*line && (uint32_t)ln >= *line))
			continue;
		free(*file);
		*file = strdup(f);
		*line = (uint32_t)ln;
	}
}

static int fn_get(struct an *an, struct regions *R, struct symmod *m, uint32_t lm, uint64_t lo,
                  uint64_t size, const char *raw, uint32_t *out, int depth);

/* The parent procedure of an outlined region: GCC names it in the raw name
   (parent._omp_fn.N); clang's display name starts with it. */
static int omp_parent(struct an *an, struct regions *R, struct symmod *m, uint32_t lm,
                      const char *raw, size_t plen, enum names_omp kind, const char *shown,
                      uint32_t *parent, int depth)
{
	char *praw = NULL;
	uint64_t plo, psize;
	uint32_t f;
	int ret = 0;

	*parent = 0;
	if (kind == NAMES_OMP_GCC)
		praw = strndup(raw, plen);
	else if (shown && strstr(shown, " [parallel region"))
		praw = strndup(shown, (size_t)(strstr(shown, " [parallel region") - shown));
	if (!praw)
		return 0;
	if (sym__function_named(m, praw, &plo, &psize)) {
		ret = fn_get(an, R, m, lm, plo, psize, praw, &f, depth + 1);
		if (!ret && f != HC_NONE)
			*parent = R->fn[f].region;
	}
	free(praw);
	return ret;
}

/* The function at lo of module lm: its region, made on first use (its
   loops: fn_decode). *out = function index, HC_NONE when it cannot be
   made. */
static int fn_get(struct an *an, struct regions *R, struct symmod *m, uint32_t lm, uint64_t lo,
                  uint64_t size, const char *raw, uint32_t *out, int depth)
{
	struct hkey k = { lm, lo, 0 };
	enum names_omp omp;
	size_t plen = 0;
	uint32_t i, reg, parent = 0;
	char *name = NULL;
	int ret;

	*out = HC_NONE;
	ret = hmap__intern(&R->fnidx, &k, &i);
	if (ret < 0)
		return ret;
	if (ret == 0) {
		*out = i;
		return 0;
	}
	ret = an__grow(&R->fn, &R->fncap, R->fnidx.n, sizeof(*R->fn));
	if (ret)
		return ret;
	memset(&R->fn[i], 0, sizeof(R->fn[i]));
	R->fn[i].lm = lm;
	R->fn[i].lo = lo;
	R->fn[i].size = size;
	R->fn[i].raw = strdup(raw);
	if (!R->fn[i].raw)
		return -ENOMEM;
	omp = names__omp_kind(raw, &plen);
	ret = new_region(R, 0, omp != NAMES_OMP_NONE ? R_PARALLEL : R_PROCEDURE, lm, lo,
	                 (uint64_t)R->seq++ << 32, &reg);
	if (ret)
		return ret;
	R->fn[i].region = reg;
	R->r[reg].fn = i;
	/* Names and lines are looked up later, for the regions kept only
	   (name_kept); a parallel region's now: its parent depends on it. */
	if (omp != NAMES_OMP_NONE) {
		const char *shown, *ofile;
		int oline;

		/* By the symbol: DWARF may nest the outlined body in its parent. */
		shown = sym__display_name(m, raw, lo, &ofile, &oline);
		name = shown ? strdup(shown) : names__demangle(raw);
		if (name && ofile && oline > 0) {
			R->r[reg].file = strdup(ofile);
			R->r[reg].line = (uint32_t)oline;
		}
		if (!name)
			return -ENOMEM;
		hc_utf8_fix(name);
		R->r[reg].name = name;
	}
	if (omp != NAMES_OMP_NONE && depth < 8) {
		ret = omp_parent(an, R, m, lm, raw, plen, omp, name, &parent, depth);
		if (ret)
			return ret;
		R->r[reg].parent = parent;
	}
	/* (its loops would have been made here, after its OpenMP parent's) */
	R->fn[i].lseq = R->seq++;
	*out = i;
	return 0;
}

/* Function i's loops (module m open): decoded, and a region for each. */
static int fn_decode(struct regions *R, struct symmod *m, uint32_t i)
{
	uint32_t lm = R->fn[i].lm, reg = R->fn[i].region, l;
	uint64_t lo = R->fn[i].lo, size = R->fn[i].size;
	uint8_t *code;
	int ret;

	if (!size || size > MAX_FUNC || !(code = sym__code(m, lo, size))) {
		R->undecodable++;
		return 0;
	}
	ret = hc_loops_find(code, size, lo, &R->fn[i].loops);
	free(code);
	if (ret == -ENOMEM)
		return ret;
	if (ret) {
		R->undecodable++;
		return 0;
	}
	R->decoded++;
	if (!R->fn[i].loops.nl)
		return 0;
	R->fn[i].loopreg = malloc(R->fn[i].loops.nl * sizeof(uint32_t));
	if (!R->fn[i].loopreg)
		return -ENOMEM;
	for (l = 0; l < R->fn[i].loops.nl; l++) {
		const struct hc_loop *lp = &R->fn[i].loops.l[l];
		uint32_t par = lp->parent >= 0 ? R->fn[i].loopreg[lp->parent] : reg, lr;

		ret = new_region(R, par, R_LOOP, lm, lp->head,
		                 (uint64_t)R->fn[i].lseq << 32 | (l + 1), &lr);
		if (ret)
			return ret;
		R->fn[i].loopreg[l] = lr;
		R->r[lr].depth = lp->depth;
		R->r[lr].irreducible = lp->irreducible;
		R->r[lr].fn = i;
		R->r[lr].loop = (int32_t)l;
	}
	return 0;
}

/* Name one region not named yet (module m open): a procedure by DWARF (as
   the calling-context tree names it), a loop by its back edges' line. */
static int name_region(struct an *an, struct regions *R, struct symmod *m, struct region *r)
{
	const struct fn *f = &R->fn[r->fn];
	struct sym_result *s = R->sres;
	char buf[600], *name;

	if (r->kind == R_LOOP) {
		loop_line(R, m, &f->loops, &f->loops.l[r->loop], &r->file, &r->line);
		if (r->file)
			snprintf(buf, sizeof(buf), "loop at %s:%u", base_name(r->file), r->line);
		else
			snprintf(buf, sizeof(buf), "loop at %s+0x%llx", base_name(an->modules.s[r->lm]),
			         (unsigned long long)r->addr);
		hc_utf8_fix(buf);
		r->name = strdup(buf);
		return r->name ? 0 : -ENOMEM;
	}
	sym__lookup(m, f->lo, s);
	name = s->nframes > 0 && s->fr[0].name ? strdup(s->fr[0].name) : names__demangle(f->raw);
	if (!name)
		return -ENOMEM;
	hc_utf8_fix(name);
	r->name = name;
	if (s->nframes > 0 && s->fr[0].decl_file && s->fr[0].decl_line > 0) {
		r->file = strdup(s->fr[0].decl_file);
		r->line = (uint32_t)s->fr[0].decl_line;
	} else if (s->file && s->line > 0) {
		r->file = strdup(s->file);
		r->line = (uint32_t)s->line;
	}
	return 0;
}

/* Names of the kept regions, one module open at a time. */
static int name_kept(struct an *an, struct regions *R)
{
	uint32_t lm, k;
	int ret = 0;

	for (lm = 0; lm < an->modules.n && !ret; lm++) {
		struct symmod *m = NULL;
		char err[1024];

		for (k = 1; k < R->n && !ret; k++) {
			struct region *r = &R->r[k];
			if (!r->keep || r->name || r->lm != lm)
				continue;
			if (!m && !(m = sym__take(an, lm, err, sizeof(err))))
				break;
			ret = name_region(an, R, m, r);
		}
		sym__give(an, lm, m);
	}
	/* A module that cannot be opened again (replaced since): its address. */
	for (k = 1; k < R->n && !ret; k++) {
		struct region *r = &R->r[k];
		char buf[600];

		if (!r->keep || r->name)
			continue;
		snprintf(buf, sizeof(buf), "%s[%s+0x%llx]", r->kind == R_LOOP ? "loop at " : "",
		         base_name(an->modules.s[r->lm]), (unsigned long long)r->addr);
		hc_utf8_fix(buf);
		if (!(r->name = strdup(buf)))
			ret = -ENOMEM;
	}
	return ret;
}

/* The function holding addr of module m (its index), HC_NONE for none. */
static int frame_fn(struct an *an, struct regions *R, struct symmod *m, uint32_t lm,
                    uint64_t addr, uint32_t *out)
{
	uint64_t lo, size;
	const char *raw;
	uint32_t f;
	int ret;

	*out = HC_NONE;
	if (!sym__function(m, addr, &lo, &size, &raw)) {
		/* Code without a symbol: one region for all of it in this module
		   ("[libgomp.so.1]"), so that exclusive values stay in the module
		   instead of going to the closest known caller. */
		struct hkey k = { lm, UINT64_MAX, 0 };
		char buf[600];
		uint32_t reg;

		ret = hmap__intern(&R->fnidx, &k, &f);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			ret = an__grow(&R->fn, &R->fncap, R->fnidx.n, sizeof(*R->fn));
			if (!ret)
				ret = new_region(R, 0, R_PROCEDURE, lm, 0, (uint64_t)R->seq++ << 32, &reg);
			if (ret)
				return ret;
			memset(&R->fn[f], 0, sizeof(R->fn[f]));
			R->fn[f].lm = lm;
			R->fn[f].lo = UINT64_MAX;
			R->fn[f].region = reg;
			R->r[reg].fn = f;
			snprintf(buf, sizeof(buf), "[%s]", base_name(an->modules.s[lm]));
			hc_utf8_fix(buf);
			if (!(R->r[reg].name = strdup(buf)))
				return -ENOMEM;
		}
		*out = f;
		return 0;
	}
	return fn_get(an, R, m, lm, lo, size, raw, out, 0);
}

static int sid_intern(struct regions *R, uint32_t par, uint32_t reg, uint32_t inner, uint32_t *out)
{
	struct hkey k = { par, reg, inner };
	int ret = hmap__intern(&R->sids, &k, out);

	if (ret < 0)
		return ret;
	if (ret == 1) {
		if (an__grow(&R->sd, &R->scap, R->sids.n, sizeof(*R->sd)))
			return -ENOMEM;
		R->sd[*out] = (struct sid){ par, reg, inner };
	}
	return 0;
}

static bool in_set(const struct regions *R, uint32_t s, uint32_t r)
{
	for (; s; s = R->sd[s].par)
		if (R->sd[s].reg == r)
			return true;
	return false;
}

/* Set s plus region r and every region around it; innermost r. */
static int extend(struct regions *R, uint32_t s, uint32_t r, uint32_t *out)
{
	uint32_t chain[MAX_CHAIN], nc = 0, x;
	int ret;

	for (x = r; x && nc < MAX_CHAIN; x = R->r[x].parent)
		chain[nc++] = x;
	while (nc-- > 0) {
		if (in_set(R, s, chain[nc]))
			continue;
		ret = sid_intern(R, s, chain[nc], chain[nc], &s);
		if (ret)
			return ret;
	}
	if (R->sd[s].inner != r) {
		ret = sid_intern(R, R->sd[s].reg ? s : R->sd[s].par, 0, r, &s);
		if (ret)
			return ret;
	}
	*out = s;
	return 0;
}

struct nreq {
	uint32_t lm, g;
	uint64_t addr;
};

static int cmp_nreq(const void *x, const void *y)
{
	const struct nreq *a = x, *b = y;

	if (a->lm != b->lm)
		return a->lm < b->lm ? -1 : 1;
	return (a->addr > b->addr) - (a->addr < b->addr);
}

/* The regions: allocated, the program's region and the empty set. */
static int regions_alloc(struct an *an)
{
	uint32_t root, s0;
	struct regions *R;
	int ret;

	if (an->reg)
		return 0;
	R = calloc(1, sizeof(*R));
	if (!R)
		return -ENOMEM;
	an->reg = R;
	R->sres = malloc(sizeof(*R->sres));
	ret = R->sres ? 0 : -ENOMEM;
	if (!ret)
		ret = hmap__init(&R->fnidx, 256);
	if (!ret)
		ret = hmap__init(&R->sids, 256);
	if (!ret)
		ret = new_region(R, HC_NONE, R_PROGRAM, HC_NONE, 0, (uint64_t)R->seq++ << 32, &root);
	if (!ret)
		ret = sid_intern(R, 0, 0, 0, &s0);
	return ret;
}

int regions__init(struct an *an)
{
	int ret = regions_alloc(an);

	if (!ret)
		an->reg->by_volume = true;
	return ret;
}

/* Whether a region of inclusive volume v is kept, of the program's total. */
static inline bool kept_share(uint64_t v, uint64_t total)
{
	return v && (double)v >= REGIONS_MIN_SHARE * (double)total;
}

static uint32_t set_union(struct regions *R, uint32_t a, uint32_t b);
static double cpu_now(void);

/* The address a node's frame is looked up by (a return address: the call). */
static inline uint64_t node_addr(const struct cct *t, uint32_t g)
{
	uint64_t off = cct__offset(t, g);

	return (cct__flags(t, g) & HC_NODE_LEAF) || off == 0 ? off : off - 1;
}

/* Every node's region set (R->rsid, from the empty set): its frames'
   regions, a frame's the innermost loop holding its address if its
   function's loops are decoded, else the function's. */
static int node_sets(struct regions *R, const struct cct *t, const uint32_t *nfn)
{
	uint32_t n = cct__n(t), g;
	int ret = 0;

	R->rsid[0] = 0;
	for (g = 1; g < n && !ret; g++) {
		uint32_t s = R->rsid[cct__parent(t, g)], f = nfn[g];

		if (f != HC_NONE) {
			const struct fn *F = &R->fn[f];
			int32_t l = F->loopreg ? hc_loops_innermost(&F->loops, node_addr(t, g)) : -1;

			ret = extend(R, s, l >= 0 ? F->loopreg[l] : F->region, &s);
		}
		R->rsid[g] = s;
	}
	return ret;
}

struct fvol {
	struct regions *R;
	struct hmap pairs;      /* (set, peer's set, 0) -> volume */
	uint64_t *v;
	uint32_t cap;
};

static int fvol_pair(void *arg, uint32_t g, uint32_t gp, const uint64_t v[2])
{
	struct fvol *a = arg;
	struct hkey pk;
	uint32_t pid;
	int ret;

	if (g == HC_NONE)
		return 0;
	pk = (struct hkey){ a->R->rsid[g], gp == HC_NONE ? 0 : a->R->rsid[gp], 0 };
	ret = hmap__intern(&a->pairs, &pk, &pid);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		if (an__grow(&a->v, &a->cap, a->pairs.n, sizeof(*a->v)))
			return -ENOMEM;
		a->v[pid] = 0;
	}
	a->v[pid] += v[0] + v[1];
	return 0;
}

/* With the functions' sets in R->rsid: each function's inclusive volume,
   as pass_a_pairs will find it (a loop's is at most its function's), from
   pass 2's code pairs; the loops of the functions that can be kept are
   wanted (fn.decode). The volumes and sets are dropped again. */
static int fn_volumes(struct an *an, struct regions *R)
{
	struct fvol a = { .R = R };
	uint32_t pid, q, nl, k, s0;
	uint64_t total;
	int ret;

	ret = hmap__init(&a.pairs, 1024);
	if (!ret)
		ret = pairs__each(an, fvol_pair, &a);
	R->stamp = calloc(R->n, sizeof(*R->stamp));
	R->list = malloc((R->n + 1) * sizeof(*R->list));
	if (!ret && (!R->stamp || !R->list))
		ret = -ENOMEM;
	for (pid = 0; pid < a.pairs.n && !ret; pid++) {
		nl = set_union(R, (uint32_t)a.pairs.keys[pid].a, (uint32_t)a.pairs.keys[pid].b);
		for (q = 0; q < nl; q++)
			R->r[R->list[q]].in_all += a.v[pid];
	}
	total = R->r[0].in_all;
	for (k = 0; k < R->fnidx.n && !ret; k++)
		R->fn[k].decode = kept_share(R->r[R->fn[k].region].in_all, total);
	for (k = 0; k < R->n; k++)
		R->r[k].in_all = 0;
	hmap__free(&a.pairs);
	free(a.v);
	free(R->stamp);
	free(R->list);
	R->stamp = R->list = NULL;
	R->epoch = 0;
	hmap__free(&R->sids);
	if (!ret)
		ret = hmap__init(&R->sids, 256);
	if (!ret)
		ret = sid_intern(R, 0, 0, 0, &s0);
	return ret;
}

static int cmp_fn_lm(const void *x, const void *y, void *arg)
{
	const struct regions *R = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (R->fn[a].lm != R->fn[b].lm)
		return R->fn[a].lm < R->fn[b].lm ? -1 : 1;
	return (a > b) - (a < b);
}

/* The wanted functions' loops, one module open at a time. */
static int decode_fns(struct an *an, struct regions *R)
{
	uint32_t nf = 0, k, j, *ord = malloc((R->fnidx.n ? R->fnidx.n : 1) * sizeof(*ord));
	int ret = 0;

	if (!ord)
		return -ENOMEM;
	for (k = 0; k < R->fnidx.n; k++)
		if (R->fn[k].decode && R->fn[k].lo != UINT64_MAX)
			ord[nf++] = k;
	qsort_r(ord, nf, sizeof(*ord), cmp_fn_lm, R);
	for (k = 0; k < nf && !ret; k = j) {
		uint32_t lm = R->fn[ord[k]].lm;
		char err[1024];
		struct symmod *m = sym__take(an, lm, err, sizeof(err));

		for (j = k; j < nf && R->fn[ord[j]].lm == lm; j++)
			if (m && !ret)
				ret = fn_decode(R, m, ord[j]);
		sym__give(an, lm, m);
	}
	free(ord);
	return ret;
}

int regions__prepare(struct an *an)
{
	const struct cct *t = &an->tree;
	uint32_t n = cct__n(t), g, k, nq = 0, *nfn = NULL;
	double t0 = cpu_now();
	struct nreq *q = NULL;
	struct regions *R;
	int ret;

	ret = regions_alloc(an);
	if (ret)
		return ret;
	R = an->reg;
	q = malloc((n ? n : 1) * sizeof(*q));
	nfn = malloc((n ? n : 1) * sizeof(*nfn));
	R->rsid = malloc((n ? n : 1) * sizeof(*R->rsid));
	if (!q || !nfn || !R->rsid) {
		ret = -ENOMEM;
		goto out;
	}
	for (g = 0; g < n; g++) {
		uint32_t lm = cct__lm(t, g);

		nfn[g] = HC_NONE;
		if (g == 0 || lm == HC_NONE || lm >= an->modules.n)
			continue;
		q[nq++] = (struct nreq){ lm, g, node_addr(t, g) };
	}
	qsort(q, nq, sizeof(*q), cmp_nreq);
	for (k = 0; k < nq && !ret;) {
		uint32_t lm = q[k].lm, j;
		char err[1024];
		struct symmod *m = sym__take(an, lm, err, sizeof(err));

		for (j = k; j < nq && q[j].lm == lm && !ret; j++) {
			if (!m)
				continue;
			if (j > k && q[j].addr == q[j - 1].addr) {
				nfn[q[j].g] = nfn[q[j - 1].g];
				continue;
			}
			ret = frame_fn(an, R, m, lm, q[j].addr, &nfn[q[j].g]);
		}
		sym__give(an, lm, m);
		k = j;
	}
	/* Which functions' loops: by their volumes (the functions' sets first),
	   or all of them (distributed, rank 0: the code pairs are not here). */
	if (!ret && R->by_volume) {
		ret = node_sets(R, t, nfn);
		if (!ret)
			ret = fn_volumes(an, R);
	} else {
		for (k = 0; k < R->fnidx.n; k++)
			R->fn[k].decode = true;
	}
	if (!ret)
		ret = decode_fns(an, R);
	if (!ret)
		ret = node_sets(R, t, nfn);
	if (!ret)
		an->rsid = R->rsid;
out:
	free(q);
	free(nfn);
	R->tprep = cpu_now() - t0;
	return ret;
}

static int cmp_ent(const void *x, const void *y)
{
	const struct rrow_ent *a = x, *b = y;

	if (a->sets != b->sets)
		return a->sets < b->sets ? -1 : 1;
	if (a->peer != b->peer)
		return a->peer < b->peer ? -1 : 1;
	return (int)(a->vk & 1) - (int)(b->vk & 1);
}

/* Sort and merge equal keys. */
static void compact(struct rrow *r)
{
	uint32_t k, n = 0;

	if (r->n > 1)
		qsort(r->e, r->n, sizeof(*r->e), cmp_ent);
	for (k = 0; k < r->n; k++) {
		if (n && r->e[n - 1].sets == r->e[k].sets && r->e[n - 1].peer == r->e[k].peer &&
		    (r->e[n - 1].vk & 1) == (r->e[k].vk & 1) &&
		    (r->e[k].vk >> 1) <= RROW_VMAX - (r->e[n - 1].vk >> 1)) {
			r->e[n - 1].vk += r->e[k].vk & ~1u;
		} else {
			r->e[n++] = r->e[k];
		}
	}
	r->n = r->merged = n;
	if (r->cache)
		memset(r->cache, 0xff, REGIONS_CACHE * sizeof(*r->cache));
}

/* A profile's region-event array of at least RROW_MAP bytes (160 KB a
   profile on bench/prof-scale's 256-1,024 threads) is a mapping of its own,
   unmapped when its process is credited (drop_entries); smaller ones come
   from malloc, and the allocator is asked to give their pages back
   (malloc_trim) every TRIM_BYTES of them freed. In the heap, the large
   ones made each trim walk and give back ~4 MB after the allocator's
   free lists (3-8 ms of trims at 256 threads, more where the heap held
   more free chunks). */
#define RROW_MAP ((size_t)64 << 10)

/* The array resized to cap entries (r->e NULL: a new one; mapped or not
   by its new size), entries kept. 0 or -ENOMEM. */
static int rrow_resize(struct rrow *r, uint32_t cap)
{
	size_t old = (size_t)r->cap * sizeof(*r->e), sz = (size_t)cap * sizeof(*r->e);
	bool map = sz >= RROW_MAP;
	void *e;

	if (r->e && r->mapped && map) {
		e = mremap(r->e, old, sz, MREMAP_MAYMOVE);
		if (e == MAP_FAILED)
			return -ENOMEM;
	} else if (r->e && !r->mapped && !map) {
		if (!(e = realloc(r->e, sz)))
			return -ENOMEM;
	} else {
		e = map ? mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
		        : malloc(sz);
		if (e == MAP_FAILED || !e)
			return -ENOMEM;
		if (r->e) {
			memcpy(e, r->e, (r->n < cap ? r->n : cap) * sizeof(*r->e));
			if (r->mapped)
				munmap(r->e, old);
			else
				free(r->e);
		}
	}
	r->e = e;
	r->cap = cap;
	r->mapped = map;
	return 0;
}

void regions__rrow_free(struct rrow *r)
{
	if (r->mapped)
		munmap(r->e, (size_t)r->cap * sizeof(*r->e));
	else
		free(r->e);
	free(r->cache);
	memset(r, 0, sizeof(*r));
}

static int add_entry(struct rrow *r, uint64_t sets, uint32_t peer, uint32_t vk, uint32_t slot)
{
	if (!r->cache) {
		r->cache = malloc(REGIONS_CACHE * sizeof(*r->cache));
		if (!r->cache)
			return -ENOMEM;
		memset(r->cache, 0xff, REGIONS_CACHE * sizeof(*r->cache));
	}
	if (r->n == r->cap) {
		if (r->n >= REGIONS_COMPACT && r->n >= 2 * r->merged)
			compact(r);
		if (r->n * 4 >= r->cap * 3 && rrow_resize(r, r->cap ? 2 * r->cap : 64))
			return -ENOMEM;
	}
	r->e[r->n] = (struct rrow_ent){ sets, peer, vk };
	r->cache[slot] = (struct rrow_slot){ sets, peer << 1 | (vk & 1), r->n++ };
	return 0;
}

int regions__add_slow(struct an_prof *p, uint64_t sets, uint32_t peer, uint32_t kind,
                      uint32_t slot, uint64_t v)
{
	struct rrow *r = &p->rrow;
	uint64_t part;

	/* A sum above RROW_VMAX: full entries first, the cache names the last. */
	while (v) {
		part = v > RROW_VMAX ? RROW_VMAX : v;
		v -= part;
		int ret = add_entry(r, sets, peer, (uint32_t)part << 1 | kind, slot);
		if (ret)
			return ret;
	}
	return 0;
}

int regions__reserve(const struct an *an, struct an_prof *p, unsigned w, size_t nevents)
{
	struct rrow *r = &p->rrow;
	size_t cap = nevents < REGIONS_RESERVE ? nevents : REGIONS_RESERVE;

	if (!an->reg)
		return 0;
	if (r->cap < cap && cap >= 64)
		regions__rrow_free(r);
	r->wk = w;
	return r->cap < cap && cap >= 64 ? rrow_resize(r, (uint32_t)cap) : 0;
}

int regions__profile_done(struct an_prof *p)
{
	struct rrow *r = &p->rrow;

	if (r->n >= REGIONS_COMPACT && r->n > r->merged)
		compact(r);
	free(r->cache);
	r->cache = NULL;
	if (r->n && r->n < r->cap)
		(void)rrow_resize(r, r->n);   /* (kept as it is if it fails) */
	return 0;
}

/* The regions of the union of sets a and b (the root first), into R->list;
   returns their number. */
static uint32_t set_union(struct regions *R, uint32_t a, uint32_t b)
{
	uint32_t n = 0, s, pass;

	if (++R->epoch == 0) {
		memset(R->stamp, 0, R->n * sizeof(*R->stamp));
		R->epoch = 1;
	}
	R->list[n++] = 0;
	for (pass = 0; pass < 2; pass++)
		for (s = pass ? b : a; s; s = R->sd[s].par) {
			uint32_t r = R->sd[s].reg;
			if (!r || R->stamp[r] == R->epoch)
				continue;
			R->stamp[r] = R->epoch;
			R->list[n++] = r;
		}
	return n;
}

static int cmp_child(const void *x, const void *y, void *arg)
{
	const struct regions *R = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (R->r[a].in_all != R->r[b].in_all)
		return R->r[a].in_all > R->r[b].in_all ? -1 : 1;
	return (R->r[a].key > R->r[b].key) - (R->r[a].key < R->r[b].key);
}

static int cmp_key(const void *x, const void *y, void *arg)
{
	const struct regions *R = arg;
	uint64_t a = R->r[*(const uint32_t *)x].key, b = R->r[*(const uint32_t *)y].key;

	return (a > b) - (a < b);
}

/* Output order: preorder, children by inclusive volume (largest first). */
static int order_kept(struct regions *R)
{
	uint32_t *kids = malloc((R->n ? R->n : 1) * sizeof(*kids)), *stack, sp = 0, i, nk;

	R->order = malloc((R->n ? R->n : 1) * sizeof(*R->order));
	stack = malloc((R->n ? R->n : 1) * sizeof(*stack));
	if (!kids || !R->order || !stack) {
		free(kids);
		free(stack);
		return -ENOMEM;
	}
	for (i = 0; i < R->n; i++)
		R->r[i].first_child = R->r[i].next_sibling = HC_NONE;
	/* Link children in reverse order of the sort so that the list reads sorted. */
	nk = 0;
	for (i = 1; i < R->n; i++)
		if (R->r[i].keep)
			kids[nk++] = i;
	qsort_r(kids, nk, sizeof(*kids), cmp_child, R);
	for (i = nk; i-- > 0;) {
		struct region *c = &R->r[kids[i]];
		c->next_sibling = R->r[c->parent].first_child;
		R->r[c->parent].first_child = kids[i];
	}
	R->nkept = 0;
	stack[sp++] = 0;
	while (sp) {
		uint32_t r = stack[--sp], c, nc = 0, j;

		R->r[r].out = R->nkept;
		R->order[R->nkept++] = r;
		for (c = R->r[r].first_child; c != HC_NONE; c = R->r[c].next_sibling)
			kids[nc++] = c;
		for (j = nc; j-- > 0;)
			stack[sp++] = kids[j];
	}
	free(kids);
	free(stack);
	return 0;
}

/* A cell of a kept region while building: inclusive and exclusive (true,
   false) of threads i < j. */
struct rcell {
	uint32_t i, j;
	uint64_t in[2], ex[2];
};

struct rcells {
	struct rcell *c;         /* only once a large process needed the sparse path */
	uint32_t n, cap;
	bool unsorted;           /* cells in c, appended out of order or more than once */
	uint32_t icap, xcap;     /* of the region's mi / mx cells, while in order */
};

/* A process's entries are taken by thread pair (each profile's sorted by
   the peer thread in pass A) when its T x T upper triangle has at most
   this many thread pairs; otherwise each profile is credited alone, kept
   regions x its peers, and the cells are sorted at the end. */
#define PAIRS_MAX (1u << 24)
static inline bool dense_proc(const struct an_proc *pr)
{
	return (size_t)pr->nthreads * (pr->nthreads - 1) / 2 <= PAIRS_MAX;
}

struct build {
	struct hmap pairs;      /* (detecting set, peer set, 0) -> pair id */
	uint64_t *ptot;         /* pair id -> inclusive volume (pass_a_pairs) */
	uint32_t *pcnt;         /* pair id -> code pairs (complement's weights) */
	struct ptab_ent {
		uint64_t sets;
		uint32_t pid;
	} *ptab;                /* set pair -> pair id (pair_table) */
	uint32_t pshift;
	uint64_t missing;       /* entries of no pair or no peer thread: none expected */
	/* Sequential (by_volume): code pair -> pair id, for worker w's code
	   pair i at cpid[woff[w] + i] (i < wn[w]); pass A reads an entry's
	   pair there (its key, regions__add). */
	uint32_t *cpid, *woff, *wn;
	uint32_t pcap, pccap;
	/* Pair -> the kept regions (dense ids) it credits, and the one its
	   exclusive part goes to. A region that most entries fall in
	   (common[], e.g. the program and the loops around every context) is
	   credited by complement: the list names it for the pairs *outside*
	   it, and its cell is the cell's total minus what was credited. */
	uint32_t *poff, *pn, *xk, *klist;
	uint32_t *kidx, *korder, nk;
	bool *common;
	struct rcells *rc;      /* per kept region */
	uint64_t *si, *sx;      /* scratch: inclusive, exclusive (true, false) per region (x peer) */
	uint64_t *stot;         /* scratch: total (true, false) per peer (pass_b_sparse) */
	size_t scap;
	uint64_t *din, *dex, dtot[2];   /* same-thread (diagonal) sums per kept region, total */
	uint32_t *cur;          /* pass_b_dense: per thread of the process, its next entry */
	uint32_t curcap;
	struct rrow_ent *tmp;   /* pass A: a profile's entries while sorting them by peer */
	uint32_t tmpcap;
	uint32_t *cnt;          /* pass A: entries per peer thread of the process */
	uint32_t cntcap;
	/* A kept region whose inclusive cells have all equalled its parent's
	   so far (lazy) has none stored: the cells are copied from the closest
	   stored region around it when one differs, or at the end (on
	   bench/prof-scale 132 of 244 kept regions, 54 % of the cells: loops
	   that every path through their function enters). */
	uint32_t *kpar;         /* kept region -> its parent's dense id, HC_NONE */
	bool *lazy;
	/* A kept region of the same inclusive volume as its parent (pass A)
	   has the same inclusive cells (every entry of its parent is in it):
	   it is not credited, and lazy to the end; isrc names the closest
	   region around it (or itself) whose inclusive sums are credited, act
	   those regions (on bench/prof-scale 132 of 244: entries credit 12
	   regions instead of 19). */
	uint32_t *isrc, *act, nact;
	/* pass_b_dense's form of the lists: per pair its offset in clist, its
	   groups of four scratch indices (2 k, padded with spare slots, credit4)
	   and 2 xk: four additions per loop turn, one cache line per pair */
	struct pinfo {
		uint32_t off, n4, x2;
	} *pinfo;
	uint32_t *clist;
	bool all_loop;          /* some of those stores its cells (pass_b_sparse): every kept
	                           region is looked at for every cell */
	uint64_t *cin;          /* pass_b_dense: the inclusive (true, false) of one cell */
	size_t dropped;         /* bytes of region events freed since the last trim */
	size_t trim_at;         /* trim when dropped reaches it (0: TRIM_BYTES) */
	uint32_t ntrim;         /* trims so far */
	bool begun;             /* regions__build_begin done */
	uint32_t next;          /* the next process (in proc_order) to credit */
	double t0, ta;          /* CPU time at regions__build_begin, after the plan */
	struct regions *R;
	struct an_pool *pool;   /* the events' pages go there, the cells take them */
};

static inline struct regions *R_of(struct build *b)
{
	return b->R;
}

static void build_free(struct an *an, struct build *b)
{
	uint32_t i;

	hmap__free(&b->pairs);
	free(b->ptab);
	free(b->ptot);
	free(b->pcnt);
	free(b->cpid);
	free(b->woff);
	free(b->wn);
	free(b->poff);
	free(b->pn);
	free(b->xk);
	free(b->klist);
	free(b->kidx);
	free(b->korder);
	for (i = 0; b->rc && i < b->nk; i++)
		free(b->rc[i].c);
	free(b->rc);
	free(b->si);
	free(b->sx);
	free(b->stot);
	free(b->common);
	free(b->din);
	free(b->dex);
	free(b->cur);
	free(b->tmp);
	free(b->cnt);
	free(b->kpar);
	free(b->lazy);
	free(b->isrc);
	free(b->act);
	free(b->pinfo);
	free(b->clist);
	free(b->cin);
}

/* Pass A: pair ids and peer threads per entry, the inclusive volume of
   every region. */
/* After pass A an entry's sets field holds its pair id (HC_NONE: not
   counted, the peer thread is unknown) and the peer's global thread. */
#define ENT(pid, j) ((uint64_t)(j) << 32 | (pid))
#define ENT_PID(e) ((uint32_t)(e)->sets)
#define ENT_J(e) ((uint32_t)((e)->sets >> 32))

/* Prefetch distances, in entries and cells (session 14: entries 32 -> 128,
   cells none -> 16; doc/performance.md) */
#define PF_AHEAD 128
#define CELL_AHEAD 16
#define PEER_CACHE 64u

/* credit4's classes of entries: one, two, three or more groups of four
   (pinfo) */
#define CREDIT_SPARE 4u
#define CREDIT_CLASSES 3u
static inline uint32_t credit_class(const struct build *b, uint32_t pid)
{
	uint32_t n4 = b->pinfo[pid].n4;

	return (n4 < CREDIT_CLASSES ? n4 : CREDIT_CLASSES) - 1;
}

/* A profile of a process that pass_b_dense credits: its entries in order
   of the peer's thread, and for each peer by their credit_class (a
   counting sort over the process's threads x classes, stable, done while
   the profile's entries are in cache); those of no known peer thread
   last. */
static inline uint32_t peer_bucket(const struct build *b, const struct rrow_ent *e,
                                   uint32_t base, uint32_t T)
{
	uint32_t x = ENT_J(e) - base;   /* HC_NONE and other processes' threads: T or more */

	return x < T ? x * CREDIT_CLASSES + credit_class(b, ENT_PID(e)) : T * CREDIT_CLASSES;
}

static int sort_by_peer(const struct an *an, struct build *b, struct an_prof *p)
{
	const struct an_proc *pr = &an->procs[p->proc];
	uint32_t T = pr->nthreads, base = pr->first, n = p->rrow.n, k, x, sum;
	uint32_t nb = T * CREDIT_CLASSES + 1;
	struct rrow_ent *e = p->rrow.e, *t;

	if (n < 2)
		return 0;
	if ((n > b->tmpcap && an__grow(&b->tmp, &b->tmpcap, n, sizeof(*b->tmp))) ||
	    (nb + 1 > b->cntcap && an__grow(&b->cnt, &b->cntcap, nb + 1, sizeof(*b->cnt))))
		return -ENOMEM;
	memset(b->cnt, 0, (nb + 1) * sizeof(*b->cnt));
	for (k = 0; k < n; k++)
		b->cnt[peer_bucket(b, &e[k], base, T) + 1]++;
	for (x = 0, sum = 0; x < nb; x++) {
		sum += b->cnt[x + 1];
		b->cnt[x + 1] = sum;
	}
	t = b->tmp;
	for (k = 0; k < n; k++)
		t[b->cnt[peer_bucket(b, &e[k], base, T)]++] = e[k];
	memcpy(e, t, (size_t)n * sizeof(*e));
	return 0;
}

/* Set pair -> pair id: an open-addressed table of every pair, at most a
   quarter full, so that a lookup is one probe mostly (a direct-mapped cache
   in front of the pair table missed on one entry in five at 256 threads). */
static inline uint32_t ptab_slot(const struct build *b, uint64_t sets)
{
	return (uint32_t)((sets * 0x9e3779b97f4a7c15ULL) >> b->pshift);
}

static int pair_table(struct build *b)
{
	uint32_t bits = 4, pid, x, mask;

	while ((1ull << bits) < 4ull * b->pairs.n)
		bits++;
	b->pshift = 64 - bits;
	mask = (1u << bits) - 1;
	b->ptab = malloc(sizeof(*b->ptab) << bits);
	if (!b->ptab)
		return -ENOMEM;
	memset(b->ptab, 0xff, sizeof(*b->ptab) << bits);
	for (pid = 0; pid < b->pairs.n; pid++) {
		uint64_t sets = b->pairs.keys[pid].a | b->pairs.keys[pid].b << 32;

		for (x = ptab_slot(b, sets); b->ptab[x].pid != HC_NONE; x = (x + 1) & mask)
			;
		b->ptab[x] = (struct ptab_ent){ sets, pid };
	}
	return 0;
}

/* Pass A: each entry's pair id and peer thread (over its sets); the pairs
   and their volumes are known already (pass_a_pairs). Run per profile
   just before its process is credited (build_proc), so that distributed,
   rank 0 takes each process's events as they come. */
static int pass_a_prof(struct an *an, struct build *b, struct an_prof *p)
{
	struct { uint32_t peer, j; } peers[PEER_CACHE];
	uint32_t k, mask = (uint32_t)(UINT64_MAX >> b->pshift), pid, ncp = 0;
	const uint32_t *cpid = NULL;

	if (b->cpid) {   /* keyed by code pair in pass 2 (regions__add) */
		cpid = p->rrow.wk < an->nworkers ? b->cpid + b->woff[p->rrow.wk] : NULL;
		ncp = cpid ? b->wn[p->rrow.wk] : 0;
	}
	memset(peers, 0xff, sizeof(peers));
	for (k = 0; k < p->rrow.n; k++) {
		struct rrow_ent *e = &p->rrow.e[k];
		uint32_t peer = e->peer, j = p->gthread, ps = peer % PEER_CACHE, x;

		/* the entries were written in pass 2, long out of cache: loading
		   them was half of this loop's time (perf, 1,024 threads) */
		__builtin_prefetch(e + PF_AHEAD, 1);

		if (b->cpid) {
			pid = e->sets < ncp ? cpid[e->sets] : HC_NONE;
		} else {
			x = ptab_slot(b, e->sets);
			while (b->ptab[x].pid != HC_NONE && b->ptab[x].sets != e->sets)
				x = (x + 1) & mask;
			pid = b->ptab[x].pid;
		}
		if (peer != p->th.index) {
			if (peers[ps].peer == peer) {
				j = peers[ps].j;
			} else {
				if (!threads__find(an, p->proc, peer, &j))
					j = HC_NONE;
				peers[ps].peer = peer;
				peers[ps].j = j;
			}
		}
		if (j == HC_NONE || pid == HC_NONE) {
			/* neither can be: every peer named is a thread (threads.c),
			   every event is in a code pair */
			b->missing++;
			e->sets = ENT(HC_NONE, HC_NONE);
			continue;
		}
		e->sets = ENT(pid, j);
	}
	return dense_proc(&an->procs[p->proc]) ? sort_by_peer(an, b, p) : 0;
}

/* The pairs of region sets and their volumes, from pass 2's code pairs
   (every event summed by its node and the peer's node, merge.c): the same
   volumes as the region events give (every event of a code pair is a region
   event: its peer is a thread, threads.c adds every peer named), without a
   pass over them; then the inclusive volume of every region. */
struct pass_a_arg {
	struct regions *R;
	struct build *b;
};

/* One code pair's volume to its pair of region sets; sequential, the
   pair's id at the code pair's place (worker w's i) in cpid. */
static int pass_a_pair(void *arg, unsigned w, uint32_t i, uint32_t g, uint32_t gp,
                       const uint64_t v[2])
{
	struct regions *R = ((struct pass_a_arg *)arg)->R;
	struct build *b = ((struct pass_a_arg *)arg)->b;
	struct hkey pk;
	uint32_t pid;
	int ret;

	if (b->cpid)
		b->cpid[b->woff[w] + i] = HC_NONE;
	if (g == HC_NONE)
		return 0;
	pk = (struct hkey){ R->rsid[g], gp == HC_NONE ? 0 : R->rsid[gp], 0 };
	ret = hmap__intern(&b->pairs, &pk, &pid);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		if (an__grow(&b->ptot, &b->pcap, b->pairs.n, sizeof(*b->ptot)) ||
		    an__grow(&b->pcnt, &b->pccap, b->pairs.n, sizeof(*b->pcnt)))
			return -ENOMEM;
		b->ptot[pid] = 0;
		b->pcnt[pid] = 0;
	}
	b->ptot[pid] += v[0] + v[1];
	b->pcnt[pid]++;
	if (b->cpid)
		b->cpid[b->woff[w] + i] = pid;
	return 0;
}

/* Sequential: room for every worker's code pairs in cpid. */
static int code_pair_ids(struct an *an, struct build *b)
{
	int ui = an->unit == HC_UNIT_TRANSFERS ? 1 : 0;
	size_t n = 0;
	unsigned w;

	b->woff = calloc(an->nworkers ? an->nworkers : 1, sizeof(*b->woff));
	b->wn = calloc(an->nworkers ? an->nworkers : 1, sizeof(*b->wn));
	if (!b->woff || !b->wn)
		return -ENOMEM;
	for (w = 0; w < an->nworkers; w++) {
		const struct an_acc *a = &an->workers[w].acc[ui];

		b->woff[w] = (uint32_t)n;
		b->wn[w] = a->used ? a->pairs.h.n : 0;
		n += b->wn[w];
		if (n > UINT32_MAX)
			return -EOVERFLOW;
	}
	b->cpid = malloc((n ? n : 1) * sizeof(*b->cpid));
	return b->cpid ? 0 : -ENOMEM;
}

static int pass_a_pairs(struct an *an, struct regions *R, struct build *b)
{
	struct pass_a_arg arg = { R, b };
	uint32_t pid, q, nl;
	int ret;

	ret = R->by_volume ? code_pair_ids(an, b) : 0;
	if (!ret)
		ret = pairs__each_at(an, pass_a_pair, &arg);
	if (ret)
		return ret;
	for (pid = 0; pid < b->pairs.n; pid++) {
		nl = set_union(R, (uint32_t)b->pairs.keys[pid].a, (uint32_t)b->pairs.keys[pid].b);
		for (q = 0; q < nl; q++)
			R->r[R->list[q]].in_all += b->ptot[pid];
	}
	return pair_table(b);
}

static int init_region(struct an *an, struct region *r);

/* Which kept regions are credited by complement (struct build): those that
   more than half of the entries fall in; then each pair's list is its
   other kept regions plus the common ones it is not in. Crediting costs
   one addition per listed region and entry, so this bounds it by half the
   kept regions (in the bench/prof-scale inputs a context passes through
   19 loops around all of them: 32 regions per entry become 12). */
static int complement(struct an *an, struct build *b, uint32_t nkl)
{
	uint64_t *w = calloc(b->nk ? b->nk : 1, sizeof(*w)), all = 0;
	const uint32_t *cnt = b->pcnt;   /* entries per pair, pass A */
	uint32_t *mark = malloc((b->nk ? b->nk : 1) * sizeof(*mark));
	uint32_t *cl = malloc((b->nk ? b->nk : 1) * sizeof(*cl));
	uint32_t *kl = NULL, cap = 0, n = 0, nc = 0, pid, q, k;
	int ret = -ENOMEM;

	b->common = calloc(b->nk ? b->nk : 1, sizeof(*b->common));
	if (!w || !mark || !cl || !b->common)
		goto out;
	for (pid = 0; pid < b->pairs.n; pid++) {
		all += cnt[pid];
		for (q = 0; q < b->pn[pid]; q++)
			w[b->klist[b->poff[pid] + q]] += cnt[pid];
	}
	for (k = 0; k < b->nk; k++) {
		b->common[k] = 2 * w[k] > all;
		if (b->common[k])
			cl[nc++] = k;
		mark[k] = HC_NONE;
	}
	if (!nc) {
		ret = 0;
		goto out;
	}
	for (pid = 0; pid < b->pairs.n; pid++) {
		uint32_t start = n;

		for (q = 0; q < b->pn[pid]; q++) {
			k = b->klist[b->poff[pid] + q];
			mark[k] = pid;
			if (b->common[k])
				continue;
			if (an__grow(&kl, &cap, n + 1, sizeof(*kl)))
				goto out;
			kl[n++] = k;
		}
		for (q = 0; q < nc; q++) {
			if (mark[cl[q]] == pid)
				continue;
			if (an__grow(&kl, &cap, n + 1, sizeof(*kl)))
				goto out;
			kl[n++] = cl[q];
		}
		b->poff[pid] = start;
		b->pn[pid] = n - start;
	}
	(void)nkl;
	free(b->klist);
	b->klist = kl;
	kl = NULL;
	ret = 0;
out:
	free(w);
	free(mark);
	free(cl);
	free(kl);
	return ret;
}

/* A region matrix's cells are among the thread matrix's (a cell credited
   to a region is a cell of the program), so each kept region's two cell
   arrays get that capacity at once: put_cell appends without growing
   (doubling copied every array several times: at 10^5 threads ~80 K page
   faults and their copies). The pages are touched only as cells are put;
   an array never filled is address space only. Only arrays of at least
   RESERVE_MIN (mapped by malloc; smaller ones grow in the heap, reusing
   what their copies freed: at 256 threads, 194 KB arrays, reserving added
   4 K faults), up to RESERVE_MAX of address space in all; otherwise the
   arrays grow as before (and a region that exceeds its capacity, should
   any, grows). */
#define RESERVE_MIN ((size_t)64 << 10)
#define RESERVE_MAX ((size_t)16 << 30)
static void reserve_cells(const struct an *an, struct regions *R, struct build *b)
{
	size_t per = (size_t)an->thread_cells * sizeof(struct hc_db_mcell);
	uint32_t k;

	if (!an->thread_cells || !b->nk || per < RESERVE_MIN || per > RESERVE_MAX / 2 / b->nk)
		return;
	for (k = 0; k < b->nk; k++) {
		struct region *r = &R->r[b->korder[k]];

		if (!r->mi.cell && !an__parr_init(&r->ia, per))
			r->mi.cell = (struct hc_db_mcell *)r->ia.base;   /* icap 0: put_cell backs it */
		if (!r->mx.cell && !an__parr_init(&r->xa, per))
			r->mx.cell = (struct hc_db_mcell *)r->xa.base;
	}
}

/* The kept regions (dense ids), and per pair its kept regions and the one
   its exclusive part goes to. */
static int keep(struct an *an, struct regions *R, struct build *b)
{
	uint64_t total = R->r[0].in_all;
	uint32_t k, pid, nkl = 0, cap = 0, x;

	b->kidx = malloc(R->n * sizeof(*b->kidx));
	b->korder = malloc(R->n * sizeof(*b->korder));
	b->poff = malloc((b->pairs.n + 1) * sizeof(*b->poff));
	b->pn = malloc((b->pairs.n + 1) * sizeof(*b->pn));
	b->xk = malloc((b->pairs.n + 1) * sizeof(*b->xk));
	if (!b->kidx || !b->korder || !b->poff || !b->pn || !b->xk)
		return -ENOMEM;
	for (k = 0; k < R->n; k++) {
		struct region *r = &R->r[k];

		r->keep = k == 0 || kept_share(r->in_all, total);
		b->kidx[k] = HC_NONE;
		if (r->keep)
			b->korder[b->nk++] = k;
	}
	/* dense ids in creation order as if every function had been decoded
	   where it was met (struct regions) */
	qsort_r(b->korder, b->nk, sizeof(*b->korder), cmp_key, R);
	for (k = 0; k < b->nk; k++)
		b->kidx[b->korder[k]] = k;
	b->rc = calloc(b->nk, sizeof(*b->rc));
	b->kpar = malloc((b->nk ? b->nk : 1) * sizeof(*b->kpar));
	b->isrc = malloc((b->nk ? b->nk : 1) * sizeof(*b->isrc));
	b->act = malloc((b->nk ? b->nk : 1) * sizeof(*b->act));
	if (!b->rc || !b->kpar || !b->isrc || !b->act)
		return -ENOMEM;
	for (k = 0; k < b->nk; k++) {
		uint32_t par = R->r[b->korder[k]].parent;
		b->kpar[k] = par == HC_NONE ? HC_NONE : b->kidx[par];
	}
	for (k = 0; k < b->nk; k++) {
		for (x = k; b->kpar[x] != HC_NONE &&
		            R->r[b->korder[x]].in_all == R->r[b->korder[b->kpar[x]]].in_all;
		     x = b->kpar[x])
			;
		b->isrc[k] = x;
		if (x == k)
			b->act[b->nact++] = k;
	}
	for (k = 0; k < b->nk; k++)
		if (init_region(an, &R->r[b->korder[k]]))
			return -ENOMEM;
	reserve_cells(an, R, b);
	for (pid = 0; pid < b->pairs.n; pid++) {
		uint32_t sg = (uint32_t)b->pairs.keys[pid].a;
		uint32_t nl = set_union(R, sg, (uint32_t)b->pairs.keys[pid].b), q;

		b->poff[pid] = nkl;
		for (q = 0; q < nl; q++) {
			x = b->kidx[R->list[q]];
			if (x == HC_NONE || b->isrc[x] != x)
				continue;
			if (an__grow(&b->klist, &cap, nkl + 1, sizeof(*b->klist)))
				return -ENOMEM;
			b->klist[nkl++] = b->kidx[R->list[q]];
		}
		b->pn[pid] = nkl - b->poff[pid];
		for (x = R->sd[sg].inner; !R->r[x].keep; x = R->r[x].parent)
			;
		b->xk[pid] = b->kidx[x];
	}
	return complement(an, b, nkl);
}

static int append(struct rcells *rc, uint32_t i, uint32_t j, const uint64_t in[2],
                  const uint64_t ex[2], bool ordered)
{
	struct rcell *c;

	if (rc->n == rc->cap) {
		uint32_t cap = rc->cap ? 2 * rc->cap : 64;
		struct rcell *p = realloc(rc->c, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		rc->c = p;
		rc->cap = cap;
	}
	c = &rc->c[rc->n++];
	c->i = i < j ? i : j;
	c->j = i < j ? j : i;
	memcpy(c->in, in, sizeof(c->in));
	memcpy(c->ex, ex, sizeof(c->ex));
	rc->unsorted |= !ordered;
	return 0;
}

static int ensure_scratch(struct build *b, size_t need)
{
	if (need <= b->scap)
		return 0;
	free(b->si);
	free(b->sx);
	b->si = malloc(need * 2 * sizeof(*b->si));
	b->sx = malloc(need * 2 * sizeof(*b->sx));
	b->scap = b->si && b->sx ? need : 0;
	return b->scap ? 0 : -ENOMEM;
}

/* One entry (volume << 1 | kind) of pair pid into per-region sums in, ex
   (true, false at 2 k, 2 k + 1 for kept region k) and the total tot: the
   listed regions (see struct build) and the exclusive one. */
static inline void credit(const struct build *b, uint32_t pid, uint64_t *in, uint64_t *ex,
                          uint64_t *tot, uint32_t vk)
{
	const uint32_t *kl = b->klist + b->poff[pid];
	uint32_t n = b->pn[pid], q, kd = vk & 1;
	uint64_t v = vk >> 1;

	for (q = 0; q < n; q++)
		in[2 * kl[q] + kd] += v;
	ex[2 * b->xk[pid] + kd] += v;
	tot[kd] += v;
}

/* credit() for pass_b_dense, from pinfo and clist: the list in groups of
   four (the last padded with spare regions nk .. nk + CREDIT_SPARE - 1 of
   the scratch, one per place, never read), added without a loop for one,
   two or three groups. Pass A orders the entries of each thread pair by
   their number of groups (credit_class, sort_by_peer), so that the branch on it goes the
   same way from one entry to the next: on bench/prof-scale (1,024
   threads) 32 % of the entries have one group, 45 % two, 18 % three, 5 %
   more (a loop over the groups ended in a mispredicted branch for many
   entries; padding every list to three groups added four to eight
   needless additions to three quarters of them). */
static inline void credit4(const struct build *b, uint32_t pid, uint64_t *in, uint64_t *ex,
                           uint64_t *tot, uint32_t vk)
{
	const struct pinfo *pi = &b->pinfo[pid];
	const uint32_t *kl = b->clist + pi->off;
	uint32_t q, kd = vk & 1;
	uint64_t v = vk >> 1;

	in[kl[0] + kd] += v;
	in[kl[1] + kd] += v;
	in[kl[2] + kd] += v;
	in[kl[3] + kd] += v;
	if (pi->n4 >= 2) {
		in[kl[4] + kd] += v;
		in[kl[5] + kd] += v;
		in[kl[6] + kd] += v;
		in[kl[7] + kd] += v;
		if (pi->n4 >= 3) {
			in[kl[8] + kd] += v;
			in[kl[9] + kd] += v;
			in[kl[10] + kd] += v;
			in[kl[11] + kd] += v;
			for (q = 3, kl += 12; q < pi->n4; q++, kl += 4) {
				in[kl[0] + kd] += v;
				in[kl[1] + kd] += v;
				in[kl[2] + kd] += v;
				in[kl[3] + kd] += v;
			}
		}
	}
	ex[pi->x2 + kd] += v;
	tot[kd] += v;
}

static inline uint32_t groups(uint32_t n)
{
	return n ? (n + 3) / 4 : 1;
}

static int compile_lists(struct build *b)
{
	uint32_t pid, q, n = 0;

	b->pinfo = malloc((b->pairs.n ? b->pairs.n : 1) * sizeof(*b->pinfo));
	for (pid = 0; pid < b->pairs.n; pid++)
		n += groups(b->pn[pid]) * 4;
	b->clist = malloc((n ? n : 1) * sizeof(*b->clist));
	if (!b->pinfo || !b->clist)
		return -ENOMEM;
	for (pid = 0, n = 0; pid < b->pairs.n; pid++) {
		b->pinfo[pid] = (struct pinfo){ n, groups(b->pn[pid]), 2 * b->xk[pid] };
		for (q = 0; q < b->pinfo[pid].n4 * 4; q++)
			b->clist[n++] = 2 * (q < b->pn[pid] ? b->klist[b->poff[pid] + q] :
			                     b->nk + q % CREDIT_SPARE);
	}
	return 0;
}

/* The inclusive (true, false) of kept region kq from its sum acc and the
   total tot of its cell. */
static inline void inclusive(const struct build *b, uint32_t kq, const uint64_t *acc,
                             const uint64_t *tot, uint64_t out[2])
{
	if (b->common[kq]) {
		out[0] = tot[0] - acc[0];
		out[1] = tot[1] - acc[1];
	} else {
		out[0] = acc[0];
		out[1] = acc[1];
	}
}

/* A matrix's cells let go: a reserved array's pages to the pool. */
static void cells_free(struct an_pool *pool, struct matrix *m, struct an_parr *pa)
{
	if (pa->base)
		an__parr_release(pool, pa);
	else
		free(m->cell);
	m->cell = NULL;
}

/* Room for one more cell: a reserved array backed further (by the pool's
   pages: the region events' of the processes credited already), else the
   heap's grown. */
static __attribute__((noinline)) int grow_cells(struct build *b, struct matrix *m,
                                                struct an_parr *pa, uint32_t *cap)
{
	size_t el = sizeof(*m->cell), need = ((size_t)m->ncell + 1) * el;
	struct hc_db_mcell *c;

	if (pa->base) {
		if (!an__parr_back(b->pool, pa, need)) {
			*cap = pa->backed / el > UINT32_MAX ? UINT32_MAX : (uint32_t)(pa->backed / el);
			return 0;
		}
		/* beyond its reservation (no region has more cells than the
		   thread matrix: not expected): into the heap */
		if (!(c = malloc(need)))
			return -ENOMEM;
		memcpy(c, m->cell, (size_t)m->ncell * el);
		an__parr_release(b->pool, pa);
		m->cell = c;
		*cap = m->ncell + 1;
		return 0;
	}
	return an__grow(&m->cell, cap, m->ncell + 1, el);
}

/* Append a cell, in (i, j) order, to kept region kq's inclusive (x false)
   or exclusive matrix directly (no intermediate copy). */
static inline int put_cell(struct build *b, uint32_t kq, bool x, uint32_t i, uint32_t j,
                           const uint64_t v[2])
{
	struct region *r = &b->R->r[b->korder[kq]];
	struct matrix *m = x ? &r->mx : &r->mi;
	uint32_t *cap = x ? &b->rc[kq].xcap : &b->rc[kq].icap;
	int ret;

	if (!v[0] && !v[1])
		return 0;
	if (m->ncell >= *cap && (ret = grow_cells(b, m, x ? &r->xa : &r->ia, cap)))
		return ret;
	/* Each of the ~112 credited regions appends to two streams of its own,
	   one cell per thread pair: the store of a cell missed (the pool's
	   pages are out of cache; 22 % of emit_region on one mov, session 13).
	   The line 16 cells ahead is asked for now, so that it is there when
	   this region's turn comes again (a prefetch does not fault: past the
	   backed part it is dropped). Session 14: crediting 0.40 -> 0.29 s CPU
	   at 1,024 threads. */
	__builtin_prefetch(&m->cell[m->ncell + CELL_AHEAD], 1);
	m->cell[m->ncell++] = (struct hc_db_mcell){ i, j, { v[0], v[1] } };
	m->row[i + 1]++;
	return 0;
}

static int put_sorted(struct an *an, struct build *b, uint32_t kq, uint32_t i, uint32_t j,
                      const uint64_t in[2], const uint64_t ex[2])
{
	int ret;

	(void)an;
	ret = put_cell(b, kq, false, i, j, in);
	if (!ret)
		ret = put_cell(b, kq, true, i, j, ex);
	return ret;
}

/* The events of profile pi are credited: its aggregate is not needed any
   more. A mapped array goes back at once (RROW_MAP); every TRIM_BYTES of
   the others freed, the allocator gives the free pages back: arrays
   below glibc's mmap threshold (which rises as large blocks are freed)
   stayed resident while the matrices grew elsewhere — the build's peak
   was the events plus the matrices (402 MB, sequential, 1,024 threads,
   before the large arrays were mapped); given back, about the larger of
   the two (288 MB). A trim walks the whole heap: in a large one (10^5
   threads: 1 KB arrays, a 1 GB heap, 25 trims of ~7 ms) the interval is
   1/64 of the heap (mallinfo2's arena, read after every 8th trim) instead. */
#define TRIM_BYTES ((size_t)4 << 20)
static void drop_entries(struct an *an, struct build *b, uint32_t pi)
{
	struct an_prof *p = &an->profs[pi];

	if (!p->rrow.mapped) {
		b->dropped += (size_t)p->rrow.cap * sizeof(*p->rrow.e);
	} else {   /* its pages to the pool: the region cells take them next */
		an__pool_put(b->pool, p->rrow.e, (size_t)p->rrow.cap * sizeof(*p->rrow.e));
		p->rrow.e = NULL;
		p->rrow.mapped = false;
	}
	regions__rrow_free(&p->rrow);
#ifdef __GLIBC__
	if (b->dropped >= (b->trim_at ? b->trim_at : TRIM_BYTES)) {
		struct mallinfo2 mi;

		malloc_trim(0);
		b->dropped = 0;
		if (b->ntrim++ % 8 == 0) {   /* mallinfo2 walks the heap's free chunks (~15 ms
		                                at 10^5 threads): read at every 8th trim only */
			mi = mallinfo2();
			b->trim_at = mi.arena / 64 > TRIM_BYTES ? mi.arena / 64 : TRIM_BYTES;
		}
	}
#endif
}

/* Lazy region kq stores its cells from now on: those it has so far are
   those of the closest stored region around it, before cell (i, j) (all
   of them for i = HC_NONE). */
static int materialize(struct build *b, uint32_t kq, uint32_t i, uint32_t j)
{
	const struct matrix *a;
	uint32_t x = kq, n, c;
	int ret;

	while (b->lazy[x])
		x = b->kpar[x];
	a = &b->R->r[b->korder[x]].mi;
	n = a->ncell;
	if (n && i != HC_NONE && a->cell[n - 1].i == i && a->cell[n - 1].j == j)
		n--;
	for (c = 0; c < n; c++)
		if ((ret = put_cell(b, kq, false, a->cell[c].i, a->cell[c].j, a->cell[c].v)))
			return ret;
	b->lazy[kq] = false;
	return 0;
}

static int materialize_all(struct build *b)
{
	uint32_t kq;
	int ret;

	b->all_loop = true;
	for (kq = 0; kq < b->nk; kq++)
		if (b->lazy[kq] && (ret = materialize(b, kq, HC_NONE, HC_NONE)))
			return ret;
	return 0;
}

/* After pass B and finish_region: a region still lazy has its parent's
   inclusive cells everywhere; it points to those of the closest region
   around it that owns its own (the diagonal stays its own). */
static int share_lazy(struct build *b)
{
	uint32_t kq, x;

	for (kq = 0; kq < b->nk; kq++) {
		struct region *r = &b->R->r[b->korder[kq]];
		const struct matrix *a;

		if (!b->lazy[kq])
			continue;
		for (x = kq; b->lazy[x]; x = b->kpar[x])
			;
		a = &b->R->r[b->korder[x]].mi;
		cells_free(b->pool, &r->mi, &r->ia);
		free(r->mi.row);
		r->mi.cell = a->cell;
		r->mi.row = a->row;
		r->mi.ncell = a->ncell;
		r->same_in = true;
	}
	return 0;
}

/* A process with few enough threads: thread pair by thread pair, in (i, j)
   order (processes come in thread order, so the cells come out sorted),
   the pair's entries — those of thread i's profile with peer j and of j's
   with peer i, runs of the profiles sorted by peer in pass A, taken with
   one cursor per profile — are credited in a scratch of kept regions that
   stays in cache and emitted at once. Same-thread entries go to the
   diagonal sums. */
static inline const struct an_prof *dense_prof(const struct an *an, uint32_t g)
{
	const struct an_prof *p = an->threads[g].prof;

	return p && p->status == AN_OK && p->rrow.n ? p : NULL;
}

/* Kept region kq's part of cell (i, j): its inclusive sums in cin (by
   isrc), its exclusive in sx. */
static inline int emit_region(struct an *an, struct build *b, uint32_t kq, uint32_t i, uint32_t j)
{
	const uint64_t *ex = &b->sx[2 * kq], *in = &b->cin[2 * b->isrc[kq]];
	int ret;

	if (b->lazy[kq]) {
		const uint64_t *pin = &b->cin[2 * b->isrc[b->kpar[kq]]];
		if (in[0] == pin[0] && in[1] == pin[1])   /* the exclusive cell only */
			return put_cell(b, kq, true, i, j, ex);
		ret = materialize(b, kq, i, j);
		if (ret)
			return ret;
	}
	if (!(in[0] | in[1] | ex[0] | ex[1]))
		return 0;
	if (b->rc[kq].unsorted)
		return append(&b->rc[kq], i, j, in, ex, true);
	return put_sorted(an, b, kq, i, j, in, ex);
}

/* Cell (i, j) credited into si, sx from entries ea[0..na), eb[0..nb) and
   tot: every kept region's part of it emitted, si and sx left zero. The
   regions not credited (isrc) stay lazy: only their exclusive cells are
   put, where an entry's exclusive part went (at 10^5 threads 55 of 67
   kept regions, a cell of one or two entries). */
static int emit_cell(struct an *an, struct build *b, uint32_t i, uint32_t j, const uint64_t tot[2],
                     const struct rrow_ent *ea, uint32_t na, const struct rrow_ent *eb, uint32_t nb)
{
	uint32_t q, kq;
	int ret;

	for (q = 0; q < b->nact; q++) {
		kq = b->act[q];
		inclusive(b, kq, &b->si[2 * kq], tot, &b->cin[2 * kq]);
	}
	if (b->all_loop) {
		for (kq = 0; kq < b->nk; kq++)
			if ((ret = emit_region(an, b, kq, i, j)))
				return ret;
		memset(b->si, 0, (size_t)b->nk * 2 * sizeof(*b->si));
		memset(b->sx, 0, (size_t)b->nk * 2 * sizeof(*b->sx));
		return 0;
	}
	for (q = 0; q < b->nact; q++) {
		kq = b->act[q];
		if ((ret = emit_region(an, b, kq, i, j)))
			return ret;
		b->si[2 * kq] = b->si[2 * kq + 1] = 0;
		b->sx[2 * kq] = b->sx[2 * kq + 1] = 0;
	}
	for (q = 0; q < na + nb; q++) {
		const struct rrow_ent *e = q < na ? &ea[q] : &eb[q - na];
		uint64_t *ex;

		kq = b->xk[ENT_PID(e)];
		ex = &b->sx[2 * kq];
		if (b->isrc[kq] == kq || !(ex[0] | ex[1]))
			continue;   /* credited above, or put already */
		ret = put_cell(b, kq, true, i, j, ex);
		if (ret)
			return ret;
		ex[0] = ex[1] = 0;
	}
	return 0;
}

static int pass_b_dense(struct an *an, struct build *b, uint32_t base, uint32_t T)
{
	uint32_t g, lo, hi;
	int ret;

	if (T > b->curcap && an__grow(&b->cur, &b->curcap, T, sizeof(*b->cur)))
		return -ENOMEM;
	memset(b->cur, 0, (size_t)T * sizeof(*b->cur));
	ret = ensure_scratch(b, b->nk + CREDIT_SPARE);
	if (ret)
		return ret;
	memset(b->si, 0, (size_t)b->nk * 2 * sizeof(*b->si));
	memset(b->sx, 0, (size_t)b->nk * 2 * sizeof(*b->sx));
	for (lo = 0; lo < T; lo++) {
		const struct an_prof *pl = dense_prof(an, base + lo);
		const struct rrow_ent *el = pl ? pl->rrow.e : NULL;
		uint32_t nl = pl ? pl->rrow.n : 0, a = b->cur[lo];

		/* the entries with earlier peers went with the earlier rows */
		for (; a < nl && ENT_J(&el[a]) == base + lo; a++)
			credit(b, ENT_PID(&el[a]), b->din, b->dex, b->dtot, el[a].vk);
		for (hi = lo + 1; hi < T; hi++) {
			const struct an_prof *ph = dense_prof(an, base + hi);
			const struct rrow_ent *eh = ph ? ph->rrow.e : NULL;
			uint32_t a0 = a, b0 = b->cur[hi], b1 = b0;
			uint64_t tot[2] = { 0, 0 };

			for (; a < nl && ENT_J(&el[a]) == base + hi; a++) {
				/* row lo's entries: read in order, out of cache since
				   pass A (a process's are ~10 MB on bench/prof-scale) */
				__builtin_prefetch(el + a + PF_AHEAD);
				credit4(b, ENT_PID(&el[a]), b->si, b->sx, tot, el[a].vk);
			}
			if (ph)
				for (; b1 < ph->rrow.n && ENT_J(&eh[b1]) == base + lo; b1++)
					credit4(b, ENT_PID(&eh[b1]), b->si, b->sx, tot, eh[b1].vk);
			b->cur[hi] = b1;
			if (a0 == a && b0 == b1)
				continue;
			ret = emit_cell(an, b, base + lo, base + hi, tot, el + a0, a - a0,
			                eh ? eh + b0 : NULL, b1 - b0);
			if (ret)
				return ret;
		}
		b->cur[lo] = a;
	}
	for (g = base; g < base + T; g++) {
		const struct an_prof *p = dense_prof(an, g);
		if (p)
			drop_entries(an, b, (uint32_t)(p - an->profs));
	}
	return 0;
}

/* Kept region kq leaves the in-order path: the cells already in its
   matrices move to its cell list (merged by (i, j) at the end). */
static int to_unsorted(struct build *b, uint32_t kq)
{
	struct rcells *rc = &b->rc[kq];
	struct region *r = &b->R->r[b->korder[kq]];
	static const uint64_t zero[2];
	uint32_t k;
	int ret = 0;

	if (rc->unsorted)
		return 0;
	rc->unsorted = true;
	for (k = 0; k < r->mi.ncell && !ret; k++)
		ret = append(rc, r->mi.cell[k].i, r->mi.cell[k].j, r->mi.cell[k].v, zero, false);
	for (k = 0; k < r->mx.ncell && !ret; k++)
		ret = append(rc, r->mx.cell[k].i, r->mx.cell[k].j, zero, r->mx.cell[k].v, false);
	r->mi.ncell = r->mx.ncell = 0;
	memset(r->mi.row, 0, ((size_t)r->mi.n + 1) * sizeof(*r->mi.row));
	memset(r->mx.row, 0, ((size_t)r->mx.n + 1) * sizeof(*r->mx.row));
	return ret;
}

/* A large process: per profile, kept regions x its peers; the cells are
   sorted at the end. */
static int pass_b_sparse(struct an *an, struct build *b, uint32_t pi)
{
	const struct an_prof *p = &an->profs[pi];
	struct hmap slots;
	uint32_t *gj = NULL, gjcap = 0, ns, nt = 0, k, s;
	int ret;

	if (!p->rrow.n)
		return 0;
	ret = materialize_all(b);   /* the cells go to the unsorted lists from here on */
	if (ret)
		return ret;
	ret = hmap__init(&slots, 64);
	for (k = 0; k < p->rrow.n && !ret; k++) {
		struct hkey sk = { ENT_J(&p->rrow.e[k]), 0, 0 };
		int r;

		if (ENT_PID(&p->rrow.e[k]) == HC_NONE)
			continue;
		r = hmap__intern(&slots, &sk, &s);
		if (r < 0)
			ret = r;
		else if (r == 1 && an__grow(&gj, &gjcap, slots.n, sizeof(*gj)))
			ret = -ENOMEM;
		else if (r == 1)
			gj[s] = ENT_J(&p->rrow.e[k]);
	}
	ns = slots.n;
	if (!ret)
		ret = ensure_scratch(b, (size_t)b->nk * ns);
	free(b->stot);
	b->stot = ret ? NULL : calloc(ns ? 2 * (size_t)ns : 1, sizeof(*b->stot));
	if (!ret && !b->stot)
		ret = -ENOMEM;
	if (!ret) {
		memset(b->si, 0, (size_t)b->nk * ns * 2 * sizeof(*b->si));
		memset(b->sx, 0, (size_t)b->nk * ns * 2 * sizeof(*b->sx));
	}
	for (k = 0; k < p->rrow.n && !ret; k++) {
		uint32_t pid = ENT_PID(&p->rrow.e[k]);
		struct hkey sk = { ENT_J(&p->rrow.e[k]), 0, 0 };
		uint32_t vk = p->rrow.e[k].vk;

		if (pid == HC_NONE)
			continue;
		hmap__find(&slots, &sk, &s);
		if (ENT_J(&p->rrow.e[k]) == p->gthread)
			credit(b, pid, b->din, b->dex, b->dtot, vk);
		else
			credit(b, pid, b->si + (size_t)s * b->nk * 2, b->sx + (size_t)s * b->nk * 2,
			       b->stot + 2 * (size_t)s, vk);
	}
	for (k = 0; k < b->nk * ns && !ret; k++) {
		const uint64_t *ex = &b->sx[(size_t)k * 2];
		uint64_t in[2];

		uint32_t src = b->isrc[k % b->nk];

		inclusive(b, src, &b->si[((size_t)(k / b->nk) * b->nk + src) * 2],
		          b->stot + 2 * (size_t)(k / b->nk), in);
		if (!(in[0] | in[1] | ex[0] | ex[1]))
			continue;
		ret = to_unsorted(b, k % b->nk);
		if (!ret)
			ret = append(&b->rc[k % b->nk], p->gthread, gj[k / b->nk], in, ex, false);
	}
	(void)nt;
	hmap__free(&slots);
	free(gj);
	if (!ret)
		drop_entries(an, b, pi);
	return ret;
}

static int cmp_rcell(const void *x, const void *y)
{
	const struct rcell *a = x, *b = y;

	if (a->i != b->i)
		return a->i < b->i ? -1 : 1;
	return (a->j > b->j) - (a->j < b->j);
}

/* The region's two matrices: empty ones (row counts zero) made before the
   cells come (init_region), completed at the end (finish_region) from
   what was put in order, or from the cell list sorted and merged. */
static int init_region(struct an *an, struct region *r)
{
	struct matrix *m[2] = { &r->mi, &r->mx };

	for (int w = 0; w < 2; w++) {
		struct matrix *x = m[w];

		memset(x, 0, sizeof(*x));
		x->level = HC_DB_LEVEL_THREAD;
		x->n = an->nthreads ? an->nthreads : 1;
		x->present = true;
		x->row = calloc((size_t)x->n + 1, sizeof(*x->row));
		if (!x->row)
			return -ENOMEM;
	}
	return 0;
}

static int finish_region(struct an *an, struct build *b, uint32_t kq)
{
	struct region *r = &b->R->r[b->korder[kq]];
	struct rcells *rc = &b->rc[kq];
	struct matrix *m[2] = { &r->mi, &r->mx };
	uint32_t k, n = 0, w;
	uint64_t din[2];

	inclusive(b, b->isrc[kq], &b->din[2 * b->isrc[kq]], b->dtot, din);

	if (!rc->unsorted) {
		for (w = 0; w < 2; w++) {
			struct matrix *x = m[w];
			x->diag[0] = w ? b->dex[2 * kq] : din[0];
			x->diag[1] = w ? b->dex[2 * kq + 1] : din[1];
			if (!w && b->lazy[kq])
				continue;   /* share_lazy gives it its cells */
			if (!x->cell && !(x->cell = malloc(sizeof(*x->cell))))
				return -ENOMEM;
			for (k = 0; k < x->n; k++)
				x->row[k + 1] += x->row[k];
		}
		return 0;
	}
	for (w = 0; w < 2; w++) {
		cells_free(b->pool, m[w], w ? &r->xa : &r->ia);
		free(m[w]->row);
	}
	if (rc->n > 1) {
		qsort(rc->c, rc->n, sizeof(*rc->c), cmp_rcell);
		for (k = 0; k < rc->n; k++) {
			if (n && rc->c[n - 1].i == rc->c[k].i && rc->c[n - 1].j == rc->c[k].j) {
				for (w = 0; w < 2; w++) {
					rc->c[n - 1].in[w] += rc->c[k].in[w];
					rc->c[n - 1].ex[w] += rc->c[k].ex[w];
				}
			} else {
				rc->c[n++] = rc->c[k];
			}
		}
		rc->n = n;
	}
	for (w = 0; w < 2; w++) {
		struct matrix *x = m[w];

		memset(x, 0, sizeof(*x));
		x->level = HC_DB_LEVEL_THREAD;
		x->n = an->nthreads ? an->nthreads : 1;
		x->present = true;
		x->diag[0] = w ? b->dex[2 * kq] : din[0];
		x->diag[1] = w ? b->dex[2 * kq + 1] : din[1];
		x->cell = malloc((rc->n ? rc->n : 1) * sizeof(*x->cell));
		x->row = calloc((size_t)x->n + 1, sizeof(*x->row));
		if (!x->cell || !x->row)
			return -ENOMEM;
		for (k = 0; k < rc->n; k++) {
			const uint64_t *v = w ? rc->c[k].ex : rc->c[k].in;
			if (!v[0] && !v[1])
				continue;
			x->cell[x->ncell++] = (struct hc_db_mcell){ rc->c[k].i, rc->c[k].j, { v[0], v[1] } };
			x->row[rc->c[k].i + 1]++;
		}
		for (k = 0; k < x->n; k++)
			x->row[k + 1] += x->row[k];
	}
	free(rc->c);
	rc->c = NULL;
	return 0;
}

static uint32_t nlazy(const struct build *b)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < b->nk; k++)
		n += b->lazy[k];
	return n;
}

/* CPU seconds of the process so far (HC_DEBUG=time's breakdown). */
static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int regions__pairs(struct an *an)
{
	double t0 = cpu_now();
	struct regions *R = an->reg;
	int ret;

	if (!R)
		return 0;
	R->b = calloc(1, sizeof(*R->b));
	if (!R->b)
		return -ENOMEM;
	R->b->R = R;
	R->b->pool = &an->pool;
	R->stamp = calloc(R->n, sizeof(*R->stamp));
	R->list = malloc((R->n + 1) * sizeof(*R->list));
	ret = R->stamp && R->list ? 0 : -ENOMEM;
	if (!ret)
		ret = hmap__init(&R->b->pairs, 1024);
	if (!ret)
		ret = pass_a_pairs(an, R, R->b);
	R->tpairs = cpu_now() - t0;
	return ret;
}

/* The plan: kept regions, per set pair its lists, the scratch sums. */
int regions__build_begin(struct an *an)
{
	struct regions *R = an->reg;
	struct build *b;
	uint32_t k;
	int ret;

	if (!R || (R->b && R->b->begun))
		return 0;
	if (!R->b)
		return -EINVAL;   /* regions__pairs first */
	b = R->b;
	b->t0 = cpu_now();
	b->begun = true;
	ret = keep(an, R, b);
	if (!ret)
		ret = compile_lists(b);
	if (!ret) {
		b->din = calloc(2 * (size_t)(b->nk ? b->nk : 1), sizeof(*b->din));
		b->dex = calloc(2 * (size_t)(b->nk ? b->nk : 1), sizeof(*b->dex));
		b->cin = calloc(2 * (size_t)(b->nk ? b->nk : 1), sizeof(*b->cin));
		b->lazy = calloc(b->nk ? b->nk : 1, sizeof(*b->lazy));
		if (!b->din || !b->dex || !b->cin || !b->lazy)
			ret = -ENOMEM;
		for (k = 0; !ret && k < b->nk; k++)
			b->lazy[k] = b->kpar[k] != HC_NONE;
	}
	b->ta = cpu_now();
	return ret;
}

/* Passes A and B over one process: its profiles' entries are credited
   and freed. */
static int build_proc(struct an *an, struct build *b, const struct an_proc *pr)
{
	uint32_t g;
	int ret = 0;

	for (g = pr->first; g < pr->first + pr->nthreads && !ret; g++) {
		struct an_prof *p = an->threads[g].prof;
		if (p && p->status == AN_OK && p->rrow.n)
			ret = pass_a_prof(an, b, p);
	}
	if (ret)
		return ret;
	if (dense_proc(pr))
		return pass_b_dense(an, b, pr->first, pr->nthreads);
	for (g = pr->first; g < pr->first + pr->nthreads && !ret; g++) {
		const struct an_prof *p = an->threads[g].prof;
		if (p && p->status == AN_OK)
			ret = pass_b_sparse(an, b, (uint32_t)(p - an->profs));
	}
	return ret;
}

int regions__build_upto(struct an *an, uint32_t g)
{
	struct regions *R = an->reg;
	struct build *b;
	int ret = 0;

	if (!R || !R->b || !R->b->begun)
		return 0;
	b = R->b;
	for (; b->next < an->nused_procs && !ret; b->next++) {
		const struct an_proc *pr = &an->procs[an->proc_order[b->next]];

		if (g != HC_NONE && (uint64_t)pr->first + pr->nthreads > g)
			break;
		ret = build_proc(an, b, pr);
	}
	return ret;
}

int regions__build(struct an *an)
{
	double tb, tn;
	struct regions *R = an->reg;
	struct build *b;
	uint32_t k;
	int ret;

	if (!R)
		return 0;
	if (!R->b)
		return -EINVAL;   /* regions__pairs first */
	b = R->b;
	ret = regions__build_begin(an);
	if (!ret)
		ret = regions__build_upto(an, HC_NONE);
	for (k = 0; k < b->nk && !ret; k++)
		ret = finish_region(an, b, k);
	if (!ret)
		ret = share_lazy(b);
	tb = cpu_now();
	if (!ret)
		ret = name_kept(an, R);
	tn = cpu_now();
	if (!ret)
		ret = order_kept(R);
	if (!ret && an->o->diag && hc_debug_enabled(HC_DBG_TIME))
		fprintf(an->o->diag, "hpcprof-comm: regions: %u functions, %llu decoded (%llu not), "
		        "%u regions, %u kept (%u credited, %u lazy at the end), %u region sets, %u "
		        "set pairs, %llu entries of no pair\n", R->fnidx.n,
		        (unsigned long long)R->decoded, (unsigned long long)R->undecodable, R->n,
		        R->nkept, b->nact, nlazy(b),
		        R->sids.n, b->pairs.n, (unsigned long long)b->missing);
	if (!ret && an->o->diag && hc_debug_enabled(HC_DBG_TIME))
		fprintf(an->o->diag, "hpcprof-comm: region mat.: cpu %.3f s regions and loops (%s), "
		        "%.3f s set pairs (with the matrix), %.3f s kept regions, %.3f s crediting "
		        "(pair ids with it; distributed, from the first region events received), "
		        "%.3f s names\n", R->tprep, R->by_volume ? "the functions that can be kept" :
		        "every function", R->tpairs, b->ta - b->t0, tb - b->ta, tn - tb);
	build_free(an, b);
	free(b);
	R->b = NULL;
	return ret;
}

/* A matrix's cells summed: (true, false). */
static void cell_totals(const struct matrix *m, uint64_t out[2])
{
	out[0] = out[1] = 0;
	for (uint32_t k = 0; k < m->ncell; k++) {
		out[0] += m->cell[k].v[0];
		out[1] += m->cell[k].v[1];
	}
}

/* What regions.xml and regions.csv hold, as lib/db's plain rows
   (db/write.h): the kept regions in document order. */
int regions__write(struct an *an, const char *dir, char *err, size_t errlen)
{
	struct regions *R = an->reg;
	struct hc_db_wregion *w;
	struct hc_db_wregions wr;
	uint32_t k;
	int ret;

	if (!R || !R->order)
		return 0;
	w = calloc(R->nkept ? R->nkept : 1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_REGIONS);
		return -ENOMEM;
	}
	for (k = 0; k < R->nkept; k++) {
		const struct region *r = &R->r[R->order[k]], *o = r;
		uint64_t it[2], xt[2];

		/* cells shared with the region around it: its totals (preorder:
		   computed already) */
		while (o->same_in && o->parent != HC_NONE)
			o = &R->r[o->parent];
		if (o != r) {
			it[0] = w[o->out].tru;
			it[1] = w[o->out].fal;
		} else {
			cell_totals(&r->mi, it);
		}
		cell_totals(&r->mx, xt);
		w[k] = (struct hc_db_wregion){
			.i = r->out, .parent = r->parent == HC_NONE ? UINT32_MAX : R->r[r->parent].out,
			.kind = (int)r->kind,
			.name = r->kind == R_PROGRAM ? experiment__program(an) : r->name,
			.lm = r->lm != HC_NONE ? an->modules.s[r->lm] : NULL,
			.file = r->file, .line = r->line, .addr = r->addr, .depth = r->depth,
			.irreducible = r->irreducible,
			.tru = it[0], .fal = it[1],
			.self = r->mi.diag[0] + r->mi.diag[1],
			.xtru = xt[0], .xfal = xt[1],
			.xself = r->mx.diag[0] + r->mx.diag[1],
			.cells = r->mi.cell, .ncells = r->mi.ncell,
			.xcells = r->mx.cell, .nxcells = r->mx.ncell,
			.cells_parent = r->same_in,
		};
	}
	/* HPCRUN_COMM_REGION_SHARE=0: every region's rows in full (regions.xml
	   version 2), to compare (doc/performance.md Session 16) */
	{
		const char *e = getenv("HPCRUN_COMM_REGION_SHARE");
		if (!e || strcmp(e, "0"))
			hc_db_region_share(w, R->nkept);
	}
	wr = (struct hc_db_wregions){ .unit = an->unit, .threshold = REGIONS_MIN_SHARE,
	                              .threads = an->nthreads, .r = w, .n = R->nkept };
	ret = hc_db_write_regions(dir, &wr, err, errlen);
	if (!ret)
		ret = hc_db_write_region_matrices(dir, &wr, err, errlen);
	free(w);
	return ret;
}

void regions__free(struct an *an)
{
	struct regions *R = an->reg;
	uint32_t k;

	if (!R)
		return;
	if (R->b) {
		build_free(an, R->b);
		free(R->b);
	}
	for (k = 0; k < R->n; k++) {
		free(R->r[k].name);
		free(R->r[k].file);
		if (R->r[k].keep) {
			agg__free(&R->r[k].mi.acc);
			agg__free(&R->r[k].mx.acc);
			if (!R->r[k].same_in) {
				cells_free(&an->pool, &R->r[k].mi, &R->r[k].ia);
				free(R->r[k].mi.row);
			}
			cells_free(&an->pool, &R->r[k].mx, &R->r[k].xa);
			free(R->r[k].mx.row);
		}
	}
	for (k = 0; k < R->fnidx.n; k++) {
		free(R->fn[k].raw);
		hc_loops_free(&R->fn[k].loops);
		free(R->fn[k].loopreg);
	}
	free(R->r);
	free(R->fn);
	hmap__free(&R->fnidx);
	hmap__free(&R->sids);
	free(R->sd);
	free(R->rsid);
	free(R->order);
	free(R->stamp);
	free(R->list);
	free(R->sres);
	free(R);
	an->reg = NULL;
	an->rsid = NULL;
}
