#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# sweeps.sh — accuracy sweeps of the measurement runtime (issue #6): the four
# ComDetective microbenchmark sweeps, each with 2, 4 and 8 worker threads,
# measured with hpcrun-comm at default settings and compared with what the
# workload was designed to produce:
#   sharing S    comm_bench sharing: stores to random words of 16 shared lines
#                with probability S. Designed: volume grows with S (zero at
#                S = 0), all worker pairs alike, false fraction 7/8 (two
#                random words of a line coincide 1 time in 8).
#   false F      comm_bench false: the own word of a false-sharing line with
#                probability F, else word 0 of a true-sharing line.
#                Designed: false fraction F.
#   readwrite R  comm_bench readwrite: one line, load with probability R,
#                else store. Designed: all true sharing; volume falls as R
#                grows and is zero at R = 1 (communication needs a store).
#   pairs        bench/accuracy/pairs_frac: pair k (workers 2k, 2k+1) shares
#                a line with fraction f_k = (k+1)/pairs (with 2 workers: one
#                run per f). Designed: volume only in the pair cells,
#                proportional to f_k.
# plus the soft sampler's own statistics (where sample addresses came from:
# the PC or the previous instruction) and two ablations on the false sweep
# with 4 workers: no watchpoints (--watchpoints 0), and, when the runtime
# has the switch, no previous-instruction recovery (HPCRUN_COMM_NO_PREV=1).
# Prints Markdown tables (doc/accuracy.md) and writes .dat files for plot.sh.
# Accuracy is never a timing test; this only reports.
#
#   bench/accuracy/sweeps.sh [--quick] [--analyze-only] [-r REPS] [-s SECONDS] BUILDDIR [WORKDIR]
# default: 3 repetitions of 2 s per point (~8 min); --quick: 1 x 1 s, three
# points per sweep (~1.5 min); --analyze-only: tables and .dat files again
# from the rows and calibration already in WORKDIR (default
# /tmp/hc-bench-accuracy). Before the sweeps, a native calibration measures
# the CPU cost of an iteration of each kernel (the soft sampler's unit is
# time, the designs are in accesses).
set -eu

reps=3 dur=2 quick=0 analyze_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1; reps=1; dur=1; shift ;;
	--analyze-only) analyze_only=1; shift ;;
	-r) reps=$2; shift 2 ;;
	-s) dur=$2; shift 2 ;;
	-h|--help) sed -n '3,37p' "$0"; exit 0 ;;
	-*) echo "sweeps.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
build=${1:?usage: sweeps.sh [--quick] [-r REPS] [-s SECONDS] BUILDDIR [WORKDIR]}
build=$(cd "$build" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
work=${2:-${TMPDIR:-/tmp}/hc-bench-accuracy}
hpcrun="$build/hpcrun-comm/hpcrun-comm"
rows="$build/tests/integration/hc_rows"
cb="$build/tests/programs/comm_bench"

test -x "$hpcrun" || { echo "sweeps.sh: $hpcrun not built (make in $build)" >&2; exit 1; }
if [ ! -x "$rows" ] || [ ! -x "$cb" ]; then
	make -s -C "$build" tests/integration/hc_rows tests/programs/comm_bench >/dev/null
fi
mkdir -p "$work"
work=$(cd "$work" && pwd)
mkdir -p "$work/bin" "$work/m" "$work/d"
cc -O2 -g -pthread -o "$work/bin/pairs_frac" "$src/bench/accuracy/pairs_frac.c"
cc -O2 -g -pthread -o "$work/bin/comm_work" "$src/bench/kernels/comm_work.c"
cc -O2 -o "$work/bin/runstat" "$src/bench/overhead/runstat.c"
pf="$work/bin/pairs_frac"

if [ $quick = 1 ]; then params="0 0.5 1"; else params="0 0.25 0.5 0.75 1"; fi
threads="2 4 8"
noprev=0
grep -q HPCRUN_COMM_NO_PREV "$build/lib/runtime/libhpcrun-comm.so" 2>/dev/null && noprev=1

if [ $analyze_only = 1 ]; then   # keep the header of the measuring run
	head -n 3 "$work/results.md" >"$work/header.md" 2>/dev/null || :
	mv "$work/header.md" "$work/results.md"
else
	: >"$work/results.md"
fi
note() { echo "$*" | tee -a "$work/results.md"; }

# measure KEY REP [HPCRUN-OPTIONS...] -- CMD...: one run under hpcrun-comm
# (default settings plus the options) into $work/m/KEY; its rows are appended
# to $work/d/KEY.rows after a "rep N" line (all repetitions of a point go to
# the same file). $MENV: extra environment (VAR=VALUE words) for the run.
measure() {
	local key=$1 rep=$2 opt=()
	shift 2
	while [ "$1" != -- ]; do opt+=("$1"); shift; done
	shift
	rm -rf "$work/m/$key"
	# shellcheck disable=SC2086
	env ${MENV:-} "$hpcrun" "${opt[@]}" -o "$work/m/$key" "$@" >/dev/null 2>"$work/stderr.txt" ||
		{ echo "sweeps.sh: failed: $*" >&2; cat "$work/stderr.txt" >&2; exit 1; }
	echo "rep $rep" >>"$work/d/$key.rows"
	"$rows" "$work/m/$key" >>"$work/d/$key.rows"
}

# The analysis of one point (all its repetitions): reads a .rows file and
# prints "name=value" pairs.
#   pattern = all | pairs: which worker cells are expected
#   totals summed over the repetitions; ff_min/ff_max: spread of the
#   per-repetition false fraction; cv: coefficient of variation of the
#   expected cells (all-to-all patterns); pair_k: volume of pair k.
analyze() {
	awk -v pattern="$2" -v nw="$3" -v period=500000 '
	$1 == "rep" { r = $2; nrep++ }
	$1 == "row" {
		i = $3; j = $4; if (i > j) { t = i; i = j; j = t }
		all += $5; tru += $6; fal += $7; smp += $8; trp += $9
		ra[r] += $5; rf[r] += $7
		exp_cell = (i >= 1 && j <= nw && i != j) && (pattern == "all" || (i % 2 == 1 && j == i + 1))
		if (exp_cell) { inexp += $5; cell[i " " j] += $5 }
	}
	$1 == "counter" { c[$2] += $3 }
	END {
		ffmin = 1; ffmax = 0
		for (k in ra) if (ra[k] > 0) { f = rf[k] / ra[k]; if (f < ffmin) ffmin = f; if (f > ffmax) ffmax = f }
		if (ffmin > ffmax) { ffmin = 0; ffmax = 0 }
		n = 0; s = 0; s2 = 0
		if (pattern == "all")
			for (i = 1; i <= nw; i++) for (j = i + 1; j <= nw; j++) { v = cell[i " " j] + 0; n++; s += v; s2 += v * v }
		mean = n ? s / n : 0; sd = n && s2 / n > mean * mean ? sqrt(s2 / n - mean * mean) : 0
		# %.0f, not %d: mawk clamps %d to 32 bits, and volumes are ns
		printf "all=%.0f true=%.0f false=%.0f sample=%.0f trap=%.0f inexp=%.0f cv=%.3f ff_min=%.3f ff_max=%.3f", all, tru, fal, smp, trp, inexp, mean ? sd / mean : 0, ffmin, ffmax
		printf " samples=%.0f at_pc=%.0f prev=%.0f no_access=%.0f stack_only=%.0f undecodable=%.0f published=%.0f detections=%.0f armed=%.0f traps=%.0f traps_matched=%.0f",
		       c["samples"], c["samples_with_access_at_pc"], c["samples_recovered_prev"], c["samples_no_access"],
		       c["samples_stack_only"], c["samples_undecodable"], c["published"], c["detections_sample"],
		       c["watch_armed"], c["traps"], c["traps_matched"]
		printf " commfrac=%.5f", c["samples"] ? all / (c["samples"] * period) : 0
		for (k = 1; k < nw; k += 2) printf " pair_%d=%.0f", (k - 1) / 2, cell[k " " (k + 1)]
		printf "\n"
	}' "$1"
}
get() { echo "$1" | tr ' ' '\n' | awk -F= -v k="$2" '$1 == k { print $2 }'; }
frac() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# ---- calibration: what an iteration costs natively --------------------------
# The soft sampler's unit is CPU time, so a designed fraction of ACCESSES is
# seen as a fraction of TIME, weighted by what each access (and each branch
# misprediction around it) costs. The same kernels with fixed work
# (bench/kernels/comm_work.c) and pairs_frac's iteration count give the
# native CPU ns per iteration at each point, printed for the discussion.
calibrate() {
	local n=10 f out="$work/calib.txt"
	[ $quick = 0 ] || n=4
	: >"$out"
	for t in $threads; do
		for p in $params; do
			rm -f "$work/rs.txt"
			"$work/bin/runstat" "$work/rs.txt" "$work/bin/comm_work" sharing "$p" -t "$t" -n "$n" >/dev/null
			awk -v t="$t" -v p="$p" -v n="$n" '{ printf "sharing %s %s %.2f\n", t, p, ($2 + $3) * 1e3 / n }' "$work/rs.txt" >>"$out"
		done
	done
	for f in 0 0.25 0.5 0.75 1; do
		rm -f "$work/rs.txt"
		it=$("$work/bin/runstat" "$work/rs.txt" "$pf" -t 2 -s 0.5 -f "$f" | awk '{ print $NF }')
		awk -v f="$f" -v it="$it" '{ printf "pairs 2 %s %.2f\n", f, ($2 + $3) * 1e9 / it }' "$work/rs.txt" >>"$out"
	done
}
cal() { awk -v k="$1" -v t="$2" -v p="$3" '$1 == k && $2 == t && $3 == p { print $4 }' "$work/calib.txt" 2>/dev/null || echo "?"; }

if [ $analyze_only = 0 ]; then
note "Accuracy sweeps: $reps repetition(s) x ${dur} s per point, default settings (COMM@500000, all watchpoints); $(date -u +%Y-%m-%dT%H:%MZ)"
note "Load before: $(uptime | sed 's/.*load average/load average/'); $(nproc) CPUs"
rm -f "$work"/d/*.rows
calibrate

# ---- run everything, repetitions outermost (slow drifts spread evenly) ------
for rep in $(seq 1 "$reps"); do
	for t in $threads; do
		for p in $params; do
			measure "sharing-$t-$p" "$rep" -- "$cb" sharing "$p" -t "$t" -s "$dur"
			measure "false-$t-$p" "$rep" -- "$cb" false "$p" -t "$t" -s "$dur"
			measure "readwrite-$t-$p" "$rep" -- "$cb" readwrite "$p" -t "$t" -s "$dur"
		done
		if [ "$t" = 2 ]; then
			for f in 0.25 0.5 1; do measure "pairs-2-$f" "$rep" -- "$pf" -t 2 -s "$dur" -f "$f"; done
		else
			measure "pairs-$t" "$rep" -- "$pf" -t "$t" -s "$dur"
		fi
	done
	# ablations on the false sweep with 4 workers
	for p in $params; do
		measure "false-wp0-4-$p" "$rep" --watchpoints 0 -- "$cb" false "$p" -t 4 -s "$dur"
		if [ $noprev = 1 ]; then
			MENV=HPCRUN_COMM_NO_PREV=1 measure "false-noprev-4-$p" "$rep" -- "$cb" false "$p" -t 4 -s "$dur"
		fi
	done
	if [ $noprev = 1 ]; then
		MENV=HPCRUN_COMM_NO_PREV=1 measure "pairs-noprev-4" "$rep" -- "$pf" -t 4 -s "$dur"
	fi
done
note "Load after: $(uptime | sed 's/.*load average/load average/')"
fi

# ---- analysis ----------------------------------------------------------------
A() { analyze "$work/d/$1.rows" "$2" "$3"; }
for t in $threads; do
	for p in $params; do
		for sw in sharing false readwrite; do A "$sw-$t-$p" all "$t" >"$work/d/$sw-$t-$p.a"; done
	done
	if [ "$t" = 2 ]; then
		for f in 0.25 0.5 1; do A "pairs-2-$f" pairs 2 >"$work/d/pairs-2-$f.a"; done
	else
		A "pairs-$t" pairs "$t" >"$work/d/pairs-$t.a"
	fi
done
for p in $params; do
	A "false-wp0-4-$p" all 4 >"$work/d/false-wp0-4-$p.a"
	[ $noprev = 0 ] || A "false-noprev-4-$p" all 4 >"$work/d/false-noprev-4-$p.a"
done
[ $noprev = 0 ] || A "pairs-noprev-4" pairs 4 >"$work/d/pairs-noprev-4.a"
v() { get "$(cat "$work/d/$1.a")" "$2"; }

note ""
note "### False-sharing sweep (designed false fraction = F)"
note ""
note "Measured false fraction of the volume (range over repetitions in brackets):"
note ""
note "| F | 2 threads | 4 threads | 8 threads |"
note "|--:|--:|--:|--:|"
: >"$work/false.dat"
for p in $params; do
	line="| $p |"; dat="$p"
	for t in $threads; do
		k="false-$t-$p"
		ff=$(frac "$(v "$k" false)" "$(v "$k" all)")
		line="$line $ff [$(v "$k" ff_min)–$(v "$k" ff_max)] |"
		dat="$dat $ff $(v "$k" ff_min) $(v "$k" ff_max)"
	done
	note "$line"; echo "$dat" >>"$work/false.dat"
done
err=$(awk '{ for (c = 2; c <= NF; c += 3) { d = $c - $1; s[c] += d < 0 ? -d : d } n++ }
           END { printf "%.3f / %.3f / %.3f", s[2] / n, s[5] / n, s[8] / n }' "$work/false.dat")
note ""
note "Mean absolute error of the false fraction (2 / 4 / 8 threads): $err"

note ""
note "### Sharing sweep (designed: volume grows with S, zero at S = 0; false fraction 7/8; all pairs alike)"
note ""
note "Communicating share of the sampled CPU time (volume / (samples x P)), and that share relative"
note "to S = 1 (designed: S, the fraction of accesses that go to shared lines)."
note ""
note "| S | 2 threads | 4 threads | 8 threads |"
note "|--:|--:|--:|--:|"
: >"$work/sharing.dat"
for p in $params; do
	line="| $p |"; dat="$p"
	for t in $threads; do
		k="sharing-$t-$p"; k1="sharing-$t-1"
		cf=$(v "$k" commfrac); c1=$(v "$k1" commfrac)
		nm=$(awk -v a="$cf" -v b="$c1" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
		line="$line $(awk -v c="$cf" 'BEGIN { printf "%.2f %%", c * 100 }'), $nm |"
		dat="$dat $cf $nm $p"
	done
	note "$line"; echo "$dat" >>"$work/sharing.dat"
done
err=$(awk '{ for (c = 3; c <= 9; c += 3) { d = $c - $(c + 1); e[c] += d < 0 ? -d : d } n++ }
           END { printf "%.3f / %.3f / %.3f", e[3] / n, e[6] / n, e[9] / n }' "$work/sharing.dat")
note ""
note "Mean absolute error of the relative volume against S (2 / 4 / 8 threads): $err"
note ""
note "False fraction (designed 0.875) and the coefficient of variation of the worker-pair cells"
note "(designed 0: all pairs alike):"
note ""
note "| S | false 2 / 4 / 8 threads | CV 2 / 4 / 8 threads |"
note "|--:|--:|--:|"
for p in $params; do
	fl=""; cv=""
	for t in $threads; do
		k="sharing-$t-$p"
		fl="$fl${fl:+ / }$(frac "$(v "$k" false)" "$(v "$k" all)")"
		cv="$cv${cv:+ / }$(v "$k" cv)"
	done
	note "| $p | $fl | $cv |"
done
note ""
note "Native CPU ns per iteration (fixed-work runs of the same kernels, for the discussion of"
note "time weighting in doc/accuracy.md), sharing S with 2 / 4 / 8 threads:"
note "$(for p in $params; do printf '%s: %s / %s / %s; ' "$p" "$(cal sharing 2 "$p")" "$(cal sharing 4 "$p")" "$(cal sharing 8 "$p")"; done)"
note "pairs_frac, 2 workers, c(f): $(for f in 0 0.25 0.5 0.75 1; do printf '%s: %s; ' "$f" "$(cal pairs 2 "$f")"; done)"

note ""
note "### Read-fraction sweep (designed: true sharing only; most volume at R = 0, falling with R, zero at R = 1)"
note ""
note "Communicating share of the sampled CPU time (true fraction in brackets). Two simple models of the"
note "designed volume, relative to R = 0: 1 − R (a communication needs the peer's store) and 1 − R²"
note "(a line transfer needs a store on either side)."
note ""
note "| R | 2 threads | 4 threads | 8 threads | 1 − R | 1 − R² |"
note "|--:|--:|--:|--:|--:|--:|"
: >"$work/readwrite.dat"
for p in $params; do
	line="| $p |"; dat="$p"
	for t in $threads; do
		k="readwrite-$t-$p"; cf=$(v "$k" commfrac)
		line="$line $(awk -v c="$cf" 'BEGIN { printf "%.2f %%", c * 100 }') ($(frac "$(v "$k" true)" "$(v "$k" all)")) |"
		dat="$dat $cf"
	done
	note "$line $(awk -v r="$p" 'BEGIN { printf "%.3f | %.3f |", 1 - r, 1 - r * r }')"
	echo "$dat" >>"$work/readwrite.dat"
done

note ""
note "### Pairs with different sharing fractions (designed: volume only in the pair cells, ∝ f_k)"
note ""
note "2 workers, one run per f (share of sampled time, and normalised to f = 1):"
note ""
note "| f | share | relative to f = 1 (designed: f) | in pair cell |"
note "|--:|--:|--:|--:|"
: >"$work/pairs2.dat"
c1=$(v pairs-2-1 commfrac)
for f in 0.25 0.5 1; do
	k="pairs-2-$f"; cf=$(v "$k" commfrac)
	nn=$(awk -v a="$cf" -v b="$c1" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
	note "| $f | $(awk -v c="$cf" 'BEGIN { printf "%.2f %%", c * 100 }') | $nn | $(frac "$(v "$k" inexp)" "$(v "$k" all)") |"
	echo "$f $nn" >>"$work/pairs2.dat"
done
note ""
note "4 and 8 workers, f_k = (k+1)/pairs in one run: each pair's share of the pair-cell volume"
note "against the designed share f_k / Σf:"
note ""
note "| workers | pair k (threads) | f_k | designed share | measured share |"
note "|--:|--|--:|--:|--:|"
: >"$work/pairs.dat"
for t in 4 8; do
	k="pairs-$t"; np=$((t / 2)); sum=0
	for q in $(seq 0 $((np - 1))); do sum=$((sum + $(v "$k" "pair_$q"))); done
	for q in $(seq 0 $((np - 1))); do
		f=$(awk -v q="$q" -v n="$np" 'BEGIN { printf "%.3f", (q + 1) / n }')
		ds=$(awk -v q="$q" -v n="$np" 'BEGIN { printf "%.3f", 2 * (q + 1) / (n * (n + 1)) }')
		ms=$(frac "$(v "$k" "pair_$q")" "$sum")
		note "| $t | $q ($((2 * q + 1)),$((2 * q + 2))) | $f | $ds | $ms |"
		echo "$t $q $f $ds $ms" >>"$work/pairs.dat"
	done
	note "| $t | in pair cells | | 1.000 | $(frac "$(v "$k" inexp)" "$(v "$k" all)") |"
done

note ""
note "### Where the soft sampler's addresses come from"
note ""
note "Per sweep and thread count, summed over all points: samples, the share with an address at the"
note "PC, recovered from the previous instruction, without a data access, stack-only; the share of"
note "samples that detected a communication; the share of the volume detected by watchpoint traps."
note ""
note "| sweep | threads | samples | at PC | previous insn | no access | stack only | detections / sample | trap share of volume |"
note "|---|--:|--:|--:|--:|--:|--:|--:|--:|"
for sw in sharing false readwrite pairs; do
	for t in $threads; do
		if [ "$sw" = pairs ]; then
			if [ "$t" = 2 ]; then set -- "$work"/d/pairs-2-*.a; else set -- "$work/d/pairs-$t.a"; fi
		else
			set -- "$work"/d/"$sw-$t"-*.a
		fi
		cat "$@" | tr ' ' '
' | awk -F= -v sw="$sw" -v t="$t" '
			{ s[$1] += $2 }
			END { n = s["samples"]; if (!n) n = 1
			      printf "| %s | %d | %d | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.2f %% | %.1f %% |\n", sw, t, s["samples"],
			             100 * s["at_pc"] / n, 100 * s["prev"] / n, 100 * s["no_access"] / n, 100 * s["stack_only"] / n,
			             100 * s["detections"] / n, s["all"] ? 100 * s["trap"] / s["all"] : 0 }' | tee -a "$work/results.md"
	done
done

note ""
note "### Ablations (false sweep, 4 workers)"
note ""
if [ $noprev = 1 ]; then
	note "| F | false fraction default | without watchpoints | without previous-insn recovery | share default | share w/o watchpoints | share w/o previous insn |"
	note "|--:|--:|--:|--:|--:|--:|--:|"
else
	note "(this runtime has no HPCRUN_COMM_NO_PREV switch: the previous-instruction ablation is skipped)"
	note ""
	note "| F | false fraction default | without watchpoints | share default | share w/o watchpoints |"
	note "|--:|--:|--:|--:|--:|"
fi
for p in $params; do
	a="false-4-$p"; b="false-wp0-4-$p"; c="false-noprev-4-$p"
	pc() { awk -v c="$1" 'BEGIN { printf "%.2f %%", c * 100 }'; }
	if [ $noprev = 1 ]; then
		note "| $p | $(frac "$(v $a false)" "$(v $a all)") | $(frac "$(v $b false)" "$(v $b all)") | $(frac "$(v $c false)" "$(v $c all)") | $(pc "$(v $a commfrac)") | $(pc "$(v $b commfrac)") | $(pc "$(v $c commfrac)") |"
	else
		note "| $p | $(frac "$(v $a false)" "$(v $a all)") | $(frac "$(v $b false)" "$(v $b all)") | $(pc "$(v $a commfrac)") | $(pc "$(v $b commfrac)") |"
	fi
done
if [ $noprev = 1 ]; then
	note ""
	note "Pairs, 4 workers, without previous-instruction recovery: in pair cells $(frac "$(v pairs-noprev-4 inexp)" "$(v pairs-noprev-4 all)"), pair shares $(frac "$(v pairs-noprev-4 pair_0)" "$(( $(v pairs-noprev-4 pair_0) + $(v pairs-noprev-4 pair_1) ))") / $(frac "$(v pairs-noprev-4 pair_1)" "$(( $(v pairs-noprev-4 pair_0) + $(v pairs-noprev-4 pair_1) ))") (designed 0.333 / 0.667), share $(v pairs-noprev-4 commfrac)"
fi

# symmetric matrix of the 8-worker pairs run, for the heat map
awk '$1 == "row" { m[$3, $4] += $5; m[$4, $3] += $5; if ($3 > n) n = $3; if ($4 > n) n = $4 }
     END { for (i = 0; i <= n; i++) { for (j = 0; j <= n; j++) printf "%s%g", j ? " " : "", m[i, j] / 1e6; printf "\n" } }' 	"$work/d/pairs-8.rows" >"$work/pairs8.matrix"
echo "results: $work/results.md; plot with bench/accuracy/plot.sh $work DIR"
