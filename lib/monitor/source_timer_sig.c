/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_timer_sig.c -- the handler's side of the POSIX-timer source.
 *
 * Runs in signal context: reads siginfo and clock_gettime(2) only.
 */
#include <signal.h>

#include "monitor/mon_internal.h"

bool
mon_timer_owns(const struct mon_thread *td, uint32_t ev, const siginfo_t *si)
{
    CSP_UNUSED(td);
    return si->si_code == SI_TIMER && si->si_value.sival_int == (int)ev;
}

/* The event's clock since the previous charged sample: expirations merged into this signal
 * (si_overrun) and samples dropped since are charged here, not lost. */
uint64_t
mon_timer_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si)
{
    struct mon_source_thread *s = &td->src[ev];
    uint64_t now = mon_clock_ns(mon_proc.events[ev].clock);
    uint64_t value = now > s->last ? now - s->last : 0;

    s->last = now;
    if (si->si_overrun > 0)
        td->timer_overruns += (uint64_t)si->si_overrun;
    return value;
}
