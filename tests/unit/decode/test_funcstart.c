/* SPDX-License-Identifier: BSD-3-Clause */
/* test_funcstart.c — function lookup in the .eh_frame_hdr tables of the
   loaded modules: functions of this program (C, and asm with a known size),
   of libc (exact start and, from the dynamic symbol's size, exact end),
   addresses in no function, a library loaded by dlopen only after a
   refresh, generations, and lookups racing refreshes from another thread
   (which must never see a freed snapshot: run it under ASan too). */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decode/funcstart.h"
#include "runtime/loadmap.h"
#include "hc_test.h"

/* An asm function of known extent with CFI, and one without any. */
__asm__(".text\n"
	".globl fs_asm_fn\n.hidden fs_asm_fn\n.type fs_asm_fn,@function\n"
	"fs_asm_fn:\n\t.cfi_startproc\n\t"
	"nop\n\tnop\n\tnop\n\tret\n\t.cfi_endproc\n"
	".size fs_asm_fn,.-fs_asm_fn\n"
	".globl fs_asm_fn_end\n.hidden fs_asm_fn_end\nfs_asm_fn_end:\n"
	".globl fs_nocfi_fn\n.hidden fs_nocfi_fn\n.type fs_nocfi_fn,@function\n"
	"fs_nocfi_fn:\n\tnop\n\tret\n.size fs_nocfi_fn,.-fs_nocfi_fn\n");

#define ASM_SYM(name) extern const uint8_t name[] __attribute__((visibility("hidden")))
ASM_SYM(fs_asm_fn);
ASM_SYM(fs_asm_fn_end);
ASM_SYM(fs_nocfi_fn);

static int __attribute__((noinline)) local_fn(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 3 + 1;
}

int main(void);

static uint64_t addr(const void *p) { return (uint64_t)(uintptr_t)p; }

/* start exact, end after it, and the same answer from inside */
static void check_fn(const char *name, uint64_t fn, uint64_t want_end)
{
	uint64_t s = 0, e = 0, s2 = 0, e2 = 0;
	bool ok = hc_funcs_lookup(fn, &s, &e);

	CHECK_MSG(ok && s == fn && e > s, "%s: lookup at its start (0x%" PRIx64 " -> 0x%" PRIx64
	          "..0x%" PRIx64 ")", name, fn, s, e);
	if (!ok)
		return;
	if (want_end)
		CHECK_MSG(e == want_end, "%s: end 0x%" PRIx64 ", want 0x%" PRIx64, name, e, want_end);
	CHECK_MSG(hc_funcs_lookup(e - 1, &s2, &e2) && s2 == s && e2 == e, "%s: last byte", name);
	CHECK_MSG(hc_funcs_lookup(s + (e - s) / 2, &s2, &e2) && s2 == s && e2 == e, "%s: middle", name);
}

static void check_libc_symbol(const char *sym)
{
	void *p = dlsym(RTLD_DEFAULT, sym);
	const ElfW(Sym) *es = NULL;
	Dl_info di;

	CHECK_MSG(p != NULL, "dlsym(%s)", sym);
	if (!p)
		return;
	if (dladdr1(p, &di, (void **)&es, RTLD_DL_SYMENT) && es && es->st_size)
		check_fn(sym, addr(p), addr(p) + es->st_size);
	else
		check_fn(sym, addr(p), 0);
}

static void own_and_libc(void)
{
	uint64_t s, e;
	void *heap = malloc(64);

	CHECK_EQ_U64(local_fn(1), 4);
	check_fn("local_fn", addr((void *)local_fn), 0);
	check_fn("hc_funcs_lookup", addr((void *)hc_funcs_lookup), 0);
	check_fn("main", addr((void *)main), 0);
	check_fn("fs_asm_fn", addr(fs_asm_fn), addr(fs_asm_fn_end));
	CHECK(!hc_funcs_lookup(addr(fs_nocfi_fn), &s, &e));

	check_libc_symbol("malloc");
	check_libc_symbol("getenv");
	check_libc_symbol("bsearch");
	check_libc_symbol("pthread_create");
	/* An IFUNC: dlsym gives the selected implementation (hand-written asm
	   in glibc, with CFI), which has no dynamic symbol of its own. */
	check_fn("memcpy (ifunc target)", addr(dlsym(RTLD_DEFAULT, "memcpy")), 0);

	CHECK(!hc_funcs_lookup(addr(heap), &s, &e));
	CHECK(!hc_funcs_lookup(addr(&s), &s, &e));
	CHECK(!hc_funcs_lookup(0, &s, &e));
	CHECK(!hc_funcs_lookup(UINT64_MAX, &s, &e));
	free(heap);
}

static const char *const dl_libs[] = { "libz.so.1", "libm.so.6", "libutil.so.1" };
static const char *const dl_syms[] = { "zlibVersion", "cos", "forkpty" };

/* A library this program does not already have loaded; NULL if none. */
static void *open_new_lib(const char **sym)
{
	for (size_t i = 0; i < sizeof(dl_libs) / sizeof(dl_libs[0]); i++) {
		void *h = dlopen(dl_libs[i], RTLD_NOW | RTLD_NOLOAD);

		if (h) {  /* already here: no use for "found only after refresh" */
			dlclose(h);
			continue;
		}
		h = dlopen(dl_libs[i], RTLD_NOW | RTLD_LOCAL);
		if (h) {
			*sym = dl_syms[i];
			return h;
		}
	}
	return NULL;
}

static void after_dlopen(void)
{
	uint32_t gen = hc_funcs_generation();
	const char *symname = NULL;
	void *h = open_new_lib(&symname), *fn;
	uint64_t s, e;

	if (!h) {
		fprintf(stderr, "  skip dlopen part: no unloaded library among libz, libm, libutil\n");
		return;
	}
	fn = dlsym(h, symname);
	CHECK(fn != NULL);
	CHECK_MSG(!hc_funcs_lookup(addr(fn), &s, &e), "%s found before refresh", symname);
	CHECK_EQ_U64(loadmap__refresh(), 0);
	CHECK(hc_funcs_generation() == gen + 1);
	check_fn(symname, addr(fn), 0);
	/* Unchanged module list: same snapshot, same generation. */
	CHECK_EQ_U64(loadmap__refresh(), 0);
	CHECK(hc_funcs_generation() == gen + 1);
	dlclose(h);
	CHECK_EQ_U64(loadmap__refresh(), 0);
	CHECK(hc_funcs_generation() == gen + 2);
	check_fn("local_fn after dlclose", addr((void *)local_fn), 0);
}

/* ---- readers racing refreshes ------------------------------------------ */

static int stop;          /* atomic: a volatile read races the store (TSan) */
static uint64_t reader_bad, reader_ok;

static void *reader(void *arg)
{
	uint64_t want_s = 0, want_e = 0, s, e, lf = addr((void *)local_fn);
	uint64_t gf = addr(dlsym(RTLD_DEFAULT, "getenv"));

	(void)arg;
	hc_funcs_lookup(lf, &want_s, &want_e);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (!hc_funcs_lookup(lf + 1, &s, &e) || s != want_s || e != want_e)
			reader_bad++;
		if (!hc_funcs_lookup(gf, &s, &e) || s != gf)
			reader_bad++;
		__atomic_fetch_add(&reader_ok, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void racing_refreshes(void)
{
	pthread_t t;
	int published = 0;

	reader_bad = reader_ok = 0;
	CHECK_EQ_U64(pthread_create(&t, NULL, reader, NULL), 0);
	/* The refreshes must race a running reader: on a loaded machine the
	   reader could otherwise be scheduled only after the last round
	   (CI once saw 0 reader rounds). */
	while (__atomic_load_n(&reader_ok, __ATOMIC_RELAXED) == 0)
		sched_yield();
	for (int i = 0; i < 200; i++) {
		const char *sym;
		uint32_t g = hc_funcs_generation();
		void *h = open_new_lib(&sym);

		CHECK_EQ_U64(loadmap__refresh(), 0);
		if (h) {
			dlclose(h);
			CHECK_EQ_U64(loadmap__refresh(), 0);
		}
		published += hc_funcs_generation() != g;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	CHECK_EQ_U64(reader_bad, 0);
	CHECK(reader_ok > 0);
	fprintf(stderr, "  racing: %" PRIu64 " reader rounds, %d refresh rounds published\n",
	        reader_ok, published);
}

int main(void)
{
	uint64_t s, e;

	CHECK_EQ_U64(hc_funcs_generation(), 0);
	CHECK(!hc_funcs_lookup(addr((void *)local_fn), &s, &e));  /* no snapshot yet */
	CHECK_EQ_U64(loadmap__refresh(), 0);
	CHECK(hc_funcs_generation() == 1);

	own_and_libc();
	after_dlopen();
	racing_refreshes();
	return hc_test_done("test_funcstart");
}
