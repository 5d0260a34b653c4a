/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * search.c -- the general lower bound and sorted sets of uint64_t (see
 * search.h; the uint64_t-key searches are inline there).  No global state.
 */
#include <stdlib.h>
#include <string.h>

#include "support/search.h"
#include "support/sort.h"

size_t
csp_lower_bound(const void *base, size_t n, size_t size, const void *key,
                int (*cmp)(const void *rec, const void *key))
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (cmp((const unsigned char *)base + mid * size, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int
csp_cmp_u64(const void *a, const void *b)
{
    uint64_t x, y;

    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    return x < y ? -1 : x > y;
}

#define U64_LESS(a, b) (*(a) < *(b))
CSP_SORT_DEFINE(sort_u64_, uint64_t, U64_LESS)

void
csp_sort_u64(uint64_t *v, size_t n)
{
    sort_u64_(v, n);
}

size_t
csp_sort_unique_u64(uint64_t *v, size_t n)
{
    size_t k = 0;

    if (n > 1)
        csp_sort_u64(v, n);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}
