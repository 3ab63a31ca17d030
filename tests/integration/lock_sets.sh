#!/bin/sh
# Lock sets (doc/detection.md §5.35): bench/accuracy/programs/lock_queue.c,
# main pushing tasks into a mutex + condition-variable queue (its indices
# and items in one heap struct with the mutex) and 3 workers popping them
# and adding to a total under a second mutex. Checked, with
# HPCRUN_COMM_LOCK_SETS=1 and the context-switch gate off
# (HPCRUN_COMM_SWITCH_NS=0: the workers block on their locks and switch
# often, and the gate keeps their registers closed): the log states the rule; hand-offs counted; lock
# sets armed, and within 4 runs a trap of theirs (lock_traps > 0), the
# program's output unchanged (it checks its own count), every pair of its
# volume between its own threads, and at least 90 % of the volume true.
# The interposed calls keep return values and errno (an inline program:
# trylock of a held mutex is EBUSY, errno survives lock/unlock and a timed
# wait's ETIMEDOUT). With HPCRUN_COMM_LOCK_SETS=0: off in the log, nothing
# counted. Where no heap block is tracked (the ASan build) the neighbourhood
# is the 64 bytes after the mutex (the queue's condition variables): only
# the hand-offs and the switch are checked. Patterns and counters, never
# timing.
# Lock sets on the process-wide set (§5.38; HPCRUN_COMM_LOCK_PSET=0 in the
# runs above, which test §5.35): lock_queue 2 with the gate closed for
# every thread (HPCRUN_COMM_SWITCH_NS=10000000): within 4 runs, sets armed
# at releases and, in one run, their traps judged, false at least as often as true (the
# queue's items and indices share lines with what the other side writes:
# exact mode counts 100 % false there), the volume between threads 0 and 1
# only, the program's output unchanged; with =0 no set asked for. The
# open threads' verdicts (HPCRUN_COMM_LOCK_VERDICT, §5.38; =0 in the §5.35
# run above, whose lock sets are all true): lock_queue 4 with the gate off
# judges some traps true (a worker reading the head another worker wrote)
# and some false (main's pushes beside the indices), as exact mode does;
# lock_queue 2 with the gate off: at most a quarter of the open worker's
# lock traps without a verdict (§5.44: a release snapshot per mutex).
# The releaser's context (§5.49, HPCRUN_COMM_LOCK_STORE): of the contexts
# captured at releases, at least one ends at the critical section's store
# (lock_queue's `q->tail++` / `tot->count++` before the unlock), and the
# log states the rule; with HPCRUN_COMM_LOCK_STORE=0 none does.
# A later releaser as the watched line's last writer (§5.53,
# HPCRUN_COMM_LOCK_PSET_AFTER, default off): off by default; with =1
# (lock_queue 4, every thread gated) later releases followed, output kept.
# One weight unit (§5.61): the log states that lock traps are flagged for
# the analyzer's scaling, and the run's lock sets counted what they stood
# for (lock_scale_handoffs) at least as much as their capped weights
# (lock_scale_weighed); with HPCRUN_COMM_LOCK_PSET_ACQ=1 (lock_queue 2,
# every thread gated) the gated releasers' sets are armed by the next
# acquirers (lock_acq_arms), their traps judged, the output kept; the
# default is =2, per mutex (§5.67), which the log says (the runs above that
# check the sets armed after the release set it to 0).
# Lock sets kept (§5.62, HPCRUN_COMM_LOCK_KEEP, default off): off by
# default; with =1 spare registers filled and sets re-armed after a trap.
# Lock sets drawn (§5.65, HPCRUN_COMM_LOCK_DRAW, default off): =0 nothing
# drawn; =1 with every thread gated: due sets taken by the next critical
# sections, a changed line drawn for each set armed, traps judged, output
# kept; =2 with the gate off: open threads' lock sets drawn too. §5.71
# (HPCRUN_COMM_LOCK_UNTRIED, _LINES, DRAW=3, default off): off in the log;
# with them on and every thread gated, due sets taken by the mutex's next
# critical sections, untried words watched, traps weighing their lines.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
P=$S/bench/accuracy/programs
cc -O2 -g -pthread -I"$P" -o "$TMP/lock_queue" "$P/lock_queue.c" "$P/work.c" || fail "cannot build lock_queue"
cat >"$TMP/lock_errno.c" <<'CEOF'
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static long v;
static void *other(void *a)
{
	for (int i = 0; i < 20000; i++) {
		pthread_mutex_lock(&m);
		v++;
		pthread_mutex_unlock(&m);
	}
	return a;
}
int main(void)
{
	pthread_t t;
	struct timespec ts;
	int bad = 0, r;
	pthread_create(&t, NULL, other, NULL);
	for (int i = 0; i < 20000; i++) {
		errno = 4321;
		pthread_mutex_lock(&m);
		bad += errno != 4321;
		v++;
		pthread_mutex_unlock(&m);
		bad += errno != 4321;
	}
	pthread_join(t, NULL);
	pthread_mutex_lock(&m);
	r = pthread_mutex_trylock(&m);
	bad += r != EBUSY;
	clock_gettime(CLOCK_REALTIME, &ts);
	errno = 77;
	r = pthread_cond_timedwait(&c, &m, &ts);
	bad += r != ETIMEDOUT || errno != 77;
	pthread_mutex_unlock(&m);
	printf("v=%ld bad=%d\n", v, bad);
	return bad != 0 || v != 40000;
}
CEOF
cc -O2 -g -pthread -o "$TMP/lock_errno" "$TMP/lock_errno.c" || fail "cannot build lock_errno"
[ "$FAILS" -eq 0 ] || finish

HPCRUN_COMM_LOCK_SETS=1 measure errno "$TMP/lock_errno" && grep -q "v=40000 bad=0" "$TMP/errno.out" &&
	ok "return values and errno unchanged ($(logc errno lock_handoffs) hand-offs)" ||
	fail "lock_errno: $(cat "$TMP/errno.out")"

HPCRUN_COMM_LOCK_VERDICT=0 HPCRUN_COMM_LOCK_PSET=0 HPCRUN_COMM_SWITCH_NS=0 HPCRUN_COMM_LOCK_SETS=1 \
	measure_until on 4 'skip_without_pset on; [ "$(logc on allocs_tracked)" -eq 0 ] || [ "$(logc on lock_traps)" -gt 0 ]' \
	"$TMP/lock_queue" 4
grep -q "count=50000" "$TMP/on.out" && ok "the program's output unchanged" || fail "lock_queue printed: $(cat "$TMP/on.out")"
cc=$(logc on lock_ctx_captures) cs=$(logc on lock_ctx_store)
[ "$cc" -gt 0 ] && [ "$cs" -gt 0 ] && [ "$cs" -le "$cc" ] &&
	ok "releasers' contexts at their stores: $cs of $cc captured" ||
	fail "releasers' contexts at their stores: $cs of $cc captured"
grep -q "a releaser's context at its latest store up to 32 instructions before its unlock" "$TMP/on"/*.log &&
	ok "the log states the store rule" || fail "no 'a releaser's context at its latest store' line in the log"
grep -q "lock sets: .* at most once in 1 of its samples" "$TMP/on"/*.log && ok "the log states the rule" ||
	fail "no 'lock sets: ... at most once in 1 of its samples' line in the log"
h=$(logc on lock_handoffs) sets=$(logc on lock_sets)
[ "$h" -gt 100 ] && ok "hand-offs counted: $h" || fail "only $h hand-offs counted"
[ "$sets" -gt 0 ] && ok "lock sets armed: $sets" || fail "no lock set armed"
if [ "$(logc on allocs_tracked)" -eq 0 ]; then
	echo "note: no heap block tracked (a sanitizer build?): traps not checked"
else
	tr=$(logc on lock_traps)
	[ "$tr" -gt 0 ] && ok "lock set traps (communications): $tr, dropped in system code $(logc on lock_traps_system)" ||
		fail "no lock set trap in 4 runs"
	all=$(total on) tru=$(total on 6)
	if [ "$all" -gt 0 ]; then
		share=$(ratio "$tru" "$all")
		ge "$share" 0.90 && ok "true share of the volume: $share" ||
			{ grep '^row' "$TMP/on.rows" >&2; fail "true share of the volume only $share"; }
		out=$(outside on 3)
		[ "$out" -eq 0 ] && ok "every pair between the program's threads" || fail "volume $out outside threads 0-3"
	fi
fi

if [ "$(logc on allocs_tracked)" -gt 0 ]; then
	# a run whose first traps fell on the words main changed (tail, the
	# item) learns those words (the good words first, §5.65) and judges
	# them true all run: seen once in ~15 CI runs (0 false, 36 true), 1 CPU
	# busy here gives 0-4 true against 7-28 false; so up to 4 runs until
	# one has traps and false at least as often
	HPCRUN_COMM_LOCK_PSET_ACQ=0 HPCRUN_COMM_SWITCH_NS=10000000 \
		measure_until ps 4 'pt=$(logc ps lock_pset_true) pf=$(logc ps lock_pset_false); [ "$((pt + pf))" -gt 0 ] && [ "$pf" -ge "$pt" ]' \
		"$TMP/lock_queue" 2
	grep -q "count=50000" "$TMP/ps.out" && ok "process-wide lock sets: the program's output unchanged" ||
		fail "lock_queue printed: $(cat "$TMP/ps.out")"
	grep -q "lock sets on the process-wide set: on" "$TMP/ps"/*.log && ok "the log states the process-wide rule" ||
		fail "no 'lock sets on the process-wide set: on' line in the log"
	pa=$(logc ps lock_pset_arms) pt=$(logc ps lock_pset_true) pf=$(logc ps lock_pset_false)
	[ "$pa" -gt 0 ] && ok "process-wide lock sets armed: $pa ($(logc ps lock_snaps) snapshots)" ||
		fail "no process-wide lock set armed ($(logc ps lock_snaps) snapshots, $(logc ps lock_pset_refused) refused)"
	[ "$((pt + pf))" -gt 0 ] && [ "$pf" -ge "$pt" ] && ok "their traps: $pf false, $pt true" ||
		fail "process-wide lock set traps: $pf false, $pt true (false expected at least as often)"
	out=$(outside ps 1)
	[ "$out" -eq 0 ] && ok "process-wide lock sets: every pair between threads 0 and 1" ||
		fail "volume $out outside threads 0-1"
	# §5.53 (HPCRUN_COMM_LOCK_PSET_AFTER, default off): off in the log and
	# nothing followed by default; with =1 and every thread of lock_queue 4
	# gated, later releases that changed the watched line are followed
	# (lock_after_writes) and the program's output unchanged.
	grep -q "last writer, the trap its communication judged by the bytes it changed: off" "$TMP/ps"/*.log &&
		[ "$(logc ps lock_after_writes)" -eq 0 ] && ok "HPCRUN_COMM_LOCK_PSET_AFTER: off by default" ||
		fail "HPCRUN_COMM_LOCK_PSET_AFTER default: not off ($(logc ps lock_after_writes) later releases followed)"
	HPCRUN_COMM_LOCK_PSET_AFTER=1 HPCRUN_COMM_LOCK_PSET_ACQ=0 HPCRUN_COMM_SWITCH_NS=10000000 \
		measure_until pa 4 '[ "$(logc pa lock_after_writes)" -gt 0 ]' "$TMP/lock_queue" 4
	grep -q "count=50000" "$TMP/pa.out" && grep -q "bytes it changed: on" "$TMP/pa"/*.log &&
		[ "$(logc pa lock_after_writes)" -gt 0 ] &&
		ok "HPCRUN_COMM_LOCK_PSET_AFTER=1: $(logc pa lock_after_writes) later releases changed the line, $(logc pa lock_after_peer) traps theirs, $(logc pa lock_after_own) the trapper's own" ||
		fail "HPCRUN_COMM_LOCK_PSET_AFTER=1: $(logc pa lock_after_writes) later releases followed (output: $(cat "$TMP/pa.out"))"
	grep -q "lock traps' weights: flagged for the analyzer to scale .*: on" "$TMP/ps"/*.log &&
		[ "$(logc ps lock_scale_handoffs)" -ge "$(logc ps lock_scale_weighed)" ] &&
		[ "$(logc ps lock_scale_weighed)" -gt 0 ] &&
		ok "lock weights' scale: $(logc ps lock_scale_handoffs) hand-offs stood for, $(logc ps lock_scale_weighed) weighed" ||
		fail "lock weights' scale: $(logc ps lock_scale_handoffs) hand-offs, $(logc ps lock_scale_weighed) weighed (or no log line)"
	HPCRUN_COMM_LOCK_PSET_ACQ=1 HPCRUN_COMM_SWITCH_NS=10000000 \
		measure_until aq 4 '[ "$(( $(logc aq lock_pset_true) + $(logc aq lock_pset_false) ))" -gt 0 ]' "$TMP/lock_queue" 2
	grep -q "count=50000" "$TMP/aq.out" && [ "$(logc aq lock_acq_arms)" -gt 0 ] &&
		grep -q "not after the release: on (HPCRUN_COMM_LOCK_PSET_ACQ" "$TMP/aq"/*.log &&
		grep -q "not after the release: per mutex (HPCRUN_COMM_LOCK_PSET_ACQ" "$TMP/on"/*.log &&
		[ "$(( $(logc aq lock_pset_true) + $(logc aq lock_pset_false) ))" -gt 0 ] &&
		ok "HPCRUN_COMM_LOCK_PSET_ACQ=1 (=2, per mutex, the default: §5.67): $(logc aq lock_acq_arms) sets armed by acquirers ($(logc aq lock_acq_pending) prepared), traps $(logc aq lock_pset_false) false, $(logc aq lock_pset_true) true" ||
		fail "HPCRUN_COMM_LOCK_PSET_ACQ=1 (and the default =2 in the log): $(logc aq lock_acq_arms) armed of $(logc aq lock_acq_pending), traps $(logc aq lock_pset_false) false, $(logc aq lock_pset_true) true (output: $(cat "$TMP/aq.out"))"
	HPCRUN_COMM_SWITCH_NS=0 HPCRUN_COMM_LOCK_SETS=1 \
		measure_until vd 4 '[ "$(logc vd lock_verdict_true)" -gt 0 ] && [ "$(logc vd lock_verdict_false)" -gt 0 ]' \
		"$TMP/lock_queue" 4
	vt=$(logc vd lock_verdict_true) vf=$(logc vd lock_verdict_false)
	[ "$vt" -gt 0 ] && [ "$vf" -gt 0 ] && ok "open threads' lock sets judged: $vt true, $vf false ($(logc vd lock_verdict_none) no transfer)" ||
		fail "open threads' lock set verdicts: $vt true, $vf false (both expected)"
	# An open worker alternates the queue's mutex and the total's, and its
	# samples land outside both (its work): every lock set must find the
	# snapshot of its own last release of that mutex (§5.44; before, one
	# snapshot a thread taken only while due: 213-226 of 217-227 traps
	# unknown, and an unknown verdict counts true, ff 0.2 against 1.0).
	rm -rf "${TMP:?}/ow"
	HPCRUN_COMM_SWITCH_NS=0 measure ow "$TMP/lock_queue" 2 || fail "sampled run (open worker) failed"
	ot=$(logc ow lock_traps) ou=$(logc ow lock_verdict_unknown)
	if [ "$ot" -ge 10 ]; then
		[ $((4 * ou)) -le "$ot" ] && ok "open worker's lock traps with a known verdict: $((ot - ou)) of $ot" ||
			fail "open worker: $ou of $ot lock traps without a verdict (its release snapshots lost)"
	else
		echo "open worker: only $ot lock traps (nothing to judge)"
	fi
	# §5.62 (HPCRUN_COMM_LOCK_KEEP, default off): off in the log and
	# nothing filled or re-armed by default (the verdict runs above); with
	# =1 (lock_queue 4, the gate off) within 4 runs a set's spare registers
	# on other changed lines and a set re-armed after a trap, its traps
	# judged, the output unchanged.
	grep -q "lock sets kept: .*: off (HPCRUN_COMM_LOCK_KEEP" "$TMP/vd"/*.log &&
		[ "$(logc vd lock_keep_filled)" -eq 0 ] && [ "$(logc vd lock_keep_rearms)" -eq 0 ] &&
		ok "HPCRUN_COMM_LOCK_KEEP: off by default" ||
		fail "HPCRUN_COMM_LOCK_KEEP default: not off ($(logc vd lock_keep_filled) filled, $(logc vd lock_keep_rearms) re-armed)"
	HPCRUN_COMM_LOCK_KEEP=1 HPCRUN_COMM_SWITCH_NS=0 HPCRUN_COMM_LOCK_SETS=1 \
		measure_until kp 4 '[ "$(logc kp lock_keep_filled)" -gt 0 ] && [ "$(logc kp lock_keep_rearms)" -gt 0 ]' \
		"$TMP/lock_queue" 4
	grep -q "count=50000" "$TMP/kp.out" && grep -q "lock sets kept: .*: on (HPCRUN_COMM_LOCK_KEEP" "$TMP/kp"/*.log &&
		[ "$(logc kp lock_keep_filled)" -gt 0 ] && [ "$(logc kp lock_keep_rearms)" -gt 0 ] &&
		[ "$(( $(logc kp lock_verdict_true) + $(logc kp lock_verdict_false) ))" -gt 0 ] &&
		ok "HPCRUN_COMM_LOCK_KEEP=1: $(logc kp lock_keep_filled) spare registers filled, $(logc kp lock_keep_rearms) sets re-armed after a trap ($(logc kp lock_keep_ends) refused), $(logc kp lock_traps) traps" ||
		fail "HPCRUN_COMM_LOCK_KEEP=1: $(logc kp lock_keep_filled) filled, $(logc kp lock_keep_rearms) re-armed, verdicts $(logc kp lock_verdict_true)/$(logc kp lock_verdict_false) (output: $(cat "$TMP/kp.out"))"
	# §5.65 (HPCRUN_COMM_LOCK_DRAW): =0 nothing drawn; with =1 and every
	# thread of lock_queue 2 gated, within 4 runs the due sets taken by the
	# next critical sections (lock_draw_taken), a changed line drawn for
	# each set armed (lock_draw_lines), their traps judged, output kept.
	HPCRUN_COMM_LOCK_DRAW=0 HPCRUN_COMM_LOCK_PSET_ACQ=0 HPCRUN_COMM_SWITCH_NS=10000000 \
		measure_until dr0 4 '[ "$(logc dr0 lock_pset_arms)" -gt 0 ]' "$TMP/lock_queue" 2
	grep -q "lock sets drawn: .*: off (HPCRUN_COMM_LOCK_DRAW" "$TMP/dr0"/*.log &&
		[ "$(logc dr0 lock_draw_tokens)" -eq 0 ] && [ "$(logc dr0 lock_draw_lines)" -eq 0 ] &&
		ok "HPCRUN_COMM_LOCK_DRAW=0: off, nothing drawn" ||
		fail "HPCRUN_COMM_LOCK_DRAW=0: $(logc dr0 lock_draw_tokens) tokens, $(logc dr0 lock_draw_lines) lines"
	HPCRUN_COMM_LOCK_DRAW=1 HPCRUN_COMM_LOCK_PSET_ACQ=0 HPCRUN_COMM_SWITCH_NS=10000000 \
		measure_until dr 4 '[ "$(( $(logc dr lock_pset_true) + $(logc dr lock_pset_false) ))" -gt 0 ]' "$TMP/lock_queue" 2
	grep -q "count=50000" "$TMP/dr.out" && grep -q "lock sets drawn: .*: on (HPCRUN_COMM_LOCK_DRAW" "$TMP/dr"/*.log &&
		[ "$(logc dr lock_draw_taken)" -gt 0 ] && [ "$(logc dr lock_draw_taken)" -le "$(logc dr lock_draw_tokens)" ] &&
		[ "$(logc dr lock_draw_lines)" -ge "$(logc dr lock_pset_arms)" ] && [ "$(logc dr lock_pset_arms)" -gt 0 ] &&
		[ "$(( $(logc dr lock_pset_true) + $(logc dr lock_pset_false) ))" -gt 0 ] &&
		ok "HPCRUN_COMM_LOCK_DRAW=1: $(logc dr lock_draw_taken) of $(logc dr lock_draw_tokens) due sets taken, $(logc dr lock_pset_arms) armed standing for $(logc dr lock_draw_lines) lines, traps $(logc dr lock_pset_false) false, $(logc dr lock_pset_true) true" ||
		fail "HPCRUN_COMM_LOCK_DRAW=1: $(logc dr lock_draw_taken) of $(logc dr lock_draw_tokens) taken, $(logc dr lock_pset_arms) armed, $(logc dr lock_draw_lines) lines, traps $(logc dr lock_pset_false)/$(logc dr lock_pset_true) (output: $(cat "$TMP/dr.out"))"
	# =2: open threads' lock sets drawn too (lock_queue 4, the gate off)
	HPCRUN_COMM_LOCK_DRAW=2 HPCRUN_COMM_LOCK_PSET_ACQ=0 HPCRUN_COMM_SWITCH_NS=0 HPCRUN_COMM_LOCK_SETS=1 \
		measure_until dr2 4 '[ "$(logc dr2 lock_draw_lines)" -gt 0 ] && [ "$(logc dr2 lock_traps)" -gt 0 ]' "$TMP/lock_queue" 4
	grep -q "count=50000" "$TMP/dr2.out" && grep -q "lock sets drawn: .*: on, open threads' too" "$TMP/dr2"/*.log &&
		[ "$(logc dr2 lock_draw_lines)" -gt 0 ] && [ "$(logc dr2 lock_traps)" -gt 0 ] &&
		ok "HPCRUN_COMM_LOCK_DRAW=2: $(logc dr2 lock_sets) lock sets standing for $(logc dr2 lock_draw_lines) lines, $(logc dr2 lock_traps) traps" ||
		fail "HPCRUN_COMM_LOCK_DRAW=2: $(logc dr2 lock_sets) sets, $(logc dr2 lock_draw_lines) lines, $(logc dr2 lock_traps) traps (output: $(cat "$TMP/dr2.out"))"
	# §5.71: =3 a due set taken by the next critical section of the
	# mutex whose release made it due, the changed lines in turn weighing
	# them (HPCRUN_COMM_LOCK_LINES=2), one word choice in 2 among the
	# untried words (HPCRUN_COMM_LOCK_UNTRIED); off by default
	grep -q "lock sets' words: .*: off (HPCRUN_COMM_LOCK_UNTRIED.*: off (HPCRUN_COMM_LOCK_LINES" "$TMP/dr0"/*.log &&
		ok "HPCRUN_COMM_LOCK_UNTRIED, HPCRUN_COMM_LOCK_LINES: off by default" ||
		fail "HPCRUN_COMM_LOCK_UNTRIED, HPCRUN_COMM_LOCK_LINES: not off by default"
	HPCRUN_COMM_LOCK_DRAW=3 HPCRUN_COMM_LOCK_LINES=2 HPCRUN_COMM_LOCK_UNTRIED=2 HPCRUN_COMM_LOCK_PSET_ACQ=0 \
	HPCRUN_COMM_SWITCH_NS=10000000 measure_until dr3 4 \
		'[ "$(logc dr3 lock_untried)" -gt 0 ] && [ "$(logc dr3 lock_draw_lines)" -gt "$(logc dr3 lock_pset_arms)" ]' \
		"$TMP/lock_queue" 2
	grep -q "count=50000" "$TMP/dr3.out" && grep -q "lock sets drawn: .*: on, the next critical section only" "$TMP/dr3"/*.log &&
		grep -q "lock sets' words: .*one choice in 2 .*: on (HPCRUN_COMM_LOCK_UNTRIED.*: on, weighing the lines" "$TMP/dr3"/*.log &&
		[ "$(logc dr3 lock_draw_taken)" -gt 0 ] && [ "$(logc dr3 lock_draw_taken)" -le "$(logc dr3 lock_draw_tokens)" ] &&
		[ "$(logc dr3 lock_untried)" -gt 0 ] && [ "$(logc dr3 lock_pset_arms)" -gt 0 ] &&
		[ "$(logc dr3 lock_draw_lines)" -gt "$(logc dr3 lock_pset_arms)" ] &&
		ok "HPCRUN_COMM_LOCK_DRAW=3, LINES=2, UNTRIED=2: $(logc dr3 lock_draw_taken) of $(logc dr3 lock_draw_tokens) due sets taken, $(logc dr3 lock_pset_arms) armed standing for $(logc dr3 lock_draw_lines) lines, $(logc dr3 lock_untried) on untried words, $(logc dr3 lock_lines_other) on another line" ||
		fail "HPCRUN_COMM_LOCK_DRAW=3, LINES=2, UNTRIED=2: $(logc dr3 lock_draw_taken) of $(logc dr3 lock_draw_tokens) taken, $(logc dr3 lock_pset_arms) armed, $(logc dr3 lock_draw_lines) lines, $(logc dr3 lock_untried) untried (output: $(cat "$TMP/dr3.out"))"
	rm -rf "${TMP:?}/ps0"
	HPCRUN_COMM_LOCK_PSET=0 HPCRUN_COMM_SWITCH_NS=10000000 measure ps0 "$TMP/lock_queue" 2 ||
		fail "sampled run (process-wide lock sets off) failed"
	# (snapshots may still be taken: an open thread's verdicts, HPCRUN_COMM_LOCK_VERDICT)
	[ "$(logc ps0 lock_pset_asked)" -eq 0 ] && [ "$(logc ps0 lock_pset_arms)" -eq 0 ] &&
		grep -q "lock sets on the process-wide set: off" "$TMP/ps0"/*.log &&
		ok "HPCRUN_COMM_LOCK_PSET=0: off, nothing counted" ||
		fail "HPCRUN_COMM_LOCK_PSET=0: $(logc ps0 lock_pset_asked) asked, $(logc ps0 lock_pset_arms) sets"
fi

rm -rf "${TMP:?}/st0"
HPCRUN_COMM_LOCK_STORE=0 HPCRUN_COMM_SWITCH_NS=0 HPCRUN_COMM_LOCK_SETS=1 measure st0 "$TMP/lock_queue" 4 ||
	fail "sampled run (HPCRUN_COMM_LOCK_STORE=0) failed"
[ "$(logc st0 lock_ctx_captures)" -gt 0 ] && [ "$(logc st0 lock_ctx_store)" -eq 0 ] &&
	ok "HPCRUN_COMM_LOCK_STORE=0: contexts at the unlock ($(logc st0 lock_ctx_captures) captured)" ||
	fail "HPCRUN_COMM_LOCK_STORE=0: $(logc st0 lock_ctx_store) of $(logc st0 lock_ctx_captures) contexts at a store"

rm -rf "${TMP:?}/off"
HPCRUN_COMM_LOCK_SETS=0 measure off "$TMP/lock_queue" 4 || fail "sampled run (rule off) failed"
grep -q "lock sets: off (HPCRUN_COMM_LOCK_SETS=0)" "$TMP/off"/*.log && ok "the log says off" ||
	fail "the log does not say the rule is off"
[ "$(logc off lock_handoffs)" -eq 0 ] && [ "$(logc off lock_sets)" -eq 0 ] && [ "$(logc off lock_traps)" -eq 0 ] &&
	ok "rule off: nothing counted" ||
	fail "rule off: $(logc off lock_handoffs) hand-offs, $(logc off lock_sets) sets, $(logc off lock_traps) traps"
finish
