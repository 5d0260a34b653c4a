/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_omp.h -- OpenMP creation contexts (omp.c, omp_sig.c).
 *
 * [Catch] ("creation context"): a sample taken in the outlined body of a
 * parallel region, or of a task, belongs below the calling context of the
 * construct that created it, whichever thread runs it.  The overrides of
 * libgomp's entry points (omp.c) record that context, as CCT keys, when a
 * region or task is created, and run the outlined function through a
 * "runner" whose code lies in the section csprof_omp_run.  In a sample,
 * the frames below the innermost runner frame are inserted below the
 * recorded context (omp_sig.c) instead of below the thread's own outer
 * frames (start_thread, the runtime's thread loop).  A team thread's samples
 * outside any region are the runtime's waiting: below the region's context
 * as csprof_omp_barrier while the region it last ran is still open, else
 * at the root as csprof_omp_idle.  Where the runtime has taken csprof as
 * its OMPT tool (LLVM's libomp, omp_ompt.c), the thread's state as the
 * runtime reports it decides instead: a body's samples while it waits at a
 * barrier, taskwait or taskgroup end in csprof_omp_barrier (the runtime's
 * frames replaced), and a team thread's samples in the idle state are idle.
 */
#ifndef CSP_MON_OMP_H
#define CSP_MON_OMP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "support/compiler.h"

#define MON_OMP_MAX_PATH      256 /* frames of a region's creation context kept */
#define MON_OMP_MAX_TASK_PATH 64  /* ... of a task's (copied into every task's data) */
#define MON_OMP_MAX_NEST      16  /* runners active on one thread (nested regions, tasks) */

struct cct_node;
struct mon_thread;

/* A region being created: on the creating thread's stack for the length of the region. */
struct mon_omp_region {
    void (*fn)(void *); /* the outlined body and its argument */
    void *data;
    struct mon_thread *creator;
    uint64_t seq; /* process-wide region number, from 1 */
    bool rooted;  /* the context reaches the creating thread's root */
    uint32_t nkeys;
    uintptr_t keys[MON_OMP_MAX_PATH]; /* creation context, CCT keys, the call site first */
};

/* Per-thread OpenMP state: one mmap'd block, never freed while the process runs. */
struct mon_omp_thread {
    uint32_t depth;    /* runners active on this thread */
    uint32_t overflow; /* runners beyond MON_OMP_MAX_NEST (their samples are not grafted) */
    struct cct_node *graft[MON_OMP_MAX_NEST];    /* node of each runner's creation context */
    const uintptr_t *ctx_keys[MON_OMP_MAX_NEST]; /* that context's keys (valid while it runs) */
    uint32_t ctx_n[MON_OMP_MAX_NEST];
    bool ctx_rooted[MON_OMP_MAX_NEST];
    uint64_t ctx_seq[MON_OMP_MAX_NEST];
    struct mon_thread *ctx_creator[MON_OMP_MAX_NEST];
    uint32_t parallel_depth; /* this thread's region-creating overrides active */
    volatile uint64_t open_seq[MON_OMP_MAX_NEST]; /* regions this thread created, still open */
    volatile uint32_t nopen;
    bool worker; /* has run a region another thread created: a team thread */
    /* The region a team thread ran last (its end barrier follows). */
    struct cct_node *last_graft;
    bool last_rooted;
    uint64_t last_seq;
    struct mon_thread *last_creator;
};

/* The runners' code, [mon_omp_run_lo, mon_omp_run_hi): the section csprof_omp_run (omp.c). */
extern const char *const mon_omp_run_lo;
extern const char *const mon_omp_run_hi;

/* Whether @pc is in a runner.  [async-signal-safe] */
static inline bool
mon_omp_in_runner(uintptr_t pc)
{
    return pc >= (uintptr_t)mon_omp_run_lo && pc < (uintptr_t)mon_omp_run_hi;
}

/* Placeholders named in profiles (exported, so that even a stripped libcsprof.so names them):
 * never called; a waiting sample's leaf is their first byte.  The signal path reads their
 * addresses from these pointers (omp.c). */
void csprof_omp_idle(void);
void csprof_omp_barrier(void);
extern void (*const mon_omp_idle_fn)(void);
extern void (*const mon_omp_barrier_fn)(void);

/* OMPT (omp_ompt.c): the runtime's ompt_get_state, async-signal-safe by the OpenMP specification
 * (5.0, 4.6.1.2), NULL while no runtime has taken csprof as its tool; and the load-map id of the
 * runtime's module (UINT32_MAX when unknown).  A thread's states (OpenMP 5.0, 4.4.4.26): */
typedef int mon_ompt_get_state_fn(uint64_t *wait_id);
extern mon_ompt_get_state_fn *_Atomic mon_ompt_get_state;
extern uint32_t mon_ompt_module;
#define MON_OMPT_WAIT_LO 0x010 /* ompt_state_wait_barrier ... */
#define MON_OMPT_WAIT_HI 0x02f /* ... ompt_state_wait_taskwait, _taskgroup: below, a wait */
#define MON_OMPT_IDLE    0x100 /* ompt_state_idle: waiting for work */

struct mon_thread;
struct cct_node;
/*
 * OpenMP (omp_sig.c).  mon_omp_plain_walk: whether this sample must be a
 * full walk without the trampoline (the thread is in an OpenMP region, or
 * is a team thread).  mon_omp_insert: insert td->bt's sample below its
 * creation context (or as the runtime's waiting); returns false when the
 * sample is not OpenMP's (the caller inserts it as usual), else true with
 * *rc and *leaf as insert_full gives them and td->shadow_rooted set.
 * [async-signal-safe]
 */
struct mon_omp_thread;
CSP_SIGSAFE bool mon_omp_plain_walk(const struct mon_thread *td);
CSP_SIGSAFE bool mon_omp_insert(struct mon_thread *td, struct cct_node **leaf, int *rc);

#endif /* CSP_MON_OMP_H */
