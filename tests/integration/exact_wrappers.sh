#!/bin/sh
# The exact mode's compiler wrappers: hpcrun-comm-cc / hpcrun-comm-c++ build
# a C (pthreads), a C++ (std::thread, std::atomic, virtual calls) and an
# OpenMP program with gcc and with clang; each runs correctly without
# hpcrun-comm (the stub library) and under hpcrun-comm --exact, where it
# records transfers. A compiler that is not installed is reported; the test
# is skipped only when neither is.
. "$(dirname "$0")/lib.sh"
serialize
CCW="$B/hpcrun-comm/hpcrun-comm-cc"
CXXW="$B/hpcrun-comm/hpcrun-comm-c++"
ran=0
for pair in "gcc g++" "clang clang++"; do
	set -- $pair
	cc=$1 cxx=$2
	if ! command -v $cc >/dev/null 2>&1 || ! command -v $cxx >/dev/null 2>&1; then
		echo "note: $cc/$cxx not installed: not tested"
		continue
	fi
	ran=$((ran + 1))
	export HPCRUN_COMM_CC=$cc HPCRUN_COMM_CXX=$cxx
	"$CCW" -O2 -g -pthread -o "$TMP/c_$cc" "$S/tests/programs/exact_patterns.c" || fail "$cc: C build"
	"$CXXW" -O2 -g -pthread -o "$TMP/cxx_$cc" "$S/tests/programs/exact_cxx.cc" || fail "$cxx: C++ build"
	# separate compile and link steps, with OpenMP
	"$CCW" -O2 -g -fopenmp -c -o "$TMP/omp_$cc.o" "$S/tests/programs/exact_omp.c" || fail "$cc: OpenMP compile"
	"$CCW" -fopenmp -o "$TMP/omp_$cc" "$TMP/omp_$cc.o" || fail "$cc: OpenMP link"
	for p in c cxx omp; do
		[ -x "$TMP/${p}_$cc" ] || continue
		nm -D "$TMP/${p}_$cc" | grep -q " U __tsan_func_entry" || fail "$cc $p: not instrumented"
		case $p in c) args="pairs 2 50" ;; *) args= ;; esac
		# shellcheck disable=SC2086
		OMP_NUM_THREADS=2 "$TMP/${p}_$cc" $args >"$TMP/${p}_$cc.native" 2>&1 ||
			fail "$cc $p: does not run without hpcrun-comm: $(cat "$TMP/${p}_$cc.native")"
		# shellcheck disable=SC2086
		OMP_NUM_THREADS=2 measure m_${p}_$cc --exact "$TMP/${p}_$cc" $args || fail "$cc $p: --exact run failed"
		n=$(total m_${p}_$cc)
		[ "$n" -gt 0 ] && ok "$cc $p: built, runs natively and under --exact ($n transfers)" ||
			fail "$cc $p: no transfer recorded"
	done
	unset HPCRUN_COMM_CC HPCRUN_COMM_CXX
done
[ $ran -gt 0 ] || { echo "SKIP: neither gcc nor clang installed" >&2; exit 77; }
finish
