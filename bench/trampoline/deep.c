/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * deep.c -- a solver deep inside a framework: recurse to DEPTH frames, then
 * spend the run in shallow, call-intensive code at the top of that stack.
 *   deep DEPTH ITERATIONS
 * Prints a checksum so the work cannot be optimised away.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOIPA __attribute__((noipa))

static long iterations;

NOIPA static double
leaf(double x)
{
    return x * 1.0000001 + 0.5;
}

NOIPA static double
kernel(double x)
{
    for (int i = 0; i < 50; i++)
        x = leaf(x);
    return x;
}

NOIPA static double
solve(void)
{
    double x = 1;

    for (long i = 0; i < iterations; i++)
        x = kernel(x) * 0.5;
    return x;
}

NOIPA static double
framework(int depth)
{
    double r;

    if (depth == 0)
        return solve();
    r = framework(depth - 1);
    __asm__ volatile("" ::: "memory"); /* not a tail call: every level keeps its frame */
    return r;
}

int
main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 10;

    iterations = argc > 2 ? atol(argv[2]) : 2000000;
    printf("%.3f\n", framework(depth));
    return 0;
}
