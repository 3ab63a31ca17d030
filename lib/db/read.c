/* SPDX-License-Identifier: BSD-3-Clause */
/* db.c — opening and closing a database: runs the per-file loaders in
   dependency order (database.xml names the matrices and fixes the unit and
   the thread count that threads.csv and experiment.xml are checked against),
   keeps the first error as "FILE[:LINE]: what is wrong", and answers the
   small lookups the exporters need (node by id, file and procedure names,
   index labels). No signal context. */
#include <stddef.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"
#include "support/search.h"
#include "db/views.h"

const char *load__file(struct load *ld, const char *rel)
{
	ld->rel = rel;
	snprintf(ld->path, sizeof(ld->path), "%s/%s", ld->db->dir, rel);
	return ld->path;
}

/* all, true and false of an element, all = true + false. */
int load__vol(struct load *ld, struct xr *x, uint64_t *all, uint64_t *tru, uint64_t *fal)
{
	int rc = xr__u64(x, "all", all);

	if (!rc)
		rc = xr__u64(x, "true", tru);
	if (!rc)
		rc = xr__u64(x, "false", fal);
	if (!rc && *all != *tru + *fal)
		rc = load__fail(ld, xr__line(x), "<%s>: all (%llu) != true + false (%llu)",
		                 xr__name(x), (unsigned long long)*all,
		                 (unsigned long long)(*tru + *fal));
	return rc;
}

int load__fail(struct load *ld, long line, const char *fmt, ...)
{
	char msg[768];
	va_list ap;

	if (ld->err[0])
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(ld->err, ld->errsz, "%s:%ld: %s", ld->path, line, msg);
	else
		snprintf(ld->err, ld->errsz, "%s: %s", ld->path, msg);
	return -EINVAL;
}

int load__errno(struct load *ld, int errnum)
{
	if (!ld->err[0])
		snprintf(ld->err, ld->errsz, "%s: %s", ld->path, strerror(errnum));
	return -errnum;
}

bool load__parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		if (v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

int load__grow(void *arr, size_t *cap, size_t n, size_t esz)
{
	void **p = arr;
	size_t nc;
	void *q;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap : 8;
	while (nc <= n)
		nc *= 2;
	q = realloc(*p, nc * esz);
	if (!q)
		return -ENOMEM;
	memset((char *)q + *cap * esz, 0, (nc - *cap) * esz);
	*p = q;
	*cap = nc;
	return 0;
}

int load__push(void *arr, size_t n, size_t esz)
{
	void **p = arr;
	void *q;

	if (n == 0 || (n >= 8 && (n & (n - 1)) == 0)) {
		q = realloc(*p, (n ? 2 * n : 8) * esz);
		if (!q)
			return -ENOMEM;
		*p = q;
	}
	memset((char *)*p + n * esz, 0, esz);
	return 0;
}

char *load__strdup(const char *s)
{
	return strdup(s ? s : "");
}

static int cmp_u64_idx(const void *a, const void *b, void *arg)
{
	const uint64_t *ids = arg;
	uint64_t x = ids[*(const uint32_t *)a], y = ids[*(const uint32_t *)b];

	return x < y ? -1 : x > y;
}

/* Sorted node-id index; duplicate ids are a format violation. */
static int index_nodes(struct load *ld)
{
	struct hc_db *db = ld->db;
	uint64_t *ids;
	size_t n = db->nnodes;

	load__file(ld, HC_DB_EXPERIMENT);
	ids = malloc((n ? n : 1) * sizeof(*ids));
	db->node_idx = malloc((n ? n : 1) * sizeof(*db->node_idx));
	db->node_ids = malloc((n ? n : 1) * sizeof(*db->node_ids));
	if (!ids || !db->node_idx || !db->node_ids) {
		free(ids);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		ids[k] = db->nodes[k].id;
		db->node_idx[k] = (uint32_t)k;
	}
	qsort_r(db->node_idx, n, sizeof(*db->node_idx), cmp_u64_idx, ids);
	for (size_t k = 0; k < n; k++)
		db->node_ids[k] = ids[db->node_idx[k]];
	free(ids);
	for (size_t k = 1; k < n; k++)
		if (db->node_ids[k] == db->node_ids[k - 1])
			return load__fail(ld, 0, "node id %llu is used twice",
			                   (unsigned long long)db->node_ids[k]);
	return 0;
}

/* Every reference from the code pairs, threads.csv and objects.xml to a
   calling-context node must name an existing node. */
static int check_refs(struct load *ld)
{
	struct hc_db *db = ld->db;

	load__file(ld, HC_DB_EXPERIMENT);
	for (size_t k = 0; k < db->npairs; k++) {
		const struct hc_db_codepair *p = &db->pairs[k];
		if (!hc_db_node_find(db, p->c) || (p->p && !hc_db_node_find(db, p->p)))
			return load__fail(ld, 0, "code pair %zu names node %llu, which is not in the tree",
			                   k, (unsigned long long)(hc_db_node_find(db, p->c) ? p->p : p->c));
	}
	load__file(ld, HC_DB_THREADS);
	for (size_t t = 0; t < db->nthreads; t++) {
		int64_t c = db->threads[t].creation_context;
		if (c > 0 && !hc_db_node_find(db, (uint64_t)c))
			return load__fail(ld, (long)t + 2,
			                   "creation_context %lld is not a node of " HC_DB_EXPERIMENT,
			                   (long long)c);
	}
	return 0;
}

static int open_db(const char *dir, const struct hc_db_open_opts *o, struct hc_db **out,
                   char *err, size_t errsz)
{
	struct load ld = { .err = err, .errsz = errsz, .skip_region_cells = o && o->skip_region_cells,
	                   .skip_phase_cells = o && o->skip_phase_cells,
	                   .fill_phases = o ? o->fill_phases : NULL, .fill_arg = o ? o->arg : NULL };
	hc_db_experiment_fill fill = o ? o->fill : NULL;
	struct hc_db *db;
	size_t len;
	int rc;

	*out = NULL;
	if (errsz)
		err[0] = 0;
	db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->dir = load__strdup(dir);
	if (!db->dir) {
		free(db);
		return -ENOMEM;
	}
	len = strlen(db->dir);
	while (len > 1 && db->dir[len - 1] == '/')
		db->dir[--len] = 0;
	ld.db = db;

	rc = read__meta(&ld);
	if (!rc) {
		/* Processes are ordered by rank (threads.c): count the changes. */
		db->nranks = 1;
		for (size_t i = 1; i < db->nprocs; i++)
			db->nranks += db->procs[i].rank != db->procs[i - 1].rank;
	}
	if (!rc)
		rc = o && o->fill_matrices ? o->fill_matrices(db, o->arg) : read__matrices(&ld);
	if (!rc && o && o->fill_matrices)
		rc = read__matrices_check(&ld);
	if (!rc)
		rc = read__threads(&ld);
	if (!rc && fill) {
		rc = fill(db, o->arg);
		if (!rc)
			rc = read__experiment_check(&ld);
	} else if (!rc) {
		rc = read__experiment(&ld);
	}
	if (!rc)
		rc = index_nodes(&ld);
	if (!rc)
		rc = read__objects(&ld);
	if (!rc)
		rc = read__regions(&ld);
	if (!rc)
		rc = read__views(&ld);
	if (!rc)
		rc = check_refs(&ld);
	if (rc) {
		if (rc == -ENOMEM && !err[0])
			snprintf(err, errsz, "%s: out of memory", ld.path);
		hc_db_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

int hc_db_open(const char *dir, struct hc_db **out, char *err, size_t errsz)
{
	return open_db(dir, NULL, out, err, errsz);
}

int hc_db_open_with(const char *dir, const struct hc_db_open_opts *o, struct hc_db **out,
                    char *err, size_t errsz)
{
	return open_db(dir, o, out, err, errsz);
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void hc_db_close(struct hc_db *db)
{
	if (!db)
		return;
	hc_db_views_free(db->views);
	free(db->dir);
	free(db->generator);
	free(db->unit);
	free(db->unit_text);
	free(db->samplers);
	free_strv(db->inputs, db->ninputs);
	for (size_t i = 0; i < db->nskips; i++) {
		free(db->skips[i].file);
		free(db->skips[i].reason);
	}
	free(db->skips);
	for (size_t i = 0; i < db->nhosts; i++) {
		free(db->hosts[i].id);
		free(db->hosts[i].topology);
		free(db->hosts[i].name);
	}
	free(db->hosts);
	for (size_t i = 0; i < db->nprocs; i++) {
		free(db->procs[i].host);
		free(db->procs[i].exe);
		free(db->procs[i].log);
	}
	free(db->procs);
	for (size_t i = 0; i < db->nrankrows; i++)
		free(db->rankrows[i].host);
	free(db->rankrows);
	free(db->rankpairs);
	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++) {
		for (int k = 0; k < HC_DB_KIND_COUNT; k++) {
			free(db->mat[l][k].file);
			free(db->mat[l][k].cells);
		}
		for (size_t i = 0; i < db->nlabels[l]; i++)
			free(db->labels[l][i].host);
		free(db->labels[l]);
	}
	for (size_t i = 0; i < db->ncounters; i++)
		free(db->counters[i].name);
	free(db->counters);
	free_strv(db->warnings, db->nwarnings);
	for (size_t i = 0; i < db->nthreads; i++) {
		struct hc_db_thread *t = &db->threads[i];
		free(t->start_routine);
		free(t->cpus);
		free(t->sampler);
		free(t->profile);
		free(t->host);
	}
	free(db->threads);
	free(db->program);
	for (size_t i = 0; i < db->nlms; i++)
		free(db->lms[i].n);
	free(db->lms);
	for (size_t i = 0; i < db->nfiles; i++)
		free(db->files[i].n);
	free(db->files);
	for (size_t i = 0; i < db->nprocedures; i++)
		free(db->procedures[i].n);
	free(db->procedures);
	free(db->nodes);
	free(db->pairs);
	for (size_t i = 0; i < db->nobjects; i++) {
		struct hc_db_object *o = &db->objects[i];
		free(o->kind);
		free(o->name);
		free(o->module);
		free(o->type);
		free(o->cells);
		for (size_t f = 0; f < o->nfields; f++) {
			free(o->fields[f].name);
			free(o->fields[f].threads);
		}
		free(o->fields);
		free(o->pairs);
	}
	free(db->objects);
	for (size_t i = 0; i < db->nregions; i++) {
		struct hc_db_region *r = &db->regions[i];
		free(r->kind);
		free(r->name);
		free(r->lm);
		free(r->file);
		free(r->cells);
	}
	free(db->regions);
	free(db->regions_matrices);
	free(db->regions_exclusive);
	free(db->node_ids);
	free(db->node_idx);
	free(db);
}

const struct hc_db_node *hc_db_node_find(const struct hc_db *db, uint64_t id)
{
	size_t lo = 0, hi = db->nnodes;

	if (!db->node_ids)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (db->node_ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < db->nnodes && db->node_ids[lo] == id)
		return &db->nodes[db->node_idx[lo]];
	return NULL;
}

/* Tables are sorted by id by experiment.c; binary search them. */
static const struct hc_db_name *find_name(const struct hc_db_name *t, size_t n, uint64_t id)
{
	size_t k = hc_find_u64(t, n, sizeof(*t), offsetof(struct hc_db_name, i), id);

	return k < n ? &t[k] : NULL;
}

const char *hc_db_file_name(const struct hc_db *db, uint64_t f)
{
	const struct hc_db_name *e = find_name(db->files, db->nfiles, f);
	return e ? e->n : NULL;
}

const char *hc_db_lm_name(const struct hc_db *db, uint64_t i)
{
	const struct hc_db_name *e = find_name(db->lms, db->nlms, i);
	return e ? e->n : NULL;
}

const struct hc_db_proc *hc_db_procedure(const struct hc_db *db, uint64_t i)
{
	size_t k = hc_find_u64(db->procedures, db->nprocedures, sizeof(*db->procedures),
	                       offsetof(struct hc_db_proc, i), i);

	return k < db->nprocedures ? &db->procedures[k] : NULL;
}

const char *hc_db_node_proc_name(const struct hc_db *db, const struct hc_db_node *n)
{
	while (n) {
		if (n->type == HC_DB_N_PF || n->type == HC_DB_N_A) {
			const struct hc_db_proc *p = hc_db_procedure(db, n->proc);
			return p ? p->n : "?";
		}
		n = n->parent == HC_DB_NONE ? NULL : &db->nodes[n->parent];
	}
	return "?";
}

char *hc_db_node_where(const struct hc_db *db, const struct hc_db_node *n, bool base,
                        char *buf, size_t sz)
{
	const char *f = n && n->f ? hc_db_file_name(db, n->f) : NULL;

	if (!f) {
		snprintf(buf, sz, "<unknown>");
		return buf;
	}
	if (base && strrchr(f, '/'))
		f = strrchr(f, '/') + 1;
	snprintf(buf, sz, "%s:%llu", f, (unsigned long long)n->l);
	return buf;
}

char *hc_db_index_label(const struct hc_db *db, int level, uint32_t i, char *buf, size_t sz)
{
	if (level == HC_DB_LEVEL_THREAD) {
		/* "<index> <start routine or main>", and the pid when there are
		   several processes */
		const struct hc_db_thread *t = i < db->nthreads ? &db->threads[i] : NULL;
		const char *name = !t ? "" : t->start_routine[0] ? t->start_routine :
		                   t->thread == 0 ? "main" : "";
		if (t && db->nranks > 1)
			/* "rank.thread name" (thread = its index within its process) */
			snprintf(buf, sz, "%llu.%llu%s%s", (unsigned long long)t->rank,
			         (unsigned long long)t->thread, name[0] ? " " : "", name);
		else if (t && db->nprocs > 1)
			snprintf(buf, sz, "%u %s%s@%llu", i, name, name[0] ? " " : "",
			         (unsigned long long)t->pid);
		else
			snprintf(buf, sz, "%u%s%s", i, name[0] ? " " : "", name);
		return buf;
	}
	if (i < db->nlabels[level]) {
		const struct hc_db_label *l = &db->labels[level][i];
		int64_t v = level == HC_DB_LEVEL_CORE ? l->cpu :
		            level == HC_DB_LEVEL_SOCKET ? l->socket : l->numa;
		const char *what = level == HC_DB_LEVEL_CORE ? "cpu" :
		                   level == HC_DB_LEVEL_SOCKET ? "socket" : "numa";
		if (v >= 0 && db->nhosts > 1)
			snprintf(buf, sz, "%s %lld@%s", what, (long long)v, l->host);
		else if (v >= 0)
			snprintf(buf, sz, "%s %lld", what, (long long)v);
		else
			snprintf(buf, sz, "%s ?%u", what, i);
		return buf;
	}
	snprintf(buf, sz, "%u", i);
	return buf;
}

int hc_db_level_parse(const char *s)
{
	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++)
		if (!strcmp(s, hc_db_level_name(l)))
			return l;
	return -1;
}

int hc_db_kind_parse(const char *s)
{
	for (int k = 0; k < HC_DB_KIND_COUNT; k++)
		if (!strcmp(s, hc_db_kind_name(k)))
			return k;
	return -1;
}
