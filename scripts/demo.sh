#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# demo.sh — quick start 1: install, build, and measure a bundled example
# (comm_bench false 0.5: four workers, half of the time false sharing one
# line field by field, half of the time true sharing one word), then run
# the analyzer and the report exporter, and print where the results are.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=$src/build
"$src/scripts/build.sh" "$build"
make -C "$build" -j"$(nproc)" tests/programs/comm_bench >/dev/null
out=${DEMO_DIR:-$src/demo-output}
rm -rf "$out"
mkdir -p "$out"
"$build/hpcrun-comm/hpcrun-comm" -o "$out/hpctoolkit-comm_bench-measurements" -e COMM@200000 \
	"$build/tests/programs/comm_bench" false 0.5 -t 4 -s 2
echo
echo "measurements: $out/hpctoolkit-comm_bench-measurements"
if [ -x "$build/hpcprof-comm/hpcprof-comm" ]; then
	"$build/hpcprof-comm/hpcprof-comm" -o "$out/hpctoolkit-comm_bench-database" \
		"$out/hpctoolkit-comm_bench-measurements"
	echo "database:     $out/hpctoolkit-comm_bench-database"
fi
if [ -x "$build/viewer-export/viewer-export" ] && [ -d "$out/hpctoolkit-comm_bench-database" ]; then
	"$build/viewer-export/viewer-export" "$out/hpctoolkit-comm_bench-database"
	echo "report:       $out/hpctoolkit-comm_bench-database/report.html"
fi
