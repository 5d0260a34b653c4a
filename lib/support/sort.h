/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sort.h -- a stable sort specialised per element type, with the
 * comparison inlined: qsort(3) calls its comparison function through a
 * pointer for every step and copies elements bytewise, which made glibc's
 * qsort about an eighth of csprof-struct's CPU time, spread over a dozen
 * callers sorting address ranges and tree pieces.
 *
 *   CSP_SORT_DEFINE(NAME, TYPE, LESS)
 *
 * defines `static void NAME(TYPE *v, size_t n)` (TYPE a single name: a
 * typedef for pointer types), which sorts the @n
 * elements of @v into ascending order of LESS, a macro or function
 * taking two `const TYPE *` and true when the first goes strictly
 * before the second.  Equal elements keep their order (stable), as glibc's
 * qsort keeps them (a merge sort) and callers such as the structure
 * finalizer rely on.
 *
 * Algorithm: already-sorted input returns after one pass; runs of
 * CSP_SORT_RUN elements are sorted by insertion, then merged bottom-up
 * (Knuth, TAOCP vol. 3, §5.2.4, straight two-way merging) through a
 * buffer of @n elements, on the stack up to CSP_SORT_STACK bytes, else
 * from malloc.  Without memory it falls back to insertion sort of the
 * whole array: still stable and correct, but O(n^2).  Never fails.
 *
 * Not async-signal-safe (malloc); reentrant.  Tool code only.
 */
#ifndef CSP_SORT_H
#define CSP_SORT_H

#include <stdlib.h>
#include <string.h>

#define CSP_SORT_RUN   16   /* elements per insertion-sorted run */
#define CSP_SORT_STACK 4096 /* bytes of merge buffer taken from the stack */

#define CSP_SORT_DEFINE(NAME, TYPE, LESS)                                                        \
    static inline void NAME##_insertion_(TYPE *v, size_t n)                                      \
    {                                                                                            \
        for (size_t i_ = 1; i_ < n; i_++) {                                                      \
            TYPE x_ = v[i_];                                                                     \
            size_t j_ = i_;                                                                      \
                                                                                                 \
            while (j_ > 0 && LESS(&x_, &v[j_ - 1])) {                                            \
                v[j_] = v[j_ - 1];                                                               \
                j_--;                                                                            \
            }                                                                                    \
            v[j_] = x_;                                                                          \
        }                                                                                        \
    }                                                                                            \
                                                                                                 \
    /* Merge the sorted halves a[lo, mid) and a[mid, hi) into out[lo, hi). */                    \
    static inline void NAME##_merge_(const TYPE *a, TYPE *out, size_t lo, size_t mid, size_t hi) \
    {                                                                                            \
        size_t i_ = lo, j_ = mid, k_ = lo;                                                       \
                                                                                                 \
        while (i_ < mid && j_ < hi)                                                              \
            out[k_++] = LESS(&a[j_], &a[i_]) ? a[j_++] : a[i_++];                                \
        while (i_ < mid)                                                                         \
            out[k_++] = a[i_++];                                                                 \
        while (j_ < hi)                                                                          \
            out[k_++] = a[j_++];                                                                 \
    }                                                                                            \
                                                                                                 \
    static void NAME(TYPE *v, size_t n)                                                          \
    {                                                                                            \
        TYPE stack_[CSP_SORT_STACK / sizeof(TYPE) + 1];                                          \
        TYPE *tmp_;                                                                              \
        TYPE *src_;                                                                              \
        TYPE *dst_;                                                                              \
        size_t i_;                                                                               \
                                                                                                 \
        for (i_ = 1; i_ < n && !LESS(&v[i_], &v[i_ - 1]); i_++)                                  \
            ;                                                                                    \
        if (i_ >= n)                                                                             \
            return; /* sorted already (or n <= 1) */                                             \
        if (n <= CSP_SORT_RUN) {                                                                 \
            NAME##_insertion_(v, n);                                                             \
            return;                                                                              \
        }                                                                                        \
        tmp_ = n <= sizeof(stack_) / sizeof(TYPE) ? stack_ : malloc(n * sizeof(TYPE));           \
        if (tmp_ == NULL) {                                                                      \
            NAME##_insertion_(v, n); /* no memory: slow but sorted */                            \
            return;                                                                              \
        }                                                                                        \
        for (i_ = 0; i_ < n; i_ += CSP_SORT_RUN)                                                 \
            NAME##_insertion_(v + i_, n - i_ < CSP_SORT_RUN ? n - i_ : CSP_SORT_RUN);            \
        src_ = v;                                                                                \
        dst_ = tmp_;                                                                             \
        for (size_t w_ = CSP_SORT_RUN; w_ < n; w_ *= 2) {                                        \
            TYPE *t_;                                                                            \
                                                                                                 \
            for (size_t lo_ = 0; lo_ < n; lo_ += 2 * w_) {                                       \
                size_t mid_ = lo_ + w_ < n ? lo_ + w_ : n;                                       \
                size_t hi_ = lo_ + 2 * w_ < n ? lo_ + 2 * w_ : n;                                \
                                                                                                 \
                NAME##_merge_(src_, dst_, lo_, mid_, hi_);                                       \
            }                                                                                    \
            t_ = src_;                                                                           \
            src_ = dst_;                                                                         \
            dst_ = t_;                                                                           \
        }                                                                                        \
        if (src_ != v)                                                                           \
            memcpy(v, src_, n * sizeof(TYPE));                                                   \
        if (tmp_ != stack_)                                                                      \
            free(tmp_);                                                                          \
    }

#endif /* CSP_SORT_H */
