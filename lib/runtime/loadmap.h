/* SPDX-License-Identifier: BSD-3-Clause */
/* loadmap.h — the runtime's one view of the load map (loadmap.c): the
   modules the profiles record, this library's own mapped range, the static
   TLS size, and the code modules lib/decode's function table is built from.
   loadmap__refresh walks (outside signal context); everything else reads
   published snapshots and is async-signal-safe. Self-contained (no rt.h), so
   tests link loadmap.c on its own. */
#ifndef HC_RT_LOADMAP_H
#define HC_RT_LOADMAP_H

#include <stdbool.h>
#include <stdint.h>
#include "hc/profile.h"

#define LOADMAP_MAX_MODULES 4096
#define LOADMAP_MAX_RO 1024

/* One walk of dl_iterate_phdr, everything derived from it published:
   the profile module list, the static TLS size (first walk only: static TLS
   never grows) and lib/decode's function table (hc_funcs_update). Outside
   signal context only (takes a lock, may allocate in lib/decode): at start,
   after dlopen/dlclose, at exit. 0, or -ENOMEM (the previous snapshots stay
   published). */
int loadmap__refresh(void);

/* A fork child: forget a refresh that another thread of the parent may
   have been in (the lock). */
void loadmap__atfork_child(void);

/* The last published module list (*n entries), NULL before the first
   refresh. Async-signal-safe; the array stays valid across one later
   refresh. */
const struct hc_prof_module *loadmap__modules(uint32_t *n);

/* Is addr in a module's read-only data (a PT_LOAD segment without write
   permission: code, .rodata, or its PT_GNU_RELRO part: the GOT after
   relocation)? No other thread can write there, so an access to it never
   communicates: the soft sampler neither publishes nor watches it.
   Async-signal-safe (the last published snapshot). */
bool loadmap__readonly(uint64_t addr);
/* Is pc in the code of a system library: a module loaded from the
   system's library directories (/lib, /lib64, /usr/lib, /usr/lib64, with
   their subdirectories: libc, libgomp, libstdc++...)? Code compiled by the
   program's own build (its executable, its libraries elsewhere) is not.
   Exact mode instruments only the latter, and a report's code pairs name
   it; the soft sampler arms no return burst into system code (soft.c
   maybe_ret_bp). Async-signal-safe (the last published snapshot). */
bool loadmap__system_code(uint64_t pc);
/* Is addr in the image (any PT_LOAD segment, .data and .bss included) of
   such a library: its own variables (libc's malloc arena, memcpy's
   tunables, libgomp's globals)? Async-signal-safe. */
bool loadmap__system_data(uint64_t addr);
/* The rule on a module's path (pure; for the tests). */
bool loadmap__system_path(const char *path);
#define LOADMAP_MAX_SYS 256
/* Bytes of static TLS of every module loaded at start (thread.c's TLS
   range: it lies just below the thread pointer). */
uint64_t loadmap__static_tls_size(void);

/* This library's mapped range, from its own program headers (no walk):
   loadmap__self_init runs in the first constructor that needs it and is
   idempotent; 0 before. A sample or trap whose PC is in it interrupted the
   runtime's own code — the allocation wrappers' hit paths run there without
   the guard — and is refused like one under the guard. */
void loadmap__self_init(void);
/* From the first walk (0 before it): the dynamic loader's mapped range, and
   the DTV slots the runtime's modules add to every thread's DTV (modules
   with TLS loaded at start that the program does not load natively). */
extern uint64_t loadmap__ldso_lo, loadmap__ldso_len;
extern uint32_t loadmap__dtv_extra;
extern uint64_t loadmap__self_lo, loadmap__self_len;
/* From the first walk: the mapped ranges of the modules loaded at start
   that only the runtime needs (the program does not load them natively:
   libunwind, Zydis, zlib... when the program itself does not link them),
   at most LOADMAP_PRIVATE_MAX; n = 0 before the walk. A PMU record whose
   IP or data address lies in one is the runtime's own access, whatever
   thread state it was taken in (sampler/pmu.c). Async-signal-safe. */
#define LOADMAP_PRIVATE_MAX 6
struct loadmap_range { uint64_t lo, hi; };
uint32_t loadmap__private(struct loadmap_range *out, uint32_t max);
static inline bool loadmap__pc_in_self(uint64_t pc)
{
	return pc - loadmap__self_lo < loadmap__self_len;
}

#endif
