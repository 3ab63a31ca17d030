/* SPDX-License-Identifier: BSD-3-Clause */
/* hpcrun-comm.c — the launcher. Validates the command (found, ELF,
   dynamically linked), checks that this machine can sample before anything
   runs, creates the measurement directory with the machine topology (hwloc
   XML), then puts the runtime in LD_PRELOAD with the options in the
   environment and execs the program. When asked to measure it never runs
   the program unmeasured: every refusal happens before exec, with the reason
   and what to do. `-L` reports what this machine supports. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <hwloc.h>
#include "config.h"
#include "hc/common.h"
#include "probe/probe.h"
#include "detect/detect.h"

#ifndef HC_RUNTIMEDIR
#define HC_RUNTIMEDIR "/usr/local/lib/hpcrun-comm"
#endif

static const char *prog = "hpcrun-comm";

static void find_runtime(char *out, size_t len);
static int exact_runtime(const char *rtlib, char *out, size_t len);

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [options] [--] PROGRAM [ARGS...]\n"
"Measure which threads of PROGRAM communicate through shared memory, where\n"
"in the code and on which data (true vs false sharing).\n"
"\n"
"Options:\n"
"  -e, --event COMM[@P]          sample loads/stores every P events (PMU) or every\n"
"                                P ns of thread CPU time (soft); default COMM@%llu\n"
"  -o, --output DIR              measurement directory\n"
"                                (default hpctoolkit-PROGRAM-measurements)\n"
"  -L, --list                    report what this machine supports and exit\n"
"      --sampler KIND            auto (default), soft, pebs or ibs\n"
"      --exact                   exact mode: count every cache-line transfer of a\n"
"                                program built with hpcrun-comm-cc / hpcrun-comm-c++\n"
"                                (no sampling; unit: transfers; doc/exact.md)\n"
"      --line-size BYTES         exact mode's cache line: 64 (default) or 128\n"
"      --bulletin-board-size N   BulletinBoard slots (default %u)\n"
"      --watchpoints N           watchpoints per armed set (default: all available)\n"
"      --min-alloc BYTES         track only heap blocks of at least BYTES (default 0)\n"
"      --flush-interval SEC      re-write every thread's profile every SEC seconds\n"
"                                of wall time (default %d; 0 = only at exit)\n"
"      --dir-mode MODE           mode of a measurement directory created (octal,\n"
"                                default 0700; an existing one is left as it is)\n"
"  -h, --help                    this text\n"
"  -V, --version                 version\n"
"\n"
"Then: hpcprof-comm DIR  (analysis), viewer-export DATABASE  (report).\n",
	        prog, (unsigned long long)HC_DEFAULT_PERIOD, HC_BB_DEFAULT_SLOTS, HC_DEFAULT_FLUSH_INTERVAL);
}

static void die(const char *hint, const char *fmt, ...) HC_PRINTF(2, 3) __attribute__((noreturn));
static void die(const char *hint, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (hint)
		fprintf(stderr, "%s: hint: %s\n", prog, hint);
	exit(2);
}

/* A probe's reason without its own "pebs: " / "ibs: " prefix. */
static const char *unprefixed(const char *why, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(why, prefix, n) == 0 ? why + n : why;
}

static int list_capabilities(void)
{
	char why[2048];
	struct utsname u;
	int r, nw = 0, par = HC_PARANOID_UNKNOWN, pr = hc_perf_paranoid(&par);
	bool fast = false;
	int sel;

	uname(&u);
	printf("hpcrun-comm %s: what this machine supports\n\n", PACKAGE_VERSION);
	printf("kernel:               %s %s (%s)\n", u.sysname, u.release, u.machine);
	r = hc_probe_soft(why, sizeof why);
	if (pr < 0)
		printf("perf_event_paranoid:  unknown (/proc/sys/kernel/perf_event_paranoid: %s)\n",
		       strerror(-pr));
	else
		printf("perf_event_paranoid:  %d%s\n", par,
		       par > 2 && r < 0 ? " (too high: sudo sysctl kernel.perf_event_paranoid=2)" :
		       par > 2 ? " (above 2: forbids unprivileged perf events on kernels with that patch, "
		                 "e.g. Debian's and Android's; this kernel still allows them)" :
		       par == 2 ? " (user-space measurement of own processes: enough)" : "");
	r = hc_probe_pebs(why, sizeof why);
	printf("pebs (Intel):         %s — %s\n", r == 0 ? "yes" : "no", unprefixed(why, "pebs: "));
	r = hc_probe_ibs(why, sizeof why);
	printf("ibs (AMD):            %s — %s\n", r == 0 ? "yes" : "no", unprefixed(why, "ibs: "));
	r = hc_probe_soft(why, sizeof why);
	printf("soft (timer+decode):  %s — %s\n", r == 0 ? "yes" : "no", why);
	printf("sigtrap delivery:     %s\n", r == 0 ? "yes (attr.sigtrap, Linux >= 5.13)" : "no");
	r = hc_probe_watch(&nw, &fast, why, sizeof why);
	printf("watchpoints:          %s — %s\n", r == 0 ? "yes" : "no", why);
	printf("fast re-arm:          %s\n", fast ? "yes (PERF_EVENT_IOC_MODIFY_ATTRIBUTES)" : "no");
	{
		char rt[PATH_MAX], xrt[PATH_MAX];
		bool xok;

		find_runtime(rt, sizeof rt);
		xok = exact_runtime(rt, xrt, sizeof xrt) == 0;
		printf("exact mode:           %s — %s (%s)\n", xok ? "yes" : "no",
		       xok ? "--exact counts every transfer of programs built with hpcrun-comm-cc / "
		             "hpcrun-comm-c++; no PMU or perf events needed" :
		             "the exact runtime is missing", xrt);
	}
	sel = hc_probe_select_checked(HC_SAMPLER_NONE, NULL, why, sizeof why);
	printf("\nverdict: ");
	if (sel < 0)
		printf("this machine cannot measure: %s\n", why);
	else
		printf("hpcrun-comm can measure here with the %s sampler%s%s.\n", hc_sampler_name(sel),
		       nw ? " and watchpoints" : " (no watchpoints: detection by samples only)",
		       sel == HC_SAMPLER_SOFT ? "; matrices in estimated ns of communicating accesses" :
		                                "; matrices in estimated cache-line transfers");
	if (sel >= 0)
		printf("selection (auto):     %s\n", why);
	return sel < 0 ? 1 : 0;
}

/* Find PROGRAM like execvp would. */
static bool find_program(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, F_OK) == 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *c = strchr(path, ':');
		size_t n = c ? (size_t)(c - path) : strlen(path);
		snprintf(out, len, "%.*s/%s", (int)n, n ? path : ".", name);
		if (access(out, X_OK) == 0)
			return true;
		path += n + (c ? 1 : 0);
	}
	return false;
}

/* Refuse what LD_PRELOAD cannot measure: not ELF, static. Scripts are fine
   (their interpreter is measured). */
static void check_program(const char *path)
{
	struct stat st;
	char magic[2] = "";
	int fd;
	Elf *e;
	GElf_Ehdr eh;
	size_t nph;
	bool interp = false;

	if (stat(path, &st) < 0)
		die("check the path", "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		die(NULL, "%s is not a regular file", path);
	if (access(path, X_OK) < 0)
		die("chmod +x it, or run it through its interpreter", "%s is not executable", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die(NULL, "cannot open %s: %s", path, strerror(errno));
	if (read(fd, magic, 2) == 2 && magic[0] == '#' && magic[1] == '!') {
		close(fd);
		return;
	}
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		die("give an executable program (or a #! script)", "%s is not an ELF executable", path);
	if (eh.e_machine != EM_X86_64)
		die(NULL, "%s is not an x86-64 program", path);
	if (elf_getphdrnum(e, &nph) == 0)
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
				interp = true;
		}
	elf_end(e);
	close(fd);
	if (!interp)
		die("relink it dynamically (without -static), the runtime is injected with LD_PRELOAD, "
		    "which a static binary ignores",
		    "%s is statically linked: hpcrun-comm cannot measure it", path);
}

/* Exact mode needs the ThreadSanitizer ABI calls that hpcrun-comm-cc
   compiles in: the program's dynamic symbol table imports __tsan_*.
   The number of such imports (0: not built for exact mode). */
static unsigned tsan_imports(const char *path)
{
	unsigned n = 0;
	Elf_Scn *scn = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *e;

	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (gelf_getsym(d, (int)i, &sym) && sym.st_shndx == SHN_UNDEF &&
			    (name = elf_strptr(e, sh.sh_link, sym.st_name)) && strncmp(name, "__tsan_", 7) == 0)
				n++;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return n;
}

/* The exact runtime: beside the sampled one (same folder, or
   HPCRUN_COMM_EXACT_RUNTIME). 0, or -1 with the path tried in out. */
static int exact_runtime(const char *rtlib, char *out, size_t len)
{
	const char *env = getenv("HPCRUN_COMM_EXACT_RUNTIME");
	const char *slash = strrchr(rtlib, '/');

	if (env && *env)
		snprintf(out, len, "%s", env);
	else
		snprintf(out, len, "%.*slibhpcrun-comm-exact.so", slash ? (int)(slash - rtlib + 1) : 0, rtlib);
	return access(out, R_OK) == 0 ? 0 : -1;
}

static void find_runtime(char *out, size_t len)
{
	const char *env = getenv("HPCRUN_COMM_RUNTIME");
	char self[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(out, len, "%s", env);
		if (access(out, R_OK) == 0)
			return;
		die("unset HPCRUN_COMM_RUNTIME or point it to libhpcrun-comm.so",
		    "HPCRUN_COMM_RUNTIME=%s: %s", env, strerror(errno));
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		char *slash;
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(out, len, "%s/../lib/runtime/libhpcrun-comm.so", self);  /* build tree */
			if (access(out, R_OK) == 0)
				return;
		}
	}
	snprintf(out, len, "%s/libhpcrun-comm.so", HC_RUNTIMEDIR);
	if (access(out, R_OK) != 0)
		die("reinstall hpcrun-comm, or set HPCRUN_COMM_RUNTIME", "runtime library not found: %s", out);
}

/* The topology, once per host: created O_EXCL|O_NOFOLLOW (a concurrent run
   that wrote it first wins; a symlink planted there is never followed). */
static void write_topology(const char *dir, unsigned hostid)
{
	char path[PATH_MAX + 64], tmp[PATH_MAX + 96];
	hwloc_topology_t topo;
	char *xml = NULL, *plugins;
	int len = 0, fd, ret;

	snprintf(path, sizeof path, "%s/topology-%08x.xml", dir, hostid);
	if (faccessat(AT_FDCWD, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return;
	/* Without hwloc's plugins (PCI, OpenCL, GL, the libxml2 exporter):
	   what they would add is I/O, filtered out anyway (the file is
	   byte-identical), and loading them raised the launcher's RSS by
	   3.5 MB, which the program inherits as its peak RSS through exec.
	   The application gets the variable back as it was. */
	plugins = getenv("HWLOC_PLUGINS_PATH");
	if (plugins)
		plugins = strdup(plugins);
	setenv("HWLOC_PLUGINS_PATH", "", 1);
	ret = hwloc_topology_init(&topo);
	if (plugins) {
		setenv("HWLOC_PLUGINS_PATH", plugins, 1);
		free(plugins);
	} else {
		unsetenv("HWLOC_PLUGINS_PATH");
	}
	if (ret < 0)
		return;
	/* Through a temporary name (a full disk must not leave half a
	   topology), created O_EXCL|O_NOFOLLOW (a symlink planted there is
	   never followed) and renamed without replacing (a concurrent run that
	   wrote it first wins). */
	snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
	if (hwloc_topology_load(topo) == 0 && hwloc_topology_export_xmlbuffer(topo, &xml, &len, 0) == 0) {
		/* hwloc counts the final NUL in len */
		size_t n = len > 0 ? (size_t)len - 1 : 0, off = 0;
		int err = 0;

		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0) {
			err = errno;
		} else {
			while (off < n) {
				ssize_t w = write(fd, xml + off, n - off);
				if (w <= 0) {
					err = w < 0 ? errno : ENOSPC;
					break;
				}
				off += (size_t)w;
			}
			if (close(fd) < 0 && !err)
				err = errno;
			if (!err && renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) < 0 &&
			    errno != EEXIST)
				err = errno;
			unlink(tmp);       /* after a rename: gone already; after EEXIST: ours, unused */
		}
		if (err)
			fprintf(stderr, "%s: warning: cannot write the topology %s: %s\n", prog, path, strerror(err));
		hwloc_free_xmlbuffer(topo, xml);
	}
	hwloc_topology_destroy(topo);
}

/* Why perf_event_open fails when the cause is this process's setting, not
   the machine: a seccomp filter, or perf_event_paranoid above 2. */
static void explain_refusal(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "re");
	int mode = -1, par = HC_PARANOID_UNKNOWN;

	(void)hc_perf_paranoid(&par);

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "Seccomp: %d", &mode) == 1)
			break;
	if (f)
		fclose(f);
	if (mode == 2)
		fprintf(stderr, "%s: note: this process runs under a seccomp filter (Seccomp: 2 in "
		        "/proc/self/status); if it denies perf_event_open, run outside it (docker: "
		        "--security-opt seccomp=unconfined, or allow perf_event_open in the profile)\n", prog);
	if (par > 2)
		fprintf(stderr, "%s: note: kernel.perf_event_paranoid is %d: unprivileged processes may not "
		        "use perf events at all; ask an administrator for: sysctl kernel.perf_event_paranoid=2\n",
		        prog, par);
}

/* An existing measurement directory must be ours and closed to others:
   writing profiles into a directory someone else controls would let them
   read or replace them. */
static void check_dir(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		die(NULL, "%s: %s", dir, strerror(errno));
	if (S_ISLNK(st.st_mode) && stat(dir, &st) < 0)
		die(NULL, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		die("choose another directory with -o", "%s exists and is not a directory", dir);
	if (st.st_uid != geteuid())
		die("choose a directory of your own with -o",
		    "%s belongs to uid %u, not to you (uid %u)", dir, (unsigned)st.st_uid, (unsigned)geteuid());
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
		die("chmod o-w it, or choose another directory with -o",
		    "%s is writable by every user", dir);
}

#ifdef HC_SANITIZERS
/* An ASan-built runtime needs the ASan runtime first in LD_PRELOAD. */
static int asan_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "libasan.so")) {
		snprintf(data, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}
#endif

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "event", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "list", no_argument, NULL, 'L' },
		{ "sampler", required_argument, NULL, 's' },
		{ "exact", no_argument, NULL, 'X' },
		{ "line-size", required_argument, NULL, 'l' },
		{ "bulletin-board-size", required_argument, NULL, 'b' },
		{ "watchpoints", required_argument, NULL, 'w' },
		{ "min-alloc", required_argument, NULL, 'm' },
		{ "flush-interval", required_argument, NULL, 'F' },
		{ "dir-mode", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *event = NULL, *outdir = NULL, *sampler = "auto", *line = NULL;
	bool exact = false;
	unsigned long bb = HC_BB_DEFAULT_SLOTS, nwatch = ULONG_MAX, min_alloc = 0;
	unsigned long flush = HC_DEFAULT_FLUSH_INTERVAL, dir_mode = 0700;
	unsigned hostid;
	bool created;
	char err[512], why[1024], progpath[PATH_MAX], rtlib[PATH_MAX], dir[PATH_MAX], buf[PATH_MAX * 3];
	uint64_t period;
	int c, kind, sel, par;
	char *end;

	while ((c = getopt_long(argc, argv, "+e:o:LhV", opts, NULL)) != -1) {
		switch (c) {
		case 'e': event = optarg; break;
		case 'o': outdir = optarg; break;
		case 'L': return list_capabilities();
		case 's': sampler = optarg; break;
		case 'X': exact = true; break;
		case 'l':
			if (strcmp(optarg, "64") != 0 && strcmp(optarg, "128") != 0)
				die("use 64, or 128 to model adjacent-line prefetch", "bad --line-size '%s'", optarg);
			line = optarg;
			break;
		case 'b':
			errno = 0;
			bb = strtoul(optarg, &end, 10);
			if (errno || *end || bb == 0 || bb > (1u << 24))
				die("use a number of slots from 1 to 16777216",
				    "bad --bulletin-board-size '%s'", optarg);
			break;
		case 'w':
			errno = 0;
			nwatch = strtoul(optarg, &end, 10);
			if (errno || *end || nwatch > HC_MAX_WATCH)
				die("x86 has 4 debug registers: use 0 to 4", "bad --watchpoints '%s'", optarg);
			break;
		case 'm':
			errno = 0;
			min_alloc = strtoul(optarg, &end, 10);
			if (errno || *end)
				die(NULL, "bad --min-alloc '%s' (bytes)", optarg);
			break;
		case 'F':
			errno = 0;
			flush = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || flush > 86400)
				die("give whole seconds from 0 (off) to 86400", "bad --flush-interval '%s'", optarg);
			break;
		case 'D':
			errno = 0;
			dir_mode = strtoul(optarg, &end, 8);
			if (errno || *end || !*optarg || dir_mode > 0777 || !(dir_mode & 0700))
				die("give an octal mode that lets you in, e.g. 0700 or 0750", "bad --dir-mode '%s'", optarg);
			break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("hpcrun-comm %s\n", PACKAGE_VERSION); return 0;
		default:  usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		die("e.g. hpcrun-comm ./app", "no program to measure");
	}
	if (hc_event_parse(event ? event : "COMM", &period, err, sizeof err) < 0)
		die("the only event is COMM, e.g. -e COMM or -e COMM@500000", "%s", err);
	if (hc_sampler_parse(sampler, &kind) < 0)
		die("use auto, soft, pebs or ibs (or --exact)", "unknown sampler '%s'", sampler);
	if (exact && kind != HC_SAMPLER_NONE && kind != HC_SAMPLER_EXACT)
		die("choose one: --exact counts every access, --sampler samples them",
		    "--exact and --sampler %s exclude each other", sampler);
	if (exact)
		kind = HC_SAMPLER_EXACT;
	if (line && kind != HC_SAMPLER_EXACT)
		die("add --exact", "--line-size is an option of exact mode");
	if (!find_program(argv[optind], progpath, sizeof progpath))
		die("check the name, or give a path", "program not found: %s", argv[optind]);
	check_program(progpath);
	if (kind == HC_SAMPLER_EXACT && tsan_imports(progpath) == 0)
		die("rebuild it with hpcrun-comm-cc or hpcrun-comm-c++ (e.g. hpcrun-comm-cc -O2 -g -pthread "
		    "-o app app.c), or measure it sampled, without --exact",
		    "%s was not built for exact mode: it makes no instrumentation calls (__tsan_*), so "
		    "there is nothing to count", progpath);

	sel = hc_probe_select_checked(kind, NULL, why, sizeof why);
	if (sel < 0) {
		explain_refusal();
		die("run hpcrun-comm -L for what this machine supports", "cannot measure: %s", why);
	}
	par = HC_PARANOID_UNKNOWN;
	(void)hc_perf_paranoid(&par);
	if (sel != HC_SAMPLER_EXACT && par > 2)
		fprintf(stderr, "%s: note: kernel.perf_event_paranoid is %d (above 2): kernels with the "
		        "paranoid-3 patch (Debian, Android) forbid unprivileged perf events at this level; "
		        "this one allows measuring your own processes, so measurement goes on\n",
		        prog, par);
	if ((sel == HC_SAMPLER_PEBS || sel == HC_SAMPLER_IBS) && hc_pmu_period(sel, period) != period)
		fprintf(stderr, "%s: note: COMM@%llu is below the %s sampler's floor (or not a multiple "
		        "of 16 for ibs): sampling every %llu events instead (more often, the kernel "
		        "throttles)\n", prog, (unsigned long long)period, hc_sampler_name(sel),
		        (unsigned long long)hc_pmu_period(sel, period));
	if (sel == HC_SAMPLER_SOFT && period < HC_MIN_SOFT_PERIOD)
		die("use a period of at least 50000 ns with the soft sampler",
		    "COMM@%llu is too short for the soft sampler: below 50 us the timer interrupts "
		    "livelock the program in a virtual machine", (unsigned long long)period);

	find_runtime(rtlib, sizeof rtlib);
	if (kind == HC_SAMPLER_EXACT) {
		char xrt[PATH_MAX];
		if (exact_runtime(rtlib, xrt, sizeof xrt) < 0)
			die("reinstall hpcrun-comm, or set HPCRUN_COMM_EXACT_RUNTIME",
			    "exact runtime not found: %s", xrt);
		snprintf(rtlib, sizeof rtlib, "%s", xrt);
		if (line)
			setenv("HPCRUN_COMM_EXACT_LINE", line, 1);
		else
			unsetenv("HPCRUN_COMM_EXACT_LINE");
	}
	if (outdir) {
		snprintf(dir, sizeof dir, "%s", outdir);
	} else {
		const char *base = strrchr(progpath, '/');
		snprintf(dir, sizeof dir, "hpctoolkit-%s-measurements", base ? base + 1 : progpath);
	}
	created = mkdir(dir, 0700) == 0;
	if (!created && errno != EEXIST)
		die("choose another directory with -o", "cannot create %s: %s", dir, strerror(errno));
	/* Exactly the mode asked (mkdir's is filtered by the umask). */
	if (created && chmod(dir, (mode_t)dir_mode) < 0)
		die(NULL, "cannot set the mode of %s: %s", dir, strerror(errno));
	check_dir(dir);
	if (!realpath(dir, buf))
		die(NULL, "%s: %s", dir, strerror(errno));
	snprintf(dir, sizeof dir, "%s", buf);
	hostid = (unsigned)gethostid();
	write_topology(dir, hostid);

	setenv("HPCRUN_COMM_DIR", dir, 1);
	/* The runtime names its files with it and must not ask the name
	   service itself (doc/runtime.md "What a measured program can
	   observe"). */
	snprintf(buf, sizeof buf, "%08x", hostid);
	setenv("HPCRUN_COMM_HOSTID", buf, 1);
	snprintf(buf, sizeof buf, "COMM@%llu", (unsigned long long)period);
	setenv("HPCRUN_COMM_EVENT", buf, 1);
	/* The request, not the verdict: the runtime probes again and its log
	   says which sampler ran and why the others did not. */
	setenv("HPCRUN_COMM_SAMPLER", hc_sampler_name(kind), 1);
	snprintf(buf, sizeof buf, "%lu", bb);
	setenv("HPCRUN_COMM_BB_SIZE", buf, 1);
	if (nwatch != ULONG_MAX) {
		snprintf(buf, sizeof buf, "%lu", nwatch);
		setenv("HPCRUN_COMM_WATCHPOINTS", buf, 1);
	}
	snprintf(buf, sizeof buf, "%lu", min_alloc);
	setenv("HPCRUN_COMM_MIN_ALLOC", buf, 1);
	snprintf(buf, sizeof buf, "%lu", flush);
	setenv("HPCRUN_COMM_FLUSH_INTERVAL", buf, 1);
	snprintf(buf, sizeof buf, "%04lo", dir_mode);
	setenv("HPCRUN_COMM_DIR_MODE", buf, 1);
	unsetenv("HPCRUN_COMM_GEN");
	/* A shell exports the path of the command it runs as $_: ours. Run
	   natively, the program would get its own path there, as the shell
	   spells it (as typed, or found in PATH: find_program's result). The
	   runtime takes the launcher's other entries back out of its
	   environment (doc/runtime.md "What a measured program can observe"). */
	if (getenv("_"))
		setenv("_", progpath, 1);
	{
		const char *old = getenv("LD_PRELOAD");
		char asan[PATH_MAX] = "";
#ifdef HC_SANITIZERS
		dl_iterate_phdr(asan_cb, asan);
		{
			/* The program keeps its own fatal-signal behaviour: ASan's
			   handlers would turn a SIGSEGV into exit status 1. */
			const char *ao = getenv("ASAN_OPTIONS");
			char aopts[1024];
			snprintf(aopts, sizeof aopts, "%s%shandle_segv=0:handle_sigbus=0:handle_sigfpe=0:"
			         "handle_sigill=0:handle_abort=0:detect_leaks=0", ao ? ao : "", ao && *ao ? ":" : "");
			setenv("ASAN_OPTIONS", aopts, 1);
		}
#endif
		snprintf(buf, sizeof buf, "%s%s%s%s%s", asan, *asan ? ":" : "", rtlib,
		         old && *old ? ":" : "", old ? old : "");
		setenv("LD_PRELOAD", buf, 1);
	}
	if (sel == HC_SAMPLER_EXACT)
		fprintf(stderr, "%s: measuring %s (exact mode: every access, %s-byte lines) into %s\n", prog,
		        progpath, line ? line : "64", dir);
	else
		fprintf(stderr, "%s: measuring %s (sampler %s, COMM@%llu) into %s\n", prog, progpath,
		        hc_sampler_name(sel), (unsigned long long)period, dir);
	execv(progpath, argv + optind);
	die(NULL, "cannot execute %s: %s", progpath, strerror(errno));
}
