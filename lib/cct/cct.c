/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cct.c -- the AVL invariant check of a calling context tree, for the unit
 * tests.  Ordinary context.  (The preorder walk the profile writer uses
 * runs in the signal handler too, for checkpoints: it is in cct_sig.c.)
 */
#include "cct/cct.h"
#include "cct/cct_internal.h"

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
