#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# threads_100k.sh — 100,000 short-lived threads (created and joined 4 at a
# time) under hpcrun-comm: too slow for make check (tests/integration/
# threads.sh runs 5,000). Checks that the exit status and output are the
# native ones, that all 100,001 profiles are there and readable, that the
# program saw no fd or memory leak from inside (open fds and VmRSS after
# the first 1% and at the end), and reports the wall time, the size of the
# measurement directory, and that hpcprof-comm and viewer-export read it
# (with the analyzer's time).
#   tests/stress/threads_100k.sh BUILDDIR [N] [WORKDIR]
set -u
B=$(cd "${1:?usage: threads_100k.sh BUILDDIR [N] [WORKDIR]}" && pwd)
N=${2:-100000}
W=${3:-${TMPDIR:-/tmp}/hc-stress-threads}
TM="$B/tests/programs/threads_many"
HPCRUN="$B/hpcrun-comm/hpcrun-comm"
HPCPROF="$B/hpcprof-comm/hpcprof-comm"
ROWS="$B/tests/integration/hc_rows"
[ -x "$TM" ] && [ -x "$ROWS" ] || { echo "threads_100k: run 'make check TESTS=' in $B first" >&2; exit 2; }
rm -rf "$W"; mkdir -p "$W"
# one measurement at a time on this machine (as the integration tests)
exec 9>"${TMPDIR:-/tmp}/hpcrun-comm-integration.lock"
flock 9
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s.%N; }

t0=$(now)
"$TM" churn "$N" >"$W/native.out" 2>"$W/native.err"; nrc=$?
t1=$(now)
"$HPCRUN" -o "$W/m" "$TM" churn "$N" >"$W/m.out" 2>"$W/m.err"; rc=$?
t2=$(now)
[ $rc -eq 0 ] && [ $nrc -eq 0 ] || fail "exit status $rc, native $nrc"
cmp -s "$W/native.out" "$W/m.out" || fail "stdout differs from the native run"
got=$(ls "$W/m" | grep -c '\.hcprof$')
[ "$got" -eq $((N + 1)) ] || fail "$got profiles, want $((N + 1))"
"$ROWS" "$W/m" >"$W/rows" 2>"$W/rows.err" || fail "unreadable profiles: $(head -3 "$W/rows.err")"
set -- $(awk '$1 == "fds" && $4 == "rss_kb" { print $2, $3, $5, $6 }' "$W/m.err")
[ "$#" -eq 4 ] || fail "no fds/rss line from the program"
[ "${1:-0}" -eq "${2:-1}" ] || fail "open fds went from $1 to $2 (leak)"
[ $((${4:-0} - ${3:-0})) -lt 16384 ] || fail "RSS grew from $3 kB to $4 kB"
du=$(du -sk "$W/m" | cut -f1)
t3=$(now)
# The analyzer must read them all (sparse thread matrices: memory grows
# with threads + non-zero cells, doc/reliability.md), and viewer-export must
# summarize the database.
if "$HPCPROF" -o "$W/db" "$W/m" >"$W/prof.out" 2>&1; then
	rows=$(($(wc -l <"$W/db/threads.csv") - 1))
	[ "$rows" -eq "$got" ] || fail "threads.csv lists $rows threads, want $got"
	echo "analyzer: hpcprof-comm read all $got profiles"
else
	fail "hpcprof-comm failed: $(tail -1 "$W/prof.out")"
fi
t4=$(now)
"$B/viewer-export/viewer-export" --text "$W/db" >"$W/text.out" 2>"$W/text.err" ||
	fail "viewer-export --text failed: $(tail -1 "$W/text.err")"
awk -v n="$N" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" -v du="$du" \
    -v f1="$1" -v f2="$2" -v r1="$3" -v r2="$4" -v got="$got" 'BEGIN {
	printf "threads %d: native %.1f s, measured %.1f s (%.0f us per thread more), %d profiles, %.0f MiB (%.1f KiB per profile)\n",
	       n, b - a, c - b, ((c - b) - (b - a)) / n * 1e6, got, du / 1024, du / got
	printf "inside the program: fds %s -> %s, VmRSS %s -> %s kB; hpcprof-comm %.1f s\n", f1, f2, r1, r2, e - d
}'
[ $fails -eq 0 ] && echo "PASS" || { echo "$fails check(s) failed"; exit 1; }
