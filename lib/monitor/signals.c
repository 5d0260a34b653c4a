/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * signals.c -- keep the monitor's signals working while the program runs.
 *
 * csprof owns three dispositions: the sampling signal, and SIGSEGV/SIGBUS,
 * whose handler catches a fault during a stack walk and otherwise behaves
 * exactly as the program asked.  The program's sigaction()/signal() calls
 * for those signals are recorded instead of installed, and answered with
 * what the program last set, so it sees the behaviour it expects.
 * mon_fault_handler runs in signal context; the rest runs in overrides.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "monitor/mon_internal.h"

/* Signals the kernel raises for the instruction that runs: never blocked in the sampling handler. */
static const int mon_sync_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};

/* Dispositions the program asked for, for the signals csprof owns. */
static struct sigaction program_action[NSIG];
static volatile sig_atomic_t owned[NSIG];

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
    if (mon_real_sigaction(mon_proc.signo, &sa, &program_action[mon_proc.signo]) < 0)
        return -errno;
    owned[mon_proc.signo] = 1;

    sa.sa_sigaction = mon_fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        if (mon_real_sigaction(sigs[i], &sa, &program_action[sigs[i]]) < 0)
            return -errno;
        owned[sigs[i]] = 1;
    }
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
    if (sig <= 0 || sig >= NSIG || !owned[sig])
        return 0;
    if (old != NULL)
        *old = program_action[sig];
    if (act != NULL)
        program_action[sig] = *act;
    *rc = 0;
    return 1;
}

/* Act as the program's disposition for @sig would have. */
static void
forward_fault(int sig, siginfo_t *info, void *ucontext)
{
    struct sigaction *pa = &program_action[sig];

    if (!(pa->sa_flags & SA_SIGINFO) && (pa->sa_handler == SIG_DFL || pa->sa_handler == SIG_IGN)) {
        /* Default action: restore it and let the fault recur (or re-send a sent signal). */
        struct sigaction dfl;

        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        mon_real_sigaction(sig, &dfl, NULL);
        owned[sig] = 0;
        if (info->si_code <= 0)
            raise(sig);
        return;
    }
    if (pa->sa_flags & SA_SIGINFO)
        pa->sa_sigaction(sig, info, ucontext);
    else
        pa->sa_handler(sig);
    if (pa->sa_flags & SA_RESETHAND)
        memset(pa, 0, sizeof(*pa)); /* SIG_DFL from now on */
}

void
mon_fault_handler(int sig, siginfo_t *info, void *ucontext)
{
    struct mon_thread *td = mon_thread_self();

    if (td != NULL && td->in_unwind) {
        if (td->unw_masked > 0) {
            /* libunwind holds a lock here, with every signal blocked as far as it knows:
             * escaping would leave the lock held.  A blocked fault is fatal (the kernel
             * restores the default action), so let it be, as without csprof's fast path. */
            struct sigaction dfl;

            memset(&dfl, 0, sizeof(dfl));
            dfl.sa_handler = SIG_DFL;
            mon_real_sigaction(sig, &dfl, NULL);
            return;
        }
        td->in_unwind = 0;
        mon_real_siglongjmp(td->unwind_escape, 1);
    }
    forward_fault(sig, info, ucontext);
}
