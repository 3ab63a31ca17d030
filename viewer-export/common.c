/* SPDX-License-Identifier: BSD-3-Clause */
/* common.c — helpers shared by the exporters: error messages, output files
   committed by rename (a reader of report.html never sees half of it), values
   formatted in the database unit, and code pairs merged by source location.
   The database lists a code pair under both of its ends (§5.3 of
   doc/database-format.md); merging keeps one copy of each unordered node pair
   before summing by location, so nothing is counted twice. No signal
   context. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exporter.h"

int vx_error(const char *fmt, ...)
{
	va_list ap;

	fputs(VX_NAME ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int out_open(struct out *o, const char *path)
{
	memset(o, 0, sizeof(*o));
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		free(o->path);
		return vx_error("out of memory");
	}
	o->f = fopen(o->tmp, "w");
	if (!o->f) {
		int e = errno;
		vx_error("%s: cannot write: %s", path, strerror(e));
		free(o->path);
		free(o->tmp);
		return -1;
	}
	return 0;
}

int out_close(struct out *o, bool ok)
{
	int rc = 0;

	if (!o->f)
		return -1;
	if (o->f == stdout) {
		if (fflush(stdout) || ferror(stdout))
			rc = vx_error("writing standard output: %s", strerror(errno));
		return ok ? rc : -1;
	}
	/* flush first: a failed flush says why (ENOSPC, EDQUOT, EIO) */
	if (fflush(o->f) && ok)
		ok = false, rc = vx_error("%s: cannot write: %s (nothing written)", o->path,
		                          strerror(errno));
	if (ferror(o->f) && ok)
		ok = false, rc = vx_error("%s: write error (nothing written)", o->path);
	if (fclose(o->f) && ok)
		ok = false, rc = vx_error("%s: cannot write: %s (nothing written)", o->path,
		                          strerror(errno));
	if (ok && rename(o->tmp, o->path))
		ok = false, rc = vx_error("%s: %s", o->path, strerror(errno));
	if (!ok) {
		unlink(o->tmp);
		rc = -1;
	}
	free(o->path);
	free(o->tmp);
	o->f = NULL;
	return rc;
}

char *fmt_value(char *buf, size_t sz, uint64_t v, const char *unit)
{
	static const char *const ns_units[] = { "ns", "us", "ms", "s" };
	static const char *const sfx[] = { "", "k", "M", "G", "T", "P", "E" };
	double d = (double)v;
	int k = 0;

	if (v == 0) {
		snprintf(buf, sz, "0");
		return buf;
	}
	if (unit && !strcmp(unit, HC_DB_UNIT_NS)) {
		while (d >= 1000.0 && k < 3) {
			d /= 1000.0;
			k++;
		}
		if (k == 0)
			snprintf(buf, sz, "%llu ns", (unsigned long long)v);
		else
			snprintf(buf, sz, "%.*f %s", d < 10 ? 2 : d < 100 ? 1 : 0, d, ns_units[k]);
		return buf;
	}
	while (d >= 1000.0 && k < 6) {
		d /= 1000.0;
		k++;
	}
	if (k == 0)
		snprintf(buf, sz, "%llu", (unsigned long long)v);
	else
		snprintf(buf, sz, "%.*f %s", d < 10 ? 2 : d < 100 ? 1 : 0, d, sfx[k]);
	return buf;
}

char *fmt_pct(char *buf, size_t sz, uint64_t part, uint64_t whole)
{
	if (!whole)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%.1f%%", 100.0 * (double)part / (double)whole);
	return buf;
}

struct node_pair {
	uint64_t lo, hi;
	const struct hc_db_codepair *p;
};

static int cmp_node_pair(const void *a, const void *b)
{
	const struct node_pair *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int cmp_loc_pair(const void *a, const void *b)
{
	const struct loc_pair *x = a, *y = b;
	int c;

	if (x->all != y->all)
		return x->all > y->all ? -1 : 1;
	if ((c = strcmp(x->a, y->a)))
		return c;
	return strcmp(x->b, y->b);
}

static int cmp_loc_key(const void *a, const void *b)
{
	const struct loc_pair *x = a, *y = b;
	int c = strcmp(x->a, y->a);

	return c ? c : strcmp(x->b, y->b);
}

int loc_pairs(const struct hc_db *db, const struct hc_db_codepair *pairs, size_t n,
              struct loc_pair **out, size_t *nout)
{
	struct node_pair *np = calloc(n ? n : 1, sizeof(*np));
	struct loc_pair *lp = calloc(n ? n : 1, sizeof(*lp));
	size_t m = 0, k = 0;

	*out = NULL;
	*nout = 0;
	if (!np || !lp) {
		free(np);
		free(lp);
		return -ENOMEM;
	}
	/* one entry per unordered node pair; an unknown peer (p = 0) stays as is */
	for (size_t i = 0; i < n; i++) {
		np[i].lo = pairs[i].p && pairs[i].p < pairs[i].c ? pairs[i].p : pairs[i].c;
		np[i].hi = pairs[i].p && pairs[i].p < pairs[i].c ? pairs[i].c : pairs[i].p;
		np[i].p = &pairs[i];
	}
	qsort(np, n, sizeof(*np), cmp_node_pair);
	for (size_t i = 0; i < n; i++) {
		const struct hc_db_codepair *p = np[i].p;
		struct loc_pair *l;
		char a[512], b[512];

		if (i && np[i].lo == np[i - 1].lo && np[i].hi == np[i - 1].hi && np[i].hi)
			continue;   /* the same pair seen from its other end */
		hc_db_node_where(db, hc_db_node_find(db, p->c), true, a, sizeof(a));
		if (p->p)
			hc_db_node_where(db, hc_db_node_find(db, p->p), true, b, sizeof(b));
		else
			snprintf(b, sizeof(b), "<unknown peer>");
		l = &lp[m++];
		if (strcmp(a, b) <= 0) {
			memcpy(l->a, a, sizeof(a));
			memcpy(l->b, b, sizeof(b));
		} else {
			memcpy(l->a, b, sizeof(b));
			memcpy(l->b, a, sizeof(a));
		}
		l->all = p->all;
		l->tru = p->tru;
		l->fal = p->fal;
	}
	free(np);
	/* sum by location */
	qsort(lp, m, sizeof(*lp), cmp_loc_key);
	for (size_t i = 0; i < m; i++) {
		if (k && !cmp_loc_key(&lp[k - 1], &lp[i])) {
			lp[k - 1].all += lp[i].all;
			lp[k - 1].tru += lp[i].tru;
			lp[k - 1].fal += lp[i].fal;
			continue;
		}
		if (k != i)
			lp[k] = lp[i];
		k++;
	}
	qsort(lp, k, sizeof(*lp), cmp_loc_pair);
	*out = lp;
	*nout = k;
	return 0;
}

static const uint64_t *top_vol;   /* qsort has no context argument; no threads here */

static int cmp_top(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (top_vol[x] != top_vol[y])
		return top_vol[x] > top_vol[y] ? -1 : 1;
	return (x > y) - (x < y);
}

uint32_t vx_top_indexes(const struct hc_db_matrix *m, uint32_t k, uint32_t **idx, uint64_t **vol)
{
	uint32_t *all;

	*idx = NULL;
	*vol = malloc((size_t)m->n * sizeof(**vol));
	all = malloc((size_t)m->n * sizeof(*all));
	if (!*vol || !all) {
		free(*vol);
		free(all);
		*vol = NULL;
		return 0;
	}
	hc_db_matrix_volumes(m, *vol);
	for (uint32_t i = 0; i < m->n; i++)
		all[i] = i;
	top_vol = *vol;
	qsort(all, m->n, sizeof(*all), cmp_top);
	top_vol = NULL;
	*idx = all;
	return k < m->n ? k : m->n;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

uint64_t vx_covered(const struct hc_db_matrix *m, const uint32_t *idx, uint32_t n)
{
	uint32_t *s = malloc((n ? n : 1) * sizeof(*s));
	uint64_t sum = 0;

	if (!s)
		return 0;
	memcpy(s, idx, (size_t)n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_u32);
	for (size_t c = 0; c < m->ncells; c++)
		if (bsearch(&m->cells[c].i, s, n, sizeof(*s), cmp_u32) &&
		    bsearch(&m->cells[c].j, s, n, sizeof(*s), cmp_u32))
			sum += m->cells[c].v;
	free(s);
	return sum;
}
