/* SPDX-License-Identifier: BSD-3-Clause */
/* interpose.c — process life-cycle calls the runtime must see (DESIGN
   §4.1): _exit/_Exit flush (exit and return from main reach our
   destructor), vfork becomes fork (the child must get its own measurement,
   and our atfork handlers only run for fork), every exec* flushes all
   profiles first and passes the measurement environment on (generation + 1,
   LD_PRELOAD kept even when the program built its own environment), and
   dlopen/dlclose refresh the load map. Shims stay thin; the work is in init.c and
   thread.c. Not signal context. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "support/fmt.h"

extern char **environ;

#define REAL(name) ({ static __typeof__(&name) r_; if (!r_) r_ = (__typeof__(&name))dlsym(RTLD_NEXT, #name); r_; })

HC_EXPORT void _exit(int status)
{
	rt__process_fini();
	REAL(_exit)(status);
	__builtin_unreachable();
}

HC_EXPORT void _Exit(int status)
{
	rt__process_fini();
	REAL(_Exit)(status);
	__builtin_unreachable();
}

HC_EXPORT pid_t vfork(void)
{
	return fork();
}

HC_EXPORT void *dlopen(const char *file, int mode)
{
	void *h = REAL(dlopen)(file, mode);

	if (h && hc_rt.ready)
		rt__refresh_maps();
	return h;
}

/* After dlclose the snapshot may still list the unloaded module: refresh so
   the handler never reads a dead .eh_frame_hdr table. */
HC_EXPORT int dlclose(void *h)
{
	int ret = REAL(dlclose)(h);

	if (hc_rt.ready)
		rt__refresh_maps();
	return ret;
}

/* ---- exec ---- */

static const char *self_path(void)
{
	static Dl_info info;

	if (!info.dli_fname)
		dladdr((void *)self_path, &info);
	return info.dli_fname;
}

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* A copy of envp with HPCRUN_COMM_GEN = gen+1, our options restored if the
   program dropped them, and LD_PRELOAD starting with this runtime. */
static char **exec_env(char *const envp[], char *store, size_t cap)
{
	static const char *const keep[] = {
		"HPCRUN_COMM_DIR", "HPCRUN_COMM_EVENT", "HPCRUN_COMM_SAMPLER", "HPCRUN_COMM_BB_SIZE",
		"HPCRUN_COMM_WATCHPOINTS", "HPCRUN_COMM_MIN_ALLOC", "HPCRUN_COMM_NO_PREV",
		/* test hooks: the exec'd image must measure the same way */
		"HPCRUN_COMM_PMU_STANDIN", "HPCRUN_COMM_SYSFS_ROOT",
	};
	const char *lib = self_path(), *preload = NULL;
	size_t n = 0, used = 0;
	char **out;

	while (envp && envp[n])
		n++;
	out = malloc((n + 16) * sizeof *out);
	if (!out)
		return NULL;
	n = 0;
	for (size_t i = 0; envp && envp[i]; i++) {
		if (has_prefix(envp[i], "HPCRUN_COMM_"))
			continue;
		if (has_prefix(envp[i], "LD_PRELOAD=")) {
			preload = envp[i] + strlen("LD_PRELOAD=");
			continue;
		}
		out[n++] = envp[i];
	}
#define ADD(...) do { \
	int k_ = hc_fmt(store + used, cap - used, __VA_ARGS__); \
	if ((size_t)k_ + 1 > cap - used) { free(out); return NULL; } \
	out[n++] = store + used; used += (size_t)k_ + 1; \
} while (0)
	for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
		const char *v = getenv(keep[i]);
		if (v)
			ADD("%s=%s", keep[i], v);
	}
	ADD("HPCRUN_COMM_GEN=%u", hc_rt.opt.gen + 1);
	if (!preload || !lib || !strstr(preload, lib))
		ADD("LD_PRELOAD=%s%s%s", lib ? lib : "", preload && *preload ? ":" : "", preload ? preload : "");
	else
		ADD("LD_PRELOAD=%s", preload);
#undef ADD
	out[n] = NULL;
	return out;
}

/* Flush before the image is replaced; if exec fails, carry on measuring
   under the next generation with fresh metrics. */
static void before_exec(void)
{
	if (!hc_rt.ready)
		return;
	rt__process_fini();
}

static void after_failed_exec(void)
{
	extern void rt__resume_after_exec_failure(void);

	if (hc_rt.ready)
		rt__resume_after_exec_failure();
}

enum exec_kind { EXEC_PATH, EXEC_SEARCH, EXEC_FD };

static int do_exec(enum exec_kind kind, const char *file, int fd, char *const argv[], char *const envp[])
{
	static char store[PATH_MAX * 4];
	char **env;
	int ret, err;

	before_exec();
	env = exec_env(envp, store, sizeof store);
	if (!env)
		env = (char **)envp;
	switch (kind) {
	case EXEC_PATH:   ret = REAL(execve)(file, argv, env); break;
	case EXEC_SEARCH: ret = REAL(execvpe)(file, argv, env); break;
	default:          ret = REAL(fexecve)(fd, argv, env); break;
	}
	err = errno;
	if (env != (char **)envp)
		free(env);
	after_failed_exec();
	errno = err;
	return ret;
}

HC_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_exec(EXEC_PATH, path, -1, argv, envp);
}

HC_EXPORT int execv(const char *path, char *const argv[])
{
	return do_exec(EXEC_PATH, path, -1, argv, environ);
}

HC_EXPORT int execvp(const char *file, char *const argv[])
{
	return do_exec(EXEC_SEARCH, file, -1, argv, environ);
}

HC_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_exec(EXEC_SEARCH, file, -1, argv, envp);
}

HC_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return do_exec(EXEC_FD, NULL, fd, argv, envp);
}

/* execl*: the variadic arguments become a heap argv (exec wrappers are
   not signal context); execle's environment follows the terminating NULL. */
static int exec_list(enum exec_kind kind, const char *file, const char *arg, va_list ap, bool with_env)
{
	char *const *envp = environ;
	char **argv;
	va_list c;
	size_t n = 1;
	int ret, err;

	va_copy(c, ap);
	while (va_arg(c, char *))
		n++;
	va_end(c);
	argv = malloc((n + 1) * sizeof *argv);
	if (!argv) {
		errno = ENOMEM;
		return -1;
	}
	argv[0] = (char *)arg;
	for (size_t i = 1; i <= n; i++)
		argv[i] = va_arg(ap, char *);
	if (with_env)
		envp = va_arg(ap, char *const *);
	ret = do_exec(kind, file, -1, argv, envp);
	err = errno;
	free(argv);
	errno = err;
	return ret;
}

HC_EXPORT int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = exec_list(EXEC_PATH, path, arg, ap, false);
	va_end(ap);
	return ret;
}

HC_EXPORT int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = exec_list(EXEC_SEARCH, file, arg, ap, false);
	va_end(ap);
	return ret;
}

HC_EXPORT int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = exec_list(EXEC_PATH, path, arg, ap, true);
	va_end(ap);
	return ret;
}
