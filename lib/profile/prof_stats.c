/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_stats.c -- per-thread and per-process values of every node and their
 * summary statistics across threads and across processes.
 *
 * Tool code; never prints.  Each thread remembered the own (self) values it
 * gave tree nodes while it was merged (struct prof_contrib).  For one thread
 * (or all threads of one process together) those values are pushed up to
 * the root exactly as prof_tree_compute() does for the whole tree, but only
 * over the nodes the thread touched and their ancestors, so the cost is
 * proportional to the thread's own part of the tree, not to the tree.
 *
 * Statistics follow HPCToolkit's hpcprof (metric.cpp; reference notes
 * hpctoolkit.md, "Summary statistics across threads and ranks"): partial
 * sums of x, x^2, min, max and a count are accumulated per node and
 * finished as sum, mean, min, max, population standard deviation and
 * coefficient of variation.  Our choice for a thread or process that has
 * no value at a node: it counts as 0 (N = all threads or processes read),
 * so the mean shows load imbalance and the minimum is 0 when any thread
 * did not reach the node; the count of threads with a value is stored too,
 * so the mean over contributing threads only is sum / count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

enum { ACC_SUM = 0, ACC_SQ, ACC_MIN, ACC_MAX, ACC_COUNT };

static size_t
prof_acc_index(uint32_t nevents, uint32_t node, uint32_t e, int col, int over)
{
    return ((((size_t)node * nevents + e) * 2 + (size_t)col) * 2 + (size_t)over) * PROF_NACC;
}

/*
 * Scratch space for pushing one group's values up its part of the tree.
 * The touched nodes are a bitmap over the tree, walked from the highest
 * word down, which lists them in decreasing order without sorting.
 */
struct prof_scratch {
    uint32_t ncols;
    double *incl, *excl; /* [node * ncols + col] */
    uint64_t *mark;      /* bit per node */
    size_t nwords;
    uint32_t *list; /* touched nodes, decreasing (after prof_scratch_propagate) */
    size_t nlist;
};

static void
prof_scratch_add(struct prof_scratch *sc, const struct prof_tree *t, const struct prof_input *in)
{
    size_t k;

    for (k = 0; k < in->ncontrib; k++) {
        const struct prof_contrib *c = &in->contrib[k];
        uint32_t col = c->event == PROF_EV_SAMPLES ? sc->ncols - 1 : c->event;
        uint32_t v;

        sc->incl[(size_t)c->node * sc->ncols + col] += c->value;
        sc->excl[(size_t)c->node * sc->ncols + col] += c->value;
        for (v = c->node; v != PROF_NONE && !(sc->mark[v >> 6] >> (v & 63) & 1);
             v = t->nodes[v].parent) {
            sc->mark[v >> 6] |= 1ull << (v & 63);
            sc->nlist++;
        }
    }
}

/* Push the group's own values up (children have larger indices than parents). */
static void
prof_scratch_propagate(struct prof_scratch *sc, const struct prof_tree *t)
{
    size_t k, c, nc = sc->ncols;

    k = 0;
    for (size_t w = sc->nwords; w-- > 0;) {
        uint64_t bits = sc->mark[w];

        while (bits != 0) {
            int b = 63 - __builtin_clzll(bits);

            sc->list[k++] = (uint32_t)(w * 64 + (size_t)b);
            bits &= ~(1ull << b);
        }
    }
    for (k = 0; k < sc->nlist; k++) {
        uint32_t v = sc->list[k], p = t->nodes[v].parent;
        bool excl_up;

        if (p == PROF_NONE)
            continue;
        excl_up = t->nodes[v].kind != CSP_SCOPE_PROC && t->nodes[p].kind != CSP_SCOPE_CALL &&
                  t->nodes[p].kind != CSP_SCOPE_ROOT;
        for (c = 0; c < nc; c++) {
            sc->incl[(size_t)p * nc + c] += sc->incl[(size_t)v * nc + c];
            if (excl_up)
                sc->excl[(size_t)p * nc + c] += sc->excl[(size_t)v * nc + c];
        }
    }
}

static void
prof_scratch_reset(struct prof_scratch *sc)
{
    size_t k;

    for (k = 0; k < sc->nlist; k++) {
        uint32_t v = sc->list[k];

        sc->mark[v >> 6] = 0;
        memset(&sc->incl[(size_t)v * sc->ncols], 0, sc->ncols * sizeof(double));
        memset(&sc->excl[(size_t)v * sc->ncols], 0, sc->ncols * sizeof(double));
    }
    sc->nlist = 0;
}

static void
prof_scratch_init(struct prof_scratch *sc, const struct prof_ctx *ctx)
{
    size_t n = ctx->tree.n;

    memset(sc, 0, sizeof(*sc));
    sc->ncols = (uint32_t)ctx->nevents + 1;
    sc->incl = prof_xcalloc(n * sc->ncols, sizeof(double));
    sc->excl = prof_xcalloc(n * sc->ncols, sizeof(double));
    sc->nwords = (n + 63) / 64;
    sc->mark = prof_xcalloc(sc->nwords, sizeof(*sc->mark));
    sc->list = prof_xmalloc(n * sizeof(*sc->list));
}

static void
prof_scratch_free(struct prof_scratch *sc)
{
    free(sc->incl);
    free(sc->excl);
    free(sc->mark);
    free(sc->list);
}

/* Run @fn over the values of group @g of @over.  The scratch is reset afterwards. */
static void
prof_group_run(struct prof_ctx *ctx, struct prof_scratch *sc, int over, uint32_t g,
               prof_group_visit_fn *fn, void *arg)
{
    const struct prof_stats *st = &ctx->stats;
    size_t k, c;

    for (k = st->start[over][g]; k < st->start[over][g + 1]; k++)
        prof_scratch_add(sc, &ctx->tree, &ctx->inputs[st->member[over][k]]);
    prof_scratch_propagate(sc, &ctx->tree);
    for (k = 0; k < sc->nlist; k++) {
        uint32_t v = sc->list[k];

        for (c = 0; c < sc->ncols; c++) {
            double in = sc->incl[(size_t)v * sc->ncols + c],
                   ex = sc->excl[(size_t)v * sc->ncols + c];

            if (in != 0.0 || ex != 0.0)
                fn(g, v, (uint32_t)c, in, ex, arg);
        }
    }
    prof_scratch_reset(sc);
}

struct prof_acc_arg {
    struct prof_stats *st;
    int over;
};

static void prof_acc_visit(uint32_t group, uint32_t node, uint32_t col, double incl, double excl,
                           void *arg);

static void
prof_acc_one(double *a, double x)
{
    if (x == 0.0)
        return;
    a[ACC_SUM] += x;
    a[ACC_SQ] += x * x;
    a[ACC_MIN] = a[ACC_COUNT] == 0 || x < a[ACC_MIN] ? x : a[ACC_MIN];
    a[ACC_MAX] = a[ACC_COUNT] == 0 || x > a[ACC_MAX] ? x : a[ACC_MAX];
    a[ACC_COUNT] += 1;
}

static void
prof_acc_visit(uint32_t group, uint32_t node, uint32_t col, double incl, double excl, void *arg)
{
    struct prof_acc_arg *a = arg;
    struct prof_stats *st = a->st;

    (void)group;
    if (col >= st->nevents)
        return; /* sample counts: no statistics */
    prof_acc_one(&st->acc[prof_acc_index(st->nevents, node, col, 0, a->over)], incl);
    prof_acc_one(&st->acc[prof_acc_index(st->nevents, node, col, 1, a->over)], excl);
}

/* Group index of each read input: threads by (host, pid, generation, tid), processes without tid. */
static void
prof_stats_groups(struct prof_ctx *ctx, int over, uint32_t *ngroups)
{
    struct prof_stats *st = &ctx->stats;
    struct csp_strtab hosts = {0};
    struct prof_map seen = {0};
    uint32_t *group = prof_xmalloc((ctx->ninputs + 1) * sizeof(*group));
    uint32_t n = 0, g;
    size_t i, nmember = 0;

    for (i = 0; i < ctx->ninputs; i++) {
        const struct prof_input *in = &ctx->inputs[i];
        uint64_t host, who, tid;

        group[i] = PROF_NONE;
        if (in->error != NULL || !in->merged)
            continue;
        host = prof_intern(&hosts, in->host);
        who = (uint64_t)in->pid << 32 | in->generation;
        tid = over == PROF_OVER_THREADS ? in->tid : 0;
        g = prof_map_get(&seen, host, who, tid);
        if (g == PROF_NONE) {
            g = n++;
            prof_map_put(&seen, host, who, tid, g);
        }
        group[i] = g;
        nmember++;
    }
    prof_map_free(&seen);
    csp_strtab_free(&hosts);
    /* Counting sort of inputs by group: CSR lists. */
    st->start[over] = prof_xcalloc((size_t)n + 1, sizeof(uint32_t));
    st->member[over] = prof_xmalloc((nmember + 1) * sizeof(uint32_t));
    for (i = 0; i < ctx->ninputs; i++)
        if (group[i] != PROF_NONE)
            st->start[over][group[i] + 1]++;
    for (g = 0; g < n; g++)
        st->start[over][g + 1] += st->start[over][g];
    {
        uint32_t *fill = prof_xmalloc(((size_t)n + 1) * sizeof(*fill));

        memcpy(fill, st->start[over], ((size_t)n + 1) * sizeof(*fill));
        for (i = 0; i < ctx->ninputs; i++)
            if (group[i] != PROF_NONE) {
                st->member[over][fill[group[i]]++] = (uint32_t)i;
                if (over == PROF_OVER_THREADS)
                    ctx->inputs[i].thread = group[i];
                else
                    ctx->inputs[i].process = group[i];
            }
        free(fill);
    }
    free(group);
    *ngroups = n;
}

void
prof_stats_groups_compute(struct prof_ctx *ctx)
{
    struct prof_stats *st = &ctx->stats;

    prof_stats_free(st);
    st->nevents = (uint32_t)ctx->nevents;
    prof_stats_groups(ctx, PROF_OVER_THREADS, &st->nthreads);
    prof_stats_groups(ctx, PROF_OVER_PROCESSES, &st->nprocesses);
}

/* Collects one process's values from its threads' (prof_stats_accumulate). */
struct prof_fused {
    struct prof_ctx *ctx;
    struct prof_scratch *proc; /* the process's sums; its list is in marking order */
    prof_group_visit_fn *fn;
    void *arg;
};

static void
prof_fused_visit(uint32_t group, uint32_t node, uint32_t col, double incl, double excl, void *arg)
{
    struct prof_fused *fu = arg;
    struct prof_scratch *ps = fu->proc;
    struct prof_acc_arg acc = {&fu->ctx->stats, PROF_OVER_THREADS};

    prof_acc_visit(group, node, col, incl, excl, &acc);
    if (fu->fn != NULL)
        fu->fn(group, node, col, incl, excl, fu->arg);
    if (!(ps->mark[node >> 6] >> (node & 63) & 1)) {
        ps->mark[node >> 6] |= 1ull << (node & 63);
        ps->list[ps->nlist++] = node;
    }
    ps->incl[(size_t)node * ps->ncols + col] += incl;
    ps->excl[(size_t)node * ps->ncols + col] += excl;
}

void
prof_stats_accumulate(struct prof_ctx *ctx, prof_group_visit_fn *fn, void *arg)
{
    struct prof_stats *st = &ctx->stats;
    struct prof_scratch sc, ps;
    struct prof_fused fu = {ctx, &ps, fn, arg};
    struct prof_acc_arg pacc = {st, PROF_OVER_PROCESSES};
    uint32_t *seen, p, g;
    size_t k, c;

    free(st->acc);
    st->acc = NULL;
    st->acc = prof_xcalloc(prof_acc_index(st->nevents, (uint32_t)ctx->tree.n, 0, 0, 0) + 1,
                           sizeof(double));
    seen = prof_xcalloc((size_t)st->nthreads + 1, sizeof(*seen));
    prof_scratch_init(&sc, ctx);
    prof_scratch_init(&ps, ctx);
    /* One propagation per thread; a process is the sum of its threads' results. */
    for (p = 0; p < st->nprocesses; p++) {
        for (k = st->start[PROF_OVER_PROCESSES][p]; k < st->start[PROF_OVER_PROCESSES][p + 1];
             k++) {
            g = ctx->inputs[st->member[PROF_OVER_PROCESSES][k]].thread;
            if (seen[g])
                continue; /* a thread with several inputs: done with its first */
            seen[g] = 1;
            prof_group_run(ctx, &sc, PROF_OVER_THREADS, g, prof_fused_visit, &fu);
        }
        for (k = 0; k < ps.nlist; k++) {
            uint32_t v = ps.list[k];

            for (c = 0; c < ps.ncols; c++)
                prof_acc_visit(p, v, (uint32_t)c, ps.incl[(size_t)v * ps.ncols + c],
                               ps.excl[(size_t)v * ps.ncols + c], &pacc);
        }
        prof_scratch_reset(&ps);
    }
    prof_scratch_free(&ps);
    prof_scratch_free(&sc);
    free(seen);
}

void
prof_group_values(struct prof_ctx *ctx, int over, prof_group_visit_fn *fn, void *arg)
{
    uint32_t g, ng = over == PROF_OVER_THREADS ? ctx->stats.nthreads : ctx->stats.nprocesses;
    struct prof_scratch sc;

    prof_scratch_init(&sc, ctx);
    for (g = 0; g < ng; g++)
        prof_group_run(ctx, &sc, over, g, fn, arg);
    prof_scratch_free(&sc);
}

double
prof_stats_get(const struct prof_ctx *ctx, uint32_t node, uint32_t event, int col, int over,
               enum prof_stat_kind k)
{
    const struct prof_stats *st = &ctx->stats;
    const double *a;
    double n, mean, var, sd;

    if (st->acc == NULL || event >= st->nevents)
        return 0.0;
    a = &st->acc[prof_acc_index(st->nevents, node, event, col, over)];
    n = over == PROF_OVER_THREADS ? st->nthreads : st->nprocesses;
    if (n == 0)
        return 0.0;
    mean = a[ACC_SUM] / n;
    var = a[ACC_SQ] / n - mean * mean;
    sd = var > 0.0 ? sqrt(var) : 0.0;
    switch (k) {
    case PROF_STAT_SUM:
        return a[ACC_SUM];
    case PROF_STAT_MEAN:
        return mean;
    case PROF_STAT_MIN:
        return a[ACC_COUNT] < n ? 0.0 : a[ACC_MIN];
    case PROF_STAT_MAX:
        return a[ACC_MAX];
    case PROF_STAT_STDDEV:
        return sd;
    case PROF_STAT_CV:
        return mean != 0.0 ? sd / mean : 0.0;
    case PROF_STAT_COUNT:
        return a[ACC_COUNT];
    default:
        return 0.0;
    }
}

void
prof_stats_free(struct prof_stats *st)
{
    free(st->acc);
    free(st->member[0]);
    free(st->member[1]);
    free(st->start[0]);
    free(st->start[1]);
    memset(st, 0, sizeof(*st));
}
