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

static void put_metrics(struct out *o, const struct vnode *n)
{
	uint64_t di[HC_DB_M_COUNT], de[HC_DB_M_COUNT];
	char buf[24];
	int b;

	experiment__derive(n->incl, di);
	experiment__derive(n->excl, de);
	for (b = 0; b < HC_DB_M_COUNT; b++) {
		if (di[b]) {
			out__printf(o, "<M n=\"%d\" v=\"%s\"/>\n", HC_DB_METRIC_ID(b, 0),
			            out__fmt_u64(buf, di[b]));
		}
		if (de[b]) {
			out__printf(o, "<M n=\"%d\" v=\"%s\"/>\n", HC_DB_METRIC_ID(b, 1),
			            out__fmt_u64(buf, de[b]));
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

static void open_node(struct out *o, const struct view *v, uint32_t i)
{
	const struct vnode *n = &v->n[i];
	bool empty = !n->first_child && !has_metrics(n);

	switch (n->kind) {
	case V_PF: {
		const struct procedure *p = &v->proc[n->proc];
		out__printf(o, "<PF i=\"%u\" n=\"%u\" lm=\"%u\" f=\"%u\" l=\"%u\"", i, n->proc, p->lm,
		            p->file, p->line);
		break;
	}
	case V_A:
		out__printf(o, "<A i=\"%u\" n=\"%u\" f=\"%u\" l=\"%u\"", i, n->proc, n->file, n->line);
		break;
	case V_C:
		out__printf(o, "<C i=\"%u\" f=\"%u\" l=\"%u\"", i, n->file, n->line);
		break;
	default:
		out__printf(o, "<S i=\"%u\" f=\"%u\" l=\"%u\"", i, n->file, n->line);
		break;
	}
	out__puts(o, empty ? "/>\n" : ">\n");
	if (!empty)
		put_metrics(o, n);
}

static void close_node(struct out *o, const struct view *v, uint32_t i)
{
	static const char *const tag[] = { "", "</PF>\n", "</A>\n", "</C>\n", "</S>\n" };
	const struct vnode *n = &v->n[i];

	if (!n->first_child && !has_metrics(n))
		return;
	out__puts(o, tag[n->kind]);
}

static int write_tree(struct out *o, const struct view *v)
{
	struct frame {
		uint32_t node, next;
	} *st = NULL;
	uint32_t sp = 0, cap = 0, c;
	int ret;

	for (c = v->n[0].first_child; c; c = v->n[c].next_sibling) {
		ret = an__grow(&st, &cap, 1, sizeof(*st));
		if (ret) {
			free(st);
			return ret;
		}
		open_node(o, v, c);
		st[0] = (struct frame){ c, v->n[c].first_child };
		sp = 1;
		while (sp) {
			struct frame *f = &st[sp - 1];
			uint32_t ch = f->next;

			if (!ch) {
				close_node(o, v, f->node);
				sp--;
				continue;
			}
			f->next = v->n[ch].next_sibling;
			ret = an__grow(&st, &cap, sp + 1, sizeof(*st));
			if (ret) {
				free(st);
				return ret;
			}
			open_node(o, v, ch);
			st[sp++] = (struct frame){ ch, v->n[ch].first_child };
		}
	}
	free(st);
	return 0;
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

static int write_pairs(struct out *o, const struct pair *pairs, uint32_t n, unsigned top)
{
	struct pair *rows;
	uint32_t i, k = 0, run = 0;
	char b0[24], b1[24], b2[24];

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
	out__printf(o, "<CodePairTable top=\"%u\">\n", top);
	for (i = 0; i < k; i++) {
		const struct pair *r = &rows[i];

		run = i > 0 && rows[i - 1].c == r->c ? run + 1 : 0;
		if (run >= top)
			continue;
		out__printf(o, "<CP c=\"%u\"", r->c);
		if (r->p)
			out__printf(o, " p=\"%u\"", r->p);
		out__printf(o, " all=\"%s\" true=\"%s\" false=\"%s\"/>\n", out__fmt_u64(b0, r->t + r->f),
		            out__fmt_u64(b1, r->t), out__fmt_u64(b2, r->f));
	}
	out__puts(o, "</CodePairTable>\n");
	free(rows);
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
	struct out o;
	uint32_t i;
	int ret, b, e;

	ret = out__open(&o, dir, HC_DB_EXPERIMENT, err, errlen);
	if (ret)
		return ret;
	out__puts(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	out__printf(&o, "<HPCToolkitExperiment version=\"%d\" generator=\"hpcprof-comm %s\">\n",
	            HC_DB_VERSION, PACKAGE_VERSION);
	out__puts(&o, "<Header n=\"");
	out__xml(&o, experiment__program(an));
	out__puts(&o, "\">\n<Info>\n");
	out__printf(&o, "<NV n=\"unit\" v=\"%s\"/>\n", unit);
	out__printf(&o, "<NV n=\"unit-text\" v=\"%s\"/>\n", hc_db_unit_text(an->unit));
	out__puts(&o, "<NV n=\"samplers\" v=\"");
	for (b = 0, e = 0; b <= HC_SAMPLER_IBS; b++)
		if (an->samplers & (1u << b))
			out__printf(&o, "%s%s", e++ ? " " : "", hc_db_sampler_name(b));
	out__puts(&o, "\"/>\n");
	out__printf(&o, "<NV n=\"processes\" v=\"%u\"/>\n", an->nused_procs);
	out__printf(&o, "<NV n=\"threads\" v=\"%u\"/>\n", an->nthreads);
	out__puts(&o, "</Info>\n</Header>\n");

	out__puts(&o, "<SecCallPathProfile i=\"0\" n=\"");
	out__xml(&o, experiment__program(an));
	out__puts(&o, "\">\n<SecHeader>\n<MetricTable>\n");
	for (b = 0; b < HC_DB_M_COUNT; b++) {
		for (e = 0; e < 2; e++) {
			out__printf(&o, "<Metric i=\"%d\" n=\"%s (%s)\" kind=\"%s\" t=\"%s\" "
			            "partner=\"%d\" unit=\"%s\"/>\n", HC_DB_METRIC_ID(b, e),
			            hc_db_metric_name(b), e ? "E" : "I", hc_db_metric_kind(b),
			            e ? "exclusive" : "inclusive", HC_DB_METRIC_ID(b, !e), unit);
		}
	}
	out__puts(&o, "</MetricTable>\n<LoadModuleTable>\n");
	for (i = 0; i < an->modules.n; i++) {
		out__printf(&o, "<LoadModule i=\"%u\" n=\"", i);
		out__xml(&o, an->modules.s[i]);
		out__puts(&o, "\"/>\n");
	}
	out__puts(&o, "</LoadModuleTable>\n<FileTable>\n");
	for (i = 0; i < v->files.n; i++) {
		out__printf(&o, "<File i=\"%u\" n=\"", i);
		out__xml(&o, v->files.s[i]);
		out__puts(&o, "\"/>\n");
	}
	out__puts(&o, "</FileTable>\n<ProcedureTable>\n");
	for (i = 0; i < v->procs.n; i++) {
		const struct procedure *p = &v->proc[i];
		out__printf(&o, "<Procedure i=\"%u\" n=\"", i);
		out__xml(&o, v->names.s[p->name]);
		out__printf(&o, "\" lm=\"%u\" f=\"%u\" l=\"%u\"/>\n", p->lm, p->file, p->line);
	}
	out__puts(&o, "</ProcedureTable>\n</SecHeader>\n<SecCallPathProfileData>\n");
	put_metrics(&o, &v->n[0]);
	ret = write_tree(&o, v);
	out__puts(&o, "</SecCallPathProfileData>\n");
	if (!ret)
		ret = write_pairs(&o, pairs, npairs, an->top);
	out__puts(&o, "</SecCallPathProfile>\n</HPCToolkitExperiment>\n");
	if (ret) {
		out__close(&o, err, errlen);
		snprintf(err, errlen, "out of memory writing %s", HC_DB_EXPERIMENT);
		return ret;
	}
	return out__close(&o, err, errlen);
}
