/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_threads.c -- DB/thread-values.bin: the sparse per-thread and
 * per-process values of every calling-context node, beside experiment.xml
 * (format: share/schemas/thread-values.md; encoded by support/tvfile.h).
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
#include "support/tvfile.h"

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
prof_tv_put(struct prof_tv_writer *w, const void *p, size_t n)
{
    if (!w->failed && fwrite(p, 1, n, w->out) != n)
        w->failed = true;
}

/* Write the collected group: its header (tvfile.h), then the entries. */
static void
prof_tv_flush(struct prof_tv_writer *w)
{
    unsigned char h[TVF_GROUP_SIZE];
    struct tvf_group g = {(uint32_t)w->over, w->group, w->nentries};

    if (w->group == PROF_NONE)
        return;
    tvf_put_group(h, &g);
    prof_tv_put(w, h, sizeof(h));
    prof_tv_put(w, w->buf, w->len);
    w->len = 0;
    w->nentries = 0;
}

static void
prof_tv_visit(uint32_t group, uint32_t node, uint32_t col, double incl, double excl, void *arg)
{
    struct prof_tv_writer *w = arg;
    struct tvf_entry e = {node, col, incl, excl};

    if (col >= w->ncols)
        return; /* sample counts are not in the file */
    if (group != w->group) {
        prof_tv_flush(w);
        w->group = group;
    }
    prof_grow(&w->buf, &w->cap, w->len + TVF_ENTRY_MAX, 1);
    w->len += tvf_put_entry(w->buf + w->len, &e);
    w->nentries++;
}

int
prof_write_thread_values(struct prof_ctx *ctx, const char *dir)
{
    char *path = prof_xasprintf("%s/thread-values.bin", dir);
    char *tmp = prof_xasprintf("%s/thread-values.bin.tmp", dir);
    struct prof_tv_writer w = {.group = PROF_NONE};
    unsigned char h[TVF_HEADER_SIZE];
    struct tvf_header hd;
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
    w.ncols = (uint32_t)ctx->nevents;
    hd.ncols = w.ncols;
    hd.nthreads = ctx->stats.nthreads;
    hd.nprocesses = ctx->stats.nprocesses;
    hd.nnodes = ctx->tree.n;
    tvf_put_header(h, &hd);
    prof_tv_put(&w, h, sizeof(h));
    w.over = TVF_OVER_THREAD; /* a process's values are the sums of its threads' */
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
