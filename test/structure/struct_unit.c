/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * struct_unit.c -- unit tests of lib/structure internals: range-set
 * operations and their text form, string interning, canonical ordering,
 * and struct_lookup on hand-built scope trees (nested, adjacent, gaps,
 * malformed overlaps).  Table-driven; cmocka.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "csp_test.h"
#include "structure/structure_internal.h"

#define R(a, b) \
    {           \
        a, b    \
    }
#define MAXR 6

struct rcase {
    const char *name;
    struct struct_range a[MAXR];
    size_t na;
    struct struct_range b[MAXR];
    size_t nb;
    struct struct_range want[MAXR];
    size_t nwant;
};

static void
expect_ranges(const char *name, const struct struct_rvec *got, const struct struct_range *want,
              size_t nwant)
{
    if (got->n != nwant)
        fail_msg("%s: got %zu ranges, want %zu", name, got->n, nwant);
    for (size_t i = 0; i < nwant; i++)
        if (got->v[i].lo != want[i].lo || got->v[i].hi != want[i].hi)
            fail_msg("%s: range %zu is [%#llx,%#llx), want [%#llx,%#llx)", name, i,
                     (unsigned long long)got->v[i].lo, (unsigned long long)got->v[i].hi,
                     (unsigned long long)want[i].lo, (unsigned long long)want[i].hi);
}

static const struct rcase normalize_cases[] = {
    {"empty", {{0, 0}}, 0, {{0, 0}}, 0, {{0, 0}}, 0},
    {"sorted already", {R(1, 2), R(4, 5)}, 2, {{0, 0}}, 0, {R(1, 2), R(4, 5)}, 2},
    {"unsorted", {R(4, 5), R(1, 2)}, 2, {{0, 0}}, 0, {R(1, 2), R(4, 5)}, 2},
    {"touching merge", {R(1, 2), R(2, 3)}, 2, {{0, 0}}, 0, {R(1, 3)}, 1},
    {"overlap merge", {R(1, 5), R(2, 3), R(4, 9)}, 3, {{0, 0}}, 0, {R(1, 9)}, 1},
    {"empty dropped", {R(3, 3), R(5, 4), R(1, 2)}, 3, {{0, 0}}, 0, {R(1, 2)}, 1},
};

static void
test_normalize(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(normalize_cases) / sizeof(normalize_cases[0]); i++) {
        const struct rcase *c = &normalize_cases[i];
        struct struct_rvec rv = {0};

        for (size_t j = 0; j < c->na; j++)
            assert_int_equal(struct_rvec_push(&rv, c->a[j].lo, c->a[j].hi), 0);
        struct_rvec_normalize(&rv);
        expect_ranges(c->name, &rv, c->want, c->nwant);
        struct_rvec_free(&rv);
    }
}

static const struct rcase intersect_cases[] = {
    {"disjoint", {R(0, 10)}, 1, {R(10, 20)}, 1, {{0, 0}}, 0},
    {"inside", {R(0, 100)}, 1, {R(10, 20), R(30, 40)}, 2, {R(10, 20), R(30, 40)}, 2},
    {"straddle", {R(0, 15), R(25, 50)}, 2, {R(10, 30)}, 1, {R(10, 15), R(25, 30)}, 2},
    {"one empty", {{0, 0}}, 0, {R(10, 30)}, 1, {{0, 0}}, 0},
};

static const struct rcase subtract_cases[] = {
    {"nothing to take", {R(0, 10)}, 1, {{0, 0}}, 0, {R(0, 10)}, 1},
    {"hole", {R(0, 100)}, 1, {R(10, 20), R(30, 40)}, 2, {R(0, 10), R(20, 30), R(40, 100)}, 3},
    {"all", {R(10, 20)}, 1, {R(0, 50)}, 1, {{0, 0}}, 0},
    {"edges", {R(10, 20), R(30, 40)}, 2, {R(5, 12), R(38, 45)}, 2, {R(12, 20), R(30, 38)}, 2},
    {"one b over two a", {R(10, 20), R(30, 40)}, 2, {R(15, 35)}, 1, {R(10, 15), R(35, 40)}, 2},
};

static void
test_intersect_subtract(void **state)
{
    struct struct_rvec out = {0};

    (void)state;
    for (size_t i = 0; i < sizeof(intersect_cases) / sizeof(intersect_cases[0]); i++) {
        const struct rcase *c = &intersect_cases[i];

        assert_int_equal(struct_ranges_intersect(c->a, c->na, c->b, c->nb, &out), 0);
        expect_ranges(c->name, &out, c->want, c->nwant);
    }
    for (size_t i = 0; i < sizeof(subtract_cases) / sizeof(subtract_cases[0]); i++) {
        const struct rcase *c = &subtract_cases[i];

        assert_int_equal(struct_ranges_subtract(c->a, c->na, c->b, c->nb, &out), 0);
        expect_ranges(c->name, &out, c->want, c->nwant);
    }
    struct_rvec_free(&out);
}

static const struct {
    const char *text;
    int rc; /* 0 ok, -1 syntax error */
    size_t n;
    struct struct_range first;
} parse_cases[] = {
    {"", 0, 0, {0, 0}},
    {"0x10-0x20", 0, 1, R(0x10, 0x20)},
    {"0x10-0x20 0x30-0x40", 0, 2, R(0x10, 0x20)},
    {"  0xAB-0xff\n", 0, 1, R(0xab, 0xff)},
    {"0xffffffffffffff00-0xffffffffffffffff", 0, 1, R(0xffffffffffffff00ULL, UINT64_MAX)},
    {"0x20-0x10", -1, 0, {0, 0}},
    {"0x10-0x10", -1, 0, {0, 0}},
    {"16-32", -1, 0, {0, 0}},
    {"0x10-", -1, 0, {0, 0}},
    {"0x10-0x20,0x30-0x40", -1, 0, {0, 0}},
    {"0x10-0x2g", -1, 0, {0, 0}},
    {"0x1-0x10000000000000000", -1, 0, {0, 0}},
};

static void
test_parse_format(void **state)
{
    struct struct_rvec rv = {0};

    (void)state;
    for (size_t i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        int rc = struct_ranges_parse(parse_cases[i].text, &rv);

        if (rc != parse_cases[i].rc)
            fail_msg("parse '%s': rc %d, want %d", parse_cases[i].text, rc, parse_cases[i].rc);
        if (rc == 0) {
            char *s;

            assert_int_equal(rv.n, parse_cases[i].n);
            if (rv.n > 0) {
                assert_true(rv.v[0].lo == parse_cases[i].first.lo);
                assert_true(rv.v[0].hi == parse_cases[i].first.hi);
            }
            /* format(parse(x)) parses back to the same ranges */
            s = struct_ranges_format(rv.v, rv.n);
            assert_non_null(s);
            {
                struct struct_rvec again = {0};

                assert_int_equal(struct_ranges_parse(s, &again), 0);
                assert_int_equal(again.n, rv.n);
                assert_memory_equal(again.v, rv.v, rv.n * sizeof(*rv.v));
                struct_rvec_free(&again);
            }
            free(s);
        }
    }
    struct_rvec_free(&rv);
}

static void
test_intern(void **state)
{
    struct struct_module *m = struct_module_new("/bin/x");
    char buf[32];
    const char *first[2000];

    (void)state;
    assert_non_null(m);
    assert_string_equal(struct_module_path(m), "/bin/x");
    assert_string_equal(struct_module_build_id(m), "");
    assert_null(struct_intern(m, NULL));
    for (int i = 0; i < 2000; i++) { /* forces the table to grow several times */
        snprintf(buf, sizeof(buf), "name%d", i);
        first[i] = struct_intern(m, buf);
        assert_non_null(first[i]);
        assert_string_equal(first[i], buf);
    }
    for (int i = 0; i < 2000; i++) {
        snprintf(buf, sizeof(buf), "name%d", i);
        assert_ptr_equal(struct_intern(m, buf), first[i]);
    }
    struct_module_free(m);
    struct_module_free(NULL);
}

/* A tree:  F > P[0x100,0x200) > { S1[0x100,0x110), A[0x120,0x180) > S2[0x130,0x140),
 *                                  S3[0x1f0,0x200) }
 *              P2[0x200,0x210) (adjacent to P) and P3 [0x300,0x310) [0x400,0x410) */
struct tree {
    struct struct_module *m;
    struct struct_scope *f, *p, *s1, *a, *s2, *s3, *p2, *p3;
};

static struct struct_scope *
mk(struct struct_module *m, struct struct_scope *parent, enum csp_scope k, uint64_t lo, uint64_t hi,
   const char *name)
{
    struct struct_range r = {lo, hi};
    struct struct_scope *s = struct_scope_new(m, parent, k, &r, lo < hi);

    assert_non_null(s);
    s->name = struct_intern(m, name);
    return s;
}

static void
build_tree(struct tree *t)
{
    struct struct_range r3[2] = {R(0x300, 0x310), R(0x400, 0x410)};

    t->m = struct_module_new("/bin/t");
    assert_non_null(t->m);
    t->f = mk(t->m, &t->m->root, CSP_SCOPE_FILE, 0, 0, "t.c");
    /* created out of address order on purpose: finalize sorts */
    t->p2 = mk(t->m, t->f, CSP_SCOPE_PROC, 0x200, 0x210, "p2");
    t->p = mk(t->m, t->f, CSP_SCOPE_PROC, 0x100, 0x200, "p");
    t->s3 = mk(t->m, t->p, CSP_SCOPE_STMT, 0x1f0, 0x200, "s3");
    t->a = mk(t->m, t->p, CSP_SCOPE_INLINE, 0x120, 0x180, "a");
    t->s2 = mk(t->m, t->a, CSP_SCOPE_STMT, 0x130, 0x140, "s2");
    t->s1 = mk(t->m, t->p, CSP_SCOPE_STMT, 0x100, 0x110, "s1");
    t->p3 = struct_scope_new(t->m, t->f, CSP_SCOPE_PROC, r3, 2);
    assert_non_null(t->p3);
    t->p3->name = "p3";
    struct_module_finalize(t->m);
}

static void
test_finalize_order(void **state)
{
    struct tree t;
    const struct struct_scope *c;
    uint32_t id = 0;

    (void)state;
    build_tree(&t);
    assert_ptr_equal(t.f->first_child, t.p);
    assert_ptr_equal(t.p->next_sibling, t.p2);
    assert_ptr_equal(t.p2->next_sibling, t.p3);
    assert_ptr_equal(t.p->first_child, t.s1);
    assert_ptr_equal(t.s1->next_sibling, t.a);
    assert_ptr_equal(t.a->next_sibling, t.s3);
    /* pre-order ids: root 1, F 2, P 3, S1 4, A 5, S2 6, S3 7, P2 8, P3 9 */
    const struct struct_scope *order[] = {&t.m->root, t.f, t.p, t.s1, t.a, t.s2, t.s3, t.p2, t.p3};
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        assert_int_equal(order[i]->id, ++id);
    for (c = t.f->first_child; c != NULL; c = c->next_sibling)
        assert_ptr_equal(c->parent, t.f);
    struct_module_free(t.m);
}

static void
test_lookup(void **state)
{
    struct tree t;
    struct {
        uint64_t addr;
        const char *want; /* NULL: no scope */
    } cases[] = {
        {0x0ff, NULL}, {0x100, "s1"}, {0x10f, "s1"}, {0x110, "p"},  {0x11f, "p"},
        {0x120, "a"},  {0x12f, "a"},  {0x130, "s2"}, {0x13f, "s2"}, {0x140, "a"},
        {0x17f, "a"},  {0x180, "p"},  {0x1ef, "p"},  {0x1f0, "s3"}, {0x1ff, "s3"},
        {0x200, "p2"}, {0x20f, "p2"}, {0x210, NULL}, {0x2ff, NULL}, {0x300, "p3"},
        {0x30f, "p3"}, {0x310, NULL}, {0x405, "p3"}, {0x410, NULL}, {UINT64_MAX, NULL},
    };

    (void)state;
    build_tree(&t);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct struct_scope *s = struct_lookup(t.m, cases[i].addr);

        if (cases[i].want == NULL && s != NULL)
            fail_msg("lookup %#llx: got %s, want none", (unsigned long long)cases[i].addr, s->name);
        if (cases[i].want != NULL && (s == NULL || strcmp(s->name, cases[i].want) != 0))
            fail_msg("lookup %#llx: got %s, want %s", (unsigned long long)cases[i].addr,
                     s ? s->name : "none", cases[i].want);
    }
    assert_null(struct_lookup(NULL, 0x100));
    struct_module_free(t.m);
}

/* Malformed input (as a hand-edited file could give): a child crossing its
 * parent's end is clipped, overlapping siblings do not crash. */
static void
test_lookup_malformed(void **state)
{
    struct struct_module *m = struct_module_new("/bin/bad");
    struct struct_scope *f, *p, *s;

    (void)state;
    assert_non_null(m);
    f = mk(m, &m->root, CSP_SCOPE_FILE, 0, 0, "f.c");
    p = mk(m, f, CSP_SCOPE_PROC, 0x100, 0x200, "p");
    s = mk(m, p, CSP_SCOPE_STMT, 0x1f0, 0x220, "crosses");
    (void)s;
    mk(m, p, CSP_SCOPE_STMT, 0x150, 0x160, "s1");
    mk(m, p, CSP_SCOPE_STMT, 0x158, 0x170, "s2 overlaps s1");
    struct_module_finalize(m);
    assert_string_equal(struct_lookup(m, 0x1f5)->name, "crosses");
    assert_null(struct_lookup(m, 0x210)); /* clipped to the procedure */
    assert_string_equal(struct_lookup(m, 0x150)->name, "s1");
    assert_non_null(struct_lookup(m, 0x15f));
    assert_string_equal(struct_lookup(m, 0x100)->name, "p");
    struct_module_free(m);
}

/* Read a whole file into a malloc'ed string. */
static char *
slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    rewind(f);
    buf = calloc(1, (size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    return buf;
}

/* Two modules in one document: write, read back, look up, write again. */
static void
test_xml_two_modules(void **state)
{
    char p1[] = "/tmp/struct_unit_XXXXXX", p2[] = "/tmp/struct_unit_XXXXXX";
    struct struct_module *mods[2], **back = NULL;
    struct tree t;
    size_t n = 0;
    char err[256];
    FILE *f;
    char *a, *b;
    int fd1 = mkstemp(p1), fd2 = mkstemp(p2);

    (void)state;
    assert_true(fd1 >= 0 && fd2 >= 0);
    build_tree(&t);
    t.m->build_id = struct_intern(t.m, "00aa11");
    t.s2->file = struct_intern(t.m, "/inc/<a&b>.h"); /* needs escaping; differs from A's file */
    t.s2->line = 42;
    t.a->call_file = struct_intern(t.m, "t.c");
    t.a->call_line = 7;
    mods[0] = t.m;
    mods[1] = struct_module_new("/lib/second \"quoted\".so");
    assert_non_null(mods[1]);
    struct_module_finalize(mods[1]);

    f = fdopen(fd1, "w");
    assert_non_null(f);
    assert_int_equal(struct_write_xml(f, mods, 2), 0);
    fclose(f);
    assert_int_equal(struct_read_xml(p1, &back, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 2);
    assert_string_equal(struct_module_path(back[0]), "/bin/t");
    assert_string_equal(struct_module_build_id(back[0]), "00aa11");
    assert_string_equal(struct_module_path(back[1]), "/lib/second \"quoted\".so");
    assert_string_equal(struct_module_build_id(back[1]), "");
    {
        const struct struct_scope *s = struct_lookup(back[0], 0x135);

        assert_non_null(s);
        assert_int_equal(s->kind, CSP_SCOPE_STMT);
        assert_string_equal(s->file, "/inc/<a&b>.h");
        assert_int_equal(s->line, 42);
        assert_int_equal(s->id, t.s2->id);
        assert_int_equal(s->parent->kind, CSP_SCOPE_INLINE);
        assert_string_equal(s->parent->call_file, "t.c");
        assert_int_equal(s->parent->call_line, 7);
        assert_null(struct_lookup(back[1], 0x135));
    }
    f = fdopen(fd2, "w");
    assert_non_null(f);
    assert_int_equal(struct_write_xml(f, back, n), 0);
    fclose(f);
    a = slurp(p1);
    b = slurp(p2);
    assert_string_equal(a, b);
    free(a);
    free(b);
    for (size_t i = 0; i < n; i++)
        struct_module_free(back[i]);
    free(back);
    struct_module_free(mods[0]);
    struct_module_free(mods[1]);
    unlink(p1);
    unlink(p2);
}

static void
test_strerror(void **state)
{
    static const int codes[] = {STRUCT_OK,    STRUCT_EIO,  STRUCT_ENOTELF,
                                STRUCT_EARCH, STRUCT_EXML, STRUCT_ENOMEM};

    (void)state;
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(struct_strerror(codes[i]), struct_strerror(codes[j]));
    assert_string_equal(struct_strerror(-99), "unknown error");
}

static void
test_demangle(void **state)
{
    static const struct {
        const char *in, *want; /* want NULL: not demangled */
    } cases[] = {
        {"_ZNK6shapes4Rect4areaEv", "shapes::Rect::area() const"},
        {"_Z5twiceIdET_S0_", "double twice<double>(double)"},
        {"main", NULL},
        {"i", NULL},
        {"_Znot-mangled", NULL},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *d = struct_demangle(cases[i].in);

        if (cases[i].want == NULL)
            assert_null(d);
        else
            assert_string_equal(d, cases[i].want);
        free(d);
    }
}

/* struct_cache_dir: which setting gives which directory (or none). */
static void
test_cache_dir(void **state)
{
    static const struct {
        const char *setting, *xdg, *home, *want; /* want NULL: no cache */
    } cases[] = {
        {NULL, "/x", "/h", "/x/csprof"},
        {"", "/x", "/h", NULL},
        {"off", "/x", "/h", NULL},
        {"/c", "/x", "/h", "/c"},
        {"default", "/x", "/h", "/x/csprof"},
        {"default", NULL, "/h", "/h/.cache/csprof"},
        {"default", "relative", "/h", "/h/.cache/csprof"},
        {"default", NULL, NULL, NULL},
    };
    char buf[64];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got =
            struct_cache_dir(cases[i].setting, cases[i].xdg, cases[i].home, buf, sizeof(buf));

        if (cases[i].want == NULL)
            assert_null(got);
        else
            assert_string_equal(got, cases[i].want);
    }
    assert_null(struct_cache_dir("default", "/a-rather-long-cache-home", NULL, buf, 8));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_normalize),        cmocka_unit_test(test_intersect_subtract),
        cmocka_unit_test(test_parse_format),     cmocka_unit_test(test_intern),
        cmocka_unit_test(test_finalize_order),   cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_lookup_malformed), cmocka_unit_test(test_xml_two_modules),
        cmocka_unit_test(test_strerror),         cmocka_unit_test(test_demangle),
        cmocka_unit_test(test_cache_dir),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    int total = (int)(sizeof(tests) / sizeof(tests[0]));

    return csp_test_finish((long)(total - failed), (long)failed);
}
