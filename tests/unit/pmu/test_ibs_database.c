/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ibs_database.c — what the database says about an IBS measurement:
   two threads' IBS profiles (unit transfers, period P) with one detected
   communication merged by the analyzer; database.xml must validate against
   doc/database.xsd, name the sampler, carry the IBS scaling statement
   (<Measurement scaling=...>), and the matrix cell must be the recorded
   weight P (no further scaling). The same profiles as PEBS carry no
   scaling attribute. The PMU counters (issue 19) reach summary.txt: the
   period the kernel used, running below 95 % of enabled (overall and per
   thread), throttling, samples with approximate calling contexts. */
#include <stdlib.h>
#include <string.h>
#include "analysis/analysis.h"
#include "db/format.h"
#include "hc_test.h"
#include "fixture.h"

#define P 500000u

static void one(int sampler)
{
	char *work = fx_tmpdir("ibsdb"), *meas = fx_join(work, "hpctoolkit-app-measurements");
	char *db = fx_join(work, "db"), *meta, *text, *xsd, *mdir, *mpath;
	const char *inputs[1] = { meas };
	struct hc_prof_module mod = { .id = 0, .base = 0x400000, .lo = 0x400000, .hi = 0x500000,
	                              .path = "/nonexistent/bin/app" };
	struct hc_prof_node nodes[2] = {
		{ .id = 0, .parent = HC_NONE, .lm = HC_NONE },
		{ .id = 1, .parent = 0, .lm = 0, .flags = HC_NODE_LEAF, .offset = 0x1234,
		  .m = { [HC_M_TRUE_SAMPLE] = P } },
	};
	struct hc_prof_event ev = { .time = 2000, .weight = P, .addr = 0x7f0000001000ull,
	                            .peer_addr = 0x7f0000001000ull, .len = 8, .peer_len = 8, .peer = 0,
	                            .cpu = 1, .peer_cpu = 0, .ctx = 1, .peer_ctx = 1,
	                            .flags = HC_COMM_TRUE | HC_COMM_PEER_STORE };
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = 1, .outdir = db, .jobs = 1, .unit = -1 };
	struct hc_analysis_result res;
	struct fx_matrix m;
	char err[512] = "";

	fx_mkdir(meas);
	fx_write_topology(meas, 0x0a0b0c0du, "pack:1 core:2 pu:1");
	for (uint32_t t = 0; t < 2; t++) {
		struct fx_prof p;
		memset(&p, 0, sizeof p);
		p.th = (struct hc_prof_thread){ .index = t, .creator = t ? 0 : HC_NONE, .pid = 4242,
		                                .tid = 4242 + t, .sampler = (uint32_t)sampler,
		                                .unit = HC_UNIT_TRANSFERS, .period = P,
		                                .creation_ctx = t ? 1 : HC_NONE, .start_lm = HC_NONE,
		                                .start_ns = 1000, .end_ns = 3000 };
		snprintf(p.th.exe, sizeof p.th.exe, "/nonexistent/bin/app");
		p.hostid = 0x0a0b0c0du;
		p.mods = &mod;
		p.nmods = 1;
		p.nodes = nodes;
		p.nnodes = 2;
		p.evs = t ? &ev : NULL;
		p.nevs = t ? 1 : 0;
		{
			/* per thread: 10 records at P, throttled 3 times, 8 samples
			   delivered, 2 of them with callers unknown; thread 0's events
			   ran 5 of 10 ms, thread 1's all the time */
			static const struct fx_counter cn[2][8] = { {
				{ "pmu_period_sum", 10ull * P }, { "pmu_period_records", 10 },
				{ "pmu_time_enabled", 10000000 }, { "pmu_time_running", 5000000 },
				{ "pmu_throttled", 3 }, { "pmu_records", 10 },
				{ "samples_with_access_at_pc", 8 }, { "pmu_ctx_leaf_only", 2 },
			}, {
				{ "pmu_period_sum", 10ull * P }, { "pmu_period_records", 10 },
				{ "pmu_time_enabled", 10000000 }, { "pmu_time_running", 10000000 },
				{ "pmu_throttled", 3 }, { "pmu_records", 10 },
				{ "samples_with_access_at_pc", 8 }, { "pmu_ctx_leaf_only", 2 },
			} };
			p.cnts = cn[t];
			p.ncnts = sizeof cn[t] / sizeof cn[t][0];
		}
		free(fx_write_profile(meas, &p));
	}
	o.diag = stderr;
	CHECK_MSG(hc_analysis_run(&o, &res, err, sizeof err) == 0, "analysis: %s", err);
	meta = fx_join(db, HC_DB_META);
	xsd = fx_doc(HC_DB_META_XSD);
	CHECK(fx_validate(meta, xsd) == 0);
	text = fx_read(meta, NULL);
	CHECK(text != NULL);
	if (text) {
		if (sampler == HC_SAMPLER_IBS) {
			CHECK(strstr(text, "samplers=\"ibs\"") != NULL);
			CHECK(strstr(text, "scaling=\"" HC_DB_IBS_SCALING "\"") != NULL);
		} else {
			CHECK(strstr(text, "samplers=\"pebs\"") != NULL);
			CHECK(strstr(text, "scaling=") == NULL);
		}
		CHECK(strstr(text, "unit=\"transfers\"") != NULL);
		/* the thread below 95 % among database.xml's warnings (every report shows them) */
		CHECK_MSG(strstr(text, "thread 0 (pid 4242, tid 4242): its PMU events ran 50.0% of the time "
		                       "they were enabled"), "%s", text);
		CHECK(!strstr(text, "tid 4243): its PMU events ran"));
	}
	{
		char *sp = fx_join(db, HC_DB_SUMMARY), *sum = fx_read(sp, NULL);
		CHECK(sum != NULL);
		if (sum) {
			CHECK_MSG(strstr(sum, "PMU period in effect: mean 500,000 events (20 records)") ||
			          strstr(sum, "PMU period in effect: mean 500000 events (20 records)"),
			          "%s", sum);
			CHECK(strstr(sum, "warning: the PMU events ran 75.0% of the time they were enabled"));
			/* per thread: the one below 95 % named, the other not */
			/* (a database warning: the reports' Warnings section) */
			CHECK_MSG(strstr(sum, "  thread 0 (pid 4242, tid 4242): its PMU events ran 50.0% "
			                      "of the time they were enabled"), "%s", sum);
			CHECK(!strstr(sum, "tid 4243): its PMU events ran"));
			/* samples with callers unknown: counted and said */
			CHECK_MSG(strstr(sum, "note: 4 of 16 PMU samples (25.0%) have approximate calling "
			                      "contexts"), "%s", sum);
			CHECK(strstr(sum, "warning: the kernel throttled the PMU sampler 6 times"));
		}
		free(sum);
		free(sp);
	}
	mdir = fx_join(db, HC_DB_MATRICES);
	mpath = fx_join(mdir, "thread-true.csv");
	CHECK_MSG(fx_read_matrix(mpath, &m), "%s: %s", mpath, m.why);
	if (m.ok)
		CHECK(m.n == 2 && fx_cell(&m, 0, 1) == P && fx_cell(&m, 1, 0) == P);
	fx_free_matrix(&m);
	free(mpath);
	free(mdir);
	free(text);
	free(xsd);
	free(meta);
	fx_rm_rf(work);
	free(db);
	free(meas);
	free(work);
}

int main(void)
{
	one(HC_SAMPLER_IBS);
	one(HC_SAMPLER_PEBS);
	return hc_test_done("test_ibs_database");
}
