/* SPDX-License-Identifier: BSD-3-Clause */
/* write_meta.c — writing database.xml (doc/database-format.md section 4,
   schema doc/database.xsd): the unit, inputs, skipped profiles with their
   reasons, hosts and their topologies, processes, the MPI ranks (several
   ranks only), the list of matrix files with their totals, the labels of the
   core/socket/NUMA indexes, totals, counters and warnings. It is the one
   small file a reader opens first to learn what the rest means; the
   reader's twin is read_meta.c. No signal context. */
#include "config.h"
#include "db/write.h"
#include "support/out.h"

static void host_attr(struct hc_out *o, uint32_t id)
{
	hc_out_printf(o, " host=\"%08x\"", id);
}

static void put_ranks(struct hc_out *o, const struct hc_db_wmeta *m)
{
	uint32_t k;

	hc_out_printf(o, "  <Ranks n=\"%u\">\n", m->nranks);
	for (k = 0; k < m->nranks; k++) {
		const struct hc_db_wrank *r = &m->ranks[k];

		hc_out_printf(o, "    <Rank rank=\"%u\" host=\"", r->rank);
		hc_out_xml(o, r->host);
		hc_out_printf(o, "\" processes=\"%u\" threads=\"%u\"", r->processes, r->threads);
		hc_db_attr_u64(o, "within-true", r->within[0]);
		hc_db_attr_u64(o, "within-false", r->within[1]);
		hc_db_attr_u64(o, "across-true", r->across[0]);
		hc_db_attr_u64(o, "across-false", r->across[1]);
		hc_out_puts(o, "/>\n");
	}
	for (k = 0; k < m->nrankpairs; k++) {
		const struct hc_db_wrankpair *p = &m->rankpairs[k];

		hc_out_printf(o, "    <RankPair a=\"%u\" b=\"%u\"", p->a, p->b);
		hc_db_attr_u64(o, "true", p->v[0]);
		hc_db_attr_u64(o, "false", p->v[1]);
		hc_out_puts(o, "/>\n");
	}
	hc_out_puts(o, "  </Ranks>\n");
}

int hc_db_write_meta(const char *dir, const struct hc_db_wmeta *m, char *err, size_t errlen)
{
	const char *unit = hc_db_unit_name(m->unit);
	uint64_t d[HC_DB_M_COUNT];
	struct hc_out o;
	uint32_t i;
	int ret, lev, kind;
	size_t k;

	ret = hc_db_xml_open(&o, dir, HC_DB_META, HC_DB_ROOT_META, err, errlen);
	if (ret)
		return ret;
	hc_out_printf(&o, "  <Measurement unit=\"%s\" unit-text=\"%s\" samplers=\"", unit,
	            hc_db_unit_text_of(m->unit, m->samplers));
	hc_db_put_samplers(&o, m->samplers);
	hc_out_puts(&o, "\"");
	if (m->samplers & (1u << HC_SAMPLER_IBS))
		hc_out_printf(&o, " scaling=\"%s\"", HC_DB_IBS_SCALING);
	hc_out_puts(&o, "/>\n  <Inputs>\n");
	for (k = 0; k < m->ninputs; k++) {
		hc_out_puts(&o, "    <Input");
		hc_db_attr_str(&o, "path", m->inputs[k]);
		hc_out_puts(&o, "/>\n");
	}
	hc_out_printf(&o, "  </Inputs>\n  <Profiles found=\"%u\" read=\"%u\" skipped=\"%u\">\n",
	            m->found, m->read, m->skipped);
	for (i = 0; i < m->nskips; i++) {
		hc_out_puts(&o, "    <Skipped");
		hc_db_attr_str(&o, "file", m->skips[i].file);
		hc_db_attr_str(&o, "reason", m->skips[i].reason);
		hc_out_puts(&o, "/>\n");
	}
	hc_out_puts(&o, "  </Profiles>\n  <Hosts>\n");
	for (i = 0; i < m->nhosts; i++) {
		const struct hc_db_whost *h = &m->hosts[i];
		hc_out_printf(&o, "    <Host i=\"%u\" id=\"%08x\"", i, h->id);
		if (h->name && h->name[0])
			hc_db_attr_str(&o, "name", h->name);
		if (h->topology) {
			hc_db_attr_str(&o, "topology", h->topology);
			hc_out_printf(&o, " pus=\"%u\" cores=\"%u\" sockets=\"%u\" numa=\"%u\"",
			            h->pus, h->cores, h->sockets, h->numa);
		}
		hc_out_puts(&o, "/>\n");
	}
	hc_out_puts(&o, "  </Hosts>\n  <Processes>\n");
	for (i = 0; i < m->nprocs; i++) {
		const struct hc_db_wprocess *pr = &m->procs[i];
		hc_out_printf(&o, "    <Process i=\"%u\"", i);
		host_attr(&o, pr->host);
		hc_out_printf(&o, " rank=\"%u\" pid=\"%u\" ppid=\"%u\" gen=\"%u\"", pr->rank, pr->pid,
		              pr->ppid, pr->gen);
		hc_db_attr_str(&o, "exe", pr->exe);
		hc_db_attr_u64(&o, "start-ns", pr->start_ns);
		hc_out_printf(&o, " threads=\"%u\" first-thread=\"%u\"", pr->threads, pr->first_thread);
		if (pr->log)
			hc_db_attr_str(&o, "log", pr->log);
		hc_out_puts(&o, "/>\n");
	}
	hc_out_puts(&o, "  </Processes>\n");
	if (m->nranks >= 2)
		put_ranks(&o, m);
	hc_out_printf(&o, "  <Matrices unit=\"%s\">\n", unit);
	for (lev = 0; lev < HC_DB_LEVEL_COUNT; lev++) {
		const struct hc_db_wmatinfo *x = &m->mat[lev];
		if (!x->present)
			continue;
		for (kind = 0; kind < HC_DB_KIND_COUNT; kind++) {
			hc_out_printf(&o, "    <Matrix level=\"%s\" kind=\"%s\" file=\"%s/%s-%s.csv\" "
			            "unit=\"%s\" n=\"%u\"", hc_db_level_name(lev), hc_db_kind_name(kind),
			            HC_DB_MATRICES, hc_db_level_name(lev), hc_db_kind_name(kind), unit, x->n);
			if (hc_db_matrix_sparse(x->n, m->dense_max))
				hc_out_puts(&o, " format=\"sparse\"");
			hc_db_attr_u64(&o, "total", x->total[kind]);
			hc_db_attr_u64(&o, "diagonal", hc_db_kind_of(x->diag, kind));
			hc_db_attr_u64(&o, "unplaced", hc_db_kind_of(x->unplaced, kind));
			hc_out_puts(&o, "/>\n");
		}
	}
	hc_out_puts(&o, "  </Matrices>\n");
	for (lev = HC_DB_LEVEL_CORE; lev < HC_DB_LEVEL_COUNT; lev++) {
		if (!m->mat[lev].present)
			continue;
		hc_out_printf(&o, "  <Labels level=\"%s\">\n", hc_db_level_name(lev));
		for (i = 0; i < m->nlabels[lev]; i++) {
			const struct hc_db_wlabel *l = &m->labels[lev][i];
			hc_out_printf(&o, "    <Label i=\"%u\"", i);
			host_attr(&o, l->host);
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
	hc_db_derive(m->totals, d);
	hc_out_puts(&o, "  <Totals");
	hc_db_attr_u64(&o, "all", d[HC_DB_M_ALL]);
	hc_db_attr_u64(&o, "true", d[HC_DB_M_TRUE]);
	hc_db_attr_u64(&o, "false", d[HC_DB_M_FALSE]);
	hc_db_attr_u64(&o, "sample", d[HC_DB_M_SAMPLE]);
	hc_db_attr_u64(&o, "trap", d[HC_DB_M_TRAP]);
	hc_db_attr_u64(&o, "events", m->events);
	hc_db_attr_u64(&o, "event-weight", m->event_weight);
	hc_out_puts(&o, "/>\n  <Counters>\n");
	for (i = 0; i < m->ncounters; i++) {
		hc_out_puts(&o, "    <Counter");
		hc_db_attr_str(&o, "n", m->counters[i].name);
		hc_db_attr_u64(&o, "v", m->counters[i].v);
		hc_out_puts(&o, "/>\n");
	}
	hc_out_puts(&o, "  </Counters>\n");
	if (m->nwarnings) {
		hc_out_puts(&o, "  <Warnings>\n");
		for (i = 0; i < m->nwarnings; i++) {
			hc_out_puts(&o, "    <Warning>");
			hc_out_xml(&o, m->warnings[i]);
			hc_out_puts(&o, "</Warning>\n");
		}
		hc_out_puts(&o, "  </Warnings>\n");
	}
	hc_out_puts(&o, "</" HC_DB_ROOT_META ">\n");
	return hc_out_close(&o, true, err, errlen);
}
