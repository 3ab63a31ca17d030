/* SPDX-License-Identifier: BSD-3-Clause */
/* common.c — what the reports share: values formatted in the database unit,
   the indexes of a level with the most communication, and code pairs merged
   by source location. The database lists a code pair under both of its ends
   (section 5.3 of doc/database-format.md); merging keeps one copy of each
   unordered node pair before summing by location, so nothing is counted
   twice. A location is (file, line, innermost procedure): two statements on
   one line of two inlined copies of different functions stay apart, and
   files with the same basename in different directories too (the choice is
   explained in doc/viewer-export.md, "Code pairs"). A statement of a C
   library copy routine or of a system header (std::atomic's load inlined)
   is located at the program's call site, "via" the library function. No
   signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

char *hc_report_value(char *buf, size_t sz, uint64_t v, const char *unit)
{
	static const char *const ns_units[] = { "ns", "us", "ms", "s" };
	static const char *const sfx[] = { "", "k", "M", "G", "T", "P", "E" };
	double d = (double)v;
	int k = 0;

	if (v == 0) {
		snprintf(buf, sz, "0");
		return buf;
	}
	/* ns scale to s at most; counts to exa; three significant digits */
	bool ns = unit && !strcmp(unit, HC_DB_UNIT_NS);
	const char *const *names = ns ? ns_units : sfx;

	while (d >= 1000.0 && k < (ns ? 3 : 6)) {
		d /= 1000.0;
		k++;
	}
	if (k == 0)
		snprintf(buf, sz, ns ? "%llu ns" : "%llu", (unsigned long long)v);
	else
		snprintf(buf, sz, "%.*f %s", d < 10 ? 2 : d < 100 ? 1 : 0, d, names[k]);
	return buf;
}

char *hc_report_pct(char *buf, size_t sz, uint64_t part, uint64_t whole)
{
	if (!whole)
		snprintf(buf, sz, "-");
	else
		snprintf(buf, sz, "%.1f%%", 100.0 * (double)part / (double)whole);
	return buf;
}

/* The location of a node: (file id, line, procedure id); the file and
   procedure tables hold each path and procedure once, so equal ids are equal
   locations. An unknown peer (no node) sorts after every location. via: the
   C library's copy routine the access ran in, the location being its
   caller's call site (copy_routine); UINT64_MAX when none. */
struct loc {
	uint64_t f, l, proc, via;
	const struct hc_db_node *n;
};

static const struct hc_db_node *parent_of(const struct hc_db *db, const struct hc_db_node *n)
{
	return n->parent == HC_DB_NONE ? NULL : &db->nodes[n->parent];
}

static const struct hc_db_node *frame_of(const struct hc_db *db, const struct hc_db_node *n)
{
	while (n && n->type != HC_DB_N_PF && n->type != HC_DB_N_A)
		n = parent_of(db, n);
	return n;
}

/* A frame of the C library's memory and string routines (memcpy, memmove,
   memset, strlen... and glibc's CPU-specific variants such as
   __memmove_avx_unaligned_erms): the data they touch is their caller's,
   and the line to change is the caller's call (pigz: compressed output
   copied by memcpy into pooled buffers read "memcpy <-> memcpy"; exact
   mode's interceptors name the caller too). */
static bool copy_routine(const struct hc_db *db, const struct hc_db_node *fr)
{
	static const char *const fam[] = { "mem", "str", "stp", "wmem", "wcs", "bcmp", "bzero" };
	const struct hc_db_proc *p = fr->type == HC_DB_N_PF ? hc_db_procedure(db, fr->proc) : NULL;
	const char *lm = p ? hc_db_lm_name(db, fr->lm) : NULL, *base, *n;

	if (!p || !p->n || !lm)
		return false;
	base = strrchr(lm, '/') ? strrchr(lm, '/') + 1 : lm;
	if (strncmp(base, "libc.so", 7) && strncmp(base, "libc-", 5))
		return false;
	for (n = p->n; *n == '_'; n++)
		;
	for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++)
		if (!strncmp(n, fam[k], strlen(fam[k])))
			return true;
	return false;
}

/* A file of the system's headers (libstdc++'s <atomic>, <vector>, glibc's
   inline functions): code the program calls, not code it can change. */
static bool system_header(const struct hc_db *db, uint64_t f)
{
	const char *path = f ? hc_db_file_name(db, f) : NULL;
	char norm[512];
	size_t n = 0;

	if (!path || path[0] != '/')
		return false;
	/* lexically, as clang records it: "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/
	   ../../../../include/c++/12/bits/atomic_base.h" is /usr/include/c++/... */
	for (const char *p = path; *p;) {
		const char *e = strchr(p + 1, '/');
		size_t len = e ? (size_t)(e - p) : strlen(p);   /* "/name" */
		if (len == 3 && !strncmp(p, "/..", 3)) {
			while (n && norm[n - 1] != '/')
				n--;
			if (n)
				n--;
		} else if (!(len == 2 && !strncmp(p, "/.", 2)) && len > 1) {
			if (n + len >= sizeof(norm))
				return false;
			memcpy(norm + n, p, len);
			n += len;
		}
		p += len;
	}
	norm[n] = '\0';
	return !strncmp(norm, "/usr/include/", 13) || !strncmp(norm, "/usr/lib/gcc/", 13) ||
	       !strncmp(norm, "/usr/local/include/", 19);
}

/* The call site in the program's own code that led to n's system-header
   statement: up the inlined (A: its f/l is the call site in its caller) and
   called (PF under a C) frames while the site is in a system header. *fr
   gets the frame the site is in; NULL when no such site is within 16 frames. */
static const struct hc_db_node *user_site(const struct hc_db *db, const struct hc_db_node *n,
                                          const struct hc_db_node **fr, uint64_t *f, uint64_t *l)
{
	const struct hc_db_node *cur = frame_of(db, n);

	for (int depth = 0; cur && depth < 16; depth++) {
		const struct hc_db_node *site = cur->type == HC_DB_N_A ? cur : parent_of(db, cur);
		if (!site || (site->type != HC_DB_N_A && site->type != HC_DB_N_C))
			return NULL;
		*fr = frame_of(db, parent_of(db, site));
		*f = site->f;
		*l = site->l;
		if (!system_header(db, site->f))
			return *fr ? site : NULL;
		cur = *fr;
	}
	return NULL;
}

static struct loc loc_of(const struct hc_db *db, const struct hc_db_node *n)
{
	const struct hc_db_node *fr = frame_of(db, n), *call, *ufr = NULL;
	uint64_t via = UINT64_MAX, f, l;

	if (!n)
		return (struct loc){ UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, NULL };
	if (fr && copy_routine(db, fr) && (call = parent_of(db, fr)) && call->type == HC_DB_N_C) {
		via = fr->proc;
		n = call;
		fr = frame_of(db, call);
	} else if (fr && system_header(db, n->f) && user_site(db, n, &ufr, &f, &l)) {
		/* std::atomic's load inlined into the program: the program's line,
		   via the library function (SPSCQueue's index loads and stores
		   would otherwise all read "atomic_base.h:488") */
		return (struct loc){ f, l, ufr->proc, fr->proc, n };
	}
	return (struct loc){ n->f, n->l, fr ? fr->proc : UINT64_MAX, via, n };
}

static int cmp_loc(const struct loc *x, const struct loc *y)
{
	if (x->f != y->f)
		return x->f < y->f ? -1 : 1;
	if (x->l != y->l)
		return x->l < y->l ? -1 : 1;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	return x->via < y->via ? -1 : x->via > y->via;
}

struct node_pair {
	uint64_t lo, hi;
	const struct hc_db_codepair *p;
};

struct loc_row {
	struct loc a, b;
	uint64_t all, tru, fal;
	unsigned wa, wb;   /* HC_REPORT_IN_REGION / _OUT_REGION of each end */
};

/* Where n's context ran: in an OpenMP parallel region when a frame up from
   it is an outlined region (the analyzer names it "f [parallel region at
   ...]", names.c), else outside every region; 0 for no node. */
static unsigned region_of(const struct hc_db *db, const struct hc_db_node *n)
{
	if (!n)
		return 0;
	for (const struct hc_db_node *fr = frame_of(db, n); fr; fr = frame_of(db, parent_of(db, fr))) {
		const struct hc_db_proc *p = hc_db_procedure(db, fr->proc);
		if (p && p->n && strstr(p->n, "[parallel region"))
			return HC_REPORT_IN_REGION;
	}
	return HC_REPORT_OUT_REGION;
}

static int cmp_node_pair(const void *a, const void *b)
{
	const struct node_pair *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

static int cmp_loc_key(const void *a, const void *b)
{
	const struct loc_row *x = a, *y = b;
	int c = cmp_loc(&x->a, &y->a);

	return c ? c : cmp_loc(&x->b, &y->b);
}

static int cmp_loc_row(const void *a, const void *b)
{
	const struct loc_row *x = a, *y = b;

	if (x->all != y->all)
		return x->all > y->all ? -1 : 1;
	return cmp_loc_key(a, b);
}

/* "file.c:45 (worker)", the procedure alone when the file is unknown;
   " via memcpy" after it when the access ran in a C library copy routine
   called there. */
static void loc_label(const struct hc_db *db, const struct loc *l, char *buf, size_t sz)
{
	const struct hc_db_proc *p = l->proc == UINT64_MAX ? NULL : hc_db_procedure(db, l->proc);
	const struct hc_db_proc *v = l->via == UINT64_MAX ? NULL : hc_db_procedure(db, l->via);
	const char *proc = p ? p->n : "?";
	const char *f = l->f ? hc_db_file_name(db, l->f) : NULL;
	char via[160] = "";

	if (!l->n) {
		snprintf(buf, sz, "%s", HC_REPORT_UNKNOWN_PEER);
		return;
	}
	if (v && v->n)
		snprintf(via, sizeof(via), " via %s", v->n);
	if (!f) {
		snprintf(buf, sz, "%s%s", proc, via);
		return;
	}
	if (strrchr(f, '/') && strrchr(f, '/')[1])
		f = strrchr(f, '/') + 1;
	snprintf(buf, sz, "%s:%llu (%s)%s", f, (unsigned long long)l->l, proc, via);
}

/* The pairs merged by location (one row per unordered location pair), in
   cmp_loc_row order: *rows malloc'd, *nrows of them. */
static int merge_rows(const struct hc_db *db, const struct hc_db_codepair *pairs, size_t n,
                      struct loc_row **rows, size_t *nrows)
{
	struct node_pair *np = calloc(n ? n : 1, sizeof(*np));
	struct loc_row *lr = calloc(n ? n : 1, sizeof(*lr));
	size_t m = 0, k = 0;

	*rows = NULL;
	*nrows = 0;
	if (!np || !lr) {
		free(np);
		free(lr);
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
		const struct hc_db_node *cn, *pn;
		struct loc a, b;

		if (i && np[i].lo == np[i - 1].lo && np[i].hi == np[i - 1].hi && np[i].hi)
			continue;   /* the same pair seen from its other end */
		cn = hc_db_node_find(db, p->c);
		pn = p->p ? hc_db_node_find(db, p->p) : NULL;
		a = loc_of(db, cn);
		b = loc_of(db, pn);
		if (cmp_loc(&a, &b) <= 0)
			lr[m] = (struct loc_row){ a, b, p->all, p->tru, p->fal, region_of(db, cn), region_of(db, pn) };
		else
			lr[m] = (struct loc_row){ b, a, p->all, p->tru, p->fal, region_of(db, pn), region_of(db, cn) };
		m++;
	}
	free(np);
	/* sum by location */
	if (m > 1)
		qsort(lr, m, sizeof(*lr), cmp_loc_key);
	for (size_t i = 0; i < m; i++) {
		if (k && !cmp_loc_key(&lr[k - 1], &lr[i])) {
			lr[k - 1].all += lr[i].all;
			lr[k - 1].tru += lr[i].tru;
			lr[k - 1].fal += lr[i].fal;
			lr[k - 1].wa |= lr[i].wa;
			lr[k - 1].wb |= lr[i].wb;
			continue;
		}
		if (k != i)
			lr[k] = lr[i];
		k++;
	}
	if (k > 1)
		qsort(lr, k, sizeof(*lr), cmp_loc_row);
	*rows = lr;
	*nrows = k;
	return 0;
}

static void label_row(const struct hc_db *db, const struct loc_row *r, struct hc_report_loc_pair *p)
{
	loc_label(db, &r->a, p->a, sizeof(p->a));
	loc_label(db, &r->b, p->b, sizeof(p->b));
	p->all = r->all;
	p->tru = r->tru;
	p->fal = r->fal;
	p->wa = r->wa;
	p->wb = r->wb;
}

int hc_report_loc_pairs(const struct hc_db *db, const struct hc_db_codepair *pairs, size_t n,
                        size_t max, struct hc_report_loc_pair **out, size_t *nout, size_t *total)
{
	struct hc_report_loc_pair *lp;
	struct loc_row *lr;
	size_t k;

	*out = NULL;
	*nout = 0;
	if (total)
		*total = 0;
	if (merge_rows(db, pairs, n, &lr, &k))
		return -ENOMEM;
	if (total)
		*total = k;
	if (max && k > max)
		k = max;
	lp = calloc(k ? k : 1, sizeof(*lp));
	if (!lp) {
		free(lr);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k; i++)
		label_row(db, &lr[i], &lp[i]);
	free(lr);
	*out = lp;
	*nout = k;
	return 0;
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

/* By true volume descending, then the first label, then the merged order:
   the order a stable sort of every labelled row would give. */
static int cmp_true_idx(const void *a, const void *b, void *arg)
{
	const struct hc_report_loc_pair *lp = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c;

	if (lp[x].tru != lp[y].tru)
		return lp[x].tru > lp[y].tru ? -1 : 1;
	if ((c = strcmp(lp[x].a, lp[y].a)))
		return c;
	return (x > y) - (x < y);
}

int hc_report_loc_pairs_true(const struct hc_db *db, const struct hc_db_codepair *pairs, size_t n,
                             size_t max, struct hc_report_loc_pair **out, size_t *nout)
{
	struct hc_report_loc_pair *lp = NULL, *sorted = NULL;
	struct loc_row *lr;
	size_t k, m = 0, c = 0, *idx = NULL;
	uint64_t cut = 1;

	*out = NULL;
	*nout = 0;
	if (merge_rows(db, pairs, n, &lr, &k))
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)   /* true sharing only, merged order kept */
		if (lr[i].tru)
			lr[m++] = lr[i];
	if (max && m > max) {
		/* rows below the max-th largest true volume cannot make the cut:
		   only the others are labelled (1 KB each) */
		uint64_t *t = malloc(m * sizeof(*t));
		if (!t) {
			free(lr);
			return -ENOMEM;
		}
		for (size_t i = 0; i < m; i++)
			t[i] = lr[i].tru;
		qsort(t, m, sizeof(*t), cmp_u64_desc);
		cut = t[max - 1];
		free(t);
	}
	for (size_t i = 0; i < m; i++)
		c += lr[i].tru >= cut;
	lp = calloc(c ? c : 1, sizeof(*lp));
	idx = malloc((c ? c : 1) * sizeof(*idx));
	sorted = calloc(c ? c : 1, sizeof(*sorted));
	if (!lp || !idx || !sorted) {
		free(lp);
		free(idx);
		free(sorted);
		free(lr);
		return -ENOMEM;
	}
	for (size_t i = 0, j = 0; i < m; i++)
		if (lr[i].tru >= cut) {
			label_row(db, &lr[i], &lp[j]);
			idx[j] = j;
			j++;
		}
	free(lr);
	if (c > 1)
		qsort_r(idx, c, sizeof(*idx), cmp_true_idx, lp);
	if (max && c > max)
		c = max;
	for (size_t i = 0; i < c; i++)
		sorted[i] = lp[idx[i]];
	free(lp);
	free(idx);
	*out = sorted;
	*nout = c;
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

uint32_t hc_report_top_indexes(const struct hc_db_matrix *m, uint32_t k, uint32_t **idx,
                               uint64_t **vol)
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

uint64_t hc_report_covered(const struct hc_db_matrix *m, const uint32_t *idx, uint32_t n)
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
