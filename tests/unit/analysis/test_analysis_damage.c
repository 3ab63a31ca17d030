/* SPDX-License-Identifier: BSD-3-Clause */
/* test_analysis_damage.c — bad inputs and bad outputs. A measurement with
   the seven good scenario profiles plus a truncated, a bit-flipped, a garbage,
   an empty and an unknown-version profile, a directory named like a profile
   and a profile in another unit: each bad one is reported by file name with
   its reason and listed in database.xml, and the good ones merge to the same
   matrices as without them. Then: hundreds of random truncations and bit flips
   never crash the merge; a profile that passes the reader but names absurd
   peers, CPUs, contexts and creators is merged with a warning; nothing usable
   is an error with no output left behind; an existing output directory is
   never overwritten without force, and force replaces only a database or an
   empty directory; an unwritable output is reported with its path. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "db/format.h"
#include "hc_test.h"
#include "fixture.h"
#include "scenario.h"

struct run {
	int ret;
	char err[2048];
	char *diag;          /* what was reported */
	struct hc_analysis_result res;
};

static void run(const char *const *inputs, size_t n, const char *out, bool force, int unit,
                struct run *r)
{
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = n, .outdir = out, .force = force,
	                              .jobs = 2, .unit = unit };
	FILE *diag = tmpfile();
	long len;

	memset(r, 0, sizeof(*r));
	o.diag = diag;
	r->ret = hc_analysis_run(&o, &r->res, r->err, sizeof(r->err));
	fflush(diag);
	len = ftell(diag);
	r->diag = calloc(1, (size_t)(len > 0 ? len : 0) + 1);
	rewind(diag);
	if (len > 0 && fread(r->diag, 1, (size_t)len, diag) != (size_t)len)
		r->diag[0] = '\0';
	fclose(diag);
}

static char *copy_profile(const char *dir, const char *src, const char *name, size_t keep,
                          long flip_at, uint32_t version)
{
	size_t len;
	char *data = fx_read(src, &len), *path = fx_join(dir, name);

	if (keep < len)
		len = keep;
	if (flip_at >= 0 && (size_t)flip_at < len)
		data[flip_at] ^= 0x10;
	if (version && len >= 12)
		memcpy(data + 8, &version, 4);   /* the version field (doc/profile-format.md) */
	fx_write_file(path, data, len);
	free(data);
	return path;
}

static void check_matrix_cell(const char *db, const char *file, uint32_t i, uint32_t j, uint64_t v)
{
	char *dir = fx_join(db, HC_DB_MATRICES), *path = fx_join(dir, file);
	struct fx_matrix m;

	CHECK_MSG(fx_read_matrix(path, &m), "%s: %s", path, m.why);
	if (m.ok)
		CHECK_MSG(i < m.n && j < m.n && fx_cell(&m, i, j) == v && fx_cell(&m, j, i) == v,
		          "%s (%u,%u) != %llu", file, i, j, (unsigned long long)v);
	fx_free_matrix(&m);
	free(path);
	free(dir);
}

static void check_symmetric_all(const char *db)
{
	static const char *const files[] = { "thread-all.csv", "thread-true.csv", "thread-false.csv",
	                                     "core-all.csv", "core-true.csv", "core-false.csv" };
	char *dir = fx_join(db, HC_DB_MATRICES);
	size_t k;

	for (k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		char *path = fx_join(dir, files[k]);
		struct fx_matrix m;
		uint32_t i, j;

		CHECK_MSG(fx_read_matrix(path, &m), "%s: %s", path, m.why);
		for (i = 0; i < m.n; i++)
			for (j = 0; j < m.n; j++)
				CHECK(fx_cell(&m, i, j) == fx_cell(&m, j, i) && fx_cell(&m, i, i) == 0);
		fx_free_matrix(&m);
		free(path);
	}
	free(dir);
}

static void damaged_inputs(const char *work)
{
	char *meas = fx_join(work, "hpctoolkit-app-measurements"), *db = fx_join(work, "db");
	char *paths[SC_NPROFILES], *bad[7], *meta, *text, *xsd;
	const char *inputs[1] = { meas };
	struct hc_prof_module mod = { .id = 0, .path = "/nonexistent/bin/app" };
	struct hc_prof_node root = { .id = 0, .parent = HC_NONE, .lm = HC_NONE };
	struct fx_prof p;
	struct run r;
	size_t len, k;
	char *good;

	fx_mkdir(meas);
	sc_write(meas, paths);
	good = fx_read(paths[0], &len);
	free(good);
	bad[0] = copy_profile(meas, paths[0], "app-000000-000-0a0b0c0d-4001-0.hcprof", len / 2, -1, 0);
	bad[1] = copy_profile(meas, paths[0], "app-000000-000-0a0b0c0d-4002-0.hcprof", len,
	                      (long)len / 2, 0);
	bad[2] = fx_join(meas, "app-000000-000-0a0b0c0d-4003-0.hcprof");
	fx_write_file(bad[2], "this is not a profile at all, just some text\n", 46);
	bad[3] = copy_profile(meas, paths[0], "app-000000-000-0a0b0c0d-4004-0.hcprof", len, -1, 99);
	bad[4] = fx_join(meas, "app-000000-000-0a0b0c0d-4005-0.hcprof");
	fx_write_file(bad[4], "", 0);
	bad[5] = fx_join(meas, "app-000000-000-0a0b0c0d-4006-0.hcprof");
	fx_mkdir(bad[5]);
	memset(&p, 0, sizeof(p));
	p.th = (struct hc_prof_thread){ .index = 0, .creator = HC_NONE, .pid = 4007, .tid = 4007,
	                                .sampler = HC_SAMPLER_PEBS, .unit = HC_UNIT_TRANSFERS,
	                                .creation_ctx = HC_NONE, .start_lm = HC_NONE };
	snprintf(p.th.exe, sizeof(p.th.exe), "/nonexistent/bin/app");
	p.hostid = SC_HOST1;
	p.mods = &mod;
	p.nmods = 1;
	p.nodes = &root;
	p.nnodes = 1;
	bad[6] = fx_write_profile(meas, &p);

	run(inputs, 1, db, false, -1, &r);
	CHECK_MSG(r.ret == 0, "run: %s", r.err);
	CHECK_EQ_U64(r.res.found, SC_NPROFILES + 7);
	CHECK_EQ_U64(r.res.read, SC_NPROFILES);
	CHECK_EQ_U64(r.res.skipped, 7);
	for (k = 0; k < 7; k++)
		CHECK_MSG(strstr(r.diag, bad[k]) != NULL, "%s not reported:\n%s", bad[k], r.diag);
	CHECK(strstr(r.diag, "truncated") != NULL);
	CHECK(strstr(r.diag, "CRC") != NULL);
	CHECK(strstr(r.diag, "magic") != NULL);
	CHECK(strstr(r.diag, "version 99") != NULL);
	CHECK(strstr(r.diag, "directory") != NULL);
	CHECK(strstr(r.diag, "unit transfers") != NULL);
	for (k = 0; k < SC_NPROFILES; k++)
		CHECK_MSG(strstr(r.diag, paths[k]) == NULL, "good profile %s reported", paths[k]);

	/* The good profiles merged as if alone. */
	check_matrix_cell(db, "thread-all.csv", 4, 5, 130);
	check_matrix_cell(db, "thread-all.csv", 0, 1, 50);
	check_matrix_cell(db, "core-all.csv", 1, 2, 130);
	check_symmetric_all(db);

	meta = fx_join(db, HC_DB_META);
	xsd = fx_doc(HC_DB_META_XSD);
	CHECK(fx_validate(meta, xsd) == 0);
	text = fx_read(meta, NULL);
	CHECK(text && fx_count(text, "<Skipped ") == 7);
	CHECK(text && strstr(text, "found=\"14\" read=\"7\" skipped=\"7\"") != NULL);
	free(text);
	free(meta);
	free(xsd);
	free(r.diag);

	/* --unit transfers keeps only the PEBS profile. */
	{
		char *db2 = fx_join(work, "db-transfers");
		run(inputs, 1, db2, false, 1, &r);
		CHECK_MSG(r.ret == 0, "run --unit transfers: %s", r.err);
		CHECK_EQ_U64(r.res.read, 1);
		CHECK(strstr(r.diag, "unit ns") != NULL);
		meta = fx_join(db2, HC_DB_META);
		text = fx_read(meta, NULL);
		CHECK(text && strstr(text, "<Matrices unit=\"transfers\">") != NULL);
		free(text);
		free(meta);
		free(r.diag);
		free(db2);
	}

	for (k = 0; k < 7; k++)
		free(bad[k]);
	for (k = 0; k < SC_NPROFILES; k++)
		free(paths[k]);
	free(db);
	free(meas);
}

/* Random truncations and bit flips of one profile next to a good one. */
static void random_damage(const char *work)
{
	char *meas = fx_join(work, "fuzz"), *paths[SC_NPROFILES];
	const char *inputs[1] = { meas };
	char *src, *data;
	size_t len, k;
	unsigned seed = 12345;
	int i, crashed_or_failed = 0, accepted = 0;

	fx_mkdir(meas);
	sc_write(meas, paths);
	/* Keep A.T0 and A.T1; damage A.T1 over and over. */
	for (k = 2; k < SC_NPROFILES; k++) {
		unlink(paths[k]);
		free(paths[k]);
	}
	src = paths[1];
	data = fx_read(src, &len);
	for (i = 0; i < 300; i++) {
		char *copy = malloc(len), name[64], *db;
		size_t n = len;
		struct run r;
		int flips, f;

		memcpy(copy, data, len);
		seed = seed * 1103515245u + 12345u;
		if (i % 3 == 0) {
			n = (seed >> 8) % len;
		} else {
			flips = 1 + (int)((seed >> 4) % 4);
			for (f = 0; f < flips; f++) {
				seed = seed * 1103515245u + 12345u;
				copy[(seed >> 8) % len] ^= (char)(1u << ((seed >> 3) % 8));
			}
		}
		fx_write_file(src, copy, n);
		snprintf(name, sizeof(name), "db-%d", i);
		db = fx_join(work, name);
		run(inputs, 1, db, false, -1, &r);
		if (r.ret != 0)
			crashed_or_failed++;
		if (r.res.read == 2)
			accepted++;
		free(r.diag);
		fx_rm_rf(db);
		free(db);
		free(copy);
	}
	/* A.T0 is always usable, so every run succeeds. */
	CHECK_EQ_U64(crashed_or_failed, 0);
	/* The CRC catches every change made here. */
	CHECK_EQ_U64(accepted, 0);
	fx_write_file(src, data, len);
	free(data);
	free(paths[0]);
	free(paths[1]);
	free(meas);
}

/* Valid to the reader, absurd to the analyzer. */
static void hostile_profile(const char *work)
{
	char *meas = fx_join(work, "hostile"), *db = fx_join(work, "db-hostile"), *meta, *text;
	const char *inputs[1] = { meas };
	struct hc_prof_module mods[2] = {
		{ .id = 0, .path = "[vdso]" },
		{ .id = 1, .path = "/nonexistent/\xff\xfe<&>\"name\".so" },
	};
	struct hc_prof_node nodes[4] = {
		{ .id = 0, .parent = HC_NONE, .lm = HC_NONE },
		{ .id = 1, .parent = 0, .lm = 0, .offset = 0 },
		{ .id = 2, .parent = 1, .lm = HC_NONE, .offset = UINT64_MAX, .flags = 0xfffffffe },
		{ .id = 3, .parent = 2, .lm = 1, .offset = 0x10, .flags = HC_NODE_LEAF,
		  .m = { UINT32_MAX, 1, 2, 3 } },
	};
	struct hc_prof_event evs[5] = {
		{ .weight = 5, .peer = 0xfffffff0u, .cpu = 1, .peer_cpu = 2, .ctx = 3, .peer_ctx = 3 },
		{ .weight = 6, .peer = (1u << 24) + 70000, .cpu = 1, .peer_cpu = 2, .ctx = 3, .peer_ctx = 3 },
		{ .weight = 7, .peer = 1, .cpu = 1 << 30, .peer_cpu = -5, .ctx = 3,
		  .peer_ctx = 0xffffffffu },
		{ .weight = 8, .peer = 2, .cpu = 3, .peer_cpu = 4000, .ctx = 0, .peer_ctx = 123456 },
		{ .weight = 9, .peer = 0, .cpu = 0, .peer_cpu = 0, .ctx = 3, .peer_ctx = 3,
		  .flags = HC_COMM_TRUE },
	};
	struct fx_prof p;
	struct run r;

	fx_mkdir(meas);
	memset(&p, 0, sizeof(p));
	p.th = (struct hc_prof_thread){ .index = 0, .creator = 0xfffffff0u, .pid = 5,
	                                .tid = 5, .sampler = HC_SAMPLER_SOFT, .unit = HC_UNIT_NS,
	                                .creation_ctx = 99999, .start_lm = 1,
	                                .start_off = UINT64_MAX };
	snprintf(p.th.exe, sizeof(p.th.exe), "weird \"exe\" <name>");
	p.hostid = 0xffffffffu;
	p.mods = mods;
	p.nmods = 2;
	p.nodes = nodes;
	p.nnodes = 4;
	p.evs = evs;
	p.nevs = 5;
	free(fx_write_profile(meas, &p));
	{
		char *topo = fx_join(meas, "topology-ffffffff.xml");
		fx_write_file(topo, "<not hwloc/>", 12);
		free(topo);
	}

	run(inputs, 1, db, false, -1, &r);
	CHECK_MSG(r.ret == 0, "hostile run: %s", r.err);
	CHECK(strstr(r.diag, "beyond") != NULL);   /* the two absurd peers */
	CHECK(strstr(r.diag, "topology-ffffffff.xml") != NULL);
	check_symmetric_all(db);
	meta = fx_join(db, HC_DB_META);
	{
		char *xsd = fx_doc(HC_DB_META_XSD), *exp = fx_join(db, HC_DB_EXPERIMENT);
		char *xsd2 = fx_doc(HC_DB_EXPERIMENT_XSD);
		CHECK(fx_validate(meta, xsd) == 0);
		CHECK(fx_validate(exp, xsd2) == 0);
		free(xsd);
		free(xsd2);
		free(exp);
	}
	text = fx_read(meta, NULL);
	CHECK(text && strstr(text, "<Warnings>") != NULL);
	/* Thread 0 plus peers 1 and 2 (no profiles); the absurd ones are ignored. */
	CHECK(text && strstr(text, "threads=\"3\"") != NULL);
	free(text);
	free(meta);
	free(r.diag);
	free(db);
	free(meas);
}

static void nothing_usable(const char *work)
{
	char *meas = fx_join(work, "garbage"), *empty = fx_join(work, "empty");
	char *db = fx_join(work, "db-none"), *f = fx_join(meas, "x-000000-000-00000000-1-0.hcprof");
	const char *in1[1] = { meas }, *in2[1] = { empty };
	struct run r;

	fx_mkdir(meas);
	fx_mkdir(empty);
	fx_write_file(f, "garbage", 7);
	run(in1, 1, db, false, -1, &r);
	CHECK(r.ret == -ENOENT);
	CHECK(strstr(r.err, "nothing usable") != NULL);
	CHECK(strstr(r.diag, f) != NULL);
	CHECK(!fx_exists(db));
	free(r.diag);
	run(in2, 1, db, false, -1, &r);
	CHECK(r.ret == -ENOENT);
	CHECK(strstr(r.err, "no profile") != NULL);
	CHECK(!fx_exists(db));
	free(r.diag);
	free(f);
	free(db);
	free(empty);
	free(meas);
}

static void output_rules(const char *work)
{
	char *meas = fx_join(work, "out-meas"), *db = fx_join(work, "db-out");
	char *marker = fx_join(db, "marker"), *other = fx_join(work, "not-a-db");
	char *other_marker = fx_join(other, "precious"), *emptydir = fx_join(work, "emptydir");
	const char *inputs[1] = { meas };
	struct run r;

	fx_mkdir(meas);
	sc_write(meas, NULL);
	run(inputs, 1, db, false, -1, &r);
	CHECK_MSG(r.ret == 0, "%s", r.err);
	free(r.diag);
	fx_write_file(marker, "x", 1);

	/* Exists, no force: refused, untouched. */
	run(inputs, 1, db, false, -1, &r);
	CHECK(r.ret == -EEXIST);
	CHECK(strstr(r.err, db) != NULL && strstr(r.err, "--force") != NULL);
	CHECK(fx_exists(marker));
	free(r.diag);

	/* Force replaces an earlier database. */
	run(inputs, 1, db, true, -1, &r);
	CHECK_MSG(r.ret == 0, "%s", r.err);
	CHECK(!fx_exists(marker));
	free(r.diag);

	/* Force never replaces something that is not a database. */
	fx_mkdir(other);
	fx_write_file(other_marker, "keep me", 7);
	run(inputs, 1, other, true, -1, &r);
	CHECK(r.ret == -EEXIST);
	CHECK(strstr(r.err, "refusing") != NULL);
	CHECK(fx_exists(other_marker));
	free(r.diag);

	/* ... but does fill an empty directory. */
	fx_mkdir(emptydir);
	run(inputs, 1, emptydir, true, -1, &r);
	CHECK_MSG(r.ret == 0, "%s", r.err);
	free(r.diag);

	/* Unwritable: the path is named. */
	run(inputs, 1, "/nonexistent-parent-dir/db", false, -1, &r);
	CHECK(r.ret < 0);
	CHECK(strstr(r.err, "/nonexistent-parent-dir/db") != NULL);
	free(r.diag);
	if (geteuid() != 0) {
		char *ro = fx_join(work, "readonly"), *rodb = fx_join(ro, "db");
		fx_mkdir(ro);
		chmod(ro, 0555);
		run(inputs, 1, rodb, false, -1, &r);
		CHECK(r.ret == -EACCES);
		CHECK(strstr(r.err, rodb) != NULL);
		free(r.diag);
		chmod(ro, 0755);
		free(rodb);
		free(ro);
	}
	free(emptydir);
	free(other_marker);
	free(other);
	free(marker);
	free(db);
	free(meas);
}

int main(void)
{
	char *work = fx_tmpdir("damage");

	damaged_inputs(work);
	random_damage(work);
	hostile_profile(work);
	nothing_usable(work);
	output_rules(work);
	if (!hc_test_failures && !getenv("HC_KEEP_TMP"))
		fx_rm_rf(work);
	else
		fprintf(stderr, "kept %s for inspection\n", work);
	free(work);
	return hc_test_done("test_analysis_damage");
}
