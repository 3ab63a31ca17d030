/* SPDX-License-Identifier: BSD-3-Clause */
/* model.c — the exact mode's ownership model (after Zhao et al., VEE'11):
   every access of every thread updates the state of the cache lines it
   touches, and each movement of a line from its last writer to another
   thread is one transfer. Pure (no system calls, memory from the caller's
   allocator); no signal context; thread-safe with per-line spinlocks.

   THE RULES. A line (64 bytes, or 128 to model adjacent-line prefetch) has
   a set of holders H (threads with a copy), a last writer w (or none) and
   the set of bytes W written since the last invalidation. An access of
   bytes B of the line by thread t is, in order:

   R1 read, t in H: a hit. Nothing changes, nothing is counted.
   R2 read, t not in H (read miss): t joins H. If w exists and w != t, this
      is ONE TRANSFER (w -> t), TRUE sharing iff B and W share a byte, FALSE
      otherwise. With no writer (or w == t) it is a cold miss: no transfer.
   W1 write, H = {t} (t the sole holder): a hit; W |= B, w = t.
   W2 write, t in H with others (upgrade): every other copy is invalidated
      (H = {t}), W = B, w = t. No transfer: t already had the data (its
      read miss counted the transfer); the invalidated threads pay at their
      next access (R2).
   W3 write, t not in H (write miss): if w exists and w != t, ONE TRANSFER
      (w -> t), true iff B and W share a byte (t overwrites data w wrote);
      else a cold miss. Then H = {t}, W = B, w = t.
   A1 an atomic read-modify-write (fetch_add, exchange, compare-exchange,
      failed or not: x86 takes the line exclusively either way) is one
      access that reads and writes B: it follows W1-W3 (the read part
      cannot miss once the line is taken for writing). Atomic loads are
      reads, atomic stores writes.
   S  an access that crosses a line boundary is split: one access per line,
      each with its part of B; a memcpy reads its source range and writes
      its destination range, a memset writes its range, line by line.
   Invariant: w, when it exists, is in H (only a write removes holders,
   and the writer stays). A thread that exits stays in the sets it was in:
   its last writes still move to the next reader (memory reused across
   thread lifetimes really moves between caches).

   P  THE PEER'S CONTEXT (the writer's side of a transfer's code pair).
   P1 a false transfer: the store that made w the writer, i.e. the first
      store of its ownership (W1 with another last writer, W2, W3): the
      store that invalidated the other copies, the reader's among them if
      it held one. No byte the reader touches was written by w, so no
      other store of w is closer to the cause.
   P2 a true transfer (cfg.last_writer): w's LAST STORE SITE when that
      site wrote a word (8 bytes) of B: the data read was produced by the
      last writer's last store to it (generations.c: the rounds loop that
      rewrites a slice, line 47, not the slice's first store, line 44).
      A site is the caller's tag of the store (exact.c: the store
      instruction); a write of the owner with another tag makes it the last
      site (its context asked then, its words start over); a write of the
      same site adds its words.
   P3 a true transfer whose words the last site did not write: the
      ownership's first store (P1). The stores of sites between the first
      and the last are not kept (one context per line); counted
      (peer_owner_true).
   Without cfg.last_writer every transfer takes P1 (sessions before 16).

   The contexts are asked from the writing thread (its ctx callback)
   whenever a write changes w or invalidates copies, i.e. at the first
   write of each ownership, and (cfg.last_writer) when a write of the
   owner changes its last store site; later writes that change nothing
   (the fast path, hc_xmodel_hit) keep them. Per holder, no read bytes are
   kept: a transfer's kind is decided at the miss, by the bytes of the
   missing access.

   CONCURRENCY. A line's fields are written under its spinlock (the
   `lock` word) and read by the fast path with relaxed atomics; a fast
   path that reads a state being changed is ordered before the change.
   Shadow pages are installed in the directory with a CAS. Holder ids
   >= 64 live in an overflow bitmap that grows (copy, then publish; the
   old copy is never freed, so a racing reader stays valid). */
#include <errno.h>
#include <string.h>
#include "exact/model.h"

#define LEAF_LINES (1ull << HC_XLEAF_BITS)

size_t hc_xmodel_dir_bytes(unsigned line_shift)
{
	return (size_t)(1ull << (HC_XADDR_BITS - line_shift - HC_XLEAF_BITS)) * sizeof(struct hc_xline *);
}

int hc_xmodel_init(struct hc_xmodel *m, const struct hc_xmodel_config *cfg)
{
	if (!cfg || (cfg->line_shift != 6 && cfg->line_shift != 7) || !cfg->alloc)
		return -EINVAL;
	memset(m, 0, sizeof *m);
	m->cfg = *cfg;
	m->line_size = 1ull << cfg->line_shift;
	m->ndir = 1ull << (HC_XADDR_BITS - cfg->line_shift - HC_XLEAF_BITS);
	m->dir = cfg->alloc(cfg->alloc_arg, hc_xmodel_dir_bytes(cfg->line_shift));
	return m->dir ? 0 : -ENOMEM;
}

static struct hc_xline *line_get(struct hc_xmodel *m, uint64_t la)
{
	struct hc_xline **slot = &m->dir[la >> HC_XLEAF_BITS];
	struct hc_xline *page = __atomic_load_n(slot, __ATOMIC_ACQUIRE), *fresh = NULL;

	if (!page) {
		fresh = m->cfg.alloc(m->cfg.alloc_arg, LEAF_LINES * sizeof(struct hc_xline));
		if (!fresh)
			return NULL;
		/* Losing the race leaks `fresh` (no free callback; rare: two
		   threads touching a new 16 MiB region at once). */
		if (__atomic_compare_exchange_n(slot, &page, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			page = fresh;
	}
	return &page[la & (LEAF_LINES - 1)];
}

const struct hc_xline *hc_xmodel_line(const struct hc_xmodel *m, uint64_t addr)
{
	uint64_t la = addr >> m->cfg.line_shift;
	const struct hc_xline *page;

	if (addr >> HC_XADDR_BITS)
		return NULL;
	page = __atomic_load_n(&m->dir[la >> HC_XLEAF_BITS], __ATOMIC_ACQUIRE);
	return page ? &page[la & (LEAF_LINES - 1)] : NULL;
}

bool hc_xline_holds(const struct hc_xline *l, uint32_t id)
{
	const uint64_t *o;

	if (id < 64)
		return (__atomic_load_n(&l->holders, __ATOMIC_RELAXED) >> id) & 1;
	o = __atomic_load_n(&l->over, __ATOMIC_ACQUIRE);
	id -= 64;
	return o && id / 64 < o[0] && ((__atomic_load_n(&o[1 + id / 64], __ATOMIC_RELAXED) >> (id % 64)) & 1);
}

static void lock(struct hc_xmodel *m, struct hc_xline *l)
{
	unsigned spins = 0;

	while (__atomic_exchange_n(&l->lock, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&l->lock, __ATOMIC_RELAXED)) {
			if (++spins >= 128 && m->cfg.yield) {
				m->cfg.yield();
				spins = 0;
			} else {
				__builtin_ia32_pause();
			}
		}
	}
}

static void unlock(struct hc_xline *l)
{
	__atomic_store_n(&l->lock, 0, __ATOMIC_RELEASE);
}

/* Add id to the holders (under the lock). false: no memory for the bitmap. */
static bool add_holder(struct hc_xmodel *m, struct hc_xline *l, uint32_t id)
{
	uint64_t *o, *n;
	uint64_t need, words;

	if (id < 64) {
		__atomic_store_n(&l->holders, l->holders | (1ull << id), __ATOMIC_RELAXED);
		return true;
	}
	id -= 64;
	need = id / 64 + 1;
	o = l->over;
	if (!o || o[0] < need) {
		words = o ? 2 * o[0] : 2;
		if (words < need)
			words = need;
		n = m->cfg.alloc(m->cfg.alloc_arg, (size_t)(words + 1) * sizeof *n);
		if (!n)
			return false;
		n[0] = words;
		for (uint64_t i = 0; o && i < o[0]; i++)
			n[1 + i] = __atomic_load_n(&o[1 + i], __ATOMIC_RELAXED);
		__atomic_store_n(&l->over, n, __ATOMIC_RELEASE);
		o = n;
	}
	__atomic_store_n(&o[1 + id / 64], o[1 + id / 64] | (1ull << (id % 64)), __ATOMIC_RELAXED);
	return true;
}

/* Make id the only holder (under the lock); returns how many copies of
   other threads were invalidated. */
static uint64_t only_holder(struct hc_xline *l, uint32_t id)
{
	uint64_t *o = l->over, gone, keep;

	keep = id < 64 ? 1ull << id : 0;
	gone = (uint64_t)__builtin_popcountll(l->holders & ~keep);
	__atomic_store_n(&l->holders, keep, __ATOMIC_RELAXED);
	for (uint64_t i = 0; o && i < o[0]; i++) {
		keep = id >= 64 && (id - 64) / 64 == i ? 1ull << ((id - 64) % 64) : 0;
		gone += (uint64_t)__builtin_popcountll(o[1 + i] & ~keep);
		__atomic_store_n(&o[1 + i], o[1 + i] & keep, __ATOMIC_RELAXED);
	}
	return gone;
}

/* Any holder other than id (under the lock)? */
static bool others_hold(const struct hc_xline *l, uint32_t id)
{
	const uint64_t *o = l->over;
	uint64_t keep = id < 64 ? 1ull << id : 0;

	if (l->holders & ~keep)
		return true;
	for (uint64_t i = 0; o && i < o[0]; i++) {
		keep = id >= 64 && (id - 64) / 64 == i ? 1ull << ((id - 64) % 64) : 0;
		if (o[1 + i] & ~keep)
			return true;
	}
	return false;
}

static void set_written(struct hc_xline *l, const uint64_t b[2], bool reset)
{
	for (int i = 0; i < 2; i++)
		__atomic_store_n(&l->written[i], (reset ? 0 : l->written[i]) | b[i], __ATOMIC_RELAXED);
}

/* The owner's last store site (under the lock). */
static void set_site(struct hc_xline *l, uint32_t tag, uint32_t ctx, uint32_t wd)
{
	__atomic_store_n(&l->last_ctx, ctx, __ATOMIC_RELAXED);
	__atomic_store_n(&l->last_words, wd, __ATOMIC_RELAXED);
	__atomic_store_n(&l->last_tag, tag, __ATOMIC_RELAXED);
}

/* t becomes the line's writer with this store (under the lock): its
   context is the ownership's (P1) and, with cfg.last_writer, the first
   last store site's (P2). */
static void set_owner(struct hc_xmodel *m, struct hc_xthread *th, struct hc_xline *l, uint32_t wd)
{
	uint32_t ctx = th->ctx ? th->ctx(th->arg) : 0;

	__atomic_store_n(&l->writer_ctx, ctx, __ATOMIC_RELAXED);
	__atomic_store_n(&l->writer, th->id + 1, __ATOMIC_RELAXED);
	if (m->cfg.last_writer)
		set_site(l, th->tag, ctx, wd);
}

/* The first written byte of the line and the run of written bytes from it. */
static void written_run(const struct hc_xline *l, uint64_t base, unsigned words, struct hc_xtransfer *x)
{
	unsigned first = 0, n = 0;
	bool found = false;

	for (unsigned i = 0; i < 64 * words; i++) {
		bool w = (l->written[i / 64] >> (i % 64)) & 1;
		if (w && !found) {
			found = true;
			first = i;
		}
		if (found) {
			if (!w)
				break;
			n++;
		}
	}
	x->peer_addr = base + first;
	x->peer_len = n ? n : 1;
}

/* One access within one line: bytes [off, off+len) of the line at la. */
static bool access_line(struct hc_xmodel *m, struct hc_xthread *th, uint64_t la, unsigned off, unsigned len,
                        int kind, struct hc_xtransfer *x)
{
	struct hc_xline *l = line_get(m, la);
	uint32_t id = th->id;
	uint64_t b[2] = { 0, 0 };
	unsigned words = (unsigned)(m->line_size / 64);
	uint32_t wd = hc_xwords(off, len);
	bool transfer = false, holds;
	uint32_t w;

	if (!l) {
		th->st.no_memory++;
		return false;
	}
	for (unsigned i = off; i < off + len; i++)
		b[i / 64] |= 1ull << (i % 64);
	lock(m, l);
	holds = hc_xline_holds(l, id);
	w = l->writer;
	if (kind == HC_X_READ) {
		if (holds) {                        /* R1 (a hit the fast path did not see) */
			unlock(l);
			return false;
		}
		if (!add_holder(m, l, id)) {
			unlock(l);
			th->st.no_memory++;
			return false;
		}
		th->st.read_misses++;               /* R2 */
		transfer = w && w - 1 != id;
	} else if (holds && !others_hold(l, id)) {  /* W1 */
		if (w != id + 1) {
			set_written(l, b, true);
			set_owner(m, th, l, wd);
		} else {
			set_written(l, b, false);
			if (m->cfg.last_writer) {
				if (l->last_tag != th->tag) {
					th->st.site_changes++;
					set_site(l, th->tag, th->ctx ? th->ctx(th->arg) : 0, wd);
				} else {
					__atomic_store_n(&l->last_words, l->last_words | wd, __ATOMIC_RELAXED);
				}
			}
		}
		unlock(l);
		return false;
	} else {
		if (holds) {                        /* W2 */
			th->st.upgrades++;
		} else {                            /* W3 */
			if (!add_holder(m, l, id)) {
				unlock(l);
				th->st.no_memory++;
				return false;
			}
			th->st.write_misses++;
			transfer = w && w - 1 != id;
		}
		th->st.invalidated += only_holder(l, id);
	}
	if (transfer) {
		x->addr = (la << m->cfg.line_shift) + off;
		x->len = len;
		x->writer = w - 1;
		x->writer_ctx = l->writer_ctx;         /* P1 */
		x->is_true = (b[0] & l->written[0]) || (b[1] & l->written[1]);
		x->is_write = kind != HC_X_READ;
		x->peer_last = false;
		if (m->cfg.last_writer && x->is_true) {
			if (l->last_words & wd) {       /* P2 */
				x->writer_ctx = l->last_ctx;
				x->peer_last = true;
				th->st.peer_last++;
			} else {                        /* P3 */
				th->st.peer_owner_true++;
			}
		}
		written_run(l, la << m->cfg.line_shift, words, x);
		if (x->is_true)
			th->st.transfers_true++;
		else
			th->st.transfers_false++;
	} else if (kind == HC_X_READ || !holds) {
		th->st.cold_misses++;
	}
	if (kind != HC_X_READ) {                    /* W2, W3: t owns the line now */
		set_written(l, b, true);
		set_owner(m, th, l, wd);
	}
	unlock(l);
	return transfer;
}

unsigned hc_xmodel_access(struct hc_xmodel *m, struct hc_xthread *th, uint64_t addr, uint64_t len, int kind)
{
	unsigned sh = m->cfg.line_shift, n = 0;
	uint64_t end, la;
	struct hc_xtransfer x;

	if (len == 0 || (addr >> HC_XADDR_BITS) || len > (1ull << HC_XADDR_BITS) - addr) {
		th->st.ignored++;
		return 0;
	}
	if (kind != HC_X_READ)
		kind = HC_X_WRITE;                  /* A1: an RMW is a write */
	end = addr + len;
	for (la = addr >> sh; (la << sh) < end; la++) {
		uint64_t lo = la << sh, hi = lo + m->line_size;
		uint64_t s = addr > lo ? addr : lo, e = end < hi ? end : hi;

		if (hc_xmodel_hit(m, th->id, s, (uint32_t)(e - s), kind, th->tag))
			continue;
		if (access_line(m, th, la, (unsigned)(s - lo), (unsigned)(e - s), kind, &x)) {
			n++;
			if (th->transfer)
				th->transfer(th->arg, &x);
		}
	}
	return n;
}
