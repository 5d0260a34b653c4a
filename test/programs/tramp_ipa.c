/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_ipa.c -- callers that keep values in call-clobbered registers
 * across calls, for test/integration/trampoline.sh (regression test for a
 * crash where the trampoline clobbered %rcx/%r11).
 *
 * gcc's -fipa-ra (on at -O2) lets a caller keep live values in
 * call-clobbered registers (%rcx, %rsi, %rdi, %r8-%r11, %xmm2-%xmm15)
 * across a call to a function of the same unit whose code it knows leaves
 * them alone.  A trampoline that returns into such a caller must therefore
 * preserve every register, not just those the ABI says.  The callees here
 * are small static noinline functions that loop long enough for samples
 * to land in them (so the trampoline is placed on their return), called
 * from loops that keep a dozen integer and floating-point values live.
 * Each result is compared with the same computation done through noipa
 * copies of the callees (where the caller must assume the ABI), and a
 * mismatch exits with status 3.  Output: checksums.  An optional argument
 * scales the work.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define NOIPA    __attribute__((noipa))

static volatile int spin = 200;

/* Callees that touch only %rax, %rdx (and flags): the caller may keep anything else. */
#define DEFINE_CALLEE(name, attr, mul, add) \
    attr static long name(long x)           \
    {                                       \
        int n = spin;                       \
        for (int i = 0; i < n; i++)         \
            x = x * (mul) + (add);          \
        return x;                           \
    }

DEFINE_CALLEE(f1, NOINLINE, 3, 1)
DEFINE_CALLEE(f2, NOINLINE, 5, 7)
DEFINE_CALLEE(f3, NOINLINE, 7, 11)
DEFINE_CALLEE(f4, NOINLINE, 9, 13)
DEFINE_CALLEE(g1, NOIPA, 3, 1)
DEFINE_CALLEE(g2, NOIPA, 5, 7)
DEFINE_CALLEE(g3, NOIPA, 7, 11)
DEFINE_CALLEE(g4, NOIPA, 9, 13)

/* A double-valued callee that uses only %xmm0/%xmm1. */
NOINLINE static double
h1(double x)
{
    int n = spin;

    for (int i = 0; i < n; i++)
        x = x * 0.999999 + 0.5;
    return x;
}

NOIPA static double
k1(double x)
{
    int n = spin;

    for (int i = 0; i < n; i++)
        x = x * 0.999999 + 0.5;
    return x;
}

struct totals {
    long i[12];
    double d[8];
};

/*
 * Twelve integer and eight double accumulators, live across every call.
 * The body is written once and instantiated twice, with the -fipa-ra
 * callees and with the noipa ones.
 */
#define DEFINE_DRIVER(name, c1, c2, c3, c4, cd)                                                    \
    NOINLINE static void name(long rounds, long seed, struct totals *t)                            \
    {                                                                                              \
        long a0 = seed, a1 = seed + 1, a2 = seed + 2, a3 = seed + 3, a4 = seed + 4, a5 = seed + 5, \
             a6 = seed + 6, a7 = seed + 7, a8 = seed + 8, a9 = seed + 9, a10 = seed + 10,          \
             a11 = seed + 11;                                                                      \
        double d0 = 0.5, d1 = 1.5, d2 = 2.5, d3 = 3.5, d4 = 4.5, d5 = 5.5, d6 = 6.5, d7 = 7.5;     \
        for (long r = 0; r < rounds; r++) {                                                        \
            a0 += c1(a1 ^ r);                                                                      \
            a1 ^= a2 + a3;                                                                         \
            a2 += c2(a0) + a4;                                                                     \
            a3 = a3 * 3 + a5 - a6;                                                                 \
            a4 ^= c3(a7 + r) - a8;                                                                 \
            a5 += a9 * 5 + a10;                                                                    \
            a6 -= c4(a11) ^ a0;                                                                    \
            a7 += a1 + a2;                                                                         \
            a8 ^= a3 + a4;                                                                         \
            a9 += a5 ^ a6;                                                                         \
            a10 -= a7 + a8;                                                                        \
            a11 ^= a9 + a10 + r;                                                                   \
            d0 += cd(d1);                                                                          \
            d1 = d1 * 0.5 + d2 - d3 * 0.25;                                                        \
            d2 += cd(d4) * 1e-3 + d5;                                                              \
            d3 = d3 * 0.75 + d6;                                                                   \
            d4 = d4 * 0.9 + d7 * 0.1;                                                              \
            d5 = d5 * 0.5 + d0 * 1e-6;                                                             \
            d6 = d6 * 0.25 + d1 * 1e-3;                                                            \
            d7 = d7 * 0.125 + d2 * 1e-9 + (double)(a0 & 0xff);                                     \
        }                                                                                          \
        long iv[12] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11};                          \
        double dv[8] = {d0, d1, d2, d3, d4, d5, d6, d7};                                           \
        for (int k = 0; k < 12; k++)                                                               \
            t->i[k] = iv[k];                                                                       \
        for (int k = 0; k < 8; k++)                                                                \
            t->d[k] = dv[k];                                                                       \
    }

DEFINE_DRIVER(drive_ipa, f1, f2, f3, f4, h1)
DEFINE_DRIVER(drive_abi, g1, g2, g3, g4, k1)

/* Recursion on top, so the trampoline also climbs through these frames. */
NOINLINE static long
nest(int depth, long rounds, long seed, long *bad)
{
    struct totals x, y;
    long sum = 0;

    if (depth > 0)
        sum = nest(depth - 1, rounds, seed + depth, bad);
    drive_ipa(rounds, seed, &x);
    drive_abi(rounds, seed, &y);
    for (int k = 0; k < 12; k++) {
        *bad += x.i[k] != y.i[k];
        sum = sum * 31 + x.i[k];
    }
    for (int k = 0; k < 8; k++) {
        *bad += x.d[k] != y.d[k] && !(x.d[k] != x.d[k] && y.d[k] != y.d[k]);
        sum = sum * 31 + (long)(x.d[k] * 1000.0);
    }
    return sum;
}

int
main(int argc, char **argv)
{
    long scale = 700, bad = 0;
    unsigned long checksum = 0;

    if (argc > 1)
        scale = atol(argv[1]);
    for (long s = 0; s < scale; s++)
        checksum = checksum * 131 + (unsigned long)nest(8, 40, s, &bad);
    printf("scale %ld\nchecksum %lx\n", scale, checksum);
    if (bad != 0) {
        printf("FAIL: %ld values differ between the -fipa-ra and the ABI callers\n", bad);
        return 3;
    }
    return 0;
}
