#!/bin/sh
# The PMU sampler's runtime path on this kernel, end to end, through the
# TEST-ONLY software stand-in (HPCRUN_COMM_PMU_STANDIN=task-clock with
# --sampler pebs: PEBS's perf_event_attr with a task-clock event in place
# of each load/store event; doc/samplers.md). Real per-thread events, ring
# buffers and SIGTRAPs: pmu_start opens, maps and enables; the handler
# drains (hc_pmu_drain) into record__detect_sample; pmu_stop drains what is
# left. Checked from the profiles and the process log:
#   * the log names the stand-in; profiles are in transfers (PEBS's unit);
#   * kernel records were read, every one accounted for by a verdict, none
#     foreign or truncated; address-less records are counted, not crashes;
#     the stand-in's register addresses reach detection and the matrices;
#   * records left in the buffers at thread exit, and at process exit, are
#     drained into the profiles (pmu_stop_drained), full buffers report the
#     kernel's lost count (pmu_lost);
#   * fork and exec under the PMU sampler: every process writes its profiles;
#   * its fds (2 per thread) are in the runtime's fd budget: reserved at a
#     thread's start, given back at its end; a thread beyond it runs without.
# Counts depend on the timer: the checks ask for "some", or for identities.
. "$(dirname "$0")/lib.sh"
require_measurable
BLOCKED="$B/tests/programs/sigtrap_blocked"
LIFE="$B/tests/programs/lifecycle"
export HPCRUN_COMM_PMU_STANDIN=task-clock

c() { counter "$1" "$2"; }

# --- 1. a communicating program ---
measure sh --sampler pebs -e COMM@100000 "$BENCH" sharing 0.9 -t 2 -s 1.5 || fail "stand-in run failed"
log=$(ls "$TMP"/sh/*.log 2>/dev/null | head -n 1)
grep -q "^sampler: pebs (pebs: STAND-IN (test only" "$log" && ok "log: the pebs sampler, as the stand-in" ||
	fail "the log does not name the stand-in: $(grep '^sampler:' "$log")"
[ "$(grep -c '^thread ' "$TMP/sh.rows")" -eq 3 ] && ok "3 thread profiles" || fail "not 3 thread profiles"
grep '^unit ' "$TMP/sh.rows" | grep -qv '^unit 1$' && fail "a profile not in transfers" || ok "unit: transfers"
rec=$(c sh pmu_records); smp=$(c sh samples); okc=$(c sh samples_with_access_at_pc)
noaddr=$(c sh pmu_no_addr)
verdicts=$((okc + noaddr + $(c sh pmu_kernel) + $(c sh samples_undecodable) + $(c sh samples_no_access) +
	$(c sh samples_stack_only) + $(c sh pmu_not_memory) + $(c sh pmu_bad_raw) + $(c sh pmu_foreign) +
	$(c sh pmu_in_runtime) + $(c sh pmu_unmapped)))
echo "records $rec, samples $smp, with address $okc, no address $noaddr, batched $(c sh pmu_batched)," \
	"drained at stop $(c sh pmu_stop_drained), published $(c sh published), detections $(c sh detections_sample)," \
	"traps $(c sh traps_matched), matrix total $(total sh)"
[ "$rec" -gt 0 ] && [ "$smp" -gt 0 ] && [ "$smp" -le "$rec" ] && ok "kernel records drained: $rec" ||
	fail "records $rec, samples $smp"
[ "$verdicts" -eq "$smp" ] && ok "every sample has one verdict ($verdicts)" ||
	fail "verdicts $verdicts != samples $smp"
[ "$(c sh pmu_foreign)" -eq 0 ] && [ "$(c sh pmu_truncated)" -eq 0 ] && ok "none foreign, none truncated" ||
	fail "foreign $(c sh pmu_foreign), truncated $(c sh pmu_truncated)"
[ "$noaddr" -gt 0 ] && ok "records without an address counted ($noaddr)" || fail "no pmu_no_addr"
[ "$okc" -gt 0 ] && [ "$(c sh published)" -gt 0 ] && ok "register addresses reach detection, stores publish" ||
	fail "with address $okc, published $(c sh published)"
[ "$(total sh)" -gt 0 ] && ok "matrices through the PMU path: $(total sh) transfers" ||
	fail "no communication recorded through the PMU path"
for n in pmu_records pmu_lost pmu_batched pmu_stop_drained pmu_no_addr pmu_in_runtime pmu_unmapped \
	pmu_ctx_leaf_only pmu_period_sum pmu_period_records pmu_time_enabled pmu_time_running; do
	grep -q "^counter $n " "$log" || fail "the process log lacks counter $n"
done
# issue 19: the period the kernel used (task-clock: exactly P ns), the
# events' running time (software events always run), self-samples counted
grep -q "^pmu: period in effect: mean 100000 events over $rec records (asked: COMM@100000)" "$log" &&
	ok "log: the period in effect, from the records" || fail "period line: $(grep '^pmu: period' "$log")"
grep -q "^pmu: events ran 100% of the time they were enabled (threads below 95%: 0)" "$log" &&
	ok "log: enabled/running times read per thread" || fail "running line: $(grep '^pmu: events ran' "$log")"
grep -q "^pmu: [0-9]* records of the runtime's own accesses dropped (in-runtime)" "$log" &&
	ok "log: runtime self-samples ($(c sh pmu_in_runtime)) and unmapped ($(c sh pmu_unmapped)) counted" ||
	fail "no in-runtime line"
grep -q "^handler cost: .*, $smp samples)" "$log" && ok "process log: counters and the handler cost" ||
	fail "handler cost line: $(grep '^handler cost' "$log")"

# --- 2. records left in the buffers at thread exit (main not blocked) ---
measure te --sampler pebs -e COMM@100000 "$BLOCKED" 2 30 300 0 || fail "thread-exit run failed"
d=$(c te pmu_stop_drained); l=$(c te pmu_lost)
echo "thread exit: drained at stop $d, lost $l, records $(c te pmu_records)"
[ "$d" -ge 255 ] && ok "thread exit drains the ring buffers ($d records)" ||
	fail "only $d records drained at thread exit (a full buffer holds 255)"
[ "$l" -gt 0 ] && ok "full buffers: the kernel's lost count reported ($l)" || fail "no pmu_lost with full buffers"

# --- 3. ... and at process exit (the main thread only) ---
measure pe --sampler pebs -e COMM@100000 "$BLOCKED" 0 30 300 || fail "process-exit run failed"
d=$(c pe pmu_stop_drained)
[ "$d" -ge 255 ] && ok "process exit drains the ring buffers ($d records)" ||
	fail "only $d records drained at process exit"

# --- 4. fork and exec under the PMU sampler ---
# fork: the child stops the inherited events without draining or disabling
# them (they are the parent's); both processes write profiles.
measure fork --sampler pebs -e COMM@200000 "$LIFE" fork || fail "fork run failed"
np=$(awk '$1 == "thread" { print $2 }' "$TMP/fork.rows" | sort -u | wc -l)
[ "$np" -eq 2 ] && [ "$(c fork pmu_records)" -gt 0 ] && [ "$(c fork pmu_foreign)" -eq 0 ] &&
	ok "fork: $np processes wrote profiles, $(c fork pmu_records) records" ||
	fail "fork: $np processes, records $(c fork pmu_records), foreign $(c fork pmu_foreign)"
# the parent keeps being sampled after a fork (a child that disabled the
# inherited fds stopped it: 0 samples); the soft sampler too.
for smp in pebs soft; do
	measure "fs-$smp" --sampler $smp -e COMM@1000000 "$B/tests/programs/fork_spin" 300 ||
		fail "fork_spin ($smp) failed"
	n=$(c "fs-$smp" samples)
	[ "$n" -ge 10 ] && ok "$smp: the parent is sampled after a fork ($n samples)" ||
		fail "$smp: the parent got $n samples in 300 ms after a fork"
done
# exec (lifecycle exits 3 after it): drained and flushed before, measured after,
# the exec'd image with the stand-in too.
measure exec --sampler pebs -e COMM@200000 "$LIFE" exec; rc=$?
[ "$rc" -eq 3 ] || fail "exec run: status $rc, expected the program's 3"
n=$(grep -l "^sampler: pebs (pebs: STAND-IN" "$TMP"/exec/*.log 2>/dev/null | wc -l)
[ "$n" -eq 2 ] && [ "$(c exec pmu_records)" -gt 0 ] && ok "exec: both images measured with the stand-in" ||
	fail "exec: $n logs name the stand-in, records $(c exec pmu_records)"

# --- 5. the PMU sampler's fds in the fd budget (ulimit -n 400: 300 ours) ---
TM="$B/tests/programs/threads_many"
nosampler() { sed -n 's/.*without sampler \([0-9]*\);.*/\1/p' "$TMP"/"$1"/*.log | head -n 1; }
for m in "churn 2000" "live 300"; do
	name=fd-${m%% *}
	sh -c 'ulimit -n 400 && exec "$@"' sh "$HPCRUN" -o "$TMP/$name" --sampler pebs -e COMM@1000000 \
		"$TM" $m >"$TMP/$name.out" 2>"$TMP/$name.err" || fail "$name: failed: $(tail -3 "$TMP/$name.err")"
	grep -q "^threads ${m#* } ok$" "$TMP/$name.out" || fail "$name: the program's output is wrong"
done
# 2000 threads, 4 alive at a time: every thread's 2 fds come back (a leak
# would leave later threads without sampler).
n=$(nosampler fd-churn)
[ "${n:-1}" -eq 0 ] && ok "fds: 2000 short-lived threads under ulimit -n 400, none without sampler" ||
	fail "fds: $n of 2000 short-lived threads without sampler (PMU fds not given back?)"
# 300 threads alive at once need 600: the budget says no to some, counted.
n=$(nosampler fd-live)
[ "${n:-0}" -gt 0 ] && grep -q "no sampler: the runtime's fd budget is used up" "$TMP"/fd-live/*.log &&
	ok "fds: 300 live threads x 2 PMU fds under ulimit -n 400: $n without sampler, said in the log" ||
	fail "fds: 300 live threads: $n without sampler (want some: 600 fds > the budget of 300)"
finish
