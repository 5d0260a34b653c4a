/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_timer.c -- the POSIX-timer sample source: timer_create(2) with
 * SIGEV_THREAD_ID on the event's clock (the thread's CPU-time clock for
 * CPUTIME, CLOCK_MONOTONIC for REALTIME), the event's index in si_value.
 * Ordinary context: thread start and end; the handler's side is
 * source_timer_sig.c.  The per-thread state, struct mon_timer_thread
 * (mon_source_timer.h), is touched only in these two files.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_sys.h"

static int
timer_start(struct mon_thread *td, uint32_t ev)
{
    const struct mon_event *e = &mon_proc.events[ev];
    struct mon_timer_thread *s = &td->src[ev].timer;
    struct sigevent sev;
    struct itimerspec its;

    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = mon_proc.signo;
    sev.sigev_value.sival_int = (int)ev;
    sev._sigev_un._tid = td->tid;
    if (timer_create(e->clock, &sev, &s->timer) < 0)
        return -errno;
    s->armed = true;
    s->last = mon_clock_ns(e->clock); /* the expirations are at last + k * period */
    its.it_interval.tv_sec = (time_t)(e->period / 1000000000u);
    its.it_interval.tv_nsec = (long)(e->period % 1000000000u);
    its.it_value = its.it_interval;
    if (timer_settime(s->timer, 0, &its, NULL) < 0) {
        int err = errno;

        timer_delete(s->timer);
        s->armed = false;
        return -err;
    }
    return 0;
}

static void
timer_stop(struct mon_thread *td, uint32_t ev)
{
    struct mon_timer_thread *s = &td->src[ev].timer;

    if (s->armed) {
        const struct mon_event *e = &mon_proc.events[ev];
        /* (a thread's CPU clock by its id: the finaliser stops other threads' timers too) */
        uint64_t now = e->clock == CLOCK_THREAD_CPUTIME_ID ? mon_thread_cpu_ns(td->tid)
                                                           : mon_clock_ns(e->clock);
        uint64_t span = now > s->last ? now - s->last : 0;

        timer_delete(s->timer);
        s->armed = false;
        /* What the clock ran while armed; the part after its last expiration belongs to no
         * period.  The expirations before it were signalled (charged, recorded or dropped)
         * unless the signal was blocked or lost: the ledger's remainder. */
        td->ledger[ev].measured += span;
        td->ledger[ev].tail += span % e->period;
    }
}

static void
timer_forget(struct mon_thread *td, uint32_t ev)
{
    td->src[ev].timer.armed = false; /* timers are not inherited by a fork child */
}

const struct mon_source mon_source_timer = {
    .mechanism = "posix-timer",
    .thread_start = timer_start,
    .thread_stop = timer_stop,
    .thread_forget = timer_forget,
    .owns = mon_timer_owns,
    .charge = mon_timer_charge,
    .rearm = NULL, /* periodic: the kernel re-arms */
    .ledger = mon_timer_ledger,
};
