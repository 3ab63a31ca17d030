#!/bin/sh
# Producer->consumer communication through plain stores and loads, with
# private work between (issue #14; tests/programs/patterns.c): the soft
# sampler must see it, through its single-step bursts, published loads and
# -O0 pointer reloads. Patterns with tolerances, never timing: what is
# found must lie on the designed cells, with the designed kind of sharing
# and the storing and loading functions as the code pair. Each pattern runs
# up to four times; every run that finds something must be right. Runs that
# find nothing come in two kinds, and the output names them with the
# counters: a loaded machine may give a run no sample on the shared line,
# or no co-scheduled time (the switch gate may keep a thread's registers
# closed all run: watch_threads_gated). Until session 8 the queue found
# nothing in 30-50 % of the runs under load although ~500 sets were armed:
# they were write-only sets on lines the watcher only reads (each thread's
# sampled loads are mostly of its own index, so the other thread watched
# the index it never writes); dry lines and read probes (detection.md
# §5.9) fixed that (0 of 10 empty at load 10-12 with two CPU hogs, 5 of 10
# before). The empty-try line prints the sets armed, the write-only ones
# that ended dry, the read probes and the traps.
. "$(dirname "$0")/lib.sh"
require_measurable
P2="$B/tests/programs/patterns"
P0="$B/tests/programs/patterns_O0"

# toppair NAME: the functions of the top code pair of a database
toppair() {
	"$HPCPROF" -q -o "$TMP/$1.db" "$TMP/$1" >"$TMP/$1.prof" 2>&1 || { echo "hpcprof-comm failed"; return; }
	sed -n '/^Top code pairs/,/^$/p' "$TMP/$1.db/summary.txt" | sed -n 3p |
		sed 's/.*(\([a-z_0-9]*\)) ↔ .*(\([a-z_0-9]*\)).*/\1 \2/'
}

# check NAME WANT-CELLS KIND F1 F2 PROG ARGS...: run until something is found
# (4 tries); WANT-CELLS "1-2 1-3"; KIND true|false; F1 F2 the code pair.
# With MAYBE=1 finding nothing in 4 tries is reported, not failed (the -O0
# ring: its store lies ~25 instructions after the sampled load, at the
# limit of a burst; doc/detection.md §5).
check() {
	name=$1 cells=$2 kind=$3 f1=$4 f2=$5; shift 5
	for try in 1 2 3 4; do
		rm -rf "${TMP:?}/$name"
		measure "$name" -e COMM@200000 "$@" || fail "$name: the program failed"
		all=$(total "$name")
		[ "$all" -gt 0 ] && break
		echo "$name: try $try found nothing ($(counter "$name" samples) samples, $(counter "$name" watch_armed) watchpoint sets armed ($(counter "$name" watch_armed_w) write-only, $(counter "$name" watch_dry) of them dry, $(counter "$name" watch_probes) read probes), $(counter "$name" traps) traps, $(counter "$name" watch_gated) gated, $(counter "$name" watch_threads_gated) threads gated all along)"
	done
	if [ "$all" -eq 0 ]; then
		if [ "${MAYBE:-0}" = 1 ]; then
			echo "$name: nothing found in 4 runs (allowed for this pattern; nothing wrong found either)"
		else
			fail "$name: no communication found in 4 runs"
		fi
		return
	fi
	on=0
	for c in $cells; do on=$((on + $(cell "$name" "${c%-*}" "${c#*-}"))); done
	r=$(ratio "$on" "$all")
	ge "$r" 0.90 || fail "$name: the designed cells ($cells) hold only $r of the volume"
	if [ "$kind" = true ]; then k=$(ratio "$(total "$name" 6)" "$all"); else k=$(ratio "$(total "$name" 7)" "$all"); fi
	ge "$k" 0.90 || fail "$name: only $k of the volume is $kind sharing"
	pair=$(toppair "$name")
	# ALT: a second designed code pair that may lead as well
	[ "$pair" = "$f1 $f2" ] || [ "$pair" = "$f2 $f1" ] ||
		{ [ -n "${ALT:-}" ] && { [ "$pair" = "$ALT" ] || [ "$pair" = "${ALT#* } ${ALT% *}" ]; }; } ||
		fail "$name: top code pair is '$pair', want $f1 and $f2${ALT:+ (or $ALT)}"
	ok "$name: volume $all, $r on $cells, $k $kind, code pair $pair"
}

# Nearest-neighbour ring (2 workers: threads 1 and 2) at -O2 and -O0.
check ring2 "1-2" true ring_store ring_load "$P2" ring -t 2 -w 4 -s 2
[ "$(counter ring2 step_bursts)" -gt 0 ] || fail "ring2: no single-step burst"
[ "$(counter ring2 step_stores)" -gt 0 ] || fail "ring2: no store found by a burst"
MAYBE=1 check ring0 "1-2" true ring_store ring_load "$P0" ring -t 2 -w 4 -s 3
# Ring of 3: only the ring cells (1,2), (2,3), (3,1).
check ring3 "1-2 2-3 1-3" true ring_store ring_load "$P2" ring -t 3 -w 4 -s 2
# SPSC queue: producer (thread 1) and consumer (thread 2).
check queue2 "1-2" true q_push q_pop "$P2" queue -t 2 -w 4 -s 2
check queue0 "1-2" true q_push q_pop "$P0" queue -t 2 -w 4 -s 2
# Master-worker: the master (thread 1) with each worker, never worker-worker.
# both hand-offs are designed: the task word (post -> fetch) and the result
# slots (reply -> collect); which leads varies from run to run (1 of 3
# runs with the process-wide return breakpoints off, 2 of 3 on: §5.21)
ALT="mw_collect mw_reply"
check mw "1-2 1-3" true mw_post mw_fetch "$P2" mw -t 3 -w 4 -s 2
ALT=
# Adjacent fields of a static struct at -O0: false sharing of the pair,
# found through the -O0 pointer reload.
check pair0 "1-2" false pair_inc_a pair_inc_b "$P0" pairwise -t 2 -w 4 -s 2
[ "$(counter pair0 samples_recovered_reload)" -gt 0 ] || fail "pair0: no -O0 pointer reload recovered"
# ... with int fields, both in one 8-byte watchpoint chunk: a trap on the
# -O0 load through the pointer it overwrites takes its 4 bytes from the
# pointer's slot, not the chunk, and stays false (detection.md §5.33)
check pairint0 "1-2" false pair_int_a pair_int_b "$P0" pairint -t 2 -w 4 -s 2

# Where the debug registers fire (hpcrun-comm -L says so: the probe writes
# a watched word), the watchpoint half must take part: the producer-consumer
# patterns' volume includes traps (a set on the consumer's published load
# catches the producer's store), and return bursts (an execute breakpoint
# on the private work's return address) run. Where they do not fire (some
# hypervisors; CI may run on another kernel) the runtime turns them off and
# these checks cannot apply.
if grep -q "^watchpoints: *yes" "$TMP/L.txt"; then
	tv=0 rb=0
	for n in ring2 ring3 queue2 mw; do
		[ -f "$TMP/$n.rows" ] || continue
		tv=$((tv + $(total "$n" 9)))
		rb=$((rb + $(counter "$n" ret_bp_hits)))
	done
	[ "$tv" -gt 0 ] && ok "watchpoint traps found volume ($tv) in the producer-consumer patterns" ||
		fail "watchpoints fire here, but no trap found any producer-consumer volume"
	[ "$rb" -gt 0 ] && ok "return bursts ran ($rb)" || fail "watchpoints fire here, but no return burst ran"
else
	echo "SKIP (watchpoint checks): $(grep '^watchpoints:' "$TMP/L.txt")"
fi
finish
