#!/bin/sh
# Programs that use signals themselves, measured with a short period: their
# output and exit status are those of a native run; our samples are taken
# even in threads that block every signal (doc/performance.md F4) and are
# counted as blocked where SIGTRAP really is blocked; no system call of
# theirs fails with EINTR because of us (doc/reliability.md, "Signals").
. "$(dirname "$0")/lib.sh"
require_measurable
SIG="$B/tests/programs/signals"
EV=COMM@100000

# run MODE: native and measured runs compared; rows in $TMP/m-MODE.rows
run() {
	mode=$1 before=$FAILS
	"$SIG" "$mode" >"$TMP/n-$mode.out" 2>"$TMP/n-$mode.err"
	nrc=$?
	"$HPCRUN" -e "$EV" -o "$TMP/m-$mode" "$SIG" "$mode" >"$TMP/m-$mode.out" 2>"$TMP/m-$mode.err"
	rc=$?
	"$ROWS" "$TMP/m-$mode" >"$TMP/m-$mode.rows" || fail "$mode: unreadable profiles"
	[ "$rc" -eq "$nrc" ] || {
		fail "$mode: exit status $rc, native $nrc"
		# what killed it, kept in the test's log (the temp dir is gone after)
		tail -n 20 "$TMP/m-$mode.err" >&2
		tail -n 40 "$TMP/m-$mode"/*.log >&2 2>/dev/null
	}
	cmp -s "$TMP/n-$mode.out" "$TMP/m-$mode.out" || {
		fail "$mode: stdout differs from the native run"
		diff "$TMP/n-$mode.out" "$TMP/m-$mode.out" >&2
	}
	grep -v '^hpcrun-comm: measuring' "$TMP/m-$mode.err" | cmp -s "$TMP/n-$mode.err" - ||
		fail "$mode: stderr differs from the native run"
	if grep -q '^BAD' "$TMP/n-$mode.out"; then
		fail "$mode: the program's own checks fail natively"
	fi
	[ "$FAILS" -eq "$before" ] && echo "ok: $mode: status $rc, output as native"
}

# tsamples MODE INDEX: samples taken in thread INDEX
tsamples() {
	awk -v i="$2" '$1 == "tcounter" && $3 == i && $4 == "samples" { s += $5 } END { print s + 0 }' \
	    "$TMP/m-$1.rows"
}

# expect MODE TEXT: a line of the program's output
expect() {
	grep -qxF "$2" "$TMP/m-$1.out" || fail "$1: no line '$2'"
}

run trap
expect trap "trap: 200 handled, 100 from the CPU, 100 sent"
expect trap "trap: after unblock: handled 1, blocked reported 0"
expect trap "trap: sigwait got 5, pending after 0, handled 0"
ch=$(counter m-trap signals_chained); bl=$(counter m-trap samples_blocked)
if [ "$ch" -lt 200 ]; then fail "trap: $ch SIGTRAPs chained to the program, want >= 200"
elif [ "$bl" -le 0 ]; then fail "trap: no sample counted as blocked inside the program's SIGTRAP handler"
else echo "ok: trap: $ch chained, $bl samples blocked in the program's handler"; fi

run int3blocked
[ "$(ls "$TMP/m-int3blocked"/signals-*.hcprof 2>/dev/null | wc -l)" -ge 3 ] ||
	fail "int3blocked: the profiles were not written before the SIGTRAP kill"

run blockall
expect blockall "blockall: workers saw every signal blocked: 1 1"
for i in 1 2; do
	n=$(tsamples blockall $i)
	if [ "$n" -ge 50 ]; then echo "ok: blockall: thread $i (every signal blocked) got $n samples"
	else fail "blockall: thread $i blocks every signal and got $n samples (F4)"; fi
done
bl=$(counter m-blockall samples_blocked)
if [ "$bl" -gt 0 ]; then echo "ok: blockall: $bl samples blocked in a handler that blocks every signal"
else fail "blockall: no sample counted as blocked in the full-mask handler"; fi

run rt
run segv
run altstack
for i in 1 2; do
	n=$(tsamples altstack $i)
	if [ "$n" -ge 50 ]; then echo "ok: altstack: thread $i (own 4 KiB sigaltstack) got $n samples"
	else fail "altstack: thread $i (own 4 KiB sigaltstack) got $n samples"; fi
done

run altsegv
n=$(ls "$TMP/m-altsegv"/signals-*.hcprof 2>/dev/null | wc -l)
[ "$n" -ge 4 ] || fail "altsegv: $n profiles written before the fault killed the program, want 4"
grep -q 'fatal signal 11' "$TMP/m-altsegv"/*.log || fail "altsegv: the log does not record the fault"

run sigwait
run eintr
expect eintr "eintr: total 0"
before=$FAILS
for i in 1 2 3 4 5 6; do
	n=$(tsamples eintr $i)
	[ "$n" -gt 0 ] || fail "eintr: blocking thread $i was never sampled: the test proves nothing"
done
[ "$FAILS" -eq "$before" ] && echo "ok: eintr: threads 1-6 sampled, no EINTR"
# The counting works: SIGUSR1 sent to the same threads interrupts them.
run eintr-control
expect eintr-control "eintr: 400 ping-pongs, interrupted"
finish
