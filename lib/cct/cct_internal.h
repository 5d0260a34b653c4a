/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cct_internal.h -- layout of the calling context tree, private to lib/cct
 * and its unit tests.
 *
 * Every structure here is carved from the tree's arena and never freed on
 * its own.  Nodes embed their AVL links: a node is at the same time a vertex
 * of the CCT (parent, children) and an element of its parent's child search
 * tree (avl_left, avl_right), so inserting a child allocates exactly one
 * object.  Nothing here may grow code that is unsafe in signal context.
 */
#ifndef CSP_CCT_INTERNAL_H
#define CSP_CCT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cct/cct.h"
#include "support/compiler.h"

/*
 * Most levels an AVL tree can have: one of height h holds at least
 * F(h+2)-1 nodes (F: Fibonacci), so 2^64 nodes fit in 93 levels.  Search
 * paths are kept in fixed arrays of this many entries.
 */
#define CCT_AVL_MAX_HEIGHT 96

/* One metric of one node; a node's cells form a list sorted by event. */
struct cct_metric_cell {
    struct cct_metric_cell *next; /* next higher event, or NULL */
    uint64_t value;               /* sum, in the event's raw unit */
    uint32_t event;
};

struct cct_node {
    struct cct_node *parent;    /* NULL for the root */
    struct cct_node *children;  /* root of the AVL tree of this node's children */
    struct cct_node *avl_left;  /* sibling subtree with smaller (kind, addr) */
    struct cct_node *avl_right; /* sibling subtree with larger (kind, addr) */
    uintptr_t addr;             /* return address or sampled ip; 0 for the root */
    uint64_t id;                /* creation order, root 0 */
    uint64_t samples;
    uint64_t calls;
    struct cct_metric_cell *metrics; /* sorted by event */
    uint32_t nmetrics;               /* cells in metrics */
    uint8_t kind;                    /* enum cct_node_kind */
    uint8_t avl_height;              /* levels of the subtree rooted here, >= 1 */
};

/*
 * The previous path inserted by cct_insert_path_memo(), outermost frame
 * first ([csprof 2005] §2.2): ips[j] is the path's ips[len-1-j] and nodes[j] its
 * node.  Allocated on the first memoized insertion with room for
 * CCT_MEMO_INITIAL entries, and replaced by arrays twice as long (arena
 * memory, the old ones abandoned) when a longer path comes.
 */
#define CCT_MEMO_INITIAL 64
struct cct_memo {
    size_t cap; /* entries ips and nodes have room for */
    uintptr_t *ips;
    struct cct_node **nodes;
};

struct cct {
    struct arena *arena; /* borrowed */
    struct cct_node *root;
    uint64_t nnodes;       /* root included; also the next node id */
    uint32_t nevents;      /* metric indices are 0..nevents-1 */
    uint32_t max_nmetrics; /* largest nmetrics of any node, sizes walk scratch */
    struct cct_memo *memo; /* NULL until the first memoized insertion */
    size_t memo_len;       /* frames of the remembered path; entry len-1 is its leaf */
    size_t memo_valid;     /* leading entries that hold real nodes (< memo_len after ENOMEM) */
};

/*
 * Check the AVL tree of @parent's children: keys strictly increasing in
 * order, every stored height right, every balance factor in -1..1.
 * Returns the tree's height (0 when @parent has no children) and stores the
 * number of children in *count, or returns -1 if an invariant is broken.
 * For tests.  [not async-signal-safe: recursive, depth bounded by the height]
 */
int cct_avl_check(const struct cct_node *parent, size_t *count);

#endif /* CSP_CCT_INTERNAL_H */
