/* SPDX-License-Identifier: BSD-3-Clause */
/* cuaddr.c — units by address without .debug_aranges (cuaddr.h). */
#include <stddef.h>
#include <stdlib.h>

#include "analysis/cuaddr.h"
#include "support/search.h"

static int cmp_range(const void *a, const void *b)
{
	const struct cuaddr_range *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

static void build(struct cuaddr_tab *t, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	t->state = -1;
	if (!dw)
		return;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t r = 0;

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			while ((r = dwarf_ranges(&cu, r, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (t->n == cap) {
					size_t nc = cap ? 2 * cap : 64;
					struct cuaddr_range *p = realloc(t->r, nc * sizeof(*p));

					if (!p) {     /* out of memory: no fallback, as before */
						free(t->r);
						t->r = NULL;
						t->n = 0;
						return;
					}
					t->r = p;
					cap = nc;
				}
				t->r[t->n++] = (struct cuaddr_range){ lo, hi, cu };
			}
		}
		off = next;
	}
	if (t->n > 1)
		qsort(t->r, t->n, sizeof(*t->r), cmp_range);
	t->state = 1;
}

Dwarf_Die *cuaddr_find(struct cuaddr_tab *t, Dwarf *dw, uint64_t pc)
{
	size_t i;

	if (t->state == 0)
		build(t, dw);
	if (t->state != 1 || !t->n || pc == UINT64_MAX)
		return NULL;
	/* units' ranges do not overlap: the last one starting at or before pc */
	i = hc_lower_bound_u64(t->r, t->n, sizeof(*t->r), offsetof(struct cuaddr_range, lo), pc + 1);
	return i > 0 && pc < t->r[i - 1].hi ? &t->r[i - 1].die : NULL;
}

void cuaddr_free(struct cuaddr_tab *t)
{
	free(t->r);
	t->r = NULL;
	t->n = 0;
	t->state = 0;
}
