#!/bin/sh
# The runtime's declared disciplines, connected: HC_DEBUG=detect prints
# what detection does (one line per sample that reached it, with the
# outcome), HC_DEBUG=init,thread,output their lines, an unknown category
# named on stderr; a fault in our own stack walk (walk_fault: the spinning
# frame's page made unreadable by another thread) is contained — counted in
# unwind_faults, the sample dropped, the program's output and status those
# of a native run.
. "$(dirname "$0")/lib.sh"
require_measurable

# HC_DEBUG=detect on a program that shares: detection lines on stderr.
HC_DEBUG=detect "$HPCRUN" -o "$TMP/d" "$BENCH" false 2 -t 2 -s 1 >"$TMP/d.out" 2>"$TMP/d.err" ||
	fail "HC_DEBUG=detect: status $?"
n=$(grep -c '^hc\[[0-9]*/[0-9]*\] detect: T[0-9]* \(store\|load\) 0x[0-9a-f]*+[0-9]* ctx [0-9]* pc [0-9a-fx]* blk [0-9a-fx]*: ' "$TMP/d.err")
[ "$n" -ge 10 ] || fail "HC_DEBUG=detect: $n detection lines"
grep -q '^hc\[.*\] detect: .*\(TRUE\|FALSE\) sharing with T' "$TMP/d.err" ||
	fail "HC_DEBUG=detect: no detection reported"
grep -q '^hc\[.*\] \(init\|thread\|output\|unwind\):' "$TMP/d.err" &&
	fail "HC_DEBUG=detect: lines of other categories"
[ "$FAILS" -eq 0 ] && ok "HC_DEBUG=detect: $n lines, detections among them"
# Without HC_DEBUG: none.
"$HPCRUN" -o "$TMP/q" "$BENCH" false 2 -t 2 -s 1 >"$TMP/q.out" 2>"$TMP/q.err"
grep -q '^hc\[' "$TMP/q.err" && fail "no HC_DEBUG: trace lines printed"

HC_DEBUG=init,thread,output,bogus "$HPCRUN" -o "$TMP/i" "$BENCH" false 2 -t 2 -s 1 \
	>"$TMP/i.out" 2>"$TMP/i.err"
for c in 'init: pid [0-9]*: sampler' 'init: load map: [0-9]* modules' 'thread: T1 started' \
         'thread: T1 ends' 'output: T0: profile '; do
	grep -q "^hc\[.*\] $c" "$TMP/i.err" || fail "HC_DEBUG=init,thread,output: no '$c' line"
done
grep -q "HC_DEBUG: unknown category 'bogus' ignored" "$TMP/i.err" ||
	fail "HC_DEBUG: the unknown category is not named"
[ "$FAILS" -eq 0 ] && ok "HC_DEBUG=init,thread,output: their lines, 'bogus' named"

# A fault in our stack walk: contained.
WF="$B/tests/programs/walk_fault"
"$WF" >"$TMP/n-wf.out" 2>&1 || fail "walk_fault natively: status $?"
measure wf -e COMM@200000 "$WF"
rc=$?
[ "$rc" -eq 0 ] || fail "walk_fault measured: status $rc (a fault in our walk reached the program)"
cmp -s "$TMP/n-wf.out" "$TMP/wf.out" || fail "walk_fault: output differs from the native run"
f=$(counter wf unwind_faults)
[ "$f" -ge 1 ] || fail "walk_fault: unwind_faults = $f (no fault in the walk seen)"
[ "$FAILS" -eq 0 ] && ok "walk_fault: status 0, output as native, $f faults in the walk contained"
finish
