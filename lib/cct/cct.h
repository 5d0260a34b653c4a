/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cct.h -- calling context tree: one node per distinct call path.
 *
 * [csprof 2005] §2.2: interior nodes are call sites, keyed by the return address
 * the callee will return to; the leaf level is keyed by the sampled
 * instruction pointer.  A leaf and a call site with the same address are
 * different nodes.  Children sit in a balanced search tree (AVL), so a
 * lookup costs O(log fan-out).
 *
 * A tree is owned by exactly one thread.  Insertion never calls malloc:
 * nodes come from the arena passed to cct_new(), so the insertion and
 * metric functions are safe inside the sampling signal handler.  Walking a
 * tree is not, and must run with sampling blocked or stopped.
 *
 * Path convention used throughout: ips[0] is the sampled instruction
 * pointer (the leaf), ips[1..n-1] are return addresses, ips[n-1] the
 * outermost frame's.
 */
#ifndef CSP_CCT_H
#define CSP_CCT_H

#include <stddef.h>
#include <stdint.h>

#include "support/compiler.h"

struct arena;
struct cct;      /* opaque: fields live in cct_internal.h */
struct cct_node; /* opaque */

enum cct_status {
    CCT_OK = 0,
    CCT_ENOMEM = -1, /* arena exhausted: the sample must be dropped, not retried */
    CCT_EINVAL = -2, /* bad argument (NULL tree, event index out of range, empty path) */
};

enum cct_node_kind {
    CCT_NODE_ROOT = 0,     /* the tree's single root; address 0 */
    CCT_NODE_CALLSITE = 1, /* keyed by a return address */
    CCT_NODE_LEAF = 2,     /* keyed by a sampled instruction pointer */
};

/* Human-readable text of a cct_status.  Static storage.  [async-signal-safe] */
const char *cct_strerror(int status);

/*
 * Create an empty tree (root only) whose nodes are carved from @arena, for a
 * run measuring @nevents events (metric indices 0..nevents-1).  The tree
 * borrows @arena; the caller keeps ownership and must keep it alive as long
 * as the tree.  Returns NULL if the arena cannot hold the root.
 * [async-signal-safe when the arena is mmap-backed]
 */
CSP_SIGSAFE struct cct *cct_new(struct arena *arena, uint32_t nevents);

/* The root node.  [async-signal-safe] */
CSP_SIGSAFE struct cct_node *cct_root(struct cct *tree);

/*
 * Insert the path ips[n-1] (outermost return address) ... ips[1] as call-site
 * nodes below @start, and ips[0] as a leaf below the last of them; existing
 * nodes are shared.  @start is the root or any node of @tree that is not a
 * leaf (the trampoline starts an insertion at a cached node).  On success
 * *leaf is the leaf node.  n == 1 inserts a leaf directly below @start.
 * Returns CCT_OK, CCT_EINVAL (n == 0, @start is a leaf), or CCT_ENOMEM; on
 * CCT_ENOMEM nodes created so far stay in the tree (harmless: no metrics)
 * and *leaf is unchanged.  [async-signal-safe]
 */
CSP_SIGSAFE int cct_insert_path(struct cct *tree, struct cct_node *start, const uintptr_t *ips,
                                size_t n, struct cct_node **leaf);

/*
 * As cct_insert_path, and also return every node of the inserted part:
 * nodes[i] receives the node of ips[i] (nodes[0] is the leaf).  @nodes has
 * room for @n entries.  On CCT_ENOMEM the entries not yet reached are
 * unchanged.  The trampoline uses this to cache the call-site nodes of a
 * shadow stack.  [async-signal-safe]
 */
CSP_SIGSAFE int cct_insert_path_nodes(struct cct *tree, struct cct_node *start,
                                      const uintptr_t *ips, size_t n, struct cct_node **nodes);

/*
 * Insert the return addresses ips[n-1] (outermost) ... ips[0] as call-site
 * nodes below @start (the root or a call site), sharing existing nodes, and
 * set *last to the node of ips[0].  For a calling context recorded apart
 * from any sample (an OpenMP region's creation context), below which
 * samples are inserted later.  n == 0 sets *last to @start.  Returns
 * CCT_OK, CCT_EINVAL (@start is a leaf) or CCT_ENOMEM (*last unchanged).
 * [async-signal-safe]
 */
CSP_SIGSAFE int cct_insert_callsites(struct cct *tree, struct cct_node *start, const uintptr_t *ips,
                                     size_t n, struct cct_node **last);

/*
 * Memoized insertion below the root ([csprof 2005] §2.2, "memoized backtraces"):
 * the tree remembers the node of every frame of the previous path inserted
 * this way; the longest common outermost prefix of @ips with that path is
 * reused without any search-tree lookup, and only the frames that differ are
 * looked up or created.  The result is the same tree as cct_insert_path(
 * tree, cct_root(tree), ips, n, leaf).  Any @n >= 1 is accepted: the memo
 * grows from the tree's arena for a path longer than any before (when it
 * cannot, the path is inserted without it and the memo is forgotten).
 * *reused (if non-NULL) receives the number of frames taken from the memo.
 * Returns as cct_insert_path.  [async-signal-safe]
 */
CSP_SIGSAFE int cct_insert_path_memo(struct cct *tree, const uintptr_t *ips, size_t n,
                                     struct cct_node **leaf, size_t *reused);

/*
 * Nodes of the path last inserted by cct_insert_path_memo, outermost first:
 * entry j is the node of ips[n-1-j] of that call, so the last entry is the
 * leaf.  *n receives the number of valid entries (0 when there is no memo).
 * The array belongs to the tree and changes with the next memoized
 * insertion.  [async-signal-safe]
 */
CSP_SIGSAFE struct cct_node *const *cct_memo_nodes(const struct cct *tree, size_t *n);

/* Forget the memo (e.g. after a fork).  [async-signal-safe] */
CSP_SIGSAFE void cct_memo_reset(struct cct *tree);

/*
 * Add @value (in the event's raw unit: ns for time events, events for
 * counters, bytes for byte counts) to metric @event of @node, and one sample
 * to its sample count.  Metrics are sparse: a node holds cells only for the
 * events that hit it.  Returns CCT_OK, CCT_EINVAL (@event >= nevents) or
 * CCT_ENOMEM (the node is unchanged).  [async-signal-safe]
 */
CSP_SIGSAFE int cct_add_sample(struct cct *tree, struct cct_node *node, uint32_t event,
                               uint64_t value);

/*
 * As cct_add_sample, without counting a sample: for a second part of one
 * sample's value (the kernel's part of a CPU-time sample, a second byte
 * event of one call), so that the tree's sample counts stay one per sample.
 * [async-signal-safe]
 */
CSP_SIGSAFE int cct_add_value(struct cct *tree, struct cct_node *node, uint32_t event,
                              uint64_t value);

/*
 * Add @n to the call-edge count of @node ([csprof 2005] §2.4: the number of times
 * the trampoline saw this call return).  [async-signal-safe]
 */
CSP_SIGSAFE void cct_add_calls(struct cct_node *node, uint64_t n);

/* Parent of @node, NULL for the root.  [async-signal-safe] */
CSP_SIGSAFE struct cct_node *cct_node_parent(const struct cct_node *node);

/* Number of nodes, root included.  [async-signal-safe, O(1)] */
CSP_SIGSAFE size_t cct_size(const struct cct *tree);

/* What a walk shows of one node; pointers are valid during the callback only. */
struct cct_metric_value {
    uint32_t event;
    uint64_t value; /* raw unit of the event */
};

struct cct_node_view {
    uint64_t id;        /* 0 for the root; unique, stable, assigned at creation */
    uint64_t parent_id; /* 0 for children of the root; ignored for the root */
    enum cct_node_kind kind;
    uintptr_t addr;    /* return address (call site) or sampled ip (leaf); 0 for the root */
    uint64_t samples;  /* samples attributed directly to this node */
    uint64_t calls;    /* call-edge count (0 unless the trampoline counted) */
    uint32_t nmetrics; /* number of entries in metrics */
    const struct cct_metric_value *metrics; /* sorted by event */
};

/* Visitor: return 0 to continue, anything else to stop the walk with that value. */
typedef int cct_visit_fn(const struct cct_node_view *node, void *arg);

/*
 * Visit every node in preorder (a parent before its children; the root
 * first).  @scratch must have room for cct_walk_scratch_size(tree) bytes;
 * it is used instead of recursion and malloc.  Returns 0 or the visitor's
 * first non-zero value, CCT_EINVAL for a NULL argument.  [async-signal-safe
 * if the tree cannot change during the walk: in the owning thread's signal
 * handler, or with that thread's sampling blocked or stopped]
 */
int cct_walk(const struct cct *tree, cct_visit_fn *visit, void *arg, void *scratch);

/* Bytes of scratch cct_walk() needs for @tree.  [async-signal-safe] */
size_t cct_walk_scratch_size(const struct cct *tree);

#endif /* CSP_CCT_H */
