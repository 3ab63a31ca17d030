/* SPDX-License-Identifier: BSD-3-Clause */
/* exporter.h — the exporters of viewer-export as method tables, the one list
   of them (exporters[]), and the helpers they share: error messages and
   output files written through a temporary name and renamed only when
   complete (a failed export never leaves half a report behind). What they
   write is computed by lib/report. No signal context. */
#ifndef HC_VIEWER_EXPORTER_H
#define HC_VIEWER_EXPORTER_H

#include <stdbool.h>
#include <stdio.h>

#include "hc/common.h"
#include "db/db.h"
#include "report/report.h"
#include "support/out.h"

#define VX_NAME "viewer-export"

struct export_opts {
	const char *db_dir;
	const char *out;     /* file or directory for this exporter; NULL: its default */
	int level;           /* enum hc_db_level for single-matrix exports */
	int kind;            /* enum hc_db_kind */
	int width;           /* --text: columns */
};

struct exporter {
	const char *name;    /* the option: --<name> */
	const char *arg;     /* NULL: the option takes no argument; else its metavariable */
	const char *help;
	int (*run)(const struct hc_db *db, const struct export_opts *o);
};

extern const struct exporter export_html, export_text, export_csv, export_json,
	export_dot, export_metis, export_scotch;

/* Error to stderr as "viewer-export: ..."; returns -1. */
int vx_error(const char *fmt, ...) HC_PRINTF(1, 2);

/* An output file (lib/support/out.h): "-" is stdout; anything else is
   written as PATH.tmp.PID and renamed onto PATH by vx_close(ok = true).
   Both print their errors; 0 or -1. */
int vx_open(struct hc_out *o, const char *path);
int vx_close(struct hc_out *o, bool ok);

#endif
