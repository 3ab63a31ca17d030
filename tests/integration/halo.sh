#!/bin/sh
# A halo exchange found by the process-wide set's zone sets
# (doc/detection.md §5.16): tests/programs/halo.c, 3 workers owning blocks
# of 96 rows of a grid, copying their neighbours' boundary rows into ghost
# rows (copy_halo: the loads) and computing their own rows (relax: the
# stores), a barrier between; the boundary rows are 2 of a worker's 96,
# so timer samples rarely land on them. The switch gate refuses every
# thread (HPCRUN_COMM_SWITCH_NS and _OTHER_NS at 1 s a switch), so what
# traps is the process-wide set, and its zones are where it looks.
# Checked: the log's zone counters; of the trap volume between workers
# >= 60 % on the neighbour cells (threads 1-2 and 2-3; thread 0 is main,
# whose final sum after the joins is found by the joiner's sets; workers 1
# and 3 share only the barrier's words, which a zone set may catch: 2 of 9
# communications in one run of 20);
# >= 80 % of the neighbours' trap volume true sharing; relax <-> copy_halo
# among the top 3 true-sharing code pairs (main's sum <-> relax may lead). Up to 4 runs for the first zone communication (a
# loaded machine may co-schedule the workers rarely). Then the gate open
# for every thread (session 12, HPCRUN_COMM_PROCSET_ZONE_OPEN): zone sets
# armed by threads let through, a zone communication in up to 4 runs,
# >= 60 % of the workers' trap volume on the neighbour cells; none armed so
# with HPCRUN_COMM_PROCSET_ZONE_OPEN=0. Patterns, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O2 -g -pthread -o "$TMP/halo" "$S/tests/programs/halo.c" || fail "cannot build halo"
[ "$FAILS" -eq 0 ] || finish

export HPCRUN_COMM_SWITCH_NS=1000000000 HPCRUN_COMM_SWITCH_OTHER_NS=1000000000
# a budget of 5 % (1 % by default): more sets, so that a run finds
# something on a loaded machine (this checks patterns, not cost)
export HPCRUN_COMM_PROCSET=1 HPCRUN_COMM_PROCSET_BUDGET=50
log() { cat "$TMP/$1"/*.log 2>/dev/null; }
# zone_comms NAME: the communications the zone sets found (the log line)
zone_comms() { log "$1" | sed -n 's/.*process-wide watch set zones .* \([0-9]*\) communications.*/\1/p' | head -1; }
# zone_runs NAME [LABEL]: up to 4 sampled runs of the halo into NAME until
# the zone sets communicate; zn = how often (unset when they never did)
zone_runs() {
	zr_lbl=${2:+ ($2)}
	unset zn
	for try in 1 2 3 4; do
		rm -rf "${TMP:?}/$1"
		measure "$1" -e COMM@100000 "$TMP/halo" 3 3000 || fail "sampled run$zr_lbl failed"
		skip_without_pset "$1"
		[ "${zn:=$(zone_comms "$1")}" -gt 0 ] 2>/dev/null && break
		echo "try $try$zr_lbl: $(log "$1" | grep 'process-wide watch set zones' | head -1)"
		unset zn
	done
}

zone_runs h
line=$(log h | grep "process-wide watch set zones" | head -1)
[ -n "$line" ] && ok "zone counters: ${line#*: }" || fail "no zone counters in the log"
trap_all=$(total h 9)
if [ "${zn:-0}" -eq 0 ] || [ "$trap_all" -eq 0 ]; then
	fail "the zone sets found nothing in 4 runs ($line)"
else
	nb=$(( $(cell h 1 2 9) + $(cell h 2 3 9) ))
	ww=$(( nb + $(cell h 1 3 9) ))
	share=$(ratio "$nb" "$ww")
	ge "$share" 0.60 && ok "trap volume between workers on the neighbour cells: $share" ||
		{ grep '^row' "$TMP/h.rows" >&2; fail "trap volume between workers on the neighbour cells only $share"; }
	# true sharing in the neighbours' trap volume, at least true + trap -
	# all of each row (rows: 5 all, 6 true, 9 trap)
	tr=$(awk '$1 == "row" && (($3 == 1 && $4 == 2) || ($3 == 2 && $4 == 1) || ($3 == 2 && $4 == 3) ||
	                          ($3 == 3 && $4 == 2)) { d = $6 + $9 - $5; if (d > 0) t += d }
	          END { printf "%.0f\n", t }' "$TMP/h.rows")
	r=$(ratio "$tr" "$nb")
	ge "$r" 0.80 && ok "true sharing: $r of the neighbours' trap volume" ||
		fail "true sharing only $r of the neighbours' trap volume"
	"$HPCPROF" -q -o "$TMP/h.db" "$TMP/h" >"$TMP/h.prof.out" 2>&1 || fail "hpcprof-comm failed"
	cp=$(awk '/^Advice: true sharing/ { f = 1; next } f && /^  [123]\. / { print }' "$TMP/h.db/summary.txt")
	if echo "$cp" | grep -q "copy_halo.*relax\|relax.*copy_halo"; then
		ok "relax <-> copy_halo among the top true-sharing code pairs: $(echo "$cp" | tr -s ' ' | tr '\n' ';')"
	else
		fail "relax <-> copy_halo not among the top 3 true-sharing code pairs: $(echo "$cp" | tr '\n' ';')"
	fi
fi

# The same with the gate open for every thread (session 12,
# HPCRUN_COMM_PROCSET_ZONE_OPEN): no thread is refused, so the zone sets
# are armed by threads with registers of their own; they must be, and
# find the halo (up to 4 runs); with HPCRUN_COMM_PROCSET_ZONE_OPEN=0, none.
export HPCRUN_COMM_SWITCH_NS=0 HPCRUN_COMM_SWITCH_OTHER_NS=0
open_sets() { log "$1" | sed -n 's/.* \([0-9]*\) zone sets armed by threads the switch gate let through.*/\1/p' | head -1; }
zone_runs o "gate open"
os=$(open_sets o)
[ "${os:-0}" -gt 0 ] && ok "gate open: $os zone sets armed by threads let through, $zn communications" ||
	fail "gate open: no zone set armed by a thread let through ($(log o | grep 'process-wide watch set zones' | head -1))"
[ "${zn:-0}" -gt 0 ] 2>/dev/null || fail "gate open: the zone sets found nothing in 4 runs"
if [ "${zn:-0}" -gt 0 ] 2>/dev/null; then
	nb=$(( $(cell o 1 2 9) + $(cell o 2 3 9) ))
	ww=$(( nb + $(cell o 1 3 9) ))
	share=$(ratio "$nb" "$ww")
	ge "$share" 0.60 && ok "gate open: trap volume between workers on the neighbour cells: $share" ||
		{ grep '^row' "$TMP/o.rows" >&2; fail "gate open: trap volume between workers on the neighbour cells only $share"; }
fi
rm -rf "${TMP:?}/c"
HPCRUN_COMM_PROCSET_ZONE_OPEN=0 measure c -e COMM@100000 "$TMP/halo" 3 1000 || fail "sampled run (open off) failed"
cs=$(open_sets c)
[ "${cs:-x}" = 0 ] && ok "HPCRUN_COMM_PROCSET_ZONE_OPEN=0: no zone set armed by a thread let through" ||
	fail "HPCRUN_COMM_PROCSET_ZONE_OPEN=0: '$cs' zone sets armed by threads let through"
# Session 19 (detection.md §5.40): the gate refusing every thread again,
# with HPCRUN_COMM_PROCSET_ZONE_SPREAD=2 (found pairs picked in inverse
# proportion to the square of their finds) and the crowded switch charge
# at 2500 ns: the log says so and counts the switches charged at each
# rate, the zone sets still find the halo in up to 4 runs, >= 60 % of the
# workers' trap volume on the neighbour cells. A bad value is refused.
export HPCRUN_COMM_SWITCH_NS=1000000000 HPCRUN_COMM_SWITCH_OTHER_NS=1000000000
HPCRUN_COMM_PROCSET_ZONE_SPREAD=2 HPCRUN_COMM_PROCSET_SWITCH_CROWDED_NS=2500 zone_runs s "spread 2"
log s | grep 'process-wide watch set zones' | grep -q 'squared (HPCRUN_COMM_PROCSET_ZONE_SPREAD=2)' &&
	ok "spread 2: the zones line says squared" || fail "spread 2: the zones line does not say squared"
bl=$(log s | grep -o "[0-9]* of the process's switches while a set was armed, charged [0-9]* ns each.*CROWDED_NS)" | head -1)
echo "$bl" | grep -q 'charged 10000 ns each.* [0-9]* while it was crowded, 2500 ns each' &&
	ok "spread 2: switches charged: $bl" || fail "spread 2: no switch charges in the budget line ('$bl')"
[ "${zn:-0}" -gt 0 ] 2>/dev/null || fail "spread 2: the zone sets found nothing in 4 runs"
if [ "${zn:-0}" -gt 0 ] 2>/dev/null; then
	nb=$(( $(cell s 1 2 9) + $(cell s 2 3 9) ))
	ww=$(( nb + $(cell s 1 3 9) ))
	share=$(ratio "$nb" "$ww")
	ge "$share" 0.60 && ok "spread 2: trap volume between workers on the neighbour cells: $share" ||
		{ grep '^row' "$TMP/s.rows" >&2; fail "spread 2: trap volume between workers on the neighbour cells only $share"; }
fi
# Session 20 (detection.md §5.43): cross-edge zones kept to 32 lines either
# side of the edge (HPCRUN_COMM_PROCSET_ZONE_EDGE=32): the log says so, the
# zone sets still find the halo in up to 4 runs. A value above a block's
# 1024 lines is refused.
HPCRUN_COMM_PROCSET_ZONE_EDGE=32 zone_runs e "edge 32"
log e | grep 'zones across a block edge' | grep -q 'kept to the lines either side of the edge (HPCRUN_COMM_PROCSET_ZONE_EDGE=32)' &&
	ok "edge 32: the log says cross-edge zones are kept to the edge" || fail "edge 32: no edge line in the log"
[ "${zn:-0}" -gt 0 ] 2>/dev/null && ok "edge 32: zone sets communicated $zn times" ||
	fail "edge 32: the zone sets found nothing in 4 runs"
rm -rf "${TMP:?}/x"
if HPCRUN_COMM_PROCSET_ZONE_EDGE=2000 "$HPCRUN" -o "$TMP/x" "$TMP/halo" 3 10 >"$TMP/x.out" 2>&1; then
	fail "HPCRUN_COMM_PROCSET_ZONE_EDGE=2000 accepted"
else
	ok "HPCRUN_COMM_PROCSET_ZONE_EDGE=2000 refused"
fi
rm -rf "${TMP:?}/x"
if HPCRUN_COMM_PROCSET_ZONE_SPREAD=3 "$HPCRUN" -o "$TMP/x" "$TMP/halo" 3 10 >"$TMP/x.out" 2>&1; then
	fail "HPCRUN_COMM_PROCSET_ZONE_SPREAD=3 accepted"
else
	ok "HPCRUN_COMM_PROCSET_ZONE_SPREAD=3 refused: $(grep -o 'HPCRUN_COMM_PROCSET_ZONE_SPREAD.*' "$TMP/x.out" | head -1)"
fi
finish
