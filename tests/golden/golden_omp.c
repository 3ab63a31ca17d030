/* SPDX-License-Identifier: BSD-3-Clause */
/* golden_omp.c — golden program (C, OpenMP, -O2 -fopenmp): two parallel
   regions of one function, per-thread partial sums in a heap array and in a
   static array. The regions must read "reduce [parallel region at
   golden_omp.c:LINE]". The expected names are in golden_omp.expected. Test
   code only. */
#include <omp.h>
#include <stdlib.h>

#include "probe.h"

double acc[8];

__attribute__((noinline)) static void reduce(int n)
{
	double *part = malloc(8 * sizeof(double));

#pragma omp parallel num_threads(2)
	{
		int me = omp_get_thread_num();
		probe_comm(&part[me], 8, &part[1 - me], 8, 0);
		probe_sink = me;
	}
#pragma omp parallel num_threads(2)
	{
		int me = omp_get_thread_num();
		probe_comm(&acc[me], 8, &acc[1 - me], 8, n & 1);
		probe_sink = me;
	}
	free(part);
}

int main(void)
{
	probe_arm();
	reduce(2);
	probe_finish();
	return 0;
}
