/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_ring.c -- an MPI program for r43_mpi_init.sh and the MPI rank tests:
 * MPI_Init (Open MPI opens its components with dlopen there), then ROUNDS
 * rounds of work and a token passed around the ring of ranks.  Every rank
 * burns WORK seconds of CPU per round in ring_work(); with "imbalance",
 * rank 0 burns twice as much.  Rank 0 prints the world size and the
 * token's final value, which depends on every rank: the output is the same
 * at every run.  Usage: mpi_ring [ROUNDS [WORK [imbalance]]].
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_burn.h"

__attribute__((noinline)) static void
ring_work(double seconds)
{
    burn(seconds);
}

__attribute__((noinline)) static long
ring_pass(long token, int rank, int size)
{
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    if (size == 1)
        return token + 1;
    if (rank == 0) {
        token += 1;
        MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(&token, 1, MPI_LONG, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += rank + 1;
        MPI_Send(&token, 1, MPI_LONG, next, 0, MPI_COMM_WORLD);
    }
    return token;
}

int
main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    double work = argc > 2 ? atof(argv[2]) : 0.05;
    int imbalance = argc > 3 && strcmp(argv[3], "imbalance") == 0;
    int rank, size;
    long token = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 0; r < rounds; r++) {
        ring_work(imbalance && rank == 0 ? 2 * work : work);
        token = ring_pass(token, rank, size);
    }
    MPI_Bcast(&token, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("size %d token %ld\n", size, token);
    MPI_Finalize();
    return 0;
}
