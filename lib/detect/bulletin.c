/* SPDX-License-Identifier: BSD-3-Clause */
/* bulletin.c — the shared table of recent store samples (ComDetective's
   BulletinBoard): direct-mapped by cache line, one seqlock per 64-byte slot.
   Readers never block and never write the slot; a writer takes a slot by CAS
   of its sequence counter from even to odd and skips its publish if another
   writer holds it. Every access to a slot goes through GCC __atomic builtins
   on 64-bit words, so the table is free of data races in the C11 sense (and
   TSan agrees). Everything here runs in signal handlers: no system calls, no
   allocation, no locks.

   Memory ordering, without standalone fences (GCC rejects them under
   -fsanitize=thread, and TSan does not model them): the writer stores the
   payload words with release and the reader loads them with acquire. If a
   reader's payload load sees a word of a writer that took the slot after the
   reader's first sequence load, that writer's CAS happens-before the reader's
   second sequence load, which therefore sees the change. On x86 acquire loads
   and release stores are plain moves, so this costs nothing over relaxed
   accesses plus fences. */
#include <errno.h>
#include <string.h>

#include "detect/detect.h"

enum {
	W_LINE,
	W_ADDR,
	W_TIME,
	W_LEN_THREAD,  /* len | LOAD_BIT if a load | UPDATE_BIT if an update | thread << 32 */
	W_CPU_CTX,     /* (uint32_t)cpu | ctx << 32 */
	W_MASK,        /* the publisher's bytes of the line (hc_bb_entry.mask) */
	W_SPIN,        /* hc_bb_entry.spin | SYNC_BIT if sync | echo << ECHO_SHIFT
	                  | block_owner << OWNER_SHIFT | block << BLOCK_SHIFT */
	W_COUNT,
};

#define LOAD_BIT 0x80000000u
#define UPDATE_BIT 0x40000000u
#define LEN_MASK 0x3fffffffu
#define SYNC_BIT (1ull << 32)
#define ECHO_SHIFT 40
#define OWNER_SHIFT 33   /* 7 bits */
#define BLOCK_SHIFT 48

/* seq: 0 = never written, odd = a writer holds the slot, even = stable. */
struct hc_bb_slot {
	uint64_t seq;
	uint64_t w[W_COUNT];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct hc_bb_slot) == 64, "one slot per cache line");

size_t hc_bulletin_size(uint32_t nslots)
{
	return (size_t)nslots * sizeof(struct hc_bb_slot);
}

int hc_bulletin_init(struct hc_bulletin *bb, void *mem, uint32_t nslots, uint64_t expiry)
{
	if (!bb || !mem || nslots == 0 || ((uintptr_t)mem & 63))
		return -EINVAL;
	/* Not concurrent with any reader or writer: plain stores are fine. */
	memset(mem, 0, hc_bulletin_size(nslots));
	bb->nslots = nslots;
	bb->expiry = expiry;
	bb->recent_pos = 0;
	memset(bb->recent, 0, sizeof bb->recent);
	bb->slots = mem;
	return 0;
}

/* Consecutive lines map to consecutive slots, so with a prime nslots (the
   default 127) no two of any nslots consecutive lines collide and
   power-of-two strides (per-thread arrays, page-aligned blocks) do not alias. */
uint32_t hc_bulletin_slot_of(const struct hc_bulletin *bb, uint64_t line)
{
	return (uint32_t)((line / HC_LINE) % bb->nslots);
}

static uint64_t load_acq(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store_rel(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

bool hc_bulletin_read(const struct hc_bulletin *bb, uint32_t i, struct hc_bb_entry *out)
{
	const struct hc_bb_slot *slot;
	uint64_t s1, s2, w[W_COUNT];
	int k;

	if (i >= bb->nslots)
		return false;
	slot = &bb->slots[i];
	s1 = load_acq(&slot->seq);
	if (s1 == 0 || (s1 & 1))
		return false;
	for (k = 0; k < W_COUNT; k++)
		w[k] = load_acq(&slot->w[k]);
	s2 = load_acq(&slot->seq);
	if (s1 != s2)
		return false;
	out->line = w[W_LINE];
	out->addr = w[W_ADDR];
	out->time = w[W_TIME];
	out->len = (uint32_t)w[W_LEN_THREAD] & LEN_MASK;
	out->is_load = ((uint32_t)w[W_LEN_THREAD] & LOAD_BIT) != 0;
	out->update = ((uint32_t)w[W_LEN_THREAD] & UPDATE_BIT) != 0;
	out->thread = (uint32_t)(w[W_LEN_THREAD] >> 32);
	out->cpu = (int32_t)(uint32_t)w[W_CPU_CTX];
	out->ctx = (uint32_t)(w[W_CPU_CTX] >> 32);
	out->mask = w[W_MASK];
	out->spin = (uint32_t)w[W_SPIN];
	out->sync = (w[W_SPIN] & SYNC_BIT) != 0;
	out->echo = (uint8_t)(w[W_SPIN] >> ECHO_SHIFT);
	out->block = (uint16_t)(w[W_SPIN] >> BLOCK_SHIFT);
	out->block_owner = (uint8_t)((w[W_SPIN] >> OWNER_SHIFT) & 0x7f);
	return true;
}

bool hc_bulletin_lookup(const struct hc_bulletin *bb, uint64_t line, struct hc_bb_entry *out)
{
	return hc_bulletin_read(bb, hc_bulletin_slot_of(bb, line), out) && out->line == line;
}

/* May `e` replace the slot's current entry (line, time, thread, load)? */
static bool may_replace(const struct hc_bulletin *bb, const struct hc_bb_entry *e,
                        uint64_t line, uint64_t time, uint32_t thread, bool load)
{
	if (thread == e->thread)
		return true;
	/* On the same line a store always wins; a load replaces a load, but
	   not another thread's store until it has expired: that store is what
	   the line's next readers need. */
	if (line == e->line && (!e->is_load || load))
		return true;
	/* No clock here: age is judged against the new entry's time. An entry
	   that looks newer than the new one (samples of different threads are
	   not ordered) is not expired. */
	/* expiry: the PMU samplers refine it while the program runs (atomic) */
	return e->time > time && e->time - time > __atomic_load_n(&bb->expiry, __ATOMIC_RELAXED);
}

int hc_bulletin_publish(struct hc_bulletin *bb, const struct hc_bb_entry *e)
{
	struct hc_bb_slot *slot = &bb->slots[hc_bulletin_slot_of(bb, e->line)];
	uint64_t s, line, time, lt;

	/* Decide on a snapshot taken under the read protocol; the CAS below
	   succeeds only if no writer came in between, so the decision holds. */
	s = load_acq(&slot->seq);
	if (s & 1)
		return -EBUSY;
	if (s != 0) {
		line = load_acq(&slot->w[W_LINE]);
		time = load_acq(&slot->w[W_TIME]);
		lt = load_acq(&slot->w[W_LEN_THREAD]);
		if (!may_replace(bb, e, line, time, (uint32_t)(lt >> 32), ((uint32_t)lt & LOAD_BIT) != 0)) {
			/* The snapshot may be torn; only a stable one is a refusal. */
			if (load_acq(&slot->seq) != s)
				return -EBUSY;
			return -EEXIST;
		}
	}
	/* Acquire: the previous writer's payload stores happen-before ours, so
	   ours come later in every word's modification order. */
	if (!__atomic_compare_exchange_n(&slot->seq, &s, s + 1, false,
	                                 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return -EBUSY;
	store_rel(&slot->w[W_LINE], e->line);
	store_rel(&slot->w[W_ADDR], e->addr);
	store_rel(&slot->w[W_TIME], e->time);
	store_rel(&slot->w[W_LEN_THREAD], (uint64_t)((e->len & LEN_MASK) | (e->is_load ? LOAD_BIT : 0) |
	                                             (e->update ? UPDATE_BIT : 0)) |
	                                  (uint64_t)e->thread << 32);
	store_rel(&slot->w[W_CPU_CTX], (uint64_t)(uint32_t)e->cpu | (uint64_t)e->ctx << 32);
	store_rel(&slot->w[W_MASK], e->mask);
	store_rel(&slot->w[W_SPIN], (uint64_t)e->spin | (e->sync ? SYNC_BIT : 0) |
	                            (uint64_t)e->echo << ECHO_SHIFT |
	                            (uint64_t)(e->block_owner & 0x7f) << OWNER_SHIFT | (uint64_t)e->block << BLOCK_SHIFT);
	store_rel(&slot->seq, s + 2);
	{
		uint32_t pos = __atomic_fetch_add(&bb->recent_pos, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&bb->recent[pos % HC_BB_RECENT],
		                 (uint32_t)(slot - bb->slots) + 1, __ATOMIC_RELAXED);
	}
	return 0;
}
