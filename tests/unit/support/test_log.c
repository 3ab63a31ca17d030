/* SPDX-License-Identifier: BSD-3-Clause */
/* test_log.c — the log file (exact contents, truncation of long lines,
   printing from a signal handler, whole lines under two concurrent writers,
   errno preserved, reopen) and the HC_DEBUG categories (parsing, unknown
   names reported, traces written to stderr only for enabled categories, and
   arguments not evaluated when off), and the assertion tier: a failed
   HC_ASSERT aborts with its message in a --enable-debug build and is not
   even evaluated otherwise. stderr is redirected to a file around the
   checks that read it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/log.h"
#include "hc_test.h"

static char dir[256];

static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *b;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) < 0)
		return NULL;
	b = calloc(1, (size_t)st.st_size + 1);
	if (b && read(fd, b, (size_t)st.st_size) != st.st_size) {
		free(b);
		b = NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void on_usr1(int sig)
{
	hc_log_printf("from handler, signal %d\n", sig);
}

static void test_log_file(void)
{
	char path[300], path2[300], big[3000], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/a.log", dir);
	snprintf(path2, sizeof(path2), "%s/b.log", dir);
	CHECK_EQ_U64(hc_log_printf("nobody listens\n"), -EBADF);
	CHECK_EQ_U64(hc_log_fd(), (uint64_t)-1);
	CHECK_EQ_U64(hc_log_open("/nonexistent-dir/x.log"), -ENOENT);
	CHECK_EQ_U64(hc_log_open(path), 0);
	CHECK(hc_log_fd() >= 0);
	errno = 777;
	CHECK_EQ_U64(hc_log_printf("line %d of %s\n", 1, "the log"), 18);
	CHECK_EQ_U64(errno, 777);
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	CHECK_EQ_U64(hc_log_printf("%s\n", big), HC_LOG_LINE - 1);
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	/* Reopening elsewhere closes the first file. */
	CHECK_EQ_U64(hc_log_open(path2), 0);
	hc_log_printf("second file\n");
	hc_log_close();
	CHECK_EQ_U64(hc_log_printf("after close\n"), -EBADF);
	hc_log_close();   /* twice is harmless */

	text = slurp(path, &len);
	CHECK(text != NULL);
	if (text) {
		char want[HC_LOG_LINE * 2];
		size_t n = 0;
		n += (size_t)snprintf(want + n, sizeof(want) - n, "line 1 of the log\n");
		memset(want + n, 'b', HC_LOG_LINE - 5);
		n += HC_LOG_LINE - 5;
		n += (size_t)snprintf(want + n, sizeof(want) - n, "...\nfrom handler, signal %d\n",
		                      SIGUSR1);
		CHECK_EQ_U64(len, n);
		CHECK(len == n && memcmp(text, want, n) == 0);
		free(text);
	}
	text = slurp(path2, &len);
	CHECK(text != NULL);
	if (text)
		CHECK_STR(text, "second file\n");
	free(text);
	unlink(path);
	unlink(path2);
}

#define NLINES 3000
static void *writer_thread(void *arg)
{
	long id = (long)arg;
	int i;

	for (i = 0; i < NLINES; i++)
		hc_log_printf("thread %ld line %d %.*s end\n", id, i, (i * 37) % 300,
		              "________________________________________________________________"
		              "________________________________________________________________"
		              "________________________________________________________________"
		              "________________________________________________________________"
		              "____________________________________________");
	return NULL;
}

/* Two threads at once: every line must come out whole. */
static void test_concurrent_lines(void)
{
	char path[300], *text, *line, *save = NULL;
	pthread_t t[2];
	int counts[2] = { 0, 0 }, bad = 0;
	size_t len;
	long i;

	snprintf(path, sizeof(path), "%s/mt.log", dir);
	CHECK_EQ_U64(hc_log_open(path), 0);
	for (i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, writer_thread, (void *)i);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	hc_log_close();
	text = slurp(path, &len);
	CHECK(text != NULL);
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		long id;
		int n, k, consumed = 0;
		if (sscanf(line, "thread %ld line %d%n", &id, &n, &consumed) != 2 ||
		    line[consumed++] != ' ' ||
		    id < 0 || id > 1 || n != counts[id]) {
			bad++;
			continue;
		}
		for (k = 0; k < (n * 37) % 300; k++)
			bad += line[consumed + k] != '_';
		bad += strcmp(line + consumed + k, " end") != 0;
		counts[id]++;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(counts[0], NLINES);
	CHECK_EQ_U64(counts[1], NLINES);
	free(text);
	unlink(path);
}

static int evaluated;
static int bump(void) { return ++evaluated; }

static void test_debug(void)
{
	char path[300], *text;
	size_t len;
	int saved_err, fd;

	CHECK_EQ_U64(hc_debug_parse(NULL), 0);
	CHECK_EQ_U64(hc_debug_parse(""), 0);
	CHECK_EQ_U64(hc_debug_parse("unwind,detect"), HC_DBG_UNWIND | HC_DBG_DETECT);
	CHECK_EQ_U64(hc_debug_parse("unwind:merge watch,"), HC_DBG_UNWIND | HC_DBG_MERGE | HC_DBG_WATCH);
	CHECK_EQ_U64(hc_debug_parse("all"), HC_DBG_ALL);
	CHECK_EQ_U64(hc_debug_parse("init,thread,sample,unwind,detect,watch,alloc,"
	                            "output,merge,time"), HC_DBG_ALL);
	CHECK_STR(hc_debug_name(HC_DBG_DETECT), "detect");
	CHECK_STR(hc_debug_name(HC_DBG_TIME), "time");
	CHECK_STR(hc_debug_name(HC_DBG_DETECT | HC_DBG_UNWIND), "?");

	/* Capture stderr for the rest. */
	snprintf(path, sizeof(path), "%s/stderr.txt", dir);
	fflush(stderr);
	saved_err = dup(2);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);

	CHECK_EQ_U64(hc_debug_parse("unwinder,detect,,"), HC_DBG_DETECT);   /* reports 'unwinder' */
	setenv("HC_DEBUG", "detect,watch", 1);
	hc_debug_init();
	CHECK(hc_debug_enabled(HC_DBG_DETECT));
	CHECK(hc_debug_enabled(HC_DBG_WATCH));
	CHECK(!hc_debug_enabled(HC_DBG_UNWIND));
	evaluated = 0;
	HC_DEBUG_LOG(HC_DBG_UNWIND, "not shown %d", bump());
	CHECK_EQ_U64(evaluated, 0);
	HC_DEBUG_LOG(HC_DBG_DETECT, "hello %d", bump());
	CHECK_EQ_U64(evaluated, 1);
	HC_DEBUG_LOG(HC_DBG_WATCH, "with newline %s\n", "already");
	unsetenv("HC_DEBUG");
	hc_debug_init();
	CHECK(!hc_debug_enabled(HC_DBG_DETECT));
	HC_DEBUG_LOG(HC_DBG_DETECT, "off again");

	dup2(saved_err, 2);
	close(saved_err);
	text = slurp(path, &len);
	CHECK(text != NULL);
	if (text) {
		char want[512];
		snprintf(want, sizeof(want),
		         "hpcrun-comm: HC_DEBUG: unknown category 'unwinder' ignored (known: all,init,"
		         "thread,sample,unwind,detect,watch,alloc,output,merge,time)\n"
		         "hc[%d/%ld] detect: hello 1\n"
		         "hc[%d/%ld] watch: with newline already\n",
		         (int)getpid(), (long)getpid(), (int)getpid(), (long)getpid());
		CHECK_STR(text, want);
		free(text);
	}
	unlink(path);
}

static void test_assert(void)
{
	int evaluated_here = 0, fds[2], st = 0;
	char buf[256] = "";
	ssize_t n;
	pid_t pid;

	HC_ASSERT(++evaluated_here > 0);
#ifdef HC_DEBUG_ASSERT
	CHECK_EQ_U64(evaluated_here, 1);
#else
	CHECK_EQ_U64(evaluated_here, 0);
#endif
	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		HC_ASSERT(evaluated_here == 42);
		_exit(0);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = 0;
	close(fds[0]);
	CHECK(waitpid(pid, &st, 0) == pid);
#ifdef HC_DEBUG_ASSERT
	CHECK_MSG(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status %#x", st);
	CHECK_MSG(strstr(buf, "hpcrun-comm: assertion failed: ") && strstr(buf, "evaluated_here == 42"),
	          "message '%s'", buf);
#else
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0 && buf[0] == 0, "status %#x, '%s'", st, buf);
#endif
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, sizeof(dir), "%s/hc-log-test-%d", tmp ? tmp : "/tmp", (int)getpid());
	if (mkdir(dir, 0755) < 0) {
		perror(dir);
		return 1;
	}
	test_log_file();
	test_concurrent_lines();
	test_debug();
	test_assert();
	rmdir(dir);
	return hc_test_done("test_log");
}
