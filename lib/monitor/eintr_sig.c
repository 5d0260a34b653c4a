/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eintr_sig.c -- the sampling signal never makes a sleeping call fail with
 * EINTR.
 *
 * poll, select, epoll_wait and nanosleep return EINTR when any handler
 * runs during them, SA_RESTART or not (signal(7)); a program that treats
 * EINTR as an error would fail under csprof, often with REALTIME sampling,
 * rarely with CPUTIME (a tick landing inside the system call).  With
 * CSPROF_EINTR_SAFE on (the default), these calls become their
 * mask-taking forms -- ppoll, pselect, epoll_pwait, ppoll without
 * descriptors -- with the thread's mask plus the sampling signal, set and
 * restored atomically by the kernel.  A sample that comes due during the
 * call is taken when it returns (its pc is the system call's return, its
 * value the clock time since the previous sample).  The program's own
 * signals interrupt these calls as before.  Linux semantics kept: select
 * writes back the time left, nanosleep fills *rem on EINTR.  One extra
 * system call per call (reading the mask).  Runs in signal context too
 * (these calls are async-signal-safe): raw system calls only.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_real.h"
#include "monitor/mon_sys.h"

int (*mon_real_poll)(struct pollfd *, nfds_t, int);
int (*mon_real_select)(int, fd_set *, fd_set *, fd_set *, struct timeval *);
int (*mon_real_epoll_wait)(int, struct epoll_event *, int, int);
int (*mon_real_nanosleep)(const struct timespec *, struct timespec *);

/* The calling thread's mask plus the sampling signal, in *mask.  Returns false when the
 * safe form cannot be used (csprof inactive, or the mask cannot be read). */
static bool
mask_with_sampling(sigset_t *mask)
{
    unsigned bit;

    if (!mon_proc.active || !mon_proc.eintr_safe)
        return false;
    if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, mask, (size_t)(_NSIG / 8)) < 0)
        return false;
    bit = (unsigned)mon_proc.signo - 1;
    mask->__val[bit / (8 * sizeof(unsigned long))] |= 1ul << (bit % (8 * sizeof(unsigned long)));
    return true;
}

static uint64_t
ts_ns(const struct timespec *t)
{
    return (uint64_t)t->tv_sec * 1000000000u + (uint64_t)t->tv_nsec;
}

static struct timespec
ns_ts(uint64_t ns)
{
    struct timespec t = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};

    return t;
}

/* Override of poll(2).  [async-signal-safe] */
CSP_EXPORT int
poll(struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
    sigset_t mask;
    struct timespec ts;

    if (!mask_with_sampling(&mask))
        return mon_real_poll(fds, nfds, timeout_ms);
    ts = ns_ts(timeout_ms > 0 ? (uint64_t)timeout_ms * 1000000u : 0);
    return mon_real_ppoll(fds, nfds, timeout_ms < 0 ? NULL : &ts, &mask);
}

/* Override of select(2); writes the time left back into *timeout, as Linux does.
 * [async-signal-safe] */
CSP_EXPORT int
select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout)
{
    sigset_t mask;
    struct timespec ts;
    uint64_t start = 0, want = 0;
    int rc, err;

    if (!mask_with_sampling(&mask))
        return mon_real_select(n, r, w, e, timeout);
    if (timeout != NULL) {
        if (timeout->tv_sec < 0 || timeout->tv_usec < 0 || timeout->tv_usec >= 1000000) {
            errno = EINVAL;
            return -1;
        }
        want = (uint64_t)timeout->tv_sec * 1000000000u + (uint64_t)timeout->tv_usec * 1000u;
        ts = ns_ts(want);
        start = mon_clock_ns(CLOCK_MONOTONIC);
    }
    rc = mon_real_pselect(n, r, w, e, timeout != NULL ? &ts : NULL, &mask);
    err = errno;
    if (timeout != NULL) {
        uint64_t spent = mon_clock_ns(CLOCK_MONOTONIC) - start;
        uint64_t left = rc == 0 || spent >= want ? 0 : want - spent;

        timeout->tv_sec = (time_t)(left / 1000000000u);
        timeout->tv_usec = (suseconds_t)(left % 1000000000u / 1000u);
    }
    errno = err;
    return rc;
}

/* Override of epoll_wait(2).  [async-signal-safe] */
CSP_EXPORT int
epoll_wait(int epfd, struct epoll_event *events, int maxevents, int timeout_ms)
{
    sigset_t mask;

    if (!mask_with_sampling(&mask))
        return mon_real_epoll_wait(epfd, events, maxevents, timeout_ms);
    return mon_real_epoll_pwait(epfd, events, maxevents, timeout_ms, &mask);
}

/* Override of nanosleep(2): a ppoll without descriptors; fills *rem on EINTR.
 * [async-signal-safe] */
CSP_EXPORT int
nanosleep(const struct timespec *req, struct timespec *rem)
{
    sigset_t mask;
    uint64_t start, want;
    int rc, err;

    if (!mask_with_sampling(&mask))
        return mon_real_nanosleep(req, rem);
    if (req->tv_sec < 0 || req->tv_nsec < 0 || req->tv_nsec >= 1000000000) {
        errno = EINVAL;
        return -1;
    }
    want = ts_ns(req);
    start = mon_clock_ns(CLOCK_MONOTONIC);
    rc = mon_real_ppoll(NULL, 0, req, &mask);
    err = errno;
    if (rc > 0)
        rc = 0;
    if (rc < 0 && err == EINTR && rem != NULL) {
        uint64_t spent = mon_clock_ns(CLOCK_MONOTONIC) - start;

        *rem = ns_ts(spent >= want ? 0 : want - spent);
    }
    errno = err;
    return rc < 0 ? -1 : 0;
}
