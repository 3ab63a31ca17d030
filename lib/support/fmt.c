/* SPDX-License-Identifier: BSD-3-Clause */
/* fmt.c — the async-signal-safe formatter (see fmt.h). One pass over the
   format; every conversion becomes (prefix, zero padding, body) plus space
   padding on one side, so width, precision and flags are handled in one place
   (emit_field). Output beyond the buffer is counted, not written. Safe in
   signal context: no library calls at all. */
#include <stdbool.h>
#include <stdint.h>

#include "support/fmt.h"

struct out {
	char *buf;
	size_t cap, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->cap)
		o->buf[o->len] = c;
	o->len++;
}

static void put_n(struct out *o, char c, long n)
{
	while (n-- > 0)
		put(o, c);
}

static void put_s(struct out *o, const char *s, size_t n)
{
	while (n--)
		put(o, *s++);
}

struct spec {
	bool left, zero, plus, space, alt;
	long width;       /* 0 when absent */
	long prec;        /* -1 when absent */
};

/* prefix ("-", "0x"...), then `zeros` zeros, then the body, padded to width. */
static void emit_field(struct out *o, const struct spec *sp, const char *prefix, size_t plen,
                       long zeros, const char *body, size_t blen)
{
	long total = (long)plen + zeros + (long)blen;
	long pad = sp->width > total ? sp->width - total : 0;

	if (!sp->left && !sp->zero)
		put_n(o, ' ', pad);
	put_s(o, prefix, plen);
	if (!sp->left && sp->zero)
		put_n(o, '0', pad);
	put_n(o, '0', zeros);
	put_s(o, body, blen);
	if (sp->left)
		put_n(o, ' ', pad);
}

static void emit_int(struct out *o, struct spec *sp, unsigned long long v, bool neg,
                     unsigned base, bool upper, bool is_signed)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24], prefix[2];
	size_t n = 0, plen = 0;
	long zeros = 0;

	while (v) {
		tmp[sizeof(tmp) - 1 - n++] = digits[v % base];
		v /= base;
	}
	/* Zero has one digit, except with precision 0 (C prints nothing). */
	if (n == 0 && sp->prec != 0)
		tmp[sizeof(tmp) - 1 - n++] = '0';
	if (is_signed) {
		if (neg)
			prefix[plen++] = '-';
		else if (sp->plus)
			prefix[plen++] = '+';
		else if (sp->space)
			prefix[plen++] = ' ';
	}
	if (sp->alt && base == 16 && n > 0 && !(n == 1 && tmp[sizeof(tmp) - 1] == '0')) {
		prefix[plen++] = '0';
		prefix[plen++] = upper ? 'X' : 'x';
	}
	if (sp->prec >= 0) {
		sp->zero = false;          /* a precision overrides the '0' flag */
		if ((long)n < sp->prec)
			zeros = sp->prec - (long)n;
	}
	if (sp->alt && base == 8 && zeros == 0 && (n == 0 || tmp[sizeof(tmp) - n] != '0'))
		zeros = 1;                 /* %#o: the first digit is a 0 */
	emit_field(o, sp, prefix, plen, zeros, tmp + sizeof(tmp) - n, n);
}

static size_t bounded_len(const char *s, long max)
{
	size_t n = 0;

	while ((max < 0 || (long)n < max) && s[n])
		n++;
	return n;
}

int hc_vfmt(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct out o = { .buf = buf, .cap = cap, .len = 0 };
	const char *f = fmt;

	while (*f) {
		struct spec sp = { .prec = -1 };
		const char *start = f;
		int lng = 0;   /* -2 hh, -1 h, 0, 1 l, 2 ll, 3 z, 4 j, 5 t */
		unsigned long long u;
		long long s;

		if (*f != '%') {
			put(&o, *f++);
			continue;
		}
		f++;
		for (;; f++) {
			if (*f == '-') sp.left = true;
			else if (*f == '0') sp.zero = true;
			else if (*f == '+') sp.plus = true;
			else if (*f == ' ') sp.space = true;
			else if (*f == '#') sp.alt = true;
			else break;
		}
		if (*f == '*') {
			int w = va_arg(ap, int);
			if (w < 0) {
				sp.left = true;
				sp.width = -(long)w;
			} else {
				sp.width = w;
			}
			f++;
		} else {
			while (*f >= '0' && *f <= '9' && sp.width < 100000)
				sp.width = sp.width * 10 + (*f++ - '0');
		}
		if (*f == '.') {
			f++;
			sp.prec = 0;
			if (*f == '*') {
				int p = va_arg(ap, int);
				sp.prec = p < 0 ? -1 : p;
				f++;
			} else {
				while (*f >= '0' && *f <= '9' && sp.prec < 100000)
					sp.prec = sp.prec * 10 + (*f++ - '0');
			}
		}
		if (sp.left)
			sp.zero = false;
		if (*f == 'h') {
			lng = -1;
			if (*++f == 'h') {
				lng = -2;
				f++;
			}
		} else if (*f == 'l') {
			lng = 1;
			if (*++f == 'l') {
				lng = 2;
				f++;
			}
		} else if (*f == 'z') {
			lng = 3;
			f++;
		} else if (*f == 'j') {
			lng = 4;
			f++;
		} else if (*f == 't') {
			lng = 5;
			f++;
		}

		switch (*f) {
		case 'd':
		case 'i':
			switch (lng) {
			case -2: s = (signed char)va_arg(ap, int); break;
			case -1: s = (short)va_arg(ap, int); break;
			case 1:  s = va_arg(ap, long); break;
			case 2:  s = va_arg(ap, long long); break;
			case 3:  s = va_arg(ap, ptrdiff_t); break;   /* signed size_t */
			case 4:  s = va_arg(ap, intmax_t); break;
			case 5:  s = va_arg(ap, ptrdiff_t); break;
			default: s = va_arg(ap, int); break;
			}
			/* Negate in unsigned arithmetic: LLONG_MIN has no positive. */
			u = s < 0 ? 0ull - (unsigned long long)s : (unsigned long long)s;
			emit_int(&o, &sp, u, s < 0, 10, false, true);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			switch (lng) {
			case -2: u = (unsigned char)va_arg(ap, unsigned); break;
			case -1: u = (unsigned short)va_arg(ap, unsigned); break;
			case 1:  u = va_arg(ap, unsigned long); break;
			case 2:  u = va_arg(ap, unsigned long long); break;
			case 3:  u = va_arg(ap, size_t); break;
			case 4:  u = va_arg(ap, uintmax_t); break;
			case 5:  u = (unsigned long long)va_arg(ap, ptrdiff_t); break;
			default: u = va_arg(ap, unsigned); break;
			}
			emit_int(&o, &sp, u, false, *f == 'u' ? 10 : *f == 'o' ? 8 : 16, *f == 'X', false);
			break;
		case 'p': {
			void *p = va_arg(ap, void *);
			if (!p) {
				sp.zero = false;
				emit_field(&o, &sp, "", 0, 0, "(nil)", 5);
			} else {
				sp.alt = true;
				emit_int(&o, &sp, (uintptr_t)p, false, 16, false, false);
			}
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			sp.zero = false;
			emit_field(&o, &sp, "", 0, 0, &c, 1);
			break;
		}
		case 's': {
			const char *str = va_arg(ap, const char *);
			sp.zero = false;
			if (!str)
				str = sp.prec < 0 || sp.prec >= 6 ? "(null)" : "";
			emit_field(&o, &sp, "", 0, 0, str, bounded_len(str, sp.prec));
			break;
		}
		case '%':
			put(&o, '%');
			break;
		default:
			/* Unknown or missing conversion: copy it as written. */
			put_s(&o, start, (size_t)(f - start) + (*f ? 1 : 0));
			if (!*f)
				continue;
			break;
		}
		f++;
	}
	if (cap > 0)
		buf[o.len < cap ? o.len : cap - 1] = '\0';
	return o.len > INT32_MAX ? INT32_MAX : (int)o.len;
}

int hc_fmt(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = hc_vfmt(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}
