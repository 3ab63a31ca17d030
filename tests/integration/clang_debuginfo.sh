#!/bin/sh
# Source lines, functions and stack locals of a clang-built program. clang
# emits no .debug_aranges unless asked (-gdwarf-aranges), and libdw's
# address look-ups (dwfl_module_getsrc, dwfl_module_addrdie,
# dwarf_addrdie) find no unit without it: every code pair of a clang -g
# binary read "bump <-> bump" without its line, stack fields were byte
# offsets ("+8377488"), and OpenMP regions lost their parent function
# (elfutils 0.188's dwarf_decl_file also returns nothing for DWARF 5's
# file index 0). The analyzer now finds the unit by its ranges
# (lib/analysis/cuaddr.c). Checked on tests/programs/objects_static.c and
# objects_stack.c built with clang -O2 -g (no .debug_aranges, which the
# test verifies) and, for the region's parent, omp_crit.c with
# clang -fopenmp: the report names objects_static.c:35 (bump) both sides,
# the static's fields stats[3].hits / .misses, main's local slots[1].a and
# slots[2].a, and "main [parallel region at omp_crit.c:N]". Names, never
# timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v clang >/dev/null 2>&1 || { echo "SKIP: no clang (scripts/install-deps.sh installs it)"; exit 77; }
VE="$B/viewer-export/viewer-export"
P="$S/tests/programs"
for p in objects_static objects_stack; do
	clang -O2 -g -pthread -o "$TMP/$p" "$P/$p.c" 2>"$TMP/cc.err" || { cat "$TMP/cc.err" >&2; fail "clang cannot build $p"; finish; }
done
if readelf -S "$TMP/objects_static" | grep -q '\.debug_aranges'; then
	echo "note: this clang emits .debug_aranges: the fallback is not exercised"
else
	ok "clang's binary has no .debug_aranges"
fi

# objects_static: workers 1 and 2 on stats[3].hits and stats[3].misses
measure st "$TMP/objects_static" -s 1 || fail "objects_static run failed"
"$HPCPROF" -q -o "$TMP/st.db" "$TMP/st" >/dev/null 2>"$TMP/st.prof" || { cat "$TMP/st.prof" >&2; fail "hpcprof-comm failed"; }
"$VE" --text "$TMP/st.db" >"$TMP/st.txt" 2>/dev/null || fail "viewer-export --text failed"
bl=$(grep -n '\*c = \*c + 1;' "$P/objects_static.c" | head -n 1 | cut -d: -f1)
cp1=$(sed -n '/^Top code pairs/,/^$/p' "$TMP/st.txt" | awk '$1 == "1"')
case "$cp1" in
*"objects_static.c:$bl (bump) ↔ objects_static.c:$bl (bump)"*) ok "code pair with its lines: objects_static.c:$bl (bump) both sides" ;;
*) fail "top code pair: '$cp1' (want objects_static.c:$bl (bump) both sides)" ;;
esac
grep -q 'stats\[3\]\.hits' "$TMP/st.db/objects.csv" && grep -q 'stats\[3\]\.misses' "$TMP/st.db/objects.csv" &&
	ok "the static's fields named: stats[3].hits, stats[3].misses" ||
	{ grep '^[0-9]' "$TMP/st.db/objects.csv" | head -3 >&2; fail "stats[3]'s fields not named"; }

# objects_stack: main's slots[1].a and slots[2].a
measure sk "$TMP/objects_stack" -s 1 || fail "objects_stack run failed"
"$HPCPROF" -q -o "$TMP/sk.db" "$TMP/sk" >/dev/null 2>"$TMP/sk.prof" || { cat "$TMP/sk.prof" >&2; fail "hpcprof-comm failed"; }
line=$(awk -F, '$2 == "stack" && $3 == "stack of thread 0"' "$TMP/sk.db/objects.csv")
case "$line" in
*"local slots[1].a in main"*"local slots[2].a in main"*|*"local slots[2].a in main"*"local slots[1].a in main"*)
	ok "stack locals named: local slots[1].a, slots[2].a in main" ;;
*) fail "main's stack object: '$line' (want its fields local slots[1].a / slots[2].a in main)" ;;
esac

# an OpenMP region keeps its parent function
if clang -O2 -g -fopenmp -o "$TMP/omp_crit" "$P/omp_crit.c" 2>"$TMP/cc.err"; then
	# a short run may have no sample in the region (an ASan build's
	# runtime starts slowly): up to 5 runs until one has
	export OMP_NUM_THREADS=2
	measure_until om 5 'rm -rf "$TMP/om.db"; "$HPCPROF" -q -o "$TMP/om.db" "$TMP/om" >/dev/null 2>&1 &&
		grep -q "parallel region" "$TMP/om.db/experiment.xml"' "$TMP/omp_crit" 400 ||
		fail "omp_crit: no sample in a parallel region in 5 runs"
	# the procedures of the calling-context tree (sampled, with or
	# without communication)
	grep -q 'n="main \[parallel region at omp_crit.c:[0-9]*\]"' "$TMP/om.db/experiment.xml" &&
		ok "the OpenMP region under its parent: $(grep -o 'main \[parallel region at omp_crit.c:[0-9]*\]' "$TMP/om.db/experiment.xml" | head -1)" ||
		{ grep -o 'n="[^"]*parallel region[^"]*"' "$TMP/om.db/experiment.xml" | sort -u | head -3 >&2
		  fail "no procedure 'main [parallel region at omp_crit.c:N]' in experiment.xml"; }
else
	echo "OpenMP check skipped: clang -fopenmp failed: $(head -n 1 "$TMP/cc.err")"
fi
finish
