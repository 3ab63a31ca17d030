/* SPDX-License-Identifier: BSD-3-Clause */
/* handler_path.c — the pure part of the soft sampler's per-sample work, run
   in a loop on a synthetic sample, so that it can be timed without the
   timer's noise and run under valgrind/callgrind (which cannot run the real
   runtime: the perf sigtrap lands inside valgrind's own code and kills it).
   The sample is `x = x + 1` interrupted right after its load, as timer skid
   leaves it: the PC is on the `add`, the previous instruction is the load
   through %rdi (doc/findings.md §4.2). Each iteration does what sampler__on_sample does
   with the pure modules: hc_decode_prev (with its per-thread cache), the
   read-modify-write look-ahead's decode of the store, and hc_detect_sample
   for two simulated threads taking turns on one BulletinBoard. What it
   leaves out lives in the runtime library (unwinding, CCT insertion, the
   event buffer, heap-object lookup) and in the kernel (timer interrupt,
   signal delivery), which the overhead benchmark measures as a whole.

   Usage: handler_path [ITERATIONS] [cold]   (default 200000; "cold" evicts
   the caches between samples by sweeping 32 MiB, as the application does
   between two samples 500 µs apart). Prints ns per call (median). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include "decode/decode.h"
#include "decode/funcstart.h"
#include "runtime/loadmap.h"
#include "detect/detect.h"

/* The sampled code, with an FDE so the forward walk finds its start. */
__asm__(".text\n"
        ".globl hp_rmw\n"
        ".type hp_rmw, @function\n"
        "hp_rmw:\n"
        ".cfi_startproc\n"
        "  mov (%rdi), %rax\n"
        ".globl hp_after_load\n"
        "hp_after_load:\n"
        "  add $1, %rax\n"
        ".globl hp_store\n"
        "hp_store:\n"
        "  mov %rax, (%rdi)\n"
        "  ret\n"
        ".cfi_endproc\n"
        ".size hp_rmw, .-hp_rmw\n");
void hp_rmw(volatile uint64_t *x);
extern const char hp_after_load[], hp_store[];

static volatile uint64_t line[8] __attribute__((aligned(64)));
static struct hc_prev_cache cache;
static uint8_t *sweep;

static uint64_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void evict(void)
{
	for (size_t i = 0; i < (32u << 20); i += 64)
		sweep[i]++;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 200000;
	int cold = argc > 2 && !strcmp(argv[2], "cold");
	static long long gregs[NGREG];
	struct hc_regs r = { .gregs = gregs };
	struct hc_detect_config cfg = { .period = 500000, .nwatch = 4, .probes = 8 };
	struct hc_detect_thread th[2];
	struct hc_bulletin bb;
	void *bbmem;
	uint64_t *t_prev = calloc((size_t)iters, 8), *t_st = calloc((size_t)iters, 8);
	uint64_t *t_det = calloc((size_t)iters, 8), comms = 0, recovered = 0, st_ea;
	struct hc_acc_recipe store_rec;
	int have_recipe = 0;

	if (iters < 1 || !t_prev || !t_st || !t_det) {
		fprintf(stderr, "usage: handler_path [ITERATIONS] [cold]\n");
		return 2;
	}
	if (hc_decode_init() < 0 || loadmap__refresh() < 0) {
		fprintf(stderr, "handler_path: decoder initialisation failed\n");
		return 1;
	}
	if (cold && !(sweep = calloc(32u << 20, 1)))
		return 1;
	bbmem = aligned_alloc(64, (hc_bulletin_size(HC_BB_DEFAULT_SLOTS) + 63) & ~(size_t)63);
	if (!bbmem)
		return 1;
	memset(bbmem, 0, hc_bulletin_size(HC_BB_DEFAULT_SLOTS));
	hc_bulletin_init(&bb, bbmem, HC_BB_DEFAULT_SLOTS, 2 * cfg.period);
	memset(th, 0, sizeof th);
	for (int k = 0; k < 2; k++) {
		th[k].thread = (uint32_t)k + 1;
		th[k].rng = 0x9E3779B97F4A7C15ull * (uint64_t)(k + 1);
	}
	hp_rmw(line);   /* the code runs, as a sampled loop's would */
	gregs[REG_RIP] = (long long)(uintptr_t)hp_after_load;
	gregs[REG_RDI] = (long long)(uintptr_t)line;

	for (long i = 0; i < iters; i++) {
		struct hc_insn in, st;
		struct hc_sample s;
		struct hc_detect_result res;
		struct hc_comm comm;
		uint64_t t0, t1, t2, t3;
		int k = (int)(i & 1);

		if (cold)
			evict();
		t0 = now();
		if (hc_decode_prev(&r, &cache, &in) == HC_PREV_OK)
			recovered++;
		t1 = now();
		/* as soft.c's store_follows: the store's write recipe is cached
		   after the first decode, then evaluated without decoding */
		if (have_recipe) {
			st.n = hc_recipe_ea(&store_rec, &r, &st_ea) && st_ea == (uint64_t)(uintptr_t)line;
		} else {
			struct hc_acc_recipe rec[HC_MAX_ACC];

			if (hc_decode_recipes((const uint8_t *)hp_store, 15, (uint64_t)(uintptr_t)hp_store,
			                      &r, &st, rec) == 0 && st.n == 1) {
				store_rec = rec[0];
				have_recipe = 1;
			}
		}
		t2 = now();
		s.time = 1000 + (uint64_t)i * 250000;   /* two threads, 500 µs each */
		s.addr = in.n ? in.acc[0].ea : (uint64_t)(uintptr_t)line;
		s.len = 8;
		s.is_store = st.n > 0;                  /* the look-ahead found the store */
		s.cpu = k;
		s.ctx = 1;
		hc_detect_sample(&bb, &cfg, &th[k], &s, &res, &comm);
		comms += res.comm;
		t3 = now();
		t_prev[i] = t1 - t0;
		t_st[i] = t2 - t1;
		t_det[i] = t3 - t2;
	}
	qsort(t_prev, (size_t)iters, 8, cmp);
	qsort(t_st, (size_t)iters, 8, cmp);
	qsort(t_det, (size_t)iters, 8, cmp);
	printf("handler_path: %ld samples, %s caches; recovered %llu, communications %llu\n", iters,
	       cold ? "cold (32 MiB swept between samples)" : "warm", (unsigned long long)recovered,
	       (unsigned long long)comms);
	printf("  hc_decode_prev (cached walk + recipe) median %4llu ns  p90 %5llu ns\n",
	       (unsigned long long)t_prev[iters / 2], (unsigned long long)t_prev[iters * 9 / 10]);
	printf("  RMW store (cached recipe)              median %4llu ns  p90 %5llu ns\n",
	       (unsigned long long)t_st[iters / 2], (unsigned long long)t_st[iters * 9 / 10]);
	printf("  hc_detect_sample                       median %4llu ns  p90 %5llu ns\n",
	       (unsigned long long)t_det[iters / 2], (unsigned long long)t_det[iters * 9 / 10]);
	printf("  (each figure includes one clock_gettime, ~20-30 ns)\n");
	return 0;
}
