#!/bin/sh
# Reuse sets (doc/detection.md §5.30): tests/programs/pool.c, 2 workers
# refilling 16 pooled 64 KiB buffers taken from a FIFO pool, each chunk
# computed in the worker's own heap block and copied in with memcpy (as
# pigz's compress threads fill their pooled output buffers). A buffer's
# lines move worker to worker a few jobs later, and a worker's samples
# seldom touch the line it will refill, so only this rule puts its sets
# there. Checked: the log states the rule; with HPCRUN_COMM_REUSE_LIFE=16,
# sets armed only by the rule (watch_armed_reuse > 0) and a communication
# of theirs (reuse_comms > 0) in up to 4 runs, the workers' cell (1,2)
# >= 90 % of the volume (thread 0 is main); with HPCRUN_COMM_REUSE_LIFE=0
# none armed, none found, and the log says off. Skipped where no heap
# block is tracked (allocs_tracked 0: the ASan build). Patterns and
# counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O2 -g -pthread -o "$TMP/pool" "$S/tests/programs/pool.c" || fail "cannot build pool"
[ "$FAILS" -eq 0 ] || finish

for try in 1 2 3 4; do
	rm -rf "${TMP:?}/on"
	HPCRUN_COMM_REUSE_LIFE=16 measure on "$TMP/pool" 2 4000 64 || fail "sampled run failed"
	skip_without_pset on
	if [ "$(logc on allocs_tracked)" -eq 0 ]; then
		echo "SKIP: no heap block tracked (the allocation wrappers are not in use here: a sanitizer build?)"
		exit 77
	fi
	[ "$(logc on reuse_comms)" -gt 0 ] && break
	echo "try $try: $(logc on watch_armed_reuse) sets armed by the rule, $(logc on reuse_comms) communications"
done
grep -q "reuse sets: .* lives up to 16 samples" "$TMP/on"/*.log && ok "the log states the rule" ||
	fail "no 'reuse sets: ... lives up to 16 samples' line in the log"
armed=$(logc on watch_armed_reuse) comms=$(logc on reuse_comms)
[ "$armed" -gt 0 ] && ok "sets armed only by the rule: $armed" || fail "no set armed by the rule in 4 runs"
[ "$comms" -gt 0 ] && ok "their communications: $comms" || fail "no communication through the rule in 4 runs"
all=$(total on) ww=$(cell on 1 2)
if [ "$all" -gt 0 ]; then
	share=$(ratio "$ww" "$all")
	ge "$share" 0.90 && ok "the workers' share of the volume: $share" ||
		{ grep '^row' "$TMP/on.rows" >&2; fail "the workers' share of the volume only $share"; }
fi

rm -rf "${TMP:?}/off"
HPCRUN_COMM_REUSE_LIFE=0 measure off "$TMP/pool" 2 4000 64 || fail "sampled run (rule off) failed"
grep -q "reuse sets: off (HPCRUN_COMM_REUSE_LIFE=0)" "$TMP/off"/*.log && ok "the log says off" ||
	fail "the log does not say the rule is off"
[ "$(logc off watch_armed_reuse)" -eq 0 ] && [ "$(logc off reuse_comms)" -eq 0 ] &&
	ok "rule off: no set armed by it, nothing found through it" ||
	fail "rule off: $(logc off watch_armed_reuse) sets, $(logc off reuse_comms) communications"
finish
