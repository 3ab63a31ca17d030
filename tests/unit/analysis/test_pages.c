/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pages.c — pages let go and reused (analysis/pages.c): a mapping
   given to the pool backs the next reserved array (its old bytes show
   there: the pages moved, none was new), an array takes a piece in parts
   and the rest stays in the pool, an empty pool leaves the array to new
   pages, an array's pages go back to the pool when released (moved and
   new ones alike), a cap unmaps the oldest pieces, and a closed pool
   unmaps what it is given. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/internal.h"
#include "hc_test.h"

static void *mapping(size_t n, int fill)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, fill, n);
	return p;
}

int main(void)
{
	size_t ps = (size_t)sysconf(_SC_PAGESIZE);
	struct an_pool pl;
	struct an_parr a, b;
	uint8_t *m1, *m2;

	an__pool_init(&pl);
	m1 = mapping(10 * ps, 0x11);
	m2 = mapping(3 * ps, 0x22);
	CHECK(m1 && m2);
	an__pool_put(&pl, m1, 10 * ps);
	an__pool_put(&pl, m2, 3 * ps - 100);   /* rounded up to its pages */
	CHECK(pl.n == 2 && pl.bytes == 13 * ps);

	/* 4 pages reserved: the last piece given (m2, 3 pages) first, then 1
	   page of m1; m1's other 9 pages stay */
	CHECK(an__parr_init(&a, 4 * ps) == 0);
	CHECK(an__parr_back(&pl, &a, 1) == 0);
	CHECK(a.backed == 3 * ps && a.base[0] == 0x22 && a.base[3 * ps - 1] == 0x22);
	CHECK(an__parr_back(&pl, &a, 3 * ps + 1) == 0);
	CHECK(a.backed == 4 * ps && a.base[3 * ps] == 0x11 && a.base[4 * ps - 1] == 0x11);
	CHECK(pl.n == 1 && pl.bytes == 9 * ps);
	CHECK(a.nseg == 2 && a.seg[0].moved && a.seg[1].moved);
	CHECK(an__parr_back(&pl, &a, 4 * ps + 1) == -ENOMEM);   /* beyond the reservation */
	a.base[0] = 0x33;   /* the pages are the array's */
	CHECK(a.base[0] == 0x33);

	/* the rest of m1 backs a larger array, then new pages (zero) */
	CHECK(an__parr_init(&b, 20 * ps) == 0);
	CHECK(an__parr_back(&pl, &b, 12 * ps) == 0);
	CHECK(b.base[0] == 0x11 && b.base[9 * ps - 1] == 0x11);
	CHECK(pl.n == 0 && pl.bytes == 0);
	CHECK(b.backed >= 12 * ps && b.backed <= 20 * ps);
	CHECK(b.base[9 * ps] == 0 && b.base[12 * ps - 1] == 0);
	b.base[12 * ps - 1] = 7;
	CHECK(an__parr_back(&pl, &b, 20 * ps) == 0 && b.backed == 20 * ps);
	CHECK(b.nseg == 2 && b.seg[0].moved && !b.seg[1].moved && b.seg[1].off == 9 * ps);

	/* released: every page of both back in the pool, with its bytes */
	an__parr_release(&pl, &a);
	CHECK(a.base == NULL && pl.n == 2 && pl.bytes == 4 * ps);
	an__parr_release(&pl, &b);
	CHECK(pl.bytes == 24 * ps);
	CHECK(an__parr_init(&a, 11 * ps) == 0);
	CHECK(an__parr_back(&pl, &a, 11 * ps) == 0);
	/* LIFO: b's new run (11 pages, byte 3 ps - 1 of it was written) */
	CHECK(a.base[3 * ps - 1] == 7 && a.nseg == 1);
	an__parr_release(NULL, &a);   /* unmapped */

	/* capped: the oldest pieces unmapped, the newest kept */
	an__pool_put(&pl, mapping(2 * ps, 1), 2 * ps);
	an__pool_put(&pl, mapping(2 * ps, 2), 2 * ps);
	an__pool_put(&pl, mapping(ps, 3), ps);
	CHECK(pl.n == 6 && pl.bytes == 18 * ps);   /* with the 13 pages of 3 pieces left above */
	an__pool_cap(&pl, 4 * ps);
	CHECK(pl.n == 2 && pl.bytes == 3 * ps);
	CHECK(*(uint8_t *)pl.pc[0].p == 2 && *(uint8_t *)pl.pc[1].p == 3);

	an__pool_close(&pl);
	CHECK(pl.n == 0 && pl.bytes == 0);
	m1 = mapping(ps, 0x44);
	an__pool_put(&pl, m1, ps);   /* closed: unmapped at once */
	CHECK(pl.n == 0);
	CHECK(an__parr_init(&a, ps) == 0 && an__parr_back(&pl, &a, ps) == 0 && a.base[0] == 0);
	an__parr_release(&pl, &a);
	an__pool_free(&pl);
	return hc_test_done("test_pages");
}
