#!/bin/sh
# PMU events that are enabled but do not run all the time (issue 19): the
# PMU sampler's runtime path through the TEST-ONLY software stand-in
# (HPCRUN_COMM_PMU_STANDIN=task-clock, --sampler pebs; doc/samplers.md),
# with an injectable read() preloaded after the runtime
# (tests/programs/perf_read_shim.so) that reports every perf event's
# time_running as HC_TEST_RUNNING_PCT % of its time_enabled — what an event
# waiting for a counter looks like (counter constraints, other perf users,
# the one IBS unit per CPU, E-cores). Checked:
#   * the runtime reads enabled/running per thread at the thread's end:
#     the process log has one warning per thread and the overall share;
#   * the profiles carry the per-thread times (pmu_time_enabled/running,
#     pmu_threads_not_running), the database's summary.txt says so overall
#     and names each thread below 95 %;
#   * at 100 % nothing is said (the shim itself changes nothing else);
#   * the bulletin board's expiry follows the threads' measured event rate
#     (issue 19: a PMU period counts events, the board's clock is ns): the
#     stand-in counts 1 event per ns of thread time, so 2 x P; the shim
#     reporting a quarter of the events (HC_TEST_COUNT_PCT=25) makes it
#     4 times longer.
. "$(dirname "$0")/lib.sh"
require_measurable
SHIM="$B/tests/programs/perf_read_shim.so"
[ -f "$SHIM" ] || { echo "SKIP: $SHIM not built" >&2; exit 77; }
export HPCRUN_COMM_PMU_STANDIN=task-clock
# A sanitizer build: the launcher and the program start with the shim in
# LD_PRELOAD ahead of libasan (the launcher puts libasan first only in the
# program's); ASan's link-order check would stop them. The shim's read()
# calls the next one, ASan's interceptor.
if ldd "$HPCRUN" 2>/dev/null | grep -q libasan; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi

c() { counter "$1" "$2"; }

# --- running at 50 % of enabled ---
HC_TEST_RUNNING_PCT=50 LD_PRELOAD="$SHIM" \
	measure half --sampler pebs -e COMM@100000 "$BENCH" sharing 0.9 -t 2 -s 0.5 ||
	fail "stand-in run with running at 50% failed"
log=$(ls "$TMP"/half/*.log 2>/dev/null | head -n 1)
grep -q "^sampler: pebs (pebs: STAND-IN" "$log" || fail "the log does not name the stand-in"
nthr=$(grep -c '^thread ' "$TMP/half.rows")
nwarn=$(grep -c "^warning: thread [0-9]*: its PMU events ran 50% of the time they were enabled" "$log")
[ "$nwarn" -eq "$nthr" ] && ok "log: each of the $nthr threads warned (ran 50%)" ||
	fail "log: $nwarn per-thread warnings for $nthr threads: $(grep 'PMU events ran' "$log" | head -3)"
grep -q "^pmu: events ran 50% of the time they were enabled -- warning: below 95%, whole stretches were not sampled (threads below 95%: $nthr)" "$log" &&
	ok "log: the overall share, with the warning" || fail "log: $(grep '^pmu: events ran' "$log")"
en=$(c half pmu_time_enabled); run=$(c half pmu_time_running)
[ "$en" -gt 0 ] && [ $((run * 100 / en)) -eq 50 ] && [ "$(c half pmu_threads_not_running)" -eq "$nthr" ] &&
	ok "profiles: enabled $en ns, running $run ns, $nthr threads below 95%" ||
	fail "profiles: enabled $en, running $run, threads below $(c half pmu_threads_not_running)"
# per thread in the profiles: every thread's own share is 50 %
awk '$1 == "tcounter" && $4 == "pmu_time_enabled" { e[$2 "/" $3] = $5; n++ }
     $1 == "tcounter" && $4 == "pmu_time_running" { r[$2 "/" $3] = $5 }
     END { for (t in e) if (e[t] == 0 || int(r[t] * 100 / e[t]) != 50) bad++; exit (bad > 0 || n == 0) }' \
	"$TMP/half.rows" && ok "profiles: each thread's own enabled/running" ||
	fail "profiles: a thread's running share is not 50%"
"$HPCPROF" -q -o "$TMP/half.db" "$TMP/half" >"$TMP/half.prof" 2>&1 || fail "hpcprof-comm failed: $(tail -3 "$TMP/half.prof")"
sum="$TMP/half.db/summary.txt"
grep -q "warning: the PMU events ran 50.0% of the time they were enabled" "$sum" &&
	ok "summary.txt: the overall warning" || fail "summary.txt lacks the overall warning"
n=$(grep -c "^  thread [0-9]* (pid [0-9]*, tid [0-9]*): its PMU events ran 50.0% of the time" "$sum")
[ "$n" -eq "$nthr" ] && ok "summary.txt: the $nthr threads below 95% named" ||
	fail "summary.txt names $n threads, $nthr expected"
# database.xml's warnings: every report shows them (here viewer-export --json)
"$B/viewer-export/viewer-export" --json "$TMP/half.json" "$TMP/half.db" >/dev/null 2>&1 ||
	fail "viewer-export --json failed"
n=$(grep -o "its PMU events ran 50.0% of the time they were enabled" "$TMP/half.json" | wc -l)
[ "$n" -eq "$nthr" ] && ok "the report model's warnings name the $nthr threads" ||
	fail "the report model names $n threads, $nthr expected"

# --- running = enabled: nothing said ---
HC_TEST_RUNNING_PCT=100 LD_PRELOAD="$SHIM" \
	measure full --sampler pebs -e COMM@100000 "$BENCH" sharing 0.9 -t 2 -s 0.3 ||
	fail "stand-in run with running at 100% failed"
log=$(ls "$TMP"/full/*.log 2>/dev/null | head -n 1)
grep -q "PMU events ran" "$log" && fail "a warning at 100%: $(grep 'PMU events ran' "$log" | head -1)" ||
	ok "running = enabled: no warning"
grep -q "^pmu: events ran 100% of the time they were enabled (threads below 95%: 0)" "$log" &&
	ok "log: 100%" || fail "log: $(grep '^pmu: events ran' "$log")"
# the board's expiry from the measured rate (P = 100,000)
exp_of() { sed -n 's/^pmu: bulletin-board expiry \([0-9]*\) ns at the end (\([0-9]*\) updates.*/\1 \2/p' "$1"; }
set -- $(exp_of "$log")
[ "${2:-0}" -gt 0 ] && [ "${1:-0}" -ge 180000 ] && [ "${1:-0}" -le 220000 ] &&
	ok "expiry at 1 event/ns: $1 ns ($2 updates), 2 x P" || fail "expiry line: $(grep '^pmu: bulletin-board' "$log")"
HC_TEST_RUNNING_PCT=100 HC_TEST_COUNT_PCT=25 LD_PRELOAD="$SHIM" \
	measure quarter --sampler pebs -e COMM@100000 "$BENCH" sharing 0.9 -t 2 -s 0.5 ||
	fail "stand-in run with a quarter of the events failed"
log=$(ls "$TMP"/quarter/*.log 2>/dev/null | head -n 1)
set -- $(exp_of "$log")
[ "${2:-0}" -gt 10 ] && [ "${1:-0}" -ge 700000 ] && [ "${1:-0}" -le 880000 ] &&
	ok "expiry at 0.25 events/ns: $1 ns ($2 updates), about 8 x P" ||
	fail "expiry at a quarter of the rate: $(grep '^pmu: bulletin-board' "$log")"
finish
