/* SPDX-License-Identifier: BSD-3-Clause */
/* test_barren.c — the table of barren burst keys (sampler/barren.h):
   a long burst that published nothing makes its key skipped, except one in
   RT_BARREN_RETRY; a short one does not; a burst that publishes clears
   the key; key 0 never; another key in the same slot replaces it. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "runtime/sampler/barren.h"
#include "hc_test.h"

int main(void)
{
	struct rt_barren b;
	uint64_t k = 0x401234, other = 0;
	int skipped = 0;

	memset(&b, 0, sizeof b);
	CHECK(!rt_barren_skip(&b, k));                  /* unknown: runs */
	rt_barren_note(&b, k, RT_BARREN_MIN - 1, 0);    /* short and barren: not noted */
	CHECK(!rt_barren_skip(&b, k));
	rt_barren_note(&b, k, 32, 0);                   /* the whole limit, nothing published */
	for (unsigned i = 0; i < 4 * RT_BARREN_RETRY; i++)
		skipped += rt_barren_skip(&b, k);
	CHECK_EQ_U64((uint64_t)skipped, 4 * (RT_BARREN_RETRY - 1));   /* one in RT_BARREN_RETRY runs */
	rt_barren_note(&b, k, 32, 1);                   /* that run published: forgotten */
	CHECK(!rt_barren_skip(&b, k));
	CHECK(!rt_barren_skip(&b, k));
	rt_barren_note(&b, 0, 32, 0);                   /* key 0: never */
	CHECK(!rt_barren_skip(&b, 0));
	/* another key of the same slot replaces it */
	rt_barren_note(&b, k, 32, 0);
	for (uint64_t c = k + 1; c < k + 100000 && !other; c++)
		if (rt_barren_slot(c) == rt_barren_slot(k))
			other = c;
	CHECK(other != 0);
	rt_barren_note(&b, other, 32, 0);
	CHECK(!rt_barren_skip(&b, k));
	CHECK(rt_barren_skip(&b, other));
	/* a publishing burst of another key leaves the slot alone */
	rt_barren_note(&b, k, 32, 5);
	CHECK(rt_barren_skip(&b, other));
	/* slots spread: 16 consecutive return addresses 16 bytes apart use
	   at least 8 slots */
	{
		bool used[RT_BARREN_N] = { false };
		unsigned n = 0;

		for (uint64_t a = 0x400000; a < 0x400000 + 16 * 16; a += 16)
			used[rt_barren_slot(a)] = true;
		for (unsigned i = 0; i < RT_BARREN_N; i++)
			n += used[i];
		CHECK(n >= 8);
	}
	return hc_test_done("test_barren");
}
