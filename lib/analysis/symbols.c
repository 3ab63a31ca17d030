/* SPDX-License-Identifier: BSD-3-Clause */
/* symbols.c — symbolization of (load module, offset) with libdw. The runtime
   records addresses relative to each module's load bias, so every module is
   reported on its own at bias 0 (dwfl_report_elf with base 0): for a PIE or
   shared library (ET_DYN) the offset is then a link-time address, and for a
   non-PIE executable (ET_EXEC) the bias was 0 to begin with and the offset is
   the absolute address. A lookup yields the chain of frames at the address,
   outermost first: the real function (DW_TAG_subprogram) and the functions
   inlined into it, each with the source position of its inlined call, and the
   source line of the address itself. The concrete chain comes from
   dwarf_getscopes_die on the innermost scope (dwarf_getscopes alone continues
   into the abstract origin, not into the caller). Without DWARF the ELF
   symbol table still names the function. One struct symmod per thread: a
   Dwfl is not shared between threads. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

struct symmod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
};

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
	return m;
}

void sym__close(struct symmod *m)
{
	if (!m)
		return;
	dwfl_end(m->dwfl);
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

/* Fill out->fr from DWARF; returns the number of frames found. */
static int dwarf_frames(struct symmod *m, uint64_t addr, struct sym_result *out)
{
	Dwarf_Die *cu, *scopes = NULL, *chain = NULL;
	Dwarf_Die *fn[AN_MAX_INLINE];
	Dwarf_Addr bias;
	int n, nchain, nfn = 0, i;

	cu = dwfl_module_addrdie(m->mod, addr, &bias);
	if (!cu)
		return 0;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	if (n <= 0)
		return 0;
	nchain = dwarf_getscopes_die(&scopes[0], &chain);
	if (nchain <= 0)
		goto out;
	/* chain is innermost first. Keep the innermost AN_MAX_INLINE - 1
	   functions and, in the last slot, the outermost one. */
	for (i = 0; i < nchain; i++) {
		if (!is_function(&chain[i]))
			continue;
		if (nfn < AN_MAX_INLINE)
			fn[nfn++] = &chain[i];
		else
			fn[AN_MAX_INLINE - 1] = &chain[i];
	}
	/* fn is innermost first; out->fr is outermost first. */
	for (i = 0; i < nfn; i++) {
		struct sym_frame *f = &out->fr[i];
		Dwarf_Die *d = fn[nfn - 1 - i];
		Dwarf_Word line;

		set_frame(f, d);
		if (i > 0 && dwarf_tag(d) == DW_TAG_inlined_subroutine) {
			f->call_file = call_file(d);
			if (attr_udata(d, DW_AT_call_line, &line) == 0)
				f->call_line = (int)line;
		}
	}
out:
	free(chain);
	free(scopes);
	return nfn;
}

void sym__lookup(struct symmod *m, uint64_t addr, struct sym_result *out)
{
	const char *elfname;
	Dwfl_Line *ln;
	GElf_Sym sym;
	GElf_Off off;
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
	elfname = dwfl_module_addrinfo(m->mod, addr, &off, &sym, NULL, NULL, NULL);
	if (out->nframes == 0 && elfname) {
		memset(&out->fr[0], 0, sizeof(out->fr[0]));
		out->fr[0].name = elfname;
		out->nframes = 1;
	} else if (out->nframes > 0 && !out->fr[0].name) {
		out->fr[0].name = elfname;
	}
}
