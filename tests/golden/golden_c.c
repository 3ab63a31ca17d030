/* SPDX-License-Identifier: BSD-3-Clause */
/* golden_c.c — golden program (C, built -O2 -no-pie): a heap array of
   per-thread structs allocated through a header wrapper into a global
   (tid_args = CALLOC(...)), a buffer hit by an 8-byte store and a 32-byte
   memset at the same offset, a static array of structs, a __thread array of
   the main thread written by the worker, an access in memset's PLT stub,
   and main's local array slots[2] of struct stat_s false-shared by the two
   threads (main's frame recorded as the runtime does: PROBE_FRAME).
   The expected names are in golden_c.expected. Test code only. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "golden_wrap.h"
#include "probe.h"

typedef struct {
	long num_elems;
	double SX, SY, SXX;
} lreg_args;

struct stat_s {
	long hits, misses;
};

struct stat_s stats[4];
__thread long counter[4];
static lreg_args *tid_args;
static char *buf;
static long *main_counter;
static struct stat_s *main_slots;

__attribute__((noinline)) static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;

	probe_comm(&tid_args[me].SX, 8, &tid_args[1 - me].SY, 8, 0);
	probe_comm(&stats[me].hits, 8, &stats[1 - me].misses, 8, 0);
	probe_comm(buf, 8, buf, 32, 1);
	if (me == 1)
		probe_comm(&main_counter[2], 8, &main_counter[2], 8, 1);
	probe_comm_at((const char *)(uintptr_t)memset + 4, buf + 16, 8, buf, 32, 1);
	probe_comm(&main_slots[me].hits, 8, &main_slots[1 - me].misses, 8, 0);
	probe_sink = me;
	return NULL;
}

int main(void)
{
	struct stat_s slots[2];
	pthread_t t;

	memset(slots, 0, sizeof(slots));
	main_slots = slots;
	probe_arm();
	main_counter = counter;
	tid_args = (lreg_args *)CALLOC(sizeof(lreg_args), 2);
	buf = malloc(64);
	pthread_create(&t, NULL, worker, (void *)1);
	worker((void *)0);
	PROBE_FRAME();
	pthread_join(t, NULL);
	probe_sink = (int)slots[0].hits;
	probe_finish();
	free(buf);
	free(tid_args);
	return 0;
}
