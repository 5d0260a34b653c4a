/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_timer_sig.c -- the handler's side of the POSIX-timer source.
 *
 * Runs in signal context: reads siginfo only.
 */
#include <signal.h>

#include "monitor/mon_internal.h"

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
