/* SPDX-License-Identifier: BSD-3-Clause */
/* walk_fault.c — makes the runtime's own stack walk fault, for
   tests/integration/debug_faults.sh. Thread "spin" loops at one PC and one
   stack pointer, storing to a global (so every sample unwinds, and after
   the first the unwind cache validates its hit by reading the return
   address in the spinning frame). Meanwhile thread "toggle" makes that
   stack page unreadable (PROT_NONE) for a while and then readable again:
   samples taken in between fault in the walk's read. The spinning loop
   itself touches no stack, so the program runs the same natively. The
   frame is kept pages below the thread's stack top, away from its TLS.
   The program's own SIGSEGV handler must never see the runtime's faults
   (it exits 3). Prints one line; exit 0. */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t sink;
static volatile int phase;          /* 0 warm, 1 protected, 2 done */
static volatile uintptr_t frame_page;
static volatile int spinning;

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void spin(void)
{
	uintptr_t ret_slot = (uintptr_t)__builtin_frame_address(0) + 8;

	frame_page = ret_slot & ~(uintptr_t)4095;
	spinning = 1;
	/* Registers and one global only until phase 2. */
	__asm__ volatile(
		"1: incq sink(%%rip)\n"
		"   cmpl $2, phase(%%rip)\n"
		"   jne 1b\n"
		::: "memory", "cc");
}

__attribute__((noinline)) static void deep(int n)
{
	volatile char pad[4096];

	pad[0] = (char)n;
	if (n > 0)
		deep(n - 1);
	else
		spin();
	pad[1] = pad[0];
}

static void *spinner(void *arg)
{
	(void)arg;
	deep(4);
	return NULL;
}

static void on_segv(int sig)
{
	static const char msg[] = "walk_fault: the program's SIGSEGV handler ran\n";

	(void)sig;
	write(1, msg, sizeof msg - 1);
	_exit(3);
}

int main(void)
{
	pthread_t t;

	signal(SIGSEGV, on_segv);
	pthread_create(&t, NULL, spinner, NULL);
	while (!spinning)
		sleep_ms(1);
	sleep_ms(100);                  /* warm: unwound, cached */
	mprotect((void *)frame_page, 4096, PROT_NONE);
	phase = 1;
	sleep_ms(400);                  /* samples here fault in the walk */
	mprotect((void *)frame_page, 4096, PROT_READ | PROT_WRITE);
	phase = 2;
	pthread_join(t, NULL);
	printf("walk_fault: done\n");
	return 0;
}
