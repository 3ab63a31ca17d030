# SPDX-License-Identifier: BSD-3-Clause
# lib.sh — shared by the integration tests: run a program under the real
# launcher and runtime, and read the recorded per-thread rows with hc_rows.
# Exit 77 (automake SKIP) when the machine cannot measure, never a silent pass.
set -u
B=${HC_BUILDDIR:?run through make check}
S=${HC_SRCDIR:?run through make check}
HPCRUN="$B/hpcrun-comm/hpcrun-comm"
HPCPROF="$B/hpcprof-comm/hpcprof-comm"
BENCH="$B/tests/programs/comm_bench"
ROWS="$B/tests/integration/hc_rows"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hc-it.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
FAILS=0

fail() { echo "FAIL: $*" >&2; FAILS=$((FAILS + 1)); }
ok() { echo "ok: $*"; }

# Integration tests measure timing-dependent behaviour: run them one at a
# time (make check runs tests in parallel), so they do not starve each other.
serialize() {
	exec 9>"${TMPDIR:-/tmp}/hpcrun-comm-integration.lock"
	flock 9
}

require_measurable() {
	serialize
	if ! "$HPCRUN" -L >"$TMP/L.txt" 2>&1; then
		cat "$TMP/L.txt" >&2
		echo "SKIP: this machine cannot measure" >&2
		exit 77
	fi
}

# measure NAME ARGS...: run under hpcrun-comm into $TMP/NAME, rows in $TMP/NAME.rows
measure() {
	name=$1; shift
	"$HPCRUN" -o "$TMP/$name" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	"$ROWS" "$TMP/$name" >"$TMP/$name.rows" || fail "$name: unreadable profile"
	if [ "$rc" -ne 0 ]; then
		echo "$name: hpcrun-comm exited with status $rc; its stderr (last 40 lines):" >&2
		tail -n 40 "$TMP/$name.err" >&2
		# kept for finish, which prints it first (a CI shows the start
		# of a failed test's output, and may cut the logs after it)
		{
			echo "$name: exited with status $rc$([ "$rc" -gt 128 ] && echo " (signal $((rc - 128)))"): $*"
			tail -n 5 "$TMP/$name.err" | sed 's/^/  stderr: /'
			grep -h "fatal signal\|SIGTRAP (si_code\|error:" "$TMP/$name"/*.log 2>/dev/null | head -n 5 | sed 's/^/  log: /'
		} >>"$TMP/.failed-runs"
	fi
	return $rc
}

# outside NAME MAX: the volume of NAME's rows with a thread above MAX (0:
# every pair between the program's threads 0..MAX).
outside() { awk -v m="$2" '$1 == "row" && ($3 > m || $4 > m) { s += $5 } END { print s + 0 }' "$TMP/$1.rows"; }

# measure_until NAME TRIES CONDITION PROGRAM [ARGS...]: measure NAME (a
# fresh directory each time) until CONDITION, a shell command list on its
# logs (logc NAME ...), holds, at most TRIES times; 0 when it held. What a
# run finds is a matter of chance (samples, scheduling): a check of
# something that must happen at least once gets a few runs. The variables
# assigned before the call apply to every run.
measure_until() {
	mu_name=$1 mu_tries=$2 mu_cond=$3
	shift 3
	mu_try=1
	while :; do
		rm -rf "${TMP:?}/$mu_name"
		measure "$mu_name" "$@" || fail "sampled run ($mu_name) failed"
		eval "$mu_cond" && return 0
		[ "$mu_try" -ge "$mu_tries" ] && return 1
		echo "$mu_name: try $mu_try of $mu_tries: not yet ($mu_cond)"
		mu_try=$((mu_try + 1))
	done
}

# measure_min NAME MIN ARGS...: measure, and measure again (at most twice)
# while the recorded volume is below MIN (in the profile's unit: one sample
# detection weighs the period, e.g. 200000 at COMM@200000), saying so. The
# sampler detects what two threads do between each other's samples; on a
# loaded machine they may rarely run in turn, and a run can find too little
# to judge a pattern by. Each retry is logged; only the last run is checked.
measure_min() {
	mm_name=$1 mm_min=$2; shift 2
	for mm_try in 1 2 3; do
		rm -rf "${TMP:?}/$mm_name"
		measure "$mm_name" "$@" || return
		mm_all=$(total "$mm_name")
		ge "$mm_all" "$mm_min" && return 0
		echo "$mm_name: run $mm_try found volume $mm_all (< $mm_min) in $(counter "$mm_name" samples) samples$([ $mm_try -lt 3 ] && echo '; measuring again')"
	done
	return 0
}

# total NAME [FIELD]: sum of a row column (5 all, 6 true, 7 false, 8 sample, 9 trap)
total() {
	awk -v f="${2:-5}" '$1 == "row" { s += $f } END { printf "%.0f\n", s }' "$TMP/$1.rows"
}

# cell NAME I J [FIELD]: volume between threads I and J, both directions
cell() {
	awk -v i="$2" -v j="$3" -v f="${4:-5}" \
	    '$1 == "row" && (($3 == i && $4 == j) || ($3 == j && $4 == i)) { s += $f } END { printf "%.0f\n", s }' \
	    "$TMP/$1.rows"
}

# logc NAME COUNTER: the counter summed over the run's process logs (the
# runtime's own counters, e.g. the process-wide ones hc_rows does not list)
logc() { cat "$TMP/$1"/*.log 2>/dev/null | awk -v n="$2" '$1 == "counter" && $2 == n { s += $3 } END { print s + 0 }'; }

counter() {
	awk -v n="$2" '$1 == "counter" && $2 == n { print $3; found = 1 } END { if (!found) print 0 }' "$TMP/$1.rows"
}

# skip_without_pset NAME: exit 77 (skip) when measurement NAME's log says
# the debug registers or the process-wide watch set could not be opened here
skip_without_pset() {
	_l=$(cat "$TMP/$1"/*.log 2>/dev/null)
	if printf '%s\n' "$_l" | grep -q "watchpoints: none"; then
		echo "SKIP: no watchpoints on this machine ($(printf '%s\n' "$_l" | grep 'watchpoints: none' | head -1))"
		exit 77
	fi
	if printf '%s\n' "$_l" | grep -q "process-wide watch set: register\|process-wide watch set: none"; then
		echo "SKIP: the process-wide set could not be opened here ($(printf '%s\n' "$_l" | grep 'process-wide watch set' | head -1))"
		exit 77
	fi
}

# ratio A B: A/B as a decimal, 0 if B is 0
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print 0; else printf "%.4f\n", a / b }'; }
# ge X Y: X >= Y (decimals)
ge() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x >= y) }'; }
# flags_neighbours NAME: tests/programs/flags.c's pipeline (workers 1-3,
# each hands rows to the next): the share of the workers' volume on the
# neighbour cells (1,2) and (2,3) against (1,3); ok or fail; returns 1
# (nothing checked) when the workers have no volume between them.
flags_neighbours() {
	_nb=$(( $(cell "$1" 1 2) + $(cell "$1" 2 3) ))
	_ww=$(( _nb + $(cell "$1" 1 3) ))
	[ "$_ww" -gt 0 ] || return 1
	_share=$(ratio "$_nb" "$_ww")
	ge "$_share" 0.90 && ok "workers' volume on the neighbour cells: $_share" ||
		{ grep '^row' "$TMP/$1.rows" >&2; fail "workers' volume on the neighbour cells only $_share"; }
}

finish() {
	if [ "$FAILS" -ne 0 ]; then
		[ -f "$TMP/.failed-runs" ] && { echo "runs that failed:" >&2; cat "$TMP/.failed-runs" >&2; }
		echo "$FAILS check(s) failed; measurement logs:" >&2
		for f in "$TMP"/*/*.log; do [ -f "$f" ] && { echo "== $f" >&2; tail -n 40 "$f" >&2; }; done
		exit 1
	fi
	exit 0
}

# judge SAMPLED.db EXACT.db MINPREC MINREC: the sampled database against the
# exact one (acc_compare -v): ok when precision >= MINPREC and recall >=
# MINREC, else fail with the comparison on stderr
judge() {
	"$B/bench/accuracy/acc_compare" -v "$1" "$2" >"$TMP/judge.tsv" 2>&1 || { fail "acc_compare failed"; return; }
	_p=$(awk '$1 == "precision" { print $2 }' "$TMP/judge.tsv") _r=$(awk '$1 == "recall" { print $2 }' "$TMP/judge.tsv")
	ge "$_p" "$3" && ge "$_r" "$4" && ok "sampled against exact: precision $_p, recall $_r" ||
		{ cat "$TMP/judge.tsv" >&2; fail "sampled against exact: precision $_p, recall $_r"; }
}
