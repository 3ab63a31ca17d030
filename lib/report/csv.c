/* SPDX-License-Identifier: BSD-3-Clause */
/* csv.c — the report as flat tables for spreadsheets and data-frame
   libraries (RFC 4180, header row, values in the database unit as plain
   integers). The matrices become long-format pair lists (one row per
   unordered pair i < j, zeros included, so a pair list is the whole upper
   triangle; of a large level the non-zero pairs only); the tree, code pairs
   and objects get one row per entry with names resolved. viewer-export --csv
   writes every table (doc/viewer-export.md lists them); hpcprof-comm writes
   objects.csv into the database with the same function. No signal
   context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/insight.h"
#include "report/report.h"
#include "support/out.h"

int hc_report_csv_summary(const struct hc_db *db, FILE *f)
{
	const char *keys[] = { "all", "true", "false", "sample", "trap", "events", "event_weight" };
	uint64_t vals[] = { db->t_all, db->t_true, db->t_false, db->t_sample, db->t_trap,
	                    db->events, db->event_weight };

	fputs("key,value\n", f);
	fputs("program,", f);
	hc_put_csv(f, db->program);
	fprintf(f, "\nunit,%s\nsamplers,", db->unit);
	hc_put_csv(f, db->samplers);
	fprintf(f, "\nprocesses,%zu\nthreads,%zu\nprofiles_read,%llu\nprofiles_skipped,%llu\n",
	        db->nprocs, db->nthreads, (unsigned long long)db->read,
	        (unsigned long long)db->skipped);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		fprintf(f, "%s,%llu\n", keys[k], (unsigned long long)vals[k]);
	{
		/* the scale (lib/report/scale.c): shares in percent of what was sampled */
		struct hc_report_scale sc;
		hc_report_scale(db, &sc);
		if (sc.known) {
			fprintf(f, "scale_basis,%s\nscale_denominator,%llu\n",
			        sc.time ? "cpu_time" : "memory_accesses", (unsigned long long)sc.denom);
			fprintf(f, "share_all,%.4f\nshare_true,%.4f\nshare_false,%.4f\n",
			        hc_report_share(&sc, db->t_all), hc_report_share(&sc, db->t_true),
			        hc_report_share(&sc, db->t_false));
		}
	}
	return 0;
}

static void level_pair_row(FILE *f, const struct hc_db *db, int level, uint32_t i, uint32_t j,
                     char *li, char *lj)
{
	fprintf(f, "%u,%u,", i, j);
	hc_put_csv(f, hc_db_index_label(db, level, i, li, 256));
	fputc(',', f);
	hc_put_csv(f, hc_db_index_label(db, level, j, lj, 256));
	fprintf(f, ",%llu,%llu,%llu\n",
	        (unsigned long long)hc_db_matrix_at(&db->mat[level][HC_DB_KIND_ALL], i, j),
	        (unsigned long long)hc_db_matrix_at(&db->mat[level][HC_DB_KIND_TRUE], i, j),
	        (unsigned long long)hc_db_matrix_at(&db->mat[level][HC_DB_KIND_FALSE], i, j));
}

int hc_report_csv_pairs(const struct hc_db *db, int level, FILE *f)
{
	const struct hc_db_matrix *a = &db->mat[level][HC_DB_KIND_ALL];
	char li[256], lj[256];

	fputs("i,j,label_i,label_j,all,true,false\n", f);
	/* Every pair of a small level; of a large one the non-zero pairs (the
	   cells of `all`: true and false are parts of it). */
	for (size_t k = 0; a->n > HC_REPORT_LARGE_N && k < a->ncells; k++)
		level_pair_row(f, db, level, a->cells[k].i, a->cells[k].j, li, lj);
	for (uint32_t i = 0; a->n <= HC_REPORT_LARGE_N && i < a->n; i++)
		for (uint32_t j = i + 1; j < a->n; j++)
			level_pair_row(f, db, level, i, j, li, lj);
	return 0;
}

int hc_report_csv_ranks(const struct hc_db *db, FILE *f)
{
	fputs("rank,host,processes,threads,within_all,within_true,within_false,across_all,"
	      "across_true,across_false\n", f);
	for (size_t k = 0; k < db->nrankrows; k++) {
		const struct hc_db_rank *r = &db->rankrows[k];
		fprintf(f, "%llu,", (unsigned long long)r->rank);
		hc_put_csv(f, r->host);
		fprintf(f, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", (unsigned long long)r->processes,
		        (unsigned long long)r->threads,
		        (unsigned long long)(r->within[0] + r->within[1]), (unsigned long long)r->within[0],
		        (unsigned long long)r->within[1],
		        (unsigned long long)(r->across[0] + r->across[1]), (unsigned long long)r->across[0],
		        (unsigned long long)r->across[1]);
	}
	return 0;
}

int hc_report_csv_threads(const struct hc_db *db, FILE *f)
{
	const struct hc_db_matrix *m = db->mat[HC_DB_LEVEL_THREAD];
	uint64_t *vol[HC_DB_KIND_COUNT];
	int rc = 0;

	for (int k = 0; k < HC_DB_KIND_COUNT; k++) {
		vol[k] = calloc((size_t)m[k].n + 1, sizeof(*vol[k]));
		if (vol[k])
			hc_db_matrix_volumes(&m[k], vol[k]);
		else
			rc = -ENOMEM;
	}
	if (!rc)
		fputs("index,label,process,pid,tid,creator,start_routine,cpus,all,true,false,rank,host\n", f);
	for (uint32_t i = 0; !rc && i < db->nthreads; i++) {
		const struct hc_db_thread *t = &db->threads[i];
		uint64_t sum[HC_DB_KIND_COUNT] = { 0 };
		char label[256];
		for (int k = 0; k < HC_DB_KIND_COUNT; k++)
			if (i < m[k].n)
				sum[k] = vol[k][i];
		fprintf(f, "%u,", i);
		hc_put_csv(f, hc_db_index_label(db, HC_DB_LEVEL_THREAD, i, label, sizeof(label)));
		fprintf(f, ",%llu,%llu,", (unsigned long long)t->process, (unsigned long long)t->pid);
		if (t->tid >= 0)
			fprintf(f, "%lld", (long long)t->tid);
		fputc(',', f);
		if (t->creator >= 0)
			fprintf(f, "%lld", (long long)t->creator);
		fputc(',', f);
		hc_put_csv(f, t->start_routine);
		fputc(',', f);
		hc_put_csv(f, t->cpus);
		fprintf(f, ",%llu,%llu,%llu,%llu,", (unsigned long long)sum[0],
		        (unsigned long long)sum[1], (unsigned long long)sum[2],
		        (unsigned long long)t->rank);
		hc_put_csv(f, t->host ? t->host : "");
		fputc('\n', f);
	}
	for (int k = 0; k < HC_DB_KIND_COUNT; k++)
		free(vol[k]);
	return rc;
}

int hc_report_csv_cct(const struct hc_db *db, FILE *f)
{
	static const char *const types[] = { "PF", "A", "C", "S" };

	fputs("id,parent,type,procedure,file,line,"
	          "all_i,true_i,false_i,sample_i,trap_i,all_e,true_e,false_e,sample_e,trap_e\n", f);
	for (size_t k = 0; k < db->nnodes; k++) {
		const struct hc_db_node *n = &db->nodes[k];
		const char *file = hc_db_file_name(db, n->f);
		fprintf(f, "%llu,%llu,%s,", (unsigned long long)n->id,
		        (unsigned long long)(n->parent == HC_DB_NONE ? 0 : db->nodes[n->parent].id),
		        types[n->type]);
		hc_put_csv(f, hc_db_node_proc_name(db, n));
		fputc(',', f);
		hc_put_csv(f, n->f ? file : "");
		fprintf(f, ",%llu", (unsigned long long)n->l);
		for (int e = 0; e < 2; e++)
			for (int b = 0; b < HC_DB_M_COUNT; b++)
				fprintf(f, ",%llu", (unsigned long long)n->m[HC_DB_METRIC_ID(b, e)]);
		fputc('\n', f);
	}
	return 0;
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
	hc_put_csv(f, hc_db_node_where(db, c, false, where, sizeof(where)));
	fputc(',', f);
	hc_put_csv(f, q ? hc_db_node_where(db, q, false, where, sizeof(where)) : "");
	fputc(',', f);
	hc_put_csv(f, hc_db_node_proc_name(db, c));
	fputc(',', f);
	hc_put_csv(f, q ? hc_db_node_proc_name(db, q) : "");
	fprintf(f, ",%llu,%llu,%llu\n", (unsigned long long)p->all, (unsigned long long)p->tru,
	        (unsigned long long)p->fal);
}

int hc_report_csv_code_pairs(const struct hc_db *db, FILE *f)
{
	fputs("c,p,c_location,p_location,c_procedure,p_procedure,"
	          "all,true,false\n", f);
	for (size_t k = 0; k < db->npairs; k++)
		pair_row(f, db, &db->pairs[k]);
	return 0;
}

int hc_report_csv_objects(const struct hc_db *db, FILE *f)
{
	fputs("i,kind,name,module,context,size,blocks,all,true,false,fields\n", f);
	for (size_t k = 0; k < db->nobjects; k++) {
		const struct hc_db_object *o = &db->objects[k];
		char *fields = NULL;
		size_t flen = 0;
		FILE *m = open_memstream(&fields, &flen);
		fprintf(f, "%llu,", (unsigned long long)o->i);
		hc_put_csv(f, o->kind);
		fputc(',', f);
		hc_put_csv(f, o->name);
		fputc(',', f);
		hc_put_csv(f, o->module);
		fputc(',', f);
		fprintf(f, "%llu", (unsigned long long)o->context);   /* 0: none, as in the database */
		fprintf(f, ",%llu,%llu,%llu,%llu,%llu,", (unsigned long long)o->size,
		        (unsigned long long)o->blocks, (unsigned long long)o->all,
		        (unsigned long long)o->tru, (unsigned long long)o->fal);
		/* name@offset+size, then /access when the accesses were of another
		   size (as the analyzer's objects.csv, doc/database-format.md) */
		for (size_t k2 = 0; m && k2 < o->nfields; k2++) {
			fprintf(m, "%s%s@%llu+%llu", k2 ? ";" : "", o->fields[k2].name,
			        (unsigned long long)o->fields[k2].offset,
			        (unsigned long long)o->fields[k2].size);
			if (o->fields[k2].access && o->fields[k2].access != o->fields[k2].size)
				fprintf(m, "/%llu", (unsigned long long)o->fields[k2].access);
		}
		if (m)
			fclose(m);
		hc_put_csv(f, fields ? fields : "");
		fputc('\n', f);
		free(fields);
	}
	return 0;
}

int hc_report_csv_object_threads(const struct hc_db *db, FILE *f)
{
	fputs("object,i,j,all,true,false\n", f);
	for (size_t k = 0; k < db->nobjects; k++)
		for (size_t e = 0; e < db->objects[k].ncells; e++) {
			const struct hc_db_objcell *x = &db->objects[k].cells[e];
			fprintf(f, "%llu,%u,%u,%llu,%llu,%llu\n", (unsigned long long)db->objects[k].i,
			        x->i, x->j, (unsigned long long)x->all, (unsigned long long)x->tru,
			        (unsigned long long)x->fal);
		}
	return 0;
}

int hc_report_csv_object_code_pairs(const struct hc_db *db, FILE *f)
{
	fputs("object,c,p,c_location,p_location,c_procedure,p_procedure,all,true,false\n", f);
	for (size_t k = 0; k < db->nobjects; k++)
		for (size_t e = 0; e < db->objects[k].npairs; e++) {
			fprintf(f, "%llu,", (unsigned long long)db->objects[k].i);
			pair_row(f, db, &db->objects[k].pairs[e]);
		}
	return 0;
}

