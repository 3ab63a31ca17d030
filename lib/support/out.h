/* SPDX-License-Identifier: BSD-3-Clause */
/* out.h — buffered output files that remember their first error, and the
   escaping of text for XML/HTML and CSV, shared by the database writer
   (lib/db, lib/analysis) and the report writers (lib/report, viewer-export).
   Ordinary program code: no signal context. */
#ifndef HC_SUPPORT_OUT_H
#define HC_SUPPORT_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hc/common.h"

/* A buffered file that remembers its first error. */
struct hc_out {
	FILE *f;
	char *path;     /* as named in messages; NULL for stdout */
	char *tmp;      /* written here, renamed onto path at close; NULL = direct */
	int err;        /* first errno, 0 */
};

/* dir/name, written directly (a database is staged as a whole by lib/db). */
int hc_out_open(struct hc_out *o, const char *dir, const char *name, char *err, size_t errlen);
/* path written as PATH.tmp.PID and renamed onto PATH by hc_out_close(commit);
   "-" is standard output. */
int hc_out_open_file(struct hc_out *o, const char *path, char *err, size_t errlen);
/* Flush and close; commit = false discards a temporary file. 0 or -errno
   with "cannot write PATH: why" in err. */
int hc_out_close(struct hc_out *o, bool commit, char *err, size_t errlen);

void hc_out_puts(struct hc_out *o, const char *s);
void hc_out_printf(struct hc_out *o, const char *fmt, ...) HC_PRINTF(2, 3);
void hc_out_u64(struct hc_out *o, uint64_t v);
/* Text escaped for an XML/HTML attribute value or text, made valid UTF-8
   (invalid bytes and C0 controls other than tab/newline become '?'). */
void hc_out_xml(struct hc_out *o, const char *s);
/* A CSV field, quoted when needed (RFC 4180), made valid UTF-8. */
void hc_out_csv(struct hc_out *o, const char *s);

/* The same on a plain stream (errors show in ferror). */
void hc_put_xml(FILE *f, const char *s);
void hc_put_csv(FILE *f, const char *s);

/* Make s valid UTF-8 in place: invalid bytes become '?'. */
void hc_utf8_fix(char *s);
/* Decimal digits of v inside buf (returned pointer, NUL-terminated). */
char *hc_fmt_u64(char buf[24], uint64_t v);

#endif
