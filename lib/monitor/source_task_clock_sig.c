/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_task_clock_sig.c -- the handler's side of CPUTIME's task-clock
 * source (source_perf.c): a thread with a perf event is served by the perf
 * hooks, one that fell back to a POSIX CPU-time timer by the timer's
 * (whose state it asks the timer source about, mon_source_timer.h).
 *
 * Runs in signal context: the hooks of source_perf_sig.c and
 * source_timer_sig.c, and a read of the thread's CPU clock.
 */
#include <signal.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_sys.h"

bool
mon_task_clock_owns(const struct mon_thread *td, uint32_t ev, const siginfo_t *si)
{
    return td->src[ev].perf.fd >= 0 ? mon_perf_owns(td, ev, si)
                                    : mon_timer_armed(td, ev) && mon_timer_owns(td, ev, si);
}

void
mon_task_clock_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si, struct mon_charge *c)
{
    if (td->src[ev].perf.fd >= 0)
        mon_task_clock_perf_charge(td, ev, si, c);
    else
        mon_timer_charge(td, ev, si, c);
}

/* The task clock still open: what it measured is the thread's CPU time since it opened. */
static void
task_clock_perf_ledger(const struct mon_thread *td, uint32_t ev, struct mon_ledger *out)
{
    uint64_t now;

    mon_perf_ledger_tail(td, ev, out);
    now = mon_thread_cpu_ns(td->tid);
    out->measured += now > td->src[ev].perf.armed_cpu_ns ? now - td->src[ev].perf.armed_cpu_ns : 0;
}

void
mon_task_clock_ledger(const struct mon_thread *td, uint32_t ev, struct mon_ledger *out)
{
    if (mon_timer_armed(td, ev))
        mon_timer_ledger(td, ev, out);
    else if (td->src[ev].perf.fd >= 0)
        task_clock_perf_ledger(td, ev, out);
}

bool
mon_task_clock_fell_back(const struct mon_thread *td)
{
    for (uint32_t ev = 0; ev < mon_proc.nevents; ev++)
        if (mon_proc.events[ev].src == &mon_source_task_clock && td->src[ev].perf.timer_fallback)
            return true;
    return false;
}
