/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_source_timer.h -- the POSIX-timer source's per-thread state and hooks
 * (mon_source.h's mon_source_timer; CPUTIME's task clock falls back to it).
 *
 * struct mon_timer_thread's fields are the timer source's: only
 * source_timer.c and source_timer_sig.c touch them (test/check_layering.sh).
 * Everyone else goes through mon_source.h's table or the functions below.
 */
#ifndef CSP_MON_SOURCE_TIMER_H
#define CSP_MON_SOURCE_TIMER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "support/compiler.h"

struct mon_thread;
struct mon_charge;
struct mon_ledger;

/* One event's timer on one thread (struct mon_source_thread). */
struct mon_timer_thread {
    timer_t timer;
    bool armed;    /* the timer exists and runs */
    uint64_t last; /* the event's clock when the timer was armed, ns */
};

/* Whether @ev's timer is armed on @td.  [async-signal-safe] */
CSP_SIGSAFE bool mon_timer_armed(const struct mon_thread *td, uint32_t ev);

/* The signal hooks (source_timer_sig.c; mon_source.h's struct mon_source).  [async-signal-safe] */
CSP_SIGSAFE bool mon_timer_owns(const struct mon_thread *td, uint32_t ev, const siginfo_t *si);
CSP_SIGSAFE void mon_timer_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si,
                                  struct mon_charge *c);
CSP_SIGSAFE void mon_timer_ledger(const struct mon_thread *td, uint32_t ev, struct mon_ledger *out);

#endif /* CSP_MON_SOURCE_TIMER_H */
