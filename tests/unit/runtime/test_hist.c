/* SPDX-License-Identifier: BSD-3-Clause */
/* test_hist.c — the handler-cost histogram's logarithmic buckets (rt.h):
   every duration falls in the bucket whose [low, low + width) holds it,
   buckets are monotonic and at most a quarter octave wide, and durations
   past the last bucket land in the overflow bucket. */
#include <stdint.h>

#include "runtime/rt.h"
#include "hc_test.h"

int main(void)
{
	unsigned prev = 0;
	uint64_t ns;

	for (ns = 0; ns < (1ull << 23); ns = ns < 64 ? ns + 1 : ns + ns / 61) {
		unsigned b = hc_hist_bucket(ns);

		CHECK_MSG(b >= prev, "%llu ns: bucket %u after %u", (unsigned long long)ns, b, prev);
		prev = b;
		if (b == HC_HIST_BUCKETS) {
			CHECK(ns >= hc_hist_low(HC_HIST_BUCKETS));
			continue;
		}
		CHECK_MSG(ns >= hc_hist_low(b) && ns < hc_hist_low(b) + hc_hist_width(b),
		          "%llu ns in bucket %u [%llu, +%llu)", (unsigned long long)ns, b,
		          (unsigned long long)hc_hist_low(b), (unsigned long long)hc_hist_width(b));
		CHECK(hc_hist_width(b) * 4 <= hc_hist_low(b) || hc_hist_low(b) < 8);
	}
	CHECK_EQ_U64(hc_hist_bucket(UINT64_MAX), HC_HIST_BUCKETS);
	CHECK_EQ_U64(hc_hist_low(HC_HIST_BUCKETS), 1ull << 22);
	CHECK(hc_hist_bucket(1000) < hc_hist_bucket(1300));     /* 1.0 vs 1.3 us apart */
	CHECK(hc_hist_bucket(12800) < hc_hist_bucket(100000));  /* the old ceiling is gone */
	return hc_test_done("test_hist");
}
