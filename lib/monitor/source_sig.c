/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_sig.c -- the parts of the sample sources the handler calls.
 *
 * Runs in signal context: ioctl(2), clock_gettime(2) and plain reads only.
 */
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <time.h>

#include "monitor/mon_internal.h"

void
mon_source_rearm(struct mon_thread *td, uint32_t ev)
{
    if (ev < mon_proc.nevents && td->perf_fd[ev] >= 0)
        ioctl(td->perf_fd[ev], PERF_EVENT_IOC_REFRESH, 1);
}

int
mon_source_event_of(const struct mon_thread *td, const siginfo_t *info)
{
    if (info->si_code == SI_TIMER) {
        int ev = info->si_value.sival_int;

        return ev >= 0 && (uint32_t)ev < mon_proc.nevents ? ev : -1;
    }
    for (uint32_t ev = 0; ev < mon_proc.nevents; ev++)
        if (td->perf_fd[ev] >= 0 && td->perf_fd[ev] == info->si_fd)
            return (int)ev;
    return -1;
}

uint64_t
mon_clock_ns(clockid_t clock)
{
    struct timespec ts;

    if (clock_gettime(clock, &ts) < 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
