/* SPDX-License-Identifier: BSD-3-Clause */
/* views.h — the views over time and memory nodes (doc/database-format.md
   "phases.xml", "locality.xml"): phases.c cuts the run into time windows,
   merges alike windows into phases and writes phases.xml; numa.c sums, per
   data object, where its sampled pages live and where the threads that
   touched them ran, and writes locality.xml. Both are fed by the object
   pass (objects.c calls views__event once per communication event, from
   its worker), so they cost no extra read of the profiles. No signal
   context. */
#ifndef HC_ANALYSIS_VIEWS_H
#define HC_ANALYSIS_VIEWS_H

#include <stdint.h>

#include "analysis/internal.h"

/* Automatic window count, the phase merge rule (phases.c, and
   doc/hpcprof-comm.md "Phases"). */
#define VIEWS_AUTO_WINDOWS   20u
#define VIEWS_MAX_WINDOWS    10000u
#define VIEWS_MIN_WINDOW_NS  1000ull      /* 1 µs */
#define VIEWS_SIMILAR        0.70         /* Bhattacharyya coefficient to join a phase */
#define VIEWS_MIX            0.50         /* a one-window phase joins a neighbour this alike */
#define VIEWS_QUIET          0.01         /* a window below 1 % of the busiest one is quiet */
#define VIEWS_TIMELINE_TOP   8u           /* pairs and objects with their own timeline line */
/* Locality: an object is flagged when at least this share of its accesses
   with known nodes is remote (and it has at least VIEWS_REMOTE_MIN of the
   located volume). */
#define VIEWS_REMOTE_FLAG    0.50
#define VIEWS_REMOTE_MIN     0.01

struct views;
struct views_worker;
struct objects;

/* Before the object pass: windows from the profiles' time ranges
   (window_ns 0 = automatic), one accumulator per worker. 0 or -ENOMEM. */
int views__init(struct an *an, uint64_t window_ns, struct views **out);
void views__free(struct views *v);
/* The pool's pages (an->pool) kept for the views' window cells: at most
   what they can take (every event a window cell), so that pages no array
   takes do not sit on top of the object pass's memory. */
void views__pool_cap(struct an *an, const struct views *v);
struct views_worker *views__worker(struct views *v, unsigned id);

/* One communication event of profile p (index evi in hp) between global
   threads g and gp (HC_NONE when unknown), its two addresses resolved to the
   objects whose identity keys are ka and kb (objects.c's (kind, a, b)),
   weighing (wt, wf). Called from the object pass's workers. 0 / -ENOMEM. */
int views__event(struct views_worker *w, const struct an *an, const struct an_prof *p,
                 const struct hc_prof *hp, uint32_t evi, const struct hc_prof_event *ev,
                 uint32_t g, uint32_t gp, const struct hkey *ka, const struct hkey *kb,
                 uint64_t wt, uint64_t wf);

/* Distributed (dist_objects.c, doc/mpi.md): rank 0's windows to the other
   ranks (pack_params with v NULL: no views; unpack_params creates
   an->views then), and a rank's sums as bytes, added to another's (to
   worker 0's). 0 / -ENOMEM; a malformed buffer sets b->bad. */
struct wbuf;
struct rbuf;
struct numa;
void views__pack_params(const struct views *v, uint32_t nhosts, struct wbuf *b);
int views__unpack_params(struct an *an, struct rbuf *b);
int views__pack(struct views *v, struct wbuf *b);
int views__unpack(struct views *v, struct rbuf *b);
void numa__pack(const struct numa *n, struct wbuf *b);
int numa__unpack(struct numa *n, struct rbuf *b);

/* After the object pass: merge the workers, find the phases, rank the
   locality table. 0 / -ENOMEM. */
int views__finish(struct an *an, struct views *v, const struct objects *ob);
/* phases.xml and locality.xml into dir. */
/* phases.xml's part of db/views.h's struct hc_db_views, as reading the
   written file would set it, without the phases' cells (the summary's
   read-back, summary.c). 0 or -ENOMEM (out is then freed by its owner). */
struct hc_db_views;
int views__model(const struct an *an, const struct views *v, struct hc_db_views *out);
int views__write(struct an *an, const struct views *v, const char *dir, char *err,
                 size_t errlen);

/* ---- phases.c internals shared with numa.c and the unit tests ---- */

/* Bhattacharyya coefficient of two non-negative vectors given as sorted
   sparse cells (key, value): sum of sqrt(a/|a| * b/|b|); 1 = same shape, 0
   = nothing in common; 1 when both are empty, 0 when one is. */
struct vcell {
	uint64_t key;
	uint64_t v;
};
double views__similarity(const struct vcell *a, uint32_t na, const struct vcell *b, uint32_t nb);

/* The phase rule on nwin windows given as sparse sorted vectors: phase[w]
   receives the phase of window w (0..*nphases-1, in time order). 0 or
   -ENOMEM. */
int views__segment(const struct vcell *const *win, const uint32_t *nwin_cells, uint32_t nwin,
                   uint32_t *phase, uint32_t *nphases);

/* A window cell (pair i < j, window win, true and false volumes) and the
   sort of n of them by (i, j, win) with a scratch tmp of n records: the
   sorted records are in c or tmp, the one returned. */
struct wc {
	uint32_t win, i, j;
	uint64_t t, f;
};
struct wc *views__sort_wc(struct wc *c, struct wc *tmp, size_t n);

/* numa.c */
struct numa;
int numa__init(struct numa **out, unsigned nworkers);
void numa__free(struct numa *n);
int numa__event(struct numa *n, unsigned worker, const struct an *an, const struct an_prof *p,
                const struct hc_prof *hp, uint32_t evi, const struct hc_prof_event *ev,
                uint32_t g, uint32_t gp, const struct hkey *ka, const struct hkey *kb,
                uint64_t wt, uint64_t wf);
int numa__finish(struct an *an, struct numa *n, const struct objects *ob);
int numa__write(struct an *an, const struct numa *n, const struct objects *ob, const char *dir,
                char *err, size_t errlen);

#endif
