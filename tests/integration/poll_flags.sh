#!/bin/sh
# Poll flags (doc/detection.md §5.58): tests/programs/mailbox_spin.c, a
# master and a worker handing jobs through a mailbox line (job, flag,
# result; the flag polled with sched_yield). With HPCRUN_COMM_POLL_FLAG=1
# and HPCRUN_COMM_POLL_READER=1 (both off by default) and every thread
# gated (HPCRUN_COMM_SWITCH_NS huge: the process-wide set serves them):
# the log states both rules on; over up to 6 runs (-O0 and -O2 builds)
# the decoder finds the poll loop in compiled code (poll-loop loads > 0,
# a flag noted); a flag set communicates at most once (true + false <=
# sets) and moves its entry at most once (moved <= sets); the poll lines'
# budget (HPCRUN_COMM_POLL_BUDGET, default 20 permille) is stated and its
# sets over the shared budget counted. Off (all three 0): the log says so
# and nothing is noted. Patterns and counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O2 -g -pthread -o "$TMP/mb2" "$S/tests/programs/mailbox_spin.c" || fail "cannot build mailbox_spin -O2"
cc -O0 -g -pthread -o "$TMP/mb0" "$S/tests/programs/mailbox_spin.c" || fail "cannot build mailbox_spin -O0"
[ "$FAILS" -eq 0 ] || finish

# the process-wide set's poll-flag line: the number before (or, for
# "communications", after) the words WORDS, summed over the process's logs
pf() { cat "$TMP/$1"/*.log 2>/dev/null | grep "process-wide watch set poll flags" |
	sed -n "s/.*[^0-9]\([0-9][0-9]*\) $2.*/\1/p" | awk '{ s += $1 } END { print s + 0 }'; }
pfc() { cat "$TMP/$1"/*.log 2>/dev/null | grep "process-wide watch set poll flags" |
	sed -n "s/.*communications \([0-9][0-9]*\) true, \([0-9][0-9]*\) false.*/\1 \2/p" |
	awk -v k="$2" '{ s += $k } END { print s + 0 }'; }

polls=0 noted=0 sets=0 moved=0 tr=0 fa=0
for try in 1 2 3 4 5 6; do
	for b in mb0 mb2; do
		rm -rf "${TMP:?}/on"
		HPCRUN_COMM_SWITCH_NS=1000000000 HPCRUN_COMM_POLL_FLAG=1 HPCRUN_COMM_POLL_READER=1 \
			measure on "$TMP/$b" 2 20000 || fail "sampled run failed"
		grep -q "^mailbox_spin 2 " "$TMP/on.out" || fail "$b: wrong output"
		skip_without_pset on
		polls=$((polls + $(pf on "poll-loop loads"))) noted=$((noted + $(pf on "flags noted")))
		sets=$((sets + $(pf on "sets on a flag"))) moved=$((moved + $(pf on "entries moved")))
		tr=$((tr + $(pfc on 1))) fa=$((fa + $(pfc on 2)))
	done
	[ "$polls" -gt 0 ] && [ "$noted" -gt 0 ] && [ "$try" -ge 2 ] && break
	echo "try $try: $polls poll-loop loads, $noted flags noted so far"
done
grep -q "poll flags: .*: on (HPCRUN_COMM_POLL_FLAG=0 for off)" "$TMP/on"/*.log && ok "the log states the flag rule" ||
	fail "no 'poll flags ... on' line in the log"
grep -q "poll readers: .*: on (HPCRUN_COMM_POLL_READER=0 for off)" "$TMP/on"/*.log && ok "the log states the reader rule" ||
	fail "no 'poll readers ... on' line in the log"
grep -q "poll lines' budget: .*HPCRUN_COMM_POLL_BUDGET=20 permille" "$TMP/on"/*.log && ok "the log states the poll lines' budget (default 20)" ||
	fail "no 'poll lines' budget ... 20 permille' line in the log"
grep -q "sets on poll lines over the budget, within their own (HPCRUN_COMM_POLL_BUDGET=20 permille" "$TMP/on"/*.log &&
	ok "the poll lines' budget counted" || fail "no count of the poll lines' budget's sets"
[ "$polls" -gt 0 ] && [ "$noted" -gt 0 ] && ok "poll loops found: $polls loads, $noted flags" ||
	fail "no poll loop found ($polls loads, $noted flags)"
[ $((tr + fa)) -le "$sets" ] && ok "flag sets $sets: $tr true, $fa false (at most one each)" ||
	fail "flag sets $sets, communications $tr true + $fa false"
[ "$moved" -le "$sets" ] && ok "entries moved $moved <= sets $sets" || fail "entries moved $moved > sets $sets"

rm -rf "${TMP:?}/off"
HPCRUN_COMM_SWITCH_NS=1000000000 HPCRUN_COMM_POLL_BUDGET=0 measure off "$TMP/mb2" 2 20000 || fail "sampled run (rules off) failed"
grep -q "poll flags: .*: off (HPCRUN_COMM_POLL_FLAG=1 for on)" "$TMP/off"/*.log && ok "the log says the flag rule is off" ||
	fail "the log does not say the flag rule is off"
[ "$(pf off "poll-loop loads")" -eq 0 ] && [ "$(pf off "sets on a flag")" -eq 0 ] && ok "off: nothing noted" ||
	fail "off: $(pf off "poll-loop loads") poll loads, $(pf off "sets on a flag") sets"
finish
