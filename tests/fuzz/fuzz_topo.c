/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_topo.c — fuzz target for the topology reader of hpcprof-comm
   (lib/analysis/topology.c, topo__load): the hwloc XML file the runtime saves
   per host (topology-<hostid>.xml) is read back through hwloc. Each input is
   written to a memfd and opened through /proc/self/fd/N; an accepted
   topology is queried for every CPU number it could name. The XML parsing
   itself is hwloc's (not instrumented), so coverage guidance only sees our
   side; the target still catches any crash on the way. No signal context. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/internal.h"
#include "fuzz/fuzz_target.h"

const char fuzz_target_name[] = "topo";

static int memfd = -1;

int fuzz_target_check(const uint8_t *data, size_t size, char *err, size_t errsz)
{
	char path[64];
	struct topo *t = NULL;
	int ret, cpu;

	if (memfd < 0) {
		memfd = memfd_create("fuzz_topo", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
	}
	if (ftruncate(memfd, 0) != 0 || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	err[0] = '\0';
	ret = topo__load(path, &t, err, errsz);
	if (ret == 0) {
		volatile long sink = 0;

		for (cpu = -1; cpu <= 4096; cpu++) {
			const struct topo_pu *pu = topo__pu(t, cpu);

			if (pu)
				sink += pu->core + pu->socket + pu->numa;
		}
		(void)sink;
		topo__free(t);
	} else if (t != NULL || err[0] == '\0' || strncmp(err, path, strlen(path)) != 0) {
		fprintf(stderr, "fuzz_topo: rejection without a message naming the file: \"%s\"\n", err);
		abort();
	}
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024];

	fuzz_target_check(data, size, err, sizeof(err));
	return 0;
}
