/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_cct.c -- unit tests of lib/cct: tree shape, memoized insertion,
 * insertion below a cached node, argument errors, arena exhaustion, AVL
 * balance and the deepest recordable path.
 *
 * Ordinary test program (cmocka) over a malloc-backed arena; built twice,
 * the second time with ASan+UBSan and the cct sources compiled in.  Trees
 * are read only through cct_walk(), except where a test needs a node's id
 * or the AVL height (cct_internal.h).  Ends with "N passed, N failed".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cct/cct.h"
#include "cct/cct_internal.h"
#include "csp_test.h"
#include "support/arena.h"

#define CHUNK_BYTES (64 * 1024)

/* ---- a walk copied into memory, checked for preorder on the way ---- */

struct snap_node {
    struct cct_node_view v; /* metrics points into snap.metrics */
    size_t depth;           /* root 0 */
};

struct snap {
    size_t n;
    struct snap_node *nodes; /* walk order */
    size_t *by_id;           /* id -> index in nodes */
    struct cct_metric_value *metrics;
    size_t nmetrics, cap_metrics;
    uint64_t *path; /* ids from the root to the last node visited */
    size_t path_len;
    size_t cap; /* cct_size() when the walk started */
    uint32_t nevents;
};

/* Visitor: copies the view and checks what a preorder walk must show. */
static int
snap_visit(const struct cct_node_view *v, void *arg)
{
    struct snap *s = arg;
    struct snap_node *sn;
    uint32_t i;

    assert_true(s->n < s->cap);
    assert_true(v->id < s->cap);
    assert_int_equal(s->by_id[v->id], SIZE_MAX); /* ids are unique */
    if (s->n == 0) {
        assert_int_equal(v->id, 0);
        assert_int_equal(v->kind, CCT_NODE_ROOT);
        assert_int_equal(v->addr, 0);
    } else {
        assert_int_not_equal(v->kind, CCT_NODE_ROOT);
        /* preorder: the parent is on the path from the root to the last node */
        while (s->path_len > 0 && s->path[s->path_len - 1] != v->parent_id)
            s->path_len--;
        assert_true(s->path_len > 0);
        assert_int_not_equal(s->nodes[s->by_id[v->parent_id]].v.kind, CCT_NODE_LEAF);
    }
    for (i = 0; i < v->nmetrics; i++) {
        assert_true(v->metrics[i].event < s->nevents);
        if (i > 0)
            assert_true(v->metrics[i - 1].event < v->metrics[i].event);
    }

    sn = &s->nodes[s->n];
    sn->v = *v;
    sn->depth = s->path_len;
    if (s->nmetrics + v->nmetrics > s->cap_metrics) {
        s->cap_metrics = 2 * (s->nmetrics + v->nmetrics) + 16;
        s->metrics = realloc(s->metrics, s->cap_metrics * sizeof(*s->metrics));
        assert_non_null(s->metrics);
    }
    if (v->nmetrics > 0)
        memcpy(&s->metrics[s->nmetrics], v->metrics, v->nmetrics * sizeof(*v->metrics));
    sn->v.metrics = NULL; /* set after the walk: realloc may move the array */
    s->nmetrics += v->nmetrics;
    s->by_id[v->id] = s->n++;
    s->path[s->path_len++] = v->id;
    return 0;
}

/* Walk @tree into @s, checking preorder, id uniqueness and the node count. */
static void
snap_take(struct snap *s, const struct cct *tree, uint32_t nevents)
{
    size_t size = cct_size(tree), i, off = 0;
    void *scratch = malloc(cct_walk_scratch_size(tree));

    assert_non_null(scratch);
    memset(s, 0, sizeof(*s));
    s->cap = size;
    s->nevents = nevents;
    s->nodes = calloc(size, sizeof(*s->nodes));
    s->by_id = malloc(size * sizeof(*s->by_id));
    s->path = malloc(size * sizeof(*s->path));
    assert_non_null(s->nodes);
    assert_non_null(s->by_id);
    assert_non_null(s->path);
    for (i = 0; i < size; i++)
        s->by_id[i] = SIZE_MAX;
    assert_int_equal(cct_walk(tree, snap_visit, s, scratch), 0);
    free(scratch);
    assert_int_equal(s->n, size); /* every node visited, each once */
    for (i = 0; i < s->n; i++) {
        s->nodes[i].v.metrics = s->nmetrics == 0 ? NULL : &s->metrics[off];
        off += s->nodes[i].v.nmetrics;
    }
}

static void
snap_free(struct snap *s)
{
    free(s->nodes);
    free(s->by_id);
    free(s->metrics);
    free(s->path);
}

static const struct snap_node *
snap_get(const struct snap *s, uint64_t id)
{
    assert_true(id < s->cap);
    assert_int_not_equal(s->by_id[id], SIZE_MAX);
    return &s->nodes[s->by_id[id]];
}

/* Two walks show the same tree: same order, ids, links, keys and counts. */
static void
snap_assert_equal(const struct snap *a, const struct snap *b)
{
    size_t i;
    uint32_t m;

    assert_int_equal(a->n, b->n);
    for (i = 0; i < a->n; i++) {
        const struct cct_node_view *x = &a->nodes[i].v, *y = &b->nodes[i].v;

        assert_int_equal(x->id, y->id);
        assert_int_equal(x->parent_id, y->parent_id);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->addr, y->addr);
        assert_int_equal(x->samples, y->samples);
        assert_int_equal(x->calls, y->calls);
        assert_int_equal(x->nmetrics, y->nmetrics);
        for (m = 0; m < x->nmetrics; m++) {
            assert_int_equal(x->metrics[m].event, y->metrics[m].event);
            assert_int_equal(x->metrics[m].value, y->metrics[m].value);
        }
    }
}

/* Follow cct_node_parent() from @leaf: the chain must spell ips[0..n-1] and end at the root. */
static void
assert_chain(struct cct *tree, struct cct_node *leaf, const uintptr_t *ips, size_t n)
{
    struct cct_node *node = leaf;
    size_t i;

    for (i = 0; i < n; i++) {
        assert_non_null(node);
        assert_int_equal(node->kind, i == 0 ? CCT_NODE_LEAF : CCT_NODE_CALLSITE);
        assert_int_equal(node->addr, ips[i]);
        node = cct_node_parent(node);
    }
    assert_ptr_equal(node, cct_root(tree));
    assert_null(cct_node_parent(node));
}

static size_t
path_len(const uintptr_t *ips, size_t max)
{
    size_t n = 0;

    while (n < max && ips[n] != 0)
        n++;
    return n;
}

/* ---- table-driven tree shapes ---- */

#define CASE_FRAMES 4
#define CASE_PATHS  4
#define NEVENTS     3

struct path_spec {
    uintptr_t ips[CASE_FRAMES + 1]; /* leaf first; 0 ends the path; no path in a case is empty */
    uint32_t event;
    uint64_t value;
};

static const struct tree_case {
    const char *name;
    struct path_spec paths[CASE_PATHS]; /* an all-zero entry ends the list */
    size_t want_nodes;                  /* root included */
    size_t want_leaves;
} tree_cases[] = {
    {"single path", {{{0x30, 0x20, 0x10}, 0, 5}}, 4, 1},
    {"single frame", {{{0x10}, 1, 7}}, 2, 1},
    {"shared prefix", {{{0x30, 0x20, 0x10}, 0, 1}, {{0x31, 0x20, 0x10}, 0, 2}}, 5, 2},
    {"same path twice", {{{0x30, 0x10}, 0, 3}, {{0x30, 0x10}, 0, 4}}, 3, 1},
    {"same path, two events", {{{0x30, 0x10}, 2, 3}, {{0x30, 0x10}, 0, 4}}, 3, 1},
    {"different outermost frames", {{{0x30, 0x10}, 0, 1}, {{0x30, 0x11}, 0, 1}}, 5, 2},
    {"recursion is not folded", {{{0x10, 0x10, 0x10}, 1, 1}}, 4, 1},
    {"leaf and call site at one address", {{{0x10}, 0, 1}, {{0x20, 0x10}, 0, 1}}, 4, 2},
    {"leaf below a call site at its own address", {{{0x10, 0x10}, 0, 1}}, 3, 1},
    {"leaf, then longer path through it",
     {{{0x10}, 0, 1}, {{0x10, 0x10}, 1, 2}, {{0x10, 0x10, 0x10}, 2, 3}},
     6,
     3},
    {"sibling order independent of insertion order",
     {{{0x1, 0x50}, 0, 1}, {{0x1, 0x30}, 0, 1}, {{0x1, 0x40}, 0, 1}, {{0x1, 0x20}, 0, 1}},
     9,
     4},
};

/*
 * Expected samples and metrics of the node at the end of @key (kinds and
 * addresses from the root down), computed from the case table alone: a
 * leaf collects every path that spells exactly its key; others get nothing.
 */
static void
assert_node_matches_table(const struct tree_case *tc, const uintptr_t *key_addr,
                          const unsigned *key_kind, size_t key_len, const struct cct_node_view *v)
{
    uint64_t want_samples = 0, want_value[NEVENTS] = {0};
    uint32_t want_nmetrics = 0, e, m = 0;
    size_t p, j;

    for (p = 0; p < CASE_PATHS && tc->paths[p].ips[0] != 0; p++) {
        const struct path_spec *ps = &tc->paths[p];
        size_t n = path_len(ps->ips, CASE_FRAMES);
        int same = n == key_len;

        for (j = 0; same && j < n; j++) /* key_addr[j] is the frame at depth j+1 */
            same = ps->ips[n - 1 - j] == key_addr[j] &&
                   key_kind[j] == (j == n - 1 ? CCT_NODE_LEAF : CCT_NODE_CALLSITE);
        if (!same)
            continue;
        want_samples++;
        want_value[ps->event] += ps->value;
    }
    assert_int_equal(v->samples, want_samples);
    for (e = 0; e < NEVENTS; e++)
        if (want_value[e] != 0)
            want_nmetrics++;
    assert_int_equal(v->nmetrics, want_nmetrics);
    for (e = 0; e < NEVENTS; e++) {
        if (want_value[e] == 0)
            continue;
        assert_int_equal(v->metrics[m].event, e);
        assert_int_equal(v->metrics[m].value, want_value[e]);
        m++;
    }
}

static void
check_tree_case(const struct tree_case *tc, int memoized)
{
    struct cct_node *leaves[CASE_PATHS];
    struct arena arena;
    struct cct *tree;
    struct snap s;
    size_t p, i, nleaves = 0;

    arena_init_malloc(&arena, CHUNK_BYTES, 0);
    tree = cct_new(&arena, NEVENTS);
    assert_non_null(tree);
    for (p = 0; p < CASE_PATHS && tc->paths[p].ips[0] != 0; p++) {
        const struct path_spec *ps = &tc->paths[p];
        size_t n = path_len(ps->ips, CASE_FRAMES);

        leaves[p] = NULL;
        if (memoized)
            assert_int_equal(cct_insert_path_memo(tree, ps->ips, n, &leaves[p], NULL), CCT_OK);
        else
            assert_int_equal(cct_insert_path(tree, cct_root(tree), ps->ips, n, &leaves[p]), CCT_OK);
        assert_chain(tree, leaves[p], ps->ips, n);
        assert_int_equal(cct_add_sample(tree, leaves[p], ps->event, ps->value), CCT_OK);
    }
    assert_int_equal(cct_size(tree), tc->want_nodes);

    snap_take(&s, tree, NEVENTS);
    for (i = 0; i < s.n; i++) {
        const struct snap_node *sn = &s.nodes[i];
        uintptr_t key_addr[CASE_FRAMES];
        unsigned key_kind[CASE_FRAMES];
        const struct snap_node *up = sn;
        size_t d;

        if (sn->v.kind == CCT_NODE_LEAF)
            nleaves++;
        if (sn->depth == 0)
            continue;
        /* rebuild the node's key from the root down through parent ids */
        assert_true(sn->depth <= CASE_FRAMES);
        for (d = sn->depth; d-- > 0;) {
            key_addr[d] = up->v.addr;
            key_kind[d] = up->v.kind;
            up = d == 0 ? up : snap_get(&s, up->v.parent_id);
        }
        assert_int_equal(up->v.parent_id, 0);
        assert_node_matches_table(tc, key_addr, key_kind, sn->depth, &sn->v);
    }
    assert_int_equal(nleaves, tc->want_leaves);
    /* the returned leaf is the node the walk shows with the sample */
    for (i = 0; i < p; i++)
        assert_true(snap_get(&s, leaves[i]->id)->v.samples > 0);
    snap_free(&s);
    arena_destroy(&arena);
}

static void
test_tree_cases(void **state)
{
    size_t c;

    (void)state;
    for (c = 0; c < sizeof(tree_cases) / sizeof(tree_cases[0]); c++) {
        print_message("case: %s\n", tree_cases[c].name);
        check_tree_case(&tree_cases[c], 0);
        check_tree_case(&tree_cases[c], 1);
    }
}

/* Calls and samples are separate counters, and a node can carry calls without samples. */
static void
test_calls_and_metrics(void **state)
{
    static const uintptr_t path[] = {0x30, 0x20, 0x10};
    struct cct_node *leaf = NULL, *mid;
    struct arena arena;
    struct cct *tree;
    struct snap s;

    (void)state;
    arena_init_malloc(&arena, CHUNK_BYTES, 0);
    tree = cct_new(&arena, NEVENTS);
    assert_non_null(tree);
    assert_int_equal(cct_insert_path(tree, cct_root(tree), path, 3, &leaf), CCT_OK);
    mid = cct_node_parent(leaf);
    cct_add_calls(mid, 3);
    cct_add_calls(mid, 4);
    cct_add_calls(NULL, 1); /* ignored */
    assert_int_equal(cct_add_sample(tree, leaf, 2, 100), CCT_OK);
    assert_int_equal(cct_add_sample(tree, leaf, 0, 1), CCT_OK);
    assert_int_equal(cct_add_sample(tree, leaf, 2, 11), CCT_OK);
    assert_int_equal(cct_add_sample(tree, leaf, 1, 0),
                     CCT_OK); /* a zero value still makes a cell */

    snap_take(&s, tree, NEVENTS);
    assert_int_equal(snap_get(&s, mid->id)->v.calls, 7);
    assert_int_equal(snap_get(&s, mid->id)->v.samples, 0);
    assert_int_equal(snap_get(&s, mid->id)->v.nmetrics, 0);
    assert_int_equal(snap_get(&s, leaf->id)->v.samples, 4);
    assert_int_equal(snap_get(&s, leaf->id)->v.calls, 0);
    assert_int_equal(snap_get(&s, leaf->id)->v.nmetrics, 3);
    assert_int_equal(snap_get(&s, leaf->id)->v.metrics[0].value, 1);
    assert_int_equal(snap_get(&s, leaf->id)->v.metrics[1].value, 0);
    assert_int_equal(snap_get(&s, leaf->id)->v.metrics[2].value, 111);
    snap_free(&s);
    arena_destroy(&arena);
}

/* A visitor's non-zero return stops the walk and comes back from cct_walk(). */
static int
stop_at_third(const struct cct_node_view *v, void *arg)
{
    int *seen = arg;

    (void)v;
    return ++*seen == 3 ? 42 : 0;
}

static void
test_walk_stops(void **state)
{
    static const uintptr_t path[] = {0x40, 0x30, 0x20, 0x10};
    struct arena arena;
    struct cct *tree;
    void *scratch;
    int seen = 0;

    (void)state;
    arena_init_malloc(&arena, CHUNK_BYTES, 0);
    tree = cct_new(&arena, 1);
    assert_non_null(tree);
    assert_int_equal(cct_insert_path(tree, cct_root(tree), path, 4, NULL), CCT_OK);
    scratch = malloc(cct_walk_scratch_size(tree));
    assert_non_null(scratch);
    assert_int_equal(cct_walk(tree, stop_at_third, &seen, scratch), 42);
    assert_int_equal(seen, 3);
    free(scratch);
    arena_destroy(&arena);
}

/* ---- memoized insertion ---- */

static uint64_t rng_state;

static uint64_t
rng_next(void)
{
    /* xorshift64* (Vigna 2016) */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ULL;
}

static size_t
rng_below(size_t n)
{
    return (size_t)(rng_next() % n);
}

/* The memo rule stated on its own: common outermost frames with the same kind. */
static size_t
want_reused(const uintptr_t *prev, size_t prev_n, const uintptr_t *ips, size_t n)
{
    size_t k = 0;

    while (k < prev_n && k < n && prev[prev_n - 1 - k] == ips[n - 1 - k] &&
           (k == prev_n - 1) == (k == n - 1))
        k++;
    return k;
}

#define RANDOM_PATHS     5000
#define RANDOM_MAX_DEPTH 300

/*
 * A stack that grows and shrinks like a program's, over a small pool of
 * addresses so that paths share prefixes, recurse, and reuse a call-site
 * address as a leaf.  Tree A is built by plain insertion, tree B by memoized
 * insertion; the two walks must match node for node.
 */
static void
test_memo_matches_plain(void **state)
{
    uintptr_t stack[RANDOM_MAX_DEPTH + 1], ips[RANDOM_MAX_DEPTH + 1], prev[RANDOM_MAX_DEPTH + 1];
    size_t depth = 0, prev_n = 0, total_reused = 0, i, p;
    struct arena arena_a, arena_b;
    struct cct *a, *b;
    struct snap sa, sb;

    (void)state;
    rng_state = 0x9e3779b97f4a7c15ULL;
    arena_init_malloc(&arena_a, CHUNK_BYTES, 0);
    arena_init_malloc(&arena_b, CHUNK_BYTES, 0);
    a = cct_new(&arena_a, NEVENTS);
    b = cct_new(&arena_b, NEVENTS);
    assert_non_null(a);
    assert_non_null(b);

    for (p = 0; p < RANDOM_PATHS; p++) {
        struct cct_node *la = NULL, *lb = NULL;
        size_t n, reused = SIZE_MAX;
        uint32_t event = (uint32_t)rng_below(NEVENTS);
        uint64_t value = rng_below(1000);
        int same = p > 0 && rng_below(5) == 0;

        if (!same) {
            size_t pop = rng_below(depth + 1), push = rng_below(8);

            if (rng_below(4) != 0) /* mostly small changes near the top of the stack */
                pop = pop > 3 ? rng_below(4) : pop;
            depth -= pop;
            for (i = 0; i < push && depth < RANDOM_MAX_DEPTH; i++) {
                uintptr_t addr = 0x1000 + 16 * rng_below(48);

                if (depth > 0 && rng_below(10) == 0)
                    addr = stack[depth - 1]; /* direct recursion */
                stack[depth++] = addr;
            }
            n = depth + 1;
            for (i = 0; i < depth; i++)
                ips[n - 1 - i] = stack[i];        /* stack[0] is the outermost frame */
            ips[0] = 0x1000 + 16 * rng_below(64); /* some leaves share call-site addresses */
        } else {
            n = prev_n;
            memcpy(ips, prev, n * sizeof(ips[0]));
        }

        if (rng_below(500) == 0) {
            cct_memo_reset(b);
            prev_n = 0;
            same = 0;
        }
        assert_int_equal(cct_insert_path(a, cct_root(a), ips, n, &la), CCT_OK);
        assert_int_equal(cct_insert_path_memo(b, ips, n, &lb, &reused), CCT_OK);
        assert_int_equal(reused, want_reused(prev, prev_n, ips, n));
        if (same)
            assert_int_equal(reused, n);
        total_reused += reused;
        assert_int_equal(la->id, lb->id);
        assert_chain(b, lb, ips, n);
        assert_int_equal(cct_add_sample(a, la, event, value), CCT_OK);
        assert_int_equal(cct_add_sample(b, lb, event, value), CCT_OK);
        if (rng_below(3) == 0) {
            cct_add_calls(cct_node_parent(la), 1);
            cct_add_calls(cct_node_parent(lb), 1);
        }
        memcpy(prev, ips, n * sizeof(ips[0]));
        prev_n = n;
    }
    print_message("%zu nodes, %zu of the frames came from the memo\n", cct_size(b), total_reused);
    assert_true(total_reused > 0);
    assert_int_equal(cct_size(a), cct_size(b));
    snap_take(&sa, a, NEVENTS);
    snap_take(&sb, b, NEVENTS);
    snap_assert_equal(&sa, &sb);
    snap_free(&sa);
    snap_free(&sb);
    arena_destroy(&arena_a);
    arena_destroy(&arena_b);
}

/* ---- reused counts on hand-made sequences ---- */

#define MEMO_STEPS 6

static const struct memo_case {
    const char *name;
    uintptr_t paths[MEMO_STEPS][CASE_FRAMES + 1]; /* leaf first; 0 ends; an empty path resets */
    size_t want_reused[MEMO_STEPS];
    size_t nsteps;
} memo_cases[] = {
    {"first path reuses nothing", {{0x30, 0x20, 0x10}}, {0}, 1},
    {"same path reuses all frames, leaf included",
     {{0x30, 0x20, 0x10}, {0x30, 0x20, 0x10}},
     {0, 3},
     2},
    {"new leaf, same call sites", {{0x30, 0x20, 0x10}, {0x31, 0x20, 0x10}}, {0, 2}, 2},
    {"different outermost frame", {{0x30, 0x20, 0x10}, {0x30, 0x20, 0x11}}, {0, 0}, 2},
    {"shorter path: a leaf never reuses a call site",
     {{0x30, 0x20, 0x10}, {0x20, 0x10}},
     {0, 1},
     2},
    {"longer path: a call site never reuses a leaf", {{0x20, 0x10}, {0x30, 0x20, 0x10}}, {0, 1}, 2},
    {"deeper then back",
     {{0x40, 0x30, 0x20, 0x10}, {0x50, 0x30, 0x20, 0x10}, {0x31, 0x20, 0x10}},
     {0, 3, 2},
     3},
    {"reset forgets",
     {{0x30, 0x20, 0x10}, {0}, {0x30, 0x20, 0x10}, {0x30, 0x20, 0x10}},
     {0, 0, 0, 3},
     4},
    {"single frames", {{0x10}, {0x10}, {0x11}, {0x11}}, {0, 1, 0, 1}, 4},
};

static void
test_memo_reused_counts(void **state)
{
    size_t c, s;

    (void)state;
    for (c = 0; c < sizeof(memo_cases) / sizeof(memo_cases[0]); c++) {
        const struct memo_case *mc = &memo_cases[c];
        struct arena arena;
        struct cct *tree;

        print_message("case: %s\n", mc->name);
        arena_init_malloc(&arena, CHUNK_BYTES, 0);
        tree = cct_new(&arena, 1);
        assert_non_null(tree);
        for (s = 0; s < mc->nsteps; s++) {
            size_t n = path_len(mc->paths[s], CASE_FRAMES), reused = SIZE_MAX;
            struct cct_node *leaf = NULL, *plain = NULL;

            if (n == 0) {
                cct_memo_reset(tree);
                continue;
            }
            assert_int_equal(cct_insert_path_memo(tree, mc->paths[s], n, &leaf, &reused), CCT_OK);
            assert_int_equal(reused, mc->want_reused[s]);
            assert_int_equal(cct_insert_path(tree, cct_root(tree), mc->paths[s], n, &plain),
                             CCT_OK);
            assert_ptr_equal(leaf, plain);
        }
        arena_destroy(&arena);
    }
}

/* ---- insertion below a cached node ---- */

static void
test_insert_from_cached_node(void **state)
{
    static const uintptr_t full[] = {0x40, 0x35, 0x20, 0x10}, base[] = {0x30, 0x20, 0x10};
    static const uintptr_t tail[] = {0x40, 0x35}, sibling[] = {0x31};
    struct cct_node *leaf = NULL, *cs20, *from_cached = NULL, *from_root = NULL, *sib = NULL;
    struct arena arena;
    struct cct *tree;
    size_t size;

    (void)state;
    arena_init_malloc(&arena, CHUNK_BYTES, 0);
    tree = cct_new(&arena, 1);
    assert_non_null(tree);
    assert_int_equal(cct_insert_path(tree, cct_root(tree), base, 3, &leaf), CCT_OK);
    cs20 = cct_node_parent(leaf);
    assert_int_equal(cs20->addr, 0x20);

    size = cct_size(tree);
    assert_int_equal(cct_insert_path(tree, cs20, sibling, 1, &sib), CCT_OK); /* n == 1 */
    assert_int_equal(cct_size(tree), size + 1);
    assert_ptr_equal(cct_node_parent(sib), cs20);
    assert_int_equal(sib->kind, CCT_NODE_LEAF);

    assert_int_equal(cct_insert_path(tree, cs20, tail, 2, &from_cached), CCT_OK);
    assert_int_equal(cct_size(tree), size + 3);
    assert_chain(tree, from_cached, full, 4);
    assert_int_equal(cct_insert_path(tree, cct_root(tree), full, 4, &from_root), CCT_OK);
    assert_ptr_equal(from_root, from_cached);
    assert_int_equal(cct_size(tree), size + 3);
    arena_destroy(&arena);
}

/* A recorded context (all call sites), then a sample below it: the same tree as the whole path
 * inserted from the root (OpenMP creation contexts, lib/monitor/omp_sig.c). */
static void
test_insert_callsites(void **state)
{
    static const uintptr_t context[] = {0x20, 0x10}, below[] = {0x40, 0x35};
    static const uintptr_t full[] = {0x40, 0x35, 0x20, 0x10};
    struct cct_node *ctx = NULL, *again = NULL, *leaf = NULL, *from_root = NULL, *root;
    struct arena arena;
    struct cct *tree;
    size_t size;

    (void)state;
    arena_init_malloc(&arena, CHUNK_BYTES, 0);
    tree = cct_new(&arena, 1);
    assert_non_null(tree);
    root = cct_root(tree);
    assert_int_equal(cct_insert_callsites(tree, root, context, 0, &ctx), CCT_OK); /* n == 0 */
    assert_ptr_equal(ctx, root);
    assert_int_equal(cct_insert_callsites(tree, root, context, 2, &ctx), CCT_OK);
    assert_int_equal(ctx->kind, CCT_NODE_CALLSITE);
    assert_int_equal(ctx->addr, 0x20);
    assert_int_equal(cct_node_parent(ctx)->addr, 0x10);
    assert_int_equal(cct_node_parent(ctx)->kind, CCT_NODE_CALLSITE);
    size = cct_size(tree);
    assert_int_equal(size, 3);
    assert_int_equal(cct_insert_callsites(tree, root, context, 2, &again), CCT_OK); /* shared */
    assert_ptr_equal(again, ctx);
    assert_int_equal(cct_size(tree), size);
    assert_int_equal(cct_insert_path(tree, ctx, below, 2, &leaf), CCT_OK);
    assert_int_equal(cct_insert_path(tree, root, full, 4, &from_root), CCT_OK);
    assert_ptr_equal(from_root, leaf);
    assert_int_equal(cct_insert_callsites(tree, leaf, context, 2, &again), CCT_EINVAL);
    arena_destroy(&arena);
}

/* ---- argument errors: nothing changes ---- */

static void
test_einval(void **state)
{
    static const uintptr_t path[] = {0x30, 0x20, 0x10};
    static struct cct_node dummy;
    struct cct_node *leaf = NULL, *sentinel = &dummy, *out;
    struct arena arena;
    struct cct *tree;
    size_t size, reused;

    (void)state;
    arena_init_malloc(&arena, CHUNK_BYTES, 0);
    tree = cct_new(&arena, 2);
    assert_non_null(tree);
    assert_null(cct_new(NULL, 1));
    assert_int_equal(cct_insert_path(tree, cct_root(tree), path, 3, &leaf), CCT_OK);
    size = cct_size(tree);

    out = sentinel;
    assert_int_equal(cct_insert_path(NULL, cct_root(tree), path, 3, &out), CCT_EINVAL);
    assert_int_equal(cct_insert_path(tree, NULL, path, 3, &out), CCT_EINVAL);
    assert_int_equal(cct_insert_path(tree, cct_root(tree), NULL, 3, &out), CCT_EINVAL);
    assert_int_equal(cct_insert_path(tree, cct_root(tree), path, 0, &out), CCT_EINVAL);
    assert_int_equal(cct_insert_path(tree, leaf, path, 1, &out), CCT_EINVAL); /* start is a leaf */
    assert_ptr_equal(out, sentinel);

    reused = 99;
    assert_int_equal(cct_insert_path_memo(NULL, path, 3, &out, &reused), CCT_EINVAL);
    assert_int_equal(cct_insert_path_memo(tree, NULL, 3, &out, &reused), CCT_EINVAL);
    assert_int_equal(cct_insert_path_memo(tree, path, 0, &out, &reused), CCT_EINVAL);
    assert_int_equal(reused, 0);
    assert_ptr_equal(out, sentinel);
    assert_int_equal(cct_size(tree), size);

    assert_int_equal(cct_add_sample(tree, leaf, 2, 1), CCT_EINVAL); /* nevents is 2 */
    assert_int_equal(cct_add_sample(tree, leaf, UINT32_MAX, 1), CCT_EINVAL);
    assert_int_equal(cct_add_sample(NULL, leaf, 0, 1), CCT_EINVAL);
    assert_int_equal(cct_add_sample(tree, NULL, 0, 1), CCT_EINVAL);
    assert_int_equal(leaf->samples, 0);
    assert_int_equal(leaf->nmetrics, 0);

    assert_null(cct_root(NULL));
    assert_null(cct_node_parent(NULL));
    assert_int_equal(cct_size(NULL), 0);
    assert_int_equal(cct_walk_scratch_size(NULL), 0);

    assert_string_equal(cct_strerror(CCT_OK), "success");
    assert_string_not_equal(cct_strerror(CCT_ENOMEM), cct_strerror(CCT_EINVAL));
    assert_string_not_equal(cct_strerror(CCT_ENOMEM), cct_strerror(-12345));
    assert_string_not_equal(cct_strerror(CCT_EINVAL), cct_strerror(-12345));
    arena_destroy(&arena);
}

/* ---- arena exhaustion ---- */

static void
assert_consistent(struct cct *tree, uint32_t nevents)
{
    struct snap s;

    snap_take(&s, tree, nevents); /* preorder, unique ids, count == cct_size */
    snap_free(&s);
}

#define LONG_PATH 10000
/* Arena bytes of a memo grown to hold LONG_PATH frames (two arrays of 16384 pointers, each in a
 * chunk of its own, plus the first small ones). */
#define MEMO_BYTES (sizeof(struct cct_memo) + 2 * (16384 + CCT_MEMO_INITIAL) * sizeof(void *) + 256)

/* Build the long path P: ips[LONG_PATH-1] is outermost, shares its outer 3 frames with @short_path. */
static void
make_long_path(uintptr_t *ips, const uintptr_t *short_path)
{
    size_t i;

    for (i = 0; i < LONG_PATH; i++)
        ips[i] = 0x100000 + 16 * i;
    ips[LONG_PATH - 1] = short_path[3];
    ips[LONG_PATH - 2] = short_path[2];
    ips[LONG_PATH - 3] = short_path[1];
}

static void
check_enomem(int memoized)
{
    static const uintptr_t short_path[] = {0x40, 0x30, 0x20, 0x10};
    static uintptr_t long_path[LONG_PATH];
    static struct cct_node dummy;
    struct cct_node *leaf = NULL, *again = NULL, *out, *sentinel = &dummy;
    struct arena arena;
    struct cct *tree;
    size_t size, reused = 0;
    int rc;

    /* room for the memo (its own chunk) and a few dozen nodes: far from LONG_PATH of them */
    arena_init_malloc(&arena, 4096, MEMO_BYTES + 16 * 4096);
    tree = cct_new(&arena, 2);
    assert_non_null(tree);
    make_long_path(long_path, short_path);

    if (memoized)
        assert_int_equal(cct_insert_path_memo(tree, short_path, 4, &leaf, NULL), CCT_OK);
    else
        assert_int_equal(cct_insert_path(tree, cct_root(tree), short_path, 4, &leaf), CCT_OK);
    assert_int_equal(cct_add_sample(tree, leaf, 0, 5), CCT_OK);

    out = sentinel;
    size = cct_size(tree);
    if (memoized)
        rc = cct_insert_path_memo(tree, long_path, LONG_PATH, &out, &reused);
    else
        rc = cct_insert_path(tree, cct_root(tree), long_path, LONG_PATH, &out);
    assert_int_equal(rc, CCT_ENOMEM);
    assert_ptr_equal(out, sentinel);
    assert_true(cct_size(tree) > size); /* the call sites made so far stay */
    assert_true(cct_size(tree) < size + LONG_PATH);
    if (memoized)
        assert_int_equal(reused, 3); /* the memo really was in use */
    assert_consistent(tree, 2);

    /* use up the last chunk's tail, then a new metric cell fails and leaves the node alone */
    while (arena_alloc(&arena, 16) != NULL)
        ;
    assert_int_equal(cct_add_sample(tree, leaf, 1, 7), CCT_ENOMEM);
    assert_int_equal(leaf->samples, 1);
    assert_int_equal(leaf->nmetrics, 1);
    /* existing nodes and cells need no memory */
    if (memoized)
        assert_int_equal(cct_insert_path_memo(tree, short_path, 4, &again, &reused), CCT_OK);
    else
        assert_int_equal(cct_insert_path(tree, cct_root(tree), short_path, 4, &again), CCT_OK);
    assert_ptr_equal(again, leaf);
    if (memoized)
        assert_int_equal(reused, 3); /* the surviving memo entries are the long path's call sites */
    assert_int_equal(cct_add_sample(tree, again, 0, 5), CCT_OK);
    assert_int_equal(leaf->samples, 2);

    /* the same long path fails again at the same place and adds nothing */
    size = cct_size(tree);
    if (memoized)
        rc = cct_insert_path_memo(tree, long_path, LONG_PATH, &out, &reused);
    else
        rc = cct_insert_path(tree, cct_root(tree), long_path, LONG_PATH, &out);
    assert_int_equal(rc, CCT_ENOMEM);
    assert_int_equal(cct_size(tree), size);
    assert_consistent(tree, 2);
    if (memoized) {
        /* after a failure the memo holds exactly the call sites that exist */
        assert_int_equal(reused, 3);
        assert_int_equal(cct_insert_path_memo(tree, long_path, LONG_PATH, &out, &reused),
                         CCT_ENOMEM);
        assert_int_equal(reused, cct_size(tree) - 1 - 4 + 3);
    }
    arena_destroy(&arena);
}

static void
test_enomem(void **state)
{
    (void)state;
    check_enomem(0);
    check_enomem(1);
}

/*
 * Fault injection in the spirit of SQLite's: for a range of arena limits,
 * run the same sequence of insertions; every call either succeeds with the
 * right leaf or fails with CCT_ENOMEM, and the tree stays walkable.  The
 * memo may not fit at all (then memoized insertion falls back to a plain one).
 */
static void
test_enomem_sweep(void **state)
{
    size_t limit;

    (void)state;
    for (limit = 4096; limit <= MEMO_BYTES + 12 * 4096; limit += 4096) {
        struct arena arena;
        struct cct *tree;
        size_t p, ok = 0, failed = 0, i;

        arena_init_malloc(&arena, 4096, limit);
        tree = cct_new(&arena, NEVENTS);
        assert_non_null(tree);
        rng_state = 12345;
        for (p = 0; p < 400; p++) {
            uintptr_t ips[40];
            size_t n = 1 + rng_below(40);
            struct cct_node *leaf = NULL;
            int rc;

            for (i = 0; i < n; i++)
                ips[i] = 0x1000 + 16 * rng_below(i < n / 2 ? 16 : 3);
            rc = p % 2 ? cct_insert_path_memo(tree, ips, n, &leaf, NULL)
                       : cct_insert_path(tree, cct_root(tree), ips, n, &leaf);
            if (rc == CCT_ENOMEM) {
                assert_null(leaf);
                failed++;
                continue;
            }
            assert_int_equal(rc, CCT_OK);
            assert_chain(tree, leaf, ips, n);
            rc = cct_add_sample(tree, leaf, (uint32_t)(p % NEVENTS), 1);
            assert_true(rc == CCT_OK || rc == CCT_ENOMEM);
            ok++;
        }
        assert_consistent(tree, NEVENTS);
        if (limit == 4096)
            assert_true(failed > 0);
        print_message("limit %zu: %zu inserted, %zu out of memory, %zu nodes\n", limit, ok, failed,
                      cct_size(tree));
        arena_destroy(&arena);
    }
}

static void
test_new_without_room(void **state)
{
    struct arena arena;

    (void)state;
    arena_init_malloc(&arena, 4096, 100); /* not even one chunk fits */
    assert_null(cct_new(&arena, 1));
    arena_destroy(&arena);
}

/* ---- AVL balance under one node ---- */

#define FANOUT 100000

enum key_order { ORDER_INCREASING, ORDER_DECREASING, ORDER_RANDOM };

/* Tallest AVL tree of @n nodes: the h with M(h) <= n < M(h+1), M(h) = M(h-1) + M(h-2) + 1. */
static int
avl_max_height(size_t n)
{
    size_t m0 = 0, m1 = 1; /* M(h-1), M(h) */
    int h = 1;

    if (n == 0)
        return 0;
    while (m0 + m1 + 1 <= n) {
        size_t m2 = m0 + m1 + 1;

        m0 = m1;
        m1 = m2;
        h++;
    }
    return h;
}

static void
check_fanout(enum key_order order)
{
    static const uintptr_t outer[] = {0x77, 0x1000};
    uintptr_t *addrs = malloc(FANOUT * sizeof(*addrs));
    struct cct_node **leaves = malloc(FANOUT * sizeof(*leaves));
    struct cct_node *cs, *leaf = NULL;
    struct arena arena;
    struct cct *tree;
    size_t i, count, size;
    int height, min_height = 0;

    assert_non_null(addrs);
    assert_non_null(leaves);
    for (i = 0; i < FANOUT; i++)
        addrs[i] = 0x400000 + 4 * (order == ORDER_DECREASING ? FANOUT - 1 - i : i);
    if (order == ORDER_RANDOM) {
        rng_state = 777;
        for (i = FANOUT - 1; i > 0; i--) {
            size_t j = rng_below(i + 1);
            uintptr_t t = addrs[i];

            addrs[i] = addrs[j];
            addrs[j] = t;
        }
    }

    arena_init_malloc(&arena, 1 << 20, 0);
    tree = cct_new(&arena, 1);
    assert_non_null(tree);
    assert_int_equal(cct_insert_path(tree, cct_root(tree), outer, 2, &leaf), CCT_OK);
    cs = cct_node_parent(leaf);
    for (i = 0; i < FANOUT; i++) {
        assert_int_equal(cct_insert_path(tree, cs, &addrs[i], 1, &leaves[i]), CCT_OK);
        assert_ptr_equal(cct_node_parent(leaves[i]), cs);
    }
    size = cct_size(tree);
    assert_int_equal(size, 3 + FANOUT);

    height = cct_avl_check(cs, &count);
    assert_int_equal(count, FANOUT + 1); /* the 0x77 leaf too */
    while (((size_t)1 << min_height) - 1 < count)
        min_height++;
    print_message("order %d: %zu children, AVL height %d (bounds %d..%d)\n", (int)order, count,
                  height, min_height, avl_max_height(count));
    assert_true(height >= min_height);
    assert_true(height <= avl_max_height(count));

    for (i = 0; i < FANOUT; i++) { /* every key is found, none is created twice */
        struct cct_node *found = NULL;

        assert_int_equal(cct_insert_path(tree, cs, &addrs[i], 1, &found), CCT_OK);
        assert_ptr_equal(found, leaves[i]);
        assert_int_equal(found->addr, addrs[i]);
    }
    assert_int_equal(cct_size(tree), size);
    assert_consistent(tree, 1);
    free(addrs);
    free(leaves);
    arena_destroy(&arena);
}

static void
test_avl_balance(void **state)
{
    (void)state;
    check_fanout(ORDER_INCREASING);
    check_fanout(ORDER_DECREASING);
    check_fanout(ORDER_RANDOM);
}

/* ---- deep paths: longer than the memo's first arrays (they grow) ---- */

#define DEEP_FRAMES (4 * CSP_INITIAL_FRAMES + 3)

static void
check_deep(int recursive)
{
    static uintptr_t ips[DEEP_FRAMES];
    const uintptr_t *outer = ips + DEEP_FRAMES - CSP_INITIAL_FRAMES; /* the outermost frames */
    struct cct_node *plain = NULL, *memo = NULL, *again = NULL, *shallow = NULL;
    struct arena arena;
    struct cct *tree;
    struct snap s;
    size_t i, reused = 0;

    for (i = 0; i < DEEP_FRAMES; i++)
        ips[i] = recursive ? 0x4242 : 0x10000 + 16 * i;
    arena_init_malloc(&arena, 1 << 20, 0);
    tree = cct_new(&arena, 1);
    assert_non_null(tree);
    assert_int_equal(cct_insert_path(tree, cct_root(tree), ips, DEEP_FRAMES, &plain), CCT_OK);
    assert_int_equal(cct_size(tree), DEEP_FRAMES + 1);
    assert_chain(tree, plain, ips, DEEP_FRAMES);

    /* A path that fits the memo's first arrays, then one four times longer: the memo grows
     * and keeps the shared call sites (all but the shorter path's leaf). */
    assert_int_equal(cct_insert_path_memo(tree, outer, CSP_INITIAL_FRAMES, &shallow, &reused),
                     CCT_OK);
    assert_int_equal(reused, 0);
    assert_int_equal(cct_insert_path_memo(tree, ips, DEEP_FRAMES, &memo, &reused), CCT_OK);
    assert_ptr_equal(memo, plain);
    assert_int_equal(reused, CSP_INITIAL_FRAMES - 1);
    assert_int_equal(cct_insert_path_memo(tree, ips, DEEP_FRAMES, &again, &reused), CCT_OK);
    assert_ptr_equal(again, plain);
    assert_int_equal(reused, DEEP_FRAMES);
    ips[0] = 0x99; /* a new leaf: every call site comes from the memo */
    assert_int_equal(cct_insert_path_memo(tree, ips, DEEP_FRAMES, &again, &reused), CCT_OK);
    assert_int_equal(reused, DEEP_FRAMES - 1);
    assert_ptr_equal(cct_node_parent(again), cct_node_parent(plain));
    assert_int_equal(cct_size(tree), DEEP_FRAMES + 3); /* + the shallow leaf, + the new leaf */
    assert_int_equal(cct_add_sample(tree, again, 0, 3), CCT_OK);

    snap_take(&s, tree, 1);
    assert_int_equal(snap_get(&s, plain->id)->depth, DEEP_FRAMES);
    assert_int_equal(snap_get(&s, again->id)->depth, DEEP_FRAMES);
    assert_int_equal(snap_get(&s, shallow->id)->depth, CSP_INITIAL_FRAMES);
    assert_int_equal(snap_get(&s, again->id)->v.samples, 1);
    snap_free(&s);
    arena_destroy(&arena);
}

static void
test_deep_path(void **state)
{
    (void)state;
    check_deep(0);
    check_deep(1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_cases),
        cmocka_unit_test(test_calls_and_metrics),
        cmocka_unit_test(test_walk_stops),
        cmocka_unit_test(test_memo_matches_plain),
        cmocka_unit_test(test_memo_reused_counts),
        cmocka_unit_test(test_insert_from_cached_node),
        cmocka_unit_test(test_insert_callsites),
        cmocka_unit_test(test_einval),
        cmocka_unit_test(test_enomem),
        cmocka_unit_test(test_enomem_sweep),
        cmocka_unit_test(test_new_without_room),
        cmocka_unit_test(test_avl_balance),
        cmocka_unit_test(test_deep_path),
    };
    size_t total = sizeof(tests) / sizeof(tests[0]);
    int failed = cmocka_run_group_tests_name("cct", tests, NULL, NULL);

    return csp_test_finish((long)(total - (size_t)failed), (long)failed);
}
