/* SPDX-License-Identifier: BSD-3-Clause */
/* crit.c — critical-section sets (doc/detection.md §5.76): the runtime
   interposes libgomp's GOMP_critical_start/_end (`#pragma omp critical`),
   GOMP_critical_name_start/_end (a named one), LLVM libomp's
   __kmpc_critical[_with_hint]/__kmpc_end_critical (clang's), and
   omp_set_lock/omp_test_lock/omp_unset_lock (both runtimes), and keeps, per critical section (its lock:
   the name's pointer, the omp_lock_t, one key for the unnamed critical),
   the stores its current holder was sampled making inside it. The next
   thread that enters it runs the same code over the same data (a shared
   histogram merged in turn: NPB IS's key_buff1) and reads those lines
   microseconds later; the previous holder's records arm a start set on
   the sampled words for it (hc_detect_arm_entries), a trap on one a
   communication with that holder weighing one period (its sample stood
   for a period of its time in the critical section).

   A critical section is a few percent of such a program's time: a timer
   sample rarely lands in it, and almost never in another thread's next
   pass over the same lines, so the regular sets miss it (exact mode counts
   it as the top pair). pthread mutexes have lock sets (lock.c, §5.35) on
   the words beside the mutex; this covers critical sections whose data
   lies elsewhere, for OpenMP's locks.

   The slot of a critical section is written by its holder only (under
   the lock: its entry, and its sample handler's records), and read by the
   next holder after the lock passed on; another key hashing to the slot
   takes it over (counter-free: that section's records are lost then).
   Relaxed atomics. Not signal context, except crit__sample. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "runtime/rt.h"
#include "runtime/safety.h"
#include "detect/step.h"

#define RT_CRIT_SLOTS 64          /* power of two */
#define RT_CRIT_RECS 4            /* sampled stores kept per holder (the first ones of its
                                     holdings in a row) */
#define RT_CRIT_WARM 8            /* samples before a set may open the registers (as lock.c) */
#define RT_CRIT_UNNAMED 1ull      /* the key of `#pragma omp critical` without a name */

struct crit_slot {
	uint64_t key;                 /* 0 = free */
	uint32_t n;                   /* records, all of one thread's holdings (rec[0].thread) */
	struct hc_bb_entry rec[RT_CRIT_RECS];
} __attribute__((aligned(64)));

static struct crit_slot slots[RT_CRIT_SLOTS];
static int crit_on;

#define LD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define ST(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

void crit__enable(bool on)
{
	ST(crit_on, on);
}

static inline struct crit_slot *slot_of(uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return &slots[(h >> 40) & (RT_CRIT_SLOTS - 1)];
}

/* The soft sampler's part (soft.c: a timer sample, or for one that recorded
   nothing the store its burst ends at, not every step; signal context): t
   sampled a store
   to shared memory (not its stack or TLS) inside its innermost critical
   section; kept as that holding's record while there is room (true). */
bool crit__sample(struct rt_thread *t, const struct hc_sample *s)
{
	struct crit_slot *sl;
	struct hc_bb_entry e;
	uint64_t key;
	uint32_t n;

	if (!s->is_store || s->is_private || s->ctx == HC_NONE || t->crit.depth == 0 ||
	    t->crit.depth > RT_CRIT_DEPTH)
		return false;
	key = t->crit.key[t->crit.depth - 1];
	if (key == 0)
		return false;
	sl = slot_of(key);
	if (LD(sl->key) != key)
		return false;
	n = LD(sl->n);
	if (n && sl->rec[0].thread != t->id.index)
		n = 0;      /* another thread's, not taken (its entry was not followed): replaced */
	if (n >= RT_CRIT_RECS) {
		t->cnt.crit_recs_full++;
		return false;
	}
	memset(&sl->rec[n], 0, sizeof(sl->rec[n]));
	sl->rec[n].addr = s->addr;
	sl->rec[n].line = s->addr & ~(uint64_t)(HC_LINE - 1);
	sl->rec[n].len = s->len ? s->len : 1;
	sl->rec[n].time = s->time;
	sl->rec[n].thread = t->id.index;
	sl->rec[n].cpu = s->cpu;
	sl->rec[n].ctx = s->ctx;
	/* the bytes of the line the thread was seen writing lately (its board
	   entry's mask, as the regular sets judge by), else the store's own */
	if (hc_bulletin_lookup(&hc_rt.bb, sl->rec[n].line, &e) && e.thread == t->id.index && e.time == s->time)
		sl->rec[n].mask = e.mask;
	else
		sl->rec[n].mask = t->det.moving ? ~0ull : hc_line_bytes(sl->rec[n].line, s->addr, sl->rec[n].len);
	ST(sl->n, n + 1);
	t->cnt.crit_records++;
	return true;
}

#ifndef HC_RT_EXACT   /* exact mode sees every access itself */

/* t has just entered the critical section `key`: its holding begins; the
   previous holder's records (another thread's) arm a set for t. */
static __attribute__((noinline)) void entered(uint64_t key)
{
	struct rt_thread *t = hc_self;
	struct hc_bb_entry rec[RT_CRIT_RECS];
	struct hc_detect_result res;
	struct crit_slot *sl;
	uint32_t n;
	int err;

	if (!t)
		return;
	if (t->crit.depth >= RT_CRIT_DEPTH) {   /* deeper nesting: the inner ones not followed */
		t->crit.depth++;
		t->cnt.crit_deep++;
		return;
	}
	if (t->safety.busy || !hc_rt.ready || hc_rt.stopping) {
		t->crit.key[t->crit.depth] = 0;      /* followed (left pops it), never recorded */
		__atomic_store_n(&t->crit.depth, t->crit.depth + 1, __ATOMIC_RELAXED);
		return;
	}
	t->crit.key[t->crit.depth] = key;
	sl = slot_of(key);
	t->cnt.crit_enters++;
	if (LD(sl->key) != key) {
		ST(sl->n, 0);
		ST(sl->key, key);
	}
	/* another thread's records are this thread's to watch (and gone from
	   the slot); its own stay for the next other holder (the lines stay
	   its until another thread takes them). Nothing is written to the
	   slot when there is nothing to take: an entry costs loads of a
	   line every holder only reads (a contended critical section hands
	   its lock's line on at every entry, not this one's too) */
	n = LD(sl->n);
	if (n && LD(sl->rec[0].thread) != t->id.index) {
		if (n > RT_CRIT_RECS)
			n = RT_CRIT_RECS;
		memcpy(rec, sl->rec, n * sizeof(rec[0]));
		ST(sl->n, 0);
	} else {
		n = 0;
	}
	/* the sample handler records only once the key is on the stack */
	__atomic_store_n(&t->crit.depth, t->crit.depth + 1, __ATOMIC_RELAXED);
	if (n == 0)
		return;
	t->cnt.crit_handoffs++;
	if (!hc_guard_enter(t))
		return;
	err = errno;
	/* the switch gate, as a lock set's (lock.c): opened registers cost a
	   thread that blocks on its locks every switch */
	if (!t->watch.opened && (t->det.nsamples < RT_CRIT_WARM || !thread__watch_allowed(t))) {
		t->cnt.crit_gated++;
	} else if (t->det.armed && !t->det.start_set) {
		t->cnt.crit_busy++;
	} else if (hc_detect_arm_entries(&hc_rt.dcfg, &t->det, rec, n, hc_rt.opt.crit_fill, process__now(),
	                                    &res)) {
		record__apply_set(t, &res);
		if (t->det.armed)
			t->cnt.crit_sets++;
	}
	errno = err;
	hc_guard_leave(t);
}

static __attribute__((noinline)) void left(void)
{
	struct rt_thread *t = hc_self;

	if (!t || t->crit.depth == 0)
		return;
	__atomic_store_n(&t->crit.depth, t->crit.depth - 1, __ATOMIC_RELAXED);
}

/* libgomp's entry points (its ABI; omp.h's omp_lock_t is opaque here) */
void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_critical_name_start(void **pptr);
void GOMP_critical_name_end(void **pptr);
void omp_set_lock(void *lock);
void omp_unset_lock(void *lock);
int omp_test_lock(void *lock);

#define CRIT_ON() __builtin_expect(LD(crit_on), 0)

HC_EXPORT void GOMP_critical_start(void)
{
	RT_REAL_V(GOMP_critical_start, "GOMP_1.0")();
	if (CRIT_ON())
		entered(RT_CRIT_UNNAMED);
}

HC_EXPORT void GOMP_critical_end(void)
{
	if (CRIT_ON())
		left();
	RT_REAL_V(GOMP_critical_end, "GOMP_1.0")();
}

HC_EXPORT void GOMP_critical_name_start(void **pptr)
{
	RT_REAL_V(GOMP_critical_name_start, "GOMP_1.0")(pptr);
	if (CRIT_ON())
		entered((uint64_t)(uintptr_t)pptr);
}

HC_EXPORT void GOMP_critical_name_end(void **pptr)
{
	if (CRIT_ON())
		left();
	RT_REAL_V(GOMP_critical_name_end, "GOMP_1.0")(pptr);
}

/* omp_lock_t's OMP_1.0 and OMP_3.0 versions are the same function in
   libgomp (a plain lock); the nested locks differ and are not
   interposed */
HC_EXPORT void omp_set_lock(void *lock)
{
	RT_REAL_V(omp_set_lock, "OMP_3.0")(lock);
	if (CRIT_ON())
		entered((uint64_t)(uintptr_t)lock);
}

HC_EXPORT int omp_test_lock(void *lock)
{
	int r = RT_REAL_V(omp_test_lock, "OMP_3.0")(lock);

	if (r && CRIT_ON())
		entered((uint64_t)(uintptr_t)lock);
	return r;
}

HC_EXPORT void omp_unset_lock(void *lock)
{
	if (CRIT_ON())
		left();
	RT_REAL_V(omp_unset_lock, "OMP_3.0")(lock);
}

/* LLVM's libomp (clang -fopenmp, Intel's compilers): `#pragma omp
   critical [(name)]` calls __kmpc_critical (or, with a hint clause,
   __kmpc_critical_with_hint) and __kmpc_end_critical with the address of
   the section's kmp_critical_name, a zeroed 32-byte static the compiler
   emits per name (one for the unnamed section): that address is the key.
   libomp versions its symbols "VERSION"; without it (another build) the
   unversioned lookup takes the next definition. omp_set_lock and friends
   are the same names as libgomp's, interposed above. The ident_t and the
   thread number are passed on untouched. */
void __kmpc_critical(void *loc, int32_t gtid, void *crit);
void __kmpc_critical_with_hint(void *loc, int32_t gtid, void *crit, uintptr_t hint);
void __kmpc_end_critical(void *loc, int32_t gtid, void *crit);

HC_EXPORT void __kmpc_critical(void *loc, int32_t gtid, void *crit)
{
	RT_REAL_V(__kmpc_critical, "VERSION")(loc, gtid, crit);
	if (CRIT_ON())
		entered((uint64_t)(uintptr_t)crit);
}

HC_EXPORT void __kmpc_critical_with_hint(void *loc, int32_t gtid, void *crit, uintptr_t hint)
{
	RT_REAL_V(__kmpc_critical_with_hint, "VERSION")(loc, gtid, crit, hint);
	if (CRIT_ON())
		entered((uint64_t)(uintptr_t)crit);
}

HC_EXPORT void __kmpc_end_critical(void *loc, int32_t gtid, void *crit)
{
	if (CRIT_ON())
		left();
	RT_REAL_V(__kmpc_end_critical, "VERSION")(loc, gtid, crit);
}

#endif
