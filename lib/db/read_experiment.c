/* SPDX-License-Identifier: BSD-3-Clause */
/* experiment.c — experiment.xml (doc/database-format.md §5), streamed: the
   metric, load-module, file and procedure tables, the calling-context tree
   flattened into an array in document order (each node knows its parent's
   index, found through a stack indexed by XML depth, so recursion as deep as
   the program's costs nothing special), and the code-pair table. Checked as
   it is read: the metric ids mean what HC_DB_METRIC_ID says, nesting follows
   §5.2 (PF under the root or a C; A, C, S under a PF or an A; S holds only M),
   references name table entries, the root's totals agree with database.xml.
   No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"

#define ROOT   (UINT32_MAX - 1)   /* stack marker: SecCallPathProfileData */
#define IGNORE (UINT32_MAX - 2)   /* stack marker: inside an unknown element */

struct exp {
	struct load *ld;
	struct xr *x;
	uint32_t *stack;          /* node index (or marker) by XML depth */
	size_t scap;
	int data_depth;           /* depth of SecCallPathProfileData, -1 outside */
	size_t cap_nodes, cap_pairs, cap_lms, cap_files, cap_procs;
	bool metric_seen[HC_DB_METRICS];
};

static int node_type(const char *name)
{
	if (!strcmp(name, "PF"))
		return HC_DB_N_PF;
	if (!strcmp(name, "A"))
		return HC_DB_N_A;
	if (!strcmp(name, "C"))
		return HC_DB_N_C;
	if (!strcmp(name, "S"))
		return HC_DB_N_S;
	return -1;
}

static const char *const type_names[] = { "PF", "A", "C", "S" };

static int load_metric_value(struct exp *e, uint32_t parent)
{
	struct hc_db *db = e->ld->db;
	uint64_t n, v;
	int rc;

	if ((rc = xr__u64(e->x, "n", &n)) || (rc = xr__u64(e->x, "v", &v)))
		return rc;
	if (n >= HC_DB_METRICS)
		return load__fail(e->ld, xr__line(e->x), "<M n=\"%llu\">: no such metric (0..%d)",
		                   (unsigned long long)n, HC_DB_METRICS - 1);
	if (parent == ROOT)
		db->root_m[n] = v;
	else
		db->nodes[parent].m[n] = v;
	return 0;
}

static int load_node(struct exp *e, int type, uint32_t parent)
{
	struct hc_db *db = e->ld->db;
	struct xr *x = e->x;
	struct hc_db_node *nd;
	int ptype = parent == ROOT ? -1 : db->nodes[parent].type;
	bool ok;
	int rc;

	switch (type) {
	case HC_DB_N_PF:
		ok = parent == ROOT || ptype == HC_DB_N_C;
		break;
	default:
		ok = ptype == HC_DB_N_PF || ptype == HC_DB_N_A;
		break;
	}
	if (!ok)
		return load__fail(e->ld, xr__line(x), "<%s> inside <%s> (%s)", type_names[type],
		                   parent == ROOT ? "SecCallPathProfileData" : type_names[ptype],
		                   type == HC_DB_N_PF ? "a PF belongs under the root or a C"
		                                    : "A, C and S belong under a PF or an A");
	if (db->nnodes >= UINT32_MAX - 3)
		return load__fail(e->ld, xr__line(x), "too many nodes");
	if (load__grow(&db->nodes, &e->cap_nodes, db->nnodes, sizeof(*db->nodes)))
		return -ENOMEM;
	nd = &db->nodes[db->nnodes];
	nd->type = (uint8_t)type;
	nd->parent = parent == ROOT ? HC_DB_NONE : parent;
	rc = xr__u64(x, "i", &nd->id);
	if (!rc && nd->id == 0)
		rc = load__fail(e->ld, xr__line(x), "<%s i=\"0\">: node ids start at 1",
		                 type_names[type]);
	if (!rc && (type == HC_DB_N_PF || type == HC_DB_N_A))
		rc = xr__u64(x, "n", &nd->proc);
	if (!rc && type == HC_DB_N_PF)
		rc = xr__u64(x, "lm", &nd->lm);
	if (!rc)
		rc = xr__u64(x, "f", &nd->f);
	if (!rc)
		rc = xr__u64(x, "l", &nd->l);
	if (rc)
		return rc;
	db->nnodes++;
	return 0;
}

/* An element inside SecCallPathProfileData. */
static int load_tree_element(struct exp *e)
{
	struct hc_db *db = e->ld->db;
	int d = xr__depth(e->x);
	const char *name = xr__name(e->x);
	uint32_t parent = e->stack[d - 1];
	int type = node_type(name);
	int rc = 0;

	if (load__grow(&e->stack, &e->scap, (size_t)d, sizeof(*e->stack)))
		return -ENOMEM;
	e->stack[d] = IGNORE;
	if (parent == IGNORE)
		return 0;
	if (parent != ROOT && db->nodes[parent].type == HC_DB_N_S && strcmp(name, "M"))
		return load__fail(e->ld, xr__line(e->x), "<%s> inside <S> (a statement holds only "
		                   "<M> values)", name);
	if (!strcmp(name, "M"))
		return load_metric_value(e, parent);
	if (type < 0)
		return 0;
	rc = load_node(e, type, parent);
	if (!rc)
		e->stack[d] = (uint32_t)(db->nnodes - 1);
	return rc;
}

static int load_metric_def(struct exp *e)
{
	struct hc_db *db = e->ld->db;
	struct xr *x = e->x;
	char *kind = NULL, *t = NULL, *unit = NULL;
	uint64_t i, partner;
	int rc;

	rc = xr__u64(x, "i", &i);
	if (!rc)
		rc = xr__u64(x, "partner", &partner);
	if (!rc)
		rc = xr__str(x, "kind", &kind);
	if (!rc)
		rc = xr__str(x, "t", &t);
	if (!rc)
		rc = xr__str(x, "unit", &unit);
	if (rc)
		goto out;
	if (i >= HC_DB_METRICS || strcmp(kind, hc_db_metric_kind((int)i / 2)) ||
	    strcmp(t, i % 2 ? "exclusive" : "inclusive") || partner != (i ^ 1)) {
		rc = load__fail(e->ld, xr__line(x), "<Metric i=\"%llu\" kind=\"%s\" t=\"%s\" "
		                 "partner=\"%llu\"> does not match the fixed metric table "
		                 "(i = 2 × base + exclusive)", (unsigned long long)i, kind, t,
		                 (unsigned long long)partner);
		goto out;
	}
	if (strcmp(unit, db->unit)) {
		rc = load__fail(e->ld, xr__line(x), "<Metric i=\"%llu\" unit=\"%s\">: the database "
		                 "unit is '%s'", (unsigned long long)i, unit, db->unit);
		goto out;
	}
	e->metric_seen[i] = true;
out:
	free(kind);
	free(t);
	free(unit);
	return rc;
}

static int load_name_entry(struct exp *e, struct hc_db_name **arr, size_t *n, size_t *cap)
{
	struct hc_db_name *v;
	int rc;

	if (load__grow(arr, cap, *n, sizeof(**arr)))
		return -ENOMEM;
	v = &(*arr)[(*n)++];
	rc = xr__u64(e->x, "i", &v->i);
	if (!rc)
		rc = xr__str(e->x, "n", &v->n);
	return rc;
}

static int load_element(struct exp *e)
{
	struct hc_db *db = e->ld->db;
	struct xr *x = e->x;
	const char *name = xr__name(x), *parent = xr__parent(x);
	int d = xr__depth(x);
	char *s = NULL;
	int rc = 0;

	if (e->data_depth >= 0 && d > e->data_depth)
		return load_tree_element(e);
	e->data_depth = -1;

	if (d == 0) {
		uint64_t version;
		if (strcmp(name, HC_DB_ROOT_EXPERIMENT))
			return load__fail(e->ld, xr__line(x), "root element is <%s>, expected "
			                   "<HPCToolkitExperiment>", name);
		if ((rc = xr__u64(x, "version", &version)))
			return rc;
		if (version != HC_DB_VERSION)
			return load__fail(e->ld, xr__line(x), "format version %llu, this viewer reads "
			                   "version %d", (unsigned long long)version, HC_DB_VERSION);
	} else if (!strcmp(name, "Header") && !strcmp(parent, HC_DB_ROOT_EXPERIMENT)) {
		free(db->program);
		rc = xr__str(x, "n", &db->program);
	} else if (!strcmp(name, "NV") && !strcmp(parent, "Info")) {
		rc = xr__str(x, "n", &s);
		if (!rc && !strcmp(s, "unit")) {
			free(s);
			rc = xr__str(x, "v", &s);
			if (!rc && strcmp(s, db->unit))
				rc = load__fail(e->ld, xr__line(x), "unit '%s', but database.xml says '%s' "
				                 "(files from different analyses?)", s, db->unit);
		}
	} else if (!strcmp(name, "Metric") && !strcmp(parent, "MetricTable")) {
		rc = load_metric_def(e);
	} else if (!strcmp(name, "LoadModule") && !strcmp(parent, "LoadModuleTable")) {
		rc = load_name_entry(e, &db->lms, &db->nlms, &e->cap_lms);
	} else if (!strcmp(name, "File") && !strcmp(parent, "FileTable")) {
		rc = load_name_entry(e, &db->files, &db->nfiles, &e->cap_files);
	} else if (!strcmp(name, "Procedure") && !strcmp(parent, "ProcedureTable")) {
		struct hc_db_proc *p;
		if (load__grow(&db->procedures, &e->cap_procs, db->nprocedures, sizeof(*p)))
			return -ENOMEM;
		p = &db->procedures[db->nprocedures++];
		rc = xr__u64(x, "i", &p->i);
		if (!rc)
			rc = xr__str(x, "n", &p->n);
		if (!rc)
			rc = xr__u64(x, "lm", &p->lm);
		if (!rc)
			rc = xr__u64(x, "f", &p->f);
		if (!rc)
			rc = xr__u64(x, "l", &p->l);
	} else if (!strcmp(name, "SecCallPathProfileData")) {
		e->data_depth = d;
		if (load__grow(&e->stack, &e->scap, (size_t)d, sizeof(*e->stack)))
			return -ENOMEM;
		e->stack[d] = ROOT;
	} else if (!strcmp(name, "CodePairTable")) {
		rc = xr__u64(x, "top", &db->pairs_top);
	} else if (!strcmp(name, "CP") && !strcmp(parent, "CodePairTable")) {
		struct hc_db_codepair *p;
		bool has_p;
		if (load__grow(&db->pairs, &e->cap_pairs, db->npairs, sizeof(*p)))
			return -ENOMEM;
		p = &db->pairs[db->npairs];
		rc = xr__u64(x, "c", &p->c);
		if (!rc)
			rc = xr__u64_opt(x, "p", &p->p, &has_p);
		if (!rc && has_p && p->p == 0)
			rc = load__fail(e->ld, xr__line(x), "<CP p=\"0\">: node ids start at 1");
		if (!rc)
			rc = xr__u64(x, "all", &p->all);
		if (!rc)
			rc = xr__u64(x, "true", &p->tru);
		if (!rc)
			rc = xr__u64(x, "false", &p->fal);
		if (!rc && p->all != p->tru + p->fal)
			rc = load__fail(e->ld, xr__line(x), "<CP>: all != true + false");
		if (!rc)
			db->npairs++;
	}
	free(s);
	return rc;
}

static int cmp_name(const void *a, const void *b)
{
	uint64_t x = ((const struct hc_db_name *)a)->i, y = ((const struct hc_db_name *)b)->i;
	return x < y ? -1 : x > y;
}

static int cmp_proc(const void *a, const void *b)
{
	uint64_t x = ((const struct hc_db_proc *)a)->i, y = ((const struct hc_db_proc *)b)->i;
	return x < y ? -1 : x > y;
}

static int sort_unique(struct load *ld, void *arr, size_t n, size_t esz,
                       int (*cmp)(const void *, const void *), const char *what)
{
	if (n < 2)
		return 0;   /* qsort's array may not be NULL, even when empty */
	qsort(arr, n, esz, cmp);
	for (size_t k = 1; k < n; k++)
		if (!cmp((char *)arr + (k - 1) * esz, (char *)arr + k * esz))
			return load__fail(ld, 0, "two <%s> entries with the same id", what);
	return 0;
}

/* Table sorting and the references of the tree into the tables. */
static int check_tables(struct load *ld)
{
	struct hc_db *db = ld->db;
	int rc;

	if ((rc = sort_unique(ld, db->lms, db->nlms, sizeof(*db->lms), cmp_name, "LoadModule")) ||
	    (rc = sort_unique(ld, db->files, db->nfiles, sizeof(*db->files), cmp_name, "File")) ||
	    (rc = sort_unique(ld, db->procedures, db->nprocedures, sizeof(*db->procedures),
	                      cmp_proc, "Procedure")))
		return rc;
	for (size_t k = 0; k < db->nprocedures; k++) {
		const struct hc_db_proc *p = &db->procedures[k];
		if (!hc_db_lm_name(db, p->lm) || !hc_db_file_name(db, p->f))
			return load__fail(ld, 0, "<Procedure i=\"%llu\"> names load module %llu or file "
			                   "%llu, not in the tables", (unsigned long long)p->i,
			                   (unsigned long long)p->lm, (unsigned long long)p->f);
	}
	for (size_t k = 0; k < db->nnodes; k++) {
		const struct hc_db_node *nd = &db->nodes[k];
		bool frame = nd->type == HC_DB_N_PF || nd->type == HC_DB_N_A;
		if (!hc_db_file_name(db, nd->f) || (frame && !hc_db_procedure(db, nd->proc)) ||
		    (nd->type == HC_DB_N_PF && !hc_db_lm_name(db, nd->lm)))
			return load__fail(ld, 0, "<%s i=\"%llu\"> names a file, procedure or load "
			                   "module that is not in the tables", type_names[nd->type],
			                   (unsigned long long)nd->id);
	}
	return 0;
}

int read__experiment(struct load *ld)
{
	struct exp e = { .ld = ld, .data_depth = -1 };
	int rc;

	if ((rc = xr__open(&e.x, ld, HC_DB_EXPERIMENT, false)))
		return rc;
	while ((rc = xr__next(e.x)) > 0)
		if ((rc = load_element(&e)))
			break;
	xr__close(e.x);
	free(e.stack);
	if (rc)
		return rc;
	load__file(ld, HC_DB_EXPERIMENT);
	for (int m = 0; m < HC_DB_METRICS; m++)
		if (!e.metric_seen[m])
			return load__fail(ld, 0, "metric %d missing from <MetricTable>", m);
	return read__experiment_check(ld);
}

int read__experiment_check(struct load *ld)
{
	struct hc_db *db = ld->db;
	int rc;

	load__file(ld, HC_DB_EXPERIMENT);
	if (!db->program)
		return load__fail(ld, 0, "missing <Header n=…>");
	if ((rc = check_tables(ld)))
		return rc;
	{
		const uint64_t want[5] = { db->t_all, db->t_true, db->t_false, db->t_sample, db->t_trap };
		for (int b = 0; b < HC_DB_M_COUNT; b++)
			if (db->root_m[HC_DB_METRIC_ID(b, 0)] != want[b])
				return load__fail(ld, 0, "root metric %s (I) = %llu, but database.xml "
				                   "<Totals %s=\"%llu\"> (files from different analyses?)",
				                   hc_db_metric_name(b),
				                   (unsigned long long)db->root_m[HC_DB_METRIC_ID(b, 0)],
				                   hc_db_metric_kind(b), (unsigned long long)want[b]);
	}
	return 0;
}
