/* SPDX-License-Identifier: BSD-3-Clause */
/* startset.h — which publishers a late start set watches
   (doc/detection.md §5.15, "Session 12"; soft.c, soft__start_set_late).
   Pure and async-signal-safe: the late start set is chosen in a sample's
   handler. */
#ifndef HC_RUNTIME_STARTSET_H
#define HC_RUNTIME_STARTSET_H

#include <stdint.h>

/* A late start set at a thread's first sample, if it began after others
   ended (HPCRUN_COMM_START_LATE): its start sets, armed before it ran,
   caught what it read first; a publisher they watched without a trap is
   not one whose lines the thread keeps meeting. */
#define RT_START_LATE_DEFAULT 1u

/* The candidates `all[0..m)` (thread indexes) that are not in
   `watched[0..nw)` (thread index + 1, as the runtime keeps them), into
   `out` in their order; their number. */
static inline uint32_t rt_start_unwatched(const uint32_t *all, uint32_t m, const uint32_t *watched, uint32_t nw,
                                          uint32_t *out)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < m; i++) {
		uint32_t j = 0;

		while (j < nw && watched[j] != all[i] + 1)
			j++;
		if (j == nw)
			out[n++] = all[i];
	}
	return n;
}

#endif
