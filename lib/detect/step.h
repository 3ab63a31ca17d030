/* SPDX-License-Identifier: BSD-3-Clause */
/* step.h — the pure half of the soft sampler's single-step bursts (issue
   #14): a timer sample almost never lands right after a store (a store
   retires into the store buffer at once), so after a sample the runtime
   may set the trap flag and execute the next few instructions one at a
   time, decoding each *before* it runs, with exact registers (no skid).
   This module decides, without system calls or clocks:
   - whether a sample starts a burst (hc_step_start);
   - what a stepped instruction means (hc_step_classify): a store to
     memory that may be shared ends the burst and is published; an
     instruction that must not be stepped ends it; anything else steps on;
   - the per-thread budget that bounds the bursts' cost (hc_step_budget_*).
   Async-signal-safe. The rules and their measurements: doc/detection.md §5. */
#ifndef HC_STEP_H
#define HC_STEP_H

#include <stdbool.h>
#include <stdint.h>
#include "decode/decode.h"
#include "hc/common.h"

/* The bytes of [addr, addr+len) that lie in `line` (64-byte aligned), as a
   mask: bit i = byte line+i. len 0 gives none. */
static inline uint64_t hc_line_bytes(uint64_t line, uint64_t addr, uint32_t len)
{
	uint64_t lo = addr > line ? addr - line : 0;
	uint64_t end = addr + len, hi = end > line ? end - line : 0;

	if (len == 0 || addr >= line + HC_LINE || hi == 0)
		return 0;
	if (hi > HC_LINE)
		hi = HC_LINE;
	if (lo >= hi)
		return 0;
	return (hi - lo == 64 ? ~0ull : ((1ull << (hi - lo)) - 1)) << lo;
}

/* Memory of the stepping thread that no other thread uses: its stack and
   its static TLS block. Stores there are stepped over, not published —
   except on the lines of its stack that `shared` names (a direct-mapped
   table of nshared line addresses, a power of two; NULL = none): the
   main thread's locals that other threads were seen using (OpenMP's
   shared locals, a pthread program's arguments on main's stack:
   detection.md §5.45). */
struct hc_step_private {
	uint64_t stack_lo, stack_hi;
	uint64_t tls_lo, tls_hi;
	const uint64_t *shared;
	uint32_t nshared;
};

/* The slot of `line` in a shared-lines table of n entries (a power of
   two), and whether the table holds it. Pure. */
static inline uint32_t hc_step_shared_slot(uint64_t line, uint32_t n)
{
	uint64_t x = line >> 6;

	return (uint32_t)((x ^ (x >> 10)) & (n - 1));
}

static inline bool hc_step_shared_has(const uint64_t *table, uint32_t n, uint64_t line)
{
	return table && n && __atomic_load_n(&table[hc_step_shared_slot(line, n)], __ATOMIC_RELAXED) == line;
}

enum hc_step_verdict {
	HC_STEP_NEXT = 0,   /* step it and look at the next one */
	HC_STEP_STORE = 1,  /* *acc is a store to possibly shared memory: publish, stop */
	HC_STEP_STOP = 2,   /* must not be stepped (syscall, int, pushf/popf, iret, xbegin) */
};

/* The instruction `in`, decoded at the PC about to execute (exact
   registers). Stack operands (push/call...), accesses inside p's ranges and
   fs/gs-relative ones (TLS) are private. */
enum hc_step_verdict hc_step_classify(const struct hc_insn *in, const struct hc_step_private *p,
                                      const struct hc_mem_access **acc);

/* Whether a sample starts a burst, and how many steps it may take.
   Only after a load of memory that may be shared (a store sample publishes
   by itself). With evidence that the line is shared (another thread's
   entry for it on the BulletinBoard), the burst takes up to `k` steps from
   the token budget; without, only every `seed_every`-th such sample starts
   one (the seed that lets a pattern nobody has published yet be found),
   so a program that shares nothing pays k / seed_every steps per sample
   at most. */
struct hc_step_config {
	uint32_t k;               /* most steps per burst, 0 = no bursts */
	uint32_t per_sample256;   /* budget refill per sample, steps x 256 */
	uint32_t seed_every;      /* a burst without evidence every n-th candidate, 0 = never */
};
struct hc_step_budget;
uint32_t hc_step_decide(struct hc_step_budget *b, const struct hc_step_config *c,
                        bool is_store, bool private_access, bool evidence);

/* The lines a thread's own samples touched recently: a sampled line seen
   again is evidence too (a shared slot, counter or queue index is one line
   sampled over and over; a private array spreads over many). Direct-mapped
   by line, HC_STEP_LINES entries; `within` ns is "recently". */
#define HC_STEP_LINES 256
struct hc_step_lines {
	uint64_t line[HC_STEP_LINES];
	uint64_t time[HC_STEP_LINES];
	/* The bytes of the line the thread was seen to access (read or write)
	   while the line stayed recent: bit i = byte i. Exact mode judges a
	   transfer true iff the reader's bytes meet what the writer wrote since
	   the line moved; one sampled access of each side is a poor stand-in
	   for those sets (a queue's consumer reads the item after the one the
	   producer just stored), the bytes each side's code keeps touching a
	   better one (doc/detection.md §5.7). */
	uint64_t mask[HC_STEP_LINES];
	/* The time of the access of the line noted before the last one (0:
	   none known): with `time`, when the thread accessed the line before
	   the access being judged (hc_step_line_before; the re-fetch test,
	   doc/detection.md §5.24). */
	uint64_t prev[HC_STEP_LINES];
};
/* Record a sample of `line` at `now`; true if the line was sampled before
   within `within` ns. */
bool hc_step_line_seen(struct hc_step_lines *l, uint64_t line, uint64_t now, uint64_t within);
/* The same, for an access of [addr, addr+len) (its line's bytes only) whose
   bytes join the line's mask; a line not recent starts a new mask. */
bool hc_step_line_note(struct hc_step_lines *l, uint64_t addr, uint32_t len, uint64_t now,
                       uint64_t within);
/* The same question without recording anything. */
bool hc_step_line_recent(const struct hc_step_lines *l, uint64_t line, uint64_t now, uint64_t within);
/* The time of the thread's latest noted access of `line` strictly before
   `now` (the access at `now` itself may have been noted already), 0 when
   none is known (l may be NULL). Recency does not matter. */
uint64_t hc_step_line_before(const struct hc_step_lines *l, uint64_t line, uint64_t now);
/* The line's byte mask, 0 when it is not recent (l may be NULL). */
uint64_t hc_step_line_mask(const struct hc_step_lines *l, uint64_t line, uint64_t now, uint64_t within);

/* The lines one burst has published a load of, so that a later load of the
   same line in the burst is not published over the first (the board keeps
   one entry a line: the last publication wins). A consumer reads an item's
   fields in order (-O0 spsc's `seq` then `val`, one line); exact mode
   counts the transfer at the first access of the moved line, so the
   burst's entry for the line should be that first access too — else the
   writer's set watches the last field's chunk and both sides' traps name
   the item's other line (doc/detection.md §5.29). Zero it at the burst's
   start; HC_BURST_LINES lines at most, later ones always new. */
#define HC_BURST_LINES 8
struct hc_burst_lines {
	uint64_t line[HC_BURST_LINES];
	uint32_t n;
};
/* True if the burst has not published a load of addr's line yet; records
   it (while there is room). */
bool hc_burst_line_first(struct hc_burst_lines *b, uint64_t addr);

/* The instructions a thread was seen to access memory with, and whether
   one of them has accessed more than one address (an array walk, a queue's
   slots, a halo row: a *moving* access) or always the same (a field, a
   counter, a slot of its own). A moving access reads or writes the whole
   line over time, so it counts as the whole line when true and false
   sharing are judged (§5.7); a fixed one only as its bytes. A second
   address makes an instruction moving, tentatively; a return to the first
   undoes it (code that switches one pointer between two words, like
   comm_bench's false kernel — its own slot or the shared word — is two
   fixed accesses, not a walk); a third distinct address makes it moving
   for good. Direct-mapped by PC, HC_STEP_PCS entries; an entry lives
   until another PC takes its slot. */
#define HC_STEP_PCS 128
struct hc_step_pcs {
	uint64_t pc[HC_STEP_PCS];
	uint64_t addr[HC_STEP_PCS][2];   /* the last two distinct addresses */
	uint8_t  moves[HC_STEP_PCS];      /* 0 fixed, 1 moving (two addresses), 2 for good */
	uint8_t  same[HC_STEP_PCS];       /* times seen again at addr[i][0] in a row (saturating) */
	uint64_t lo[HC_STEP_PCS];         /* the lowest and highest address seen since the entry */
	uint64_t hi[HC_STEP_PCS];         /* was taken (its span, hc_step_pc_span) */
};
/* Record that the instruction at pc accessed addr; true if it is (now
   known to be) a moving access. */
bool hc_step_pc_moves(struct hc_step_pcs *p, uint64_t pc, uint64_t addr);
/* The span of the addresses the instruction at pc was seen at (lowest and
   highest, inclusive; the access's length is the caller's to add): a walk
   over a thread's own part of a line (kmeans' per-thread counters,
   partial_len[tid][cluster]++) stays within it, a ring or an array walked
   through covers whole lines soon (detection.md §5.47). False if pc has no
   entry. */
/* True if the instruction at pc is a confirmed fixed access: seen at the
   same address at least `n` times more in a row and never moving (a
   field, a pointer loaded from the same slot: kmeans'
   partial_new_centers[tid]); it counts as its own bytes only, not the
   thread's other bytes of the line (detection.md §5.47). */
bool hc_step_pc_fixed(const struct hc_step_pcs *p, uint64_t pc, uint32_t n);
bool hc_step_pc_span(const struct hc_step_pcs *p, uint64_t pc, uint64_t *lo, uint64_t *hi);
/* A moving access's span [*lo, *hi) clipped to the heap block [base,
   base + size) the access is in (size 0: not in a known block, left as
   is): a walk over one thread's run of small blocks (kmeans' centre sums,
   one 136-byte calloc per thread and cluster) covers that block's bytes
   of a line, not its neighbour's, another thread's (detection.md §5.47). */
static inline void hc_step_span_clip(uint64_t *lo, uint64_t *hi, uint64_t base, uint64_t size)
{
	if (size == 0 || *hi <= *lo)
		return;
	if (*lo < base)
		*lo = base;
	if (*hi > base + size)
		*hi = base + size;
	if (*hi <= *lo)
		*lo = *hi = 0;             /* the access is outside: unknown, the whole line */
}

/* The budget: a token bucket in steps, refilled by `per_sample` tokens per
   sample (a fraction of a step is kept in 1/256 units), capped at `cap`. A
   burst may take at most min(k, tokens) steps. Bounds the cost of
   stepping to per_sample steps per sample on average, whatever the
   program does. */
struct hc_step_budget {
	uint32_t tokens256;   /* available steps x 256 */
	uint32_t candidates;  /* samples that could have started a seed burst */
};
void hc_step_budget_refill(struct hc_step_budget *b, uint32_t per_sample256, uint32_t cap);
/* Steps a burst may take now (<= k); the caller charges what it used. */
uint32_t hc_step_budget_allow(const struct hc_step_budget *b, uint32_t k);
void hc_step_budget_charge(struct hc_step_budget *b, uint32_t steps);

/* A data watchpoint's trap: which instruction made the access, and what it
   was (doc/detection.md, "Session 8: code pairs"). x86 data breakpoints
   are traps: the PC is past the access, so the accessing instruction is
   the one ending at the PC — except a REP string op, which traps on
   itself between two iterations. Inputs, each decoded with the trap's
   registers: at_pc the instruction at the PC (NULL when it does not
   decode), ending the instruction ending at the PC (NULL when none
   decodes), the watched line, and the register that fired (bp_addr, its
   8-byte chunk; bp_write when it watches writes only).
   * at_pc is a REP string op with a data access: that access, leaf = pc;
   * ending has an access on the watched line: that access, leaf = its
     address (HC_TRAP_EXACT);
   * ending has a data access (not the stack) elsewhere: it is still the
     accessing instruction — an access whose address register it
     overwrote (-O0's `mov (%rax),%rax`, an index register reloaded):
     leaf = its address, the store/load kind its access's, the address
     the register's chunk (HC_TRAP_INSN). Until session 8 the leaf was
     then the PC, the NEXT instruction — another source line whenever the
     load ends its statement;
   * otherwise nothing decodes to an access: leaf = pc, the chunk, a store
     when the register watches writes only (HC_TRAP_UNKNOWN).
   Pure and async-signal-safe. */
enum hc_trap_how { HC_TRAP_REP = 0, HC_TRAP_EXACT = 1, HC_TRAP_INSN = 2, HC_TRAP_UNKNOWN = 3 };
struct hc_trap_attr {
	uint64_t leaf;        /* the accessing instruction's address (pc when unknown) */
	uint64_t addr;        /* the access's address (the chunk when not known) */
	uint32_t len;
	bool is_store;
	enum hc_trap_how how;
};
/* The data access an instruction is taken for: not the stack's, a store
   before a load; NULL when it has none. Pure and async-signal-safe. */
const struct hc_mem_access *hc_data_access(const struct hc_insn *in);

void hc_trap_attribute(const struct hc_insn *at_pc, const struct hc_insn *ending, uint64_t pc,
                       uint64_t line, uint64_t bp_addr, bool bp_write, struct hc_trap_attr *out);

#endif
