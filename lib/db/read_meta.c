/* SPDX-License-Identifier: BSD-3-Clause */
/* meta.c — database.xml (doc/database-format.md §4): unit, inputs, skipped
   profiles, hosts, processes, the list of matrix files with their totals,
   index labels, totals, counters and warnings. Unknown elements and
   attributes are ignored (the format grows by additions); what the format
   requires is checked: the version, the unit (one unit everywhere), the
   matrices that must exist, label indexes inside their level. No signal
   context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"

static int load_matrix_entry(struct load *ld, struct xr *x)
{
	struct hc_db *db = ld->db;
	char *level = NULL, *kind = NULL, *unit = NULL, *format = NULL;
	struct hc_db_matrix *m;
	uint64_t n = 0, maxn;
	int l, k, rc;

	rc = xr__str(x, "level", &level);
	if (!rc)
		rc = xr__str(x, "kind", &kind);
	if (!rc)
		rc = xr__str(x, "unit", &unit);
	if (rc)
		goto out;
	l = hc_db_level_parse(level);
	k = hc_db_kind_parse(kind);
	if (l < 0 || k < 0) {
		rc = load__fail(ld, xr__line(x), "<Matrix level=\"%s\" kind=\"%s\">: unknown level or kind",
		                 level, kind);
		goto out;
	}
	if (!db->unit || strcmp(unit, db->unit)) {
		rc = load__fail(ld, xr__line(x), "<Matrix level=\"%s\" kind=\"%s\"> is in unit '%s', "
		                 "the database in '%s' (units are never mixed)",
		                 level, kind, unit, db->unit ? db->unit : "?");
		goto out;
	}
	m = &db->mat[l][k];
	if (m->present) {
		rc = load__fail(ld, xr__line(x), "a second <Matrix level=\"%s\" kind=\"%s\">", level, kind);
		goto out;
	}
	rc = xr__str(x, "file", &m->file);
	if (!rc)
		rc = xr__u64(x, "n", &n);
	if (!rc)
		rc = xr__u64(x, "total", &m->total);
	if (!rc)
		rc = xr__u64(x, "diagonal", &m->diagonal);
	if (!rc)
		rc = xr__u64(x, "unplaced", &m->unplaced);
	if (!rc)
		rc = xr__str_opt(x, "format", &format);
	if (rc)
		goto out;
	if (format && strcmp(format, "sparse") && strcmp(format, "dense")) {
		rc = load__fail(ld, xr__line(x), "<Matrix level=\"%s\" kind=\"%s\" format=\"%.20s\">: "
		                 "unknown format (dense or sparse)", level, kind, format);
		goto out;
	}
	m->sparse = format && !strcmp(format, "sparse");
	/* A dense file holds n² values: beyond 65536 rows that is 4G cells. */
	maxn = m->sparse ? HC_DB_SPARSE_MAX_N : 65536;
	if (n < 1 || n > maxn) {
		rc = load__fail(ld, xr__line(x), "<Matrix level=\"%s\" kind=\"%s\" n=\"%llu\">: "
		                 "dimension out of range 1..%llu for the %s form", level, kind,
		                 (unsigned long long)n, (unsigned long long)maxn,
		                 m->sparse ? "sparse" : "dense");
		goto out;
	}
	if (m->file[0] == '/' || strstr(m->file, "..")) {
		rc = load__fail(ld, xr__line(x), "<Matrix file=\"%s\">: not a path inside the database",
		                 m->file);
		goto out;
	}
	m->n = (uint32_t)n;
	m->present = true;
out:
	free(level);
	free(kind);
	free(unit);
	free(format);
	return rc;
}

static int load_label(struct load *ld, struct xr *x, int level)
{
	struct hc_db *db = ld->db;
	struct hc_db_matrix *m;
	struct hc_db_label *lb;
	uint64_t i;
	int rc;

	if (level <= HC_DB_LEVEL_THREAD || level >= HC_DB_LEVEL_COUNT)
		return load__fail(ld, xr__line(x), "<Label> outside a <Labels level=\"core|socket|"
		                   "numa\"> of <Database>");
	m = &db->mat[level][HC_DB_KIND_ALL];
	if ((rc = xr__u64(x, "i", &i)))
		return rc;
	if (!m->present || i >= m->n)
		return load__fail(ld, xr__line(x), "<Label i=\"%llu\"> of level %s: no such index "
		                   "(the %s matrix has %u)", (unsigned long long)i,
		                   hc_db_level_name(level), hc_db_level_name(level), m->present ? m->n : 0);
	if (!db->labels[level]) {
		db->labels[level] = calloc(m->n, sizeof(*db->labels[level]));
		if (!db->labels[level])
			return -ENOMEM;
		db->nlabels[level] = m->n;
		for (size_t k = 0; k < m->n; k++) {
			struct hc_db_label *e = &db->labels[level][k];
			e->cpu = e->core = e->socket = e->numa = -1;
		}
	}
	lb = &db->labels[level][i];
	if (lb->host)
		return load__fail(ld, xr__line(x), "a second <Label i=\"%llu\"> of level %s",
		                   (unsigned long long)i, hc_db_level_name(level));
	rc = xr__str(x, "host", &lb->host);
	if (!rc)
		rc = xr__i64_opt(x, "cpu", &lb->cpu);
	if (!rc)
		rc = xr__i64_opt(x, "core", &lb->core);
	if (!rc)
		rc = xr__i64_opt(x, "socket", &lb->socket);
	if (!rc)
		rc = xr__i64_opt(x, "numa", &lb->numa);
	return rc;
}

static int load_process(struct load *ld, struct xr *x)
{
	struct hc_db *db = ld->db;
	struct hc_db_process *p;
	int rc;

	if (load__push(&db->procs, db->nprocs, sizeof(*db->procs)))
		return -ENOMEM;
	p = &db->procs[db->nprocs++];
	rc = xr__u64(x, "i", &p->i);
	if (!rc && p->i != db->nprocs - 1)
		rc = load__fail(ld, xr__line(x), "<Process i=\"%llu\"> out of order (expected %zu)",
		                 (unsigned long long)p->i, db->nprocs - 1);
	if (!rc)
		rc = xr__str(x, "host", &p->host);
	if (!rc)
		rc = xr__u64_opt(x, "rank", &p->rank, &(bool){ false });
	if (!rc)
		rc = xr__u64(x, "pid", &p->pid);
	if (!rc)
		rc = xr__u64(x, "ppid", &p->ppid);
	if (!rc)
		rc = xr__u64(x, "gen", &p->gen);
	if (!rc)
		rc = xr__str(x, "exe", &p->exe);
	if (!rc)
		rc = xr__u64(x, "start-ns", &p->start_ns);
	if (!rc)
		rc = xr__u64(x, "threads", &p->threads);
	if (!rc)
		rc = xr__u64(x, "first-thread", &p->first_thread);
	if (!rc)
		rc = xr__str_opt(x, "log", &p->log);
	return rc;
}

static int load_host(struct load *ld, struct xr *x)
{
	struct hc_db *db = ld->db;
	struct hc_db_host *h;
	int rc;

	if (load__push(&db->hosts, db->nhosts, sizeof(*db->hosts)))
		return -ENOMEM;
	h = &db->hosts[db->nhosts++];
	rc = xr__u64(x, "i", &h->i);
	if (!rc)
		rc = xr__str(x, "id", &h->id);
	if (!rc)
		rc = xr__str_opt(x, "topology", &h->topology);
	if (!rc)
		rc = xr__str_opt(x, "name", &h->name);
	if (!rc)
		rc = xr__i64_opt(x, "pus", &h->pus);
	if (!rc)
		rc = xr__i64_opt(x, "cores", &h->cores);
	if (!rc)
		rc = xr__i64_opt(x, "sockets", &h->sockets);
	if (!rc)
		rc = xr__i64_opt(x, "numa", &h->numa);
	return rc;
}

static int push_str(char ***v, size_t *n, char *s)
{
	if (!s || load__push(v, *n, sizeof(**v))) {
		free(s);
		return -ENOMEM;
	}
	(*v)[(*n)++] = s;
	return 0;
}

static int load_element(struct load *ld, struct xr *x, int *labels_level, bool seen[4])
{
	struct hc_db *db = ld->db;
	const char *name = xr__name(x), *parent = xr__parent(x);
	char *s = NULL;
	int rc = 0;

	if (!strcmp(parent, HC_DB_ROOT_META)) {
		if (!strcmp(name, "Measurement")) {
			if (seen[0])
				return load__fail(ld, xr__line(x), "a second <Measurement>");
			seen[0] = true;
			rc = xr__str(x, "unit", &db->unit);
			if (!rc)
				rc = xr__str(x, "unit-text", &db->unit_text);
			if (!rc)
				rc = xr__str(x, "samplers", &db->samplers);
			if (!rc && strcmp(db->unit, HC_DB_UNIT_NS) && strcmp(db->unit, HC_DB_UNIT_TRANSFERS))
				rc = load__fail(ld, xr__line(x), "unknown unit '%s' (expected '%s' or '%s')",
				                 db->unit, HC_DB_UNIT_NS, HC_DB_UNIT_TRANSFERS);
		} else if (!strcmp(name, "Profiles")) {
			rc = xr__u64(x, "found", &db->found);
			if (!rc)
				rc = xr__u64(x, "read", &db->read);
			if (!rc)
				rc = xr__u64(x, "skipped", &db->skipped);
		} else if (!strcmp(name, "Matrices")) {
			seen[1] = true;
			rc = xr__str(x, "unit", &s);
			if (!rc && (!db->unit || strcmp(s, db->unit)))
				rc = load__fail(ld, xr__line(x), "<Matrices unit=\"%s\"> differs from "
				                 "<Measurement unit=\"%s\"> (or <Measurement> is missing)",
				                 s, db->unit ? db->unit : "");
		} else if (!strcmp(name, "Labels")) {
			rc = xr__str(x, "level", &s);
			if (!rc) {
				*labels_level = hc_db_level_parse(s);
				if (*labels_level <= HC_DB_LEVEL_THREAD)
					rc = load__fail(ld, xr__line(x), "<Labels level=\"%s\">: not core, "
					                 "socket or numa", s);
				else if (db->labels[*labels_level])
					rc = load__fail(ld, xr__line(x), "a second <Labels level=\"%s\">", s);
			}
		} else if (!strcmp(name, "Totals")) {
			seen[2] = true;
			rc = xr__u64(x, "all", &db->t_all);
			if (!rc)
				rc = xr__u64(x, "true", &db->t_true);
			if (!rc)
				rc = xr__u64(x, "false", &db->t_false);
			if (!rc)
				rc = xr__u64(x, "sample", &db->t_sample);
			if (!rc)
				rc = xr__u64(x, "trap", &db->t_trap);
			if (!rc)
				rc = xr__u64(x, "events", &db->events);
			if (!rc)
				rc = xr__u64(x, "event-weight", &db->event_weight);
			if (!rc && db->t_all != db->t_true + db->t_false)
				rc = load__fail(ld, xr__line(x), "<Totals>: all (%llu) != true + false (%llu)",
				                 (unsigned long long)db->t_all,
				                 (unsigned long long)(db->t_true + db->t_false));
		}
	} else if (!strcmp(name, "Input") && !strcmp(parent, "Inputs")) {
		if (!(rc = xr__str(x, "path", &s))) {
			rc = push_str(&db->inputs, &db->ninputs, s);
			s = NULL;
		}
	} else if (!strcmp(name, "Skipped") && !strcmp(parent, "Profiles")) {
		if (load__push(&db->skips, db->nskips, sizeof(*db->skips)))
			return -ENOMEM;
		rc = xr__str(x, "file", &db->skips[db->nskips].file);
		if (!rc)
			rc = xr__str(x, "reason", &db->skips[db->nskips].reason);
		db->nskips++;
	} else if (!strcmp(name, "Host") && !strcmp(parent, "Hosts")) {
		rc = load_host(ld, x);
	} else if (!strcmp(name, "Process") && !strcmp(parent, "Processes")) {
		seen[3] = true;
		rc = load_process(ld, x);
	} else if (!strcmp(name, "Rank") && !strcmp(parent, "Ranks")) {
		struct hc_db_rank *r;
		if (load__push(&db->rankrows, db->nrankrows, sizeof(*db->rankrows)))
			return -ENOMEM;
		r = &db->rankrows[db->nrankrows++];
		memset(r, 0, sizeof(*r));
		rc = xr__u64(x, "rank", &r->rank);
		if (!rc)
			rc = xr__str(x, "host", &r->host);
		if (!rc)
			rc = xr__u64(x, "processes", &r->processes);
		if (!rc)
			rc = xr__u64(x, "threads", &r->threads);
		if (!rc)
			rc = xr__u64(x, "within-true", &r->within[0]);
		if (!rc)
			rc = xr__u64(x, "within-false", &r->within[1]);
		if (!rc)
			rc = xr__u64(x, "across-true", &r->across[0]);
		if (!rc)
			rc = xr__u64(x, "across-false", &r->across[1]);
	} else if (!strcmp(name, "RankPair") && !strcmp(parent, "Ranks")) {
		struct hc_db_rankpair *p;
		if (load__push(&db->rankpairs, db->nrankpairs, sizeof(*db->rankpairs)))
			return -ENOMEM;
		p = &db->rankpairs[db->nrankpairs++];
		memset(p, 0, sizeof(*p));
		rc = xr__u64(x, "a", &p->a);
		if (!rc)
			rc = xr__u64(x, "b", &p->b);
		if (!rc)
			rc = xr__u64(x, "true", &p->v[0]);
		if (!rc)
			rc = xr__u64(x, "false", &p->v[1]);
		if (!rc && p->a >= p->b)
			rc = load__fail(ld, xr__line(x), "<RankPair a=\"%llu\" b=\"%llu\">: a must be "
			                 "below b", (unsigned long long)p->a, (unsigned long long)p->b);
	} else if (!strcmp(name, "Matrix") && !strcmp(parent, "Matrices")) {
		rc = load_matrix_entry(ld, x);
	} else if (!strcmp(name, "Label") && !strcmp(parent, "Labels")) {
		rc = load_label(ld, x, *labels_level);
	} else if (!strcmp(name, "Counter") && !strcmp(parent, "Counters")) {
		if (load__push(&db->counters, db->ncounters, sizeof(*db->counters)))
			return -ENOMEM;
		rc = xr__str(x, "n", &db->counters[db->ncounters].name);
		if (!rc)
			rc = xr__u64(x, "v", &db->counters[db->ncounters].v);
		db->ncounters++;
	} else if (!strcmp(name, "Warning") && !strcmp(parent, "Warnings")) {
		if (!(rc = xr__text(x, &s))) {
			rc = push_str(&db->warnings, &db->nwarnings, s);
			s = NULL;
		}
	}
	free(s);
	return rc;
}

static int check_matrix_set(struct load *ld)
{
	struct hc_db *db = ld->db;

	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++) {
		int have = 0;
		for (int k = 0; k < HC_DB_KIND_COUNT; k++)
			have += db->mat[l][k].present;
		if ((l <= HC_DB_LEVEL_CORE && have != HC_DB_KIND_COUNT) ||
		    (have != 0 && have != HC_DB_KIND_COUNT))
			return load__fail(ld, 0, "<Matrices> lists %d of the 3 %s matrices (all, true, "
			                   "false are required together%s)", have, hc_db_level_name(l),
			                   l <= HC_DB_LEVEL_CORE ? " and always" : "");
		for (int k = 1; k < HC_DB_KIND_COUNT && have; k++)
			if (db->mat[l][k].n != db->mat[l][0].n)
				return load__fail(ld, 0, "the %s matrices differ in dimension",
				                   hc_db_level_name(l));
	}
	return 0;
}

int read__meta(struct load *ld)
{
	struct hc_db *db = ld->db;
	struct xr *x;
	bool seen[4] = { false };
	int labels_level = -1, rc;

	if ((rc = xr__open(&x, ld, HC_DB_META, false)))
		return rc;
	while ((rc = xr__next(x)) > 0) {
		if (xr__depth(x) == 0) {
			if (strcmp(xr__name(x), HC_DB_ROOT_META)) {
				rc = load__fail(ld, xr__line(x), "root element is <%s>, expected <Database> "
				                 "(is this an hpcprof-comm database?)", xr__name(x));
				break;
			}
			rc = xr__u64(x, "version", &db->version);
			if (!rc)
				rc = xr__str(x, "generator", &db->generator);
			if (!rc && db->version != HC_DB_VERSION)
				rc = load__fail(ld, xr__line(x), "format version %llu, this viewer reads "
				                 "version %d", (unsigned long long)db->version, HC_DB_VERSION);
		} else {
			rc = load_element(ld, x, &labels_level, seen);
		}
		if (rc)
			break;
	}
	xr__close(x);
	if (rc)
		return rc;
	load__file(ld, HC_DB_META);
	if (!seen[0] || !seen[1] || !seen[2] || !seen[3])
		return load__fail(ld, 0, "missing <%s> (required)",
		                   !seen[0] ? "Measurement" : !seen[1] ? "Matrices" :
		                   !seen[2] ? "Totals" : "Processes/Process");
	if (db->nskips != db->skipped)
		return load__fail(ld, 0, "<Profiles skipped=\"%llu\"> but %zu <Skipped> elements",
		                   (unsigned long long)db->skipped, db->nskips);
	return check_matrix_set(ld);
}
