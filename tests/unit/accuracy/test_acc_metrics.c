/* SPDX-License-Identifier: BSD-3-Clause */
/* test_acc_metrics.c — the accuracy suite's comparison metrics on small
   hand-made inputs with hand-derived answers: precision and recall over
   thread pairs (shares at their thresholds, matrices of different sizes,
   empty runs), the false fraction, the choice of the top false-sharing
   object, code pairs aggregated by location and their agreement, and the
   CSV record splitter. */
#include <errno.h>
#include <math.h>
#include "hc_test.h"
#include "acc_metrics.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

/* a symmetric n x n matrix from upper-triangle triples (i, j, v) */
static struct acc_matrix sym(int n, double *store, const double (*cells)[3], int ncells)
{
	struct acc_matrix m = { n, store };

	memset(store, 0, sizeof(double) * (size_t)n * (size_t)n);
	for (int k = 0; k < ncells; k++) {
		int i = (int)cells[k][0], j = (int)cells[k][1];
		store[i * n + j] = store[j * n + i] = cells[k][2];
	}
	return m;
}

static void test_precision_recall(void)
{
	double es[16], ss[16], v;
	int np, nf;
	/* exact: 100 in all; (1,2) 60 %, (2,3) 30 %, (0,1) 9 %, (0,3) 1 % */
	const double ec[][3] = { { 1, 2, 60 }, { 2, 3, 30 }, { 0, 1, 9 }, { 0, 3, 1 } };
	/* sampled: (1,2) right, (1,3) and (0,2) not in the exact support */
	const double sc[][3] = { { 1, 2, 50 }, { 1, 3, 25 }, { 0, 2, 25 } };
	struct acc_matrix e = sym(4, es, ec, 4), s = sym(4, ss, sc, 3);

	CHECK(NEAR(acc_total(&e), 100));        /* the upper triangle only */
	CHECK(NEAR(acc_total(&s), 100));
	CHECK(acc_precision(&s, &e, ACC_PRECISION_SHARE, &v) == 0);
	CHECK_MSG(NEAR(v, 0.5), "precision %g, expected 0.5", v);
	/* pairs >= 5 %: (1,2), (2,3), (0,1); the sampler has only (1,2) */
	CHECK(acc_recall(&s, &e, ACC_RECALL_SHARE, &v, &np, &nf) == 0);
	CHECK(np == 3 && nf == 1);
	CHECK_MSG(NEAR(v, 1.0 / 3), "recall %g, expected 1/3", v);
	/* the same run against itself: perfect */
	CHECK(acc_precision(&e, &e, ACC_PRECISION_SHARE, &v) == 0 && NEAR(v, 1));
	CHECK(acc_recall(&e, &e, ACC_RECALL_SHARE, &v, &np, &nf) == 0 && NEAR(v, 1));
	/* a sampled volume only on (0,3), the 1 % pair: precision 1 (it is at
	   the precision threshold), recall 0 (below the recall threshold) */
	{
		const double c[][3] = { { 0, 3, 7 } };
		struct acc_matrix m = sym(4, ss, c, 1);
		CHECK(acc_precision(&m, &e, ACC_PRECISION_SHARE, &v) == 0 && NEAR(v, 1));
		CHECK(acc_recall(&m, &e, ACC_RECALL_SHARE, &v, &np, &nf) == 0 && NEAR(v, 0));
	}
}

static void test_thresholds(void)
{
	double es[9], ss[9], v;
	int np, nf;
	/* (0,1) holds exactly 5 %: a recall pair; (0,2) 0.5 %: not even a
	   precision pair */
	const double ec[][3] = { { 0, 1, 10 }, { 1, 2, 189 }, { 0, 2, 1 } };
	const double sc[][3] = { { 0, 1, 1 }, { 0, 2, 3 } };
	struct acc_matrix e = sym(3, es, ec, 3), s = sym(3, ss, sc, 2);

	CHECK(acc_recall(&s, &e, ACC_RECALL_SHARE, &v, &np, &nf) == 0);
	CHECK(np == 2 && nf == 1 && NEAR(v, 0.5));
	CHECK(acc_precision(&s, &e, ACC_PRECISION_SHARE, &v) == 0 && NEAR(v, 0.25));
}

static void test_sizes_and_empty(void)
{
	double es[16], ss[4], zs[16], v;
	int np, nf;
	/* the exact run saw 4 threads, the sampled one 2 (the others never
	   communicated in it): the missing cells are 0 */
	const double ec[][3] = { { 0, 1, 50 }, { 2, 3, 50 } };
	const double sc[][3] = { { 0, 1, 8 } };
	struct acc_matrix e = sym(4, es, ec, 2), s = sym(2, ss, sc, 1), z = sym(4, zs, NULL, 0);

	CHECK(acc_precision(&s, &e, ACC_PRECISION_SHARE, &v) == 0 && NEAR(v, 1));
	CHECK(acc_recall(&s, &e, ACC_RECALL_SHARE, &v, &np, &nf) == 0);
	CHECK(np == 2 && nf == 1 && NEAR(v, 0.5));
	CHECK(NEAR(acc_cell(&s, 3, 2), 0) && NEAR(acc_cell(&s, -1, 0), 0));
	/* the sampler reported nothing: precision undefined, recall 0 */
	CHECK(acc_precision(&z, &e, ACC_PRECISION_SHARE, &v) == -EDOM);
	CHECK(acc_recall(&z, &e, ACC_RECALL_SHARE, &v, &np, &nf) == 0 && NEAR(v, 0));
	/* nothing to find (a private program): recall undefined; whatever the
	   sampler reports is on no exact pair: precision 0 */
	CHECK(acc_recall(&s, &z, ACC_RECALL_SHARE, &v, &np, &nf) == -EDOM && np == 0);
	CHECK(acc_precision(&s, &z, ACC_PRECISION_SHARE, &v) == 0 && NEAR(v, 0));
	CHECK(acc_precision(&z, &z, ACC_PRECISION_SHARE, &v) == -EDOM);
}

static void test_false_fraction(void)
{
	double v = -1;

	CHECK(acc_false_fraction(200, 50, &v) == 0 && NEAR(v, 0.25));
	CHECK(acc_false_fraction(0, 0, &v) == -EDOM);
	CHECK(acc_negligible(999) == 1);
	CHECK(acc_negligible(ACC_MIN_EXACT) == 0);
}

static void test_top_object(void)
{
	/* ranked by false volume, as objects.csv */
	const struct acc_object a[] = {
		{ "static", "stats", 100, 90, 0 },
		{ "heap", "main (x.c:3)", 50, 10, 0 },
		{ "stack", "stack of thread 1", 20, 0, 0 },
	};
	const struct acc_object b[] = {
		{ "heap", "stats", 80, 70, 0 },            /* same name, other kind */
		{ "static", "stats", 10, 5, 0 },
	};
	const struct acc_object none[] = { { "static", "flag", 30, 0, 0 } };

	CHECK(acc_top_fs(a, 3, 0.5) == 0);
	CHECK(acc_top_fs(a, 3, 0.049) == -1);   /* run below 5 % false: none */
	CHECK(acc_top_fs(none, 1, 0.5) == -1);
	CHECK(acc_top_fs(a, 0, 0.5) == -1);
	CHECK(acc_same_object(a, 0, a, 0) == 1);
	CHECK(acc_same_object(a, 0, b, 0) == 0);
	CHECK(acc_same_object(a, 0, b, 1) == 1);
	CHECK(acc_same_object(a, -1, b, -1) == 1);
	CHECK(acc_same_object(a, 0, b, -1) == 0);
	/* a heap object named with and without its variable (the source line
	   read or not): the same allocation site; another site or kind is not */
	const struct acc_object v[] = {
		{ "heap", "recs = calloc(...) at heap_atomic.c:36 in main", 10, 9, 0 },
		{ "heap", "calloc(...) at heap_atomic.c:36 in main", 10, 9, 0 },
		{ "heap", "calloc(...) at heap_atomic.c:37 in main", 10, 9, 0 },
		{ "static", "recs = x", 10, 9, 0 },
		{ "static", "x", 10, 9, 0 },
		{ "heap", "std::vector<int, std::allocator<int> >::vector(...) at s.cc:49 in main", 10, 9, 0 },
	};
	CHECK(acc_same_object(v, 0, v, 1) == 1);
	CHECK(acc_same_object(v, 1, v, 0) == 1);
	CHECK(acc_same_object(v, 0, v, 2) == 0);
	CHECK(acc_same_object(v, 3, v, 4) == 0);
	CHECK(acc_same_object(v, 5, v, 5) == 1);
	CHECK(acc_same_object(v, 5, v, 1) == 0);

	/* an object whose false sharing exact mode cannot see (libgomp's team
	   structure) is passed over, and named as the one passed over */
	const struct acc_object h[] = {
		{ "heap", "GOMP_parallel(...) at r.c:24 in main", 60, 50, 1 },
		{ "static", "counters", 40, 20, 0 },
		{ "static", "total", 30, 0, 0 },
	};
	CHECK(acc_top_fs(h, 3, 0.5) == 1);
	CHECK(acc_hidden_fs(h, 3, 0.5) == 0);
	CHECK(acc_top_fs(h, 1, 0.5) == -1);     /* nothing else: none */
	CHECK(acc_hidden_fs(h, 1, 0.5) == 0);
	CHECK(acc_hidden_fs(h, 3, 0.01) == -1); /* no choice made: nothing passed over */
	CHECK(acc_hidden_fs(a, 3, 0.5) == -1);  /* the top was comparable */
}

static void test_code_pairs(void)
{
	struct acc_cpairs s = { 0 }, t = { 0 };
	struct acc_loc x = { "worker", "a.c:10" }, y = { "worker", "a.c:12" },
		       z = { "main", "a.c:40" }, y2 = { "worker", "a.c:13" };
	long top;

	CHECK(acc_cpairs_top(&s) == -1);
	CHECK(acc_cpairs_add(&s, &x, &y, 10) == 0);
	CHECK(acc_cpairs_add(&s, &y, &x, 5) == 0);     /* the same pair, other order */
	CHECK(acc_cpairs_add(&s, &x, &x, 3) == 0);     /* one statement, two threads */
	CHECK(s.n == 2);
	top = acc_cpairs_top(&s);
	CHECK(top == 0 && NEAR(s.p[top].v, 15));
	CHECK(acc_cpairs_add(&s, &z, &y, 20) == 0);
	top = acc_cpairs_top(&s);
	CHECK(top == 2 && NEAR(s.p[top].v, 20));
	CHECK_STR(s.p[top].a.func, "main");     /* canonical order */

	CHECK(acc_cpairs_add(&t, &y, &z, 1) == 0);
	CHECK(acc_cpair_agree(&s.p[2], &t.p[0]) == ACC_AGREE_LINE);
	CHECK(acc_cpairs_add(&t, &x, &y2, 9) == 0);    /* other lines, same functions */
	CHECK(acc_cpair_agree(&s.p[0], &t.p[1]) == ACC_AGREE_FUNC);
	CHECK(acc_cpair_agree(&s.p[2], &t.p[1]) == ACC_AGREE_NO);
	CHECK(acc_cpair_agree(NULL, &t.p[1]) == ACC_AGREE_NA);
	/* exact mode's near tie: any pair within ACC_CP_TIE of its top is a top */
	{
		struct acc_cpairs u = { 0 }, v = { 0 };
		CHECK(acc_cpairs_agree(&u, &t, ACC_CP_TIE) == ACC_AGREE_NA);
		CHECK(acc_cpairs_add(&u, &x, &y, 50) == 0);     /* sampled top */
		CHECK(acc_cpairs_add(&u, &z, &y, 40) == 0);
		CHECK(acc_cpairs_add(&v, &z, &y, 100) == 0);    /* exact top */
		CHECK(acc_cpairs_add(&v, &x, &y, 95) == 0);     /* 5 % below it: a tie */
		CHECK(acc_cpairs_agree(&u, &v, ACC_CP_TIE) == ACC_AGREE_LINE);
		CHECK(acc_cpairs_agree(&u, &v, 0) == ACC_AGREE_NO);
		v.p[1].v = 85;                                    /* 15 % below: not a tie */
		CHECK(acc_cpairs_agree(&u, &v, ACC_CP_TIE) == ACC_AGREE_NO);
		CHECK(acc_cpairs_add(&v, &x, &y2, 92) == 0);    /* same functions, other line */
		CHECK(acc_cpairs_agree(&u, &v, ACC_CP_TIE) == ACC_AGREE_FUNC);
		acc_cpairs_free(&u);
		acc_cpairs_free(&v);
	}
	CHECK_STR(acc_agree_name(ACC_AGREE_LINE), "yes");
	CHECK_STR(acc_agree_name(ACC_AGREE_NA), "-");
	acc_cpairs_free(&s);
	acc_cpairs_free(&t);
	CHECK(s.n == 0 && s.p == NULL);
}

static void test_csv(void)
{
	char l1[] = "0,heap,\"main (a.c:3), inlined\",\"say \"\"hi\"\"\",,5";
	char l2[] = "\"unterminated,x";
	char l3[] = "a\"b,c";
	char l4[] = "1,2,3";
	char l5[] = "\"x\"y,1";
	char *f[8];

	CHECK(acc_csv_split(l1, f, 8) == 6);
	CHECK_STR(f[0], "0");
	CHECK_STR(f[2], "main (a.c:3), inlined");
	CHECK_STR(f[3], "say \"hi\"");
	CHECK_STR(f[4], "");
	CHECK_STR(f[5], "5");
	CHECK(acc_csv_split(l2, f, 8) == -EINVAL);
	CHECK(acc_csv_split(l3, f, 8) == -EINVAL);
	CHECK(acc_csv_split(l4, f, 2) == -EINVAL);     /* more fields than room */
	CHECK(acc_csv_split(l5, f, 8) == -EINVAL);
}

/* a reference of several exact runs: each run one vote, whatever it
   counted (acc_metrics.h) */
static void test_refs(void)
{
	double as[4], bs[9], v;
	int np, nf;
	const double ac[][3] = { { 0, 1, 100 } };
	const double bc[][3] = { { 1, 2, 10000 } };
	struct acc_matrix a = sym(2, as, ac, 1), b = sym(3, bs, bc, 1), e = { 0, NULL };
	double ta = acc_total(&a), tb = acc_total(&b), mean = (ta + tb) / 2;

	CHECK(acc_matrix_add(&e, &a, mean / (2 * ta)) == 0);
	CHECK(acc_matrix_add(&e, &b, mean / (2 * tb)) == 0);   /* grows 2 -> 3 */
	CHECK(e.n == 3);
	CHECK_MSG(NEAR(acc_total(&e), 5050), "total %g, expected the mean 5050", acc_total(&e));
	CHECK(NEAR(acc_cell(&e, 0, 1), 2525) && NEAR(acc_cell(&e, 2, 1), 2525));
	/* a sampled run on (0,1) only: a pair of the mean reference (50 %),
	   where the plain sum would hold it at 1 % (below the recall share) */
	CHECK(acc_recall(&a, &e, ACC_RECALL_SHARE, &v, &np, &nf) == 0 && np == 2 && nf == 1);
	CHECK(acc_precision(&a, &e, ACC_PRECISION_SHARE, &v) == 0 && NEAR(v, 1));
	free(e.v);

	/* objects: merged by kind and name, re-ranked by false volume; hidden
	   only when every run with false volume on it says so */
	const struct acc_object r1[] = {
		{ "static", "stats", 100, 80, 0 },
		{ "heap", "team", 50, 40, 1 },
		{ "static", "flag", 10, 0, 0 },
	};
	const struct acc_object r2[] = {
		{ "heap", "team", 100, 90, 1 },
		{ "static", "flag", 10, 5, 0 },
		{ "heap", "stats", 5, 5, 0 },          /* same name, other kind */
	};
	struct acc_object *o = NULL;
	size_t n = 0, cap = 0;

	CHECK(acc_objects_add(&o, &n, &cap, r1, 3, 1) == 0);
	CHECK(acc_objects_add(&o, &n, &cap, r2, 3, 0.5) == 0);
	acc_objects_rank(o, n);
	CHECK(n == 4);
	/* team 40 + 0.5 * 90 = 85 overtakes stats' 80 */
	CHECK(!strcmp(o[0].name, "team") && NEAR(o[0].fal, 85) && NEAR(o[0].all, 100) && o[0].hidden);
	CHECK(!strcmp(o[1].name, "stats") && !strcmp(o[1].kind, "static") && NEAR(o[1].fal, 80));
	CHECK(!strcmp(o[2].name, "flag") && NEAR(o[2].fal, 2.5) && !o[2].hidden);
	CHECK(!strcmp(o[3].kind, "heap") && !strcmp(o[3].name, "stats"));
	for (size_t i = 0; i < n; i++) {
		free((char *)o[i].kind);
		free((char *)o[i].name);
	}
	/* a visible run and a hidden one: comparable */
	const struct acc_object h1[] = { { "heap", "team", 10, 5, 0 } }, h2[] = { { "heap", "team", 10, 5, 1 } };
	n = 0;
	CHECK(acc_objects_add(&o, &n, &cap, h2, 1, 1) == 0 && o[0].hidden);
	CHECK(acc_objects_add(&o, &n, &cap, h1, 1, 1) == 0 && !o[0].hidden);
	CHECK(acc_objects_add(&o, &n, &cap, h2, 1, 1) == 0 && !o[0].hidden);
	free((char *)o[0].kind);
	free((char *)o[0].name);
	free(o);

	/* code pairs: summed by location with the run's weight */
	struct acc_cpairs c1 = { 0 }, c2 = { 0 }, m = { 0 };
	struct acc_loc x = { "put", "q.c:10" }, y = { "get", "q.c:20" }, z = { "put", "q.c:11" };

	CHECK(acc_cpairs_add(&c1, &x, &y, 10) == 0 && acc_cpairs_add(&c1, &z, &y, 30) == 0);
	CHECK(acc_cpairs_add(&c2, &y, &x, 1000) == 0);
	CHECK(acc_cpairs_merge(&m, &c1, 1) == 0 && acc_cpairs_merge(&m, &c2, 0.04) == 0);
	CHECK(m.n == 2);
	CHECK(acc_cpairs_top(&m) == 0 && NEAR(m.p[0].v, 50) && NEAR(m.p[1].v, 30));
	acc_cpairs_free(&c1);
	acc_cpairs_free(&c2);
	acc_cpairs_free(&m);
}

int main(void)
{
	test_precision_recall();
	test_thresholds();
	test_sizes_and_empty();
	test_false_fraction();
	test_top_object();
	test_code_pairs();
	test_csv();
	test_refs();
	return hc_test_done("test_acc_metrics");
}
