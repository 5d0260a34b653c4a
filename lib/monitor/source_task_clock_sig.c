/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_task_clock_sig.c -- the handler's side of CPUTIME's task-clock
 * source (source_perf.c): a thread with a perf event is served by the perf
 * hooks, one that fell back to a POSIX CPU-time timer by the timer's.
 *
 * Runs in signal context: the hooks of source_perf_sig.c and
 * source_timer_sig.c only.
 */
#include <signal.h>

#include "monitor/mon_internal.h"

bool
mon_task_clock_owns(const struct mon_thread *td, uint32_t ev, const siginfo_t *si)
{
    return td->src[ev].fd >= 0 ? mon_perf_owns(td, ev, si)
                               : td->src[ev].timer_armed && mon_timer_owns(td, ev, si);
}

void
mon_task_clock_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si, struct mon_charge *c)
{
    if (td->src[ev].fd >= 0)
        mon_task_clock_perf_charge(td, ev, si, c);
    else
        mon_timer_charge(td, ev, si, c);
}
