#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# refspread.sh — how far an exact reference is from itself (doc/detection.md
# §5.39): with K >= 3 exact databases of one configuration, judges each one
# by acc_compare against the mean shape of the other K-1 (leave one out),
# and prints one line a run: total transfers, precision, recall (pairs),
# false-fraction error, top FS object and code pair agreement. A sampled
# run is then judged against the reference's own spread: a goal that the
# exact runs miss against each other is the program's, not the sampler's.
#
#   bench/accuracy/refspread.sh BUILDDIR EXACT-DB EXACT-DB EXACT-DB [...]
set -u
[ $# -ge 4 ] || { sed -n '3,12p' "$0"; exit 2; }
B=$1; shift
dbs=("$@")
printf "%-40s %9s %6s %6s %7s %7s %4s %4s\n" "left out" transfers prec recall pairs ff_err FS cp
for i in "${!dbs[@]}"; do
	rest=()
	for j in "${!dbs[@]}"; do [ "$i" = "$j" ] || rest+=("${dbs[$j]}"); done
	"$B/bench/accuracy/acc_compare" "${dbs[$i]}" "${rest[@]}" 2>/dev/null | awk -v n="${dbs[$i]##*/}" '
		{ v[$1] = $2 }
		END { printf "%-40s %9s %6s %6s %7s %7s %4s %4s\n", n, v["total_sampled"], v["precision"], v["recall"],
		             v["recall_pairs"], v["ff_error"], v["fs_agree"], v["cp_agree"] }'
done
