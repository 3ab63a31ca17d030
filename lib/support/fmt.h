/* SPDX-License-Identifier: BSD-3-Clause */
/* fmt.h — an async-signal-safe subset of snprintf for the runtime's log and
   debug traces. Pure computation on the caller's buffer: no malloc, no locale,
   no stdio, no errno, so it may be called from signal handlers.

   Supported: conversions %d %i %u %x %X %o %c %s %p %%; length modifiers hh h
   l ll z j t; flags '-' '0' '+' ' ' '#'; a field width and a precision (digits
   or '*'). Not supported: floating point and %n. An unknown conversion is
   copied to the output as written. The result matches glibc's snprintf for
   everything supported (tests/unit/support/test_fmt.c checks a table). */
#ifndef HC_SUPPORT_FMT_H
#define HC_SUPPORT_FMT_H

#include <stdarg.h>
#include <stddef.h>
#include "hc/common.h"

/* Format into buf[0..cap), always NUL-terminated when cap > 0. Returns the
   length the full output has (like snprintf): a result >= cap means the
   output was truncated. */
int hc_fmt(char *buf, size_t cap, const char *fmt, ...) HC_PRINTF(3, 4);
int hc_vfmt(char *buf, size_t cap, const char *fmt, va_list ap) HC_PRINTF(3, 0);

#endif
