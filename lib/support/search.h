/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * search.h -- binary search over sorted arrays of records with a uint64_t
 * key (an address, the start or end of an address range).
 *
 * One primitive instead of a hand-written loop in every module: the
 * record layout is given by its size and the byte offset of its key, so
 * any struct { uint64_t lo, hi; ... } array is searched in place.  Keys
 * are read with memcpy (no alignment assumption).  The searches are pure
 * functions: no allocation, no global state.  [async-signal-safe]
 * csp_sort_unique_u64() makes the sorted set such searches expect.
 * Algorithm: lower/upper bound as in Knuth, TAOCP vol. 3, §6.2.1
 * (uniform binary search), O(log n) comparisons.
 */
#ifndef CSP_SEARCH_H
#define CSP_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The searches are inline: callers pass the record size and key offset as
 * constants (sizeof, offsetof), which then fold into the loop, as fast as
 * the hand-written copies they replace in the structure analysis.
 */

/* The key of record @i.  [async-signal-safe] */
static inline uint64_t
csp_search_key_(const void *base, size_t i, size_t size, size_t off)
{
    uint64_t k;

    memcpy(&k, (const unsigned char *)base + i * size + off, sizeof(k));
    return k;
}

/*
 * Index of the first of the @n records of @size bytes at @base whose key
 * (the uint64_t at byte @off of the record) is >= @v; @n when none is.
 * The keys must be non-decreasing.  [async-signal-safe]
 */
static inline size_t
csp_lower_bound_u64(const void *base, size_t n, size_t size, size_t off, uint64_t v)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (csp_search_key_(base, mid, size, off) < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Same, for the first key > @v (the first >= @v + 1).  [async-signal-safe] */
static inline size_t
csp_upper_bound_u64(const void *base, size_t n, size_t size, size_t off, uint64_t v)
{
    return v == UINT64_MAX ? n : csp_lower_bound_u64(base, n, size, off, v + 1);
}

/* Half-open address range [lo, hi): the layout the range helpers below expect. */
struct csp_range {
    uint64_t lo, hi;
};

/*
 * For @n sorted, non-overlapping ranges [lo, hi) at @r (records of @size
 * bytes starting with the two uint64_t fields lo, hi, as struct
 * csp_range): index of the first range that ends after @addr (hi > addr),
 * @n when none does.  The range contains @addr when its lo <= @addr.
 * [async-signal-safe]
 */
static inline size_t
csp_range_first_after(const void *r, size_t n, size_t size, uint64_t addr)
{
    return csp_upper_bound_u64(r, n, size, sizeof(uint64_t), addr);
}

/*
 * Index of the range at @r (as above) that contains @addr, or -1 when
 * none does.  [async-signal-safe]
 */
static inline ptrdiff_t
csp_range_find(const void *r, size_t n, size_t size, uint64_t addr)
{
    size_t i = csp_range_first_after(r, n, size, addr);

    return i < n && csp_search_key_(r, i, size, 0) <= addr ? (ptrdiff_t)i : -1;
}

/*
 * The general lower bound: index of the first of the @n records of @size
 * bytes at @base for which @cmp(record, @key) >= 0, @n when none is; the
 * records must be sorted so that @cmp(record, @key) does not decrease.
 * [async-signal-safe when @cmp is]
 */
size_t csp_lower_bound(const void *base, size_t n, size_t size, const void *key,
                       int (*cmp)(const void *rec, const void *key));

/* qsort(3) comparator of two uint64_t, ascending.  [async-signal-safe] */
int csp_cmp_u64(const void *a, const void *b);

/*
 * Sort the @n values at @v ascending (CSP_SORT_DEFINE of sort.h: a merge
 * sort with the comparison inlined).  @v may be NULL when @n is 0.
 * [not async-signal-safe: may allocate]
 */
void csp_sort_u64(uint64_t *v, size_t n);

/*
 * Sort the @n values at @v ascending (csp_sort_u64()) and drop repeated ones,
 * keeping the first of each run; returns the number of distinct values,
 * which now fill v[0 .. returned).  @v may be NULL when @n is 0.
 * [not async-signal-safe: may allocate]
 */
size_t csp_sort_unique_u64(uint64_t *v, size_t n);

#endif /* CSP_SEARCH_H */
