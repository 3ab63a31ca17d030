#!/bin/sh
# The PMU samplers' selection and reporting on recorded sysfs trees
# (tests/data/pmu, through HPCRUN_COMM_SYSFS_ROOT), with the real kernel:
# -L names every sampler with yes/no and the reason in words, the verdict
# and the auto selection; asking for a sampler the machine lacks is refused
# before anything runs, with the reason; a measured run's log says which
# sampler ran and why the others did not. The perf_event_open outcomes
# depend on this machine (a PMU that really opens is reported as "yes").
. "$(dirname "$0")/lib.sh"
serialize
D="$S/tests/data/pmu"

list() { # tree pmu
	HPCRUN_COMM_SYSFS_ROOT="$D/$1" LIBPFM_FORCE_PMU=$2 "$HPCRUN" -L >"$TMP/L-$1.out" 2>&1
}
has() { # tree pattern what
	grep -q -- "$2" "$TMP/L-$1.out" && ok "$1: $3" || { fail "$1: -L lacks '$2' ($3)"; cat "$TMP/L-$1.out" >&2; }
}

list vm amd64_fam17h_zen1
has vm "^pebs (Intel): *no — no hardware core PMU" "pebs: no core PMU in sysfs"
has vm "^ibs (AMD): *no — no ibs_op PMU" "ibs: no ibs_op PMU in sysfs"
has vm "^selection (auto): *auto: using soft; pebs: no hardware core PMU.*; ibs: no ibs_op PMU" "auto picks soft, says why not the others"

list intel-skx skx
has intel-skx "^pebs (Intel): *\(yes — skx load and store events\|no — skx precise load/store events: \)" \
	"pebs: the skx events, opened or refused in words"
has intel-skx "^ibs (AMD): *no — no ibs_op PMU" "ibs: none on Intel"

list amd-zen3 amd64_fam19h_zen3
has amd-zen3 "^pebs (Intel): *no — no PEBS-capable Intel core PMU known to libpfm4 here (libpfm4 found: amd64_fam19h_zen3)" \
	"pebs: not an Intel PMU"
has amd-zen3 "^ibs (AMD): *\(yes\|no — per-thread ibs_op event: \|no — the kernel refuses\)" "ibs: tried per thread"

list amd-noopcnt amd64_fam17h_zen1
has amd-noopcnt "^ibs (AMD): *no — ibs_op has no op-counting mode" "ibs: no op counting"

list intel-adl spr
has intel-adl "^pebs (Intel): *\(yes — spr load and store events.*cpu_core\|no — spr precise load/store events: \)" \
	"pebs on a hybrid part: P-core events"

# A sampler the machine lacks, asked for explicitly: refused before running.
if ! grep -q "^pebs (Intel): *yes" "$TMP/L-vm.out"; then
	HPCRUN_COMM_SYSFS_ROOT="$D/vm" "$HPCRUN" -o "$TMP/refused" --sampler pebs /bin/true \
		>"$TMP/r.out" 2>"$TMP/r.err"
	rc=$?
	[ "$rc" -ne 0 ] && grep -q "pebs (requested) unavailable: pebs: no hardware core PMU" "$TMP/r.err" &&
		[ ! -e "$TMP/refused" ] && ok "--sampler pebs refused: $(head -n 1 "$TMP/r.err")" ||
		{ fail "--sampler pebs on a machine without PEBS: rc $rc"; cat "$TMP/r.err" >&2; }
fi

# A measured run under auto: the process log names the sampler and the reasons.
if "$HPCRUN" -L >/dev/null 2>&1; then
	HPCRUN_COMM_SYSFS_ROOT="$D/intel-skx" LIBPFM_FORCE_PMU=skx \
		"$HPCRUN" -o "$TMP/run" -e COMM@1000000 /bin/true >"$TMP/run.out" 2>&1 ||
		fail "a run under auto failed: $(cat "$TMP/run.out")"
	log=$(ls "$TMP"/run/*.log 2>/dev/null | head -n 1)
	if [ -n "$log" ] && grep -q "^sampler: \(soft (auto: using soft; pebs: skx\|pebs (auto: using pebs; pebs: skx\)" "$log"; then
		ok "log: $(grep '^sampler:' "$log" | cut -c1-160)..."
	else
		fail "the process log does not say which sampler ran and why"; cat "$log" >&2
	fi
else
	echo "note: this machine cannot measure; the measured run is not exercised"
fi
finish
