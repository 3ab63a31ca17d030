/* SPDX-License-Identifier: BSD-3-Clause */
/* mpienv.h — the MPI rank and job size a process was started with, learned
   from the launcher's environment, so that neither the runtime nor the
   analyzer needs MPI at build time (doc/mpi.md). No allocation, no stdio:
   the runtime calls it during start-up. */
#ifndef HC_SUPPORT_MPIENV_H
#define HC_SUPPORT_MPIENV_H

#include <stdbool.h>
#include <stdint.h>

struct hc_mpienv {
	bool     found;         /* some launcher variable named a rank */
	uint32_t rank;          /* 0 when !found */
	uint32_t size;          /* job size, 0 when no variable says it */
	const char *rank_var;   /* the variable the rank came from, NULL */
	const char *size_var;   /* the variable the size came from, NULL */
};

/* Read the launchers' variables through get (getenv when NULL), in this
   order: Open MPI (OMPI_COMM_WORLD_RANK/_SIZE), PMIx (PMIX_RANK), MPICH and
   Intel MPI's PMI (PMI_RANK/PMI_SIZE), MVAPICH2 (MV2_COMM_WORLD_RANK/_SIZE),
   Slurm's srun (SLURM_PROCID/SLURM_STEP_NUM_TASKS). A value that is not a
   decimal number below 2^24 is ignored. Local ranks (MPI_LOCALRANKID,
   OMPI_COMM_WORLD_LOCAL_RANK) are never used: they repeat on every node. */
void hc_mpienv_read(struct hc_mpienv *e, const char *(*get)(const char *name));

#endif
