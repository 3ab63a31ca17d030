/* SPDX-License-Identifier: BSD-3-Clause */
/* test_prof_roundtrip.c — writes profiles with every record type through the
   writer and reads them back through the reader, field by field. The staging
   buffer is the 4 KiB minimum (and odd sizes), far smaller than the data, so
   the writer flushes many times and patches section headers already on disk
   with pwrite; the file must come out byte-identical whatever the buffer size,
   and the writer's running CRC must equal a CRC of the file computed here.
   Also checks the writer's refusals (misuse is -EINVAL and not sticky, I/O
   errors are sticky). Not signal-context code. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hc/profile.h"
#include "hc_test.h"

#define NMOD   23
#define NNODE  5003
#define NEV    3001
#define NAL    2002

static const char *const counters[] = {
	"samples", "samples_blocked", "samples_with_access_at_pc", "samples_recovered_prev",
	"samples_undecodable", "samples_no_access", "published", "publish_lost_race",
	"publish_refused", "detections_sample", "watch_armed", "watch_arm_failed", "traps",
	"traps_matched", "traps_unmatched", "events_dropped", "cct_nodes_dropped",
	"handler_ns_median", "handler_ns_p99",
	"a_name_of_exactly_39_characters_xxxxxxx",
};
#define NCNT (sizeof(counters) / sizeof(counters[0]))

static void make_thread(struct hc_prof_thread *th)
{
	memset(th, 0, sizeof(*th));
	th->index = 3;
	th->creator = 1;
	th->pid = 4242;
	th->tid = 4245;
	th->ppid = 17;
	th->sampler = HC_SAMPLER_SOFT;
	th->unit = HC_UNIT_NS;
	th->creation_ctx = 77;
	th->period = 500000;
	th->start_ns = 0x0102030405060708ull;
	th->end_ns = 0x1112131415161718ull;
	th->stack_lo = 0x7ffd00000000ull;
	th->stack_hi = 0x7ffd00800000ull;
	th->tls_lo = 0x7f0000001000ull;
	th->tls_hi = 0x7f0000002000ull;
	th->start_lm = 2;
	th->start_off = 0x1234;
	strcpy(th->exe, "/usr/bin/some program with spaces");
}

static void make_module(uint32_t i, struct hc_prof_module *m)
{
	memset(m, 0, sizeof(*m));
	m->id = i;
	m->base = 0x400000ull + (uint64_t)i * 0x100000;
	m->lo = m->base + 0x1000;
	m->hi = m->lo + 0x5000 + i;
	if (i == NMOD - 1) {
		memset(m->path, 'p', sizeof(m->path) - 1);   /* the longest path allowed */
		m->path[0] = '/';
	} else {
		snprintf(m->path, sizeof(m->path), "/lib/x86_64-linux-gnu/libmod%u.so.%u", i, i * 7);
	}
}

static void make_node(uint32_t i, struct hc_prof_node *n)
{
	int k;

	memset(n, 0, sizeof(*n));
	n->id = i;
	n->parent = i == 0 ? HC_NONE : (uint32_t)((i * 2654435761u) % i);
	n->lm = i == 0 ? HC_NONE : (i % 5 == 0 ? HC_NONE : i % NMOD);
	n->flags = i % 3 == 0 ? HC_NODE_LEAF : 0;
	n->offset = 0xabc00000000ull + i;
	for (k = 0; k < HC_M_COUNT; k++)
		n->m[k] = (uint64_t)i * 1000003u + (uint64_t)k * 0x100000000ull;
}

static void make_event(uint32_t i, struct hc_prof_event *e)
{
	memset(e, 0, sizeof(*e));
	e->time = 1000000000ull + i;
	e->weight = 500000u + i;
	e->addr = 0x7f0012340000ull + 8 * i;
	e->peer_addr = 0x7f0012340004ull + 8 * i;
	e->len = 1u << (i % 4);
	e->peer_len = 8;
	e->peer = i % 7;
	e->cpu = i % 3 == 0 ? -1 : (int32_t)(i % 2);
	e->peer_cpu = i % 5 == 0 ? -1 : 1;
	e->ctx = i % NNODE;
	e->peer_ctx = 0xdead0000u + i;
	e->flags = i & 15;
}

static void make_alloc(uint32_t i, struct hc_prof_alloc *a)
{
	memset(a, 0, sizeof(*a));
	a->time = 2000000000ull + i;
	a->addr = 0x5555000000ull + 64 * i;
	a->kind = i % 4 == 3 ? HC_FREE : HC_ALLOC;
	a->size = a->kind == HC_FREE ? 0 : 16 + i;
	a->ctx = a->kind == HC_FREE ? HC_NONE : (i * 31) % NNODE;
}

static char *tmp_path(const char *tag)
{
	static char path[4][256];
	static int next;
	const char *dir = getenv("TMPDIR");
	char *p = path[next++ % 4];

	snprintf(p, sizeof(path[0]), "%s/hc-prof-rt-%d-%s.hcprof", dir ? dir : "/tmp",
	         (int)getpid(), tag);
	return p;
}

/* Write the full profile with a staging buffer of `cap` bytes. */
static int write_profile(const char *path, size_t cap, uint32_t *crc_out)
{
	struct hc_prof_writer w;
	struct hc_prof_thread th;
	struct hc_prof_module m;
	struct hc_prof_node n;
	struct hc_prof_event e;
	struct hc_prof_alloc a;
	uint8_t *buf = malloc(cap);
	uint32_t i;
	int fd, rc = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || !buf) {
		free(buf);
		return -1;
	}
	make_thread(&th);
	rc |= hc_prof_writer_init(&w, fd, buf, cap, &th);
	/* Counters first: a small section patched in the buffer. */
	rc |= hc_prof_section_begin(&w, HC_SEC_COUNTERS);
	for (i = 0; i < NCNT; i++)
		rc |= hc_prof_put_counter(&w, counters[i], 1000u + i);
	rc |= hc_prof_section_end(&w);
	rc |= hc_prof_section_begin(&w, HC_SEC_LOADMAP);
	for (i = 0; i < NMOD; i++) {
		make_module(i, &m);
		rc |= hc_prof_put_module(&w, &m);
	}
	rc |= hc_prof_section_end(&w);
	rc |= hc_prof_section_begin(&w, HC_SEC_CCT);
	for (i = 0; i < NNODE; i++) {
		make_node(i, &n);
		rc |= hc_prof_put_node(&w, &n);
	}
	rc |= hc_prof_section_end(&w);
	rc |= hc_prof_section_begin(&w, HC_SEC_EVENTS);
	for (i = 0; i < NEV; i++) {
		make_event(i, &e);
		rc |= hc_prof_put_event(&w, &e);
	}
	rc |= hc_prof_section_end(&w);
	/* Allocations last and left open: finish closes the section itself. */
	rc |= hc_prof_section_begin(&w, HC_SEC_ALLOCS);
	for (i = 0; i < NAL; i++) {
		make_alloc(i, &a);
		rc |= hc_prof_put_alloc(&w, &a);
	}
	rc |= hc_prof_writer_finish(&w);
	*crc_out = w.crc;
	close(fd);
	free(buf);
	return rc;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	b = malloc((size_t)st.st_size + 1);
	if (b && read(fd, b, (size_t)st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void check_read(const char *path)
{
	struct hc_prof *p = NULL;
	struct hc_prof_thread th;
	const struct hc_prof_thread *rt;
	struct hc_prof_module m, rm;
	struct hc_prof_node n, rn;
	struct hc_prof_event e, re;
	struct hc_prof_alloc a, ra;
	struct hc_prof_counter rc;
	char err[512];
	uint32_t i;
	int ret, bad;

	ret = hc_prof_open(path, &p, err, sizeof(err));
	CHECK_MSG(ret == 0, "%s", err);
	if (ret)
		return;
	CHECK_STR(hc_prof_path(p), path);
	make_thread(&th);
	rt = hc_prof_thread(p);
	CHECK(memcmp(rt, &th, sizeof(th)) == 0);
	CHECK_EQ_U64(hc_prof_nmodules(p), NMOD);
	CHECK_EQ_U64(hc_prof_nnodes(p), NNODE);
	CHECK_EQ_U64(hc_prof_nevents(p), NEV);
	CHECK_EQ_U64(hc_prof_nallocs(p), NAL);
	CHECK_EQ_U64(hc_prof_ncounters(p), NCNT);

	/* Whole-struct compares work because make_* zero the padding too. */
	for (i = 0, bad = 0; i < NMOD; i++) {
		make_module(i, &m);
		hc_prof_module(p, i, &rm);
		bad += memcmp(&m, &rm, sizeof(m)) != 0;
	}
	CHECK_EQ_U64(bad, 0);
	for (i = 0, bad = 0; i < NNODE; i++) {
		make_node(i, &n);
		hc_prof_node(p, i, &rn);
		bad += memcmp(&n, &rn, sizeof(n)) != 0;
	}
	CHECK_EQ_U64(bad, 0);
	for (i = 0, bad = 0; i < NEV; i++) {
		make_event(i, &e);
		hc_prof_event(p, i, &re);
		bad += memcmp(&e, &re, sizeof(e)) != 0;
	}
	CHECK_EQ_U64(bad, 0);
	for (i = 0, bad = 0; i < NAL; i++) {
		make_alloc(i, &a);
		hc_prof_alloc(p, i, &ra);
		bad += memcmp(&a, &ra, sizeof(a)) != 0;
	}
	CHECK_EQ_U64(bad, 0);
	for (i = 0; i < NCNT; i++) {
		hc_prof_counter(p, i, &rc);
		CHECK_STR(rc.name, counters[i]);
		CHECK_EQ_U64(rc.value, 1000u + i);
		CHECK_EQ_U64(hc_prof_counter_value(p, counters[i]), 1000u + i);
	}
	CHECK_EQ_U64(hc_prof_counter_value(p, "no_such_counter"), 0);
	CHECK_EQ_U64(hc_prof_counter_value(p, "sample"), 0);   /* no prefix match */

	/* Out-of-range indexes give zeroed records, not garbage. */
	memset(&rn, 0xff, sizeof(rn));
	hc_prof_node(p, NNODE, &rn);
	CHECK_EQ_U64(rn.id, 0);
	CHECK_EQ_U64(rn.parent, 0);
	memset(&rc, 0xff, sizeof(rc));
	hc_prof_counter(p, (size_t)-1, &rc);
	CHECK_EQ_U64(rc.value, 0);
	CHECK(rc.name[0] == '\0');
	hc_prof_close(p);
}

static void test_roundtrip(void)
{
	static const size_t caps[] = { 4096, 4096 + 17, 65536 + 3, 4u << 20 };
	uint8_t *ref = NULL, *b;
	size_t ref_len = 0, len, i;
	uint32_t crc;

	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		const char *path = tmp_path("rt");
		CHECK_EQ_U64(write_profile(path, caps[i], &crc), 0);
		b = slurp(path, &len);
		CHECK(b != NULL);
		if (!b)
			continue;
		CHECK_EQ_U64(crc, crc32_z(0, b, len));   /* running CRC incl. patches */
		if (!ref) {
			ref = b;
			ref_len = len;
			check_read(path);
		} else {
			CHECK_EQ_U64(len, ref_len);
			CHECK(len == ref_len && memcmp(b, ref, len) == 0);
			free(b);
		}
		unlink(path);
	}
	/* Expected size from the grammar: header, 5 sections, END. */
	CHECK_EQ_U64(ref_len, 376 + 5 * 24 + NMOD * 544 + NNODE * 56 + NEV * 64 + NAL * 32 +
	             NCNT * 48 + 40);
	free(ref);
}

/* A profile with no sections and one with empty sections are valid. */
static void test_empty(void)
{
	struct hc_prof_writer w;
	struct hc_prof_thread th;
	struct hc_prof *p;
	static uint8_t buf[4096];
	const char *path = tmp_path("empty");
	char err[512];
	int fd, ret, with_sections;

	for (with_sections = 0; with_sections < 2; with_sections++) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		CHECK(fd >= 0);
		make_thread(&th);
		th.start_lm = HC_NONE;      /* no modules in this file */
		CHECK_EQ_U64(hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th), 0);
		if (with_sections) {
			CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_CCT), 0);
			CHECK_EQ_U64(hc_prof_section_end(&w), 0);
			CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_EVENTS), 0);
			CHECK_EQ_U64(hc_prof_section_end(&w), 0);
		}
		CHECK_EQ_U64(hc_prof_writer_finish(&w), 0);
		CHECK_EQ_U64(lseek(fd, 0, SEEK_END), 376 + 40 + with_sections * 48);
		close(fd);
		ret = hc_prof_open(path, &p, err, sizeof(err));
		CHECK_MSG(ret == 0, "%s", err);
		if (!ret) {
			CHECK_EQ_U64(hc_prof_nnodes(p), 0);
			CHECK_EQ_U64(hc_prof_nevents(p), 0);
			CHECK_EQ_U64(hc_prof_ncounters(p), 0);
			CHECK_EQ_U64(hc_prof_counter_value(p, "samples"), 0);
			hc_prof_close(p);
		}
	}
	unlink(path);
}

static void test_writer_refusals(void)
{
	struct hc_prof_writer w;
	struct hc_prof_thread th;
	struct hc_prof_node n;
	struct hc_prof_alloc a;
	struct hc_prof_module m;
	static uint8_t buf[8192];
	char longname[64];
	const char *path = tmp_path("refuse");
	int fd, ro, pfd[2];

	make_thread(&th);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	CHECK_EQ_U64(hc_prof_writer_init(&w, fd, buf, 4095, &th), -EINVAL);
	CHECK_EQ_U64(hc_prof_writer_init(&w, -1, buf, sizeof(buf), &th), -EINVAL);
	memset(th.exe, 'x', sizeof(th.exe));
	CHECK_EQ_U64(hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th), -EINVAL);
	make_thread(&th);
	th.start_lm = HC_NONE;      /* the LMAP section below stays empty */

	CHECK_EQ_U64(hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th), 0);
	CHECK_EQ_U64(hc_prof_put_counter(&w, "samples", 1), -EINVAL);      /* no section */
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_END), -EINVAL);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_TAG('X', 'Y', 'Z', 'W')), -EINVAL);
	CHECK_EQ_U64(hc_prof_section_end(&w), -EINVAL);                    /* none open */
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_CCT), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_EVENTS), -EINVAL);   /* nested */
	CHECK_EQ_U64(hc_prof_put_counter(&w, "samples", 1), -EINVAL);      /* wrong section */
	make_node(1, &n);
	CHECK_EQ_U64(hc_prof_put_node(&w, &n), -EINVAL);                   /* id != index */
	make_node(0, &n);
	n.parent = 0;
	CHECK_EQ_U64(hc_prof_put_node(&w, &n), -EINVAL);                   /* root has a parent */
	make_node(0, &n);
	CHECK_EQ_U64(hc_prof_put_node(&w, &n), 0);
	make_node(1, &n);
	n.lm = HC_NONE;             /* no modules in this file */
	n.parent = 1;
	CHECK_EQ_U64(hc_prof_put_node(&w, &n), -EINVAL);                   /* parent not before */
	n.parent = 0;
	CHECK_EQ_U64(hc_prof_put_node(&w, &n), 0);
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_COUNTERS), 0);
	memset(longname, 'c', sizeof(longname));
	longname[40] = '\0';
	CHECK_EQ_U64(hc_prof_put_counter(&w, longname, 1), -EINVAL);
	CHECK_EQ_U64(hc_prof_put_counter(&w, "", 1), -EINVAL);
	longname[39] = '\0';
	CHECK_EQ_U64(hc_prof_put_counter(&w, longname, 5), 0);
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_ALLOCS), 0);
	make_alloc(0, &a);
	a.kind = 2;
	CHECK_EQ_U64(hc_prof_put_alloc(&w, &a), -EINVAL);
	CHECK_EQ_U64(hc_prof_section_end(&w), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_LOADMAP), 0);
	make_module(0, &m);
	memset(m.path, 'q', sizeof(m.path));
	CHECK_EQ_U64(hc_prof_put_module(&w, &m), -EINVAL);
	CHECK_EQ_U64(w.err, 0);                          /* misuse is not sticky */
	CHECK_EQ_U64(hc_prof_writer_finish(&w), 0);       /* closes LMAP itself */
	CHECK_EQ_U64(hc_prof_writer_finish(&w), -EINVAL);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_CCT), -EINVAL);
	close(fd);
	{
		struct hc_prof *p;
		char err[512];
		int ret = hc_prof_open(path, &p, err, sizeof(err));
		CHECK_MSG(ret == 0, "%s", err);
		if (!ret) {
			CHECK_EQ_U64(hc_prof_nnodes(p), 2);
			CHECK_EQ_U64(hc_prof_nallocs(p), 0);
			CHECK_EQ_U64(hc_prof_nmodules(p), 0);
			CHECK_EQ_U64(hc_prof_counter_value(p, longname), 5);
			hc_prof_close(p);
		}
	}

	/* I/O errors are sticky: a read-only fd fails at the first flush. */
	ro = open(path, O_RDONLY);
	CHECK(ro >= 0);
	CHECK_EQ_U64(hc_prof_writer_init(&w, ro, buf, 4096, &th), 0);
	CHECK_EQ_U64(hc_prof_section_begin(&w, HC_SEC_CCT), 0);
	{
		int i, first_err = 0;
		for (i = 0; i < 200 && !first_err; i++) {
			make_node((uint32_t)i, &n);
			first_err = hc_prof_put_node(&w, &n);
		}
		CHECK_EQ_U64(first_err, -EBADF);
	}
	CHECK_EQ_U64(hc_prof_section_end(&w), -EBADF);
	CHECK_EQ_U64(hc_prof_writer_finish(&w), -EBADF);
	close(ro);
	/* A pipe cannot be pwritten: the finish flush reports ESPIPE. */
	CHECK(pipe(pfd) == 0);
	CHECK_EQ_U64(hc_prof_writer_init(&w, pfd[1], buf, 4096, &th), 0);
	CHECK_EQ_U64(hc_prof_writer_finish(&w), -ESPIPE);
	close(pfd[0]);
	close(pfd[1]);
	unlink(path);
}

int main(void)
{
	test_roundtrip();
	test_empty();
	test_writer_refusals();
	return hc_test_done("test_prof_roundtrip");
}
