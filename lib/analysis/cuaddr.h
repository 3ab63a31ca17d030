/* SPDX-License-Identifier: BSD-3-Clause */
/* cuaddr.h — which compilation unit holds an address, when libdw cannot
   say: dwarf_addrdie, dwfl_module_addrdie and dwfl_module_getsrc look the
   address up in .debug_aranges, and clang emits none unless built with
   -gdwarf-aranges (elfutils 0.188 does not fall back to the units'
   ranges): every clang -g binary had no source lines, functions or local
   variables in the reports. The table holds every unit's pc ranges (its
   DIE's DW_AT_low_pc/high_pc or DW_AT_ranges), sorted, built once per
   module on the first miss. Not signal context; one table per thread's
   module handle. */
#ifndef HC_ANALYSIS_CUADDR_H
#define HC_ANALYSIS_CUADDR_H

#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

struct cuaddr_range {
	uint64_t lo, hi;
	Dwarf_Die die;           /* the unit's DIE */
};

struct cuaddr_tab {
	struct cuaddr_range *r;  /* sorted by lo */
	size_t n;
	int state;               /* 0 not built, 1 built, -1 nothing to build */
};

/* The unit holding pc (an address in dw's own terms, without a module's
   bias), or NULL; builds the table on the first call. The pointer stays
   valid until cuaddr_free. */
Dwarf_Die *cuaddr_find(struct cuaddr_tab *t, Dwarf *dw, uint64_t pc);
void cuaddr_free(struct cuaddr_tab *t);

#endif
