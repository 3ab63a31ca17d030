/* SPDX-License-Identifier: BSD-3-Clause */
/* pipe.c — pipeline sets (pipe.h, doc/detection.md §5.18). The process's
   table of strided store sequences: a thread's sampled synchronizing stores
   (an xchg with memory: a seq_cst flag, detection.md §5.17) teach the
   stride of their instruction; once known, the next hand-off is predicted
   and the process-wide set is armed on it (watch.c, watch__pset_pipe):
   - the writer's side: a sampled store of the sequence — its next store
     is one stride on;
   - the reader's side: another thread's sampled load of a word on the
     sequence (a wait on the flag of row j: the flag of row j + 1 is the
     next hand-off between the two).
   Signal context: the table is static, each slot written under its own
   sequence word (odd while written) by the thread that holds it; a reader
   copies a slot and keeps the copy only if the word did not move.
   Every access to a slot's words that may overlap another thread's is
   atomic (slot_load, slot_store: a word at a time), so that the seqlock
   has no data race in C11's terms and ThreadSanitizer (which does not
   model fences, gcc's -Wtsan) checks it (tests/unit/runtime/test_pipe_mt). */
#include <errno.h>

#include "runtime/rt.h"
#include "runtime/pipe.h"

/* A slot's sequence as words, for the atomic copies (a union: gcc's
   type punning, no aliasing question). */
#define SLOT_WORDS (sizeof(struct rt_pipe_seq) / sizeof(uint64_t))
_Static_assert(sizeof(struct rt_pipe_seq) % sizeof(uint64_t) == 0, "a slot is whole words");
union slot_words {
	struct rt_pipe_seq q;
	uint64_t w[SLOT_WORDS];
};

static struct {
	uint64_t seq;                 /* even: stable; odd: being written */
	union slot_words u;
} pipes[RT_PIPE_SLOTS];

/* counters for the log (atomic) */
static struct {
	uint64_t stores, lost, learned, asked_store, asked_load, armed, busy, refused, comms, stands, wonly, over,
	         waited, unwaited;
} pc_;

static void count(uint64_t *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

/* A copy of slot i's words, each an acquire load: the sequence word's
   re-read after them (slot_read) cannot move before any of them. This is
   what the acquire fence between a plain copy and the re-read gave (each
   load here synchronizes with the release store that wrote its value, as
   the fence did for all of them), with no fence, which TSan does not
   understand (gcc: "atomic_thread_fence is not supported with
   -fsanitize=thread"), and no plain read racing the holder's stores. On
   x86-64 an acquire load is a plain mov (eight of them, for the memcpy's
   few vector moves; the fence itself emitted no instruction there). */
static void slot_load(uint32_t i, struct rt_pipe_seq *out)
{
	union slot_words c;

	for (uint32_t k = 0; k < SLOT_WORDS; k++)
		c.w[k] = __atomic_load_n(&pipes[i].u.w[k], __ATOMIC_ACQUIRE);
	*out = c.q;
}

/* The holder of slot i (its word odd) publishes `q` there, a word at a
   time, each a release store: a reader whose acquire load sees one of them
   also sees the odd word stored before it, and drops its copy. (Before:
   plain stores after the taking compare-and-swap; release is stronger, and
   a plain mov on x86-64.) The caller then stores the even word (release). */
static void slot_store(uint32_t i, const struct rt_pipe_seq *q)
{
	union slot_words c;

	__builtin_memset(&c, 0, sizeof(c));
	c.q = *q;
	for (uint32_t k = 0; k < SLOT_WORDS; k++)
		__atomic_store_n(&pipes[i].u.w[k], c.w[k], __ATOMIC_RELEASE);
}

/* A consistent copy of slot i; false while it is being written (the copy
   then holds each word as some writer stored it). */
static bool slot_read(uint32_t i, struct rt_pipe_seq *out)
{
	uint64_t s0 = __atomic_load_n(&pipes[i].seq, __ATOMIC_ACQUIRE);

	slot_load(i, out);
	return !(s0 & 1) && __atomic_load_n(&pipes[i].seq, __ATOMIC_RELAXED) == s0;
}

/* The slot of (thread, pc): its own, else a free one, else the one seen
   longest ago. Taken by compare-and-swap of its word (odd): -1 when
   another thread holds it now (the store is not learned: counted). A slot
   being written whose key is (thread, pc) is its own, held: -1 too, not a
   second slot for the sequence — two slots of one sequence would each
   learn from every other store and take twice the stride (test_pipe_mt:
   a reader noting its wait held the writer's slot, the writer started a
   copy elsewhere, and 4 of 10 ASan runs predicted 2–11 rows on). The key
   is read word by word (each atomic) while it may change: a mix of an old
   and a new key only loses that store. */
static int slot_take(uint32_t thread, uint64_t pc, uint64_t *word)
{
	uint32_t pick = 0;
	uint64_t oldest = UINT64_MAX;
	struct rt_pipe_seq q;

	for (uint32_t i = 0; i < RT_PIPE_SLOTS; i++) {
		if (!slot_read(i, &q)) {
			if (q.pc == pc && q.thread == thread)
				return -1;
			continue;
		}
		if (q.pc == pc && q.thread == thread) {
			pick = i;
			break;
		}
		if (!q.pc) {
			if (oldest) {
				pick = i;
				oldest = 0;
			}
		} else if (q.time < oldest) {
			pick = i;
			oldest = q.time;
		}
	}
	*word = __atomic_load_n(&pipes[pick].seq, __ATOMIC_RELAXED);
	if ((*word & 1) || !__atomic_compare_exchange_n(&pipes[pick].seq, word, *word + 1, false,
	                                                 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return -1;
	return (int)pick;
}

/* A reader's wait on the sequence `q` (a copy of a slot): noted in its
   slot, if it still holds the sequence and is not being written now (else
   the wait is lost; the copy counts it either way), so that the sequence's
   sets weigh its rows (pipe.h, rt_pipe_stands). */
static void note_wait(struct rt_pipe_seq *q)
{
	uint64_t word;
	int i = slot_take(q->thread, q->pc, &word);
	struct rt_pipe_seq cur;

	rt_pipe_waited(q);
	if (i < 0)
		return;
	slot_load((uint32_t)i, &cur);    /* held: stable */
	if (cur.pc == q->pc && cur.thread == q->thread && cur.stride == q->stride) {
		if (!cur.waits)
			count(&pc_.waited);
		rt_pipe_waited(&cur);
		slot_store((uint32_t)i, &cur);
	}
	__atomic_store_n(&pipes[i].seq, word + 2, __ATOMIC_RELEASE);
}

/* Was a reader seen waiting on a sequence of the store instruction `pc`,
   whatever its writer? (A pipeline's readers wait for what one instruction
   of the code stores, in every thread that runs it: PRK's Synch_p2p at 4
   threads has 3 writers' sequences and waits were seen on 1–3 of them.) */
static bool pc_waited(uint64_t pc)
{
	struct rt_pipe_seq q;

	for (uint32_t i = 0; i < RT_PIPE_SLOTS; i++)
		if (slot_read(i, &q) && q.pc == pc && q.waits && rt_pipe_ready(&q))
			return true;
	return false;
}

/* At every recorded sample (record.c), soft sampler with a process-wide
   set: learn from a synchronizing store, predict from it or from a load on
   another thread's sequence, and arm. */
void pipe__sample(struct rt_thread *t, uint64_t pc, const struct hc_sample *s)
{
	uint64_t target = 0, word;
	uint32_t writer = 0, stands = 1;
	struct rt_pipe_seq q;

	if (!hc_rt.opt.pipe || hc_rt.npset <= 0 || hc_rt.sampler_kind != HC_SAMPLER_SOFT || !s->addr || !pc)
		return;
	if (s->is_store && t->det.sync && !s->is_private && (hc_rt.opt.pipe & 1)) {
		int i;

		count(&pc_.stores);
		i = slot_take(t->id.index, pc, &word);
		if (i < 0) {
			count(&pc_.lost);
			return;
		}
		slot_load((uint32_t)i, &q);      /* held: stable */
		if (q.pc != pc || q.thread != t->id.index) {
			rt_pipe_start(&q, t->id.index, pc, s->addr, s->time);
		} else {
			bool was = rt_pipe_ready(&q);

			rt_pipe_note(&q, s->addr, s->time);
			if (!was && rt_pipe_ready(&q))
				count(&pc_.learned);
		}
		slot_store((uint32_t)i, &q);
		__atomic_store_n(&pipes[i].seq, word + 2, __ATOMIC_RELEASE);
		if (!rt_pipe_ready(&q))
			return;
		count(&pc_.asked_store);
		target = rt_pipe_next(&q, s->addr);
		writer = t->id.index;
		if (!q.waits && pc_waited(q.pc))
			rt_pipe_waited(&q);     /* the copy only: another writer's sequence of this code */
		stands = rt_pipe_stands(&q);
	} else if (!s->is_store && t->watch.line_heap && (hc_rt.opt.pipe & 2) &&
	           t->det.spin.run >= 2 && t->det.spin.line == (s->addr & ~(uint64_t)(HC_LINE - 1))) {
		/* a reader's wait (its second sample on the line in the same
		   loop, detection.md §5.14) on a word of a writer's sequence: the
		   writer is behind, and the next row's hand-off comes after this
		   one. A load that did not wait (the writer ahead, the word long
		   written) predicts nothing: its next row is written already, and
		   a set there would take the reader's load first and wait for a
		   store that came before it. */
		for (uint32_t i = 0; i < RT_PIPE_SLOTS && !target; i++)
			if (slot_read(i, &q) && q.pc && q.thread != t->id.index && rt_pipe_on(&q, s->addr)) {
				count(&pc_.asked_load);
				target = rt_pipe_next(&q, s->addr);
				writer = q.thread;
				note_wait(&q);
				stands = rt_pipe_stands(&q);
			}
		if (!target)
			return;
	} else {
		return;
	}
	switch (watch__pset_pipe(t, target, writer, stands)) {
	case 0:
		count(&pc_.armed);
		if (stands == 1 && !q.waits)
			count(&pc_.unwaited);
		__atomic_add_fetch(&pc_.stands, stands, __ATOMIC_RELAXED);
		break;
	case -EBUSY:
		count(&pc_.busy);
		break;
	default:
		count(&pc_.refused);
		break;
	}
	HC_DEBUG_LOG(HC_DBG_WATCH, "T%u pipeline set on T%u's next hand-off %#llx (%s side, stands for %u rows)",
	             t->id.index, writer, (unsigned long long)target,
	             writer == t->id.index ? "writer's" : "reader's", stands);
}

/* A pipeline set's communication (watch.c, pset_trap). */
void pipe__comm(void)
{
	count(&pc_.comms);
}

/* A pipeline set re-typed to watch writes only: the reader's load came
   first (watch.c, pipe_writes_only). */
void pipe__writes_only(void)
{
	count(&pc_.wonly);
}

/* An armed zone set ended to make room for a pipeline set (watch.c). */
void pipe__over_zone(void)
{
	count(&pc_.over);
}

/* The counters are read atomically (relaxed): at exit other threads may
   still be sampling (TSan, tests/unit/runtime/test_pipe_mt). */
#define RD(f) ((unsigned long long)__atomic_load_n(&pc_.f, __ATOMIC_RELAXED))

void pipe__log(void)
{
	uint32_t seqs = 0;
	struct rt_pipe_seq q;
	unsigned long long armed = RD(armed), stands = RD(stands);

	if (!hc_rt.opt.pipe || hc_rt.npset <= 0 || hc_rt.sampler_kind != HC_SAMPLER_SOFT)
		return;
	for (uint32_t i = 0; i < RT_PIPE_SLOTS; i++)
		if (slot_read(i, &q) && rt_pipe_ready(&q))
			seqs++;
	process__log("pipeline sets (HPCRUN_COMM_PIPE): %llu synchronizing stores seen (%llu lost races), "
	        "%llu strides learned, %u sequences with a stride at exit; next hand-offs predicted from a "
	        "writer's store %llu, from a reader's load %llu; sets armed %llu (%llu zone sets ended to make room, "
	        "HPCRUN_COMM_PIPE_OVER_ZONE=%d; not armed: %llu while another set was, %llu refused by the budget or a failed arm; standing for %llu rows on average; %llu of them "
	        "watching writes only after the reader's load came first), communications %llu; "
	        "sequences a reader was seen waiting on %llu, sets weighed one row for want of a wait %llu",
	        RD(stores), RD(lost), RD(learned),
	        seqs, RD(asked_store), RD(asked_load),
	        armed, RD(over), hc_rt.opt.pipe_over_zone ? 1 : 0,
	        RD(busy), RD(refused),
	        armed ? stands / armed : 0, RD(wonly),
	        RD(comms), RD(waited), RD(unwaited));
}
