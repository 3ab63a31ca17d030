/* SPDX-License-Identifier: BSD-3-Clause */
/* views.h — the phase and locality parts of the reports (views.c): a brief
   text section each for the summary, and the "phases" and "locality" members
   of the JSON report model (doc/report.schema.json). lib/report internal.
   No signal context. */
#ifndef HC_REPORT_VIEWS_H
#define HC_REPORT_VIEWS_H

#include <stdio.h>

#include "db/db.h"
#include "report/json.h"

/* "Phases" and "NUMA locality" sections, every line at most width columns. */
void hc_report_text_views(const struct hc_db *db, FILE *f, int width);
/* "phases": {...} | null and "locality": {...} | null. */
void hc_report_json_views(struct hc_json *j, const struct hc_db *db);

#endif
