/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loops.c -- loop nesting forest of a control-flow graph by Havlak's
 * interval analysis, which handles irreducible loops.
 *
 * P. Havlak, "Nesting of reducible and irreducible loops", ACM TOPLAS
 * 19(4):557-567, 1997, Figure 3 (procedure analyze_loops), with the
 * UNION-FIND sets of §3; the data layout follows R. Hundt, "Loop
 * Recognition in C++/Java/Go/Scala", Scala Days 2011.  Nodes are visited
 * in reverse DFS preorder; each node w with incoming back edges collects
 * its loop body by walking non-back predecessors backwards, collapsing
 * inner loops already found into their headers (FIND); a predecessor that
 * is not a DFS descendant of w enters the body around w, which makes the
 * loop irreducible.
 *
 * Tool code only; pure computation on caller memory, reentrant.
 */
#include <stdlib.h>
#include <string.h>

#include "structure/cfg.h"
#include "support/vec.h"

/* A growable list of preorder numbers. */
struct ulist {
    uint32_t *v;
    uint32_t n, cap;
};

static int
ulist_push(struct ulist *l, uint32_t x)
{
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 4;
        uint32_t *v = realloc(l->v, cap * sizeof(*v));

        if (v == NULL)
            return STRUCT_ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return 0;
}

/* UNION-FIND with path halving; union always makes w (the header) the root. */
static uint32_t
uf_find(uint32_t *uf, uint32_t x)
{
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

struct havlak {
    uint32_t n;     /* preorder numbers 0 .. n; 0 is the virtual root */
    uint32_t *num;  /* graph node -> preorder number (0 = unvisited) */
    uint32_t *node; /* preorder number -> graph node (node[0] unused) */
    uint32_t *last; /* preorder number -> last preorder number in its DFS subtree */
    uint32_t *tree; /* preorder number -> preorder number of its DFS root */
    /* Back and non-back predecessors of each preorder number w, as
     * compressed rows: back[back_off[w] .. back_off[w + 1]). */
    uint32_t *back_off, *back, *nonback_off, *nonback;
    struct ulist *extra; /* entries around a header added to its non-back predecessors (rare) */
    uint32_t *uf, *pool, *work, *inpool;
    int32_t *loop_of; /* preorder number of a header -> its loop, else -1 */
};

static bool
is_ancestor(const struct havlak *h, uint32_t w, uint32_t v)
{
    return w <= v && v <= h->last[w];
}

/* Iterative DFS from graph node @start, numbering in preorder from *next. */
static int
dfs(const struct struct_graph *g, struct havlak *h, uint32_t start, uint32_t *next)
{
    uint32_t *stack = malloc((size_t)g->n * 2 * sizeof(*stack));
    size_t sp = 0;

    if (stack == NULL)
        return STRUCT_ENOMEM;
    h->num[start] = ++*next;
    h->node[*next] = start;
    h->tree[*next] = *next;
    stack[sp++] = start;
    stack[sp++] = g->succ_off[start];
    while (sp > 0) {
        uint32_t v = stack[sp - 2], i = stack[sp - 1];

        if (i < g->succ_off[v + 1]) {
            uint32_t s = g->succ[i];

            stack[sp - 1] = i + 1;
            if (s < g->n && h->num[s] == 0) {
                h->num[s] = ++*next;
                h->node[*next] = s;
                h->tree[*next] = h->tree[h->num[start]];
                stack[sp++] = s;
                stack[sp++] = g->succ_off[s];
            }
        } else {
            h->last[h->num[v]] = *next;
            sp -= 2;
        }
    }
    free(stack);
    return 0;
}

static void
havlak_free(struct havlak *h)
{
    if (h->extra != NULL)
        for (uint32_t i = 0; i <= h->n; i++)
            free(h->extra[i].v);
    free(h->extra);
    free(h->back_off);
    free(h->nonback_off);
    free(h->num);
    free(h->node);
    free(h->last);
    free(h->tree);
    free(h->back);
    free(h->nonback);
    free(h->uf);
    free(h->pool);
    free(h->work);
    free(h->inpool);
    free(h->loop_of);
}

static int
add_loop(struct struct_loops *out, size_t *cap, uint32_t header, bool irreducible)
{
    if (csp_vec_reserve(&out->loops, cap, out->nloops + 1, sizeof(*out->loops)) != 0)
        return STRUCT_ENOMEM;
    out->loops[out->nloops++] = (struct struct_loop){header, -1, 0, irreducible};
    return 0;
}

int
struct_find_loops(const struct struct_graph *g, struct struct_loops *out)
{
    struct havlak h = {0};
    uint32_t n = g->n, next = 0;
    size_t cap = 0;
    int rc = STRUCT_ENOMEM;

    memset(out, 0, sizeof(*out));
    if (n == 0)
        return 0;
    h.n = n;
    h.num = calloc(n, sizeof(*h.num));
    h.node = calloc((size_t)n + 1, sizeof(*h.node));
    h.last = calloc((size_t)n + 1, sizeof(*h.last));
    h.tree = calloc((size_t)n + 1, sizeof(*h.tree));
    h.back_off = calloc((size_t)n + 2, sizeof(*h.back_off));
    h.nonback_off = calloc((size_t)n + 2, sizeof(*h.nonback_off));
    h.back = malloc(((size_t)g->succ_off[n] + 1) * sizeof(*h.back));
    h.nonback = malloc(((size_t)g->succ_off[n] + 1) * sizeof(*h.nonback));
    h.uf = malloc(((size_t)n + 1) * sizeof(*h.uf));
    h.pool = malloc(((size_t)n + 1) * sizeof(*h.pool));
    h.work = malloc(((size_t)n + 1) * sizeof(*h.work));
    h.inpool = calloc((size_t)n + 1, sizeof(*h.inpool));
    h.loop_of = malloc(((size_t)n + 1) * sizeof(*h.loop_of));
    out->innermost = malloc((size_t)n * sizeof(*out->innermost));
    if (out->innermost != NULL)
        for (uint32_t v = 0; v < n; v++)
            out->innermost[v] = -1;
    if (!h.num || !h.node || !h.last || !h.tree || !h.back_off || !h.nonback_off || !h.back ||
        !h.nonback || !h.uf || !h.pool || !h.work || !h.inpool || !h.loop_of || !out->innermost)
        goto out;

    /* Preorder numbers 1..n; 0 is a virtual root above every DFS tree. */
    if (g->entry < n && dfs(g, &h, g->entry, &next) != 0)
        goto out;
    for (uint32_t v = 0; v < n; v++)
        if (h.num[v] == 0 && dfs(g, &h, v, &next) != 0)
            goto out;
    h.last[0] = n;

    /* Classify every edge v -> w by whether w is a DFS ancestor of v:
     * count each kind per w, then fill the rows (two passes, no lists). */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t i = g->succ_off[v]; i < g->succ_off[v + 1]; i++) {
                uint32_t s = g->succ[i], pv = h.num[v], pw;

                if (s >= n)
                    continue;
                pw = h.num[s];
                if (h.tree[pw] != h.tree[pv])
                    continue; /* from code not reachable from the entry into reachable code */
                if (is_ancestor(&h, pw, pv)) {
                    if (pass == 0)
                        h.back_off[pw + 1]++;
                    else
                        h.back[h.back_off[pw]++] = pv;
                } else if (pass == 0) {
                    h.nonback_off[pw + 1]++;
                } else {
                    h.nonback[h.nonback_off[pw]++] = pv;
                }
            }
        if (pass == 0) { /* row starts */
            for (uint32_t w = 0; w <= n; w++) {
                h.back_off[w + 1] += h.back_off[w];
                h.nonback_off[w + 1] += h.nonback_off[w];
            }
        } else { /* the fill moved each start to the next row's: shift back */
            memmove(h.back_off + 1, h.back_off, ((size_t)n + 1) * sizeof(*h.back_off));
            memmove(h.nonback_off + 1, h.nonback_off, ((size_t)n + 1) * sizeof(*h.nonback_off));
            h.back_off[0] = h.nonback_off[0] = 0;
        }
    }
    for (uint32_t i = 0; i <= n; i++) {
        h.uf[i] = i;
        h.loop_of[i] = -1;
    }

    for (uint32_t w = n; w >= 1; w--) {
        uint32_t np = 0, nw = 0;
        bool self = false, irreducible = false;

        for (uint32_t i = h.back_off[w]; i < h.back_off[w + 1]; i++) {
            uint32_t v = h.back[i];

            if (v == w) {
                self = true;
                continue;
            }
            v = uf_find(h.uf, v);
            if (h.inpool[v] != w) {
                h.inpool[v] = w;
                h.pool[np++] = v;
                h.work[nw++] = v;
            }
        }
        while (nw > 0) {
            uint32_t x = h.work[--nw];

            uint32_t nrow = h.nonback_off[x + 1] - h.nonback_off[x];
            uint32_t nextra = h.extra != NULL ? h.extra[x].n : 0;

            for (uint32_t i = 0; i < nrow + nextra; i++) {
                uint32_t y = uf_find(h.uf, i < nrow ? h.nonback[h.nonback_off[x] + i]
                                                    : h.extra[x].v[i - nrow]);

                if (!is_ancestor(&h, w, y)) {
                    /* An entry into the body that bypasses w. */
                    irreducible = true;
                    if (h.extra == NULL &&
                        (h.extra = calloc((size_t)n + 1, sizeof(*h.extra))) == NULL)
                        goto out;
                    if (ulist_push(&h.extra[w], y) != 0)
                        goto out;
                } else if (y != w && h.inpool[y] != w) {
                    h.inpool[y] = w;
                    h.pool[np++] = y;
                    h.work[nw++] = y;
                }
            }
        }
        if (np == 0 && !self)
            continue;
        if (add_loop(out, &cap, h.node[w], irreducible) != 0)
            goto out;
        h.loop_of[w] = (int32_t)(out->nloops - 1);
        out->innermost[h.node[w]] = h.loop_of[w];
        /* A node leaves the pools for good once united with w, so the first
         * loop that collapses a non-header node is its innermost one. */
        for (uint32_t i = 0; i < np; i++) {
            uint32_t x = h.pool[i];

            h.uf[x] = w;
            if (h.loop_of[x] >= 0)
                out->loops[h.loop_of[x]].parent = h.loop_of[w];
            else
                out->innermost[h.node[x]] = h.loop_of[w];
        }
    }

    /* Depths: parents have larger indices, so walk from the outermost down. */
    for (size_t li = out->nloops; li-- > 0;) {
        struct struct_loop *l = &out->loops[li];

        l->depth = l->parent < 0 ? 1 : out->loops[l->parent].depth + 1;
    }
    rc = 0;
out:
    havlak_free(&h);
    if (rc != 0)
        struct_loops_free(out);
    return rc;
}

void
struct_loops_free(struct struct_loops *l)
{
    free(l->loops);
    free(l->innermost);
    memset(l, 0, sizeof(*l));
}
