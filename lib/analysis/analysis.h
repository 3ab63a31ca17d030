/* SPDX-License-Identifier: BSD-3-Clause */
/* analysis.h — the analyzer library (libhcanalysis.a) as the hpcprof-comm
   program and the tests see it: one call turns measurement directories into a
   database directory (doc/database-format.md). The idea: read every profile
   once, in parallel, folding it into per-worker aggregates (calling-context
   tree, code pairs, CPU pairs, one matrix row per thread) so that memory grows
   with the merged tree and not with the number of events; then merge,
   symbolize with libdw, place CPUs with hwloc and write the files. Nothing here
   runs in signal context. */
#ifndef HC_ANALYSIS_H
#define HC_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HC_ANALYSIS_DEFAULT_TOP 10u
/* Matrices of at most this many rows are written dense (N×N CSV), larger ones
   sparse (doc/database-format.md §2): at 1024 a dense file is ~2 MiB and a
   viewer's dense copy 8 MiB; at 100,000 threads it would be 20 GB and 80 GB. */
#define HC_ANALYSIS_DEFAULT_DENSE_MAX 1024u

/* The distributed merge (lib/analysis/dist.c, doc/mpi.md): several copies of
   the analyzer, one per rank, each reading a share of the processes; partial
   results travel up a binomial reduction tree as versioned byte buffers;
   rank 0 writes the database, identical to the one a single run writes. The
   library does not link MPI: the caller (hpcprof-comm/mpi.c) provides the
   transport. Every function returns 0 or a negative errno; a failure on one
   rank must make the transport fail on the others too (MPI aborts). */
struct hc_analysis_comm {
	int rank, size;
	void *arg;
	/* Blocking point-to-point: send len bytes to rank `to`; receive the next
	   buffer from rank `from` (*buf malloc'd, the caller frees it). */
	int (*send)(void *arg, int to, const void *buf, size_t len);
	int (*recv)(void *arg, int from, void **buf, size_t *len);
	/* Element-wise sum of v[0..n) over all ranks, result on every rank. */
	int (*sum)(void *arg, uint64_t *v, size_t n);
};

struct hc_analysis_opts {
	const char *const *inputs;  /* measurement directories */
	size_t ninputs;
	const char *outdir;         /* database directory to create */
	bool force;                 /* replace outdir if it is an earlier database or empty */
	unsigned jobs;              /* worker threads, 0 = online CPUs */
	unsigned top;               /* summary rows / code pairs per context, 0 = default */
	unsigned dense_max;         /* largest matrix dimension written dense, 0 = default */
	int unit;                   /* enum hc_unit to keep, -1 = the majority's */
	uint64_t window_ns;         /* phase windows (doc/hpcprof-comm.md "Phases"), 0 = about 20 */
	FILE *diag;                 /* skipped files and warnings, NULL = silent */
	FILE *summary;              /* where to print summary.txt too, NULL = nowhere */
	/* Called from the calling thread only, at most ~10 times a second while
	   work is under way: what = phase, done/total its progress; a final
	   call with what = NULL when the work is over. NULL = no progress. */
	void (*progress)(void *arg, const char *what, size_t done, size_t total);
	void *progress_arg;
	/* NULL or size 1: one process does everything. Otherwise only rank 0
	   writes outdir, summary and diag; the other ranks return 0 after sending
	   their share. */
	const struct hc_analysis_comm *comm;
};

struct hc_analysis_result {
	size_t found;        /* .hcprof files found */
	size_t read;         /* profiles used */
	size_t skipped;      /* profiles reported and skipped */
	size_t processes;
	size_t threads;      /* rows of threads.csv */
};

/* Run the whole analysis. Returns 0 on success; -ENOENT when nothing usable
   was found (no profile could be used); -EEXIST when outdir exists and force
   is not set or outdir is not something force may replace; another negative
   errno when the output could not be written. On error, err says which file
   or directory and why. res (may be NULL) is filled in either case. */
int hc_analysis_run(const struct hc_analysis_opts *o, struct hc_analysis_result *res,
                    char *err, size_t errlen);

/* The default database name for a measurement directory, in the current
   directory: the basename with a trailing "-measurements" (optionally
   followed by "-SUFFIX") turned into "-database", else basename +
   "-database"; when that exists, the first free NAME-2, NAME-3, ...
   Returns 0 or -ENAMETOOLONG / -EEXIST (no free name below NAME-1000). */
int hc_analysis_default_outdir(const char *input, char *buf, size_t len);

#endif
