/* SPDX-License-Identifier: BSD-3-Clause */
/* signal.c — the one SIGTRAP handler and the application's view of
   signals. Sample timers and watchpoints both deliver SIGTRAP with
   si_code TRAP_PERF and our cookie in si_perf_data (attr.sigtrap); any other
   SIGTRAP belongs to the application (or its debugger) and is chained to the
   handler it installed, as the kernel would have run it (its sa_mask,
   SA_RESETHAND), or held pending while the application blocks SIGTRAP
   (sigmask.c). sigaction/signal are interposed so the application cannot
   replace ours; it gets its own disposition back, as if it had installed
   it. The same holds for the fatal signals (SEGV, BUS, FPE, ILL, ABRT),
   where our handler writes the profiles before the default action; it
   carries the application's SA_RESTART, and an ignored fatal signal is
   ignored for real (so it interrupts nothing).
   The handlers follow safety.h's rules. A perf SIGTRAP that was generated
   while SIGTRAP was blocked (glibc's internal masks, an application
   handler's sa_mask) arrives late, flagged asynchronous, at a PC that is
   not the sample's: it is counted as blocked. The sample work always runs
   on the thread's own sigaltstack: if the application installed its own
   (often a few KiB, as Rust does) the kernel delivers there and the
   handler switches to ours before doing anything deep. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/sampler/soft.h"
#include "runtime/sampler/rate.h"
#include "runtime/safety.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#ifndef TRAP_TRACE
#define TRAP_TRACE 2
#endif
/* glibc 2.36 has no si_perf_* accessors: kernel layout on x86-64. */
#define SI_PERF_DATA(si)  (*(const uint64_t *)((const char *)(si) + 24))
#define SI_PERF_FLAGS(si) (*(const uint32_t *)((const char *)(si) + 36))
#define PERF_FLAG_ASYNC   1u      /* TRAP_PERF_FLAG_ASYNC: generated while blocked */

#define COOKIE_KIND(c)  ((c) >> 56)
#define COOKIE_SLOT(c)  ((int)((c) & 0xff))
enum { COOKIE_SAMPLE = 0x5a, COOKIE_WATCH = 0xb9, COOKIE_STEP = 0x3c /* internal: a trace trap */ };

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;
static struct sigaction app_trap;     /* the application's SIGTRAP disposition */
static int installed;

/* Fatal signals: flushed best effort, then the application's disposition. */
static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction app_fatal[NSIG];
static int fatal_installed[NSIG];
/* HC_BENCH_EMPTY_SAMPLES=1: a sample only counts itself and returns (for
   bench/overhead's decomposition of the per-sample cost into the kernel's
   delivery and the handler's work; not for users: nothing is detected). */
static int bench_empty;


uint64_t signal__cookie_sample(void);
uint64_t signal__cookie_watch(int slot);
bool signal__siginfo_ours(const siginfo_t *si);
uint64_t signal__cookie_sample(void) { return (uint64_t)COOKIE_SAMPLE << 56; }
/* A tick timer's sample (soft.c, sampler/rate.h: the switching level's
   per-thread POSIX timers): SI_TIMER with the sample cookie as its value,
   which sits where a perf signal's si_perf_data does (offset 24). */
static bool signal__tick_ours(const siginfo_t *si)
{
	return si->si_code == SI_TIMER && COOKIE_KIND(SI_PERF_DATA(si)) == COOKIE_SAMPLE;
}
/* ... and its overrun count (expirations merged into it: si_overrun). */
#define SI_TIMER_OVERRUN(si) (*(const int *)((const char *)(si) + 20))
/* Is this siginfo one of our perf SIGTRAPs (sample or watchpoint)? */
bool signal__siginfo_ours(const siginfo_t *si)
{
	unsigned k = (unsigned)COOKIE_KIND(SI_PERF_DATA(si));

	return si->si_signo == SIGTRAP && ((si->si_code == TRAP_PERF && (k == COOKIE_SAMPLE || k == COOKIE_WATCH)) ||
	                                   signal__tick_ours(si));
}
uint64_t signal__cookie_watch(int slot) { return (uint64_t)COOKIE_WATCH << 56 | (uint64_t)slot; }

/* signal__call_on_stack(arg, fn, top): fn(arg) with the stack pointer at top
   (16-byte aligned), back on the caller's stack afterwards. */
void signal__call_on_stack(void *arg, void (*fn)(void *), void *top);
__asm__(".text\n"
        ".globl signal__call_on_stack\n"
        ".hidden signal__call_on_stack\n"
        ".type signal__call_on_stack, @function\n"
        "signal__call_on_stack:\n"
        "	.cfi_startproc\n"
        "	push %rbp\n"
        "	.cfi_def_cfa_offset 16\n"
        "	.cfi_offset %rbp, -16\n"
        "	mov %rsp, %rbp\n"
        "	.cfi_def_cfa_register %rbp\n"
        "	mov %rdx, %rsp\n"
        "	call *%rsi\n"
        "	mov %rbp, %rsp\n"
        "	pop %rbp\n"
        "	.cfi_def_cfa %rsp, 8\n"
        "	ret\n"
        "	.cfi_endproc\n"
        ".size signal__call_on_stack, .-signal__call_on_stack\n");

/* Run the application's handler for sig as the kernel would have: the
   interrupted context's mask, plus its sa_mask, plus sig itself unless
   SA_NODEFER, blocked while it runs (the kernel restores the interrupted
   mask when our handler returns; a handler that jumps out keeps them, as
   it would natively); SA_RESETHAND honoured. SIGTRAP stays deliverable
   unless block_trap: our samples may then land in the application's
   handler, which is only safe on a stack with room for a nested frame.
   Returns false if the disposition is SIG_DFL or SIG_IGN. */
static bool call_app(int sig, struct sigaction *slot, siginfo_t *si, void *uc, bool block_trap)
{
	/* Small frame: this may run on the application's own, minimal
	   sigaltstack. The kernel's mask is the first word of sigset_t. */
	void (*fn)(int, siginfo_t *, void *) = slot->sa_sigaction;
	int flags = slot->sa_flags;
	uint64_t m = slot->sa_mask.__val[0] | ((ucontext_t *)uc)->uc_sigmask.__val[0];

	if ((flags & SA_SIGINFO) ? fn == NULL :
	    (slot->sa_handler == SIG_DFL || slot->sa_handler == SIG_IGN))
		return false;
	if (flags & SA_RESETHAND) {
		slot->sa_handler = SIG_DFL;
		slot->sa_flags = 0;
	}
	if (!(flags & SA_NODEFER))
		m |= 1ull << (sig - 1);
	if (block_trap)
		m |= 1ull << (SIGTRAP - 1);
	else
		m &= ~(1ull << (SIGTRAP - 1));
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &m, NULL, sizeof m);
	if (flags & SA_SIGINFO)
		fn(sig, si, uc);
	else
		((void (*)(int))(void (*)(void))fn)(sig);
	return true;
}

/* A SIGTRAP that is not ours. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction d;

	if (hc_self)
		hc_self->cnt.signals_chained++;
	if (sigmask__trap_wished()) {
		/* The application blocks SIGTRAP: a sent one stays pending until
		   it unblocks; a trap the CPU raised (int3, single step) is forced
		   through by the kernel with the default action, which kills. */
		if (si->si_code <= 0) {
			sigmask__hold(si, uc);
			return;
		}
	} else if (call_app(sig, &app_trap, si, uc, !(app_trap.sa_flags & SA_NODEFER)) ||
	           (!(app_trap.sa_flags & SA_SIGINFO) && app_trap.sa_handler == SIG_IGN)) {
		return;
	}
	/* Default action of SIGTRAP: terminate with a core. Write the
	   profiles, restore it and let the re-raise (pending while we run)
	   take effect on return. */
	process__log("SIGTRAP (si_code %d) with the default action: writing the profiles", si->si_code);
	process__finish();
	memset(&d, 0, sizeof d);
	d.sa_handler = SIG_DFL;
	real_sigaction(SIGTRAP, &d, NULL);
	raise(SIGTRAP);
}

struct work {
	struct rt_thread *t;
	void *uc;
	uint64_t cookie;
	enum { WORK_RUN, WORK_STEP_ABORT, WORK_TRAP_BLOCKED } what;   /* the last two: a
	                     burst ended, a blocked trap's set ended, nothing else */
};

/* The sample or trap proper, on our own altstack, under the guard. */
static void work(void *p)
{
	struct work *w = p;
	struct rt_thread *t = w->t;
	unsigned kind = (unsigned)COOKIE_KIND(w->cookie);
	uint64_t t0, walks;

	if (w->what == WORK_STEP_ABORT) {
		soft__step_abort(t, w->uc);
		return;
	}
	if (w->what == WORK_TRAP_BLOCKED) {
		watch__trap_blocked(t, COOKIE_SLOT(w->cookie));
		return;
	}
	walks = t->prev->walks;   /* the cache outlives a recycled arena's thread */
	hc_guard_enter(t);
	t->safety.in_handler = 1;
	t0 = process__now();
	t->sampler.busy_cur = t0;
	if (kind == COOKIE_SAMPLE && bench_empty)
		t->cnt.samples++;
	else if (kind == COOKIE_SAMPLE) {
		/* the sample's PC: spin evidence (detection.md §5.14) */
		t->det.pc = (uint64_t)((ucontext_t *)w->uc)->uc_mcontext.gregs[REG_RIP];
		t->split_last = t0;
		t->split_on = hc_rt.opt.cost_split;
		sampler__on_sample(t, w->uc);
		rt_split(t, RT_SPLIT_TAIL);
		t->split_on = 0;
		t->det.pc = 0;
	}
	else if (kind == COOKIE_WATCH)
		watch__on_trap(t, COOKIE_SLOT(w->cookie), w->uc);
	else if (kind == COOKIE_STEP)
		soft__on_step(t, w->uc);
	{
		uint64_t dt = process__now() - t0;

		if (kind == COOKIE_SAMPLE) {
			t->hist[hc_hist_bucket(dt)]++;
			t->cnt.handler_ns += dt;
		}
		rt_cost_add(&t->cost[kind == COOKIE_SAMPLE ? RT_MECH_SAMPLE :
		                     kind == COOKIE_WATCH ? RT_MECH_TRAP : RT_MECH_STEP], dt);
	}
	t->cnt.prev_walks += t->prev->walks - walks;
	{
		/* a PMU records the handler's own loads and stores too: the
		   next drain drops those taken during this run (pmu.c) */
		unsigned k = t->sampler.busy_n++ % HC_PMU_BUSY;
		t->sampler.busy_lo[k] = t0;
		t->sampler.busy_hi[k] = process__now() + 1;
		t->sampler.busy_cur = 0;
	}
	t->safety.in_handler = 0;
	hc_guard_leave(t);
}

/* Runs on whatever stack the kernel delivered it on — a program's own
   sigaltstack of one page, which the signal frame nearly fills (AVX-512:
   3.4 KiB), until work() goes to ours: no sanitizer redzones in this
   frame (ASan's doubled it to 440 bytes, and signals.sh altstack's
   threads died at their first sample in 1 of 3 runs of the sanitized
   build). */
__attribute__((no_sanitize_address))
static void on_sigtrap(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct rt_thread *t;
	struct work w;
	uintptr_t sp, lo;
	bool busy;

	t = hc_self;
	/* A trace trap is ours while this thread runs a single-step burst
	   (soft.c sets the trap flag only then, and clears it when the burst
	   ends); any other is the application's. */
	w.what = WORK_RUN;
	if (si->si_code == TRAP_TRACE && t && soft__stepping(t)) {
		w.cookie = (uint64_t)COOKIE_STEP << 56;
		if (t->safety.busy || hc_rt.stopping ||
		    loadmap__pc_in_self((uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP])) {
			/* Ending the burst reads the clock and writes counters: on
			   our stack too, not the program's one-page sigaltstack
			   (signals.sh altstack under ASan died there, 2 of 20 runs:
			   burst_end's clock_gettime overflowed it). In place only
			   when a handler of ours runs on our stack already, under
			   this frame (its top is taken). */
			w.what = WORK_STEP_ABORT;
			if (t->safety.in_handler || t->safety.on_stack) {
				soft__step_abort(t, uc);
				goto out;
			}
		}
		goto run;
	}
	if (si->si_code == TRAP_TRACE && !(app_trap.sa_flags & SA_SIGINFO) &&
	    app_trap.sa_handler == SIG_DFL && !sigmask__trap_wished()) {
		/* A single-step trap that no burst claims (its thread's record
		   gone or the burst's state reset, e.g. around exit: seen once
		   in objects_runtime.sh's stress run under load, the program
		   killed by SIGTRAP after its profiles were written) and an
		   application that has no SIGTRAP handler: only our bursts set
		   the trap flag there, and the default action would kill it.
		   Clear the flag, count it. */
		soft__clear_trap_flag(uc);
		__atomic_add_fetch(&hc_rt.steps_stray, 1, __ATOMIC_RELAXED);
		goto out;
	}
	if (si->si_code == TRAP_BRKPT && !(app_trap.sa_flags & SA_SIGINFO) &&
	    app_trap.sa_handler == SIG_DFL && !sigmask__trap_wished()) {
		/* A debug exception with no cause in DR6 (the kernel takes it for
		   an icebp and sends TRAP_BRKPT; an int3 is SI_KERNEL), in a
		   program without a SIGTRAP handler: seen once in 216 accuracy
		   runs with zone sets re-targeted often (nn_ring -O2 -t 2, session
		   12), the program killed — a data breakpoint of ours caught by
		   the guest while its registers were being re-targeted, likely.
		   Nothing to re-execute (data traps come after the access):
		   counted and ignored. */
		__atomic_add_fetch(&hc_rt.traps_empty, 1, __ATOMIC_RELAXED);
		goto out;
	}
	if (signal__tick_ours(si))
		soft__on_tick(SI_TIMER_OVERRUN(si));
	else if (si->si_code != TRAP_PERF) {
		chain(sig, si, uc);
		goto out;
	}
	if (!t) {
		/* An inherited sampler's copy in a thread without a record: before
		   the thread's start or after its end, an unmeasured thread, the
		   runtime's own helper. */
		if (COOKIE_KIND(SI_PERF_DATA(si)) == COOKIE_SAMPLE)
			__atomic_add_fetch(&hc_rt.samples_outside, 1, __ATOMIC_RELAXED);
		else if (COOKIE_KIND(SI_PERF_DATA(si)) == COOKIE_WATCH)
			watch__trap_outside(COOKIE_SLOT(SI_PERF_DATA(si)));
		goto out;
	}
	w.cookie = SI_PERF_DATA(si);
	if (COOKIE_KIND(w.cookie) == COOKIE_SAMPLE) {
		/* The event's multiplier (sampler/rate.h): a coarse sample stands
		   for mult periods, handled or not; the analyzer adds the extra
		   ones (samples_thinned) to the sampled CPU time. */
		t->sampler.mult = rt_rate_cookie_mult(w.cookie);
		if (t->sampler.mult > 1) {
			t->cnt.samples_coarse++;
			t->cnt.samples_thinned += t->sampler.mult - 1;
			if (t->sampler.mult > hc_rt.opt.crowd_mult)
				t->cnt.samples_heavy++;   /* the heavily crowded level (rate.h) */
		}
	}
	busy = t->safety.busy || hc_rt.stopping || (SI_PERF_FLAGS(si) & PERF_FLAG_ASYNC);
	if (busy || loadmap__pc_in_self((uint64_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP])) {
		if (COOKIE_KIND(w.cookie) == COOKIE_WATCH) {
			/* ends the set (ioctls, the clock): on our stack as above */
			w.what = WORK_TRAP_BLOCKED;
			if (!t->safety.in_handler && !t->safety.on_stack)
				goto run;
			watch__trap_blocked(t, COOKIE_SLOT(w.cookie));
		} else if (busy) {
			t->cnt.samples_blocked++;
		} else {
			t->cnt.samples_in_runtime++;   /* e.g. an allocation wrapper's hit path */
		}
		goto out;
	}
	/* which address fired (perf puts the breakpoint's bp_addr at the
	   trap in si_addr): a process-wide set re-targeted by another thread
	   between the trap and this handler is told apart by it (watch.c) */
	if (COOKIE_KIND(w.cookie) == COOKIE_WATCH)
		t->watch.trap_addr = (uint64_t)(uintptr_t)si->si_addr;
run:
	w.t = t;
	w.uc = uc;
	sp = (uintptr_t)__builtin_frame_address(0);
	lo = (uintptr_t)t->altstack;
	if (lo && (sp < lo || sp >= lo + t->altstack_size)) {
		t->safety.on_stack = 1;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		signal__call_on_stack(&w, work, (void *)((lo + t->altstack_size) & ~(uintptr_t)15));
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->safety.on_stack = 0;
	} else
		work(&w);
out:
	errno = saved;
}

/* A fatal signal: if the application handles it, it is the application's
   business (it may recover): chain. Otherwise write every profile (the
   writer is async-signal-safe), restore the application's disposition and
   let the signal take effect: a fault re-executes and kills as it would
   have; a sent signal is raised again. */
struct fatal {
	int sig;
	bool ours;                    /* a fault of the runtime: the default action */
	const siginfo_t *si;
};

static void fatal_default(void *p)
{
	static volatile int flushing;
	int sig = ((struct fatal *)p)->sig;
	const siginfo_t *si = ((struct fatal *)p)->si;
	struct sigaction a = app_fatal[sig];

	if (((struct fatal *)p)->ours) {
		process__log("fatal signal %d (si_code %d) in the runtime's own code: not the program's to handle",
		        sig, si->si_code);
		memset(&a, 0, sizeof a);
		a.sa_handler = SIG_DFL;
	}

	if (!__atomic_exchange_n(&flushing, 1, __ATOMIC_ACQ_REL)) {
		process__log("fatal signal %d (si_code %d): writing the profiles", sig, si->si_code);
		process__finish();
	}
	real_sigaction(sig, &a, NULL);
	if (si->si_code <= 0)
		raise(sig);
}

/* Back to the stack walk that faulted (cct.c). Out of line: on_fatal may
   run on the application's own sigaltstack, a page or so, and keeps its
   frame small. */
__attribute__((noinline, noreturn)) static void walk_fault(struct rt_thread *t)
{
	t->safety.walking = 0;
	siglongjmp(t->safety.walk_env, 1);
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct fatal f = { sig, false, si };
	struct rt_thread *t = hc_self;
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0), lo;
	/* On the application's own sigaltstack (maybe a few KiB) a sample
	   nested in its handler could overflow it: keep SIGTRAP blocked there
	   (such samples arrive late and are counted as blocked). */
	bool foreign = !t || ((ucontext_t *)uc)->uc_stack.ss_sp != t->altstack;
	/* A fault the CPU raised (si_code > 0) while this thread runs our
	   code (the guard is held) is ours: never the application's to
	   handle. In our stack walk it is contained: back to the walk, which
	   counts it and drops the sample (the mask is the sample handler's:
	   nothing to restore). Anywhere else: the flush and the default
	   action, below. */
	f.ours = t && t->safety.busy && si->si_code > 0 && sig != SIGABRT;
	if (f.ours && t->safety.walking)
		walk_fault(t);
	if (!f.ours && call_app(sig, &app_fatal[sig], si, uc, foreign))
		goto out;
	/* From here the process dies (or re-executes the fault after our
	   flush): no sample or watchpoint trap may nest in the flush. A nested
	   SIGTRAP would be delivered on the registered altstack (we are not on
	   it) and its handler would switch to the top of *our* stack, where the
	   flush runs, and overwrite it (seen: profiles written with garbage,
	   EINVAL). Perf SIGTRAPs stay pending while blocked; sigreturn restores
	   the interrupted mask if the fault re-executes. */
	{
		uint64_t m = ~((1ull << (SIGSEGV - 1)) | (1ull << (SIGBUS - 1)) |
		               (1ull << (SIGILL - 1)) | (1ull << (SIGFPE - 1)));

		syscall(SYS_rt_sigprocmask, SIG_BLOCK, &m, NULL, sizeof m);
	}
	/* Writing the profiles needs more than the application's altstack may
	   hold: on ours (nothing of ours runs there now but a sample that
	   faulted, which dies with the process anyway). */
	lo = hc_self ? (uintptr_t)hc_self->altstack : 0;
	if (lo && (sp < lo || sp >= lo + hc_self->altstack_size))
		signal__call_on_stack(&f, fatal_default, (void *)((lo + hc_self->altstack_size) & ~(uintptr_t)15));
	else
		fatal_default(&f);
out:
	errno = saved;
}

/* Our handler for a fatal signal, with the application's SA_RESTART; an
   ignored one is ignored for real (a synchronous fault then kills, as the
   kernel does for an ignored fault, without our flush). */
static int install_fatal(int sig, struct sigaction *old)
{
	struct sigaction a;

	memset(&a, 0, sizeof a);
	/* No sample nests in on_fatal: it may run on the application's own
	   sigaltstack, a page or so, which the fault's frame nearly fills (a
	   nested SIGTRAP's frame there overflowed it: the kernel killed the
	   process before anything was written; signals.sh altsegv). call_app
	   sets the application handler's own mask; a fault in our stack walk
	   comes from the sample handler, which blocks SIGTRAP already. */
	sigemptyset(&a.sa_mask);
	sigaddset(&a.sa_mask, SIGTRAP);
	if (!(app_fatal[sig].sa_flags & SA_SIGINFO) && app_fatal[sig].sa_handler == SIG_IGN) {
		a.sa_handler = SIG_IGN;
	} else {
		a.sa_sigaction = on_fatal;
		a.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | (app_fatal[sig].sa_flags & SA_RESTART);
	}
	return real_sigaction(sig, &a, old);
}

int signal__init(void)
{
	struct sigaction a;

	{
		const char *e = getenv("HC_BENCH_EMPTY_SAMPLES");
		bench_empty = e && *e && strcmp(e, "0") != 0;
	}
	real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	if (!real_sigaction)
		return -ENOSYS;
	memset(&a, 0, sizeof a);
	a.sa_sigaction = on_sigtrap;
	a.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	/* Nothing interrupts a sample but a fault of our own: the handler
	   may have left the stack the kernel delivered it on (see
	   on_sigtrap), where a nested frame would overwrite its own. */
	sigfillset(&a.sa_mask);
	sigdelset(&a.sa_mask, SIGSEGV);
	sigdelset(&a.sa_mask, SIGBUS);
	sigdelset(&a.sa_mask, SIGILL);
	sigdelset(&a.sa_mask, SIGFPE);
	if (real_sigaction(SIGTRAP, &a, &app_trap) < 0)
		return -errno;
	if (app_trap.sa_sigaction == on_sigtrap)   /* inherited across exec? never */
		memset(&app_trap, 0, sizeof app_trap);
	installed = 1;
	for (size_t i = 0; i < sizeof fatal_sigs / sizeof fatal_sigs[0]; i++) {
		int sig = fatal_sigs[i];
		if (real_sigaction(sig, NULL, &app_fatal[sig]) == 0 && install_fatal(sig, NULL) == 0)
			fatal_installed[sig] = 1;
	}
	sigmask__init();
	return 0;
}

typedef int (*sigaltstack_fn)(const stack_t *, stack_t *);

static sigaltstack_fn real_sigaltstack(void)
{
	static void *r;

	return (sigaltstack_fn)rt_next_sym(&r, "sigaltstack");
}

int signal__altstack_on(struct rt_thread *t)
{
	stack_t ss = { .ss_sp = t->altstack, .ss_size = t->altstack_size, .ss_flags = 0 };

	return real_sigaltstack()(&ss, NULL);
}

void signal__altstack_off(struct rt_thread *t)
{
	stack_t ss = { .ss_flags = SS_DISABLE }, cur;

	if (real_sigaltstack()(NULL, &cur) == 0 && cur.ss_sp == t->altstack)
		real_sigaltstack()(&ss, NULL);
}


/* ---- the application's view: SIGTRAP stays ours ---- */

/* An application handler that runs on its own sigaltstack (SA_ONSTACK)
   gets SIGTRAP added to its sa_mask: a sample nested in it would need a
   second signal frame on that altstack (AT_MINSIGSTKSZ is 3,376 bytes
   with AVX-512; programs give one page), the kernel could not push it and
   would kill the program with SIGSEGV (tests/integration/signals.sh
   altstack, 5 of 8 runs on such a host). Such samples arrive when the
   handler returns and are counted as blocked. The application reads back
   its own mask: added_trap[sig] says which masks we extended. */
static unsigned char added_trap[NSIG];

static int onstack_action(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction a;
	bool was_added = sig > 0 && sig < NSIG && added_trap[sig];
	int rc;

	if (!installed || sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP)
		return real_sigaction(sig, act, old);
	if (act && (act->sa_flags & SA_ONSTACK) && !sigismember(&act->sa_mask, SIGTRAP) &&
	    ((act->sa_flags & SA_SIGINFO) ||
	     (act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN))) {
		a = *act;
		sigaddset(&a.sa_mask, SIGTRAP);
		rc = real_sigaction(sig, &a, old);
		if (rc == 0)
			added_trap[sig] = 1;
	} else {
		rc = real_sigaction(sig, act, old);
		if (rc == 0 && act)
			added_trap[sig] = 0;
	}
	if (rc == 0 && old && was_added)
		sigdelset(&old->sa_mask, SIGTRAP);
	return rc;
}


HC_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real_sigaction)
		real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	if (sig > 0 && sig < NSIG && fatal_installed[sig]) {
		struct sigaction prev = app_fatal[sig];
		if (act) {
			app_fatal[sig] = *act;
			if (install_fatal(sig, NULL) < 0) {
				app_fatal[sig] = prev;
				return -1;
			}
		}
		if (old)
			*old = prev;
		return 0;
	}
	if (sig != SIGTRAP || !installed)
		return onstack_action(sig, act, old);
	if (old)
		*old = app_trap;
	if (act)
		app_trap = *act;
	return 0;
}

static sighandler_t set_handler(int sig, sighandler_t h, int flags)
{
	struct sigaction a, old;

	memset(&a, 0, sizeof a);
	a.sa_handler = h;
	a.sa_flags = flags;
	sigemptyset(&a.sa_mask);
	if (sigaction(sig, &a, &old) < 0)
		return SIG_ERR;
	return old.sa_handler;
}

HC_EXPORT sighandler_t signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART);
}

sighandler_t bsd_signal(int sig, sighandler_t h);
HC_EXPORT sighandler_t bsd_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESTART);
}

HC_EXPORT sighandler_t sysv_signal(int sig, sighandler_t h)
{
	return set_handler(sig, h, SA_RESETHAND | SA_NODEFER);
}
