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

/* A start set that begins while the process-wide set watches another
   start set's extra line leaves that line's publisher to it
   (HPCRUN_COMM_START_SHARE; soft.c, watch__pset_start_peer). */
#define RT_START_SHARE_DEFAULT 1u

/* A start set's extra line on the idle process-wide set does not wait for
   the set's budget (HPCRUN_COMM_START_EXEMPT; its cost is still charged):
   at most one arm per thread start, and the line ends at its first
   foreign trap or the owner's first sample. */
#define RT_START_EXEMPT_DEFAULT 1u

/* Drops `peer` from peers[0..m) (in place, order kept); their number. */
static inline uint32_t rt_start_drop(uint32_t *peers, uint32_t m, uint32_t peer)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < m; i++)
		if (peers[i] != peer)
			peers[n++] = peers[i];
	return n;
}

/* HPCRUN_COMM_START_RECENT: which ended threads the first start set
   takes. 0 all of them; 1 those whose end lies within half an average
   lifetime of the latest end (session 12); 2 (the default, session 14)
   those whose life overlapped the life of the thread that ended last
   (rt_start_overlap). */
#define RT_START_RECENT_DEFAULT 2u

/* The generation that ended last: keeps, in place, the peers[i] whose end
   ends[i] is not before the start starts[j] of the thread j that ended
   last — the threads that ran alongside it. A generation's threads start
   together and end spread out (on 2 CPUs, 4 threads of one generation
   ended up to half a lifetime apart: the window of rt_start_recent left
   its first to end out, and that thread's hand-off was missed in 9 of 10
   runs of generations -O0 -t 4, doc/detection.md §5.15 "Session 14");
   every one of them ended after the last one's start, the previous
   generation before it. A long-lived thread that ended last keeps
   everyone. Their number. */
static inline uint32_t rt_start_overlap(uint32_t *peers, const uint64_t *ends, const uint64_t *starts, uint32_t m)
{
	uint32_t n = 0, last = 0;

	if (m == 0)
		return 0;
	for (uint32_t i = 1; i < m; i++)
		if (ends[i] > ends[last])
			last = i;
	for (uint32_t i = 0; i < m; i++)
		if (ends[i] >= starts[last])
			peers[n++] = peers[i];
	return n;
}

#endif
