/* SPDX-License-Identifier: BSD-3-Clause */
/* text.c — the text summary (summary.txt, hpcprof-comm's terminal output and
   viewer-export --text), in the spirit of `perf c2c report --stdio`: header, totals with the true/false and
   sample/trap splits, top pairs of the chosen level, the matrix itself when it
   fits, top data objects, top code pairs (file:line ↔ file:line) and top
   functions. Every line fits the width (--width, else the terminal's, else
   100): a table first shrinks its text column (cutting the middle of long
   names, where paths are least informative), then drops its least important
   columns, and as a last resort each line is cut at the width. Widths count
   UTF-8 characters, not bytes. No signal context. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/insight.h"
#include "report/placement.h"
#include "report/report.h"
#include "report/views.h"

#define TOP HC_REPORT_TOP
/* Fields named in a top-objects row; the layout under Advice and objects.xml have them all. */
#define TOP_FIELDS 8
#define TMAXC 8

/* ---- display width and fitting ---- */

static int dwidth(const char *s)
{
	int w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

/* Byte offset of the first character after `chars` characters. */
static size_t char_off(const char *s, int chars)
{
	size_t i = 0;

	while (s[i] && chars > 0) {
		i++;
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		chars--;
	}
	return i;
}

/* s cut to w characters: the middle replaced by "…" (keeping more of the
   end, where file names and line numbers are). */
static void fit_one(const char *s, int w, char *buf, size_t sz)
{
	int n = dwidth(s);

	if (n <= w) {
		snprintf(buf, sz, "%s", s);
		return;
	}
	if (w <= 1) {
		snprintf(buf, sz, "%.*s", (int)char_off(s, w), s);
		return;
	}
	{
		int head = (w - 1) / 3, tail = w - 1 - head;
		size_t hb = char_off(s, head), tb = char_off(s, n - tail);
		snprintf(buf, sz, "%.*s…%s", (int)hb, s, s + tb);
	}
}

/* A pair "a ↔ b" is cut on both sides, so that the arrow survives. */
static void fit(const char *s, int w, char *buf, size_t sz)
{
	const char *arrow = strstr(s, " ↔ ");
	char a[1024], b[1024], fa[1024], fb[1024];
	int wa, wb;

	if (!arrow || dwidth(s) <= w || w < 9) {
		fit_one(s, w, buf, sz);
		return;
	}
	snprintf(a, sizeof(a), "%.*s", (int)(arrow - s), s);
	snprintf(b, sizeof(b), "%s", arrow + strlen(" ↔ "));
	wa = (w - 3) / 2;
	wb = w - 3 - wa;
	if (dwidth(a) < wa) {
		wb += wa - dwidth(a);
		wa = dwidth(a);
	} else if (dwidth(b) < wb) {
		wa += wb - dwidth(b);
		wb = dwidth(b);
	}
	fit_one(a, wa, fa, sizeof(fa));
	fit_one(b, wb, fb, sizeof(fb));
	snprintf(buf, sz, "%s ↔ %s", fa, fb);
}

/* Print one line cut at `width` characters. */
static void put_line(FILE *f, int width, const char *fmt, ...) HC_PRINTF(3, 4);
static void put_line(FILE *f, int width, const char *fmt, ...)
{
	char *line = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	line[char_off(line, width)] = 0;
	fprintf(f, "%s\n", line);
	free(line);
}

/* ---- tables ---- */

struct tcol {
	const char *head;
	bool right;      /* numbers: right-aligned */
	bool flex;       /* text: shrinks before anything is dropped */
	int prio;        /* dropped lowest first; 0 = never */
	int minw;        /* a flex column shrinks down to this */
};

struct table {
	int ncol;
	int indent;      /* extra spaces before each row (beyond the usual two) */
	struct tcol col[TMAXC];
	char **cells;    /* nrows × ncol */
	size_t nrows, cap;
};

static int t_row(struct table *t, ...)
{
	size_t need = (t->nrows + 1) * (size_t)t->ncol;
	va_list ap;

	if (need > t->cap) {
		size_t nc = t->cap ? t->cap * 2 : (size_t)t->ncol * 16;
		char **p;
		while (nc < need)
			nc *= 2;
		p = realloc(t->cells, nc * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->cells = p;
		t->cap = nc;
	}
	va_start(ap, t);
	for (int c = 0; c < t->ncol; c++) {
		const char *s = va_arg(ap, const char *);
		t->cells[t->nrows * (size_t)t->ncol + (size_t)c] = strdup(s ? s : "");
	}
	va_end(ap);
	t->nrows++;
	return 0;
}

static const char *t_cell(const struct table *t, size_t r, int c)
{
	const char *s = t->cells[r * (size_t)t->ncol + (size_t)c];
	return s ? s : "";
}

static void t_free(struct table *t)
{
	for (size_t k = 0; k < t->nrows * (size_t)t->ncol; k++)
		free(t->cells[k]);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->cap = 0;
}

static void t_print(struct table *t, FILE *f, int width)
{
	int w[TMAXC];
	bool vis[TMAXC];
	size_t lsz = 64, csz = 64;
	char *line, *cell;

	/* sized for the longest row: nothing is cut for want of room */
	for (size_t r = 0; r <= t->nrows; r++) {
		size_t rl = 0;
		for (int c = 0; c < t->ncol; c++) {
			size_t l = strlen(r < t->nrows ? t_cell(t, r, c) : t->col[c].head) + 8;
			rl += l + 2;
			if (l > csz)
				csz = l;
		}
		if (rl > lsz)
			lsz = rl;
	}
	lsz += (size_t)t->ncol * 16 + 64;
	line = malloc(lsz + 1);
	cell = malloc(csz + 1);
	if (!line || !cell) {
		free(line);
		free(cell);
		return;
	}

	for (int c = 0; c < t->ncol; c++) {
		w[c] = dwidth(t->col[c].head);
		vis[c] = true;
		for (size_t r = 0; r < t->nrows; r++) {
			int d = dwidth(t_cell(t, r, c));
			if (d > w[c])
				w[c] = d;
		}
	}
	/* shrink text to its comfortable width, then drop columns, then shrink
	   text to the bare minimum; put_line cuts whatever is still too long */
	for (int phase = 0; phase < 3; phase++) {
		for (;;) {
			int total = 2 + t->indent, nv = 0, drop = -1, excess;
			for (int c = 0; c < t->ncol; c++)
				if (vis[c]) {
					total += w[c] + (nv ? 2 : 0);
					nv++;
				}
			excess = total - width;
			if (excess <= 0)
				break;
			if (phase != 1) {
				for (int c = 0; c < t->ncol && excess > 0; c++) {
					int floor = phase == 0 ? t->col[c].minw : 4;
					if (vis[c] && t->col[c].flex && w[c] > floor) {
						int cut = w[c] - floor;
						if (cut > excess)
							cut = excess;
						w[c] -= cut;
						excess -= cut;
					}
				}
				break;
			}
			for (int c = 0; c < t->ncol; c++)
				if (vis[c] && t->col[c].prio > 0 &&
				    (drop < 0 || t->col[c].prio < t->col[drop].prio))
					drop = c;
			if (drop < 0)
				break;
			vis[drop] = false;
		}
	}
	for (long r = -1; r < (long)t->nrows; r++) {
		size_t len = 0;
		bool first = true;
		len += (size_t)snprintf(line + len, lsz - len, "%*s", 2 + t->indent, "");
		for (int c = 0; c < t->ncol; c++) {
			const char *s = r < 0 ? t->col[c].head : t_cell(t, (size_t)r, c);
			int pad;
			if (!vis[c])
				continue;
			fit(s, w[c], cell, csz);
			pad = w[c] - dwidth(cell);
			if (len < lsz)
				len += (size_t)snprintf(line + len, lsz - len, "%s%*s%s%*s",
				                        first ? "" : "  ", t->col[c].right ? pad : 0, "",
				                        cell, t->col[c].right ? 0 : pad, "");
			first = false;
		}
		while (len > 0 && len < lsz && line[len - 1] == ' ')
			line[--len] = 0;
		put_line(f, width, "%s", line);
	}
	free(line);
	free(cell);
}

/* ---- sections ---- */

struct text {
	const struct hc_db *db;
	const char *name;
	FILE *f;
	int width;
	int level, kind;
	struct hc_advice adv;   /* scale, advice, why empty (insight.h) */
};

/* v as a share of the scale ("12.3%", "0.4% negligible"). */
static char *share(const struct text *x, char *buf, size_t sz, uint64_t v)
{
	return hc_report_share_str(buf, sz, &x->adv.scale, v, true);
}

static const char *unit_of(const struct text *x) { return x->db->unit; }

static void section(struct text *x, const char *title)
{
	fputc('\n', x->f);
	put_line(x->f, x->width, "%s", title);
}

static void header(struct text *x)
{
	const struct hc_db *db = x->db;
	char periods[256] = "", v[64], line[1024];
	size_t plen = 0;
	int shown = 0;
	int64_t seen_p[4];

	put_line(x->f, x->width, "hpcrun-comm communication report: %s", db->program);
	put_line(x->f, x->width, "  database  %s (format %llu, %s)", x->name,
	         (unsigned long long)db->version, db->generator);
	if (db->nprocs == 1)
		put_line(x->f, x->width, "  program   %s (pid %llu)", db->procs[0].exe,
		         (unsigned long long)db->procs[0].pid);
	else
		put_line(x->f, x->width, "  program   %s and %zu more process%s", db->procs[0].exe,
		         db->nprocs - 1, db->nprocs == 2 ? "" : "es");
	put_line(x->f, x->width, "  threads   %zu in %zu process%s", db->nthreads, db->nprocs,
	         db->nprocs == 1 ? "" : "es");
	for (size_t t = 0; t < db->nthreads && shown < 4; t++) {
		int64_t p = db->threads[t].period;
		bool seen = false;
		if (p < 0)
			continue;
		/* every distinct earlier period is among those shown (we stop at 4):
		   linear in the threads, not quadratic */
		for (int u = 0; u < shown; u++)
			seen |= seen_p[u] == p;
		if (seen)
			continue;
		seen_p[shown] = p;
		plen += (size_t)snprintf(periods + plen, sizeof(periods) - plen, "%s%lld",
		                         shown ? ", " : "", (long long)p);
		shown++;
	}
	snprintf(line, sizeof(line), "  sampler   %s%s%s%s", db->samplers,
	         shown ? ", period " : "", periods,
	         !shown ? "" : !strcmp(db->unit, HC_DB_UNIT_NS) ? " ns of CPU time" : " events");
	put_line(x->f, x->width, "%s", line);
	put_line(x->f, x->width, "  unit      %s (%s)", db->unit, db->unit_text);
	put_line(x->f, x->width, "  profiles  %llu read of %llu found, %llu skipped",
	         (unsigned long long)db->read, (unsigned long long)db->found,
	         (unsigned long long)db->skipped);
	put_line(x->f, x->width, "  events    %llu, weight %s", (unsigned long long)db->events,
	         hc_report_value(v, sizeof(v), db->event_weight, unit_of(x)));
}

/* A counter of database.xml (summed over the profiles read), 0 if absent. */
static uint64_t counter(const struct hc_db *db, const char *name)
{
	for (size_t k = 0; k < db->ncounters; k++)
		if (!strcmp(db->counters[k].name, name))
			return db->counters[k].v;
	return 0;
}

static double pct_of(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Below the totals: what the numbers cannot say by themselves. Event
   records the runtime did not keep; for the PMU samplers (doc/samplers.md)
   the period the kernel used, events that did not run all the time,
   approximate calling contexts, throttling. Per-thread running shares are
   database warnings (the analyzer's). */
static void totals_notes(struct text *x)
{
	const struct hc_db *db = x->db;
	uint64_t n = counter(db, "pmu_period_records"), en = counter(db, "pmu_time_enabled");
	uint64_t run = counter(db, "pmu_time_running"), thr = counter(db, "pmu_throttled");
	uint64_t leaf = counter(db, "pmu_ctx_leaf_only");
	uint64_t acc = counter(db, "samples_with_access_at_pc");
	char a[64], b[64];

	if (db->event_weight != db->t_all) {
		put_line(x->f, x->width, "  note: the event records (matrices, code pairs) add up to %s, "
		         "the calling-context", hc_report_value(a, sizeof(a), db->event_weight, unit_of(x)));
		put_line(x->f, x->width, "        metrics to %s: the runtime did not keep every event "
		         "(counters in database.xml).", hc_report_value(b, sizeof(b), db->t_all, unit_of(x)));
	}
	if (n)
		put_line(x->f, x->width, "  PMU period in effect: mean %llu events (%llu records)",
		         (unsigned long long)(counter(db, "pmu_period_sum") / n), (unsigned long long)n);
	if (en && run < en - en / 20) {
		put_line(x->f, x->width, "  warning: the PMU events ran %.1f%% of the time they were "
		         "enabled: stretches went unsampled", pct_of(run, en));
		put_line(x->f, x->width, "        (other perf users, counter constraints, E-cores; see "
		         "the process logs).");
	}
	if (leaf && counter(db, "pmu_records")) {
		uint64_t all = acc > leaf ? acc : leaf;
		put_line(x->f, x->width, "  note: %llu of %llu PMU samples (%.1f%%) have approximate "
		         "calling contexts: callers unknown", (unsigned long long)leaf,
		         (unsigned long long)all, pct_of(leaf, all));
		put_line(x->f, x->width, "        (batched record, skid past a return, drained at thread "
		         "end), attached as the instruction");
		put_line(x->f, x->width, "        alone under the thread's root; their code locations "
		         "and matrices are exact.");
	}
	if (thr) {
		put_line(x->f, x->width, "  warning: the kernel throttled the PMU sampler %llu times "
		         "(perf_event_max_sample_rate):", (unsigned long long)thr);
		put_line(x->f, x->width, "        samples are missing; measure with a larger COMM@P.");
	}
}

static void totals(struct text *x)
{
	const struct hc_db *db = x->db;
	struct table t = { .ncol = 4, .col = {
		{ "communication", false, true, 0, 18 },
		{ "volume", true, false, 0, 0 },
		{ "share", true, false, 1, 0 },
		{ x->adv.scale.time ? "of CPU time" : "of accesses", true, false, 2, 0 } } };
	const char *names[5] = { "all", "true sharing", "false sharing",
	                         "detected by sample", "detected by trap" };
	uint64_t vals[5] = { db->t_all, db->t_true, db->t_false, db->t_sample, db->t_trap };

	section(x, "Totals");
	for (int k = 0; k < 5; k++) {
		char v[64], p[32], q[48];
		t_row(&t, names[k], hc_report_value(v, sizeof(v), vals[k], unit_of(x)),
		      hc_report_pct(p, sizeof(p), vals[k], db->t_all), share(x, q, sizeof(q), vals[k]));
	}
	t_print(&t, x->f, x->width);
	t_free(&t);
	totals_notes(x);
}

/* MPI ranks (database.xml <Ranks>): each rank's communication among its
   own threads and with other ranks' threads, then the cross-rank pairs. */
static void ranks(struct text *x)
{
	const struct hc_db *db = x->db;
	struct table t = { .ncol = 7, .col = {
		{ "rank", true, false, 0, 0 },
		{ "host", false, true, 3, 8 },
		{ "threads", true, false, 4, 0 },
		{ "within rank", true, false, 0, 0 },
		{ "with other ranks", true, false, 0, 0 },
		{ "false%", true, false, 2, 0 },
		{ "of all", true, false, 1, 0 } } };

	if (db->nrankrows < 2)
		return;
	section(x, "Ranks (MPI): communication among a rank's threads, and with other ranks' threads");
	for (size_t k = 0; k < db->nrankrows; k++) {
		const struct hc_db_rank *r = &db->rankrows[k];
		uint64_t w = r->within[0] + r->within[1], a = r->across[0] + r->across[1];
		char rk[24], th[24], vw[64], va[64], pf[32], ps[32];
		snprintf(rk, sizeof(rk), "%llu", (unsigned long long)r->rank);
		snprintf(th, sizeof(th), "%llu", (unsigned long long)r->threads);
		t_row(&t, rk, r->host, th, hc_report_value(vw, sizeof(vw), w, unit_of(x)),
		      hc_report_value(va, sizeof(va), a, unit_of(x)),
		      hc_report_pct(pf, sizeof(pf), r->within[1] + r->across[1], w + a),
		      hc_report_pct(ps, sizeof(ps), w + a, db->t_all));
	}
	t_print(&t, x->f, x->width);
	t_free(&t);
	if (!db->nrankpairs)
		put_line(x->f, x->width, "  no communication between threads of different ranks was "
		         "detected (detection sees one process at a time: doc/mpi.md)");
	for (size_t k = 0; k < db->nrankpairs && k < TOP; k++) {
		const struct hc_db_rankpair *p = &db->rankpairs[k];
		char v[64];
		put_line(x->f, x->width, "  rank %llu ↔ rank %llu  %s",
		         (unsigned long long)p->a, (unsigned long long)p->b,
		         hc_report_value(v, sizeof(v), p->v[0] + p->v[1], unit_of(x)));
	}
}

struct cellref { uint32_t i, j; uint64_t key; };

static int cmp_cell(const void *a, const void *b)
{
	const struct cellref *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if (x->i != y->i)
		return x->i < y->i ? -1 : 1;
	return x->j < y->j ? -1 : x->j > y->j;
}

static void top_pairs(struct text *x)
{
	const struct hc_db *db = x->db;
	const struct hc_db_matrix *a = &db->mat[x->level][HC_DB_KIND_ALL];
	const struct hc_db_matrix *tr = &db->mat[x->level][HC_DB_KIND_TRUE];
	const struct hc_db_matrix *fa = &db->mat[x->level][HC_DB_KIND_FALSE];
	const struct hc_db_matrix *key = &db->mat[x->level][x->kind];
	struct table t = { .ncol = 8, .col = {
		{ "#", true, false, 2, 0 },
		{ "pair", false, false, 0, 0 },
		{ "all", true, false, 0, 0 },
		{ x->adv.scale.time ? "of CPU" : "of acc.", true, false, 6, 0 },
		{ "true", true, false, 4, 0 },
		{ "false", true, false, 5, 0 },
		{ "false%", true, false, 3, 0 },
		{ "names", false, true, 1, 16 } } };
	struct cellref *cells;
	size_t n = 0;
	char title[128];

	snprintf(title, sizeof(title), "Top %s pairs (by %s)", hc_db_level_name(x->level),
	         hc_db_kind_name(x->kind));
	section(x, title);
	cells = calloc(key->ncells + 1, sizeof(*cells));
	if (!cells)
		return;
	for (size_t c = 0; c < key->ncells; c++)
		cells[n++] = (struct cellref){ key->cells[c].i, key->cells[c].j, key->cells[c].v };
	qsort(cells, n, sizeof(*cells), cmp_cell);
	if (!n)
		put_line(x->f, x->width, "  (no %s communication at this level)",
		         hc_db_kind_name(x->kind));
	for (size_t k = 0; k < n && k < TOP; k++) {
		char r[16], pair[64], names[600], li[256], lj[256], va[64], vt[64], vf[64], p[32], q[48];
		uint32_t i = cells[k].i, j = cells[k].j;
		const char *ni, *nj;
		snprintf(r, sizeof(r), "%zu", k + 1);
		snprintf(pair, sizeof(pair), "%u ↔ %u", i, j);
		/* labels are "<index> <name>": the names column shows the names */
		ni = hc_db_index_label(db, x->level, i, li, sizeof(li));
		nj = hc_db_index_label(db, x->level, j, lj, sizeof(lj));
		if (x->level == HC_DB_LEVEL_THREAD && db->nranks > 1)   /* "rank.thread" */
			snprintf(pair, sizeof(pair), "%.*s ↔ %.*s", (int)strcspn(ni, " "), ni,
			         (int)strcspn(nj, " "), nj);
		if (x->level == HC_DB_LEVEL_THREAD) {
			ni = strchr(ni, ' ') ? strchr(ni, ' ') + 1 : "";
			nj = strchr(nj, ' ') ? strchr(nj, ' ') + 1 : "";
		}
		snprintf(names, sizeof(names), "%s ↔ %s", ni[0] ? ni : "-", nj[0] ? nj : "-");
		t_row(&t, r, pair, hc_report_value(va, sizeof(va), hc_db_matrix_at(a, i, j), unit_of(x)),
		      share(x, q, sizeof(q), hc_db_matrix_at(a, i, j)),
		      hc_report_value(vt, sizeof(vt), hc_db_matrix_at(tr, i, j), unit_of(x)),
		      hc_report_value(vf, sizeof(vf), hc_db_matrix_at(fa, i, j), unit_of(x)),
		      hc_report_pct(p, sizeof(p), hc_db_matrix_at(fa, i, j), hc_db_matrix_at(a, i, j)), names);
	}
	if (n)
		t_print(&t, x->f, x->width);
	t_free(&t);
	free(cells);
}

/* A large level (100,000 threads) instead of a grid: the indexes taking part
   in the most communication, said as such. */
static void top_indexes(struct text *x)
{
	const struct hc_db *db = x->db;
	const struct hc_db_matrix *m = &db->mat[x->level][x->kind];
	const struct hc_db_matrix *a = &db->mat[x->level][HC_DB_KIND_ALL];
	const struct hc_db_matrix *tr = &db->mat[x->level][HC_DB_KIND_TRUE];
	const struct hc_db_matrix *fa = &db->mat[x->level][HC_DB_KIND_FALSE];
	struct table t = { .ncol = 6, .col = {
		{ "#", true, false, 2, 0 },
		{ "index", true, false, 1, 0 },
		{ "all", true, false, 0, 0 },
		{ "true", true, false, 4, 0 },
		{ "false", true, false, 5, 0 },
		{ "name", false, true, 3, 16 } } };
	uint64_t *vol = NULL, *va = NULL, *vt = NULL, *vf = NULL, in = 0;
	uint32_t *idx = NULL, k, shown = 0;
	char title[160], v[64];

	snprintf(title, sizeof(title), "Top %s indexes (by %s; %u×%u is too large for a grid)",
	         hc_db_level_name(x->level), hc_db_kind_name(x->kind), m->n, m->n);
	section(x, title);
	k = hc_report_top_indexes(m, TOP, &idx, &vol);
	va = malloc((size_t)m->n * sizeof(*va));
	vt = malloc((size_t)m->n * sizeof(*vt));
	vf = malloc((size_t)m->n * sizeof(*vf));
	if (!idx || !va || !vt || !vf) {
		put_line(x->f, x->width, "  (out of memory)");
		goto out;
	}
	hc_db_matrix_volumes(a, va);
	hc_db_matrix_volumes(tr, vt);
	hc_db_matrix_volumes(fa, vf);
	for (uint32_t r = 0; r < k && vol[idx[r]]; r++) {
		char rank[16], ix[16], s0[64], s1[64], s2[64], li[256];
		const char *name = hc_db_index_label(db, x->level, idx[r], li, sizeof(li));
		if (strchr(name, ' '))
			name = strchr(name, ' ') + 1;
		snprintf(rank, sizeof(rank), "%u", r + 1);
		snprintf(ix, sizeof(ix), "%u", idx[r]);
		t_row(&t, rank, ix, hc_report_value(s0, sizeof(s0), va[idx[r]], unit_of(x)),
		      hc_report_value(s1, sizeof(s1), vt[idx[r]], unit_of(x)),
		      hc_report_value(s2, sizeof(s2), vf[idx[r]], unit_of(x)), name[0] ? name : "-");
		shown++;
	}
	if (!shown) {
		put_line(x->f, x->width, "  (no %s communication at this level)",
		         hc_db_kind_name(x->kind));
		goto out;
	}
	t_print(&t, x->f, x->width);
	in = hc_report_covered(m, idx, shown);
	put_line(x->f, x->width, "  (only the %u of %u %s indexes with the most %s communication;",
	         shown, m->n, hc_db_level_name(x->level), hc_db_kind_name(x->kind));
	put_line(x->f, x->width, "   %s (%s of the total) is between two of them; totals are complete)",
	         hc_report_value(v, sizeof(v), in, unit_of(x)), hc_report_pct(title, sizeof(title), in, m->total));
out:
	t_free(&t);
	free(idx);
	free(vol);
	free(va);
	free(vt);
	free(vf);
}

/* The chosen matrix as a grid, in one scaled unit, when it fits. */
/* A grid's row/column heading: the index, or "rank.thread" with MPI ranks. */
static const char *grid_label(const struct hc_db *db, int level, uint32_t i, char *buf, size_t sz)
{
	if (level == HC_DB_LEVEL_THREAD && db->nranks > 1) {
		hc_db_index_label(db, level, i, buf, sz);
		buf[strcspn(buf, " ")] = '\0';
	} else {
		snprintf(buf, sz, "%u", i);
	}
	return buf;
}

static void grid(struct text *x)
{
	const struct hc_db *db = x->db;
	const struct hc_db_matrix *m = &db->mat[x->level][x->kind];
	static const char *const ns_names[] = { "ns", "us", "ms", "s" };
	static const char *const tr_names[] = { "transfers", "thousand transfers",
	                                        "million transfers", "billion transfers" };
	bool ns = !strcmp(db->unit, HC_DB_UNIT_NS);
	uint64_t max = 0;
	double div = 1;
	int step = 0, cw = 1, lw = 1;
	char title[160], line[8192], cell[64];

	if (m->n > HC_REPORT_LARGE_N) {
		top_indexes(x);
		return;
	}
	for (size_t c = 0; c < m->ncells; c++)
		if (m->cells[c].v > max)
			max = m->cells[c].v;
	while ((double)max / div >= 9999.5 && step < 3) {
		div *= 1000;
		step++;
	}
	/* the zeros (at least the diagonal) and every cell */
	cw = snprintf(cell, sizeof(cell), step ? "%.1f" : "%.0f", 0.0);
	for (size_t c = 0; c < m->ncells; c++) {
		int w = snprintf(cell, sizeof(cell), step ? "%.1f" : "%.0f", (double)m->cells[c].v / div);
		if (w > cw)
			cw = w;
	}
	for (uint32_t i = 0; i < m->n; i++) {
		int w = (int)strlen(grid_label(db, x->level, i, cell, sizeof(cell)));
		if (w > lw)
			lw = w;
	}
	if (lw > cw)
		cw = lw;
	snprintf(title, sizeof(title), "%s matrix (%s), in %s", hc_db_level_name(x->level),
	         hc_db_kind_name(x->kind), ns ? ns_names[step] : tr_names[step]);
	section(x, title);
	if (x->width >= HC_REPORT_UNLIMITED && m->n > HC_REPORT_GRID_MAX) {
		put_line(x->f, x->width, "  (%u×%u is too many to read as a grid: the thread groups below, "
		         "the full matrix with --csv or --html)", m->n, m->n);
		return;
	}
	if (2 + lw + (size_t)m->n * (size_t)(cw + 1) > (size_t)x->width) {
		put_line(x->f, x->width, "  (%u×%u does not fit in %d columns: see --csv or --html)",
		         m->n, m->n, x->width);
		return;
	}
	{
		size_t len = (size_t)snprintf(line, sizeof(line), "  %*s", lw, "");
		for (uint32_t j = 0; j < m->n && len < sizeof(line); j++)
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %*s", cw,
			                        grid_label(db, x->level, j, cell, sizeof(cell)));
		put_line(x->f, x->width, "%s", line);
	}
	for (uint32_t i = 0; i < m->n; i++) {
		size_t len = (size_t)snprintf(line, sizeof(line), "  %*s", lw,
		                              grid_label(db, x->level, i, cell, sizeof(cell)));
		for (uint32_t j = 0; j < m->n && len < sizeof(line); j++) {
			if (i == j)
				snprintf(cell, sizeof(cell), "-");
			else
				snprintf(cell, sizeof(cell), step ? "%.1f" : "%.0f",
				         (double)hc_db_matrix_at(m, i, j) / div);
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %*s", cw, cell);
		}
		put_line(x->f, x->width, "%s", line);
	}
}

/* Many threads: the groups of insight.h (start routine, generations), their
   volumes and the grouped matrix; the full matrix is in --csv and --html. */
static void thread_groups(struct text *x)
{
	const struct hc_db *db = x->db;
	struct hc_report_groups g;
	struct table t = { .ncol = 5, .col = {
		{ "#", true, false, 3, 0 },
		{ "group", false, true, 0, 16 },
		{ "threads", true, false, 2, 0 },
		{ "all", true, false, 0, 0 },
		{ "inside", true, false, 1, 0 } } };
	char line[8192], cell[64], v[64], in[64];
	uint64_t max = 0;
	double div = 1;
	int step = 0;

	if (x->level != HC_DB_LEVEL_THREAD || db->nthreads <= 8 || hc_report_groups_build(db, &g))
		return;
	if (g.n >= db->nthreads) {
		hc_report_groups_free(&g);
		return;
	}
	section(x, "Thread groups (by start routine; over 64 threads, generations by creation order)");
	for (uint32_t i = 0; i < g.n; i++) {
		uint64_t all = 0;
		char r[16], n[16];
		for (uint32_t j = 0; j < g.n; j++) {
			uint64_t c = g.m[x->kind][(size_t)i * g.n + j];
			all += c;
			if (c > max)
				max = c;
		}
		snprintf(r, sizeof(r), "%u", i);
		snprintf(n, sizeof(n), "%u", g.count[i]);
		t_row(&t, r, g.name[i], n, hc_report_value(v, sizeof(v), all, unit_of(x)),
		      hc_report_value(in, sizeof(in), g.m[x->kind][(size_t)i * g.n + i], unit_of(x)));
	}
	t_print(&t, x->f, x->width);
	t_free(&t);
	if (g.n <= HC_REPORT_GRID_MAX) {
		bool ns = !strcmp(db->unit, HC_DB_UNIT_NS);
		static const char *const nsn[] = { "ns", "us", "ms", "s" };
		static const char *const trn[] = { "transfers", "thousand transfers", "million transfers",
		                                   "billion transfers" };
		int cw = 3;
		size_t len;
		while ((double)max / div >= 9999.5 && step < 3) {
			div *= 1000;
			step++;
		}
		for (uint32_t i = 0; i < g.n * g.n; i++) {
			int w = snprintf(cell, sizeof(cell), step ? "%.1f" : "%.0f", (double)g.m[x->kind][i] / div);
			if (w > cw)
				cw = w;
		}
		put_line(x->f, x->width, "  grouped %s matrix (%s), in %s; the diagonal is inside a group",
		         hc_db_kind_name(x->kind), "rows and columns are the groups above",
		         ns ? nsn[step] : trn[step]);
		len = (size_t)snprintf(line, sizeof(line), "  %4s", "");
		for (uint32_t j = 0; j < g.n && len < sizeof(line); j++)
			len += (size_t)snprintf(line + len, sizeof(line) - len, " %*u", cw, j);
		put_line(x->f, x->width, "%s", line);
		for (uint32_t i = 0; i < g.n; i++) {
			len = (size_t)snprintf(line, sizeof(line), "  %4u", i);
			for (uint32_t j = 0; j < g.n && len < sizeof(line); j++) {
				snprintf(cell, sizeof(cell), step ? "%.1f" : "%.0f",
				         (double)g.m[x->kind][(size_t)i * g.n + j] / div);
				len += (size_t)snprintf(line + len, sizeof(line) - len, " %*s", cw, cell);
			}
			put_line(x->f, x->width, "%s", line);
		}
	}
	hc_report_groups_free(&g);
}

static int cmp_obj_false(const void *a, const void *b)
{
	const struct hc_db_object *x = *(const struct hc_db_object *const *)a;
	const struct hc_db_object *y = *(const struct hc_db_object *const *)b;

	if (x->fal != y->fal)
		return x->fal > y->fal ? -1 : 1;
	if (x->all != y->all)
		return x->all > y->all ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void objects(struct text *x)
{
	const struct hc_db *db = x->db;
	const struct hc_db_object **v;
	struct table t = { .ncol = 8, .col = {
		{ "#", true, false, 2, 0 },
		{ "object", false, true, 0, 20 },
		{ "kind", false, false, 3, 0 },
		{ "false", true, false, 0, 0 },
		{ x->adv.scale.time ? "of CPU" : "of acc.", true, false, 6, 0 },
		{ "true", true, false, 5, 0 },
		{ "all", true, false, 4, 0 },
		{ "fields", false, true, 1, 12 } } };

	section(x, "Top data objects (by false sharing)");
	if (!db->has_objects) {
		put_line(x->f, x->width, "  no object data in this database");
		return;
	}
	if (!db->nobjects) {
		put_line(x->f, x->width, "  (no data object took part in communication)");
		return;
	}
	v = calloc(db->nobjects, sizeof(*v));
	if (!v)
		return;
	for (size_t k = 0; k < db->nobjects; k++)
		v[k] = &db->objects[k];
	qsort(v, db->nobjects, sizeof(*v), cmp_obj_false);
	for (size_t k = 0; k < db->nobjects && k < TOP; k++) {
		char r[16], vf[64], vt[64], va[64], q[48], fields[4096] = "";
		size_t len = 0;
		size_t shown = v[k]->nfields < TOP_FIELDS ? v[k]->nfields : TOP_FIELDS;
		for (size_t f = 0; f < shown && len < sizeof(fields); f++) {
			const struct hc_db_field *fd = &v[k]->fields[f];
			if (fd->name[0])
				len += (size_t)snprintf(fields + len, sizeof(fields) - len, "%s%s",
				                        f ? ", " : "", fd->name);
			else
				len += (size_t)snprintf(fields + len, sizeof(fields) - len, "%s+%llu",
				                        f ? ", " : "", (unsigned long long)fd->offset);
			if (len < sizeof(fields) && fd->access)
				len += (size_t)snprintf(fields + len, sizeof(fields) - len, " (%llu B)",
				                        (unsigned long long)fd->access);
			else if (len < sizeof(fields) && !fd->name[0])
				len += (size_t)snprintf(fields + len, sizeof(fields) - len, " (%llu B)",
				                        (unsigned long long)fd->size);
		}
		if (len < sizeof(fields) && shown < v[k]->nfields)
			snprintf(fields + len, sizeof(fields) - len, ", %zu more (objects.xml)",
			         v[k]->nfields - shown);
		snprintf(r, sizeof(r), "%zu", k + 1);
		t_row(&t, r, v[k]->name, v[k]->kind,
		      hc_report_value(vf, sizeof(vf), v[k]->fal, unit_of(x)),
		      share(x, q, sizeof(q), v[k]->fal),
		      hc_report_value(vt, sizeof(vt), v[k]->tru, unit_of(x)),
		      hc_report_value(va, sizeof(va), v[k]->all, unit_of(x)), fields);
	}
	t_print(&t, x->f, x->width);
	t_free(&t);
	free(v);
}

static void code_pairs(struct text *x)
{
	struct hc_report_loc_pair *lp;
	size_t n, total;
	struct table t = { .ncol = 6, .col = {
		{ "#", true, false, 4, 0 },
		{ "all", true, false, 0, 0 },
		{ x->adv.scale.time ? "of CPU" : "of acc.", true, false, 5, 0 },
		{ "true", true, false, 2, 0 },
		{ "false", true, false, 3, 0 },
		{ "code pair", false, true, 0, 33 } } };

	section(x, "Top code pairs (by all, merged by source line and function)");
	if (hc_report_loc_pairs(x->db, x->db->pairs, x->db->npairs, TOP, &lp, &n, &total)) {
		put_line(x->f, x->width, "  (out of memory)");
		return;
	}
	if (!n)
		put_line(x->f, x->width, "  (none recorded)");
	for (size_t k = 0; k < n; k++) {
		char r[16], va[64], vt[64], vf[64], q[48], pair[1100];
		snprintf(r, sizeof(r), "%zu", k + 1);
		snprintf(pair, sizeof(pair), "%s ↔ %s", lp[k].a, lp[k].b);
		t_row(&t, r, hc_report_value(va, sizeof(va), lp[k].all, unit_of(x)),
		      share(x, q, sizeof(q), lp[k].all),
		      hc_report_value(vt, sizeof(vt), lp[k].tru, unit_of(x)),
		      hc_report_value(vf, sizeof(vf), lp[k].fal, unit_of(x)), pair);
	}
	if (n) {
		t_print(&t, x->f, x->width);
		put_line(x->f, x->width, "  (%zu code pair%s by source location)", total,
		         total == 1 ? "" : "s");
	}
	t_free(&t);
	free(lp);
}

struct fn { uint64_t proc, all, tru, fal; };

static int cmp_fn_proc(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

static int cmp_fn_all(const void *a, const void *b)
{
	const struct fn *x = a, *y = b;

	if (x->all != y->all)
		return x->all > y->all ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* Exclusive communication of statements and call sites, by the innermost
   procedure around them (an inlined function counts as itself); a procedure
   is a name in a load module and file, shown as "name (file)" or, when the
   file is unknown, "name (module)". */
static void functions(struct text *x)
{
	const struct hc_db *db = x->db;
	struct fn *v = calloc(db->nnodes ? db->nnodes : 1, sizeof(*v));
	size_t n = 0, k = 0;
	struct table t = { .ncol = 5, .col = {
		{ "#", true, false, 4, 0 },
		{ "all", true, false, 0, 0 },
		{ "true", true, false, 2, 0 },
		{ "false", true, false, 3, 0 },
		{ "function (file)", false, true, 0, 20 } } };

	section(x, "Top functions (exclusive)");
	if (!v) {
		put_line(x->f, x->width, "  (out of memory)");
		return;
	}
	for (size_t i = 0; i < db->nnodes; i++) {
		const struct hc_db_node *nd = &db->nodes[i], *fr = nd;
		if (nd->type != HC_DB_N_S && nd->type != HC_DB_N_C)
			continue;
		if (!nd->m[HC_DB_METRIC_ID(HC_DB_M_ALL, 1)])
			continue;
		while (fr && fr->type != HC_DB_N_PF && fr->type != HC_DB_N_A)
			fr = fr->parent == HC_DB_NONE ? NULL : &db->nodes[fr->parent];
		v[n++] = (struct fn){ fr ? fr->proc : UINT64_MAX,
			nd->m[HC_DB_METRIC_ID(HC_DB_M_ALL, 1)], nd->m[HC_DB_METRIC_ID(HC_DB_M_TRUE, 1)],
			nd->m[HC_DB_METRIC_ID(HC_DB_M_FALSE, 1)] };
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_fn_proc);
	for (size_t i = 0; i < n; i++) {
		if (k && v[k - 1].proc == v[i].proc) {
			v[k - 1].all += v[i].all;
			v[k - 1].tru += v[i].tru;
			v[k - 1].fal += v[i].fal;
			continue;
		}
		v[k++] = v[i];
	}
	if (k > 1)
		qsort(v, k, sizeof(*v), cmp_fn_all);
	if (!k)
		put_line(x->f, x->width, "  (none recorded)");
	for (size_t i = 0; i < k && i < TOP; i++) {
		const struct hc_db_proc *p = v[i].proc == UINT64_MAX ? NULL :
		                             hc_db_procedure(db, v[i].proc);
		const char *where = !p ? NULL : p->f ? hc_db_file_name(db, p->f) :
		                    hc_db_lm_name(db, p->lm);
		char r[16], va[64], vt[64], vf[64], name[1100];
		if (where && strrchr(where, '/') && strrchr(where, '/')[1])
			where = strrchr(where, '/') + 1;
		snprintf(name, sizeof(name), "%s (%s)", p ? p->n : "?", where ? where : "?");
		snprintf(r, sizeof(r), "%zu", i + 1);
		t_row(&t, r, hc_report_value(va, sizeof(va), v[i].all, unit_of(x)),
		      hc_report_value(vt, sizeof(vt), v[i].tru, unit_of(x)),
		      hc_report_value(vf, sizeof(vf), v[i].fal, unit_of(x)), name);
	}
	if (k)
		t_print(&t, x->f, x->width);
	t_free(&t);
	free(v);
}

/* text after a label, wrapped at the width on spaces (never cut): the
   first line starts with label, the next ones are indented under the text */
static void wrap(struct text *x, const char *label, const char *text)
{
	int ind = dwidth(label), room = x->width - ind;
	const char *p = text;

	if (room < 20 || dwidth(text) <= room) {
		put_line(x->f, x->width, "%s%s", label, text);
		return;
	}
	while (*p) {
		const char *brk = NULL, *q = p;
		int w = 0;
		while (*q && w < room) {
			if (*q == ' ')
				brk = q;
			q++;
			while (((unsigned char)*q & 0xc0) == 0x80)
				q++;
			w++;
		}
		if (!*q)
			brk = q;
		else if (!brk)
			brk = q;   /* a word longer than the room: break it */
		fprintf(x->f, "%*s%.*s\n", p == text ? 0 : ind, p == text ? label : "",
		        (int)(brk - p), p);
		p = *brk == ' ' ? brk + 1 : brk;
	}
}

/* How much the communication matters, first: its share of what was sampled. */
static void scale(struct text *x)
{
	const struct hc_db *db = x->db;
	const struct hc_report_scale *sc = &x->adv.scale;
	char a[48], t[48], f[48], line[512];
	double p = hc_report_share(sc, db->t_all);

	section(x, "Scale");
	if (x->adv.empty[0]) {
		wrap(x, "  no communication: ", x->adv.empty);
		return;
	}
	if (!sc->known) {
		snprintf(line, sizeof(line), "unknown (%s)", sc->why);
		wrap(x, "  share of the run  ", line);
		return;
	}
	snprintf(line, sizeof(line), "%s of the %s (true sharing %s, false sharing %s)",
	         hc_report_share_str(a, sizeof(a), sc, db->t_all, false),
	         sc->time ? "sampled CPU time" : "sampled memory accesses",
	         hc_report_share_str(t, sizeof(t), sc, db->t_true, false),
	         hc_report_share_str(f, sizeof(f), sc, db->t_false, false));
	wrap(x, "  communication     ", line);
	wrap(x, "  basis             ", sc->basis);
	if (p > 100)
		wrap(x, "  over 100%         ", HC_REPORT_OVER_100);
	if (p < HC_REPORT_NEGLIGIBLE_PCT)
		wrap(x, "  verdict           ", "negligible (< 1%): removing all of it would save "
		     "less than 1% of what was sampled; the tables below show where it is, not "
		     "a problem to fix");
	else
		wrap(x, "  verdict           ", "matters: the shares below say where (a share under "
		     "1% is marked negligible)");
}

static void advice(struct text *x)
{
	const struct hc_db *db = x->db;
	const struct hc_advice *a = &x->adv;
	char v[64], q[48], buf[1024];

	if (a->nfs) {
		section(x, "Advice: false sharing (top objects; the user's code is not changed)");
		for (size_t k = 0; k < a->nfs; k++) {
			const struct hc_advice_fs *fs = &a->fs[k];
			const struct hc_db_object *o = fs->o;
			struct table t = { .ncol = 6, .indent = 5, .col = {
				{ "offset", true, false, 0, 0 },
				{ "size", true, false, 3, 0 },
				{ "access", true, false, 2, 0 },
				{ "false", true, false, 4, 0 },
				{ "threads", false, false, 1, 0 },
				{ "field", false, true, 0, 12 } } };
			fputc('\n', x->f);
			{
				char el[256] = "";
				if (fs->elem)
					snprintf(el, sizeof(el), ", element %s%s%llu B (%s)", fs->type,
					         fs->type[0] ? " of " : "", (unsigned long long)fs->elem,
					         fs->elem_from);
				else if (fs->type[0])
					snprintf(el, sizeof(el), ", element %s", fs->type);
				snprintf(buf, sizeof(buf), "%s (%s, %llu B%s)", o->name, o->kind,
				         (unsigned long long)o->size, el);
			}
			snprintf(q, sizeof(q), "  %zu. ", k + 1);
			wrap(x, q, buf);
			if (!a->scale.known && x->db->t_all)
				/* exact mode: no sampled total; of all the communication */
				snprintf(buf, sizeof(buf), "%s %s in false sharing here, %.2g%% of all the "
				         "communication counted",
				         hc_report_value(v, sizeof(v), o->fal, unit_of(x)), unit_of(x),
				         100.0 * (double)o->fal / (double)x->db->t_all);
			else
				snprintf(buf, sizeof(buf), "%s of the %s in false sharing here (%s)",
				         share(x, q, sizeof(q), o->fal),
				         a->scale.time ? "sampled CPU time" : "sampled memory accesses",
				         hc_report_value(v, sizeof(v), o->fal, unit_of(x)));
			wrap(x, "     share    ", buf);
			wrap(x, "     pattern  ", fs->pattern);
			for (size_t i = 0; i < fs->nfields && i < 16; i++) {
				const struct hc_db_field *f = fs->fields[i].f;
				char off[32], sz[32], ac[32], fv[64], th[256];
				size_t at = 0;
				snprintf(off, sizeof(off), "+%llu", (unsigned long long)f->offset);
				snprintf(sz, sizeof(sz), "%llu", (unsigned long long)f->size);
				snprintf(ac, sizeof(ac), "%llu", (unsigned long long)(f->access ? f->access : f->size));
				th[0] = '\0';
				for (size_t n = 0; n < f->nthreads && at < sizeof(th); n++)
					at += (size_t)snprintf(th + at, sizeof(th) - at, "%s%u", n ? "," : "",
					                       f->threads[n]);
				t_row(&t, off, sz, ac, hc_report_value(fv, sizeof(fv), f->fal, unit_of(x)), th,
				      f->name[0] ? f->name : "-");
			}
			wrap(x, "     layout   ", "bytes from the object's start; the threads that touched each");
			t_print(&t, x->f, x->width);
			if (fs->nfields > 16)
				fprintf(x->f, "       (%zu more fields: objects.xml)\n", fs->nfields - 16);
			t_free(&t);
			for (size_t i = 0; i < fs->nfixes; i++)
				wrap(x, i ? "              " : "     change   ", fs->fixes[i]);
			if (fs->save_bound > 0 && a->scale.time) {
				snprintf(buf, sizeof(buf), "at most %.1f%% of the sampled CPU time%s%.2fx "
				         "if the threads are balanced (a bound, after Cheetah, CGO 2016), "
				         "assuming:", fs->save_bound, fs->speedup_bound > 0 ? "; speedup <= " : "",
				         fs->speedup_bound);
				wrap(x, "     saves    ", buf);
			} else if (fs->nassume) {
				wrap(x, "     saves    ", "unknown in time, assuming:");
			}
			for (size_t i = 0; i < fs->nassume; i++)
				wrap(x, "              - ", fs->assume[i]);
		}
	}
	if (a->nts) {
		section(x, "Advice: true sharing (top code pairs by true sharing)");
		for (size_t k = 0; k < a->nts; k++) {
			const struct hc_advice_ts *t = &a->ts[k];
			fputc('\n', x->f);
			snprintf(buf, sizeof(buf), "%s ↔ %s", t->a, t->b);
			snprintf(q, sizeof(q), "  %zu. ", k + 1);
			wrap(x, q, buf);
			snprintf(buf, sizeof(buf), "%s, %s of the %s (%s)", t->kind,
			         share(x, q, sizeof(q), t->tru),
			         a->scale.time ? "sampled CPU time" : "sampled memory accesses",
			         hc_report_value(v, sizeof(v), t->tru, unit_of(x)));
			wrap(x, "     kind     ", buf);
			wrap(x, "     meaning  ", t->detail);
		}
	}
	(void)db;
}

/* Where to pin which thread (placement.c): one block per process with two
   threads or more (the first 4), printed by hc_place_print and fitted line
   by line. */
static void placement(struct text *x)
{
	const struct hc_db *db = x->db;
	size_t shown = 0, more = 0;

	for (size_t p = 0; p < db->nprocs; p++) {
		struct hc_place_in in;
		struct hc_place_out out;
		uint32_t *label = NULL;
		char *buf = NULL, *line, *save = NULL;
		size_t len = 0;
		FILE *m;

		if (db->procs[p].threads < 2)
			continue;
		if (shown == 4) {
			more++;
			continue;
		}
		if (!shown) {
			section(x, "Thread placement");
			put_line(x->f, x->width, "  Where to pin which thread: Scotch's mapping of the thread "
			         "matrix onto the host's packages and cores");
			put_line(x->f, x->width, "  (distance 1 across cores, %d across packages), against "
			         "this run's placement.", HC_PLACE_LINK_PACKAGE + 1);
		}
		shown++;
		fputc('\n', x->f);
		put_line(x->f, x->width, "  process %llu (host %s):", (unsigned long long)db->procs[p].pid,
		         db->procs[p].host ? db->procs[p].host : "?");
		if (db->procs[p].threads > HC_PLACE_MAX_THREADS) {
			put_line(x->f, x->width, "    no placement proposed: %llu threads (more than %u): pin "
			         "groups of threads instead.", (unsigned long long)db->procs[p].threads,
			         HC_PLACE_MAX_THREADS);
			continue;
		}
		if (hc_place_from_db(db, p, &in, &label, &out) < 0) {
			put_line(x->f, x->width, "    no placement proposed: out of memory.");
			continue;
		}
		m = open_memstream(&buf, &len);
		if (m) {
			hc_place_print(m, "    ", &in, &out, label, 64);
			fclose(m);
			for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
				put_line(x->f, x->width, "%s", line);
		}
		free(buf);
		hc_place_free(&out);
		hc_place_in_free(&in);
		free(label);
	}
	if (more)
		put_line(x->f, x->width, "  ... and %zu more processes (viewer-export --json has them all).", more);
}

static void notes(struct text *x)
{
	const struct hc_db *db = x->db;

	if (db->nskips) {
		section(x, "Skipped profiles");
		for (size_t k = 0; k < db->nskips; k++)
			put_line(x->f, x->width, "  %s: %s", db->skips[k].file, db->skips[k].reason);
	}
	if (db->nwarnings) {
		section(x, "Warnings");
		for (size_t k = 0; k < db->nwarnings; k++)
			put_line(x->f, x->width, "  %s", db->warnings[k]);
	}
}

int hc_report_text(const struct hc_db *db, FILE *f, const struct hc_report_text_opts *o)
{
	/* width 0 or less: no limit (not a terminal: nothing is ever cut) */
	struct text x = { .db = db, .name = o->db_name ? o->db_name : db->dir, .f = f,
	                  .width = o->width > 0 ? o->width : HC_REPORT_UNLIMITED,
	                  .level = o->level, .kind = o->kind };

	if (o->level < 0 || o->level >= HC_DB_LEVEL_COUNT || o->kind < 0 ||
	    o->kind >= HC_DB_KIND_COUNT || !db->mat[o->level][o->kind].present)
		return -EINVAL;
	if (hc_advice_build(db, HC_REPORT_ADVICE_FS, HC_REPORT_ADVICE_TS, &x.adv))
		return -ENOMEM;
	header(&x);
	scale(&x);
	totals(&x);
	ranks(&x);
	top_pairs(&x);
	grid(&x);
	thread_groups(&x);
	objects(&x);
	advice(&x);
	hc_report_text_views(db, f, x.width);
	code_pairs(&x);
	functions(&x);
	hc_report_text_regions(db, f, x.width, HC_REPORT_TOP);
	placement(&x);
	notes(&x);
	hc_advice_free(&x.adv);
	return 0;
}
