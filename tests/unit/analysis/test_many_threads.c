/* SPDX-License-Identifier: BSD-3-Clause */
/* test_many_threads.c — a measurement of 20,000 threads of one process
   (profiles written with the real profile writer) through hpcprof-comm's
   library under an address-space limit of 1.5 GiB, where dense thread
   matrices (20,000² × 16 bytes) alone would need 6.4 GB; then the database
   through the viewer's reader and viewer-export. Every thread t sends 10 to
   thread t+1 (mod N; true when t is even) and every thread but 0 sends 1 to
   thread 0 (false), so the cells, totals and the top threads are known. The
   limit is skipped under AddressSanitizer (its shadow memory is terabytes of
   address space). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "analysis/analysis.h"
#include "db/format.h"
#include "hc_test.h"
#include "fixture.h"
#include "db/db.h"

#define N 20000u

#if defined(__SANITIZE_ADDRESS__)
#define HC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HC_ASAN 1
#endif
#endif

static void write_profiles(const char *meas)
{
	struct hc_prof_module mods[1] = { { .id = 0, .path = "/nonexistent/many" } };
	struct hc_prof_node nodes[2] = {
		{ .id = 0, .parent = HC_NONE, .lm = HC_NONE },
		{ .id = 1, .parent = 0, .lm = 0, .offset = 0x10, .flags = HC_NODE_LEAF,
		  .m = { 1, 0, 0, 0 } },
	};
	struct hc_prof_event evs[2];
	struct fx_prof p;

	for (uint32_t t = 0; t < N; t++) {
		memset(&p, 0, sizeof(p));
		memset(evs, 0, sizeof(evs));
		p.th = (struct hc_prof_thread){ .index = t, .creator = t ? 0 : HC_NONE, .pid = 100,
		                                .tid = 100 + t, .sampler = HC_SAMPLER_SOFT,
		                                .unit = HC_UNIT_NS, .start_ns = 1000 + t };
		snprintf(p.th.exe, sizeof(p.th.exe), "/nonexistent/many");
		p.hostid = 1;
		p.mods = mods;
		p.nmods = 1;
		p.nodes = nodes;
		p.nnodes = 2;
		evs[0] = (struct hc_prof_event){ .weight = 10, .peer = (t + 1) % N, .cpu = (int)(t % 4),
		                                 .peer_cpu = (int)((t + 1) % 4), .ctx = 1, .peer_ctx = 1,
		                                 .flags = t % 2 ? 0 : HC_COMM_TRUE, .len = 8,
		                                 .peer_len = 8 };
		evs[1] = (struct hc_prof_event){ .weight = 1, .peer = 0, .cpu = -1, .peer_cpu = -1,
		                                 .ctx = 1, .peer_ctx = 1, .len = 8, .peer_len = 8 };
		p.evs = evs;
		p.nevs = t ? 2 : 1;
		free(fx_write_profile(meas, &p));
	}
}

static void limit_memory(void)
{
#ifndef HC_ASAN
	struct rlimit r = { 1536ul << 20, 1536ul << 20 };

	CHECK(setrlimit(RLIMIT_AS, &r) == 0);
#else
	printf("# AddressSanitizer build: no address-space limit\n");
#endif
}

static void check_viewer(const char *db)
{
	struct hc_db *v = NULL;
	const struct hc_db_matrix *a, *t, *f;
	char err[2048];

	CHECK_MSG(hc_db_open(db, &v, err, sizeof(err)) == 0, "%s", err);
	if (!v)
		return;
	a = &v->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_ALL];
	t = &v->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_TRUE];
	f = &v->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_FALSE];
	CHECK(a->sparse && t->sparse && f->sparse);
	CHECK_EQ_U64(a->n, N);
	CHECK_EQ_U64(a->ncells, 2 * N - 3);
	CHECK_EQ_U64(a->total, 10ull * N + (N - 1));
	CHECK_EQ_U64(t->total, 10ull * N / 2);
	CHECK_EQ_U64(hc_db_matrix_at(a, 0, 1), 11);
	CHECK_EQ_U64(hc_db_matrix_at(a, 1, 0), 11);
	CHECK_EQ_U64(hc_db_matrix_at(a, 0, N - 1), 11);
	CHECK_EQ_U64(hc_db_matrix_at(a, 500, 501), 10);
	CHECK_EQ_U64(hc_db_matrix_at(t, 500, 501), 10);
	CHECK_EQ_U64(hc_db_matrix_at(f, 501, 502), 10);
	CHECK_EQ_U64(hc_db_matrix_at(f, 0, 777), 1);
	CHECK_EQ_U64(hc_db_matrix_at(a, 5, 7), 0);
	CHECK_EQ_U64(v->nthreads, N);
	hc_db_close(v);
}

static void check_export(const char *db, const char *work)
{
	const char *b = getenv("HC_BUILDDIR");
	char cmd[8192], line[1024];
	bool top = false, note = false, first = false;
	FILE *p;
	char *csv = fx_join(work, "csv"), *path, *text;

	snprintf(cmd, sizeof(cmd), "'%s/viewer-export/viewer-export' --text --width=100 '%s'",
	         b && *b ? b : ".", db);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	while (p && fgets(line, sizeof(line), p)) {
		top |= strstr(line, "Top thread indexes") != NULL &&
		       strstr(line, "20000×20000 is too large for a grid") != NULL;
		note |= strstr(line, "(only the 10 of 20000 thread indexes with the most all") != NULL;
		/* thread 0 first: 19,999 events of 1 ns and two cells of 10 */
		first |= strstr(line, "   1      0  20.0 us  10 ns  20.0 us") != NULL;
	}
	CHECK(p && pclose(p) == 0);
	CHECK(top);
	CHECK(note);
	CHECK(first);
	snprintf(cmd, sizeof(cmd), "'%s/viewer-export/viewer-export' --csv '%s' '%s'",
	         b && *b ? b : ".", csv, db);
	CHECK(system(cmd) == 0);
	path = fx_join(csv, "pairs-thread.csv");
	text = fx_read(path, NULL);
	CHECK(text != NULL);
	if (text) {
		size_t lines = 0;
		for (char *s = text; *s; s++)
			lines += *s == '\n';
		CHECK_EQ_U64(lines, 1 + (2 * N - 3));   /* non-zero pairs only */
	}
	free(text);
	free(path);
	free(csv);
}

int main(void)
{
	char *work = fx_tmpdir("many"), *meas = fx_join(work, "m"), *db = fx_join(work, "db");
	const char *inputs[1] = { meas };
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = 1, .outdir = db, .jobs = 2,
	                              .unit = -1, .diag = stderr };
	struct hc_analysis_result res;
	char err[2048], *meta, *text;

	fx_mkdir(meas);
	write_profiles(meas);
	limit_memory();
	CHECK_MSG(hc_analysis_run(&o, &res, err, sizeof(err)) == 0, "%s", err);
	CHECK_EQ_U64(res.read, N);
	CHECK_EQ_U64(res.threads, N);
	meta = fx_join(db, HC_DB_META);
	text = fx_read(meta, NULL);
	CHECK(text && strstr(text, "n=\"20000\" format=\"sparse\" total=\"219999\"") != NULL);
	{
		char *xsd = fx_doc(HC_DB_META_XSD);
		CHECK(fx_validate(meta, xsd) == 0);
		free(xsd);
	}
	free(text);
	free(meta);
	meta = fx_join(db, HC_DB_SUMMARY);
	text = fx_read(meta, NULL);
	/* lib/report's text: the top pairs, then the top indexes (no grid) */
	CHECK(text && strstr(text, "   1  0 ↔ 1 ") != NULL);
	CHECK(text && strstr(text, "Top thread indexes (by all; 20000×20000 is too large for a grid)"));
	free(text);
	free(meta);
	check_viewer(db);
	check_export(db, work);
	if (!hc_test_failures && !getenv("HC_KEEP_TMP"))
		fx_rm_rf(work);
	free(db);
	free(meas);
	free(work);
	return hc_test_done("test_many_threads");
}
