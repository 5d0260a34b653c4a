/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_fault.h -- the program's dispositions for the signals csprof owns or
 * watches: recorded and installed over by signals.c (ordinary context),
 * acted on by the fault and fatal-signal handlers of faults.c (signal
 * context).  Only those two files include it.
 */
#ifndef CSP_MON_FAULT_H
#define CSP_MON_FAULT_H

#include <signal.h>
#include <stdbool.h>

#include "support/compiler.h"

struct mon_dispositions {
    /* Dispositions the program asked for, for the signals csprof owns or watches. */
    struct sigaction program_action[NSIG];
    volatile sig_atomic_t owned[NSIG];
    /* 1: a fatal signal csprof watches (its requests are recorded); 2: csprof's handler is
     * installed now (the program's disposition is SIG_DFL). */
    volatile sig_atomic_t watched[NSIG];
};
extern struct mon_dispositions mon_disp; /* (signals.c) */

/* Whether @a is SIG_DFL.  [async-signal-safe] */
CSP_SIGSAFE bool mon_disp_is_default(const struct sigaction *a);

#endif /* CSP_MON_FAULT_H */
