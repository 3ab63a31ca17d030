/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_threads.c — a small hybrid MPI + pthreads program for
   tests/integration/mpi.sh (built there with mpicc): every rank starts two
   worker threads that increment neighbouring counters of one cache line
   (false sharing inside the rank) — half of the time in a static array,
   then a quarter each in a heap block and in an array on main's stack, so
   the database has static, heap and stack objects and more than one
   phase — then the ranks exchange a token ring and meet at a barrier.
   Prints "rank R of N: S" per rank. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long line[8] __attribute__((aligned(64)));
static long iters = 20000000;

struct counters {
	long c[8];
};

struct job {
	long k;
	volatile long *heap, *stack;
};

static void *worker(void *arg)
{
	const struct job *j = arg;
	long k = j->k, i;

	for (i = 0; i < iters / 2; i++)
		line[k]++;
	for (; i < iters / 4 * 3; i++)
		j->heap[k]++;
	for (; i < iters; i++)
		j->stack[k]++;
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank, size, token = 0;
	pthread_t t[2];
	struct job jobs[2];
	volatile long slots[8] __attribute__((aligned(64))) = { 0 };
	struct counters *hot;

	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
		return 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		iters = atol(argv[1]);
	hot = aligned_alloc(64, sizeof(*hot));
	if (!hot)
		return 1;
	for (int k = 0; k < 8; k++)
		hot->c[k] = 0;
	for (long k = 0; k < 2; k++) {
		jobs[k] = (struct job){ k, hot->c, slots };
		pthread_create(&t[k], NULL, worker, &jobs[k]);
	}
	for (int k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	if (size > 1) {
		if (rank == 0) {
			token = 1;
			MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
			MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			token++;
			MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	printf("rank %d of %d: %ld\n", rank, size,
	       line[0] + line[1] + hot->c[0] + hot->c[1] + slots[0] + slots[1]);
	free(hot);
	MPI_Finalize();
	return 0;
}
