/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fig1.c -- the program of Figure 1 of the csprof paper ([csprof 2005]):
 * c's cost depends on its argument, so calls of c from a (argument 1) cost
 * twice as much as calls from b (argument 2), and a makes half as many: the
 * time of c splits 50/50 between a and b, while gprof-style attribution by
 * call counts says 33/67.
 *
 * Three deviations, so that -O2 keeps the shape the paper describes:
 * `noipa` stops gcc from inlining or cloning a, b, c and d; the empty asm
 * in d keeps its calls from being deleted; and the barrier after the last
 * call in a and b keeps that call from becoming a tail call (a tail call
 * replaces the caller's frame, so c would be seen as called from main).  An optional argument sets
 * log2(HUGE) (default 28, as in the paper).
 */
#include <stdlib.h>

#define NOIPA          __attribute__((noipa))
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory")

static long huge = 1L << 28;

NOIPA void
d(void)
{
    __asm__ volatile("");
}

NOIPA void
c(int n)
{
    for (long i = 0; i < huge / n; ++i)
        d();
}

NOIPA void
b(void (*f)(int))
{
    f(2);
    f(2);
    f(2);
    f(2);
    NO_TAIL_CALL();
}

NOIPA void
a(void (*f)(int))
{
    f(1);
    f(1);
    NO_TAIL_CALL();
}

int
main(int argc, char **argv)
{
    if (argc > 1)
        huge = 1L << atoi(argv[1]);
    a(c);
    b(c);
    return 0;
}
