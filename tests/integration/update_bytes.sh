#!/bin/sh
# Two updates judged by their bytes (doc/detection.md §5.54):
# tests/programs/update_scatter.c, two threads doing `acc[idx] += v` on 16
# shared doubles at places their own generators name (Rodinia
# streamcluster's lower[center_table[a]] += …). In exact mode's model
# about 0.8 of the transfers are false (an update meets the other
# thread's element about once in eight); before this rule the threads'
# byte masks and the moving instruction's span covered both lines and
# every trap was judged true (false fraction 0.00-0.01 in 3 runs). Built
# -O2, and -O0 (which recomputes the address between the load and the
# store: found by evaluating the recomputation, §5.56). Checked, over up to 6 runs pooled until 100
# traps matched (a quiet run matches ~1,200; under load or ASan the two
# threads may take turns and match a handful): the log states the rule;
# traps judged false by it (false_update > 0); the pooled false
# fraction is at least 0.4. Off (HPCRUN_COMM_UPDATE_BYTES=0): none
# judged so, the log says off. -O0 (§5.56; 0.43-0.73 a run at load 5,
# 0.00 with HPCRUN_COMM_UPDATE_RECOMPUTE=0): the log states it, traps
# judged by the updates' bytes, pooled false fraction at least 0.3.
# Patterns and counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cc -O2 -g -pthread -o "$TMP/update_scatter" "$S/tests/programs/update_scatter.c" || fail "cannot build update_scatter"
cc -O0 -g -pthread -o "$TMP/update_scatter0" "$S/tests/programs/update_scatter.c" || fail "cannot build update_scatter -O0"
[ "$FAILS" -eq 0 ] || finish

# pooled NAME BIN MIN LABEL: up to 6 measured runs of BIN into $TMP/NAME,
# pooled until 100 traps matched; then checks traps judged by the
# updates' bytes and a pooled false fraction of at least MIN
pooled() {
	fu=0 all=0 fal=0 tm=0
	for try in 1 2 3 4 5 6; do
		rm -rf "${TMP:?}/$1"
		measure "$1" "$2" || fail "$4sampled run failed"
		fu=$((fu + $(logc "$1" false_update))) all=$((all + $(total "$1"))) fal=$((fal + $(total "$1" 7)))
		tm=$((tm + $(logc "$1" traps_matched)))
		echo "$4try $try: false_update $(logc "$1" false_update), updates sampled $(logc "$1" updates_sampled), trapped $(logc "$1" updates_trapped), traps matched $(logc "$1" traps_matched), volume $(total "$1"), false $(total "$1" 7)"
		[ "$tm" -ge 100 ] && break
	done
	if [ "$tm" -lt 20 ]; then
		fail "$4only $tm traps matched in 6 runs: too few to judge a false fraction (a quiet run matches ~1,200)"
		return
	fi
	[ "$fu" -gt 0 ] && ok "$4traps judged by the updates' bytes: $fu of $tm" || fail "$4no trap judged by the updates' bytes ($tm matched)"
	r=$(ratio "$fal" "$all")
	ge "$r" "$3" && ok "$4pooled false fraction $r (exact mode: about 0.8)" || fail "$4pooled false fraction $r < $3 (exact mode: about 0.8)"
}

pooled on "$TMP/update_scatter" 0.4 ""
grep -q "two updates .* are judged by their bytes alone.*: on (HPCRUN_COMM_UPDATE_BYTES=0 for off)" "$TMP/on"/*.log &&
	ok "the log states the rule" || fail "no 'two updates ... judged by their bytes alone ... on' line in the log"

# -O0: the address recomputed between the load and the store (§5.56)
pooled o0 "$TMP/update_scatter0" 0.3 "-O0: "
grep -q "an update's load and store found over -O0's recomputed address.*: on (HPCRUN_COMM_UPDATE_RECOMPUTE=0 for off)" "$TMP/o0"/*.log &&
	ok "-O0: the log states the evaluator" || fail "-O0: no 'found over -O0's recomputed address ... on' line in the log"
grep -q "a sampled load whose bytes -O0's code stores further on counts as that store.*: on (HPCRUN_COMM_UPDATE_SAMPLED=0 for off)" "$TMP/o0"/*.log &&
	ok "-O0: the log states the sampled loads' rule" || fail "-O0: no 'a sampled load whose bytes -O0's code stores further on ... on' line in the log"

rm -rf "${TMP:?}/off"
HPCRUN_COMM_UPDATE_BYTES=0 measure off "$TMP/update_scatter" 2000000 || fail "sampled run (rule off) failed"
grep -q "two updates .* are judged by their bytes alone.*: off (HPCRUN_COMM_UPDATE_BYTES=1 for on)" "$TMP/off"/*.log &&
	ok "the log says off" || fail "the log does not say the rule is off"
[ "$(logc off false_update)" -eq 0 ] && ok "off: none judged so" || fail "off: $(logc off false_update) judged by the updates' bytes"
finish
