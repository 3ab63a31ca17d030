/* SPDX-License-Identifier: BSD-3-Clause */
/* test_dist.c — the distributed merge (lib/analysis/dist.c) without MPI:
   every "rank" is a thread of this test running hc_analysis_run with an
   in-process transport (mailboxes and a barrier sum), so the reduction tree,
   the serialization and rank 0's renumbering run in every build, the ASan
   one included. Inputs: the scenario (three processes on two hosts, one
   thread known only as a peer) in one directory, and in another, random
   processes with MPI ranks whose calling-context trees overlap partly (so the
   order in which nodes are first met matters), events between their threads
   on their stacks and TLS blocks over several phase windows, some contexts
   at addresses outside every module, a topology with two NUMA nodes, and
   one damaged profile. The database written by 1 to 5 ranks must equal,
   file by file and byte by byte, the one a single run writes; the damaged
   profile is named in every run's diagnostics. tests/integration/mpi.sh does
   the same with Open MPI. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "db/format.h"
#include "hc_test.h"
#include "scenario.h"

/* ---------------- the in-process transport ---------------- */

#define MAXR 8

struct world {
	int size;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	void *box[MAXR][MAXR];      /* [from][to] */
	size_t boxlen[MAXR][MAXR];
	bool full[MAXR][MAXR];
	uint64_t acc[16];
	int arrived;
	unsigned gen;
	uint64_t result[16];
};

struct rank_ctx {
	struct world *w;
	struct hc_analysis_comm comm;
	struct hc_analysis_opts o;
	const char *inputs[2];
	char outdir[4096];
	char err[2048];
	char *diag;
	size_t diaglen;
	int ret;
};

static int t_send(void *arg, int to, const void *buf, size_t len)
{
	struct rank_ctx *r = arg;
	struct world *w = r->w;
	void *copy = malloc(len ? len : 1);

	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	pthread_mutex_lock(&w->lock);
	while (w->full[r->comm.rank][to])
		pthread_cond_wait(&w->cond, &w->lock);
	w->box[r->comm.rank][to] = copy;
	w->boxlen[r->comm.rank][to] = len;
	w->full[r->comm.rank][to] = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static int t_recv(void *arg, int from, void **buf, size_t *len)
{
	struct rank_ctx *r = arg;
	struct world *w = r->w;

	pthread_mutex_lock(&w->lock);
	while (!w->full[from][r->comm.rank])
		pthread_cond_wait(&w->cond, &w->lock);
	*buf = w->box[from][r->comm.rank];
	*len = w->boxlen[from][r->comm.rank];
	w->full[from][r->comm.rank] = false;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static int t_sum(void *arg, uint64_t *v, size_t n)
{
	struct rank_ctx *r = arg;
	struct world *w = r->w;
	unsigned gen;
	size_t i;

	if (n > 16)
		return -EINVAL;
	pthread_mutex_lock(&w->lock);
	gen = w->gen;
	for (i = 0; i < n; i++)
		w->acc[i] += v[i];
	if (++w->arrived == w->size) {
		memcpy(w->result, w->acc, sizeof(w->acc));
		memset(w->acc, 0, sizeof(w->acc));
		w->arrived = 0;
		w->gen++;
		pthread_cond_broadcast(&w->cond);
	} else {
		while (w->gen == gen)
			pthread_cond_wait(&w->cond, &w->lock);
	}
	memcpy(v, w->result, n * sizeof(*v));
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static void *rank_main(void *arg)
{
	struct rank_ctx *r = arg;
	struct hc_analysis_result res;
	FILE *diag = open_memstream(&r->diag, &r->diaglen);

	r->o.diag = diag;
	r->ret = hc_analysis_run(&r->o, &res, r->err, sizeof(r->err));
	fclose(diag);
	return NULL;
}

/* What rank 0 must return (the other ranks: 0). */
static int expect0;

/* Run the analysis as `size` ranks (size 0: no comm at all) with `jobs`
   threads each; rank 0's diagnostics to *diag (malloc'd). Returns rank 0's
   result; every rank must succeed (rank 0: return expect0). */
static int run(const char *in1, const char *in2, const char *out, int size, unsigned jobs,
               char **diag)
{
	struct world w;
	struct rank_ctx r[MAXR];
	pthread_t tid[MAXR];
	int n = size ? size : 1, i, ret;

	memset(&w, 0, sizeof(w));
	w.size = n;
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	for (i = 0; i < n; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].w = &w;
		r[i].comm = (struct hc_analysis_comm){ .rank = i, .size = n, .arg = &r[i],
		                                       .send = t_send, .recv = t_recv, .sum = t_sum };
		r[i].inputs[0] = in1;
		r[i].inputs[1] = in2;
		r[i].o.inputs = r[i].inputs;
		r[i].o.ninputs = 2;
		r[i].o.outdir = out;
		r[i].o.jobs = jobs;
		r[i].o.unit = -1;
		r[i].o.comm = size ? &r[i].comm : NULL;
		CHECK(pthread_create(&tid[i], NULL, rank_main, &r[i]) == 0);
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	for (i = 1; i < n; i++) {
		CHECK_MSG(r[i].ret == 0, "rank %d of %d: %s", i, n, r[i].err);
		CHECK_MSG(r[i].diaglen == 0, "rank %d of %d said: %s", i, n, r[i].diag);
		free(r[i].diag);
	}
	CHECK_MSG(r[0].ret == expect0, "rank 0 of %d: %d (%s)", n, r[0].ret, r[0].err);
	ret = r[0].ret;
	*diag = r[0].diag;
	pthread_mutex_destroy(&w.lock);
	pthread_cond_destroy(&w.cond);
	return ret;
}

/* ---------------- inputs ---------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ULL) >> 33) % n;
}

#define NPROC 7
#define NTHR 4
#define NNODE 40

static void write_random(const char *dir)
{
	static const struct hc_prof_module mods[3] = {
		{ .id = 0, .base = 0x400000, .lo = 0x400000, .hi = 0x500000, .path = "/opt/x/app" },
		{ .id = 1, .base = 0x7f0000000000, .lo = 0x7f0000000000, .hi = 0x7f0000100000,
		  .path = "/opt/x/libb.so" },
		{ .id = 2, .base = 0x7f1000000000, .lo = 0x7f1000000000, .hi = 0x7f1000100000,
		  .path = "/opt/x/liba.so" },
	};
	uint32_t p, t, i;
	char *written;

	for (p = 0; p < NPROC; p++) {
		for (t = 0; t < NTHR; t++) {
			struct hc_prof_node nodes[NNODE];
			struct hc_prof_event evs[12];
			struct fx_prof fp;
			/* Module order differs per process, so module ids do too. */
			struct hc_prof_module m[3];

			for (i = 0; i < 3; i++) {
				m[i] = mods[(i + p) % 3];
				m[i].id = i;
			}
			memset(&fp, 0, sizeof(fp));
			fp.th.index = t;
			fp.th.creator = t ? 0 : HC_NONE;
			fp.th.pid = 5000 + p * 7;
			fp.th.tid = 5000 + p * 7 + t;
			fp.th.sampler = HC_SAMPLER_SOFT;
			fp.th.unit = HC_UNIT_NS;
			fp.th.creation_ctx = t ? 1 : HC_NONE;
			fp.th.period = 1000;
			fp.th.start_ns = 1000 + (NPROC - p) * 10 + t;
			fp.th.end_ns = fp.th.start_ns + 5000;
			fp.th.start_lm = HC_NONE;
			fp.th.rank = p % 3;   /* three ranks, two processes on some */
			/* Stacks and TLS blocks, for stack and TLS objects (objects.c,
			   resolved on the rank that reads the profile) */
			fp.th.stack_lo = 0x7ff000000000ull + 0x100000ull * t;
			fp.th.stack_hi = fp.th.stack_lo + 0x10000;
			fp.th.tls_lo = 0x7fe000000000ull + 0x100000ull * t;
			fp.th.tls_hi = fp.th.tls_lo + 0x1000;
			snprintf(fp.th.exe, sizeof(fp.th.exe), "/opt/x/app");
			fp.hostid = p < 5 ? 0x0c0c0c0cu : 0x0d0d0d0du;
			fp.mods = m;
			fp.nmods = 3;
			memset(nodes, 0, sizeof(nodes));
			nodes[0].id = 0;
			nodes[0].parent = HC_NONE;
			nodes[0].lm = HC_NONE;
			for (i = 1; i < NNODE; i++) {
				nodes[i].id = i;
				nodes[i].parent = i < 3 ? 0 : rnd(i);
				/* some addresses outside every module (no module id) */
				nodes[i].lm = i % 7 == 0 ? HC_NONE : rnd(3);
				nodes[i].offset = 0x100 * (1 + rnd(12));
				nodes[i].flags = i >= NNODE - 10 ? HC_NODE_LEAF : 0;
				nodes[i].m[rnd(HC_M_COUNT)] = 1 + rnd(1000);
			}
			fp.nodes = nodes;
			fp.nnodes = NNODE;
			for (i = 0; i < 12; i++) {
				memset(&evs[i], 0, sizeof(evs[i]));
				uint32_t at = rnd(3), peer;

				/* over the thread's run: several phase windows */
				evs[i].time = fp.th.start_ns + 400 * i + rnd(300);
				evs[i].weight = 1 + rnd(500);
				evs[i].peer = peer = (t + 1 + rnd(NTHR - 1)) % NTHR;
				/* nothing, a stack, a TLS block (of this thread or the peer) */
				evs[i].addr = at == 0 ? 0x601000 + 8 * rnd(4)
				            : (at == 1 ? 0x7ff000000000ull : 0x7fe000000000ull) +
				              0x100000ull * (rnd(2) ? t : peer) + 0x80 + 8 * rnd(4);
				evs[i].peer_addr = evs[i].addr + 8 * rnd(2);
				evs[i].len = evs[i].peer_len = 8;
				evs[i].cpu = (int32_t)rnd(4);
				evs[i].peer_cpu = (int32_t)rnd(4);
				evs[i].ctx = NNODE - 10 + rnd(10);
				evs[i].peer_ctx = NNODE - 10 + rnd(10);
				evs[i].flags = rnd(2) ? HC_COMM_TRUE : 0;
			}
			fp.evs = evs;
			fp.nevs = 12;
			written = fx_write_profile(dir, &fp);
			/* Two processes whose profiles are read on several ranks:
			   a file name that does not parse (read on rank 0), and one
			   naming another process (read by that one's rank); their
			   region events reach rank 0 from several ranks. */
			if (p == 4 && t == 2) {
				char *to = fx_join(dir, "renamed-by-hand.hcprof");
				CHECK(rename(written, to) == 0);
				free(to);
			} else if (p == 5 && t == 1) {
				char *to = fx_join(dir, "app-000002-009-0c0c0c0c-5014-0.hcprof");
				CHECK(rename(written, to) == 0);
				free(to);
			}
			free(written);
		}
	}
	/* One host with two NUMA nodes, for locality.xml */
	fx_write_topology(dir, 0x0c0c0c0cu, "pack:2 [numa] core:1 pu:2");
	/* A damaged profile: garbage under a valid name. */
	{
		char *path = fx_join(dir, "app-000001-009-0c0c0c0c-5007-0.hcprof");
		fx_write_file(path, "HCPROF\r\nnot a profile at all", 28);
		free(path);
	}
}

/* ---------------- comparing databases ---------------- */

static void compare_dirs(const char *a, const char *b, const char *what)
{
	DIR *d = opendir(a);
	struct dirent *e;
	int files = 0;

	CHECK_MSG(d != NULL, "%s: cannot list %s", what, a);
	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		char *pa, *pb, *ta, *tb;
		size_t la = 0, lb = 0;

		if (e->d_name[0] == '.')
			continue;
		pa = fx_join(a, e->d_name);
		pb = fx_join(b, e->d_name);
		if (e->d_type == DT_DIR) {
			compare_dirs(pa, pb, what);
		} else {
			ta = fx_read(pa, &la);
			tb = fx_read(pb, &lb);
			CHECK_MSG(tb != NULL, "%s: %s missing", what, pb);
			/* every file, summary.txt too (it names the database as
			   given: every run writes "db", see main) */
			CHECK_MSG(ta && tb && la == lb && memcmp(ta, tb, la) == 0, "%s: %s differs",
			          what, e->d_name);
			free(ta);
			free(tb);
			files++;
		}
		free(pa);
		free(pb);
	}
	closedir(d);
	CHECK_MSG(files > 0, "%s: %s is empty", what, a);
}

int main(void)
{
	char *work = fx_tmpdir("dist");
	char *in1 = fx_join(work, "scenario"), *in2 = fx_join(work, "random");
	/* Every run writes "db" and it is renamed after: summary.txt names the
	   directory a database was written as. */
	char *ref = fx_join(work, "db-seq"), *db = fx_join(work, "db"), *diag = NULL;
	static const struct { int size; unsigned jobs; } runs[] = {
		{ 1, 2 }, { 2, 1 }, { 2, 3 }, { 3, 2 }, { 4, 1 }, { 5, 2 },
	};
	size_t k;

	fx_mkdir(in1);
	fx_mkdir(in2);
	sc_write(in1, NULL);
	write_random(in2);

	CHECK(run(in1, in2, db, 0, 2, &diag) == 0);
	CHECK(rename(db, ref) == 0);
	CHECK_MSG(diag && strstr(diag, "app-000001-009-0c0c0c0c-5007-0.hcprof"),
	          "the damaged profile is not named: %s", diag ? diag : "");
	free(diag);
	{
		/* Several ranks, and the threads of one process read on one rank. */
		char *t = fx_join(ref, "threads.csv"), *text = fx_read(t, NULL);
		CHECK(text && strstr(text, ",2,0c0c0c0c\n") && strstr(text, ",2,0d0d0d0d\n"));
		free(text);
		free(t);
		/* The distributed object pass has something to distribute. */
		t = fx_join(ref, "objects.xml");
		text = fx_read(t, NULL);
		CHECK_MSG(text && strstr(text, "kind=\"stack\"") && strstr(text, "kind=\"tls\"") &&
		          strstr(text, "kind=\"unknown\""), "objects.xml: %s", text ? text : "");
		free(text);
		free(t);
		t = fx_join(ref, "phases.xml");
		text = fx_read(t, NULL);
		CHECK_MSG(text && strstr(text, "<Phase "), "phases.xml: %s", text ? text : "");
		free(text);
		free(t);
		t = fx_join(ref, "locality.xml");
		text = fx_read(t, NULL);
		CHECK_MSG(text && strstr(text, "domains=\"2\""), "locality.xml: %s", text ? text : "");
		free(text);
		free(t);
	}
	for (k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
		char name[64], what[64], *out;

		snprintf(name, sizeof(name), "db-%d-%u", runs[k].size, runs[k].jobs);
		snprintf(what, sizeof(what), "%d ranks, -j %u", runs[k].size, runs[k].jobs);
		out = fx_join(work, name);
		diag = NULL;
		if (run(in1, in2, db, runs[k].size, runs[k].jobs, &diag) == 0 &&
		    rename(db, out) == 0)
			compare_dirs(ref, out, what);
		CHECK_MSG(diag && strstr(diag, "skipping profile") &&
		          strstr(diag, "app-000001-009-0c0c0c0c-5007-0.hcprof"),
		          "%s: the damaged profile is not named: %s", what, diag ? diag : "");
		free(diag);
		free(out);
	}
	{
		/* Every profile damaged, on every rank: rank 0 fails after the
		   reduction ("nothing usable") and the others, waiting for the
		   context, stop instead of waiting forever (an empty context). */
		char *da = fx_join(work, "bad-a"), *dbad = fx_join(work, "bad-b"), *f;

		fx_mkdir(da);
		fx_mkdir(dbad);
		f = fx_join(da, "app-000000-000-0c0c0c0c-6001-0.hcprof");
		fx_write_file(f, "HCPROF\r\nbroken", 14);
		free(f);
		f = fx_join(da, "app-000001-000-0c0c0c0c-6002-0.hcprof");
		fx_write_file(f, "HCPROF\r\nbroken", 14);
		free(f);
		f = fx_join(dbad, "app-000002-000-0c0c0c0c-6003-0.hcprof");
		fx_write_file(f, "HCPROF\r\nbroken", 14);
		free(f);
		expect0 = -ENOENT;
		diag = NULL;
		CHECK(run(da, dbad, db, 3, 1, &diag) == -ENOENT);
		CHECK_MSG(diag && strstr(diag, "6003-0.hcprof"), "all damaged: %s", diag ? diag : "");
		free(diag);
		CHECK(!fx_exists(db));
		expect0 = 0;
		free(da);
		free(dbad);
	}
	fx_rm_rf(work);
	free(work);
	free(in1);
	free(in2);
	free(ref);
	free(db);
	return hc_test_done("test_dist");
}
