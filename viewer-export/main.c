/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c — viewer-export, the exporter of hpcprof-comm databases
   (doc/viewer-export.md): reads one database directory through its documented
   format and runs the requested exporters (method tables in exporters[],
   HTML when none is asked for). A damaged database stops everything with the
   reader's "FILE[:LINE]: what is wrong". Exit status: 0 success, 1 unreadable
   database or failed export, 2 usage error. No signal context. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "config.h"
#include "exporter.h"

/* The one list of exporters; order is the order they run in. */
static const struct exporter *const exporters[] = {
	&export_html, &export_text, &export_csv, &export_json,
	&export_dot, &export_metis, &export_scotch,
};
#define NEXP (sizeof(exporters) / sizeof(exporters[0]))
enum { X_HTML = 0, X_TEXT = 1 };   /* their places in exporters[] */

static void usage(FILE *f)
{
	fputs("Usage: " VX_NAME " [OPTION]... DATABASE-DIR\n"
	      "Export an hpcprof-comm database: a self-contained HTML report (default), a\n"
	      "terminal summary, CSV, JSON, or graph files for Graphviz and mapping tools.\n"
	      "Several formats may be asked for in one run.\n\n", f);
	for (size_t k = 0; k < NEXP; k++) {
		char opt[64];
		snprintf(opt, sizeof(opt), "--%s%s%s", exporters[k]->name,
		         exporters[k]->arg ? " " : "", exporters[k]->arg ? exporters[k]->arg : "");
		fprintf(f, "  %-18s %s\n", opt, exporters[k]->help);
	}
	fputs("  -o, --output=PATH  where --html writes (a file, or a directory to put\n"
	      "                     report.html in; default DATABASE-DIR/report.html), or\n"
	      "                     --text when it is the only format (default: stdout)\n"
	      "      --width=N      columns for --text (default: the terminal's; no limit into\n"
	      "                     a file or a pipe)\n"
	      "      --level=L      matrix of --text/--dot/--metis/--scotch: thread (default),\n"
	      "                     core, socket or numa\n"
	      "      --kind=K       all (default), true or false\n"
	      "  -h, --help         this help\n"
	      "  -V, --version      version\n\n"
	      "A FILE argument of \"-\" means standard output. Exit status: 0 on success, 1 when\n"
	      "the database cannot be read or an export fails, 2 on a usage error.\n", f);
}

static int terminal_width(void)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
		return ws.ws_col;
	if (isatty(STDOUT_FILENO))
		return 100;
	return HC_REPORT_WIDTH;   /* a file or a pipe: no limit, nothing cut */
}

enum { OPT_WIDTH = 256, OPT_LEVEL, OPT_KIND, OPT_EXPORT };

int main(int argc, char **argv)
{
	struct option longopts[NEXP + 8];
	const char *args[NEXP] = { 0 };
	bool want[NEXP] = { false }, any = false;
	const char *output = NULL;
	struct export_opts o = { .level = HC_DB_LEVEL_THREAD, .kind = HC_DB_KIND_ALL };
	struct hc_db *db;
	char err[2048];
	int c, n = 0, rc = 0;

	for (size_t k = 0; k < NEXP; k++)
		longopts[n++] = (struct option){ exporters[k]->name,
			exporters[k]->arg ? required_argument : no_argument, NULL, OPT_EXPORT + (int)k };
	longopts[n++] = (struct option){ "output", required_argument, NULL, 'o' };
	longopts[n++] = (struct option){ "width", required_argument, NULL, OPT_WIDTH };
	longopts[n++] = (struct option){ "level", required_argument, NULL, OPT_LEVEL };
	longopts[n++] = (struct option){ "kind", required_argument, NULL, OPT_KIND };
	longopts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longopts[n++] = (struct option){ "version", no_argument, NULL, 'V' };
	longopts[n++] = (struct option){ 0 };

	while ((c = getopt_long(argc, argv, "o:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_WIDTH: {
			char *end;
			long w = strtol(optarg, &end, 10);
			if (*end || w < 20 || w > 10000) {
				vx_error("--width %s: expected a number of columns from 20 to 10000", optarg);
				return 2;
			}
			o.width = (int)w;
			break;
		}
		case OPT_LEVEL:
			if ((o.level = hc_db_level_parse(optarg)) < 0) {
				vx_error("--level %s: expected thread, core, socket or numa", optarg);
				return 2;
			}
			break;
		case OPT_KIND:
			if ((o.kind = hc_db_kind_parse(optarg)) < 0) {
				vx_error("--kind %s: expected all, true or false", optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf(VX_NAME " " PACKAGE_VERSION "\n");
			return 0;
		default:
			if (c >= OPT_EXPORT && c < OPT_EXPORT + (int)NEXP) {
				want[c - OPT_EXPORT] = true;
				args[c - OPT_EXPORT] = optarg;
				any = true;
				break;
			}
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		vx_error(optind == argc ? "no database directory given (try --help)"
		                        : "one database directory, please (try --help)");
		return 2;
	}
	if (!any)
		want[X_HTML] = true;
	if (output && !want[X_HTML] && !want[X_TEXT]) {
		vx_error("-o names the output of --html or --text; the other formats take "
		         "their file as argument (try --help)");
		return 2;
	}
	o.db_dir = argv[optind];
	if (!o.width)
		o.width = terminal_width();

	if (hc_db_open(o.db_dir, &db, err, sizeof(err))) {
		vx_error("%s", err[0] ? err : strerror(ENOMEM));
		return 1;
	}
	for (size_t k = 0; k < NEXP; k++) {
		if (!want[k])
			continue;
		o.out = args[k];
		if (k == X_HTML || (k == X_TEXT && !want[X_HTML]))
			o.out = output;
		if (exporters[k]->run(db, &o))
			rc = 1;
	}
	hc_db_close(db);
	return rc;
}
