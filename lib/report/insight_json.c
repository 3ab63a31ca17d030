/* SPDX-License-Identifier: BSD-3-Clause */
/* insight_json.c — the scale and the advice (insight.h) in the report model
   (doc/report.schema.json: "scale", "advice", "empty_reason"), for
   --json and the HTML report. No signal context. */
#include <string.h>

#include "report/insight.h"
#include "report/json.h"
#include "report/report.h"

static void share(struct hc_json *j, const char *k, double v)
{
	hc_json_key(j, k);
	if (v < 0)
		hc_json_null(j);
	else
		hc_json_f64(j, v);
}

static void strings(struct hc_json *j, const char *k, char **v, size_t n)
{
	hc_json_key(j, k);
	hc_json_arr(j);
	for (size_t i = 0; i < n; i++)
		hc_json_str(j, v[i]);
	hc_json_arr_end(j);
}

/* One false-sharing finding (struct hc_advice_fs). */
static void fs_members(struct hc_json *j, const void *elem, const void *arg)
{
	const struct hc_advice_fs *f = elem;

	(void)arg;
	hc_json_ku64(j, "object", f->o->i);
	hc_json_kstr(j, "name", f->o->name);
	hc_json_kstr(j, "kind", f->o->kind);
	hc_json_kstr(j, "type", f->type ? f->type : "");
	hc_json_key(j, "element_size");
	if (f->elem)
		hc_json_u64(j, f->elem);
	else
		hc_json_null(j);
	hc_json_kstr(j, "element_size_from", f->elem_from ? f->elem_from : "");
	hc_json_ku64(j, "false", f->o->fal);
	share(j, "share", f->share);
	hc_json_kstr(j, "pattern", f->pattern);
	hc_json_key(j, "layout");
	hc_json_arr(j);
	for (size_t i = 0; i < f->nfields; i++)
		hc_report_json_field(j, f->fields[i].f, false);
	hc_json_arr_end(j);
	strings(j, "fixes", f->fixes, f->nfixes);
	hc_json_key(j, "bound");
	hc_json_obj(j);
	share(j, "saves_at_most", f->nassume ? f->save_bound : -1);
	hc_json_key(j, "speedup_at_most");
	if (f->speedup_bound > 0)
		hc_json_f64(j, f->speedup_bound);
	else
		hc_json_null(j);
	strings(j, "assumptions", f->assume, f->nassume);
	hc_json_obj_end(j);
}

/* One true-sharing pair (struct hc_advice_ts). */
static void ts_members(struct hc_json *j, const void *elem, const void *arg)
{
	const struct hc_advice_ts *t = elem;

	(void)arg;
	hc_json_kstr(j, "a", t->a);
	hc_json_kstr(j, "b", t->b);
	hc_json_ku64(j, "true", t->tru);
	hc_json_ku64(j, "all", t->all);
	share(j, "share", t->share);
	hc_json_kstr(j, "kind", t->kind);
	hc_json_kstr(j, "meaning", t->detail);
}

void hc_report_json_insight(const struct hc_db *db, struct hc_json *j)
{
	struct hc_advice a;
	bool ok = hc_advice_build(db, HC_REPORT_ADVICE_FS, HC_REPORT_ADVICE_TS, &a) == 0;
	const struct hc_report_scale *sc = &a.scale;

	hc_json_key(j, "scale");
	hc_json_obj(j);
	hc_json_key(j, "basis");
	if (sc->known)
		hc_json_str(j, sc->time ? "cpu_time" : "memory_accesses");
	else
		hc_json_null(j);
	hc_json_key(j, "denominator");
	if (sc->known)
		hc_json_u64(j, sc->denom);
	else
		hc_json_null(j);
	hc_json_ku64(j, "samples", sc->samples);
	hc_json_kstr(j, "how", sc->known ? sc->basis : sc->why);
	share(j, "all", hc_report_share(sc, db->t_all));
	share(j, "true", hc_report_share(sc, db->t_true));
	share(j, "false", hc_report_share(sc, db->t_false));
	hc_json_key(j, "negligible_below");
	hc_json_f64(j, HC_REPORT_NEGLIGIBLE_PCT);
	hc_json_key(j, "over_100");
	if (hc_report_share(sc, db->t_all) > 100)
		hc_json_str(j, HC_REPORT_OVER_100);
	else
		hc_json_null(j);
	hc_json_obj_end(j);

	hc_json_key(j, "empty_reason");
	if (ok && a.empty[0])
		hc_json_str(j, a.empty);
	else
		hc_json_null(j);

	hc_json_key(j, "advice");
	hc_json_obj(j);
	hc_json_objects(j, "false_sharing", ok ? a.fs : NULL, ok ? a.nfs : 0, sizeof(*a.fs), fs_members, NULL);
	hc_json_objects(j, "true_sharing", ok ? a.ts : NULL, ok ? a.nts : 0, sizeof(*a.ts), ts_members, NULL);
	hc_json_obj_end(j);
	if (ok)
		hc_advice_free(&a);
}
