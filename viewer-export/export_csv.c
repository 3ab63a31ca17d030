/* SPDX-License-Identifier: BSD-3-Clause */
/* export_csv.c — --csv DIR: the report as flat tables for spreadsheets and
   data-frame libraries (RFC 4180, header row, values in the database unit as
   plain integers). The matrices become long-format pair lists (one row per
   unordered pair i < j, zeros included, so a pair list is the whole upper
   triangle); the tree, code pairs and objects get one row per entry with
   names resolved. Files are listed in doc/viewer-export.md. No signal
   context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exporter.h"

static void csv_str(FILE *f, const char *s)
{
	if (!s)
		s = "";
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

struct csvdir {
	const char *dir;
	struct out out;
	FILE *f;
	const char *name;          /* table being written */
	const char *written[16];   /* tables committed by this run */
	int nwritten;
};

static int begin(struct csvdir *c, const char *name, const char *header)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	if (out_open(&c->out, path))
		return -1;
	c->name = name;
	c->f = c->out.f;
	fprintf(c->f, "%s\n", header);
	return 0;
}

static int end(struct csvdir *c)
{
	char *copy;
	int rc = out_close(&c->out, true);

	/* begin() names come from string literals or a caller's buffer: keep a copy */
	if (rc == 0 && c->nwritten < (int)(sizeof(c->written) / sizeof(c->written[0])) &&
	    (copy = strdup(c->name)) != NULL)
		c->written[c->nwritten++] = copy;
	return rc;
}

/* A failed export (disk full, ...) must not leave a partial set of tables
   that looks like a complete one: remove what this run wrote, and the
   directory when this run created it. */
static void undo(struct csvdir *c, bool created)
{
	char path[4096];

	for (int k = 0; k < c->nwritten; k++) {
		snprintf(path, sizeof(path), "%s/%s", c->dir, c->written[k]);
		unlink(path);
	}
	if (created)
		rmdir(c->dir);
	vx_error("%s: CSV export incomplete: removed the %d table%s this run had written%s",
	         c->dir, c->nwritten, c->nwritten == 1 ? "" : "s",
	         created ? " and the directory" : "");
}

static int write_summary(struct csvdir *c, const struct hc_db *db)
{
	const char *keys[] = { "all", "true", "false", "sample", "trap", "events", "event_weight" };
	uint64_t vals[] = { db->t_all, db->t_true, db->t_false, db->t_sample, db->t_trap,
	                    db->events, db->event_weight };

	if (begin(c, "summary.csv", "key,value"))
		return -1;
	fputs("program,", c->f);
	csv_str(c->f, db->program);
	fprintf(c->f, "\nunit,%s\nsamplers,", db->unit);
	csv_str(c->f, db->samplers);
	fprintf(c->f, "\nprocesses,%zu\nthreads,%zu\nprofiles_read,%llu\nprofiles_skipped,%llu\n",
	        db->nprocs, db->nthreads, (unsigned long long)db->read,
	        (unsigned long long)db->skipped);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		fprintf(c->f, "%s,%llu\n", keys[k], (unsigned long long)vals[k]);
	return end(c);
}

static void level_pair_row(struct csvdir *c, const struct hc_db *db, int level, uint32_t i, uint32_t j,
                     char *li, char *lj)
{
	fprintf(c->f, "%u,%u,", i, j);
	csv_str(c->f, hc_db_index_label(db, level, i, li, 256));
	fputc(',', c->f);
	csv_str(c->f, hc_db_index_label(db, level, j, lj, 256));
	fprintf(c->f, ",%llu,%llu,%llu\n",
	        (unsigned long long)hc_db_matrix_at(&db->mat[level][HC_DB_KIND_ALL], i, j),
	        (unsigned long long)hc_db_matrix_at(&db->mat[level][HC_DB_KIND_TRUE], i, j),
	        (unsigned long long)hc_db_matrix_at(&db->mat[level][HC_DB_KIND_FALSE], i, j));
}

static int write_pairs(struct csvdir *c, const struct hc_db *db, int level)
{
	const struct hc_db_matrix *a = &db->mat[level][HC_DB_KIND_ALL];
	char name[64], li[256], lj[256];

	snprintf(name, sizeof(name), "pairs-%s.csv", hc_db_level_name(level));
	if (begin(c, name, "i,j,label_i,label_j,all,true,false"))
		return -1;
	/* Every pair of a small level; of a large one the non-zero pairs (the
	   cells of `all`: true and false are parts of it). */
	for (size_t k = 0; a->n > VX_LARGE_N && k < a->ncells; k++)
		level_pair_row(c, db, level, a->cells[k].i, a->cells[k].j, li, lj);
	for (uint32_t i = 0; a->n <= VX_LARGE_N && i < a->n; i++)
		for (uint32_t j = i + 1; j < a->n; j++)
			level_pair_row(c, db, level, i, j, li, lj);
	return end(c);
}

static int write_threads(struct csvdir *c, const struct hc_db *db)
{
	const struct hc_db_matrix *m = db->mat[HC_DB_LEVEL_THREAD];
	uint64_t *vol[HC_DB_KIND_COUNT];
	int rc = 0;

	for (int k = 0; k < HC_DB_KIND_COUNT; k++) {
		vol[k] = calloc((size_t)m[k].n + 1, sizeof(*vol[k]));
		if (vol[k])
			hc_db_matrix_volumes(&m[k], vol[k]);
		else
			rc = vx_error("out of memory");
	}
	if (!rc && begin(c, "threads.csv", "index,label,process,pid,tid,creator,start_routine,cpus,"
	                 "all,true,false"))
		rc = -1;
	for (uint32_t i = 0; !rc && i < db->nthreads; i++) {
		const struct hc_db_thread *t = &db->threads[i];
		uint64_t sum[HC_DB_KIND_COUNT] = { 0 };
		char label[256];
		for (int k = 0; k < HC_DB_KIND_COUNT; k++)
			if (i < m[k].n)
				sum[k] = vol[k][i];
		fprintf(c->f, "%u,", i);
		csv_str(c->f, hc_db_index_label(db, HC_DB_LEVEL_THREAD, i, label, sizeof(label)));
		fprintf(c->f, ",%llu,%llu,", (unsigned long long)t->process, (unsigned long long)t->pid);
		if (t->tid >= 0)
			fprintf(c->f, "%lld", (long long)t->tid);
		fputc(',', c->f);
		if (t->creator >= 0)
			fprintf(c->f, "%lld", (long long)t->creator);
		fputc(',', c->f);
		csv_str(c->f, t->start_routine);
		fputc(',', c->f);
		csv_str(c->f, t->cpus);
		fprintf(c->f, ",%llu,%llu,%llu\n", (unsigned long long)sum[0],
		        (unsigned long long)sum[1], (unsigned long long)sum[2]);
	}
	for (int k = 0; k < HC_DB_KIND_COUNT; k++)
		free(vol[k]);
	return rc ? rc : end(c);
}

static int write_cct(struct csvdir *c, const struct hc_db *db)
{
	static const char *const types[] = { "PF", "A", "C", "S" };

	if (begin(c, "cct.csv", "id,parent,type,procedure,file,line,"
	          "all_i,true_i,false_i,sample_i,trap_i,all_e,true_e,false_e,sample_e,trap_e"))
		return -1;
	for (size_t k = 0; k < db->nnodes; k++) {
		const struct hc_db_node *n = &db->nodes[k];
		const char *file = hc_db_file_name(db, n->f);
		fprintf(c->f, "%llu,%llu,%s,", (unsigned long long)n->id,
		        (unsigned long long)(n->parent == HC_DB_NONE ? 0 : db->nodes[n->parent].id),
		        types[n->type]);
		csv_str(c->f, hc_db_node_proc_name(db, n));
		fputc(',', c->f);
		csv_str(c->f, n->f ? file : "");
		fprintf(c->f, ",%llu", (unsigned long long)n->l);
		for (int e = 0; e < 2; e++)
			for (int b = 0; b < HC_DB_M_COUNT; b++)
				fprintf(c->f, ",%llu", (unsigned long long)n->m[HC_DB_METRIC_ID(b, e)]);
		fputc('\n', c->f);
	}
	return end(c);
}

static void pair_row(FILE *f, const struct hc_db *db, const struct hc_db_codepair *p)
{
	const struct hc_db_node *c = hc_db_node_find(db, p->c);
	const struct hc_db_node *q = p->p ? hc_db_node_find(db, p->p) : NULL;
	char where[600];

	fprintf(f, "%llu,", (unsigned long long)p->c);
	if (p->p)
		fprintf(f, "%llu", (unsigned long long)p->p);
	fputc(',', f);
	csv_str(f, hc_db_node_where(db, c, false, where, sizeof(where)));
	fputc(',', f);
	csv_str(f, q ? hc_db_node_where(db, q, false, where, sizeof(where)) : "");
	fputc(',', f);
	csv_str(f, hc_db_node_proc_name(db, c));
	fputc(',', f);
	csv_str(f, q ? hc_db_node_proc_name(db, q) : "");
	fprintf(f, ",%llu,%llu,%llu\n", (unsigned long long)p->all, (unsigned long long)p->tru,
	        (unsigned long long)p->fal);
}

static int write_code_pairs(struct csvdir *c, const struct hc_db *db)
{
	if (begin(c, "code-pairs.csv", "c,p,c_location,p_location,c_procedure,p_procedure,"
	          "all,true,false"))
		return -1;
	for (size_t k = 0; k < db->npairs; k++)
		pair_row(c->f, db, &db->pairs[k]);
	return end(c);
}

static int write_objects(struct csvdir *c, const struct hc_db *db)
{
	if (begin(c, "objects.csv", "i,kind,name,module,context,size,blocks,all,true,false,fields"))
		return -1;
	for (size_t k = 0; k < db->nobjects; k++) {
		const struct hc_db_object *o = &db->objects[k];
		char *fields = NULL;
		size_t flen = 0;
		FILE *m = open_memstream(&fields, &flen);
		fprintf(c->f, "%llu,", (unsigned long long)o->i);
		csv_str(c->f, o->kind);
		fputc(',', c->f);
		csv_str(c->f, o->name);
		fputc(',', c->f);
		csv_str(c->f, o->module);
		fputc(',', c->f);
		fprintf(c->f, "%llu", (unsigned long long)o->context);   /* 0: none, as in the database */
		fprintf(c->f, ",%llu,%llu,%llu,%llu,%llu,", (unsigned long long)o->size,
		        (unsigned long long)o->blocks, (unsigned long long)o->all,
		        (unsigned long long)o->tru, (unsigned long long)o->fal);
		for (size_t f = 0; m && f < o->nfields; f++)
			fprintf(m, "%s%s@%llu+%llu", f ? ";" : "", o->fields[f].name,
			        (unsigned long long)o->fields[f].offset,
			        (unsigned long long)o->fields[f].size);
		if (m)
			fclose(m);
		csv_str(c->f, fields ? fields : "");
		fputc('\n', c->f);
		free(fields);
	}
	if (end(c))
		return -1;
	if (begin(c, "object-threads.csv", "object,i,j,all,true,false"))
		return -1;
	for (size_t k = 0; k < db->nobjects; k++)
		for (size_t e = 0; e < db->objects[k].ncells; e++) {
			const struct hc_db_objcell *x = &db->objects[k].cells[e];
			fprintf(c->f, "%llu,%u,%u,%llu,%llu,%llu\n", (unsigned long long)db->objects[k].i,
			        x->i, x->j, (unsigned long long)x->all, (unsigned long long)x->tru,
			        (unsigned long long)x->fal);
		}
	if (end(c))
		return -1;
	if (begin(c, "object-code-pairs.csv", "object,c,p,c_location,p_location,c_procedure,"
	          "p_procedure,all,true,false"))
		return -1;
	for (size_t k = 0; k < db->nobjects; k++)
		for (size_t e = 0; e < db->objects[k].npairs; e++) {
			fprintf(c->f, "%llu,", (unsigned long long)db->objects[k].i);
			pair_row(c->f, db, &db->objects[k].pairs[e]);
		}
	return end(c);
}

static int csv_run(const struct hc_db *db, const struct export_opts *o)
{
	struct csvdir c = { .dir = o->out };
	struct stat st;
	bool created = true;
	int rc = 0;

	if (mkdir(o->out, 0777)) {
		if (errno != EEXIST)
			return vx_error("%s: %s", o->out, strerror(errno));
		created = false;
	}
	if (stat(o->out, &st) || !S_ISDIR(st.st_mode))
		return vx_error("%s: not a directory", o->out);
	{
		/* threads.csv and objects.csv would replace the database's own */
		struct stat dbst;
		if (stat(o->db_dir, &dbst) == 0 && dbst.st_dev == st.st_dev && dbst.st_ino == st.st_ino)
			return vx_error("%s: is the database directory; write the CSV tables elsewhere",
			                o->out);
	}
	rc |= write_summary(&c, db);
	for (int l = 0; l < HC_DB_LEVEL_COUNT; l++)
		if (db->mat[l][HC_DB_KIND_ALL].present)
			rc |= write_pairs(&c, db, l);
	rc |= write_threads(&c, db);
	rc |= write_cct(&c, db);
	rc |= write_code_pairs(&c, db);
	if (db->has_objects)
		rc |= write_objects(&c, db);
	if (rc)
		undo(&c, created);
	for (int k = 0; k < c.nwritten; k++)
		free((char *)c.written[k]);
	return rc ? -1 : 0;
}

const struct exporter export_csv = {
	.name = "csv",
	.arg = "DIR",
	.help = "CSV tables (pairs per level, threads, tree, code pairs, objects) into DIR",
	.run = csv_run,
};
