#!/bin/sh
# Synchronizing stores as watch targets (doc/detection.md §5.17):
# tests/programs/flags.c, 3 workers in a wavefront of per-row flags (each
# flag a 64-byte line, set with an xchg, read by the next worker), more
# workers than CPUs on a 2-CPU machine. A reader touches each flag line
# once an iteration, so only this rule puts its sets on the writer's
# published xchg stores. Checked: the log states the rule; with it, sets
# armed only by the rule (watch_armed_sync > 0) and a communication of
# theirs (sync_comms > 0) in up to 4 runs; the workers' volume on the
# neighbour cells (1-2, 2-3; thread 0 is main) >= 90 %; with
# HPCRUN_COMM_SYNC_TARGETS=0 none armed, none found, and the log says off.
# Patterns and counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O2 -g -pthread -o "$TMP/flags" "$S/tests/programs/flags.c" || fail "cannot build flags"
[ "$FAILS" -eq 0 ] || finish

for try in 1 2 3 4; do
	rm -rf "${TMP:?}/on"
	measure on "$TMP/flags" 3 512 4000 || fail "sampled run failed"
	skip_without_pset on
	[ "$(logc on sync_comms)" -gt 0 ] && break
	echo "try $try: $(logc on watch_armed_sync) sets armed by the rule, $(logc on sync_comms) communications"
done
grep -q "synchronizing stores .*: on" "$TMP/on"/*.log && ok "the log states the rule" ||
	fail "no 'synchronizing stores ...: on' line in the log"
armed=$(logc on watch_armed_sync) comms=$(logc on sync_comms)
[ "$armed" -gt 0 ] && ok "sets armed only by the rule: $armed" || fail "no set armed by the rule in 4 runs"
[ "$comms" -gt 0 ] && ok "their communications: $comms" || fail "no communication through the rule in 4 runs"
flags_neighbours on || true    # no volume between the workers: the counters above judge

rm -rf "${TMP:?}/off"
HPCRUN_COMM_SYNC_TARGETS=0 measure off "$TMP/flags" 3 512 4000 || fail "sampled run (rule off) failed"
grep -q "synchronizing stores .*: off (HPCRUN_COMM_SYNC_TARGETS=0)" "$TMP/off"/*.log && ok "the log says off" ||
	fail "the log does not say the rule is off"
[ "$(logc off watch_armed_sync)" -eq 0 ] && [ "$(logc off sync_comms)" -eq 0 ] &&
	ok "rule off: no set armed by it, nothing found through it" ||
	fail "rule off: $(logc off watch_armed_sync) sets, $(logc off sync_comms) communications"
finish
