/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_tree.c -- the merged presentation tree of lib/profile and its
 * inclusive and exclusive metrics.
 *
 * Tool code.  Nodes live in one growing array; a child is found through a
 * hash map keyed by (parent, kind, procedure, file, line), a loop without a
 * line by (parent, its lowest address) instead, so merging N
 * measured call paths costs O(total frames).  Because a node is always
 * created after its parent, one reverse pass over the array computes every
 * subtree sum without recursion (deep recursive programs produce deep trees).
 */
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

void
prof_tree_init(struct prof_tree *t)
{
    memset(t, 0, sizeof(*t));
    prof_grow(&t->nodes, &t->cap, 1, sizeof(*t->nodes));
    memset(&t->nodes[0], 0, sizeof(t->nodes[0]));
    t->nodes[0].parent = PROF_NONE;
    t->nodes[0].first_child = t->nodes[0].last_child = t->nodes[0].next_sibling = PROF_NONE;
    t->nodes[0].kind = CSP_SCOPE_ROOT;
    t->nodes[0].proc = t->nodes[0].file = t->nodes[0].module = PROF_NONE;
    t->nodes[0].offset = PROF_NO_OFFSET;
    t->n = 1;
}

/* The child of @parent under key (k1, k2), created with these fields if absent. */
static uint32_t
prof_tree_child_key(struct prof_tree *t, uint32_t parent, uint64_t k1, uint64_t k2,
                    enum csp_scope kind, uint32_t proc, uint32_t file, uint32_t line)
{
    uint32_t id = prof_map_get(&t->children, parent, k1, k2);
    struct prof_node *c;

    if (id != PROF_NONE)
        return id;
    prof_grow(&t->nodes, &t->cap, t->n + 1, sizeof(*t->nodes));
    id = (uint32_t)t->n++;
    c = &t->nodes[id];
    memset(c, 0, sizeof(*c));
    c->parent = parent;
    c->first_child = c->last_child = c->next_sibling = PROF_NONE;
    c->kind = kind;
    c->proc = proc;
    c->file = file;
    c->line = line;
    c->module = PROF_NONE;
    c->offset = PROF_NO_OFFSET;
    if (t->nodes[parent].last_child == PROF_NONE)
        t->nodes[parent].first_child = id;
    else
        t->nodes[t->nodes[parent].last_child].next_sibling = id;
    t->nodes[parent].last_child = id;
    prof_map_put(&t->children, parent, k1, k2, id);
    return id;
}

uint32_t
prof_tree_child(struct prof_tree *t, uint32_t parent, enum csp_scope kind, uint32_t proc,
                uint32_t file, uint32_t line)
{
    return prof_tree_child_key(t, parent, (uint64_t)kind << 32 | proc, (uint64_t)file << 32 | line,
                               kind, proc, file, line);
}

uint32_t
prof_tree_loop_child(struct prof_tree *t, uint32_t parent, uint64_t offset, uint32_t span)
{
    uint32_t id = prof_tree_child_key(t, parent, (uint64_t)CSP_SCOPE_LOOP << 32 | PROF_LOOP_AT,
                                      offset, CSP_SCOPE_LOOP, PROF_NONE, PROF_NONE, 0);

    t->nodes[id].span = span;
    return id;
}

void
prof_tree_note_address(struct prof_tree *t, uint32_t node, uint32_t module, uint64_t offset)
{
    struct prof_node *n = &t->nodes[node];

    if (offset == PROF_NO_OFFSET)
        return;
    if (n->offset == PROF_NO_OFFSET || offset < n->offset) {
        n->module = module;
        n->offset = offset;
    }
}

void
prof_tree_add_value(struct prof_tree *t, uint32_t node, uint32_t event, double value)
{
    struct prof_node *n = &t->nodes[node];

    if (event >= n->nself) {
        n->self = prof_xrealloc(n->self, (event + 1) * sizeof(*n->self)); /* keeps it on failure */
        memset(n->self + n->nself, 0, (event + 1 - n->nself) * sizeof(*n->self));
        n->nself = event + 1;
    }
    n->self[event] += value;
}

void
prof_tree_add_counts(struct prof_tree *t, uint32_t node, uint64_t samples, uint64_t calls)
{
    t->nodes[node].samples += samples;
    t->nodes[node].calls += calls;
}

double
prof_tree_self(const struct prof_tree *t, uint32_t node, uint32_t event)
{
    const struct prof_node *n = &t->nodes[node];

    return event < n->nself ? n->self[event] : 0.0;
}

void
prof_tree_compute(struct prof_tree *t, uint32_t nevents)
{
    size_t i, e, ne = nevents;

    free(t->incl);
    free(t->excl);
    free(t->incl_samples);
    free(t->excl_samples);
    t->incl = t->excl = NULL; /* freeable if an allocation below fails */
    t->incl_samples = t->excl_samples = NULL;
    t->nevents = nevents;
    t->incl = prof_xcalloc(t->n * (ne ? ne : 1), sizeof(double));
    t->excl = prof_xcalloc(t->n * (ne ? ne : 1), sizeof(double));
    t->incl_samples = prof_xcalloc(t->n, sizeof(uint64_t));
    t->excl_samples = prof_xcalloc(t->n, sizeof(uint64_t));

    for (i = t->n; i-- > 0;) {
        const struct prof_node *n = &t->nodes[i];
        uint32_t p = n->parent;

        for (e = 0; e < ne; e++) {
            double self = prof_tree_self(t, (uint32_t)i, (uint32_t)e);

            t->incl[i * ne + e] += self;
            t->excl[i * ne + e] += self;
        }
        t->incl_samples[i] += n->samples;
        t->excl_samples[i] += n->samples;
        if (p == PROF_NONE)
            continue;
        /* Children come after parents, so node i is final here: push it up. */
        for (e = 0; e < ne; e++) {
            t->incl[p * ne + e] += t->incl[i * ne + e];
            if (n->kind != CSP_SCOPE_PROC && t->nodes[p].kind != CSP_SCOPE_CALL &&
                t->nodes[p].kind != CSP_SCOPE_ROOT)
                t->excl[p * ne + e] += t->excl[i * ne + e];
        }
        t->incl_samples[p] += t->incl_samples[i];
        if (n->kind != CSP_SCOPE_PROC && t->nodes[p].kind != CSP_SCOPE_CALL &&
            t->nodes[p].kind != CSP_SCOPE_ROOT)
            t->excl_samples[p] += t->excl_samples[i];
    }
}

void
prof_tree_free(struct prof_tree *t)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        free(t->nodes[i].self);
    free(t->nodes);
    prof_map_free(&t->children);
    free(t->incl);
    free(t->excl);
    free(t->incl_samples);
    free(t->excl_samples);
    memset(t, 0, sizeof(*t));
}
