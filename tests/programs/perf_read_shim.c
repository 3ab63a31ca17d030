/* SPDX-License-Identifier: BSD-3-Clause */
/* perf_read_shim.c — TEST-ONLY, preloaded after the runtime
   (tests/integration/pmu_running.sh): an injectable read() for perf_event
   fds. Every read of a perf event (an fd whose link is
   "anon_inode:[perf_event]") that returns the runtime's read_format
   (value, time_enabled, time_running[, lost]: 24 or 32 bytes) reports
   time_running = time_enabled * HC_TEST_RUNNING_PCT / 100 (default 50):
   what an event that waited for a counter half the time looks like
   (counter constraints, other perf users, the one IBS unit per CPU,
   E-cores); and value = value * HC_TEST_COUNT_PCT / 100 (default 100): a
   thread whose events occur at that share of the stand-in's rate (the
   bulletin board's expiry follows it). The lost count is left alone. Nothing but raw
   system calls and the stack in read(): the runtime may read from its
   signal handler. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static ssize_t (*real_read)(int, void *, size_t);
static int pct = -1, count_pct = 100;

static int env_pct(const char *name, int dflt)
{
	const char *e = getenv(name);
	int v = 0;

	if (!e || !*e)
		return dflt;
	for (; *e >= '0' && *e <= '9'; e++)
		v = v * 10 + (*e - '0');
	return v > 100 ? 100 : v;
}

__attribute__((constructor)) static void init(void)
{
	real_read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	pct = env_pct("HC_TEST_RUNNING_PCT", 50);
	count_pct = env_pct("HC_TEST_COUNT_PCT", 100);
}

static int is_perf_fd(int fd)
{
	static const char want[] = "anon_inode:[perf_event]";
	char path[40] = "/proc/self/fd/", link[64], num[12];
	int n = 0, len = 14;
	long r;

	if (fd < 0)
		return 0;
	do {
		num[n++] = (char)('0' + fd % 10);
		fd /= 10;
	} while (fd && n < (int)sizeof num);
	while (n > 0)
		path[len++] = num[--n];
	path[len] = '\0';
	r = syscall(SYS_readlink, path, link, sizeof link - 1);
	return r == (long)(sizeof want - 1) && memcmp(link, want, sizeof want - 1) == 0;
}

ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t r;

	r = real_read ? real_read(fd, buf, n) : syscall(SYS_read, fd, buf, n);
	if (pct >= 0 && (r == 24 || r == 32) && is_perf_fd(fd)) {
		uint64_t v[4];
		memcpy(v, buf, (size_t)r);
		/* rounded up: running * 100 / enabled is then exactly pct */
		v[2] = (uint64_t)(((unsigned __int128)v[1] * (unsigned)pct + 99) / 100);
		v[0] = (uint64_t)((unsigned __int128)v[0] * (unsigned)count_pct / 100);
		memcpy(buf, v, (size_t)r);
	}
	return r;
}
