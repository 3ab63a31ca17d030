/* SPDX-License-Identifier: BSD-3-Clause */
/* interpose.c — process life-cycle calls the runtime must see (doc/runtime.md,
   "Life cycle"): _exit/_Exit flush (exit and return from main reach our
   destructor), vfork becomes fork (the child must get its own measurement,
   and our atfork handlers only run for fork), every exec* flushes all
   profiles first and passes the measurement environment on (generation + 1,
   LD_PRELOAD kept even when the program built its own environment), and
   dlopen/dlclose refresh the load map, posix_spawn/posix_spawnp (and
   system, popen) pass the measurement environment on like exec, and an exec or spawn of a
   statically linked program is logged (it runs unmeasured). Shims stay thin; the work is in process.c and
   thread.c. Not signal context. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "runtime/rt.h"
#include "runtime/alloc/ownheap.h"
#include "runtime/safety.h"
#include "support/fmt.h"

extern char **environ;


HC_EXPORT void _exit(int status)
{
	process__fini();
	RT_REAL(_exit)(status);
	__builtin_unreachable();
}

HC_EXPORT void _Exit(int status)
{
	process__fini();
	RT_REAL(_Exit)(status);
	__builtin_unreachable();
}

HC_EXPORT pid_t vfork(void)
{
	return fork();
}

HC_EXPORT void *dlopen(const char *file, int mode)
{
	struct rt_thread *t = hc_self;
	int was = hc_loader_enter(t);
	void *h = RT_REAL(dlopen)(file, mode);

	if (h && hc_rt.ready) {
		ownheap__enter();
		loadmap__refresh();
		ownheap__leave();
	}
	hc_loader_leave(t, was);
	return h;
}

/* After dlclose the snapshot may still list the unloaded module: refresh so
   the handler never reads a dead .eh_frame_hdr table. */
HC_EXPORT int dlclose(void *h)
{
	struct rt_thread *t = hc_self;
	int was = hc_loader_enter(t);
	int ret = RT_REAL(dlclose)(h);

	if (hc_rt.ready) {
		ownheap__enter();
		loadmap__refresh();
		ownheap__leave();
	}
	hc_loader_leave(t, was);
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

/* A copy of envp with HPCRUN_COMM_GEN = gen, the launcher's options (taken
   out of the program's environment at start: process.c) and LD_PRELOAD
   starting with this runtime. One block of the runtime's heap (pointers,
   then the strings we add): free() it. */
static char **exec_env(char *const envp[], unsigned gen)
{
	/* the user's switches and test hooks, still in environ: the exec'd
	   image must measure the same way */
	static const char *const keep[] = {
		"HPCRUN_COMM_NO_PREV", "HPCRUN_COMM_SAMPLER_PER_THREAD",
		"HPCRUN_COMM_STEPS", "HPCRUN_COMM_STEP_BUDGET", "HPCRUN_COMM_STEP_SEED",
		"HPCRUN_COMM_PUBLISH_LOADS", "HPCRUN_COMM_SPIN_WEIGHT", "HPCRUN_COMM_SYNC_TARGETS",
		"HPCRUN_COMM_PIPE", "HPCRUN_COMM_PIPE_OVER_ZONE",
		"HPCRUN_COMM_PMU_STANDIN", "HPCRUN_COMM_SYSFS_ROOT",
	};
	const char *const *saved = process__env_saved();
	const char *lib = self_path(), *preload = NULL;
	size_t n = 0, used = 0, cap = PATH_MAX * 4, slots;
	char **out, *store;

	while (envp && envp[n])
		n++;
	slots = n + 48;
	out = malloc(slots * sizeof *out + cap);
	if (!out)
		return NULL;
	store = (char *)(out + slots);
	n = 0;
	for (size_t i = 0; envp && envp[i]; i++) {
		bool kept = false;
		for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++)
			kept |= has_prefix(envp[i], keep[k]) && envp[i][strlen(keep[k])] == '=';
		if (kept || process__env_is_launcher(envp[i]))
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
	for (size_t i = 0; saved[i]; i++)
		if (!has_prefix(saved[i], "HPCRUN_COMM_GEN=") && n < slots - 3)
			out[n++] = (char *)saved[i];
	ADD("HPCRUN_COMM_GEN=%u", gen);
	if (!preload || !lib || !strstr(preload, lib)) {
		/* What the launcher put before and including us (in a sanitizer
		   build the ASan runtime comes first), then the program's own. */
		const char *cur = process__env_preload(), *at = cur && lib ? strstr(cur, lib) : NULL;
		int head = at ? (int)(at - cur + (ptrdiff_t)strlen(lib)) : 0;
		if (at)
			ADD("LD_PRELOAD=%.*s%s%s", head, cur, preload && *preload ? ":" : "", preload ? preload : "");
		else
			ADD("LD_PRELOAD=%s%s%s", lib ? lib : "", preload && *preload ? ":" : "", preload ? preload : "");
	} else {
		ADD("LD_PRELOAD=%s", preload);
	}
#undef ADD
	out[n] = NULL;
	return out;
}

/* Does this ELF file lack a PT_INTERP (statically linked: LD_PRELOAD cannot
   inject us)? Unreadable or not ELF → false (exec decides). */
static bool is_static_fd(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof ph)
		return false;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) != (ssize_t)sizeof ph)
			return false;
		if (ph.p_type == PT_INTERP)
			return false;
	}
	return true;
}

/* The file exec would run: path as is, or searched in PATH. */
static bool resolve(const char *file, bool search, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (!search || strchr(file, '/')) {
		hc_fmt(out, len, "%s", file);
		return true;
	}
	if (!path)
		path = "/bin:/usr/bin";
	while (*path) {
		const char *c = strchr(path, ':');
		size_t k = c ? (size_t)(c - path) : strlen(path);
		hc_fmt(out, len, "%.*s/%s", (int)k, k ? path : ".", file);
		if (access(out, X_OK) == 0)
			return true;
		path += k + (c ? 1 : 0);
	}
	return false;
}

/* Say in the log that a statically linked program runs unmeasured. */
static void note_static(const char *file, int fd, bool search, const char *how)
{
	char path[PATH_MAX];
	bool st = false;

	if (fd >= 0) {
		st = is_static_fd(fd);
		hc_fmt(path, sizeof path, "fd %d", fd);
	} else if (file && resolve(file, search, path, sizeof path)) {
		int f = open(path, O_RDONLY | O_CLOEXEC);
		if (f >= 0) {
			st = is_static_fd(f);
			close(f);
		}
	}
	if (st)
		process__log("%s of %s: statically linked, LD_PRELOAD cannot inject the runtime: "
		        "it runs unmeasured", how, path);
}

/* Flush before the image is replaced; if exec fails, carry on measuring
   under the next generation with fresh metrics. */
static void before_exec(void)
{
	if (!hc_rt.ready)
		return;
	process__fini();
	sigmask__before_exec();
}

static void after_failed_exec(void)
{
	extern void process__resume_after_exec_failure(void);

	if (hc_rt.ready) {
		sigmask__after_exec_failure();
		process__resume_after_exec_failure();
	}
}

enum exec_kind { EXEC_PATH, EXEC_SEARCH, EXEC_FD };

static int do_exec(enum exec_kind kind, const char *file, int fd, char *const argv[], char *const envp[])
{
	char **env;
	int ret, err;

	if (hc_rt.ready)
		note_static(file, fd, kind == EXEC_SEARCH, "exec");
	before_exec();
	env = exec_env(envp, hc_rt.opt.gen + 1);
	if (!env)
		env = (char **)envp;
	switch (kind) {
	case EXEC_PATH:   ret = RT_REAL(execve)(file, argv, env); break;
	case EXEC_SEARCH: ret = RT_REAL(execvpe)(file, argv, env); break;
	default:          ret = RT_REAL(fexecve)(fd, argv, env); break;
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

/* ---- posix_spawn ----
   glibc's posix_spawn (and system(), popen() built on it) clones and execs
   inside libc, past our exec wrappers: the child gets the environment given
   here, so it gets our LD_PRELOAD and options the same way (a new process:
   generation 0). */
static int do_spawn(bool search, pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	char **env = NULL;
	int ret;

	if (hc_rt.ready) {
		note_static(file, -1, search, "posix_spawn");
		env = exec_env(envp, 0);
	}
	if (search)
		ret = RT_REAL(posix_spawnp)(pid, file, fa, attr, argv, env ? env : envp);
	else
		ret = RT_REAL(posix_spawn)(pid, file, fa, attr, argv, env ? env : envp);
	free(env);
	return ret;
}

HC_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                          const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return do_spawn(false, pid, path, fa, attr, argv, envp);
}

HC_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                           const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return do_spawn(true, pid, file, fa, attr, argv, envp);
}

/* ---- system, popen ----
   They spawn inside libc with environ itself, and environ no longer holds
   the measurement's entries (process.c): for the duration of the call environ
   is a copy with them (another thread reading the environment meanwhile
   sees them too). If the program replaced environ meanwhile (a setenv in
   another thread copies the array, our strings with it), ours is left. */
static char **env_swap_in(void)
{
	char **env;

	if (!hc_rt.ready || !(env = exec_env(environ, 0)))
		return NULL;
	return env;
}

static void env_swap_out(char **env, char **old, int err)
{
	if (!env)
		return;
	if (__atomic_compare_exchange_n(&environ, &env, old, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		free(env);
	errno = err;
}

HC_EXPORT int system(const char *cmd)
{
	char **old = environ, **env = cmd ? env_swap_in() : NULL;
	int ret;

	if (env)
		environ = env;
	ret = RT_REAL(system)(cmd);
	env_swap_out(env, old, errno);
	return ret;
}

HC_EXPORT FILE *popen(const char *cmd, const char *mode)
{
	char **old = environ, **env = env_swap_in();
	FILE *f;

	if (env)
		environ = env;
	f = RT_REAL(popen)(cmd, mode);
	env_swap_out(env, old, errno);
	return f;
}
