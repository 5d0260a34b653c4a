/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sigmask.c -- a program that manages its signal mask with sigprocmask
 * while it is sampled, for test/integration/sigmask.sh.
 *
 * csprof overrides sigprocmask (libunwind's calls inside a stack walk skip
 * the system call); the program's own calls must behave exactly as
 * glibc's: blocking defers a signal, the old mask is reported, unblocking
 * delivers it, and a bad `how` fails with EINVAL.  The work between the
 * calls recurses, so samples land in deep stacks.  Output: counts that do
 * not depend on timing; exit status 0 when every check held.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static volatile sig_atomic_t delivered;
static volatile unsigned long sink;

static void
on_usr1(int sig)
{
    (void)sig;
    delivered++;
}

NOINLINE static unsigned long
dive(int depth, unsigned long x)
{
    for (int i = 0; i < 2000; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    if (depth > 0)
        x ^= dive(depth - 1, x) + 1; /* not a tail call */
    sink += x;
    return x;
}

int
main(int argc, char **argv)
{
    long rounds = argc > 1 ? atol(argv[1]) : 1500;
    long bad = 0;
    sigset_t usr1, old, pending;
    struct sigaction sa;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    for (long r = 0; r < rounds; r++) {
        if (sigprocmask(SIG_BLOCK, &usr1, &old) != 0 || sigismember(&old, SIGUSR1))
            bad++;
        raise(SIGUSR1);
        dive(200, (unsigned long)r);
        if (delivered != r) /* blocked: not yet */
            bad++;
        if (sigpending(&pending) != 0 || !sigismember(&pending, SIGUSR1))
            bad++;
        if (sigprocmask(SIG_SETMASK, NULL, &old) != 0 || !sigismember(&old, SIGUSR1))
            bad++;
        if (sigprocmask(SIG_UNBLOCK, &usr1, NULL) != 0) /* delivered here */
            bad++;
        if (delivered != r + 1)
            bad++;
    }
    errno = 0;
    if (sigprocmask(12345, &usr1, NULL) != -1 || errno != EINVAL)
        bad++;
    printf("rounds %ld delivered %ld bad %ld\n", rounds, (long)delivered, bad);
    return bad == 0 ? 0 : 1;
}
