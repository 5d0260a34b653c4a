/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_mpi.h -- csprof-prof-mpi's use of MPI: every process merges one part
 * of the measurement files (prof_merge_part), rank 0 gathers the parts,
 * folds them (prof_merge_parts) and writes the database alone.
 *
 * Tool code, built only when CMake finds MPI.  Only the main thread calls
 * MPI (MPI_THREAD_FUNNELED: lib/profile's threads never do).
 */
#ifndef CSP_PROF_MPI_H
#define CSP_PROF_MPI_H

struct prof_ctx;

/* MPI_Init_thread; returns 0, or -1 after printing why. */
int prof_mpi_init(int *argc, char ***argv);
/* This process's rank in MPI_COMM_WORLD, and the number of processes. */
int prof_mpi_rank(void);
int prof_mpi_size(void);
/* Rank 0's @value on every rank (collective). */
int prof_mpi_bcast_int(int value);
/*
 * Collective: merge this rank's part of @ctx's inputs and send it to rank
 * 0, which merges every part into @ctx in rank order (then @ctx is as after
 * prof_merge()).  Returns prof_merge()'s value on rank 0, 0 or a negative
 * prof_status on the others; a rank that failed is named on stderr.
 */
int prof_mpi_merge(struct prof_ctx *ctx);
void prof_mpi_finalize(void);

#endif /* CSP_PROF_MPI_H */
