/* SPDX-License-Identifier: BSD-3-Clause */
/* test_perfbuf.c — the ring-buffer reader the PMU samplers' signal handler
   uses (lib/pmu/perfbuf.c), fed the byte layout the kernel writes
   (kbuf.h): several records per wake-up, records split across the end of
   the data area at every 8-byte offset, LOST / THROTTLE / UNTHROTTLE and
   unknown records, truncated samples, impossible headers, records too big
   to reassemble, positions near 2^64, and incremental drains. */
#include <errno.h>
#include "hc_test.h"
#include "kbuf.h"
#include "pmu/perfbuf.h"

#define MAXS 256
static struct hc_perf_sample got[MAXS];
static uint8_t got_raw[MAXS][128];
static int ngot;

static void collect(const struct hc_perf_sample *s, void *arg)
{
	(void)arg;
	if (ngot >= MAXS)
		return;
	got[ngot] = *s;
	if (s->raw && s->raw_size <= sizeof got_raw[0]) {
		memcpy(got_raw[ngot], s->raw, s->raw_size);
		got[ngot].raw = got_raw[ngot];
	}
	ngot++;
}

static struct kpebs pebs(int i)
{
	struct kpebs s = {
		.ip = 0x401000 + 16u * (unsigned)i, .addr = 0x7f0000001000ull + 64u * (unsigned)i,
		.time = 1000000ull + (unsigned)i, .weight = 30u + (unsigned)i,
		.data_src = 0x100000u + (unsigned)i, .pid = 4242, .tid = 4243 + (unsigned)i,
		.cpu = (unsigned)i % 3,
	};
	return s;
}

static void check_pebs(const struct hc_perf_sample *g, int i)
{
	struct kpebs e = pebs(i);
	CHECK_EQ_U64(g->ip, e.ip);
	CHECK_EQ_U64(g->addr, e.addr);
	CHECK_EQ_U64(g->time, e.time);
	CHECK_EQ_U64(g->weight, e.weight);
	CHECK_EQ_U64(g->data_src, e.data_src);
	CHECK_EQ_U64(g->pid, e.pid);
	CHECK_EQ_U64(g->tid, e.tid);
	CHECK_EQ_U64(g->cpu, e.cpu);
	CHECK(g->raw == NULL && g->raw_size == 0);
}

static void test_init(void)
{
	struct kbuf k;
	static struct hc_perfbuf b;

	CHECK(kbuf_open(&k, 2, 1) == 0);
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE) == 0);
	CHECK(b.data == k.data && b.size == k.size);
	/* a sample_type the parser does not know the layout of */
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN) == -EINVAL);
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, PERF_SAMPLE_REGS_USER) == -EINVAL);
	/* impossible layouts */
	CHECK(hc_perfbuf_init(&b, k.base, k.page, k.page, HC_PEBS_SAMPLE_TYPE) == -EINVAL);
	k.meta->data_size = 3 * 4096;                  /* not a power of two */
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE) == -EINVAL);
	k.meta->data_size = 4 * 4096;                  /* larger than the mapping */
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE) == -EINVAL);
	kbuf_close(&k);
	/* old kernels leave data_offset/data_size 0: data follows the page */
	CHECK(kbuf_open(&k, 4, 0) == 0);
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_IBS_SAMPLE_TYPE) == 0);
	CHECK(b.data == k.base + k.page && b.size == 4 * 4096u);
	kbuf_close(&k);
}

/* Several records per wake-up, of every kind, in one drain. */
static void test_mixed(void)
{
	struct kbuf k;
	static struct hc_perfbuf b;
	struct hc_perfbuf_stats st = { 0 };
	struct krec r;
	struct kpebs s;

	CHECK(kbuf_open(&k, 1, 1) == 0);
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE) == 0);
	s = pebs(0); krec_pebs(&r, &s); kbuf_rec(&k, &r);
	krec_throttle(&r, 0, 5); kbuf_rec(&k, &r);
	s = pebs(1); krec_pebs(&r, &s); kbuf_rec(&k, &r);
	krec_lost(&r, 1, 7); kbuf_rec(&k, &r);
	krec_throttle(&r, 1, 6); kbuf_rec(&k, &r);
	krec_begin(&r, PERF_RECORD_COMM); krec_u32x2(&r, 1, 2); krec_u64(&r, 0x6f6f66); krec_end(&r);
	kbuf_rec(&k, &r);
	s = pebs(2); krec_pebs(&r, &s); kbuf_rec(&k, &r);
	krec_lost(&r, 1, 5); kbuf_rec(&k, &r);
	krec_lost_samples(&r, 4); kbuf_rec(&k, &r);   /* PEBS collisions: lost, not "other" */

	ngot = 0;
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 3);
	CHECK(ngot == 3);
	for (int i = 0; i < ngot && i < 3; i++)
		check_pebs(&got[i], i);
	CHECK_EQ_U64(st.lost_samples, 4);
	CHECK_EQ_U64(st.records, 9);
	CHECK_EQ_U64(st.samples, 3);
	CHECK_EQ_U64(st.lost, 12);
	CHECK_EQ_U64(st.lost_records, 2);
	CHECK_EQ_U64(st.throttle, 1);
	CHECK_EQ_U64(st.unthrottle, 1);
	CHECK_EQ_U64(st.other, 1);
	CHECK_EQ_U64(st.truncated + st.corrupt, 0);
	CHECK_EQ_U64(k.meta->data_tail, k.meta->data_head);
	/* nothing new: nothing delivered, nothing counted */
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 0);
	CHECK_EQ_U64(st.records, 9);
	/* incremental: the reader continues at its tail */
	s = pebs(3); krec_pebs(&r, &s); kbuf_rec(&k, &r);
	ngot = 0;
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 1);
	if (ngot == 1)
		check_pebs(&got[0], 3);
	kbuf_close(&k);
}

/* A sample split across the end of the data area at every 8-byte offset,
   followed by one that starts at offset 0; also with positions near 2^64. */
static void test_wrap(void)
{
	static const uint64_t bases[] = { 0, 1ull << 40, UINT64_MAX - 4095 };
	struct kbuf k;
	static struct hc_perfbuf b;
	struct krec r;
	struct kpebs s0 = pebs(4), s1 = pebs(5);
	size_t n = krec_pebs(&r, &s0);

	CHECK(n == 64);
	CHECK(kbuf_open(&k, 1, 1) == 0);
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE) == 0);
	for (size_t bi = 0; bi < sizeof bases / sizeof bases[0]; bi++)
		for (size_t split = 0; split <= n; split += 8) {
			struct hc_perfbuf_stats st = { 0 };
			/* start so that `split` bytes of the first record fit before the end */
			uint64_t pos = bases[bi] + k.size * 3 - split;
			kbuf_seek(&k, pos);
			memset(k.data, 0xa5, k.size);  /* stale bytes must not leak in */
			krec_pebs(&r, &s0); kbuf_rec(&k, &r);
			krec_pebs(&r, &s1); kbuf_rec(&k, &r);
			ngot = 0;
			CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 2);
			CHECK_MSG(ngot == 2, "base %zu split %zu", bi, split);
			if (ngot == 2) {
				check_pebs(&got[0], 4);
				check_pebs(&got[1], 5);
			}
			CHECK_EQ_U64(st.truncated + st.corrupt, 0);
			CHECK_EQ_U64(k.meta->data_tail, pos + 2 * n);
		}
	kbuf_close(&k);
}

/* IBS records carry PERF_SAMPLE_RAW; the raw bytes may straddle the end. */
static void test_raw_wrap(void)
{
	struct kbuf k;
	static struct hc_perfbuf b;
	struct krec r;
	struct kibs ibs = { .caps = 0x3ff, .ctl = KIBS_CTL_VAL | KIBS_CTL_EN, .rip = 0x401234,
	                    .data3 = KIBS_D3_ST | KIBS_D3_LINVALID, .linaddr = 0x7f00000040c8ull,
	                    .physaddr = 0x12345000, .brtarget = 0x401300 };
	uint8_t img[128];

	CHECK(kbuf_open(&k, 1, 1) == 0);
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_IBS_SAMPLE_TYPE) == 0);
	for (int br = 0; br < 2; br++) {
		uint32_t imgn;
		size_t n;
		ibs.with_brtarget = br;
		imgn = kibs_image(&ibs, img);
		n = krec_ibs(&r, 0x401234, 10, 11, 99, 1, &ibs);
		CHECK(n % 8 == 0);
		for (size_t split = 8; split < n; split += 8) {
			struct hc_perfbuf_stats st = { 0 };
			kbuf_seek(&k, k.size - split);
			kbuf_rec(&k, &r);
			ngot = 0;
			CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 1);
			if (ngot != 1)
				continue;
			CHECK_EQ_U64(got[0].ip, 0x401234);
			CHECK_EQ_U64(got[0].tid, 11);
			CHECK_EQ_U64(got[0].time, 99);
			CHECK_EQ_U64(got[0].cpu, 1);
			/* the size field counts the kernel's padding */
			CHECK_EQ_U64(got[0].raw_size, ((4 + imgn + 7) & ~7u) - 4);
			CHECK(got[0].raw_size >= imgn && memcmp(got[0].raw, img, imgn) == 0);
		}
	}
	kbuf_close(&k);
}

/* Samples shorter than their layout, bad raw sizes, impossible headers. */
static void test_damage(void)
{
	struct kbuf k;
	static struct hc_perfbuf b;
	struct hc_perfbuf_stats st = { 0 };
	struct krec r;
	struct kpebs s = pebs(6);
	struct perf_event_header *h = (struct perf_event_header *)r.b;

	CHECK(kbuf_open(&k, 1, 1) == 0);
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE) == 0);
	/* truncated: the record ends after ADDR (the kernel's header says 40) */
	krec_pebs(&r, &s);
	h->size = 40;
	r.n = 40;
	kbuf_rec(&k, &r);
	/* a good one right after it is still read */
	krec_pebs(&r, &s); kbuf_rec(&k, &r);
	ngot = 0;
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 1);
	CHECK_EQ_U64(st.truncated, 1);
	CHECK(ngot == 1);
	if (ngot == 1)
		check_pebs(&got[0], 6);

	/* a raw size larger than the record */
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_IBS_SAMPLE_TYPE) == 0);
	{
		struct kibs ibs = { .ctl = KIBS_CTL_VAL };
		uint32_t big = 4000;
		krec_ibs(&r, 1, 2, 3, 4, 5, &ibs);
		memcpy(r.b + 8 + 8 + 8 + 8 + 8, &big, 4);   /* header, ip, tid, time, cpu */
		kbuf_rec(&k, &r);
	}
	memset(&st, 0, sizeof st);
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 0);
	CHECK_EQ_U64(st.truncated, 1);
	CHECK_EQ_U64(k.meta->data_tail, k.meta->data_head);

	/* a record too big to reassemble, split across the end: skipped whole */
	CHECK(hc_perfbuf_init(&b, k.base, k.len, k.page, HC_PEBS_SAMPLE_TYPE) == 0);
	kbuf_seek(&k, k.size - 512);
	krec_begin(&r, PERF_RECORD_SAMPLE);
	while (r.n < 1024)
		krec_u64(&r, 0x1111);
	krec_end(&r);
	kbuf_rec(&k, &r);
	krec_pebs(&r, &s); kbuf_rec(&k, &r);
	memset(&st, 0, sizeof st);
	ngot = 0;
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 1);
	CHECK_EQ_U64(st.truncated, 1);
	if (ngot == 1)
		check_pebs(&got[0], 6);

	/* header size 0: the rest is skipped (never an endless loop) */
	krec_begin(&r, PERF_RECORD_SAMPLE);
	r.n = 8;
	kbuf_put(&k, r.b, 8);                          /* size field stays 0 */
	krec_pebs(&r, &s); kbuf_rec(&k, &r);
	memset(&st, 0, sizeof st);
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 0);
	CHECK_EQ_U64(st.corrupt, 1);
	CHECK_EQ_U64(k.meta->data_tail, k.meta->data_head);
	/* and the reader recovers for what comes next */
	krec_pebs(&r, &s); kbuf_rec(&k, &r);
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 1);

	/* a header claiming more than data_head has */
	krec_pebs(&r, &s);
	h->size = 200;
	kbuf_put(&k, r.b, 64);
	memset(&st, 0, sizeof st);
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 0);
	CHECK_EQ_U64(st.corrupt, 1);

	/* head more than a buffer ahead of the tail */
	k.meta->data_head = k.meta->data_tail + k.size + 8;
	memset(&st, 0, sizeof st);
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 0);
	CHECK_EQ_U64(st.corrupt, 1);
	CHECK_EQ_U64(k.meta->data_tail, k.meta->data_head);
	/* head behind the tail */
	k.meta->data_head = k.meta->data_tail - 64;
	memset(&st, 0, sizeof st);
	CHECK_EQ_U64(hc_perfbuf_drain(&b, collect, NULL, &st), 0);
	CHECK_EQ_U64(st.corrupt, 1);
	kbuf_close(&k);
}

/* The parser on its own: every supported field, in the kernel's order. */
static void test_parse_all_fields(void)
{
	uint64_t st = HC_PERFBUF_SAMPLE_TYPES;
	struct krec r;
	struct hc_perf_sample s;
	uint8_t raw[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

	krec_begin(&r, PERF_RECORD_SAMPLE);
	krec_u64(&r, 77);                 /* IDENTIFIER */
	krec_u64(&r, 0x400000);           /* IP */
	krec_u32x2(&r, 1, 2);             /* TID */
	krec_u64(&r, 3);                  /* TIME */
	krec_u64(&r, 0x5000);             /* ADDR */
	krec_u64(&r, 77);                 /* ID */
	krec_u64(&r, 78);                 /* STREAM_ID */
	krec_u32x2(&r, 9, 0);             /* CPU */
	krec_u64(&r, 500000);             /* PERIOD */
	krec_raw(&r, raw, sizeof raw);    /* RAW */
	krec_u64(&r, 123);                /* WEIGHT */
	krec_u64(&r, 0x42);               /* DATA_SRC */
	krec_end(&r);
	CHECK(hc_perf_sample_parse(r.b, r.n, st, &s) == 0);
	CHECK_EQ_U64(s.id, 77);
	CHECK_EQ_U64(s.ip, 0x400000);
	CHECK_EQ_U64(s.pid, 1);
	CHECK_EQ_U64(s.tid, 2);
	CHECK_EQ_U64(s.time, 3);
	CHECK_EQ_U64(s.addr, 0x5000);
	CHECK_EQ_U64(s.cpu, 9);
	CHECK_EQ_U64(s.period, 500000);
	CHECK_EQ_U64(s.raw_size, 12);
	CHECK(s.raw && memcmp(s.raw, raw, 12) == 0);
	CHECK_EQ_U64(s.weight, 123);
	CHECK_EQ_U64(s.data_src, 0x42);
	/* every shorter length fails cleanly */
	for (size_t n = 0; n < r.n; n += 4)
		CHECK_MSG(hc_perf_sample_parse(r.b, n, st, &s) == -EINVAL, "length %zu", n);
}

int main(void)
{
	test_init();
	test_parse_all_fields();
	test_mixed();
	test_wrap();
	test_raw_wrap();
	test_damage();
	return hc_test_done("test_perfbuf");
}
