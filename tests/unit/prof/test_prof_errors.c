/* SPDX-License-Identifier: BSD-3-Clause */
/* test_prof_errors.c — every rejection path of the profile reader. A small
   valid profile is produced by the writer, then damaged: cut at every byte
   offset, every single bit flipped, and edited field by field (re-sealing the
   trailer so the damage gets past the CRC and reaches the structural and
   semantic checks). Each damaged file must be rejected with -EINVAL and a
   message "PATH: offset N: expected ..." naming the right problem — never
   accepted, never a crash (run it under --enable-sanitizers to also prove no
   out-of-bounds read). Also: empty file, directory, missing file, FIFO,
   forward-compatible additions that must be accepted. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hc/profile.h"
#include "prof/layout.h"
#include "hc_test.h"

static char path[256];
static char err[1024];
static uint8_t *good;
static size_t good_len;

static void put32(uint8_t *p, uint32_t v) { le_put32(p, v); }
static void put64(uint8_t *p, uint64_t v) { le_put64(p, v); }

/* The small valid profile: 2 modules, 4 nodes, 2 events, 2 allocs, 3 counters. */
static void make_good(void)
{
	static uint8_t buf[4096];
	struct hc_prof_writer w;
	struct hc_prof_thread th = { .index = 1, .creator = 0, .pid = 10, .tid = 11,
		.sampler = HC_SAMPLER_SOFT, .unit = HC_UNIT_NS, .creation_ctx = 3, .period = 1000,
		.start_lm = 1, .start_off = 0x40 };
	struct hc_prof_module m = { .base = 0x400000, .lo = 0x401000, .hi = 0x402000 };
	struct hc_prof_node n = { 0 };
	struct hc_prof_event e = { .time = 5, .weight = 1000, .addr = 0x1000, .peer_addr = 0x1004,
		.len = 4, .peer_len = 4, .peer = 0, .cpu = 1, .peer_cpu = 0, .ctx = 3,
		.peer_ctx = 2, .flags = HC_COMM_STORE };
	struct hc_prof_alloc a = { .time = 1, .addr = 0x5000, .size = 64, .ctx = 2, .kind = HC_ALLOC };
	struct stat st;
	uint32_t i;
	int fd;

	strcpy(th.exe, "/bin/prog");
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	CHECK_EQ_U64(hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_LOADMAP), 0);
	for (i = 0; i < 2; i++) {
		m.id = i;
		snprintf(m.path, sizeof(m.path), "/lib/m%u.so", i);
		CHECK_EQ_U64(hc_prof_put_module(&w, &m), 0);
	}
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_CCT), 0);
	for (i = 0; i < 4; i++) {
		n.id = i;
		n.parent = i == 0 ? HC_NONE : i - 1;
		n.lm = i == 0 ? HC_NONE : i % 2;
		n.offset = 0x100 * i;
		n.m[HC_M_FALSE_SAMPLE] = i;
		CHECK_EQ_U64(hc_prof_put_node(&w, &n), 0);
	}
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_EVENTS), 0);
	CHECK_EQ_U64(hc_prof_put_event(&w, &e), 0);
	CHECK_EQ_U64(hc_prof_put_event(&w, &e), 0);
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_ALLOCS), 0);
	CHECK_EQ_U64(hc_prof_put_alloc(&w, &a), 0);
	a.kind = HC_FREE;
	a.size = 0;
	a.ctx = HC_NONE;
	CHECK_EQ_U64(hc_prof_put_alloc(&w, &a), 0);
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_COUNTERS), 0);
	CHECK_EQ_U64(hc_prof_put_counter(&w, "samples", 7), 0);
	CHECK_EQ_U64(hc_prof_put_counter(&w, "traps", 2), 0);
	CHECK_EQ_U64(hc_prof_put_counter(&w, "events_dropped", 0), 0);
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_writer_finish(&w), 0);
	if (fstat(fd, &st) < 0)
		exit(1);
	good_len = (size_t)st.st_size;
	good = malloc(good_len);
	if (!good || pread(fd, good, good_len, 0) != (ssize_t)good_len)
		exit(1);
	close(fd);
}

static void write_file(const uint8_t *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || (n && write(fd, b, n) != (ssize_t)n)) {
		perror(path);
		exit(1);
	}
	close(fd);
}

/* Recompute the END record (total, CRC) so an edit reaches the later checks. */
static void reseal(uint8_t *b, size_t n)
{
	put64(b + n - L_END_SIZE + L_END_TOTAL, n);
	put32(b + n - L_END_SIZE + L_END_CRC, (uint32_t)crc32_z(0, b, n - L_END_SIZE));
}

/* File offset of the header of the section with this tag in `good`. */
static size_t sec(uint32_t tag)
{
	size_t off = L_HEADER_SIZE;

	while (off + L_SEC_SIZE <= good_len) {
		if (le_get32(good + off) == tag)
			return off;
		off += L_SEC_SIZE + le_get64(good + off + L_SEC_LENGTH);
	}
	fprintf(stderr, "section %08x not found\n", tag);
	exit(1);
}

/* A fresh copy of `good` with room for `extra` inserted bytes at `at`. */
static uint8_t *splice_bytes(size_t at, const void *ins, size_t extra)
{
	uint8_t *b = malloc(good_len + extra);

	memcpy(b, good, at);
	memcpy(b + at, ins, extra);
	memcpy(b + at + extra, good + at, good_len - at);
	return b;
}

static int open_bytes(const uint8_t *b, size_t n)
{
	struct hc_prof *p = NULL;
	int ret;

	write_file(b, n);
	memset(err, 0, sizeof(err));
	ret = hc_prof_open(path, &p, err, sizeof(err));
	if (ret == 0) {
		hc_prof_close(p);
	} else {
		CHECK(p == NULL);
	}
	return ret;
}

/* Expect rejection with a well-formed message mentioning `what`. */
static void reject(const char *label, const uint8_t *b, size_t n, const char *what)
{
	char prefix[300];
	int ret = open_bytes(b, n);

	snprintf(prefix, sizeof(prefix), "%s: offset ", path);
	CHECK_MSG(ret == -EINVAL, "%s: ret %d", label, ret);
	CHECK_MSG(strncmp(err, prefix, strlen(prefix)) == 0 && strstr(err, "expected"),
	          "%s: bad message \"%s\"", label, err);
	CHECK_MSG(strstr(err, what) != NULL, "%s: message \"%s\" lacks \"%s\"", label, err, what);
}

static void accept(const char *label, const uint8_t *b, size_t n)
{
	int ret = open_bytes(b, n);

	CHECK_MSG(ret == 0, "%s: %s", label, err);
}

/* Apply an edit to a copy of `good`, re-seal it, expect rejection. */
#define EDIT(label, what, stmt) do { \
	uint8_t *b = malloc(good_len); \
	memcpy(b, good, good_len); \
	stmt; \
	reseal(b, good_len); \
	reject(label, b, good_len, what); \
	free(b); \
} while (0)

static void test_truncations(void)
{
	size_t n;
	int bad = 0;

	accept("good", good, good_len);
	for (n = 0; n < good_len; n++) {
		int ret = open_bytes(good, n);
		if (ret != -EINVAL || strncmp(err, path, strlen(path)) != 0 || !strstr(err, "expected")) {
			if (bad++ < 5)
				fprintf(stderr, "prefix %zu: ret %d \"%s\"\n", n, ret, err);
		}
	}
	CHECK_EQ_U64(bad, 0);
	/* Three interesting prefixes, by message. */
	reject("empty", good, 0, "an empty file");
	reject("cut in header", good, 100, "truncated");
	reject("cut before END", good, good_len - L_TRAILER_SIZE, "END section");
	/* Trailing garbage after END. */
	{
		uint8_t *b = splice_bytes(good_len, "\0\0\0\0\0\0\0\0", 8);
		reject("trailing bytes", b, good_len + 8, "END section");
		free(b);
	}
}

static void test_bit_flips(void)
{
	uint8_t *b = malloc(good_len);
	size_t i;
	int bit, bad = 0;

	memcpy(b, good, good_len);
	for (i = 0; i < good_len; i++) {
		for (bit = 0; bit < 8; bit++) {
			b[i] ^= (uint8_t)(1u << bit);
			if (open_bytes(b, good_len) != -EINVAL || !strstr(err, "expected")) {
				if (bad++ < 5)
					fprintf(stderr, "flip %zu.%d accepted: \"%s\"\n", i, bit, err);
			}
			b[i] ^= (uint8_t)(1u << bit);
		}
	}
	CHECK_EQ_U64(bad, 0);
	free(b);
}

static void test_envelope(void)
{
	uint8_t *x;

	EDIT("magic", "expected magic", b[0] ^= 0x20);
	EDIT("magic CRLF", "expected magic", b[6] = '\n');
	EDIT("version 2", "found version 2", put32(b + L_VERSION_OFF, 2));
	EDIT("version 0", "found version 0", put32(b + L_VERSION_OFF, 0));
	/* The version is reported even when nothing else of the file is sane. */
	x = calloc(1, 64);
	memcpy(x, HC_PROF_MAGIC, 8);
	put32(x + L_VERSION_OFF, 99);
	reject("version 99 in garbage", x, 64, "found version 99");
	free(x);
	EDIT("header size small", "header size", put32(b + L_HDRSIZE_OFF, 375));
	EDIT("header size zero", "header size", put32(b + L_HDRSIZE_OFF, 0));
	EDIT("header size unaligned", "header size", put32(b + L_HDRSIZE_OFF, 380));
	EDIT("header size huge", "truncated", put32(b + L_HDRSIZE_OFF, 0xfffffff8u));
	EDIT("header size past sections", "section", put32(b + L_HDRSIZE_OFF, 384));
	EDIT("exe no NUL", "exe", memset(b + L_THREAD_OFF + L_TH_EXE, 'e', L_TH_EXE_LEN));
	EDIT("sampler", "sampler", put32(b + L_THREAD_OFF + L_TH_SAMPLER, 9));
	EDIT("unit", "unit", put32(b + L_THREAD_OFF + L_TH_UNIT, 2));
	EDIT("start module", "start module", put32(b + L_THREAD_OFF + L_TH_START_LM, 2));
	EDIT("END tag", "END section", put32(b + good_len - L_TRAILER_SIZE, HC_SEC_CCT));
	EDIT("END count", "END section", put64(b + good_len - L_TRAILER_SIZE + L_SEC_COUNT, 2));

	/* CRC and total are checked as stored, so edit them after re-sealing. */
	x = malloc(good_len);
	memcpy(x, good, good_len);
	put64(x + good_len - L_END_SIZE + L_END_TOTAL, good_len + 1);
	reject("total", x, good_len, "total length");
	memcpy(x, good, good_len);
	x[good_len - L_END_SIZE + L_END_CRC] ^= 1;
	reject("crc", x, good_len, "CRC-32");
	memcpy(x, good, good_len);
	x[good_len - L_END_SIZE + L_END_RESERVED] = 1;
	reject("END reserved", x, good_len, "reserved");
	memcpy(x, good, good_len);
	x[L_HEADER_SIZE + 40] ^= 0x80;       /* inside a record, structure intact */
	reject("payload flip", x, good_len, "CRC-32");
	free(x);
}

static void test_sections(void)
{
	size_t lm = sec(HC_SEC_LOADMAP), cct = sec(HC_SEC_CCT), cn = sec(HC_SEC_COUNTERS);
	uint8_t ins[64], *x;

	EDIT("record size", "record size 544", put32(b + lm + L_SEC_RSIZE, 536));
	EDIT("count mismatch", "byte length", put64(b + cct + L_SEC_COUNT, 5));
	/* count * 56 overflows u64 (and wraps to a small number for 2^61+1). */
	EDIT("count overflow", "byte length", put64(b + cct + L_SEC_COUNT, (1ull << 61) + 1));
	EDIT("count max", "byte length", put64(b + cct + L_SEC_COUNT, UINT64_MAX));
	/* A consistent but enormous section: 7 * 2^61 fits in u64. */
	EDIT("length huge", "to end before the END", (put64(b + cct + L_SEC_COUNT, 1ull << 58),
	     put64(b + cct + L_SEC_LENGTH, 56ull << 58)));
	EDIT("length past END", "to end before the END", (put64(b + cn + L_SEC_COUNT, 4),
	     put64(b + cn + L_SEC_LENGTH, 4 * 48)));
	/* Shortened: the walk lands inside a record and reads a name as a header. */
	EDIT("length short", "for section 'even'", (put64(b + cn + L_SEC_COUNT, 2),
	     put64(b + cn + L_SEC_LENGTH, 2 * 48)));
	/* 16 stray bytes before END: too few for a section header. */
	x = splice_bytes(good_len - L_TRAILER_SIZE, ins, 16);
	reseal(x, good_len + 16);
	reject("stray bytes", x, good_len + 16, "24-byte section header");
	free(x);

	/* An unknown section is skipped... */
	memset(ins, 0, sizeof(ins));
	put32(ins + L_SEC_TAG, HC_TAG('X', 'T', 'R', 'A'));
	put32(ins + L_SEC_RSIZE, 8);
	put64(ins + L_SEC_COUNT, 2);
	put64(ins + L_SEC_LENGTH, 16);
	memset(ins + L_SEC_SIZE, 0xee, 16);
	x = splice_bytes(cct, ins, 40);
	reseal(x, good_len + 40);
	accept("unknown section", x, good_len + 40);
	/* ...but must still be well formed. */
	put32(x + cct + L_SEC_RSIZE, 0);
	reseal(x, good_len + 40);
	reject("unknown rsize 0", x, good_len + 40, "non-zero record size");
	put32(x + cct + L_SEC_RSIZE, 12);
	put64(x + cct + L_SEC_LENGTH, 24);
	reseal(x, good_len + 40);
	reject("unknown rsize 12", x, good_len + 40, "multiple of 8");
	reject("unknown rsize 12", x, good_len + 40, "'XTRA'");
	put32(x + cct + L_SEC_TAG, 0x01020304);
	reseal(x, good_len + 40);
	reject("unprintable tag", x, good_len + 40, "0x01020304");
	put32(x + cct + L_SEC_RSIZE, 8);
	put64(x + cct + L_SEC_COUNT, UINT64_MAX);
	reseal(x, good_len + 40);
	reject("unknown tag overflow", x, good_len + 40, "byte length");
	free(x);

	/* A second CNTR section. */
	memset(ins, 0, sizeof(ins));
	put32(ins + L_SEC_TAG, HC_SEC_COUNTERS);
	put32(ins + L_SEC_RSIZE, 48);
	x = splice_bytes(lm, ins, 24);
	reseal(x, good_len + 24);
	reject("duplicate", x, good_len + 24, "at most one 'CNTR'");
	free(x);

	/* An END section in the middle. */
	memcpy(ins, good + good_len - L_TRAILER_SIZE, L_TRAILER_SIZE);
	x = splice_bytes(lm, ins, L_TRAILER_SIZE);
	reseal(x, good_len + L_TRAILER_SIZE);
	reject("END in the middle", x, good_len + L_TRAILER_SIZE, "END section to be last");
	free(x);

	/* A longer header (compatible extension) is skipped. */
	memset(ins, 0xab, 8);
	x = splice_bytes(L_HEADER_SIZE, ins, 8);
	put32(x + L_HDRSIZE_OFF, L_HEADER_SIZE + 8);
	reseal(x, good_len + 8);
	accept("header extension", x, good_len + 8);
	free(x);
}

static void test_records(void)
{
	size_t lm = sec(HC_SEC_LOADMAP) + L_SEC_SIZE, cct = sec(HC_SEC_CCT) + L_SEC_SIZE;
	size_t ev = sec(HC_SEC_EVENTS) + L_SEC_SIZE, al = sec(HC_SEC_ALLOCS) + L_SEC_SIZE;
	size_t cn = sec(HC_SEC_COUNTERS) + L_SEC_SIZE;
	size_t m1 = lm + L_MOD_SIZE, n2 = cct + 2 * L_NODE_SIZE;
	char want[64];

	EDIT("module id", "module id 1", put32(b + m1 + L_MOD_ID, 5));
	EDIT("module lo > hi", "lo <= hi", put64(b + m1 + L_MOD_LO, 0x500000));
	EDIT("module path", "module path", memset(b + m1 + L_MOD_PATH, 'x', L_MOD_PATH_LEN));
	EDIT("node id", "node id 2", put32(b + n2 + L_NODE_ID, 7));
	EDIT("root parent", "root node", put32(b + cct + L_NODE_PARENT, 0));
	EDIT("root module", "root node", put32(b + cct + L_NODE_LM, 0));
	EDIT("parent self", "parents first", put32(b + n2 + L_NODE_PARENT, 2));
	EDIT("parent later", "parents first", put32(b + n2 + L_NODE_PARENT, 3));
	EDIT("parent none", "parents first", put32(b + n2 + L_NODE_PARENT, HC_NONE));
	EDIT("node module", "module id below 2", put32(b + n2 + L_NODE_LM, 2));
	EDIT("event ctx", "context node below 4", put32(b + ev + L_EV_SIZE + L_EV_CTX, 4));
	EDIT("event ctx none", "context node below 4", put32(b + ev + L_EV_CTX, HC_NONE));
	EDIT("alloc kind", "allocation kind", put32(b + al + L_AL_KIND, 2));
	EDIT("alloc ctx", "context node below 4", put32(b + al + L_AL_CTX, 4));
	EDIT("counter NUL", "no NUL", memset(b + cn + L_CN_SIZE, 'n', L_CN_NAME_LEN));
	EDIT("counter empty", "empty name", b[cn + 2 * L_CN_SIZE] = '\0');
	/* The offset in the message is the field's. */
	snprintf(want, sizeof(want), "offset %zu:", n2 + L_NODE_PARENT);
	EDIT("offset reported", want, put32(b + n2 + L_NODE_PARENT, 3));
	/* Things that look odd but are allowed. */
	{
		uint8_t *b = malloc(good_len);
		memcpy(b, good, good_len);
		put32(b + n2 + L_NODE_LM, HC_NONE);              /* unknown module */
		put32(b + n2 + L_NODE_FLAGS, 0xffffffffu);       /* unknown flag bits */
		put32(b + al + L_AL_CTX, HC_NONE);               /* unknown alloc context */
		reseal(b, good_len);
		accept("allowed oddities", b, good_len);
		free(b);
	}
}

static void test_files(void)
{
	struct hc_prof *p = (struct hc_prof *)&p;
	char dir[300], small[8];
	int ret;

	snprintf(dir, sizeof(dir), "%s.d", path);
	rmdir(dir);
	CHECK(mkdir(dir, 0755) == 0);
	ret = hc_prof_open(dir, &p, err, sizeof(err));
	CHECK_EQ_U64(ret, -EISDIR);
	CHECK(p == NULL);
	CHECK(strstr(err, dir) == err && strstr(err, "directory"));
	rmdir(dir);

	ret = hc_prof_open(dir, &p, err, sizeof(err));   /* now missing */
	CHECK_EQ_U64(ret, -ENOENT);
	CHECK(strstr(err, dir) == err && strstr(err, "cannot open"));

	CHECK(mkfifo(dir, 0644) == 0);                      /* must not block */
	ret = hc_prof_open(dir, &p, err, sizeof(err));
	CHECK_EQ_U64(ret, -EINVAL);
	CHECK(strstr(err, "not a regular file") != NULL);
	unlink(dir);

	/* A tiny or absent message buffer is never overrun. */
	write_file(good, 10);
	memset(small, 'z', sizeof(small));
	ret = hc_prof_open(path, &p, small, 5);
	CHECK_EQ_U64(ret, -EINVAL);
	CHECK(small[4] == '\0' && small[5] == 'z');
	CHECK_EQ_U64(hc_prof_open(path, &p, NULL, 0), -EINVAL);
	CHECK_EQ_U64(hc_prof_open(NULL, &p, err, sizeof(err)), -EINVAL);
	CHECK_EQ_U64(hc_prof_open(path, NULL, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/hc-prof-err-%d.hcprof", tmp ? tmp : "/tmp", (int)getpid());
	make_good();
	test_truncations();
	test_bit_flips();
	test_envelope();
	test_sections();
	test_records();
	test_files();
	unlink(path);
	free(good);
	return hc_test_done("test_prof_errors");
}
