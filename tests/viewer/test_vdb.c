/* SPDX-License-Identifier: BSD-3-Clause */
/* test_vdb.c — lib/db reader unit test: the committed fixture database
   (tests/viewer/fixtures/small) is read and every part checked against the
   values it was written with; then copies of it are damaged one way at a time
   (missing file, cut file, broken promise of the format) and each must be
   refused with a message naming the file and, where there is one, the line;
   finally the JSON writer's escaping (UTF-8 repair, '<' in HTML mode). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc_test.h"
#include "report/json.h"
#include "db/db.h"

static char fixture[4096];

static void check_fixture(void)
{
	struct hc_db *db;
	char err[2048], buf[256];
	const struct hc_db_matrix *m;
	const struct hc_db_node *n;
	int rc = hc_db_open(fixture, &db, err, sizeof(err));

	CHECK_MSG(rc == 0, "%s", err);
	if (rc)
		return;
	CHECK_EQ_U64(db->version, 1);
	CHECK_STR(db->unit, "ns");
	CHECK_STR(db->samplers, "soft");
	CHECK_STR(db->program, "comm_bench");
	CHECK_EQ_U64(db->nprocs, 1);
	CHECK_STR(db->procs[0].exe, "/opt/bench/comm_bench");
	CHECK_EQ_U64(db->nthreads, 5);
	CHECK_EQ_U64(db->threads[0].creator, (uint64_t)-1);      /* empty -> -1 */
	CHECK_EQ_U64(db->threads[3].creator, 0);
	CHECK_STR(db->threads[3].start_routine, "worker");
	CHECK_STR(db->threads[3].cpus, "0-1");
	CHECK_EQ_U64(db->threads[2].period, 200000);
	CHECK_EQ_U64(db->t_all, 13500000);
	CHECK_EQ_U64(db->t_false, 9850000);
	CHECK_EQ_U64(db->ncounters, 2);

	m = &db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_ALL];
	CHECK(m->present);
	CHECK_EQ_U64(m->n, 5);
	CHECK_EQ_U64(hc_db_matrix_at(m, 1, 2), 9400000);
	CHECK_EQ_U64(hc_db_matrix_at(m, 2, 1), 9400000);
	CHECK_EQ_U64(hc_db_matrix_at(&db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_FALSE], 1, 2), 9000000);
	CHECK_EQ_U64(m->total, 13500000);
	CHECK(db->mat[HC_DB_LEVEL_SOCKET][HC_DB_KIND_TRUE].present);
	CHECK_EQ_U64(db->mat[HC_DB_LEVEL_SOCKET][HC_DB_KIND_ALL].diagonal, 13500000);
	CHECK_EQ_U64(db->nlabels[HC_DB_LEVEL_CORE], 2);
	CHECK_EQ_U64(db->labels[HC_DB_LEVEL_CORE][1].cpu, 1);
	CHECK_STR(hc_db_index_label(db, HC_DB_LEVEL_CORE, 1, buf, sizeof(buf)), "cpu 1");
	CHECK_STR(hc_db_index_label(db, HC_DB_LEVEL_THREAD, 0, buf, sizeof(buf)), "0 main");
	CHECK_STR(hc_db_index_label(db, HC_DB_LEVEL_THREAD, 2, buf, sizeof(buf)), "2 worker");

	CHECK_EQ_U64(db->nnodes, 14);
	CHECK_EQ_U64(db->root_m[HC_DB_METRIC_ID(HC_DB_M_ALL, 0)], 13500000);
	n = hc_db_node_find(db, 10);      /* S comm_bench.c:64 in false_kernel */
	CHECK(n && n->type == HC_DB_N_S);
	if (n) {
		CHECK_STR(hc_db_node_proc_name(db, n), "false_kernel");
		CHECK_STR(hc_db_node_where(db, n, true, buf, sizeof(buf)), "comm_bench.c:64");
		CHECK_EQ_U64(n->m[HC_DB_METRIC_ID(HC_DB_M_FALSE, 1)], 9600000);
		CHECK(db->nodes[n->parent].type == HC_DB_N_PF);
	}
	n = hc_db_node_find(db, 14);      /* S inside the inlined bump() */
	CHECK(n && !strcmp(hc_db_node_proc_name(db, n), "bump"));
	CHECK(hc_db_node_find(db, 15) == NULL);
	CHECK(hc_db_node_find(db, 0) == NULL);
	CHECK_EQ_U64(db->npairs, 6);
	CHECK_EQ_U64(db->pairs_top, 10);

	CHECK(db->has_objects);
	CHECK_EQ_U64(db->nobjects, 4);
	if (db->nobjects == 4) {
		const struct hc_db_object *o = &db->objects[0];
		CHECK_STR(o->name, "false_line");
		CHECK_STR(o->kind, "static");
		CHECK_EQ_U64(o->fal, 9000000);
		CHECK_EQ_U64(o->ncells, 1);
		CHECK_EQ_U64(o->cells[0].i, 1);
		CHECK_EQ_U64(o->cells[0].j, 2);
		CHECK_EQ_U64(o->nfields, 3);
		CHECK_STR(o->fields[0].name, "w[1]");
		CHECK_EQ_U64(o->fields[0].offset, 8);
		CHECK_EQ_U64(o->fields[0].nthreads, 2);
		CHECK_EQ_U64(db->objects[2].context, 6);
		CHECK_STR(db->objects[2].fields[0].name, "");
	}
	hc_db_close(db);
}

/* ---- damaged copies ---- */

static int run(const char *cmd)
{
	int rc = system(cmd);
	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = calloc(1, (size_t)n + 1);
	if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
		free(s);
		s = NULL;
	}
	fclose(f);
	return s;
}

static void spit(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		exit(1);
	}
	fwrite(s, 1, n, f);
	fclose(f);
}

/* Copy the fixture to dir, replace the first `from` by `to` in file rel (or
   remove the file when from is NULL, or cut it to `cut` bytes when cut > 0). */
static void damage(const char *dir, const char *rel, const char *from, const char *to, long cut)
{
	char cmd[8192], path[4096];
	char *s, *at;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s' '%s'", dir, fixture, dir);
	if (run(cmd)) {
		fprintf(stderr, "cannot copy the fixture\n");
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (!from && cut <= 0) {
		unlink(path);
		return;
	}
	s = slurp(path);
	if (!s) {
		fprintf(stderr, "cannot read %s\n", path);
		exit(1);
	}
	if (cut > 0) {
		spit(path, s, (size_t)cut);
	} else if ((at = strstr(s, from))) {
		size_t n = strlen(s) + strlen(to) + 1;
		char *t = malloc(n);
		snprintf(t, n, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
		spit(path, t, strlen(t));
		free(t);
	} else {
		fprintf(stderr, "damage: '%s' not in %s\n", from, rel);
		exit(1);
	}
	free(s);
}

static void expect_error(const char *dir, const char *what, const char *where, const char *text)
{
	struct hc_db *db = NULL;
	char err[2048], want[4096];
	int rc = hc_db_open(dir, &db, err, sizeof(err));

	snprintf(want, sizeof(want), "%s/%s", dir, where);
	CHECK_MSG(rc < 0 && db == NULL, "%s: accepted", what);
	CHECK_MSG(strncmp(err, want, strlen(want)) == 0, "%s: error '%s' does not start with '%s'",
	          what, err, want);
	CHECK_MSG(strstr(err, text) != NULL, "%s: error '%s' does not say '%s'", what, err, text);
	if (!rc)
		hc_db_close(db);
}

static void check_damage(const char *tmp)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/db", tmp);

	damage(dir, "experiment.xml", NULL, NULL, 0);
	expect_error(dir, "missing experiment.xml", "experiment.xml: ", "No such file or directory");
	damage(dir, "database.xml", NULL, NULL, 0);
	expect_error(dir, "missing database.xml", "database.xml: ", "No such file or directory");
	damage(dir, "objects.xml", NULL, NULL, 0);
	{
		struct hc_db *db;
		char err[2048];
		CHECK_MSG(hc_db_open(dir, &db, err, sizeof(err)) == 0, "without objects.xml: %s", err);
		if (!err[0]) {
			CHECK(!db->has_objects && db->nobjects == 0);
			hc_db_close(db);
		}
	}
	damage(dir, "experiment.xml", NULL, NULL, 2500);
	expect_error(dir, "cut experiment.xml", "experiment.xml:", "malformed XML");
	damage(dir, "database.xml", "<Totals", "<Totalz", 0);
	expect_error(dir, "no Totals", "database.xml: ", "missing <Totals>");
	damage(dir, "database.xml", "unit=\"ns\" n=\"5\"", "unit=\"transfers\" n=\"5\"", 0);
	expect_error(dir, "mixed units", "database.xml:", "units are never mixed");
	damage(dir, "database.xml", "n=\"5\" total=\"13500000\"", "n=\"5\" total=\"13500001\"", 0);
	expect_error(dir, "wrong total", "matrices/thread-all.csv: ", "upper triangle sums to 13500000");
	damage(dir, "database.xml", "total=\"13500000\"", "total=\"-5\"", 0);
	expect_error(dir, "negative", "database.xml:9: ", "expected a non-negative decimal integer");
	damage(dir, "database.xml", "<Matrix level=\"core\" kind=\"true\"", "<Matrix level=\"rack\" kind=\"true\"", 0);
	expect_error(dir, "unknown level", "database.xml:", "unknown level or kind");
	damage(dir, "matrices/thread-true.csv", "3,0,0,0,0,3000000", "3,0,0,0,0,3000000,7", 0);
	expect_error(dir, "long row", "matrices/thread-true.csv:5: ", "row 3 has 6 values, expected 5");
	damage(dir, "matrices/thread-true.csv", "3,0,0,0,0,3000000", "3,0,0,0,1,3000000", 0);
	expect_error(dir, "diagonal", "matrices/thread-true.csv:5: ", "diagonal cell (3,3) is not 0");
	damage(dir, "matrices/thread-all.csv", ",0,1,2,3,4", ",0,1,2,4,3", 0);
	expect_error(dir, "header", "matrices/thread-all.csv:1: ", "header field 5 is '4', expected 3");
	damage(dir, "matrices/thread-all.csv", NULL, NULL, 40);
	expect_error(dir, "cut matrix", "matrices/thread-all.csv:", "does not end with a newline");
	damage(dir, "threads.csv", "4,0,4242,4,4246", "5,0,4242,4,4246", 0);
	expect_error(dir, "thread index", "threads.csv:6: ", "thread index 5, expected 4");
	damage(dir, "threads.csv", "3,0,4242,3,4245,0,worker", "3,7,4242,3,4245,0,worker", 0);
	expect_error(dir, "process", "threads.csv:5: ", "process 7: database.xml has 1 processes");
	damage(dir, "threads.csv", ",worker,3,1,soft", ",\"worker,3,1,soft", 0);
	expect_error(dir, "quote", "threads.csv:", "quoted field");
	damage(dir, "threads.csv", "0,0,4242,0,4242,,,,0", "0,0,4242,0,4242,,,99,0", 0);
	expect_error(dir, "creation context", "threads.csv:2: ", "creation_context 99");
	damage(dir, "experiment.xml", "<M n=\"0\" v=\"13500000\"/>", "<M n=\"0\" v=\"13500001\"/>", 0);
	expect_error(dir, "root total", "experiment.xml: ", "root metric comm-all (I) = 13500001");
	damage(dir, "experiment.xml", "<CP c=\"4\" p=\"10\"", "<CP c=\"4\" p=\"99\"", 0);
	expect_error(dir, "code pair ref", "experiment.xml: ", "names node 99");
	damage(dir, "experiment.xml", "<C i=\"3\" f=\"1\" l=\"221\">", "<C i=\"3\" f=\"1\" l=\"221\"><S i=\"90\" f=\"1\" l=\"1\"/>", 0);
	expect_error(dir, "S in C", "experiment.xml:", "<S> inside <C>");
	damage(dir, "experiment.xml", "<C i=\"3\" f=\"1\" l=\"221\">", "<C i=\"2\" f=\"1\" l=\"221\">", 0);
	expect_error(dir, "duplicate id", "experiment.xml: ", "node id 2 is used twice");
	damage(dir, "experiment.xml", "<S i=\"4\" f=\"1\"", "<S i=\"4\" f=\"9\"", 0);
	expect_error(dir, "file ref", "experiment.xml: ", "<S i=\"4\"> names a file");
	damage(dir, "experiment.xml", "kind=\"true\" t=\"exclusive\" partner=\"2\"", "kind=\"false\" t=\"exclusive\" partner=\"2\"", 0);
	expect_error(dir, "metric table", "experiment.xml:", "does not match the fixed metric table");
	damage(dir, "objects.xml", "<T i=\"1\" j=\"2\"", "<T i=\"2\" j=\"2\"", 0);
	expect_error(dir, "object cell", "objects.xml:", "not a pair of two threads");
	damage(dir, "objects.xml", "threads=\"1 2\"", "threads=\"1 20\"", 0);
	expect_error(dir, "field threads", "objects.xml:", "'20' is not a thread index");
	damage(dir, "objects.xml", "context=\"6\"", "context=\"600\"", 0);
	expect_error(dir, "object context", "objects.xml:", "not a node of experiment.xml");
	damage(dir, "summary.txt", NULL, NULL, 0);
	{
		struct hc_db *db;
		char err[2048];
		CHECK_MSG(hc_db_open(dir, &db, err, sizeof(err)) == 0, "summary.txt is not needed: %s", err);
		if (!err[0])
			hc_db_close(db);
	}
}

/* ---- JSON writer ---- */

static void check_json(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct hc_json j;

	hc_json_init(&j, f, true);
	hc_json_obj(&j);
	hc_json_kstr(&j, "a", "x</script>\"\\\n\x01");
	hc_json_kstr(&j, "bad", "\xff\xc3\x28ok\xe2\x86\x94");  /* invalid, invalid, valid ↔ */
	hc_json_kstr(&j, "none", NULL);
	hc_json_ki64(&j, "neg", -1);
	hc_json_key(&j, "arr");
	hc_json_arr(&j);
	hc_json_u64(&j, 18446744073709551615ull);
	hc_json_bool(&j, false);
	hc_json_arr_end(&j);
	hc_json_obj_end(&j);
	fclose(f);
	CHECK_STR(buf, "{\n  \"a\":\"x\\u003c/script>\\\"\\\\\\n\\u0001\",\n"
	               "  \"bad\":\"\\ufffd\\ufffd(ok\xe2\x86\x94\",\n"
	               "  \"none\":null,\n  \"neg\":null,\n  \"arr\":[\n    18446744073709551615,\n"
	               "    false\n  ]\n}\n");
	free(buf);
}

int main(void)
{
	const char *src = getenv("HC_SRCDIR");
	char tmp[] = "/tmp/hc-vdb-XXXXXX", cmd[4200];

	if (!src)
		SKIP("HC_SRCDIR not set (run through make check)");
	snprintf(fixture, sizeof(fixture), "%s/tests/viewer/fixtures/small", src);
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	check_fixture();
	check_damage(tmp);
	check_json();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	run(cmd);
	return hc_test_done("test_vdb");
}
