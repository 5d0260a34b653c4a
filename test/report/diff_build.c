/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff_build.c -- the program report_test.sh's diffbuild case profiles in
 * several builds: main calls work() ROUNDS times (argv[1], default 100);
 * work() calls hot() and then cold(), each a fixed chain of dependent
 * xorshift steps that no build can shorten, hot() 3/5 of the steps.
 *   cc -O2 -g                    hot() inlined into work() (always_inline)
 *   cc -O2 -g -DHOT_OUTLINE      hot() a procedure of its own (noinline)
 *   cc -O2 -g -DHOT_TIMES=2      hot() does twice the steps
 * Every build has the same source lines.
 */
#include <stdlib.h>

#ifndef HOT_TIMES
#    define HOT_TIMES 1
#endif
#ifdef HOT_OUTLINE
#    define HOT_INLINE __attribute__((noinline))
#else
#    define HOT_INLINE __attribute__((always_inline)) inline
#endif

#define STEPS 200000ul

static volatile unsigned long sink;

static HOT_INLINE unsigned long
hot(unsigned long x)
{
    for (unsigned long i = 0; i < 3 * STEPS * HOT_TIMES; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

static __attribute__((noinline)) unsigned long
cold(unsigned long x)
{
    for (unsigned long i = 0; i < 2 * STEPS; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

static __attribute__((noinline)) void
work(unsigned long seed)
{
    sink += hot(seed);
    sink += cold(seed + 1);
}

int
main(int argc, char **argv)
{
    unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;

    for (unsigned long r = 0; r < rounds; r++)
        work(r + 1);
    return 0;
}
