#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mpi.sh — the MPI column of the hpcprof-comm scaling benchmark (run.sh is
# the threaded one): synthetic measurement directories (gen.c) merged by the
# sequential hpcprof-comm and by `mpirun -np R hpcprof-comm` for each R in
# RANKS, every rank under /usr/bin/time -v. Prints a Markdown table: wall
# time (around mpirun, launch included), CPU time of all ranks, peak RSS per
# rank (rank 0 and the largest other), the largest CPU time of another
# rank, and rank 0's phase CPU times (HC_DEBUG=time: read+combine+events,
# reduce, the object pass of its share + merging the others' objects, the
# rest), the bytes rank 0 received in each reduction (first round, region
# events by set, objects), then checks that
# every distributed database equals the sequential one (diff -r). Every
# rank's CPU time and peak RSS go to WORKDIR/ranks.log, every rank's
# phases (peak RSS after each) to WORKDIR/phases-THREADS-RANKS/.
#
#   bench/prof-scale/mpi.sh BUILDDIR [WORKDIR]
# Environment: SIZES = "threads:nodes:events[:threads_per_process[:hot]] ..."
#   (default "1024:10000:10000 100000:64:64:64:16"), RANKS (default "1 2 4"),
#   JOBS = threads per rank (default 1), KEEP=1 keeps the inputs.
# Needs an hpcprof-comm built with MPI (configure: mpi=yes) and mpirun.
set -eu

build=${1:?usage: mpi.sh BUILDDIR [WORKDIR]}
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${2:-${TMPDIR:-/tmp}/hc-prof-scale-mpi}
sizes=${SIZES:-"1024:10000:10000 100000:64:64:64:16"}
ranks=${RANKS:-"1 2 4"}
jobs=${JOBS:-1}
prog="$build/hpcprof-comm/hpcprof-comm"

test -x "$prog" || { echo "mpi.sh: $prog not built" >&2; exit 1; }
grep -q '^#define HC_HAVE_MPI 1' "$build/config.h" ||
	{ echo "mpi.sh: $prog was built without MPI (configure found no Open MPI)" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "mpi.sh: no mpirun (apt-get install openmpi-bin)" >&2; exit 1; }
test -x /usr/bin/time || { echo "mpi.sh: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPIRUN="$MPIRUN --allow-run-as-root"
mkdir -p "$work"
cc -O2 -std=gnu11 -I"$src/include" -o "$work/gen" "$src/bench/prof-scale/gen.c" \
   "$build/lib/prof/libhcprof.a" "$build/lib/support/libhcsupport.a" -lz

# timed NAME CMD...: one rank's (or the sequential run's) resources into $work/NAME.time
printf '#!/bin/sh\nt=$1; shift\nr=${OMPI_COMM_WORLD_RANK:-0}\nexec /usr/bin/time -v -o "$t.$r" "$@" 2>"$t.err.$r"\n' \
	>"$work/timed.sh"
chmod +x "$work/timed.sh"

field() { awk -F': ' -v k="$1" 'index($0, k) { print $2 }' "$2"; }
secs() { echo "$1" | awk -F: '{ if (NF == 3) print $1*3600+$2*60+$3; else print $1*60+$2 }'; }

echo "| threads | nodes/thread | events/thread | input MB | ranks | -j | wall s | CPU s (all ranks) | CPU s rank 0 | CPU s max other | peak RSS MB rank 0 | peak RSS MB max other | rank 0 CPU: read+events s | reduce s | objects s | rest s | MB merged by rank 0 | region events MB merged by rank 0 | objects MB merged by rank 0 | same DB |"
echo "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|"
for s in $sizes; do
	t=$(echo "$s" | cut -d: -f1); n=$(echo "$s" | cut -d: -f2)
	e=$(echo "$s" | cut -d: -f3); per=$(echo "$s" | cut -d: -f4); hot=$(echo "$s" | cut -d: -f5)
	per=${per:-64}; hot=${hot:-64}
	dir="$work/m-$t-$n-$e"
	if [ ! -d "$dir" ]; then
		"$work/gen" "$dir" "$t" "$n" "$e" "$per" "$hot" >/dev/null
	fi
	bytes=$(find "$dir" -name '*.hcprof' -printf '%s\n' | awk '{ s += $1 } END { print s }')
	find "$dir" -name '*.hcprof' -print0 | xargs -0 cat >/dev/null   # warm page cache
	for r in sequential $ranks; do
		rm -f "$work"/run.time.* "$work"/run.time.err.*
		# Written as one directory name and renamed: summary.txt names it.
		db="$work/db"
		rm -rf "$db" "$work/db-$r"
		start=$(date +%s.%N)
		if [ "$r" = sequential ]; then
			HC_DEBUG=time "$work/timed.sh" "$work/run.time" "$prog" -q -j "$jobs" -o "$db" "$dir"
			np=1
		else
			HC_DEBUG=time $MPIRUN -np "$r" -x HC_DEBUG "$work/timed.sh" "$work/run.time" \
				"$prog" -q -j "$jobs" -o "$db" "$dir"
			np=$r
		fi
		end=$(date +%s.%N)
		cpu=0; rss0=0; rssmax=0; cpumax=0
		for k in $(seq 0 $((np - 1))); do
			f="$work/run.time.$k"
			c=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$f")
			m=$(field "Maximum resident set size" "$f")
			cpu=$(echo "$cpu $c" | awk '{ print $1 + $2 }')
			if [ "$k" = 0 ]; then rss0=$m; elif [ "$m" -gt "$rssmax" ]; then rssmax=$m; fi
			# every rank's figures, for the record
			echo "threads $t, ranks $r: rank $k: CPU $c s, peak RSS $((m / 1024)) MB" >>"$work/ranks.log"
			[ "$k" = 0 ] || cpumax=$(echo "$cpumax $c" | awk '{ print ($2 > $1 ? $2 : $1) }')
		done
		ph="$work/run.time.err.0"
		# phase lines "hpcprof-comm: time: NAME WALL s  cpu CPU s": rank 0's CPU seconds
		rd=$(awk '/^hpcprof-comm: time: (scan|read|combine|regions|events) / { s += $(NF - 1) } END { print s + 0 }' "$ph")
		rdc=$(awk '/^hpcprof-comm: time: reduce / { s += $(NF - 1) } END { print s + 0 }' "$ph")
		# the object pass (and phases, locality) of rank 0's share, and merging the others' results
		obj=$(awk '/^hpcprof-comm: time: (objects|obj\. reduce) / { s += $(NF - 1) } END { print s + 0 }' "$ph")
		rest=$(awk -v a="$rd" -v b="$rdc" -v o="$obj" '/^hpcprof-comm: time: / { s += $(NF - 1) } END { print s - a - b - o }' "$ph")
		cpu0=$(awk -F': ' '/User time|System time/ { s += $2 } END { print s }' "$work/run.time.0")
		bytes0=$(sed -n "s/.*merged \([0-9]*\) bytes from.*/\1/p" "$ph" | awk "{ s += \$1 } END { print s + 0 }")
		obytes0=$(sed -n "s/.*merged \([0-9]*\) bytes of objects.*/\1/p" "$ph" | awk "{ s += \$1 } END { print s + 0 }")
		rbytes0=$(sed -n "s/.*merged \([0-9]*\) bytes of region events.*/\1/p" "$ph" | awk "{ s += \$1 } END { print s + 0 }")
		# every rank's phases (HC_DEBUG=time: wall, peak RSS so far, CPU), for the record
		mkdir -p "$work/phases-$t-$r" && cp "$work"/run.time.err.* "$work/phases-$t-$r/"
		mv "$db" "$work/db-$r"
		db="$work/db-$r"
		same=yes
		diff -r "$work/db-sequential" "$db" >/dev/null 2>&1 || same=NO
		[ "$r" = sequential ] && rl="1 (no MPI)" || rl=$r
		awk -v b="$bytes" -v w="$(echo "$start $end" | awk '{ print $2 - $1 }')" -v c="$cpu" \
		    -v t="$t" -v n="$n" -v e="$e" -v r="$rl" -v j="$jobs" -v r0="$rss0" -v rm="$rssmax" \
		    -v rd="$rd" -v rdc="$rdc" -v rest="$rest" -v same="$same" -v c0="$cpu0" -v mb="$bytes0" \
		    -v cm="$cpumax" -v ob="$obj" -v omb="$obytes0" -v rmb="$rbytes0" 'BEGIN {
			printf "| %d | %d | %d | %.0f | %s | %d | %.2f | %.2f | %.2f | %s | %.0f | %s | %.2f | %.2f | %.2f | %.2f | %.1f | %.1f | %.1f | %s |\n",
			       t, n, e, b / 1e6, r, j, w, c, c0, (cm > 0 ? sprintf("%.2f", cm) : "–"), r0 / 1024,
			       (rm > 0 ? sprintf("%.0f", rm / 1024) : "–"), rd, rdc, ob, rest, mb / 1e6, rmb / 1e6, omb / 1e6, same }'
		[ "$r" = sequential ] || rm -rf "$db"
	done
	rm -rf "$work/db-sequential"
	test "${KEEP:-0}" = 1 || rm -rf "$dir"
done
