/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sigmask_sig.c -- the program's signal masks never block the sampling
 * signal.
 *
 * A program may block every signal -- xz's worker threads do, by creating
 * them under a full mask -- and a thread whose mask holds the sampling
 * signal is never sampled.  Every way the program sets a mask goes through
 * here: sigprocmask, pthread_sigmask, and the temporary masks of
 * sigsuspend, pselect, ppoll and epoll_pwait.  The sampling signal is taken
 * out of the mask actually installed and remembered per thread, so a later
 * query still answers "blocked" as the program expects (a per-thread view:
 * what the program asked for, not what the kernel holds).  Threads start
 * with the signal open (overrides.c), whatever mask they inherited.  What
 * stays out of reach: masks set by raw system calls, by glibc internally
 * (around posix_spawn, for instance: short), and a program handler's
 * sa_mask while it runs (filtered in signals.c for csprof-owned signals
 * only).  The summary reports threads that got no samples for their CPU
 * time.
 *
 * Inside a stack walk (the sampling handler), libunwind (built with
 * --enable-block-signals, as Debian's is) blocks every signal around each
 * lock it takes: a sigprocmask pair per frame on a cache lookup, and
 * around each dl_iterate_phdr.  The sampling handler already runs with
 * every asynchronous signal blocked (its sa_mask, signals.c), so inside the
 * walk these calls change nothing and are answered here without entering
 * the kernel.  The synchronous fault signals stay deliverable;
 * mon_fault_handler knows, from unw_masked, when libunwind believes they
 * are blocked and then lets a fault be fatal, as it would have been.
 *
 * Runs in signal context (these calls are async-signal-safe): raw
 * rt_sigprocmask(2) only, no locks.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_real.h"
#include "monitor/mon_signals.h"

/* glibc's internal signals (SIGCANCEL, SIGSETXID): pthread_sigmask never blocks them. */
#define MON_GLIBC_SIGCANCEL 32
#define MON_GLIBC_SIGSETXID 33

/* Bit operations on glibc's sigset_t (an array of unsigned long, signal s at bit s-1), kept
 * here so that this file imports nothing but raw system calls. */
#define MON_SET_WORD_BITS (8 * sizeof(unsigned long))

static bool
set_has(const sigset_t *set, int sig)
{
    unsigned bit = (unsigned)sig - 1;

    return (set->__val[bit / MON_SET_WORD_BITS] >> (bit % MON_SET_WORD_BITS)) & 1ul;
}

static void
set_put(sigset_t *set, int sig, bool on)
{
    unsigned bit = (unsigned)sig - 1;
    unsigned long mask = 1ul << (bit % MON_SET_WORD_BITS);

    if (on)
        set->__val[bit / MON_SET_WORD_BITS] |= mask;
    else
        set->__val[bit / MON_SET_WORD_BITS] &= ~mask;
}

/* The program asked for the sampling signal to be blocked on this thread. */
static CSP_TLS volatile sig_atomic_t program_blocks_sampling;

int (*mon_real_sigsuspend)(const sigset_t *);
int (*mon_real_pselect)(int, fd_set *, fd_set *, fd_set *, const struct timespec *,
                        const sigset_t *);
int (*mon_real_ppoll)(struct pollfd *, nfds_t, const struct timespec *, const sigset_t *);
int (*mon_real_epoll_pwait)(int, struct epoll_event *, int, int, const sigset_t *);

bool
mon_mask_program_blocks(void)
{
    return program_blocks_sampling != 0;
}

void
mon_mask_set_program_blocks(bool blocked)
{
    program_blocks_sampling = blocked;
}

void
mon_mask_filter(const sigset_t *in, sigset_t *out)
{
    *out = *in;
    if (mon_proc.active)
        set_put(out, mon_proc.signo, false);
}

int
mon_mask_unblock_sampling(void)
{
    sigset_t set = {0};

    set_put(&set, mon_proc.signo, true);
    if (syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, (size_t)(_NSIG / 8)) < 0)
        return -errno;
    return 0;
}

bool
mon_mask_sampling_blocked(void)
{
    sigset_t cur;

    if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &cur, (size_t)(_NSIG / 8)) < 0)
        return false;
    return set_has(&cur, mon_proc.signo);
}

/*
 * pthread_sigmask(3) with the sampling signal kept open: returns 0 or an
 * errno value, like glibc's (which also never blocks its internal signals).
 */
static int
set_mask(int how, const sigset_t *set, sigset_t *old)
{
    sigset_t filtered;
    const sigset_t *use = set;
    bool was_blocked = program_blocks_sampling != 0;
    bool now_blocked = was_blocked;

    if (set != NULL) {
        if (how != SIG_BLOCK && how != SIG_UNBLOCK && how != SIG_SETMASK)
            return EINVAL;
        filtered = *set;
        if (how != SIG_UNBLOCK) {
            set_put(&filtered, MON_GLIBC_SIGCANCEL, false);
            set_put(&filtered, MON_GLIBC_SIGSETXID, false);
        }
        if (mon_proc.active) {
            bool member = set_has(set, mon_proc.signo);

            if (how == SIG_SETMASK)
                now_blocked = member;
            else if (member)
                now_blocked = how == SIG_BLOCK;
            set_put(&filtered, mon_proc.signo, false);
        }
        use = &filtered;
    }
    if (syscall(SYS_rt_sigprocmask, how, use, old, (size_t)(_NSIG / 8)) < 0)
        return errno;
    if (old != NULL && mon_proc.active) {
        set_put(old, mon_proc.signo, was_blocked);
    }
    program_blocks_sampling = now_blocked;
    return 0;
}

/*
 * Override of sigprocmask(2).  Inside the calling thread's stack walk:
 * returns 0 at once; a call that asks for the old mask opens a blocking
 * section (reported mask: all signals), one that does not closes it.
 * Otherwise: set_mask, returning -1 with errno on failure.
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
    rc = set_mask(how, set, old);
    if (rc == 0)
        return 0;
    errno = rc;
    return -1;
}

/* Override of pthread_sigmask(3): the sampling signal stays open.  [async-signal-safe] */
CSP_EXPORT int
pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
    struct mon_thread *td = mon_thread_self();

    if (td != NULL && td->in_unwind)
        return sigprocmask(how, set, old) < 0 ? errno : 0;
    return set_mask(how, set, old);
}

/* Override of sigsuspend(2): waits with the sampling signal open.  [async-signal-safe] */
CSP_EXPORT int
sigsuspend(const sigset_t *mask)
{
    sigset_t filtered;

    if (mon_real_sigsuspend == NULL) {
        errno = ENOSYS;
        return -1;
    }
    mon_mask_filter(mask, &filtered);
    return mon_real_sigsuspend(&filtered);
}

/* Override of pselect(2): its mask keeps the sampling signal open.  [async-signal-safe] */
CSP_EXPORT int
pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *timeout,
        const sigset_t *mask)
{
    sigset_t filtered;

    if (mon_real_pselect == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (mask == NULL)
        return mon_real_pselect(n, r, w, e, timeout, NULL);
    mon_mask_filter(mask, &filtered);
    return mon_real_pselect(n, r, w, e, timeout, &filtered);
}

/* Override of ppoll(2): its mask keeps the sampling signal open.  [async-signal-safe] */
CSP_EXPORT int
ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *mask)
{
    sigset_t filtered;

    if (mon_real_ppoll == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (mask == NULL)
        return mon_real_ppoll(fds, nfds, timeout, NULL);
    mon_mask_filter(mask, &filtered);
    return mon_real_ppoll(fds, nfds, timeout, &filtered);
}

/* Override of epoll_pwait(2): its mask keeps the sampling signal open.  [async-signal-safe] */
CSP_EXPORT int
epoll_pwait(int epfd, struct epoll_event *events, int maxevents, int timeout, const sigset_t *mask)
{
    sigset_t filtered;

    if (mon_real_epoll_pwait == NULL) {
        errno = ENOSYS;
        return -1;
    }
    if (mask == NULL)
        return mon_real_epoll_pwait(epfd, events, maxevents, timeout, NULL);
    mon_mask_filter(mask, &filtered);
    return mon_real_epoll_pwait(epfd, events, maxevents, timeout, &filtered);
}
