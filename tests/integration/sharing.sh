#!/bin/sh
# Write volume follows the sharing fraction; a read-write mix communicates
# in both directions. The soft sampler's unit is CPU time spent in
# communicating accesses, and contended accesses are the expensive ones, so
# the volume grows with S but not in proportion (doc/accuracy.md): the test
# asks for growth, and for (almost) nothing when nothing is shared.
. "$(dirname "$0")/lib.sh"
require_measurable
# The growth with S is the samples' part: with live watchpoints nearly
# every armed set traps on these four hot lines whatever S is (one set per
# sample), so the traps' volume saturates (doc/accuracy.md, "What traps
# measure"); the growth is checked with watchpoints off, the rest with the
# defaults.
# Every run is an amount of work (-n: blocks of 1024 accesses per worker),
# not a time: a loaded machine stretches the run, the sample count stays.
# The two growth runs put both workers on one CPU (-1): a sample detects
# another thread's publication made since its own previous sample, so the
# samples' volume follows how often the two workers' accesses interleave.
# On two free CPUs they run side by side; on a loaded machine each runs
# alone for whole time slices, the interleavings are the slice switches,
# and S = 0.1 and S = 0.9 both come near one detection per switch (under
# load S = 0.1 gave 9-157 detections from run to run, S = 0.9 242-506, and
# one run failed with S = 0.9 at 0.97x S = 0.1). On one CPU the workers
# always take turns, loaded or not: S = 0.9 gave 12-60x S = 0.1.
measure s0 -e COMM@200000 "$BENCH" sharing 0.0 -t 2 -n 200000 || fail "S=0 run failed"
HPCRUN_COMM_WATCHPOINTS=0 measure s10 -e COMM@200000 "$BENCH" sharing 0.1 -t 2 -n 150000 -1 || fail "S=0.1 run failed"
HPCRUN_COMM_WATCHPOINTS=0 measure s90 -e COMM@200000 "$BENCH" sharing 0.9 -t 2 -n 150000 -1 || fail "S=0.9 run failed"
measure s90w -e COMM@200000 "$BENCH" sharing 0.9 -t 2 -n 150000 || fail "S=0.9 run (watchpoints) failed"
measure rw -e COMM@200000 "$BENCH" readwrite 0.5 -t 2 -n 60000 || fail "R=0.5 run failed"
z=$(total s0); a=$(total s10); b=$(total s90); bw=$(total s90w); rw12=$(cell rw 1 2)
echo "S=0: $z, S=0.1: $a ($(counter s10 samples) samples), S=0.9: $b ($(counter s90 samples) samples) (no watchpoints, one CPU), S=0.9: $bw, readwrite 0.5 cell(1,2): $rw12"
[ "$b" -gt 0 ] && [ "$bw" -gt 0 ] || fail "S=0.9 shows no communication"
ge "$b" "$(awk -v a="$a" 'BEGIN { printf "%.0f", a * 1.1 }')" && ok "volume grows with the sharing fraction" ||
	fail "S=0.9 ($b) not above S=0.1 ($a) by 10 %"
ge "$(awk -v b="$bw" 'BEGIN { printf "%.0f", b * 0.05 }')" "$z" && ok "nothing shared: $z" ||
	fail "S=0 shows $z (>= 5 % of S=0.9)"
[ "$rw12" -gt 0 ] && ok "read-write pair communicates" || fail "read-write pair shows nothing"
# The experiment switch: no previous-instruction recovery, accesses at the PC only.
HPCRUN_COMM_NO_PREV=1 measure np -e COMM@200000 "$BENCH" sharing 0.9 -t 2 -n 100000 || fail "NO_PREV run failed"
rp=$(counter np samples_recovered_prev); ap=$(counter np samples_with_access_at_pc)
[ "$rp" -eq 0 ] && [ "$ap" -gt 0 ] && ok "HPCRUN_COMM_NO_PREV: $ap at the PC, none recovered" ||
	fail "HPCRUN_COMM_NO_PREV: recovered $rp, at the PC $ap"
grep -q "previous-instruction recovery: off" "$TMP"/np/*.log && ok "the log says so" || fail "no log line for NO_PREV"
finish
