/* SPDX-License-Identifier: BSD-3-Clause */
/* export_html.c — --html: one self-contained report.html. The page is the
   report model as JSON inside <script type="application/json"> ('<' escaped,
   so no "</script>" can end it early), plus report.css and report.js compiled
   into this program (assets.h). A Content-Security-Policy of default-src
   'none' makes the browser refuse any network or file access the page might
   attempt: the report works, and provably only works, offline. No signal
   context. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "assets.h"
#include "exporter.h"

static void write_page(const struct hc_db *db, FILE *f)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"" VX_NAME " " PACKAGE_VERSION "\">\n<title>", f);
	hc_put_xml(f, db->program);
	fputs(" — communication report</title>\n<style>\n", f);
	fwrite(vx_report_css, 1, vx_report_css_len, f);
	fputs("</style>\n</head>\n<body>\n"
	      "<noscript><p>This report is drawn by its embedded script; enable JavaScript "
	      "(it makes no network access).</p></noscript>\n"
	      "<div id=\"app\"></div>\n"
	      "<script type=\"application/json\" id=\"hc-data\">\n", f);
	hc_report_json(db, f, true);
	fputs("</script>\n<script>\n", f);
	fwrite(vx_report_js, 1, vx_report_js_len, f);
	fputs("</script>\n</body>\n</html>\n", f);
}

static int html_run(const struct hc_db *db, const struct export_opts *o)
{
	struct hc_out out;
	struct stat st;
	char *path = NULL;
	int rc;

	if (!o->out)
		rc = asprintf(&path, "%s/report.html", o->db_dir);
	else if (stat(o->out, &st) == 0 && S_ISDIR(st.st_mode))
		rc = asprintf(&path, "%s/report.html", o->out);
	else
		rc = asprintf(&path, "%s", o->out);
	if (rc < 0)
		return vx_error("out of memory");
	if (vx_open(&out, path)) {
		free(path);
		return -1;
	}
	write_page(db, out.f);
	rc = vx_close(&out, true);
	if (!rc && strcmp(path, "-"))
		fprintf(stderr, VX_NAME ": wrote %s\n", path);
	free(path);
	return rc;
}

const struct exporter export_html = {
	.name = "html",
	.arg = NULL,
	.help = "self-contained report.html: heatmaps, objects, calling contexts (default)",
	.run = html_run,
};
