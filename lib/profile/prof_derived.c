/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_derived.c -- derived metrics: "NAME=EXPR" formulas over the measured
 * metrics (HPCView, seed 003 §2: e.g. cycles/instructions), evaluated on
 * every node of the calling-context tree and of the static view.
 *
 * Tool code; never prints.  Grammar (recursive descent, to postfix code):
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | '(' expr ')' | FUNC '(' expr [',' expr] ')'
 *            | NAME | '{' any characters but '}' '}'
 *   FUNC    := min | max (two arguments) | sqrt | log (one argument)
 *   NAME    := [A-Za-z_][A-Za-z0-9_.:]*  an event name, "samples" or "calls"
 * Inclusive values are computed from inclusive operands and exclusive ones
 * from exclusive operands (call counts are per call site in both), as
 * HPCToolkit does.  An operation without a real result (x/0, sqrt of a
 * negative number, log of a non-positive one) makes that node's value 0.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"

enum prof_expr_opcode {
    OP_CONST = 0,
    OP_REF,
    OP_NEG,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MIN,
    OP_MAX,
    OP_SQRT,
    OP_LOG,
};

#define PROF_EXPR_MAX_DEPTH 64
#define PROF_REF_NONE \
    (UINT32_MAX - 2) /* PROF_NONE is PROF_EV_SAMPLES */ /* nesting of parentheses and unary minus */

struct prof_parser {
    struct prof_ctx *ctx;
    const char *spec; /* the whole "NAME=EXPR", for messages */
    const char *p;    /* current position */
    struct prof_expr_op *code;
    size_t ncode, cap;
    int depth;
    int rc;
};

static int
prof_parse_error(struct prof_parser *ps, const char *at, const char *what)
{
    if (ps->rc == 0)
        ps->rc = prof_fail(ps->ctx, PROF_EINVAL, "-M '%s': position %zu: %s", ps->spec,
                           (size_t)(at - ps->spec) + 1, what);
    return ps->rc;
}

static void
prof_emit(struct prof_parser *ps, uint32_t op, uint32_t ref, double k)
{
    prof_grow(&ps->code, &ps->cap, ps->ncode + 1, sizeof(*ps->code));
    ps->code[ps->ncode].op = op;
    ps->code[ps->ncode].ref = ref;
    ps->code[ps->ncode].k = k;
    ps->ncode++;
}

static void
prof_skip_space(struct prof_parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t')
        ps->p++;
}

static int prof_parse_expr(struct prof_parser *ps);

/* Event index of metric @name, PROF_EV_SAMPLES, PROF_EV_CALLS or PROF_REF_NONE. */
static uint32_t
prof_metric_ref(const struct prof_ctx *ctx, const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < ctx->nevents; i++)
        if (strlen(ctx->events[i].name) == len && memcmp(ctx->events[i].name, name, len) == 0)
            return (uint32_t)i;
    if (len == 7 && memcmp(name, "samples", 7) == 0)
        return PROF_EV_SAMPLES;
    if (len == 5 && memcmp(name, "calls", 5) == 0)
        return PROF_EV_CALLS;
    return PROF_REF_NONE;
}

static int
prof_parse_primary(struct prof_parser *ps)
{
    const char *start;
    size_t len;

    prof_skip_space(ps);
    start = ps->p;
    if (*ps->p == '(') {
        ps->p++;
        if (prof_parse_expr(ps) != 0)
            return ps->rc;
        prof_skip_space(ps);
        if (*ps->p != ')')
            return prof_parse_error(ps, ps->p, "')' expected");
        ps->p++;
        return 0;
    }
    if (isdigit((unsigned char)*ps->p) || (*ps->p == '.' && isdigit((unsigned char)ps->p[1]))) {
        char *end;
        double k = strtod(ps->p, &end);

        if (!isfinite(k))
            return prof_parse_error(ps, start, "number out of range");
        ps->p = end;
        prof_emit(ps, OP_CONST, 0, k);
        return 0;
    }
    if (*ps->p == '{') {
        const char *close = strchr(ps->p, '}');
        uint32_t ref;

        if (close == NULL)
            return prof_parse_error(ps, start, "'}' expected");
        ref = prof_metric_ref(ps->ctx, ps->p + 1, (size_t)(close - ps->p - 1));
        if (ref == PROF_REF_NONE)
            return prof_parse_error(ps, start + 1, "no metric of this name");
        prof_emit(ps, OP_REF, ref, 0);
        ps->p = close + 1;
        return 0;
    }
    if (!isalpha((unsigned char)*ps->p) && *ps->p != '_')
        return prof_parse_error(ps, start,
                                *ps->p == '\0' ? "operand expected at the end"
                                               : "number, metric name, function or '(' expected");
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.' || *ps->p == ':')
        ps->p++;
    len = (size_t)(ps->p - start);
    prof_skip_space(ps);
    if (*ps->p == '(') { /* a function call */
        static const struct {
            const char *name;
            uint32_t op, nargs;
        } funcs[] = {
            {"min", OP_MIN, 2}, {"max", OP_MAX, 2}, {"sqrt", OP_SQRT, 1}, {"log", OP_LOG, 1}};
        size_t f;

        for (f = 0; f < sizeof(funcs) / sizeof(funcs[0]); f++)
            if (strlen(funcs[f].name) == len && memcmp(funcs[f].name, start, len) == 0)
                break;
        if (f == sizeof(funcs) / sizeof(funcs[0]))
            return prof_parse_error(ps, start, "unknown function (min, max, sqrt, log)");
        ps->p++;
        if (prof_parse_expr(ps) != 0)
            return ps->rc;
        prof_skip_space(ps);
        if (funcs[f].nargs == 2) {
            if (*ps->p != ',')
                return prof_parse_error(ps, ps->p, "',' expected: this function takes 2 arguments");
            ps->p++;
            if (prof_parse_expr(ps) != 0)
                return ps->rc;
            prof_skip_space(ps);
        }
        if (*ps->p != ')')
            return prof_parse_error(ps, ps->p, "')' expected");
        ps->p++;
        prof_emit(ps, funcs[f].op, 0, 0);
        return 0;
    }
    {
        uint32_t ref = prof_metric_ref(ps->ctx, start, len);

        if (ref == PROF_REF_NONE)
            return prof_parse_error(ps, start, "no metric of this name");
        prof_emit(ps, OP_REF, ref, 0);
    }
    return 0;
}

static int
prof_parse_unary(struct prof_parser *ps)
{
    prof_skip_space(ps);
    if (*ps->p == '-') {
        ps->p++;
        if (++ps->depth > PROF_EXPR_MAX_DEPTH)
            return prof_parse_error(ps, ps->p, "nested too deeply");
        if (prof_parse_unary(ps) != 0)
            return ps->rc;
        ps->depth--;
        prof_emit(ps, OP_NEG, 0, 0);
        return 0;
    }
    return prof_parse_primary(ps);
}

static int
prof_parse_term(struct prof_parser *ps)
{
    if (prof_parse_unary(ps) != 0)
        return ps->rc;
    for (;;) {
        char op;

        prof_skip_space(ps);
        op = *ps->p;
        if (op != '*' && op != '/')
            return 0;
        ps->p++;
        if (prof_parse_unary(ps) != 0)
            return ps->rc;
        prof_emit(ps, op == '*' ? OP_MUL : OP_DIV, 0, 0);
    }
}

static int
prof_parse_expr(struct prof_parser *ps)
{
    if (++ps->depth > PROF_EXPR_MAX_DEPTH)
        return prof_parse_error(ps, ps->p, "nested too deeply");
    if (prof_parse_term(ps) != 0)
        return ps->rc;
    for (;;) {
        char op;

        prof_skip_space(ps);
        op = *ps->p;
        if (op != '+' && op != '-')
            break;
        ps->p++;
        if (prof_parse_term(ps) != 0)
            return ps->rc;
        prof_emit(ps, op == '+' ? OP_ADD : OP_SUB, 0, 0);
    }
    ps->depth--;
    return 0;
}

static int
prof_add_derived_impl(struct prof_ctx *ctx, const char *spec)
{
    const char *eq = strchr(spec, '=');
    struct prof_parser ps = {.ctx = ctx, .spec = spec};
    struct prof_derived *d;
    size_t i, nlen;

    if (eq == NULL)
        return prof_fail(ctx, PROF_EINVAL, "-M '%s': expected NAME=EXPR", spec);
    nlen = (size_t)(eq - spec);
    while (nlen > 0 && spec[nlen - 1] == ' ')
        nlen--;
    if (nlen == 0)
        return prof_fail(ctx, PROF_EINVAL, "-M '%s': position 1: the metric name is empty", spec);
    if (prof_metric_ref(ctx, spec, nlen) != PROF_REF_NONE)
        return prof_fail(ctx, PROF_EINVAL, "-M '%s': position 1: a metric of this name exists",
                         spec);
    for (i = 0; i < ctx->nderived; i++)
        if (strlen(ctx->derived[i].name) == nlen && memcmp(ctx->derived[i].name, spec, nlen) == 0)
            return prof_fail(ctx, PROF_EINVAL, "-M '%s': position 1: defined twice", spec);
    ps.p = eq + 1;
    if (prof_parse_expr(&ps) == 0) {
        prof_skip_space(&ps);
        if (*ps.p != '\0')
            prof_parse_error(&ps, ps.p, "operator or end of expression expected");
    }
    if (ps.rc != 0) {
        free(ps.code);
        return ps.rc;
    }
    prof_grow(&ctx->derived, &ctx->derived_cap, ctx->nderived + 1, sizeof(*ctx->derived));
    d = &ctx->derived[ctx->nderived];
    memset(d, 0, sizeof(*d));
    d->code = ps.code;
    d->ncode = ps.ncode;
    ctx->nderived++;
    d->name = prof_xasprintf("%.*s", (int)nlen, spec);
    d->formula = prof_xclean(eq + 1);
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

/* Operand values of one node: @vals[event], samples and calls. */
struct prof_operands {
    const double *vals;
    double samples, calls;
};

static double
prof_eval(const struct prof_derived *d, const struct prof_operands *o, double *stack)
{
    size_t i, sp = 0;

    for (i = 0; i < d->ncode; i++) {
        const struct prof_expr_op *op = &d->code[i];
        double a, b;

        switch (op->op) {
        case OP_CONST:
            stack[sp++] = op->k;
            continue;
        case OP_REF:
            stack[sp++] = op->ref == PROF_EV_SAMPLES ? o->samples
                          : op->ref == PROF_EV_CALLS ? o->calls
                                                     : o->vals[op->ref];
            continue;
        case OP_NEG:
            stack[sp - 1] = -stack[sp - 1];
            continue;
        case OP_SQRT:
            if (stack[sp - 1] < 0)
                return 0.0;
            stack[sp - 1] = sqrt(stack[sp - 1]);
            continue;
        case OP_LOG:
            if (stack[sp - 1] <= 0)
                return 0.0;
            stack[sp - 1] = log(stack[sp - 1]);
            continue;
        default:
            break;
        }
        b = stack[--sp];
        a = stack[sp - 1];
        switch (op->op) {
        case OP_ADD:
            a += b;
            break;
        case OP_SUB:
            a -= b;
            break;
        case OP_MUL:
            a *= b;
            break;
        case OP_DIV:
            if (b == 0.0)
                return 0.0;
            a /= b;
            break;
        case OP_MIN:
            a = a < b ? a : b;
            break;
        default: /* OP_MAX */
            a = a > b ? a : b;
            break;
        }
        stack[sp - 1] = a;
    }
    return sp == 1 && isfinite(stack[0]) ? stack[0] : 0.0;
}

void
prof_derived_compute(struct prof_ctx *ctx)
{
    const struct prof_tree *t = &ctx->tree;
    const struct prof_flat *f = &ctx->flat;
    double *vals = prof_xcalloc(ctx->nevents + 1, sizeof(double));
    double *stack = NULL;
    size_t maxcode = 1, i, v, e;

    for (i = 0; i < ctx->nderived; i++)
        maxcode = ctx->derived[i].ncode > maxcode ? ctx->derived[i].ncode : maxcode;
    stack = prof_xcalloc(maxcode, sizeof(double));
    for (i = 0; i < ctx->nderived; i++) {
        struct prof_derived *d = &ctx->derived[i];

        d->incl = prof_xcalloc(t->n, sizeof(double));
        d->excl = prof_xcalloc(t->n, sizeof(double));
        d->flat_incl = prof_xcalloc(f->n, sizeof(double));
        d->flat_excl = prof_xcalloc(f->n, sizeof(double));
        for (v = 0; v < t->n; v++) {
            struct prof_operands o = {vals, 0, (double)t->nodes[v].calls};

            for (e = 0; e < ctx->nevents; e++)
                vals[e] = prof_tree_incl(t, (uint32_t)v, (uint32_t)e);
            o.samples = (double)t->incl_samples[v];
            d->incl[v] = prof_eval(d, &o, stack);
            for (e = 0; e < ctx->nevents; e++)
                vals[e] = prof_tree_excl(t, (uint32_t)v, (uint32_t)e);
            o.samples = (double)t->excl_samples[v];
            d->excl[v] = prof_eval(d, &o, stack);
        }
        for (v = 0; v < f->n; v++) {
            struct prof_operands o = {vals, 0, 0};

            for (e = 0; e < ctx->nevents; e++)
                vals[e] = f->incl[v * f->ncols + e];
            o.samples = f->incl[v * f->ncols + ctx->nevents];
            d->flat_incl[v] = prof_eval(d, &o, stack);
            for (e = 0; e < ctx->nevents; e++)
                vals[e] = f->excl[v * f->ncols + e];
            o.samples = f->excl[v * f->ncols + ctx->nevents];
            d->flat_excl[v] = prof_eval(d, &o, stack);
        }
    }
    free(stack);
    free(vals);
}

void
prof_derived_free(struct prof_derived *d)
{
    free(d->name);
    free(d->formula);
    free(d->code);
    free(d->incl);
    free(d->excl);
    free(d->flat_incl);
    free(d->flat_excl);
    memset(d, 0, sizeof(*d));
}
