/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_many.c — many threads, for the reliability tests (issue #8).
     live N    N threads alive at once (they wait on a barrier, then each
               writes its own cache line a while), joined at the end
     churn N   N short-lived threads, created and joined 4 at a time
     mainexit  main spins, starts thread 1 and leaves by pthread_exit; thread 1
               spins, then starts thread 2, which spins (the soft
               sampler's inherited event must outlive the thread that
               opened it, doc/samplers.md)
     forked    thread 1 spins; main forks; the child starts a thread that
               spins and spins itself; the parent spins after the child
               (every thread of both processes must be sampled)
   Prints "threads N ok" on stdout (the text the test compares with the
   native run), and on stderr what it sees of itself: the number of open
   fds (/proc/self/fd) and the resident set (VmRSS) after the first 1% of
   the threads and at the end, so that the test can check for leaks from
   inside the process. Exit 1 if a thread cannot be created. */
#include <dirent.h>
#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_barrier_t bar;
static volatile uint64_t lines[64][8] __attribute__((aligned(64)));

static void *live_body(void *arg)
{
	intptr_t i = (intptr_t)arg;

	pthread_barrier_wait(&bar);
	for (int k = 0; k < 20000; k++)
		lines[i & 63][0] += (uint64_t)k;
	return NULL;
}

static void *short_body(void *arg)
{
	intptr_t i = (intptr_t)arg;

	lines[i & 63][1] += 1;
	return NULL;
}

/* SPIN_MS of this thread's CPU time, in user mode. */
#define SPIN_MS 150
static void spin(void)
{
	struct timespec ts;
	uint64_t end = 0, now;

	do {
		for (int k = 0; k < 100000; k++)
			lines[63][2] += (uint64_t)k;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
		now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
		if (!end)
			end = now + SPIN_MS;
	} while (now < end);
}

static void *spin_body(void *arg)
{
	spin();
	return arg;
}

static void *mainexit_body(void *arg)
{
	pthread_t t;

	spin();
	if (pthread_create(&t, NULL, spin_body, NULL)) {
		fprintf(stderr, "mainexit: cannot create thread 2\n");
		exit(1);
	}
	pthread_join(t, NULL);
	printf("threads mainexit ok\n");
	fflush(stdout);
	return arg;
}

static int forked(void)
{
	pthread_t t;
	pid_t p;
	int st;

	if (pthread_create(&t, NULL, spin_body, NULL))
		return 1;
	pthread_join(t, NULL);
	fflush(stdout);
	if ((p = fork()) < 0)
		return 1;
	if (p == 0) {
		if (pthread_create(&t, NULL, spin_body, NULL))
			_exit(1);
		spin();
		pthread_join(t, NULL);
		printf("threads forked child ok\n");
		exit(0);
	}
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return 1;
	spin();
	printf("threads forked ok\n");
	return 0;
}

static int nfds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	if (d)
		closedir(d);
	return n - 1;   /* the directory's own fd */
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "live";
	long n = argc > 2 ? atol(argv[2]) : 100;
	int fd0 = -1;
	long rss0 = -1;

	if (!strcmp(mode, "mainexit")) {
		pthread_t t;
		spin();
		if (pthread_create(&t, NULL, mainexit_body, NULL))
			return 1;
		pthread_exit(NULL);
	}
	if (!strcmp(mode, "forked"))
		return forked();
	if (n < 1 || n > 1000000 || (strcmp(mode, "live") && strcmp(mode, "churn"))) {
		fprintf(stderr, "usage: threads_many live|churn N | mainexit | forked\n");
		return 2;
	}
	if (!strcmp(mode, "live")) {
		pthread_t *t = calloc((size_t)n, sizeof *t);
		if (!t || pthread_barrier_init(&bar, NULL, (unsigned)n + 1))
			return 1;
		for (long i = 0; i < n; i++)
			if (pthread_create(&t[i], NULL, live_body, (void *)(intptr_t)i)) {
				fprintf(stderr, "thread %ld: cannot create\n", i);
				return 1;
			}
		fd0 = nfds();
		rss0 = rss_kb();
		pthread_barrier_wait(&bar);
		for (long i = 0; i < n; i++)
			pthread_join(t[i], NULL);
		free(t);
	} else {
		for (long i = 0; i < n; i += 4) {
			pthread_t t[4];
			int k = 0;
			for (; k < 4 && i + k < n; k++)
				if (pthread_create(&t[k], NULL, short_body, (void *)(intptr_t)(i + k))) {
					fprintf(stderr, "thread %ld: cannot create\n", i + k);
					return 1;
				}
			while (k-- > 0)
				pthread_join(t[k], NULL);
			if (fd0 < 0 && i + 4 >= n / 100) {
				fd0 = nfds();
				rss0 = rss_kb();
			}
		}
	}
	printf("threads %ld ok\n", n);
	fprintf(stderr, "fds %d %d rss_kb %ld %ld\n", fd0, nfds(), rss0, rss_kb());
	return 0;
}
