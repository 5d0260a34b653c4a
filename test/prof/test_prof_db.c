/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_prof_db.c -- unit tests of what lib/profile derives for the
 * database: statistics across threads and processes, the static view
 * (under recursion), derived metrics and their errors, per-thread values.
 *
 * Test code (cmocka).  Trees are built by hand with known values, so every
 * expected number below is worked out in the comments.  Ends with
 * "N passed, N failed".
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
#include "oom_region.h"
#include "profile/profile_internal.h"

#define EPS 1e-9

/* A context with one event (CPUTIME, s) and @nprocs procedures, nothing merged. */
static void
db_init(struct prof_ctx *ctx, size_t nprocs)
{
    size_t i;

    prof_ctx_init(ctx, NULL);
    ctx->events = calloc(1, sizeof(*ctx->events));
    ctx->events[0].name = strdup("CPUTIME");
    ctx->events[0].unit = strdup("ns");
    ctx->events[0].display_unit = strdup("s");
    ctx->events[0].mechanism = strdup("test");
    ctx->nevents = ctx->events_cap = 1;
    ctx->procs = calloc(nprocs, sizeof(*ctx->procs));
    for (i = 0; i < nprocs; i++) {
        ctx->procs[i].module = PROF_NONE;
        ctx->procs[i].file = PROF_NONE;
        ctx->procs[i].link_name = PROF_NONE;
        ctx->procs[i].name = prof_intern(&ctx->strs, i == 0 ? "main" : "f");
    }
    ctx->nprocs = ctx->procs_cap = nprocs;
}

/* Add an input (thread @tid of process @pid). */
static struct prof_input *
db_input(struct prof_ctx *ctx, uint32_t pid, uint32_t tid)
{
    struct prof_input *in;

    prof_grow(&ctx->inputs, &ctx->inputs_cap, ctx->ninputs + 1, sizeof(*ctx->inputs));
    in = &ctx->inputs[ctx->ninputs++];
    memset(in, 0, sizeof(*in));
    in->path = strdup("mem");
    in->host = strdup("h");
    in->pid = pid;
    in->tid = tid;
    in->merged = true;
    in->thread = in->process = PROF_NONE;
    ctx->nread++;
    return in;
}

/* Give input @in the own value @v (event 0) and one sample at @node. */
static void
db_value(struct prof_ctx *ctx, struct prof_input *in, uint32_t node, double v)
{
    prof_tree_add_value(&ctx->tree, node, 0, v);
    prof_tree_add_counts(&ctx->tree, node, 1, 0);
    prof_grow(&in->contrib, &in->contrib_cap, in->ncontrib + 2, sizeof(*in->contrib));
    in->contrib[in->ncontrib++] = (struct prof_contrib){node, 0, v};
    in->contrib[in->ncontrib++] = (struct prof_contrib){node, PROF_EV_SAMPLES, 1};
}

#define ASSERT_NEAR(got, want)                              \
    do {                                                    \
        double g_ = (got), w_ = (want);                     \
        if (fabs(g_ - w_) > 1e-6 * (fabs(w_) + 1))          \
            fail_msg("%s = %.9g, want %.9g", #got, g_, w_); \
    } while (0)

/*
 * root > PF main > S1
 *             > C > PF f > S2
 * Two processes of two threads:
 *   p1 t1: S1 = 2, S2 = 4        p1 t2: S2 = 6
 *   p2 t3: S1 = 1                p2 t4: S1 = 3
 */
static void
test_statistics(void **state)
{
    struct prof_ctx ctx;
    uint32_t main_pf, s1, c, f_pf, s2;
    struct prof_input *t1, *t2, *t3, *t4;

    (void)state;
    db_init(&ctx, 2);
    main_pf = prof_tree_child(&ctx.tree, 0, CSP_SCOPE_PROC, 0, PROF_NONE, 0);
    s1 = prof_tree_child(&ctx.tree, main_pf, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 1);
    c = prof_tree_child(&ctx.tree, main_pf, CSP_SCOPE_CALL, PROF_NONE, PROF_NONE, 2);
    f_pf = prof_tree_child(&ctx.tree, c, CSP_SCOPE_PROC, 1, PROF_NONE, 0);
    s2 = prof_tree_child(&ctx.tree, f_pf, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 3);
    t1 = db_input(&ctx, 1, 1);
    db_value(&ctx, t1, s1, 2);
    db_value(&ctx, t1, s2, 4);
    t2 = db_input(&ctx, 1, 2);
    db_value(&ctx, t2, s2, 6);
    t3 = db_input(&ctx, 2, 3);
    db_value(&ctx, t3, s1, 1);
    t4 = db_input(&ctx, 2, 4);
    db_value(&ctx, t4, s1, 3);
    assert_int_equal(prof_finish(&ctx), 0);
    prof_stats_accumulate(&ctx, NULL, NULL);

    assert_int_equal(ctx.stats.nthreads, 4);
    assert_int_equal(ctx.stats.nprocesses, 2);
    /* f inclusive per thread: 4, 6, 0, 0 -> sum 10, mean 2.5, min 0, max 6,
     * stddev sqrt(52/4 - 2.5^2) = sqrt(6.75), cv = stddev / 2.5, count 2 */
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_SUM), 10);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_MEAN), 2.5);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_MIN), 0);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_MAX), 6);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_STDDEV), sqrt(6.75));
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_CV),
                sqrt(6.75) / 2.5);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_COUNT), 2);
    /* f inclusive per process: 10, 0 -> mean 5, min 0, max 10, stddev 5, cv 1, count 1 */
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_PROCESSES, PROF_STAT_MEAN), 5);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_PROCESSES, PROF_STAT_MIN), 0);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_PROCESSES, PROF_STAT_MAX), 10);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_PROCESSES, PROF_STAT_STDDEV), 5);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_PROCESSES, PROF_STAT_CV), 1);
    ASSERT_NEAR(prof_stats_get(&ctx, f_pf, 0, 0, PROF_OVER_PROCESSES, PROF_STAT_COUNT), 1);
    /* main inclusive per thread: 6, 6, 1, 3 -> mean 4, min 1, stddev sqrt(82/4 - 16) */
    ASSERT_NEAR(prof_stats_get(&ctx, main_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_MEAN), 4);
    ASSERT_NEAR(prof_stats_get(&ctx, main_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_MIN), 1);
    ASSERT_NEAR(prof_stats_get(&ctx, main_pf, 0, 0, PROF_OVER_THREADS, PROF_STAT_STDDEV),
                sqrt(4.5));
    /* main exclusive per thread (S1 only): 2, 0, 1, 3 -> sum 6, min 0, count 3 */
    ASSERT_NEAR(prof_stats_get(&ctx, main_pf, 0, 1, PROF_OVER_THREADS, PROF_STAT_SUM), 6);
    ASSERT_NEAR(prof_stats_get(&ctx, main_pf, 0, 1, PROF_OVER_THREADS, PROF_STAT_MIN), 0);
    ASSERT_NEAR(prof_stats_get(&ctx, main_pf, 0, 1, PROF_OVER_THREADS, PROF_STAT_COUNT), 3);
    /* main exclusive per process: 2 + 0, 1 + 3 -> 2, 4: mean 3, min 2, max 4, stddev 1 */
    ASSERT_NEAR(prof_stats_get(&ctx, main_pf, 0, 1, PROF_OVER_PROCESSES, PROF_STAT_MEAN), 3);
    ASSERT_NEAR(prof_stats_get(&ctx, main_pf, 0, 1, PROF_OVER_PROCESSES, PROF_STAT_MIN), 2);
    ASSERT_NEAR(prof_stats_get(&ctx, main_pf, 0, 1, PROF_OVER_PROCESSES, PROF_STAT_STDDEV), 1);
    /* The sum over threads is the node's own inclusive value, at every node. */
    for (uint32_t v = 0; v < ctx.tree.n; v++)
        ASSERT_NEAR(prof_stats_get(&ctx, v, 0, 0, PROF_OVER_THREADS, PROF_STAT_SUM),
                    prof_tree_incl(&ctx.tree, v, 0));
    /* Inputs learned their thread and process numbers. */
    assert_int_equal(t1->process, t2->process);
    assert_int_not_equal(t1->process, t3->process);
    assert_int_not_equal(t1->thread, t2->thread);
    (void)t4;
    prof_ctx_free(&ctx);
}

struct visit_sum {
    double incl_root[2][4], excl_s1[2][4];
    uint32_t s1;
};

static void
visit_sum(uint32_t group, uint32_t node, uint32_t col, double incl, double excl, void *arg)
{
    struct visit_sum *vs = arg;
    int over = vs->incl_root[0][3] < 0 ? 1 : 0; /* set by the caller between passes */

    if (col != 0 || group >= 4)
        return;
    if (node == 0)
        vs->incl_root[over][group] += incl;
    if (node == vs->s1)
        vs->excl_s1[over][group] += excl;
}

/* Per-thread values (the side file's content): the root holds each thread's total. */
static void
test_group_values(void **state)
{
    struct prof_ctx ctx;
    struct visit_sum vs;
    struct prof_input *in;
    uint32_t pf, s1;

    (void)state;
    db_init(&ctx, 1);
    pf = prof_tree_child(&ctx.tree, 0, CSP_SCOPE_PROC, 0, PROF_NONE, 0);
    s1 = prof_tree_child(&ctx.tree, pf, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 1);
    in = db_input(&ctx, 7, 1);
    db_value(&ctx, in, s1, 1.5);
    in = db_input(&ctx, 7, 2);
    db_value(&ctx, in, s1, 2.5);
    assert_int_equal(prof_finish(&ctx), 0);
    memset(&vs, 0, sizeof(vs));
    vs.s1 = s1;
    prof_group_values(&ctx, PROF_OVER_THREADS, visit_sum, &vs);
    ASSERT_NEAR(vs.incl_root[0][ctx.inputs[0].thread], 1.5);
    ASSERT_NEAR(vs.incl_root[0][ctx.inputs[1].thread], 2.5);
    ASSERT_NEAR(vs.excl_s1[0][ctx.inputs[1].thread], 2.5);
    vs.incl_root[0][3] = -1; /* second pass: processes */
    prof_group_values(&ctx, PROF_OVER_PROCESSES, visit_sum, &vs);
    ASSERT_NEAR(vs.incl_root[1][0], 4.0);
    prof_ctx_free(&ctx);
}

/*
 * Recursion: root > PF a > C > PF a > C > PF a > S (5), and root > PF a > S' (3).
 * The static procedure a has inclusive 8 (each sample once), not 5*3+3.
 */
static void
test_flat_recursion(void **state)
{
    struct prof_ctx ctx;
    uint32_t a1, c1, a2, c2, a3, s, s2, v;
    double sum_p_excl = 0, sum_s_excl = 0;
    const struct prof_flat *f = &ctx.flat;
    struct prof_input *in;

    (void)state;
    db_init(&ctx, 2);
    a1 = prof_tree_child(&ctx.tree, 0, CSP_SCOPE_PROC, 1, PROF_NONE, 0);
    c1 = prof_tree_child(&ctx.tree, a1, CSP_SCOPE_CALL, PROF_NONE, PROF_NONE, 10);
    a2 = prof_tree_child(&ctx.tree, c1, CSP_SCOPE_PROC, 1, PROF_NONE, 0);
    c2 = prof_tree_child(&ctx.tree, a2, CSP_SCOPE_CALL, PROF_NONE, PROF_NONE, 10);
    a3 = prof_tree_child(&ctx.tree, c2, CSP_SCOPE_PROC, 1, PROF_NONE, 0);
    s = prof_tree_child(&ctx.tree, a3, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 11);
    s2 = prof_tree_child(&ctx.tree, a1, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 12);
    in = db_input(&ctx, 1, 1);
    db_value(&ctx, in, s, 5);
    db_value(&ctx, in, s2, 3);
    assert_int_equal(prof_finish(&ctx), 0);

    /* CCT: inclusive = exclusive + children's inclusive for frames under call sites. */
    ASSERT_NEAR(prof_tree_incl(&ctx.tree, a1, 0), 8);
    ASSERT_NEAR(prof_tree_incl(&ctx.tree, a2, 0), 5);
    ASSERT_NEAR(prof_tree_excl(&ctx.tree, a1, 0), 3);
    /* static: root > LM > F > P(a) > {C(10), S(11), S(12)} */
    for (v = 1; v < f->n; v++) {
        const struct prof_flat_node *n = &f->nodes[v];

        if (n->kind == CSP_SCOPE_PROC) {
            assert_int_equal(n->id, 1);
            ASSERT_NEAR(f->incl[v * f->ncols], 8);
            ASSERT_NEAR(f->excl[v * f->ncols], 8);
            ASSERT_NEAR(f->incl[v * f->ncols + 1], 2); /* samples column */
            sum_p_excl += f->excl[v * f->ncols];
        }
        if (n->kind == CSP_SCOPE_CALL) /* the recursive call site: its callees, once: 5 */
            ASSERT_NEAR(f->incl[v * f->ncols], 5);
        if (n->kind == CSP_SCOPE_STMT)
            sum_s_excl += f->excl[v * f->ncols];
        if (n->kind == CSP_SCOPE_MODULE || n->kind == CSP_SCOPE_FILE) {
            ASSERT_NEAR(f->incl[v * f->ncols], 8);
            ASSERT_NEAR(f->excl[v * f->ncols], 8);
        }
        /* property: exclusive never exceeds inclusive; inclusive never exceeds the total */
        assert_true(f->excl[v * f->ncols] <= f->incl[v * f->ncols] + EPS);
        assert_true(f->incl[v * f->ncols] <= prof_tree_incl(&ctx.tree, 0, 0) + EPS);
    }
    /* static totals = CCT totals */
    ASSERT_NEAR(sum_p_excl, prof_tree_incl(&ctx.tree, 0, 0));
    ASSERT_NEAR(sum_s_excl, prof_tree_incl(&ctx.tree, 0, 0));
    ASSERT_NEAR(f->incl[0], prof_tree_incl(&ctx.tree, 0, 0));
    prof_ctx_free(&ctx);
}

/* Derived metric values and the one-line errors of bad expressions. */
static void
test_derived(void **state)
{
    static const struct {
        const char *spec;
        const char *want; /* substring of the error */
    } bad[] = {
        {"x=CPUTIME+", "position 11: operand expected at the end"},
        {"x=nosuch*2", "position 3: no metric of this name"},
        {"x=(CPUTIME", "position 11: ')' expected"},
        {"x=min(CPUTIME)", "position 14: ',' expected"},
        {"x=pow(2,3)", "position 3: unknown function"},
        {"x=2 3", "position 5: operator or end of expression expected"},
        {"=1", "position 1: the metric name is empty"},
        {"CPUTIME=1", "a metric of this name exists"},
        {"nothing", "expected NAME=EXPR"},
        {"x={CPU", "'}' expected"},
    };
    struct prof_ctx ctx;
    uint32_t pf, s1;
    struct prof_input *in;
    size_t i;

    (void)state;
    db_init(&ctx, 1);
    pf = prof_tree_child(&ctx.tree, 0, CSP_SCOPE_PROC, 0, PROF_NONE, 0);
    s1 = prof_tree_child(&ctx.tree, pf, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 1);
    in = db_input(&ctx, 1, 1);
    db_value(&ctx, in, s1, 6); /* CPUTIME 6, samples 1 */
    db_value(&ctx, in, s1, 2); /* CPUTIME 8, samples 2 */
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(prof_add_derived_metric(&ctx, bad[i].spec), PROF_EINVAL);
        if (strstr(prof_errmsg(&ctx), bad[i].want) == NULL)
            fail_msg("%s: got '%s', want '%s'", bad[i].spec, prof_errmsg(&ctx), bad[i].want);
        assert_non_null(strstr(prof_errmsg(&ctx), bad[i].spec)); /* names the expression */
    }
    assert_int_equal(ctx.nderived, 0);
    if (prof_add_derived_metric(&ctx, "per_sample=CPUTIME/samples") != 0)
        fail_msg("%s", prof_errmsg(&ctx));
    assert_int_equal(prof_add_derived_metric(&ctx, "expr = -(1 + 2) * max(CPUTIME, 10) / 2"), 0);
    assert_int_equal(prof_add_derived_metric(&ctx, "fn=sqrt({CPUTIME}) + log(1) + min(3, 2)"), 0);
    assert_int_equal(prof_add_derived_metric(&ctx, "zero=CPUTIME/(samples-samples)"), 0);
    assert_int_equal(prof_add_derived_metric(&ctx, "per_sample=1"), PROF_EINVAL); /* twice */
    assert_int_equal(prof_finish(&ctx), 0);
    assert_int_equal(prof_add_derived_metric(&ctx, "late=1"), PROF_ESTATE);
    ASSERT_NEAR(ctx.derived[0].incl[pf], 4);             /* 8 / 2 */
    ASSERT_NEAR(ctx.derived[1].incl[pf], -3.0 * 10 / 2); /* max(8, 10) = 10 */
    ASSERT_NEAR(ctx.derived[2].incl[pf], sqrt(8) + 0 + 2);
    ASSERT_NEAR(ctx.derived[3].incl[pf], 0); /* division by zero: 0 */
    ASSERT_NEAR(ctx.derived[0].incl[0], 4);  /* the root too */
    ASSERT_NEAR(ctx.derived[0].excl[s1], 4);
    assert_string_equal(ctx.derived[1].name, "expr");
    assert_string_equal(ctx.derived[1].formula, " -(1 + 2) * max(CPUTIME, 10) / 2");
    /* static view: the procedure's value as well */
    for (uint32_t v = 0; v < ctx.flat.n; v++)
        if (ctx.flat.nodes[v].kind == CSP_SCOPE_PROC)
            ASSERT_NEAR(ctx.derived[0].flat_incl[v], 4);
    prof_ctx_free(&ctx);
}

/*
 * A derived metric's exclusive value is the formula on the node's exclusive
 * values, its inclusive value the formula on the inclusive ones; they differ
 * wherever a frame has callees:
 *   root > PF main > S1 (CPUTIME 6 + 2, 2 samples)
 *                  > C > PF f > S2 (CPUTIME 4, 1 sample)
 *            CPUTIME incl/excl   samples incl/excl   half incl/excl   per_sample incl/excl
 *   root     12 / 0              3 / 0               6 / 0            4 / 0 (0/0: 0)
 *   main     12 / 8              3 / 2               6 / 4            4 / 4
 *   C         4 / 0              1 / 0               2 / 0            4 / 0 (0/0: 0)
 *   f         4 / 4              1 / 1               2 / 2            4 / 4
 */
static void
test_derived_exclusive(void **state)
{
    struct prof_ctx ctx;
    uint32_t main_pf, s1, c, f_pf, s2, v;
    const struct prof_derived *half, *per_sample;
    struct prof_input *in;
    int found = 0;

    (void)state;
    db_init(&ctx, 2);
    main_pf = prof_tree_child(&ctx.tree, 0, CSP_SCOPE_PROC, 0, PROF_NONE, 0);
    s1 = prof_tree_child(&ctx.tree, main_pf, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 1);
    c = prof_tree_child(&ctx.tree, main_pf, CSP_SCOPE_CALL, PROF_NONE, PROF_NONE, 2);
    f_pf = prof_tree_child(&ctx.tree, c, CSP_SCOPE_PROC, 1, PROF_NONE, 0);
    s2 = prof_tree_child(&ctx.tree, f_pf, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 3);
    in = db_input(&ctx, 1, 1);
    db_value(&ctx, in, s1, 6);
    db_value(&ctx, in, s1, 2);
    db_value(&ctx, in, s2, 4);
    assert_int_equal(prof_add_derived_metric(&ctx, "half=CPUTIME/2"), 0);
    assert_int_equal(prof_add_derived_metric(&ctx, "per_sample=CPUTIME/samples"), 0);
    assert_int_equal(prof_finish(&ctx), 0);
    half = &ctx.derived[0];
    per_sample = &ctx.derived[1];
    ASSERT_NEAR(half->incl[0], 6);
    ASSERT_NEAR(half->excl[0], 0);
    ASSERT_NEAR(half->incl[main_pf], 6);
    ASSERT_NEAR(half->excl[main_pf], 4);
    ASSERT_NEAR(half->incl[c], 2);
    ASSERT_NEAR(half->excl[c], 0);
    ASSERT_NEAR(half->incl[f_pf], 2);
    ASSERT_NEAR(half->excl[f_pf], 2);
    ASSERT_NEAR(half->excl[s1], 4);
    ASSERT_NEAR(half->excl[s2], 2);
    ASSERT_NEAR(per_sample->incl[0], 4);
    ASSERT_NEAR(per_sample->excl[0], 0);
    ASSERT_NEAR(per_sample->incl[main_pf], 4);
    ASSERT_NEAR(per_sample->excl[main_pf], 4);
    ASSERT_NEAR(per_sample->incl[c], 4);
    ASSERT_NEAR(per_sample->excl[c], 0);
    ASSERT_NEAR(per_sample->excl[f_pf], 4);
    /* at every node, on the tree's own values */
    for (v = 0; v < ctx.tree.n; v++) {
        ASSERT_NEAR(half->incl[v], prof_tree_incl(&ctx.tree, v, 0) / 2);
        ASSERT_NEAR(half->excl[v], prof_tree_excl(&ctx.tree, v, 0) / 2);
    }
    /* static view: procedure main, inclusive 12 and exclusive 8 (S1) */
    for (v = 0; v < ctx.flat.n; v++)
        if (ctx.flat.nodes[v].kind == CSP_SCOPE_PROC && ctx.flat.nodes[v].id == 0) {
            ASSERT_NEAR(half->flat_incl[v], 6);
            ASSERT_NEAR(half->flat_excl[v], 4);
            ASSERT_NEAR(per_sample->flat_excl[v], 4);
            found++;
        }
    assert_int_equal(found, 1);
    prof_ctx_free(&ctx);
}

/*
 * Allocation failure at every allocation of the pipeline after merging
 * (derived metric, finish, summary, database): each call returns 0 or
 * PROF_ENOMEM, never crashes, and the context can always be freed (run
 * under ASan by the asan-ubsan preset to catch double frees and leaks of
 * the context's own data).
 */
static void
test_oom_sweep(void **state)
{
    char dir[] = "/tmp/csprof-oom-XXXXXX";
    long budget;
    int failures = 0;

    (void)state;
    assert_non_null(mkdtemp(dir));
    for (budget = 0; budget < 100000; budget++) {
        struct prof_ctx ctx;
        struct prof_summary sum;
        struct prof_input *in;
        uint32_t pf, c, f, s1, s2;
        int rc;

        db_init(&ctx, 2);
        pf = prof_tree_child(&ctx.tree, 0, CSP_SCOPE_PROC, 0, PROF_NONE, 0);
        s1 = prof_tree_child(&ctx.tree, pf, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 1);
        c = prof_tree_child(&ctx.tree, pf, CSP_SCOPE_CALL, PROF_NONE, PROF_NONE, 2);
        f = prof_tree_child(&ctx.tree, c, CSP_SCOPE_PROC, 1, PROF_NONE, 0);
        s2 = prof_tree_child(&ctx.tree, f, CSP_SCOPE_STMT, PROF_NONE, PROF_NONE, 3);
        in = db_input(&ctx, 1, 1);
        db_value(&ctx, in, s1, 1);
        in = db_input(&ctx, 2, 2);
        db_value(&ctx, in, s2, 2);

        oom_region_begin();
        prof_test_alloc_budget = budget;
        rc = prof_add_derived_metric(&ctx, "d=CPUTIME*2");
        if (rc == 0)
            rc = prof_finish(&ctx);
        if (rc == 0) {
            rc = prof_summary_compute(&ctx, 5, &sum);
            if (rc == 0) {
                rc = prof_write_database(&ctx, &sum, dir);
                prof_summary_free(&sum);
            }
        }
        prof_test_alloc_budget = -1;
        oom_region_end();
        prof_ctx_free(&ctx);
        if (rc == 0)
            break;
        assert_int_equal(rc, PROF_ENOMEM);
        failures++;
    }
    assert_true(failures > 10); /* the sweep reached into every stage */
    assert_true(budget < 100000);
    {
        char cmd[64];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
        assert_int_equal(system(cmd), 0);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statistics),        cmocka_unit_test(test_group_values),
        cmocka_unit_test(test_flat_recursion),    cmocka_unit_test(test_derived),
        cmocka_unit_test(test_derived_exclusive), cmocka_unit_test(test_oom_sweep),
    };
    int n = (int)(sizeof(tests) / sizeof(tests[0]));
    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    return csp_test_finish((long)(n - failed), (long)failed);
}
