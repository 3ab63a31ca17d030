/* SPDX-License-Identifier: BSD-3-Clause */
/* kbuf.h — a stand-in for the kernel's side of a perf ring buffer, for the
   PMU tests: an mmap'ed struct perf_event_mmap_page followed by a
   power-of-two data area, records appended at data_head byte for byte as
   perf_output_copy writes them (split across the end of the data area when
   they do not fit), and record builders that lay out PERF_RECORD_SAMPLE
   fields in the order perf_output_sample emits them. Written from the
   kernel's documented ABI (include/uapi/linux/perf_event.h), independently
   of lib/pmu/perfbuf.c, which it tests. Not signal context. */
#ifndef HC_TEST_KBUF_H
#define HC_TEST_KBUF_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

struct kbuf {
	uint8_t *base;
	size_t page, len;
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size;
};

/* npages data pages (a power of two); with_size: fill data_offset/size as
   Linux >= 4.1 does. Returns 0 or -1. */
static inline int kbuf_open(struct kbuf *k, unsigned npages, int with_size)
{
	k->page = 4096;
	k->len = (1 + npages) * k->page;
	k->base = mmap(NULL, k->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (k->base == MAP_FAILED)
		return -1;
	k->meta = (struct perf_event_mmap_page *)k->base;
	k->data = k->base + k->page;
	k->size = (uint64_t)npages * k->page;
	if (with_size) {
		k->meta->data_offset = k->page;
		k->meta->data_size = k->size;
	}
	return 0;
}

static inline void kbuf_close(struct kbuf *k)
{
	munmap(k->base, k->len);
}

/* Start both head and tail at position pos (free-running u64 counters). */
static inline void kbuf_seek(struct kbuf *k, uint64_t pos)
{
	k->meta->data_head = pos;
	k->meta->data_tail = pos;
}

/* Append n bytes at data_head, wrapping at the end of the data area. */
static inline void kbuf_put(struct kbuf *k, const void *rec, size_t n)
{
	uint64_t head = k->meta->data_head;
	for (size_t i = 0; i < n; i++)
		k->data[(head + i) % k->size] = ((const uint8_t *)rec)[i];
	__atomic_store_n(&k->meta->data_head, head + n, __ATOMIC_RELEASE);
}

/* A record under construction. */
struct krec {
	uint8_t b[2048];
	size_t n;
};

static inline void krec_begin(struct krec *r, uint32_t type)
{
	memset(r, 0, sizeof *r);
	r->n = sizeof(struct perf_event_header);
	((struct perf_event_header *)r->b)->type = type;
}

static inline void krec_u64(struct krec *r, uint64_t v)
{
	memcpy(r->b + r->n, &v, 8);
	r->n += 8;
}

static inline void krec_u32x2(struct krec *r, uint32_t a, uint32_t b)
{
	memcpy(r->b + r->n, &a, 4);
	memcpy(r->b + r->n + 4, &b, 4);
	r->n += 8;
}

/* PERF_SAMPLE_RAW: u32 size, the bytes, zero padding to 8-byte alignment
   (the size field counts the padding, as perf_prepare_sample sets it). */
static inline void krec_raw(struct krec *r, const void *raw, uint32_t n)
{
	uint32_t padded = (uint32_t)(((4 + n + 7) & ~7u) - 4);
	memcpy(r->b + r->n, &padded, 4);
	memcpy(r->b + r->n + 4, raw, n);
	memset(r->b + r->n + 4 + n, 0, padded - n);
	r->n += 4 + padded;
}

static inline size_t krec_end(struct krec *r)
{
	((struct perf_event_header *)r->b)->size = (uint16_t)r->n;
	return r->n;
}

/* A PEBS sample: IP|TID|TIME|ADDR|CPU|WEIGHT|DATA_SRC, in output order
   (IP, TID, TIME, ADDR, CPU, WEIGHT, DATA_SRC). */
struct kpebs {
	uint64_t ip, addr, time, weight, data_src;
	uint32_t pid, tid, cpu;
};

static inline size_t krec_pebs(struct krec *r, const struct kpebs *s)
{
	krec_begin(r, PERF_RECORD_SAMPLE);
	((struct perf_event_header *)r->b)->misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_EXACT_IP;
	krec_u64(r, s->ip);
	krec_u32x2(r, s->pid, s->tid);
	krec_u64(r, s->time);
	krec_u64(r, s->addr);
	krec_u32x2(r, s->cpu, 0);
	krec_u64(r, s->weight);
	krec_u64(r, s->data_src);
	return krec_end(r);
}

/* IBS op registers as the kernel's raw data: u32 caps, then IBS_OP_CTL,
   IBS_OP_RIP, IBS_OP_DATA, IBS_OP_DATA2, IBS_OP_DATA3, IBS_DC_LINADDR,
   IBS_DC_PHYSADDR[, IBS_BR_TARGET]. Bit positions from the AMD PPR
   (Family 17h/19h, MSRC001_1033..1038). */
struct kibs {
	uint32_t caps;
	uint64_t ctl, rip, data, data2, data3, linaddr, physaddr, brtarget;
	int with_brtarget;
};
#define KIBS_CTL_VAL     (1ull << 18)
#define KIBS_CTL_EN      (1ull << 17)
#define KIBS_D1_RIP_INV  (1ull << 38)
#define KIBS_D3_LD       (1ull << 0)
#define KIBS_D3_ST       (1ull << 1)
#define KIBS_D3_DC_MISS  (1ull << 7)
#define KIBS_D3_LOCKED   (1ull << 15)
#define KIBS_D3_LINVALID (1ull << 17)
#define KIBS_D3_PHYVALID (1ull << 18)
#define KIBS_D3_SWPF     (1ull << 21)
#define KIBS_D3_WIDTH(w) ((uint64_t)(w) << 22)   /* 1 byte .. 5 oword */

static inline uint32_t kibs_image(const struct kibs *s, uint8_t *out)
{
	uint64_t regs[8] = { s->ctl, s->rip, s->data, s->data2, s->data3, s->linaddr,
	                     s->physaddr, s->brtarget };
	uint32_t n = s->with_brtarget ? 8 : 7;
	memcpy(out, &s->caps, 4);
	memcpy(out + 4, regs, n * 8);
	return 4 + n * 8;
}

/* An IBS sample: IP|TID|TIME|CPU|RAW. */
static inline size_t krec_ibs(struct krec *r, uint64_t ip, uint32_t pid, uint32_t tid,
                              uint64_t time, uint32_t cpu, const struct kibs *s)
{
	uint8_t raw[4 + 8 * 8];
	uint32_t n = kibs_image(s, raw);
	krec_begin(r, PERF_RECORD_SAMPLE);
	krec_u64(r, ip);
	krec_u32x2(r, pid, tid);
	krec_u64(r, time);
	krec_u32x2(r, cpu, 0);
	krec_raw(r, raw, n);
	return krec_end(r);
}

/* PERF_RECORD_LOST { header; u64 id; u64 lost; } */
static inline size_t krec_lost(struct krec *r, uint64_t id, uint64_t lost)
{
	krec_begin(r, PERF_RECORD_LOST);
	krec_u64(r, id);
	krec_u64(r, lost);
	return krec_end(r);
}

/* PERF_RECORD_LOST_SAMPLES { header; u64 lost; } (perf_log_lost_samples in
   kernel/events/core.c; written by intel_pmu_drain_pebs_nhm for PEBS
   records that collided), no sample_id (sample_id_all unset). */
static inline size_t krec_lost_samples(struct krec *r, uint64_t lost)
{
	krec_begin(r, PERF_RECORD_LOST_SAMPLES);
	krec_u64(r, lost);
	return krec_end(r);
}

/* PERF_RECORD_THROTTLE / UNTHROTTLE { header; u64 time; u64 id; u64 stream_id; } */
static inline size_t krec_throttle(struct krec *r, int un, uint64_t time)
{
	krec_begin(r, un ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE);
	krec_u64(r, time);
	krec_u64(r, 1);
	krec_u64(r, 1);
	return krec_end(r);
}

static inline void kbuf_rec(struct kbuf *k, struct krec *r)
{
	kbuf_put(k, r->b, r->n);
}

#endif
