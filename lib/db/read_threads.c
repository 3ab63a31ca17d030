/* SPDX-License-Identifier: BSD-3-Clause */
/* threads.c — threads.csv (doc/database-format.md §3): the exact header, one
   row per thread ordered by index, as many rows as the thread matrices have
   indexes, each naming a process of database.xml. Empty numeric fields
   (threads without a profile, main threads) become -1. No signal context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db/internal.h"

enum { C_INDEX, C_PROCESS, C_PID, C_THREAD, C_TID, C_CREATOR, C_START, C_CTX, C_CPUS,
       C_SAMPLER, C_PERIOD, C_PROFILE, C_RANK, C_HOST, C_COUNT };
enum { C_COUNT_V1 = C_RANK };   /* before the MPI columns */

static const char *const col_names[C_COUNT] = {
	"index", "process", "pid", "thread", "tid", "creator", "start_routine",
	"creation_context", "cpus", "sampler", "period", "profile", "rank", "host" };

static int req_u64(struct load *ld, struct csv *c, int col, uint64_t *v)
{
	if (!load__parse_u64(c->f[col], v))
		return load__fail(ld, c->line, "column %s: '%.30s' is not a non-negative integer",
		                   col_names[col], c->f[col]);
	return 0;
}

static int opt_i64(struct load *ld, struct csv *c, int col, int64_t *v)
{
	uint64_t u;

	if (!c->f[col][0]) {
		*v = -1;
		return 0;
	}
	if (!load__parse_u64(c->f[col], &u) || u > INT64_MAX)
		return load__fail(ld, c->line, "column %s: '%.30s' is not empty or a "
		                   "non-negative integer", col_names[col], c->f[col]);
	*v = (int64_t)u;
	return 0;
}

static int load_row(struct load *ld, struct csv *c, struct hc_db_thread *t, size_t expect,
                    int ncols)
{
	struct hc_db *db = ld->db;
	int rc;

	if (c->nf != (size_t)ncols)
		return load__fail(ld, c->line, "%zu fields, expected %d", c->nf, ncols);
	rc = req_u64(ld, c, C_INDEX, &t->index);
	if (!rc && t->index != expect)
		rc = load__fail(ld, c->line, "thread index %llu, expected %zu (rows ordered by index)",
		                 (unsigned long long)t->index, expect);
	if (!rc)
		rc = req_u64(ld, c, C_PROCESS, &t->process);
	if (!rc && t->process >= db->nprocs)
		rc = load__fail(ld, c->line, "process %llu: database.xml has %zu processes",
		                 (unsigned long long)t->process, db->nprocs);
	if (!rc)
		rc = req_u64(ld, c, C_PID, &t->pid);
	if (!rc)
		rc = req_u64(ld, c, C_THREAD, &t->thread);
	if (!rc)
		rc = opt_i64(ld, c, C_TID, &t->tid);
	if (!rc)
		rc = opt_i64(ld, c, C_CREATOR, &t->creator);
	if (!rc)
		rc = opt_i64(ld, c, C_CTX, &t->creation_context);
	if (!rc)
		rc = opt_i64(ld, c, C_PERIOD, &t->period);
	if (!rc && ncols > C_RANK)
		rc = req_u64(ld, c, C_RANK, &t->rank);
	if (!rc && ncols > C_RANK && t->rank != db->procs[t->process].rank)
		rc = load__fail(ld, c->line, "rank %llu, but its process %llu has rank %llu",
		                 (unsigned long long)t->rank, (unsigned long long)t->process,
		                 (unsigned long long)db->procs[t->process].rank);
	if (rc)
		return rc;
	t->host = load__strdup(ncols > C_HOST ? c->f[C_HOST] : "");
	if (!t->host)
		return -ENOMEM;
	t->start_routine = load__strdup(c->f[C_START]);
	t->cpus = load__strdup(c->f[C_CPUS]);
	t->sampler = load__strdup(c->f[C_SAMPLER]);
	t->profile = load__strdup(c->f[C_PROFILE]);
	if (!t->start_routine || !t->cpus || !t->sampler || !t->profile)
		return -ENOMEM;
	return 0;
}

int read__threads(struct load *ld)
{
	struct hc_db *db = ld->db;
	size_t n = db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_ALL].n;
	struct csv c;
	int rc, ncols = C_COUNT;

	if ((rc = csv__open(&c, ld, HC_DB_THREADS)))
		return rc;
	db->threads = calloc(n, sizeof(*db->threads));
	if (!db->threads) {
		rc = -ENOMEM;
		goto out;
	}
	rc = csv__next(&c, ld);
	if (rc <= 0) {
		if (rc == 0)
			rc = load__fail(ld, 0, "empty file (expected the header and %zu rows)", n);
		goto out;
	}
	{
		char header[256] = "";
		for (size_t k = 0; k < c.nf; k++) {
			strncat(header, k ? "," : "", sizeof(header) - strlen(header) - 1);
			strncat(header, c.f[k], sizeof(header) - strlen(header) - 1);
		}
		if (strcmp(header, HC_DB_THREADS_HEADER_V1) == 0)
			ncols = C_COUNT_V1;
		else if (strcmp(header, HC_DB_THREADS_HEADER)) {
			rc = load__fail(ld, c.line, "header is '%.120s', expected '%s'",
			                 header, HC_DB_THREADS_HEADER);
			goto out;
		}
	}
	while ((rc = csv__next(&c, ld)) > 0) {
		if (db->nthreads == n) {
			rc = load__fail(ld, c.line, "more than %zu threads (the thread matrices are "
			                 "%zu×%zu)", n, n, n);
			goto out;
		}
		/* counted before it is filled so that close frees a partial row */
		size_t t = db->nthreads++;
		rc = load_row(ld, &c, &db->threads[t], t, ncols);
		if (rc)
			goto out;
	}
	if (rc == 0 && db->nthreads != n)
		rc = load__fail(ld, 0, "%zu threads, but the thread matrices are %zu×%zu "
		                 "(file cut short?)", db->nthreads, n, n);
out:
	csv__close(&c);
	return rc;
}
