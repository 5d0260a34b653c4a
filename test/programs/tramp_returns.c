/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tramp_returns.c -- return values in every register class the x86-64
 * SysV ABI uses, returned through the trampoline, for
 * test/integration/trampoline.sh.
 *
 * Recursive noinline functions return double (%xmm0), float, long double
 * (st(0)), _Complex double (%xmm0:%xmm1), _Complex long double
 * (st(0):st(1)), struct {long, long} (%rax:%rdx), struct {double, double}
 * (%xmm0:%xmm1), struct {long, double} (%rax:%xmm0), __int128 (%rax:%rdx),
 * a 40-byte struct (memory, address in %rax) and, where the CPU has AVX, a
 * 256-bit vector (%ymm0).  The trampoline sits on these frames when they
 * return; each result is checked bit for bit against the same value
 * computed by a loop in the caller, and a mismatch exits with status 3.
 * Output: checksums that do not depend on timing.  An optional argument
 * scales the work.
 */
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

struct two_longs {
    long a, b;
};
struct two_doubles {
    double a, b;
};
struct long_double_mix {
    long a;
    double b;
};
struct big {
    long v[5];
};

static unsigned long checksum;
static long failures;
static volatile int spin = 400; /* work per frame; volatile so it is not folded away */

/* Fold the bytes of a value into the checksum. */
static void
mix(const void *p, size_t n)
{
    const unsigned char *c = p;

    for (size_t i = 0; i < n; i++)
        checksum = checksum * 1099511628211UL + c[i];
}

static void
expect(const char *what, const void *got, const void *want, size_t n)
{
    if (memcmp(got, want, n) != 0) {
        if (failures++ < 10)
            printf("FAIL: %s returned a different value through the trampoline\n", what);
    }
    mix(got, n);
}

/* A little integer work, so samples land in the recursion. */
NOINLINE static long
busy(long x)
{
    for (int i = 0; i < spin; i++)
        x = x * 6364136223846793005L + 1442695040888963407L;
    return x;
}

/* Each r_* recurses @d levels; the value is built on the way back up. */

NOINLINE static double
r_double(int d, double x)
{
    double r;

    busy(d);
    if (d == 0)
        return x * 1.0000001;
    r = r_double(d - 1, x);
    return r * 1.0000001 + 0.25;
}

NOINLINE static float
r_float(int d, float x)
{
    float r;

    busy(d);
    if (d == 0)
        return x * 1.001f;
    r = r_float(d - 1, x);
    return r * 1.001f + 0.5f;
}

NOINLINE static long double
r_ldouble(int d, long double x)
{
    long double r;

    busy(d);
    if (d == 0)
        return x * 1.0000001L;
    r = r_ldouble(d - 1, x);
    return r * 1.0000001L + 0.125L;
}

NOINLINE static _Complex double
r_cdouble(int d, _Complex double x)
{
    _Complex double r;

    busy(d);
    if (d == 0)
        return x * 1.0000001;
    r = r_cdouble(d - 1, x);
    return r * 1.0000001 + (0.25 + 0.5 * I);
}

NOINLINE static _Complex long double
r_cldouble(int d, _Complex long double x)
{
    _Complex long double r;

    busy(d);
    if (d == 0)
        return x * 1.0000001L;
    r = r_cldouble(d - 1, x);
    return r * 1.0000001L + (0.125L + 0.75L * I);
}

NOINLINE static struct two_longs
r_two_longs(int d, long x)
{
    struct two_longs r;

    busy(d);
    if (d == 0)
        return (struct two_longs){x, ~x};
    r = r_two_longs(d - 1, x);
    return (struct two_longs){r.a * 3 + d, r.b ^ (r.a << 1)};
}

NOINLINE static struct two_doubles
r_two_doubles(int d, double x)
{
    struct two_doubles r;

    busy(d);
    if (d == 0)
        return (struct two_doubles){x, -x};
    r = r_two_doubles(d - 1, x);
    return (struct two_doubles){r.a * 1.0000001 + d, r.b * 0.9999999 - r.a * 1e-9};
}

NOINLINE static struct long_double_mix
r_mix(int d, long x)
{
    struct long_double_mix r;

    busy(d);
    if (d == 0)
        return (struct long_double_mix){x, (double)x};
    r = r_mix(d - 1, x);
    return (struct long_double_mix){r.a * 5 + d, r.b * 1.0000001 + 1.5};
}

NOINLINE static __int128
r_int128(int d, long x)
{
    __int128 r;

    busy(d);
    if (d == 0)
        return ((__int128)x << 64) | (unsigned long)~x;
    r = r_int128(d - 1, x);
    return r * 3 + d;
}

NOINLINE static struct big
r_big(int d, long x)
{
    struct big r;

    busy(d);
    if (d == 0)
        return (struct big){{x, x + 1, x + 2, x + 3, x + 4}};
    r = r_big(d - 1, x);
    for (int i = 0; i < 5; i++)
        r.v[i] = r.v[i] * 7 + d + i;
    return r;
}

#if defined(__x86_64__)
typedef double v4d __attribute__((vector_size(32)));

__attribute__((target("avx"), noinline)) static v4d
r_v4d(int d, v4d x)
{
    v4d r;

    busy(d);
    if (d == 0)
        return x * 1.0000001;
    r = r_v4d(d - 1, x);
    return r * 1.0000001 + 0.25;
}

__attribute__((target("avx"), noinline)) static void
check_v4d(int d, double seed)
{
    v4d x = {seed, seed + 1, seed + 2, seed + 3}, got = r_v4d(d, x), want = x * 1.0000001;

    for (int k = d; k > 0; k--)
        want = want * 1.0000001 + 0.25;
    /* Verified but not mixed into the checksum: the output must not depend on the CPU. */
    if (memcmp(&got, &want, sizeof(got)) != 0 && failures++ < 10)
        printf("FAIL: v4d returned a different value through the trampoline\n");
}
#endif

/* The expected values, computed by loops that mirror the recursions. */
static void
check_all(int d, long seed)
{
    double xd = (double)seed * 0.001, gd = r_double(d, xd), wd = xd * 1.0000001;
    float xf = (float)(seed % 1000) * 0.01f, gf = r_float(d, xf), wf = xf * 1.001f;
    long double xl = (long double)seed * 0.001L, gl = r_ldouble(d, xl), wl = xl * 1.0000001L;
    _Complex double xc = (double)seed + 2.0 * I, gc = r_cdouble(d, xc), wc = xc * 1.0000001;
    _Complex long double xcl = (long double)seed - 3.0L * I, gcl = r_cldouble(d, xcl),
                         wcl = xcl * 1.0000001L;
    struct two_longs gtl = r_two_longs(d, seed), wtl = {seed, ~seed};
    struct two_doubles gtd = r_two_doubles(d, xd), wtd = {xd, -xd};
    struct long_double_mix gm = r_mix(d, seed), wm = {seed, (double)seed};
    __int128 gi = r_int128(d, seed), wi = ((__int128)seed << 64) | (unsigned long)~seed;
    struct big gb = r_big(d, seed), wb = {{seed, seed + 1, seed + 2, seed + 3, seed + 4}};

    for (int k = 1; k <= d; k++) {
        wd = wd * 1.0000001 + 0.25;
        wf = wf * 1.001f + 0.5f;
        wl = wl * 1.0000001L + 0.125L;
        wc = wc * 1.0000001 + (0.25 + 0.5 * I);
        wcl = wcl * 1.0000001L + (0.125L + 0.75L * I);
        wtl = (struct two_longs){wtl.a * 3 + k, wtl.b ^ (wtl.a << 1)};
        wtd = (struct two_doubles){wtd.a * 1.0000001 + k, wtd.b * 0.9999999 - wtd.a * 1e-9};
        wm = (struct long_double_mix){wm.a * 5 + k, wm.b * 1.0000001 + 1.5};
        wi = wi * 3 + k;
        for (int i = 0; i < 5; i++)
            wb.v[i] = wb.v[i] * 7 + k + i;
    }
    expect("double", &gd, &wd, sizeof(gd));
    expect("float", &gf, &wf, sizeof(gf));
    expect("long double", &gl, &wl, 10); /* the 80 bits that are the value */
    expect("_Complex double", &gc, &wc, sizeof(gc));
    expect("_Complex long double (real)", &gcl, &wcl, 10);
    expect("_Complex long double (imag)", (const char *)&gcl + sizeof(long double),
           (const char *)&wcl + sizeof(long double), 10);
    expect("struct {long, long}", &gtl, &wtl, sizeof(gtl));
    expect("struct {double, double}", &gtd, &wtd, sizeof(gtd));
    expect("struct {long, double}", &gm, &wm, sizeof(gm));
    expect("__int128", &gi, &wi, sizeof(gi));
    expect("struct big", &gb, &wb, sizeof(gb));
}

int
main(int argc, char **argv)
{
    long rounds = 2000;
    int have_avx = 0;

    if (argc > 1)
        rounds = atol(argv[1]);
#if defined(__x86_64__)
    __builtin_cpu_init();
    have_avx = __builtin_cpu_supports("avx");
#endif
    for (long i = 0; i < rounds; i++) {
        int d = 1 + (int)(i * 7 % 300);

        check_all(d, i);
#if defined(__x86_64__)
        if (have_avx)
            check_v4d(d, (double)i);
#endif
    }
    printf("rounds %ld\nchecksum %lx\n", rounds, checksum);
    if (failures != 0) {
        printf("%ld values changed\n", failures);
        return 3;
    }
    return 0;
}
