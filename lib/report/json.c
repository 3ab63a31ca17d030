/* SPDX-License-Identifier: BSD-3-Clause */
/* json.c — a streaming JSON writer: containers, keys and scalars written
   straight to a FILE, commas and indentation handled here so that callers
   read like the document they produce. Strings are emitted as valid UTF-8
   whatever the input (an invalid byte becomes U+FFFD, the format promises
   UTF-8 but a damaged database may not keep the promise). In HTML mode every
   '<' is written as \u003c, so the document can sit inside a
   <script type="application/json"> element: no "</script>" or "<!--" can
   appear in it. Only the two outer levels are indented; deeper values are
   compact (a 10^5-node tree stays a few megabytes). No signal context. */
#include <inttypes.h>
#include <string.h>

#include "report/json.h"

void hc_json_init(struct hc_json *j, FILE *f, bool html)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->html = html;
}

static void indent(struct hc_json *j)
{
	fputc('\n', j->f);
	for (int d = 0; d < j->depth; d++)
		fputs("  ", j->f);
}

/* Separator and layout before a value or a key. */
static void before(struct hc_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0 && j->count[j->depth - 1]++)
		fputc(',', j->f);
	if (j->depth > 0 && j->depth <= HC_JSON_PRETTY)
		indent(j);
}

static void open_c(struct hc_json *j, char c)
{
	before(j);
	fputc(c, j->f);
	if (j->depth < HC_JSON_MAXDEPTH)
		j->count[j->depth] = 0;
	j->depth++;
}

static void close_c(struct hc_json *j, char c)
{
	bool had = j->count[j->depth - 1] != 0;

	j->depth--;
	if (had && j->depth < HC_JSON_PRETTY)
		indent(j);
	fputc(c, j->f);
	if (j->depth == 0)
		fputc('\n', j->f);
}

void hc_json_obj(struct hc_json *j) { open_c(j, '{'); }
void hc_json_obj_end(struct hc_json *j) { close_c(j, '}'); }
void hc_json_arr(struct hc_json *j) { open_c(j, '['); }
void hc_json_arr_end(struct hc_json *j) { close_c(j, ']'); }

/* Length of the valid UTF-8 sequence at s (1..4), 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned min;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, min = 0x80, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, min = 0x800, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, min = 0x10000, cp = c & 0x07;
	else
		return 0;
	for (size_t k = 1; k < n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void put_string(struct hc_json *j, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	fputc('"', j->f);
	while (*s) {
		size_t n = utf8_len(s);
		unsigned c = *s;

		if (n == 0) {
			fputs("\\ufffd", j->f);
			s++;
			continue;
		}
		if (n > 1) {
			fwrite(s, 1, n, j->f);
			s += n;
			continue;
		}
		switch (c) {
		case '"': fputs("\\\"", j->f); break;
		case '\\': fputs("\\\\", j->f); break;
		case '\n': fputs("\\n", j->f); break;
		case '\r': fputs("\\r", j->f); break;
		case '\t': fputs("\\t", j->f); break;
		default:
			if (c < 0x20 || (c == '<' && j->html))
				fprintf(j->f, "\\u%04x", c);
			else
				fputc((int)c, j->f);
		}
		s++;
	}
	fputc('"', j->f);
}

void hc_json_key(struct hc_json *j, const char *k)
{
	before(j);
	put_string(j, k);
	fputc(':', j->f);
	j->after_key = true;
}

void hc_json_str(struct hc_json *j, const char *s)
{
	before(j);
	put_string(j, s);
}

void hc_json_u64(struct hc_json *j, uint64_t v)
{
	before(j);
	fprintf(j->f, "%" PRIu64, v);
}

void hc_json_f64(struct hc_json *j, double v)
{
	before(j);
	if (v != v || v < -1e300 || v > 1e300)
		fputs("null", j->f);
	else
		fprintf(j->f, "%.4g", v);
}

void hc_json_i64(struct hc_json *j, int64_t v)
{
	before(j);
	if (v < 0)
		fputs("null", j->f);
	else
		fprintf(j->f, "%" PRId64, v);
}

void hc_json_null(struct hc_json *j)
{
	before(j);
	fputs("null", j->f);
}

void hc_json_bool(struct hc_json *j, bool b)
{
	before(j);
	fputs(b ? "true" : "false", j->f);
}

void hc_json_kstr(struct hc_json *j, const char *k, const char *s)
{
	hc_json_key(j, k);
	if (s)
		hc_json_str(j, s);
	else
		hc_json_null(j);
}

void hc_json_ku64(struct hc_json *j, const char *k, uint64_t v)
{
	hc_json_key(j, k);
	hc_json_u64(j, v);
}

void hc_json_ki64(struct hc_json *j, const char *k, int64_t v)
{
	hc_json_key(j, k);
	hc_json_i64(j, v);
}

void hc_json_objects(struct hc_json *j, const char *k, const void *base, size_t n, size_t size,
                     hc_json_members_fn *fn, const void *arg)
{
	hc_json_key(j, k);
	hc_json_arr(j);
	for (size_t i = 0; i < n; i++) {
		hc_json_obj(j);
		fn(j, (const char *)base + i * size, arg);
		hc_json_obj_end(j);
	}
	hc_json_arr_end(j);
}
