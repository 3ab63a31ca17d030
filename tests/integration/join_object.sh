#!/bin/sh
# Join sets keep to the object their last trap read (issue 14 point 2,
# doc/detection.md §5.15 "Session 13"): the accuracy suite's `stencil`
# (a Jacobi sweep over two grids, row blocks, 2 workers; main sums the
# last sweep's grid after joining them). The workers' lines on the board
# lie in either grid; main reads one. A join set watches one line of each
# worker wherever it lies; after its first trap (main reading one worker's
# rows of the final grid), the next join set takes the other worker's
# lines in the heap block that trap read. Checked with tolerances (up to
# 20 runs, session 30: a CI needed 5; the first set's line is in the final grid about half the time,
# and main reads the grid in address order, so a first trap on the second
# worker's rows leaves the first one's behind; never timing):
#  - a join set was kept to the grid of a trap (counter join_sets_object),
#    and main's final sum was found with both workers (pairs (0,1) and
#    (0,2)) in a run (measured: both within 1-5 runs of 5 sittings);
#  - what the join sets report is main with the workers it joined;
#  - HPCRUN_COMM_JOIN_OBJECT=0 turns the rule off (no such set).
# The rule needs the runtime's heap blocks: in the sanitizer build, whose
# allocator the runtime does not track (counter allocs_tracked 0), only the
# last two are checked.
. "$(dirname "$0")/lib.sh"
require_measurable
P="$S/bench/accuracy/programs"
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O2 -g -pthread -I"$P" -o "$TMP/stencil" "$P/stencil.c" "$P/work.c" || fail "cannot build stencil"
[ "$FAILS" -eq 0 ] || finish

kept=0 both=0 joins=0 tracked=0
for try in $(seq 1 20); do
	rm -rf "${TMP:?}/s"
	measure s -e COMM@100000 "$TMP/stencil" 2 0.3 || fail "sampled run failed"
	skip_without_pset s
	jo=$(counter s join_sets_object)
	jt=$(counter s join_traps)
	m1=$(cell s 0 1) m2=$(cell s 0 2)
	joins=$((joins + $(counter s join_sets)))
	tracked=$((tracked + $(counter s allocs_tracked)))
	# main communicates with nobody but the two workers it created and joined
	other=$(awk '$1 == "row" && ($3 == 0 || $4 == 0) && $3 + $4 > 2 && $5 > 0 { n++ } END { print n + 0 }' "$TMP/s.rows")
	[ "$other" -eq 0 ] || fail "try $try: main paired with a thread other than its two workers ($other rows)"
	echo "try $try: join sets $(counter s join_sets), kept to the trap's grid $jo, join traps $jt; main with T1 $m1, with T2 $m2"
	[ "${jo:-0}" -gt 0 ] && kept=1
	[ "$m1" -gt 0 ] && [ "$m2" -gt 0 ] && both=1
	[ "$kept" -eq 1 ] && [ "$both" -eq 1 ] && break
done
if [ "$tracked" -eq 0 ]; then
	echo "no heap block tracked in this build (the sanitizer build's allocator): the rule cannot act; not judged"
elif [ "$joins" -eq 0 ]; then
	echo "no join set armed in 20 runs (no whole line of the workers on the board: a loaded machine); nothing to judge"
else
	[ "$kept" -eq 1 ] && ok "a join set was kept to the grid its trap read" ||
		fail "no join set was kept to the grid of a trap in 20 runs"
	[ "$both" -eq 1 ] && ok "main's final sum found with both workers" ||
		fail "main's final sum not found with both workers in 20 runs"
fi

# the switch
rm -rf "${TMP:?}/off"
HPCRUN_COMM_JOIN_OBJECT=0 measure off -e COMM@100000 "$TMP/stencil" 2 0.3 || fail "run with the rule off failed"
[ "$(counter off join_sets_object)" -eq 0 ] && ok "HPCRUN_COMM_JOIN_OBJECT=0: no join set kept to an object" ||
	fail "HPCRUN_COMM_JOIN_OBJECT=0 still kept $(counter off join_sets_object) join sets to an object"
finish
