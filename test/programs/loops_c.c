/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loops_c.c -- loop shapes for csprof-struct's loop recovery tests
 * (test/structure/struct_test.sh, modes "loops-c" and "loops-c-clang").  Compiled
 * at test time with gcc and clang at -O0, -O2 and -O3.
 *
 * Annotations (read by struct_check loops):
 *   @loop NAME proc=P [in=PARENT] [via=CALLEE] [irr]
 *       P has a loop scope whose header is this line (the line of the loop
 *       test: the for/while line, or the "if ... goto"; also=+N accepts the
 *       line N below, where compilers give the loop test to the body, e.g.
 *       the inlined size() of a range-for); its nearest enclosing
 *       loop is the one annotated PARENT (none without in=); with via=, it
 *       lies inside the inlined code of CALLEE; irr: marked irreducible.
 *   @call proc=P target=T [nr] [tail]
 *       P has a call site on this line whose callee is named T (noreturn /
 *       tail call when marked).
 * Trip counts come from argc so no loop is fully unrolled or folded away.
 * Test input only.
 */
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define ALWAYS   __attribute__((always_inline)) inline

static volatile int sink;

NOINLINE static int
simple(const int *a, int n)
{
    int s = 0;

    for (int i = 0; i < n; i++) /* @loop simple1 proc=simple */
        s += a[i] * 7 + (a[i] >> 3);
    return s;
}

NOINLINE static int
nested(const int *a, int n)
{
    int s = 0;

    for (int i = 0; i < n; i++) {     /* @loop nest_outer proc=nested */
        sink = i;                     /* work between the loops */
        for (int j = 0; j < n; j++) { /* @loop nest_mid proc=nested in=nest_outer */
            sink = j;
            for (int k = 0; k < n; k++) /* @loop nest_inner proc=nested in=nest_mid */
                s += a[(i + j + k) % n] ^ k;
        }
    }
    return s;
}

NOINLINE static int
siblings(int *a, int n)
{
    int s = 0;

    for (int i = 0; i < n; i++) /* @loop sib1 proc=siblings */
        a[i] = a[i] * 3 + 1;
    sink = s;
    for (int i = 0; i < n; i++) /* @loop sib2 proc=siblings */
        s += a[i] / 5;
    return s;
}

static ALWAYS int
dot(const int *a, const int *b, int n)
{
    int s = 0;

    for (int i = 0; i < n; i++) /* @loop dot_loop proc=caller in=caller_loop via=dot */
        s += a[i] * b[i];
    return s;
}

NOINLINE static int
caller(const int *a, int n)
{
    int s = 0;

    for (int r = 0; r < n; r++) { /* @loop caller_loop proc=caller */
        sink = r;
        s += dot(a + r, a, n - r);
    }
    return s;
}

/* One-line functions (the case of issue 21): the caller's loop is on its
 * procedure's declaration line and the inlined callee's loop on a line above
 * it; the caller's loop is labelled with its own line, never the callee's
 * (two loops of one nest with one label read as one loop). */
static double ol_a[1024], ol_b[1024];
static ALWAYS double ol_dot(const double *a, const double *b, int n){double s=0; for(int i=0;i<n;++i) s+=a[i]*b[i]; return s;} /* @loop ol_inner proc=ol_ctx in=ol_outer via=ol_dot */
NOINLINE static double ol_ctx(int n){double s=0; for(int r=0;r<3*n;++r) s+=ol_dot(ol_a,ol_b,1024); return s;} /* @loop ol_outer proc=ol_ctx */

/* A perfect nest: normalization must keep both loops (the inner one is hot). */
NOINLINE static double
perfect(const double *a, int n, int m)
{
    double s = 0;

    for (int i = 0; i < n; i++)     /* @loop perf_outer proc=perfect */
        for (int j = 0; j < m; j++) /* @loop perf_inner proc=perfect in=perf_outer */
            s += a[i * m + j] * (double)(j + 1);
    return s;
}

static ALWAYS int
dot_row(const int *x, const int *y, int n)
{
    int s = 0;

    for (int k = 0; k < n; k++) /* @loop mm_dot proc=matmul in=mm_cols via=dot_row */
        s += x[k] * y[k];
    return s;
}

/* The head of mm_cols holds a row of dot_row's loop line: it must not label mm_cols. */
NOINLINE static void
matmul(int *c, const int *a, const int *bt, int n)
{
    for (int i = 0; i < n; i++)     /* @loop mm_rows proc=matmul */
        for (int j = 0; j < n; j++) /* @loop mm_cols proc=matmul in=mm_rows */
            c[i * n + j] = dot_row(a + i * n, bt + j * n, n);
}

/* Inlined into its caller, which shares n * n with it: the caller's rows
 * inside these loops must neither lift them out of the inlined code nor
 * label them. */
static ALWAYS void
matmul_inl(int *c, const int *a, int n)
{
    for (int i = 0; i < n; i++)     /* @loop mi_rows proc=mm_driver in=md_reps via=matmul_inl */
        for (int j = 0; j < n; j++) /* @loop mi_cols proc=mm_driver in=mi_rows via=matmul_inl */
            c[i * n + j] = dot_row(a + i * n, a + j * n, n);
}

NOINLINE static int
mm_driver(int n)
{
    int *a = malloc((size_t)n * (size_t)n * sizeof(*a));
    int *c = malloc((size_t)n * (size_t)n * sizeof(*c));
    int t;

    if (a == NULL || c == NULL)
        exit(1);
    for (int i = 0; i < n * n; i++) /* @loop md_init proc=mm_driver */
        a[i] = i % 7;
    for (int r = 0; r < n / 3; r++) /* @loop md_reps proc=mm_driver */
        matmul_inl(c, a, n);
    t = c[n + 1];
    free(a);
    free(c);
    return t;
}

NOINLINE static void
vectorized(float *restrict x, const float *restrict y, int n)
{
    for (int i = 0; i < n; i++) /* @loop vec proc=vectorized */
        x[i] = x[i] * 2.5f + y[i];
}

NOINLINE static int
irreducible(int n, int start)
{
    int s = 0, i = 0;

    if (start & 1)
        goto second;
first:
    s += i * 3;
    i++;
second:
    s ^= i;
    if (i < n) /* @loop irr1 proc=irreducible irr */
        goto first;
    return s;
}

NOINLINE static int
switcher(const int *a, int n)
{
    int s = 0;

    for (int i = 0; i < n; i++) { /* @loop sw_loop proc=switcher */
        switch (a[i] & 7) {
        case 0:
            s += 11;
            break;
        case 1:
            s ^= 0x55;
            break;
        case 2:
            s -= a[i];
            break;
        case 3:
            s *= 3;
            break;
        case 4:
            s += a[i] << 2;
            break;
        case 5:
            s = s / 2 + 1;
            break;
        case 6:
            s -= 7;
            break;
        default:
            s += 1;
            break;
        }
    }
    return s;
}

NOINLINE static long
fib(int n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2); /* @call proc=fib target=fib */
}

NOINLINE static void
fatal(const char *why)
{
    fprintf(stderr, "fatal: %s\n", why);
    exit(3); /* @call proc=fatal target=exit nr */
}

NOINLINE static int
tail_callee(int x)
{
    sink = x;
    return x * 5 + sink;
}

NOINLINE int tail_caller(int x);

NOINLINE int
tail_caller(int x)
{
    return tail_callee(x + 1);
}

int
main(int argc, char **argv)
{
    int n = argc * 50 + 13;
    int *a = malloc((size_t)n * sizeof(*a));
    float *x = malloc((size_t)n * sizeof(*x)), *y = malloc((size_t)n * sizeof(*y));
    long t = 0;

    (void)argv;
    if (a == NULL || x == NULL || y == NULL)
        fatal("out of memory");
    for (int i = 0; i < n; i++) { /* @loop main_init proc=main */
        a[i] = i * 31 % 17;
        x[i] = (float)i;
        y[i] = (float)(n - i);
    }
    t += simple(a, n) + nested(a, n / 4) + siblings(a, n) + caller(a, n);
    t += (long)ol_ctx(argc);
    {
        int m = n / 8;
        double *d = malloc((size_t)m * (size_t)m * sizeof(*d));
        int *c = malloc((size_t)m * (size_t)m * sizeof(*c));
        int *e = malloc((size_t)m * (size_t)m * sizeof(*e));

        if (d == NULL || c == NULL || e == NULL)
            fatal("out of memory");
        for (int i = 0; i < m * m; i++) { /* @loop main_init2 proc=main */
            d[i] = i % 7;
            e[i] = i % 5;
        }
        t += (long)perfect(d, m, m);
        matmul(c, e, e, m);
        t += c[m / 2] + mm_driver(m);
        free(d);
        free(c);
        free(e);
    }
    vectorized(x, y, n);
    t += irreducible(n, argc) + switcher(a, n) + fib(argc + 15) + tail_caller(argc);
    printf("%ld %f\n", t, (double)x[n / 2]);
    free(a);
    free(x);
    free(y);
    return 0;
}
