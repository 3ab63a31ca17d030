/* SPDX-License-Identifier: BSD-3-Clause */
/* names.c — how a procedure's name is shown: the pure string rules behind
   symbols.c. C++ (and Rust) linkage names are demangled with GNU libiberty,
   the demangler of c++filt and gdb, without the parameter list (c++filt -p:
   "Domain::AllocateNodePersistent", "Allocate<double>",
   "main::{lambda(int)#1}::operator()"), which matches the short names DWARF
   gives and keeps overloads apart by their declaration line instead;
   gfortran module procedures "__mod_MOD_name" become "mod::name"; a PLT stub
   "name@plt" keeps its suffix around the demangled name; the outlined bodies
   of OpenMP parallel regions (GCC "parent._omp_fn.N", clang
   ".omp_outlined.*") are recognised so that symbols.c can show them as their
   parent function plus the region's line. No signal context. */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "analysis/internal.h"

/* "__mod_MOD_name" (gfortran module procedure) -> "mod::name". */
static char *fortran_module(const char *raw)
{
	const char *mod, *sep;
	char *out;
	size_t ml;

	if (strncmp(raw, "__", 2) != 0)
		return NULL;
	mod = raw + 2;
	sep = strstr(mod, "_MOD_");
	if (!sep || sep == mod || !sep[5])
		return NULL;
	ml = (size_t)(sep - mod);
	out = malloc(ml + 2 + strlen(sep + 5) + 1);
	if (!out)
		return NULL;
	memcpy(out, mod, ml);
	strcpy(out + ml, "::");
	strcpy(out + ml + 2, sep + 5);
	return out;
}

/* The demangled form of one whole symbol, or NULL when it is not mangled. */
static char *demangle_one(const char *raw)
{
	/* One style per call: with DMGL_RUST set libiberty tries only Rust. */
	if (raw[0] == '_' && raw[1] == 'Z')
		return cplus_demangle(raw, DMGL_GNU_V3);
	if (raw[0] == '_' && raw[1] == 'R')
		return cplus_demangle(raw, DMGL_RUST);
	return fortran_module(raw);
}

char *names__demangle(const char *raw)
{
	const char *at = strstr(raw, "@plt");
	char *d, *base, *out;
	size_t bl;

	if (!raw[0])
		return strdup(raw);
	if (!at || at == raw || at[4])
		return (d = demangle_one(raw)) ? d : strdup(raw);
	/* "name@plt": demangle name, keep the suffix. */
	bl = (size_t)(at - raw);
	base = strndup(raw, bl);
	if (!base)
		return NULL;
	d = demangle_one(base);
	free(base);
	if (!d)
		return strdup(raw);
	out = malloc(strlen(d) + 5);
	if (out) {
		strcpy(out, d);
		strcat(out, "@plt");
	}
	free(d);
	return out;
}

enum names_omp names__omp_kind(const char *raw, size_t *parent_len)
{
	const char *p = strstr(raw, "._omp_fn.");

	*parent_len = 0;
	if (p && p > raw) {
		*parent_len = (size_t)(p - raw);
		return NAMES_OMP_GCC;
	}
	if (!strncmp(raw, ".omp_outlined.", 14) || !strncmp(raw, "__omp_outlined__", 16))
		return NAMES_OMP_CLANG;
	return NAMES_OMP_NONE;
}

char *names__omp_region(const char *parent, const char *file, int line)
{
	const char *base = file ? strrchr(file, '/') : NULL;
	size_t n;
	char *out;

	base = base ? base + 1 : file;
	n = strlen(parent ? parent : "") + (base ? strlen(base) : 0) + 64;
	out = malloc(n);
	if (!out)
		return NULL;
	if (base && line > 0)
		snprintf(out, n, "%s%sparallel region at %s:%d%s", parent ? parent : "",
		         parent ? " [" : "[", base, line, "]");
	else
		snprintf(out, n, "%s%sparallel region]", parent ? parent : "", parent ? " [" : "[");
	return out;
}
