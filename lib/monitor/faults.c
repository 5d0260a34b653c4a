/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * faults.c -- csprof's handlers for faults and for the signals that end
 * the process (mon_signals.h), acting on the program's dispositions that
 * signals.c records and installs them over (mon_fault.h).
 *
 * mon_fault_handler (SIGSEGV/SIGBUS): a fault during a stack walk
 * (td->in_unwind) escapes the walk with siglongjmp; any other fault, or a
 * sent SIGSEGV/SIGBUS, gets what the program's disposition would have done.
 * mon_fatal_handler (a watched fatal signal): writes every profile,
 * restores SIG_DFL and dies of the signal (a fault with a kernel si_code
 * instead returns and faults again), so the wait status and the core dump
 * are the program's; or runs the handler the program installed meanwhile.
 *
 * Runs in signal context, but is not a *_sig.c file: the fatal path writes
 * the profiles through thread.c's mon_finalize_from_signal, outside the
 * signal-path files that e2e_monitor_exports holds to async-signal-safe
 * imports.  What stays unsafe in it: profile writing (write.c) and the
 * load-map lookups it makes take the load map's mutex, so a fatal signal
 * that interrupts a load-map update on its own thread would wait on it (the
 * registry lock is only tried, see monitor.c).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monitor/mon_fault.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_real.h"
#include "monitor/mon_signals.h"

bool
mon_disp_is_default(const struct sigaction *a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

/* Restore SIG_DFL for @sig for good (the process is about to die of it). */
static void
restore_default(int sig)
{
    struct sigaction dfl;

    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    mon_real_sigaction(sig, &dfl, NULL);
    mon_disp.owned[sig] = 0;
    mon_disp.watched[sig] = 0;
}

/*
 * Before running the program's handler @pa for @sig from csprof's: the mask
 * the kernel would have given it (the interrupted code's, its sa_mask, and
 * @sig itself unless SA_NODEFER), with the sampling signal open as csprof
 * keeps it everywhere -- not csprof's own handler's mask, which blocks it:
 * the program's handler is sampled, and a thread that ends inside it (an
 * _exit from a SIGSEGV handler) is not taken for one that blocked sampling.
 * The kernel restores the interrupted mask when the handler returns.
 */
static void
program_handler_mask(int sig, const struct sigaction *pa, const void *ucontext)
{
    sigset_t set;

    if (ucontext == NULL)
        return;
    set = ((const ucontext_t *)ucontext)->uc_sigmask;
    for (int s = 1; s < NSIG; s++)
        if (sigismember(&pa->sa_mask, s) == 1)
            sigaddset(&set, s);
    if (!(pa->sa_flags & SA_NODEFER))
        sigaddset(&set, sig);
    if (mon_proc.active)
        sigdelset(&set, mon_proc.signo);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &set, NULL, (size_t)(_NSIG / 8));
}

/* A fault the kernel raised for the instruction that runs: returning runs it again. */
static bool
recurs_on_return(int sig, const siginfo_t *info)
{
    return info->si_code > 0 && (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE);
}

/*
 * The process dies of @sig: write what was measured, then die as without
 * csprof -- SIG_DFL, and either return to the faulting instruction or
 * re-send the signal to this thread and open it.
 */
static void
die_of(int sig, const siginfo_t *info, const void *ucontext)
{
    sigset_t one;

    mon_finalize_from_signal(sig,
                             ucontext != NULL ? &((const ucontext_t *)ucontext)->uc_sigmask : NULL);
    restore_default(sig);
    if (recurs_on_return(sig, info))
        return;
    syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
    sigemptyset(&one);
    sigaddset(&one, sig);
    syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &one, NULL, (size_t)(_NSIG / 8));
}

void
mon_fatal_handler(int sig, siginfo_t *info, void *ucontext)
{
    int saved_errno = errno;
    struct sigaction *pa = &mon_disp.program_action[sig];

    if (mon_disp.watched[sig] == 2 || mon_disp_is_default(pa)) {
        die_of(sig, info, ucontext);
    } else if (!(pa->sa_flags & SA_SIGINFO) && pa->sa_handler == SIG_IGN) {
        /* Changed under our feet (a race with the program's sigaction): ignore it. */
    } else if (pa->sa_flags & SA_SIGINFO) {
        program_handler_mask(sig, pa, ucontext);
        pa->sa_sigaction(sig, info, ucontext);
    } else {
        program_handler_mask(sig, pa, ucontext);
        pa->sa_handler(sig);
    }
    errno = saved_errno;
}

/* Act as the program's disposition for @sig would have. */
static void
forward_fault(int sig, siginfo_t *info, void *ucontext)
{
    struct sigaction *pa = &mon_disp.program_action[sig];

    if (!(pa->sa_flags & SA_SIGINFO) && pa->sa_handler == SIG_DFL) {
        /* Default action: write the profiles, restore it, let the fault recur (or re-send
         * a sent signal). */
        die_of(sig, info, ucontext);
        return;
    }
    if (!(pa->sa_flags & SA_SIGINFO) && pa->sa_handler == SIG_IGN) {
        /* Ignored: a sent signal is dropped; a real fault recurs under SIG_DFL and kills,
         * as the kernel does for an ignored fault. */
        if (info->si_code > 0) {
            restore_default(sig);
            if (!recurs_on_return(sig, info))
                raise(sig);
        }
        return;
    }
    program_handler_mask(sig, pa, ucontext);
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
