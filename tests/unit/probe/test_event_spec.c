/* SPDX-License-Identifier: BSD-3-Clause */
/* test_event_spec.c — the event specification and option parsing shared by
   the launcher and the runtime: good specs give the right period, bad ones
   are refused with a message that names the problem. */
#include <errno.h>
#include "hc/common.h"
#include "probe/probe.h"
#include "../../hc_test.h"

static void good(const char *spec, uint64_t want)
{
	uint64_t p = 0;
	char err[256] = "";

	CHECK_MSG(hc_event_parse(spec, &p, err, sizeof err) == 0, "'%s' refused: %s", spec, err);
	CHECK_EQ_U64(p, want);
}

static void bad(const char *spec, const char *word)
{
	uint64_t p = 0;
	char err[256] = "";

	CHECK_MSG(hc_event_parse(spec, &p, err, sizeof err) == -EINVAL, "'%s' accepted", spec ? spec : "(null)");
	CHECK_MSG(strstr(err, word) != NULL, "'%s': message '%s' lacks '%s'", spec ? spec : "(null)", err, word);
}

int main(void)
{
	int k = -1;

	good("COMM", HC_DEFAULT_PERIOD);
	good("comm", HC_DEFAULT_PERIOD);
	good("COMM@500000", 500000);
	good("COMM@1", 1);
	good("COMM@18446744073709551615", UINT64_MAX);

	bad(NULL, "empty");
	bad("", "empty");
	bad("CYCLES", "unknown event");
	bad("CYCLES@100", "unknown event");
	bad("COMMX@100", "unknown event");
	bad("COM@100", "unknown event");
	bad("COMM@", "bad period");
	bad("COMM@0", "bad period");
	bad("COMM@-5", "bad period");
	bad("COMM@+5", "bad period");
	bad("COMM@12x", "bad period");
	bad("COMM@1.5", "bad period");
	bad("COMM@18446744073709551616", "bad period");
	bad("COMM@@5", "bad period");

	CHECK(hc_sampler_parse("auto", &k) == 0 && k == HC_SAMPLER_NONE);
	CHECK(hc_sampler_parse("soft", &k) == 0 && k == HC_SAMPLER_SOFT);
	CHECK(hc_sampler_parse("pebs", &k) == 0 && k == HC_SAMPLER_PEBS);
	CHECK(hc_sampler_parse("ibs", &k) == 0 && k == HC_SAMPLER_IBS);
	CHECK(hc_sampler_parse("SOFT", &k) == -EINVAL);
	CHECK(hc_sampler_parse("", &k) == -EINVAL);
	CHECK(hc_sampler_parse(NULL, &k) == -EINVAL);
	CHECK_STR(hc_sampler_name(HC_SAMPLER_SOFT), "soft");
	CHECK_STR(hc_sampler_name(HC_SAMPLER_NONE), "auto");

	/* plain-words errors name the fix */
	CHECK(strstr(hc_perf_strerror(EACCES, 3), "sysctl kernel.perf_event_paranoid=2") != NULL);
	CHECK(strstr(hc_perf_strerror(EPERM, 2), "seccomp") != NULL);
	CHECK(strstr(hc_perf_strerror(ENOENT, 2), "PMU") != NULL);
	return hc_test_done("test_event_spec");
}
