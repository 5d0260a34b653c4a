/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vec.c -- growing malloc'ed arrays (see vec.h).  Tool code.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support/vec.h"

int
csp_vec_grow(void *pv, size_t *cap, size_t need, size_t size)
{
    void *old, *v;
    size_t ncap;

    if (need <= *cap)
        return 0;
    if (size == 0)
        return -1;
    ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return -1;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / size)
        return -1;
    memcpy(&old, pv, sizeof(old));
    v = realloc(old, ncap * size);
    if (v == NULL)
        return -1;
    memcpy(pv, &v, sizeof(v));
    *cap = ncap;
    return 0;
}
