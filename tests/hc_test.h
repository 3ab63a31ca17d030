/* SPDX-License-Identifier: BSD-3-Clause */
/* hc_test.h — the few assertion macros the C unit tests share. A test program
   is one automake test: it exits 0 when every check held, 1 otherwise, and 77
   (automake's SKIP) when the machine cannot run it — never a silent pass. */
#ifndef HC_TEST_H
#define HC_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hc_test_failures;
static int hc_test_checks;

#define CHECK(cond) do { \
	hc_test_checks++; \
	if (!(cond)) { hc_test_failures++; \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); } \
} while (0)

#define CHECK_MSG(cond, ...) do { \
	hc_test_checks++; \
	if (!(cond)) { hc_test_failures++; \
		fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } \
} while (0)

#define CHECK_EQ_U64(a, b) do { \
	uint64_t hc_a_ = (uint64_t)(a), hc_b_ = (uint64_t)(b); \
	hc_test_checks++; \
	if (hc_a_ != hc_b_) { hc_test_failures++; \
		fprintf(stderr, "%s:%d: %s == %s failed: 0x%" PRIx64 " != 0x%" PRIx64 "\n", \
		        __FILE__, __LINE__, #a, #b, hc_a_, hc_b_); } \
} while (0)

#define CHECK_STR(a, b) do { \
	const char *hc_a_ = (a), *hc_b_ = (b); \
	hc_test_checks++; \
	if (!hc_a_ || !hc_b_ || strcmp(hc_a_, hc_b_) != 0) { hc_test_failures++; \
		fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, \
		        #a, #b, hc_a_ ? hc_a_ : "(null)", hc_b_ ? hc_b_ : "(null)"); } \
} while (0)

#define SKIP(...) do { fprintf(stderr, "SKIP: " __VA_ARGS__); fputc('\n', stderr); exit(77); } while (0)

static inline int hc_test_done(const char *name)
{
	fprintf(stderr, "%s: %d checks, %d failed\n", name, hc_test_checks, hc_test_failures);
	return hc_test_failures ? 1 : 0;
}

#endif
