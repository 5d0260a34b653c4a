/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_derived.c -- derived metrics: "NAME=EXPR" formulas over the measured
 * metrics (HPCView, [HPCView] §2: e.g. cycles/instructions), evaluated on
 * every node of the calling-context tree and of the static view.
 *
 * Tool code; never prints.  The grammar, its parser and the rule for undefined
 * values are support/formula.h's, shared with csprof-report --metric: a NAME
 * is an event name (exact case), "samples" or "calls".
 * Inclusive values are computed from inclusive operands and exclusive ones
 * from exclusive operands (call counts are per call site in both), as
 * HPCToolkit does.  An operation without a real result (x/0, sqrt of a
 * negative number, log of a non-positive one) makes that node's value
 * undefined: stored as 0, and counted (a warning per metric).
 * The stored formula has every whitespace byte turned into a space, so the
 * database holds no escaped control byte and csprof-report compiles it.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "support/formula.h"

/*
 * Column of metric @name (@len bytes) in the operand array of
 * prof_derived_compute(): an event index, nevents for "samples",
 * nevents + 1 for "calls", or -1.  Events shadow the two pseudo-metrics.
 */
static int
prof_metric_col(const struct prof_ctx *ctx, const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < ctx->nevents; i++)
        if (strlen(ctx->events[i].name) == len && memcmp(ctx->events[i].name, name, len) == 0)
            return (int)i;
    if (len == 7 && memcmp(name, "samples", 7) == 0)
        return (int)ctx->nevents;
    if (len == 5 && memcmp(name, "calls", 5) == 0)
        return (int)ctx->nevents + 1;
    return -1;
}

static int
prof_resolve(const char *name, size_t len, void *arg)
{
    return prof_metric_col(arg, name, len);
}

static int
prof_add_derived_impl(struct prof_ctx *ctx, const char *spec)
{
    const char *eq = strchr(spec, '=');
    struct csp_formula_error err;
    struct csp_formula *formula;
    struct prof_derived *d;
    size_t i, nlen;
    int rc;

    if (eq == NULL)
        return prof_fail(ctx, PROF_EINVAL, "-M '%s': expected NAME=EXPR", spec);
    nlen = (size_t)(eq - spec);
    while (nlen > 0 && spec[nlen - 1] == ' ')
        nlen--;
    if (nlen == 0)
        return prof_fail(ctx, PROF_EINVAL, "-M '%s': position 1: the metric name is empty", spec);
    if (prof_metric_col(ctx, spec, nlen) >= 0)
        return prof_fail(ctx, PROF_EINVAL, "-M '%s': position 1: a metric of this name exists",
                         spec);
    for (i = 0; i < ctx->nderived; i++)
        if (strlen(ctx->derived[i].name) == nlen && memcmp(ctx->derived[i].name, spec, nlen) == 0)
            return prof_fail(ctx, PROF_EINVAL, "-M '%s': position 1: defined twice", spec);
    /* grown first, so that running out of memory there cannot leak @formula */
    prof_grow(&ctx->derived, &ctx->derived_cap, ctx->nderived + 1, sizeof(*ctx->derived));
    rc = csp_formula_compile(eq + 1, prof_resolve, ctx, &formula, &err);
    if (rc == CSP_FORMULA_ENOMEM)
        return prof_nomem(ctx);
    if (rc != CSP_FORMULA_OK) /* positions count from the start of NAME=EXPR */
        return prof_fail(ctx, PROF_EINVAL, "-M '%s': position %zu: %s", spec,
                         (size_t)(eq + 1 - spec) + err.start + 1, csp_formula_strerror(rc));
    d = &ctx->derived[ctx->nderived];
    memset(d, 0, sizeof(*d));
    d->formula_code = formula;
    ctx->nderived++;
    d->name = prof_xasprintf("%.*s", (int)nlen, spec);
    {
        char *blank = prof_xstrdup(eq + 1);

        for (char *c = blank; *c != '\0'; c++)
            if (isspace((unsigned char)*c))
                *c = ' '; /* the parser's blanks: no escaped control byte stored */
        d->formula = prof_xclean(blank);
        free(blank);
    }
    return 0;
}

int
prof_add_derived_metric(struct prof_ctx *ctx, const char *spec)
{
    if (ctx->finished)
        return prof_fail(ctx, PROF_ESTATE, "-M '%s': derived metric added after prof_finish()",
                         spec);
    PROF_GUARD(ctx, prof_add_derived_impl(ctx, spec));
}

static double
prof_operand(int col, void *arg)
{
    return ((const double *)arg)[col];
}

/* Value of @code on @vals; undefined (NaN) is stored as 0 and counted in @d. */
static double
prof_derived_eval(struct prof_derived *d, const double *vals, double *stack)
{
    double x = csp_formula_eval(d->formula_code, prof_operand, (void *)vals, stack);

    if (isnan(x)) {
        d->undefined++;
        return 0;
    }
    return x;
}

void
prof_derived_compute(struct prof_ctx *ctx)
{
    const struct prof_tree *t = &ctx->tree;
    const struct prof_flat *f = &ctx->flat;
    size_t ne = ctx->nevents;
    double *vals = prof_xcalloc(ne + 2, sizeof(double)); /* events, samples, calls */
    double *stack = NULL;
    size_t scratch = 1, i, v, e;

    for (i = 0; i < ctx->nderived; i++) {
        size_t need = csp_formula_scratch(ctx->derived[i].formula_code);

        scratch = need > scratch ? need : scratch;
    }
    stack = prof_xcalloc(scratch, sizeof(double));
    for (i = 0; i < ctx->nderived; i++) {
        struct prof_derived *d = &ctx->derived[i];

        d->incl = prof_xcalloc(t->n, sizeof(double));
        d->excl = prof_xcalloc(t->n, sizeof(double));
        d->flat_incl = prof_xcalloc(f->n, sizeof(double));
        d->flat_excl = prof_xcalloc(f->n, sizeof(double));
        for (v = 0; v < t->n; v++) {
            vals[ne + 1] = (double)t->nodes[v].calls;
            for (e = 0; e < ne; e++)
                vals[e] = prof_tree_incl(t, (uint32_t)v, (uint32_t)e);
            vals[ne] = (double)t->incl_samples[v];
            d->incl[v] = prof_derived_eval(d, vals, stack);
            for (e = 0; e < ne; e++)
                vals[e] = prof_tree_excl(t, (uint32_t)v, (uint32_t)e);
            vals[ne] = (double)t->excl_samples[v];
            d->excl[v] = prof_derived_eval(d, vals, stack);
        }
        vals[ne + 1] = 0; /* static-view nodes have no call count */
        for (v = 0; v < f->n; v++) {
            for (e = 0; e < ne; e++)
                vals[e] = f->incl[v * f->ncols + e];
            vals[ne] = f->incl[v * f->ncols + ne];
            d->flat_incl[v] = prof_derived_eval(d, vals, stack);
            for (e = 0; e < ne; e++)
                vals[e] = f->excl[v * f->ncols + e];
            vals[ne] = f->excl[v * f->ncols + ne];
            d->flat_excl[v] = prof_derived_eval(d, vals, stack);
        }
        if (d->undefined > 0)
            prof_msg(ctx, PROF_MSG_WARNING,
                     "derived metric %s: %zu of %zu value(s) undefined (x/0, sqrt or log "
                     "out of domain, overflow), stored as 0",
                     d->name, d->undefined, 2 * (t->n + f->n));
    }
    free(stack);
    free(vals);
}

void
prof_derived_free(struct prof_derived *d)
{
    free(d->name);
    free(d->formula);
    csp_formula_free(d->formula_code);
    free(d->incl);
    free(d->excl);
    free(d->flat_incl);
    free(d->flat_excl);
    memset(d, 0, sizeof(*d));
}
