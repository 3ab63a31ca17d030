/* SPDX-License-Identifier: BSD-3-Clause */
/* views.h — the reader's model of phases.xml and locality.xml
   (doc/database-format.md "phases.xml", "locality.xml"; schemas
   doc/phases.xsd, doc/locality.xsd): struct hc_db's `views`, NULL when a
   database has neither file (one written before they existed). Both files
   are optional and independent; read_views.c checks them against the rest
   of the database (thread indexes, object indexes, sums) and fails with
   "FILE:LINE: what is wrong". No signal context. */
#ifndef HC_DB_VIEWS_H
#define HC_DB_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

struct hc_db_phase {
	uint64_t i, start, end;         /* ns from the run's origin, [start, end) */
	uint64_t first, last;           /* windows */
	uint64_t all, tru, fal;
	int64_t pair_i, pair_j;         /* top pair, -1 when none */
	uint64_t pair_all;
	int64_t object;                 /* objects.xml index of the top object, -1 */
	uint64_t object_all;
	char *object_name;              /* "" when none */
	struct hc_db_objcell *cells;    /* its thread matrix, i < j, sorted as written */
	size_t ncells;
};

struct hc_db_window {
	uint64_t i, start, end, phase;
	uint64_t all, tru, fal;
	uint64_t *lines;                /* nlines values: the volume of each timeline line */
};

struct hc_db_line {
	bool object;                    /* an object (i = objects.xml index) or a pair (i, j) */
	uint64_t i, j;
};

struct hc_db_numa_object {
	uint64_t i;                     /* objects.xml index */
	char *name;
	uint64_t local, remote, unlocated;
	double remote_share;
	bool flagged;
	int64_t first_thread;           /* -1 when unknown */
	uint64_t *page, *thread;        /* volume by node, ndomains entries each */
};

struct hc_db_views {
	/* phases.xml */
	bool has_phases;
	uint64_t window, span;
	double similarity;
	char *rule;
	struct hc_db_phase *phases;     size_t nphases;
	struct hc_db_line *lines;       size_t nlines;
	struct hc_db_window *windows;   size_t nwindows;

	/* locality.xml */
	bool has_locality;
	uint64_t ndomains;
	bool single, pages;
	double flag;
	uint64_t local, remote, unlocated;
	struct hc_db_numa_object *numa; size_t nnuma;
};

void hc_db_views_free(struct hc_db_views *v);

#endif
