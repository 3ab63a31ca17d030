/* SPDX-License-Identifier: BSD-3-Clause */
/* reader.c — the profile reader, used by the analyzer (never in signal
   context). The idea: map the file once, prove everything about it up front,
   then hand out records by index with no further checks. Validation runs in
   three layers, each relying on the previous one: (1) the fixed prefix —
   magic, version, header size; (2) the trailer — an END section in the last 40
   bytes whose total length is the file size and whose CRC-32 covers every byte
   before the END record; (3) the section walk — every header in bounds, known
   tags with their record size, count * size == length without overflow, each
   known section at most once, unknown tags skipped; then the semantic checks
   (module and node ids equal their index, parents first, references in range,
   strings NUL-terminated in their field, enum values known). Every failure is
   -EINVAL (or the system error of open/fstat/mmap) with the message
   "PATH: offset N: expected X, found Y". */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "hc/profile.h"
#include "prof/layout.h"

struct section {
	const uint8_t *p;   /* first record, NULL when the section is absent */
	uint64_t off;       /* file offset of the first record */
	uint64_t count;
};

struct hc_prof {
	char *path;
	const uint8_t *map;
	size_t size;
	struct hc_prof_thread th;
	struct section mod, node, ev, al, ob, cn, pn, fr;
};

struct ctx {
	const char *path;
	char *err;
	size_t errlen;
};

static int HC_PRINTF(3, 4) fail(const struct ctx *c, uint64_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!c->err || c->errlen == 0)
		return -EINVAL;
	n = snprintf(c->err, c->errlen, "%s: offset %llu: ", c->path, (unsigned long long)off);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int HC_PRINTF(3, 4) fail_sys(const struct ctx *c, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->err && c->errlen > 0) {
		n = snprintf(c->err, c->errlen, "%s: ", c->path);
		if (n >= 0 && (size_t)n < c->errlen) {
			va_start(ap, fmt);
			vsnprintf(c->err + n, c->errlen - (size_t)n, fmt, ap);
			va_end(ap);
		}
	}
	return err;
}

/* A tag as text for messages: 'LMAP', or hex when not printable. */
static const char *tag_str(uint32_t tag, char buf[16])
{
	int i;

	for (i = 0; i < 4; i++) {
		unsigned char ch = (unsigned char)(tag >> (8 * i));
		if (ch < 0x20 || ch > 0x7e || ch == '\'') {
			snprintf(buf, 16, "0x%08x", tag);
			return buf;
		}
		buf[1 + i] = (char)ch;
	}
	buf[0] = '\'';
	buf[5] = '\'';
	buf[6] = '\0';
	return buf;
}

static const char *hex_bytes(const uint8_t *p, size_t n, char *buf, size_t cap)
{
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < n && o + 3 < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%02x", p[i]);
	return buf;
}

static void decode_thread(const uint8_t *t, struct hc_prof_thread *th)
{
	memset(th, 0, sizeof(*th));
	th->index = le_get32(t + L_TH_INDEX);
	th->creator = le_get32(t + L_TH_CREATOR);
	th->pid = le_get32(t + L_TH_PID);
	th->tid = le_get32(t + L_TH_TID);
	th->ppid = le_get32(t + L_TH_PPID);
	th->sampler = le_get32(t + L_TH_SAMPLER);
	th->unit = le_get32(t + L_TH_UNIT);
	th->creation_ctx = le_get32(t + L_TH_CREATION_CTX);
	th->period = le_get64(t + L_TH_PERIOD);
	th->start_ns = le_get64(t + L_TH_START_NS);
	th->end_ns = le_get64(t + L_TH_END_NS);
	th->stack_lo = le_get64(t + L_TH_STACK_LO);
	th->stack_hi = le_get64(t + L_TH_STACK_HI);
	th->tls_lo = le_get64(t + L_TH_TLS_LO);
	th->tls_hi = le_get64(t + L_TH_TLS_HI);
	th->start_lm = le_get32(t + L_TH_START_LM);
	th->rank = le_get32(t + L_TH_RANK);
	th->start_off = le_get64(t + L_TH_START_OFF);
	memcpy(th->exe, t + L_TH_EXE, L_TH_EXE_LEN);
}

/* Layers 1 and 2: fixed prefix, thread header, trailer and CRC. */
static int check_envelope(const struct ctx *c, struct hc_prof *p, uint32_t *hdr_size)
{
	const uint8_t *m = p->map, *e;
	size_t size = p->size;
	uint32_t version, hs, crc;
	char hex[40];

	if (size < 8 || memcmp(m, HC_PROF_MAGIC, 8) != 0)
		return fail(c, 0, "expected magic \"HCPROF\\r\\n\" (484350524f460d0a), found %s%s",
		            size == 0 ? "an empty file" : hex_bytes(m, size < 8 ? size : 8, hex, sizeof(hex)),
		            size > 0 && size < 8 ? " and end of file" : "");
	if (size < L_THREAD_OFF)
		return fail(c, size, "expected version and header size, found end of file");
	version = le_get32(m + L_VERSION_OFF);
	if (version != HC_PROF_VERSION)
		return fail(c, L_VERSION_OFF, "expected profile version %u, found version %u "
		            "(written by an incompatible hpcrun-comm)", HC_PROF_VERSION, version);
	hs = le_get32(m + L_HDRSIZE_OFF);
	if (hs < L_HEADER_SIZE || hs % 8 != 0)
		return fail(c, L_HDRSIZE_OFF, "expected header size >= %u and a multiple of 8, found %u",
		            L_HEADER_SIZE, hs);
	if (hs > size || size - hs < L_TRAILER_SIZE)
		return fail(c, size, "expected a %u-byte header and a %u-byte END section, "
		            "found end of file (truncated?)", hs, L_TRAILER_SIZE);
	if (memchr(m + L_THREAD_OFF + L_TH_EXE, '\0', L_TH_EXE_LEN) == NULL)
		return fail(c, L_THREAD_OFF + L_TH_EXE, "expected a NUL-terminated exe path "
		            "within %u bytes, found no NUL", L_TH_EXE_LEN);
	decode_thread(m + L_THREAD_OFF, &p->th);

	e = m + size - L_TRAILER_SIZE;
	if (le_get32(e + L_SEC_TAG) != HC_SEC_END || le_get32(e + L_SEC_RSIZE) != L_END_SIZE ||
	    le_get64(e + L_SEC_COUNT) != 1 || le_get64(e + L_SEC_LENGTH) != L_END_SIZE)
		return fail(c, size - L_TRAILER_SIZE, "expected the END section header (tag 'END ', "
		            "record size 16, count 1, length 16) in the last 40 bytes, found %s "
		            "(file truncated or never finished?)",
		            hex_bytes(e, 16, hex, sizeof(hex)));
	e += L_SEC_SIZE;
	if (le_get64(e + L_END_TOTAL) != size)
		return fail(c, size - L_END_SIZE + L_END_TOTAL, "expected total length %zu "
		            "(the file size), found %llu", size,
		            (unsigned long long)le_get64(e + L_END_TOTAL));
	if (le_get32(e + L_END_RESERVED) != 0)
		return fail(c, size - L_END_SIZE + L_END_RESERVED, "expected the END record's "
		            "reserved field 0, found 0x%08x", le_get32(e + L_END_RESERVED));
	crc = (uint32_t)crc32_z(0, m, size - L_END_SIZE);
	if (le_get32(e + L_END_CRC) != crc)
		return fail(c, size - L_END_SIZE + L_END_CRC, "expected CRC-32 0x%08x of bytes "
		            "[0, %zu), found 0x%08x (file corrupted)", crc, size - L_END_SIZE,
		            le_get32(e + L_END_CRC));
	*hdr_size = hs;
	return 0;
}

/* Layer 3: walk the section headers from the end of the file header to END. */
static int walk_sections(const struct ctx *c, struct hc_prof *p, uint32_t hs)
{
	const uint64_t end_off = p->size - L_TRAILER_SIZE;
	uint64_t off = hs;
	char tb[16];

	while (off != end_off) {
		const uint8_t *s = p->map + off;
		uint32_t tag, rsize, want;
		uint64_t count, length, prod;
		struct section *sec;

		if (end_off - off < L_SEC_SIZE)
			return fail(c, off, "expected a 24-byte section header, found %llu bytes "
			            "before the END section", (unsigned long long)(end_off - off));
		tag = le_get32(s + L_SEC_TAG);
		rsize = le_get32(s + L_SEC_RSIZE);
		count = le_get64(s + L_SEC_COUNT);
		length = le_get64(s + L_SEC_LENGTH);
		switch (tag) {
		case HC_SEC_LOADMAP:  sec = &p->mod;  want = L_MOD_SIZE;  break;
		case HC_SEC_CCT:      sec = &p->node; want = L_NODE_SIZE; break;
		case HC_SEC_EVENTS:   sec = &p->ev;   want = L_EV_SIZE;   break;
		case HC_SEC_ALLOCS:   sec = &p->al;   want = L_AL_SIZE;   break;
		case HC_SEC_OBJECTS:  sec = &p->ob;   want = L_OB_SIZE;   break;
		case HC_SEC_COUNTERS: sec = &p->cn;   want = L_CN_SIZE;   break;
		case HC_SEC_PNODES:   sec = &p->pn;   want = L_PN_SIZE;   break;
		case HC_SEC_FRAMES:   sec = &p->fr;   want = L_FR_SIZE;   break;
		case HC_SEC_END:
			return fail(c, off, "expected the END section to be last, found it %llu "
			            "bytes before the end of the file",
			            (unsigned long long)(p->size - off));
		default:              sec = NULL;     want = 0;           break;
		}
		if (want ? rsize != want : rsize == 0 || rsize % 8 != 0) {
			if (want)
				return fail(c, off + L_SEC_RSIZE, "expected record size %u for section %s, "
				            "found %u", want, tag_str(tag, tb), rsize);
			return fail(c, off + L_SEC_RSIZE, "expected a non-zero record size, multiple of 8, "
			            "for section %s, found %u", tag_str(tag, tb), rsize);
		}
		if (__builtin_mul_overflow(count, (uint64_t)rsize, &prod) || prod != length)
			return fail(c, off + L_SEC_LENGTH, "expected byte length = count %llu x record "
			            "size %u, found %llu", (unsigned long long)count, rsize,
			            (unsigned long long)length);
		if (length > end_off - off - L_SEC_SIZE)
			return fail(c, off + L_SEC_LENGTH, "expected section %s to end before the END "
			            "section (%llu bytes left), found length %llu", tag_str(tag, tb),
			            (unsigned long long)(end_off - off - L_SEC_SIZE),
			            (unsigned long long)length);
		if (sec) {
			if (sec->p)
				return fail(c, off, "expected at most one %s section, found a second one "
				            "(the first is at offset %llu)", tag_str(tag, tb),
				            (unsigned long long)(sec->off - L_SEC_SIZE));
			sec->p = s + L_SEC_SIZE;
			sec->off = off + L_SEC_SIZE;
			sec->count = count;
		}
		off += L_SEC_SIZE + length;
	}
	return 0;
}

static bool nul_within(const uint8_t *p, size_t n)
{
	return memchr(p, '\0', n) != NULL;
}

/* The semantic layer: references and invariants the analyzer relies on. */
static int check_records(const struct ctx *c, const struct hc_prof *p)
{
	uint64_t i, nmod = p->mod.count, nnode = p->node.count;

	if (p->th.sampler > HC_SAMPLER_LAST)
		return fail(c, L_THREAD_OFF + L_TH_SAMPLER, "expected a sampler kind 0..4, found %u",
		            p->th.sampler);
	if (p->th.unit > HC_UNIT_TRANSFERS)
		return fail(c, L_THREAD_OFF + L_TH_UNIT, "expected a unit 0 (ns) or 1 (transfers), "
		            "found %u", p->th.unit);
	if (p->th.start_lm != HC_NONE && p->th.start_lm >= nmod)
		return fail(c, L_THREAD_OFF + L_TH_START_LM, "expected a start module id below %llu "
		            "or HC_NONE, found %u", (unsigned long long)nmod, p->th.start_lm);

	for (i = 0; i < nmod; i++) {
		const uint8_t *r = p->mod.p + i * L_MOD_SIZE;
		uint64_t o = p->mod.off + i * L_MOD_SIZE;
		uint32_t id = le_get32(r + L_MOD_ID);

		if (id != i)
			return fail(c, o + L_MOD_ID, "expected module id %llu (its index), found %u",
			            (unsigned long long)i, id);
		if (le_get64(r + L_MOD_LO) > le_get64(r + L_MOD_HI))
			return fail(c, o + L_MOD_LO, "expected module %u lo <= hi, found lo 0x%llx > "
			            "hi 0x%llx", id, (unsigned long long)le_get64(r + L_MOD_LO),
			            (unsigned long long)le_get64(r + L_MOD_HI));
		if (!nul_within(r + L_MOD_PATH, L_MOD_PATH_LEN))
			return fail(c, o + L_MOD_PATH, "expected a NUL-terminated module path within "
			            "%u bytes, found no NUL", L_MOD_PATH_LEN);
	}

	for (i = 0; i < nnode; i++) {
		const uint8_t *r = p->node.p + i * L_NODE_SIZE;
		uint64_t o = p->node.off + i * L_NODE_SIZE;
		uint32_t id = le_get32(r + L_NODE_ID), parent = le_get32(r + L_NODE_PARENT);
		uint32_t lm = le_get32(r + L_NODE_LM);

		if (id != i)
			return fail(c, o + L_NODE_ID, "expected node id %llu (its index), found %u",
			            (unsigned long long)i, id);
		if (i == 0 && (parent != HC_NONE || lm != HC_NONE))
			return fail(c, o + L_NODE_PARENT, "expected the root node 0 with parent and "
			            "module HC_NONE, found parent %u module %u", parent, lm);
		if (i > 0 && parent >= id)
			return fail(c, o + L_NODE_PARENT, "expected node %u's parent before it "
			            "(parents first), found parent %u", id, parent);
		if (i > 0 && lm != HC_NONE && lm >= nmod)
			return fail(c, o + L_NODE_LM, "expected node %u's module id below %llu or "
			            "HC_NONE, found %u", id, (unsigned long long)nmod, lm);
	}

	for (i = 0; i < p->ev.count; i++) {
		const uint8_t *r = p->ev.p + i * L_EV_SIZE;
		uint32_t ctx = le_get32(r + L_EV_CTX);

		if (ctx >= nnode)
			return fail(c, p->ev.off + i * L_EV_SIZE + L_EV_CTX, "expected event %llu's "
			            "context node below %llu, found %u", (unsigned long long)i,
			            (unsigned long long)nnode, ctx);
	}

	for (i = 0; i < p->al.count; i++) {
		const uint8_t *r = p->al.p + i * L_AL_SIZE;
		uint64_t o = p->al.off + i * L_AL_SIZE;
		uint32_t ctx = le_get32(r + L_AL_CTX), kind = le_get32(r + L_AL_KIND);

		if (kind != HC_ALLOC && kind != HC_FREE)
			return fail(c, o + L_AL_KIND, "expected allocation kind 0 (alloc) or 1 (free), "
			            "found %u", kind);
		if (ctx != HC_NONE && ctx >= nnode)
			return fail(c, o + L_AL_CTX, "expected allocation %llu's context node below "
			            "%llu or HC_NONE, found %u", (unsigned long long)i,
			            (unsigned long long)nnode, ctx);
	}

	for (i = 0; i < p->ob.count; i++) {
		const uint8_t *r = p->ob.p + i * L_OB_SIZE;
		uint64_t o = p->ob.off + i * L_OB_SIZE, key, base, size, addr;
		uint32_t ev = le_get32(r + L_OB_EVENT), side = le_get32(r + L_OB_SIDE);
		uint32_t kind = le_get32(r + L_OB_KIND);

		if (ev >= p->ev.count)
			return fail(c, o + L_OB_EVENT, "expected object %llu's event below %llu, found %u",
			            (unsigned long long)i, (unsigned long long)p->ev.count, ev);
		if (side > HC_SIDE_PEER)
			return fail(c, o + L_OB_SIDE, "expected object side 0 (addr) or 1 (peer_addr), "
			            "found %u", side);
		key = (uint64_t)ev << 1 | side;
		if (i > 0 && key <= ((uint64_t)le_get32(r - L_OB_SIZE + L_OB_EVENT) << 1 |
		                     le_get32(r - L_OB_SIZE + L_OB_SIDE)))
			return fail(c, o + L_OB_EVENT, "expected object records sorted by (event, side), "
			            "one per pair, found (%u, %u) after (%u, %u)", ev, side,
			            le_get32(r - L_OB_SIZE + L_OB_EVENT), le_get32(r - L_OB_SIZE + L_OB_SIDE));
		if (kind > HC_OBJ_MMAP)
			return fail(c, o + L_OB_KIND, "expected object kind 0 (malloc) or 1 (mmap), found %u",
			            kind);
		base = le_get64(r + L_OB_BASE);
		size = le_get64(r + L_OB_SIZE_F);
		addr = le_get64(p->ev.p + (uint64_t)ev * L_EV_SIZE + (side ? L_EV_PEER_ADDR : L_EV_ADDR));
		if (size == 0 || addr < base || addr - base >= size)
			return fail(c, o + L_OB_BASE, "expected a block [0x%llx, +%llu) holding event %u's "
			            "%s 0x%llx", (unsigned long long)base, (unsigned long long)size, ev,
			            side ? "peer_addr" : "addr", (unsigned long long)addr);
	}

	for (i = 0; i < p->pn.count; i++) {
		const uint8_t *r = p->pn.p + i * L_PN_SIZE;
		uint64_t o = p->pn.off + i * L_PN_SIZE;
		uint32_t ev = le_get32(r + L_PN_EVENT);
		int32_t a = (int32_t)le_get32(r + L_PN_NODE), b = (int32_t)le_get32(r + L_PN_PEER_NODE);

		if (ev >= p->ev.count)
			return fail(c, o + L_PN_EVENT, "expected page-node record %llu's event below %llu, "
			            "found %u", (unsigned long long)i, (unsigned long long)p->ev.count, ev);
		if (i > 0 && ev <= le_get32(r - L_PN_SIZE + L_PN_EVENT))
			return fail(c, o + L_PN_EVENT, "expected page-node records sorted by event, one "
			            "per event, found %u after %u", ev, le_get32(r - L_PN_SIZE + L_PN_EVENT));
		if (a < -1 || a > HC_PNODE_MAX || b < -1 || b > HC_PNODE_MAX)
			return fail(c, o + L_PN_NODE, "expected NUMA nodes in -1..%d, found %d and %d",
			            HC_PNODE_MAX, a, b);
	}

	for (i = 0; i < p->fr.count; i++) {
		const uint8_t *r = p->fr.p + i * L_FR_SIZE;
		uint32_t nd = le_get32(r + L_FR_NODE);

		if (nd >= p->node.count)
			return fail(c, p->fr.off + i * L_FR_SIZE + L_FR_NODE, "expected stack frame "
			            "record %llu's node below %llu, found %u", (unsigned long long)i,
			            (unsigned long long)p->node.count, nd);
	}

	for (i = 0; i < p->cn.count; i++) {
		const uint8_t *r = p->cn.p + i * L_CN_SIZE;

		if (!nul_within(r + L_CN_NAME, L_CN_NAME_LEN) || r[L_CN_NAME] == '\0')
			return fail(c, p->cn.off + i * L_CN_SIZE + L_CN_NAME, "expected a non-empty, "
			            "NUL-terminated counter name within %u bytes, found %s",
			            L_CN_NAME_LEN, r[L_CN_NAME] == '\0' ? "an empty name" : "no NUL");
	}
	return 0;
}

int hc_prof_open(const char *path, struct hc_prof **out, char *err, size_t errlen)
{
	struct ctx c = { .path = path ? path : "(null)", .err = err, .errlen = errlen };
	struct hc_prof *p;
	struct stat st;
	uint32_t hs = 0;
	void *map;
	int fd, ret;

	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return fail_sys(&c, -EINVAL, "no result pointer given");
	*out = NULL;
	if (!path)
		return fail_sys(&c, -EINVAL, "no path given");
	/* O_NONBLOCK: opening a FIFO by mistake must not hang the analyzer. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		return fail_sys(&c, ret, "cannot open: %s", strerror(-ret));
	}
	if (fstat(fd, &st) < 0) {
		ret = fail_sys(&c, -errno, "cannot stat: %s", strerror(errno));
		goto out_fd;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = fail_sys(&c, -EISDIR, "is a directory, expected a profile file");
		goto out_fd;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = fail_sys(&c, -EINVAL, "is not a regular file, expected a profile file");
		goto out_fd;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		ret = fail_sys(&c, -ENOMEM, "out of memory");
		goto out_fd;
	}
	p->path = strdup(path);
	if (!p->path) {
		ret = fail_sys(&c, -ENOMEM, "out of memory");
		goto out_p;
	}
	p->size = (size_t)st.st_size;
	if (p->size > 0) {
		map = mmap(NULL, p->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map == MAP_FAILED) {
			ret = fail_sys(&c, -errno, "cannot map %zu bytes: %s", p->size, strerror(errno));
			goto out_p;
		}
		p->map = map;
	}
	close(fd);
	ret = check_envelope(&c, p, &hs);
	if (!ret)
		ret = walk_sections(&c, p, hs);
	if (!ret)
		ret = check_records(&c, p);
	if (ret) {
		hc_prof_close(p);
		return ret;
	}
	*out = p;
	return 0;

out_p:
	free(p->path);
	free(p);
out_fd:
	close(fd);
	return ret;
}

void hc_prof_close(struct hc_prof *p)
{
	if (!p)
		return;
	if (p->map)
		munmap((void *)p->map, p->size);
	free(p->path);
	free(p);
}

const struct hc_prof_thread *hc_prof_thread(const struct hc_prof *p) { return &p->th; }
const char *hc_prof_path(const struct hc_prof *p) { return p->path; }
size_t hc_prof_nmodules(const struct hc_prof *p) { return (size_t)p->mod.count; }
size_t hc_prof_nnodes(const struct hc_prof *p) { return (size_t)p->node.count; }
size_t hc_prof_nevents(const struct hc_prof *p) { return (size_t)p->ev.count; }
size_t hc_prof_nallocs(const struct hc_prof *p) { return (size_t)p->al.count; }
size_t hc_prof_nobjects(const struct hc_prof *p) { return (size_t)p->ob.count; }
size_t hc_prof_ncounters(const struct hc_prof *p) { return (size_t)p->cn.count; }

/* The accessors below trust the validation done at open; an index out of
   range yields an all-zero record rather than a read out of bounds. */
void hc_prof_module(const struct hc_prof *p, size_t i, struct hc_prof_module *out)
{
	const uint8_t *r;

	memset(out, 0, sizeof(*out));
	if (i >= p->mod.count)
		return;
	r = p->mod.p + i * L_MOD_SIZE;
	out->id = le_get32(r + L_MOD_ID);
	out->reserved = le_get32(r + L_MOD_RESERVED);
	out->base = le_get64(r + L_MOD_BASE);
	out->lo = le_get64(r + L_MOD_LO);
	out->hi = le_get64(r + L_MOD_HI);
	memcpy(out->path, r + L_MOD_PATH, L_MOD_PATH_LEN);
}

void hc_prof_node(const struct hc_prof *p, size_t i, struct hc_prof_node *out)
{
	const uint8_t *r;
	int k;

	memset(out, 0, sizeof(*out));
	if (i >= p->node.count)
		return;
	r = p->node.p + i * L_NODE_SIZE;
	out->id = le_get32(r + L_NODE_ID);
	out->parent = le_get32(r + L_NODE_PARENT);
	out->lm = le_get32(r + L_NODE_LM);
	out->flags = le_get32(r + L_NODE_FLAGS);
	out->offset = le_get64(r + L_NODE_OFFSET);
	for (k = 0; k < HC_M_COUNT; k++)
		out->m[k] = le_get64(r + L_NODE_M + 8 * k);
}

void hc_prof_event(const struct hc_prof *p, size_t i, struct hc_prof_event *out)
{
	const uint8_t *r;

	memset(out, 0, sizeof(*out));
	if (i >= p->ev.count)
		return;
	r = p->ev.p + i * L_EV_SIZE;
	out->time = le_get64(r + L_EV_TIME);
	out->weight = le_get64(r + L_EV_WEIGHT);
	out->addr = le_get64(r + L_EV_ADDR);
	out->peer_addr = le_get64(r + L_EV_PEER_ADDR);
	out->len = le_get32(r + L_EV_LEN);
	out->peer_len = le_get32(r + L_EV_PEER_LEN);
	out->peer = le_get32(r + L_EV_PEER);
	out->cpu = (int32_t)le_get32(r + L_EV_CPU);
	out->peer_cpu = (int32_t)le_get32(r + L_EV_PEER_CPU);
	out->ctx = le_get32(r + L_EV_CTX);
	out->peer_ctx = le_get32(r + L_EV_PEER_CTX);
	out->flags = le_get32(r + L_EV_FLAGS);
}

void hc_prof_alloc(const struct hc_prof *p, size_t i, struct hc_prof_alloc *out)
{
	const uint8_t *r;

	memset(out, 0, sizeof(*out));
	if (i >= p->al.count)
		return;
	r = p->al.p + i * L_AL_SIZE;
	out->time = le_get64(r + L_AL_TIME);
	out->addr = le_get64(r + L_AL_ADDR);
	out->size = le_get64(r + L_AL_SIZE_F);
	out->ctx = le_get32(r + L_AL_CTX);
	out->kind = le_get32(r + L_AL_KIND);
}

void hc_prof_object(const struct hc_prof *p, size_t i, struct hc_prof_object *out)
{
	const uint8_t *r;

	memset(out, 0, sizeof(*out));
	if (i >= p->ob.count)
		return;
	r = p->ob.p + i * L_OB_SIZE;
	out->event = le_get32(r + L_OB_EVENT);
	out->side = le_get32(r + L_OB_SIDE);
	out->base = le_get64(r + L_OB_BASE);
	out->size = le_get64(r + L_OB_SIZE_F);
	out->thread = le_get32(r + L_OB_THREAD);
	out->ctx = le_get32(r + L_OB_CTX);
	out->kind = le_get32(r + L_OB_KIND);
	out->reserved = le_get32(r + L_OB_RESERVED);
}

/* Records are sorted by (event, side) (checked at open): binary search. */
bool hc_prof_object_find(const struct hc_prof *p, uint32_t event, uint32_t side,
                         struct hc_prof_object *out)
{
	uint64_t lo = 0, hi = p->ob.count, key = (uint64_t)event << 1 | side;

	if (side > HC_SIDE_PEER)
		hi = 0;   /* no such record; a side of 2 would alias (event + 1, 0) */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const uint8_t *r = p->ob.p + mid * L_OB_SIZE;
		uint64_t k = (uint64_t)le_get32(r + L_OB_EVENT) << 1 | le_get32(r + L_OB_SIDE);

		if (k == key) {
			hc_prof_object(p, (size_t)mid, out);
			return true;
		}
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	memset(out, 0, sizeof(*out));
	return false;
}

size_t hc_prof_npnodes(const struct hc_prof *p) { return (size_t)p->pn.count; }
size_t hc_prof_nframes(const struct hc_prof *p) { return (size_t)p->fr.count; }

void hc_prof_frame(const struct hc_prof *p, size_t i, struct hc_prof_frame *out)
{
	const uint8_t *r = p->fr.p + i * L_FR_SIZE;

	out->cfa = le_get64(r + L_FR_CFA);
	out->node = le_get32(r + L_FR_NODE);
	out->count = le_get32(r + L_FR_COUNT);
	out->size = le_get32(r + L_FR_FSIZE);
	out->reserved = 0;
}

bool hc_prof_pnode_find(const struct hc_prof *p, uint32_t event, struct hc_prof_pnode *out)
{
	uint64_t lo = 0, hi = p->pn.count;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		const uint8_t *r = p->pn.p + mid * L_PN_SIZE;
		uint32_t k = le_get32(r + L_PN_EVENT);

		if (k == event) {
			out->event = k;
			out->node = (int32_t)le_get32(r + L_PN_NODE);
			out->peer_node = (int32_t)le_get32(r + L_PN_PEER_NODE);
			out->reserved = 0;
			return true;
		}
		if (k < event)
			lo = mid + 1;
		else
			hi = mid;
	}
	*out = (struct hc_prof_pnode){ event, -1, -1, 0 };
	return false;
}

void hc_prof_counter(const struct hc_prof *p, size_t i, struct hc_prof_counter *out)
{
	const uint8_t *r;

	memset(out, 0, sizeof(*out));
	if (i >= p->cn.count)
		return;
	r = p->cn.p + i * L_CN_SIZE;
	memcpy(out->name, r + L_CN_NAME, L_CN_NAME_LEN);
	out->value = le_get64(r + L_CN_VALUE);
}

uint64_t hc_prof_counter_value(const struct hc_prof *p, const char *name)
{
	uint64_t i;

	for (i = 0; i < p->cn.count; i++) {
		const uint8_t *r = p->cn.p + i * L_CN_SIZE;
		if (strncmp((const char *)r + L_CN_NAME, name, L_CN_NAME_LEN) == 0)
			return le_get64(r + L_CN_VALUE);
	}
	return 0;
}
