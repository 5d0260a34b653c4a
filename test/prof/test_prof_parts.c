/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_prof_parts.c -- unit tests of lib/profile's merge in parts
 * (prof_merge_part, prof_merge_parts: csprof-prof-mpi) and in threads
 * (prof_config.jobs): the database equals the serial one byte for byte;
 * a damaged or misplaced part is refused with PROF_EINVAL, never read out
 * of bounds; allocation failure anywhere returns PROF_ENOMEM.
 *
 * Test code (cmocka).  The measurement files are written here with the
 * lib/fmt writer: five threads of three processes, one file of two
 * records, an unreadable file, values in a display unit whose sums depend
 * on the order of the additions (0.1 s steps).  Ends with "N passed, N
 * failed".
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "csp_test.h"
#include "fmt/fmt.h"
#include "oom_region.h"
#include "profile/profile_internal.h"

static char dir[] = "/tmp/csprof-parts-XXXXXX";
static char mdir[64];

/* Write one thread record of process @pid to @fd: a path whose offsets depend on @seed. */
static void
write_record(int fd, uint32_t pid, uint32_t tindex, uint32_t seed)
{
    static const struct fmt_event ev = {.name = "CPUTIME",
                                        .unit = "ns",
                                        .mechanism = "posix-timer",
                                        .period = 10000000,
                                        .display_scale = 1e-9,
                                        .display_unit = "s"};
    struct fmt_module mods[2] = {
        {.id = 1, .path = "[jit]", .start = 0x1000, .end = 0x90000},
        {.id = 2, .path = "[anon:code]", .start = 0x100000, .end = 0x200000}};
    struct fmt_header hdr = {.pid = pid,
                             .tid = pid * 10 + tindex,
                             .thread_index = tindex,
                             .rank = (int32_t)pid,
                             .cpu_ns = 1000000000,
                             .program = "/bin/app",
                             .command = "app",
                             .host = "h"};
    struct fmt_writer w;
    struct fmt_metric m;
    uint32_t i;

    fmt_writer_init(&w, fd);
    fmt_write_header(&w, &hdr);
    fmt_write_events(&w, &ev, 1);
    fmt_write_loadmap(&w, mods, 2);
    fmt_begin_cct(&w, 0, 6);
    for (i = 0; i < 6; i++) {
        struct fmt_node n = {.id = i,
                             .parent = i == 0 ? 0 : (i < 3 ? i - 1 : 2),
                             .kind = i == 0 ? FMT_NODE_ROOT
                                            : (i < 3 ? FMT_NODE_CALLSITE : FMT_NODE_LEAF),
                             .module = i == 0 ? FMT_MODULE_NONE : (i == 5 ? 2 : 1),
                             .offset = 0x100 * i + (i >= 3 ? 0x10 * ((seed + i) % 4) : 0),
                             .samples = i >= 3 ? 1 + (seed * 7 + i) % 5 : 0,
                             .calls = i == 2 ? seed : 0,
                             .metrics = &m};

        if (n.samples > 0) {
            m.event = 0;
            m.value = n.samples * 100000000ull + seed; /* 0.1 s steps + a few ns */
            n.nmetrics = 1;
        }
        fmt_write_node(&w, &n);
    }
    fmt_end_cct(&w);
    fmt_write_stats(&w, NULL, 0);
    assert_int_equal(fmt_writer_finish(&w), 0);
}

/* Append the bytes of @from to @fd. */
static void
append_file(int fd, const char *from)
{
    char buf[4096];
    ssize_t n;
    int in = open(from, O_RDONLY);

    assert_true(in >= 0);
    while ((n = read(in, buf, sizeof(buf))) > 0)
        assert_int_equal(write(fd, buf, (size_t)n), n);
    assert_int_equal(n, 0);
    close(in);
}

static void
write_file(const char *name, uint32_t pid, uint32_t tindex, uint32_t seed, bool two)
{
    char path[128], tmp[128];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", mdir, name);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    write_record(fd, pid, tindex, seed);
    if (two) { /* a second record at the next multiple of 8 (the writer starts at offset 0) */
        off_t end = lseek(fd, 0, SEEK_END);
        int fd2;

        assert_int_equal(ftruncate(fd, (end + 7) / 8 * 8), 0);
        assert_true(lseek(fd, 0, SEEK_END) >= 0);
        snprintf(tmp, sizeof(tmp), "%s/second.tmp", dir);
        fd2 = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_true(fd2 >= 0);
        write_record(fd2, pid, tindex + 1, seed + 11);
        assert_int_equal(close(fd2), 0);
        append_file(fd, tmp);
        assert_int_equal(unlink(tmp), 0);
    }
    assert_int_equal(close(fd), 0);
}

static int
setup(void **state)
{
    FILE *f;
    char path[128];

    (void)state;
    if (mkdtemp(dir) == NULL)
        return -1;
    snprintf(mdir, sizeof(mdir), "%s/m", dir);
    if (mkdir(mdir, 0700) != 0)
        return -1;
    write_file("a.cspm", 1, 0, 1, false);
    write_file("b.cspm", 1, 1, 2, false);
    write_file("c.cspm", 2, 0, 3, true);
    write_file("e.cspm", 3, 0, 5, false);
    snprintf(path, sizeof(path), "%s/d.cspm", mdir);
    f = fopen(path, "w"); /* unreadable: a skipped input in the middle */
    if (f == NULL || fputs("garbage", f) < 0 || fclose(f) != 0)
        return -1;
    return 0;
}

static int
teardown(void **state)
{
    char cmd[96];

    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A context over the measurement files, with @jobs threads, nothing merged. */
static struct prof_ctx *
new_ctx(unsigned jobs)
{
    struct prof_config cfg = {.jobs = jobs};
    struct prof_ctx *ctx = NULL;

    assert_int_equal(prof_new(&cfg, &ctx), 0);
    assert_int_equal(prof_add_measurements(ctx, mdir), 5);
    return ctx;
}

/* Finish @ctx, write its database into DIR/@name, and return experiment.xml + messages. */
static char *
finish_and_write(struct prof_ctx *ctx, const char *name)
{
    struct prof_summary sum;
    char db[128], path[160], *text = NULL;
    size_t len = 0, i;
    FILE *out = open_memstream(&text, &len), *in;
    int c;

    assert_non_null(out);
    assert_int_equal(prof_finish(ctx), 0);
    assert_int_equal(prof_summary_compute(ctx, 5, &sum), 0);
    snprintf(db, sizeof(db), "%s/%s", dir, name);
    assert_int_equal(mkdir(db, 0700), 0);
    assert_int_equal(prof_write_database(ctx, &sum, db), 0);
    prof_summary_free(&sum);
    for (i = 0; i < prof_message_count(ctx); i++)
        fprintf(out, "%s\n", prof_message(ctx, i, NULL));
    snprintf(path, sizeof(path), "%s/experiment.xml", db);
    in = fopen(path, "r");
    assert_non_null(in);
    while ((c = getc(in)) != EOF)
        putc(c, out);
    fclose(in);
    snprintf(path, sizeof(path), "%s/thread-values.bin", db);
    in = fopen(path, "r");
    assert_non_null(in);
    while ((c = getc(in)) != EOF)
        putc(c, out);
    fclose(in);
    fclose(out);
    return text;
}

static char *
serial_db(const char *name)
{
    struct prof_ctx *ctx = new_ctx(1);
    char *text;

    assert_int_equal(prof_merge(ctx), 4); /* 4 files read, 1 skipped */
    text = finish_and_write(ctx, name);
    prof_free(ctx);
    return text;
}

/* Make the @n parts of a fresh context into @bufs/@lens. */
static void
make_parts(size_t n, unsigned jobs, void **bufs, size_t *lens)
{
    struct prof_ctx *ctx = new_ctx(jobs);
    size_t i;

    for (i = 0; i < n; i++)
        assert_int_equal(prof_merge_part(ctx, i, n, &bufs[i], &lens[i]), 0);
    prof_free(ctx);
}

static void
test_parts_equal_serial(void **state)
{
    char *serial = serial_db("serial"), *other, name[32];
    size_t n, i, lens[5];
    void *bufs[5];
    unsigned jobs;

    (void)state;
    for (n = 1; n <= 5; n++) {
        for (jobs = 1; jobs <= 2; jobs++) {
            struct prof_ctx *ctx = new_ctx(1);

            make_parts(n, jobs, bufs, lens);
            assert_true(prof_merge_parts(ctx, (const void *const *)bufs, lens, n) == 4);
            snprintf(name, sizeof(name), "parts-%zu-%u", n, jobs);
            other = finish_and_write(ctx, name);
            assert_string_equal(other, serial);
            free(other);
            prof_free(ctx);
            for (i = 0; i < n; i++)
                free(bufs[i]);
        }
    }
    free(serial);
}

static void
test_threads_equal_serial(void **state)
{
    char *serial = serial_db("serial-t"), *other, name[32];
    unsigned jobs;

    (void)state;
    for (jobs = 2; jobs <= 6; jobs++) {
        struct prof_ctx *ctx = new_ctx(jobs);

        assert_int_equal(prof_merge(ctx), 4);
        snprintf(name, sizeof(name), "threads-%u", jobs);
        other = finish_and_write(ctx, name);
        assert_string_equal(other, serial);
        free(other);
        prof_free(ctx);
    }
    free(serial);
}

/* Every truncation and every flipped byte of part 1 is refused or merged, never a crash. */
static void
test_damaged_parts(void **state)
{
    size_t lens[2], len, i, refused = 0;
    void *bufs[2];
    unsigned char *copy;

    (void)state;
    make_parts(2, 1, bufs, lens);
    len = lens[1];
    copy = malloc(len);
    assert_non_null(copy);
    for (i = 0; i < len; i++) { /* cut short at every length */
        struct prof_ctx *ctx = new_ctx(1);
        const void *b[2] = {bufs[0], copy};
        size_t l[2] = {lens[0], i};

        memcpy(copy, bufs[1], len);
        assert_int_equal(prof_merge_parts(ctx, b, l, 2), PROF_EINVAL);
        assert_non_null(strstr(prof_errmsg(ctx), "part 1 of 2"));
        prof_free(ctx);
    }
    for (i = 0; i < len; i++) { /* one byte flipped at every position */
        struct prof_ctx *ctx = new_ctx(1);
        const void *b[2] = {bufs[0], copy};
        int rc;

        memcpy(copy, bufs[1], len);
        copy[i] ^= 0xa5;
        rc = prof_merge_parts(ctx, b, lens, 2);
        assert_true(rc == PROF_EINVAL || rc == 4); /* a flipped count or value may still fit */
        refused += rc == PROF_EINVAL;
        prof_free(ctx);
    }
    assert_true(refused > len / 4);
    { /* parts in the wrong order */
        struct prof_ctx *ctx = new_ctx(1);
        const void *b[2] = {bufs[1], bufs[0]};
        size_t l[2] = {lens[1], lens[0]};

        assert_int_equal(prof_merge_parts(ctx, b, l, 2), PROF_EINVAL);
        prof_free(ctx);
    }
    free(copy);
    free(bufs[0]);
    free(bufs[1]);
}

/* Allocation failure at every point of making and merging parts: PROF_ENOMEM, no leak. */
static void
test_parts_oom(void **state)
{
    long budget;
    int failures = 0;

    (void)state;
    for (budget = 0; budget < 100000; budget++) {
        struct prof_ctx *ctx = new_ctx(1);
        void *bufs[2] = {NULL, NULL};
        size_t lens[2] = {0, 0};
        int rc;

        oom_region_begin();
        prof_test_alloc_budget = budget;
        rc = prof_merge_part(ctx, 0, 2, &bufs[0], &lens[0]);
        if (rc == 0)
            rc = prof_merge_part(ctx, 1, 2, &bufs[1], &lens[1]);
        if (rc == 0)
            rc = prof_merge_parts(ctx, (const void *const *)bufs, lens, 2);
        prof_test_alloc_budget = -1;
        oom_region_end();
        free(bufs[0]);
        free(bufs[1]);
        prof_free(ctx);
        if (rc == 4)
            break;
        assert_int_equal(rc, PROF_ENOMEM);
        failures++;
    }
    assert_true(failures > 10);
    assert_true(budget < 100000);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parts_equal_serial),
        cmocka_unit_test(test_threads_equal_serial),
        cmocka_unit_test(test_damaged_parts),
        cmocka_unit_test(test_parts_oom),
    };
    int n = (int)(sizeof(tests) / sizeof(tests[0]));
    int failed = cmocka_run_group_tests(tests, setup, teardown);

    return csp_test_finish((long)(n - failed), (long)failed);
}
