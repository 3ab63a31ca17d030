#!/bin/sh
# Reader sets (doc/detection.md §5.57): an owner-style master-worker
# program like mw_cond (main pushes task indices into a mutex +
# condition-variable queue; a worker pops one, runs an inlined compute loop
# and stores its result into results[t], one double a task, which main
# reads 64 tasks later). Checked, with the defaults: the log states the
# rule; within 4 runs samples inside the worker's compute loop name the
# store the loop ends with (reader_loops), reader sets armed on the
# process-wide set and at least one of their traps a communication
# (reader_comms), the program's output unchanged, every pair between its
# two threads. With HPCRUN_COMM_READER_SETS=0: off in the
# log, nothing counted. The same program at -O0 with the compute loop in a
# function of its own (-DCALLEE, §5.67): with HPCRUN_COMM_READER_CALLEE=1
# samples inside it name the worker's store after the call (reader_callee),
# reader sets armed, every pair between threads 0 and 1; =0: off in the
# log, nothing named. (Sampled stores arm none by default,
# HPCRUN_COMM_READER_SAMPLES=0: the loop's exit is what arms here.) Where no heap block is tracked (the ASan build) no
# reader set can be armed: only the log line and the output are checked.
# Patterns and counters, never timing.
. "$(dirname "$0")/lib.sh"
require_measurable
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler"; exit 77; }
cat >"$TMP/mwr.c" <<'CEOF'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#define QN 64
static struct { long task[QN]; int head, tail, done; pthread_mutex_t mu; pthread_cond_t ne, nf; } q =
	{ .mu = PTHREAD_MUTEX_INITIALIZER, .ne = PTHREAD_COND_INITIALIZER, .nf = PTHREAD_COND_INITIALIZER };
static double *results;
static long ntasks;
#ifdef CALLEE
static __attribute__((noinline)) double spin(double x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 1.0000001 + 0.5;
	return x;
}
#endif
static void *worker(void *a)
{
	for (;;) {
		pthread_mutex_lock(&q.mu);
		while (q.head == q.tail && !q.done)
			pthread_cond_wait(&q.ne, &q.mu);
		if (q.head == q.tail && q.done) {
			pthread_mutex_unlock(&q.mu);
			break;
		}
		long t = q.task[q.head % QN];
		q.head++;
		pthread_cond_signal(&q.nf);
		pthread_mutex_unlock(&q.mu);
#ifdef CALLEE
		results[t] = spin((double)t);     /* -O0: &results[t] in rbx across the call (§5.67) */
#else
		double x = (double)t, *r = results;   /* the pointer in a register through the loop, as
		                                         mw_cond -O2 has it (one reloaded after the loop
		                                         is not followed: §5.57) */
		for (int i = 0; i < 2000; i++)
			x = x * 1.0000001 + 0.5;
		r[t] = x;
#endif
	}
	return a;
}
int main(void)
{
	pthread_t th;
	double sum = 0, all = 0;
	ntasks = 60000;
	results = calloc(ntasks, sizeof(double));
	pthread_create(&th, NULL, worker, NULL);
	for (long t = 0; t < ntasks; t++) {
		pthread_mutex_lock(&q.mu);
		while (q.tail - q.head == QN)
			pthread_cond_wait(&q.nf, &q.mu);
		q.task[q.tail % QN] = t;
		q.tail++;
		pthread_cond_signal(&q.ne);
		pthread_mutex_unlock(&q.mu);
		if (t >= 64)
			sum += results[t - 64];
	}
	pthread_mutex_lock(&q.mu);
	q.done = 1;
	pthread_cond_broadcast(&q.ne);
	pthread_mutex_unlock(&q.mu);
	pthread_join(th, NULL);
	for (long t = 0; t < ntasks; t++)
		all += results[t] > 0;
	printf("done %.0f\n", all + 0 * sum);
	return 0;
}
CEOF
cc -O2 -g -pthread -o "$TMP/mwr" "$TMP/mwr.c" || fail "cannot build mwr"
cc -O0 -g -DCALLEE -pthread -o "$TMP/mwr0" "$TMP/mwr.c" || fail "cannot build mwr0"
[ "$FAILS" -eq 0 ] || finish

for try in 1 2 3 4; do
	rm -rf "${TMP:?}/on"
	measure on "$TMP/mwr" || fail "sampled run failed"
	skip_without_pset on
	[ "$(logc on allocs_tracked)" -eq 0 ] && break
	[ "$(logc on reader_comms)" -gt 0 ] && break
	echo "try $try: $(logc on reader_loops) loop exits, $(logc on reader_armed) reader sets, $(logc on reader_comms) communications"
done
grep -q "done 60000" "$TMP/on.out" && ok "the program's output unchanged" || fail "mwr printed: $(cat "$TMP/on.out")"
grep -q "reader sets: .*(detection.md §5.57): on" "$TMP/on"/*.log &&
	grep -q "reader sets' stores: .*sampled stores too: off" "$TMP/on"/*.log && ok "the log states the rule" ||
	fail "no 'reader sets: ... on' and 'reader sets' stores: ... sampled stores too: off' lines in the log"
if [ "$(logc on allocs_tracked)" -eq 0 ]; then
	echo "note: no heap block tracked (a sanitizer build?): reader sets not checked"
else
	lp=$(logc on reader_loops) ar=$(logc on reader_armed) rc=$(logc on reader_comms)
	[ "$lp" -gt 0 ] && ok "the compute loop's store named at samples inside it: $lp (none: $(logc on reader_loop_none))" ||
		fail "no loop's store named ($(logc on reader_loop_none) loops without one)"
	[ "$ar" -gt 0 ] && ok "reader sets armed: $ar of $(logc on reader_asked) asked" ||
		fail "no reader set armed ($(logc on reader_asked) asked, $(logc on reader_busy) busy, $(logc on reader_budget) over the budget)"
	[ "$rc" -gt 0 ] && [ "$rc" -le "$ar" ] &&
		ok "their communications: $rc ($(logc on reader_adopts) own stores adopted, $(logc on reader_chased) moved on)" ||
		fail "reader set communications: $rc of $ar armed sets"
	out=$(outside on 1)
	[ "$out" -eq 0 ] && ok "every pair between threads 0 and 1" || fail "volume $out outside threads 0-1"
fi

# -O0, the compute loop in a function of its own (§5.67): samples inside
# it name the worker's store after its return (reader_callee)
if [ "$(logc on allocs_tracked)" -gt 0 ]; then
	for try in 1 2 3 4; do
		rm -rf "${TMP:?}/c0"
		HPCRUN_COMM_READER_CALLEE=1 measure c0 "$TMP/mwr0" || fail "sampled run (-O0) failed"
		skip_without_pset c0
		[ "$(logc c0 reader_callee)" -gt 0 ] && [ "$(logc c0 reader_armed)" -gt 0 ] && break
		echo "try $try: $(logc c0 reader_callee) callee stores, $(logc c0 reader_armed) reader sets"
	done
	grep -q "done 60000" "$TMP/c0.out" || fail "mwr0 printed: $(cat "$TMP/c0.out")"
	grep -q "reader sets' stores from a leaf callee: .*: on (HPCRUN_COMM_READER_CALLEE" "$TMP/c0"/*.log ||
		fail "no 'reader sets' stores from a leaf callee: ... on' line in the log"
	[ "$(logc c0 reader_callee)" -gt 0 ] && [ "$(logc c0 reader_loops)" -eq 0 ] &&
		[ "$(logc c0 reader_armed)" -gt 0 ] &&
		ok "-O0: the callee's samples name the caller's store: $(logc c0 reader_callee) (none: $(logc c0 reader_callee_none)), $(logc c0 reader_armed) reader sets, $(logc c0 reader_comms) communications" ||
		fail "-O0: $(logc c0 reader_callee) callee stores, $(logc c0 reader_loops) loop stores, $(logc c0 reader_armed) reader sets"
	out=$(outside c0 1)
	[ "$out" -eq 0 ] && ok "-O0: every pair between threads 0 and 1" || fail "-O0: volume $out outside threads 0-1"
	rm -rf "${TMP:?}/c1"
	HPCRUN_COMM_READER_CALLEE=0 measure c1 "$TMP/mwr0" || fail "sampled run (-O0, callee off) failed"
	grep -q "reader sets' stores from a leaf callee: .*: off (HPCRUN_COMM_READER_CALLEE" "$TMP/c1"/*.log &&
		[ "$(logc c1 reader_callee)" -eq 0 ] && ok "HPCRUN_COMM_READER_CALLEE=0: off, nothing named" ||
		fail "HPCRUN_COMM_READER_CALLEE=0: $(logc c1 reader_callee) callee stores"
fi

rm -rf "${TMP:?}/off"
HPCRUN_COMM_READER_SETS=0 measure off "$TMP/mwr" || fail "sampled run (reader sets off) failed"
grep -q "done 60000" "$TMP/off.out" && grep -q "reader sets: .*(detection.md §5.57): off" "$TMP/off"/*.log &&
	[ "$(logc off reader_asked)" -eq 0 ] && [ "$(logc off reader_loops)" -eq 0 ] &&
	ok "HPCRUN_COMM_READER_SETS=0: off, nothing counted" ||
	fail "HPCRUN_COMM_READER_SETS=0: $(logc off reader_asked) asked, $(logc off reader_loops) loops"
finish
