/* SPDX-License-Identifier: BSD-3-Clause */
/* hist.h — the duration histogram the runtime's cost figures use (the
   handler cost in rt.h, each mechanism's in cost.h): pure, standalone,
   async-signal-safe. */
#ifndef HC_RUNTIME_HIST_H
#define HC_RUNTIME_HIST_H

#include <stdint.h>

#define HC_HIST_BUCKETS   88        /* 4 buckets per octave, overflow from 2^22 ns */

/* Handler-cost histogram bucket of a duration: 4 buckets per octave (the
   two bits after the leading one), exact below 4 ns, HC_HIST_BUCKETS (the
   overflow bucket) from 2^22 ns = 4.2 ms on. Signal-safe. */
static inline unsigned hc_hist_bucket(uint64_t ns)
{
	unsigned e, b;

	if (ns < 4)
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns);
	b = 4 * e + (unsigned)((ns >> (e - 2)) & 3);
	return b < HC_HIST_BUCKETS ? b : HC_HIST_BUCKETS;
}

/* The lowest duration in bucket b and the bucket's width, in ns. */
static inline uint64_t hc_hist_low(unsigned b)
{
	return b < 8 ? b : (uint64_t)(4 + (b & 3)) << (b / 4 - 2);
}
static inline uint64_t hc_hist_width(unsigned b)
{
	return b < 8 ? 1 : 1ull << (b / 4 - 2);
}

/* The q-quantile in ns of histogram h[0..HC_HIST_BUCKETS]: the midpoint of
   the bucket that holds it (the overflow bucket answers its lower bound);
   0 when empty. */
static inline uint64_t hc_hist_quantile(const uint64_t *h, double q)
{
	uint64_t total = 0, acc = 0, want;

	for (int i = 0; i <= HC_HIST_BUCKETS; i++)
		total += h[i];
	if (!total)
		return 0;
	want = (uint64_t)(q * (double)total);
	if (want >= total)
		want = total - 1;
	for (int i = 0; i <= HC_HIST_BUCKETS; i++) {
		acc += h[i];
		if (acc > want)
			return i == HC_HIST_BUCKETS ? hc_hist_low(HC_HIST_BUCKETS)
			                            : hc_hist_low((unsigned)i) + hc_hist_width((unsigned)i) / 2;
	}
	return hc_hist_low(HC_HIST_BUCKETS);
}

#endif
