/* SPDX-License-Identifier: BSD-3-Clause */
/* holdout.h — what the holdout programs (README) share: the suite's command
   line and helpers (../programs/acc_prog.h: THREADS [SCALE], acc_iters with
   -O0's 0.3, acc_start/acc_join), C11 atomics and sched_yield. One include
   line, so that the programs' key lines stay at the line numbers the docs
   quote (doc/detection.md §5.39-§5.58). Nothing here runs in signal
   context. */
#ifndef HOLDOUT_H
#define HOLDOUT_H

#include <sched.h>
#include <stdatomic.h>
#include "../programs/acc_prog.h"

/* a program that needs a master and a worker refuses one thread (exit 2) */
static inline void ho_min_threads(struct acc_args a, int min, const char *prog, const char *what)
{
	if (a.threads < min)
		acc_usage(prog, what);
}

#endif
