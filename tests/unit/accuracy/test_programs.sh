#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_programs.sh — the accuracy suite's pattern programs (bench/accuracy/
# programs) build warning-free with gcc at -O0 and -O2 (and clang at -O2 when
# installed), run to completion natively at a small scale with 1 and 3 threads,
# give the same deterministic result line twice, and refuse a bad command
# line with exit 2. (What they communicate is measured by the suite itself,
# bench/accuracy/run.sh, against exact mode.)
set -u
S=${HC_SRCDIR:?run through make check}
P="$S/bench/accuracy/programs"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hc-accp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILS=0
fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }

names=$(grep -v '^#' "$P/programs.list" | awk 'NF { print $1 }')
builds="gcc:g++:-O0 gcc:g++:-O2"
command -v clang >/dev/null && command -v clang++ >/dev/null && builds="$builds clang:clang++:-O2"
for b in $builds; do
	cc=${b%:*} o=${b##*:}
	{
		out="$TMP/${cc%%:*}$o"
		CC="${cc%%:*} -Wall -Wextra -Werror" CXX="${cc#*:} -Wall -Wextra -Werror" \
			"$P/build.sh" $o "$out" >"$TMP/build.log" 2>&1 || { cat "$TMP/build.log" >&2; fail "build $cc $o"; continue; }
		for n in $names; do
			for t in 1 3; do
				case $n in spsc) [ $t = 1 ] && t=2 ;; esac
				for k in 1 2; do
					timeout 60 "$out/$n" $t 0.01 >"$TMP/out$k" 2>&1 || fail "$cc $o $n $t: exit $?: $(cat "$TMP/out$k")"
				done
				cmp -s "$TMP/out1" "$TMP/out2" || fail "$cc $o $n $t: results differ: $(cat "$TMP/out1") / $(cat "$TMP/out2")"
			done
		done
		echo "ok: $cc $o: $(echo $names | wc -w) programs built and ran"
	}
done
# bad command lines
b="$TMP/gcc-O0"
for args in "" "0" "x" "2 0" "2 -1" "2 1 3" "1000"; do
	# shellcheck disable=SC2086
	"$b/nn_ring" $args >/dev/null 2>&1
	[ $? -eq 2 ] || fail "nn_ring '$args' not refused with exit 2"
done
"$b/spsc" 1 >/dev/null 2>&1
[ $? -eq 2 ] || fail "spsc 1 (one thread) not refused"
[ $FAILS -eq 0 ] && echo "test_programs: all checks passed"
exit $((FAILS > 0))
