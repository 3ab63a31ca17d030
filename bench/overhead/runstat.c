/* SPDX-License-Identifier: BSD-3-Clause */
/* runstat.c — runs a command and appends one line "WALL USER SYS MAXRSS_KB
   NVCSW NIVCSW" (seconds with microsecond resolution, peak resident set in
   KiB, voluntary and involuntary context switches of all its threads) to a
   file, from clock_gettime and wait4's rusage: /usr/bin/time prints only
   hundredths of a second, too coarse for the start-up costs that
   bench/overhead/run.sh measures. The command's stdout and stderr pass
   through; the exit status is the command's (126/127 if it cannot run).

   Usage: runstat OUTFILE COMMAND [ARGS...] */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double secs(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: runstat OUTFILE COMMAND [ARGS...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("runstat: fork");
		return 126;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "runstat: %s: %s\n", argv[2], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("runstat: wait4");
		return 126;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	out = fopen(argv[1], "a");
	if (!out) {
		perror(argv[1]);
		return 126;
	}
	fprintf(out, "%.6f %.6f %.6f %ld %ld %ld\n",
	        (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
	        secs(ru.ru_utime), secs(ru.ru_stime), ru.ru_maxrss,
	        ru.ru_nvcsw, ru.ru_nivcsw);
	if (fclose(out) != 0)
		return 126;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
