/* SPDX-License-Identifier: BSD-3-Clause */
/* track.c — the live-block table seen from a thread (track.h has the
   inline common cases): the slow insert and removals under the thread's
   re-entrancy guard, and a thread's start (its cache, its object buffer,
   the table after a fork). Built without ASan with the wrappers. Not
   signal context. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "runtime/pset.h"
#include "runtime/rt.h"
#include "runtime/safety.h"
#include "runtime/alloc/track.h"

/* fork: the child's table is still the parent's (its blocks belong to the
   parent's threads and contexts): it is dropped when the child's first
   thread starts (track__thread_start sees the new pid). The table has no
   lock that a fork could leave held. */
static uint32_t table_pid;

#define TRACK_BIG_MIN (64u * 1024u)
#define TRACK_BIG_RING 8u
#define TRACK_ASK_MAX 64u      /* big blocks asked about at their allocation, a process */
static void track_note_big(uint32_t thread, uint64_t base, uint64_t n);
static bool block_resident(uint64_t base, uint64_t size);

__attribute__((noinline)) void track__slow(struct rt_thread *t, uint64_t base, uint64_t n,
                                           uint32_t mark, uint32_t kind)
{
	int ret;

	if (mark == CONTEXT_MARK_SELF)
		return;     /* the runtime's own allocation */
	hc_guard_enter(t);
	if (kind == HC_OBJ_MALLOC)     /* small blocks without the direct shadow, big ones */
		ret = blocks__insert_fast(&t->alloc.leaves, base, n, CONTEXT_MARK_SITE(mark));
	else
		ret = blocks__insert(&t->alloc.leaves, base, n, CONTEXT_MARK_SITE(mark), kind);
	if (ret == 0) {
		t->cnt.allocs_tracked++;
		if (n >= TRACK_BIG_MIN)
			track_note_big(t->id.index, base, n);
	} else {
		t->cnt.allocs_dropped++;
	}
	hc_guard_leave(t);
}

/* The process's last TRACK_BIG_RING blocks of TRACK_BIG_MIN bytes or more
   (base, size, allocating thread + 1), for a new thread's creator's block
   set (soft.c): what a creator allocated before starting its workers.
   Each field is written relaxed; a reader checks the block is still live. */
static uint64_t big_base[TRACK_BIG_RING], big_size[TRACK_BIG_RING];
static uint32_t big_thread[TRACK_BIG_RING], big_next;
/* TRACK_UNASKED until its allocator next creates a thread, then whether
   it had written the block by then (track__creating) */
enum { TRACK_UNASKED, TRACK_WRITTEN, TRACK_UNWRITTEN };
static uint32_t big_written[TRACK_BIG_RING];

static void track_note_big(uint32_t thread, uint64_t base, uint64_t n)
{
	uint32_t k = __atomic_fetch_add(&big_next, 1, __ATOMIC_RELAXED) % TRACK_BIG_RING;

	/* Already resident when the allocator hands it out (calloc's memset,
	   a heap range used before): the pages say nothing about the
	   creator's own stores, and the block is never a written one. Asked
	   only while the process has not created a thread yet (a team's
	   arrays, allocated and initialised before the team starts), at most
	   TRACK_ASK_MAX times: 16 mincore calls cost ~40 us in this VM, and a
	   loop of big malloc/free pairs paid them every time (0.1-0.4 us a
	   pair without); a block allocated later is never a written one. */
	static uint32_t asked;
	uint32_t w = TRACK_UNASKED;

	if (hc_rt.opt.start_block_written) {
		if (__atomic_load_n(&hc_rt.next_index, __ATOMIC_RELAXED) > 1 ||
		    __atomic_fetch_add(&asked, 1, __ATOMIC_RELAXED) >= TRACK_ASK_MAX || block_resident(base, n))
			w = TRACK_UNWRITTEN;
	}

	__atomic_store_n(&big_thread[k], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&big_written[k], w, __ATOMIC_RELAXED);
	__atomic_store_n(&big_base[k], base, __ATOMIC_RELAXED);
	__atomic_store_n(&big_size[k], n, __ATOMIC_RELAXED);
	__atomic_store_n(&big_thread[k], thread + 1, __ATOMIC_RELEASE);
}

uint32_t track__recent_big(uint32_t thread, bool written_only, struct rt_block *out, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < TRACK_BIG_RING && n < max; k++) {
		uint64_t a;

		if (__atomic_load_n(&big_thread[k], __ATOMIC_ACQUIRE) != thread + 1)
			continue;
		if (written_only && __atomic_load_n(&big_written[k], __ATOMIC_RELAXED) != TRACK_WRITTEN)
			continue;
		a = __atomic_load_n(&big_base[k], __ATOMIC_RELAXED);
		if (blocks__find(a, &out[n]) && out[n].base == a)
			n++;       /* else freed since */
	}
	return n;
}

/* Whether most of the pages asked about of [base, base + size) are
   resident (pset.h rt_pset_written). A page no longer mapped (the block
   freed meanwhile) is not asked: mincore fails with ENOMEM. */
static bool block_resident(uint64_t base, uint64_t size)
{
	uint32_t resident = 0, asked = 0;

	for (uint32_t i = 0; i < RT_PSET_WRITTEN_PAGES; i++) {
		int r = rt_page_resident(rt_pset_written_page(base, size, i, RT_PSET_WRITTEN_PAGES, RT_PAGE));

		if (r >= 0) {
			asked++;
			resident += (uint32_t)r;
		}
	}
	return rt_pset_written(resident, asked);
}

uint32_t track__creating(uint32_t thread)
{
	uint32_t written = 0;

	for (uint32_t k = 0; k < TRACK_BIG_RING; k++) {
		uint64_t base, size;

		if (__atomic_load_n(&big_thread[k], __ATOMIC_ACQUIRE) != thread + 1 ||
		    __atomic_load_n(&big_written[k], __ATOMIC_RELAXED) != TRACK_UNASKED)
			continue;
		base = __atomic_load_n(&big_base[k], __ATOMIC_RELAXED);
		size = __atomic_load_n(&big_size[k], __ATOMIC_RELAXED);
		if (block_resident(base, size)) {
			__atomic_store_n(&big_written[k], TRACK_WRITTEN, __ATOMIC_RELAXED);
			written++;
		} else {
			__atomic_store_n(&big_written[k], TRACK_UNWRITTEN, __ATOMIC_RELAXED);
		}
	}
	return written;
}

__attribute__((noinline)) int track__free_slow(struct rt_thread *t, uint64_t base)
{
	int r;

	hc_guard_enter(t);      /* track__free saw it clear */
	r = blocks__remove_fast(&t->alloc.leaves, base);
	if (r < 0)
		r = blocks__remove(&t->alloc.leaves, base, NULL);
	hc_guard_leave(t);
	return r;
}

bool track__remove(void *p, struct rt_block *old)
{
	struct rt_thread *t;
	bool had;

	if (!blocks__used())
		return false;
	t = hc_self;
	if (t && hc_guard_enter(t)) {
		had = blocks__remove(&t->alloc.leaves, (uint64_t)(uintptr_t)p, old);
		if (had)
			t->cnt.frees_tracked++;
		hc_guard_leave(t);
		return had;
	}
	/* Inside the runtime, or a thread without a record: no thread state. */
	return blocks__remove(NULL, (uint64_t)(uintptr_t)p, old);
}

void track__remove_range(void *p, size_t len)
{
	struct rt_thread *t;
	uint32_t n;

	if (!blocks__used() || len == 0)
		return;
	t = hc_self;
	if (t && hc_guard_enter(t)) {
		n = blocks__remove_range((uint64_t)(uintptr_t)p, (uint64_t)(uintptr_t)p + len);
		t->cnt.frees_tracked += n;
		hc_guard_leave(t);
	} else {
		blocks__remove_range((uint64_t)(uintptr_t)p, (uint64_t)(uintptr_t)p + len);
	}
}

void track__restore(const struct rt_block *b)
{
	struct rt_thread *t = hc_self;

	if (t && hc_guard_enter(t)) {
		if (blocks__insert(&t->alloc.leaves, b->base, b->size, b->site, b->kind) == 0)
			t->cnt.allocs_tracked++;
		else
			t->cnt.allocs_dropped++;
		hc_guard_leave(t);
	} else {
		blocks__insert(NULL, b->base, b->size, b->site, b->kind);
	}
}

void track__process_start(void)
{
	if (!table_pid)
		table_pid = (uint32_t)getpid();
}

int track__thread_start(struct rt_thread *t)
{
	static int said;

	memset(&t->alloc, 0, sizeof(t->alloc));
	t->alloc.min = UINT64_MAX;
	t->alloc.bad = UINT64_MAX;
	loadmap__self_init();
	if (table_pid && t->id.pid != table_pid) {
		/* A forked child: nothing tracked yet in this process. */
		blocks__reset();
	}
	table_pid = t->id.pid;
	if (blocks__init() < 0) {
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			process__log("allocation tracking: cannot reserve the block table: heap objects untracked");
		return -ENOMEM;
	}
	t->alloc.shadow = blocks__shadow();
	t->alloc.bad = t->alloc.shadow ? RT_BLK_BAD : UINT64_MAX;
	t->alloc.ctx = context__alloc(t);
	if (!t->alloc.ctx || objects__thread_start(t) < 0) {
		t->alloc.obj = NULL;
		process__log("thread %u: arena too small: allocations untracked", t->id.index);
		return -ENOMEM;
	}
	t->alloc.verify = CONTEXT_VERIFY_EVERY;
	t->alloc.min = hc_rt.opt.min_alloc ? hc_rt.opt.min_alloc : 1;
	t->alloc.on = true;
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED)) {
		if (hc_rt.opt.min_alloc > 1)
			process__log("allocation tracking: blocks of %llu bytes or more (--min-alloc)",
			        (unsigned long long)hc_rt.opt.min_alloc);
		else
			process__log("allocation tracking: every heap block");
	}
	HC_DEBUG_LOG(HC_DBG_ALLOC, "T%u: tracking blocks of %llu bytes or more, block table %s",
	             t->id.index, (unsigned long long)t->alloc.min, t->alloc.shadow ? "shared" : "none");
	return 0;
}
