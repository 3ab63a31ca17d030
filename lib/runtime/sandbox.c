/* SPDX-License-Identifier: BSD-3-Clause */
/* sandbox.c — a program that sandboxes itself keeps the measurement
   directory writable (doc/runtime.md, "Sandboxed programs").

   xz 5.6 and later restrict themselves with Landlock before they compress
   (src/xz/sandbox.c): after landlock_restrict_self no new file can be
   created anywhere, so every thread's profile was lost at exit ("cannot
   create …hcprof.tmp: Permission denied" in the log, nothing on stderr,
   which xz has closed by then). Landlock has no libc wrapper: programs
   call syscall(2). The runtime interposes syscall(): it notes which access
   rights each ruleset the program creates handles, and just before the
   program's landlock_restrict_self it adds one rule to that ruleset, the
   measurement directory with every right the ruleset handles. The program's
   own restrictions are unchanged everywhere else. The log's "Landlock"
   line counts the rulesets and the rules added or refused.

   The forwarding is a raw system call (no dlsym: the runtime's own
   syscall() calls, signal handlers included, come through here too), so
   the interposer is async-signal-safe. Not covered: seccomp filters that
   forbid open or write (the profiles are then lost, as the log says), and
   Landlock through an inline system call the program makes itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "runtime/rt.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define LANDLOCK_RULE_PATH_BENEATH_ 1

struct path_beneath {   /* struct landlock_path_beneath_attr */
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* The program's rulesets: fd → the filesystem rights it handles. */
#define RULESETS 16
static struct { int fd; uint64_t handled; } rulesets[RULESETS];
static uint32_t landlock_rulesets, landlock_dir_allowed, landlock_dir_failed, landlock_untracked;

static long raw_syscall(long n, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;

	__asm__ volatile("syscall"
	                 : "=a"(r)
	                 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	                 : "rcx", "r11", "memory");
	return r;
}

static void note_ruleset(int fd, uint64_t handled)
{
	/* The fd's own slot first (a number the kernel reused after a close):
	   only the thread that got the fd from the kernel writes it. */
	for (int i = 0; i < RULESETS; i++)
		if (__atomic_load_n(&rulesets[i].fd, __ATOMIC_ACQUIRE) == fd + 1) {
			__atomic_store_n(&rulesets[i].handled, handled, __ATOMIC_RELAXED);
			__atomic_add_fetch(&landlock_rulesets, 1, __ATOMIC_RELAXED);
			return;
		}
	/* A free slot, claimed by compare-and-swap (-1 while its rights are
	   written), so that two threads creating rulesets at once never share
	   one. */
	for (int i = 0; i < RULESETS; i++) {
		int expected = 0;

		if (__atomic_compare_exchange_n(&rulesets[i].fd, &expected, -1, 0, __ATOMIC_ACQUIRE,
		                                __ATOMIC_RELAXED)) {
			__atomic_store_n(&rulesets[i].handled, handled, __ATOMIC_RELAXED);
			__atomic_store_n(&rulesets[i].fd, fd + 1, __ATOMIC_RELEASE);
			__atomic_add_fetch(&landlock_rulesets, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	__atomic_add_fetch(&landlock_untracked, 1, __ATOMIC_RELAXED);   /* all slots taken */
}

/* Before the program's landlock_restrict_self(fd): the measurement
   directory gets every right the ruleset handles. */
static void allow_dir(int fd)
{
	uint64_t handled = 0;
	struct path_beneath pb;
	long r;

	for (int i = 0; i < RULESETS; i++)
		if (__atomic_load_n(&rulesets[i].fd, __ATOMIC_ACQUIRE) == fd + 1)
			handled = __atomic_load_n(&rulesets[i].handled, __ATOMIC_RELAXED);
	if (!handled || !hc_rt.opt.dir[0])
		return;
	pb.allowed_access = handled;
	pb.parent_fd = (int)raw_syscall(SYS_openat, AT_FDCWD, (long)hc_rt.opt.dir,
	                                O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0, 0);
	if (pb.parent_fd < 0) {
		__atomic_add_fetch(&landlock_dir_failed, 1, __ATOMIC_RELAXED);
		return;
	}
	r = raw_syscall(SYS_landlock_add_rule, fd, LANDLOCK_RULE_PATH_BENEATH_, (long)&pb, 0, 0, 0);
	raw_syscall(SYS_close, pb.parent_fd, 0, 0, 0, 0, 0);
	__atomic_add_fetch(r == 0 ? &landlock_dir_allowed : &landlock_dir_failed, 1, __ATOMIC_RELAXED);
}

HC_EXPORT long syscall(long n, ...)
{
	long a[6], r;
	va_list ap;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_landlock_restrict_self && hc_rt.ready) {
		int saved = errno;

		allow_dir((int)a[0]);
		errno = saved;
	}
	r = raw_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	/* attr (a[0]) is the program's; its first field is handled_access_fs */
	if (n == SYS_landlock_create_ruleset && a[0] && (unsigned long)a[1] >= sizeof(uint64_t))
		note_ruleset((int)r, *(const uint64_t *)a[0]);
	return r;
}

void sandbox__log(void)
{
	uint32_t n = __atomic_load_n(&landlock_rulesets, __ATOMIC_RELAXED);

	uint32_t lost = __atomic_load_n(&landlock_untracked, __ATOMIC_RELAXED);

	if (n || lost)
		process__log("Landlock: the program created %u ruleset%s; the measurement directory was added to %u "
		             "before its landlock_restrict_self, %u refused, %u not tracked (more than %d at once: "
		             "their sandboxes may refuse the profiles) (sandbox.c)",
		             n + lost, n + lost == 1 ? "" : "s", __atomic_load_n(&landlock_dir_allowed, __ATOMIC_RELAXED),
		             __atomic_load_n(&landlock_dir_failed, __ATOMIC_RELAXED), lost, RULESETS);
}
