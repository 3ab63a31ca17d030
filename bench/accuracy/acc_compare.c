/* SPDX-License-Identifier: BSD-3-Clause */
/* acc_compare.c — the accuracy suite's comparator: reads a sampled and an
   exact hpcprof-comm database (the stable files of doc/database-format.md:
   matrices/thread-all.csv and thread-false.csv, objects.csv, the code pairs
   and calling-context tree of experiment.xml, the unit in database.xml) and
   prints, one "key<TAB>value" line each, how well the sampled run matches
   the exact one: precision, recall, false-fraction error, whether the top
   false-sharing object and the top code pair agree (metrics and their
   definitions: acc_metrics.h). "-" stands for undefined. With -v it also
   prints, per database, its largest thread pairs, top objects and top code
   pairs, for a human.

     acc_compare [-v] SAMPLED-DB EXACT-DB [EXACT-DB ...]
     acc_compare -d DB      (describe one database, when there is no exact one)

   With several exact databases (runs of one configuration: run.sh --refs)
   the reference is their mean shape, each run one vote (acc_metrics.h,
   acc_matrix_add); exact_runs says how many.

   Exit 0 with the figures; 1 when a database cannot be read (the message
   names the file and what is wrong); 2 on a usage error. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "acc_metrics.h"

#define MAXF 16

struct db {
	const char *dir;
	char unit[32];
	struct acc_matrix all, fal;
	struct acc_object *obj;
	size_t nobj;
	struct acc_cpairs cp;
	double cp_hidden;       /* code-pair volume exact mode cannot see (left out of cp) */
	struct tree *tree;      /* experiment.xml's nodes (for objects.xml) */
};

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("acc_compare: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static char *path_of(const char *dir, const char *rel)
{
	size_t n = strlen(dir) + strlen(rel) + 2;
	char *p = malloc(n);

	if (!p)
		die("out of memory");
	snprintf(p, n, "%s/%s", dir, rel);
	return p;
}

/* reads a whole line (any length) without its line end; NULL at EOF */
static char *read_line(FILE *f, char **buf, size_t *cap)
{
	ssize_t n = getline(buf, cap, f);

	if (n < 0)
		return NULL;
	while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
		(*buf)[--n] = '\0';
	return *buf;
}

static double number(const char *s, const char *file, long line)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || v < 0)
		die("%s: line %ld: '%s' is not a non-negative number", file, line, s);
	return v;
}

static void matrix_set(struct acc_matrix *m, int i, int j, double v, const char *file, long line)
{
	if (i < 0 || j < 0 || i >= m->n || j >= m->n)
		die("%s: line %ld: cell (%d, %d) outside the %dx%d matrix", file, line, i, j, m->n, m->n);
	m->v[(size_t)i * (size_t)m->n + (size_t)j] = v;
}

/* matrices/thread-KIND.csv, dense or sparse (doc/database-format.md §2) */
static void read_matrix(const char *dir, const char *kind, struct acc_matrix *m)
{
	char rel[64], *file, *buf = NULL, *l;
	size_t cap = 0;
	long line = 1;
	FILE *f;

	snprintf(rel, sizeof rel, "matrices/thread-%s.csv", kind);
	file = path_of(dir, rel);
	f = fopen(file, "r");
	if (!f)
		die("%s: %s", file, strerror(errno));
	if (!(l = read_line(f, &buf, &cap)))
		die("%s: empty file, expected a matrix header", file);
	if (!strcmp(l, "row,column,value")) {
		/* sparse: the dimension is the largest index + 1 (the rest is 0) */
		long pos = ftell(f);
		int n = 1;
		while ((l = read_line(f, &buf, &cap))) {
			int i, j;
			if (sscanf(l, "%d,%d,", &i, &j) != 2 || i < 0 || j < 0)
				die("%s: line %ld: expected 'row,column,value'", file, line + 1);
			if (i + 1 > n) n = i + 1;
			if (j + 1 > n) n = j + 1;
			line++;
		}
		if (n > 65536)
			die("%s: %d threads: too many for a dense comparison", file, n);
		m->n = n;
		m->v = calloc((size_t)n * (size_t)n, sizeof(double));
		if (!m->v)
			die("out of memory");
		fseek(f, pos, SEEK_SET);
		line = 1;
		while ((l = read_line(f, &buf, &cap))) {
			char *fld[4];
			line++;
			if (acc_csv_split(l, fld, 4) != 3)
				die("%s: line %ld: expected 'row,column,value'", file, line);
			int i = atoi(fld[0]), j = atoi(fld[1]);
			double v = number(fld[2], file, line);
			matrix_set(m, i, j, v, file, line);
			matrix_set(m, j, i, v, file, line);
		}
	} else {
		/* dense: ",0,1,...,N-1" then N rows "i,v..." */
		int n = 0;
		for (char *p = l; *p; p++)
			n += *p == ',';
		if (n < 1 || l[0] != ',')
			die("%s: line 1: expected the header ',0,1,...' or 'row,column,value'", file);
		m->n = n;
		m->v = calloc((size_t)n * (size_t)n, sizeof(double));
		if (!m->v)
			die("out of memory");
		char **fld = malloc(sizeof(char *) * (size_t)(n + 2));
		if (!fld)
			die("out of memory");
		for (int i = 0; i < n; i++) {
			line++;
			if (!(l = read_line(f, &buf, &cap)))
				die("%s: %d rows, expected %d", file, i, n);
			if (acc_csv_split(l, fld, n + 2) != n + 1 || atoi(fld[0]) != i)
				die("%s: line %ld: expected row %d with %d values", file, line, i, n);
			for (int j = 0; j < n; j++)
				matrix_set(m, i, j, number(fld[j + 1], file, line), file, line);
		}
		free(fld);
	}
	free(buf);
	fclose(f);
	free(file);
}

/* objects.csv: i,kind,name,module,context,size,blocks,all,true,false,fields */
static void read_objects(const char *dir, struct db *d)
{
	char *file = path_of(dir, "objects.csv"), *buf = NULL, *l, *fld[MAXF];
	size_t cap = 0, alloc = 0;
	long line = 1;
	FILE *f = fopen(file, "r");

	if (!f)
		die("%s: %s", file, strerror(errno));
	if (!(l = read_line(f, &buf, &cap)) ||
	    strcmp(l, "i,kind,name,module,context,size,blocks,all,true,false,fields"))
		die("%s: line 1: expected the header "
		    "'i,kind,name,module,context,size,blocks,all,true,false,fields'", file);
	while ((l = read_line(f, &buf, &cap))) {
		line++;
		if (acc_csv_split(l, fld, MAXF) != 11)
			die("%s: line %ld: expected 11 fields", file, line);
		if (d->nobj == alloc) {
			alloc = alloc ? 2 * alloc : 64;
			d->obj = realloc(d->obj, alloc * sizeof *d->obj);
			if (!d->obj)
				die("out of memory");
		}
		struct acc_object *o = &d->obj[d->nobj++];
		o->kind = strdup(fld[1]);
		o->name = strdup(fld[2]);
		o->all = number(fld[7], file, line);
		o->fal = number(fld[9], file, line);
		o->hidden = 0;
		if (!o->kind || !o->name)
			die("out of memory");
	}
	free(buf);
	fclose(f);
	free(file);
}

static int is(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static long attr_long(xmlNode *n, const char *a, long dflt)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)a);
	long r = dflt;

	if (v) {
		r = strtol((const char *)v, NULL, 10);
		xmlFree(v);
	}
	return r;
}

static double attr_double(xmlNode *n, const char *a)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)a);
	double r = 0;

	if (v) {
		r = strtod((const char *)v, NULL);
		xmlFree(v);
	}
	return r;
}

/* id-indexed tables of experiment.xml */
struct names {
	char **s;
	long n;
};

static void names_set(struct names *t, long i, xmlNode *n, int base)
{
	xmlChar *v;

	if (i < 0 || i > 10000000)
		return;
	if (i >= t->n) {
		long nn = i + 1024;
		t->s = realloc(t->s, (size_t)nn * sizeof(char *));
		if (!t->s)
			die("out of memory");
		memset(t->s + t->n, 0, (size_t)(nn - t->n) * sizeof(char *));
		t->n = nn;
	}
	v = xmlGetProp(n, (const xmlChar *)"n");
	if (v) {
		const char *s = (const char *)v, *slash = strrchr(s, '/');
		free(t->s[i]);
		t->s[i] = strdup(base && slash ? slash + 1 : s);
		xmlFree(v);
	}
}

static const char *names_get(const struct names *t, long i)
{
	return i >= 0 && i < t->n && t->s[i] ? t->s[i] : "?";
}

struct node {
	long func;      /* procedure id, -1 unknown */
	long file, line;
	long lm;        /* load module of its procedure frame, -1 unknown */
	long parent;    /* the enclosing node's id, -1 none */
};

struct tree {
	struct node *n;
	long cap;
	struct names procs, files;
	long exe_lm;    /* the module of `main`: the code exact mode instruments; -1 unknown */
};

/* whether exact mode could have seen the accesses of node id: code of the
   program's executable (the module of `main`; anything when that is not
   known); an unknown node is given the benefit of the doubt */
static int visible(const struct tree *t, long id)
{
	if (t->exe_lm < 0 || id < 0 || id >= t->cap || t->n[id].lm < 0)
		return 1;
	return t->n[id].lm == t->exe_lm;
}

/* A node in libc's memcpy, memmove or memset: exact mode counts those
   copies through its own wrappers, at the calling context (doc/exact.md),
   so the sampled side's node stands for its nearest visible ancestor, the
   program's call site (halo_bar -O2's halo copy: `halo_bar.c:14 via
   __memcpy_avx512_unaligned_erms`). Any other hidden node stays itself. */
static long as_exact_sees(const struct tree *t, long id)
{
	const char *fn;

	if (visible(t, id))
		return id;
	fn = names_get(&t->procs, t->n[id].func);
	if (!strstr(fn, "memcpy") && !strstr(fn, "memmove") && !strstr(fn, "memset"))
		return id;
	for (long k = t->n[id].parent, hops = 0; k >= 0 && k < t->cap && hops < 64; k = t->n[k].parent, hops++)
		if (visible(t, k) && t->n[k].line > 0)
			return k;
	return id;
}

static void tree_walk(struct tree *t, xmlNode *parent, long func, long lm, long up)
{
	for (xmlNode *c = parent->children; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		long f = func, m = lm, here = up;
		if (is(c, "PF") || is(c, "A"))
			f = attr_long(c, "n", -1);
		if (is(c, "PF"))
			m = attr_long(c, "lm", -1);
		if (is(c, "PF") || is(c, "A") || is(c, "C") || is(c, "S")) {
			long i = attr_long(c, "i", -1);
			if (i >= 0 && i < 100000000) {
				if (i >= t->cap) {
					long nc = 2 * i + 1024;
					t->n = realloc(t->n, (size_t)nc * sizeof *t->n);
					if (!t->n)
						die("out of memory");
					for (long k = t->cap; k < nc; k++)
						t->n[k] = (struct node){ -1, 0, 0, -1, -1 };
					t->cap = nc;
				}
				t->n[i] = (struct node){ f, attr_long(c, "f", 0), attr_long(c, "l", 0), m, up };
				here = i;
			}
			tree_walk(t, c, f, m, here);
		}
	}
}

static void loc_of(const struct tree *t, long id, struct acc_loc *loc, char *where, size_t size)
{
	if (id < 0 || id >= t->cap || (t->n[id].func < 0 && t->n[id].line == 0)) {
		loc->func = (char *)"?";
		snprintf(where, size, "?:0");
	} else {
		loc->func = (char *)names_get(&t->procs, t->n[id].func);
		snprintf(where, size, "%s:%ld", names_get(&t->files, t->n[id].file), t->n[id].line);
	}
	loc->where = where;
}

/* the code pairs of experiment.xml, aggregated by location */
static void read_code_pairs(const char *dir, struct db *d)
{
	char *file = path_of(dir, "experiment.xml");
	xmlDoc *doc = xmlReadFile(file, NULL, XML_PARSE_NONET);
	struct tree t = { .exe_lm = -1 }, *tp;
	xmlNode *root, *sec = NULL;
	struct { long c, p; } *seen = NULL;
	size_t nseen = 0, capseen = 0;

	if (!doc)
		die("%s: not a readable XML file", file);
	root = xmlDocGetRootElement(doc);
	if (!root || !is(root, "HPCToolkitExperiment"))
		die("%s: the root element is not <HPCToolkitExperiment>", file);
	for (xmlNode *c = root->children; c; c = c->next)
		if (is(c, "SecCallPathProfile"))
			sec = c;
	if (!sec)
		die("%s: no <SecCallPathProfile>", file);
	for (xmlNode *c = sec->children; c; c = c->next) {
		if (is(c, "SecHeader")) {
			for (xmlNode *h = c->children; h; h = h->next) {
				int proc = is(h, "ProcedureTable"), fil = is(h, "FileTable");
				if (!proc && !fil)
					continue;
				for (xmlNode *e = h->children; e; e = e->next) {
					if (!is(e, proc ? "Procedure" : "File"))
						continue;
					names_set(proc ? &t.procs : &t.files, attr_long(e, "i", -1), e, fil);
					if (proc && !strcmp(names_get(&t.procs, attr_long(e, "i", -1)), "main"))
						t.exe_lm = attr_long(e, "lm", -1);
				}
			}
		} else if (is(c, "SecCallPathProfileData")) {
			tree_walk(&t, c, -1, -1, -1);
		}
	}
	for (xmlNode *c = sec->children; c; c = c->next) {
		if (!is(c, "CodePairTable"))
			continue;
		for (xmlNode *e = c->children; e; e = e->next) {
			if (!is(e, "CP"))
				continue;
			long a = attr_long(e, "c", -1), b = attr_long(e, "p", -1), lo, hi;
			if (a < 0 || b < 0)
				continue;       /* peer context unknown */
			lo = a < b ? a : b;
			hi = a < b ? b : a;
			/* each pair is listed under both of its ends: count it once */
			size_t k;
			for (k = 0; k < nseen; k++)
				if (seen[k].c == lo && seen[k].p == hi)
					break;
			if (k < nseen)
				continue;
			if (nseen == capseen) {
				capseen = capseen ? 2 * capseen : 256;
				seen = realloc(seen, capseen * sizeof *seen);
				if (!seen)
					die("out of memory");
			}
			seen[nseen].c = lo;
			seen[nseen++].p = hi;
			lo = as_exact_sees(&t, lo);
			hi = as_exact_sees(&t, hi);
			if (!visible(&t, lo) || !visible(&t, hi)) {
				d->cp_hidden += attr_double(e, "all");
				continue;
			}
			struct acc_loc x, y;
			char wx[512], wy[512];
			loc_of(&t, lo, &x, wx, sizeof wx);
			loc_of(&t, hi, &y, wy, sizeof wy);
			if (acc_cpairs_add(&d->cp, &x, &y, attr_double(e, "all")) < 0)
				die("out of memory");
		}
	}
	free(seen);
	tp = malloc(sizeof *tp);
	if (!tp)
		die("out of memory");
	*tp = t;
	d->tree = tp;       /* for read_hidden; freed by free_db */
	xmlFreeDoc(doc);
	free(file);
}

static void free_tree(struct tree *t)
{
	if (!t)
		return;
	free(t->n);
	for (long i = 0; i < t->procs.n; i++)
		free(t->procs.s[i]);
	for (long i = 0; i < t->files.n; i++)
		free(t->files.s[i]);
	free(t->procs.s);
	free(t->files.s);
	free(t);
}

/* objects.xml (optional: a database without it compares every object):
   an object with false volume none of which comes from a code pair exact
   mode could see (both ends in the executable) is hidden (acc_metrics.h) */
static void read_hidden(const char *dir, struct db *d)
{
	char *file = path_of(dir, "objects.xml");
	xmlDoc *doc;
	xmlNode *root;

	if (access(file, F_OK) != 0) {
		free(file);
		return;
	}
	doc = xmlReadFile(file, NULL, XML_PARSE_NONET);
	if (!doc)
		die("%s: not a readable XML file", file);
	root = xmlDocGetRootElement(doc);
	if (!root || !is(root, "Objects"))
		die("%s: the root element is not <Objects>", file);
	for (xmlNode *o = root->children; o; o = o->next) {
		double fal = 0, seen = 0;
		int ncp = 0;
		long i;

		if (!is(o, "Object"))
			continue;
		i = attr_long(o, "i", -1);
		if (i < 0 || (size_t)i >= d->nobj)
			die("%s: object i=\"%ld\" is not a row of objects.csv (%zu rows)", file, i, d->nobj);
		for (xmlNode *c = o->children; c; c = c->next) {
			if (!is(c, "CP"))
				continue;
			ncp++;
			fal += attr_double(c, "false");
			if (visible(d->tree, attr_long(c, "c", -1)) && visible(d->tree, attr_long(c, "p", -1)))
				seen += attr_double(c, "false");
		}
		d->obj[i].hidden = ncp > 0 && fal > 0 && seen == 0;
	}
	xmlFreeDoc(doc);
	free(file);
}

static void read_unit(const char *dir, struct db *d)
{
	char *file = path_of(dir, "database.xml");
	xmlDoc *doc = xmlReadFile(file, NULL, XML_PARSE_NONET);
	xmlNode *root;

	snprintf(d->unit, sizeof d->unit, "?");
	if (!doc)
		die("%s: not a readable XML file", file);
	root = xmlDocGetRootElement(doc);
	if (!root || !is(root, "Database"))
		die("%s: the root element is not <Database>", file);
	for (xmlNode *c = root->children; c; c = c->next)
		if (is(c, "Measurement")) {
			xmlChar *u = xmlGetProp(c, (const xmlChar *)"unit");
			if (u) {
				snprintf(d->unit, sizeof d->unit, "%s", (const char *)u);
				xmlFree(u);
			}
		}
	xmlFreeDoc(doc);
	free(file);
}

static void read_db(const char *dir, struct db *d)
{
	d->dir = dir;
	read_unit(dir, d);
	read_matrix(dir, "all", &d->all);
	read_matrix(dir, "false", &d->fal);
	read_objects(dir, d);
	read_code_pairs(dir, d);
	read_hidden(dir, d);
}

static void free_db(struct db *d)
{
	free(d->all.v);
	free(d->fal.v);
	for (size_t i = 0; i < d->nobj; i++) {
		free((char *)d->obj[i].kind);
		free((char *)d->obj[i].name);
	}
	free(d->obj);
	acc_cpairs_free(&d->cp);
	free_tree(d->tree);
}

/* the reference of several exact runs (acc_metrics.h): every run weighed
   by mean_total / (k * its total), so each counts as one vote and the sum
   reads in the runs' mean units */
static void read_refs(char **dirs, int k, struct db *e)
{
	struct db *r = calloc((size_t)k, sizeof *r);
	double mean = 0;
	size_t cap = 0;

	if (!r)
		die("out of memory");
	for (int i = 0; i < k; i++) {
		read_db(dirs[i], &r[i]);
		if (strcmp(r[i].unit, r[0].unit))
			die("%s: unit '%s', but %s counts in '%s': not runs of one kind", dirs[i], r[i].unit,
			    dirs[0], r[0].unit);
		mean += acc_total(&r[i].all) / k;
	}
	e->dir = dirs[0];
	snprintf(e->unit, sizeof e->unit, "%s", r[0].unit);
	for (int i = 0; i < k; i++) {
		double t = acc_total(&r[i].all), w = t > 0 ? mean / (k * t) : 0;

		if (acc_matrix_add(&e->all, &r[i].all, w) < 0 || acc_matrix_add(&e->fal, &r[i].fal, w) < 0 ||
		    acc_objects_add(&e->obj, &e->nobj, &cap, r[i].obj, r[i].nobj, w) < 0 ||
		    acc_cpairs_merge(&e->cp, &r[i].cp, w) < 0)
			die("out of memory");
		e->cp_hidden += w * r[i].cp_hidden;
		free_db(&r[i]);
	}
	acc_objects_rank(e->obj, e->nobj);
	free(r);
}

static void put(const char *key, int rc, double v)
{
	if (rc < 0)
		printf("%s\t-\n", key);
	else
		printf("%s\t%.3f\n", key, v);
}

static double acc_total_cp(const struct acc_cpairs *c)
{
	double v = 0;

	for (size_t k = 0; k < c->n; k++)
		v += c->p[k].v;
	return v;
}

static void describe(const char *what, const struct db *d, int top_obj, long top_cp)
{
	double t = acc_total(&d->all);
	struct { int i, j; double v; } best[8];
	int nb = 0;

	printf("# %s: %s (unit %s), total %.0f, false %.0f\n", what, d->dir, d->unit, t, acc_total(&d->fal));
	for (int i = 0; i < d->all.n; i++)
		for (int j = i + 1; j < d->all.n; j++) {
			double v = acc_cell(&d->all, i, j);
			if (v <= 0)
				continue;
			if (nb == 8 && best[7].v >= v)
				continue;
			int k = nb < 8 ? nb++ : 7;
			best[k].i = i, best[k].j = j, best[k].v = v;
			for (; k > 0 && best[k].v > best[k - 1].v; k--) {
				__typeof__(best[0]) tmp = best[k];
				best[k] = best[k - 1];
				best[k - 1] = tmp;
			}
		}
	for (int k = 0; k < nb; k++)
		printf("#   pair (%d,%d): %.3f of the volume\n", best[k].i, best[k].j, best[k].v / t);
	for (size_t k = 0; k < d->nobj && k < 3; k++)
		printf("#   object %zu: %s %s, false %.3f of its all%s%s\n", k, d->obj[k].kind, d->obj[k].name,
		       d->obj[k].all > 0 ? d->obj[k].fal / d->obj[k].all : 0.0,
		       (int)k == top_obj ? " (top false-sharing object)" : "",
		       d->obj[k].hidden ? " (not comparable: its false sharing is in code exact mode cannot see)" : "");
	if (top_cp >= 0) {
		const struct acc_cpair *p = &d->cp.p[top_cp];
		double cpt = 0;
		for (size_t k = 0; k < d->cp.n; k++)
			cpt += d->cp.p[k].v;
		printf("#   top code pair: %s %s <-> %s %s, %.3f of the code-pair volume\n",
		       p->a.func, p->a.where, p->b.func, p->b.where, 0.0 + p->v / (cpt > 0 ? cpt : 1));
		/* the runners-up, for a human judging a near tie */
		long shown[5] = { top_cp, -1, -1, -1, -1 };
		for (int r = 1; r < 5; r++) {
			long b = -1;
			for (size_t k = 0; k < d->cp.n; k++) {
				int dup = 0;
				for (int q = 0; q < r; q++)
					dup |= shown[q] == (long)k;
				if (!dup && (b < 0 || d->cp.p[k].v > d->cp.p[b].v))
					b = (long)k;
			}
			if (b < 0)
				break;
			shown[r] = b;
			p = &d->cp.p[b];
			printf("#   code pair %d: %s %s <-> %s %s, %.3f\n", r + 1, p->a.func, p->a.where,
			       p->b.func, p->b.where, 0.0 + p->v / (cpt > 0 ? cpt : 1));
		}
	}
}

int main(int argc, char **argv)
{
	struct db s = { 0 }, e = { 0 };
	int verbose = 0, rc, np, nf, os, oe, negligible;
	double v, ffs = 0, ffe = 0;
	int rs, re;
	long cs, ce;

	if (argc == 3 && !strcmp(argv[1], "-d")) {
		LIBXML_TEST_VERSION
		read_db(argv[2], &s);
		rs = acc_false_fraction(acc_total(&s.all), acc_total(&s.fal), &ffs);
		os = acc_top_fs(s.obj, s.nobj, rs < 0 ? 0 : ffs);
		printf("unit\t%s\nthreads\t%d\n", s.unit, s.all.n);
		put("ff", rs, ffs);
		printf("fs_top\t%s\n", os < 0 ? "none" : s.obj[os].name);
		cs = acc_cpairs_top(&s.cp);
		if (cs < 0)
			printf("cp_top\t-\n");
		else
			printf("cp_top\t%s %s <-> %s %s\n", s.cp.p[cs].a.func, s.cp.p[cs].a.where,
			       s.cp.p[cs].b.func, s.cp.p[cs].b.where);
		describe("database", &s, os, cs);
		free_db(&s);
		xmlCleanupParser();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		argc--;
		argv++;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: acc_compare [-v] SAMPLED-DB EXACT-DB [EXACT-DB ...] | acc_compare -d DB\n");
		return 2;
	}
	LIBXML_TEST_VERSION
	read_db(argv[1], &s);
	if (argc == 3)
		read_db(argv[2], &e);
	else
		read_refs(argv + 2, argc - 2, &e);
	printf("exact_runs\t%d\n", argc - 2);

	printf("unit_sampled\t%s\nunit_exact\t%s\n", s.unit, e.unit);
	printf("threads_sampled\t%d\nthreads_exact\t%d\n", s.all.n, e.all.n);
	printf("total_sampled\t%.0f\ntotal_exact\t%.0f\n", acc_total(&s.all), acc_total(&e.all));
	negligible = acc_negligible(acc_total(&e.all));
	printf("exact_negligible\t%d\n", negligible);
	if (negligible) {
		/* no communication to find: whatever the sampler reports is spurious */
		rc = acc_total(&s.all) > 0 ? 0 : -EDOM;
		v = 0;
	} else {
		rc = acc_precision(&s.all, &e.all, ACC_PRECISION_SHARE, &v);
	}
	put("precision", rc, v);
	rc = acc_recall(&s.all, &e.all, ACC_RECALL_SHARE, &v, &np, &nf);
	if (negligible)
		rc = -EDOM, np = nf = 0;
	put("recall", rc, v);
	printf("recall_pairs\t%d/%d\n", nf, np);
	rs = acc_false_fraction(acc_total(&s.all), acc_total(&s.fal), &ffs);
	re = acc_false_fraction(acc_total(&e.all), acc_total(&e.fal), &ffe);
	put("ff_sampled", rs, ffs);
	put("ff_exact", re, ffe);
	put("ff_error", rs < 0 || re < 0 || negligible ? -1 : 0, ffs > ffe ? ffs - ffe : ffe - ffs);
	os = acc_top_fs(s.obj, s.nobj, rs < 0 ? 0 : ffs);
	oe = acc_top_fs(e.obj, e.nobj, re < 0 ? 0 : ffe);
	printf("fs_top_sampled\t%s\n", os < 0 ? "none" : s.obj[os].name);
	printf("fs_top_exact\t%s\n", oe < 0 ? "none" : e.obj[oe].name);
	printf("fs_agree\t%s\n", acc_same_object(s.obj, os, e.obj, oe) ? "yes" : "no");
	{
		int hs = acc_hidden_fs(s.obj, s.nobj, rs < 0 ? 0 : ffs);
		printf("fs_not_comparable\t%s\n", hs < 0 ? "-" : s.obj[hs].name);
	}
	cs = acc_cpairs_top(&s.cp);
	ce = acc_cpairs_top(&e.cp);
	printf("cp_agree\t%s\n", acc_agree_name(acc_cpairs_agree(&s.cp, &e.cp, ACC_CP_TIE)));
	printf("cp_agree_top\t%s\n", acc_agree_name(acc_cpair_agree(cs < 0 ? NULL : &s.cp.p[cs],
								      ce < 0 ? NULL : &e.cp.p[ce])));
	printf("cp_not_comparable\t%.3f\n", s.cp_hidden > 0 ? s.cp_hidden / (s.cp_hidden + acc_total_cp(&s.cp)) : 0.0);
	if (verbose) {
		describe("sampled", &s, os, cs);
		describe("exact", &e, oe, ce);
	}
	free_db(&s);
	free_db(&e);
	xmlCleanupParser();
	return 0;
}
