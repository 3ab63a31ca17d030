/* SPDX-License-Identifier: BSD-3-Clause */
/* test_names.c — how procedures are named (names.c, symbols.c).
   1. The string rules: C++ and Rust names demangled without parameters by
      libiberty, gfortran module procedures as "mod::name", PLT stubs keep
      "@plt" around the demangled name, C names untouched, the two OpenMP
      outlining conventions recognised with GCC's parent name.
   2. PLT stubs on real binaries, objdump as the oracle: every "<name@plt>"
      stub objdump -d lists in this test binary (PIE) and in the symexec
      helper (non-PIE) is named "name@plt" by sym__lookup at an address inside
      the stub (before, a stub took the name of the closest symbol before it,
      "_init"). Skipped (77) without objdump. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/internal.h"
#include "hc_test.h"

static void check_demangle(const char *raw, const char *want)
{
	char *s = names__demangle(raw);

	CHECK_STR(s, want);
	free(s);
}

static void check_strings(void)
{
	size_t n;
	char *s;

	check_demangle("_Z8AllocateIdEPT_m", "Allocate<double>");
	check_demangle("_ZN6Domain22AllocateNodePersistentEi", "Domain::AllocateNodePersistent");
	check_demangle("_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()");
	check_demangle("_ZNSt6vectorIdSaIdEE17_M_default_appendEm",
	               "std::vector<double, std::allocator<double> >::_M_default_append");
	check_demangle("_Znwm@plt", "operator new@plt");
	check_demangle("memset@plt", "memset@plt");
	check_demangle("__physics_MOD_step", "physics::step");
	check_demangle("__physics_MOD_", "__physics_MOD_");
	check_demangle("main", "main");
	check_demangle("worker__helper", "worker__helper");   /* no GNAT rules on C names */
	check_demangle("_Zgarbage", "_Zgarbage");
	check_demangle("", "");

	CHECK(names__omp_kind("_ZL15EvalEOSForElemsR6DomainPdiPii._omp_fn.0", &n) == NAMES_OMP_GCC);
	CHECK_EQ_U64(n, strlen("_ZL15EvalEOSForElemsR6DomainPdiPii"));
	CHECK(names__omp_kind("work._omp_fn.12", &n) == NAMES_OMP_GCC && n == 4);
	CHECK(names__omp_kind(".omp_outlined._debug__.1", &n) == NAMES_OMP_CLANG);
	CHECK(names__omp_kind(".omp_outlined.", &n) == NAMES_OMP_CLANG);
	CHECK(names__omp_kind("omp_fn", &n) == NAMES_OMP_NONE);
	CHECK(names__omp_kind("._omp_fn.0", &n) == NAMES_OMP_NONE);   /* no parent */

	s = names__omp_region("work", "/src/o.c", 6);
	CHECK_STR(s, "work [parallel region at o.c:6]");
	free(s);
	s = names__omp_region(NULL, NULL, 0);
	CHECK_STR(s, "[parallel region]");
	free(s);
}

/* Every PLT stub objdump names in path must be named the same by us. */
static void check_plt(const char *path, int min)
{
	char cmd[PATH_MAX + 64], line[1024], err[512];
	struct symmod *m = sym__open(path, err, sizeof(err));
	struct sym_result *r = malloc(sizeof(*r));
	FILE *f;
	int stubs = 0;

	CHECK_MSG(m != NULL, "%s", err);
	if (!m || !r) {
		free(r);
		return;
	}
	snprintf(cmd, sizeof(cmd), "objdump -d '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	CHECK(f != NULL);
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long addr;
		char name[512];

		/* "x@plt-0x10" is PLT0, the lazy binder's stub: no function. */
		if (sscanf(line, "%llx <%511[^>]>:", &addr, name) != 2 || strlen(name) < 5 ||
		    strcmp(name + strlen(name) - 4, "@plt"))
			continue;
		sym__lookup(m, addr + 4, r);
		CHECK_MSG(r->nframes == 1 && r->fr[0].name && !strcmp(r->fr[0].name, name),
		          "%s: stub at 0x%llx is %s, we say %s", path, addr, name,
		          r->nframes > 0 && r->fr[0].name ? r->fr[0].name : "(nothing)");
		stubs++;
	}
	if (f)
		pclose(f);
	fprintf(stderr, "%s: %d PLT stubs\n", path, stubs);
	CHECK_MSG(stubs >= min, "%s: objdump listed only %d PLT stubs", path, stubs);
	free(r);
	sym__close(m);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], helper[PATH_MAX + 16];
	ssize_t n;
	const char *slash;

	(void)argc;
	check_strings();
	if (system("objdump --version >/dev/null 2>&1") != 0)
		SKIP("objdump (binutils) not installed: PLT stubs not checked");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	CHECK(n > 0);
	if (n <= 0)
		return hc_test_done(argv[0]);
	self[n] = '\0';
	check_plt(self, 10);
	slash = strrchr(self, '/');
	snprintf(helper, sizeof(helper), "%.*s/symexec", (int)(slash - self), self);
	check_plt(helper, 1);
	return hc_test_done(argv[0]);
}
