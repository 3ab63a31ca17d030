/* SPDX-License-Identifier: BSD-3-Clause */
/* io.c — data the kernel writes for a thread (doc/detection.md §5.75):
   read(), pread(), recv() and recvfrom() fill the program's buffer in the
   kernel, on the calling thread's CPU, with no store instruction a timer
   sample could land on. A thread that reads input and hands the buffer to
   others (pigz's and pbzip2's readers, a pipeline's first stage) hands over
   cache lines all the same. The runtime notes such a fill of at least
   RT_IO_MIN bytes in a heap block as the calling thread's store at the call
   site, on the hand-off sets' writer records (record__io_store): another
   thread's later sampled load in the block arms a hand-off set standing for
   it, as for a store sample's record (§5.36, §5.41).

   The wrappers call libc's function first and return its result and errno
   untouched; the note runs after it, under the thread's guard, not in
   signal context. Exact mode counts the same fills as writes of the range
   (sampler/exact.c), so both modes see the same communication. */
#include <errno.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/safety.h"

static bool io_on;

void io__enable(bool on)
{
	__atomic_store_n(&io_on, on, __ATOMIC_RELAXED);
}

#ifndef HC_RT_EXACT

/* Always inlined into the wrappers: skip 1 is the wrapper's frame. */
static inline __attribute__((always_inline)) void io_note(void *buf, ssize_t r)
{
	struct rt_thread *t = hc_self;
	uint64_t ra, fa;
	uint32_t ctx;
	int e;

	if (!t)
		return;
	if (r < RT_IO_MIN) {
		t->cnt.io_small++;
		return;
	}
	if (!hc_guard_enter(t))
		return;
	e = errno;
	/* A loop of reads unwinds once: the same call site at the same stack
	   depth is taken for the same context (its outer callers are not
	   checked: a caller's other callers at that depth share it). */
	ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
	fa = (uint64_t)(uintptr_t)__builtin_frame_address(0);
	if (t->io.ctx && t->io.ra == ra && t->io.fa == fa) {
		ctx = t->io.ctx;
		t->cnt.io_ctx_cached++;
	} else {
		ctx = cct__context_here(t, 1);
		if (ctx != HC_NONE && ctx != 0)
			t->io.ra = ra, t->io.fa = fa, t->io.ctx = ctx;
	}
	if (ctx != HC_NONE && ctx != 0)
		record__io_store(t, (uint64_t)(uintptr_t)buf, (uint64_t)r, ctx);
	else
		t->cnt.io_no_ctx++;
	errno = e;
	hc_guard_leave(t);
}

#define IO_FROM_PROGRAM() \
	(__atomic_load_n(&io_on, __ATOMIC_RELAXED) && \
	 !loadmap__pc_in_self((uint64_t)(uintptr_t)__builtin_return_address(0)))

HC_EXPORT ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t r = RT_REAL(read)(fd, buf, n);

	if (r > 0 && IO_FROM_PROGRAM())
		io_note(buf, r);
	return r;
}

HC_EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t r = RT_REAL(pread)(fd, buf, n, off);

	if (r > 0 && IO_FROM_PROGRAM())
		io_note(buf, r);
	return r;
}

/* the same function in libc (off_t is 64 bits here) */
HC_EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off) __attribute__((alias("pread")));

HC_EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	ssize_t r = RT_REAL(recv)(fd, buf, n, flags);

	if (r > 0 && IO_FROM_PROGRAM())
		io_note(buf, r);
	return r;
}

HC_EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags, struct sockaddr *from, socklen_t *len)
{
	ssize_t r = RT_REAL(recvfrom)(fd, buf, n, flags, from, len);

	if (r > 0 && IO_FROM_PROGRAM())
		io_note(buf, r);
	return r;
}

#endif
