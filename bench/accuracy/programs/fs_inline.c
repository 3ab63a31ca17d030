/* SPDX-License-Identifier: BSD-3-Clause */
/* fs_inline.c — pairwise false sharing on adjacent int fields with the
   work inlined: pair k owns pairs[k] (one 64-byte line); worker 2k adds
   into pairs[k].left, worker 2k+1 into pairs[k].right, with a plain `+=`
   chosen by a branch in the loop, then ~20 rounds of register-only
   arithmetic in the same function (no call). The style of issue 14's
   owner's own programs as helper rel18 wrote them (doc/accuracy.md,
   "Session 18"), unlike fs_pairs.c, whose work is a call into another
   file: at -O2 the `+=` is a memory add (`add %edx,4(%rcx)`) right
   before a register-only loop, reached through an if/else merge, and a
   timer sample lands in the loop, where nothing walks back to the store.
   Designed communication: false sharing only, in the pair cells
   (2k+1, 2k+2) (thread indexes; the main thread creates and joins); the
   top false-sharing object is `pairs`, fields left / right. An odd last
   worker updates a line of its own. */
#include "acc_prog.h"

struct pair {
	int left;
	int right;
} __attribute__((aligned(64)));

static struct pair pairs[ACC_MAXT / 2 + 1];
static long iters;

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	struct pair *p = &pairs[me / 2];

	for (long i = 0; i < iters; i++) {
		double x = (double)i;

		if (me & 1)
			p->right += (int)i;
		else
			p->left += (int)i;
		for (int k = 0; k < 20; k++)            /* private work, inlined */
			x = x * 1.0000001 + 0.5;
		if (x < 0)                              /* never: keeps the work */
			p->left = 0;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct acc_args a = acc_parse(argc, argv, "pairwise false sharing on adjacent int fields, work inlined");
	pthread_t t[ACC_MAXT];
	long sum = 0;

	iters = acc_iters(a, 24000000 / a.threads);
	for (int i = 0; i < a.threads; i++)
		acc_start(&t[i], worker, (void *)(long)i);
	for (int i = 0; i < a.threads; i++)
		acc_join(t[i]);
	for (int k = 0; k <= a.threads / 2; k++)
		sum += pairs[k].left + pairs[k].right;
	printf("fs_inline threads=%d iters=%ld sum=%ld\n", a.threads, iters, sum);
	return 0;
}
