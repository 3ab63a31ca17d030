/* SPDX-License-Identifier: BSD-3-Clause */
/* test_stackvars.c — stack locals in the analyzer (doc/objects.md "Stack
   locals"), without measuring.
   1. The frame lookup on synthetic frames: sorted by CFA (equal CFAs
      most-seen first), the first frame above an address is the one holding
      it; none above the outermost.
   2. dvars__local_at on this test binary's own frames: a function's local
      array of structs (slots[2].b) and a scalar local, found
      from the frame's CFA (__builtin_dwarf_cfa), its return address (as the
      runtime records a caller frame) and its size (the callee's CFA); an
      address outside every local of the frame as nothing. */
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hc/profile.h"
#include "analysis/objects.h"
#include "hc_test.h"

static void test_lookup(void)
{
	struct hc_prof_frame f[] = {
		{ .cfa = 0x7000, .node = 1, .count = 3 },
		{ .cfa = 0x5000, .node = 2, .count = 9 },
		{ .cfa = 0x6000, .node = 3, .count = 1 },
		{ .cfa = 0x6000, .node = 4, .count = 7 },   /* same depth, more often seen */
		{ .cfa = 0x4800, .node = 5, .count = 1 },
	};
	size_t n = sizeof(f) / sizeof(f[0]);

	objects__frames_sort(f, n);
	CHECK(f[0].cfa == 0x4800 && f[1].cfa == 0x5000 && f[4].cfa == 0x7000);
	CHECK(f[2].node == 4 && f[3].node == 3);
	/* an address in the frame below 0x5000 (its locals: [sp, 0x5000)) */
	CHECK_EQ_U64(objects__frame_first(f, n, 0x4f00), 1);
	/* exactly at a CFA: the caller's area (stack arguments), the next frame */
	CHECK_EQ_U64(objects__frame_first(f, n, 0x5000), 2);
	CHECK_EQ_U64(objects__frame_first(f, n, 0x4000), 0);
	CHECK_EQ_U64(objects__frame_first(f, n, 0x6ff8), 4);
	CHECK_EQ_U64(objects__frame_first(f, n, 0x7000), 5);
	CHECK_EQ_U64(objects__frame_first(f, n, 0x9000), 5);
	CHECK_EQ_U64(objects__frame_first(f, 0, 0x1000), 0);
}

struct slot {
	long a;
	long b;
};

/* What the runtime records of a caller frame: its CFA, its return address
   into it and its stack pointer at the call (the callee's CFA). */
struct seen {
	uintptr_t cfa, ra, sp;
	void *slot_b, *count, *param, *outside;
};

__attribute__((noinline)) static void callee(struct seen *s, volatile struct slot *slots,
                                              volatile long *count)
{
	s->ra = (uintptr_t)__builtin_return_address(0);
	s->sp = (uintptr_t)__builtin_dwarf_cfa();
	s->slot_b = (void *)&slots[2].b;
	s->count = (void *)count;
	slots[0].a++;
	(*count)++;
}

__attribute__((noinline)) static long holder(struct seen *s, long param)
{
	volatile struct slot slots[4];
	volatile long count = 0;

	memset((void *)slots, 0, sizeof(slots));
	s->cfa = (uintptr_t)__builtin_dwarf_cfa();
	s->param = &param;
	callee(s, slots, &count);
	s->outside = (void *)(s->cfa + 64);   /* the caller's frame */
	return slots[0].a + count + param;
}

struct self {
	uintptr_t bias;
};

static int self_map(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	((struct self *)arg)->bias = info->dlpi_addr;
	return 1;
}

static __attribute__((unused)) void test_dwarf(const char *path, uintptr_t bias)
{
	struct dvmod *m = dvars__open(path);
	struct seen s = { 0 };
	struct dv_hit h;
	char fn[256];
	uint64_t pc, fsize;

	CHECK(m != NULL);
	if (!m)
		return;
	CHECK(holder(&s, 5) == 1 + 1 + 5);
	pc = s.ra - 1 - bias;
	fsize = s.cfa - s.sp;
	CHECK(dvars__local_at(m, pc, (int64_t)((uintptr_t)s.slot_b - s.cfa), fsize, &h, fn, sizeof(fn)));
	CHECK_STR(fn, "holder");
	CHECK_STR(h.var, "slots");
	CHECK_STR(h.field, "slots[2].b");
	CHECK_EQ_U64(h.foff, 40);
	CHECK_EQ_U64(h.fsize, 8);
	CHECK_EQ_U64(h.size, 64);
	CHECK_MSG(s.cfa + h.start + h.foff == (uintptr_t)s.slot_b, "slots[2].b at %#llx, expected %p",
	          (unsigned long long)(s.cfa + h.start + h.foff), s.slot_b);
	CHECK(dvars__local_at(m, pc, (int64_t)((uintptr_t)s.count - s.cfa), fsize, &h, fn, sizeof(fn)));
	CHECK_STR(h.var, "count");
	/* the parameter: GCC 12 -O2 keeps its stack copy without a location
	   (nothing named, no error); at -O0 it is an fbreg like the others */
	if (dvars__local_at(m, pc, (int64_t)((uintptr_t)s.param - s.cfa), fsize, &h, fn, sizeof(fn)))
		CHECK_STR(h.var, "param");
	CHECK(!dvars__local_at(m, pc, (int64_t)((uintptr_t)s.outside - s.cfa), fsize, &h, fn,
	                       sizeof(fn)));
	/* an address with no function (the module's first byte) */
	CHECK(!dvars__local_at(m, 0, -8, fsize, &h, fn, sizeof(fn)));
	dvars__close(m);
}

int main(void)
{
	char self[4096];
	struct self s = { 0 };
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	test_lookup();
	if (n <= 0)
		SKIP("no /proc/self/exe");
	self[n] = '\0';
	dl_iterate_phdr(self_map, &s);
#if defined(__SANITIZE_ADDRESS__)
	/* ASan moves addressable locals into its own frame block (a register-
	   based location): nothing here is an fbreg local to look up. */
	printf("note: ASan build: dvars__local_at not checked on this binary's frames\n");
#else
	test_dwarf(self, s.bias);
#endif
	return hc_test_done("test_stackvars");
}
