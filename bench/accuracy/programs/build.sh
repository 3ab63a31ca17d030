#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# build.sh — builds the accuracy suite's pattern programs (programs.list) at
# one optimization level into OUTDIR, with $CC / $CXX (default cc / c++):
# plainly for sampled runs, or with the exact-mode wrappers
# (CC=hpcrun-comm-cc CXX=hpcrun-comm-c++) for `hpcrun-comm --exact`.
#
#   bench/accuracy/programs/build.sh -O0|-O2 OUTDIR [NAME...]
#
# ACC_PROGRAMS=DIR builds another directory's programs (its programs.list,
# its sources; e.g. bench/accuracy/holdout) the same way, work.c still this
# directory's.
#
# Every program: -g -pthread, the level given, the file's extra flags
# (-fopenmp, -DPADDED), linked with work.c built the same way. Prints one
# line per program; exits non-zero when one fails (its compiler output on
# stderr).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pdir=$here
if [ -n "${ACC_PROGRAMS:-}" ]; then
	pdir=$(cd "$ACC_PROGRAMS" && pwd) || { echo "build.sh: no directory ACC_PROGRAMS=$ACC_PROGRAMS" >&2; exit 2; }
	[ -r "$pdir/programs.list" ] || { echo "build.sh: no programs.list in $pdir" >&2; exit 2; }
fi
case ${1:-} in
-O0|-O1|-O2|-O3|-Os) opt=$1 ;;
*) echo "usage: build.sh -O0|-O2 OUTDIR [NAME...]" >&2; exit 2 ;;
esac
out=${2:?usage: build.sh -O0|-O2 OUTDIR [NAME...]}
shift 2
CC=${CC:-cc} CXX=${CXX:-c++}
mkdir -p "$out"
grep -v '^#' "$pdir/programs.list" | grep . | while read -r name src extra; do
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	case $src in
	*.cc) comp=$CXX ;;
	*) comp=$CC ;;
	esac
	# work.c compiled by the C compiler, the same way, per program (extra
	# flags such as -fopenmp do not matter to it)
	$CC -g "$opt" -c -o "$out/$name.work.o" "$here/work.c"
	# shellcheck disable=SC2086
	$comp -g "$opt" -pthread $extra -o "$out/$name" "$pdir/$src" "$out/$name.work.o"
	rm -f "$out/$name.work.o"
	echo "built $out/$name ($comp $opt $extra)"
done
