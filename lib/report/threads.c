/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * threads.c -- the threads and processes of a run (rpt_db_groups: what each
 * is called, which process is the run's program, which are its wrappers),
 * per-thread and per-process values of chosen calling contexts, read from
 * DB/thread-values.bin (share/schemas/thread-values.md), and their summary
 * statistics.
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
#include "support/tvfile.h"

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

const char *
rpt_program_name(const char *path)
{
    const char *s = path != NULL ? strrchr(path, '/') : NULL;

    return s != NULL ? s + 1 : path != NULL ? path : "?";
}

void
rpt_groups_free(struct rpt_groups *g)
{
    if (g == NULL)
        return;
    free(g->threads);
    free(g->processes);
    free(g->image_buf);
    memset(g, 0, sizeof *g);
    g->main = -1;
}

/* Inputs by start time (unknown last), then by index: an image's order of exec. */
static int
cmp_start(const void *a, const void *b, void *arg)
{
    const struct rpt_db *db = arg;
    int x = *(const int *)a, y = *(const int *)b;
    double sx = db->inputs[x].start_ns, sy = db->inputs[y].start_ns;

    if ((sx < 0) != (sy < 0))
        return sx < 0 ? 1 : -1;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    return (x > y) - (x < y);
}

/* Add input @in to group @g (a thread or a process); inputs come in start order. */
static void
group_add(struct rpt_group *g, const struct rpt_input *in)
{
    if (g->ninputs++ == 0) {
        g->pid = in->pid;
        g->tid = in->tid;
        g->thread_index = in->thread_index;
        g->start_ns = in->start_ns;
    }
    if (g->rank < 0)
        g->rank = in->rank;
    if (in->program != NULL)
        g->program = in->program; /* the last image's, at the end */
    if (in->samples > 0)
        g->samples += in->samples;
    if (in->cpu_ns > 0)
        g->cpu_ns += in->cpu_ns;
    if (in->end_ns > g->end_ns)
        g->end_ns = in->end_ns;
}

int
rpt_db_groups(const struct rpt_db *db, struct rpt_groups *g, char *err, size_t errlen)
{
    long long nt = 0, np = 0;
    int *order = NULL, nread = 0;
    double *image_start = NULL; /* per process: when its last image started */

    memset(g, 0, sizeof *g);
    g->main = -1;
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
        nt = in->thread + 1 > nt ? in->thread + 1 : nt;
        np = in->process + 1 > np ? in->process + 1 : np;
        nread++;
    }
    if (nt > 100000000 || np > nt) {
        rpt_errf(err, errlen, "%s: inconsistent thread/process indices", db->path);
        return RPT_EFORMAT;
    }
    g->nthreads = (uint32_t)nt;
    g->nprocesses = (uint32_t)np;
    g->threads = calloc((size_t)nt + 1, sizeof *g->threads);
    g->processes = calloc((size_t)np + 1, sizeof *g->processes);
    g->image_buf = calloc((size_t)nread + 1, sizeof *g->image_buf);
    order = malloc(((size_t)nread + 1) * sizeof *order);
    image_start = malloc(((size_t)np + 1) * sizeof *image_start);
    if (g->threads == NULL || g->processes == NULL || g->image_buf == NULL || order == NULL ||
        image_start == NULL)
        goto nomem;
    for (long long k = 0; k < nt; k++)
        g->threads[k] = (struct rpt_group){.pid = -1,
                                           .tid = -1,
                                           .rank = -1,
                                           .thread_index = -1,
                                           .process = -1,
                                           .start_ns = -1,
                                           .end_ns = -1};
    for (long long k = 0; k < np; k++) {
        g->processes[k] = (struct rpt_group){.pid = -1,
                                             .tid = -1,
                                             .rank = -1,
                                             .thread_index = -1,
                                             .process = k,
                                             .start_ns = -1,
                                             .end_ns = -1};
        image_start[k] = -1;
    }
    nread = 0;
    for (int i = 0; i < db->ninputs; i++)
        if (db->inputs[i].read)
            order[nread++] = i;
    qsort_r(order, (size_t)nread, sizeof *order, cmp_start, (void *)db);
    for (int k = 0; k < nread; k++) {
        const struct rpt_input *in = &db->inputs[order[k]];
        struct rpt_group *t = &g->threads[in->thread], *p = &g->processes[in->process];
        if (t->process >= 0 && t->process != in->process) {
            rpt_errf(err, errlen, "%s: thread %lld is in processes %lld and %lld", db->path,
                     in->thread, t->process, in->process);
            goto format;
        }
        if (t->ninputs == 0)
            p->nthreads++;
        group_add(t, in);
        t->process = in->process;
        group_add(p, in);
        p->tid = -1;
        p->thread_index = -1;
        if (in->thread_index <= 0) /* a main thread: an image, in exec order */
            image_start[in->process] = in->start_ns;
        if (g->main < 0)
            g->main = in->process; /* the process started first */
    }
    /* each process's images (its main threads' programs in start order) in its own part of
       image_buf: a part as long as its inputs, from the prefix sums of their counts */
    {
        size_t *at = calloc((size_t)np + 1, sizeof *at);
        if (at == NULL)
            goto nomem;
        for (int k = 0; k < nread; k++)
            at[db->inputs[order[k]].process + 1]++;
        for (long long q = 0; q < np; q++) {
            at[q + 1] += at[q];
            g->processes[q].images = &g->image_buf[at[q]];
        }
        for (int k = 0; k < nread; k++) {
            const struct rpt_input *in = &db->inputs[order[k]];
            struct rpt_group *p = &g->processes[in->process];
            if (in->thread_index > 0 || in->program == NULL)
                continue;
            if (p->nimages == 0 || strcmp(p->images[p->nimages - 1], in->program) != 0)
                g->image_buf[at[in->process] + p->nimages++] = in->program;
        }
        free(at);
    }
    if (g->main >= 0 && g->processes[g->main].nimages > 1) {
        double started = image_start[g->main];
        for (uint32_t q = 0; q < g->nprocesses; q++) {
            struct rpt_group *p = &g->processes[q];
            p->wrapper = (long long)q != g->main && started >= 0 && p->ninputs > 0 &&
                         p->end_ns >= 0 && p->end_ns <= started;
            g->nwrappers += p->wrapper;
        }
    }
    free(order);
    free(image_start);
    return RPT_OK;
nomem:
    free(order);
    free(image_start);
    rpt_groups_free(g);
    return RPT_ENOMEM;
format:
    free(order);
    free(image_start);
    rpt_groups_free(g);
    return RPT_EFORMAT;
}

int
rpt_thread_values(const struct rpt_db *db, int metric, const uint32_t *nodes, size_t n,
                  struct rpt_tvalues **out, char *err, size_t errlen)
{
    struct rpt_tvalues *tv;
    struct tvf_reader r;
    struct tvf_header h;
    struct tvf_group g;
    struct tvf_entry e;
    uint32_t *want = NULL, col;
    unsigned char *buf = NULL;
    size_t len;
    char *path = NULL;
    const char *slash;
    int rc = RPT_OK, got, ioerr;

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
    rc = rpt_db_groups(db, &tv->g, err, errlen);
    if (rc != RPT_OK)
        goto fail;
    tv->thread_incl = calloc(n * tv->g.nthreads + 1, sizeof(double));
    tv->thread_excl = calloc(n * tv->g.nthreads + 1, sizeof(double));
    tv->process_incl = calloc(n * tv->g.nprocesses + 1, sizeof(double));
    tv->process_excl = calloc(n * tv->g.nprocesses + 1, sizeof(double));
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
    ioerr = tvf_load(path, &buf, &len);
    if (ioerr != 0) {
        rpt_errf(err, errlen, "%s: %s", path, strerror(ioerr));
        rc = ioerr == ENOMEM ? RPT_ENOMEM : RPT_EIO;
        goto fail;
    }
    if (tvf_read_header(&r, buf, len, &h) != 0) {
        rpt_errf(err, errlen, "%s: not a thread-values file (version %u)", path, TVF_VERSION);
        rc = RPT_EFORMAT;
        goto fail;
    }
    if (h.nthreads != tv->g.nthreads || h.nnodes > UINT32_MAX || col >= h.ncols) {
        rpt_errf(err, errlen,
                 "%s: holds %u threads, %llu nodes, %u events; experiment.xml: %u threads, "
                 "event %u",
                 path, h.nthreads, (unsigned long long)h.nnodes, h.ncols, tv->g.nthreads, col);
        rc = RPT_EFORMAT;
        goto fail;
    }
    /* want[stored id] = context + 1 */
    want = calloc((size_t)h.nnodes + 1, sizeof *want);
    if (want == NULL) {
        rc = RPT_ENOMEM;
        goto fail;
    }
    for (size_t k = 0; k < n; k++) {
        uint32_t id = nodes[k] < db->nnodes ? db->nodes[nodes[k]].id : UINT32_MAX;
        if (id < h.nnodes)
            want[id] = (uint32_t)k + 1;
    }
    while ((got = tvf_next_group(&r, &g)) == 1) {
        if (g.over != TVF_OVER_THREAD || g.index >= h.nthreads) {
            rpt_errf(err, errlen, "%s: offset %zu: group of %s %u of %u", path,
                     tvf_offset(&r) - TVF_GROUP_SIZE, g.over == TVF_OVER_THREAD ? "thread" : "kind",
                     g.index, h.nthreads);
            rc = RPT_EFORMAT;
            goto fail;
        }
        while ((got = tvf_next_entry(&r, &e)) == 1) {
            uint32_t ctx;
            if (e.node >= h.nnodes || e.column >= h.ncols) {
                rpt_errf(err, errlen, "%s: offset %zu: node %u of %llu, column %u of %u", path,
                         tvf_offset(&r), e.node, (unsigned long long)h.nnodes, e.column, h.ncols);
                rc = RPT_EFORMAT;
                goto fail;
            }
            ctx = want[e.node];
            if (e.column != col || ctx == 0)
                continue;
            ctx--;
            tv->thread_incl[(size_t)ctx * tv->g.nthreads + g.index] += e.incl;
            tv->thread_excl[(size_t)ctx * tv->g.nthreads + g.index] += e.excl;
        }
        if (got < 0)
            break;
    }
    if (got < 0) {
        rpt_errf(err, errlen, "%s: truncated at offset %zu", path, tvf_offset(&r));
        rc = RPT_EFORMAT;
        goto fail;
    }
    for (size_t k = 0; k < n; k++)
        for (uint32_t t = 0; t < tv->g.nthreads; t++) {
            long long p = tv->g.threads[t].process;
            if (p < 0)
                continue;
            tv->process_incl[k * tv->g.nprocesses + (size_t)p] +=
                tv->thread_incl[k * tv->g.nthreads + t];
            tv->process_excl[k * tv->g.nprocesses + (size_t)p] +=
                tv->thread_excl[k * tv->g.nthreads + t];
        }
    free(buf);
    free(want);
    free(path);
    *out = tv;
    return RPT_OK;
fail:
    free(buf);
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
    rpt_groups_free(&tv->g);
    free(tv->thread_incl);
    free(tv->thread_excl);
    free(tv->process_incl);
    free(tv->process_excl);
    free(tv);
}
