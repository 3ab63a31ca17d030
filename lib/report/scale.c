/* SPDX-License-Identifier: BSD-3-Clause */
/* scale.c — the denominator of "how much does the communication matter":
   what the sampler saw in all, in the database unit's basis.
   * soft (unit ns): the timer fires every `period` ns of a thread's CPU time
     (doc/detection.md, Unit), so the sampled CPU time is the number of timer
     expirations times the period: `samples` (handled) + `samples_blocked`
     (arrived while the runtime was busy) + `samples_in_runtime` (arrived in
     the runtime's own code) + `samples_thinned` (the periods a coarse
     sample of a crowded process stood for beyond its own, runtime
     sampler/rate.h), summed over the profiles (database.xml counters),
     times the threads' period (threads.csv). A communication of
     weight w ns is w ns of that CPU time.
   * pebs/ibs (unit transfers): every record stands for `period` memory
     events; the kernel's real periods are summed in `pmu_period_sum`
     (doc/samplers.md). The share is of sampled memory accesses (loads and
     stores, or IBS ops), not of time: these samplers record no latency.
   No signal context. */
#include <stdio.h>
#include <string.h>

#include "report/insight.h"
#include "report/report.h"

static uint64_t counter(const struct hc_db *db, const char *name, bool *found)
{
	for (size_t k = 0; k < db->ncounters; k++)
		if (!strcmp(db->counters[k].name, name)) {
			if (found)
				*found = true;
			return db->counters[k].v;
		}
	if (found)
		*found = false;
	return 0;
}

void hc_report_scale(const struct hc_db *db, struct hc_report_scale *s)
{
	bool ns = !strcmp(db->unit, HC_DB_UNIT_NS), have = false, mixed = false;
	uint64_t period = 0, psum = 0, np = 0;
	char v[64];

	memset(s, 0, sizeof(*s));
	for (size_t t = 0; t < db->nthreads; t++) {
		int64_t p = db->threads[t].period;
		if (p <= 0)
			continue;
		if (np && (uint64_t)p != period)
			mixed = true;
		period = (uint64_t)p;
		psum += (uint64_t)p;
		np++;
	}
	if (np && mixed)
		period = psum / np;
	if (ns) {
		uint64_t n = counter(db, "samples", &have);
		n += counter(db, "samples_blocked", NULL) + counter(db, "samples_in_runtime", NULL) +
		     counter(db, "samples_thinned", NULL);
		if (!have) {
			snprintf(s->why, sizeof(s->why), "the profiles carry no samples counter");
			return;
		}
		if (!np || !n) {
			snprintf(s->why, sizeof(s->why), "%s", !n ? "no sample was taken" :
			         "no thread has a sampling period");
			return;
		}
		s->known = true;
		s->time = true;
		s->samples = n;
		s->denom = n * period;
		snprintf(s->basis, sizeof(s->basis),
		         "sampled CPU time %s = %llu timer samples x %s%llu ns period%s",
		         hc_report_value(v, sizeof(v), s->denom, db->unit), (unsigned long long)n,
		         mixed ? "mean " : "", (unsigned long long)period,
		         mixed ? " (threads had different periods: approximate)" : "");
		return;
	}
	{
		uint64_t recs = counter(db, "pmu_records", NULL);
		uint64_t sum = counter(db, "pmu_period_sum", &have);
		uint64_t n = counter(db, "samples", NULL);

		if (have && sum) {
			s->known = true;
			s->samples = recs ? recs : n;
			s->denom = sum;
			snprintf(s->basis, sizeof(s->basis),
			         "sampled memory accesses: %llu events (the kernel's periods of %llu "
			         "records summed); a share of accesses, not of time",
			         (unsigned long long)sum, (unsigned long long)s->samples);
		} else if (n && np) {
			s->known = true;
			s->samples = n;
			s->denom = n * period;
			snprintf(s->basis, sizeof(s->basis),
			         "sampled memory accesses: %llu samples x %s%llu events; a share of "
			         "accesses, not of time", (unsigned long long)n, mixed ? "mean " : "",
			         (unsigned long long)period);
		} else {
			snprintf(s->why, sizeof(s->why), "no sample was taken");
		}
	}
}

double hc_report_share(const struct hc_report_scale *s, uint64_t v)
{
	if (!s->known || !s->denom)
		return -1;
	return 100.0 * (double)v / (double)s->denom;
}

char *hc_report_share_str(char *buf, size_t sz, const struct hc_report_scale *s, uint64_t v,
                          bool mark)
{
	double p = hc_report_share(s, v);

	if (p < 0)
		snprintf(buf, sz, "-");
	else if (v && p < 0.1)
		snprintf(buf, sz, "<0.1%%%s", mark ? " negligible" : "");
	else
		snprintf(buf, sz, "%.1f%%%s", p, mark && v && p < HC_REPORT_NEGLIGIBLE_PCT ?
		         " negligible" : "");
	return buf;
}
