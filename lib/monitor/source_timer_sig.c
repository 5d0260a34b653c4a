/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_timer_sig.c -- the handler's side of the POSIX-timer source.
 *
 * Runs in signal context: reads siginfo, and a clock for a checkpoint's ledger.
 */
#include <signal.h>
#include <time.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_sys.h"

bool
mon_timer_owns(const struct mon_thread *td, uint32_t ev, const siginfo_t *si)
{
    CSP_UNUSED(td);
    return si->si_code == SI_TIMER && si->si_value.sival_int == (int)ev;
}

/* One period for the expiration signalled, and one for each expiration the kernel merged
 * into this signal (si_overrun: the CPU-time clock is checked at the scheduler tick, so a
 * period shorter than the tick merges several): all of them at the sampled context, the
 * code that ran when the clock reached them (a signal that expires in the kernel is
 * delivered on the way back to user mode, at the system call's calling context). */
void
mon_timer_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si, struct mon_charge *c)
{
    uint64_t merged = si->si_overrun > 0 ? (uint64_t)si->si_overrun : 0;

    c->user = (1 + merged) * mon_proc.events[ev].period;
    c->kernel = 0;
    td->timer_overruns += merged;
}

bool
mon_timer_armed(const struct mon_thread *td, uint32_t ev)
{
    return td->src[ev].timer.armed;
}

/* The span since the timer was armed: all of it measured, the part after its last
 * expiration the tail (timer_stop closes the span the same way). */
void
mon_timer_ledger(const struct mon_thread *td, uint32_t ev, struct mon_ledger *out)
{
    const struct mon_timer_thread *s = &td->src[ev].timer;
    const struct mon_event *e = &mon_proc.events[ev];

    if (s->armed) {
        uint64_t now = e->clock == CLOCK_THREAD_CPUTIME_ID ? mon_thread_cpu_ns(td->tid)
                                                           : mon_clock_ns(e->clock);
        uint64_t span = now > s->last ? now - s->last : 0;

        out->measured += span;
        out->tail += e->period > 0 ? span % e->period : 0;
    }
}
