#!/bin/sh
# The launcher refuses what it cannot measure, before anything runs, with
# a reason and a hint; -L and --help work.
. "$(dirname "$0")/lib.sh"

expect_refusal() { # what pattern args...
	what=$1 pat=$2; shift 2
	"$HPCRUN" -o "$TMP/refused" "$@" >"$TMP/r.out" 2>"$TMP/r.err"
	rc=$?
	if [ "$rc" -eq 0 ]; then fail "$what: accepted"; return; fi
	grep -q "$pat" "$TMP/r.err" || { fail "$what: message lacks '$pat'"; cat "$TMP/r.err" >&2; }
	[ ! -e "$TMP/refused" ] || fail "$what: created a measurement directory anyway"
	[ ! -e "$TMP/ran" ] || fail "$what: the program ran"
	echo "ok: $what refused: $(head -n 1 "$TMP/r.err")"
}

expect_refusal "missing program" "not found" /nonexistent/prog
printf 'not a program\n' >"$TMP/text"; chmod +x "$TMP/text"
expect_refusal "non-ELF file" "not an ELF executable" "$TMP/text"
expect_refusal "bad event" "unknown event" -e CYCLES@100 /bin/true
expect_refusal "bad period" "bad period" -e COMM@abc /bin/true
expect_refusal "zero period" "bad period" -e COMM@0 /bin/true
expect_refusal "too short a period" "too short" -e COMM@1000 /bin/true
expect_refusal "bad sampler" "unknown sampler" --sampler magic /bin/true
expect_refusal "bad watchpoints" "bad --watchpoints" --watchpoints 9 /bin/true
expect_refusal "no program" "no program" 

if printf 'int main(void){return 0;}\n' | cc -static -x c -o "$TMP/static" - 2>/dev/null; then
	expect_refusal "static binary" "statically linked" "$TMP/static"
else
	echo "note: no static libc, static-binary refusal not exercised"
fi

# The topology is written without hwloc's plugins (HWLOC_PLUGINS_PATH set
# to empty around hwloc's init); the program sees the variable as it was.
unset HWLOC_PLUGINS_PATH
"$HPCRUN" -o "$TMP/env1" /usr/bin/env >"$TMP/env1.out" 2>/dev/null || fail "env under the launcher"
if grep -q '^HWLOC_PLUGINS_PATH=' "$TMP/env1.out"; then fail "HWLOC_PLUGINS_PATH leaked into the program"; fi
HWLOC_PLUGINS_PATH=/opt/mine "$HPCRUN" -o "$TMP/env2" /usr/bin/env >"$TMP/env2.out" 2>/dev/null ||
	fail "env under the launcher (HWLOC_PLUGINS_PATH set)"
grep -qx 'HWLOC_PLUGINS_PATH=/opt/mine' "$TMP/env2.out" || fail "HWLOC_PLUGINS_PATH not restored"
for d in env1 env2; do
	t=$(ls "$TMP/$d"/topology-*.xml 2>/dev/null | head -n 1)
	[ -n "$t" ] && grep -q '<object type="Machine"' "$t" || fail "$d: no topology written"
done
echo "ok: topology written, HWLOC_PLUGINS_PATH kept as the program had it"

"$HPCRUN" --help >"$TMP/h.out" 2>&1 && grep -q -- "--event" "$TMP/h.out" || fail "--help"
if "$HPCRUN" -L >"$TMP/L.out" 2>&1; then
	for k in "kernel:" "perf_event_paranoid:" "soft (timer+decode):" "watchpoints:" "fast re-arm:" "verdict:"; do
		grep -q "$k" "$TMP/L.out" || fail "-L lacks '$k'"
	done
	echo "ok: -L"; cat "$TMP/L.out"
else
	grep -q "cannot measure" "$TMP/L.out" || fail "-L failed without a verdict"
fi
# A bad runtime option stops the run with an error naming it, before the
# program starts (never a silent fallback to the default).
for opt in HPCRUN_COMM_CROWDED_PERIOD=x HPCRUN_COMM_CROWDED_PERIOD=65 HPCRUN_COMM_STEPS=99999 \
	HPCRUN_COMM_PROCSET=4 HPCRUN_COMM_PROCSET_TARGET=x HPCRUN_COMM_PROCSET_BUDGET=1001 \
	HPCRUN_COMM_QUIET_SAMPLES=200000000 HPCRUN_COMM_PROCSET_ZONE=5 HPCRUN_COMM_CROWDED_HEAVY=0 \
	HPCRUN_COMM_CROWDED_HEAVY=65 HPCRUN_COMM_CROWDED_HEAVY_FROM=0; do
	rm -rf "$TMP/badopt"
	if env "$opt" "$HPCRUN" -o "$TMP/badopt" /bin/echo ran >"$TMP/badopt.out" 2>&1; then
		fail "$opt: the run went on"
	elif grep -q "^ran" "$TMP/badopt.out" || ! grep -q "error: ${opt%%=*}" "$TMP/badopt.out"; then
		fail "$opt: no error naming it before the program ran: $(head -c 300 "$TMP/badopt.out")"
	else
		echo "ok: $opt refused"
	fi
done
finish
