/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_sig.c -- the handler's side of the sample sources: which event a
 * signal belongs to, what the sample costs, re-arming (mon_source.h).
 *
 * Runs in signal context: calls the sources' signal hooks (*_sig.c files),
 * clock_gettime(2) and read(2) only.  The sources' per-thread state is
 * theirs (mon_source_timer.h, mon_source_perf.h): this file goes through
 * their hooks.
 */
#include <signal.h>
#include <time.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_sys.h"
#include "support/sysio.h"

int
mon_source_event_of(const struct mon_thread *td, const siginfo_t *info)
{
    for (uint32_t ev = 0; ev < mon_proc.nevents; ev++) {
        const struct mon_source *src = mon_proc.events[ev].src;

        if (src->owns != NULL && src->owns(td, ev, info))
            return (int)ev;
    }
    return -1;
}

void
mon_source_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *info, struct mon_charge *c)
{
    const struct mon_source *src = mon_proc.events[ev].src;

    c->user = 1;
    c->kernel = 0;
    if (src->charge != NULL)
        src->charge(td, ev, info, c);
}

void
mon_source_rearm(struct mon_thread *td, uint32_t ev, const siginfo_t *info)
{
    const struct mon_source *src;

    if (ev >= mon_proc.nevents)
        return;
    src = mon_proc.events[ev].src;
    if (src->rearm != NULL)
        src->rearm(td, ev, info);
}

void
mon_source_ledger(const struct mon_thread *td, uint32_t ev, struct mon_ledger *out)
{
    const struct mon_source *src = mon_proc.events[ev].src;

    *out = td->ledger[ev];
    if (src->ledger != NULL)
        src->ledger(td, ev, out);
}

uint64_t
mon_timing_clock(int fd)
{
    uint64_t v[3];

    if (fd < 0)
        return mon_clock_ns(CLOCK_MONOTONIC);
    return csp_sys_read(fd, v, sizeof(v)) == (ssize_t)sizeof(v) ? v[0] : UINT64_MAX;
}

uint64_t
mon_clock_ns(clockid_t clock)
{
    struct timespec ts;

    if (clock_gettime(clock, &ts) < 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t
mon_thread_cpu_ns(pid_t tid)
{
    /* The clock id clock_getcpuclockid(3) would give for a thread: CPUCLOCK_PERTHREAD | SCHED,
     * encoded with the thread id (linux/posix-timers.h). */
    return mon_clock_ns((clockid_t)((~(unsigned)tid << 3) | 6u));
}
