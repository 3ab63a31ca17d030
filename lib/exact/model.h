/* SPDX-License-Identifier: BSD-3-Clause */
/* model.h — the exact mode's ownership model of private caches: per cache
   line, who holds a copy, the last writer and the bytes written since the
   last invalidation; every access of every thread goes through
   hc_xmodel_access, which reports each cache-line transfer between threads
   with its kind (true/false sharing). The rules are written at the top of
   model.c. Pure: no system calls; memory comes from the caller's allocator
   callback, lazily (a directory of shadow pages). Thread-safe: per-line
   spinlocks, a lock-free path for accesses that change nothing. */
#ifndef HC_EXACT_MODEL_H
#define HC_EXACT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HC_XADDR_BITS 47u     /* user addresses modelled; higher ones are ignored */
#define HC_XLEAF_BITS 18u     /* lines per shadow page */

/* The state of one cache line (56 bytes). Zero = never touched. Fields
   are read without the lock by the fast path (relaxed atomics) and written
   under it. holders has a bit per holder id < 64; ids >= 64 live in `over`
   (over[0] = its number of words n, over[1..n] the bits of ids 64..). */
struct hc_xline {
	uint64_t holders;
	uint64_t *over;
	uint64_t written[2];   /* bytes written since the last invalidation (128 B max) */
	uint32_t writer;       /* last writer's id + 1, 0 = none since the line was first touched */
	uint32_t writer_ctx;   /* context of the store that made it the writer (the ownership's
	                          first store, which invalidated the other copies; opaque: the
	                          caller's ctx callback) */
	uint32_t lock;
	/* With cfg.last_writer (rule P at the top of model.c): the writer's
	   last store site (caller's tag, nonzero; 0 = none), its context and
	   the 8-byte words of the line it wrote since it became the last site. */
	uint32_t last_tag;
	uint32_t last_ctx;
	uint32_t last_words;
};

/* One transfer: the line moved from the last writer to the accessing thread. */
struct hc_xtransfer {
	uint64_t addr;         /* first byte of the access within this line */
	uint32_t len;          /* bytes of the access within this line */
	uint32_t writer;       /* the peer: last writer's id */
	uint32_t writer_ctx;   /* the peer's context (rule P) */
	bool     is_true;      /* the access touches a byte the writer wrote */
	bool     peer_last;    /* writer_ctx is the writer's last store site's (P2), not its
	                          ownership's first store (P1, P3) */
	bool     is_write;     /* the missing access wrote (a write miss or an RMW) */
	uint64_t peer_addr;    /* first byte written by the writer in this line */
	uint32_t peer_len;     /* bytes written from there on, contiguously */
};

/* What one thread's accesses did (slow path only: hits are not counted). */
struct hc_xstats {
	uint64_t read_misses, write_misses, upgrades, invalidated;
	uint64_t transfers_true, transfers_false;
	uint64_t cold_misses;          /* misses with no other writer: no transfer */
	uint64_t ignored;              /* accesses above HC_XADDR_BITS or of length 0 */
	uint64_t no_memory;            /* shadow or holder bitmap could not be allocated: access dropped */
	/* rule P (cfg.last_writer): true transfers whose peer context is the
	   writer's last store site (P2), and true transfers whose bytes that
	   site did not write, given the ownership's first store instead (P3:
	   the store that did write them is not kept) */
	uint64_t peer_last, peer_owner_true;
	uint64_t site_changes;         /* writes of the owner that changed its last store site */
};

/* The accessing thread, as the model sees it. */
struct hc_xthread {
	uint32_t id;                   /* holder id, unique among the process's threads */
	/* the store site of the access in progress (caller-defined, nonzero,
	   e.g. a hash of the store instruction; cfg.last_writer only):
	   a write whose tag differs from the line's last_tag asks for ctx */
	uint32_t tag;
	/* this thread's current context, asked for only when a write changes
	   the line's writer (stored for the peer side of later transfers) */
	uint32_t (*ctx)(void *arg);
	/* one transfer, called outside the line's lock */
	void (*transfer)(void *arg, const struct hc_xtransfer *x);
	void *arg;
	struct hc_xstats st;
};

struct hc_xmodel_config {
	unsigned line_shift;           /* 6 (64-byte lines) or 7 (128: adjacent-line prefetch) */
	/* zeroed memory of `bytes`, thread-safe; NULL when out of memory */
	void *(*alloc)(void *arg, size_t bytes);
	void *alloc_arg;
	void (*yield)(void);           /* called while spinning on a busy line; may be NULL */
	/* rule P: a true transfer's peer context is the writer's last store
	   site when that site wrote the bytes read (else, and for false
	   transfers, the ownership's first store); false: always the
	   ownership's first store (sessions before 16) */
	bool last_writer;
};

struct hc_xmodel {
	struct hc_xmodel_config cfg;
	struct hc_xline **dir;         /* one entry per shadow page, filled on first touch */
	uint64_t ndir;
	uint64_t line_size;
};

/* Access kinds. An RMW (atomic read-modify-write) reads and writes the
   bytes in one access. */
enum { HC_X_READ = 1, HC_X_WRITE = 2, HC_X_RMW = 3 };

/* 0, -EINVAL (line_shift not 6 or 7, no allocator) or -ENOMEM. */
int hc_xmodel_init(struct hc_xmodel *m, const struct hc_xmodel_config *cfg);
/* Bytes the directory takes (allocated at init). */
size_t hc_xmodel_dir_bytes(unsigned line_shift);

/* One access of len bytes at addr (any length: split at line boundaries;
   memcpy/memset ranges are accesses too). Returns the number of transfers
   reported through th->transfer. */
unsigned hc_xmodel_access(struct hc_xmodel *m, struct hc_xthread *th, uint64_t addr, uint64_t len,
                          int kind);

/* The line holding addr, NULL if never touched (tests, diagnostics). */
const struct hc_xline *hc_xmodel_line(const struct hc_xmodel *m, uint64_t addr);

/* Is holder id a holder of the line (relaxed read: tests, diagnostics)? */
bool hc_xline_holds(const struct hc_xline *l, uint32_t id);

/* The 8-byte words of bytes [off, off+len) of a line (off + len <= 128). */
static inline uint32_t hc_xwords(uint64_t off, uint64_t len)
{
	uint64_t a = off >> 3, b = (off + len - 1) >> 3;

	return (uint32_t)(((2ull << (b - a)) - 1) << a);
}

/* The lock-free fast path: true when the access changes nothing in the
   model (a read by a holder; a write by the sole holder, already the last
   writer, of bytes it already wrote since the last invalidation — with
   cfg.last_writer also from the line's last store site `tag`, of words
   that site already wrote) and the caller may skip hc_xmodel_access. A few
   loads; false = take the slow path. tag is read for writes only. */
static inline bool hc_xmodel_hit(const struct hc_xmodel *m, uint32_t id, uint64_t addr, uint32_t len,
                                 int kind, uint32_t tag)
{
	unsigned sh = m->cfg.line_shift;
	uint64_t la = addr >> sh, off, mask;
	const struct hc_xline *page, *l;
	uint64_t h;

	if (id >= 64 || len == 0 || ((addr + len - 1) >> sh) != la || (addr >> HC_XADDR_BITS))
		return false;
	page = __atomic_load_n(&m->dir[la >> HC_XLEAF_BITS], __ATOMIC_ACQUIRE);
	if (!page)
		return false;
	l = &page[la & ((1u << HC_XLEAF_BITS) - 1)];
	h = __atomic_load_n(&l->holders, __ATOMIC_RELAXED);
	if (!((h >> id) & 1))
		return false;
	if (kind == HC_X_READ)
		return true;
	if (h != (1ull << id) || __atomic_load_n(&l->over, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&l->writer, __ATOMIC_RELAXED) != id + 1)
		return false;
	off = addr & (m->line_size - 1);
	if ((off >> 6) != ((off + len - 1) >> 6))
		return false;
	if (m->cfg.last_writer) {
		uint32_t wd = hc_xwords(off, len);
		if (__atomic_load_n(&l->last_tag, __ATOMIC_RELAXED) != tag ||
		    (__atomic_load_n(&l->last_words, __ATOMIC_RELAXED) & wd) != wd)
			return false;
	}
	mask = len >= 64 ? ~0ull : ((1ull << len) - 1) << (off & 63);
	return (__atomic_load_n(&l->written[off >> 6], __ATOMIC_RELAXED) & mask) == mask;
}

#endif
