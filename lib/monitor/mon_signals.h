/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_signals.h -- csprof's signal handlers and the program's signal masks:
 * the sampling handler (sample_sig.c), the fatal-signal and fault handlers
 * (faults.c) and their installation over the program's own dispositions
 * (signals.c), and the masks that never block the sampling signal
 * (sigmask_sig.c).
 */
#ifndef CSP_MON_SIGNALS_H
#define CSP_MON_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

#include "support/compiler.h"

/* si_value of a sampling signal sent by pthread_cancel: "take your trampoline out". */
#define MON_SIGVAL_TRAMPOLINE_OFF (-2)

/* The sampling handler (sample_sig.c).  [async-signal-safe] */
CSP_SIGSAFE void mon_sample_handler(int sig, siginfo_t *info, void *ucontext);

/* Handler of the fatal signals csprof watches: writes the profiles, then dies of @sig
 * as the program would have (faults.c).  [async-signal-safe, see mon_finalize_from_signal] */
void mon_fatal_handler(int sig, siginfo_t *info, void *ucontext);

/* SIGSEGV/SIGBUS filter: escapes a faulting walk, forwards everything else to the program's
 * disposition (faults.c). */
CSP_SIGSAFE void mon_fault_handler(int sig, siginfo_t *info, void *ucontext);

/* Signal protection (signals.c): install csprof's handlers.  Returns 0 or -errno. */
int mon_signals_install(void);
/*
 * For the sigaction() override: if csprof owns @sig, record the program's
 * request instead of installing it, answer *old with the program's last
 * request, set *rc to 0 and return 1; otherwise return 0.  [not async-signal-safe]
 */
int mon_signals_intercept(int sig, const struct sigaction *act, struct sigaction *old, int *rc);

/*
 * Signal masks (sigmask_sig.c): the program never blocks the sampling signal.
 * (The real functions whose mask argument is filtered: mon_real.h.)
 */
/* Copy @in to @out without the sampling signal.  [async-signal-safe] */
CSP_SIGSAFE void mon_mask_filter(const sigset_t *in, sigset_t *out);
/* Whether the program, on this thread, asked for the sampling signal to be blocked (what a
 * mask query answers).  [async-signal-safe] */
CSP_SIGSAFE bool mon_mask_program_blocks(void);
/* Record that the program, on this thread, asked for the sampling signal blocked or not
 * (a new thread inherits its creator's).  [async-signal-safe] */
CSP_SIGSAFE void mon_mask_set_program_blocks(bool blocked);
/* Open the sampling signal in this thread's real mask.  Returns 0 or -errno.  [async-signal-safe] */
CSP_SIGSAFE int mon_mask_unblock_sampling(void);
/* Whether this thread's real mask blocks the sampling signal now.  [async-signal-safe] */
CSP_SIGSAFE bool mon_mask_sampling_blocked(void);

#endif /* CSP_MON_SIGNALS_H */
