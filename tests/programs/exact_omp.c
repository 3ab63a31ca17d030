/* SPDX-License-Identifier: BSD-3-Clause */
/* exact_omp.c — an OpenMP program for the exact-mode wrapper test: a
   parallel for with a reduction and an atomic update. Prints the sums:
   sum of 0..99999 = 4999950000, and the atomic count 100000. */
#include <stdio.h>

static long a[100000];

int main(void)
{
	long sum = 0, count = 0;

#pragma omp parallel for reduction(+ : sum)
	for (long i = 0; i < 100000; i++) {
		a[i] = i;
		sum += a[i];
	}
#pragma omp parallel for
	for (long i = 0; i < 100000; i++) {
#pragma omp atomic
		count++;
	}
	printf("sum %ld count %ld\n", sum, count);
	return sum == 4999950000L && count == 100000 ? 0 : 1;
}
