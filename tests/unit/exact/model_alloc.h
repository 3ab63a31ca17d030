/* SPDX-License-Identifier: BSD-3-Clause */
/* model_alloc.h — the test allocator of the exact-mode model's tests
   (test_model, test_model_mt). The model never frees (its memory lives as
   long as the process): the allocator keeps every block to free them at the
   end (LeakSanitizer). */
#ifndef HC_TEST_MODEL_ALLOC_H
#define HC_TEST_MODEL_ALLOC_H

#include <stdlib.h>

static void *blocks[4096];
static int nblocks;

static void *zalloc(void *arg, size_t n)
{
	void *p = calloc(1, n);
	int i = __atomic_fetch_add(&nblocks, 1, __ATOMIC_RELAXED);

	(void)arg;
	if (i < 4096)
		blocks[i] = p;
	return p;
}

static void free_all(void)
{
	for (int i = 0; i < nblocks && i < 4096; i++)
		free(blocks[i]);
	nblocks = 0;
}

#endif
