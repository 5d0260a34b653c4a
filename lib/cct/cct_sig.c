/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cct_sig.c -- building the calling context tree from inside the sampling
 * signal handler: tree creation, path insertion (plain and memoized),
 * metric updates, and the preorder walk that checkpoints write from there.
 *
 * Everything in this file runs in signal context.  It calls nothing but
 * arena_alloc(): no malloc, no stdio, no locks, and no recursion (search
 * paths live in fixed arrays of CCT_AVL_MAX_HEIGHT entries).  Children are
 * kept in an insert-only AVL tree (Adelson-Velsky and Landis 1962; Knuth,
 * TAOCP vol. 3 §6.2.3) keyed by (kind, addr).
 */
#include <stdbool.h>
#include <string.h>

#include "cct/cct.h"

#include "cct/cct_internal.h"
#include "support/arena.h"

const char *
cct_strerror(int status)
{
    switch (status) {
    case CCT_OK:
        return "success";
    case CCT_ENOMEM:
        return "calling context tree arena exhausted";
    case CCT_EINVAL:
        return "invalid argument to a calling context tree function";
    default:
        return "unknown calling context tree status";
    }
}

static struct cct_node *
node_new(struct cct *tree, struct cct_node *parent, enum cct_node_kind kind, uintptr_t addr)
{
    struct cct_node *node = arena_alloc(tree->arena, sizeof(*node));

    if (node == NULL)
        return NULL;
    /* arena memory is zeroed: no children, metrics, samples or calls yet */
    node->parent = parent;
    node->addr = addr;
    node->kind = (uint8_t)kind;
    node->avl_height = 1;
    node->id = tree->nnodes++;
    return node;
}

CSP_SIGSAFE struct cct *
cct_new(struct arena *arena, uint32_t nevents)
{
    struct cct *tree;

    if (arena == NULL)
        return NULL;
    tree = arena_alloc(arena, sizeof(*tree));
    if (tree == NULL)
        return NULL;
    tree->arena = arena;
    tree->nevents = nevents;
    tree->root = node_new(tree, NULL, CCT_NODE_ROOT, 0);
    if (tree->root == NULL)
        return NULL; /* the struct cct stays in the arena; arenas never free */
    return tree;
}

CSP_SIGSAFE struct cct_node *
cct_root(struct cct *tree)
{
    return tree == NULL ? NULL : tree->root;
}

CSP_SIGSAFE size_t
cct_size(const struct cct *tree)
{
    return tree == NULL ? 0 : (size_t)tree->nnodes;
}

CSP_SIGSAFE struct cct_node *
cct_node_parent(const struct cct_node *node)
{
    return node == NULL ? NULL : node->parent;
}

CSP_SIGSAFE void
cct_add_calls(struct cct_node *node, uint64_t n)
{
    if (node != NULL)
        node->calls += n;
}

/* ---- AVL tree of a node's children ---- */

static int
key_cmp(unsigned kind, uintptr_t addr, const struct cct_node *node)
{
    if (kind != node->kind)
        return kind < node->kind ? -1 : 1;
    if (addr != node->addr)
        return addr < node->addr ? -1 : 1;
    return 0;
}

static unsigned
avl_height(const struct cct_node *node)
{
    return node == NULL ? 0 : node->avl_height;
}

static void
avl_fix_height(struct cct_node *node)
{
    unsigned hl = avl_height(node->avl_left), hr = avl_height(node->avl_right);

    node->avl_height = (uint8_t)(1 + (hl > hr ? hl : hr));
}

static struct cct_node *
avl_rotate_right(struct cct_node *y)
{
    struct cct_node *x = y->avl_left;

    y->avl_left = x->avl_right;
    x->avl_right = y;
    avl_fix_height(y);
    avl_fix_height(x);
    return x;
}

static struct cct_node *
avl_rotate_left(struct cct_node *x)
{
    struct cct_node *y = x->avl_right;

    x->avl_right = y->avl_left;
    y->avl_left = x;
    avl_fix_height(x);
    avl_fix_height(y);
    return y;
}

/* Restore the balance of @node, whose subtrees differ by at most 2; returns the new subroot. */
static struct cct_node *
avl_rebalance(struct cct_node *node)
{
    int balance = (int)avl_height(node->avl_left) - (int)avl_height(node->avl_right);

    if (balance > 1) {
        if (avl_height(node->avl_left->avl_left) < avl_height(node->avl_left->avl_right))
            node->avl_left = avl_rotate_left(node->avl_left);
        return avl_rotate_right(node);
    }
    if (balance < -1) {
        if (avl_height(node->avl_right->avl_right) < avl_height(node->avl_right->avl_left))
            node->avl_right = avl_rotate_right(node->avl_right);
        return avl_rotate_left(node);
    }
    avl_fix_height(node);
    return node;
}

/*
 * Find the child (@kind, @addr) of @parent, creating it if absent.
 * Iterative: the search path is remembered as the links (slots) that point
 * at each visited node, and retraced bottom-up after an insertion.
 */
static int
child_get(struct cct *tree, struct cct_node *parent, enum cct_node_kind kind, uintptr_t addr,
          struct cct_node **out)
{
    struct cct_node **path[CCT_AVL_MAX_HEIGHT];
    struct cct_node **slot = &parent->children;
    struct cct_node *node;
    size_t depth = 0;

    while (*slot != NULL) {
        int cmp = key_cmp((unsigned)kind, addr, *slot);

        if (cmp == 0) {
            *out = *slot;
            return CCT_OK;
        }
        if (depth == CCT_AVL_MAX_HEIGHT)
            return CCT_ENOMEM; /* unreachable for a valid AVL tree in a 64-bit space */
        path[depth++] = slot;
        slot = cmp < 0 ? &(*slot)->avl_left : &(*slot)->avl_right;
    }

    node = node_new(tree, parent, kind, addr);
    if (node == NULL)
        return CCT_ENOMEM;
    *slot = node;

    while (depth > 0) {
        struct cct_node **link = path[--depth];
        unsigned old_height = (*link)->avl_height;

        *link = avl_rebalance(*link);
        /* After an insertion a rotation restores the old height too: nothing above changes. */
        if ((*link)->avl_height == old_height)
            break;
    }
    *out = node;
    return CCT_OK;
}

/* Insert ips[i_top-1] ... ips[1] as call sites and ips[0] as the leaf below @cur. */
static int
insert_frames(struct cct *tree, struct cct_node *cur, const uintptr_t *ips, size_t i_top,
              struct cct_node **leaf)
{
    size_t i = i_top;

    while (i-- > 0) {
        int rc = child_get(tree, cur, i == 0 ? CCT_NODE_LEAF : CCT_NODE_CALLSITE, ips[i], &cur);

        if (rc != CCT_OK)
            return rc;
    }
    *leaf = cur;
    return CCT_OK;
}

CSP_SIGSAFE int
cct_insert_path(struct cct *tree, struct cct_node *start, const uintptr_t *ips, size_t n,
                struct cct_node **leaf)
{
    struct cct_node *found;
    int rc;

    if (tree == NULL || start == NULL || ips == NULL || n == 0 || start->kind == CCT_NODE_LEAF)
        return CCT_EINVAL;
    rc = insert_frames(tree, start, ips, n, &found);
    if (rc == CCT_OK && leaf != NULL)
        *leaf = found;
    return rc;
}

CSP_SIGSAFE int
cct_insert_path_nodes(struct cct *tree, struct cct_node *start, const uintptr_t *ips, size_t n,
                      struct cct_node **nodes)
{
    struct cct_node *cur = start;
    size_t i = n;

    if (tree == NULL || start == NULL || ips == NULL || nodes == NULL || n == 0 ||
        start->kind == CCT_NODE_LEAF)
        return CCT_EINVAL;
    while (i-- > 0) {
        int rc = child_get(tree, cur, i == 0 ? CCT_NODE_LEAF : CCT_NODE_CALLSITE, ips[i], &cur);

        if (rc != CCT_OK)
            return rc;
        nodes[i] = cur;
    }
    return CCT_OK;
}

int
cct_insert_callsites(struct cct *tree, struct cct_node *start, const uintptr_t *ips, size_t n,
                     struct cct_node **last)
{
    struct cct_node *cur = start;

    if (tree == NULL || start == NULL || last == NULL || (n > 0 && ips == NULL) ||
        start->kind == CCT_NODE_LEAF)
        return CCT_EINVAL;
    for (size_t i = n; i-- > 0;) {
        int rc = child_get(tree, cur, CCT_NODE_CALLSITE, ips[i], &cur);

        if (rc != CCT_OK)
            return rc;
    }
    *last = cur;
    return CCT_OK;
}

/* ---- memoized insertion ([csprof 2005] §2.2) ---- */

CSP_SIGSAFE struct cct_node *const *
cct_memo_nodes(const struct cct *tree, size_t *n)
{
    if (tree == NULL || tree->memo == NULL) {
        *n = 0;
        return NULL;
    }
    *n = tree->memo_valid;
    return tree->memo->nodes;
}

CSP_SIGSAFE void
cct_memo_reset(struct cct *tree)
{
    if (tree != NULL)
        tree->memo_len = tree->memo_valid = 0;
}

/*
 * Number of outermost frames of @ips (n frames) whose nodes the memo holds:
 * same address at the same depth and the same kind (entry len-1 of a path
 * is its leaf, every other entry a call site).
 */
static size_t
memo_common_prefix(const struct cct *tree, const uintptr_t *ips, size_t n)
{
    const struct cct_memo *memo = tree->memo;
    size_t lim = tree->memo_valid < n ? tree->memo_valid : n;
    size_t j;

    for (j = 0; j < lim; j++) {
        bool memo_leaf = j == tree->memo_len - 1, new_leaf = j == n - 1;

        if (memo->ips[j] != ips[n - 1 - j] || memo_leaf != new_leaf)
            break;
    }
    return j;
}

/*
 * Give the memo room for @n entries, keeping the valid ones.  Returns false
 * when the arena cannot (the memo is then unchanged).  Growth doubles, so
 * the arrays abandoned in the arena add up to less than the live ones.
 */
static bool
memo_reserve(struct cct *tree, size_t n)
{
    struct cct_memo *memo = tree->memo;
    size_t cap = memo->cap ? memo->cap : CCT_MEMO_INITIAL;
    uintptr_t *ips;
    struct cct_node **nodes;

    if (n <= memo->cap)
        return true;
    while (cap < n)
        cap *= 2;
    ips = arena_alloc(tree->arena, cap * sizeof(*ips));
    nodes = ips != NULL ? arena_alloc(tree->arena, cap * sizeof(*nodes)) : NULL;
    if (nodes == NULL)
        return false;
    if (tree->memo_valid > 0) {
        memcpy(ips, memo->ips, tree->memo_valid * sizeof(*ips));
        memcpy(nodes, memo->nodes, tree->memo_valid * sizeof(*nodes));
    }
    memo->ips = ips;
    memo->nodes = nodes;
    memo->cap = cap;
    return true;
}

CSP_SIGSAFE int
cct_insert_path_memo(struct cct *tree, const uintptr_t *ips, size_t n, struct cct_node **leaf,
                     size_t *reused)
{
    struct cct_memo *memo;
    struct cct_node *cur;
    size_t j, k;

    if (reused != NULL)
        *reused = 0;
    if (tree == NULL || ips == NULL || n == 0)
        return CCT_EINVAL;
    if (tree->memo == NULL)
        tree->memo = arena_alloc(tree->arena, sizeof(*tree->memo));
    if (tree->memo == NULL || !memo_reserve(tree, n)) {
        /* No room for the memo: the plain walk still works, and nothing is cached. */
        cct_memo_reset(tree);
        return cct_insert_path(tree, tree->root, ips, n, leaf);
    }
    memo = tree->memo;

    k = memo_common_prefix(tree, ips, n);
    if (reused != NULL)
        *reused = k;
    cur = k == 0 ? tree->root : memo->nodes[k - 1];
    for (j = k; j < n; j++) {
        size_t i = n - 1 - j;
        int rc = child_get(tree, cur, i == 0 ? CCT_NODE_LEAF : CCT_NODE_CALLSITE, ips[i], &cur);

        if (rc != CCT_OK) {
            /* Entries 0..j-1 hold real nodes of this path; the rest is stale. */
            tree->memo_len = n;
            tree->memo_valid = j;
            return rc;
        }
        memo->ips[j] = ips[i];
        memo->nodes[j] = cur;
    }
    tree->memo_len = tree->memo_valid = n;
    if (leaf != NULL)
        *leaf = cur;
    return CCT_OK;
}

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
 * Allocates nothing and takes no lock: async-signal-safe as long as the
 * tree cannot change during the walk (see cct.h).
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

/* ---- metrics ---- */

CSP_SIGSAFE int
cct_add_sample(struct cct *tree, struct cct_node *node, uint32_t event, uint64_t value)
{
    int rc = cct_add_value(tree, node, event, value);

    if (rc == CCT_OK)
        node->samples++;
    return rc;
}

CSP_SIGSAFE int
cct_add_value(struct cct *tree, struct cct_node *node, uint32_t event, uint64_t value)
{
    struct cct_metric_cell **slot, *cell;

    if (tree == NULL || node == NULL || event >= tree->nevents)
        return CCT_EINVAL;
    slot = &node->metrics;
    while (*slot != NULL && (*slot)->event < event)
        slot = &(*slot)->next;
    cell = *slot;
    if (cell == NULL || cell->event != event) {
        cell = arena_alloc(tree->arena, sizeof(*cell));
        if (cell == NULL)
            return CCT_ENOMEM;
        cell->event = event;
        cell->next = *slot;
        *slot = cell;
        node->nmetrics++;
        if (node->nmetrics > tree->max_nmetrics)
            tree->max_nmetrics = node->nmetrics;
    }
    cell->value += value;
    return CCT_OK;
}

CSP_SIGSAFE size_t
cct_walk_scratch_size(const struct cct *tree)
{
    if (tree == NULL)
        return 0;
    /* metric array first (8-aligned), then a stack of at most one pointer per node */
    return (size_t)tree->max_nmetrics * sizeof(struct cct_metric_value) +
           (size_t)tree->nnodes * sizeof(struct cct_node *);
}
