#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test.sh — quick start 2: install, build and run the whole test suite, then
# the same suite in an ASan+UBSan build. Ends with "N passed, N failed".
# TEST_SANITIZERS=0 skips the sanitizer build.
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
			sed -n '/^FAIL\|^ERROR/,/^$/p' "$dir/test-suite.log" | head -n 200
	else
		tail -n 40 "$dir/check.out"
		echo "$name: the test suite did not run"
		failed=$((failed + 1))
	fi
}

suite default "$src/build"
if [ "${TEST_SANITIZERS:-1}" != 0 ]; then
	suite asan-ubsan "$src/build-asan" --enable-sanitizers
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
