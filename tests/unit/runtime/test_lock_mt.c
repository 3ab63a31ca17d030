/* SPDX-License-Identifier: BSD-3-Clause */
/* test_lock_mt.c — lock.c's interposed mutex calls under concurrency. The
   program's threads hand a mutex to each other (lock, unlock, condition
   waits with a timeout) while trap handlers on other threads read the
   table and the process-wide lock set's record (lock__pset_after's
   seqlock, lock__pset_verdict, lock__in_block, lock__mutex_word,
   lock__sync_sys). Half the workers are open (their own lock sets, a trap
   simulated inside the critical section, kept armed by lock__keep), half
   are gated (snapshots, the process-wide set armed after the unlock, its
   record followed by later releasers: after_release).
   Checked: every thread's hand-off count is exact (the test keeps the
   mutex's last holder itself); every process-wide trap a reader resolves
   names a worker other than the set's armer, with a context that worker's
   release captured (a torn copy of the record would mix two writers'
   fields); each mechanism ran. Built in the TSan tree too
   (scripts/test.sh): the slots and the record are read by handlers while
   holders write them, and TSan checks that nothing races. The runtime's
   collaborators (watch, cct, loadmap, record) are the doubles below. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/rt.h"
#include "runtime/loadmap.h"
#include "runtime/alloc/blocks.h"
#include "decode/decode.h"
#include "hc_test.h"

#define NW     4          /* workers: 0, 1 open; 2, 3 gated */
#define NR     2          /* trap-handler threads */
#define ITERS  3000       /* a worker's critical sections */
#define CTX(i) (1000u * ((i) + 1))   /* contexts of worker i: CTX(i) + 1 .. CTX(i) + 999 */

struct rt_runtime hc_rt;
__thread struct rt_thread *hc_self __attribute__((tls_model("initial-exec")));
int blocks__any;
uint64_t loadmap__self_lo, loadmap__self_len;

/* the program's data: a mutex outside the heap and the 64 bytes after it
   (its lock sets' neighbourhood), written only under the mutex */
static struct {
	pthread_mutex_t mu;
	uint64_t head, tail, last, w[5];
	pthread_cond_t cv;
} q __attribute__((aligned(64))) = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };

static uint64_t expected[NW];        /* hand-offs each worker took (under the mutex) */
static int done;                     /* the workers finished (atomic) */

/* ---- doubles ---- */

/* the process-wide set: one at a time, held by a reader for a while;
   its fields are atomics (a handler may read them while the set ends and
   a worker arms the next: the handler's values are then mixed, which
   lock__pset_after must survive) */
#define SET(f, v) __atomic_store_n(&(f), (v), __ATOMIC_RELAXED)
#define GET(f) __atomic_load_n(&(f), __ATOMIC_RELAXED)
static struct {
	int busy;                        /* atomic: armed */
	uint32_t slot, armer;
	uint64_t addr, lo, changed;
	uint8_t bytes;
} pset;
static uint64_t pset_arms, ctx_calls;

bool watch__pset_idle(void)
{
	return __atomic_load_n(&pset.busy, __ATOMIC_ACQUIRE) == 0;
}

int watch__pset_lock(struct rt_thread *t, const struct hc_bb_entry *e, uint64_t addr, uint32_t slot, uint64_t lo,
                     uint64_t changed, uint8_t bytes, uint64_t weight, uint32_t owner)
{
	int expect = 0;

	(void)e;
	(void)weight;
	(void)owner;
	if (!__atomic_compare_exchange_n(&pset.busy, &expect, 2, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return -EBUSY;
	SET(pset.slot, slot);
	SET(pset.armer, t->id.index);
	SET(pset.addr, addr);
	SET(pset.lo, lo);
	SET(pset.changed, changed);
	SET(pset.bytes, bytes);
	__atomic_store_n(&pset.busy, 1, __ATOMIC_RELEASE);      /* published */
	__atomic_add_fetch(&pset_arms, 1, __ATOMIC_RELAXED);
	return 0;
}

uint32_t cct__context_here_store(struct rt_thread *t, int skip, cct_leaf_fn leaf_of, void *arg, bool *moved)
{
	uint64_t n = __atomic_add_fetch(&ctx_calls, 1, __ATOMIC_RELAXED);

	(void)skip;
	(void)leaf_of;
	(void)arg;
	*moved = true;
	return CTX(t->id.index) + 1 + (uint32_t)(n % 999);
}

uint32_t cct__insert_under(struct rt_thread *t, uint32_t parent, uint64_t leaf)
{
	(void)t;
	(void)leaf;
	return parent;
}

int hc_decode_stores_before(uint64_t ret, unsigned max, struct hc_store_site *out, unsigned nmax)
{
	(void)ret;
	(void)max;
	(void)out;
	(void)nmax;
	return 0;
}

#define SYS_PC 0x7fff00000000ull         /* "system code" leaves */
bool loadmap__system_code(uint64_t pc) { return pc >= SYS_PC; }
bool loadmap__system_data(uint64_t addr) { (void)addr; return false; }
bool blocks__find(uint64_t addr, struct rt_block *out) { (void)addr; (void)out; return false; }
bool thread__watch_allowed(struct rt_thread *t) { (void)t; return true; }
void record__apply_set(struct rt_thread *t, const struct hc_detect_result *r) { (void)t; (void)r; }

uint64_t process__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the program ---- */

static struct rt_thread *new_thread(uint32_t index, bool open)
{
	struct rt_thread *t = calloc(1, sizeof *t);

	if (!t) {
		perror("calloc");
		exit(99);
	}
	t->id.index = index;
	t->watch.opened = open;
	t->det.nsamples = 100;
	return t;
}

/* The trap of an open worker's armed lock set, inside its critical
   section (the handler runs on the thread itself), then its end. */
static void trap_own(struct rt_thread *t, uint32_t k)
{
	struct hc_bb_entry start[HC_MAX_WATCH];
	uint32_t n = t->det.nwatch;

	if (!t->det.armed || !t->det.lock_set || !n)
		return;
	memcpy(start, t->det.start, sizeof(start[0]) * n);
	lock__trap(t, t->det.start[k % n].addr, k % 5 == 0 ? SYS_PC : 0x401000, t->det.start[k % n].addr, 8);
	t->det.armed = false;              /* the trap ended the set (watch.c) */
	if (k % 3 == 0)
		lock__keep(t, start, n, 1, start[k % n].line);
	t->det.armed = false;
	t->det.lock_set = false;
}

static void *worker(void *arg)
{
	uint32_t me = (uint32_t)(uintptr_t)arg;
	struct rt_thread *t = new_thread(me, me < 2);

	hc_self = t;
	for (uint32_t k = 0; k < ITERS; k++) {
		pthread_mutex_lock(&q.mu);
		if (k % 16 == 7) {                 /* a timed condition wait: release, acquisition */
			struct timespec ts;

			if (q.last != 0 && q.last != me + 1)
				expected[me]++;
			q.last = me + 1;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 20000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&q.cv, &q.mu, &ts);
		}
		if (q.last != 0 && q.last != me + 1)
			expected[me]++;
		trap_own(t, k);
		q.head += me + 1;
		if (k % 4 == me)
			q.w[k % 5] = k;
		if (k % 8 == 0)
			pthread_cond_signal(&q.cv);
		q.last = me + 1;
		t->det.nsamples++;
		pthread_mutex_unlock(&q.mu);
		if (k % 3 == 0)
			sched_yield();
	}
	return t;
}

/* A trap handler on another thread: the process-wide set's trap resolved
   through the record (lock__pset_after) and the verdict, the table read. */
static uint64_t resolved, bad_peer, bad_ctx, own_peer;

static void *handler(void *arg)
{
	uint32_t me = NW + (uint32_t)(uintptr_t)arg;
	struct rt_thread *t = new_thread(me, false);
	uint64_t held = 0;

	hc_self = t;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		uint32_t peer = 0, ctx = 0, slot, armer;
		uint64_t addr, lo;
		int v;

		lock__in_block((uint64_t)(uintptr_t)&q, (uint64_t)(uintptr_t)&q + sizeof q);
		lock__mutex_word((uint64_t)(uintptr_t)&q.mu + 8);
		lock__sync_sys(SYS_PC, (uint64_t)(uintptr_t)&q.cv, 8);
		lock__seen();
		if (__atomic_load_n(&pset.busy, __ATOMIC_ACQUIRE) != 1) {
			sched_yield();
			continue;
		}
		slot = GET(pset.slot);
		armer = GET(pset.armer);
		addr = GET(pset.addr);
		lo = GET(pset.lo);
		v = lock__pset_after(t, slot, armer, addr, 8, &peer, &ctx);
		if (v >= 0) {
			__atomic_add_fetch(&resolved, 1, __ATOMIC_RELAXED);
			if (peer >= NW)
				__atomic_add_fetch(&bad_peer, 1, __ATOMIC_RELAXED);
			else if (peer == armer)
				__atomic_add_fetch(&own_peer, 1, __ATOMIC_RELAXED);
			if (ctx <= CTX(peer) || ctx >= CTX(peer + 1))
				__atomic_add_fetch(&bad_ctx, 1, __ATOMIC_RELAXED);
		}
		lock__pset_verdict(t, slot, lo, GET(pset.changed), GET(pset.bytes), addr, held % 7 == 0 ? SYS_PC : 0x401000,
		                   addr, 8, armer);     /* a foreign trap: the slot's pgood written too (§5.65) */
		if (++held % 20 == 0)          /* the set ends: trapped, or its time is up */
			__atomic_store_n(&pset.busy, 0, __ATOMIC_RELEASE);
		sched_yield();
	}
	free(t);
	return NULL;
}

int main(void)
{
	pthread_t wt[NW], ht[NR];
	struct rt_thread *ts[NW];
	uint64_t sets = 0, traps = 0, psets = 0, writes = 0, keeps = 0, captures = 0;

	hc_rt.ready = true;
	hc_rt.sampler_kind = HC_SAMPLER_SOFT;
	hc_rt.npset = 1;
	hc_rt.dcfg.nwatch = 4;
	hc_rt.opt.lock_sets = 1;
	hc_rt.opt.lock_ns = 100;
	hc_rt.opt.lock_cap = 64;
	hc_rt.opt.lock_pset = 1;
	hc_rt.opt.lock_pset_cap = 64;
	hc_rt.opt.lock_pset_after = 1;
	hc_rt.opt.lock_verdict = 1;
	hc_rt.opt.lock_bytes = 1;
	hc_rt.opt.lock_ways = 2;
	hc_rt.opt.lock_keep = 1;
	hc_rt.opt.lock_words = 1;
	lock__enable(true);
	lock__sync_enable(true);
	for (uintptr_t i = 0; i < NR; i++)
		if (pthread_create(&ht[i], NULL, handler, (void *)i) != 0)
			SKIP("pthread_create");
	for (uintptr_t i = 0; i < NW; i++)
		if (pthread_create(&wt[i], NULL, worker, (void *)i) != 0)
			SKIP("pthread_create");
	for (int i = 0; i < NW; i++)
		pthread_join(wt[i], (void **)&ts[i]);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NR; i++)
		pthread_join(ht[i], NULL);

	for (int i = 0; i < NW; i++) {
		CHECK_MSG(ts[i]->cnt.lock_handoffs == expected[i], "worker %d: %llu hand-offs counted, %llu taken", i,
		          (unsigned long long)ts[i]->cnt.lock_handoffs, (unsigned long long)expected[i]);
		sets += ts[i]->cnt.lock_sets + ts[i]->cnt.lock_sets_kept;
		traps += ts[i]->cnt.lock_traps + ts[i]->cnt.lock_traps_system;
		psets += ts[i]->cnt.lock_pset_arms;
		writes += ts[i]->cnt.lock_after_writes;
		keeps += ts[i]->cnt.lock_keep_rearms;
		captures += ts[i]->cnt.lock_ctx_captures;
		free(ts[i]);
	}
	CHECK_MSG(sets > 0 && traps > 0, "open workers' lock sets %llu, traps %llu", (unsigned long long)sets,
	          (unsigned long long)traps);
	CHECK_MSG(keeps > 0, "sets kept armed after a trap: %llu", (unsigned long long)keeps);
	CHECK_MSG(psets > 0 && psets == pset_arms, "gated workers' process-wide sets %llu (the watch saw %llu)",
	          (unsigned long long)psets, (unsigned long long)pset_arms);
	CHECK_MSG(writes > 0, "later releasers that wrote the armed line: %llu", (unsigned long long)writes);
	CHECK_MSG(resolved > 0, "process-wide traps resolved to a later writer: %llu", (unsigned long long)resolved);
	CHECK_MSG(bad_peer == 0, "%llu traps named no worker", (unsigned long long)bad_peer);
	CHECK_MSG(bad_ctx == 0, "%llu traps named a context of another worker than their peer (a torn record)",
	          (unsigned long long)bad_ctx);
	fprintf(stderr, "lock sets %llu, traps %llu, kept %llu, process-wide %llu, after-writes %llu, resolved %llu "
	        "(%llu the armer's own), captures %llu\n", (unsigned long long)sets, (unsigned long long)traps,
	        (unsigned long long)keeps, (unsigned long long)psets, (unsigned long long)writes,
	        (unsigned long long)resolved, (unsigned long long)own_peer, (unsigned long long)captures);
	return hc_test_done("test_lock_mt");
}
