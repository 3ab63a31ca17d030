#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# disk_full.sh — every writer on a full file system (a 64 KiB tmpfs): a clear
# error naming the file, a non-zero exit, and nothing left that looks like a
# complete output. viewer-export (HTML, JSON, CSV) writes the fixture
# database; hpcprof-comm writes a database of a real measurement; the
# runtime writes its profiles there (the program's exit status is kept, the
# loss is said on stderr and no temporary or half file stays). SKIPs (77)
# when tmpfs cannot be mounted (not root) and, for the parts that measure,
# when the machine cannot measure.
. "$(dirname "$0")/lib.sh"

FULL="$TMP/full"
mkdir -p "$FULL"
if ! mount -t tmpfs -o size=64k tmpfs "$FULL" 2>"$TMP/mount.err"; then
	cat "$TMP/mount.err" >&2
	echo "SKIP: cannot mount a tmpfs (needs root)" >&2
	exit 77
fi
trap 'umount "$FULL" 2>/dev/null; rm -rf "$TMP"' EXIT
VX="$B/viewer-export/viewer-export"
FIX="$S/tests/viewer/fixtures/small"

# fill FREE_KB: leave about FREE_KB KiB free on $FULL
fill() {
	rm -rf "$FULL"/*
	dd if=/dev/zero of="$FULL/filler" bs=1k count=$((64 - $1)) 2>/dev/null
}

# leftovers: anything in $FULL but the filler
leftovers() { find "$FULL" -mindepth 1 ! -name filler | sed "s|$FULL/||" | tr '\n' ' '; }

# viewer-export: each format, with 8 KiB free (the report needs ~60)
for fmt in html json csv; do
	fill 8
	case $fmt in
	html) "$VX" -o "$FULL/report.html" "$FIX" >"$TMP/vx.out" 2>"$TMP/vx.err" ;;
	json) "$VX" --json "$FULL/report.json" "$FIX" >"$TMP/vx.out" 2>"$TMP/vx.err" ;;
	csv) "$VX" --csv "$FULL/tables" "$FIX" >"$TMP/vx.out" 2>"$TMP/vx.err" ;;
	esac
	rc=$?
	[ "$rc" -eq 1 ] || fail "viewer-export --$fmt on a full disk: exit $rc, expected 1"
	grep -q "No space left on device" "$TMP/vx.err" ||
		fail "viewer-export --$fmt: no 'No space left on device' in: $(cat "$TMP/vx.err")"
	grep -q "$FULL/" "$TMP/vx.err" || fail "viewer-export --$fmt: the message names no file"
	left=$(leftovers)
	[ -z "$left" ] || fail "viewer-export --$fmt left: $left"
	ok "viewer-export --$fmt: exit $rc, $(head -n 1 "$TMP/vx.err")"
done

require_measurable

# hpcprof-comm: a real measurement (on the ordinary disk) into the full one
measure m "$BENCH" false 2 -t 2 -s 1 || fail "comm_bench failed under hpcrun-comm"
fill 16
"$HPCPROF" -q -o "$FULL/db" "$TMP/m" >"$TMP/prof.out" 2>"$TMP/prof.err"
rc=$?
[ "$rc" -ne 0 ] || fail "hpcprof-comm on a full disk: exit 0"
grep -q "No space left on device" "$TMP/prof.err" ||
	fail "hpcprof-comm: no 'No space left on device' in: $(cat "$TMP/prof.err")"
left=$(leftovers)
[ -z "$left" ] || fail "hpcprof-comm left: $left"
ok "hpcprof-comm: exit $rc, $(head -n 1 "$TMP/prof.err")"

# the runtime: a few KiB free, enough for the log but not for the profiles
fill 4
"$BENCH" false 2 -t 2 -s 1 >"$TMP/native.out" 2>&1
native=$?
"$HPCRUN" -o "$FULL/m" "$BENCH" false 2 -t 2 -s 1 >"$TMP/run.out" 2>"$TMP/run.err"
rc=$?
[ "$rc" -eq "$native" ] || fail "hpcrun-comm on a full disk: exit $rc, the program's is $native"
grep -q "profiles\? lost" "$TMP/run.err" ||
	fail "hpcrun-comm: stderr does not say profiles were lost: $(cat "$TMP/run.err")"
left=$(find "$FULL/m" -name '*.tmp*' | tr '\n' ' ')
[ -z "$left" ] || fail "hpcrun-comm left temporary files: $left"
if [ -f "$FULL/m/"topology-*.xml ] && ! grep -q "</topology>" "$FULL/m/"topology-*.xml; then
	fail "hpcrun-comm left a half-written topology file"
fi
ok "hpcrun-comm: exit $rc as native; $(grep -c . "$TMP/run.err") stderr lines, e.g. $(grep lost "$TMP/run.err" | tail -n 1)"
finish
