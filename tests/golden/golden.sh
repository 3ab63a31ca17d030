#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# golden.sh — golden tests of names: procedures (demangled C++, templates,
# lambdas, Fortran module procedures, OpenMP regions, PLT stubs), heap object
# names (call site, wrapper, variable) and field paths (heap, static, TLS,
# access sizes), for a C, a C++, an OpenMP and a Fortran program. Each is
# built here with fixed compilers and flags (gcc/g++/gfortran -g -O2; the
# expected files were written with Debian 12's GCC 12), run once without the
# runtime to record what a measurement would hold (probe.c), and
# golden_run compares the analyzer's names with tests/golden/NAME.expected.
# HC_UPDATE_GOLDEN=1 rewrites the expected files. Deterministic: no
# sampling, no timing. The Fortran program is skipped (said so) without
# gfortran; the whole test exits 77 without gcc.
set -u
B=${HC_BUILDDIR:?run through make check}
S=${HC_SRCDIR:?run through make check}
G="$S/tests/golden"
RUN="$B/tests/golden/golden_run"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hc-golden.XXXXXX")
FAILS=0
trap 'if [ $FAILS -eq 0 ]; then rm -rf "$TMP"; else echo "kept $TMP" >&2; fi' EXIT

command -v gcc >/dev/null || { echo "SKIP: gcc not installed" >&2; exit 77; }
# Fixed flags: the names depend on inlining, so never the configure's CFLAGS.
FLAGS="-g -O2 -I$G"
gcc $FLAGS -c -o "$TMP/probe.o" "$G/probe.c" || exit 1

# golden NAME COMPILER FLAGS... SOURCE
golden() {
	name=$1; shift
	mkdir -p "$TMP/$name"
	if ! "$@" "$TMP/probe.o" -o "$TMP/$name/$name" -pthread >"$TMP/$name/build.log" 2>&1; then
		cat "$TMP/$name/build.log" >&2
		echo "FAIL: $name: does not build" >&2
		FAILS=$((FAILS + 1))
		return
	fi
	if ! GOLDEN_OUT="$TMP/$name/probe.txt" "$TMP/$name/$name" >"$TMP/$name/out.txt" 2>&1; then
		echo "FAIL: $name: the program failed" >&2
		FAILS=$((FAILS + 1))
		return
	fi
	if "$RUN" "$TMP/$name/probe.txt" "$G/$name.expected" "$TMP/$name"; then
		echo "ok: $name: names as in $name.expected"
	else
		echo "FAIL: $name: names differ from $name.expected" >&2
		diff -u "$G/$name.expected" "$TMP/$name/got.txt" >&2
		FAILS=$((FAILS + 1))
	fi
}

golden golden_c gcc $FLAGS -no-pie -fno-pie "$G/golden_c.c"
golden golden_cxx g++ $FLAGS "$G/golden_cxx.cc"
golden golden_omp gcc $FLAGS -fopenmp "$G/golden_omp.c"
if command -v gfortran >/dev/null; then
	golden golden_f gfortran $FLAGS -fopenmp -J "$TMP/golden_f" "$G/golden_f.f90"   # the .mod not in the build tree
else
	echo "note: gfortran not installed (scripts/install-deps.sh installs it): Fortran names not checked"
fi
[ $FAILS -eq 0 ]
