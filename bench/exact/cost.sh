#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# cost.sh — exact mode's cost: the accuracy suite's pattern programs
# (bench/accuracy/programs) built plainly and with hpcrun-comm-cc at -O2,
# each run natively, instrumented without hpcrun-comm (the stub), and under
# hpcrun-comm --exact; wall time and peak RSS (GNU time) per run, the
# median of REPS runs. Prints one table (slowdown = exact / native).
#
#   bench/exact/cost.sh BUILDDIR [THREADS [SCALE [REPS]]]
#
# Timing only here, never in tests; record the table in doc/exact.md with
# the date, load (uptime) and commit.
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
B=$(cd "${1:?usage: cost.sh BUILDDIR [THREADS [SCALE [REPS]]]}" && pwd)
T=${2:-$(nproc)} SCALE=${3:-0.25} REPS=${4:-3}
W=$(mktemp -d "${TMPDIR:-/tmp}/hc-exact-cost.XXXXXX")
trap 'rm -rf "$W"' EXIT
command -v /usr/bin/time >/dev/null || { echo "cost.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
CC=cc CXX=c++ "$src/bench/accuracy/programs/build.sh" -O2 "$W/plain" >/dev/null
CC="$B/hpcrun-comm/hpcrun-comm-cc" CXX="$B/hpcrun-comm/hpcrun-comm-c++" \
	"$src/bench/accuracy/programs/build.sh" -O2 "$W/exact" >/dev/null

# run1 OUT CMD...: "seconds kib" of one run
run1() {
	out=$1; shift
	/usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null 2>&1 || echo "cost.sh: failed: $*" >&2
	cat "$out"
}
# med CMD...: the median time and the median peak RSS of REPS runs
med() {
	for r in $(seq "$REPS"); do run1 "$W/t" "$@"; done |
		sort -n | awk '{ t[NR] = $1; m[NR] = $2 } END { printf "%s %s\n", t[int((NR + 1) / 2)], m[int((NR + 1) / 2)] }'
}

echo "exact mode cost: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$src" rev-parse --short HEAD)," \
	"load $(cut -d' ' -f1-3 /proc/loadavg), $T threads, scale $SCALE, median of $REPS"
printf "%-14s %9s %9s %9s %8s %8s %9s %9s %7s\n" program native_s stub_s exact_s stub_x exact_x rss_nat_MB rss_ex_MB mem_x
grep -v '^#' "$src/bench/accuracy/programs/programs.list" | grep . | while read -r name rest; do
	n=$(med "$W/plain/$name" "$T" "$SCALE")
	s=$(med "$W/exact/$name" "$T" "$SCALE")
	x=$(med "$B/hpcrun-comm/hpcrun-comm" --exact -o "$W/m-$name" "$W/exact/$name" "$T" "$SCALE")
	rm -rf "$W/m-$name"
	echo "$name $n $s $x"
done | awk '{ nt = $2 > 0 ? $2 : 0.01; printf "%-14s %9.2f %9.2f %9.2f %8.1f %8.1f %9.1f %9.1f %7.1f\n",
	$1, $2, $4, $6, $4 / nt, $6 / nt, $3 / 1024, $7 / 1024, $7 / ($3 > 0 ? $3 : 1) }' | tee "$W/table"
awk '{ print $6 }' "$W/table" | sort -n | awk '{ v[NR] = $1 } END { printf "median slowdown %.1fx\n", v[int((NR + 1) / 2)] }'
awk '{ print $9 }' "$W/table" | sort -n | awk '{ v[NR] = $1 } END { printf "median memory   %.1fx\n", v[int((NR + 1) / 2)] }'
