// SPDX-License-Identifier: BSD-3-Clause
// test_prims.c -- cmocka tests of lib/support's primitives: binary search
// (support/search.h) checked against a linear scan on tables and random
// arrays, sorted sets of uint64_t, the growable array (support/vec.h), the
// hash map (support/hashmap.h, unique and hashed keys) checked against a
// plain array oracle, the raw system calls of support/sysio.h, the
// little-endian and hexadecimal byte primitives (support/bytes.h) against
// bytes written out by hand, the string interner (support/strtab.h), and the DB/thread-values.bin codec (support/tvfile.h).
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "csp_test.h"
#include "support/bytes.h"
#include "support/hashmap.h"
#include "support/search.h"
#include "support/sort.h"
#include "support/strtab.h"
#include "support/sysio.h"
#include "support/tvfile.h"
#include "support/vec.h"

struct rec {
    uint32_t tag;
    uint64_t key; /* at offset 8 on x86-64; the search takes offsetof */
};

static size_t
linear_lower(const struct rec *r, size_t n, uint64_t v)
{
    size_t i = 0;

    while (i < n && r[i].key < v)
        i++;
    return i;
}

static size_t
linear_upper(const struct rec *r, size_t n, uint64_t v)
{
    size_t i = 0;

    while (i < n && r[i].key <= v)
        i++;
    return i;
}

static void
test_bounds_table(void **state)
{
    static const struct {
        const char *name;
        uint64_t keys[6];
        size_t n;
        uint64_t v;
        size_t lower, upper;
    } cases[] = {
        {"empty", {0}, 0, 5, 0, 0},
        {"before all", {10, 20, 30}, 3, 5, 0, 0},
        {"equal to first", {10, 20, 30}, 3, 10, 0, 1},
        {"between", {10, 20, 30}, 3, 25, 2, 2},
        {"after all", {10, 20, 30}, 3, 31, 3, 3},
        {"duplicates", {10, 20, 20, 20, 30}, 5, 20, 1, 4},
        {"max key", {1, UINT64_MAX}, 2, UINT64_MAX, 1, 2},
    };
    (void)state;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        struct rec r[6];

        for (size_t i = 0; i < cases[c].n; i++)
            r[i] = (struct rec){(uint32_t)i, cases[c].keys[i]};
        if (csp_lower_bound_u64(r, cases[c].n, sizeof(r[0]), offsetof(struct rec, key),
                                cases[c].v) != cases[c].lower ||
            csp_upper_bound_u64(r, cases[c].n, sizeof(r[0]), offsetof(struct rec, key),
                                cases[c].v) != cases[c].upper)
            fail_msg("case \"%s\"", cases[c].name);
    }
}

static void
test_bounds_random(void **state)
{
    uint64_t x = 88172645463325252ULL;
    struct rec r[300];

    (void)state;
    for (int round = 0; round < 50; round++) {
        size_t n = (size_t)(round * 6);
        uint64_t k = 0;

        for (size_t i = 0; i < n; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            k += x % 4; /* steps of 0..3: duplicates and gaps */
            r[i] = (struct rec){0, k};
        }
        for (uint64_t v = 0; v <= k + 1; v++) {
            assert_int_equal(csp_lower_bound_u64(r, n, sizeof(r[0]), offsetof(struct rec, key), v),
                             linear_lower(r, n, v));
            assert_int_equal(csp_upper_bound_u64(r, n, sizeof(r[0]), offsetof(struct rec, key), v),
                             linear_upper(r, n, v));
        }
    }
}

static void
test_range_find(void **state)
{
    static const struct csp_range r[] = {{0x10, 0x20}, {0x20, 0x28}, {0x40, 0x50}};
    static const struct {
        uint64_t addr;
        ptrdiff_t want;
        size_t first_after;
    } cases[] = {
        {0x0, -1, 0}, {0x10, 0, 0},  {0x1f, 0, 0},        {0x20, 1, 1},
        {0x27, 1, 1}, {0x28, -1, 2}, {0x3f, -1, 2},       {0x40, 2, 2},
        {0x4f, 2, 2}, {0x50, -1, 3}, {UINT64_MAX, -1, 3},
    };
    (void)state;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        assert_int_equal(csp_range_find(r, 3, sizeof(r[0]), cases[c].addr), cases[c].want);
        assert_int_equal(csp_range_first_after(r, 3, sizeof(r[0]), cases[c].addr),
                         cases[c].first_after);
    }
    assert_int_equal(csp_range_find(r, 0, sizeof(r[0]), 0x10), -1);
}

static void
test_vec(void **state)
{
    uint32_t *v = NULL;
    size_t n = 0, cap = 0;

    (void)state;
    for (uint32_t i = 0; i < 100000; i++) {
        assert_int_equal(csp_vec_reserve(&v, &cap, n + 1, sizeof(*v)), 0);
        assert_true(cap >= n + 1);
        v[n++] = i * 3;
    }
    for (uint32_t i = 0; i < 100000; i++)
        assert_int_equal(v[i], i * 3);
    /* Already large enough: nothing moves. */
    {
        uint32_t *before = v;
        size_t cap_before = cap;

        assert_int_equal(csp_vec_reserve(&v, &cap, 10, sizeof(*v)), 0);
        assert_ptr_equal(v, before);
        assert_int_equal(cap, cap_before);
    }
    /* Overflowing byte sizes fail and leave the array alone. */
    {
        uint32_t *before = v;
        size_t cap_before = cap;

        assert_int_equal(csp_vec_reserve(&v, &cap, SIZE_MAX / 2, sizeof(*v)), -1);
        assert_ptr_equal(v, before);
        assert_int_equal(cap, cap_before);
    }
    free(v);
}

static void
test_hashmap(void **state)
{
    enum { N = 20000 };
    static int vals[N];
    struct csp_hmap h = {0};

    (void)state;
    assert_null(csp_hmap_get(&h, 42));
    /* Aligned addresses (clustered low bits), plus key 0. */
    for (size_t i = 0; i < N; i++)
        assert_int_equal(csp_hmap_put(&h, (uint64_t)i * 64, &vals[i]), 0);
    assert_int_equal(h.n, N);
    for (size_t i = 0; i < N; i++) {
        assert_ptr_equal(csp_hmap_get(&h, (uint64_t)i * 64), &vals[i]);
        assert_null(csp_hmap_get(&h, (uint64_t)i * 64 + 1));
    }
    /* Replacing keeps the count. */
    assert_int_equal(csp_hmap_put(&h, 64, &vals[0]), 0);
    assert_ptr_equal(csp_hmap_get(&h, 64), &vals[0]);
    assert_int_equal(h.n, N);
    assert_int_equal(csp_hmap_put(&h, 7, NULL), -1);
    csp_hmap_free(&h);
    assert_null(csp_hmap_get(&h, 0));
    assert_int_not_equal(csp_hash_str("main"), csp_hash_str("mainx"));
    assert_int_equal(csp_hash_str(""), 0xcbf29ce484222325ULL);
}

static void
test_sort_unique(void **state)
{
    enum { N = 5000 };
    static uint64_t v[N];
    static bool seen[1000];
    size_t n, distinct = 0;

    (void)state;
    assert_int_equal(csp_sort_unique_u64(NULL, 0), 0);
    srand(7);
    for (size_t i = 0; i < N; i++) {
        v[i] = (uint64_t)(rand() % 1000) << 40; /* high bits: a comparison, not a subtraction */
        if (!seen[v[i] >> 40]) {
            seen[v[i] >> 40] = true;
            distinct++;
        }
    }
    n = csp_sort_unique_u64(v, N);
    assert_int_equal(n, distinct);
    for (size_t i = 1; i < n; i++)
        assert_true(v[i - 1] < v[i]);
    for (size_t i = 0; i < n; i++)
        assert_true(seen[v[i] >> 40]);
    assert_int_equal(csp_cmp_u64(&v[0], &v[1]), -1);
    assert_int_equal(csp_cmp_u64(&v[1], &v[0]), 1);
    assert_int_equal(csp_cmp_u64(&v[0], &v[0]), 0);
}

/* A hashed-key value: the full key, and a hash that collides on purpose. */
struct hkey {
    uint64_t a, b;
};

static bool
hkey_eq(const void *val, const void *key)
{
    const struct hkey *x = val, *y = key;

    return x->a == y->a && x->b == y->b;
}

static void
test_hashmap_hashed(void **state)
{
    enum { N = 3000 };
    static struct hkey keys[N];
    struct csp_hmap h = {0};

    (void)state;
    assert_null(csp_hmap_find(&h, 1, hkey_eq, &keys[0]));
    /* Only 16 distinct hashes for N keys: every lookup walks collisions, through rehashes. */
    for (size_t i = 0; i < N; i++) {
        keys[i] = (struct hkey){i / 7, i % 7};
        assert_null(csp_hmap_find(&h, i % 16, hkey_eq, &keys[i]));
        assert_int_equal(csp_hmap_add(&h, i % 16, &keys[i]), 0);
    }
    assert_int_equal(h.n, N);
    for (size_t i = 0; i < N; i++) {
        struct hkey k = {i / 7, i % 7}, other = {i / 7, 9};

        assert_ptr_equal(csp_hmap_find(&h, i % 16, hkey_eq, &k), &keys[i]);
        assert_null(csp_hmap_find(&h, (i + 1) % 16, hkey_eq, &k)); /* right key, wrong hash */
        assert_null(csp_hmap_find(&h, i % 16, hkey_eq, &other));
    }
    assert_int_equal(csp_hmap_add(&h, 3, NULL), -1);
    csp_hmap_free(&h);

    /* reserve: no growth afterwards for that many unique keys. */
    assert_int_equal(csp_hmap_reserve(&h, 1000), 0);
    {
        size_t cap = h.cap;

        assert_true(cap * 3 / 4 >= 1000);
        for (size_t i = 0; i < 1000; i++)
            assert_int_equal(csp_hmap_put(&h, i, &keys[i]), 0);
        assert_int_equal(h.cap, cap);
        for (size_t i = 0; i < 1000; i++)
            assert_ptr_equal(csp_hmap_get(&h, i), &keys[i]);
    }
    assert_int_equal(csp_hmap_reserve(&h, 10), 0); /* never shrinks */
    assert_ptr_equal(csp_hmap_get(&h, 999), &keys[999]);
    csp_hmap_free(&h);
}

static void
test_sysio(void **state)
{
    char path[] = "/tmp/test_prims.XXXXXX", buf[16] = "";
    int fd = mkstemp(path);

    (void)state;
    assert_true(fd >= 0);
    unlink(path);
    assert_int_equal(csp_sys_write(fd, "abcdef", 6), 6);
    assert_int_equal(csp_sys_pwrite(fd, "XY", 2, 2), 2); /* in place, offset unchanged */
    assert_int_equal(lseek(fd, 0, SEEK_CUR), 6);
    assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
    assert_int_equal(csp_sys_read(fd, buf, sizeof(buf)), 6);
    assert_memory_equal(buf, "abXYef", 6);
    assert_int_equal(csp_sys_read(fd, buf, sizeof(buf)), 0); /* end of file */
    close(fd);
    errno = 0;
    assert_int_equal(csp_sys_write(fd, "a", 1), -1);
    assert_int_equal(errno, EBADF);
    errno = 0;
    assert_int_equal(csp_sys_read(-1, buf, 1), -1);
    assert_int_equal(errno, EBADF);
}

/* ---- sort.h ---------------------------------------------------------- */

struct keyed {
    uint64_t key;
    uint32_t idx; /* position before sorting: the stable order of equal keys */
};

#define KEYED_LESS(a, b) ((a)->key < (b)->key)
CSP_SORT_DEFINE(sort_keyed, struct keyed, KEYED_LESS)

static int
keyed_ref_cmp(const void *pa, const void *pb)
{
    const struct keyed *a = pa, *b = pb;

    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/*
 * CSP_SORT_DEFINE's sort against qsort with the index as tie-breaker (the
 * stable order), on sizes around the run length and the stack buffer,
 * with few or many distinct keys, on sorted, reversed and random input.
 */
static void
test_sort_stable(void **state)
{
    static const size_t sizes[] = {0,  1,   2,   3,   15,  16,   17,   31,
                                   33, 100, 255, 256, 257, 1000, 5000, 70000};
    static const uint64_t spans[] = {1, 3, 50, UINT64_MAX};
    unsigned seed = 12345;

    (void)state;
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
        for (size_t ki = 0; ki < sizeof(spans) / sizeof(spans[0]); ki++)
            for (int shape = 0; shape < 3; shape++) {
                size_t n = sizes[si];
                struct keyed *v = malloc((n + 1) * sizeof(*v)),
                             *ref = malloc((n + 1) * sizeof(*ref));

                assert_non_null(v);
                assert_non_null(ref);
                for (size_t i = 0; i < n; i++) {
                    uint64_t r = ((uint64_t)rand_r(&seed) << 31) ^ (uint64_t)rand_r(&seed);

                    v[i].key = shape == 0   ? r % (spans[ki] == UINT64_MAX ? UINT64_MAX : spans[ki])
                               : shape == 1 ? (uint64_t)i / (spans[ki] == 1 ? 1 : 2)
                                            : (uint64_t)(n - i) / (spans[ki] == 1 ? 1 : 2);
                    v[i].idx = (uint32_t)i;
                }
                memcpy(ref, v, n * sizeof(*v));
                if (n > 0)
                    qsort(ref, n, sizeof(*ref), keyed_ref_cmp);
                sort_keyed(v, n);
                for (size_t i = 0; i < n; i++)
                    if (v[i].key != ref[i].key || v[i].idx != ref[i].idx)
                        fail_msg(
                            "n %zu span %zu shape %d: element %zu is (%llu, %u), expected (%llu, %u)",
                            n, ki, shape, i, (unsigned long long)v[i].key, v[i].idx,
                            (unsigned long long)ref[i].key, ref[i].idx);
                free(v);
                free(ref);
            }
}

/* support/strtab.h: dense ids in order of first appearance, one copy each, across rehashes. */
static void
test_strtab(void **state)
{
    struct csp_strtab t = {0};
    char buf[32];
    uint32_t id;

    (void)state;
    assert_int_equal(csp_strtab_find(&t, "a"), CSP_STRTAB_NONE); /* empty: no index yet */
    for (int i = 0; i < 3000; i++) {
        snprintf(buf, sizeof buf, "s%d", i % 1000 == 999 ? 0 : i); /* repeats of "s0" */
        assert_int_equal(csp_strtab_intern(&t, buf, &id), 0);
        assert_int_equal(id, i % 1000 == 999 ? 0 : i - i / 1000);
    }
    assert_int_equal(t.n, 2997);
    assert_string_equal(t.strs[1234], "s1235");
    assert_int_equal(csp_strtab_find(&t, "s2999"), CSP_STRTAB_NONE); /* it was a repeat */
    assert_int_equal(csp_strtab_find(&t, "s2998"), 2996);
    assert_int_equal(csp_strtab_intern(&t, NULL, &id), 0); /* NULL is "" */
    assert_int_equal(csp_strtab_find(&t, ""), id);
    csp_strtab_free(&t);
    assert_int_equal(t.n, 0);
    assert_null(t.strs);
}

/* support/bytes.h: the byte order and digits of every format, against bytes spelled out. */
static void
test_bytes(void **state)
{
    const uint8_t le[8] = {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x81};
    const uint8_t one[8] = {0, 0, 0, 0, 0, 0, 0xf0, 0x3f}; /* 1.0 */
    uint8_t out[9];
    char hex[17];

    (void)state;
    assert_true(csp_le_load32(le) == 0x05060708u);
    assert_true(csp_le_load64(le) == 0x8102030405060708ull);
    assert_true(csp_le_load(le, 2) == 0x0708u);
    assert_true(csp_le_load(le, 3) == 0x060708u);
    assert_true(csp_le_load(le, 0) == 0);
    assert_true(csp_le_load_f64(one) == 1.0);

    memset(out, 0xee, sizeof out);
    csp_le_store64(out, 0x8102030405060708ull);
    assert_memory_equal(out, le, 8);
    assert_int_equal(out[8], 0xee); /* nothing past the 8 bytes */
    memset(out, 0xee, sizeof out);
    csp_le_store32(out, 0x05060708u);
    assert_memory_equal(out, le, 4);
    assert_int_equal(out[4], 0xee);
    csp_le_store_f64(out, 1.0);
    assert_memory_equal(out, one, 8);

    assert_int_equal(csp_hex(le, 8, hex, sizeof hex), 16);
    assert_string_equal(hex, "0807060504030281");
    assert_int_equal(csp_hex(le, 8, hex, 6), 4); /* whole bytes that fit, terminated */
    assert_string_equal(hex, "0807");
    assert_int_equal(csp_hex(le, 0, hex, sizeof hex), 0);
    assert_string_equal(hex, "");
}

/* thread-values.bin: a file written entry by entry reads back exactly, with the exclusive value
   stored only when it is neither the inclusive one nor 0; entries skipped with their group; every
   truncation is an error, never a silent end; another magic or version is refused. */
static void
test_tvfile(void **state)
{
    const struct tvf_entry in[] = {{0, 0, 2.5, 2.5}, {7, 1, 1.25, 0}, {9, 0, 3.0, 0.5}};
    unsigned char buf[TVF_HEADER_SIZE + 2 * TVF_GROUP_SIZE + 3 * TVF_ENTRY_MAX];
    struct tvf_header h = {2, 5, 3, 10}, hr;
    struct tvf_group g1 = {TVF_OVER_THREAD, 4, 3}, g2 = {TVF_OVER_THREAD, 1, 0}, gr;
    struct tvf_reader r;
    struct tvf_entry e;
    size_t len = 0, sizes[3];

    (void)state;
    tvf_put_header(buf, &h);
    len = TVF_HEADER_SIZE;
    tvf_put_group(buf + len, &g1);
    len += TVF_GROUP_SIZE;
    for (int k = 0; k < 3; k++)
        len += sizes[k] = tvf_put_entry(buf + len, &in[k]);
    assert_int_equal(sizes[0], TVF_ENTRY_SIZE); /* exclusive = inclusive: not stored */
    assert_int_equal(sizes[1], TVF_ENTRY_SIZE); /* exclusive 0: not stored */
    assert_int_equal(sizes[2], TVF_ENTRY_MAX);
    tvf_put_group(buf + len, &g2);
    len += TVF_GROUP_SIZE;
    assert_memory_equal(buf, "CSPTHRV1", 8);

    assert_int_equal(tvf_read_header(&r, buf, len, &hr), 0);
    assert_int_equal(hr.ncols, 2);
    assert_int_equal(hr.nthreads, 5);
    assert_int_equal(hr.nprocesses, 3);
    assert_int_equal(hr.nnodes, 10);
    assert_int_equal(tvf_next_group(&r, &gr), 1);
    assert_int_equal(gr.index, 4);
    assert_int_equal(gr.count, 3);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(tvf_next_entry(&r, &e), 1);
        assert_int_equal(e.node, in[k].node);
        assert_int_equal(e.column, in[k].column);
        assert_true(e.incl == in[k].incl && e.excl == in[k].excl);
    }
    assert_int_equal(tvf_next_entry(&r, &e), 0);
    assert_int_equal(tvf_next_group(&r, &gr), 1);
    assert_int_equal(gr.index, 1);
    assert_int_equal(tvf_next_entry(&r, &e), 0);
    assert_int_equal(tvf_next_group(&r, &gr), 0);
    assert_int_equal(tvf_offset(&r), len);

    /* a group's entries skipped by asking for the next group */
    assert_int_equal(tvf_read_header(&r, buf, len, &hr), 0);
    assert_int_equal(tvf_next_group(&r, &gr), 1);
    assert_int_equal(tvf_next_group(&r, &gr), 1);
    assert_int_equal(gr.index, 1);

    /* every cut inside a group header or an entry is an error */
    for (size_t cut = TVF_HEADER_SIZE + 1; cut < len; cut++) {
        int rc, bad = 0;
        bool at_boundary = cut == TVF_HEADER_SIZE + TVF_GROUP_SIZE + sizes[0] + sizes[1] + sizes[2];
        assert_int_equal(tvf_read_header(&r, buf, cut, &hr), 0);
        while ((rc = tvf_next_group(&r, &gr)) == 1)
            while ((rc = tvf_next_entry(&r, &e)) == 1)
                ;
        bad = rc < 0;
        /* the only clean cut: after the first group's last entry (the second group never began) */
        assert_int_equal(bad, !at_boundary);
    }
    /* too short for a header, another magic, another version */
    assert_int_equal(tvf_read_header(&r, buf, TVF_HEADER_SIZE - 1, &hr), -1);
    buf[7] = '2';
    assert_int_equal(tvf_read_header(&r, buf, len, &hr), -1);
    buf[7] = '1';
    buf[8] = 2;
    assert_int_equal(tvf_read_header(&r, buf, len, &hr), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bounds_table),   cmocka_unit_test(test_bounds_random),
        cmocka_unit_test(test_range_find),     cmocka_unit_test(test_vec),
        cmocka_unit_test(test_hashmap),        cmocka_unit_test(test_sort_unique),
        cmocka_unit_test(test_hashmap_hashed), cmocka_unit_test(test_sysio),
        cmocka_unit_test(test_sort_stable),    cmocka_unit_test(test_tvfile),
        cmocka_unit_test(test_bytes),          cmocka_unit_test(test_strtab),
    };
    size_t total = sizeof(tests) / sizeof(tests[0]);
    int failed = cmocka_run_group_tests_name("support primitives", tests, NULL, NULL);

    return csp_test_finish((long)(total - (size_t)failed), (long)failed);
}
