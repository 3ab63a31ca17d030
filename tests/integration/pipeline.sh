#!/bin/sh
# Pipeline sets (doc/detection.md §5.18): tests/programs/flags.c, 3 workers
# in a wavefront of per-row flags (each flag a 64-byte line, set with an
# xchg, read by the next worker), more workers than CPUs on a 2-CPU
# machine. The workers' sampled xchg stores teach the flags' row stride;
# the process-wide set is then armed on the next row's flag (the writer's
# next store, the reader's next load). Checked: the log states the rule;
# with it, a stride learned, sets armed and a communication of theirs in
# up to 6 runs; the workers' volume on the neighbour cells (1-2, 2-3;
# thread 0 is main) >= 90 %; with HPCRUN_COMM_PIPE=0 the log says off and
# counts nothing. Patterns and counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O2 -g -pthread -o "$TMP/flags" "$S/tests/programs/flags.c" || fail "cannot build flags"
[ "$FAILS" -eq 0 ] || finish

# pipe NAME WHAT: a count of the log's "pipeline sets (HPCRUN_COMM_PIPE):"
# line (learned: strides learned; armed: sets armed; comms: communications)
pipe() {
	case $2 in
	learned) _e='s/.* \([0-9][0-9]*\) strides learned.*/\1/p' ;;
	armed) _e='s/.*sets armed \([0-9][0-9]*\).*/\1/p' ;;
	comms) _e='s/.*communications \([0-9][0-9]*\).*/\1/p' ;;
	esac
	_v=$(cat "$TMP/$1"/*.log 2>/dev/null | grep '^pipeline sets (HPCRUN_COMM_PIPE):' | head -1 | sed -n "$_e")
	echo "${_v:-0}"
}

for try in 1 2 3 4 5 6; do
	rm -rf "${TMP:?}/on"
	measure on "$TMP/flags" 3 512 4000 || fail "sampled run failed"
	skip_without_pset on
	comms=$(pipe on comms)
	[ "$comms" -gt 0 ] && break
	echo "try $try: $(pipe on learned) strides learned, $(pipe on armed) sets armed, $comms communications"
done
grep -q "^pipeline sets (the process-wide set .*): on" "$TMP/on"/*.log && ok "the log states the rule" ||
	fail "no 'pipeline sets (...): on' line in the log"
learned=$(pipe on learned) armed=$(pipe on armed)
[ "$learned" -gt 0 ] && ok "strides learned: $learned" || fail "no stride learned in 6 runs"
[ "$armed" -gt 0 ] && ok "pipeline sets armed: $armed" || fail "no pipeline set armed in 6 runs"
[ "$comms" -gt 0 ] && ok "their communications: $comms" || fail "no communication of a pipeline set in 6 runs"
flags_neighbours on || fail "no volume between the workers"

rm -rf "${TMP:?}/off"
HPCRUN_COMM_PIPE=0 measure off "$TMP/flags" 3 512 4000 || fail "sampled run (rule off) failed"
grep -q "^pipeline sets (the process-wide set .*): off (HPCRUN_COMM_PIPE=0)" "$TMP/off"/*.log &&
	ok "the log says off" || fail "the log does not say the rule is off"
grep -q '^pipeline sets (HPCRUN_COMM_PIPE):' "$TMP/off"/*.log &&
	fail "rule off: the log still counts pipeline sets" || ok "rule off: nothing counted"
finish
