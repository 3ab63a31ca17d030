#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# rotate.sh — several configurations of one program, run in rotation (round
# r starts with configuration r mod N), so a shared machine's drifting load
# hits every configuration alike; prints each configuration's median CPU time
# (user + system, from runstat) and its ratio to the first configuration,
# with the runtime's samples and watchpoint sets per run (medians). What
# doc/performance.md "Session 9" was measured with: native against runtimes
# (HPCRUN_COMM_RUNTIME=...), options, or -e periods.
#
#   bench/overhead/rotate.sh [-n ROUNDS] [-q WAIT] BUILDDIR WORKDIR CONFIGS -- COMMAND [ARGS...]
#
# -q WAIT: before each run, wait (at most WAIT s) until /proc/stat's
# procs_running stays <= QUIET_MAX (default 2) over 5 looks 100 ms apart,
# as run.sh's QUIET_WAIT does: an oversubscribed program's cost depends on
# whether its threads switch to the idle task or to other programs
# (performance.md "Session 16"); the last line counts the runs that started
# quiet. Each run's line in WORKDIR/NAME.txt then ends with 1 (started
# quiet) or 0.
#
# CONFIGS: a file, one configuration a line, "NAME|ENV ASSIGNMENTS|native"
# or "NAME|ENV ASSIGNMENTS|hc|LAUNCHER OPTIONS", e.g.
#   native||native
#   empty|HC_BENCH_EMPTY_SAMPLES=1|hc
#   rare||hc|-e COMM@100000000
#   before|HPCRUN_COMM_RUNTIME=/tmp/main-build/libhpcrun-comm.so|hc
# Raw figures: WORKDIR/NAME.txt, one line per run: wall user sys maxrss_kb
# nvcsw nivcsw, then watch_armed ret_bp_armed samples summed over the logs.
set -euo pipefail

rounds=7 quiet_wait=0 quiet_max=${QUIET_MAX:-2} quiet_ok=0 quiet_timeout=0
while :; do
	case ${1:-} in
	-n) rounds=$2; shift 2 ;;
	-q) quiet_wait=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 5 ] || [ "$4" != -- ]; then
	echo "usage: rotate.sh [-n ROUNDS] BUILDDIR WORKDIR CONFIGS -- COMMAND [ARGS...]" >&2
	exit 2
fi
build=$(cd "$1" && pwd) work=$2 cfgfile=$3
shift 4
src=$(cd "$(dirname "$0")/../.." && pwd)
hpcrun="$build/hpcrun-comm/hpcrun-comm"
test -x "$hpcrun" || { echo "rotate.sh: $hpcrun not built" >&2; exit 1; }
test -r "$cfgfile" || { echo "rotate.sh: $cfgfile: cannot read the configurations" >&2; exit 1; }
mkdir -p "$work"
work=$(cd "$work" && pwd)
runstat="$work/runstat"
cc -O2 -o "$runstat" "$src/bench/overhead/runstat.c"
mapfile -t cfgs < <(grep -v '^[[:space:]]*\(#\|$\)' "$cfgfile")
n=${#cfgs[@]}
[ "$n" -ge 1 ] || { echo "rotate.sh: $cfgfile: no configuration" >&2; exit 1; }
for c in "${cfgs[@]}"; do
	IFS='|' read -r name _ mode _ <<<"$c"
	case $mode in native|hc) ;; *) echo "rotate.sh: $cfgfile: '$c': the third field is native or hc" >&2; exit 1 ;; esac
	rm -f "$work/$name.txt"
done

# wait_quiet: sets q to 1 if the machine was quiet before the timeout
wait_quiet() {
	local t0 busy
	q=0
	[ "$quiet_wait" -gt 0 ] || return 0
	t0=$(date +%s)
	while :; do
		busy=$(for k in 1 2 3 4 5; do awk '/^procs_running/ { print $2 }' /proc/stat; sleep 0.1; done | sort -n | tail -n 1)
		if [ "$busy" -le "$quiet_max" ]; then quiet_ok=$((quiet_ok + 1)) q=1; return 0; fi
		if [ $(( $(date +%s) - t0 )) -ge "$quiet_wait" ]; then quiet_timeout=$((quiet_timeout + 1)); return 0; fi
	done
}

echo "load before: $(uptime | sed 's/.*load average/load average/'); $(date -u +%H:%M:%SZ); $rounds rounds"
for r in $(seq 1 "$rounds"); do
	for k in $(seq 0 $((n - 1))); do
		IFS='|' read -r name envs mode args <<<"${cfgs[$(((k + r) % n))]}"
		tf="$work/time.txt" m="$work/m.$name" extra="0 0 0"
		rm -f "$tf"
		wait_quiet
		if [ "$mode" = native ]; then
			# shellcheck disable=SC2086 # ENV ASSIGNMENTS split on purpose
			env $envs "$runstat" "$tf" "$@" >/dev/null 2>"$work/stderr.txt" ||
				{ cat "$work/stderr.txt" >&2; exit 1; }
		else
			rm -rf "$m"
			# shellcheck disable=SC2086
			env $envs "$runstat" "$tf" "$hpcrun" $args -o "$m" "$@" >/dev/null 2>"$work/stderr.txt" ||
				{ cat "$work/stderr.txt" >&2; exit 1; }
			extra=$(awk '$1 == "counter" && $2 == "watch_armed" { a += $3 }
			             $1 == "counter" && $2 == "ret_bp_armed" { b += $3 }
			             $1 == "counter" && $2 == "samples" { s += $3 }
			             END { print a + 0, b + 0, s + 0 }' "$m"/*.log)
		fi
		if [ "$quiet_wait" -gt 0 ]; then extra="$extra $q"; fi
		echo "$(cat "$tf") $extra" >>"$work/$name.txt"
	done
done
echo "load after: $(uptime | sed 's/.*load average/load average/'); $(date -u +%H:%M:%SZ)"
[ "$quiet_wait" -gt 0 ] && echo "quiet gate: $quiet_ok runs started quiet, $quiet_timeout after waiting $quiet_wait s in vain"

med() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
IFS='|' read -r base _ <<<"${cfgs[0]}"
b=$(awk '{ print $2 + $3 }' "$work/$base.txt" | med)
echo "| configuration | CPU s (median) | ratio to $base | min - max | switches | samples | sets armed |"
echo "|---|--:|--:|--:|--:|--:|--:|"
for c in "${cfgs[@]}"; do
	IFS='|' read -r name _ <<<"$c"
	f="$work/$name.txt"
	cpu=$(awk '{ print $2 + $3 }' "$f" | med)
	awk -v name="$name" -v cpu="$cpu" -v b="$b" \
	    -v sw="$(awk '{ print $5 + $6 }' "$f" | med)" -v s="$(awk '{ print $9 }' "$f" | med)" \
	    -v a="$(awk '{ print $7 }' "$f" | med)" '
	{ c = $2 + $3; if (NR == 1 || c < lo) lo = c; if (NR == 1 || c > hi) hi = c }
	END { printf "| %s | %.3f | %.3f | %.3f - %.3f | %d | %d | %d |\n", name, cpu, (b > 0 ? cpu / b : 0), lo, hi, sw, s, a }' "$f"
done
