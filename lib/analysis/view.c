/* SPDX-License-Identifier: BSD-3-Clause */
/* view.c — from the merged address tree to the tree experiment.xml shows.
   First every distinct (module, address) is symbolized, in parallel: requests
   are sorted by module and address, deduplicated, cut into chunks, and each
   worker opens the chunk's module with its own libdw handle (a call site is
   looked up at return address - 1, an accessing instruction at its own
   address, a start routine at its entry). Names, files and procedures are
   interned under the analyzer lock. Then, serially and parents first, each
   address node becomes a path PF > A... > C|S below the node standing for its
   parent, merged with what is already there; node metrics land on the final C
   or S. Last, inclusive values (whole subtree) and frame-exclusive values (a
   PF or A sums its own statements and call sites, inlined frames included)
   are computed in two loops over the ids, since every child has a larger id
   than its parent. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/internal.h"

/* A thread's start routine as a report names it (malloc'd). Without
   symbols for the runtime libraries (Debian ships none), the trampolines
   every std::thread and every OpenMP worker starts in read
   "[libstdc++.so.6+0xd4490]" and "[libgomp.so.1+0x1cc40]": the library
   starts threads only there, so say what they are, the address kept. A
   std::thread is named by its body (body: the outermost application frame
   of its contexts, NULL when unknown): "std::thread running worker". An
   OpenMP worker runs every parallel region's outlined function in turn, so
   none names it. */
static char *start_routine_name(const char *name, const char *body)
{
	static const struct { const char *lib, *what; } tramp[] = {
		{ "[libstdc++.so", "std::thread" }, { "[libgomp.so", "OpenMP worker" },
		{ "[libomp.so", "OpenMP worker" } };
	bool stdthread = !strcmp(name, "execute_native_thread_routine");
	const char *what = NULL;
	char *out;
	size_t n;

	for (size_t k = 0; k < sizeof(tramp) / sizeof(*tramp) && !what; k++)
		if (!strncmp(name, tramp[k].lib, strlen(tramp[k].lib)) && strstr(name, "+0x")) {
			what = tramp[k].what;
			stdthread = k == 0;
		}
	if (stdthread && body) {
		n = sizeof("std::thread running ") + strlen(body);
		if ((out = malloc(n)))
			snprintf(out, n, "std::thread running %s", body);
		return out;
	}
	if (!what)
		return strdup(name);
	n = strlen(what) + 1 + strlen(name) + 1;
	if ((out = malloc(n)))
		snprintf(out, n, "%s %s", what, name);
	return out;
}

/* The application's outermost frame above each view node (a procedure id,
   HC_NONE above main or a thread's body): frames of system modules and
   headers and std:: / __gnu_cxx:: templates do not count (libc's
   start_thread, libstdc++'s trampoline, std::thread's _M_run and the
   std::__invoke inlined into it). One pass: parents have smaller ids.
   Returns a malloc'd array of v->index.n entries, NULL without memory. */
static uint32_t *outer_app_frames(const struct an *an, const struct view *v)
{
	uint32_t i, n = v->index.n, *of = malloc((n ? n : 1) * sizeof(*of));

	if (!of)
		return NULL;
	for (i = 0; i < n; i++) {
		const struct hc_db_tnode *x = &v->n[i];
		const struct hc_db_tproc *pr;
		const char *name;

		of[i] = i ? of[x->parent] : HC_NONE;
		if (of[i] != HC_NONE || (x->kind != V_PF && x->kind != V_A))
			continue;
		pr = &v->proc[x->proc];
		name = v->names.s[pr->name];
		if ((pr->lm < an->modules.n && objects__system_path(an->modules.s[pr->lm])) ||
		    (pr->file && objects__system_path(v->files.s[pr->file])) ||
		    !strncmp(name, "std::", 5) || !strncmp(name, "__gnu_cxx::", 11) || name[0] == '[')
			continue;
		of[i] = x->proc;
	}
	return of;
}

/* The body of thread p: the application frame outermost in most of its
   contexts (of: outer_app_frames; a majority vote over its address nodes,
   which mostly share one), NULL when none. */
static const char *thread_body(const struct an *an, const struct view *v, const uint32_t *of,
                               const struct an_prof *p)
{
	uint32_t cur = HC_NONE, ncur = 0;

	for (uint32_t k = 0; k < p->nnodes; k++) {
		uint32_t g = merge__global_node(an, p, k), b;

		if (g == HC_NONE || (b = of[v->of_cct[g]]) == HC_NONE)
			continue;
		if (b == cur)
			ncur++;
		else if (ncur == 0)
			cur = b, ncur = 1;
		else
			ncur--;
	}
	return cur == HC_NONE ? NULL : v->names.s[v->proc[cur].name];
}

#define CHUNK 8192u

struct req {
	uint32_t lm;
	uint32_t who;       /* cct node, or ntree + thread index for a start routine */
	uint64_t addr;
};

struct vframe {
	uint32_t proc, call_file, call_line;
};

struct res {
	uint32_t nfr;
	uint32_t file, line;
	struct vframe *fr;  /* outermost first */
};

struct job {
	uint32_t lm;
	uint32_t first, count;   /* range of unique requests */
};

struct symrun {
	struct an *an;
	struct req *uq;          /* unique (lm, addr) */
	struct res *res;         /* per unique request */
	struct job *jobs;
	uint32_t njobs, next_job;
	uint32_t done;           /* unique requests done */
	uint32_t *unnamed;       /* by module: addresses named [module+0x...] in a stripped file */
	int err;
};

static int cmp_req(const void *x, const void *y)
{
	const struct req *a = x, *b = y;

	if (a->lm != b->lm)
		return a->lm < b->lm ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return (a->who > b->who) - (a->who < b->who);
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b && b[1] ? b + 1 : path;
}

/* Intern a procedure (under an->lock). */
static int intern_proc(struct view *v, const char *name, uint32_t lm, const char *decl_file,
                       uint32_t decl_line, uint32_t *out)
{
	struct hkey k;
	uint32_t nid, fid = 0, i;
	int ret;

	ret = strtab__intern(&v->names, name, &nid);
	if (ret < 0)
		return ret;
	if (decl_file) {
		ret = strtab__intern(&v->files, decl_file, &fid);
		if (ret < 0)
			return ret;
	}
	k = (struct hkey){ (uint64_t)nid | (uint64_t)lm << 32, (uint64_t)fid | (uint64_t)decl_line << 32, 0 };
	ret = hmap__intern(&v->procs, &k, &i);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		ret = an__grow(&v->proc, &v->proccap, v->procs.n, sizeof(*v->proc));
		if (ret)
			return ret;
		v->proc[i] = (struct hc_db_tproc){ .name = nid, .lm = lm, .file = fid, .line = decl_line };
	}
	*out = i;
	return 0;
}

/* Turn one libdw answer into ids. Called with an->lock held. */
static int intern_result(struct an *an, uint32_t lm, uint64_t addr, const struct sym_result *s,
                         struct res *r)
{
	struct view *v = &an->view;
	uint32_t i;
	int ret;

	r->file = 0;
	r->line = 0;
	if (s->file) {
		ret = strtab__intern(&v->files, s->file, &r->file);
		if (ret < 0)
			return ret;
		r->line = s->line > 0 ? (uint32_t)s->line : 0;
	}
	r->nfr = s->nframes > 0 ? (uint32_t)s->nframes : 1;
	r->fr = calloc(r->nfr, sizeof(*r->fr));
	if (!r->fr)
		return -ENOMEM;
	if (s->nframes <= 0 || !s->fr[0].name) {
		char name[600];

		snprintf(name, sizeof(name), "[%s+0x%llx]",
		         lm == HC_NONE ? "<unknown>" : base_name(an->modules.s[lm]),
		         (unsigned long long)addr);
		hc_utf8_fix(name);
		ret = intern_proc(v, name, lm == HC_NONE ? an->unknown_lm : lm, NULL, 0, &r->fr[0].proc);
		if (ret)
			return ret;
		if (s->nframes <= 0)
			return 0;
		i = 1;
	} else {
		i = 0;
	}
	for (; i < r->nfr; i++) {
		const struct sym_frame *f = &s->fr[i];
		char *name = strdup(f->name ? f->name : "<unknown inlined function>");

		if (!name)
			return -ENOMEM;
		hc_utf8_fix(name);
		ret = intern_proc(v, name, lm, f->decl_file,
		                  f->decl_line > 0 ? (uint32_t)f->decl_line : 0, &r->fr[i].proc);
		free(name);
		if (ret)
			return ret;
		if (i > 0) {
			if (f->call_file) {
				ret = strtab__intern(&v->files, f->call_file, &r->fr[i].call_file);
				if (ret < 0)
					return ret;
			}
			r->fr[i].call_line = f->call_line > 0 ? (uint32_t)f->call_line : 0;
		}
	}
	return 0;
}

static void sym_worker(void *arg, unsigned id)
{
	struct symrun *sr = arg;
	struct an *an = sr->an;
	struct sym_result *s;
	char err[1024];

	(void)id;
	s = malloc(sizeof(*s));
	if (!s) {
		sr->err = -ENOMEM;
		return;
	}
	for (;;) {
		uint32_t j = __atomic_fetch_add(&sr->next_job, 1, __ATOMIC_RELAXED), i;
		const struct job *jb;
		struct symmod *m = NULL;
		bool stripped;

		if (j >= sr->njobs || __atomic_load_n(&sr->err, __ATOMIC_RELAXED))
			break;
		jb = &sr->jobs[j];
		if (jb->lm != HC_NONE && jb->lm != an->unknown_lm)
			m = sym__take(an, jb->lm, err, sizeof(err));
		stripped = m && sym__stripped(m);
		for (i = jb->first; i < jb->first + jb->count; i++) {
			int ret;

			sym__lookup(m, sr->uq[i].addr, s);
			if (stripped && (s->nframes <= 0 || !s->fr[0].name))
				__atomic_fetch_add(&sr->unnamed[jb->lm], 1, __ATOMIC_RELAXED);
			pthread_mutex_lock(&an->lock);
			ret = intern_result(an, jb->lm, sr->uq[i].addr, s, &sr->res[i]);
			pthread_mutex_unlock(&an->lock);
			if (ret) {
				__atomic_store_n(&sr->err, ret, __ATOMIC_RELAXED);
				break;
			}
			__atomic_fetch_add(&sr->done, 1, __ATOMIC_RELAXED);
		}
		sym__give(an, jb->lm, m);
	}
	free(s);
}

/* One warning for all the modules whose addresses could only be named
   [module+0xoffset]: how to get their symbols. */
static void warn_stripped(struct an *an, const uint32_t *unnamed)
{
	char list[1024];
	size_t n = 0;
	uint32_t i, total = 0;

	list[0] = '\0';
	for (i = 0; i < an->modules.n; i++) {
		if (!unnamed[i])
			continue;
		total += unnamed[i];
		if (n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "",
			                      an->modules.s[i]);
	}
	if (!total)
		return;
	an__warn(an, "%u code addresses are named [module+0xoffset]: no symbols or debug "
	         "information for %s. Install their debug symbols: on Debian the library's "
	         "-dbgsym package from the debug archive (dpkg -S PATH names the package; "
	         "apt-get install PACKAGE-dbgsym)%s, then run hpcprof-comm again",
	         total, list,
	         getenv("DEBUGINFOD_URLS") && getenv("DEBUGINFOD_URLS")[0]
	                 ? "; the debuginfod servers of DEBUGINFOD_URLS had none either"
	                 : ", or set DEBUGINFOD_URLS to a debuginfod server (none was asked)");
}

/* Workers intern procedures and files in whatever order they run; number
   them again by first use in request order (module, address), so that the
   tables do not depend on scheduling. */
static int renumber(struct view *v, struct res *res, uint32_t nuq)
{
	uint32_t np = v->procs.n, nf = v->files.n, i, k, n;
	uint32_t *pmap = malloc((np ? np : 1) * sizeof(*pmap));
	uint32_t *fmap = malloc((nf ? nf : 1) * sizeof(*fmap));
	uint32_t *porder = malloc((np ? np : 1) * sizeof(*porder));
	uint32_t *forder = malloc((nf ? nf : 1) * sizeof(*forder));
	struct hc_db_tproc *proc = NULL;
	struct strtab files;
	struct hmap procs;
	uint32_t npn = 0, nfn = 1, id, pcap = 0;
	int ret = -ENOMEM;

	memset(&files, 0, sizeof(files));
	memset(&procs, 0, sizeof(procs));
	if (!pmap || !fmap || !porder || !forder)
		goto out;
	memset(pmap, 0xff, (np ? np : 1) * sizeof(*pmap));
	memset(fmap, 0xff, (nf ? nf : 1) * sizeof(*fmap));
	fmap[0] = 0;
	forder[0] = 0;
#define USE_FILE(f) do { if (fmap[f] == HC_NONE) { fmap[f] = nfn; forder[nfn++] = (f); } } while (0)
	for (i = 0; i < nuq; i++) {
		const struct res *r = &res[i];

		for (k = 0; k < r->nfr; k++) {
			uint32_t pr = r->fr[k].proc;
			if (pmap[pr] == HC_NONE) {
				pmap[pr] = npn;
				porder[npn++] = pr;
				USE_FILE(v->proc[pr].file);
			}
			USE_FILE(r->fr[k].call_file);
		}
		USE_FILE(r->file);
	}
#undef USE_FILE
	/* Entries nobody uses (none today) keep their relative order at the end. */
	for (i = 0; i < np; i++)
		if (pmap[i] == HC_NONE) {
			pmap[i] = npn;
			porder[npn++] = i;
			if (fmap[v->proc[i].file] == HC_NONE) {
				fmap[v->proc[i].file] = nfn;
				forder[nfn++] = v->proc[i].file;
			}
		}
	for (i = 0; i < nf; i++)
		if (fmap[i] == HC_NONE) {
			fmap[i] = nfn;
			forder[nfn++] = i;
		}
	if (strtab__init(&files) || hmap__init(&procs, np + 16) ||
	    an__grow(&proc, &pcap, np ? np : 1, sizeof(*proc)))
		goto out;
	for (n = 0; n < nfn; n++)
		if (strtab__intern(&files, v->files.s[forder[n]], &id) < 0)
			goto out;
	for (n = 0; n < npn; n++) {
		struct hc_db_tproc q = v->proc[porder[n]];
		struct hkey key;

		q.file = fmap[q.file];
		key = (struct hkey){ (uint64_t)q.name | (uint64_t)q.lm << 32,
		                     (uint64_t)q.file | (uint64_t)q.line << 32, 0 };
		if (hmap__intern(&procs, &key, &id) < 0)
			goto out;
		proc[n] = q;
	}
	for (i = 0; i < nuq; i++) {
		struct res *r = &res[i];
		r->file = fmap[r->file];
		for (k = 0; k < r->nfr; k++) {
			r->fr[k].proc = pmap[r->fr[k].proc];
			r->fr[k].call_file = fmap[r->fr[k].call_file];
		}
	}
	strtab__free(&v->files);
	hmap__free(&v->procs);
	free(v->proc);
	v->files = files;
	v->procs = procs;
	v->proc = proc;
	v->proccap = pcap;
	memset(&files, 0, sizeof(files));
	memset(&procs, 0, sizeof(procs));
	proc = NULL;
	ret = 0;
out:
	strtab__free(&files);
	hmap__free(&procs);
	free(proc);
	free(pmap);
	free(fmap);
	free(porder);
	free(forder);
	return ret;
}

/* ---- the view tree ---- */

static int vchild(struct view *v, uint32_t parent, uint32_t kind, uint32_t proc, uint32_t file,
                  uint32_t line, uint32_t *out)
{
	struct hkey k = { (uint64_t)parent | (uint64_t)kind << 32,
	                  (uint64_t)proc | (uint64_t)file << 32, line };
	struct hc_db_tnode *n;
	uint32_t i;
	int ret;

	ret = hmap__intern(&v->index, &k, &i);
	if (ret < 0)
		return ret;
	if (ret == 1) {
		ret = an__grow(&v->n, &v->ncap, v->index.n, sizeof(*v->n));
		if (ret)
			return ret;
		n = &v->n[i];
		memset(n, 0, sizeof(*n));
		n->parent = parent;
		n->kind = kind;
		n->proc = proc;
		n->file = file;
		n->line = line;
		if (i != 0) {
			struct hc_db_tnode *p = &v->n[parent];
			if (p->last_child)
				v->n[p->last_child].next_sibling = i;
			else
				p->first_child = i;
			p->last_child = i;
		}
	}
	*out = i;
	return 0;
}

static int build_tree(struct an *an, const uint32_t *node_res, const struct res *res)
{
	struct view *v = &an->view;
	const struct cct *t = &an->tree;
	uint32_t g, root, n = cct__n(t);
	int ret, k;

	v->of_cct = calloc(n, sizeof(*v->of_cct));
	if (!v->of_cct)
		return -ENOMEM;
	ret = vchild(v, 0, V_ROOT, 0, 0, 0, &root);
	if (ret)
		return ret;
	for (k = 0; k < HC_M_COUNT; k++)
		v->n[0].excl[k] = t->m[0][k];
	for (g = 1; g < n; g++) {
		uint32_t par = cct__parent(t, g), vp, cur, i;
		bool leaf = cct__flags(t, g) & HC_NODE_LEAF;
		const struct res *r = &res[node_res[g]];

		if (par == 0)
			vp = 0;
		else if (cct__flags(t, par) & HC_NODE_LEAF)
			vp = v->n[v->of_cct[par]].parent;   /* below an access: its frame */
		else
			vp = v->of_cct[par];
		ret = vchild(v, vp, V_PF, r->fr[0].proc, 0, 0, &cur);
		for (i = 1; i < r->nfr && !ret; i++)
			ret = vchild(v, cur, V_A, r->fr[i].proc, r->fr[i].call_file, r->fr[i].call_line,
			             &cur);
		if (!ret)
			ret = vchild(v, cur, leaf ? V_S : V_C, 0, r->file, r->line, &cur);
		if (ret)
			return ret;
		v->of_cct[g] = cur;
		for (k = 0; k < HC_M_COUNT; k++)
			v->n[cur].excl[k] += t->m[g][k];
	}
	return 0;
}

static void compute_metrics(struct view *v)
{
	uint32_t i, n = v->index.n;
	int k;

	for (i = 0; i < n; i++)
		for (k = 0; k < HC_M_COUNT; k++)
			v->n[i].incl[k] = v->n[i].excl[k];
	for (i = n; i-- > 1;)
		for (k = 0; k < HC_M_COUNT; k++)
			v->n[v->n[i].parent].incl[k] += v->n[i].incl[k];
	/* Frame-exclusive: each statement or call site adds its own value to the
	   enclosing A frames up to and including its PF. */
	for (i = 1; i < n; i++) {
		uint32_t a;

		if (v->n[i].kind != V_S && v->n[i].kind != V_C)
			continue;
		for (a = v->n[i].parent; a != 0; a = v->n[a].parent) {
			if (v->n[a].kind != V_A && v->n[a].kind != V_PF)
				break;
			for (k = 0; k < HC_M_COUNT; k++)
				v->n[a].excl[k] += v->n[i].excl[k];
			if (v->n[a].kind == V_PF)
				break;
		}
	}
}

static int make_requests(struct an *an, struct req **out, uint32_t *nout)
{
	const struct cct *t = &an->tree;
	uint32_t n = cct__n(t), g, i, k = 0;
	struct req *r;

	r = malloc(((size_t)n + an->nthreads + 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (g = 1; g < n; g++) {
		uint64_t off = cct__offset(t, g);
		bool leaf = cct__flags(t, g) & HC_NODE_LEAF;
		uint32_t lm = cct__lm(t, g);

		r[k].lm = lm == HC_NONE ? an->unknown_lm : lm;
		r[k].addr = leaf || off == 0 ? off : off - 1;
		r[k].who = g;
		k++;
	}
	for (i = 0; i < an->nthreads; i++) {
		const struct an_prof *p = an->threads[i].prof;

		if (!p || p->start_lm == HC_NONE)
			continue;
		r[k].lm = p->start_lm;
		r[k].addr = p->th.start_off;
		r[k].who = n + i;
		k++;
	}
	*out = r;
	*nout = k;
	return 0;
}

int view__build(struct an *an)
{
	struct view *v = &an->view;
	struct symrun sr;
	struct req *rq = NULL;
	uint32_t nrq = 0, nuq = 0, i, ntree = cct__n(&an->tree), *who_res = NULL;
	uint32_t jcap = 0, unk, *of = NULL;
	int ret;

	memset(&sr, 0, sizeof(sr));
	sr.an = an;
	ret = strtab__init(&v->names);
	if (!ret)
		ret = strtab__init(&v->files);
	if (!ret)
		ret = strtab__intern(&v->files, "<unknown file>", &unk) < 0 ? -ENOMEM : 0;
	if (!ret)
		ret = hmap__init(&v->procs, 1024);
	if (!ret)
		ret = hmap__init(&v->index, ntree + 16);
	if (!ret)
		ret = strtab__intern(&an->modules, "<unknown>", &an->unknown_lm) < 0 ? -ENOMEM : 0;
	if (ret)
		return ret;

	ret = make_requests(an, &rq, &nrq);
	if (ret)
		return ret;
	qsort(rq, nrq, sizeof(*rq), cmp_req);
	sr.uq = malloc((nrq ? nrq : 1) * sizeof(*sr.uq));
	who_res = malloc(((size_t)ntree + an->nthreads) * sizeof(*who_res));
	if (!sr.uq || !who_res) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nrq; i++) {
		if (nuq == 0 || sr.uq[nuq - 1].lm != rq[i].lm || sr.uq[nuq - 1].addr != rq[i].addr)
			sr.uq[nuq++] = rq[i];
		who_res[rq[i].who] = nuq - 1;
	}
	/* Chunks of one module each. */
	for (i = 0; i < nuq;) {
		uint32_t j = i;

		while (j < nuq && sr.uq[j].lm == sr.uq[i].lm && j - i < CHUNK)
			j++;
		ret = an__grow(&sr.jobs, &jcap, sr.njobs + 1, sizeof(*sr.jobs));
		if (ret)
			goto out;
		sr.jobs[sr.njobs++] = (struct job){ .lm = sr.uq[i].lm, .first = i, .count = j - i };
		i = j;
	}
	sr.res = calloc(nuq ? nuq : 1, sizeof(*sr.res));
	if (!sr.res) {
		ret = -ENOMEM;
		goto out;
	}
	sr.unnamed = calloc(an->modules.n + 1, sizeof(*sr.unnamed));
	if (!sr.unnamed) {
		ret = -ENOMEM;
		goto out;
	}
	ret = par__run(an, an->nworkers < sr.njobs ? an->nworkers : (sr.njobs ? sr.njobs : 1),
	               sym_worker, &sr, "symbolizing", &sr.done, nuq);
	if (!ret)
		ret = sr.err;
	if (!ret)
		warn_stripped(an, sr.unnamed);
	if (!ret)
		ret = renumber(v, sr.res, nuq);
	if (ret)
		goto out;

	ret = build_tree(an, who_res, sr.res);
	if (ret)
		goto out;
	compute_metrics(v);

	of = outer_app_frames(an, v);
	if (!of) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < an->nthreads; i++) {
		struct an_thread *t = &an->threads[i];
		const struct an_prof *p = t->prof;

		if (p && p->start_lm != HC_NONE) {
			const struct res *r = &sr.res[who_res[ntree + i]];
			t->start_name = start_routine_name(v->names.s[v->proc[r->fr[0].proc].name],
			                                   thread_body(an, v, of, p));
			if (!t->start_name) {
				ret = -ENOMEM;
				goto out;
			}
		}
		if (p && t->creator != HC_NONE && p->th.creation_ctx != HC_NONE) {
			uint32_t g = merge__global_node(an, an->threads[t->creator].prof,
			                                p->th.creation_ctx);
			if (g != HC_NONE && g != 0)
				t->creation_view = v->of_cct[g];
		}
	}
out:
	free(of);
	if (sr.res)
		for (i = 0; i < nuq; i++)
			free(sr.res[i].fr);
	free(sr.res);
	free(sr.unnamed);
	free(sr.jobs);
	free(sr.uq);
	free(who_res);
	free(rq);
	return ret;
}

void view__free(struct view *v)
{
	hmap__free(&v->index);
	free(v->n);
	strtab__free(&v->names);
	strtab__free(&v->files);
	hmap__free(&v->procs);
	free(v->proc);
	free(v->of_cct);
	memset(v, 0, sizeof(*v));
}
