/* SPDX-License-Identifier: BSD-3-Clause */
/* gen.c — synthetic measurement directories for the hpcprof-comm scaling
   benchmark, written with the real profile writer. The idea: model an SPMD
   program, where threads run the same code: a shared pool of frames (every
   thread has all of them) and a larger pool of access sites (each thread uses
   a random subset), so the merged tree stays bounded while the input grows
   with the number of threads. Communication happens at a few hot sites
   (shared data is touched by little code): every thread has the HOT first
   sites of the pool, and each event pairs two of them, with a random peer of
   the process and random CPUs. HOT = 0 draws both contexts from all of the
   thread's sites instead (a stress case: nearly every event is a new code
   pair). Event times are spread evenly over each thread's one-second life.
   A few counters too. Not part of the product; deterministic for a
   given seed.

   usage: gen DIR THREADS NODES EVENTS [THREADS_PER_PROCESS [HOT [SEED]]] */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hc/profile.h"

struct pool {
	uint32_t nframes, nleaves;
	uint32_t *parent;     /* frames: a frame below; leaves: a frame */
	uint32_t *lm;
	uint64_t *off;
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static void die(const char *what)
{
	fprintf(stderr, "gen: %s: %s\n", what, strerror(errno));
	exit(1);
}

static const char *const modules[] = {
	"/opt/app/bin/app", "/opt/app/lib/libsolver.so", "/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/usr/lib/x86_64-linux-gnu/libm.so.6",
};
#define NMOD 4

int main(int argc, char **argv)
{
	static uint8_t buf[1 << 20];
	uint32_t nthreads, nnodes, nevents, per_proc = 64, hot = 64, t, i;
	uint64_t total = 0;
	struct pool pl;
	uint32_t *pick, *mapf;

	if (argc < 5) {
		fprintf(stderr, "usage: gen DIR THREADS NODES EVENTS [THREADS_PER_PROCESS [HOT [SEED]]]\n");
		return 2;
	}
	nthreads = (uint32_t)strtoul(argv[2], NULL, 10);
	nnodes = (uint32_t)strtoul(argv[3], NULL, 10);
	nevents = (uint32_t)strtoul(argv[4], NULL, 10);
	if (argc > 5)
		per_proc = (uint32_t)strtoul(argv[5], NULL, 10);
	if (argc > 6)
		hot = (uint32_t)strtoul(argv[6], NULL, 10);
	rng_state = argc > 7 ? strtoull(argv[7], NULL, 10) | 1 : 0x9e3779b97f4a7c15ULL;
	if (nthreads == 0 || nnodes < 8 || per_proc < 2 || hot > nnodes / 4) {
		fprintf(stderr, "gen: need THREADS >= 1, NODES >= 8, THREADS_PER_PROCESS >= 2, "
		        "HOT <= NODES / 4\n");
		return 2;
	}
	if (mkdir(argv[1], 0777) < 0 && errno != EEXIST)
		die(argv[1]);

	/* Shared pools: half of each thread's nodes are the common frames. */
	pl.nframes = nnodes / 2;
	pl.nleaves = nnodes * 4;
	pl.parent = malloc((pl.nframes + pl.nleaves) * sizeof(*pl.parent));
	pl.lm = malloc((pl.nframes + pl.nleaves) * sizeof(*pl.lm));
	pl.off = malloc((pl.nframes + pl.nleaves) * sizeof(*pl.off));
	pick = malloc(nnodes * sizeof(*pick));
	mapf = malloc(pl.nframes * sizeof(*mapf));
	if (!pl.parent || !pl.lm || !pl.off || !pick || !mapf)
		die("malloc");
	for (i = 0; i < pl.nframes + pl.nleaves; i++) {
		/* Frames form a tree of depth ~ log: parent among the earlier frames. */
		if (i < pl.nframes)
			pl.parent[i] = i == 0 ? UINT32_MAX : (uint32_t)(rnd() % i);
		else
			pl.parent[i] = (uint32_t)(rnd() % pl.nframes);
		pl.lm[i] = (uint32_t)(rnd() % NMOD);
		pl.off[i] = 0x1000 + rnd() % 0x100000;
	}

	for (t = 0; t < nthreads; t++) {
		uint32_t proc = t / per_proc, idx = t % per_proc;
		uint32_t nproc_threads = (proc + 1) * per_proc <= nthreads ? per_proc : nthreads - proc * per_proc;
		struct hc_prof_thread th;
		struct hc_prof_writer w;
		char path[4096];
		int fd, r = 0;
		uint32_t k, nleaf = nnodes - pl.nframes - 1;

		memset(&th, 0, sizeof(th));
		th.index = idx;
		th.creator = idx ? 0 : HC_NONE;
		th.pid = 10000 + proc;
		th.tid = 10000 + proc * 1000 + idx;
		th.sampler = HC_SAMPLER_SOFT;
		th.unit = HC_UNIT_NS;
		th.creation_ctx = idx ? 1 : HC_NONE;
		th.period = 1000000;
		th.start_ns = 1000000ull * proc + idx;
		th.end_ns = th.start_ns + 1000000000ull;
		th.start_lm = idx ? 1 : HC_NONE;
		th.start_off = 0x2000;
		snprintf(th.exe, sizeof(th.exe), "%s", modules[0]);
		snprintf(path, sizeof(path), "%s/app-000000-%03u-0000beef-%u-0.hcprof", argv[1], idx,
		         th.pid);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die(path);
		r |= hc_prof_writer_init(&w, fd, buf, sizeof(buf), &th);
		r |= hc_prof_section_begin(&w, HC_SEC_LOADMAP);
		for (k = 0; k < NMOD; k++) {
			struct hc_prof_module m;
			memset(&m, 0, sizeof(m));
			m.id = k;
			m.base = 0x7f0000000000ull + (uint64_t)k * 0x10000000;
			m.lo = m.base;
			m.hi = m.base + 0x200000;
			snprintf(m.path, sizeof(m.path), "%s", modules[k]);
			r |= hc_prof_put_module(&w, &m);
		}
		r |= hc_prof_section_end(&w);

		/* Nodes: root, all frames (file ids 1..nframes), then the leaves. */
		r |= hc_prof_section_begin(&w, HC_SEC_CCT);
		{
			struct hc_prof_node n;
			memset(&n, 0, sizeof(n));
			n.parent = HC_NONE;
			n.lm = HC_NONE;
			r |= hc_prof_put_node(&w, &n);
		}
		for (k = 0; k < pl.nframes; k++) {
			struct hc_prof_node n;
			memset(&n, 0, sizeof(n));
			n.id = k + 1;
			n.parent = pl.parent[k] == UINT32_MAX ? 0 : pl.parent[k] + 1;
			n.lm = pl.lm[k];
			n.offset = pl.off[k];
			mapf[k] = k + 1;
			r |= hc_prof_put_node(&w, &n);
		}
		for (k = 0; k < nleaf; k++) {
			struct hc_prof_node n;
			/* The first HOT sites are the same for every thread. */
			uint32_t leaf = pl.nframes + (k < hot ? k : (uint32_t)(rnd() % pl.nleaves));
			memset(&n, 0, sizeof(n));
			n.id = pl.nframes + 1 + k;
			n.parent = mapf[pl.parent[leaf]];
			n.lm = pl.lm[leaf];
			n.flags = HC_NODE_LEAF;
			n.offset = pl.off[leaf];
			n.m[rnd() % HC_M_COUNT] = 1000000 * (1 + rnd() % 4);
			pick[k] = n.id;
			r |= hc_prof_put_node(&w, &n);
		}
		r |= hc_prof_section_end(&w);

		r |= hc_prof_section_begin(&w, HC_SEC_EVENTS);
		for (k = 0; k < nevents; k++) {
			struct hc_prof_event e;
			uint64_t x = rnd();
			memset(&e, 0, sizeof(e));
			/* spread over the thread's second, as a real run's are (the
			   phase windows see the whole span) */
			e.time = th.start_ns + k * (1000000000ull / (nevents ? nevents : 1));
			e.weight = 1000000;
			e.addr = 0x601000 + (x & 0xfff);
			e.peer_addr = e.addr ^ 8;
			e.len = 8;
			e.peer_len = 8;
			e.peer = nproc_threads > 1 ? (idx + 1 + (uint32_t)((x >> 16) % (nproc_threads - 1))) % nproc_threads : idx;
			e.cpu = (int32_t)((x >> 24) % 64);
			e.peer_cpu = (int32_t)((x >> 32) % 64);
			if (hot) {
				/* Hot sites are nodes nframes+1 .. nframes+hot in every thread. */
				e.ctx = pl.nframes + 1 + (uint32_t)((x >> 40) % hot);
				e.peer_ctx = pl.nframes + 1 + (uint32_t)((x >> 8) % hot);
			} else {
				e.ctx = pick[(x >> 40) % nleaf];
				e.peer_ctx = pl.nframes + 1 + (uint32_t)((x >> 8) % nleaf);
			}
			e.flags = (x & 1 ? HC_COMM_TRUE : 0) | (x & 2 ? HC_COMM_TRAP : 0) | HC_COMM_STORE;
			r |= hc_prof_put_event(&w, &e);
		}
		r |= hc_prof_section_end(&w);
		r |= hc_prof_section_begin(&w, HC_SEC_COUNTERS);
		r |= hc_prof_put_counter(&w, "samples", 10000 + t);
		r |= hc_prof_put_counter(&w, "traps", 100);
		r |= hc_prof_section_end(&w);
		r |= hc_prof_writer_finish(&w);
		if (r)
			die("profile writer");
		{
			struct stat st;
			if (fstat(fd, &st) < 0)
				die(path);
			total += (uint64_t)st.st_size;
		}
		close(fd);
	}
	printf("%u profiles, %llu bytes\n", nthreads, (unsigned long long)total);
	return 0;
}
