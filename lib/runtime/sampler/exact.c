/* SPDX-License-Identifier: BSD-3-Clause */
/* exact.c — exact mode, beside the samplers: the ThreadSanitizer
   instrumentation ABI (exact_abi.h) implemented on the ownership model
   (lib/exact/model.c) instead of the sanitizer runtime, and the "sampler"
   method table that sets it up per thread. Only in libhpcrun-comm-exact.so
   (hpcrun-comm --exact); programs are built with hpcrun-comm-cc/-c++.

   Each access first tries the model's lock-free hit path (a few loads);
   otherwise, under the thread's re-entrancy guard, the model updates the
   line and reports transfers, each recorded as a communication event of
   weight 1 (true/false, peer = the line's last writer and its context),
   repeated transfers of the same (context, peer, peer context, kind,
   address) folded into one event's weight. Calling contexts come from a
   shadow stack of the __tsan_func_entry return addresses, inserted into
   the thread's CCT lazily (only when a context is needed), so profiles
   have the format of sampled ones. Not signal context, except that the
   program's own (instrumented) signal handlers may run these hooks: the
   guard makes a nested slow path skip its access. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include "exact/model.h"
#include "runtime/rt.h"
#include "runtime/safety.h"
#include "runtime/regs.h"

#define XSTACK    1024u            /* shadow stack frames kept (deeper ones: contexts truncated) */
#define XEVH      (1u << 21)       /* event folding table slots, power of two: twice the
                                      events a thread keeps (RT_EVENTS_MAX) */
#define XEVC      (1u << 16)       /* code-pair folding table slots (past the events' cap) */
#define XPROBES   8u
#define POOL_SIZE (4ull << 30)     /* small shadow allocations (holder bitmaps), address space */

struct xframe {
	uint64_t pc;                   /* return address into the caller */
	uint32_t node;                 /* CCT node of the path down to this frame, valid below nvalid */
};

struct xthr {
	struct rt_thread *t;
	struct hc_xthread x;           /* the thread as the model sees it */
	uint32_t depth, nvalid;
	uint64_t leaf;                 /* inside the instrumentation call of the access in progress */
	struct xframe *stack;
	uint32_t *evh;                 /* event index + 1, 0 = empty */
	uint32_t *evc;                 /* the same, by code pair and kind only */
};

static struct hc_xmodel xm;
static __thread struct xthr *xself __attribute__((tls_model("initial-exec")));
static struct xthr *xlive[HC_MAX_LIVE];
static pthread_once_t xonce = PTHREAD_ONCE_INIT;
static int xready;
static uint8_t *pool;
static uint64_t pool_used, shadow_bytes;
static struct hc_xstats xtotal;    /* exited threads (atomic adds) */
typedef void *(*copy_fn)(void *, const void *, size_t);
typedef void *(*set_fn)(void *, int, size_t);
static copy_fn real_memcpy, real_memmove;  /* libc's, for the interposed ones */
static set_fn real_memset;

/* Shadow memory: pages of line states from their own NORESERVE mappings
   (touched lazily: only lines of touched memory cost), small blocks (holder
   bitmaps of thread ids >= 64) from one reserved pool. Never the heap. */
static void *shadow_alloc(void *arg, size_t n)
{
	uint64_t off;
	void *p;

	(void)arg;
	if (n >= (1u << 20)) {
		p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		__atomic_add_fetch(&shadow_bytes, n, __ATOMIC_RELAXED);
		return p;
	}
	n = (n + 15) & ~(size_t)15;
	off = __atomic_fetch_add(&pool_used, n, __ATOMIC_RELAXED);
	return pool && off + n <= POOL_SIZE ? pool + off : NULL;
}

static void xyield(void)
{
	sched_yield();
}

static void model_init(void)
{
	struct hc_xmodel_config c = { .line_shift = 6, .alloc = shadow_alloc, .yield = xyield };
	const char *s = getenv("HPCRUN_COMM_EXACT_LINE");
	const char *lw = getenv("HPCRUN_COMM_EXACT_LAST_WRITER");
	void *p;

	if (s && *s) {
		if (strcmp(s, "64") == 0)
			c.line_shift = 6;
		else if (strcmp(s, "128") == 0)
			c.line_shift = 7;
		else
			process__fatal("HPCRUN_COMM_EXACT_LINE: '%s' is not a line size of exact mode (64 or 128)", s);
	}
	/* rule P of model.c: a true transfer's peer is the writer's last
	   store site (1, the default) or always its ownership's first store
	   (0, before session 16) */
	if (lw && *lw && strcmp(lw, "0") && strcmp(lw, "1"))
		process__fatal("HPCRUN_COMM_EXACT_LAST_WRITER: '%s' is not 0 (the ownership's first store) or 1 "
		               "(the last store site, the default)", lw);
	c.last_writer = !(lw && strcmp(lw, "0") == 0);
	real_memcpy = (copy_fn)dlsym(RTLD_NEXT, "memcpy");
	real_memmove = (copy_fn)dlsym(RTLD_NEXT, "memmove");
	real_memset = (set_fn)dlsym(RTLD_NEXT, "memset");
	p = mmap(NULL, POOL_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	pool = p == MAP_FAILED ? NULL : p;
	if (hc_xmodel_init(&xm, &c) < 0)
		process__fatal("exact mode: cannot reserve the shadow directory (%zu bytes)",
		          hc_xmodel_dir_bytes(c.line_shift));
	process__log("exact mode: %llu-byte lines, shadow directory %zu MiB reserved (touched lazily), "
	        "peer context: %s", (unsigned long long)xm.line_size, hc_xmodel_dir_bytes(c.line_shift) >> 20,
	        c.last_writer ? "last store site" : "first store of the ownership");
	__atomic_store_n(&xready, 1, __ATOMIC_RELEASE);
}

/* The context of the access in progress: the shadow stack's frames below
   nvalid already have nodes; the others are inserted now. */
static uint32_t current_ctx(void *arg)
{
	struct xthr *x = arg;
	uint32_t n = x->depth < XSTACK ? x->depth : XSTACK;
	uint32_t node = x->nvalid ? x->stack[x->nvalid - 1].node : 0;

	for (uint32_t i = x->nvalid; i < n; i++) {
		node = cct__insert_frame(x->t, node, x->stack[i].pc);
		x->stack[i].node = node;
	}
	x->nvalid = n;
	return cct__insert_under(x->t, node, x->leaf);
}

static inline uint32_t ev_hash(uint32_t ctx, uint32_t peer, uint32_t pctx, uint32_t flags, uint64_t addr)
{
	uint64_t h = addr * 0x9E3779B97F4A7C15ull;

	h ^= ((uint64_t)ctx << 32 | pctx) * 0xC2B2AE3D27D4EB4Full;
	h ^= ((uint64_t)peer << 8 | flags) * 0x165667B19E3779F9ull;
	return (uint32_t)(h >> 40);
}

static uint32_t code_hash(uint32_t ctx, uint32_t peer, uint32_t pctx, uint32_t flags)
{
	return ev_hash(ctx, peer, pctx, flags, 0);
}

/* The thread's first event of this code pair, peer and kind (evc), added
   when absent and ins; NULL when none (or the table's probes are full). */
static struct hc_prof_event *code_event(struct xthr *x, uint32_t ctx, uint32_t peer, uint32_t pctx,
                                        uint32_t flags, uint32_t ins)
{
	uint32_t h = code_hash(ctx, peer, pctx, flags);

	for (uint32_t p = 0; p < XPROBES; p++) {
		uint32_t s = (h + p) & (XEVC - 1), i = x->evc[s];
		struct hc_prof_event *e;

		if (!i) {
			if (ins)
				x->evc[s] = ins;
			return NULL;
		}
		e = &x->t->events.v[i - 1];
		if (e->ctx == ctx && e->peer == peer && e->peer_ctx == pctx && e->flags == flags)
			return e;
	}
	return NULL;
}

/* One transfer into the thread's events: a new event, or one more on the
   event of the same context, peer, peer context, kind and access. */
static void on_transfer(void *arg, const struct hc_xtransfer *xt)
{
	struct xthr *x = arg;
	struct rt_thread *t = x->t;
	uint32_t ctx = current_ctx(x), slot = XEVH, before;
	uint32_t flags = HC_COMM_PEER_STORE | (xt->is_true ? HC_COMM_TRUE : 0u) |
	                 (xt->is_write ? HC_COMM_STORE : 0u);
	uint32_t h = ev_hash(ctx, xt->writer, xt->writer_ctx, flags, xt->addr);
	struct hc_comm c;

	for (uint32_t p = 0; p < XPROBES; p++) {
		uint32_t s = (h + p) & (XEVH - 1), i = x->evh[s];
		struct hc_prof_event *e;

		if (!i) {
			slot = s;
			break;
		}
		e = &t->events.v[i - 1];
		if (e->ctx == ctx && e->peer == xt->writer && e->peer_ctx == xt->writer_ctx &&
		    e->flags == flags && e->addr == xt->addr && e->len == xt->len) {
			__atomic_store_n(&e->weight, e->weight + 1, __ATOMIC_RELAXED);
			if (ctx < t->cct.n)
				t->cct.nodes[ctx].m[xt->is_true ? HC_M_TRUE_SAMPLE : HC_M_FALSE_SAMPLE]++;
			return;
		}
	}
	/* Past three quarters of the events' cap: onto the first event of the
	   same code pair, peer and kind (its address stands for this one's),
	   so the matrices, code pairs and the false fraction keep every
	   transfer; counted. The last quarter is kept for code pairs not seen
	   yet (a later phase's: NPB MG's initialisation filled the buffer). */
	if (t->events.n >= t->events.cap - t->events.cap / 4) {
		struct hc_prof_event *e = code_event(x, ctx, xt->writer, xt->writer_ctx, flags, 0);

		if (e) {
			__atomic_store_n(&e->weight, e->weight + 1, __ATOMIC_RELAXED);
			if (ctx < t->cct.n)
				t->cct.nodes[ctx].m[xt->is_true ? HC_M_TRUE_SAMPLE : HC_M_FALSE_SAMPLE]++;
			t->cnt.events_folded++;
			return;
		}
	}
	memset(&c, 0, sizeof c);
	c.time = process__now();
	c.weight = 1;
	c.addr = xt->addr;
	c.len = xt->len;
	c.peer_addr = xt->peer_addr;
	c.peer_len = xt->peer_len;
	c.peer = xt->writer;
	c.cpu = regs__cpu();
	c.peer_cpu = -1;
	c.ctx = ctx;
	c.peer_ctx = xt->writer_ctx;
	c.flags = flags;
	before = t->events.n;
	record__comm(t, &c);
	if (t->events.n == before + 1) {
		if (slot < XEVH)
			x->evh[slot] = t->events.n;
		code_event(x, ctx, xt->writer, xt->writer_ctx, flags, t->events.n);
	}
}

/* The store site of a write at pc (the model's tag, rule P): the
   instruction, hashed, never 0. Not its caller: a helper called from two
   places (the suite's acc_work on a thread's stack buffer) would change
   site at every call and take the slow path on every store of the line
   (nn_ring 2.5x slower, doc/exact.md "Session 16"); the context asked at
   the site's first store of an ownership stands for its other calls. */
static inline uint32_t xtag(uint64_t pc)
{
	return (uint32_t)((pc * 0x9E3779B97F4A7C15ull) >> 32) | 1u;
}

/* An access the hit path could not settle. */
__attribute__((noinline))
static void slow(struct xthr *x, uint64_t addr, uint64_t len, int kind, uint64_t pc, uint32_t tag)
{
	struct rt_thread *t = x->t;

	if (__atomic_load_n(&hc_rt.stopping, __ATOMIC_RELAXED) || !hc_guard_enter(t))
		return;
	/* pc is the return address of the instrumentation call: the access
	   is the call itself (the instruction that follows belongs to the
	   next statement as often as not at -O2, e.g. nn_ring's store
	   `slots[me].v = ...` ahead of the call of line 26). One byte back
	   lies inside the call, whose line is the access's
	   (doc/accuracy.md, "Session 8: code pairs"). */
	x->leaf = pc - 1;
	x->x.tag = tag;
	hc_xmodel_access(&xm, &x->x, addr, len, kind);
	hc_guard_leave(t);
}

#define XACC(a, n, k) do { \
	struct xthr *x_ = xself; \
	if (__builtin_expect(x_ != NULL, 1)) { \
		uint64_t pc_ = (uint64_t)(uintptr_t)__builtin_return_address(0); \
		uint32_t tag_ = (k) != HC_X_READ && xm.cfg.last_writer ? xtag(pc_) : 0; \
		if (!((n) <= 64 && hc_xmodel_hit(&xm, x_->x.id, (uint64_t)(uintptr_t)(a), (uint32_t)(n), (k), tag_))) \
			slow(x_, (uint64_t)(uintptr_t)(a), (n), (k), pc_, tag_); \
	} \
} while (0)

#define XENTRY(pc) do { \
	struct xthr *x_ = xself; \
	if (__builtin_expect(x_ != NULL, 1)) { \
		if (x_->depth < XSTACK) \
			x_->stack[x_->depth].pc = (uint64_t)(uintptr_t)(pc); \
		x_->depth++; \
	} \
} while (0)

#define XEXIT() do { \
	struct xthr *x_ = xself; \
	if (__builtin_expect(x_ != NULL && x_->depth > 0, 1)) { \
		x_->depth--; \
		if (x_->nvalid > x_->depth) \
			x_->nvalid = x_->depth; \
	} \
} while (0)

#include "runtime/sampler/exact_abi.h"

/* memcpy, memmove and memset, called by the program or by any library
   through the dynamic symbol (libc's own internal calls are not seen):
   a read of the source range and a write of the destination range (rule
   S), then libc's function, found at start-up; before that (dlsym itself
   may copy) string instructions. */
static void *copy_fwd(void *d, const void *s, size_t n)
{
	void *r = d;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
	return r;
}

static void *copy_back(void *d, const void *s, size_t n)
{
	unsigned char *dd = d;
	const unsigned char *ss = s;

	while (n--) {
		dd[n] = ss[n];
		__asm__ volatile("" ::: "memory");   /* not a loop idiom: no call to memmove */
	}
	return d;
}

HC_EXPORT void *memcpy(void *d, const void *s, size_t n)
{
	if (n) {
		XACC(s, n, HC_X_READ);
		XACC(d, n, HC_X_WRITE);
	}
	return real_memcpy ? real_memcpy(d, s, n) : copy_fwd(d, s, n);
}

HC_EXPORT void *memmove(void *d, const void *s, size_t n)
{
	if (n) {
		XACC(s, n, HC_X_READ);
		XACC(d, n, HC_X_WRITE);
	}
	if (real_memmove)
		return real_memmove(d, s, n);
	return (uintptr_t)d - (uintptr_t)s >= n ? copy_fwd(d, s, n) : copy_back(d, s, n);
}

HC_EXPORT void *memset(void *d, int c, size_t n)
{
	void *r = d;

	if (n)
		XACC(d, n, HC_X_WRITE);
	if (real_memset)
		return real_memset(d, c, n);
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(n) : "a"(c) : "memory");
	return r;
}

/* Data the kernel writes for the calling thread (read(), pread(), recv(),
   recvfrom(); io.c says why): a write of the range filled, at the call
   (as ThreadSanitizer's interceptors count it). The runtime's own calls
   are not the program's. */
#define XFILL(buf, r) do { \
	if ((r) > 0 && !loadmap__pc_in_self((uint64_t)(uintptr_t)__builtin_return_address(0))) { \
		int e_ = errno; \
		XACC((buf), (size_t)(r), HC_X_WRITE); \
		errno = e_; \
	} \
} while (0)

HC_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t r = RT_REAL(read)(fd, buf, n);

	XFILL(buf, r);
	return r;
}

HC_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r = RT_REAL(pread)(fd, buf, n, off);

	XFILL(buf, r);
	return r;
}

/* the same function in libc (off_t is 64 bits here) */
HC_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));

HC_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	ssize_t r = RT_REAL(recv)(fd, buf, n, flags);

	XFILL(buf, r);
	return r;
}

HC_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *len)
{
	ssize_t r = RT_REAL(recvfrom)(fd, buf, n, flags, from, len);

	XFILL(buf, r);
	return r;
}

/* The compilers' module constructors call it; the runtime initializes
   itself (process.c), earlier or later: nothing to do. */
HC_EXPORT void __tsan_init(void);
HC_EXPORT void __tsan_init(void)
{
}

/* ---------------- the method table (sampler.c) ---------------- */

static int x_thread_fds(const struct rt_thread *t)
{
	(void)t;
	return 0;
}

static int x_thread_start(struct rt_thread *t)
{
	struct xthr *x;
	struct xframe *stack;
	uint32_t *evh, *evc;

	pthread_once(&xonce, model_init);
	if (!__atomic_load_n(&xready, __ATOMIC_ACQUIRE))
		return 0;
	x = hc_arena_alloc(&t->arena, sizeof *x, 64);
	stack = hc_arena_alloc(&t->arena, XSTACK * sizeof *stack, 64);
	evh = hc_arena_alloc(&t->arena, XEVH * sizeof *evh, 64);
	evc = hc_arena_alloc(&t->arena, XEVC * sizeof *evc, 64);
	if (!x || !stack || !evh || !evc) {
		process__log("thread %u: arena too small for exact mode: its accesses are not counted", t->id.index);
		return 0;
	}
	/* Arena memory past the record's common prefix is zero, fresh or
	   recycled (thread.c, arena_recycle): evh and evc need no clearing. */
	memset(x, 0, sizeof *x);
	x->stack = stack;
	x->evh = evh;
	x->evc = evc;
	x->t = t;
	x->x.id = t->id.index;
	x->x.ctx = current_ctx;
	x->x.transfer = on_transfer;
	x->x.arg = x;
	if (t->id.slot >= 0 && t->id.slot < HC_MAX_LIVE)
		__atomic_store_n(&xlive[t->id.slot], x, __ATOMIC_RELEASE);
	if (hc_self == t)
		xself = x;
	return 0;
}

static void add_stats(struct hc_xstats *to, const struct hc_xstats *s)
{
	const uint64_t *a = (const uint64_t *)s;
	uint64_t *b = (uint64_t *)to;

	for (size_t i = 0; i < sizeof *s / sizeof(uint64_t); i++)
		__atomic_add_fetch(&b[i], a[i], __ATOMIC_RELAXED);
}

static void x_thread_stop(struct rt_thread *t)
{
	struct xthr *x = NULL;

	if (t->id.slot >= 0 && t->id.slot < HC_MAX_LIVE)
		x = __atomic_exchange_n(&xlive[t->id.slot], NULL, __ATOMIC_ACQ_REL);
	if (xself && xself->t == t)
		xself = NULL;
	if (x) {
		add_stats(&xtotal, &x->x.st);
		process__log("exact mode: thread %u: %llu read misses, %llu write misses, %llu upgrades, "
		        "%llu transfers", t->id.index, (unsigned long long)x->x.st.read_misses,
		        (unsigned long long)x->x.st.write_misses, (unsigned long long)x->x.st.upgrades,
		        (unsigned long long)(x->x.st.transfers_true + x->x.st.transfers_false));
	}
}

/* At exit (or exec): the process's counts into the log, once. */
static void x_process_stop(void)
{
	static int said;
	struct hc_xstats s = xtotal;

	if (!xready || __atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		return;
	for (int i = 0; i < HC_MAX_LIVE; i++) {
		struct xthr *x = __atomic_load_n(&xlive[i], __ATOMIC_ACQUIRE);
		if (x)
			add_stats(&s, &x->x.st);
	}
	process__log("exact mode: %llu read misses, %llu write misses, %llu upgrades, %llu copies invalidated, "
	        "%llu cold misses",
	        (unsigned long long)s.read_misses, (unsigned long long)s.write_misses,
	        (unsigned long long)s.upgrades, (unsigned long long)s.invalidated,
	        (unsigned long long)s.cold_misses);
	process__log("exact mode: %llu transfers (%llu true, %llu false); %llu accesses ignored (kernel "
	        "addresses), %llu dropped (no shadow memory); shadow %llu MiB mapped, pool %llu KiB used",
	        (unsigned long long)(s.transfers_true + s.transfers_false),
	        (unsigned long long)s.transfers_true, (unsigned long long)s.transfers_false,
	        (unsigned long long)s.ignored, (unsigned long long)s.no_memory,
	        (unsigned long long)(__atomic_load_n(&shadow_bytes, __ATOMIC_RELAXED) >> 20),
	        (unsigned long long)(__atomic_load_n(&pool_used, __ATOMIC_RELAXED) >> 10));
	if (xm.cfg.last_writer)
		process__log("exact mode: peer contexts (rule P): %llu true transfers from the writer's last "
		        "store site, %llu from its ownership's first store (the last site did not write the "
		        "bytes read); %llu store site changes",
		        (unsigned long long)s.peer_last, (unsigned long long)s.peer_owner_true,
		        (unsigned long long)s.site_changes);
}

static void x_nothing(void)
{
}

static void x_on_sample(struct rt_thread *t, void *uctx)
{
	(void)t;
	(void)uctx;
}

const struct rt_sampler exact__sampler = {
	.thread_fds = x_thread_fds,
	.thread_start = x_thread_start,
	.thread_stop = x_thread_stop,
	.process_stop = x_process_stop,
	.process_resume = x_nothing,
	.atfork_child = x_nothing,
	.on_sample = x_on_sample,
};
