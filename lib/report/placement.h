/* SPDX-License-Identifier: BSD-3-Clause */
/* placement.h — where to pin which thread (issue 15 point 6): from a
   process's thread matrix and its host's topology (packages and cores, as
   hwloc recorded them at run time), a thread -> core placement that
   minimises the communication volume weighted by topological distance,
   computed by Scotch's static mapping onto a tree-leaf target (packages x
   cores), and the commands that apply it (OMP_PLACES / OMP_PROC_BIND,
   taskset and hwloc-bind per thread index), with the cross-core and
   cross-package volume the run had and the proposal would have. The core
   (hc_place_compute) is pure data in, data out; the adapters from the
   database (report/placement.c: hc_place_from_db) and from the analyzer
   (analysis/summary.c) only fill struct hc_place_in. No signal context. */
#ifndef HC_REPORT_PLACEMENT_H
#define HC_REPORT_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "db/db.h"

/* Distance of two threads in the mapping's cost: on the same core 0, on
   two cores of one package 1, across packages HC_PLACE_LINK_PACKAGE + 1
   (a cross-package cache-line transfer costs several times a cross-core
   one on current servers; the ratio only decides ties between a few
   cross-package transfers and many cross-core ones). */
#define HC_PLACE_LINK_PACKAGE 10
/* Above this many threads in a process no placement is computed (short-lived
   threads by the thousand are not pinned one by one). */
#define HC_PLACE_MAX_THREADS 1024

/* One core of the host, in hwloc's logical order. */
struct hc_place_core {
	int core;                  /* logical index (hwloc-bind core:N) */
	int socket;                /* package os index, -1 unknown */
	char cpus[128];            /* its PUs' os indexes, "3" or "3,11" */
};

/* Communication between threads a and b (indexes into the process's
   threads); either direction, duplicates summed, a == b ignored. */
struct hc_place_edge {
	uint32_t a, b;
	uint64_t w;
};

struct hc_place_in {
	uint32_t nthreads;
	const struct hc_place_edge *edges;
	size_t nedges;
	const struct hc_place_core *cores;
	uint32_t ncores;
	/* Per thread: the index in cores[] of the one core it ran on during the
	   whole run, -1 when unknown or when it ran on several (migrated). NULL:
	   all unknown. */
	const int32_t *ran_on;
	/* The run's cross-core and cross-package volume from the events' own
	   CPUs (the database's CPU and socket matrices), used when ran_on does
	   not place every thread; run_events false: not known. */
	bool run_events;
	uint64_t run_cross_core, run_cross_socket;
};

enum hc_place_status {
	HC_PLACE_OK = 0,
	HC_PLACE_ONE_THREAD,       /* nothing to place */
	HC_PLACE_ONE_CORE,         /* nothing to choose */
	HC_PLACE_NO_COMM,          /* no communication between threads: any placement */
	HC_PLACE_NO_TOPOLOGY,      /* no cores known for the host */
	HC_PLACE_ERROR,            /* Scotch failed or out of memory: why[] */
};

struct hc_place_out {
	int status;                /* enum hc_place_status */
	char why[256];             /* in words, for every status */
	uint32_t nthreads, ncores, nsockets, cores_per_socket;
	bool flat;                 /* packages of unequal size: mapped on cores only */
	bool kept;                 /* the run's placement was already as good: proposed = it */
	int32_t *core;             /* per thread: index into cores[] (HC_PLACE_OK, ONE_CORE) */
	uint64_t total;            /* volume between distinct threads */
	uint64_t cross_core, cross_socket, cost;          /* the proposal */
	bool run_known;
	uint64_t run_cross_core, run_cross_socket;        /* the run */
	bool run_cost_known;
	uint64_t run_cost;
};

/* Compute the placement. 0, or -ENOMEM (out->status HC_PLACE_ERROR);
   every other outcome is a status with its words in out->why. */
int hc_place_compute(const struct hc_place_in *in, struct hc_place_out *out);
void hc_place_free(struct hc_place_out *out);

/* The commands, one line per entry, each prefixed with indent:
   OMP_PLACES ('{3},{5,13},...', thread i on the i-th place, with
   OMP_PROC_BIND=close) and per thread "T<i> -> core N (cpus C):
   taskset -pc C $TID_i ; hwloc-bind --tid $TID_i core:N". label(i) names
   thread i (its index in the process). At most max_threads lines of
   per-thread commands (0: all), then a count of the rest. */
void hc_place_print(FILE *f, const char *indent, const struct hc_place_in *in,
                    const struct hc_place_out *out, const uint32_t *label, uint32_t max_threads);
/* OMP_PLACES's value into buf (cores of out->core in thread order, each
   place the core's PUs). Returns buf; "" when there is no placement or
   more threads than cores (an OpenMP team has one thread per place). */
char *hc_place_omp_places(const struct hc_place_in *in, const struct hc_place_out *out,
                          char *buf, size_t sz);

/* From a database: the placement of process p (index into db->procs): its
   threads (db->threads of that process, in index order: *label receives
   each one's thread index in the process), the all-kind thread matrix
   restricted to them, the cores of its host from the core level's labels,
   each thread's CPUs from threads.csv, and the run's volumes from the core
   and socket matrices when the host ran this process only. Fills *in
   (owning arrays: hc_place_in_free) and computes *out. 0 or -ENOMEM. */
int hc_place_from_db(const struct hc_db *db, size_t p, struct hc_place_in *in, uint32_t **label,
                     struct hc_place_out *out);
void hc_place_in_free(struct hc_place_in *in);

#endif
