/* SPDX-License-Identifier: BSD-3-Clause */
/* cct.c — the per-thread calling-context tree and the unwinds that feed it.
   Nodes live in the thread's arena and are found through a chained hash on
   (parent, ip, leaf); ids grow in insertion order, so parents always precede
   children. Frames are raw addresses here; output.c turns them into
   (load module, offset) with the load map at write time. The unwind uses
   libunwind's unw_backtrace (no syscalls once warm, correct through the
   signal frame: doc/runtime.md); the walk runs under fault containment
   (walk: sigsetjmp, a fault counted in unwind_faults and the sample
   dropped). cct__insert and cct__context run in signal context: arena
   memory only, no locks. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include "runtime/rt.h"

/* The hash starts small and grows x4 (see grow): a table sized for `cap`
   nodes would cost 4 MiB and ~1,000 page faults per thread at start-up
   (performance.md, F1), while most threads keep a few hundred nodes. */
#define CCT_BUCKETS_MIN 4096u

int cct__init(struct rt_thread *t, uint32_t cap)
{
	uint32_t nb = CCT_BUCKETS_MIN;

	t->cct.nodes = hc_arena_alloc(&t->arena, (size_t)cap * sizeof *t->cct.nodes, 64);
	t->cct.buckets = hc_arena_alloc(&t->arena, (size_t)nb * sizeof *t->cct.buckets, 64);
	if (!t->cct.nodes || !t->cct.buckets)
		return -ENOMEM;
	memset(t->cct.buckets, 0xff, (size_t)nb * sizeof *t->cct.buckets);
	t->cct.cap = cap;
	t->cct.mask = nb - 1;
	/* Stack frames (frames_note): optional, none when the arena is short. */
	t->cct.frames = hc_arena_alloc(&t->arena, HC_FRAMES_CAP * sizeof *t->cct.frames, 64);
	t->cct.nframes = 0;
	/* node 0: the root */
	memset(&t->cct.nodes[0], 0, sizeof t->cct.nodes[0]);
	t->cct.nodes[0].parent = HC_NONE;
	t->cct.nodes[0].next = HC_NONE;
	t->cct.n = 1;
	return 0;
}

static inline uint32_t hash(uint32_t parent, uint64_t ip, uint32_t flags)
{
	uint64_t h = (ip ^ ((uint64_t)parent << 32) ^ flags) * 0x9E3779B97F4A7C15ull;
	return (uint32_t)(h >> 32);
}

/* Four times the buckets, rehashed into a fresh arena block once the chains
   average two nodes. Signal context: arena memory only; when the arena is
   exhausted the old table stays (longer chains, nothing lost). The old
   block is not reused: at most a third of the final table's size. */
static void grow(struct rt_thread *t)
{
	struct rt_cct *c = &t->cct;
	uint32_t nb = (c->mask + 1) * 4;
	uint32_t *b = hc_arena_alloc(&t->arena, (size_t)nb * sizeof *b, 64);

	if (!b)
		return;
	memset(b, 0xff, (size_t)nb * sizeof *b);
	for (uint32_t i = 1; i < c->n; i++) {
		struct rt_cct_node *n = &c->nodes[i];
		uint32_t h = hash(n->parent, n->ip, n->flags) & (nb - 1);

		n->next = b[h];
		b[h] = i;
	}
	c->buckets = b;
	c->mask = nb - 1;
}

/* Child of `parent` for ip; created if missing. HC_NONE when full. */
static uint32_t child(struct rt_thread *t, uint32_t parent, uint64_t ip, uint32_t flags)
{
	struct rt_cct *c = &t->cct;
	uint32_t b = hash(parent, ip, flags) & c->mask;
	struct rt_cct_node *n;

	HC_ASSERT(parent < c->n);          /* parents precede children */
	for (uint32_t i = c->buckets[b]; i != HC_NONE; i = c->nodes[i].next)
		if (c->nodes[i].ip == ip && c->nodes[i].parent == parent && c->nodes[i].flags == flags)
			return i;
	if (c->n >= c->cap) {
		t->cnt.cct_nodes_dropped++;
		return HC_NONE;
	}
	n = &c->nodes[c->n];
	memset(n, 0, sizeof *n);
	n->ip = ip;
	n->parent = parent;
	n->flags = flags;
	n->next = c->buckets[b];
	c->buckets[b] = c->n;
	/* Release: a periodic flush reading nodes [0, n) from another thread
	   sees them complete (flush.c). */
	__atomic_store_n(&c->n, c->n + 1, __ATOMIC_RELEASE);
	if (c->n > 2 * (c->mask + 1) && c->mask + 1 < c->cap)
		grow(t);
	return c->n - 1;
}

/* The leaf (if nonzero) as a child of node `parent`. */
uint32_t cct__insert_under(struct rt_thread *t, uint32_t parent, uint64_t leaf)
{
	uint32_t c;

	if (!leaf)
		return parent;
	c = child(t, parent, leaf, HC_NODE_LEAF);
	return c == HC_NONE ? parent : c;
}

/* The frame ip (a return address) as a child of node `parent`; the parent
   itself when the tree is full (exact mode's shadow stack, exact.c). */
uint32_t cct__insert_frame(struct rt_thread *t, uint32_t parent, uint64_t ip)
{
	uint32_t c = child(t, parent, ip, 0);

	return c == HC_NONE ? parent : c;
}

/* ret_addrs[0] is the innermost return address, ret_addrs[nret-1] the
   outermost. leaf (if nonzero) is the accessing instruction's address. */
uint32_t cct__insert(struct rt_thread *t, const uint64_t *ret_addrs, int nret, uint64_t leaf)
{
	uint32_t node = 0;

	for (int i = nret - 1; i >= 0; i--) {
		uint32_t c = child(t, node, ret_addrs[i], 0);
		if (c == HC_NONE)
			return node;
		node = c;
	}
	if (leaf) {
		uint32_t c = child(t, node, leaf, HC_NODE_LEAF);
		if (c != HC_NONE)
			node = c;
	}
	return node;
}

/* Context of the interrupted instruction: unwind from the handler, skip to
   the interrupted PC, keep the callers' return addresses.

   Unwinding is the largest part of a sample's cost, and a hot loop is
   sampled again and again at the same PC and stack pointer with the same
   callers. So the callers' node is cached by (PC, SP), and a hit is
   validated by the leaf frame's return address still being in its stack
   slot (it would differ if the same code ran at the same depth under
   another caller). Frames larger than HC_CTX_SCAN words are not cached.

   The validation reads the interrupted code's stack frame, which an ASan
   build of the application poisons as redzones: these two readers are
   deliberately left uninstrumented (the words are inside the thread's
   stack, checked against its bounds before a cache entry is made). */
__attribute__((no_sanitize_address, noinline))
static uint64_t stack_word(const uint64_t *stack, uint32_t k)
{
	return stack[k];
}

/* The slot (< HC_CTX_SCAN) holding ret in the frame at stack, or -ENOENT. */
__attribute__((no_sanitize_address, noinline))
static int find_slot(const uint64_t *stack, uint64_t ret)
{
	for (uint32_t k = 0; k < HC_CTX_SCAN; k++)
		if (stack[k] == ret)
			return (int)k;
	return -ENOENT;
}

/* The fork gate. libunwind takes locks (its register-state cache, the
   loader's dl_iterate_phdr lock) while it unwinds; a fork while another
   thread holds one leaves it held forever in the child, whose first unwind
   then deadlocks (seen: objects_runtime.sh's forked child stuck in
   unw_backtrace from thread_begin). So the fork's prepare handler closes
   the gate and waits until no thread is inside the unwinder; meanwhile a
   sample's walk is dropped (unwind_fork_gated) and an unwind outside
   signal context waits for the gate to open. Sequentially consistent
   atomics: a thread enters (increments) before it looks at the gate, the
   forking thread closes the gate before it looks at the count. */
static int unwinders;
static int fork_gate;

static bool unwind_enter(void)
{
	__atomic_add_fetch(&unwinders, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&fork_gate, __ATOMIC_SEQ_CST))
		return true;
	__atomic_sub_fetch(&unwinders, 1, __ATOMIC_SEQ_CST);
	return false;
}

static void unwind_leave(void)
{
	__atomic_sub_fetch(&unwinders, 1, __ATOMIC_SEQ_CST);
}

/* Outside signal context: wait while a fork is being prepared. */
static void unwind_enter_wait(void)
{
	while (!unwind_enter()) {
		struct timespec ts = { 0, 50000 };
		while (__atomic_load_n(&fork_gate, __ATOMIC_SEQ_CST))
			nanosleep(&ts, NULL);
	}
}

/* pthread_atfork prepare: close the gate and wait (at most 1 s: a thread
   stopped inside the unwinder forever must not hang the fork) until no
   thread unwinds. */
void cct__fork_prepare(void)
{
	struct timespec ts = { 0, 20000 }, now;
	int64_t deadline;

	__atomic_store_n(&fork_gate, 1, __ATOMIC_SEQ_CST);
	clock_gettime(CLOCK_MONOTONIC, &now);
	deadline = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + 1000000000;
	while (__atomic_load_n(&unwinders, __ATOMIC_SEQ_CST)) {
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec >= deadline)
			break;
	}
}

/* Parent and child after the fork: the child has no other thread, so
   nobody is inside the unwinder there. */
void cct__fork_release(bool child)
{
	if (child)
		__atomic_store_n(&unwinders, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&fork_gate, 0, __ATOMIC_SEQ_CST);
}

/* unw_backtrace outside signal context, through the gate. */
int cct__backtrace(void **fr, int max)
{
	int n;

	unwind_enter_wait();
	n = unw_backtrace(fr, max);
	unwind_leave();
	return n;
}

/* unw_backtrace and the cache's validating read under fault containment:
   a fault in them (a stack another thread unmapped or protected, a frame
   libunwind reads without validating it) comes back here through
   signal.c's on_fatal, is counted and the sample dropped: -EFAULT. Kept
   out of line so that no local of the caller lives across sigsetjmp. */
__attribute__((noinline))
static int walk(struct rt_thread *t, void **fr, const uint64_t *stack, unsigned h, int *n)
{
	if (sigsetjmp(t->safety.walk_env, 0)) {
		t->safety.walking = 0;
		t->cnt.unwind_faults++;
		unwind_leave();
		return -EFAULT;
	}
	if (!unwind_enter()) {
		t->cnt.unwind_fork_gated++;
		return -EAGAIN;
	}
	t->safety.walking = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (t->cct.ctxc[h].pc == (uint64_t)(uintptr_t)fr[0] && t->cct.ctxc[h].sp == (uint64_t)(uintptr_t)stack &&
	    stack_word(stack, t->cct.ctxc[h].slot) == t->cct.ctxc[h].ret && t->cct.ctxc[h].parent < t->cct.n) {
		t->safety.walking = 0;
		unwind_leave();
		return 1;                  /* cache hit */
	}
	if (t->safety.in_loader) {
		/* libunwind finds modules with dl_iterate_phdr, whose lock this
		   thread may hold half-taken (seen: a sample inside our dlclose
		   wrapper's walk deadlocked Open MPI's MPI_Finalize) */
		t->safety.walking = 0;
		unwind_leave();
		t->cnt.unwind_loader_gated++;
		return -EAGAIN;
	}
	*n = unw_backtrace(fr, HC_MAX_FRAMES);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->safety.walking = 0;
	unwind_leave();
	return 0;
}

/* Stack frames, for naming stack locals (doc/objects.md "Stack locals"):
   frame j of an unwind (fr[j] an address in it) keeps its return address
   fr[j+1] in the word just below its canonical frame address (CFA). The
   words are searched upward from the interrupted stack pointer, each
   return address above the previous one, inside the thread's own stack
   (mapped from sp up: no fault possible): no unwinder state, and only on
   an unwind-cache miss (a hit has the same frames). A copy of a return
   address among a frame's locals would end that frame early: harmless,
   the analyzer checks the variable it finds against DWARF. Uninstrumented
   for the same reason as stack_word. */
#define FRAME_SCAN_MAX   8192u     /* words searched for one return address */
#define FRAME_SCAN_TOTAL 32768u    /* words searched per unwind */

__attribute__((no_sanitize_address, noinline))
static int find_cfas(const uint64_t *w, const uint64_t *hi, void *const *fr, int n, uint64_t *cfa)
{
	uint32_t budget = FRAME_SCAN_TOTAL;
	int j;

	for (j = 0; j + 1 < n; j++) {
		uint64_t ret = (uint64_t)(uintptr_t)fr[j + 1];
		uint32_t k = 0;

		while (w < hi && k < FRAME_SCAN_MAX && budget && *w != ret) {
			w++;
			k++;
			budget--;
		}
		if (w >= hi || *w != ret)
			break;
		w++;
		cfa[j] = (uint64_t)(uintptr_t)w;
	}
	return j;
}

/* One frame (cfa, node of an address in it, the caller's node) into the
   thread's table: open addressing on (cfa, caller), counted when full. An
   entry is the same frame only if its node is too, or both are leaves (the
   sampled instructions of one frame): two functions run one after the
   other from the same caller share (cfa, caller), e.g. ASan's thread start
   and the thread's function it tail-calls, and the first one seen must not
   stand for the second (its locals left unnamed). */
static void frame_put(struct rt_thread *t, uint64_t cfa, uint64_t sp, uint32_t node, uint32_t caller)
{
	struct hc_prof_frame *f = t->cct.frames;
	uint32_t h = (uint32_t)((((cfa >> 3) ^ ((uint64_t)caller << 24)) * 0x9E3779B97F4A7C15ull) >> 40);

	for (int probe = 0; probe < 16; probe++) {
		struct hc_prof_frame *e = &f[(h + (uint32_t)probe) & (HC_FRAMES_CAP - 1)];

		if (!e->cfa) {
			if (t->cct.nframes >= HC_FRAMES_CAP / 4 * 3)
				break;
			e->node = node;
			e->count = 1;
			e->size = cfa - sp < UINT32_MAX ? (uint32_t)(cfa - sp) : 0;
			__atomic_store_n(&e->cfa, cfa, __ATOMIC_RELEASE);
			t->cct.nframes++;
			t->cnt.stack_frames++;
			return;
		}
		if (e->cfa == cfa && t->cct.nodes[e->node].parent == caller &&
		    (e->node == node || (t->cct.nodes[e->node].flags & t->cct.nodes[node].flags &
		                         HC_NODE_LEAF))) {
			if (e->count < UINT32_MAX)
				e->count++;
			return;
		}
	}
	t->cnt.stack_frames_dropped++;
}

/* fr[0..n-1] an unwind from the frame at sp: fr[0] an address in the
   innermost frame, fr[j] the return address into frame j. Frames j >=
   first are recorded, node being the CCT node of fr[first] (its path up
   checked frame by frame: a full tree may have cut it short); with first
   0, node is the innermost frame's caller and leaf (HC_NONE: none) its
   own node, the sampled instruction's. A frame's stack pointer is its
   callee's CFA (sp for the innermost): recorded as the frame's size, for
   locals addressed from rsp (a frame realigned for an over-aligned local). */
static void frames_put(struct rt_thread *t, void *const *fr, const uint64_t *cfa, int m,
                       uint64_t sp, int first, uint32_t node, uint32_t leaf)
{
	int j;

	if (first == 0) {
		if (m > 0 && leaf != HC_NONE && leaf != node)
			frame_put(t, cfa[0], sp, leaf, node);
		first = 1;
	}
	for (j = first; j < m && node && node < t->cct.n; j++) {
		const struct rt_cct_node *c = &t->cct.nodes[node];

		if (c->ip != (uint64_t)(uintptr_t)fr[j] || (c->flags & HC_NODE_LEAF))
			break;
		/* its stack pointer at the call: the callee's CFA */
		frame_put(t, cfa[j], cfa[j - 1], node, c->parent);
		node = c->parent;
	}
}

static void frames_note(struct rt_thread *t, void *const *fr, int n, uint64_t sp, uint32_t node,
                        uint32_t leaf)
{
	uint64_t cfa[HC_MAX_FRAMES];
	int m;

	if (!t->cct.frames || sp < t->id.stack_lo || sp >= t->id.stack_hi)
		return;
	m = find_cfas((const uint64_t *)(uintptr_t)sp, (const uint64_t *)(uintptr_t)t->id.stack_hi,
	              fr, n, cfa);
	frames_put(t, fr, cfa, m, sp, 0, node, leaf);
}

/* HC_NONE: the walk faulted, the sample must be dropped. */
static uint32_t context(struct rt_thread *t, void *uctx, uint64_t leaf_ip)
{
	const ucontext_t *uc = uctx;
	uint64_t pc, sp;
	unsigned h;
	void *fr[HC_MAX_FRAMES];
	const uint64_t *stack;
	uint32_t parent;
	int n, i;

	/* No interrupted context (PMU records drained when the sampler stops,
	   pmu.c): the leaf alone, under the thread's root. */
	if (!uc)
		return cct__insert(t, NULL, 0, leaf_ip);
	pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	h = (unsigned)((pc ^ (pc >> 9) ^ (sp >> 4)) & (HC_CTX_CACHE - 1));
	stack = (const uint64_t *)(uintptr_t)sp;

	fr[0] = (void *)(uintptr_t)pc;
	n = 0;
	switch (walk(t, fr, stack, h, &n)) {
	case 1:
		t->cnt.unwind_cached++;
		return cct__insert_under(t, t->cct.ctxc[h].parent, leaf_ip);
	case -EFAULT:
		HC_DEBUG_LOG(HC_DBG_UNWIND, "T%u: fault in the stack walk at pc %#llx sp %#llx: sample dropped",
		             t->id.index, (unsigned long long)pc, (unsigned long long)sp);
		return HC_NONE;
	case -EAGAIN:
		return HC_NONE;        /* a fork is being prepared, or the thread is in the loader */
	}
	for (i = 0; i < n; i++)
		if ((uint64_t)(uintptr_t)fr[i] == pc)
			break;
	if (i >= n) {
		t->cnt.unwind_failed++;
		HC_DEBUG_LOG(HC_DBG_UNWIND, "T%u: unwind of %d frames did not reach pc %#llx: leaf only",
		             t->id.index, n, (unsigned long long)pc);
		return cct__insert(t, NULL, 0, leaf_ip);
	}
	HC_DEBUG_LOG(HC_DBG_UNWIND, "T%u: pc %#llx sp %#llx: %d caller frames", t->id.index,
	             (unsigned long long)pc, (unsigned long long)sp, n - i - 1);
	parent = cct__insert(t, (const uint64_t *)(fr + i + 1), n - i - 1, 0);
	if (i + 1 < n && sp >= t->id.stack_lo && sp + HC_CTX_SCAN * 8 <= t->id.stack_hi) {
		uint64_t ret = (uint64_t)(uintptr_t)fr[i + 1];
		int k = find_slot(stack, ret);

		if (k >= 0) {
			t->cct.ctxc[h].pc = pc;
			t->cct.ctxc[h].sp = sp;
			t->cct.ctxc[h].ret = ret;
			t->cct.ctxc[h].slot = (uint32_t)k;
			t->cct.ctxc[h].parent = parent;
		}
	}
	{
		uint32_t leaf = cct__insert_under(t, parent, leaf_ip);

		frames_note(t, (void *const *)(fr + i), n - i, sp, parent, leaf_ip ? leaf : HC_NONE);
		return leaf;
	}
}

/* Context of our caller's caller (skip = frames of the runtime to drop);
   with leaf_of, the caller's frame may end elsewhere than at the call:
   leaf_of(t, parent, ret, arg, &node) gets the callers' node and the
   call's return address and, when it returns true, node is the context
   (*moved says so): a releaser's critical section's store, not its
   unlock (lock.c, §5.49). Inlined into both entry points, so skip counts
   the same frames in each. */
static inline __attribute__((always_inline)) uint32_t context_here(struct rt_thread *t, int skip,
                                                                  cct_leaf_fn leaf_of, void *arg,
                                                                  bool *moved)
{
	void *fr[HC_MAX_FRAMES];
	uint32_t node;
	int n;

	if (moved)
		*moved = false;
	unwind_enter_wait();
	n = unw_backtrace(fr, HC_MAX_FRAMES);
	skip += 1;  /* this function */
	if (n <= skip) {
		unwind_leave();
		return 0;
	}
	if (leaf_of && leaf_of(t, cct__insert(t, (const uint64_t *)(fr + skip + 1), n - skip - 1, 0),
	                       (uint64_t)(uintptr_t)fr[skip], arg, &node)) {
		if (moved)
			*moved = true;
	} else {
		node = cct__insert(t, (const uint64_t *)(fr + skip), n - skip, 0);
	}
	/* The callers' frames too (pthread_create: main's frame before it
	   blocks in pthread_join). Not in signal context, so from a libunwind
	   cursor, exact: the searched stack could hold copies of return
	   addresses here (ASan's interceptor keeps a stack trace in its frame). */
	if (t->cct.frames) {
		uint64_t cfa[HC_MAX_FRAMES];
		unw_context_t uc;
		unw_cursor_t cur;
		unw_word_t ip, sp;
		int k = 0;

		/* Position k of the cursor is frame k of fr (fr[0] differs: the
		   call sites inside this function); its SP is frame k's stack
		   pointer at its call, i.e. the CFA of frame k - 1. */
		if (unw_getcontext(&uc) == 0 && unw_init_local(&cur, &uc) == 0) {
			while (++k < n && unw_step(&cur) > 0 &&
			       !unw_get_reg(&cur, UNW_REG_IP, &ip) && !unw_get_reg(&cur, UNW_REG_SP, &sp) &&
			       (void *)(uintptr_t)ip == fr[k])
				cfa[k - 1] = sp;
			/* cfa[0 .. k-2] known */
			if (k - 1 > skip)
				frames_put(t, (void *const *)fr, cfa, k - 1, 0, skip, node, HC_NONE);
		}
	}
	unwind_leave();
	return node;
}

__attribute__((noinline)) uint32_t cct__context_here(struct rt_thread *t, int skip)
{
	return context_here(t, skip, NULL, NULL, NULL);
}

__attribute__((noinline)) uint32_t cct__context_here_store(struct rt_thread *t, int skip,
                                                           cct_leaf_fn leaf_of, void *arg, bool *moved)
{
	return context_here(t, skip, leaf_of, arg, moved);
}

uint32_t cct__context_caller(struct rt_thread *t, void *uctx, uint64_t ret, uint64_t leaf_ip)
{
	uint32_t p = cct__context(t, uctx, 0);

	if (p == HC_NONE || p == 0 || p >= t->cct.n || t->cct.nodes[p].ip != ret ||
	    (t->cct.nodes[p].flags & HC_NODE_LEAF))
		return HC_NONE;
	return cct__insert_under(t, t->cct.nodes[p].parent, leaf_ip);
}

/* The context of a sample or trap, timed (cost.h: unwind). */
uint32_t cct__context(struct rt_thread *t, void *uctx, uint64_t leaf_ip)
{
	uint64_t t0 = rt_cost_now();
	uint32_t id = context(t, uctx, leaf_ip);

	rt_cost_add(&t->cost[RT_MECH_UNWIND], rt_cost_now() - t0);
	return id;
}
