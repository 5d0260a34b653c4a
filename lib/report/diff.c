/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * diff.c -- what a differential profile needs besides the union of two
 * trees (view.c): procedure names without compiler clone suffixes, the
 * sample counts behind each value, and the significance of a change of
 * share computed from them.
 *
 * Tool code.  The statistics: each run's samples are taken as n draws of
 * which x landed in the node, so its share is a binomial proportion x / n;
 * the change of share p2 - p1 gets Newcombe's hybrid score interval, which
 * unlike the Wald interval (p +- z * sqrt(p (1 - p) / n)) keeps its level for
 * counts of 0 and for small ones.  A profiler's samples come from a clock,
 * not from independent draws: for a program that repeats itself they vary
 * less than binomially, so the interval is conservative there.
 */
#include <math.h>
#include <string.h>

#include "report/report_internal.h"

/* ------------------------------------------------------------ clone names */

/* Length of a trailing ".word" or ".word.N..." suffix of @s[0..n) naming a clone, or 0. */
static size_t
clone_suffix(const char *s, size_t n)
{
    static const char *const words[] = {"constprop",  "isra",  "part", "cold",       "lto_priv",
                                        "localalias", "clone", "llvm", "specialized"};
    size_t e = n;

    /* ".N" groups of digits after the word ("part.0", "llvm.123456") */
    while (e > 0) {
        size_t d = e;
        while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
            d--;
        if (d == e || d == 0 || s[d - 1] != '.')
            break;
        e = d - 1;
    }
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t len = strlen(words[w]);
        if (e > len + 1 && s[e - len - 1] == '.' && memcmp(s + e - len, words[w], len) == 0)
            return n - (e - len - 1);
    }
    return 0;
}

size_t
rpt_proc_base_len(const char *name)
{
    size_t n = strlen(name);

    for (;;) {
        size_t k = clone_suffix(name, n);
        /* " [clone .constprop.0]" of a demangled C++ name */
        if (k == 0 && n > 9 && name[n - 1] == ']') {
            const char *open = NULL;
            for (size_t i = n - 1; i-- > 0;)
                if (name[i] == '[') {
                    open = name + i;
                    break;
                }
            if (open != NULL && open > name && open[-1] == ' ' && strncmp(open, "[clone .", 8) == 0)
                k = (size_t)(name + n - open) + 1;
        }
        if (k == 0 || k >= n)
            return n;
        n -= k;
    }
}

/* ---------------------------------------------------------------- counts */

double
rpt_diff_count(const struct rpt_tree *uni, const struct rpt_tree *t, uint32_t n, int col,
               bool inclusive)
{
    const struct rpt_count_source *src;
    double v;

    if (uni->counts == NULL || col < 0 || col >= uni->nvalues)
        return -1;
    src = &uni->counts[col];
    if (src->col >= 0)
        return inclusive ? rpt_incl(t, n, src->col) : rpt_self(t, n, src->col);
    if (!(src->per_sample > 0))
        return -1;
    v = inclusive ? rpt_incl(t, n, col) : rpt_self(t, n, col);
    return v / src->per_sample;
}

/* ------------------------------------------------------------ statistics */

double
rpt_diff_z(double alpha, size_t m)
{
    double tail = alpha / (2.0 * (double)(m > 0 ? m : 1)), lo = 0, hi = 40;

    /* Phi^-1(1 - tail): bisection on the upper tail erfc(z / sqrt 2) / 2, which falls with z */
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
        double mid = (lo + hi) / 2;
        if (0.5 * erfc(mid / sqrt(2.0)) > tail)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* Wilson's score interval of x / n at quantile z. */
static void
wilson(double x, double n, double z, double *l, double *u)
{
    double p = x / n, z2 = z * z, den = 1 + z2 / n;
    double mid = (p + z2 / (2 * n)) / den;
    double half = z * sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den;

    *l = mid - half < 0 ? 0 : mid - half;
    *u = mid + half > 1 ? 1 : mid + half;
}

int
rpt_diff_interval(double x1, double n1, double x2, double n2, double z, double *lo, double *hi)
{
    double p1, p2, l1, u1, l2, u2, d;

    if (!(n1 > 0) || !(n2 > 0)) {
        *lo = *hi = NAN;
        return -1;
    }
    /* (counts estimated from values may stray a rounding error outside [0, n]) */
    x1 = x1 < 0 ? 0 : x1 > n1 ? n1 : x1;
    x2 = x2 < 0 ? 0 : x2 > n2 ? n2 : x2;
    p1 = x1 / n1;
    p2 = x2 / n2;
    wilson(x1, n1, z, &l1, &u1);
    wilson(x2, n2, z, &l2, &u2);
    d = p2 - p1;
    *lo = d - sqrt((p2 - l2) * (p2 - l2) + (u1 - p1) * (u1 - p1));
    *hi = d + sqrt((u2 - p2) * (u2 - p2) + (p1 - l1) * (p1 - l1));
    return 0;
}

static double
share(double v, double total)
{
    return total != 0 ? 100.0 * v / total : 0;
}

void
rpt_diff_change(const struct rpt_tree *uni, const struct rpt_tree *t, uint32_t n, int col,
                bool inclusive, double z, struct rpt_change *out)
{
    int half = uni->nvalues / 2, cc = half + col;
    double tb = rpt_incl(t, 0, col), tc = rpt_incl(t, 0, cc);
    double nb = rpt_diff_count(uni, t, 0, col, true), nc = rpt_diff_count(uni, t, 0, cc, true);
    double lo, hi;

    memset(out, 0, sizeof *out);
    out->base = inclusive ? rpt_incl(t, n, col) : rpt_self(t, n, col);
    out->cur = inclusive ? rpt_incl(t, n, cc) : rpt_self(t, n, cc);
    out->base_share = share(out->base, tb);
    out->cur_share = share(out->cur, tc);
    out->base_n = rpt_diff_count(uni, t, n, col, inclusive);
    out->cur_n = rpt_diff_count(uni, t, n, cc, inclusive);
    out->lo = out->hi = NAN;
    if (out->base_n < 0 || out->cur_n < 0 ||
        rpt_diff_interval(out->base_n, nb, out->cur_n, nc, z, &lo, &hi) != 0)
        return;
    out->lo = 100 * lo;
    out->hi = 100 * hi;
    out->significant = lo > 0 || hi < 0;
}

size_t
rpt_diff_tests(const struct rpt_tree *uni, const struct rpt_tree *t, int col, bool inclusive)
{
    int cc = uni->nvalues / 2 + col;
    size_t m = 0;

    for (uint32_t n = 1; n < t->nnodes; n++)
        m += rpt_diff_count(uni, t, n, col, inclusive) > 0 ||
             rpt_diff_count(uni, t, n, cc, inclusive) > 0;
    return m;
}
