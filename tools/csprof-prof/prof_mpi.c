/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_mpi.c -- csprof-prof-mpi: the merge spread over MPI processes, as
 * hpcprof-mpi.  Each rank reads and merges a contiguous block of the
 * measurement files (with -j threads), packs it (prof_merge_part), and
 * sends it to rank 0, which folds the parts in rank order
 * (prof_merge_parts): the database is byte for byte csprof-prof's.
 *
 * Tool code; prints on stderr only what names a rank's failure.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "prof_mpi.h"
#include "profile/profile.h"

#define PROF_MPI_TAG   17
#define PROF_MPI_CHUNK ((size_t)1 << 30) /* bytes per message: counts are int */
#define PROF_MPI_FAIL  UINT64_MAX        /* length sent by a rank that has no part */

int
prof_mpi_init(int *argc, char ***argv)
{
    int provided = 0;

    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        fputs("csprof-prof-mpi: MPI_Init_thread failed\n", stderr);
        return -1;
    }
    return 0;
}

int
prof_mpi_rank(void)
{
    int rank = 0;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

int
prof_mpi_size(void)
{
    int size = 1;

    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
}

int
prof_mpi_bcast_int(int value)
{
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value;
}

static void
prof_mpi_send(const unsigned char *buf, size_t len)
{
    size_t off, n;

    for (off = 0; off < len; off += n) {
        n = len - off < PROF_MPI_CHUNK ? len - off : PROF_MPI_CHUNK;
        MPI_Send(buf + off, (int)n, MPI_BYTE, 0, PROF_MPI_TAG, MPI_COMM_WORLD);
    }
}

static void
prof_mpi_recv(unsigned char *buf, size_t len, int from)
{
    size_t off, n;

    for (off = 0; off < len; off += n) {
        n = len - off < PROF_MPI_CHUNK ? len - off : PROF_MPI_CHUNK;
        MPI_Recv(buf + off, (int)n, MPI_BYTE, from, PROF_MPI_TAG, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    }
}

int
prof_mpi_merge(struct prof_ctx *ctx)
{
    int rank = prof_mpi_rank(), size = prof_mpi_size(), r, rc, failed = -1;
    void *buf = NULL, **bufs = NULL;
    uint64_t len64, *lens64 = NULL;
    size_t len = 0, *lens = NULL;

    rc = prof_merge_part(ctx, (size_t)rank, (size_t)size, &buf, &len);
    len64 = rc < 0 ? PROF_MPI_FAIL : (uint64_t)len;
    if (rank == 0) {
        lens64 = calloc((size_t)size, sizeof(*lens64));
        lens = calloc((size_t)size, sizeof(*lens));
        bufs = calloc((size_t)size, sizeof(*bufs));
        if (lens64 == NULL || lens == NULL || bufs == NULL) {
            fputs("csprof-prof-mpi: out of memory\n", stderr);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Gather(&len64, 1, MPI_UINT64_T, lens64, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank != 0) {
        if (rc == 0)
            prof_mpi_send(buf, len);
        else
            fprintf(stderr, "csprof-prof-mpi: rank %d: %s\n", rank, prof_errmsg(ctx));
        free(buf);
        return rc;
    }
    bufs[0] = buf;
    lens[0] = len;
    for (r = 1; r < size; r++) {
        if (lens64[r] == PROF_MPI_FAIL) {
            failed = r;
            continue;
        }
        lens[r] = (size_t)lens64[r];
        bufs[r] = malloc(lens[r] ? lens[r] : 1);
        if (bufs[r] == NULL) {
            fprintf(stderr, "csprof-prof-mpi: out of memory for the part of rank %d\n", r);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        prof_mpi_recv(bufs[r], lens[r], r);
    }
    if (rc == 0 && failed >= 0) {
        fprintf(stderr, "csprof-prof-mpi: rank %d could not merge its part\n", failed);
        rc = PROF_ENOMEM;
    }
    if (rc == 0)
        rc = prof_merge_parts(ctx, (const void *const *)bufs, lens, (size_t)size);
    for (r = 0; r < size; r++)
        free(bufs[r]);
    free(bufs);
    free(lens);
    free(lens64);
    return rc;
}

void
prof_mpi_finalize(void)
{
    MPI_Finalize();
}
