/* SPDX-License-Identifier: BSD-3-Clause */
/* test_fmt.c — hc_fmt against glibc's snprintf over a table of formats, at
   many buffer sizes (truncation, NUL placement, return value, and that
   nothing is written past the buffer), plus the behaviour snprintf does not
   define (unknown conversions). */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "support/fmt.h"
#include "hc_test.h"

static const size_t caps[] = { 0, 1, 2, 3, 5, 8, 13, 16, 31, 64, 512 };

static void HC_PRINTF(2, 3) check_case(int line, const char *fmt, ...)
{
	char got[600], want[600];
	size_t i, k;
	va_list ap, a1, a2;

	va_start(ap, fmt);
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		size_t cap = caps[i];
		int rg, rw;

		memset(got, 0x5a, sizeof(got));
		memset(want, 0x5a, sizeof(want));
		va_copy(a1, ap);
		va_copy(a2, ap);
		rg = hc_vfmt(got, cap, fmt, a1);
		rw = vsnprintf(want, cap, fmt, a2);
		va_end(a1);
		va_end(a2);
		hc_test_checks++;
		if (rg != rw || memcmp(got, want, cap) != 0) {
			hc_test_failures++;
			fprintf(stderr, "line %d: format \"%s\" cap %zu: got %d \"%.*s\", want %d \"%.*s\"\n",
			        line, fmt, cap, rg, (int)(cap ? strnlen(got, cap) : 0), got,
			        rw, (int)(cap ? strnlen(want, cap) : 0), want);
		}
		for (k = cap; k < cap + 16; k++) {
			if ((unsigned char)got[k] != 0x5a) {
				hc_test_failures++;
				fprintf(stderr, "line %d: \"%s\" cap %zu: wrote byte %zu\n", line, fmt, cap, k);
				break;
			}
		}
	}
	va_end(ap);
}

#define T(...) check_case(__LINE__, __VA_ARGS__)

static void table(void)
{
	int x;

	T("plain text, no conversions");
	T("%%");
	T("100%% sure %%d");
	T("%d", 0);
	T("%d", 42);
	T("%d", -42);
	T("%d", INT_MAX);
	T("%d", INT_MIN);
	T("%i", -7);
	T("%u", 0u);
	T("%u", UINT_MAX);
	T("%ld", LONG_MIN);
	T("%ld", LONG_MAX);
	T("%lu", ULONG_MAX);
	T("%lld", LLONG_MIN);
	T("%lld", LLONG_MAX);
	T("%llu", ULLONG_MAX);
	T("%zu", (size_t)0);
	T("%zu", SIZE_MAX);
	T("%zd", (ptrdiff_t)-1);
	T("%zx", (size_t)0xdeadbeef);
	T("%jd", (intmax_t)-123456789012345ll);
	T("%ju", (uintmax_t)987654321098765ull);
	T("%td", (ptrdiff_t)-99);
	T("%hd", (short)-300);
	T("%hu", (unsigned short)65535);
	T("%hhd", (signed char)-128);
	T("%hhu", (unsigned char)255);
	T("%x", 0u);
	T("%x", 0xabcdefu);
	T("%X", 0xabcdefu);
	T("%lx", 0x7fffdeadbeefUL);
	T("%llx", 0xffffffffffffffffULL);
	T("%lX", 0x1234abcdUL);
	T("%o", 8u);
	T("%o", 0u);
	T("%#o", 8u);
	T("%#o", 0u);
	T("%#.0o", 0u);
	T("%#x", 0u);
	T("%#x", 255u);
	T("%#X", 255u);
	T("%#10x", 255u);
	T("%#010x", 255u);
	T("%#-10x|", 255u);
	T("%5d|", 42);
	T("%-5d|", 42);
	T("%05d", 42);
	T("%05d", -42);
	T("%+d", 5);
	T("%+d", -5);
	T("% d", 5);
	T("% d", -5);
	T("%+5d|", 5);
	T("%+05d", 5);
	T("% 05d", 5);
	T("%.3d", 7);
	T("%.3d", -7);
	T("%8.3d|", -7);
	T("%-8.3d|", 7);
	T("%.0d", 0);
	T("%5.0d|", 0);
	T("%.0x", 0u);
	T("%.10llu", 12345ULL);
	T("%1d", 12345);
	T("%016lx", 0x1234UL);
	T("%16lx|", 0x1234UL);
	T("%-16lx|", 0x1234UL);
	T("%*d|", 6, 42);
	T("%*d|", -6, 42);
	T("%-*d|", 6, 42);
	T("%.*d|", 4, 42);
	T("%.*d|", -1, 42);
	T("%*.*d|", 8, 4, -42);
	T("%c", 'A');
	T("%c%c%c", 'a', 'b', 'c');
	T("%3c|", 'z');
	T("%-3c|", 'z');
	T("%s", "hello");
	T("%s", "");
	T("%10s|", "right");
	T("%-10s|", "left");
	T("%3s|", "longer than width");
	T("%.3s|", "truncated");
	T("%.0s|", "gone");
	T("%.10s|", "short");
	T("%8.3s|", "abcdef");
	T("%-8.3s|", "abcdef");
	T("%.*s|", 2, "abcdef");
	T("%.*s|", -1, "abcdef");
	T("%*s|", -7, "ab");
	T("%p", (void *)0x7ffd1234abcdUL);
	T("%p", (void *)&x);
	T("%p", (void *)1);
	T("%p", (void *)NULL);
	T("%20p|", (void *)0xdeadbeefUL);
	T("%-20p|", (void *)0xdeadbeefUL);
	T("%10p|", (void *)NULL);
	T("%-10p|", (void *)NULL);
	T("[%s] pid %d tid %ld: %s at %p (%#lx) %5.1s %3c%%",
	  "unwind", 1234, 56789L, "message", (void *)0x400123UL, 0x400123UL, "xyz", 'q');
	T("%s=%llu %s=%lld %s=%zu", "samples", 123456789ULL, "delta", -5LL, "n", (size_t)17);
	T("%02x:%02x:%02x", 1u, 0xabu, 0u);
	T("%d%d%d%d%d%d%d%d%d%d", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
	T("a very long line that will be cut at every small capacity: %s %d %s",
	  "0123456789012345678901234567890123456789", 99, "end");
}

/* Valid C that gcc warns about (ignored flags, NULL %s, an empty format):
   glibc's output is still the reference. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-zero-length"
#pragma GCC diagnostic ignored "-Wformat-overflow"
static void odd_but_valid(void)
{
	const char *nul = NULL;

	T("");
	T("%-05d|", -42);
	T("%08.3d|", 7);
	T("%s", nul);
	T("%10s|", nul);
	T("%.3s|", nul);
	T("%.6s|", nul);
}
#pragma GCC diagnostic pop

/* Behaviour not defined by C: our own choices. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
static void undefined_cases(void)
{
	char buf[64];
	int n;

	n = hc_fmt(buf, sizeof(buf), "%k and %y", 1);
	CHECK_STR(buf, "%k and %y");
	CHECK_EQ_U64(n, 9);
	n = hc_fmt(buf, sizeof(buf), "trailing %");
	CHECK_STR(buf, "trailing %");
	CHECK_EQ_U64(n, 10);
	n = hc_fmt(buf, sizeof(buf), "%-5");
	CHECK_STR(buf, "%-5");
	CHECK_EQ_U64(n, 3);
	/* No errno side effect. */
	errno = 4321;
	hc_fmt(buf, sizeof(buf), "%d %s %p", 1, "x", (void *)buf);
	CHECK_EQ_U64(errno, 4321);
	/* A NULL buffer with cap 0 only measures. */
	CHECK_EQ_U64(hc_fmt(NULL, 0, "%s-%d", "abc", 12345), 9);
}
#pragma GCC diagnostic pop

int main(void)
{
	table();
	odd_but_valid();
	undefined_cases();
	return hc_test_done("test_fmt");
}
