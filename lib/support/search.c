/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * search.c -- binary search over sorted records with a uint64_t key, and
 * sorted sets of uint64_t (see search.h).  No global state.
 */
#include <stdlib.h>
#include <string.h>

#include "support/search.h"

static uint64_t
key_at(const void *base, size_t i, size_t size, size_t off)
{
    uint64_t k;

    memcpy(&k, (const unsigned char *)base + i * size + off, sizeof(k));
    return k;
}

size_t
csp_lower_bound_u64(const void *base, size_t n, size_t size, size_t off, uint64_t v)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (key_at(base, mid, size, off) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t
csp_upper_bound_u64(const void *base, size_t n, size_t size, size_t off, uint64_t v)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (key_at(base, mid, size, off) <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

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

size_t
csp_range_first_after(const void *r, size_t n, size_t size, uint64_t addr)
{
    return csp_upper_bound_u64(r, n, size, sizeof(uint64_t), addr);
}

ptrdiff_t
csp_range_find(const void *r, size_t n, size_t size, uint64_t addr)
{
    size_t i = csp_range_first_after(r, n, size, addr);

    return i < n && key_at(r, i, size, 0) <= addr ? (ptrdiff_t)i : -1;
}

int
csp_cmp_u64(const void *a, const void *b)
{
    uint64_t x, y;

    memcpy(&x, a, sizeof(x));
    memcpy(&y, b, sizeof(y));
    return x < y ? -1 : x > y;
}

size_t
csp_sort_unique_u64(uint64_t *v, size_t n)
{
    size_t k = 0;

    if (n > 1)
        qsort(v, n, sizeof(*v), csp_cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}
