#!/bin/sh
# Point-to-point pairs: workers (1,2) and (3,4) share a line each; the
# expected cells must hold >= 90 % of the recorded volume, each pair must
# communicate, and nothing may be recorded on the diagonal.
. "$(dirname "$0")/lib.sh"
require_measurable
measure pairs -e COMM@200000 "$BENCH" pairs -t 4 -s 2 || fail "comm_bench exited non-zero"
all=$(total pairs)
p12=$(cell pairs 1 2); p34=$(cell pairs 3 4)
diag=$(awk '$1 == "row" && $3 == $4 { s += $5 } END { printf "%.0f\n", s }' "$TMP/pairs.rows")
echo "total $all, cell(1,2) $p12, cell(3,4) $p34"
[ "$all" -gt 0 ] || fail "no communication recorded"
[ "$p12" -gt 0 ] || fail "pair 1-2 not detected"
[ "$p34" -gt 0 ] || fail "pair 3-4 not detected"
r=$(ratio $((p12 + p34)) "$all")
ge "$r" 0.90 && ok "expected cells hold $r of the volume" || fail "expected cells hold only $r of the volume (< 0.90)"
[ "$diag" -eq 0 ] || fail "communication of a thread with itself: $diag"
finish
