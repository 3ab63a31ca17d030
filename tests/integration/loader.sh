#!/bin/sh
# The loader gate (doc/runtime.md): a program that spends most of its time
# in dlopen/dlclose, sampled every 50 µs of CPU time, finishes with the
# output and status of a native run, and the samples that came while its
# thread was inside the loader were dropped (unwind_loader_gated > 0), not
# unwound into the loader's lock (a sample in the dlclose wrapper's walk
# once deadlocked an Open MPI program in MPI_Finalize).
. "$(dirname "$0")/lib.sh"
require_measurable
P="$B/tests/programs/dl_loop"
"$P" 3000 >"$TMP/native.out" 2>&1 || fail "dl_loop fails natively: $(cat "$TMP/native.out")"
timeout 300 "$HPCRUN" -e COMM@50000 -o "$TMP/m" "$P" 3000 >"$TMP/m.out" 2>"$TMP/m.err"
rc=$?
[ $rc -eq 124 ] && fail "dl_loop measured: no progress in 300 s (deadlock in the loader?)"
[ $rc -eq 0 ] && ok "dl_loop measured: status 0" || fail "dl_loop measured: status $rc"
cmp -s "$TMP/native.out" "$TMP/m.out" && ok "output as native: $(cat "$TMP/m.out")" ||
	fail "output differs: $(cat "$TMP/m.out")"
g=$(awk '$1 == "counter" && $2 == "unwind_loader_gated" { s += $3 } END { print s + 0 }' "$TMP"/m/*.log)
s=$(awk '$1 == "counter" && $2 == "samples" { s += $3 } END { print s + 0 }' "$TMP"/m/*.log)
echo "samples $s, dropped inside the loader $g"
[ "$g" -gt 0 ] && ok "samples inside dlopen/dlclose lose their context ($g of $s)" ||
	fail "no sample was gated inside the loader ($s samples)"
finish
