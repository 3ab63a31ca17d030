#!/bin/sh
# Write volume follows the sharing fraction; a read-write mix communicates
# in both directions.
. "$(dirname "$0")/lib.sh"
require_measurable
measure s10 -e COMM@200000 "$BENCH" sharing 0.1 -t 2 -s 2 || fail "S=0.1 run failed"
measure s90 -e COMM@200000 "$BENCH" sharing 0.9 -t 2 -s 2 || fail "S=0.9 run failed"
measure rw -e COMM@200000 "$BENCH" readwrite 0.5 -t 2 -s 1.5 || fail "R=0.5 run failed"
a=$(total s10); b=$(total s90); rw12=$(cell rw 1 2)
echo "S=0.1: $a, S=0.9: $b, readwrite 0.5 cell(1,2): $rw12"
[ "$b" -gt 0 ] || fail "S=0.9 shows no communication"
ge "$b" "$((2 * a))" && ok "volume grows with the sharing fraction" || fail "S=0.9 ($b) not > 2x S=0.1 ($a)"
[ "$rw12" -gt 0 ] && ok "read-write pair communicates" || fail "read-write pair shows nothing"
finish
