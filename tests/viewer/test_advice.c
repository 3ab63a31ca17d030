/* SPDX-License-Identifier: BSD-3-Clause */
/* test_advice.c — lib/report's scale and advice (insight.h) on databases
   built in memory: the denominator from the samples counters and periods
   (soft: timer samples x period; pebs/ibs: pmu_period_sum), the negligible
   mark, the layout patterns and the changes advised for them (per-thread
   elements to pad, an element already 64 B to align, fields to split,
   untyped per-thread slots and parts larger than a line, the element size
   inferred from field offsets),
   the bound, the kind of true-sharing hand-off, each reason an empty
   result is empty, the coverage warning, and code pairs through a C
   library copy routine named at its caller. Test code only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hc_test.h"
#include "db/db.h"
#include "report/insight.h"
#include "report/report.h"

static struct hc_db_counter counters[8];
static struct hc_db_thread threads[8];
static struct hc_db_object objs[4];
static struct hc_db_field fields[16];
static uint32_t tids[16][2];

static void base_db(struct hc_db *db, const char *unit, size_t nthreads, int64_t period)
{
	memset(db, 0, sizeof(*db));
	memset(threads, 0, sizeof(threads));
	db->unit = (char *)unit;
	db->samplers = (char *)(strcmp(unit, "ns") ? "pebs" : "soft");
	db->read = db->found = nthreads;
	db->counters = counters;
	db->ncounters = 0;
	db->threads = threads;
	db->nthreads = nthreads;
	for (size_t t = 0; t < nthreads; t++) {
		threads[t].index = t;
		threads[t].period = period;
		threads[t].profile = (char *)"p.hcprof";
		threads[t].cpus = (char *)"";
		threads[t].start_routine = (char *)"";
		threads[t].sampler = (char *)"soft";
	}
}

static void counter(struct hc_db *db, const char *name, uint64_t v)
{
	counters[db->ncounters].name = (char *)name;
	counters[db->ncounters++].v = v;
}

static struct hc_db_field *field(size_t k, const char *name, uint64_t off, uint64_t size,
                                 uint64_t fal, uint32_t thread)
{
	struct hc_db_field *f = &fields[k];

	memset(f, 0, sizeof(*f));
	f->name = (char *)name;
	f->offset = off;
	f->size = f->access = size;
	f->fal = f->all = fal;
	tids[k][0] = thread;
	f->threads = tids[k];
	f->nthreads = 1;
	return f;
}

static void object(struct hc_db *db, const char *kind, const char *name, const char *type,
                   uint64_t elem, uint64_t fal, size_t f0, size_t nf)
{
	struct hc_db_object *o = &objs[db->nobjects];

	memset(o, 0, sizeof(*o));
	o->i = db->nobjects++;
	o->kind = (char *)kind;
	o->name = (char *)name;
	o->module = (char *)"";
	o->type = (char *)type;
	o->elem = elem;
	o->fal = o->all = fal;
	o->fields = &fields[f0];
	o->nfields = nf;
	db->objects = objs;
	db->has_objects = true;
}

/* an object of two 8-byte fields side by side, threads 1 and 2 (fields
   f0 and f0 + 1, named n0 and n1), each fal false */
static void two_slots(struct hc_db *db, size_t f0, const char *kind, const char *name, const char *type,
                      uint64_t elem, const char *n0, const char *n1, uint64_t fal)
{
	field(f0, n0, 0, 8, fal, 1);
	field(f0 + 1, n1, 8, 8, fal, 2);
	object(db, kind, name, type, elem, 2 * fal, f0, 2);
}

static bool has_fix(const struct hc_advice_fs *f, const char *a, const char *b)
{
	for (size_t k = 0; k < f->nfixes; k++)
		if (strstr(f->fixes[k], a) && (!b || strstr(f->fixes[k], b)))
			return true;
	return false;
}

static void test_scale(void)
{
	struct hc_db db;
	struct hc_report_scale s;
	char buf[64];

	base_db(&db, "ns", 3, 200000);
	counter(&db, "samples", 1000);
	counter(&db, "samples_blocked", 10);
	counter(&db, "samples_in_runtime", 0);
	hc_report_scale(&db, &s);
	CHECK(s.known && s.time);
	CHECK_EQ_U64(s.denom, 1010ull * 200000);
	CHECK_EQ_U64(s.samples, 1010);
	CHECK(hc_report_share(&s, 1010ull * 2000) > 0.99 && hc_report_share(&s, 1010ull * 2000) < 1.01);
	CHECK_STR(hc_report_share_str(buf, sizeof(buf), &s, 1010ull * 20000, true), "10.0%");
	CHECK_STR(hc_report_share_str(buf, sizeof(buf), &s, 1010ull * 1000, true), "0.5% negligible");
	CHECK_STR(hc_report_share_str(buf, sizeof(buf), &s, 0, true), "0.0%");
	CHECK_STR(hc_report_share_str(buf, sizeof(buf), &s, 5, true), "<0.1% negligible");

	/* different periods: approximate, said so */
	base_db(&db, "ns", 2, 100000);
	threads[1].period = 300000;
	counter(&db, "samples", 10);
	hc_report_scale(&db, &s);
	CHECK(s.known && s.denom == 10 * 200000 && strstr(s.basis, "approximate"));

	/* PMU: the kernel's periods, a share of accesses */
	base_db(&db, "transfers", 2, 20000);
	counter(&db, "pmu_period_sum", 5000000);
	counter(&db, "pmu_records", 250);
	counter(&db, "samples", 250);
	hc_report_scale(&db, &s);
	CHECK(s.known && !s.time && s.denom == 5000000 && strstr(s.basis, "not of time"));

	/* no samples counter: unknown, with the reason */
	base_db(&db, "ns", 2, 100000);
	hc_report_scale(&db, &s);
	CHECK(!s.known && s.why[0]);
	CHECK_STR(hc_report_share_str(buf, sizeof(buf), &s, 5, true), "-");
}

static void test_false_sharing(void)
{
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 1000);    /* 100 ms */
	counter(&db, "published", 100);
	/* 0: per-thread elements of a 48-byte struct through a wrapper */
	field(0, "tid_args[0].SX", 8, 8, 20000000, 1);
	field(1, "tid_args[1].SX", 56, 8, 20000000, 2);
	object(&db, "heap", "tid_args = CALLOC(...) at lr.c:133 in main", "lreg_args", 48,
	       40000000, 0, 2);
	/* 1: a static struct, two threads in two fields */
	field(2, "s.a", 0, 8, 9000000, 1);
	field(3, "s.b", 8, 8, 9000000, 2);
	object(&db, "static", "s", "struct st", 16, 18000000, 2, 2);
	/* 2: untyped malloc'ed slots 8 bytes apart */
	field(4, "", 0, 8, 5000000, 1);
	field(5, "", 8, 8, 5000000, 2);
	object(&db, "heap", "p = malloc(...) at h.c:36 in alloc", "", 0, 10000000, 4, 2);
	/* 3: the element size from field offsets, 64-byte elements: align only */
	field(6, "v[0].x", 0, 8, 500000, 1);
	field(7, "v[2].x", 128, 8, 400000, 2);
	field(8, "v[1].x", 64, 8, 100000, 2);
	object(&db, "heap", "v = malloc(...) at k.c:9 in main", "", 0, 1000000, 6, 3);
	db.t_all = db.t_false = 69000000;

	CHECK(hc_advice_build(&db, 8, 8, &a) == 0);
	CHECK_EQ_U64(a.nfs, 4);
	if (a.nfs == 4) {
		CHECK(a.fs[0].o == &objs[0]);
		CHECK(a.fs[0].share > 39.9 && a.fs[0].share < 40.1);
		CHECK(a.fs[0].speedup_bound > 1.66 && a.fs[0].speedup_bound < 1.67);
		CHECK_EQ_U64(a.fs[0].nthreads, 2);
		CHECK(strstr(a.fs[0].pattern, "own element of tid_args"));
		CHECK(has_fix(&a.fs[0], "pad lreg_args to 64 B", "48 -> 64"));
		CHECK(has_fix(&a.fs[0], "at lr.c:133 it comes from CALLOC", "aligned_alloc(64"));
		CHECK(a.fs[0].nassume >= 3);

		CHECK(a.fs[1].o == &objs[1]);
		CHECK(strstr(a.fs[1].pattern, "different fields"));
		CHECK(has_fix(&a.fs[1], "split the fields", "`b` (thread 2)"));
		CHECK(has_fix(&a.fs[1], "struct st", NULL));

		CHECK(a.fs[2].o == &objs[2]);
		CHECK(strstr(a.fs[2].pattern, "8-byte slots"));
		CHECK(has_fix(&a.fs[2], "pad each thread's slot from 8 to 64 B", "pad[56]"));
		CHECK(has_fix(&a.fs[2], "at h.c:36 replace malloc(...) by aligned_alloc(64", NULL));

		CHECK(a.fs[3].o == &objs[3]);
		CHECK_EQ_U64(a.fs[3].elem, 64);
		CHECK_STR(a.fs[3].elem_from, "field offsets");
		CHECK(strstr(a.fs[3].pattern, "straddles"));
		CHECK(!has_fix(&a.fs[3], "pad ", NULL));
		CHECK(has_fix(&a.fs[3], "align the block: at k.c:9", NULL));
		/* the layout is by offset */
		CHECK(a.fs[3].nfields == 3 && a.fs[3].fields[1].f->offset == 64 &&
		      a.fs[3].fields[1].elem == 1);
	}
	CHECK(!a.empty[0]);
	hc_advice_free(&a);
}

/* untyped per-thread parts larger than a line (Phoenix histogram at -O0:
   3096-byte elements, no DWARF type for the pointer): the part is the
   block's size over the parts the threads' fields fall in, not the 40 B
   across the boundary, the run's worker count first; small untyped slots
   stay slots (detection.md §5.72) */
static void test_untyped_parts(void)
{
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "ns", 5, 100000);
	counter(&db, "samples", 1000);    /* 100 ms */
	counter(&db, "published", 100);
	/* 0: 2 x 3096 B, thread 1's last counters, thread 2's first fields
	   (thread 2 also at +4700: not 4 parts, though the run has 4 workers) */
	field(0, "", 3056, 4, 3000000, 1);
	field(1, "", 3092, 4, 3000000, 1);
	field(2, "", 3096, 8, 4000000, 2);
	field(3, "", 4700, 8, 4000000, 2);
	object(&db, "heap", "allocation at hg.c:213 in main", "", 0, 14000000, 0, 4);
	objs[0].size = 6192;
	/* 1: 4 x 3096 B, only the boundary of threads 2|3 seen: 4 parts (the
	   run's workers), not the 2 that fit as well */
	field(4, "", 6180, 4, 2000000, 2);
	field(5, "", 6140, 4, 2000000, 2);
	field(6, "", 6200, 8, 2000000, 3);
	field(7, "", 6216, 8, 2000000, 3);
	object(&db, "heap", "allocation at hg.c:213 in main", "", 0, 8000000, 4, 4);
	objs[1].size = 12384;
	/* 2: 2 x 40 B slots: slots */
	field(8, "", 0, 8, 1500000, 1);
	field(9, "", 40, 8, 1500000, 2);
	object(&db, "heap", "q = malloc(...) at s.c:7 in main", "", 0, 3000000, 8, 2);
	objs[2].size = 80;
	db.t_all = db.t_false = 25000000;

	CHECK(hc_advice_build(&db, 8, 8, &a) == 0);
	CHECK_EQ_U64(a.nfs, 3);
	if (a.nfs == 3) {
		CHECK(a.fs[0].o == &objs[0]);
		CHECK(strstr(a.fs[0].pattern, "own 3096-byte part of the block (its 6192 B in 2 parts"));
		CHECK(strstr(a.fs[0].pattern, "pointer), not a multiple of 64 B: the line at each boundary"));
		CHECK(has_fix(&a.fs[0], "pad each thread's part from 3096 to 3136 B", "pad[40]"));
		CHECK(has_fix(&a.fs[0], "align the block: at hg.c:213", NULL));
		CHECK(!has_fix(&a.fs[0], "slot", NULL));
		CHECK(a.fs[1].o == &objs[1]);
		CHECK(strstr(a.fs[1].pattern, "own 3096-byte part of the block (its 12384 B in 4 parts"));
		CHECK(a.fs[2].o == &objs[2]);
		CHECK(strstr(a.fs[2].pattern, "40-byte slots"));
	}
	hc_advice_free(&a);
}

/* a scalar static's false sharing is its line's, not within it (Phoenix
   kmeans: `modified` beside `points` and `means`): the advice names the
   module's other small variables with false sharing and gives the
   variable a line of its own (detection.md §5.72) */
static void test_scalar_statics(void)
{
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 1000);    /* 100 ms */
	counter(&db, "published", 100);
	field(0, "modified", 0, 4, 8000000, 1);
	object(&db, "static", "modified", "int", 4, 8000000, 0, 1);
	objs[0].size = 4;
	objs[0].module = (char *)"/x/kmeans";
	field(1, "points", 0, 8, 5000000, 2);
	object(&db, "static", "points", "int **", 8, 5000000, 1, 1);
	objs[1].size = 8;
	objs[1].module = (char *)"/x/kmeans";
	db.t_all = db.t_false = 13000000;

	CHECK(hc_advice_build(&db, 8, 8, &a) == 0);
	CHECK_EQ_U64(a.nfs, 2);
	if (a.nfs == 2) {
		CHECK(a.fs[0].o == &objs[0]);
		CHECK(strstr(a.fs[0].pattern, "modified is 4 B, one variable"));
		CHECK(strstr(a.fs[0].pattern, "likely its neighbours: `points`)"));
		CHECK(has_fix(&a.fs[0], "give modified a line of its own", "alignas(64)"));
		CHECK(!strstr(a.fs[0].pattern, "within 64 bytes"));
		CHECK(strstr(a.fs[1].pattern, "`modified`"));
	}
	hc_advice_free(&a);
}

/* an array member of a struct variable: DWARF's element (the struct) is
   not the array's; the element size comes from the offsets */
static void test_member_array(void)
{
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 1000);
	two_slots(&db, 0, "static", "false_line", "struct line", 64, "false_line.w[0]", "false_line.w[1]", 3000000);
	db.t_all = db.t_false = 6000000;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 1) {
		CHECK_EQ_U64(a.fs[0].elem, 8);
		CHECK_STR(a.fs[0].elem_from, "field offsets");
		CHECK_STR(a.fs[0].type, "");
		CHECK(!strstr(a.fs[0].pattern, "straddles"));
		CHECK(has_fix(&a.fs[0], "give each element of false_line.w its own line", "8 -> 64"));
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 1", a.nfs);
	}
	hc_advice_free(&a);
}

/* a static array of doubles whose elements are written by whichever
   thread a pool handed the task to (C-Thread-Pool's out[i], accuracy.md
   Session 26): not "fields of one double" to split, but elements to pad or
   work to hand out in runs of a line; a struct element with two threads in
   it is still a struct to split */
static void test_handed_elements(void)
{
	static const uint32_t by[8] = { 1, 2, 2, 1, 2, 1, 1, 2 };
	static char names[8][16];
	struct hc_db db;
	struct hc_advice a;
	size_t k = 0;

	base_db(&db, "transfers", 3, 1);
	/* 0: out[0..7], each written by the worker that ran its task, all
	   read by main (thread 0) */
	for (int i = 0; i < 8; i++) {
		snprintf(names[i], sizeof(names[i]), "out[%d]", i);
		field(k++, names[i], 8 * (uint64_t)i, 8, 40, by[i]);
	}
	field(k, "out[0]", 0, 8, 10, 0);
	tids[k][1] = 1;     /* one field of two threads: main's and a worker's */
	fields[k++].nthreads = 2;
	object(&db, "static", "out", "double", 8, 330, 0, k);
	/* 1: a struct element with two threads in it: still fields to split */
	field(k++, "r[0].a", 0, 8, 150, 1);
	field(k++, "r[0].b", 8, 8, 150, 2);
	object(&db, "static", "r", "struct rec", 16, 300, 9, 2);
	db.t_all = db.t_false = 630;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 2) {
		CHECK(a.fs[0].o == &objs[0]);
		CHECK_MSG(strstr(a.fs[0].pattern, "each by different threads over the run") &&
		          !strstr(a.fs[0].pattern, "fields"), "pattern: %s", a.fs[0].pattern);
		CHECK(has_fix(&a.fs[0], "give each element its own line: make out an array of", "8 -> 64"));
		CHECK(has_fix(&a.fs[0], "runs of at least 8 consecutive elements of out", "schedule(dynamic, 8)"));
		CHECK(!has_fix(&a.fs[0], "split the fields", NULL));
		CHECK(a.fs[1].o == &objs[1]);
		CHECK(has_fix(&a.fs[1], "split the fields", "struct rec"));
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 2", a.nfs);
	}
	hc_advice_free(&a);

	/* per-thread counters cnt[1..4], each its thread's, main (0) reads
	   them all: per-thread elements, main's reads left out */
	base_db(&db, "transfers", 5, 1);
	k = 0;
	for (int i = 1; i <= 4; i++) {
		snprintf(names[i], sizeof(names[i]), "cnt[%d]", i);
		field(k++, names[i], 8 * (uint64_t)i, 8, 100, (uint32_t)i);
		field(k++, names[i], 8 * (uint64_t)i, 8, 5, 0);
	}
	object(&db, "static", "cnt", "long", 8, 420, 0, k);
	db.t_all = db.t_false = 420;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 1) {
		CHECK_MSG(strstr(a.fs[0].pattern, "own element of cnt"), "pattern: %s", a.fs[0].pattern);
		CHECK(!has_fix(&a.fs[0], "runs of at least", NULL));
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 1", a.nfs);
	}
	hc_advice_free(&a);
}

/* §5.73: a static partition's blocks (NPB CG's q, two threads' halves
   meeting at q[3500] | q[3501]; four threads' quarters), false sharing at
   the boundaries only: blocks to round to whole lines, not elements to
   pad, and not work handed out at run time */
static void test_partition_blocks(void)
{
	static const int64_t el[9] = { 3496, 3497, 3498, 3499, 3500, 3501, 3502, 3503, 7000 };
	static char names[16][24];
	struct hc_db db;
	struct hc_advice a;
	size_t k = 0;

	base_db(&db, "ns", 2, 500000);
	for (int i = 0; i < 9; i++) {
		snprintf(names[i], sizeof(names[i]), "q[%lld]", (long long)el[i]);
		field(k++, names[i], 8 * (uint64_t)el[i], 8, 5000000, el[i] <= 3500 ? 0 : 1);
	}
	object(&db, "static", "q", "double", 8, 45000000, 0, k);
	db.t_all = db.t_false = 45000000;
	counter(&db, "samples", 4000);
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 1) {
		CHECK_MSG(strstr(a.fs[0].pattern, "2 threads each write their own block of consecutive elements of q") &&
		          strstr(a.fs[0].pattern, "(q[3500] | q[3501]), 1 boundary") &&
		          !strstr(a.fs[0].pattern, "different threads over the run"), "pattern: %s", a.fs[0].pattern);
		CHECK(has_fix(&a.fs[0], "blocks of a multiple of 8 elements of q", "aligned(64)"));
		CHECK(!has_fix(&a.fs[0], "give each element its own line", NULL));
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 1", a.nfs);
	}
	hc_advice_free(&a);

	/* four quarters of x[0..4095] (int), two elements seen on each side
	   of each boundary */
	base_db(&db, "ns", 4, 500000);
	k = 0;
	for (int b = 1; b <= 3; b++)
		for (int d = -2; d < 2; d++) {
			int i = 1024 * b + d;
			snprintf(names[k], sizeof(names[k]), "x[%d]", i);
			field(k, names[k], 4 * (uint64_t)i, 4, 10000000, (uint32_t)(d < 0 ? b - 1 : b));
			k++;
		}
	object(&db, "static", "x", "int", 4, 120000000, 0, k);
	db.t_all = db.t_false = 120000000;
	counter(&db, "samples", 4000);
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 1) {
		CHECK_MSG(strstr(a.fs[0].pattern, "4 threads each write their own block") &&
		          strstr(a.fs[0].pattern, "(x[1023] | x[1024]), 3 boundaries"), "pattern: %s", a.fs[0].pattern);
		CHECK_MSG(has_fix(&a.fs[0], "blocks of a multiple of 16 elements of x", NULL), "fixes: %zu, %s",
		          a.fs[0].nfixes, a.fs[0].nfixes ? a.fs[0].fixes[0] : "");
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 1", a.nfs);
	}
	hc_advice_free(&a);
}

/* a runtime's name must start a name: a block from the program's own
   decomp_setup() is not the OpenMP runtime's (omp_), nor bsem_post's the
   threading library's (sem_); nor is a source file named omp_*.c (§5.76's
   omp_crit.c:56 was "synchronization in the OpenMP runtime":
   test_omp_file) */
static void test_runtime_names(void)
{
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 1000);
	two_slots(&db, 0, "heap", "p = decomp_setup(...) at d.c:5 in main", "", 0, "", "", 3000000);
	two_slots(&db, 2, "heap", "q = bsem_post(...) at t.c:9 in main", "", 0, "", "", 2000000);
	db.t_all = db.t_false = 10000000;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	CHECK_EQ_U64(a.nfs, 2);
	for (size_t k = 0; k < a.nfs; k++) {
		CHECK_MSG(!strstr(a.fs[k].pattern, "runtime") && !strstr(a.fs[k].pattern, "threading library"),
		          "pattern: %s", a.fs[k].pattern);
		CHECK(has_fix(&a.fs[k], "pad each thread's slot from 8 to 64 B", NULL));
	}
	hc_advice_free(&a);
}

/* negligible objects get no change; a library's own data (allocated
   inside GOMP_parallel) gets none either */
static void test_negligible_and_library(void)
{
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 1000);    /* 100 ms */
	field(0, "v[0]", 0, 8, 250000, 1);
	field(1, "v[1]", 8, 8, 250000, 2);
	object(&db, "heap", "v = malloc(...) at a.c:3 in main", "double", 8, 500000, 0, 2);
	field(2, "", 128, 4, 2000000, 1);
	field(3, "", 132, 4, 2000000, 2);
	object(&db, "heap", "GOMP_parallel(...) at lulesh.cc:1114 in CalcForceForNodes", "", 0,
	       4000000, 2, 2);
	db.t_all = db.t_false = 4500000;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 2) {
		CHECK(a.fs[0].o == &objs[1]);
		CHECK(strstr(a.fs[0].pattern, "inside GOMP_parallel(...) called at lulesh.cc:1114"));
		CHECK(a.fs[0].nfixes == 1 && has_fix(&a.fs[0], "no change in this program's code", NULL));
		CHECK(a.fs[1].o == &objs[0] && a.fs[1].share < 1);
		CHECK(a.fs[1].nfixes == 1 && has_fix(&a.fs[1], "no change advised", "negligible"));
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 2", a.nfs);
	}
	hc_advice_free(&a);

	/* one thread alone in its elements is not the per-thread pattern */
	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 1000);
	field(0, "w[0]", 0, 8, 3000000, 1);
	field(1, "w[1]", 8, 8, 3000000, 1);
	object(&db, "static", "w", "long", 8, 6000000, 0, 2);
	db.t_all = db.t_false = 6000000;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 1)
		CHECK(!strstr(a.fs[0].pattern, "own element"));
	else {
		CHECK_MSG(false, "%zu false-sharing objects, want 2", a.nfs);
	}
	hc_advice_free(&a);
}

/* C++: a std::vector's storage is the program's data (cxx_stats' per-thread
   Stats, accuracy suite), its element type read from the allocating call;
   -O0's 4-byte halves of one 8-byte element make one slot; a std::thread's
   state is still the library's own; slots that two threads share (a
   queue's writer and reader) are no per-thread slots */
static void test_cxx_containers(void)
{
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "transfers", 5, 1);
	field(0, "", 0, 4, 300, 1);
	field(1, "", 4, 4, 100, 1);
	field(2, "", 8, 4, 300, 2);
	field(3, "", 12, 4, 100, 2);
	field(4, "", 16, 4, 300, 3);
	object(&db, "heap", "std::vector<(anonymous namespace)::Stats, std::allocator<(anonymous "
	       "namespace)::Stats> >::vector(...) at cxx_stats.cc:49 in main", "", 0, 1100, 0, 5);
	two_slots(&db, 5, "heap", "std::thread::thread<void (&)(int), int>(...) at t.cc:9 in main",
	          "", 0, "", "", 400);
	db.t_all = db.t_false = 1900;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 2) {
		CHECK(a.fs[0].o == &objs[0]);
		CHECK_MSG(strstr(a.fs[0].pattern, "8-byte elements of a C++ container of Stats") &&
		          !strstr(a.fs[0].pattern, "standard library"), "pattern: %s", a.fs[0].pattern);
		CHECK(has_fix(&a.fs[0], "struct alignas(64) Stats", "8 -> 64"));
		CHECK(!has_fix(&a.fs[0], "no change in this program's code", NULL));
		CHECK(!has_fix(&a.fs[0], "aligned_alloc", NULL));
		CHECK(a.fs[1].o == &objs[1]);
		CHECK(strstr(a.fs[1].pattern, "by the C++ standard library"));
		CHECK(has_fix(&a.fs[1], "no change in this program's code", NULL));
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 2", a.nfs);
	}
	hc_advice_free(&a);

	/* rigtorp::SPSCQueue<int>'s slots: the producer (0) writes them, the
	   consumer (1) reads them; most false transfers on fields of both */
	base_db(&db, "transfers", 2, 1);
	field(0, "", 64, 4, 1000, 0);
	tids[0][1] = 1;
	fields[0].nthreads = 2;
	field(1, "", 68, 4, 900, 0);
	tids[1][1] = 1;
	fields[1].nthreads = 2;
	field(2, "", 72, 8, 100, 0);
	field(3, "", 80, 4, 50, 1);
	object(&db, "heap", "std::allocator_traits<std::allocator<int> >::allocate(...) at "
	       "SPSCQueue.h:77 in rigtorp::SPSCQueue<int, std::allocator<int> >::SPSCQueue <- main",
	       "", 0, 2050, 0, 4);
	db.t_all = db.t_false = 2050;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 1) {
		CHECK_MSG(!strstr(a.fs[0].pattern, "their own") && !strstr(a.fs[0].pattern, "standard library"),
		          "pattern: %s", a.fs[0].pattern);
		CHECK(has_fix(&a.fs[0], "SPSCQueue.h:77", "struct alignas(64) { T v; }"));
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 1", a.nfs);
	}
	hc_advice_free(&a);

	/* clang names the allocation by libstdc++'s __new_allocator<T> */
	base_db(&db, "transfers", 3, 1);
	two_slots(&db, 0, "heap", "std::__new_allocator<Stats>::allocate(...) at new_allocator.h:137 "
	          "in std::allocator_traits<std::allocator<Stats> >::allocate <- main", "", 0, "", "", 500);
	db.t_all = db.t_false = 1000;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 1)
		CHECK(has_fix(&a.fs[0], "struct alignas(64) Stats", "8 -> 64"));
	else
		CHECK_MSG(false, "%zu false-sharing objects, want 1", a.nfs);
	hc_advice_free(&a);
}

/* exact mode (unit transfers, no sampled total): an object whose false
   sharing is a sliver of all the communication counted (a few lines at
   the threads' chunk boundaries, NPB CG's r, q, z) gets no padding
   advice; one that carries much of it keeps the fix */
static void test_exact_negligible(void)
{
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "transfers", 2, 1);
	field(0, "r[7000]", 56000, 8, 185, 0);
	field(1, "r[7001]", 56008, 8, 183, 1);
	object(&db, "static", "r", "double", 8, 368, 0, 2);
	field(2, "acc[0]", 0, 8, 400000, 0);
	field(3, "acc[1]", 8, 8, 400000, 1);
	object(&db, "static", "acc", "double", 8, 800000, 2, 2);
	db.t_all = 15500000;
	db.t_false = 800368;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 2) {
		CHECK(a.fs[0].o == &objs[1] && a.fs[0].share < 0);
		CHECK(has_fix(&a.fs[0], "give each element its own line: make acc an array", NULL));
		CHECK(a.fs[1].o == &objs[0]);
		CHECK(a.fs[1].nfixes == 1 &&
		      has_fix(&a.fs[1], "no change advised", "of all the communication counted"));
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 2", a.nfs);
	}
	hc_advice_free(&a);
}

static void test_true_sharing_and_empty(void)
{
	struct hc_db db;
	struct hc_advice a;
	char why[1024];

	/* one thread */
	base_db(&db, "ns", 1, 100000);
	counter(&db, "samples", 5000);
	hc_report_empty_reason(&db, why, sizeof(why));
	CHECK(strstr(why, "only one thread"));
	/* no sample */
	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 0);
	hc_report_empty_reason(&db, why, sizeof(why));
	CHECK(strstr(why, "no sample was taken"));
	/* too short */
	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 40);
	counter(&db, "published", 3);
	hc_report_empty_reason(&db, why, sizeof(why));
	CHECK(strstr(why, "too short"));
	/* stores never sampled */
	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 5000);
	counter(&db, "published", 0);
	hc_report_empty_reason(&db, why, sizeof(why));
	CHECK(strstr(why, "no store was sampled"));
	/* nothing shared */
	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 5000);
	counter(&db, "published", 700);
	hc_report_empty_reason(&db, why, sizeof(why));
	CHECK(strstr(why, "nothing shared") && strstr(why, "700 published"));
	/* no profile */
	base_db(&db, "ns", 0, 100000);
	db.read = 0;
	db.found = 2;
	db.skipped = 2;
	hc_report_empty_reason(&db, why, sizeof(why));
	CHECK(strstr(why, "no profile could be read"));
	/* communication: no reason */
	db.t_all = 1;
	hc_report_empty_reason(&db, why, sizeof(why));
	CHECK_STR(why, "");

	/* no code pairs, no objects: no advice, no crash */
	base_db(&db, "ns", 2, 100000);
	counter(&db, "samples", 5000);
	counter(&db, "published", 700);
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	CHECK(a.nfs == 0 && a.nts == 0 && a.empty[0]);
	hc_advice_free(&a);
}

/* What the sampler left out in a crowded process: the thresholds of each
   cut, both together, and the empty result's reason naming it. */
static void test_coverage(void)
{
	struct hc_report_coverage c = { .samples = 1000, .thinned = 0, .armed = 50, .gated = 9 };
	struct hc_db db;
	char buf[768], why[1024];

	CHECK(!hc_report_coverage_cut(&c, buf, sizeof(buf)) && !buf[0]);       /* neither */
	c.gated = 10, c.armed = 10, c.threads_gated = 3;
	CHECK(hc_report_coverage_cut(&c, buf, sizeof(buf)));                   /* gated: 10 >= 10 */
	CHECK(strstr(buf, "refused 10 watchpoint sets and let 10 through (3 threads"));
	CHECK(!strstr(buf, "stood for") && strstr(buf, "HPCRUN_COMM_SWITCH_NS=0"));
	c.armed = 11;
	CHECK(!hc_report_coverage_cut(&c, buf, sizeof(buf)));                  /* more armed */
	c.thinned = 2999;
	CHECK(!hc_report_coverage_cut(&c, buf, sizeof(buf)));                  /* 3.999 periods */
	c.thinned = 3000;
	CHECK(hc_report_coverage_cut(&c, buf, sizeof(buf)));                   /* 4.0 periods */
	CHECK(strstr(buf, "1000 samples stood for 4.0 sampling periods each") && !strstr(buf, "gate"));
	c.gated = 472, c.armed = 4;
	CHECK(hc_report_coverage_cut(&c, buf, sizeof(buf)) && strstr(buf, "through (3 threads") &&
	      strstr(buf, "); the crowded process's 1000 samples"));
	c = (struct hc_report_coverage){ 0 };
	CHECK(!hc_report_coverage_cut(&c, buf, sizeof(buf)));                  /* no sample */

	/* an empty database of a gated run says why it may be empty */
	base_db(&db, "ns", 4, 500000);
	counter(&db, "samples", 688);
	counter(&db, "published", 27);
	counter(&db, "watch_armed", 4);
	counter(&db, "watch_gated", 472);
	counter(&db, "samples_thinned", 2676);
	hc_report_empty_reason(&db, why, sizeof(why));
	CHECK(strstr(why, "none found in 688 samples") && strstr(why, "472 of 476") &&
	      strstr(why, "per sample: 4.9") && !strstr(why, "nothing shared"));
	hc_report_coverage_of(&db, &c);
	CHECK(c.samples == 688 && c.thinned == 2676 && c.armed == 4 && c.gated == 472);
}

/* An access in the C library's memcpy is its caller's: the code pair names
   the call's line, " via" the routine; a program's own memcpy_rows is not
   the C library's and keeps its line. */
static void test_copy_routine_pairs(void)
{
	static struct hc_db_name lms[] = { { 1, "/usr/lib/x86_64-linux-gnu/libc.so.6" }, { 2, "/tmp/app" } };
	static struct hc_db_name files[] = { { 1, "/src/app.c" } };
	static struct hc_db_proc procs[] = { { 1, "worker", 2, 1, 40 },
	                                     { 2, "__memmove_avx_unaligned_erms", 1, 0, 0 },
	                                     { 3, "memcpy_rows", 2, 1, 65 } };
	static struct hc_db_node nodes[] = {
		{ .id = 10, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 1, .lm = 2, .f = 1, .l = 40 },
		{ .id = 11, .parent = 0, .type = HC_DB_N_C, .proc = 1, .lm = 2, .f = 1, .l = 42 },
		{ .id = 12, .parent = 1, .type = HC_DB_N_PF, .proc = 2, .lm = 1 },
		{ .id = 13, .parent = 2, .type = HC_DB_N_S, .proc = 2, .lm = 1 },
		{ .id = 14, .parent = 0, .type = HC_DB_N_S, .proc = 1, .lm = 2, .f = 1, .l = 50 },
		{ .id = 15, .parent = 0, .type = HC_DB_N_C, .proc = 1, .lm = 2, .f = 1, .l = 60 },
		{ .id = 16, .parent = 5, .type = HC_DB_N_PF, .proc = 3, .lm = 2, .f = 1, .l = 65 },
		{ .id = 17, .parent = 6, .type = HC_DB_N_S, .proc = 3, .lm = 2, .f = 1, .l = 70 },
	};
	static uint64_t ids[] = { 10, 11, 12, 13, 14, 15, 16, 17 };
	static uint32_t idx[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	struct hc_db_codepair pairs[] = { { .c = 13, .p = 14, .all = 5, .tru = 5 },
	                                  { .c = 17, .p = 13, .all = 3, .fal = 3 } };
	struct hc_report_loc_pair *lp = NULL;
	size_t n = 0, total = 0;
	struct hc_db db;

	memset(&db, 0, sizeof(db));
	db.lms = lms, db.nlms = 2, db.files = files, db.nfiles = 1;
	db.procedures = procs, db.nprocedures = 3, db.nodes = nodes, db.nnodes = 8;
	db.node_ids = ids, db.node_idx = idx;
	CHECK(hc_report_loc_pairs(&db, pairs, 2, 0, &lp, &n, &total) == 0 && n == 2);
	for (size_t k = 0; k < n; k++) {
		const char *a = lp[k].a, *b = lp[k].b;
		bool first = lp[k].all == 5;

		CHECK_MSG(first ? (!strcmp(a, "app.c:42 (worker) via __memmove_avx_unaligned_erms") &&
		                   !strcmp(b, "app.c:50 (worker)")) ||
		                  (!strcmp(b, "app.c:42 (worker) via __memmove_avx_unaligned_erms") &&
		                   !strcmp(a, "app.c:50 (worker)"))
		                : strstr(a, "app.c:70 (memcpy_rows)") || strstr(b, "app.c:70 (memcpy_rows)"),
		          "pair %zu: %s <-> %s", k, a, b);
	}
	free(lp);
}

/* a statement in a system header (std::atomic's store and load inlined
   into the program, the path as clang records it) is named by the
   program's line that called it, via the library function; two different
   program lines over the same header line stay two rows (SPSCQueue's index
   stores and loads all read "atomic_base.h:464 <-> :488" otherwise) */
static void test_system_header_pairs(void)
{
	static struct hc_db_name lms[] = { { 1, "/tmp/app" } };
	static struct hc_db_name files[] = {
		{ 1, "/src/queue.h" },
		{ 2, "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/bits/atomic_base.h" } };
	static struct hc_db_proc procs[] = { { 1, "push", 1, 1, 100 }, { 2, "pop", 1, 1, 180 },
	                                     { 3, "std::__atomic_base<unsigned long>::store", 1, 2, 460 },
	                                     { 4, "std::__atomic_base<unsigned long>::load", 1, 2, 480 } };
	static struct hc_db_node nodes[] = {
		{ .id = 10, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 1, .lm = 1, .f = 1, .l = 100 },
		{ .id = 11, .parent = 0, .type = HC_DB_N_A, .proc = 3, .lm = 1, .f = 1, .l = 118 },
		{ .id = 12, .parent = 1, .type = HC_DB_N_S, .proc = 3, .lm = 1, .f = 2, .l = 464 },
		{ .id = 13, .parent = 0, .type = HC_DB_N_A, .proc = 4, .lm = 1, .f = 1, .l = 115 },
		{ .id = 14, .parent = 3, .type = HC_DB_N_S, .proc = 4, .lm = 1, .f = 2, .l = 488 },
		{ .id = 20, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 2, .lm = 1, .f = 1, .l = 180 },
		{ .id = 21, .parent = 5, .type = HC_DB_N_C, .proc = 2, .lm = 1, .f = 1, .l = 183 },
		{ .id = 22, .parent = 6, .type = HC_DB_N_PF, .proc = 4, .lm = 1, .f = 2, .l = 480 },
		{ .id = 23, .parent = 7, .type = HC_DB_N_S, .proc = 4, .lm = 1, .f = 2, .l = 488 },
		{ .id = 24, .parent = 5, .type = HC_DB_N_A, .proc = 3, .lm = 1, .f = 1, .l = 190 },
		{ .id = 25, .parent = 9, .type = HC_DB_N_S, .proc = 3, .lm = 1, .f = 2, .l = 464 },
	};
	static uint64_t ids[] = { 10, 11, 12, 13, 14, 20, 21, 22, 23, 24, 25 };
	static uint32_t idx[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	/* push's store (12) -> pop's load (23, called); pop's store (25) -> push's load (14) */
	struct hc_db_codepair pairs[] = { { .c = 23, .p = 12, .all = 7, .tru = 7 },
	                                  { .c = 14, .p = 25, .all = 4, .tru = 4 } };
	struct hc_report_loc_pair *lp = NULL;
	size_t n = 0, total = 0;
	struct hc_db db;

	memset(&db, 0, sizeof(db));
	db.lms = lms, db.nlms = 1, db.files = files, db.nfiles = 2;
	db.procedures = procs, db.nprocedures = 4, db.nodes = nodes, db.nnodes = 11;
	db.node_ids = ids, db.node_idx = idx;
	CHECK(hc_report_loc_pairs(&db, pairs, 2, 0, &lp, &n, &total) == 0);
	CHECK_EQ_U64(n, 2);
	for (size_t k = 0; k < n; k++) {
		const char *a = lp[k].a, *b = lp[k].b;
		const char *x = lp[k].all == 7 ? "queue.h:118 (push) via std::__atomic_base<unsigned long>::store"
		                               : "queue.h:115 (push) via std::__atomic_base<unsigned long>::load";
		const char *y = lp[k].all == 7 ? "queue.h:183 (pop) via std::__atomic_base<unsigned long>::load"
		                               : "queue.h:190 (pop) via std::__atomic_base<unsigned long>::store";
		CHECK_MSG((!strcmp(a, x) && !strcmp(b, y)) || (!strcmp(a, y) && !strcmp(b, x)),
		          "pair %zu: %s <-> %s", k, a, b);
	}
	free(lp);
}

/* true sharing between two OpenMP parallel loops gets the loops' advice
   (the same schedule, or fuse them), a plain hand-off the generic one, and
   serial code against a function a parallel region calls (XSBench's
   grid_init and calculate_micro_xs) the serial phase's, unless the serial
   statement is where a region starts (the launch, LULESH's :2075) */
static void test_parallel_loop_pairs(void)
{
	static struct hc_db_name lms[] = { { 1, "/tmp/lulesh" } };
	static struct hc_db_name files[] = { { 1, "/src/lulesh.cc" } };
	static struct hc_db_proc procs[] = {
		{ 1, "CalcEnergyForElems [parallel region at lulesh.cc:2075]", 1, 1, 2075 },
		{ 2, "EvalEOSForElems [parallel region at lulesh.cc:2240]", 1, 1, 2240 },
		{ 3, "main", 1, 1, 10 }, { 4, "worker", 1, 1, 40 }, { 5, "grid_init", 1, 1, 44 },
		{ 6, "main [parallel region at lulesh.cc:30]", 1, 1, 30 }, { 7, "calc", 1, 1, 300 } };
	static struct hc_db_node nodes[] = {
		{ .id = 10, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 1, .lm = 1, .f = 1, .l = 2075 },
		{ .id = 11, .parent = 0, .type = HC_DB_N_S, .proc = 1, .lm = 1, .f = 1, .l = 2080 },
		{ .id = 20, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 2, .lm = 1, .f = 1, .l = 2240 },
		{ .id = 21, .parent = 2, .type = HC_DB_N_S, .proc = 2, .lm = 1, .f = 1, .l = 2248 },
		{ .id = 30, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 3, .lm = 1, .f = 1, .l = 10 },
		{ .id = 31, .parent = 4, .type = HC_DB_N_S, .proc = 3, .lm = 1, .f = 1, .l = 12 },
		{ .id = 40, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 4, .lm = 1, .f = 1, .l = 40 },
		{ .id = 41, .parent = 6, .type = HC_DB_N_S, .proc = 4, .lm = 1, .f = 1, .l = 44 },
		{ .id = 50, .parent = 4, .type = HC_DB_N_PF, .proc = 5, .lm = 1, .f = 1, .l = 44 },
		{ .id = 51, .parent = 8, .type = HC_DB_N_S, .proc = 5, .lm = 1, .f = 1, .l = 45 },
		{ .id = 60, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 6, .lm = 1, .f = 1, .l = 30 },
		{ .id = 61, .parent = 10, .type = HC_DB_N_PF, .proc = 7, .lm = 1, .f = 1, .l = 300 },
		{ .id = 62, .parent = 11, .type = HC_DB_N_S, .proc = 7, .lm = 1, .f = 1, .l = 310 },
		{ .id = 32, .parent = 4, .type = HC_DB_N_S, .proc = 3, .lm = 1, .f = 1, .l = 30 },
	};
	static uint64_t ids[] = { 10, 11, 20, 21, 30, 31, 32, 40, 41, 50, 51, 60, 61, 62 };
	static uint32_t idx[] = { 0, 1, 2, 3, 4, 5, 13, 6, 7, 8, 9, 10, 11, 12 };
	static struct hc_db_codepair pairs[] = { { .c = 21, .p = 11, .all = 9, .tru = 9 },
	                                         { .c = 41, .p = 31, .all = 5, .tru = 5 },
	                                         { .c = 62, .p = 51, .all = 3, .tru = 3 },
	                                         { .c = 32, .p = 62, .all = 2, .tru = 2 } };
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "ns", 3, 100000);
	counter(&db, "samples", 1000);
	db.lms = lms, db.nlms = 1, db.files = files, db.nfiles = 1;
	db.procedures = procs, db.nprocedures = 7, db.nodes = nodes, db.nnodes = 14;
	db.node_ids = ids, db.node_idx = idx;
	db.pairs = pairs, db.npairs = 4;
	db.t_all = db.t_true = 19;
	CHECK(hc_advice_build(&db, 3, 4, &a) == 0);
	CHECK_EQ_U64(a.nts, 4);
	if (a.nts == 4) {
		CHECK_MSG(!strcmp(a.ts[0].kind, "producer→consumer between OpenMP parallel loops"),
		          "kind: %s", a.ts[0].kind);
		CHECK(strstr(a.ts[0].detail, "schedule(static)") && strstr(a.ts[0].detail, "fuse"));
		CHECK_STR(a.ts[1].kind, "producer→consumer");
		CHECK_STR(a.ts[2].kind, "serial code ↔ parallel region");
		CHECK_MSG(!strncmp(a.ts[2].detail, "lulesh.cc:45 (grid_init) runs outside every", 43) &&
		          strstr(a.ts[2].detail, "lulesh.cc:310 (calc) inside one") &&
		          strstr(a.ts[2].detail, "first touch"), "detail: %s", a.ts[2].detail);
		CHECK_STR(a.ts[3].kind, "parallel region launch");
		CHECK_MSG(!strncmp(a.ts[3].detail, "lulesh.cc:30 (main) starts a parallel region", 44) &&
		          strstr(a.ts[3].detail, "fewer, larger regions"), "detail: %s", a.ts[3].detail);
	}
	hc_advice_free(&a);
}

/* a statement in a source file named omp_*.c is the program's: the
   critical section's merge `omp_crit.c:56` in two threads is a migratory
   update, not the OpenMP runtime's synchronization (has_name) */
static void test_omp_file(void)
{
	static struct hc_db_name lms[] = { { 1, "/tmp/omp_crit" } };
	static struct hc_db_name files[] = { { 1, "/src/omp_crit.c" } };
	static struct hc_db_proc procs[] = { { 1, "main [parallel region at omp_crit.c:38]", 1, 1, 38 } };
	static struct hc_db_node nodes[] = {
		{ .id = 10, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 1, .lm = 1, .f = 1, .l = 38 },
		{ .id = 11, .parent = 0, .type = HC_DB_N_S, .proc = 1, .lm = 1, .f = 1, .l = 56 },
	};
	static uint64_t ids[] = { 10, 11 };
	static uint32_t idx[] = { 0, 1 };
	static struct hc_db_codepair pairs[] = { { .c = 11, .p = 11, .all = 9, .tru = 9 } };
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "ns", 2, 100000);
	counter(&db, "samples", 1000);
	db.lms = lms, db.nlms = 1, db.files = files, db.nfiles = 1;
	db.procedures = procs, db.nprocedures = 1, db.nodes = nodes, db.nnodes = 2;
	db.node_ids = ids, db.node_idx = idx;
	db.pairs = pairs, db.npairs = 1;
	db.t_all = db.t_true = 9;
	CHECK(hc_advice_build(&db, 3, 4, &a) == 0);
	CHECK_EQ_U64(a.nts, 1);
	if (a.nts == 1)
		CHECK_MSG(!strcmp(a.ts[0].kind, "migratory read-modify-write"), "kind: %s", a.ts[0].kind);
	hc_advice_free(&a);
}

/* §5.73: main's stack written by two threads of an OpenMP region (the
   region's shared locals, NPB MG and CG) is no array of slots: no slot
   size, no "DWARF type for the pointer"; the region's clauses advised */
static void test_omp_stack(void)
{
	static struct hc_db_name lms[] = { { 1, "/tmp/mg" } };
	static struct hc_db_name files[] = { { 1, "/src/mg.c" } };
	static struct hc_db_proc procs[] = { { 1, "resid [parallel region at mg.c:516]", 1, 1, 516 } };
	static struct hc_db_node nodes[] = {
		{ .id = 10, .parent = HC_DB_NONE, .type = HC_DB_N_PF, .proc = 1, .lm = 1, .f = 1, .l = 516 },
		{ .id = 11, .parent = 0, .type = HC_DB_N_S, .proc = 1, .lm = 1, .f = 1, .l = 520 },
	};
	static uint64_t ids[] = { 10, 11 };
	static uint32_t idx[] = { 0, 1 };
	static struct hc_db_codepair opairs[] = { { .c = 11, .p = 11, .all = 9, .fal = 9 } };
	struct hc_db db;
	struct hc_advice a;

	base_db(&db, "ns", 2, 500000);
	counter(&db, "samples", 1000);
	db.lms = lms, db.nlms = 1, db.files = files, db.nfiles = 1;
	db.procedures = procs, db.nprocedures = 1, db.nodes = nodes, db.nnodes = 2;
	db.node_ids = ids, db.node_idx = idx;
	field(0, "", 8366280, 4, 20000000, 0);
	field(1, "", 8366320, 4, 20000000, 1);
	object(&db, "stack", "stack of thread 0", "", 0, 40000000, 0, 2);
	objs[0].size = 8384512;
	objs[0].pairs = opairs, objs[0].npairs = 1;
	db.t_all = db.t_false = 40000000;
	CHECK(hc_advice_build(&db, 3, 3, &a) == 0);
	if (a.nfs == 1) {
		CHECK_MSG(strstr(a.fs[0].pattern, "locals of this stack") && strstr(a.fs[0].pattern, "OpenMP") &&
		          !strstr(a.fs[0].pattern, "slots") && !strstr(a.fs[0].pattern, "pointer"),
		          "pattern: %s", a.fs[0].pattern);
		CHECK(has_fix(&a.fs[0], "private(...)", "reduction(...)"));
		CHECK(!has_fix(&a.fs[0], "pad each thread's slot", NULL));
	} else {
		CHECK_MSG(false, "%zu false-sharing objects, want 1", a.nfs);
	}
	hc_advice_free(&a);
}

int main(void)
{
	test_scale();
	test_false_sharing();
	test_untyped_parts();
	test_partition_blocks();
	test_omp_stack();
	test_scalar_statics();
	test_member_array();
	test_handed_elements();
	test_runtime_names();
	test_omp_file();
	test_cxx_containers();
	test_negligible_and_library();
	test_exact_negligible();
	test_true_sharing_and_empty();
	test_coverage();
	test_copy_routine_pairs();
	test_system_header_pairs();
	test_parallel_loop_pairs();
	return hc_test_done("test_advice");
}
