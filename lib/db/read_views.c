/* SPDX-License-Identifier: BSD-3-Clause */
/* read_views.c — phases.xml and locality.xml, both optional (db/views.h).
   Checked: the version and unit agree with database.xml; phases are in time
   order, each a run of windows [first, last] that continues the previous
   one; a phase's cells sum to its volume and name two distinct threads;
   every window names its phase and carries one value per timeline line;
   the windows' volumes sum to their phase's; object indexes exist in
   objects.xml; a located object's local + remote and node volumes are
   consistent. Unknown elements and attributes are ignored. No signal
   context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"
#include "db/views.h"

void hc_db_views_free(struct hc_db_views *v)
{
	if (!v)
		return;
	free(v->rule);
	for (size_t i = 0; i < v->nphases; i++) {
		free(v->phases[i].object_name);
		free(v->phases[i].cells);
	}
	free(v->phases);
	free(v->lines);
	for (size_t i = 0; i < v->nwindows; i++)
		free(v->windows[i].lines);
	free(v->windows);
	for (size_t i = 0; i < v->nnuma; i++) {
		free(v->numa[i].name);
		free(v->numa[i].page);
		free(v->numa[i].thread);
	}
	free(v->numa);
	free(v);
}

static int real(struct load *ld, struct xr *x, const char *attr, double *out)
{
	char *s = NULL, *end;
	int rc = xr__str(x, attr, &s);

	if (rc)
		return rc;
	*out = strtod(s, &end);
	if (end == s || *end || !(*out >= 0))
		rc = load__fail(ld, xr__line(x), "<%s %s=\"%.40s\">: not a non-negative number",
		                xr__name(x), attr, s);
	free(s);
	return rc;
}

static int root(struct load *ld, struct xr *x, const char *want)
{
	uint64_t version;
	char *unit = NULL;
	int rc;

	if (strcmp(xr__name(x), want))
		return load__fail(ld, xr__line(x), "root element is <%s>, expected <%s>", xr__name(x),
		                  want);
	if ((rc = xr__u64(x, "version", &version)))
		return rc;
	if (version != HC_DB_VERSION)
		return load__fail(ld, xr__line(x), "format version %llu, this reader reads version %d",
		                  (unsigned long long)version, HC_DB_VERSION);
	if ((rc = xr__str(x, "unit", &unit)))
		return rc;
	if (strcmp(unit, ld->db->unit))
		rc = load__fail(ld, xr__line(x), "unit '%s', but database.xml says '%s'", unit,
		                ld->db->unit);
	free(unit);
	return rc;
}

static bool object_ok(const struct hc_db *db, uint64_t i)
{
	return db->has_objects && i < db->nobjects;
}

/* ---------------- phases.xml ---------------- */

static int phase(struct load *ld, struct xr *x, struct hc_db_views *v, size_t *cap)
{
	struct hc_db_phase *p;
	uint64_t u;
	bool has;
	int rc;

	if (load__grow(&v->phases, cap, v->nphases, sizeof(*v->phases)))
		return -ENOMEM;
	p = &v->phases[v->nphases++];
	memset(p, 0, sizeof(*p));
	p->pair_i = p->pair_j = p->object = -1;
	if ((rc = xr__u64(x, "i", &p->i)) || (rc = xr__u64(x, "start", &p->start)) ||
	    (rc = xr__u64(x, "end", &p->end)) || (rc = xr__u64(x, "first", &p->first)) ||
	    (rc = xr__u64(x, "last", &p->last)) || (rc = load__vol(ld, x, &p->all, &p->tru, &p->fal)))
		return rc;
	if (p->i != v->nphases - 1)
		return load__fail(ld, xr__line(x), "<Phase i=\"%llu\">: expected i=\"%zu\" (phases in "
		                  "order)", (unsigned long long)p->i, v->nphases - 1);
	if (p->first > p->last || p->start >= p->end ||
	    (v->nphases > 1 && (p->first != v->phases[v->nphases - 2].last + 1 ||
	                        p->start != v->phases[v->nphases - 2].end)) ||
	    (v->nphases == 1 && p->first != 0))
		return load__fail(ld, xr__line(x), "<Phase i=\"%llu\">: windows %llu..%llu, time "
		                  "%llu..%llu do not continue the previous phase", (unsigned long long)p->i,
		                  (unsigned long long)p->first, (unsigned long long)p->last,
		                  (unsigned long long)p->start, (unsigned long long)p->end);
	if ((rc = xr__u64_opt(x, "pair_i", &u, &has)))
		return rc;
	if (has) {
		uint64_t j;
		if ((rc = xr__u64(x, "pair_j", &j)) || (rc = xr__u64(x, "pair_all", &p->pair_all)))
			return rc;
		if (u >= j || j >= ld->db->nthreads)
			return load__fail(ld, xr__line(x), "<Phase pair_i=\"%llu\" pair_j=\"%llu\">: not "
			                  "a pair of two threads (0..%zu)", (unsigned long long)u,
			                  (unsigned long long)j, ld->db->nthreads - 1);
		p->pair_i = (int64_t)u;
		p->pair_j = (int64_t)j;
	}
	if ((rc = xr__u64_opt(x, "object", &u, &has)))
		return rc;
	if (has) {
		if (!object_ok(ld->db, u))
			return load__fail(ld, xr__line(x), "<Phase object=\"%llu\">: not an object of "
			                  HC_DB_OBJECTS, (unsigned long long)u);
		p->object = (int64_t)u;
		if ((rc = xr__u64_opt(x, "object_all", &p->object_all, NULL)))
			return rc;
	}
	if ((rc = xr__str_opt(x, "object_name", &p->object_name)))
		return rc;
	if (!p->object_name && !(p->object_name = load__strdup("")))
		return -ENOMEM;
	return 0;
}

static int phase_cell(struct load *ld, struct xr *x, struct hc_db_phase *p)
{
	struct hc_db_objcell *c;
	uint64_t i, j;
	int rc;

	if (load__push(&p->cells, p->ncells, sizeof(*p->cells)))
		return -ENOMEM;
	c = &p->cells[p->ncells];
	if ((rc = xr__u64(x, "i", &i)) || (rc = xr__u64(x, "j", &j)))
		return rc;
	if (i >= j || j >= ld->db->nthreads)
		return load__fail(ld, xr__line(x), "<T i=\"%llu\" j=\"%llu\">: not a pair of two "
		                  "threads, i < j (0..%zu)", (unsigned long long)i,
		                  (unsigned long long)j, ld->db->nthreads - 1);
	c->i = (uint32_t)i;
	c->j = (uint32_t)j;
	if ((rc = load__vol(ld, x, &c->all, &c->tru, &c->fal)))
		return rc;
	p->ncells++;
	return 0;
}

static int line(struct load *ld, struct xr *x, struct hc_db_views *v, size_t *cap)
{
	struct hc_db_line *l;
	char *kind = NULL;
	int rc;

	if (v->nwindows)
		return load__fail(ld, xr__line(x), "<Line> after the first <Window>");
	if (load__grow(&v->lines, cap, v->nlines, sizeof(*v->lines)))
		return -ENOMEM;
	l = &v->lines[v->nlines];
	memset(l, 0, sizeof(*l));
	if ((rc = xr__str(x, "kind", &kind)))
		return rc;
	if (!strcmp(kind, HC_DB_LINE_PAIR)) {
		if (!(rc = xr__u64(x, "i", &l->i)) && !(rc = xr__u64(x, "j", &l->j)) &&
		    (l->i >= l->j || l->j >= ld->db->nthreads))
			rc = load__fail(ld, xr__line(x), "<Line i=\"%llu\" j=\"%llu\">: not a pair of two "
			                "threads", (unsigned long long)l->i, (unsigned long long)l->j);
	} else if (!strcmp(kind, HC_DB_LINE_OBJECT)) {
		l->object = true;
		if (!(rc = xr__u64(x, "object", &l->i)) && !object_ok(ld->db, l->i))
			rc = load__fail(ld, xr__line(x), "<Line object=\"%llu\">: not an object of "
			                HC_DB_OBJECTS, (unsigned long long)l->i);
	} else {
		rc = load__fail(ld, xr__line(x), "<Line kind=\"%.40s\">: expected pair or object", kind);
	}
	free(kind);
	if (!rc)
		v->nlines++;
	return rc;
}

static int window(struct load *ld, struct xr *x, struct hc_db_views *v, size_t *cap)
{
	struct hc_db_window *w;
	char *lines = NULL, *p, *end;
	size_t k;
	int rc;

	if (load__grow(&v->windows, cap, v->nwindows, sizeof(*v->windows)))
		return -ENOMEM;
	w = &v->windows[v->nwindows++];
	memset(w, 0, sizeof(*w));
	if ((rc = xr__u64(x, "i", &w->i)) || (rc = xr__u64(x, "start", &w->start)) ||
	    (rc = xr__u64(x, "end", &w->end)) || (rc = xr__u64(x, "phase", &w->phase)) ||
	    (rc = load__vol(ld, x, &w->all, &w->tru, &w->fal)))
		return rc;
	if (w->i != v->nwindows - 1 || w->phase >= v->nphases || w->i < v->phases[w->phase].first ||
	    w->i > v->phases[w->phase].last)
		return load__fail(ld, xr__line(x), "<Window i=\"%llu\" phase=\"%llu\">: out of order, "
		                  "or not inside its phase's windows", (unsigned long long)w->i,
		                  (unsigned long long)w->phase);
	w->lines = calloc(v->nlines ? v->nlines : 1, sizeof(*w->lines));
	if (!w->lines)
		return -ENOMEM;
	if ((rc = xr__str(x, "lines", &lines)))
		return rc;
	for (p = lines, k = 0; *p; k++) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (k >= v->nlines || *p < '0' || *p > '9')
			break;
		w->lines[k] = strtoull(p, &end, 10);
		p = end;
	}
	if (k != v->nlines || *p)
		rc = load__fail(ld, xr__line(x), "<Window i=\"%llu\" lines=\"%.60s\">: expected %zu "
		                "numbers", (unsigned long long)w->i, lines, v->nlines);
	free(lines);
	return rc;
}

static int check_phases(struct load *ld, struct hc_db_views *v)
{
	for (size_t k = 0; k < v->nphases; k++) {
		const struct hc_db_phase *p = &v->phases[k];
		uint64_t s = 0, ws = 0;
		for (size_t c = 0; c < p->ncells; c++)
			s += p->cells[c].all;
		for (size_t w = 0; w < v->nwindows; w++)
			if (v->windows[w].phase == k)
				ws += v->windows[w].all;
		if ((!ld->skip_phase_cells && !ld->fill_phases && s != p->all) || ws != p->all)
			return load__fail(ld, 0, "phase %zu: volume %llu, but its cells sum to %llu and "
			                  "its windows to %llu", k, (unsigned long long)p->all,
			                  (unsigned long long)s, (unsigned long long)ws);
	}
	if (v->nphases && v->nwindows != v->phases[v->nphases - 1].last + 1)
		return load__fail(ld, 0, "%zu windows, but the last phase ends at window %llu",
		                  v->nwindows, (unsigned long long)v->phases[v->nphases - 1].last);
	return 0;
}

static int read_phases(struct load *ld, struct hc_db_views *v)
{
	struct xr *x;
	size_t cap_p = 0, cap_l = 0, cap_w = 0;
	int rc = xr__open(&x, ld, HC_DB_PHASES, true);

	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	v->has_phases = true;
	while ((rc = xr__next(x)) > 0) {
		const char *name = xr__name(x), *parent = xr__parent(x);
		rc = 0;
		if (xr__depth(x) == 0) {
			if (!(rc = root(ld, x, HC_DB_ROOT_PHASES)) && !(rc = xr__u64(x, "window", &v->window)) &&
			    !(rc = xr__u64(x, "span", &v->span)) &&
			    !(rc = real(ld, x, "similarity", &v->similarity)))
				rc = xr__str(x, "rule", &v->rule);
		} else if (!strcmp(parent, HC_DB_ROOT_PHASES) && !strcmp(name, "Phase")) {
			rc = v->nwindows ? load__fail(ld, xr__line(x), "<Phase> after the first <Window>")
			                 : phase(ld, x, v, &cap_p);
			if (!rc && ld->skip_phase_cells)
				rc = xr__skip(x);   /* its <T> cells: every ncells is 0 */
		} else if (!strcmp(parent, "Phase") && !strcmp(name, "T") && v->nphases) {
			rc = phase_cell(ld, x, &v->phases[v->nphases - 1]);
		} else if (!strcmp(parent, HC_DB_ROOT_PHASES) && !strcmp(name, "Line")) {
			rc = line(ld, x, v, &cap_l);
		} else if (!strcmp(parent, HC_DB_ROOT_PHASES) && !strcmp(name, "Window")) {
			rc = window(ld, x, v, &cap_w);
		}
		if (rc)
			break;
	}
	xr__close(x);
	if (!rc && !v->nphases)
		rc = load__fail(ld, 0, "no <Phase>");
	if (!rc)
		rc = check_phases(ld, v);
	return rc;
}

/* ---------------- locality.xml ---------------- */

static int numa_object(struct load *ld, struct xr *x, struct hc_db_views *v, size_t *cap)
{
	struct hc_db_numa_object *o;
	uint64_t u;
	bool has;
	int rc;

	if (load__grow(&v->numa, cap, v->nnuma, sizeof(*v->numa)))
		return -ENOMEM;
	o = &v->numa[v->nnuma++];
	memset(o, 0, sizeof(*o));
	o->first_thread = -1;
	o->page = calloc(v->ndomains ? v->ndomains : 1, sizeof(*o->page));
	o->thread = calloc(v->ndomains ? v->ndomains : 1, sizeof(*o->thread));
	if (!o->page || !o->thread)
		return -ENOMEM;
	if ((rc = xr__u64(x, "i", &o->i)) || (rc = xr__str(x, "name", &o->name)) ||
	    (rc = xr__u64(x, "local", &o->local)) || (rc = xr__u64(x, "remote", &o->remote)) ||
	    (rc = xr__u64(x, "unlocated", &o->unlocated)) ||
	    (rc = real(ld, x, "remote_share", &o->remote_share)))
		return rc;
	if (!object_ok(ld->db, o->i))
		return load__fail(ld, xr__line(x), "<Object i=\"%llu\">: not an object of "
		                  HC_DB_OBJECTS, (unsigned long long)o->i);
	if (o->remote_share > 1.0)
		return load__fail(ld, xr__line(x), "<Object remote_share>: above 1");
	{
		char *f = NULL;
		if ((rc = xr__str(x, "flagged", &f)))
			return rc;
		o->flagged = !strcmp(f, "1") || !strcmp(f, "true");
		free(f);
	}
	if ((rc = xr__u64_opt(x, "first_thread", &u, &has)))
		return rc;
	if (has) {
		if (u >= ld->db->nthreads)
			return load__fail(ld, xr__line(x), "<Object first_thread=\"%llu\">: not a thread",
			                  (unsigned long long)u);
		o->first_thread = (int64_t)u;
	}
	return 0;
}

static int numa_node(struct load *ld, struct xr *x, struct hc_db_views *v, bool page)
{
	struct hc_db_numa_object *o = &v->numa[v->nnuma - 1];
	uint64_t node, all;
	int rc;

	if ((rc = xr__u64(x, "node", &node)) || (rc = xr__u64(x, "all", &all)))
		return rc;
	if (node >= v->ndomains)
		return load__fail(ld, xr__line(x), "<%s node=\"%llu\">: the file says %llu domains",
		                  xr__name(x), (unsigned long long)node,
		                  (unsigned long long)v->ndomains);
	(page ? o->page : o->thread)[node] = all;
	return 0;
}

static int read_locality(struct load *ld, struct hc_db_views *v)
{
	struct xr *x;
	size_t cap = 0;
	int rc = xr__open(&x, ld, HC_DB_LOCALITY, true);

	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	v->has_locality = true;
	while ((rc = xr__next(x)) > 0) {
		const char *name = xr__name(x), *parent = xr__parent(x);
		rc = 0;
		if (xr__depth(x) == 0) {
			char *s = NULL;
			if (!(rc = root(ld, x, HC_DB_ROOT_LOCALITY)) && !(rc = xr__u64(x, "domains", &v->ndomains)) &&
			    !(rc = xr__u64(x, "local", &v->local)) &&
			    !(rc = xr__u64(x, "remote", &v->remote)) &&
			    !(rc = xr__u64(x, "unlocated", &v->unlocated)) &&
			    !(rc = real(ld, x, "flag", &v->flag)) && !(rc = xr__str(x, "single", &s))) {
				v->single = !strcmp(s, "1") || !strcmp(s, "true");
				free(s);
				s = NULL;
				if (!(rc = xr__str(x, "pages", &s)))
					v->pages = !strcmp(s, "1") || !strcmp(s, "true");
				free(s);
			}
			if (!rc && v->ndomains > 4096)
				rc = load__fail(ld, xr__line(x), "<Locality domains=\"%llu\">: above 4096",
				                (unsigned long long)v->ndomains);
		} else if (!strcmp(parent, HC_DB_ROOT_LOCALITY) && !strcmp(name, "Object")) {
			rc = numa_object(ld, x, v, &cap);
		} else if (!strcmp(parent, "Object") && v->nnuma &&
		           (!strcmp(name, "Page") || !strcmp(name, "Thread"))) {
			rc = numa_node(ld, x, v, name[0] == 'P');
		}
		if (rc)
			break;
	}
	xr__close(x);
	for (size_t k = 0; !rc && k < v->nnuma; k++) {
		const struct hc_db_numa_object *o = &v->numa[k];
		uint64_t loc = o->local + o->remote;
		double share = loc ? (double)o->remote / (double)loc : 0.0;
		if (share - o->remote_share > 0.001 || o->remote_share - share > 0.001)
			rc = load__fail(ld, 0, "object %llu: remote_share %.4f, but remote/(local+remote) "
			                "is %.4f", (unsigned long long)o->i, o->remote_share, share);
	}
	return rc;
}

int read__views(struct load *ld)
{
	struct hc_db_views *v = calloc(1, sizeof(*v));
	int rc;

	if (!v)
		return -ENOMEM;
	if (ld->fill_phases) {
		rc = ld->fill_phases(v, ld->fill_arg);
		if (!rc && v->has_phases) {
			load__file(ld, HC_DB_PHASES);
			rc = check_phases(ld, v);
		}
	} else {
		rc = read_phases(ld, v);
	}
	if (!rc)
		rc = read_locality(ld, v);
	if (rc || (!v->has_phases && !v->has_locality)) {
		hc_db_views_free(v);
		return rc;
	}
	ld->db->views = v;
	return 0;
}
