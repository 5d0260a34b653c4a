/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_longjmp.c -- non-local exits out of deep, sampled recursion, for
 * test/integration/trampoline.sh.
 *
 * Recursion to depths of 50..2000 (a little work per frame) ends in
 * longjmp, _longjmp or siglongjmp back to the top, in a loop; plain
 * returns from equally deep recursion are mixed in, so the profiler's
 * trampoline is both fired and abandoned.  Then longjmps out of signal
 * handlers: a handler for SIGUSR1 raised at the bottom of the recursion,
 * and a handler for SIGALRM from an ITIMER_REAL timer that interrupts an
 * endless recursion at an unpredictable depth.  Compiled a second time
 * with -D_FORTIFY_SOURCE=2 the calls become __longjmp_chk.  Output:
 * counters and checksums that do not depend on timing.  An optional
 * argument scales the iteration count.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline))

enum jump_kind { JUMP_LONGJMP, JUMP__LONGJMP, JUMP_SIGLONGJMP, JUMP_RAISE, JUMP_RETURN, NKINDS };

static jmp_buf plain_env;
static sigjmp_buf sig_env;
static volatile unsigned long sink;
static volatile sig_atomic_t alarm_armed;
static unsigned long frames_entered;

NOINLINE static unsigned long
work(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = x * 2862933555777941757UL + 3037000493UL;
    sink += x;
    return x;
}

static void
usr1_handler(int sig)
{
    (void)sig;
    siglongjmp(sig_env, 2);
}

static void
alarm_handler(int sig)
{
    (void)sig;
    if (alarm_armed) {
        alarm_armed = 0;
        siglongjmp(sig_env, 3);
    }
}

NOINLINE static unsigned long
descend(int depth, enum jump_kind kind, unsigned long acc)
{
    unsigned long r;

    frames_entered++;
    acc = work(acc + (unsigned long)depth, 150);
    if (depth > 0) {
        r = descend(depth - 1, kind, acc);
        return r ^ (acc & 0xff); /* not a tail call */
    }
    switch (kind) {
    case JUMP_LONGJMP:
        longjmp(plain_env, (int)(acc & 0x7f) + 1);
    case JUMP__LONGJMP:
        _longjmp(plain_env, (int)(acc & 0x7f) + 1);
    case JUMP_SIGLONGJMP:
        siglongjmp(sig_env, 1);
    case JUMP_RAISE:
        raise(SIGUSR1);
        break;
    default:
        break;
    }
    return acc;
}

/* Recurse and come back up, forever, until the timer's handler jumps out. */
NOINLINE static unsigned long
endless(int depth, unsigned long acc)
{
    for (;;) {
        acc = work(acc, 40);
        if (depth < 1500)
            acc ^= endless(depth + 1, acc) & 0xf;
        if (depth > 0)
            return acc;
    }
}

/* One descent that ends as @kind says; returns what the jump or the return delivered. */
NOINLINE static unsigned long
one_round(long i)
{
    enum jump_kind kind = (enum jump_kind)(i % NKINDS);
    int depth = 50 + (int)((i * 389) % 1951);
    int v;

    switch (kind) {
    case JUMP_LONGJMP:
    case JUMP__LONGJMP:
        v = setjmp(plain_env);
        if (v != 0)
            return (unsigned long)v;
        break;
    case JUMP_SIGLONGJMP:
    case JUMP_RAISE:
        v = sigsetjmp(sig_env, 1);
        if (v != 0)
            return (unsigned long)v;
        break;
    default:
        return descend(depth, kind, (unsigned long)i);
    }
    descend(depth, kind, (unsigned long)i);
    printf("FAIL: returned from a descent that should have jumped\n");
    exit(3);
}

/* siglongjmp from an asynchronous handler, at whatever depth the timer strikes. */
NOINLINE static int
timer_round(long i)
{
    if (sigsetjmp(sig_env, 1) != 0)
        return 1;
    struct itimerval it = {{0, 0}, {0, 2000}};

    alarm_armed = 1;
    setitimer(ITIMER_REAL, &it, NULL);
    endless(0, (unsigned long)i);
    return 0;
}

int
main(int argc, char **argv)
{
    long iterations = 3000, timer_rounds = 100;
    unsigned long checksum = 0, counts[NKINDS] = {0}, timer_jumps = 0;
    struct sigaction sa;
    sigset_t mask;

    if (argc > 1) {
        iterations = atol(argv[1]);
        timer_rounds = iterations / 30;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = usr1_handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = alarm_handler;
    sigaction(SIGALRM, &sa, NULL);

    for (long i = 0; i < iterations; i++) {
        checksum = checksum * 31 + one_round(i);
        counts[i % NKINDS]++;
    }
    for (long i = 0; i < timer_rounds; i++)
        timer_jumps += (unsigned long)timer_round(i);

    /* The masks saved by sigsetjmp(..., 1) were restored: nothing is left blocked. */
    sigprocmask(SIG_BLOCK, NULL, &mask);
    printf("iterations %ld\n", iterations);
    printf("longjmp %lu _longjmp %lu siglongjmp %lu raise %lu return %lu\n", counts[0], counts[1],
           counts[2], counts[3], counts[4]);
    printf("timer jumps %lu of %ld\n", timer_jumps, timer_rounds);
    printf("checksum %lx frames %lu\n", checksum, frames_entered);
    printf("SIGUSR1 blocked %d SIGALRM blocked %d\n", sigismember(&mask, SIGUSR1),
           sigismember(&mask, SIGALRM));
    if (sigismember(&mask, SIGUSR1) || sigismember(&mask, SIGALRM) ||
        timer_jumps != (unsigned long)timer_rounds)
        return 4;
    return 0;
}
