/* SPDX-License-Identifier: BSD-3-Clause */
/* probe.h — the recorder linked into the golden programs (probe.c). A
   golden program runs without the runtime and writes, to $GOLDEN_OUT, what a
   measurement of it would hold at exactly the places it chooses: every heap
   block it allocates with the allocating call path (return addresses, as the
   runtime's allocation contexts), each thread's stack and static TLS range,
   the communications it declares with probe_comm (both data addresses and
   the detecting call path), and its load map. golden_run turns that into
   profiles with the real profile writer, so the analyzer's names, object
   names and field paths are checked deterministically, without sampling.
   Test code only. */
#ifndef HC_GOLDEN_PROBE_H
#define HC_GOLDEN_PROBE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Start recording allocations (before, only threads and the map are kept). */
void probe_arm(void);
/* A communication detected by the calling thread: its access (mine, len)
   met the other thread's earlier access (peer, plen); tru: overlapping
   bytes. The calling context is the caller's call path. */
void probe_comm(const void *mine, size_t len, const void *peer, size_t plen, int tru);
/* The same with the accessing instruction at pc (a leaf: e.g. a PLT stub). */
void probe_comm_at(const void *pc, const void *mine, size_t len, const void *peer,
                   size_t plen, int tru);
/* A stack frame of the calling function, as the runtime records one
   (doc/objects.md "Stack locals"): its CFA, its stack pointer at this call
   (probe_frame's own CFA) and its call path. Use PROBE_FRAME(). */
void probe_frame(const void *cfa);
#define PROBE_FRAME() probe_frame(__builtin_dwarf_cfa())
/* Stores to this after probe_comm keep the call from becoming a tail call
   (whose return address would lie in the caller's caller). */
extern volatile int probe_sink;
/* Write the load map and close $GOLDEN_OUT. */
void probe_finish(void);

#ifdef __cplusplus
}
#endif

#endif
