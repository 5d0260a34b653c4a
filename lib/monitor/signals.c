/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * signals.c -- keep the monitor's signals working while the program runs:
 * the record of the program's dispositions and csprof's handlers installed
 * over them.  The fault and fatal-signal handlers themselves, which act on
 * that record in signal context, are faults.c's; the sampling handler is
 * sample_sig.c's.
 *
 * csprof owns three dispositions: the sampling signal, and SIGSEGV/SIGBUS,
 * whose handler catches a fault during a stack walk and otherwise behaves
 * exactly as the program asked.  The program's sigaction()/signal() calls
 * for those signals are recorded instead of installed, and answered with
 * what the program last set, so it sees the behaviour it expects.
 *
 * Signals whose default action ends the process (abort, SIGTERM from
 * timeout(1), Ctrl-C, SIGPIPE...) are watched while the program leaves
 * them at SIG_DFL: csprof's handler (faults.c) writes every profile,
 * restores SIG_DFL and re-raises the signal.  The program's requests for
 * these signals are recorded too; a handler or SIG_IGN it asks for is
 * installed for real, SIG_DFL puts csprof's handler back.  Inherited
 * SIG_IGN is left alone.
 *
 * Runs in ordinary context (the constructor, the sigaction() override).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "monitor/mon_fault.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_real.h"
#include "monitor/mon_signals.h"

/* Signals the kernel raises for the instruction that runs: never blocked in the sampling handler. */
static const int mon_sync_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};

/* Signals whose default action terminates the process (signal(7)), SIGSEGV/SIGBUS aside. */
static const int mon_fatal_signals[] = {
    SIGHUP,  SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT,   SIGFPE,  SIGUSR1, SIGUSR2, SIGPIPE,
    SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGPOLL, SIGPWR,  SIGSYS};

struct mon_dispositions mon_disp;

/* csprof's handler for a watched fatal signal. */
static int
install_fatal_handler(int sig)
{
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = mon_fatal_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    /* Nothing asynchronous interrupts the flush; the faults stay open (a blocked fault
     * kills the process). */
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(mon_sync_signals) / sizeof(mon_sync_signals[0]); i++)
        sigdelset(&sa.sa_mask, mon_sync_signals[i]);
    return mon_real_sigaction(sig, &sa, NULL);
}

/* Watch every fatal signal the program (or its parent, across exec) left at SIG_DFL. */
static void
watch_fatal_signals(void)
{
    for (size_t i = 0; i < sizeof(mon_fatal_signals) / sizeof(mon_fatal_signals[0]); i++) {
        int sig = mon_fatal_signals[i];

        if (sig == mon_proc.signo ||
            mon_real_sigaction(sig, NULL, &mon_disp.program_action[sig]) < 0)
            continue;
        mon_disp.watched[sig] = 1;
        if (mon_disp_is_default(&mon_disp.program_action[sig]) && install_fatal_handler(sig) == 0)
            mon_disp.watched[sig] = 2;
    }
}

int
mon_signals_install(void)
{
    struct sigaction sa;
    int sigs[] = {SIGSEGV, SIGBUS};

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = mon_sample_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    /* Every asynchronous signal waits while a sample is taken, so libunwind's own blocking
     * of signals around its locks needs no system call (see sigmask_sig.c).  Synchronous
     * fault signals stay open: a blocked fault kills the process. */
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(mon_sync_signals) / sizeof(mon_sync_signals[0]); i++)
        sigdelset(&sa.sa_mask, mon_sync_signals[i]);
    if (mon_real_sigaction(mon_proc.signo, &sa, &mon_disp.program_action[mon_proc.signo]) < 0)
        return -errno;
    mon_disp.owned[mon_proc.signo] = 1;

    sa.sa_sigaction = mon_fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        if (mon_real_sigaction(sigs[i], &sa, &mon_disp.program_action[sigs[i]]) < 0)
            return -errno;
        mon_disp.owned[sigs[i]] = 1;
    }
    watch_fatal_signals();
    return 0;
}

/*
 * Called by the sigaction() override.  Returns 1 if the signal is owned by
 * csprof and the request was recorded (0 or -1 in *rc), 0 to let the real
 * sigaction handle it.  [not async-signal-safe]
 */
int
mon_signals_intercept(int sig, const struct sigaction *act, struct sigaction *old, int *rc)
{
    if (sig <= 0 || sig >= NSIG || (!mon_disp.owned[sig] && !mon_disp.watched[sig]))
        return 0;
    if (mon_disp.watched[sig] == 1 && (mon_disp.program_action[sig].sa_flags & SA_RESETHAND)) {
        /* The kernel may have reset the program's one-shot handler to SIG_DFL. */
        struct sigaction now;

        if (mon_real_sigaction(sig, NULL, &now) == 0 && mon_disp_is_default(&now)) {
            memset(&mon_disp.program_action[sig], 0, sizeof(mon_disp.program_action[sig]));
            if (install_fatal_handler(sig) == 0)
                mon_disp.watched[sig] = 2;
        }
    }
    if (mon_disp.watched[sig] && act != NULL) {
        /* Install what the program asked for, or csprof's handler in place of SIG_DFL. */
        if (mon_disp_is_default(act)) {
            if (install_fatal_handler(sig) < 0) {
                *rc = -1;
                return 1;
            }
            mon_disp.watched[sig] = 2;
        } else {
            struct sigaction open = *act;

            sigdelset(&open.sa_mask, mon_proc.signo);
            if (mon_real_sigaction(sig, &open, NULL) < 0) {
                *rc = -1;
                return 1;
            }
            mon_disp.watched[sig] = 1;
        }
    }
    if (old != NULL)
        *old = mon_disp.program_action[sig];
    if (act != NULL)
        mon_disp.program_action[sig] = *act;
    *rc = 0;
    return 1;
}
