/* SPDX-License-Identifier: BSD-3-Clause */
/* scenario.h — one synthetic measurement with known answers, shared by the
   analyzer tests: three processes on two hosts (one with a topology), eight
   threads (one known only as a peer), seven profiles, events whose matrix
   cells, code pairs and totals are computed by hand in test_analysis_merge.c.
   Test code only. */
#ifndef HC_TEST_SCENARIO_H
#define HC_TEST_SCENARIO_H

#include "fixture.h"

#define SC_HOST1 0x0a0b0c0du   /* has topology "pack:2 [numa] core:2 pu:1" */
#define SC_HOST2 0x11111111u   /* no topology */
#define SC_PERIOD 1000000u

/* Write the scenario's profiles and topology into dir; the profile paths go
   to paths[7] (malloc'd) when paths is not NULL, in the order A.T0, A.T1,
   A.T2, B.T0, B.T1, C.T0, C.T1. */
#define SC_NPROFILES 7
void sc_write(const char *dir, char **paths);

#endif
