/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fmt_write_sig.c -- the measurement-file writer.
 *
 * Runs inside the profiled process: at thread or process exit, before exec,
 * in a fork child, possibly from a signal handler.  Everything here is
 * async-signal-safe: no malloc, no stdio, no locks; bytes go
 * through struct fmt_writer's buffer to write(2), and the length of each
 * section is patched in place at its end, in the buffer when the section
 * header is still there, otherwise with pwrite(2).  Imports: write, pwrite,
 * lseek, fcntl (raw syscalls), memcpy, strlen (async-signal-safe since
 * POSIX.1-2008 TC2; gcc turns any hand-written length loop into a strlen
 * call anyway), errno.
 *
 * Every integer is encoded byte by byte, little-endian, whatever the host;
 * no C struct is ever written as is.  Layout: measurement-format.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fmt/fmt.h"
#include "fmt/fmt_internal.h"
#include "support/bytes.h"
#include "support/sysio.h"

const char *const fmt_drop_reasons[FMT_NDROP_REASONS] = {
    "reentered", "no_thread",      "stopped",       "no_memory",  "unwind_fault",
    "no_frames", "unknown_source", "in_trampoline", "in_monitor", "debug",
};

_Static_assert(sizeof(double) == 8, "the format stores IEEE-754 binary64");

/* Position in the call order; fmt_writer.state.  0 is "never initialised". */
enum w_state {
    W_NONE = 0,
    W_INIT,
    W_HEADER,
    W_EVENTS,
    W_LOADMAP,
    W_CCT,
    W_CCT_DONE,
    W_STATS,
    W_DONE,
};

/* Nibble-wise CRC-32 table: entry i is the CRC of the 4-bit value i. */
static const uint32_t crc_nibble[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
    0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

CSP_SIGSAFE uint32_t
fmt_crc32(uint32_t crc, const void *p, size_t n)
{
    const uint8_t *s = p;

    crc = ~crc;
    while (n-- > 0) {
        crc ^= *s++;
        crc = (crc >> 4) ^ crc_nibble[crc & 15u];
        crc = (crc >> 4) ^ crc_nibble[crc & 15u];
    }
    return ~crc;
}

CSP_SIGSAFE const char *
fmt_strerror(int status)
{
    switch (status) {
    case FMT_OK:
        return "success";
    case FMT_EIO:
        return "input/output error";
    case FMT_EMAGIC:
        return "not a csprof measurement file";
    case FMT_EVERSION:
        return "unsupported measurement file version";
    case FMT_ETRUNC:
        return "measurement file is truncated";
    case FMT_ECORRUPT:
        return "measurement file is corrupt";
    case FMT_ENOMEM:
        return "out of memory";
    case FMT_EINVAL:
        return "invalid argument or call order";
    default:
        return "unknown fmt status";
    }
}

/* Record the first error; return the sticky one, with errno set for FMT_EIO. */
static int
w_fail(struct fmt_writer *w, int status, int err)
{
    if (w->error == 0) {
        w->error = status;
        w->saved_errno = status == FMT_EIO ? err : 0;
    }
    if (w->error == FMT_EIO)
        errno = w->saved_errno;
    return w->error;
}

/* Return the sticky error, or FMT_EINVAL unless the writer is in @want. */
static int
w_check(struct fmt_writer *w, int want)
{
    if (w->error != 0)
        return w_fail(w, w->error, w->saved_errno);
    if (w->state != want)
        return w_fail(w, FMT_EINVAL, 0);
    return FMT_OK;
}

static void
w_flush(struct fmt_writer *w)
{
    size_t done = 0;

    if (w->mem != NULL) {
        uint64_t at = w->offset - w->used;

        if (w->used > w->mem_cap || at > w->mem_cap - w->used)
            w_fail(w, FMT_EIO, ENOBUFS);
        else
            memcpy(w->mem + at, w->buf, w->used);
        w->used = 0;
        return;
    }

    while (done < w->used && w->error == 0) {
        ssize_t n = csp_sys_write(w->fd, w->buf + done, w->used - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) /* 0 cannot happen for a regular file; do not spin on it */
            w_fail(w, FMT_EIO, n < 0 ? errno : EIO);
        else
            done += (size_t)n;
    }
    w->used = 0;
}

/* Append @n bytes; @payload: they belong to a section payload (checksummed). */
static void
w_bytes(struct fmt_writer *w, const void *p, size_t n, int payload)
{
    const uint8_t *s = p;

    if (w->error != 0 || n == 0)
        return;
    if (payload)
        w->crc = fmt_crc32(w->crc, p, n);
    while (n > 0 && w->error == 0) {
        size_t room = sizeof w->buf - w->used;
        size_t k = n < room ? n : room;

        if (room == 0) {
            w_flush(w);
            continue;
        }
        memcpy(w->buf + w->used, s, k);
        w->used += k;
        w->offset += k;
        s += k;
        n -= k;
    }
}

static void
w_u32(struct fmt_writer *w, uint32_t v)
{
    uint8_t b[4];

    csp_le_store32(b, v);
    w_bytes(w, b, sizeof b, 1);
}

static void
w_u64(struct fmt_writer *w, uint64_t v)
{
    uint8_t b[8];

    csp_le_store64(b, v);
    w_bytes(w, b, sizeof b, 1);
}

static void
w_f64(struct fmt_writer *w, double d)
{
    uint64_t v;

    memcpy(&v, &d, sizeof v);
    w_u64(w, v);
}

/* u32 length + bytes, no NUL; NULL is written as "". */
static void
w_str(struct fmt_writer *w, const char *s)
{
    size_t n = s != NULL ? strlen(s) : 0;

    if (n > UINT32_MAX) {
        w_fail(w, FMT_EINVAL, 0);
        return;
    }
    w_u32(w, (uint32_t)n);
    w_bytes(w, s, n, 1);
}

/* Section header with a pending length; fmt_writer.section_start marks it. */
static void
w_section_open(struct fmt_writer *w, uint32_t kind)
{
    uint8_t b[FMT_SECTION_HEADER_SIZE] = {0};

    csp_le_store32(b, kind);
    csp_le_store64(b + 8, FMT_LENGTH_PENDING); /* bytes 4..7, the flags, stay 0 */
    w->section_start = w->offset;
    w_bytes(w, b, sizeof b, 0);
}

/* Patch the open section's length: in the buffer if its header is still
 * there, otherwise flush and pwrite(2) the 8 bytes into the file. */
static void
w_section_close(struct fmt_writer *w)
{
    uint64_t len_at = w->section_start + 8;
    uint64_t buf_start = w->offset - w->used;
    uint8_t b[8];
    size_t done = 0;

    if (w->error != 0)
        return;
    csp_le_store64(b, w->offset - w->section_start - FMT_SECTION_HEADER_SIZE);
    if (len_at >= buf_start) {
        memcpy(w->buf + (len_at - buf_start), b, sizeof b);
        return;
    }
    w_flush(w); /* the header may straddle the flushed and buffered parts */
    if (w->mem != NULL) {
        if (w->error == 0)
            memcpy(w->mem + len_at, b, sizeof b); /* below offset, so inside mem_cap */
        return;
    }
    while (done < sizeof b && w->error == 0) {
        ssize_t n = csp_sys_pwrite(w->fd, b + done, sizeof b - done, (off_t)(len_at + done));

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            w_fail(w, FMT_EIO, n < 0 ? errno : EIO);
        else
            done += (size_t)n;
    }
}

/* Finish a public call: advance to @next unless an error is pending. */
static int
w_done(struct fmt_writer *w, int next)
{
    if (w->error != 0)
        return w_fail(w, w->error, w->saved_errno);
    w->state = next;
    return FMT_OK;
}

CSP_SIGSAFE int
fmt_writer_init(struct fmt_writer *w, int fd)
{
    off_t pos;
    int fl;

    if (w == NULL)
        return FMT_EINVAL;
    w->fd = fd;
    w->error = 0;
    w->saved_errno = 0;
    w->state = W_INIT;
    w->offset = 0;
    w->section_start = 0;
    w->nodes_expected = 0;
    w->nodes_written = 0;
    w->used = 0;
    w->crc = 0;
    w->nevents = 0;
    w->mem = NULL;
    w->mem_cap = 0;

    fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return w_fail(w, FMT_EIO, errno);
    if (fl &
        O_APPEND) /* Linux pwrite(2) appends on O_APPEND files: patches would land at the end */
        return w_fail(w, FMT_EINVAL, 0);
    pos = lseek(fd, 0, SEEK_CUR);
    if (pos < 0)
        return w_fail(w, FMT_EIO, errno);
    if (pos != 0)
        return w_fail(w, FMT_EINVAL, 0);
    return FMT_OK;
}

CSP_SIGSAFE int
fmt_writer_init_mem(struct fmt_writer *w, void *mem, uint64_t cap)
{
    if (w == NULL)
        return FMT_EINVAL;
    w->fd = -1;
    w->error = 0;
    w->saved_errno = 0;
    w->state = W_INIT;
    w->offset = 0;
    w->section_start = 0;
    w->nodes_expected = 0;
    w->nodes_written = 0;
    w->used = 0;
    w->crc = 0;
    w->nevents = 0;
    w->mem = mem;
    w->mem_cap = cap;
    if (mem == NULL)
        return w_fail(w, FMT_EINVAL, 0);
    return FMT_OK;
}

CSP_SIGSAFE int
fmt_write_header(struct fmt_writer *w, const struct fmt_header *h)
{
    uint8_t fh[FMT_FILE_HEADER_SIZE];
    int rc;

    if (w == NULL)
        return FMT_EINVAL;
    if ((rc = w_check(w, W_INIT)) < 0)
        return rc;
    if (h == NULL)
        return w_fail(w, FMT_EINVAL, 0);

    memcpy(fh, FMT_MAGIC, 8);
    csp_le_store32(fh + 8, FMT_VERSION);
    csp_le_store32(fh + 12, FMT_VERSION_MINOR);
    w_bytes(w, fh, sizeof fh, 0);

    w_section_open(w, FMT_SEC_IDENT);
    w_u32(w, h->pid);
    w_u32(w, h->tid);
    w_u32(w, h->thread_index);
    w_u32(w, (uint32_t)h->rank); /* two's complement, as every supported host stores it */
    w_u32(w, h->generation);
    w_u64(w, h->start_ns);
    w_u64(w, h->end_ns);
    w_u64(w, h->cpu_ns);
    w_str(w, h->program);
    w_str(w, h->command);
    w_str(w, h->host);
    w_section_close(w);
    /* Right after IDENT, where fmt_peek_run_id() finds it without reading the record. */
    if (h->run_id != NULL && h->run_id[0] != '\0') {
        if (strlen(h->run_id) > FMT_RUN_ID_MAX)
            return w_fail(w, FMT_EINVAL, 0);
        w_section_open(w, FMT_SEC_RUN);
        w_str(w, h->run_id);
        w_section_close(w);
    }
    return w_done(w, W_HEADER);
}

CSP_SIGSAFE int
fmt_write_events(struct fmt_writer *w, const struct fmt_event *ev, uint32_t n)
{
    int rc;

    if (w == NULL)
        return FMT_EINVAL;
    if ((rc = w_check(w, W_HEADER)) < 0)
        return rc;
    if (ev == NULL && n > 0)
        return w_fail(w, FMT_EINVAL, 0);

    w_section_open(w, FMT_SEC_EVENTS);
    w_u32(w, n);
    for (uint32_t i = 0; i < n; i++) {
        w_str(w, ev[i].name);
        w_str(w, ev[i].unit);
        w_str(w, ev[i].mechanism);
        w_u64(w, ev[i].period);
        w_f64(w, ev[i].display_scale);
        w_str(w, ev[i].display_unit);
    }
    w_section_close(w);
    w->nevents = n;
    return w_done(w, W_EVENTS);
}

CSP_SIGSAFE int
fmt_write_loadmap(struct fmt_writer *w, const struct fmt_module *m, uint32_t n)
{
    int rc;

    if (w == NULL)
        return FMT_EINVAL;
    if ((rc = w_check(w, W_EVENTS)) < 0)
        return rc;
    if (m == NULL && n > 0)
        return w_fail(w, FMT_EINVAL, 0);
    /* Check everything before writing a byte.  Quadratic, but load maps are
     * short and this runs once per file. */
    for (uint32_t i = 0; i < n; i++) {
        if (m[i].id == FMT_MODULE_NONE || m[i].end < m[i].start ||
            (m[i].build_id == NULL && m[i].build_id_len > 0))
            return w_fail(w, FMT_EINVAL, 0);
        for (uint32_t j = 0; j < i; j++)
            if (m[j].id == m[i].id)
                return w_fail(w, FMT_EINVAL, 0);
    }

    w_section_open(w, FMT_SEC_LOADMAP);
    w_u32(w, n);
    for (uint32_t i = 0; i < n; i++) {
        w_u32(w, m[i].id);
        w_u32(w, m[i].epoch);
        w_str(w, m[i].path);
        w_u32(w, m[i].build_id_len);
        w_bytes(w, m[i].build_id, m[i].build_id_len, 1);
        w_u64(w, m[i].load_bias);
        w_u64(w, m[i].start);
        w_u64(w, m[i].end);
    }
    w_section_close(w);
    return w_done(w, W_LOADMAP);
}

CSP_SIGSAFE int
fmt_begin_cct(struct fmt_writer *w, uint32_t epoch, uint64_t nnodes)
{
    int rc;

    if (w == NULL)
        return FMT_EINVAL;
    if ((rc = w_check(w, W_LOADMAP)) < 0)
        return rc;
    w_section_open(w, FMT_SEC_CCT);
    w_u32(w, epoch);
    w_u64(w, nnodes);
    w->nodes_expected = nnodes;
    w->nodes_written = 0;
    return w_done(w, W_CCT);
}

/* The checks the reader would make that need no memory of earlier nodes. */
static int
node_ok(const struct fmt_writer *w, const struct fmt_node *nd)
{
    if (w->nodes_written == 0) {
        if (nd->id != 0 || nd->kind != FMT_NODE_ROOT)
            return 0;
    } else if (nd->id == 0 || (nd->kind != FMT_NODE_CALLSITE && nd->kind != FMT_NODE_LEAF)) {
        return 0;
    }
    if (nd->metrics == NULL && nd->nmetrics > 0)
        return 0;
    for (uint32_t i = 0; i < nd->nmetrics; i++) {
        if (nd->metrics[i].event >= w->nevents)
            return 0;
        if (i > 0 && nd->metrics[i].event <= nd->metrics[i - 1].event)
            return 0; /* strictly increasing: unique and canonical */
    }
    return 1;
}

CSP_SIGSAFE int
fmt_write_node(struct fmt_writer *w, const struct fmt_node *node)
{
    int rc;

    if (w == NULL)
        return FMT_EINVAL;
    if ((rc = w_check(w, W_CCT)) < 0)
        return rc;
    if (node == NULL || w->nodes_written >= w->nodes_expected || !node_ok(w, node))
        return w_fail(w, FMT_EINVAL, 0);

    w_u64(w, node->id);
    w_u64(w, node->kind == FMT_NODE_ROOT ? 0 : node->parent);
    w_u32(w, node->kind);
    w_u32(w, node->module);
    w_u64(w, node->offset);
    w_u64(w, node->samples);
    w_u64(w, node->calls);
    w_u32(w, node->nmetrics);
    for (uint32_t i = 0; i < node->nmetrics; i++) {
        w_u32(w, node->metrics[i].event);
        w_u64(w, node->metrics[i].value);
    }
    w->nodes_written++;
    return w_done(w, W_CCT);
}

CSP_SIGSAFE int
fmt_end_cct(struct fmt_writer *w)
{
    int rc;

    if (w == NULL)
        return FMT_EINVAL;
    if ((rc = w_check(w, W_CCT)) < 0)
        return rc;
    if (w->nodes_written != w->nodes_expected)
        return w_fail(w, FMT_EINVAL, 0);
    w_section_close(w);
    return w_done(w, W_CCT_DONE);
}

CSP_SIGSAFE int
fmt_write_stats(struct fmt_writer *w, const struct fmt_stat *s, uint32_t n)
{
    int rc;

    if (w == NULL)
        return FMT_EINVAL;
    if ((rc = w_check(w, W_CCT_DONE)) < 0)
        return rc;
    if (s == NULL && n > 0)
        return w_fail(w, FMT_EINVAL, 0);
    w_section_open(w, FMT_SEC_STATS);
    w_u32(w, n);
    for (uint32_t i = 0; i < n; i++) {
        w_str(w, s[i].name);
        w_u64(w, s[i].value);
    }
    w_section_close(w);
    return w_done(w, W_STATS);
}

CSP_SIGSAFE int
fmt_write_record(struct fmt_writer *w, uint32_t flags, uint64_t seq)
{
    int rc;

    if (w == NULL)
        return FMT_EINVAL;
    if ((rc = w_check(w, W_STATS)) < 0)
        return rc;
    w_section_open(w, FMT_SEC_RECORD);
    w_u32(w, flags);
    w_u64(w, seq);
    w_section_close(w);
    return w_done(w, W_STATS);
}

CSP_SIGSAFE int
fmt_writer_finish(struct fmt_writer *w)
{
    uint8_t b[FMT_SECTION_HEADER_SIZE + FMT_END_PAYLOAD_SIZE] = {FMT_SEC_END};
    int rc;

    if (w == NULL)
        return FMT_EINVAL;
    if ((rc = w_check(w, W_STATS)) < 0)
        return rc;
    /* END's length is known, so it is written whole: no pending length. */
    csp_le_store64(b + 8, FMT_END_PAYLOAD_SIZE);
    csp_le_store64(b + 16, w->offset + sizeof b);
    csp_le_store32(b + 24, w->crc);
    w_bytes(w, b, sizeof b, 0);
    w_flush(w);
    return w_done(w, W_DONE);
}
