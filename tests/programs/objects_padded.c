/* SPDX-License-Identifier: BSD-3-Clause */
/* objects_padded.c — objects_heap with every counter on its own 64-byte
   line: the same block and allocation context, no false sharing. */
#define PAD 64
#include "objects_heap.c"
