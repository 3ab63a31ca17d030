/* SPDX-License-Identifier: BSD-3-Clause */
/* log.c — the per-process log file and the HC_DEBUG category traces (see
   log.h). The idea: format on the stack with hc_fmt, then one write(2) per
   message, so every printing path is async-signal-safe and lines from
   concurrent threads stay whole. Only hc_log_open/close and hc_debug_init
   (open, close, getenv) must run outside signal context. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "support/fmt.h"
#include "support/io.h"
#include "support/log.h"

unsigned hc_debug_mask;
static int log_fd = -1;

static const char *const cat_names[] = {
	"init", "thread", "sample", "unwind", "detect",
	"watch", "alloc", "output", "merge", "time",
};
#define NCAT (sizeof(cat_names) / sizeof(cat_names[0]))

/* Format into line[cap] (cap >= 5); a cut message ends in "...\n".
   Returns the length, always < cap. */
static size_t format_line(char *line, size_t cap, const char *fmt, va_list ap)
{
	int n = hc_vfmt(line, cap, fmt, ap);

	if (n < 0)
		return 0;
	if ((size_t)n >= cap) {
		memcpy(line + cap - 5, "...\n", 5);
		return cap - 1;
	}
	return (size_t)n;
}

int hc_log_open(const char *path)
{
	int saved = errno, fd, ret = 0;

	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
	} else {
		int old = __atomic_exchange_n(&log_fd, fd, __ATOMIC_ACQ_REL);
		if (old >= 0)
			close(old);
	}
	errno = saved;
	return ret;
}

int hc_log_fd(void)
{
	return __atomic_load_n(&log_fd, __ATOMIC_ACQUIRE);
}

void hc_log_close(void)
{
	int saved = errno;
	int old = __atomic_exchange_n(&log_fd, -1, __ATOMIC_ACQ_REL);

	if (old >= 0)
		close(old);
	errno = saved;
}

int hc_log_vprintf(const char *fmt, va_list ap)
{
	char line[HC_LOG_LINE];
	int saved = errno, fd = hc_log_fd(), ret;
	size_t n;

	if (fd < 0)
		return -EBADF;
	n = format_line(line, sizeof(line), fmt, ap);
	ret = hc_write_full(fd, line, n, -1);
	if (!ret)
		ret = (int)n;
	errno = saved;
	return ret;
}

int hc_log_printf(const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = hc_log_vprintf(fmt, ap);
	va_end(ap);
	return ret;
}

const char *hc_debug_name(unsigned cat)
{
	size_t i;

	for (i = 0; i < NCAT; i++)
		if (cat == 1u << i)
			return cat_names[i];
	return "?";
}

unsigned hc_debug_parse(const char *spec)
{
	unsigned mask = 0;
	const char *p = spec;
	char msg[256];

	if (!spec)
		return 0;
	while (*p) {
		size_t len = strcspn(p, ", :"), i;
		bool known = false;

		if (len == 3 && strncmp(p, "all", 3) == 0) {
			mask |= HC_DBG_ALL;
			known = true;
		}
		for (i = 0; i < NCAT && !known; i++) {
			if (strlen(cat_names[i]) == len && strncmp(p, cat_names[i], len) == 0) {
				mask |= 1u << i;
				known = true;
			}
		}
		if (!known && len > 0) {
			int n = hc_fmt(msg, sizeof(msg), "hpcrun-comm: HC_DEBUG: unknown category "
			               "'%.*s' ignored (known: all", (int)len, p);
			for (i = 0; i < NCAT && n >= 0 && (size_t)n < sizeof(msg); i++)
				n += hc_fmt(msg + n, sizeof(msg) - (size_t)n, ",%s", cat_names[i]);
			if (n >= 0 && (size_t)n < sizeof(msg))
				n += hc_fmt(msg + n, sizeof(msg) - (size_t)n, ")\n");
			if (n > 0)
				hc_write_full(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1, -1);
		}
		p += len;
		if (*p)
			p++;
	}
	return mask;
}

void hc_debug_init(void)
{
	__atomic_store_n(&hc_debug_mask, hc_debug_parse(getenv("HC_DEBUG")), __ATOMIC_RELAXED);
}

void hc_debug_printf(unsigned cat, const char *fmt, ...)
{
	char line[HC_LOG_LINE];
	int saved = errno, n;
	size_t len;
	va_list ap;

	n = hc_fmt(line, sizeof(line), "hc[%d/%ld] %s: ", (int)getpid(),
	           (long)syscall(SYS_gettid), hc_debug_name(cat));
	if (n < 0 || (size_t)n >= sizeof(line) / 2)
		n = 0;
	va_start(ap, fmt);
	len = (size_t)n + format_line(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	if (len == 0 || line[len - 1] != '\n') {
		if (len == sizeof(line) - 1)
			len--;
		line[len++] = '\n';
	}
	hc_write_full(2, line, len, -1);
	errno = saved;
}

void hc_assert_fail(const char *file, int line, const char *cond)
{
	char msg[512];
	int n = hc_fmt(msg, sizeof(msg), "hpcrun-comm: assertion failed: %s:%d: %s\n", file, line, cond);

	if (n > 0)
		hc_write_full(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1, -1);
	abort();
}
