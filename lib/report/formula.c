/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * formula.c -- derived metrics of a database (csprof-prof -M 'NAME=EXPR',
 * stored as Metric formula="EXPR") evaluated on the nodes of a view.
 *
 * Tool code.  The grammar is csprof-prof's, and so is the parser
 * (support/formula.h), and so is the rule for undefined values.
 * A NAME is an event of the view's value columns ("CPUTIME", "samples") or
 * "calls".  A view node's inclusive value is computed from the inclusive
 * operands, its exclusive value from the exclusive ones, as csprof-prof
 * does for stored nodes; so where a view node is one stored node the values
 * are the stored ones, and where a view merged nodes (hidden frames, merged
 * siblings, flat rows) the formula is applied to the merged values, not
 * summed.  x/0, sqrt of a negative number, log of a non-positive one or an
 * overflow make the whole value undefined, shown as 0, as csprof-prof stores
 * it.  Error messages keep this file's wording and
 * name the position where the parser stopped.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/report_internal.h"
#include "support/formula.h"

struct rpt_formula {
    struct csp_formula *code;
    double *scratch; /* csp_formula_scratch(code) doubles */
};

/* A name's column: a value column of the tree, nvalues for "calls", or -1. */
static int
resolve(const char *name, size_t len, void *arg)
{
    const struct rpt_tree *t = arg;
    char buf[256];

    if (len >= sizeof buf)
        return -1; /* "name too long" */
    memcpy(buf, name, len);
    buf[len] = '\0';
    if (strcasecmp(buf, "calls") == 0)
        return t->nvalues;
    for (int c = 0; c < t->nvalues; c++)
        if (strcasecmp(t->db->metrics[t->metric_of[c]].event, buf) == 0)
            return c;
    return -1;
}

static const char *
reason(int rc, size_t len)
{
    switch (rc) {
    case CSP_FORMULA_EEND:
        return "unexpected end";
    case CSP_FORMULA_ECHAR:
        return "unexpected character";
    case CSP_FORMULA_EBADNUM:
        return "bad number";
    case CSP_FORMULA_ECOMMA:
        return "',' expected";
    case CSP_FORMULA_ENAME:
        return len >= 256 ? "name too long"
                          : "unknown metric (an event of the database, samples or calls)";
    case CSP_FORMULA_ETRAILING:
        return "unexpected text after the formula";
    default:
        return csp_formula_strerror(rc);
    }
}

int
rpt_formula_compile(const struct rpt_tree *t, const char *text, struct rpt_formula **out, char *err,
                    size_t errlen)
{
    struct csp_formula_error where;
    struct rpt_formula *f;
    int rc;

    *out = NULL;
    f = calloc(1, sizeof *f);
    if (f == NULL)
        return RPT_ENOMEM;
    rc = csp_formula_compile(text, resolve, (void *)t, &f->code, &where);
    if (rc != CSP_FORMULA_OK) {
        free(f);
        if (rc == CSP_FORMULA_ENOMEM)
            return RPT_ENOMEM;
        rpt_errf(err, errlen, "formula '%s': position %zu: %s", text, where.at + 1,
                 reason(rc, where.len));
        return RPT_EINVAL;
    }
    f->scratch = malloc(csp_formula_scratch(f->code) * sizeof *f->scratch);
    if (f->scratch == NULL) {
        rpt_formula_free(f);
        return RPT_ENOMEM;
    }
    *out = f;
    return RPT_OK;
}

struct operands {
    const struct rpt_tree *t;
    uint32_t node;
    bool inclusive;
};

static double
operand(int col, void *arg)
{
    const struct operands *o = arg;

    if (col == o->t->nvalues)
        return o->t->nodes[o->node].calls;
    return o->inclusive ? rpt_incl(o->t, o->node, col) : rpt_self(o->t, o->node, col);
}

double
rpt_formula_eval(const struct rpt_formula *f, const struct rpt_tree *t, uint32_t node,
                 bool inclusive)
{
    struct operands o = {t, node, inclusive};
    double x = csp_formula_eval(f->code, operand, &o, f->scratch);

    return isnan(x) ? 0 : x; /* undefined: shown as 0, as csprof-prof stores it */
}

void
rpt_formula_free(struct rpt_formula *f)
{
    if (f == NULL)
        return;
    csp_formula_free(f->code);
    free(f->scratch);
    free(f);
}
