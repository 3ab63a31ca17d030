/* SPDX-License-Identifier: BSD-3-Clause */
/* test_objects.c — data objects in the analyzer, without measuring.
   1. dwarf_vars on this test binary: addresses inside its own static
      variables come back as the variable and the field path
      (nest[1].in[2].y, a union member, a 2-D array element, padding), an
      address outside any variable as nothing.
   2. The whole analyzer on two synthetic profiles of one process whose
      events touch a heap allocation context (two blocks, records in both
      profiles), a thread's stack and TLS, static variables of this binary
      and unknown memory: objects.xml (valid against doc/objects.xsd) and
      objects.csv hold each object with the documented totals (an event
      counts once per distinct object, self events not at all), blocks and
      sizes, fields with the threads that touched them, the thread cell, the
      ranking by false sharing, and summary.txt lists the top object. */
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/internal.h"
#include "analysis/objects.h"
#include "db/format.h"
#include "hc_test.h"
#include "fixture.h"

typedef struct {
	short x[3];
	long y;
} inner_t;

struct outer {
	int a;                      /* then 4 bytes of padding */
	inner_t in[4];
	union {
		int i;
		double d;
	} u;
};

struct outer nest[2];
long grid[3][5];

__attribute__((noinline)) void *alloc_site(size_t n);
__attribute__((noinline)) void *alloc_site(size_t n)
{
	return malloc(n);
}

struct self {
	uintptr_t bias, lo, hi;
};

static int self_map(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct self *s = arg;
	int i;

	(void)size;
	s->bias = info->dlpi_addr;   /* the first object is the program */
	s->lo = UINTPTR_MAX;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < s->lo)
			s->lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > s->hi)
			s->hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	return 1;
}

static void check_var(struct dvmod *m, const struct self *s, const void *addr,
                      const char *field, uint64_t foff, uint64_t fsize, const char *var)
{
	struct dv_hit h;
	bool found = dvars__lookup(m, (uintptr_t)addr - s->bias, &h);

	CHECK_MSG(found, "no variable at %p (expected %s)", addr, field);
	if (!found)
		return;
	CHECK_STR(h.var, var);
	CHECK_STR(h.field, field);
	CHECK_MSG(h.foff == foff && h.fsize == fsize, "%s: offset %llu size %llu, expected %llu %llu",
	          field, (unsigned long long)h.foff, (unsigned long long)h.fsize,
	          (unsigned long long)foff, (unsigned long long)fsize);
}

static void test_dwarf(const char *self, const struct self *s)
{
	struct dvmod *m = dvars__open(self);
	struct dv_hit h;
	const char *b = (const char *)nest;

	CHECK(m != NULL);
	if (!m)
		return;
	check_var(m, s, &nest[1].in[2].y, "nest[1].in[2].y",
	          sizeof(struct outer) + offsetof(struct outer, in) + 2 * sizeof(inner_t) +
	          offsetof(inner_t, y), sizeof(long), "nest");
	check_var(m, s, (const char *)&nest[1].in[2].x[1] + 1, "nest[1].in[2].x[1]",
	          sizeof(struct outer) + offsetof(struct outer, in) + 2 * sizeof(inner_t) +
	          sizeof(short), sizeof(short), "nest");
	check_var(m, s, (const char *)&nest[0].u + 4, "nest[0].u.d", offsetof(struct outer, u),
	          sizeof(double), "nest");
	check_var(m, s, &nest[0].u.i, "nest[0].u.i", offsetof(struct outer, u), sizeof(int), "nest");
	check_var(m, s, b + 4, "nest[0]", 0, sizeof(struct outer), "nest");   /* padding */
	check_var(m, s, &grid[2][3], "grid[2][3]", (2 * 5 + 3) * sizeof(long), sizeof(long), "grid");
	CHECK(!dvars__lookup(m, 0x10, &h));
	dvars__close(m);
	CHECK(dvars__open("/nonexistent/module") == NULL);
	CHECK(dvars__open("/dev/null") == NULL);
	CHECK(dvars__open("/proc/self") == NULL);
}

/* ---------------- the analyzer on synthetic profiles ---------------- */

#define A_BASE 0x50000000ull
#define B_BASE 0x50001000ull
#define STACK0 0x70000000ull
#define TLS0   0x70100000ull
#define STACK1 0x71000000ull
#define TLS1   0x71100000ull

struct wprof {
	struct hc_prof_thread th;
	const struct hc_prof_module *mod;
	const struct hc_prof_node *nodes;
	size_t nnodes;
	const struct hc_prof_event *evs;
	size_t nevs;
	const struct hc_prof_object *objs;
	size_t nobjs;
};

static void write_profile(const char *dir, const struct wprof *p)
{
	static uint8_t buf[1 << 16];
	struct hc_prof_writer w;
	char name[128], *path;
	size_t i;
	int fd, r = 0;

	snprintf(name, sizeof(name), "objtest-000000-%03u-00000001-77-0.%s", p->th.index,
	         HC_PROF_SUFFIX);
	path = fx_join(dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	r |= hc_prof_writer_init(&w, fd, buf, sizeof(buf), &p->th);
	r |= hc_prof_section_begin(&w, HC_SEC_LOADMAP);
	r |= hc_prof_put_module(&w, p->mod);
	r |= hc_prof_section_end(&w);
	r |= hc_prof_section_begin(&w, HC_SEC_CCT);
	for (i = 0; i < p->nnodes; i++)
		r |= hc_prof_put_node(&w, &p->nodes[i]);
	r |= hc_prof_section_end(&w);
	r |= hc_prof_section_begin(&w, HC_SEC_EVENTS);
	for (i = 0; i < p->nevs; i++)
		r |= hc_prof_put_event(&w, &p->evs[i]);
	r |= hc_prof_section_end(&w);
	r |= hc_prof_section_begin(&w, HC_SEC_OBJECTS);
	for (i = 0; i < p->nobjs; i++)
		r |= hc_prof_put_object(&w, &p->objs[i]);
	r |= hc_prof_section_end(&w);
	r |= hc_prof_writer_finish(&w);
	CHECK_MSG(r == 0, "%s: the profile writer failed", path);
	close(fd);
	free(path);
}

static struct hc_prof_event event(uint64_t w, bool tru, uint32_t peer, uint64_t addr,
                                  uint32_t len, uint64_t paddr, uint32_t plen)
{
	return (struct hc_prof_event){ .weight = w, .addr = addr, .peer_addr = paddr, .len = len,
	                               .peer_len = plen, .peer = peer, .cpu = -1, .peer_cpu = -1,
	                               .ctx = 2, .peer_ctx = 2,
	                               .flags = HC_COMM_TRAP | (tru ? HC_COMM_TRUE : 0) };
}

static struct hc_prof_object block(uint32_t ev, uint32_t side, uint64_t base, uint64_t size)
{
	return (struct hc_prof_object){ .event = ev, .side = side, .base = base, .size = size,
	                                .thread = 0, .ctx = 1, .kind = HC_OBJ_MALLOC };
}

/* The objects.csv row whose name starts with prefix (malloc'd), NULL if none. */
static char *row(const char *csv, const char *kind, const char *prefix)
{
	char pat[256];
	const char *p, *e;

	snprintf(pat, sizeof(pat), ",%s,%s", kind, prefix);
	p = strstr(csv, pat);
	if (!p)
		return NULL;
	while (p > csv && p[-1] != '\n')
		p--;
	e = strchr(p, '\n');
	return strndup(p, e ? (size_t)(e - p) : strlen(p));
}

static void expect_row(const char *csv, const char *kind, const char *prefix, const char *tail)
{
	char *r = row(csv, kind, prefix);

	CHECK_MSG(r != NULL, "objects.csv: no %s object %s", kind, prefix);
	if (r)
		CHECK_MSG(strstr(r, tail) != NULL, "objects.csv: '%s' lacks '%s'", r, tail);
	free(r);
}

static void test_pipeline(const char *self, const struct self *s)
{
	char *work = fx_tmpdir("obj"), *meas = fx_join(work, "m"), *db = fx_join(work, "db");
	const char *inputs[1] = { meas };
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = 1, .outdir = db, .jobs = 2,
	                              .unit = -1, .diag = stderr };
	uint64_t entry = (uintptr_t)alloc_site - s->bias;
	struct hc_prof_module mod = { .id = 0, .base = s->bias, .lo = s->lo, .hi = s->hi };
	struct hc_prof_node nodes[3] = {
		{ .id = 0, .parent = HC_NONE, .lm = HC_NONE },
		{ .id = 1, .parent = 0, .lm = 0, .offset = entry + 1 },
		{ .id = 2, .parent = 1, .lm = 0, .offset = entry, .flags = HC_NODE_LEAF },
	};
	struct hc_prof_event ev0[5], ev1[2];
	struct hc_prof_object ob0[3], ob1[2];
	struct wprof p0, p1;
	char err[1024], *xml, *csv, *sum, *text, *xsd;

	fx_mkdir(meas);
	snprintf(mod.path, sizeof(mod.path), "%s", self);
	/* Thread 0: */
	ev0[0] = event(10, false, 1, A_BASE, 8, A_BASE + 8, 8);          /* one object, counted once */
	ev0[1] = event(5, false, 1, B_BASE + 4, 4, STACK1 + 16, 8);      /* heap and thread 1's stack */
	ev0[2] = event(7, true, 1, (uintptr_t)&nest[1].in[2].y, 8,
	               (uintptr_t)&nest[1].in[2].x[1], 2);                /* two fields of nest */
	ev0[3] = event(3, false, 1, 0x10, 8, 0x20, 8);                   /* unknown */
	ev0[4] = event(100, false, 0, A_BASE, 8, A_BASE, 8);             /* self: ignored */
	ob0[0] = block(0, HC_SIDE_ADDR, A_BASE, 64);
	ob0[1] = block(0, HC_SIDE_PEER, A_BASE, 64);
	ob0[2] = block(1, HC_SIDE_ADDR, B_BASE, 32);
	/* Thread 1: the same block, allocated by thread 0 at the same context. */
	ev1[0] = event(20, false, 0, A_BASE + 8, 8, A_BASE, 8);
	ev1[1] = event(2, true, 0, TLS0 + 16, 8, (uintptr_t)&grid[2][3], 8);
	ob1[0] = block(0, HC_SIDE_ADDR, A_BASE, 64);
	ob1[1] = block(0, HC_SIDE_PEER, A_BASE, 64);
	nest[1].in[2].y++;
	grid[2][3]++;

	memset(&p0, 0, sizeof(p0));
	p0.th = (struct hc_prof_thread){ .index = 0, .creator = HC_NONE, .pid = 77, .tid = 77,
	                                 .sampler = HC_SAMPLER_SOFT, .unit = HC_UNIT_NS,
	                                 .creation_ctx = HC_NONE, .period = 10000,
	                                 .stack_lo = STACK0, .stack_hi = STACK0 + 0x100000,
	                                 .tls_lo = TLS0, .tls_hi = TLS0 + 0x1000,
	                                 .start_lm = HC_NONE };
	snprintf(p0.th.exe, sizeof(p0.th.exe), "%s", self);
	p0.mod = &mod;
	p0.nodes = nodes;
	p0.nnodes = 3;
	p1 = p0;
	p0.evs = ev0;
	p0.nevs = 5;
	p0.objs = ob0;
	p0.nobjs = 3;
	write_profile(meas, &p0);
	p1.th.index = 1;
	p1.th.creator = 0;
	p1.th.tid = 78;
	p1.th.stack_lo = STACK1;
	p1.th.stack_hi = STACK1 + 0x100000;
	p1.th.tls_lo = TLS1;
	p1.th.tls_hi = TLS1 + 0x1000;
	p1.evs = ev1;
	p1.nevs = 2;
	p1.objs = ob1;
	p1.nobjs = 2;
	write_profile(meas, &p1);

	CHECK_MSG(hc_analysis_run(&o, NULL, err, sizeof(err)) == 0, "hc_analysis_run: %s", err);
	xml = fx_join(db, HC_DB_OBJECTS);
	csv = fx_join(db, "objects.csv");
	sum = fx_join(db, HC_DB_SUMMARY);
	xsd = fx_doc("objects.xsd");
	CHECK(fx_validate(xml, xsd) == 0);
	text = fx_read(csv, NULL);
	CHECK(text != NULL);
	if (text) {
		const char *rank[] = { ",heap,allocation at test_objects.c:", ",stack,stack of thread 1,", ",unknown,",
		                       ",static,nest,", ",static,grid,", ",tls,TLS of thread 0," };
		const char *at = text;
		size_t i;

		/* i,kind,name,module,context,size,blocks,all,true,false,fields */
		expect_row(text, "heap", "allocation at test_objects.c:", ",96,2,35,0,35,@0+8;@4+4;@8+8");
		expect_row(text, "heap", "allocation at test_objects.c:", " in alloc_site,");
		expect_row(text, "stack", "stack of thread 1", ",0,1048576,1,5,0,5,@16+8");
		expect_row(text, "tls", "TLS of thread 0", ",0,4096,1,2,2,0,@16+8");
		CHECK(strstr(text, ",unknown,<unknown>,,0,0,0,3,0,3,\n") != NULL);   /* no fields */
		expect_row(text, "static", "nest,", ",7,7,0,nest[1].in[2].x[1]@");
		expect_row(text, "static", "nest,", ";nest[1].in[2].y@");
		expect_row(text, "static", "grid,", ",2,2,0,grid[2][3]@104+8");
		for (i = 0; i < sizeof(rank) / sizeof(rank[0]); i++) {
			const char *p = strstr(at, rank[i]);
			CHECK_MSG(p != NULL, "objects.csv: %s not ranked %zu", rank[i], i);
			if (p)
				at = p;
		}
		free(text);
	}
	/* Fields with their threads; the thread cell; the context is a node. */
	CHECK(fx_xpath_count(xml, "/Objects/Object[@kind='heap']/Field[@offset='0' and "
	                     "@all='30' and @threads='0' and @access='8']") == 1);
	CHECK(fx_xpath_count(xml, "/Objects/Object[@kind='heap']/Field[@offset='8' and "
	                     "@all='30' and @threads='1']") == 1);
	CHECK(fx_xpath_count(xml, "/Objects/Object[@kind='heap']/T[@i='0' and @j='1' and "
	                     "@all='35' and @false='35']") == 1);
	CHECK(fx_xpath_count(xml, "/Objects/Object[@kind='heap' and @i='0' and @context > 0]") == 1);
	CHECK(fx_xpath_count(xml, "/Objects/Object[@name='nest']/Field[@name='nest[1].in[2].y' and "
	                     "@threads='0' and @true='7']") == 1);
	CHECK(fx_xpath_count(xml, "/Objects/Object[@name='nest']/Field[@name='nest[1].in[2].x[1]' "
	                     "and @threads='1']") == 1);
	CHECK(fx_xpath_count(xml, "/Objects/Object[@name='nest' and @module!='']") == 1);
	CHECK(fx_xpath_count(xml, "/Objects/Object/CP") >= 1);
	/* The same, read back through lib/db's reader (which checks objects.xml
	   against the other files: threads, nodes). */
	{
		struct hc_db *rb = NULL;
		const struct hc_db_object *h;

		CHECK_MSG(hc_db_open(db, &rb, err, sizeof(err)) == 0, "read back: %s", err);
		h = rb && rb->has_objects && rb->nobjects == 6 ? &rb->objects[0] : NULL;
		CHECK_MSG(h != NULL, "read back: %zu objects", rb ? rb->nobjects : 0);
		if (h) {
			CHECK_STR(h->kind, "heap");
			CHECK(hc_db_node_find(rb, h->context) != NULL);
			CHECK(h->size == 96 && h->blocks == 2 && h->fal == 35 && h->tru == 0);
			CHECK(h->ncells == 1 && h->cells[0].i == 0 && h->cells[0].j == 1 &&
			      h->cells[0].fal == 35);
			CHECK(h->nfields == 3 && h->fields[0].offset == 0 && h->fields[0].access == 8 &&
			      h->fields[0].nthreads == 1 && h->fields[0].threads[0] == 0);
			CHECK_STR(rb->objects[5].kind, "tls");
		}
		hc_db_close(rb);
	}
	text = fx_read(sum, NULL);
	CHECK(text && strstr(text, "Top data objects (by false sharing)"));
	/* first by false sharing: the heap object, with its fields' access sizes */
	CHECK(text && strstr(text, "\n  1  allocation at test_objects.c:50 in alloc_site  heap"));
	CHECK(text && strstr(text, "+0 (8 B), +4 (4 B), +8 (8 B)"));
	free(text);
	if (!hc_test_failures)
		fx_rm_rf(work);
	free(xml);
	free(csv);
	free(sum);
	free(xsd);
	free(meas);
	free(db);
	free(work);
}

int main(void)
{
	char self[4096];
	struct self s = { 0 };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		SKIP("no /proc/self/exe");
	self[n] = '\0';
	dl_iterate_phdr(self_map, &s);
	free(alloc_site(1));
	test_dwarf(self, &s);
	test_pipeline(self, &s);
	return hc_test_done("test_objects");
}
