/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vec.h -- the growable array: one way to grow a malloc'ed array.
 *
 * An array is a pointer, a count and a capacity owned by the caller;
 * csp_vec_reserve() makes room, doubling (from 16 elements) so that n
 * pushes cost O(n) copies in all.  Overflow of the byte size is checked.
 * Tool code: uses realloc.  [not async-signal-safe]
 *
 *     struct thing *v = NULL; size_t n = 0, cap = 0;
 *     if (csp_vec_reserve(&v, &cap, n + 1, sizeof(*v)) != 0) return -ENOMEM;
 *     v[n++] = t;
 *     ...
 *     free(v);
 */
#ifndef CSP_VEC_H
#define CSP_VEC_H

#include <stddef.h>

/*
 * Make the malloc'ed array *@pv (NULL when empty; a pointer to any object
 * pointer, passed as void *) hold at least @need elements of @size bytes;
 * *@cap is its capacity in elements.  Returns 0, or -1 on allocation
 * failure or size overflow, leaving *@pv and *@cap unchanged.  The array
 * is released with free().  csp_vec_grow() is the out-of-line part that
 * reallocates.  [not async-signal-safe]
 */
int csp_vec_grow(void *pv, size_t *cap, size_t need, size_t size);

/* Inline fast path: nothing to do when the array holds @need already. */
static inline int
csp_vec_reserve(void *pv, size_t *cap, size_t need, size_t size)
{
    return need <= *cap ? 0 : csp_vec_grow(pv, cap, need, size);
}

#endif /* CSP_VEC_H */
