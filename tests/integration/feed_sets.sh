#!/bin/sh
# Feed sets (doc/detection.md §5.68): a thread pool in the style of
# C-Thread-Pool (accuracy.md, Session 26) — per round main writes the
# input rows in[i][0..7] of 32 tasks (one line each), queues the tasks
# (mutex + condition variable) and waits for them; a worker pops a task,
# loads its row before a register-only compute loop and stores out[i].
# main spends the run waiting: its stores of the rows are never sampled,
# and the workers' samples land in the compute loop. Checked, with the
# defaults (HPCRUN_COMM_FEED_SETS=1): the log states the rule; within 4 runs the
# workers' samples in the loop found the row's load (feed_asked >
# feed_none), feed sets armed, and a trap of theirs a communication
# (feed_comms) between main and a worker; the volume between main and the
# workers is then at least a fifth of the run's, the code pair main's
# store of the row against the worker's load of it is in the database,
# and the program's output is unchanged. At -O0 (§5.70: the task reloads
# its input in the loop among frame slots; HPCRUN_COMM_FEED_SAMPLED and
# HPCRUN_COMM_FEED_LIVE on by default): within 4 runs feed sets armed from
# the loop and communicated, main <-> workers at least a fifth of the
# volume, the same code pair in the database; with both switches 0 the
# -O0 loop asks nothing that way. With HPCRUN_COMM_FEED_SETS=0: off in the
# log, nothing asked. Patterns and counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cat >"$TMP/feed_pool.c" <<'CEOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#define NTASK 32
#define NW 2
static double in[NTASK][8] __attribute__((aligned(64)));
static double out[NTASK];
static struct { int next, pending, round, quit; pthread_mutex_t mu; pthread_cond_t work, done; } q =
	{ .mu = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER };
static void task(int i)
{
	double s = 0;
	for (int k = 0; k < 8; k++)
		for (int r = 0; r < 2000; r++)
			s = s * 0.999 + in[i][k];                /* FEED_LOAD */
	out[i] = s;
}
static void *worker(void *a)
{
	for (;;) {
		int i;
		pthread_mutex_lock(&q.mu);
		while (q.next == NTASK && !q.quit)
			pthread_cond_wait(&q.work, &q.mu);
		if (q.quit) {
			pthread_mutex_unlock(&q.mu);
			return a;
		}
		i = q.next++;
		pthread_mutex_unlock(&q.mu);
		task(i);
		pthread_mutex_lock(&q.mu);
		if (--q.pending == 0)
			pthread_cond_signal(&q.done);
		pthread_mutex_unlock(&q.mu);
	}
}
int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 600;
	pthread_t th[NW];
	double sum = 0;
	q.next = NTASK;
	for (int w = 0; w < NW; w++)
		pthread_create(&th[w], NULL, worker, NULL);
	for (int r = 0; r < rounds; r++) {
		for (int i = 0; i < NTASK; i++)
			for (int k = 0; k < 8; k++)
				in[i][k] = i + k * 0.5 + r * 1e-6;   /* FEED_STORE */
		pthread_mutex_lock(&q.mu);
		q.next = 0;
		q.pending = NTASK;
		pthread_cond_broadcast(&q.work);
		while (q.pending)
			pthread_cond_wait(&q.done, &q.mu);
		pthread_mutex_unlock(&q.mu);
		for (int i = 0; i < NTASK; i++)
			sum += out[i];
	}
	pthread_mutex_lock(&q.mu);
	q.quit = 1;
	pthread_cond_broadcast(&q.work);
	pthread_mutex_unlock(&q.mu);
	for (int w = 0; w < NW; w++)
		pthread_join(th[w], NULL);
	printf("rounds=%d sum=%.6e\n", rounds, sum);
	return 0;
}
CEOF
cc -O2 -g -pthread -o "$TMP/feed_pool" "$TMP/feed_pool.c" || fail "cannot build feed_pool"
[ "$FAILS" -eq 0 ] || finish
"$TMP/feed_pool" >"$TMP/native.out" || fail "feed_pool failed natively"
store_line=$(grep -n 'FEED_STORE' "$TMP/feed_pool.c" | cut -d: -f1)
load_line=$(grep -n 'FEED_LOAD' "$TMP/feed_pool.c" | cut -d: -f1)

measure_until on 4 \
	'skip_without_pset on; [ "$(logc on feed_comms)" -gt 0 ] && [ "$(($(cell on 0 1) + $(cell on 0 2)))" -gt 0 ]' \
	"$TMP/feed_pool"
cmp -s "$TMP/native.out" "$TMP/on.out" && ok "the program's output unchanged" ||
	fail "feed_pool printed $(cat "$TMP/on.out"), natively $(cat "$TMP/native.out")"
grep -q "feed sets: .*: on (HPCRUN_COMM_FEED_SETS" "$TMP/on"/*.log && ok "the log states the rule" ||
	fail "no 'feed sets: ...: on' line in the log"
fa=$(logc on feed_asked) fn=$(logc on feed_none) fr=$(logc on feed_armed) fc=$(logc on feed_comms)
[ "$fa" -gt "$fn" ] && [ "$fr" -gt 0 ] && [ "$fc" -gt 0 ] &&
	ok "feed sets: $fa asked, $fn without a feeding load, $fr armed, $fc communications" ||
	fail "feed sets: $fa asked, $fn without a feeding load, $fr armed, $fc communications"
all=$(total on) mw=$(($(cell on 0 1) + $(cell on 0 2)))
if [ "$all" -gt 0 ]; then
	share=$(ratio "$mw" "$all")
	ge "$share" 0.20 && ok "main <-> workers: $share of the volume" ||
		{ grep '^row' "$TMP/on.rows" >&2; fail "main <-> workers only $share of the volume"; }
	out=$(outside on 2)
	[ "$out" -eq 0 ] && ok "every pair between the program's threads" || fail "volume $out outside threads 0-2"
else
	fail "no communication in 4 runs"
fi
"$HPCPROF" -q -o "$TMP/on.db" "$TMP/on" >"$TMP/on.prof" 2>&1 || fail "hpcprof-comm failed: $(cat "$TMP/on.prof")"
"$B/viewer-export/viewer-export" --csv "$TMP/on.csv" "$TMP/on.db" >/dev/null 2>&1 || fail "viewer-export --csv failed"
# the code pair main's row store <-> the worker's row load, in either order
grep "feed_pool.c:$store_line," "$TMP/on.csv/code-pairs.csv" | grep -q "feed_pool.c:$load_line," &&
	ok "code pair: main's store at line $store_line <-> the worker's load at line $load_line" ||
	{ cat "$TMP/on.csv/code-pairs.csv" >&2; fail "no code pair feed_pool.c:$store_line <-> :$load_line"; }

# -O0 (§5.70, on by default): the task reloads its input in the loop among
# frame slots; a sample at the load (HPCRUN_COMM_FEED_SAMPLED) or anywhere
# in the loop while its address registers hold (HPCRUN_COMM_FEED_LIVE)
# asks for a feed set on the row.
cc -O0 -g -pthread -o "$TMP/feed_pool0" "$TMP/feed_pool.c" || fail "cannot build feed_pool at -O0"
measure_until o0 4 \
	'[ "$(logc o0 feed_comms)" -gt 0 ] && [ "$(($(cell o0 0 1) + $(cell o0 0 2)))" -gt 0 ]' \
	"$TMP/feed_pool0" 200
grep -q "rounds=200 " "$TMP/o0.out" && grep -q "a sampled load that is the only access of its loop asks too: on" "$TMP/o0"/*.log &&
	grep -q "asks for that load: on (HPCRUN_COMM_FEED_LIVE" "$TMP/o0"/*.log &&
	[ "$(logc o0 feed_armed)" -gt 0 ] && [ "$(logc o0 feed_comms)" -gt 0 ] &&
	ok "-O0: $(logc o0 feed_asked) asked ($(logc o0 feed_sampled) at the load), $(logc o0 feed_armed) sets, $(logc o0 feed_comms) communications" ||
	fail "-O0: $(logc o0 feed_asked) asked, $(logc o0 feed_armed) sets, $(logc o0 feed_comms) communications (output: $(cat "$TMP/o0.out"))"
all=$(total o0) mw=$(($(cell o0 0 1) + $(cell o0 0 2)))
if [ "$all" -gt 0 ]; then
	share=$(ratio "$mw" "$all")
	ge "$share" 0.20 && ok "-O0: main <-> workers $share of the volume" ||
		{ grep '^row' "$TMP/o0.rows" >&2; fail "-O0: main <-> workers only $share of the volume"; }
else
	fail "-O0: no communication in 4 runs"
fi
"$HPCPROF" -q -o "$TMP/o0.db" "$TMP/o0" >"$TMP/o0.prof" 2>&1 || fail "hpcprof-comm (-O0) failed: $(cat "$TMP/o0.prof")"
"$B/viewer-export/viewer-export" --csv "$TMP/o0.csv" "$TMP/o0.db" >/dev/null 2>&1 || fail "viewer-export --csv (-O0) failed"
grep "feed_pool.c:$store_line," "$TMP/o0.csv/code-pairs.csv" | grep -q "feed_pool.c:$load_line," &&
	ok "-O0 code pair: main's store at line $store_line <-> the worker's load at line $load_line" ||
	{ cat "$TMP/o0.csv/code-pairs.csv" >&2; fail "-O0: no code pair feed_pool.c:$store_line <-> :$load_line"; }
rm -rf "${TMP:?}/o0off"
HPCRUN_COMM_FEED_SAMPLED=0 HPCRUN_COMM_FEED_LIVE=0 measure o0off "$TMP/feed_pool0" 100 ||
	fail "sampled run (-O0, both switches 0) failed"
[ "$(logc o0off feed_sampled)" -eq 0 ] && [ "$(logc o0off feed_armed)" -eq 0 ] &&
	ok "-O0 with HPCRUN_COMM_FEED_SAMPLED=0 HPCRUN_COMM_FEED_LIVE=0: no feed set" ||
	fail "-O0 with both switches 0: $(logc o0off feed_sampled) sampled asks, $(logc o0off feed_armed) sets"

rm -rf "${TMP:?}/off"
HPCRUN_COMM_FEED_SETS=0 measure off "$TMP/feed_pool" 200 || fail "sampled run (feed sets off) failed"
grep -q "feed sets: .*: off (HPCRUN_COMM_FEED_SETS" "$TMP/off"/*.log && [ "$(logc off feed_asked)" -eq 0 ] &&
	ok "HPCRUN_COMM_FEED_SETS=0: off, nothing asked" ||
	fail "HPCRUN_COMM_FEED_SETS=0: $(logc off feed_asked) asked (or no 'off' line in the log)"
finish
