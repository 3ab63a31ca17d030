/* SPDX-License-Identifier: BSD-3-Clause */
/* golden_wrap.h — an allocation wrapper defined in a header, as Phoenix's
   stddefines.h defines CALLOC: objects allocated through it must be named
   after the caller's line, "via" the wrapper. Test code only. */
#ifndef GOLDEN_WRAP_H
#define GOLDEN_WRAP_H

#include <stdlib.h>

static inline void *CALLOC(size_t num, size_t size)
{
	void *p = calloc(num, size);

	if (!p)
		abort();
	return p;
}

#endif
