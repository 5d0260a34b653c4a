/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * depth_sig.c -- room for deep stacks: the per-thread walk arrays start with
 * CSP_INITIAL_FRAMES entries and are replaced, inside the sampling handler,
 * by arrays twice as long carved from the thread's arena when a walk needs
 * more (the trampoline's shadow stack grows the same way from the same
 * arena, in lib/trampoline/tramp_sig.c's tramp_sample_commit).
 * The old arrays stay in the arena (it frees nothing); doubling keeps them
 * smaller than the live ones.  So a call path is recorded whole however
 * deep it is, and the only limit is the arena's (CSPROF_MEMORY_LIMIT).
 *
 * Runs in signal context: arena_alloc and memcpy only.
 */
#include <string.h>

#include "monitor/mon_internal.h"

/* Copy @n entries of @size bytes from @old into a fresh arena array of @cap entries. */
static void *
regrow(struct arena *a, const void *old, size_t n, size_t cap, size_t size)
{
    void *p = arena_alloc(a, cap * size);

    if (p != NULL && old != NULL && n > 0)
        memcpy(p, old, n * size);
    return p;
}

int
mon_bt_grow(struct uw_backtrace *bt, void *arg)
{
    struct mon_thread *td = arg;
    size_t cap = bt->max ? 2 * bt->max : CSP_INITIAL_FRAMES, n = bt->depth;
    uintptr_t *ips, *sps = NULL, *ra_locs = NULL, *keys;
    uint8_t *sigframe = NULL;
    struct cct_node **nodes;

    ips = regrow(&td->arena, bt->ips, n, cap, sizeof(*ips));
    if (ips == NULL)
        return -1;
    if (bt->sps != NULL && (sps = regrow(&td->arena, bt->sps, n, cap, sizeof(*sps))) == NULL)
        return -1;
    if (bt->ra_locs != NULL &&
        (ra_locs = regrow(&td->arena, bt->ra_locs, n, cap, sizeof(*ra_locs))) == NULL)
        return -1;
    if (bt->sigframe != NULL &&
        (sigframe = regrow(&td->arena, bt->sigframe, n, cap, sizeof(*sigframe))) == NULL)
        return -1;
    /* bt_nodes and bt_keys are filled after the walk: nothing to keep. */
    nodes = regrow(&td->arena, NULL, 0, cap, sizeof(*nodes));
    keys = regrow(&td->arena, NULL, 0, cap, sizeof(*keys));
    if (nodes == NULL || keys == NULL)
        return -1;
    bt->ips = ips;
    bt->sps = sps;
    bt->ra_locs = ra_locs;
    bt->sigframe = sigframe;
    td->bt_nodes = nodes;
    td->bt_keys = keys;
    bt->max = cap;
    return 0;
}
