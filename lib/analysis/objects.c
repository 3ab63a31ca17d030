/* SPDX-License-Identifier: BSD-3-Clause */
/* objects.c — data objects: a third pass over the events resolves both data
   addresses of every communication to an object, in this order:
     heap   the OBJS record the runtime wrote for (event, side); one object
            per allocation context (experiment.xml node), all its blocks
            together, fields are byte offsets in the block;
     stack  the stack range of a thread of the same process (its header);
     tls    likewise its static TLS block;
     static the module of the detecting thread's load map holding it, then
            the ELF data symbol and its DWARF type (dwarf_vars.c): one object
            per variable, fields named like "stats[3].hits";
     unknown everything else, one object, so nothing vanishes.
   An event adds its weight once to each distinct object its two addresses
   fall in (both ends in one object: once; in two objects: to each), and to
   the object's thread cell and code pair; each field touched gets the weight
   once and remembers which threads touched it. Objects are ranked by false
   sharing, then by all. Sequential (the symbol caches are not shared);
   memory grows with objects x fields x threads, not with events.
   objects.xml is written by lib/db (write_objects.c) from the ranked rows
   this file hands it. No signal context. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/dbuf.h"
#include "analysis/internal.h"
#include "analysis/objects.h"
#include "analysis/views.h"

enum okind { OK_STATIC = HC_DB_OBJ_STATIC, OK_HEAP = HC_DB_OBJ_HEAP, OK_STACK = HC_DB_OBJ_STACK,
             OK_TLS = HC_DB_OBJ_TLS, OK_UNKNOWN = HC_DB_OBJ_UNKNOWN };

struct obj {
	uint32_t kind;
	char *name;
	const char *module;         /* an->modules string or "" */
	uint32_t context;           /* experiment.xml node, 0 */
	uint64_t size, blocks;
	uint64_t t, f;
	/* the element type (static: of an array variable its element, else
	   its type; heap: what the variable it is stored into points to) and
	   its size, for the reports' layout advice; "" / 0 when unknown */
	char etype[128];
	uint64_t esize;
	/* heap, while resolving (worker-local): the variable the block is
	   stored into and the DWARF type it points to, for field paths */
	struct dvmod *tmod;
	struct dv_type type;
	char *var;
};

struct fld {
	uint32_t obj;
	char *name;                 /* NULL: a bare byte range */
	uint64_t off, size;
	uint32_t access;            /* bytes of the accesses counted here */
	uint64_t t, f;
};

struct objects {
	struct hmap index;          /* (kind, a, b) -> object */
	struct obj *o;
	uint32_t ocap;
	struct hmap fidx;           /* (obj | access << 32, off, size | name id << 32) -> field */
	struct fld *fl;
	uint32_t fcap;
	struct strtab fnames;
	struct agg cells;           /* (obj, i, j), i < j */
	struct agg cps;             /* (obj, c, p) as in pairs.c */
	struct hmap fthreads;       /* (field, thread, 0): presence */
	struct hmap blocks;         /* (obj, base, size): distinct heap blocks */
	uint32_t *rank;             /* object indexes, ranked */
};

/* The stack frames a thread's profile recorded (FRAM), sorted by
   objects__frames_sort, each with the module and address DWARF is asked
   about. */
struct sframes {
	bool loaded;
	size_t n;
	struct hc_prof_frame *f;
	struct dvmod **mod;         /* NULL: no DWARF for this frame */
	uint64_t *pc;               /* relative to the module's load bias */
};

/* Per-run caches of the static side. */
struct modcache {
	struct strtab paths;
	struct dvmod **mods;        /* by path id, NULL when unreadable */
	uint32_t cap;
	struct sframes *sf;         /* by global thread, loaded on first use */
};

/* One resolved address. */
struct res {
	uint32_t obj;
	uint32_t field;
};

static int object(struct objects *ob, uint32_t kind, uint64_t a, uint64_t b, uint32_t *idx,
                  bool *added)
{
	struct hkey k = { kind, a, b };
	int ret = hmap__intern(&ob->index, &k, idx);

	if (ret < 0)
		return ret;
	*added = ret == 1;
	if (*added) {
		if (an__grow(&ob->o, &ob->ocap, *idx + 1, sizeof(*ob->o)))
			return -ENOMEM;
		memset(&ob->o[*idx], 0, sizeof(ob->o[*idx]));
		ob->o[*idx].kind = kind;
		ob->o[*idx].module = "";
	}
	return 0;
}

/* A field or byte range of an object, per access size: an 8-byte store and
   a 32-byte memset at one offset are two entries. */
static int field(struct objects *ob, uint32_t obj, const char *name, uint64_t off,
                 uint64_t size, uint32_t access, uint32_t *idx)
{
	uint32_t nid = 0;
	struct hkey k;
	int ret;

	if (name && name[0]) {
		if (strtab__intern(&ob->fnames, name, &nid) < 0)
			return -ENOMEM;
		nid++;
	}
	k = (struct hkey){ obj | (uint64_t)access << 32, off, size | (uint64_t)nid << 32 };
	ret = hmap__intern(&ob->fidx, &k, idx);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		if (an__grow(&ob->fl, &ob->fcap, *idx + 1, sizeof(*ob->fl)))
			return -ENOMEM;
		ob->fl[*idx] = (struct fld){ .obj = obj, .off = off, .size = size, .access = access };
		if (nid && !(ob->fl[*idx].name = strdup(name)))
			return -ENOMEM;
	}
	return 0;
}

static int set_name(struct obj *o, const char *s)
{
	if (o->name)
		return 0;
	o->name = strdup(s);
	return o->name ? 0 : -ENOMEM;
}

/* Frames that say nothing about which object was allocated: allocation
   helpers (operator new calling malloc, strdup, a program's xmalloc; see
   doc/objects.md) and the C runtime's start-up. */
static bool boring_frame(const char *name)
{
	static const char *const prefix[] = { "_Znw", "_Zna", "operator new", "__libc_start" };
	static const char *const exact[] = { "_start", "strdup", "__strdup", "strndup",
	                                     "__strndup", "xmalloc", "xcalloc", "xrealloc",
	                                     "xstrdup", "xzalloc" };
	size_t i;

	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return true;
	return false;
}

static struct dvmod *module_of(struct modcache *mc, const char *path);

/* One frame of an allocation context, innermost first. */
struct hframe {
	uint32_t proc;              /* view procedure */
	uint32_t file, line;        /* where this frame calls the next inner one */
	uint32_t lm;                /* module of the call's return address */
	uint64_t ra;                /* that return address (offset from the load bias) */
	bool inlined;               /* an A frame: inlined into the next outer one */
	bool lib;                   /* a system library's code or header */
	bool alloc;                 /* an allocation helper (operator new, strdup...) */
};

#define HFRAMES 64

static bool prefixed(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* Code that is not the application's: a module or a source file of the
   system (libc, libstdc++ and its headers, libgomp), or this runtime. */
bool objects__system_path(const char *p)
{
	return prefixed(p, "/lib/") || prefixed(p, "/lib64/") || prefixed(p, "/usr/lib") ||
	       prefixed(p, "/usr/include/") || strstr(p, "libhpcrun-comm") || p[0] == '[' ||
	       p[0] == '<';
}

static bool header_file(const char *p)
{
	const char *dot = strrchr(p, '.');

	return dot && (!strcmp(dot, ".h") || !strcmp(dot, ".hh") || !strcmp(dot, ".hpp") ||
	               !strcmp(dot, ".hxx") || !strcmp(dot, ".inl") || !strcmp(dot, ".H"));
}

/* The frames of allocation context gn (global CCT node), innermost first. */
static uint32_t context_frames(const struct an *an, uint32_t gn, struct hframe *fr)
{
	const struct view *w = &an->view;
	uint32_t n = 0, g;

	for (g = gn; g && n < HFRAMES; g = cct__parent(&an->tree, g)) {
		uint32_t x = an->view.of_cct[g], file = w->n[x].file, line = w->n[x].line;

		for (x = w->n[x].parent; x && n < HFRAMES; x = w->n[x].parent) {
			const struct hc_db_tproc *pr;
			const char *name;

			if (w->n[x].kind != V_A && w->n[x].kind != V_PF)
				break;
			pr = &w->proc[w->n[x].proc];
			name = w->names.s[pr->name];
			fr[n] = (struct hframe){ .proc = w->n[x].proc, .file = file, .line = line,
			                         .lm = cct__lm(&an->tree, g),
			                         .ra = cct__offset(&an->tree, g),
			                         .inlined = w->n[x].kind == V_A };
			fr[n].alloc = boring_frame(name);
			fr[n].lib = fr[n].alloc || (pr->lm < an->modules.n && objects__system_path(an->modules.s[pr->lm])) ||
			            (file && objects__system_path(w->files.s[file]));
			n++;
			if (w->n[x].kind == V_PF)
				break;
			file = w->n[x].file;
			line = w->n[x].line;
		}
	}
	return n;
}

/* The identifier a call's name is found by on a source line: "CALLOC",
   "Allocate" of "Allocate<double>", "resize" of "std::vector<...>::resize",
   "new" of "operator new[]". */
static void call_token(const char *call, char *tok, size_t len)
{
	const char *p = call, *q;
	size_t n;

	if (prefixed(call, "operator new")) {
		snprintf(tok, len, "new");
		return;
	}
	for (q = call; *q && *q != '<' && *q != '('; q++)
		if (q[0] == ':' && q[1] == ':')
			p = q + 2;
	n = (size_t)(q - p);
	snprintf(tok, len, "%.*s", (int)(n < len ? n : len - 1), p);
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool source_assignment(char *buf, const char *tok, char *var, size_t len);

/* The variable a call's result is assigned to on source line `line` of
   path: "x = [(cast)] CALL(...)" with nothing but a cast between. Returns
   false when the file cannot be read or the line is not such an
   assignment. */
static bool assigned_var(const char *path, uint32_t line, const char *call, char *var,
                         size_t len)
{
	char tok[128], *buf = NULL;
	size_t cap = 0;
	struct stat st;
	FILE *f = NULL;
	uint32_t k = 0;
	bool ok = false;
	int fd;

	if (!path || path[0] != '/' || !line || !call)
		return false;
	call_token(call, tok, sizeof(tok));
	/* Only a regular file: a path from DWARF may name anything (a FIFO
	   would block). */
	if (!tok[0] || (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !(f = fdopen(fd, "r"))) {
		close(fd);
		return false;
	}
	while (getline(&buf, &cap, f) >= 0)
		if (++k == line)
			break;
	fclose(f);
	if (k != line || !buf) {
		free(buf);
		return false;
	}
	ok = source_assignment(buf, tok, var, len);
	free(buf);
	return ok;
}

/* The assignment "NAME = [(cast)] TOK(" on one source line. */
static bool source_assignment(char *buf, const char *tok, char *var, size_t len)
{
	char *at, *eq, *e, *b;

	for (at = strstr(buf, tok); at; at = strstr(at + 1, tok))
		if ((at == buf || !ident_char(at[-1])) && !ident_char(at[strlen(tok)]))
			break;
	if (!at)
		return false;
	/* The '=' before the call: not part of ==, <=, >=, != or +=... */
	for (eq = at; eq > buf && eq[-1] != '=' && eq[-1] != ';'; eq--)
		;
	if (eq == buf || eq[-1] != '=')
		return false;
	eq--;
	if (eq > buf && strchr("=<>!+-*/%&|^", eq[-1]))
		return false;
	/* Between '=' and the call: blanks, casts "(T *)" and qualifiers
	   "ns::". */
	for (b = eq + 1; b < at; b++) {
		if (*b == '(') {
			char *c = strchr(b, ')');
			if (!c || c >= at)
				return false;
			b = c;
		} else if (*b != ' ' && *b != '\t' && *b != ':' && !ident_char(*b)) {
			return false;
		}
	}
	/* The assigned identifier: the last one before '='. */
	for (e = eq; e > buf && (e[-1] == ' ' || e[-1] == '\t'); e--)
		;
	for (b = e; b > buf && ident_char(b[-1]); b--)
		;
	if (b == e || (b[0] >= '0' && b[0] <= '9'))
		return false;
	if ((size_t)(e - b) >= len)
		return false;
	snprintf(var, len, "%.*s", (int)(e - b), b);
	return true;
}

static const char *base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* A heap object's name, from its allocation context gn (doc/objects.md,
   "Naming heap objects"): the call site in the application's own code,
   what it called, the variable the block was stored into, and up to three
   callers. Fills o->var/o->type/o->tmod when the variable is known. */
static void heap_name(const struct an *an, struct modcache *mc, uint32_t gn, struct obj *o,
                      char *buf, size_t len)
{
	const struct view *w = &an->view;
	struct hframe fr[HFRAMES];
	uint32_t n = gn != HC_NONE ? context_frames(an, gn, fr) : 0, i = 0, k, callers = 0;
	const char *call = NULL, *file;
	char var[128];
	struct dvmod *dm = NULL;
	bool helpers_only = true;
	size_t at;

	buf[0] = '\0';
	while (i < n && fr[i].lib) {
		helpers_only = helpers_only && fr[i].alloc;
		i++;
	}
	if (i == n) {
		/* Nothing of the application: the innermost named frame. */
		if (n)
			snprintf(buf, len, "allocation in %s", w->names.s[w->proc[fr[0].proc].name]);
		else
			snprintf(buf, len, "<unknown allocation context>");
		return;
	}
	if (i > 0)
		call = w->names.s[w->proc[fr[i - 1].proc].name];
	/* A wrapper of the allocator (CALLOC, Allocate<T>): inlined, or defined
	   in a header; named by where it is called. */
	if (helpers_only && i + 1 < n && !fr[i + 1].lib &&
	    (fr[i].inlined || header_file(w->files.s[w->proc[fr[i].proc].file]))) {
		call = w->names.s[w->proc[fr[i].proc].name];
		i++;
	}
	if (fr[i].lm < an->modules.n && an->modules.s[fr[i].lm][0] == '/')
		dm = module_of(mc, an->modules.s[fr[i].lm]);
	if (!call && dm && (call = dvars__callee_at(dm, fr[i].ra)) && prefixed(call, "__builtin_"))
		call += 10;
	file = fr[i].file ? w->files.s[fr[i].file] : NULL;
	var[0] = '\0';
	/* GCC turns malloc + memset into calloc: the source says malloc. */
	if (dm && call && !strcmp(call, "calloc") &&
	    assigned_var(file, fr[i].line, "malloc", var, sizeof(var)))
		call = "malloc";
	if (dm && call && (var[0] || assigned_var(file, fr[i].line, call, var, sizeof(var)))) {
		struct dv_type t;

		/* Only a name DWARF knows in that scope. */
		if (dvars__var_at(dm, fr[i].ra ? fr[i].ra - 1 : 0, var, &t)) {
			o->type = t;
			o->tmod = dm;
			o->var = strdup(var);
		} else {
			var[0] = '\0';
		}
	}
	at = (size_t)snprintf(buf, len, "%s%s%s%s", var[0] ? var : "", var[0] ? " = " : "",
	                      call ? call : "allocation", call ? "(...)" : "");
	if (file && fr[i].line && at < len)
		at += (size_t)snprintf(buf + at, len - at, " at %s:%u", base_of(file), fr[i].line);
	if (at < len)
		at += (size_t)snprintf(buf + at, len - at, " in %s",
		                       w->names.s[w->proc[fr[i].proc].name]);
	for (k = i + 1; k < n && callers < 3 && at < len; k++) {
		if (fr[k].lib)
			continue;
		at += (size_t)snprintf(buf + at, len - at, " <- %s",
		                       w->names.s[w->proc[fr[k].proc].name]);
		callers++;
	}
}

static struct dvmod *module_of(struct modcache *mc, const char *path)
{
	uint32_t id;
	int ret = strtab__intern(&mc->paths, path, &id);

	if (ret < 0)
		return NULL;
	if (ret == 1) {
		if (an__grow(&mc->mods, &mc->cap, id + 1, sizeof(*mc->mods)))
			return NULL;
		mc->mods[id] = path[0] == '/' ? dvars__open(path) : NULL;
	}
	return mc->mods[id];
}

/* How many of the n entries (size bytes each, sorted by the uint64_t at
   byte offset off) have that key <= addr: the index of the first greater
   one. */
static size_t count_le(const void *base, size_t n, size_t size, size_t off, uint64_t addr)
{
	const char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, b + mid * size + off, sizeof(k));
		if (k <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A thread's stack or TLS range; a process's ranges sorted by lo. */
struct range {
	uint64_t lo, hi;
	uint32_t kind, thread;
};

static int cmp_range(const void *x, const void *y)
{
	const struct range *a = x, *b = y;

	return (a->lo > b->lo) - (a->lo < b->lo);
}

/* The range holding addr (ranges do not overlap; if a damaged header makes
   them, the one starting last before addr is asked). */
static bool find_range(const struct range *r, uint32_t n, uint64_t addr, const struct range **out)
{
	size_t lo = count_le(r, n, sizeof(*r), offsetof(struct range, lo), addr);

	if (lo == 0 || addr >= r[lo - 1].hi)
		return false;
	*out = &r[lo - 1];
	return true;
}

static int process_ranges(const struct an *an, uint32_t proc, struct range **out, uint32_t *n)
{
	const struct an_proc *pr = &an->procs[proc];
	struct range *r = malloc((2 * pr->nthreads + 1) * sizeof(*r));
	uint32_t t, k = 0;

	if (!r)
		return -ENOMEM;
	for (t = pr->first; t < pr->first + pr->nthreads; t++) {
		const struct an_prof *tp = an->threads[t].prof;

		if (!tp)
			continue;
		if (tp->th.tls_lo < tp->th.tls_hi)
			r[k++] = (struct range){ tp->th.tls_lo, tp->th.tls_hi, OK_TLS, t };
		if (tp->th.stack_lo < tp->th.stack_hi)
			r[k++] = (struct range){ tp->th.stack_lo, tp->th.stack_hi, OK_STACK, t };
	}
	qsort(r, k, sizeof(*r), cmp_range);
	*out = r;
	*n = k;
	return 0;
}

struct pctx {
	struct an *an;
	struct objects *ob;
	struct modcache *mc;
	struct an_prof *p;
	const struct hc_prof *hp;
	struct hc_prof_module *mods;
	size_t nmods;
	struct range *ranges;
	uint32_t nranges;
	struct views_worker *vw;    /* phases and locality (views.h) */
};

/* The __thread variable of thread tp at addr: x86-64 static TLS (variant
   II) puts the blocks of the modules loaded at start below the thread
   pointer (tls_hi) in load order, each at the running sum of the blocks'
   sizes rounded up to its alignment (what glibc's _dl_determine_tlsoffset
   computes when segments start aligned, and what the runtime's tls_lo
   assumes). The load map (c->mods) is in load order. "__thread counter",
   "__thread [libgomp.so.1+0xa0]" without a symbol; false when the block is
   not known (a module before it could not be read). */
static bool tls_field(struct pctx *c, const struct an_prof *tp, uint64_t addr, uint32_t alen,
                      char *name, size_t len, uint64_t *foff, uint64_t *fsize)
{
	uint64_t top = tp->th.tls_hi, sum = 0;
	size_t i;

	for (i = 0; i < c->nmods; i++) {
		const struct hc_prof_module *m = &c->mods[i];
		uint64_t memsz, align, start;
		struct dvmod *dm;
		struct dv_hit hit;

		if (m->path[0] != '/')
			continue;   /* [vdso], anonymous: no TLS */
		if (!(dm = module_of(c->mc, m->path)))
			return false;
		if (!dvars__tls(dm, &memsz, &align))
			continue;
		sum = (sum + memsz + align - 1) / align * align;
		start = top - sum;
		if (addr < start || addr >= start + memsz)
			continue;
		if (dvars__tls_lookup(dm, addr - start, &hit)) {
			snprintf(name, len, "__thread %s", hit.field[0] ? hit.field : hit.var);
			/* Untyped: the whole variable. */
			*foff = hit.start + (hit.fsize ? hit.foff : 0);
			*fsize = hit.fsize ? hit.fsize : hit.size;
		} else {
			const char *b = strrchr(m->path, '/');
			snprintf(name, len, "__thread [%s+0x%llx]", b ? b + 1 : m->path,
			         (unsigned long long)(addr - start));
			*foff = addr - start;
			*fsize = alen;
		}
		/* Offsets are reported from the thread's TLS range start. */
		*foff += start - tp->th.tls_lo;
		return true;
	}
	return false;
}

/* ---------------- stack locals (doc/objects.md "Stack locals") ---------------- */

static int cmp_frame(const void *x, const void *y)
{
	const struct hc_prof_frame *a = x, *b = y;

	if (a->cfa != b->cfa)
		return (a->cfa > b->cfa) - (a->cfa < b->cfa);
	return (a->count < b->count) - (a->count > b->count);
}

void objects__frames_sort(struct hc_prof_frame *f, size_t n)
{
	if (n > 1)
		qsort(f, n, sizeof(*f), cmp_frame);
}

size_t objects__frame_first(const struct hc_prof_frame *f, size_t n, uint64_t addr)
{
	return count_le(f, n, sizeof(*f), offsetof(struct hc_prof_frame, cfa), addr);
}

/* Thread t's frames: its profile opened again (only for threads whose
   stack some event touched), frames sorted, each frame's node turned into
   (module, address). An unreadable profile or one without FRAM: none. */
static struct sframes *frames_of(struct pctx *c, uint32_t t)
{
	struct modcache *mc = c->mc;
	struct sframes *sf;
	struct hc_prof *hp;
	char err[1024];
	size_t i, nn, nm;

	if (!mc->sf && !(mc->sf = calloc(c->an->nthreads ? c->an->nthreads : 1, sizeof(*mc->sf))))
		return NULL;
	sf = &mc->sf[t];
	if (sf->loaded)
		return sf;
	sf->loaded = true;
	if (!c->an->threads[t].prof || hc_prof_open(c->an->threads[t].prof->path, &hp, err,
	                                             sizeof(err)))
		return sf;
	sf->n = hc_prof_nframes(hp);
	nn = hc_prof_nnodes(hp);
	nm = hc_prof_nmodules(hp);
	if (sf->n) {
		sf->f = malloc(sf->n * sizeof(*sf->f));
		sf->mod = calloc(sf->n, sizeof(*sf->mod));
		sf->pc = calloc(sf->n, sizeof(*sf->pc));
		if (!sf->f || !sf->mod || !sf->pc) {
			sf->n = 0;
			hc_prof_close(hp);
			return sf;
		}
		for (i = 0; i < sf->n; i++)
			hc_prof_frame(hp, i, &sf->f[i]);
		objects__frames_sort(sf->f, sf->n);
		for (i = 0; i < sf->n; i++) {
			struct hc_prof_node nd;
			struct hc_prof_module m;

			if (sf->f[i].node >= nn)
				continue;
			hc_prof_node(hp, sf->f[i].node, &nd);
			if (nd.lm >= nm)
				continue;
			hc_prof_module(hp, nd.lm, &m);
			m.path[sizeof(m.path) - 1] = '\0';
			if (m.path[0] != '/')
				continue;
			sf->mod[i] = module_of(mc, m.path);
			/* a return address: its call instruction is before it */
			sf->pc[i] = (nd.flags & HC_NODE_LEAF) ? nd.offset : nd.offset - 1;
		}
	}
	hc_prof_close(hp);
	return sf;
}

#define FRAME_CANDIDATES 32
#define FRAME_MAX_BYTES  (1u << 20)   /* a frame larger than this is not believed */

/* The local of thread tp's stack at addr: the recorded frames whose CFA is
   above addr, nearest first (the frame holding addr, if it was seen, is
   the nearest), until DWARF finds a local of that frame's function
   covering addr. "local slots[1].a in main"; false when none does. */
static bool stack_field(struct pctx *c, uint32_t t, const struct an_prof *tp, uint64_t addr,
                        char *name, size_t len, uint64_t *foff, uint64_t *fsize)
{
	struct sframes *sf = frames_of(c, t);
	size_t k, tries = 0;

	if (!sf || !sf->n)
		return false;
	for (k = objects__frame_first(sf->f, sf->n, addr);
	     k < sf->n && tries < FRAME_CANDIDATES && sf->f[k].cfa - addr <= FRAME_MAX_BYTES;
	     k++, tries++) {
		struct dv_hit hit;
		char func[256];
		uint64_t var;

		if (!sf->mod[k] || !dvars__local_at(sf->mod[k], sf->pc[k],
		                                    -(int64_t)(sf->f[k].cfa - addr), sf->f[k].size,
		                                    &hit, func,
		                                    sizeof(func)))
			continue;
		snprintf(name, len, "local %s in %s", hit.fsize ? hit.field : hit.var, func);
		var = sf->f[k].cfa + hit.start;   /* hit.start: from the CFA, negative */
		*foff = var + (hit.fsize ? hit.foff : 0) - tp->th.stack_lo;
		*fsize = hit.fsize ? hit.fsize : hit.size;
		return true;
	}
	return false;
}

static int resolve(struct pctx *c, uint32_t ev, uint32_t side, uint64_t addr, uint32_t len,
                   struct res *r)
{
	struct an *an = c->an;
	struct objects *ob = c->ob;
	const struct range *rg;
	struct hc_prof_object rec;
	char name[1024];
	bool added;
	uint32_t t;
	size_t i;
	int ret;

	if (!len)
		len = 1;
	if (hc_prof_object_find(c->hp, ev, side, &rec)) {
		uint32_t g, gn = HC_NONE, v = 0;
		struct hkey bk;

		if (threads__find(an, c->p->proc, rec.thread, &g) && an->threads[g].prof)
			gn = merge__global_node(an, an->threads[g].prof, rec.ctx);
		if (gn != HC_NONE)
			v = an->view.of_cct[gn];
		if ((ret = object(ob, OK_HEAP, v, 0, &r->obj, &added)))
			return ret;
		if (added) {
			heap_name(an, c->mc, v ? gn : HC_NONE, &ob->o[r->obj], name, sizeof(name));
			if ((ret = set_name(&ob->o[r->obj], name)))
				return ret;
			ob->o[r->obj].context = v;
			if (ob->o[r->obj].type.typed) {
				memcpy(ob->o[r->obj].etype, ob->o[r->obj].type.tname,
				       sizeof(ob->o[r->obj].etype));
				ob->o[r->obj].esize = ob->o[r->obj].type.tsize;
			}
		}
		bk = (struct hkey){ r->obj, rec.base, rec.size };
		ret = hmap__intern(&ob->blocks, &bk, &t);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			ob->o[r->obj].blocks++;
			ob->o[r->obj].size += rec.size;
		}
		if (ob->o[r->obj].type.typed) {
			struct obj *o = &ob->o[r->obj];
			uint64_t foff = 0, fsize = 0;

			if (dvars__describe(o->tmod, &o->type, o->var, addr - rec.base, name,
			                    sizeof(name), &foff, &fsize) && fsize)
				return field(ob, r->obj, name, foff, fsize, len, &r->field);
		}
		return field(ob, r->obj, NULL, addr - rec.base, len, len, &r->field);
	}
	if (find_range(c->ranges, c->nranges, addr, &rg)) {
		const struct an_prof *tp = an->threads[rg->thread].prof;
		uint64_t foff = 0, fsize = 0;

		t = rg->thread;
		if ((ret = object(ob, rg->kind, t, 0, &r->obj, &added)))
			return ret;
		if (added) {
			snprintf(name, sizeof(name), "%s of thread %u",
			         rg->kind == OK_TLS ? "TLS" : "stack", t);
			if ((ret = set_name(&ob->o[r->obj], name)))
				return ret;
			ob->o[r->obj].size = rg->kind == OK_TLS ? tp->th.tls_hi - tp->th.tls_lo
			                                        : tp->th.stack_hi - tp->th.stack_lo;
			ob->o[r->obj].blocks = 1;
		}
		if (rg->kind == OK_TLS && tls_field(c, tp, addr, len, name, sizeof(name), &foff, &fsize))
			return field(ob, r->obj, name, foff, fsize, len, &r->field);
		if (rg->kind == OK_STACK &&
		    stack_field(c, t, tp, addr, name, sizeof(name), &foff, &fsize))
			return field(ob, r->obj, name, foff, fsize, len, &r->field);
		return field(ob, r->obj, NULL, addr - rg->lo, len, len, &r->field);
	}
	for (i = 0; i < c->nmods; i++) {
		const struct hc_prof_module *m = &c->mods[i];
		struct dvmod *dm;
		struct dv_hit hit;
		uint32_t mid;

		if (addr < m->lo || addr >= m->hi)
			continue;
		dm = module_of(c->mc, m->path);
		if (!dm || !dvars__lookup(dm, addr - m->base, &hit))
			break;
		if (!strtab__find(&an->modules, m->path, &mid))
			break;
		if ((ret = object(ob, OK_STATIC, mid, hit.start, &r->obj, &added)))
			return ret;
		if (added) {
			if ((ret = set_name(&ob->o[r->obj], hit.var)))
				return ret;
			ob->o[r->obj].module = an->modules.s[mid];
			ob->o[r->obj].size = hit.size;
			ob->o[r->obj].blocks = 1;
			memcpy(ob->o[r->obj].etype, hit.etype, sizeof(hit.etype));
			ob->o[r->obj].esize = hit.esize;
		}
		if (hit.fsize)
			return field(ob, r->obj, hit.field, hit.foff, hit.fsize, len, &r->field);
		return field(ob, r->obj, NULL, hit.foff, len, len, &r->field);
	}
	if ((ret = object(ob, OK_UNKNOWN, 0, 0, &r->obj, &added)))
		return ret;
	if (added && (ret = set_name(&ob->o[r->obj], "<unknown>")))
		return ret;
	r->field = HC_NONE;   /* no base to measure offsets from */
	return 0;
}

static int touch(struct objects *ob, uint32_t fieldi, uint32_t thread, uint64_t wt, uint64_t wf,
                 bool add)
{
	struct hkey k = { fieldi, thread, 0 };
	uint32_t x;

	if (fieldi == HC_NONE)
		return 0;
	if (add) {
		ob->fl[fieldi].t += wt;
		ob->fl[fieldi].f += wf;
	}
	return thread == HC_NONE ? 0 : (hmap__intern(&ob->fthreads, &k, &x) < 0 ? -ENOMEM : 0);
}

static int add_to(struct objects *ob, uint32_t obj, uint32_t ti, uint32_t tj, uint32_t c,
                  uint32_t p, uint64_t wt, uint64_t wf)
{
	struct hkey k;
	int ret = 0;

	ob->o[obj].t += wt;
	ob->o[obj].f += wf;
	if (ti != HC_NONE && tj != HC_NONE && ti != tj) {
		k = (struct hkey){ obj, ti < tj ? ti : tj, ti < tj ? tj : ti };
		ret = agg__add(&ob->cells, &k, wt, wf);
	}
	if (!ret && (c || p)) {
		k = (struct hkey){ obj, c, p };
		ret = agg__add(&ob->cps, &k, wt, wf);
	}
	return ret;
}

static int profile_events(struct pctx *c)
{
	struct an *an = c->an;
	struct an_prof *p = c->p;
	size_t i, n = hc_prof_nevents(c->hp);
	int ret = 0;

	c->nmods = hc_prof_nmodules(c->hp);
	c->mods = malloc((c->nmods ? c->nmods : 1) * sizeof(*c->mods));
	if (!c->mods)
		return -ENOMEM;
	for (i = 0; i < c->nmods; i++)
		hc_prof_module(c->hp, i, &c->mods[i]);
	for (i = 0; i < n && !ret; i++) {
		struct hc_prof_event ev;
		uint32_t gp = HC_NONE, g, gn, cv = 0, pv = 0;
		uint64_t wt, wf;
		struct res a, b;

		hc_prof_event(c->hp, i, &ev);
		/* The same events as the thread matrix: not self, not impossible. */
		if (ev.peer >= AN_MAX_THREAD || ev.peer == p->th.index)
			continue;
		ev.weight = merge__event_weight(p, &ev);
		wt = ev.flags & HC_COMM_TRUE ? ev.weight : 0;
		wf = ev.flags & HC_COMM_TRUE ? 0 : ev.weight;
		g = p->gthread;
		if (threads__find(an, p->proc, ev.peer, &gp) && an->threads[gp].prof &&
		    ev.peer_ctx < an->threads[gp].prof->nnodes &&
		    (gn = merge__global_node(an, an->threads[gp].prof, ev.peer_ctx)) != HC_NONE)
			pv = an->view.of_cct[gn];
		if ((gn = merge__global_node(an, p, ev.ctx)) != HC_NONE)
			cv = an->view.of_cct[gn];
		if (!cv) {
			cv = pv;
			pv = 0;
		}
		if (pv && pv < cv) {
			uint32_t x = pv;
			pv = cv;
			cv = x;
		}
		if ((ret = resolve(c, (uint32_t)i, HC_SIDE_ADDR, ev.addr, ev.len, &a)) ||
		    (ret = resolve(c, (uint32_t)i, HC_SIDE_PEER, ev.peer_addr, ev.peer_len, &b)))
			break;
		ret = add_to(c->ob, a.obj, g, gp, cv, pv, wt, wf);
		if (!ret && b.obj != a.obj)
			ret = add_to(c->ob, b.obj, g, gp, cv, pv, wt, wf);
		if (!ret)
			ret = touch(c->ob, a.field, g, wt, wf, true);
		if (!ret)
			ret = touch(c->ob, b.field, gp, wt, wf, b.field != a.field);
		if (!ret)
			ret = views__event(c->vw, an, p, c->hp, (uint32_t)i, &ev, g, gp,
			                   &c->ob->index.keys[a.obj], &c->ob->index.keys[b.obj], wt, wf);
	}
	free(c->mods);
	c->mods = NULL;
	return ret;
}

/* By false, then all, descending; ties by kind and name (so the order does
   not depend on how the work was split). */
static int cmp_rank(const void *x, const void *y, void *arg)
{
	const struct objects *ob = arg;
	const struct obj *a = &ob->o[*(const uint32_t *)x], *b = &ob->o[*(const uint32_t *)y];
	const struct hkey *ka = &ob->index.keys[*(const uint32_t *)x];
	const struct hkey *kb = &ob->index.keys[*(const uint32_t *)y];
	int c;

	if (a->f != b->f)
		return a->f > b->f ? -1 : 1;
	if (a->t + a->f != b->t + b->f)
		return a->t + a->f > b->t + b->f ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if ((c = strcmp(a->name, b->name)))
		return c;
	if (ka->b != kb->b)
		return ka->b < kb->b ? -1 : 1;
	return (ka->c > kb->c) - (ka->c < kb->c);
}

void objects__free(struct objects *ob)
{
	uint32_t i;

	if (!ob)
		return;
	for (i = 0; i < ob->index.n; i++) {
		free(ob->o[i].name);
		free(ob->o[i].var);
	}
	for (i = 0; i < ob->fidx.n; i++)
		free(ob->fl[i].name);
	hmap__free(&ob->index);
	hmap__free(&ob->fidx);
	hmap__free(&ob->fthreads);
	hmap__free(&ob->blocks);
	strtab__free(&ob->fnames);
	agg__free(&ob->cells);
	agg__free(&ob->cps);
	free(ob->o);
	free(ob->fl);
	free(ob->rank);
	free(ob);
}

static struct objects *objects_new(void)
{
	struct objects *ob = calloc(1, sizeof(*ob));

	if (!ob)
		return NULL;
	if (hmap__init(&ob->index, 64) || hmap__init(&ob->fidx, 256) ||
	    hmap__init(&ob->fthreads, 256) || hmap__init(&ob->blocks, 64) ||
	    strtab__init(&ob->fnames) || agg__init(&ob->cells, 256) || agg__init(&ob->cps, 256)) {
		objects__free(ob);
		return NULL;
	}
	return ob;
}

struct build {
	struct an *an;
	struct objects **wob;       /* one table per worker */
	/* Stack and TLS ranges by process, built once: per profile it was
	   O(threads of the process) each, quadratic with 100,000 threads. */
	struct range **ranges;
	uint32_t *nranges;
	uint32_t next, done;
	int err;
};

static void build_main(void *arg, unsigned id)
{
	struct build *b = arg;
	struct an *an = b->an;
	struct modcache mc;
	uint32_t i;
	int ret = 0;

	memset(&mc, 0, sizeof(mc));
	if (strtab__init(&mc.paths))
		ret = -ENOMEM;
	while (!ret) {
		struct pctx c = { .an = an, .ob = b->wob[id], .mc = &mc,
		                  .vw = views__worker(an->views, id) };
		struct hc_prof *hp;
		char err[1024];

		i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED);
		if (i >= an->nprofs)
			break;
		c.p = &an->profs[i];
		if (c.p->theirs)
			continue;   /* distributed: another rank resolves it (dist_objects.c) */
		if (c.p->status == AN_OK) {
			c.ranges = b->ranges[c.p->proc];
			c.nranges = b->nranges[c.p->proc];
		}
		/* A profile rewritten since pass 2 was warned about there. */
		if (c.p->status == AN_OK && c.p->gthread != HC_NONE &&
		    !hc_prof_open(c.p->path, &hp, err, sizeof(err))) {
			c.hp = hp;
			ret = profile_events(&c);
			hc_prof_close(hp);
		}
		__atomic_fetch_add(&b->done, 1, __ATOMIC_RELAXED);
	}
	if (ret) {
		__atomic_store_n(&b->err, ret, __ATOMIC_RELAXED);
		__atomic_store_n(&b->next, an->nprofs, __ATOMIC_RELAXED);
	}
	for (i = 0; i < mc.paths.n; i++)
		dvars__close(mc.mods[i]);
	free(mc.mods);
	if (mc.sf)
		for (i = 0; i < an->nthreads; i++) {
			free(mc.sf[i].f);
			free(mc.sf[i].mod);
			free(mc.sf[i].pc);
		}
	free(mc.sf);
	strtab__free(&mc.paths);
}

/* Add one worker's table to the global one. */
static int merge_into(struct objects *g, const struct objects *w)
{
	uint32_t *omap = malloc((w->index.n + 1) * sizeof(*omap));
	uint32_t *fmap = malloc((w->fidx.n + 1) * sizeof(*fmap));
	uint32_t i, x;
	int ret = -ENOMEM;
	bool added;

	if (!omap || !fmap)
		goto out;
	for (i = 0; i < w->index.n; i++) {
		const struct hkey *k = &w->index.keys[i];
		const struct obj *wo = &w->o[i];
		struct obj *go;

		if ((ret = object(g, (uint32_t)k->a, k->b, k->c, &omap[i], &added)))
			goto out;
		go = &g->o[omap[i]];
		if (added) {
			if ((ret = set_name(go, wo->name)))
				goto out;
			go->module = wo->module;
			go->context = wo->context;
			memcpy(go->etype, wo->etype, sizeof(go->etype));
			go->esize = wo->esize;
			if (wo->kind != OK_HEAP) {   /* heap: from the blocks below */
				go->size = wo->size;
				go->blocks = wo->blocks;
			}
		}
		go->t += wo->t;
		go->f += wo->f;
	}
	ret = -ENOMEM;
	for (i = 0; i < w->blocks.n; i++) {
		const struct hkey *k = &w->blocks.keys[i];
		struct hkey nk = { omap[k->a], k->b, k->c };
		int r = hmap__intern(&g->blocks, &nk, &x);

		if (r < 0)
			goto out;
		if (r == 1) {
			g->o[nk.a].blocks++;
			g->o[nk.a].size += k->c;
		}
	}
	for (i = 0; i < w->fidx.n; i++) {
		const struct fld *f = &w->fl[i];

		if (field(g, omap[f->obj], f->name, f->off, f->size, f->access, &fmap[i]))
			goto out;
		g->fl[fmap[i]].t += f->t;
		g->fl[fmap[i]].f += f->f;
	}
	for (i = 0; i < w->fthreads.n; i++) {
		struct hkey nk = { fmap[w->fthreads.keys[i].a], w->fthreads.keys[i].b, 0 };
		if (hmap__intern(&g->fthreads, &nk, &x) < 0)
			goto out;
	}
	for (i = 0; i < w->cells.h.n; i++) {
		const struct hkey *k = &w->cells.h.keys[i];
		struct hkey nk = { omap[k->a], k->b, k->c };
		if (agg__add(&g->cells, &nk, w->cells.v[i][0], w->cells.v[i][1]))
			goto out;
	}
	for (i = 0; i < w->cps.h.n; i++) {
		const struct hkey *k = &w->cps.h.keys[i];
		struct hkey nk = { omap[k->a], k->b, k->c };
		if (agg__add(&g->cps, &nk, w->cps.v[i][0], w->cps.v[i][1]))
			goto out;
	}
	ret = 0;
out:
	free(omap);
	free(fmap);
	return ret;
}

int objects__rank(struct objects *ob)
{
	uint32_t i;

	free(ob->rank);
	ob->rank = malloc((ob->index.n ? ob->index.n : 1) * sizeof(*ob->rank));
	if (!ob->rank)
		return -ENOMEM;
	for (i = 0; i < ob->index.n; i++)
		ob->rank[i] = i;
	qsort_r(ob->rank, ob->index.n, sizeof(*ob->rank), cmp_rank, ob);
	return 0;
}

/* ---------------- distributed: a rank's table as bytes (dist_objects.c) ----------------
   Everything merge_into reads: objects with their identity key, name,
   context, sizes and element type (a static object's module is its key's
   module id, the same on every rank after the context was broadcast),
   heap blocks, fields, the threads that touched each field, cells and code
   pairs. */

void objects__pack(const struct objects *ob, struct wbuf *b)
{
	uint32_t i;

	dbuf__put32(b, ob->index.n);
	for (i = 0; i < ob->index.n; i++) {
		const struct hkey *k = &ob->index.keys[i];
		const struct obj *o = &ob->o[i];

		dbuf__put64(b, k->a);
		dbuf__put64(b, k->b);
		dbuf__put64(b, k->c);
		dbuf__putstr(b, o->name);
		dbuf__put32(b, o->context);
		dbuf__put64(b, o->size);
		dbuf__put64(b, o->blocks);
		dbuf__put64(b, o->t);
		dbuf__put64(b, o->f);
		dbuf__put(b, o->etype, sizeof(o->etype));
		dbuf__put64(b, o->esize);
	}
	dbuf__put32(b, ob->blocks.n);
	for (i = 0; i < ob->blocks.n; i++)
		dbuf__put(b, &ob->blocks.keys[i], sizeof(struct hkey));
	dbuf__put32(b, ob->fidx.n);
	for (i = 0; i < ob->fidx.n; i++) {
		const struct fld *f = &ob->fl[i];

		dbuf__put32(b, f->obj);
		dbuf__putstr(b, f->name);
		dbuf__put64(b, f->off);
		dbuf__put64(b, f->size);
		dbuf__put32(b, f->access);
		dbuf__put64(b, f->t);
		dbuf__put64(b, f->f);
	}
	dbuf__put32(b, ob->fthreads.n);
	for (i = 0; i < ob->fthreads.n; i++) {
		dbuf__put32(b, (uint32_t)ob->fthreads.keys[i].a);
		dbuf__put32(b, (uint32_t)ob->fthreads.keys[i].b);
	}
	for (int a = 0; a < 2; a++) {
		const struct agg *g = a ? &ob->cps : &ob->cells;

		dbuf__put32(b, g->h.n);
		for (i = 0; i < g->h.n; i++) {
			dbuf__put(b, &g->h.keys[i], sizeof(struct hkey));
			dbuf__put64(b, g->v[i][0]);
			dbuf__put64(b, g->v[i][1]);
		}
	}
}

int objects__unpack(const struct an *an, struct objects *into, struct rbuf *b)
{
	struct objects *w = objects_new();
	uint32_t n, i, x;
	bool oom = false, added;
	int ret = -ENOMEM;

	if (!w)
		return -ENOMEM;
	n = dbuf__count(b, 24 + 4 + 4 + 40 + 128 + 8);
	for (i = 0; i < n && !b->bad; i++) {
		struct hkey k;
		struct obj *o;
		char *name;

		k.a = dbuf__get64(b);
		k.b = dbuf__get64(b);
		k.c = dbuf__get64(b);
		name = dbuf__getstr(b, &oom);
		if (b->bad || !name || k.a > OK_UNKNOWN ||
		    (k.a == OK_STATIC && k.b >= an->modules.n)) {
			free(name);
			b->bad = true;
			break;
		}
		if ((ret = object(w, (uint32_t)k.a, k.b, k.c, &x, &added)) || !added) {
			free(name);
			if (!ret)
				b->bad = true;   /* an object twice */
			else
				goto out;
			break;
		}
		o = &w->o[x];
		o->name = name;
		if (k.a == OK_STATIC)
			o->module = an->modules.s[k.b];
		o->context = dbuf__get32(b);
		o->size = dbuf__get64(b);
		o->blocks = dbuf__get64(b);
		o->t = dbuf__get64(b);
		o->f = dbuf__get64(b);
		dbuf__get(b, o->etype, sizeof(o->etype));
		o->etype[sizeof(o->etype) - 1] = '\0';
		o->esize = dbuf__get64(b);
	}
	ret = -ENOMEM;
	n = dbuf__count(b, sizeof(struct hkey));
	for (i = 0; i < n && !b->bad; i++) {
		struct hkey k;

		dbuf__get(b, &k, sizeof(k));
		if (k.a >= w->index.n) {
			b->bad = true;
			break;
		}
		if (hmap__intern(&w->blocks, &k, &x) < 0)
			goto out;
	}
	n = dbuf__count(b, 4 + 4 + 8 + 8 + 4 + 16);
	for (i = 0; i < n && !b->bad; i++) {
		uint32_t obj = dbuf__get32(b), access;
		char *name = dbuf__getstr(b, &oom);
		uint64_t off = dbuf__get64(b), size = dbuf__get64(b);

		access = dbuf__get32(b);
		if (b->bad || obj >= w->index.n) {
			free(name);
			b->bad = true;
			break;
		}
		ret = field(w, obj, name, off, size, access, &x);
		free(name);
		if (ret)
			goto out;
		ret = -ENOMEM;
		if (x != i) {
			b->bad = true;   /* a field twice */
			break;
		}
		w->fl[x].t = dbuf__get64(b);
		w->fl[x].f = dbuf__get64(b);
	}
	n = dbuf__count(b, 8);
	for (i = 0; i < n && !b->bad; i++) {
		struct hkey k = { dbuf__get32(b), dbuf__get32(b), 0 };

		if (k.a >= w->fidx.n) {
			b->bad = true;
			break;
		}
		if (hmap__intern(&w->fthreads, &k, &x) < 0)
			goto out;
	}
	for (int a = 0; a < 2 && !b->bad; a++) {
		struct agg *g = a ? &w->cps : &w->cells;

		n = dbuf__count(b, sizeof(struct hkey) + 16);
		for (i = 0; i < n && !b->bad; i++) {
			struct hkey k;
			uint64_t v0, v1;

			dbuf__get(b, &k, sizeof(k));
			v0 = dbuf__get64(b);
			v1 = dbuf__get64(b);
			if (k.a >= w->index.n) {
				b->bad = true;
				break;
			}
			if (agg__add(g, &k, v0, v1))
				goto out;
		}
	}
	ret = oom ? -ENOMEM : 0;
	if (!ret && !b->bad)
		ret = merge_into(into, w);
out:
	objects__free(w);
	return ret;
}

int objects__build(struct an *an, struct objects **out)
{
	struct build b = { .an = an };
	struct objects *ob = objects_new();
	unsigned n = an->nworkers ? an->nworkers : 1, w;
	uint32_t i;
	int ret = -ENOMEM;

	*out = NULL;
	b.wob = calloc(n, sizeof(*b.wob));
	if (!ob || !b.wob)
		goto out;
	for (w = 0; w < n; w++)
		if (!(b.wob[w] = objects_new()))
			goto out;
	b.ranges = calloc(an->nprocs ? an->nprocs : 1, sizeof(*b.ranges));
	b.nranges = calloc(an->nprocs ? an->nprocs : 1, sizeof(*b.nranges));
	if (!b.ranges || !b.nranges)
		goto out;
	for (i = 0; i < an->nprocs; i++)
		if (an->procs[i].used && process_ranges(an, i, &b.ranges[i], &b.nranges[i]))
			goto out;
	ret = par__run(an, n, build_main, &b, "resolving data objects", &b.done, an->nprofs);
	if (!ret)
		ret = b.err;
	for (w = 0; w < n && !ret; w++)
		ret = merge_into(ob, b.wob[w]);
	if (!ret)
		ret = objects__rank(ob);
	if (ret)
		goto out;
	*out = ob;
	ob = NULL;
out:
	for (w = 0; b.wob && w < n; w++)
		objects__free(b.wob[w]);
	free(b.wob);
	for (i = 0; b.ranges && i < an->nprocs; i++)
		free(b.ranges[i]);
	free(b.ranges);
	free(b.nranges);
	objects__free(ob);
	return ret;
}

uint32_t objects__count(const struct objects *ob)
{
	return ob ? ob->index.n : 0;
}

void objects__ranked(const struct objects *ob, uint32_t r, uint64_t key[3], const char **name)
{
	const struct hkey *k = &ob->index.keys[ob->rank[r]];

	key[0] = k->a;
	key[1] = k->b;
	key[2] = k->c;
	if (name)
		*name = ob->o[ob->rank[r]].name;
}

int objects__index_keys(const struct objects *ob, struct hmap *h)
{
	uint32_t i, x, n = objects__count(ob);

	for (i = 0; i < n; i++) {
		const struct hkey *k = &ob->index.keys[ob->rank[i]];
		if (hmap__intern(h, k, &x) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* ---------------- output ---------------- */

struct child {
	uint32_t obj, key;          /* object, then a field, cell or pair index */
	uint64_t b, c;              /* the entry's key words: its order */
};

static int cmp_child(const void *x, const void *y)
{
	const struct child *a = x, *b = y;

	if (a->obj != b->obj)
		return a->obj < b->obj ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	if (a->c != b->c)
		return a->c < b->c ? -1 : 1;
	return (a->key > b->key) - (a->key < b->key);
}

/* Indexes of the entries of each object, grouped: first[o]..first[o + 1]. */
static int group(uint32_t n, const struct hkey *keys, uint32_t nobj, struct child **out,
                 uint32_t **first)
{
	struct child *c = malloc((n ? n : 1) * sizeof(*c));
	uint32_t *f = calloc(nobj + 1, sizeof(*f)), i;

	if (!c || !f) {
		free(c);
		free(f);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		c[i] = (struct child){ (uint32_t)keys[i].a, i, keys[i].b, keys[i].c };
		f[c[i].obj + 1]++;
	}
	for (i = 0; i < nobj; i++)
		f[i + 1] += f[i];
	qsort(c, n, sizeof(*c), cmp_child);
	*out = c;
	*first = f;
	return 0;
}

struct groups {
	struct child *fc, *cc, *pc, *tc;
	uint32_t *ff, *cf, *pf, *tf;
};

static void groups_free(struct groups *g)
{
	free(g->fc);
	free(g->cc);
	free(g->pc);
	free(g->tc);
	free(g->ff);
	free(g->cf);
	free(g->pf);
	free(g->tf);
}

static int groups_build(const struct objects *ob, struct groups *g)
{
	uint32_t n = ob->index.n;

	memset(g, 0, sizeof(*g));
	if (group(ob->fidx.n, ob->fidx.keys, n, &g->fc, &g->ff) ||
	    group(ob->cells.h.n, ob->cells.h.keys, n, &g->cc, &g->cf) ||
	    group(ob->cps.h.n, ob->cps.h.keys, n, &g->pc, &g->pf) ||
	    group(ob->fthreads.n, ob->fthreads.keys, ob->fidx.n, &g->tc, &g->tf)) {
		groups_free(g);
		memset(g, 0, sizeof(*g));
		return -ENOMEM;
	}
	return 0;
}

/* The threads that touched field fi, ascending, appended at t. */
static uint32_t threads_of(const struct objects *ob, const struct groups *g, uint32_t fi,
                           uint32_t *t)
{
	uint32_t k, n = 0, a, b;

	for (k = g->tf[fi]; k < g->tf[fi + 1]; k++)
		t[n++] = (uint32_t)ob->fthreads.keys[g->tc[k].key].b;
	/* Insertion sort: a field is touched by few threads. */
	for (a = 1; a < n; a++)
		for (b = a; b > 0 && t[b - 1] > t[b]; b--) {
			uint32_t x = t[b];
			t[b] = t[b - 1];
			t[b - 1] = x;
		}
	return n;
}

/* Top code pairs of an object: the CP children kept, by volume. */
#define OBJ_TOP_PAIRS 10

static uint32_t top_pairs(const struct objects *ob, const struct groups *g, uint32_t obj,
                          uint32_t *sel)
{
	uint32_t k, n = 0, a;

	for (k = g->pf[obj]; k < g->pf[obj + 1]; k++) {
		uint32_t x = g->pc[k].key;
		uint64_t v = ob->cps.v[x][0] + ob->cps.v[x][1];

		for (a = n < OBJ_TOP_PAIRS ? n++ : n; a > 0; a--) {
			uint32_t y = sel[a - 1];
			if (ob->cps.v[y][0] + ob->cps.v[y][1] >= v)
				break;
			if (a < OBJ_TOP_PAIRS)
				sel[a] = y;
		}
		if (a < OBJ_TOP_PAIRS)
			sel[a] = x;
	}
	return n;
}

/* What objects.xml holds, as lib/db's plain rows (db/write.h), in rank
   order; written by hc_db_write_objects. */
static int write_xml(struct an *an, const struct objects *ob, const struct groups *g,
                     const char *dir, char *err, size_t errlen)
{
	uint32_t n = ob->index.n, r, k, sel[OBJ_TOP_PAIRS];
	struct hc_db_wobject *wo = calloc(n ? n : 1, sizeof(*wo));
	struct hc_db_wocell *wc = malloc((ob->cells.h.n ? ob->cells.h.n : 1) * sizeof(*wc));
	struct hc_db_wfield *wf = malloc((ob->fidx.n ? ob->fidx.n : 1) * sizeof(*wf));
	uint32_t *wt = malloc((ob->fthreads.n ? ob->fthreads.n : 1) * sizeof(*wt));
	struct hc_db_wpair *wp = malloc(((size_t)n * OBJ_TOP_PAIRS + 1) * sizeof(*wp));
	uint32_t nc = 0, nf = 0, nt = 0, np = 0;
	int ret;

	if (!wo || !wc || !wf || !wt || !wp) {
		snprintf(err, errlen, "out of memory writing %s", HC_DB_OBJECTS);
		ret = -ENOMEM;
		goto out;
	}
	for (r = 0; r < n; r++) {
		uint32_t i = ob->rank[r], npairs;
		const struct obj *x = &ob->o[i];
		struct hc_db_wobject *w = &wo[r];

		*w = (struct hc_db_wobject){ .kind = (int)x->kind, .name = x->name,
		                             .module = x->module, .context = x->context,
		                             .size = x->size, .blocks = x->blocks, .type = x->etype,
		                             .elem = x->esize, .t = x->t, .f = x->f };
		w->cells = &wc[nc];
		for (k = g->cf[i]; k < g->cf[i + 1]; k++) {
			const struct hkey *c = &ob->cells.h.keys[g->cc[k].key];
			wc[nc++] = (struct hc_db_wocell){ (uint32_t)c->b, (uint32_t)c->c,
			                                  ob->cells.v[g->cc[k].key][0],
			                                  ob->cells.v[g->cc[k].key][1] };
		}
		w->ncells = (uint32_t)(&wc[nc] - w->cells);
		w->fields = &wf[nf];
		for (k = g->ff[i]; k < g->ff[i + 1]; k++) {
			uint32_t fi = g->fc[k].key;
			const struct fld *f = &ob->fl[fi];

			wf[nf] = (struct hc_db_wfield){ .name = f->name, .offset = f->off,
			                                .size = f->size, .access = f->access,
			                                .t = f->t, .f = f->f, .threads = &wt[nt] };
			wf[nf].nthreads = threads_of(ob, g, fi, &wt[nt]);
			nt += wf[nf++].nthreads;
		}
		w->nfields = (uint32_t)(&wf[nf] - w->fields);
		w->pairs = &wp[np];
		npairs = top_pairs(ob, g, i, sel);
		for (k = 0; k < npairs; k++) {
			const struct hkey *c = &ob->cps.h.keys[sel[k]];
			wp[np++] = (struct hc_db_wpair){ (uint32_t)c->b, (uint32_t)c->c,
			                                 ob->cps.v[sel[k]][0], ob->cps.v[sel[k]][1] };
		}
		w->npairs = npairs;
	}
	ret = hc_db_write_objects(dir, an->unit, wo, n, err, errlen);
out:
	free(wo);
	free(wc);
	free(wf);
	free(wt);
	free(wp);
	return ret;
}

int objects__write(struct an *an, const struct objects *ob, const char *dir, char *err,
                   size_t errlen)
{
	struct groups g;
	int ret = groups_build(ob, &g);

	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	ret = write_xml(an, ob, &g, dir, err, errlen);
	groups_free(&g);
	return ret;
}
