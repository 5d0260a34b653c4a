/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_prof_tree.c -- unit tests of csprof-prof's presentation tree, its
 * inclusive/exclusive arithmetic, the hash map and string table, and the
 * merging of in-memory profiles (addresses outside any module, so no
 * program structure is needed).
 *
 * Test code (cmocka).  Ends with "N passed, N failed".
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csp_test.h"
#include "fmt/fmt.h"
#include "profile/profile_internal.h"

#define EPS 1e-9

/*
 * Table-driven trees.  Each row: kind, parent row, own value of event 0.
 * Expected inclusive and exclusive values per row are computed by hand.
 */
struct tree_row {
    enum csp_scope kind;
    int parent; /* row index; -1 = root */
    double self;
    double want_incl, want_excl;
};

static const struct {
    const char *name;
    struct tree_row rows[12];
    size_t nrows;
    double want_total;
} tree_cases[] = {
    {"main > S", {{CSP_SCOPE_PROC, -1, 0, 5, 5}, {CSP_SCOPE_STMT, 0, 5, 5, 5}}, 2, 5},
    {"call: main > C > f > S; main own statement",
     {
         {CSP_SCOPE_PROC, -1, 0, 10, 3}, /* 0 main */
         {CSP_SCOPE_STMT, 0, 3, 3, 3},   /* 1 main's statement */
         {CSP_SCOPE_CALL, 0, 0, 7, 0},   /* 2 call site in main */
         {CSP_SCOPE_PROC, 2, 0, 7, 7},   /* 3 f */
         {CSP_SCOPE_STMT, 3, 7, 7, 7},   /* 4 f's statement */
     },
     5,
     10},
    {"inlined frame and loop count toward the enclosing frame's exclusive",
     {
         {CSP_SCOPE_PROC, -1, 0, 9, 6},  /* 0 main */
         {CSP_SCOPE_LOOP, 0, 0, 4, 4},   /* 1 loop */
         {CSP_SCOPE_INLINE, 1, 0, 4, 4}, /* 2 inlined g in the loop */
         {CSP_SCOPE_STMT, 2, 4, 4, 4},   /* 3 */
         {CSP_SCOPE_STMT, 0, 2, 2, 2},   /* 4 */
         {CSP_SCOPE_CALL, 0, 0, 3, 0},   /* 5 call */
         {CSP_SCOPE_PROC, 5, 0, 3, 3},   /* 6 h */
         {CSP_SCOPE_STMT, 6, 3, 3, 3},   /* 7 */
     },
     8,
     9},
    {"two roots' frames (partial unwinds)",
     {
         {CSP_SCOPE_PROC, -1, 0, 1, 1},
         {CSP_SCOPE_STMT, 0, 1, 1, 1},
         {CSP_SCOPE_PROC, -1, 0, 2, 2},
         {CSP_SCOPE_STMT, 2, 2, 2, 2},
     },
     4,
     3},
};

static void
test_tree_table(void **state)
{
    size_t c, r;

    (void)state;
    for (c = 0; c < sizeof(tree_cases) / sizeof(tree_cases[0]); c++) {
        struct prof_tree t;
        uint32_t id[12];
        double sum_pf_excl = 0;

        prof_tree_init(&t);
        for (r = 0; r < tree_cases[c].nrows; r++) {
            const struct tree_row *row = &tree_cases[c].rows[r];
            uint32_t parent = row->parent < 0 ? 0 : id[row->parent];

            /* distinct keys: use the row number as line */
            id[r] = prof_tree_child(&t, parent, row->kind,
                                    row->kind == CSP_SCOPE_PROC || row->kind == CSP_SCOPE_INLINE
                                        ? (uint32_t)r
                                        : PROF_NONE,
                                    PROF_NONE, (uint32_t)r + 1);
            if (row->self != 0)
                prof_tree_add_value(&t, id[r], 0, row->self);
            prof_tree_add_counts(&t, id[r], (uint64_t)row->self, 0);
        }
        prof_tree_compute(&t, 1);
        for (r = 0; r < tree_cases[c].nrows; r++) {
            const struct tree_row *row = &tree_cases[c].rows[r];

            if (fabs(prof_tree_incl(&t, id[r], 0) - row->want_incl) > EPS ||
                fabs(prof_tree_excl(&t, id[r], 0) - row->want_excl) > EPS)
                fail_msg("%s: row %zu: incl %g excl %g, want %g %g", tree_cases[c].name, r,
                         prof_tree_incl(&t, id[r], 0), prof_tree_excl(&t, id[r], 0), row->want_incl,
                         row->want_excl);
            assert_int_equal(t.incl_samples[id[r]], (uint64_t)row->want_incl);
            assert_int_equal(t.excl_samples[id[r]], (uint64_t)row->want_excl);
            if (row->kind == CSP_SCOPE_PROC)
                sum_pf_excl += prof_tree_excl(&t, id[r], 0);
        }
        assert_true(fabs(prof_tree_incl(&t, 0, 0) - tree_cases[c].want_total) < EPS);
        assert_true(fabs(sum_pf_excl - tree_cases[c].want_total) < EPS);
        prof_tree_free(&t);
    }
}

/* Same key twice gives the same node; a different kind or line a new one. */
static void
test_tree_child_keys(void **state)
{
    struct prof_tree t;
    uint32_t pf, c1, c2, s1;

    (void)state;
    prof_tree_init(&t);
    pf = prof_tree_child(&t, 0, CSP_SCOPE_PROC, 7, PROF_NONE, 0);
    assert_int_equal(prof_tree_child(&t, 0, CSP_SCOPE_PROC, 7, PROF_NONE, 0), pf);
    c1 = prof_tree_child(&t, pf, CSP_SCOPE_CALL, PROF_NONE, 1, 10);
    c2 = prof_tree_child(&t, pf, CSP_SCOPE_CALL, PROF_NONE, 1, 11);
    s1 = prof_tree_child(&t, pf, CSP_SCOPE_STMT, PROF_NONE, 1, 10);
    assert_int_not_equal(c1, c2);
    assert_int_not_equal(c1, s1);
    assert_int_equal(prof_tree_child(&t, pf, CSP_SCOPE_CALL, PROF_NONE, 1, 10), c1);
    assert_int_equal(t.n, 5);
    /* children in insertion order */
    assert_int_equal(t.nodes[pf].first_child, c1);
    assert_int_equal(t.nodes[c1].next_sibling, c2);
    assert_int_equal(t.nodes[c2].next_sibling, s1);
    assert_int_equal(t.nodes[s1].next_sibling, PROF_NONE);
    prof_tree_free(&t);
}

/* Random trees: inclusive = own + children; totals agree three ways. */
static void
test_tree_random(void **state)
{
    unsigned seed = 12345;
    int round;

    (void)state;
    for (round = 0; round < 20; round++) {
        struct prof_tree t;
        double own_total = 0, pf_excl = 0, leaf_excl = 0;
        size_t i;
        int k;

        prof_tree_init(&t);
        for (k = 0; k < 500; k++) {
            uint32_t parent = (uint32_t)(rand_r(&seed) % t.n), node;
            uint32_t pk = t.nodes[parent].kind;
            enum csp_scope kind;

            if (pk == CSP_SCOPE_STMT)
                continue;
            if (pk == CSP_SCOPE_ROOT || pk == CSP_SCOPE_CALL)
                kind = CSP_SCOPE_PROC;
            else
                kind = (enum csp_scope)(CSP_SCOPE_INLINE + rand_r(&seed) % 4); /* A, L, C, S */
            node = prof_tree_child(&t, parent, kind, (uint32_t)(rand_r(&seed) % 5), PROF_NONE,
                                   (uint32_t)(rand_r(&seed) % 7));
            if (kind == CSP_SCOPE_STMT || kind == CSP_SCOPE_CALL) {
                double v = (double)(rand_r(&seed) % 1000) * 1e-3;

                prof_tree_add_value(&t, node, 1, v); /* event 1: event 0 stays empty */
                own_total += v;
            }
        }
        prof_tree_compute(&t, 2);
        for (i = 0; i < t.n; i++) {
            double sum = prof_tree_self(&t, (uint32_t)i, 1);
            uint32_t ch;

            for (ch = t.nodes[i].first_child; ch != PROF_NONE; ch = t.nodes[ch].next_sibling)
                sum += prof_tree_incl(&t, ch, 1);
            assert_true(fabs(sum - prof_tree_incl(&t, (uint32_t)i, 1)) < EPS);
            assert_true(prof_tree_incl(&t, (uint32_t)i, 0) == 0.0);
            assert_true(prof_tree_excl(&t, (uint32_t)i, 1) <=
                        prof_tree_incl(&t, (uint32_t)i, 1) + EPS);
            if (t.nodes[i].kind == CSP_SCOPE_PROC)
                pf_excl += prof_tree_excl(&t, (uint32_t)i, 1);
            if (t.nodes[i].kind == CSP_SCOPE_STMT || t.nodes[i].kind == CSP_SCOPE_CALL)
                leaf_excl += prof_tree_excl(&t, (uint32_t)i, 1);
        }
        assert_true(fabs(prof_tree_incl(&t, 0, 1) - own_total) < EPS);
        assert_true(fabs(pf_excl - own_total) < EPS);
        assert_true(fabs(leaf_excl - own_total) < EPS);
        prof_tree_free(&t);
    }
}

static void
test_map_and_strtab(void **state)
{
    struct prof_map m = {0};
    struct csp_strtab s = {0};
    char buf[32];
    uint32_t i;

    (void)state;
    for (i = 0; i < 10000; i++)
        prof_map_put(&m, i, i * 7, i % 3, i);
    for (i = 0; i < 10000; i++)
        assert_int_equal(prof_map_get(&m, i, i * 7, i % 3), i);
    assert_int_equal(prof_map_get(&m, 1, 7, 2), PROF_NONE); /* (1,7,1) was stored */
    prof_map_put(&m, 5, 35, 2, 99);
    assert_int_equal(prof_map_get(&m, 5, 35, 2), 99);
    assert_int_equal(m.n, 10000);
    prof_map_free(&m);
    assert_int_equal(prof_map_get(&m, 5, 35, 2), PROF_NONE);

    for (i = 0; i < 3000; i++) {
        snprintf(buf, sizeof(buf), "s%u", i);
        assert_int_equal(prof_intern(&s, buf), i);
    }
    assert_int_equal(prof_intern(&s, "s1234"), 1234);
    assert_int_equal(csp_strtab_find(&s, "s2999"), 2999);
    assert_int_equal(csp_strtab_find(&s, "nope"), PROF_NONE);
    assert_string_equal(s.strs[42], "s42");
    csp_strtab_free(&s);
}

/*
 * Two in-memory profiles whose addresses lie outside any module: both merge
 * into one "[unknown module]" frame; events are matched by name and each
 * file's display_scale applies to its own values.
 */
static void
test_merge_unmapped(void **state)
{
    struct fmt_event ev_a[2] = {
        {.name = "CPUTIME",
         .unit = "ns",
         .display_scale = 1e-9,
         .display_unit = "s",
         .period = 1000},
        {.name = "BYTES", .unit = "bytes", .display_scale = 1, .display_unit = "bytes"},
    };
    struct fmt_event ev_b[1] = {
        {.name = "CPUTIME",
         .unit = "us",
         .display_scale = 1e-6,
         .display_unit = "s",
         .period = 2000},
    };
    struct fmt_metric m_a[2] = {{0, 3000000000ull}, {1, 64}};
    struct fmt_metric m_b[1] = {{0, 1000000}};
    struct fmt_node n_a[3] = {
        {.id = 0, .kind = FMT_NODE_ROOT, .module = FMT_MODULE_NONE},
        {.id = 5,
         .parent = 0,
         .kind = FMT_NODE_CALLSITE,
         .module = FMT_MODULE_NONE,
         .offset = 0x1000,
         .calls = 4},
        {.id = 9,
         .parent = 5,
         .kind = FMT_NODE_LEAF,
         .module = FMT_MODULE_NONE,
         .offset = 0x2000,
         .samples = 3,
         .nmetrics = 2,
         .metrics = m_a},
    };
    struct fmt_node n_b[2] = {
        {.id = 0, .kind = FMT_NODE_ROOT, .module = FMT_MODULE_NONE},
        {.id = 1,
         .parent = 0,
         .kind = FMT_NODE_LEAF,
         .module = FMT_MODULE_NONE,
         .offset = 0x3000,
         .samples = 1,
         .nmetrics = 1,
         .metrics = m_b},
    };
    struct fmt_stat st[2] = {{"samples.recorded", 3}, {"samples.dropped.unsafe", 1}};
    struct fmt_profile pa = {
        .events = ev_a, .nevents = 2, .nodes = n_a, .nnodes = 3, .stats = st, .nstats = 2};
    struct fmt_profile pb = {
        .events = ev_b, .nevents = 1, .nodes = n_b, .nnodes = 2, .stats = st, .nstats = 1};
    struct prof_input ia = {0}, ib = {0};
    struct prof_summary sum;
    struct prof_ctx ctx;
    uint32_t pf, ch, cpu = PROF_NONE, bytes = PROF_NONE;
    size_t i;

    (void)state;
    pa.header.pid = 10;
    pa.header.tid = 10;
    pa.header.cpu_ns = 2000000000ull;
    pb.header.pid = 11;
    pb.header.tid = 12;
    pb.header.cpu_ns = 2000000000ull;
    prof_ctx_init(&ctx, NULL);
    prof_merge_profile(&ctx, &pa, &ia);
    prof_merge_profile(&ctx, &pb, &ib);
    assert_int_equal(ia.samples, 3);
    assert_int_equal(ib.samples, 1);

    assert_int_equal(ctx.nevents, 2);
    for (i = 0; i < ctx.nevents; i++) {
        if (strcmp(ctx.events[i].name, "CPUTIME") == 0)
            cpu = (uint32_t)i;
        if (strcmp(ctx.events[i].name, "BYTES") == 0)
            bytes = (uint32_t)i;
    }
    assert_int_not_equal(cpu, PROF_NONE);
    assert_int_not_equal(bytes, PROF_NONE);
    assert_true(ctx.events[cpu].mixed_periods);
    assert_int_equal(ctx.nprocs, 1);
    assert_string_equal(prof_proc_name(&ctx, 0), "[unknown module]");
    assert_int_equal(ctx.unknown_samples, 4);
    assert_int_equal(ctx.total_calls, 4);
    assert_int_equal(prof_stat(&ctx, "samples.recorded"), 6);
    assert_int_equal(prof_stat(&ctx, "samples.dropped.unsafe"), 1);

    prof_tree_compute(&ctx.tree, (uint32_t)ctx.nevents);
    /* one top-level frame: both files' root children have the same key */
    pf = ctx.tree.nodes[0].first_child;
    assert_int_not_equal(pf, PROF_NONE);
    assert_int_equal(ctx.tree.nodes[pf].next_sibling, PROF_NONE);
    assert_int_equal(ctx.tree.nodes[pf].kind, CSP_SCOPE_PROC);
    assert_true(fabs(prof_tree_incl(&ctx.tree, 0, cpu) - 4.0) < EPS); /* 3 s + 1 s */
    assert_true(fabs(prof_tree_incl(&ctx.tree, 0, bytes) - 64.0) < EPS);
    assert_int_equal(ctx.tree.incl_samples[0], 4);
    /* children of the frame: C (call site of file a) and S (leaf of file b) */
    ch = ctx.tree.nodes[pf].first_child;
    assert_int_equal(ctx.tree.nodes[ch].kind, CSP_SCOPE_CALL);
    assert_int_equal(ctx.tree.nodes[ch].calls, 4);
    assert_true(fabs(prof_tree_incl(&ctx.tree, ch, cpu) - 3.0) < EPS);
    assert_true(fabs(prof_tree_excl(&ctx.tree, ch, cpu)) < EPS);
    assert_true(fabs(prof_tree_excl(&ctx.tree, pf, cpu) - 1.0) < EPS);

    ctx.inputs = prof_xcalloc(2, sizeof(*ctx.inputs));
    ctx.inputs[0] = ia;
    ctx.inputs[1] = ib;
    ctx.ninputs = ctx.nread = 2;
    ctx.inputs[0].merged = ctx.inputs[1].merged = true;
    assert_int_equal(prof_finish(&ctx), 0);
    assert_int_equal(prof_summary_compute(&ctx, 10, &sum), 0);
    assert_int_equal(sum.threads, 2);
    assert_int_equal(sum.processes, 2);
    assert_int_equal(sum.samples, 4);
    assert_int_equal(sum.main_samples, 0);
    assert_true(fabs(sum.samples_per_cpu_s - 1.0) < EPS); /* 4 samples / 4 CPU-seconds */
    assert_int_equal(sum.ntop_procs, 1);
    assert_int_equal(sum.ntop_paths, 2); /* both frames have cost of their own */
    assert_string_equal(sum.top_paths[0].path, "[unknown module]");
    assert_string_equal(sum.top_paths[1].path, "[unknown module] > [unknown module]");
    prof_summary_free(&sum);
    prof_ctx_free(&ctx);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tree_table),     cmocka_unit_test(test_tree_child_keys),
        cmocka_unit_test(test_tree_random),    cmocka_unit_test(test_map_and_strtab),
        cmocka_unit_test(test_merge_unmapped),
    };
    int n = (int)(sizeof(tests) / sizeof(tests[0]));
    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    return csp_test_finish((long)(n - failed), (long)failed);
}
