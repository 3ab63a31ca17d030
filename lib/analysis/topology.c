/* SPDX-License-Identifier: BSD-3-Clause */
/* topology.c — where a CPU sits, from the hwloc XML the runtime saved for its
   host (topology-<hostid>.xml): for every PU (os_index = the CPU number the
   kernel reported in the events) its core (logical index within the host), its
   package (os_index) and its NUMA node (os_index, first node of its nodeset).
   The topology is loaded once, flattened into sorted arrays and closed, so the
   rest of the analyzer never calls hwloc. */
#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

static int cmp_pu(const void *a, const void *b)
{
	const struct topo_pu *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Sorted distinct values of an int list. */
static uint32_t uniq(int *v, uint32_t n)
{
	uint32_t i, k = 0;

	qsort(v, n, sizeof(*v), cmp_int);
	for (i = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

int topo__load(const char *xmlpath, struct topo **out, char *err, size_t errlen)
{
	hwloc_topology_t h;
	struct topo *t;
	int npu, ncore, i, ret = -EINVAL;

	*out = NULL;
	if (hwloc_topology_init(&h) < 0) {
		snprintf(err, errlen, "%s: cannot initialize hwloc", xmlpath);
		return -ENOMEM;
	}
	if (hwloc_topology_set_xml(h, xmlpath) < 0) {
		snprintf(err, errlen, "%s: not a usable hwloc XML file: %s", xmlpath, strerror(errno));
		goto out_h;
	}
	if (hwloc_topology_load(h) < 0) {
		snprintf(err, errlen, "%s: hwloc cannot load it: %s", xmlpath, strerror(errno));
		goto out_h;
	}
	npu = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_PU);
	ncore = hwloc_get_nbobjs_by_type(h, HWLOC_OBJ_CORE);
	if (npu <= 0) {
		snprintf(err, errlen, "%s: the topology has no processing unit", xmlpath);
		goto out_h;
	}
	ret = -ENOMEM;
	t = calloc(1, sizeof(*t));
	if (!t)
		goto out_h;
	t->pu = calloc((size_t)npu, sizeof(*t->pu));
	t->sockets = calloc((size_t)npu, sizeof(*t->sockets));
	t->numas = calloc((size_t)npu, sizeof(*t->numas));
	if (!t->pu || !t->sockets || !t->numas) {
		topo__free(t);
		goto out_h;
	}
	for (i = 0; i < npu; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(h, HWLOC_OBJ_PU, (unsigned)i);
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, pu);
		hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_PACKAGE, pu);
		int node = pu->nodeset ? hwloc_bitmap_first(pu->nodeset) : -1;

		t->pu[i].cpu = (int)pu->os_index;
		t->pu[i].core = core ? (int)core->logical_index : -1;
		t->pu[i].socket = pkg && pkg->os_index != HWLOC_UNKNOWN_INDEX ? (int)pkg->os_index : -1;
		t->pu[i].numa = node;
		if (t->pu[i].socket >= 0)
			t->sockets[t->nsockets++] = t->pu[i].socket;
		if (node >= 0)
			t->numas[t->nnuma++] = node;
	}
	t->npu = (uint32_t)npu;
	t->ncores = ncore > 0 ? (uint32_t)ncore : 0;
	qsort(t->pu, t->npu, sizeof(*t->pu), cmp_pu);
	t->nsockets = uniq(t->sockets, t->nsockets);
	t->nnuma = uniq(t->numas, t->nnuma);
	*out = t;
	ret = 0;
out_h:
	hwloc_topology_destroy(h);
	return ret;
}

void topo__free(struct topo *t)
{
	if (!t)
		return;
	free(t->pu);
	free(t->sockets);
	free(t->numas);
	free(t);
}

const struct topo_pu *topo__pu(const struct topo *t, int cpu)
{
	struct topo_pu key = { .cpu = cpu };

	if (!t)
		return NULL;
	return bsearch(&key, t->pu, t->npu, sizeof(*t->pu), cmp_pu);
}
