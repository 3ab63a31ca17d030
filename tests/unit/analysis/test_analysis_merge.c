/* SPDX-License-Identifier: BSD-3-Clause */
/* test_analysis_merge.c — the analyzer on a synthetic measurement with
   known answers (scenario.c): every matrix file is square, symmetric, with a
   zero diagonal and a well-formed header; the thread, core, socket and NUMA
   cells, totals, diagonals and unplaced weights are the hand-computed ones;
   threads.csv lists the eight threads (one without a profile) in global
   order; database.xml and experiment.xml validate against the shipped XSDs
   and carry the expected totals, unit and code pairs; summary.txt has the top
   tables; and two runs with different thread counts write identical files. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "db/db.h"
#include "db/format.h"
#include "report/report.h"
#include "hc_test.h"
#include "fixture.h"
#include "scenario.h"

static char *run(const char *meas, const char *work, const char *name, unsigned jobs)
{
	const char *inputs[1] = { meas };
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = 1, .jobs = jobs, .unit = -1,
	                              .diag = stderr };
	struct hc_analysis_result res;
	char err[1024];
	char *out = fx_join(work, name);
	int ret;

	o.outdir = out;
	ret = hc_analysis_run(&o, &res, err, sizeof(err));
	CHECK_MSG(ret == 0, "hc_analysis_run: %d %s", ret, err);
	CHECK_EQ_U64(res.found, SC_NPROFILES);
	CHECK_EQ_U64(res.read, SC_NPROFILES);
	CHECK_EQ_U64(res.skipped, 0);
	CHECK_EQ_U64(res.processes, 3);
	CHECK_EQ_U64(res.threads, 8);
	return out;
}

/* Every file in matrices/: the format rules of doc/database-format.md. */
static void check_all_matrices(const char *db, int expect_files)
{
	char *dir = fx_join(db, HC_DB_MATRICES);
	DIR *d = opendir(dir);
	struct dirent *e;
	int files = 0;

	CHECK(d != NULL);
	while (d && (e = readdir(d)) != NULL) {
		struct fx_matrix m;
		uint32_t i, j;
		char *path;

		if (e->d_name[0] == '.')
			continue;
		files++;
		path = fx_join(dir, e->d_name);
		CHECK_MSG(fx_read_matrix(path, &m), "%s: %s", path, m.why);
		for (i = 0; i < m.n; i++) {
			CHECK_MSG(fx_cell(&m, i, i) == 0, "%s: diagonal (%u,%u) not zero", path, i, i);
			for (j = 0; j < m.n; j++)
				CHECK_MSG(fx_cell(&m, i, j) == fx_cell(&m, j, i),
				          "%s: (%u,%u) != (%u,%u)", path, i, j, j, i);
		}
		fx_free_matrix(&m);
		free(path);
	}
	if (d)
		closedir(d);
	CHECK_EQ_U64(files, expect_files);
	free(dir);
}

struct cell {
	uint32_t i, j;
	uint64_t v;
};

/* The matrix has exactly these non-zero cells (upper triangle given). */
static void check_cells(const char *db, const char *file, uint32_t n, const struct cell *c,
                        size_t nc)
{
	char *dir = fx_join(db, HC_DB_MATRICES), *path = fx_join(dir, file);
	struct fx_matrix m;
	uint64_t sum = 0, want = 0;
	uint32_t i, j;
	size_t k;

	CHECK_MSG(fx_read_matrix(path, &m), "%s: %s", path, m.why);
	CHECK_MSG(m.n == n, "%s: n = %u, expected %u", file, m.n, n);
	if (m.ok && m.n == n) {
		for (k = 0; k < nc; k++) {
			CHECK_MSG(fx_cell(&m, c[k].i, c[k].j) == c[k].v, "%s (%u,%u) = %llu, expected %llu",
			          file, c[k].i, c[k].j, (unsigned long long)fx_cell(&m, c[k].i, c[k].j),
			          (unsigned long long)c[k].v);
			want += c[k].v;
		}
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				sum += fx_cell(&m, i, j);
		CHECK_MSG(sum == want, "%s: upper triangle sums to %llu, expected %llu", file,
		          (unsigned long long)sum, (unsigned long long)want);
	}
	fx_free_matrix(&m);
	free(path);
	free(dir);
}

static void check_matrices(const char *db)
{
	static const struct cell th_all[] = { { 3, 4, 7 }, { 3, 5, 3 }, { 4, 5, 130 }, { 0, 1, 50 },
	                                      { 0, 2, 11 }, { 6, 7, 5 } };
	static const struct cell th_true[] = { { 4, 5, 100 }, { 0, 1, 50 }, { 6, 7, 5 } };
	static const struct cell th_false[] = { { 3, 4, 7 }, { 3, 5, 3 }, { 4, 5, 30 }, { 0, 2, 11 } };
	static const struct cell core_all[] = { { 0, 1, 7 }, { 1, 2, 130 }, { 1, 3, 3 }, { 4, 5, 5 } };
	static const struct cell core_true[] = { { 1, 2, 100 }, { 4, 5, 5 } };
	static const struct cell core_false[] = { { 0, 1, 7 }, { 1, 2, 30 }, { 1, 3, 3 } };
	static const struct cell sock_all[] = { { 0, 1, 133 } };
	static const struct cell sock_true[] = { { 0, 1, 100 } };
	static const struct cell sock_false[] = { { 0, 1, 33 } };

	check_all_matrices(db, 12);
	check_cells(db, "thread-all.csv", 8, th_all, 6);
	check_cells(db, "thread-true.csv", 8, th_true, 3);
	check_cells(db, "thread-false.csv", 8, th_false, 4);
	/* Host 1's four PUs, then host 2's CPUs 0..1 (no topology). */
	check_cells(db, "core-all.csv", 6, core_all, 4);
	check_cells(db, "core-true.csv", 6, core_true, 2);
	check_cells(db, "core-false.csv", 6, core_false, 3);
	check_cells(db, "socket-all.csv", 2, sock_all, 1);
	check_cells(db, "socket-true.csv", 2, sock_true, 1);
	check_cells(db, "socket-false.csv", 2, sock_false, 1);
	/* One NUMA node per package in this topology: the same cells. */
	check_cells(db, "numa-all.csv", 2, sock_all, 1);
	check_cells(db, "numa-true.csv", 2, sock_true, 1);
	check_cells(db, "numa-false.csv", 2, sock_false, 1);
}

/* rank 0 (no MPI), the host by id (no topology in the fixture) */
#define HOST ",0,0a0b0c0d"

static void check_threads(const char *db, char **paths)
{
	char *path = fx_join(db, HC_DB_THREADS), *text = fx_read(path, NULL), *line, *save = NULL;
	char expect[8][1024];
	int i = 0;

	/* paths: A.T0, A.T1, A.T2, B.T0, B.T1, C.T0, C.T1 */
	snprintf(expect[0], 1024, "0,0,2000,0,2000,,,,3,soft,%u,%s" HOST, SC_PERIOD, paths[3]);
	snprintf(expect[1], 1024, "1,0,2000,1,2001,0,[libfoo.so+0x2500],%%,3,soft,%u,%s" HOST, SC_PERIOD,
	         paths[4]);
	snprintf(expect[2], 1024, "2,0,2000,5,,,,,,,," HOST);
	snprintf(expect[3], 1024, "3,1,1000,0,1000,,,,0-1,soft,%u,%s" HOST, SC_PERIOD, paths[0]);
	snprintf(expect[4], 1024, "4,1,1000,1,1001,3,[libfoo.so+0x2500],%%,1,soft,%u,%s" HOST, SC_PERIOD,
	         paths[1]);
	snprintf(expect[5], 1024, "5,1,1000,2,1002,3,[libfoo.so+0x2500],%%,2-3,soft,%u,%s" HOST, SC_PERIOD,
	         paths[2]);
	snprintf(expect[6], 1024, "6,2,3000,0,3000,,,,1,soft,%u,%s" ",0,11111111", SC_PERIOD, paths[5]);
	snprintf(expect[7], 1024, "7,2,3000,1,3001,6,[libfoo.so+0x2500],%%,0,soft,%u,%s" ",0,11111111", SC_PERIOD,
	         paths[6]);
	CHECK(text != NULL);
	if (!text)
		return;
	line = strtok_r(text, "\n", &save);
	CHECK_STR(line, HC_DB_THREADS_HEADER);
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		char *pct;

		if (i >= 8) {
			CHECK_MSG(0, "threads.csv: extra line %s", line);
			break;
		}
		/* '%' stands for the creation context: a node id, checked apart. */
		pct = strchr(expect[i], '%');
		if (pct) {
			size_t pre = (size_t)(pct - expect[i]);
			char *ln = line + pre, *end;
			unsigned long id = strtoul(ln, &end, 10);
			CHECK_MSG(strncmp(line, expect[i], pre) == 0, "threads.csv row %d: %s", i, line);
			CHECK_MSG(end > ln && id > 0, "threads.csv row %d: creation_context: %s", i, line);
			CHECK_STR(end, pct + 1);
		} else {
			CHECK_STR(line, expect[i]);
		}
		i++;
	}
	CHECK_EQ_U64(i, 8);
	free(text);
	free(path);
}

static void check_meta(const char *db)
{
	char *path = fx_join(db, HC_DB_META), *xsd = fx_doc(HC_DB_META_XSD);
	char *text = fx_read(path, NULL);

	CHECK_MSG(fx_validate(path, xsd) == 0, "%s", path);
	CHECK(text != NULL);
	if (text) {
		CHECK(strstr(text, "<Measurement unit=\"ns\"") != NULL);
		CHECK(strstr(text, "samplers=\"soft\"") != NULL);
		CHECK(strstr(text, "<Profiles found=\"7\" read=\"7\" skipped=\"0\">") != NULL);
		CHECK(strstr(text, "<Host i=\"0\" id=\"0a0b0c0d\" topology=") != NULL);
		CHECK(strstr(text, "pus=\"4\" cores=\"4\" sockets=\"2\" numa=\"2\"") != NULL);
		CHECK(strstr(text, "<Host i=\"1\" id=\"11111111\"/>") != NULL);
		CHECK(strstr(text, "<Process i=\"0\" host=\"0a0b0c0d\" rank=\"0\" pid=\"2000\"") != NULL);
		CHECK(strstr(text, "threads=\"3\" first-thread=\"0\"") != NULL);
		CHECK(strstr(text, "<Process i=\"2\" host=\"11111111\" rank=\"0\" pid=\"3000\"") != NULL);
		CHECK(strstr(text, "first-thread=\"3\" log=\"") != NULL);   /* process A */
		CHECK(strstr(text, "app-000000-0a0b0c0d-1000-0.log\"/>") != NULL);
		CHECK_EQ_U64(fx_count(text, " log=\""), 1);
		CHECK(strstr(text, "file=\"matrices/thread-all.csv\" unit=\"ns\" n=\"8\" total=\"206\" "
		                   "diagonal=\"0\" unplaced=\"0\"") != NULL);
		CHECK(strstr(text, "file=\"matrices/core-all.csv\" unit=\"ns\" n=\"6\" total=\"145\" "
		                   "diagonal=\"50\" unplaced=\"11\"") != NULL);
		CHECK(strstr(text, "file=\"matrices/socket-all.csv\" unit=\"ns\" n=\"2\" total=\"133\" "
		                   "diagonal=\"57\" unplaced=\"16\"") != NULL);
		CHECK(strstr(text, "file=\"matrices/socket-true.csv\" unit=\"ns\" n=\"2\" total=\"100\" "
		                   "diagonal=\"50\" unplaced=\"5\"") != NULL);
		CHECK(strstr(text, "<Label i=\"2\" host=\"0a0b0c0d\" cpu=\"2\" core=\"2\" socket=\"1\" "
		                   "numa=\"1\"/>") != NULL);
		CHECK(strstr(text, "<Label i=\"5\" host=\"11111111\" cpu=\"1\"/>") != NULL);
		CHECK(strstr(text, "<Totals all=\"206\" true=\"155\" false=\"51\" sample=\"156\" "
		                   "trap=\"50\" events=\"7\" event-weight=\"206\"/>") != NULL);
		CHECK(strstr(text, "<Counter n=\"samples\" v=\"70\"/>") != NULL);
		CHECK(strstr(text, "<Counter n=\"traps\" v=\"7\"/>") != NULL);
		CHECK(strstr(text, "<Warnings>") == NULL);
	}
	free(text);
	free(xsd);
	free(path);
}

static void check_experiment(const char *db)
{
	char *path = fx_join(db, HC_DB_EXPERIMENT), *xsd = fx_doc(HC_DB_EXPERIMENT_XSD);
	char *text = fx_read(path, NULL), *data;

	CHECK_MSG(fx_validate(path, xsd) == 0, "%s", path);
	CHECK(text != NULL);
	if (text) {
		CHECK(strstr(text, "<NV n=\"unit\" v=\"ns\"/>") != NULL);
		CHECK(strstr(text, "<Metric i=\"0\" n=\"comm-all (I)\" kind=\"all\" t=\"inclusive\" "
		                   "partner=\"1\" unit=\"ns\"/>") != NULL);
		CHECK(strstr(text, "<LoadModule i=\"1\" n=\"/nonexistent/lib/libfoo.so\"/>") != NULL);
		CHECK(strstr(text, "n=\"[libfoo.so+0x3200]\"") != NULL);
		/* Root metrics: inclusive all, true, false, sample, trap. */
		data = strstr(text, "<SecCallPathProfileData>\n");
		CHECK(data != NULL);
		if (data) {
			CHECK(strncmp(data + strlen("<SecCallPathProfileData>\n"),
			              "<M n=\"0\" v=\"206\"/>\n<M n=\"2\" v=\"155\"/>\n"
			              "<M n=\"4\" v=\"51\"/>\n<M n=\"6\" v=\"156\"/>\n<M n=\"8\" v=\"50\"/>\n",
			              strlen("<M n=\"0\" v=\"206\"/>\n<M n=\"2\" v=\"155\"/>\n"
			                     "<M n=\"4\" v=\"51\"/>\n<M n=\"6\" v=\"156\"/>\n"
			                     "<M n=\"8\" v=\"50\"/>\n")) == 0);
		}
		/* Merged: one frame for app+0x1000 although seven threads have it. */
		CHECK_EQ_U64(fx_count(text, "<Procedure i="), 8);   /* 0xfff, 0x1fff, 5 leaves, start */
		CHECK_EQ_U64(fx_count(text, "<S i="), 5);
		/* Code pairs: {0x3100, 0x3200} under both ends; the unknown peer once. */
		CHECK_EQ_U64(fx_count(text, "all=\"130\" true=\"100\" false=\"30\""), 2);
		CHECK_EQ_U64(fx_count(text, "all=\"50\" true=\"50\" false=\"0\""), 2);
		CHECK_EQ_U64(fx_count(text, "all=\"5\" true=\"5\" false=\"0\""), 1);
		CHECK_EQ_U64(fx_count(text, "all=\"11\" true=\"0\" false=\"11\""), 1);
		CHECK_EQ_U64(fx_count(text, "<CP "), 10);
		CHECK(strstr(text, "<CodePairTable top=\"10\">") != NULL);
	}
	free(text);
	free(xsd);
	free(path);
}

static void check_summary(const char *db)
{
	char *path = fx_join(db, HC_DB_SUMMARY), *text = fx_read(path, NULL);

	CHECK(text != NULL);
	if (text) {
		CHECK(strstr(text, "  threads   8 in 3 processes\n") != NULL);
		CHECK(strstr(text, "Top thread pairs") != NULL);
		CHECK(strstr(text, "Top code pairs") != NULL);
		CHECK(strstr(text, "Top functions") != NULL);
		/* The first thread pair is 4-5 with 130 of the 206. */
		CHECK(strstr(text, "  1  4 ↔ 5  130 ns") != NULL);
		CHECK(strstr(text, "[libfoo.so+0x3100] ↔ [libfoo.so+0x3200]") != NULL);
		CHECK(strstr(text, "(unknown: peer profile missing)") != NULL);
		CHECK(strstr(text, "note:") == NULL);   /* events and metrics agree */
	}
	free(text);
	free(path);
}

/* The same measurement given twice: two copies of every process (told apart
   by input directory, ordered by input after start time and pid), the
   second copy's threads after the first's in each tie, every cell found
   again in the second block. */
static void check_two_inputs(const char *work, const char *meas)
{
	char *meas2 = fx_join(work, "second-measurements"), *paths[SC_NPROFILES];
	char *db = fx_join(work, "db-two"), *dir, *path, err[1024];
	const char *inputs[2] = { meas, meas2 };
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = 2, .outdir = db, .jobs = 2,
	                              .unit = -1, .diag = stderr };
	struct hc_analysis_result res;
	struct fx_matrix m;
	int i;

	fx_mkdir(meas2);
	sc_write(meas2, paths);
	CHECK_MSG(hc_analysis_run(&o, &res, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ_U64(res.read, 2 * SC_NPROFILES);
	CHECK_EQ_U64(res.processes, 6);
	CHECK_EQ_U64(res.threads, 16);
	dir = fx_join(db, HC_DB_MATRICES);
	path = fx_join(dir, "thread-all.csv");
	CHECK_MSG(fx_read_matrix(path, &m), "%s", m.why);
	if (m.ok && m.n == 16) {
		/* Order: B (input 0), B (input 1), A, A, C, C: 3+3+3+3+2+2 threads. */
		CHECK_EQ_U64(fx_cell(&m, 0, 1), 50);     /* B.T0-B.T1, first copy */
		CHECK_EQ_U64(fx_cell(&m, 3, 4), 50);     /* second copy */
		CHECK_EQ_U64(fx_cell(&m, 0, 4), 0);      /* never across copies */
		CHECK_EQ_U64(fx_cell(&m, 7, 8), 130);    /* A.T1-A.T2 */
		CHECK_EQ_U64(fx_cell(&m, 10, 11), 130);
		CHECK_EQ_U64(fx_cell(&m, 12, 13), 5);    /* C */
		CHECK_EQ_U64(fx_cell(&m, 14, 15), 5);
	}
	fx_free_matrix(&m);
	free(path);
	path = fx_join(db, HC_DB_META);
	{
		char *text = fx_read(path, NULL), *xsd = fx_doc(HC_DB_META_XSD);
		CHECK(fx_validate(path, xsd) == 0);
		CHECK(text && fx_count(text, "<Input path=") == 2);
		CHECK(text && strstr(text, "total=\"412\"") != NULL);   /* twice 206 */
		free(text);
		free(xsd);
	}
	free(path);
	free(dir);
	for (i = 0; i < SC_NPROFILES; i++)
		free(paths[i]);
	free(db);
	free(meas2);
}

static void check_same(const char *a, const char *b, const char *name)
{
	char *pa = fx_join(a, name), *pb = fx_join(b, name);
	size_t la = 0, lb = 0;
	char *ta = fx_read(pa, &la), *tb = fx_read(pb, &lb);

	/* summary.txt names its database in its second line: compare after it */
	if (ta && tb && !strcmp(name, HC_DB_SUMMARY)) {
		char *ea = strstr(ta, "  database  "), *eb = strstr(tb, "  database  ");
		ea = ea ? strchr(ea, '\n') : NULL;
		eb = eb ? strchr(eb, '\n') : NULL;
		CHECK_MSG(ea && eb && strcmp(ea, eb) == 0, "%s differs between -j runs", name);
	} else {
		CHECK_MSG(ta && tb && la == lb && memcmp(ta, tb, la) == 0, "%s differs between -j runs",
		          name);
	}
	free(ta);
	free(tb);
	free(pa);
	free(pb);
}

/* The analyzer reads back what it wrote: lib/db's validating reader opens
   the database and finds the scenario's numbers (the totals, the thread
   matrix, the threads and processes); and summary.txt is, byte for byte,
   what lib/report makes of that reader's model at the width the analyzer
   uses (what viewer-export --text prints into a file or a pipe). */
static void check_roundtrip(const char *db)
{
	struct hc_report_text_opts t = { .db_name = db, .width = HC_REPORT_WIDTH,
	                                 .level = HC_DB_LEVEL_THREAD, .kind = HC_DB_KIND_ALL };
	char err[2048], *path = fx_join(db, HC_DB_SUMMARY), *want, *got = NULL;
	const struct hc_db_matrix *a;
	struct hc_db *v = NULL;
	size_t wlen = 0, glen = 0;
	FILE *m;

	CHECK_MSG(hc_db_open(db, &v, err, sizeof(err)) == 0, "read back: %s", err);
	if (!v) {
		free(path);
		return;
	}
	CHECK_EQ_U64(v->t_all, 206);
	CHECK_EQ_U64(v->t_true, 155);
	CHECK_EQ_U64(v->t_false, 51);
	CHECK_EQ_U64(v->t_sample, 156);
	CHECK_EQ_U64(v->t_trap, 50);
	CHECK_EQ_U64(v->events, 7);
	CHECK_EQ_U64(v->nthreads, 8);
	CHECK_EQ_U64(v->nprocs, 3);
	CHECK_EQ_U64(v->read, 7);
	a = &v->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_ALL];
	CHECK(a->present && a->n == 8 && a->total == 206);
	CHECK_EQ_U64(hc_db_matrix_at(a, 4, 5), 130);
	CHECK_EQ_U64(hc_db_matrix_at(a, 0, 1), 50);
	CHECK_EQ_U64(hc_db_matrix_at(a, 0, 2), 11);
	CHECK(v->has_objects);
	m = open_memstream(&got, &glen);
	CHECK(m && hc_report_text(v, m, &t) == 0);
	if (m)
		fclose(m);
	want = fx_read(path, &wlen);
	CHECK_MSG(want && got && wlen == glen && memcmp(want, got, wlen) == 0,
	          "summary.txt is not lib/report's text of the database:\n%s\n--- vs ---\n%s",
	          want ? want : "(none)", got ? got : "(none)");
	free(want);
	free(got);
	free(path);
	hc_db_close(v);
}

int main(void)
{
	char *work = fx_tmpdir("merge"), *meas = fx_join(work, "hpctoolkit-app-measurements");
	char *paths[SC_NPROFILES], *db1, *db3;
	int i;

	fx_mkdir(meas);
	sc_write(meas, paths);
	db1 = run(meas, work, "db-j1", 1);
	db3 = run(meas, work, "db-j3", 3);

	check_matrices(db1);
	check_threads(db1, paths);
	check_meta(db1);
	check_experiment(db1);
	check_summary(db1);
	check_roundtrip(db1);
	check_matrices(db3);

	check_same(db1, db3, HC_DB_THREADS);
	check_same(db1, db3, HC_DB_EXPERIMENT);
	check_same(db1, db3, HC_DB_SUMMARY);
	check_same(db1, db3, HC_DB_MATRICES "/thread-all.csv");
	check_same(db1, db3, HC_DB_MATRICES "/core-false.csv");
	check_same(db1, db3, HC_DB_META);
	check_two_inputs(work, meas);

	for (i = 0; i < SC_NPROFILES; i++)
		free(paths[i]);
	if (!hc_test_failures && !getenv("HC_KEEP_TMP"))
		fx_rm_rf(work);
	else
		fprintf(stderr, "kept %s for inspection\n", work);
	free(db1);
	free(db3);
	free(meas);
	free(work);
	return hc_test_done("test_analysis_merge");
}
