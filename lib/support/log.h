/* SPDX-License-Identifier: BSD-3-Clause */
/* log.h — the two diagnostic channels of the runtime.

   1. The per-process log file: hc_log_open(path) once outside signal context
      (at start, and again in a forked child), then hc_log_printf from anywhere,
      signal handlers included: it formats with hc_fmt into a stack buffer of
      HC_LOG_LINE bytes (longer messages are cut and end in "...\n") and emits
      it with a single write(2) on an O_APPEND fd, so concurrent lines from
      several threads never interleave within a line.
   2. Debug traces gated per category by the environment variable HC_DEBUG
      (e.g. HC_DEBUG=unwind,detect, or HC_DEBUG=all): hc_debug_init() parses it
      once at start, outside signal context; hc_debug_enabled(cat) is then a bit
      test and HC_DEBUG_LOG(cat, fmt, ...) writes "hc[pid/tid] cat: message\n"
      to stderr with write(2), async-signal-safe, nothing evaluated when the
      category is off.

   Both are process-wide by nature (one log per process, one environment);
   everything else in lib/ is per-object. All functions preserve errno. */
#ifndef HC_SUPPORT_LOG_H
#define HC_SUPPORT_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include "hc/common.h"

#define HC_LOG_LINE 1024   /* bytes of stack per message */

/* Open (create, append) the log file; closes a previously open one.
   0 or -errno. Not async-signal-safe. */
int hc_log_open(const char *path);
/* Format and append one message; the caller supplies the newline.
   Returns the bytes written, or -EBADF when no log is open, or -errno. */
int hc_log_printf(const char *fmt, ...) HC_PRINTF(1, 2);
int hc_log_vprintf(const char *fmt, va_list ap) HC_PRINTF(1, 0);
/* The log's fd (-1 when none), e.g. to keep it open across the app's closes. */
int hc_log_fd(void);
void hc_log_close(void);

/* Debug categories (bits of the HC_DEBUG mask); each has call sites. */
enum hc_debug_cat {
	HC_DBG_INIT    = 1u << 0,  /* "init": runtime start, options, sampler, load map (process.c, loadmap.c) */
	HC_DBG_THREAD  = 1u << 1,  /* "thread": thread start and end (thread.c) */
	HC_DBG_SAMPLE  = 1u << 2,  /* "sample": a thread's sampler opened or refused (sampler.c) */
	HC_DBG_UNWIND  = 1u << 3,  /* "unwind": full unwinds, failures, faults contained (cct.c) */
	HC_DBG_DETECT  = 1u << 4,  /* "detect": each sample's detection: published, found, armed (record.c) */
	HC_DBG_WATCH   = 1u << 5,  /* "watch": watchpoints armed, traps (watch.c) */
	HC_DBG_ALLOC   = 1u << 6,  /* "alloc": allocation tracking, contexts unwound (alloc/) */
	HC_DBG_OUTPUT  = 1u << 7,  /* "output": profiles written (output.c) */
	HC_DBG_MERGE   = 1u << 8,  /* "merge": the analyzer's profiles read and merged (merge.c) */
	HC_DBG_TIME    = 1u << 9,  /* "time": the analyzer's phase durations (analysis.c) */
	HC_DBG_ALL     = (1u << 10) - 1,
};

extern unsigned hc_debug_mask;

/* Parse a category list ("unwind,detect", separators ',', ':', ' ';
   "all" for everything). Unknown names are reported on stderr and ignored.
   Returns the mask; does not install it. */
unsigned hc_debug_parse(const char *spec);
/* Install hc_debug_parse(getenv("HC_DEBUG")). Call once, outside signal context. */
void hc_debug_init(void);
/* The category's name ("unwind"), "?" for anything but a single known bit. */
const char *hc_debug_name(unsigned cat);

static inline bool hc_debug_enabled(unsigned cat)
{
	return (__atomic_load_n(&hc_debug_mask, __ATOMIC_RELAXED) & cat) != 0;
}

/* Write one trace line to stderr (adds the newline if missing). */
void hc_debug_printf(unsigned cat, const char *fmt, ...) HC_PRINTF(2, 3);

#define HC_DEBUG_LOG(cat, ...) do { \
	if (hc_debug_enabled(cat)) \
		hc_debug_printf((cat), __VA_ARGS__); \
} while (0)

/* The assertion tier: checked in a build configured with --enable-debug
   (config.h's HC_DEBUG_ASSERT), compiled out (the condition not evaluated)
   otherwise. A failed assertion writes "hpcrun-comm: assertion failed:
   FILE:LINE: COND" to stderr with write(2) and aborts: async-signal-safe,
   usable in handlers. For invariants of our own data structures, never for
   input or for anything the system may refuse. */
#include "config.h"
void hc_assert_fail(const char *file, int line, const char *cond) __attribute__((noreturn));
#ifdef HC_DEBUG_ASSERT
#define HC_ASSERT(cond) ((cond) ? (void)0 : hc_assert_fail(__FILE__, __LINE__, #cond))
#else
#define HC_ASSERT(cond) ((void)0)
#endif

#endif
