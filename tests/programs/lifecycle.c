/* SPDX-License-Identifier: BSD-3-Clause */
/* lifecycle.c — process life cycles for the runtime tests. Each mode
   starts N threads that touch shared memory briefly, then:
     exit3        exit(3) from main
     threadexit   exit(5) from a worker thread
     fork         fork a child that runs workers too, wait for it
     exec         exec this program again in mode "exit3"
     system       system() a shell that runs this program in mode "exit3"
     _exit        _exit(4) from main
     segv         a segmentation fault in main
     abort        abort() in main
   Output on stdout is fixed text the test compares. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile uint64_t shared[8] __attribute__((aligned(64)));
static int exit_from_thread;

static void *work(void *arg)
{
	int w = (int)(intptr_t)arg;

	for (long i = 0; i < 20000000; i++)
		shared[w & 7] = shared[w & 7] + 1;
	if (exit_from_thread && w == 0)
		exit(5);
	return NULL;
}

static void run_workers(int n)
{
	pthread_t t[16];

	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, work, (void *)(intptr_t)i);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "exit3";
	int n = argc > 2 ? atoi(argv[2]) : 2;

	if (n < 1 || n > 16)
		n = 2;
	printf("lifecycle %s start\n", mode);
	fflush(stdout);
	if (!strcmp(mode, "threadexit")) {
		exit_from_thread = 1;
		run_workers(n);
		return 0;
	}
	run_workers(n);
	if (!strcmp(mode, "fork")) {
		pid_t pid = fork();
		int st;
		if (pid == 0) {
			run_workers(n);
			printf("lifecycle child done\n");
			exit(0);
		}
		waitpid(pid, &st, 0);
		printf("lifecycle child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 0;
	}
	if (!strcmp(mode, "exec")) {
		char nbuf[8];
		snprintf(nbuf, sizeof nbuf, "%d", n);
		execl("/proc/self/exe", argv[0], "exit3", nbuf, (char *)NULL);
		perror("execl");
		return 1;
	}
	if (!strcmp(mode, "system")) {
		char cmd[4200];
		int st;
		char self[4096];
		ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
		self[k > 0 ? k : 0] = 0;
		snprintf(cmd, sizeof cmd, "'%s' exit3 %d", self, n);
		st = system(cmd);
		printf("lifecycle system status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 0;
	}
	if (!strcmp(mode, "_exit")) {
		printf("lifecycle _exit\n");
		fflush(stdout);
		_exit(4);
	}
	if (!strcmp(mode, "segv")) {
		fflush(stdout);
		*(volatile int *)(uintptr_t)argc = 1;
	}
	if (!strcmp(mode, "abort")) {
		fflush(stdout);
		abort();
	}
	printf("lifecycle exit 3\n");
	return 3;
}
