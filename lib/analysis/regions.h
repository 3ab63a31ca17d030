/* SPDX-License-Identifier: BSD-3-Clause */
/* regions.h — code regions and their thread matrices (doc/regions.md):
   the program, every procedure (a function of the binary), every OpenMP
   parallel region (an outlined function, nested in the procedure it was
   outlined from) and every loop the binary's control flow shows
   (lib/decode/loops.c), nested as hpcstruct nests them. Used in order:
   regions__prepare after the calling-context trees are merged (each
   merged node gets the set of regions its path passes through), then
   regions__add per event from merge.c's pass 2, regions__build after the
   whole-program matrix, regions__write with the other files. Nothing here
   runs in signal context. */
#ifndef HC_ANALYSIS_REGIONS_H
#define HC_ANALYSIS_REGIONS_H

#include "analysis/internal.h"

/* Regions holding less than this share of the volume are not written
   (their exclusive part goes to the closest written region around them). */
#define REGIONS_MIN_SHARE 0.01

int regions__prepare(struct an *an);
/* One event of profile p: g, gp its and the peer's global nodes (gp
   HC_NONE when unknown). 0 or -ENOMEM. */
static inline int regions__add(const struct an *an, struct an_prof *p, uint32_t g, uint32_t gp,
                               uint32_t peer, uint64_t t, uint64_t f)
{
	struct hkey k;

	if (!an->rsid)
		return 0;
	k = (struct hkey){ an->rsid[g] | (uint64_t)(gp == HC_NONE ? 0 : an->rsid[gp]) << 32, peer, 0 };
	if (!p->rrow.h.slots) {
		int ret = agg__init(&p->rrow, 16);
		if (ret)
			return ret;
	}
	return agg__add(&p->rrow, &k, t, f);
}
int regions__build(struct an *an);
int regions__write(struct an *an, const char *dir, char *err, size_t errlen);
/* A few lines for summary.txt (the top regions by inclusive volume). */
void regions__summary(struct an *an, struct hc_out *o);
void regions__free(struct an *an);

#endif
