/* SPDX-License-Identifier: BSD-3-Clause */
/* fs_fields.c — holdout set (README): threads 2k and 2k+1 `+=` the two int
   fields of one 8-byte struct of a static array (a branch picks the field),
   then ~20 rounds of arithmetic inline; notes at the end. */
#include "holdout.h"

struct fields {
	int a;
	int b;
};

static struct fields f[ACC_MAXT / 2 + 1];      /* 8 bytes each: 8 to a line */
static long iters;

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	struct fields *p = &f[me / 2];

	for (long i = 0; i < iters; i++) {
		double x = (double)i;

		if (me & 1)
			p->b += (int)i;
		else
			p->a += (int)i;
		for (int k = 0; k < 20; k++)            /* the work, inline */
			x = x * 1.0000001 + 0.5;
		if (x < 0)                              /* never: keeps the work */
			p->a = 0;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "pairwise += on the adjacent int fields of a static struct");
	pthread_t t[ACC_MAXT];
	long sum = 0;

	iters = acc_iters(a, 24000000 / a.threads);
	for (int i = 0; i < a.threads; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (int i = 0; i < a.threads; i++)
		acc_join(t[i]);
	for (int k = 0; k <= a.threads / 2; k++)
		sum += f[k].a + f[k].b;
	printf("fs_fields threads=%d iters=%ld sum=%ld\n", a.threads, iters, sum);
	return 0;
}

/* Notes. The owner-style pairwise program (written in session 18 as
   /tmp/rel18/own/fs_fields.c, lost with that machine, recreated in session
   24 from doc/accuracy.md "Session 18" and detection.md §5.33, §5.34; the
   suite's fs_inline.c is the same pattern with each pair on its own line).
   At -O2 the `+=` is a memory add right before a register-only loop,
   reached through an if/else merge. Designed communication: false sharing
   only; the structs are not padded, so at -t 4 all four threads' fields
   share one line (every pair of threads 1..4, the pair cells (1,2), (3,4)
   the fields of one struct); the top false-sharing object is `f`. */
