/* SPDX-License-Identifier: BSD-3-Clause */
/* test_placement.c — the thread placement (lib/report/placement.c, issue 15
   point 6) on hwloc synthetic topologies with designed thread matrices
   whose best placement is known: heavy pairs end on one package, a few
   threads that fit on one package are packed there, a ring of 16 threads on
   8 cores pairs neighbours, the run's placement is kept when it is already
   optimal; one thread, one core, no communication, unequal packages and
   SMT places; the commands printed (OMP_PLACES, taskset, hwloc-bind);
   end to end through the analyzer: a measurement of 4 threads on
   "pack:2 core:2 pu:1" whose heavy pairs ran across packages, the
   placement in summary.txt and in the reports read back from the database
   (text summary, JSON model). */
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "db/db.h"
#include "db/format.h"
#include "hc_test.h"
#include "fixture.h"
#include "report/placement.h"
#include "report/report.h"

#define MAXC 64

/* The cores of an hwloc synthetic topology, as the database's labels give them. */
static uint32_t synth(const char *desc, struct hc_place_core *c)
{
	hwloc_topology_t h;
	uint32_t n = 0;
	int ncores;

	if (hwloc_topology_init(&h) < 0 || hwloc_topology_set_synthetic(h, desc) < 0 ||
	    hwloc_topology_load(h) < 0) {
		CHECK_MSG(0, "hwloc cannot build \"%s\"", desc);
		return 0;
	}
	ncores = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
	for (int i = 0; i < ncores && n < MAXC; i++) {
		hwloc_obj_t core = hwloc_get_obj_by_type(h, HWLOC_OBJ_CORE, (unsigned)i);
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, core);
		hwloc_obj_t pu = NULL;
		size_t len = 0;

		memset(&c[n], 0, sizeof(c[n]));
		c[n].core = (int)core->logical_index;
		c[n].socket = pkg ? (int)pkg->os_index : -1;
		while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(h, core->cpuset, HWLOC_OBJ_PU, pu)))
			len += (size_t)snprintf(c[n].cpus + len, sizeof(c[n].cpus) - len, "%s%u",
			                        len ? "," : "", pu->os_index);
		n++;
	}
	hwloc_topology_destroy(h);
	return n;
}

static int pkg_of(const struct hc_place_core *c, const struct hc_place_out *o, uint32_t t)
{
	return c[o->core[t]].socket;
}

/* 2 packages x 4 cores, 8 threads: pairs (0,5) (1,6) (2,7) (3,4) exchange
   100 each, a ring 0-1-...-7-0 exchanges 1 per edge. Best: every pair on
   one package, two pairs per package, and of the three ways to pair the
   pairs two cut 4 ring edges, one 6: the best crosses packages with 4. The run
   had thread i on core i: every heavy pair across packages. */
static void pairs(void)
{
	struct hc_place_core c[MAXC];
	struct hc_place_edge e[16];
	int32_t ran[8];
	struct hc_place_out o;
	struct hc_place_in in = { 0 };
	size_t ne = 0;
	uint32_t n = synth("pack:2 core:4 pu:1", c);
	static const uint32_t pr[4][2] = { { 0, 5 }, { 1, 6 }, { 2, 7 }, { 3, 4 } };

	CHECK(n == 8);
	for (int p = 0; p < 4; p++)
		e[ne++] = (struct hc_place_edge){ pr[p][1], pr[p][0], 100 };   /* either direction */
	for (uint32_t i = 0; i < 8; i++)
		e[ne++] = (struct hc_place_edge){ i, (i + 1) % 8, 1 };
	for (int i = 0; i < 8; i++)
		ran[i] = i;
	in = (struct hc_place_in){ .nthreads = 8, .edges = e, .nedges = ne, .cores = c, .ncores = n,
	                           .ran_on = ran };
	CHECK(hc_place_compute(&in, &o) == 0);
	CHECK_MSG(o.status == HC_PLACE_OK, "%s", o.why);
	CHECK_EQ_U64(o.total, 408);
	CHECK(o.nsockets == 2 && o.cores_per_socket == 4 && !o.flat && !o.kept);
	for (int p = 0; p < 4 && o.core; p++)
		CHECK_MSG(pkg_of(c, &o, pr[p][0]) == pkg_of(c, &o, pr[p][1]), "pair %u-%u split",
		          pr[p][0], pr[p][1]);
	{
		/* every thread on its own core, four per package */
		int per[2] = { 0, 0 }, seen[8] = { 0 };
		for (int t = 0; t < 8 && o.core; t++) {
			per[pkg_of(c, &o, (uint32_t)t)]++;
			CHECK(!seen[o.core[t]]);
			seen[o.core[t]] = 1;
		}
		CHECK(per[0] == 4 && per[1] == 4);
	}
	/* pairs {A,B}+{C,D} or {A,D}+{B,C} cross 4 ring edges, {A,C}+{B,D} 6 */
	CHECK_EQ_U64(o.cross_socket, 4);
	CHECK_EQ_U64(o.cross_core, 408);                 /* one thread per core: all of it */
	/* the run: every pair across (3 on core 3, 4 on core 4), and ring edges 3-4, 7-0 */
	CHECK(o.run_known && o.run_cost_known);
	CHECK_EQ_U64(o.run_cross_socket, 402);
	CHECK(o.cost < o.run_cost);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		uint32_t lab[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
		char places[256];

		hc_place_print(f, "  ", &in, &o, lab, 0);
		fclose(f);
		CHECK(strstr(buf, "8 threads on 8 cores (2 packages x 4 cores)"));
		CHECK_MSG(strstr(buf, "across packages") && strstr(buf, "98.5%") && strstr(buf, " 1.0%"), "%s", buf);
		CHECK(strstr(buf, "OMP_PLACES='{"));
		CHECK(strstr(buf, "OMP_PROC_BIND=close"));
		CHECK(strstr(buf, "taskset -pc ") && strstr(buf, "hwloc-bind --tid $TID_7 core:"));
		hc_place_omp_places(&in, &o, places, sizeof places);
		{
			int k = 0;
			for (const char *q = places; *q; q++)
				k += *q == '{';
			CHECK_MSG(k == 8, "%s", places);
		}
		free(buf);
	}
	hc_place_free(&o);
	/* the run already had the best placement: kept */
	for (int t = 0; t < 8; t++)
		ran[t] = -1;
	ran[0] = 0; ran[5] = 1; ran[3] = 2; ran[4] = 3;  /* package 0 */
	ran[1] = 4; ran[6] = 5; ran[2] = 6; ran[7] = 7;  /* package 1 */
	CHECK(hc_place_compute(&in, &o) == 0);
	CHECK(o.status == HC_PLACE_OK && o.kept);
	CHECK_EQ_U64(o.cross_socket, o.run_cross_socket);
	CHECK_EQ_U64(o.run_cross_socket, 4);             /* ring edges 0-1, 5-6, 2-3, 7-0 */
	hc_place_free(&o);
}

/* 4 threads, pairs (0,2) and (1,3) at 100, (0,1) at 5, on 2 x 4 cores: they
   fit on one package and nothing needs to cross packages. */
static void packed(void)
{
	struct hc_place_core c[MAXC];
	struct hc_place_edge e[] = { { 0, 2, 100 }, { 1, 3, 100 }, { 0, 1, 5 } };
	struct hc_place_out o;
	uint32_t n = synth("pack:2 core:4 pu:1", c);
	struct hc_place_in in = { .nthreads = 4, .edges = e, .nedges = 3, .cores = c, .ncores = n };

	CHECK(hc_place_compute(&in, &o) == 0);
	CHECK(o.status == HC_PLACE_OK);
	CHECK_EQ_U64(o.cross_socket, 0);
	CHECK_EQ_U64(o.cross_core, 205);
	CHECK(!o.run_known);
	for (int t = 1; t < 4 && o.core; t++) {
		CHECK(pkg_of(c, &o, (uint32_t)t) == pkg_of(c, &o, 0));
		for (int u = 0; u < t; u++)
			CHECK(o.core[t] != o.core[u]);
	}
	hc_place_free(&o);
	/* the run's volumes from the events (threads migrated): compared */
	in.run_events = true;
	in.run_cross_core = 205;
	in.run_cross_socket = 105;
	CHECK(hc_place_compute(&in, &o) == 0);
	CHECK(o.run_known && !o.run_cost_known && o.run_cross_socket == 105);
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		hc_place_print(f, "", &in, &o, NULL, 0);
		fclose(f);
		CHECK_MSG(strstr(buf, "-100.0%"), "%s", buf);   /* across packages: 105 -> 0 */
		free(buf);
	}
	hc_place_free(&o);
}

/* 16 threads in a ring (10 per edge) on 8 cores: two neighbours per core,
   the ring cut twice between the packages. */
static void ring(void)
{
	struct hc_place_core c[MAXC];
	struct hc_place_edge e[16];
	struct hc_place_out o;
	uint32_t n = synth("pack:2 core:4 pu:1", c);
	int per[8] = { 0 };

	for (uint32_t i = 0; i < 16; i++)
		e[i] = (struct hc_place_edge){ i, (i + 1) % 16, 10 };
	struct hc_place_in in = { .nthreads = 16, .edges = e, .nedges = 16, .cores = c, .ncores = n };
	CHECK(hc_place_compute(&in, &o) == 0);
	CHECK(o.status == HC_PLACE_OK);
	for (int t = 0; t < 16 && o.core; t++)
		per[o.core[t]]++;
	for (int k = 0; k < 8; k++)
		CHECK(per[k] == 2);
	CHECK_EQ_U64(o.cross_socket, 20);
	CHECK_EQ_U64(o.cross_core, 80);                  /* 8 of 16 edges inside a core */
	hc_place_free(&o);
}

/* Graceful cases. */
static void edges_cases(void)
{
	struct hc_place_core c[MAXC];
	struct hc_place_edge e[] = { { 0, 1, 7 } };
	struct hc_place_out o;
	uint32_t n;

	/* one thread */
	n = synth("pack:2 core:4 pu:1", c);
	struct hc_place_in in = { .nthreads = 1, .edges = e, .nedges = 0, .cores = c, .ncores = n };
	CHECK(hc_place_compute(&in, &o) == 0 && o.status == HC_PLACE_ONE_THREAD);
	CHECK(strstr(o.why, "one thread"));
	hc_place_free(&o);
	/* one core, 3 threads */
	n = synth("pack:1 core:1 pu:1", c);
	in = (struct hc_place_in){ .nthreads = 3, .edges = e, .nedges = 1, .cores = c, .ncores = n };
	CHECK(hc_place_compute(&in, &o) == 0 && o.status == HC_PLACE_ONE_CORE);
	CHECK(strstr(o.why, "one core"));
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		hc_place_print(f, "", &in, &o, NULL, 0);
		fclose(f);
		CHECK(strstr(buf, "no placement proposed: one core"));
		free(buf);
	}
	hc_place_free(&o);
	/* no topology */
	in = (struct hc_place_in){ .nthreads = 2, .edges = e, .nedges = 1, .cores = c, .ncores = 0 };
	CHECK(hc_place_compute(&in, &o) == 0 && o.status == HC_PLACE_NO_TOPOLOGY);
	hc_place_free(&o);
	/* no communication */
	n = synth("pack:2 core:2 pu:1", c);
	in = (struct hc_place_in){ .nthreads = 4, .edges = e, .nedges = 0, .cores = c, .ncores = n };
	CHECK(hc_place_compute(&in, &o) == 0 && o.status == HC_PLACE_NO_COMM);
	hc_place_free(&o);
	/* more threads than cores: 3 threads, 2 cores, 0-1 heavy: they share a core */
	{
		struct hc_place_edge e3[] = { { 0, 1, 100 }, { 1, 2, 1 } };
		n = synth("pack:1 core:2 pu:1", c);
		in = (struct hc_place_in){ .nthreads = 3, .edges = e3, .nedges = 2, .cores = c, .ncores = n };
		CHECK(hc_place_compute(&in, &o) == 0 && o.status == HC_PLACE_OK);
		CHECK(o.core && o.core[0] == o.core[1] && o.core[2] != o.core[0]);
		CHECK_EQ_U64(o.cross_core, 1);
		{
			char *buf = NULL, places[64];
			size_t len = 0;
			FILE *f = open_memstream(&buf, &len);
			hc_place_print(f, "", &in, &o, NULL, 0);
			fclose(f);
			CHECK_MSG(strstr(buf, "more threads than cores") && !strstr(buf, "OMP_PLACES="), "%s", buf);
			CHECK(strstr(buf, "taskset -pc"));
			CHECK(hc_place_omp_places(&in, &o, places, sizeof places)[0] == 0);
			free(buf);
		}
		hc_place_free(&o);
	}
	/* packages of unequal size (a restricted machine): mapped on cores alone */
	{
		struct hc_place_core u[3] = { { 0, 0, "0" }, { 1, 0, "1" }, { 2, 1, "2" } };
		struct hc_place_edge e3[] = { { 0, 1, 100 }, { 1, 2, 1 } };
		in = (struct hc_place_in){ .nthreads = 3, .edges = e3, .nedges = 2, .cores = u, .ncores = 3 };
		CHECK(hc_place_compute(&in, &o) == 0 && o.status == HC_PLACE_OK && o.flat);
		hc_place_free(&o);
	}
}

/* SMT: a place is a core's PUs; 2 threads that talk go on the same package. */
static void smt(void)
{
	struct hc_place_core c[MAXC];
	struct hc_place_edge e[] = { { 0, 1, 50 } };
	struct hc_place_out o;
	char places[128];
	uint32_t n = synth("pack:2 core:2 pu:2", c);
	struct hc_place_in in = { .nthreads = 2, .edges = e, .nedges = 1, .cores = c, .ncores = n };

	CHECK(n == 4);
	CHECK(strcmp(c[0].cpus, "0,1") == 0 && strcmp(c[3].cpus, "6,7") == 0);
	CHECK(hc_place_compute(&in, &o) == 0 && o.status == HC_PLACE_OK);
	CHECK_EQ_U64(o.cross_socket, 0);
	CHECK(o.core && o.core[0] != o.core[1]);
	hc_place_omp_places(&in, &o, places, sizeof places);
	CHECK_MSG(strcmp(places, "{0,1},{2,3}") == 0 || strcmp(places, "{2,3},{0,1}") == 0 ||
	          strcmp(places, "{4,5},{6,7}") == 0 || strcmp(places, "{6,7},{4,5}") == 0, "%s", places);
	hc_place_free(&o);
}

/* 4 threads of one process, thread t on CPU t of "pack:2 core:2 pu:1":
   0-2 exchange 2000, 1-3 1000, 0-1 10. The run put both heavy pairs across
   the packages (3000 of 3010); the proposal has none across. */
static void analyzer(void)
{
	char *work = fx_tmpdir("place"), *meas = fx_join(work, "hpctoolkit-app-measurements");
	char *db = fx_join(work, "db"), *sp, *sum;
	const char *inputs[1] = { meas };
	struct hc_prof_module mod = { .id = 0, .base = 0x400000, .lo = 0x400000, .hi = 0x500000,
	                              .path = "/nonexistent/bin/app" };
	struct hc_prof_node nodes[2] = {
		{ .id = 0, .parent = HC_NONE, .lm = HC_NONE },
		{ .id = 1, .parent = 0, .lm = 0, .flags = HC_NODE_LEAF, .offset = 0x1234,
		  .m = { [HC_M_TRUE_SAMPLE] = 1 } },
	};
	/* per thread: its event (peer, weight) */
	static const uint32_t peer[4] = { 2, 0, 0, 1 };
	static const uint64_t wt[4] = { 1000, 10, 1000, 1000 };
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = 1, .outdir = db, .jobs = 1, .unit = -1 };
	struct hc_analysis_result res;
	char err[512] = "";

	fx_mkdir(meas);
	fx_write_topology(meas, 0x0a0b0c0du, "pack:2 core:2 pu:1");
	for (uint32_t t = 0; t < 4; t++) {
		struct fx_prof p;
		struct hc_prof_event ev = { .time = 2000, .weight = wt[t], .addr = 0x7f0000001000ull,
		                            .peer_addr = 0x7f0000001000ull, .len = 8, .peer_len = 8,
		                            .peer = peer[t], .cpu = (int32_t)t, .peer_cpu = (int32_t)peer[t],
		                            .ctx = 1, .peer_ctx = 1, .flags = HC_COMM_TRUE | HC_COMM_PEER_STORE };
		memset(&p, 0, sizeof p);
		p.th = (struct hc_prof_thread){ .index = t, .creator = t ? 0 : HC_NONE, .pid = 4242,
		                                .tid = 4242 + t, .sampler = HC_SAMPLER_SOFT,
		                                .unit = HC_UNIT_NS, .period = 1,
		                                .creation_ctx = t ? 1 : HC_NONE, .start_lm = HC_NONE,
		                                .start_ns = 1000, .end_ns = 3000 };
		snprintf(p.th.exe, sizeof p.th.exe, "/nonexistent/bin/app");
		p.hostid = 0x0a0b0c0du;
		p.mods = &mod;
		p.nmods = 1;
		p.nodes = nodes;
		p.nnodes = 2;
		p.evs = &ev;
		p.nevs = 1;
		free(fx_write_profile(meas, &p));
	}
	CHECK_MSG(hc_analysis_run(&o, &res, err, sizeof err) == 0, "analysis: %s", err);
	sp = fx_join(db, HC_DB_SUMMARY);
	sum = fx_read(sp, NULL);
	CHECK(sum != NULL);
	if (sum) {
		CHECK_MSG(strstr(sum, "Thread placement"), "%s", sum);
		CHECK_MSG(strstr(sum, "4 threads on 4 cores (2 packages x 2 cores)"), "%s", sum);
		/* across packages: 3000 of 3010 in the run, none proposed */
		CHECK_MSG(strstr(sum, "across packages               99.7%         0.3%    -99.7%"), "%s", sum);
		CHECK(strstr(sum, "OMP_PLACES='{"));
		CHECK(strstr(sum, "T0   -> core "));
		CHECK(strstr(sum, "hwloc-bind --tid $TID_3 core:"));
	}
	/* the reports read back from the database say the same */
	{
		struct hc_db *d = NULL;
		char *buf = NULL;
		size_t len = 0;
		FILE *f;
		struct hc_report_text_opts t = { .width = 120, .level = HC_DB_LEVEL_THREAD, .kind = HC_DB_KIND_ALL };

		CHECK_MSG(hc_db_open(db, &d, err, sizeof err) == 0, "%s", err);
		if (d) {
			f = open_memstream(&buf, &len);
			hc_report_text(d, f, &t);
			fclose(f);
			CHECK_MSG(strstr(buf, "Thread placement") &&
			          strstr(buf, "across packages               99.7%         0.3%    -99.7%"), "%s", buf);
			free(buf);
			buf = NULL;
			f = open_memstream(&buf, &len);
			hc_report_json(d, f, false);
			fclose(f);
			CHECK_MSG(strstr(buf, "\"placement\":[") && strstr(buf, "{\"process\":4242,\"host\":\"0a0b0c0d\",\"status\":\"ok\"") && strstr(buf, "\"omp_places\":\"{") &&
			          strstr(buf, "\"run_cross_package\":3000") &&
			          strstr(buf, "\"cross_package\":10"), "%.2000s", strstr(buf, "placement") ? strstr(buf, "placement") : buf);
			free(buf);
			hc_db_close(d);
		}
	}
	free(sum);
	free(sp);
	fx_rm_rf(work);
	free(db);
	free(meas);
	free(work);
}

int main(void)
{
	pairs();
	packed();
	ring();
	edges_cases();
	smt();
	analyzer();
	return hc_test_done("test_placement");
}
