#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh — what hpcrun-comm adds to a thread's creation and exit (issue #8:
# at most 50 µs per thread for creation). Runs thread_bench natively and
# measured, interleaved (A B, B A, ...) so that the machine's load drifts
# hit both, with the measurement directory on tmpfs (/dev/shm) so that the
# file system's create cost does not dominate the exit figure, and with
# both threads of a create/join pair pinned to one CPU (taskset) so that
# cross-CPU wake-ups on a loaded VM do not either. Prints a Markdown table of
# the medians over the runs of each figure (native, measured, added).
# Timing is never a pass/fail test: this only reports.
#   bench/threads/run.sh [-n RUNS] [-t THREADS] [-x 'NAME VAR=VALUE...']... BUILDDIR [WORKDIR]
# Each -x adds a measured variant run with those environment variables (in
# the same interleaved rounds), e.g. the per-thread sampler
# (-x 'perthread HPCRUN_COMM_SAMPLER_PER_THREAD=1') or another build's
# runtime (-x 'old HPCRUN_COMM_RUNTIME=/path/libhpcrun-comm.so').
set -eu
runs=5 threads=3000
variants=()
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-t) threads=$2; shift 2 ;;
	-x) variants+=("$2"); shift 2 ;;
	-h|--help) sed -n '3,17p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
build=$(cd "${1:?usage: run.sh [-n RUNS] [-t THREADS] [-x 'NAME VAR=VALUE...'] BUILDDIR [WORKDIR]}" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${2:-${TMPDIR:-/tmp}/hc-bench-threads}
hpcrun="$build/hpcrun-comm/hpcrun-comm"
test -x "$hpcrun" || { echo "run.sh: $hpcrun not built" >&2; exit 1; }
mkdir -p "$work"
work=$(cd "$work" && pwd)
cc -O2 -g -pthread -o "$work/thread_bench" "$src/bench/threads/thread_bench.c"
mdir=/dev/shm/hc-bench-threads.$$
[ -d /dev/shm ] || mdir="$work/m"
cpu=$(( $(nproc) - 1 ))
names=(native measured)
envs=("" "")
for v in "${variants[@]}"; do
	names+=("${v%% *}")
	envs+=("$(echo "$v" | cut -s -d' ' -f2-)")
done
for n in "${names[@]}"; do : >"$work/$n.txt"; done
one() { # index into names/envs
	local name=${names[$1]} env=${envs[$1]}
	if [ "$name" = native ]; then
		taskset -c $cpu "$work/thread_bench" -n "$threads" >>"$work/native.txt"
	else
		rm -rf "$mdir"
		# shellcheck disable=SC2086  # env is a list of VAR=VALUE words
		env $env taskset -c $cpu "$hpcrun" -o "$mdir" "$work/thread_bench" -n "$threads" 2>/dev/null >>"$work/$name.txt"
		rm -rf "$mdir"
	fi
}
nv=${#names[@]}
for r in $(seq 1 "$runs"); do
	# rotate the order every round so that no variant always runs first
	for k in $(seq 0 $((nv - 1))); do
		one $(( (k + r) % nv ))
	done
done
# median over runs of each figure's per-run median (column 3) and p90 (column 6)
med() { grep "^$2 " "$work/$1.txt" | awk -v c="$3" '{ print $c }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
hdr="| figure (µs per thread, median of $runs runs of $threads threads) | native |"
sep="|---|---:|"
for n in "${names[@]:1}"; do hdr="$hdr $n | added |"; sep="$sep---:|---:|"; done
echo "$hdr"
echo "$sep"
for f in create call exit total; do
	for q in 3 6; do
		a=$(med native $f $q)
		line=$(printf '| %s %s | %.1f |' "$f" "$([ $q = 3 ] && echo median || echo p90)" "$a")
		for n in "${names[@]:1}"; do
			b=$(med "$n" $f $q)
			line="$line $(printf '%.1f | %.1f |' "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b - a }')")"
		done
		echo "$line"
	done
done
