/* SPDX-License-Identifier: BSD-3-Clause */
/* test_analysis_units.c — the analyzer's small pieces on their own: file-name
   parsing (program names with dashes, wrong widths), the default database
   name, XML and CSV escaping (with invalid UTF-8 and control characters), the
   hash table under growth, the symmetric zero-diagonal matrix view of raw
   cells, and CPU placement from hwloc synthetic topologies. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "db/db.h"
#include "db/format.h"
#include "hc_test.h"
#include "fixture.h"

static void names(void)
{
	struct an_name n;
	uint32_t h;

	CHECK(scan__parse_profile_name("app-000000-003-0a1b2c3d-4242-1.hcprof", &n));
	CHECK(n.ok && n.rank == 0 && n.thread == 3 && n.hostid == 0x0a1b2c3du && n.pid == 4242 &&
	      n.gen == 1);
	CHECK(scan__parse_profile_name("my-prog-2-000000-1012-DEADBEEF-1-0.hcprof", &n));
	CHECK(n.thread == 1012 && n.hostid == 0xdeadbeefu && n.pid == 1 && n.gen == 0);
	CHECK(!scan__parse_profile_name("app-00000-003-0a1b2c3d-4242-1.hcprof", &n));   /* rank */
	CHECK(!scan__parse_profile_name("app-000000-03-0a1b2c3d-4242-1.hcprof", &n));   /* thread */
	CHECK(!scan__parse_profile_name("app-000000-003-0a1b2c3-4242-1.hcprof", &n));   /* host */
	CHECK(!scan__parse_profile_name("app-000000-003-0a1b2c3g-4242-1.hcprof", &n));
	CHECK(!scan__parse_profile_name("-000000-003-0a1b2c3d-4242-1.hcprof", &n));     /* no exe */
	CHECK(!scan__parse_profile_name("app-000000-003-0a1b2c3d-4242-.hcprof", &n));
	CHECK(!scan__parse_profile_name("app-000000-003-0a1b2c3d-99999999999-1.hcprof", &n));
	CHECK(!scan__parse_profile_name("app-000000-003-0a1b2c3d-4242-1.hcprofx", &n));
	CHECK(!scan__parse_profile_name(".hcprof", &n));
	CHECK(scan__parse_log_name("app-000000-0a1b2c3d-4242-0.log", &n));
	CHECK(n.hostid == 0x0a1b2c3du && n.pid == 4242 && n.gen == 0);
	CHECK(!scan__parse_log_name("app-000000-003-0a1b2c3d-4242.log", &n));
	CHECK(scan__parse_topology_name("topology-0a1b2c3d.xml", &h) && h == 0x0a1b2c3du);
	CHECK(!scan__parse_topology_name("topology-0a1b2c3.xml", &h));
	CHECK(!scan__parse_topology_name("xtopology-0a1b2c3d.xml", &h));
	CHECK(!scan__parse_topology_name("topology-x-0a1b2c3d.xml", &h));
}

static void default_outdir(void)
{
	char *work = fx_tmpdir("names"), old[4096], buf[4096];

	CHECK(getcwd(old, sizeof(old)) != NULL);
	CHECK(chdir(work) == 0);
	CHECK(hc_analysis_default_outdir("hpctoolkit-app-measurements", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "hpctoolkit-app-database");
	CHECK(hc_analysis_default_outdir("/x/y/hpctoolkit-app-measurements//", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "hpctoolkit-app-database");
	CHECK(hc_analysis_default_outdir("hpctoolkit-app-measurements-1234", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "hpctoolkit-app-database-1234");
	CHECK(hc_analysis_default_outdir("my-measurementsfoo", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "my-measurementsfoo-database");
	CHECK(hc_analysis_default_outdir("meas", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "meas-database");
	fx_mkdir("meas-database");
	fx_mkdir("meas-database-2");
	CHECK(hc_analysis_default_outdir("meas", buf, sizeof(buf)) == 0);
	CHECK_STR(buf, "meas-database-3");
	CHECK(hc_analysis_default_outdir("meas", buf, 4) == -ENAMETOOLONG);
	CHECK(chdir(old) == 0);
	fx_rm_rf(work);
	free(work);
}

static char *through_out(void (*put)(struct hc_out *, const char *), const char *s)
{
	struct hc_out o;
	char *buf = NULL;
	size_t len = 0;

	memset(&o, 0, sizeof(o));
	o.f = open_memstream(&buf, &len);
	put(&o, s);
	fclose(o.f);
	return buf;
}

static void escaping(void)
{
	char *s, fix[] = "ok \xc3\xa9 \xff bad \xe2\x82 \xf0\x9f\x98\x80 \xed\xa0\x80 end";

	s = through_out(hc_out_xml, "a<b>&\"'\t\n\x01 \xc3\xa9\xff");
	CHECK_STR(s, "a&lt;b&gt;&amp;&quot;&apos;&#9;&#10;? \xc3\xa9?");
	free(s);
	s = through_out(hc_out_xml, "\xef\xbf\xbe\xef\xbf\xbd");   /* U+FFFE is not XML, U+FFFD is */
	CHECK_STR(s, "???\xef\xbf\xbd");
	free(s);
	s = through_out(hc_out_csv, "plain name");
	CHECK_STR(s, "plain name");
	free(s);
	s = through_out(hc_out_csv, "foo<int, int>");
	CHECK_STR(s, "\"foo<int, int>\"");
	free(s);
	s = through_out(hc_out_csv, "say \"hi\"\n");
	CHECK_STR(s, "\"say \"\"hi\"\"\n\"");
	free(s);
	hc_utf8_fix(fix);
	CHECK_STR(fix, "ok \xc3\xa9 ? bad ?? \xf0\x9f\x98\x80 ??? end");
}

static void hashing(void)
{
	struct hmap h;
	struct agg g;
	uint32_t i, idx;
	bool ok = true;

	CHECK(hmap__init(&h, 1) == 0);
	for (i = 0; i < 200000 && ok; i++) {
		struct hkey k = { i * 7919u, i % 13, (uint64_t)i << 40 };
		ok = hmap__intern(&h, &k, &idx) == 1 && idx == i;
	}
	CHECK(ok);
	for (i = 0; i < 200000 && ok; i++) {
		struct hkey k = { i * 7919u, i % 13, (uint64_t)i << 40 };
		ok = hmap__find(&h, &k, &idx) && idx == i && hmap__intern(&h, &k, &idx) == 0;
	}
	CHECK(ok);
	{
		struct hkey k = { 1, 2, 3 };
		CHECK(!hmap__find(&h, &k, &idx));
	}
	CHECK_EQ_U64(h.n, 200000);
	hmap__free(&h);

	CHECK(agg__init(&g, 4) == 0);
	for (i = 0; i < 1000; i++) {
		struct hkey k = { i % 10, 0, 0 };
		CHECK(agg__add(&g, &k, 1, i) == 0);
	}
	CHECK_EQ_U64(g.h.n, 10);
	CHECK_EQ_U64(g.v[3][0], 100);
	CHECK_EQ_U64(g.v[3][1], 3 * 100 + 10 * (99 * 100 / 2));
	agg__free(&g);
}

static void matrix_view(void)
{
	uint64_t t[16], f[16];
	struct levels lv;
	struct matrix *m = &lv.m[HC_DB_LEVEL_THREAD];
	uint32_t i, j;
	unsigned seed = 7;
	uint64_t sum = 0;

	memset(&lv, 0, sizeof(lv));
	CHECK(matrix__init(m, HC_DB_LEVEL_THREAD, 4) == 0);
	for (i = 0; i < 16; i++) {
		seed = seed * 1103515245u + 12345u;
		t[i] = seed % 1000;
		seed = seed * 1103515245u + 12345u;
		f[i] = seed % 1000;
		CHECK(matrix__add(m, i / 4, i % 4, t[i], f[i]) == 0);
	}
	CHECK(matrix__finish(m) == 0);
	for (i = 0; i < 4; i++) {
		CHECK(matrix__cell(m, HC_DB_KIND_ALL, i, i) == 0);
		for (j = 0; j < 4; j++) {
			CHECK(matrix__cell(m, HC_DB_KIND_ALL, i, j) == matrix__cell(m, HC_DB_KIND_ALL, j, i));
			if (i != j) {
				CHECK(matrix__cell(m, HC_DB_KIND_TRUE, i, j) == t[i * 4 + j] + t[j * 4 + i]);
				CHECK(matrix__cell(m, HC_DB_KIND_ALL, i, j) ==
				      matrix__cell(m, HC_DB_KIND_TRUE, i, j) +
				      matrix__cell(m, HC_DB_KIND_FALSE, i, j));
				if (i < j)
					sum += t[i * 4 + j] + t[j * 4 + i];
			}
		}
	}
	CHECK_EQ_U64(m->diag[0], t[0] + t[5] + t[10] + t[15]);
	CHECK_EQ_U64(m->diag[1], f[0] + f[5] + f[10] + f[15]);
	CHECK_EQ_U64(matrix__total(m, HC_DB_KIND_TRUE), sum);
	CHECK(matrix__cell(m, HC_DB_KIND_ALL, 0, 9) == 0);   /* out of range */
	matrix__free(&lv);
}

/* A matrix with a million rows and a few cells: the memory is the row
   offsets and the cells (a dense one would be 8 TB), and both file forms say
   the same. */
static void matrix_sparse(void)
{
	static const char want_sparse[] = HC_DB_SPARSE_HEADER "\n0,999999,3\n5,6,15\n";
	static const char want_dense[] = ",0,1,2\n0,0,5,0\n1,5,0,0\n2,0,0,0\n";
	char *work = fx_tmpdir("msparse"), *path, err[256], *text;
	struct levels lv;
	struct matrix *m = &lv.m[HC_DB_LEVEL_THREAD];

	memset(&lv, 0, sizeof(lv));
	CHECK(matrix__init(m, HC_DB_LEVEL_THREAD, 1000000) == 0);
	CHECK(matrix__add(m, 6, 5, 10, 1) == 0);
	CHECK(matrix__add(m, 5, 6, 5, 0) == 0);
	CHECK(matrix__add(m, 400000, 5, 0, 7) == 0);
	CHECK(matrix__add(m, 999999, 0, 3, 0) == 0);
	CHECK(matrix__add(m, 7, 7, 2, 0) == 0);
	CHECK(matrix__add(m, 8, 9, 0, 0) == 0);   /* zero: no cell */
	CHECK(matrix__finish(m) == 0);
	CHECK_EQ_U64(m->ncell, 3);
	CHECK_EQ_U64(matrix__cell(m, HC_DB_KIND_ALL, 6, 5), 16);
	CHECK_EQ_U64(matrix__cell(m, HC_DB_KIND_TRUE, 5, 6), 15);
	CHECK_EQ_U64(matrix__cell(m, HC_DB_KIND_FALSE, 5, 400000), 7);
	CHECK_EQ_U64(matrix__cell(m, HC_DB_KIND_ALL, 0, 999999), 3);
	CHECK_EQ_U64(matrix__cell(m, HC_DB_KIND_ALL, 8, 9), 0);
	CHECK_EQ_U64(matrix__total(m, HC_DB_KIND_ALL), 26);
	CHECK_EQ_U64(m->diag[0], 2);
	{
		char *md = fx_join(work, HC_DB_MATRICES);
		fx_mkdir(md);
		free(md);
	}
	CHECK_MSG(matrix__write(m, HC_DB_KIND_TRUE, 1024, work, err, sizeof(err)) == 0, "%s", err);
	path = fx_join(work, HC_DB_MATRICES "/thread-true.csv");
	text = fx_read(path, NULL);
	CHECK_MSG(text && strcmp(text, want_sparse) == 0, "got '%s'", text ? text : "(none)");
	free(text);
	matrix__free(&lv);

	/* The dense form of a small one: symmetric, zero diagonal. */
	CHECK(matrix__init(m, HC_DB_LEVEL_THREAD, 3) == 0);
	CHECK(matrix__add(m, 1, 0, 2, 3) == 0);
	CHECK(matrix__add(m, 2, 2, 9, 9) == 0);
	CHECK(matrix__finish(m) == 0);
	CHECK_MSG(matrix__write(m, HC_DB_KIND_ALL, 3, work, err, sizeof(err)) == 0, "%s", err);
	free(path);
	path = fx_join(work, HC_DB_MATRICES "/thread-all.csv");
	text = fx_read(path, NULL);
	CHECK_MSG(text && strcmp(text, want_dense) == 0, "got '%s'", text ? text : "(none)");
	free(text);
	matrix__free(&lv);
	fx_rm_rf(work);
	free(path);
	free(work);
}

static void topology(void)
{
	char *work = fx_tmpdir("topo"), *path = fx_join(work, "topology-00000001.xml"), err[512];
	struct topo *t = NULL;
	const struct topo_pu *pu;

	fx_write_topology(work, 1, "pack:2 [numa] core:2 pu:2");
	CHECK_MSG(topo__load(path, &t, err, sizeof(err)) == 0, "%s", err);
	if (t) {
		CHECK_EQ_U64(t->npu, 8);
		CHECK_EQ_U64(t->ncores, 4);
		CHECK_EQ_U64(t->nsockets, 2);
		CHECK_EQ_U64(t->nnuma, 2);
		pu = topo__pu(t, 5);
		CHECK(pu && pu->core == 2 && pu->socket == 1 && pu->numa == 1);
		pu = topo__pu(t, 1);
		CHECK(pu && pu->core == 0 && pu->socket == 0 && pu->numa == 0);
		CHECK(topo__pu(t, 8) == NULL);
		CHECK(topo__pu(t, -1) == NULL);
		topo__free(t);
	}
	fx_write_file(path, "<topology>", 10);
	CHECK(topo__load(path, &t, err, sizeof(err)) < 0 && t == NULL);
	CHECK(strstr(err, path) != NULL);
	fx_rm_rf(work);
	free(path);
	free(work);
}

/* §5.61: a lock set's trap (HC_COMM_LOCK) weighs its capped hand-offs;
   the analyzer scales it by its process's hand-offs against what the caps
   let weigh (the counters lock_scale_handoffs, lock_scale_weighed summed
   over the process's threads); other events, and a process without the
   counters, keep their weights. */
static void lock_weights(void)
{
	char *work = fx_tmpdir("lockw"), *meas = fx_join(work, "hpctoolkit-app-measurements");
	char *db = fx_join(work, "db"), *mp = NULL;
	const char *inputs[1] = { meas };
	struct hc_prof_module mod = { .id = 0, .base = 0x400000, .lo = 0x400000, .hi = 0x500000,
	                              .path = "/nonexistent/bin/app" };
	/* the detecting context's metrics as the runtime keeps them: T0's
	   events' weights (record.c), the others' nothing */
	struct hc_prof_node nodes[2][2] = {
		{ { .id = 0, .parent = HC_NONE, .lm = HC_NONE },
		  { .id = 1, .parent = 0, .lm = 0, .flags = HC_NODE_LEAF, .offset = 0x1234,
		    .m = { [HC_M_TRUE_SAMPLE] = 1000, [HC_M_FALSE_TRAP] = 640 } } },
		{ { .id = 0, .parent = HC_NONE, .lm = HC_NONE },
		  { .id = 1, .parent = 0, .lm = 0, .flags = HC_NODE_LEAF, .offset = 0x1234 } },
	};
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = 1, .outdir = db, .jobs = 2, .unit = -1 };
	struct hc_analysis_result res;
	struct fx_matrix m;
	char err[512] = "";

	/* the pure part: scaled by all / weighed, never down, saturating */
	CHECK_EQ_U64(merge__lock_weight(640, 400, 200), 1280);
	CHECK_EQ_U64(merge__lock_weight(640, 0, 0), 640);
	CHECK_EQ_U64(merge__lock_weight(640, 100, 200), 640);
	CHECK_EQ_U64(merge__lock_weight(640, 200, 200), 640);
	CHECK_EQ_U64(merge__lock_weight(100, 1000, 3), 33333);
	CHECK_EQ_U64(merge__lock_weight(UINT64_MAX / 2, 4, 1), UINT64_MAX);

	/* two processes of three threads; T0 of each: a lock trap to T1 (640,
	   false) and a sample to T2 (1000, true); counters of pid 4242's
	   threads: 300/100, 100/100, none (factor 2); pid 4343 has none */
	fx_mkdir(meas);
	for (uint32_t pid = 4242; pid <= 4343; pid += 101)
		for (uint32_t t = 0; t < 3; t++) {
			struct fx_prof p;
			struct hc_prof_event ev[2] = {
				{ .time = 2000, .weight = 640, .addr = 0x7f0000001000ull, .peer_addr = 0x7f0000001008ull,
				  .len = 8, .peer_len = 8, .peer = 1, .cpu = -1, .peer_cpu = -1, .ctx = 1, .peer_ctx = 1,
				  .flags = HC_COMM_TRAP | HC_COMM_LOCK | HC_COMM_PEER_STORE },
				{ .time = 2100, .weight = 1000, .addr = 0x7f0000002000ull, .peer_addr = 0x7f0000002000ull,
				  .len = 8, .peer_len = 8, .peer = 2, .cpu = -1, .peer_cpu = -1, .ctx = 1, .peer_ctx = 1,
				  .flags = HC_COMM_TRUE | HC_COMM_PEER_STORE },
			};
			struct fx_counter cn[2] = { { "lock_scale_handoffs", t ? 100 : 300 },
			                            { "lock_scale_weighed", 100 } };

			memset(&p, 0, sizeof p);
			p.th = (struct hc_prof_thread){ .index = t, .creator = t ? 0 : HC_NONE, .pid = pid,
			                                .tid = pid + t, .sampler = HC_SAMPLER_SOFT,
			                                .unit = HC_UNIT_NS, .period = 1,
			                                .creation_ctx = t ? 1 : HC_NONE, .start_lm = HC_NONE,
			                                .start_ns = 1000, .end_ns = 3000 };
			snprintf(p.th.exe, sizeof p.th.exe, "/nonexistent/bin/app");
			p.hostid = 0x0a0b0c0du;
			p.mods = &mod;
			p.nmods = 1;
			p.nodes = nodes[t ? 1 : 0];
			p.nnodes = 2;
			p.evs = ev;
			p.nevs = t == 0 ? 2 : 0;
			p.cnts = cn;
			p.ncnts = pid == 4242 && t < 2 ? 2 : 0;
			free(fx_write_profile(meas, &p));
		}
	CHECK_MSG(hc_analysis_run(&o, &res, err, sizeof err) == 0, "analysis: %s", err);
	mp = fx_join(db, HC_DB_MATRICES "/thread-all.csv");
	CHECK_MSG(fx_read_matrix(mp, &m), "%s: %s", mp, m.why);
	if (m.ok && m.n == 6) {
		/* global threads: pid 4242's 0-2, then pid 4343's 3-5 */
		CHECK_EQ_U64(fx_cell(&m, 0, 1), 1280);
		CHECK_EQ_U64(fx_cell(&m, 0, 2), 1000);
		CHECK_EQ_U64(fx_cell(&m, 3, 4), 640);
		CHECK_EQ_U64(fx_cell(&m, 3, 5), 1000);
	} else {
		CHECK_MSG(0, "%s: %u threads", mp, m.n);
	}
	fx_free_matrix(&m);
	free(mp);
	mp = fx_join(db, HC_DB_MATRICES "/thread-false.csv");
	CHECK_MSG(fx_read_matrix(mp, &m), "%s: %s", mp, m.why);
	if (m.ok && m.n == 6) {
		CHECK_EQ_U64(fx_cell(&m, 0, 1), 1280);
		CHECK_EQ_U64(fx_cell(&m, 0, 2), 0);
	}
	fx_free_matrix(&m);
	free(mp);
	/* the contexts' metrics carry the scaling too: the totals are the
	   events' (2 x 1000 + 1280 + 640; the trap part 1280 + 640) */
	{
		struct hc_db *d = NULL;

		CHECK_MSG(hc_db_open(db, &d, err, sizeof err) == 0, "%s", err);
		if (d) {
			CHECK_EQ_U64(d->event_weight, 3920);
			CHECK_EQ_U64(d->t_all, 3920);
			CHECK_EQ_U64(d->t_trap, 1920);
			CHECK_EQ_U64(d->t_false, 1920);
			hc_db_close(d);
		}
	}
	fx_rm_rf(work);
	free(db);
	free(meas);
	free(work);
}

int main(void)
{
	lock_weights();
	names();
	default_outdir();
	escaping();
	hashing();
	matrix_view();
	matrix_sparse();
	topology();
	return hc_test_done("test_analysis_units");
}
