/* SPDX-License-Identifier: BSD-3-Clause */
/* strtab.c -- the string interner (strtab.h). */
#include "support/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "support/hashmap.h"
#include "support/vec.h"

/* The slot of @s: where it is, or the empty slot where it would go. */
static size_t
slot_of(const struct csp_strtab *t, const char *s)
{
    size_t mask = t->index_cap - 1, i;

    for (i = csp_hash_str(s) & mask;; i = (i + 1) & mask)
        if (t->index[i] == CSP_STRTAB_NONE || strcmp(t->strs[t->index[i]], s) == 0)
            return i;
}

uint32_t
csp_strtab_find(const struct csp_strtab *t, const char *s)
{
    if (s == NULL)
        s = "";
    return t->index_cap == 0 ? CSP_STRTAB_NONE : t->index[slot_of(t, s)];
}

/* Rebuild the index with @ncap slots; -1 when it cannot be allocated (the old one stays). */
static int
rehash(struct csp_strtab *t, size_t ncap)
{
    uint32_t *index = malloc(ncap * sizeof(*index));

    if (index == NULL)
        return -1;
    free(t->index);
    t->index = index;
    t->index_cap = ncap;
    memset(t->index, 0xff, ncap * sizeof(*index)); /* every slot CSP_STRTAB_NONE */
    for (size_t i = 0; i < t->n; i++)
        t->index[slot_of(t, t->strs[i])] = (uint32_t)i;
    return 0;
}

int
csp_strtab_intern(struct csp_strtab *t, const char *s, uint32_t *id)
{
    size_t slot;
    char *copy;

    if (s == NULL)
        s = "";
    if ((t->n + 1) * 2 > t->index_cap && rehash(t, t->index_cap ? t->index_cap * 2 : 256) != 0)
        return -1;
    slot = slot_of(t, s);
    if (t->index[slot] == CSP_STRTAB_NONE) {
        if (t->n >= CSP_STRTAB_NONE ||
            csp_vec_reserve(&t->strs, &t->cap, t->n + 1, sizeof(*t->strs)) != 0 ||
            (copy = strdup(s)) == NULL)
            return -1;
        t->strs[t->n] = copy;
        t->index[slot] = (uint32_t)t->n++;
    }
    *id = t->index[slot];
    return 0;
}

void
csp_strtab_free(struct csp_strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->index);
    memset(t, 0, sizeof(*t));
}
