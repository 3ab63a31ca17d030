#!/bin/sh
# The soft sampler's rate levels (lib/runtime/sampler/rate.h,
# doc/performance.md "Session 8" and "Session 11"), on one CPU (the shell
# pins itself with taskset; the runs inherit it): comm_bench's private
# workers, a fixed amount of work (-n), so the sample counts follow CPU
# time, not the machine's load.
#   4 workers + main = 5 live threads > 2 x 1 + 1: heavily crowded — after
#     the 500-sample warm-up, samples at x4 (samples_heavy > 0, the log's
#     "changes to it" >= 1);
#   the same with HPCRUN_COMM_CROWDED_HEAVY=1: no heavy sample, the log
#     says there is no such level;
#   2 workers + main = 3 live threads: crowded (> 1 + 1) — the accuracy
#     suite's 2x shape: heavy samples at the default
#     (HPCRUN_COMM_CROWDED_HEAVY_FROM=1, Session 14); with
#     HPCRUN_COMM_CROWDED_HEAVY_FROM=2 (the rule before) not heavily
#     (<= 2 x 1 + 1): coarse samples, no heavy one.
#   the heavy shape with HPCRUN_COMM_SWITCHY_RATE=1 (any switch makes the
#     process "switching": level 3, Session 16) samples through per-thread
#     tick timers (HPCRUN_COMM_TICK=1, the default, Session 17): the log
#     counts timers made (>= 5: main, blocked in pthread_join, gets one
#     too), none failed, the changes through the tick (task-clock events
#     disabled) and timer samples (> 0); with HPCRUN_COMM_TICK=0
#     it says the level runs on the task-clock; its warm-up ended at the
#     first look from sample 256 on (HPCRUN_COMM_SWITCHY_WARMUP, Session
#     20), the heavy run's not; with HPCRUN_COMM_TICK_CLOSE=1 (Session 27)
#     the task-clock events are closed at the change and the timers go on,
#     as at the default HPCRUN_COMM_TICK_EMPTY=1 (Session 29), not with it 0.
# In every run the thinned periods add up: samples_thinned = 1 per coarse
# sample + 2 more per heavy one (x2 and x4). Counters, never timing.
# The analyzer warns that coverage was cut (database.xml's warnings, every
# report shows them) exactly when the summed counters say so: a sample
# standing for 4 periods or more on average, or at least 10 watchpoint sets
# refused by the switch gate and no fewer refused than armed
# (lib/report's hc_report_coverage_cut); a run at HPCRUN_COMM_CROWDED_PERIOD=8
# (a coarse sample stands for 8 periods, a heavy one for 16) must warn.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v taskset >/dev/null 2>&1 && taskset -pc 0 $$ >/dev/null 2>&1 ||
	{ echo "SKIP: cannot pin the test to one CPU (taskset)"; exit 77; }
echo "pinned to CPU 0 (the runs inherit it)"
N=400000   # ~2.5 s of CPU here: 1,700-2,900 samples, the 500-sample warm-up well behind on a machine 3x faster
measure heavy "$BENCH" private -t 4 -n $N || fail "heavy run failed"
export HPCRUN_COMM_CROWDED_HEAVY=1
measure off "$BENCH" private -t 4 -n $N || fail "run with the level off failed"
unset HPCRUN_COMM_CROWDED_HEAVY
measure twoh "$BENCH" private -t 2 -n $((2 * N)) || fail "2-worker run failed"
export HPCRUN_COMM_CROWDED_HEAVY_FROM=2
measure two "$BENCH" private -t 2 -n $((2 * N)) || fail "2-worker run (HEAVY_FROM=2) failed"
unset HPCRUN_COMM_CROWDED_HEAVY_FROM
HPCRUN_COMM_CROWDED_PERIOD=8 measure thin8 "$BENCH" private -t 4 -n $N || fail "run at x8 failed"
export HPCRUN_COMM_SWITCHY_RATE=1
measure tick "$BENCH" private -t 4 -n $N || fail "switching-level run failed"
HPCRUN_COMM_TICK_CLOSE=1 measure tclose "$BENCH" private -t 4 -n $N || fail "switching-level run (TICK_CLOSE=1) failed"
HPCRUN_COMM_TICK_EMPTY=0 measure tnoempty "$BENCH" private -t 4 -n $N || fail "switching-level run (TICK_EMPTY=0) failed"
export HPCRUN_COMM_TICK=0
measure tick0 "$BENCH" private -t 4 -n $N || fail "switching-level run (TICK=0) failed"
unset HPCRUN_COMM_TICK
unset HPCRUN_COMM_SWITCHY_RATE
log() { cat "$TMP/$1"/*.log 2>/dev/null; }
log heavy | grep -q "sampling rate:" ||
	{ echo "SKIP: not the soft sampler (no 'sampling rate:' line in the log)"; exit 77; }

for m in heavy off two twoh; do
	s=$(counter $m samples) c=$(counter $m samples_coarse) h=$(counter $m samples_heavy) th=$(counter $m samples_thinned)
	echo "$m: samples $s, coarse $c, heavy $h, thinned $th"
	if log $m | grep -q "sampling rate: COMM@[0-9]* throughout (no coarse event)"; then
		echo "SKIP: no coarse event here ($(log $m | grep 'sampling rate' | head -1))"
		exit 77
	fi
	[ "$th" -eq $((c + 2 * h)) ] && ok "$m: thinned periods add up ($th = $c + 2 x $h)" ||
		fail "$m: samples_thinned $th is not coarse $c + 2 x heavy $h"
	[ "$c" -gt 0 ] && ok "$m: $c coarse samples" || fail "$m: no coarse sample (crowded on one CPU)"
done
h=$(counter heavy samples_heavy)
[ "$h" -gt 0 ] && ok "5 live threads on 1 CPU: $h heavy samples" || fail "5 live threads on 1 CPU: no heavy sample"
log heavy | grep -q "heavily crowded (more than 2 live threads on 1 CPUs.*); [1-9][0-9]* changes to it" &&
	ok "the log states the heavy level and its changes" ||
	fail "no heavy-level line with changes: $(log heavy | grep 'sampling rate' | tail -1)"
[ "$(counter off samples_heavy)" -eq 0 ] && ok "HPCRUN_COMM_CROWDED_HEAVY=1: no heavy sample" ||
	fail "HPCRUN_COMM_CROWDED_HEAVY=1: $(counter off samples_heavy) heavy samples"
log off | grep -q "no heavily crowded level (HPCRUN_COMM_CROWDED_HEAVY=1)" &&
	ok "the log says the level is off" || fail "no 'no heavily crowded level' line"
[ "$(counter two samples_heavy)" -eq 0 ] && ok "3 live threads on 1 CPU, HEAVY_FROM=2: coarse, never heavy" ||
	fail "3 live threads on 1 CPU, HEAVY_FROM=2: $(counter two samples_heavy) heavy samples"
h=$(counter twoh samples_heavy)
[ "$h" -gt 0 ] && ok "3 live threads on 1 CPU (crowded): $h heavy samples" ||
	fail "3 live threads on 1 CPU (crowded): no heavy sample at the default"
for m in heavy off thin8; do
	"$HPCPROF" -q -o "$TMP/$m.d" "$TMP/$m" 2>"$TMP/$m.prof.err" || fail "$m: hpcprof-comm failed"
	s=$(counter $m samples) th=$(counter $m samples_thinned)
	a=$(counter $m watch_armed) g=$(counter $m watch_gated)
	want=no
	[ $((s + th)) -ge $((4 * s)) ] && [ "$s" -gt 0 ] && want=yes
	[ "$g" -ge 10 ] && [ "$g" -ge "$a" ] && want=yes
	got=no
	grep -q "<Warning>coverage cut to keep the cost down" "$TMP/$m.d/database.xml" && got=yes
	[ "$got" = "$want" ] &&
		ok "$m: coverage warning $got (samples $s, thinned $th, sets armed $a, refused $g)" ||
		fail "$m: coverage warning $got, the counters say $want (samples $s, thinned $th, armed $a, refused $g)"
done
grep -q "<Warning>coverage cut to keep the cost down.*stood for" "$TMP/thin8.d/database.xml" &&
	ok "x8: the warning names the thinned samples" || fail "x8: no coverage warning on thinned samples"
l=$(log tick | grep "sampling rate: the switching level through per-thread tick timers")
echo "tick: $l"
m=$(echo "$l" | sed -n 's/.*: \([0-9]*\) timers made, \([0-9]*\) failed.*, \([0-9]*\) changes to it.*, \([0-9]*\) threads without a slot.*, \([0-9]*\) timer samples.*/\1 \2 \3 \4 \5/p')
set -- $m
[ $# -eq 5 ] || fail "no tick-timer line in the switching-level run's log"
if [ $# -eq 5 ]; then
	# main + 4 workers: main, blocked in pthread_join, gets its timer from the worker that changes the level
	[ "$1" -ge 5 ] && [ "$2" -eq 0 ] && [ "$4" -eq 0 ] && ok "switching level: $1 tick timers made (main's too), none failed" ||
		fail "switching level: $1 timers made (want >= 5), $2 failed, $4 threads without a slot"
	[ "$3" -ge 1 ] && ok "switching level through the tick: $3 changes to it" || fail "switching level: no change through the tick"
	[ "$5" -gt 0 ] && ok "switching level: $5 timer samples" || fail "switching level: no timer sample"
fi
[ "$(counter tick samples_heavy)" -gt 0 ] && ok "tick run: heavy samples" || fail "tick run: no heavy sample"
# the switching rule in the warm-up (HPCRUN_COMM_SWITCHY_WARMUP=256, the
# default; Session 20): the switching run ends its warm-up at level 3, the
# heavy run (private workers: few switches) keeps it
e=$(log tick | sed -n 's/.*(HPCRUN_COMM_SWITCHY_WARMUP, 0 = never): \([0-9]*\) changes to it ended the warm-up early.*/\1/p')
[ -n "$e" ] && [ "$e" -ge 1 ] && ok "switching run: its warm-up ended early ($e)" ||
	fail "switching run: the warm-up did not end early ('$e')"
e=$(log heavy | sed -n 's/.*(HPCRUN_COMM_SWITCHY_WARMUP, 0 = never): \([0-9]*\) changes to it ended the warm-up early.*/\1/p')
[ "$e" = 0 ] && ok "heavy run: the warm-up kept (not switching)" ||
	fail "heavy run: the warm-up ended early or no line ('$e')"
# HPCRUN_COMM_TICK_CLOSE (Session 27): off by default, but
# HPCRUN_COMM_TICK_EMPTY=1 (the default since Session 29) closes the
# task-clock events at the change too (the log names it); with both off
# the log says not closed; TICK_CLOSE=1 closes them and the timers go on
# sampling at level 3
log tick | grep -q "(HPCRUN_COMM_TICK_EMPTY=1; .*): closed after" &&
	ok "switching run: the task-clock events closed (HPCRUN_COMM_TICK_EMPTY=1, the default)" ||
	fail "switching run: no 'closed after' line naming HPCRUN_COMM_TICK_EMPTY=1"
log tick0 | grep -q "HPCRUN_COMM_TICK_EMPTY" && fail "HPCRUN_COMM_TICK=0: the task-clock events closed (no tick timers)"
log tnoempty | grep -q "(HPCRUN_COMM_TICK_CLOSE=0; .*): not closed" &&
	ok "TICK_EMPTY=0: the task-clock events not closed" || fail "TICK_EMPTY=0: no 'not closed' line"
c=$(log tclose | sed -n 's/.*(HPCRUN_COMM_TICK_CLOSE=1; .*): closed after \([0-9]*\) samples.*/\1/p')
[ -n "$c" ] && ok "TICK_CLOSE=1: the task-clock events closed after $c samples" ||
	fail "TICK_CLOSE=1: no 'closed after' line"
m=$(log tclose | sed -n 's/.*tick timers.*, \([0-9]*\) timer samples.*/\1/p')
[ -n "$m" ] && [ "$m" -gt 0 ] && ok "TICK_CLOSE=1: $m timer samples" || fail "TICK_CLOSE=1: no timer sample ('$m')"
# the switching rule's user rate (HPCRUN_COMM_SWITCHY_USER_RATE, Session 27):
# its figures in the log (private workers hardly block: it never decides)
log heavy | grep -q "or more than 120000 voluntary ones per second of its user CPU time since it was crowded" &&
	ok "heavy run: the user rate's line" || fail "heavy run: no user-rate line"
log tick0 | grep -q "the switching level through the task-clock (HPCRUN_COMM_TICK=0)" &&
	ok "HPCRUN_COMM_TICK=0: the log says the level runs on the task-clock" ||
	fail "HPCRUN_COMM_TICK=0: no task-clock line"
finish
