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
   call). PLT stubs get synthetic symbols "name@plt", as objdump makes them:
   each stub's jmp *GOT(%rip) is decoded and the GOT slot's JUMP_SLOT or
   GLOB_DAT relocation names the target (without them a call through the PLT
   was named after the closest symbol before, "_init"). Names are shown as
   names.c says (demangled, OpenMP regions under their parent), computed
   once per raw name. One struct symmod per thread: a Dwfl is not shared
   between threads. */
#include <stddef.h>
#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"
#include "analysis/cuaddr.h"
#include "support/search.h"

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

/* Display name of one raw name (a string of libdw or libelf: its address
   identifies it). */
struct dname {
	uint64_t key;       /* the raw name's address, or a DIE offset | DNAME_DIE; 0 free */
	char *show;
	const char *file;   /* OpenMP region: where it starts */
	int line;
};

struct symmod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct cuaddr_tab cua;  /* the units' ranges: addr_cu's fallback (cuaddr.h) */
	struct fsym *syms;  /* sorted by lo */
	size_t nsyms;
	char **plt;         /* the "name@plt" strings */
	size_t nplt, pltcap;
	struct cuindex *cu;
	size_t ncu, cucap, last;
	struct dname *dn;   /* open addressing by key, dnmask + 1 slots */
	size_t ndn, dnmask;
};

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

static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A GOT slot and the symbol its relocation names. */
struct gotrel {
	uint64_t slot;
	const char *name;
};

static int cmp_gotrel(const void *a, const void *b)
{
	const struct gotrel *x = a, *y = b;

	return (x->slot > y->slot) - (x->slot < y->slot);
}

static const char *got_name(const struct gotrel *r, size_t n, uint64_t slot)
{
	size_t i = hc_find_u64(r, n, sizeof(*r), offsetof(struct gotrel, slot), slot);

	return i < n ? r[i].name : NULL;
}

/* JUMP_SLOT and GLOB_DAT relocations of every SHT_RELA section. */
static size_t got_relocs(Elf *elf, struct gotrel **out)
{
	Elf_Scn *scn = NULL;
	struct gotrel *r = NULL;
	size_t n = 0, cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh, symsh;
		Elf_Scn *symscn;
		Elf_Data *d, *symd;
		size_t i, cnt;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		symscn = elf_getscn(elf, sh.sh_link);
		if (!symscn || !gelf_getshdr(symscn, &symsh) || !(d = elf_getdata(scn, NULL)) ||
		    !(symd = elf_getdata(symscn, NULL)))
			continue;
		cnt = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < cnt; i++) {
			GElf_Rela rela;
			GElf_Sym sym;
			unsigned type;
			const char *name;

			if (!gelf_getrela(d, (int)i, &rela))
				break;
			type = (unsigned)GELF_R_TYPE(rela.r_info);
			if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
			    !GELF_R_SYM(rela.r_info) ||
			    !gelf_getsym(symd, (int)GELF_R_SYM(rela.r_info), &sym))
				continue;
			name = elf_strptr(elf, symsh.sh_link, sym.st_name);
			if (!name || !name[0] || !grow(&r, &cap, n + 1, sizeof(*r)))
				continue;
			r[n++] = (struct gotrel){ rela.r_offset, name };
		}
	}
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_gotrel);
	*out = r;
	return n;
}

/* Synthetic "name@plt" symbols for the stubs of .plt, .plt.sec and .plt.got:
   the first "jmp *disp32(%rip)" (ff 25) of each entry whose GOT slot has a
   relocation (PLT0 and the lazy .plt entries of an IBT binary have none).
   Appended to m->syms after the k entries already there (cap: its size);
   returns the new count. */
static size_t add_plt(struct symmod *m, size_t k, size_t cap)
{
	GElf_Addr bias = 0;
	Elf *elf = dwfl_module_getelf(m->mod, &bias);
	Elf_Scn *scn = NULL;
	struct gotrel *rel = NULL;
	size_t nrel, shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return k;
	nrel = got_relocs(elf, &rel);
	while (nrel && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sn;
		const unsigned char *b;
		Elf_Data *d;
		uint64_t es, o;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sn = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    (strcmp(sn, ".plt") && strcmp(sn, ".plt.sec") && strcmp(sn, ".plt.got")) ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf || d->d_size < sh.sh_size)
			continue;
		b = d->d_buf;
		es = sh.sh_entsize >= 8 && sh.sh_entsize <= 32 ? sh.sh_entsize : 16;
		for (o = 0; o + es <= sh.sh_size; o += es) {
			uint64_t j;

			for (j = 0; j + 6 <= es; j++) {
				int32_t disp;
				uint64_t slot;
				const char *name;
				char *plt;

				if (b[o + j] != 0xff || b[o + j + 1] != 0x25)
					continue;
				memcpy(&disp, b + o + j + 2, 4);
				slot = sh.sh_addr + o + j + 6 + (uint64_t)(int64_t)disp;
				if (!(name = got_name(rel, nrel, slot)))
					continue;
				if (k == cap) {
					struct fsym *ns = realloc(m->syms, 2 * cap * sizeof(*ns));
					if (!ns)
						goto out;
					m->syms = ns;
					cap *= 2;
				}
				if (!grow(&m->plt, &m->pltcap, m->nplt + 1, sizeof(*m->plt)) ||
				    asprintf(&plt, "%s@plt", name) < 0)
					goto out;
				m->plt[m->nplt++] = plt;
				m->syms[k++] = (struct fsym){ sh.sh_addr + o + bias, es, plt, 0 };
				break;
			}
		}
	}
out:
	free(rel);
	return k;
}

/* The module's function symbols, sorted, built once per open module. */
static void load_symbols(struct symmod *m)
{
	int n = dwfl_module_getsymtab(m->mod), i;
	size_t k = 0;

	if (n <= 1)
		n = 1;
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
	k = add_plt(m, k, (size_t)n);
	qsort(m->syms, k, sizeof(*m->syms), cmp_fsym);
	m->nsyms = k;
}

/* The function symbol containing addr, else the closest unsized one before
   it; NULL when none. */
static const struct fsym *find_symbol(const struct symmod *m, uint64_t addr)
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
			return s;
		}
	}
	if (lo > 0 && m->syms[lo - 1].size == 0)
		return &m->syms[lo - 1];
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

struct symmod *sym__take(struct an *an, uint32_t lm, char *err, size_t errlen)
{
	struct symmod *m = NULL;

	pthread_mutex_lock(&an->lock);
	if (lm < an->nsymkeep) {
		m = an->symkeep[lm];
		an->symkeep[lm] = NULL;
	}
	pthread_mutex_unlock(&an->lock);
	return m ? m : sym__open(an->modules.s[lm], err, errlen);
}

void sym__give(struct an *an, uint32_t lm, struct symmod *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&an->lock);
	if (lm >= an->nsymkeep && lm < an->modules.n) {
		struct symmod **k = realloc(an->symkeep, an->modules.n * sizeof(*k));
		if (k) {
			memset(k + an->nsymkeep, 0, (an->modules.n - an->nsymkeep) * sizeof(*k));
			an->symkeep = k;
			an->nsymkeep = an->modules.n;
		}
	}
	if (lm < an->nsymkeep && !an->symkeep[lm]) {
		an->symkeep[lm] = m;
		m = NULL;
	}
	pthread_mutex_unlock(&an->lock);
	sym__close(m);
}

void sym__drop_all(struct an *an)
{
	for (uint32_t i = 0; i < an->nsymkeep; i++)
		sym__close(an->symkeep[i]);
	free(an->symkeep);
	an->symkeep = NULL;
	an->nsymkeep = 0;
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
	cuaddr_free(&m->cua);
	for (i = 0; m->dn && i <= m->dnmask; i++)
		free(m->dn[i].show);
	free(m->dn);
	for (i = 0; i < m->nplt; i++)
		free(m->plt[i]);
	free(m->plt);
	dwfl_end(m->dwfl);
	free(m->syms);
	free(m);
}

/* The compilation unit holding addr (module-relative, as the callers pass
   it), and the module's bias: libdwfl's answer, else (no .debug_aranges)
   the unit whose ranges hold it. The pointer stays valid until sym__close. */
static Dwarf_Die *addr_cu(struct symmod *m, uint64_t addr, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, bias);
	Dwarf *dw;

	if (cu || m->cua.state == -1)
		return cu;
	if (!(dw = dwfl_module_getdwarf(m->mod, bias))) {
		m->cua.state = -1;
		return NULL;
	}
	return cuaddr_find(&m->cua, dw, addr - *bias);
}

/* The source line of addr: libdwfl's, else the line table of addr_cu's
   unit. *line 0 and NULL when none. */
static const char *addr_line(struct symmod *m, uint64_t addr, int *line)
{
	Dwfl_Line *ln = dwfl_module_getsrc(m->mod, addr);
	Dwarf_Addr bias;
	Dwarf_Die *cu;
	Dwarf_Line *dl;
	const char *file;

	*line = 0;
	if (ln) {
		file = dwfl_lineinfo(ln, NULL, line, NULL, NULL, NULL);
		if (!file)
			*line = 0;
		return file;
	}
	if (!(cu = addr_cu(m, addr, &bias)) || !(dl = dwarf_getsrc_die(cu, addr - bias)))
		return NULL;
	file = dwarf_linesrc(dl, NULL, NULL);
	if (!file || dwarf_lineno(dl, line) != 0) {
		*line = 0;
		return NULL;
	}
	return file;
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

/* The file a DW_AT_call_file or DW_AT_decl_file attribute names, from its
   unit's file table (index 0 is DWARF 5's primary source file). */
static const char *file_attr(Dwarf_Die *d, unsigned name)
{
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;
	Dwarf_Word idx;
	Dwarf_Attribute a;

	/* a declaration's file may be its abstract origin's (an inlined
	   call's DIE has none of its own); a call's is its own */
	if (!(name == DW_AT_decl_file ? dwarf_attr_integrate(d, name, &a) : dwarf_attr(d, name, &a)) ||
	    dwarf_formudata(&a, &idx) != 0)
		return NULL;
	if (!dwarf_diecu(d, &cu, NULL, NULL))
		return NULL;
	if (dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* The file of an inlined call. */
static const char *call_file(Dwarf_Die *d)
{
	return file_attr(d, DW_AT_call_file);
}

/* The file a DIE is declared in: libdw's answer, else the unit's file
   table (elfutils 0.188's dwarf_decl_file returns NULL for DWARF 5's index
   0, the primary source file, where clang declares every function of it:
   its OpenMP regions lost their parent, "[parallel region at f.c:41]") */
static const char *decl_file(Dwarf_Die *d)
{
	const char *f = dwarf_decl_file(d);

	return f ? f : file_attr(d, DW_AT_decl_file);
}

static void set_frame(struct sym_frame *f, Dwarf_Die *d)
{
	int line = 0;

	memset(f, 0, sizeof(*f));
	f->name = dwarf_diename(d);
	f->decl_file = decl_file(d);
	if (dwarf_decl_line(d, &line) == 0)
		f->decl_line = line;
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

/* The raw name of a function DIE: its linkage name (through
   DW_AT_abstract_origin and DW_AT_specification), else its name. */
static const char *raw_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	const char *s = NULL;

	/* Only a mangled one: C code has linkage names too (glibc's internal
	   "__GI_" aliases), and those are not what the source calls them. */
	if (dwarf_attr_integrate(d, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(d, DW_AT_MIPS_linkage_name, &a))
		s = dwarf_formstring(&a);
	if (s && !(s[0] == '_' && (s[1] == 'Z' || s[1] == 'R')) &&
	    !(s[0] == '_' && s[1] == '_' && strstr(s, "_MOD_")))
		s = NULL;
	return s ? s : dwarf_diename(d);
}

/* clang's outlined regions sit at the top of the compilation unit: their
   parent is taken to be the function of the same file declared last at or
   before the region's line (a heuristic; NULL when none). */
static const char *clang_parent(Dwarf_Die *cu, const char *file, int line)
{
	Dwarf_Die c, best;
	int bestline = -1;

	if (!cu || !file || line <= 0 || dwarf_child(cu, &c) != 0)
		return NULL;
	do {
		size_t dummy;
		const char *f, *raw;
		int l;

		if (dwarf_tag(&c) != DW_TAG_subprogram || dwarf_decl_line(&c, &l) != 0 ||
		    l > line || l <= bestline || !(f = decl_file(&c)) || strcmp(f, file) ||
		    !(raw = raw_name(&c)) || names__omp_kind(raw, &dummy) != NAMES_OMP_NONE)
			continue;
		best = c;
		bestline = l;
	} while (dwarf_siblingof(&c, &c) == 0);
	return bestline >= 0 ? raw_name(&best) : NULL;
}

#define DNAME_DIE (1ull << 63)   /* above every user-space address */

/* The DWARF name of the function whose symbol is sym, else sym: gfortran's
   main program is MAIN__ (often inlined into main, without a symbol), the
   source's "program NAME" (DW_AT_main_subprogram) in the region's unit cu. */
static const char *source_name(struct symmod *m, const char *sym, Dwarf_Die *cu)
{
	Dwarf_Addr bias, lo;
	Dwarf_Die *scu, c;
	size_t i;

	for (i = 0; i < m->nsyms; i++)
		if (!strcmp(m->syms[i].name, sym))
			break;
	if (i < m->nsyms && (scu = addr_cu(m, m->syms[i].lo, &bias)) &&
	    dwarf_child(scu, &c) == 0) {
		do {
			const char *n;

			if (dwarf_tag(&c) == DW_TAG_subprogram && dwarf_lowpc(&c, &lo) == 0 &&
			    lo + bias == m->syms[i].lo && (n = dwarf_diename(&c)))
				return n;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (strcmp(sym, "MAIN__") || !cu || dwarf_child(cu, &c) != 0)
		return sym;
	do {
		const char *n;

		if (dwarf_tag(&c) == DW_TAG_subprogram && dwarf_hasattr(&c, DW_AT_main_subprogram) &&
		    (n = dwarf_diename(&c)))
			return n;
	} while (dwarf_siblingof(&c, &c) == 0);
	return sym;
}

static size_t hash_key(uint64_t x)
{

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (size_t)x;
}

/* "ns::cls::name" for a C++ function whose DWARF has no mangled name
   (GCC gives none to members of local classes: lambdas, and templates
   instantiated with them): the named scopes around its declaration. */
static char *qualified(Dwarf_Die *d, const char *name)
{
	Dwarf_Die decl = *d, *sc = NULL;
	Dwarf_Attribute a;
	char buf[1024];
	size_t n = 0;
	int ns, i, hops;

	for (hops = 0; hops < 8; hops++) {
		if (!(dwarf_attr(&decl, DW_AT_abstract_origin, &a) ||
		      dwarf_attr(&decl, DW_AT_specification, &a)) ||
		    !dwarf_formref_die(&a, &decl))
			break;
	}
	ns = dwarf_getscopes_die(&decl, &sc);
	buf[0] = '\0';
	for (i = ns - 1; i >= 1 && n < sizeof(buf); i--) {
		int tag = dwarf_tag(&sc[i]);
		const char *sn = dwarf_diename(&sc[i]);

		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
		    tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_subprogram)
			continue;
		/* GCC leaves a lambda's closure type unnamed. */
		if (!sn && tag != DW_TAG_namespace && tag != DW_TAG_subprogram)
			sn = !strcmp(name, "operator()") ? "{lambda}" : "{anonymous}";
		if (!sn)
			continue;
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s::", sn);
	}
	free(sc);
	if (n >= sizeof(buf))
		return strdup(name);
	snprintf(buf + n, sizeof(buf) - n, "%s", name);
	return strdup(buf);
}

/* The display of raw (cached by its address, or by DIE qual's offset when
   the name is to be qualified from DWARF). entry: the function's first
   address, for an OpenMP region's line; cu: its compilation unit or NULL.
   NULL when out of memory. */
static const struct dname *display(struct symmod *m, const char *raw, uint64_t entry,
                                   Dwarf_Die *cu, Dwarf_Die *qual, Dwarf_Die *fdie)
{
	struct dname *e;
	size_t i, plen;
	enum names_omp omp;
	uint64_t key = qual ? dwarf_dieoffset(qual) | DNAME_DIE : (uint64_t)(uintptr_t)raw;

	if (m->ndn * 2 >= m->dnmask) {
		size_t n = m->dnmask ? 2 * (m->dnmask + 1) : 256, k;
		struct dname *t = calloc(n, sizeof(*t));

		if (!t)
			return NULL;
		for (k = 0; m->dn && k <= m->dnmask; k++) {
			if (!m->dn[k].key)
				continue;
			for (i = hash_key(m->dn[k].key) & (n - 1); t[i].key; i = (i + 1) & (n - 1))
				;
			t[i] = m->dn[k];
		}
		free(m->dn);
		m->dn = t;
		m->dnmask = n - 1;
	}
	for (i = hash_key(key) & m->dnmask; m->dn[i].key; i = (i + 1) & m->dnmask)
		if (m->dn[i].key == key)
			return &m->dn[i];
	e = &m->dn[i];
	omp = names__omp_kind(raw, &plen);
	if (omp != NAMES_OMP_NONE) {
		const char *file = NULL, *praw = NULL;
		char *parent = NULL, *pcopy = NULL;
		int line = 0;

		file = addr_line(m, entry, &line);
		if (omp == NAMES_OMP_CLANG && (!file || line <= 0)) {
			const char *f;
			int l;

			/* clang's line table may give the outlined function's entry
			   line 0: the frame DIE's declaration (the pragma's line; an
			   inlined `.omp_outlined._debug__`'s abstract origin's) */
			if (fdie && dwarf_decl_line(fdie, &l) == 0 && l > 0 && (f = decl_file(fdie))) {
				file = f;
				line = l;
			}
		}
		if (omp == NAMES_OMP_GCC) {
			praw = pcopy = strndup(raw, plen);
			if (praw && !(praw[0] == '_' && praw[1] == 'Z'))
				praw = source_name(m, praw, cu);
		} else {
			Dwarf_Addr b;

			/* named from the ELF symbol table first (no unit given):
			   the unit that holds the region's entry */
			praw = clang_parent(cu ? cu : addr_cu(m, entry, &b), file, line);
		}
		if (praw && !(parent = names__demangle(praw))) {
			free(pcopy);
			return NULL;
		}
		free(pcopy);
		e->show = names__omp_region(parent, file, line);
		free(parent);
		e->file = file;
		e->line = line;
	} else if (qual) {
		e->show = qualified(qual, raw);
	} else {
		e->show = names__demangle(raw);
	}
	if (!e->show)
		return NULL;
	e->key = key;
	m->ndn++;
	return e;
}

static bool is_cxx(Dwarf_Die *cu)
{
	int lang = dwarf_srclang(cu);

	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* A frame's name and declaration from DIE d (an OpenMP region: declared
   where it starts). */
static void frame_of(struct symmod *m, struct sym_frame *f, Dwarf_Die *d, Dwarf_Addr bias)
{
	const char *raw = raw_name(d);
	Dwarf_Addr entry = 0;
	Dwarf_Die cu;
	const struct dname *e;

	set_frame(f, d);
	if (!raw)
		return;
	if (dwarf_entrypc(d, &entry) != 0) {
		Dwarf_Addr base, hi;

		/* only DW_AT_ranges (clang's inlined `.omp_outlined._debug__`):
		   the first range's start */
		if (dwarf_ranges(d, 0, &base, &entry, &hi) <= 0)
			entry = 0;
	}
	if (!dwarf_diecu(d, &cu, NULL, NULL))
		e = display(m, raw, entry + bias, NULL, NULL, d);
	else
		e = display(m, raw, entry + bias, &cu,
		            is_cxx(&cu) && !(raw[0] == '_' && raw[1] == 'Z') ? d : NULL, d);
	if (!e)
		return;
	f->name = e->show;
	if (e->line > 0 && !f->decl_line) {
		f->decl_file = e->file;
		f->decl_line = e->line;
	}
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

	cudie = addr_cu(m, addr, &bias);
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

		frame_of(m, f, d, bias);
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
	const struct fsym *fs;
	const char *elfname = NULL;
	int line = 0;

	out->nframes = 0;
	out->file = NULL;
	out->line = 0;
	if (!m)
		return;
	out->file = addr_line(m, addr, &line);
	out->line = out->file ? line : 0;
	/* A relative name (compiled as ../../src/x.c from a build directory, as
	   make distcheck does) is relative to the unit's DW_AT_comp_dir: made
	   absolute, so that the file can be found (heap objects are named from
	   its source line, objects.c). */
	if (out->file && out->file[0] != '/') {
		Dwarf_Addr bias;
		Dwarf_Die *cu = addr_cu(m, addr, &bias);
		Dwarf_Attribute at;
		const char *cd = cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at)) : NULL;

		if (cd && cd[0] == '/' &&
		    (size_t)snprintf(out->filebuf, sizeof(out->filebuf), "%s/%s", cd, out->file) <
		            sizeof(out->filebuf))
			out->file = out->filebuf;
	}
	out->nframes = dwarf_frames(m, addr, out);
	fs = find_symbol(m, addr);
	if (fs) {
		const struct dname *e = display(m, fs->name, fs->lo, NULL, NULL, NULL);
		elfname = e ? e->show : fs->name;
	}
	if (out->nframes == 0 && elfname) {
		memset(&out->fr[0], 0, sizeof(out->fr[0]));
		out->fr[0].name = elfname;
		out->nframes = 1;
	} else if (out->nframes > 0 && !out->fr[0].name) {
		out->fr[0].name = elfname;
	}
}

bool sym__stripped(struct symmod *m)
{
	GElf_Addr bias;
	Elf *elf;
	Elf_Scn *scn = NULL;

	if (!m || dwfl_module_getdwarf(m->mod, &bias))
		return false;
	if (!(elf = dwfl_module_getelf(m->mod, &bias)))
		return true;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			return false;
	}
	return true;
}

/* ---- for regions.c: functions and their code ---- */

bool sym__function(struct symmod *m, uint64_t addr, uint64_t *lo, uint64_t *size, const char **raw)
{
	const struct fsym *fs = m ? find_symbol(m, addr) : NULL;

	if (!fs)
		return false;
	*lo = fs->lo;
	*size = fs->size;
	*raw = fs->name;
	return true;
}

bool sym__function_named(struct symmod *m, const char *raw, uint64_t *lo, uint64_t *size)
{
	size_t i;

	for (i = 0; m && i < m->nsyms; i++)
		if (m->syms[i].size && !strcmp(m->syms[i].name, raw)) {
			*lo = m->syms[i].lo;
			*size = m->syms[i].size;
			return true;
		}
	return false;
}

uint8_t *sym__code(struct symmod *m, uint64_t addr, uint64_t len)
{
	GElf_Addr bias;
	Elf *elf;
	Elf_Scn *scn = NULL;

	if (!m || !len || !(elf = dwfl_module_getelf(m->mod, &bias)))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		uint8_t *copy;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || addr < sh.sh_addr + bias ||
		    addr + len > sh.sh_addr + bias + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return NULL;
		copy = malloc(len);
		if (copy)
			memcpy(copy, (const uint8_t *)d->d_buf + (addr - sh.sh_addr - bias), len);
		return copy;
	}
	return NULL;
}

const char *sym__display_name(struct symmod *m, const char *raw, uint64_t entry, const char **file,
                              int *line)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = m ? addr_cu(m, entry, &bias) : NULL;
	const struct dname *e = m ? display(m, raw, entry, cu, NULL, NULL) : NULL;

	*file = e ? e->file : NULL;
	*line = e ? e->line : 0;
	return e ? e->show : NULL;
}
