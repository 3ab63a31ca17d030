/* SPDX-License-Identifier: BSD-3-Clause */
/* signal.c — the one SIGTRAP handler and the application's view of
   signals. Sample timers and watchpoints both deliver SIGTRAP with
   si_code TRAP_PERF and our cookie in si_perf_data (attr.sigtrap); any other
   SIGTRAP belongs to the application (or its debugger) and is chained to the
   handler it installed. sigaction/signal are interposed so the application
   cannot replace ours; it gets its own disposition back, as if it had
   installed it. The same holds for the fatal signals (SEGV, BUS, FPE, ILL,
   ABRT), where our handler writes the profiles before the default action.
   The handlers run on the thread's sigaltstack and follow safety.h's rules. */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/safety.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
/* glibc 2.36 has no si_perf_* accessors: kernel layout on x86-64. */
#define SI_PERF_DATA(si) (*(const uint64_t *)((const char *)(si) + 24))

#define COOKIE_KIND(c)  ((c) >> 56)
#define COOKIE_SLOT(c)  ((int)((c) & 0xff))
enum { COOKIE_SAMPLE = 0x5a, COOKIE_WATCH = 0xb9 };

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;
static struct sigaction app_trap;     /* the application's SIGTRAP disposition */
static int installed;

/* Fatal signals: flushed best effort, then the application's disposition. */
static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction app_fatal[NSIG];
static int fatal_installed[NSIG];

uint64_t rt__cookie_sample(void);
uint64_t rt__cookie_watch(int slot);
uint64_t rt__cookie_sample(void) { return (uint64_t)COOKIE_SAMPLE << 56; }
uint64_t rt__cookie_watch(int slot) { return (uint64_t)COOKIE_WATCH << 56 | (uint64_t)slot; }

static void chain(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = app_trap;

	if (hc_self)
		hc_self->cnt.signals_chained++;
	if (a.sa_flags & SA_SIGINFO) {
		if (a.sa_sigaction)
			a.sa_sigaction(sig, si, uc);
	} else if (a.sa_handler == SIG_IGN) {
		return;
	} else if (a.sa_handler == SIG_DFL) {
		/* Default action of SIGTRAP: terminate with a core. Restore it and
		   let the still-pending re-raise take effect on return. */
		struct sigaction d;
		memset(&d, 0, sizeof d);
		d.sa_handler = SIG_DFL;
		real_sigaction(SIGTRAP, &d, NULL);
		raise(SIGTRAP);
	} else {
		a.sa_handler(sig);
	}
}

static void on_sigtrap(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct hc_thread *t;
	uint64_t cookie, t0;
	unsigned kind;

	if (si->si_code != TRAP_PERF) {
		chain(sig, si, uc);
		goto out;
	}
	t = hc_self;
	cookie = SI_PERF_DATA(si);
	kind = (unsigned)COOKIE_KIND(cookie);
	if (!t)
		goto out;
	if (t->safety.busy || hc_rt.stopping) {
		if (kind == COOKIE_WATCH) {
			t->cnt.traps_blocked++;
			rt__watch_disarm(t);
			hc_detect_arm_failed(&t->det);
		} else {
			t->cnt.samples_blocked++;
		}
		goto out;
	}
	hc_guard_enter(t);
	t->safety.in_handler = 1;
	t0 = rt__now();
	if (kind == COOKIE_SAMPLE)
		rt__on_sample(t, uc);
	else if (kind == COOKIE_WATCH)
		rt__on_trap(t, COOKIE_SLOT(cookie), uc);
	if (kind == COOKIE_SAMPLE) {
		t->hist[hc_hist_bucket(rt__now() - t0)]++;
	}
	t->safety.in_handler = 0;
	hc_guard_leave(t);
out:
	errno = saved;
}

/* A fatal signal: if the application handles it, it is the application's
   business (it may recover): chain. Otherwise write every profile (the
   writer is async-signal-safe), restore the application's disposition and
   let the signal take effect: a fault re-executes and kills as it would
   have; a sent signal is raised again. */
static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	static volatile int flushing;
	struct sigaction a = app_fatal[sig];
	int saved = errno;

	if ((a.sa_flags & SA_SIGINFO) ? a.sa_sigaction != NULL :
	    (a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN)) {
		if (a.sa_flags & SA_SIGINFO)
			a.sa_sigaction(sig, si, uc);
		else
			a.sa_handler(sig);
		errno = saved;
		return;
	}
	if (!__atomic_exchange_n(&flushing, 1, __ATOMIC_ACQ_REL)) {
		rt__log("fatal signal %d (si_code %d): writing the profiles", sig, si->si_code);
		rt__process_finish();
	}
	real_sigaction(sig, &a, NULL);
	if (si->si_code <= 0)
		raise(sig);
	errno = saved;
}

int rt__signals_init(void)
{
	struct sigaction a;

	real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	if (!real_sigaction)
		return -1;
	memset(&a, 0, sizeof a);
	a.sa_sigaction = on_sigtrap;
	a.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigemptyset(&a.sa_mask);
	if (real_sigaction(SIGTRAP, &a, &app_trap) < 0)
		return -1;
	if (app_trap.sa_sigaction == on_sigtrap)   /* inherited across exec? never */
		memset(&app_trap, 0, sizeof app_trap);
	installed = 1;
	for (size_t i = 0; i < sizeof fatal_sigs / sizeof fatal_sigs[0]; i++) {
		int sig = fatal_sigs[i];
		a.sa_sigaction = on_fatal;
		a.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
		if (real_sigaction(sig, &a, &app_fatal[sig]) == 0)
			fatal_installed[sig] = 1;
	}
	return 0;
}

int rt__altstack_on(struct hc_thread *t)
{
	stack_t ss = { .ss_sp = t->altstack, .ss_size = t->altstack_size, .ss_flags = 0 };

	return sigaltstack(&ss, NULL);
}

void rt__altstack_off(struct hc_thread *t)
{
	stack_t ss = { .ss_flags = SS_DISABLE }, cur;

	if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == t->altstack)
		sigaltstack(&ss, NULL);
}

/* ---- the application's view: SIGTRAP stays ours ---- */

HC_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real_sigaction)
		real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	if (sig > 0 && sig < NSIG && fatal_installed[sig]) {
		if (old)
			*old = app_fatal[sig];
		if (act)
			app_fatal[sig] = *act;
		return 0;
	}
	if (sig != SIGTRAP || !installed)
		return real_sigaction(sig, act, old);
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
