/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_xml.c -- write DB/experiment.xml (share/schemas/experiment.dtd) with
 * libxml2's xmlTextWriter.
 *
 * Tool code; never prints.  The document is written to "experiment.xml.tmp" and renamed
 * over experiment.xml only when complete, so a failed run never leaves a
 * half-written database behind.  The call tree is walked without recursion
 * (recursive programs make deep trees) and written without indentation
 * (indentation would grow quadratically with depth); the tables are
 * indented.  libxml2 errors are translated here, at one boundary.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/xmlwriter.h>

#include "profile_internal.h"
#include "support/text.h"

/* The writer and its first error: after one failure every call is a no-op. */
struct prof_xw {
    xmlTextWriterPtr w;
    int failed;
    int saved_errno;
};

static void
prof_xw_check(struct prof_xw *x, int rc)
{
    if (rc < 0 && !x->failed) {
        x->failed = 1;
        x->saved_errno = errno;
    }
}

static void
prof_xw_start(struct prof_xw *x, const char *name)
{
    if (!x->failed)
        prof_xw_check(x, xmlTextWriterStartElement(x->w, BAD_CAST name));
}

static void
prof_xw_end(struct prof_xw *x)
{
    if (!x->failed)
        prof_xw_check(x, xmlTextWriterEndElement(x->w));
}

/*
 * Strings from measurement files and binaries (paths, command lines,
 * procedure names) are bytes, not necessarily UTF-8: a byte that XML
 * cannot hold, or a control character, is written as "\xNN"
 * (support/text.h), so one odd name cannot make the database unwritable or
 * unreadable.
 */
static void
prof_xw_attr(struct prof_xw *x, const char *name, const char *value)
{
    char *copy = NULL;

    if (x->failed)
        return;
    if (value == NULL)
        value = "";
    if (!text_clean(value)) {
        copy = prof_xmalloc(text_escaped_size(value));
        text_escape(copy, value);
        value = copy;
    }
    prof_xw_check(x, xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value));
    free(copy);
}

static void __attribute__((format(printf, 3, 4)))
prof_xw_attrf(struct prof_xw *x, const char *name, const char *fmt, ...)
{
    char buf[64];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    prof_xw_attr(x, name, buf);
}

static void
prof_xw_u64(struct prof_xw *x, const char *name, uint64_t v)
{
    prof_xw_attrf(x, name, "%llu", (unsigned long long)v);
}

/* Metric values: 15 significant digits print ns sums in seconds exactly. */
static void
prof_xw_dbl(struct prof_xw *x, const char *name, double v)
{
    prof_xw_attrf(x, name, "%.15g", v);
}

/* An index attribute, left out when PROF_NONE. */
static void
prof_xw_index(struct prof_xw *x, const char *name, uint32_t v)
{
    if (v != PROF_NONE)
        prof_xw_u64(x, name, v);
}

static void
prof_xw_line(struct prof_xw *x, uint32_t line)
{
    if (line != 0)
        prof_xw_u64(x, "l", line);
}

/*
 * Metric ids: 2e / 2e+1 per event; then samples; then calls (when any);
 * then 2 per derived metric; then the statistics of each event
 * (prof_metric_stat).
 */
static uint32_t
prof_metric_samples(const struct prof_ctx *ctx)
{
    return (uint32_t)(2 * ctx->nevents);
}

static uint32_t
prof_metric_derived(const struct prof_ctx *ctx, size_t d)
{
    return prof_metric_samples(ctx) + 2 + (ctx->total_calls > 0) + 2 * (uint32_t)d;
}

/*
 * Whether the database has statistics over @over: only where they carry
 * something.  Over one thread (process) every statistic is the node's own
 * value or 0; and when every process has one thread (as many threads as
 * processes) the statistics over threads are those over processes, so
 * only the latter are written.
 */
static bool
prof_stats_over(const struct prof_ctx *ctx, int over)
{
    if (over == PROF_OVER_PROCESSES)
        return ctx->stats.nprocesses > 1;
    return ctx->stats.nthreads > 1 && ctx->stats.nthreads > ctx->stats.nprocesses;
}

/*
 * The statistics written per event and population: every kind but the sum,
 * which is the summarized metric's own value at every node.
 */
#define PROF_NSTAT_WRITTEN (PROF_NSTAT_KINDS - 1)

static uint32_t
prof_metric_stat(const struct prof_ctx *ctx, uint32_t e, int over, int k, int col)
{
    uint32_t base = prof_metric_derived(ctx, ctx->nderived);
    uint32_t nover = (uint32_t)prof_stats_over(ctx, PROF_OVER_THREADS) +
                     (uint32_t)prof_stats_over(ctx, PROF_OVER_PROCESSES);
    uint32_t o = over == PROF_OVER_PROCESSES && prof_stats_over(ctx, PROF_OVER_THREADS);

    return base + (((e * nover + o) * PROF_NSTAT_WRITTEN + (uint32_t)(k - 1)) * 2 + (uint32_t)col);
}

static const char *const prof_stat_names[PROF_NSTAT_KINDS] = {
    "sum", "mean", "min", "max", "stddev", "cv", "count",
};
static const char *const prof_over_names[2] = {"threads", "processes"};

/* One sparse metric value. */
static void
prof_xw_m(struct prof_xw *x, uint32_t id, double v)
{
    if (v == 0.0)
        return;
    prof_xw_start(x, "M");
    prof_xw_u64(x, "n", id);
    prof_xw_dbl(x, "v", v);
    prof_xw_end(x);
}

/* end="0xEND" of a loop without a line: its code is a..end (half-open), its only name. */
static void
prof_xw_loop_end(struct prof_xw *x, uint64_t offset, uint32_t span)
{
    if (offset != PROF_NO_OFFSET && span != 0)
        prof_xw_attrf(x, "end", "0x%llx", (unsigned long long)(offset + span));
}

/* a="0xOFFSET" (module-relative), left out when unknown. */
static void
prof_xw_offset(struct prof_xw *x, uint32_t module, uint64_t offset)
{
    if (offset == PROF_NO_OFFSET)
        return;
    prof_xw_index(x, "lm", module);
    prof_xw_attrf(x, "a", "0x%llx", (unsigned long long)offset);
}

static void
prof_xw_metric(struct prof_xw *x, uint32_t i, const char *n, bool incl, const char *event,
               const char *unit, bool partner)
{
    prof_xw_start(x, "Metric");
    prof_xw_u64(x, "i", i);
    prof_xw_attr(x, "n", n);
    prof_xw_attr(x, "t", incl ? "inclusive" : "exclusive");
    prof_xw_attr(x, "event", event);
    prof_xw_attr(x, "unit", unit);
    if (partner)
        prof_xw_u64(x, "partner", incl ? i + 1 : i - 1);
}

static void
prof_write_metric_table(struct prof_xw *x, const struct prof_ctx *ctx)
{
    uint32_t e, ms = prof_metric_samples(ctx);
    char *n;

    prof_xw_start(x, "MetricTable");
    for (e = 0; e < ctx->nevents; e++) {
        const struct prof_event *ev = &ctx->events[e];
        int k;

        for (k = 0; k < 2; k++) {
            n = prof_xasprintf("%s (%s)", ev->name, k == 0 ? "I" : "E");
            prof_xw_metric(x, 2 * e + (uint32_t)k, n, k == 0, ev->name, ev->display_unit, true);
            free(n);
            prof_xw_attr(x, "raw-unit", ev->unit);
            prof_xw_u64(x, "period", ev->period);
            if (ev->mixed_periods)
                prof_xw_attr(x, "mixed-periods", "1");
            prof_xw_attr(x, "mechanism", ev->mechanism);
            prof_xw_end(x);
        }
    }
    prof_xw_metric(x, ms, "samples (I)", true, "samples", "samples", true);
    prof_xw_end(x);
    prof_xw_metric(x, ms + 1, "samples (E)", false, "samples", "samples", true);
    prof_xw_end(x);
    if (ctx->total_calls > 0) {
        prof_xw_metric(x, ms + 2, "calls (sampled)", false, "calls", "calls", false);
        prof_xw_end(x);
    }
    for (size_t d = 0; d < ctx->nderived; d++) {
        for (int k = 0; k < 2; k++) {
            n = prof_xasprintf("%s (%s)", ctx->derived[d].name, k == 0 ? "I" : "E");
            prof_xw_metric(x, prof_metric_derived(ctx, d) + (uint32_t)k, n, k == 0,
                           ctx->derived[d].name, "derived", true);
            free(n);
            prof_xw_attr(x, "formula", ctx->derived[d].formula);
            prof_xw_end(x);
        }
    }
    for (e = 0; e < ctx->nevents; e++)
        for (int over = 0; over < 2; over++)
            for (int k = PROF_STAT_SUM + 1; k < PROF_NSTAT_KINDS && prof_stats_over(ctx, over); k++)
                for (int col = 0; col < 2; col++) {
                    uint32_t id = prof_metric_stat(ctx, e, over, k, col);

                    n = prof_xasprintf("%s:%s over %s (%s)", ctx->events[e].name,
                                       prof_stat_names[k], prof_over_names[over],
                                       col == 0 ? "I" : "E");
                    prof_xw_metric(x, id, n, col == 0, ctx->events[e].name,
                                   k == PROF_STAT_COUNT ? prof_over_names[over]
                                   : k == PROF_STAT_CV  ? "ratio"
                                                        : ctx->events[e].display_unit,
                                   true);
                    free(n);
                    prof_xw_attr(x, "stat", prof_stat_names[k]);
                    prof_xw_attr(x, "over", prof_over_names[over]);
                    prof_xw_u64(x, "of", 2 * e + (uint32_t)col);
                    prof_xw_u64(x, "population",
                                over == PROF_OVER_THREADS ? ctx->stats.nthreads
                                                          : ctx->stats.nprocesses);
                    prof_xw_attr(x, "show", "0"); /* up to 24 columns per event: hidden */
                    prof_xw_end(x);
                }
    prof_xw_end(x);
}

static void
prof_write_tables(struct prof_xw *x, const struct prof_ctx *ctx)
{
    static const char *const state[] = {"unused", "file", "analyzed", "none", "changed"};
    size_t i;

    prof_xw_start(x, "LoadModuleTable");
    for (i = 0; i < ctx->nmodules; i++) {
        const struct prof_module *m = &ctx->modules[i];

        prof_xw_start(x, "LoadModule");
        prof_xw_u64(x, "i", i);
        prof_xw_attr(x, "n", m->path);
        if (m->build_id[0] != '\0')
            prof_xw_attr(x, "build-id", m->build_id);
        prof_xw_attr(x, "structure", state[m->state]);
        if (m->source != NULL)
            prof_xw_attr(x, "source", m->source);
        if (m->why != NULL)
            prof_xw_attr(x, "note", m->why);
        prof_xw_end(x);
    }
    prof_xw_end(x);

    prof_xw_start(x, "FileTable");
    for (i = 0; i < ctx->nfiles; i++) {
        prof_xw_start(x, "File");
        prof_xw_u64(x, "i", i);
        prof_xw_attr(x, "n", ctx->strs.strs[ctx->files[i].name]);
        if (ctx->file_src != NULL && ctx->file_src[i] != NULL)
            prof_xw_attr(x, "src", ctx->file_src[i]);
        prof_xw_end(x);
    }
    prof_xw_end(x);

    prof_xw_start(x, "ProcedureTable");
    for (i = 0; i < ctx->nprocs; i++) {
        const struct prof_proc *p = &ctx->procs[i];

        prof_xw_start(x, "Procedure");
        prof_xw_u64(x, "i", i);
        prof_xw_attr(x, "n", ctx->strs.strs[p->name]);
        if (p->link_name != PROF_NONE)
            prof_xw_attr(x, "link-name", ctx->strs.strs[p->link_name]);
        prof_xw_index(x, "lm", p->module);
        prof_xw_index(x, "f", p->file);
        prof_xw_line(x, p->line);
        if (p->unknown)
            prof_xw_attr(x, "unknown", "1");
        prof_xw_end(x);
    }
    prof_xw_end(x);
}

/*
 * The sparse metric values of one node: nonzero values only.  Where one
 * thread (process) alone has a value v (count 1), its statistics are count
 * alone: over N, mean = v / N, min = 0, max = v, stddev = v sqrt(N - 1) / N,
 * cv = sqrt(N - 1) (experiment.dtd; lib/report/db_read.c fills them in).
 */
static void
prof_write_node_metrics(struct prof_xw *x, const struct prof_ctx *ctx, uint32_t node)
{
    const struct prof_tree *t = &ctx->tree;
    uint32_t e, ms = prof_metric_samples(ctx);
    double v;

    for (e = 0; e < ctx->nevents; e++) {
        if ((v = prof_tree_incl(t, node, e)) != 0.0) {
            prof_xw_start(x, "M");
            prof_xw_u64(x, "n", 2 * e);
            prof_xw_dbl(x, "v", v);
            prof_xw_end(x);
        }
        if ((v = prof_tree_excl(t, node, e)) != 0.0) {
            prof_xw_start(x, "M");
            prof_xw_u64(x, "n", 2 * e + 1);
            prof_xw_dbl(x, "v", v);
            prof_xw_end(x);
        }
    }
    if (t->incl_samples[node] != 0) {
        prof_xw_start(x, "M");
        prof_xw_u64(x, "n", ms);
        prof_xw_u64(x, "v", t->incl_samples[node]);
        prof_xw_end(x);
    }
    if (t->excl_samples[node] != 0) {
        prof_xw_start(x, "M");
        prof_xw_u64(x, "n", ms + 1);
        prof_xw_u64(x, "v", t->excl_samples[node]);
        prof_xw_end(x);
    }
    if (ctx->total_calls > 0 && t->nodes[node].calls != 0) {
        prof_xw_start(x, "M");
        prof_xw_u64(x, "n", ms + 2);
        prof_xw_u64(x, "v", t->nodes[node].calls);
        prof_xw_end(x);
    }
    for (size_t d = 0; d < ctx->nderived; d++) {
        prof_xw_m(x, prof_metric_derived(ctx, d), ctx->derived[d].incl[node]);
        prof_xw_m(x, prof_metric_derived(ctx, d) + 1, ctx->derived[d].excl[node]);
    }
    for (e = 0; e < ctx->nevents; e++)
        for (int over = 0; over < 2; over++)
            for (int col = 0; col < 2 && prof_stats_over(ctx, over); col++) {
                double count = prof_stats_get(ctx, node, e, col, over, PROF_STAT_COUNT);

                if (count == 0.0)
                    continue; /* no thread has a value: every statistic is 0 */
                for (int k = PROF_STAT_SUM + 1; k < PROF_NSTAT_KINDS; k++)
                    if (count != 1.0 || k == PROF_STAT_COUNT) /* count 1: the rest follows */
                        prof_xw_m(x, prof_metric_stat(ctx, e, over, k, col),
                                  prof_stats_get(ctx, node, e, col, over, (enum prof_stat_kind)k));
            }
}

static void
prof_write_node_open(struct prof_xw *x, const struct prof_ctx *ctx, uint32_t v)
{
    static const char *const tag[CSP_SCOPE_NKINDS] = {
        [CSP_SCOPE_ROOT] = "",  [CSP_SCOPE_PROC] = "PF", [CSP_SCOPE_INLINE] = "A",
        [CSP_SCOPE_LOOP] = "L", [CSP_SCOPE_CALL] = "C",  [CSP_SCOPE_STMT] = "S"};
    const struct prof_node *n = &ctx->tree.nodes[v];

    if (!x->failed)
        prof_xw_check(x, xmlTextWriterWriteRaw(x->w, BAD_CAST "\n"));
    prof_xw_start(x, tag[n->kind]);
    prof_xw_u64(x, "i", v);
    if (n->kind == CSP_SCOPE_PROC) {
        const struct prof_proc *p = &ctx->procs[n->proc];

        prof_xw_u64(x, "n", n->proc);
        prof_xw_index(x, "lm", p->module);
        prof_xw_index(x, "f", p->file);
        prof_xw_line(x, p->line);
        if (n->offset != PROF_NO_OFFSET)
            prof_xw_attrf(x, "a", "0x%llx", (unsigned long long)n->offset);
    } else {
        if (n->kind == CSP_SCOPE_INLINE)
            prof_xw_u64(x, "n", n->proc);
        prof_xw_index(x, "f", n->file);
        prof_xw_line(x, n->line);
        prof_xw_offset(x, n->module, n->offset);
        if (n->kind == CSP_SCOPE_LOOP)
            prof_xw_loop_end(x, n->offset, n->span);
    }
    prof_write_node_metrics(x, ctx, v);
}

/*
 * Deepest nesting of call-tree elements (PF, C, L, A, S) the database
 * writes.  libxml2 refuses documents nested deeper than 256 levels without
 * XML_PARSE_HUGE and, from 2.12 on, deeper than 2048 even with it; and its
 * DTD validation recurses once per level.  A path nested deeper ends, at
 * this depth, in one <T> element that holds the totals of what was cut, so
 * every database stays readable and its inclusive values stay exact.
 */
#define PROF_XML_MAX_DEPTH 2000

/*
 * Write <T> for the subtree below @v, cut at the depth limit: its metrics
 * are the inclusive totals of @v's children (inclusive and exclusive alike:
 * nothing of it appears elsewhere), nodes= how many tree nodes were cut and
 * levels= how deep the cut part goes.  Iterative over the subtree.
 */
static void
prof_write_truncated(struct prof_xw *x, const struct prof_ctx *ctx, uint32_t v)
{
    const struct prof_tree *t = &ctx->tree;
    const struct prof_node *nodes = t->nodes;
    uint32_t e, ms = prof_metric_samples(ctx), c;
    uint64_t ncut = 0, samples = 0;
    size_t d = 1, levels = 0;

    prof_xw_start(x, "T");
    /* Count the cut nodes and levels: preorder walk of v's subtree. */
    for (c = nodes[v].first_child; c != PROF_NONE;) {
        ncut++;
        levels = d > levels ? d : levels;
        if (nodes[c].first_child != PROF_NONE) {
            c = nodes[c].first_child;
            d++;
            continue;
        }
        while (c != PROF_NONE && nodes[c].next_sibling == PROF_NONE) {
            c = nodes[c].parent;
            d--;
            if (c == v)
                c = PROF_NONE;
        }
        if (c != PROF_NONE)
            c = nodes[c].next_sibling;
    }
    prof_xw_u64(x, "nodes", ncut);
    prof_xw_u64(x, "levels", levels);
    for (e = 0; e < ctx->nevents; e++) {
        double sum = 0.0;

        for (c = nodes[v].first_child; c != PROF_NONE; c = nodes[c].next_sibling)
            sum += prof_tree_incl(t, c, e);
        for (int col = 0; col < 2 && sum != 0.0; col++) {
            prof_xw_start(x, "M");
            prof_xw_u64(x, "n", 2 * e + (uint32_t)col);
            prof_xw_dbl(x, "v", sum);
            prof_xw_end(x);
        }
    }
    for (c = nodes[v].first_child; c != PROF_NONE; c = nodes[c].next_sibling)
        samples += t->incl_samples[c];
    for (int col = 0; col < 2 && samples != 0; col++) {
        prof_xw_start(x, "M");
        prof_xw_u64(x, "n", ms + (uint32_t)col);
        prof_xw_u64(x, "v", samples);
        prof_xw_end(x);
    }
    prof_xw_end(x);
}

static void
prof_write_tree(struct prof_xw *x, struct prof_ctx *ctx)
{
    const struct prof_node *nodes = ctx->tree.nodes;
    size_t depth = 1, truncated = 0; /* depth of v: the root's children are at 1 */
    uint32_t v;

    prof_xw_start(x, "SecCallPathProfileData");
    if (!x->failed)
        prof_xw_check(x, xmlTextWriterSetIndent(x->w, 0));
    prof_write_node_metrics(x, ctx, 0);
    v = nodes[0].first_child;
    while (v != PROF_NONE && !x->failed) {
        prof_write_node_open(x, ctx, v);
        if (nodes[v].first_child != PROF_NONE && depth == PROF_XML_MAX_DEPTH) {
            prof_write_truncated(x, ctx, v);
            truncated++;
        } else if (nodes[v].first_child != PROF_NONE) {
            v = nodes[v].first_child;
            depth++;
            continue;
        }
        for (;;) { /* close v and every ancestor whose last child it ends */
            prof_xw_end(x);
            if (nodes[v].next_sibling != PROF_NONE) {
                v = nodes[v].next_sibling;
                break;
            }
            v = nodes[v].parent;
            depth--;
            if (v == 0) {
                v = PROF_NONE;
                break;
            }
        }
    }
    if (truncated > 0)
        prof_msg(ctx, PROF_MSG_WARNING,
                 "%zu call path(s) nest deeper than %d levels; the database ends each at that "
                 "depth in a <T> element holding the totals of the rest",
                 truncated, PROF_XML_MAX_DEPTH);
    if (!x->failed)
        prof_xw_check(x, xmlTextWriterWriteRaw(x->w, BAD_CAST "\n"));
    prof_xw_end(x);
    if (!x->failed)
        prof_xw_check(x, xmlTextWriterSetIndent(x->w, 1));
}

/* The M values of static-view node @v: events, samples, derived metrics. */
static void
prof_write_flat_metrics(struct prof_xw *x, const struct prof_ctx *ctx, uint32_t v)
{
    const struct prof_flat *f = &ctx->flat;
    uint32_t e, ms = prof_metric_samples(ctx);

    for (e = 0; e < f->ncols; e++) {
        uint32_t id = e < ctx->nevents ? 2 * e : ms;

        prof_xw_m(x, id, f->incl[(size_t)v * f->ncols + e]);
        prof_xw_m(x, id + 1, f->excl[(size_t)v * f->ncols + e]);
    }
    for (size_t d = 0; d < ctx->nderived; d++) {
        prof_xw_m(x, prof_metric_derived(ctx, d), ctx->derived[d].flat_incl[v]);
        prof_xw_m(x, prof_metric_derived(ctx, d) + 1, ctx->derived[d].flat_excl[v]);
    }
}

static void
prof_write_flat_open(struct prof_xw *x, const struct prof_ctx *ctx, uint32_t v)
{
    static const char *const tag[CSP_SCOPE_NKINDS] = {
        [CSP_SCOPE_ROOT] = "",        [CSP_SCOPE_MODULE] = "StaticLM", [CSP_SCOPE_FILE] = "StaticF",
        [CSP_SCOPE_PROC] = "StaticP", [CSP_SCOPE_INLINE] = "StaticA",  [CSP_SCOPE_LOOP] = "StaticL",
        [CSP_SCOPE_CALL] = "StaticC", [CSP_SCOPE_STMT] = "StaticS"};
    const struct prof_flat_node *n = &ctx->flat.nodes[v];

    prof_xw_start(x, tag[n->kind]);
    prof_xw_u64(x, "i", v);
    switch (n->kind) {
    case CSP_SCOPE_MODULE:
        prof_xw_index(x, "lm", n->id);
        break;
    case CSP_SCOPE_FILE:
        prof_xw_index(x, "f", n->id);
        break;
    case CSP_SCOPE_PROC:
    case CSP_SCOPE_INLINE:
        prof_xw_u64(x, "n", n->id);
        prof_xw_index(x, "f", n->file);
        prof_xw_line(x, n->line);
        prof_xw_offset(x, n->module, n->offset);
        break;
    default:
        prof_xw_index(x, "f", n->file);
        prof_xw_line(x, n->line);
        prof_xw_offset(x, n->module, n->offset);
        if (n->kind == CSP_SCOPE_LOOP)
            prof_xw_loop_end(x, n->offset, n->span);
        break;
    }
    prof_write_flat_metrics(x, ctx, v);
}

/* SecFlatProfileData: the static view (prof_flat.c), depth-first without recursion. */
static void
prof_write_flat(struct prof_xw *x, const struct prof_ctx *ctx)
{
    const struct prof_flat_node *nodes = ctx->flat.nodes;
    uint32_t v;

    prof_xw_start(x, "SecFlatProfileData");
    prof_write_flat_metrics(x, ctx, 0);
    v = ctx->flat.n > 0 ? nodes[0].first_child : PROF_NONE;
    while (v != PROF_NONE && !x->failed) {
        prof_write_flat_open(x, ctx, v);
        if (nodes[v].first_child != PROF_NONE) {
            v = nodes[v].first_child;
            continue;
        }
        for (;;) {
            prof_xw_end(x);
            if (nodes[v].next_sibling != PROF_NONE) {
                v = nodes[v].next_sibling;
                break;
            }
            v = nodes[v].parent;
            if (v == 0) {
                v = PROF_NONE;
                break;
            }
        }
    }
    prof_xw_end(x);
}

static double
prof_percent(double part, double whole)
{
    return whole != 0.0 ? 100.0 * part / whole : 0.0;
}

/* One event's ledger (lib/trust): its parts, raw unit. */
static void
prof_write_ledger(struct prof_xw *x, const struct trust_event *e)
{
    prof_xw_start(x, "Ledger");
    prof_xw_attr(x, "event", e->name);
    prof_xw_attr(x, "unit", e->unit);
    prof_xw_u64(x, "period", e->period);
    prof_xw_attr(x, "mechanism", e->mechanism);
    prof_xw_u64(x, "samples", e->samples);
    if (e->has_ledger) {
        prof_xw_u64(x, "measured", e->l.measured);
        prof_xw_u64(x, "recorded", e->l.recorded);
        prof_xw_u64(x, "kernel", e->l.kernel);
        prof_xw_u64(x, "dropped", e->l.dropped);
        prof_xw_u64(x, "unplaced", e->l.unplaced);
        prof_xw_u64(x, "tail", e->l.tail);
        prof_xw_u64(x, "uncounted", e->l.uncounted);
        prof_xw_u64(x, "undelivered", e->l.undelivered);
        prof_xw_u64(x, "blocked", e->l.blocked);
        prof_xw_attrf(x, "unexplained", "%" PRId64, e->l.unexplained);
    }
    prof_xw_end(x);
}

/* The verdict's attributes. */
static void
prof_write_verdict(struct prof_xw *x, const struct trust_verdict *v)
{
    prof_xw_attr(x, "verdict", v->trustworthy ? "trustworthy" : "doubtful");
    if (!v->trustworthy) {
        prof_xw_attr(x, "reason", v->reason);
        prof_xw_attr(x, "advice", v->advice);
    } else if (v->caveat[0] != '\0') {
        prof_xw_attr(x, "caveat", v->caveat);
    }
}

/* A thread the trust report names. */
static void
prof_write_trust_thread(struct prof_xw *x, const struct trust_thread *t)
{
    const struct trust_event *e = t->nevents > 0 ? &t->ev[0] : NULL;

    prof_xw_start(x, "Thread");
    prof_xw_u64(x, "pid", t->pid);
    prof_xw_u64(x, "tid", t->tid);
    prof_xw_u64(x, "thread-index", t->thread_index);
    prof_xw_attr(x, "command", t->command);
    prof_xw_u64(x, "cpu-ns", t->cpu_ns);
    prof_xw_u64(x, "samples", t->samples);
    if (t->blocked)
        prof_xw_attr(x, "blocked", "1");
    if (t->fallback)
        prof_xw_attr(x, "fallback", "1");
    if (t->checkpoint)
        prof_xw_attr(x, "checkpoint", "1");
    if (t->mismatch) {
        prof_xw_attr(x, "mismatch", "1");
        prof_xw_u64(x, "tree-samples", t->tree_samples);
    }
    if (e != NULL && e->has_ledger) {
        prof_xw_attr(x, "event", e->name);
        prof_xw_u64(x, "undelivered", e->l.undelivered);
        prof_xw_u64(x, "blocked-value", e->l.blocked);
        prof_xw_attrf(x, "unexplained", "%" PRId64, e->l.unexplained);
    }
    prof_xw_end(x);
}

/*
 * The trust report (lib/trust, share/schemas/experiment.dtd "Trust"): the
 * verdict, each event's ledger, csprof's overhead, threads, call paths,
 * drops by reason, the most doubtful threads; and with several processes,
 * each process's verdict and ledgers.
 */
static void
prof_write_trust(struct prof_xw *x, const struct prof_ctx *ctx, const struct prof_summary *s)
{
    const struct trust_run *r = &s->trust;
    double over = trust_overhead_percent(r);
    size_t i, k;

    prof_xw_start(x, "Trust");
    prof_write_verdict(x, &s->verdict);
    for (i = 0; i < r->nevents; i++)
        prof_write_ledger(x, &r->ev[i]);
    prof_xw_start(x, "Overhead");
    prof_xw_u64(x, "cpu-ns", r->cpu_ns);
    prof_xw_u64(x, "handler-cpu-ns", r->handler_cpu_ns);
    prof_xw_u64(x, "writer-cpu-ns", r->writer_cpu_ns);
    prof_xw_u64(x, "signals", r->signals);
    if (over >= 0)
        prof_xw_attrf(x, "percent", "%.3f", over);
    prof_xw_end(x);
    prof_xw_start(x, "Threads");
    prof_xw_u64(x, "threads", r->threads);
    prof_xw_u64(x, "processes", r->processes);
    prof_xw_u64(x, "unsampled", r->unsampled_threads);
    prof_xw_u64(x, "blocked", r->blocked_threads);
    prof_xw_u64(x, "fallback", r->fallback_threads);
    if (r->fallback_threads > 0) {
        prof_xw_u64(x, "fallback-cpu-ns", r->fallback_cpu_ns);
        prof_xw_u64(x, "fallback-recorded", r->fallback_recorded);
        prof_xw_u64(x, "fallback-undelivered", r->fallback_undelivered);
    }
    prof_xw_u64(x, "checkpoint", r->checkpoint_threads);
    prof_xw_u64(x, "mismatched", r->mismatched_threads);
    prof_xw_end(x);
    prof_xw_start(x, "Trampoline");
    prof_xw_u64(x, "fired", r->tramp_fired);
    prof_xw_u64(x, "lost", r->tramp_lost);
    prof_xw_u64(x, "return-mismatch", r->tramp_mismatch);
    prof_xw_end(x);
    prof_xw_start(x, "CallPaths");
    prof_xw_u64(x, "samples", r->judged_total);
    prof_xw_u64(x, "rooted", r->rooted);
    prof_xw_u64(x, "unjudged", r->unjudged);
    prof_xw_u64(x, "unwind-stopped", r->unwind_stopped);
    for (k = 0; k < r->nstops; k++) {
        prof_xw_start(x, "StoppedIn");
        prof_xw_attr(x, "module", r->stops[k].module);
        prof_xw_u64(x, "samples", r->stops[k].samples);
        prof_xw_end(x);
    }
    prof_xw_end(x);
    for (k = 0; k <= FMT_NDROP_REASONS; k++)
        if (r->drops[k] > 0) {
            prof_xw_start(x, "Drop");
            prof_xw_attr(x, "reason", k < FMT_NDROP_REASONS ? fmt_drop_reasons[k] : "other");
            prof_xw_u64(x, "samples", r->drops[k]);
            prof_xw_end(x);
        }
    for (k = 0; k < r->nnotable; k++)
        prof_write_trust_thread(x, &r->notable[k].t);
    if (s->processes > 1)
        for (uint32_t p = 0; p < (uint32_t)s->processes; p++) {
            struct trust_run pr;
            struct trust_verdict pv;
            const struct prof_input *first = NULL;

            trust_run_init(&pr);
            for (i = 0; i < ctx->ninputs; i++)
                if (ctx->inputs[i].error == NULL && ctx->inputs[i].process == p) {
                    first = first != NULL ? first : &ctx->inputs[i];
                    trust_run_add(&pr, &ctx->inputs[i].trust);
                }
            if (first == NULL)
                continue;
            trust_judge(&pr, &pv);
            prof_xw_start(x, "Process");
            prof_xw_u64(x, "process", p);
            prof_xw_u64(x, "pid", first->pid);
            prof_xw_attr(x, "command", first->trust.command);
            prof_xw_u64(x, "threads", pr.threads);
            prof_xw_u64(x, "cpu-ns", pr.cpu_ns);
            prof_xw_u64(x, "samples", pr.tree_samples);
            prof_write_verdict(x, &pv);
            for (i = 0; i < pr.nevents; i++)
                prof_write_ledger(x, &pr.ev[i]);
            prof_xw_end(x);
        }
    prof_xw_end(x);
}

static void
prof_write_summary(struct prof_xw *x, const struct prof_ctx *ctx, const struct prof_summary *s)
{
    const char *rname = ctx->nevents > 0 ? ctx->events[0].name : "samples";
    const char *runit = ctx->nevents > 0 ? ctx->events[0].display_unit : "samples";
    double rtotal = s->rank_total;
    size_t i;

    prof_xw_start(x, "Summary");
    prof_xw_u64(x, "files", ctx->ninputs);
    prof_xw_u64(x, "files-read", ctx->nread);
    prof_xw_u64(x, "files-skipped", ctx->nskipped);
    prof_xw_u64(x, "threads", s->threads);
    prof_xw_u64(x, "processes", s->processes);
    prof_xw_u64(x, "samples", s->samples);
    prof_xw_u64(x, "samples-in-main", s->main_samples);
    prof_xw_attrf(x, "main-percent", "%.2f",
                  prof_percent((double)s->main_samples, (double)s->samples));
    prof_xw_u64(x, "rooted-samples", s->rooted_samples);
    prof_xw_attrf(x, "rooted-percent", "%.2f",
                  prof_percent((double)s->rooted_samples, (double)s->samples));
    if (s->unjudged_samples > 0)
        prof_xw_u64(x, "unjudged-samples", s->unjudged_samples);
    prof_xw_u64(x, "unknown-samples", ctx->unknown_samples);
    if (ctx->nchanged > 0) {
        prof_xw_u64(x, "changed-modules", ctx->nchanged);
        prof_xw_u64(x, "changed-samples", s->changed_samples);
    }
    prof_xw_dbl(x, "cpu-seconds", (double)s->cpu_ns * 1e-9);
    if (s->samples_per_cpu_s >= 0)
        prof_xw_attrf(x, "samples-per-cpu-second", "%.1f", s->samples_per_cpu_s);
    prof_xw_u64(x, "calls", ctx->total_calls);

    prof_xw_start(x, "Inputs");
    for (i = 0; i < ctx->ninputs; i++) {
        const struct prof_input *in = &ctx->inputs[i];

        prof_xw_start(x, "Input");
        prof_xw_attr(x, "path", in->path);
        prof_xw_attr(x, "status", in->error != NULL ? "skipped" : "read");
        if (in->error != NULL) {
            prof_xw_attr(x, "error", in->error);
            prof_xw_end(x);
            continue;
        }
        prof_xw_u64(x, "pid", in->pid);
        prof_xw_u64(x, "tid", in->tid);
        prof_xw_u64(x, "thread-index", in->thread_index);
        prof_xw_attrf(x, "rank", "%d", (int)in->rank);
        prof_xw_u64(x, "generation", in->generation);
        prof_xw_attr(x, "host", in->host);
        prof_xw_attr(x, "program", in->program);
        prof_xw_attr(x, "command", in->command);
        prof_xw_u64(x, "start-ns", in->start_ns);
        prof_xw_u64(x, "end-ns", in->end_ns);
        prof_xw_u64(x, "cpu-ns", in->cpu_ns);
        prof_xw_u64(x, "samples", in->samples);
        prof_xw_u64(x, "nodes", in->nnodes);
        prof_xw_index(x, "thread", in->thread);
        prof_xw_index(x, "process", in->process);
        prof_xw_u64(x, "run", in->run);
        prof_xw_end(x);
    }
    prof_xw_end(x);

    prof_xw_start(x, "Stats");
    for (i = 0; i < ctx->nstats; i++) {
        prof_xw_start(x, "Stat");
        prof_xw_attr(x, "n", ctx->stat_names[i]);
        prof_xw_u64(x, "v", ctx->stat_values[i]);
        prof_xw_end(x);
    }
    prof_xw_end(x);

    for (i = 0; i < ctx->nevents; i++) {
        prof_xw_start(x, "EventTotal");
        prof_xw_attr(x, "event", ctx->events[i].name);
        prof_xw_u64(x, "metric", 2 * i);
        prof_xw_dbl(x, "v", s->events[i].total);
        prof_xw_attr(x, "unit", ctx->events[i].display_unit);
        prof_xw_end(x);
    }

    prof_write_trust(x, ctx, s);

    prof_xw_start(x, "TopProcedures");
    prof_xw_attr(x, "by", rname);
    prof_xw_attr(x, "unit", runit);
    for (i = 0; i < s->ntop_procs; i++) {
        prof_xw_start(x, "TopProcedure");
        prof_xw_u64(x, "rank", i + 1);
        prof_xw_u64(x, "p", s->top_procs[i].proc);
        prof_xw_attr(x, "n", s->top_procs[i].name);
        prof_xw_dbl(x, "v", s->top_procs[i].value);
        prof_xw_attrf(x, "percent", "%.2f", prof_percent(s->top_procs[i].value, rtotal));
        prof_xw_end(x);
    }
    prof_xw_end(x);
    prof_xw_start(x, "TopPaths");
    prof_xw_attr(x, "by", rname);
    prof_xw_attr(x, "unit", runit);
    for (i = 0; i < s->ntop_paths; i++) {
        prof_xw_start(x, "TopPath");
        prof_xw_u64(x, "rank", i + 1);
        prof_xw_u64(x, "node", s->top_paths[i].node);
        prof_xw_dbl(x, "v", s->top_paths[i].value);
        prof_xw_attrf(x, "percent", "%.2f", prof_percent(s->top_paths[i].value, rtotal));
        prof_xw_attr(x, "path", s->top_paths[i].path);
        prof_xw_end(x);
    }
    prof_xw_end(x);
    prof_xw_end(x); /* Summary */
}

static const struct prof_input *
prof_first_read(const struct prof_ctx *ctx)
{
    size_t i;

    for (i = 0; i < ctx->ninputs; i++)
        if (ctx->inputs[i].error == NULL)
            return &ctx->inputs[i];
    return NULL;
}

static void
prof_xw_nv(struct prof_xw *x, const char *n, const char *v)
{
    prof_xw_start(x, "NV");
    prof_xw_attr(x, "n", n);
    prof_xw_attr(x, "v", v);
    prof_xw_end(x);
}

int
prof_write_experiment(struct prof_ctx *ctx, const struct prof_summary *s, const char *path)
{
    const struct prof_input *first = prof_first_read(ctx);
    const char *program = first != NULL ? first->program : "";
    char *tmp = prof_xasprintf("%s.tmp", path);
    struct prof_xw x = {0};
    int rc = PROF_EIO;

    x.w = xmlNewTextWriterFilename(tmp, 0);
    if (x.w == NULL) {
        rc = prof_fail(ctx, PROF_EIO, "%s: cannot create: %s", tmp, strerror(errno));
        goto out_free_tmp;
    }
    prof_xw_check(&x, xmlTextWriterSetIndent(x.w, 1));
    prof_xw_check(&x, xmlTextWriterSetIndentString(x.w, BAD_CAST " "));
    prof_xw_check(&x, xmlTextWriterStartDocument(x.w, NULL, "UTF-8", NULL));
    prof_xw_check(&x, xmlTextWriterWriteDTD(x.w, BAD_CAST "csprof-experiment", NULL,
                                            BAD_CAST "experiment.dtd", NULL));
    prof_xw_start(&x, "csprof-experiment");
    prof_xw_attr(&x, "version", "1.0");

    prof_xw_start(&x, "Header");
    prof_xw_attr(&x, "n", program);
    prof_xw_start(&x, "Info");
    prof_xw_nv(&x, "generator", "csprof-prof " CSPROF_VERSION);
    if (first != NULL) {
        prof_xw_nv(&x, "program", first->program);
        prof_xw_nv(&x, "command", first->command);
        prof_xw_nv(&x, "host", first->host);
    }
    prof_xw_end(&x);
    prof_xw_end(&x);

    prof_write_summary(&x, ctx, s);

    prof_xw_start(&x, "SecCallPathProfile");
    prof_xw_attr(&x, "i", "0");
    prof_xw_attr(&x, "n", program);
    prof_xw_start(&x, "SecHeader");
    prof_write_metric_table(&x, ctx);
    prof_write_tables(&x, ctx);
    prof_xw_end(&x);
    prof_write_tree(&x, ctx);
    prof_xw_end(&x); /* SecCallPathProfile */
    prof_write_flat(&x, ctx);
    prof_xw_end(&x); /* csprof-experiment */
    if (!x.failed)
        prof_xw_check(&x, xmlTextWriterEndDocument(x.w));
    xmlFreeTextWriter(x.w); /* flushes and closes */
    if (x.failed) {
        rc = prof_fail(ctx, PROF_EIO, "%s: write failed: %s", tmp,
                       x.saved_errno ? strerror(x.saved_errno) : "libxml2 error");
        goto out_unlink;
    }
    if (rename(tmp, path) != 0) {
        rc = prof_fail(ctx, PROF_EIO, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
        goto out_unlink;
    }
    rc = 0;
    goto out_free_tmp;

out_unlink:
    unlink(tmp);
out_free_tmp:
    free(tmp);
    return rc;
}

static int
prof_write_database_impl(struct prof_ctx *ctx, const struct prof_summary *s, const char *dir)
{
    char *xml = prof_xasprintf("%s/experiment.xml", dir);
    int rc;

    /* thread-values.bin first: its pass over the threads also accumulates the statistics */
    rc = prof_write_thread_values(ctx, dir);
    if (rc == 0)
        rc = prof_write_experiment(ctx, s, xml);
    free(xml);
    return rc;
}

int
prof_write_database(struct prof_ctx *ctx, const struct prof_summary *s, const char *dir)
{
    if (!ctx->finished)
        return prof_fail(ctx, PROF_ESTATE, "%s: database written before prof_finish()", dir);
    PROF_GUARD(ctx, prof_write_database_impl(ctx, s, dir));
}
