/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sigmask_sig.c -- sigprocmask without a system call while a sample walks
 * the stack.
 *
 * libunwind (built with --enable-block-signals, as Debian's is) blocks every
 * signal around each lock it takes: a sigprocmask pair per frame on a cache
 * lookup, and around each dl_iterate_phdr.  On a deep stack that is
 * hundreds of system calls per sample.  The sampling handler already runs
 * with every asynchronous signal blocked (its sa_mask, signals.c), so
 * inside the walk these calls change nothing and are answered here without
 * entering the kernel.  The synchronous fault signals stay deliverable;
 * mon_fault_handler knows, from unw_masked, when libunwind believes they
 * are blocked and then lets a fault be fatal, as it would have been.
 * Outside a walk the call is glibc's, unchanged (sigprocmask(2) is
 * pthread_sigmask with errno).  Runs in signal context.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include "monitor/mon_internal.h"

/*
 * Override of sigprocmask(2).  Inside the calling thread's stack walk:
 * returns 0 at once; a call that asks for the old mask opens a blocking
 * section (reported mask: all signals), one that does not closes it.
 * Otherwise: pthread_sigmask(3), returning -1 with errno on failure.
 * [async-signal-safe]
 */
CSP_EXPORT int
sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
    struct mon_thread *td = mon_thread_self();
    int rc;

    if (td != NULL && td->in_unwind) {
        if (old != NULL) {
            sigfillset(old);
            td->unw_masked++;
        } else if (td->unw_masked > 0) {
            td->unw_masked--;
        }
        return 0;
    }
    rc = pthread_sigmask(how, set, old);
    if (rc == 0)
        return 0;
    errno = rc;
    return -1;
}
