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

uint32_t
prof_intern(struct csp_strtab *t, const char *s)
{
    uint32_t id = csp_strtab_find(t, s);

    if (id == CSP_STRTAB_NONE && (prof_alloc_fails() || csp_strtab_intern(t, s, &id) != 0))
        prof_oom();
    return id;
}
