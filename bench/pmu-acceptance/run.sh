#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh — the hardware acceptance run of the PMU samplers (issue 19), for
# whoever has a machine with a PMU (bare-metal Intel with PEBS, AMD with
# IBS). Our own machines are VMs without one: there the run says so and
# SKIPs (exit 77), it neither passes nor fails. About 10 minutes; one line
# PASS / FAIL / SKIP / INFO per check and a summary to paste into an issue.
#
#   bench/pmu-acceptance/run.sh [--dry-run] [--no-overhead] [--no-suite] BUILDDIR [WORKDIR]
#
# --dry-run: only detect the PMU and print the plan (no measurement).
# --no-overhead: skip bench/overhead (the longest step, ~3 min).
# --no-suite: skip the integration tests re-run on the PMU sampler.
# WORKDIR (default /tmp/hc-pmu-acceptance) receives env.txt, the captured
# sysfs fixture (fixture/, to copy into tests/data/pmu/<name>/ and commit),
# the measurement directories and summary.txt.
#
# Checks (doc/samplers.md, "The hardware acceptance run"):
#  env       kernel, CPU, sysctls, libpfm4, hpcrun-comm -L, recorded
#  fixture   the real sysfs PMU directories copied as a probe-test tree
#  select    auto picks pebs/ibs and its self-check passes
#  perf      our sample count against perf record's on the same loop (when
#            perf is installed), and perf's addresses inside the loop's buffer
#  known     pinned threads, known buffers: private ~ no communication,
#            true -> true sharing, false -> false sharing, atomic -> traffic;
#            the runtime's own records dropped and counted (pmu_in_runtime)
#  rate      exactly N loads + N stores: records within 15 % of 2N/P
#  blocked   SIGTRAP blocked in the workers: records drained at exit, no crash
#  throttle  the floor period on a fast loop: throttling, if any, reported
#  running   enabled/running per thread at or above 95 % (or the warning)
#  platform  precise_ip used vs max_precise; hybrid E-cores; AMD swfilt,
#            non-root vs root
#  suite     lifecycle, signals, threads, sharing integration tests on the
#            PMU sampler
#  overhead  bench/overhead --quick at the default period
set -u

dry=0 overhead=1 suite=1
while [ $# -gt 0 ]; do
	case $1 in
	--dry-run) dry=1; shift ;;
	--no-overhead) overhead=0; shift ;;
	--no-suite) suite=0; shift ;;
	-h|--help) sed -n '3,33p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: run.sh [--dry-run] [--no-overhead] [--no-suite] BUILDDIR [WORKDIR]" >&2; exit 2; }
B=$(cd "$1" && pwd) || exit 2
S=$(cd "$(dirname "$0")/../.." && pwd)
W=${2:-/tmp/hc-pmu-acceptance}
HPCRUN="$B/hpcrun-comm/hpcrun-comm"
ROWS="$B/tests/integration/hc_rows"
ROOT=${HPCRUN_COMM_SYSFS_ROOT:-}
DEV="$ROOT/sys/bus/event_source/devices"
[ -x "$HPCRUN" ] && [ -x "$ROWS" ] ||
	{ echo "run.sh: build first (make -C $B && make -C $B tests/integration/hc_rows)" >&2; exit 2; }
mkdir -p "$W"
SUMMARY="$W/summary.txt"
: >"$SUMMARY"
npass=0 nfail=0 nskip=0

say() { echo "$*" | tee -a "$SUMMARY"; }
pass() { say "PASS  $1: $2"; npass=$((npass + 1)); }
fail() { say "FAIL  $1: $2"; nfail=$((nfail + 1)); }
skip() { say "SKIP  $1: $2"; nskip=$((nskip + 1)); }
info() { say "INFO  $1: $2"; }

# ---- is there a PMU at all? ----
kind=none maxp=0 core=""
for c in cpu_core cpu; do
	if [ -r "$DEV/$c/caps/max_precise" ]; then
		core=$c
		maxp=$(cat "$DEV/$c/caps/max_precise")
		break
	fi
done
[ -n "$core" ] && [ "$maxp" -ge 1 ] 2>/dev/null && kind=pebs
[ "$kind" = none ] && [ -r "$DEV/ibs_op/type" ] && kind=ibs
say "hpcrun-comm PMU acceptance run, $(date -u +%Y-%m-%dT%H:%MZ), $(uname -r), $(hostname)"
if [ "$kind" = none ]; then
	say "SKIP  no PMU on this machine: no core PMU with caps/max_precise >= 1 (PEBS)" \
	    "and no ibs_op PMU (IBS) in $DEV -- typical of a virtual machine."
	say "Nothing was checked: this is neither a pass nor a failure. Run it on bare-metal" \
	    "Intel (Haswell or later) or AMD (Zen) hardware."
	exit 77
fi
say "PMU: $kind (${core:-ibs_op}, max_precise $maxp)"
if [ "$dry" = 1 ]; then
	say "dry run: would record the environment, capture the fixture, then run select, perf," \
	    "known, rate, blocked, throttle, running, platform, suite, overhead into $W"
	exit 0
fi

# ---- env ----
{
	echo "date: $(date -u)"; uname -a
	grep -m1 'model name' /proc/cpuinfo; grep -m1 'cpu family' /proc/cpuinfo; grep -m1 '^model' /proc/cpuinfo
	for s in perf_event_paranoid perf_event_max_sample_rate perf_cpu_time_max_percent nmi_watchdog; do
		echo "kernel.$s = $(cat /proc/sys/kernel/$s 2>/dev/null)"
	done
	dpkg-query -W libpfm4 2>/dev/null || echo "libpfm4: (dpkg-query unavailable)"
	command -v perf >/dev/null && perf --version
	echo "id: $(id)"
	echo; "$HPCRUN" -L
} >"$W/env.txt" 2>&1
pass env "recorded in $W/env.txt"

# ---- fixture ----
F="$W/fixture"
rm -rf "$F"
mkdir -p "$F/proc/sys/kernel"
for p in "$DEV"/*; do
	n=$(basename "$p")
	mkdir -p "$F/sys/bus/event_source/devices/$n"
	cp "$p/type" "$F/sys/bus/event_source/devices/$n/" 2>/dev/null
	for d in caps format; do
		[ -d "$p/$d" ] && cp -r "$p/$d" "$F/sys/bus/event_source/devices/$n/" 2>/dev/null
	done
done
cp /proc/sys/kernel/perf_event_paranoid /proc/sys/kernel/osrelease "$F/proc/sys/kernel/"
pass fixture "sysfs PMU directories captured in $F (copy to tests/data/pmu/<cpu>-captured/, add a line to its README)"

# ---- select ----
"$HPCRUN" -L >"$W/L.txt" 2>&1
sel=$(sed -n 's/^selection (auto): *//p' "$W/L.txt")
case $sel in
*"using $kind"*"self-check: passed"*) pass select "$sel" ;;
*) fail select "auto does not use $kind with a passed self-check: ${sel:-$(tail -n 3 "$W/L.txt")}" ;;
esac

gcc -O2 -pthread -o "$W/known_addr" "$S/bench/pmu-acceptance/known_addr.c" ||
	{ fail build "cannot build known_addr.c"; exit 1; }
ncpu=$(nproc)
thr=$((ncpu >= 2 ? 2 : 1))

# measure NAME ARGS...: hpcrun-comm -o $W/NAME ARGS, rows in $W/NAME.rows
measure() {
	local name=$1; shift
	rm -rf "${W:?}/$name"
	"$HPCRUN" -o "$W/$name" "$@" >"$W/$name.out" 2>"$W/$name.err"
	local rc=$?
	"$ROWS" "$W/$name" >"$W/$name.rows" 2>/dev/null
	return $rc
}
counter() { awk -v n="$2" '$1 == "counter" && $2 == n { s += $3 } END { printf "%.0f\n", s }' "$W/$1.rows"; }
total() { awk -v f="${2:-5}" '$1 == "row" { s += $f } END { printf "%.0f\n", s }' "$W/$1.rows"; }
logline() { grep -h "$2" "$W/$1"/*.log 2>/dev/null | head -n 1; }

# ---- rate: exactly N loads + N stores ----
N=50000000 P=100000
if measure rate -e COMM@$P "$W/known_addr" count 1 $N; then
	# PEBS: one record every P loads and every P stores. IBS: one op in
	# every P, uniformly, so the memory-op records are (N + N) / P too.
	got=$(( $(counter rate samples) - $(counter rate pmu_in_runtime) - $(counter rate pmu_not_memory) ))
	exp=$((2 * N / P))
	if awk -v g="$got" -v e="$exp" 'BEGIN { exit !(g >= 0.85 * e && g <= 1.15 * e) }'; then
		pass rate "$got records for an expected $exp (loop of $N loads + $N stores, COMM@$P)"
	else
		fail rate "$got records for an expected $exp (outside 15 %)"
	fi
	info rate "$(logline rate '^pmu: period in effect')"
else
	fail rate "the run failed: $(tail -n 2 "$W/rate.err")"
fi

# ---- perf cross-check ----
if command -v perf >/dev/null 2>&1; then
	if [ "$kind" = pebs ]; then ev="cpu/event=0xd0,umask=0x81/pp,cpu/event=0xd0,umask=0x82/pp"
	else ev="ibs_op/cnt_ctl=1/"; fi
	[ "$core" = cpu_core ] && ev=${ev//cpu\//cpu_core\/}
	if perf record -q -o "$W/perf.data" -e "$ev" -c $P -d --per-thread "$W/known_addr" count 1 $N \
	        >"$W/perf.out" 2>"$W/perf.err"; then
		perf script -i "$W/perf.data" -F addr >"$W/perf.addr" 2>/dev/null
		pn=$(wc -l <"$W/perf.addr")
		read -r lo hi < <(awk '$1 == "buffer" { print $2, $3 }' "$W/perf.out")
		inb=$(awk -v lo="$((lo))" -v hi="$((hi))" '{ a = strtonum("0x" $1) } a >= lo && a < hi { n++ } END { print n + 0 }' "$W/perf.addr")
		ours=$(( $(counter rate samples) - $(counter rate pmu_in_runtime) ))
		if awk -v a="$ours" -v b="$pn" 'BEGIN { exit !(b > 0 && a >= 0.8 * b && a <= 1.2 * b) }'; then
			pass perf "our $ours records vs perf record's $pn on the same loop (within 20 %)"
		else
			fail perf "our $ours records vs perf record's $pn on the same loop"
		fi
		if awk -v i="$inb" -v n="$pn" 'BEGIN { exit !(n > 0 && i >= 0.95 * n) }'; then
			pass perf-addr "$inb of $pn perf sample addresses in the loop's buffer (>= 95 %)"
		else
			fail perf-addr "$inb of $pn perf sample addresses in the loop's buffer"
		fi
	else
		fail perf "perf record failed: $(tail -n 2 "$W/perf.err")"
	fi
else
	skip perf "perf is not installed (apt-get install linux-perf)"
fi

# ---- known-address patterns ----
for m in private true false atomic; do
	measure "k_$m" -e COMM@$P "$W/known_addr" $m $thr 100000000 ||
		fail "known-$m" "the run failed: $(tail -n 2 "$W/k_$m.err")"
done
if [ "$thr" -lt 2 ]; then
	skip known "one CPU: no communication between pinned threads"
else
	tp=$(total k_private) tt=$(total k_true) tf=$(total k_false) ta=$(total k_atomic)
	tts=$(total k_true 6) ttf=$(total k_true 7) fts=$(total k_false 6) ffs=$(total k_false 7)
	info known "matrix totals: private $tp, true $tt (TS $tts FS $ttf), false $tf (TS $fts FS $ffs), atomic $ta"
	awk -v p="$tp" -v t="$tt" 'BEGIN { exit !(t > 0 && p <= 0.05 * t) }' &&
		pass known-private "private $tp <= 5 % of true $tt" || fail known-private "private $tp vs true $tt"
	[ "$tts" -gt "$ttf" ] && pass known-true "true sharing dominates ($tts vs $ttf)" ||
		fail known-true "TS $tts, FS $ttf"
	[ "$ffs" -gt "$fts" ] && pass known-false "false sharing dominates ($ffs vs $fts)" ||
		fail known-false "FS $ffs, TS $fts"
	[ "$ta" -gt 0 ] && pass known-atomic "atomic traffic recorded ($ta)" || fail known-atomic "no traffic"
	info known "runtime self-records dropped: $(counter k_true pmu_in_runtime), unmapped $(counter k_true pmu_unmapped), leaf-only contexts $(counter k_true pmu_ctx_leaf_only) of $(counter k_true samples_with_access_at_pc)"
fi

# ---- SIGTRAP blocked ----
if measure blocked -e COMM@$P "$B/tests/programs/sigtrap_blocked" 2 30 300 0; then
	d=$(counter blocked pmu_stop_drained) l=$(counter blocked pmu_lost)
	[ "$d" -gt 0 ] && pass blocked "records drained at thread exit: $d, lost reported: $l" ||
		fail blocked "nothing drained at exit (lost $l)"
else
	fail blocked "the run failed: $(tail -n 2 "$W/blocked.err")"
fi

# ---- throttling at the floor ----
if measure throttle -e COMM@1 "$W/known_addr" count $thr 200000000; then
	th=$(counter throttle pmu_throttled)
	if [ "$th" -eq 0 ]; then
		pass throttle "not throttled at the floor period ($(logline throttle '^period:'))"
	elif grep -q "warning: pmu: the kernel throttled" "$W"/throttle/*.log; then
		pass throttle "throttled $th times and reported in the log"
	else
		fail throttle "throttled $th times, not reported"
	fi
else
	fail throttle "the run failed: $(tail -n 2 "$W/throttle.err")"
fi

# ---- running = enabled ----
l=$(logline k_true '^pmu: events ran')
case $l in
*"ran 9[5-9]%"*|*"ran 100%"*) pass running "$l" ;;
"") fail running "no enabled/running line in the log" ;;
*) fail running "$l" ;;
esac

# ---- the bulletin-board expiry from the measured rates; IBS randomization ----
l=$(logline rate '^pmu: bulletin-board expiry')
[ -n "$l" ] && info expiry "${l#pmu: }" || info expiry "no expiry line in the log"
if [ "$kind" = ibs ]; then
	l=$(logline rate '^ibs: [0-9]* samples with an unrandomized period')
	info ibs-random "${l:-no line}"
fi

# ---- platform ----
if [ "$kind" = pebs ]; then
	info platform "$(grep -m1 '^pebs' "$W/L.txt")"
	[ -d "$DEV/cpu_atom" ] && info platform "hybrid: cpu_atom present: time on E-cores is not sampled; per-thread running share above"
else
	[ -r "$DEV/ibs_op/format/swfilt" ] && info platform "ibs_op has swfilt (kernel-side exclude_kernel)" ||
		info platform "ibs_op without swfilt: non-root needs perf_event_paranoid <= 1"
	if [ "$(id -u)" -ne 0 ] && sudo -n true 2>/dev/null; then
		info platform "as root: $(sudo -n "$HPCRUN" -L 2>&1 | sed -n 's/^selection (auto): *//p')"
	fi
fi

# ---- the integration suite on the PMU sampler ----
if [ "$suite" = 1 ]; then
	for t in lifecycle signals threads sharing; do
		if make -C "$B" check TESTS="tests/integration/$t.sh" >"$W/suite-$t.txt" 2>&1; then
			pass "suite-$t" "tests/integration/$t.sh"
		else
			fail "suite-$t" "tests/integration/$t.sh (see $W/suite-$t.txt)"
		fi
	done
fi

# ---- overhead ----
if [ "$overhead" = 1 ]; then
	if "$S/bench/overhead/run.sh" --quick --only main "$B" "$W/overhead" >"$W/overhead.txt" 2>&1; then
		info overhead "bench/overhead --quick at the default period: see $W/overhead.txt"
		grep -A30 '^|' "$W/overhead.txt" | head -n 20 >>"$SUMMARY"
	else
		fail overhead "bench/overhead failed (see $W/overhead.txt)"
	fi
fi

say "summary: $npass PASS, $nfail FAIL, $nskip SKIP ($kind, $(uname -r)); paste $SUMMARY into the issue"
[ "$nfail" -eq 0 ]
