/* SPDX-License-Identifier: BSD-3-Clause */
/* cct.c — the address-level calling-context tree the analyzer merges
   profiles into. A node is identified by (parent, load module, offset, leaf
   flag), so inserting a thread's nodes parents-first merges identical call
   paths across threads and processes; exclusive metrics are summed. Ids are
   dense and every parent precedes its children, which lets later passes run
   over the tree as a plain loop. Not thread-safe: one tree per worker. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

int cct__init(struct cct *t)
{
	static const uint64_t zero[HC_M_COUNT];
	uint32_t root;
	int ret;

	memset(t, 0, sizeof(*t));
	ret = hmap__init(&t->h, 1024);
	if (ret)
		return ret;
	ret = cct__add(t, HC_NONE, HC_NONE, 0, 0, zero, &root);
	if (ret) {
		cct__free(t);
		return ret;
	}
	return 0;
}

void cct__free(struct cct *t)
{
	hmap__free(&t->h);
	free(t->m);
	memset(t, 0, sizeof(*t));
}

int cct__add(struct cct *t, uint32_t parent, uint32_t lm, uint32_t flags, uint64_t offset,
             const uint64_t m[HC_M_COUNT], uint32_t *id)
{
	struct hkey k = { (uint64_t)parent | (uint64_t)lm << 32, offset, flags };
	int ret, i;

	ret = hmap__intern(&t->h, &k, id);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		int r = an__grow(&t->m, &t->mcap, t->h.n, sizeof(*t->m));
		if (r)
			return r;
		memset(t->m[*id], 0, sizeof(t->m[*id]));
	}
	for (i = 0; i < HC_M_COUNT; i++)
		t->m[*id][i] += m[i];
	return 0;
}
