/* SPDX-License-Identifier: BSD-3-Clause */
/* lock.c — lock sets (doc/detection.md §5.35): the runtime interposes
   pthread_mutex_lock/trylock/timedlock/unlock and pthread_cond_wait/
   timedwait and notes, per mutex, the thread that released it last. A
   thread that acquires a mutex another thread released last (a hand-off)
   is about to read what that thread wrote in its critical section — the
   value of a lock, a queue's head — microseconds later, where no timer
   sample lands. At most one hand-off in HPCRUN_COMM_LOCK_SETS of the
   acquirer's samples arms a *lock set*: a start set on words next to the
   mutex (its heap block without the mutex, or the 64 bytes after a mutex
   outside the heap), each standing for the releaser with its context at a
   release. A trap in system code (the lock implementation: a condition
   variable beside the mutex) is not the program's data: dropped, and the
   word is not watched again for that mutex; a trap in the program's code
   marks the word as one to watch. The set stays armed while the thread
   holds the mutex; at the next hand-off of the same mutex to the same
   thread it takes the new releaser without a re-arm.

   Cost when nothing is armed: a TLS load, a hash and two or three loads
   of a table slot per call; a slot is written only when its releaser
   changes. The slot's fields of one mutex are read and written under that
   mutex (its holder, or a releaser about to release it); another mutex
   hashing to the slot takes it over (counter-free: the hand-offs of both
   are then missed or misattributed now and then). Relaxed atomics
   throughout. Not signal context, except lock__trap (the trap handler). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "runtime/rt.h"
#include "runtime/safety.h"
#include "runtime/alloc/blocks.h"

#define RT_LOCK_SLOTS 512          /* power of two */
#define RT_LOCK_BLOCK_MAX 512      /* a heap block at most this big is the lock's neighbourhood */
#define RT_LOCK_WARM 8             /* samples before a lock set may open the registers */
#define RT_LOCK_STORE_TRIES 16     /* releases that may capture a context with no store before it
                                      (a condition wait's) while a later one may find one */

struct lock_slot {
	uint64_t mutex;        /* 0 = free */
	uint64_t lo;           /* the neighbourhood's first word, 0 = not computed */
	uint64_t cand;         /* its candidate words (bit i: lo + 8 i) */
	uint64_t good, bad;    /* words the program's / only system code's traps hit */
	uint32_t releaser;     /* thread index + 1 of its last releaser, 0 = none */
	uint32_t want;         /* bit p: the next release of a thread of position p
	                          captures its context (p = index & 3) */
	uint32_t cursor;       /* hc_lock_words' round robin */
	uint32_t pthread[4];   /* thread index + 1 whose context at a release ... */
	uint32_t pctx[4];      /* ... is this (position index & 3) */
	uint8_t ptries[4];     /* captures that found no store before the release (§5.49) */
	uint8_t heap;          /* lo is the mutex's heap block's start */
	uint64_t pgood[4];     /* words another thread's trap read after a release of the thread of position p
	                          (HPCRUN_COMM_LOCK_DRAW, §5.65; process-wide lock sets' foreign traps) */
	uint32_t rel_arms;     /* process-wide lock sets armed after its releases (HPCRUN_COMM_LOCK_PSET_ACQ=2) */
	uint32_t rel_verdicts; /* ... of them judged by a trap in the program's code */
	uint8_t acq;           /* its sets are armed at the acquisition from now on (hc_lock_acq_switch) */
} __attribute__((aligned(64)));

static struct lock_slot slots[RT_LOCK_SLOTS];

/* The stores of a releaser's context (§5.49), latest first: the slot's
   pctx is the first; a watched word whose address one of them names
   (HPCRUN_COMM_LOCK_STORE_WORD) stands for that store's context. Written
   and read under the slot's mutex, as pctx. */
#define RT_LOCK_SITES 4
struct lock_sites {
	uint32_t ctx[RT_LOCK_SITES];
	int64_t key[RT_LOCK_SITES];
	uint32_t size[RT_LOCK_SITES];
	uint8_t kind[RT_LOCK_SITES];
	uint8_t n;
};
static struct lock_sites sites[RT_LOCK_SLOTS][4];

/* HPCRUN_COMM_LOCK_PSET_ACQ (§5.61): a gated releaser's process-wide lock
   set, prepared at its release and armed by the next other thread that
   acquires the mutex (the hand-off), for the releaser: that thread holds
   the mutex and is the one to read the word next. Armed after the release
   instead, the releaser's own next critical sections (mw_cond's worker
   popping task after task) end it with own traps before any other thread
   looks (-O0 -t 2: 82 sets, 1 communication). Written and read under the
   slot's mutex. */
struct lock_pend {
	uint32_t armer1;       /* the releaser's index + 1; 0 = none */
	uint8_t bytes;
	uint32_t k;            /* the lines it stands for (HPCRUN_COMM_LOCK_DRAW) */
	uint64_t addr, lo, changed;
	struct hc_bb_entry e;
};
static struct lock_pend pend[RT_LOCK_SLOTS];
static int lock_on;
static uint64_t pset_handoffs;     /* hand-offs since the last process-wide lock set (atomic) */
static int handoff_seen;           /* a hand-off came (reader sets, §5.57; atomic) */
static uint64_t scale_total, scale_weighed;   /* hand-offs lock weights stood for, and weighed after the caps (atomic) */
/* HPCRUN_COMM_LOCK_DRAW (§5.65): a process-wide lock set is due (a gated
   thread's samples said so at its release); the next gated thread to take
   a mutex takes the snapshot, whichever it is (atomic) */
static uint32_t draw_token;

/* A lock weight's hand-offs n, capped: both noted for the reader sets'
   scale when it is asked for (HPCRUN_COMM_READER_SCALE, §5.57). */
static uint64_t capped(uint64_t n, uint64_t cap)
{
	uint64_t c = n < cap ? n : cap;

	if (hc_rt.opt.reader_scale) {
		__atomic_add_fetch(&scale_total, n ? n : 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&scale_weighed, c ? c : 1, __ATOMIC_RELAXED);
	}
	return c;
}

/* An armed lock set's hand-offs: all it stands for, and what its weight
   counts after the cap (§5.61). The analyzer scales the process's lock
   traps (HC_COMM_LOCK) by the sums' ratio: the traps keep the caps'
   relative weights (no trap's own count decides), their total the
   hand-offs'. Thread-local counters. */
static inline void scale_note(struct rt_thread *t, uint64_t all, uint64_t weighed)
{
	t->cnt.lock_scale_handoffs += all ? all : 1;
	t->cnt.lock_scale_weighed += weighed ? weighed : 1;
}

#define LD(p) __atomic_load_n(&(p), __ATOMIC_RELAXED)
#define LD_ACQ(p) __atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define ST(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELAXED)
#define ST_REL(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/* A gated releaser's process-wide lock set for the mutex of slot s is
   armed at the next other thread's acquisition (§5.61), not after the
   release: HPCRUN_COMM_LOCK_PSET_ACQ=1 always, =2 once the sets armed
   after its releases were seldom judged (hc_lock_acq_switch, §5.67). */
static inline bool acq_mode(const struct lock_slot *s)
{
	return hc_rt.opt.lock_pset_acq == 1 || (hc_rt.opt.lock_pset_acq == 2 && __atomic_load_n(&s->acq, __ATOMIC_RELAXED));
}

static inline struct lock_slot *slot_of(const void *m)
{
	uint64_t h = ((uint64_t)(uintptr_t)m >> 3) * 0x9e3779b97f4a7c15ull;

	return &slots[h >> 55 & (RT_LOCK_SLOTS - 1)];
}

void lock__enable(bool on)
{
	lock_on = on;
}

/* ---- synchronisation objects (detection.md §5.37) ----
   The bytes of every barrier, mutex and condition variable the program
   passes to the interposed calls. glibc's barrier, mutex and condition
   code reads and writes them in every thread; exact mode instruments the
   program's code only and never counts them. A sample, burst access or
   trap of system code (the classification lock sets use for their traps:
   loadmap__system_code) on those bytes is dropped (soft.c, watch.c),
   counted. */
static struct hc_sync_words sync_words;
static int sync_on;

void lock__sync_enable(bool on)
{
	sync_on = on;
}

void lock__sync_note(const void *o, size_t n)
{
	struct rt_thread *t;
	int r;

	if (!sync_on)
		return;
	r = hc_sync_words_add(&sync_words, (uint64_t)(uintptr_t)o, (uint32_t)n);
	if (r != 0 && (t = hc_self) != NULL) {
		if (r > 0)
			t->cnt.sync_objects++;
		else
			t->cnt.sync_full++;
	}
}

int lock__sync_sys(uint64_t pc, uint64_t addr, uint32_t len)
{
	bool obj = sync_on && hc_sync_words_has(&sync_words, addr, len);
	bool data = !obj && hc_rt.opt.sys_data && loadmap__system_data(addr);

	if (!(obj || data) || !loadmap__system_code(pc))
		return 0;
	return obj ? RT_SYNC_OBJECT : RT_SYS_DATA;
}

/* The candidate words of a mutex's neighbourhood: the words of its heap
   block (a small one) not in the mutex; else the 64 bytes after it. */
static void neighbourhood(struct lock_slot *s, uint64_t m)
{
	struct rt_block b;
	uint64_t lo, hi, cand = 0, mlo = m, mhi = m + sizeof(pthread_mutex_t);

	ST(s->heap, 0);
	if (blocks__used() && blocks__find(m, &b) && b.size && b.size <= RT_LOCK_BLOCK_MAX) {
		lo = (b.base + 7) & ~(uint64_t)7;
		hi = b.base + b.size;
		ST(s->heap, (uint8_t)(lo == b.base));
	} else {
		/* and HPCRUN_COMM_LOCK_BEFORE bytes before it (a static struct's
		   queue before its mutex: §5.38), not before its page */
		uint64_t before = hc_rt.opt.lock_before, page = m & ~(uint64_t)4095;

		lo = (mhi + 7) & ~(uint64_t)7;
		hi = lo + 64;
		if (before) {
			lo = m >= page + before ? (m - before) & ~(uint64_t)7 : (page + 7) & ~(uint64_t)7;
			if (hi - lo > 64 * 8)
				lo = hi - 64 * 8;
		}
	}
	for (uint32_t i = 0; i < 64 && lo + 8 * (uint64_t)i + 8 <= hi; i++) {
		uint64_t w = lo + 8 * (uint64_t)i;

		if (w + 8 <= mlo || w >= mhi)
			cand |= 1ull << i;
	}
	ST(s->cand, cand);
	ST(s->lo, lo);
}

/* ---- lock sets on the process-wide set (HPCRUN_COMM_LOCK_PSET, §5.38) ----
   A thread the switch gate keeps closed cannot arm a lock set of its own.
   Its critical sections still say what it hands on: the neighbourhood's
   values at its acquisition against those at its release are the words it
   wrote (exact mode's W, doc/exact.md; a value written back unchanged is
   missed). At that release the process-wide set (whose copies cost no
   switch) is armed on one word of a changed line — the program's words
   (`good`) first, round robin — for the releaser; the next other thread
   to touch it is the hand-off's reader, true when the word changed, false
   when only another word of its line did (the line moved for bytes it
   does not read). Only while due (once in HPCRUN_COMM_LOCK_SETS samples,
   after the first RT_LOCK_WARM), and only when the set is idle and its
   budget allows. */
static bool word_readable(uint64_t w, const void *m)
{
	return ((w ^ (uint64_t)(uintptr_t)m) >> 12) == 0 || rt_page_resident(w) >= 0;
}

/* The releaser's data stores before its call that returns to ret, at most
   HPCRUN_COMM_LOCK_STORE instructions back (§5.49): a context for each
   under the callers' node parent, kept in the slot's sites; *node the
   latest's. False if none. arg: the slot's sites for the position. */
static bool store_leaves(struct rt_thread *t, uint32_t parent, uint64_t ret, void *arg, uint32_t *node)
{
	struct lock_sites *ls = arg;
	struct hc_store_site st[RT_LOCK_SITES];
	int n = hc_decode_stores_before(ret, hc_rt.opt.lock_store, st,
	                                hc_rt.opt.lock_store_word ? RT_LOCK_SITES : 1);

	ST(ls->n, 0);
	if (n <= 0)
		return false;
	for (int i = 0; i < n; i++) {
		ST(ls->ctx[i], cct__insert_under(t, parent, st[i].ip));
		ST(ls->key[i], st[i].key);
		ST(ls->size[i], st[i].size);
		ST(ls->kind[i], st[i].kind);
	}
	ST(ls->n, (uint8_t)n);
	*node = LD(ls->ctx[0]);
	return true;
}

/* The context a watched word at a stands for: the releaser's store that
   names its address (an absolute one, or a field's displacement in the
   mutex's heap block), else dflt (its latest store's, or its unlock's). */
static uint32_t site_ctx(const struct lock_slot *s, uint32_t pos, uint64_t a, uint32_t dflt)
{
	const struct lock_sites *ls = &sites[s - slots][pos & 3];
	uint8_t kind[RT_LOCK_SITES];
	int64_t key[RT_LOCK_SITES];
	uint32_t size[RT_LOCK_SITES], n = LD(ls->n);
	int i;

	_Static_assert(HC_STORE_ABS == 1 && HC_STORE_DISP == 2, "hc_lock_site's kinds");
	if (!hc_rt.opt.lock_store_word || LD(s->pthread[pos & 3]) == 0)
		return dflt;
	if (n > RT_LOCK_SITES)
		n = RT_LOCK_SITES;
	for (uint32_t j = 0; j < n; j++) {
		kind[j] = LD(ls->kind[j]);
		key[j] = LD(ls->key[j]);
		size[j] = LD(ls->size[j]);
	}
	i = hc_lock_site(a, LD(s->lo), LD(s->heap) != 0, kind, key, size, n);
	return i >= 0 ? LD(ls->ctx[i]) : dflt;
}

/* The calling context of thread me's lock call (skip: the frames above
   it) kept as the slot's context for me, errno untouched; false when the
   runtime was busy (the guard held), or when the context found no store
   before the release (HPCRUN_COMM_LOCK_STORE: a condition wait's release,
   an unlock after a branch) and fewer than RT_LOCK_STORE_TRIES such
   captures were made (a later release may name the critical section's
   store: §5.49); true when it is done. Always inlined: skip counts the
   caller's frames. */
static inline __attribute__((always_inline)) bool capture_ctx(struct rt_thread *t, struct lock_slot *s,
                                                              uint32_t me, int skip)
{
	int e;
	uint32_t ctx;
	bool moved;

	if (!hc_guard_enter(t))
		return false;
	e = errno;
	ctx = cct__context_here_store(t, skip, hc_rt.opt.lock_store ? store_leaves : NULL,
	                              &sites[s - slots][me & 3], &moved);
	errno = e;
	hc_guard_leave(t);
	if (ctx != HC_NONE && ctx != 0) {
		ST(s->pctx[me & 3], ctx);
		ST(s->pthread[me & 3], me);
		t->cnt.lock_ctx_captures++;
		if (moved)
			t->cnt.lock_ctx_store++;
	}
	if (hc_rt.opt.lock_store && !moved && LD(s->ptries[me & 3]) < RT_LOCK_STORE_TRIES) {
		ST(s->ptries[me & 3], (uint8_t)(LD(s->ptries[me & 3]) + 1));
		return false;
	}
	return true;
}

/* One word of a mutex's neighbourhood. The neighbourhood can reach past
   the program's block (the 64 bytes after a mutex, LOCK_BEFORE's bytes
   before it: resident memory, checked by word_readable), which an ASan
   build of the program poisons as a redzone (the CI's real_programs.sh:
   `sort`, heap-buffer-overflow in snapshot): left uninstrumented, as
   cct.c's stack readers. */
__attribute__((no_sanitize_address, noinline))
static uint64_t near_word(uint64_t a)
{
	return __atomic_load_n((const uint64_t *)(uintptr_t)a, __ATOMIC_RELAXED);
}

/* §5.53: the line of the armed process-wide lock set after its arming
   release. A later releaser of the same mutex whose critical section
   changed the line is the line's last writer (exact mode's w, doc/exact.md
   R2): a trap after it is its communication, judged by the bytes it
   changed, not the arming releaser's. Written under the mutex (the arming
   release, the later releases), read by the trap handler (loads only; seq
   odd while written: the handler then keeps the set's own rule). */
static struct {
	uint32_t seq;
	uint32_t slot1;        /* the mutex's slot index + 1; 0 = none */
	uint32_t armer;        /* the arming releaser's thread index */
	uint32_t writer;       /* index + 1 of the line's last writer after the arm; 0 = none */
	uint32_t wctx;         /* its context */
	uint32_t live;         /* the set is armed: a change from now on is a writer's
	                          (one made while the arm waited for the other CPUs
	                          only moves the copy: the set's own rule stands in for it) */
	uint64_t line, bytes;  /* the line; the bytes its last writer changed */
	uint64_t copy[8];      /* the line at the latest release */
} after;

/* The writer's fields that lock__pset_after reads are release stores
   (ST_REL): a reader's acquire load that sees one synchronizes with it, so
   its re-read of seq sees after_begin's odd count (C11's seqlock without
   fences; on x86-64 plain movs). */
static void after_begin(void)
{
	__atomic_add_fetch(&after.seq, 1, __ATOMIC_ACQ_REL);
}

static void after_end(void)
{
	__atomic_add_fetch(&after.seq, 1, __ATOMIC_RELEASE);
}

/* At the arming release (under the mutex): the line's copy. */
static void after_arm(uint32_t idx, uint32_t armer, uint64_t addr)
{
	uint64_t line = addr & ~(uint64_t)(HC_LINE - 1);

	if (!hc_rt.opt.lock_pset_after)
		return;
	after_begin();
	ST_REL(after.slot1, 0);
	for (uint32_t i = 0; i < 8; i++)
		ST(after.copy[i], near_word(line + 8 * (uint64_t)i));
	ST_REL(after.line, line);
	ST_REL(after.armer, armer);
	ST_REL(after.writer, 0);
	ST_REL(after.bytes, 0);
	ST(after.live, 0);
	ST_REL(after.slot1, idx + 1);
	after_end();
}

/* At a later release of the armed set's mutex (under it): did this
   critical section change the line? */
static __attribute__((noinline)) void after_release(struct rt_thread *t, struct lock_slot *s, uint32_t me)
{
	uint64_t cur[8], old[8], line = LD(after.line), bytes;
	uint32_t pos = me & 3;

	if (LD(after.live) && watch__pset_idle()) {     /* the set ended: nothing to follow */
		ST_REL(after.slot1, 0);
		return;
	}
	for (uint32_t i = 0; i < 8; i++) {
		cur[i] = near_word(line + 8 * (uint64_t)i);
		old[i] = LD(after.copy[i]);
	}
	bytes = hc_lock_line_bytes(old, cur);
	if (!bytes)
		return;
	if (LD(after.live) && LD(s->pthread[pos]) != me)
		capture_ctx(t, s, me, 3);
	after_begin();
	if (LD(after.slot1) == (uint32_t)(s - slots) + 1 && LD(after.line) == line) {
		for (uint32_t i = 0; i < 8; i++)
			ST(after.copy[i], cur[i]);
		if (!LD(after.live)) {
			after_end();
			return;
		}
		ST_REL(after.bytes, bytes);
		ST_REL(after.wctx, LD(s->pthread[pos]) == me ? site_ctx(s, pos, line, LD(s->pctx[pos])) : 0);
		ST_REL(after.writer, me);
	}
	after_end();
	t->cnt.lock_after_writes++;
}

int lock__pset_after(struct rt_thread *t, uint32_t slot, uint32_t armer, uint64_t acc, uint32_t len,
                     uint32_t *peer, uint32_t *ctx)
{
	uint32_t q0, w, c;
	uint64_t line, bytes;
	int v;

	if (!hc_rt.opt.lock_pset_after)
		return -1;
	/* The seqlock's reader: the fields are acquire loads, so the seq's
	   re-read cannot move before any of them — what an acquire fence
	   before the re-read gave, without the fence, which TSan does not
	   model (gcc's -Wtsan). On x86-64 the same movs. */
	q0 = __atomic_load_n(&after.seq, __ATOMIC_ACQUIRE);
	if (q0 & 1 || LD_ACQ(after.slot1) != (slot & (RT_LOCK_SLOTS - 1)) + 1 || LD_ACQ(after.armer) != armer)
		return -1;
	w = LD_ACQ(after.writer);
	c = LD_ACQ(after.wctx);
	line = LD_ACQ(after.line);
	bytes = LD_ACQ(after.bytes);
	if (__atomic_load_n(&after.seq, __ATOMIC_RELAXED) != q0 || !w)
		return -1;
	if (w == t->id.index + 1)
		return -2;
	if (!c)
		return -3;
	v = hc_lock_after_verdict(line, bytes, acc, len);
	if (v < 0)
		return -1;
	*peer = w - 1;
	*ctx = c;
	return v;
}

static void snapshot(struct rt_thread *t, struct rt_lock_snap *sn, struct lock_slot *s, const void *m)
{
	uint64_t lo, cand, page = ~(uint64_t)0;
	bool readable = false;

	if (!hc_guard_enter(t))
		return;
	if (!LD(s->lo))
		neighbourhood(s, (uint64_t)(uintptr_t)m);
	lo = LD(s->lo);
	cand = LD(s->cand) & ~LD(s->bad);
	/* the neighbourhood's 512 bytes span at most two pages: one mincore
	   a page (not a word) when it is not the mutex's own */
	for (uint32_t i = 0; i < 64; i++) {
		uint64_t w = lo + 8 * (uint64_t)i;

		if (!(cand >> i & 1))
			continue;
		if (w >> 12 != page) {
			page = w >> 12;
			readable = word_readable(w, m);
		}
		if (!readable) {
			cand &= ~(1ull << i);
			continue;
		}
		sn->w[i] = near_word(w);
	}
	sn->slot = (uint32_t)(s - slots) + 1;
	sn->lo = lo;
	sn->cand = cand;
	sn->age = (uint32_t)++t->cnt.lock_snaps;
	hc_guard_leave(t);
}

/* The release snapshot of slot idx, or (want_free) the one to replace
   (hc_lock_way); NULL when none holds it. */
static struct rt_lock_snap *release_way(struct rt_thread *t, uint32_t idx, bool want_free)
{
	uint32_t slot[RT_LOCK_WAYS], age[RT_LOCK_WAYS];
	int w;

	for (uint32_t i = 0; i < RT_LOCK_WAYS; i++) {
		slot[i] = t->lock.rsnap[i].slot;
		age[i] = t->lock.rsnap[i].age;
	}
	w = hc_lock_way(slot, age, idx + 1, want_free, hc_rt.opt.lock_ways);
	return w < 0 ? NULL : &t->lock.rsnap[w];
}

static uint8_t diff_bytes(uint64_t a, uint64_t b)
{
	uint64_t x = a ^ b;
	uint8_t m = 0;

	for (uint32_t j = 0; j < 8; j++)
		if (x >> (8 * j) & 0xff)
			m |= (uint8_t)(1u << j);
	return m;
}

static uint64_t changed_since(const struct rt_lock_snap *sn, uint8_t *bytes)
{
	uint64_t lo = sn->lo, cand = sn->cand, changed = 0;

	for (uint32_t i = 0; i < 64; i++) {
		uint64_t v;

		if (!(cand >> i & 1))
			continue;
		v = near_word(lo + 8 * (uint64_t)i);
		bytes[i] = diff_bytes(v, sn->w[i]);
		if (v != sn->w[i])
			changed |= 1ull << i;
	}
	return changed;
}

/* The words of mask (bit i: lo + 8 i) that are no synchronisation
   object's (§5.37: a condition variable beside the mutex changes in every
   critical section that signals it; exact mode never counts it). */
static uint64_t not_sync(uint64_t lo, uint64_t mask)
{
	if (!sync_on)
		return mask;
	for (uint32_t i = 0; i < 64; i++)
		if (mask >> i & 1 && hc_sync_words_has(&sync_words, lo + 8 * (uint64_t)i, 8))
			mask &= ~(1ull << i);
	return mask;
}

static void line_mask(uint64_t lo, uint64_t changed, uint64_t *lines)
{
	*lines = 0;
	for (uint32_t i = 0; i < 64; i++)
		if (changed && hc_lock_verdict(lo, changed, i) >= 0)
			*lines |= 1ull << i;
}

/* At the release of the snapshot's mutex (under it): what changed, and
   the word to watch; armed after the real unlock (lock__pset_after). */
static __attribute__((noinline)) void pset_release(struct rt_thread *t, struct lock_slot *s, uint32_t me)
{
	uint64_t lo = t->lock.snap.lo, cand = t->lock.snap.cand, changed = 0, lines, pick;
	uint32_t w = 64;

	t->lock.snap.slot = 0;
	if (!hc_rt.opt.lock_draw)
		t->lock.pnext = t->det.nsamples + (hc_rt.opt.lock_sets ? hc_rt.opt.lock_sets : 1);
	t->lock.parm_k = 1;
	if (LD(s->lo) != lo)
		return;
	changed = changed_since(&t->lock.snap, t->lock.vbytes);
	if (!changed) {
		t->cnt.lock_pset_unchanged++;
		return;
	}
	line_mask(lo, changed, &lines);
	if (hc_rt.opt.lock_draw == 1 || hc_rt.opt.lock_draw == 2) {
		/* §5.65: one of the changed lines, drawn uniformly (the trap
		   weighs the k lines: each moves once to its next reader in
		   exact mode); a choice by word watched one line for every set
		   (mw_cond: the head/tail line, never the task line) */
		uint32_t k;
		uint64_t m = hc_lock_draw_line(lo, not_sync(lo, lines & cand & ~LD(s->bad)),
		                               hc_xorshift64(&t->det.rng, 0x9e3779b97f4a7c15ull), &k);
		uint64_t r = hc_xorshift64(&t->det.rng, 0x9e3779b97f4a7c15ull), untried;

		/* the words other threads were seen reading after this
		   thread's releases (mw_cond: main reads head/tail, never
		   done, after the worker's; `good` counts the releaser's own
		   reads too), round robin, now and then (1 in 4) an untried one
		   of the line. Not the words it left unchanged first (tried,
		   §5.65: lock_queue -t 4's workers read the head the previous
		   worker changed first, a true move in exact mode) */
		pick = m & LD(s->pgood[me & 3]);
		untried = m & ~pick;
		if (!pick || (untried && (r >> 32) % 4 == 0))
			pick = untried;
		t->lock.parm_k = k ? k : 1;
		HC_DEBUG_LOG(HC_DBG_WATCH, "T%u lock set drawn: changed %#llx, %u lines, words %#llx of %#llx "
		             "(good %#llx, bad %#llx; neighbourhood %#llx)",
		             t->id.index, (unsigned long long)changed, k, (unsigned long long)pick, (unsigned long long)m,
		             (unsigned long long)LD(s->pgood[me & 3]), (unsigned long long)LD(s->bad), (unsigned long long)lo);
	} else {
		/* the good words first; one choice in HPCRUN_COMM_LOCK_UNTRIED
		   among the untried ones (§5.71) */
		bool untried = hc_rt.opt.lock_untried && ++t->lock.pexplore >= hc_rt.opt.lock_untried;

		pick = hc_lock_pick_words(lines, cand, LD(s->good), LD(s->bad), untried);
		if (hc_rt.opt.lock_lines) {
			/* §5.71: the changed lines in turn (not the
			   synchronisation objects'), a good word of the line
			   first */
			uint64_t byword = pick, eligible = not_sync(lo, lines & cand & ~LD(s->bad)),
			         m = hc_lock_next_line(lo, eligible, &t->lock.pline);

			pick = hc_lock_pick_words(m, ~0ull, LD(s->good), 0, untried);
			if (hc_rt.opt.lock_lines > 1) {   /* the line stands for the k changed lines */
				uint32_t k;

				hc_lock_draw_line(lo, eligible, 0, &k);
				t->lock.parm_k = k ? k : 1;
			}
			if (pick && (!byword || ((lo + 8 * (uint64_t)__builtin_ctzll(pick)) ^
			                         (lo + 8 * (uint64_t)__builtin_ctzll(byword))) >= HC_LINE))
				t->cnt.lock_lines_other++;
		}
		if (untried) {
			t->lock.pexplore = 0;
			if (pick & ~LD(s->good))
				t->cnt.lock_untried++;
		}
	}
	for (uint32_t j = 0; j < 64 && pick; j++) {
		uint32_t i = (t->lock.pcur + j) & 63;

		if (pick >> i & 1) {
			w = i;
			break;
		}
	}
	if (w == 64)
		return;
	t->lock.pcur = w + 1;
	t->cnt.lock_pset_asked++;
	if (!acq_mode(s) && !watch__pset_idle()) {
		t->cnt.lock_pset_refused++;
		return;
	}
	if (LD(s->pthread[me & 3]) != me)
		capture_ctx(t, s, me, 3);
	if (LD(s->pthread[me & 3]) != me)
		return;
	memset(&t->lock.parm_e, 0, sizeof(t->lock.parm_e));
	t->lock.parm_e.thread = me - 1;
	t->lock.parm_e.ctx = site_ctx(s, me, lo + 8 * (uint64_t)w, LD(s->pctx[me & 3]));
	t->lock.parm_e.cpu = -1;
	t->lock.parm_e.time = process__now();
	t->lock.parm_e.len = 8;
	t->lock.parm_e.addr = lo + 8 * (uint64_t)w;
	t->lock.parm_e.line = t->lock.parm_e.addr & ~(uint64_t)(HC_LINE - 1);
	t->lock.parm_addr = t->lock.parm_e.addr;
	t->lock.parm_lo = lo;
	t->lock.parm_changed = changed;
	t->lock.parm_bytes = t->lock.vbytes[w];
	t->lock.parm_slot = (uint32_t)(s - slots);
	if (acq_mode(s)) {
		struct lock_pend *pd = &pend[s - slots];

		pd->e = t->lock.parm_e;
		pd->addr = t->lock.parm_addr;
		pd->lo = lo;
		pd->changed = changed;
		pd->bytes = t->lock.parm_bytes;
		pd->k = t->lock.parm_k;
		ST(pd->armer1, me);
		t->cnt.lock_acq_pending++;
		return;
	}
	t->lock.parm = true;
	after_arm((uint32_t)(s - slots), me - 1, t->lock.parm_addr);
}

/* At a hand-off (under the mutex): the releaser's prepared process-wide
   lock set armed now, by the acquirer, for the releaser (§5.61). */
static __attribute__((noinline)) void pend_arm(struct rt_thread *t, uint32_t idx, uint32_t rel)
{
	struct lock_pend *pd = &pend[idx];
	uint64_t all, n;

	ST(pd->armer1, 0);
	if (!hc_guard_enter(t))
		return;
	all = __atomic_exchange_n(&pset_handoffs, 0, __ATOMIC_RELAXED);
	n = capped(all, hc_rt.opt.lock_pset_cap);
	if (watch__pset_lock(t, &pd->e, pd->addr, idx, pd->lo, pd->changed, pd->bytes,
	                     (n ? n : 1) * hc_rt.opt.lock_ns * (pd->k > 1 ? pd->k : 1),
	                     rel - 1) == 0) {
		t->cnt.lock_acq_arms++;
		t->cnt.lock_draw_lines += hc_rt.opt.lock_draw ? pd->k : 0;
		scale_note(t, all, n);
	} else {
		t->cnt.lock_acq_refused++;
		__atomic_add_fetch(&pset_handoffs, all, __ATOMIC_RELAXED);   /* the next arm stands for them */
	}
	hc_guard_leave(t);
}

/* After the real unlock: arm the process-wide set (not under the mutex:
   an arm waits for the other CPUs' copies, ~0.1-0.5 ms here). */
static void pset_after(struct rt_thread *t)
{
	uint64_t all, n, wgt;

	t->lock.parm = false;
	if (!hc_guard_enter(t))
		return;
	all = __atomic_exchange_n(&pset_handoffs, 0, __ATOMIC_RELAXED);
	n = capped(all, hc_rt.opt.lock_pset_cap);
	wgt = (n ? n : 1) * hc_rt.opt.lock_ns;
	if (t->lock.parm_k > 1)
		wgt *= t->lock.parm_k;         /* the drawn line stands for the k lines changed (§5.65, §5.71) */
	if (watch__pset_lock(t, &t->lock.parm_e, t->lock.parm_addr, t->lock.parm_slot, t->lock.parm_lo,
	                     t->lock.parm_changed, t->lock.parm_bytes, wgt, HC_NONE) == 0) {
		struct lock_slot *s = &slots[t->lock.parm_slot & (RT_LOCK_SLOTS - 1)];

		t->cnt.lock_pset_arms++;
		t->cnt.lock_draw_lines += hc_rt.opt.lock_draw ? t->lock.parm_k : 0;
		scale_note(t, all, n);
		if (hc_rt.opt.lock_pset_acq == 2 && !LD(s->acq) &&
		    hc_lock_acq_switch(__atomic_add_fetch(&s->rel_arms, 1, __ATOMIC_RELAXED), LD(s->rel_verdicts))) {
			ST(s->acq, 1);
			t->cnt.lock_acq_switched++;
		}
		if (LD(after.slot1) == t->lock.parm_slot + 1 && LD(after.armer) == t->id.index)
			ST(after.live, 1);
	} else {
		t->cnt.lock_pset_refused++;
		if (LD(after.slot1) == t->lock.parm_slot + 1 && LD(after.armer) == t->id.index)
			ST_REL(after.slot1, 0);
	}
	hc_guard_leave(t);
}

int lock__pset_verdict(struct rt_thread *t, uint32_t slot, uint64_t lo, uint64_t changed, uint8_t bytes,
                       uint64_t bp_addr, uint64_t leaf, uint64_t acc, uint32_t len, uint32_t armer)
{
	struct lock_slot *s = &slots[slot & (RT_LOCK_SLOTS - 1)];
	uint32_t bit = bp_addr >= lo && bp_addr < lo + 64 * 8 ? (uint32_t)((bp_addr - lo) / 8) : 64;
	bool same = LD(s->lo) == lo && bit < 64;
	int v;

	if (loadmap__system_code(leaf)) {
		if (same)
			__atomic_fetch_or(&s->bad, 1ull << bit, __ATOMIC_RELAXED);
		return -2;
	}
	v = hc_lock_verdict(lo, changed, bit);
	if (hc_rt.opt.lock_pset_acq == 2 && same && armer != HC_NONE && !LD(s->acq))   /* another thread's trap */
		__atomic_add_fetch(&s->rel_verdicts, 1, __ATOMIC_RELAXED);
	if (hc_rt.opt.lock_bytes)
		v = hc_lock_verdict_bytes(v, bytes, lo + 8 * (uint64_t)bit, acc, len);
	if (same)
		__atomic_fetch_or(&s->good, 1ull << bit, __ATOMIC_RELAXED);
	if (same && armer != HC_NONE && armer != t->id.index)    /* another thread read it after armer's release */
		__atomic_fetch_or(&s->pgood[(armer + 1) & 3], 1ull << bit, __ATOMIC_RELAXED);
	return v;
}

/* Does [lo, hi) hold a mutex the program locks (its table slot names it)?
   The lock sets watch such a block (a queue's indices and items beside
   its mutex: lock_queue); reader sets leave it to them (§5.57). Signal
   context: loads only. */
bool lock__in_block(uint64_t lo, uint64_t hi)
{
	if (!lock_on)
		return false;
	for (uint32_t i = 0; i < RT_LOCK_SLOTS; i++) {
		uint64_t m = LD(slots[i].mutex);

		if (m >= lo && m < hi)
			return true;
	}
	return false;
}

/* The lock weights' hand-offs so far, weighed after the caps and all
   (HPCRUN_COMM_READER_SCALE, §5.57). Signal context: loads. */
void lock__scale(uint64_t *weighed, uint64_t *total)
{
	*weighed = __atomic_load_n(&scale_weighed, __ATOMIC_RELAXED);
	*total = __atomic_load_n(&scale_total, __ATOMIC_RELAXED);
}

/* Has any thread taken a mutex another thread released (reader sets'
   weights are on the lock sets' scale, §5.57)? Signal context: a load. */
bool lock__seen(void)
{
	return LD(handoff_seen) != 0;
}

/* Is addr in a mutex the program locked (its table slot names it)?
   Signal context: loads only. */
bool lock__mutex_word(uint64_t addr)
{
	uint64_t a = addr & ~(uint64_t)7;

	if (!lock_on || !hc_rt.opt.lock_words)
		return false;
	for (uint64_t k = 0; k < sizeof(pthread_mutex_t) && k <= a; k += 8)
		if (LD(slot_of((const void *)(uintptr_t)(a - k))->mutex) == a - k)
			return true;
	return false;
}

static __attribute__((noinline)) void released(const void *m)
{
	struct rt_thread *t = hc_self;
	struct lock_slot *s;
	uint32_t me;

	if (!t || t->safety.busy || !hc_rt.ready || hc_rt.stopping)
		return;     /* the runtime's own work on this thread (libunwind's locks) */
	s = slot_of(m);
	me = t->id.index + 1;
	if (LD(s->mutex) != (uint64_t)(uintptr_t)m) {
		lock__sync_note(m, sizeof(pthread_mutex_t));   /* §5.37: once a slot takeover */
		ST(s->lo, 0);
		ST(s->good, 0);
		ST(s->bad, 0);
		for (int p = 0; p < 4; p++) {
			ST(s->pthread[p], 0);
			ST(s->ptries[p], 0);
			ST(s->pgood[p], 0);
		}
		ST(s->want, 0xf);
		ST(s->releaser, 0);
		ST(s->rel_arms, 0);
		ST(s->rel_verdicts, 0);
		ST(s->acq, 0);
		ST(s->mutex, (uint64_t)(uintptr_t)m);
	}
	if (__builtin_expect(LD(s->want) >> (me & 3) & 1, 0) && capture_ctx(t, s, me, 2))
		__atomic_fetch_and(&s->want, ~(1u << (me & 3)), __ATOMIC_RELAXED);
	if (__builtin_expect(LD(after.slot1) == (uint32_t)(s - slots) + 1, 0) && hc_rt.opt.lock_pset_after)
		after_release(t, s, me);
	if (t->lock.snap.slot == (uint32_t)(s - slots) + 1)
		pset_release(t, s, me);
	else if (hc_rt.opt.lock_verdict && t->watch.opened &&
	         t->det.nsamples + hc_rt.opt.lock_verdict_early >= t->lock.next_n)
		snapshot(t, release_way(t, (uint32_t)(s - slots), true), s, m);   /* compared at its next hand-off (acquired) */
	if (LD(s->releaser) != me)
		ST(s->releaser, me);
	if (t->lock.open && t->lock.slot == (uint32_t)(s - slots))
		t->lock.open = false;      /* its critical section is over */
	if (hc_rt.opt.lock_draw && hc_rt.opt.lock_pset && !t->watch.opened && t->det.nsamples >= RT_LOCK_WARM &&
	    t->det.nsamples >= t->lock.pnext) {
		/* §5.65: due by this thread's samples, taken by the next
		   critical section of any gated thread */
		t->lock.pnext = t->det.nsamples + (hc_rt.opt.lock_sets ? hc_rt.opt.lock_sets : 1);
		ST(draw_token, hc_rt.opt.lock_draw == 3 ? (uint32_t)(s - slots) + 1 : 1);
		t->cnt.lock_draw_tokens++;
	}
}

/* What a lock set's trap weighs: the hand-offs to the thread since its
   last lock set took one (it stands for them: Horvitz-Thompson), at most
   HPCRUN_COMM_LOCK_CAP of them (a thread whose sets are seldom armed would
   put one trap's thousands of hand-offs on one pair), each one transfer of
   HPCRUN_COMM_LOCK_NS: what a timer sample would credit on average to an
   access of that cost (period x cost / period). */
static uint64_t weight(const struct rt_thread *t, uint64_t *n)
{
	*n = capped(t->lock.pending, hc_rt.opt.lock_cap);
	return (*n ? *n : 1) * hc_rt.opt.lock_ns;
}

/* HPCRUN_COMM_LOCK_DRAW (§5.65) for an open thread's lock set: one of the
   lines changed since its release (changed), drawn, and the words of it
   other threads were seen reading (a good word; now and then an untried
   one), up to the registers; *k the lines it stands for. Else (no such
   line) the n words hc_lock_words took. Under the guard. */
static uint32_t draw_words(struct rt_thread *t, struct lock_slot *s, uint64_t changed, uint32_t *words,
                           uint32_t n, uint32_t *k)
{
	uint64_t lo = LD(s->lo), lines, m, pick, untried, r, first;
	uint32_t d = hc_rt.dcfg.nwatch < HC_MAX_WATCH ? hc_rt.dcfg.nwatch : HC_MAX_WATCH, j = 0;

	line_mask(lo, changed, &lines);
	m = hc_lock_draw_line(lo, not_sync(lo, lines & LD(s->cand) & ~LD(s->bad)),
	                      hc_xorshift64(&t->det.rng, 0x9e3779b97f4a7c15ull), k);
	if (!m) {
		*k = 1;
		return n;
	}
	r = hc_xorshift64(&t->det.rng, 0x9e3779b97f4a7c15ull);
	pick = m & LD(s->good);
	untried = m & ~pick;
	if (!pick || (untried && (r >> 32) % 4 == 0))
		pick = untried;
	/* the words the releasers did not change first: the reader's first
	   access of the line, which the first trap of the set stands for, is
	   most often another word (lock_queue's consumer reads its head
	   before the tail and item main changed: exact mode counts that move
	   false; with the changed words first its ff fell from 3/3 to 1/3) */
	first = pick & ~changed;
	for (uint32_t i = 0; i < 64 && j < d; i++)
		if (first >> i & 1)
			words[j++] = i;
	for (uint32_t i = 0; i < 64 && j < d; i++)
		if (pick >> i & 1 && !(first >> i & 1))
			words[j++] = i;
	return j;
}

static __attribute__((noinline)) void acquired(const void *m)
{
	struct rt_thread *t = hc_self;
	struct lock_slot *s;
	struct hc_detect_result res;
	struct hc_bb_entry e;
	uint64_t addr[HC_MAX_WATCH], now, wn;
	uint32_t rel, idx, words[HC_MAX_WATCH], n, cursor, pos, kdraw, tok;
	struct rt_lock_snap *sn;
	int err;

	if (!t || t->safety.busy || !hc_rt.ready || hc_rt.stopping)
		return;     /* the runtime's own work on this thread (libunwind's locks) */
	s = slot_of(m);
	if (LD(s->mutex) != (uint64_t)(uintptr_t)m)
		return;
	if (hc_rt.opt.lock_pset && !t->watch.opened && !t->lock.snap.slot) {
		if (!hc_rt.opt.lock_draw) {
			if (t->det.nsamples >= RT_LOCK_WARM && t->det.nsamples >= t->lock.pnext)
				snapshot(t, &t->lock.snap, s, m);
		} else if ((tok = LD(draw_token)) && (hc_rt.opt.lock_draw != 3 || tok == (uint32_t)(s - slots) + 1) &&
		           __atomic_compare_exchange_n(&draw_token, &tok, 0, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			/* =3 (§5.71): the token is the mutex's whose release made
			   it due (any mutex's next critical section starved
			   lock_queue's second mutex) */
			/* §5.65: whichever gated thread's critical section comes
			   next, not the sampled thread's own (mw_cond -O2 -t 2: the
			   busy worker armed 77 of 83 sets, main's direction starved) */
			snapshot(t, &t->lock.snap, s, m);
			t->cnt.lock_draw_taken++;
		}
	}
	rel = LD(s->releaser);
	if (rel == 0 || rel == t->id.index + 1)
		return;
	t->cnt.lock_handoffs++;
	if (__builtin_expect(!LD(handoff_seen), 0))
		ST(handoff_seen, 1);
	if (hc_rt.opt.lock_pset)
		__atomic_add_fetch(&pset_handoffs, 1, __ATOMIC_RELAXED);
	t->lock.pending++;
	idx = (uint32_t)(s - slots);
	pos = rel & 3;
	if (__builtin_expect(LD(pend[idx].armer1) == rel, 0) && hc_rt.opt.lock_pset_acq)
		pend_arm(t, idx, rel);
	/* the verdict of a lock set taken here; not while the thread is inside
	   the critical section of a set armed on another mutex (nested locks),
	   whose verdict it would replace */
	if (t->det.armed && t->det.lock_set && t->lock.open && t->lock.slot != idx) {
		t->cnt.lock_verdict_nested++;
	} else if ((sn = release_way(t, idx, false)) && LD(s->lo) == sn->lo) {
		t->lock.vchanged = changed_since(sn, t->lock.vbytes);
		t->lock.vvalid = true;
		sn->slot = 0;
	} else if (!(t->det.armed && t->det.lock_set && t->lock.slot == idx)) {
		t->lock.vvalid = false;
	}
	/* its lock set on this mutex still armed: the new releaser's, no re-arm */
	if (t->det.armed && t->det.lock_set && t->lock.slot == idx) {
		/* under the guard: a sample's handler may replace the set */
		if (!hc_guard_enter(t))
			return;
		if (!t->det.armed || !t->det.lock_set) {
			hc_guard_leave(t);
			return;
		}
		if (LD(s->pthread[pos]) == rel) {
			now = process__now();
			for (uint32_t i = 0; i < t->det.nwatch; i++) {
				t->det.start[i].thread = rel - 1;
				t->det.start[i].ctx = site_ctx(s, pos, t->det.start[i].addr, LD(s->pctx[pos]));
				t->det.start[i].time = now;
			}
			t->det.lock_weight = weight(t, &wn) * (t->lock.kdraw ? t->lock.kdraw : 1);
			scale_note(t, t->lock.pending, wn);
			t->lock.pending = 0;
			t->lock.open = true;
			t->cnt.lock_sets_kept++;
		} else {
			t->lock.open = false;
			__atomic_fetch_or(&s->want, 1u << pos, __ATOMIC_RELAXED);
		}
		hc_guard_leave(t);
		return;
	}
	if (t->det.nsamples < t->lock.next_n)
		return;
	if (t->det.armed && !t->det.start_set) {
		t->cnt.lock_busy++;
		return;
	}
	/* judged by what changed since its last release (§5.38): with
	   HPCRUN_COMM_LOCK_VERDICT_WAIT, not armed before that release's
	   snapshot exists (taken at its next release of a mutex while due;
	   one snapshot a thread: pigz's threads alternate mutexes and never
	   had one, 0 lock traps); else an unknown verdict is true (§5.35) */
	if (hc_rt.opt.lock_verdict_wait && t->watch.opened && !t->lock.vvalid) {
		t->cnt.lock_verdict_unknown++;
		return;
	}
	if (LD(s->pthread[pos]) != rel) {
		__atomic_fetch_or(&s->want, 1u << pos, __ATOMIC_RELAXED);   /* its next release says where it is */
		t->cnt.lock_no_ctx++;
		return;
	}
	if (!hc_guard_enter(t))
		return;
	err = errno;
	/* A start set opens the registers without asking the switch gate
	   (watch.c); a lock set must ask: a thread that blocks on its locks
	   switches often, and opened registers cost every switch for the
	   thread's life (lock_queue -t 4: CPU 1.9x native against 1.02x).
	   Not before the thread's first samples either: the gate has no
	   window yet then and says yes (a first hand-off at the thread's
	   start opened them, and the regular sets used them from then on) */
	if (!t->watch.opened && (t->det.nsamples < RT_LOCK_WARM || !thread__watch_allowed(t))) {
		t->cnt.lock_gated++;
		t->lock.next_n = t->det.nsamples + hc_rt.opt.lock_sets;
		errno = err;
		hc_guard_leave(t);
		return;
	}
	if (!LD(s->lo))
		neighbourhood(s, (uint64_t)(uintptr_t)m);
	cursor = LD(s->cursor);
	n = hc_lock_words(LD(s->cand), LD(s->good), LD(s->bad), &cursor,
	                  hc_rt.dcfg.nwatch < HC_MAX_WATCH ? hc_rt.dcfg.nwatch : HC_MAX_WATCH, words);
	ST(s->cursor, cursor);
	kdraw = 1;
	if (hc_rt.opt.lock_draw == 2 && t->lock.vvalid && t->lock.vchanged)
		n = draw_words(t, s, t->lock.vchanged, words, n, &kdraw);
	if (hc_rt.opt.lock_keep && t->lock.vvalid) {   /* §5.62: the spare registers on other changed lines */
		uint32_t nf = hc_lock_fill(LD(s->lo), t->lock.vchanged, LD(s->cand) & ~LD(s->bad), words, n,
		                          hc_rt.dcfg.nwatch < HC_MAX_WATCH ? hc_rt.dcfg.nwatch : HC_MAX_WATCH);

		t->cnt.lock_keep_filled += nf - n;
		n = nf;
	}
	for (uint32_t i = 0; i < n; i++)
		addr[i] = LD(s->lo) + 8 * (uint64_t)words[i];
	now = process__now();
	memset(&e, 0, sizeof(e));
	e.thread = rel - 1;
	e.ctx = LD(s->pctx[pos]);
	e.cpu = -1;
	e.time = now;
	e.len = 8;
	if (n && hc_detect_arm_lock(&hc_rt.dcfg, &t->det, &e, addr, n, weight(t, &wn) * kdraw, now, &res)) {
		record__apply_set(t, &res);
		if (t->det.armed) {
			t->lock.kdraw = kdraw;
			t->cnt.lock_draw_lines += hc_rt.opt.lock_draw > 1 ? kdraw : 0;
			scale_note(t, t->lock.pending, wn);
			for (uint32_t i = 0; i < t->det.nwatch; i++)
				t->det.start[i].ctx = site_ctx(s, pos, t->det.start[i].addr, e.ctx);
			t->cnt.lock_sets++;
			t->lock.slot = idx;
			t->lock.lo = LD(s->lo);
			t->lock.open = true;
			t->lock.next_n = t->det.nsamples + hc_rt.opt.lock_sets;
			t->lock.pending = 0;
		}
	}
	errno = err;
	hc_guard_leave(t);
}

/* A trap of the thread's lock set (watch.c; signal context): false if it
   is not the program's communication — the set's critical section is over
   (late), or system code made the access (the lock implementation). The
   word learns which it was. */
bool lock__trap(struct rt_thread *t, uint64_t bp_addr, uint64_t leaf, uint64_t acc, uint32_t len)
{
	struct lock_slot *s = &slots[t->lock.slot & (RT_LOCK_SLOTS - 1)];
	uint64_t lo = t->lock.lo, bit = 0;

	if (bp_addr >= lo && bp_addr < lo + 64 * 8 && LD(s->lo) == lo)
		bit = 1ull << ((bp_addr - lo) / 8);
	if (!t->lock.open) {
		t->cnt.lock_traps_late++;
		return false;
	}
	if (loadmap__system_code(leaf)) {
		if (bit)
			__atomic_fetch_or(&s->bad, bit, __ATOMIC_RELAXED);
		t->cnt.lock_traps_system++;
		return false;
	}
	if (bit)
		__atomic_fetch_or(&s->good, bit, __ATOMIC_RELAXED);
	t->lock.verdict = 1;
	if (hc_rt.opt.lock_verdict) {
		if (!t->lock.vvalid || !bit) {
			t->cnt.lock_verdict_unknown++;

		} else {
			uint32_t b = (uint32_t)__builtin_ctzll(bit);
			int v = hc_lock_verdict(lo, t->lock.vchanged, b);

			if (hc_rt.opt.lock_bytes)
				v = hc_lock_verdict_bytes(v, t->lock.vbytes[b], lo + 8 * (uint64_t)b, acc, len);

			if (v < 0) {      /* nothing of its line changed: no transfer */
				t->cnt.lock_verdict_none++;
				t->lock.open = false;
				return false;
			}
			t->lock.verdict = v;
			if (v)
				t->cnt.lock_verdict_true++;
			else
				t->cnt.lock_verdict_false++;
		}
	}
	t->lock.open = false;
	t->cnt.lock_traps++;
	return true;
}

/* HPCRUN_COMM_LOCK_KEEP (§5.62): after a lock set's trap the thread
   still holds the mutex and may read the other lines its releaser changed
   (mw_cond's worker reads head/tail first, the task line after): the set
   re-armed on its words of other lines than the trapped one (start: the
   set's entries before the trap, n of them), each trap its weight, until
   the thread releases the mutex (a later trap is late) or none is left.
   Signal context (the trap handler): the arm a sample's. */
void lock__keep(struct rt_thread *t, const struct hc_bb_entry *start, uint32_t n, uint64_t weight, uint64_t line)
{
	struct hc_detect_result res;
	struct hc_bb_entry keep[HC_MAX_WATCH];
	uint64_t addr[HC_MAX_WATCH];
	uint32_t k = 0;

	for (uint32_t i = 0; i < n && k < HC_MAX_WATCH; i++)
		if (start[i].line != line) {
			keep[k] = start[i];
			addr[k] = start[i].addr;
			k++;
		}
	if (!k)
		return;
	if (!hc_detect_arm_lock(&hc_rt.dcfg, &t->det, &keep[0], addr, k, weight, process__now(), &res)) {
		t->cnt.lock_keep_ends++;
		return;
	}
	record__apply_set(t, &res);
	if (!t->det.armed) {
		t->cnt.lock_keep_ends++;
		return;
	}
	for (uint32_t i = 0; i < t->det.nwatch && i < k; i++) {
		t->det.start[i].thread = keep[i].thread;
		t->det.start[i].ctx = keep[i].ctx;
		t->det.start[i].time = keep[i].time;
	}
	t->lock.open = true;
	t->cnt.lock_keep_rearms++;
}

/* ---- the interposed calls ---- */

/* The runtime's own locks (flush.c, loadmap.c) are not the program's. */
#define FROM_PROGRAM() (lock_on && !loadmap__pc_in_self((uint64_t)(uintptr_t)__builtin_return_address(0)))

#define SYNC_NOTE(o) do { \
		if (__builtin_expect(sync_on, 0)) \
			lock__sync_note((o), sizeof(*(o))); \
	} while (0)
/* A mutex: noted by released() when it takes the mutex's slot (once, not
   a table probe a call: +5 ns on an uncontended lock + unlock pair); with
   lock sets off, at every call. */
#define SYNC_NOTE_MUTEX(m) do { \
		if (__builtin_expect(sync_on, 0) && !lock_on) \
			lock__sync_note((m), sizeof(*(m))); \
	} while (0)

HC_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
	int r;

	SYNC_NOTE_MUTEX(m);
	r = RT_REAL(pthread_mutex_lock)(m);

	if (__builtin_expect(lock_on, 0) && r == 0 && FROM_PROGRAM())
		acquired(m);
	return r;
}

HC_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m)
{
	int r;

	SYNC_NOTE_MUTEX(m);
	r = RT_REAL(pthread_mutex_trylock)(m);

	if (__builtin_expect(lock_on, 0) && r == 0 && FROM_PROGRAM())
		acquired(m);
	return r;
}

HC_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts)
{
	int r;

	SYNC_NOTE_MUTEX(m);
	r = RT_REAL(pthread_mutex_timedlock)(m, ts);

	if (__builtin_expect(lock_on, 0) && r == 0 && FROM_PROGRAM())
		acquired(m);
	return r;
}

HC_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
	struct rt_thread *t;
	int r;

	if (__builtin_expect(lock_on, 0) && FROM_PROGRAM())
		released(m);
	r = RT_REAL(pthread_mutex_unlock)(m);
	if (__builtin_expect(lock_on, 0) && (t = hc_self) && __builtin_expect(t->lock.parm, 0)) {
		int e = errno;

		pset_after(t);
		errno = e;
	}
	return r;
}

/* The wait releases the mutex and takes it again: a release, then an
   acquisition (also after a timeout: the mutex is held again). */
HC_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	bool on = __builtin_expect(lock_on, 0) && FROM_PROGRAM();
	int r;

	if (on)
		released(m);
	SYNC_NOTE(c);
	SYNC_NOTE_MUTEX(m);
	if (on && hc_self)
		hc_self->lock.parm = false;     /* not armed under the wait (lock_pset_asked counts it) */
	r = RT_REAL_V(pthread_cond_wait, "GLIBC_2.3.2")(c, m);
	if (on && (r == 0 || r == ETIMEDOUT))
		acquired(m);
	return r;
}

HC_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts)
{
	bool on = __builtin_expect(lock_on, 0) && FROM_PROGRAM();
	int r;

	if (on)
		released(m);
	SYNC_NOTE(c);
	SYNC_NOTE_MUTEX(m);
	if (on && hc_self)
		hc_self->lock.parm = false;     /* not armed under the wait (lock_pset_asked counts it) */
	r = RT_REAL_V(pthread_cond_timedwait, "GLIBC_2.3.2")(c, m, ts);
	if (on && (r == 0 || r == ETIMEDOUT))
		acquired(m);
	return r;
}

/* Barriers: glibc's pthread_barrier_wait reads and writes the barrier's
   words in every thread at every step (halo_bar: most of what the sampler
   found at -O2 -t 4 before §5.37). Noted at init and at every wait (a
   barrier initialised before the runtime was ready). */
HC_EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a, unsigned n)
{
	SYNC_NOTE(b);
	return RT_REAL(pthread_barrier_init)(b, a, n);
}

HC_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
	SYNC_NOTE(b);
	return RT_REAL(pthread_barrier_wait)(b);
}
