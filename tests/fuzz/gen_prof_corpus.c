/* SPDX-License-Identifier: BSD-3-Clause */
/* gen_prof_corpus.c — writes the seed/regression corpus of the profile fuzz
   target: small valid profiles from the real writer ("ok-*") and damaged
   variants ("bad-*": truncations, bit flips, and field edits re-sealed so they
   get past the CRC; "sealed-*": re-sealed flips that may be valid). Deterministic: rerunning it reproduces the same files.
   Usage: gen_prof_corpus OUTDIR   (the corpus lives in tests/fuzz/corpus/prof). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc/profile.h"
#include "prof/layout.h"
#include "fuzz_prof.h"

static const char *outdir;

static void save(const char *name, const uint8_t *b, size_t n)
{
	char path[1024];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || (n && write(fd, b, n) != (ssize_t)n)) {
		perror(path);
		exit(1);
	}
	close(fd);
}

/* Write a profile with the writer into memory; `full` adds records. */
static uint8_t *make(int full, size_t *len)
{
	static uint8_t buf[4096];
	struct hc_prof_writer w;
	struct hc_prof_thread th = { .index = 1, .creator = 0, .pid = 100, .tid = 101,
		.sampler = HC_SAMPLER_SOFT, .unit = HC_UNIT_NS, .creation_ctx = 2, .period = 500000,
		.start_ns = 10, .end_ns = 20, .stack_lo = 0x7000, .stack_hi = 0x8000,
		.start_lm = HC_NONE };
	FILE *tmp = tmpfile();
	uint8_t *out;
	uint32_t i;
	int fd, rc = 0;
	long size;

	if (!tmp)
		exit(1);
	fd = fileno(tmp);
	strcpy(th.exe, "/bin/app");
	if (full)
		th.start_lm = 1;
	rc |= hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th);
	if (full) {
		struct hc_prof_module m = { .base = 0x400000, .lo = 0x400000, .hi = 0x401000 };
		struct hc_prof_node n = { 0 };
		struct hc_prof_event e = { .time = 15, .weight = 500000, .addr = 0x601000,
			.peer_addr = 0x601008, .len = 8, .peer_len = 8, .peer = 0, .cpu = 1,
			.peer_cpu = 0, .peer_ctx = 3, .flags = HC_COMM_STORE | HC_COMM_PEER_STORE };
		struct hc_prof_alloc a = { .time = 12, .addr = 0x602000, .size = 128, .kind = HC_ALLOC };

		rc |= hc_prof_section_begin(&w, HC_SEC_LOADMAP);
		for (i = 0; i < 2; i++) {
			m.id = i;
			snprintf(m.path, sizeof(m.path), i ? "/lib/libc.so.6" : "/bin/app");
			rc |= hc_prof_put_module(&w, &m);
		}
		rc |= hc_prof_section_end(&w);
		rc |= hc_prof_section_begin(&w, HC_SEC_CCT);
		for (i = 0; i < 5; i++) {
			n.id = i;
			n.parent = i == 0 ? HC_NONE : (i - 1) / 2;
			n.lm = i == 0 ? HC_NONE : i % 2;
			n.flags = i >= 3 ? HC_NODE_LEAF : 0;
			n.offset = 0x1000 + i;
			n.m[HC_M_FALSE_SAMPLE] = i >= 3 ? 500000 : 0;
			rc |= hc_prof_put_node(&w, &n);
		}
		rc |= hc_prof_section_end(&w);
		rc |= hc_prof_section_begin(&w, HC_SEC_EVENTS);
		for (i = 0; i < 3; i++) {
			e.ctx = 3 + i % 2;
			e.time += i;
			rc |= hc_prof_put_event(&w, &e);
		}
		rc |= hc_prof_section_end(&w);
		rc |= hc_prof_section_begin(&w, HC_SEC_ALLOCS);
		for (i = 0; i < 3; i++) {
			a.ctx = i == 2 ? HC_NONE : 2;
			a.kind = i == 2 ? HC_FREE : HC_ALLOC;
			a.size = i == 2 ? 0 : 128;
			rc |= hc_prof_put_alloc(&w, &a);
		}
		rc |= hc_prof_section_end(&w);
		rc |= hc_prof_section_begin(&w, HC_SEC_OBJECTS);
		for (i = 0; i < 3; i++) {
			/* event 0 (both sides) and event 1 (addr) lie in one block */
			struct hc_prof_object o = { .event = i / 2, .side = i % 2, .base = 0x601000,
				.size = 64, .thread = i % 2, .ctx = 2, .kind = HC_OBJ_MALLOC };
			rc |= hc_prof_put_object(&w, &o);
		}
		rc |= hc_prof_section_end(&w);
		rc |= hc_prof_section_begin(&w, HC_SEC_COUNTERS);
		rc |= hc_prof_put_counter(&w, "samples", 1234);
		rc |= hc_prof_put_counter(&w, "traps", 5);
		rc |= hc_prof_put_counter(&w, "detections_sample", 3);
		rc |= hc_prof_put_counter(&w, "handler_ns_p99", 1800);
		rc |= hc_prof_section_end(&w);
	}
	rc |= hc_prof_writer_finish(&w);
	size = lseek(fd, 0, SEEK_END);
	out = malloc((size_t)size);
	if (rc || size <= 0 || !out || pread(fd, out, (size_t)size, 0) != size) {
		fprintf(stderr, "gen_prof_corpus: writer failed (%d)\n", rc);
		exit(1);
	}
	fclose(tmp);
	*len = (size_t)size;
	return out;
}

static size_t sec(const uint8_t *b, size_t n, uint32_t tag)
{
	size_t off = L_HEADER_SIZE;

	while (off + L_SEC_SIZE <= n) {
		if (le_get32(b + off) == tag)
			return off;
		off += L_SEC_SIZE + le_get64(b + off + L_SEC_LENGTH);
	}
	exit(1);
}

static uint8_t *insert(const uint8_t *b, size_t n, size_t at, const void *ins, size_t k)
{
	uint8_t *r = malloc(n + k);

	memcpy(r, b, at);
	memcpy(r + at, ins, k);
	memcpy(r + at + k, b + at, n - at);
	fuzz_prof_reseal(r, n + k);
	return r;
}

/* Save a copy (in main's c) with one edit applied and re-sealed. */
#define EDITED(name, stmt) do { \
	c = malloc(n); \
	memcpy(c, b, n); \
	stmt; \
	fuzz_prof_reseal(c, n); \
	save(name, c, n); \
	free(c); \
} while (0)

int main(int argc, char **argv)
{
	uint8_t *b, *e, *c, ins[64];
	size_t n, en, i, cut[8], cct, cn;
	char name[64];
	uint32_t seed = 12345;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	e = make(0, &en);
	save("ok-empty.hcprof", e, en);
	b = make(1, &n);
	save("ok-small.hcprof", b, n);
	cct = sec(b, n, HC_SEC_CCT);
	cn = sec(b, n, HC_SEC_COUNTERS);

	memset(ins, 0, sizeof(ins));
	le_put32(ins + L_SEC_TAG, HC_TAG('X', 'T', 'R', 'A'));
	le_put32(ins + L_SEC_RSIZE, 16);
	le_put64(ins + L_SEC_COUNT, 1);
	le_put64(ins + L_SEC_LENGTH, 16);
	c = insert(b, n, cct, ins, 40);
	save("ok-unknown-section.hcprof", c, n + 40);
	free(c);
	memset(ins, 0, sizeof(ins));
	c = insert(b, n, L_HEADER_SIZE, ins, 16);
	le_put32(c + L_HDRSIZE_OFF, L_HEADER_SIZE + 16);
	fuzz_prof_reseal(c, n + 16);
	save("ok-header-extension.hcprof", c, n + 16);
	free(c);

	save("bad-empty", b, 0);
	cut[0] = 7; cut[1] = 15; cut[2] = 100; cut[3] = L_HEADER_SIZE; cut[4] = 400;
	cut[5] = n / 2; cut[6] = n - 41; cut[7] = n - 1;
	for (i = 0; i < 8; i++) {
		snprintf(name, sizeof(name), "bad-trunc-%zu", cut[i]);
		save(name, b, cut[i]);
	}
	for (i = 0; i < 6; i++) {
		size_t pos[6] = { 3, 9, L_THREAD_OFF + 20, cct + L_SEC_COUNT, cct + 40, n - 14 };
		/* Re-sealed, a flip may or may not break a rule: no expectation. */
		snprintf(name, sizeof(name), "sealed-flip-%zu", pos[i]);
		EDITED(name, c[pos[i]] ^= 0x10);
		/* The same flip, left unsealed: caught by the CRC. */
		c = malloc(n);
		memcpy(c, b, n);
		c[pos[i]] ^= 0x10;
		snprintf(name, sizeof(name), "bad-flip-%zu", pos[i]);
		save(name, c, n);
		free(c);
	}
	EDITED("bad-version-2", le_put32(c + L_VERSION_OFF, 2));
	EDITED("bad-header-size", le_put32(c + L_HDRSIZE_OFF, 0xfffffff0u));
	EDITED("bad-count-overflow", le_put64(c + cct + L_SEC_COUNT, (1ull << 61) + 1));
	EDITED("bad-count-huge", (le_put64(c + cct + L_SEC_COUNT, 1ull << 58),
	       le_put64(c + cct + L_SEC_LENGTH, 56ull << 58)));
	EDITED("bad-record-size", le_put32(c + cn + L_SEC_RSIZE, 40));
	EDITED("bad-parent-order", le_put32(c + cct + L_SEC_SIZE + 2 * L_NODE_SIZE + L_NODE_PARENT, 4));
	EDITED("bad-root", le_put32(c + cct + L_SEC_SIZE + L_NODE_PARENT, 0));
	EDITED("bad-node-module", le_put32(c + cct + L_SEC_SIZE + L_NODE_SIZE + L_NODE_LM, 9));
	EDITED("bad-event-ctx", le_put32(c + sec(b, n, HC_SEC_EVENTS) + L_SEC_SIZE + L_EV_CTX, 5));
	EDITED("bad-alloc-kind", le_put32(c + sec(b, n, HC_SEC_ALLOCS) + L_SEC_SIZE + L_AL_KIND, 7));
	EDITED("bad-counter-name", memset(c + cn + L_SEC_SIZE, 'x', L_CN_NAME_LEN));
	EDITED("bad-module-path", memset(c + sec(b, n, HC_SEC_LOADMAP) + L_SEC_SIZE + L_MOD_PATH,
	                                 'p', L_MOD_PATH_LEN));
	{
		size_t ob = sec(b, n, HC_SEC_OBJECTS) + L_SEC_SIZE;
		EDITED("bad-object-event", le_put32(c + ob + L_OB_EVENT, 3));
		EDITED("bad-object-order", le_put32(c + ob + L_OB_SIZE + L_OB_SIDE, 0));
		EDITED("bad-object-block", le_put64(c + ob + L_OB_BASE, 0x601009));
		EDITED("bad-object-kind", le_put32(c + ob + L_OB_KIND, 2));
	}
	memset(ins, 0, sizeof(ins));
	le_put32(ins + L_SEC_TAG, HC_SEC_CCT);
	le_put32(ins + L_SEC_RSIZE, L_NODE_SIZE);
	c = insert(b, n, cn, ins, 24);
	save("bad-duplicate-section", c, n + 24);
	free(c);
	c = insert(b, n, cct, b + n - L_TRAILER_SIZE, L_TRAILER_SIZE);
	save("bad-end-in-middle", c, n + L_TRAILER_SIZE);
	free(c);
	c = malloc(n);
	for (i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		c[i] = (uint8_t)(seed >> 16);
	}
	memcpy(c, HC_PROF_MAGIC, 8);
	save("bad-garbage", c, n);
	fuzz_prof_reseal(c, n);
	le_put32(c + L_VERSION_OFF, HC_PROF_VERSION);
	save("bad-garbage-sealed", c, n);
	free(c);
	free(b);
	free(e);
	return 0;
}
