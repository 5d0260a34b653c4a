/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * longjmp_deep.c -- reliability row 11 (issue 7 item 1): recursion to depth 50,
 * then longjmp back to main, a million times (argument: iterations), with a
 * second phase that siglongjmps out of a SIGALRM handler.  Prints a checksum
 * that does not depend on timing; exits 1 if control reaches a place it must
 * not (main's loop ends early, a frame returns normally where none may).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf env;
static sigjmp_buf sig_env;
static volatile unsigned long sink;
static volatile sig_atomic_t armed;

NOINLINE static unsigned long
work(unsigned long x)
{
    for (int i = 0; i < 20; i++)
        x = x * 2862933555777941757UL + 3037000493UL;
    sink += x;
    return x;
}

NOINLINE static unsigned long
descend(int depth, unsigned long acc)
{
    acc = work(acc + (unsigned long)depth);
    if (depth > 0)
        return descend(depth - 1, acc) ^ (acc & 0xff); /* not a tail call */
    longjmp(env, (int)(acc & 0x3f) + 1);
}

NOINLINE static unsigned long
forever(unsigned long acc, int depth)
{
    acc = work(acc);
    if (depth < 100000)
        return forever(acc, depth + 1) + 1;
    return acc;
}

static void
on_alarm(int sig)
{
    (void)sig;
    if (armed) {
        armed = 0;
        siglongjmp(sig_env, 1);
    }
}

int
main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 1000000;
    unsigned long sum = 0;
    volatile long i;
    struct itimerval it = {{0, 0}, {0, 2000}};

    for (i = 0; i < iters; i++) {
        int v = setjmp(env);

        if (v == 0) {
            descend(50, (unsigned long)i);
            puts("descend returned");
            return 1;
        }
        sum += (unsigned long)v;
    }
    if (i != iters) {
        puts("loop ended early");
        return 1;
    }
    signal(SIGALRM, on_alarm);
    for (int k = 0; k < 200; k++) {
        if (sigsetjmp(sig_env, 1) == 0) {
            armed = 1;
            setitimer(ITIMER_REAL, &it, NULL);
            forever((unsigned long)k, 0);
            armed = 0;
        }
    }
    printf("iterations %ld checksum %lu\n", (long)i, sum);
    return 0;
}
