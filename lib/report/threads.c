/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads.c -- per-thread and per-process values of chosen calling contexts,
 * read from DB/thread-values.bin (share/schemas/thread-values.md), and their
 * summary statistics.
 *
 * Tool code.  The file is read sequentially once; only the entries of the
 * requested nodes and event are kept, so memory is (contexts x threads)
 * whatever the size of the file.  A process's value is the sum of its
 * threads' values, as the file's format defines it.  The statistics are
 * those of the database's stats columns (lib/profile/prof_stats.c): a thread
 * without a value at a node counts as 0, N is every thread (process) read,
 * population standard deviation, cv = stddev / mean.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

#define TV_HEADER       32
#define TV_EXCL_IS_INCL (1u << 31)
#define TV_EXCL_ZERO    (1u << 30)

static uint32_t
le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t
le64(const unsigned char *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static double
ledouble(const unsigned char *p)
{
    uint64_t u = le64(p);
    double d;

    memcpy(&d, &u, sizeof d);
    return d;
}

void
rpt_stats_of(const double *x, size_t n, struct rpt_stats *out)
{
    double sum = 0, sq = 0, mn = INFINITY, mx = -INFINITY, count = 0, mean, var;

    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        sq += x[i] * x[i];
        mn = fmin(mn, x[i]);
        mx = fmax(mx, x[i]);
        count += x[i] != 0;
    }
    mean = sum / (double)n;
    var = sq / (double)n - mean * mean;
    out->sum = sum;
    out->mean = mean;
    out->min = mn;
    out->max = mx;
    out->stddev = var > 0 ? sqrt(var) : 0;
    out->cv = mean != 0 ? out->stddev / mean : 0;
    out->count = count;
}

/* Fill the thread and process tables from the database's inputs. */
static int
groups_from_inputs(const struct rpt_db *db, struct rpt_tvalues *tv, char *err, size_t errlen)
{
    long long nt = 0, np = 0;

    for (int i = 0; i < db->ninputs; i++) {
        const struct rpt_input *in = &db->inputs[i];
        if (!in->read)
            continue;
        if (in->thread < 0 || in->process < 0) {
            rpt_errf(err, errlen,
                     "%s: Input %s has no thread/process index (database older than "
                     "thread-values.bin?)",
                     db->path, in->path != NULL ? in->path : "?");
            return RPT_EFORMAT;
        }
        if (in->thread + 1 > nt)
            nt = in->thread + 1;
        if (in->process + 1 > np)
            np = in->process + 1;
    }
    if (nt > 100000000 || np > nt) {
        rpt_errf(err, errlen, "%s: inconsistent thread/process indices", db->path);
        return RPT_EFORMAT;
    }
    tv->nthreads = (uint32_t)nt;
    tv->nprocesses = (uint32_t)np;
    tv->threads = calloc((size_t)nt + 1, sizeof *tv->threads);
    tv->processes = calloc((size_t)np + 1, sizeof *tv->processes);
    if (tv->threads == NULL || tv->processes == NULL)
        return RPT_ENOMEM;
    for (long long k = 0; k < nt; k++)
        tv->threads[k] = (struct rpt_group){-1, -1, -1, -1, -1, 0, NULL};
    for (long long k = 0; k < np; k++)
        tv->processes[k] = (struct rpt_group){-1, -1, -1, -1, -1, 0, NULL};
    for (int i = db->ninputs; i-- > 0;) { /* the first input of a thread wins */
        const struct rpt_input *in = &db->inputs[i];
        struct rpt_group *t, *p;
        if (!in->read)
            continue;
        t = &tv->threads[in->thread];
        p = &tv->processes[in->process];
        *t = (struct rpt_group){in->pid,     in->tid, in->rank,   in->thread_index,
                                in->process, 0,       in->program};
        p->pid = in->pid;
        p->rank = in->rank;
        p->program = in->program;
        p->process = in->process;
    }
    for (uint32_t k = 0; k < tv->nthreads; k++)
        if (tv->threads[k].process >= 0)
            tv->processes[tv->threads[k].process].nthreads++;
    return RPT_OK;
}

int
rpt_thread_values(const struct rpt_db *db, int metric, const uint32_t *nodes, size_t n,
                  struct rpt_tvalues **out, char *err, size_t errlen)
{
    struct rpt_tvalues *tv;
    unsigned char h[TV_HEADER], e[16], x[8];
    uint32_t *want = NULL, ncols, nthreads, col;
    uint64_t nnodes;
    char *path = NULL;
    const char *slash;
    FILE *f = NULL;
    int rc = RPT_OK;
    long long off = TV_HEADER;

    *out = NULL;
    if (metric < 0 || metric >= db->nmetrics || !db->metrics[metric].inclusive ||
        !db->metrics[metric].additive || strcmp(db->metrics[metric].event, "samples") == 0 ||
        strcmp(db->metrics[metric].event, "calls") == 0 || metric % 2 != 0) {
        rpt_errf(err, errlen, "%s: metric %s has no per-thread values (only measured events do)",
                 db->path, metric >= 0 && metric < db->nmetrics ? db->metrics[metric].name : "?");
        return RPT_EINVAL;
    }
    col = (uint32_t)metric / 2;
    tv = calloc(1, sizeof *tv);
    if (tv == NULL)
        return RPT_ENOMEM;
    tv->ncontexts = n;
    rc = groups_from_inputs(db, tv, err, errlen);
    if (rc != RPT_OK)
        goto fail;
    tv->thread_incl = calloc(n * tv->nthreads + 1, sizeof(double));
    tv->thread_excl = calloc(n * tv->nthreads + 1, sizeof(double));
    tv->process_incl = calloc(n * tv->nprocesses + 1, sizeof(double));
    tv->process_excl = calloc(n * tv->nprocesses + 1, sizeof(double));
    if (tv->thread_incl == NULL || tv->thread_excl == NULL || tv->process_incl == NULL ||
        tv->process_excl == NULL) {
        rc = RPT_ENOMEM;
        goto fail;
    }
    slash = strrchr(db->path, '/');
    if (asprintf(&path, "%.*sthread-values.bin", slash ? (int)(slash - db->path + 1) : 0,
                 db->path) < 0) {
        path = NULL;
        rc = RPT_ENOMEM;
        goto fail;
    }
    f = fopen(path, "rb");
    if (f == NULL) {
        rpt_errf(err, errlen, "%s: %s", path, strerror(errno));
        rc = RPT_EIO;
        goto fail;
    }
    if (fread(h, 1, TV_HEADER, f) != TV_HEADER || memcmp(h, "CSPTHRV1", 8) != 0 ||
        le32(h + 8) != 1) {
        rpt_errf(err, errlen, "%s: not a thread-values file (version 1)", path);
        rc = RPT_EFORMAT;
        goto fail;
    }
    ncols = le32(h + 12);
    nthreads = le32(h + 16);
    nnodes = le64(h + 24);
    if (nthreads != tv->nthreads || nnodes > UINT32_MAX || col >= ncols) {
        rpt_errf(err, errlen,
                 "%s: holds %u threads, %llu nodes, %u events; experiment.xml: %u threads, "
                 "event %u",
                 path, nthreads, (unsigned long long)nnodes, ncols, tv->nthreads, col);
        rc = RPT_EFORMAT;
        goto fail;
    }
    /* want[stored id] = context + 1 */
    want = calloc((size_t)nnodes + 1, sizeof *want);
    if (want == NULL) {
        rc = RPT_ENOMEM;
        goto fail;
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t id = nodes[k] < db->nnodes ? db->nodes[nodes[k]].id : UINT32_MAX;
        if (id < nnodes)
            want[id] = (uint32_t)k + 1;
    }
    for (;;) {
        uint32_t over, index, count;
        size_t got = fread(h, 1, 12, f);
        if (got == 0 && feof(f))
            break;
        if (got != 12)
            goto truncated;
        over = le32(h);
        index = le32(h + 4);
        count = le32(h + 8);
        off += 12;
        if (over != 0 || index >= nthreads) {
            rpt_errf(err, errlen, "%s: offset %lld: group of %s %u of %u", path, off - 12,
                     over == 0 ? "thread" : "kind", index, nthreads);
            rc = RPT_EFORMAT;
            goto fail;
        }
        for (uint32_t k = 0; k < count; k++) {
            uint32_t node, flags, c, ctx;
            double incl, excl;
            if (fread(e, 1, 16, f) != 16)
                goto truncated;
            node = le32(e);
            flags = le32(e + 4);
            c = flags & 0x3fffffffu;
            incl = ledouble(e + 8);
            off += 16;
            excl = (flags & TV_EXCL_IS_INCL) ? incl : 0;
            if (!(flags & (TV_EXCL_IS_INCL | TV_EXCL_ZERO))) {
                if (fread(x, 1, 8, f) != 8)
                    goto truncated;
                excl = ledouble(x);
                off += 8;
            }
            if (node >= nnodes || c >= ncols) {
                rpt_errf(err, errlen, "%s: offset %lld: node %u of %llu, column %u of %u", path,
                         off, node, (unsigned long long)nnodes, c, ncols);
                rc = RPT_EFORMAT;
                goto fail;
            }
            ctx = want[node];
            if (c != col || ctx == 0)
                continue;
            ctx--;
            tv->thread_incl[(size_t)ctx * tv->nthreads + index] += incl;
            tv->thread_excl[(size_t)ctx * tv->nthreads + index] += excl;
        }
    }
    for (size_t k = 0; k < n; k++)
        for (uint32_t t = 0; t < tv->nthreads; t++) {
            long long p = tv->threads[t].process;
            if (p < 0)
                continue;
            tv->process_incl[k * tv->nprocesses + (size_t)p] +=
                tv->thread_incl[k * tv->nthreads + t];
            tv->process_excl[k * tv->nprocesses + (size_t)p] +=
                tv->thread_excl[k * tv->nthreads + t];
        }
    fclose(f);
    free(want);
    free(path);
    *out = tv;
    return RPT_OK;
truncated:
    rpt_errf(err, errlen, "%s: truncated at offset %lld", path, off);
    rc = RPT_EFORMAT;
fail:
    if (f != NULL)
        fclose(f);
    free(want);
    free(path);
    rpt_tvalues_free(tv);
    return rc;
}

void
rpt_tvalues_free(struct rpt_tvalues *tv)
{
    if (tv == NULL)
        return;
    free(tv->threads);
    free(tv->processes);
    free(tv->thread_incl);
    free(tv->thread_excl);
    free(tv->process_incl);
    free(tv->process_excl);
    free(tv);
}
