/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * formula.c -- derived metrics of a database (csprof-prof -M 'NAME=EXPR',
 * stored as Metric formula="EXPR") evaluated on the nodes of a view.
 *
 * Tool code.  The grammar is csprof-prof's (lib/profile/prof_derived.c,
 * after HPCView, seed 003 §2), parsed by recursive descent into postfix code:
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | '(' expr ')' | FUNC '(' expr [',' expr] ')'
 *            | NAME | '{' any characters but '}' '}'
 *   FUNC    := min | max (two arguments) | sqrt | log (one argument)
 * A NAME is an event of the view's value columns ("CPUTIME", "samples") or
 * "calls".  A view node's inclusive value is computed from the inclusive
 * operands, its exclusive value from the exclusive ones, as csprof-prof
 * does for stored nodes; so where a view node is one stored node the values
 * are the stored ones, and where a view merged nodes (hidden frames, merged
 * siblings, flat rows) the formula is applied to the merged values, not
 * summed.  x/0, sqrt of a negative number and log of a non-positive one
 * give 0.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/report_internal.h"

enum { F_CONST, F_REF, F_CALLS, F_NEG, F_ADD, F_SUB, F_MUL, F_DIV, F_MIN, F_MAX, F_SQRT, F_LOG };

struct fop {
    int op;
    int col;
    double v;
};

struct rpt_formula {
    struct fop *code;
    size_t n, cap;
};

struct parser {
    const struct rpt_tree *t;
    const char *expr, *p;
    struct rpt_formula *f;
    int depth;
    int rc;
    char *err;
    size_t errlen;
};

static void
emit(struct parser *ps, int op, int col, double v)
{
    if (ps->rc != RPT_OK)
        return;
    ps->f->code = rpt_grow(ps->f->code, &ps->f->cap, ps->f->n + 1, sizeof *ps->f->code);
    if (ps->f->code == NULL) {
        ps->rc = RPT_ENOMEM;
        return;
    }
    ps->f->code[ps->f->n++] = (struct fop){op, col, v};
}

static void
fail(struct parser *ps, const char *what)
{
    if (ps->rc == RPT_OK) {
        rpt_errf(ps->err, ps->errlen, "formula '%s': position %zu: %s", ps->expr,
                 (size_t)(ps->p - ps->expr) + 1, what);
        ps->rc = RPT_EINVAL;
    }
}

static void
skip(struct parser *ps)
{
    while (isspace((unsigned char)*ps->p))
        ps->p++;
}

static void expr(struct parser *ps);

static void
reference(struct parser *ps, const char *name, size_t len)
{
    char buf[256];

    if (len >= sizeof buf) {
        fail(ps, "name too long");
        return;
    }
    memcpy(buf, name, len);
    buf[len] = '\0';
    if (strcasecmp(buf, "calls") == 0) {
        emit(ps, F_CALLS, 0, 0);
        return;
    }
    for (int c = 0; c < ps->t->nvalues; c++)
        if (strcasecmp(ps->t->db->metrics[ps->t->metric_of[c]].event, buf) == 0) {
            emit(ps, F_REF, c, 0);
            return;
        }
    fail(ps, "unknown metric (an event of the database, samples or calls)");
}

static void
primary(struct parser *ps)
{
    const char *s;

    skip(ps);
    s = ps->p;
    if (isdigit((unsigned char)*s) || *s == '.') {
        char *end;
        double v = strtod(s, &end);
        if (end == s) {
            fail(ps, "bad number");
            return;
        }
        ps->p = end;
        emit(ps, F_CONST, 0, v);
    } else if (*s == '(') {
        ps->p++;
        expr(ps);
        skip(ps);
        if (*ps->p != ')')
            fail(ps, "')' expected");
        else
            ps->p++;
    } else if (*s == '{') {
        const char *e = strchr(s, '}');
        if (e == NULL) {
            fail(ps, "'}' expected");
            return;
        }
        ps->p = e + 1;
        reference(ps, s + 1, (size_t)(e - s - 1));
    } else if (isalpha((unsigned char)*s) || *s == '_') {
        size_t len = 0;
        while (isalnum((unsigned char)s[len]) || s[len] == '_' || s[len] == '.' || s[len] == ':')
            len++;
        ps->p = s + len;
        skip(ps);
        if (*ps->p == '(') {
            static const struct {
                const char *name;
                int op, args;
            } fn[] = {{"min", F_MIN, 2}, {"max", F_MAX, 2}, {"sqrt", F_SQRT, 1}, {"log", F_LOG, 1}};
            size_t k;
            for (k = 0; k < 4; k++)
                if (strlen(fn[k].name) == len && strncmp(fn[k].name, s, len) == 0)
                    break;
            if (k == 4) {
                fail(ps, "unknown function (min, max, sqrt, log)");
                return;
            }
            ps->p++;
            expr(ps);
            for (int a = 1; a < fn[k].args; a++) {
                skip(ps);
                if (*ps->p != ',') {
                    fail(ps, "',' expected");
                    return;
                }
                ps->p++;
                expr(ps);
            }
            skip(ps);
            if (*ps->p != ')') {
                fail(ps, "')' expected");
                return;
            }
            ps->p++;
            emit(ps, fn[k].op, 0, 0);
        } else {
            reference(ps, s, len);
        }
    } else {
        fail(ps, *s ? "unexpected character" : "unexpected end");
    }
}

static void
unary(struct parser *ps)
{
    skip(ps);
    if (*ps->p == '-') {
        ps->p++;
        if (++ps->depth > 64) {
            fail(ps, "nested too deeply");
            return;
        }
        unary(ps);
        ps->depth--;
        emit(ps, F_NEG, 0, 0);
        return;
    }
    primary(ps);
}

static void
term(struct parser *ps)
{
    unary(ps);
    for (;;) {
        char c;
        skip(ps);
        c = *ps->p;
        if (ps->rc != RPT_OK || (c != '*' && c != '/'))
            return;
        ps->p++;
        unary(ps);
        emit(ps, c == '*' ? F_MUL : F_DIV, 0, 0);
    }
}

static void
expr(struct parser *ps)
{
    if (++ps->depth > 64) {
        fail(ps, "nested too deeply");
        return;
    }
    term(ps);
    for (;;) {
        char c;
        skip(ps);
        c = *ps->p;
        if (ps->rc != RPT_OK || (c != '+' && c != '-'))
            break;
        ps->p++;
        term(ps);
        emit(ps, c == '+' ? F_ADD : F_SUB, 0, 0);
    }
    ps->depth--;
}

int
rpt_formula_compile(const struct rpt_tree *t, const char *text, struct rpt_formula **out, char *err,
                    size_t errlen)
{
    struct parser ps = {t, text, text, NULL, 0, RPT_OK, err, errlen};

    *out = NULL;
    ps.f = calloc(1, sizeof *ps.f);
    if (ps.f == NULL)
        return RPT_ENOMEM;
    expr(&ps);
    skip(&ps);
    if (ps.rc == RPT_OK && *ps.p != '\0')
        fail(&ps, "unexpected text after the formula");
    if (ps.rc != RPT_OK) {
        rpt_formula_free(ps.f);
        return ps.rc;
    }
    *out = ps.f;
    return RPT_OK;
}

double
rpt_formula_eval(const struct rpt_formula *f, const struct rpt_tree *t, uint32_t node,
                 bool inclusive)
{
    double st[80];
    size_t sp = 0;

    for (size_t i = 0; i < f->n; i++) {
        const struct fop *o = &f->code[i];
        double a, b;
        if (sp >= 78)
            return 0; /* deeper than any formula the parser accepts */
        switch (o->op) {
        case F_CONST:
            st[sp++] = o->v;
            continue;
        case F_REF:
            st[sp++] = inclusive ? rpt_incl(t, node, o->col) : rpt_self(t, node, o->col);
            continue;
        case F_CALLS:
            st[sp++] = t->nodes[node].calls;
            continue;
        case F_NEG:
            st[sp - 1] = -st[sp - 1];
            continue;
        case F_SQRT:
            st[sp - 1] = st[sp - 1] >= 0 ? sqrt(st[sp - 1]) : 0;
            continue;
        case F_LOG:
            st[sp - 1] = st[sp - 1] > 0 ? log(st[sp - 1]) : 0;
            continue;
        default:
            break;
        }
        b = st[--sp];
        a = st[sp - 1];
        switch (o->op) {
        case F_ADD:
            a += b;
            break;
        case F_SUB:
            a -= b;
            break;
        case F_MUL:
            a *= b;
            break;
        case F_DIV:
            a = b != 0 ? a / b : 0;
            break;
        case F_MIN:
            a = fmin(a, b);
            break;
        default:
            a = fmax(a, b);
            break;
        }
        st[sp - 1] = isfinite(a) ? a : 0;
    }
    return sp == 1 ? st[0] : 0;
}

void
rpt_formula_free(struct rpt_formula *f)
{
    if (f == NULL)
        return;
    free(f->code);
    free(f);
}
