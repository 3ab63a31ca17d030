#!/bin/sh
# An embarrassingly parallel program shows (almost) no communication: its
# total must stay below 5 % of a sharing program's, measured the same way.
# Also: a shared line that is only read never communicates (no store).
. "$(dirname "$0")/lib.sh"
require_measurable
measure share -e COMM@200000 "$BENCH" sharing 1.0 -t 4 -s 1.5 || fail "sharing run failed"
measure priv -e COMM@200000 "$BENCH" private -t 4 -s 1.5 || fail "private run failed"
measure reads -e COMM@200000 "$BENCH" readwrite 1.0 -t 4 -s 1 || fail "read-only run failed"
s=$(total share); p=$(total priv); rd=$(total reads)
samples=$(counter priv samples)
echo "sharing $s, private $p (samples $samples), read-only $rd"
[ "$s" -gt 0 ] || fail "the sharing program shows no communication"
[ "$samples" -gt 100 ] || fail "too few samples in the private run ($samples)"
r=$(ratio "$p" "$s")
ge 0.05 "$r" && ok "private/sharing = $r" || fail "private/sharing = $r (>= 0.05)"
[ "$rd" -eq 0 ] && ok "read-only sharing: no communication" || fail "read-only sharing recorded $rd"
finish
