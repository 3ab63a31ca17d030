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
     exitcall     exit(6) called from main (exit3 returns from main)
     spawn        posix_spawn this program in mode exit3 with an environment
                  of its own (no LD_PRELOAD), wait for it
     vfork        vfork, then execv this program in mode exit3 in the child
     static       exec the statically linked program LC_STATIC names
     kill         workers keep running; main sends itself SIGKILL after
                  LC_KILL_MS milliseconds (default 2500)
     killsolo     no thread at all: main itself works for LC_KILL_MS ms,
                  then sends itself SIGKILL
     daemon       fork; the child closes every fd it does not know (walks
                  /proc/self/fd with close(), then close_range), opens its
                  output file LC_OUT, moves it above fd 1024 (as servers do)
                  and writes to it around a second round of workers
     daemonraw    the same, with a raw close_range system call (no libc)
   Output on stdout is fixed text the test compares. */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static volatile uint64_t shared[8] __attribute__((aligned(64)));
static int exit_from_thread;

static volatile int forever;

static void *work(void *arg)
{
	int w = (int)(intptr_t)arg;

	for (long i = 0; forever || i < 20000000; i++)
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

static void self_path(char *out, size_t len)
{
	ssize_t k = readlink("/proc/self/exe", out, len - 1);

	out[k > 0 ? k : 0] = 0;
}

/* The daemon's fd hygiene: close every fd above 2, as daemons do. */
static void close_unknown(int raw)
{
	if (raw) {
		syscall(SYS_close_range, 3u, ~0u, 0u);
		return;
	}
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int dfd = d ? dirfd(d) : -1;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) > 2 && atoi(e->d_name) != dfd)
			close(atoi(e->d_name));
	if (d)
		closedir(d);
	close_range(3, ~0u, 0);
}

static int run_daemon(int n, int raw)
{
	const char *out = getenv("LC_OUT");
	pid_t pid;
	int st, fd;

	if (!out)
		return 2;
	pid = fork();
	if (pid == 0) {
		setsid();
		close_unknown(raw);
		fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0)
			_exit(20);
		/* Servers move their fds high; this one lands where the
		   runtime's own fds were, if they were closed under it. */
		int hi = fcntl(fd, F_DUPFD_CLOEXEC, 1024);
		if (hi >= 0) {
			close(fd);
			fd = hi;
		}
		dprintf(fd, "daemon start\n");
		run_workers(n);
		for (int i = 0; i < 50; i++) {
			int x = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (x >= 0 && i % 2)
				close(x);
		}
		dprintf(fd, "daemon done\n");
		close(fd);
		exit(0);
	}
	waitpid(pid, &st, 0);
	printf("lifecycle daemon status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
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
	if (!strcmp(mode, "killsolo")) {
		const char *ms = getenv("LC_KILL_MS");
		long wait = ms ? atol(ms) : 2500;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			for (int i = 0; i < 100000; i++)
				shared[i & 7] = shared[i & 7] + 1;
			clock_gettime(CLOCK_MONOTONIC, &t1);
		} while ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < wait);
		kill(getpid(), SIGKILL);
	}
	if (!strcmp(mode, "kill")) {
		const char *ms = getenv("LC_KILL_MS");
		long wait = ms ? atol(ms) : 2500;
		struct timespec ts = { wait / 1000, (wait % 1000) * 1000000 };
		pthread_t t[16];
		forever = 1;
		for (int i = 0; i < n; i++)
			pthread_create(&t[i], NULL, work, (void *)(intptr_t)i);
		nanosleep(&ts, NULL);
		kill(getpid(), SIGKILL);
	}
	if (!strcmp(mode, "daemon") || !strcmp(mode, "daemonraw")) {
		run_workers(n);
		return run_daemon(n, !strcmp(mode, "daemonraw"));
	}
	run_workers(n);
	if (!strcmp(mode, "exitcall")) {
		printf("lifecycle exit 6\n");
		exit(6);
	}
	if (!strcmp(mode, "spawn")) {
		char self[4096], nbuf[8];
		char *args[] = { argv[0], "exit3", nbuf, NULL };
		char *env[] = { "LC_SPAWNED=1", "PATH=/usr/bin:/bin", NULL };
		pid_t pid;
		int st, err;
		self_path(self, sizeof self);
		snprintf(nbuf, sizeof nbuf, "%d", n);
		fflush(stdout);
		err = posix_spawn(&pid, self, NULL, NULL, args, env);
		if (err) {
			printf("posix_spawn failed: %s\n", strerror(err));
			return 1;
		}
		waitpid(pid, &st, 0);
		printf("lifecycle spawn status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 0;
	}
	if (!strcmp(mode, "vfork")) {
		char self[4096], nbuf[8];
		pid_t pid;
		int st;
		self_path(self, sizeof self);
		snprintf(nbuf, sizeof nbuf, "%d", n);
		fflush(stdout);
		pid = vfork();
		if (pid == 0) {
			execl(self, argv[0], "exit3", nbuf, (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &st, 0);
		printf("lifecycle vfork status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 0;
	}
	if (!strcmp(mode, "static")) {
		const char *prog = getenv("LC_STATIC");
		fflush(stdout);
		if (!prog)
			return 2;
		execl(prog, prog, (char *)NULL);
		perror("execl");
		return 1;
	}
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
