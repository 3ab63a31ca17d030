#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# compare.sh — allocation-tracking cost of two builds side by side (issue
# #4; doc/performance.md, "Allocation tracking"): malloc_bench natively (A)
# and under each build's hpcrun-comm with tracking off (B) and at defaults
# (C), the five configurations interleaved in a rotating order, so that the
# machine's load drifts hit all of them alike. Prints the median and the
# minimum CPU ns per operation of each, C/B of both builds and C(new)/C(old).
# Timing is never a pass/fail test: this only reports.
#
#   bench/malloc/compare.sh [-n RUNS] OLDBUILD NEWBUILD [MALLOC_BENCH ARGS...]
# RUNS (default 9); the arguments default to the default row of run.sh
# (-t 2 -n 50000 -r 120: 120 short rounds, see run.sh).
set -eu

runs=9
if [ "${1:-}" = -n ]; then runs=$2; shift 2; fi
old=$(cd "${1:?usage: compare.sh [-n RUNS] OLDBUILD NEWBUILD [ARGS...]}" && pwd)
new=$(cd "${2:?usage: compare.sh [-n RUNS] OLDBUILD NEWBUILD [ARGS...]}" && pwd)
shift 2
[ $# -gt 0 ] || set -- -t 2 -n 50000 -r 120
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${TMPDIR:-/tmp}/hc-bench-malloc-compare
rm -rf "$work" && mkdir -p "$work/r"
cc -O2 -g -pthread -o "$work/malloc_bench" "$src/bench/malloc/malloc_bench.c"

one() {   # CONFIG: one run, its CPU ns/op appended to $work/r/CONFIG
	local out
	case $1 in
	Bold) out=$("$old/hpcrun-comm/hpcrun-comm" --min-alloc 4611686018427387904 -o "$work/m" "$work/malloc_bench" "${args[@]}" 2>/dev/null) ;;
	Cold) out=$("$old/hpcrun-comm/hpcrun-comm" -o "$work/m" "$work/malloc_bench" "${args[@]}" 2>/dev/null) ;;
	Bnew) out=$("$new/hpcrun-comm/hpcrun-comm" --min-alloc 4611686018427387904 -o "$work/m" "$work/malloc_bench" "${args[@]}" 2>/dev/null) ;;
	Cnew) out=$("$new/hpcrun-comm/hpcrun-comm" -o "$work/m" "$work/malloc_bench" "${args[@]}" 2>/dev/null) ;;
	esac
	rm -rf "$work/m"
	echo "$out" | sed -n 's/.*cpu \([0-9.]*\) ns\/op.*/\1/p' >>"$work/r/$1"
}

args=("$@")
order=(A Bold Cold Bnew Cnew)
for r in $(seq 1 "$runs"); do
	for i in 0 1 2 3 4; do
		c=${order[$(( (i + r) % 5 ))]}
		if [ "$c" = A ]; then
			"$work/malloc_bench" "${args[@]}" | sed -n 's/.*cpu \([0-9.]*\) ns\/op.*/\1/p' >>"$work/r/A"
		else
			one "$c"
		fi
	done
done
stat() { sort -g "$work/r/$1" | awk '{ v[NR] = $1 } END { printf "%s %s", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, v[1] }'; }
for c in A Bold Cold Bnew Cnew; do echo "$c $(stat $c)"; done | awk '
	{ med[$1] = $2; min[$1] = $3 }
	END {
		printf "%d runs of malloc_bench %s (CPU ns per operation)\n", '"$runs"', "'"${args[*]}"'"
		printf "| | A | B old | C old | B new | C new | C/B old | C/B new | C new / C old |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
		printf "| median | %.1f | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f |\n", med["A"], med["Bold"], med["Cold"], med["Bnew"], med["Cnew"], med["Cold"] / med["Bold"], med["Cnew"] / med["Bnew"], med["Cnew"] / med["Cold"]
		printf "| minimum | %.1f | %.1f | %.1f | %.1f | %.1f | %.3f | %.3f | %.3f |\n", min["A"], min["Bold"], min["Cold"], min["Bnew"], min["Cnew"], min["Cold"] / min["Bold"], min["Cnew"] / min["Bnew"], min["Cnew"] / min["Cold"]
	}'
