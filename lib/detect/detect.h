/* SPDX-License-Identifier: BSD-3-Clause */
/* detect.h — the ComDetective detection core as a pure module: the shared
   BulletinBoard (bulletin.c, per-slot seqlocks) and the per-thread detection
   rules (detect.c). No system calls, no allocation, no clocks: callers pass
   times and memory in, so unit tests replay synthetic streams
   deterministically. Everything here is async-signal-safe and lock-free;
   the runtime calls it from its sample and trap handlers.

   Rules (doc/detection.md):
   - Store samples publish (atomic RMW counts as a store); with
     cfg.publish_loads (soft sampler) so do loads of non-private memory,
     flagged as loads. Loads and stores both look up; a communication
     needs a store on at least one side.
   - On a sample: the entry for the sample's line, from another thread,
     published after this thread's previous sample (fresh) and after this
     thread's t_prev, is one communication of weight `period`; true sharing
     if the byte ranges overlap — each side's access together with the
     bytes of the line that side was seen to access recently (th->touched's
     mask, the entry's mask) —, false otherwise; t_prev := entry time.
   - Otherwise, if this thread's watchpoint set is stale (not armed, or armed
     before this thread's previous sample), pick a fresh entry published by
     another thread and ask the caller to arm D (<= HC_MAX_WATCH) 8-byte
     watchpoints on distinct 8-byte chunks of its line: the chunk of the
     published access, and D-1 others at random. Stores are chosen before
     loads; among the candidates of the chosen kind (recent publications
     and random probes) one uniformly, and the set's trap weighs as many
     times more as there were candidates.
     A set on a published load watches writes only (x86 W breakpoints):
     another thread's load is what the line's writer would communicate
     with, and this thread's own loads of it would only waste the set.
   - A set lives one sampling interval: one still armed when the thread's
     next sample arms nothing new expires (res.disarm).
   - A write-only set that ends without a trap makes its line dry for the
     thread (cfg.dry_samples of its samples, doubled for each further dry
     set in a row, up to 8x): no write-only set on it meanwhile, a read
     probe (RW; its load trap is no communication, the runtime publishes
     the load) at most once per cfg.dry_samples.
   - On the first trap of an armed set: one communication with the entry's
     publisher of weight period on the published chunk, period*7/(D-1) on
     another (1 / the chance it was watched), true iff the trapping access
     overlaps the published access; the whole set is disarmed.
   - Synchronizing stores (cfg.sync_targets): a store made by an xchg
     (a seq_cst store, a flag or lock word) is a target for any other
     thread, whether or not its line is one the thread touched (§5.17).
   - Spin waits (cfg.spin_weight): a communication on a line the detecting
     thread waited on for n samples (a run of samples in one small loop
     loading only that line), or with a published load that carries such
     a wait, weighs 1/n: only the first load after each write
     communicates (§5.14).
   - Publishing: a slot holding the same line is always replaced; a slot
     holding another line (a collision) is replaced only when its entry is
     expired (older than `expiry` ns) or was published by the same thread. */
#ifndef HC_DETECT_H
#define HC_DETECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hc/common.h"

#define HC_MAX_WATCH 4
#define HC_DETECT_YOUNG 2
#define HC_DETECT_DRY 8   /* dry lines remembered per thread */
#define HC_DETECT_BLOCKS 32  /* heap blocks remembered per thread (reuse targets, §5.30) */
#define HC_REUSE_BLOCK_MIN 4096u   /* smaller blocks get no tag: a pool's buffers are large */
/* A block is a reuse target's only while it holds at most 1 in
   HC_REUSE_SHARE of the thread's samples in tagged blocks since its first
   there: a buffer the thread refills now and then, not the array it works
   in (a stencil's grid: each thread's own rows, the neighbours' rows found
   by the lines; at -O0 most of its samples are stack slots, so not all
   samples count). */
#define HC_REUSE_SHARE 8u
/* Hand-off sets (cfg.handoff_life, §5.36): only heap blocks of at least
   this size (an array initialised once and read from memory, not a small
   table a reader keeps in its cache and re-reads). */
#define HC_HANDOFF_BLOCK_MIN (1u << 20)
/* A thread's hand-off traps in one block are at most 1 + its lines /
   HC_HANDOFF_LINES_PER_TRAP: a trap weighs a period (500 us), and one
   thread's first reads of a block's lines, ~100 ns each from memory,
   cannot take more than lines x 100 ns. A table a reader keeps re-reading
   gives no more traps than its first reads could stand for. */
#define HC_HANDOFF_LINES_PER_TRAP 4096u
#define HC_BB_DEFAULT_SLOTS 127

/* One published sample: a store, or (soft sampler, issue #14) a load of
   memory that may be shared. */
struct hc_bb_entry {
	uint64_t line;    /* addr & ~63 */
	uint64_t addr;
	uint64_t time;    /* publication time, ns (CLOCK_MONOTONIC) */
	uint32_t len;     /* < 2^30 */
	uint32_t thread;  /* publisher's thread index */
	int32_t  cpu;
	uint32_t ctx;     /* publisher's CCT node for this access */
	bool     is_load; /* a load (false: a store or atomic RMW) */
	/* The bytes of the line the publisher was seen to access recently,
	   this access included (hc_line_bytes bits; 0 = only this access
	   known): what true/false sharing is judged against (§5.7). */
	uint64_t mask;
	/* The publisher's spin evidence on the line when it published (a load
	   in a run of its samples waiting on the line: hc_detect_spin_len;
	   0 = none): a communication with it weighs 1/spin (§5.14). */
	uint32_t spin;
	/* A synchronizing store: an xchg with memory (C11 seq_cst stores,
	   atomic flags, lock words; other lock-prefixed RMWs are not: tried
	   and dropped, §5.17) — written for another thread to read, a watch
	   target for threads that never touched its line (cfg.sync_targets). */
	bool sync;
	/* Published by a trap (an echo): 1 + the echo of the entry the
	   trapping set watched, saturating (0: published by a sample or a
	   burst). cfg.echo_depth bounds it (§5.19). */
	uint8_t echo;
	/* The tracked heap block (of at least HC_REUSE_BLOCK_MIN bytes) that
	   holds the access, as hc_block_tag of its base (0: none, or not
	   known): a pooled buffer written by one thread now and by another
	   later is a watch target for a thread that touched the block before
	   (cfg.reuse_life, §5.30). */
	uint16_t block;
	/* The thread that allocated that block, + 1 (0: not known, or a
	   thread index above 126): a buffer its allocator hands to others
	   and takes back. */
	uint8_t block_owner;
	/* The access was an update: it read and wrote the same bytes (one
	   RMW instruction, or a load and the store that follows it, or a
	   store after the load of its bytes): cfg.update_bytes (§5.54). */
	bool update;
};

/* A 16-bit tag of a heap block's base address, never 0 (a collision of two
   live blocks' tags only makes one more line a reuse target). */
static inline uint16_t hc_block_tag(uint64_t base)
{
	uint64_t h = (base >> 4) * 0x9e3779b97f4a7c15ull;
	uint16_t v = (uint16_t)(h >> 48);

	return v ? v : 1;
}

struct hc_bb_slot;   /* seqlock + entry, cache-line aligned (bulletin.c) */

#define HC_BB_RECENT 16
struct hc_bulletin {
	uint32_t nslots;
	uint64_t expiry;            /* ns after which a colliding entry may be replaced */
	struct hc_bb_slot *slots;   /* hc_bulletin_size(nslots) bytes, caller-owned */
	/* The slots of the last HC_BB_RECENT publications (slot + 1, 0 = none),
	   where threads look for watchpoint targets first: a board with a few
	   live entries among many slots is rarely hit by random probes. */
	uint32_t recent_pos;
	uint32_t recent[HC_BB_RECENT];
};

/* Bytes of slot memory needed for nslots (callers mmap or use static storage). */
size_t hc_bulletin_size(uint32_t nslots);
/* Initialise over zeroed caller memory (>= hc_bulletin_size(nslots), 64-aligned). */
int  hc_bulletin_init(struct hc_bulletin *bb, void *mem, uint32_t nslots, uint64_t expiry);
uint32_t hc_bulletin_slot_of(const struct hc_bulletin *bb, uint64_t line);
/* Consistent snapshot of slot i; false if empty or a writer was active (torn). */
bool hc_bulletin_read(const struct hc_bulletin *bb, uint32_t i, struct hc_bb_entry *out);
/* Snapshot of the entry for `line`, false if the slot holds another line or none. */
bool hc_bulletin_lookup(const struct hc_bulletin *bb, uint64_t line, struct hc_bb_entry *out);
/* Publish; 0 = written, -EBUSY = another writer held the slot (skipped),
   -EEXIST = a fresh colliding entry of another thread was kept, or (for a
   load) a fresh store of another thread on the same line. Never blocks. */
int  hc_bulletin_publish(struct hc_bulletin *bb, const struct hc_bb_entry *e);

/* Configuration shared by all threads of a process. */
struct hc_detect_config {
	uint64_t period;     /* weight of one sample (events or ns) */
	uint32_t nwatch;     /* D: watchpoints per armed set, 0..HC_MAX_WATCH (0 = no traps) */
	uint32_t probes;     /* slots probed when choosing an entry to watch (default 8) */
	bool publish_loads;  /* loads of non-private memory publish too (soft sampler) */
	uint64_t load_window;/* a published load stays a watch target this long (ns; 0: while fresh) */
	uint32_t dry_samples;/* a line this thread's write-only set watched without a trap is
	                        "dry" for it this many of its samples, more if it stays dry
	                        (0: never remembered) */
	bool spin_weight;    /* weigh a communication of a spin wait by what it stands for (§5.14) */
	bool sync_targets;   /* a synchronizing store is a watch target even on a line the
	                        thread did not touch recently (§5.17) */
	uint32_t echo_depth; /* a trapped store publishes only while its echo (hc_bb_entry.echo)
	                        is at most this; 0 = no bound (§5.19) */
	bool refetch_false;  /* a detection by a thread that accessed the line after the entry's
	                        publication, before this access, is false sharing: a re-fetch
	                        (th->lines; doc/detection.md §5.24) */
	uint64_t heels_ns;   /* a store detected against another thread's load of the same bytes
	                        at most this long after that load is false sharing: the writer
	                        at the reader's heels (hc_detect_heels; §5.28); 0 = off */
	uint32_t reuse_life; /* another thread's store in a heap block this thread's samples
	                        touch now and then (hc_bb_entry.block, HC_REUSE_SHARE) or that
	                        it allocated is a watch target even on a line it did not touch
	                        recently, and the set stays armed for up to this many of the
	                        thread's samples: a pooled buffer that one thread filled and
	                        another refills later (§5.30); 0 = off */
	uint32_t handoff_life; /* a load sample in a large heap block that one other thread
	                        alone was seen storing to arms a hand-off set (hc_detect_arm_handoff)
	                        that lives up to this many of the thread's samples (§5.36); 0 = off */
	bool handoff_stores; /* a store sample arms a hand-off set too, on lines ahead of it
	                        (hc_detect_arm_handoff; §5.41): exact counts a store to a line
	                        another thread wrote last as a transfer */
	uint64_t handoff_region_age; /* a region's writer record arms sets only this long after its
	                        store, ns, 0 = any age (hc_detect_arm_handoff_region; §5.41) */
	uint64_t handoff_region_settle; /* ... and only once it is this old, ns, 0 = at once: a
	                        writer that stopped storing in the region, not one still
	                        writing beside the sample's thread (§5.42) */
	uint64_t handoff_window; /* a block's hand-off set draws its lines from
	                        [addr - window / 4, addr + window) of the sample, clipped to
	                        the block, not from the whole block: a reader sweeping main's
	                        array reads near where it was sampled (§5.51); 0 = whole block */
	bool handoff_region_block; /* a record stored in another tracked heap block than the
	                        sample's (both tags known) arms nothing: the region holds
	                        several threads' own blocks, not one hand-off (§5.50) */
	bool trap_footprint; /* a trap off the published chunk weighs period over the chance
	                        that the set watched one of the chunks the trapping thread
	                        was seen to touch on the line (hc_detect_trap_weight; §5.31),
	                        not over the chance for its one chunk */
	bool update_bytes;   /* two updates (both accesses read-modify-writes of their own
	                        bytes: x[i] += v) are judged by their bytes alone, not the
	                        threads' masks or moving spans: accumulations land where the
	                        data say, not along a walk (§5.54) */
	uint64_t join_line_ns; /* a join set's trap weighs this per line it stands for (the
	                        joiner reads each of its peers' output lines once, a transfer
	                        each, in microseconds), not a period per line; 0 = the period
	                        (§5.15's weight; detection.md §5.72) */
	uint32_t trap_lag;   /* N > 0: a regular set's trap matched with an entry more than N
	                        periods old weighs N periods / its lag of what it would (the line
	                        moved once, long before, and was re-read since: §5.73); 0 = off */
};

/* The weight of a trap of a set of d chunks (the published chunk `pub`
   and d - 1 of the line's 7 others at random), whose trapping thread
   touches the chunks `fp` of the line (bit i: chunk i; the trapping chunk
   included): period over the probability that the set watched at least
   one of them (Horvitz-Thompson over the set's draw). One chunk known
   besides the published one gives period * 7 / (d - 1), the rule for a
   single word; fp holding pub, or d <= 1, gives period (§5.31). */
uint64_t hc_detect_trap_weight(uint64_t period, uint32_t d, uint32_t pub, uint32_t fp);

/* Spin evidence (doc/detection.md §5.14): a run of a thread's samples that
   stay within HC_SPIN_WINDOW bytes of code and whose shared accesses are
   all loads of one line — a thread waiting on a flag. Only the first load
   after each write of the line communicates; the run's samples stand for
   the waiting, so a communication on the line weighs period / run.
   A sample elsewhere in the code, a shared store or a shared load of
   another line ends the run, and so does a communication the thread
   detects on the line (the wait is over; its run stood for it); the run
   that ended is remembered for as many samples as it lasted, HC_SPIN_KEEP
   at most (a waiter's communication is often found at its next wait,
   after the write that ended the run). Runs shorter than HC_SPIN_MIN are
   no evidence: a load that misses holds the timer's samples, and two in
   a row happen in a loop that communicates at every load. */
#define HC_SPIN_WINDOW 64
#define HC_SPIN_MIN 3
#define HC_SPIN_KEEP 32
#define HC_SPIN_MAX 4096
struct hc_detect_spin {
	uint64_t line;       /* the line the current run loads (0: no run) */
	uint64_t pc;         /* the PC of the run's first sample */
	uint32_t run;        /* samples in the run (loads of `line`, register and stack samples near pc) */
	uint32_t n;          /* samples noted */
	uint64_t last_line;  /* the last run of >= HC_SPIN_MIN samples that ended (0: none) */
	uint32_t last_run, last_end;   /* its samples; n when it ended */
};
/* Note one sample: pc the interrupted PC (0: unknown, the sample is
   ignored), line the line of its shared access (0: none — registers, the
   stack, private memory), store whether that access writes. Pure. */
void hc_detect_spin_note(struct hc_detect_spin *sp, uint64_t pc, uint64_t line, bool store);
/* The thread's spin evidence on `line`: the samples of its current run on
   it, or of its last run on it if that ended within as many samples (and
   HC_SPIN_KEEP), the larger; 0 = none or fewer than HC_SPIN_MIN. At most
   HC_SPIN_MAX. */
uint32_t hc_detect_spin_len(const struct hc_detect_spin *sp, uint64_t line);
/* The thread detected a communication on `line`: its wait there is over. */
void hc_detect_spin_reset(struct hc_detect_spin *sp, uint64_t line);

/* Per-thread detection state; zero-initialise, then set .thread and .rng. */
struct hc_step_lines;   /* step.h */
/* xorshift64 (13, 7, 17): the next number of state *st (0 is stuck and
   is taken as `seed`). The detection's and the runtime's zone choices
   draw from a thread's one state, hc_detect_thread.rng. */
static inline uint64_t hc_xorshift64(uint64_t *st, uint64_t seed)
{
	uint64_t x = *st ? *st : seed;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*st = x;
	return x;
}

struct hc_detect_thread {
	uint32_t thread;
	/* Targeting (issue #14): when set, watchpoints are armed only on a line
	   this thread's own samples touched within `touched_within` ns (a line
	   two threads touched), instead of any fresh entry. */
	const struct hc_step_lines *touched;
	uint64_t touched_within;
	/* The same table for the re-fetch test (cfg.refetch_false): when this
	   thread last accessed a line before the access being judged (NULL:
	   never known). Set apart from `touched` because a process-wide set's
	   trap judges with a thread state that does not target. */
	const struct hc_step_lines *lines;
	/* The access being judged or published is a moving one (its
	   instruction walks through memory: hc_step_pc_moves): it counts as
	   the whole line, in the judgement and in the entry's mask. Set by the
	   runtime around one call, false otherwise. */
	bool moving;
	/* A moving access's span: the addresses its instruction was seen at,
	   [move_lo, move_hi) (hc_step_pc_span plus the access's length); it
	   counts as the bytes of the line in the span, the whole line when
	   the span covers it. move_hi <= move_lo: unknown, the whole line
	   (HPCRUN_COMM_MOVE_SPAN=0; detection.md §5.47). Set with moving. */
	uint64_t move_lo, move_hi;
	/* The access is a confirmed fixed one (hc_step_pc_fixed: its
	   instruction seen at this address again and again): it counts as
	   its own bytes, not with the thread's other bytes of the line
	   (HPCRUN_COMM_FIXED_BYTES; detection.md §5.47). Set with moving. */
	bool fixed;
	/* The store being judged or published is a synchronizing one (an
	   xchg with memory: hc_bb_entry.sync). Set by the runtime around one
	   call, false otherwise. */
	bool sync;
	/* The armed set watches a synchronizing store on a line this thread
	   had not touched recently: armed only by cfg.sync_targets. */
	bool sync_set;
	uint32_t nsamples;      /* samples so far; the first HC_DETECT_YOUNG target any store */
	uint64_t prev_sample;   /* time of this thread's previous sample, 0 = none yet */
	uint64_t t_prev;        /* publication time of the last entry counted */
	uint64_t rng;           /* xorshift64 state, nonzero */
	/* the armed watchpoint set */
	bool     armed;
	bool     writes_only;   /* the set watches a published load: only a write
	                           communicates, so write-only watchpoints */
	uint32_t candidates;    /* entries of the set's kind it was chosen among */
	uint32_t nwatch;
	uint64_t armed_at;
	struct hc_bb_entry watched;
	uint64_t watch_addr[HC_MAX_WATCH];
	/* A start set (hc_detect_arm_start): one watchpoint on each of up to
	   HC_MAX_WATCH entries' lines, start[i] the entry of watch_addr[i]. */
	bool start_set;
	struct hc_bb_entry start[HC_MAX_WATCH];
	uint32_t start_skip;    /* publisher + 1 whose entries the next start set
	                           skips (the one the last start set found), 0 = none */
	/* A join set (hc_detect_arm_join): a start set armed when this thread
	   joined others; start_mult[i] is what a trap on watch_addr[i] weighs,
	   in periods (the candidates its line stands for). */
	bool join_set;
	uint32_t start_mult[HC_MAX_WATCH];
	/* A join set's candidates kept to lines in [join_lo, join_hi) (the
	   object the joiner's previous join trap read; hc_detect_arm_join_in),
	   join_hi 0 = anywhere. */
	uint64_t join_lo, join_hi;
	/* Dry lines (doc/detection.md §5.9): lines on which a write-only set
	   of this thread (on another thread's published load) ended without a
	   trap — this thread did not write them while it watched: a queue's
	   consumer watching the head index the producer loads (and stores
	   itself), a read-mostly global. For cfg.dry_samples of this thread's
	   samples (doubled for each further dry set in a row, up to 8x; a
	   trapped store resets it) a dry line gets no write-only set, only a
	   read probe at most once per cfg.dry_samples (`probe`: RW, its load
	   trap is published as this thread's load — the load the other
	   thread's write-only set needs). */
	struct hc_detect_dry {
		uint64_t line;
		uint32_t at;            /* nsamples when the last write-only set ended dry */
		uint32_t probe_at;      /* nsamples when the last read probe ended */
		bool probed;
		uint8_t level;          /* write-only sets dry in a row, 0 = no record */
	} dry[HC_DETECT_DRY];
	uint32_t dry_next;
	bool probe;
	/* Spin evidence (§5.14). `pc` is the interrupted PC of the sample
	   being handled, set by the runtime around its handling (0 outside a
	   sample: a burst's or a trap's access is not a sample). */
	uint64_t pc;
	struct hc_detect_spin spin;
	/* The last matched trap of a per-thread set: its time (0 = none) and
	   the echo its access gets if published (hc_detect_entry). */
	uint64_t trap_time;
	uint8_t trap_echo;
	/* Reuse targets (cfg.reuse_life, §5.30): the last HC_DETECT_BLOCKS
	   heap blocks this thread's samples accessed (tag, samples in it,
	   block_samples at the first), how many of its samples were in a
	   tagged block, and whether the armed set is a reuse set (armed only
	   through them; it lives reuse_life samples from armed_n). */
	struct hc_detect_block {
		uint16_t tag;
		uint16_t hits;          /* saturating */
		uint16_t handoff;       /* hand-off traps in it (§5.36), saturating */
		uint32_t first;
		uint64_t fill_time;     /* the fill record the handoff count is for (§5.75) */
	} blocks[HC_DETECT_BLOCKS];
	uint32_t blocks_next;
	uint32_t block_samples;
	bool     reuse_set;
	/* The armed set is a lock set (hc_detect_arm_lock, §5.35): a start
	   set armed at a lock hand-off; a trap in system code on it is the
	   lock implementation's, not the program's (the runtime drops it). */
	bool     lock_set;
	uint64_t lock_weight;   /* what its trap weighs (the caller's estimate) */
	uint32_t armed_n;
	uint64_t reuse_last;    /* publication time of the last reuse set's entry: an
	                           entry no newer is no reuse target unless fresh */
	/* The armed set is a hand-off set (hc_detect_arm_handoff, §5.36): a
	   start set on lines of a block one other thread wrote; it lives
	   cfg.handoff_life samples from armed_n. */
	bool     handoff_set;
	/* ... armed on a small blocks' region (hc_detect_arm_handoff_region,
	   §5.41): the runtime asks the switch gate for it (§5.42) */
	bool     handoff_region;
};

/* One address sample (soft, pebs or ibs) or trapping access. */
struct hc_sample {
	uint64_t time;
	uint64_t addr;
	uint32_t len;
	bool     is_store;   /* store or atomic RMW */
	bool     is_private; /* the thread's own stack or TLS: never published */
	int32_t  cpu;
	uint32_t ctx;        /* this thread's CCT node for the access */
	uint16_t block;      /* hc_block_tag of the heap block holding it (0: none/unknown) */
	uint8_t  block_owner;/* its allocating thread + 1 (0: unknown; hc_bb_entry.block_owner) */
	bool     update;     /* read and wrote the same bytes (hc_bb_entry.update, §5.54) */
	bool     moving;     /* its instruction is known to move (as hc_detect_thread.moving,
	                        for a detecting state that is not the thread's own) */
};

/* One detected communication (becomes a struct hc_prof_event). */
struct hc_comm {
	uint64_t time, weight;
	uint64_t addr, peer_addr;
	uint32_t len, peer_len;
	uint32_t peer;
	int32_t  cpu, peer_cpu;
	uint32_t ctx, peer_ctx;
	uint32_t flags;      /* enum hc_comm_flag */
	bool     sync_set;   /* by the trap of a set that only cfg.sync_targets armed (§5.17) */
	bool     reuse_set;  /* by the trap of a set that only cfg.reuse_life armed (§5.30) */
	bool     handoff_set; /* by the trap of a hand-off set (cfg.handoff_life, §5.36) */
	bool     true_by_mask; /* true only through the byte masks: the two
	                          accesses themselves do not overlap */
	bool     false_update;     /* two updates judged by their bytes alone (cfg.update_bytes) */
	bool     false_refetch; /* false by the re-fetch test (cfg.refetch_false) */
	bool     false_heels;   /* false by the heels test (cfg.heels_ns) */
	bool     footprint_weighed; /* a trap weighed by its thread's chunks of the line, not one
	                               (cfg.trap_footprint; §5.31) */
	uint64_t lag;           /* the detecting access's time minus the entry's (ns; 0 if earlier) */
	uint32_t spin;         /* the weight was divided by this (a spin wait, §5.14); 0 = not */
	bool lag_divided;      /* the weight was divided by its lag (cfg.trap_lag, §5.73) */
};

/* What hc_detect_sample decided. */
struct hc_detect_result {
	bool     comm;             /* *comm_out filled */
	int      published;        /* 1 published, 0 not a store, or the -errno of hc_bulletin_publish */
	bool     arm;              /* caller must arm watch_addr[0..nwatch) (8 bytes, RW) */
	bool     disarm;           /* a set armed before the previous sample expired: caller
	                              turns the registers off (an armed breakpoint costs
	                              every context switch) */
	uint32_t nwatch;
	uint64_t watch_addr[HC_MAX_WATCH];
	bool     dry;              /* a write-only set ended without a trap (its line is dry) */
	bool     sync_set;         /* the set asked for is one only cfg.sync_targets allowed */
	bool     reuse_set;        /* the set asked for is one only cfg.reuse_life allowed */
	bool     handoff_set;      /* the set asked for is a hand-off set (§5.36) */
	bool     handoff_capped;   /* none: the thread's traps in the block reached
	                              HC_HANDOFF_LINES_PER_TRAP's bound */
	bool     handoff_other_block; /* none: the region's record is another tracked
	                              block's (cfg.handoff_region_block) */
};

/* Process one sample of thread th. Fills *comm on detection. */
void hc_detect_sample(struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                      struct hc_detect_thread *th, const struct hc_sample *s,
                      struct hc_detect_result *res, struct hc_comm *comm);
/* A sample that saw no shared access (the interrupted code works in
   registers or on its stack): nothing to detect or publish, but the
   thread's watchpoint set takes its turn as at any sample (hc_detect_sample's
   step 2): a thread that computes in registers between its stores and
   loads still watches the lines other threads publish. Fills res->arm,
   res->disarm and res->dry like hc_detect_sample. */
void hc_detect_idle(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                    struct hc_detect_thread *th, uint64_t now, struct hc_detect_result *res);
/* A start set, for a thread that begins after others have ended (short-
   lived generations handing data on: the hand-off reads are the thread's
   first microseconds, long before its first sample). Among the fresh
   stores of other threads on the whole board (every slot read twice),
   by the publishers in peers[0..npeers) (at most HC_JOIN_PEERS; the
   runtime passes the threads that ended, the last HC_JOIN_PEERS of them,
   and the thread's creator — a thread still running alongside is the
   regular sets' business, and its entries took registers from the
   threads that ended, whose hand-off only a start set sees; peers NULL:
   any publisher, the first HC_JOIN_PEERS met),
   one line of each of up to D publishers,
   the publishers chosen uniformly among those with candidates, each line
   uniformly among its publisher's (since session 10; before, D lines
   uniformly among all candidates, which left an older generation with
   few entries left on the board unwatched most of the time); one
   watchpoint each, on the published chunk (a thread that walks over a
   line touches every chunk). A trap on one is one communication with
   that entry's publisher, weight period x (its publisher's candidates) x
   (publishers with candidates) / (publishers watched) (Horvitz-Thompson).
   A later start set skips the publisher the previous one found (a
   thread's first accesses often read what two earlier threads wrote:
   find the other one). Fills res like hc_detect_sample's arm; false if
   there was nothing to watch or a set other than a start set is armed.
   Entries older than max_age ns (0: any age) are not candidates: an
   entry that outlived later, unsampled writers of its line names the
   wrong peer (the runtime passes two lifetimes of the threads that
   ended: the previous generation's entries and the one before, whose
   lines a thread overwrites, stay candidates). */
bool hc_detect_arm_start(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                         struct hc_detect_thread *th, uint64_t now, uint64_t max_age,
                         const uint32_t *peers, uint32_t npeers, struct hc_detect_result *res);
/* The most peers a join set chooses among (hc_detect_arm_join). */
#define HC_JOIN_PEERS 16
/* A join set (doc/detection.md §5.15), for a thread that has just joined
   others (pthread_join): the joiner reads what the joined threads wrote
   (their results, a generation's output), in the microseconds after the
   join, long before its next sample. Candidates: the fresh stores on the
   board of the threads in peers[0..npeers) (the runtime passes the threads
   that ended since the joiner last created one, at most HC_JOIN_PEERS),
   younger than max_age ns (0: any age), and only entries of lines the
   publisher wrote whole (mask all ones: a moving store's, a walk over the
   line) — a joined thread's bulk output; a one-word result (a padded
   per-thread counter) read once by the joiner is a handful of transfers
   that a set's weight would turn into a pair (doc/detection.md §5.8,
   "not kept"). One line of each of up to D peers, as a start set's: a
   joiner that reads the peers' outputs one after the other meets every
   watched line; the trap is a start set's (start_skip its publisher). Fills res like hc_detect_arm_start; replaces any set
   (the joiner's next accesses are most likely the joined threads' data);
   false if nothing qualifies. */
bool hc_detect_arm_join(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                        struct hc_detect_thread *th, uint64_t now, uint64_t max_age,
                        const uint32_t *peers, uint32_t npeers, struct hc_detect_result *res);
/* A join set as hc_detect_arm_join's, its candidates kept to lines in
   [lo, hi) — the object (heap block) the joiner's last join-set trap
   read: a joiner that reads its peers' output reads it there, and the
   peers' entries elsewhere (an older copy, a double buffer's other half)
   are lines it will not touch (doc/detection.md §5.15, "Session 13").
   False if no candidate lies there (the caller may then arm
   hc_detect_arm_join). */
bool hc_detect_arm_join_in(const struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                           struct hc_detect_thread *th, uint64_t now, uint64_t max_age,
                           const uint32_t *peers, uint32_t npeers, uint64_t lo, uint64_t hi,
                           struct hc_detect_result *res);
/* A creator's block set (doc/detection.md §5.16, "Session 14"): a new
   thread's first accesses — a worker's first sweep over arrays its
   creator initialised — are over before its first sample, and the creator
   is sampled a few times in its initialisation at most: one line of it on
   the board, of one worker's part. hc_detect_pick_line: one of `peer`'s
   fresh store entries (with `whole`, only of lines it wrote whole: a
   moving store's), uniformly, not of the publisher th->start_skip names,
   into *e; *count = how many there were. False: none. */
bool hc_detect_pick_line(const struct hc_bulletin *bb, struct hc_detect_thread *th, uint32_t peer, bool whole,
                         struct hc_bb_entry *e, uint32_t *count);
/* hc_detect_arm_block: a start set on D distinct lines drawn uniformly in
   [lo, hi) (the heap block of e's line), each standing for e — the same
   publisher, context and chunk —, each weighing `count` periods (what a
   start set on e alone would); `written` (NULL: any) says whether a line
   may have been written at all (its page resident): a line nobody wrote
   is not the publisher's. At most 4 D draws. Replaces only a start set, as
   hc_detect_arm_start; false if no line qualified. */
bool hc_detect_arm_block(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                         const struct hc_bb_entry *e, uint32_t count, uint64_t lo, uint64_t hi,
                         bool (*written)(uint64_t line), uint64_t now, struct hc_detect_result *res);
/* Lock sets (doc/detection.md §5.35): the thread has just acquired a
   mutex another thread released last; the releaser's stores in its
   critical section are what this thread reads next. A start set on the
   words addr[0..n) (n <= watch count, 8 bytes each), each entry e with
   its address and line set to the word's (e names the releaser and its
   context at the release), its trap weighing `weight` (the caller's
   estimate of the transfers it stands for). Replaces only
   a start set (or none), as hc_detect_arm_block; false if n is 0 or a
   regular set is armed. */
bool hc_detect_arm_lock(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                        const struct hc_bb_entry *e, const uint64_t *addr, uint32_t n, uint64_t weight,
                        uint64_t now, struct hc_detect_result *res);
/* Critical-section sets (doc/detection.md §5.76): the thread has just
   entered a critical section (an OpenMP critical, an omp lock) whose
   previous holder was sampled storing in it; that holder's stores are
   what this thread's pass over the same data reads next. A start set on
   the sampled accesses e[0..n) themselves (each entry's 8-byte chunk at
   its address, at most the watch count of them, the first ones first), a
   trap on one a communication with its publisher weighing one period (a
   sample stood for a period of the holder's time). With `fill`, the
   registers left over watch the chunks after each sampled one on its line
   (the records in turn), standing for the same entry: a pass over the
   data in address order meets the sampled word first, and an access
   elsewhere on the line is another chance at the line's move, judged by
   the entry's bytes (false sharing where they differ). The set still ends
   at its first trap. Replaces only a start set (or none), as
   hc_detect_arm_block; false if n is 0 or a regular set is armed. Pure. */
bool hc_detect_arm_entries(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                           const struct hc_bb_entry *e, uint32_t n, bool fill, uint64_t now,
                           struct hc_detect_result *res);
/* Which words of a lock's neighbourhood a lock set watches (pure): word
   i (0..63) of the neighbourhood is a candidate when bit i of `cand` is
   set; `good` holds the words a lock set's trap found the program
   accessing, `bad` those only system code (the lock implementation: a
   condition variable's words) trapped on. The good candidates first, in
   order; when there is none, untried candidates (not bad) round-robin
   from *cursor (advanced past the last one taken). At most d into out[];
   returns how many. */
uint32_t hc_lock_words(uint64_t cand, uint64_t good, uint64_t bad, uint32_t *cursor, uint32_t d, uint32_t *out);

/* HPCRUN_COMM_LOCK_KEEP (detection.md §5.62): a lock set's spare
   registers. out[0..n) the words hc_lock_words took (bit i: the word at
   lo + 8 i, lo 8-aligned); then the words of `changed` (what the
   releasers changed since this thread's release) and the word after each
   of them, in order, that are on none of out[0..n)'s lines, until d words.
   A queue's consumer reads the item its producer wrote (an empty queue:
   true) or the one after the slot it refilled (a full one: the line moved
   for a word it does not read, false, as exact mode counts it); watching
   only the changed words would make every such trap true. Only words of
   `mask` (the candidates less the bad words) are taken. Returns the new
   count. */
uint32_t hc_lock_fill(uint64_t lo, uint64_t changed, uint64_t mask, uint32_t *out, uint32_t n, uint32_t d);

/* HPCRUN_COMM_LOCK_DRAW (detection.md §5.65): the line a process-wide
   lock set watches. `eligible` holds the words (bit i: lo + 8 i, lo
   8-aligned) it may watch: the candidates on the lines the releaser
   changed, less the bad ones and the synchronisation objects' words.
   Their distinct lines are counted in *k and one of them, the (r mod k)th
   in address order, is drawn: its eligible words are returned (0 and
   *k = 0 when none is eligible). Each line a critical section changed
   moves once to its next reader in exact mode; drawing one of k uniformly
   and weighing the trap k times stands for all of them, where a choice by
   word (the good words first, §5.38) watched one line for every set
   (mw_cond's head/tail line, never its task line). Pure. */
uint64_t hc_lock_draw_line(uint64_t lo, uint64_t eligible, uint64_t r, uint32_t *k);

/* The words a process-wide lock set may watch (§5.38, §5.71): of the
   changed lines' candidate words (lines & cand), the ones a trap of the
   program's code has read (good), else those not only system code touched
   (not bad). With untried, the words neither good nor bad first, when any:
   once any word is good the others are never watched otherwise, so a line
   whose words no trap ever read (mw_cond's task line, beside the good
   head/tail word) is never seen. Pure. */
uint64_t hc_lock_pick_words(uint64_t lines, uint64_t cand, uint64_t good, uint64_t bad, bool untried);

/* HPCRUN_COMM_LOCK_LINES (§5.71): the eligible words (bit i: lo + 8 i) of
   the line after *cursor (a line's address) among the lines that hold
   any, else of the first such line; *cursor becomes that line. A
   releaser's sets take the lines its critical sections changed in turn,
   where the choice by word watched the line of a good word every time
   (mw_cond: the head/tail line, never the task line main pushed into).
   0 when no word is eligible. Pure. */
uint64_t hc_lock_next_line(uint64_t lo, uint64_t eligible, uint64_t *cursor);

/* HPCRUN_COMM_LOCK_PSET_ACQ=2 (detection.md §5.67): whether a mutex's
   process-wide lock sets go on to be armed at the hand-off's acquisition
   (§5.61) instead of after the release: once `arms` sets were armed after
   its releases (at least HC_LOCK_ACQ_LEARN) and fewer than one in
   HC_LOCK_ACQ_RATIO of them was judged by another thread's trap
   (`verdicts`): the releaser's own next critical sections ended the rest
   (mw_cond -O0 -t 2: 72 of 74 sets), which an arm at the acquisition, for
   the releaser, under the held mutex, cannot. lock_queue -O0 -t 4's sets
   are judged about one in three and stay armed after the release (armed
   at the acquisition its false fraction fell; at a ratio of 4 one of its
   mutexes switched: §5.67). Pure. */
#define HC_LOCK_ACQ_LEARN 16
#define HC_LOCK_ACQ_RATIO 8
bool hc_lock_acq_switch(uint32_t arms, uint32_t verdicts);

/* Which of a releaser's stores before its unlock (§5.49, latest first)
   names the watched word at a (pure): kind[i] 1 = the absolute address
   key[i], 2 = the displacement key[i] from the start of the mutex's heap
   block lo (only when heap: the store's base register taken to point
   there, a field of the struct), else nothing known; size[i] bytes. The
   first store whose bytes overlap the word [a, a + 8), or -1. */
int hc_lock_site(uint64_t a, uint64_t lo, bool heap, const uint8_t *kind, const int64_t *key,
                 const uint32_t *size, uint32_t n);

/* Synchronisation objects' bytes (doc/detection.md §5.37): the runtime
   notes the bytes of every pthread barrier, mutex and condition variable
   the program passes to the interposed calls. An access by system code
   (loadmap__system_code: glibc's barrier, mutex, condition variable and
   futex paths) to those bytes is the lock implementation's, not the
   program's data: exact mode, which counts instrumented program code
   only, never sees it, so the sampler neither publishes nor detects nor
   arms on it (hc_sync_drop). An open-addressed table of lines, each with
   a mask of its synchronisation bytes; lock-free (relaxed atomics: a
   look-up racing an insertion may miss it, once), never shrinks (a freed
   object's bytes stay marked: only system code's accesses to them are
   dropped, and libc's data movement into a reused block is the rare
   case). Pure. */
#define HC_SYNC_LINES 1024u      /* power of two */
#define HC_SYNC_PROBE 8u         /* slots probed from a line's hash */
struct hc_sync_words {
	uint64_t line[HC_SYNC_LINES];   /* line address (addr & ~63), 0 = free */
	uint64_t mask[HC_SYNC_LINES];   /* bit i: byte i of the line is an object's */
	uint32_t used;                  /* lines taken */
};
/* Note [addr, addr + len) as synchronisation bytes: 1 new bytes noted, 0
   all were, -ENOSPC a line found no free slot (the rest still noted). */
int  hc_sync_words_add(struct hc_sync_words *w, uint64_t addr, uint32_t len);
/* Does the access [addr, addr + len) touch a noted byte? */
bool hc_sync_words_has(const struct hc_sync_words *w, uint64_t addr, uint32_t len);
/* The classification: an access of system code (system_code: its PC is
   in a system library) to a synchronisation object's bytes is dropped.
   System code on the program's data (libc's memcpy, memmove, qsort
   moving the program's arrays) and the program's code on any bytes are
   kept. */
/* The last bytes a forward `rep movs`/`rep stos` will write (§5.37): the
   current element at ea of size bytes, rcx elements left (the current one
   included), df the direction flag. Fills [*addr, *addr + *len), at most
   8 bytes ending where the copy ends, and returns true when that is on
   another line than ea's (the sample's own line is published anyway);
   false backwards, done, or an implausible count. Pure. */
bool hc_rep_end(uint64_t ea, uint32_t size, uint64_t rcx, bool df, uint64_t *addr, uint32_t *len);
static inline bool hc_sync_drop(const struct hc_sync_words *w, uint64_t addr, uint32_t len, bool system_code)
{
	return system_code && hc_sync_words_has(w, addr, len);
}
/* The verdict of a lock set's trap on word `bit` (0..63) of a lock's
   neighbourhood from what the releaser changed in its critical section
   (`changed`: bit i when word i's value at its release differed from the
   one at its acquisition; doc/detection.md §5.38), as exact mode's model
   counts the reader's miss (doc/exact.md R2): 1 true (the word read was
   written), 0 false (another word of its 64-byte line was: the line
   moved for bytes this access does not read), -1 no transfer (nothing of
   its line changed: the reader's copy stayed valid). Pure; `lo` is the
   neighbourhood's first word's address (line arithmetic). */
int hc_lock_verdict(uint64_t lo, uint64_t changed, uint32_t bit);
/* The same to the byte: a true verdict v on the 8-byte word at `word`
   whose changed bytes are `bytes` (bit j: byte j differs; 0 = unknown)
   stays true only when the access [acc, acc+len) reads a changed byte
   (two 4-byte indices in one word: the reader's own index unchanged, the
   other's written: false, as exact mode's byte sets say). Pure. */
int hc_lock_verdict_bytes(int v, uint8_t bytes, uint64_t word, uint64_t acc, uint32_t len);
/* A process-wide lock set's line after its arming release (§5.53): which
   bytes of the 64-byte line differ between the copy `old` (8 words) and
   `cur` (bit 8 i + j: byte j of word i). Pure. */
uint64_t hc_lock_line_bytes(const uint64_t *old, const uint64_t *cur);
/* The verdict of a trap [acc, acc+len) on `line` whose last writer, a
   later releaser of the mutex than the set's, changed the line's bytes
   `bytes` (hc_lock_line_bytes) in its critical section, as exact mode's
   last-writer rule (doc/exact.md R2) counts it: 1 true (a byte read was
   written), 0 false (only other bytes of the line were), -1 nothing
   known (no byte changed). Pure. */
int hc_lock_after_verdict(uint64_t line, uint64_t bytes, uint64_t acc, uint32_t len);
/* Reader sets (§5.57): a sampled store in a heap block [lo, hi), by the
   instruction at pc at addr, stands for what that instruction wrote since
   the thread's last reader set (prev_pc at prev_addr): the units of
   `unit` bytes (a line, 64, or the store's element) between the two
   addresses (a sweep through an array: the executions the samples
   skipped), at least 1, at most the block's; 1 when the previous set was
   another instruction's or outside the block. Pure. */
uint64_t hc_reader_count(uint64_t prev_pc, uint64_t prev_addr, uint64_t pc, uint64_t addr, uint64_t lo,
                         uint64_t hi, uint32_t unit);
/* A reader set's weight w on the lock traps' scale: w times the share of
   the lock traps' hand-offs their caps let them weigh (weighed of total),
   at least 1. Pure. */
uint64_t hc_reader_scaled(uint64_t w, uint64_t weighed, uint64_t total);
/* The chunk a reader set watches for a store [addr, addr+len): the 8-byte
   chunk right after it (the next element of a sweep: its reader's or
   another writer's next access), 0 when that is past the store's line. */
uint64_t hc_reader_chunk(uint64_t addr, uint32_t len);
/* Which of a thread's release snapshots (§5.44; `ways` of them, 1..4)
   holds the mutex slot key (slot index + 1; a way's slot 0 = empty), by
   the ways' slots and ages (the thread's snapshot count when taken): the
   way that holds it, else -1 — or, with want_free, the way to replace: the
   first empty one, else the oldest (ages wrap). Pure. */
int hc_lock_way(const uint32_t *slot, const uint32_t *age, uint32_t key, bool want_free, uint32_t ways);
/* A hand-off set (doc/detection.md §5.36): data one thread wrote — a
   creator's initialisation of big arrays — that others read long after,
   each line's first read by each reader a transfer, while the writer's
   stores are long gone from the board. Called after hc_detect_sample
   (res its result) for the sample s of th, a load in the heap block
   [lo, hi) (s->block its tag; s may be flagged private: a line th had
   not seen, not published) (at least HC_HANDOFF_BLOCK_MIN bytes); w: the last store
   sampled in that block (the runtime's per-block record), w->spin the
   number of times a store of another thread than the previous one was
   sampled there (0: one writer seen). When cfg->handoff_life is set, w is
   another thread's, the block has had that one writer, this sample
   detected nothing, and th's set would watch nothing or a load (the set
   res asks for watches a load, or no set is armed or asked): res is
   changed to arm a start set on D distinct lines drawn uniformly in
   [lo, hi) that th did not touch recently (th->touched), each standing for
   w — the writer, its context; its mask the whole line (an initialisation
   writes lines whole) —, weighing one period a trap; it lives
   cfg->handoff_life of th's samples unless it traps. Not once th's
   hand-off traps in the block (th->blocks) reached 1 + its lines /
   HC_HANDOFF_LINES_PER_TRAP (res->handoff_capped). res->disarm and
   res->dry are kept. True if armed. Pure. */
bool hc_detect_arm_handoff(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                           const struct hc_sample *s, const struct hc_bb_entry *w, uint64_t lo, uint64_t hi,
                           struct hc_detect_result *res);
/* Session 19 (§5.41): a heap region of HC_HANDOFF_REGION bytes (aligned)
   stands for the block when the blocks are small (NPB MG: one 2 KiB
   malloc a row). */
#define HC_HANDOFF_REGION (1u << 20)
/* As hc_detect_arm_handoff for the aligned region [lo, lo +
   HC_HANDOFF_REGION) of s's address instead of a block: w is the region's
   record (any block in it; w->block not compared), at most
   cfg->handoff_region_age ns old (0: any age) and at least
   cfg->handoff_region_settle ns old (§5.42), and with
   cfg->handoff_region_block stored in s's tracked block when both tags
   are known (else res->handoff_other_block, §5.50); no per-block cap. With
   cfg->handoff_stores a store sample arms too (both functions): its lines
   are drawn after its own line in [lo, hi) (a writer sweeping a range
   stores there next), or uniformly when none is left. Pure. */
bool hc_detect_arm_handoff_region(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                                  const struct hc_sample *s, const struct hc_bb_entry *w, uint64_t lo,
                                  struct hc_detect_result *res);
/* §5.75: as hc_detect_arm_handoff for the range w stands for, [w->addr,
   w->addr + w->len) in s's block (a buffer the kernel filled for w's
   thread: read(), recv()), whatever its size: a load sample of th inside
   it arms a set on lines of the range th did not touch lately (within
   cfg->handoff_window around the sample), standing for w; the per-block
   cap counts the range's lines, and starts again at each new fill of the
   block (a buffer read into again holds new data). Pure. */
bool hc_detect_arm_handoff_range(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                                 const struct hc_sample *s, const struct hc_bb_entry *w,
                                 struct hc_detect_result *res);
/* The caller could not arm the set it was asked to arm: forget it. */
void hc_detect_arm_failed(struct hc_detect_thread *th);
/* Process a watchpoint trap with the trapping access t. Returns true and fills
   *comm if an armed set was hit (the set is then disarmed), false otherwise.
   A set watching a published load is disarmed by any access to its line but
   counts only a store (two loads do not communicate); a read probe's load
   trap ends the probe (the caller publishes that load). */
bool hc_detect_trap(const struct hc_detect_config *cfg, struct hc_detect_thread *th,
                    const struct hc_sample *t, struct hc_comm *comm);
/* Publish the access s of thread th (a store, or a load when
   cfg->publish_loads and it is not private): 1 written, 0 nothing to
   publish, -ELOOP an echo deeper than cfg->echo_depth (§5.19: not
   published), or the -errno of hc_bulletin_publish. */
int hc_detect_publish(struct hc_bulletin *bb, const struct hc_detect_config *cfg,
                      const struct hc_detect_thread *th, const struct hc_sample *s);
/* The BulletinBoard entry of th's access s (no byte mask, no wait length). */
struct hc_bb_entry hc_detect_entry(const struct hc_detect_thread *th, const struct hc_sample *s);
/* A set's d watchpoint addresses on e's line (d <= 8): the chunk of e's
   access first, then d - 1 distinct others at random (th's generator). */
void hc_detect_set_chunks(struct hc_detect_thread *th, const struct hc_bb_entry *e, uint32_t d,
                          uint64_t *addr);
/* The re-fetch test (doc/detection.md §5.24): th accessed e's line (its
   th->lines table) after e, a published store, and before s. With
   cfg.refetch_false such a detection is false sharing. Pure. */
bool hc_detect_refetch(const struct hc_detect_thread *th, const struct hc_sample *s,
                       const struct hc_bb_entry *e);
/* The heels test (doc/detection.md §5.28): s, a store, overwrites bytes
   that e, another thread's load, read at most heels_ns before (0: off).
   The reader's copy is invalidated by the writer close behind it; the
   reader's next miss on the line, exact mode's transfer, is a re-fetch of
   bytes this store did not write when the reader moves on through the
   line (a ring's consumer with its producer a lap ahead). Pure. */
bool hc_detect_heels(uint64_t heels_ns, const struct hc_sample *s, const struct hc_bb_entry *e);
/* Byte-range overlap test used for true/false classification. */
static inline bool hc_ranges_overlap(uint64_t a, uint32_t alen, uint64_t b, uint32_t blen)
{
	return a < b + blen && b < a + alen;
}

#endif
