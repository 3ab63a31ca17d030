#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# sandbox.sh — a program that restricts itself with Landlock (as xz 5.6
# does) keeps its sandbox, and its measurement is complete: every thread's
# profile is written into the measurement directory, which the runtime
# added to the program's ruleset before its landlock_restrict_self
# (lib/runtime/sandbox.c). The program's output and exit status are its
# own (it checks that it cannot create a file elsewhere). SKIPs (77) when
# the kernel has no Landlock.
. "$(dirname "$0")/lib.sh"
require_measurable

PROG="$B/tests/programs/landlock_self"
mkdir -p "$TMP/elsewhere"
"$PROG" "$TMP/elsewhere" >"$TMP/native.out" 2>&1
rc=$?
if [ "$rc" -eq 77 ]; then
	cat "$TMP/native.out" >&2
	echo "SKIP: no Landlock on this kernel" >&2
	exit 77
fi
[ "$rc" -eq 0 ] || fail "native run: exit $rc: $(cat "$TMP/native.out")"

measure m "$PROG" "$TMP/elsewhere"
rc=$?
[ "$rc" -eq 0 ] || fail "measured run: exit $rc (the program's sandbox must hold and its status stay 0)"
cmp -s "$TMP/native.out" "$TMP/m.out" || fail "output differs: $(cat "$TMP/m.out")"
n=$(ls "$TMP/m"/*.hcprof 2>/dev/null | wc -l)
[ "$n" -eq 2 ] || fail "$n profiles written, expected 2 (main and its thread): $(grep -h 'cannot create' "$TMP/m"/*.log)"
grep -q "Landlock: the program created 1 ruleset; the measurement directory was added to 1" "$TMP/m"/*.log ||
	fail "no Landlock line in the log"
! grep -q "cannot create" "$TMP/m"/*.log || fail "the log says a profile could not be created"
"$HPCPROF" -q -o "$TMP/db" "$TMP/m" 2>"$TMP/prof.err" || fail "hpcprof-comm: $(cat "$TMP/prof.err")"
[ -f "$TMP/db/database.xml" ] || fail "no database"
ok "sandboxed program: $n profiles, output and status its own"

# A loss the runtime could only log (the program had closed stderr, as xz
# does): hpcprof-comm names the log and its reason, as a warning when some
# profiles are there, in its error when none is.
log=$(ls "$TMP/m"/*.log | head -n 1)
printf 'thread 1: cannot create %s/x.hcprof.tmp: Permission denied\nprofiles lost: 1 (could not be written)\n' "$TMP/m" >>"$log"
"$HPCPROF" -q -o "$TMP/db2" "$TMP/m" 2>"$TMP/prof2.err" || fail "hpcprof-comm with a logged loss: $(cat "$TMP/prof2.err")"
grep -q "warning: $log: 1 thread profile lost.*Permission denied" "$TMP/prof2.err" ||
	fail "no warning naming the log and the reason: $(cat "$TMP/prof2.err")"
rm -f "$TMP/m"/*.hcprof
"$HPCPROF" -q -o "$TMP/db3" "$TMP/m" 2>"$TMP/prof3.err" && fail "hpcprof-comm without profiles: exit 0"
grep -q "nothing to analyze.*the log $log says 1 thread profile was lost: thread 1: cannot create" "$TMP/prof3.err" ||
	fail "the error does not say why: $(cat "$TMP/prof3.err")"
ok "a logged loss: $(head -c 160 "$TMP/prof3.err")"
finish
