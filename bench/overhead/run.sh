#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh — overhead benchmark of the measurement runtime (issue #6). Runs a
# set of fixed-work workloads natively (A) and under hpcrun-comm at default
# settings (B), interleaved (A B, then B A, ...) so slow drifts of the
# machine's load hit both sides alike, and prints Markdown tables (the format
# of doc/performance.md, "Runtime overhead"):
#   1. per workload: median wall time A and B, median ratio, worst ratio
#      (slowest B run / median A), min ratio (fastest B / fastest A: the
#      least disturbed runs), CPU-time (user + sys) ratio, peak RSS ratio, and the
#      runtime's own counters from its log: samples per second, handler cost
#      median/p99, watchpoint arms and traps;
#   2. overhead vs the sampling period (-e COMM@P, 100 us .. 5 ms);
#   3. overhead vs the thread count (1 .. 16 threads, fixed total work);
#   4. the fixed cost of a run (launcher, set-up, profile writing) vs threads;
#   5. the pure per-sample work (decode, detection) warm and cold
#      (handler_path.c; also the way to run it under callgrind);
#   6. the cost of the watchpoint re-arm sequences (watch_cost.c);
#   7. oversubscription: OpenMP and pthread-barrier programs with 2x and 4x
#      as many threads as CPUs (libgomp's default wait policy), and LULESH
#      when LULESH=/path/to/lulesh2.0 (built with -fopenmp) is set.
# Workloads: the microbenchmarks (bench/kernels/comm_work.c: comm_bench's
# patterns with fixed work), OpenMP kernels (stencil, reduction, histogram)
# and real multithreaded programs from Debian (pigz, zstd -T2, xz -T2) on a
# generated text-like input. Timing is never a pass/fail test: this only
# reports.
#
#   bench/overhead/run.sh [--quick] [-n RUNS] [-e EVENT] [--workload 'LABEL=COMMAND']...
#                         [--only main|custom|period|threads|startup|handler|watch|oversub]
#                         BUILDDIR [WORKDIR]
# --workload: one more row of the main table, your own program, measured
#   the same way (COMMAND is split as the shell would; it must do a fixed
#   amount of work and write nothing you need: stdout goes to /dev/null).
#   Repeatable. --only custom: the main table with only these rows.
# --quick: 3 runs, fewer workloads and sweep points (~2 min);
# default: 5 runs of workloads of 1-3 s each (~10 min on an idle machine).
# -e EVENT: measure with `-e EVENT` instead of the default (the main table).
# QUIET_WAIT / QUIET_MAX (environment): the quiet-machine gate, see wait_quiet.
# WORKDIR (default /tmp/hc-bench-overhead) receives the built workloads, the
# measurement directories of the last run of each kind, results.md and the
# .dat files that plot.sh draws.
set -eu

runs=5 quick=0 only="" event=""
custom=()
quiet_wait=${QUIET_WAIT:-0} quiet_max=${QUIET_MAX:-2}
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1; runs=3; shift ;;
	-n) runs=$2; shift 2 ;;
	-e) event=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--workload)
		case ${2:-} in
		?*=?*) custom+=("$2") ;;
		*) echo "run.sh: --workload wants LABEL=COMMAND, got '${2:-}'" >&2; exit 2 ;;
		esac
		shift 2 ;;
	-h|--help) sed -n '3,37p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
build=${1:?usage: run.sh [--quick] [-n RUNS] BUILDDIR [WORKDIR]}
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${2:-${TMPDIR:-/tmp}/hc-bench-overhead}
hpcrun="$build/hpcrun-comm/hpcrun-comm"

test -x "$hpcrun" || { echo "run.sh: $hpcrun not built (make in $build)" >&2; exit 1; }
case $only in
""|main|custom|period|threads|startup|handler|watch|oversub) ;;
*) echo "run.sh: --only: unknown part '$only' (main, custom, period, threads, startup, handler, watch, oversub)" >&2; exit 2 ;;
esac
if [ "$only" = custom ] && [ ${#custom[@]} -eq 0 ]; then
	echo "run.sh: --only custom needs at least one --workload 'LABEL=COMMAND'" >&2; exit 2
fi
for c in "${custom[@]}"; do
	eval "w=(${c#*=})"
	command -v "${w[0]}" >/dev/null || { echo "run.sh: --workload '${c%%=*}': '${w[0]}' is not a command" >&2; exit 2; }
done

for p in pigz zstd xz; do
	command -v $p >/dev/null || { echo "run.sh: $p missing (scripts/install-deps.sh)" >&2; exit 1; }
done
mkdir -p "$work"
work=$(cd "$work" && pwd)
bin="$work/bin"
mkdir -p "$bin"
cc -O2 -g -pthread -o "$bin/comm_work" "$src/bench/kernels/comm_work.c"
for k in stencil reduction histogram; do
	cc -O2 -g -fopenmp -o "$bin/$k" "$src/bench/kernels/$k.c"
done
cc -O2 -g -pthread -o "$bin/acc_stencil" "$src/bench/accuracy/programs/stencil.c" "$src/bench/accuracy/programs/work.c"
cc -O2 -o "$bin/geninput" "$src/bench/overhead/geninput.c"
cc -O2 -o "$bin/runstat" "$src/bench/overhead/runstat.c"
cc -O2 -I"$src/include" -I"$src/lib" -I"$build" -o "$bin/watch_cost" "$src/bench/overhead/watch_cost.c" \
   "$build/lib/probe/libhcprobe.a" "$build/lib/pmu/libhcpmu.a" -ldl -lpthread
cc -O2 -g -D_GNU_SOURCE -I"$src/include" -I"$src/lib" -I"$build" -o "$bin/handler_path" \
   "$src/bench/overhead/handler_path.c" "$src/lib/runtime/loadmap.c" "$build/lib/decode/libhcdecode.a" \
   "$build/lib/detect/libhcdetect.a" "$build/lib/support/libhcsupport.a" -lZydis -lpthread
test -s "$work/input-8m.txt" || "$bin/geninput" 8 >"$work/input-8m.txt"
test -s "$work/input-32m.txt" || "$bin/geninput" 32 >"$work/input-32m.txt"
in="$work/input-8m.txt" in32="$work/input-32m.txt"
# libgomp spins at barriers by default; on a shared 2-CPU machine a spinning
# thread whose partner was descheduled by someone else's job makes the same
# stencil take 3-8 s instead of 1 s, natively. Passive waiting keeps the
# kernels' times about the measurement, not the neighbours.
export OMP_NUM_THREADS=2 OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}

# ---- waiting for a quiet machine ---------------------------------------------
# The machine is shared: before each A/B pair, wait (at most QUIET_WAIT s;
# default 0 = never; 20 is good on a shared machine) until /proc/stat's
# procs_running stays <= QUIET_MAX (default 2: the sampling awk itself and
# one stray task) over 5 looks 100 ms apart. The notes count the pairs that
# started without a quiet machine.
quiet_ok=0 quiet_timeout=0
wait_quiet() {
	local t0 busy
	[ "$quiet_wait" -gt 0 ] || return 0
	t0=$(date +%s)
	while :; do
		busy=$(for k in 1 2 3 4 5; do awk '/^procs_running/ { print $2 }' /proc/stat; sleep 0.1; done | sort -n | tail -n 1)
		if [ "$busy" -le "$quiet_max" ]; then quiet_ok=$((quiet_ok + 1)); return 0; fi
		if [ $(( $(date +%s) - t0 )) -ge "$quiet_wait" ]; then quiet_timeout=$((quiet_timeout + 1)); return 0; fi
	done
}

# ---- one run -------------------------------------------------------------
# run_one OUT MDIR CMD...: run CMD (natively if MDIR is "-", else under
# hpcrun-comm into MDIR), append "wall user sys maxrss_kb nvcsw nivcsw" to OUT (runstat.c:
# microsecond times and peak RSS from wait4; the launcher execs the program,
# so a measured run's peak RSS includes the launcher's own).
run_one() {
	local out=$1 mdir=$2 tf="$work/time.txt"
	shift 2
	rm -f "$tf"
	if [ "$mdir" = - ]; then
		"$bin/runstat" "$tf" "$@" >/dev/null 2>"$work/stderr.txt"
	else
		rm -rf "$mdir"
		"$bin/runstat" "$tf" "$hpcrun" ${EV:+-e "$EV"} -o "$mdir" "$@" >/dev/null 2>"$work/stderr.txt"
	fi || { echo "run.sh: failed: $*" >&2; cat "$work/stderr.txt" >&2; exit 1; }
	cat "$tf" >>"$out"
}

# counters MDIR: "samples median_ns p99_ns armed traps threads" summed over
# the process logs of MDIR (handler cost: the log with the most samples).
counters() {
	awk '
	$1 == "counter" && $2 == "samples" { s += $3 }
	$1 == "counter" && $2 == "watch_armed" { a += $3 }
	$1 == "counter" && $2 == "traps" { t += $3 }
	/^threads measured:/ { th += $3 }
	/^handler cost:/ {
		for (i = 1; i < NF; i++) {
			if ($i == "median") m = $(i + 1)
			if ($i == "p99") q = $(i + 1)
			if ($i == "(sample") n = $(i + 2) + 0
		}
		if (n >= best) { best = n; med = m; p99 = q }
	}
	END { printf "%d %d %d %d %d %d\n", s, med, p99, a, t, th }' "$1"/*.log
}

# hmean MDIR: the sample handler's mean cost in ns over all the processes'
# samples (counter handler_ns; 0 from a runtime without it)
hmean() {
	awk '$1 == "counter" && $2 == "samples" { s += $3 }
	     $1 == "counter" && $2 == "handler_ns" { h += $3 }
	     END { printf "%d\n", (s > 0 ? h / s : 0) }' "$1"/*.log
}

# ---- statistics over the collected files -----------------------------------
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '{ print $c }' "$2"; }
cpu() { awk '{ print $2 + $3 }' "$1"; }

# pair NAME CMD...: RUNS interleaved A/B runs of CMD; files in $work/r/NAME.*
pair() {
	local name=$1 r
	shift
	rm -f "$work/r/$name".*
	for r in $(seq 1 "$runs"); do
		wait_quiet
		if [ $((r % 2)) = 1 ]; then
			run_one "$work/r/$name.A" - "$@"
			run_one "$work/r/$name.B" "$work/m/$name" "$@"
		else
			run_one "$work/r/$name.B" "$work/m/$name" "$@"
			run_one "$work/r/$name.A" - "$@"
		fi
		# per-run rate: samples / wall of that B run
		echo "$(counters "$work/m/$name") $(tail -n 1 "$work/r/$name.B" | cut -d' ' -f1) $(hmean "$work/m/$name")" >>"$work/r/$name.C"
	done
}

# row NAME LABEL: one Markdown row of the main table (threads: measured by
# the runtime, main thread included)
row() {
	local n="$work/r/$1" label=$2 a b worst mina minb ca cb ra rb
	a=$(col 1 "$n.A" | median); b=$(col 1 "$n.B" | median)
	mina=$(col 1 "$n.A" | sort -g | head -n 1); minb=$(col 1 "$n.B" | sort -g | head -n 1)
	worst=$(col 1 "$n.B" | sort -g | tail -n 1)
	ca=$(cpu "$n.A" | median); cb=$(cpu "$n.B" | median)
	ra=$(col 4 "$n.A" | median); rb=$(col 4 "$n.B" | median)
	awk -v label="$label" -v a="$a" -v b="$b" -v w="$worst" -v ma="$mina" -v mb="$minb" -v ca="$ca" -v cb="$cb" \
	    -v ra="$ra" -v rb="$rb" '
	function med(x, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
		return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
	}
	{ k++; sps[k] = ($7 > 0 ? $1 / $7 : 0); hm[k] = $2; hp[k] = $3; arm[k] = $4; tr[k] = $5; th[k] = $6; hmn[k] = $8 }
	END {
		printf "| %s | %d | %.2f | %.2f | **%.3f** | %.3f | %.3f | %.3f | %.1f | %.2f | %.0f | %.0f / %.0f / %.0f | %.0f | %.0f |\n",
		       label, med(th, k), a, b, (a > 0 ? b / a : 0), (a > 0 ? w / a : 0), (ma > 0 ? mb / ma : 0), (ca > 0 ? cb / ca : 0),
		       ra / 1024, (ra > 0 ? rb / ra : 0), med(sps, k), med(hm, k), med(hmn, k), med(hp, k),
		       med(arm, k), med(tr, k)
	}' "$n.C" | tee -a "$work/results.md"
}

mkdir -p "$work/r" "$work/m"
[ -n "$only" ] || : >"$work/results.md"
note() { echo "$*" | tee -a "$work/results.md"; }

note "Load before: $(uptime | sed 's/.*load average/load average/'); $(nproc) CPUs; runs per side: $runs; $(date -u +%Y-%m-%dT%H:%MZ)"

# ---- 1. the workload set ---------------------------------------------------
if [ -z "$only" ] || [ "$only" = main ] || [ "$only" = custom ]; then
	EV=$event
	note ""
	note "Main table (event: ${event:-default}):"
	note ""
	note "| workload | threads | native s | measured s | median ratio | worst ratio | min ratio | CPU ratio | native RSS MB | RSS ratio | samples/s | handler median / mean / p99 ns | arms | traps |"
	note "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
	W="$bin/comm_work"
	if [ "$only" = custom ]; then
		:
	elif [ $quick = 1 ]; then
		pair private "$W" private -t 2 -n 300; row private "micro private"
		pair false "$W" false 0.5 -t 2 -n 60; row false "micro false 0.5"
		pair stencil "$bin/stencil" 1024 200; row stencil "omp stencil"
		pair pigz pigz -p 2 -c "$in"; row pigz "pigz -p 2"
		pair zstd zstd -q -T2 -B2MiB -9 -c "$in"; row zstd "zstd -T2"
	else
		pair private "$W" private -t 2 -n 1000; row private "micro private"
		pair pairs "$W" pairs -t 2 -n 500; row pairs "micro pairs"
		pair false "$W" false 0.5 -t 2 -n 250; row false "micro false 0.5"
		pair sharing "$W" sharing 0.5 -t 2 -n 400; row sharing "micro sharing 0.5"
		pair readwrite "$W" readwrite 0.5 -t 2 -n 400; row readwrite "micro readwrite 0.5"
		pair stencil "$bin/stencil" 1024 2000; row stencil "omp stencil"
		pair reduction "$bin/reduction" 4000000 500; row reduction "omp reduction"
		pair histogram "$bin/histogram" 8000000 150; row histogram "omp histogram"
		pair pigz pigz -p 2 -c "$in32"; row pigz "pigz -p 2"
		pair zstd zstd -q -T2 -B2MiB -12 -c "$in32"; row zstd "zstd -T2"
		pair xz xz -T2 -1 -c "$in32"; row xz "xz -T2"
	fi
	i=0
	for c in "${custom[@]}"; do
		i=$((i + 1))
		eval "w=(${c#*=})"
		pair "custom$i" "${w[@]}"; row "custom$i" "${c%%=*}"
	done
	EV=
fi

# ---- 2. overhead vs the sampling period ------------------------------------
# sweep NAME VALUES CMD...: per rep, one native run and one run per period,
# in rotated order; prints one row per period.
if [ -z "$only" ] || [ "$only" = period ]; then
	if [ $quick = 1 ]; then periods="100000 500000 5000000"; else periods="100000 200000 500000 1000000 2000000 5000000"; fi
	note ""
	note "Overhead vs sampling period (median ratio to native; samples/s of the measured runs):"
	note ""
	note "| workload | period µs | median ratio | CPU ratio | samples/s | handler median ns | extra CPU per sample µs |"
	note "|---|--:|--:|--:|--:|--:|--:|"
	: >"$work/period.dat"
	for wl in private stencil; do
		case $wl in
		private) cmd=("$bin/comm_work" private -t 2 -n 500) ;;
		stencil) cmd=("$bin/stencil" 1024 1000) ;;
		esac
		rm -f "$work/r/p-$wl".* "$work/r/p-$wl.fit"
		for r in $(seq 1 "$runs"); do
			list="native $periods"
			# rotate the order by the rep number
			set -- $list
			for k in $(seq 1 $(( (r - 1) % $# ))); do set -- "${@:2}" "$1"; done
			for p in "$@"; do
				wait_quiet
				if [ "$p" = native ]; then
					run_one "$work/r/p-$wl.A" - "${cmd[@]}"
				else
					EV="COMM@$p"
					run_one "$work/r/p-$wl.$p" "$work/m/p-$wl-$p" "${cmd[@]}"
					echo "$(counters "$work/m/p-$wl-$p") $(tail -n 1 "$work/r/p-$wl.$p" | cut -d' ' -f1)" >>"$work/r/p-$wl.$p.C"
					EV=
				fi
			done
		done
		a=$(col 1 "$work/r/p-$wl.A" | median); ca=$(cpu "$work/r/p-$wl.A" | median)
		for p in $periods; do
			b=$(col 1 "$work/r/p-$wl.$p" | median); cb=$(cpu "$work/r/p-$wl.$p" | median)
			sps=$(awk '{ print ($7 > 0 ? $1 / $7 : 0) }' "$work/r/p-$wl.$p.C" | median)
			hm=$(col 2 "$work/r/p-$wl.$p.C" | median)
			ns=$(col 1 "$work/r/p-$wl.$p.C" | median)
			awk -v wl="$wl" -v p="$p" -v a="$a" -v b="$b" -v ca="$ca" -v cb="$cb" -v s="$sps" -v h="$hm" -v ns="$ns" \
			    'BEGIN { printf "| %s | %g | **%.3f** | %.3f | %.0f | %.0f | %.1f |\n", wl, p / 1000, b / a, cb / ca, s, h,
			             (ns > 0 ? (cb - ca) / ns * 1e6 : 0) }' |
				tee -a "$work/results.md"
			echo "$wl $((p / 1000)) $(awk -v a="$a" -v b="$b" -v ca="$ca" -v cb="$cb" 'BEGIN { print b / a, cb / ca }')" >>"$work/period.dat"
			echo "$ns $(awk -v ca="$ca" -v cb="$cb" 'BEGIN { print cb - ca }')" >>"$work/r/p-$wl.fit"
		done
	done
	# extra CPU time = fixed + per-sample x samples: least squares over the periods
	note ""
	for wl in private stencil; do
		awk -v wl="$wl" '{ n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
		     END { d = n * sxx - sx * sx; if (n < 2 || d == 0) exit
		           b = (n * sxy - sx * sy) / d; a = (sy - b * sx) / n
		           printf "Fit %s: extra CPU = %.1f ms + %.1f µs per sample\n", wl, a * 1e3, b * 1e6 }' \
			"$work/r/p-$wl.fit" | tee -a "$work/results.md"
	done
fi

# ---- 3. overhead vs the thread count (2 CPUs) ------------------------------
if [ -z "$only" ] || [ "$only" = threads ]; then
	if [ $quick = 1 ]; then counts="1 4 16"; else counts="1 2 4 8 16"; fi
	note ""
	note "Overhead vs thread count, fixed total work, $(nproc) CPUs (median ratio to native):"
	note ""
	note "| workload | threads | native s | measured s | median ratio | CPU ratio | RSS native MB | RSS ratio | samples/s |"
	note "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
	: >"$work/threads.dat"
	for wl in private sharing; do
		for t in $counts; do
			case $wl in
			private) pair "t-$wl-$t" "$bin/comm_work" private -t "$t" -n 500 ;;
			sharing) pair "t-$wl-$t" "$bin/comm_work" sharing 0.5 -t "$t" -n 200 ;;
			esac
			n="$work/r/t-$wl-$t"
			a=$(col 1 "$n.A" | median); b=$(col 1 "$n.B" | median)
			ca=$(cpu "$n.A" | median); cb=$(cpu "$n.B" | median)
			ra=$(col 4 "$n.A" | median); rb=$(col 4 "$n.B" | median)
			sps=$(awk '{ print ($7 > 0 ? $1 / $7 : 0) }' "$n.C" | median)
			awk -v wl="$wl" -v t="$t" -v a="$a" -v b="$b" -v ca="$ca" -v cb="$cb" -v ra="$ra" -v rb="$rb" -v s="$sps" \
			    'BEGIN { printf "| %s | %d | %.2f | %.2f | **%.3f** | %.3f | %.1f | %.2f | %.0f |\n", wl, t, a, b, b / a, cb / ca, ra / 1024, rb / ra, s }' |
				tee -a "$work/results.md"
			echo "$wl $t $(awk -v a="$a" -v b="$b" -v ca="$ca" -v cb="$cb" -v ra="$ra" -v rb="$rb" 'BEGIN { print b / a, cb / ca, rb / ra }')" >>"$work/threads.dat"
		done
	done
fi

# ---- 4. fixed cost: start-up and exit of a process with N threads -----------
# A near-empty run (10^4 iterations in all) natively and measured, interleaved;
# the difference is what the launcher, the runtime's set-up per process and
# per thread, and the profile writing at exit cost.
if [ -z "$only" ] || [ "$only" = startup ]; then
	if [ $quick = 1 ]; then counts="1 16"; k=10; else counts="1 2 4 8 16"; k=20; fi
	note ""
	note "Fixed cost per run: a near-empty comm_work run ($k interleaved runs per side, medians):"
	note ""
	note "| threads | native ms | measured ms | extra wall ms | extra CPU ms | native RSS MB | measured RSS MB |"
	note "|--:|--:|--:|--:|--:|--:|--:|"
	for t in $counts; do
		rm -f "$work/r/s-$t".*
		for r in $(seq 1 "$k"); do
			[ $((r % 5)) != 1 ] || wait_quiet
			run_one "$work/r/s-$t.A" - "$bin/comm_work" private -t "$t" -n 0.01
			run_one "$work/r/s-$t.B" "$work/m/s-$t" "$bin/comm_work" private -t "$t" -n 0.01
		done
		a=$(col 1 "$work/r/s-$t.A" | median); b=$(col 1 "$work/r/s-$t.B" | median)
		ca=$(cpu "$work/r/s-$t.A" | median); cb=$(cpu "$work/r/s-$t.B" | median)
		ra=$(col 4 "$work/r/s-$t.A" | median); rb=$(col 4 "$work/r/s-$t.B" | median)
		awk -v t="$t" -v a="$a" -v b="$b" -v ca="$ca" -v cb="$cb" -v ra="$ra" -v rb="$rb" \
		    'BEGIN { printf "| %d | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f |\n", t, a * 1e3, b * 1e3, (b - a) * 1e3, (cb - ca) * 1e3, ra / 1024, rb / 1024 }' |
			tee -a "$work/results.md"
	done
fi

# ---- 5. the pure per-sample work, warm and cold (handler_path.c) -----------
if [ -z "$only" ] || [ "$only" = handler ]; then
	note ""
	note "Per-sample work of the pure modules (decode, detection) on a synthetic sample:"
	note ""
	note '```'
	"$bin/handler_path" 200000 | tee -a "$work/results.md"
	"$bin/handler_path" 3000 cold | tee -a "$work/results.md"
	note '```'
fi

# ---- 6. watchpoint re-arm sequences (bench/overhead/watch_cost.c) ----------
if [ -z "$only" ] || [ "$only" = watch ]; then
	note ""
	note "Watchpoint arm/disarm cost, D = 4 and D = 1 (median / p90 ns, this thread only):"
	note ""
	note '```'
	"$bin/watch_cost" 20000 4 | tee -a "$work/results.md"
	"$bin/watch_cost" 20000 1 | tee -a "$work/results.md"
	note '```'
fi

# ---- 7. oversubscription ----------------------------------------------------
# More threads than CPUs: threads block at every barrier, so they are
# switched in and out thousands of times per second (doc/performance.md,
# "Oversubscription"). libgomp's default wait policy, as a user runs it.
if [ -z "$only" ] || [ "$only" = oversub ]; then
	ncpu=$(nproc)
	note ""
	note "Oversubscription ($ncpu CPUs, OMP_WAIT_POLICY unset):"
	note ""
	note "| workload | threads | native s | measured s | median ratio | worst ratio | min ratio | CPU ratio | native RSS MB | RSS ratio | samples/s | handler median / mean / p99 ns | arms | traps |"
	note "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
	for x in 2 4; do
		n=$((x * ncpu))
		( unset OMP_WAIT_POLICY; export OMP_NUM_THREADS=$n
		  pair "o-omp-$n" "$bin/stencil" 1024 1000; row "o-omp-$n" "omp stencil ${x}x"
		  pair "o-acc-$n" "$bin/acc_stencil" "$n" 4; row "o-acc-$n" "barrier stencil ${x}x"
		  if [ -n "${LULESH:-}" ]; then
			pair "o-lulesh-$n" "$LULESH" -s 15 -i 150 -q; row "o-lulesh-$n" "LULESH -s 15 ${x}x"
		  fi )
	done
fi

note ""
note "Load after: $(uptime | sed 's/.*load average/load average/'); quiet-machine gate: $quiet_ok runs started quiet, $quiet_timeout after waiting ${quiet_wait} s in vain"
echo "results: $work/results.md"
