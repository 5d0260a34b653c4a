/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_util.c -- checked allocation, a three-word-key hash map and string
 * interning for csprof-prof.
 *
 * Tool code.  Allocation failure prints one line and exits with status 1:
 * an analysis tool has nothing useful to do without memory, and checking
 * every table insertion would hide the logic.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof_internal.h"
#include "support/text.h"

static void
prof_oom(void)
{
    fputs("csprof-prof: out of memory\n", stderr);
    exit(PROF_EXIT_FAIL);
}

void *
prof_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);

    if (p == NULL)
        prof_oom();
    return p;
}

void *
prof_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);

    if (p == NULL)
        prof_oom();
    return p;
}

void *
prof_xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);

    if (q == NULL)
        prof_oom();
    return q;
}

char *
prof_xstrdup(const char *s)
{
    char *d = strdup(s != NULL ? s : "");

    if (d == NULL)
        prof_oom();
    return d;
}

char *
prof_xclean(const char *s)
{
    char *d;

    if (s == NULL)
        s = "";
    d = prof_xmalloc(text_escaped_size(s));
    text_escape(d, s);
    return d;
}

void
prof_eprintf(const char *fmt, ...)
{
    va_list ap;
    char *s, *clean;
    int rc;

    va_start(ap, fmt);
    rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0)
        prof_oom();
    clean = prof_xclean(s);
    fprintf(stderr, "csprof-prof: %s\n", clean);
    free(clean);
    free(s);
}

char *
prof_xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    int rc;

    va_start(ap, fmt);
    rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0)
        prof_oom();
    return s;
}

void
prof_grow(void *arr, size_t *cap, size_t need, size_t elem)
{
    void **p = arr;
    size_t ncap = *cap ? *cap : 16;

    if (need <= *cap)
        return;
    while (ncap < need)
        ncap *= 2;
    *p = prof_xrealloc(*p, ncap * elem);
    *cap = ncap;
}

/* splitmix64 finaliser: a cheap, well-mixed 64-bit hash step. */
static uint64_t
prof_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t
prof_hash3(uint64_t a, uint64_t b, uint64_t c)
{
    return prof_mix(a ^ prof_mix(b ^ prof_mix(c)));
}

static struct prof_map_slot *
prof_map_find(const struct prof_map *m, uint64_t a, uint64_t b, uint64_t c)
{
    size_t mask = m->cap - 1, i;

    for (i = prof_hash3(a, b, c) & mask;; i = (i + 1) & mask) {
        struct prof_map_slot *s = &m->slots[i];

        if (!s->used || (s->k[0] == a && s->k[1] == b && s->k[2] == c))
            return s;
    }
}

uint32_t
prof_map_get(const struct prof_map *m, uint64_t a, uint64_t b, uint64_t c)
{
    const struct prof_map_slot *s;

    if (m->cap == 0)
        return PROF_NONE;
    s = prof_map_find(m, a, b, c);
    return s->used ? s->val : PROF_NONE;
}

void
prof_map_put(struct prof_map *m, uint64_t a, uint64_t b, uint64_t c, uint32_t val)
{
    struct prof_map_slot *s;

    if ((m->n + 1) * 4 > m->cap * 3) { /* keep the load factor below 3/4 */
        struct prof_map old = *m;
        size_t i;

        m->cap = old.cap ? old.cap * 2 : 64;
        m->slots = prof_xcalloc(m->cap, sizeof(*m->slots));
        m->n = 0;
        for (i = 0; i < old.cap; i++)
            if (old.slots[i].used)
                prof_map_put(m, old.slots[i].k[0], old.slots[i].k[1], old.slots[i].k[2],
                             old.slots[i].val);
        free(old.slots);
    }
    s = prof_map_find(m, a, b, c);
    if (!s->used) {
        s->used = 1;
        s->k[0] = a;
        s->k[1] = b;
        s->k[2] = c;
        m->n++;
    }
    s->val = val;
}

void
prof_map_free(struct prof_map *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}

/* FNV-1a, 64-bit. */
static uint64_t
prof_hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static size_t
prof_strtab_slot(const struct prof_strtab *t, const char *s)
{
    size_t mask = t->index_cap - 1, i;

    for (i = prof_hash_str(s) & mask;; i = (i + 1) & mask)
        if (t->index[i] == PROF_NONE || strcmp(t->strs[t->index[i]], s) == 0)
            return i;
}

uint32_t
prof_strtab_find(const struct prof_strtab *t, const char *s)
{
    if (t->index_cap == 0)
        return PROF_NONE;
    return t->index[prof_strtab_slot(t, s)];
}

uint32_t
prof_intern(struct prof_strtab *t, const char *s)
{
    size_t slot;
    uint32_t id;

    if (s == NULL)
        s = "";
    if ((t->n + 1) * 2 > t->index_cap) { /* load factor below 1/2 */
        size_t i;

        free(t->index);
        t->index_cap = t->index_cap ? t->index_cap * 2 : 256;
        t->index = prof_xmalloc(t->index_cap * sizeof(*t->index));
        memset(t->index, 0xff, t->index_cap * sizeof(*t->index));
        for (i = 0; i < t->n; i++)
            t->index[prof_strtab_slot(t, t->strs[i])] = (uint32_t)i;
    }
    slot = prof_strtab_slot(t, s);
    if (t->index[slot] != PROF_NONE)
        return t->index[slot];
    prof_grow(&t->strs, &t->cap, t->n + 1, sizeof(*t->strs));
    id = (uint32_t)t->n++;
    t->strs[id] = prof_xstrdup(s);
    t->index[slot] = id;
    return id;
}

void
prof_strtab_free(struct prof_strtab *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->index);
    memset(t, 0, sizeof(*t));
}
