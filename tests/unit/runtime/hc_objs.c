/* SPDX-License-Identifier: BSD-3-Clause */
/* hc_objs.c — test helper for the allocation tracker: read every profile of
   a measurement directory and print, one fact per line, what the runtime
   recorded about data objects, with allocation contexts symbolized from the
   ELF symbol tables (innermost frame first, '<' between frames):
     thread PID INDEX TID STACK_LO STACK_HI TLS_LO TLS_HI
     event PID THREAD EVENT ADDR PEER_ADDR PEER WEIGHT FLAGS
     obj PID THREAD EVENT SIDE ADDR BASE SIZE ALLOC_THREAD KIND FRAMES
     counter NAME VALUE               (summed over the profiles)
   Addresses in hex. Exits 1 if a profile cannot be read or an object's
   allocation context cannot be found in the allocating thread's profile. */
#include <dirent.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hc/profile.h"

#define MAXP 4096
#define MAXC 256

struct sym { uint64_t lo, hi; char *name; };
struct elfsyms { char *path; struct sym *v; size_t n; };

static struct hc_prof *profs[MAXP];
static int nprof;
static struct elfsyms mods[256];
static int nmods;

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The function symbols of an ELF file, sorted (loaded once per path). */
static struct elfsyms *syms_of(const char *path)
{
	struct elfsyms *m;
	Elf *e;
	Elf_Scn *scn = NULL;
	int fd;

	for (int i = 0; i < nmods; i++)
		if (!strcmp(mods[i].path, path))
			return &mods[i];
	if (nmods == 256)
		return NULL;
	m = &mods[nmods++];
	m->path = strdup(path);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return m;
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			const char *nm;
			if (!gelf_getsym(d, (int)i, &s) || GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
				continue;
			nm = elf_strptr(e, sh.sh_link, s.st_name);
			if (!nm)
				continue;
			m->v = realloc(m->v, (m->n + 1) * sizeof(*m->v));
			m->v[m->n].lo = s.st_value;
			m->v[m->n].hi = s.st_value + (s.st_size ? s.st_size : 1);
			m->v[m->n].name = strdup(nm);
			m->n++;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), sym_cmp);
	return m;
}

static const char *sym_name(const char *path, uint64_t off)
{
	struct elfsyms *m = syms_of(path);
	const char *best = NULL;

	for (size_t i = 0; m && i < m->n && m->v[i].lo <= off; i++)
		if (off < m->v[i].hi)
			best = m->v[i].name;
	return best;
}

static struct hc_prof *find_thread(uint32_t pid, uint32_t index)
{
	for (int i = 0; i < nprof; i++)
		if (hc_prof_thread(profs[i])->pid == pid && hc_prof_thread(profs[i])->index == index)
			return profs[i];
	return NULL;
}

/* The allocation context, innermost first; false if the node is missing. */
static int print_frames(struct hc_prof *p, uint32_t node)
{
	int first = 1;

	if (node >= hc_prof_nnodes(p))
		return 0;
	while (node != 0 && node != HC_NONE) {
		struct hc_prof_node n;
		struct hc_prof_module m;
		const char *name = NULL;

		hc_prof_node(p, node, &n);
		if (n.lm != HC_NONE) {
			hc_prof_module(p, n.lm, &m);
			name = sym_name(m.path, n.flags & HC_NODE_LEAF ? n.offset : n.offset - 1);
		}
		printf("%s%s", first ? "" : "<", name ? name : "?");
		first = 0;
		node = n.parent;
	}
	return 1;
}

int main(int argc, char **argv)
{
	static char cname[MAXC][40];
	static uint64_t cval[MAXC];
	int nc = 0, bad = 0;
	DIR *d;
	struct dirent *de;

	if (argc != 2) {
		fprintf(stderr, "usage: hc_objs MEASUREMENT-DIR\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	while ((de = readdir(d)) && nprof < MAXP) {
		char path[4096], err[512];
		size_t len = strlen(de->d_name);

		if (len < 7 || strcmp(de->d_name + len - 7, ".hcprof"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], de->d_name);
		if (hc_prof_open(path, &profs[nprof], err, sizeof(err)) < 0) {
			fprintf(stderr, "%s\n", err);
			bad = 1;
			continue;
		}
		nprof++;
	}
	closedir(d);
	for (int i = 0; i < nprof; i++) {
		struct hc_prof *p = profs[i];
		const struct hc_prof_thread *th = hc_prof_thread(p);

		printf("thread %u %u %u %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 "\n", th->pid,
		       th->index, th->tid, th->stack_lo, th->stack_hi, th->tls_lo, th->tls_hi);
		for (size_t k = 0; k < hc_prof_nevents(p); k++) {
			struct hc_prof_event e;
			hc_prof_event(p, k, &e);
			printf("event %u %u %zu %" PRIx64 " %" PRIx64 " %u %" PRIu64 " %u\n", th->pid,
			       th->index, k, e.addr, e.peer_addr, e.peer, e.weight, e.flags);
		}
		for (size_t k = 0; k < hc_prof_nobjects(p); k++) {
			struct hc_prof_object o;
			struct hc_prof_event e;
			struct hc_prof *ap;
			hc_prof_object(p, k, &o);
			hc_prof_event(p, o.event, &e);
			printf("obj %u %u %u %u %" PRIx64 " %" PRIx64 " %" PRIu64 " %u %u ", th->pid,
			       th->index, o.event, o.side, o.side ? e.peer_addr : e.addr, o.base, o.size,
			       o.thread, o.kind);
			ap = find_thread(th->pid, o.thread);
			if (!ap || !print_frames(ap, o.ctx)) {
				printf("MISSING");
				fprintf(stderr, "object %zu of thread %u: allocation context %u of thread %u "
				        "not found\n", k, th->index, o.ctx, o.thread);
				bad = 1;
			}
			printf("\n");
		}
		for (size_t k = 0; k < hc_prof_ncounters(p); k++) {
			struct hc_prof_counter c;
			int j;
			hc_prof_counter(p, k, &c);
			for (j = 0; j < nc && strcmp(cname[j], c.name); j++)
				;
			if (j == nc) {
				if (nc == MAXC) {
					fprintf(stderr, "hc_objs: more than %d counter names in the profiles\n", MAXC);
					return 1;
				}
				snprintf(cname[nc++], sizeof(cname[0]), "%s", c.name);
			}
			cval[j] += c.value;
		}
	}
	for (int k = 0; k < nc; k++)
		printf("counter %s %" PRIu64 "\n", cname[k], cval[k]);
	for (int i = 0; i < nprof; i++)
		hc_prof_close(profs[i]);
	return bad;
}
