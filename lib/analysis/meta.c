/* SPDX-License-Identifier: BSD-3-Clause */
/* meta.c — writing database.xml (doc/database-format.md section 4, schema
   doc/database.xsd): the unit, inputs, skipped profiles with their reasons,
   hosts and their topologies, processes, the list of matrix files with their
   totals, the labels of the core/socket/NUMA indexes, totals, counters summed
   over the profiles, and warnings. It is the one small file a reader opens
   first to learn what the rest means. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "analysis/internal.h"

static void attr_str(struct hc_out *o, const char *name, const char *v)
{
	hc_out_printf(o, " %s=\"", name);
	hc_out_xml(o, v);
	hc_out_puts(o, "\"");
}

static void attr_u64(struct hc_out *o, const char *name, uint64_t v)
{
	char b[24];

	hc_out_printf(o, " %s=\"%s\"", name, hc_fmt_u64(b, v));
}

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct an_counter *)a)->name, ((const struct an_counter *)b)->name);
}

/* Counters summed by name over the used profiles, sorted by name. */
static int sum_counters(const struct an *an, struct an_counter **out, uint32_t *nout)
{
	struct strtab names;
	struct an_counter *c = NULL;
	uint32_t cap = 0, i, k, id;
	int ret;

	*out = NULL;
	*nout = 0;
	ret = strtab__init(&names);
	if (ret)
		return ret;
	for (i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];

		if (p->status != AN_OK)
			continue;
		for (k = 0; k < p->ncounters; k++) {
			ret = strtab__intern(&names, p->counters[k].name, &id);
			if (ret < 0)
				goto out;
			if (ret == 1) {
				ret = an__grow(&c, &cap, names.n, sizeof(*c));
				if (ret)
					goto out;
				memset(&c[id], 0, sizeof(c[id]));
				memcpy(c[id].name, p->counters[k].name, sizeof(c[id].name));
			}
			c[id].value += p->counters[k].value;
		}
	}
	ret = 0;
	if (c)
		qsort(c, names.n, sizeof(*c), cmp_counter);
	*out = c;
	*nout = names.n;
	c = NULL;
out:
	free(c);
	strtab__free(&names);
	return ret;
}

static void host_attr(struct hc_out *o, const struct an *an, uint32_t h)
{
	hc_out_printf(o, " host=\"%08x\"", an->hosts[h].id);
}

int meta__write(struct an *an, const struct levels *lv, const char *dir, char *err, size_t errlen)
{
	const char *unit = hc_db_unit_name(an->unit);
	struct an_counter *cnt = NULL;
	uint64_t d[HC_DB_M_COUNT];
	uint32_t ncnt = 0, i, found = an->nprofs, used = 0, skipped = 0;
	struct hc_out o;
	int ret, b, e, lev, kind;
	size_t k;

	ret = sum_counters(an, &cnt, &ncnt);
	if (ret) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_META);
		return ret;
	}
	ret = hc_out_open(&o, dir, HC_DB_META, err, errlen);
	if (ret) {
		free(cnt);
		return ret;
	}
	for (i = 0; i < an->nprofs; i++) {
		used += an->profs[i].status == AN_OK;
		skipped += an->profs[i].status != AN_OK;
	}

	hc_out_puts(&o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	hc_out_printf(&o, "<Database version=\"%d\" generator=\"hpcprof-comm %s\">\n", HC_DB_VERSION,
	            PACKAGE_VERSION);
	hc_out_printf(&o, "  <Measurement unit=\"%s\" unit-text=\"%s\" samplers=\"", unit,
	            hc_db_unit_text_of(an->unit, an->samplers));
	for (b = 0, e = 0; b <= HC_SAMPLER_LAST; b++)
		if (an->samplers & (1u << b))
			hc_out_printf(&o, "%s%s", e++ ? " " : "", hc_db_sampler_name(b));
	hc_out_puts(&o, "\"");
	if (an->samplers & (1u << HC_SAMPLER_IBS))
		hc_out_printf(&o, " scaling=\"%s\"", HC_DB_IBS_SCALING);
	hc_out_puts(&o, "/>\n  <Inputs>\n");
	for (k = 0; k < an->o->ninputs; k++) {
		hc_out_puts(&o, "    <Input");
		attr_str(&o, "path", an->o->inputs[k]);
		hc_out_puts(&o, "/>\n");
	}
	hc_out_printf(&o, "  </Inputs>\n  <Profiles found=\"%u\" read=\"%u\" skipped=\"%u\">\n", found,
	            used, skipped);
	for (i = 0; i < an->nprofs; i++) {
		const struct an_prof *p = &an->profs[i];
		if (p->status == AN_OK)
			continue;
		hc_out_puts(&o, "    <Skipped");
		attr_str(&o, "file", p->path);
		attr_str(&o, "reason", p->reason ? p->reason : "not read");
		hc_out_puts(&o, "/>\n");
	}
	hc_out_puts(&o, "  </Profiles>\n  <Hosts>\n");
	for (i = 0; i < an->nhosts; i++) {
		const struct an_host *h = &an->hosts[i];
		hc_out_printf(&o, "    <Host i=\"%u\" id=\"%08x\"", i, h->id);
		if (h->topo && h->topo->hostname[0])
			attr_str(&o, "name", h->topo->hostname);
		if (h->topo) {
			attr_str(&o, "topology", h->topo_path);
			hc_out_printf(&o, " pus=\"%u\" cores=\"%u\" sockets=\"%u\" numa=\"%u\"",
			            h->topo->npu, h->topo->ncores, h->topo->nsockets, h->topo->nnuma);
		}
		hc_out_puts(&o, "/>\n");
	}
	hc_out_puts(&o, "  </Hosts>\n  <Processes>\n");
	for (i = 0; i < an->nused_procs; i++) {
		const struct an_proc *pr = &an->procs[an->proc_order[i]];
		hc_out_printf(&o, "    <Process i=\"%u\"", i);
		host_attr(&o, an, pr->host);
		hc_out_printf(&o, " rank=\"%u\" pid=\"%u\" ppid=\"%u\" gen=\"%u\"", pr->rank, pr->pid,
		              pr->ppid, pr->gen);
		attr_str(&o, "exe", pr->exe);
		attr_u64(&o, "start-ns", pr->start_ns);
		hc_out_printf(&o, " threads=\"%u\" first-thread=\"%u\"", pr->nthreads, pr->first);
		if (pr->log)
			attr_str(&o, "log", pr->log);
		hc_out_puts(&o, "/>\n");
	}
	hc_out_puts(&o, "  </Processes>\n");
	ret = ranks__xml(an, lv, &o);
	if (ret) {
		hc_out_close(&o, false, err, errlen);
		free(cnt);
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	hc_out_printf(&o, "  <Matrices unit=\"%s\">\n", unit);
	for (lev = 0; lev < HC_DB_LEVEL_COUNT; lev++) {
		const struct matrix *m = &lv->m[lev];
		if (!m->present)
			continue;
		for (kind = 0; kind < HC_DB_KIND_COUNT; kind++) {
			uint64_t dg = kind == HC_DB_KIND_TRUE ? m->diag[0] :
			              kind == HC_DB_KIND_FALSE ? m->diag[1] : m->diag[0] + m->diag[1];
			uint64_t un = kind == HC_DB_KIND_TRUE ? m->unplaced[0] :
			              kind == HC_DB_KIND_FALSE ? m->unplaced[1] :
			              m->unplaced[0] + m->unplaced[1];
			hc_out_printf(&o, "    <Matrix level=\"%s\" kind=\"%s\" file=\"%s/%s-%s.csv\" "
			            "unit=\"%s\" n=\"%u\"", hc_db_level_name(lev), hc_db_kind_name(kind),
			            HC_DB_MATRICES, hc_db_level_name(lev), hc_db_kind_name(kind), unit, m->n);
			if (matrix__sparse(m, an->dense_max))
				hc_out_puts(&o, " format=\"sparse\"");
			attr_u64(&o, "total", matrix__total(m, kind));
			attr_u64(&o, "diagonal", dg);
			attr_u64(&o, "unplaced", un);
			hc_out_puts(&o, "/>\n");
		}
	}
	hc_out_puts(&o, "  </Matrices>\n");
	for (lev = HC_DB_LEVEL_CORE; lev < HC_DB_LEVEL_COUNT; lev++) {
		if (!lv->m[lev].present)
			continue;
		hc_out_printf(&o, "  <Labels level=\"%s\">\n", hc_db_level_name(lev));
		for (i = 0; i < lv->n_lab[lev]; i++) {
			const struct label *l = &lv->lab[lev][i];
			hc_out_printf(&o, "    <Label i=\"%u\"", i);
			host_attr(&o, an, l->host);
			if (l->cpu >= 0)
				hc_out_printf(&o, " cpu=\"%d\"", l->cpu);
			if (l->core >= 0)
				hc_out_printf(&o, " core=\"%d\"", l->core);
			if (l->socket >= 0)
				hc_out_printf(&o, " socket=\"%d\"", l->socket);
			if (l->numa >= 0)
				hc_out_printf(&o, " numa=\"%d\"", l->numa);
			hc_out_puts(&o, "/>\n");
		}
		hc_out_puts(&o, "  </Labels>\n");
	}
	hc_db_derive(an->mtot, d);
	hc_out_puts(&o, "  <Totals");
	attr_u64(&o, "all", d[HC_DB_M_ALL]);
	attr_u64(&o, "true", d[HC_DB_M_TRUE]);
	attr_u64(&o, "false", d[HC_DB_M_FALSE]);
	attr_u64(&o, "sample", d[HC_DB_M_SAMPLE]);
	attr_u64(&o, "trap", d[HC_DB_M_TRAP]);
	attr_u64(&o, "events", an->nevents);
	attr_u64(&o, "event-weight", an->event_weight);
	hc_out_puts(&o, "/>\n  <Counters>\n");
	for (i = 0; i < ncnt; i++) {
		hc_out_puts(&o, "    <Counter");
		attr_str(&o, "n", cnt[i].name);
		attr_u64(&o, "v", cnt[i].value);
		hc_out_puts(&o, "/>\n");
	}
	hc_out_puts(&o, "  </Counters>\n");
	if (an->nwarns) {
		hc_out_puts(&o, "  <Warnings>\n");
		for (i = 0; i < an->nwarns; i++) {
			hc_out_puts(&o, "    <Warning>");
			hc_out_xml(&o, an->warns[i].text);
			hc_out_puts(&o, "</Warning>\n");
		}
		hc_out_puts(&o, "  </Warnings>\n");
	}
	hc_out_puts(&o, "</Database>\n");
	free(cnt);
	return hc_out_close(&o, true, err, errlen);
}
