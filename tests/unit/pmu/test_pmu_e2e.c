/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pmu_e2e.c — a recorded two-thread PMU sample stream, in the kernel's
   ring-buffer byte layout, through the drain the runtime's SIGTRAP handler
   runs (hc_pmu_drain: ring-buffer reader + sample conversion with Zydis)
   into the detection core (hc_detect_sample on a shared BulletinBoard),
   and the communication matrices that come out.
   The stream: thread A stores to line X, B loads it (true sharing, B<-A);
   B stores to bytes 32..39 of line Y, A stores to bytes 0..7 (false
   sharing, A<-B); stale entries are not counted again; B stores 4 bytes at
   Y+36 and A loads them (true, A<-B). Around it: a private load, a nop, a
   push, a kernel IP, a sample of another thread, LOST and THROTTLE
   records, several samples per wake-up and records split across the end
   of a one-page buffer. Expected matrices follow from the detection rules
   (detect.h): true[B][A] = P, false[A][B] = P, true[A][B] = P, nothing else.
   The same stream is replayed as PEBS with precise_ip >= 2, as PEBS with
   precise_ip = 1 (IP of the next instruction) and as AMD IBS raw records. */
#include <stdlib.h>
#include "hc_test.h"
#include "kbuf.h"
#include "hc/common.h"
#include "hc/profile.h"
#include "decode/decode.h"
#include "decode/funcstart.h"
#include "runtime/loadmap.h"
#include "detect/detect.h"
#include "pmu/perfbuf.h"

#define FN(name) ".globl " #name "\n.hidden " #name "\n.type " #name ",@function\n" \
	#name ":\n\t.cfi_startproc\n"
#define ENDFN(name) "\t.cfi_endproc\n.size " #name ",.-" #name "\n"
#define PC(name) ".globl " #name "\n.hidden " #name "\n" #name ":\n"

/* The program's instructions (never executed, only decoded). */
__asm__(".text\n"
	FN(e2e_fn)
	PC(i_st8)  "\tmovq %rax,(%rdi)\n"
	PC(i_ld8)  "\tmovq (%rsi),%rdx\n"
	PC(i_st4)  "\tmovl %eax,(%rdi)\n"
	PC(i_ld4)  "\tmovl (%rsi),%edx\n"
	PC(i_nop)  "\tnop\n"
	PC(i_push) "\tpush %rbx\n"
	PC(i_pop)  "\tpop %rbx\n"
	PC(i_end)  "\tret\n"
	ENDFN(e2e_fn));
extern const char i_st8[], i_ld8[], i_st4[], i_ld4[], i_nop[], i_push[], i_pop[], i_end[];

#define P     1000u
#define X     0x7f0000010000ull
#define Y     0x7f0000020000ull
#define Z     0x7f0000030000ull
#define TID_A 101u
#define TID_B 102u

enum { A = 0, B = 1 };
enum { MODE_PEBS, MODE_PEBS_NEXT, MODE_IBS, NMODES };
static const char *const mode_name[] = { "pebs", "pebs precise_ip=1", "ibs" };

/* One recorded sample: which thread, kind of record, instruction, address. */
enum { R_SAMPLE, R_LOST, R_THROTTLE, R_FOREIGN };
struct ev {
	int thread;
	int what;
	uint64_t time;
	const char *insn, *next;   /* accessing instruction and the one after it */
	bool store;                /* PEBS: which event (buffer); IBS: op kind */
	uint64_t addr;
	bool drain;                /* the signal arrives after this record */
};

static const struct ev stream[] = {
	{ A, R_SAMPLE,   100, i_st8,  i_ld8,  true,  X,          true },
	{ B, R_SAMPLE,   200, i_ld8,  i_st4,  false, X,          true },
	{ B, R_SAMPLE,   300, i_st8,  i_ld8,  true,  Y + 32,     true },
	{ A, R_THROTTLE, 350, NULL,   NULL,   true,  0,          false },
	{ A, R_SAMPLE,   400, i_st8,  i_ld8,  true,  Y,          true },
	{ A, R_SAMPLE,   500, i_ld8,  i_st4,  false, Z,          false },
	{ A, R_SAMPLE,   510, i_nop,  i_push, false, Z + 8,      false },
	{ A, R_LOST,     515, NULL,   NULL,   false, 3,          false },
	{ A, R_SAMPLE,   520, i_push, i_pop,  true,  0x7ffc0ff8, false },
	{ A, R_FOREIGN,  530, i_ld8,  i_st4,  false, X,          true },
	{ B, R_SAMPLE,   600, i_ld8,  i_st4,  false, X,          true },
	{ B, R_SAMPLE,   650, (const char *)0xffffffff81000000ull, NULL, false, X, true },
	{ B, R_SAMPLE,   700, i_st4,  i_ld4,  true,  Y + 36,     true },
	{ A, R_SAMPLE,   800, i_ld4,  i_nop,  false, Y + 36,     true },
};

struct thread {
	struct hc_detect_thread det;
	struct hc_pmu_stream st[2];    /* PEBS: loads, stores; IBS: one */
	struct kbuf kb[2];
	int n;
	uint32_t tid;
	struct hc_pmu_counts cnt;
};

static struct hc_bulletin bb;
static struct hc_detect_config cfg = { .period = P, .nwatch = 0, .probes = 8 };
static uint64_t mat[2][2][2];         /* [true?][detector][peer] */
static uint64_t ncomm;

struct sink_arg { struct thread *th; };

/* What record__detect_sample does with a sample, minus unwinding and the
   profile: the detection core, and the comm into the matrix. */
static void sink(void *arg, uint64_t leaf, struct hc_sample *s, bool exact_ctx)
{
	struct sink_arg *a = arg;
	struct hc_detect_result res;
	struct hc_comm comm;

	(void)leaf; (void)exact_ctx;
	s->ctx = 1;
	hc_detect_sample(&bb, &cfg, &a->th->det, s, &res, &comm);
	CHECK(!res.arm);
	if (res.comm) {
		CHECK_EQ_U64(comm.weight, P);
		CHECK(comm.peer < 2 && comm.peer != a->th->det.thread);
		if (comm.peer < 2)
			mat[(comm.flags & HC_COMM_TRUE) != 0][a->th->det.thread][comm.peer] += comm.weight;
		ncomm++;
	}
}

static void put_sample(struct thread *th, int mode, const struct ev *e, uint32_t tid)
{
	struct krec r;
	int buf = mode == MODE_IBS ? 0 : e->store;
	uint64_t ip = (uint64_t)(uintptr_t)(mode == MODE_PEBS_NEXT && e->next ? e->next : e->insn);

	if (mode == MODE_IBS) {
		struct kibs k = { .caps = 0x1ff, .ctl = KIBS_CTL_VAL | KIBS_CTL_EN,
		                  .rip = (uint64_t)(uintptr_t)e->insn, .linaddr = e->addr };
		if (e->insn != i_nop)     /* a nop is an ALU op for IBS: no ld/st bits */
			k.data3 = (e->store ? KIBS_D3_ST : KIBS_D3_LD) | KIBS_D3_LINVALID;
		krec_ibs(&r, ip, 4000, tid, e->time, (uint32_t)e->thread, &k);
	} else {
		struct kpebs s = { .ip = ip, .addr = e->addr, .time = e->time, .weight = 40,
		                   .pid = 4000, .tid = tid, .cpu = (uint32_t)e->thread };
		krec_pebs(&r, &s);
	}
	kbuf_rec(&th->kb[buf], &r);
}

static void run(int mode)
{
	static struct thread th[2];
	struct hc_pmu_counts tot = { 0 };

	memset(mat, 0, sizeof mat);
	ncomm = 0;
	memset(bb.slots, 0, hc_bulletin_size(bb.nslots));
	CHECK(hc_bulletin_init(&bb, bb.slots, bb.nslots, 1u << 30) == 0);
	for (int t = 0; t < 2; t++) {
		memset(&th[t].det, 0, sizeof th[t].det);
		memset(&th[t].cnt, 0, sizeof th[t].cnt);
		th[t].det.thread = (uint32_t)t;
		th[t].det.rng = 0x9e3779b97f4a7c15ull + (uint64_t)t;
		th[t].tid = t == A ? TID_A : TID_B;
		th[t].n = mode == MODE_IBS ? 1 : 2;
		for (int i = 0; i < th[t].n; i++) {
			CHECK(kbuf_open(&th[t].kb[i], 1, 1) == 0);
			/* start 24 bytes before the end: records straddle it */
			kbuf_seek(&th[t].kb[i], (1ull << 33) - 24);
			CHECK(hc_perfbuf_init(&th[t].st[i].buf, th[t].kb[i].base, th[t].kb[i].len,
			                      th[t].kb[i].page, mode == MODE_IBS ? HC_IBS_SAMPLE_TYPE
			                                                         : HC_PEBS_SAMPLE_TYPE) == 0);
			th[t].st[i].src.kind = mode == MODE_IBS ? HC_SAMPLER_IBS : HC_SAMPLER_PEBS;
			th[t].st[i].src.store_event = mode != MODE_IBS && i == 1;
			th[t].st[i].src.ip_is_next = mode == MODE_PEBS_NEXT;
		}
	}
	for (size_t k = 0; k < sizeof stream / sizeof stream[0]; k++) {
		const struct ev *e = &stream[k];
		struct thread *t = &th[e->thread];
		struct krec r;
		switch (e->what) {
		case R_SAMPLE:  put_sample(t, mode, e, t->tid); break;
		case R_FOREIGN: put_sample(t, mode, e, 999); break;
		case R_LOST:    krec_lost(&r, 1, e->addr); kbuf_rec(&t->kb[0], &r); break;
		case R_THROTTLE: krec_throttle(&r, 0, e->time); kbuf_rec(&t->kb[t->n - 1], &r); break;
		}
		if (e->drain) {             /* the thread's SIGTRAP */
			struct sink_arg a = { .th = t };
			hc_pmu_drain(t->st, t->n, t->tid, NULL, sink, &a, &t->cnt);
			for (int i = 0; i < t->n; i++)
				CHECK_EQ_U64(t->kb[i].meta->data_tail, t->kb[i].meta->data_head);
		}
	}
	fprintf(stderr, "%s: true[B][A]=%" PRIu64 " false[A][B]=%" PRIu64 " true[A][B]=%" PRIu64 "\n",
	        mode_name[mode], mat[1][B][A], mat[0][A][B], mat[1][A][B]);
	CHECK_EQ_U64(mat[1][B][A], P);
	CHECK_EQ_U64(mat[0][A][B], P);
	CHECK_EQ_U64(mat[1][A][B], P);
	CHECK_EQ_U64(mat[0][B][A], 0);
	CHECK_EQ_U64(mat[0][A][A] + mat[1][A][A] + mat[0][B][B] + mat[1][B][B], 0);
	CHECK_EQ_U64(ncomm, 3);

	for (int t = 0; t < 2; t++) {
		struct hc_pmu_counts *c = &th[t].cnt;
		tot.samples += c->samples;
		tot.batched += c->batched;
		tot.foreign += c->foreign;
		for (int s = 0; s < HC_PMU_STATUS_COUNT; s++)
			tot.status[s] += c->status[s];
		tot.ring.lost += c->ring.lost;
		tot.ring.throttle += c->ring.throttle;
		tot.ring.truncated += c->ring.truncated + c->ring.corrupt;
		for (int i = 0; i < th[t].n; i++)
			kbuf_close(&th[t].kb[i]);
	}
	/* 12 samples: 8 usable, a nop, a push, a kernel IP, another thread's */
	CHECK_EQ_U64(tot.samples, 12);
	CHECK_EQ_U64(tot.status[HC_PMU_OK], 8);
	CHECK_EQ_U64(tot.foreign, 1);
	CHECK_EQ_U64(tot.status[HC_PMU_KERNEL], 1);
	if (mode == MODE_IBS) {
		CHECK_EQ_U64(tot.status[HC_PMU_NOT_MEMORY], 1);        /* the nop: no ld/st bits */
	} else {
		CHECK_EQ_U64(tot.status[HC_PMU_NO_ACCESS], 1);         /* the nop */
	}
	CHECK_EQ_U64(tot.status[HC_PMU_STACK], 1);                 /* the push */
	CHECK_EQ_U64(tot.ring.lost, 3);
	CHECK_EQ_U64(tot.ring.throttle, 1);
	CHECK_EQ_U64(tot.ring.truncated, 0);
	CHECK_EQ_U64(tot.batched, 3);   /* A's 500..530: four samples in one drain */
}

int main(void)
{
	void *mem;

	if (hc_decode_init() < 0 || loadmap__refresh() < 0) {
		fprintf(stderr, "cannot initialise the decoder\n");
		return 1;
	}
	bb.nslots = HC_BB_DEFAULT_SLOTS;
	mem = aligned_alloc(64, (hc_bulletin_size(bb.nslots) + 63) & ~(size_t)63);
	CHECK(mem != NULL);
	if (!mem)
		return 1;
	bb.slots = mem;
	for (int m = 0; m < NMODES; m++)
		run(m);
	free(mem);
	return hc_test_done("test_pmu_e2e");
}
