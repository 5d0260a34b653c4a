/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cct.c -- reading a calling context tree: the preorder walk the profile
 * writer uses, and an AVL invariant check for the unit tests.
 *
 * Runs in ordinary context with sampling blocked or stopped (the tree must
 * not change during a walk).  It still allocates nothing: the walk's stack
 * and metric array live in scratch memory supplied by the caller.
 */
#include "cct/cct.h"
#include "cct/cct_internal.h"

/*
 * Push the children of @node onto @stack in decreasing (kind, addr) order,
 * so that they pop in increasing order: a reverse in-order walk of the
 * child AVL tree with a fixed-size path (the tree is at most
 * CCT_AVL_MAX_HEIGHT levels deep).
 */
static void
push_children(const struct cct_node *node, const struct cct_node **stack, size_t *sp)
{
    const struct cct_node *path[CCT_AVL_MAX_HEIGHT];
    const struct cct_node *c = node->children;
    size_t depth = 0;

    while (c != NULL || depth > 0) {
        while (c != NULL) {
            path[depth++] = c;
            c = c->avl_right;
        }
        c = path[--depth];
        stack[(*sp)++] = c;
        c = c->avl_left;
    }
}

/*
 * @scratch holds max_nmetrics metric values followed by the node stack; it
 * must be aligned for uint64_t (memory from malloc or an arena is).  Each
 * node is pushed once, so the stack never holds more than nnodes entries.
 * [not async-signal-safe]
 */
int
cct_walk(const struct cct *tree, cct_visit_fn *visit, void *arg, void *scratch)
{
    struct cct_metric_value *metrics = scratch;
    const struct cct_node **stack;
    size_t sp = 0;

    if (tree == NULL || visit == NULL || scratch == NULL)
        return CCT_EINVAL;
    stack = (void *)(metrics + tree->max_nmetrics);
    stack[sp++] = tree->root;
    while (sp > 0) {
        const struct cct_node *node = stack[--sp];
        const struct cct_metric_cell *cell;
        struct cct_node_view view;
        uint32_t m = 0;
        int rc;

        for (cell = node->metrics; cell != NULL; cell = cell->next) {
            metrics[m].event = cell->event;
            metrics[m].value = cell->value;
            m++;
        }
        view.id = node->id;
        view.parent_id = node->parent == NULL ? 0 : node->parent->id;
        view.kind = (enum cct_node_kind)node->kind;
        view.addr = node->addr;
        view.samples = node->samples;
        view.calls = node->calls;
        view.nmetrics = m;
        view.metrics = metrics;
        rc = visit(&view, arg);
        if (rc != 0)
            return rc;
        push_children(node, stack, &sp);
    }
    return 0;
}

static int
avl_check_subtree(const struct cct_node *node, const struct cct_node **prev, size_t *count)
{
    int hl, hr;

    if (node == NULL)
        return 0;
    hl = avl_check_subtree(node->avl_left, prev, count);
    if (hl < 0)
        return -1;
    if (*prev != NULL && ((*prev)->kind > node->kind ||
                          ((*prev)->kind == node->kind && (*prev)->addr >= node->addr)))
        return -1; /* not strictly increasing */
    *prev = node;
    (*count)++;
    hr = avl_check_subtree(node->avl_right, prev, count);
    if (hr < 0 || hl - hr > 1 || hr - hl > 1)
        return -1;
    if (node->avl_height != 1 + (hl > hr ? hl : hr))
        return -1;
    return node->avl_height;
}

int
cct_avl_check(const struct cct_node *parent, size_t *count)
{
    const struct cct_node *prev = NULL;

    *count = 0;
    return avl_check_subtree(parent->children, &prev, count);
}
