/* SPDX-License-Identifier: BSD-3-Clause */
/* symbols.c — symbolization of (load module, offset) with libdw. The runtime
   records addresses relative to each module's load bias, so every module is
   reported on its own at bias 0 (dwfl_report_elf with base 0): for a PIE or
   shared library (ET_DYN) the offset is then a link-time address, and for a
   non-PIE executable (ET_EXEC) the bias was 0 to begin with and the offset is
   the absolute address. A lookup yields the chain of frames at the address,
   outermost first: the real function (DW_TAG_subprogram) and the functions
   inlined into it, each with the source position of its inlined call, and the
   source line of the address itself (line table). Lookups come in address
   order and many per module, so instead of dwarf_getscopes (a walk from the
   compilation unit's root on every call) each compilation unit is walked once
   into a sorted list of the pc ranges of its concrete functions and inlined
   calls, with each one's enclosing function: the innermost range containing
   an address is found by binary search, and its enclosing chain is the frame
   list. Without DWARF the ELF symbol table still names the function (also
   sorted once per module: dwfl_module_addrinfo walks the whole table on every
   call). One struct symmod per thread: a Dwfl is not shared between threads. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

/* A function symbol of the ELF symbol table. */
struct fsym {
	uint64_t lo, size;
	const char *name;
	int rank;           /* at equal addresses: sized first, then global, weak, local */
};

/* A concrete function or inlined call of a compilation unit. */
struct fn {
	Dwarf_Die die;
	int parent;         /* enclosing function (index), -1 for none */
};

/* One pc range of a function. */
struct range {
	uint64_t lo, hi;
	int fn;
	int depth;          /* DIE nesting: at equal lo, deeper = more inner */
};

struct cuindex {
	Dwarf_Off off;      /* of the CU DIE */
	struct fn *fn;
	struct range *r;    /* sorted by (lo, depth) */
	size_t nfn, fncap, nr, rcap;
};

struct symmod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct fsym *syms;  /* sorted by lo */
	size_t nsyms;
	struct cuindex *cu;
	size_t ncu, cucap, last;
};

static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The module's function symbols, sorted, built once per open module. */
static void load_symbols(struct symmod *m)
{
	int n = dwfl_module_getsymtab(m->mod), i;
	size_t k = 0;

	if (n <= 1)
		return;
	m->syms = calloc((size_t)n, sizeof(*m->syms));
	if (!m->syms)
		return;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);

		if (!name || !name[0] || shndx == SHN_UNDEF ||
		    (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		m->syms[k].lo = addr;
		m->syms[k].size = sym.st_size;
		m->syms[k].name = name;
		m->syms[k].rank = (sym.st_size ? 0 : 4) +
		                  (bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2);
		k++;
	}
	qsort(m->syms, k, sizeof(*m->syms), cmp_fsym);
	m->nsyms = k;
}

/* The function symbol containing addr, else the closest unsized one before
   it; NULL when none. */
static const char *find_symbol(const struct symmod *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nsyms, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Candidates are syms[0 .. lo-1]; look back over the few that can
	   still contain addr (symbols of one address, nested aliases). */
	for (i = lo; i-- > 0 && lo - i <= 16;) {
		const struct fsym *s = &m->syms[i];
		if (s->size && addr < s->lo + s->size) {
			/* The best-ranked symbol at this address. */
			while (i > 0 && m->syms[i - 1].lo == s->lo && m->syms[i - 1].size)
				s = &m->syms[--i];
			return s->name;
		}
	}
	if (lo > 0 && m->syms[lo - 1].size == 0)
		return m->syms[lo - 1].name;
	return NULL;
}

static char *debuginfo_path;   /* NULL: libdwfl's default search path */

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct symmod *sym__open(const char *path, char *err, size_t errlen)
{
	struct symmod *m;
	const char *base = strrchr(path, '/');

	if (path[0] != '/') {
		/* "[vdso]", "[heap]"...: nothing on disk to read. */
		snprintf(err, errlen, "%s: not a file", path);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl) {
		snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
		free(m);
		return NULL;
	}
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, base ? base + 1 : path, path, -1, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod) {
		snprintf(err, errlen, "%s: %s", path, dwfl_errmsg(-1));
		dwfl_end(m->dwfl);
		free(m);
		return NULL;
	}
	load_symbols(m);
	return m;
}

void sym__close(struct symmod *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->ncu; i++) {
		free(m->cu[i].fn);
		free(m->cu[i].r);
	}
	free(m->cu);
	dwfl_end(m->dwfl);
	free(m->syms);
	free(m);
}

static bool is_function(Dwarf_Die *d)
{
	int tag = dwarf_tag(d);

	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

static int attr_udata(Dwarf_Die *d, unsigned name, Dwarf_Word *out)
{
	Dwarf_Attribute a;

	if (!dwarf_attr(d, name, &a))
		return -1;
	return dwarf_formudata(&a, out);
}

/* The file named by DW_AT_call_file of an inlined-subroutine DIE. */
static const char *call_file(Dwarf_Die *d)
{
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;
	Dwarf_Word idx;

	if (attr_udata(d, DW_AT_call_file, &idx) != 0)
		return NULL;
	if (!dwarf_diecu(d, &cu, NULL, NULL))
		return NULL;
	if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

static void set_frame(struct sym_frame *f, Dwarf_Die *d)
{
	int line = 0;

	memset(f, 0, sizeof(*f));
	f->name = dwarf_diename(d);
	f->decl_file = dwarf_decl_file(d);
	if (dwarf_decl_line(d, &line) == 0)
		f->decl_line = line;
}

static bool grow(void *pp, size_t *cap, size_t need, size_t el)
{
	void **p = pp;
	size_t n = *cap ? *cap : 16;
	void *np;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	np = realloc(*p, n * el);
	if (!np)
		return false;
	*p = np;
	*cap = n;
	return true;
}

static bool may_hold_functions(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
	       tag == DW_TAG_module || tag == DW_TAG_entry_point ||
	       tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit;
}

/* Collect the functions below die. Recursion follows source nesting (a few
   levels of blocks and inlined calls), bounded here anyway. */
static bool walk(struct cuindex *c, Dwarf_Die *die, int parent, int depth)
{
	Dwarf_Die child;

	if (depth > 256 || dwarf_child(die, &child) != 0)
		return true;
	do {
		int tag = dwarf_tag(&child), me = parent;

		if (is_function(&child)) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			int idx = (int)c->nfn;
			bool any = false;

			while ((off = dwarf_ranges(&child, off, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (!grow(&c->r, &c->rcap, c->nr + 1, sizeof(*c->r)))
					return false;
				c->r[c->nr++] = (struct range){ lo, hi, idx, depth };
				any = true;
			}
			if (any) {
				if (!grow(&c->fn, &c->fncap, c->nfn + 1, sizeof(*c->fn)))
					return false;
				c->fn[c->nfn++] = (struct fn){ child, parent };
				me = idx;
			}
		}
		if (may_hold_functions(tag) && !walk(c, &child, me, depth + 1))
			return false;
	} while (dwarf_siblingof(&child, &child) == 0);
	return true;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->depth > y->depth) - (x->depth < y->depth);
}

/* The index of the compilation unit cudie, built on first use. */
static struct cuindex *cu_index(struct symmod *m, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct cuindex *c;
	size_t i;

	if (m->last < m->ncu && m->cu[m->last].off == off)
		return &m->cu[m->last];
	for (i = 0; i < m->ncu; i++) {
		if (m->cu[i].off == off) {
			m->last = i;
			return &m->cu[i];
		}
	}
	if (!grow(&m->cu, &m->cucap, m->ncu + 1, sizeof(*m->cu)))
		return NULL;
	c = &m->cu[m->ncu];
	memset(c, 0, sizeof(*c));
	c->off = off;
	if (!walk(c, cudie, -1, 0)) {
		free(c->fn);
		free(c->r);
		return NULL;
	}
	if (c->nr > 1)
		qsort(c->r, c->nr, sizeof(*c->r), cmp_range);
	m->last = m->ncu++;
	return c;
}

/* Fill out->fr from DWARF; returns the number of frames found. */
static int dwarf_frames(struct symmod *m, uint64_t addr, struct sym_result *out)
{
	Dwarf_Die *cudie, *fn[AN_MAX_INLINE];
	const struct cuindex *c;
	Dwarf_Addr bias;
	uint64_t pc;
	size_t lo = 0, hi, i;
	int nfn = 0, k = -1, j;

	cudie = dwfl_module_addrdie(m->mod, addr, &bias);
	if (!cudie)
		return 0;
	c = cu_index(m, cudie);
	if (!c)
		return 0;
	pc = addr - bias;
	hi = c->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The innermost range holding pc has the largest lo (then depth) among
	   those holding it: scan back from the last range starting at or
	   before pc. */
	for (i = lo; i-- > 0;) {
		if (pc < c->r[i].hi) {
			k = c->r[i].fn;
			break;
		}
	}
	/* Innermost first; keep the innermost AN_MAX_INLINE - 1 and, in the
	   last slot, the outermost. */
	for (; k >= 0; k = c->fn[k].parent) {
		if (nfn < AN_MAX_INLINE)
			fn[nfn++] = &c->fn[k].die;
		else
			fn[AN_MAX_INLINE - 1] = &c->fn[k].die;
	}
	/* out->fr is outermost first. */
	for (j = 0; j < nfn; j++) {
		struct sym_frame *f = &out->fr[j];
		Dwarf_Die *d = fn[nfn - 1 - j];
		Dwarf_Word line;

		set_frame(f, d);
		if (j > 0 && dwarf_tag(d) == DW_TAG_inlined_subroutine) {
			f->call_file = call_file(d);
			if (attr_udata(d, DW_AT_call_line, &line) == 0)
				f->call_line = (int)line;
		}
	}
	return nfn;
}

void sym__lookup(struct symmod *m, uint64_t addr, struct sym_result *out)
{
	const char *elfname;
	Dwfl_Line *ln;
	int line = 0;

	out->nframes = 0;
	out->file = NULL;
	out->line = 0;
	if (!m)
		return;
	ln = dwfl_module_getsrc(m->mod, addr);
	if (ln) {
		out->file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
		out->line = out->file ? line : 0;
	}
	out->nframes = dwarf_frames(m, addr, out);
	elfname = find_symbol(m, addr);
	if (out->nframes == 0 && elfname) {
		memset(&out->fr[0], 0, sizeof(out->fr[0]));
		out->fr[0].name = elfname;
		out->nframes = 1;
	} else if (out->nframes > 0 && !out->fr[0].name) {
		out->fr[0].name = elfname;
	}
}
