#!/bin/sh
# Process life cycles under the runtime: exit status, stdout and stderr kept
# exactly; one profile per thread and per process, children of fork, exec and
# system() measured into the same directory.
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
finish
