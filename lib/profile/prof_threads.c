/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_threads.c -- DB/thread-values.bin: the sparse per-thread and
 * per-process values of every calling-context node, beside experiment.xml
 * (format: share/schemas/thread-values.md).
 *
 * Tool code; never prints.  Written through a temporary file (opened with
 * O_EXCL | O_NOFOLLOW, so a planted symbolic link is never followed) and
 * renamed into place.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile_internal.h"

#define PROF_TV_MAGIC     "CSPTHRV1"
#define PROF_TV_VERSION   1u
#define PROF_TV_EXCL_SAME 0x80000000u /* exclusive = inclusive: not stored */
#define PROF_TV_EXCL_ZERO 0x40000000u /* exclusive = 0: not stored */

/* One group's entries, collected before its header (which carries their count). */
struct prof_tv_writer {
    FILE *out;
    int over;
    uint32_t group; /* group being collected, PROF_NONE before the first */
    unsigned char *buf;
    size_t len, cap; /* bytes */
    uint32_t nentries;
    uint32_t ncols; /* event columns written */
    bool failed;
};

static void
prof_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void
prof_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void
prof_ledbl(unsigned char *p, double d)
{
    uint64_t v;

    memcpy(&v, &d, sizeof(v));
    prof_le64(p, v);
}

static void
prof_tv_put(struct prof_tv_writer *w, const void *p, size_t n)
{
    if (!w->failed && fwrite(p, 1, n, w->out) != n)
        w->failed = true;
}

/* Write the collected group: u32 over, u32 group, u32 count, then the entries. */
static void
prof_tv_flush(struct prof_tv_writer *w)
{
    unsigned char h[12];

    if (w->group == PROF_NONE)
        return;
    prof_le32(h, (uint32_t)w->over);
    prof_le32(h + 4, w->group);
    prof_le32(h + 8, w->nentries);
    prof_tv_put(w, h, sizeof(h));
    prof_tv_put(w, w->buf, w->len);
    w->len = 0;
    w->nentries = 0;
}

static void
prof_tv_visit(uint32_t group, uint32_t node, uint32_t col, double incl, double excl, void *arg)
{
    struct prof_tv_writer *w = arg;
    uint32_t flags = excl == incl ? PROF_TV_EXCL_SAME : excl == 0.0 ? PROF_TV_EXCL_ZERO : 0;
    unsigned char *e;

    if (col >= w->ncols)
        return; /* sample counts are not in the file */
    if (group != w->group) {
        prof_tv_flush(w);
        w->group = group;
    }
    prof_grow(&w->buf, &w->cap, w->len + 24, 1);
    e = w->buf + w->len;
    prof_le32(e, node);
    prof_le32(e + 4, col | flags);
    prof_ledbl(e + 8, incl);
    w->len += 16;
    if (flags == 0) {
        prof_ledbl(e + 16, excl);
        w->len += 8;
    }
    w->nentries++;
}

int
prof_write_thread_values(struct prof_ctx *ctx, const char *dir)
{
    char *path = prof_xasprintf("%s/thread-values.bin", dir);
    char *tmp = prof_xasprintf("%s/thread-values.bin.tmp", dir);
    struct prof_tv_writer w = {.group = PROF_NONE};
    unsigned char h[32];
    int fd, rc = 0;

    unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    w.out = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (w.out == NULL) {
        rc = prof_fail(ctx, PROF_EIO, "%s: cannot create: %s", tmp, strerror(errno));
        if (fd >= 0)
            close(fd);
        goto out_free;
    }
    memcpy(h, PROF_TV_MAGIC, 8);
    prof_le32(h + 8, PROF_TV_VERSION);
    w.ncols = (uint32_t)ctx->nevents;
    prof_le32(h + 12, w.ncols);
    prof_le32(h + 16, ctx->stats.nthreads);
    prof_le32(h + 20, ctx->stats.nprocesses);
    prof_le64(h + 24, ctx->tree.n);
    prof_tv_put(&w, h, sizeof(h));
    w.over = PROF_OVER_THREADS; /* a process's values are the sums of its threads' */
    prof_stats_accumulate(ctx, prof_tv_visit, &w); /* the statistics, in the same pass */
    prof_tv_flush(&w);
    if (fclose(w.out) != 0)
        w.failed = true;
    if (w.failed) {
        rc = prof_fail(ctx, PROF_EIO, "%s: write failed: %s", tmp, strerror(errno));
        unlink(tmp);
    } else if (rename(tmp, path) != 0) {
        rc = prof_fail(ctx, PROF_EIO, "%s: cannot rename to %s: %s", tmp, path, strerror(errno));
        unlink(tmp);
    }
out_free:
    free(w.buf);
    free(path);
    free(tmp);
    return rc;
}
