// SPDX-License-Identifier: BSD-3-Clause
// test_formula.c -- cmocka tests of the derived-metric formula parser and
// evaluator (support/formula.h): precedence, parentheses, unary minus, each
// function, the one rule for undefined values, an operand stack deeper than
// 78, and the status and
// positions of errors (unknown name, trailing text, ...).
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "csp_test.h"
#include "support/formula.h"

/* Columns: a = 8, b = 2, zero = 0, neg = -4; "A" is not "a". */
static const struct {
    const char *name;
    double value;
} columns[] = {{"a", 8}, {"b", 2}, {"zero", 0}, {"neg", -4}, {"x.y:z", 5}};

static int
resolve(const char *name, size_t len, void *arg)
{
    (void)arg;
    for (size_t i = 0; i < sizeof(columns) / sizeof(columns[0]); i++)
        if (strlen(columns[i].name) == len && memcmp(columns[i].name, name, len) == 0)
            return (int)i;
    return -1;
}

static double
value(int col, void *arg)
{
    (void)arg;
    return columns[col].value;
}

/* Compile @text and evaluate it; fail the test if it does not compile. */
static double
eval(const char *text)
{
    struct csp_formula *f = NULL;
    struct csp_formula_error err = {0};
    double scratch[256], v;
    int rc = csp_formula_compile(text, resolve, NULL, &f, &err);

    if (rc != CSP_FORMULA_OK)
        fail_msg("'%s': %s at %zu", text, csp_formula_strerror(rc), err.start);
    assert_true(csp_formula_scratch(f) >= 1 && csp_formula_scratch(f) <= 256);
    v = csp_formula_eval(f, value, NULL, scratch);
    csp_formula_free(f);
    return v;
}

static void
test_values(void **state)
{
    static const struct {
        const char *text;
        double want;
    } cases[] = {
        {"1 + 2 * 3", 7},       /* precedence */
        {"(1 + 2) * 3", 9},     /* parentheses */
        {"8 - 2 - 1", 5},       /* left associative */
        {"a / b / 2", 2},       /* left associative */
        {"a - b * 3 + 1", 3},   /* mixed */
        {"-a", -8},             /* unary minus */
        {"--a", 8},             /* twice */
        {"-a * -b", 16},        /* binds tighter than '*' */
        {"2 - -a", 10},         /* after a binary operator */
        {"-(a + b)", -10},      /* on a group */
        {"min(a, b)", 2},       /* functions */
        {"max(a, b)", 8},       /* */
        {"sqrt(a * b)", 4},     /* */
        {"log(1)", 0},          /* */
        {"log(a) / log(b)", 3}, /* */
        {"max(min(a, 3), b) + sqrt(16)", 7},
        {"{a} + {x.y:z}", 13}, /* braces, name characters */
        {"x.y:z", 5},          /* */
        {".5 * 4 + 1e1", 12},  /* numbers as strtod() reads them */
        {" \ta\t*\t2 ", 16},   /* blanks */
        {"a\n+\rb\f", 10},     /* any isspace() byte */
        {"((((a))))", 8},      /* */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double v = eval(cases[i].text);

        if (fabs(v - cases[i].want) > 1e-12)
            fail_msg("'%s': %g, want %g", cases[i].text, v, cases[i].want);
    }
}

/* x/0, sqrt(< 0), log(<= 0), overflow: the whole value is undefined (NaN). */
static void
test_undefined(void **state)
{
    static const struct {
        const char *text;
        int defined;
        double want;
    } cases[] = {
        {"a / zero", 0, 0},
        {"1 + a / zero", 0, 0},
        {"1 + a / (b - 2)", 0, 0},
        {"5 + sqrt(neg)", 0, 0},
        {"5 + log(zero)", 0, 0},
        {"5 + log(neg)", 0, 0},
        {"a / 0.5", 1, 16},
        {"sqrt(zero) + 1", 1, 1},
        {"min(1e300 * 1e300, 5)", 0, 0}, /* overflow, even when min would drop it */
        {"1 / (1e300 * 1e300)", 0, 0},
        {"1e300 * 1e300", 0, 0},
        {"max(zero / zero, 3)", 0, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        double v = eval(cases[i].text);

        if (cases[i].defined ? v != cases[i].want : !isnan(v))
            fail_msg("'%s': %g, want %s", cases[i].text, v, cases[i].defined ? "a value" : "NaN");
    }
    assert_false(signbit(eval("zero / neg"))); /* -0 is 0: no "-0" in the outputs */
}

static void
test_errors(void **state)
{
    static const struct {
        const char *text;
        int rc;
        size_t start, at, len;
    } cases[] = {
        {"nosuch * 2", CSP_FORMULA_ENAME, 0, 7, 6}, /* unknown name */
        {"a + {A}", CSP_FORMULA_ENAME, 5, 7, 1},    /* names are exact */
        {"a + ", CSP_FORMULA_EEND, 4, 4, 0},
        {"a + )", CSP_FORMULA_ECHAR, 4, 4, 0},
        {"a + .x", CSP_FORMULA_EBADNUM, 4, 4, 0},
        {"a 2", CSP_FORMULA_ETRAILING, 2, 2, 0}, /* trailing garbage */
        {"a)", CSP_FORMULA_ETRAILING, 1, 1, 0},  /* */
        {"(a", CSP_FORMULA_ERPAREN, 2, 2, 0},
        {"sqrt(a", CSP_FORMULA_ERPAREN, 6, 6, 0},
        {"{a", CSP_FORMULA_ERBRACE, 0, 0, 0},
        {"min(a)", CSP_FORMULA_ECOMMA, 5, 5, 0},
        {"sqrt(a, b)", CSP_FORMULA_ERPAREN, 6, 6, 0},
        {"pow (2, 3)", CSP_FORMULA_EFUNC, 0, 4, 3}, /* unknown function */
        {"1e999", CSP_FORMULA_ERANGE, 0, 0, 0},
        {"1e999 * a", CSP_FORMULA_ERANGE, 0, 0, 0}, /* a non-finite constant is refused */
        {"a + -1e400", CSP_FORMULA_ERANGE, 5, 5, 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct csp_formula *f = (struct csp_formula *)&f; /* must become NULL */
        struct csp_formula_error err = {99, 99, 99};
        int rc = csp_formula_compile(cases[i].text, resolve, NULL, &f, &err);

        if (rc != cases[i].rc || f != NULL || err.start != cases[i].start ||
            err.at != cases[i].at || err.len != cases[i].len)
            fail_msg("'%s': rc %d start %zu at %zu len %zu", cases[i].text, rc, err.start, err.at,
                     err.len);
        assert_non_null(csp_formula_strerror(rc));
    }
    assert_string_equal(csp_formula_strerror(CSP_FORMULA_ENAME), "no metric of this name");
}

static void
test_depth(void **state)
{
    char deep[400];
    struct csp_formula *f = NULL;
    struct csp_formula_error err;
    size_t i, n = 0;

    (void)state;
    for (i = 0; i < 63; i++) /* 63 groups inside the top-level expression: accepted */
        deep[i] = '(';
    deep[i] = 'a';
    memset(deep + i + 1, ')', 63);
    deep[i + 64] = '\0';
    assert_true(eval(deep) == 8);
    memmove(deep + 1, deep, strlen(deep) + 1); /* 64: too deep */
    memcpy(deep + strlen(deep), ")", 2);
    assert_int_equal(csp_formula_compile(deep, resolve, NULL, &f, &err), CSP_FORMULA_EDEPTH);
    assert_null(f);
    csp_formula_free(NULL);

    /* "1+1*(1+1*(...))": two operands a level, an operand stack of 100 (the report
     * once answered 0 from 78 on) */
    for (i = 0; i < 49; i++)
        n += (size_t)sprintf(deep + n, "1+1*(");
    n += (size_t)sprintf(deep + n, "1+1");
    memset(deep + n, ')', 49);
    deep[n + 49] = '\0';
    assert_int_equal(csp_formula_compile(deep, resolve, NULL, &f, &err), CSP_FORMULA_OK);
    assert_true(csp_formula_scratch(f) >= 78);
    csp_formula_free(f);
    assert_true(eval(deep) == 51);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_undefined),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_depth),
    };
    size_t total = sizeof(tests) / sizeof(tests[0]);
    int failed = cmocka_run_group_tests_name("support formula", tests, NULL, NULL);

    return csp_test_finish((long)(total - (size_t)failed), (long)failed);
}
