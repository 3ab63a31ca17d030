/* SPDX-License-Identifier: BSD-3-Clause */
/* out.c — the one buffered output file of the analyzer and the exporters:
   a stream that remembers its first error and reports it with the path at
   close, optionally written as PATH.tmp.PID and renamed onto PATH only when
   complete (a reader never sees half a file), plus the text escaping every
   output format needs: XML/HTML attribute text (made valid UTF-8; invalid
   bytes become '?') and RFC 4180 CSV fields. Ordinary program code: no
   signal context (stdio, malloc). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/out.h"

#define OUT_BUF (1u << 20)

static int open_at(struct hc_out *o, char *path, char *tmp, char *err, size_t errlen)
{
	o->path = path;
	o->tmp = tmp;
	o->f = fopen(tmp ? tmp : path, "we");
	if (!o->f) {
		int e = errno;
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(e));
		free(path);
		free(tmp);
		o->path = o->tmp = NULL;
		return -e;
	}
	setvbuf(o->f, NULL, _IOFBF, OUT_BUF);
	return 0;
}

int hc_out_open(struct hc_out *o, const char *dir, const char *name, char *err, size_t errlen)
{
	char *path;

	memset(o, 0, sizeof(*o));
	if (asprintf(&path, "%s/%s", dir, name) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return open_at(o, path, NULL, err, errlen);
}

int hc_out_open_file(struct hc_out *o, const char *path, char *err, size_t errlen)
{
	char *p, *tmp;

	memset(o, 0, sizeof(*o));
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	p = strdup(path);
	if (!p || asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0) {
		free(p);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return open_at(o, p, tmp, err, errlen);
}

static void note(struct hc_out *o, int r)
{
	if (r < 0 && !o->err)
		o->err = errno ? errno : EIO;
}

int hc_out_close(struct hc_out *o, bool commit, char *err, size_t errlen)
{
	int e = o->err;

	if (!o->f)
		return 0;
	if (o->f == stdout) {
		o->f = NULL;
		if ((fflush(stdout) != 0 || ferror(stdout)) && !e)
			e = errno ? errno : EIO;
		if (e)
			snprintf(err, errlen, "writing standard output: %s", strerror(e));
		return e ? -e : 0;
	}
	/* flush first: a failed flush says why (ENOSPC, EDQUOT, EIO) */
	if (fflush(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	if (ferror(o->f) && !e)
		e = EIO;
	if (fclose(o->f) != 0 && !e)
		e = errno ? errno : EIO;
	o->f = NULL;
	if (e && commit)
		snprintf(err, errlen, "cannot write %s: %s%s", o->path, strerror(e),
		         o->tmp ? " (nothing written)" : "");
	if (!e && commit && o->tmp && rename(o->tmp, o->path) != 0) {
		e = errno;
		snprintf(err, errlen, "cannot write %s: %s", o->path, strerror(e));
	}
	if (o->tmp && (e || !commit))
		unlink(o->tmp);
	free(o->path);
	free(o->tmp);
	o->path = o->tmp = NULL;
	return e ? -e : 0;
}

void hc_out_puts(struct hc_out *o, const char *s)
{
	if (fputs_unlocked(s, o->f) == EOF)
		note(o, -1);
}

void hc_out_printf(struct hc_out *o, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfprintf(o->f, fmt, ap);
	va_end(ap);
	note(o, r);
}

char *hc_fmt_u64(char buf[24], uint64_t v)
{
	char *p = buf + 23;

	*p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

void hc_out_u64(struct hc_out *o, uint64_t v)
{
	char buf[24];

	hc_out_puts(o, hc_fmt_u64(buf, v));
}

/* Length of the valid UTF-8 sequence (allowed in XML 1.0) at s, 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80)
			return 0;
		/* U+FFFE and U+FFFF are not XML characters. */
		if (c == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
			return 0;
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		if (s[1] < lo || s[1] > hi || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

void hc_utf8_fix(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = utf8_len(p);
		if (n == 0) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

void hc_put_xml(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	char buf[256];
	size_t b = 0;

	while (*p) {
		const char *rep = NULL;
		size_t n = utf8_len(p);

		if (b + 8 >= sizeof(buf)) {
			fwrite_unlocked(buf, 1, b, f);
			b = 0;
		}
		if (n == 0) {
			buf[b++] = '?';
			p++;
			continue;
		}
		if (n > 1) {
			memcpy(buf + b, p, n);
			b += n;
			p += n;
			continue;
		}
		switch (*p) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		case '\t': rep = "&#9;"; break;
		case '\n': rep = "&#10;"; break;
		case '\r': rep = "&#13;"; break;
		default:
			break;
		}
		if (rep) {
			size_t m = strlen(rep);
			memcpy(buf + b, rep, m);
			b += m;
		} else {
			/* Other C0 controls are not XML characters. */
			buf[b++] = *p < 0x20 ? '?' : (char)*p;
		}
		p++;
	}
	fwrite_unlocked(buf, 1, b, f);
}

void hc_put_csv(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	bool quote = strpbrk((const char *)p, ",\"\r\n") != NULL;

	if (quote)
		fputc_unlocked('"', f);
	while (*p) {
		size_t n = utf8_len(p);

		if (n == 0) {
			fputc_unlocked('?', f);
			p++;
			continue;
		}
		if (*p == '"')
			fputc_unlocked('"', f);
		fwrite_unlocked(p, 1, n, f);
		p += n;
	}
	if (quote)
		fputc_unlocked('"', f);
}

void hc_out_xml(struct hc_out *o, const char *s)
{
	hc_put_xml(o->f, s);
	if (ferror(o->f))
		note(o, -1);
}

void hc_out_csv(struct hc_out *o, const char *s)
{
	hc_put_csv(o->f, s);
	if (ferror(o->f))
		note(o, -1);
}
