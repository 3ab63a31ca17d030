#!/bin/sh
# False-sharing fraction: a designed fraction F of the accesses go to the
# worker's own slot of a shared line (false sharing), the rest to one shared
# word (true sharing). The recorded false fraction must be within 0.15 of F.
. "$(dirname "$0")/lib.sh"
require_measurable
for f in 0.25 0.75; do
	n=false$f
	measure "$n" -e COMM@200000 "$BENCH" false "$f" -t 2 -s 3 || fail "comm_bench exited non-zero"
	all=$(total "$n"); fal=$(total "$n" 7)
	[ "$all" -gt 0 ] || { fail "F=$f: no communication recorded"; continue; }
	r=$(ratio "$fal" "$all")
	echo "F=$f: total $all, false $fal, false fraction $r"
	d=$(awk -v r="$r" -v f="$f" 'BEGIN { d = r - f; if (d < 0) d = -d; print d }')
	ge 0.15 "$d" && ok "F=$f recovered as $r" || fail "F=$f recovered as $r (off by $d > 0.15)"
done
finish
