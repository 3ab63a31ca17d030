/* SPDX-License-Identifier: BSD-3-Clause */
/* sigmask.c — the application's signal mask, as the application sees it,
   while SIGTRAP (our sampler and watchpoints: signal.c) stays deliverable
   in every thread. A perf SIGTRAP that finds SIGTRAP blocked is left
   pending by the kernel and arrives late, once, flagged asynchronous
   (doc/reliability.md, "Signals"): a thread that blocks every signal, as
   liblzma's workers do, would never be sampled (doc/performance.md F4).

   So sigprocmask, pthread_sigmask and the BSD/System V mask calls are
   interposed: every other signal is blocked exactly as asked; SIGTRAP is
   dropped from the real mask and the application's wish for it is kept
   per thread, reported back in every old set, inherited by the threads it
   creates (pthread_create, thread.c) and restored before exec. A SIGTRAP
   of the application's own (raise, kill) that arrives while its wish is
   "blocked" is made pending for real (signal.c calls sigmask__hold):
   SIGTRAP is then blocked in this thread until the application unblocks
   it, which delivers it as the kernel would have. Not signal context,
   except sigmask__trap_wished and sigmask__hold (async-signal-safe:
   thread-local flags and system calls only). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/safety.h"

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);

/* Per thread: the application wants SIGTRAP blocked; SIGTRAP is really
   blocked because one of the application's is pending. Volatile: the
   handler reads them between the wrapper's steps. */
static __thread volatile int wish __attribute__((tls_model("initial-exec")));
static __thread volatile int held __attribute__((tls_model("initial-exec")));
static __thread volatile int paused __attribute__((tls_model("initial-exec")));
/* The application took a held SIGTRAP (sigwait family) since the last
   check: what is pending now, if anything, is ours. */
static __thread volatile int consumed __attribute__((tls_model("initial-exec")));

static mask_fn real_pthread_sigmask(void)
{
	static void *r;

	return (mask_fn)rt_next_sym(&r, "pthread_sigmask");
}

static mask_fn real_sigprocmask(void)
{
	static void *r;

	return (mask_fn)rt_next_sym(&r, "sigprocmask");
}

static void trap_only(sigset_t *s)
{
	sigemptyset(s);
	sigaddset(s, SIGTRAP);
}

static void real_trap(int how)
{
	sigset_t s;

	trap_only(&s);
	real_pthread_sigmask()(how, &s, NULL);
}

/* While an application SIGTRAP is held, SIGTRAP is blocked for real:
   this thread's sampler and watchpoints stop meanwhile, so that none of
   our SIGTRAPs can become pending (where sigpending, sigwait or signalfd
   would show it to the application). */

static void pause_sampling(void)
{
	struct rt_thread *t = hc_self;

	if (!t || !hc_guard_enter(t))
		return;
	sampler__thread_ioctl(t, PERF_EVENT_IOC_DISABLE);
	watch__disarm(t);
	hc_detect_arm_failed(&t->det);
	paused = 1;
	hc_guard_leave(t);
}

static void resume_sampling(void)
{
	struct rt_thread *t = hc_self;

	if (!paused || !t || !hc_guard_enter(t))
		return;
	sampler__thread_ioctl(t, PERF_EVENT_IOC_ENABLE);
	paused = 0;
	hc_guard_leave(t);
}

/* The SIGTRAP pending in this thread, if it is one of our samples: taken
   and counted as blocked; an application's is queued again. An inherited
   sampler's event (soft sampler, soft.c) cannot be paused per thread: its
   SIGTRAP is dropped by the kernel while the application's occupies the
   one pending slot, but may take the slot in the instant after the
   application took its own. Async-signal-safe. */
static void drop_ours(void)
{
	uint64_t trap = 1ull << (SIGTRAP - 1);
	struct timespec zero = { 0, 0 };
	siginfo_t si;

	if (syscall(SYS_rt_sigtimedwait, &trap, &si, &zero, sizeof trap) != SIGTRAP)
		return;
	if (signal__siginfo_ours(&si)) {
		if (hc_self)
			hc_self->cnt.samples_blocked++;
		return;
	}
	syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), SIGTRAP, &si);
}

/* Still held but nothing of the application's pending any more (it took
   it with sigwait or signalfd): SIGTRAP is ours again. Only after the
   application took its own (`consumed`, the sigwait family) is a pending
   SIGTRAP taken to see whose it is: while the application's is pending,
   ours are dropped by the kernel, and taking the application's to queue
   it again leaves the slot empty for an instant, in which a sample of the
   inherited sampler (which cannot be paused per thread) or a trap of the
   process-wide set takes it and the application's is lost (signals.sh
   'trap': 1 in ~30 runs, session 12, when every mask call while held did
   so). After a signalfd read, not seen here, one of ours may stay pending
   and keep SIGTRAP blocked until the application unblocks it: samples of
   that thread wait, nothing of the application's is lost. */
static void release_if_consumed(void)
{
	sigset_t p;

	if (held && wish && consumed && sigpending(&p) == 0 && sigismember(&p, SIGTRAP))
		drop_ours();
	consumed = 0;
	if (held && wish && sigpending(&p) == 0 && !sigismember(&p, SIGTRAP)) {
		held = 0;
		real_trap(SIG_UNBLOCK);
	}
	if (!held)
		resume_sampling();
}

/* The one mask operation behind every interposed call. Returns what the
   real call returns (posix: an error number; else -1 with errno). */
static int mask_op(mask_fn real, bool posix, int how, const sigset_t *set, sigset_t *old)
{
	int before = wish, after = before, ret, err, saved = errno;
	const sigset_t *use = set;
	sigset_t s;

	/* The runtime's own calls (libunwind blocks everything around its
	   caches, inside our handler) are not the application's wish. */
	if (hc_self && hc_self->safety.busy)
		return real(how, set, old);
	if (set) {
		int in = sigismember(set, SIGTRAP) == 1;

		switch (how) {
		case SIG_BLOCK:   after = before || in; break;
		case SIG_UNBLOCK: after = before && !in; break;
		case SIG_SETMASK: after = in; break;
		default:          return real(how, set, old);   /* EINVAL, as native */
		}
		s = *set;
		/* A held SIGTRAP stays blocked for real while the wish does, and
		   is released (unblocked for real) when the wish goes. */
		if (held && after && how == SIG_SETMASK)
			sigaddset(&s, SIGTRAP);
		else if (held && !after && how == SIG_UNBLOCK)
			sigaddset(&s, SIGTRAP);
		else
			sigdelset(&s, SIGTRAP);
		use = &s;
	}
	/* The wish changes first: a held SIGTRAP released by this very call
	   is delivered on its return and must find the application willing. */
	wish = after;
	if (held && !after)
		held = 0;
	ret = real(how, use, old);
	err = posix ? ret : (ret < 0 ? errno : 0);
	if (err) {
		wish = before;
		return ret;
	}
	if (old) {
		if (before)
			sigaddset(old, SIGTRAP);
		else
			sigdelset(old, SIGTRAP);
	}
	release_if_consumed();
	errno = saved;
	return ret;
}

HC_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	return mask_op(real_pthread_sigmask(), true, how, set, old);
}

HC_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	return mask_op(real_sigprocmask(), false, how, set, old);
}

/* BSD masks: the low 32 signals as a word (glibc's own definitions). */
static int bsd_op(int how, int mask)
{
	sigset_t set, old;
	int word = 0;

	sigemptyset(&set);
	for (int sig = 1; sig < 32; sig++)
		if (mask & (1 << (sig - 1)))
			sigaddset(&set, sig);
	if (mask_op(real_sigprocmask(), false, how, how == -1 ? NULL : &set, &old) < 0)
		return -1;
	for (int sig = 1; sig < 32; sig++)
		if (sigismember(&old, sig) == 1)
			word |= 1 << (sig - 1);
	return word;
}

int sigblock(int mask);
int sigsetmask(int mask);
int siggetmask(void);
HC_EXPORT int sigblock(int mask) { return bsd_op(SIG_BLOCK, mask); }
HC_EXPORT int sigsetmask(int mask) { return bsd_op(SIG_SETMASK, mask); }
HC_EXPORT int siggetmask(void) { return bsd_op(SIG_BLOCK, 0); }

/* System V: one signal at a time. */
static int one_op(int how, int sig)
{
	sigset_t set;

	sigemptyset(&set);
	if (sigaddset(&set, sig) < 0)
		return -1;
	return mask_op(real_sigprocmask(), false, how, &set, NULL);
}

HC_EXPORT int sighold(int sig) { return one_op(SIG_BLOCK, sig); }
HC_EXPORT int sigrelse(int sig) { return one_op(SIG_UNBLOCK, sig); }

/* The application may take a held SIGTRAP with these: then it is gone. */
typedef int (*timedwait_fn)(const sigset_t *, siginfo_t *, const struct timespec *);

HC_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
	timedwait_fn real = RT_REAL(sigtimedwait);
	siginfo_t mine;
	int ret, err;

	if (!info)
		info = &mine;
	/* One of our samples that took the pending slot (drop_ours) is not
	   the application's: wait on (the timeout starts again). */
	while ((ret = real(set, info, timeout)) == SIGTRAP && signal__siginfo_ours(info))
		if (hc_self)
			hc_self->cnt.samples_blocked++;
	err = errno;
	if (ret == SIGTRAP && held) {
		consumed = 1;
		release_if_consumed();
	}
	errno = err;
	return ret;
}

HC_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	return sigtimedwait(set, info, NULL);
}

HC_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	siginfo_t si;
	int ret;

	do
		ret = sigtimedwait(set, &si, NULL);
	while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return errno;
	*sig = ret;
	return 0;
}

/* ---- the runtime's side ---- */

bool sigmask__trap_wished(void)
{
	return wish != 0;
}

/* Signal context: an application SIGTRAP while the application blocks
   SIGTRAP. Queue it again to this thread with its siginfo and return with
   SIGTRAP blocked (the handler's saved mask), so it stays pending exactly
   as it would have: visible to sigpending, sigwait and signalfd, delivered
   when the application unblocks SIGTRAP. */
void sigmask__hold(const siginfo_t *si, void *uc)
{
	siginfo_t copy = *si, ours;
	struct timespec zero = { 0, 0 };
	uint64_t trap = 1ull << (SIGTRAP - 1);

	held = 1;
	pause_sampling();
	/* From a handler of ours pause_sampling cannot take the guard: our
	   watchpoints (a data set, a return breakpoint) go off here, or one of
	   their traps could take the pending slot. */
	if (hc_self)
		watch__disarm(hc_self);
	/* A sample that fired just now would take the one pending slot. */
	if (syscall(SYS_rt_sigtimedwait, &trap, &ours, &zero, sizeof trap) == SIGTRAP &&
	    ours.si_code == TRAP_PERF && hc_self)
		hc_self->cnt.samples_blocked++;
	sigaddset(&((ucontext_t *)uc)->uc_sigmask, SIGTRAP);
	syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), SIGTRAP, &copy);
}

int sigmask__real(int how, const sigset_t *set, sigset_t *old)
{
	return real_pthread_sigmask()(how, set, old);
}

/* Process start: the parent may have exec'd us with SIGTRAP blocked. */
void sigmask__init(void)
{
	sigset_t cur;

	if (real_pthread_sigmask()(SIG_BLOCK, NULL, &cur) == 0 && sigismember(&cur, SIGTRAP) == 1) {
		wish = 1;
		real_trap(SIG_UNBLOCK);
	}
}

/* In the creator, at pthread_create: the new thread's wish (the attribute's
   signal mask if it sets one, else the creator's). */
int sigmask__inherit(const pthread_attr_t *attr)
{
	sigset_t s;

	if (attr && pthread_attr_getsigmask_np(attr, &s) == 0)
		return sigismember(&s, SIGTRAP) == 1;
	return wish;
}

/* In the new thread, before anything else (F4): SIGTRAP deliverable. */
void sigmask__thread_start(int inherited)
{
	wish = inherited;
	held = 0;
	real_trap(SIG_UNBLOCK);
}

/* Before exec the new image gets the mask the application asked for; our
   events are already stopped (process__fini) and this thread's
   watchpoints go off first so no SIGTRAP of ours is left pending. */
void sigmask__before_exec(void)
{
	if (hc_self)
		watch__disarm(hc_self);
	if (wish && !held)
		real_trap(SIG_BLOCK);
}

void sigmask__after_exec_failure(void)
{
	if (!held)
		real_trap(SIG_UNBLOCK);
}
