/* SPDX-License-Identifier: BSD-3-Clause */
/* golden_run.c — one golden test: PROBE-FILE (what a golden program
   recorded about itself, probe.h) becomes a measurement directory of real
   profiles (one per thread, written with the profile writer: the load map,
   calling-context trees of return addresses, the declared communications
   as events and OBJS records for the addresses inside recorded heap blocks,
   stack and TLS ranges), the analyzer runs on it, and the name-level facts
   of the database are compared with EXPECTED:
     proc NAME                      every procedure of the program's module
     object KIND | NAME | FIELDS    every data object but <unknown>; TLS and
                                    stack fields without offsets (they depend
                                    on the system libraries' TLS sizes)
     type NAME | TYPE | SIZE        the element type of each object (objects.xml)
     advice NAME | FIX              each change the report advises for the
                                    top false-sharing objects (lib/report)
     handoff A <-> B | KIND         the kind of each top true-sharing code pair
     scale BASIS | denominator N    the sampled CPU time (every thread has 50
                                    samples of 1000 ns)
     share NAME | ...               each advised object's share of it and the
                                    bound on what its fix saves
   sorted. With HC_UPDATE_GOLDEN=1 EXPECTED is rewritten instead. Usage:
   golden_run PROBE-FILE EXPECTED WORKDIR. Test code only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "db/db.h"
#include "db/format.h"
#include "report/insight.h"
#include "hc/profile.h"
#include "hc_test.h"

#define MAXT 8
#define GOLDEN_SAMPLES 50
#define MAXN 4096
#define MAXE 256
#define MAXM 64

struct tprof {
	struct hc_prof_thread th;
	struct hc_prof_node nodes[MAXN];
	size_t nn;
	struct hc_prof_event ev[MAXE];
	size_t ne;
	struct hc_prof_object ob[2 * MAXE];
	size_t no;
	struct hc_prof_frame fr[64];
	size_t nf;
	bool used;
};

struct alloc {
	uint32_t thread;
	uint64_t base, size;
	uint64_t ra[64];
	int nra;
	uint32_t node;              /* in the allocating thread's tree */
};

static struct tprof T[MAXT];
static struct hc_prof_module mods[MAXM];
static size_t nmods;
/* A stack frame recorded by PROBE_FRAME: an FRAM record of its thread. */
struct frame {
	uint32_t thread;
	uint64_t cfa, sp;
	uint64_t ra[64];
	int nra;
};
static struct frame frames[64];
static size_t nframes;
static struct alloc allocs[512];
static size_t nallocs;
static char exe[512];

static void die(const char *what)
{
	fprintf(stderr, "golden_run: %s\n", what);
	exit(1);
}

static void to_module(uint64_t a, uint32_t *lm, uint64_t *off)
{
	size_t i;

	for (i = 0; i < nmods; i++)
		if (a >= mods[i].lo && a < mods[i].hi) {
			*lm = (uint32_t)i;
			*off = a - mods[i].base;
			return;
		}
	*lm = HC_NONE;
	*off = a;
}

static uint32_t node(struct tprof *t, uint32_t parent, uint64_t a, uint32_t flags)
{
	uint32_t lm;
	uint64_t off;
	size_t i;

	to_module(a, &lm, &off);
	for (i = 1; i < t->nn; i++)
		if (t->nodes[i].parent == parent && t->nodes[i].lm == lm &&
		    t->nodes[i].offset == off && t->nodes[i].flags == flags)
			return (uint32_t)i;
	if (t->nn == MAXN)
		die("too many nodes");
	t->nodes[t->nn] = (struct hc_prof_node){ .id = (uint32_t)t->nn, .parent = parent, .lm = lm,
	                                         .flags = flags, .offset = off };
	return (uint32_t)t->nn++;
}

/* Insert a path (innermost first) below the root; returns the innermost. */
static uint32_t insert(struct tprof *t, const uint64_t *ra, int n, uint64_t leaf)
{
	uint32_t p = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		p = node(t, p, ra[i], 0);
	return leaf ? node(t, p, leaf, HC_NODE_LEAF) : p;
}

static int parse_path(char *s, uint64_t *ra, int max)
{
	int n = 0;
	char *tok;

	for (tok = strtok(s, " \n"); tok && n < max; tok = strtok(NULL, " \n"))
		ra[n++] = strtoull(tok, NULL, 0);
	return n;
}

static void object_records(struct tprof *t, uint32_t ev, uint32_t side, uint64_t addr)
{
	size_t i;

	for (i = 0; i < nallocs; i++) {
		const struct alloc *a = &allocs[i];
		if (addr >= a->base && addr < a->base + a->size) {
			t->ob[t->no++] = (struct hc_prof_object){ .event = ev, .side = side,
			                                          .base = a->base, .size = a->size,
			                                          .thread = a->thread, .ctx = a->node };
			return;
		}
	}
}

struct comm {
	uint32_t thread;
	uint64_t addr, peer;
	uint32_t len, plen, tru;
	uint64_t leaf, ra[64];
	int nra;
};

static struct comm comms[MAXE];
static size_t ncomms;

static void read_probe(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	uint32_t nth = 0;
	size_t i;

	if (!f)
		die("cannot read the probe file");
	while (fgets(line, sizeof(line), f)) {
		unsigned idx;
		unsigned long long tp, lo, hi, tls, base, size;
		int off = 0;
		char p[512];

		if (sscanf(line, "thread %u %llx %llx %llx %llx", &idx, &tp, &lo, &hi, &tls) == 5 &&
		    idx < MAXT) {
			struct hc_prof_thread *th = &T[idx].th;
			T[idx].used = true;
			nth = idx + 1 > nth ? idx + 1 : nth;
			*th = (struct hc_prof_thread){ .index = idx, .creator = idx ? 0 : HC_NONE,
			                               .pid = 4242, .tid = 4242 + idx,
			                               .sampler = HC_SAMPLER_SOFT, .unit = HC_UNIT_NS,
			                               .creation_ctx = HC_NONE, .period = 1000,
			                               .stack_lo = lo, .stack_hi = hi,
			                               .tls_lo = tp - tls, .tls_hi = tp,
			                               .start_lm = HC_NONE };
			if (th->stack_hi > th->tls_lo && th->stack_lo < th->tls_lo)
				th->stack_hi = th->tls_lo;
		} else if (sscanf(line, "alloc %u %llx %llu%n", &idx, &base, &size, &off) == 3 &&
		           nallocs < 512) {
			struct alloc *a = &allocs[nallocs++];
			a->thread = idx;
			a->base = base;
			a->size = size;
			a->nra = parse_path(line + off, a->ra, 64);
		} else if (sscanf(line, "comm %u %llx %llu %llx %llu %u %llx%n", &idx, &base, &size,
		                  &lo, &hi, &comms[ncomms].tru, &tp, &off) == 7 && ncomms < MAXE) {
			struct comm *c = &comms[ncomms++];
			c->thread = idx;
			c->addr = base;
			c->len = (uint32_t)size;
			c->peer = lo;
			c->plen = (uint32_t)hi;
			c->leaf = tp;
			c->nra = parse_path(line + off, c->ra, 64);
		} else if (sscanf(line, "frame %u %llx %llx%n", &idx, &base, &lo, &off) == 3 &&
		           nframes < 64) {
			struct frame *fm = &frames[nframes++];
			fm->thread = idx;
			fm->cfa = base;
			fm->sp = lo;
			fm->nra = parse_path(line + off, fm->ra, 64);
		} else if (sscanf(line, "module %u %llx %llx %llx %511s", &idx, &base, &lo, &hi, p) == 5 &&
		           nmods < MAXM) {
			struct hc_prof_module *m = &mods[nmods++];
			*m = (struct hc_prof_module){ .id = idx, .base = base, .lo = lo, .hi = hi };
			snprintf(m->path, sizeof(m->path), "%s", p);
			if (idx == 0)
				snprintf(exe, sizeof(exe), "%s", p);
		}
	}
	fclose(f);
	if (!nmods || nth < 2)
		die("the probe file has no load map or fewer than two threads");
	for (i = 0; i < nth; i++) {
		T[i].nodes[0] = (struct hc_prof_node){ .id = 0, .parent = HC_NONE, .lm = HC_NONE };
		T[i].nn = 1;
		snprintf(T[i].th.exe, sizeof(T[i].th.exe), "%s", exe);
	}
	for (i = 0; i < nallocs; i++)
		allocs[i].node = insert(&T[allocs[i].thread], allocs[i].ra, allocs[i].nra, 0);
	for (i = 0; i < nframes; i++) {
		struct tprof *t;

		if (frames[i].thread >= MAXT || (t = &T[frames[i].thread])->nf >= 64)
			continue;
		t->fr[t->nf++] = (struct hc_prof_frame){
			.cfa = frames[i].cfa, .count = 1, .size = (uint32_t)(frames[i].cfa - frames[i].sp),
			.node = insert(t, frames[i].ra, frames[i].nra, 0) };
	}
	for (i = 0; i < ncomms; i++) {
		const struct comm *c = &comms[i];
		struct tprof *t = &T[c->thread];
		uint32_t peer = c->thread ? 0 : 1, e = (uint32_t)t->ne;
		struct hc_prof_event *ev = &t->ev[t->ne++];

		*ev = (struct hc_prof_event){ .weight = 1000, .addr = c->addr, .peer_addr = c->peer,
		                              .len = c->len, .peer_len = c->plen, .peer = peer,
		                              .cpu = -1, .peer_cpu = -1,
		                              .flags = HC_COMM_TRAP | (c->tru ? HC_COMM_TRUE : 0) };
		ev->ctx = insert(t, c->ra, c->nra, c->leaf);
		ev->peer_ctx = insert(&T[peer], c->ra, c->nra, c->leaf);
		object_records(t, e, HC_SIDE_ADDR, c->addr);
		object_records(t, e, HC_SIDE_PEER, c->peer);
	}
}

static void write_profiles(const char *dir)
{
	static uint8_t buf[1 << 16];
	size_t k, i;

	for (k = 0; k < MAXT; k++) {
		struct tprof *t = &T[k];
		struct hc_prof_writer w;
		char path[4096];
		int fd, r = 0;

		if (!t->used)
			continue;
		snprintf(path, sizeof(path), "%s/golden-000000-%03zu-00000001-4242-0.%s", dir, k,
		         HC_PROF_SUFFIX);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die("cannot write a profile");
		r |= hc_prof_writer_init(&w, fd, buf, sizeof(buf), &t->th);
		r |= hc_prof_section_begin(&w, HC_SEC_LOADMAP);
		for (i = 0; i < nmods; i++)
			r |= hc_prof_put_module(&w, &mods[i]);
		r |= hc_prof_section_end(&w);
		r |= hc_prof_section_begin(&w, HC_SEC_CCT);
		for (i = 0; i < t->nn; i++)
			r |= hc_prof_put_node(&w, &t->nodes[i]);
		r |= hc_prof_section_end(&w);
		r |= hc_prof_section_begin(&w, HC_SEC_EVENTS);
		for (i = 0; i < t->ne; i++)
			r |= hc_prof_put_event(&w, &t->ev[i]);
		r |= hc_prof_section_end(&w);
		r |= hc_prof_section_begin(&w, HC_SEC_OBJECTS);
		for (i = 0; i < t->no; i++)
			r |= hc_prof_put_object(&w, &t->ob[i]);
		r |= hc_prof_section_end(&w);
		if (t->nf) {
			r |= hc_prof_section_begin(&w, HC_SEC_FRAMES);
			for (i = 0; i < t->nf; i++)
				r |= hc_prof_put_frame(&w, &t->fr[i]);
			r |= hc_prof_section_end(&w);
		}
		/* a fixed number of timer samples per thread: the scale's
		   denominator (50 x period 1000 ns each) */
		r |= hc_prof_section_begin(&w, HC_SEC_COUNTERS);
		r |= hc_prof_put_counter(&w, "samples", GOLDEN_SAMPLES);
		r |= hc_prof_section_end(&w);
		r |= hc_prof_writer_finish(&w);
		close(fd);
		if (r)
			die("the profile writer failed");
	}
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t cap = 0, n = 0, k;

	if (!f)
		return NULL;
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 65536;
			s = realloc(s, cap);
			if (!s)
				die("out of memory");
		}
		k = fread(s + n, 1, 4096, f);
		n += k;
		if (k == 0)
			break;
	}
	fclose(f);
	s[n] = '\0';
	return s;
}

/* XML attribute value unescaped. */
static void unxml(const char *s, size_t n, char *out, size_t len)
{
	static const char *const ent[][2] = { { "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" },
	                                      { "&apos;", "'" }, { "&quot;", "\"" } };
	size_t i = 0, k, o = 0;

	while (i < n && o + 1 < len) {
		for (k = 0; k < 5; k++)
			if (!strncmp(s + i, ent[k][0], strlen(ent[k][0])))
				break;
		if (k < 5) {
			out[o++] = ent[k][1][0];
			i += strlen(ent[k][0]);
		} else {
			out[o++] = s[i++];
		}
	}
	out[o] = '\0';
}

static const char *attr(const char *tag, const char *name, size_t *n)
{
	char pat[64];
	const char *p, *e;

	snprintf(pat, sizeof(pat), " %s=\"", name);
	p = strstr(tag, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	e = strchr(p, '"');
	*n = e ? (size_t)(e - p) : 0;
	return p;
}

struct lines {
	char **v;
	size_t n, cap;
};

static void add(struct lines *l, const char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = strdup(s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One CSV record's fields (RFC 4180 quotes), in place. */
static int csv_fields(char *s, char **f, int max)
{
	int n = 0;

	while (*s && n < max) {
		char *o;
		if (*s == '"') {
			f[n++] = o = ++s;
			while (*s) {
				if (s[0] == '"' && s[1] == '"') {
					*o++ = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else {
					*o++ = *s++;
				}
			}
			*o = '\0';
			if (*s == ',')
				s++;
		} else {
			f[n++] = s;
			while (*s && *s != ',')
				s++;
			if (*s == ',')
				*s++ = '\0';
		}
	}
	return n;
}

/* Field list without offsets ("a@0+8;b@8+8/32" -> "a+8;b+8/32"). */
static void drop_offsets(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 1 < len; in++) {
		if (*in == '@') {
			while (in[1] >= '0' && in[1] <= '9')
				in++;
			continue;
		}
		out[o++] = *in;
	}
	out[o] = '\0';
}

static void facts(const char *db, struct lines *l)
{
	char path[4096], *xml, *csv, *p, *line;
	char lm_exe[32] = "";
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", db, HC_DB_EXPERIMENT);
	xml = slurp(path);
	if (!xml)
		die("no experiment.xml");
	for (p = strstr(xml, "<LoadModule "); p; p = strstr(p + 1, "<LoadModule ")) {
		const char *v = attr(p, "n", &n), *i;
		size_t ni;
		if (v && n == strlen(exe) && !strncmp(v, exe, n) && (i = attr(p, "i", &ni)))
			snprintf(lm_exe, sizeof(lm_exe), "%.*s", (int)ni, i);
	}
	for (p = strstr(xml, "<Procedure "); p; p = strstr(p + 1, "<Procedure ")) {
		const char *v = attr(p, "n", &n), *lm;
		size_t nl;
		char name[2048], out[2100];
		if (!v || !(lm = attr(p, "lm", &nl)) || nl != strlen(lm_exe) || strncmp(lm, lm_exe, nl))
			continue;
		unxml(v, n, name, sizeof(name));
		snprintf(out, sizeof(out), "proc %s", name);
		add(l, out);
	}
	free(xml);
	snprintf(path, sizeof(path), "%s/objects.csv", db);
	csv = slurp(path);
	if (!csv)
		die("no objects.csv");
	for (line = strtok(strchr(csv, '\n') ? strchr(csv, '\n') + 1 : csv, "\n"); line;
	     line = strtok(NULL, "\n")) {
		char *f[16], flds[4096], out[8192];
		char *copy = strdup(line);
		int nf = csv_fields(copy, f, 16);

		/* i,kind,name,module,context,size,blocks,all,true,false,fields */
		if (nf >= 11 && strcmp(f[1], "unknown")) {
			if (!strcmp(f[1], "tls") || !strcmp(f[1], "stack"))
				drop_offsets(f[10], flds, sizeof(flds));
			else
				snprintf(flds, sizeof(flds), "%s", f[10]);
			snprintf(out, sizeof(out), "object %s | %s | %s", f[1], f[2], flds);
			add(l, out);
		}
		free(copy);
	}
	free(csv);
	{
		struct hc_db *d;
		struct hc_advice a;
		char e[1024], out[8192];

		if (hc_db_open(db, &d, e, sizeof(e)))
			die(e);
		for (size_t k = 0; k < d->nobjects; k++)
			if (d->objects[k].type[0] || d->objects[k].elem) {
				snprintf(out, sizeof(out), "type %s | %s | %llu", d->objects[k].name,
				         d->objects[k].type, (unsigned long long)d->objects[k].elem);
				add(l, out);
			}
		if (hc_advice_build(d, 8, 8, &a))
			die("hc_advice_build: out of memory");
		snprintf(out, sizeof(out), "scale %s | denominator %llu",
		         a.scale.known ? (a.scale.time ? "cpu_time" : "memory_accesses") : a.scale.why,
		         (unsigned long long)a.scale.denom);
		add(l, out);
		for (size_t k = 0; k < a.nfs; k++) {
			snprintf(out, sizeof(out), "share %s | %.2f%% false sharing, saves <= %.2f%%",
			         a.fs[k].o->name, a.fs[k].share, a.fs[k].save_bound);
			add(l, out);
		}
		for (size_t k = 0; k < a.nfs; k++)
			for (size_t f = 0; f < a.fs[k].nfixes; f++) {
				snprintf(out, sizeof(out), "advice %s | %s", a.fs[k].o->name, a.fs[k].fixes[f]);
				add(l, out);
			}
		for (size_t k = 0; k < a.nts; k++) {
			snprintf(out, sizeof(out), "handoff %s <-> %s | %s", a.ts[k].a, a.ts[k].b,
			         a.ts[k].kind);
			add(l, out);
		}
		hc_advice_free(&a);
		hc_db_close(d);
	}
	qsort(l->v, l->n, sizeof(*l->v), cmp_str);
}

int main(int argc, char **argv)
{
	struct lines got = { 0 };
	char meas[4096], db[4096], err[1024], *want, *text;
	const char *inputs[1] = { meas };
	struct hc_analysis_opts o = { .inputs = inputs, .ninputs = 1, .outdir = db, .jobs = 2,
	                              .unit = -1, .diag = stderr, .force = true };
	size_t i, len = 0;
	const char *upd = getenv("HC_UPDATE_GOLDEN");

	if (argc != 4)
		die("usage: golden_run PROBE-FILE EXPECTED WORKDIR");
	snprintf(meas, sizeof(meas), "%s/measurements", argv[3]);
	snprintf(db, sizeof(db), "%s/database", argv[3]);
	if (mkdir(meas, 0755) && errno != EEXIST)
		die("cannot create the measurement directory");
	read_probe(argv[1]);
	write_profiles(meas);
	CHECK_MSG(hc_analysis_run(&o, NULL, err, sizeof(err)) == 0, "hc_analysis_run: %s", err);
	if (hc_test_failures)
		return hc_test_done(argv[2]);
	facts(db, &got);
	for (i = 0; i < got.n; i++)
		len += strlen(got.v[i]) + 1;
	text = calloc(1, len + 1);
	for (i = 0; i < got.n; i++) {
		strcat(text, got.v[i]);
		strcat(text, "\n");
	}
	if (upd && !strcmp(upd, "1")) {
		FILE *f = fopen(argv[2], "w");
		if (!f || fputs(text, f) < 0 || fclose(f))
			die("cannot write the expected file");
		fprintf(stderr, "golden_run: rewrote %s\n", argv[2]);
		want = NULL;
	} else {
		want = slurp(argv[2]);
		CHECK_MSG(want != NULL, "%s: missing (HC_UPDATE_GOLDEN=1 make check writes it)",
		          argv[2]);
	}
	if (want && strcmp(want, text)) {
		char got_path[4200];
		FILE *f;

		snprintf(got_path, sizeof(got_path), "%s/got.txt", argv[3]);
		f = fopen(got_path, "w");
		if (f) {
			fputs(text, f);
			fclose(f);
		}
		CHECK_MSG(false, "%s differs from what the analyzer says (%s); diff -u %s %s",
		          argv[2], got_path, argv[2], got_path);
	}
	free(want);
	free(text);
	for (i = 0; i < got.n; i++)
		free(got.v[i]);
	free(got.v);
	return hc_test_done(argv[2]);
}
