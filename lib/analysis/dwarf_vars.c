/* SPDX-License-Identifier: BSD-3-Clause */
/* dwarf_vars.c — static data objects of one module: which variable holds an
   address, and which field of it. The ELF symbol tables (.symtab, else
   .dynsym) give the variable covering an offset from the load bias
   (STT_OBJECT, value <= off < value + size); DWARF gives its source name and
   type, and the type is walked down to the accessed leaf (typedefs and
   qualifiers peeled, array elements indexed, struct/union/class members
   chosen by DW_AT_data_member_location) to spell a path like
   "stats[3].hits". The DWARF index (variable address -> DIE) is built on the
   first lookup of a module. No signal context. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/cuaddr.h"
#include "analysis/objects.h"

#define MAX_DEPTH 32

struct dvsym {
	uint64_t lo, size;
	const char *name;
};

struct dvvar {
	uint64_t addr;
	Dwarf_Off die;
};

/* Variables of one address space: 0 the module's static data (offsets
   from the load bias), 1 its TLS block (offsets in the PT_TLS segment). */
struct dvspace {
	struct dvsym *syms;
	size_t nsyms;
	struct dvvar *vars;
	size_t nvars, varcap;
};

struct dvmod {
	int fd;
	Elf *elf;
	Dwarf *dw;                  /* NULL without DWARF */
	struct dvspace sp[2];
	uint64_t tls_memsz, tls_align;
	bool indexed;
	struct cuaddr_tab cua;      /* units by address without .debug_aranges (cuaddr.h) */
};

static int cmp_sym(const void *a, const void *b)
{
	const struct dvsym *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->size < y->size) - (x->size > y->size);
}

static int cmp_var(const void *a, const void *b)
{
	const struct dvvar *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Data symbols (STT_OBJECT, STT_TLS) of one symbol table section. */
static void load_symtab(struct dvmod *m, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n, i, k;

	if (!d || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (k = 0; k < 2; k++) {
		struct dvsym *s = realloc(m->sp[k].syms, (m->sp[k].nsyms + n + 1) * sizeof(*s));
		if (!s)
			return;
		m->sp[k].syms = s;
	}
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		struct dvspace *sp;
		int type;

		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF || sym.st_size == 0)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_OBJECT && type != STT_TLS)
			continue;
		name = elf_strptr(m->elf, sh->sh_link, sym.st_name);
		if (!name || !name[0])
			continue;
		sp = &m->sp[type == STT_TLS];
		sp->syms[sp->nsyms++] = (struct dvsym){ sym.st_value, sym.st_size, name };
	}
}

struct dvmod *dvars__open(const char *path)
{
	struct dvmod *m = calloc(1, sizeof(*m));
	Elf_Scn *scn = NULL;
	bool have_symtab = false;
	struct stat st;
	size_t k, nph;

	if (!m)
		return NULL;
	elf_version(EV_CURRENT);
	/* Only regular files: a profile may name anything (a FIFO would block). */
	m->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (m->fd < 0)
		goto out_free;
	if (fstat(m->fd, &st) || !S_ISREG(st.st_mode))
		goto out_close;
	m->elf = elf_begin(m->fd, ELF_C_READ_MMAP, NULL);
	if (!m->elf || elf_kind(m->elf) != ELF_K_ELF)
		goto out_close;
	/* .symtab has every static variable; .dynsym only exported ones. */
	while ((scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			load_symtab(m, scn, &sh);
			have_symtab = true;
		}
	}
	while (!have_symtab && (scn = elf_nextscn(m->elf, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM)
			load_symtab(m, scn, &sh);
	}
	for (k = 0; k < 2; k++)
		if (m->sp[k].nsyms)
			qsort(m->sp[k].syms, m->sp[k].nsyms, sizeof(*m->sp[k].syms), cmp_sym);
	if (elf_getphdrnum(m->elf, &nph) == 0) {
		for (k = 0; k < nph; k++) {
			GElf_Phdr ph;
			if (gelf_getphdr(m->elf, (int)k, &ph) && ph.p_type == PT_TLS) {
				m->tls_memsz = ph.p_memsz;
				m->tls_align = ph.p_align ? ph.p_align : 1;
			}
		}
	}
	m->dw = dwarf_begin_elf(m->elf, DWARF_C_READ, NULL);
	return m;

out_close:
	if (m->elf)
		elf_end(m->elf);
	close(m->fd);
out_free:
	free(m);
	return NULL;
}

void dvars__close(struct dvmod *m)
{
	if (!m)
		return;
	cuaddr_free(&m->cua);
	if (m->dw)
		dwarf_end(m->dw);
	elf_end(m->elf);
	close(m->fd);
	free(m->sp[0].syms);
	free(m->sp[0].vars);
	free(m->sp[1].syms);
	free(m->sp[1].vars);
	free(m);
}

/* The address of a variable whose location is one DW_OP_addr, or (DWARF 5,
   clang's default) one DW_OP_addrx into the address table (space 0), or a
   constant offset and a TLS operator (space 1); -1 for neither. */
static int var_addr(Dwarf_Die *d, uint64_t *addr)
{
	Dwarf_Attribute at, res;
	Dwarf_Op *ops;
	Dwarf_Addr a;
	size_t nops;

	if (!dwarf_attr(d, DW_AT_location, &at) || dwarf_getlocation(&at, &ops, &nops) != 0)
		return -1;
	if (nops == 1 && ops[0].atom == DW_OP_addr) {
		*addr = ops[0].number;
		return 0;
	}
	if (nops == 1 && (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) &&
	    dwarf_getlocation_attr(&at, &ops[0], &res) == 0 && dwarf_formaddr(&res, &a) == 0) {
		*addr = a;
		return 0;
	}
	if (nops == 2 && (ops[1].atom == DW_OP_GNU_push_tls_address ||
	                  ops[1].atom == DW_OP_form_tls_address) &&
	    (ops[0].atom == DW_OP_const8u || ops[0].atom == DW_OP_const4u ||
	     ops[0].atom == DW_OP_constu || ops[0].atom == DW_OP_addr)) {
		*addr = ops[0].number;
		return 1;
	}
	return -1;
}

static void index_die(struct dvmod *m, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;

	if (depth > MAX_DEPTH || dwarf_child(parent, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c), k;
		uint64_t addr;

		if (tag == DW_TAG_variable && (k = var_addr(&c, &addr)) >= 0) {
			struct dvspace *sp = &m->sp[k];

			if (sp->nvars == sp->varcap) {
				size_t cap = sp->varcap ? 2 * sp->varcap : 256;
				struct dvvar *v = realloc(sp->vars, cap * sizeof(*v));
				if (!v)
					return;
				sp->vars = v;
				sp->varcap = cap;
			}
			sp->vars[sp->nvars++] = (struct dvvar){ addr, dwarf_dieoffset(&c) };
		} else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
		           tag == DW_TAG_namespace || tag == DW_TAG_inlined_subroutine) {
			index_die(m, &c, depth + 1);   /* function-scope statics */
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

static void build_index(struct dvmod *m)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	m->indexed = true;
	if (!m->dw)
		return;
	while (dwarf_nextcu(m->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(m->dw, off + hsize, &cu))
			index_die(m, &cu, 0);
		off = next;
	}
	for (int k = 0; k < 2; k++)
		if (m->sp[k].nvars)
			qsort(m->sp[k].vars, m->sp[k].nvars, sizeof(*m->sp[k].vars), cmp_var);
}

static bool type_of(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute at;

	return dwarf_attr_integrate(d, DW_AT_type, &at) && dwarf_formref_die(&at, out);
}

static void peel(Dwarf_Die *t)
{
	int i;

	for (i = 0; i < MAX_DEPTH; i++) {
		int tag = dwarf_tag(t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return;
		if (!type_of(t, t))
			return;
	}
}

static int array_dims(Dwarf_Die *arr, uint64_t *dims, int max);

/* Type t as the source spells it: a typedef's or base type's name,
   "struct S" in C ("S" in C++), "T[N]", "T *"; "" when it has no name. */
static void type_name(Dwarf_Die *t, char *buf, size_t len, int depth)
{
	Dwarf_Die in = *t, cu;
	const char *n = dwarf_diename(&in);
	int tag = dwarf_tag(&in);
	bool c_lang = false;

	buf[0] = '\0';
	if (depth > 4 || !len)
		return;
	if (dwarf_diecu(&in, &cu, NULL, NULL)) {
		int lang = dwarf_srclang(&cu);
		c_lang = lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 ||
		         lang == DW_LANG_C11;
	}
	switch (tag) {
	case DW_TAG_typedef:
	case DW_TAG_base_type:
		snprintf(buf, len, "%s", n ? n : "");
		return;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (!n)
			return;
		snprintf(buf, len, "%s%s", !c_lang ? "" : tag == DW_TAG_union_type ? "union " :
		         tag == DW_TAG_enumeration_type ? "enum " : "struct ", n);
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_atomic_type:
	case DW_TAG_restrict_type: {
		Dwarf_Die u;
		if (type_of(&in, &u))
			type_name(&u, buf, len, depth + 1);
		return;
	}
	case DW_TAG_pointer_type: {
		Dwarf_Die u;
		char b[128];
		if (!type_of(&in, &u)) {
			snprintf(buf, len, "void *");
			return;
		}
		type_name(&u, b, sizeof(b), depth + 1);
		if (b[0])
			snprintf(buf, len, "%s *", b);
		return;
	}
	case DW_TAG_array_type: {
		Dwarf_Die u;
		char b[128];
		uint64_t dims[8];
		int nd = array_dims(&in, dims, 8);
		size_t at;
		if (!type_of(&in, &u))
			return;
		type_name(&u, b, sizeof(b), depth + 1);
		if (!b[0])
			return;
		at = (size_t)snprintf(buf, len, "%s", b);
		for (int i = 0; i < nd && at < len; i++)
			at += (size_t)snprintf(buf + at, len - at, dims[i] ? "[%llu]" : "[]",
			                       (unsigned long long)dims[i]);
		return;
	}
	default:
		return;
	}
}

/* The element of a variable of type t: of an array (after typedefs), its
   element type; else t itself. Its name and size into etype/esize. */
static void element_of(Dwarf_Die *t, char *etype, size_t len, uint64_t *esize)
{
	Dwarf_Die p = *t, el;
	Dwarf_Word sz;

	peel(&p);
	if (dwarf_tag(&p) == DW_TAG_array_type && type_of(&p, &el)) {
		/* a multi-dimensional C array is one DW_TAG_array_type: its
		   element is the innermost */
		type_name(&el, etype, len, 0);
		*esize = dwarf_aggregate_size(&el, &sz) == 0 ? sz : 0;
		return;
	}
	type_name(t, etype, len, 0);
	*esize = dwarf_aggregate_size(&p, &sz) == 0 ? sz : 0;
}

static void append_index(char *buf, size_t len, uint64_t k)
{
	size_t n = strlen(buf);

	if (n + 1 < len)
		snprintf(buf + n, len - n, "[%llu]", (unsigned long long)k);
}

static void append_member(char *buf, size_t len, const char *name)
{
	size_t n = strlen(buf);

	if (n + 1 < len)
		snprintf(buf + n, len - n, ".%s", name);
}

/* The extent of each dimension of an array type, outermost first. */
static int array_dims(Dwarf_Die *arr, uint64_t *dims, int max)
{
	Dwarf_Die c;
	int n = 0;

	if (dwarf_child(arr, &c) != 0)
		return 0;
	do {
		Dwarf_Attribute at;
		Dwarf_Word w;
		if (dwarf_tag(&c) != DW_TAG_subrange_type || n == max)
			continue;
		if (dwarf_attr(&c, DW_AT_count, &at) && dwarf_formudata(&at, &w) == 0)
			dims[n++] = w;
		else if (dwarf_attr(&c, DW_AT_upper_bound, &at) && dwarf_formudata(&at, &w) == 0)
			dims[n++] = w + 1;
		else
			dims[n++] = 0;   /* flexible or unknown: the outermost may be */
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/* Walk type t down to the leaf holding byte off; append the path to buf,
   set *foff (start of the leaf within t) and *fsize. */
static void describe(Dwarf_Die *t, uint64_t off, char *buf, size_t len, uint64_t *foff,
                     uint64_t *fsize, int depth)
{
	Dwarf_Word size;
	int tag;

	peel(t);
	tag = dwarf_tag(t);
	if (depth < MAX_DEPTH && tag == DW_TAG_array_type) {
		Dwarf_Die el;
		Dwarf_Word esize;
		uint64_t dims[8], stride[8], base = 0;
		int n = array_dims(t, dims, 8), i;

		if (n > 0 && type_of(t, &el) && dwarf_aggregate_size(&el, &esize) == 0 && esize) {
			stride[n - 1] = esize;
			for (i = n - 2; i >= 0; i--)
				stride[i] = stride[i + 1] * (dims[i + 1] ? dims[i + 1] : 1);
			for (i = 0; i < n; i++) {
				uint64_t k = off / stride[i];
				append_index(buf, len, k);
				off -= k * stride[i];
				base += k * stride[i];
			}
			describe(&el, off, buf, len, foff, fsize, depth + 1);
			*foff += base;
			return;
		}
	} else if (depth < MAX_DEPTH && (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	                                 tag == DW_TAG_class_type)) {
		Dwarf_Die c;

		if (dwarf_child(t, &c) == 0) {
			do {
				Dwarf_Attribute at;
				Dwarf_Word loc = 0, msize;
				Dwarf_Die mt;
				int ctag = dwarf_tag(&c);
				const char *name;

				if (ctag != DW_TAG_member && ctag != DW_TAG_inheritance)
					continue;
				if (dwarf_attr(&c, DW_AT_data_member_location, &at) &&
				    dwarf_formudata(&at, &loc) != 0)
					continue;   /* a location expression: virtual base */
				if (!type_of(&c, &mt) || dwarf_aggregate_size(&mt, &msize) != 0)
					continue;
				if (off < loc || off >= loc + msize)
					continue;
				name = dwarf_diename(&c);
				if (ctag == DW_TAG_member)
					append_member(buf, len, name ? name : "<anon>");
				describe(&mt, off - loc, buf, len, foff, fsize, depth + 1);
				*foff += loc;
				return;
			} while (dwarf_siblingof(&c, &c) == 0);
		}
	}
	/* A leaf (or a gap between members: the whole aggregate). */
	*foff = 0;
	*fsize = dwarf_aggregate_size(t, &size) == 0 ? size : 0;
}

static bool lookup(struct dvmod *m, int k, uint64_t off, struct dv_hit *out)
{
	struct dvspace *sp = &m->sp[k];
	size_t lo = 0, hi = sp->nsyms, i;
	const struct dvsym *s = NULL;
	Dwarf_Die die, type;

	memset(out, 0, sizeof(*out));
	/* Last symbol starting at or before off, then back over overlapping ones. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp->syms[mid].lo <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i > 0 && lo - i < 16; i--)
		if (off - sp->syms[i - 1].lo < sp->syms[i - 1].size) {
			s = &sp->syms[i - 1];
			break;
		}
	if (!s)
		return false;
	out->start = s->lo;
	out->size = s->size;
	snprintf(out->var, sizeof(out->var), "%s", s->name);
	out->foff = 0;
	out->fsize = s->size;
	if (!m->indexed)
		build_index(m);
	lo = 0;
	hi = sp->nvars;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sp->vars[mid].addr < s->lo)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < sp->nvars && sp->vars[lo].addr == s->lo && dwarf_offdie(m->dw, sp->vars[lo].die, &die)) {
		Dwarf_Attribute at;
		const char *name = NULL;

		if (dwarf_attr_integrate(&die, DW_AT_name, &at))
			name = dwarf_formstring(&at);
		if (name)
			snprintf(out->var, sizeof(out->var), "%s", name);
		if (type_of(&die, &type)) {
			element_of(&type, out->etype, sizeof(out->etype), &out->esize);
			snprintf(out->field, sizeof(out->field), "%s", out->var);
			describe(&type, off - s->lo, out->field, sizeof(out->field), &out->foff,
			         &out->fsize, 0);
			out->typed = true;
		}
	}
	if (!out->typed) {
		/* No type: a bare byte offset, sized by the access (caller). */
		out->field[0] = '\0';
		out->foff = off - s->lo;
		out->fsize = 0;
	}
	return true;
}

bool dvars__lookup(struct dvmod *m, uint64_t off, struct dv_hit *out)
{
	return lookup(m, 0, off, out);
}

bool dvars__tls(const struct dvmod *m, uint64_t *memsz, uint64_t *align)
{
	*memsz = m->tls_memsz;
	*align = m->tls_align;
	return m->tls_memsz > 0;
}

bool dvars__tls_lookup(struct dvmod *m, uint64_t off, struct dv_hit *out)
{
	return lookup(m, 1, off, out);
}

/* ---------------- heap objects: the variable at an allocation site ---------------- */

/* A function holding pc somewhere inside namespace ns (nested ones too). */
static bool scan_ns(Dwarf_Die *ns, uint64_t pc, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(ns, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);

		if ((tag == DW_TAG_namespace || tag == DW_TAG_module) && scan_ns(&c, pc, out))
			return true;
		if (tag == DW_TAG_subprogram && dwarf_haspc(&c, pc) == 1) {
			*out = c;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The concrete scopes holding pc, innermost first (malloc'd into *scopes);
   0 when none. Unlike dwarf_getscopes, which continues from an inlined
   function to where it is defined, this follows the code: an inlined call,
   then the function it was inlined into, up to the compilation unit. */
static int scopes_at(struct dvmod *m, uint64_t pc, Dwarf_Die **scopes)
{
	Dwarf_Die cu, cur, c, chain[MAX_DEPTH + 1];
	int n = 0, i;

	*scopes = NULL;
	if (!m->dw)
		return 0;
	if (!dwarf_addrdie(m->dw, pc, &cu)) {
		Dwarf_Die *u = cuaddr_find(&m->cua, m->dw, pc);   /* no .debug_aranges (clang) */

		if (!u)
			return 0;
		cu = *u;
	}
	chain[n++] = cu;
	cur = cu;
	while (n <= MAX_DEPTH && dwarf_child(&cur, &c) == 0) {
		bool down = false;

		do {
			int tag = dwarf_tag(&c);

			if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
				/* no pc range of its own: look inside */
				if (scan_ns(&c, pc, &c)) {
					down = true;
					break;
				}
				continue;
			}
			if ((tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
			     tag == DW_TAG_lexical_block) && dwarf_haspc(&c, pc) == 1) {
				down = true;
				break;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
		if (!down)
			break;
		chain[n++] = c;
		cur = c;
	}
	*scopes = malloc((size_t)n * sizeof(**scopes));
	if (!*scopes)
		return 0;
	for (i = 0; i < n; i++)
		(*scopes)[i] = chain[n - 1 - i];
	return n;
}

/* The child of parent called name whose tag is tag1 or tag2. */
static bool child_tagged(Dwarf_Die *parent, const char *name, int tag1, int tag2, Dwarf_Die *out)
{
	Dwarf_Die c;

	if (dwarf_child(parent, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *n;

		if (tag != tag1 && tag != tag2)
			continue;
		n = dwarf_diename(&c);
		if (n && !strcmp(n, name)) {
			*out = c;
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* A child of scope named name with one of the tags (variable, parameter). */
static bool child_named(Dwarf_Die *scope, const char *name, Dwarf_Die *out)
{
	return child_tagged(scope, name, DW_TAG_variable, DW_TAG_formal_parameter, out);
}

/* The member called name of the aggregate t (typedefs peeled). */
static bool member_named(Dwarf_Die *t, const char *name, Dwarf_Die *out)
{
	peel(t);
	return child_tagged(t, name, DW_TAG_member, DW_TAG_member, out);
}

/* What a pointer-typed DIE d points to, with its name for the path. */
static bool pointee(struct dvmod *m, Dwarf_Die *d, struct dv_type *out)
{
	Dwarf_Die t;
	int tag;

	if (!type_of(d, &t))
		return false;
	peel(&t);
	tag = dwarf_tag(&t);
	if (tag != DW_TAG_pointer_type && tag != DW_TAG_reference_type &&
	    tag != DW_TAG_rvalue_reference_type)
		return false;
	if (!type_of(&t, &t))
		return false;
	type_name(&t, out->tname, sizeof(out->tname), 0);
	peel(&t);
	(void)m;
	out->die = dwarf_dieoffset(&t);
	{
		Dwarf_Word sz;
		out->tsize = dwarf_aggregate_size(&t, &sz) == 0 ? sz : 0;
	}
	return true;
}

bool dvars__var_at(struct dvmod *m, uint64_t pc, const char *name, struct dv_type *out)
{
	Dwarf_Die *sc = NULL, d, cu;
	int n = scopes_at(m, pc, &sc), i;
	bool found = false;

	memset(out, 0, sizeof(*out));
	/* Locals and parameters, innermost scope first, then the CU's globals. */
	for (i = 0; i < n && !found; i++)
		found = child_named(&sc[i], name, &d);
	if (!found && n > 0 && dwarf_diecu(&sc[0], &cu, NULL, NULL))
		found = child_named(&cu, name, &d);
	/* A member of the object a method runs on (implicit this->name). */
	for (i = 0; i < n && !found; i++) {
		Dwarf_Die self, cls;

		if (!child_named(&sc[i], "this", &self) || !type_of(&self, &cls))
			continue;
		peel(&cls);
		if (dwarf_tag(&cls) != DW_TAG_pointer_type || !type_of(&cls, &cls))
			continue;
		found = member_named(&cls, name, &d);
	}
	free(sc);
	if (!found)
		return false;
	out->found = true;
	out->typed = pointee(m, &d, out);
	return true;
}

const char *dvars__callee_at(struct dvmod *m, uint64_t ra)
{
	Dwarf_Die *sc = NULL;
	int n = scopes_at(m, ra - 1, &sc), i;
	const char *name = NULL;

	/* DW_TAG_call_site (or GNU_call_site) whose return pc is ra, in the
	   innermost scope holding the call. */
	for (i = 0; i < n && !name; i++) {
		Dwarf_Die c;

		if (dwarf_child(&sc[i], &c) != 0)
			continue;
		do {
			Dwarf_Attribute at;
			Dwarf_Addr pc;
			Dwarf_Die callee;
			int tag = dwarf_tag(&c);

			if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site)
				continue;
			if (!dwarf_attr(&c, tag == DW_TAG_call_site ? DW_AT_call_return_pc : DW_AT_low_pc,
			                &at) || dwarf_formaddr(&at, &pc) != 0 || pc != ra)
				continue;
			if ((dwarf_attr(&c, DW_AT_call_origin, &at) ||
			     dwarf_attr(&c, DW_AT_abstract_origin, &at)) &&
			    dwarf_formref_die(&at, &callee))
				name = dwarf_diename(&callee);
			break;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	free(sc);
	return name;
}

bool dvars__describe(struct dvmod *m, const struct dv_type *t, const char *var, uint64_t off,
                     char *buf, size_t len, uint64_t *foff, uint64_t *fsize)
{
	Dwarf_Die d;
	Dwarf_Word esize;
	uint64_t k;

	if (!t->typed || !m->dw || !dwarf_offdie(m->dw, t->die, &d) ||
	    dwarf_aggregate_size(&d, &esize) != 0 || !esize)
		return false;
	/* The block is an array of the pointee: element, then the path in it. */
	k = off / esize;
	snprintf(buf, len, "%s[%llu]", var, (unsigned long long)k);
	describe(&d, off - k * esize, buf, len, foff, fsize, 0);
	*foff += k * esize;
	return true;
}

/* ---------------- stack locals ---------------- */

/* A DIE's name, through DW_AT_abstract_origin / DW_AT_specification. */
static const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute at;

	return dwarf_attr_integrate(d, DW_AT_name, &at) ? dwarf_formstring(&at) : NULL;
}

/* The frame base of function fn relative to the CFA: DW_OP_call_frame_cfa
   (GCC on x86-64) is the CFA itself; a frame pointer (DW_OP_reg6/breg6 rbp,
   clang) sits 16 bytes below it after the standard prologue (return
   address, saved rbp). false for anything else. */
static bool frame_base(Dwarf_Die *fn, int64_t *delta)
{
	Dwarf_Attribute at;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr_integrate(fn, DW_AT_frame_base, &at) ||
	    dwarf_getlocation(&at, &ops, &nops) != 0 || nops != 1)
		return false;
	switch (ops[0].atom) {
	case DW_OP_call_frame_cfa:
		*delta = 0;
		return true;
	case DW_OP_reg6:
		*delta = -16;
		return true;
	case DW_OP_breg6:
		*delta = -16 + (int64_t)ops[0].number;
		return true;
	default:
		return false;
	}
}

/* Local d (variable or parameter) at frame-base offset *at, when its
   location at pc is one DW_OP_fbreg (exprloc, or a location list's entry
   holding pc); or one DW_OP_breg7 (rsp) when the frame's stack pointer is
   known (sp: its offset from the frame base, else 1), or DW_OP_breg6 (rbp)
   assuming the standard frame pointer (rbp = CFA - 16; cfa: its offset from
   the frame base). */
static bool local_at(Dwarf_Die *d, uint64_t pc, int64_t sp, int64_t cfa, int64_t *at)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(d, DW_AT_location, &a))
		return false;
	if (dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) != 1 || nops != 1)
		return false;
	switch (ops[0].atom) {
	case DW_OP_fbreg:
		*at = (int64_t)ops[0].number;
		return true;
	case DW_OP_breg7:
		if (sp > 0)
			return false;
		*at = sp + (int64_t)ops[0].number;
		return true;
	case DW_OP_breg6:
		*at = cfa - 16 + (int64_t)ops[0].number;
		return true;
	default:
		return false;
	}
}

/* The local of scope sc (its own children; with deep, also those of
   nested blocks and inlined calls) covering frame-base offset off. */
static bool local_in(Dwarf_Die *sc, uint64_t pc, int64_t sp, int64_t cfa, int64_t off, bool deep,
                     int depth, Dwarf_Die *out, int64_t *start, uint64_t *size)
{
	Dwarf_Die c;

	if (depth > MAX_DEPTH || dwarf_child(sc, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);
		Dwarf_Die ty;
		Dwarf_Word sz;
		int64_t at;

		if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
			if (local_at(&c, pc, sp, cfa, &at) && type_of(&c, &ty) &&
			    dwarf_aggregate_size(&ty, &sz) == 0 && sz && off >= at &&
			    (uint64_t)(off - at) < sz) {
				*out = c;
				*start = at;
				*size = sz;
				return true;
			}
		} else if (deep && (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine)) {
			if (local_in(&c, pc, sp, cfa, off, true, depth + 1, out, start, size))
				return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

bool dvars__local_at(struct dvmod *m, uint64_t pc, int64_t off, uint64_t fsize, struct dv_hit *out,
                     char *func, size_t flen)
{
	int64_t sp, cfa;

	Dwarf_Die *sc = NULL, fn, d, type;
	int n = scopes_at(m, pc, &sc), i, f = -1;
	int64_t delta, start = 0;
	uint64_t size = 0;
	const char *name;
	bool hit = false;

	memset(out, 0, sizeof(*out));
	/* The concrete function: the outermost subprogram holding pc (inlined
	   calls share its frame). */
	for (i = 0; i < n; i++)
		if (dwarf_tag(&sc[i]) == DW_TAG_subprogram)
			f = i;
	if (f < 0 || !frame_base(&sc[f], &delta)) {
		free(sc);
		return false;
	}
	fn = sc[f];
	off -= delta;
	cfa = -delta;
	sp = fsize ? cfa - (int64_t)fsize : 1;
	/* The scopes holding pc first, innermost first; then every block of
	   the function (the frame's pc may lie outside the accessed local's
	   block when another thread accesses it). */
	for (i = 0; i <= f && !hit; i++)
		hit = local_in(&sc[i], pc, sp, cfa, off, false, 0, &d, &start, &size);
	if (!hit)
		hit = local_in(&fn, pc, sp, cfa, off, true, 0, &d, &start, &size);
	free(sc);
	if (!hit)
		return false;
	name = die_name(&fn);
	snprintf(func, flen, "%s", name ? name : "?");
	name = die_name(&d);
	snprintf(out->var, sizeof(out->var), "%s", name ? name : "<anon>");
	out->start = (uint64_t)(start + delta);   /* from the CFA, two's complement */
	out->size = size;
	if (type_of(&d, &type)) {
		element_of(&type, out->etype, sizeof(out->etype), &out->esize);
		snprintf(out->field, sizeof(out->field), "%s", out->var);
		describe(&type, (uint64_t)(off - start), out->field, sizeof(out->field), &out->foff,
		         &out->fsize, 0);
		out->typed = true;
	}
	return true;
}
