/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_prof.h — the profile reader's fuzz target, shared by the libFuzzer
   build (see README.md) and the corpus replay run by make check. */
#ifndef HC_FUZZ_PROF_H
#define HC_FUZZ_PROF_H

#include <stddef.h>
#include <stdint.h>

#include "fuzz/fuzz_target.h"   /* LLVMFuzzerTestOneInput: as is, and re-sealed */

/* Re-seal a copy of an input: set the END record's total length and CRC so
   that a mutated input reaches the structural and semantic checks. */
void fuzz_prof_reseal(uint8_t *data, size_t size);

#endif
