/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * stack_overflow.c -- reliability row 13: unbounded recursion overflows the
 * stack; a SIGSEGV handler installed with SA_ONSTACK on a 64 KiB alternate
 * stack writes "overflow" and calls _exit(42).  First it spends 50 ms of
 * CPU time in user mode (burn): the recursion takes 3-4 ms on a recent
 * kernel, nearly all of it in page faults, where the perf task clock takes
 * no sample, so without it a profile may rightly hold none.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

__attribute__((noinline)) static double
burn(double ms)
{
    volatile double x = 0;
    double end = cpu_ms() + ms;

    while (cpu_ms() < end)
        for (int i = 0; i < 2000; i++)
            x += i * 0.5;
    return x;
}

static void
on_segv(int sig)
{
    (void)sig;
    (void)!write(STDOUT_FILENO, "overflow\n", 9);
    _exit(42);
}

__attribute__((noinline)) static unsigned long
recurse(unsigned long depth)
{
    volatile char pad[256];

    memset((char *)pad, (int)depth, sizeof(pad));
    return recurse(depth + 1) + pad[depth % sizeof(pad)];
}

int
main(void)
{
    static char alt[64 * 1024];
    stack_t ss = {.ss_sp = alt, .ss_size = sizeof(alt), .ss_flags = 0};
    struct sigaction sa;

    if (sigaltstack(&ss, NULL) != 0)
        return 90;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_segv;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, NULL) != 0)
        return 91;
    if (burn(50) < 0)
        return 92;
    return (int)recurse(0);
}
