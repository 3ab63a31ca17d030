#!/bin/sh
# The man pages and --help say the same: for each installed program (the
# exact mode's compiler wrappers included), the
# long options in `PROG --help` and in doc/man/PROG.1 are the same set
# (and the short ones too). A new option documented in one place only
# fails here.
set -u
B=${HC_BUILDDIR:?run through make check}
S=${HC_SRCDIR:?run through make check}
FAILS=0
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hc-man.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

for p in hpcrun-comm/hpcrun-comm hpcprof-comm/hpcprof-comm viewer-export/viewer-export \
	hpcrun-comm/hpcrun-comm-cc hpcrun-comm/hpcrun-comm-c++; do
	name=${p#*/}
	man="$S/doc/man/$name.1"
	[ -f "$man" ] || { echo "FAIL: no man page $man"; FAILS=$((FAILS + 1)); continue; }
	# A page that is a link to another (".so man1/other.1": both wrappers
	# share one page): the options are the other page's.
	so=$(sed -n 's/^\.so man1\///p' "$man")
	if [ -n "$so" ]; then
		man="$S/doc/man/$so"
		[ -f "$man" ] || { echo "FAIL: $name.1 names $so, which is not there"; FAILS=$((FAILS + 1)); continue; }
	fi
	"$B/$p" --help >"$TMP/help" 2>&1 || { echo "FAIL: $name --help: status $?"; FAILS=$((FAILS + 1)); }
	# Options as they start a line of --help's option list (or follow
	# its short form): "-x, --long", "  --long".
	sed -n 's/^ *\(-[A-Za-z0-9], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p' "$TMP/help" | sort -u >"$TMP/h-long"
	sed -n 's/^ *\(-[A-Za-z0-9]\), --.*/\1/p' "$TMP/help" | sort -u >"$TMP/h-short"
	# The man page's .TP headings: .B/.BR lines right after .TP.
	awk '/^\.TP/ { getline; print }' "$man" | sed 's/\\-/-/g' >"$TMP/tp"
	grep -o -- '--[a-z][a-z-]*' "$TMP/tp" | sort -u >"$TMP/m-long"
	grep -o -- '^\.BR\{0,1\} -[A-Za-z0-9]\b' "$TMP/tp" | sed 's/^[^-]*//' | sort -u >"$TMP/m-short"
	if ! cmp -s "$TMP/h-long" "$TMP/m-long"; then
		echo "FAIL: $name: long options differ (< --help, > man page):"
		diff "$TMP/h-long" "$TMP/m-long"
		FAILS=$((FAILS + 1))
	elif ! cmp -s "$TMP/h-short" "$TMP/m-short"; then
		echo "FAIL: $name: short options differ (< --help, > man page):"
		diff "$TMP/h-short" "$TMP/m-short"
		FAILS=$((FAILS + 1))
	else
		echo "ok: $name: $(wc -l <"$TMP/h-long") long and $(wc -l <"$TMP/h-short") short options in both"
	fi
	# The page renders without warnings.
	if command -v groff >/dev/null 2>&1; then
		warn=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
		[ -z "$warn" ] || { echo "FAIL: $name.1: groff: $warn"; FAILS=$((FAILS + 1)); }
	fi
done
[ "$FAILS" -eq 0 ]
