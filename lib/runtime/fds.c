/* SPDX-License-Identifier: BSD-3-Clause */
/* fds.c — the runtime's file descriptors among the program's (doc/reliability.md, "Threads and descriptors").
   Every perf fd (sampler, watchpoints) and the process log is "adopted":
   moved above a floor (1024 when the limit allows, so the program's own fds
   stay low: select() and FD_SETSIZE keep working) and recorded in a table
   with where it is stored and, for perf fds, the kernel's event id.
     - Budget: the runtime holds at most `budget` fds (RLIMIT_NOFILE minus a
       quarter left to the program, raised to the hard limit first). Threads
       get fewer watchpoints, then none, then no sampler; each step is counted
       and logged once; the program never sees EMFILE because of us.
     - Programs that close every fd they do not know (daemons): close(),
       close_range() and closefrom() are interposed and leave ours open
       (counted as fds_close_refused); dup2/dup3 onto one of ours first moves
       ours elsewhere. A close through a raw system call is detected when we
       next use the fd (the event id no longer matches): the fd is then left
       alone (counted as fds_lost) and, for the log, reopened by name.
   fds__check, fds__close and the counters are async-signal-safe (system
   calls and atomics only); the interposed calls are the program's. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "runtime/rt.h"

#define FD_MAX   65536          /* fds tracked; beyond, unprotected (logged once) */
#define FD_FLOOR 1024

struct fd_slot {
	int *where;               /* the variable holding this fd, NULL = not ours */
	uint64_t id;              /* perf event id, 0 = not a perf fd */
};

static struct fd_slot slots[FD_MAX];
static int fd_floor;            /* 0 = adopt in place */
static int budget = 1 << 30;    /* fds the runtime may hold */
static int held;                /* fds the runtime holds now (atomic) */
static int said_untracked, said_refused, said_lost;

struct rt_fd_stats fds__stats;

static int sys_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

static unsigned long long lim_was, lim_now;

/* Raise the soft limit to the hard one (at most FD_MAX), then set the floor
   and the budget from what we got. Called once per process, before the
   runtime keeps any fd (the log); fds__log_limits says what it did. */
void fds__init(void)
{
	struct rlimit rl;
	rlim_t cur;

	held = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	cur = rl.rlim_cur;
	lim_was = lim_now = (unsigned long long)cur;
	if (rl.rlim_cur < rl.rlim_max && rl.rlim_cur < FD_MAX) {
		struct rlimit want = rl;
		want.rlim_cur = rl.rlim_max < FD_MAX ? rl.rlim_max : FD_MAX;
		if (setrlimit(RLIMIT_NOFILE, &want) == 0)
			cur = want.rlim_cur;
	}
	if (cur > FD_MAX)
		cur = FD_MAX;
	lim_now = (unsigned long long)cur;
	/* A quarter of the limit (at least 16) stays the program's. */
	budget = (int)cur - ((int)cur / 4 > 16 ? (int)cur / 4 : 16);
	if (budget < 0)
		budget = 0;
	fd_floor = cur >= 2 * FD_FLOOR ? FD_FLOOR : 0;
}

void fds__log_limits(void)
{
	if (lim_now != lim_was)
		process__log("fds: raised the soft RLIMIT_NOFILE from %llu to %llu for perf fds", lim_was, lim_now);
	process__log("fds: limit %llu, the runtime holds at most %d (its fds at %d and above)",
	        lim_now, budget, fd_floor);
}

/* Counters of fds.c and the thread degradations, for the process log. */
void fds__log_stats(void)
{
	process__log("fds: threads with fewer watchpoints %llu, without watchpoints %llu, without sampler %llu; "
	        "closes of ours refused %llu, ours moved for dup2 %llu, lost %llu",
	        (unsigned long long)fds__stats.threads_watch_reduced,
	        (unsigned long long)fds__stats.threads_watch_none,
	        (unsigned long long)fds__stats.threads_no_sampler,
	        (unsigned long long)fds__stats.close_refused,
	        (unsigned long long)fds__stats.moved,
	        (unsigned long long)fds__stats.lost);
}

/* May the runtime open n more fds? Reserves them if so. */
bool fds__reserve(int n)
{
	int h = __atomic_load_n(&held, __ATOMIC_RELAXED);

	do {
		if (h + n > budget)
			return false;
	} while (!__atomic_compare_exchange_n(&held, &h, h + n, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return true;
}

/* Count n fds over the budget (the main thread's sampler). */
bool fds__force(int n)
{
	__atomic_add_fetch(&held, n, __ATOMIC_RELAXED);
	return true;
}

void fds__unreserve(int n)
{
	__atomic_sub_fetch(&held, n, __ATOMIC_RELAXED);
}

/* Fds the runtime holds now, and its budget. */
int fds__held(void) { return __atomic_load_n(&held, __ATOMIC_RELAXED); }
int fds__budget(void) { return budget; }

/* Take ownership of a freshly opened fd (already reserved): move it above
   the floor, remember where it is kept and its perf event id. Returns the
   (possibly new) fd, stored in *where too. */
int fds__adopt(int fd, int *where, bool perf)
{
	if (fd < 0)
		return fd;
	if (fd_floor && fd < fd_floor) {
		int nfd = fcntl(fd, F_DUPFD_CLOEXEC, fd_floor);
		if (nfd >= 0) {
			sys_close(fd);
			fd = nfd;
		}
	}
	*where = fd;
	if (fd >= FD_MAX) {
		if (!__atomic_exchange_n(&said_untracked, 1, __ATOMIC_RELAXED))
			process__log("fds: fd %d is beyond the %d tracked: the program could close it under us", fd, FD_MAX);
		return fd;
	}
	slots[fd].id = 0;
	if (perf && ioctl(fd, PERF_EVENT_IOC_ID, &slots[fd].id) < 0)
		slots[fd].id = 0;
	__atomic_store_n(&slots[fd].where, where, __ATOMIC_RELEASE);
	return fd;
}

/* Is the fd kept in *where still the one we adopted there? A raw
   close_range(2) or close(2) in the program may have closed it, and the
   number been reused by the program or by another of our fds. */
bool fds__check(const int *where)
{
	int fd = __atomic_load_n(where, __ATOMIC_ACQUIRE);
	uint64_t id = 0;

	if (fd < 0 || fd >= FD_MAX)
		return fd >= 0;
	if (__atomic_load_n(&slots[fd].where, __ATOMIC_ACQUIRE) != where)
		return false;
	if (!slots[fd].id)
		return fcntl(fd, F_GETFD) >= 0;
	return ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0 && id == slots[fd].id;
}

static void lost(int fd, const char *what)
{
	__atomic_add_fetch(&fds__stats.lost, 1, __ATOMIC_RELAXED);
	if (!__atomic_exchange_n(&said_lost, 1, __ATOMIC_RELAXED))
		process__log("fds: %s fd %d was closed by the program behind libc's back (raw system call): "
		        "measurement through it stopped early (counted in fds_lost)", what, fd);
}

/* Release the fd kept in *where: closed only if it is still ours. */
void fds__close(int *where, const char *what)
{
	int fd = *where;
	bool mine;

	if (fd < 0)
		return;
	mine = fds__check(where);
	fds__forget(where);
	fds__unreserve(1);
	if (mine)
		sys_close(fd);
	else
		lost(fd, what);
}

/* Stop tracking the fd kept in *where (if that slot is still ours). */
void fds__forget(int *where)
{
	int fd = *where;
	int *exp = where;

	if (fd >= 0 && fd < FD_MAX)
		__atomic_compare_exchange_n(&slots[fd].where, &exp, NULL, false,
		                            __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

static bool ours(int fd)
{
	return fd >= 0 && fd < FD_MAX && __atomic_load_n(&slots[fd].where, __ATOMIC_ACQUIRE);
}

static void refused(int fd)
{
	__atomic_add_fetch(&fds__stats.close_refused, 1, __ATOMIC_RELAXED);
	if (!__atomic_exchange_n(&said_refused, 1, __ATOMIC_RELAXED))
		process__log("fds: the program closed fd %d, which is the runtime's: left open "
		        "(every such close is counted in fds_close_refused)", fd);
}

/* ---- the program's view ---- */


HC_EXPORT int close(int fd)
{
	if (ours(fd)) {
		refused(fd);
		return 0;
	}
	return RT_REAL(close)(fd);
}

/* close_range over [first, last] minus our fds, in sub-ranges. */
static int range_except_ours(unsigned first, unsigned last, int flags)
{
	unsigned lo = first;
	int ret = 0;

	if (first > last) {
		errno = EINVAL;
		return -1;
	}
	for (unsigned fd = first; fd <= last && fd < FD_MAX; fd++) {
		if (!ours((int)fd))
			continue;
		if (!(flags & CLOSE_RANGE_CLOEXEC))
			refused((int)fd);
		if (fd > lo && syscall(SYS_close_range, lo, fd - 1, flags) < 0)
			ret = -1;
		lo = fd + 1;
		if (fd == last)
			return ret;
	}
	if (lo <= last && syscall(SYS_close_range, lo, last, flags) < 0)
		ret = -1;
	return ret;
}

HC_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	if (flags & ~(CLOSE_RANGE_CLOEXEC | CLOSE_RANGE_UNSHARE)) {
		errno = EINVAL;
		return -1;
	}
	if (flags & CLOSE_RANGE_UNSHARE) {
		/* Unshare first (nothing closed), then close in sub-ranges. */
		if (syscall(SYS_close_range, ~0u, ~0u, CLOSE_RANGE_UNSHARE) < 0 && errno != EINVAL)
			return -1;
		flags &= ~CLOSE_RANGE_UNSHARE;
	}
	return range_except_ours(first, last, flags);
}

HC_EXPORT void closefrom(int lowfd)
{
	if (lowfd < 0)
		lowfd = 0;
	if (range_except_ours((unsigned)lowfd, ~0u, 0) == 0)
		return;
	/* As glibc does when close_range is missing: one by one. */
	for (int fd = lowfd; fd < FD_MAX; fd++)
		if (!ours(fd))
			sys_close(fd);
}

/* The program wants `fd` as a number: move ours out of its way first.
   True if ours was moved (the old number still holds a duplicate until the
   program's dup2 replaces it). */
static bool make_room(int fd)
{
	int *where, nfd;

	if (!ours(fd))
		return false;
	where = __atomic_load_n(&slots[fd].where, __ATOMIC_ACQUIRE);
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, fd_floor > fd ? fd_floor : fd + 1);
	if (nfd < 0 || nfd >= FD_MAX) {
		if (nfd >= 0)
			sys_close(nfd);
		__atomic_store_n(&slots[fd].where, NULL, __ATOMIC_RELEASE);
		lost(fd, "a runtime");
		return false;
	}
	slots[nfd].id = slots[fd].id;
	__atomic_store_n(&slots[nfd].where, where, __ATOMIC_RELEASE);
	__atomic_store_n(where, nfd, __ATOMIC_RELEASE);
	__atomic_store_n(&slots[fd].where, NULL, __ATOMIC_RELEASE);
	__atomic_add_fetch(&fds__stats.moved, 1, __ATOMIC_RELAXED);
	return true;
}

HC_EXPORT int dup2(int oldfd, int newfd)
{
	bool moved = oldfd != newfd && make_room(newfd);
	int ret = RT_REAL(dup2)(oldfd, newfd), err = errno;

	if (ret < 0 && moved)
		sys_close(newfd);     /* our stale duplicate: the program asked for it gone */
	errno = err;
	return ret;
}

HC_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	bool moved = oldfd != newfd && make_room(newfd);
	int ret = RT_REAL(dup3)(oldfd, newfd, flags), err = errno;

	if (ret < 0 && moved)
		sys_close(newfd);
	errno = err;
	return ret;
}
