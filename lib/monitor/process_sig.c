/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * process_sig.c -- the process state the signal handler reads while the
 * program runs (mon_process.h): whether sampling has stopped, thread
 * indices, execs not followed.  Atomic, process.c's own otherwise: kept out
 * of struct mon_process, where an atomic operation would write through the
 * const view without a compiler error.  [async-signal-safe]
 */
#include <stdatomic.h>

#include "monitor/mon_process.h"

static atomic_int stopped;            /* 1: handlers drop everything (finalisation, exec) */
static atomic_uint next_thread_index; /* of the next thread begun in this profile */
static atomic_uint exec_not_followed; /* execs whose environment drops csprof */

void
mon_process_stop(void)
{
    atomic_store(&stopped, 1);
}

bool
mon_process_stopped(void)
{
    return atomic_load(&stopped) != 0;
}

uint32_t
mon_process_next_thread_index(void)
{
    return atomic_fetch_add(&next_thread_index, 1);
}

void
mon_process_count_exec_not_followed(void)
{
    atomic_fetch_add(&exec_not_followed, 1);
}

uint32_t
mon_process_exec_not_followed(void)
{
    return atomic_load(&exec_not_followed);
}

void
mon_process_restart_counts(void)
{
    atomic_store(&next_thread_index, 0);
    atomic_store(&stopped, 0);
}
