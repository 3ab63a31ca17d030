/* SPDX-License-Identifier: BSD-3-Clause */
/* test_mpienv.c — the rank and size from launcher variables: each launcher
   alone, precedence when several are set, garbage ignored, local ranks never
   used, nothing set = rank 0 not found. */
#include <string.h>

#include "support/mpienv.h"
#include "hc_test.h"

static const char *const *env;   /* NAME=VALUE, NULL-terminated */

static const char *get(const char *name)
{
	size_t n = strlen(name);

	for (const char *const *e = env; *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

static void check(const char *const *vars, bool found, uint32_t rank, uint32_t size,
                  const char *rank_var)
{
	struct hc_mpienv e;

	env = vars;
	hc_mpienv_read(&e, get);
	CHECK(e.found == found);
	CHECK(e.rank == rank);
	CHECK(e.size == size);
	if (rank_var)
		CHECK(e.rank_var && strcmp(e.rank_var, rank_var) == 0);
	else
		CHECK(e.rank_var == NULL);
}

int main(void)
{
	check((const char *[]){ NULL }, false, 0, 0, NULL);
	check((const char *[]){ "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4", NULL }, true, 3, 4,
	      "OMPI_COMM_WORLD_RANK");
	check((const char *[]){ "PMIX_RANK=7", NULL }, true, 7, 0, "PMIX_RANK");
	check((const char *[]){ "PMI_RANK=1", "PMI_SIZE=2", NULL }, true, 1, 2, "PMI_RANK");
	check((const char *[]){ "MV2_COMM_WORLD_RANK=5", "MV2_COMM_WORLD_SIZE=6", NULL }, true, 5, 6,
	      "MV2_COMM_WORLD_RANK");
	check((const char *[]){ "SLURM_PROCID=2", "SLURM_STEP_NUM_TASKS=8", NULL }, true, 2, 8,
	      "SLURM_PROCID");
	/* Open MPI sets PMIX_RANK too; both agree, Open MPI's wins. */
	check((const char *[]){ "PMIX_RANK=9", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", NULL },
	      true, 1, 2, "OMPI_COMM_WORLD_RANK");
	/* Garbage: not numbers, too large, empty; a size not above the rank. */
	check((const char *[]){ "OMPI_COMM_WORLD_RANK=x1", "PMI_RANK=", "SLURM_PROCID=99999999", NULL },
	      false, 0, 0, NULL);
	check((const char *[]){ "PMI_RANK=4", "PMI_SIZE=4", NULL }, true, 4, 0, "PMI_RANK");
	check((const char *[]){ "PMI_RANK=0", "PMI_SIZE=-2", NULL }, true, 0, 0, "PMI_RANK");
	/* Local ranks repeat on every node: never a rank. */
	check((const char *[]){ "MPI_LOCALRANKID=1", "OMPI_COMM_WORLD_LOCAL_RANK=1", NULL }, false, 0, 0,
	      NULL);
	return hc_test_done("test_mpienv");
}
