/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source.c -- sample sources: start and stop the current thread's.
 *
 * Two mechanisms behind one interface:
 *   posix-timer      timer_create(2) with SIGEV_THREAD_ID on the thread's
 *                    CPU-time clock (CPUTIME) or CLOCK_MONOTONIC (REALTIME).
 *                    CPU-time clocks are checked at the scheduler tick, so at
 *                    most CONFIG_HZ (250 here) signals per CPU-second arrive.
 *   perf-task-clock  perf_event_open(2) PERF_COUNT_SW_TASK_CLOCK with
 *                    sample_period in ns and an overflow signal (F_SETSIG,
 *                    F_SETOWN_EX, PERF_EVENT_IOC_REFRESH): per-thread CPU time
 *                    at up to ~1 kHz and beyond, unprivileged.
 * Start/stop run in ordinary context; mon_source_rearm and
 * mon_source_event_of run in the handler and use only ioctl(2) and reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "monitor/mon_internal.h"

#ifndef F_SETSIG
#    define F_SETSIG 10
#endif

static int
perf_open_task_clock(uint64_t period_ns)
{
    struct perf_event_attr attr;

    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = period_ns;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.wakeup_events = 1;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

bool
mon_perf_task_clock_available(void)
{
    int fd = perf_open_task_clock(1000000);

    if (fd < 0)
        return false;
    close(fd);
    return true;
}

static int
start_perf(struct mon_thread *td, uint32_t ev)
{
    struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = td->tid};
    int fd = perf_open_task_clock(mon_proc.events[ev].period_ns);

    if (fd < 0)
        return -errno;
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) < 0 || fcntl(fd, F_SETSIG, mon_proc.signo) < 0 ||
        fcntl(fd, F_SETOWN_EX, &owner) < 0 || ioctl(fd, PERF_EVENT_IOC_RESET, 0) < 0) {
        int err = errno;

        close(fd);
        return -err;
    }
    td->perf_fd[ev] = fd;
    td->last_clock_ns[ev] = mon_clock_ns(mon_proc.events[ev].clock);
    if (ioctl(fd, PERF_EVENT_IOC_REFRESH, 1) < 0) {
        int err = errno;

        close(fd);
        td->perf_fd[ev] = -1;
        return -err;
    }
    return 0;
}

static int
start_posix(struct mon_thread *td, uint32_t ev)
{
    const struct mon_event *e = &mon_proc.events[ev];
    struct sigevent sev;
    struct itimerspec its;
    clockid_t clock = e->clock;

    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = mon_proc.signo;
    sev.sigev_value.sival_int = (int)ev;
    sev._sigev_un._tid = td->tid;
    if (timer_create(clock, &sev, &td->timers[ev]) < 0)
        return -errno;
    td->timer_armed[ev] = true;
    td->last_clock_ns[ev] = mon_clock_ns(clock);
    its.it_interval.tv_sec = (time_t)(e->period_ns / 1000000000u);
    its.it_interval.tv_nsec = (long)(e->period_ns % 1000000000u);
    its.it_value = its.it_interval;
    if (timer_settime(td->timers[ev], 0, &its, NULL) < 0) {
        int err = errno;

        timer_delete(td->timers[ev]);
        td->timer_armed[ev] = false;
        return -err;
    }
    return 0;
}

int
mon_sources_start(struct mon_thread *td)
{
    int rc = 0;

    for (uint32_t ev = 0; ev < mon_proc.nevents; ev++) {
        int r;

        td->perf_fd[ev] = -1;
        td->timer_armed[ev] = false;
        if (mon_proc.events[ev].mech == MON_MECH_SYNC)
            continue; /* driven by overrides (sample_sync.c) */
        if (mon_proc.events[ev].mech == MON_MECH_PERF_TASK_CLOCK)
            r = start_perf(td, ev);
        else
            r = start_posix(td, ev);
        if (r < 0 && rc == 0)
            rc = r;
    }
    return rc;
}

void
mon_sources_stop(struct mon_thread *td)
{
    for (uint32_t ev = 0; ev < mon_proc.nevents; ev++) {
        if (td->timer_armed[ev]) {
            timer_delete(td->timers[ev]);
            td->timer_armed[ev] = false;
        }
        if (td->perf_fd[ev] >= 0) {
            ioctl(td->perf_fd[ev], PERF_EVENT_IOC_DISABLE, 0);
            close(td->perf_fd[ev]);
            td->perf_fd[ev] = -1;
        }
    }
}

void
mon_sources_forget(struct mon_thread *td)
{
    for (uint32_t ev = 0; ev < mon_proc.nevents; ev++) {
        td->timer_armed[ev] = false; /* timers are not inherited by a fork child */
        if (td->perf_fd[ev] >= 0) {
            /* Same open file as the parent's event: closing our copy leaves it running, an
             * ioctl would disable the parent's sampling. */
            close(td->perf_fd[ev]);
            td->perf_fd[ev] = -1;
        }
    }
}
