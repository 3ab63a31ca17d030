#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Privileges and environment (issue #8): measurement directories 0700 (or
# --dir-mode exactly), files 0600; no file written through a planted
# symlink; two concurrent runs into one directory both complete; a run as
# an unprivileged user works at perf_event_paranoid 2; paranoid 3 and 4
# give a clear message (the old value is restored on exit); a seccomp filter
# denying perf_event_open makes the launcher refuse and name seccomp.
# Parts that this machine cannot exercise say "skip:"; the test skips (77)
# only if none could run.
. "$(dirname "$0")/lib.sh"
require_measurable
LC="$B/tests/programs/lifecycle"
SECC="$B/tests/programs/seccomp_deny"
HOST=$(printf '%08x' "0x$(hostid)")
PARANOID=/proc/sys/kernel/perf_event_paranoid
OLDPAR=$(cat $PARANOID)
NB=""
cleanup() {
	[ "$(cat $PARANOID)" = "$OLDPAR" ] || echo "$OLDPAR" >$PARANOID
	[ -n "$NB" ] && rm -rf "$NB"
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
skip() { echo "skip: $*"; }

# 1. modes
(umask 022 && "$HPCRUN" -o "$TMP/d1" "$LC" exit3 1 >/dev/null 2>&1)
[ $? -eq 3 ] || fail "modes: exit status not kept"
[ "$(stat -c %a "$TMP/d1")" = 700 ] || fail "modes: directory is $(stat -c %a "$TMP/d1"), want 700 (umask 022)"
loose=$(find "$TMP/d1" -type f ! -perm 600 | wc -l)
[ "$loose" -eq 0 ] || fail "modes: $loose files not 0600: $(find "$TMP/d1" -type f ! -perm 600)"
(umask 077 && "$HPCRUN" --dir-mode 0750 -o "$TMP/d2" "$LC" exit3 1 >/dev/null 2>&1)
[ "$(stat -c %a "$TMP/d2")" = 750 ] || fail "modes: --dir-mode 0750 gave $(stat -c %a "$TMP/d2") (umask 077)"
mkdir -m 777 "$TMP/open"
"$HPCRUN" -o "$TMP/open" "$LC" exit3 1 >/dev/null 2>"$TMP/open.err"
[ $? -eq 2 ] && grep -q "writable by every user" "$TMP/open.err" || fail "modes: a world-writable directory was used"
ok "modes: 0700 by default, --dir-mode exact, files 0600, world-writable directory refused"

# 2. planted symlinks: never followed (the launcher execs the program in the
# same pid, so sh's $$ is the measured pid and the names are known)
echo precious >"$TMP/victim"
mkdir -m 700 "$TMP/d3" "$TMP/d4" "$TMP/d5"
ln -s "$TMP/victim" "$TMP/d3/topology-$HOST.xml"
"$HPCRUN" -o "$TMP/d3" "$LC" exit3 1 >/dev/null 2>&1
[ $? -eq 3 ] || fail "symlink: topology symlink changed the exit status"
sh -c 'ln -s "$1" "$2/lifecycle-000000-$3-$$-0.log" && exec "$4" -o "$2" "$5" exit3 1' sh \
	"$TMP/victim" "$TMP/d4" "$HOST" "$HPCRUN" "$LC" >/dev/null 2>"$TMP/d4.err"
rc=$?
[ $rc -eq 126 ] && grep -q "cannot create the log" "$TMP/d4.err" ||
	fail "symlink: log symlink: status $rc, $(cat "$TMP/d4.err")"
sh -c 'ln -s "$1" "$2/lifecycle-000000-000-$3-$$-0.hcprof.tmp" && exec "$4" -o "$2" "$5" exit3 1' sh \
	"$TMP/victim" "$TMP/d5" "$HOST" "$HPCRUN" "$LC" >/dev/null 2>&1
rc=$?
[ $rc -eq 3 ] || fail "symlink: profile symlink changed the exit status to $rc"
grep -q "thread 0: cannot create" "$TMP"/d5/*.log || fail "symlink: the refused profile is not in the log"
[ "$(cat "$TMP/victim")" = precious ] || fail "symlink: the symlink's target was written"
ok "symlinks: topology, log and profile symlinks not followed, target intact"

# 3. two concurrent runs into one directory
"$HPCRUN" -o "$TMP/both" "$LC" exit3 3 >/dev/null 2>&1 & p1=$!
"$HPCRUN" -o "$TMP/both" "$LC" exit3 3 >/dev/null 2>&1 & p2=$!
wait $p1; r1=$?; wait $p2; r2=$?
[ $r1 -eq 3 ] && [ $r2 -eq 3 ] || fail "concurrent: exit statuses $r1 $r2"
"$ROWS" "$TMP/both" >"$TMP/both.rows" || fail "concurrent: unreadable profiles"
np=$(ls "$TMP/both"/*.hcprof | wc -l); nl=$(ls "$TMP/both"/*.log | wc -l)
npid=$(awk '$1 == "thread" { print $2 }' "$TMP/both.rows" | sort -u | wc -l)
[ "$np" -eq 8 ] && [ "$nl" -eq 2 ] && [ "$npid" -eq 2 ] || fail "concurrent: $np profiles, $nl logs, $npid processes"
"$HPCPROF" -o "$TMP/both.db" "$TMP/both" >"$TMP/both.prof" 2>&1 || fail "concurrent: hpcprof-comm failed"
ok "concurrent: 2 runs, $np profiles, $nl logs"

# 4. an unprivileged user, 5. paranoid 3 and 4
ran=0
if [ "$(id -u)" -ne 0 ]; then
	ok "unprivileged: the suite itself runs as uid $(id -u)"
	ran=1
	skip "paranoid 3/4: needs root to change kernel.perf_event_paranoid"
elif ! command -v setpriv >/dev/null; then
	skip "unprivileged: no setpriv"
else
	NB=$(mktemp -d /tmp/hc-nobody.XXXXXX)
	chmod 755 "$NB"
	chown nobody "$NB"
	AS="setpriv --reuid=nobody --regid=nogroup --clear-groups"
	if ! (cd "$NB" && $AS "$HPCRUN" -V) >/dev/null 2>&1; then
		skip "unprivileged: nobody cannot run $HPCRUN (build tree not readable)"
	else
		[ "$OLDPAR" -le 2 ] || skip "unprivileged: perf_event_paranoid is $OLDPAR"
		(cd "$NB" && $AS "$HPCRUN" -o "$NB/m" "$LC" exit3 2) >"$TMP/nb.out" 2>"$TMP/nb.err"
		rc=$?
		n=$(ls "$NB/m" 2>/dev/null | grep -c '\.hcprof$')
		[ $rc -eq 3 ] && [ "$n" -eq 3 ] || fail "unprivileged: status $rc, $n profiles: $(tail -3 "$TMP/nb.err")"
		[ "$(stat -c %U "$NB/m")" = nobody ] || fail "unprivileged: directory not owned by nobody"
		ok "unprivileged: measured as nobody at paranoid $OLDPAR: $n profiles"
		ran=1
		for level in 3 4; do
			if ! echo $level >$PARANOID 2>/dev/null || [ "$(cat $PARANOID)" != $level ]; then
				skip "paranoid $level: cannot set it"
				continue
			fi
			(cd "$NB" && $AS "$HPCRUN" -o "$NB/p$level" "$LC" exit3 1) >/dev/null 2>"$TMP/p$level.err"
			rc=$?
			echo "$OLDPAR" >$PARANOID
			if [ $rc -eq 2 ]; then
				grep -q "perf_event_paranoid is $level" "$TMP/p$level.err" ||
					fail "paranoid $level: refused without naming it: $(cat "$TMP/p$level.err")"
				ok "paranoid $level: refused, with the sysctl to fix it"
			elif [ $rc -eq 3 ]; then
				grep -q "perf_event_paranoid is $level (above 2)" "$TMP/p$level.err" ||
					fail "paranoid $level: measured without a note: $(cat "$TMP/p$level.err")"
				ok "paranoid $level: this kernel allows it; the launcher says so"
			else
				fail "paranoid $level: status $rc: $(cat "$TMP/p$level.err")"
			fi
		done
	fi
fi

# 6. seccomp denying perf_event_open
"$SECC" "$HPCRUN" -o "$TMP/sec" "$LC" exit3 1 >"$TMP/sec.out" 2>"$TMP/sec.err"
rc=$?
if [ $rc -eq 77 ]; then
	skip "seccomp: cannot install a filter here: $(cat "$TMP/sec.err")"
else
	ran=1
	[ $rc -eq 2 ] || fail "seccomp: launcher status $rc, want 2 (refusal before the program runs)"
	grep -q "seccomp" "$TMP/sec.err" || fail "seccomp: the refusal does not name seccomp: $(cat "$TMP/sec.err")"
	[ ! -s "$TMP/sec.out" ] || fail "seccomp: the program ran"
	ok "seccomp: refused: $(grep -m1 'error:' "$TMP/sec.err" | cut -c1-120)"
fi
[ $ran -eq 1 ] || { echo "SKIP: no privilege part could run"; exit 77; }
finish
