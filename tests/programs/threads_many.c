/* SPDX-License-Identifier: BSD-3-Clause */
/* threads_many.c — many threads, for the reliability tests (issue #8).
     live N    N threads alive at once (they wait on a barrier, then each
               writes its own cache line a while), joined at the end
     churn N   N short-lived threads, created and joined 4 at a time
   Prints "threads N ok" on stdout (the text the test compares with the
   native run), and on stderr what it sees of itself: the number of open
   fds (/proc/self/fd) and the resident set (VmRSS) after the first 1% of
   the threads and at the end, so that the test can check for leaks from
   inside the process. Exit 1 if a thread cannot be created. */
#include <dirent.h>
#include <pthread.h>
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

	if (n < 1 || n > 1000000 || (strcmp(mode, "live") && strcmp(mode, "churn"))) {
		fprintf(stderr, "usage: threads_many live|churn N\n");
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
