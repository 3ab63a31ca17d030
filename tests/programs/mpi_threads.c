/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_threads.c — a small hybrid MPI + pthreads program for
   tests/integration/mpi.sh (built there with mpicc): every rank starts two
   worker threads that increment neighbouring counters of one cache line
   (false sharing inside the rank), then the ranks exchange a token ring and
   meet at a barrier. Prints "rank R of N: S" per rank. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long line[8] __attribute__((aligned(64)));
static long iters = 20000000;

static void *worker(void *arg)
{
	long k = (long)arg;

	for (long i = 0; i < iters; i++)
		line[k]++;
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank, size, token = 0;
	pthread_t t[2];

	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
		return 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc > 1)
		iters = atol(argv[1]);
	for (long k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, worker, (void *)k);
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
	printf("rank %d of %d: %ld\n", rank, size, line[0] + line[1]);
	MPI_Finalize();
	return 0;
}
