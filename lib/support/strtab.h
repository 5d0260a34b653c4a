/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * strtab.h -- the string interner: each distinct string gets a dense id
 * (0, 1, 2... in order of first appearance) and one owned copy, so that
 * names are compared and stored as 32-bit ids.  Open addressing over the
 * ids (csp_hash_str, FNV-1a), the index kept at most half full; strings are
 * never removed.  A zeroed struct is an empty table.  Tool code: uses
 * malloc.  [not async-signal-safe]
 *
 *     struct csp_strtab t = {0};
 *     uint32_t id;
 *     if (csp_strtab_intern(&t, "main", &id) != 0) return -ENOMEM;
 *     puts(t.strs[id]);
 *     csp_strtab_free(&t);
 */
#ifndef CSP_STRTAB_H
#define CSP_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#define CSP_STRTAB_NONE UINT32_MAX /* "not interned" */

struct csp_strtab {
    char **strs;      /* owned copies, indexed by id; read them directly */
    size_t n;         /* strings interned: ids 0 .. n-1 */
    size_t cap;       /* capacity of strs */
    uint32_t *index;  /* open addressing over ids; CSP_STRTAB_NONE = empty slot */
    size_t index_cap; /* slots, 0 or a power of two */
};

/*
 * Intern @s (NULL is ""): *@id gets the id of its copy, a new one when @s
 * was not there.  Returns 0, or -1 when memory runs out (the table is then
 * unchanged and still valid).  [not async-signal-safe]
 */
int csp_strtab_intern(struct csp_strtab *t, const char *s, uint32_t *id);

/* The id of @s (NULL is ""), or CSP_STRTAB_NONE when not interned.  [not async-signal-safe] */
uint32_t csp_strtab_find(const struct csp_strtab *t, const char *s);

/* Free the copies and the index; the table is then empty (zeroed).  [not async-signal-safe] */
void csp_strtab_free(struct csp_strtab *t);

#endif /* CSP_STRTAB_H */
