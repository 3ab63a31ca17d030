#!/bin/sh
# Edge memory and the edge sets' own budget (doc/detection.md §5.64,
# HPCRUN_COMM_PROCSET_EDGE_MEMORY, HPCRUN_COMM_PROCSET_EDGE_BUDGET): an
# inline 1-D halo exchange in a ring of 4 workers (the holdout halo_bar's
# shape): each worker's own heap array u, read by its neighbours at u[1]
# and u[N] once a step, and a scratch array v of the same size that no
# other thread reads; two barriers a step. The switch gate refuses every
# thread (HPCRUN_COMM_SWITCH_NS at 1 s a switch), so edge sets on the
# process-wide set are what finds the ring. Checked with both switches on:
# the log's edge memory line; within 4 runs edge sets communicating, the
# scratch arrays' samples passed over or moved to the thread's u, sets
# armed over the set's budget; the trap volume between workers >= 90 % on
# the ring's neighbour cells, at least 3 of its 4 pairs found. Off (both
# switches 0, the default is on): the line says 0 and nothing moved or armed over the
# budget. Skipped where no heap block is tracked (the ASan build) or the
# process-wide set cannot be opened. Patterns and counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cat >"$TMP/ring.c" <<'CEOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#define T 4
#define N 2048
static double *part[T];
static pthread_barrier_t bar;
static double res[T];
static long steps;
static void *worker(void *a)
{
	int me = (int)(long)a, L = (me + T - 1) % T, R = (me + 1) % T;
	double *u = malloc((N + 2) * sizeof(double)), *v = malloc((N + 2) * sizeof(double)), sum = 0;

	for (int i = 0; i <= N + 1; i++)
		u[i] = v[i] = me + i * 1e-3;
	part[me] = u;
	pthread_barrier_wait(&bar);
	for (long s = 0; s < steps; s++) {
		u[0] = part[L][N];
		u[N + 1] = part[R][1];
		pthread_barrier_wait(&bar);
		for (int i = 1; i <= N; i++)
			v[i] = (u[i - 1] + u[i] + u[i + 1]) * (1.0 / 3);
		for (int i = 1; i <= N; i++)
			u[i] = v[i];
		pthread_barrier_wait(&bar);
	}
	for (int i = 1; i <= N; i++)
		sum += u[i];
	res[me] = sum;
	free(v);
	return NULL;
}
int main(int argc, char **argv)
{
	pthread_t th[T];
	double sum = 0;

	steps = argc > 1 ? atol(argv[1]) : 8000;
	pthread_barrier_init(&bar, NULL, T);
	for (long w = 0; w < T; w++)
		pthread_create(&th[w], NULL, worker, (void *)w);
	for (int w = 0; w < T; w++)
		pthread_join(th[w], NULL);
	for (int w = 0; w < T; w++) {
		sum += res[w];
		free(part[w]);
	}
	printf("ring sum=%.6e\n", sum);
	return 0;
}
CEOF
cc -O0 -g -pthread -o "$TMP/ring" "$TMP/ring.c" || fail "cannot build the ring"
[ "$FAILS" -eq 0 ] || finish

export HPCRUN_COMM_SWITCH_NS=1000000000 HPCRUN_COMM_SWITCH_OTHER_NS=1000000000
line() { grep -h "process-wide watch set edge memory" "$TMP/$1"/*.log; }
# passed NAME, moved NAME, extra NAME: the edge memory line's samples passed over, moved to
# another block, sets armed over the set's budget
passed() { line "$1" | sed -n "s/.*: \([0-9]*\) samples' blocks passed over.*/\1/p" | head -1; }
moved() { line "$1" | sed -n 's/.* \([0-9]*\) moved to another block.*/\1/p' | head -1; }
extra() { line "$1" | sed -n 's/.*permille of their own): \([0-9]*\) armed.*/\1/p' | head -1; }
edge_comms() { grep -h "process-wide watch set edge sets" "$TMP/$1"/*.log | sed -n 's/.* armed, \([0-9]*\) communications.*/\1/p' | head -1; }
# the ring's cells: threads 1..4 (main is 0), neighbours (1,2) (2,3) (3,4) (1,4)
ring() { echo $(( $(cell "$1" 1 2 9) + $(cell "$1" 2 3 9) + $(cell "$1" 3 4 9) + $(cell "$1" 1 4 9) )); }
pairs() { n=0; for p in "1 2" "2 3" "3 4" "1 4"; do [ "$(cell "$1" $p 9)" -gt 0 ] && n=$((n + 1)); done; echo $n; }

for try in 1 2 3 4; do
	rm -rf "${TMP:?}/on"
	HPCRUN_COMM_PROCSET_EDGE_MEMORY=1 HPCRUN_COMM_PROCSET_EDGE_BUDGET=10 measure on "$TMP/ring" || fail "sampled run failed"
	if [ "$(logc on allocs_tracked)" -eq 0 ]; then
		echo "SKIP: no heap block tracked (the allocation wrappers are not in use here: a sanitizer build?)"
		exit 77
	fi
	skip_without_pset on
	[ "$(edge_comms on)" -gt 1 ] 2>/dev/null && [ $(( $(passed on) + $(moved on) )) -gt 0 ] &&
		[ "$(extra on)" -gt 0 ] && [ "$(pairs on)" -ge 3 ] && break
	echo "try $try: edge communications $(edge_comms on), pairs $(pairs on); $(line on | sed 's/.*§5.64[^:]*: //')"
done
[ -n "$(line on)" ] && ok "the log states the rule" || fail "no edge memory line in the log"
[ "$(edge_comms on)" -gt 1 ] 2>/dev/null && ok "edge sets' communications: $(edge_comms on)" ||
	fail "edge sets found $(edge_comms on) in 4 runs"
[ $(( $(passed on) + $(moved on) )) -gt 0 ] && ok "scratch samples passed over $(passed on), moved $(moved on)" ||
	fail "nothing passed over or moved: $(line on)"
[ "$(extra on)" -gt 0 ] && ok "edge sets over the set's budget: $(extra on)" ||
	fail "none armed over the budget: $(line on)"
ww=0
for i in 1 2 3; do for j in $(seq $((i + 1)) 4); do ww=$((ww + $(cell on $i $j 9))); done; done
if [ "$ww" -gt 0 ]; then
	share=$(ratio "$(ring on)" "$ww")
	ge "$share" 0.90 && ok "trap volume between workers on the ring's cells: $share" ||
		{ grep '^row' "$TMP/on.rows" >&2; fail "ring share only $share"; }
else
	fail "no trap volume between workers"
fi
[ "$(pairs on)" -ge 3 ] && ok "ring pairs found: $(pairs on) of 4" ||
	{ grep '^row' "$TMP/on.rows" >&2; fail "ring pairs found: $(pairs on) of 4"; }

rm -rf "${TMP:?}/off"
HPCRUN_COMM_PROCSET_EDGE_MEMORY=0 HPCRUN_COMM_PROCSET_EDGE_BUDGET=0 measure off "$TMP/ring" || fail "sampled run (off) failed"
line off | grep -q "EDGE_MEMORY=0" && [ "$(moved off)" -eq 0 ] && [ "$(extra off)" -eq 0 ] &&
	ok "off: nothing moved, nothing over the budget" || fail "off: $(line off)"
finish
