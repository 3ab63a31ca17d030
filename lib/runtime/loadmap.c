/* SPDX-License-Identifier: BSD-3-Clause */
/* loadmap.c — the one walk of the load map in the runtime. loadmap__refresh
   calls dl_iterate_phdr once (at start, after each dlopen/dlclose, at exit)
   and derives from each module's program headers, read by one loop
   (phdr_spans), everything the runtime needs: the module list written into
   every profile, the static TLS size and the code modules (executable span,
   .eh_frame_hdr) handed to lib/decode as plain data (hc_funcs_update), so
   lib/decode does no walk of its own. This library's own range comes from
   its own headers through the same loop, without a walk, because the
   allocation wrappers need it before anything else runs. Module lists are
   published through one atomic pointer; two buffers alternate, so a
   fatal-signal flush that holds the previous list still reads a whole one.
   The first walk also says what the runtime's presence adds to every
   thread's DTV (the modules with TLS the program does not load natively)
   and where the loader is: the allocation wrappers keep the DTV's extra
   slots out of the program's heap (alloc/alloc.c).
   Nothing here runs in signal context except the readers
   (loadmap__modules, loadmap__static_tls_size, loadmap__readonly,
   loadmap__pc_in_self). */
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "decode/funcstart.h"
#include "runtime/loadmap.h"
#include "support/fmt.h"
#include "support/log.h"

uint64_t loadmap__self_lo, loadmap__self_len;
uint64_t loadmap__ldso_lo, loadmap__ldso_len;
uint32_t loadmap__dtv_extra;

struct range { uint64_t lo, hi; };

struct snapshot {
	uint32_t n;
	struct hc_prof_module m[LOADMAP_MAX_MODULES];
	uint32_t nro;             /* read-only data ranges (loadmap__readonly) */
	struct range ro[LOADMAP_MAX_RO];
	uint32_t nsys;            /* system libraries' code (loadmap__system_code) */
	struct range sys[LOADMAP_MAX_SYS];
	struct range sysd[LOADMAP_MAX_SYS];  /* their whole images (loadmap__system_data) */
};

static struct snapshot *current, *spare;
static struct hc_code_module *code;       /* scratch for hc_funcs_update */
static uint64_t static_tls;
static bool tls_done;
static char exe_path[512];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* What one module's program headers say. */
struct spans {
	uint64_t lo, hi;          /* every PT_LOAD segment, [lo, hi); hi = 0: none */
	uint64_t xlo, xhi;        /* the executable ones */
	uint64_t eh_frame_hdr;    /* PT_GNU_EH_FRAME, 0 = none */
	uint64_t tls_memsz, tls_align;
	uint64_t dyn;             /* PT_DYNAMIC, 0 = none */
	uint32_t nro;             /* read-only spans: PT_LOAD without PF_W, PT_GNU_RELRO */
	uint64_t ro[8][2];
};

static void ro_add(struct spans *s, uint64_t a, uint64_t b)
{
	if (s->nro < 8) {
		s->ro[s->nro][0] = a;
		s->ro[s->nro][1] = b;
		s->nro++;
	}
}

static void phdr_spans(const ElfW(Phdr) *ph, size_t n, uint64_t bias, struct spans *s)
{
	memset(s, 0, sizeof *s);
	s->lo = s->xlo = UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = bias + ph[i].p_vaddr, b = a + ph[i].p_memsz;

		if (ph[i].p_type == PT_GNU_EH_FRAME)
			s->eh_frame_hdr = a;
		if (ph[i].p_type == PT_DYNAMIC)
			s->dyn = a;
		if (ph[i].p_type == PT_GNU_RELRO && ph[i].p_memsz)
			ro_add(s, a, b);
		if (ph[i].p_type == PT_TLS) {
			s->tls_memsz = ph[i].p_memsz;
			s->tls_align = ph[i].p_align ? ph[i].p_align : 1;
		}
		if (ph[i].p_type != PT_LOAD || ph[i].p_memsz == 0)
			continue;
		if (a < s->lo)
			s->lo = a;
		if (b > s->hi)
			s->hi = b;
		if (!(ph[i].p_flags & PF_W))
			ro_add(s, a, b);
		if (ph[i].p_flags & PF_X) {
			if (a < s->xlo)
				s->xlo = a;
			if (b > s->xhi)
				s->xhi = b;
		}
	}
}

/* Our own ELF header, placed by the linker at the start of our first
   segment. */
extern const ElfW(Ehdr) __ehdr_start __attribute__((visibility("hidden")));

void loadmap__self_init(void)
{
	const ElfW(Ehdr) *eh = &__ehdr_start;
	const ElfW(Phdr) *ph;
	uint64_t bias = 0;
	struct spans s;

	/* The program headers follow the ELF header in the same mapping, past
	   the object the declaration describes: hide the pointer's origin from
	   UBSan's object-size check (it aborted test_loadmap and the runtime's
	   constructor in the sanitizer build). */
	__asm__("" : "+r"(eh));
	ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);

	if (__atomic_load_n(&loadmap__self_len, __ATOMIC_ACQUIRE))
		return;
	/* The segment that maps file offset 0 holds the ELF header. */
	for (size_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0) {
			bias = (uint64_t)(uintptr_t)eh - ph[i].p_vaddr;
			break;
		}
	phdr_spans(ph, eh->e_phnum, bias, &s);
	if (s.hi <= s.lo)
		return;
	loadmap__self_lo = s.lo;
	__atomic_store_n(&loadmap__self_len, s.hi - s.lo, __ATOMIC_RELEASE);
}

struct walk {
	struct snapshot *snap;
	size_t ncode;
	uint64_t tls;
};

/* ---- the first walk: the DTV's extra slots ----
   glibc's loader callocs a thread's DTV with one slot per module with TLS
   (plus a surplus): the modules loaded at start that the program does not
   load natively — not reachable through DT_NEEDED from the executable or
   from the user's own LD_PRELOAD entries (the launcher puts the runtime
   first) — make every DTV larger. */
#define START_MAX 512
static struct start_mod {
	const char *path, *soname;
	const ElfW(Dyn) *dyn;
	uint64_t addr, strtab, lo, hi;
	bool tls, native;
} start[START_MAX];
static unsigned nstart;
static struct loadmap_range private_mods[LOADMAP_PRIVATE_MAX];
static uint32_t nprivate;

uint32_t loadmap__private(struct loadmap_range *out, uint32_t max)
{
	uint32_t n = __atomic_load_n(&nprivate, __ATOMIC_ACQUIRE);

	if (n > max)
		n = max;
	for (uint32_t i = 0; i < n; i++)
		out[i] = private_mods[i];
	return n;
}

static void start_note(const struct dl_phdr_info *info, const struct spans *s)
{
	struct start_mod *d;
	uint64_t soname = UINT64_MAX;

	if (nstart >= START_MAX)
		return;
	d = &start[nstart++];
	memset(d, 0, sizeof *d);
	d->path = info->dlpi_name ? info->dlpi_name : "";
	d->addr = info->dlpi_addr;
	d->lo = s->lo;
	d->hi = s->hi;
	d->tls = s->tls_memsz != 0;
	d->dyn = (const ElfW(Dyn) *)(uintptr_t)s->dyn;
	for (const ElfW(Dyn) *e = d->dyn; e && e->d_tag != DT_NULL; e++)
		if (e->d_tag == DT_STRTAB)
			d->strtab = e->d_un.d_ptr;
		else if (e->d_tag == DT_SONAME)
			soname = e->d_un.d_val;
	/* The loader relocates these in place, except in read-only dynamic
	   sections (the vDSO's): an unrelocated one lies below the load base. */
	if (d->strtab && d->strtab < d->addr)
		d->strtab += d->addr;
	if (d->strtab && soname != UINT64_MAX)
		d->soname = (const char *)(uintptr_t)(d->strtab + soname);
}

static bool name_is(const char *s, const char *n, size_t len)
{
	return s && strlen(s) == len && strncmp(s, n, len) == 0;
}

/* Does module d answer to n..n+len (a DT_NEEDED entry, an LD_PRELOAD word)? */
static bool start_is(const struct start_mod *d, const char *n, size_t len)
{
	const char *b = strrchr(d->path, '/');

	if (memchr(n, '/', len))
		return name_is(d->path, n, len);
	return name_is(d->soname, n, len) || name_is(b ? b + 1 : d->path, n, len);
}

static bool start_mark(const char *n, size_t len)
{
	bool changed = false;

	for (unsigned i = 0; i < nstart; i++)
		if (!start[i].native && start_is(&start[i], n, len))
			start[i].native = changed = true;
	return changed;
}

static void start_count(void)
{
	uint64_t ldso = getauxval(AT_BASE);
	const char *pre = getenv("LD_PRELOAD");
	uint32_t extra = 0;
	bool changed;

	if (!nstart || nstart >= START_MAX)
		return;               /* unknown: no DTV shadow */
	loadmap__self_init();
	start[0].native = true;   /* the executable */
	for (const char *w = pre; w && *w;) {
		size_t k = strcspn(w, ": \t");
		bool self = false;
		for (unsigned i = 0; k && i < nstart; i++)
			self |= start[i].lo <= loadmap__self_lo && loadmap__self_lo < start[i].hi &&
			        start_is(&start[i], w, k);
		if (k && !self)
			start_mark(w, k);
		w += k + (w[k] ? 1 : 0);
	}
	do {
		changed = false;
		for (unsigned i = 0; i < nstart; i++) {
			if (!start[i].native || !start[i].strtab)
				continue;
			for (const ElfW(Dyn) *e = start[i].dyn; e && e->d_tag != DT_NULL; e++)
				if (e->d_tag == DT_NEEDED) {
					const char *n = (const char *)(uintptr_t)(start[i].strtab + e->d_un.d_val);
					changed |= start_mark(n, strlen(n));
				}
		}
	} while (changed);
	for (unsigned i = 0; i < nstart; i++) {
		if (start[i].tls && !start[i].native)
			extra++;
		if (ldso && start[i].addr == ldso && start[i].hi > start[i].lo) {
			loadmap__ldso_lo = start[i].lo;
			loadmap__ldso_len = start[i].hi - start[i].lo;
		}
	}
	{
		/* the runtime's private modules: neither native nor the runtime
		   itself, nor the vDSO (the kernel's, used by everyone) */
		uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
		uint32_t np = 0;
		for (unsigned i = 0; i < nstart && np < LOADMAP_PRIVATE_MAX; i++) {
			const struct start_mod *d = &start[i];
			if (d->native || d->hi <= d->lo || (d->lo <= loadmap__self_lo && loadmap__self_lo < d->hi) ||
			    (vdso && d->lo <= vdso && vdso < d->hi))
				continue;
			private_mods[np].lo = d->lo;
			private_mods[np++].hi = d->hi;
		}
		__atomic_store_n(&nprivate, np, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&loadmap__dtv_extra, extra, __ATOMIC_RELEASE);
}

static int walk_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct walk *w = arg;
	struct hc_prof_module *m;
	struct spans s;

	(void)size;
	if (w->snap->n >= LOADMAP_MAX_MODULES)
		return 1;
	phdr_spans(info->dlpi_phdr, info->dlpi_phnum, info->dlpi_addr, &s);
	if (!tls_done)
		start_note(info, &s);
	if (s.tls_memsz)
		w->tls = (w->tls + s.tls_memsz + s.tls_align - 1) / s.tls_align * s.tls_align;
	if (s.hi == 0)
		return 0;
	for (uint32_t i = 0; i < s.nro && w->snap->nro < LOADMAP_MAX_RO; i++) {
		w->snap->ro[w->snap->nro].lo = s.ro[i][0];
		w->snap->ro[w->snap->nro].hi = s.ro[i][1];
		w->snap->nro++;
	}
	if (s.xlo < s.xhi && w->snap->nsys < LOADMAP_MAX_SYS && loadmap__system_path(info->dlpi_name)) {
		w->snap->sys[w->snap->nsys].lo = s.xlo;
		w->snap->sys[w->snap->nsys].hi = s.xhi;
		w->snap->sysd[w->snap->nsys].lo = s.lo;
		w->snap->sysd[w->snap->nsys].hi = s.hi;
		w->snap->nsys++;
	}
	HC_ASSERT(w->ncode <= w->snap->n);
	m = &w->snap->m[w->snap->n];
	memset(m, 0, sizeof *m);
	m->id = w->snap->n;
	m->base = info->dlpi_addr;
	m->lo = s.lo;
	m->hi = s.hi;
	if (info->dlpi_name && info->dlpi_name[0])
		hc_fmt(m->path, sizeof m->path, "%s", info->dlpi_name);
	else if (w->snap->n == 0)
		hc_fmt(m->path, sizeof m->path, "%s", exe_path);
	else
		hc_fmt(m->path, sizeof m->path, "[anonymous-%u]", w->snap->n);
	w->snap->n++;
	if (s.eh_frame_hdr && s.xlo < s.xhi) {
		struct hc_code_module *c = &code[w->ncode++];

		c->lo = s.lo;
		c->hi = s.hi;
		c->xlo = s.xlo;
		c->xhi = s.xhi;
		c->eh_frame_hdr = s.eh_frame_hdr;
	}
	return 0;
}

static void *map_zero(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int loadmap__refresh(void)
{
	struct walk w = { 0 };
	int err = 0;

	pthread_mutex_lock(&lock);
	if (!code) {
		ssize_t n = readlink("/proc/self/exe", exe_path, sizeof exe_path - 1);

		exe_path[n > 0 ? n : 0] = 0;
		code = map_zero(LOADMAP_MAX_MODULES * sizeof *code);
		if (!code) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (!spare && !(spare = map_zero(sizeof *spare))) {
		err = -ENOMEM;
		goto out;
	}
	w.snap = spare;
	w.snap->n = 0;
	w.snap->nro = 0;
	w.snap->nsys = 0;
	dl_iterate_phdr(walk_one, &w);
	if (!tls_done) {
		static_tls = w.tls;
		start_count();
		tls_done = true;
	}
	spare = current;
	/* Release: a reader that sees the pointer sees the filled list. */
	__atomic_store_n(&current, w.snap, __ATOMIC_RELEASE);
	err = hc_funcs_update(code, w.ncode);
	HC_DEBUG_LOG(HC_DBG_INIT, "load map: %u modules, %zu with function tables, static TLS %llu bytes",
	             w.snap->n, w.ncode, (unsigned long long)static_tls);
out:
	pthread_mutex_unlock(&lock);
	return err;
}

void loadmap__atfork_child(void)
{
	pthread_mutex_init(&lock, NULL);
}

const struct hc_prof_module *loadmap__modules(uint32_t *n)
{
	const struct snapshot *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);

	*n = s ? s->n : 0;
	return s ? s->m : NULL;
}

static bool in_ranges(const struct range *r, uint32_t n, uint64_t addr)
{
	for (uint32_t i = 0; i < n; i++)
		if (addr - r[i].lo < r[i].hi - r[i].lo)
			return true;
	return false;
}

bool loadmap__readonly(uint64_t addr)
{
	const struct snapshot *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);

	return s && in_ranges(s->ro, s->nro, addr);
}

bool loadmap__system_path(const char *path)
{
	static const char *const dirs[] = { "/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/" };

	if (!path)
		return false;
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (strncmp(path, dirs[i], strlen(dirs[i])) == 0)
			return true;
	return false;
}

bool loadmap__system_code(uint64_t pc)
{
	const struct snapshot *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);

	return s && in_ranges(s->sys, s->nsys, pc);
}

bool loadmap__system_data(uint64_t addr)
{
	const struct snapshot *s = __atomic_load_n(&current, __ATOMIC_ACQUIRE);

	return s && in_ranges(s->sysd, s->nsys, addr);
}

uint64_t loadmap__static_tls_size(void)
{
	return static_tls;
}
