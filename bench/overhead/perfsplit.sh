#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# perfsplit.sh — where a run's CPU time goes, native against the runtime's
# configurations: each run under `perf record -e cpu-clock` (a software
# event: this VM has no PMU), its samples split into the program's own
# function(s), libgomp, the runtime's code (libhpcrun-comm, Zydis,
# libunwind) and the kernel by the symbol perf names (the context switch,
# signal delivery and the timer interrupt, page faults, IPIs, futexes,
# other). What doc/performance.md "Session 23" was measured with. Runs are
# alternated as rotate.sh's; per configuration it prints the mean samples a
# run in each part and the median of (all samples / the program's own),
# which a shared machine's drifting speed moves far less than the CPU time
# (the program's own part shrinks and grows with it). On this VM the kernel
# runs with interrupts off through the context switch and the signal's
# generation: their time is charged where interrupts come back on
# (finish_task_switch, _raw_spin_unlock_irqrestore,
# irqentry_exit_to_user_mode), hence the parts below.
#
#   bench/overhead/perfsplit.sh [-n ROUNDS] [-F HZ] [-p REGEX] BUILDDIR WORKDIR CONFIGS -- COMMAND [ARGS...]
#
# CONFIGS: rotate.sh's file ("NAME|ENV ASSIGNMENTS|native" or
# "NAME|ENV ASSIGNMENTS|hc|LAUNCHER OPTIONS"). -p: the program's own
# symbols (default '^sweep': bench/kernels/stencil.c's parallel loop).
# Part names: sweep (the program's), gomp, runtime, k_switch,
# k_unlock_irqrestore, k_signal, k_msr, k_ipi, k_mm, k_futex, k_other,
# other (libc, vdso, the loader); the samples are 1/HZ s of CPU each.
set -euo pipefail

rounds=6 hz=5000 prog='^sweep'
while :; do
	case ${1:-} in
	-n) rounds=$2; shift 2 ;;
	-F) hz=$2; shift 2 ;;
	-p) prog=$2; shift 2 ;;
	*) break ;;
	esac
done
if [ $# -lt 5 ] || [ "$4" != -- ]; then
	echo "usage: perfsplit.sh [-n ROUNDS] [-F HZ] [-p REGEX] BUILDDIR WORKDIR CONFIGS -- COMMAND [ARGS...]" >&2
	exit 2
fi
build=$(cd "$1" && pwd) work=$2 cfgfile=$3
shift 4
hpcrun="$build/hpcrun-comm/hpcrun-comm"
test -x "$hpcrun" || { echo "perfsplit.sh: $hpcrun not built" >&2; exit 1; }
command -v perf >/dev/null || { echo "perfsplit.sh: no perf" >&2; exit 1; }
mkdir -p "$work"
work=$(cd "$work" && pwd)
mapfile -t cfgs < <(grep -v '^[[:space:]]*\(#\|$\)' "$cfgfile")
n=${#cfgs[@]}
[ "$n" -ge 1 ] || { echo "perfsplit.sh: $cfgfile: no configuration" >&2; exit 1; }
for c in "${cfgs[@]}"; do
	IFS='|' read -r name _ <<<"$c"
	rm -f "$work/$name".*.parts
done

# parts: perf report's "pct count dso [x] symbol" lines -> "part count" lines
parts() {
	awk -v prog="$prog" '
	/^#/ || NF < 5 { next }
	{
		n = $2; dso = $3; sym = $5
		if (sym ~ prog) c = "sweep"
		else if (dso ~ /libgomp/) c = "gomp"
		else if (dso ~ /hpcrun|Zydis|unwind/) c = "runtime"
		else if (dso ~ /kernel/) {
			if (sym ~ /finish_task_switch|_raw_spin_unlock_irq$|^schedule|__schedule|context_switch|perf_event_context_sched|ctx_sched/) c = "k_switch"
			else if (sym ~ /_raw_spin_unlock_irqrestore/) c = "k_unlock_irqrestore"
			else if (sym ~ /native_write_msr|native_read_msr/) c = "k_msr"
			else if (sym ~ /irqentry_exit_to_user_mode|signal|sigreturn|setup_rt_frame|restore_sigcontext|fpu|xsave|xrstor/) c = "k_signal"
			else if (sym ~ /smp_call_function|generic_exec_single|csd/) c = "k_ipi"
			else if (sym ~ /page_fault|clear_page|handle_mm_fault|do_anonymous|folio|lruvec|memcg|mas_|unmap|zap|pte|free_pages|page/) c = "k_mm"
			else if (sym ~ /futex/) c = "k_futex"
			else c = "k_other"
		} else c = "other"
		s[c] += n
	}
	END { for (c in s) print c, s[c] }'
}

echo "load before: $(uptime | sed 's/.*load average/load average/'); $(date -u +%H:%M:%SZ); $rounds rounds"
for r in $(seq 1 "$rounds"); do
	for k in $(seq 0 $((n - 1))); do
		IFS='|' read -r name envs mode args <<<"${cfgs[$(((k + r) % n))]}"
		data="$work/perf.data" m="$work/m.$name"
		rm -rf "$m"
		if [ "$mode" = native ]; then
			# shellcheck disable=SC2086 # ENV ASSIGNMENTS split on purpose
			env $envs perf record -q -e cpu-clock -F "$hz" -o "$data" "$@" >/dev/null 2>"$work/stderr.txt" ||
				{ cat "$work/stderr.txt" >&2; exit 1; }
		else
			# shellcheck disable=SC2086
			env $envs perf record -q -e cpu-clock -F "$hz" -o "$data" "$hpcrun" $args -o "$m" "$@" \
				>/dev/null 2>"$work/stderr.txt" || { cat "$work/stderr.txt" >&2; exit 1; }
		fi
		perf report -i "$data" --sort dso,sym -n --stdio 2>/dev/null | parts >"$work/$name.$r.parts"
	done
done
rm -f "$work/perf.data"
echo "load after: $(uptime | sed 's/.*load average/load average/'); $(date -u +%H:%M:%SZ)"

order="sweep gomp runtime k_switch k_unlock_irqrestore k_signal k_msr k_ipi k_mm k_futex k_other other"
printf '| configuration | %s | all | all / sweep (median) |\n' "${order// / | }"
printf '|---|%s--:|--:|\n' "$(for _ in $order; do printf -- '--:|'; done)"
for c in "${cfgs[@]}"; do
	IFS='|' read -r name _ <<<"$c"
	ratio=$(for f in "$work/$name".*.parts; do
		awk '$1 == "sweep" { s = $2 } { t += $2 } END { if (s > 0) printf "%.4f\n", t / s }' "$f"
	done | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
	cat "$work/$name".*.parts | awk -v name="$name" -v order="$order" -v ratio="$ratio" -v runs="$rounds" '
	{ s[$1] += $2; t += $2 }
	END {
		k = split(order, o, " "); printf "| %s |", name
		for (i = 1; i <= k; i++) printf " %.0f |", s[o[i]] / runs
		printf " %.0f | %s |\n", t / runs, ratio
	}'
done
