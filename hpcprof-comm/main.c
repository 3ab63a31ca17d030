/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c — hpcprof-comm, the offline analyzer: turns measurement directories
   written by hpcrun-comm into a database directory (doc/hpcprof-comm.md,
   doc/database-format.md). This file is only the command line: options, the
   default database name, progress on a terminal, exit codes; the work is in
   lib/analysis. Exit status: 0 success, 1 nothing usable or the output could
   not be written, 2 usage error. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "hc/common.h"
#include "analysis/analysis.h"
#include "db/db.h"
#include "report/report.h"
#include "support/log.h"
#include "hpcprof-comm/mpi.h"

static void usage(FILE *f)
{
	fputs("Usage: hpcprof-comm [OPTION]... MEASUREMENT-DIR...\n"
	      "  or:  hpcprof-comm --region=NAME|FILE:LINE DATABASE-DIR\n"
	      "Merge the profiles of hpcrun-comm measurement directories into a database:\n"
	      "communication matrices (thread, core, socket, NUMA), threads, the calling-context\n"
	      "tree with code pairs (experiment.xml) and a summary, also printed.\n"
	      "\n"
	      "  -o, --output=DIR  database directory (default: the input's name with\n"
	      "                    \"-measurements\" turned into \"-database\", in the current\n"
	      "                    directory; -2, -3, ... appended when that exists)\n"
	      "  -f, --force       replace DIR if it exists (only an earlier database or an\n"
	      "                    empty directory is ever replaced)\n"
	      "  -j, --jobs=N      threads to use (default: all online CPUs)\n"
	      "      --top=N       code pairs kept per context in experiment.xml\n"
	      "                    (default 10)\n"
	      "      --unit=UNIT   when profiles mix units, keep those in UNIT: ns (soft\n"
	      "                    sampler) or transfers (PMU samplers); default: the unit of\n"
	      "                    most profiles. Units are never mixed in one database.\n"
	      "      --dense-max=N matrices of at most N rows are written as N×N CSV, larger\n"
	      "                    ones in the sparse form (default 1024)\n"
	      "      --window=MS   phase windows of MS milliseconds (decimals allowed;\n"
	      "                    default: the run cut into about 20 windows)\n"
	      "      --region=R    print code region R's thread matrix (R: a region's name as\n"
	      "                    in regions.xml, e.g. main, or FILE:LINE of a loop or\n"
	      "                    procedure): of DATABASE-DIR when that is the only input,\n"
	      "                    else of the database just written (doc/regions.md)\n"
	      "  -q, --quiet       print only errors (no summary, no progress)\n"
	      "  -h, --help        this help\n"
	      "  -V, --version     version\n"
	      "\n"
	      "Under an MPI launcher (mpirun -np N hpcprof-comm ...), a build with MPI merges\n"
	      "in parallel: each rank reads a share of the processes, partial results are\n"
	      "reduced over a tree, rank 0 writes the same database a single run writes; a\n"
	      "build without MPI refuses to run as one of several ranks (doc/mpi.md).\n"
	      "\n"
	      "Damaged profiles are reported with the reason and skipped. Exit status: 0 on\n"
	      "success, 1 when nothing usable was found or the database could not be written,\n"
	      "2 on a usage error. See doc/hpcprof-comm.md and doc/database-format.md.\n", f);
}

struct progress {
	struct timespec start;
	bool shown;
};

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Only installed when stderr is a terminal; shows up after one second. */
static void show_progress(void *arg, const char *what, size_t done, size_t total)
{
	struct progress *p = arg;

	if (!what) {
		if (p->shown)
			fputs("\r\033[K", stderr);
		p->shown = false;
		return;
	}
	if (elapsed(&p->start) < 1.0)
		return;
	fprintf(stderr, "\r\033[Khpcprof-comm: %s %zu/%zu (%.0f%%)", what, done, total,
	        total ? 100.0 * (double)done / (double)total : 0.0);
	p->shown = true;
}

static bool parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < lo || v > hi)
		return false;
	*out = (unsigned)v;
	return true;
}

static bool is_database(const char *dir)
{
	char p[4200];

	snprintf(p, sizeof(p), "%s/%s", dir, HC_DB_META);
	return access(p, F_OK) == 0;
}

/* --region: read the database back (lib/db validates it) and print. */
static int print_region(const char *dir, const char *spec)
{
	struct hc_db *db = NULL;
	char err[4096];
	size_t k;
	int ret;

	ret = hc_db_open(dir, &db, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "hpcprof-comm: %s\n", err);
		return 1;
	}
	ret = hc_report_region_find(db, spec, &k, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "hpcprof-comm: --region %s: %s\n", spec,
		        ret == -ENOMEM ? "out of memory" : err);
		hc_db_close(db);
		return 1;
	}
	ret = hc_report_region_text(db, k, stdout);
	hc_db_close(db);
	if (ret || fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "hpcprof-comm: --region: %s\n", ret ? strerror(-ret) : "write error");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 't' },
		{ "unit", required_argument, NULL, 'u' },
		{ "dense-max", required_argument, NULL, 'd' },
		{ "window", required_argument, NULL, 'w' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "region", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct hc_analysis_opts o = { .unit = -1, .diag = stderr };
	struct hc_analysis_result res;
	struct progress prog;
	char outbuf[4300], err[2048];
	const char *outdir = NULL, *region = NULL;
	bool quiet = false;
	const struct hc_analysis_comm *comm = NULL;
	int c, ret;

	hc_debug_init();               /* HC_DEBUG=merge,time (doc/hpcprof-comm.md) */
	while ((c = getopt_long(argc, argv, "o:fj:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			outdir = optarg;
			break;
		case 'f':
			o.force = true;
			break;
		case 'j':
			if (!parse_uint(optarg, 1, 1024, &o.jobs)) {
				fprintf(stderr, "hpcprof-comm: -j wants a number of threads from 1 to 1024, "
				        "not '%s'\n", optarg);
				return 2;
			}
			break;
		case 't':
			if (!parse_uint(optarg, 1, 1000000, &o.top)) {
				fprintf(stderr, "hpcprof-comm: --top wants a positive number, not '%s'\n",
				        optarg);
				return 2;
			}
			break;
		case 'u':
			if (strcmp(optarg, "ns") == 0) {
				o.unit = HC_UNIT_NS;
			} else if (strcmp(optarg, "transfers") == 0) {
				o.unit = HC_UNIT_TRANSFERS;
			} else {
				fprintf(stderr, "hpcprof-comm: --unit is 'ns' or 'transfers', not '%s'\n",
				        optarg);
				return 2;
			}
			break;
		case 'd':
			if (!parse_uint(optarg, 1, UINT32_MAX, &o.dense_max)) {
				fprintf(stderr, "hpcprof-comm: --dense-max wants a positive number, not "
				        "'%s'\n", optarg);
				return 2;
			}
			break;
		case 'w': {
			char *end = NULL;
			double ms = strtod(optarg, &end);
			if (!end || end == optarg || *end || !(ms >= 0.001) || ms > 1e9) {
				fprintf(stderr, "hpcprof-comm: --window wants milliseconds from 0.001 to "
				        "1e9, not '%s'\n", optarg);
				return 2;
			}
			o.window_ns = (uint64_t)(ms * 1e6 + 0.5);
			break;
		}
		case 'q':
			quiet = true;
			break;
		case 'r':
			region = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("hpcprof-comm %s\n", PACKAGE_VERSION);
			return 0;
		default:
			fputs("Try 'hpcprof-comm --help'.\n", stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs("hpcprof-comm: no measurement directory given\n"
		      "Usage: hpcprof-comm [OPTION]... MEASUREMENT-DIR...  (try --help)\n", stderr);
		return 2;
	}
	o.inputs = (const char *const *)argv + optind;
	o.ninputs = (size_t)(argc - optind);
	if (region && o.ninputs == 1 && is_database(o.inputs[0]))
		return print_region(o.inputs[0], region);

	if (!outdir) {
		ret = hc_analysis_default_outdir(o.inputs[0], outbuf, sizeof(outbuf));
		if (ret) {
			fprintf(stderr, "hpcprof-comm: cannot choose a database name for %s (%s); "
			        "give one with -o\n", o.inputs[0], strerror(-ret));
			return 1;
		}
		outdir = outbuf;
	}
	o.outdir = outdir;
	ret = prof_mpi_start(&argc, &argv, &comm);
	if (ret)
		return ret;
	o.comm = comm;
	if (comm && comm->rank != 0) {
		/* Rank 0 speaks for the run. */
		quiet = true;
		/* HC_DEBUG=time: every rank's phases (bench/prof-scale/mpi.sh). */
		o.diag = hc_debug_enabled(HC_DBG_TIME) ? stderr : NULL;
	}
	if (!quiet) {
		o.summary = stdout;
		if (isatty(STDERR_FILENO)) {
			clock_gettime(CLOCK_MONOTONIC, &prog.start);
			prog.shown = false;
			o.progress = show_progress;
			o.progress_arg = &prog;
		}
	}

	ret = hc_analysis_run(&o, &res, err, sizeof(err));
	if (ret) {
		if (comm)
			fprintf(stderr, "hpcprof-comm: rank %d: %s\n", comm->rank, err);
		else
			fprintf(stderr, "hpcprof-comm: %s\n", err);
		return prof_mpi_finish(1);
	}
	if (comm && comm->rank != 0)
		return prof_mpi_finish(0);
	if (!quiet)
		printf("\nDatabase: %s (%zu profile%s used, %zu skipped)\n", outdir, res.read,
		       res.read == 1 ? "" : "s", res.skipped);
	if (region) {
		if (!quiet)
			putchar('\n');
		return prof_mpi_finish(print_region(outdir, region));
	}
	return prof_mpi_finish(0);
}
