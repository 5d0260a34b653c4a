/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi.c -- the MPI rank and world size of the profiled process.
 *
 * At start-up (the constructor, before the measurement file is created)
 * the rank and world size come from the launcher's environment: Open MPI
 * (OMPI_COMM_WORLD_RANK/SIZE), MPICH's Hydra and other PMI launchers
 * (PMI_RANK/PMI_SIZE), Slurm's srun (SLURM_PROCID/SLURM_NTASKS inside a job
 * step).  Where the program itself calls MPI_Init, MPI_Init_thread or
 * MPI_Comm_rank(MPI_COMM_WORLD), these overrides confirm the rank through
 * the profiling interface (PMPI_Comm_rank/PMPI_Comm_size, MPI standard
 * §15.2), and rename the measurement file if the rank was unknown or
 * different.  The monitor never links against MPI: every PMPI_* function is
 * resolved (mon_real.h) when the program first calls an override, so a program
 * without MPI never reaches this code.  MPI_COMM_WORLD's handle depends on
 * the library's ABI: Open MPI's is the address of ompi_mpi_comm_world,
 * MPICH's (and its derivatives') the integer 0x44000000.
 *
 * Ordinary context only (the constructor and the program's MPI calls);
 * nothing here runs in the sampling handler, which only reads mon_proc.rank
 * and mon_proc.world_size.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_real.h"
#include "monitor/mon_write.h"

#define MPICH_COMM_WORLD 0x44000000u /* MPICH ABI's MPI_COMM_WORLD (mpi.h) */

/* MPI_Comm is a pointer (Open MPI) or an int (MPICH): passed in one register either way. */
typedef int mpi_init_fn(int *, char ***);
typedef int mpi_init_thread_fn(int *, char ***, int, int *);
typedef int mpi_comm_query_fn(void *, int *);

/* The overrides: the program's MPI calls come here first (LD_PRELOAD), then go to PMPI_*.
 * Same contract as the MPI standard's functions.  [not async-signal-safe] */
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Comm_rank(void *comm, int *rank);

static mpi_init_fn *mon_real_PMPI_Init;
static mpi_init_thread_fn *mon_real_PMPI_Init_thread;
static mpi_comm_query_fn *mon_real_PMPI_Comm_rank;
static mpi_comm_query_fn *mon_real_PMPI_Comm_size;
static void *ompi_comm_world; /* &ompi_mpi_comm_world, or NULL for the MPICH ABI */
static bool resolved;

/* Find the PMPI functions (the program called an MPI override, so its MPI library is loaded). */
static void
resolve_pmpi(void)
{
    if (resolved)
        return;
    MON_REAL_RESOLVE(mon_real_PMPI_Init, "PMPI_Init");
    MON_REAL_RESOLVE(mon_real_PMPI_Init_thread, "PMPI_Init_thread");
    MON_REAL_RESOLVE(mon_real_PMPI_Comm_rank, "PMPI_Comm_rank");
    MON_REAL_RESOLVE(mon_real_PMPI_Comm_size, "PMPI_Comm_size");
    ompi_comm_world = dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world"); /* data, not a function */
    resolved = true;
}

/* Whether @comm is MPI_COMM_WORLD in the ABI of the loaded library. */
static bool
is_comm_world(void *comm)
{
    if (ompi_comm_world != NULL)
        return comm == ompi_comm_world;
    return (uint32_t)(uintptr_t)comm == MPICH_COMM_WORLD;
}

static void *
comm_world(void)
{
    return ompi_comm_world != NULL ? ompi_comm_world : (void *)(uintptr_t)MPICH_COMM_WORLD;
}

/* Parse a whole non-negative decimal number; -1 if @s is NULL or anything else. */
static long
env_number(const char *name)
{
    const char *s = getenv(name);
    char *end;
    long v;

    if (s == NULL || s[0] < '0' || s[0] > '9')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > INT32_MAX)
        return -1;
    return v;
}

void
mon_mpi_rank_from_env(void)
{
    static const struct {
        const char *rank, *size, *needs; /* needs: set only inside a launch (NULL: always) */
    } launchers[] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL},
        {"PMI_RANK", "PMI_SIZE", NULL},
        /* A batch script also has SLURM_PROCID=0: only srun's job steps say their step. */
        {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_ID"},
    };

    mon_process_set_rank(-1, 0);
    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
        long rank = env_number(launchers[i].rank), size = env_number(launchers[i].size);

        if (rank < 0 || (launchers[i].needs != NULL && getenv(launchers[i].needs) == NULL))
            continue;
        mon_process_set_rank((int32_t)rank, size > rank ? (uint32_t)size : 0);
        return;
    }
}

/* Digits of the rank in file names: enough for the world size, at least 5. */
static int
rank_width(void)
{
    int w = 1;

    for (uint32_t n = mon_proc.world_size > 0 ? mon_proc.world_size - 1 : 0; n >= 10; n /= 10)
        w++;
    return w < 5 ? 5 : w;
}

int
mon_mpi_file_name(char *buf, size_t len, int pid, unsigned n)
{
    char suffix[16] = "";

    if (n > 0)
        snprintf(suffix, sizeof(suffix), "-%u", n);
    if (mon_proc.rank >= 0)
        return snprintf(buf, len, "%s-r%0*d-%d%s.cspm", mon_proc.progname, rank_width(),
                        (int)mon_proc.rank, pid, suffix);
    return snprintf(buf, len, "%s-%d%s.cspm", mon_proc.progname, pid, suffix);
}

/*
 * The MPI library says this process is @rank of @size: record it, and
 * rename the measurement file if its name carried another rank (or none).
 * The file keeps its descriptor; a failed rename keeps the old name.
 */
static void
set_rank(int rank, int size)
{
    char name[MON_OUTPUT_NAME_MAX];
    int32_t old_rank = mon_proc.rank;
    uint32_t old_size = mon_proc.world_size;

    if (rank < 0 || (rank == old_rank && (size <= 0 || (uint32_t)size == old_size)))
        return;
    mon_process_set_rank(rank, size > rank ? (uint32_t)size : old_size);
    if (!mon_proc.active)
        return;
    mon_mpi_file_name(name, sizeof(name), (int)getpid(), 0);
    mon_output_rename(name);
}

/* After a successful MPI_Init(_thread): ask the library for this process's rank and size. */
static void
confirm_rank(void)
{
    int rank = -1, size = 0;

    if (mon_real_PMPI_Comm_rank == NULL || mon_real_PMPI_Comm_rank(comm_world(), &rank) != 0)
        return;
    if (mon_real_PMPI_Comm_size != NULL && mon_real_PMPI_Comm_size(comm_world(), &size) != 0)
        size = 0;
    set_rank(rank, size);
}

/* MPI_ERR_OTHER is 16 in Open MPI and 15 in MPICH: any non-zero value is an error. */
#define MON_MPI_NO_LIBRARY 16

CSP_EXPORT int
MPI_Init(int *argc, char ***argv)
{
    int rc;

    resolve_pmpi();
    if (mon_real_PMPI_Init == NULL)
        return MON_MPI_NO_LIBRARY;
    rc = mon_real_PMPI_Init(argc, argv);
    if (rc == 0)
        confirm_rank();
    return rc;
}

CSP_EXPORT int
MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc;

    resolve_pmpi();
    if (mon_real_PMPI_Init_thread == NULL)
        return MON_MPI_NO_LIBRARY;
    rc = mon_real_PMPI_Init_thread(argc, argv, required, provided);
    if (rc == 0)
        confirm_rank();
    return rc;
}

CSP_EXPORT int
MPI_Comm_rank(void *comm, int *rank)
{
    int rc;

    resolve_pmpi();
    if (mon_real_PMPI_Comm_rank == NULL)
        return MON_MPI_NO_LIBRARY;
    rc = mon_real_PMPI_Comm_rank(comm, rank);
    if (rc == 0 && rank != NULL && is_comm_world(comm) && *rank != mon_proc.rank)
        confirm_rank(); /* also reads the size */
    return rc;
}
