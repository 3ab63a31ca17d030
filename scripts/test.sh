#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test.sh — quick start 2: install, build and run the whole test suite, then
# the same suite in an ASan+UBSan build, then the concurrent modules' unit
# tests in a TSan build. Ends with "N passed, N failed, N skipped".
# TEST_SANITIZERS=0 skips the ASan+UBSan build, TEST_TSAN=0 the TSan one.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0 skipped=0

# count LOG: add the automake summary of a test-suite.log to the totals
count() {
	p=$(awk '/^# PASS:/ {print $3}' "$1"); xf=$(awk '/^# XFAIL:/ {print $3}' "$1")
	f=$(awk '/^# FAIL:/ {print $3}' "$1"); xp=$(awk '/^# XPASS:/ {print $3}' "$1")
	e=$(awk '/^# ERROR:/ {print $3}' "$1"); s=$(awk '/^# SKIP:/ {print $3}' "$1")
	passed=$((passed + ${p:-0} + ${xf:-0}))
	failed=$((failed + ${f:-0} + ${xp:-0} + ${e:-0}))
	skipped=$((skipped + ${s:-0}))
}

# failed_logs BUILDDIR: the start of each failed test's log, whole (its
# checks and failure summary come first, the measurement logs after them)
failed_logs() {
	grep -E '^(FAIL|ERROR): ' "$1/check.out" | sed 's/^[A-Z]*: //' | while read -r t; do
		echo "---- $t (first 150 lines of $t.log)"
		head -n 150 "$1/$t.log" 2>/dev/null
	done | head -n 400
}

# suite NAME BUILDDIR [configure options]
suite() {
	name=$1 dir=$2; shift 2
	echo "== $name build ($dir)"
	if ! "$src/scripts/build.sh" "$dir" "$@"; then
		echo "$name: build failed"
		failed=$((failed + 1))
		return
	fi
	# One test at a time: the integration tests measure timing-dependent
	# behaviour and must not compete with the browser tests for 2 cores.
	make -C "$dir" -j1 check >"$dir/check.out" 2>&1
	grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' "$dir/check.out" | sed "s/^/[$name] /"
	if [ -f "$dir/test-suite.log" ]; then
		count "$dir/test-suite.log"
		grep -q '^# FAIL: *0$' "$dir/test-suite.log" && grep -q '^# ERROR: *0$' "$dir/test-suite.log" ||
			failed_logs "$dir"
	else
		tail -n 40 "$dir/check.out"
		echo "$name: the test suite did not run"
		failed=$((failed + 1))
	fi
}

# The concurrent modules under TSan: a TSan tree with only their
# multithreaded unit tests built and run (the bulletin board, the arenas, the
# profile writer and reader, the log). Each counts as one test; a TSan report
# makes the test exit non-zero (TSan's exitcode 66). TEST_TSAN=0 skips it.
TSAN_TESTS="tests/unit/detect/test_bulletin_mt tests/unit/support/test_arena \
 tests/unit/prof/test_prof_mt tests/unit/support/test_log tests/unit/exact/test_model_mt"
tsan_suite() {
	dir=$1
	echo "== tsan build ($dir)"
	mkdir -p "$dir"
	if ! { [ -f "$dir/Makefile" ] && [ "$dir/config.status" -nt "$src/configure" ] ||
	       (cd "$dir" && "$src/configure" -q --enable-tsan); } ||
	   ! make -C "$dir" -j"$(nproc)" $TSAN_TESTS >"$dir/build.out" 2>&1; then
		tail -n 40 "$dir/build.out" 2>/dev/null
		echo "tsan: build failed"
		failed=$((failed + 1))
		return
	fi
	for t in $TSAN_TESTS; do
		TSAN_OPTIONS="${TSAN_OPTIONS:-second_deadlock_stack=1}" "$dir/$t" >"$dir/$t.out" 2>&1
		rc=$?
		case $rc in
		0) echo "[tsan] PASS: $t"; passed=$((passed + 1)) ;;
		77) echo "[tsan] SKIP: $t"; skipped=$((skipped + 1)) ;;
		*) echo "[tsan] FAIL: $t (exit $rc)"; failed=$((failed + 1)); tail -n 60 "$dir/$t.out" ;;
		esac
	done
}

suite default "$src/build"
if [ "${TEST_SANITIZERS:-1}" != 0 ]; then
	suite asan-ubsan "$src/build-asan" --enable-sanitizers
fi
if [ "${TEST_TSAN:-1}" != 0 ]; then
	tsan_suite "$src/build-tsan"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
