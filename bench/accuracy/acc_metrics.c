/* SPDX-License-Identifier: BSD-3-Clause */
/* acc_metrics.c — the accuracy suite's comparison metrics (acc_metrics.h
   has the definitions): precision and recall over thread pairs, the false
   fraction, the top false-sharing object, code pairs aggregated by source
   location, and the one CSV record splitter the comparator needs. Pure
   functions on data in memory; unit-tested in tests/unit/accuracy. */
#include "acc_metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

double acc_cell(const struct acc_matrix *m, int i, int j)
{
	if (i < 0 || j < 0 || i >= m->n || j >= m->n)
		return 0;
	return m->v[(size_t)i * (size_t)m->n + (size_t)j];
}

double acc_total(const struct acc_matrix *m)
{
	double s = 0;

	for (int i = 0; i < m->n; i++)
		for (int j = i + 1; j < m->n; j++)
			s += acc_cell(m, i, j);
	return s;
}

static int maxn(const struct acc_matrix *a, const struct acc_matrix *b)
{
	return a->n > b->n ? a->n : b->n;
}

int acc_precision(const struct acc_matrix *sampled, const struct acc_matrix *exact,
		  double share, double *out)
{
	double st = acc_total(sampled), et = acc_total(exact), good = 0;
	int n = maxn(sampled, exact);

	if (!(st > 0))
		return -EDOM;
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (et > 0 && acc_cell(exact, i, j) >= share * et)
				good += acc_cell(sampled, i, j);
	*out = good / st;
	return 0;
}

int acc_recall(const struct acc_matrix *sampled, const struct acc_matrix *exact,
	       double share, double *out, int *pairs, int *found)
{
	double et = acc_total(exact);
	int n = maxn(sampled, exact), np = 0, nf = 0;

	if (et > 0)
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++)
				if (acc_cell(exact, i, j) >= share * et) {
					np++;
					nf += acc_cell(sampled, i, j) > 0;
				}
	*pairs = np;
	*found = nf;
	if (!np)
		return -EDOM;
	*out = (double)nf / np;
	return 0;
}

int acc_negligible(double exact_total)
{
	return exact_total < ACC_MIN_EXACT;
}

int acc_false_fraction(double all_total, double false_total, double *out)
{
	if (!(all_total > 0))
		return -EDOM;
	*out = false_total / all_total;
	return 0;
}

int acc_top_fs(const struct acc_object *rows, size_t n, double ff)
{
	if (!(ff >= ACC_FS_MIN_FRACTION))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (rows[i].fal > 0 && !rows[i].hidden)
			return (int)i;
	return -1;
}

int acc_hidden_fs(const struct acc_object *rows, size_t n, double ff)
{
	if (!(ff >= ACC_FS_MIN_FRACTION))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!(rows[i].fal > 0))
			continue;
		if (!rows[i].hidden)
			return -1;
		return (int)i;
	}
	return -1;
}

static int streq(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* A heap object's name without the variable its block was assigned to
   ("recs = calloc(...) at f.c:36 in main" -> "calloc(...) at f.c:36 in
   main"): hpcprof-comm reads that variable from the source line, which a
   database analyzed where the source is gone lacks. The allocation site
   and its context still name the object. */
static const char *site_name(const char *name)
{
	const char *eq = strstr(name, " = "), *paren = strchr(name, '(');

	return eq && (!paren || eq < paren) ? eq + 3 : name;
}

int acc_same_object(const struct acc_object *a, int ia, const struct acc_object *b, int ib)
{
	if (ia < 0 || ib < 0)
		return ia < 0 && ib < 0;
	if (!streq(a[ia].kind, b[ib].kind))
		return 0;
	if (streq(a[ia].kind, "heap"))
		return streq(site_name(a[ia].name), site_name(b[ib].name));
	return streq(a[ia].name, b[ib].name);
}

static int loc_cmp(const struct acc_loc *x, const struct acc_loc *y)
{
	int c = strcmp(x->func, y->func);
	return c ? c : strcmp(x->where, y->where);
}

int acc_cpairs_add(struct acc_cpairs *s, const struct acc_loc *x, const struct acc_loc *y, double v)
{
	const struct acc_loc *a = x, *b = y;
	struct acc_cpair *p;

	if (loc_cmp(a, b) > 0) {
		a = y;
		b = x;
	}
	for (size_t i = 0; i < s->n; i++)
		if (!loc_cmp(&s->p[i].a, a) && !loc_cmp(&s->p[i].b, b)) {
			s->p[i].v += v;
			return 0;
		}
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct acc_cpair *np = realloc(s->p, cap * sizeof *np);
		if (!np)
			return -ENOMEM;
		s->p = np;
		s->cap = cap;
	}
	p = &s->p[s->n];
	p->a.func = strdup(a->func);
	p->a.where = strdup(a->where);
	p->b.func = strdup(b->func);
	p->b.where = strdup(b->where);
	p->v = v;
	if (!p->a.func || !p->a.where || !p->b.func || !p->b.where) {
		free(p->a.func);
		free(p->a.where);
		free(p->b.func);
		free(p->b.where);
		return -ENOMEM;
	}
	s->n++;
	return 0;
}

long acc_cpairs_top(const struct acc_cpairs *s)
{
	long best = -1;

	for (size_t i = 0; i < s->n; i++)
		if (best < 0 || s->p[i].v > s->p[best].v)
			best = (long)i;
	return best;
}

void acc_cpairs_free(struct acc_cpairs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->p[i].a.func);
		free(s->p[i].a.where);
		free(s->p[i].b.func);
		free(s->p[i].b.where);
	}
	free(s->p);
	s->p = NULL;
	s->n = s->cap = 0;
}

enum acc_agree acc_cpair_agree(const struct acc_cpair *x, const struct acc_cpair *y)
{
	if (!x || !y)
		return ACC_AGREE_NA;
	if (!loc_cmp(&x->a, &y->a) && !loc_cmp(&x->b, &y->b))
		return ACC_AGREE_LINE;
	/* functions only: compare the unordered pairs of function names */
	if ((streq(x->a.func, y->a.func) && streq(x->b.func, y->b.func)) ||
	    (streq(x->a.func, y->b.func) && streq(x->b.func, y->a.func)))
		return ACC_AGREE_FUNC;
	return ACC_AGREE_NO;
}

enum acc_agree acc_cpairs_agree(const struct acc_cpairs *s, const struct acc_cpairs *e, double tie)
{
	long ts = acc_cpairs_top(s), te = acc_cpairs_top(e);
	enum acc_agree best;

	if (ts < 0 || te < 0)
		return ACC_AGREE_NA;
	best = acc_cpair_agree(&s->p[ts], &e->p[te]);
	for (size_t i = 0; i < e->n && best != ACC_AGREE_LINE; i++) {
		enum acc_agree a;
		if ((long)i == te || !(e->p[i].v >= (1 - tie) * e->p[te].v))
			continue;
		a = acc_cpair_agree(&s->p[ts], &e->p[i]);
		if (a > best)
			best = a;
	}
	return best;
}

const char *acc_agree_name(enum acc_agree a)
{
	switch (a) {
	case ACC_AGREE_LINE: return "yes";
	case ACC_AGREE_FUNC: return "func";
	case ACC_AGREE_NO: return "no";
	default: return "-";
	}
}

int acc_csv_split(char *line, char **fields, int max)
{
	int n = 0;
	char *r = line, *w;

	for (;;) {
		if (n == max)
			return -EINVAL;
		if (*r == '"') {
			w = r;
			fields[n++] = w;
			r++;
			for (;;) {
				if (!*r)
					return -EINVAL;         /* unterminated quote */
				if (*r == '"') {
					if (r[1] == '"') {
						*w++ = '"';
						r += 2;
						continue;
					}
					r++;
					break;
				}
				*w++ = *r++;
			}
			if (*r && *r != ',')
				return -EINVAL;                 /* text after the closing quote */
			*w = '\0';
		} else {
			fields[n++] = r;
			while (*r && *r != ',') {
				if (*r == '"')
					return -EINVAL;
				r++;
			}
		}
		if (!*r)
			return n;
		*r++ = '\0';
	}
}

int acc_matrix_add(struct acc_matrix *dst, const struct acc_matrix *src, double w)
{
	if (src->n > dst->n) {
		size_t n = (size_t)src->n;
		double *v = calloc(n * n, sizeof *v);

		if (!v)
			return -ENOMEM;
		for (int i = 0; i < dst->n; i++)
			for (int j = 0; j < dst->n; j++)
				v[(size_t)i * n + (size_t)j] = acc_cell(dst, i, j);
		free(dst->v);
		dst->v = v;
		dst->n = src->n;
	}
	for (int i = 0; i < src->n; i++)
		for (int j = 0; j < src->n; j++)
			dst->v[(size_t)i * (size_t)dst->n + (size_t)j] += w * acc_cell(src, i, j);
	return 0;
}

int acc_objects_add(struct acc_object **rows, size_t *n, size_t *cap,
		    const struct acc_object *src, size_t ns, double w)
{
	for (size_t k = 0; k < ns; k++) {
		const struct acc_object *o = &src[k];
		struct acc_object *r = NULL;

		for (size_t i = 0; i < *n && !r; i++)
			if (streq((*rows)[i].kind, o->kind) && streq((*rows)[i].name, o->name))
				r = &(*rows)[i];
		if (!r) {
			if (*n == *cap) {
				size_t c = *cap ? 2 * *cap : 64;
				struct acc_object *p = realloc(*rows, c * sizeof *p);

				if (!p)
					return -ENOMEM;
				*rows = p;
				*cap = c;
			}
			r = &(*rows)[(*n)++];
			r->kind = strdup(o->kind);
			r->name = strdup(o->name);
			r->all = r->fal = 0;
			r->hidden = 0;
			if (!r->kind || !r->name)
				return -ENOMEM;
		}
		/* hidden: the runs that gave it false volume all say so */
		if (o->fal > 0 && o->hidden && !(r->fal > 0))
			r->hidden = 1;
		else if (o->fal > 0 && !o->hidden)
			r->hidden = 0;
		r->all += w * o->all;
		r->fal += w * o->fal;
	}
	return 0;
}

static int by_false_desc(const void *x, const void *y)
{
	const struct acc_object *a = x, *b = y;

	if (a->fal != b->fal)
		return a->fal > b->fal ? -1 : 1;
	return 0;
}

void acc_objects_rank(struct acc_object *rows, size_t n)
{
	/* insertion sort: stable, and the rows are few (one per object) */
	for (size_t i = 1; i < n; i++) {
		struct acc_object t = rows[i];
		size_t j = i;

		for (; j > 0 && by_false_desc(&rows[j - 1], &t) > 0; j--)
			rows[j] = rows[j - 1];
		rows[j] = t;
	}
}

int acc_cpairs_merge(struct acc_cpairs *dst, const struct acc_cpairs *src, double w)
{
	for (size_t k = 0; k < src->n; k++)
		if (acc_cpairs_add(dst, &src->p[k].a, &src->p[k].b, w * src->p[k].v) < 0)
			return -ENOMEM;
	return 0;
}
