/* SPDX-License-Identifier: BSD-3-Clause */
/* views.c — phases and NUMA locality in the text summary and the JSON
   report model (doc/viewer-export.md "Phases", "NUMA locality"). The text is
   brief: one line per phase (time, share of the volume, top pair and top
   object) and the objects with the highest remote share; the JSON carries
   everything the HTML report draws (timeline, per-phase matrices, locality
   table). No signal context. */
#include <stdlib.h>
#include <string.h>

#include "db/views.h"
#include "report/report.h"
#include "report/views.h"

#define TEXT_PHASES 12
#define TEXT_NUMA   5

static void line(FILE *f, int width, const char *s)
{
	int n = 0;
	const unsigned char *p = (const unsigned char *)s;

	/* Cut at width characters (UTF-8 continuation bytes do not count). */
	for (; *p; p++) {
		if ((*p & 0xc0) != 0x80 && ++n > width)
			break;
		fputc(*p, f);
	}
	fputc('\n', f);
}

static const char *thread_label(const struct hc_db *db, uint64_t t, char *buf, size_t sz)
{
	return hc_db_index_label(db, HC_DB_LEVEL_THREAD, (uint32_t)t, buf, sz);
}

void hc_report_text_views(const struct hc_db *db, FILE *f, int width)
{
	const struct hc_db_views *v = db->views;
	char buf[1024], a[128], b[128], val[64], pct[32];

	if (!v)
		return;
	if (v->has_phases) {
		uint64_t tot = 0;
		for (size_t k = 0; k < v->nphases; k++)
			tot += v->phases[k].all;
		fputc('\n', f);
		snprintf(buf, sizeof(buf), "Phases (%zu; %zu windows of %.3g %s, alike windows merged)",
		         v->nphases, v->nwindows,
		         v->window >= 1000000000u ? (double)v->window / 1e9 : (double)v->window / 1e6,
		         v->window >= 1000000000u ? "s" : "ms");
		line(f, width, buf);
		for (size_t k = 0; k < v->nphases && k < TEXT_PHASES; k++) {
			const struct hc_db_phase *p = &v->phases[k];
			char pair[300] = "-";
			if (p->pair_i >= 0)
				snprintf(pair, sizeof(pair), "%s <-> %s",
				         thread_label(db, (uint64_t)p->pair_i, a, sizeof(a)),
				         thread_label(db, (uint64_t)p->pair_j, b, sizeof(b)));
			char when[64];
			snprintf(when, sizeof(when), "%.3f-%.3f s", (double)p->start / 1e9,
			         (double)p->end / 1e9);
			snprintf(buf, sizeof(buf), "  %2zu  %-19s %10s %6s  %s  [%s]", k + 1, when,
			         hc_report_value(val, sizeof(val), p->all, db->unit),
			         hc_report_pct(pct, sizeof(pct), p->all, tot), pair,
			         p->object >= 0 ? p->object_name : "-");
			line(f, width, buf);
		}
		if (v->nphases > TEXT_PHASES) {
			snprintf(buf, sizeof(buf), "  ... %zu more phases", v->nphases - TEXT_PHASES);
			line(f, width, buf);
		}
	}
	if (v->has_locality) {
		fputc('\n', f);
		if (v->single) {
			line(f, width, "NUMA locality: single NUMA domain (every access is local)");
		} else if (!v->pages) {
			snprintf(buf, sizeof(buf), "NUMA locality: %llu NUMA domains, no page placement "
			         "recorded", (unsigned long long)v->ndomains);
			line(f, width, buf);
		} else {
			uint64_t loc = v->local + v->remote;
			size_t shown = 0;
			snprintf(buf, sizeof(buf), "NUMA locality (%llu domains): %s of located accesses "
			         "remote; flagged objects (>= %.0f%% remote):", (unsigned long long)v->ndomains,
			         hc_report_pct(pct, sizeof(pct), v->remote, loc), 100 * v->flag);
			line(f, width, buf);
			for (size_t k = 0; k < v->nnuma && shown < TEXT_NUMA; k++) {
				const struct hc_db_numa_object *o = &v->numa[k];
				char first[160] = "";
				if (!o->flagged)
					continue;
				if (o->first_thread >= 0)
					snprintf(first, sizeof(first), ", first touch: %s",
					         thread_label(db, (uint64_t)o->first_thread, a, sizeof(a)));
				snprintf(buf, sizeof(buf), "  %5.1f%% remote  %s%s", 100 * o->remote_share,
				         o->name, first);
				line(f, width, buf);
				shown++;
			}
			if (!shown)
				line(f, width, "  (none)");
		}
	}
}

static void vol(struct hc_json *j, uint64_t all, uint64_t t, uint64_t f)
{
	hc_json_ku64(j, "all", all);
	hc_json_ku64(j, "true", t);
	hc_json_ku64(j, "false", f);
}

static void json_phases(struct hc_json *j, const struct hc_db_views *v)
{
	hc_json_key(j, "phases");
	if (!v || !v->has_phases) {
		hc_json_null(j);
		return;
	}
	hc_json_obj(j);
	hc_json_ku64(j, "window_ns", v->window);
	hc_json_ku64(j, "span_ns", v->span);
	hc_json_key(j, "similarity");
	hc_json_f64(j, v->similarity);
	hc_json_kstr(j, "rule", v->rule);
	hc_json_key(j, "list");
	hc_json_arr(j);
	for (size_t k = 0; k < v->nphases; k++) {
		const struct hc_db_phase *p = &v->phases[k];
		hc_json_obj(j);
		hc_json_ku64(j, "i", p->i);
		hc_json_ku64(j, "start_ns", p->start);
		hc_json_ku64(j, "end_ns", p->end);
		hc_json_ku64(j, "first", p->first);
		hc_json_ku64(j, "last", p->last);
		vol(j, p->all, p->tru, p->fal);
		hc_json_key(j, "top_pair");
		if (p->pair_i >= 0) {
			hc_json_arr(j);
			hc_json_u64(j, (uint64_t)p->pair_i);
			hc_json_u64(j, (uint64_t)p->pair_j);
			hc_json_u64(j, p->pair_all);
			hc_json_arr_end(j);
		} else {
			hc_json_null(j);
		}
		hc_json_ki64(j, "top_object", p->object);
		hc_json_kstr(j, "top_object_name", p->object_name);
		hc_json_ku64(j, "top_object_all", p->object_all);
		hc_json_key(j, "cells");
		hc_json_arr(j);
		for (size_t c = 0; c < p->ncells; c++) {
			hc_json_arr(j);
			hc_json_u64(j, p->cells[c].i);
			hc_json_u64(j, p->cells[c].j);
			hc_json_u64(j, p->cells[c].all);
			hc_json_u64(j, p->cells[c].tru);
			hc_json_u64(j, p->cells[c].fal);
			hc_json_arr_end(j);
		}
		hc_json_arr_end(j);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_key(j, "lines");
	hc_json_arr(j);
	for (size_t k = 0; k < v->nlines; k++) {
		hc_json_obj(j);
		hc_json_kstr(j, "kind", v->lines[k].object ? "object" : "pair");
		hc_json_ku64(j, "i", v->lines[k].i);
		if (!v->lines[k].object)
			hc_json_ku64(j, "j", v->lines[k].j);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_key(j, "windows");
	hc_json_arr(j);
	for (size_t k = 0; k < v->nwindows; k++) {
		const struct hc_db_window *w = &v->windows[k];
		hc_json_obj(j);
		hc_json_ku64(j, "start_ns", w->start);
		hc_json_ku64(j, "end_ns", w->end);
		hc_json_ku64(j, "phase", w->phase);
		vol(j, w->all, w->tru, w->fal);
		hc_json_key(j, "lines");
		hc_json_arr(j);
		for (size_t l = 0; l < v->nlines; l++)
			hc_json_u64(j, w->lines[l]);
		hc_json_arr_end(j);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_obj_end(j);
}

static void json_locality(struct hc_json *j, const struct hc_db_views *v)
{
	hc_json_key(j, "locality");
	if (!v || !v->has_locality) {
		hc_json_null(j);
		return;
	}
	hc_json_obj(j);
	hc_json_ku64(j, "domains", v->ndomains);
	hc_json_key(j, "single");
	hc_json_bool(j, v->single);
	hc_json_key(j, "pages");
	hc_json_bool(j, v->pages);
	hc_json_key(j, "flag");
	hc_json_f64(j, v->flag);
	hc_json_ku64(j, "local", v->local);
	hc_json_ku64(j, "remote", v->remote);
	hc_json_ku64(j, "unlocated", v->unlocated);
	hc_json_key(j, "objects");
	hc_json_arr(j);
	for (size_t k = 0; k < v->nnuma; k++) {
		const struct hc_db_numa_object *o = &v->numa[k];
		hc_json_obj(j);
		hc_json_ku64(j, "i", o->i);
		hc_json_kstr(j, "name", o->name);
		hc_json_ku64(j, "local", o->local);
		hc_json_ku64(j, "remote", o->remote);
		hc_json_ku64(j, "unlocated", o->unlocated);
		hc_json_key(j, "remote_share");
		hc_json_f64(j, o->remote_share);
		hc_json_key(j, "flagged");
		hc_json_bool(j, o->flagged);
		hc_json_ki64(j, "first_thread", o->first_thread);
		hc_json_key(j, "page_nodes");
		hc_json_arr(j);
		for (uint64_t d = 0; d < v->ndomains; d++)
			hc_json_u64(j, o->page[d]);
		hc_json_arr_end(j);
		hc_json_key(j, "thread_nodes");
		hc_json_arr(j);
		for (uint64_t d = 0; d < v->ndomains; d++)
			hc_json_u64(j, o->thread[d]);
		hc_json_arr_end(j);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
	hc_json_obj_end(j);
}

void hc_report_json_views(struct hc_json *j, const struct hc_db *db)
{
	json_phases(j, db->views);
	json_locality(j, db->views);
}
