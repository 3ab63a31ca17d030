/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pipe_mt.c — pipe.c's process-wide table of store sequences under
   concurrency (the runtime calls pipe__sample from every thread's signal
   handler): writer threads feed the synchronizing stores of more sequences
   than the table has slots (learning, and taking slots from each other),
   reader threads feed waits on those sequences (copying slots, and taking
   them to note the wait), and the log reads the table meanwhile. Every
   prediction that reaches the watch (a stub here) must come from a
   consistent copy of one sequence: its writer is the one whose addresses
   the load or store was on, its target one row on. The log's store count is
   exact. Built in the TSan tree too (scripts/test.sh): the slots are
   seqlocks, and TSan checks that no plain access races — it is what
   guards the protocol (a torn copy is rare on its own: a slot_read that
   ignored the sequence word passed these checks in 5 plain runs). */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"
#include "runtime/pipe.h"
#include "hc_test.h"

#define NW     4                  /* writer threads */
#define NPC    6                  /* store instructions per writer: 24 sequences, 16 slots */
#define NR     3                  /* reader threads */
#define ROW    256ull             /* a row of the pipeline (the stride) */
#define NROWS  64ull
#define SPAN   (1ull << 20)       /* each sequence's own address range */
#define BASE   0x7f0000000000ull
#define ROUNDS 40                 /* a writer's passes over its instructions */
#define BURST  12                 /* stores of one instruction in a row */
#define LOADS  4000               /* a reader's waits */

struct rt_runtime hc_rt;

/* what the stubs saw (atomic) */
static uint64_t clock_ns, calls, bad_writer, bad_target, bad_stands, reader_calls, armed;
static char logline[2048];
static uint64_t bad_at, bad_addr, bad_by;   /* the first prediction not one row on */

static uint64_t seq_base(uint32_t w, uint32_t k)
{
	return BASE + (uint64_t)(w * NPC + k) * SPAN;
}

static uint64_t seq_pc(uint32_t w, uint32_t k)
{
	return 0x401000ull + (uint64_t)(w * NPC + k) * 16;
}

/* The writer whose sequence holds addr (its offset in a row is 8 * w). */
static uint32_t owner(uint64_t addr)
{
	return (uint32_t)((addr - BASE) / SPAN / NPC);
}

int watch__pset_pipe(struct rt_thread *t, uint64_t addr, uint32_t writer, uint32_t stands)
{
	uint64_t n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	uint64_t at = t->det.pc;       /* the test passes the sample's address here */

	if (writer != owner(at))
		__atomic_add_fetch(&bad_writer, 1, __ATOMIC_RELAXED);
	if (addr != at + ROW && __atomic_add_fetch(&bad_target, 1, __ATOMIC_RELAXED) == 1) {
		bad_at = at;
		bad_addr = addr;
		bad_by = t->id.index;
	}
	if (stands < 1 || stands > NROWS + 1)
		__atomic_add_fetch(&bad_stands, 1, __ATOMIC_RELAXED);
	if (writer != t->id.index)
		__atomic_add_fetch(&reader_calls, 1, __ATOMIC_RELAXED);
	if (n % 7 == 0)
		return -EINVAL;
	if (n % 3 == 0)
		return -EBUSY;
	__atomic_add_fetch(&armed, 1, __ATOMIC_RELAXED);
	return 0;
}

/* (the runtime's log is its own process-wide writer; here a buffer under a mutex) */
static pthread_mutex_t logmu = PTHREAD_MUTEX_INITIALIZER;

void process__log(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&logmu);
	va_start(ap, fmt);
	vsnprintf(logline, sizeof logline, fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&logmu);
}

static struct rt_thread *new_thread(uint32_t index)
{
	struct rt_thread *t = calloc(1, sizeof *t);

	if (!t) {
		perror("calloc");
		exit(99);
	}
	t->id.index = index;
	return t;
}

static void *writer(void *arg)
{
	uint32_t w = (uint32_t)(uintptr_t)arg;
	struct rt_thread *t = new_thread(w);
	struct hc_sample s;
	uint64_t row = 0;

	for (uint32_t r = 0; r < ROUNDS; r++)
		for (uint32_t k = 0; k < NPC; k++)
			for (uint32_t b = 0; b < BURST; b++, row++) {
				memset(&s, 0, sizeof s);
				s.addr = seq_base(w, k) + (row % NROWS) * ROW + 8 * w;
				s.is_store = true;
				s.time = __atomic_add_fetch(&clock_ns, 1, __ATOMIC_RELAXED);
				t->det.sync = true;
				t->det.pc = s.addr;
				pipe__sample(t, seq_pc(w, k), &s);
			}
	free(t);
	return NULL;
}

static void *reader(void *arg)
{
	uint32_t me = NW + (uint32_t)(uintptr_t)arg;
	struct rt_thread *t = new_thread(me);
	struct hc_sample s;
	uint64_t x = 0x9e3779b97f4a7c15ull * (me + 1);

	for (uint32_t i = 0; i < LOADS; i++) {
		uint32_t w, k;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w = (uint32_t)(x % NW);
		k = (uint32_t)((x >> 8) % NPC);
		memset(&s, 0, sizeof s);
		s.addr = seq_base(w, k) + ((x >> 16) % NROWS) * ROW + 8 * w;
		s.time = __atomic_add_fetch(&clock_ns, 1, __ATOMIC_RELAXED);
		t->watch.line_heap = true;
		t->det.spin.run = 2;
		t->det.spin.line = s.addr & ~(uint64_t)(HC_LINE - 1);
		t->det.pc = s.addr;
		pipe__sample(t, 0x402000ull + me, &s);
		if (i % 500 == 0)
			pipe__log();          /* the table read while it changes */
	}
	free(t);
	return NULL;
}

int main(void)
{
	pthread_t wt[NW], rt[NR];
	unsigned long long stores = 0, lost = 0, from_load = 0;
	const char *p;

	hc_rt.opt.pipe = 3;
	hc_rt.npset = 1;
	hc_rt.sampler_kind = HC_SAMPLER_SOFT;
	for (uintptr_t i = 0; i < NW; i++)
		if (pthread_create(&wt[i], NULL, writer, (void *)i) != 0)
			SKIP("pthread_create");
	for (uintptr_t i = 0; i < NR; i++)
		if (pthread_create(&rt[i], NULL, reader, (void *)i) != 0)
			SKIP("pthread_create");
	for (int i = 0; i < NW; i++)
		pthread_join(wt[i], NULL);
	for (int i = 0; i < NR; i++)
		pthread_join(rt[i], NULL);

	pipe__log();
	CHECK_MSG(sscanf(logline, "pipeline sets (HPCRUN_COMM_PIPE): %llu synchronizing stores seen (%llu lost races)",
	                 &stores, &lost) == 2, "log: %s", logline);
	CHECK_EQ_U64(stores, (uint64_t)NW * ROUNDS * NPC * BURST);
	CHECK(lost < stores);
	p = strstr(logline, "from a reader's load ");
	CHECK(p && sscanf(p, "from a reader's load %llu", &from_load) == 1);
	CHECK_MSG(calls > 0, "predictions reached the watch: %llu (%llu from readers' loads)",
	          (unsigned long long)calls, (unsigned long long)reader_calls);
	CHECK_MSG(bad_writer == 0, "%llu predictions named another sequence's writer", (unsigned long long)bad_writer);
	CHECK_MSG(bad_target == 0, "%llu predictions not one row on (the first: T%llu's sample at %#llx, target %+lld rows)",
	          (unsigned long long)bad_target, (unsigned long long)bad_by, (unsigned long long)bad_at,
	          (long long)(bad_addr - bad_at) / (long long)ROW);
	CHECK_MSG(bad_stands == 0, "%llu predictions standing for no row or too many", (unsigned long long)bad_stands);
	CHECK(strstr(logline, "sets armed ") != NULL);
	fprintf(stderr, "%llu stores (%llu lost races), %llu predictions (%llu from %llu readers' loads), %llu armed\n",
	        stores, lost, (unsigned long long)calls, (unsigned long long)reader_calls, from_load,
	        (unsigned long long)armed);
	return hc_test_done("test_pipe_mt");
}
