/* SPDX-License-Identifier: BSD-3-Clause */
/* mpienv.c — the MPI rank and size from the launcher's environment
   (mpienv.h). The first launcher whose rank variable parses wins; the size
   is taken from the same launcher's size variable when it has one. */
#include <stdlib.h>

#include "support/mpienv.h"

static const struct {
	const char *rank, *size;
} vars[] = {
	{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },   /* Open MPI's mpirun/orted */
	{ "PMIX_RANK", NULL },                                 /* any PMIx launcher */
	{ "PMI_RANK", "PMI_SIZE" },                            /* MPICH hydra, Intel MPI */
	{ "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE" },      /* MVAPICH2 */
	{ "SLURM_PROCID", "SLURM_STEP_NUM_TASKS" },            /* srun */
};

static bool parse(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint32_t)(*s - '0');
		if (v >= (1u << 24))
			return false;
	}
	*out = v;
	return true;
}

static const char *plain_getenv(const char *name)
{
	return getenv(name);
}

void hc_mpienv_read(struct hc_mpienv *e, const char *(*get)(const char *name))
{
	size_t i;

	if (!get)
		get = plain_getenv;
	*e = (struct hc_mpienv){ 0 };
	for (i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		uint32_t r, s;

		if (!parse(get(vars[i].rank), &r))
			continue;
		e->found = true;
		e->rank = r;
		e->rank_var = vars[i].rank;
		if (vars[i].size && parse(get(vars[i].size), &s) && s > r) {
			e->size = s;
			e->size_var = vars[i].size;
		}
		return;
	}
}
