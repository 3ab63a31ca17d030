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
#    with 4 workers starting together, within 80 runs 1 s apart (a run
#    finds two workers in 1-3 of 12 beside an ASan suite) a creator's hand-off
#    chain (detection.md §5.27) has a worker wait for it, re-arms and
#    traps in two distinct workers, main paired with its workers only;
#    HPCRUN_COMM_START_CHAIN=0 starts none;
#  - at the defaults, with main's initialisation unsampled (-O2), within 32
#    runs (10 failed under that load) a worker's line comes from a grid main had written (counter
#    start_sets_block_written, detection.md §5.32), main paired with its
#    workers only; never from generations' calloc'd buffers; none with
#    HPCRUN_COMM_START_BLOCK_WRITTEN=0.
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
	# up to 80 runs: this session's CIs needed 1, 6, 6 and 28 (a run
	# succeeds in 1 of 6 to 1 of 28 under a CI's load; 40 runs would then
	# fail about 1 CI in 4)
	for try in $(seq 1 80); do
		rm -rf "${TMP:?}/c"
		HPCRUN_COMM_START_BLOCK_OPEN=0 measure c "$TMP/stencil" 4 0.2 || fail "chain run failed"
		other=$(awk '$1 == "row" && ($3 == 0 || $4 == 0) && ($3 > 4 || $4 > 4) && $5 > 0 { n++ } END { print n + 0 }' "$TMP/c.rows")
		[ "$other" -eq 0 ] || fail "chain try $try: main paired with a thread other than its workers ($other rows)"
		waits=$(counter c start_chain_waits)
		rearms=$(chain_n c '([0-9]+) lines re-armed')
		new=$(chain_n c 'traps ([0-9]+) by a thread new')
		echo "chain try $try: waits $waits, re-arms $rearms, traps by new threads $new"
		[ "$waits" -ge 1 ] && [ "$rearms" -ge 1 ] && [ "$new" -ge 2 ] && { chained=1; break; }
		# a try takes ~0.3 s: spread the next ones over ~50 s, so that a
		# burst of load does not decide them all (a session 25 CI run:
		# 8 back-to-back tries, all 0 re-arms; under a concurrent ASan
		# suite the first 5 spread tries failed, the 6th found two;
		# session 27's fresh-clone CI: 0 of 16, and beside its ASan half
		# 1 of 12 on session 26's runtime, 1-3 of 12 on session 27's)
		sleep 1
	done
	[ "$chained" -eq 1 ] && ok "a creator's hand-off chain found two workers (try $try)" ||
		fail "no creator's hand-off chain re-armed and trapped in two workers in 80 runs"
	rm -rf "${TMP:?}/c0"
	HPCRUN_COMM_START_BLOCK_OPEN=0 HPCRUN_COMM_START_CHAIN=0 measure c0 "$TMP/stencil" 4 0.2 ||
		fail "run with the chain off failed"
	[ "$(chain_n c0 'most\): ([0-9]+) started')" = 0 ] && [ "$(counter c0 start_chain_waits)" -eq 0 ] &&
		ok "HPCRUN_COMM_START_CHAIN=0: no chain" || fail "HPCRUN_COMM_START_CHAIN=0 still chained: $(chain_line c0)"
fi

# a creator's written block (detection.md §5.32; the defaults: mode 1 and
# HPCRUN_COMM_START_BLOCK_WRITTEN=1): at -O2 main's initialisation of its
# (mmap'd, fresh) grids often ends before its first sample, no store of
# its is on the board, and the workers' line comes from a grid it had
# written when it created them; generations' buffers are calloc's (zeroed,
# resident when allocated): never a written block
if [ "$tracked" -gt 0 ]; then
	cc -O2 -g -pthread -I"$P" -o "$TMP/stencil2" "$P/stencil.c" "$P/work.c" || fail "cannot build stencil -O2"
	cc -O0 -g -pthread -I"$P" -o "$TMP/generations" "$P/generations.c" "$P/work.c" || fail "cannot build generations"
	unset HPCRUN_COMM_START_BLOCK HPCRUN_COMM_START_BLOCK_OPEN
	wr=0
	# up to 32 runs (this session's CIs needed 3-5; one of session 29's
	# failed 16)
	for try in $(seq 1 32); do
		rm -rf "${TMP:?}/w"
		measure w "$TMP/stencil2" 2 0.2 || fail "written-block run failed"
		other=$(awk '$1 == "row" && ($3 == 0 || $4 == 0) && $3 + $4 > 2 && $5 > 0 { n++ } END { print n + 0 }' "$TMP/w.rows")
		[ "$other" -eq 0 ] || fail "written try $try: main paired with a thread other than its two workers ($other rows)"
		echo "written try $try: block lines $(counter w start_sets_block_pset), from a written block $(counter w start_sets_block_written)"
		[ "$(counter w start_sets_block_written)" -ge 1 ] && { wr=1; break; }
	done
	[ "$wr" -eq 1 ] && ok "a worker's block line from a grid main had written (none of its stores on the board)" ||
		fail "no block line from a written block in 32 runs"
	for try in 1 2 3; do
		rm -rf "${TMP:?}/g"
		measure g "$TMP/generations" 4 0.2 || fail "generations run failed"
		[ "$(counter g start_sets_block_written)" -eq 0 ] ||
			fail "generations try $try: a block line from main's calloc'd buffers ($(counter g start_sets_block_written))"
	done
	ok "generations: main's calloc'd buffers are never a written block"
	rm -rf "${TMP:?}/w0"
	HPCRUN_COMM_START_BLOCK_WRITTEN=0 measure w0 "$TMP/stencil2" 2 0.2 || fail "run with the written block off failed"
	[ "$(counter w0 start_sets_block_written)" -eq 0 ] && ok "HPCRUN_COMM_START_BLOCK_WRITTEN=0: none" ||
		fail "HPCRUN_COMM_START_BLOCK_WRITTEN=0 still armed from a written block"
fi

rm -rf "${TMP:?}/off"
HPCRUN_COMM_START_BLOCK=0 measure off "$TMP/stencil" 2 0.2 || fail "run with the set off failed"
[ $(( $(counter off start_sets_block) + $(counter off start_sets_block_pset) )) -eq 0 ] &&
	ok "HPCRUN_COMM_START_BLOCK=0: no creator's block set" ||
	fail "HPCRUN_COMM_START_BLOCK=0 still armed creator's block sets"
finish
