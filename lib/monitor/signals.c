/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * signals.c -- keep the monitor's signals working while the program runs.
 *
 * csprof owns three dispositions: the sampling signal, and SIGSEGV/SIGBUS,
 * whose handler catches a fault during a stack walk and otherwise behaves
 * exactly as the program asked.  The program's sigaction()/signal() calls
 * for those signals are recorded instead of installed, and answered with
 * what the program last set, so it sees the behaviour it expects.
 *
 * Signals whose default action ends the process (abort, SIGTERM from
 * timeout(1), Ctrl-C, SIGPIPE...) are watched while the program leaves
 * them at SIG_DFL: csprof's handler writes every profile, restores SIG_DFL
 * and re-raises the signal (a fault with a kernel si_code instead returns
 * and faults again), so the wait status and the core dump are the
 * program's.  The program's requests for these signals are recorded too; a
 * handler or SIG_IGN it asks for is installed for real, SIG_DFL puts
 * csprof's handler back.  Inherited SIG_IGN is left alone.
 *
 * mon_fault_handler and mon_fatal_handler run in signal context; the rest
 * runs in overrides.  What stays unsafe in the fatal path: profile writing
 * (write.c) and the load-map lookups it makes take the load map's mutex,
 * so a fatal signal that interrupts a load-map update on its own thread
 * would wait on it (the registry lock is only tried, see monitor.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_real.h"
#include "monitor/mon_signals.h"

/* Signals the kernel raises for the instruction that runs: never blocked in the sampling handler. */
static const int mon_sync_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS};

/* Signals whose default action terminates the process (signal(7)), SIGSEGV/SIGBUS aside. */
static const int mon_fatal_signals[] = {
    SIGHUP,  SIGINT,  SIGQUIT,   SIGILL,  SIGTRAP, SIGABRT,   SIGFPE,  SIGUSR1, SIGUSR2, SIGPIPE,
    SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGPOLL, SIGPWR,  SIGSYS};

/* Dispositions the program asked for, for the signals csprof owns or watches. */
static struct sigaction program_action[NSIG];
static volatile sig_atomic_t owned[NSIG];
/* 1: a fatal signal csprof watches (its requests are recorded); 2: csprof's handler is
 * installed now (the program's disposition is SIG_DFL). */
static volatile sig_atomic_t watched[NSIG];

static bool
is_default(const struct sigaction *a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

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

        if (sig == mon_proc.signo || mon_real_sigaction(sig, NULL, &program_action[sig]) < 0)
            continue;
        watched[sig] = 1;
        if (is_default(&program_action[sig]) && install_fatal_handler(sig) == 0)
            watched[sig] = 2;
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
    if (sig <= 0 || sig >= NSIG || (!owned[sig] && !watched[sig]))
        return 0;
    if (watched[sig] == 1 && (program_action[sig].sa_flags & SA_RESETHAND)) {
        /* The kernel may have reset the program's one-shot handler to SIG_DFL. */
        struct sigaction now;

        if (mon_real_sigaction(sig, NULL, &now) == 0 && is_default(&now)) {
            memset(&program_action[sig], 0, sizeof(program_action[sig]));
            if (install_fatal_handler(sig) == 0)
                watched[sig] = 2;
        }
    }
    if (watched[sig] && act != NULL) {
        /* Install what the program asked for, or csprof's handler in place of SIG_DFL. */
        if (is_default(act)) {
            if (install_fatal_handler(sig) < 0) {
                *rc = -1;
                return 1;
            }
            watched[sig] = 2;
        } else {
            struct sigaction open = *act;

            sigdelset(&open.sa_mask, mon_proc.signo);
            if (mon_real_sigaction(sig, &open, NULL) < 0) {
                *rc = -1;
                return 1;
            }
            watched[sig] = 1;
        }
    }
    if (old != NULL)
        *old = program_action[sig];
    if (act != NULL)
        program_action[sig] = *act;
    *rc = 0;
    return 1;
}

/* Restore SIG_DFL for @sig for good (the process is about to die of it). */
static void
restore_default(int sig)
{
    struct sigaction dfl;

    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    mon_real_sigaction(sig, &dfl, NULL);
    owned[sig] = 0;
    watched[sig] = 0;
}

/* A fault the kernel raised for the instruction that runs: returning runs it again. */
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
    struct sigaction *pa = &program_action[sig];

    if (watched[sig] == 2 || is_default(pa)) {
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
    struct sigaction *pa = &program_action[sig];

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
