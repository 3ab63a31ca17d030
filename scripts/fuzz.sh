#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scripts/fuzz.sh — build the fuzz targets of tests/fuzz as libFuzzer binaries
# (clang -fsanitize=fuzzer,address,undefined), out of tree, and run them.
#
#   scripts/fuzz.sh build [OUTDIR]                 build all targets into OUTDIR
#                                                  (default /tmp/hc-fuzz-bin)
#   scripts/fuzz.sh run TARGET SECONDS [OUTDIR] [WORKDIR]
#        fuzz TARGET for SECONDS, niced, starting from a copy of its corpus
#        tests/fuzz/corpus/TARGET in WORKDIR/TARGET (default /tmp/hc-fuzz-work);
#        crashes go to WORKDIR/TARGET-crash-*, the log to WORKDIR/TARGET.log.
#   scripts/fuzz.sh list                           the target names
#
# Targets: prof topo meta experiment objects threads matrix matrix_sparse
# (tests/fuzz/README.md).
# Needs clang and libclang-rt-14-dev (scripts/install-deps.sh).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-clang}
TARGETS="prof topo meta experiment objects threads matrix matrix_sparse"
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 -D_GNU_SOURCE -I$top/include -I$top/lib -I$top/tests -I$top/viewer-export"

vdb_file() {
	case $1 in
	meta) echo database.xml ;;
	experiment) echo experiment.xml ;;
	objects) echo objects.xml ;;
	threads) echo threads.csv ;;
	matrix | matrix_sparse) echo matrices/thread-all.csv ;;
	*) return 1 ;;
	esac
}

build() {
	out=$1
	mkdir -p "$out"
	ver=$(sed -n 's/^AC_INIT(\[[^]]*\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
	printf '#define PACKAGE_VERSION "%s"\n#define PACKAGE_NAME "hpcrun-comm"\n' "$ver" \
		>"$out/config.h"
	xml=$(pkg-config --cflags libxml-2.0)
	for t in $TARGETS; do
		case $t in
		prof)
			$CC $FLAGS "$top/tests/fuzz/fuzz_prof.c" "$top/lib/prof/reader.c" \
				"$top/lib/prof/writer.c" -lz -o "$out/fuzz_prof" ;;
		topo)
			$CC $FLAGS $xml "$top/tests/fuzz/fuzz_topo.c" "$top/lib/analysis/topology.c" \
				-lhwloc -o "$out/fuzz_topo" ;;
		*)
			f=$(vdb_file "$t")
			tmpl=small
			[ "$t" = matrix_sparse ] && tmpl=small-sparse
			$CC $FLAGS $xml -I"$out" -DFUZZ_VDB_NAME="\"$t\"" -DFUZZ_VDB_FILE="\"$f\"" \
				-DFUZZ_VDB_TEMPLATE="\"$tmpl\"" \
				"$top/tests/fuzz/fuzz_vdb.c" "$top"/lib/db/*.c "$top"/lib/report/*.c "$top/lib/support/out.c" \
				-lxml2 -o "$out/fuzz_$t" ;;
		esac
		echo "built $out/fuzz_$t"
	done
}

run() {
	t=$1 secs=$2 out=$3 work=$4
	[ -x "$out/fuzz_$t" ] || build "$out"
	mkdir -p "$work/$t"
	cp "$top/tests/fuzz/corpus/$t"/* "$work/$t/"
	dict=
	case $t in
	meta) dict=-dict=$top/tests/fuzz/dict/database.dict ;;
	experiment | objects) dict=-dict=$top/tests/fuzz/dict/$t.dict ;;
	esac
	HC_SRCDIR=$top nice -n 19 "$out/fuzz_$t" -max_total_time="$secs" -max_len=16384 \
		$dict -print_final_stats=1 -artifact_prefix="$work/$t-" "$work/$t" \
		>"$work/$t.log" 2>&1
}

case ${1:-} in
build) build "${2:-/tmp/hc-fuzz-bin}" ;;
run) [ $# -ge 3 ] || { echo "usage: $0 run TARGET SECONDS [OUTDIR] [WORKDIR]" >&2; exit 2; }
	run "$2" "$3" "${4:-/tmp/hc-fuzz-bin}" "${5:-/tmp/hc-fuzz-work}" ;;
list) echo $TARGETS ;;
*) sed -n '3,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
