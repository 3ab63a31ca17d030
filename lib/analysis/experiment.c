/* SPDX-License-Identifier: BSD-3-Clause */
/* experiment.c — what experiment.xml holds, handed to lib/db's writer
   (db/write.h, lib/db/write_experiment.c): the program's name, the
   symbolized tree and its tables as view.c built them, and the code-pair
   rows, top N peers per context. Also the same content as lib/db's reader
   model (experiment__model), for the summary, which reads the database back
   without parsing experiment.xml. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

static int cmp_row(const void *x, const void *y)
{
	const struct hc_db_wpair *a = x, *b = y;
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
static int pair_rows(const struct hc_db_wpair *pairs, uint32_t n, unsigned top,
                     struct hc_db_wpair **out, uint32_t *nout)
{
	struct hc_db_wpair *rows;
	uint32_t i, k = 0, kept = 0, run = 0;

	rows = malloc(((size_t)n * 2 + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		rows[k++] = pairs[i];
		if (pairs[i].p && pairs[i].p != pairs[i].c)
			rows[k++] = (struct hc_db_wpair){ .c = pairs[i].p, .p = pairs[i].c,
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

const char *experiment__program(const struct an *an)
{
	const char *exe, *b;

	if (!an->nused_procs)
		return "program";
	exe = an->procs[an->proc_order[0]].exe;
	b = strrchr(exe, '/');
	return b && b[1] ? b + 1 : (exe[0] ? exe : "program");
}

/* experiment.xml through lib/db's writer: the tree, the tables and the
   code-pair rows (kept in an->cp_rows for the model). */
int experiment__write(struct an *an, const struct hc_db_wpair *pairs, uint32_t npairs,
                      const char *dir, char *err, size_t errlen)
{
	const struct view *v = &an->view;
	struct hc_db_wexperiment x;
	struct hc_db_wpair *rows;
	uint32_t k;
	int ret = pair_rows(pairs, npairs, an->top, &rows, &k);

	if (ret) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_EXPERIMENT);
		return ret;
	}
	free(an->cp_rows);
	an->cp_rows = rows;
	an->ncp_rows = k;
	x = (struct hc_db_wexperiment){
		.program = experiment__program(an), .unit = an->unit, .samplers = an->samplers,
		.processes = an->nused_procs, .threads = an->nthreads,
		.lms = an->modules.s, .nlms = an->modules.n,
		.files = v->files.s, .nfiles = v->files.n,
		.names = v->names.s, .procs = v->proc, .nprocs = v->procs.n,
		.nodes = v->n, .rows = rows, .nrows = k, .top = an->top,
	};
	return hc_db_write_experiment(dir, &x, err, errlen);
}

/* ---- the model experiment.xml is written from (lib/db's hc_db_open_with) ---- */

struct model_walk {
	struct hc_db *db;
	const struct view *v;
	uint32_t *at;        /* nodes[] index of the open node at each depth */
	uint32_t cap;
};

static void node_metrics(const struct hc_db_tnode *n, uint64_t m[HC_DB_METRICS])
{
	uint64_t di[HC_DB_M_COUNT], de[HC_DB_M_COUNT];

	hc_db_derive(n->incl, di);
	hc_db_derive(n->excl, de);
	for (int b = 0; b < HC_DB_M_COUNT; b++) {
		m[HC_DB_METRIC_ID(b, 0)] = di[b];
		m[HC_DB_METRIC_ID(b, 1)] = de[b];
	}
}

/* As lib/db writes the node (and its reader reads it back). */
static int model_open(void *ctx, uint32_t i, uint32_t depth)
{
	static const uint8_t type[] = { [V_PF] = HC_DB_N_PF, [V_A] = HC_DB_N_A,
	                                [V_C] = HC_DB_N_C, [V_S] = HC_DB_N_S };
	struct model_walk *w = ctx;
	const struct hc_db_tnode *n = &w->v->n[i];
	struct hc_db_node *nd = &w->db->nodes[w->db->nnodes];
	int ret = an__grow(&w->at, &w->cap, depth + 1, sizeof(*w->at));

	if (ret)
		return ret;
	memset(nd, 0, sizeof(*nd));
	nd->id = i;
	nd->type = type[n->kind];
	nd->parent = depth ? w->at[depth - 1] : HC_DB_NONE;
	if (n->kind == V_PF) {
		const struct hc_db_tproc *p = &w->v->proc[n->proc];
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
	struct hc_db_wpair *rows = NULL;
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
		const struct hc_db_tproc *p = &v->proc[i];
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
	ret = hc_db_tree_walk(v->n, model_open, model_close, &w);
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
