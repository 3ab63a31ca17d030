/* SPDX-License-Identifier: BSD-3-Clause */
/* test_prof_mt.c — the profile writer and reader used by several threads at
   once, as the runtime writes one profile per exiting thread and
   hpcprof-comm reads them with a pool of threads (lib/analysis/par.c). Each
   of NT threads writes NP profiles through its own 4 KiB staging buffer
   (many flushes and header patches), reads every one back and checks each
   record; the totals are then checked against what every thread wrote. Run
   under TSan by scripts/test.sh (configure --enable-tsan) to show that the
   writer and reader share no unsynchronized state. Not signal-context
   code. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hc/profile.h"
#include "hc_test.h"

#define NT 4
#define NP 6
#define NMOD 3
#define NNODE 300
#define NEV 500

static char dir[256];

struct result {
	int written, verified;
	char err[512];
};

static uint64_t val(unsigned t, unsigned p, unsigned i)
{
	return ((uint64_t)t << 40 | (uint64_t)p << 24 | i) * 0x9e3779b97f4a7c15ull >> 8;
}

static int write_one(unsigned t, unsigned p, const char *path, uint8_t *buf)
{
	struct hc_prof_writer w;
	struct hc_prof_thread th;
	int fd, ret;
	unsigned i;

	memset(&th, 0, sizeof(th));
	th.index = t * NP + p;
	th.creator = HC_NONE;
	th.pid = 1000 + t;
	th.tid = 2000 + th.index;
	th.sampler = HC_SAMPLER_SOFT;
	th.unit = HC_UNIT_NS;
	th.creation_ctx = HC_NONE;
	th.period = 500000;
	th.start_ns = 1;
	th.end_ns = 2;
	th.start_lm = HC_NONE;
	snprintf(th.exe, sizeof(th.exe), "/bin/writer-%u", t);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	ret = hc_prof_writer_init(&w, fd, buf, 4096, &th);
	if (!ret)
		ret = hc_prof_section_begin(&w, HC_SEC_LOADMAP);
	for (i = 0; !ret && i < NMOD; i++) {
		struct hc_prof_module m;

		memset(&m, 0, sizeof(m));
		m.id = i;
		m.base = 0x400000ull * (i + 1);
		m.lo = m.base;
		m.hi = m.base + 0x10000;
		snprintf(m.path, sizeof(m.path), "/lib/mod-%u-%u-%u.so", t, p, i);
		ret = hc_prof_put_module(&w, &m);
	}
	if (!ret)
		ret = hc_prof_section_end(&w);
	if (!ret)
		ret = hc_prof_section_begin(&w, HC_SEC_CCT);
	for (i = 0; !ret && i < NNODE; i++) {
		struct hc_prof_node n;

		memset(&n, 0, sizeof(n));
		n.id = i;
		n.parent = i ? (i - 1) / 2 : HC_NONE;
		n.lm = i ? i % NMOD : HC_NONE;
		n.offset = i ? val(t, p, i) % 0x10000 : 0;
		n.m[0] = val(t, p, i) % 1000;
		ret = hc_prof_put_node(&w, &n);
	}
	if (!ret)
		ret = hc_prof_section_end(&w);
	if (!ret)
		ret = hc_prof_section_begin(&w, HC_SEC_EVENTS);
	for (i = 0; !ret && i < NEV; i++) {
		struct hc_prof_event e;

		memset(&e, 0, sizeof(e));
		e.time = i;
		e.weight = val(t, p, i + NNODE) % 100000;
		e.addr = 0x1000 + 8 * i;
		e.peer_addr = e.addr;
		e.len = e.peer_len = 8;
		e.peer = (th.index + 1) % (NT * NP);
		e.cpu = e.peer_cpu = -1;
		e.ctx = i % NNODE;
		e.peer_ctx = HC_NONE;
		ret = hc_prof_put_event(&w, &e);
	}
	if (!ret)
		ret = hc_prof_section_end(&w);
	if (!ret)
		ret = hc_prof_section_begin(&w, HC_SEC_COUNTERS);
	if (!ret)
		ret = hc_prof_put_counter(&w, "samples", val(t, p, 0));
	if (!ret)
		ret = hc_prof_section_end(&w);
	if (!ret)
		ret = hc_prof_writer_finish(&w);
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

static int verify_one(unsigned t, unsigned p, const char *path, char *err, size_t errsz)
{
	struct hc_prof *pr;
	struct hc_prof_node n;
	struct hc_prof_event e;
	struct hc_prof_module m;
	unsigned i;
	int bad = 0;

	if (hc_prof_open(path, &pr, err, errsz) < 0)
		return -1;
	bad |= hc_prof_thread(pr)->index != t * NP + p || hc_prof_thread(pr)->pid != 1000 + t;
	bad |= hc_prof_nmodules(pr) != NMOD || hc_prof_nnodes(pr) != NNODE ||
	       hc_prof_nevents(pr) != NEV;
	for (i = 0; !bad && i < NMOD; i++) {
		char want[64];

		hc_prof_module(pr, i, &m);
		snprintf(want, sizeof(want), "/lib/mod-%u-%u-%u.so", t, p, i);
		bad |= strcmp(m.path, want) != 0;
	}
	for (i = 0; !bad && i < NNODE; i++) {
		hc_prof_node(pr, i, &n);
		bad |= n.m[0] != val(t, p, i) % 1000 || (i && n.parent != (i - 1) / 2);
	}
	for (i = 0; !bad && i < NEV; i++) {
		hc_prof_event(pr, i, &e);
		bad |= e.weight != val(t, p, i + NNODE) % 100000 || e.ctx != i % NNODE;
	}
	bad |= hc_prof_counter_value(pr, "samples") != val(t, p, 0);
	if (bad)
		snprintf(err, errsz, "%s: read back differs from what was written", path);
	hc_prof_close(pr);
	return bad ? -1 : 0;
}

static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg, p;
	struct result *r = calloc(1, sizeof(*r));
	uint8_t *buf = malloc(4096);
	char path[512];

	if (!r || !buf)
		abort();
	for (p = 0; p < NP; p++) {
		int ret;

		snprintf(path, sizeof(path), "%s/t%u-p%u.hcprof", dir, t, p);
		ret = write_one(t, p, path, buf);
		if (ret) {
			snprintf(r->err, sizeof(r->err), "%s: write: %s", path, strerror(-ret));
			break;
		}
		r->written++;
		if (verify_one(t, p, path, r->err, sizeof(r->err)))
			break;
		r->verified++;
	}
	free(buf);
	return r;
}

int main(void)
{
	pthread_t th[NT];
	struct result *r;
	char path[512];
	unsigned t, p;
	int total = 0;

	snprintf(dir, sizeof(dir), "%s/hc-prof-mt-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	CHECK(mkdtemp(dir) != NULL);
	for (t = 0; t < NT; t++)
		CHECK(pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t) == 0);
	for (t = 0; t < NT; t++) {
		CHECK(pthread_join(th[t], (void **)&r) == 0);
		CHECK_MSG(r->written == NP && r->verified == NP, "thread %u: %d written, %d verified: %s",
		          t, r->written, r->verified, r->err);
		total += r->verified;
		free(r);
	}
	CHECK_EQ_U64(total, NT * NP);
	/* every file again, now from this thread: what the others wrote is complete */
	for (t = 0; t < NT; t++)
		for (p = 0; p < NP; p++) {
			char err[512];

			snprintf(path, sizeof(path), "%s/t%u-p%u.hcprof", dir, t, p);
			CHECK_MSG(verify_one(t, p, path, err, sizeof(err)) == 0, "%s", err);
			unlink(path);
		}
	rmdir(dir);
	return hc_test_done("test_prof_mt");
}
