/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_flat.c -- the static (flat) view: the program's own structure, load
 * module > file > procedure > inlined frame / loop > call site / statement,
 * with the costs of every calling context that ran it.
 *
 * Tool code; never prints.  Each node of the calling-context tree maps to
 * one static scope: a procedure frame to its procedure (under its file and
 * load module), an inlined frame, loop, call site or statement to the same
 * scope below its frame's static scope.
 *   exclusive(X) = sum of the exclusive values of the tree nodes mapped to X
 *                  (a file or load module: the sum over its procedures);
 *   inclusive(X) = sum of the inclusive values of the tree nodes mapped to X
 *                  (or to a static scope inside X) that have no ancestor
 *                  mapped inside X, so a sample is counted once per scope
 *                  even when recursion puts the scope on its call path
 *                  several times (HPCToolkit's flat view does the same).
 * The second is one depth-first walk of the tree keeping, per static scope,
 * how many of the current node's ancestors lie inside it.
 */
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

/* The child of @parent keyed by (kind, id, file, line); a loop without a line by @loop_at. */
static uint32_t
prof_flat_child_at(struct prof_flat *f, uint32_t parent, uint32_t kind, uint32_t id, uint32_t file,
                   uint32_t line, uint64_t loop_at)
{
    uint64_t k1 = (uint64_t)kind << 32 | id, k2 = (uint64_t)file << 32 | line;
    uint32_t c;

    if (loop_at != PROF_NO_OFFSET) {
        k1 = (uint64_t)kind << 32 | PROF_LOOP_AT;
        k2 = loop_at;
    }
    c = prof_map_get(&f->children, parent, k1, k2);
    struct prof_flat_node *n;

    if (c != PROF_NONE)
        return c;
    prof_grow(&f->nodes, &f->cap, f->n + 1, sizeof(*f->nodes));
    c = (uint32_t)f->n;
    n = &f->nodes[c];
    memset(n, 0, sizeof(*n));
    n->parent = parent;
    n->first_child = n->last_child = n->next_sibling = PROF_NONE;
    n->kind = kind;
    n->id = id;
    n->file = file;
    n->line = line;
    n->module = PROF_NONE;
    n->offset = PROF_NO_OFFSET;
    prof_map_put(&f->children, parent, k1, k2, c); /* may fail: node not linked yet */
    f->n++;
    if (parent != PROF_NONE) {
        if (f->nodes[parent].last_child == PROF_NONE)
            f->nodes[parent].first_child = c;
        else
            f->nodes[f->nodes[parent].last_child].next_sibling = c;
        f->nodes[parent].last_child = c;
    }
    return c;
}

static uint32_t
prof_flat_child(struct prof_flat *f, uint32_t parent, uint32_t kind, uint32_t id, uint32_t file,
                uint32_t line)
{
    return prof_flat_child_at(f, parent, kind, id, file, line, PROF_NO_OFFSET);
}

/* The static scope of tree node @v, whose parent is mapped already. */
static uint32_t
prof_flat_map(struct prof_ctx *ctx, uint32_t v)
{
    const struct prof_node *n = &ctx->tree.nodes[v];
    struct prof_flat *f = &ctx->flat;
    uint32_t up, x;

    switch (n->kind) {
    case CSP_SCOPE_PROC: {
        const struct prof_proc *p = &ctx->procs[n->proc];

        up = prof_flat_child(f, 0, CSP_SCOPE_MODULE, p->module, PROF_NONE, 0);
        up = prof_flat_child(f, up, CSP_SCOPE_FILE, p->file, PROF_NONE, 0);
        x = prof_flat_child(f, up, CSP_SCOPE_PROC, n->proc, p->file, p->line);
        break;
    }
    case CSP_SCOPE_INLINE:
        x = prof_flat_child(f, f->of_cct[n->parent], CSP_SCOPE_INLINE, n->proc, n->file, n->line);
        break;
    case CSP_SCOPE_LOOP:
        if (prof_loop_lineless(n->kind, n->file, n->line, n->offset)) {
            x = prof_flat_child_at(f, f->of_cct[n->parent], CSP_SCOPE_LOOP, PROF_NONE, PROF_NONE, 0,
                                   n->offset);
            f->nodes[x].span = n->span;
        } else {
            x = prof_flat_child(f, f->of_cct[n->parent], CSP_SCOPE_LOOP, PROF_NONE, n->file,
                                n->line);
        }
        break;
    case CSP_SCOPE_CALL:
        x = prof_flat_child(f, f->of_cct[n->parent], CSP_SCOPE_CALL, PROF_NONE, n->file, n->line);
        break;
    default: /* CSP_SCOPE_STMT */
        x = prof_flat_child(f, f->of_cct[n->parent], CSP_SCOPE_STMT, PROF_NONE, n->file, n->line);
        break;
    }
    if (n->offset != PROF_NO_OFFSET &&
        (f->nodes[x].offset == PROF_NO_OFFSET || n->offset < f->nodes[x].offset)) {
        f->nodes[x].module = n->module;
        f->nodes[x].offset = n->offset;
    }
    return x;
}

static double
prof_cct_value(const struct prof_tree *t, uint32_t v, uint32_t col, bool incl)
{
    if (col == t->nevents)
        return (double)(incl ? t->incl_samples[v] : t->excl_samples[v]);
    return incl ? prof_tree_incl(t, v, col) : prof_tree_excl(t, v, col);
}

/* Enter (+1) or leave (-1) tree node @v: count it in every static scope containing its scope. */
static void
prof_flat_visit(struct prof_ctx *ctx, uint32_t *active, uint32_t v, int dir)
{
    struct prof_flat *f = &ctx->flat;
    uint32_t y, c;

    for (y = f->of_cct[v]; y != 0 && y != PROF_NONE; y = f->nodes[y].parent) {
        if (dir > 0 && active[y]++ == 0)
            for (c = 0; c < f->ncols; c++)
                f->incl[(size_t)y * f->ncols + c] += prof_cct_value(&ctx->tree, v, c, true);
        if (dir < 0)
            active[y]--;
    }
}

void
prof_flat_compute(struct prof_ctx *ctx)
{
    const struct prof_tree *t = &ctx->tree;
    struct prof_flat *f = &ctx->flat;
    const struct prof_node *nodes = t->nodes;
    uint32_t *active, v, c;
    size_t i;

    prof_flat_free(f);
    f->ncols = t->nevents + 1;
    f->of_cct = prof_xmalloc(t->n * sizeof(*f->of_cct));
    prof_flat_child(f, PROF_NONE, CSP_SCOPE_ROOT, PROF_NONE, PROF_NONE, 0);
    f->of_cct[0] = 0;
    for (i = 1; i < t->n; i++)
        f->of_cct[i] = prof_flat_map(ctx, (uint32_t)i);

    f->incl = prof_xcalloc(f->n * f->ncols, sizeof(double));
    f->excl = prof_xcalloc(f->n * f->ncols, sizeof(double));
    /* Exclusive: the scopes' own tree nodes; files and modules sum their procedures. */
    for (i = 1; i < t->n; i++)
        for (c = 0; c < f->ncols; c++)
            f->excl[(size_t)f->of_cct[i] * f->ncols + c] +=
                prof_cct_value(t, (uint32_t)i, c, false);
    for (i = f->n; i-- > 1;) { /* children after parents: procedures first */
        uint32_t p = f->nodes[i].parent;

        if (f->nodes[i].kind == CSP_SCOPE_PROC || f->nodes[i].kind == CSP_SCOPE_FILE)
            for (c = 0; c < f->ncols; c++)
                f->excl[(size_t)p * f->ncols + c] += f->excl[i * f->ncols + c];
    }
    for (c = 0; c < f->ncols; c++) {
        f->incl[c] = prof_cct_value(t, 0, c, true);
        f->excl[c] = prof_cct_value(t, 0, c, true);
    }

    /* Inclusive: a depth-first walk without recursion (deep trees). */
    active = prof_xcalloc(f->n, sizeof(*active));
    v = nodes[0].first_child;
    while (v != PROF_NONE) {
        prof_flat_visit(ctx, active, v, +1);
        if (nodes[v].first_child != PROF_NONE) {
            v = nodes[v].first_child;
            continue;
        }
        for (;;) {
            prof_flat_visit(ctx, active, v, -1);
            if (nodes[v].next_sibling != PROF_NONE) {
                v = nodes[v].next_sibling;
                break;
            }
            v = nodes[v].parent;
            if (v == 0) {
                v = PROF_NONE;
                break;
            }
        }
    }
    free(active);
}

void
prof_flat_free(struct prof_flat *f)
{
    free(f->nodes);
    prof_map_free(&f->children);
    free(f->incl);
    free(f->excl);
    free(f->of_cct);
    memset(f, 0, sizeof(*f));
}
