#!/bin/sh
# A creator's block set (doc/detection.md §5.16 "Session 14"): the
# accuracy suite's `stencil` (main initialises two grids, then 2 workers
# sweep their row blocks, reading one grid and overwriting the other).
# Each worker's first sweep reads and overwrites what main wrote, over
# before its first sample. With HPCRUN_COMM_START_BLOCK=2 a worker that no
# start set serves watches, from its first instruction, D lines of a big
# block main allocated (or was seen storing to). Checked with tolerances,
# never timing:
#  - every run arms one at a worker's start (counters start_sets_block and
#    start_sets_block_pset: main's grids are live and resident);
#  - within 6 runs a worker's set traps (counter start_traps: no thread
#    ends before the workers start, so no other start set exists), and
#    main's volume is with its two workers only;
#  - HPCRUN_COMM_START_BLOCK=0 arms none;
#  - on the process-wide set (HPCRUN_COMM_START_BLOCK_OPEN=0, the default)
#    with 4 workers starting together, within 8 runs a creator's hand-off
#    chain (detection.md §5.27) has a worker wait for it, re-arms and
#    traps in two distinct workers, main paired with its workers only;
#    HPCRUN_COMM_START_CHAIN=0 starts none.
# The sets here open the workers' own registers (HPCRUN_COMM_START_BLOCK_OPEN=1;
# the default 0 gives them the process-wide set's line only, performance.md
# "Session 15"), so start_traps counts their traps.
# The rule needs the runtime's heap blocks: in the sanitizer build, whose
# allocator the runtime does not track (counter allocs_tracked 0), only the
# switch is checked.
. "$(dirname "$0")/lib.sh"
require_measurable
P="$S/bench/accuracy/programs"
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O0 -g -pthread -I"$P" -o "$TMP/stencil" "$P/stencil.c" "$P/work.c" || fail "cannot build stencil"
[ "$FAILS" -eq 0 ] || finish

export HPCRUN_COMM_START_BLOCK=2 HPCRUN_COMM_START_BLOCK_OPEN=1
trapped=0 armed_all=1 tracked=0
for try in 1 2 3 4 5 6; do
	rm -rf "${TMP:?}/s"
	measure s "$TMP/stencil" 2 0.2 || fail "sampled run failed"
	skip_without_pset s
	tracked=$((tracked + $(counter s allocs_tracked)))
	armed=$(( $(counter s start_sets_block) + $(counter s start_sets_block_pset) ))
	st=$(counter s start_traps)
	other=$(awk '$1 == "row" && ($3 == 0 || $4 == 0) && $3 + $4 > 2 && $5 > 0 { n++ } END { print n + 0 }' "$TMP/s.rows")
	[ "$other" -eq 0 ] || fail "try $try: main paired with a thread other than its two workers ($other rows)"
	echo "try $try: block sets $armed, start traps $st; main with T1 $(cell s 0 1 9), with T2 $(cell s 0 2 9) (trap volume)"
	[ "$(counter s allocs_tracked)" -eq 0 ] && break
	[ "$armed" -ge 1 ] || armed_all=0
	[ "$st" -gt 0 ] && { trapped=1; break; }
done
if [ "$tracked" -eq 0 ]; then
	echo "no heap block tracked in this build (the sanitizer build's allocator): the set cannot act; not judged"
else
	[ "$armed_all" -eq 1 ] && ok "a creator's block set armed in every run" ||
		fail "a run armed no creator's block set"
	[ "$trapped" -eq 1 ] && ok "a worker's first sweep trapped on main's grid" ||
		fail "no creator's block set trapped in 6 runs"
fi

# the hand-off chain: 4 workers, one line on the process-wide set
chain_line() { grep -h "creator's hand-off chains" "$TMP/$1"/*.log 2>/dev/null | head -n 1; }
chain_n() { chain_line "$1" | sed -E "s/.*$2.*/\1/"; }
if [ "$tracked" -gt 0 ]; then
	chained=0
	for try in 1 2 3 4 5 6 7 8; do
		rm -rf "${TMP:?}/c"
		HPCRUN_COMM_START_BLOCK_OPEN=0 measure c "$TMP/stencil" 4 0.2 || fail "chain run failed"
		other=$(awk '$1 == "row" && ($3 == 0 || $4 == 0) && ($3 > 4 || $4 > 4) && $5 > 0 { n++ } END { print n + 0 }' "$TMP/c.rows")
		[ "$other" -eq 0 ] || fail "chain try $try: main paired with a thread other than its workers ($other rows)"
		waits=$(counter c start_chain_waits)
		rearms=$(chain_n c '([0-9]+) lines re-armed')
		new=$(chain_n c 'traps ([0-9]+) by a thread new')
		echo "chain try $try: waits $waits, re-arms $rearms, traps by new threads $new"
		[ "$waits" -ge 1 ] && [ "$rearms" -ge 1 ] && [ "$new" -ge 2 ] && { chained=1; break; }
	done
	[ "$chained" -eq 1 ] && ok "a creator's hand-off chain found two workers" ||
		fail "no creator's hand-off chain re-armed and trapped in two workers in 8 runs"
	rm -rf "${TMP:?}/c0"
	HPCRUN_COMM_START_BLOCK_OPEN=0 HPCRUN_COMM_START_CHAIN=0 measure c0 "$TMP/stencil" 4 0.2 ||
		fail "run with the chain off failed"
	[ "$(chain_n c0 'most\): ([0-9]+) started')" = 0 ] && [ "$(counter c0 start_chain_waits)" -eq 0 ] &&
		ok "HPCRUN_COMM_START_CHAIN=0: no chain" || fail "HPCRUN_COMM_START_CHAIN=0 still chained: $(chain_line c0)"
fi

rm -rf "${TMP:?}/off"
HPCRUN_COMM_START_BLOCK=0 measure off "$TMP/stencil" 2 0.2 || fail "run with the set off failed"
[ $(( $(counter off start_sets_block) + $(counter off start_sets_block_pset) )) -eq 0 ] &&
	ok "HPCRUN_COMM_START_BLOCK=0: no creator's block set" ||
	fail "HPCRUN_COMM_START_BLOCK=0 still armed creator's block sets"
finish
