#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_programs.sh — the accuracy suite's pattern programs (bench/accuracy/
# programs) and the holdout set (bench/accuracy/holdout, built by the same
# build.sh with ACC_PROGRAMS) build warning-free with gcc at -O0 and -O2 (and
# clang at -O2 when installed), run to completion natively at a small scale
# with 1 and 3 threads (2 and 3 for programs that need two), give the same
# deterministic result line twice, and refuse a bad command line with exit 2;
# run.sh --programs checks its program names against that directory's list.
# (What they communicate is measured by the suite itself, bench/accuracy/
# run.sh, against exact mode.)
set -u
S=${HC_SRCDIR:?run through make check}
P="$S/bench/accuracy/programs"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hc-accp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }

builds="gcc:g++:-O0 gcc:g++:-O2"
command -v clang >/dev/null && command -v clang++ >/dev/null && builds="$builds clang:clang++:-O2"
for dir in programs holdout; do
names=$(grep -v '^#' "$S/bench/accuracy/$dir/programs.list" | awk 'NF { print $1 }')
for b in $builds; do
	cc=${b%:*} o=${b##*:}
	{
		out="$TMP/$dir-${cc%%:*}$o"
		ACC_PROGRAMS="$S/bench/accuracy/$dir" CC="${cc%%:*} -Wall -Wextra -Werror" CXX="${cc#*:} -Wall -Wextra -Werror" \
			"$P/build.sh" $o "$out" >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log" >&2; fail "build $dir $cc $o"; continue; }
		for n in $names; do
			for t in 1 3; do
				case $n in spsc | mw_cond | mw_spin) [ $t = 1 ] && t=2 ;; esac
				for k in 1 2; do
					timeout 60 "$out/$n" $t 0.01 >"$TMP/out$k" 2>&1 || fail "$cc $o $n $t: exit $?: $(cat "$TMP/out$k")"
				done
				cmp -s "$TMP/out1" "$TMP/out2" || fail "$cc $o $n $t: results differ: $(cat "$TMP/out1") / $(cat "$TMP/out2")"
			done
		done
		echo "ok: $dir $cc $o: $(echo $names | wc -w) programs built and ran"
	}
done
done
# bad command lines
b="$TMP/programs-gcc-O0"
for args in "" "0" "x" "2 0" "2 -1" "2 1 3" "1000"; do
	# shellcheck disable=SC2086
	"$b/nn_ring" $args >/dev/null 2>&1
	[ $? -eq 2 ] || fail "nn_ring '$args' not refused with exit 2"
done
"$b/spsc" 1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "spsc 1 (one thread) not refused"
for n in mw_cond mw_spin; do
	"$TMP/holdout-gcc-O0/$n" 1 >/dev/null 2>&1
	[ $? -eq 2 ] || fail "$n 1 (one thread) not refused"
done
# run.sh --programs: names checked against that directory's programs.list
# (exit 2 before anything is built or run)
R="$S/bench/accuracy/run.sh"
"$R" --programs "$S/bench/accuracy/holdout" -p nn_ring "${HC_BUILDDIR:?}" "$TMP/w" >"$TMP/r.log" 2>&1
[ $? -eq 2 ] && grep -q "holdout/programs.list" "$TMP/r.log" || fail "run.sh --programs holdout -p nn_ring not refused: $(cat "$TMP/r.log")"
"$R" -p mw_cond "$HC_BUILDDIR" "$TMP/w" >"$TMP/r.log" 2>&1
[ $? -eq 2 ] || fail "run.sh -p mw_cond (not a suite program) not refused"
"$R" --programs "$TMP/nonesuch" "$HC_BUILDDIR" "$TMP/w" >"$TMP/r.log" 2>&1
[ $? -eq 2 ] || fail "run.sh --programs (no such directory) not refused"
[ $FAILS -eq 0 ] && echo "test_programs: all checks passed"
exit $((FAILS > 0))
