/* SPDX-License-Identifier: BSD-3-Clause */
/* perfect_nest.c -- a two-deep nest whose hot inner loop an earlier
 * normalization folded into the outer one with clang -O2 (bench/loops/README.md). */
#include <stdio.h>
#include <stdlib.h>
#define NOINLINE __attribute__((noinline))
NOINLINE static long
count(const int *a, int n, int m)
{
    long s = 0;

    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            s += a[i * m + j] > 3 ? a[i * m + j] : j;
    return s;
}
NOINLINE static double
poly(const double *x, int n, int m)
{
    double s = 0;

    for (int i = 0; i < n; i++) {
        double t = x[i];
        for (int j = 0; j < m; j++)
            t = t * 0.5 + 1.0;
        s += t;
    }
    return s;
}
int
main(int argc, char **argv)
{
    int n = 2000 + argc, m = 3000;
    int *a = malloc(sizeof(int) * n * m);
    double *x = malloc(sizeof(double) * n);
    (void)argv;
    for (int i = 0; i < n * m; i++)
        a[i] = i % 7;
    for (int i = 0; i < n; i++)
        x[i] = i;
    long c = 0;
    for (int r = 0; r < 300; r++)
        c += count(a + (r & 1), n, m);
    printf("%ld %f\n", c, poly(x, n, m / 10));
    return 0;
}
