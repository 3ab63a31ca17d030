#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# run.sh — hpcprof-comm scaling benchmark. Builds the generator (gen.c)
# against the build tree's libhcprof.a, writes synthetic measurement
# directories of growing size, runs hpcprof-comm on each with 1 and with all
# CPUs under /usr/bin/time -v, and prints input size, wall and CPU time, MB/s
# of input per wall second, MB/s per core (input / CPU seconds, which stays
# meaningful on a loaded machine) and peak RSS as a Markdown table (the format
# of doc/performance.md).
#
#   bench/prof-scale/run.sh BUILDDIR [WORKDIR]
# Environment: SIZES = "threads:nodes:events[:hot] ..." (default: 256, 512 and
#   1024 threads with 10^4 nodes, 10^4 events and 64 hot sites each; hot 0 =
#   every event a new code pair), JOBS = "1 N" (default: 1 and the online
#   CPUs), KEEP=1 keeps the generated directories.
set -eu

build=${1:?usage: run.sh BUILDDIR [WORKDIR]}
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${2:-${TMPDIR:-/tmp}/hc-prof-scale}
sizes=${SIZES:-"256:10000:10000 512:10000:10000 1024:10000:10000"}
ncpu=$(getconf _NPROCESSORS_ONLN)
jobs=${JOBS:-"1 $ncpu"}
prog="$build/hpcprof-comm/hpcprof-comm"

test -x "$prog" || { echo "run.sh: $prog not built (make in $build)" >&2; exit 1; }
test -f "$build/lib/prof/libhcprof.a" || { echo "run.sh: libhcprof.a not built" >&2; exit 1; }
test -x /usr/bin/time || { echo "run.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
mkdir -p "$work"
cc -O2 -std=gnu11 -I"$src/include" -o "$work/gen" "$src/bench/prof-scale/gen.c" \
   "$build/lib/prof/libhcprof.a" "$build/lib/support/libhcsupport.a" -lz

echo "| threads | nodes/thread | events/thread | hot sites | input MB | -j | wall s | CPU s | MB/s (wall) | MB/s per core | peak RSS MB | C+S nodes | code pairs |"
echo "|--------:|-------------:|--------------:|----------:|---------:|---:|-------:|------:|------------:|--------------:|------------:|----------:|-----------:|"
for s in $sizes; do
	t=$(echo "$s" | cut -d: -f1); n=$(echo "$s" | cut -d: -f2)
	e=$(echo "$s" | cut -d: -f3); h=$(echo "$s" | cut -d: -f4)
	h=${h:-64}
	dir="$work/m-$t-$n-$e-$h"
	rm -rf "$dir"
	"$work/gen" "$dir" "$t" "$n" "$e" 64 "$h" >/dev/null
	bytes=$(cat "$dir"/*.hcprof | wc -c)
	cat "$dir"/*.hcprof >/dev/null   # warm page cache: measure the analyzer, not the disk
	for j in $jobs; do
		db="$work/db-$t-$n-$e-$h-$j"
		rm -rf "$db"
		/usr/bin/time -v "$prog" -q -j "$j" -o "$db" "$dir" 2>"$work/time.txt"
		wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt" |
		       awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }')
		rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
		cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {print s}' "$work/time.txt")
		nodes=$(grep -c '<[SC] i=' "$db/experiment.xml" || true)
		pairs=$(grep -c '<CP ' "$db/experiment.xml" || true)
		awk -v b="$bytes" -v w="$wall" -v c="$cpu" -v j="$j" -v r="$rss" -v t="$t" -v n="$n" \
		    -v e="$e" -v h="$h" -v nodes="$nodes" -v pairs="$pairs" 'BEGIN {
			mb = b / 1e6;
			printf "| %d | %d | %d | %d | %.0f | %d | %.2f | %.2f | %.0f | %.0f | %.0f | %s | %s |\n",
			       t, n, e, h, mb, j, w, c, (w > 0 ? mb / w : 0), (c > 0 ? mb / c : 0),
			       r / 1024, nodes, pairs }'
		rm -rf "$db"
	done
	test "${KEEP:-0}" = 1 || rm -rf "$dir"
done
