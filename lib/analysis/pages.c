/* SPDX-License-Identifier: BSD-3-Clause */
/* pages.c — pages given back for reuse (internal.h, struct an_pool).

   The analyzer's added views fill large arrays one after another: the
   region events (pass 2), the region matrices (crediting, while the
   events are let go process by process), then the views' window cells.
   Each new page costs a fault, zeroing and a memory-cgroup charge (about
   2 us here: doc/performance.md, Session 12), while the pages let go a
   moment before go back to the kernel. So a mapping let go is kept in the
   pool, and an array that wants pages (struct an_parr: reserved address
   space, backed as it fills) has pool pages moved under it by mremap —
   the page-table entries move; no fault, no zeroing, no copy. The pages
   hold old data: only arrays written before they are read take them.
   When the pool is empty the kernel backs the array as it is touched, as
   before. No signal context. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/internal.h"
#include "support/arena.h"

/* Without pool pages, the array is declared backed this far ahead (the
   kernel backs it as it is touched); pool pages that come later back the
   rest. */
#define PARR_STEP ((size_t)64 << 10)

/* Each piece is a mapping of its own, and one moved into an array splits
   the array's mapping: the pool keeps at most this many pieces (more are
   unmapped as they come), so that the mappings it adds stay far below the
   kernel's limit per process (vm.max_map_count, 65,530 by default) that
   malloc's own mappings need too. On bench/prof-scale 1,024 threads: 1,024
   region-event pieces. */
#define POOL_MAX_PIECES 16384u

static size_t page_size(void)
{
	static size_t ps;

	if (!ps) {
		long v = sysconf(_SC_PAGESIZE);
		ps = v > 0 ? (size_t)v : 4096;
	}
	return ps;
}

static inline size_t round_page(size_t n)
{
	size_t ps = page_size();

	return (n + ps - 1) / ps * ps;
}

void an__pool_init(struct an_pool *pl)
{
	memset(pl, 0, sizeof(*pl));
	pthread_mutex_init(&pl->lock, NULL);
	pl->ok = pl->open = true;
}

/* Mapping [p, p + n) (page-aligned, one mapping of its own or a part of
   one) kept for reuse; unmapped when the pool is off or its list cannot
   grow. */
void an__pool_put(struct an_pool *pl, void *p, size_t n)
{
	n = round_page(n);
	if (!p || !n)
		return;
	if (pl && pl->ok) {
		pthread_mutex_lock(&pl->lock);
		if (pl->open && pl->n < POOL_MAX_PIECES &&
		    !an__grow(&pl->pc, &pl->cap, pl->n + 1, sizeof(*pl->pc))) {
			pl->pc[pl->n++] = (struct an_piece){ p, n };
			pl->bytes += n;
			pthread_mutex_unlock(&pl->lock);
			return;
		}
		pthread_mutex_unlock(&pl->lock);
	}
	munmap(p, n);
}

void an__pool_cap(struct an_pool *pl, size_t max)
{
	uint32_t k = 0, n;

	if (!pl->ok)
		return;
	pthread_mutex_lock(&pl->lock);
	/* the oldest pieces go (the newest are taken first) */
	while (k < pl->n && pl->bytes > max) {
		munmap(pl->pc[k].p, pl->pc[k].n);
		pl->bytes -= pl->pc[k].n;
		k++;
	}
	n = pl->n - k;
	if (k && n)   /* (pc is NULL while the pool has held nothing) */
		memmove(pl->pc, pl->pc + k, (size_t)n * sizeof(*pl->pc));
	pl->n = n;
	pthread_mutex_unlock(&pl->lock);
}

void an__pool_close(struct an_pool *pl)
{
	if (!pl->ok)
		return;
	pthread_mutex_lock(&pl->lock);
	for (uint32_t k = 0; k < pl->n; k++)
		munmap(pl->pc[k].p, pl->pc[k].n);
	free(pl->pc);
	pl->pc = NULL;
	pl->n = pl->cap = 0;
	pl->bytes = 0;
	pl->open = false;
	pthread_mutex_unlock(&pl->lock);
}

void an__pool_free(struct an_pool *pl)
{
	if (!pl->ok)
		return;
	an__pool_close(pl);
	pthread_mutex_destroy(&pl->lock);
	pl->ok = false;
}

int an__parr_init(struct an_parr *a, size_t bytes)
{
	struct hc_arena r;   /* its reservation only (support/arena.h) */

	memset(a, 0, sizeof(*a));
	if (hc_arena_init(&r, bytes ? bytes : 1) < 0)
		return -ENOMEM;
	a->base = (uint8_t *)r.base;
	a->res = r.reserve;
	return 0;
}

/* One more segment [off, off + n) of the array (its own mapping: a moved
   piece, or a run of the reservation). */
static int add_seg(struct an_parr *a, size_t off, size_t n, bool moved)
{
	if (a->nseg && !moved && !a->seg[a->nseg - 1].moved &&
	    a->seg[a->nseg - 1].off + a->seg[a->nseg - 1].n == off) {
		a->seg[a->nseg - 1].n += n;
		return 0;
	}
	if (an__grow(&a->seg, &a->segcap, a->nseg + 1, sizeof(*a->seg)))
		return -ENOMEM;
	a->seg[a->nseg++] = (struct an_seg){ off, n, moved };
	return 0;
}

int an__parr_back(struct an_pool *pl, struct an_parr *a, size_t need)
{
	if (need > a->res)
		return -ENOMEM;
	while (a->backed < need) {
		size_t take = 0;
		void *src = NULL;

		if (pl && pl->ok) {
			pthread_mutex_lock(&pl->lock);
			while (pl->n && !take) {
				struct an_piece *pc = &pl->pc[pl->n - 1];

				take = pc->n < a->res - a->backed ? pc->n : a->res - a->backed;
				if (an__grow(&a->seg, &a->segcap, a->nseg + 1, sizeof(*a->seg))) {
					take = 0;
					break;
				}
				src = pc->p;
				if (mremap(src, take, take, MREMAP_MAYMOVE | MREMAP_FIXED,
				           a->base + a->backed) == MAP_FAILED) {
					/* (e.g. too many mappings): this piece goes back */
					munmap(pc->p, pc->n);
					pl->bytes -= pc->n;
					pl->n--;
					take = 0;
					continue;
				}
				pc->p = (uint8_t *)pc->p + take;
				pc->n -= take;
				pl->bytes -= take;
				if (!pc->n)
					pl->n--;
			}
			pthread_mutex_unlock(&pl->lock);
		}
		if (take) {
			a->seg[a->nseg++] = (struct an_seg){ a->backed, take, true };
			a->backed += take;
			continue;
		}
		/* no pool pages: the reservation's own, as they are touched */
		take = need - a->backed > PARR_STEP ? round_page(need - a->backed) : PARR_STEP;
		if (take > a->res - a->backed)
			take = a->res - a->backed;
		if (add_seg(a, a->backed, take, false))
			return -ENOMEM;
		a->backed += take;
	}
	return 0;
}

void an__parr_release(struct an_pool *pl, struct an_parr *a)
{
	size_t end = 0;

	if (!a->base)
		return;
	for (uint32_t k = 0; k < a->nseg; k++) {
		an__pool_put(pl, a->base + a->seg[k].off, a->seg[k].n);
		end = a->seg[k].off + a->seg[k].n;
	}
	if (a->res > end)
		munmap(a->base + end, a->res - end);
	free(a->seg);
	memset(a, 0, sizeof(*a));
}
