/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * normalize.c -- the normalization of a procedure's rebuilt loop tree
 * (loopnest.h): the bloop rules of J. Mellor-Crummey et al., "HPCView: A
 * Tool for Top-down Analysis of Node Performance", J. Supercomputing
 * 23(1), 2002, §3, less the collapsing of perfect nests (loopnest.c's
 * header says why).  Rule 1 fuses sibling loops that hold instances of
 * one statement; rule 2 moves a statement instance into its innermost
 * instance below.
 *
 * Tool code only; one tree per thread; never prints.
 */
#include <stdlib.h>
#include <string.h>

#include "structure/loopnest.h"
#include "support/search.h"
#include "support/sort.h"
#include "support/vec.h"

/* ---- normalization ------------------------------------------------------- */

/* Move @c under @to, merging it into a same-keyed child there. */
static int merge_into(struct rebuild *rb, struct tree_node *a, struct tree_node *b);

static int
adopt(struct rebuild *rb, struct tree_node *to, struct tree_node *c)
{
    uintptr_t k1;
    uint32_t k2;
    struct tree_node *same;

    if (c->kind == CSP_SCOPE_LOOP || c->kind == CSP_SCOPE_CALL) {
        struct_tree_unlink(c);
        struct_tree_link(to, c);
        return c->kind == CSP_SCOPE_LOOP ? struct_tree_index(rb, to, c) : 0;
    }
    struct_tree_key(c, &k1, &k2);
    same = struct_tree_find(rb, to, c->kind, k1, k2);
    if (same != NULL)
        return merge_into(rb, same, c);
    struct_tree_unlink(c);
    struct_tree_link(to, c);
    return struct_tree_index(rb, to, c);
}

/* Fold @b (a sibling or descendant of @a) into @a; @b dies. */
static int
merge_into(struct rebuild *rb, struct tree_node *a, struct tree_node *b)
{
    struct tree_node *c, *next;
    uint64_t asize, bsize;

    struct_rvec_normalize(&a->ranges);
    struct_rvec_normalize(&b->ranges);
    asize = struct_rvec_bytes(&a->ranges);
    bsize = struct_rvec_bytes(&b->ranges);
    if (struct_rvec_append_all(&a->ranges, &b->ranges) != 0 ||
        struct_rvec_append_all(&a->entries, &b->entries) != 0)
        return STRUCT_ENOMEM;
    struct_rvec_normalize(&a->ranges);
    struct_rvec_normalize(&a->entries);
    a->flags |= b->flags;
    /* The fused loop keeps the line of its larger part (the loop body, not a
     * peeled or versioned piece that may carry another loop's line). */
    if (a->kind == CSP_SCOPE_LOOP && b->line != 0 &&
        (a->line == 0 || bsize > asize ||
         (bsize == asize && a->file == b->file && b->line < a->line))) {
        a->file = b->file;
        a->line = b->line;
    }
    for (c = b->first; c != NULL; c = next) {
        next = c->next;
        if (adopt(rb, a, c) != 0)
            return STRUCT_ENOMEM;
    }
    if (b->parent != NULL)
        struct_tree_unlink(b);
    b->dead = true;
    return 0;
}

/* A statement instance under a child loop of the scope being normalized. */
struct stmt_inst {
    const struct struct_scope *ctx;
    const char *file;
    uint32_t line;
    uint32_t group; /* rule 1: index of the child loop; rule 2: loop depth */
    uint64_t lo;
    struct tree_node *node;
};

struct inst_vec {
    struct stmt_inst *v;
    size_t n, cap;
};

/* The inlined context @n's statements belong in: its nearest INLINE scope's, else @proc. */
static const struct struct_scope *
inline_ctx(const struct tree_node *n, const struct struct_scope *proc)
{
    for (; n != NULL; n = n->parent)
        if (n->kind == CSP_SCOPE_INLINE)
            return n->ctx;
    return proc;
}

/*
 * The statement instances below @n, which sits in inlined context @in.
 * Rows that a caller owns inside its callee's loop (placed there by
 * loop_contexts()) are no instances: hoisted or shared caller code must
 * not fuse the callee's loop with the caller's.
 */
static int
collect_insts(struct inst_vec *iv, struct tree_node *n, const struct struct_scope *in,
              uint32_t group, uint32_t depth, bool by_depth)
{
    for (struct tree_node *c = n->first; c != NULL; c = c->next) {
        if (c->kind == CSP_SCOPE_STMT && c->ctx == in) {
            if (csp_vec_reserve(&iv->v, &iv->cap, iv->n + 1, sizeof(*iv->v)) != 0)
                return STRUCT_ENOMEM;
            iv->v[iv->n++] = (struct stmt_inst){c->ctx,
                                                c->file,
                                                c->line,
                                                by_depth ? depth : group,
                                                c->ranges.n ? c->ranges.v[0].lo : 0,
                                                c};
        } else if (c->kind == CSP_SCOPE_LOOP || c->kind == CSP_SCOPE_INLINE) {
            if (collect_insts(iv, c, c->kind == CSP_SCOPE_INLINE ? c->ctx : in, group,
                              depth + (c->kind == CSP_SCOPE_LOOP), by_depth) != 0)
                return STRUCT_ENOMEM;
        }
    }
    return 0;
}

static int
inst_key_cmp(const struct stmt_inst *a, const struct stmt_inst *b)
{
    if (a->ctx != b->ctx)
        return (uintptr_t)a->ctx < (uintptr_t)b->ctx ? -1 : 1;
    if (a->file != b->file)
        return (uintptr_t)a->file < (uintptr_t)b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return 0;
}

/* inst_key_cmp() for csp_lower_bound(). */
static int
inst_key_cmp_v(const void *rec, const void *key)
{
    return inst_key_cmp(rec, key);
}

/* By key, then deepest first, then lowest address (deterministic). */
static int
inst_cmp(const void *pa, const void *pb)
{
    const struct stmt_inst *a = pa, *b = pb;
    int c = inst_key_cmp(a, b);

    if (c != 0)
        return c;
    if (a->group != b->group)
        return a->group > b->group ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

#define SORT_INSTS_LESS(a, b) (inst_cmp((a), (b)) < 0)
CSP_SORT_DEFINE(sort_insts, struct stmt_inst, SORT_INSTS_LESS)

static uint32_t
uf_find32(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Rule 1 at @x: fuse child loops that share a statement. */
static int
fuse_child_loops(struct rebuild *rb, struct tree_node *x)
{
    struct tree_node **kids = NULL;
    struct inst_vec iv = {0};
    uint32_t *uf = NULL, nk = 0;
    int rc = STRUCT_ENOMEM;

    for (struct tree_node *c = x->first; c != NULL; c = c->next)
        nk += c->kind == CSP_SCOPE_LOOP;
    if (nk < 2)
        return 0;
    kids = malloc(nk * sizeof(*kids));
    uf = malloc(nk * sizeof(*uf));
    if (kids == NULL || uf == NULL)
        goto out;
    nk = 0;
    for (struct tree_node *c = x->first; c != NULL; c = c->next)
        if (c->kind == CSP_SCOPE_LOOP) {
            uf[nk] = nk;
            kids[nk] = c;
            if (collect_insts(&iv, c, inline_ctx(x, rb->proc), nk, 0, false) != 0)
                goto out;
            nk++;
        }
    if (iv.n > 1)
        sort_insts(iv.v, iv.n);
    for (size_t i = 1; i < iv.n; i++)
        if (inst_key_cmp(&iv.v[i - 1], &iv.v[i]) == 0) {
            uint32_t a = uf_find32(uf, iv.v[i - 1].group), b = uf_find32(uf, iv.v[i].group);

            if (a != b) { /* the lower index (earlier sibling) stays the root */
                if (a < b)
                    uf[b] = a;
                else
                    uf[a] = b;
            }
        }
    for (uint32_t i = 0; i < nk; i++) {
        uint32_t r = uf_find32(uf, i);

        if (r != i && merge_into(rb, kids[r], kids[i]) != 0)
            goto out;
    }
    rc = 0;
out:
    free(kids);
    free(uf);
    free(iv.v);
    return rc;
}

/* Rule 2 at @x: move statements of @x into their innermost instance below. */
static int
sink_statements(struct rebuild *rb, struct tree_node *x)
{
    struct inst_vec iv = {0};
    struct tree_node *c, *next;
    int rc = STRUCT_ENOMEM;

    for (c = x->first; c != NULL; c = c->next)
        if (c->kind == CSP_SCOPE_LOOP &&
            collect_insts(&iv, c, inline_ctx(x, rb->proc), 0, 1, true) != 0)
            goto out;
    if (iv.n == 0)
        return 0;
    sort_insts(iv.v, iv.n);
    for (c = x->first; c != NULL; c = next) {
        struct stmt_inst key = {0};
        size_t lo;

        next = c->next;
        if (c->kind != CSP_SCOPE_STMT)
            continue;
        key.ctx = c->ctx;
        key.file = c->file;
        key.line = c->line;
        lo = csp_lower_bound(iv.v, iv.n, sizeof(*iv.v), &key, inst_key_cmp_v);
        if (lo == iv.n || inst_key_cmp(&iv.v[lo], &key) != 0)
            continue;
        for (struct tree_node *t = iv.v[lo].node; t != x; t = t->parent) {
            if (struct_rvec_append_all(&t->ranges, &c->ranges) != 0)
                goto out;
            struct_rvec_normalize(&t->ranges);
        }
        struct_tree_unlink(c);
        c->dead = true;
    }
    rc = 0;
out:
    free(iv.v);
    return rc;
}

int
struct_tree_normalize(struct rebuild *rb, struct tree_node *x)
{
    if (fuse_child_loops(rb, x) != 0 || sink_statements(rb, x) != 0)
        return STRUCT_ENOMEM;
    for (struct tree_node *c = x->first; c != NULL; c = c->next)
        if ((c->kind == CSP_SCOPE_LOOP || c->kind == CSP_SCOPE_INLINE) &&
            struct_tree_normalize(rb, c) != 0)
            return STRUCT_ENOMEM;
    return 0;
}
