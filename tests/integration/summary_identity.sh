#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# summary_identity.sh — one report implementation (issue #16): on a real
# measurement (comm_bench's false-sharing kernel under the runtime, 4
# threads), hpcprof-comm's summary.txt is byte for byte what
# `viewer-export --text` prints into a file (no width limit: nothing cut)
# for the database it wrote, and
# its objects.csv what `viewer-export --csv` writes; the terminal copy
# (hpcprof-comm without -q) starts with the same text. Nothing timing-
# dependent is checked: both sides read the same files.
. "$(dirname "$0")/lib.sh"
require_measurable
VX="$B/viewer-export/viewer-export"

measure fs "$BENCH" sharing 0.5 -t 4 -s 0.3 || fail "comm_bench under hpcrun-comm failed"
"$HPCPROF" -o "$TMP/fs.db" "$TMP/fs" >"$TMP/fs.term" 2>"$TMP/fs.prof.err" ||
	{ fail "hpcprof-comm failed: $(tail -3 "$TMP/fs.prof.err")"; finish; }
"$VX" --text "$TMP/fs.db" >"$TMP/fs.txt" 2>"$TMP/vx.err" ||
	fail "viewer-export --text failed: $(tail -3 "$TMP/vx.err")"
if cmp -s "$TMP/fs.db/summary.txt" "$TMP/fs.txt"; then
	ok "summary.txt = viewer-export --text ($(wc -l <"$TMP/fs.txt") lines)"
else
	fail "summary.txt differs from viewer-export --text:"
	diff -u "$TMP/fs.db/summary.txt" "$TMP/fs.txt" >&2
fi
n=$(wc -c <"$TMP/fs.db/summary.txt")
head -c "$n" "$TMP/fs.term" | cmp -s - "$TMP/fs.db/summary.txt" &&
	ok "the terminal output starts with summary.txt" || fail "the terminal output is not summary.txt's text"
grep -q "^Top code pairs" "$TMP/fs.txt" && grep -q "sharing_kernel" "$TMP/fs.txt" &&
	ok "the text has the code pairs of the kernel" || fail "no sharing_kernel code pair in the text"

"$VX" --csv "$TMP/csv" "$TMP/fs.db" >/dev/null 2>"$TMP/csv.err" ||
	fail "viewer-export --csv failed: $(tail -3 "$TMP/csv.err")"
if [ -f "$TMP/fs.db/objects.csv" ] && cmp -s "$TMP/fs.db/objects.csv" "$TMP/csv/objects.csv"; then
	ok "objects.csv = viewer-export --csv's objects.csv"
else
	fail "objects.csv differs from viewer-export --csv's"
	diff -u "$TMP/fs.db/objects.csv" "$TMP/csv/objects.csv" >&2
fi
finish
