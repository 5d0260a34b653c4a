/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * names.c -- names for scopes: DWARF strings interned through a cache
 * keyed by their address, and demangled linkage names cached per name.
 * Tool code only.
 */
#include <stdint.h>
#include <stdlib.h>

#include "structure/binary_internal.h"

static size_t
str_cache_slot(const char *key)
{
    return (size_t)(((uintptr_t)key * 0x9e3779b97f4a7c15ULL) >> (64 - STR_CACHE_BITS));
}

/* Stands for "not mangled" in the demangling cache. */
static const char not_mangled[] = "";

/* Demangled name of @link (interned), or NULL when it is not mangled. */
const char *
bin_demangled(struct analysis *an, const char *link)
{
    struct str_cache_ent *e = an->demangled != NULL ? &an->demangled[str_cache_slot(link)] : NULL;
    char *d;
    const char *s;

    if (e != NULL && e->key == link)
        return e->val == not_mangled ? NULL : e->val;
    d = struct_demangle(link);
    if (d == NULL) {
        s = NULL;
    } else {
        s = struct_intern(an->m, d);
        free(d);
        if (s == NULL)
            return NULL; /* out of memory: not cached */
    }
    if (e != NULL) {
        e->key = link;
        e->val = s != NULL ? s : not_mangled;
    }
    return s;
}

/*
 * struct_intern() for a string that lives in the DWARF data (or libdw's
 * per-CU file tables) until dwarf_end(), so its address names its text.
 */
const char *
bin_intern_dw(struct analysis *an, const char *s)
{
    struct str_cache_ent *e;
    const char *v;

    if (s == NULL)
        return NULL;
    e = an->dw_strs != NULL ? &an->dw_strs[str_cache_slot(s)] : NULL;
    if (e != NULL && e->key == s)
        return e->val;
    v = struct_intern(an->m, s);
    if (e != NULL && v != NULL) {
        e->key = s;
        e->val = v;
    }
    return v;
}
