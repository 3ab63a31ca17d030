/* SPDX-License-Identifier: BSD-3-Clause */
/* landlock_self.c — a program that sandboxes itself with Landlock as xz 5.6
   does (src/xz/sandbox.c): through syscall(2), a ruleset handling every
   filesystem right of ABI 1 and no rule, so no file can be created
   anywhere after landlock_restrict_self. Then two threads hand a counter
   back and forth, and the program checks that it is sandboxed (creating a
   file in DIR fails with EACCES). Exit 77 when the kernel has no Landlock.
   Usage: landlock_self DIR */
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long turn;   /* the hand-off */

static void *other(void *arg)
{
	for (long i = 1; i < 400000; i += 2) {
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != i)
			;
		__atomic_store_n(&turn, i + 1, __ATOMIC_RELEASE);
	}
	return arg;
}

int main(int argc, char **argv)
{
	struct landlock_ruleset_attr attr = { .handled_access_fs = (1ull << 13) - 1 };   /* ABI 1 */
	char path[4096];
	pthread_t th;
	int fd;

	if (argc != 2)
		return 2;
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (fd < 0) {
		printf("landlock_self: no Landlock: %s\n", strerror(errno));
		return 77;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || syscall(SYS_landlock_restrict_self, fd, 0) != 0) {
		printf("landlock_self: cannot restrict: %s\n", strerror(errno));
		return 77;
	}
	close(fd);
	pthread_create(&th, NULL, other, NULL);
	for (long i = 0; i < 400000; i += 2) {
		while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != i)
			;
		__atomic_store_n(&turn, i + 1, __ATOMIC_RELEASE);
	}
	pthread_join(th, NULL);
	snprintf(path, sizeof path, "%s/landlock_self.probe", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	printf("landlock_self: turn %ld, creating a file: %s\n", turn, fd < 0 ? strerror(errno) : "allowed");
	return fd < 0 && errno == EACCES ? 0 : 1;
}
