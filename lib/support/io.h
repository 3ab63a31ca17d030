/* SPDX-License-Identifier: BSD-3-Clause */
/* io.h — all of a buffer to a file descriptor: the profile writer's pwrite
   loop and the log's write loop. Async-signal-safe (write/pwrite only). */
#ifndef HC_SUPPORT_IO_H
#define HC_SUPPORT_IO_H

#include <stddef.h>
#include <stdint.h>

/* Writes [buf, buf+n) to fd — at file offset off with pwrite(2) when
   off >= 0, at the current position with write(2) when off < 0 —
   retrying on EINTR and short writes. 0, or -errno (-EIO when the kernel
   wrote nothing); errno may change. */
int hc_write_full(int fd, const void *buf, size_t n, int64_t off);

#endif
