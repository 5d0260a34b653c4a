/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_perf.c -- the perf_event sample source: any event perf_event_open(2)
 * can sample on a thread (the task-clock for CPUTIME, hardware counters,
 * software events), with an overflow signal to the thread.
 *
 * Each thread opens its own event (pid 0, any CPU, user space unless the
 * encoding says otherwise), asks for PERF_SAMPLE_READ records (the count
 * and its enabled/running times at each overflow) in a one-page ring
 * buffer, and routes the overflow to the sampling signal (O_ASYNC,
 * F_SETSIG, F_SETOWN_EX to the thread).  The handler reads the newest
 * record from the ring -- memory reads, no system call -- and charges the
 * count since the previous sample, scaled by enabled/running time when the
 * kernel multiplexed the counter (source_perf_sig.c).  The event is armed
 * for MON_PERF_REFRESH overflows at a time (PERF_EVENT_IOC_REFRESH), so
 * the queue of signals stays bounded without an ioctl per sample.  When the
 * ring cannot be mapped (perf_event_mlock_kb spent), the handler read(2)s
 * the count instead.  Ordinary context: thread start and end.
 *
 * CPUTIME uses the task clock through mon_source_task_clock: the
 * same perf source, except that a thread which would take one of the
 * program's last file descriptors (fd_scarce) gets a POSIX CPU-time timer
 * instead (source_timer.c: tick resolution, same clock, charged by its
 * clock delta), counted in thread.timer_fallback.
 *
 * The per-thread state, struct mon_perf_thread (mon_source_perf.h), is
 * touched only here, in source_perf_sig.c and in source_task_clock_sig.c;
 * the fallback timer's is the timer source's (mon_source_timer.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_sys.h"
#include "support/sysio.h"

#ifndef F_SETSIG
#    define F_SETSIG 10
#endif

/* Bytes of a ring: the control page and one data page. */
static size_t
ring_bytes(void)
{
    return 2 * (size_t)sysconf(_SC_PAGESIZE);
}

static int
perf_open(struct perf_event_attr *attr)
{
    return (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

bool
mon_perf_task_clock_available(bool kernel)
{
    struct perf_event_attr attr;
    int fd;

    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = 1000000;
    attr.disabled = 1;
    attr.exclude_kernel = !kernel;
    attr.exclude_hv = 1;
    fd = perf_open(&attr);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

static int
perf_start(struct mon_thread *td, uint32_t ev)
{
    struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = td->tid};
    struct mon_perf_thread *s = &td->src[ev].perf;
    struct perf_event_attr attr = mon_proc.events[ev].attr;
    void *ring;
    int fd, err;

    s->fd = -1;
    attr.sample_type = PERF_SAMPLE_READ;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.wakeup_events = 1;
    attr.disabled = 1;
    fd = perf_open(&attr);
    if (fd < 0)
        return -errno;
    fd = mon_fd_high(fd, true); /* the program's open() gets its usual numbers */
    ring = mon_proc.events[ev].perf_ring
               ? mmap(NULL, ring_bytes(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
               : MAP_FAILED;
    s->ring = ring == MAP_FAILED ? NULL : ring;
    s->last = s->enabled_ns = s->running_ns = 0;
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) < 0 || fcntl(fd, F_SETSIG, mon_proc.signo) < 0 ||
        fcntl(fd, F_SETOWN_EX, &owner) < 0 || ioctl(fd, PERF_EVENT_IOC_RESET, 0) < 0)
        goto out_close;
    s->fd = fd;
    if (ioctl(fd, PERF_EVENT_IOC_REFRESH, (int)mon_proc.events[ev].perf_refresh) < 0) {
        s->fd = -1;
        goto out_close;
    }
    return 0;

out_close:
    err = errno;
    if (s->ring != NULL)
        munmap(s->ring, ring_bytes());
    s->ring = NULL;
    close(fd);
    return -err;
}

/*
 * Close @ev's event on the calling thread.  With @account, its final count
 * goes into the thread's ledger: the count covered by sample records still
 * in the ring (their signal never reached the handler) is pending, the
 * count after the newest record the tail, and a perf counter's whole count,
 * scaled by its multiplexing, is what it measured (the task clock's is the
 * thread's CPU time, set by the caller).
 */
static void
perf_close(struct mon_thread *td, uint32_t ev, bool account)
{
    struct mon_perf_thread *s = &td->src[ev].perf;
    uint64_t v[3];

    if (s->fd < 0)
        return;
    ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
    /* The final enabled/running times, for the profile's multiplexing counters. */
    if (csp_sys_read(s->fd, v, sizeof(v)) == (ssize_t)sizeof(v) && account) {
        struct mon_ledger *l = &td->ledger[ev];
        uint64_t newest = mon_perf_drain(td, ev);

        s->enabled_ns = v[1];
        s->running_ns = v[2];
        l->pending += newest - s->last;
        l->tail += v[0] > newest ? v[0] - newest : 0;
        if (mon_proc.events[ev].src == &mon_source_perf)
            l->measured += v[2] > 0 && v[1] > v[2]
                               ? (uint64_t)((double)v[0] * (double)v[1] / (double)v[2])
                               : v[0];
    }
    if (s->ring != NULL)
        munmap(s->ring, ring_bytes());
    s->ring = NULL;
    close(s->fd);
    s->fd = -1;
}

static void
perf_stop(struct mon_thread *td, uint32_t ev)
{
    perf_close(td, ev, true);
}

static void
perf_forget(struct mon_thread *td, uint32_t ev)
{
    struct mon_perf_thread *s = &td->src[ev].perf;

    /* The ring is not mapped in a fork child (the kernel maps it VM_DONTCOPY): forget it.
     * The descriptor is the parent's open file: closing our copy leaves it running, an
     * ioctl would disable the parent's sampling. */
    s->ring = NULL;
    if (s->fd >= 0) {
        close(s->fd);
        s->fd = -1;
    }
}

/*
 * Descriptors left to the program: a perf event is not opened when the
 * lowest free descriptor (the one it got) is within 1/16 of the soft
 * RLIMIT_NOFILE (at least 16), so that sampling never makes the program's
 * own open(2) fail.  getrlimit(2) at each thread start: the program may
 * have raised or lowered its limit.
 */
static bool
fd_scarce(int fd)
{
    struct rlimit rl;
    rlim_t headroom;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return false;
    headroom = rl.rlim_cur / 16 < 16 ? 16 : rl.rlim_cur / 16;
    return (rlim_t)fd + headroom >= rl.rlim_cur;
}

/* The task clock on the calling thread, else (no descriptor to spare, or none left: EMFILE,
 * ENFILE) a POSIX timer on the thread's CPU-time clock.  0 or -errno. */
static int
task_clock_start(struct mon_thread *td, uint32_t ev)
{
    int rc = perf_start(td, ev);

    if (rc == 0 && fd_scarce(td->src[ev].perf.fd)) {
        /* (what the event counted in the meantime is no sample's and no tail's) */
        perf_close(td, ev, false);
        td->src[ev].perf.enabled_ns = td->src[ev].perf.running_ns = 0;
        rc = -EMFILE;
    }
    if (rc == 0) {
        td->src[ev].perf.armed_cpu_ns = mon_thread_cpu_ns(td->tid);
        return 0;
    }
    if (rc != -EMFILE && rc != -ENFILE)
        return rc;
    rc = mon_source_timer.thread_start(td, ev);
    if (rc == 0)
        td->src[ev].perf.timer_fallback = true;
    return rc;
}

static void
task_clock_stop(struct mon_thread *td, uint32_t ev)
{
    if (td->src[ev].perf.fd >= 0) {
        uint64_t now = mon_thread_cpu_ns(td->tid);

        perf_stop(td, ev);
        td->ledger[ev].measured +=
            now > td->src[ev].perf.armed_cpu_ns ? now - td->src[ev].perf.armed_cpu_ns : 0;
    }
    mon_source_timer.thread_stop(td, ev); /* the fallback timer's, if it has one */
}

static void
task_clock_forget(struct mon_thread *td, uint32_t ev)
{
    perf_forget(td, ev);
    mon_source_timer.thread_forget(td, ev);
}

const struct mon_source mon_source_task_clock = {
    .mechanism = "perf-task-clock",
    .thread_start = task_clock_start,
    .thread_stop = task_clock_stop,
    .thread_forget = task_clock_forget,
    .owns = mon_task_clock_owns,
    .charge = mon_task_clock_charge,
    .rearm = mon_perf_rearm, /* a fallback timer has no descriptor: nothing to re-arm */
    .ledger = mon_task_clock_ledger,
};

const struct mon_source mon_source_perf = {
    .mechanism = "perf-event",
    .thread_start = perf_start,
    .thread_stop = perf_stop,
    .thread_forget = perf_forget,
    .owns = mon_perf_owns,
    .charge = mon_perf_charge,
    .rearm = mon_perf_rearm,
    .ledger = mon_perf_ledger,
};
