#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh — the accuracy suite (issues 13 and 14): every pattern program of
# bench/accuracy/programs (programs.list) built twice — plainly for the
# sampled run, with the exact-mode wrappers (hpcrun-comm-cc / -c++) for
# `hpcrun-comm --exact` — at -O0 and -O2, run with threads = CPUs and 2x
# oversubscribed: natively, sampled (`hpcrun-comm`, default settings) and
# exact; each database made by hpcprof-comm; the sampled database judged
# against the exact one by acc_compare (precision, recall, false-fraction
# error, top false-sharing object and top code pair agreement; definitions
# in acc_metrics.h and doc/accuracy.md) and the costs from the wall time and
# peak RSS of the three runs. Prints one Markdown table (and a summary
# against the goals of issue 14); never a timing test.
#
#   bench/accuracy/run.sh [OPTIONS] BUILDDIR [WORKDIR]
#     --quick         threads = CPUs only, a third of the work (SCALE 0.3)
#     --load          afterwards, rerun the sampled half while a second copy
#                     of the suite's sampled runs loops in the background,
#                     judged against the same exact databases: a second
#                     table and the degradation
#     --ref-check     a second exact run per configuration, judged against
#                     the first like a sampled run: how far the reference
#                     reproduces (a table, and the configurations where
#                     exact mode misses the goals against itself)
#     --refs K        K exact runs per configuration (default 1); the
#                     reference is their mean shape, each run one vote
#                     (acc_compare with K databases; acc_metrics.h): with
#                     more threads than CPUs one run's schedule decides
#                     which threads took turns on a CPU, and two exact runs
#                     of one configuration can judge each other at 0.35
#     -p 'NAME ...'   only these programs      -O 'LEVELS'   e.g. '-O2'
#     --programs DIR  another programs directory (its programs.list and
#                     sources, built by programs/build.sh with ACC_PROGRAMS),
#                     e.g. bench/accuracy/holdout (the owner-style holdout set)
#     -t 'N ...'      thread counts            -s SCALE      work multiplier
#     --sweeps ARGS   run the older ComDetective sweeps instead (sweeps.sh)
#   Pass rates over repeated runs against this run's references, sides
#   alternated: bench/accuracy/rounds.sh (doc/accuracy.md "Session 18").
#   WORKDIR (default /tmp/hc-bench-accuracy-suite): binaries, measurements,
#   databases, results.md (everything printed) and results.tsv (one row per
#   configuration, raw figures).
#
# Exact mode is found as hpcrun-comm-cc / hpcrun-comm-c++ in BUILDDIR (or
# $HC_EXACT_CC / $HC_EXACT_CXX); when it is missing or a build or run with it
# fails, the table says so in the exact columns and judges nothing. For
# testing this script without exact mode: HC_EXACT_CC=cc HC_EXACT_CXX=c++
# HC_EXACT_RUN='' judges a sampled run against a second sampled run (the
# command that replaces `hpcrun-comm --exact`: $HC_EXACT_RUN, split on
# spaces; empty = hpcrun-comm itself).
set -eu

src=$(cd "$(dirname "$0")/../.." && pwd)
here=$src/bench/accuracy
quick=0 load=0 refcheck=0 refs=1 scale=1 progs="" opts="-O0 -O2" tlist=""
pdir=$here/programs
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1; shift ;;
	--load) load=1; shift ;;
	--ref-check) refcheck=1; shift ;;
	--refs) refs=$2; shift 2
		case $refs in '' | *[!0-9]* | 0) echo "run.sh: --refs wants a count >= 1, not '$refs'" >&2; exit 2 ;; esac ;;
	--sweeps) shift; exec "$here/sweeps.sh" "$@" ;;
	-p) progs=$2; shift 2 ;;
	--programs) pdir=$(cd "$2" && pwd) || { echo "run.sh: no directory '$2'" >&2; exit 2; }; shift 2
		[ -r "$pdir/programs.list" ] || { echo "run.sh: no programs.list in $pdir" >&2; exit 2; } ;;
	-O) opts=$2; shift 2 ;;
	-t) tlist=$2; shift 2 ;;
	-s) scale=$2; shift 2 ;;
	-h|--help) sed -n '3,41p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option $1 (--help)" >&2; exit 2 ;;
	*) break ;;
	esac
done
build=${1:?usage: run.sh [--quick] [--load] [-p PROGRAMS] [-O LEVELS] [-t THREADS] [-s SCALE] BUILDDIR [WORKDIR]}
build=$(cd "$build" && pwd)
work=${2:-${TMPDIR:-/tmp}/hc-bench-accuracy-suite}
ncpu=$(nproc)
[ $quick = 1 ] && scale=0.3
[ -n "$tlist" ] || { if [ $quick = 1 ]; then tlist=$ncpu; else tlist="$ncpu $((2 * ncpu))"; fi; }
[ -n "$progs" ] || progs=$(grep -v '^#' "$pdir/programs.list" | awk 'NF { print $1 }' | tr '\n' ' ')
for o in $opts; do
	case $o in -O0|-O1|-O2|-O3|-Os) ;; *) echo "run.sh: bad level '$o' (-O '-O0 -O2')" >&2; exit 2 ;; esac
done
for p in $progs; do
	grep -q "^$p[[:space:]]" "$pdir/programs.list" ||
		{ echo "run.sh: no program '$p' in $pdir/programs.list" >&2; exit 2; }
done

hpcrun=$build/hpcrun-comm/hpcrun-comm
hpcprof=$build/hpcprof-comm/hpcprof-comm
cmp=$build/bench/accuracy/acc_compare
for x in "$hpcrun" "$hpcprof" "$cmp"; do
	[ -x "$x" ] || { echo "run.sh: $x not built (make -C $build)" >&2; exit 1; }
done
mkdir -p "$work"
work=$(cd "$work" && pwd)
rm -rf "$work/m" "$work/d" "$work/t" "$work/cmp" "$work/load"
mkdir -p "$work/bin" "$work/m" "$work/d" "$work/t" "$work/cmp" "$work/log"
cc -O2 -o "$work/bin/runstat" "$src/bench/overhead/runstat.c"
: >"$work/results.md"
note() { printf '%s\n' "$*" | tee -a "$work/results.md"; }

# --- exact mode: the wrappers ------------------------------------------------
find_tool() {
	local d
	for d in "$build/hpcrun-comm" "$build" "$build/bin" "$build/exact" "$build/lib/exact"; do
		[ -x "$d/$1" ] && [ -f "$d/$1" ] && { echo "$d/$1"; return; }
	done
	find "$build" -maxdepth 4 -name "$1" -type f -perm -u+x 2>/dev/null | head -n 1
}
ecc=${HC_EXACT_CC:-$(find_tool hpcrun-comm-cc)}
ecxx=${HC_EXACT_CXX:-$(find_tool hpcrun-comm-c++)}
# in a build tree the wrappers find their stub library through this
if [ -z "${HPCRUN_COMM_LIBDIR:-}" ] && [ -r "$build/lib/runtime/libhpcrun-comm-stub.so" ]; then
	export HPCRUN_COMM_LIBDIR=$build/lib/runtime
fi
exact_why=""
exact_run="$hpcrun --exact"
[ "${HC_EXACT_RUN+set}" = set ] && exact_run=${HC_EXACT_RUN:-$hpcrun}
if [ -z "$ecc" ] || [ -z "$ecxx" ]; then
	exact_why="exact mode unavailable: no hpcrun-comm-cc/hpcrun-comm-c++ in $build"
fi

# --- builds --------------------------------------------------------------------
for o in $opts; do
	ACC_PROGRAMS=$pdir "$here/programs/build.sh" "$o" "$work/bin/plain$o" $progs >"$work/log/build-plain$o.txt" 2>&1 ||
		{ cat "$work/log/build-plain$o.txt" >&2; echo "run.sh: building the programs ($o) failed" >&2; exit 1; }
	if [ -z "$exact_why" ]; then
		ACC_PROGRAMS=$pdir CC=$ecc CXX=$ecxx "$here/programs/build.sh" "$o" "$work/bin/exact$o" $progs \
			>"$work/log/build-exact$o.txt" 2>&1 ||
			exact_why="exact mode unavailable: building with $ecc failed ($work/log/build-exact$o.txt)"
	fi
done

# --- runs ----------------------------------------------------------------------
# run KEY KIND CMD...: one run under runstat (wall, user, sys, maxrss -> t/),
# output to log/; KIND native|sampled|exact|loaded|loadnative. Returns the
# command's status.
run() {
	local key=$1 kind=$2
	shift 2
	rm -f "$work/t/$key.$kind"
	"$work/bin/runstat" "$work/t/$key.$kind" "$@" >"$work/log/$key.$kind.out" 2>&1
}

# analyze KEY KIND: hpcprof-comm of m/KEY.KIND into d/KEY.KIND
analyze() {
	"$hpcprof" -q -o "$work/d/$1.$2" "$work/m/$1.$2" >"$work/log/$1.$2.prof" 2>&1
}

# measure KEY PROG OPT THREADS PASS: the runs of one configuration; PASS
# quiet (native, sampled, exact) or loaded (native and sampled again)
measure() {
	local key=$1 p=$2 o=$3 t=$4 pass=$5 s=sampled n=native
	[ "$pass" = loaded ] && { s=loaded; n=loadnative; }
	run "$key" $n "$work/bin/plain$o/$p" "$t" "$scale" || echo "native run failed" >"$work/t/$key.$n.failed"
	rm -rf "$work/m/$key.$s" "$work/d/$key.$s"
	if run "$key" $s "$hpcrun" -o "$work/m/$key.$s" "$work/bin/plain$o/$p" "$t" "$scale" && analyze "$key" $s; then
		:
	else
		echo "sampled run or analysis failed (log/$key.$s.*)" >"$work/t/$key.$s.failed"
	fi
	[ "$pass" = quiet ] || return 0
	[ -z "$exact_why" ] || return 0
	rm -rf "$work/m/$key.exact" "$work/d/$key.exact"
	# the load the reference was taken at (table: a busy machine's is marked)
	cut -d' ' -f1 /proc/loadavg >"$work/t/$key.exact.load" 2>/dev/null || :
	# shellcheck disable=SC2086
	if run "$key" exact ${exact_run} -o "$work/m/$key.exact" "$work/bin/exact$o/$p" "$t" "$scale" &&
		analyze "$key" exact; then
		:
	else
		echo "exact run or analysis failed (log/$key.exact.*)" >"$work/t/$key.exact.failed"
	fi
	# --refs K: K-1 more exact runs; the reference is the mean of those that
	# succeeded (t/KEY.refs lists their databases; a failed one is named)
	echo "$work/d/$key.exact" >"$work/t/$key.refs"
	local r
	for ((r = 2; r <= refs; r++)); do
		[ ! -f "$work/t/$key.exact.failed" ] || break
		rm -rf "$work/m/$key.exact-r$r" "$work/d/$key.exact-r$r"
		# shellcheck disable=SC2086
		if run "$key" exact-r$r ${exact_run} -o "$work/m/$key.exact-r$r" "$work/bin/exact$o/$p" "$t" "$scale" &&
			analyze "$key" exact-r$r; then
			echo "$work/d/$key.exact-r$r" >>"$work/t/$key.refs"
		else
			echo "exact run $r of $refs failed (log/$key.exact-r$r.*); the reference is the others" >>"$work/t/$key.refs.failed"
		fi
	done
	[ $refcheck = 1 ] && [ ! -f "$work/t/$key.exact.failed" ] || return 0
	# the reference against itself (--ref-check): a second exact run
	rm -rf "$work/m/$key.exact2" "$work/d/$key.exact2"
	cut -d' ' -f1 /proc/loadavg >"$work/t/$key.exact2.load" 2>/dev/null || :
	# shellcheck disable=SC2086
	if run "$key" exact2 ${exact_run} -o "$work/m/$key.exact2" "$work/bin/exact$o/$p" "$t" "$scale" &&
		analyze "$key" exact2 &&
		"$cmp" -v "$work/d/$key.exact2" "$work/d/$key.exact" >"$work/cmp/$key.ref.tsv" 2>"$work/log/$key.ref.cmp"; then
		:
	else
		rm -f "$work/cmp/$key.ref.tsv"
	fi
}

# compare KEY PASS: acc_compare (or -d without exact) into cmp/KEY.PASS.tsv
compare() {
	local key=$1 s=sampled
	[ "$2" = loaded ] && s=loaded
	if [ -f "$work/t/$key.$s.failed" ]; then
		: >"$work/cmp/$key.$2.tsv"
	elif [ -z "$exact_why" ] && [ ! -f "$work/t/$key.exact.failed" ]; then
		local refdbs=("$work/d/$key.exact")
		[ -f "$work/t/$key.refs" ] && mapfile -t refdbs <"$work/t/$key.refs"
		"$cmp" -v "$work/d/$key.$s" "${refdbs[@]}" >"$work/cmp/$key.$2.tsv" 2>"$work/log/$key.$2.cmp" ||
			echo "comparison failed: $(head -c 300 "$work/log/$key.$2.cmp")" >"$work/t/$key.$s.failed"
	else
		"$cmp" -d "$work/d/$key.$s" >"$work/cmp/$key.$2.tsv" 2>"$work/log/$key.$2.cmp" ||
			echo "reading the database failed: $(head -c 300 "$work/log/$key.$2.cmp")" >"$work/t/$key.$s.failed"
	fi
}

configs=()
for o in $opts; do
	for t in $tlist; do
		for p in $progs; do
			configs+=("$p $o $t")
		done
	done
done

pass() {
	local c p o t
	for c in "${configs[@]}"; do
		read -r p o t <<<"$c"
		measure "$p$o-t$t" "$p" "$o" "$t" "$1"
		compare "$p$o-t$t" "$1"
	done
}

# the background load of --load: the sampled runs of the suite, over and over
# (a second copy of the suite's sampled half), in its own process group
load_loop() {
	local c p o t
	mkdir -p "$work/load"
	while :; do
		for c in "${configs[@]}"; do
			read -r p o t <<<"$c"
			rm -rf "$work/load/m"
			"$hpcrun" -o "$work/load/m" "$work/bin/plain$o/$p" "$t" "$scale" >/dev/null 2>&1 || :
		done
	done
}

# --- the table -----------------------------------------------------------------
# val FILE KEY: a value of an acc_compare .tsv ("" when absent)
val() { awk -F'\t' -v k="$2" '$1 == k { print $2; exit }' "$1" 2>/dev/null || :; }
# tcol KEY KIND COL: column of the runstat line (1 wall, 4 maxrss KiB)
tcol() { awk -v c="$3" 'NR == 1 { print $c }' "$work/t/$1.$2" 2>/dev/null || :; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 <= 0) print ""; else printf "%.2f", a / b }'; }
f2() { awk -v v="$1" 'BEGIN { if (v == "" || v == "-") print "–"; else printf "%.2f", v }'; }
num() { case $1 in [0-9]*) printf '%s' "$1" ;; esac; }
short() { local s=$1; [ ${#s} -gt 28 ] && s="${s:0:26}…"; printf '%s' "$s"; }

# table PASS: prints the Markdown table of a pass and appends results.tsv
table() {
	local pass=$1 s=sampled n=native c p o t key f prec rec rp ffe fsa cpa cost eslow emem fs1 fs2 nc
	[ "$pass" = loaded ] && { s=loaded; n=loadnative; }
	note ""
	note "| program | opt | threads | precision | recall | ff error | top FS object agree | top code pair agree | sampled cost | exact slowdown | exact memory |"
	note "|---|---|--:|--:|--:|--:|---|---|--:|--:|--:|"
	for c in "${configs[@]}"; do
		read -r p o t <<<"$c"
		key="$p$o-t$t"
		f="$work/cmp/$key.$pass.tsv"
		cost=$(ratio "$(tcol "$key" $s 1)" "$(tcol "$key" $n 1)")
		cost=${cost:+$cost×}
		if [ -n "$exact_why" ] || [ -f "$work/t/$key.exact.failed" ]; then
			why=${exact_why:-$(cat "$work/t/$key.exact.failed")}
			eslow="n/a" emem="n/a"
			prec="n/a" rec="n/a" ffe="n/a" fsa="n/a (sampled: $(short "$(val "$f" fs_top)"))"
			cpa="n/a"
			[ -f "$work/t/$key.$s.failed" ] && fsa="sampled failed"
		else
			eslow=$(ratio "$(tcol "$key" exact 1)" "$(tcol "$key" native 1)")
			emem=$(ratio "$(tcol "$key" exact 4)" "$(tcol "$key" native 4)")
			eslow=${eslow:+$eslow×} emem=${emem:+$emem×}
			if [ -f "$work/t/$key.$s.failed" ]; then
				prec="failed" rec="failed" ffe="failed" fsa="failed" cpa="failed"
			else
				prec=$(f2 "$(val "$f" precision)")
				rp=$(val "$f" recall_pairs)
				rec="$(f2 "$(val "$f" recall)") (${rp:-?})"
				if [ "$(val "$f" exact_negligible)" = 1 ]; then
					rec="– (exact: $(val "$f" total_exact) transfers)"
				fi
				ffe=$(f2 "$(val "$f" ff_error)")
				fs1=$(val "$f" fs_top_sampled) fs2=$(val "$f" fs_top_exact)
				if [ "$(val "$f" fs_agree)" = yes ]; then
					fsa="yes ($(short "$fs2"))"
				else
					fsa="no ($(short "$fs1") / $(short "$fs2"))"
				fi
				# the sampled top passed over: its false sharing is in code
				# exact mode does not instrument (libgomp's team structure)
				nc=$(val "$f" fs_not_comparable)
				[ -z "$nc" ] || [ "$nc" = - ] || fsa="$fsa; sampled $(short "$nc") not comparable"
				cpa=$(val "$f" cp_agree)
				[ "$cpa" = - ] && cpa=–
			fi
		fi
		note "| $p | $o | $t | $prec | $rec | $ffe | $fsa | ${cpa:-–} | ${cost:-?} | ${eslow:-?} | ${emem:-?} |"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$pass" "$p" "$o" "$t" \
			"$(val "$f" precision)" "$(val "$f" recall)" "$(val "$f" recall_pairs)" \
			"$(val "$f" ff_sampled)" "$(val "$f" ff_exact)" "$(val "$f" ff_error)" \
			"$(val "$f" fs_agree)" "$(val "$f" cp_agree)" "${cost%×}" "$(num "${eslow%×}")" "$(num "${emem%×}")" \
			"$([ -f "$work/t/$key.$s.failed" ] && echo sampled-failed)" >>"$work/results.tsv"
	done
	[ -z "$exact_why" ] || { note ""; note "Exact columns: $exact_why — nothing is judged; the sampled top false-sharing object is shown for reference."; }
	if [ "$pass" = quiet ] && [ -z "$exact_why" ]; then busy_exact; fi
}

# busy_exact: names the exact references taken while the machine was busy
# (1-minute load >= CPUs). Exact mode counts the transfers of the execution
# it measures: threads taking turns on one CPU move a line once per turn,
# not once per access, so such a reference can hold a thousandth of an idle
# machine's transfers (accuracy.md, Session 10) and every sampled pair then
# scores as imprecise.
busy_exact() {
	local c p o t key la busy=""
	for c in "${configs[@]}"; do
		read -r p o t <<<"$c"
		key="$p$o-t$t"
		la=$(cat "$work/t/$key.exact.load" 2>/dev/null) || continue
		awk -v a="$la" -v n="$ncpu" 'BEGIN { exit !(a + 0 >= n) }' && busy="$busy $key (load $la)"
	done
	[ -z "$busy" ] && return 0
	note ""
	note "Exact references taken on a busy machine (1-minute load >= $ncpu CPUs):$busy. Their threads may have taken turns on one CPU, which exact mode counts as one transfer per turn: rerun these configurations (-p, -O, -t) on an idle machine before judging them."
}

# ref_table: --ref-check's second exact run of each configuration judged
# against the first (the reference's own precision, recall and false-
# fraction error): where exact mode misses the goals against itself, its
# thread pairs or false fraction depend on the execution (which threads
# took turns on a CPU, who ran ahead), and a sampled run judged against
# one such reference scores by chance (accuracy.md, Session 12).
ref_table() {
	local c p o t key f pr rc ffe l1 l2 bad="" unstable=""
	note ""
	note "Exact against itself (--ref-check: a second exact run judged against the first):"
	note ""
	note "| program | opt | threads | precision | recall | ff error | top FS object | top code pair | transfers (1st / 2nd) | loads |"
	note "|---|---|--:|--:|--:|--:|---|---|--:|---|"
	for c in "${configs[@]}"; do
		read -r p o t <<<"$c"
		key="$p$o-t$t"
		f="$work/cmp/$key.ref.tsv"
		l1=$(cat "$work/t/$key.exact.load" 2>/dev/null || :) l2=$(cat "$work/t/$key.exact2.load" 2>/dev/null || :)
		if [ ! -s "$f" ]; then
			note "| $p | $o | $t | – | – | – | – | – | second exact run failed | ${l1:-?} / ${l2:-?} |"
			continue
		fi
		pr=$(val "$f" precision) rc=$(val "$f" recall) ffe=$(val "$f" ff_error)
		# both runs below acc_compare's communication threshold: nothing
		# to agree on (the second run's total, judged as a sampled one,
		# is not tested against the threshold by acc_compare itself)
		if [ "$(val "$f" exact_negligible)" = 1 ] &&
			awk -v v="$(val "$f" total_sampled)" 'BEGIN { exit !(v + 0 < 1000) }'; then
			note "| $p | $o | $t | – | – | – | – | – | $(val "$f" total_exact) / $(val "$f" total_sampled): neither communicates | ${l1:-?} / ${l2:-?} |"
			continue
		fi
		# the top object and code pair of exact against itself: a
		# configuration whose reference changes them between two
		# executions cannot be judged on them (Session 15)
		note "| $p | $o | $t | $(f2 "$pr") | $(f2 "$rc") ($(val "$f" recall_pairs)) | $(f2 "$ffe") | $(val "$f" fs_agree) | $(val "$f" cp_agree) | $(val "$f" total_exact) / $(val "$f" total_sampled) | ${l1:-?} / ${l2:-?} |"
		awk -v p="$pr" -v r="$rc" -v e="$ffe" 'BEGIN {
			exit !((p != "" && p != "-" && p < 0.90) || (r != "" && r != "-" && r < 0.80) || (e != "" && e != "-" && e > 0.15)) }' &&
			bad="$bad $key"
		case "$(val "$f" cp_agree) $(val "$f" fs_agree)" in
		no\ *|func\ *|*\ no) unstable="$unstable $key" ;;
		esac
	done
	note ""
	if [ -n "$bad" ]; then
		note "References that miss the goals against themselves:$bad — the sampled figures of these configurations are judged against one of the executions exact mode can see."
	else
		note "Every reference meets the goals against itself."
	fi
	[ -z "$unstable" ] ||
		note "References whose top code pair (line) or top FS object changes between two exact runs:$unstable — their sampled top code pair / object is judged against one of two answers."
}

# summary PASS: how many configurations meet the goals of issue 14, point 2
summary() {
	awk -F'\t' -v pass="$1" '
	function med(a, n,   i, j, t) {
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return n == 0 ? "" : (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2)
	}
	$1 == pass {
		n++
		if ($5 != "" && $5 != "-") { np++; if ($5 >= 0.90) okp++ }
		if ($6 != "" && $6 != "-") { nr++; if ($6 >= 0.80) okr++ }
		if ($10 != "" && $10 != "-") { nf++; if ($10 <= 0.15) okf++ }
		if ($11 != "") { no++; if ($11 == "yes") oko++ }
		if ($12 != "" && $12 != "-") { nc++; if ($12 == "yes") okc++ }
		if ($13 != "") cost[++ncost] = $13
		if ($14 != "") es[++nes] = $14
		if ($15 != "") em[++nem] = $15
		if ($5 == "-" || $5 == "") undef++
	}
	END {
		if (!n) exit
		printf "Goals (issue 14): precision >= 0.90 in %d of %d configurations with a defined precision (%d: the sampler reported nothing, or no exact run); ", okp, np, n - np
		printf "recall >= 0.80 in %d of %d; ff error <= 0.15 in %d of %d; top FS object agrees in %d of %d; top code pair agrees (line) in %d of %d. ", okr, nr, okf, nf, oko, no, okc, nc
		if (ncost) printf "Sampled cost: median %.2f×. ", med(cost, ncost)
		if (nes) printf "Exact mode: median slowdown %.2f×, median memory %.2f× (issue 13: <= 10×, <= 3×).", med(es, nes), med(em, nem)
		printf "\n"
	}' "$work/results.tsv" | tee -a "$work/results.md"
}

commit=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$src" diff --quiet HEAD 2>/dev/null || commit="$commit+changes"
: >"$work/results.tsv"
note "Accuracy suite: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit, $ncpu CPUs, load at start:$(uptime | sed 's/.*load average://')"
note "Programs ($pdir): $progs; levels: $opts; threads: $tlist; scale $scale; sampled: hpcrun-comm at default settings; exact: ${exact_why:-built with $ecc / $ecxx, run with $exact_run, $refs run(s) per configuration$([ "$refs" -gt 1 ] && echo ": the reference is their mean shape, each run one vote")}"
pass quiet
note ""
note "### Quiet (load at the end:$(uptime | sed 's/.*load average://'))"
table quiet
note ""
summary quiet
if compgen -G "$work/t/*.refs.failed" >/dev/null; then
	note "Exact runs that failed (their configurations are judged against the other runs): $(cat "$work"/t/*.refs.failed | tr '\n' ' ')"
fi
if [ $refcheck = 1 ] && [ -z "$exact_why" ]; then ref_table; fi

if [ $load = 1 ]; then
	setsid bash -c "$(declare -f load_loop); $(declare -p configs work hpcrun scale); load_loop" >/dev/null 2>&1 &
	loadpid=$!
	trap 'kill -TERM -- -$loadpid 2>/dev/null || :' EXIT
	sleep 5
	note ""
	note "### Loaded: a second copy of the suite's sampled runs in the background (load at the start:$(uptime | sed 's/.*load average://'))"
	pass loaded
	kill -TERM -- -"$loadpid" 2>/dev/null || :
	trap - EXIT
	note "(load at the end:$(uptime | sed 's/.*load average://'); the exact columns are the quiet runs)"
	table loaded
	note ""
	summary loaded
	note ""
	note "Degradation, quiet -> loaded (precision, recall, ff error; per configuration):"
	note ""
	note "| program | opt | threads | precision | recall | ff error | top FS object | top code pair |"
	note "|---|---|--:|--:|--:|--:|---|---|"
	awk -F'\t' '
	function v(x) { return (x == "" || x == "-") ? "–" : sprintf("%.2f", x) }
	$1 == "quiet" { q[$2 FS $3 FS $4] = $0 }
	$1 == "loaded" { l[$2 FS $3 FS $4] = $0; order[++n] = $2 FS $3 FS $4 }
	END {
		for (i = 1; i <= n; i++) {
			k = order[i]; split(q[k], a, FS); split(l[k], b, FS)
			printf "| %s | %s | %s | %s → %s | %s → %s | %s → %s | %s → %s | %s → %s |\n", a[2], a[3], a[4],
				v(a[5]), v(b[5]), v(a[6]), v(b[6]), v(a[10]), v(b[10]),
				a[11] == "" ? "–" : a[11], b[11] == "" ? "–" : b[11], a[12] == "" ? "–" : a[12], b[12] == "" ? "–" : b[12]
		}
	}' "$work/results.tsv" | tee -a "$work/results.md"
fi
note ""
note "Details (per configuration: the largest thread pairs, objects and code pairs of each database): $work/cmp/*.tsv; raw figures: $work/results.tsv"
