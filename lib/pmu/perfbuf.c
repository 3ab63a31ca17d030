/* SPDX-License-Identifier: BSD-3-Clause */
/* perfbuf.c — reading a perf_event ring buffer and parsing its sample
   records (perfbuf.h). The kernel appends records at data_head; we consume
   from data_tail and publish the new tail, so with a writable mapping the
   kernel never overwrites what we have not read (it counts PERF_RECORD_LOST
   instead). Records are 8-byte aligned and may be split across the end of
   the data area: such a record is reassembled in the reader's scratch
   buffer. Every length is checked against what is really there before it
   is used. Runs in signal context (the PMU samplers drain in the handler). */
#include <errno.h>
#include <string.h>
#include "pmu/perfbuf.h"

/* PERF_RECORD_LOST: { header; u64 id; u64 lost; } */
#define LOST_OFF 16
/* PERF_RECORD_LOST_SAMPLES: { header; u64 lost; sample_id } (perf_log_lost_samples) */
#define LOST_SAMPLES_OFF 8

int hc_perfbuf_init(struct hc_perfbuf *b, void *base, size_t len, size_t page, uint64_t sample_type)
{
	struct perf_event_mmap_page *m = base;
	uint64_t off, size;

	if (!base || page == 0 || len <= page || (sample_type & ~(uint64_t)HC_PERFBUF_SAMPLE_TYPES))
		return -EINVAL;
	off = m->data_offset;
	size = m->data_size;
	if (size == 0) {              /* kernel < 4.1: data follows the first page */
		off = page;
		size = len - page;
	}
	if (size < 8 || (size & (size - 1)) || off < sizeof *m || off > len || size > len - off)
		return -EINVAL;
	b->meta = m;
	b->data = (uint8_t *)base + off;
	b->size = size;
	b->sample_type = sample_type;
	return 0;
}

/* Copy n bytes at ring position pos (mod size) to dst, across the end. */
static void ring_copy(const struct hc_perfbuf *b, uint64_t pos, void *dst, size_t n)
{
	uint64_t off = pos & (b->size - 1);
	size_t first = b->size - off < n ? (size_t)(b->size - off) : n;

	memcpy(dst, b->data + off, first);
	if (first < n)
		memcpy((uint8_t *)dst + first, b->data, n - first);
}

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

int hc_perf_sample_parse(const uint8_t *rec, size_t size, uint64_t st, struct hc_perf_sample *o)
{
	const uint8_t *p = rec + sizeof(struct perf_event_header), *end = rec + size;

	memset(o, 0, sizeof *o);
	if (size < sizeof(struct perf_event_header))
		return -EINVAL;
#define NEED(n) do { if ((size_t)(end - p) < (size_t)(n)) return -EINVAL; } while (0)
#define U64(field) do { NEED(8); (field) = get64(p); p += 8; } while (0)
	if (st & PERF_SAMPLE_IDENTIFIER)
		U64(o->id);
	if (st & PERF_SAMPLE_IP)
		U64(o->ip);
	if (st & PERF_SAMPLE_TID) {
		NEED(8);
		o->pid = get32(p);
		o->tid = get32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME)
		U64(o->time);
	if (st & PERF_SAMPLE_ADDR)
		U64(o->addr);
	if (st & PERF_SAMPLE_ID)
		U64(o->id);
	if (st & PERF_SAMPLE_STREAM_ID) {
		uint64_t sid;
		U64(sid);
		(void)sid;
	}
	if (st & PERF_SAMPLE_CPU) {
		NEED(8);
		o->cpu = get32(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD)
		U64(o->period);
	if (st & PERF_SAMPLE_RAW) {
		/* u32 size, then size bytes (the kernel pads them so that the
		   whole field ends 8-byte aligned). */
		NEED(4);
		o->raw_size = get32(p);
		p += 4;
		NEED(o->raw_size);
		o->raw = p;
		p += o->raw_size;
	}
	if (st & PERF_SAMPLE_WEIGHT)
		U64(o->weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		U64(o->data_src);
#undef U64
#undef NEED
	return 0;
}

uint64_t hc_perfbuf_drain(struct hc_perfbuf *b, hc_perfbuf_fn fn, void *arg,
                          struct hc_perfbuf_stats *st)
{
	uint64_t head = __atomic_load_n(&b->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = b->meta->data_tail;
	uint64_t delivered = 0;

	/* A head behind the tail or more than a buffer ahead cannot happen
	   with a sane kernel: drop everything rather than read garbage. */
	if (head - tail > b->size) {
		st->corrupt++;
		tail = head;
	}
	while (tail != head) {
		struct perf_event_header h;
		uint64_t avail = head - tail;
		const uint8_t *rec;
		uint64_t off;

		if (avail < sizeof h) {
			st->corrupt++;
			tail = head;
			break;
		}
		ring_copy(b, tail, &h, sizeof h);
		if (h.size < sizeof h || h.size > avail) {
			st->corrupt++;
			tail = head;
			break;
		}
		st->records++;
		off = tail & (b->size - 1);
		if (off + h.size <= b->size) {
			rec = b->data + off;
		} else if (h.size <= sizeof b->scratch) {
			ring_copy(b, tail, b->scratch, h.size);
			rec = b->scratch;
		} else {
			rec = NULL;                  /* wraps and too big to reassemble */
		}
		switch (h.type) {
		case PERF_RECORD_SAMPLE: {
			struct hc_perf_sample s;
			if (!rec || hc_perf_sample_parse(rec, h.size, b->sample_type, &s) < 0) {
				st->truncated++;
				break;
			}
			s.newest = tail + h.size == head;
			st->samples++;
			delivered++;
			fn(&s, arg);
			break;
		}
		case PERF_RECORD_LOST:
			st->lost_records++;
			if (rec && h.size >= LOST_OFF + 8)
				st->lost += get64(rec + LOST_OFF);
			break;
		case PERF_RECORD_LOST_SAMPLES:
			if (rec && h.size >= LOST_SAMPLES_OFF + 8)
				st->lost_samples += get64(rec + LOST_SAMPLES_OFF);
			break;
		case PERF_RECORD_THROTTLE:
			st->throttle++;
			break;
		case PERF_RECORD_UNTHROTTLE:
			st->unthrottle++;
			break;
		default:
			st->other++;
			break;
		}
		tail += h.size;
	}
	__atomic_store_n(&b->meta->data_tail, tail, __ATOMIC_RELEASE);
	return delivered;
}

int hc_ibs_decode(const uint8_t *raw, uint32_t size, struct hc_ibs_op *o)
{
	const uint8_t *r;
	uint64_t ctl, data, d3, w;
	uint32_t caps;

	memset(o, 0, sizeof *o);
	if (!raw || size < HC_IBS_RAW_MIN)
		return HC_IBS_SHORT;
	memcpy(&caps, raw, sizeof caps);     /* the u32 capability word (ibs_caps) */
	r = raw + 4;
	ctl = get64(r + 0 * 8);
	o->rip = get64(r + 1 * 8);
	data = get64(r + 2 * 8);
	d3 = get64(r + 4 * 8);
	/* Valid samples only: the hardware sets IbsOpVal when the tagged op
	   retires (the kernel drops the others, perf_ibs_handle_irq), so an op
	   of a mispredicted path, flushed before retiring, never reaches us.
	   Such ops are counted by the period all the same (cnt_ctl counts
	   dispatched ops): a tag that lands on one is lost, the others are
	   unaffected, so a retired op is still sampled with probability 1/P
	   and the weight stays P (doc/samplers.md, "The unit with IBS"). */
	if (!(ctl & HC_IBS_OPCTL_VAL))
		return HC_IBS_NOT_VALID;
	o->randomized = (caps & HC_IBS_CAPS_RDWROPCNT) && (ctl & HC_IBS_OPCTL_CNT_CTL);
	o->branch = (data & HC_IBS_OPDATA_BRN_RET) != 0;
	o->mispredicted = o->branch && (data & HC_IBS_OPDATA_BRN_MISP);
	o->load = (d3 & HC_IBS_D3_LD) != 0;
	o->store = (d3 & HC_IBS_D3_ST) != 0;
	o->locked = (d3 & HC_IBS_D3_LOCKED) != 0;
	/* op_mem_width exists only with the Zen 4 extensions (the kernel's
	   IBS_CAPS_ZEN4 in the capability word); elsewhere those bits are
	   reserved and may hold anything. */
	w = (d3 >> HC_IBS_D3_WIDTH_SHIFT) & 0xf;
	o->width = (caps & HC_IBS_CAPS_ZEN4) && w >= 1 && w <= 5 ? 1u << (w - 1) : 0;   /* byte..oword */
	if ((!o->load && !o->store) || (d3 & HC_IBS_D3_SW_PF))
		return HC_IBS_NOT_MEMORY;
	/* IbsOpData bit 38 means "RIP invalid" only where the CPU says it
	   implements it (IBS_CAPS_RIPINVALIDCHK, as the kernel checks it);
	   elsewhere it is reserved. */
	if ((caps & HC_IBS_CAPS_RIPINVALIDCHK) && (data & HC_IBS_OPDATA_RIP_INVALID))
		return HC_IBS_NO_RIP;
	if (o->rip == 0)
		return HC_IBS_NO_RIP;
	if (!(d3 & HC_IBS_D3_LIN_VALID))
		return HC_IBS_NO_ADDR;
	o->addr = get64(r + 5 * 8);
	return HC_IBS_MEM;
}
