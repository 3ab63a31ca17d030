/* SPDX-License-Identifier: BSD-3-Clause */
/* funcstart.h — which function contains a PC, from the .eh_frame_hdr binary
   search tables already mapped in memory (every module built by GCC/Clang has
   one, stripped or not). hc_funcs_update() takes the module list as plain
   data (the runtime's loadmap walks the load map; this module does not) and
   snapshots it (outside signal context: at start and after dlopen);
   hc_funcs_lookup() is async-signal-safe and lock-free (readers see either
   the old or the new snapshot; old snapshots are never unmapped while a
   reader may hold them: they are kept, on purpose, for the life of the
   process — a few KiB per refresh that changed the module list). */
#ifndef HC_FUNCSTART_H
#define HC_FUNCSTART_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* One loaded module, as its program headers describe it. */
struct hc_code_module {
	uint64_t lo, hi;          /* all PT_LOAD segments, [lo, hi): what may be read */
	uint64_t xlo, xhi;        /* the executable PT_LOAD span, [xlo, xhi) */
	uint64_t eh_frame_hdr;    /* address of PT_GNU_EH_FRAME's table */
};

/* Take a new snapshot of the modules m[0..n) whose .eh_frame_hdr table we
   can read (call at start and after every dlopen/dlclose with the whole
   load map; may allocate and take a mutex: never from a signal handler).
   Publishes a new snapshot, and a new generation, only when the module list
   changed. 0 or -ENOMEM. */
int  hc_funcs_update(const struct hc_code_module *m, size_t n);

/* [*start, *end) of the function (FDE range) containing pc; false if unknown
   (no snapshot yet, no module, no FDE, or an unsupported table encoding).
   Async-signal-safe, lock-free, no allocation. */
bool hc_funcs_lookup(uint64_t pc, uint64_t *start, uint64_t *end);

/* Generation of the current snapshot: 0 before the first refresh, then
   incremented whenever a refresh publishes a changed module list. Caches of
   lookup results (struct hc_prev_cache) tag entries with it.
   Async-signal-safe. */
uint32_t hc_funcs_generation(void);

#endif
