/* SPDX-License-Identifier: BSD-3-Clause */
/* export_json.c — --json FILE: the report model (doc/report.schema.json), the
   same document report.html embeds, for scripts and notebooks. No signal
   context. */
#include "exporter.h"

static int json_run(const struct hc_db *db, const struct export_opts *o)
{
	struct hc_out out;

	if (vx_open(&out, o->out))
		return -1;
	hc_report_json(db, out.f, false);
	return vx_close(&out, true);
}

const struct exporter export_json = {
	.name = "json",
	.arg = "FILE",
	.help = "the report model as JSON (schema: doc/report.schema.json)",
	.run = json_run,
};
