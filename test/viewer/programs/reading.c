/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * reading.c -- a program for the viewer's reading test (test/viewer/
 * reading_test.js): a recursion 60 frames deep (deep rows), an indirect
 * call site with three callees (calls per call site), a short function
 * called often and one that runs a few milliseconds (too few samples per
 * call, too few samples, for a cost per call), a function
 * whose hottest line is far below its first (the source pane opens at
 * it) and allocations (bytes).  Optional argument: a work multiplier.
 */
#include <stdlib.h>

#define NOIPA  __attribute__((noipa))
#define KEEP() __asm__ volatile("" ::: "memory")

static long scale = 1;
static volatile long sink;

NOIPA static void
spin(long n)
{
    for (long i = 0; i < n; ++i)
        sink += i;
}

NOIPA static long
tiny(long x)
{
    return x * 3 + 1;
}

/* about 20 us a call, called 2000 times: the trampoline counts about one
   call per sample, so the samples per counted call are about 1 */
NOIPA static void
small(void)
{
    spin(60000L * scale);
    KEEP();
}

/* 4 calls of about 1 ms: a few samples, fewer than 10 */
NOIPA static void
rare(void)
{
    spin(3000000L * scale);
    KEEP();
}

NOIPA static void
f0(long n)
{
    spin(n);
    KEEP();
}

NOIPA static void
f1(long n)
{
    spin(2 * n);
    KEEP();
}

NOIPA static void
f2(long n)
{
    spin(3 * n);
    KEEP();
}

NOIPA static void
deep(int d)
{
    if (d > 0)
        deep(d - 1);
    else
        spin(400000000L * scale);
    KEEP();
}

/* (not reformatted: the hot loop stays on the line that carries its cost) */
/* clang-format off */
/* a little work at its first lines, most of it at the line marked HOT, far
   below, so that a pane opened at the first line does not show it */
NOIPA static void
hot_lines(long n)
{
    long s = 0;
    for (long i = 0; i < n / 10; ++i) s += i ^ (s >> 2); /* a tenth of HOT's work */
    s += 0; /* filler line 0: no cost */
    s += 1; /* filler line 1: no cost */
    s += 2; /* filler line 2: no cost */
    s += 3; /* filler line 3: no cost */
    s += 4; /* filler line 4: no cost */
    s += 5; /* filler line 5: no cost */
    s += 6; /* filler line 6: no cost */
    s += 7; /* filler line 7: no cost */
    s += 8; /* filler line 8: no cost */
    s += 9; /* filler line 9: no cost */
    s += 10; /* filler line 10: no cost */
    s += 11; /* filler line 11: no cost */
    s += 12; /* filler line 12: no cost */
    s += 13; /* filler line 13: no cost */
    s += 14; /* filler line 14: no cost */
    s += 15; /* filler line 15: no cost */
    s += 16; /* filler line 16: no cost */
    s += 17; /* filler line 17: no cost */
    s += 18; /* filler line 18: no cost */
    s += 19; /* filler line 19: no cost */
    s += 20; /* filler line 20: no cost */
    s += 21; /* filler line 21: no cost */
    s += 22; /* filler line 22: no cost */
    s += 23; /* filler line 23: no cost */
    s += 24; /* filler line 24: no cost */
    s += 25; /* filler line 25: no cost */
    s += 26; /* filler line 26: no cost */
    s += 27; /* filler line 27: no cost */
    s += 28; /* filler line 28: no cost */
    s += 29; /* filler line 29: no cost */
    s += 30; /* filler line 30: no cost */
    s += 31; /* filler line 31: no cost */
    s += 32; /* filler line 32: no cost */
    s += 33; /* filler line 33: no cost */
    s += 34; /* filler line 34: no cost */
    s += 35; /* filler line 35: no cost */
    s += 36; /* filler line 36: no cost */
    s += 37; /* filler line 37: no cost */
    s += 38; /* filler line 38: no cost */
    s += 39; /* filler line 39: no cost */
    s += 40; /* filler line 40: no cost */
    s += 41; /* filler line 41: no cost */
    s += 42; /* filler line 42: no cost */
    s += 43; /* filler line 43: no cost */
    s += 44; /* filler line 44: no cost */
    s += 45; /* filler line 45: no cost */
    s += 46; /* filler line 46: no cost */
    s += 47; /* filler line 47: no cost */
    s += 48; /* filler line 48: no cost */
    s += 49; /* filler line 49: no cost */
    s += 50; /* filler line 50: no cost */
    s += 51; /* filler line 51: no cost */
    s += 52; /* filler line 52: no cost */
    s += 53; /* filler line 53: no cost */
    s += 54; /* filler line 54: no cost */
    s += 55; /* filler line 55: no cost */
    s += 56; /* filler line 56: no cost */
    s += 57; /* filler line 57: no cost */
    s += 58; /* filler line 58: no cost */
    s += 59; /* filler line 59: no cost */
    for (long i = 0; i < n; ++i) s += i ^ (s >> 3); /* HOT: the loop on one line */
    sink = s;
}

/* clang-format on */

typedef void (*fn)(long);
static fn table[3] = {f0, f1, f2};

int
main(int argc, char **argv)
{
    if (argc > 1)
        scale = atol(argv[1]);
    deep(60);
    hot_lines(300000000L * scale);
    for (int k = 0; k < 30; ++k)
        table[k % 3](10000000L * scale); /* one indirect call site */
    for (int k = 0; k < 2000; ++k)
        small();
    for (int k = 0; k < 4; ++k)
        rare();
    long t = 0;
    for (long k = 0; k < 30000000L * scale; ++k)
        t += tiny(k);
    sink = t;
    for (int k = 0; k < 64; ++k) {
        char *p = malloc(8 << 20);
        p[0] = (char)k;
        sink += p[0];
        free(p);
    }
    return 0;
}
