#!/bin/sh
# Hand-off sets of gated threads on the process-wide set (doc/detection.md
# §5.60, HPCRUN_COMM_HANDOFF_PSET=1): tests/programs/handoff.c with 4
# workers reading main's 16 MiB table, the switch gate made to refuse
# every thread that switched (HPCRUN_COMM_SWITCH_NS=100000000). Checked:
# within 20 runs (a run arms 6-41 such sets and 0-5 of them communicate;
# session 30's CIs found none in 4 runs, load 5 beside it, and needed 7) the log's line says hand-off sets went to the process-wide
# set, armed and communicated there, main paired with a worker, main's
# pairs >= 90 % of the volume; in no run a hand-off set opened a thread's
# registers (handoff_ungated 0). By default (off) the log has no such
# line. Skipped where no heap block is tracked (the ASan build) or the
# process-wide set cannot be opened. Patterns and counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O2 -g -pthread -o "$TMP/handoff" "$S/tests/programs/handoff.c" || fail "cannot build handoff"
[ "$FAILS" -eq 0 ] || finish

line() { grep -h "hand-off sets of threads the switch gate refuses: on the process-wide set" "$TMP/$1"/*.log; }
num() { line "$1" | sed -n "s/.*§5.60): \([0-9]*\) asked, \([0-9]*\) armed, \([0-9]*\) communications.*/\\$2/p"; }
opened=0
for try in $(seq 1 20); do
	rm -rf "${TMP:?}/on"
	HPCRUN_COMM_HANDOFF_PSET=1 HPCRUN_COMM_SWITCH_NS=100000000 measure on "$TMP/handoff" 4 5000000 ||
		fail "sampled run failed"
	if [ "$(logc on allocs_tracked)" -eq 0 ]; then
		echo "SKIP: no heap block tracked (the allocation wrappers are not in use here: a sanitizer build?)"
		exit 77
	fi
	skip_without_pset on
	opened=$((opened + $(logc on handoff_ungated)))
	m=0
	for k in 1 2 3 4; do m=$((m + $(cell on 0 $k))); done
	[ "$(num on 3)" -gt 0 ] 2>/dev/null && [ "$m" -gt 0 ] && break
	echo "try $try: $(num on 1) asked, $(num on 2) armed, $(num on 3) communications on the process-wide set"
done
[ -n "$(line on)" ] && ok "the log states the rule" || fail "no hand-off line of the process-wide set in the log"
[ "$(num on 2)" -gt 0 ] 2>/dev/null && ok "hand-off sets on the process-wide set: $(num on 2)" ||
	fail "none armed in 20 runs: $(line on)"
[ "$(num on 3)" -gt 0 ] 2>/dev/null && ok "their communications: $(num on 3)" ||
	fail "none communicated in 20 runs: $(line on)"
[ "$opened" -eq 0 ] && ok "no thread's registers opened by a hand-off set" ||
	fail "handoff_ungated $opened with HPCRUN_COMM_HANDOFF_PSET=1"
all=$(total on)
[ "$m" -gt 0 ] && ok "main paired with its workers: $m" || { grep '^row' "$TMP/on.rows" >&2; fail "main unpaired"; }
if [ "$all" -gt 0 ]; then
	share=$(ratio "$m" "$all")
	ge "$share" 0.90 && ok "main's share of the volume: $share" ||
		{ grep '^row' "$TMP/on.rows" >&2; fail "main's share of the volume only $share"; }
fi

rm -rf "${TMP:?}/off"
HPCRUN_COMM_SWITCH_NS=100000000 measure off "$TMP/handoff" 4 5000000 || fail "sampled run (default) failed"
[ -z "$(line off)" ] && ok "default: no hand-off set on the process-wide set" ||
	fail "default: $(line off)"
finish
