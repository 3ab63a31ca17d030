/* SPDX-License-Identifier: BSD-3-Clause */
/* test_db_write.c — lib/db's one writer against its one reader: a small
   database is written from hand-made plain rows through every
   hc_db_write_* (database.xml, threads.csv, the matrices dense and sparse,
   experiment.xml, objects.xml, regions.xml/.csv, phases.xml, locality.xml),
   read back with hc_db_open (which checks every promise of the format,
   across files too), and what was written is what is read. The matrices are
   written a second time in the sparse form (dense_max 1) and read back the
   same. A region whose inclusive cells are its parent's is written as such
   (regions.xml version 2) and read back whole. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc_test.h"
#include "db/db.h"
#include "db/views.h"
#include "db/write.h"

/* Three threads of one process: (0,1) 5 true 2 false, (1,2) 1 true. */
static const struct hc_db_mcell cells[] = { { 0, 1, { 5, 2 } }, { 1, 2, { 1, 0 } } };
static const uint32_t rows[] = { 0, 1, 2, 2 };
/* Two CPUs: all of it between them. */
static const struct hc_db_mcell ccells[] = { { 0, 1, { 6, 2 } } };
static const uint32_t crows[] = { 0, 1, 1 };

static int write_all(const char *dir, uint32_t dense_max, char *err, size_t errlen)
{
	static const int32_t cpus0[] = { 0, 1, 2, 5 };
	const struct hc_db_wthread th[3] = {
		{ .process = 0, .pid = 100, .thread = 0, .tid = 100, .creator = -1,
		  .cpus = cpus0, .ncpus = 4, .profile = "p-0.hcprof", .sampler = HC_SAMPLER_SOFT,
		  .period = 200000, .rank = 0, .host = "node, \"a\"" },
		{ .process = 0, .pid = 100, .thread = 1, .tid = 101, .creator = 0,
		  .start_routine = "worker", .creation_context = 2, .cpus = cpus0 + 3, .ncpus = 1,
		  .profile = "p-1.hcprof", .sampler = HC_SAMPLER_SOFT, .period = 200000,
		  .host = "node, \"a\"" },
		{ .process = 0, .pid = 100, .thread = 2, .tid = -1, .creator = 0,
		  .start_routine = "worker", .host = "node, \"a\"" },
	};
	/* root -> PF main -> S line 12 (the accesses: 5 true sampled, 1 true
	   trapped, 2 false sampled) and C line 10 (a call without a callee). */
	struct hc_db_tnode nodes[4] = {
		{ .kind = HC_DB_T_ROOT, .first_child = 1, .last_child = 1 },
		{ .parent = 0, .kind = HC_DB_T_PF, .proc = 0, .first_child = 2, .last_child = 3 },
		{ .parent = 1, .kind = HC_DB_T_S, .file = 1, .line = 12, .next_sibling = 3 },
		{ .parent = 1, .kind = HC_DB_T_C, .file = 1, .line = 10 },
	};
	static const uint64_t m[HC_M_COUNT] = { [HC_M_TRUE_SAMPLE] = 5, [HC_M_TRUE_TRAP] = 1,
	                                        [HC_M_FALSE_SAMPLE] = 2 };
	char *lms[] = { "/bin/prog" }, *files[] = { "<unknown file>", "prog.c" },
	     *names[] = { "main" };
	const struct hc_db_tproc procs[] = { { .name = 0, .lm = 0, .file = 1, .line = 3 } };
	const struct hc_db_wpair pairs[] = { { 2, 2, 6, 2 } };
	const struct hc_db_wexperiment x = {
		.program = "prog", .unit = HC_UNIT_NS, .samplers = 1u << HC_SAMPLER_SOFT,
		.processes = 1, .threads = 3, .lms = lms, .nlms = 1, .files = files, .nfiles = 2,
		.names = names, .procs = procs, .nprocs = 1, .nodes = nodes, .rows = pairs,
		.nrows = 1, .top = 10 };
	const struct hc_db_whost host = { .id = 0x1234 };
	const struct hc_db_wprocess proc = { .host = 0x1234, .pid = 100, .ppid = 1, .exe = "/bin/prog",
	                                     .start_ns = 42, .threads = 3, .first_thread = 0 };
	const struct hc_db_wskip skip = { "bad.hcprof", "bad.hcprof: offset 0: not a profile" };
	const struct hc_db_wcounter counters[] = { { "samples", 9 }, { "traps", 1 } };
	const char *const warnings[] = { "a <warning> & more" };
	const char *const inputs[] = { "/m/prog-measurements" };
	struct hc_db_wmeta meta = {
		.unit = HC_UNIT_NS, .samplers = 1u << HC_SAMPLER_SOFT, .inputs = inputs, .ninputs = 1,
		.found = 3, .read = 2, .skipped = 1, .skips = &skip, .nskips = 1, .hosts = &host,
		.nhosts = 1, .procs = &proc, .nprocs = 1, .dense_max = dense_max, .events = 4,
		.event_weight = 8, .counters = counters, .ncounters = 2, .warnings = warnings,
		.nwarnings = 1 };
	const struct hc_db_wmatrix mat = { .level = HC_DB_LEVEL_THREAD, .n = 3, .cell = cells,
	                                   .ncell = 2, .row = rows };
	const struct hc_db_wmatrix cmat = { .level = HC_DB_LEVEL_CORE, .n = 2, .cell = ccells,
	                                    .ncell = 1, .row = crows };
	const struct hc_db_wlabel clabels[] = { { 0x1234, 0, -1, -1, -1 },
	                                        { 0x1234, 1, -1, -1, -1 } };
	/* objects.xml: one heap object allocated at node 2. */
	static const uint32_t fthreads[] = { 0, 1, 2 };
	const struct hc_db_wocell ocells[] = { { 0, 1, 5, 2 }, { 1, 2, 1, 0 } };
	const struct hc_db_wfield fields[] = {
		{ .name = "hits", .offset = 0, .size = 8, .access = 8, .t = 6, .f = 0,
		  .threads = fthreads, .nthreads = 3 },
		{ .name = NULL, .offset = 64, .size = 8, .access = 4, .t = 0, .f = 2,
		  .threads = fthreads, .nthreads = 2 } };
	const struct hc_db_wpair opairs[] = { { 2, 0, 6, 2 } };
	const struct hc_db_wobject obj = {
		.kind = HC_DB_OBJ_HEAP, .name = "heap @ prog.c:10 in main", .module = "", .context = 2,
		.size = 128, .blocks = 1, .type = "struct s", .elem = 64, .t = 6, .f = 2,
		.cells = ocells, .ncells = 2, .fields = fields, .nfields = 2, .pairs = opairs,
		.npairs = 1 };
	/* regions: the program and main; main's exclusive share is cell (1, 2). */
	const struct hc_db_wregion reg[] = {
		{ .i = 0, .parent = UINT32_MAX, .kind = HC_DB_REG_PROGRAM, .name = "prog", .tru = 6,
		  .fal = 2, .xtru = 5, .xfal = 2, .cells = cells, .ncells = 2, .xcells = cells,
		  .nxcells = 1 },
		{ .i = 1, .parent = 0, .kind = HC_DB_REG_PROCEDURE, .name = "main", .lm = "/bin/prog",
		  .file = "prog.c", .line = 3, .addr = 0x1130, .tru = 6, .fal = 2, .xtru = 1,
		  .xfal = 0, .cells = cells, .ncells = 2, .xcells = cells + 1, .nxcells = 1,
		  .cells_parent = true },
		/* a loop in main of the program's cells, none exclusive: cells="0"
		   (version 3), no row */
		{ .i = 2, .parent = 1, .kind = HC_DB_REG_LOOP, .name = "loop at prog.c:4",
		  .lm = "/bin/prog", .file = "prog.c", .line = 4, .addr = 0x1140, .depth = 1,
		  .tru = 6, .fal = 2, .cells = cells, .ncells = 2, .cells_as = 1 } };
	const struct hc_db_wregions regions = { .unit = HC_UNIT_NS, .threshold = 0.01,
	                                        .threads = 3, .r = reg, .n = 3 };
	/* phases.xml: two windows, one phase; locality.xml: one domain. */
	const struct hc_db_wphase ph = { .first = 0, .last = 1, .t = 6, .f = 2, .pi = 0, .pj = 1,
	                                 .pv = 7, .obj = 0, .ov = 8, .object_name = obj.name,
	                                 .cells = cells, .ncells = 2 };
	const struct hc_db_wline lines[] = { { 0, 1 }, { 0, UINT32_MAX } };
	static const uint32_t wphase[] = { 0, 0 };
	static const uint64_t wvol[][2] = { { 4, 1 }, { 2, 1 } }, lval[] = { 5, 5, 2, 3 };
	const struct hc_db_wphases phases = {
		.unit = HC_UNIT_NS, .width = 1000, .span = 2000, .nwin = 2, .similarity = 0.8,
		.ph = &ph, .nph = 1, .lines = lines, .nline = 2, .wphase = wphase, .wvol = wvol,
		.lval = lval };
	static const uint64_t page[] = { 0 }, thr[] = { 8 };
	const struct hc_db_wlocobj lo = { .obj = 0, .name = obj.name, .unknown = 8,
	                                  .first = UINT32_MAX, .page = page, .thr = thr };
	const struct hc_db_wlocality loc = { .unit = HC_UNIT_NS, .domains = 1, .single = true,
	                                     .flag = 0.5, .unknown = 8, .ndom = 1, .o = &lo,
	                                     .n = 1 };
	int k, ret;

	for (k = 0; k < 3; k++)
		memcpy(nodes[k].incl, m, sizeof(m));
	memcpy(nodes[2].excl, m, sizeof(m));
	memcpy(meta.totals, m, sizeof(m));
	meta.mat[HC_DB_LEVEL_THREAD] = (struct hc_db_wmatinfo){
		.present = true, .n = 3, .total = { 8, 6, 2 } };
	meta.mat[HC_DB_LEVEL_CORE] = (struct hc_db_wmatinfo){
		.present = true, .n = 2, .total = { 8, 6, 2 } };
	meta.labels[HC_DB_LEVEL_CORE] = clabels;
	meta.nlabels[HC_DB_LEVEL_CORE] = 2;
	ret = hc_db_write_threads(dir, th, 3, err, errlen);
	for (k = 0; k < HC_DB_KIND_COUNT && !ret; k++)
		ret = hc_db_write_matrix(dir, &mat, k, dense_max, err, errlen);
	for (k = 0; k < HC_DB_KIND_COUNT && !ret; k++)
		ret = hc_db_write_matrix(dir, &cmat, k, dense_max, err, errlen);
	if (!ret)
		ret = hc_db_write_experiment(dir, &x, err, errlen);
	if (!ret)
		ret = hc_db_write_meta(dir, &meta, err, errlen);
	if (!ret)
		ret = hc_db_write_objects(dir, HC_UNIT_NS, &obj, 1, err, errlen);
	if (!ret)
		ret = hc_db_write_regions(dir, &regions, err, errlen);
	if (!ret)
		ret = hc_db_write_region_matrices(dir, &regions, err, errlen);
	if (!ret)
		ret = hc_db_write_phases(dir, &phases, err, errlen);
	if (!ret)
		ret = hc_db_write_locality(dir, &loc, err, errlen);
	return ret;
}

static void check(const struct hc_db *db, bool sparse)
{
	const struct hc_db_matrix *a = &db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_ALL];
	const struct hc_db_object *o;
	const struct hc_db_node *n;

	CHECK_EQ_U64(db->version, HC_DB_VERSION);
	CHECK_STR(db->unit, "ns");
	CHECK_STR(db->samplers, "soft");
	CHECK_EQ_U64(db->ninputs, 1);
	CHECK_STR(db->inputs[0], "/m/prog-measurements");
	CHECK_EQ_U64(db->found, 3);
	CHECK_EQ_U64(db->skipped, 1);
	CHECK(db->nskips == 1 && !strcmp(db->skips[0].file, "bad.hcprof"));
	CHECK(db->nhosts == 1 && !strcmp(db->hosts[0].id, "00001234"));
	CHECK(db->nprocs == 1 && db->procs[0].pid == 100 && db->procs[0].start_ns == 42);
	CHECK_EQ_U64(db->t_all, 8);
	CHECK_EQ_U64(db->t_true, 6);
	CHECK_EQ_U64(db->t_trap, 1);
	CHECK_EQ_U64(db->events, 4);
	CHECK_EQ_U64(db->event_weight, 8);
	CHECK(db->ncounters == 2 && !strcmp(db->counters[1].name, "traps") &&
	      db->counters[1].v == 1);
	CHECK(db->nwarnings == 1 && !strcmp(db->warnings[0], "a <warning> & more"));

	CHECK_EQ_U64(db->nthreads, 3);
	CHECK_STR(db->threads[0].cpus, "0-2;5");
	CHECK_EQ_U64((uint64_t)db->threads[0].creator, (uint64_t)-1);
	CHECK_STR(db->threads[1].start_routine, "worker");
	CHECK_EQ_U64(db->threads[1].creation_context, 2);
	CHECK_EQ_U64((uint64_t)db->threads[2].tid, (uint64_t)-1);
	CHECK_STR(db->threads[2].profile, "");
	CHECK_STR(db->threads[1].host, "node, \"a\"");

	CHECK(a->present && a->n == 3 && a->sparse == sparse);
	CHECK_EQ_U64(a->total, 8);
	CHECK_EQ_U64(hc_db_matrix_at(a, 1, 0), 7);
	CHECK_EQ_U64(hc_db_matrix_at(&db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_FALSE], 0, 1), 2);
	CHECK_EQ_U64(hc_db_matrix_at(&db->mat[HC_DB_LEVEL_THREAD][HC_DB_KIND_TRUE], 2, 1), 1);
	CHECK_EQ_U64(hc_db_matrix_at(&db->mat[HC_DB_LEVEL_CORE][HC_DB_KIND_ALL], 1, 0), 8);
	CHECK(db->nlabels[HC_DB_LEVEL_CORE] == 2 && db->labels[HC_DB_LEVEL_CORE][1].cpu == 1 &&
	      db->labels[HC_DB_LEVEL_CORE][1].socket == -1);

	CHECK_STR(db->program, "prog");
	CHECK_EQ_U64(db->nnodes, 3);
	CHECK_EQ_U64(db->root_m[HC_DB_METRIC_ID(HC_DB_M_ALL, 0)], 8);
	n = hc_db_node_find(db, 2);
	CHECK(n && n->type == HC_DB_N_S && n->l == 12);
	CHECK(n && n->m[HC_DB_METRIC_ID(HC_DB_M_SAMPLE, 1)] == 7);
	CHECK(n && !strcmp(hc_db_node_proc_name(db, n), "main"));
	CHECK(db->npairs == 1 && db->pairs[0].c == 2 && db->pairs[0].all == 8);
	n = hc_db_node_find(db, 3);
	CHECK(n && n->type == HC_DB_N_C && n->parent == 0 && n->l == 10);
	CHECK_EQ_U64(db->pairs_top, 10);

	CHECK(db->has_objects && db->nobjects == 1);
	o = db->nobjects ? &db->objects[0] : NULL;
	CHECK(o && !strcmp(o->kind, "heap") && o->context == 2 && o->elem == 64);
	CHECK(o && !strcmp(o->type, "struct s") && o->all == 8);
	CHECK(o && o->ncells == 2 && o->cells[1].i == 1 && o->cells[1].tru == 1);
	CHECK(o && o->nfields == 2 && !strcmp(o->fields[0].name, "hits") &&
	      o->fields[0].nthreads == 3 && !strcmp(o->fields[1].name, "") &&
	      o->fields[1].offset == 64);
	CHECK(o && o->npairs == 1 && o->pairs[0].p == 0 && o->pairs[0].fal == 2);

	CHECK(db->has_regions && db->nregions == 3);
	if (db->nregions == 3) {
		const struct hc_db_region *r = &db->regions[1];
		CHECK(r->parent == 0 && !strcmp(r->kind, "procedure") && !strcmp(r->name, "main"));
		/* its inclusive cells written as its parent's (cells="parent"), its
		   exclusive ones on the one row of non-zero exclusive volume */
		CHECK(r->addr == 0x1130 && r->line == 3 && r->tru == 6 && r->xtru == 1);
		CHECK(r->ncells == 2 && r->cells[0].tru == 5 && r->cells[0].xtru == 0 &&
		      r->cells[1].tru == 1 && r->cells[1].xtru == 1);
		CHECK(db->regions[0].ncells == 2 && db->regions[0].cells[1].xtru == 0 &&
		      db->regions[0].cells[0].xfal == 2);
		/* cells="0": the program's inclusive cells, no exclusive one */
		r = &db->regions[2];
		CHECK(r->parent == 1 && r->cells_of == 0 && !r->cells_parent && r->ncells == 2 &&
		      r->cells[0].tru == 5 && r->cells[1].tru == 1 && r->cells[0].xtru == 0 &&
		      r->cells[1].xtru == 0);
	}

	CHECK(db->views && db->views->has_phases && db->views->has_locality);
	if (db->views && db->views->has_phases) {
		const struct hc_db_views *v = db->views;
		CHECK(v->nphases == 1 && v->phases[0].pair_j == 1 && v->phases[0].object == 0);
		CHECK(v->nwindows == 2 && v->windows[1].all == 3 && v->windows[1].lines[1] == 3);
		CHECK(v->nlines == 2 && v->lines[1].object);
		CHECK(v->nnuma == 1 && v->numa[0].unlocated == 8 && v->numa[0].first_thread == -1);
		CHECK(v->single && v->ndomains == 1);
	}
}

/* hc_db_region_share: a region whose cells equal an earlier one's (another
   array of the same contents) names it; cells="parent" ones, empty ones
   and different ones do not. */
static void check_region_share(void)
{
	const struct hc_db_mcell a[] = { { 0, 1, { 5, 2 } }, { 1, 2, { 1, 0 } } };
	const struct hc_db_mcell a2[] = { { 0, 1, { 5, 2 } }, { 1, 2, { 1, 0 } } };
	const struct hc_db_mcell b[] = { { 0, 1, { 5, 2 } }, { 1, 2, { 1, 1 } } };
	struct hc_db_wregion r[] = {
		{ .i = 0, .parent = UINT32_MAX, .cells = a, .ncells = 2 },
		{ .i = 1, .parent = 0, .cells = a, .ncells = 2, .cells_parent = true },
		{ .i = 2, .parent = 1, .cells = b, .ncells = 2 },
		{ .i = 3, .parent = 2, .cells = a2, .ncells = 2 },
		{ .i = 4, .parent = 2, .cells = b, .ncells = 2 },
		{ .i = 5, .parent = 2, .cells = a, .ncells = 0 },
	};

	CHECK(hc_db_region_share(r, 6) == 2);
	CHECK(r[0].cells_as == 0 && r[1].cells_as == 0 && r[2].cells_as == 0);
	CHECK(r[3].cells_as == 1 && r[4].cells_as == 3 && r[5].cells_as == 0);
}

/* hc_db_put_dec against printf: every power of ten and its neighbours, the
   ends of the range, a pseudo-random sweep over all magnitudes. */
static void check_put_dec(void)
{
	uint64_t p10 = 1, x = 88172645463325252ull;
	char a[32], b[32];
	long bad = 0;
	int k, d;

	for (k = 0; k <= 19; k++) {
		for (d = -3; d <= 3; d++) {
			uint64_t v = p10 + (uint64_t)(int64_t)d;
			if (k == 0 && d < 0)
				continue;
			*hc_db_put_dec(a, v) = 0;
			snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
			bad += strcmp(a, b) != 0;
		}
		if (k < 19)
			p10 *= 10;
	}
	for (k = 0; k < 2000000; k++) {
		uint64_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = k < 4 ? (k < 2 ? (uint64_t)k : UINT64_MAX - (uint64_t)(k - 2)) : x >> (k % 64);
		*hc_db_put_dec(a, v) = 0;
		snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
		bad += strcmp(a, b) != 0;
	}
	CHECK_MSG(bad == 0, "hc_db_put_dec: %ld numbers differ from printf", bad);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], sub[4200], err[2048];
	struct hc_db *db = NULL;
	uint32_t dense_max;

	check_put_dec();
	check_region_share();
	for (dense_max = 1024; dense_max; dense_max = dense_max == 1024 ? 1 : 0) {
		snprintf(dir, sizeof(dir), "%s/test_db_write.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		CHECK(mkdtemp(dir) != NULL);
		snprintf(sub, sizeof(sub), "%s/%s", dir, HC_DB_MATRICES);
		CHECK(mkdir(sub, 0777) == 0);
		CHECK_MSG(write_all(dir, dense_max, err, sizeof(err)) == 0, "write: %s", err);
		CHECK_MSG(hc_db_open(dir, &db, err, sizeof(err)) == 0, "read back: %s", err);
		if (db)
			check(db, dense_max == 1);
		hc_db_close(db);
		db = NULL;
		/* the analyzer's shortcut: phases.xml read without its <T> cells */
		{
			const struct hc_db_open_opts oo = { .skip_phase_cells = true };
			CHECK_MSG(hc_db_open_with(dir, &oo, &db, err, sizeof(err)) == 0,
			          "read back without phase cells: %s", err);
			CHECK(db && db->views && db->views->nphases == 1 &&
			      db->views->phases[0].ncells == 0 && db->views->phases[0].object == 0 &&
			      db->views->nwindows == 2 && db->views->windows[1].lines[1] == 3 &&
			      db->views->has_locality);
			hc_db_close(db);
			db = NULL;
		}
		hc_db_discard(dir);
	}
	return hc_test_done("test_db_write");
}
