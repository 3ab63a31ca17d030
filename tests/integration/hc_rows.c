/* SPDX-License-Identifier: BSD-3-Clause */
/* hc_rows.c — test helper: read every profile of a measurement directory
   with the profile reader and print the raw per-thread communication rows
   (detecting thread → peer, as recorded, before any symmetrisation) and the
   summed counters, one fact per line, for the integration scripts:
     thread PID INDEX TID
     row PID FROM TO ALL TRUE FALSE SAMPLE TRAP
     counter NAME VALUE
     tcounter PID INDEX NAME VALUE   (per thread)
     unit U
   Exits 1 if a profile cannot be read. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hc/profile.h"

#define MAXT 1024
#define MAXC 1024

struct cell { uint64_t all, tru, fal, smp, trp; };

int main(int argc, char **argv)
{
	static struct cell m[MAXT][MAXT];
	static char cname[MAXC][40];
	static uint64_t cval[MAXC];
	int nc = 0, bad = 0;
	uint32_t pid0 = 0;
	DIR *d;
	struct dirent *de;

	if (argc != 2) {
		fprintf(stderr, "usage: hc_rows MEASUREMENT-DIR\n");
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	while ((de = readdir(d))) {
		char path[4096], err[512];
		struct hc_prof *p;
		const struct hc_prof_thread *th;
		size_t len = strlen(de->d_name);

		if (len < 7 || strcmp(de->d_name + len - 7, ".hcprof"))
			continue;
		snprintf(path, sizeof path, "%s/%s", argv[1], de->d_name);
		if (hc_prof_open(path, &p, err, sizeof err) < 0) {
			fprintf(stderr, "%s\n", err);
			bad = 1;
			continue;
		}
		th = hc_prof_thread(p);
		printf("thread %u %u %u\n", th->pid, th->index, th->tid);
		if (!pid0)
			pid0 = th->pid;
		printf("unit %u\n", th->unit);
		for (size_t i = 0; i < hc_prof_nevents(p); i++) {
			struct hc_prof_event e;
			hc_prof_event(p, i, &e);
			if (th->index >= MAXT || e.peer >= MAXT || th->pid != pid0)
				continue;
			struct cell *c = &m[th->index][e.peer];
			c->all += e.weight;
			if (e.flags & HC_COMM_TRUE)
				c->tru += e.weight;
			else
				c->fal += e.weight;
			if (e.flags & HC_COMM_TRAP)
				c->trp += e.weight;
			else
				c->smp += e.weight;
		}
		for (size_t i = 0; i < hc_prof_ncounters(p); i++) {
			struct hc_prof_counter c;
			int k;
			hc_prof_counter(p, i, &c);
			printf("tcounter %u %u %s %" PRIu64 "\n", th->pid, th->index, c.name, c.value);
			for (k = 0; k < nc && strcmp(cname[k], c.name); k++)
				;
			if (k == nc) {
				if (nc == MAXC) {   /* never a silent 0 for a counter a test asks for */
					fprintf(stderr, "hc_rows: more than %d counter names (%s): raise MAXC\n", MAXC,
					        c.name);
					return 1;
				}
				snprintf(cname[nc++], sizeof cname[0], "%s", c.name);
			}
			cval[k] += c.value;
		}
		hc_prof_close(p);
	}
	closedir(d);
	for (int i = 0; i < MAXT; i++)
		for (int j = 0; j < MAXT; j++)
			if (m[i][j].all)
				printf("row %u %d %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
				       pid0, i, j, m[i][j].all, m[i][j].tru, m[i][j].fal, m[i][j].smp, m[i][j].trp);
	for (int k = 0; k < nc; k++)
		printf("counter %s %" PRIu64 "\n", cname[k], cval[k]);
	return bad;
}
