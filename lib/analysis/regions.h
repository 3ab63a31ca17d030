/* SPDX-License-Identifier: BSD-3-Clause */
/* regions.h — code regions and their thread matrices (doc/regions.md):
   the program, every procedure (a function of the binary), every OpenMP
   parallel region (an outlined function, nested in the procedure it was
   outlined from) and every loop the binary's control flow shows
   (lib/decode/loops.c), nested as hpcstruct nests them. Used in order:
   regions__init, regions__add per event from merge.c's pass 2,
   regions__prepare (each merged node gets the set of regions its path
   passes through), regions__pairs and regions__build after the
   whole-program matrix, regions__write with the other files. Nothing
   here runs in signal context. */
#ifndef HC_ANALYSIS_REGIONS_H
#define HC_ANALYSIS_REGIONS_H

#include "analysis/internal.h"

/* Regions holding less than this share of the volume are not written
   (their exclusive part goes to the closest written region around them). */
#define REGIONS_MIN_SHARE 0.01

/* Sequential analysis: regions__init before pass 2, whose region events
   are then summed by code pair (the sets are not known yet), and
   regions__prepare after it, while the workers' code pairs are there: a
   function's loops are decoded only if the function holds at least
   REGIONS_MIN_SHARE of the volume (no loop of another can be kept).
   Distributed, rank 0: regions__prepare alone, after the reduction; every
   function's loops are decoded. */
int regions__init(struct an *an);
int regions__prepare(struct an *an);

/* Events are summed per profile by (both sets, peer) in an array with a
   small direct-mapped cache of recent keys in front (no hashing of every
   event); from REGIONS_COMPACT entries on, the array is sorted and merged
   whenever it has doubled, so it stays within twice the distinct keys
   (a small one is never sorted: pass A and B take repeated keys). */
#define REGIONS_CACHE 256u
#define REGIONS_COMPACT 16384u
#define RROW_VMAX 0x7fffffffu   /* the largest volume of one entry (struct rrow_ent) */
int regions__add_slow(struct an_prof *p, uint64_t sets, uint32_t peer, uint32_t kind,
                      uint32_t slot, uint64_t v);
static inline int regions__add_kind(struct an_prof *p, uint64_t sets, uint32_t peer,
                                    uint32_t kind, uint64_t v)
{
	struct rrow *r = &p->rrow;
	uint32_t slot, x, pk = peer << 1 | kind;
	struct rrow_slot *c;

	slot = (uint32_t)(((sets ^ (uint64_t)pk << 17) * 0x9e3779b97f4a7c15ULL) >> 56) %
	       REGIONS_CACHE;
	if (!r->cache)
		return regions__add_slow(p, sets, peer, kind, slot, v);
	c = &r->cache[slot];
	if (c->sets == sets && c->pk == pk && (x = c->x) < r->n && r->e[x].peer == peer &&
	    v <= RROW_VMAX - (r->e[x].vk >> 1)) {
		r->e[x].vk += (uint32_t)v << 1;
		return 0;
	}
	if (r->n < r->cap && v <= RROW_VMAX) {   /* a new entry, room for it */
		r->e[r->n] = (struct rrow_ent){ sets, peer, (uint32_t)v << 1 | kind };
		*c = (struct rrow_slot){ sets, pk, r->n++ };
		return 0;
	}
	return regions__add_slow(p, sets, peer, kind, slot, v);
}
/* One event of profile p: cp its code pair (node, peer's node: the
   index agg__add_at gave it in the table of the worker reading p, the
   one regions__reserve named), summed by (cp, peer) (pass A reads the
   sets of the two nodes through cp: one array read per entry, where the
   nodes' sets and the set pair's hash table took three reads; session
   13). 0 or -ENOMEM. An event of no weight changes no matrix and is not
   kept. */
static inline int regions__add(const struct an *an, struct an_prof *p, uint32_t cp,
                               uint32_t peer, uint64_t t, uint64_t f)
{
	int ret = 0;

	if (!an->reg)
		return 0;
	if (t)
		ret = regions__add_kind(p, cp, peer, 0, t);
	if (f && !ret)
		ret = regions__add_kind(p, cp, peer, 1, f);
	return ret;
}
/* Before a profile's events (pass 2): its array sized for nevents entries,
   at most REGIONS_RESERVE (on bench/prof-scale every event is an entry:
   growing by doubling from 64 copied and trimmed it several times). 0 or
   -ENOMEM. Worker w reads the profile: its code pairs key the entries
   (regions__add). */
#define REGIONS_RESERVE 65536u
int regions__reserve(const struct an *an, struct an_prof *p, unsigned w, size_t nevents);
/* After a profile's events: the array merged and trimmed, the cache freed. */
int regions__profile_done(struct an_prof *p);
/* A profile's array and cache freed, the struct zeroed. */
void regions__rrow_free(struct rrow *r);
/* The pairs of region sets and their volumes, from pass 2's code pairs
   (the workers' an_acc.pairs, read before they are freed): hence the
   inclusive volume of every region. Before regions__build. */
int regions__pairs(struct an *an);
int regions__build(struct an *an);
/* regions__build in steps, for the distributed merge's rank 0, which
   credits each process's region events as soon as they have all come
   (dist__regions_reduce) and frees them: _begin decides the kept regions
   and their lists; _upto(g) credits, in process order, every process not
   yet credited whose threads are all below global thread g (HC_NONE:
   all). regions__build then credits the rest and completes the matrices.
   0 or -ENOMEM. */
int regions__build_begin(struct an *an);
int regions__build_upto(struct an *an, uint32_t g);
int regions__write(struct an *an, const char *dir, char *err, size_t errlen);
void regions__free(struct an *an);

#endif
