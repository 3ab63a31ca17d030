/* SPDX-License-Identifier: BSD-3-Clause */
/* symexec.c — helper for test_analysis_symbols: built as a non-PIE (ET_EXEC)
   executable with -g -O2. It prints, on one line: its own path is implied;
   the return address of a call made from code inlined into exec_outer, the
   source line of that call, the line where the inlined function is called,
   the address of exec_outer and the line of exec_outer's definition. An
   ET_EXEC has load bias 0, so these absolute addresses are what the runtime
   records as offsets. Test code only. */
#include <stdio.h>

static volatile int sink;

__attribute__((noinline)) static void *exec_leaf(void)
{
	void *r = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
	return r;
}

enum { EXEC_CALL_LINE = __LINE__ + 4 };
static inline __attribute__((always_inline)) void *exec_inlined(void)
{
	void *r;
	r = exec_leaf();
	sink++;
	return r;
}

enum { EXEC_OUTER_LINE = __LINE__ + 1, EXEC_INLINE_LINE = __LINE__ + 4 };
__attribute__((noinline)) void *exec_outer(void);
__attribute__((noinline)) void *exec_outer(void)
{
	void *r = exec_inlined();
	sink++;
	return r;
}

int main(void)
{
	void *ret = exec_outer();

	printf("%p %d %d %p %d\n", ret, EXEC_CALL_LINE, EXEC_INLINE_LINE, (void *)exec_outer,
	       EXEC_OUTER_LINE + 1);
	return 0;
}
