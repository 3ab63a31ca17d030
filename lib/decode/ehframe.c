/* SPDX-License-Identifier: BSD-3-Clause */
/* ehframe.c — find the function containing a PC in one module's
   .eh_frame_hdr search table (sorted (initial location, FDE address) pairs),
   then read the FDE and its CIE for the range: the FDE's pointer encoding is
   only known from the CIE's 'R' augmentation. Everything is read in place
   through a bounded cursor, so damage in a table can only make a lookup fail.
   Pure and allocation-free; ehframe__lookup runs in signal handlers.
   Format reference: LSB Core "Exception Frames" (.eh_frame, .eh_frame_hdr). */
#include <errno.h>
#include <string.h>

#include "decode/ehframe.h"

/* A read position and the bytes it may read, [lo, hi). */
struct cursor {
	uint64_t p, lo, hi;
};

static bool rd_bytes(struct cursor *c, void *dst, size_t n)
{
	if (c->p < c->lo || c->p > c->hi || c->hi - c->p < n)
		return false;
	memcpy(dst, (const void *)(uintptr_t)c->p, n);
	c->p += n;
	return true;
}

static bool rd_u8(struct cursor *c, uint8_t *v)   { return rd_bytes(c, v, 1); }
static bool rd_u16(struct cursor *c, uint16_t *v) { return rd_bytes(c, v, 2); }
static bool rd_u32(struct cursor *c, uint32_t *v) { return rd_bytes(c, v, 4); }
static bool rd_u64(struct cursor *c, uint64_t *v) { return rd_bytes(c, v, 8); }

static bool rd_uleb(struct cursor *c, uint64_t *v)
{
	uint64_t x = 0;
	uint8_t b;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (!rd_u8(c, &b))
			return false;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

static bool rd_sleb(struct cursor *c, int64_t *v)
{
	uint64_t x = 0;
	uint8_t b;

	for (unsigned shift = 0; shift < 64; ) {
		if (!rd_u8(c, &b))
			return false;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				x |= ~0ull << shift;
			*v = (int64_t)x;
			return true;
		}
	}
	return false;
}

/* Read one encoded pointer. The value format is enc's low nibble; when
   apply is set, the application (pcrel: relative to the field itself,
   datarel: relative to *datarel) is added. NULL datarel = not supported
   here; textrel, funcrel, aligned and indirect never are. */
static bool rd_enc(struct cursor *c, uint8_t enc, const uint64_t *datarel, bool apply,
                   uint64_t *v)
{
	uint64_t field = c->p, x;
	uint16_t u16;
	uint32_t u32;
	int64_t s;

	if (enc == EH_PE_OMIT)
		return false;
	switch (enc & 0x0f) {
	case EH_PE_ABSPTR:
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		if (!rd_u64(c, &x))
			return false;
		break;
	case EH_PE_UDATA2:
		if (!rd_u16(c, &u16))
			return false;
		x = u16;
		break;
	case EH_PE_SDATA2:
		if (!rd_u16(c, &u16))
			return false;
		x = (uint64_t)(int64_t)(int16_t)u16;
		break;
	case EH_PE_UDATA4:
		if (!rd_u32(c, &u32))
			return false;
		x = u32;
		break;
	case EH_PE_SDATA4:
		if (!rd_u32(c, &u32))
			return false;
		x = (uint64_t)(int64_t)(int32_t)u32;
		break;
	case EH_PE_ULEB128:
		if (!rd_uleb(c, &x))
			return false;
		break;
	case EH_PE_SLEB128:
		if (!rd_sleb(c, &s))
			return false;
		x = (uint64_t)s;
		break;
	default:
		return false;
	}
	if (apply) {
		if (enc & EH_PE_INDIRECT)
			return false;
		switch (enc & 0x70) {
		case EH_PE_ABSPTR:
			break;
		case EH_PE_PCREL:
			x += field;
			break;
		case EH_PE_DATAREL:
			if (!datarel)
				return false;
			x += *datarel;
			break;
		default:
			return false;
		}
	}
	*v = x;
	return true;
}

int ehframe__open(struct ehframe_table *t, uint64_t hdr, uint64_t lo, uint64_t hi)
{
	struct cursor c = { hdr, lo, hi };
	uint8_t version, frame_enc, count_enc, table_enc;
	uint64_t frame, count;

	memset(t, 0, sizeof(*t));
	if (!rd_u8(&c, &version) || !rd_u8(&c, &frame_enc) || !rd_u8(&c, &count_enc) ||
	    !rd_u8(&c, &table_enc))
		return -EINVAL;
	if (version != 1)
		return -EINVAL;
	/* The .eh_frame pointer is not needed, only skipped. */
	if (!rd_enc(&c, frame_enc, &hdr, false, &frame))
		return -EINVAL;
	if (count_enc == EH_PE_OMIT || table_enc == EH_PE_OMIT)
		return -ENOENT;
	if (!rd_enc(&c, count_enc, &hdr, true, &count))
		return -ENOTSUP;
	if (count == 0)
		return -ENOENT;
	switch (table_enc & 0x0f) {
	case EH_PE_UDATA4:
	case EH_PE_SDATA4:
		t->width = 4;
		break;
	case EH_PE_UDATA8:
	case EH_PE_SDATA8:
		t->width = 8;
		break;
	default:
		return -ENOTSUP;
	}
	if ((table_enc & 0xf0) != EH_PE_DATAREL && (table_enc & 0xf0) != EH_PE_PCREL)
		return -ENOTSUP;
	if (count > (hi - c.p) / (2u * t->width))
		return -EINVAL;
	t->hdr = hdr;
	t->table = c.p;
	t->count = count;
	t->lo = lo;
	t->hi = hi;
	t->enc = table_enc;
	return 0;
}

/* Field k (0 = initial location, 1 = FDE address) of search-table pair i. */
static bool table_field(const struct ehframe_table *t, uint64_t i, unsigned k, uint64_t *v)
{
	struct cursor c = { t->table + (2 * i + k) * t->width, t->lo, t->hi };

	return rd_enc(&c, t->enc, &t->hdr, true, v);
}

/* Start of a CIE or FDE record at c->p: its length, and the bound of its
   body, which becomes the cursor's hi. is64 reports the 64-bit format (the
   CIE pointer / id field is then 8 bytes). */
static bool rd_record(struct cursor *c, bool *is64)
{
	uint32_t l32;
	uint64_t len;

	if (!rd_u32(c, &l32) || l32 == 0)
		return false;
	*is64 = l32 == 0xffffffffu;
	if (*is64) {
		if (!rd_u64(c, &len))
			return false;
	} else {
		len = l32;
	}
	if (len > c->hi - c->p)
		return false;
	c->hi = c->p + len;
	return true;
}

/* The FDE pointer encoding a CIE declares ('R' augmentation; absptr without). */
static bool parse_cie(const struct ehframe_table *t, uint64_t cie, uint8_t *fde_enc)
{
	struct cursor c = { cie, t->lo, t->hi };
	char aug[8];
	uint8_t version, b;
	uint64_t id, u;
	int64_t s;
	bool is64;
	unsigned n = 0;

	if (!rd_record(&c, &is64))
		return false;
	if (is64) {
		if (!rd_u64(&c, &id))
			return false;
	} else {
		uint32_t id32;

		if (!rd_u32(&c, &id32))
			return false;
		id = id32;
	}
	if (id != 0 || !rd_u8(&c, &version) || (version != 1 && version != 3 && version != 4))
		return false;
	do {
		if (n == sizeof(aug) || !rd_u8(&c, &b))
			return false;
		aug[n++] = (char)b;
	} while (b);
	if (version == 4 && (!rd_u8(&c, &b) || !rd_u8(&c, &b)))  /* address, segment size */
		return false;
	if (!rd_uleb(&c, &u) || !rd_sleb(&c, &s))  /* code, data alignment factors */
		return false;
	if (version == 1 ? !rd_u8(&c, &b) : !rd_uleb(&c, &u))  /* return address column */
		return false;

	*fde_enc = EH_PE_ABSPTR;
	if (aug[0] == 0)
		return true;
	if (aug[0] != 'z' || !rd_uleb(&c, &u))  /* augmentation data length */
		return false;
	for (const char *a = aug + 1; *a; a++) {
		switch (*a) {
		case 'R':
			return rd_u8(&c, fde_enc);
		case 'P':  /* personality: encoding, then a pointer we skip */
			if (!rd_u8(&c, &b) || (b & 0x70) == EH_PE_ALIGNED ||
			    !rd_enc(&c, b & 0x0f, NULL, false, &u))
				return false;
			break;
		case 'L':  /* LSDA encoding */
			if (!rd_u8(&c, &b))
				return false;
			break;
		case 'S':  /* signal frame, */
		case 'B':  /* AArch64 B key, */
		case 'G':  /* MTE tagged frame: no data */
			break;
		default:   /* unknown data before 'R': cannot find it */
			return false;
		}
	}
	return true;
}

static bool parse_fde(const struct ehframe_table *t, uint64_t fde, uint64_t *begin,
                      uint64_t *range)
{
	struct cursor c = { fde, t->lo, t->hi };
	uint64_t id_at, cie_off;
	uint8_t enc;
	bool is64;

	if (!rd_record(&c, &is64))
		return false;
	id_at = c.p;
	if (is64) {
		if (!rd_u64(&c, &cie_off))
			return false;
	} else {
		uint32_t off32;

		if (!rd_u32(&c, &off32))
			return false;
		cie_off = off32;
	}
	/* A zero id marks a CIE; the pointer is relative to its own field. */
	if (cie_off == 0 || cie_off > id_at)
		return false;
	if (!parse_cie(t, id_at - cie_off, &enc))
		return false;
	/* No data base is known for FDE pointers: datarel is refused here. */
	return rd_enc(&c, enc, NULL, true, begin) &&
	       rd_enc(&c, enc & 0x0f, NULL, false, range);
}

bool ehframe__lookup(const struct ehframe_table *t, uint64_t pc, uint64_t *start, uint64_t *end)
{
	uint64_t lo = 0, hi = t->count, loc, fde, begin, range;

	/* First pair whose initial location is above pc; the one before it is
	   the only candidate. */
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (!table_field(t, mid, 0, &loc))
			return false;
		if (loc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return false;
	if (!table_field(t, lo - 1, 0, &loc) || !table_field(t, lo - 1, 1, &fde))
		return false;
	if (!parse_fde(t, fde, &begin, &range))
		return false;
	/* The table and the FDE must agree, else the table is not what we think. */
	if (begin != loc || range == 0 || pc - begin >= range)
		return false;
	*start = begin;
	*end = begin + range;
	return true;
}
