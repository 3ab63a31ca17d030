/* SPDX-License-Identifier: BSD-3-Clause */
/* io.c — hc_write_full (io.h). Signal context: yes. */
#include <errno.h>
#include <unistd.h>

#include "support/io.h"

int hc_write_full(int fd, const void *buf, size_t n, int64_t off)
{
	const char *p = buf;

	while (n > 0) {
		ssize_t r = off >= 0 ? pwrite(fd, p, n, (off_t)off) : write(fd, p, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;
		p += r;
		n -= (size_t)r;
		if (off >= 0)
			off += r;
	}
	return 0;
}
