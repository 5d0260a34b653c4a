/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_util.c -- checked allocation, error and message recording, a
 * three-word-key hash map and string interning for lib/profile.
 *
 * Tool code.  Allocation failure unwinds (longjmp) to the public entry
 * point that is running (PROF_GUARD in profile_internal.h), which returns
 * PROF_ENOMEM: checking every table insertion by hand would hide the logic,
 * and the library must neither print nor exit.  The hash map and string
 * table are private to lib/profile (lib/support has no shared one yet).
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "support/strtab.h"
#include "support/text.h"
#include "support/vec.h"

_Thread_local jmp_buf *prof_oom_env;
long prof_test_alloc_budget = -1;

/* Fault injection for the tests: true when this allocation must fail. */
static bool
prof_alloc_fails(void)
{
    if (prof_test_alloc_budget < 0)
        return false;
    if (prof_test_alloc_budget == 0)
        return true;
    prof_test_alloc_budget--;
    return false;
}

static void __attribute__((noreturn)) prof_oom(void)
{
    assert(prof_oom_env != NULL && "lib/profile allocation outside PROF_GUARD");
    if (prof_oom_env == NULL)
        abort();
    longjmp(*prof_oom_env, 1);
}

int
prof_nomem(struct prof_ctx *ctx)
{
    if (ctx != NULL) {
        free(ctx->errmsg);
        ctx->errmsg = NULL; /* prof_errmsg() then reports prof_strerror(PROF_ENOMEM) */
    }
    return PROF_ENOMEM;
}

/* The message is cleaned like prof_xclean(): names in it cannot move the cursor. */
static char *__attribute__((format(printf, 1, 0))) prof_vclean(const char *fmt, va_list ap)
{
    char *s, *clean;

    if (prof_alloc_fails() || vasprintf(&s, fmt, ap) < 0)
        prof_oom();
    clean = malloc(text_escaped_size(s));
    if (clean == NULL) {
        free(s);
        prof_oom();
    }
    text_escape(clean, s);
    free(s);
    return clean;
}

int
prof_fail(struct prof_ctx *ctx, int status, const char *fmt, ...)
{
    va_list ap;
    char *m;

    va_start(ap, fmt);
    m = prof_vclean(fmt, ap);
    va_end(ap);
    free(ctx->errmsg);
    ctx->errmsg = m;
    return status;
}

void
prof_msg(struct prof_ctx *ctx, enum prof_msg_level level, const char *fmt, ...)
{
    va_list ap;
    char *m;

    va_start(ap, fmt);
    m = prof_vclean(fmt, ap);
    va_end(ap);
    if (ctx->nmsgs == ctx->msgs_cap) {
        size_t cap = ctx->msgs_cap ? 2 * ctx->msgs_cap : 16;
        struct prof_message *msgs = realloc(ctx->msgs, cap * sizeof(*msgs));

        if (msgs == NULL) {
            free(m);
            prof_oom();
        }
        ctx->msgs = msgs;
        ctx->msgs_cap = cap;
    }
    ctx->msgs[ctx->nmsgs].level = level;
    ctx->msgs[ctx->nmsgs].text = m;
    ctx->msgs[ctx->nmsgs].module = ctx->msg_module;
    ctx->nmsgs++;
}

void *
prof_xmalloc(size_t size)
{
    void *p = prof_alloc_fails() ? NULL : malloc(size ? size : 1);

    if (p == NULL)
        prof_oom();
    return p;
}

void *
prof_xcalloc(size_t n, size_t size)
{
    void *p = prof_alloc_fails() ? NULL : calloc(n ? n : 1, size ? size : 1);

    if (p == NULL)
        prof_oom();
    return p;
}

void *
prof_xrealloc(void *p, size_t size)
{
    void *q = prof_alloc_fails() ? NULL : realloc(p, size ? size : 1);

    if (q == NULL)
        prof_oom();
    return q;
}

char *
prof_xstrdup(const char *s)
{
    char *d = prof_alloc_fails() ? NULL : strdup(s != NULL ? s : "");

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
    if (need <= *cap)
        return;
    if (prof_alloc_fails() || csp_vec_grow(arr, cap, need, elem) != 0)
        prof_oom(); /* *arr and *cap stay as they were */
}

/* splitmix64 finaliser: a cheap, well-mixed 64-bit hash step. */
static uint64_t
prof_hash3(uint64_t a, uint64_t b, uint64_t c)
{
    return csp_hash_u64(a ^ csp_hash_u64(b ^ csp_hash_u64(c)));
}

/* A key looked up: the map whose entries the index names, and the three words. */
struct prof_map_key {
    const struct prof_map *m;
    uint64_t a, b, c;
};

static bool
prof_map_eq(const void *val, const void *key)
{
    const struct prof_map_key *k = key;
    const struct prof_map_entry *e = &k->m->e[(uintptr_t)val - 1];

    return e->k[0] == k->a && e->k[1] == k->b && e->k[2] == k->c;
}

static struct prof_map_entry *
prof_map_find(const struct prof_map *m, uint64_t hash, uint64_t a, uint64_t b, uint64_t c)
{
    struct prof_map_key k = {m, a, b, c};
    uintptr_t i = (uintptr_t)csp_hmap_find(&m->index, hash, prof_map_eq, &k);

    return i == 0 ? NULL : &m->e[i - 1];
}

uint32_t
prof_map_get(const struct prof_map *m, uint64_t a, uint64_t b, uint64_t c)
{
    const struct prof_map_entry *e = prof_map_find(m, prof_hash3(a, b, c), a, b, c);

    return e != NULL ? e->val : PROF_NONE;
}

void
prof_map_put(struct prof_map *m, uint64_t a, uint64_t b, uint64_t c, uint32_t val)
{
    uint64_t hash = prof_hash3(a, b, c);
    struct prof_map_entry *e = prof_map_find(m, hash, a, b, c);

    if (e != NULL) {
        e->val = val;
        return;
    }
    prof_grow(&m->e, &m->cap, m->n + 1, sizeof(*m->e));
    /* The index's room first (it may fail: the tests inject that), then the entry. */
    if (prof_alloc_fails() || csp_hmap_reserve(&m->index, m->index.n + 1) != 0)
        prof_oom();
    m->e[m->n] = (struct prof_map_entry){{a, b, c}, val};
    if (csp_hmap_add(&m->index, hash, (void *)(uintptr_t)(m->n + 1)) != 0)
        prof_oom(); /* not reached: the room is reserved */
    m->n++;
}

void
prof_map_free(struct prof_map *m)
{
    csp_hmap_free(&m->index);
    free(m->e);
    m->e = NULL;
    m->n = m->cap = 0;
}

uint32_t
prof_intern(struct csp_strtab *t, const char *s)
{
    uint32_t id = csp_strtab_find(t, s);

    if (id == CSP_STRTAB_NONE && (prof_alloc_fails() || csp_strtab_intern(t, s, &id) != 0))
        prof_oom();
    return id;
}
