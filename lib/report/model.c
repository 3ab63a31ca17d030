/* SPDX-License-Identifier: BSD-3-Clause */
/* model.c — the report model: everything the HTML report shows, as one JSON
   document described by doc/report.schema.json. `--json` writes it as is;
   report.html embeds it (HTML mode: '<' escaped) and its script renders from
   it, so the two can never disagree. Ids and indexes are those of the
   database (thread index, node id), so a script can join the JSON with the
   database's own files. No signal context. */
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "report/placement.h"
#include "report/insight.h"
#include "report/report.h"
#include "report/views.h"
#include "report/json.h"

static const char *const type_names[] = { "PF", "A", "C", "S" };

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static void write_overview(struct hc_json *j, const struct hc_db *db)
{
	int64_t *periods = calloc(db->nthreads ? db->nthreads : 1, sizeof(*periods));
	size_t np = 0;
	char *s, *save = NULL, *tok;

	hc_json_kstr(j, "program", db->program);
	hc_json_kstr(j, "unit", db->unit);
	hc_json_kstr(j, "unit_text", db->unit_text);
	hc_json_key(j, "samplers");
	hc_json_arr(j);
	s = strdup(db->samplers);
	for (tok = s ? strtok_r(s, " ", &save) : NULL; tok; tok = strtok_r(NULL, " ", &save))
		hc_json_str(j, tok);
	free(s);
	hc_json_arr_end(j);

	/* distinct sampling periods of the threads that have a profile */
	for (size_t t = 0; periods && t < db->nthreads; t++)
		if (db->threads[t].period >= 0)
			periods[np++] = db->threads[t].period;
	if (periods)
		qsort(periods, np, sizeof(*periods), cmp_i64);
	hc_json_key(j, "periods");
	hc_json_arr(j);
	for (size_t k = 0; k < np; k++)
		if (!k || periods[k] != periods[k - 1])
			hc_json_i64(j, periods[k]);
	hc_json_arr_end(j);
	free(periods);

	hc_json_key(j, "totals");
	hc_json_obj(j);
	hc_json_ku64(j, "all", db->t_all);
	hc_json_ku64(j, "true", db->t_true);
	hc_json_ku64(j, "false", db->t_false);
	hc_json_ku64(j, "sample", db->t_sample);
	hc_json_ku64(j, "trap", db->t_trap);
	hc_json_ku64(j, "events", db->events);
	hc_json_ku64(j, "event_weight", db->event_weight);
	hc_json_obj_end(j);

	hc_json_key(j, "profiles");
	hc_json_obj(j);
	hc_json_ku64(j, "found", db->found);
	hc_json_ku64(j, "read", db->read);
	hc_json_key(j, "skipped");
	hc_json_arr(j);
	for (size_t k = 0; k < db->nskips; k++) {
		hc_json_obj(j);
		hc_json_kstr(j, "file", db->skips[k].file);
		hc_json_kstr(j, "reason", db->skips[k].reason);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_obj_end(j);

	hc_json_key(j, "inputs");
	hc_json_arr(j);
	for (size_t k = 0; k < db->ninputs; k++)
		hc_json_str(j, db->inputs[k]);
	hc_json_arr_end(j);

	hc_json_key(j, "counters");
	hc_json_arr(j);
	for (size_t k = 0; k < db->ncounters; k++) {
		hc_json_obj(j);
		hc_json_kstr(j, "name", db->counters[k].name);
		hc_json_ku64(j, "value", db->counters[k].v);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);

	hc_json_key(j, "warnings");
	hc_json_arr(j);
	for (size_t k = 0; k < db->nwarnings; k++)
		hc_json_str(j, db->warnings[k]);
	hc_json_arr_end(j);
}

static void host_members(struct hc_json *j, const void *elem, const void *arg)
{
	const struct hc_db_host *h = elem;

	(void)arg;
	hc_json_ku64(j, "i", h->i);
	hc_json_kstr(j, "id", h->id);
	hc_json_kstr(j, "topology", h->topology);
	hc_json_kstr(j, "name", h->name);
	hc_json_ki64(j, "pus", h->pus);
	hc_json_ki64(j, "cores", h->cores);
	hc_json_ki64(j, "sockets", h->sockets);
	hc_json_ki64(j, "numa", h->numa);
}

static void process_members(struct hc_json *j, const void *elem, const void *arg)
{
	const struct hc_db_process *p = elem;

	(void)arg;
	hc_json_ku64(j, "i", p->i);
	hc_json_kstr(j, "host", p->host);
	hc_json_ku64(j, "rank", p->rank);
	hc_json_ku64(j, "pid", p->pid);
	hc_json_ku64(j, "ppid", p->ppid);
	hc_json_ku64(j, "gen", p->gen);
	hc_json_kstr(j, "exe", p->exe);
	hc_json_ku64(j, "start_ns", p->start_ns);
	hc_json_ku64(j, "threads", p->threads);
	hc_json_ku64(j, "first_thread", p->first_thread);
	hc_json_kstr(j, "log", p->log);
}

static void thread_members(struct hc_json *j, const void *elem, const void *arg)
{
	const struct hc_db *db = arg;
	const struct hc_db_thread *t = elem;
	char label[256];

	hc_json_ku64(j, "index", t->index);
	hc_json_kstr(j, "label", hc_db_index_label(db, HC_DB_LEVEL_THREAD, (uint32_t)(t - db->threads),
	                                             label, sizeof(label)));
	hc_json_ku64(j, "process", t->process);
	hc_json_ku64(j, "pid", t->pid);
	hc_json_ku64(j, "thread", t->thread);
	hc_json_ki64(j, "tid", t->tid);
	hc_json_ki64(j, "creator", t->creator);
	hc_json_kstr(j, "start_routine", t->start_routine);
	hc_json_ki64(j, "creation_context", t->creation_context);
	hc_json_kstr(j, "cpus", t->cpus);
	hc_json_kstr(j, "sampler", t->sampler);
	hc_json_ki64(j, "period", t->period);
	hc_json_kstr(j, "profile", t->profile);
	hc_json_ku64(j, "rank", t->rank);
	hc_json_kstr(j, "host", t->host);
}

/* MPI ranks (database.xml <Ranks>): empty without several ranks. */
static void rank_members(struct hc_json *j, const void *elem, const void *arg)
{
	const struct hc_db_rank *r = elem;

	(void)arg;
	hc_json_ku64(j, "rank", r->rank);
	hc_json_kstr(j, "host", r->host);
	hc_json_ku64(j, "processes", r->processes);
	hc_json_ku64(j, "threads", r->threads);
	hc_json_ku64(j, "within_true", r->within[0]);
	hc_json_ku64(j, "within_false", r->within[1]);
	hc_json_ku64(j, "across_true", r->across[0]);
	hc_json_ku64(j, "across_false", r->across[1]);
}

static void rankpair_members(struct hc_json *j, const void *elem, const void *arg)
{
	const struct hc_db_rankpair *p = elem;

	(void)arg;
	hc_json_ku64(j, "a", p->a);
	hc_json_ku64(j, "b", p->b);
	hc_json_ku64(j, "true", p->v[0]);
	hc_json_ku64(j, "false", p->v[1]);
}

static void write_hosts_processes_threads(struct hc_json *j, const struct hc_db *db)
{
	hc_json_objects(j, "hosts", db->hosts, db->nhosts, sizeof(*db->hosts), host_members, NULL);
	hc_json_objects(j, "processes", db->procs, db->nprocs, sizeof(*db->procs), process_members, NULL);
	hc_json_objects(j, "threads", db->threads, db->nthreads, sizeof(*db->threads), thread_members, db);
	hc_json_objects(j, "ranks", db->rankrows, db->nrankrows, sizeof(*db->rankrows), rank_members, NULL);
	hc_json_objects(j, "rank_pairs", db->rankpairs, db->nrankpairs, sizeof(*db->rankpairs),
	                rankpair_members, NULL);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void write_levels(struct hc_json *j, const struct hc_db *db)
{
	char label[256];

	hc_json_key(j, "levels");
	hc_json_arr(j);
	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++) {
		const struct hc_db_matrix *a = &db->mat[l][HC_DB_KIND_ALL];
		uint32_t *idx = NULL, k;
		uint64_t *vol = NULL;
		bool large;
		if (!a->present)
			continue;
		/* A large level: the HC_REPORT_SHOWN indexes with the most communication
		   (in index order); values, labels and indexes are of those. */
		large = a->n > HC_REPORT_LARGE_N;
		k = hc_report_top_indexes(a, large ? HC_REPORT_SHOWN : a->n, &idx, &vol);
		if (!idx)
			k = 0;
		else
			qsort(idx, k, sizeof(*idx), cmp_u32);
		hc_json_obj(j);
		hc_json_kstr(j, "level", hc_db_level_name(l));
		hc_json_ku64(j, "n", a->n);
		hc_json_key(j, "shown");
		if (large) {
			hc_json_arr(j);
			for (uint32_t r = 0; r < k; r++)
				hc_json_u64(j, idx[r]);
			hc_json_arr_end(j);
		} else {
			hc_json_null(j);
		}
		if (large) {
			char note[512], v[64], p[32];
			uint64_t in = hc_report_covered(a, idx, k);
			snprintf(note, sizeof(note), "%u of %u %s indexes shown: those taking part in the "
			         "most communication; %s (%s of the total) is between two of them. Totals "
			         "and volumes are of the whole matrix.", k, a->n, hc_db_level_name(l),
			         hc_report_value(v, sizeof(v), in, db->unit), hc_report_pct(p, sizeof(p), in, a->total));
			hc_json_kstr(j, "note", note);
		} else {
			hc_json_key(j, "note");
			hc_json_null(j);
		}
		hc_json_key(j, "labels");
		hc_json_arr(j);
		for (uint32_t r = 0; r < k; r++)
			hc_json_str(j, hc_db_index_label(db, l, idx[r], label, sizeof(label)));
		hc_json_arr_end(j);
		/* where each index is (core/socket/numa): lets the report map threads,
		   through the CPUs they ran on, to the indexes of this level */
		hc_json_key(j, "indexes");
		if (l == HC_DB_LEVEL_THREAD || !db->labels[l]) {
			hc_json_null(j);
		} else {
			hc_json_arr(j);
			for (uint32_t r = 0; r < k; r++) {
				const struct hc_db_label *lb = &db->labels[l][idx[r]];
				hc_json_obj(j);
				hc_json_kstr(j, "host", lb->host);
				hc_json_ki64(j, "cpu", lb->cpu);
				hc_json_ki64(j, "core", lb->core);
				hc_json_ki64(j, "socket", lb->socket);
				hc_json_ki64(j, "numa", lb->numa);
				hc_json_obj_end(j);
			}
			hc_json_arr_end(j);
		}
		hc_json_key(j, "matrices");
		hc_json_obj(j);
		for (int kd = 0; kd < HC_DB_KIND_COUNT; kd++) {
			const struct hc_db_matrix *m = &db->mat[l][kd];
			hc_json_key(j, hc_db_kind_name(kd));
			hc_json_obj(j);
			hc_json_kstr(j, "file", m->file);
			hc_json_ku64(j, "total", m->total);
			hc_json_ku64(j, "diagonal", m->diagonal);
			hc_json_ku64(j, "unplaced", m->unplaced);
			hc_json_key(j, "volumes");
			hc_json_arr(j);
			if (vol) {
				hc_db_matrix_volumes(m, vol);
				for (uint32_t r = 0; r < m->n; r++)
					hc_json_u64(j, vol[r]);
			}
			hc_json_arr_end(j);
			hc_json_key(j, "values");
			hc_json_arr(j);
			for (uint32_t r = 0; r < k; r++) {
				hc_json_arr(j);
				for (uint32_t c = 0; c < k; c++)
					hc_json_u64(j, hc_db_matrix_at(m, idx[r], idx[c]));
				hc_json_arr_end(j);
			}
			hc_json_arr_end(j);
			hc_json_obj_end(j);
		}
		hc_json_obj_end(j);
		hc_json_obj_end(j);
		free(idx);
		free(vol);
	}
	hc_json_arr_end(j);
}

static void write_metrics(struct hc_json *j, const char *key, const uint64_t *m, int exclusive)
{
	hc_json_key(j, key);
	hc_json_arr(j);
	for (int b = 0; b < HC_DB_M_COUNT; b++)
		hc_json_u64(j, m[HC_DB_METRIC_ID(b, exclusive)]);
	hc_json_arr_end(j);
}

void hc_report_json_field(struct hc_json *j, const struct hc_db_field *fd, bool counts)
{
	hc_json_obj(j);
	hc_json_kstr(j, "name", fd->name);
	hc_json_ku64(j, "offset", fd->offset);
	hc_json_ku64(j, "size", fd->size);
	hc_json_ku64(j, "access", fd->access ? fd->access : fd->size);
	if (counts) {
		hc_json_ku64(j, "all", fd->all);
		hc_json_ku64(j, "true", fd->tru);
	}
	hc_json_ku64(j, "false", fd->fal);
	hc_json_key(j, "threads");
	hc_json_arr(j);
	for (size_t t = 0; t < fd->nthreads; t++)
		hc_json_u64(j, fd->threads[t]);
	hc_json_arr_end(j);
	hc_json_obj_end(j);
}

static void write_pair(struct hc_json *j, const struct hc_db_codepair *p)
{
	hc_json_obj(j);
	hc_json_ku64(j, "c", p->c);
	hc_json_ki64(j, "p", p->p ? (int64_t)p->p : -1);
	hc_json_ku64(j, "all", p->all);
	hc_json_ku64(j, "true", p->tru);
	hc_json_ku64(j, "false", p->fal);
	hc_json_obj_end(j);
}

static void write_cct(struct hc_json *j, const struct hc_db *db)
{
	hc_json_key(j, "cct");
	hc_json_obj(j);
	hc_json_key(j, "metrics");
	hc_json_arr(j);
	for (int b = 0; b < HC_DB_M_COUNT; b++)
		hc_json_str(j, hc_db_metric_kind(b));
	hc_json_arr_end(j);
	hc_json_key(j, "load_modules");
	hc_json_arr(j);
	for (size_t k = 0; k < db->nlms; k++) {
		hc_json_obj(j);
		hc_json_ku64(j, "i", db->lms[k].i);
		hc_json_kstr(j, "name", db->lms[k].n);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_key(j, "files");
	hc_json_arr(j);
	for (size_t k = 0; k < db->nfiles; k++) {
		hc_json_obj(j);
		hc_json_ku64(j, "i", db->files[k].i);
		hc_json_kstr(j, "name", db->files[k].n);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_key(j, "procedures");
	hc_json_arr(j);
	for (size_t k = 0; k < db->nprocedures; k++) {
		const struct hc_db_proc *p = &db->procedures[k];
		hc_json_obj(j);
		hc_json_ku64(j, "i", p->i);
		hc_json_kstr(j, "name", p->n);
		hc_json_ku64(j, "lm", p->lm);
		hc_json_ku64(j, "file", p->f);
		hc_json_ku64(j, "line", p->l);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_key(j, "root");
	hc_json_obj(j);
	write_metrics(j, "inclusive", db->root_m, 0);
	write_metrics(j, "exclusive", db->root_m, 1);
	hc_json_obj_end(j);
	hc_json_key(j, "nodes");
	hc_json_arr(j);
	for (size_t k = 0; k < db->nnodes; k++) {
		const struct hc_db_node *n = &db->nodes[k];
		hc_json_obj(j);
		hc_json_ku64(j, "id", n->id);
		hc_json_ku64(j, "parent", n->parent == HC_DB_NONE ? 0 : db->nodes[n->parent].id);
		hc_json_kstr(j, "type", type_names[n->type]);
		if (n->type == HC_DB_N_PF || n->type == HC_DB_N_A)
			hc_json_ku64(j, "proc", n->proc);
		if (n->type == HC_DB_N_PF)
			hc_json_ku64(j, "lm", n->lm);
		hc_json_ku64(j, "file", n->f);
		hc_json_ku64(j, "line", n->l);
		write_metrics(j, "inclusive", n->m, 0);
		write_metrics(j, "exclusive", n->m, 1);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_obj_end(j);

	hc_json_key(j, "code_pairs");
	hc_json_obj(j);
	hc_json_ku64(j, "top", db->pairs_top);
	hc_json_key(j, "pairs");
	hc_json_arr(j);
	for (size_t k = 0; k < db->npairs; k++)
		write_pair(j, &db->pairs[k]);
	hc_json_arr_end(j);
	hc_json_obj_end(j);
}

static void write_objects(struct hc_json *j, const struct hc_db *db)
{
	hc_json_key(j, "objects");
	if (!db->has_objects) {
		hc_json_null(j);
		return;
	}
	hc_json_arr(j);
	for (size_t k = 0; k < db->nobjects; k++) {
		const struct hc_db_object *o = &db->objects[k];
		hc_json_obj(j);
		hc_json_ku64(j, "i", o->i);
		hc_json_kstr(j, "kind", o->kind);
		hc_json_kstr(j, "name", o->name);
		hc_json_kstr(j, "module", o->module);
		hc_json_ki64(j, "context", o->context ? (int64_t)o->context : -1);
		hc_json_ku64(j, "size", o->size);
		hc_json_ku64(j, "blocks", o->blocks);
		hc_json_kstr(j, "type", o->type ? o->type : "");
		hc_json_ki64(j, "elem", o->elem ? (int64_t)o->elem : -1);
		hc_json_ku64(j, "all", o->all);
		hc_json_ku64(j, "true", o->tru);
		hc_json_ku64(j, "false", o->fal);
		hc_json_key(j, "cells");
		hc_json_arr(j);
		for (size_t c = 0; c < o->ncells; c++) {
			hc_json_arr(j);
			hc_json_u64(j, o->cells[c].i);
			hc_json_u64(j, o->cells[c].j);
			hc_json_u64(j, o->cells[c].all);
			hc_json_u64(j, o->cells[c].tru);
			hc_json_u64(j, o->cells[c].fal);
			hc_json_arr_end(j);
		}
		hc_json_arr_end(j);
		hc_json_key(j, "fields");
		hc_json_arr(j);
		for (size_t f = 0; f < o->nfields; f++)
			hc_report_json_field(j, &o->fields[f], true);
		hc_json_arr_end(j);
		hc_json_key(j, "code_pairs");
		hc_json_arr(j);
		for (size_t p = 0; p < o->npairs; p++)
			write_pair(j, &o->pairs[p]);
		hc_json_arr_end(j);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
}

/* "placement": per process with two threads or more, where to pin which
   thread (placement.c; doc/report.schema.json: every key always present,
   null when not known). */
static void write_placement(struct hc_json *j, const struct hc_db *db)
{
	static const char *const st[] = {
		[HC_PLACE_OK] = "ok", [HC_PLACE_ONE_THREAD] = "one-thread", [HC_PLACE_ONE_CORE] = "one-core",
		[HC_PLACE_NO_COMM] = "no-communication", [HC_PLACE_NO_TOPOLOGY] = "no-topology",
		[HC_PLACE_ERROR] = "error",
	};

	hc_json_key(j, "placement");
	hc_json_arr(j);
	for (size_t p = 0; p < db->nprocs; p++) {
		struct hc_place_in in;
		struct hc_place_out out;
		uint32_t *label = NULL;
		const char *status;
		bool ok, computed = false;
		char *places = NULL;

		if (db->procs[p].threads < 2)
			continue;
		memset(&in, 0, sizeof(in));
		memset(&out, 0, sizeof(out));
		if (db->procs[p].threads > HC_PLACE_MAX_THREADS) {
			status = "too-many-threads";
			snprintf(out.why, sizeof(out.why), "more than %u threads: pin groups of threads instead",
			         HC_PLACE_MAX_THREADS);
		} else if (hc_place_from_db(db, p, &in, &label, &out) < 0) {
			status = "error";
		} else {
			computed = true;
			status = out.status >= 0 && out.status <= HC_PLACE_ERROR ? st[out.status] : "error";
		}
		ok = computed && out.status == HC_PLACE_OK;
		hc_json_obj(j);
		hc_json_ku64(j, "process", db->procs[p].pid);
		hc_json_kstr(j, "host", db->procs[p].host);
		hc_json_kstr(j, "status", status);
		hc_json_kstr(j, "why", out.why);
		hc_json_ku64(j, "threads", db->procs[p].threads);
		hc_json_ki64(j, "cores", computed ? (int64_t)out.ncores : -1);
		hc_json_ki64(j, "packages", computed && out.ncores ? (int64_t)out.nsockets : -1);
		hc_json_ki64(j, "cores_per_package", computed && out.ncores && !out.flat ?
		             (int64_t)out.cores_per_socket : -1);
		hc_json_key(j, "flat");
		hc_json_bool(j, out.flat);
		hc_json_key(j, "kept");
		hc_json_bool(j, out.kept);
		hc_json_ki64(j, "total", computed ? (int64_t)out.total : -1);
		hc_json_ki64(j, "cross_core", ok ? (int64_t)out.cross_core : -1);
		hc_json_ki64(j, "cross_package", ok ? (int64_t)out.cross_socket : -1);
		hc_json_ki64(j, "run_cross_core", computed && out.run_known ? (int64_t)out.run_cross_core : -1);
		hc_json_ki64(j, "run_cross_package", computed && out.run_known ? (int64_t)out.run_cross_socket : -1);
		hc_json_ku64(j, "link_package", HC_PLACE_LINK_PACKAGE + 1);
		if (ok && out.nthreads <= out.ncores) {
			size_t psz = (size_t)out.nthreads * 140 + 16;
			places = malloc(psz);
			if (places)
				hc_place_omp_places(&in, &out, places, psz);
		}
		hc_json_kstr(j, "omp_places", places);
		hc_json_kstr(j, "omp_proc_bind", places ? "close" : NULL);
		free(places);
		hc_json_key(j, "map");
		hc_json_arr(j);
		for (uint32_t t = 0; ok && t < out.nthreads; t++) {
			const struct hc_place_core *c = &in.cores[out.core[t]];
			char cmd[256];
			hc_json_obj(j);
			hc_json_ku64(j, "thread", label[t]);
			hc_json_ki64(j, "core", c->core);
			hc_json_kstr(j, "cpus", c->cpus);
			snprintf(cmd, sizeof(cmd), "taskset -pc %s $TID_%u", c->cpus, label[t]);
			hc_json_kstr(j, "taskset", cmd);
			snprintf(cmd, sizeof(cmd), "hwloc-bind --tid $TID_%u core:%d", label[t], c->core);
			hc_json_kstr(j, "hwloc_bind", cmd);
			hc_json_obj_end(j);
		}
		hc_json_arr_end(j);
		hc_json_obj_end(j);
		if (computed) {
			hc_place_free(&out);
			hc_place_in_free(&in);
		}
		free(label);
	}
	hc_json_arr_end(j);
}

void hc_report_json(const struct hc_db *db, FILE *f, bool html)
{
	struct hc_json j;

	hc_json_init(&j, f, html);
	hc_json_obj(&j);
	hc_json_kstr(&j, "format", "hpcrun-comm-report");
	hc_json_ku64(&j, "version", 1);
	hc_json_kstr(&j, "generator", "viewer-export " PACKAGE_VERSION);
	hc_json_key(&j, "database");
	hc_json_obj(&j);
	hc_json_kstr(&j, "path", db->dir);
	hc_json_ku64(&j, "version", db->version);
	hc_json_kstr(&j, "generator", db->generator);
	hc_json_obj_end(&j);
	write_overview(&j, db);
	hc_report_json_insight(db, &j);
	hc_report_json_groups(db, &j);
	write_hosts_processes_threads(&j, db);
	write_levels(&j, db);
	write_cct(&j, db);
	write_objects(&j, db);
	hc_report_json_regions(db, &j);
	write_placement(&j, db);
	hc_report_json_views(&j, db);
	hc_json_obj_end(&j);
}
