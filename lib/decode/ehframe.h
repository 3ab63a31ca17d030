/* SPDX-License-Identifier: BSD-3-Clause */
/* ehframe.h — reading one module's .eh_frame_hdr binary-search table and the
   FDE/CIE records it points to, in place, to find the function (FDE range)
   that contains a PC. Pure: no system calls, no allocation; every read is
   checked against the readable range given at open time, so a damaged table
   yields "unknown", never a stray read outside the module. ehframe__lookup
   runs in signal handlers (through hc_funcs_lookup). Internal to lib/decode;
   the unit tests feed it synthetic tables. */
#ifndef HC_DECODE_EHFRAME_H
#define HC_DECODE_EHFRAME_H

#include <stdbool.h>
#include <stdint.h>

/* DWARF pointer encodings (LSB Core, "DWARF Extensions": DW_EH_PE_*). */
#define EH_PE_ABSPTR  0x00
#define EH_PE_ULEB128 0x01
#define EH_PE_UDATA2  0x02
#define EH_PE_UDATA4  0x03
#define EH_PE_UDATA8  0x04
#define EH_PE_SLEB128 0x09
#define EH_PE_SDATA2  0x0a
#define EH_PE_SDATA4  0x0b
#define EH_PE_SDATA8  0x0c
#define EH_PE_PCREL   0x10
#define EH_PE_TEXTREL 0x20
#define EH_PE_DATAREL 0x30
#define EH_PE_FUNCREL 0x40
#define EH_PE_ALIGNED 0x50
#define EH_PE_INDIRECT 0x80
#define EH_PE_OMIT    0xff

/* An opened search table. Addresses are plain integers: the table is read
   where the loader mapped it. */
struct ehframe_table {
	uint64_t hdr;    /* address of .eh_frame_hdr (base of datarel values) */
	uint64_t table;  /* first (initial location, FDE address) pair */
	uint64_t count;  /* pairs, sorted by initial location */
	uint64_t lo, hi; /* every byte we read must lie in [lo, hi) */
	uint8_t  enc;    /* table encoding: datarel or pcrel, 4- or 8-byte */
	uint8_t  width;  /* bytes per table field: 4 or 8 */
};

/* Validate the header at hdr and fill t. 0; -EINVAL for a malformed header or
   a table that does not fit in [lo, hi); -ENOTSUP for a table encoding we do
   not read (absptr, textrel, indirect, 2-byte, LEB); -ENOENT when the header
   has no search table (omitted or empty). */
int ehframe__open(struct ehframe_table *t, uint64_t hdr, uint64_t lo, uint64_t hi);

/* [*start, *end) of the FDE that contains pc; false when no FDE does or the
   records are damaged. Async-signal-safe, lock-free, no allocation. */
bool ehframe__lookup(const struct ehframe_table *t, uint64_t pc,
                     uint64_t *start, uint64_t *end);

#endif
