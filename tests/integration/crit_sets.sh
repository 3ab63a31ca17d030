#!/bin/sh
# Critical-section sets (doc/detection.md §5.76): tests/programs/omp_crit.c,
# 2 OpenMP threads each counting keys privately and merging them into a
# shared histogram inside `#pragma omp critical` (with argument `lock`:
# between omp_set_lock and omp_unset_lock), 400 rounds. The merge is a few
# percent of the run: without the rule most runs find nothing. Checked:
# the program's output is the native run's; every entry is followed
# (crit_enters = 2 x 400, both forms); the log states the rule and the
# spare registers' (HPCRUN_COMM_CRIT_FILL, on); within 6
# runs a set armed from another thread's sampled store (crit_sets > 0) and
# volume between the two threads, at least 85 % of it true (the issue's ff
# tolerance: exact mode's is 0), and the top
# code pair the merge line against itself; the lock form arms sets too;
# with HPCRUN_COMM_CRIT_SETS=0 the log says off and nothing is counted;
# exact mode (hpcrun-comm-cc, --exact) puts its top code pair on the merge
# line, and the sampled run judged against it has precision >= 0.90 and
# recall 1. The clang build (LLVM's libomp: __kmpc_critical) is followed
# too: every entry, sets armed, the pair found true with the merge line as
# its code pair, records from a sample's burst (HPCRUN_COMM_CRIT_BURST;
# off: none). Patterns and
# counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
SRC="$S/tests/programs/omp_crit.c"
CCW="$B/hpcrun-comm/hpcrun-comm-cc"
CMP="$B/bench/accuracy/acc_compare"
VIEW="$B/viewer-export/viewer-export"
if ! cc -O2 -g -fopenmp -o "$TMP/omp_crit" "$SRC" 2>"$TMP/cc.err"; then
	echo "SKIP: cc -fopenmp failed: $(head -n 1 "$TMP/cc.err")"
	exit 77
fi
ml=$(grep -n 'merge (critical)' "$SRC" | cut -d: -f1)
[ -n "$ml" ] || fail "omp_crit.c: the merge line not found"
OMP_NUM_THREADS=2 "$TMP/omp_crit" 400 >"$TMP/native.out" || fail "omp_crit failed natively"
OMP_NUM_THREADS=2 "$TMP/omp_crit" 400 lock >"$TMP/native-lock.out" || fail "omp_crit lock failed natively"
[ "$FAILS" -eq 0 ] || finish

# top_pair DB: the first row of the text report's code pairs
top_pair() { "$VIEW" --text "$1" 2>/dev/null | sed -n '/^Top code pairs/,/^$/p' | awk '$1 == "1" { print; exit }'; }

export OMP_NUM_THREADS=2
# a run's 1-4 traps may include one judged false (a record's bytes against
# a chunk after it: 1 run in 12 had 0.857 true): retried, as a run with
# no set is
measure_until on 6 'skip_without_pset on; [ "$(logc on crit_sets)" -gt 0 ] && [ "$(cell on 0 1)" -gt 0 ] &&
	ge "$(ratio "$(total on 6)" "$(total on)")" 0.85' "$TMP/omp_crit" 400
cmp -s "$TMP/on.out" "$TMP/native.out" && ok "the program's output unchanged" ||
	fail "omp_crit printed: $(cat "$TMP/on.out") (natively: $(cat "$TMP/native.out"))"
grep -q "critical sections: a store sampled inside an OpenMP critical section or omp lock" "$TMP/on"/*.log &&
	ok "the log states the rule" || fail "no 'critical sections: a store sampled inside ...' line in the log"
grep -q "critical sections' spare registers: the chunks after the sampled word on its line" "$TMP/on"/*.log &&
	ok "the log states the spare registers' use" || fail "no 'critical sections' spare registers: the chunks after ...' line"
[ "$(logc on crit_enters)" -eq 800 ] && ok "every entry followed: 800" || fail "crit_enters $(logc on crit_enters), want 800"
rec=$(logc on crit_records) sets=$(logc on crit_sets)
[ "$rec" -gt 0 ] && [ "$sets" -gt 0 ] && ok "stores sampled in the critical section: $rec; sets armed from them: $sets" ||
	fail "crit_records $rec, crit_sets $sets (in 6 runs)"
all=$(total on) tru=$(total on 6) c01=$(cell on 0 1)
[ "$c01" -gt 0 ] && ok "the two threads paired" || { grep '^row' "$TMP/on.rows" >&2; fail "no volume between threads 0 and 1"; }
[ "$all" -gt 0 ] && ge "$(ratio "$tru" "$all")" 0.85 && ok "true sharing: $(ratio "$tru" "$all")" ||
	fail "true sharing only $(ratio "$tru" "$all")"
"$HPCPROF" -q -o "$TMP/on.db" "$TMP/on" >/dev/null 2>&1 || fail "hpcprof-comm failed"
tp=$(top_pair "$TMP/on.db")
case "$tp" in
*"omp_crit.c:$ml "*"omp_crit.c:$ml "*) ok "top code pair: the merge line against itself" ;;
*) fail "top code pair: $tp (want omp_crit.c:$ml <-> omp_crit.c:$ml)" ;;
esac

measure_until lk 6 '[ "$(logc lk crit_sets)" -gt 0 ]' "$TMP/omp_crit" 400 lock
cmp -s "$TMP/lk.out" "$TMP/native-lock.out" && ok "omp locks: the program's output unchanged" ||
	fail "omp_crit lock printed: $(cat "$TMP/lk.out")"
[ "$(logc lk crit_enters)" -eq 800 ] && [ "$(logc lk crit_sets)" -gt 0 ] &&
	ok "omp locks: 800 entries followed, $(logc lk crit_sets) sets armed" ||
	fail "omp locks: crit_enters $(logc lk crit_enters), crit_sets $(logc lk crit_sets)"

HPCRUN_COMM_CRIT_SETS=0 measure off "$TMP/omp_crit" 400 || fail "sampled run (off) failed"
grep -q "critical sections: off" "$TMP/off"/*.log && ok "off: the log says so" || fail "off: no 'critical sections: off' line"
[ "$(logc off crit_enters)" -eq 0 ] && [ "$(logc off crit_sets)" -eq 0 ] && ok "off: nothing counted" ||
	fail "off: crit_enters $(logc off crit_enters), crit_sets $(logc off crit_sets)"

# LLVM's libomp (clang -fopenmp, in scripts/install-deps.sh): the same
# program's critical section is __kmpc_critical/__kmpc_end_critical, its
# merge loop vectorized at -O2 (samples land after its loads: a sample's
# burst ends at the store that stands for it, HPCRUN_COMM_CRIT_BURST)
if command -v clang >/dev/null 2>&1 && clang -O2 -g -fopenmp -o "$TMP/omp_crit_clang" "$SRC" 2>"$TMP/clang.err"; then
	OMP_NUM_THREADS=2 "$TMP/omp_crit_clang" 400 >"$TMP/native-clang.out" || fail "the clang build failed natively"
	measure_until cl 20 '[ "$(logc cl crit_sets)" -gt 0 ] && [ "$(cell cl 0 1)" -gt 0 ] &&
		ge "$(ratio "$(total cl 6)" "$(total cl)")" 0.85' "$TMP/omp_crit_clang" 400
	cmp -s "$TMP/cl.out" "$TMP/native-clang.out" && ok "libomp: the program's output unchanged" ||
		fail "libomp: omp_crit printed: $(cat "$TMP/cl.out") (natively: $(cat "$TMP/native-clang.out"))"
	[ "$(logc cl crit_enters)" -eq 800 ] && ok "libomp: every __kmpc_critical followed: 800" ||
		fail "libomp: crit_enters $(logc cl crit_enters), want 800"
	grep -q "critical sections' samples without a store: the store their burst ends at" "$TMP/cl"/*.log &&
		ok "the log states the burst's record" || fail "no 'critical sections' samples without a store' line"
	sets=$(logc cl crit_sets) c01=$(cell cl 0 1)
	[ "$sets" -gt 0 ] && [ "$c01" -gt 0 ] && ge "$(ratio "$(total cl 6)" "$(total cl)")" 0.85 &&
		ok "libomp: $sets sets armed ($(logc cl crit_burst_records) records from bursts), the two threads paired, true $(ratio "$(total cl 6)" "$(total cl)")" ||
		fail "libomp: crit_sets $sets, volume between threads 0 and 1: $c01, true $(ratio "$(total cl 6)" "$(total cl)") (in 20 runs)"
	# the code pair by its lines (clang's binary has no .debug_aranges:
	# hpcprof-comm.md "Symbolization")
	"$HPCPROF" -q -o "$TMP/cl.db" "$TMP/cl" >/dev/null 2>&1 || fail "hpcprof-comm failed on the clang run"
	tp=$(top_pair "$TMP/cl.db")
	case "$tp" in
	*"omp_crit.c:$ml "*"omp_crit.c:$ml "*) ok "libomp: top code pair the merge line against itself" ;;
	*) fail "libomp: top code pair: $tp (want omp_crit.c:$ml <-> omp_crit.c:$ml)" ;;
	esac
	# the burst's records: a sample's burst in the merge ends at its store
	measure_until clb 20 '[ "$(logc clb crit_burst_records)" -gt 0 ]' "$TMP/omp_crit_clang" 400
	[ "$(logc clb crit_burst_records)" -gt 0 ] && ok "libomp: records from bursts: $(logc clb crit_burst_records)" ||
		fail "libomp: no record from a burst in 20 runs"
	HPCRUN_COMM_CRIT_BURST=0 measure clo "$TMP/omp_crit_clang" 400 || fail "sampled run (burst off) failed"
	[ "$(logc clo crit_burst_records)" -eq 0 ] && grep -q "critical sections' samples without a store: nothing" "$TMP/clo"/*.log &&
		ok "HPCRUN_COMM_CRIT_BURST=0: no record from a burst, the log says so" ||
		fail "HPCRUN_COMM_CRIT_BURST=0: crit_burst_records $(logc clo crit_burst_records)"
else
	echo "libomp checks skipped: clang -fopenmp failed: $(head -n 1 "$TMP/clang.err" 2>/dev/null)"
fi

if [ -x "$CCW" ] && [ -x "$CMP" ]; then
	"$CCW" -O2 -g -fopenmp -o "$TMP/omp_critx" "$SRC" || fail "hpcrun-comm-cc cannot build omp_crit"
	"$HPCRUN" --exact -o "$TMP/x" "$TMP/omp_critx" 400 >"$TMP/x.out" 2>&1 || fail "exact run failed"
	"$HPCPROF" -q -o "$TMP/x.db" "$TMP/x" >/dev/null 2>&1 || fail "hpcprof-comm failed on the exact run"
	tp=$(top_pair "$TMP/x.db")
	case "$tp" in
	*"omp_crit.c:$ml "*"omp_crit.c:$ml "*) ok "exact: top code pair the merge line against itself" ;;
	*) fail "exact: top code pair: $tp (want omp_crit.c:$ml <-> omp_crit.c:$ml)" ;;
	esac
	judge "$TMP/on.db" "$TMP/x.db" 0.90 1
else
	echo "exact checks skipped: hpcrun-comm-cc or acc_compare not built"
fi
finish
