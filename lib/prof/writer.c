/* SPDX-License-Identifier: BSD-3-Clause */
/* writer.c — the profile writer, linked into the LD_PRELOAD runtime. It
   serializes records field by field (layout.h) into the caller's staging
   buffer and pwrite()s the buffer at its absolute file offset when it fills.
   A section header is written as a placeholder (count and length 0) and
   patched by section_end: in the buffer if it is still there, else with
   pwrite. The running CRC (w->crc) always covers the bytes flushed so far;
   when a placeholder that was already flushed gets patched, the CRC is
   corrected algebraically (CRC-32 is affine, so the change equals the CRC of
   the XOR difference shifted past the bytes that follow it; crc32_combine does
   the shift) — no read-back, no second pass. Everything here is
   async-signal-safe: pwrite on the caller's fd, the caller's buffer, zlib's
   table-driven crc32/crc32_combine; no malloc, no stdio, no locks. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "hc/profile.h"
#include "prof/layout.h"
#include "support/io.h"

#define MIN_BUF 4096u   /* >= the header and the largest record */

static int flush(struct hc_prof_writer *w)
{
	int err, saved = errno;

	if (w->err)
		return w->err;
	if (w->len == 0)
		return 0;
	err = hc_write_full(w->fd, w->buf, w->len, (int64_t)w->off);
	errno = saved;
	if (err) {
		w->err = err;
		return err;
	}
	w->crc = (uint32_t)crc32_z(w->crc, w->buf, w->len);
	w->off += w->len;
	w->len = 0;
	return 0;
}

/* Room for n more bytes in the buffer (flushing if needed), or NULL. */
static uint8_t *reserve(struct hc_prof_writer *w, size_t n)
{
	uint8_t *p;

	if (w->err)
		return NULL;
	if (w->len + n > w->cap && flush(w))
		return NULL;
	p = w->buf + w->len;
	memset(p, 0, n);
	w->len += n;
	return p;
}

static uint32_t record_size(uint32_t tag)
{
	switch (tag) {
	case HC_SEC_LOADMAP:  return L_MOD_SIZE;
	case HC_SEC_CCT:      return L_NODE_SIZE;
	case HC_SEC_EVENTS:   return L_EV_SIZE;
	case HC_SEC_COUNTERS: return L_CN_SIZE;
	case HC_SEC_ALLOCS:   return L_AL_SIZE;
	case HC_SEC_OBJECTS:  return L_OB_SIZE;
	case HC_SEC_PNODES:   return L_PN_SIZE;
	case HC_SEC_FRAMES:   return L_FR_SIZE;
	case HC_SEC_END:      return L_END_SIZE;
	default:              return 0;
	}
}

/* Common prologue of the put functions: a record of this tag may go now. */
static int check_put(const struct hc_prof_writer *w, uint32_t tag)
{
	if (w->err)
		return w->err;
	if (w->sec_off == 0 || w->sec_tag != tag)
		return -EINVAL;
	return 0;
}

int hc_prof_writer_init(struct hc_prof_writer *w, int fd, void *buf, size_t cap,
                        const struct hc_prof_thread *th)
{
	uint8_t *h, *t;

	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->buf = buf;
	w->cap = cap;
	if (fd < 0 || !buf || cap < MIN_BUF || !th ||
	    memchr(th->exe, '\0', sizeof(th->exe)) == NULL) {
		w->err = -EINVAL;
		return w->err;
	}
	h = reserve(w, L_HEADER_SIZE);
	memcpy(h + L_MAGIC_OFF, HC_PROF_MAGIC, 8);
	le_put32(h + L_VERSION_OFF, HC_PROF_VERSION);
	le_put32(h + L_HDRSIZE_OFF, L_HEADER_SIZE);
	t = h + L_THREAD_OFF;
	le_put32(t + L_TH_INDEX, th->index);
	le_put32(t + L_TH_CREATOR, th->creator);
	le_put32(t + L_TH_PID, th->pid);
	le_put32(t + L_TH_TID, th->tid);
	le_put32(t + L_TH_PPID, th->ppid);
	le_put32(t + L_TH_SAMPLER, th->sampler);
	le_put32(t + L_TH_UNIT, th->unit);
	le_put32(t + L_TH_CREATION_CTX, th->creation_ctx);
	le_put64(t + L_TH_PERIOD, th->period);
	le_put64(t + L_TH_START_NS, th->start_ns);
	le_put64(t + L_TH_END_NS, th->end_ns);
	le_put64(t + L_TH_STACK_LO, th->stack_lo);
	le_put64(t + L_TH_STACK_HI, th->stack_hi);
	le_put64(t + L_TH_TLS_LO, th->tls_lo);
	le_put64(t + L_TH_TLS_HI, th->tls_hi);
	le_put32(t + L_TH_START_LM, th->start_lm);
	le_put32(t + L_TH_RANK, th->rank);
	le_put64(t + L_TH_START_OFF, th->start_off);
	memcpy(t + L_TH_EXE, th->exe, strlen(th->exe));
	return 0;
}

int hc_prof_section_begin(struct hc_prof_writer *w, uint32_t tag)
{
	uint8_t *s;

	if (w->err)
		return w->err;
	if (w->sec_off != 0 || w->sec_tag == HC_SEC_END || tag == HC_SEC_END ||
	    record_size(tag) == 0)
		return -EINVAL;
	s = reserve(w, L_SEC_SIZE);
	if (!s)
		return w->err;
	le_put32(s + L_SEC_TAG, tag);
	le_put32(s + L_SEC_RSIZE, record_size(tag));
	w->sec_off = w->off + (uint64_t)(s - w->buf);
	w->sec_tag = tag;
	w->sec_count = 0;
	w->last_key = 0;
	return 0;
}

int hc_prof_put_module(struct hc_prof_writer *w, const struct hc_prof_module *m)
{
	uint8_t *r;
	int err = check_put(w, HC_SEC_LOADMAP);

	if (err)
		return err;
	if (m->id != w->sec_count || memchr(m->path, '\0', sizeof(m->path)) == NULL)
		return -EINVAL;
	r = reserve(w, L_MOD_SIZE);
	if (!r)
		return w->err;
	le_put32(r + L_MOD_ID, m->id);
	le_put64(r + L_MOD_BASE, m->base);
	le_put64(r + L_MOD_LO, m->lo);
	le_put64(r + L_MOD_HI, m->hi);
	memcpy(r + L_MOD_PATH, m->path, strlen(m->path));
	w->sec_count++;
	return 0;
}

int hc_prof_put_node(struct hc_prof_writer *w, const struct hc_prof_node *n)
{
	uint8_t *r;
	int i, err = check_put(w, HC_SEC_CCT);

	if (err)
		return err;
	if (n->id != w->sec_count ||
	    (n->id == 0 ? n->parent != HC_NONE || n->lm != HC_NONE : n->parent >= n->id))
		return -EINVAL;
	r = reserve(w, L_NODE_SIZE);
	if (!r)
		return w->err;
	le_put32(r + L_NODE_ID, n->id);
	le_put32(r + L_NODE_PARENT, n->parent);
	le_put32(r + L_NODE_LM, n->lm);
	le_put32(r + L_NODE_FLAGS, n->flags);
	le_put64(r + L_NODE_OFFSET, n->offset);
	for (i = 0; i < HC_M_COUNT; i++)
		le_put64(r + L_NODE_M + 8 * i, n->m[i]);
	w->sec_count++;
	return 0;
}

int hc_prof_put_event(struct hc_prof_writer *w, const struct hc_prof_event *e)
{
	uint8_t *r;
	int err = check_put(w, HC_SEC_EVENTS);

	if (err)
		return err;
	r = reserve(w, L_EV_SIZE);
	if (!r)
		return w->err;
	le_put64(r + L_EV_TIME, e->time);
	le_put64(r + L_EV_WEIGHT, e->weight);
	le_put64(r + L_EV_ADDR, e->addr);
	le_put64(r + L_EV_PEER_ADDR, e->peer_addr);
	le_put32(r + L_EV_LEN, e->len);
	le_put32(r + L_EV_PEER_LEN, e->peer_len);
	le_put32(r + L_EV_PEER, e->peer);
	le_put32(r + L_EV_CPU, (uint32_t)e->cpu);
	le_put32(r + L_EV_PEER_CPU, (uint32_t)e->peer_cpu);
	le_put32(r + L_EV_CTX, e->ctx);
	le_put32(r + L_EV_PEER_CTX, e->peer_ctx);
	le_put32(r + L_EV_FLAGS, e->flags);
	w->sec_count++;
	return 0;
}

int hc_prof_put_alloc(struct hc_prof_writer *w, const struct hc_prof_alloc *a)
{
	uint8_t *r;
	int err = check_put(w, HC_SEC_ALLOCS);

	if (err)
		return err;
	if (a->kind != HC_ALLOC && a->kind != HC_FREE)
		return -EINVAL;
	r = reserve(w, L_AL_SIZE);
	if (!r)
		return w->err;
	le_put64(r + L_AL_TIME, a->time);
	le_put64(r + L_AL_ADDR, a->addr);
	le_put64(r + L_AL_SIZE_F, a->size);
	le_put32(r + L_AL_CTX, a->ctx);
	le_put32(r + L_AL_KIND, a->kind);
	w->sec_count++;
	return 0;
}

int hc_prof_put_object(struct hc_prof_writer *w, const struct hc_prof_object *o)
{
	uint8_t *r;
	uint64_t key;
	int err = check_put(w, HC_SEC_OBJECTS);

	if (err)
		return err;
	key = ((uint64_t)o->event << 1 | o->side) + 1;
	if (o->side > HC_SIDE_PEER || o->kind > HC_OBJ_MMAP || o->size == 0 || key <= w->last_key)
		return -EINVAL;
	r = reserve(w, L_OB_SIZE);
	if (!r)
		return w->err;
	le_put32(r + L_OB_EVENT, o->event);
	le_put32(r + L_OB_SIDE, o->side);
	le_put64(r + L_OB_BASE, o->base);
	le_put64(r + L_OB_SIZE_F, o->size);
	le_put32(r + L_OB_THREAD, o->thread);
	le_put32(r + L_OB_CTX, o->ctx);
	le_put32(r + L_OB_KIND, o->kind);
	w->last_key = key;
	w->sec_count++;
	return 0;
}

int hc_prof_put_pnode(struct hc_prof_writer *w, const struct hc_prof_pnode *n)
{
	uint8_t *r;
	int err = check_put(w, HC_SEC_PNODES);

	if (err)
		return err;
	if ((uint64_t)n->event + 1 <= w->last_key || n->node < -1 || n->node > HC_PNODE_MAX ||
	    n->peer_node < -1 || n->peer_node > HC_PNODE_MAX)
		return -EINVAL;
	r = reserve(w, L_PN_SIZE);
	if (!r)
		return w->err;
	le_put32(r + L_PN_EVENT, n->event);
	le_put32(r + L_PN_NODE, (uint32_t)n->node);
	le_put32(r + L_PN_PEER_NODE, (uint32_t)n->peer_node);
	le_put32(r + L_PN_RESERVED, 0);
	w->last_key = (uint64_t)n->event + 1;
	w->sec_count++;
	return 0;
}

int hc_prof_put_frame(struct hc_prof_writer *w, const struct hc_prof_frame *f)
{
	uint8_t *r;
	int err = check_put(w, HC_SEC_FRAMES);

	if (err)
		return err;
	r = reserve(w, L_FR_SIZE);
	if (!r)
		return w->err;
	le_put64(r + L_FR_CFA, f->cfa);
	le_put32(r + L_FR_NODE, f->node);
	le_put32(r + L_FR_COUNT, f->count);
	le_put32(r + L_FR_FSIZE, f->size);
	le_put32(r + L_FR_RESERVED, 0);
	w->sec_count++;
	return 0;
}

int hc_prof_put_counter(struct hc_prof_writer *w, const char *name, uint64_t value)
{
	uint8_t *r;
	size_t n;
	int err = check_put(w, HC_SEC_COUNTERS);

	if (err)
		return err;
	n = strnlen(name, L_CN_NAME_LEN);
	if (n == 0 || n >= L_CN_NAME_LEN)
		return -EINVAL;
	r = reserve(w, L_CN_SIZE);
	if (!r)
		return w->err;
	memcpy(r + L_CN_NAME, name, n);
	le_put64(r + L_CN_VALUE, value);
	w->sec_count++;
	return 0;
}

/* The CRC of the flushed bytes changes by this when the 24 header bytes at
   some offset change by the XOR difference d and `after` bytes follow them:
   raw(d) = crc32(d) ^ crc32(zeros) removes the affine init/final xor, and
   crc32_combine(x, 0, n) multiplies x by x^(8n), i.e. appends n zero bytes. */
static uint32_t crc_patch_delta(const uint8_t d[L_SEC_SIZE], uint64_t after)
{
	static const uint8_t zeros[L_SEC_SIZE];
	uLong raw = crc32(0, d, L_SEC_SIZE) ^ crc32(0, zeros, L_SEC_SIZE);

	return (uint32_t)crc32_combine64(raw, 0, (z_off64_t)after);
}

int hc_prof_section_end(struct hc_prof_writer *w)
{
	uint8_t final[L_SEC_SIZE];
	uint64_t length;
	int err;

	if (w->err)
		return w->err;
	if (w->sec_off == 0)
		return -EINVAL;
	length = w->sec_count * record_size(w->sec_tag);
	if (w->sec_off >= w->off) {
		/* Header still in the buffer: patch it there, not yet in the CRC. */
		uint8_t *s = w->buf + (w->sec_off - w->off);
		le_put64(s + L_SEC_COUNT, w->sec_count);
		le_put64(s + L_SEC_LENGTH, length);
	} else {
		/* Flushed with count = length = 0: the XOR difference is the
		   final values themselves, so `final` doubles as the delta. */
		memset(final, 0, sizeof(final));
		le_put64(final + L_SEC_COUNT, w->sec_count);
		le_put64(final + L_SEC_LENGTH, length);
		err = hc_write_full(w->fd, final + L_SEC_COUNT, 16, (int64_t)(w->sec_off + L_SEC_COUNT));
		if (err) {
			w->err = err;
			return err;
		}
		w->crc ^= crc_patch_delta(final, w->off - (w->sec_off + L_SEC_SIZE));
	}
	w->sec_off = 0;
	w->sec_tag = 0;
	w->sec_count = 0;
	return 0;
}

int hc_prof_writer_finish(struct hc_prof_writer *w)
{
	uint8_t *s;
	uint32_t crc;
	int err;

	if (w->err)
		return w->err;
	if (w->sec_tag == HC_SEC_END)
		return -EINVAL;
	if (w->sec_off != 0 && (err = hc_prof_section_end(w)))
		return err;
	/* Header and record in one reservation: the CRC below covers the
	   flushed bytes plus everything buffered up to the END record. */
	s = reserve(w, L_TRAILER_SIZE);
	if (!s)
		return w->err;
	le_put32(s + L_SEC_TAG, HC_SEC_END);
	le_put32(s + L_SEC_RSIZE, L_END_SIZE);
	le_put64(s + L_SEC_COUNT, 1);
	le_put64(s + L_SEC_LENGTH, L_END_SIZE);
	crc = (uint32_t)crc32_z(w->crc, w->buf, w->len - L_END_SIZE);
	le_put32(s + L_SEC_SIZE + L_END_CRC, crc);
	le_put64(s + L_SEC_SIZE + L_END_TOTAL, w->off + w->len);
	w->sec_tag = HC_SEC_END;
	return flush(w);
}
