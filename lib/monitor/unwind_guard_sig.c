/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unwind_guard_sig.c -- keeps libunwind's memory validation off the program's descriptors.
 *
 * libunwind 1.6 (Debian 12) validates each address it reads during a walk by writing one byte
 * from it into a pipe it opened once and reading it back (src/x86_64/Ginit.c, write_validate),
 * by descriptor number.  A program that closes its descriptors and reuses the numbers -- a
 * daemon, a launcher setting up a child (MPICH's hydra proxy after fork) -- made it reopen that
 * pipe on the lowest free numbers, 0 and 1, so the program's next open() got 2 instead of 0;
 * once the program dup2'd its own pipes there, libunwind read the program's blocking pipe (a
 * hang: stress.sh r27, csrun mpirun.mpich at CPUTIME@200 on a shared CPU) and wrote bytes of
 * the stack into the program's output.
 *
 * While a walk runs on a thread (td->in_unwind), csprof answers both calls itself: the read
 * (src_io.c's read override) with EAGAIN, "nothing to drain", so libunwind never reopens its
 * pipe, and the write, syscall(SYS_write, fd, addr, 1) here, by reading the byte at addr with
 * process_vm_readv on the process itself: 1 when it is readable, -1 (EFAULT) when not, which
 * is the answer libunwind's pipe gives, with no descriptor at all.  Every other syscall(2) is
 * passed to the kernel unchanged.
 *
 * The pipe itself: libunwind opens it with pipe2() when it initializes (mon_unwind_init, in the
 * constructor) and again in a walk, and took the program's lowest free numbers (the program's
 * first open() got 5 instead of 3).  pipe2() called then gets its two descriptors moved high
 * (mon_fd_high), as csprof's own are.  [async-signal-safe]
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_sys.h"

/* The validation write's answer: 1 when the byte at @addr can be read, else -1 (errno EFAULT). */
static long
validate_byte(const void *addr)
{
    char byte;
    struct iovec local = {&byte, 1}, remote = {(void *)(uintptr_t)addr, 1};
    long r = mon_raw_syscall(SYS_process_vm_readv, mon_raw_syscall(SYS_getpid, 0, 0, 0, 0, 0, 0),
                             (long)&local, 1, (long)&remote, 1, 0);

    if (r == 1)
        return 1;
    errno = EFAULT;
    return -1;
}

CSP_EXPORT long
syscall(long nr, ...)
{
    struct mon_thread *td = mon_thread_self();
    long a[6], r;
    va_list ap;

    /* (six argument words, as the C library's syscall(2) passes: the kernel reads those the
     * call has) */
    va_start(ap, nr);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (nr == SYS_write && a[2] == 1 && td != NULL && td->in_unwind)
        return validate_byte((const void *)a[1]);
    r = mon_raw_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (r < 0 && r > -4096) {
        errno = (int)-r;
        return -1;
    }
    return r;
}

/* Set while mon_unwind_init runs: libunwind's pipe2() calls then are its own. */
static volatile sig_atomic_t uw_initializing;

void
mon_unwind_init(void)
{
    uw_initializing = 1;
    uw_init();
    uw_initializing = 0;
}

CSP_EXPORT int
pipe2(int fds[2], int flags)
{
    struct mon_thread *td;
    long r = mon_raw_syscall(SYS_pipe2, (long)fds, flags, 0, 0, 0, 0);

    if (r < 0) {
        errno = (int)-r;
        return -1;
    }
    td = mon_thread_self();
    if (uw_initializing || (td != NULL && td->in_unwind)) {
        fds[0] = mon_fd_high(fds[0], true);
        fds[1] = mon_fd_high(fds[1], true);
    }
    return 0;
}
