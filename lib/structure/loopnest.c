/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loopnest.c -- put loops and call sites into the scope tree of one
 * procedure, and normalize the result (the "bloop" rules of J.
 * Mellor-Crummey et al., "HPCView: A Tool for Top-down Analysis of Node
 * Performance", J. Supercomputing 23(1), 2002, §3).
 *
 * Input: a PROC scope whose INLINE tree and STMT scopes come from DWARF
 * (analyze.c) and the procedure's CFG and loops (cfg.c); loopjobs.c runs
 * this for every procedure in worker threads, normalize.c holds the rules
 * and callsites.c the call-site attachment (loopnest.h: the temporary tree
 * they share).  The procedure's code is cut into pieces with one (inlined-call chain,
 * statement, innermost loop) each.  A loop is placed at the deepest
 * inlined call that contains its back edges and nearly all of its code
 * (loop_contexts(); so a loop inside an inlined callee appears under that
 * callee's A scope at its call site), and every
 * piece is re-inserted on the path  P / A* / L / A* / L ... / S , which
 * interleaves the loop nest with the inlined-call tree.  A loop's line is
 * the line, in its inlined context, of its conditional back edge (the loop
 * test of a rotated loop) or of its computed gotos, else the smallest line
 * holding a conditional jump among the statements directly inside it
 * (loop_header_line()); rows of an inlined callee's lines that the line
 * table puts in the caller's loop head never label the caller's loop.
 *
 * Normalization (unless disabled), applied top-down at every scope:
 *   1. sibling loops holding instances of one statement are fused (with
 *      their children merged recursively): loop distribution, versioning
 *      and peeling split one source loop into several object loops;
 *   2. a statement instance directly in a scope that also has an instance
 *      inside one of its child loops is moved into the innermost instance
 *      (hoisted loop-invariant code goes back into its loop);
 * One top-down pass (normalize.c); rule 2 only relates statements of the
 * same inlined context.  Call sites are attached last, next to their
 * statement (callsites.c).
 * Normalization never merges two loops that the object code nests: the
 * paper's last rule, collapsing a perfect nest into its outermost loop, is
 * not applied, because it reports the time of a hot inner loop (whose
 * statements are often only the two loops' header lines at -O2) at the
 * outer loop's line, and the user then tunes the wrong loop.
 *
 * Tool code only; never prints.
 */
#include <stdlib.h>
#include <string.h>

#include "structure/loopnest.h"
#include "support/search.h"
#include "support/sort.h"
#include "support/vec.h"

#define INDEX_CHUNK 32768 /* bytes of tree nodes and child-index entries per malloc */

/* ---- temporary tree ---------------------------------------------------- */

void
struct_tree_link(struct tree_node *parent, struct tree_node *c)
{
    c->parent = parent;
    c->next = NULL;
    c->prev = parent->last;
    if (parent->last != NULL)
        parent->last->next = c;
    else
        parent->first = c;
    parent->last = c;
}

void
struct_tree_unlink(struct tree_node *c)
{
    struct tree_node *p = c->parent;

    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        p->first = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    else
        p->last = c->prev;
    c->prev = c->next = NULL;
    c->parent = NULL;
}

struct tree_node *
struct_tree_new_node(struct rebuild *rb, struct tree_node *parent, enum csp_scope kind)
{
    struct tree_node *n;

    if (csp_vec_reserve(&rb->all, &rb->capall, rb->nall + 1, sizeof(*rb->all)) != 0)
        return NULL;
    n = arena_alloc(&rb->index_mem, sizeof(*n)); /* zeroed; freed with the arena */
    if (n == NULL)
        return NULL;
    rb->all[rb->nall++] = n;
    n->kind = kind;
    n->loop = -1;
    if (parent != NULL)
        struct_tree_link(parent, n);
    return n;
}

void
struct_tree_key(const struct tree_node *n, uintptr_t *k1, uint32_t *k2)
{
    switch (n->kind) {
    case CSP_SCOPE_INLINE:
        *k1 = (uintptr_t)n->ctx;
        *k2 = 0;
        break;
    case CSP_SCOPE_STMT:
        *k1 = (uintptr_t)n->file;
        *k2 = n->line;
        break;
    default:
        *k1 = (uintptr_t)n->loop;
        *k2 = 0;
        break;
    }
}

/* The index's hash of a child key. */
static uint64_t
key_hash(const struct tree_node *parent, enum csp_scope kind, uintptr_t k1, uint32_t k2)
{
    uint64_t h = (uint64_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ULL;

    return h ^ ((uint64_t)k1 * 0xc2b2ae3d27d4eb4fULL + (uint64_t)k2 * 0x165667b19e3779f9ULL +
                (unsigned)kind);
}

static bool
entry_eq(const void *val, const void *key)
{
    const struct tree_hash_entry *e = val, *k = key;

    return e->parent == k->parent && e->kind == k->kind && e->k1 == k->k1 && e->k2 == k->k2;
}

/* Live child of @parent with this key, or NULL. */
struct tree_node *
struct_tree_find(const struct rebuild *rb, const struct tree_node *parent, enum csp_scope kind,
                 uintptr_t k1, uint32_t k2)
{
    struct tree_hash_entry key = {parent, k1, k2, kind, NULL};
    const struct tree_hash_entry *e =
        csp_hmap_find(&rb->index, key_hash(parent, kind, k1, k2), entry_eq, &key);

    return e != NULL && !e->node->dead && e->node->parent == parent ? e->node : NULL;
}

int
struct_tree_index(struct rebuild *rb, const struct tree_node *parent, struct tree_node *n)
{
    struct tree_hash_entry key = {parent, 0, 0, n->kind, n}, *e;
    uint64_t h;

    struct_tree_key(n, &key.k1, &key.k2);
    h = key_hash(parent, n->kind, key.k1, key.k2);
    e = csp_hmap_find(&rb->index, h, entry_eq, &key);
    if (e != NULL) {
        e->node = n;
        return 0;
    }
    e = arena_alloc(&rb->index_mem, sizeof(*e));
    if (e == NULL)
        return STRUCT_ENOMEM;
    *e = key;
    return csp_hmap_add(&rb->index, h, e) == 0 ? 0 : STRUCT_ENOMEM;
}

/* The child of @parent for (kind, key); created when missing. */
static struct tree_node *
child_get(struct rebuild *rb, struct tree_node *parent, const struct tree_node *proto)
{
    uintptr_t k1;
    uint32_t k2;
    struct tree_node *n;

    struct_tree_key(proto, &k1, &k2);
    n = struct_tree_find(rb, parent, proto->kind, k1, k2);
    if (n != NULL)
        return n;
    n = struct_tree_new_node(rb, parent, proto->kind);
    if (n == NULL)
        return NULL;
    n->ctx = proto->ctx;
    n->loop = proto->loop;
    n->file = proto->file;
    n->line = proto->line;
    if (struct_tree_index(rb, parent, n) != 0)
        return NULL;
    return n;
}

/* Bytes covered by normalized ranges @r. */
uint64_t
struct_rvec_bytes(const struct struct_rvec *r)
{
    uint64_t n = 0;

    for (size_t i = 0; i < r->n; i++)
        n += r->v[i].hi - r->v[i].lo;
    return n;
}

int
struct_rvec_append_all(struct struct_rvec *dst, const struct struct_rvec *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (struct_rvec_push(dst, src->v[i].lo, src->v[i].hi) != 0)
            return STRUCT_ENOMEM;
    return 0;
}

/* ---- pieces ------------------------------------------------------------ */

struct piece {
    uint64_t lo, hi;
    const struct struct_scope *owner; /* innermost PROC/INLINE */
    const struct struct_scope *stmt;  /* NULL: code without line information */
    int32_t loop;
};

struct piece_vec {
    struct piece *v;
    size_t n, cap;
};

static int
piece_vec_push(struct piece_vec *pv, struct piece p)
{
    if (csp_vec_reserve(&pv->v, &pv->cap, pv->n + 1, sizeof(*pv->v)) != 0)
        return STRUCT_ENOMEM;
    pv->v[pv->n++] = p;
    return 0;
}

#define SORT_PIECES_BY_LO_LESS(a, b) ((a)->lo < (b)->lo)
CSP_SORT_DEFINE(sort_pieces_by_lo, struct piece, SORT_PIECES_BY_LO_LESS)

/* Statement ranges of @x's subtree, and the code of @x no child covers. */
static int
collect_pieces(const struct struct_scope *x, struct piece_vec *out)
{
    struct struct_rvec kids = {0}, gaps = {0};
    int rc = STRUCT_ENOMEM;

    for (const struct struct_scope *c = x->first_child; c != NULL; c = c->next_sibling) {
        for (size_t i = 0; i < c->nranges; i++) {
            if (struct_rvec_push(&kids, c->ranges[i].lo, c->ranges[i].hi) != 0)
                goto out;
            if (c->kind == CSP_SCOPE_STMT &&
                piece_vec_push(out, (struct piece){c->ranges[i].lo, c->ranges[i].hi, x, c, -1}) !=
                    0)
                goto out;
        }
        if (c->kind == CSP_SCOPE_INLINE && (rc = collect_pieces(c, out)) != 0)
            goto out;
    }
    struct_rvec_normalize(&kids);
    if (struct_ranges_subtract(x->ranges, x->nranges, kids.v, kids.n, &gaps) != 0)
        goto out;
    for (size_t i = 0; i < gaps.n; i++)
        if (piece_vec_push(out, (struct piece){gaps.v[i].lo, gaps.v[i].hi, x, NULL, -1}) != 0)
            goto out;
    rc = 0;
out:
    struct_rvec_free(&kids);
    struct_rvec_free(&gaps);
    return rc;
}

/* Cut pieces at block boundaries so each lies in one loop (or none). */
static int
split_pieces(const struct struct_cfg *cfg, const struct piece_vec *in, struct piece_vec *out)
{
    size_t b = 0;

    for (size_t i = 0; i < in->n; i++) {
        struct piece p = in->v[i];
        uint64_t cur = p.lo;

        while (b > 0 && cfg->blocks[b - 1].hi > cur)
            b--;
        while (b < cfg->nblocks && cfg->blocks[b].hi <= cur)
            b++;
        while (cur < p.hi) {
            struct piece q = p;

            q.lo = cur;
            if (b < cfg->nblocks && cfg->blocks[b].lo <= cur) {
                q.hi = cfg->blocks[b].hi < p.hi ? cfg->blocks[b].hi : p.hi;
                q.loop = cfg->blocks[b].loop;
                b++;
            } else {
                uint64_t nb = b < cfg->nblocks ? cfg->blocks[b].lo : UINT64_MAX;

                q.hi = nb < p.hi ? nb : p.hi;
                q.loop = -1;
            }
            if (piece_vec_push(out, q) != 0)
                return STRUCT_ENOMEM;
            cur = q.hi;
        }
    }
    return 0;
}

/* Depth of @s below the procedure (the PROC has depth 0). */
static unsigned
scope_depth(const struct struct_scope *s, const struct struct_scope *proc)
{
    unsigned d = 0;

    for (; s != NULL && s != proc; s = s->parent)
        d++;
    return d;
}

static const struct struct_scope *
scope_lca(const struct struct_scope *a, const struct struct_scope *b,
          const struct struct_scope *proc)
{
    unsigned da, db;

    if (a == NULL)
        return b;
    if (b == NULL)
        return a;
    da = scope_depth(a, proc);
    db = scope_depth(b, proc);
    for (; da > db; da--)
        a = a->parent;
    for (; db > da; db--)
        b = b->parent;
    while (a != b) {
        a = a->parent;
        b = b->parent;
    }
    return a;
}

/* The piece holding address @a (pieces sorted, disjoint), or NULL. */
static const struct piece *
piece_at(const struct piece_vec *pv, uint64_t a)
{
    ptrdiff_t i = csp_range_find(pv->v, pv->n, sizeof(*pv->v), a);

    return i >= 0 ? &pv->v[i] : NULL;
}

#define CTX_SHARE 9 /* tenths of a loop's bytes its context must hold */

/*
 * The inlined context of each loop (@ctx[0..nloops), inner loops' contexts
 * below their parents').  Without back edges that have a statement: the
 * deepest inlined call holding all of the loop's code.  With them: the
 * deepest scope at or above the one holding the back edges that holds at
 * least CTX_SHARE/10 of the loop's bytes, so that a few rows the line table
 * gives the caller inside an inlined callee's loop (hoisted or shared code)
 * do not lift the loop out of the callee.  Pieces of a loop that lie
 * outside its context are placed in it (insert_piece()).
 */
static int
loop_contexts(const struct struct_cfg *cfg, const struct piece_vec *pieces,
              const struct struct_scope *proc, const struct struct_scope **ctx)
{
    const struct struct_scope **all = calloc(cfg->nloops + 1, sizeof(*all));
    const struct struct_scope **be = calloc(cfg->nloops + 1, sizeof(*be));
    uint64_t *bytes = calloc(cfg->nloops + 1, sizeof(*bytes));
    uint64_t **hist = calloc(cfg->nloops + 1, sizeof(*hist));
    int rc = STRUCT_ENOMEM;

    if (all == NULL || be == NULL || bytes == NULL || hist == NULL)
        goto out;
    for (size_t l = 0; l < cfg->nloops; l++) {
        const struct struct_rvec *e = &cfg->loops[l].back_edges;

        for (size_t i = 0; i < e->n; i++) {
            const struct piece *p = piece_at(pieces, e->v[i].lo);

            if (p != NULL && p->stmt != NULL)
                be[l] = scope_lca(be[l], p->owner, proc);
        }
        if (be[l] != NULL &&
            (hist[l] = calloc(scope_depth(be[l], proc) + 1, sizeof(**hist))) == NULL)
            goto out;
    }
    /* bytes of each loop, and by depth of LCA(owner, back-edge scope) */
    for (size_t i = 0; i < pieces->n; i++) {
        const struct piece *p = &pieces->v[i];

        if (p->loop >= 0)
            all[p->loop] = scope_lca(all[p->loop], p->owner, proc);
        for (int32_t l = p->loop; l >= 0; l = cfg->loops[l].parent) {
            bytes[l] += p->hi - p->lo;
            if (be[l] != NULL)
                hist[l][scope_depth(scope_lca(p->owner, be[l], proc), proc)] += p->hi - p->lo;
        }
    }
    for (size_t l = 0; l < cfg->nloops; l++) { /* inner loops come first */
        const struct struct_scope *c = all[l];

        if (be[l] != NULL) {
            unsigned d = scope_depth(be[l], proc);
            uint64_t under = 0;

            c = be[l];
            for (;; d--, c = c->parent) { /* hist summed from depth d down: bytes under c */
                under += hist[l][d];
                if (under * 10 >= bytes[l] * CTX_SHARE || d == 0 || c == proc)
                    break;
            }
            if (ctx[l] != NULL) /* children's contexts */
                c = scope_lca(c, ctx[l], proc);
        } else {
            c = scope_lca(c, ctx[l], proc);
        }
        ctx[l] = c != NULL ? c : proc;
        if (cfg->loops[l].parent >= 0)
            ctx[cfg->loops[l].parent] = scope_lca(ctx[cfg->loops[l].parent], ctx[l], proc);
    }
    rc = 0;
out:
    for (size_t l = 0; hist != NULL && l < cfg->nloops; l++)
        free(hist[l]);
    free(hist);
    free(all);
    free(be);
    free(bytes);
    return rc;
}

/* ---- building the temporary tree ---------------------------------------- */

#define MAX_CHAIN 512 /* deeper inline or loop nests are cut (never seen in practice) */

static int
insert_piece(struct rebuild *rb, const struct piece *p, const struct struct_scope **ctx,
             struct tree_node **loopnode)
{
    const struct struct_scope *chain[MAX_CHAIN], *owner = p->owner;
    int32_t loops[MAX_CHAIN];
    size_t nchain = 0, nloops = 0, ai = 0;
    struct tree_node *cur = rb->root, proto;

    /* Code of the loop outside its context (loop_contexts()) is placed in it. */
    if (p->loop >= 0 && scope_lca(owner, ctx[p->loop], rb->proc) != ctx[p->loop])
        owner = ctx[p->loop];
    for (const struct struct_scope *s = owner; s != NULL && s != rb->proc && nchain < MAX_CHAIN;
         s = s->parent)
        chain[nchain++] = s;
    for (size_t i = 0; i < nchain / 2; i++) { /* outermost first */
        const struct struct_scope *t = chain[i];

        chain[i] = chain[nchain - 1 - i];
        chain[nchain - 1 - i] = t;
    }
    for (int32_t l = p->loop; l >= 0 && nloops < MAX_CHAIN; l = rb->cfg->loops[l].parent)
        loops[nloops++] = l;
    while (nloops-- > 0) {
        int32_t l = loops[nloops];
        unsigned d = scope_depth(ctx[l], rb->proc);

        for (; ai < d && ai < nchain; ai++) {
            memset(&proto, 0, sizeof(proto));
            proto.kind = CSP_SCOPE_INLINE;
            proto.ctx = chain[ai];
            if ((cur = child_get(rb, cur, &proto)) == NULL ||
                struct_rvec_push(&cur->ranges, p->lo, p->hi) != 0)
                return STRUCT_ENOMEM;
        }
        memset(&proto, 0, sizeof(proto));
        proto.kind = CSP_SCOPE_LOOP;
        proto.loop = l;
        proto.ctx = ctx[l];
        if ((cur = child_get(rb, cur, &proto)) == NULL)
            return STRUCT_ENOMEM;
        loopnode[l] = cur;
        if (struct_rvec_push(&cur->ranges, p->lo, p->hi) != 0)
            return STRUCT_ENOMEM;
    }
    for (; ai < nchain; ai++) {
        memset(&proto, 0, sizeof(proto));
        proto.kind = CSP_SCOPE_INLINE;
        proto.ctx = chain[ai];
        if ((cur = child_get(rb, cur, &proto)) == NULL ||
            struct_rvec_push(&cur->ranges, p->lo, p->hi) != 0)
            return STRUCT_ENOMEM;
    }
    if (p->stmt != NULL) {
        memset(&proto, 0, sizeof(proto));
        proto.kind = CSP_SCOPE_STMT;
        proto.ctx = p->owner;
        proto.file = p->stmt->file;
        proto.line = p->stmt->line;
        if ((cur = child_get(rb, cur, &proto)) == NULL ||
            struct_rvec_push(&cur->ranges, p->lo, p->hi) != 0)
            return STRUCT_ENOMEM;
    }
    return 0;
}

/* Is there a conditional jump at @a? */
static bool
has_cbranch_at(const struct struct_cfg *cfg, uint64_t a)
{
    size_t i = csp_lower_bound_u64(cfg->cbranches, cfg->ncbranches, sizeof(uint64_t), 0, a);

    return i < cfg->ncbranches && cfg->cbranches[i] == a;
}

/* Does @n's code hold a conditional jump? */
static bool
has_cbranch(const struct struct_cfg *cfg, const struct tree_node *n)
{
    for (size_t i = 0; i < n->ranges.n; i++) {
        size_t k = csp_lower_bound_u64(cfg->cbranches, cfg->ncbranches, sizeof(uint64_t), 0,
                                       n->ranges.v[i].lo);

        if (k < cfg->ncbranches && cfg->cbranches[k] < n->ranges.v[i].hi)
            return true;
    }
    return false;
}

/*
 * Smallest line >= @floor of the STMT children of @n in @file (0 when
 * none), of those holding a conditional jump unless @cfg is NULL, and of the
 * inner loops' too when @deep.  The floor is at or just below the declaration
 * line of the loop's procedure or inlined callee: lines above it are callee
 * code the line table has but no inlined-subroutine entry covers.
 */
static uint32_t
min_stmt_line(const struct struct_cfg *cfg, const struct tree_node *n, const char *file,
              uint32_t floor, bool deep)
{
    uint32_t best = 0;

    for (const struct tree_node *c = n->first; c != NULL; c = c->next) {
        uint32_t l = 0;

        if (c->kind == CSP_SCOPE_STMT && c->file == file && c->line >= floor &&
            (cfg == NULL || has_cbranch(cfg, c)))
            l = c->line;
        else if (deep && c->kind == CSP_SCOPE_LOOP)
            l = min_stmt_line(cfg, c, file, floor, true);
        if (l != 0 && (best == 0 || l < best))
            best = l;
    }
    return best;
}

static bool
same_file(const char *a, const char *b)
{
    return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/*
 * The line in @ctx's source of the statement of piece @p: its own line
 * when @ctx owns it (not a row of another file or above @floor: that is
 * callee code the line table puts in the caller, such as an inlined
 * callee's loop line in its caller's loop head), else the call line of
 * the inlined call of @ctx that holds it.  0 when there is none.
 */
static uint32_t
line_in_ctx(const struct piece *p, const struct struct_scope *ctx, uint32_t floor)
{
    const struct struct_scope *s = p->owner;

    if (p->stmt == NULL)
        return 0;
    if (s == ctx)
        return same_file(p->stmt->file, ctx->file) && p->stmt->line >= floor ? p->stmt->line : 0;
    while (s != NULL && s->parent != ctx)
        s = s->parent;
    return s != NULL && same_file(s->call_file, ctx->file) ? s->call_line : 0;
}

/*
 * The line of the loop's back edges, the jumps back to its header: the
 * smallest line_in_ctx() of those that are conditional jumps (the loop
 * test of a rotated for/while loop), or with @conditional false, of the
 * indirect ones (an interpreter's computed gotos).  Returns false when none has
 * a line.
 */
static bool
back_edge_line(const struct struct_cfg *cfg, const struct piece_vec *pieces, struct tree_node *l,
               bool conditional, uint32_t floor)
{
    const struct struct_rvec *be = &cfg->loops[l->loop].back_edges;
    uint32_t line = 0;

    if (l->ctx == NULL || l->ctx->file == NULL)
        return false;
    for (size_t i = 0; i < be->n; i++) {
        const struct piece *p = piece_at(pieces, be->v[i].lo);
        uint32_t x;

        if (p == NULL || has_cbranch_at(cfg, be->v[i].lo) != conditional)
            continue;
        x = line_in_ctx(p, l->ctx, floor);
        if (x != 0 && (line == 0 || x < line))
            line = x;
    }
    if (line == 0)
        return false;
    l->file = l->ctx->file;
    l->line = line;
    return true;
}

/*
 * The line of loop @l at or below line @floor of @file, its context's file:
 * of its conditional back edges (above), else of its computed gotos, else the
 * smallest line of a statement directly in the loop that holds a conditional
 * jump (the loop test of a top-tested loop), else the smallest line.  Sets
 * @l's file and line and returns true when one is found.
 */
static bool
header_line_from(const struct struct_cfg *cfg, const struct piece_vec *pieces, struct tree_node *l,
                 const char *file, uint32_t floor)
{
    uint32_t line;

    if (back_edge_line(cfg, pieces, l, true, floor) || back_edge_line(cfg, pieces, l, false, floor))
        return true;
    if (file == NULL)
        return false;
    line = min_stmt_line(cfg, l, file, floor, false);
    if (line == 0)
        line = min_stmt_line(NULL, l, file, floor, false);
    if (line == 0)
        return false;
    l->file = file;
    l->line = line;
    return true;
}

/*
 * The loop's header line, a line of its own scope: the procedure or inlined
 * callee that holds it (@l->ctx), never a line of a callee the line table
 * puts in its code, which lies above the context's declaration (an inlined
 * callee declared before its caller; two loops of one nest with the same line
 * would read as one).  header_line_from() below the declaration line, then at
 * that line (a function written on one line has its loop there).  Without
 * one: the smallest line of a statement in the loop from another file than
 * the context's, else the smallest line of the context's file at or below its
 * declaration in its inner loops, else none (a loop of a callee's code that
 * lies outside the callee's inlined scopes has no line of its own scope).
 */
static void
loop_header_line(const struct struct_cfg *cfg, const struct piece_vec *pieces, struct tree_node *l)
{
    const char *file = l->ctx != NULL ? l->ctx->file : NULL, *other = NULL;
    uint32_t decl = l->ctx != NULL ? l->ctx->line : 0, line = 0;

    /* Not the declaration line itself first: gcc gives parameter copies that line. */
    if (header_line_from(cfg, pieces, l, file, decl > 0 ? decl + 1 : 0) ||
        (decl > 0 && header_line_from(cfg, pieces, l, file, decl)))
        return;
    for (const struct tree_node *c = l->first; c != NULL && other == NULL; c = c->next)
        if (c->kind == CSP_SCOPE_STMT && !same_file(c->file, file))
            other = c->file;
    if (other != NULL) {
        file = other;
        line = min_stmt_line(NULL, l, file, 0, false);
    }
    if (line == 0 && l->ctx != NULL && l->ctx->file != NULL) {
        file = l->ctx->file;
        line = min_stmt_line(NULL, l, file, decl > 0 ? decl + 1 : 0, true);
        if (line == 0 && decl > 0)
            line = min_stmt_line(NULL, l, file, decl, true);
    }
    l->file = line != 0 ? file : NULL;
    l->line = line;
}

/* ---- back to scopes -------------------------------------------------------- */

static int
materialize(struct rebuild *rb, const struct tree_node *t, struct struct_scope *parent)
{
    for (const struct tree_node *c = t->first; c != NULL; c = c->next) {
        struct struct_scope *s;
        struct struct_rvec r = c->ranges;

        if (c->dead)
            continue;
        struct_rvec_normalize(&r);
        s = struct_scope_new_in(rb->arena, parent, c->kind, r.v, r.n);
        if (s == NULL)
            return STRUCT_ENOMEM;
        switch (c->kind) {
        case CSP_SCOPE_INLINE:
            s->name = c->ctx->name;
            s->link_name = c->ctx->link_name;
            s->file = c->ctx->file;
            s->line = c->ctx->line;
            s->call_file = c->ctx->call_file;
            s->call_line = c->ctx->call_line;
            break;
        case CSP_SCOPE_LOOP:
            s->file = c->file;
            s->line = c->line;
            s->flags = c->flags;
            if (c->entries.n > 0) {
                s->entries = arena_alloc(rb->arena, c->entries.n * sizeof(*s->entries));
                if (s->entries == NULL)
                    return STRUCT_ENOMEM;
                memcpy(s->entries, c->entries.v, c->entries.n * sizeof(*s->entries));
                s->nentries = c->entries.n;
            }
            break;
        case CSP_SCOPE_CALL:
            s->name = c->name;
            s->target = c->target;
            s->flags = c->flags;
            __attribute__((fallthrough));
        default:
            s->file = c->file;
            s->line = c->line;
            break;
        }
        if (materialize(rb, c, s) != 0)
            return STRUCT_ENOMEM;
    }
    return 0;
}

static void
rebuild_free(struct rebuild *rb)
{
    for (size_t i = 0; i < rb->nall; i++) {
        struct_rvec_free(&rb->all[i]->ranges);
        struct_rvec_free(&rb->all[i]->entries);
    }
    free(rb->all);
    csp_hmap_free(&rb->index);
    arena_destroy(&rb->index_mem);
}

/* ---- procedures without loops ------------------------------------------- */

/* A statement range or an inlined call of a loop-free procedure's subtree. */
struct flat_span {
    uint64_t lo, hi;
    struct struct_scope *scope;
};

struct flat_inline {
    struct struct_scope *scope;
    unsigned depth; /* below the procedure (its children: 1) */
};

struct flat_tree {
    struct flat_span *sp;
    size_t nsp, capsp;
    struct flat_inline *in;
    size_t nin, capin;
};

#define SORT_FLAT_SPANS_LESS(a, b) ((a)->lo < (b)->lo)
CSP_SORT_DEFINE(sort_flat_spans, struct flat_span, SORT_FLAT_SPANS_LESS)

/* Statement ranges and inlined calls under @x, depth first. */
static int
flat_collect(struct flat_tree *t, struct struct_scope *x, unsigned depth)
{
    for (struct struct_scope *c = x->first_child; c != NULL; c = c->next_sibling) {
        if (c->kind == CSP_SCOPE_STMT) {
            for (size_t i = 0; i < c->nranges; i++) {
                if (csp_vec_reserve(&t->sp, &t->capsp, t->nsp + 1, sizeof(*t->sp)) != 0)
                    return STRUCT_ENOMEM;
                t->sp[t->nsp++] = (struct flat_span){c->ranges[i].lo, c->ranges[i].hi, c};
            }
        } else if (c->kind == CSP_SCOPE_INLINE) {
            if (csp_vec_reserve(&t->in, &t->capin, t->nin + 1, sizeof(*t->in)) != 0)
                return STRUCT_ENOMEM;
            t->in[t->nin++] = (struct flat_inline){c, depth};
            if (flat_collect(t, c, depth + 1) != 0)
                return STRUCT_ENOMEM;
        }
    }
    return 0;
}

/*
 * The rebuild of a procedure without loops keeps its statements and
 * inlined calls as they are, so its call sites are added in place: each
 * next to the statement holding it, else in the deepest inlined call
 * holding it (as struct_tree_add_calls() places them), else in @proc.
 * The CALL scopes come from @arena.
 */
static int
add_calls_in_place(struct arena *arena, struct struct_scope *proc, const struct struct_cfg *cfg,
                   const struct struct_cfg_env *env)
{
    struct flat_tree t = {0};
    int rc = STRUCT_ENOMEM;

    if (flat_collect(&t, proc, 1) != 0)
        goto out;
    if (t.nsp > 1)
        sort_flat_spans(t.sp, t.nsp);
    for (size_t i = 0; i < cfg->ncalls; i++) {
        const struct struct_call *call = &cfg->calls[i];
        const struct struct_entry *e = call->target ? struct_cfg_entry_at(env, call->target) : NULL;
        ptrdiff_t at = csp_range_find(t.sp, t.nsp, sizeof(*t.sp), call->addr);
        struct struct_scope *parent = proc, *stmt = NULL, *s;
        struct struct_range r = {call->addr, call->end};

        if (at >= 0) {
            stmt = t.sp[at].scope;
            parent = stmt->parent;
        } else {
            unsigned best = 0;

            for (size_t j = 0; j < t.nin; j++)
                if (t.in[j].depth > best &&
                    struct_ranges_contain(t.in[j].scope->ranges, t.in[j].scope->nranges,
                                          call->addr)) {
                    best = t.in[j].depth;
                    parent = t.in[j].scope;
                }
        }
        s = struct_scope_new_in(arena, parent, CSP_SCOPE_CALL, &r, 1);
        if (s == NULL)
            goto out;
        if (stmt != NULL) {
            s->file = stmt->file;
            s->line = stmt->line;
        }
        s->target = call->target;
        s->name = e != NULL ? e->name : NULL;
        s->flags = struct_call_scope_flags(call);
    }
    rc = 0;
out:
    free(t.sp);
    free(t.in);
    return rc;
}

/* Rebuild @proc's subtree from its pieces, its CFG's loops and calls. */
int
struct_tree_restructure(struct arena *arena, struct struct_scope *proc,
                        const struct struct_cfg *cfg, const struct struct_cfg_env *env,
                        bool do_normalize)
{
    struct rebuild rb = {.arena = arena, .cfg = cfg, .env = env, .proc = proc};
    struct piece_vec raw = {0}, pieces = {0};
    const struct struct_scope **ctx = NULL;
    struct tree_node **loopnode = NULL;
    int rc = STRUCT_ENOMEM;

    if (cfg->nloops == 0 && cfg->ncalls == 0)
        return 0;
    if (cfg->nloops == 0)
        return add_calls_in_place(arena, proc, cfg, env);
    arena_init_malloc(&rb.index_mem, INDEX_CHUNK, 0);
    rb.root = struct_tree_new_node(&rb, NULL, CSP_SCOPE_PROC);
    if (rb.root == NULL || collect_pieces(proc, &raw) != 0)
        goto out;
    if (raw.n > 1)
        sort_pieces_by_lo(raw.v, raw.n);
    if (split_pieces(cfg, &raw, &pieces) != 0)
        goto out;
    ctx = calloc(cfg->nloops + 1, sizeof(*ctx));
    loopnode = calloc(cfg->nloops + 1, sizeof(*loopnode));
    if (ctx == NULL || loopnode == NULL)
        goto out;
    if (loop_contexts(cfg, &pieces, proc, ctx) != 0)
        goto out;
    for (size_t i = 0; i < pieces.n; i++)
        if (insert_piece(&rb, &pieces.v[i], ctx, loopnode) != 0)
            goto out;
    for (size_t l = 0; l < cfg->nloops; l++) {
        struct tree_node *n = loopnode[l];

        if (n == NULL)
            continue;
        if (struct_rvec_append_all(&n->entries, &cfg->loops[l].entries) != 0)
            goto out;
        n->flags = cfg->loops[l].irreducible ? STRUCT_SCOPE_F_IRREDUCIBLE : 0;
        loop_header_line(cfg, &pieces, n);
    }
    if (do_normalize && struct_tree_normalize(&rb, rb.root) != 0)
        goto out;
    if (struct_tree_add_calls(&rb) != 0)
        goto out;
    proc->first_child = NULL;
    rc = materialize(&rb, rb.root, proc);
out:
    free(ctx);
    free(loopnode);
    free(raw.v);
    free(pieces.v);
    rebuild_free(&rb);
    return rc;
}
