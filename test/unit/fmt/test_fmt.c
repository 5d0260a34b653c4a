/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fmt.c -- unit tests of lib/fmt, the measurement file.
 *
 * Writes profiles with the writer into temporary files, reads them back and
 * compares every field; reads every prefix of a valid file (truncation),
 * files with bytes flipped at every offset, and files with specific
 * corruptions made by editing the documented layout
 * (share/schemas/measurement-format.md) and recomputing the checksum with a
 * CRC-32 written here independently of the library's.  Also checks writer
 * misuse, write errors, and the text dump.  Built twice: against csp_fmt
 * (unit_fmt) and with the fmt sources compiled in under ASan+UBSan
 * (unit_fmt_asan).  Ordinary test code: uses malloc and stdio freely.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "fmt/fmt_internal.h"

#define NO_AT SIZE_MAX /* a corruption whose error offset is not checked */

/* The writer is 16 KiB: keep it static, as fmt.h asks. */
static struct fmt_writer writer;

/* ---- an independent view of the layout -------------------------------- */

static uint32_t
get32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t
get64(const uint8_t *b)
{
    return get32(b) | (uint64_t)get32(b + 4) << 32;
}

static void
put32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

static void
put64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

/* Bit-at-a-time CRC-32 (reflected 0xEDB88320), independent of fmt_crc32. */
static uint32_t
t_crc32(uint32_t crc, const uint8_t *p, size_t n)
{
    crc = ~crc;
    while (n-- > 0) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

struct sec {
    uint32_t kind, flags;
    size_t at, payload; /* header and payload offsets */
    uint64_t len;
};

/* Walk the section headers; returns how many were found (up to END). */
static size_t
t_sections(const uint8_t *b, size_t len, struct sec *s, size_t max)
{
    size_t pos = 16, n = 0;

    while (pos + 16 <= len && n < max) {
        s[n].kind = get32(b + pos);
        s[n].flags = get32(b + pos + 4);
        s[n].at = pos;
        s[n].payload = pos + 16;
        s[n].len = get64(b + pos + 8);
        if (s[n++].kind == FMT_SEC_END || s[n - 1].len > len)
            break;
        pos += 16 + (size_t)s[n - 1].len;
    }
    return n;
}

static struct sec
t_find(const uint8_t *b, size_t len, uint32_t kind)
{
    struct sec s[32];
    size_t n = t_sections(b, len, s, 32);

    for (size_t i = 0; i < n; i++)
        if (s[i].kind == kind)
            return s[i];
    fail_msg("section kind %u not found", kind);
    return s[0];
}

/* Recompute the END section's file length and checksum after an edit. */
static void
t_fix(uint8_t *b, size_t len)
{
    struct sec s[32];
    size_t n = t_sections(b, len, s, 32);
    uint32_t crc = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i].kind == FMT_SEC_END) {
            put64(b + s[i].payload, s[i].payload + 12);
            put32(b + s[i].payload + 8, crc);
            return;
        }
        crc = t_crc32(crc, b + s[i].payload, (size_t)s[i].len);
    }
    fail_msg("no END section to fix");
}

/* Offset of CCT node @idx. */
static size_t
t_node(const uint8_t *b, size_t len, uint64_t idx)
{
    size_t p = t_find(b, len, FMT_SEC_CCT).payload + 12;

    for (uint64_t i = 0; i < idx; i++)
        p += 52 + 12 * (size_t)get32(b + p + 48);
    return p;
}

/* Index of the first node with at least @want metrics and, if @with_module, a module. */
static uint64_t
t_node_with(const uint8_t *b, size_t len, uint32_t want, int with_module)
{
    uint64_t n = get64(b + t_find(b, len, FMT_SEC_CCT).payload + 4);

    for (uint64_t i = 1; i < n; i++) {
        size_t p = t_node(b, len, i);

        if (get32(b + p + 48) >= want && (!with_module || get32(b + p + 20) != FMT_MODULE_NONE))
            return i;
    }
    fail_msg("no node with %u metrics", want);
    return 0;
}

/* Offset of load-map record @idx. */
static size_t
t_module(const uint8_t *b, size_t len, uint32_t idx)
{
    size_t p = t_find(b, len, FMT_SEC_LOADMAP).payload + 4;

    for (uint32_t i = 0; i < idx; i++) {
        p += 8;
        p += 4 + get32(b + p);
        p += 4 + get32(b + p);
        p += 24;
    }
    return p;
}

/* Offset of the load bias of the module record at @rec. */
static size_t
t_module_bias(const uint8_t *b, size_t rec)
{
    size_t p = rec + 8;

    p += 4 + get32(b + p);
    p += 4 + get32(b + p);
    return p;
}

/* ---- building profiles ------------------------------------------------- */

struct spec {
    struct fmt_header h;
    struct fmt_event ev[4];
    uint32_t nev;
    struct fmt_module mod[5];
    uint32_t nmod;
    uint32_t epoch;
    struct fmt_node *nodes;
    uint64_t nnodes;
    struct fmt_metric *metrics;
    struct fmt_stat st[6];
    uint32_t nst;
    char *program; /* owned, may be replaced */
};

static uint64_t rng_state;

static uint64_t
rng(void)
{
    rng_state ^= rng_state << 13; /* xorshift64 (Marsaglia 2003) */
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const uint8_t bid_a[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,
                                  7,    8,    9,    10,   11, 12, 13, 14, 15, 0};
static const uint8_t bid_b[4] = {0x00, 0x7f, 0x80, 0xff};

/* A profile with 3 events, 4 modules, @nnodes nodes, 5 stats. */
static void
spec_make(struct spec *s, uint64_t nnodes, uint64_t seed)
{
    static const uint32_t mod_ids[] = {1, 2, 7, 100};
    size_t mi = 0;

    memset(s, 0, sizeof *s);
    rng_state = seed * 0x9e3779b97f4a7c15u + 1;
    s->h = (struct fmt_header){.pid = 4242,
                               .tid = 4243,
                               .thread_index = 3,
                               .rank = -1,
                               .generation = 2,
                               .start_ns = 1700000000123456789u,
                               .end_ns = 1700000001987654321u,
                               .cpu_ns = 864197532u,
                               .program = "/usr/local/bin/app",
                               .command = "app --in \"x y\" -n 3",
                               .host = "node17.example"};
    s->nev = 3;
    s->ev[0] = (struct fmt_event){"CPUTIME", "ns", "posix-timer", 5000000, 1e-9, "s"};
    s->ev[1] = (struct fmt_event){"REALTIME", "ns", "perf-task-clock", 1000000, 1e-9, "s"};
    s->ev[2] = (struct fmt_event){"PAPI_TOT_CYC", "events", "perf", 4000037, 0.1, ""};
    s->nmod = 4;
    s->mod[0] = (struct fmt_module){
        1, 0, "/usr/local/bin/app", bid_a, 20, 0x555555554000u, 0x555555554000u, 0x555555559000u};
    s->mod[1] = (struct fmt_module){2,
                                    0,
                                    "/lib/x86_64-linux-gnu/libc.so.6",
                                    bid_b,
                                    4,
                                    0x7ffff7d80000u,
                                    0x7ffff7da8000u,
                                    0x7ffff7f9d000u};
    s->mod[2] = (struct fmt_module){
        7, 0, "[vdso]", NULL, 0, 0x7ffff7fc1000u, 0x7ffff7fc1000u, 0x7ffff7fc3000u};
    s->mod[3] = (struct fmt_module){100, 1, "/opt/plugin.so", NULL, 0, 0, 0x1000, 0x1000};
    s->epoch = 0;
    s->nst = 5;
    s->st[0] = (struct fmt_stat){"samples.recorded", 12345};
    s->st[1] = (struct fmt_stat){"samples.partial", 17};
    s->st[2] = (struct fmt_stat){"samples.dropped.no_memory", 0};
    s->st[3] = (struct fmt_stat){"arena.bytes", 1u << 20};
    s->st[4] = (struct fmt_stat){"big", UINT64_MAX};

    s->nnodes = nnodes;
    s->nodes = calloc(nnodes ? nnodes : 1, sizeof *s->nodes);
    s->metrics = calloc(nnodes * s->nev + 1, sizeof *s->metrics);
    assert_non_null(s->nodes);
    assert_non_null(s->metrics);
    for (uint64_t i = 0; i < nnodes; i++) {
        struct fmt_node *n = &s->nodes[i];

        n->metrics = &s->metrics[mi];
        if (i == 0) {
            n->kind = FMT_NODE_ROOT;
            n->module = FMT_MODULE_NONE;
            continue;
        }
        n->id = i * 7 + 3 + (rng() % 5 == 0 ? UINT64_C(1) << 40 : 0);
        n->parent = s->nodes[rng() % i].id;
        n->kind = rng() % 3 == 0 ? FMT_NODE_LEAF : FMT_NODE_CALLSITE;
        n->module = rng() % 5 == 4 ? FMT_MODULE_NONE : mod_ids[rng() % 4];
        n->offset = rng() % 2 ? rng() : rng() % 0x10000;
        n->samples = rng() % 1000;
        n->calls = rng() % 3 == 0 ? 0 : rng() % 100000;
        for (uint32_t e = 0; e < s->nev; e++)
            if (rng() % 2 || i % 11 == 1) { /* every 11th node has every event */
                s->metrics[mi].event = e;
                s->metrics[mi].value = e == 2 && i % 13 == 0 ? UINT64_MAX : rng() % 100000000;
                mi++;
                n->nmetrics++;
            }
        if (n->nmetrics == 0)
            n->metrics = NULL;
    }
}

static void
spec_free(struct spec *s)
{
    free(s->nodes);
    free(s->metrics);
    free(s->program);
}

static int
write_spec(const struct spec *s, int fd)
{
    int rc;

    if ((rc = fmt_writer_init(&writer, fd)) < 0 || (rc = fmt_write_header(&writer, &s->h)) < 0 ||
        (rc = fmt_write_events(&writer, s->ev, s->nev)) < 0 ||
        (rc = fmt_write_loadmap(&writer, s->mod, s->nmod)) < 0 ||
        (rc = fmt_begin_cct(&writer, s->epoch, s->nnodes)) < 0)
        return rc;
    for (uint64_t i = 0; i < s->nnodes; i++)
        if ((rc = fmt_write_node(&writer, &s->nodes[i])) < 0)
            return rc;
    if ((rc = fmt_end_cct(&writer)) < 0 || (rc = fmt_write_stats(&writer, s->st, s->nst)) < 0)
        return rc;
    return fmt_writer_finish(&writer);
}

static int
tmp_fd(char *path, size_t n)
{
    const char *dir = getenv("TMPDIR");
    int fd;

    snprintf(path, n, "%s/test_fmt.XXXXXX", dir && *dir ? dir : "/tmp");
    fd = mkstemp(path);
    assert_true(fd >= 0);
    return fd;
}

static uint8_t *
slurp(const char *path, size_t *len)
{
    struct stat st;
    uint8_t *b;
    FILE *f = fopen(path, "rb");

    assert_non_null(f);
    assert_int_equal(fstat(fileno(f), &st), 0);
    b = malloc((size_t)st.st_size + 1);
    assert_non_null(b);
    *len = fread(b, 1, (size_t)st.st_size, f);
    assert_int_equal(*len, (size_t)st.st_size);
    fclose(f);
    return b;
}

/* Write @s into a temporary file; return its bytes (caller frees). */
static uint8_t *
spec_bytes(const struct spec *s, size_t *len, char *path, size_t pathlen)
{
    char tmp[4096];
    uint8_t *b;
    int fd;

    if (path == NULL) {
        path = tmp;
        pathlen = sizeof tmp;
    }
    fd = tmp_fd(path, pathlen);
    assert_int_equal(write_spec(s, fd), FMT_OK);
    assert_int_equal(close(fd), 0);
    b = slurp(path, len);
    if (path == tmp)
        unlink(tmp);
    return b;
}

static void
assert_str_eq(const char *want, const char *got)
{
    assert_non_null(got);
    assert_string_equal(want ? want : "", got);
}

static void
compare(const struct spec *s, const struct fmt_profile *p)
{
    assert_int_equal(p->version, FMT_VERSION);
    assert_int_equal(p->header.pid, s->h.pid);
    assert_int_equal(p->header.tid, s->h.tid);
    assert_int_equal(p->header.thread_index, s->h.thread_index);
    assert_int_equal(p->header.rank, s->h.rank);
    assert_int_equal(p->header.generation, s->h.generation);
    assert_int_equal(p->header.start_ns, s->h.start_ns);
    assert_int_equal(p->header.end_ns, s->h.end_ns);
    assert_int_equal(p->header.cpu_ns, s->h.cpu_ns);
    assert_str_eq(s->h.program, p->header.program);
    assert_str_eq(s->h.command, p->header.command);
    assert_str_eq(s->h.host, p->header.host);

    assert_int_equal(p->nevents, s->nev);
    for (uint32_t i = 0; i < s->nev; i++) {
        assert_str_eq(s->ev[i].name, p->events[i].name);
        assert_str_eq(s->ev[i].unit, p->events[i].unit);
        assert_str_eq(s->ev[i].mechanism, p->events[i].mechanism);
        assert_int_equal(p->events[i].period, s->ev[i].period);
        assert_memory_equal(&p->events[i].display_scale, &s->ev[i].display_scale, sizeof(double));
        assert_str_eq(s->ev[i].display_unit, p->events[i].display_unit);
    }

    assert_int_equal(p->nmodules, s->nmod);
    for (uint32_t i = 0; i < s->nmod; i++) {
        const struct fmt_module *a = &s->mod[i], *b = &p->modules[i];

        assert_int_equal(b->id, a->id);
        assert_int_equal(b->epoch, a->epoch);
        assert_str_eq(a->path, b->path);
        assert_int_equal(b->build_id_len, a->build_id_len);
        if (a->build_id_len > 0)
            assert_memory_equal(b->build_id, a->build_id, a->build_id_len);
        else
            assert_null(b->build_id);
        assert_int_equal(b->load_bias, a->load_bias);
        assert_int_equal(b->start, a->start);
        assert_int_equal(b->end, a->end);
    }

    assert_int_equal(p->epoch, s->epoch);
    assert_int_equal(p->nnodes, s->nnodes);
    for (uint64_t i = 0; i < s->nnodes; i++) {
        const struct fmt_node *a = &s->nodes[i], *b = &p->nodes[i];

        assert_int_equal(b->id, a->id);
        assert_int_equal(b->parent, i == 0 ? 0 : a->parent);
        assert_int_equal(b->kind, a->kind);
        assert_int_equal(b->module, a->module);
        assert_int_equal(b->offset, a->offset);
        assert_int_equal(b->samples, a->samples);
        assert_int_equal(b->calls, a->calls);
        assert_int_equal(b->nmetrics, a->nmetrics);
        for (uint32_t k = 0; k < a->nmetrics; k++) {
            assert_int_equal(b->metrics[k].event, a->metrics[k].event);
            assert_int_equal(b->metrics[k].value, a->metrics[k].value);
        }
    }

    assert_int_equal(p->nstats, s->nst);
    for (uint32_t i = 0; i < s->nst; i++) {
        assert_str_eq(s->st[i].name, p->stats[i].name);
        assert_int_equal(p->stats[i].value, s->st[i].value);
    }
}

/* ---- round trip -------------------------------------------------------- */

/* Write @s as one record into @mem (memory writer); returns its length or a negative status. */
static int64_t
write_record_mem(const struct spec *s, uint8_t *mem, uint64_t cap, uint32_t flags, uint64_t seq)
{
    int rc;

    if ((rc = fmt_writer_init_mem(&writer, mem, cap)) < 0 ||
        (rc = fmt_write_header(&writer, &s->h)) < 0 ||
        (rc = fmt_write_events(&writer, s->ev, s->nev)) < 0 ||
        (rc = fmt_write_loadmap(&writer, s->mod, s->nmod)) < 0 ||
        (rc = fmt_begin_cct(&writer, s->epoch, s->nnodes)) < 0)
        return rc;
    for (uint64_t i = 0; i < s->nnodes; i++)
        if ((rc = fmt_write_node(&writer, &s->nodes[i])) < 0)
            return rc;
    if ((rc = fmt_end_cct(&writer)) < 0 || (rc = fmt_write_stats(&writer, s->st, s->nst)) < 0 ||
        (rc = fmt_write_record(&writer, flags, seq)) < 0 || (rc = fmt_writer_finish(&writer)) < 0)
        return rc;
    return (int64_t)writer.offset;
}

/*
 * A multi-record file as the monitor leaves it after a kill: a checkpoint
 * and the final record of thread 3, a hole of zeros, a checkpoint of thread
 * 5 cut off halfway and a later whole one.  The reader keeps the final
 * record of thread 3 and the whole checkpoint of thread 5, and counts the
 * superseded and the damaged record.
 */
static void
test_records(void **state)
{
    static uint8_t file[1 << 20];
    uint8_t *rec = malloc(1 << 18);
    struct fmt_record_set set;
    struct spec s;
    char path[4096], err[512] = "";
    size_t off = 0;
    int64_t n;
    int fd;

    (void)state;
    assert_non_null(rec);
    spec_make(&s, 300, 7);
    /* A buffer too small for the record: ENOBUFS, nothing outside it written. */
    memset(rec, 0xaa, 1 << 18);
    assert_int_equal(write_record_mem(&s, rec, 256, 0, 0), FMT_EIO);
    assert_int_equal(errno, ENOBUFS);
    assert_int_equal(rec[256], 0xaa);

    n = write_record_mem(&s, rec, 1 << 18, FMT_RECORD_CHECKPOINT, 0); /* thread 3, seq 0 */
    assert_true(n > 0);
    memcpy(file + off, rec, (size_t)n);
    off += ((size_t)n + 7) / 8 * 8;
    n = write_record_mem(&s, rec, 1 << 18, 0, 1); /* thread 3, final */
    memcpy(file + off, rec, (size_t)n);
    off += ((size_t)n + 7) / 8 * 8 + 4096; /* a hole */
    s.h.thread_index = 5;
    n = write_record_mem(&s, rec, 1 << 18, FMT_RECORD_CHECKPOINT, 3);
    memcpy(file + off, rec, (size_t)n / 2); /* cut off */
    off += (size_t)n;
    off = (off + 7) / 8 * 8;
    memcpy(file + off, rec, (size_t)n);
    off += (size_t)n;

    fd = tmp_fd(path, sizeof path);
    assert_int_equal(write(fd, file, off), (ssize_t)off);
    close(fd);
    assert_int_equal(fmt_read_records(path, &set, err, sizeof err), FMT_OK);
    assert_int_equal(set.nrecords, 3);
    assert_int_equal(set.nprofiles, 2);
    assert_int_equal(set.superseded, 1);
    assert_int_equal(set.damaged, 1);
    assert_non_null(strstr(err, "record at byte"));
    assert_int_equal(set.profiles[0]->header.thread_index, 3);
    assert_int_equal(set.profiles[0]->record_flags, 0);
    assert_int_equal(set.profiles[0]->record_seq, 1);
    assert_int_equal(set.profiles[0]->nnodes, 300);
    assert_int_equal(set.profiles[1]->header.thread_index, 5);
    assert_int_equal(set.profiles[1]->record_flags, FMT_RECORD_CHECKPOINT);
    assert_int_equal(set.profiles[1]->record_seq, 3);
    fmt_record_set_free(&set);
    /* fmt_read_file takes one record only: the rest is "after the END section". */
    {
        struct fmt_profile *p = NULL;

        assert_int_equal(fmt_read_file(path, &p, err, sizeof err), FMT_ECORRUPT);
    }
    /* A file with no record at all. */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, "garbage!garbage!", 16), 16);
    close(fd);
    assert_int_equal(fmt_read_records(path, &set, err, sizeof err), FMT_EMAGIC);
    unlink(path);
    spec_free(&s);
    free(rec);
}

static void
test_crc_known_value(void **state)
{
    (void)state;
    /* The standard check value of CRC-32/ISO-HDLC. */
    assert_int_equal(fmt_crc32(0, "123456789", 9), 0xcbf43926u);
    assert_int_equal(t_crc32(0, (const uint8_t *)"123456789", 9), 0xcbf43926u);
    assert_int_equal(fmt_crc32(fmt_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);
}

static void
test_round_trip(void **state)
{
    char path[4096], err[512] = "";
    struct fmt_profile *pf = NULL, *pb = NULL;
    struct spec s;
    struct sec sec[16];
    uint8_t *b;
    size_t len, n;

    (void)state;
    spec_make(&s, 400, 1);
    b = spec_bytes(&s, &len, path, sizeof path);
    assert_true(len > sizeof writer.buf); /* the patch-by-pwrite path ran */

    /* The layout, as documented. */
    assert_memory_equal(b, "CSPROFM\0", 8);
    assert_int_equal(get32(b + 8), FMT_VERSION);
    assert_int_equal(get32(b + 12), 2); /* minor 2: the optional RUN section exists */
    n = t_sections(b, len, sec, 16);
    assert_int_equal(n, 6);
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(sec[i].kind, i + 1);
        assert_int_equal(sec[i].flags, 0);
    }
    assert_int_equal(sec[5].len, 12);
    assert_int_equal(get64(b + sec[5].payload), len);
    assert_int_equal(sec[5].payload + 12, len);
    assert_int_equal(get64(b + sec[3].payload + 4), 400);

    assert_int_equal(fmt_read_file(path, &pf, err, sizeof err), FMT_OK);
    assert_string_equal(err, "");
    compare(&s, pf);
    assert_int_equal(fmt_read_buffer(b, len, "rt", &pb, err, sizeof err), FMT_OK);
    compare(&s, pb);
    assert_int_equal(fmt_profile_stat(pb, "samples.partial"), 17);
    assert_int_equal(fmt_profile_stat(pb, "big"), UINT64_MAX);
    assert_int_equal(fmt_profile_stat(pb, "no.such.counter"), 0);

    fmt_profile_free(pf);
    fmt_profile_free(pb);
    fmt_profile_free(NULL);
    free(b);
    unlink(path);
    spec_free(&s);
}

/*
 * The run id (minor 2): a RUN section right after IDENT, read back into header.run_id and
 * found by fmt_peek_run_id() also behind a hole of zeros; a file without one reads as "" and
 * peeks as 0; the writer refuses an overlong id; the reader a second RUN section.
 */
static void
test_run_id(void **state)
{
    static const char id[] = "mpi-0123456789abcdef";
    char path[4096], err[512] = "", got[FMT_RUN_ID_MAX + 1], longid[FMT_RUN_ID_MAX + 2];
    struct fmt_profile *p = NULL;
    uint64_t start_ns = 0;
    struct sec sec[16];
    struct spec s;
    uint8_t *b, *twice;
    size_t len, n;
    int fd;

    (void)state;
    spec_make(&s, 50, 3);
    s.h.run_id = id;
    b = spec_bytes(&s, &len, path, sizeof path);
    n = t_sections(b, len, sec, 16);
    assert_int_equal(n, 7);
    assert_int_equal(sec[0].kind, 1);
    assert_int_equal(sec[1].kind, 8); /* RUN, right after IDENT */
    assert_int_equal(sec[1].flags, 0);
    assert_int_equal(sec[1].len, 4 + strlen(id));
    assert_int_equal(get32(b + sec[1].payload), strlen(id));
    assert_int_equal(fmt_read_file(path, &p, err, sizeof err), FMT_OK);
    assert_string_equal(p->header.run_id, id);
    compare(&s, p);
    fmt_profile_free(p);
    assert_int_equal(fmt_peek_run_id(path, got, sizeof got, &start_ns, err, sizeof err), 1);
    assert_string_equal(got, id);
    assert_int_equal(start_ns, s.h.start_ns);
    /* behind a hole (a checkpoint slot never written): found at the next multiple of 8 */
    fd = open(path, O_WRONLY | O_TRUNC);
    {
        static const uint8_t zeros[4096];

        assert_int_equal(write(fd, zeros, sizeof zeros), (ssize_t)sizeof zeros);
    }
    assert_int_equal(write(fd, b, len), (ssize_t)len);
    close(fd);
    got[0] = 'x';
    assert_int_equal(fmt_peek_run_id(path, got, sizeof got, NULL, err, sizeof err), 1);
    assert_string_equal(got, id);
    /* a second RUN section: corrupt (the two RUN sections hold the same id; CRC recomputed) */
    twice = malloc(len + sec[1].len + 16);
    assert_non_null(twice);
    memcpy(twice, b, sec[2].at);
    memcpy(twice + sec[2].at, b + sec[1].at, 16 + sec[1].len);
    memcpy(twice + sec[2].at + 16 + sec[1].len, b + sec[2].at, len - sec[2].at);
    {
        size_t tl = len + 16 + sec[1].len, end = tl - 12;
        uint32_t crc = 0;
        struct sec ts[16];
        size_t tn = t_sections(twice, tl, ts, 16);

        for (size_t i = 0; i + 1 < tn; i++)
            crc = t_crc32(crc, twice + ts[i].payload, ts[i].len);
        put64(twice + end, tl);
        put32(twice + end + 8, crc);
        assert_int_equal(fmt_read_buffer(twice, tl, "twice", &p, err, sizeof err), FMT_ECORRUPT);
        assert_non_null(strstr(err, "a second RUN section"));
    }
    free(twice);
    free(b);
    /* without a run id: no RUN section, "" on reading, 0 from the peek */
    s.h.run_id = "";
    b = spec_bytes(&s, &len, path, sizeof path);
    assert_int_equal(t_sections(b, len, sec, 16), 6);
    assert_int_equal(fmt_read_file(path, &p, err, sizeof err), FMT_OK);
    assert_string_equal(p->header.run_id, "");
    fmt_profile_free(p);
    assert_int_equal(fmt_peek_run_id(path, got, sizeof got, NULL, err, sizeof err), 0);
    assert_string_equal(got, "");
    free(b);
    /* not a measurement file, and an empty one */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_int_equal(write(fd, "garbage!garbage!", 16), 16);
    close(fd);
    assert_int_equal(fmt_peek_run_id(path, got, sizeof got, NULL, err, sizeof err), FMT_EMAGIC);
    fd = open(path, O_WRONLY | O_TRUNC);
    close(fd);
    assert_int_equal(fmt_peek_run_id(path, got, sizeof got, NULL, err, sizeof err), FMT_ETRUNC);
    unlink(path);
    /* an id over FMT_RUN_ID_MAX bytes is the writer's caller's error */
    memset(longid, 'a', sizeof longid - 1);
    longid[sizeof longid - 1] = '\0';
    s.h.run_id = longid;
    fd = tmp_fd(path, sizeof path);
    assert_int_equal(write_spec(&s, fd), FMT_EINVAL);
    close(fd);
    unlink(path);
    spec_free(&s);
}

/* Empty tables and an empty CCT are legal. */
static void
test_round_trip_empty(void **state)
{
    struct fmt_profile *p = NULL;
    struct spec s;
    uint8_t *b;
    size_t len;

    (void)state;
    spec_make(&s, 0, 2);
    s.nev = s.nmod = s.nst = 0;
    s.h.program = s.h.command = s.h.host = NULL; /* written as "" */
    s.h.rank = INT32_MIN;
    s.epoch = 9;
    b = spec_bytes(&s, &len, NULL, 0);
    assert_int_equal(fmt_read_buffer(b, len, "empty", &p, NULL, 0), FMT_OK);
    compare(&s, p);
    assert_int_equal(p->nnodes, 0);
    fmt_profile_free(p);
    free(b);
    spec_free(&s);
}

/*
 * Move the CCT section header (and the IDENT length field, patched after a
 * 16 KiB string) across the writer's buffer boundary: the patch goes to the
 * buffer, to the file with pwrite, or to both halves of a split header.
 */
static void
test_round_trip_buffer_boundary(void **state)
{
    size_t len, c0;
    struct spec s;
    uint8_t *b;

    (void)state;
    spec_make(&s, 30, 3);
    s.h.program = "";
    b = spec_bytes(&s, &len, NULL, 0);
    c0 = t_find(b, len, FMT_SEC_CCT).at;
    free(b);
    for (size_t pad = 0; pad < 40; pad++) {
        size_t plen = sizeof writer.buf - c0 - 24 + pad;
        struct fmt_profile *p = NULL;

        s.program = realloc(s.program, plen + 1);
        assert_non_null(s.program);
        memset(s.program, 'p', plen);
        s.program[plen] = '\0';
        s.h.program = s.program;
        b = spec_bytes(&s, &len, NULL, 0);
        assert_int_equal(t_find(b, len, FMT_SEC_CCT).at, c0 + plen);
        assert_int_equal(fmt_read_buffer(b, len, "boundary", &p, NULL, 0), FMT_OK);
        compare(&s, p);
        fmt_profile_free(p);
        free(b);
    }
    spec_free(&s);
}

/* ---- truncation and corruption ----------------------------------------- */

/* Read exactly @len bytes from a private copy, so ASan sees any over-read. */
static int
read_copy(const uint8_t *b, size_t len, const char *name, char *err, size_t errlen)
{
    struct fmt_profile *p = NULL;
    uint8_t *c = malloc(len ? len : 1);
    int rc;

    assert_non_null(c);
    memcpy(c, b, len);
    rc = fmt_read_buffer(c, len, name, &p, err, errlen);
    if (rc == FMT_OK)
        assert_non_null(p);
    else
        assert_null(p);
    fmt_profile_free(p);
    free(c);
    return rc;
}

static void
test_truncation_every_prefix(void **state)
{
    char err[512];
    struct spec s;
    uint8_t *b;
    size_t len;

    (void)state;
    spec_make(&s, 40, 4);
    b = spec_bytes(&s, &len, NULL, 0);
    for (size_t cut = 0; cut < len; cut++) {
        int rc;

        err[0] = '\0';
        rc = read_copy(b, cut, "cut.cspm", err, sizeof err);
        if (rc != FMT_ETRUNC && !(rc == FMT_EMAGIC && cut < 8))
            fail_msg("prefix of %zu/%zu bytes: status %d (%s): %s", cut, len, rc, fmt_strerror(rc),
                     err);
        assert_non_null(strstr(err, "cut.cspm: byte "));
        assert_non_null(strstr(err, "truncated"));
    }
    assert_int_equal(read_copy(b, len, "whole", NULL, 0), FMT_OK);
    free(b);
    spec_free(&s);
}

/* Is byte @off inside a section payload other than END's (checksummed)? */
static int
in_payload(const uint8_t *b, size_t len, size_t off)
{
    struct sec s[16];
    size_t n = t_sections(b, len, s, 16);

    for (size_t i = 0; i < n; i++)
        if (s[i].kind != FMT_SEC_END && off >= s[i].payload && off < s[i].payload + s[i].len)
            return 1;
    return 0;
}

static void
test_flip_every_byte(void **state)
{
    static const uint8_t masks[] = {0x01, 0x80, 0xff};
    size_t len, ok = 0, bad = 0;
    char err[512];
    struct spec s;
    uint8_t *b;

    (void)state;
    spec_make(&s, 40, 5);
    b = spec_bytes(&s, &len, NULL, 0);
    for (size_t off = 0; off < len; off++)
        for (size_t m = 0; m < sizeof masks; m++) {
            int rc;

            b[off] ^= masks[m];
            err[0] = '\0';
            rc = read_copy(b, len, "flip.cspm", err, sizeof err);
            b[off] ^= masks[m];
            if (rc == FMT_OK) {
                /* Only unchecked fields may change silently: the minor
                 * version and the reserved section flags. */
                if (in_payload(b, len, off))
                    fail_msg("flip 0x%02x at byte %zu of a payload was accepted", masks[m], off);
                ok++;
                continue;
            }
            bad++;
            if (rc != FMT_EMAGIC && rc != FMT_EVERSION && rc != FMT_ETRUNC && rc != FMT_ECORRUPT)
                fail_msg("flip at byte %zu: status %d", off, rc);
            assert_non_null(strstr(err, "flip.cspm: byte "));
        }
    assert_true(bad > ok);
    free(b);
    spec_free(&s);
}

struct corruption {
    const char *name;
    size_t (*apply)(uint8_t *b, size_t *len); /* returns the expected error offset or NO_AT */
    int want;                                 /* status */
    const char *words;                        /* expected in the message */
};

static size_t
c_magic(uint8_t *b, size_t *len)
{
    (void)len;
    b[3] = 'X';
    return 0;
}

static size_t
c_version2(uint8_t *b, size_t *len)
{
    (void)len;
    put32(b + 8, 2);
    return 8;
}

static size_t
c_version0(uint8_t *b, size_t *len)
{
    (void)len;
    put32(b + 8, 0);
    return 8;
}

static size_t
c_bad_parent(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, 5);

    put64(b + p + 8, 0xdeadbeef);
    t_fix(b, *len);
    return p + 8;
}

static size_t
c_parent_after_child(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, 3);

    put64(b + p + 8, get64(b + t_node(b, *len, 10)));
    t_fix(b, *len);
    return p + 8;
}

static size_t
c_metric_event_range(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, t_node_with(b, *len, 1, 0)) + 52;

    put32(b + p, 3); /* three events: 0..2 */
    t_fix(b, *len);
    return p;
}

static size_t
c_metric_order(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, t_node_with(b, *len, 2, 0)) + 52;

    put32(b + p + 12, get32(b + p));
    t_fix(b, *len);
    return p + 12;
}

static size_t
c_huge_node_count(uint8_t *b, size_t *len)
{
    size_t p = t_find(b, *len, FMT_SEC_CCT).payload + 4;

    put64(b + p, UINT64_C(1) << 40);
    t_fix(b, *len);
    return p + 8;
}

static size_t
c_huge_event_count(uint8_t *b, size_t *len)
{
    size_t p = t_find(b, *len, FMT_SEC_EVENTS).payload;

    put32(b + p, UINT32_MAX);
    t_fix(b, *len);
    return p + 4;
}

static size_t
c_huge_module_count(uint8_t *b, size_t *len)
{
    size_t p = t_find(b, *len, FMT_SEC_LOADMAP).payload;

    put32(b + p, 0x10000000);
    t_fix(b, *len);
    return p + 4;
}

static size_t
c_huge_stat_count(uint8_t *b, size_t *len)
{
    size_t p = t_find(b, *len, FMT_SEC_STATS).payload;

    put32(b + p, 0x7fffffff);
    t_fix(b, *len);
    return p + 4;
}

static size_t
c_huge_metric_count(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, 7);

    put32(b + p + 48, UINT32_MAX);
    t_fix(b, *len);
    return p;
}

static size_t
c_huge_string(uint8_t *b, size_t *len)
{
    size_t p = t_find(b, *len, FMT_SEC_IDENT).payload + 44; /* program path */

    put32(b + p, 0xfffffff0u);
    t_fix(b, *len);
    return p;
}

static size_t
c_huge_build_id(uint8_t *b, size_t *len)
{
    size_t p = t_module(b, *len, 1) + 8;

    p += 4 + get32(b + p);
    put32(b + p, 0x80000000u);
    t_fix(b, *len);
    return p;
}

static size_t
c_nul_in_string(uint8_t *b, size_t *len)
{
    size_t p = t_find(b, *len, FMT_SEC_IDENT).payload + 44;

    p += 4 + get32(b + p); /* command */
    p += 4 + get32(b + p); /* host */
    b[p + 4 + 2] = '\0';
    t_fix(b, *len);
    return p;
}

static size_t
c_module_unknown(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, t_node_with(b, *len, 0, 1));

    put32(b + p + 20, 55555);
    t_fix(b, *len);
    return p + 20;
}

static size_t
c_duplicate_node(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, 4);

    put64(b + p, get64(b + t_node(b, *len, 2)));
    t_fix(b, *len);
    return p;
}

static size_t
c_node_kind(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, 6);

    put32(b + p + 16, 7);
    t_fix(b, *len);
    return p + 16;
}

static size_t
c_second_root(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, 6);

    put32(b + p + 16, FMT_NODE_ROOT);
    t_fix(b, *len);
    return p + 16;
}

static size_t
c_first_not_root(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, 0);

    put32(b + p + 16, FMT_NODE_LEAF);
    t_fix(b, *len);
    return p;
}

static size_t
c_root_parent(uint8_t *b, size_t *len)
{
    size_t p = t_node(b, *len, 0);

    put64(b + p + 8, 5);
    t_fix(b, *len);
    return p + 8;
}

static size_t
c_checksum(uint8_t *b, size_t *len)
{
    b[t_node(b, *len, 2) + 32] ^= 0x04; /* a sample count: no fix-up */
    return t_find(b, *len, FMT_SEC_END).payload + 8;
}

/*
 * END's checksum set to 0.  The writer always computes it (a file's checksum
 * is 0 only when its payloads' CRC-32 is), so 0 is no "not computed"
 * marker: it must match the payloads like any other value.
 */
static size_t
c_checksum_zero(uint8_t *b, size_t *len)
{
    size_t at = t_find(b, *len, FMT_SEC_END).payload + 8;

    assert_int_not_equal(get32(b + at), 0); /* else this case tests nothing */
    put32(b + at, 0);
    return at;
}

/* The same, with a damaged payload: a sample count, as in c_checksum. */
static size_t
c_checksum_zero_damaged(uint8_t *b, size_t *len)
{
    b[t_node(b, *len, 2) + 32] ^= 0x04;
    return c_checksum_zero(b, len);
}

static size_t
c_end_length(uint8_t *b, size_t *len)
{
    size_t p = t_find(b, *len, FMT_SEC_END).payload;

    put64(b + p, get64(b + p) + 1);
    return p;
}

static size_t
c_trailing(uint8_t *b, size_t *len)
{
    memset(b + *len, 0, 5);
    *len += 5;
    return *len - 5;
}

static size_t
c_no_end(uint8_t *b, size_t *len)
{
    *len = t_find(b, *len, FMT_SEC_END).at;
    return *len;
}

static size_t
c_cut_in_end(uint8_t *b, size_t *len)
{
    *len = t_find(b, *len, FMT_SEC_END).payload + 5;
    return *len - 5;
}

/* The writer died between its last node and fmt_end_cct. */
static size_t
c_pending_cct_length(uint8_t *b, size_t *len)
{
    struct sec c = t_find(b, *len, FMT_SEC_CCT);

    put64(b + c.at + 8, UINT64_MAX);
    *len = c.payload + (size_t)c.len;
    return c.at;
}

static size_t
c_huge_ident_length(uint8_t *b, size_t *len)
{
    struct sec c = t_find(b, *len, FMT_SEC_IDENT);

    put64(b + c.at + 8, UINT64_C(1) << 60);
    return c.at;
}

/* Insert a section of @plen bytes before the section of kind @before. */
static size_t
insert_section(uint8_t *b, size_t *len, uint32_t before, uint32_t kind, uint32_t flags,
               const uint8_t *payload, size_t plen)
{
    size_t at = t_find(b, *len, before).at;

    memmove(b + at + 16 + plen, b + at, *len - at);
    put32(b + at, kind);
    put32(b + at + 4, flags);
    put64(b + at + 8, plen);
    memcpy(b + at + 16, payload, plen);
    *len += 16 + plen;
    t_fix(b, *len);
    return at;
}

static size_t
c_unknown_optional(uint8_t *b, size_t *len)
{
    insert_section(b, len, FMT_SEC_STATS, 0x1000, 0xfffe, (const uint8_t *)"future!", 7);
    return NO_AT;
}

static size_t
c_unknown_required(uint8_t *b, size_t *len)
{
    return insert_section(b, len, FMT_SEC_LOADMAP, 0x1001, FMT_SECTION_REQUIRED,
                          (const uint8_t *)"future!", 7);
}

static size_t
c_second_cct(uint8_t *b, size_t *len)
{
    struct sec c = t_find(b, *len, FMT_SEC_CCT);
    uint8_t *copy = malloc((size_t)c.len);
    size_t at;

    assert_non_null(copy);
    memcpy(copy, b + c.payload, (size_t)c.len);
    put32(copy, 1); /* epoch 1 */
    at = insert_section(b, len, FMT_SEC_STATS, FMT_SEC_CCT, 0, copy, (size_t)c.len);
    free(copy);
    return at;
}

static size_t
c_missing_stats(uint8_t *b, size_t *len)
{
    put32(b + t_find(b, *len, FMT_SEC_STATS).at, 0x2000);
    return t_find(b, *len, FMT_SEC_END).at;
}

static size_t
c_out_of_order(uint8_t *b, size_t *len)
{
    size_t at = t_find(b, *len, FMT_SEC_EVENTS).at;

    put32(b + at, FMT_SEC_LOADMAP);
    return at;
}

static size_t
c_leftover(uint8_t *b, size_t *len)
{
    struct sec s = t_find(b, *len, FMT_SEC_STATS);

    put32(b + s.payload, get32(b + s.payload) - 1);
    t_fix(b, *len);
    return NO_AT;
}

static size_t
c_module_backwards(uint8_t *b, size_t *len)
{
    size_t rec = t_module(b, *len, 0);

    put64(b + t_module_bias(b, rec) + 16, 0x1000); /* end < start */
    t_fix(b, *len);
    return rec;
}

static size_t
c_module_reserved(uint8_t *b, size_t *len)
{
    size_t rec = t_module(b, *len, 2);

    put32(b + rec, FMT_MODULE_NONE);
    t_fix(b, *len);
    return rec;
}

static size_t
c_module_duplicate(uint8_t *b, size_t *len)
{
    size_t rec = t_module(b, *len, 3);

    put32(b + rec, get32(b + t_module(b, *len, 0)));
    t_fix(b, *len);
    return rec;
}

static const struct corruption corruptions[] = {
    {"wrong magic", c_magic, FMT_EMAGIC, "magic"},
    {"version 2", c_version2, FMT_EVERSION, "version 2"},
    {"version 0", c_version0, FMT_EVERSION, "version 0"},
    {"unknown parent", c_bad_parent, FMT_ECORRUPT, "parent 3735928559"},
    {"parent after child", c_parent_after_child, FMT_ECORRUPT, "does not precede"},
    {"metric event out of range", c_metric_event_range, FMT_ECORRUPT, "out of range (3 events)"},
    {"metric events not increasing", c_metric_order, FMT_ECORRUPT, "strictly increasing"},
    {"huge node count", c_huge_node_count, FMT_ECORRUPT, "1099511627776 entries"},
    {"huge event count", c_huge_event_count, FMT_ECORRUPT, "event table announces"},
    {"huge module count", c_huge_module_count, FMT_ECORRUPT, "load map announces"},
    {"huge stat count", c_huge_stat_count, FMT_ECORRUPT, "statistics table announces"},
    {"huge metric count", c_huge_metric_count, FMT_ECORRUPT, "CCT node"},
    {"huge string length", c_huge_string, FMT_ECORRUPT, "program path"},
    {"huge build-id length", c_huge_build_id, FMT_ECORRUPT, "build-id"},
    {"NUL inside a string", c_nul_in_string, FMT_ECORRUPT, "NUL"},
    {"module not in load map", c_module_unknown, FMT_ECORRUPT, "module id 55555"},
    {"duplicate node id", c_duplicate_node, FMT_ECORRUPT, "duplicate node id"},
    {"node kind 7", c_node_kind, FMT_ECORRUPT, "kind 7"},
    {"second root", c_second_root, FMT_ECORRUPT, "second root"},
    {"first node not the root", c_first_not_root, FMT_ECORRUPT, "must be the root"},
    {"root with a parent", c_root_parent, FMT_ECORRUPT, "root's parent"},
    {"checksum mismatch", c_checksum, FMT_ECORRUPT, "checksum"},
    {"checksum 0", c_checksum_zero, FMT_ECORRUPT, "checksum mismatch: the file says 0x00000000"},
    {"checksum 0, payload damaged", c_checksum_zero_damaged, FMT_ECORRUPT,
     "checksum mismatch: the file says 0x00000000"},
    {"END length wrong", c_end_length, FMT_ECORRUPT, "END section says"},
    {"bytes after END", c_trailing, FMT_ECORRUPT, "after the END"},
    {"no END section", c_no_end, FMT_ETRUNC, "END section (truncated)"},
    {"cut inside END", c_cut_in_end, FMT_ETRUNC, "truncated"},
    {"CCT length never patched", c_pending_cct_length, FMT_ETRUNC, "truncated"},
    {"IDENT length huge", c_huge_ident_length, FMT_ETRUNC, "truncated"},
    {"unknown optional section", c_unknown_optional, FMT_OK, NULL},
    {"unknown required section", c_unknown_required, FMT_EVERSION, "required"},
    {"second CCT section", c_second_cct, FMT_ECORRUPT, "one epoch per file"},
    {"missing STATS section", c_missing_stats, FMT_ECORRUPT, "the STATS section must come"},
    {"sections out of order", c_out_of_order, FMT_ECORRUPT, "LOADMAP section where the EVENTS"},
    {"bytes left in a section", c_leftover, FMT_ECORRUPT, "left over at the end of the STATS"},
    {"module ends before start", c_module_backwards, FMT_ECORRUPT, "before it starts"},
    {"module id reserved", c_module_reserved, FMT_ECORRUPT, "reserved"},
    {"module id duplicate", c_module_duplicate, FMT_ECORRUPT, "already used"},
};

static void
test_corruptions(void **state)
{
    struct spec s;
    uint8_t *orig, *b;
    size_t olen;

    (void)state;
    spec_make(&s, 40, 6);
    orig = spec_bytes(&s, &olen, NULL, 0);
    b = malloc(2 * olen + 4096);
    assert_non_null(b);
    for (size_t i = 0; i < sizeof corruptions / sizeof corruptions[0]; i++) {
        const struct corruption *c = &corruptions[i];
        struct fmt_profile *p = NULL;
        char err[512] = "", at[64];
        size_t len = olen, want_at;
        int rc;

        memcpy(b, orig, olen);
        want_at = c->apply(b, &len);
        rc = fmt_read_buffer(b, len, "corrupt.cspm", &p, err, sizeof err);
        if (rc != c->want)
            fail_msg("%s: status %d (%s), want %d: %s", c->name, rc, fmt_strerror(rc), c->want,
                     err);
        if (rc == FMT_OK) {
            assert_int_equal(p->nnodes, s.nnodes);
            compare(&s, p);
            fmt_profile_free(p);
            continue;
        }
        assert_null(p);
        if (strncmp(err, "corrupt.cspm: byte ", 19) != 0 || strstr(err, c->words) == NULL)
            fail_msg("%s: message \"%s\" lacks \"%s\"", c->name, err, c->words);
        snprintf(at, sizeof at, ": byte %zu: ", want_at);
        if (want_at != NO_AT && strstr(err, at) == NULL)
            fail_msg("%s: message \"%s\" does not name byte %zu", c->name, err, want_at);
    }
    free(b);
    free(orig);
    spec_free(&s);
}

static void
test_read_file_errors(void **state)
{
    struct fmt_profile *p = (struct fmt_profile *)&p;
    char err[512] = "";

    (void)state;
    assert_int_equal(fmt_read_file("/nonexistent/dir/x.cspm", &p, err, sizeof err), FMT_EIO);
    assert_null(p);
    assert_int_equal(errno, ENOENT);
    assert_non_null(strstr(err, "/nonexistent/dir/x.cspm: "));
    assert_int_equal(fmt_read_file("/", &p, err, sizeof err), FMT_EIO); /* a directory */
    assert_non_null(strstr(err, "/: "));
    assert_int_equal(fmt_read_file("/dev/null", &p, err, sizeof err), FMT_ETRUNC);
    assert_non_null(strstr(err, "/dev/null: byte 0: empty file"));
    assert_int_equal(fmt_read_buffer("x", 1, "n", NULL, err, sizeof err), FMT_EINVAL);
    assert_int_equal(fmt_read_buffer("CSPROFM", 7, "tiny", &p, NULL, 0), FMT_ETRUNC);
    assert_int_equal(fmt_read_buffer("ELF", 3, "tiny", &p, err, 8), FMT_EMAGIC);
    assert_int_equal(strlen(err), 7); /* cut to the buffer, NUL-terminated */
}

/* ---- the writer -------------------------------------------------------- */

enum step {
    S_INIT,
    S_HEADER,
    S_HEADER_NULL,
    S_EVENTS,
    S_EVENTS_NULL,
    S_LOADMAP,
    S_LOADMAP_NONE_ID,
    S_LOADMAP_DUP_ID,
    S_LOADMAP_NULL_BUILD_ID,
    S_LOADMAP_BACKWARDS,
    S_BEGIN1,
    S_BEGIN3,
    S_ROOT,
    S_CHILD,
    S_CHILD_ZERO_ID,
    S_CHILD_BAD_EVENT,
    S_CHILD_UNORDERED,
    S_CHILD_NULL_METRICS,
    S_END_CCT,
    S_STATS,
    S_FINISH,
    S_STOP, /* end of a sequence */
};

static int
do_step(enum step st)
{
    static const struct fmt_event ev[2] = {{"CPUTIME", "ns", "t", 1, 1e-9, "s"},
                                           {"B", "events", "t", 2, 1, ""}};
    static const struct fmt_module mods[2] = {{1, 0, "/a", NULL, 0, 0, 0, 16},
                                              {2, 0, "/b", NULL, 0, 0, 16, 32}};
    static const struct fmt_metric m_ok[2] = {{0, 5}, {1, 6}}, m_bad[1] = {{2, 5}},
                                   m_unordered[2] = {{1, 5}, {0, 6}};
    static const struct fmt_stat stats[1] = {{"x", 1}};
    struct fmt_module bad[2] = {mods[0], mods[1]};
    struct fmt_header h = {.pid = 1, .rank = -1};
    struct fmt_node n = {.id = 9, .parent = 0, .kind = FMT_NODE_LEAF, .module = 1};

    switch (st) {
    case S_INIT: /* the caller initialises the writer with its own descriptor */
    case S_HEADER:
        return fmt_write_header(&writer, &h);
    case S_HEADER_NULL:
        return fmt_write_header(&writer, NULL);
    case S_EVENTS:
        return fmt_write_events(&writer, ev, 2);
    case S_EVENTS_NULL:
        return fmt_write_events(&writer, NULL, 2);
    case S_LOADMAP:
        return fmt_write_loadmap(&writer, mods, 2);
    case S_LOADMAP_NONE_ID:
        bad[1].id = FMT_MODULE_NONE;
        return fmt_write_loadmap(&writer, bad, 2);
    case S_LOADMAP_DUP_ID:
        bad[1].id = bad[0].id;
        return fmt_write_loadmap(&writer, bad, 2);
    case S_LOADMAP_NULL_BUILD_ID:
        bad[1].build_id_len = 20;
        return fmt_write_loadmap(&writer, bad, 2);
    case S_LOADMAP_BACKWARDS:
        bad[1].end = 8;
        return fmt_write_loadmap(&writer, bad, 2);
    case S_BEGIN1:
        return fmt_begin_cct(&writer, 0, 1);
    case S_BEGIN3:
        return fmt_begin_cct(&writer, 0, 3);
    case S_ROOT:
        n.id = 0;
        n.kind = FMT_NODE_ROOT;
        return fmt_write_node(&writer, &n);
    case S_CHILD:
        n.metrics = m_ok;
        n.nmetrics = 2;
        return fmt_write_node(&writer, &n);
    case S_CHILD_ZERO_ID:
        n.id = 0;
        return fmt_write_node(&writer, &n);
    case S_CHILD_BAD_EVENT:
        n.metrics = m_bad;
        n.nmetrics = 1;
        return fmt_write_node(&writer, &n);
    case S_CHILD_UNORDERED:
        n.metrics = m_unordered;
        n.nmetrics = 2;
        return fmt_write_node(&writer, &n);
    case S_CHILD_NULL_METRICS:
        n.nmetrics = 1;
        return fmt_write_node(&writer, &n);
    case S_END_CCT:
        return fmt_end_cct(&writer);
    case S_STATS:
        return fmt_write_stats(&writer, stats, 1);
    case S_FINISH:
        return fmt_writer_finish(&writer);
    case S_STOP:
        break;
    }
    return 0;
}

static void
test_writer_misuse(void **state)
{
    /* Each sequence: every step but the last succeeds, the last is FMT_EINVAL,
     * and then @next, a call that would be right at that point, still fails. */
    static const struct {
        const char *name;
        enum step steps[10];
        enum step next;
    } cases[] = {
        {"events before header", {S_INIT, S_EVENTS, S_STOP}, S_HEADER},
        {"header twice", {S_INIT, S_HEADER, S_HEADER, S_STOP}, S_EVENTS},
        {"NULL header", {S_INIT, S_HEADER_NULL, S_STOP}, S_HEADER},
        {"NULL events with a count", {S_INIT, S_HEADER, S_EVENTS_NULL, S_STOP}, S_EVENTS},
        {"load map before events", {S_INIT, S_HEADER, S_LOADMAP, S_STOP}, S_EVENTS},
        {"module id FMT_MODULE_NONE",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP_NONE_ID, S_STOP},
         S_LOADMAP},
        {"duplicate module id", {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP_DUP_ID, S_STOP}, S_LOADMAP},
        {"NULL build-id with a length",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP_NULL_BUILD_ID, S_STOP},
         S_LOADMAP},
        {"module ends before start",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP_BACKWARDS, S_STOP},
         S_LOADMAP},
        {"node before begin", {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_ROOT, S_STOP}, S_BEGIN1},
        {"begin twice",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN1, S_BEGIN1, S_STOP},
         S_ROOT},
        {"more nodes than announced",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN1, S_ROOT, S_CHILD, S_STOP},
         S_END_CCT},
        {"fewer nodes than announced",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN3, S_ROOT, S_END_CCT, S_STOP},
         S_CHILD},
        {"first node not the root",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN3, S_CHILD, S_STOP},
         S_ROOT},
        {"second node with id 0",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN3, S_ROOT, S_CHILD_ZERO_ID, S_STOP},
         S_CHILD},
        {"metric event out of range",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN3, S_ROOT, S_CHILD_BAD_EVENT, S_STOP},
         S_CHILD},
        {"metric events not increasing",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN3, S_ROOT, S_CHILD_UNORDERED, S_STOP},
         S_CHILD},
        {"NULL metrics with a count",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN3, S_ROOT, S_CHILD_NULL_METRICS, S_STOP},
         S_CHILD},
        {"stats inside the CCT",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN1, S_ROOT, S_STATS, S_STOP},
         S_END_CCT},
        {"finish before stats",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN1, S_ROOT, S_END_CCT, S_FINISH, S_STOP},
         S_STATS},
        {"a call after finish",
         {S_INIT, S_HEADER, S_EVENTS, S_LOADMAP, S_BEGIN1, S_ROOT, S_END_CCT, S_STATS, S_FINISH,
          S_STATS},
         S_HEADER},
    };
    char path[4096];

    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int fd = tmp_fd(path, sizeof path);
        size_t k;

        unlink(path);
        for (k = 0; k < 10 && cases[i].steps[k] != S_STOP; k++) {
            int last = k + 1 == 10 || cases[i].steps[k + 1] == S_STOP;
            int rc = cases[i].steps[k] == S_INIT ? fmt_writer_init(&writer, fd)
                                                 : do_step(cases[i].steps[k]);

            if (rc != (last ? FMT_EINVAL : FMT_OK))
                fail_msg("%s: step %zu returned %d", cases[i].name, k, rc);
        }
        if (do_step(cases[i].next) != FMT_EINVAL)
            fail_msg("%s: the error did not stick", cases[i].name);
        assert_int_equal(writer.error, FMT_EINVAL);
        close(fd);
    }

    /* A writer that was never initialised (all zero) refuses every call. */
    memset(&writer, 0, sizeof writer);
    assert_int_equal(do_step(S_HEADER), FMT_EINVAL);
    assert_int_equal(fmt_writer_init(NULL, 1), FMT_EINVAL);
    assert_int_equal(fmt_write_node(NULL, NULL), FMT_EINVAL);
}

static void
test_writer_bad_fd(void **state)
{
    char path[4096];
    int fds[2], fd;

    (void)state;
    /* A pipe cannot take the length patches: refused at once. */
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(fmt_writer_init(&writer, fds[1]), FMT_EIO);
    assert_int_equal(errno, ESPIPE);
    assert_int_equal(writer.saved_errno, ESPIPE);
    assert_int_equal(do_step(S_HEADER), FMT_EIO); /* sticks */
    close(fds[0]);
    close(fds[1]);

    /* A closed descriptor. */
    assert_int_equal(fmt_writer_init(&writer, fds[1]), FMT_EIO);
    assert_int_equal(writer.saved_errno, EBADF);

    /* Append mode, and a file not at offset 0. */
    fd = tmp_fd(path, sizeof path);
    unlink(path);
    assert_int_equal(fcntl(fd, F_SETFL, O_APPEND), 0);
    assert_int_equal(fmt_writer_init(&writer, fd), FMT_EINVAL);
    assert_int_equal(fcntl(fd, F_SETFL, 0), 0);
    assert_int_equal(write(fd, "x", 1), 1);
    assert_int_equal(fmt_writer_init(&writer, fd), FMT_EINVAL);
    close(fd);

    /* A descriptor that cannot be written: the error shows at the first flush. */
    fd = tmp_fd(path, sizeof path);
    close(fd);
    fd = open(path, O_RDONLY);
    unlink(path);
    assert_true(fd >= 0);
    assert_int_equal(fmt_writer_init(&writer, fd), FMT_OK);
    assert_int_equal(do_step(S_HEADER), FMT_OK); /* buffered */
    assert_int_equal(do_step(S_EVENTS), FMT_OK);
    assert_int_equal(do_step(S_LOADMAP), FMT_OK);
    assert_int_equal(do_step(S_BEGIN1), FMT_OK);
    assert_int_equal(do_step(S_ROOT), FMT_OK);
    assert_int_equal(do_step(S_END_CCT), FMT_OK);
    assert_int_equal(do_step(S_STATS), FMT_OK);
    assert_int_equal(do_step(S_FINISH), FMT_EIO);
    assert_int_equal(errno, EBADF);
    assert_int_equal(do_step(S_FINISH), FMT_EIO);
    close(fd);
}

/* A full device: the write fails in the middle of the CCT. */
static void
test_writer_disk_full(void **state)
{
    struct spec s;
    int fd, rc = FMT_OK;
    uint64_t i;

    (void)state;
    fd = open("/dev/full", O_WRONLY);
    if (fd < 0) {
        print_message("skipped: /dev/full: %s\n", strerror(errno));
        skip();
    }
    spec_make(&s, 2000, 7);
    assert_int_equal(fmt_writer_init(&writer, fd), FMT_OK);
    assert_int_equal(fmt_write_header(&writer, &s.h), FMT_OK);
    assert_int_equal(fmt_write_events(&writer, s.ev, s.nev), FMT_OK);
    assert_int_equal(fmt_write_loadmap(&writer, s.mod, s.nmod), FMT_OK);
    assert_int_equal(fmt_begin_cct(&writer, 0, s.nnodes), FMT_OK);
    for (i = 0; i < s.nnodes && rc == FMT_OK; i++)
        rc = fmt_write_node(&writer, &s.nodes[i]);
    assert_int_equal(rc, FMT_EIO);
    assert_true(i < s.nnodes); /* failed at the first flush, not at the end */
    assert_int_equal(errno, ENOSPC);
    assert_int_equal(fmt_end_cct(&writer), FMT_EIO);
    assert_int_equal(fmt_writer_finish(&writer), FMT_EIO);
    close(fd);
    spec_free(&s);
}

/* ---- dump and strings --------------------------------------------------- */

/* Does @text contain @line as a whole line? */
static int
has_line(const char *text, const char *line)
{
    size_t n = strlen(line);

    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return 1;
    return 0;
}

static void
test_dump(void **state)
{
    static const uint8_t bid[3] = {0x0a, 0xb0, 0xff};
    static const struct fmt_metric m1[1] = {{0, 15000000}}, m2[2] = {{0, 7}, {1, UINT64_MAX}};
    const struct fmt_node nodes[4] = {
        {0, 0, FMT_NODE_ROOT, FMT_MODULE_NONE, 0, 0, 0, 0, NULL},
        {2, 0, FMT_NODE_CALLSITE, 1, 0x1234, 0, 4, 0, NULL},
        {5, 2, FMT_NODE_LEAF, 1, 0x1139, 3, 0, 1, m1},
        {6, 2, FMT_NODE_LEAF, FMT_MODULE_NONE, 0xffffffffff600000u, 1, 0, 2, m2},
    };
    struct spec s;
    struct fmt_profile *p = NULL;
    char want[512], *text = NULL, *text2 = NULL;
    size_t tlen, tlen2, lines = 0, len;
    FILE *f;
    uint8_t *b;

    (void)state;
    spec_make(&s, 0, 8);
    s.h.command = "say \"hi\\\" \n\t\x7f"; /* quote, backslash, control, DEL */
    s.nev = 2;
    s.ev[1].display_scale = 0.1 + 0.2; /* needs 17 digits */
    s.nmod = 2;
    s.mod[0] = (struct fmt_module){1, 0, "/bin/app", bid, 3, 0x400000, 0x401000, 0x402000};
    s.mod[1] = (struct fmt_module){3, 1, "[vdso]", NULL, 0, 0, 0x7000, 0x9000};
    s.nnodes = 4;
    free(s.nodes);
    s.nodes = NULL;
    s.nst = 2;
    {
        struct fmt_node *copy = malloc(sizeof nodes);

        assert_non_null(copy);
        memcpy(copy, nodes, sizeof nodes);
        s.nodes = copy;
    }
    b = spec_bytes(&s, &len, NULL, 0);
    assert_int_equal(fmt_read_buffer(b, len, "dump", &p, NULL, 0), FMT_OK);

    f = open_memstream(&text, &tlen);
    assert_non_null(f);
    assert_int_equal(fmt_dump(p, f), FMT_OK);
    fclose(f);
    f = open_memstream(&text2, &tlen2);
    assert_non_null(f);
    assert_int_equal(fmt_dump(p, f), FMT_OK);
    fclose(f);
    assert_string_equal(text, text2); /* deterministic */
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 1 + 1 + s.nev + s.nmod + 1 + s.nnodes + s.nst);

    snprintf(want, sizeof want, "file version=%u", FMT_VERSION);
    assert_true(has_line(text, want));
    snprintf(want, sizeof want,
             "header pid=%" PRIu32 " tid=%" PRIu32 " thread_index=%" PRIu32 " rank=%" PRId32
             " generation=%" PRIu32 " start_ns=%" PRIu64 " end_ns=%" PRIu64 " cpu_ns=%" PRIu64
             " program=\"%s\" command=\"say \\\"hi\\\\\\\" \\x0a\\x09\\x7f\" host=\"%s\"",
             s.h.pid, s.h.tid, s.h.thread_index, s.h.rank, s.h.generation, s.h.start_ns, s.h.end_ns,
             s.h.cpu_ns, s.h.program, s.h.host);
    if (!has_line(text, want))
        fail_msg("no line\n%s\nin\n%s", want, text);
    snprintf(want, sizeof want,
             "event index=0 name=\"%s\" unit=\"%s\" mechanism=\"%s\" period=%" PRIu64
             " display_scale=1e-09 display_unit=\"%s\"",
             s.ev[0].name, s.ev[0].unit, s.ev[0].mechanism, s.ev[0].period, s.ev[0].display_unit);
    if (!has_line(text, want))
        fail_msg("no line\n%s\nin\n%s", want, text);
    snprintf(want, sizeof want,
             "event index=1 name=\"%s\" unit=\"%s\" mechanism=\"%s\" period=%" PRIu64
             " display_scale=0.30000000000000004 display_unit=\"%s\"",
             s.ev[1].name, s.ev[1].unit, s.ev[1].mechanism, s.ev[1].period, s.ev[1].display_unit);
    if (!has_line(text, want))
        fail_msg("no line\n%s\nin\n%s", want, text);
    assert_true(has_line(text, "module id=1 epoch=0 path=\"/bin/app\" build_id=0ab0ff "
                               "load_bias=0x400000 start=0x401000 end=0x402000"));
    assert_true(has_line(text, "module id=3 epoch=1 path=\"[vdso]\" build_id=none "
                               "load_bias=0x0 start=0x7000 end=0x9000"));
    assert_true(has_line(text, "cct epoch=0 nodes=4"));
    for (size_t i = 0; i < 4; i++) {
        const struct fmt_node *n = &nodes[i];
        static const char *const kinds[] = {"root", "callsite", "leaf"};
        char mod[16], met[128] = "";
        size_t k = 0;

        if (n->module == FMT_MODULE_NONE)
            snprintf(mod, sizeof mod, "none");
        else
            snprintf(mod, sizeof mod, "%" PRIu32, n->module);
        for (uint32_t j = 0; j < n->nmetrics; j++)
            k += (size_t)snprintf(met + k, sizeof met - k, "%s%" PRIu32 ":%" PRIu64, j ? "," : "",
                                  n->metrics[j].event, n->metrics[j].value);
        snprintf(want, sizeof want,
                 "node id=%" PRIu64 " parent=%" PRIu64 " kind=%s module=%s offset=0x%" PRIx64
                 " samples=%" PRIu64 " calls=%" PRIu64 " metrics=[%s]",
                 n->id, n->parent, kinds[n->kind], mod, n->offset, n->samples, n->calls, met);
        if (!has_line(text, want))
            fail_msg("no line\n%s\nin\n%s", want, text);
    }
    /* The example line of the brief, literally. */
    assert_true(has_line(
        text,
        "node id=5 parent=2 kind=leaf module=1 offset=0x1139 samples=3 calls=0 metrics=[0:15000000]"));
    for (uint32_t i = 0; i < s.nst; i++) {
        snprintf(want, sizeof want, "stat name=\"%s\" value=%" PRIu64, s.st[i].name, s.st[i].value);
        assert_true(has_line(text, want));
    }
    /* Order: header, events, modules, cct, nodes, stats. */
    assert_true(strstr(text, "header ") < strstr(text, "event "));
    assert_true(strstr(text, "event ") < strstr(text, "module "));
    assert_true(strstr(text, "module ") < strstr(text, "cct "));
    assert_true(strstr(text, "cct ") < strstr(text, "node "));
    assert_true(strstr(text, "node ") < strstr(text, "stat "));

    free(text);
    free(text2);
    fmt_profile_free(p);
    free(b);
    spec_free(&s);
}

static void
test_strerror(void **state)
{
    static const int codes[] = {FMT_OK,     FMT_EIO,      FMT_EMAGIC, FMT_EVERSION,
                                FMT_ETRUNC, FMT_ECORRUPT, FMT_ENOMEM, FMT_EINVAL};
    const char *unknown = fmt_strerror(-1000);

    (void)state;
    assert_non_null(unknown);
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_non_null(fmt_strerror(codes[i]));
        assert_string_not_equal(fmt_strerror(codes[i]), unknown);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(fmt_strerror(codes[i]), fmt_strerror(codes[j]));
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc_known_value),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_empty),
        cmocka_unit_test(test_round_trip_buffer_boundary),
        cmocka_unit_test(test_truncation_every_prefix),
        cmocka_unit_test(test_flip_every_byte),
        cmocka_unit_test(test_corruptions),
        cmocka_unit_test(test_read_file_errors),
        cmocka_unit_test(test_writer_misuse),
        cmocka_unit_test(test_writer_bad_fd),
        cmocka_unit_test(test_writer_disk_full),
        cmocka_unit_test(test_dump),
        cmocka_unit_test(test_strerror),
        cmocka_unit_test(test_records),
        cmocka_unit_test(test_run_id),
    };
    int ntests = (int)(sizeof tests / sizeof tests[0]);
    int failed = cmocka_run_group_tests(tests, NULL, NULL);

    return csp_test_finish((long)(ntests - failed), (long)failed);
}
