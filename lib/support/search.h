/* SPDX-License-Identifier: BSD-3-Clause */
/* search.h — binary search in an array sorted by a uint64_t key: the one
   lower bound the analyzer's symbol tables, lib/db's name tables and
   lib/decode's instruction lists use. Pure, signal-safe. */
#ifndef HC_SUPPORT_SEARCH_H
#define HC_SUPPORT_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Index of the first of n elements (each `stride` bytes, the uint64_t key at
   byte offset `off`, ascending) whose key is >= key; n when there is none. */
static inline size_t hc_lower_bound_u64(const void *base, size_t n, size_t stride, size_t off,
                                        uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, b + mid * stride + off, sizeof(k));
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the element whose key is key, or n. */
static inline size_t hc_find_u64(const void *base, size_t n, size_t stride, size_t off,
                                 uint64_t key)
{
	size_t i = hc_lower_bound_u64(base, n, stride, off, key);
	uint64_t k;

	if (i < n) {
		memcpy(&k, (const unsigned char *)base + i * stride + off, sizeof(k));
		if (k == key)
			return i;
	}
	return n;
}

#endif
