/* SPDX-License-Identifier: BSD-3-Clause */
/* advice.c — what to change (insight.h): the layout of each top
   false-sharing object and the change that removes the sharing, a bound on
   what it can save, the kind of hand-off behind each top true-sharing code
   pair, and why an empty result is empty.

   The layout comes from objects.xml: fields (DWARF paths "v[k].m" or bare
   byte ranges), offsets, access sizes, the threads that touched each, and
   the object's element type and size (Object type=/elem=, from the DWARF
   type of the array element or of the pointer the block is stored into).
   The element size, when DWARF does not give it, is inferred from two
   fields "v[i].m" and "v[j].m" at offsets o_i, o_j: (o_j - o_i) / (j - i).

   The bound follows Cheetah's idea (Liu and Liu, CGO 2016: the gain of a
   fix predicted from sampled access costs, without making the fix): the
   falsely shared accesses' sampled CPU time is what a fix can remove; taken
   as removed entirely it is an upper bound on the CPU time saved, and, when
   the threads are balanced, 1 / (1 - s) bounds the speedup. The reports
   print these assumptions with the number. No signal context. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/insight.h"
#include "report/report.h"

#define LINE 64u

static int add_str(char ***v, size_t *n, const char *fmt, ...) HC_PRINTF(3, 4);
static int add_str(char ***v, size_t *n, const char *fmt, ...)
{
	char buf[1024], **p;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	p = realloc(*v, (*n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*v = p;
	if (!(p[*n] = strdup(buf)))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* "v[3].m.x" -> index 3, *rest = ".m.x", var (prefix) into var; -1 without
   an index. */
static int64_t name_index(const char *name, char *var, size_t vsz, const char **rest)
{
	const char *b = strchr(name, '[');
	char *end;
	unsigned long long k;

	*rest = "";
	if (var && vsz)
		snprintf(var, vsz, "%s", name);
	if (!b || !isdigit((unsigned char)b[1]))
		return -1;
	k = strtoull(b + 1, &end, 10);
	if (*end != ']')
		return -1;
	if (var && vsz)
		snprintf(var, vsz, "%.*s", (int)(b - name), name);
	*rest = end + 1;
	return (int64_t)k;
}

/* The last member of a path: "v[3].m.x" -> "x"; NULL when none. */
static const char *member_of(const char *name)
{
	const char *d = strrchr(name, '.');

	if (!d || strchr(d, '['))
		return NULL;
	return d + 1;
}

static int cmp_field(const void *a, const void *b)
{
	const struct hc_advice_field *x = a, *y = b;

	if (x->f->offset != y->f->offset)
		return x->f->offset < y->f->offset ? -1 : 1;
	return x->f->access < y->f->access ? -1 : x->f->access > y->f->access;
}

static bool scalar_type(const char *t)
{
	static const char *const s[] = { "char", "short", "int", "long", "unsigned", "signed",
		"float", "double", "_Bool", "bool", "size_t", "int8_t", "int16_t", "int32_t",
		"int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t",
		"real", "integer", "logical", "complex", "atomic_", "std::atomic" };

	if (!t[0])
		return false;
	if (strchr(t, '*'))
		return true;
	for (size_t k = 0; k < sizeof(s) / sizeof(*s); k++)
		if (!strncmp(t, s[k], strlen(s[k])))
			return true;
	return false;
}

/* "FILE:LINE" and the call of a heap object's name
   "[VAR = ]CALL(...) at FILE:LINE in F <- ..."; false when not of that form. */
static bool heap_site(const char *name, char *call, size_t csz, char *site, size_t ssz)
{
	const char *at = strstr(name, " at "), *in, *eq = strstr(name, " = "), *par;

	call[0] = site[0] = '\0';
	if (!at)
		return false;
	in = strstr(at + 4, " in ");
	snprintf(site, ssz, "%.*s", (int)(in ? in - (at + 4) : (long)strlen(at + 4)), at + 4);
	if (eq && eq < at)
		eq += 3;
	else
		eq = name;
	par = strstr(eq, "(...)");
	if (par && par < at)
		snprintf(call, csz, "%.*s", (int)(par - eq), eq);
	return true;
}

static uint32_t thread_bits(const struct hc_db_field *f, uint32_t *set, uint32_t n, uint32_t max)
{
	for (size_t t = 0; t < f->nthreads; t++) {
		uint32_t k;
		for (k = 0; k < n && set[k] != f->threads[t]; k++)
			;
		if (k == n && n < max)
			set[n++] = f->threads[t];
	}
	return n;
}

/* The element size: DWARF's, else from two indexed fields of the same
   member path. */
static uint64_t element_size(const struct hc_db_object *o, bool dwarf, const char **from)
{
	*from = NULL;
	if (o->elem && dwarf) {
		*from = "DWARF";
		return o->elem;
	}
	for (size_t a = 0; a < o->nfields; a++) {
		const char *ra, *rb;
		int64_t ka = name_index(o->fields[a].name, NULL, 0, &ra);
		if (ka < 0)
			continue;
		for (size_t b = a + 1; b < o->nfields; b++) {
			int64_t kb = name_index(o->fields[b].name, NULL, 0, &rb);
			if (kb < 0 || kb == ka || strcmp(ra, rb) || o->fields[b].offset == o->fields[a].offset)
				continue;
			if (kb > ka && o->fields[b].offset > o->fields[a].offset &&
			    (o->fields[b].offset - o->fields[a].offset) % (uint64_t)(kb - ka) == 0) {
				*from = "field offsets";
				return (o->fields[b].offset - o->fields[a].offset) / (uint64_t)(kb - ka);
			}
			if (ka > kb && o->fields[a].offset > o->fields[b].offset &&
			    (o->fields[a].offset - o->fields[b].offset) % (uint64_t)(ka - kb) == 0) {
				*from = "field offsets";
				return (o->fields[a].offset - o->fields[b].offset) / (uint64_t)(ka - kb);
			}
		}
	}
	return 0;
}

/* The slot size of per-thread slots in unnamed fields: each thread's
   slot starts at the lowest offset of the fields only it touched in false
   sharing; the smallest gap between two threads' starts (a thread's fields
   at -O0 come in 4-byte halves, so no gap between fields of one slot
   counts). 0 when fewer than two threads have such fields, or when the
   fields of one thread alone carry less than half the object's false
   volume: then the threads share the slots (a queue's writer and reader)
   and nothing is per-thread. */
static uint64_t slot_step(const struct hc_advice_field *v, size_t n, uint64_t obj_false)
{
	uint32_t tid[64];
	uint64_t start[64], best = 0, single = 0;
	uint32_t nt = 0;

	for (size_t a = 0; a < n; a++) {
		const struct hc_db_field *x = v[a].f;
		uint32_t m;
		if (x->nthreads != 1 || !x->fal)
			continue;
		single += x->fal;
		for (m = 0; m < nt && tid[m] != x->threads[0]; m++)
			;
		if (m == nt) {
			if (nt == 64)
				continue;
			tid[nt] = x->threads[0];
			start[nt++] = x->offset;
		} else if (x->offset < start[m])
			start[m] = x->offset;
	}
	if (nt < 2 || 2 * single < obj_false)
		return 0;
	for (uint32_t a = 0; a < nt; a++)
		for (uint32_t b = a + 1; b < nt; b++) {
			uint64_t d = start[a] > start[b] ? start[a] - start[b] : start[b] - start[a];
			if (d && d < LINE && (!best || d < best))
				best = d;
		}
	return best;
}

/* Per-thread parts of a heap block whose type is unknown, larger than a
   line: the block's size in k equal parts (the run's threads but main
   first — a block of one element per worker — then k = 2..64, the first
   that fits; parts of at least a line), when every thread's own falsely shared
   fields lie in one part and each thread in another. Phoenix histogram
   at -O0 (`calloc(sizeof(thread_arg_t), num_procs)` inside a macro, no
   DWARF type for the pointer): 3096-byte elements whose boundary line
   holds one thread's last counters and the next thread's first fields —
   slot_step's 40 B there is the distance across the boundary, not a slot
   (detection.md §5.72). 0 otherwise. */
static uint64_t part_size(uint64_t size, const struct hc_advice_field *v, size_t n, uint64_t prefer)
{
	for (uint64_t j = 1; j <= 64; j++) {
		uint64_t k = j == 1 ? prefer : j;    /* the run's worker count first */
		uint32_t tid[64], nt = 0;
		uint64_t part[64], e;
		bool fits;

		if (k < 2 || k > 64 || (j > 1 && k == prefer))
			continue;
		if (size / k < LINE) {
			if (j == 1)
				continue;
			break;
		}
		e = size / k;
		fits = size % k == 0;

		for (size_t a = 0; a < n && fits; a++) {
			const struct hc_db_field *x = v[a].f;
			uint32_t m;
			if (x->nthreads != 1 || !x->fal)
				continue;
			if (x->offset >= size || (x->offset + (x->size ? x->size : 1) - 1) / e != x->offset / e) {
				fits = false;      /* outside the block, or across a part's end */
				break;
			}
			for (m = 0; m < nt && tid[m] != x->threads[0]; m++)
				;
			if (m == nt) {
				if (nt == 64)
					return 0;
				tid[nt] = x->threads[0];
				part[nt++] = x->offset / e;
			} else if (part[m] != x->offset / e)
				fits = false;      /* one thread in two parts */
		}
		for (uint32_t a = 0; a < nt && fits; a++)
			for (uint32_t b = a + 1; b < nt && fits; b++)
				fits = part[a] != part[b];   /* two threads in one part */
		if (fits && nt >= 2)
			return e;
	}
	return 0;
}

/* Whether w occurs in s at the start of a name: not after a letter or a
   digit (C-Thread-Pool's bsem_wait is the program's, sem_wait and
   __new_sem_wait glibc's; a decomp_ routine is no OpenMP omp_ call). */
static bool has_name(const char *s, const char *w)
{
	for (const char *p = strstr(s, w); p; p = strstr(p + 1, w)) {
		const char *colon;
		size_t n;

		if (p != s && isalnum((unsigned char)p[-1]))
			continue;
		/* not a source file's name: "omp_crit.c:56 (main)" is the
		   program's statement (a file:line token) */
		n = strcspn(p, " ()[],");
		colon = memchr(p, ':', n);
		if (colon && colon + 1 < p + n && isdigit((unsigned char)colon[1]))
			continue;
		return true;
	}
	return false;
}

/* The runtime library a code label or a call belongs to (an OpenMP or
   threading runtime), NULL for the program's own code. */
static const char *runtime_of(const char *s)
{
	static const char *const omp[] = { "libgomp", "GOMP_", "gomp_", "libomp", "libiomp",
	                                   "__kmp", "omp_" };
	static const char *const thr[] = { "libpthread", "pthread_", "__lll_", "futex", "sem_wait",
	                                   "sem_post" };

	for (size_t k = 0; k < sizeof(omp) / sizeof(*omp); k++)
		if (has_name(s, omp[k]))
			return "the OpenMP runtime";
	for (size_t k = 0; k < sizeof(thr) / sizeof(*thr); k++)
		if (has_name(s, thr[k]))
			return "the threading library";
	return NULL;
}

/* The threads found in the false-sharing fields of at least 40 % of an
   array's elements (at least 4 of them): a reader of every element (the
   master summing per-thread slots), or, two of them or more, elements
   handed out at run time (a thread pool's result slots, a cyclic
   schedule): *n of them into every[], at most max. */
static void everywhere_threads(const struct hc_advice_field *fs, size_t nf, uint32_t *every,
                               uint32_t *n, uint32_t max)
{
	uint32_t tid[64], cnt[64], nt = 0, nel = 0;
	int64_t last[64], prev = -1;

	*n = 0;
	for (size_t k = 0; k < nf; k++) {       /* sorted by offset: elements in order */
		const struct hc_db_field *f = fs[k].f;
		if (!f->fal || fs[k].elem < 0)
			continue;
		if (fs[k].elem != prev) {
			nel++;
			prev = fs[k].elem;
		}
		for (size_t t = 0; t < f->nthreads; t++) {
			uint32_t m;
			for (m = 0; m < nt && tid[m] != f->threads[t]; m++)
				;
			if (m == nt) {
				if (nt == 64)
					continue;
				tid[nt] = f->threads[t];
				cnt[nt] = 0;
				last[nt++] = -1;
			}
			if (last[m] != fs[k].elem) {
				last[m] = fs[k].elem;
				cnt[m]++;
			}
		}
	}
	if (nel < 4)
		return;
	for (uint32_t m = 0; m < nt && *n < max; m++)
		if (10ull * cnt[m] >= 4ull * nel)
			every[(*n)++] = tid[m];
}

static bool in_set(const uint32_t *set, uint32_t n, uint32_t v);

/* Consecutive blocks of an array of scalars, one thread each (a static
   partition: OpenMP's `schedule(static)`, or bounds computed by hand):
   the falsely shared elements, in index order, form runs of one thread,
   no thread in two runs, and some run holds two elements or more. Only
   the lines across a block boundary are shared. NPB CG's q (7000
   doubles, the threads' halves meeting at q[3500] | q[3501]) met the
   "every thread in most elements" test of a run-time hand-out at two
   threads, and the per-element test at more (detection.md §5.73).
   Returns the number of runs (0: not blocks) and the first boundary's
   two elements in *lo, *hi. */
static uint32_t block_runs(const struct hc_advice_field *fs, size_t nf, int64_t *lo, int64_t *hi)
{
	uint32_t seen[64], ns = 0, runs = 0, cur = UINT32_MAX;
	int64_t prev = -1, run_len = 0;
	bool long_run = false;

	*lo = *hi = -1;
	for (size_t k = 0; k < nf; k++) {       /* sorted by offset: elements in order */
		const struct hc_db_field *f = fs[k].f;
		if (!f->fal || fs[k].elem < 0)
			continue;
		if (f->nthreads != 1)
			return 0;
		if (fs[k].elem == prev) {
			if (f->threads[0] != cur)
				return 0;       /* two threads in one element */
			continue;
		}
		if (f->threads[0] != cur) {
			if (in_set(seen, ns, f->threads[0]) || ns == 64)
				return 0;       /* a thread back in a second run: interleaved */
			seen[ns++] = f->threads[0];
			if (runs == 1) {
				*lo = prev;
				*hi = fs[k].elem;
			}
			runs++;
			cur = f->threads[0];
			run_len = 0;
		}
		if (++run_len >= 2)
			long_run = true;
		prev = fs[k].elem;
	}
	return runs >= 2 && long_run ? runs : 0;
}

static bool in_set(const uint32_t *set, uint32_t n, uint32_t v)
{
	for (uint32_t k = 0; k < n; k++)
		if (set[k] == v)
			return true;
	return false;
}

/* A C++ standard library call that allocates the library's own state (a
   std::thread's callable, a stream's buffer, a locale), not a container's
   storage of the program's elements. */
static bool std_internal(const char *call)
{
	static const char *const own[] = { "std::thread", "std::jthread", "std::locale",
		"std::ios_base", "std::basic_ios", "std::basic_filebuf", "std::basic_streambuf",
		"std::basic_stringbuf", "std::__cxx11::basic_stringbuf", "std::basic_ostream",
		"std::basic_istream" };

	for (size_t k = 0; k < sizeof(own) / sizeof(*own); k++)
		if (!strncmp(call, own[k], strlen(own[k])))
			return true;
	return false;
}

/* The element type of a C++ container's storage from its allocating call's
   name ("std::vector<Stats, std::allocator<Stats> >::vector",
   "std::allocator_traits<std::allocator<int> >::allocate", clang's
   "std::__new_allocator<int>::allocate"): the argument of its first
   ...allocator<...>, without "(anonymous namespace)::". false when the call
   is no standard-library allocation of elements. */
static bool std_elem_type(const char *call, char *out, size_t osz)
{
	const char *p = strstr(call, "allocator<"), *q;
	int depth = 1;

	out[0] = '\0';
	if (strncmp(call, "std::", 5) && strncmp(call, "__gnu_cxx::", 11))
		return false;
	if (!p)
		return false;
	p += strlen("allocator<");
	for (q = p; *q && depth; q++)
		depth += *q == '<' ? 1 : *q == '>' ? -1 : 0;
	if (depth || q - 1 <= p)
		return false;
	q--;                               /* the closing '>' */
	while (q > p && q[-1] == ' ')
		q--;
	if (!strncmp(p, "(anonymous namespace)::", 23))
		p += 23;
	snprintf(out, osz, "%.*s", (int)(q - p), p);
	return out[0] != '\0';
}

static int fs_one(const struct hc_db *db, const struct hc_report_scale *sc,
                  const struct hc_db_object *o, struct hc_advice_fs *a)
{
	char var[256] = "", call[128], site[512], tn[160], sizes[64], etype[128];
	const char *type = o->type ? o->type : "", *from;
	bool heap = !strcmp(o->kind, hc_db_object_kind_name(HC_DB_OBJ_HEAP)),
	     stat = !strcmp(o->kind, hc_db_object_kind_name(HC_DB_OBJ_STATIC));
	bool named = false, per_elem = true, split = false, fortran = false, omp = false, handed = false;
	bool stack = !strcmp(o->kind, hc_db_object_kind_name(HC_DB_OBJ_STACK));
	uint32_t blocks = 0;
	int64_t blo = -1, bhi = -1;
	uint64_t e, step = 0, part = 0;
	bool member_array = false, scalar_elems = true, container = false;
	uint32_t thr[64], nthr = 0;
	int64_t ek[64];
	uint32_t eth[64], every[64], nevery = 0;
	size_t nek = 0;
	int rc = 0;

	/* the indexed array: the object itself ("v[k].m": DWARF's element) or
	   an array member ("s.w[k]": its element size from the offsets, its
	   type not recorded) */
	for (size_t k = 0; k < o->nfields; k++) {
		const char *rest, *nm = o->fields[k].name;
		char pre[256];
		if (name_index(nm, pre, sizeof(pre), &rest) < 0)
			continue;
		if (strchr(pre, '.'))
			member_array = true;
		if (rest[0])
			scalar_elems = false;
	}
	e = element_size(o, !member_array, &from);
	if (member_array)
		type = "";
	a->o = o;
	a->share = hc_report_share(sc, o->fal);
	a->elem = e;
	a->elem_from = from;
	a->type = type;
	a->fields = calloc(o->nfields ? o->nfields : 1, sizeof(*a->fields));
	if (!a->fields)
		return -ENOMEM;
	for (size_t k = 0; k < o->nfields; k++) {
		const char *rest;
		struct hc_advice_field *f = &a->fields[a->nfields++];
		f->f = &o->fields[k];
		f->elem = name_index(o->fields[k].name, var[0] ? NULL : var, sizeof(var), &rest);
		if (o->fields[k].name[0])
			named = true;
		if (f->elem < 0 && e && !o->fields[k].name[0])
			f->elem = (int64_t)(o->fields[k].offset / e);
		if (o->fields[k].fal)
			nthr = thread_bits(&o->fields[k], thr, nthr, 64);
	}
	a->nthreads = nthr;
	qsort(a->fields, a->nfields, sizeof(*a->fields), cmp_field);

	/* An array of scalars: two threads or more in most elements is work
	   handed out at run time; one, a reader of every element (the master
	   summing the slots), which the pattern of the others leaves out. */
	if (scalar_elems && !member_array && (blocks = block_runs(a->fields, a->nfields, &blo, &bhi)) != 0)
		per_elem = false;
	else if (scalar_elems && !member_array) {
		everywhere_threads(a->fields, a->nfields, every, &nevery, 64);
		if (nevery >= 2) {
			handed = split = true;
			per_elem = false;
		}
	}
	/* Which element each thread touches: one thread per element is the
	   per-thread-slot pattern; one element with fields of different threads
	   is a struct to split. */
	for (size_t k = 0; k < a->nfields && !handed && !blocks; k++) {
		const struct hc_db_field *f = a->fields[k].f;
		size_t m;
		if (!f->fal || a->fields[k].elem < 0 || f->nthreads != 1 || in_set(every, nevery, f->threads[0]))
			continue;
		for (m = 0; m < nek && ek[m] != a->fields[k].elem; m++)
			;
		if (m == nek && nek < 64) {
			ek[nek] = a->fields[k].elem;
			eth[nek++] = f->threads[0];
		} else if (m < nek && eth[m] != f->threads[0]) {
			per_elem = false;   /* two threads in one element */
			split = true;
			handed = scalar_elems && !member_array;    /* no fields to split */
		}
	}
	if (nek < 2)
		per_elem = false;
	else {
		/* per-thread elements need at least two threads among them */
		size_t m = 1;
		while (m < nek && eth[m] == eth[0])
			m++;
		if (m == nek)
			per_elem = false;
	}
	if (!per_elem && !split) {
		/* no element indexes: different threads in different fields of one
		   variable (a struct) */
		uint32_t first = UINT32_MAX;
		for (size_t k = 0; k < a->nfields; k++) {
			const struct hc_db_field *f = a->fields[k].f;
			if (!f->fal || f->nthreads != 1 || !f->name[0] || !member_of(f->name))
				continue;
			if (first == UINT32_MAX)
				first = f->threads[0];
			else if (f->threads[0] != first)
				split = true;
		}
	}
	/* a stack holds a frame's locals, not slots of one type: the distance
	   between two threads' bytes there is no element's size (MG's and CG's
	   reports read main's OpenMP shared locals as "40-byte slots ... no
	   DWARF type for the pointer", detection.md §5.73) */
	if (!per_elem && !split && !named && !blocks && !stack)
		step = slot_step(a->fields, a->nfields, o->fal);
	/* slots larger than a line in a block of unknown type: the step is
	   the distance across a part's boundary, not a slot */
	if (step && heap && !type[0] &&
	    (part = part_size(o->size, a->fields, a->nfields, db->nthreads > 1 ? db->nthreads - 1 : 0)) != 0)
		step = 0;

	if (heap)
		heap_site(o->name, call, sizeof(call), site, sizeof(site));
	else
		call[0] = site[0] = '\0';
	/* a C++ container's storage (std::vector's elements): the program's
	   data, its element type from the allocating call when DWARF has none */
	container = heap && call[0] && !std_internal(call) && std_elem_type(call, etype, sizeof(etype));
	if (container && !type[0])
		type = etype;
	snprintf(tn, sizeof(tn), "%s", type[0] ? type : "the element type");
	{
		const char *dot = strrchr(site, '.');
		fortran = dot && (!strncasecmp(dot, ".f90", 4) || !strncasecmp(dot, ".f:", 3) ||
		                  !strncasecmp(dot, ".f95", 4) || !strncasecmp(dot, ".f03", 4) ||
		                  !strncasecmp(dot, ".f08", 4));
	}
	/* accessed from an OpenMP region (names "f [parallel region at ...]") */
	for (size_t k = 0; k < o->npairs && !omp; k++) {
		const struct hc_db_node *n = hc_db_node_find(db, o->pairs[k].c);
		omp = n && strstr(hc_db_node_proc_name(db, n), "[parallel region");
	}

	if (heap && call[0] && (runtime_of(call) || std_internal(call))) {
		const char *rt = runtime_of(call) ? runtime_of(call) : "the C++ standard library";
		snprintf(a->pattern, sizeof(a->pattern),
		         "allocated inside %s(...) called at %s, by %s, not by this program's code: "
		         "its own data (for an OpenMP region, the team and barrier state)", call, site, rt);
		rc |= add_str(&a->fixes, &a->nfixes,
		              "no change in this program's code removes it: it is %s's internal data; "
		              "if it matters, enter that code less often (fewer, larger parallel regions "
		              "or calls)", rt);
		goto bound;
	}
	if (per_elem && e && e % LINE == 0) {
		snprintf(a->pattern, sizeof(a->pattern),
		         "%u threads each use their own element of %s; %s is already %llu B (a "
		         "multiple of 64), but the block does not start on a 64-byte line, so each "
		         "element straddles two lines shared with its neighbours", nthr,
		         var[0] ? var : o->name, type[0] ? type : "the element",
		         (unsigned long long)e);
	} else if (per_elem && e) {
		snprintf(a->pattern, sizeof(a->pattern),
		         "%u threads each write their own element of %s (%llu B each, %llu per "
		         "64-byte line): neighbouring elements share a line", nthr,
		         var[0] ? var : o->name, (unsigned long long)e,
		         (unsigned long long)(e < LINE ? LINE / e : 1));
		if (e % LINE) {
			uint64_t pe = (e + LINE - 1) / LINE * LINE;
			if (member_array && scalar_elems)
				rc |= add_str(&a->fixes, &a->nfixes,
				              "give each element of %s its own line: declare it as an array of "
				              "`struct { T v; } __attribute__((aligned(64)))` (C++: `struct "
				              "alignas(64) { T v; }`, T its element type), %llu -> %llu B per "
				              "element, and use %s[k].v", var, (unsigned long long)e,
				              (unsigned long long)pe, var);
			else if (scalar_type(type))
				rc |= add_str(&a->fixes, &a->nfixes,
				              "give each element its own line: make %s an array of "
				              "`struct { %s v; } __attribute__((aligned(64)))` (C++: "
				              "`struct alignas(64) { %s v; }`), %llu -> %llu B per element, "
				              "and use %s[k].v", var[0] ? var : "the array", type, type,
				              (unsigned long long)e, (unsigned long long)pe,
				              var[0] ? var : "it");
			else
				rc |= add_str(&a->fixes, &a->nfixes,
				              "pad %s to %llu B: declare it `struct alignas(64) ...` (C++11) or "
				              "add `__attribute__((aligned(64)))` / C11 `_Alignas(64)` on its "
				              "first member (sizeof %llu -> %llu B)", tn, (unsigned long long)pe,
				              (unsigned long long)e, (unsigned long long)pe);
		}
	} else if (blocks && e && e < LINE) {
		uint64_t run = LINE / e;
		const char *v = var[0] ? var : o->name;
		snprintf(a->pattern, sizeof(a->pattern),
		         "%u threads each write their own block of consecutive elements of %s (%llu B, "
		         "%llu per 64-byte line): only the lines where a block ends and the next begins are "
		         "shared (%s[%lld] | %s[%lld]), %u boundar%s", blocks, v, (unsigned long long)e,
		         (unsigned long long)run, v, (long long)blo, v, (long long)bhi, blocks - 1,
		         blocks - 1 == 1 ? "y" : "ies");
		rc |= add_str(&a->fixes, &a->nfixes,
		              "make each thread's block a whole number of 64-byte lines: blocks of a multiple "
		              "of %llu elements of %s (%s%llu%s), and the array aligned to 64 B "
		              "(`__attribute__((aligned(64)))`, C++ `alignas(64)`); padding every element "
		              "instead would take %llux the memory for %u shared line%s",
		              (unsigned long long)run, v,
		              omp ? "OpenMP: `schedule(static, C)` with C a multiple of " :
		                    "the partition's bounds rounded to a multiple of ",
		              (unsigned long long)run, omp ? ", or the bounds rounded by hand" : "",
		              (unsigned long long)run, blocks - 1, blocks - 1 == 1 ? "" : "s");
	} else if (handed && e && e < LINE) {
		uint64_t run = LINE / e;
		snprintf(a->pattern, sizeof(a->pattern),
		         "%u threads write elements of %s (%llu B, %llu per 64-byte line), each by "
		         "different threads over the run (which one decided at run time: a pool's "
		         "task, a scattered index): neighbours of different threads share a line", nthr, var[0] ? var : o->name, (unsigned long long)e,
		         (unsigned long long)run);
		if (scalar_type(type))
			rc |= add_str(&a->fixes, &a->nfixes,
			              "give each element its own line: make %s an array of "
			              "`struct { %s v; } __attribute__((aligned(64)))` (C++: "
			              "`struct alignas(64) { %s v; }`), %llu -> 64 B per element, "
			              "and use %s[k].v", var[0] ? var : "the array", type, type,
			              (unsigned long long)e, var[0] ? var : "it");
		else
			rc |= add_str(&a->fixes, &a->nfixes,
			              "give each element its own line: pad %s to 64 B (`alignas(64)`, "
			              "sizeof %llu -> 64 B)", tn, (unsigned long long)e);
		rc |= add_str(&a->fixes, &a->nfixes,
		              "or hand out the work in runs of at least %llu consecutive elements of %s "
		              "(one 64-byte line, the array aligned to 64 B), so that one thread writes "
		              "a whole line: a larger chunk (`schedule(dynamic, %llu)`), or a task that "
		              "covers %llu elements",
		              (unsigned long long)run, var[0] ? var : o->name, (unsigned long long)run,
		              (unsigned long long)run);
		if (omp)
			rc |= add_str(&a->fixes, &a->nfixes,
			              "or, if the threads add into elements picked at random (a scatter), "
			              "give each thread its own copy of %s and combine them after the "
			              "loop: an OpenMP array reduction, `reduction(+: %s[:n])`",
			              var[0] ? var : o->name, var[0] ? var : "the array");
		else
			rc |= add_str(&a->fixes, &a->nfixes,
			              "or, if the threads add into elements picked at random (a scatter), "
			              "give each thread its own copy of %s and add the copies up after",
			              var[0] ? var : o->name);
	} else if (split) {
		/* the first field of each thread after the first: its own line */
		uint32_t seen[64], ns = 0;
		size_t at = 0;
		char list[512] = "";
		snprintf(a->pattern, sizeof(a->pattern),
		         "different threads write different fields of one %s within a 64-byte line",
		         type[0] ? type : "element");
		for (size_t k = 0; k < a->nfields && at < sizeof(list); k++) {
			const struct hc_db_field *f = a->fields[k].f;
			uint32_t m;
			if (!f->fal || f->nthreads != 1)
				continue;
			for (m = 0; m < ns && seen[m] != f->threads[0]; m++)
				;
			if (m < ns || ns == 64)
				continue;
			seen[ns++] = f->threads[0];
			if (ns == 1)
				continue;
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s`%s` (thread %u)",
			                       at ? ", " : "", member_of(f->name) ? member_of(f->name) :
			                       f->name, f->threads[0]);
		}
		rc |= add_str(&a->fixes, &a->nfixes,
		              "split the fields: start a new 64-byte line at %s with `alignas(64)` "
		              "(GCC: `__attribute__((aligned(64)))`) on that member of %s, or move "
		              "each thread's fields into a struct of its own", list[0] ? list :
		              "the second thread's first field", tn);
	} else if (step && container) {
		snprintf(a->pattern, sizeof(a->pattern),
		         "%u threads write their own %llu-byte elements of a C++ container of %s "
		         "(allocated by %s(...) at %s), %llu B apart: several elements per 64-byte line",
		         nthr, (unsigned long long)step, type, call, site, (unsigned long long)step);
		if (scalar_type(type))
			rc |= add_str(&a->fixes, &a->nfixes,
			              "give each element its own line: store `struct alignas(64) Padded "
			              "{ %s v; }` in the container instead of %s, %llu -> 64 B per element; "
			              "since C++17 the container's allocator returns storage aligned for it",
			              type, type, (unsigned long long)step);
		else
			rc |= add_str(&a->fixes, &a->nfixes,
			              "give each element its own line: declare the element type `struct "
			              "alignas(64) %s` (or wrap it: `struct alignas(64) Padded { %s v; }` and "
			              "store Padded in the container), %llu -> 64 B per element; since C++17 "
			              "the container's allocator returns storage aligned for it", type, type,
			              (unsigned long long)step);
	} else if (part) {
		uint64_t pe = (part + LINE - 1) / LINE * LINE;

		snprintf(a->pattern, sizeof(a->pattern),
		         "%u threads each use their own %llu-byte part of the block (its %llu B in "
		         "%llu parts; the type is unknown: no DWARF type for the pointer), %s", nthr,
		         (unsigned long long)part, (unsigned long long)o->size,
		         (unsigned long long)(o->size / part),
		         part % LINE ? "not a multiple of 64 B: the line at each boundary holds the end "
		                       "of one thread's part and the start of the next one's"
		                     : "already a multiple of 64 B, but the block does not start on a "
		                       "64-byte line, so each boundary's line holds two threads' parts");
		if (part % LINE)
			rc |= add_str(&a->fixes, &a->nfixes,
			              "pad each thread's part from %llu to %llu B (its element type with "
			              "`alignas(64)`, or a `char pad[%llu]` member at its end)",
			              (unsigned long long)part, (unsigned long long)pe,
			              (unsigned long long)(pe - part));
	} else if (step) {
		snprintf(a->pattern, sizeof(a->pattern),
		         "%u threads write their own %llu-byte slots, %llu B apart: several slots per "
		         "64-byte line (the type is unknown: no DWARF type for the pointer)", nthr,
		         (unsigned long long)step, (unsigned long long)step);
		if (fortran)
			rc |= add_str(&a->fixes, &a->nfixes,
			              "pad each thread's slot from %llu to 64 B (a derived type with a "
			              "padding component, or %llu elements per thread)",
			              (unsigned long long)step, (unsigned long long)(LINE / step));
		else
			rc |= add_str(&a->fixes, &a->nfixes,
			              "pad each thread's slot from %llu to 64 B (an element type with "
			              "`alignas(64)` or a `char pad[%llu]` member)", (unsigned long long)step,
			              (unsigned long long)(LINE - step % LINE));
	} else if (stat && o->size && o->size <= 8) {
		/* a scalar variable: two threads cannot write different bytes of it
		   apart; its line holds other variables (Phoenix kmeans: `modified`
		   beside `points`, `means`, `dim`, which every worker reads) */
		char others[256] = "";
		size_t at = 0;
		unsigned n = 0;
		for (size_t k = 0; k < db->nobjects && at < sizeof(others); k++) {
			const struct hc_db_object *x = &db->objects[k];
			if (x == o || !x->fal || strcmp(x->kind, o->kind) || strcmp(x->module, o->module) ||
			    x->size >= LINE)
				continue;
			if (n++ < 4)
				at += (size_t)snprintf(others + at, sizeof(others) - at, "%s`%s`", at ? ", " : "",
				                       x->name);
		}
		snprintf(a->pattern, sizeof(a->pattern),
		         "%s is %llu B, one variable: its false sharing is with other data on its "
		         "64-byte line, not within it%s%s%s", var[0] ? var : o->name,
		         (unsigned long long)o->size, n ? " (other small variables of this module with "
		         "false sharing in this run, likely its neighbours: " : "", others,
		         n > 4 ? ", ...)" : n ? ")" : "");
		rc |= add_str(&a->fixes, &a->nfixes,
		              "give %s a line of its own: `alignas(64)` (GCC: "
		              "`__attribute__((aligned(64)))`) on its declaration, and keep what other "
		              "threads read all the time off that line (the next variables: align the "
		              "first of them too, or read them into locals before the loop)",
		              var[0] ? var : o->name);
	} else if (stack && omp) {      /* not per_elem, not split: those came first */
		snprintf(a->pattern, sizeof(a->pattern),
		         "threads write locals of this stack within 64 bytes of each other: in an OpenMP "
		         "region, the variables it shares (`shared`, `default(shared)`, reduction "
		         "targets) stay in the master's frame, side by side");
		rc |= add_str(&a->fixes, &a->nfixes,
		              "make what each thread writes private to it (`private(...)`, a "
		              "`reduction(...)` clause, or a local declared inside the region), so "
		              "that the threads only read the master's locals; a shared local that "
		              "they must write gets a line of its own (`alignas(64)`)");
	} else {
		snprintf(a->pattern, sizeof(a->pattern),
		         "threads write data within 64 bytes of each other in this object");
		rc |= add_str(&a->fixes, &a->nfixes,
		              "separate what different threads write by at least 64 bytes (pad the "
		              "data, or give each thread its own copy)");
	}
	/* the start of the data on a line boundary */
	if (heap && site[0] && fortran) {
		rc |= add_str(&a->fixes, &a->nfixes,
		              "%salign the array allocated at %s: gfortran's ALLOCATE aligns to 16 "
		              "bytes only; pad each thread's part to a multiple of 64 B (e.g. a leading "
		              "dimension of %llu elements, using a(1, t)), or with ifx "
		              "`!DIR$ ATTRIBUTES ALIGN: 64`", a->nfixes ? "and " : "", site,
		              (unsigned long long)(e && e < LINE ? LINE / e : step && step < LINE ? LINE / step : 8));
	} else if (heap && site[0] && container) {
		if (!step && !per_elem)
			rc |= add_str(&a->fixes, &a->nfixes,
			              "%sthe storage comes from %s(...) at %s: pad its element type %s "
			              "(%s) and, since C++17, the container's allocator aligns the storage "
			              "for it", a->nfixes ? "and " : "", call, site, type,
			              scalar_type(type) ? "store a `struct alignas(64) { T v; }` instead" :
			              "`alignas(64)`");
	} else if (heap && site[0]) {
		bool libc = !call[0] || !strcmp(call, "malloc") || !strcmp(call, "calloc") ||
		            !strcmp(call, "realloc");
		if (call[0] && strstr(call, "new"))
			rc |= add_str(&a->fixes, &a->nfixes,
			              "%salign the block allocated at %s: with the padded type, C++17 "
			              "`new` honours alignas(64); otherwise allocate with "
			              "aligned_alloc(64, n) / posix_memalign(&p, 64, n)", a->nfixes ? "and " : "",
			              site);
		else if (libc)
			rc |= add_str(&a->fixes, &a->nfixes,
			              "%salign the block: at %s replace %s(...) by aligned_alloc(64, size "
			              "rounded up to 64) or posix_memalign(&p, 64, size) (glibc's %s "
			              "aligns to 16 bytes)", a->nfixes ? "and " : "", site, call[0] ? call : "the allocation",
			              call[0] ? call : "malloc");
		else
			rc |= add_str(&a->fixes, &a->nfixes,
			              "%salign the block: at %s it comes from %s(...); make that return "
			              "64-byte-aligned memory (aligned_alloc(64, ...) or posix_memalign "
			              "inside it), or allocate this array with aligned_alloc(64, size "
			              "rounded up to 64) here (glibc's malloc aligns to 16 bytes)",
			              a->nfixes ? "and " : "", site, call);
	} else if (stat && (per_elem || step)) {   /* part: heap blocks only */
		rc |= add_str(&a->fixes, &a->nfixes,
		              "%salign %s itself: `alignas(64)` (GCC: `__attribute__((aligned(64)))`) "
		              "on its declaration%s", a->nfixes ? "and " : "", var[0] ? var : o->name,
		              member_array ? " (the member's, or the whole variable's)" : "");
	} else if (stack && (!omp || per_elem || split)) {
		rc |= add_str(&a->fixes, &a->nfixes,
		              "this is stack memory of another thread: give the shared local "
		              "`alignas(64)`, or move it off the stack into a padded allocation");
	}
	if ((per_elem || step) && omp)
		rc |= add_str(&a->fixes, &a->nfixes,
		              "in the OpenMP region: accumulate into a private variable and let a "
		              "`reduction(+: ...)` clause (or one store after the loop) combine them");
	if (per_elem || step || part)
		rc |= add_str(&a->fixes, &a->nfixes,
		              "alternatively, if these are per-thread accumulators: keep the value in "
		              "a local variable and store it once at the end");

bound:
	/* a negligible object: nothing worth changing */
	if (a->share >= 0 && a->share < HC_REPORT_NEGLIGIBLE_PCT) {
		for (size_t k = 0; k < a->nfixes; k++)
			free(a->fixes[k]);
		a->nfixes = 0;
		rc |= add_str(&a->fixes, &a->nfixes,
		              "no change advised: its false sharing is negligible (%.2f%% of the %s, "
		              "under %.0f%%)", a->share, sc->time ? "sampled CPU time" :
		              "sampled memory accesses", HC_REPORT_NEGLIGIBLE_PCT);
	}
	/* no sampled total (exact mode counts transfers, not accesses): judge
	   the object against all the communication counted instead, so a few
	   lines at the threads' chunk boundaries are not advised a padding */
	if (a->share < 0 && db->t_all && 100.0 * (double)o->fal / (double)db->t_all <
	                                     HC_REPORT_NEGLIGIBLE_PCT) {
		for (size_t k = 0; k < a->nfixes; k++)
			free(a->fixes[k]);
		a->nfixes = 0;
		rc |= add_str(&a->fixes, &a->nfixes,
		              "no change advised: its false sharing is negligible (%.2g%% of all the "
		              "communication counted, under %.0f%%)",
		              100.0 * (double)o->fal / (double)db->t_all, HC_REPORT_NEGLIGIBLE_PCT);
	}
	/* the bound */
	if (a->share >= 0) {
		a->save_bound = a->share;
		hc_report_value(sizes, sizeof(sizes), o->fal, db->unit);
		if (sc->time) {
			a->speedup_bound = a->share < 100 ? 100.0 / (100.0 - a->share) : 0;
			rc |= add_str(&a->assume, &a->nassume,
			              "the fix makes the %s of falsely shared accesses free (an upper bound: "
			              "Cheetah charges them the average latency of the other accesses)",
			              sizes);
			rc |= add_str(&a->assume, &a->nassume,
			              "each sample stands for one period of CPU time at the accessing "
			              "instruction (soft sampler)");
			rc |= add_str(&a->assume, &a->nassume,
			              "the threads are balanced, so the saved CPU time shortens the run in "
			              "proportion (a thread on the critical path that spends more of its "
			              "own time here gains more)");
			rc |= add_str(&a->assume, &a->nassume,
			              "the padding adds no misses elsewhere");
		} else {
			a->speedup_bound = 0;
			rc |= add_str(&a->assume, &a->nassume,
			              "about %s cache-line transfers avoided (%.1f%% of the sampled memory "
			              "accesses); no time bound: the PMU samplers record no access latency "
			              "here", sizes, a->share);
		}
	}
	return rc ? -ENOMEM : 0;
}

static int cmp_obj_false(const void *a, const void *b)
{
	const struct hc_db_object *x = *(const struct hc_db_object *const *)a;
	const struct hc_db_object *y = *(const struct hc_db_object *const *)b;

	if (x->fal != y->fal)
		return x->fal > y->fal ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Whether the statement labelled "file:line (f)" is where an OpenMP
   parallel region starts (a procedure is named "... [parallel region at
   file:line]"): the master's code that launches the region, handing it the
   shared variables' addresses on its stack. */
static bool region_launch(const struct hc_db *db, const char *label)
{
	const char *sp = strchr(label, ' ');
	char needle[300];

	if (!sp || (size_t)(sp - label) + 24 > sizeof(needle))
		return false;
	snprintf(needle, sizeof(needle), "[parallel region at %.*s]", (int)(sp - label), label);
	for (size_t k = 0; k < db->nprocedures; k++)
		if (db->procedures[k].n && strstr(db->procedures[k].n, needle))
			return true;
	return false;
}

static void ts_kind(const struct hc_db *db, struct hc_advice_ts *t)
{
	const char *ra = runtime_of(t->a), *rb = runtime_of(t->b);

	(void)db;
	if (ra && rb && !strcmp(ra, "the OpenMP runtime")) {
		t->kind = "synchronization in the OpenMP runtime";
		snprintf(t->detail, sizeof(t->detail),
		         "barriers, loop scheduling and reductions inside %s hand its own lines "
		         "between the threads (both statements are in it): the cost of the parallel "
		         "regions themselves. Fewer or larger parallel regions, `nowait` where no "
		         "barrier is needed, a static schedule; OMP_WAIT_POLICY=passive if threads "
		         "spin", ra);
	} else if (ra && rb) {
		t->kind = "synchronization in the threading library";
		snprintf(t->detail, sizeof(t->detail),
		         "a lock, condition variable or barrier of %s handed between the threads "
		         "(both statements are in it): contention; lock less often, finer locks, "
		         "or per-thread data", ra);
	} else if (!strcmp(t->a, t->b)) {
		t->kind = "migratory read-modify-write";
		snprintf(t->detail, sizeof(t->detail),
		         "the same statement in several threads updates the same data (a shared "
		         "counter, accumulator, flag or lock word): the line migrates from core to "
		         "core. A counter or reduction: accumulate per thread and combine once "
		         "(OpenMP reduction, per-thread partial sums); a lock: less contention or "
		         "finer locks");
	} else if (!strcmp(t->b, HC_REPORT_UNKNOWN_PEER) || !strcmp(t->a, HC_REPORT_UNKNOWN_PEER)) {
		t->kind = "hand-off (peer unknown)";
		snprintf(t->detail, sizeof(t->detail),
		         "data written by one thread is used by another; the peer's profile is "
		         "missing, so its statement is unknown");
	} else if (strstr(t->a, "[parallel region at ") && strstr(t->b, "[parallel region at ")) {
		/* both ends in OpenMP parallel loops (LULESH: CalcEnergyForElems'
		   loop writes what EvalEOSForElems' loop reads) */
		t->kind = "producer→consumer between OpenMP parallel loops";
		snprintf(t->detail, sizeof(t->detail),
		         "one parallel loop writes data that another thread reads in a loop of "
		         "another (or the same) parallel region. A stencil's neighbour reads are "
		         "inherent (larger blocks per thread cut them); otherwise the two loops divide "
		         "the iterations differently: give both the same iteration space and "
		         "`schedule(static)` (the same chunks), so that each thread reads what it "
		         "wrote, or fuse the loops; or a temporary array is freed and allocated again "
		         "with another length (its memory then belongs to other threads' chunks): "
		         "keep it allocated across the calls");
	} else if ((t->wa == HC_REPORT_OUT_REGION && t->wb == HC_REPORT_IN_REGION) ||
	           (t->wa == HC_REPORT_IN_REGION && t->wb == HC_REPORT_OUT_REGION)) {
		/* serial code of the master thread against a parallel region
		   (XSBench: main's grid_init writes the tables every lookup of the
		   region reads) */
		const char *ser = t->wa == HC_REPORT_OUT_REGION ? t->a : t->b;
		const char *par = t->wa == HC_REPORT_OUT_REGION ? t->b : t->a;

		if (region_launch(db, ser)) {
			/* LULESH: CalcEnergyForElems' launch at lulesh.cc:2075 */
			t->kind = "parallel region launch";
			snprintf(t->detail, sizeof(t->detail),
			         "%s starts a parallel region: the master thread hands the region the "
			         "addresses of its shared variables (on its stack) and the other threads "
			         "read them (%s), at every launch. The cost of entering parallel regions: "
			         "fewer, larger regions (one region around several loops, `omp for` "
			         "inside), or a loop moved out of the region's caller into the region",
			         ser, par);
			return;
		}
		t->kind = "serial code ↔ parallel region";
		snprintf(t->detail, sizeof(t->detail),
		         "%s runs outside every OpenMP parallel region (serial code), %s inside one: "
		         "data moves between the serial phase and the region's threads, about once "
		         "per line and phase. Initialization that a region reads is paid once; a "
		         "serial phase that runs again between regions (every step) pays it each "
		         "time: do that work in a parallel loop with the reading loop's "
		         "`schedule(static)`, so that each thread touches its own part. With several "
		         "NUMA domains, initializing in parallel also places each part on its "
		         "thread's node (first touch)", ser, par);
	} else {
		t->kind = "producer→consumer";
		snprintf(t->detail, sizeof(t->detail),
		         "data written at one statement is used at the other by another thread "
		         "(a queue, a flag, a result handed on): inherent to the algorithm. "
		         "Hand data over in larger batches, or keep producer and consumer on cores "
		         "that share a cache");
	}
}

int hc_advice_build(const struct hc_db *db, size_t max_fs, size_t max_ts, struct hc_advice *a)
{
	const struct hc_db_object **v = NULL;
	struct hc_report_loc_pair *lp = NULL;
	size_t n = 0, nlp = 0;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	hc_report_scale(db, &a->scale);
	hc_report_empty_reason(db, a->empty, sizeof(a->empty));
	if (db->has_objects && db->nobjects) {
		v = calloc(db->nobjects, sizeof(*v));
		a->fs = calloc(max_fs ? max_fs : 1, sizeof(*a->fs));
		if (!v || !a->fs) {
			free(v);
			return -ENOMEM;
		}
		for (size_t k = 0; k < db->nobjects; k++)
			if (db->objects[k].fal &&
			    strcmp(db->objects[k].kind, hc_db_object_kind_name(HC_DB_OBJ_UNKNOWN)))
				v[n++] = &db->objects[k];
		qsort(v, n, sizeof(*v), cmp_obj_false);
		for (size_t k = 0; k < n && a->nfs < max_fs && !rc; k++)
			rc = fs_one(db, &a->scale, v[k], &a->fs[a->nfs++]);
		free(v);
		if (rc)
			return rc;
	}
	if (hc_report_loc_pairs_true(db, db->pairs, db->npairs, max_ts, &lp, &nlp))
		return -ENOMEM;
	a->ts = calloc(max_ts ? max_ts : 1, sizeof(*a->ts));
	if (!a->ts) {
		free(lp);
		return -ENOMEM;
	}
	for (size_t k = 0; k < nlp && a->nts < max_ts && lp[k].tru; k++) {
		struct hc_advice_ts *t = &a->ts[a->nts++];
		snprintf(t->a, sizeof(t->a), "%s", lp[k].a);
		snprintf(t->b, sizeof(t->b), "%s", lp[k].b);
		t->wa = lp[k].wa;
		t->wb = lp[k].wb;
		t->tru = lp[k].tru;
		t->all = lp[k].all;
		t->share = hc_report_share(&a->scale, lp[k].tru);
		ts_kind(db, t);
	}
	free(lp);
	return 0;
}

void hc_advice_free(struct hc_advice *a)
{
	for (size_t k = 0; k < a->nfs; k++) {
		struct hc_advice_fs *f = &a->fs[k];
		for (size_t i = 0; i < f->nfixes; i++)
			free(f->fixes[i]);
		for (size_t i = 0; i < f->nassume; i++)
			free(f->assume[i]);
		free(f->fixes);
		free(f->assume);
		free(f->fields);
	}
	free(a->fs);
	free(a->ts);
	memset(a, 0, sizeof(*a));
}

static uint64_t cnt(const struct hc_db *db, const char *name)
{
	for (size_t k = 0; k < db->ncounters; k++)
		if (!strcmp(db->counters[k].name, name))
			return db->counters[k].v;
	return 0;
}

void hc_report_coverage_of(const struct hc_db *db, struct hc_report_coverage *c)
{
	c->samples = cnt(db, "samples");
	c->thinned = cnt(db, "samples_thinned");
	c->armed = cnt(db, "watch_armed");
	c->gated = cnt(db, "watch_gated");
	c->threads_gated = cnt(db, "watch_threads_gated");
}

bool hc_report_coverage_cut(const struct hc_report_coverage *c, char *buf, size_t sz)
{
	bool gated = c->gated >= HC_REPORT_GATED_MIN && c->gated >= c->armed;
	bool thin = c->samples && c->samples + c->thinned >= HC_REPORT_THIN_MIN * c->samples;
	char g[256] = "", t[160] = "";

	buf[0] = '\0';
	if (!gated && !thin)
		return false;
	if (gated)
		snprintf(g, sizeof(g), "the context-switch gate refused %llu watchpoint sets and let %llu "
		         "through (%llu threads never opened theirs: they switched too often for open "
		         "watchpoints to be cheap)", (unsigned long long)c->gated,
		         (unsigned long long)c->armed, (unsigned long long)c->threads_gated);
	if (thin)
		snprintf(t, sizeof(t), "the crowded process's %llu samples stood for %.1f sampling "
		         "periods each", (unsigned long long)c->samples,
		         (double)(c->samples + c->thinned) / (double)c->samples);
	snprintf(buf, sz, "coverage cut to keep the cost down: %s%s%s. Communication that samples do "
	         "not catch themselves (one-time hand-offs, infrequent sharing) is likely missed or "
	         "under-counted; to measure it fully, run with no more threads than CPUs, or set "
	         "HPCRUN_COMM_SWITCH_NS=0 HPCRUN_COMM_CROWDED_PERIOD=1 (every watchpoint open, no "
	         "thinning: slower)", g, gated && thin ? "; " : "", t);
	return true;
}

void hc_report_empty_reason(const struct hc_db *db, char *buf, size_t sz)
{
	struct hc_report_coverage cov;
	char cut[768];     /* the warning's sentence; the analyzer writes it */
	bool cut_off;
	uint64_t samples = cnt(db, "samples"), published = cnt(db, "published");
	uint64_t traps = cnt(db, "traps");
	size_t measured = 0;
	int64_t period = -1;

	buf[0] = '\0';
	if (db->t_all || db->events)
		return;
	hc_report_coverage_of(db, &cov);
	cut_off = hc_report_coverage_cut(&cov, cut, sizeof(cut));
	for (size_t t = 0; t < db->nthreads; t++) {
		if (!db->threads[t].profile[0])
			continue;
		measured++;
		if (db->threads[t].period > 0)
			period = db->threads[t].period;
	}
	if (!db->read)
		snprintf(buf, sz, "no profile could be read (%llu found, %llu skipped: see Skipped "
		         "profiles)", (unsigned long long)db->found, (unsigned long long)db->skipped);
	else if (measured <= 1)
		snprintf(buf, sz, "only one thread was measured: communication needs two threads "
		         "touching the same cache line");
	else if (!samples)
		snprintf(buf, sz, "no sample was taken in %zu threads: the run was too short for the "
		         "sampling period (%lld %s); run longer or lower the period (-e COMM@P)",
		         measured, (long long)period, strcmp(db->unit, HC_DB_UNIT_NS) ? "events" :
		         "ns of CPU time");
	else if (samples < 100 * measured && samples < 1000)
		snprintf(buf, sz, "too short to tell: %llu samples in %zu threads (period %lld %s); "
		         "sharing rarer than that is invisible — run longer or lower the period",
		         (unsigned long long)samples, measured, (long long)period,
		         strcmp(db->unit, HC_DB_UNIT_NS) ? "events" : "ns");
	else if (!published)
		snprintf(buf, sz, "no store was sampled (%llu samples, %llu published stores): a "
		         "communication starts at a sampled store; the shared data may be only "
		         "read, or stores too rare for the period",
		         (unsigned long long)samples, (unsigned long long)published);
	else if (cut_off)
		snprintf(buf, sz, "none found in %llu samples and %llu published stores, but the "
		         "sampler's coverage was cut to keep its cost down (watchpoint sets refused by "
		         "the switch gate: %llu of %llu; sampling periods per sample: %.1f): "
		         "communication is likely missed (Warnings: how to measure it fully)",
		         (unsigned long long)samples, (unsigned long long)published,
		         (unsigned long long)cov.gated, (unsigned long long)(cov.gated + cov.armed),
		         (double)(cov.samples + cov.thinned) / (double)cov.samples);
	else
		snprintf(buf, sz, "nothing shared: %llu samples and %llu published stores in %zu "
		         "threads, %llu watchpoint traps, but no thread touched a line another "
		         "thread had just written", (unsigned long long)samples,
		         (unsigned long long)published, measured, (unsigned long long)traps);
}
