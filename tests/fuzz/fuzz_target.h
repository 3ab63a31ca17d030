/* SPDX-License-Identifier: BSD-3-Clause */
/* fuzz_target.h — what every fuzz target of tests/fuzz provides, so that one
   file (fuzz_X.c) serves both as a libFuzzer target (built with clang by
   scripts/fuzz.sh) and, linked with replay.c, as the corpus replay test run by
   make check (test_fuzz_replay_X). No signal context. */
#ifndef HC_FUZZ_TARGET_H
#define HC_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* The name of the target: its corpus is tests/fuzz/corpus/<name>. */
extern const char fuzz_target_name[];

/* libFuzzer's entry point: feed one input to the reader (plus whatever
   variants the target derives from it); returns 0, a crash or a sanitizer
   report is the only failure. Aborts when the reader breaks its own contract
   (a rejection without a message naming the file). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Read the input once, as is: 0 when the reader accepts it, else the
   reader's negative errno with its message in err. For the replay's
   ok-* / bad-* expectations. */
int fuzz_target_check(const uint8_t *data, size_t size, char *err, size_t errsz);

#endif
