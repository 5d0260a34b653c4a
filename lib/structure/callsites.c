/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * callsites.c -- attach the call sites of a procedure's CFG to its rebuilt
 * loop tree (loopnest.h): each call goes next to the statement holding it,
 * or without line information into the deepest loop or inlined call
 * holding it.
 *
 * Tool code only; one tree per thread; never prints.
 */
#include <stdlib.h>
#include <string.h>

#include "structure/loopnest.h"
#include "support/search.h"
#include "support/sort.h"
#include "support/vec.h"

/* ---- call sites ----------------------------------------------------------- */

struct span {
    uint64_t lo, hi;
    struct tree_node *node;
};

#define SORT_SPANS_LESS(a, b) ((a)->lo < (b)->lo)
CSP_SORT_DEFINE(sort_spans, struct span, SORT_SPANS_LESS)

static unsigned
node_depth(const struct tree_node *n)
{
    unsigned d = 0;

    for (; n->parent != NULL; n = n->parent)
        d++;
    return d;
}

unsigned
struct_call_scope_flags(const struct struct_call *call)
{
    return ((call->flags & STRUCT_CALL_INDIRECT) ? STRUCT_SCOPE_F_INDIRECT : 0) |
           ((call->flags & STRUCT_CALL_TAIL) ? STRUCT_SCOPE_F_TAIL : 0) |
           ((call->flags & STRUCT_CALL_NORETURN) ? STRUCT_SCOPE_F_NORETURN : 0);
}

int
struct_tree_add_calls(struct rebuild *rb)
{
    struct span *sp = NULL;
    struct tree_node **inner = NULL;
    size_t nsp = 0, capsp = 0, nin = 0;
    int rc = STRUCT_ENOMEM;

    inner = malloc((rb->nall + 1) * sizeof(*inner));
    if (csp_vec_reserve(&sp, &capsp, rb->nall + 1, sizeof(*sp)) != 0 || inner == NULL)
        goto out;
    for (size_t i = 0; i < rb->nall; i++) {
        struct tree_node *n = rb->all[i];

        if (n->dead || n == rb->root)
            continue;
        if (n->kind == CSP_SCOPE_STMT) {
            struct_rvec_normalize(&n->ranges);
            for (size_t j = 0; j < n->ranges.n; j++) {
                if (csp_vec_reserve(&sp, &capsp, nsp + 1, sizeof(*sp)) != 0)
                    goto out;
                sp[nsp++] = (struct span){n->ranges.v[j].lo, n->ranges.v[j].hi, n};
            }
        } else if (n->kind == CSP_SCOPE_LOOP || n->kind == CSP_SCOPE_INLINE) {
            struct_rvec_normalize(&n->ranges);
            inner[nin++] = n;
        }
    }
    if (nsp > 1)
        sort_spans(sp, nsp);
    for (size_t i = 0; i < rb->cfg->ncalls; i++) {
        const struct struct_call *call = &rb->cfg->calls[i];
        const struct struct_entry *e =
            call->target ? struct_cfg_entry_at(rb->env, call->target) : NULL;
        struct tree_node *parent = rb->root, *stmt = NULL, *n;
        ptrdiff_t at = csp_range_find(sp, nsp, sizeof(*sp), call->addr);

        if (at >= 0) {
            stmt = sp[at].node;
            parent = stmt->parent;
        } else { /* no line information: the deepest loop or inlined call holding it */
            unsigned best = 0;

            for (size_t j = 0; j < nin; j++) {
                unsigned d;

                if (!struct_ranges_contain(inner[j]->ranges.v, inner[j]->ranges.n, call->addr))
                    continue;
                d = node_depth(inner[j]);
                if (d > best) {
                    best = d;
                    parent = inner[j];
                }
            }
        }
        n = struct_tree_new_node(rb, parent, CSP_SCOPE_CALL);
        if (n == NULL || struct_rvec_push(&n->ranges, call->addr, call->end) != 0)
            goto out;
        if (stmt != NULL) {
            n->file = stmt->file;
            n->line = stmt->line;
        }
        n->target = call->target;
        n->name = e != NULL ? e->name : NULL;
        n->flags = struct_call_scope_flags(call);
    }
    rc = 0;
out:
    free(sp);
    free(inner);
    return rc;
}
