/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi.h — hpcprof-comm under an MPI launcher (doc/mpi.md). Built with MPI:
   MPI is initialized only when a launcher's environment says this process is
   one rank of several, and the distributed merge's transport is MPI
   point-to-point plus an allreduce. Built without: a process started as one
   of several ranks refuses to run, so that several copies never write one
   database. */
#ifndef HC_HPCPROF_MPI_H
#define HC_HPCPROF_MPI_H

#include "analysis/analysis.h"

/* Returns 0 and sets *comm (NULL when not started by a launcher as one rank
   of several); or prints why not and returns the exit status to use. */
int prof_mpi_start(int *argc, char ***argv, const struct hc_analysis_comm **comm);
/* The run's result on this rank (0 ok); returns the exit status to use. */
int prof_mpi_finish(int status);

#endif
