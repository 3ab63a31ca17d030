/* SPDX-License-Identifier: BSD-3-Clause */
/* perfbuf.h — the PMU samplers' pure half: reading a perf_event ring buffer
   (struct perf_event_mmap_page + power-of-two data area, exactly as the
   kernel writes it), parsing PERF_RECORD_SAMPLE for the sample_type bits we
   request, decoding raw AMD IBS op registers, and turning one hardware
   sample into the struct hc_sample the detection core takes. No system
   calls, no allocation, no clocks: the signal handler (pmu.c) and the unit
   tests (tests/unit/pmu) run the same code on the same bytes. Everything
   here is async-signal-safe. */
#ifndef HC_RT_PERFBUF_H
#define HC_RT_PERFBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>
#include "detect/detect.h"

/* The sample_type bits the parser understands (in the kernel's output
   order); hc_perfbuf_init refuses any other bit. */
#define HC_PERFBUF_SAMPLE_TYPES \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)

/* What the PMU samplers ask for. */
#define HC_PEBS_SAMPLE_TYPE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)
#define HC_IBS_SAMPLE_TYPE \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
/* The runtime also asks for PERF_SAMPLE_PERIOD: the period the kernel
   really used for each record (IBS rounds it; a kernel may raise it),
   reported as the period in effect (doc/samplers.md). */
#define HC_PMU_SAMPLE_EXTRA PERF_SAMPLE_PERIOD

/* Largest record reassembled when it wraps around the end of the data area
   (a PEBS sample is 64 bytes, an IBS one about 100). */
#define HC_PERFBUF_SCRATCH 512

/* One parsed PERF_RECORD_SAMPLE; fields not in sample_type are 0. raw
   points into the ring buffer or the reader's scratch copy, valid only
   during the callback. */
struct hc_perf_sample {
	uint64_t ip, addr, time, period, weight, data_src, id;
	uint32_t pid, tid, cpu;
	uint32_t raw_size;
	const uint8_t *raw;
	bool newest;           /* set by hc_perfbuf_drain: the last record before data_head */
};

/* Counted by hc_perfbuf_drain (added to, never reset). */
struct hc_perfbuf_stats {
	uint64_t records;     /* every record consumed */
	uint64_t samples;     /* PERF_RECORD_SAMPLE delivered to the callback */
	uint64_t lost;        /* samples the kernel dropped (sum of PERF_RECORD_LOST.lost) */
	uint64_t lost_records;
	uint64_t lost_samples; /* samples the PMU driver dropped (sum of PERF_RECORD_LOST_SAMPLES.lost:
	                          PEBS record collisions, intel_pmu_drain_pebs_nhm) */
	uint64_t throttle, unthrottle;
	uint64_t other;       /* records of other types, skipped */
	uint64_t truncated;   /* samples shorter than their sample_type says, or too big to reassemble */
	uint64_t corrupt;     /* impossible header (size < 8, past data_head): rest of the buffer skipped */
};

/* A mapped ring buffer: base = the mmap of 1 + 2^n pages. */
struct hc_perfbuf {
	struct perf_event_mmap_page *meta;
	uint8_t *data;
	uint64_t size;           /* data area bytes, a power of two */
	uint64_t sample_type;
	uint8_t scratch[HC_PERFBUF_SCRATCH] __attribute__((aligned(8)));
};

typedef void (*hc_perfbuf_fn)(const struct hc_perf_sample *s, void *arg);

/* Set b up over a mapping of len bytes (page + data). The data area comes
   from meta->data_offset/data_size when the kernel filled them (Linux >= 4.1),
   else it is [page, len). 0, or -EINVAL for an impossible layout or a
   sample_type bit outside HC_PERFBUF_SAMPLE_TYPES. */
int hc_perfbuf_init(struct hc_perfbuf *b, void *base, size_t len, size_t page, uint64_t sample_type);

/* Consume every record between data_tail and data_head: samples go to fn,
   the rest is counted in st; data_tail is advanced (release) so the kernel
   may reuse the space. Returns the number of samples delivered. */
uint64_t hc_perfbuf_drain(struct hc_perfbuf *b, hc_perfbuf_fn fn, void *arg,
                          struct hc_perfbuf_stats *st);

/* Parse one PERF_RECORD_SAMPLE record (header included, size bytes,
   contiguous). 0, or -EINVAL when the record is shorter than sample_type
   needs. */
int hc_perf_sample_parse(const uint8_t *rec, size_t size, uint64_t sample_type,
                         struct hc_perf_sample *out);

/* ---- AMD IBS op samples (PERF_SAMPLE_RAW of the ibs_op PMU) ----
   The raw bytes are a u32 capability word followed by the op MSRs, in
   order: IBS_OP_CTL, IBS_OP_RIP, IBS_OP_DATA, IBS_OP_DATA2, IBS_OP_DATA3,
   IBS_DC_LINADDR, IBS_DC_PHYSADDR (then optional ones we do not read). */
#define HC_IBS_RAW_MIN   (4 + 7 * 8)
#define HC_IBS_OPCTL_VAL      (1ull << 18)   /* IBS_OP_CTL: op sample valid */
#define HC_IBS_OPCTL_CNT_CTL  (1ull << 19)   /* IBS_OP_CTL: count dispatched ops, not cycles */
#define HC_IBS_OPCTL_CUR_RAND (0x7full << 32) /* IBS_OP_CTL: IbsOpCurCnt's low 7 bits, which the
                                                hardware randomizes in op-counting mode */
#define HC_IBS_OPDATA_BRN_MISP    (1ull << 36) /* IBS_OP_DATA: a mispredicted branch op */
#define HC_IBS_OPDATA_BRN_RET     (1ull << 37) /* IBS_OP_DATA: a retired branch op */
#define HC_IBS_OPDATA_RIP_INVALID (1ull << 38)
#define HC_IBS_D3_LD          (1ull << 0)
#define HC_IBS_D3_ST          (1ull << 1)
#define HC_IBS_D3_LOCKED      (1ull << 15)
#define HC_IBS_D3_LIN_VALID   (1ull << 17)
#define HC_IBS_D3_SW_PF       (1ull << 21)
#define HC_IBS_D3_WIDTH_SHIFT 22            /* op_mem_width, 4 bits, Zen 4 and later */
/* The capability word (the kernel's ibs_caps, CPUID Fn8000_001B EAX with
   bit 0 = IBS present; arch/x86/include/asm/perf_event.h IBS_CAPS_*). */
#define HC_IBS_CAPS_RDWROPCNT (1u << 3)      /* IbsOpCurCnt readable/writable: the kernel
                                                keeps the hardware's random low bits */
#define HC_IBS_CAPS_RIPINVALIDCHK (1u << 7)  /* IbsOpData's RIP-invalid bit is implemented */
#define HC_IBS_CAPS_ZEN4      (1u << 11)     /* capability word: the Zen 4 fields are valid */

enum hc_ibs_status {
	HC_IBS_MEM = 0,        /* a load or store with a valid linear address */
	HC_IBS_SHORT,          /* raw data too short to be an op sample */
	HC_IBS_NOT_VALID,      /* IBS_OP_CTL says the sample is not valid */
	HC_IBS_NOT_MEMORY,     /* neither load nor store (or a software prefetch) */
	HC_IBS_NO_ADDR,        /* memory op without a valid linear address */
	HC_IBS_NO_RIP,         /* the op's RIP is invalid */
};

struct hc_ibs_op {
	uint64_t rip, addr;
	bool     load, store, locked;
	uint32_t width;        /* bytes from op_mem_width, 0 = not reported */
	bool     branch, mispredicted;  /* IbsOpData: a (fused) branch op; it was mispredicted */
	/* The sampling period had its low bits randomized (op-counting mode on
	   a CPU whose IbsOpCurCnt the kernel can carry over: IBS_CAPS_RDWROPCNT;
	   Linux >= 5.4, commit 0f4cd769c410): no phase lock with a loop whose
	   op count divides the period. False: the period was exactly P. */
	bool     randomized;
};

/* Decode raw IBS op registers. Returns enum hc_ibs_status. */
int hc_ibs_decode(const uint8_t *raw, uint32_t size, struct hc_ibs_op *out);

/* ---- one hardware sample -> one detection-core sample ---- */

enum hc_pmu_status {
	HC_PMU_OK = 0,
	HC_PMU_KERNEL,         /* IP or address in kernel space (not ours to report) */
	HC_PMU_NO_ADDR,        /* no data address (PEBS addr 0, IBS without valid address) */
	HC_PMU_NOT_MEMORY,     /* IBS op that is neither load nor store */
	HC_PMU_UNDECODABLE,    /* the instruction at the IP cannot be decoded */
	HC_PMU_NO_ACCESS,      /* the instruction has no access in the sampled direction */
	HC_PMU_STACK,          /* the access is a push/pop/call/ret stack slot (private) */
	HC_PMU_BAD_RAW,        /* IBS raw data missing, short or not valid */
	HC_PMU_IN_RUNTIME,     /* IP or data address in the runtime's own code or memory:
	                          the runtime sampled itself (its handler, its wrappers) */
	HC_PMU_UNMAPPED,       /* the IP's code is not mapped (any more): nothing read there */
	HC_PMU_STATUS_COUNT,
};

/* How the sampler was opened. */
struct hc_pmu_source {
	int  kind;             /* HC_SAMPLER_PEBS or HC_SAMPLER_IBS */
	bool store_event;      /* PEBS: this buffer's event counts stores (else loads) */
	bool ip_is_next;       /* PEBS with precise_ip 1: ip is the instruction after */
	bool addr_from_regs;   /* TEST-ONLY software stand-in (HPCRUN_COMM_PMU_STANDIN): the
	                          records carry no address; the newest record whose IP is the
	                          interrupted PC takes it from decoding there with the signal's
	                          registers (doc/samplers.md) */
};

/* What the thread has at hand when converting: the interrupted registers
   (only in the signal handler; NULL when draining at stop) and the
   per-thread previous-instruction cache (precise_ip 1 decodes the
   instruction ending at the IP: the walk to it is cached per IP). Either
   may be NULL. */
struct hc_pmu_range {
	uint64_t lo, hi;       /* [lo, hi) */
};
#define HC_PMU_SELF_RANGES 12
#define HC_PMU_BUSY 4          /* recent handler runs remembered per thread */
struct hc_pmu_env {
	const struct hc_regs *regs;
	struct hc_prev_cache *cache;
	/* The runtime's own code and memory (the library's loaded range, the
	   thread's arena and stacks, the bulletin board...): a record whose IP
	   or data address lies in one is the runtime sampling itself and is
	   dropped (HC_PMU_IN_RUNTIME). self[0] is the code range. */
	struct hc_pmu_range self[HC_PMU_SELF_RANGES];
	int nself;
	/* When the runtime itself ran on this thread, [lo, hi) in the
	   records' clock (CLOCK_MONOTONIC ns): its recent handler runs and the
	   current one (hi = UINT64_MAX). A record taken then is the runtime's
	   own whatever its IP or address (libc, libunwind called from the
	   handler, reading the program's stack): HC_PMU_IN_RUNTIME. */
	struct hc_pmu_range busy[HC_PMU_BUSY + 1];
	int nbusy;
	/* Whether the code at ip can be read without a fault (hc_code_readable);
	   NULL: assumed mapped. */
	bool (*code_readable)(uint64_t ip);
};

/* Turn hardware sample ps into s (time, addr, len, is_store, cpu; ctx left
   HC_NONE) and *leaf (the accessing instruction). The length and the
   stack/explicit kind come from decoding the instruction at the IP with
   Zydis (hc_decode_init must have run; the code must be mapped, as it is
   for an IP this thread just executed). env may be NULL. Returns enum
   hc_pmu_status. */
int hc_pmu_to_sample(const struct hc_pmu_source *src, const struct hc_perf_sample *ps,
                     const struct hc_pmu_env *env, struct hc_sample *s, uint64_t *leaf);
const char *hc_pmu_status_name(int status);

/* ---- the whole drain of one thread's PMU events (the signal handler's
   body, minus what only the runtime has) ---- */

/* One event's ring buffer and how it was opened. */
struct hc_pmu_stream {
	struct hc_perfbuf buf;
	struct hc_pmu_source src;
};

/* Counted by hc_pmu_drain (added to, never reset). */
struct hc_pmu_counts {
	uint64_t samples;                      /* hardware samples read */
	uint64_t batched;                      /* samples after the first of one drain */
	uint64_t foreign;                      /* samples of another thread (never expected) */
	uint64_t status[HC_PMU_STATUS_COUNT];  /* by hc_pmu_to_sample's verdict; [HC_PMU_OK] = delivered */
	uint64_t period_min, period_max;       /* PERF_SAMPLE_PERIOD seen (0 = none) */
	uint64_t period_sum, period_n;         /* ... summed over the samples that carry it */
	uint64_t ctx_approx;                   /* delivered with exact_ctx false (see hc_pmu_sink) */
	uint64_t ibs_unrandomized;             /* IBS: valid samples whose period was not randomized
	                                          (hc_ibs_op.randomized false: aliasing possible) */
	uint64_t ibs_mispredicted;             /* IBS: sampled branch ops that were mispredicted
	                                          (each starts a wrong path whose ops take tags) */
	struct hc_perfbuf_stats ring;
};

/* Where a usable sample goes: the runtime's record__detect_sample, or a test's
   replay of the detection core. exact_ctx: the interrupted context (env's
   registers) is the sample's own — the record is the newest of its buffer
   and the interrupted PC lies in the function of the sampled instruction
   (hc_funcs_lookup), so the callers unwound from the signal are the
   sampled instruction's (short of recursion). Otherwise (an older record of
   a batch, skid past a return, no registers) the callers are unknown: the
   runtime attaches the leaf alone under the thread's root. */
typedef void (*hc_pmu_sink)(void *arg, uint64_t leaf, struct hc_sample *s, bool exact_ctx);

/* Drain streams v[0..n) of thread tid: every record is read, every sample
   converted (with env, may be NULL); usable ones go to sink. Returns the
   number delivered. */
uint64_t hc_pmu_drain(struct hc_pmu_stream *v, int n, uint32_t tid, const struct hc_pmu_env *env,
                      hc_pmu_sink sink, void *arg, struct hc_pmu_counts *c);

#endif
