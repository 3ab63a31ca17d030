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

/* The first start set of a thread watches the threads that ended last
   (HPCRUN_COMM_START_RECENT): a new thread reads first what the newest
   data's writers wrote — a pipeline's previous stage, a program's previous
   phase —; older generations, whose lines it may rewrite all its life,
   are the later start sets' (the late one's, above). Keeps, in place, the
   peers[i] whose end ends[i] lies within `window` ns of the latest end of
   them (all of them when the window is 0); their number. */
static inline uint32_t rt_start_recent(uint32_t *peers, const uint64_t *ends, uint32_t m, uint64_t window)
{
	uint64_t latest = 0;
	uint32_t n = 0;

	if (window == 0)
		return m;
	for (uint32_t i = 0; i < m; i++)
		if (ends[i] > latest)
			latest = ends[i];
	for (uint32_t i = 0; i < m; i++)
		if (ends[i] + window >= latest)
			peers[n++] = peers[i];
	return n;
}

#endif
