/* SPDX-License-Identifier: BSD-3-Clause */
/* scenario.c — the synthetic measurement described in scenario.h.
   Processes and threads (global index in brackets, by process start time):
     B pid 2000 start  50 host 1: T0 [0], T1 [1], T5 [2] (no profile: a peer only)
     A pid 1000 start 100 host 1: T0 [3], T1 [4], T2 [5]
     C pid 3000 start 200 host 2: T0 [6], T1 [7]
   Every thread has the same calling context root > 0x1000 (app) > 0x2000
   (libfoo) and two leaves (nodes 3 and 4) at per-thread offsets; modules do
   not exist on disk, so procedures are named [module+0xoffset]. Events
   (weight, kind, cpu -> peer cpu, ctx -> peer ctx):
     A.T0 -> A.T1    7 false   0 -> 1   0x3000 -> 0x3100
     A.T0 -> A.T2    3 false   1 -> 3   0x3000 -> 0x3200
     A.T1 -> A.T2  100 true    1 -> 2   0x3100 -> 0x3200
     A.T2 -> A.T1   30 false   2 -> 1   0x3200 -> 0x3100
     B.T0 -> B.T5   11 false  ?  -> ?   0x3000 -> (no profile)
     B.T1 -> B.T0   50 true, trap  3 -> 3   0x3300 -> 0x3000
     C.T0 -> C.T1    5 true    1 -> 0   0x3000 -> 0x3000 (host 2)
   Node metrics equal the events at their context. Process A has a log file.
   Test code only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

struct sc_thread {
	uint32_t pid, index, creator, host;
	uint64_t start;
	uint64_t leaf3, leaf4;
	int metric3, metric4;     /* enum hc_metric or -1 */
	uint64_t m3, m4;
	struct hc_prof_event ev[2];
	size_t nev;
};

#define EV(w, fl, c, pc, peer_, ctx_, pctx) \
	{ .weight = (w), .flags = (fl), .cpu = (c), .peer_cpu = (pc), .peer = (peer_), \
	  .ctx = (ctx_), .peer_ctx = (pctx), .len = 8, .peer_len = 8, .addr = 0x601000, \
	  .peer_addr = 0x601008, .time = 1 }

static const struct sc_thread threads[] = {
	{ 1000, 0, HC_NONE, SC_HOST1, 100, 0x3000, 0x3400, HC_M_FALSE_SAMPLE, -1, 10, 0,
	  { EV(7, 0, 0, 1, 1, 3, 3), EV(3, 0, 1, 3, 2, 3, 4) }, 2 },
	{ 1000, 1, 0, SC_HOST1, 110, 0x3100, 0x3400, HC_M_TRUE_SAMPLE, -1, 100, 0,
	  { EV(100, HC_COMM_TRUE | HC_COMM_STORE, 1, 2, 2, 3, 4) }, 1 },
	{ 1000, 2, 0, SC_HOST1, 120, 0x3000, 0x3200, -1, HC_M_FALSE_SAMPLE, 0, 30,
	  { EV(30, HC_COMM_PEER_STORE, 2, 1, 1, 4, 3) }, 1 },
	{ 2000, 0, HC_NONE, SC_HOST1, 50, 0x3000, 0x3400, HC_M_FALSE_SAMPLE, -1, 11, 0,
	  { EV(11, 0, -1, -1, 5, 3, 3) }, 1 },
	{ 2000, 1, 0, SC_HOST1, 60, 0x3300, 0x3400, HC_M_TRUE_TRAP, -1, 50, 0,
	  { EV(50, HC_COMM_TRUE | HC_COMM_TRAP, 3, 3, 0, 3, 3) }, 1 },
	{ 3000, 0, HC_NONE, SC_HOST2, 200, 0x3000, 0x3400, HC_M_TRUE_SAMPLE, -1, 5, 0,
	  { EV(5, HC_COMM_TRUE, 1, 0, 1, 3, 3) }, 1 },
	{ 3000, 1, 0, SC_HOST2, 210, 0x3000, 0x3400, -1, -1, 0, 0, { { 0 } }, 0 },
};

static const struct fx_counter counters[] = {
	{ "samples", 10 },
	{ "traps", 1 },
};

void sc_write(const char *dir, char **paths)
{
	size_t i;

	fx_write_topology(dir, SC_HOST1, "pack:2 [numa] core:2 pu:1");
	/* Process A's log (the others have none). */
	{
		char *log = fx_join(dir, "app-000000-0a0b0c0d-1000-0.log");
		fx_write_file(log, "hpcrun-comm: log of process 1000\n", 33);
		free(log);
	}
	for (i = 0; i < sizeof(threads) / sizeof(threads[0]); i++) {
		const struct sc_thread *t = &threads[i];
		struct hc_prof_module mods[2];
		struct hc_prof_node nodes[5];
		struct fx_prof p;
		char *path;

		memset(&p, 0, sizeof(p));
		memset(mods, 0, sizeof(mods));
		memset(nodes, 0, sizeof(nodes));
		p.th.index = t->index;
		p.th.creator = t->creator;
		p.th.pid = t->pid;
		p.th.tid = t->pid + t->index;
		p.th.sampler = HC_SAMPLER_SOFT;
		p.th.unit = HC_UNIT_NS;
		p.th.creation_ctx = t->creator == HC_NONE ? HC_NONE : 2;
		p.th.period = SC_PERIOD;
		p.th.start_ns = t->start;
		p.th.end_ns = t->start + 1000;
		p.th.start_lm = t->creator == HC_NONE ? HC_NONE : 1;
		p.th.start_off = 0x2500;
		snprintf(p.th.exe, sizeof(p.th.exe), "/nonexistent/bin/app");
		p.hostid = t->host;
		p.gen = 0;

		mods[0].id = 0;
		mods[0].base = 0x555555554000ull;
		snprintf(mods[0].path, sizeof(mods[0].path), "/nonexistent/bin/app");
		mods[1].id = 1;
		mods[1].base = 0x7ffff7c00000ull;
		snprintf(mods[1].path, sizeof(mods[1].path), "/nonexistent/lib/libfoo.so");

		nodes[0] = (struct hc_prof_node){ .id = 0, .parent = HC_NONE, .lm = HC_NONE };
		nodes[1] = (struct hc_prof_node){ .id = 1, .parent = 0, .lm = 0, .offset = 0x1000 };
		nodes[2] = (struct hc_prof_node){ .id = 2, .parent = 1, .lm = 1, .offset = 0x2000 };
		nodes[3] = (struct hc_prof_node){ .id = 3, .parent = 2, .lm = 1, .offset = t->leaf3,
		                                  .flags = HC_NODE_LEAF };
		nodes[4] = (struct hc_prof_node){ .id = 4, .parent = 2, .lm = 1, .offset = t->leaf4,
		                                  .flags = HC_NODE_LEAF };
		if (t->metric3 >= 0)
			nodes[3].m[t->metric3] = t->m3;
		if (t->metric4 >= 0)
			nodes[4].m[t->metric4] = t->m4;

		p.mods = mods;
		p.nmods = 2;
		p.nodes = nodes;
		p.nnodes = 5;
		p.evs = t->ev;
		p.nevs = t->nev;
		p.cnts = counters;
		p.ncnts = 2;
		path = fx_write_profile(dir, &p);
		if (paths)
			paths[i] = path;
		else
			free(path);
	}
}
