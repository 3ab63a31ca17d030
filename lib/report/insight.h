/* SPDX-License-Identifier: BSD-3-Clause */
/* insight.h — what the reports say about the numbers, computed once from
   lib/db's model for the text summary, the JSON model and the HTML:
   * scale (scale.c): the share of the sampled CPU time (soft sampler) or of
     the sampled memory accesses (pebs/ibs) spent in communicating accesses,
     with the denominator taken from what the profiles record (the samples
     counters and the sampling periods), and the "negligible" flag (< 1 %);
   * advice (advice.c): for the top false-sharing objects their layout
     (fields, offsets, access sizes, which threads touch which) and the
     change that removes the sharing (pad, align, split), with a bound on
     what the change can save in the spirit of Cheetah (Liu and Liu, CGO
     2016: the time the falsely shared accesses take, as if the fix made
     them free); for the top true-sharing code pairs the kind of hand-off;
   * the reason an empty result is empty (advice.c);
   * what the soft sampler left out to keep its cost down (advice.c).
   The user's code is never touched: advice is text. No signal context. */
#ifndef HC_REPORT_INSIGHT_H
#define HC_REPORT_INSIGHT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

/* Below this share (percent) a volume is negligible. */
#define HC_REPORT_NEGLIGIBLE_PCT 1.0

struct hc_report_scale {
	bool known;            /* denom is set */
	bool time;             /* denom is CPU time in ns (soft); else memory events */
	uint64_t denom;        /* in the database unit's basis */
	uint64_t samples;      /* samples behind it */
	char basis[320];       /* how denom was computed, in words */
	char why[320];         /* !known: why there is no denominator */
};

void hc_report_scale(const struct hc_db *db, struct hc_report_scale *s);
/* What a share above 100 % of the sampled CPU time means (the reports say
   it beside such a share). */
#define HC_REPORT_OVER_100 "an estimate, not a measurement: each watchpoint trap stands for " \
	"the chunks and candidate lines its set was chosen among (doc/detection.md, The trap " \
	"weight), so a few traps can outweigh the sampled time; read it as \"most of the " \
	"sampled time\", with a wide spread"
/* 100 * v / denom, or -1 when the scale is unknown. */
double hc_report_share(const struct hc_report_scale *s, uint64_t v);
/* "12.3 %", "0.4 % negligible" (when mark), "<0.1 %", or "-" when unknown. */
char *hc_report_share_str(char *buf, size_t sz, const struct hc_report_scale *s, uint64_t v,
                          bool mark);

/* One field of an object's layout, by offset. */
struct hc_advice_field {
	const struct hc_db_field *f;
	int64_t elem;          /* element index (name "v[k]..." or offset / element size), -1 */
};

struct hc_advice_fs {
	const struct hc_db_object *o;
	double share;          /* o->fal as a share of the scale, -1 unknown */
	double save_bound;     /* percent of the sampled total the fix can save at most */
	double speedup_bound;  /* 1 / (1 - save_bound / 100), 0 unknown */
	uint64_t elem;         /* element size used for the advice, 0 unknown */
	const char *type;      /* its type ("" unknown: o->type is of the object's element,
	                          not of an array member's) */
	const char *elem_from; /* "DWARF", "field offsets", NULL */
	uint32_t nthreads;     /* distinct threads touching its falsely shared fields */
	struct hc_advice_field *fields;  size_t nfields;   /* every field, by offset */
	char **fixes;          size_t nfixes;     /* the changes, one sentence each */
	char **assume;         size_t nassume;    /* assumptions of the bound */
	char pattern[256];     /* what the threads do with the layout, in words */
};

struct hc_advice_ts {
	char a[512], b[512];   /* the code pair (labels as hc_report_loc_pairs) */
	unsigned wa, wb;       /* where each end ran (hc_report_loc_pair) */
	uint64_t tru, all;
	double share;
	const char *kind;      /* "migratory read-modify-write", "producer→consumer", ... */
	char detail[1024];     /* what it means and what helps */
};

struct hc_advice {
	struct hc_report_scale scale;
	struct hc_advice_fs *fs;  size_t nfs;
	struct hc_advice_ts *ts;  size_t nts;
	char empty[1024];      /* non-empty when the database shows no communication: why */
};

/* Up to max_fs false-sharing objects and max_ts true-sharing code pairs.
   0 or -ENOMEM. */
int hc_advice_build(const struct hc_db *db, size_t max_fs, size_t max_ts, struct hc_advice *a);
void hc_advice_free(struct hc_advice *a);

/* Why a database with no communication has none, derived from its data
   (one thread, too short, stores never sampled, nothing shared...) into
   buf; "" when there is communication. */
void hc_report_empty_reason(const struct hc_db *db, char *buf, size_t sz);

/* What the soft sampler left out in a crowded process to keep its cost
   down, from the runtime's counters summed over the threads: watchpoint
   sets the context-switch gate refused (watch_gated) against those armed
   (watch_armed), the threads that never opened theirs
   (watch_threads_gated), and the extra periods coarse samples stood for
   (samples_thinned) against the samples taken. */
struct hc_report_coverage {
	uint64_t samples, thinned;
	uint64_t armed, gated, threads_gated;
};
/* Gated: at least HC_REPORT_GATED_MIN sets refused and no fewer refused
   than armed. Thinned: a sample stood for HC_REPORT_THIN_MIN periods or
   more on average. */
#define HC_REPORT_GATED_MIN 10u
#define HC_REPORT_THIN_MIN  4u
/* The coverage of a database (its counters). */
void hc_report_coverage_of(const struct hc_db *db, struct hc_report_coverage *c);
/* A sentence for the user when either cut applies: what was left out, what
   it misses, and how to measure fully; true. false and buf "" when
   neither applies. */
bool hc_report_coverage_cut(const struct hc_report_coverage *c, char *buf, size_t sz);

/* Threads grouped (groups.c): by start routine ("main thread" for a
   process's first thread), and a routine with more than
   HC_REPORT_GEN_MIN threads split into generations — runs of consecutive
   creation order (thread index: threads.csv records no start times) of
   max(HC_REPORT_GEN_MIN, count / HC_REPORT_GEN_MAX) threads. m[kind] is the
   grouped matrix, n × n, symmetric; its diagonal is the communication
   between threads of the same group. */
#define HC_REPORT_GEN_MIN 64u
#define HC_REPORT_GEN_MAX 16u
struct hc_report_groups {
	uint32_t n;
	uint32_t *of;          /* db->nthreads entries: the group of each thread */
	char **name;           /* "worker", "worker, generation 2 (threads 65-128)" */
	uint32_t *count;       /* threads per group */
	uint64_t *m[HC_DB_KIND_COUNT];   /* n * n each */
};
int hc_report_groups_build(const struct hc_db *db, struct hc_report_groups *g);
void hc_report_groups_free(struct hc_report_groups *g);

/* "scale", "empty_reason" and "advice" of the report model, as keys of the
   object being written (insight_json.c). */
struct hc_json;
void hc_report_json_insight(const struct hc_db *db, struct hc_json *j);
/* "thread_groups" of the report model (groups.c). */
void hc_report_json_groups(const struct hc_db *db, struct hc_json *j);

#endif
