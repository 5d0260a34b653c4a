/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ranges.c -- sets of half-open address ranges: build, normalize,
 * intersect, subtract, and the text form used in structure files
 * ("0x1130-0x1150 0x1160-0x1170").
 *
 * Tool code only; never runs in a profiled process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "structure/structure_internal.h"
#include "support/search.h"
#include "support/sort.h"
#include "support/vec.h"

#define RVEC_FIRST_CAP 4 /* ranges in a vector's first allocation (then doubling) */

int
struct_rvec_push(struct struct_rvec *rv, uint64_t lo, uint64_t hi)
{
    if (rv->cap == 0) { /* most vectors (a scope's or a tree node's ranges) hold 1 or 2 */
        struct struct_range *v = realloc(rv->v, RVEC_FIRST_CAP * sizeof(*v));

        if (v == NULL)
            return STRUCT_ENOMEM;
        rv->v = v;
        rv->cap = RVEC_FIRST_CAP;
    } else if (rv->n == rv->cap &&
               csp_vec_reserve(&rv->v, &rv->cap, rv->n + 1, sizeof(*rv->v)) != 0) {
        return STRUCT_ENOMEM;
    }
    rv->v[rv->n].lo = lo;
    rv->v[rv->n].hi = hi;
    rv->n++;
    return 0;
}

void
struct_rvec_free(struct struct_rvec *rv)
{
    free(rv->v);
    rv->v = NULL;
    rv->n = rv->cap = 0;
}

static int
range_cmp(const void *a, const void *b)
{
    const struct struct_range *x = a, *y = b;

    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    return 0;
}

#define SORT_RANGES_LESS(a, b) (range_cmp((a), (b)) < 0)
CSP_SORT_DEFINE(sort_ranges, struct struct_range, SORT_RANGES_LESS)

void
struct_rvec_normalize(struct struct_rvec *rv)
{
    size_t i, o = 0;

    if (rv->n == 0)
        return; /* rv->v may be NULL */
    /* Most vectors arrive sorted; equal ranges are identical, so any sort gives the same result. */
    for (i = 1; i < rv->n; i++)
        if (range_cmp(&rv->v[i - 1], &rv->v[i]) > 0)
            break;
    if (i < rv->n)
        sort_ranges(rv->v, rv->n);
    for (i = 0; i < rv->n; i++) {
        if (rv->v[i].lo >= rv->v[i].hi)
            continue;
        if (o > 0 && rv->v[i].lo <= rv->v[o - 1].hi) {
            if (rv->v[i].hi > rv->v[o - 1].hi)
                rv->v[o - 1].hi = rv->v[i].hi;
            continue;
        }
        rv->v[o++] = rv->v[i];
    }
    rv->n = o;
}

int
struct_ranges_intersect(const struct struct_range *a, size_t na, const struct struct_range *b,
                        size_t nb, struct struct_rvec *out)
{
    size_t i = 0, j = 0;

    out->n = 0;
    while (i < na && j < nb) {
        uint64_t lo = a[i].lo > b[j].lo ? a[i].lo : b[j].lo;
        uint64_t hi = a[i].hi < b[j].hi ? a[i].hi : b[j].hi;

        if (lo < hi && struct_rvec_push(out, lo, hi) != 0)
            return STRUCT_ENOMEM;
        if (a[i].hi < b[j].hi)
            i++;
        else
            j++;
    }
    return 0;
}

int
struct_ranges_subtract(const struct struct_range *a, size_t na, const struct struct_range *b,
                       size_t nb, struct struct_rvec *out)
{
    size_t i, j = 0;

    out->n = 0;
    for (i = 0; i < na; i++) {
        uint64_t lo = a[i].lo;

        while (j < nb && b[j].hi <= lo)
            j++;
        for (size_t k = j; k < nb && b[k].lo < a[i].hi; k++) {
            if (b[k].lo > lo && struct_rvec_push(out, lo, b[k].lo) != 0)
                return STRUCT_ENOMEM;
            if (b[k].hi > lo)
                lo = b[k].hi;
        }
        if (lo < a[i].hi && struct_rvec_push(out, lo, a[i].hi) != 0)
            return STRUCT_ENOMEM;
    }
    return 0;
}

char *
struct_put_hex(char *p, uint64_t v)
{
    char tmp[16];
    size_t n = 0;

    *p++ = '0';
    *p++ = 'x';
    do {
        tmp[n++] = "0123456789abcdef"[v & 0xf];
        v >>= 4;
    } while (v != 0);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

size_t
struct_ranges_format_buf(const struct struct_range *r, size_t n, char *buf)
{
    char *p = buf;

    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            *p++ = ' ';
        p = struct_put_hex(p, r[i].lo);
        *p++ = '-';
        p = struct_put_hex(p, r[i].hi);
    }
    *p = '\0';
    return (size_t)(p - buf);
}

char *
struct_ranges_format(const struct struct_range *r, size_t n)
{
    char *s = malloc(n * STRUCT_RANGE_CHARS + 1);

    if (s == NULL)
        return NULL;
    struct_ranges_format_buf(r, n, s);
    return s;
}

/* Parse one "0x..." number at *p; advances *p.  -1 on syntax error. */
static int
parse_hex(const char **p, uint64_t *val)
{
    const char *s = *p;
    char *end;

    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') ||
        !((s[2] >= '0' && s[2] <= '9') || (s[2] >= 'a' && s[2] <= 'f') ||
          (s[2] >= 'A' && s[2] <= 'F')))
        return -1;
    errno = 0;
    *val = strtoull(s + 2, &end, 16);
    if (errno != 0)
        return -1;
    *p = end;
    return 0;
}

int
struct_ranges_parse(const char *s, struct struct_rvec *out)
{
    const char *p = s;

    out->n = 0;
    for (;;) {
        uint64_t lo, hi;

        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (*p == '\0')
            return 0;
        if (parse_hex(&p, &lo) != 0 || *p++ != '-' || parse_hex(&p, &hi) != 0 || lo >= hi)
            return -1;
        if (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            return -1;
        if (struct_rvec_push(out, lo, hi) != 0)
            return STRUCT_ENOMEM;
    }
}

bool
struct_ranges_contain(const struct struct_range *r, size_t n, uint64_t addr)
{
    return csp_range_find(r, n, sizeof(*r), addr) >= 0;
}
