#!/bin/sh
# Point-to-point pairs: workers (1,2) and (3,4) share a line each; the
# expected cells must hold >= 90 % of the recorded volume, each pair must
# communicate, and nothing may be recorded on the diagonal.
# An amount of work (-n), not a time, so a loaded machine does not shrink
# the sample count; a run that finds fewer than 10 detections' volume (on
# a loaded machine the two workers of a pair may rarely run in turn: 1-3
# detections in 2,700 samples at load 19, 28-38 at load 16) is measured
# again, at most twice, and the output says so (lib.sh, measure_min).
. "$(dirname "$0")/lib.sh"
require_measurable
measure_min pairs 2000000 -e COMM@200000 "$BENCH" pairs -t 4 -n 150000 || fail "comm_bench exited non-zero"
all=$(total pairs)
p12=$(cell pairs 1 2); p34=$(cell pairs 3 4)
diag=$(awk '$1 == "row" && $3 == $4 { s += $5 } END { printf "%.0f\n", s }' "$TMP/pairs.rows")
echo "total $all, cell(1,2) $p12, cell(3,4) $p34 ($(counter pairs samples) samples)"
[ $((p12 + p34)) = "$all" ] || { echo "rows off the pair cells (row pid I J all true false sample trap):"
	awk '$1 == "row" && !(($3 == 1 && $4 == 2) || ($3 == 2 && $4 == 1) || ($3 == 3 && $4 == 4) || ($3 == 4 && $4 == 3))' "$TMP/pairs.rows"; }
[ "$all" -gt 0 ] || fail "no communication recorded"
[ "$p12" -gt 0 ] || fail "pair 1-2 not detected"
[ "$p34" -gt 0 ] || fail "pair 3-4 not detected"
r=$(ratio $((p12 + p34)) "$all")
ge "$r" 0.90 && ok "expected cells hold $r of the volume" || fail "expected cells hold only $r of the volume (< 0.90)"
[ "$diag" -eq 0 ] || fail "communication of a thread with itself: $diag"
finish
