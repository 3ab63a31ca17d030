/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ehframe.c — the .eh_frame_hdr / FDE / CIE reader on synthetic tables:
   every search-table encoding we claim to read (datarel and pcrel; udata4,
   sdata4, udata8, sdata8), FDE pointer encodings taken from the CIE's 'R'
   augmentation (or absptr without one), augmentations with data before 'R'
   ('P' with several encodings, 'L'), CIE versions 1 and 3, 64-bit DWARF
   lengths; encodings we refuse; and damaged tables, which must make lookups
   fail without reading outside the bounds given. The real tables of loaded
   modules are exercised by test_funcstart. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "decode/ehframe.h"
#include "hc_test.h"

#define NFUNC 5
#define EH_FRAME_OFF 1024

static uint8_t img[8192] __attribute__((aligned(16)));

/* The synthetic functions: never read, only addresses. */
static uint64_t fn_start(int i) { return (uint64_t)(uintptr_t)img + 0x100000 + 0x1000u * (unsigned)i + 0x100; }
static uint64_t fn_range(int i) { return 0x80 + 0x10u * (unsigned)i; }

struct spec {
	const char *name;
	uint8_t table_enc;
	uint8_t fde_enc;   /* FDE pointer encoding ('R'), unless empty_aug */
	bool empty_aug;    /* CIE augmentation "": FDE pointers are absptr */
	bool personality;  /* "zPLR" rather than "zR" */
	uint8_t penc;      /* personality pointer encoding */
	bool dwarf64;      /* 64-bit record lengths */
	uint8_t version;   /* CIE version: 1 or 3 */
};

/* ---- a tiny emitter ---------------------------------------------------- */

struct emit {
	uint8_t *base;
	size_t off;
};

static uint64_t here(const struct emit *e) { return (uint64_t)(uintptr_t)(e->base + e->off); }

static void put(struct emit *e, const void *p, size_t n)
{
	memcpy(e->base + e->off, p, n);
	e->off += n;
}

static void put_u8(struct emit *e, uint8_t v)   { put(e, &v, 1); }
static void put_u16(struct emit *e, uint16_t v) { put(e, &v, 2); }
static void put_u32(struct emit *e, uint32_t v) { put(e, &v, 4); }
static void put_u64(struct emit *e, uint64_t v) { put(e, &v, 8); }

static void put_uleb(struct emit *e, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		put_u8(e, (uint8_t)(b | (v ? 0x80 : 0)));
	} while (v);
}

static void put_sleb(struct emit *e, int64_t v)
{
	for (;;) {
		uint8_t b = v & 0x7f;

		v >>= 7;
		if ((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40))) {
			put_u8(e, b);
			return;
		}
		put_u8(e, b | 0x80);
	}
}

static void put_enc(struct emit *e, uint8_t enc, uint64_t value, uint64_t datarel)
{
	uint64_t v = value;

	if ((enc & 0x70) == EH_PE_PCREL)
		v -= here(e);
	else if ((enc & 0x70) == EH_PE_DATAREL)
		v -= datarel;
	switch (enc & 0x0f) {
	case EH_PE_UDATA2: case EH_PE_SDATA2: put_u16(e, (uint16_t)v); break;
	case EH_PE_UDATA4: case EH_PE_SDATA4: put_u32(e, (uint32_t)v); break;
	case EH_PE_ULEB128: put_uleb(e, v); break;
	case EH_PE_SLEB128: put_sleb(e, (int64_t)v); break;
	default: put_u64(e, v); break;
	}
}

/* Start a record: the length is patched by end_record. */
static size_t begin_record(struct emit *e, bool dwarf64)
{
	if (dwarf64) {
		put_u32(e, 0xffffffffu);
		put_u64(e, 0);
		return e->off - 8;
	}
	put_u32(e, 0);
	return e->off - 4;
}

static void end_record(struct emit *e, size_t len_at, bool dwarf64)
{
	size_t body = len_at + (dwarf64 ? 8 : 4);

	while ((e->off - body) % 8)
		put_u8(e, 0);  /* DW_CFA_nop */
	if (dwarf64) {
		uint64_t n = e->off - body;

		memcpy(e->base + len_at, &n, 8);
	} else {
		uint32_t n = (uint32_t)(e->off - body);

		memcpy(e->base + len_at, &n, 4);
	}
}

/* Lay out hdr (at img) + CIE + NFUNC FDEs as sp says; returns the FDE
   addresses through fde[] and opens the table over the whole image. */
static int build(const struct spec *sp, struct ehframe_table *t, uint64_t fde[NFUNC])
{
	struct emit e = { img, EH_FRAME_OFF };
	uint64_t hdr = (uint64_t)(uintptr_t)img, cie;
	uint8_t fde_enc = sp->empty_aug ? EH_PE_ABSPTR : sp->fde_enc;
	size_t rec;

	memset(img, 0, sizeof(img));
	/* CIE */
	cie = here(&e);
	rec = begin_record(&e, sp->dwarf64);
	if (sp->dwarf64)
		put_u64(&e, 0);
	else
		put_u32(&e, 0);
	put_u8(&e, sp->version);
	if (sp->empty_aug)
		put_u8(&e, 0);
	else if (sp->personality)
		put(&e, "zPLR", 5);
	else
		put(&e, "zR", 3);
	put_uleb(&e, 1);      /* code alignment */
	put_sleb(&e, -8);     /* data alignment */
	if (sp->version == 1)
		put_u8(&e, 16);   /* return address column */
	else
		put_uleb(&e, 16);
	if (!sp->empty_aug) {
		uint8_t aug[32];
		struct emit a = { aug, 0 };

		if (sp->personality) {
			put_u8(&a, sp->penc);
			put_enc(&a, sp->penc & 0x0f, 0x123456789aull, 0);
			put_u8(&a, EH_PE_PCREL | EH_PE_SDATA4);
		}
		put_u8(&a, fde_enc);
		put_uleb(&e, a.off);
		put(&e, aug, a.off);
	}
	put_u8(&e, 0x0c);     /* DW_CFA_def_cfa r7 + 8 */
	put_uleb(&e, 7);
	put_uleb(&e, 8);
	end_record(&e, rec, sp->dwarf64);

	/* FDEs, written in reverse address order: the table sorts, not the
	   .eh_frame order. */
	for (int i = NFUNC - 1; i >= 0; i--) {
		uint64_t id_at;

		fde[i] = here(&e);
		rec = begin_record(&e, sp->dwarf64);
		id_at = here(&e);
		if (sp->dwarf64)
			put_u64(&e, id_at - cie);
		else
			put_u32(&e, (uint32_t)(id_at - cie));
		put_enc(&e, fde_enc, fn_start(i), 0);
		put_enc(&e, fde_enc & 0x0f, fn_range(i), 0);
		if (!sp->empty_aug)
			put_uleb(&e, 0);  /* augmentation data length */
		end_record(&e, rec, sp->dwarf64);
	}
	put_u32(&e, 0);  /* .eh_frame terminator */

	/* .eh_frame_hdr */
	e.off = 0;
	put_u8(&e, 1);
	put_u8(&e, EH_PE_PCREL | EH_PE_SDATA4);
	put_u8(&e, EH_PE_UDATA4);
	put_u8(&e, sp->table_enc);
	put_enc(&e, EH_PE_PCREL | EH_PE_SDATA4, cie, hdr);
	put_u32(&e, NFUNC);
	for (int i = 0; i < NFUNC; i++) {
		put_enc(&e, sp->table_enc, fn_start(i), hdr);
		put_enc(&e, sp->table_enc, fde[i], hdr);
	}
	return ehframe__open(t, hdr, hdr, hdr + sizeof(img));
}

static void check_lookups(const struct spec *sp, const struct ehframe_table *t)
{
	uint64_t s = 0, e = 0;

	for (int i = 0; i < NFUNC; i++) {
		bool ok = ehframe__lookup(t, fn_start(i), &s, &e);

		CHECK_MSG(ok && s == fn_start(i) && e == fn_start(i) + fn_range(i),
		          "%s: function %d start", sp->name, i);
		ok = ehframe__lookup(t, fn_start(i) + fn_range(i) - 1, &s, &e);
		CHECK_MSG(ok && s == fn_start(i) && e == fn_start(i) + fn_range(i),
		          "%s: function %d last byte", sp->name, i);
		CHECK_MSG(!ehframe__lookup(t, fn_start(i) + fn_range(i), &s, &e),
		          "%s: gap after function %d", sp->name, i);
	}
	CHECK_MSG(!ehframe__lookup(t, fn_start(0) - 1, &s, &e), "%s: before the first", sp->name);
	CHECK_MSG(!ehframe__lookup(t, 0, &s, &e), "%s: address 0", sp->name);
	CHECK_MSG(!ehframe__lookup(t, UINT64_MAX, &s, &e), "%s: top address", sp->name);
}

static const uint8_t DATAREL_SDATA4 = EH_PE_DATAREL | EH_PE_SDATA4;
static const uint8_t PCREL_SDATA4 = EH_PE_PCREL | EH_PE_SDATA4;

static void good_tables(void)
{
	const struct spec specs[] = {
		{ "datarel|sdata4, zR pcrel|sdata4 (gcc)", DATAREL_SDATA4, PCREL_SDATA4, false, false, 0, false, 1 },
		{ "datarel|udata4", EH_PE_DATAREL | EH_PE_UDATA4, PCREL_SDATA4, false, false, 0, false, 1 },
		{ "datarel|sdata8", EH_PE_DATAREL | EH_PE_SDATA8, PCREL_SDATA4, false, false, 0, false, 1 },
		{ "datarel|udata8", EH_PE_DATAREL | EH_PE_UDATA8, PCREL_SDATA4, false, false, 0, false, 1 },
		{ "pcrel|sdata4 table", PCREL_SDATA4, PCREL_SDATA4, false, false, 0, false, 1 },
		{ "pcrel|sdata8 table", EH_PE_PCREL | EH_PE_SDATA8, PCREL_SDATA4, false, false, 0, false, 1 },
		{ "FDE pcrel|sdata8", DATAREL_SDATA4, EH_PE_PCREL | EH_PE_SDATA8, false, false, 0, false, 1 },
		{ "FDE udata8 absolute", DATAREL_SDATA4, EH_PE_UDATA8, false, false, 0, false, 1 },
		{ "FDE udata4 pcrel", DATAREL_SDATA4, EH_PE_PCREL | EH_PE_UDATA4, false, false, 0, false, 1 },
		{ "no augmentation: absptr FDEs", DATAREL_SDATA4, 0, true, false, 0, false, 1 },
		{ "zPLR, personality uleb128", DATAREL_SDATA4, PCREL_SDATA4, false, true, EH_PE_ULEB128, false, 1 },
		{ "zPLR, personality indirect pcrel sdata4", DATAREL_SDATA4, PCREL_SDATA4, false, true,
		  EH_PE_INDIRECT | EH_PE_PCREL | EH_PE_SDATA4, false, 1 },
		{ "zPLR, personality udata8", DATAREL_SDATA4, PCREL_SDATA4, false, true, EH_PE_UDATA8, false, 1 },
		{ "zPLR, personality udata2", DATAREL_SDATA4, PCREL_SDATA4, false, true, EH_PE_UDATA2, false, 1 },
		{ "zPLR, personality sleb128", DATAREL_SDATA4, PCREL_SDATA4, false, true, EH_PE_SLEB128, false, 1 },
		{ "CIE version 3", DATAREL_SDATA4, PCREL_SDATA4, false, false, 0, false, 3 },
		{ "64-bit DWARF records", DATAREL_SDATA4, PCREL_SDATA4, false, true, EH_PE_ULEB128, true, 3 },
	};

	for (size_t k = 0; k < sizeof(specs) / sizeof(specs[0]); k++) {
		struct ehframe_table t;
		uint64_t fde[NFUNC];
		int err = build(&specs[k], &t, fde);

		CHECK_MSG(err == 0, "%s: open %d", specs[k].name, err);
		if (err == 0)
			check_lookups(&specs[k], &t);
	}
}

static void refused_tables(void)
{
	const struct {
		const char *name;
		uint8_t table_enc;
		int err;
	} bad[] = {
		{ "absptr table", EH_PE_UDATA4, -ENOTSUP },
		{ "textrel table", EH_PE_TEXTREL | EH_PE_SDATA4, -ENOTSUP },
		{ "indirect table", EH_PE_INDIRECT | DATAREL_SDATA4, -ENOTSUP },
		{ "2-byte table", EH_PE_DATAREL | EH_PE_SDATA2, -ENOTSUP },
		{ "uleb128 table", EH_PE_DATAREL | EH_PE_ULEB128, -ENOTSUP },
		{ "no table", EH_PE_OMIT, -ENOENT },
	};
	struct spec sp = { "refused", 0, PCREL_SDATA4, false, false, 0, false, 1 };
	struct ehframe_table t;
	uint64_t fde[NFUNC], hdr = (uint64_t)(uintptr_t)img;

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		int err;

		sp.table_enc = bad[k].table_enc;
		err = build(&sp, &t, fde);
		CHECK_MSG(err == bad[k].err, "%s: %d", bad[k].name, err);
	}

	sp.table_enc = DATAREL_SDATA4;
	CHECK_EQ_U64(build(&sp, &t, fde), 0);
	img[0] = 2;  /* version */
	CHECK_EQ_U64(ehframe__open(&t, hdr, hdr, hdr + sizeof(img)), (uint64_t)-EINVAL);
	img[0] = 1;
	memset(img + 8, 0, 4);  /* fde_count 0 */
	CHECK_EQ_U64(ehframe__open(&t, hdr, hdr, hdr + sizeof(img)), (uint64_t)-ENOENT);
	CHECK_EQ_U64(build(&sp, &t, fde), 0);
	/* the table does not fit in the readable range */
	CHECK_EQ_U64(ehframe__open(&t, hdr, hdr, hdr + 12 + 8 * NFUNC - 1), (uint64_t)-EINVAL);
	CHECK_EQ_U64(ehframe__open(&t, hdr, hdr, hdr + 3), (uint64_t)-EINVAL);
}

static void damaged_tables(void)
{
	struct spec sp = { "damaged", DATAREL_SDATA4, PCREL_SDATA4, false, false, 0, false, 1 };
	struct ehframe_table t;
	uint64_t fde[NFUNC], s, e;
	uint8_t *entry2 = img + 12 + 8 * 2;  /* table pair of function 2 */
	int32_t v;

	/* The FDE lies outside the readable range: refused, not read. */
	CHECK_EQ_U64(build(&sp, &t, fde), 0);
	t.hi = fde[2];
	CHECK(!ehframe__lookup(&t, fn_start(2), &s, &e));
	CHECK(ehframe__lookup(&t, fn_start(4), &s, &e) && s == fn_start(4));  /* below it */

	/* A table pair pointing far away (but the table itself is fine). */
	CHECK_EQ_U64(build(&sp, &t, fde), 0);
	v = 0x7fff0000;
	memcpy(entry2 + 4, &v, 4);
	CHECK(!ehframe__lookup(&t, fn_start(2), &s, &e));
	CHECK(ehframe__lookup(&t, fn_start(3), &s, &e) && s == fn_start(3));

	/* The table's initial location disagrees with the FDE's. */
	CHECK_EQ_U64(build(&sp, &t, fde), 0);
	memcpy(&v, entry2, 4);
	v -= 0x40;
	memcpy(entry2, &v, 4);
	CHECK(!ehframe__lookup(&t, fn_start(2), &s, &e));

	/* The FDE's CIE pointer reaches before the image. */
	CHECK_EQ_U64(build(&sp, &t, fde), 0);
	v = 0x7ffffff0;
	memcpy((uint8_t *)(uintptr_t)fde[2] + 4, &v, 4);
	CHECK(!ehframe__lookup(&t, fn_start(2), &s, &e));

	/* The FDE's CIE pointer points at another FDE (nonzero CIE id). */
	CHECK_EQ_U64(build(&sp, &t, fde), 0);
	v = (int32_t)(fde[2] + 4 - fde[3]);
	memcpy((uint8_t *)(uintptr_t)fde[2] + 4, &v, 4);
	CHECK(!ehframe__lookup(&t, fn_start(2), &s, &e));

	/* A record length running past the range. */
	CHECK_EQ_U64(build(&sp, &t, fde), 0);
	v = 0x7ffffff0;
	memcpy((uint8_t *)(uintptr_t)fde[1], &v, 4);
	CHECK(!ehframe__lookup(&t, fn_start(1), &s, &e));

	/* An unknown augmentation letter before 'R'. */
	CHECK_EQ_U64(build(&sp, &t, fde), 0);
	CHECK(memcmp(img + EH_FRAME_OFF + 9, "zR", 3) == 0);
	img[EH_FRAME_OFF + 10] = 'X';
	CHECK(!ehframe__lookup(&t, fn_start(0), &s, &e));
}

int main(void)
{
	good_tables();
	refused_tables();
	damaged_tables();
	return hc_test_done("test_ehframe");
}
