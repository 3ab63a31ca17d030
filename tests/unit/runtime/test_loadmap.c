/* SPDX-License-Identifier: BSD-3-Clause */
/* test_loadmap.c — the runtime's one walk of the load map (lib/runtime/
   loadmap.c) in a test process: the module list names the executable and
   libc with ranges that hold their code, a dlopen adds a module and a
   dlclose removes it, the static TLS size covers this program's own
   __thread variable, the own range (here the test executable's) holds our
   code and nothing of libc's, and lib/decode's function table is fed from
   the same walk. */
#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "decode/funcstart.h"
#include "runtime/loadmap.h"
#include "hc_test.h"

__thread char tls_block[4096] __attribute__((used));
extern __thread char tls_block[4096];

static int holder(const struct hc_prof_module *m, uint32_t n, uint64_t a)
{
	for (uint32_t i = 0; i < n; i++)
		if (a >= m[i].lo && a < m[i].hi)
			return (int)i;
	return -1;
}

int main(void)
{
	/* libc's code: a function no sanitizer intercepts (ASan's strlen is
	   in libasan) */
	const struct hc_prof_module *m;
	uint32_t n, n2;
	uint64_t s, e, me = (uint64_t)(uintptr_t)&main, libc = (uint64_t)(uintptr_t)&gnu_get_libc_version;
	void *h;
	int i;

	CHECK(loadmap__modules(&n) == NULL && n == 0);
	CHECK_EQ_U64(loadmap__refresh(), 0);
	m = loadmap__modules(&n);
	CHECK(m != NULL && n >= 3);                   /* exe, vdso or ld.so, libc */
	i = holder(m, n, me);
	CHECK_MSG(i == 0, "main in module %d", i);
	CHECK(strlen(m[0].path) > 0 && m[0].path[0] != '[');
	i = holder(m, n, libc);
	CHECK_MSG(i > 0 && strstr(m[i].path, "libc"), "gnu_get_libc_version in %d (%s)", i, i >= 0 ? m[i].path : "-");
	for (uint32_t k = 0; k < n; k++)
		CHECK(m[k].id == k && m[k].lo < m[k].hi);

	/* system libraries' code: libc's (from /lib or /usr/lib on Debian), not ours */
	CHECK(loadmap__system_code(libc));
	CHECK(!loadmap__system_code(me));
	CHECK(loadmap__system_path("/lib/x86_64-linux-gnu/libgomp.so.1"));
	CHECK(loadmap__system_path("/usr/lib/x86_64-linux-gnu/libstdc++.so.6"));
	CHECK(loadmap__system_path("/lib64/ld-linux-x86-64.so.2"));
	CHECK(!loadmap__system_path("/usr/local/lib/libfoo.so"));
	CHECK(!loadmap__system_path("/home/u/app/lib/libsolver.so"));
	CHECK(!loadmap__system_path("/usr/libexec/x"));
	CHECK(!loadmap__system_path("/tmp/lib/libx.so"));
	CHECK(!loadmap__system_path(""));
	CHECK(!loadmap__system_path(NULL));

	tls_block[0] = 1;
	CHECK(loadmap__static_tls_size() >= sizeof tls_block);

	loadmap__self_init();
	CHECK(loadmap__pc_in_self(me));
	CHECK(!loadmap__pc_in_self(libc));
	CHECK(loadmap__self_lo == m[0].lo && loadmap__self_lo + loadmap__self_len == m[0].hi);

	/* lib/decode's table comes from the same walk. */
	CHECK(hc_funcs_generation() == 1);
	CHECK(hc_funcs_lookup(me, &s, &e) && s == me);

	h = dlopen("libz.so.1", RTLD_NOW);
	if (h) {
		uint64_t f = (uint64_t)(uintptr_t)dlsym(h, "crc32");

		CHECK_EQ_U64(loadmap__refresh(), 0);
		m = loadmap__modules(&n2);
		CHECK(n2 == n + 1);
		i = holder(m, n2, f);
		CHECK_MSG(i >= 0 && strstr(m[i].path, "libz"), "crc32 in %d", i);
		CHECK(hc_funcs_lookup(f, &s, &e) && s == f);
		dlclose(h);
		CHECK_EQ_U64(loadmap__refresh(), 0);
		m = loadmap__modules(&n2);
		CHECK(n2 == n && holder(m, n2, f) < 0);
	} else {
		fprintf(stderr, "test_loadmap: no libz.so.1 (%s): dlopen case not run\n", dlerror());
	}
	return hc_test_done("test_loadmap");
}
