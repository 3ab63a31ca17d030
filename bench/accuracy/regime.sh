#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# regime.sh — spsc's queue regime, natively and instrumented, and what a
# trace set would cost (trace_cost.c; doc/detection.md §5.28). Builds
# trace_cost plainly (-O2, -O0) and with the exact-mode wrapper
# (hpcrun-comm-cc), then per round, alternated: the consumer's d = head -
# tail histogram of the plain binary natively and under hpcrun-comm, of the
# instrumented one without hpcrun-comm (the stub: the calls alone) and
# under `hpcrun-comm --exact`; and the plain binary's "trace" (one RW
# breakpoint on an item chunk, inherited: the d each trap's handler sees)
# and "arm" (MODIFY_ATTRIBUTES every 64 items) modes. Never a timing test:
# the figures depend on the machine's load, printed with each line.
# FIFO=1: every run with trace_cost's "fifo" (the two sides on CPUs 0 and 1
# under SCHED_FIFO: an idle machine's regime on a loaded one; needs root).
#
#   [FIFO=1] bench/accuracy/regime.sh BUILDDIR [ROUNDS [WORKDIR]]   (default 3, /tmp/hc-regime)
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "$1" && pwd)
rounds=${2:-3}
work=${3:-/tmp/hc-regime}
mkdir -p "$work"
cd "$work"
p="$src/bench/accuracy"
for o in O2 O0; do
	cc -$o -g -pthread -o tc-plain-$o "$p/trace_cost.c" "$p/programs/work.c"
	"$build/hpcrun-comm/hpcrun-comm-cc" -$o -g -pthread -o tc-inst-$o "$p/trace_cost.c" "$p/programs/work.c"
done
hpcrun="$build/hpcrun-comm/hpcrun-comm"
n=2000000 f=
[ "${FIFO:-0}" = 1 ] && f=fifo
for r in $(seq 1 "$rounds"); do
	for k in plain-O2 inst-O2 exact-O2 sampled-O2 plain-O0 inst-O0 exact-O0 sampled-O0 trace arm; do
		rm -rf m
		case $k in
		plain-*)   set -- ./tc-$k native $n $f ;;
		inst-*)    set -- ./tc-$k native $n $f ;;
		exact-*)   set -- "$hpcrun" --exact -o m ./tc-inst-${k#exact-} native $n $f ;;
		sampled-*) set -- "$hpcrun" -o m ./tc-plain-${k#sampled-} native $n $f ;;
		trace)     set -- ./tc-plain-O2 trace $n $f ;;
		arm)       set -- ./tc-plain-O2 arm $n $f ;;
		esac
		out=$("$@" 2>/dev/null) || out="(failed or skipped: $?)"
		printf '%-10s r%s load %s\n%s\n' "$k" "$r" "$(cut -d' ' -f1 /proc/loadavg)" "$out" | sed 's/^mode [a-z]* [(fio)]* *items [0-9]* /  /; 2,$s/^/  /'
	done
done
