#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# pmu_acceptance.sh — bench/pmu-acceptance/run.sh where there is no PMU (this
# machine, and the sysfs tree of a VM): it must say that no PMU is present
# and SKIP (exit 77, "SKIP  no PMU", "neither a pass nor a failure"), never
# pass or fail; on the sysfs trees of PMU machines (--dry-run) it must find
# the PMU (pebs with max_precise, ibs). The measurement part needs hardware
# (doc/samplers.md, "The hardware acceptance run").
. "$(dirname "$0")/lib.sh"
RUN="$S/bench/pmu-acceptance/run.sh"

HPCRUN_COMM_SYSFS_ROOT="$S/tests/data/pmu/vm" "$RUN" "$B" "$TMP/acc" >"$TMP/vm.out" 2>&1
rc=$?
[ "$rc" -eq 77 ] && ok "vm tree: exit 77 (SKIP)" || fail "vm tree: exit $rc, expected 77"
grep -q "^SKIP  no PMU on this machine" "$TMP/vm.out" && grep -q "neither a pass nor a failure" "$TMP/vm.out" &&
	ok "vm tree: says no PMU, neither pass nor fail" || fail "vm tree output: $(cat "$TMP/vm.out")"
grep -q "^PASS\|^FAIL" "$TMP/vm.out" && fail "vm tree: a PASS or FAIL line without a PMU"

# this machine: whatever it has, a VM without PMU must SKIP the same way
if [ ! -r /sys/bus/event_source/devices/ibs_op/type ] &&
   ! grep -qs '[1-9]' /sys/bus/event_source/devices/cpu/caps/max_precise /sys/bus/event_source/devices/cpu_core/caps/max_precise; then
	"$RUN" "$B" "$TMP/acc" >"$TMP/here.out" 2>&1
	rc=$?
	[ "$rc" -eq 77 ] && grep -q "^SKIP  no PMU" "$TMP/here.out" && ok "this machine (no PMU): SKIP" ||
		fail "this machine: exit $rc: $(cat "$TMP/here.out")"
fi

HPCRUN_COMM_SYSFS_ROOT="$S/tests/data/pmu/intel-spr" "$RUN" --dry-run "$B" "$TMP/acc" >"$TMP/spr.out" 2>&1 &&
	grep -q "^PMU: pebs (cpu, max_precise 3)" "$TMP/spr.out" && ok "spr tree: finds PEBS (dry run)" ||
	fail "spr tree: $(cat "$TMP/spr.out")"
HPCRUN_COMM_SYSFS_ROOT="$S/tests/data/pmu/amd-zen4-swfilt" "$RUN" --dry-run "$B" "$TMP/acc" >"$TMP/amd.out" 2>&1 &&
	grep -q "^PMU: ibs" "$TMP/amd.out" && ok "zen4 tree: finds IBS (dry run)" || fail "zen4 tree: $(cat "$TMP/amd.out")"
finish
