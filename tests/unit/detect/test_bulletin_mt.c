/* SPDX-License-Identifier: BSD-3-Clause */
/* test_bulletin_mt.c — seqlock stress test of the BulletinBoard: publisher
   threads hammer a few slots with entries whose fields are all derived from
   (publisher, counter), while reader threads take snapshots (read and
   lookup) for about half a second. Any snapshot mixing two publications
   fails the derivation check: a torn entry must never be accepted. Also run
   in a --enable-tsan build, where it must report no race. */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "detect/detect.h"
#include "../../hc_test.h"

#define NPUB 3
#define NREAD 2
#define NSLOTS 3
#define NLINES 5          /* more lines than slots: collisions too */
#define RUN_NS 500000000ull
#define BASE_LINE 0x7f00000400c0ull

static struct hc_bulletin bb;
static int stop;

struct counts {
	uint64_t ok, busy, exist;     /* publishers */
	uint64_t good, miss, torn;    /* readers */
};

static struct counts pub_counts[NPUB], read_counts[NREAD];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* The one entry publisher t writes at its k-th publication. The time
   carries (k, t); every other field follows from it. Times grow with k, and
   thread 0's collisions outlive the expiry so all three policy outcomes occur. */
static void make_entry(uint32_t t, uint64_t k, struct hc_bb_entry *e)
{
	uint64_t h = mix(k * NPUB + t);

	memset(e, 0, sizeof *e);   /* the fields this test does not vary */
	e->line = BASE_LINE + 64 * (k % NLINES);
	e->addr = e->line + (h & 63);
	e->time = (k + 1) << 8 | t;
	e->len = (uint32_t)(h >> 8) & 0x3fffffffu;   /* bits 31 and 30 flag a load and an update */
	e->thread = t;
	e->cpu = (int32_t)(h >> 40);
	e->ctx = (uint32_t)(h >> 20);
	e->is_load = false;   /* stores: the policy outcomes below are the stores' */
}

static bool entry_consistent(const struct hc_bb_entry *e)
{
	struct hc_bb_entry want;
	uint32_t t = e->time & 0xff;

	if (t >= NPUB || (e->time >> 8) == 0)
		return false;
	make_entry(t, (e->time >> 8) - 1, &want);
	return e->line == want.line && e->addr == want.addr && e->len == want.len &&
	       e->thread == want.thread && e->cpu == want.cpu && e->ctx == want.ctx &&
	       e->is_load == want.is_load;
}

static void *publisher(void *arg)
{
	uint32_t t = (uint32_t)(uintptr_t)arg;
	struct counts *c = &pub_counts[t];
	struct hc_bb_entry e;
	uint64_t k;

	for (k = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); k++) {
		make_entry(t, k, &e);
		switch (hc_bulletin_publish(&bb, &e)) {
		case 0: c->ok++; break;
		case -EBUSY: c->busy++; break;
		case -EEXIST: c->exist++; break;
		default: c->torn++; break;
		}
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct counts *c = &read_counts[(uintptr_t)arg];
	struct hc_bb_entry e;
	uint64_t n;

	for (n = 0; !__atomic_load_n(&stop, __ATOMIC_RELAXED); n++) {
		uint32_t slot = (uint32_t)(n / 2 % NSLOTS);
		uint64_t line = BASE_LINE + 64 * (n / 2 % NLINES);
		bool got, where;

		if (n & 1) {
			got = hc_bulletin_read(&bb, slot, &e);
			where = got && hc_bulletin_slot_of(&bb, e.line) == slot;
		} else {
			got = hc_bulletin_lookup(&bb, line, &e);
			where = got && e.line == line;
		}
		if (!got)
			c->miss++;
		else if (where && entry_consistent(&e))
			c->good++;
		else
			c->torn++;
	}
	return NULL;
}

int main(void)
{
	static unsigned char mem[NSLOTS * 64] __attribute__((aligned(64)));
	pthread_t pub[NPUB], rd[NREAD];
	struct counts pt = { 0 }, rt = { 0 };
	struct hc_bb_entry e;
	uint64_t start;
	uintptr_t i;
	uint32_t s;

	/* a short expiry in time units of make_entry: k advances by 1 per publish */
	CHECK_EQ_U64(hc_bulletin_init(&bb, mem, NSLOTS, 64 << 8), 0);
	for (i = 0; i < NPUB; i++)
		CHECK(pthread_create(&pub[i], NULL, publisher, (void *)i) == 0);
	for (i = 0; i < NREAD; i++)
		CHECK(pthread_create(&rd[i], NULL, reader, (void *)i) == 0);
	start = now_ns();
	while (now_ns() - start < RUN_NS) {
		struct timespec ts = { 0, 10000000 };

		nanosleep(&ts, NULL);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < NPUB; i++)
		pthread_join(pub[i], NULL);
	for (i = 0; i < NREAD; i++)
		pthread_join(rd[i], NULL);

	for (i = 0; i < NPUB; i++) {
		pt.ok += pub_counts[i].ok;
		pt.busy += pub_counts[i].busy;
		pt.exist += pub_counts[i].exist;
		pt.torn += pub_counts[i].torn;
	}
	for (i = 0; i < NREAD; i++) {
		rt.good += read_counts[i].good;
		rt.miss += read_counts[i].miss;
		rt.torn += read_counts[i].torn;
	}
	fprintf(stderr, "publishes: %" PRIu64 " written, %" PRIu64 " busy, %" PRIu64
	        " kept; snapshots: %" PRIu64 " consistent, %" PRIu64 " refused, %" PRIu64
	        " torn\n", pt.ok, pt.busy, pt.exist, rt.good, rt.miss, rt.torn);
	CHECK_EQ_U64(rt.torn, 0);
	CHECK_EQ_U64(pt.torn, 0);    /* no return code outside the contract */
	CHECK(pt.ok > 0);
	CHECK(rt.good > 0);
	/* quiescent: every slot that was written holds a consistent entry */
	for (s = 0; s < NSLOTS; s++) {
		CHECK(hc_bulletin_read(&bb, s, &e));
		CHECK(entry_consistent(&e));
		CHECK_EQ_U64(hc_bulletin_slot_of(&bb, e.line), s);
	}
	return hc_test_done("test_bulletin_mt");
}
