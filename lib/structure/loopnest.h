/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loopnest.h -- private to lib/structure: the temporary tree in which
 * loopnest.c rebuilds one procedure's scopes (loops interleaved with
 * inlined calls), shared by the rebuild (loopnest.c), its normalization
 * (normalize.c), call-site attachment (callsites.c) and the worker pool
 * that runs it per procedure (loopjobs.c).
 *
 * Tool code only.  A tree belongs to the one thread rebuilding its
 * procedure; nothing here is shared between threads.
 */
#ifndef CSP_STRUCTURE_LOOPNEST_H
#define CSP_STRUCTURE_LOOPNEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "structure/cfg.h"
#include "support/arena.h"
#include "support/hashmap.h"

struct tree_node {
    enum csp_scope kind;
    bool dead;
    /* INLINE: the original INLINE scope; STMT: its owner (PROC/INLINE);
     * LOOP: the inlined context the loop is placed in. */
    const struct struct_scope *ctx;
    int32_t loop; /* LOOP: loop index in the CFG */
    const char *file, *name;
    uint32_t line;
    unsigned flags;
    uint64_t target;
    struct struct_rvec ranges, entries;
    struct tree_node *parent, *first, *last, *prev, *next;
};

/* One entry of the child index: (parent, kind, k1, k2) -> node. */
struct tree_hash_entry {
    const struct tree_node *parent;
    uintptr_t k1;
    uint32_t k2;
    enum csp_scope kind;
    struct tree_node *node;
};

struct rebuild {
    struct arena *arena; /* where the new scopes go: the calling thread's */
    const struct struct_cfg *cfg;
    const struct struct_cfg_env *env;
    struct struct_scope *proc;
    struct tree_node **all;
    size_t nall, capall;
    struct csp_hmap index; /* hashed keys: entries by (parent, kind, k1, k2) */
    struct arena
        index_mem; /* nodes and index entries; malloc chunks, set up by struct_tree_restructure */
    struct tree_node *root;
};

/* ---- the temporary tree (loopnest.c) ---------------------------------- */

/* Append @c as the last child of @parent. */
void struct_tree_link(struct tree_node *parent, struct tree_node *c);

/* Detach @c from its parent. */
void struct_tree_unlink(struct tree_node *c);

/* A new node of @kind, last child of @parent (NULL: none), in @rb->index_mem (freed with it);
 * NULL without memory. */
struct tree_node *struct_tree_new_node(struct rebuild *rb, struct tree_node *parent,
                                       enum csp_scope kind);

/* The key a child is found by among its siblings: (kind, k1, k2). */
void struct_tree_key(const struct tree_node *n, uintptr_t *k1, uint32_t *k2);

/* The live child of @parent with this key, or NULL. */
struct tree_node *struct_tree_find(const struct rebuild *rb, const struct tree_node *parent,
                                   enum csp_scope kind, uintptr_t k1, uint32_t k2);

/* Index @n as the child of @parent for its key.  0 or STRUCT_ENOMEM. */
int struct_tree_index(struct rebuild *rb, const struct tree_node *parent, struct tree_node *n);

/* Append the ranges of @src to @dst.  0 or STRUCT_ENOMEM. */
int struct_rvec_append_all(struct struct_rvec *dst, const struct struct_rvec *src);

/* Bytes covered by normalized ranges @r. */
uint64_t struct_rvec_bytes(const struct struct_rvec *r);

/*
 * Rebuild @proc's subtree from its pieces, its CFG's loops and calls, with
 * new scopes from @arena; normalized unless @do_normalize is false.
 * 0 or STRUCT_ENOMEM.
 */
int struct_tree_restructure(struct arena *arena, struct struct_scope *proc,
                            const struct struct_cfg *cfg, const struct struct_cfg_env *env,
                            bool do_normalize);

/* ---- normalization (normalize.c) --------------------------------------- */

/* Apply the normalization rules top-down below @x.  0 or STRUCT_ENOMEM. */
int struct_tree_normalize(struct rebuild *rb, struct tree_node *x);

/* ---- call sites (callsites.c) ------------------------------------------ */

/* Add a CALL node for each call site of the CFG, next to its statement. 0 or STRUCT_ENOMEM. */
int struct_tree_add_calls(struct rebuild *rb);

/* The STRUCT_SCOPE_F_* flags of a CALL scope for @call (indirect, tail, noreturn). */
unsigned struct_call_scope_flags(const struct struct_call *call);

#endif /* CSP_STRUCTURE_LOOPNEST_H */
