#!/bin/sh
# Peers across thread lifetimes (issue 14 point 4): the accuracy suite's
# `generations` program (3 generations of 2 threads, each reading the slice
# a thread of the previous generation wrote and overwriting the one of the
# generation before; main sums the last generation's output) measured in
# exact mode and sampled. Exact mode counts transfers between threads whose
# lifetimes never overlapped, 8 designed pairs of 12.5 % each at 2 threads
# (doc/accuracy.md, "Session 10: thread generations"). Judged against it,
# with tolerances for a loaded machine and the ASan build (best of up to 3
# sampled runs, never timing):
#  - whatever the sampler reports is exact mode's pairs: precision >= 0.90
#    in every run (entries outlive their publishers, but not their lines:
#    the expiry rule of doc/detection.md §5.6/§5.8/§5.15);
#  - start sets (detection.md §5.8) and join sets (§5.15) find them:
#    recall >= 0.60 (5 of 8 pairs; measured 6-8 of 8) and a pair of main
#    with the last generation (main's final sum, a join set's) in at least one
#    of the runs.
. "$(dirname "$0")/lib.sh"
require_measurable
CCW="$B/hpcrun-comm/hpcrun-comm-cc"
CMP="$B/bench/accuracy/acc_compare"
P="$S/bench/accuracy/programs"
[ -x "$CCW" ] && [ -x "$CMP" ] || { echo "SKIP: hpcrun-comm-cc or acc_compare not built"; exit 77; }
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O2 -g -pthread -I"$P" -o "$TMP/gen" "$P/generations.c" "$P/work.c" || fail "cannot build generations"
"$CCW" -O2 -g -pthread -I"$P" -o "$TMP/genx" "$P/generations.c" "$P/work.c" || fail "hpcrun-comm-cc cannot build generations"
[ "$FAILS" -eq 0 ] || finish
"$HPCRUN" --exact -o "$TMP/x" "$TMP/genx" 2 0.3 >"$TMP/x.out" 2>&1 || fail "exact run failed"
"$HPCPROF" -q -o "$TMP/x.db" "$TMP/x" >/dev/null 2>&1 || fail "hpcprof-comm failed on the exact run"
# judge SAMPLED EXACT LABEL: the sampled run's pairs must be exact mode's
# (precision >= 0.90), unless exact mode counted too few transfers to judge;
# THREADS (default 2) as the 4th argument;
# sets $rec (recall) and $neg.
judge() {
	"$HPCPROF" -q -o "$TMP/$1.db" "$TMP/$1" >/dev/null 2>&1 || fail "${3}hpcprof-comm failed on the sampled run"
	"$CMP" "$TMP/$1.db" "$TMP/$2.db" >"$TMP/$1.tsv" 2>&1 || fail "${3}acc_compare failed: $(tail -3 "$TMP/$1.tsv")"
	neg=$(awk '$1 == "exact_negligible" { print $2 }' "$TMP/$1.tsv")
	prec=$(awk '$1 == "precision" { print $2 }' "$TMP/$1.tsv")
	# recall over exact mode's pairs >= 5 % of its volume, but main's
	# with generations 0-1: under the ASan build exact mode counts the
	# allocator's zeroing of the calloc'd buffers as main's writes (pairs
	# (0,1)-(0,4) at 7-14 % each, none in the plain build), which no
	# sampler can see (allocator code, before any thread)
	set -- "$1" "$2" "$3" "$(awk -F, -v T="${4:-2}" 'FNR == 1 { f++; next }
		{ for (k = 2; k <= NF; k++) { i = $1; j = k - 2; if (i < j) { if (f == 1) { x[i "," j] = $k; tot += $k } else s[i "," j] = $k } } }
		END { for (p in x) { split(p, a, ","); if (x[p] < 0.05 * tot || (a[1] == 0 && a[2] <= 2 * T)) continue; n++; if (s[p] > 0) m++ }
		      printf "%.3f %d/%d\n", n ? m / n : 0, m, n }' "$TMP/$2.db/matrices/thread-all.csv" "$TMP/$1.db/matrices/thread-all.csv")"
	rec=${4%% *}
	if [ "$neg" = 1 ]; then
		echo "${3}exact mode counted too few transfers in its run to judge (machine load: the threads were rarely co-scheduled)"
	else
		ge "$prec" 0.90 && ok "${3}sampled pairs are exact mode's: precision $prec, recall $4 (suite's: $(awk '$1 == "recall_pairs" { print $2 }' "$TMP/$1.tsv"))" ||
			{ sed -n '/^#/p' "$TMP/$1.tsv"; fail "${3}precision $prec < 0.90 against exact mode"; }
	fi
}
# Threads 1-2 are generation 0, 3-4 generation 1, 5-6 generation 2 (main's
# final sum reads theirs).
best=0 main_found=0 neg=0 rec=0
for try in 1 2 3; do
	rm -rf "${TMP:?}/s" "${TMP:?}/s.db"
	measure s -e COMM@100000 "$TMP/gen" 2 0.3 || fail "sampled run failed"
	js=$(awk '$1 == "tcounter" && $3 == 0 && $4 == "join_sets" { print $5 }' "$TMP/s.rows")
	[ "${js:-0}" -gt 0 ] || echo "try $try: main armed no join set (join_sets_none $(counter s join_sets_none))"
	m=$(($(cell s 0 5) + $(cell s 0 6)))
	[ "$m" -gt 0 ] && main_found=1
	if [ "$(total s)" -gt 0 ]; then
		judge s x "try $try: "
		ge "$rec" "$best" && best=$rec
	else
		echo "try $try: the sampler found nothing ($(counter s samples) samples)"
	fi
	across=$(awk '$1 == "row" && $3 > 0 && $4 > 0 && int(($3 - 1) / 2) != int(($4 - 1) / 2) { s += $5 } END { printf "%.0f\n", s }' "$TMP/s.rows")
	echo "try $try: volume $(total s), across generations $across, main with the last generation $m; join sets $js, trapped $(counter s join_traps)"
	[ "$neg" = 1 ] && break
	ge "$best" 0.60 && [ "$main_found" -eq 1 ] && break
done
if [ "${neg:-0}" != 1 ]; then
	ge "$best" 0.60 && ok "recall $best (best run) >= 0.60 of exact mode's pairs" ||
		fail "recall $best < 0.60 of exact mode's pairs in 3 runs"
	[ "$main_found" -eq 1 ] && ok "main's final sum found (a pair of main with the last generation)" ||
		fail "main's final-sum pairs (0,5), (0,6) not found in 3 runs (join sets)"
fi

# Oversubscribed (4 threads a generation on this machine's CPUs, or more
# threads than CPUs anyway): every thread of generations 1-2 (indexes
# 5-12) begins after others ended and arms a start set before it runs.
# Until session 8 the watchpoints' switch gate refused most of them (a
# crowded process: a new thread has no evidence yet), so the hand-off
# reads went unwatched (doc/detection.md §5.9). Counted per thread; what
# the sampler reports must again be exact mode's pairs.
"$HPCRUN" --exact -o "$TMP/x4" "$TMP/genx" 4 0.3 >"$TMP/x4.out" 2>&1 || fail "exact run (4 threads) failed"
"$HPCPROF" -q -o "$TMP/x4.db" "$TMP/x4" >/dev/null 2>&1 || fail "hpcprof-comm failed on the exact run (4 threads)"
# Both counts need a later-generation thread to be sampled early in its
# short life: on a loaded machine one run can miss it (CI of 2d29ade at
# load ~17: no late start set), so up to 3 runs, the first with both.
for try in 1 2 3; do
	rm -rf "${TMP:?}/s4" "${TMP:?}/s4.db"
	measure s4 -e COMM@100000 "$TMP/gen" 4 0.3 || fail "sampled run (4 threads) failed"
	armed=$(awk '$1 == "tcounter" && $4 == "start_sets" && $3 >= 5 && $5 > 0 { n++ } END { print n + 0 }' "$TMP/s4.rows")
	late=$(counter s4 start_sets_late)
	[ "$armed" -ge 6 ] && [ "${late:-0}" -ge 1 ] && break
	echo "4 threads, try $try: $armed later-generation start sets, ${late:-0} late start sets"
done
if [ "$(counter s4 watch_armed)" -eq 0 ] && [ "$(counter s4 samples)" -eq 0 ]; then
	echo "4 threads: no samples at all (nothing to judge)"
else
	[ "$armed" -ge 6 ] && ok "4 threads: $armed of the 8 later-generation threads armed a start set ($(counter s4 start_traps) trapped)" ||
		fail "4 threads: only $armed of the 8 later-generation threads armed a start set (watch_gated $(counter s4 watch_gated))"
	# late start sets (session 12, detection.md §5.15): at their first
	# sample, on the ended threads their start sets did not watch (a
	# generation-2 thread meets 8 of them and main for 3-4 registers)
	[ "${late:-0}" -ge 1 ] && ok "4 threads: $late late start sets armed" ||
		fail "4 threads: no late start set armed ($(counter s4 samples) samples, $(counter s4 start_traps) start-set traps)"
fi
if [ "$(total s4)" -gt 0 ]; then
	judge s4 x4 "4 threads: " 4
	echo "4 threads: sampled thread pairs $(awk '$1 == "row" && $3 != $4 && $5 > 0 { print ($3 < $4 ? $3 "," $4 : $4 "," $3) }' "$TMP/s4.rows" | sort -u | wc -l)"
else
	echo "4 threads: the sampler found nothing (allowed, as above)"
fi
finish
