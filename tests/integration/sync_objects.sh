#!/bin/sh
# Synchronisation objects (doc/detection.md §5.37): glibc's barrier code
# reads and writes a pthread_barrier_t's words in every thread at every
# step; exact mode instruments the program's code only and never counts
# them. An inline program: two workers, each writing its first line of a
# heap array (its neighbour's halo) between two pthread_barrier_wait calls
# a step, and reading its neighbour's. Checked with the rule on (the
# default): the log states it, the barrier noted (sync_objects), samples
# in the barrier code dropped (within 4 runs), the program's output
# unchanged, some volume found, and the report's objects (viewer-export
# --csv) without the barrier `bar`, the heap array there (where heap
# blocks are tracked: not under ASan), every pair between the workers.
# With HPCRUN_COMM_SYNC_SYS=0: off in the log, nothing counted. Patterns
# and counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
VIEW="$B/viewer-export/viewer-export"
cat >"$TMP/halo_barrier.c" <<'CEOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#define T 2
#define N 64        /* a worker's cells; its first line is its neighbour's halo */
#define W 400       /* accesses of the halo line a phase */
static volatile double *part[T];
static pthread_barrier_t bar;
static double sink[T][8];
static void *worker(void *a)
{
	int me = (int)(long)a, R = (me + 1) % T;
	volatile double *u = malloc(N * sizeof(double)), *h;
	double acc = 0;

	for (int i = 0; i < N; i++)
		u[i] = me;
	part[me] = u;
	pthread_barrier_wait(&bar);
	h = part[R];
	for (long s = 0; s < 40000; s++) {
		for (int w = 0; w < W; w++)          /* its boundary cells, written */
			u[w & 7] = u[8 + (w & 31)] + w;
		pthread_barrier_wait(&bar);
		for (int w = 0; w < W; w++)          /* the neighbour's, read */
			acc += h[w & 7];
		pthread_barrier_wait(&bar);
	}
	sink[me][0] = acc;
	return (void *)(long)(acc == acc);
}
int main(void)
{
	pthread_t th[T];
	long ok = 0;

	pthread_barrier_init(&bar, NULL, T);
	for (int i = 0; i < T; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);
	for (int i = 0; i < T; i++) {
		void *r;
		pthread_join(th[i], &r);
		ok += (long)r;
	}
	printf("halo_barrier %ld\n", ok);
	return ok != T;
}
CEOF
cc -O2 -g -pthread -o "$TMP/halo_barrier" "$TMP/halo_barrier.c" || fail "cannot build halo_barrier"
[ "$FAILS" -eq 0 ] || finish

dropped() { echo $(($(logc "$1" sync_sys_samples) + $(logc "$1" sync_sys_bursts) + $(logc "$1" sync_sys_traps) + $(logc "$1" sync_sys_pset_traps))); }
for try in 1 2 3 4; do
	measure_min on 1 "$TMP/halo_barrier" || fail "sampled run failed"
	[ "$(dropped on)" -gt 0 ] && [ "$(total on)" -gt 0 ] && break
	echo "try $try: $(dropped on) accesses dropped, volume $(total on)"
done
grep -q "halo_barrier 2" "$TMP/on.out" && ok "the program's output unchanged" || fail "halo_barrier printed: $(cat "$TMP/on.out")"
grep -q "synchronisation objects: system code's accesses" "$TMP/on"/*.log && ok "the log states the rule" ||
	fail "no 'synchronisation objects: ...' line in the log"
[ "$(logc on sync_objects)" -ge 1 ] && ok "the barrier noted ($(logc on sync_objects) objects)" ||
	fail "no synchronisation object noted"
[ "$(dropped on)" -gt 0 ] && ok "accesses of the barrier code dropped: $(logc on sync_sys_samples) samples, $(logc on sync_sys_bursts) burst accesses, $(logc on sync_sys_traps) + $(logc on sync_sys_pset_traps) traps" ||
	fail "no access of the barrier code dropped in 4 runs"
all=$(total on)
if [ "$all" -gt 0 ]; then
	out=$(awk '$1 == "row" && !(($3 == 1 && $4 == 2) || ($3 == 2 && $4 == 1)) { s += $5 } END { print s + 0 }' "$TMP/on.rows")
	[ "$out" -eq 0 ] && ok "every pair between the workers (volume $all)" ||
		{ grep '^row' "$TMP/on.rows" >&2; fail "volume $out outside the workers' pair"; }
	"$HPCPROF" -q -o "$TMP/on.db" "$TMP/on" >/dev/null 2>&1 || fail "hpcprof-comm failed"
	"$VIEW" --csv "$TMP/on.csv" "$TMP/on.db" >/dev/null 2>&1 || fail "viewer-export --csv failed"
	objs=$(awk -F, 'NR > 1 { print $3 }' "$TMP/on.csv/objects.csv" | tr '\n' ';')
	awk -F, 'NR > 1 && $3 == "bar" { f = 1 } END { exit !f }' "$TMP/on.csv/objects.csv" &&
		fail "the barrier is a data object of the report: $objs" || ok "no barrier in the report's objects ($objs)"
	if [ "$(logc on allocs_tracked)" -eq 0 ]; then
		echo "note: no heap block tracked (a sanitizer build?): the heap object not checked"
	else
		awk -F, 'NR > 1 && $2 == "heap" && $3 ~ /malloc/ { f = 1 } END { exit !f }' "$TMP/on.csv/objects.csv" &&
			ok "the halo's heap array in the report" || fail "no heap array in the report's objects: $objs"
	fi
else
	echo "note: no volume found in 4 runs (a loaded machine): the report not checked"
fi

rm -rf "${TMP:?}/off"
HPCRUN_COMM_SYNC_SYS=0 measure off "$TMP/halo_barrier" || fail "sampled run (rule off) failed"
grep -q "synchronisation objects: counted as any data (HPCRUN_COMM_SYNC_SYS=0)" "$TMP/off"/*.log && ok "the log says off" ||
	fail "the log does not say the rule is off"
[ "$(logc off sync_objects)" -eq 0 ] && [ "$(dropped off)" -eq 0 ] && ok "rule off: nothing counted" ||
	fail "rule off: $(logc off sync_objects) objects, $(dropped off) dropped"
finish
