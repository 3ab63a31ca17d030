/* SPDX-License-Identifier: BSD-3-Clause */
/* funcstart.h — which function contains a PC, from the .eh_frame_hdr binary
   search tables already mapped in memory (every module built by GCC/Clang has
   one, stripped or not). hc_funcs_refresh() snapshots the module list with
   dl_iterate_phdr (outside signal context: at start and after dlopen);
   hc_funcs_lookup() is async-signal-safe and lock-free (readers see either
   the old or the new snapshot; old snapshots are never unmapped while a
   reader may hold them). */
#ifndef HC_FUNCSTART_H
#define HC_FUNCSTART_H

#include <stdbool.h>
#include <stdint.h>

int  hc_funcs_refresh(void);
/* [*start, *end) of the function (FDE range) containing pc; false if unknown. */
bool hc_funcs_lookup(uint64_t pc, uint64_t *start, uint64_t *end);

#endif
