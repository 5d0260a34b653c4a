/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loopnest.c -- put loops and call sites into the scope tree of each
 * procedure, and normalize the result (the "bloop" rules of J. Mellor-Crummey et al., "HPCView: A Tool
 * for Top-down Analysis of Node Performance", J. Supercomputing 23(1), 2002, §3).
 *
 * Input: a PROC scope whose INLINE tree and STMT scopes come from DWARF
 * (analyze.c).  Each procedure is decoded and its loops found (cfg.c)
 * and its subtree rebuilt by one of several threads, each with its own
 * decoder and its own module arena for the new scopes; a procedure's
 * subtree depends only on the procedure, so the output never depends on
 * the number of threads, and its CFG is freed as soon as it is used.
 * The procedure's code is cut into pieces with one (inlined-call chain,
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
 * One top-down pass; rule 2 only relates statements of the same inlined
 * context.  Call sites are attached last, next to their statement.
 * Normalization never merges two loops that the object code nests: the
 * paper's last rule, collapsing a perfect nest into its outermost loop, is
 * not applied, because it reports the time of a hot inner loop (whose
 * statements are often only the two loops' header lines at -O2) at the
 * outer loop's line, and the user then tunes the wrong loop.
 *
 * Tool code only; never prints.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "structure/cfg.h"

struct tnode {
    enum struct_scope_kind kind;
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
    struct tnode *parent, *first, *last, *prev, *next;
};

struct hent {
    const struct tnode *parent;
    uintptr_t k1;
    uint32_t k2;
    enum struct_scope_kind kind;
    struct tnode *node;
};

struct pctx {
    struct arena *arena; /* where the new scopes go: the calling thread's */
    const struct struct_cfg *cfg;
    const struct struct_cfg_env *env;
    struct struct_scope *proc;
    struct tnode **all;
    size_t nall, capall;
    struct hent *hash;
    size_t hcap, hused;
    struct tnode *root;
};

/* ---- temporary tree ---------------------------------------------------- */

static void
link_child(struct tnode *parent, struct tnode *c)
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

static void
unlink_child(struct tnode *c)
{
    struct tnode *p = c->parent;

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

static struct tnode *
node_new(struct pctx *pc, struct tnode *parent, enum struct_scope_kind kind)
{
    struct tnode *n;

    if (pc->nall == pc->capall) {
        size_t cap = pc->capall ? pc->capall * 2 : 64;
        struct tnode **v = realloc(pc->all, cap * sizeof(*v));

        if (v == NULL)
            return NULL;
        pc->all = v;
        pc->capall = cap;
    }
    n = calloc(1, sizeof(*n));
    if (n == NULL)
        return NULL;
    pc->all[pc->nall++] = n;
    n->kind = kind;
    n->loop = -1;
    if (parent != NULL)
        link_child(parent, n);
    return n;
}

static void
node_key(const struct tnode *n, uintptr_t *k1, uint32_t *k2)
{
    switch (n->kind) {
    case STRUCT_SCOPE_INLINE:
        *k1 = (uintptr_t)n->ctx;
        *k2 = 0;
        break;
    case STRUCT_SCOPE_STMT:
        *k1 = (uintptr_t)n->file;
        *k2 = n->line;
        break;
    default:
        *k1 = (uintptr_t)n->loop;
        *k2 = 0;
        break;
    }
}

static size_t
hash_slot(const struct pctx *pc, const struct tnode *parent, enum struct_scope_kind kind,
          uintptr_t k1, uint32_t k2)
{
    uint64_t h = (uint64_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ULL;

    h ^= (uint64_t)k1 * 0xc2b2ae3d27d4eb4fULL + (uint64_t)k2 * 0x165667b19e3779f9ULL +
         (unsigned)kind;
    h ^= h >> 29;
    return (size_t)h & (pc->hcap - 1);
}

static int
hash_grow(struct pctx *pc)
{
    size_t cap = pc->hcap ? pc->hcap * 2 : 256, oldcap = pc->hcap;
    struct hent *old = pc->hash;

    pc->hash = calloc(cap, sizeof(*pc->hash));
    if (pc->hash == NULL) {
        pc->hash = old;
        return STRUCT_ENOMEM;
    }
    pc->hcap = cap;
    pc->hused = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].node != NULL) {
            size_t j = hash_slot(pc, old[i].parent, old[i].kind, old[i].k1, old[i].k2);

            while (pc->hash[j].node != NULL)
                j = (j + 1) & (cap - 1);
            pc->hash[j] = old[i];
            pc->hused++;
        }
    free(old);
    return 0;
}

/* Live child of @parent with this key, or NULL. */
static struct tnode *
hash_get(const struct pctx *pc, const struct tnode *parent, enum struct_scope_kind kind,
         uintptr_t k1, uint32_t k2)
{
    if (pc->hcap == 0)
        return NULL;
    for (size_t j = hash_slot(pc, parent, kind, k1, k2); pc->hash[j].node != NULL;
         j = (j + 1) & (pc->hcap - 1)) {
        const struct hent *e = &pc->hash[j];

        if (e->parent == parent && e->kind == kind && e->k1 == k1 && e->k2 == k2)
            return !e->node->dead && e->node->parent == parent ? e->node : NULL;
    }
    return NULL;
}

static int
hash_put(struct pctx *pc, const struct tnode *parent, struct tnode *n)
{
    uintptr_t k1;
    uint32_t k2;
    size_t j;

    if ((pc->hused + 1) * 2 > pc->hcap && hash_grow(pc) != 0)
        return STRUCT_ENOMEM;
    node_key(n, &k1, &k2);
    for (j = hash_slot(pc, parent, n->kind, k1, k2); pc->hash[j].node != NULL;
         j = (j + 1) & (pc->hcap - 1)) {
        struct hent *e = &pc->hash[j];

        if (e->parent == parent && e->kind == n->kind && e->k1 == k1 && e->k2 == k2) {
            e->node = n;
            return 0;
        }
    }
    pc->hash[j] = (struct hent){parent, k1, k2, n->kind, n};
    pc->hused++;
    return 0;
}

/* The child of @parent for (kind, key); created when missing. */
static struct tnode *
child_get(struct pctx *pc, struct tnode *parent, const struct tnode *proto)
{
    uintptr_t k1;
    uint32_t k2;
    struct tnode *n;

    node_key(proto, &k1, &k2);
    n = hash_get(pc, parent, proto->kind, k1, k2);
    if (n != NULL)
        return n;
    n = node_new(pc, parent, proto->kind);
    if (n == NULL)
        return NULL;
    n->ctx = proto->ctx;
    n->loop = proto->loop;
    n->file = proto->file;
    n->line = proto->line;
    if (hash_put(pc, parent, n) != 0)
        return NULL;
    return n;
}

/* Bytes covered by normalized ranges @r. */
static uint64_t
rvec_size(const struct struct_rvec *r)
{
    uint64_t n = 0;

    for (size_t i = 0; i < r->n; i++)
        n += r->v[i].hi - r->v[i].lo;
    return n;
}

static int
rvec_append(struct struct_rvec *dst, const struct struct_rvec *src)
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

struct pvec {
    struct piece *v;
    size_t n, cap;
};

static int
pvec_push(struct pvec *pv, struct piece p)
{
    if (pv->n == pv->cap) {
        size_t cap = pv->cap ? pv->cap * 2 : 256;
        struct piece *v = realloc(pv->v, cap * sizeof(*v));

        if (v == NULL)
            return STRUCT_ENOMEM;
        pv->v = v;
        pv->cap = cap;
    }
    pv->v[pv->n++] = p;
    return 0;
}

static int
piece_cmp(const void *pa, const void *pb)
{
    const struct piece *a = pa, *b = pb;

    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Statement ranges of @x's subtree, and the code of @x no child covers. */
static int
collect_pieces(const struct struct_scope *x, struct pvec *out)
{
    struct struct_rvec kids = {0}, gaps = {0};
    int rc = STRUCT_ENOMEM;

    for (const struct struct_scope *c = x->first_child; c != NULL; c = c->next_sibling) {
        for (size_t i = 0; i < c->nranges; i++) {
            if (struct_rvec_push(&kids, c->ranges[i].lo, c->ranges[i].hi) != 0)
                goto out;
            if (c->kind == STRUCT_SCOPE_STMT &&
                pvec_push(out, (struct piece){c->ranges[i].lo, c->ranges[i].hi, x, c, -1}) != 0)
                goto out;
        }
        if (c->kind == STRUCT_SCOPE_INLINE && (rc = collect_pieces(c, out)) != 0)
            goto out;
    }
    struct_rvec_normalize(&kids);
    if (struct_ranges_subtract(x->ranges, x->nranges, kids.v, kids.n, &gaps) != 0)
        goto out;
    for (size_t i = 0; i < gaps.n; i++)
        if (pvec_push(out, (struct piece){gaps.v[i].lo, gaps.v[i].hi, x, NULL, -1}) != 0)
            goto out;
    rc = 0;
out:
    struct_rvec_free(&kids);
    struct_rvec_free(&gaps);
    return rc;
}

/* Cut pieces at block boundaries so each lies in one loop (or none). */
static int
split_pieces(const struct struct_cfg *cfg, const struct pvec *in, struct pvec *out)
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
            if (pvec_push(out, q) != 0)
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
piece_at(const struct pvec *pv, uint64_t a)
{
    size_t lo = 0, hi = pv->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (pv->v[mid].hi <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < pv->n && pv->v[lo].lo <= a ? &pv->v[lo] : NULL;
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
loop_contexts(const struct struct_cfg *cfg, const struct pvec *pieces,
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
insert_piece(struct pctx *pc, const struct piece *p, const struct struct_scope **ctx,
             struct tnode **loopnode)
{
    const struct struct_scope *chain[MAX_CHAIN], *owner = p->owner;
    int32_t loops[MAX_CHAIN];
    size_t nchain = 0, nloops = 0, ai = 0;
    struct tnode *cur = pc->root, proto;

    /* Code of the loop outside its context (loop_contexts()) is placed in it. */
    if (p->loop >= 0 && scope_lca(owner, ctx[p->loop], pc->proc) != ctx[p->loop])
        owner = ctx[p->loop];
    for (const struct struct_scope *s = owner; s != NULL && s != pc->proc && nchain < MAX_CHAIN;
         s = s->parent)
        chain[nchain++] = s;
    for (size_t i = 0; i < nchain / 2; i++) { /* outermost first */
        const struct struct_scope *t = chain[i];

        chain[i] = chain[nchain - 1 - i];
        chain[nchain - 1 - i] = t;
    }
    for (int32_t l = p->loop; l >= 0 && nloops < MAX_CHAIN; l = pc->cfg->loops[l].parent)
        loops[nloops++] = l;
    while (nloops-- > 0) {
        int32_t l = loops[nloops];
        unsigned d = scope_depth(ctx[l], pc->proc);

        for (; ai < d && ai < nchain; ai++) {
            memset(&proto, 0, sizeof(proto));
            proto.kind = STRUCT_SCOPE_INLINE;
            proto.ctx = chain[ai];
            if ((cur = child_get(pc, cur, &proto)) == NULL ||
                struct_rvec_push(&cur->ranges, p->lo, p->hi) != 0)
                return STRUCT_ENOMEM;
        }
        memset(&proto, 0, sizeof(proto));
        proto.kind = STRUCT_SCOPE_LOOP;
        proto.loop = l;
        proto.ctx = ctx[l];
        if ((cur = child_get(pc, cur, &proto)) == NULL)
            return STRUCT_ENOMEM;
        loopnode[l] = cur;
        if (struct_rvec_push(&cur->ranges, p->lo, p->hi) != 0)
            return STRUCT_ENOMEM;
    }
    for (; ai < nchain; ai++) {
        memset(&proto, 0, sizeof(proto));
        proto.kind = STRUCT_SCOPE_INLINE;
        proto.ctx = chain[ai];
        if ((cur = child_get(pc, cur, &proto)) == NULL ||
            struct_rvec_push(&cur->ranges, p->lo, p->hi) != 0)
            return STRUCT_ENOMEM;
    }
    if (p->stmt != NULL) {
        memset(&proto, 0, sizeof(proto));
        proto.kind = STRUCT_SCOPE_STMT;
        proto.ctx = p->owner;
        proto.file = p->stmt->file;
        proto.line = p->stmt->line;
        if ((cur = child_get(pc, cur, &proto)) == NULL ||
            struct_rvec_push(&cur->ranges, p->lo, p->hi) != 0)
            return STRUCT_ENOMEM;
    }
    return 0;
}

/*
 * Smallest line >= @floor of the STMT children of @n in @file (0 when
 * none).  The floor is just below the declaration line of the loop's
 * procedure or inlined callee: lines above it are callee code the line
 * table has but no inlined-subroutine entry covers.
 */
/* Is there a conditional jump at @a? */
static bool
has_cbranch_at(const struct struct_cfg *cfg, uint64_t a)
{
    size_t lo = 0, hi = cfg->ncbranches;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (cfg->cbranches[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cfg->ncbranches && cfg->cbranches[lo] == a;
}

/* Does @n's code hold a conditional jump? */
static bool
has_cbranch(const struct struct_cfg *cfg, const struct tnode *n)
{
    for (size_t i = 0; i < n->ranges.n; i++) {
        size_t lo = 0, hi = cfg->ncbranches;

        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;

            if (cfg->cbranches[mid] < n->ranges.v[i].lo)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < cfg->ncbranches && cfg->cbranches[lo] < n->ranges.v[i].hi)
            return true;
    }
    return false;
}

static uint32_t
min_stmt_line(const struct struct_cfg *cfg, const struct tnode *n, const char *file, uint32_t floor,
              bool deep)
{
    uint32_t best = 0;

    for (const struct tnode *c = n->first; c != NULL; c = c->next) {
        uint32_t l = 0;

        if (c->kind == STRUCT_SCOPE_STMT && c->file == file && c->line >= floor &&
            (cfg == NULL || has_cbranch(cfg, c)))
            l = c->line;
        else if (deep && c->kind == STRUCT_SCOPE_LOOP)
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
back_edge_line(const struct struct_cfg *cfg, const struct pvec *pieces, struct tnode *l,
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
 * The loop's header line: the line of its conditional back edges (above),
 * else of its computed gotos; else, among the statements directly in the
 * loop, in the file of its inlined context and below the context's
 * declaration, the smallest line that holds a conditional jump (the loop
 * test of a top-tested loop), else the smallest line.
 */
static void
loop_header_line(const struct struct_cfg *cfg, const struct pvec *pieces, struct tnode *l)
{
    const char *file = l->ctx != NULL ? l->ctx->file : NULL;
    /* Not the declaration line itself either: gcc gives parameter copies that line. */
    uint32_t floor = l->ctx != NULL && l->ctx->line > 0 ? l->ctx->line + 1 : 0;
    uint32_t line = 0;

    if (back_edge_line(cfg, pieces, l, true, floor) || back_edge_line(cfg, pieces, l, false, floor))
        return;
    if (file != NULL) {
        line = min_stmt_line(cfg, l, file, floor, false);
        if (line == 0)
            line = min_stmt_line(NULL, l, file, floor, false);
        if (line == 0)
            line = min_stmt_line(NULL, l, file, 0, false);
    }
    if (line == 0) { /* no statement of the context's file: take the first statement's file */
        file = NULL;
        for (const struct tnode *c = l->first; c != NULL && file == NULL; c = c->next)
            if (c->kind == STRUCT_SCOPE_STMT)
                file = c->file;
        if (file != NULL)
            line = min_stmt_line(NULL, l, file, 0, false);
    }
    if (line == 0 && l->ctx != NULL && l->ctx->file != NULL) {
        file = l->ctx->file;
        line = min_stmt_line(NULL, l, file, floor, true);
    }
    l->file = line != 0 ? file : NULL;
    l->line = line;
}

/* ---- normalization ------------------------------------------------------- */

/* Move @c under @to, merging it into a same-keyed child there. */
static int merge_into(struct pctx *pc, struct tnode *a, struct tnode *b);

static int
adopt(struct pctx *pc, struct tnode *to, struct tnode *c)
{
    uintptr_t k1;
    uint32_t k2;
    struct tnode *same;

    if (c->kind == STRUCT_SCOPE_LOOP || c->kind == STRUCT_SCOPE_CALL) {
        unlink_child(c);
        link_child(to, c);
        return c->kind == STRUCT_SCOPE_LOOP ? hash_put(pc, to, c) : 0;
    }
    node_key(c, &k1, &k2);
    same = hash_get(pc, to, c->kind, k1, k2);
    if (same != NULL)
        return merge_into(pc, same, c);
    unlink_child(c);
    link_child(to, c);
    return hash_put(pc, to, c);
}

/* Fold @b (a sibling or descendant of @a) into @a; @b dies. */
static int
merge_into(struct pctx *pc, struct tnode *a, struct tnode *b)
{
    struct tnode *c, *next;
    uint64_t asize, bsize;

    struct_rvec_normalize(&a->ranges);
    struct_rvec_normalize(&b->ranges);
    asize = rvec_size(&a->ranges);
    bsize = rvec_size(&b->ranges);
    if (rvec_append(&a->ranges, &b->ranges) != 0 || rvec_append(&a->entries, &b->entries) != 0)
        return STRUCT_ENOMEM;
    struct_rvec_normalize(&a->ranges);
    struct_rvec_normalize(&a->entries);
    a->flags |= b->flags;
    /* The fused loop keeps the line of its larger part (the loop body, not a
     * peeled or versioned piece that may carry another loop's line). */
    if (a->kind == STRUCT_SCOPE_LOOP && b->line != 0 &&
        (a->line == 0 || bsize > asize ||
         (bsize == asize && a->file == b->file && b->line < a->line))) {
        a->file = b->file;
        a->line = b->line;
    }
    for (c = b->first; c != NULL; c = next) {
        next = c->next;
        if (adopt(pc, a, c) != 0)
            return STRUCT_ENOMEM;
    }
    if (b->parent != NULL)
        unlink_child(b);
    b->dead = true;
    return 0;
}

/* A statement instance under a child loop of the scope being normalized. */
struct inst {
    const struct struct_scope *ctx;
    const char *file;
    uint32_t line;
    uint32_t group; /* rule 1: index of the child loop; rule 2: loop depth */
    uint64_t lo;
    struct tnode *node;
};

struct ivec {
    struct inst *v;
    size_t n, cap;
};

/* The inlined context @n's statements belong in: its nearest INLINE scope's, else @proc. */
static const struct struct_scope *
inline_ctx(const struct tnode *n, const struct struct_scope *proc)
{
    for (; n != NULL; n = n->parent)
        if (n->kind == STRUCT_SCOPE_INLINE)
            return n->ctx;
    return proc;
}

/*
 * The statement instances below @n, which sits in inlined context @in.
 * Rows that a caller owns inside its callee's loop (placed there by
 * loop_contexts()) are no instances: hoisted or shared caller code must
 * not fuse the callee's loop with the caller's.
 */
static int
collect_insts(struct ivec *iv, struct tnode *n, const struct struct_scope *in, uint32_t group,
              uint32_t depth, bool by_depth)
{
    for (struct tnode *c = n->first; c != NULL; c = c->next) {
        if (c->kind == STRUCT_SCOPE_STMT && c->ctx == in) {
            if (iv->n == iv->cap) {
                size_t cap = iv->cap ? iv->cap * 2 : 64;
                struct inst *v = realloc(iv->v, cap * sizeof(*v));

                if (v == NULL)
                    return STRUCT_ENOMEM;
                iv->v = v;
                iv->cap = cap;
            }
            iv->v[iv->n++] = (struct inst){c->ctx,
                                           c->file,
                                           c->line,
                                           by_depth ? depth : group,
                                           c->ranges.n ? c->ranges.v[0].lo : 0,
                                           c};
        } else if (c->kind == STRUCT_SCOPE_LOOP || c->kind == STRUCT_SCOPE_INLINE) {
            if (collect_insts(iv, c, c->kind == STRUCT_SCOPE_INLINE ? c->ctx : in, group,
                              depth + (c->kind == STRUCT_SCOPE_LOOP), by_depth) != 0)
                return STRUCT_ENOMEM;
        }
    }
    return 0;
}

static int
inst_key_cmp(const struct inst *a, const struct inst *b)
{
    if (a->ctx != b->ctx)
        return (uintptr_t)a->ctx < (uintptr_t)b->ctx ? -1 : 1;
    if (a->file != b->file)
        return (uintptr_t)a->file < (uintptr_t)b->file ? -1 : 1;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return 0;
}

/* By key, then deepest first, then lowest address (deterministic). */
static int
inst_cmp(const void *pa, const void *pb)
{
    const struct inst *a = pa, *b = pb;
    int c = inst_key_cmp(a, b);

    if (c != 0)
        return c;
    if (a->group != b->group)
        return a->group > b->group ? -1 : 1;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static uint32_t
uf_find32(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Rule 1 at @x: fuse child loops that share a statement. */
static int
fuse_child_loops(struct pctx *pc, struct tnode *x)
{
    struct tnode **kids = NULL;
    struct ivec iv = {0};
    uint32_t *uf = NULL, nk = 0;
    int rc = STRUCT_ENOMEM;

    for (struct tnode *c = x->first; c != NULL; c = c->next)
        nk += c->kind == STRUCT_SCOPE_LOOP;
    if (nk < 2)
        return 0;
    kids = malloc(nk * sizeof(*kids));
    uf = malloc(nk * sizeof(*uf));
    if (kids == NULL || uf == NULL)
        goto out;
    nk = 0;
    for (struct tnode *c = x->first; c != NULL; c = c->next)
        if (c->kind == STRUCT_SCOPE_LOOP) {
            uf[nk] = nk;
            kids[nk] = c;
            if (collect_insts(&iv, c, inline_ctx(x, pc->proc), nk, 0, false) != 0)
                goto out;
            nk++;
        }
    if (iv.n > 1)
        qsort(iv.v, iv.n, sizeof(*iv.v), inst_cmp);
    for (size_t i = 1; i < iv.n; i++)
        if (inst_key_cmp(&iv.v[i - 1], &iv.v[i]) == 0) {
            uint32_t a = uf_find32(uf, iv.v[i - 1].group), b = uf_find32(uf, iv.v[i].group);

            if (a != b) { /* the lower index (earlier sibling) stays the root */
                if (a < b)
                    uf[b] = a;
                else
                    uf[a] = b;
            }
        }
    for (uint32_t i = 0; i < nk; i++) {
        uint32_t r = uf_find32(uf, i);

        if (r != i && merge_into(pc, kids[r], kids[i]) != 0)
            goto out;
    }
    rc = 0;
out:
    free(kids);
    free(uf);
    free(iv.v);
    return rc;
}

/* Rule 2 at @x: move statements of @x into their innermost instance below. */
static int
sink_statements(struct pctx *pc, struct tnode *x)
{
    struct ivec iv = {0};
    struct tnode *c, *next;
    int rc = STRUCT_ENOMEM;

    for (c = x->first; c != NULL; c = c->next)
        if (c->kind == STRUCT_SCOPE_LOOP &&
            collect_insts(&iv, c, inline_ctx(x, pc->proc), 0, 1, true) != 0)
            goto out;
    if (iv.n == 0)
        return 0;
    qsort(iv.v, iv.n, sizeof(*iv.v), inst_cmp);
    for (c = x->first; c != NULL; c = next) {
        struct inst key = {0};
        size_t lo = 0, hi = iv.n;

        next = c->next;
        if (c->kind != STRUCT_SCOPE_STMT)
            continue;
        key.ctx = c->ctx;
        key.file = c->file;
        key.line = c->line;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;

            if (inst_key_cmp(&iv.v[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == iv.n || inst_key_cmp(&iv.v[lo], &key) != 0)
            continue;
        for (struct tnode *t = iv.v[lo].node; t != x; t = t->parent) {
            if (rvec_append(&t->ranges, &c->ranges) != 0)
                goto out;
            struct_rvec_normalize(&t->ranges);
        }
        unlink_child(c);
        c->dead = true;
    }
    rc = 0;
out:
    free(iv.v);
    return rc;
}

static int
normalize(struct pctx *pc, struct tnode *x)
{
    if (fuse_child_loops(pc, x) != 0 || sink_statements(pc, x) != 0)
        return STRUCT_ENOMEM;
    for (struct tnode *c = x->first; c != NULL; c = c->next)
        if ((c->kind == STRUCT_SCOPE_LOOP || c->kind == STRUCT_SCOPE_INLINE) &&
            normalize(pc, c) != 0)
            return STRUCT_ENOMEM;
    return 0;
}

/* ---- call sites ----------------------------------------------------------- */

struct span {
    uint64_t lo, hi;
    struct tnode *node;
};

static int
span_cmp(const void *pa, const void *pb)
{
    const struct span *a = pa, *b = pb;

    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

static unsigned
node_depth(const struct tnode *n)
{
    unsigned d = 0;

    for (; n->parent != NULL; n = n->parent)
        d++;
    return d;
}

static int
add_calls(struct pctx *pc)
{
    struct span *sp = NULL;
    struct tnode **inner = NULL;
    size_t nsp = 0, capsp = pc->nall + 1, nin = 0;
    int rc = STRUCT_ENOMEM;

    sp = malloc(capsp * sizeof(*sp));
    inner = malloc((pc->nall + 1) * sizeof(*inner));
    if (sp == NULL || inner == NULL)
        goto out;
    for (size_t i = 0; i < pc->nall; i++) {
        struct tnode *n = pc->all[i];

        if (n->dead || n == pc->root)
            continue;
        if (n->kind == STRUCT_SCOPE_STMT) {
            struct_rvec_normalize(&n->ranges);
            for (size_t j = 0; j < n->ranges.n; j++) {
                if (nsp == capsp) {
                    struct span *v = realloc(sp, capsp * 2 * sizeof(*sp));

                    if (v == NULL)
                        goto out;
                    sp = v;
                    capsp *= 2;
                }
                sp[nsp++] = (struct span){n->ranges.v[j].lo, n->ranges.v[j].hi, n};
            }
        } else if (n->kind == STRUCT_SCOPE_LOOP || n->kind == STRUCT_SCOPE_INLINE) {
            struct_rvec_normalize(&n->ranges);
            inner[nin++] = n;
        }
    }
    if (nsp > 1)
        qsort(sp, nsp, sizeof(*sp), span_cmp);
    for (size_t i = 0; i < pc->cfg->ncalls; i++) {
        const struct struct_call *call = &pc->cfg->calls[i];
        const struct struct_entry *e =
            call->target ? struct_cfg_entry_at(pc->env, call->target) : NULL;
        struct tnode *parent = pc->root, *stmt = NULL, *n;
        size_t lo = 0, hi = nsp;

        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;

            if (sp[mid].hi <= call->addr)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < nsp && sp[lo].lo <= call->addr) {
            stmt = sp[lo].node;
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
        n = node_new(pc, parent, STRUCT_SCOPE_CALL);
        if (n == NULL || struct_rvec_push(&n->ranges, call->addr, call->end) != 0)
            goto out;
        if (stmt != NULL) {
            n->file = stmt->file;
            n->line = stmt->line;
        }
        n->target = call->target;
        n->name = e != NULL ? e->name : NULL;
        n->flags = ((call->flags & STRUCT_CALL_INDIRECT) ? STRUCT_SCOPE_F_INDIRECT : 0) |
                   ((call->flags & STRUCT_CALL_TAIL) ? STRUCT_SCOPE_F_TAIL : 0) |
                   ((call->flags & STRUCT_CALL_NORETURN) ? STRUCT_SCOPE_F_NORETURN : 0);
    }
    rc = 0;
out:
    free(sp);
    free(inner);
    return rc;
}

/* ---- back to scopes -------------------------------------------------------- */

static int
materialize(struct pctx *pc, const struct tnode *t, struct struct_scope *parent)
{
    for (const struct tnode *c = t->first; c != NULL; c = c->next) {
        struct struct_scope *s;
        struct struct_rvec r = c->ranges;

        if (c->dead)
            continue;
        struct_rvec_normalize(&r);
        s = struct_scope_new_in(pc->arena, parent, c->kind, r.v, r.n);
        if (s == NULL)
            return STRUCT_ENOMEM;
        switch (c->kind) {
        case STRUCT_SCOPE_INLINE:
            s->name = c->ctx->name;
            s->link_name = c->ctx->link_name;
            s->file = c->ctx->file;
            s->line = c->ctx->line;
            s->call_file = c->ctx->call_file;
            s->call_line = c->ctx->call_line;
            break;
        case STRUCT_SCOPE_LOOP:
            s->file = c->file;
            s->line = c->line;
            s->flags = c->flags;
            if (c->entries.n > 0) {
                s->entries = arena_alloc(pc->arena, c->entries.n * sizeof(*s->entries));
                if (s->entries == NULL)
                    return STRUCT_ENOMEM;
                memcpy(s->entries, c->entries.v, c->entries.n * sizeof(*s->entries));
                s->nentries = c->entries.n;
            }
            break;
        case STRUCT_SCOPE_CALL:
            s->name = c->name;
            s->target = c->target;
            s->flags = c->flags;
            /* fall through */
        default:
            s->file = c->file;
            s->line = c->line;
            break;
        }
        if (materialize(pc, c, s) != 0)
            return STRUCT_ENOMEM;
    }
    return 0;
}

static void
pctx_free(struct pctx *pc)
{
    for (size_t i = 0; i < pc->nall; i++) {
        struct_rvec_free(&pc->all[i]->ranges);
        struct_rvec_free(&pc->all[i]->entries);
        free(pc->all[i]);
    }
    free(pc->all);
    free(pc->hash);
}

/* Rebuild @proc's subtree from its pieces, its CFG's loops and calls. */
static int
restructure(struct arena *arena, struct struct_scope *proc, const struct struct_cfg *cfg,
            const struct struct_cfg_env *env, bool do_normalize)
{
    struct pctx pc = {.arena = arena, .cfg = cfg, .env = env, .proc = proc};
    struct pvec raw = {0}, pieces = {0};
    const struct struct_scope **ctx = NULL;
    struct tnode **loopnode = NULL;
    int rc = STRUCT_ENOMEM;

    if (cfg->nloops == 0 && cfg->ncalls == 0)
        return 0;
    pc.root = node_new(&pc, NULL, STRUCT_SCOPE_PROC);
    if (pc.root == NULL || collect_pieces(proc, &raw) != 0)
        goto out;
    if (raw.n > 1)
        qsort(raw.v, raw.n, sizeof(*raw.v), piece_cmp);
    if (split_pieces(cfg, &raw, &pieces) != 0)
        goto out;
    ctx = calloc(cfg->nloops + 1, sizeof(*ctx));
    loopnode = calloc(cfg->nloops + 1, sizeof(*loopnode));
    if (ctx == NULL || loopnode == NULL)
        goto out;
    if (loop_contexts(cfg, &pieces, proc, ctx) != 0)
        goto out;
    for (size_t i = 0; i < pieces.n; i++)
        if (insert_piece(&pc, &pieces.v[i], ctx, loopnode) != 0)
            goto out;
    for (size_t l = 0; l < cfg->nloops; l++) {
        struct tnode *n = loopnode[l];

        if (n == NULL)
            continue;
        if (rvec_append(&n->entries, &cfg->loops[l].entries) != 0)
            goto out;
        n->flags = cfg->loops[l].irreducible ? STRUCT_SCOPE_F_IRREDUCIBLE : 0;
        loop_header_line(cfg, &pieces, n);
    }
    if (do_normalize && normalize(&pc, pc.root) != 0)
        goto out;
    if (add_calls(&pc) != 0)
        goto out;
    proc->first_child = NULL;
    rc = materialize(&pc, pc.root, proc);
out:
    free(ctx);
    free(loopnode);
    free(raw.v);
    free(pieces.v);
    pctx_free(&pc);
    return rc;
}

/* ---- parallel decoding ------------------------------------------------------ */

struct struct_loop_job {
    struct struct_module *m;
    struct struct_proc_in *procs;
    size_t nprocs;
    const struct struct_cfg_env *env;
    bool do_normalize;
    long jobs;                /* threads in the second phase, the caller's included */
    struct struct_cfg *cfgs;  /* nprocs: CFGs decoded early (first phase) */
    bool *early;              /* nprocs: cfgs[i] was decoded early */
    pthread_t *tids;          /* first-phase threads */
    long nearly;              /* of which started */
    atomic_size_t next_early; /* next procedure to decode early */
    atomic_bool stop_early;   /* the caller is ready: first phase ends */
    atomic_size_t next;       /* next procedure of the second phase */
    atomic_int rc;
};

/* One second-phase thread's share: the job, the arena its scopes go to, its counts. */
struct worker_arg {
    struct struct_loop_job *j;
    struct arena *arena;
    struct struct_stats stats; /* over the procedures this thread decoded */
};

/* A decoder for the module's machine (x86-64 when the environment names none). */
static struct struct_decoder *
open_decoder(const struct struct_cfg_env *env)
{
    return env->machine != 0 ? struct_decoder_open(env->machine) : struct_decoder_new();
}

/*
 * First phase, while the caller still adds statements: decode procedures
 * in order and keep their CFGs.  Reads only ranges and entries, which the
 * caller does not change meanwhile.
 */
static void *
early_worker(void *arg)
{
    struct struct_loop_job *j = arg;
    struct struct_decoder *d = open_decoder(j->env);

    if (d == NULL) {
        atomic_store(&j->rc, STRUCT_EIO);
        return NULL;
    }
    while (!atomic_load(&j->stop_early) && atomic_load(&j->rc) == 0) {
        size_t i = atomic_fetch_add(&j->next_early, 1);
        const struct struct_scope *s;

        if (i >= j->nprocs)
            break;
        s = j->procs[i].scope;
        if (struct_cfg_build(d, j->env, s->ranges, s->nranges, j->procs[i].entry, &j->cfgs[i]) != 0)
            atomic_store(&j->rc, STRUCT_ENOMEM);
        j->early[i] = true; /* read after pthread_join; freed with the job either way */
    }
    struct_decoder_free(d);
    return NULL;
}

/*
 * Second phase: take procedures off the shared counter until none is
 * left: decode each (unless the first phase did), rebuild its subtree in
 * the thread's own arena (a procedure's subtree is touched by no other
 * thread), keep its counts and free its CFG.
 */
static void *
worker(void *arg)
{
    struct worker_arg *wa = arg;
    struct struct_loop_job *j = wa->j;
    struct struct_decoder *d = open_decoder(j->env);

    if (d == NULL) {
        atomic_store(&j->rc, STRUCT_EIO);
        return NULL;
    }
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        struct struct_scope *s;
        struct struct_cfg *c;
        int rc = 0;

        if (i >= j->nprocs || atomic_load(&j->rc) != 0)
            break;
        s = j->procs[i].scope;
        c = &j->cfgs[i];
        if (!j->early[i])
            rc = struct_cfg_build(d, j->env, s->ranges, s->nranges, j->procs[i].entry, c);
        if (rc == 0) {
            struct struct_stats *st = &wa->stats;

            st->procedures++;
            st->instructions += c->ninsns;
            st->loops += c->nloops;
            for (size_t l = 0; l < c->nloops; l++)
                st->irreducible += c->loops[l].irreducible;
            st->calls += c->ncalls;
            st->bad_bytes += c->bad_bytes;
            st->unresolved_jumps += c->unresolved_jumps;
            st->jump_tables += c->jump_tables;
            st->label_jumps += c->label_jumps;
            rc = restructure(wa->arena, s, c, j->env, j->do_normalize);
        }
        struct_cfg_free(c);
        if (rc != 0)
            atomic_store(&j->rc, STRUCT_ENOMEM);
    }
    struct_decoder_free(d);
    return NULL;
}

static void
job_free(struct struct_loop_job *j)
{
    if (j->cfgs != NULL)
        for (size_t i = 0; i < j->nprocs; i++)
            struct_cfg_free(&j->cfgs[i]);
    free(j->cfgs);
    free(j->early);
    free(j->tids);
    free(j);
}

int
struct_recover_loops_start(struct struct_module *m, struct struct_proc_in *procs, size_t nprocs,
                           const struct struct_cfg_env *env, const struct struct_options *opt,
                           struct struct_loop_job **out)
{
    struct struct_loop_job *j = calloc(1, sizeof(*j));
    long jobs = opt != NULL ? opt->jobs : 0;

    *out = NULL;
    if (j == NULL)
        return STRUCT_ENOMEM;
    if (jobs <= 0) {
        jobs = sysconf(_SC_NPROCESSORS_ONLN);
        if (jobs <= 0)
            jobs = 1;
    }
    if ((size_t)jobs > nprocs)
        jobs = nprocs > 0 ? (long)nprocs : 1;
    if (jobs > 256)
        jobs = 256;
    *j = (struct struct_loop_job){.m = m,
                                  .procs = procs,
                                  .nprocs = nprocs,
                                  .env = env,
                                  .do_normalize = opt == NULL || !opt->no_normalize,
                                  .jobs = jobs};
    j->cfgs = calloc(nprocs + 1, sizeof(*j->cfgs));
    j->early = calloc(nprocs + 1, sizeof(*j->early));
    if (j->cfgs == NULL || j->early == NULL) {
        job_free(j);
        return STRUCT_ENOMEM;
    }
    atomic_init(&j->next_early, 0);
    atomic_init(&j->stop_early, false);
    atomic_init(&j->next, 0);
    atomic_init(&j->rc, 0);
    if (jobs > 1) { /* the caller is busy until finish: jobs - 1 threads decode early */
        j->tids = malloc((size_t)(jobs - 1) * sizeof(*j->tids));
        if (j->tids != NULL)
            for (; j->nearly < jobs - 1; j->nearly++)
                if (pthread_create(&j->tids[j->nearly], NULL, early_worker, j) != 0)
                    break;
    }
    *out = j;
    return 0;
}

int
struct_recover_loops_finish(struct struct_loop_job *j, bool cancel)
{
    struct worker_arg *args = NULL;
    struct arena *arenas;
    pthread_t *tids = NULL;
    long started = 0, jobs;
    int rc;

    if (j == NULL)
        return 0;
    atomic_store(&j->stop_early, true);
    if (cancel)
        atomic_store(&j->rc, STRUCT_ENOMEM); /* any error: the caller reports its own */
    for (long i = 0; i < j->nearly; i++)
        pthread_join(j->tids[i], NULL);
    rc = atomic_load(&j->rc);
    if (rc != 0 || j->nprocs == 0)
        goto out;
    jobs = j->jobs;
    args = calloc((size_t)jobs, sizeof(*args));
    arenas = struct_module_arenas(j->m, (size_t)jobs);
    if (args == NULL || arenas == NULL) {
        rc = STRUCT_ENOMEM;
        goto out;
    }
    for (long i = 0; i < jobs; i++)
        args[i] = (struct worker_arg){.j = j, .arena = &arenas[i]};
    if (jobs > 1) {
        tids = malloc((size_t)jobs * sizeof(*tids));
        if (tids != NULL)
            for (; started < jobs - 1; started++)
                if (pthread_create(&tids[started], NULL, worker, &args[started + 1]) != 0)
                    break;
    }
    worker(&args[0]); /* the calling thread works too */
    for (long i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    free(tids);
    rc = atomic_load(&j->rc);
    for (long i = 0; i < jobs && rc == 0; i++) {
        const struct struct_stats *st = &args[i].stats;
        struct struct_stats *ms = &j->m->stats;

        ms->procedures += st->procedures;
        ms->instructions += st->instructions;
        ms->loops += st->loops;
        ms->irreducible += st->irreducible;
        ms->calls += st->calls;
        ms->bad_bytes += st->bad_bytes;
        ms->unresolved_jumps += st->unresolved_jumps;
        ms->jump_tables += st->jump_tables;
        ms->label_jumps += st->label_jumps;
    }
out:
    free(args);
    job_free(j);
    return rc;
}
