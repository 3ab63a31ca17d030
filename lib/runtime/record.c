/* SPDX-License-Identifier: BSD-3-Clause */
/* record.c — from a sample to a recorded communication: one address sample
   of any sampler through detection (its context unwound when it publishes,
   the verdict counted, the watchpoints it asks for armed or disarmed,
   HC_DEBUG=detect's lines), and one communication — from a sample or a
   watchpoint trap — recorded into the thread's event buffer, its CCT
   metrics, its NUMA nodes and heap objects. Signal context. */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/numa.h"
#include "runtime/sampler/rate.h"
#include "runtime/alloc/blocks.h"

void record__comm(struct rt_thread *t, const struct hc_comm *c)
{
	struct hc_prof_event *e;
	/* A coarse sample stands for mult periods (sampler/rate.h), and so
	   does what it detects or arms: the weight in sampled CPU time. */
	uint64_t weight = rt_rate_weight(c->weight, t->sampler.mult);
	int m;

	if (c->spin)
		t->cnt.spin_weighted++;
	if (c->lag_divided)
		t->cnt.traps_lag_divided++;
	if (c->sync_set)
		t->cnt.sync_comms++;
	if (c->reuse_set)
		t->cnt.reuse_comms++;
	if (c->handoff_set)
		t->cnt.handoff_comms++;
	if (c->false_refetch)
		t->cnt.false_refetch++;
	if (c->false_heels)
		t->cnt.false_heels++;
	if (c->false_update)
		t->cnt.false_update++;
	if (c->footprint_weighed)
		t->cnt.traps_footprint++;
	if ((c->flags & HC_COMM_TRAP) && hc_debug_enabled(HC_DBG_DETECT))
		hc_debug_printf(HC_DBG_DETECT, "T%u trap: %s %#llx+%u %s, peer T%u %s %#llx+%u, weight %llu (spin %u, lag %llu ns)",
		                t->id.index, (c->flags & HC_COMM_STORE) ? "store" : "load",
		                (unsigned long long)c->addr, c->len,
		                !(c->flags & HC_COMM_TRUE) ? (c->false_refetch ? "FALSE(refetch)" : c->false_heels ? "FALSE(heels)" : c->false_update ? "FALSE(update)" : "FALSE") : c->true_by_mask ? "TRUE(mask)" : "TRUE",
		                c->peer, (c->flags & HC_COMM_PEER_STORE) ? "store" : "load",
		                (unsigned long long)c->peer_addr, c->peer_len, (unsigned long long)c->weight, c->spin,
		                (unsigned long long)c->lag);

	if (c->ctx < t->cct.n) {
		bool tr = c->flags & HC_COMM_TRUE;
		m = c->flags & HC_COMM_TRAP ? (tr ? HC_M_TRUE_TRAP : HC_M_FALSE_TRAP)
		                            : (tr ? HC_M_TRUE_SAMPLE : HC_M_FALSE_SAMPLE);
		t->cct.nodes[c->ctx].m[m] += weight;
	}
	if (t->events.n >= t->events.cap) {
		t->cnt.events_dropped++;
		return;
	}
	HC_ASSERT(t->events.v != NULL);
	e = &t->events.v[t->events.n];
	e->time = c->time;
	e->weight = weight;
	e->addr = c->addr;
	e->peer_addr = c->peer_addr;
	e->len = c->len;
	e->peer_len = c->peer_len;
	e->peer = c->peer;
	e->cpu = c->cpu;
	e->peer_cpu = c->peer_cpu;
	e->ctx = c->ctx < t->cct.n ? c->ctx : 0;
	e->peer_ctx = c->peer_ctx;
	e->flags = c->flags;
	numa__note(t, t->events.n, c->addr, c->peer_addr, c->time);
	/* Published complete (release) for a periodic flush in another thread. */
	__atomic_store_n(&t->events.n, t->events.n + 1, __ATOMIC_RELEASE);
	objects__note_event(t, t->events.n - 1);
}

/* HC_DEBUG=detect: one line per sample that reached detection. */
static void debug_detect(const struct rt_thread *t, const struct hc_sample *s, uint64_t leaf,
                         const struct hc_detect_result *res, const struct hc_comm *c)
{
	const char *pub = res->published == 1 ? "published" :
	                  res->published == 0 ? "not published (load)" :
	                  res->published == -EBUSY ? "publish lost a race" : "publish refused";

	if (res->comm)
		hc_debug_printf(HC_DBG_DETECT, "T%u %s %#llx+%u ctx %u pc %#llx blk %#x: %s, %s sharing with T%u",
		                t->id.index, s->is_store ? "store" : "load", (unsigned long long)s->addr,
		                s->len, s->ctx, (unsigned long long)leaf, s->block, pub, (c->flags & HC_COMM_TRUE) ? "TRUE" : "FALSE", c->peer);
	else
		hc_debug_printf(HC_DBG_DETECT, "T%u %s %#llx+%u ctx %u pc %#llx blk %#x: %s, no peer",
		                t->id.index, s->is_store ? "store" : "load", (unsigned long long)s->addr,
		                s->len, s->ctx, (unsigned long long)leaf, s->block, pub);
	if (res->comm)
		hc_debug_printf(HC_DBG_DETECT, "T%u   peer T%u %#llx+%u ctx %u, weight %llu (spin %u)",
		                t->id.index, c->peer, (unsigned long long)c->peer_addr, c->peer_len,
		                c->peer_ctx, (unsigned long long)c->weight, c->spin);
	if (res->arm)
		hc_debug_printf(HC_DBG_DETECT, "T%u   watchpoints asked on %u address(es) from %#llx%s",
		                t->id.index, res->nwatch, (unsigned long long)res->watch_addr[0],
		                res->handoff_set ? " (a hand-off set)" : res->reuse_set ? " (a reuse set)" :
		                res->sync_set ? " (a sync set)" : "");
}

/* What detection decided for the thread's watchpoint set: disarm, count
   a dry end, arm (through the switch gate). Signal context. */
void record__apply_set(struct rt_thread *t, const struct hc_detect_result *r)
{
	uint64_t t0;

	if (r->disarm) {
		watch__disarm(t);
		t->cnt.watch_expired++;
	}
	if (r->dry)
		t->cnt.watch_dry++;
	if (r->arm) {
		int err;

		t0 = process__now();
		err = watch__arm(t, r->watch_addr, r->nwatch);
		if (err != -EAGAIN)        /* -EAGAIN: the switch gate said no, nothing asked */
			rt_cost_add(&t->cost[RT_MECH_ARM], process__now() - t0);
		if (err == 0) {
			t->cnt.watch_armed++;
			if (r->sync_set)
				t->cnt.watch_armed_sync++;
			if (r->reuse_set)
				t->cnt.watch_armed_reuse++;
			if (r->handoff_set)
				t->cnt.watch_armed_handoff++;
			if (t->det.writes_only)
				t->cnt.watch_armed_w++;
			if (t->det.probe)
				t->cnt.watch_probes++;
		} else {
			static int said;

			if (err != -EAGAIN)
				t->cnt.watch_arm_failed++;
			else if (r->handoff_set)
				t->cnt.handoff_gated++;   /* the switch or share gate said no (§5.36) */
			if (err != -EAGAIN && !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
				process__log("thread %u: arming %u watchpoints failed: errno %d (first failure; "
				        "counter watch_arm_failed)", t->id.index, r->nwatch, -err);
			hc_detect_arm_failed(&t->det);
		}
	}
}

/* Reuse sets (doc/detection.md §5.30): the tag of the tracked heap block
   of at least HC_REUSE_BLOCK_MIN bytes holding addr, 0 if none
   (blocks__find is lock-free and async-signal-safe). */
static uint16_t block_tag(struct rt_thread *t, uint64_t addr, uint8_t *owner, struct rt_block *b)
{
	uint32_t thread, ctx;

	*owner = 0;
	if (!blocks__used() || !blocks__find(addr, b) || b->size < HC_REUSE_BLOCK_MIN)
		return 0;
	t->cnt.samples_in_block++;
	if (blocks__site_get(b->site, &thread, &ctx) && thread < 127)
		*owner = (uint8_t)(thread + 1);
	return hc_block_tag(b->base);
}

/* Hand-off sets (doc/detection.md §5.36): the last store sampled in each
   large heap block, one entry per block tag on a board of its own (the
   same seqlocked slots as the BulletinBoard: lock-free, async-signal-safe;
   an entry's line is the tag's key, its spin field counts how often a
   store of another thread than the entry's came in: 0 = one writer).
   Static storage: nothing from the program's heap. */
#define HANDOFF_SLOTS 61u
static unsigned char handoff_mem[HANDOFF_SLOTS * 128] __attribute__((aligned(64)));
static struct hc_bulletin handoff_bb;
static int handoff_ready;

static uint64_t handoff_key(uint16_t tag)
{
	return (uint64_t)tag << 6;
}

static void handoff_region_init(void);   /* §5.41 */

/* §5.75: buffers the kernel filled for a thread (io.c), one entry per
   block tag: the filling thread's store at its call over [addr, addr +
   len). Static storage, as the others. */
static unsigned char fill_mem[HANDOFF_SLOTS * 128] __attribute__((aligned(64)));
static struct hc_bulletin fill_bb;
static int fill_ready;
static int fill_any;      /* a fill was published: until then no sample looks */

void record__handoff_init(void)
{
	if (hc_bulletin_size(HANDOFF_SLOTS) > sizeof(handoff_mem) ||
	    hc_bulletin_init(&handoff_bb, handoff_mem, HANDOFF_SLOTS, 1000000000ull) < 0) {
		process__log("hand-off sets: no board (%zu bytes needed), off", hc_bulletin_size(HANDOFF_SLOTS));
		hc_rt.dcfg.handoff_life = 0;
		return;
	}
	if (hc_rt.opt.handoff_region)
		handoff_region_init();
	if (hc_rt.opt.io_stores && hc_bulletin_size(HANDOFF_SLOTS) <= sizeof(fill_mem) &&
	    hc_bulletin_init(&fill_bb, fill_mem, HANDOFF_SLOTS, 1000000000ull) == 0)
		__atomic_store_n(&fill_ready, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&handoff_ready, 1, __ATOMIC_RELEASE);
}

/* A sampled store as the writer record under key on board bb: its spin
   counts the stores of other threads than the record's (0 = one writer),
   carried over from the record (phase_ns 0: whatever its age; else one
   no older than phase_ns). True if published. */
static bool writer_note(struct rt_thread *t, const struct hc_sample *s, struct hc_bulletin *bb,
                        uint64_t key, uint64_t phase_ns)
{
	struct hc_bb_entry e, old;

	e = hc_detect_entry(&t->det, s);
	e.line = key;
	e.spin = 0;
	if (hc_bulletin_lookup(bb, e.line, &old) &&
	    (!phase_ns || (old.time <= e.time && e.time - old.time < phase_ns))) {
		e.spin = old.spin;
		if (old.thread != e.thread && e.spin < UINT32_MAX) {
			e.spin++;
			t->cnt.handoff_writers++;
		}
	}
	return hc_bulletin_publish(bb, &e) == 0;
}

/* A sampled store in a large block: the block's writer record (kept
   however old: main's initialisation for workers that come long after). */
static void handoff_note(struct rt_thread *t, const struct hc_sample *s, const struct rt_block *b)
{
	if (b->size >= HC_HANDOFF_BLOCK_MIN && writer_note(t, s, &handoff_bb, handoff_key(s->block), 0))
		t->cnt.handoff_noted++;
}

/* Session 19 (§5.41): a small block's store is its region's record
   (HPCRUN_COMM_HANDOFF_REGION): the key past every tag's; a record older
   than HANDOFF_PHASE_NS is a former phase's (MG: the workers zero a range,
   main refills it long after), the new writer's with spin 0. */
#define HANDOFF_PHASE_NS 10000000ull

/* Regions have a board of their own: MG's arrays are hundreds of
   regions, and another thread's record holds its slot only
   HANDOFF_PHASE_NS against a new region's (the blocks' board: 1 s). */
#define HANDOFF_REGION_SLOTS 127u
static unsigned char handoff_region_mem[HANDOFF_REGION_SLOTS * 128] __attribute__((aligned(64)));
static struct hc_bulletin handoff_region_bb;
static int handoff_region_ready;

static void handoff_region_init(void)
{
	if (hc_bulletin_size(HANDOFF_REGION_SLOTS) > sizeof(handoff_region_mem) ||
	    hc_bulletin_init(&handoff_region_bb, handoff_region_mem, HANDOFF_REGION_SLOTS, HANDOFF_PHASE_NS) < 0) {
		process__log("hand-off sets: no region board (%zu bytes needed), regions off",
		             hc_bulletin_size(HANDOFF_REGION_SLOTS));
		return;
	}
	__atomic_store_n(&handoff_region_ready, 1, __ATOMIC_RELEASE);
}

static uint64_t handoff_region_key(uint64_t addr)
{
	return ((addr / HC_HANDOFF_REGION) + 65536u) << 6;
}

static void handoff_region_note(struct rt_thread *t, const struct hc_sample *s)
{
	if (writer_note(t, s, &handoff_region_bb, handoff_region_key(s->addr), HANDOFF_PHASE_NS))
		t->cnt.handoff_region_noted++;
}

/* §5.75: the kernel filled [addr, addr + n) for t (io.c): t's store at
   ctx, as a store sample there would be noted — the block's writer record
   for a large block, each region's the fill touches for a small one.
   Memory outside the tracked heap is not noted (counter io_not_heap). */
void record__io_store(struct rt_thread *t, uint64_t addr, uint64_t n, uint32_t ctx)
{
	struct rt_block b = { 0, 0, 0, 0 };
	struct hc_sample s;
	struct hc_bb_entry e;
	uint64_t end;

	if (!__atomic_load_n(&fill_ready, __ATOMIC_ACQUIRE))
		return;
	if (!blocks__used() || !blocks__find(addr, &b) || b.size < HC_REUSE_BLOCK_MIN ||
	    addr - b.base >= b.size) {
		t->cnt.io_not_heap++;
		return;
	}
	memset(&s, 0, sizeof(s));
	end = addr + n < b.base + b.size ? addr + n : b.base + b.size;
	s.time = process__now();
	s.addr = addr;
	s.len = end - addr < (1u << 30) ? (uint32_t)(end - addr) : (1u << 30) - 1;
	s.is_store = true;
	s.cpu = sched_getcpu();
	s.ctx = ctx;
	s.block = hc_block_tag(b.base);
	{
		uint32_t thread, bctx;

		if (blocks__site_get(b.site, &thread, &bctx) && thread < 127)
			s.block_owner = (uint8_t)(thread + 1);
	}
	e = hc_detect_entry(&t->det, &s);
	e.line = handoff_key(s.block);
	e.spin = 0;
	e.mask = ~0ull;
	if (hc_bulletin_publish(&fill_bb, &e) == 0) {
		t->cnt.io_noted++;
		if (!__atomic_load_n(&fill_any, __ATOMIC_RELAXED))
			__atomic_store_n(&fill_any, 1, __ATOMIC_RELEASE);
	}
	else
		t->cnt.io_lost++;
}

bool record__fill_other(struct rt_thread *t, uint64_t addr, uint64_t now)
{
	struct rt_block b = { 0, 0, 0, 0 };
	struct hc_bb_entry w;

	return __atomic_load_n(&fill_any, __ATOMIC_ACQUIRE) && blocks__used() && blocks__find(addr, &b) &&
	       b.size >= HC_REUSE_BLOCK_MIN && hc_bulletin_lookup(&fill_bb, handoff_key(hc_block_tag(b.base)), &w) &&
	       w.thread != t->id.index && addr >= w.addr && addr - w.addr < w.len && w.time <= now &&
	       now - w.time <= hc_rt.opt.handoff_region_age;
}

/* §5.75: a load sample in a block whose buffer the kernel filled for
   another thread lately arms a hand-off set on the fill's lines. */
static void fill_arm(struct rt_thread *t, const struct hc_sample *s, struct hc_detect_result *res)
{
	struct hc_bb_entry w;

	if (!hc_bulletin_lookup(&fill_bb, handoff_key(s->block), &w) || w.time > s->time ||
	    s->time - w.time > hc_rt.opt.handoff_region_age)
		return;
	if (hc_detect_arm_handoff_range(&hc_rt.dcfg, &t->det, s, &w, res))
		t->cnt.io_sets++;
}

static void handoff_region_arm(struct rt_thread *t, const struct hc_sample *s, struct hc_detect_result *res)
{
	struct hc_bb_entry w;

	if (!hc_bulletin_lookup(&handoff_region_bb, handoff_region_key(s->addr), &w)) {
		if (hc_debug_enabled(HC_DBG_DETECT))
			hc_debug_printf(HC_DBG_DETECT, "T%u region %#llx: no record", t->id.index,
			                (unsigned long long)(s->addr / HC_HANDOFF_REGION));
		return;
	}
	if (hc_debug_enabled(HC_DBG_DETECT))
		hc_debug_printf(HC_DBG_DETECT, "T%u region %#llx: record T%u spin %u age %llu us comm %d armed %d wo %d",
		                t->id.index, (unsigned long long)(s->addr / HC_HANDOFF_REGION), w.thread, w.spin,
		                (unsigned long long)((s->time - w.time) / 1000), res->comm, t->det.armed,
		                t->det.writes_only || t->det.probe);
	if (w.thread != t->id.index && w.spin != 0)
		t->cnt.handoff_shared++;
	if (hc_detect_arm_handoff_region(&hc_rt.dcfg, &t->det, s, &w, s->addr, res)) {
		t->cnt.handoff_region_sets++;
		if (s->is_store)
			t->cnt.handoff_store_sets++;
	} else if (res->handoff_other_block)
		t->cnt.handoff_region_other_block++;
}

/* A sampled load in a large block: a hand-off set if its writer record
   says one other thread wrote it (hc_detect_arm_handoff). */
static void handoff_arm(struct rt_thread *t, const struct hc_sample *s, const struct rt_block *b,
                        struct hc_detect_result *res)
{
	struct hc_bb_entry w;

	if (b->size < HC_HANDOFF_BLOCK_MIN || !hc_bulletin_lookup(&handoff_bb, handoff_key(s->block), &w))
		return;
	if (w.thread != t->id.index && w.spin != 0)
		t->cnt.handoff_shared++;
	bool armed = hc_detect_arm_handoff(&hc_rt.dcfg, &t->det, s, &w, b->base, b->base + b->size, res);

	if (hc_debug_enabled(HC_DBG_DETECT) && w.thread != t->id.index)
		hc_debug_printf(HC_DBG_DETECT, "T%u block of %llu bytes: record T%u spin %u age %llu us: hand-off set %s",
		                t->id.index, (unsigned long long)b->size, w.thread, w.spin,
		                (unsigned long long)((s->time - w.time) / 1000),
		                armed ? "armed" : res->handoff_capped ? "capped" : "none");
	if (armed && s->is_store)
		t->cnt.handoff_store_sets++;
	if (res->handoff_capped)
		t->cnt.handoff_capped++;
}

void record__detect_sample(struct rt_thread *t, void *uctx, uint64_t leaf, struct hc_sample *s)
{
	struct hc_detect_result res;
	struct hc_comm comm;
	uint64_t t0;

	watch__held_flush(t);
	/* What publishes (non-private stores; non-private loads with
	   publish_loads) takes its context along in the entry: unwind now for
	   those, lazily for other accesses that communicate. */
	bool publishes = !s->is_private && (s->is_store || hc_rt.dcfg.publish_loads);

	struct rt_block b = { 0, 0, 0, 0 };
	bool handoff = hc_rt.dcfg.handoff_life && __atomic_load_n(&handoff_ready, __ATOMIC_ACQUIRE);

	s->block = 0;
	s->block_owner = 0;
	if ((hc_rt.dcfg.reuse_life || handoff) && (!s->is_private || t->watch.line_heap))
		s->block = block_tag(t, s->addr, &s->block_owner, &b);
	rt_split(t, RT_SPLIT_BLOCK);
	s->ctx = publishes ? cct__context(t, uctx, leaf) : HC_NONE;
	rt_split(t, RT_SPLIT_UNWIND);
	if (s->ctx == HC_NONE && publishes)
		return;                    /* the walk faulted: sample dropped */
	t0 = process__now();
	hc_detect_sample(&hc_rt.bb, &hc_rt.dcfg, &t->det, s, &res, &comm);
	/* s->block is set for heap lines only, a load's line this thread
	   had not seen (is_private, not published) included */
	if (handoff && s->block && b.size >= HC_HANDOFF_BLOCK_MIN) {
		if (s->is_store && hc_rt.dcfg.handoff_stores)
			handoff_arm(t, s, &b, &res);   /* before the store is noted (§5.41) */
		if (s->is_store)
			handoff_note(t, s, &b);
		else
			handoff_arm(t, s, &b, &res);
	} else if (handoff && b.size && s->addr - b.base < b.size &&
	           __atomic_load_n(&handoff_region_ready, __ATOMIC_ACQUIRE)) {
		/* a small tracked block (no tag under HC_REUSE_BLOCK_MIN): its region (§5.41) */
		if (s->is_store ? hc_rt.dcfg.handoff_stores : hc_rt.opt.handoff_region == 1)
			handoff_region_arm(t, s, &res);
		if (s->is_store)
			handoff_region_note(t, s);
	}
	if (handoff && s->block && !s->is_store && !res.handoff_set && !res.comm &&
	    __atomic_load_n(&fill_any, __ATOMIC_ACQUIRE))
		fill_arm(t, s, &res);   /* §5.75 */
	rt_cost_add(&t->cost[RT_MECH_DETECT], process__now() - t0);
	if (res.published == 1 && s->is_store)
		t->cnt.published++;
	else if (res.published == 1)
		t->cnt.published_loads++;
	else if (res.published == -EBUSY)
		t->cnt.publish_lost_race++;
	else if (res.published == -EEXIST)
		t->cnt.publish_refused++;
	if (res.comm) {
		t->cnt.detections_sample++;
		if (comm.true_by_mask)
			t->cnt.true_by_mask++;
		if (comm.ctx == HC_NONE)
			comm.ctx = cct__context(t, uctx, leaf);
		if (comm.ctx != HC_NONE && !s->is_store) {
			/* a load next to a flag this thread polls (watch.c, §5.58) */
			struct hc_sample ps = *s;
			uint32_t pctx;

			ps.ctx = comm.ctx;
			pctx = watch__poll_reader(t, &ps, leaf);
			if (pctx != HC_NONE)
				comm.ctx = pctx;
		}
		if (comm.ctx != HC_NONE)   /* else the walk faulted: dropped */
			record__comm(t, &comm);
	}
	rt_split(t, RT_SPLIT_DETECT);
	record__apply_set(t, &res);
	rt_split(t, RT_SPLIT_APPLY);
	watch__pset_sample(t, s, leaf);   /* a thread the switch gate refuses (watch.c) */
	rt_split(t, RT_SPLIT_PSET);
	pipe__sample(t, leaf, s);   /* pipeline sets (pipe.c) */
	if (b.size && res.published == 1 && hc_rt.opt.reader_samples)
		watch__pset_reader(t, s, leaf, b.base, b.base + b.size);   /* reader sets (§5.57) */
	if (hc_debug_enabled(HC_DBG_DETECT))
		debug_detect(t, s, leaf, &res, &comm);
}

/* A sample without a shared access (registers, stack only): the thread's
   watchpoint set still takes its turn (hc_detect_idle), so that a thread
   computing in registers between its loads and stores watches what other
   threads publish. */
void record__idle_sample(struct rt_thread *t)
{
	struct hc_detect_result res;

	uint64_t armed = t->cnt.watch_armed;

	watch__held_flush(t);
	hc_detect_idle(&hc_rt.bb, &hc_rt.dcfg, &t->det, process__now(), &res);
	rt_split(t, RT_SPLIT_IDLE);
	record__apply_set(t, &res);
	rt_split(t, RT_SPLIT_APPLY);
	if (hc_debug_enabled(HC_DBG_DETECT))
		hc_debug_printf(HC_DBG_DETECT, "T%u idle sample (no shared access)%s", t->id.index,
		                res.arm ? ", watchpoints asked" : "");
	watch__pset_tick(t);
	rt_split(t, RT_SPLIT_PTICK);
	t->cnt.watch_armed_idle += t->cnt.watch_armed - armed;
}
