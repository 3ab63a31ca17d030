/* SPDX-License-Identifier: BSD-3-Clause */
/* detect.c — the per-thread ComDetective rules: what one address sample or
   one watchpoint trap of a thread means, given the shared BulletinBoard.
   A sample first looks up its own line (communication detected by the
   sample), otherwise may ask the caller to arm watchpoints on a line another
   thread stored to recently (communication detected by the trap), and a
   store sample then publishes itself. Pure: times come from the caller,
   randomness from the thread's own xorshift64 state. Runs in the runtime's
   sample and trap handlers; no system calls, no allocation, no locks.
   The rules and the decisions behind them: doc/detection.md. */
#include <errno.h>
#include <string.h>

#include "detect/detect.h"
#include "detect/step.h"

#define DEFAULT_PROBES 8
#define CHUNK 8u                       /* bytes per watchpoint */
#define NCHUNKS (HC_LINE / CHUNK)      /* watchable chunks per line */
#define RECENT_REUSE 8                 /* periods a reuse target stays one when not fresh */

static uint64_t rng_next(struct hc_detect_thread *th)
{
	return hc_xorshift64(&th->rng, 0x9e3779b97f4a7c15ull ^ th->thread);
}

/* Uniform-enough integer in [0, n) by multiply-shift of the high half. */
static uint32_t rng_below(struct hc_detect_thread *th, uint32_t n)
{
	return (uint32_t)(((rng_next(th) >> 32) * n) >> 32);
}

static uint32_t watch_count(const struct hc_detect_config *cfg)
{
	return cfg->nwatch < HC_MAX_WATCH ? cfg->nwatch : HC_MAX_WATCH;
}

/* Weight of one trap (Horvitz-Thompson: `period` over the probability
   that the trapping chunk was watched). A set always watches the chunk of
   the published access (probability 1: the word the other thread stored
   or loaded is the one most likely accessed next, by a true-sharing
   partner) and D-1 of the line's 7 other chunks at random (probability
   (D-1)/7 each). A trap on the published chunk weighs `period`, one on
   another chunk period*7/(D-1) (rounded down; D = 1 never traps there). */
static uint64_t trap_weight(uint64_t period, uint32_t d, bool published_chunk)
{
	if (published_chunk || d <= 1)
		return period;
	return period * (NCHUNKS - 1) / (d - 1);
}

static uint64_t binom(uint32_t n, uint32_t k)
{
	uint64_t r = 1;

	if (k > n)
		return 0;
	for (uint32_t i = 1; i <= k; i++)
		r = r * (n - k + i) / i;
	return r;
}

uint64_t hc_detect_trap_weight(uint64_t period, uint32_t d, uint32_t pub, uint32_t fp)
{
	uint32_t k = 0;
	uint64_t all, miss;

	if (d <= 1 || pub >= NCHUNKS || (fp >> pub) & 1)
		return period;
	if (d > NCHUNKS)
		d = NCHUNKS;
	for (uint32_t i = 0; i < NCHUNKS; i++)
		k += (fp >> i) & 1;
	if (k == 0)
		k = 1;
	/* P(watched) = 1 - C(7 - k, d - 1) / C(7, d - 1) */
	all = binom(NCHUNKS - 1, d - 1);
	miss = binom(NCHUNKS - 1 - k, d - 1);
	return all > miss ? period * all / (all - miss) : period;
}

/* The chunks (bit i: chunk i) of `line` that the mask of bytes m covers. */
static uint32_t chunks_of(uint64_t m)
{
	uint32_t c = 0;

	for (uint32_t i = 0; i < NCHUNKS; i++)
		if ((m >> (i * CHUNK)) & 0xffu)
			c |= 1u << i;
	return c;
}

/* A set chosen among `count` candidates stands for all of them. */
static uint64_t set_weight(uint64_t w, uint32_t count)
{
	return w * (count ? count : 1);
}

void hc_detect_spin_note(struct hc_detect_spin *sp, uint64_t pc, uint64_t line, bool store)
{
	bool near;

	if (pc == 0)
		return;
	sp->n++;
	/* |pc - run's pc| < HC_SPIN_WINDOW, by unsigned wrap-around */
	near = sp->run && pc - sp->pc + HC_SPIN_WINDOW < 2 * HC_SPIN_WINDOW;
	if (near && !store && (line == 0 || sp->line == 0 || line == sp->line)) {
		/* another load of the line, or a register or stack sample of
		   the loop (at -O0 most of a wait's samples, and its first
		   samples may come before the first of the line's load):
		   still waiting */
		if (!sp->line)
			sp->line = line;
		if (sp->run < HC_SPIN_MAX)
			sp->run++;
		return;
	}
	if (sp->run >= HC_SPIN_MIN && sp->line) {
		sp->last_line = sp->line;
		sp->last_run = sp->run;
		sp->last_end = sp->n;
	}
	sp->line = store ? 0 : line;
	sp->pc = pc;
	sp->run = store ? 0 : 1;
}

uint32_t hc_detect_spin_len(const struct hc_detect_spin *sp, uint64_t line)
{
	uint32_t r = line && sp->line == line ? sp->run : 0;

	/* the last wait counts until the thread has been away from it as
	   long as it waited (and HC_SPIN_KEEP samples at most) */
	if (line && sp->last_line == line && sp->n - sp->last_end <= sp->last_run &&
	    sp->n - sp->last_end <= HC_SPIN_KEEP && sp->last_run > r)
		r = sp->last_run;
	return r >= HC_SPIN_MIN ? r : 0;
}

void hc_detect_spin_reset(struct hc_detect_spin *sp, uint64_t line)
{
	if (sp->line == line)
		sp->run = 0;
	if (sp->last_line == line)
		sp->last_line = 0;
}

/* Weigh a communication of th with entry e by what it stands for: in a
   spin wait (th's, or the entry's publisher's, whichever ran longer) only
   the first load after each write communicates, and the run's samples
   stood for the waiting; the communication weighs 1/run of a sample
   (§5.14). */
static void spin_divide(const struct hc_detect_config *cfg, const struct hc_detect_thread *th,
                        const struct hc_bb_entry *e, struct hc_comm *c)
{
	uint32_t d = hc_detect_spin_len(&th->spin, e->line);

	if (e->spin > d)
		d = e->spin;
	if (!cfg->spin_weight || d < 2)
		return;
	c->weight /= d;
	if (c->weight == 0)
		c->weight = 1;
	c->spin = d;
}

/* cfg->trap_lag (§5.73): a trap matched with an entry published more than
   N periods before it stands for one transfer that happened when the
   entry was fresh — the reader, which touches the line all the time, has
   re-read it since (Phoenix reverse_index: loads of `links` matched with
   `currfile` stores 4–64 ms old) — so it weighs N periods / lag of what
   it would. 128-bit free: lag > N × period here. */
static void lag_divide(const struct hc_detect_config *cfg, struct hc_comm *c)
{
	uint64_t n = (uint64_t)cfg->trap_lag * cfg->period;

	c->lag_divided = false;
	if (!cfg->trap_lag || !cfg->period || c->lag <= n)
		return;
	c->weight = c->weight / (c->lag / n ? c->lag / n : 1);
	if (c->weight == 0)
		c->weight = 1;
	c->lag_divided = true;
}

/* Fresh for th: published by another thread after th's previous sample. */
static bool is_fresh(const struct hc_detect_thread *th, const struct hc_bb_entry *e)
{
	return e->thread != th->thread && e->time > th->prev_sample;
}

/* A set has had its interval once a sample of the thread came after the
   one that armed it; a reuse set (§5.30) has cfg->reuse_life samples: a
   pooled buffer's next writer comes a job later (pigz: a median of 6.5
   of the refilling thread's 500 us periods). */
static bool set_is_stale(const struct hc_detect_config *cfg, const struct hc_detect_thread *th)
{
	if (th->armed && th->reuse_set && th->nsamples - th->armed_n < cfg->reuse_life)
		return false;
	if (th->armed && th->handoff_set && th->nsamples - th->armed_n < cfg->handoff_life)
		return false;   /* a hand-off set (§5.36) */
	return !th->armed || th->armed_at < th->prev_sample;
}

/* th's record of the heap block tagged `block` (one of the last
   HC_DETECT_BLOCKS its samples accessed), or NULL. */
static struct hc_detect_block *block_find(const struct hc_detect_thread *th, uint16_t block)
{
	for (uint32_t i = 0; block && i < HC_DETECT_BLOCKS; i++)
		if (th->blocks[i].tag == block)
			return (struct hc_detect_block *)&th->blocks[i];
	return NULL;
}

/* Is e's line in a heap block th's samples accessed lately, or one th
   allocated (cfg->reuse_life)? A pooled buffer that e's thread fills now
   and th refills later; a result buffer th handed out. */
static bool reuse_block(const struct hc_detect_config *cfg, const struct hc_detect_thread *th,
                        const struct hc_bb_entry *e)
{
	const struct hc_detect_block *b;

	if (!cfg->reuse_life || !e->block)
		return false;
	if ((b = block_find(th, e->block)))   /* touched now and then, not worked in */
		return (uint64_t)b->hits * HC_REUSE_SHARE <= th->block_samples - b->first;
	return e->block_owner && e->block_owner == th->thread + 1;
}

/* th's sample accessed the block tagged `block` (0: none). */
static void block_note(struct hc_detect_thread *th, uint16_t block)
{
	struct hc_detect_block *b;

	if (!block)
		return;
	th->block_samples++;
	if ((b = block_find(th, block))) {
		if (b->hits < UINT16_MAX)
			b->hits++;
		return;
	}
	b = &th->blocks[th->blocks_next++ % HC_DETECT_BLOCKS];
	b->tag = block;
	b->hits = 1;
	b->handoff = 0;
	b->first = th->block_samples - 1;
}

/* Dry records count in the thread's own samples (its CPU time), not in
   wall time: on a loaded machine a wall-clock window lapses before the
   thread has run long enough to watch again. How many samples record d
   keeps its line from write-only sets: cfg->dry_samples, doubled for each
   write-only set after the first that ended dry in a row (up to 8 times):
   a line the thread never writes (the other side's index, a read-mostly
   global) is soon left alone, one it writes now and then (an index while
   the queue is full) keeps coming back. */
static uint32_t dry_span(const struct hc_detect_config *cfg, const struct hc_detect_dry *d)
{
	return cfg->dry_samples << (d->level > 4 ? 3 : d->level - 1);
}

/* The dry record of `line` for th, or NULL. */
static struct hc_detect_dry *dry_find(const struct hc_detect_thread *th, uint64_t line)
{
	for (uint32_t i = 0; i < HC_DETECT_DRY; i++)
		if (th->dry[i].line == line && th->dry[i].level)
			return (struct hc_detect_dry *)&th->dry[i];
	return NULL;
}

/* A record that keeps its line from write-only sets now, or NULL. */
static const struct hc_detect_dry *dry_live(const struct hc_detect_config *cfg, const struct hc_detect_thread *th,
                                            uint64_t line)
{
	const struct hc_detect_dry *d = cfg->dry_samples ? dry_find(th, line) : NULL;

	return d && th->nsamples - d->at <= dry_span(cfg, d) ? d : NULL;
}

/* th's write-only set on `line` ended without a trap (probe: its read
   probe ended, trapped or not). */
static void dry_note(const struct hc_detect_config *cfg, struct hc_detect_thread *th, uint64_t line,
                     bool probe)
{
	struct hc_detect_dry *d;

	if (!cfg->dry_samples)
		return;
	if ((d = dry_find(th, line))) {
		if (probe) {
			d->probe_at = th->nsamples;
			d->probed = true;
		} else {
			if (d->level < 255)
				d->level++;
			d->at = th->nsamples;
		}
		return;
	}
	if (probe)
		return;                       /* its record is gone: nothing to remember */
	for (uint32_t i = 0; i < HC_DETECT_DRY && !d; i++)   /* a free or lapsed record, else round robin */
		if (!th->dry[i].level || th->nsamples - th->dry[i].at > dry_span(cfg, &th->dry[i]))
			d = &th->dry[i];
	if (!d)
		d = &th->dry[th->dry_next++ % HC_DETECT_DRY];
	d->line = line;
	d->at = th->nsamples;
	d->probed = false;
	d->level = 1;
}

/* th wrote `line` (a trapped store): not dry, its count starts over. */
static void dry_clear(struct hc_detect_thread *th, uint64_t line)
{
	struct hc_detect_dry *d = dry_find(th, line);

	if (d)
		d->level = 0;
}

/* The armed set ends without a trap (expired or replaced): a write-only
   set leaves its line dry, a read probe is done. */
static void set_ended(const struct hc_detect_config *cfg, struct hc_detect_thread *th, uint64_t now,
                      struct hc_detect_result *res)
{
	if (!th->armed || th->start_set)
		return;
	if (th->writes_only) {
		dry_note(cfg, th, th->watched.line, false);
		res->dry = true;
	} else if (th->probe) {
		dry_note(cfg, th, th->watched.line, true);
	}
}

/* The bytes of e's line that th was seen to access recently (0: none
   known; without th->touched always 0); for a moving access (an
   instruction that walks through memory reads or writes the whole line
   over time) those of its span, all of them when the span is unknown. */
static uint64_t own_mask(const struct hc_detect_thread *th, uint64_t line, uint64_t now)
{
	uint64_t m;

	if (th->fixed && !th->moving)
		return 0;
	line &= ~(uint64_t)(HC_LINE - 1);
	m = th->touched ? hc_step_line_mask(th->touched, line, now, th->touched_within) : 0;
	if (th->moving) {
		uint64_t a = th->move_lo > line ? th->move_lo : line;
		uint64_t b = th->move_hi < line + HC_LINE ? th->move_hi : line + HC_LINE;

		if (th->move_hi <= th->move_lo || (th->move_lo <= line && th->move_hi >= line + HC_LINE))
			return ~0ull;
		if (b > a)
			m |= hc_line_bytes(line, a, (uint32_t)(b - a));
	}
	return m;
}

/* The re-fetch test (cfg->refetch_false, doc/detection.md §5.24): th
   accessed the entry's line after the entry was published and before the
   access s. Its copy then held the published bytes, so what s fetches now
   (if anything) was invalidated by a later store, which the entry does not
   show: exact mode counts such a transfer false unless that store wrote
   bytes s reads, and the sampler takes the likelier case (a queue's
   consumer re-reading item k after the producer stored item k + 1 on the
   line). Only against a published store (a load entry is the peer of what
   s writes, not of what it reads). */
bool hc_detect_refetch(const struct hc_detect_thread *th, const struct hc_sample *s,
                       const struct hc_bb_entry *e)
{
	uint64_t t = hc_step_line_before(th->lines, e->line, s->time);

	return !e->is_load && t != 0 && t > e->time;
}

bool hc_detect_heels(uint64_t heels_ns, const struct hc_sample *s, const struct hc_bb_entry *e)
{
	return heels_ns && e->is_load && s->is_store && s->time >= e->time && s->time - e->time <= heels_ns &&
	       hc_ranges_overlap(s->addr, s->len, e->addr, e->len);
}

/* True or false sharing between the detecting access s (of th) and the
   published access e, on e's line. Exact mode counts the reader's miss
   true iff the reader's bytes meet what the writer wrote since the line
   moved: not the one access each side happened to be caught at (a
   queue's consumer caught at item i, its producer at item i+1, share the
   whole line over time; a halo's rows likewise), but the bytes each
   side's code keeps touching. So each side's access counts together with
   the bytes of the line it was seen to access recently (th's own line
   mask, the entry's mask); two threads that each keep to their own field
   stay false. With cfg->refetch_false a re-fetch is false first
   (hc_detect_refetch), with cfg->heels_ns a store at a reader's heels
   (hc_detect_heels). *by_mask: true only through the masks; *refetch,
   *heels: false by those tests. */
static bool judge_true(const struct hc_detect_config *cfg, const struct hc_detect_thread *th,
                       const struct hc_sample *s, const struct hc_bb_entry *e, bool *by_mask,
                       bool *refetch, bool *heels, bool *false_update)
{
	uint64_t sb = hc_line_bytes(e->line, s->addr, s->len ? s->len : 1);
	uint64_t eb = hc_line_bytes(e->line, e->addr, e->len ? e->len : 1);

	*by_mask = false;
	*false_update = false;
	*refetch = cfg->refetch_false && hc_detect_refetch(th, s, e);
	*heels = !*refetch && hc_detect_heels(cfg->heels_ns, s, e);
	if (*refetch || *heels)
		return false;
	if (hc_ranges_overlap(s->addr, s->len, e->addr, e->len))
		return true;
	/* Two updates by a moving instruction (§5.54): each thread adds into
	   the element its data name (streamcluster's lower[center_table[a]]
	   += …, a shared histogram's bins); in exact mode's model the
	   transfer is true only where the second update meets the bytes the
	   first wrote, not the whole line the masks and moving spans cover
	   over time. Fixed updates keep their masks: a struct's fields
	   updated together (a total's sum and count) are met by the next
	   thread's first one, which the sample did not see. */
	if (cfg->update_bytes && s->update && e->update && (th->moving || s->moving)) {
		*false_update = true;
		return false;
	}
	if (((sb | own_mask(th, e->line, s->time)) & (eb | e->mask)) == 0)
		return false;
	*by_mask = true;
	return true;
}

static void fill_comm(const struct hc_detect_config *cfg, struct hc_comm *c, const struct hc_detect_thread *th,
                      const struct hc_sample *s, const struct hc_bb_entry *e, uint64_t weight, uint32_t how)
{
	bool by_mask, refetch, heels, false_update;

	c->time = s->time;
	c->weight = weight;
	c->addr = s->addr;
	c->len = s->len;
	c->cpu = s->cpu;
	c->ctx = s->ctx;
	c->peer = e->thread;
	c->peer_addr = e->addr;
	c->peer_len = e->len;
	c->peer_cpu = e->cpu;
	c->peer_ctx = e->ctx;
	c->flags = how | (e->is_load ? 0 : HC_COMM_PEER_STORE)
	         | (s->is_store ? HC_COMM_STORE : 0)
	         | (judge_true(cfg, th, s, e, &by_mask, &refetch, &heels, &false_update) ? HC_COMM_TRUE : 0);
	c->true_by_mask = by_mask;
	c->false_update = false_update;
	c->false_refetch = refetch;
	c->false_heels = heels;
	c->footprint_weighed = false;
	c->lag = s->time > e->time ? s->time - e->time : 0;
	c->spin = 0;
	c->lag_divided = false;
	c->sync_set = false;
	c->reuse_set = false;
	c->handoff_set = false;
}

/* Is e worth watching for th? Another thread's, not counted yet; a store
   published after th's previous sample, on a line th touched (when
   targeting); or a load published within cfg->load_window (or after th's
   previous sample): a trap there catches th writing what the other
   thread reads. Returns 2 for a store, 1 for a load, 0 for neither. */
static int target_kind(const struct hc_detect_config *cfg, const struct hc_detect_thread *th,
                       const struct hc_bb_entry *e, uint64_t now)
{
	if (e->thread == th->thread || e->time <= th->t_prev)
		return 0;
	if (e->is_load) {
		const struct hc_detect_dry *d;

		if (!(e->time > th->prev_sample || (cfg->load_window && now < e->time + cfg->load_window)))
			return 0;
		/* a dry line: a read probe, at most one per cfg->dry_samples */
		d = dry_live(cfg, th, e->line);
		return d && d->probed && th->nsamples - d->probe_at <= cfg->dry_samples ? 0 : 1;
	}
	/* A reuse target stays one for RECENT_REUSE periods (the thread's
	   set may be busy when it is published), once. */
	if (!is_fresh(th, e) && !(reuse_block(cfg, th, e) && e->time > th->reuse_last &&
	                          now - e->time < RECENT_REUSE * cfg->period))
		return 0;
	/* A thread's first samples know too few of its lines to choose by
	   them: any fresh store is a target (a short-lived thread's first
	   accesses are often to what an earlier thread wrote). So is a
	   synchronizing store (§5.17): a flag or lock word is written for
	   another thread to read, and a pipeline's per-row flags are each
	   touched once an iteration, never long enough to be a recent line. */
	return !th->touched || th->nsamples < HC_DETECT_YOUNG || (cfg->sync_targets && e->sync) ||
	       reuse_block(cfg, th, e) ||
	       hc_step_line_recent(th->touched, e->line, now, th->touched_within) ? 2 : 0;
}

/* Was e a target only through cfg->reuse_life (a store in a heap block th
   accessed before, on a line it did not touch recently; not a
   synchronizing store the sync rule admits anyway)? */
static bool reuse_only(const struct hc_detect_config *cfg, const struct hc_detect_thread *th,
                       const struct hc_bb_entry *e, uint64_t now)
{
	return !e->is_load && reuse_block(cfg, th, e) && th->touched &&
	       th->nsamples >= HC_DETECT_YOUNG && !(cfg->sync_targets && e->sync) &&
	       !hc_step_line_recent(th->touched, e->line, now, th->touched_within);
}

/* Was e a target only through cfg->sync_targets (a synchronizing store on
   a line th did not touch recently)? For the counters. */
static bool sync_only(const struct hc_detect_config *cfg, const struct hc_detect_thread *th,
                      const struct hc_bb_entry *e, uint64_t now)
{
	return cfg->sync_targets && e->sync && !e->is_load && th->touched && th->nsamples >= HC_DETECT_YOUNG &&
	       !hc_step_line_recent(th->touched, e->line, now, th->touched_within);
}

/* Look for an entry worth watching among the recent publications and
   cfg->probes random slots (each slot counted once). A store target wins
   over a load target; among the targets of the winning kind one is chosen
   uniformly, and *count says how many there were: the trap that the set
   may give stands for all of them (a set per sample whatever the number
   of candidates would make the traps' volume independent of how much is
   shared). */
static bool pick_entry(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                       struct hc_detect_thread *th, uint64_t now, struct hc_bb_entry *out,
                       uint32_t *count)
{
	uint32_t probes = cfg->probes ? cfg->probes : DEFAULT_PROBES;
	uint32_t i, k, slot, nseen = 0, n[3] = { 0, 0, 0 };
	uint32_t seen[HC_BB_RECENT + 32];
	struct hc_bb_entry e, pick[3];
	int kind;

	if (probes > 32)
		probes = 32;
	for (i = 0; i < HC_BB_RECENT + probes; i++) {
		if (i < HC_BB_RECENT) {
			slot = __atomic_load_n(&bb->recent[i], __ATOMIC_RELAXED);
			if (slot-- == 0 || slot >= bb->nslots)
				continue;
		} else {
			slot = rng_below(th, bb->nslots);
		}
		for (k = 0; k < nseen && seen[k] != slot; k++)
			;
		if (k < nseen)
			continue;
		seen[nseen++] = slot;
		if (!hc_bulletin_read(bb, slot, &e))
			continue;
		kind = target_kind(cfg, th, &e, now);
		/* reservoir sampling: the j-th candidate replaces the pick with
		   probability 1/j */
		if (kind && rng_below(th, ++n[kind]) == 0)
			pick[kind] = e;
	}
	kind = n[2] ? 2 : n[1] ? 1 : 0;
	if (!kind)
		return false;
	*out = pick[kind];
	*count = n[kind];
	return true;
}

/* The chunk of the line that holds e's access (its first byte). */
static uint32_t published_chunk(const struct hc_bb_entry *e)
{
	uint64_t off = e->addr - e->line;

	return off < HC_LINE ? (uint32_t)(off / CHUNK) : 0;
}

/* A partial Fisher-Yates shuffle of the line's other 7 chunks. */
void hc_detect_set_chunks(struct hc_detect_thread *th, const struct hc_bb_entry *e, uint32_t d,
                          uint64_t *addr)
{
	uint8_t chunk[NCHUNKS];
	uint32_t i, j;
	uint8_t tmp;

	for (i = 0; i < NCHUNKS; i++)
		chunk[i] = (uint8_t)i;
	j = published_chunk(e);
	chunk[j] = 0;
	chunk[0] = (uint8_t)j;
	for (i = 0; i < d && i < NCHUNKS; i++) {
		if (i > 0) {
			j = i + rng_below(th, NCHUNKS - i);
			tmp = chunk[i];
			chunk[i] = chunk[j];
			chunk[j] = tmp;
		}
		addr[i] = e->line + (uint64_t)chunk[i] * CHUNK;
	}
}

/* Arm d watchpoints on e's line (hc_detect_set_chunks). */
static void arm_set(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                    const struct hc_bb_entry *e, uint32_t d, uint64_t now, struct hc_detect_result *res)
{
	hc_detect_set_chunks(th, e, d, th->watch_addr);
	for (uint32_t i = 0; i < d; i++)
		res->watch_addr[i] = th->watch_addr[i];
	th->armed = true;
	th->start_set = false;
	th->join_set = false;
	th->lock_set = false;
	th->sync_set = false;
	th->reuse_set = false;
	th->handoff_set = false;
	th->armed_n = th->nsamples;
	th->candidates = 1;
	/* A set on a load watches writes, unless this thread did not write
	   the line the last time it watched it (dry): then it reads it, and
	   its load, published, is the target the other thread lacks. */
	th->probe = e->is_load && dry_live(cfg, th, e->line);
	th->writes_only = e->is_load && !th->probe;
	th->nwatch = d;
	th->armed_at = now;
	th->watched = *e;
	res->arm = true;
	res->nwatch = d;
}

/* A sample's turn of the thread's watchpoint set: with may_arm, a set that
   has had its interval ends (what it leaves dry counts in this choice) and
   a new one goes on a line another thread just published; a set from
   before the previous sample that nothing replaced has had its interval
   and goes off (its weight is one interval's worth). */
static void renew_set(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                      struct hc_detect_thread *th, uint64_t now, bool may_arm,
                      struct hc_detect_result *res)
{
	uint32_t d = watch_count(cfg), count = 1;
	struct hc_bb_entry e;
	bool ended = false;

	if (may_arm && d > 0 && set_is_stale(cfg, th)) {
		set_ended(cfg, th, now, res);
		ended = true;
		if (pick_entry(bb, cfg, th, now, &e, &count)) {
			arm_set(cfg, th, &e, d, now, res);
			th->candidates = count;
			th->sync_set = res->sync_set = sync_only(cfg, th, &e, now);
			th->reuse_set = res->reuse_set = reuse_only(cfg, th, &e, now);
			if (th->reuse_set)
				th->reuse_last = e.time;
		}
	}
	if (!res->arm && th->armed && set_is_stale(cfg, th)) {
		if (!ended)
			set_ended(cfg, th, now, res);
		th->armed = false;
		th->nwatch = 0;
		res->disarm = true;
	}
}

void hc_detect_sample(struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                      struct hc_detect_thread *th, const struct hc_sample *s,
                      struct hc_detect_result *res, struct hc_comm *comm)
{
	uint64_t line = s->addr & ~(uint64_t)(HC_LINE - 1);
	struct hc_bb_entry e;

	memset(res, 0, sizeof(*res));
	hc_detect_spin_note(&th->spin, th->pc, s->is_private ? 0 : line, s->is_store && !s->is_private);

	/* 1. Look up before publishing, so we never read our own entry back.
	   Two loads do not communicate. */
	if (hc_bulletin_lookup(bb, line, &e) && is_fresh(th, &e) && e.time > th->t_prev &&
	    (s->is_store || !e.is_load)) {
		fill_comm(cfg, comm, th, s, &e, cfg->period, 0);
		spin_divide(cfg, th, &e, comm);
		hc_detect_spin_reset(&th->spin, line);
		th->t_prev = e.time;
		res->comm = true;
	}
	/* 2. Nothing here: watch a line another thread just wrote. */
	renew_set(bb, cfg, th, s->time, !res->comm, res);
	block_note(th, s->block);

	/* 3. Stores (and atomic RMWs) publish; loads too with publish_loads. */
	res->published = hc_detect_publish(bb, cfg, th, s);

	th->prev_sample = s->time;
	th->nsamples++;
}

void hc_detect_idle(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                    struct hc_detect_thread *th, uint64_t now, struct hc_detect_result *res)
{
	memset(res, 0, sizeof(*res));
	hc_detect_spin_note(&th->spin, th->pc, 0, false);
	renew_set(bb, cfg, th, now, true, res);
	th->prev_sample = now;
	th->nsamples++;
}

struct hc_bb_entry hc_detect_entry(const struct hc_detect_thread *th, const struct hc_sample *s)
{
	return (struct hc_bb_entry){
		.line = s->addr & ~(uint64_t)(HC_LINE - 1),
		.addr = s->addr,
		.time = s->time,
		.len = s->len,
		.thread = th->thread,
		.cpu = s->cpu,
		.ctx = s->ctx,
		.is_load = !s->is_store,
		.sync = s->is_store && th->sync,
		.echo = th->trap_time && s->time == th->trap_time ? th->trap_echo : 0,
		.block = s->block,
		.block_owner = s->block_owner,
		.update = s->update,
	};
}

int hc_detect_publish(struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                      const struct hc_detect_thread *th, const struct hc_sample *s)
{
	struct hc_bb_entry mine = hc_detect_entry(th, s);
	int rc;

	/* Private memory (the thread's own stack or TLS, read-only data) never
	   publishes, a store no more than a load: no other thread can be the
	   line's next reader, and the entry would only push a shared one out
	   of its slot and of the recent-publication ring. */
	if (s->is_private || (!s->is_store && !cfg->publish_loads))
		return 0;
	/* An echo of an echo (§5.19): a trapped store on a line whose entry
	   another trap published. Not published: the chain would feed itself
	   (each trap makes the next set's target), and the lines it runs on
	   would weigh by how likely their sets trap, not by how much the
	   threads share them. */
	if (cfg->echo_depth && mine.echo > cfg->echo_depth)
		return -ELOOP;
	mine.mask = own_mask(th, mine.line, s->time) | hc_line_bytes(mine.line, s->addr, s->len);
	mine.spin = cfg->spin_weight && mine.is_load ? hc_detect_spin_len(&th->spin, mine.line) : 0;
	rc = hc_bulletin_publish(bb, &mine);
	return rc == 0 ? 1 : rc;
}

static int peer_slot(const uint32_t *peers, uint32_t npeers, uint32_t thread)
{
	for (uint32_t i = 0; i < npeers; i++)
		if (peers[i] == thread)
			return (int)i;
	return -1;
}

/* A candidate of a start or join set: a fresh store of another thread
   (not the publisher the last set found), young enough, of a line its
   publisher wrote whole if `whole`. Returns its publisher's slot in
   peers, -1 if not a candidate; with `discover`, a publisher not in
   peers yet is added while there is room (a start set's peers are
   whoever published). */
static int peer_candidate(const struct hc_detect_thread *th, const struct hc_bb_entry *e, uint64_t now,
                          uint64_t max_age, bool whole, uint32_t *peers, uint32_t *npeers, bool discover)
{
	int p;

	if (e->is_load || !is_fresh(th, e) || (whole && e->mask != ~(uint64_t)0) ||
	    e->thread + 1 == th->start_skip || (max_age && e->time < now && now - e->time > max_age) ||
	    (whole && th->join_hi && (e->line < th->join_lo || e->line >= th->join_hi)))
		return -1;
	p = peer_slot(peers, *npeers, e->thread);
	if (p < 0 && discover && *npeers < HC_JOIN_PEERS) {
		peers[*npeers] = e->thread;
		p = (int)(*npeers)++;
	}
	return p;
}

/* A start or join set: one line of each of up to d peers, the peers
   uniformly among those with candidates, each line uniformly among its
   peer's (two passes over the board; a peer left without a candidate in
   the second, the board having changed, is dropped). */
/* A start, join or block set of k lines (th->start[0..k-1], their
   addresses in th->watch_addr) is armed: the thread's state and res. */
static void start_armed(struct hc_detect_thread *th, bool join, uint32_t candidates, uint32_t k, uint64_t now,
                        struct hc_detect_result *res)
{
	th->armed = true;
	th->start_set = true;
	th->join_set = join;
	th->lock_set = false;
	th->sync_set = false;
	th->reuse_set = false;
	th->handoff_set = false;
	th->writes_only = false;
	th->probe = false;
	th->candidates = candidates;
	th->nwatch = k;
	th->armed_at = now;
	th->watched = th->start[0];
	res->arm = true;
	res->nwatch = k;
}

static bool arm_peers(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                      struct hc_detect_thread *th, uint64_t now, uint64_t max_age,
                      const uint32_t *peers_in, uint32_t npeers_in, bool join, struct hc_detect_result *res)
{
	uint32_t d = watch_count(cfg), peers[HC_JOIN_PEERS], cnt[HC_JOIN_PEERS] = { 0 },
	         seen[HC_JOIN_PEERS] = { 0 }, pick[HC_MAX_WATCH], npeers = 0, i, k, with = 0, n = 0, total = 0;
	int chosen[HC_JOIN_PEERS];      /* peer slot -> watch index, -1 = not watched */
	bool got[HC_MAX_WATCH] = { false };
	struct hc_bb_entry e;
	int p;

	if (peers_in) {
		npeers = npeers_in < HC_JOIN_PEERS ? npeers_in : HC_JOIN_PEERS;
		memcpy(peers, peers_in, npeers * sizeof(peers[0]));
	}
	if (d == 0 || (peers_in && npeers == 0))
		return false;
	/* 1. The candidates of each peer. */
	for (i = 0; i < bb->nslots; i++)
		if (hc_bulletin_read(bb, i, &e) &&
		    (p = peer_candidate(th, &e, now, max_age, join, peers, &npeers, !peers_in)) >= 0)
			cnt[p]++;
	/* 2. Up to d of the peers with candidates, uniformly (reservoir). */
	for (i = 0; i < npeers; i++) {
		chosen[i] = -1;
		if (!cnt[i])
			continue;
		with++;
		if (n < d)
			pick[n++] = i;
		else if ((k = rng_below(th, with)) < d)
			pick[k] = i;
	}
	if (n == 0)
		return false;
	for (i = 0; i < n; i++)
		chosen[pick[i]] = (int)i;
	/* 3. One line of each chosen peer, uniformly among its candidates. */
	for (i = 0; i < bb->nslots; i++) {
		if (!hc_bulletin_read(bb, i, &e) ||
		    (p = peer_candidate(th, &e, now, max_age, join, peers, &npeers, false)) < 0 || chosen[p] < 0)
			continue;
		seen[p]++;
		if (rng_below(th, seen[p]) == 0) {
			th->start[chosen[p]] = e;
			got[chosen[p]] = true;
		}
	}
	for (i = k = 0; i < n; i++) {
		if (!got[i])
			continue;
		th->start[k] = th->start[i];
		/* watched with probability (n / with) x (1 / seen) */
		th->start_mult[k] = seen[pick[i]] * with / n;
		if (th->start_mult[k] == 0)
			th->start_mult[k] = 1;
		total += seen[pick[i]];
		k++;
	}
	if (k == 0)
		return false;
	for (i = 0; i < k; i++) {
		th->watch_addr[i] = th->start[i].line + (uint64_t)published_chunk(&th->start[i]) * CHUNK;
		res->watch_addr[i] = th->watch_addr[i];
	}
	start_armed(th, join, total, k, now, res);
	return true;
}

bool hc_detect_arm_start(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                         struct hc_detect_thread *th, uint64_t now, uint64_t max_age,
                         const uint32_t *peers, uint32_t npeers, struct hc_detect_result *res)
{
	memset(res, 0, sizeof(*res));
	if (th->armed && !th->start_set)   /* a start set may be replaced */
		return false;
	return arm_peers(bb, cfg, th, now, max_age, peers, npeers, false, res);
}

bool hc_detect_arm_join(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                        struct hc_detect_thread *th, uint64_t now, uint64_t max_age,
                        const uint32_t *peers, uint32_t npeers, struct hc_detect_result *res)
{
	memset(res, 0, sizeof(*res));
	if (!peers)
		return false;
	return arm_peers(bb, cfg, th, now, max_age, peers, npeers, true, res);
}

bool hc_detect_arm_join_in(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                           struct hc_detect_thread *th, uint64_t now, uint64_t max_age,
                           const uint32_t *peers, uint32_t npeers, uint64_t lo, uint64_t hi,
                           struct hc_detect_result *res)
{
	bool ok;

	memset(res, 0, sizeof(*res));
	if (!peers || hi <= lo)
		return false;
	th->join_lo = lo;
	th->join_hi = hi;
	ok = arm_peers(bb, cfg, th, now, max_age, peers, npeers, true, res);
	th->join_lo = th->join_hi = 0;
	return ok;
}

bool hc_detect_pick_line(const struct hc_bulletin *bb, struct hc_detect_thread *th, uint32_t peer, bool whole,
                         struct hc_bb_entry *e, uint32_t *count)
{
	uint32_t peers[1] = { peer }, npeers = 1, n = 0;
	struct hc_bb_entry x;

	for (uint32_t i = 0; i < bb->nslots; i++)
		if (hc_bulletin_read(bb, i, &x) && peer_candidate(th, &x, 0, 0, whole, peers, &npeers, false) >= 0 &&
		    rng_below(th, ++n) == 0)
			*e = x;
	*count = n;
	return n > 0;
}

bool hc_detect_arm_block(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                         const struct hc_bb_entry *e, uint32_t count, uint64_t lo, uint64_t hi,
                         bool (*written)(uint64_t line), uint64_t now, struct hc_detect_result *res)
{
	uint32_t d = watch_count(cfg), k = 0, nlines;
	uint64_t off = (uint64_t)published_chunk(e) * CHUNK;

	memset(res, 0, sizeof(*res));
	if ((th->armed && !th->start_set) || d == 0)
		return false;
	lo = (lo + HC_LINE - 1) & ~(uint64_t)(HC_LINE - 1);
	if (hi <= lo || hi - lo < HC_LINE)
		return false;
	nlines = (hi - lo) / HC_LINE > UINT32_MAX ? UINT32_MAX : (uint32_t)((hi - lo) / HC_LINE);
	for (uint32_t draw = 0; draw < 4 * d && k < d; draw++) {
		uint64_t line = lo + (uint64_t)rng_below(th, nlines) * HC_LINE;
		bool dup = false;

		for (uint32_t i = 0; i < k; i++)
			dup |= th->start[i].line == line;
		if (dup || (written && !written(line)))
			continue;
		th->start[k] = *e;
		th->start[k].line = line;
		th->start[k].addr = line + off;
		th->start_mult[k] = count ? count : 1;
		th->watch_addr[k] = line + off;
		res->watch_addr[k] = line + off;
		k++;
	}
	if (k == 0)
		return false;
	start_armed(th, false, count ? count : 1, k, now, res);
	return true;
}

/* The trap of a start set: the entry whose line t touched. */
static bool trap_start(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                       const struct hc_sample *t, struct hc_comm *comm)
{
	const struct hc_bb_entry *e = NULL;
	uint32_t i;

	/* a lock set may watch several words of one line: the word's entry */
	for (i = 0; i < th->nwatch && !e && th->lock_set; i++)
		if (hc_ranges_overlap(t->addr, t->len ? t->len : 1, th->start[i].addr, th->start[i].len))
			e = &th->start[i];
	for (i = e ? i : 0; i < th->nwatch && !e; i++)
		if (hc_ranges_overlap(t->addr, t->len ? t->len : 1, th->start[i].line, HC_LINE))
			e = &th->start[i];
	if (!e)
		return false;          /* a late trap of an older set */
	fill_comm(cfg, comm, th, t, e,
	          th->lock_set ? th->lock_weight :
	          (th->join_set && cfg->join_line_ns ? cfg->join_line_ns : cfg->period) * th->start_mult[i - 1],
	          HC_COMM_TRAP);
	if (comm->weight == 0)
		comm->weight = cfg->period;
	comm->handoff_set = th->handoff_set;
	if (th->handoff_set) {
		struct hc_detect_block *b = block_find(th, e->block);

		if (b && b->handoff < UINT16_MAX)
			b->handoff++;
	}
	if (e->time > th->t_prev)
		th->t_prev = e->time;
	if (!th->lock_set && !th->handoff_set)   /* a lock set's peer is the lock's releaser; a hand-off
	                                          set is no start set of a new thread's */
		th->start_skip = e->thread + 1;
	th->handoff_set = false;
	th->armed = false;
	th->start_set = false;
	th->join_set = false;
	th->lock_set = false;
	th->nwatch = 0;
	return true;
}

void hc_detect_arm_failed(struct hc_detect_thread *th)
{
	th->armed = false;
	th->nwatch = 0;
	th->start_set = th->join_set = th->lock_set = th->handoff_set = false;
}

/* Watch slot k of a start set: the 8-byte chunk at a, standing for e. */
static void watch_chunk(struct hc_detect_thread *th, struct hc_detect_result *res, uint32_t k,
                        const struct hc_bb_entry *e, uint64_t a)
{
	th->start[k] = *e;
	th->start[k].addr = a;
	th->start[k].line = a & ~(uint64_t)(HC_LINE - 1);
	th->start[k].len = CHUNK;
	th->start_mult[k] = 1;
	th->watch_addr[k] = a;
	res->watch_addr[k] = a;
}

bool hc_detect_arm_lock(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                        const struct hc_bb_entry *e, const uint64_t *addr, uint32_t n, uint64_t weight,
                        uint64_t now, struct hc_detect_result *res)
{
	uint32_t d = watch_count(cfg), k = 0;

	memset(res, 0, sizeof(*res));
	if ((th->armed && !th->start_set) || d == 0 || n == 0)
		return false;
	for (uint32_t i = 0; i < n && k < d; i++)
		watch_chunk(th, res, k++, e, addr[i] & ~(uint64_t)(CHUNK - 1));
	start_armed(th, false, 1, k, now, res);
	th->lock_set = true;
	th->lock_weight = weight ? weight : 1;
	return true;
}

bool hc_detect_arm_entries(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                           const struct hc_bb_entry *e, uint32_t n, bool fill, uint64_t now,
                           struct hc_detect_result *res)
{
	uint32_t d = watch_count(cfg), k = 0, placed;

	memset(res, 0, sizeof(*res));
	if ((th->armed && !th->start_set) || d == 0 || n == 0)
		return false;
	for (uint32_t i = 0; i < n && k < d; i++) {
		uint64_t a = e[i].addr & ~(uint64_t)(CHUNK - 1);
		bool dup = false;

		for (uint32_t j = 0; j < k; j++)
			dup |= th->watch_addr[j] == a;
		if (!dup)
			watch_chunk(th, res, k++, &e[i], a);
	}
	/* the spare registers: the chunks after each sampled one on its line,
	   the records in turn */
	placed = k;
	for (uint64_t j = 1; fill && j < HC_LINE / CHUNK && k < d; j++)
		for (uint32_t i = 0; i < placed && k < d; i++) {
			uint64_t a = th->start[i].addr + j * CHUNK;
			bool dup = (a & ~(uint64_t)(HC_LINE - 1)) != th->start[i].line;

			for (uint32_t m = 0; m < k && !dup; m++)
				dup = th->watch_addr[m] == a;
			if (!dup) {
				struct hc_bb_entry r = th->start[i];

				watch_chunk(th, res, k++, &r, a);
			}
		}
	start_armed(th, false, 1, k, now, res);
	return true;
}

uint64_t hc_reader_count(uint64_t prev_pc, uint64_t prev_addr, uint64_t pc, uint64_t addr, uint64_t lo,
                         uint64_t hi, uint32_t unit)
{
	uint64_t a, b, n, cap;

	if (unit == 0)
		unit = 1;
	if (prev_pc == 0 || prev_pc != pc || hi <= lo || addr < lo || addr >= hi || prev_addr < lo ||
	    prev_addr >= hi)
		return 1;
	a = (addr - lo) / unit;
	b = (prev_addr - lo) / unit;
	cap = (hi - lo + unit - 1) / unit;
	n = a > b ? a - b : b - a;
	return n == 0 ? 1 : n > cap ? cap : n;
}

uint64_t hc_reader_scaled(uint64_t w, uint64_t weighed, uint64_t total)
{
	unsigned __int128 x;

	if (total == 0 || weighed >= total)
		return w;
	x = (unsigned __int128)w * weighed / total;
	return x == 0 ? 1 : x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

uint64_t hc_reader_chunk(uint64_t addr, uint32_t len)
{
	uint64_t next = (addr + (len ? len : 1) + CHUNK - 1) & ~(uint64_t)(CHUNK - 1);

	return (next & ~(uint64_t)(HC_LINE - 1)) == (addr & ~(uint64_t)(HC_LINE - 1)) ? next : 0;
}

int hc_lock_site(uint64_t a, uint64_t lo, bool heap, const uint8_t *kind, const int64_t *key,
                 const uint32_t *size, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		int64_t w;

		if (kind[i] == 1)
			w = (int64_t)a;
		else if (kind[i] == 2 && heap && lo && a >= lo)
			w = (int64_t)(a - lo);
		else
			continue;
		if (w < key[i] + (int64_t)size[i] && w + 8 > key[i])
			return (int)i;
	}
	return -1;
}

uint32_t hc_lock_words(uint64_t cand, uint64_t good, uint64_t bad, uint32_t *cursor, uint32_t d, uint32_t *out)
{
	uint64_t g = cand & good, u = cand & ~bad & ~good;
	uint32_t n = 0;

	if (g) {
		for (uint32_t i = 0; i < 64 && n < d; i++)
			if (g >> i & 1)
				out[n++] = i;
		return n;
	}
	for (uint32_t j = 0, from = *cursor; j < 64 && n < d && u; j++) {
		uint32_t i = (from + j) & 63;

		if (u >> i & 1) {
			out[n++] = i;
			*cursor = (i + 1) & 63;
		}
	}
	return n;
}

uint32_t hc_lock_fill(uint64_t lo, uint64_t changed, uint64_t mask, uint32_t *out, uint32_t n, uint32_t d)
{
	uint32_t n0 = n;

	changed = (changed | changed << 1) & mask;     /* and the word after each: a queue's next item */
	for (uint32_t i = 0; i < 64 && n < d && changed; i++) {
		uint64_t line = (lo + 8 * (uint64_t)i) & ~(uint64_t)(HC_LINE - 1);
		bool taken = false;

		if (!(changed >> i & 1))
			continue;
		for (uint32_t k = 0; k < n0 && !taken; k++)
			taken = ((lo + 8 * (uint64_t)out[k]) & ~(uint64_t)(HC_LINE - 1)) == line;
		if (!taken)
			out[n++] = i;
	}
	return n;
}

/* The hand-off set's lines (hc_detect_arm_handoff, _region): D distinct
   lines in [lo, hi) (hi - lo >= one line, lo aligned) th did not touch
   lately, after s's line for a store when any is left. */
static bool arm_handoff_lines(struct hc_detect_thread *th, const struct hc_sample *s,
                              const struct hc_bb_entry *w, uint64_t lo, uint64_t hi, uint32_t d,
                              struct hc_detect_result *res)
{
	uint64_t off = (w->addr & (HC_LINE - 1)) & ~(uint64_t)(CHUNK - 1);
	uint64_t from = lo, mine = s->addr & ~(uint64_t)(HC_LINE - 1);
	uint32_t k = 0, nlines;

	if (s->is_store && mine >= lo && mine + HC_LINE < hi)
		from = mine + HC_LINE;       /* a sweeping writer stores there next */
	nlines = (hi - from) / HC_LINE > UINT32_MAX ? UINT32_MAX : (uint32_t)((hi - from) / HC_LINE);
	for (uint32_t draw = 0; draw < 4 * d && k < d; draw++) {
		uint64_t line = from + (uint64_t)rng_below(th, nlines) * HC_LINE;
		bool dup = line == mine;

		for (uint32_t i = 0; i < k; i++)
			dup |= th->start[i].line == line;
		/* a line th touched lately: its next read is no transfer */
		if (dup || (th->touched && hc_step_line_recent(th->touched, line, s->time, th->touched_within)))
			continue;
		th->start[k] = *w;
		th->start[k].line = line;
		th->start[k].addr = line + off;
		th->start[k].len = CHUNK;
		th->start[k].mask = ~0ull;   /* an initialisation writes lines whole */
		th->start[k].spin = 0;
		th->start_mult[k] = 1;
		th->watch_addr[k] = line + off;
		k++;
	}
	if (k == 0)
		return false;
	res->sync_set = res->reuse_set = false;
	start_armed(th, false, 1, k, s->time, res);
	for (uint32_t i = 0; i < k; i++)
		res->watch_addr[i] = th->watch_addr[i];
	th->handoff_set = res->handoff_set = true;
	th->armed_n = th->nsamples - 1;   /* the arming sample's (counted already) */
	return true;
}

/* What both kinds of hand-off set ask of the sample, the record and th's set. */
static bool handoff_ok(const struct hc_detect_config *cfg, const struct hc_detect_thread *th,
                       const struct hc_sample *s, const struct hc_bb_entry *w,
                       const struct hc_detect_result *res)
{
	if (!cfg->handoff_life || watch_count(cfg) == 0 || (s->is_store && !cfg->handoff_stores) || res->comm ||
	    w->is_load || w->thread == th->thread || w->spin != 0)
		return false;
	/* th's set (the one res asks for, or the live one) would watch a load
	   or nothing: a set on a store of another thread (a start set, a
	   reuse set, a live hand-off set) stays. */
	return !(th->armed && !(th->writes_only || th->probe));
}

bool hc_detect_arm_handoff(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                           const struct hc_sample *s, const struct hc_bb_entry *w, uint64_t lo, uint64_t hi,
                           struct hc_detect_result *res)
{
	uint32_t nlines;
	const struct hc_detect_block *b;

	if (!s->block || w->block != s->block || !handoff_ok(cfg, th, s, w, res))
		return false;
	th->handoff_region = false;
	/* the block's size, not its whole lines' span: malloc's 1 MiB block
	   (xz's input buffers) starts 16 bytes into a line */
	if (hi <= lo || hi - lo < HC_HANDOFF_BLOCK_MIN)
		return false;
	lo = (lo + HC_LINE - 1) & ~(uint64_t)(HC_LINE - 1);
	if (hi <= lo + HC_LINE)
		return false;
	nlines = (hi - lo) / HC_LINE > UINT32_MAX ? UINT32_MAX : (uint32_t)((hi - lo) / HC_LINE);
	/* what the thread's first reads of the block could stand for */
	if ((b = block_find(th, s->block)) && b->handoff >= 1 + nlines / HC_HANDOFF_LINES_PER_TRAP) {
		res->handoff_capped = true;
		return false;
	}
	if (cfg->handoff_window && hi - lo > cfg->handoff_window + cfg->handoff_window / 4) {
		/* §5.51: around the sample, mostly ahead of it (s->addr < hi;
		   its line may start before lo, the block's first whole line) */
		const uint64_t mask = ~(uint64_t)(HC_LINE - 1);
		uint64_t mine = s->addr & mask, back = (cfg->handoff_window / 4) & mask, ahead = cfg->handoff_window & mask;

		if (mine < lo)
			mine = lo;
		lo = mine - lo > back ? mine - back : lo;
		hi = hi - mine > ahead ? mine + ahead : hi;
	}
	return arm_handoff_lines(th, s, w, lo, hi, watch_count(cfg), res);
}

bool hc_detect_arm_handoff_region(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                                  const struct hc_sample *s, const struct hc_bb_entry *w, uint64_t lo,
                                  struct hc_detect_result *res)
{
	lo &= ~(uint64_t)(HC_HANDOFF_REGION - 1);
	if (s->addr < lo || s->addr - lo >= HC_HANDOFF_REGION || !handoff_ok(cfg, th, s, w, res) ||
	    (cfg->handoff_region_age && (w->time > s->time || s->time - w->time > cfg->handoff_region_age)) ||
	    (cfg->handoff_region_settle && (w->time > s->time || s->time - w->time < cfg->handoff_region_settle)))
		return false;
	/* §5.50: another thread's own block beside s's in the region
	   (embarrassing -t 4: four 256 KiB arrays in one MiB) */
	if (cfg->handoff_region_block && w->block && s->block && w->block != s->block) {
		res->handoff_other_block = true;
		return false;
	}
	th->handoff_region = true;
	return arm_handoff_lines(th, s, w, lo, lo + HC_HANDOFF_REGION, watch_count(cfg), res);
}

bool hc_detect_arm_handoff_range(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                                 const struct hc_sample *s, const struct hc_bb_entry *w,
                                 struct hc_detect_result *res)
{
	const uint64_t mask = ~(uint64_t)(HC_LINE - 1);
	uint64_t lo = w->addr & mask, hi = (w->addr + w->len + HC_LINE - 1) & mask;
	uint32_t nlines;
	struct hc_detect_block *b;

	if (s->is_store || !s->block || w->block != s->block || s->addr < w->addr ||
	    s->addr - w->addr >= w->len || !handoff_ok(cfg, th, s, w, res))
		return false;
	th->handoff_region = false;
	if (hi <= lo + HC_LINE)
		return false;
	nlines = (hi - lo) / HC_LINE > UINT32_MAX ? UINT32_MAX : (uint32_t)((hi - lo) / HC_LINE);
	if ((b = block_find(th, s->block)) && b->fill_time != w->time) {
		b->fill_time = w->time;
		b->handoff = 0;
	}
	if (b && b->handoff >= 1 + nlines / HC_HANDOFF_LINES_PER_TRAP) {
		res->handoff_capped = true;
		return false;
	}
	if (cfg->handoff_window && hi - lo > cfg->handoff_window + cfg->handoff_window / 4) {
		uint64_t mine = s->addr & mask, back = (cfg->handoff_window / 4) & mask,
		         ahead = cfg->handoff_window & mask;

		lo = mine - lo > back ? mine - back : lo;
		hi = hi - mine > ahead ? mine + ahead : hi;
	}
	return arm_handoff_lines(th, s, w, lo, hi, watch_count(cfg), res);
}

bool hc_detect_trap(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                    const struct hc_sample *t, struct hc_comm *comm)
{
	const struct hc_bb_entry *e = &th->watched;
	uint64_t pc, w, w1;

	if (!th->armed || th->nwatch == 0)
		return false;
	if (th->start_set)
		return trap_start(cfg, th, t, comm);
	/* A trap whose access is not on the watched line (a late trap of an
	   older set) matched nothing; the current set stays armed. */
	if (!hc_ranges_overlap(t->addr, t->len ? t->len : 1, e->line, HC_LINE))
		return false;
	if (e->is_load && !t->is_store) {
		/* Watching a load: this thread read the line too. No
		   communication; the set has done its job (a read probe's: the
		   caller publishes the load). */
		if (th->probe)
			dry_note(cfg, th, e->line, true);
		th->armed = false;
		th->nwatch = 0;
		return false;
	}
	if (e->is_load)
		dry_clear(th, e->line);   /* this thread writes the line */
	pc = e->line + (uint64_t)published_chunk(e) * CHUNK;
	w = w1 = trap_weight(cfg->period, th->nwatch, hc_ranges_overlap(t->addr, t->len ? t->len : 1, pc, CHUNK));
	if (cfg->trap_footprint) {
		/* the trapping access and what the thread was seen to touch of the line */
		uint64_t fp = hc_line_bytes(e->line, t->addr, t->len ? t->len : 1) | own_mask(th, e->line, t->time);

		w = hc_detect_trap_weight(cfg->period, th->nwatch, published_chunk(e), chunks_of(fp));
	}
	fill_comm(cfg, comm, th, t, e, set_weight(w, th->candidates), HC_COMM_TRAP);
	comm->footprint_weighed = w != w1;
	comm->sync_set = th->sync_set;
	comm->reuse_set = th->reuse_set;
	th->trap_time = t->time;
	th->trap_echo = e->echo < UINT8_MAX ? (uint8_t)(e->echo + 1) : UINT8_MAX;
	spin_divide(cfg, th, e, comm);
	lag_divide(cfg, comm);
	hc_detect_spin_reset(&th->spin, e->line);
	if (e->time > th->t_prev)
		th->t_prev = e->time;
	th->armed = false;
	th->nwatch = 0;
	return true;
}

/* ---- synchronisation objects' bytes (§5.37) ---- */

static inline uint32_t sync_hash(uint64_t line)
{
	return (uint32_t)(((line >> 6) * 0x9e3779b97f4a7c15ull) >> 54) & (HC_SYNC_LINES - 1);
}

/* The bytes of one line [a, a + n), n <= 64, a's offset + n <= 64. */
static inline uint64_t sync_bytes(uint64_t a, uint32_t n)
{
	uint32_t off = (uint32_t)(a & 63);

	return (n >= 64 ? ~0ull : ((1ull << n) - 1)) << off;
}

int hc_sync_words_add(struct hc_sync_words *w, uint64_t addr, uint32_t len)
{
	int r = 0;

	if (!len)
		len = 1;
	for (uint64_t a = addr, end = addr + len; a < end;) {
		uint64_t line = a & ~(uint64_t)63, nxt = line + 64 < end ? line + 64 : end;
		uint64_t bits = sync_bytes(a, (uint32_t)(nxt - a));
		uint32_t h = sync_hash(line), k;

		for (k = 0; k < HC_SYNC_PROBE; k++) {
			uint32_t i = (h + k) & (HC_SYNC_LINES - 1);
			uint64_t cur = __atomic_load_n(&w->line[i], __ATOMIC_ACQUIRE);

			if (cur == 0) {
				uint64_t z = 0;

				if (__atomic_compare_exchange_n(&w->line[i], &z, line, false, __ATOMIC_ACQ_REL,
				                                __ATOMIC_ACQUIRE)) {
					__atomic_add_fetch(&w->used, 1, __ATOMIC_RELAXED);
					cur = line;
				} else {
					cur = z;
				}
			}
			if (cur == line) {
				uint64_t old = __atomic_load_n(&w->mask[i], __ATOMIC_RELAXED);

				if ((old & bits) != bits) {
					__atomic_fetch_or(&w->mask[i], bits, __ATOMIC_RELEASE);
					if (r == 0)
						r = 1;
				}
				break;
			}
		}
		if (k == HC_SYNC_PROBE)
			r = -ENOSPC;
		a = nxt;
	}
	return r;
}

bool hc_sync_words_has(const struct hc_sync_words *w, uint64_t addr, uint32_t len)
{
	if (!__atomic_load_n(&w->used, __ATOMIC_RELAXED))
		return false;
	if (!len)
		len = 1;
	if (len > 64)
		len = 64;
	for (uint64_t a = addr, end = addr + len; a < end;) {
		uint64_t line = a & ~(uint64_t)63, nxt = line + 64 < end ? line + 64 : end;
		uint64_t bits = sync_bytes(a, (uint32_t)(nxt - a));
		uint32_t h = sync_hash(line);

		for (uint32_t k = 0; k < HC_SYNC_PROBE; k++) {
			uint32_t i = (h + k) & (HC_SYNC_LINES - 1);
			uint64_t cur = __atomic_load_n(&w->line[i], __ATOMIC_ACQUIRE);

			if (cur == 0)
				break;
			if (cur == line) {
				if (__atomic_load_n(&w->mask[i], __ATOMIC_ACQUIRE) & bits)
					return true;
				break;
			}
		}
		a = nxt;
	}
	return false;
}

bool hc_rep_end(uint64_t ea, uint32_t size, uint64_t rcx, bool df, uint64_t *addr, uint32_t *len)
{
	uint64_t end;

	if (df || !rcx || !size || size > 8 || rcx > (1ull << 40) / size)
		return false;
	end = ea + rcx * size;            /* exclusive */
	if (((end - 1) & ~(uint64_t)(HC_LINE - 1)) == (ea & ~(uint64_t)(HC_LINE - 1)))
		return false;
	*addr = end - 8 > ea ? end - 8 : ea;
	*len = (uint32_t)(end - *addr);
	return true;
}

/* The eligible words' distinct lines, in address order: how many there
   are, and in *pick the words of the j-th (none when j is past the last). */
static uint32_t lines_walk(uint64_t lo, uint64_t eligible, uint32_t j, uint64_t *pick)
{
	uint64_t prev = 0, line;
	uint32_t n = 0;

	*pick = 0;
	for (uint32_t i = 0; i < 64; i++) {
		if (!(eligible >> i & 1))
			continue;
		line = (lo + 8 * (uint64_t)i) & ~(uint64_t)(HC_LINE - 1);
		if (n == 0 || line != prev)
			n++;
		prev = line;
		if (n - 1 == j)
			*pick |= 1ull << i;
	}
	return n;
}

bool hc_lock_acq_switch(uint32_t arms, uint32_t verdicts)
{
	return arms >= HC_LOCK_ACQ_LEARN && (uint64_t)verdicts * HC_LOCK_ACQ_RATIO < arms;
}

uint64_t hc_lock_next_line(uint64_t lo, uint64_t eligible, uint64_t *cursor)
{
	uint64_t first = 0, next = 0, fline = 0, nline = 0, line;

	for (uint32_t i = 0; i < 64; i++) {
		if (!(eligible >> i & 1))
			continue;
		line = (lo + 8 * (uint64_t)i) & ~(uint64_t)(HC_LINE - 1);
		if (!first || line == fline) {
			fline = line;
			first |= 1ull << i;
		}
		if (line > *cursor && (!next || line == nline)) {
			nline = line;
			next |= 1ull << i;
		}
	}
	if (next) {
		*cursor = nline;
		return next;
	}
	if (first)
		*cursor = fline;
	return first;
}

uint64_t hc_lock_pick_words(uint64_t lines, uint64_t cand, uint64_t good, uint64_t bad, bool untried)
{
	uint64_t m = lines & cand, p;

	if (untried && (p = m & ~good & ~bad))
		return p;
	if ((p = m & good))
		return p;
	return m & ~bad;
}

uint64_t hc_lock_draw_line(uint64_t lo, uint64_t eligible, uint64_t r, uint32_t *k)
{
	uint64_t pick;

	*k = lines_walk(lo, eligible, UINT32_MAX, &pick);
	if (!*k)
		return 0;
	lines_walk(lo, eligible, (uint32_t)(r % *k), &pick);
	return pick;
}

int hc_lock_verdict(uint64_t lo, uint64_t changed, uint32_t bit)
{
	uint64_t line, same = 0;

	if (bit > 63)
		return -1;
	if (changed >> bit & 1)
		return 1;
	line = (lo + 8 * (uint64_t)bit) & ~(uint64_t)(HC_LINE - 1);
	for (uint32_t i = 0; i < 64; i++)
		if (((lo + 8 * (uint64_t)i) & ~(uint64_t)(HC_LINE - 1)) == line)
			same |= 1ull << i;
	return changed & same ? 0 : -1;
}

int hc_lock_verdict_bytes(int v, uint8_t bytes, uint64_t word, uint64_t acc, uint32_t len)
{
	uint32_t m = 0;

	if (v != 1 || bytes == 0)
		return v;
	for (uint32_t j = 0; j < 8; j++)
		if (word + j >= acc && word + j < acc + (len ? len : 1))
			m |= 1u << j;
	return (m & bytes) ? 1 : 0;
}

uint64_t hc_lock_line_bytes(const uint64_t *old, const uint64_t *cur)
{
	uint64_t m = 0;

	for (uint32_t i = 0; i < 8; i++) {
		uint64_t x = old[i] ^ cur[i];

		for (uint32_t j = 0; j < 8; j++)
			if (x >> (8 * j) & 0xff)
				m |= 1ull << (8 * i + j);
	}
	return m;
}

int hc_lock_after_verdict(uint64_t line, uint64_t bytes, uint64_t acc, uint32_t len)
{
	if (!bytes)
		return -1;
	return (hc_line_bytes(line, acc, len ? len : 1) & bytes) ? 1 : 0;
}

int hc_lock_way(const uint32_t *slot, const uint32_t *age, uint32_t key, bool want_free, uint32_t ways)
{
	int pick = 0;

	for (uint32_t i = 0; i < ways; i++)
		if (slot[i] == key)
			return (int)i;
	if (!want_free)
		return -1;
	for (uint32_t i = 0; i < ways; i++) {
		if (!slot[i])
			return (int)i;
		if ((int32_t)(age[i] - age[pick]) < 0)
			pick = (int)i;
	}
	return pick;
}
