/* SPDX-License-Identifier: BSD-3-Clause */
/* experiment.c — writing experiment.xml (doc/database-format.md section 5,
   schema doc/experiment.xsd): header, metric/load-module/file/procedure
   tables, the tree in depth-first order with an explicit stack (call chains
   can be thousands deep), and the code-pair table, top N peers per context.
   Only non-zero metrics are written; values are derived from the four stored
   ones (true/false x sample/trap) here. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "analysis/internal.h"

/* The five published metrics from the four stored ones. */
void experiment__derive(const uint64_t m[HC_M_COUNT], uint64_t d[HC_DB_M_COUNT])
{
	d[HC_DB_M_TRUE] = m[HC_M_TRUE_SAMPLE] + m[HC_M_TRUE_TRAP];
	d[HC_DB_M_FALSE] = m[HC_M_FALSE_SAMPLE] + m[HC_M_FALSE_TRAP];
	d[HC_DB_M_ALL] = d[HC_DB_M_TRUE] + d[HC_DB_M_FALSE];
	d[HC_DB_M_SAMPLE] = m[HC_M_TRUE_SAMPLE] + m[HC_M_FALSE_SAMPLE];
	d[HC_DB_M_TRAP] = m[HC_M_TRUE_TRAP] + m[HC_M_FALSE_TRAP];
}

static void put_metrics(struct hc_out *o, const struct vnode *n)
{
	uint64_t di[HC_DB_M_COUNT], de[HC_DB_M_COUNT];
	char buf[24];
	int b;

	experiment__derive(n->incl, di);
	experiment__derive(n->excl, de);
	for (b = 0; b < HC_DB_M_COUNT; b++) {
		if (di[b]) {
			hc_out_printf(o, "<M n=\"%d\" v=\"%s\"/>\n", HC_DB_METRIC_ID(b, 0),
			            hc_fmt_u64(buf, di[b]));
		}
		if (de[b]) {
			hc_out_printf(o, "<M n=\"%d\" v=\"%s\"/>\n", HC_DB_METRIC_ID(b, 1),
			            hc_fmt_u64(buf, de[b]));
		}
	}
}

static bool has_metrics(const struct vnode *n)
{
	int k;

	for (k = 0; k < HC_M_COUNT; k++)
		if (n->incl[k] || n->excl[k])
			return true;
	return false;
}

static void open_node(struct hc_out *o, const struct view *v, uint32_t i)
{
	const struct vnode *n = &v->n[i];
	bool empty = !n->first_child && !has_metrics(n);

	switch (n->kind) {
	case V_PF: {
		const struct procedure *p = &v->proc[n->proc];
		hc_out_printf(o, "<PF i=\"%u\" n=\"%u\" lm=\"%u\" f=\"%u\" l=\"%u\"", i, n->proc, p->lm,
		            p->file, p->line);
		break;
	}
	case V_A:
		hc_out_printf(o, "<A i=\"%u\" n=\"%u\" f=\"%u\" l=\"%u\"", i, n->proc, n->file, n->line);
		break;
	case V_C:
		hc_out_printf(o, "<C i=\"%u\" f=\"%u\" l=\"%u\"", i, n->file, n->line);
		break;
	default:
		hc_out_printf(o, "<S i=\"%u\" f=\"%u\" l=\"%u\"", i, n->file, n->line);
		break;
	}
	hc_out_puts(o, empty ? "/>\n" : ">\n");
	if (!empty)
		put_metrics(o, n);
}

static void close_node(struct hc_out *o, const struct view *v, uint32_t i)
{
	static const char *const tag[] = { "", "</PF>\n", "</A>\n", "</C>\n", "</S>\n" };
	const struct vnode *n = &v->n[i];

	if (!n->first_child && !has_metrics(n))
		return;
	hc_out_puts(o, tag[n->kind]);
}

/* The tree in document order (preorder, children by sibling links):
   visit(ctx, node, depth) when a node opens, leave(ctx, node) when it
   closes. The XML writer and the model (experiment__model) both walk it. */
static int walk_tree(const struct view *v, int (*visit)(void *ctx, uint32_t i, uint32_t depth),
                     void (*leave)(void *ctx, uint32_t i), void *ctx)
{
	struct frame {
		uint32_t node, next;
	} *st = NULL;
	uint32_t sp = 0, cap = 0, c;
	int ret = 0;

	for (c = v->n[0].first_child; c && !ret; c = v->n[c].next_sibling) {
		ret = an__grow(&st, &cap, 1, sizeof(*st));
		if (!ret)
			ret = visit(ctx, c, 0);
		if (ret)
			break;
		st[0] = (struct frame){ c, v->n[c].first_child };
		sp = 1;
		while (sp) {
			struct frame *f = &st[sp - 1];
			uint32_t ch = f->next;

			if (!ch) {
				leave(ctx, f->node);
				sp--;
				continue;
			}
			f->next = v->n[ch].next_sibling;
			ret = an__grow(&st, &cap, sp + 1, sizeof(*st));
			if (!ret)
				ret = visit(ctx, ch, sp);
			if (ret)
				break;
			st[sp++] = (struct frame){ ch, v->n[ch].first_child };
		}
	}
	free(st);
	return ret;
}

struct xml_walk {
	struct hc_out *o;
	const struct view *v;
};

static int xml_open(void *ctx, uint32_t i, uint32_t depth)
{
	struct xml_walk *w = ctx;

	(void)depth;
	open_node(w->o, w->v, i);
	return 0;
}

static void xml_close(void *ctx, uint32_t i)
{
	struct xml_walk *w = ctx;

	close_node(w->o, w->v, i);
}

static int write_tree(struct hc_out *o, const struct view *v)
{
	struct xml_walk w = { o, v };

	return walk_tree(v, xml_open, xml_close, &w);
}

static int cmp_row(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	uint64_t va = a->t + a->f, vb = b->t + b->f;

	if (a->c != b->c)
		return a->c < b->c ? -1 : 1;
	if (va != vb)
		return va > vb ? -1 : 1;
	return (a->p > b->p) - (a->p < b->p);
}

/* The code-pair table's rows: each pair under both of its ends (one row
   when the peer is unknown or the same node), grouped by c ascending, by
   all descending within a c, at most top per c. *out is malloc'd. */
static int pair_rows(const struct pair *pairs, uint32_t n, unsigned top, struct pair **out,
                     uint32_t *nout)
{
	struct pair *rows;
	uint32_t i, k = 0, kept = 0, run = 0;

	rows = malloc(((size_t)n * 2 + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rows[k++] = pairs[i];
		if (pairs[i].p && pairs[i].p != pairs[i].c)
			rows[k++] = (struct pair){ .c = pairs[i].p, .p = pairs[i].c,
			                           .t = pairs[i].t, .f = pairs[i].f };
	}
	qsort(rows, k, sizeof(*rows), cmp_row);
	for (i = 0; i < k; i++) {
		run = i > 0 && rows[i - 1].c == rows[i].c ? run + 1 : 0;
		if (run < top)
			rows[kept++] = rows[i];
	}
	*out = rows;
	*nout = kept;
	return 0;
}

/* The rows are kept in an->cp_rows for the model (experiment__model). */
static int write_pairs(struct hc_out *o, struct an *an, const struct pair *pairs, uint32_t n,
                       unsigned top)
{
	struct pair *rows;
	uint32_t i, k;
	char b0[24], b1[24], b2[24];
	int ret = pair_rows(pairs, n, top, &rows, &k);

	if (ret)
		return ret;
	hc_out_printf(o, "<CodePairTable top=\"%u\">\n", top);
	for (i = 0; i < k; i++) {
		const struct pair *r = &rows[i];

		hc_out_printf(o, "<CP c=\"%u\"", r->c);
		if (r->p)
			hc_out_printf(o, " p=\"%u\"", r->p);
		hc_out_printf(o, " all=\"%s\" true=\"%s\" false=\"%s\"/>\n", hc_fmt_u64(b0, r->t + r->f),
		            hc_fmt_u64(b1, r->t), hc_fmt_u64(b2, r->f));
	}
	hc_out_puts(o, "</CodePairTable>\n");
	free(an->cp_rows);
	an->cp_rows = rows;
	an->ncp_rows = k;
	return 0;
}

const char *experiment__program(const struct an *an)
{
	const char *exe, *b;

	if (!an->nused_procs)
		return "program";
	exe = an->procs[an->proc_order[0]].exe;
	b = strrchr(exe, '/');
	return b && b[1] ? b + 1 : (exe[0] ? exe : "program");
}

int view__write_experiment(struct an *an, const struct pair *pairs, uint32_t npairs,
                           const char *dir, char *err, size_t errlen)
{
	const struct view *v = &an->view;
	const char *unit = hc_db_unit_name(an->unit);
	struct hc_out o;
	uint32_t i;
	int ret, b, e;

	ret = hc_out_open(&o, dir, HC_DB_EXPERIMENT, err, errlen);
	if (ret)
		return ret;
	hc_out_puts(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	hc_out_printf(&o, "<HPCToolkitExperiment version=\"%d\" generator=\"hpcprof-comm %s\">\n",
	            HC_DB_VERSION, PACKAGE_VERSION);
	hc_out_puts(&o, "<Header n=\"");
	hc_out_xml(&o, experiment__program(an));
	hc_out_puts(&o, "\">\n<Info>\n");
	hc_out_printf(&o, "<NV n=\"unit\" v=\"%s\"/>\n", unit);
	hc_out_printf(&o, "<NV n=\"unit-text\" v=\"%s\"/>\n", hc_db_unit_text(an->unit));
	hc_out_puts(&o, "<NV n=\"samplers\" v=\"");
	for (b = 0, e = 0; b <= HC_SAMPLER_LAST; b++)
		if (an->samplers & (1u << b))
			hc_out_printf(&o, "%s%s", e++ ? " " : "", hc_db_sampler_name(b));
	hc_out_puts(&o, "\"/>\n");
	hc_out_printf(&o, "<NV n=\"processes\" v=\"%u\"/>\n", an->nused_procs);
	hc_out_printf(&o, "<NV n=\"threads\" v=\"%u\"/>\n", an->nthreads);
	hc_out_puts(&o, "</Info>\n</Header>\n");

	hc_out_puts(&o, "<SecCallPathProfile i=\"0\" n=\"");
	hc_out_xml(&o, experiment__program(an));
	hc_out_puts(&o, "\">\n<SecHeader>\n<MetricTable>\n");
	for (b = 0; b < HC_DB_M_COUNT; b++) {
		for (e = 0; e < 2; e++) {
			hc_out_printf(&o, "<Metric i=\"%d\" n=\"%s (%s)\" kind=\"%s\" t=\"%s\" "
			            "partner=\"%d\" unit=\"%s\"/>\n", HC_DB_METRIC_ID(b, e),
			            hc_db_metric_name(b), e ? "E" : "I", hc_db_metric_kind(b),
			            e ? "exclusive" : "inclusive", HC_DB_METRIC_ID(b, !e), unit);
		}
	}
	hc_out_puts(&o, "</MetricTable>\n<LoadModuleTable>\n");
	for (i = 0; i < an->modules.n; i++) {
		hc_out_printf(&o, "<LoadModule i=\"%u\" n=\"", i);
		hc_out_xml(&o, an->modules.s[i]);
		hc_out_puts(&o, "\"/>\n");
	}
	hc_out_puts(&o, "</LoadModuleTable>\n<FileTable>\n");
	for (i = 0; i < v->files.n; i++) {
		hc_out_printf(&o, "<File i=\"%u\" n=\"", i);
		hc_out_xml(&o, v->files.s[i]);
		hc_out_puts(&o, "\"/>\n");
	}
	hc_out_puts(&o, "</FileTable>\n<ProcedureTable>\n");
	for (i = 0; i < v->procs.n; i++) {
		const struct procedure *p = &v->proc[i];
		hc_out_printf(&o, "<Procedure i=\"%u\" n=\"", i);
		hc_out_xml(&o, v->names.s[p->name]);
		hc_out_printf(&o, "\" lm=\"%u\" f=\"%u\" l=\"%u\"/>\n", p->lm, p->file, p->line);
	}
	hc_out_puts(&o, "</ProcedureTable>\n</SecHeader>\n<SecCallPathProfileData>\n");
	put_metrics(&o, &v->n[0]);
	ret = write_tree(&o, v);
	hc_out_puts(&o, "</SecCallPathProfileData>\n");
	if (!ret)
		ret = write_pairs(&o, an, pairs, npairs, an->top);
	hc_out_puts(&o, "</SecCallPathProfile>\n</HPCToolkitExperiment>\n");
	if (ret) {
		hc_out_close(&o, true, err, errlen);
		snprintf(err, errlen, "out of memory writing %s", HC_DB_EXPERIMENT);
		return ret;
	}
	return hc_out_close(&o, true, err, errlen);
}

/* ---- the model experiment.xml is written from (lib/db's hc_db_open_with) ---- */

struct model_walk {
	struct hc_db *db;
	const struct view *v;
	uint32_t *at;        /* nodes[] index of the open node at each depth */
	uint32_t cap;
};

static void node_metrics(const struct vnode *n, uint64_t m[HC_DB_METRICS])
{
	uint64_t di[HC_DB_M_COUNT], de[HC_DB_M_COUNT];

	experiment__derive(n->incl, di);
	experiment__derive(n->excl, de);
	for (int b = 0; b < HC_DB_M_COUNT; b++) {
		m[HC_DB_METRIC_ID(b, 0)] = di[b];
		m[HC_DB_METRIC_ID(b, 1)] = de[b];
	}
}

/* As open_node writes it (and the reader reads it back). */
static int model_open(void *ctx, uint32_t i, uint32_t depth)
{
	static const uint8_t type[] = { [V_PF] = HC_DB_N_PF, [V_A] = HC_DB_N_A,
	                                [V_C] = HC_DB_N_C, [V_S] = HC_DB_N_S };
	struct model_walk *w = ctx;
	const struct vnode *n = &w->v->n[i];
	struct hc_db_node *nd = &w->db->nodes[w->db->nnodes];
	int ret = an__grow(&w->at, &w->cap, depth + 1, sizeof(*w->at));

	if (ret)
		return ret;
	memset(nd, 0, sizeof(*nd));
	nd->id = i;
	nd->type = type[n->kind];
	nd->parent = depth ? w->at[depth - 1] : HC_DB_NONE;
	if (n->kind == V_PF) {
		const struct procedure *p = &w->v->proc[n->proc];
		nd->proc = n->proc;
		nd->lm = p->lm;
		nd->f = p->file;
		nd->l = p->line;
	} else {
		if (n->kind == V_A)
			nd->proc = n->proc;
		nd->f = n->file;
		nd->l = n->line;
	}
	node_metrics(n, nd->m);
	w->at[depth] = (uint32_t)w->db->nnodes++;
	return 0;
}

static void model_close(void *ctx, uint32_t i)
{
	(void)ctx;
	(void)i;
}

static int names_of(const struct strtab *t, struct hc_db_name **out, size_t *n)
{
	*n = 0;
	*out = calloc(t->n ? t->n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++) {
		(*out)[i].i = i;
		if (!((*out)[i].n = strdup(t->s[i])))
			return -ENOMEM;
		*n = i + 1;
	}
	return 0;
}

int experiment__model(struct hc_db *db, void *arg)
{
	const struct experiment_model *em = arg;
	const struct an *an = em->an;
	const struct view *v = &an->view;
	struct model_walk w = { .db = db, .v = v };
	struct pair *rows = NULL;
	uint32_t i, k = 0;
	int ret;

	if (!(db->program = strdup(experiment__program(an))))
		return -ENOMEM;
	if ((ret = names_of(&an->modules, &db->lms, &db->nlms)) ||
	    (ret = names_of(&v->files, &db->files, &db->nfiles)))
		return ret;
	db->procedures = calloc(v->procs.n ? v->procs.n : 1, sizeof(*db->procedures));
	if (!db->procedures)
		return -ENOMEM;
	for (i = 0; i < v->procs.n; i++) {
		const struct procedure *p = &v->proc[i];
		struct hc_db_proc *q = &db->procedures[i];
		q->i = i;
		q->lm = p->lm;
		q->f = p->file;
		q->l = p->line;
		if (!(q->n = strdup(v->names.s[p->name])))
			return -ENOMEM;
		db->nprocedures = i + 1;
	}
	db->nodes = calloc(v->index.n ? v->index.n : 1, sizeof(*db->nodes));
	if (!db->nodes)
		return -ENOMEM;
	node_metrics(&v->n[0], db->root_m);
	ret = walk_tree(v, model_open, model_close, &w);
	free(w.at);
	if (ret)
		return ret;
	if (an->cp_rows) {     /* as experiment.xml was written */
		rows = an->cp_rows;
		k = an->ncp_rows;
	} else if ((ret = pair_rows(em->pairs, em->npairs, an->top, &rows, &k))) {
		return ret;
	}
	db->pairs = calloc(k ? k : 1, sizeof(*db->pairs));
	if (!db->pairs) {
		if (rows != an->cp_rows)
			free(rows);
		return -ENOMEM;
	}
	for (i = 0; i < k; i++)
		db->pairs[i] = (struct hc_db_codepair){ .c = rows[i].c, .p = rows[i].p,
		                                        .all = rows[i].t + rows[i].f,
		                                        .tru = rows[i].t, .fal = rows[i].f };
	db->npairs = k;
	db->pairs_top = an->top;
	if (rows != an->cp_rows)
		free(rows);
	return 0;
}
