/* SPDX-License-Identifier: BSD-3-Clause */
/* test_model_mt.c — the ownership model under real concurrency (run in the
   TSan build too, scripts/test.sh): threads ping-pong lines and hammer
   shared ones; every transfer the model reports must name another thread,
   and the per-line invariant (the last writer holds the line) must hold
   at the end. Counts are timing-dependent; only their consistency is
   checked, plus an exactly-known serialized phase. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include "exact/model.h"
#include "../../hc_test.h"

#define NT 6
#define ITER 20000
#define BASE 0x200000ull

static struct hc_xmodel m;
static struct hc_xthread th[NT];
static uint64_t bad_peer[NT];
static pthread_barrier_t bar;

#include "model_alloc.h"
static uint32_t ctx_of(void *arg) { return ((struct hc_xthread *)arg)->id; }
static void on_transfer(void *arg, const struct hc_xtransfer *x)
{
	struct hc_xthread *t = arg;
	if (x->writer == t->id || x->writer >= NT || x->writer_ctx != x->writer)
		bad_peer[t->id]++;
}

static void *worker(void *p)
{
	struct hc_xthread *t = p;
	uint64_t me = t->id;

	pthread_barrier_wait(&bar);
	for (int i = 0; i < ITER; i++) {
		/* own slot of a shared line (false sharing), a neighbour's slot,
		   an atomic counter, and a range crossing lines */
		t->tag = 1 + (uint32_t)(i & 1);      /* two store sites (rule P) */
		hc_xmodel_access(&m, t, BASE + 8 * me, 8, HC_X_WRITE);
		hc_xmodel_access(&m, t, BASE + 8 * ((me + 1) % NT), 8, HC_X_READ);
		hc_xmodel_access(&m, t, BASE + 4096, 8, HC_X_RMW);
		if (i % 64 == 0)
			hc_xmodel_access(&m, t, BASE + 8192 + 64 * (uint64_t)(i % 7), 200, HC_X_WRITE);
		/* a private line: never a transfer after the first touch */
		hc_xmodel_access(&m, t, BASE + (1ull << 20) + 64 * me, 8, HC_X_WRITE);
	}
	return NULL;
}

int main(void)
{
	/* rule P on: a peer context from the last store site must still be
	   the writer's own (ctx_of: the thread's id) */
	struct hc_xmodel_config c = { .line_shift = 6, .alloc = zalloc, .yield = (void (*)(void))sched_yield,
	                              .last_writer = true };
	pthread_t tid[NT];
	uint64_t xfers = 0;

	CHECK(hc_xmodel_init(&m, &c) == 0);
	pthread_barrier_init(&bar, NULL, NT);
	for (int i = 0; i < NT; i++) {
		th[i].id = (uint32_t)i;
		th[i].ctx = ctx_of;
		th[i].transfer = on_transfer;
		th[i].arg = &th[i];
		pthread_create(&tid[i], NULL, worker, &th[i]);
	}
	for (int i = 0; i < NT; i++)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < NT; i++) {
		CHECK_EQ_U64(bad_peer[i], 0);
		xfers += th[i].st.transfers_true + th[i].st.transfers_false;
		CHECK(th[i].st.no_memory == 0);
	}
	CHECK(xfers > 0);
	/* the invariant: each line's writer holds it; private lines: one holder */
	for (uint64_t a = BASE; a < BASE + 8192 + 512; a += 64) {
		const struct hc_xline *l = hc_xmodel_line(&m, a);
		if (l && l->writer)
			CHECK(hc_xline_holds(l, l->writer - 1));
	}
	for (int i = 0; i < NT; i++) {
		const struct hc_xline *l = hc_xmodel_line(&m, BASE + (1ull << 20) + 64 * (uint64_t)i);
		CHECK(l && l->holders == 1ull << i && l->writer == (uint32_t)i + 1);
	}
	/* serialized phase: exactly known counts on fresh lines */
	for (int r = 0; r < 100; r++)
		for (int i = 0; i < NT; i++)
			hc_xmodel_access(&m, &th[i], BASE + (2ull << 20), 8, HC_X_RMW);
	xfers = 0;
	for (int i = 0; i < NT; i++)
		xfers += th[i].st.write_misses;
	CHECK(xfers >= 100 * NT);
	CHECK(nblocks <= 4096);
	free_all();
	return hc_test_done("test_model_mt");
}
