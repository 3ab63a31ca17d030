/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi.c — hpcprof-comm's MPI transport (mpi.h). Messages are a length
   (one MPI_UINT64_T) then the bytes, in pieces of at most 1 GiB (MPI counts
   are int). MPI calls come from the main thread only (MPI_THREAD_FUNNELED):
   the analysis' worker threads never communicate. A rank that fails calls
   MPI_Abort after saying why, so no rank waits forever for a partial result
   that will not come. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "config.h"
#include "hpcprof-comm/mpi.h"
#include "support/mpienv.h"

#if defined(HC_HAVE_MPI) && !defined(HC_NO_MPI)
#include <mpi.h>

#define PIECE (1u << 30)

/* Wait for a request without spinning: a rank that waits for a slower one
   (rank 0 for its partners' partial results) would otherwise burn a CPU in
   MPI's progress loop, which on a shared or oversubscribed node slows the
   ranks that still work. Polls after 200 us, backing off to every 10 ms
   (a rank waiting minutes for rank 0's tail then costs ~100 polls a second). */
static int wait_idle(MPI_Request *rq)
{
	long ns = 200000;
	int done = 0;

	while (!done) {
		struct timespec ts = { 0, ns };
		if (MPI_Test(rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
			return -EIO;
		if (!done) {
			nanosleep(&ts, NULL);
			if (ns < 10000000)
				ns += ns / 4;
		}
	}
	return 0;
}

static int tx_send(void *arg, int to, const void *buf, size_t len)
{
	uint64_t n = len;
	const char *p = buf;

	MPI_Request rq;

	(void)arg;
	if (MPI_Isend(&n, 1, MPI_UINT64_T, to, 1, MPI_COMM_WORLD, &rq) != MPI_SUCCESS || wait_idle(&rq))
		return -EIO;
	while (len) {
		int k = (int)(len < PIECE ? len : PIECE);
		if (MPI_Isend(p, k, MPI_BYTE, to, 2, MPI_COMM_WORLD, &rq) != MPI_SUCCESS ||
		    wait_idle(&rq))
			return -EIO;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

static int tx_recv(void *arg, int from, void **buf, size_t *len)
{
	uint64_t n;
	char *p;
	size_t left;

	(void)arg;
	MPI_Request rq;

	if (MPI_Irecv(&n, 1, MPI_UINT64_T, from, 1, MPI_COMM_WORLD, &rq) != MPI_SUCCESS ||
	    wait_idle(&rq))
		return -EIO;
	p = malloc(n ? n : 1);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*len = n;
	for (left = n; left;) {
		int k = (int)(left < PIECE ? left : PIECE);
		if (MPI_Irecv(p, k, MPI_BYTE, from, 2, MPI_COMM_WORLD, &rq) != MPI_SUCCESS ||
		    wait_idle(&rq))
			return -EIO;
		p += k;
		left -= (size_t)k;
	}
	return 0;
}

static int tx_sum(void *arg, uint64_t *v, size_t n)
{
	MPI_Request rq;

	(void)arg;
	if (MPI_Iallreduce(MPI_IN_PLACE, v, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD, &rq) !=
	    MPI_SUCCESS)
		return -EIO;
	return wait_idle(&rq);
}

static struct hc_analysis_comm comm_mpi;
static int started;

int prof_mpi_start(int *argc, char ***argv, const struct hc_analysis_comm **comm)
{
	struct hc_mpienv e;
	int provided, rank, size;

	*comm = NULL;
	hc_mpienv_read(&e, NULL);
	/* Not under a launcher (or alone): no MPI at all, the plain analyzer. */
	if (!e.found || e.size == 1)
		return 0;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
		fprintf(stderr, "hpcprof-comm: MPI_Init_thread failed (started by a launcher: %s=%u)\n",
		        e.rank_var, e.rank);
		return 1;
	}
	started = 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size == 1)
		return 0;
	comm_mpi = (struct hc_analysis_comm){ .rank = rank, .size = size, .send = tx_send,
	                                      .recv = tx_recv, .sum = tx_sum };
	*comm = &comm_mpi;
	return 0;
}

int prof_mpi_finish(int status)
{
	if (!started)
		return status;
	if (status && comm_mpi.size > 1) {
		/* The other ranks may be waiting for this one. */
		fflush(NULL);
		MPI_Abort(MPI_COMM_WORLD, status);
	}
	if (comm_mpi.size > 1) {
		/* MPI_Finalize waits for every rank by spinning: the ranks that sent
		   their share would spin while rank 0 symbolizes and writes. Meet in
		   a barrier that polls first. */
		MPI_Request rq;
		if (MPI_Ibarrier(MPI_COMM_WORLD, &rq) == MPI_SUCCESS)
			wait_idle(&rq);
	}
	MPI_Finalize();
	return status;
}

#else /* without MPI (or HC_NO_MPI: the test copy) */

int prof_mpi_start(int *argc, char ***argv, const struct hc_analysis_comm **comm)
{
	struct hc_mpienv e;

	(void)argc;
	(void)argv;
	*comm = NULL;
	hc_mpienv_read(&e, NULL);
	if (e.found && e.size > 1) {
		fprintf(stderr, "hpcprof-comm: started as rank %u of %u (%s, %s), but this "
		        "hpcprof-comm was built without MPI (configure found no Open MPI, or "
		        "--without-mpi): %u copies would each write the whole database. Run it once "
		        "without the launcher, or rebuild with Open MPI (libopenmpi-dev).\n",
		        e.rank, e.size, e.rank_var, e.size_var, e.size);
		return 1;
	}
	return 0;
}

int prof_mpi_finish(int status)
{
	return status;
}

#endif
