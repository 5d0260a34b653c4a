/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * omp_sig.c -- OpenMP samples in their creation context (mon_omp.h).
 *
 * Runs in signal context, from take_sample (sample_sig.c) after a full walk:
 * the per-thread arena (through lib/cct), the load-map snapshot's keys, and
 * plain reads of other threads' OpenMP state (never freed; a stale read
 * only changes which placeholder a waiting sample gets), and the OpenMP
 * runtime's ompt_get_state (async-signal-safe by the OpenMP specification)
 * when OMPT is active.  Nothing here allocates, locks or calls libc.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cct/cct.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_omp.h"

bool
mon_omp_plain_walk(const struct mon_thread *td)
{
    const struct mon_omp_thread *o = td->omp;

    return o != NULL && (o->depth > 0 || o->parallel_depth > 0 || o->worker);
}

/* Whether the region @seq created by @creator is still open (its creator has not returned). */
static bool
region_open(const struct mon_thread *creator, uint64_t seq)
{
    const struct mon_omp_thread *o = creator != NULL ? creator->omp : NULL;
    uint32_t n;

    if (o == NULL || seq == 0)
        return false;
    n = o->nopen;
    for (uint32_t i = 0; i < n && i < MON_OMP_MAX_NEST; i++)
        if (o->open_seq[i] == seq)
            return true;
    return false;
}

/*
 * The runtime's waiting: the placeholder as the leaf, below @parent and the
 * walk's @nouter outermost frames (a thread's entry, for idle samples).
 */
static int
insert_waiting(struct mon_thread *td, struct cct_node *parent, size_t nouter,
               void (*placeholder)(void), struct cct_node **leaf)
{
    size_t n = td->bt.depth;
    uintptr_t addr;

    if (nouter >= n)
        nouter = n - 1;
    memcpy(&addr, &placeholder, sizeof(addr)); /* function pointer to address (no ISO cast) */
    td->bt_keys[0] = 0;
    mon_snapshot_keys(td, &addr, &td->bt_keys[0], 1);
    mon_snapshot_keys(td, td->bt.ips + n - nouter, td->bt_keys + 1, nouter);
    return cct_insert_path(td->tree, parent, td->bt_keys, nouter + 1, leaf);
}

/* The interrupted thread's OMPT state (mon_omp.h), or -1 when no runtime took csprof as its tool
 * or the runtime does not know this thread. */
static int
ompt_state(void)
{
    mon_ompt_get_state_fn *get = atomic_load_explicit(&mon_ompt_get_state, memory_order_acquire);

    return get != NULL ? get(NULL) : -1;
}

/* Whether the CCT key @key is an address in the OpenMP runtime's module (omp_ompt.c). */
static bool
in_runtime(uintptr_t key)
{
    return (key & MON_KEY_MODULE) != 0 && (key & MON_KEY_RAW) != MON_KEY_RAW &&
           ((key >> MON_KEY_ID_SHIFT) & 0xffffu) == mon_ompt_module;
}

/*
 * A body's sample taken while the runtime says the thread waits (a barrier,
 * taskwait or taskgroup inside the body): the number of innermost frames
 * (keys[0 .. n-1]) that the placeholder csprof_omp_barrier replaces: those
 * up to the outermost frame in the runtime (what the runtime calls while it
 * waits, sched_yield or futex in libc, included); 0 when the sample is not
 * such a wait.  @n frames are keyed (the body's: all n when the body
 * tail-called the runtime).
 */
static size_t
runtime_wait_frames(const uintptr_t *keys, size_t n, int state)
{
    size_t j = 0;

    if (state < MON_OMPT_WAIT_LO || state > MON_OMPT_WAIT_HI || mon_ompt_module == UINT32_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (in_runtime(keys[i]))
            j = i + 1;
    return j;
}

bool
mon_omp_insert(struct mon_thread *td, struct cct_node **leaf, int *rc)
{
    struct mon_omp_thread *o = td->omp;
    const uintptr_t *ips = td->bt.ips;
    size_t n = td->bt.depth, cut = 0;
    uint32_t top;

    if (o == NULL || o->overflow > 0 || n == 0 || mon_omp_in_runner(ips[0]))
        return false; /* a few instructions of a runner itself: an ordinary sample */
    for (size_t i = 1; i < n; i++)
        if (mon_omp_in_runner(ips[i])) {
            cut = i; /* frames 0 .. i-1 run the outlined body (i-1 is the body itself) */
            break;
        }
    if (cut > 0 && o->depth > 0) {
        size_t skip;

        top = o->depth - 1;
        mon_snapshot_keys(td, ips, td->bt_keys, cut);
        skip = runtime_wait_frames(td->bt_keys, cut, ompt_state());
        if (skip > 0) { /* the runtime's frames of the wait become the placeholder */
            uintptr_t addr;

            memcpy(&addr, &mon_omp_barrier_fn, sizeof(addr));
            skip--;
            mon_snapshot_keys(td, &addr, &td->bt_keys[skip], 1);
        }
        *rc = cct_insert_path_nodes(td->tree, o->graft[top], td->bt_keys + skip, cut - skip,
                                    td->bt_nodes);
        if (*rc == CCT_OK)
            *leaf = td->bt_nodes[0];
        td->shadow_rooted = o->ctx_rooted[top];
        return true;
    }
    /* Outside any body: a team thread between regions, or a creating thread in the runtime's
     * start or end of its region (fork, join, the end barrier). */
    if (cut == 0 && o->depth == 0 && (o->worker || o->parallel_depth > 0)) {
        if (o->last_graft != NULL && region_open(o->last_creator, o->last_seq) &&
            !(o->worker && ompt_state() == MON_OMPT_IDLE)) {
            *rc = insert_waiting(td, o->last_graft, 0, mon_omp_barrier_fn, leaf);
            td->shadow_rooted = o->last_rooted;
        } else {
            /* Idle: below the thread's entry (clone3, start_thread), as the walk found it. */
            *rc = insert_waiting(td, cct_root(td->tree), 2, mon_omp_idle_fn, leaf);
            td->shadow_rooted = td->shadow_rooted && n >= 3;
        }
        return true;
    }
    return false;
}
