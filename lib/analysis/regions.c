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
#include <stdlib.h>
#include <string.h>

#include "analysis/regions.h"
#include "decode/loops.h"
#include "support/log.h"

enum { R_PROGRAM = 0, R_PROCEDURE, R_PARALLEL, R_LOOP };
static const char *const kind_names[] = { "program", "procedure", "parallel", "loop" };

#define MAX_CHAIN 512
#define MAX_FUNC  (1u << 22)   /* larger "functions" are not decoded */

struct region {
	uint32_t parent, kind, lm, depth;
	uint64_t addr;          /* function start, loop header */
	char *name, *file;      /* file NULL when unknown */
	uint32_t line;
	bool irreducible;
	uint64_t in_all;        /* pass A: inclusive volume (true + false + self) */
	bool keep;
	uint32_t out;           /* output id */
	struct matrix mi, mx;   /* inclusive, exclusive (kept ones) */
	uint32_t first_child, next_sibling;
};

struct fn {
	uint32_t lm;
	uint64_t lo;
	uint32_t region;
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
};

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

static int new_region(struct regions *R, uint32_t parent, uint32_t kind, uint32_t lm,
                      uint64_t addr, uint32_t *out)
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
	*out = R->n++;
	return 0;
}

/* The source line a loop is named by: its back-edge branches' line in the
   function itself (an inlined latch: the line of the inlined call), the
   smallest when there are several; the header's when none is known. */
static void loop_line(struct regions *R, struct symmod *m, const struct hc_loops *L,
                      const struct hc_loop *lp, char **file, uint32_t *line)
{
	struct sym_result *s = R->sres;
	uint32_t k;

	*file = NULL;
	*line = 0;
	for (k = 0; k <= lp->nlatch; k++) {
		uint64_t a = k < lp->nlatch ? L->latches[lp->first_latch + k] : lp->head;
		const char *f;
		int ln;

		if (k == lp->nlatch && *line)
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

/* The function at lo of module lm: its region and loop regions, made on
   first use. *out = function index, HC_NONE when it cannot be made. */
static int fn_get(struct an *an, struct regions *R, struct symmod *m, uint32_t lm, uint64_t lo,
                  uint64_t size, const char *raw, uint32_t *out, int depth)
{
	struct hkey k = { lm, lo, 0 };
	struct sym_result *s = R->sres;
	enum names_omp omp;
	size_t plen = 0;
	uint32_t i, reg, parent = 0, l;
	uint8_t *code;
	char *name;
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
	omp = names__omp_kind(raw, &plen);
	ret = new_region(R, 0, omp != NAMES_OMP_NONE ? R_PARALLEL : R_PROCEDURE, lm, lo, &reg);
	if (ret)
		return ret;
	R->fn[i].region = reg;
	sym__lookup(m, lo, s);
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
	} else {
		name = s->nframes > 0 && s->fr[0].name ? strdup(s->fr[0].name) : names__demangle(raw);
	}
	if (!name)
		return -ENOMEM;
	hc_utf8_fix(name);
	R->r[reg].name = name;
	if (R->r[reg].line) {
		/* set above */
	} else if (s->nframes > 0 && s->fr[0].decl_file && s->fr[0].decl_line > 0) {
		R->r[reg].file = strdup(s->fr[0].decl_file);
		R->r[reg].line = (uint32_t)s->fr[0].decl_line;
	} else if (s->file && s->line > 0) {
		R->r[reg].file = strdup(s->file);
		R->r[reg].line = (uint32_t)s->line;
	}
	if (omp != NAMES_OMP_NONE && depth < 8) {
		ret = omp_parent(an, R, m, lm, raw, plen, omp, name, &parent, depth);
		if (ret)
			return ret;
		R->r[reg].parent = parent;
	}
	*out = i;
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
		char buf[600];

		ret = new_region(R, par, R_LOOP, lm, lp->head, &lr);
		if (ret)
			return ret;
		R->fn[i].loopreg[l] = lr;
		R->r[lr].depth = lp->depth;
		R->r[lr].irreducible = lp->irreducible;
		loop_line(R, m, &R->fn[i].loops, lp, &R->r[lr].file, &R->r[lr].line);
		if (R->r[lr].file)
			snprintf(buf, sizeof(buf), "loop at %s:%u", base_name(R->r[lr].file), R->r[lr].line);
		else
			snprintf(buf, sizeof(buf), "loop at %s+0x%llx", base_name(an->modules.s[lm]),
			         (unsigned long long)lp->head);
		hc_utf8_fix(buf);
		if (!(R->r[lr].name = strdup(buf)))
			return -ENOMEM;
	}
	return 0;
}

/* The innermost region holding addr of module m, HC_NONE for none. */
static int frame_region(struct an *an, struct regions *R, struct symmod *m, uint32_t lm,
                        uint64_t addr, uint32_t *out)
{
	uint64_t lo, size;
	const char *raw;
	uint32_t f;
	int32_t l;
	int ret;

	*out = HC_NONE;
	if (!sym__function(m, addr, &lo, &size, &raw))
		return 0;
	ret = fn_get(an, R, m, lm, lo, size, raw, &f, 0);
	if (ret || f == HC_NONE)
		return ret;
	l = R->fn[f].loopreg ? hc_loops_innermost(&R->fn[f].loops, addr) : -1;
	*out = l >= 0 ? R->fn[f].loopreg[l] : R->fn[f].region;
	return 0;
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

int regions__prepare(struct an *an)
{
	const struct cct *t = &an->tree;
	uint32_t n = cct__n(t), g, k, nq = 0, root, *freg = NULL, s0;
	struct nreq *q = NULL;
	struct regions *R;
	int ret;

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
		ret = new_region(R, HC_NONE, R_PROGRAM, HC_NONE, 0, &root);
	if (!ret)
		ret = sid_intern(R, 0, 0, 0, &s0);
	if (ret)
		return ret;
	q = malloc((n ? n : 1) * sizeof(*q));
	freg = malloc((n ? n : 1) * sizeof(*freg));
	R->rsid = malloc((n ? n : 1) * sizeof(*R->rsid));
	if (!q || !freg || !R->rsid) {
		ret = -ENOMEM;
		goto out;
	}
	for (g = 0; g < n; g++) {
		uint64_t off = cct__offset(t, g);
		uint32_t lm = cct__lm(t, g);

		freg[g] = HC_NONE;
		if (g == 0 || lm == HC_NONE || lm >= an->modules.n)
			continue;
		q[nq++] = (struct nreq){ lm, g,
		                         (cct__flags(t, g) & HC_NODE_LEAF) || off == 0 ? off : off - 1 };
	}
	qsort(q, nq, sizeof(*q), cmp_nreq);
	for (k = 0; k < nq && !ret;) {
		uint32_t lm = q[k].lm, j;
		char err[1024];
		struct symmod *m = sym__open(an->modules.s[lm], err, sizeof(err));

		for (j = k; j < nq && q[j].lm == lm && !ret; j++) {
			if (!m)
				continue;
			if (j > k && q[j].addr == q[j - 1].addr) {
				freg[q[j].g] = freg[q[j - 1].g];
				continue;
			}
			ret = frame_region(an, R, m, lm, q[j].addr, &freg[q[j].g]);
		}
		sym__close(m);
		k = j;
	}
	R->rsid[0] = 0;
	for (g = 1; g < n && !ret; g++) {
		uint32_t s = R->rsid[cct__parent(t, g)];
		if (freg[g] != HC_NONE)
			ret = extend(R, s, freg[g], &s);
		R->rsid[g] = s;
	}
	if (!ret)
		an->rsid = R->rsid;
out:
	free(q);
	free(freg);
	return ret;
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

int regions__build(struct an *an)
{
	struct regions *R = an->reg;
	uint64_t total;
	uint32_t i, k, pass;
	int ret = 0;

	if (!R)
		return 0;
	R->stamp = calloc(R->n, sizeof(*R->stamp));
	R->list = malloc((R->n + 1) * sizeof(*R->list));
	if (!R->stamp || !R->list)
		return -ENOMEM;
	for (pass = 0; pass < 2 && !ret; pass++) {
		if (pass == 1) {
			total = R->r[0].in_all;
			for (k = 0; k < R->n; k++) {
				R->r[k].keep = k == 0 || (R->r[k].in_all &&
				               (double)R->r[k].in_all >= REGIONS_MIN_SHARE * (double)total);
				if (R->r[k].keep) {
					ret = matrix__init(&R->r[k].mi, HC_DB_LEVEL_THREAD, an->nthreads);
					if (!ret)
						ret = matrix__init(&R->r[k].mx, HC_DB_LEVEL_THREAD, an->nthreads);
					if (ret)
						return ret;
				}
			}
		}
		for (i = 0; i < an->nprofs && !ret; i++) {
			const struct an_prof *p = &an->profs[i];

			if (p->status != AN_OK)
				continue;
			for (k = 0; k < p->rrow.h.n && !ret; k++) {
				const struct hkey *key = &p->rrow.h.keys[k];
				uint32_t sg = (uint32_t)key->a, sp = (uint32_t)(key->a >> 32);
				uint32_t peer = (uint32_t)key->b, j, nl, x, q;
				uint64_t tv = p->rrow.v[k][0], fv = p->rrow.v[k][1];

				if (peer == p->th.index)
					j = p->gthread;
				else if (!threads__find(an, p->proc, peer, &j))
					continue;
				nl = set_union(R, sg, sp);
				for (q = 0; q < nl && !ret; q++) {
					struct region *r = &R->r[R->list[q]];
					if (pass == 0)
						r->in_all += tv + fv;
					else if (r->keep)
						ret = matrix__add(&r->mi, p->gthread, j, tv, fv);
				}
				if (pass == 0)
					continue;
				for (x = R->sd[sg].inner; !R->r[x].keep; x = R->r[x].parent)
					;
				if (!ret)
					ret = matrix__add(&R->r[x].mx, p->gthread, j, tv, fv);
			}
		}
	}
	for (k = 0; k < R->n && !ret; k++)
		if (R->r[k].keep) {
			ret = matrix__finish(&R->r[k].mi);
			if (!ret)
				ret = matrix__finish(&R->r[k].mx);
		}
	if (!ret)
		ret = order_kept(R);
	if (!ret && an->o->diag && hc_debug_enabled(HC_DBG_TIME))
		fprintf(an->o->diag, "hpcprof-comm: regions: %u functions decoded (%llu not), %u "
		        "regions, %u kept, %u region sets\n", R->fnidx.n,
		        (unsigned long long)R->undecodable, R->n, R->nkept, R->sids.n);
	return ret;
}

static void attr_str(struct hc_out *o, const char *name, const char *v)
{
	hc_out_printf(o, " %s=\"", name);
	hc_out_xml(o, v);
	hc_out_puts(o, "\"");
}

static void attr_u64(struct hc_out *o, const char *name, uint64_t v)
{
	char b[24];

	hc_out_printf(o, " %s=\"%s\"", name, hc_fmt_u64(b, v));
}

static void put_totals(struct hc_out *o, const char *pre, const struct matrix *m)
{
	char name[32];

	snprintf(name, sizeof(name), "%strue", pre);
	attr_u64(o, name, matrix__total(m, HC_DB_KIND_TRUE));
	snprintf(name, sizeof(name), "%sfalse", pre);
	attr_u64(o, name, matrix__total(m, HC_DB_KIND_FALSE));
	snprintf(name, sizeof(name), "%sself", pre);
	attr_u64(o, name, m->diag[0] + m->diag[1]);
}

static int write_xml(struct an *an, struct regions *R, const char *dir, char *err, size_t errlen)
{
	struct hc_out o;
	uint32_t k, depth = 0, *open = NULL;
	int ret;

	ret = hc_out_open(&o, dir, HC_DB_REGIONS, err, errlen);
	if (ret)
		return ret;
	open = malloc((R->nkept + 1) * sizeof(*open));
	if (!open) {
		char scratch[8];
		hc_out_close(&o, false, scratch, sizeof(scratch));
		snprintf(err, errlen, "out of memory writing %s", HC_DB_REGIONS);
		return -ENOMEM;
	}
	hc_out_puts(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Regions");
	attr_u64(&o, "version", HC_DB_VERSION);
	attr_str(&o, "unit", hc_db_unit_name(an->unit));
	hc_out_printf(&o, " threshold=\"%g\"", REGIONS_MIN_SHARE);
	attr_str(&o, "exclusive", "detecting-side");
	attr_str(&o, "matrices", HC_DB_REGION_MATRICES);
	attr_u64(&o, "threads", an->nthreads);
	hc_out_puts(&o, ">\n");
	for (k = 0; k < R->nkept; k++) {
		const struct region *r = &R->r[R->order[k]];
		uint32_t pout = r->parent == HC_NONE ? HC_NONE : R->r[r->parent].out, d;

		while (depth > 0 && open[depth - 1] != pout) {
			depth--;
			for (d = 0; d <= depth; d++)
				hc_out_puts(&o, " ");
			hc_out_puts(&o, "</Region>\n");
		}
		for (d = 0; d <= depth; d++)
			hc_out_puts(&o, " ");
		hc_out_puts(&o, "<Region");
		attr_u64(&o, "i", r->out);
		attr_str(&o, "kind", kind_names[r->kind]);
		attr_str(&o, "n", r->kind == R_PROGRAM ? experiment__program(an) : r->name);
		if (r->lm != HC_NONE)
			attr_str(&o, "lm", an->modules.s[r->lm]);
		if (r->file)
			attr_str(&o, "f", r->file);
		if (r->line)
			attr_u64(&o, "l", r->line);
		if (r->kind != R_PROGRAM)
			hc_out_printf(&o, " addr=\"0x%llx\"", (unsigned long long)r->addr);
		if (r->kind == R_LOOP) {
			attr_u64(&o, "depth", r->depth);
			if (r->irreducible)
				attr_str(&o, "irreducible", "1");
		}
		put_totals(&o, "", &r->mi);
		put_totals(&o, "x", &r->mx);
		hc_out_puts(&o, ">\n");
		open[depth++] = r->out;
	}
	while (depth > 0) {
		uint32_t d;
		depth--;
		for (d = 0; d <= depth; d++)
			hc_out_puts(&o, " ");
		hc_out_puts(&o, "</Region>\n");
	}
	hc_out_puts(&o, "</Regions>\n");
	free(open);
	return hc_out_close(&o, true, err, errlen);
}

static void put_row(struct hc_out *o, uint32_t reg, uint32_t i, uint32_t j, const uint64_t in[2],
                    const uint64_t ex[2])
{
	char b[24];

	hc_out_puts(o, hc_fmt_u64(b, reg));
	hc_out_puts(o, ",");
	hc_out_puts(o, hc_fmt_u64(b, i));
	hc_out_puts(o, ",");
	hc_out_puts(o, hc_fmt_u64(b, j));
	hc_out_puts(o, ",");
	hc_out_puts(o, hc_fmt_u64(b, in[0]));
	hc_out_puts(o, ",");
	hc_out_puts(o, hc_fmt_u64(b, in[1]));
	hc_out_puts(o, ",");
	hc_out_puts(o, hc_fmt_u64(b, ex[0]));
	hc_out_puts(o, ",");
	hc_out_puts(o, hc_fmt_u64(b, ex[1]));
	hc_out_puts(o, "\n");
}

static int write_csv(struct regions *R, const char *dir, char *err, size_t errlen)
{
	struct hc_out o;
	uint32_t k;
	int ret;

	ret = hc_out_open(&o, dir, HC_DB_REGION_MATRICES, err, errlen);
	if (ret)
		return ret;
	hc_out_puts(&o, HC_DB_REGION_HEADER "\n");
	for (k = 0; k < R->nkept; k++) {
		const struct region *r = &R->r[R->order[k]];
		const struct matrix *mi = &r->mi, *mx = &r->mx;
		uint32_t a = 0, b = 0;
		static const uint64_t zero[2];

		/* The exclusive cells are a subset of the inclusive ones. */
		for (a = 0; a < mi->ncell; a++) {
			const struct mcell *c = &mi->cell[a];
			const uint64_t *ex = zero;

			while (b < mx->ncell && (mx->cell[b].i < c->i ||
			                         (mx->cell[b].i == c->i && mx->cell[b].j < c->j)))
				b++;
			if (b < mx->ncell && mx->cell[b].i == c->i && mx->cell[b].j == c->j)
				ex = mx->cell[b].v;
			put_row(&o, k, c->i, c->j, c->v, ex);
		}
	}
	return hc_out_close(&o, true, err, errlen);
}

int regions__write(struct an *an, const char *dir, char *err, size_t errlen)
{
	struct regions *R = an->reg;
	int ret;

	if (!R || !R->order)
		return 0;
	ret = write_xml(an, R, dir, err, errlen);
	if (!ret)
		ret = write_csv(R, dir, err, errlen);
	return ret;
}

static uint64_t excl_all(const struct region *r)
{
	return matrix__total(&r->mx, HC_DB_KIND_ALL) + r->mx.diag[0] + r->mx.diag[1];
}

static int cmp_summary(const void *x, const void *y, void *arg)
{
	const struct regions *R = arg;
	const struct region *a = &R->r[*(const uint32_t *)x], *b = &R->r[*(const uint32_t *)y];
	uint64_t ea = excl_all(a), eb = excl_all(b);

	if (ea != eb)
		return ea > eb ? -1 : 1;
	if (a->in_all != b->in_all)
		return a->in_all > b->in_all ? -1 : 1;
	return (a->out > b->out) - (a->out < b->out);
}

/* The top regions by exclusive volume (where the communicating accesses
   are), then by inclusive. */
void regions__summary(struct an *an, struct hc_out *o)
{
	struct regions *R = an->reg;
	uint64_t total;
	uint32_t k, n, *idx;

	if (!R || !R->order || R->nkept < 2 || !(total = R->r[0].in_all))
		return;
	idx = malloc(R->nkept * sizeof(*idx));
	if (!idx)
		return;
	memcpy(idx, R->order + 1, (R->nkept - 1) * sizeof(*idx));
	qsort_r(idx, R->nkept - 1, sizeof(*idx), cmp_summary, R);
	hc_out_printf(o, "\n==============================================================================\n"
	              " Top code regions (procedures, parallel regions, loops: %s; doc/regions.md)\n"
	              "==============================================================================\n"
	              "    #  inclusive  exclusive   region\n", HC_DB_REGIONS);
	n = R->nkept - 1 < an->top ? R->nkept - 1 : an->top;
	for (k = 0; k < n; k++) {
		const struct region *r = &R->r[idx[k]], *p = &R->r[r->parent];

		hc_out_printf(o, "  %3u     %5.1f%%     %5.1f%%   %s", k + 1,
		              100.0 * (double)r->in_all / (double)total,
		              100.0 * (double)excl_all(r) / (double)total, r->name);
		if (r->kind != R_PROCEDURE && r->parent != 0)
			hc_out_printf(o, "  (in %s)", p->name);
		hc_out_puts(o, "\n");
	}
	hc_out_printf(o, "  (%u regions hold >= %g%% of the volume; an event counts inclusively for the "
	              "regions of both sides' contexts, exclusively for the detecting side's innermost)\n",
	              R->nkept - 1, 100.0 * REGIONS_MIN_SHARE);
	free(idx);
}

void regions__free(struct an *an)
{
	struct regions *R = an->reg;
	uint32_t k;

	if (!R)
		return;
	for (k = 0; k < R->n; k++) {
		free(R->r[k].name);
		free(R->r[k].file);
		if (R->r[k].keep) {
			agg__free(&R->r[k].mi.acc);
			agg__free(&R->r[k].mx.acc);
			free(R->r[k].mi.cell);
			free(R->r[k].mi.row);
			free(R->r[k].mx.cell);
			free(R->r[k].mx.row);
		}
	}
	for (k = 0; k < R->fnidx.n; k++) {
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
