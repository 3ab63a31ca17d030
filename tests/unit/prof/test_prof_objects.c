/* SPDX-License-Identifier: BSD-3-Clause */
/* test_prof_objects.c — the OBJS section (heap blocks resolved for event
   addresses): written and read back field by field, found by (event, side)
   with hc_prof_object_find, the writer's refusals (bad side or kind, empty
   block, records out of order or repeated), and every reader rejection
   (event out of range, bad side or kind, order, an address outside its
   block), each on an otherwise valid file re-sealed with a correct CRC so
   that the semantic check itself is what fails. Not signal-context code. */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hc/profile.h"
#include "prof/layout.h"
#include "hc_test.h"

#define NEV 300

static char path[256];

static void make_event(uint32_t i, struct hc_prof_event *e)
{
	memset(e, 0, sizeof(*e));
	e->time = 1000 + i;
	e->weight = 7;
	e->addr = 0x600000ull + 64 * i + 8;
	e->peer_addr = 0x600000ull + 64 * i + 16;
	e->len = e->peer_len = 8;
	e->peer = 1;
	e->cpu = e->peer_cpu = -1;
	e->peer_ctx = 5;
}

/* Events i % 3 == 0 have both sides, i % 3 == 1 the address only,
   i % 3 == 2 none; the block is the event's 64-byte line. */
static size_t make_objects(struct hc_prof_object *v)
{
	size_t n = 0;

	for (uint32_t i = 0; i < NEV; i++)
		for (uint32_t side = 0; side < 2; side++) {
			if (i % 3 == 2 || (i % 3 == 1 && side == 1))
				continue;
			memset(&v[n], 0, sizeof(v[n]));
			v[n].event = i;
			v[n].side = side;
			v[n].base = 0x600000ull + 64 * i;
			v[n].size = 64;
			v[n].thread = i % 4;
			v[n].ctx = 1000 + i;
			v[n].kind = i % 5 == 0 ? HC_OBJ_MMAP : HC_OBJ_MALLOC;
			n++;
		}
	return n;
}

static int write_file(const struct hc_prof_object *ob, size_t nob)
{
	static uint8_t buf[4096];
	struct hc_prof_writer w;
	struct hc_prof_thread th;
	struct hc_prof_node root = { .id = 0, .parent = HC_NONE, .lm = HC_NONE };
	int fd, rc;

	memset(&th, 0, sizeof(th));
	strcpy(th.exe, "/bin/objects");
	th.start_lm = HC_NONE;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -errno;
	rc = hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th);
	rc |= hc_prof_section_begin(&w, HC_SEC_CCT);
	rc |= hc_prof_put_node(&w, &root);
	rc |= hc_prof_section_end(&w);
	rc |= hc_prof_section_begin(&w, HC_SEC_EVENTS);
	for (uint32_t i = 0; i < NEV; i++) {
		struct hc_prof_event e;
		make_event(i, &e);
		rc |= hc_prof_put_event(&w, &e);
	}
	rc |= hc_prof_section_end(&w);
	if (nob) {   /* last section: its records end 40 bytes before the file end */
		rc |= hc_prof_section_begin(&w, HC_SEC_OBJECTS);
		for (size_t i = 0; i < nob; i++)
			rc |= hc_prof_put_object(&w, &ob[i]);
		rc |= hc_prof_section_end(&w);
	}
	rc |= hc_prof_writer_finish(&w);
	close(fd);
	return rc;
}

static void test_roundtrip(void)
{
	static struct hc_prof_object want[2 * NEV];
	struct hc_prof_object got;
	struct hc_prof *p;
	char err[512];
	size_t n = make_objects(want);

	CHECK_EQ_U64(write_file(want, n), 0);
	CHECK_EQ_U64(hc_prof_open(path, &p, err, sizeof(err)), 0);
	if (!p) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_EQ_U64(hc_prof_nobjects(p), n);
	for (size_t i = 0; i < n; i++) {
		hc_prof_object(p, i, &got);
		CHECK(memcmp(&got, &want[i], sizeof(got)) == 0);
	}
	for (uint32_t i = 0; i < NEV; i++)
		for (uint32_t side = 0; side < 2; side++) {
			bool has = !(i % 3 == 2 || (i % 3 == 1 && side == 1));
			bool found = hc_prof_object_find(p, i, side, &got);
			CHECK(found == has);
			if (found && has) {
				CHECK_EQ_U64(got.event, i);
				CHECK_EQ_U64(got.side, side);
				CHECK_EQ_U64(got.ctx, 1000 + i);
			}
			if (!found)
				CHECK_EQ_U64(got.size, 0);
		}
	CHECK(!hc_prof_object_find(p, NEV, 0, &got));
	hc_prof_object(p, n, &got);          /* out of range: all zero */
	CHECK_EQ_U64(got.size, 0);
	hc_prof_close(p);

	/* No OBJS section: no records, nothing found. */
	CHECK_EQ_U64(write_file(NULL, 0), 0);
	CHECK_EQ_U64(hc_prof_open(path, &p, err, sizeof(err)), 0);
	if (p) {
		CHECK_EQ_U64(hc_prof_nobjects(p), 0);
		CHECK(!hc_prof_object_find(p, 0, 0, &got));
		hc_prof_close(p);
	}
}

static void test_writer_refusals(void)
{
	static uint8_t buf[4096];
	struct hc_prof_writer w;
	struct hc_prof_thread th;
	struct hc_prof_object o = { .event = 5, .side = 0, .base = 0x1000, .size = 16 }, bad;
	int fd;

	memset(&th, 0, sizeof(th));
	th.start_lm = HC_NONE;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ_U64(hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th), 0);
	CHECK_EQ_U64(hc_prof_put_object(&w, &o), -EINVAL);          /* no section open */
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_EVENTS), 0);
	CHECK_EQ_U64(hc_prof_put_object(&w, &o), -EINVAL);          /* wrong section */
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_OBJECTS), 0);
	bad = o, bad.side = 2;
	CHECK_EQ_U64(hc_prof_put_object(&w, &bad), -EINVAL);
	bad = o, bad.kind = 2;
	CHECK_EQ_U64(hc_prof_put_object(&w, &bad), -EINVAL);
	bad = o, bad.size = 0;
	CHECK_EQ_U64(hc_prof_put_object(&w, &bad), -EINVAL);
	CHECK_EQ_U64(hc_prof_put_object(&w, &o), 0);                /* refusals are not sticky */
	CHECK_EQ_U64(hc_prof_put_object(&w, &o), -EINVAL);          /* the same pair again */
	bad = o, bad.event = 4, bad.side = 1;
	CHECK_EQ_U64(hc_prof_put_object(&w, &bad), -EINVAL);        /* out of order */
	bad = o, bad.side = 1;
	CHECK_EQ_U64(hc_prof_put_object(&w, &bad), 0);
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	/* A new section starts a new order. */
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_COUNTERS), 0);
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_writer_finish(&w), 0);
	close(fd);
}

static uint8_t *slurp(size_t *n)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	b = malloc((size_t)st.st_size);
	if (b && read(fd, b, (size_t)st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	close(fd);
	*n = (size_t)st.st_size;
	return b;
}

static void spit_sealed(uint8_t *b, size_t n)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	le_put32(b + n - L_END_SIZE + L_END_CRC, (uint32_t)crc32_z(0, b, n - L_END_SIZE));
	if (fd < 0 || write(fd, b, n) != (ssize_t)n)
		abort();
	close(fd);
}

/* Edit record k of the OBJS section, re-seal, expect a rejection whose
   message contains `want`. */
static void expect_reject(const uint8_t *good, size_t n, size_t nob, size_t k,
                          void (*edit)(uint8_t *r, uint8_t *prev), const char *want, int line)
{
	uint8_t *b = malloc(n);
	uint8_t *recs = NULL;
	struct hc_prof *p = NULL;
	char err[512];
	int rc;

	memcpy(b, good, n);
	recs = b + n - L_TRAILER_SIZE - nob * L_OB_SIZE;
	edit(recs + k * L_OB_SIZE, k ? recs + (k - 1) * L_OB_SIZE : NULL);
	spit_sealed(b, n);
	rc = hc_prof_open(path, &p, err, sizeof(err));
	CHECK_MSG(rc == -EINVAL && strstr(err, want), "line %d: rc %d, message \"%s\", wanted \"%s\"",
	          line, rc, err, want);
	hc_prof_close(p);
	free(b);
}

static void ed_event(uint8_t *r, uint8_t *prev) { (void)prev; le_put32(r + L_OB_EVENT, NEV); }
static void ed_side(uint8_t *r, uint8_t *prev) { (void)prev; le_put32(r + L_OB_SIDE, 2); }
static void ed_kind(uint8_t *r, uint8_t *prev) { (void)prev; le_put32(r + L_OB_KIND, 7); }
static void ed_size0(uint8_t *r, uint8_t *prev) { (void)prev; le_put64(r + L_OB_SIZE_F, 0); }
static void ed_outside(uint8_t *r, uint8_t *prev) { (void)prev; le_put64(r + L_OB_SIZE_F, 8); }
static void ed_below(uint8_t *r, uint8_t *prev) { (void)prev; le_put64(r + L_OB_BASE, le_get64(r + L_OB_BASE) + 32); }
static void ed_wrap(uint8_t *r, uint8_t *prev)
{
	(void)prev;
	le_put64(r + L_OB_BASE, UINT64_MAX - 4);
	le_put64(r + L_OB_SIZE_F, 64);
}
static void ed_dup(uint8_t *r, uint8_t *prev)
{
	le_put32(r + L_OB_EVENT, le_get32(prev + L_OB_EVENT));
	le_put32(r + L_OB_SIDE, le_get32(prev + L_OB_SIDE));
}
static void ed_swap(uint8_t *r, uint8_t *prev)
{
	uint8_t t[L_OB_SIZE];

	memcpy(t, r, L_OB_SIZE);
	memcpy(r, prev, L_OB_SIZE);
	memcpy(prev, t, L_OB_SIZE);
}

static void test_reader_rejections(void)
{
	static struct hc_prof_object v[2 * NEV];
	size_t nob = make_objects(v), n = 0;
	uint8_t *good;
	struct hc_prof *p;
	char err[512];

	CHECK_EQ_U64(write_file(v, nob), 0);
	good = slurp(&n);
	CHECK(good != NULL);
	if (!good)
		return;
	/* Sanity: the edit helper's unchanged copy is accepted. */
	spit_sealed(good, n);
	CHECK_EQ_U64(hc_prof_open(path, &p, err, sizeof(err)), 0);
	hc_prof_close(p);

	expect_reject(good, n, nob, 3, ed_event, "event below 300", __LINE__);
	expect_reject(good, n, nob, 3, ed_side, "side 0 (addr) or 1", __LINE__);
	expect_reject(good, n, nob, 3, ed_kind, "kind 0 (malloc) or 1 (mmap)", __LINE__);
	expect_reject(good, n, nob, 3, ed_size0, "holding event", __LINE__);
	expect_reject(good, n, nob, 0, ed_outside, "holding event 0's addr", __LINE__);
	expect_reject(good, n, nob, 1, ed_outside, "holding event 0's peer_addr", __LINE__);
	expect_reject(good, n, nob, 4, ed_below, "holding event", __LINE__);
	expect_reject(good, n, nob, 4, ed_wrap, "holding event", __LINE__);
	expect_reject(good, n, nob, 5, ed_dup, "sorted by (event, side)", __LINE__);
	expect_reject(good, n, nob, 5, ed_swap, "sorted by (event, side)", __LINE__);
	free(good);
}

int main(void)
{
	const char *dir = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/hc-prof-objs-%d.hcprof", dir ? dir : "/tmp", (int)getpid());
	test_roundtrip();
	test_writer_refusals();
	test_reader_rejections();
	unlink(path);
	return hc_test_done("test_prof_objects");
}
