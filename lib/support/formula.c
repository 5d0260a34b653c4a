/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * formula.c -- the derived-metric formula parser (recursive descent to
 * postfix code) and its stack evaluator; the grammar is in formula.h.
 *
 * Tool code: uses malloc, never prints, never runs in signal context.
 */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "support/formula.h"
#include "support/vec.h"

#define FORMULA_MAX_DEPTH 64 /* nesting of parentheses and unary minus */

enum formula_opcode {
    OP_CONST,
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

struct formula_op {
    int op;   /* enum formula_opcode */
    int col;  /* OP_REF: the resolver's column */
    double k; /* OP_CONST */
};

struct csp_formula {
    struct formula_op *code; /* postfix */
    size_t n, cap;
    size_t depth; /* deepest operand stack */
};

struct formula_parser {
    const char *text, *p;
    csp_formula_resolve_fn *resolve;
    void *arg;
    struct csp_formula *f;
    size_t sp; /* operand stack depth after the code so far */
    int depth; /* nesting */
    struct csp_formula_error err;
    int rc;
};

static int
fail_at(struct formula_parser *ps, int rc, const char *start, size_t len)
{
    if (ps->rc == CSP_FORMULA_OK) {
        ps->rc = rc;
        ps->err.start = (size_t)(start - ps->text);
        ps->err.at = (size_t)(ps->p - ps->text);
        ps->err.len = len;
    }
    return ps->rc;
}

static int
fail(struct formula_parser *ps, int rc)
{
    return fail_at(ps, rc, ps->p, 0);
}

/* Append one operation; @pushes is its net effect on the operand stack. */
static int
emit(struct formula_parser *ps, int op, int col, double k, int pushes)
{
    struct csp_formula *f = ps->f;

    if (csp_vec_reserve(&f->code, &f->cap, f->n + 1, sizeof(*f->code)) != 0)
        return fail(ps, CSP_FORMULA_ENOMEM);
    f->code[f->n++] = (struct formula_op){op, col, k};
    ps->sp = (size_t)((long)ps->sp + pushes);
    if (ps->sp > f->depth)
        f->depth = ps->sp;
    return 0;
}

static void
skip_blanks(struct formula_parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static int parse_expr(struct formula_parser *ps);

static int
reference(struct formula_parser *ps, const char *name, size_t len)
{
    int col = ps->resolve(name, len, ps->arg);

    if (col < 0)
        return fail_at(ps, CSP_FORMULA_ENAME, name, len);
    return emit(ps, OP_REF, col, 0, 1);
}

static int
parse_number(struct formula_parser *ps)
{
    char *end;
    double k;

    if (ps->p[0] == '.' && !isdigit((unsigned char)ps->p[1]))
        return fail(ps, CSP_FORMULA_EBADNUM);
    k = strtod(ps->p, &end);
    if (!isfinite(k))
        return fail(ps, CSP_FORMULA_ERANGE);
    ps->p = end;
    return emit(ps, OP_CONST, 0, k, 1);
}

/* After a function's name: '(' args ')' of function @name (@len bytes). */
static int
parse_call(struct formula_parser *ps, const char *name, size_t len)
{
    static const struct {
        const char *name;
        int op, nargs;
    } funcs[] = {{"min", OP_MIN, 2}, {"max", OP_MAX, 2}, {"sqrt", OP_SQRT, 1}, {"log", OP_LOG, 1}};
    size_t i;

    for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
        if (strlen(funcs[i].name) == len && memcmp(funcs[i].name, name, len) == 0)
            break;
    if (i == sizeof(funcs) / sizeof(funcs[0]))
        return fail_at(ps, CSP_FORMULA_EFUNC, name, len);
    ps->p++;
    if (parse_expr(ps) != 0)
        return ps->rc;
    skip_blanks(ps);
    if (funcs[i].nargs == 2) {
        if (*ps->p != ',')
            return fail(ps, CSP_FORMULA_ECOMMA);
        ps->p++;
        if (parse_expr(ps) != 0)
            return ps->rc;
        skip_blanks(ps);
    }
    if (*ps->p != ')')
        return fail(ps, CSP_FORMULA_ERPAREN);
    ps->p++;
    return emit(ps, funcs[i].op, 0, 0, 1 - funcs[i].nargs);
}

static int
parse_primary(struct formula_parser *ps)
{
    const char *start;

    skip_blanks(ps);
    start = ps->p;
    if (*ps->p == '(') {
        ps->p++;
        if (parse_expr(ps) != 0)
            return ps->rc;
        skip_blanks(ps);
        if (*ps->p != ')')
            return fail(ps, CSP_FORMULA_ERPAREN);
        ps->p++;
        return 0;
    }
    if (isdigit((unsigned char)*ps->p) || *ps->p == '.')
        return parse_number(ps);
    if (*ps->p == '{') {
        const char *close = strchr(ps->p, '}');

        if (close == NULL)
            return fail(ps, CSP_FORMULA_ERBRACE);
        ps->p = close + 1;
        return reference(ps, start + 1, (size_t)(close - start - 1));
    }
    if (!isalpha((unsigned char)*ps->p) && *ps->p != '_')
        return fail(ps, *ps->p == '\0' ? CSP_FORMULA_EEND : CSP_FORMULA_ECHAR);
    while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '.' || *ps->p == ':')
        ps->p++;
    {
        size_t len = (size_t)(ps->p - start);

        skip_blanks(ps);
        if (*ps->p == '(')
            return parse_call(ps, start, len);
        return reference(ps, start, len);
    }
}

static int
parse_unary(struct formula_parser *ps)
{
    skip_blanks(ps);
    if (*ps->p == '-') {
        ps->p++;
        if (++ps->depth > FORMULA_MAX_DEPTH)
            return fail(ps, CSP_FORMULA_EDEPTH);
        if (parse_unary(ps) != 0)
            return ps->rc;
        ps->depth--;
        return emit(ps, OP_NEG, 0, 0, 0);
    }
    return parse_primary(ps);
}

static int
parse_term(struct formula_parser *ps)
{
    if (parse_unary(ps) != 0)
        return ps->rc;
    for (;;) {
        char op;

        skip_blanks(ps);
        op = *ps->p;
        if (op != '*' && op != '/')
            return 0;
        ps->p++;
        if (parse_unary(ps) != 0 || emit(ps, op == '*' ? OP_MUL : OP_DIV, 0, 0, -1) != 0)
            return ps->rc;
    }
}

static int
parse_expr(struct formula_parser *ps)
{
    if (++ps->depth > FORMULA_MAX_DEPTH)
        return fail(ps, CSP_FORMULA_EDEPTH);
    if (parse_term(ps) != 0)
        return ps->rc;
    for (;;) {
        char op;

        skip_blanks(ps);
        op = *ps->p;
        if (op != '+' && op != '-')
            break;
        ps->p++;
        if (parse_term(ps) != 0 || emit(ps, op == '+' ? OP_ADD : OP_SUB, 0, 0, -1) != 0)
            return ps->rc;
    }
    ps->depth--;
    return 0;
}

int
csp_formula_compile(const char *text, csp_formula_resolve_fn *resolve, void *arg,
                    struct csp_formula **out, struct csp_formula_error *err)
{
    struct formula_parser ps = {.text = text, .p = text, .resolve = resolve, .arg = arg};

    *out = NULL;
    ps.f = calloc(1, sizeof(*ps.f));
    if (ps.f == NULL)
        return CSP_FORMULA_ENOMEM;
    if (parse_expr(&ps) == 0) {
        skip_blanks(&ps);
        if (*ps.p != '\0')
            fail(&ps, CSP_FORMULA_ETRAILING);
    }
    if (ps.rc != CSP_FORMULA_OK) {
        if (err != NULL && ps.rc != CSP_FORMULA_ENOMEM)
            *err = ps.err;
        csp_formula_free(ps.f);
        return ps.rc;
    }
    *out = ps.f;
    return CSP_FORMULA_OK;
}

size_t
csp_formula_scratch(const struct csp_formula *f)
{
    return f->depth > 0 ? f->depth : 1;
}

double
csp_formula_eval(const struct csp_formula *f, csp_formula_value_fn *value, void *arg,
                 double *scratch)
{
    double *st = scratch;
    size_t i, sp = 0;

    /* One rule: the first operation without a real result makes the whole value undefined. */
    for (i = 0; i < f->n; i++) {
        const struct formula_op *o = &f->code[i];
        double a, b;

        switch (o->op) {
        case OP_CONST:
            st[sp++] = o->k;
            continue;
        case OP_REF:
            a = value(o->col, arg);
            if (!isfinite(a))
                return NAN;
            st[sp++] = a;
            continue;
        case OP_NEG:
            st[sp - 1] = -st[sp - 1];
            continue;
        case OP_SQRT:
            if (st[sp - 1] < 0)
                return NAN;
            st[sp - 1] = sqrt(st[sp - 1]);
            continue;
        case OP_LOG:
            if (st[sp - 1] <= 0)
                return NAN;
            st[sp - 1] = log(st[sp - 1]);
            continue;
        default:
            break;
        }
        b = st[--sp];
        a = st[sp - 1];
        switch (o->op) {
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
                return NAN;
            a /= b;
            break;
        case OP_MIN:
            a = a < b ? a : b;
            break;
        default: /* OP_MAX */
            a = a > b ? a : b;
            break;
        }
        if (!isfinite(a))
            return NAN; /* overflow */
        st[sp - 1] = a;
    }
    return sp == 1 ? st[0] + 0.0 : NAN; /* + 0.0: -0 prints as 0 */
}

void
csp_formula_free(struct csp_formula *f)
{
    if (f == NULL)
        return;
    free(f->code);
    free(f);
}

const char *
csp_formula_strerror(int status)
{
    switch (status) {
    case CSP_FORMULA_OK:
        return "success";
    case CSP_FORMULA_ENOMEM:
        return "out of memory";
    case CSP_FORMULA_EEND:
        return "operand expected at the end";
    case CSP_FORMULA_ECHAR:
    case CSP_FORMULA_EBADNUM:
        return "number, metric name, function or '(' expected";
    case CSP_FORMULA_ERANGE:
        return "number out of range (a constant must be finite)";
    case CSP_FORMULA_ERPAREN:
        return "')' expected";
    case CSP_FORMULA_ERBRACE:
        return "'}' expected";
    case CSP_FORMULA_ECOMMA:
        return "',' expected: this function takes 2 arguments";
    case CSP_FORMULA_EFUNC:
        return "unknown function (min, max, sqrt, log)";
    case CSP_FORMULA_ENAME:
        return "no metric of this name";
    case CSP_FORMULA_EDEPTH:
        return "nested too deeply";
    case CSP_FORMULA_ETRAILING:
        return "operator or end of expression expected";
    default:
        return "unknown error";
    }
}
