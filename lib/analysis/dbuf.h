/* SPDX-License-Identifier: BSD-3-Clause */
/* dbuf.h — the byte buffers of the distributed merge (dist.c, doc/mpi.md):
   a growing write buffer whose first allocation failure sticks (err), and
   a bounded read buffer whose first overrun sticks (bad). Host byte order:
   every rank of one run is this binary on one architecture (the partial
   results say their version and struct sizes first). Shared by dist.c and
   the passes that serialize their own partial results (objects.c,
   phases.c, numa.c). No signal context. */
#ifndef HC_ANALYSIS_DBUF_H
#define HC_ANALYSIS_DBUF_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct wbuf {
	uint8_t *p;
	size_t n, cap;
	int err;
};

static inline void dbuf__put(struct wbuf *b, const void *v, size_t len)
{
	if (b->err)
		return;
	if (b->n + len > b->cap) {
		size_t cap = b->cap ? b->cap : 1 << 16;
		uint8_t *p;
		while (cap < b->n + len)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	if (len)
		memcpy(b->p + b->n, v, len);
	b->n += len;
}

static inline void dbuf__put32(struct wbuf *b, uint32_t v) { dbuf__put(b, &v, sizeof(v)); }
static inline void dbuf__put64(struct wbuf *b, uint64_t v) { dbuf__put(b, &v, sizeof(v)); }

/* A string (NULL allowed): its length, UINT32_MAX for NULL, then the bytes. */
static inline void dbuf__putstr(struct wbuf *b, const char *s)
{
	uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;

	dbuf__put32(b, n);
	if (s)
		dbuf__put(b, s, n);
}

struct rbuf {
	const uint8_t *p;
	size_t n, off;
	bool bad;
};

static inline void dbuf__get(struct rbuf *b, void *v, size_t len)
{
	if (b->bad || len > b->n - b->off) {
		b->bad = true;
		memset(v, 0, len);
		return;
	}
	if (len)
		memcpy(v, b->p + b->off, len);
	b->off += len;
}

static inline uint32_t dbuf__get32(struct rbuf *b) { uint32_t v; dbuf__get(b, &v, sizeof(v)); return v; }
static inline uint64_t dbuf__get64(struct rbuf *b) { uint64_t v; dbuf__get(b, &v, sizeof(v)); return v; }

/* A count of records of at least min bytes each: bad when the rest of the
   buffer cannot hold them (so a malformed count never drives an allocation). */
static inline uint32_t dbuf__count(struct rbuf *b, size_t min)
{
	uint32_t n = dbuf__get32(b);

	if (!b->bad && min && n > (b->n - b->off) / min)
		b->bad = true;
	return b->bad ? 0 : n;
}

/* malloc'd copy, NULL for a NULL string; bad set when malformed or out of
   memory (*oom tells which). */
static inline char *dbuf__getstr(struct rbuf *b, bool *oom)
{
	uint32_t n = dbuf__get32(b);
	char *s;

	if (b->bad || n == UINT32_MAX)
		return NULL;
	if (n > b->n - b->off) {
		b->bad = true;
		return NULL;
	}
	s = malloc((size_t)n + 1);
	if (!s) {
		*oom = true;
		b->bad = true;
		return NULL;
	}
	memcpy(s, b->p + b->off, n);
	s[n] = '\0';
	b->off += n;
	return s;
}

#endif
