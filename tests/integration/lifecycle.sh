#!/bin/sh
# Process life cycles under the runtime: exit status, stdout and stderr kept
# exactly; one profile per thread and per process, children of fork, exec,
# system(), posix_spawn and vfork measured into the same directory; exec of
# a static program logged and run unmeasured; daemons closing our fds;
# SIGKILL after a periodic flush.
. "$(dirname "$0")/lib.sh"
require_measurable
LC="$B/tests/programs/lifecycle"

# npid X ROWS: distinct processes
npid() { awk '$1 == "thread" { print $2 }' "$2" | sort -u | wc -l; }

check_mode() { # mode expected_status expected_profiles expected_processes
	mode=$1 want=$2 np=$3 pp=$4
	"$LC" "$mode" 3 >"$TMP/native-$mode.out" 2>"$TMP/native-$mode.err"
	nrc=$?
	"$HPCRUN" -o "$TMP/m-$mode" "$LC" "$mode" 3 >"$TMP/m-$mode.out" 2>"$TMP/m-$mode.err"
	rc=$?
	"$ROWS" "$TMP/m-$mode" >"$TMP/m-$mode.rows" || fail "$mode: unreadable profiles"
	[ "$rc" -eq "$want" ] && [ "$rc" -eq "$nrc" ] || fail "$mode: exit status $rc, native $nrc, want $want"
	cmp -s "$TMP/native-$mode.out" "$TMP/m-$mode.out" || fail "$mode: stdout differs from the native run"
	grep -v '^hpcrun-comm: measuring' "$TMP/m-$mode.err" | cmp -s "$TMP/native-$mode.err" - ||
		fail "$mode: stderr differs from the native run"
	got=$(ls "$TMP/m-$mode"/lifecycle-*.hcprof 2>/dev/null | wc -l); procs=$(npid x "$TMP/m-$mode.rows")
	[ "$got" -eq "$np" ] || fail "$mode: $got profiles of the program, want $np"
	[ "$procs" -eq "$pp" ] || fail "$mode: $procs processes, want $pp"
	logs=$(ls "$TMP/m-$mode"/*.log 2>/dev/null | wc -l)
	[ "$logs" -ge 1 ] || fail "$mode: no process log"
	echo "ok: $mode: status $rc, $got profiles, $procs processes, $logs logs"
}

check_mode exit3 3 4 1
check_mode exitcall 6 4 1
check_mode _exit 4 4 1
check_mode threadexit 5 4 1
# fatal signals: profiles written, the signal kept (128 + signal number)
check_mode segv 139 4 1
check_mode abort 134 4 1
check_mode fork 0 8 2
# exec: generation 0 (main + 3 workers) then generation 1 in the same pid
check_mode exec 3 8 1
# system: this process, sh, and the program sh runs (sh's own profiles are
# not counted: whether it forks before exec is the shell's business)
check_mode system 0 8 3
ls "$TMP/m-system"/*.hcprof | grep -qv '/lifecycle-' || fail "system: the shell was not measured"

# posix_spawn with an environment of the program's own (no LD_PRELOAD):
# the child is measured all the same (parent 4 + child 4 profiles)
check_mode spawn 0 8 2
# vfork + exec: vfork is a measured fork here, so the child writes its
# generation-0 profile before the exec, then the new image its 4
check_mode vfork 0 9 2

# exec of a statically linked program: it runs unmeasured, exit status and
# output intact, and the log says so
export LC_STATIC="$B/tests/programs/static_hello"
check_mode static 7 4 1
grep -q "statically linked.*runs unmeasured" "$TMP"/m-static/*.log ||
	fail "static: no log line about the unmeasured static program"

# daemons that close every fd they do not know: through libc (our fds are
# left open, counted) and through a raw close_range (lost fds detected, the
# log reopened); the daemon's own output file is never written by us
for mode in daemon daemonraw; do
	LC_OUT="$TMP/native-$mode.file" "$LC" $mode 2 >"$TMP/native-$mode.out" 2>&1
	nrc=$?
	LC_OUT="$TMP/m-$mode.file" "$HPCRUN" -o "$TMP/m-$mode" "$LC" $mode 2 >"$TMP/m-$mode.out" 2>&1
	rc=$?
	[ "$rc" -eq "$nrc" ] && [ "$rc" -eq 0 ] || fail "$mode: exit status $rc, native $nrc"
	grep -v '^hpcrun-comm: measuring' "$TMP/m-$mode.out" | cmp -s "$TMP/native-$mode.out" - ||
		fail "$mode: output differs from the native run"
	cmp -s "$TMP/native-$mode.file" "$TMP/m-$mode.file" ||
		fail "$mode: the daemon's own file differs from the native run: $(od -c "$TMP/m-$mode.file" | head -5)"
	"$ROWS" "$TMP/m-$mode" >"$TMP/m-$mode.rows" || fail "$mode: unreadable profiles"
	got=$(ls "$TMP/m-$mode"/lifecycle-*.hcprof | wc -l)
	[ "$got" -eq 6 ] || fail "$mode: $got profiles, want 6 (3 per process)"
	[ "$(ls "$TMP/m-$mode"/*.log | wc -l)" -eq 2 ] || fail "$mode: want 2 process logs"
	grep -q "threads measured: 3" "$TMP/m-$mode"/*.log || fail "$mode: the daemon's log lacks its final counters"
	if [ $mode = daemon ]; then
		grep -q "closes of ours refused [1-9]" "$TMP/m-$mode"/*.log || fail "daemon: refused closes not counted"
	else
		grep -q "lost [1-9]" "$TMP/m-$mode"/*.log || fail "daemonraw: lost fds not counted"
		grep -q "log fd was closed.*reopened" "$TMP/m-$mode"/*.log || fail "daemonraw: log not reopened"
	fi
	echo "ok: $mode: status $rc, $got profiles, daemon file intact"
done

# SIGKILL: the periodic flush (every second here) has written every live
# thread's profile; the status is the native one; the analyzer reads them
LC_KILL_MS=2600 "$LC" kill 3 >"$TMP/native-kill.out" 2>&1
nrc=$?
LC_KILL_MS=2600 "$HPCRUN" --flush-interval 1 -o "$TMP/m-kill" "$LC" kill 3 >"$TMP/m-kill.out" 2>&1
rc=$?
[ "$rc" -eq "$nrc" ] && [ "$rc" -eq 137 ] || fail "kill: exit status $rc, native $nrc, want 137"
"$ROWS" "$TMP/m-kill" >"$TMP/m-kill.rows" || fail "kill: unreadable profiles"
got=$(ls "$TMP/m-kill"/lifecycle-*.hcprof | wc -l)
[ "$got" -eq 4 ] || fail "kill: $got profiles after SIGKILL, want 4 (main + 3 workers)"
s=$(counter m-kill samples)
[ "$s" -gt 0 ] || fail "kill: the flushed profiles hold no samples"
grep -q "periodic flush: every 1 s" "$TMP"/m-kill/*.log || fail "kill: no periodic flush in the log"
"$HPCPROF" -o "$TMP/db-kill" "$TMP/m-kill" >"$TMP/db-kill.out" 2>&1 || fail "kill: hpcprof-comm refused the flushed profiles: $(tail -3 "$TMP/db-kill.out")"
echo "ok: kill: status $rc, $got profiles from the periodic flush, $s samples, analyzed"

# SIGKILL of a single-threaded process: no helper thread; the thread wrote
# its own snapshot from its sample handler
LC_KILL_MS=2600 "$LC" killsolo >"$TMP/native-killsolo.out" 2>&1
nrc=$?
LC_KILL_MS=2600 "$HPCRUN" --flush-interval 1 -o "$TMP/m-killsolo" "$LC" killsolo >"$TMP/m-killsolo.out" 2>&1
rc=$?
[ "$rc" -eq "$nrc" ] && [ "$rc" -eq 137 ] || fail "killsolo: exit status $rc, native $nrc, want 137"
"$ROWS" "$TMP/m-killsolo" >"$TMP/m-killsolo.rows" || fail "killsolo: unreadable profile"
got=$(ls "$TMP/m-killsolo"/lifecycle-*.hcprof 2>/dev/null | wc -l)
s=$(counter m-killsolo samples)
[ "$got" -eq 1 ] && [ "$s" -gt 0 ] || fail "killsolo: $got profiles, $s samples after SIGKILL, want 1 with samples"
grep -q "helper thread started" "$TMP"/m-killsolo/*.log && fail "killsolo: a helper thread was started"
echo "ok: killsolo: status $rc, the thread's own snapshot: $s samples"
finish
