/* SPDX-License-Identifier: BSD-3-Clause */
/* write_experiment.c — writing experiment.xml (doc/database-format.md
   section 5, schema doc/experiment.xsd) from the tree the analyzer built:
   header, metric/load-module/file/procedure tables, the tree in depth-first
   order with an explicit stack (call chains can be thousands deep), and the
   code-pair table whose rows the analyzer chose (top N peers per context).
   Only non-zero metrics are written; the five published values are derived
   from the four stored ones here (hc_db_derive). The reader's twin is
   read_experiment.c. No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db/internal.h"
#include "db/write.h"
#include "support/fmt.h"
#include "support/out.h"

static void put_metrics(struct hc_out *o, const struct hc_db_tnode *n)
{
	uint64_t di[HC_DB_M_COUNT], de[HC_DB_M_COUNT];
	char buf[24];
	int b;

	hc_db_derive(n->incl, di);
	hc_db_derive(n->excl, de);
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

static bool has_metrics(const struct hc_db_tnode *n)
{
	int k;

	for (k = 0; k < HC_M_COUNT; k++)
		if (n->incl[k] || n->excl[k])
			return true;
	return false;
}

static void open_node(struct hc_out *o, const struct hc_db_wexperiment *x, uint32_t i)
{
	const struct hc_db_tnode *n = &x->nodes[i];
	bool empty = !n->first_child && !has_metrics(n);

	switch (n->kind) {
	case HC_DB_T_PF: {
		const struct hc_db_tproc *p = &x->procs[n->proc];
		hc_out_printf(o, "<PF i=\"%u\" n=\"%u\" lm=\"%u\" f=\"%u\" l=\"%u\"", i, n->proc, p->lm,
		            p->file, p->line);
		break;
	}
	case HC_DB_T_A:
		hc_out_printf(o, "<A i=\"%u\" n=\"%u\" f=\"%u\" l=\"%u\"", i, n->proc, n->file, n->line);
		break;
	case HC_DB_T_C:
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

static void close_node(struct hc_out *o, const struct hc_db_wexperiment *x, uint32_t i)
{
	static const char *const tag[] = { "", "</PF>\n", "</A>\n", "</C>\n", "</S>\n" };
	const struct hc_db_tnode *n = &x->nodes[i];

	if (!n->first_child && !has_metrics(n))
		return;
	hc_out_puts(o, tag[n->kind]);
}

int hc_db_tree_walk(const struct hc_db_tnode *n,
                    int (*visit)(void *ctx, uint32_t i, uint32_t depth),
                    void (*leave)(void *ctx, uint32_t i), void *ctx)
{
	struct frame {
		uint32_t node, next;
	} *st = NULL;
	uint32_t sp = 0, c;
	size_t cap = 0;
	int ret = 0;

	for (c = n[0].first_child; c && !ret; c = n[c].next_sibling) {
		ret = load__grow(&st, &cap, 0, sizeof(*st));
		if (!ret)
			ret = visit(ctx, c, 0);
		if (ret)
			break;
		st[0] = (struct frame){ c, n[c].first_child };
		sp = 1;
		while (sp) {
			struct frame *f = &st[sp - 1];
			uint32_t ch = f->next;

			if (!ch) {
				leave(ctx, f->node);
				sp--;
				continue;
			}
			f->next = n[ch].next_sibling;
			ret = load__grow(&st, &cap, sp, sizeof(*st));
			if (!ret)
				ret = visit(ctx, ch, sp);
			if (ret)
				break;
			st[sp++] = (struct frame){ ch, n[ch].first_child };
		}
	}
	free(st);
	return ret;
}

struct xml_walk {
	struct hc_out *o;
	const struct hc_db_wexperiment *x;
};

static int xml_open(void *ctx, uint32_t i, uint32_t depth)
{
	struct xml_walk *w = ctx;

	(void)depth;
	open_node(w->o, w->x, i);
	return 0;
}

static void xml_close(void *ctx, uint32_t i)
{
	struct xml_walk *w = ctx;

	close_node(w->o, w->x, i);
}

static void write_pairs(struct hc_out *o, const struct hc_db_wexperiment *x)
{
	uint32_t i;
	char b0[24], b1[24], b2[24];

	hc_out_printf(o, "<CodePairTable top=\"%u\">\n", x->top);
	for (i = 0; i < x->nrows; i++) {
		const struct hc_db_wpair *r = &x->rows[i];

		hc_out_printf(o, "<CP c=\"%u\"", r->c);
		if (r->p)
			hc_out_printf(o, " p=\"%u\"", r->p);
		hc_out_printf(o, " all=\"%s\" true=\"%s\" false=\"%s\"/>\n", hc_fmt_u64(b0, r->t + r->f),
		            hc_fmt_u64(b1, r->t), hc_fmt_u64(b2, r->f));
	}
	hc_out_puts(o, "</CodePairTable>\n");
}

int hc_db_write_experiment(const char *dir, const struct hc_db_wexperiment *x, char *err,
                           size_t errlen)
{
	const char *unit = hc_db_unit_name(x->unit);
	struct xml_walk w;
	struct hc_out o;
	uint32_t i;
	int ret, b, e;

	ret = hc_db_xml_open(&o, dir, HC_DB_EXPERIMENT, HC_DB_ROOT_EXPERIMENT, err, errlen);
	if (ret)
		return ret;
	hc_out_puts(&o, "<Header n=\"");
	hc_out_xml(&o, x->program);
	hc_out_puts(&o, "\">\n<Info>\n");
	hc_out_printf(&o, "<NV n=\"unit\" v=\"%s\"/>\n", unit);
	hc_out_printf(&o, "<NV n=\"unit-text\" v=\"%s\"/>\n", hc_db_unit_text(x->unit));
	hc_out_puts(&o, "<NV n=\"samplers\" v=\"");
	hc_db_put_samplers(&o, x->samplers);
	hc_out_puts(&o, "\"/>\n");
	hc_out_printf(&o, "<NV n=\"processes\" v=\"%u\"/>\n", x->processes);
	hc_out_printf(&o, "<NV n=\"threads\" v=\"%u\"/>\n", x->threads);
	hc_out_puts(&o, "</Info>\n</Header>\n");

	hc_out_puts(&o, "<SecCallPathProfile i=\"0\" n=\"");
	hc_out_xml(&o, x->program);
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
	for (i = 0; i < x->nlms; i++) {
		hc_out_printf(&o, "<LoadModule i=\"%u\" n=\"", i);
		hc_out_xml(&o, x->lms[i]);
		hc_out_puts(&o, "\"/>\n");
	}
	hc_out_puts(&o, "</LoadModuleTable>\n<FileTable>\n");
	for (i = 0; i < x->nfiles; i++) {
		hc_out_printf(&o, "<File i=\"%u\" n=\"", i);
		hc_out_xml(&o, x->files[i]);
		hc_out_puts(&o, "\"/>\n");
	}
	hc_out_puts(&o, "</FileTable>\n<ProcedureTable>\n");
	for (i = 0; i < x->nprocs; i++) {
		const struct hc_db_tproc *p = &x->procs[i];
		hc_out_printf(&o, "<Procedure i=\"%u\" n=\"", i);
		hc_out_xml(&o, x->names[p->name]);
		hc_out_printf(&o, "\" lm=\"%u\" f=\"%u\" l=\"%u\"/>\n", p->lm, p->file, p->line);
	}
	hc_out_puts(&o, "</ProcedureTable>\n</SecHeader>\n<SecCallPathProfileData>\n");
	put_metrics(&o, &x->nodes[0]);
	w = (struct xml_walk){ &o, x };
	ret = hc_db_tree_walk(x->nodes, xml_open, xml_close, &w);
	hc_out_puts(&o, "</SecCallPathProfileData>\n");
	if (!ret)
		write_pairs(&o, x);
	hc_out_puts(&o, "</SecCallPathProfile>\n</" HC_DB_ROOT_EXPERIMENT ">\n");
	if (ret) {
		hc_out_close(&o, true, err, errlen);
		snprintf(err, errlen, "out of memory writing %s", HC_DB_EXPERIMENT);
		return ret;
	}
	return hc_out_close(&o, true, err, errlen);
}
