/* SPDX-License-Identifier: BSD-3-Clause */
/* work.c — the private work of the accuracy suite's pattern programs: a few
   dozen floating-point operations on a buffer the calling thread owns (its
   stack). It lives in its own translation unit on purpose: a call into it is
   opaque to the optimizer, like a call into any other file or library, so
   the shared stores before it and the shared loads after it stay in the
   program at -O2. No communication happens here. */
#include "acc_prog.h"

double acc_work(double *buf, int n, int rounds)
{
	double s = 0;

	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < n; i++) {
			buf[i] = buf[i] * 0.999 + (double)(i + r) * 0.5;
			s += buf[i];
		}
	return s;
}
