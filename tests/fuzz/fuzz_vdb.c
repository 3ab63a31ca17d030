/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_vdb.c — fuzz targets for the database reader (lib/db, hc_db_open), one per file it parses. Compiled once per target
   with FUZZ_VDB_FILE set to the file the input replaces (database.xml,
   experiment.xml, objects.xml, threads.csv or matrices/thread-all.csv) and
   FUZZ_VDB_NAME to the target's name (matrix_sparse: thread-all.csv in the
   sparse form, FUZZ_VDB_TEMPLATE "small-sparse"). On the first input the target copies a
   valid template database (the viewer fixture, tests/viewer/fixtures/small,
   found through HC_FUZZ_TEMPLATE or HC_SRCDIR) into a private temporary
   directory; each input then overwrites the one file and the whole database
   is opened, so the reader's cross-file checks see a consistent rest. An
   accepted database is also turned into the reports of lib/report (the JSON
   model and the text summary, which every output is made of), because the
   reports trust what the reader accepted. A rejection must come with a message naming a
   file of the database. No signal context. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz_target.h"
#include "db/db.h"
#include "report/report.h"

#ifndef FUZZ_VDB_FILE
#error "FUZZ_VDB_FILE must name the database file the input replaces"
#endif
/* The fixture the template is copied from (tests/viewer/fixtures/NAME):
   "small" (dense matrices), or "small-sparse" (its thread matrices in the
   sparse form) for the matrix_sparse target. */
#ifndef FUZZ_VDB_TEMPLATE
#define FUZZ_VDB_TEMPLATE "small"
#endif

const char fuzz_target_name[] = FUZZ_VDB_NAME;

static char dir[4096];
static FILE *devnull;

static void die(const char *what, const char *path)
{
	fprintf(stderr, "fuzz_%s: %s %s: %s\n", FUZZ_VDB_NAME, what, path, strerror(errno));
	abort();
}

static void copy_file(const char *from, const char *to)
{
	static char buf[65536];   /* setup only, single-threaded */
	ssize_t n;
	int in = open(from, O_RDONLY | O_CLOEXEC), out;

	if (in < 0)
		die("cannot open", from);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0)
		die("cannot create", to);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			die("cannot write", to);
	if (n < 0)
		die("cannot read", from);
	close(in);
	close(out);
}

static void cleanup(void)
{
	char cmd[4200];

	if (dir[0] && strncmp(dir, "/tmp/hc-fuzz-", 13) == 0) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "fuzz_%s: could not remove %s\n", FUZZ_VDB_NAME, dir);
	}
}

/* The template's files: everything the reader may open. */
static const char *const files[] = {
	"database.xml", "experiment.xml", "objects.xml", "threads.csv", "summary.txt",
	"matrices/thread-all.csv", "matrices/thread-true.csv", "matrices/thread-false.csv",
	"matrices/core-all.csv", "matrices/core-true.csv", "matrices/core-false.csv",
	"matrices/socket-all.csv", "matrices/socket-true.csv", "matrices/socket-false.csv",
	"matrices/numa-all.csv", "matrices/numa-true.csv", "matrices/numa-false.csv",
};

static void setup(void)
{
	const char *tmpl = getenv("HC_FUZZ_TEMPLATE"), *src = getenv("HC_SRCDIR");
	static char from[4096], to[8300], sub[4200], src_path[8300];  /* once per process */
	size_t i;

	if (!tmpl) {
		snprintf(from, sizeof(from), "%s/tests/viewer/fixtures/%s", src ? src : ".",
		         FUZZ_VDB_TEMPLATE);
		tmpl = from;
	} else {
		snprintf(from, sizeof(from), "%s", tmpl);
		tmpl = from;
	}
	snprintf(dir, sizeof(dir), "/tmp/hc-fuzz-%s-XXXXXX", FUZZ_VDB_NAME);
	if (!mkdtemp(dir))
		die("cannot create", dir);
	atexit(cleanup);
	snprintf(sub, sizeof(sub), "%s/matrices", dir);
	if (mkdir(sub, 0700) < 0)
		die("cannot create", sub);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(src_path, sizeof(src_path), "%s/%s", tmpl, files[i]);
		snprintf(to, sizeof(to), "%s/%s", dir, files[i]);
		copy_file(src_path, to);
	}
	devnull = fopen("/dev/null", "we");
	if (!devnull)
		die("cannot open", "/dev/null");
}

int fuzz_target_check(const uint8_t *data, size_t size, char *err, size_t errsz)
{
	char path[4400];
	struct hc_db *db = NULL;
	int fd, rc;

	if (!dir[0])
		setup();
	snprintf(path, sizeof(path), "%s/%s", dir, FUZZ_VDB_FILE);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		die("cannot write", path);
	close(fd);
	rc = hc_db_open(dir, &db, err, errsz);
	if (rc == 0) {
		hc_report_json(db, devnull, false);
		hc_report_json(db, devnull, true);
		{
			struct hc_report_text_opts t = { .width = HC_REPORT_WIDTH,
			                                 .level = HC_DB_LEVEL_THREAD,
			                                 .kind = HC_DB_KIND_ALL };
			hc_report_text(db, devnull, &t);
		}
		hc_db_close(db);
	} else if (db != NULL || err[0] == '\0' || strncmp(err, dir, strlen(dir)) != 0) {
		fprintf(stderr, "fuzz_%s: rejection (%d) without a message naming the file: \"%s\"\n",
		        FUZZ_VDB_NAME, rc, err);
		abort();
	}
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[2048];

	fuzz_target_check(data, size, err, sizeof(err));
	return 0;
}
