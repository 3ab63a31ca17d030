/* SPDX-License-Identifier: BSD-3-Clause */
/* static_hello.c — linked with -static for the life-cycle test: a program
   exec'd by a measured one that LD_PRELOAD cannot reach. It must run,
   unmeasured, with its output and exit status intact. */
#include <stdio.h>

int main(void)
{
	printf("static hello\n");
	return 7;
}
