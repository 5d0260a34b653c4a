/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source.c -- sample sources: choose one per event, start and stop the
 * current thread's.
 *
 * Every event of mon_proc.events has a source (mon_source.h): CPUTIME is
 * the perf task-clock (source_perf.c) where perf_event_open allows it, else
 * a POSIX timer on the thread's CPU clock (source_timer.c; CPU-time timers
 * expire at the tick, at most CONFIG_HZ, 250 here, signals per CPU-second);
 * REALTIME is a POSIX timer on
 * CLOCK_MONOTONIC; PAPI presets and libpfm4 names are perf events encoded
 * by lib/support/pmu.h; the byte events (MEMALLOC, MEMLEAK, IO, IO_READ,
 * IO_WRITE) are synchronous (sample_sync.c).  Ordinary context: the constructor and thread
 * start/end.
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_sys.h"
#include "support/event_spec.h"
#include "support/pmu.h"

/*
 * CPUTIME by the perf task-clock: software event, period in ns.  It samples
 * kernel mode too where the kernel allows it (perf_event_paranoid <= 1, or
 * CAP_PERFMON): a period that ends in a system call is then a sample record
 * of its own, charged to the [kernel] child of the call's context
 * (source_perf_sig.c).  Elsewhere, or with CSPROF_KERNEL_TIME=0, it samples
 * user mode only and the kernel's periods are counted, not placed.
 */
static void
task_clock_attr(struct perf_event_attr *attr, uint64_t period_ns, bool kernel)
{
    memset(attr, 0, sizeof(*attr));
    attr->size = sizeof(*attr);
    attr->type = PERF_TYPE_SOFTWARE;
    attr->config = PERF_COUNT_SW_TASK_CLOCK;
    attr->sample_period = period_ns;
    attr->disabled = 1;
    attr->exclude_kernel = !kernel;
    attr->exclude_hv = 1;
}

static void
set_time_units(struct mon_event *e)
{
    e->unit = "ns";
    e->display_unit = "s";
    e->display_scale = 1e-9;
}

/* The perf source's per-sample system calls, switched back on by bench/sample to measure
 * what each costs: CSPROF_PERF_RING=0 reads the count with read(2), CSPROF_PERF_REFRESH=N
 * re-arms every N overflows (1: an ioctl per sample). */
static void
perf_knobs(struct mon_event *e)
{
    const char *ring = getenv("CSPROF_PERF_RING");
    const char *refresh = getenv("CSPROF_PERF_REFRESH");

    e->perf_ring = ring == NULL || strcmp(ring, "0") != 0;
    e->perf_refresh = MON_PERF_REFRESH;
    if (refresh != NULL && atoi(refresh) > 0)
        e->perf_refresh = (uint32_t)atoi(refresh);
}

int
mon_source_configure(struct mon_event *e, const struct evspec *req, char *why, size_t whylen)
{
    memset(e, 0, sizeof(*e));
    snprintf(e->name, sizeof(e->name), "%s", req->name);
    perf_knobs(e);
    switch (req->kind) {
    case EVSPEC_CPUTIME: {
        const char *mech = getenv("CSPROF_CPUTIME_MECHANISM");
        bool perf;

        set_time_units(e);
        e->period = req->period * 1000u;
        e->clock = CLOCK_THREAD_CPUTIME_ID;
        /* The perf task-clock wherever it opens: CPU-time timers fire at the scheduler tick
         * (>= 4 ms at CONFIG_HZ=250), so a thread that runs less than a tick is rarely sampled
         * by one, whatever the period. */
        if (mech != NULL && strcmp(mech, "posix") == 0)
            perf = false;
        else if (mech != NULL && strcmp(mech, "perf") == 0)
            perf = true;
        else
            perf = mon_perf_task_clock_available(false);
        if (perf) {
            const char *kt = getenv("CSPROF_KERNEL_TIME");
            bool kernel =
                (kt == NULL || strcmp(kt, "0") != 0) && mon_perf_task_clock_available(true);

            e->src = &mon_source_task_clock;
            task_clock_attr(&e->attr, e->period, kernel);
            snprintf(e->mechanism, sizeof(e->mechanism), "%s",
                     kernel ? "perf-task-clock" : "perf-task-clock:u");
        } else {
            e->src = &mon_source_timer;
            snprintf(e->mechanism, sizeof(e->mechanism), "posix-timer");
        }
        return 0;
    }
    case EVSPEC_REALTIME:
        set_time_units(e);
        e->period = req->period * 1000u;
        e->clock = CLOCK_MONOTONIC;
        e->src = &mon_source_timer;
        snprintf(e->mechanism, sizeof(e->mechanism), "posix-timer");
        return 0;
    case EVSPEC_PERF:
        if (pmu_encode(req, &e->attr, e->encoding, sizeof(e->encoding), why, whylen) < 0)
            return -1;
        e->src = &mon_source_perf;
        e->period = req->freq ? 0 : req->period;
        e->unit = "events";
        e->display_unit = "events";
        e->display_scale = 1.0;
        if (req->freq)
            snprintf(e->mechanism, sizeof(e->mechanism), "perf-event f%llu", req->period);
        else
            snprintf(e->mechanism, sizeof(e->mechanism), "perf-event");
        return 0;
    case EVSPEC_BYTES: /* MEMALLOC, MEMLEAK, IO...: counted by the overrides (sample_sync.c) */
        e->src = &mon_source_sync;
        e->period = req->period;
        e->clock = CLOCK_MONOTONIC;
        e->unit = "bytes";
        e->display_unit = "bytes";
        e->display_scale = 1.0;
        snprintf(e->mechanism, sizeof(e->mechanism), "synchronous");
        return 0;
    }
    snprintf(why, whylen, "event %s has no sample source", req->name);
    return -1;
}

int
mon_sources_start(struct mon_thread *td)
{
    int rc = 0;

    td->timing_fd = -1;
    for (uint32_t ev = 0; ev < mon_proc.nevents; ev++) {
        const struct mon_source *src = mon_proc.events[ev].src;
        int r = 0;

        memset(&td->src[ev], 0, sizeof(td->src[ev])); /* each source sets up its own */
        if (src->thread_start != NULL)
            r = src->thread_start(td, ev);
        if (r < 0 && rc == 0)
            rc = r;
    }
    /* The handler times itself by the thread's task clock when it has one (CPU time, without
     * preemption), else by the monotonic clock (mon_timing_clock); the floor of that timing
     * is the least of a few back-to-back pairs of reads. */
    for (uint32_t ev = 0; ev < mon_proc.nevents && td->timing_fd < 0; ev++)
        if (mon_proc.events[ev].src == &mon_source_task_clock)
            td->timing_fd = mon_perf_fd(td, ev);
    td->clock_floor_ns = UINT64_MAX;
    for (int i = 0; i < 4; i++) {
        uint64_t a = mon_timing_clock(td->timing_fd), b = mon_timing_clock(td->timing_fd);

        if (a != UINT64_MAX && b != UINT64_MAX && b >= a && b - a < td->clock_floor_ns)
            td->clock_floor_ns = b - a;
    }
    if (td->clock_floor_ns == UINT64_MAX)
        td->clock_floor_ns = 0;
    td->armed_cpu_start_ns = mon_thread_cpu_ns(td->tid);
    td->sources_armed = true;
    return rc;
}

void
mon_sources_stop(struct mon_thread *td)
{
    sigset_t block, old;
    bool self = td == mon_thread_self();

    /* The handler no longer times itself by a descriptor about to close. */
    td->timing_fd = -1;
    atomic_thread_fence(memory_order_seq_cst);
    /* A sample taken while a source closes would read its ring as the close drains it. */
    if (self) {
        sigemptyset(&block);
        sigaddset(&block, mon_proc.signo);
        syscall(SYS_rt_sigprocmask, SIG_BLOCK, &block, &old, (size_t)(_NSIG / 8));
    }
    for (uint32_t ev = 0; ev < mon_proc.nevents; ev++)
        if (mon_proc.events[ev].src->thread_stop != NULL)
            mon_proc.events[ev].src->thread_stop(td, ev);
    if (self)
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, (size_t)(_NSIG / 8));
    if (td->sources_armed) {
        uint64_t now = mon_thread_cpu_ns(td->tid);

        td->armed_cpu_ns += now > td->armed_cpu_start_ns ? now - td->armed_cpu_start_ns : 0;
        td->sources_armed = false;
    }
}

void
mon_sources_forget(struct mon_thread *td)
{
    for (uint32_t ev = 0; ev < mon_proc.nevents; ev++)
        if (mon_proc.events[ev].src->thread_forget != NULL)
            mon_proc.events[ev].src->thread_forget(td, ev);
}
