/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * formula.h -- derived-metric formulas: one parser and one evaluator for
 * csprof-prof -M 'NAME=EXPR' (lib/profile/prof_derived.c) and
 * csprof-report --metric (lib/report/formula.c).
 *
 * The grammar (HPCView, [HPCView] §2), parsed by recursive descent into
 * postfix code:
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | '(' expr ')' | FUNC '(' expr [',' expr] ')'
 *            | NAME | '{' any characters but '}' '}'
 *   FUNC    := min | max (two arguments) | sqrt | log (one argument)
 *   NAME    := [A-Za-z_][A-Za-z0-9_.:]*
 * NUMBER is what strtod() reads from a digit, or from '.' and a digit.
 * Parentheses and unary minus nest at most 64 deep.  What a NAME means is
 * the caller's business: a resolver maps it to a column index.
 *
 * Tool code: uses malloc.  Never prints.  [not async-signal-safe]
 */
#ifndef CSP_FORMULA_H
#define CSP_FORMULA_H

#include <stddef.h>

struct csp_formula; /* opaque: a compiled formula */

enum csp_formula_status {
    CSP_FORMULA_OK = 0,
    CSP_FORMULA_ENOMEM = -1,     /* allocation failed */
    CSP_FORMULA_EEND = -2,       /* an operand expected, the text ended */
    CSP_FORMULA_ECHAR = -3,      /* an operand expected, another character found */
    CSP_FORMULA_EBADNUM = -4,    /* '.' that does not start a number */
    CSP_FORMULA_ERANGE = -5,     /* a number strtod() reads as infinite */
    CSP_FORMULA_ERPAREN = -6,    /* ')' expected */
    CSP_FORMULA_ERBRACE = -7,    /* '}' expected */
    CSP_FORMULA_ECOMMA = -8,     /* ',' expected: min and max take 2 arguments */
    CSP_FORMULA_EFUNC = -9,      /* unknown function */
    CSP_FORMULA_ENAME = -10,     /* the resolver does not know this name */
    CSP_FORMULA_EDEPTH = -11,    /* nested too deeply */
    CSP_FORMULA_ETRAILING = -12, /* an operator or the end expected */
};

/* Where compilation stopped.  Offsets count bytes of the text from 0. */
struct csp_formula_error {
    size_t start; /* first character of the offending token: the name for
                     CSP_FORMULA_ENAME (inside braces) and CSP_FORMULA_EFUNC,
                     else equal to at */
    size_t at;    /* where the parser stood: after the name and the blanks
                     following it (after the '}') for ENAME and EFUNC */
    size_t len;   /* ENAME and EFUNC: length of the name; else 0 */
};

/*
 * Map the metric name @name (@len bytes, not NUL-terminated) to a column
 * index >= 0, or return -1 if there is no such metric.  @arg is the
 * caller's context, passed through.
 */
typedef int csp_formula_resolve_fn(const char *name, size_t len, void *arg);

/* Value of column @col (an index a resolver returned) for one evaluation. */
typedef double csp_formula_value_fn(int col, void *arg);

/*
 * Compile @text (NUL-terminated; the caller keeps it), resolving every
 * NAME through @resolve(@arg).  Any isspace() character separates tokens.
 * A number strtod() reads as infinite (1e999) is refused
 * (CSP_FORMULA_ERANGE).  The operand stack has no fixed limit: evaluate
 * with csp_formula_scratch() doubles.
 * Returns CSP_FORMULA_OK with *@out set (the caller owns it: free with
 * csp_formula_free()), or a negative enum csp_formula_status with *@out
 * NULL and, unless the status is CSP_FORMULA_ENOMEM, *@err (when non-NULL)
 * saying where.  The first error found is the one reported.
 * [not async-signal-safe]
 */
int csp_formula_compile(const char *text, csp_formula_resolve_fn *resolve, void *arg,
                        struct csp_formula **out, struct csp_formula_error *err);

/*
 * Doubles of scratch csp_formula_eval() needs for @f (the deepest its
 * operand stack gets; at least 1).  [not async-signal-safe]
 */
size_t csp_formula_scratch(const struct csp_formula *f);

/*
 * Value of @f, with each referenced column's value from @value(col, @arg),
 * in the caller's units.  @scratch holds csp_formula_scratch(@f) doubles;
 * the caller owns it, and may share it between formulas evaluated one at a
 * time.  One rule for csprof-prof's stored values and csprof-report:
 * the value is undefined, and NaN is returned, as soon as one operation has
 * no real result (x/0, sqrt of a negative number, log of a non-positive
 * number), an operand is not finite, or a result overflows; otherwise the
 * value is finite.  Callers show an undefined value as 0 and count it
 * (csprof-prof reports how many nodes had one, per metric).  min and max
 * are a < b ? a : b and a > b ? a : b.  Cannot fail.  [not async-signal-safe]
 */
double csp_formula_eval(const struct csp_formula *f, csp_formula_value_fn *value, void *arg,
                        double *scratch);

/* Free @f; NULL is allowed.  [not async-signal-safe] */
void csp_formula_free(struct csp_formula *f);

/*
 * A static one-line description of a negative csp_formula status (the
 * wording csprof-prof prints); the caller must not free it.
 * [not async-signal-safe: not meant for signal context, though it calls nothing]
 */
const char *csp_formula_strerror(int status);

#endif /* CSP_FORMULA_H */
