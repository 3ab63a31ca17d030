/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_prof.c — libFuzzer target for the profile reader. Each input is
   written to a memfd and opened through /proc/self/fd/N, exactly as the
   analyzer opens a file; when accepted, every record is read back through the
   accessors. Because random mutations almost never keep the CRC right, every
   input is also tried a second time "re-sealed" (total length and CRC fixed
   up in its last 16 bytes), so the fuzzer explores the section walk and the
   semantic checks, not just the CRC check. The target returns 0 always: a
   crash or a sanitizer report is the only failure. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "hc/profile.h"
#include "fuzz_prof.h"

const char fuzz_target_name[] = "prof";

static int memfd = -1;

void fuzz_prof_reseal(uint8_t *d, size_t n)
{
	uint32_t crc;
	int i;

	if (n < 40)
		return;
	for (i = 0; i < 8; i++)
		d[n - 8 + i] = (uint8_t)((uint64_t)n >> (8 * i));
	crc = (uint32_t)crc32_z(0, d, n - 16);
	for (i = 0; i < 4; i++)
		d[n - 16 + i] = (uint8_t)(crc >> (8 * i));
}

/* Read every record so accessor bugs show up under the sanitizers. */
static void walk(const struct hc_prof *p)
{
	struct hc_prof_module m;
	struct hc_prof_node n;
	struct hc_prof_event e;
	struct hc_prof_alloc a;
	struct hc_prof_object o, o2;
	struct hc_prof_counter c;
	volatile uint64_t sink = hc_prof_thread(p)->pid;
	size_t i;

	for (i = 0; i < hc_prof_nmodules(p); i++) {
		hc_prof_module(p, i, &m);
		sink += strlen(m.path);
	}
	for (i = 0; i < hc_prof_nnodes(p); i++) {
		hc_prof_node(p, i, &n);
		sink += n.parent;
	}
	for (i = 0; i < hc_prof_nevents(p); i++) {
		hc_prof_event(p, i, &e);
		sink += e.ctx;
	}
	for (i = 0; i < hc_prof_nallocs(p); i++) {
		hc_prof_alloc(p, i, &a);
		sink += a.kind;
	}
	for (i = 0; i < hc_prof_nobjects(p); i++) {
		hc_prof_object(p, i, &o);
		/* Every record is found again by its key; a miss is a reader bug. */
		if (!hc_prof_object_find(p, o.event, o.side, &o2) || o2.base != o.base)
			abort();
	}
	if (hc_prof_nevents(p) > 0)
		sink += hc_prof_object_find(p, 0, HC_SIDE_PEER, &o2);
	sink += hc_prof_object_find(p, UINT32_MAX, HC_SIDE_PEER, &o2);
	for (i = 0; i < hc_prof_ncounters(p); i++) {
		hc_prof_counter(p, i, &c);
		sink += hc_prof_counter_value(p, c.name);
	}
	sink += hc_prof_counter_value(p, "samples");
	(void)sink;
}

static int try_open(const uint8_t *data, size_t size, char *err, size_t errsz)
{
	char path[64];
	struct hc_prof *p = NULL;
	int ret;

	if (memfd < 0) {
		memfd = memfd_create("fuzz_prof", MFD_CLOEXEC);
		if (memfd < 0)
			abort();
	}
	if (ftruncate(memfd, 0) != 0 || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	ret = hc_prof_open(path, &p, err, errsz);
	if (ret == 0) {
		walk(p);
		hc_prof_close(p);
	} else if (p != NULL || err[0] == '\0' || strncmp(err, path, strlen(path)) != 0) {
		abort();   /* a rejection must come with a message naming the file */
	}
	return ret;
}

int fuzz_target_check(const uint8_t *data, size_t size, char *err, size_t errsz)
{
	return try_open(data, size, err, errsz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	uint8_t *copy;

	try_open(data, size, err, sizeof(err));
	if (size >= 40 && size <= (64u << 20)) {
		copy = malloc(size);
		if (!copy)
			abort();
		memcpy(copy, data, size);
		fuzz_prof_reseal(copy, size);
		try_open(copy, size, err, sizeof(err));
		free(copy);
	}
	return 0;
}
