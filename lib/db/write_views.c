/* SPDX-License-Identifier: BSD-3-Clause */
/* write_views.c — writing the two view files (doc/database-format.md):
   phases.xml (the run cut into windows, windows grouped into phases, each
   with its thread matrix, and the timeline's lines) and locality.xml (NUMA
   locality per data object). The reader's twin is read_views.c. No signal
   context. */
#include <string.h>

#include "db/write.h"
#include "support/out.h"

int hc_db_write_phases(const char *dir, const struct hc_db_wphases *v, char *err, size_t errlen)
{
	struct hc_out o;
	uint32_t k, c, w;
	int ret = hc_out_open(&o, dir, HC_DB_PHASES, err, errlen);

	if (ret)
		return ret;
	hc_out_printf(&o, "<?xml version=\"1.0\"?>\n<" HC_DB_ROOT_PHASES " version=\"%d\" unit=\"%s\" "
	              "window=\"%llu\" windows=\"%u\" span=\"%llu\" similarity=\"%.2f\" "
	              "rule=\"" HC_DB_PHASE_RULE "\">\n", HC_DB_VERSION, hc_db_unit_name(v->unit),
	              (unsigned long long)v->width, v->nwin, (unsigned long long)v->span,
	              v->similarity);
	for (k = 0; k < v->nph; k++) {
		const struct hc_db_wphase *p = &v->ph[k];
		hc_out_printf(&o, "  <Phase i=\"%u\" start=\"%llu\" end=\"%llu\" first=\"%u\" "
		              "last=\"%u\"", k, (unsigned long long)p->first * v->width,
		              (unsigned long long)(p->last + 1) * v->width, p->first, p->last);
		hc_db_attr_vol(&o, p->t, p->f);
		if (p->pi != UINT32_MAX)
			hc_out_printf(&o, " pair_i=\"%u\" pair_j=\"%u\" pair_all=\"%llu\"", p->pi, p->pj,
			              (unsigned long long)p->pv);
		if (p->obj != UINT32_MAX) {
			hc_out_printf(&o, " object=\"%u\" object_all=\"%llu\" object_name=\"", p->obj,
			              (unsigned long long)p->ov);
			hc_out_xml(&o, p->object_name);
			hc_out_puts(&o, "\"");
		}
		hc_out_puts(&o, ">\n");
		for (c = 0; c < p->ncells; c++) {
			/* one line formatted and written at once: 20 phases of ~285,000
			   cells at 100,000 threads */
			const struct hc_db_mcell *x = &p->cells[c];
			char line[160], *q = line;
#define LIT(s) (memcpy(q, s, sizeof(s) - 1), q += sizeof(s) - 1)
			LIT("    <T i=\"");
			q = hc_db_put_dec(q, x->i);
			LIT("\" j=\"");
			q = hc_db_put_dec(q, x->j);
			LIT("\" all=\"");
			q = hc_db_put_dec(q, x->v[0] + x->v[1]);
			LIT("\" true=\"");
			q = hc_db_put_dec(q, x->v[0]);
			LIT("\" false=\"");
			q = hc_db_put_dec(q, x->v[1]);
			LIT("\"/>\n");
#undef LIT
			*q = '\0';
			hc_out_puts(&o, line);
		}
		hc_out_puts(&o, "  </Phase>\n");
	}
	for (k = 0; k < v->nline; k++) {
		if (v->lines[k].j != UINT32_MAX)
			hc_out_printf(&o, "  <Line kind=\"" HC_DB_LINE_PAIR "\" i=\"%u\" j=\"%u\"/>\n", v->lines[k].i,
			              v->lines[k].j);
		else
			hc_out_printf(&o, "  <Line kind=\"" HC_DB_LINE_OBJECT "\" object=\"%u\"/>\n",
			              v->lines[k].i);
	}
	for (w = 0; w < v->nwin; w++) {
		hc_out_printf(&o, "  <Window i=\"%u\" start=\"%llu\" end=\"%llu\" phase=\"%u\"", w,
		              (unsigned long long)w * v->width, (unsigned long long)(w + 1) * v->width,
		              v->wphase[w]);
		hc_db_attr_vol(&o, v->wvol[w][0], v->wvol[w][1]);
		hc_out_puts(&o, " lines=\"");
		for (k = 0; k < v->nline; k++)
			hc_out_printf(&o, "%s%llu", k ? " " : "",
			              (unsigned long long)v->lval[(size_t)w * v->nline + k]);
		hc_out_puts(&o, "\"/>\n");
	}
	hc_out_puts(&o, "</" HC_DB_ROOT_PHASES ">\n");
	return hc_out_close(&o, true, err, errlen);
}

int hc_db_write_locality(const char *dir, const struct hc_db_wlocality *n, char *err,
                         size_t errlen)
{
	struct hc_out o;
	uint32_t i, d;
	int ret = hc_out_open(&o, dir, HC_DB_LOCALITY, err, errlen);

	if (ret)
		return ret;
	hc_out_printf(&o, "<?xml version=\"1.0\"?>\n<" HC_DB_ROOT_LOCALITY " version=\"%d\" unit=\"%s\" "
	              "domains=\"%u\" single=\"%d\" pages=\"%d\" flag=\"%.2f\" local=\"%llu\" "
	              "remote=\"%llu\" unlocated=\"%llu\">\n", HC_DB_VERSION,
	              hc_db_unit_name(n->unit), n->domains, n->single, n->pages, n->flag,
	              (unsigned long long)n->local, (unsigned long long)n->remote,
	              (unsigned long long)n->unknown);
	for (i = 0; i < n->n; i++) {
		const struct hc_db_wlocobj *x = &n->o[i];
		uint64_t loc = x->local + x->remote;

		hc_out_printf(&o, "  <Object i=\"%u\" name=\"", x->obj);
		hc_out_xml(&o, x->name);
		hc_out_printf(&o, "\" local=\"%llu\" remote=\"%llu\" unlocated=\"%llu\" "
		              "remote_share=\"%.4f\" flagged=\"%d\"", (unsigned long long)x->local,
		              (unsigned long long)x->remote, (unsigned long long)x->unknown,
		              loc ? (double)x->remote / (double)loc : 0.0, x->flagged);
		if (x->first != UINT32_MAX)
			hc_out_printf(&o, " first_thread=\"%u\"", x->first);
		hc_out_puts(&o, ">\n");
		for (d = 0; d < n->ndom; d++)
			if (x->page[d])
				hc_out_printf(&o, "    <Page node=\"%u\" all=\"%llu\"/>\n", d,
				              (unsigned long long)x->page[d]);
		for (d = 0; d < n->ndom; d++)
			if (x->thr[d])
				hc_out_printf(&o, "    <Thread node=\"%u\" all=\"%llu\"/>\n", d,
				              (unsigned long long)x->thr[d]);
		hc_out_puts(&o, "  </Object>\n");
	}
	hc_out_puts(&o, "</" HC_DB_ROOT_LOCALITY ">\n");
	return hc_out_close(&o, true, err, errlen);
}
