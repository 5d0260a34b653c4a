/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * viewer.c -- write the zero-install viewer and its data into a database.
 *
 * The data is the finest top-down view lib/report builds (inlined frames,
 * loops and statements kept, no root elided), renumbered in preorder and
 * written column by column as JavaScript array literals with one string
 * table (share/schemas/viewer-data.md).  The viewer (share/viewer/, the .js files)
 * applies the transforms, views and statistics in the browser.
 *
 * Tool code: never prints, never exits.  Every string from the database
 * goes through exp_json_str(), which escapes quotes, controls and <>&, so
 * no name can end the script or start markup.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "export/export.h"
#include "report/report.h"
#include "support/tvfile.h"
#include "viewer/viewer.h"
#include "viewer_internal.h"

#define VW_FORMAT       1
#define VW_MAX_SRC_SIZE (8u << 20) /* larger source files are not shown */

struct vw_out {
    const char *dir; /* output directory */
    char *err;
    size_t errlen;
};

static int __attribute__((format(printf, 3, 4)))
vw_fail(struct vw_out *o, int rc, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(o->err, o->errlen, fmt, ap);
    va_end(ap);
    return rc;
}

static char *
vw_path(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);

    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Open @dir/@name for writing (replacing it, never following a symlink). */
static FILE *
vw_create(struct vw_out *o, const char *name, int *rc)
{
    char *path = vw_path(o->dir, name);
    FILE *f = NULL;
    int fd;

    if (path == NULL) {
        *rc = vw_fail(o, RPT_ENOMEM, "out of memory");
        return NULL;
    }
    unlink(path); /* a symlink planted there is removed, not followed */
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0)
        f = fdopen(fd, "w");
    if (f == NULL) {
        *rc = vw_fail(o, RPT_EIO, "%s: cannot write: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    free(path);
    return f;
}

static int
vw_close(struct vw_out *o, FILE *f, const char *name)
{
    bool bad = ferror(f) != 0;

    if (fclose(f) != 0 || bad)
        return vw_fail(o, RPT_EIO, "%s/%s: write failed: %s", o->dir, name, strerror(errno));
    return 0;
}

/* ---------------------------------------------------- experiment.xml extras */

/* What the viewer needs besides the CCT: File src= and the Summary subtree,
 * both kept by rpt_db_read() (so experiment.xml is read once). */
struct vw_extra {
    char *const *file_src; /* per file index: "src/...", or NULL (borrowed from the db) */
    int nfile_src;
    char *summary_buf; /* JSON array of [element, depth, {attributes}] */
    size_t summary_len;
};

static void
vw_extra_free(struct vw_extra *x)
{
    free(x->summary_buf);
}

static int
vw_read_extra(struct vw_out *o, const struct rpt_db *db, struct vw_extra *x)
{
    FILE *f;

    memset(x, 0, sizeof *x);
    x->file_src = db->file_src;
    x->nfile_src = db->file_src != NULL ? db->nfiles : 0;
    f = open_memstream(&x->summary_buf, &x->summary_len);
    if (f == NULL)
        return vw_fail(o, RPT_ENOMEM, "out of memory");
    for (size_t i = 0; i < db->nsummary; i++) {
        const struct rpt_summary_el *e = &db->summary[i];
        fputs(i ? ",\n[" : "[", f);
        exp_json_str(f, e->el);
        fprintf(f, ",%d,{", e->depth);
        for (int k = 0; k < e->nattrs; k++) {
            if (k)
                putc(',', f);
            exp_json_str(f, e->attrs[2 * k]);
            putc(':', f);
            exp_json_str(f, e->attrs[2 * k + 1]);
        }
        fputs("}]", f);
    }
    if (fclose(f) != 0)
        return vw_fail(o, RPT_ENOMEM, "out of memory");
    return 0;
}

/* ------------------------------------------------------------- sources */

/* Length of the valid UTF-8 sequence at @p (1-4), or 0 when it is not one. */
static size_t
vw_utf8_len(const unsigned char *p, const unsigned char *end)
{
    size_t n = p[0] < 0x80             ? 1
               : (p[0] & 0xe0) == 0xc0 ? 2
               : (p[0] & 0xf0) == 0xe0 ? 3
               : (p[0] & 0xf8) == 0xf0 ? 4
                                       : 0;
    uint32_t cp;

    if (n == 0 || (size_t)(end - p) < n)
        return 0;
    if (n == 1)
        return 1;
    cp = p[0] & (0x7f >> n);
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[k] & 0x3f);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
        cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0; /* overlong, out of range or a surrogate */
    return n;
}

/*
 * Source text as a JSON string: newlines and tabs kept (as \n, \t), other
 * controls and < > & as \uXXXX, bytes that are not UTF-8 as U+FFFD.
 */
static void
vw_json_text(FILE *f, const char *text, size_t len)
{
    const unsigned char *p = (const unsigned char *)text, *end = p + len;

    putc('"', f);
    while (p < end) {
        size_t n = vw_utf8_len(p, end);
        if (n == 0) {
            fputs("\\ufffd", f);
            p++;
        } else if (n > 1) {
            fwrite(p, 1, n, f);
            p += n;
        } else {
            unsigned char c = *p++;
            if (c == '\n')
                fputs("\\n", f);
            else if (c == '\t')
                fputs("\\t", f);
            else if (c == '"' || c == '\\')
                fprintf(f, "\\%c", c);
            else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f)
                fprintf(f, "\\u%04x", c);
            else
                putc(c, f);
        }
    }
    putc('"', f);
}

/*
 * Copy @db/@src (a DB-relative "src/..." path written by csprof-prof) into
 * the script @name as one JSON string.  A path that leaves src/, a symlink
 * or a file larger than VW_MAX_SRC_SIZE is skipped (returns 1).
 */
static int
vw_write_source(struct vw_out *o, const char *db, const char *src, int id, const char *name,
                const char *var)
{
    char *path, *buf;
    struct stat st;
    FILE *f;
    int fd, rc = 0;
    ssize_t got;

    if (strncmp(src, "src/", 4) != 0 || strstr(src, "..") != NULL)
        return 1;
    path = vw_path(db, src);
    if (path == NULL)
        return vw_fail(o, RPT_ENOMEM, "out of memory");
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    free(path);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (size_t)st.st_size > VW_MAX_SRC_SIZE) {
        if (fd >= 0)
            close(fd);
        return 1;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        close(fd);
        return vw_fail(o, RPT_ENOMEM, "out of memory");
    }
    got = read(fd, buf, (size_t)st.st_size);
    close(fd);
    if (got < 0) {
        free(buf);
        return 1;
    }
    buf[got] = '\0';
    f = vw_create(o, name, &rc);
    if (f != NULL) {
        fprintf(f, "(window.%s = window.%s || {})[%d] = ", var, var, id);
        vw_json_text(f, buf, (size_t)got);
        fputs(";\n", f);
        rc = vw_close(o, f, name);
    }
    free(buf);
    return rc;
}

/* --------------------------------------------------------- thread values */

#define VW_THREAD_CELLS 400000 /* procedures x threads written at most */

/*
 * For each node of @db, 1 when it is a procedure frame with no frame of the
 * same procedure above it (its outermost activation: recursion counts
 * once), else 0.  An iterative DFS with a count of active frames per
 * procedure.  Returns a calloc'ed array of db->nnodes bytes (the caller
 * frees it), or NULL when out of memory.
 */
static uint8_t *
vw_outer_frames(const struct rpt_db *db)
{
    uint8_t *outer = calloc(db->nnodes ? db->nnodes : 1, 1);
    int32_t *active = calloc((size_t)db->nprocs + 1, sizeof *active);
    uint32_t *stack = malloc(((size_t)db->nnodes * 2 + 2) * sizeof *stack), sp = 0;

    if (outer == NULL || active == NULL || stack == NULL || db->nnodes == 0) {
        free(active);
        free(stack);
        if (db->nnodes == 0)
            return outer;
        free(outer);
        return NULL;
    }
    stack[sp++] = 0;
    stack[sp++] = 0;
    while (sp > 0) {
        uint32_t leaving = stack[--sp], n = stack[--sp];
        const struct rpt_node *v = &db->nodes[n];
        bool frame = v->kind == CSP_SCOPE_PROC && v->proc >= 0 && v->proc < db->nprocs;
        if (leaving) {
            if (frame)
                active[v->proc]--;
            continue;
        }
        if (frame) {
            outer[n] = active[v->proc] == 0;
            active[v->proc]++;
        }
        stack[sp++] = n;
        stack[sp++] = 1;
        for (uint32_t c = v->first_child; c != 0; c = db->nodes[c].next_sibling) {
            stack[sp++] = c;
            stack[sp++] = 0;
        }
    }
    free(active);
    free(stack);
    return outer;
}

/*
 * Per-thread inclusive values of the heaviest procedures (outermost frames
 * only, so recursion counts once) and of the whole run, from
 * DB/thread-values.bin (share/schemas/thread-values.md), as the data key
 * "threadValues": {threads: [thread index], procs: [name], columns: [view
 * column], total: [[per thread] per column], values: [[[per thread] per
 * proc] per column]}.  Nothing is written when the file is absent or does
 * not match the database (its node count differs).
 */
static void
vw_write_thread_values(FILE *f, const char *db_dir, const struct rpt_db *db,
                       const struct rpt_tree *t)
{
    char *path = vw_path(db_dir, "thread-values.bin");
    unsigned char *buf = NULL;
    uint32_t ncols, nthreads, *tpos = NULL;
    int32_t *procslot = NULL;
    uint8_t *outer = NULL;
    double *tot = NULL, *val = NULL;
    int *pick = NULL, npick = 0, *colmap = NULL;
    struct tvf_reader r;
    struct tvf_header h;
    struct tvf_group g;
    struct tvf_entry e;
    size_t len;

    if (path == NULL || tvf_load(path, &buf, &len) != 0 || tvf_read_header(&r, buf, len, &h) != 0)
        goto out;
    ncols = h.ncols;
    nthreads = h.nthreads;
    if (h.nnodes != db->nnodes || nthreads == 0 || nthreads > 10000000 || ncols > 4096)
        goto out;
    outer = vw_outer_frames(db);
    if (outer == NULL)
        goto out;
    /* view column of each event column (event e has Metric 2e inclusive) */
    colmap = malloc(((size_t)ncols + 1) * sizeof *colmap);
    tpos = malloc((size_t)nthreads * sizeof *tpos);
    procslot = malloc(((size_t)db->nprocs + 1) * sizeof *procslot);
    tot = calloc((size_t)t->nvalues * nthreads, sizeof *tot);
    if (colmap == NULL || tpos == NULL || procslot == NULL || tot == NULL)
        goto out;
    for (uint32_t ev = 0; ev < ncols; ev++) {
        colmap[ev] = -1;
        for (int c = 0; c < t->nvalues; c++)
            if (t->metric_of[c] == (int)(2 * ev))
                colmap[ev] = c;
    }
    /* pass 1: threads, and each procedure's total over threads (column 0) */
    {
        double *ptotal = calloc((size_t)db->nprocs + 1, sizeof *ptotal);
        uint32_t nt = 0;
        if (ptotal == NULL)
            goto out;
        tvf_read_header(&r, buf, len, &h);
        while (tvf_next_group(&r, &g) == 1) {
            if (nt < nthreads)
                tpos[nt++] = g.index;
            while (tvf_next_entry(&r, &e) == 1)
                if (e.node < db->nnodes && e.column < ncols && colmap[e.column] == 0 &&
                    outer[e.node])
                    ptotal[db->nodes[e.node].proc] += e.incl;
        }
        nthreads = nt;
        /* the heaviest procedures, as many as VW_THREAD_CELLS allows */
        int cap = (int)(VW_THREAD_CELLS / (nthreads ? nthreads : 1));
        if (cap > 200)
            cap = 200;
        pick = malloc(((size_t)cap + 1) * sizeof *pick);
        if (pick == NULL) {
            free(ptotal);
            goto out;
        }
        for (int q = 0; q < db->nprocs; q++)
            procslot[q] = -1;
        for (int rank = 0; rank < cap; rank++) {
            int best = -1;
            for (int q = 0; q < db->nprocs; q++)
                if (procslot[q] < 0 && ptotal[q] > 0 && (best < 0 || ptotal[q] > ptotal[best]))
                    best = q;
            if (best < 0)
                break;
            procslot[best] = npick;
            pick[npick++] = best;
        }
        free(ptotal);
    }
    val = calloc((size_t)t->nvalues * (size_t)(npick ? npick : 1) * nthreads, sizeof *val);
    if (val == NULL)
        goto out;
    /* pass 2: values */
    {
        uint32_t ti = 0;
        tvf_read_header(&r, buf, len, &h);
        for (; ti < nthreads && tvf_next_group(&r, &g) == 1; ti++) {
            while (tvf_next_entry(&r, &e) == 1) {
                int c;
                if (e.node >= db->nnodes || e.column >= ncols || (c = colmap[e.column]) < 0)
                    continue;
                if (e.node == 0)
                    tot[(size_t)c * nthreads + ti] = e.incl;
                else if (outer[e.node] && procslot[db->nodes[e.node].proc] >= 0)
                    val[((size_t)c * (size_t)npick + (size_t)procslot[db->nodes[e.node].proc]) *
                            nthreads +
                        ti] += e.incl;
            }
        }
    }
    fputs(",\n\"threadValues\":{\"threads\":[", f);
    for (uint32_t k = 0; k < nthreads; k++)
        fprintf(f, k ? ",%u" : "%u", tpos[k]);
    fputs("],\n\"procs\":[", f);
    for (int q = 0; q < npick; q++) {
        if (q)
            putc(',', f);
        exp_json_str(f, db->procs[pick[q]].name);
    }
    fputs("],\n\"total\":[", f);
    for (int c = 0; c < t->nvalues; c++) {
        fputs(c ? ",[" : "[", f);
        for (uint32_t k = 0; k < nthreads; k++)
            fprintf(f, k ? ",%.10g" : "%.10g", tot[(size_t)c * nthreads + k]);
        putc(']', f);
    }
    fputs("],\n\"values\":[", f);
    for (int c = 0; c < t->nvalues; c++) {
        fputs(c ? ",\n[" : "\n[", f);
        for (int q = 0; q < npick; q++) {
            fputs(q ? ",[" : "[", f);
            for (uint32_t k = 0; k < nthreads; k++)
                fprintf(f, k ? ",%.10g" : "%.10g",
                        val[((size_t)c * (size_t)npick + (size_t)q) * nthreads + k]);
            putc(']', f);
        }
        putc(']', f);
    }
    fputs("]}", f);
out:
    free(path);
    free(buf);
    free(outer);
    free(colmap);
    free(tpos);
    free(procslot);
    free(tot);
    free(val);
    free(pick);
}

/* ---------------------------------------------------------------- data */

/*
 * The node columns, packed: little-endian int32 and float64 arrays one after
 * the other, gzipped (RFC 1952) and base64-encoded into one string, which
 * the page inflates with DecompressionStream.  Parsing a JavaScript array
 * literal costs about ten times more per node than reading a string.
 */
struct vw_pack {
    unsigned char *buf; /* raw column bytes */
    size_t len, cap;
    FILE *names; /* the "columns" list (memstream) */
    char *names_buf;
    size_t names_len;
    int ncols;
};

static int
vw_pack_bytes(struct vw_pack *p, const void *v, size_t n)
{
    if (p->len + n > p->cap) {
        size_t cap = p->cap ? p->cap : 1u << 20;
        unsigned char *g;
        while (cap < p->len + n)
            cap *= 2;
        g = realloc(p->buf, cap);
        if (g == NULL)
            return -1;
        p->buf = g;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, v, n);
    p->len += n;
    return 0;
}

/* Append column @key (@n values) as int32 (when @f64 is false) or float64. */
static int
vw_pack_col(struct vw_pack *p, const char *key, int index, const int64_t *v, uint32_t n, bool f64)
{
    fprintf(p->names, "%s[\"%s\",\"%s\",%d]", p->ncols++ ? "," : "", key, f64 ? "f64" : "i32",
            index);
    for (uint32_t i = 0; i < n; i++) {
        unsigned char b[8];
        if (f64) {
            double d = (double)v[i];
            uint64_t u;
            memcpy(&u, &d, sizeof u);
            for (int k = 0; k < 8; k++)
                b[k] = (unsigned char)(u >> (8 * k));
        } else {
            uint32_t u = (uint32_t)(int32_t)(v[i] > INT32_MAX   ? INT32_MAX
                                             : v[i] < INT32_MIN ? INT32_MIN
                                                                : v[i]);
            for (int k = 0; k < 4; k++)
                b[k] = (unsigned char)(u >> (8 * k));
        }
        if (vw_pack_bytes(p, b, f64 ? 8 : 4) < 0)
            return -1;
    }
    return 0;
}

/* gzip @p's bytes and write them base64-encoded as a JSON string. */
static int
vw_pack_write(struct vw_pack *p, FILE *f)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    z_stream z;
    uLong bound;
    unsigned char *gz;
    size_t glen;

    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    bound = deflateBound(&z, (uLong)p->len);
    gz = malloc(bound);
    if (gz == NULL) {
        deflateEnd(&z);
        return -1;
    }
    z.next_in = p->buf;
    z.avail_in = (uInt)p->len;
    z.next_out = gz;
    z.avail_out = (uInt)bound;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
        deflateEnd(&z);
        free(gz);
        return -1;
    }
    glen = z.total_out;
    deflateEnd(&z);
    putc('"', f);
    for (size_t i = 0; i < glen; i += 3) {
        uint32_t w = (uint32_t)gz[i] << 16;
        size_t left = glen - i;
        if (left > 1)
            w |= (uint32_t)gz[i + 1] << 8;
        if (left > 2)
            w |= gz[i + 2];
        putc(b64[(w >> 18) & 63], f);
        putc(b64[(w >> 12) & 63], f);
        putc(left > 1 ? b64[(w >> 6) & 63] : '=', f);
        putc(left > 2 ? b64[w & 63] : '=', f);
    }
    putc('"', f);
    free(gz);
    return 0;
}

/* Append column @key[@index] of @n doubles (little-endian float64) to @p. */
static int
vw_pack_f64(struct vw_pack *p, const char *key, int index, const double *v, size_t n)
{
    fprintf(p->names, "%s[\"%s\",\"f64\",%d]", p->ncols++ ? "," : "", key, index);
    for (size_t i = 0; i < n; i++) {
        unsigned char b[8];
        uint64_t u;
        memcpy(&u, &v[i], sizeof u);
        for (int k = 0; k < 8; k++)
            b[k] = (unsigned char)(u >> (8 * k));
        if (vw_pack_bytes(p, b, 8) < 0)
            return -1;
    }
    return 0;
}

/* Sparse per-thread values: one entry per (procedure, thread) with a value. */
struct vw_tentries {
    int64_t *proc, *thread; /* procedure slot, thread position */
    double *val;            /* nvalues per entry */
    size_t n, cap;
};

static int
vw_tentry_add(struct vw_tentries *e, int nvalues, int64_t proc, int64_t thread, const double *v)
{
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 4096;
        int64_t *a = realloc(e->proc, cap * sizeof *a);
        if (a == NULL)
            return -1;
        e->proc = a;
        a = realloc(e->thread, cap * sizeof *a);
        if (a == NULL)
            return -1;
        e->thread = a;
        double *d = realloc(e->val, cap * (size_t)(nvalues ? nvalues : 1) * sizeof *d);
        if (d == NULL)
            return -1;
        e->val = d;
        e->cap = cap;
    }
    e->proc[e->n] = proc;
    e->thread[e->n] = thread;
    memcpy(e->val + e->n * (size_t)nvalues, v, (size_t)nvalues * sizeof *v);
    e->n++;
    return 0;
}

/*
 * Per-thread inclusive values of every procedure (outermost frames only, so
 * recursion counts once), from DB/thread-values.bin, into the script @name
 * (share/schemas/viewer-data.md, threads.js), which the page loads when
 * the Threads view needs a procedure that data.js threadValues lacks.
 * Sparse: one entry per (procedure, thread) with a nonzero value, packed
 * like the node columns.  Returns 1 when written, 0 when there is nothing
 * to write (no file, or it does not match the database: that is not an
 * error, the page says the values are not available), or a negative
 * RPT_E* with the message in @o.
 */
static int
vw_write_thread_script(struct vw_out *o, const char *db_dir, const struct rpt_db *db,
                       const struct rpt_tree *t, const char *name)
{
    char *path = vw_path(db_dir, "thread-values.bin");
    unsigned char *buf = NULL;
    uint32_t ncols, nthreads, nt = 0, *tpos = NULL;
    int32_t *slot = NULL, nslot = 0, *touched = NULL, ntouched = 0;
    int *colmap = NULL, rc = 0, nv = t->nvalues;
    uint8_t *outer = NULL, *mark = NULL;
    double *acc = NULL;
    struct vw_tentries e = {0};
    struct vw_pack pk = {0};
    struct tvf_reader r;
    struct tvf_header h;
    struct tvf_group g;
    struct tvf_entry te;
    FILE *f = NULL;
    size_t len;
    int ioerr;

    if (path == NULL)
        return vw_fail(o, RPT_ENOMEM, "out of memory");
    ioerr = tvf_load(path, &buf, &len);
    if (ioerr == ENOMEM)
        goto out_nomem;
    if (ioerr != 0 || tvf_read_header(&r, buf, len, &h) != 0)
        goto out;
    ncols = h.ncols;
    nthreads = h.nthreads;
    if (h.nnodes != db->nnodes || nthreads == 0 || nthreads > 10000000 || ncols > 4096)
        goto out;
    outer = vw_outer_frames(db);
    colmap = malloc(((size_t)ncols + 1) * sizeof *colmap);
    tpos = malloc((size_t)nthreads * sizeof *tpos);
    slot = malloc(((size_t)db->nprocs + 1) * sizeof *slot);
    touched = malloc(((size_t)db->nprocs + 1) * sizeof *touched);
    acc = calloc(((size_t)db->nprocs + 1) * (size_t)(nv ? nv : 1), sizeof *acc);
    mark = calloc((size_t)db->nprocs + 1, 1);
    if (outer == NULL || colmap == NULL || tpos == NULL || slot == NULL || touched == NULL ||
        acc == NULL || mark == NULL)
        goto out_nomem;
    for (uint32_t c = 0; c < ncols; c++) {
        colmap[c] = -1;
        for (int k = 0; k < nv; k++)
            if (t->metric_of[k] == (int)(2 * c))
                colmap[c] = k;
    }
    for (int q = 0; q < db->nprocs; q++)
        slot[q] = -1;
    /* one group per thread: sum its outermost frames per procedure, then emit */
    for (; nt < nthreads && tvf_next_group(&r, &g) == 1; nt++) {
        tpos[nt] = g.index;
        while (tvf_next_entry(&r, &te) == 1) {
            uint32_t node = te.node, c = te.column;
            int32_t q;
            if (node == 0 || node >= db->nnodes || c >= ncols || colmap[c] < 0 || !outer[node])
                continue;
            q = db->nodes[node].proc;
            if (q < 0 || q >= db->nprocs)
                continue;
            if (!mark[q]) {
                mark[q] = 1;
                touched[ntouched++] = q;
            }
            acc[(size_t)q * (size_t)nv + (size_t)colmap[c]] += te.incl;
        }
        for (int32_t k = 0; k < ntouched; k++) {
            int32_t q = touched[k];
            double *v = acc + (size_t)q * (size_t)nv;
            bool any = false;
            for (int c = 0; c < nv; c++)
                any = any || v[c] != 0;
            if (any) {
                if (slot[q] < 0)
                    slot[q] = nslot++;
                if (vw_tentry_add(&e, nv, slot[q], nt, v) < 0)
                    goto out_nomem;
            }
            memset(v, 0, (size_t)nv * sizeof *v);
            mark[q] = 0;
        }
        ntouched = 0;
    }
    f = vw_create(o, name, &rc);
    if (f == NULL)
        goto out;
    fputs("window.CSPROF_THREADS = {\"format\":1,\n\"threads\":[", f);
    for (uint32_t k = 0; k < nt; k++)
        fprintf(f, k ? ",%u" : "%u", tpos[k]);
    fputs("],\n\"procs\":[", f);
    {
        int32_t *of_slot = malloc(((size_t)nslot + 1) * sizeof *of_slot);
        if (of_slot == NULL)
            goto out_nomem;
        for (int q = 0; q < db->nprocs; q++)
            if (slot[q] >= 0)
                of_slot[slot[q]] = q;
        for (int32_t k = 0; k < nslot; k++) {
            if (k)
                fputs(k % 64 ? "," : ",\n", f);
            exp_json_str(f, db->procs[of_slot[k]].name);
        }
        free(of_slot);
    }
    fprintf(f, "],\n\"n\":%zu", e.n);
    pk.names = open_memstream(&pk.names_buf, &pk.names_len);
    if (pk.names == NULL || vw_pack_col(&pk, "proc", -1, e.proc, (uint32_t)e.n, false) < 0 ||
        vw_pack_col(&pk, "thread", -1, e.thread, (uint32_t)e.n, false) < 0)
        goto out_nomem;
    {
        double *col = malloc((e.n + 1) * sizeof *col);
        if (col == NULL)
            goto out_nomem;
        for (int c = 0; c < nv; c++) {
            for (size_t k = 0; k < e.n; k++)
                col[k] = e.val[k * (size_t)nv + (size_t)c];
            if (vw_pack_f64(&pk, "self", c, col, e.n) < 0) {
                free(col);
                goto out_nomem;
            }
        }
        free(col);
    }
    fclose(pk.names);
    pk.names = NULL;
    fputs(",\n\"packed\":{\"encoding\":\"gzip+base64\",\"columns\":[", f);
    fwrite(pk.names_buf, 1, pk.names_len, f);
    fprintf(f, "],\"bytes\":%zu,\n\"data\":", pk.len);
    if (vw_pack_write(&pk, f) < 0)
        goto out_nomem;
    fputs("}};\n", f);
    rc = vw_close(o, f, name);
    f = NULL;
    if (rc == 0)
        rc = 1;
    goto out;
out_nomem:
    rc = vw_fail(o, RPT_ENOMEM, "out of memory");
out:
    if (f != NULL)
        fclose(f);
    if (pk.names != NULL)
        fclose(pk.names);
    free(pk.names_buf);
    free(pk.buf);
    free(e.proc);
    free(e.thread);
    free(e.val);
    free(path);
    free(buf);
    free(outer);
    free(colmap);
    free(tpos);
    free(slot);
    free(touched);
    free(mark);
    free(acc);
    return rc;
}

/* Preorder numbering of @t's nodes: order[k] is the node visited k-th. */
static uint32_t *
vw_preorder(const struct rpt_tree *t)
{
    uint32_t *order = malloc((size_t)t->nnodes * sizeof *order);
    uint32_t *stack = malloc((size_t)t->nnodes * sizeof *stack);
    uint32_t k = 0, sp = 0;

    if (order == NULL || stack == NULL) {
        free(order);
        free(stack);
        return NULL;
    }
    stack[sp++] = 0;
    while (sp > 0) {
        uint32_t n = stack[--sp], c, first = sp;
        order[k++] = n;
        for (c = t->nodes[n].first_child; c != 0; c = t->nodes[c].next_sibling)
            stack[sp++] = c;
        /* children were pushed in order: reverse them so the first pops first */
        for (uint32_t a = first, b = sp; a + 1 < b; a++, b--) {
            uint32_t tmp = stack[a];
            stack[a] = stack[b - 1];
            stack[b - 1] = tmp;
        }
    }
    free(stack);
    return order;
}

/*
 * The derived metrics of @db (csprof-prof -M NAME=FORMULA: inclusive
 * Metric elements with a formula) as the data key "derived": [{name,
 * formula}], name being the metric's event name.  The viewer evaluates each
 * formula on every row's own inclusive and exclusive values (a ratio does
 * not add up along the tree), as csprof-report does.
 */
static void
vw_write_derived(FILE *f, const struct rpt_db *db)
{
    int k = 0;

    fputs(",\n\"derived\":[", f);
    for (int m = 0; m < db->nmetrics; m++) {
        const struct rpt_metric *x = &db->metrics[m];
        if (!x->inclusive || x->formula == NULL)
            continue;
        fputs(k++ ? ",{\"name\":" : "{\"name\":", f);
        exp_json_str(f, x->event ? x->event : x->name);
        fputs(",\"formula\":", f);
        exp_json_str(f, x->formula);
        putc('}', f);
    }
    putc(']', f);
}

/*
 * The module-relative address of each node of @t (in preorder @order;
 * rpt_vnode.addr, 0 when unknown or 4 GiB and above) into the script @name
 * as window.CSPROF_ADDR = {n, packed: one uint32 column "addr"}.  Apart
 * from data.js so that its inflation does not delay the page's first
 * paint: the page loads it right after.  @col is scratch of t->nnodes
 * values.  Returns 0 or a negative RPT_E* with the message in @o.
 */
static int
vw_write_addr_script(struct vw_out *o, const struct rpt_tree *t, const uint32_t *order,
                     int64_t *col, const char *name)
{
    struct vw_pack pk = {0};
    FILE *f = NULL;
    int rc = 0;

    for (uint32_t k = 0; k < t->nnodes; k++) {
        uint64_t a = t->nodes[order[k]].addr;
        col[k] = a > UINT32_MAX ? 0 : (int64_t)(int32_t)(uint32_t)a; /* read back with >>> 0 */
    }
    pk.names = open_memstream(&pk.names_buf, &pk.names_len);
    if (pk.names == NULL || vw_pack_col(&pk, "addr", -1, col, t->nnodes, false) < 0) {
        rc = vw_fail(o, RPT_ENOMEM, "out of memory");
        goto out;
    }
    fclose(pk.names);
    pk.names = NULL;
    f = vw_create(o, name, &rc);
    if (f == NULL)
        goto out;
    fprintf(f, "window.CSPROF_ADDR = {\"format\":1,\"n\":%u,\n", t->nnodes);
    fputs("\"packed\":{\"encoding\":\"gzip+base64\",\"columns\":[", f);
    fwrite(pk.names_buf, 1, pk.names_len, f);
    fprintf(f, "],\"bytes\":%zu,\n\"data\":", pk.len);
    if (vw_pack_write(&pk, f) < 0) {
        rc = vw_fail(o, RPT_ENOMEM, "out of memory");
        goto out;
    }
    fputs("}};\n", f);
    rc = vw_close(o, f, name);
    f = NULL;
out:
    if (f != NULL)
        fclose(f);
    if (pk.names != NULL)
        fclose(pk.names);
    free(pk.names_buf);
    free(pk.buf);
    return rc;
}

/*
 * The viewer data's code of a view node's kind (share/schemas/viewer-data.md, "kind"; the
 * viewer's model.js K): 0 root, 1 procedure frame, 2 inlined frame, 3 loop, 4 statement,
 * 5 truncated path; a flat view's group row is 6 (never written: the viewer builds its own).
 */
static int
data_kind(uint8_t kind)
{
    switch (kind) {
    case CSP_SCOPE_PROC:
        return 1;
    case CSP_SCOPE_INLINE:
        return 2;
    case CSP_SCOPE_LOOP:
        return 3;
    case CSP_SCOPE_STMT:
        return 4;
    case CSP_SCOPE_TRUNC:
        return 5;
    case CSP_SCOPE_GROUP:
        return 6;
    default:
        return 0;
    }
}

/*
 * The run's title, threads and processes (rpt_db_groups(): the Threads
 * view's rows and the page's title) as the data keys "title" and "groups":
 * {main, wrappers, processes: [{pid, rank, command, program, images,
 * threads, samples, cpuNs, wrapper}], threads: [{process, pid, tid, rank,
 * samples, cpuNs, records}]}, indexed by Input process= / thread= (the
 * indices of threadValues.threads).  "groups" is left out for a database
 * without those indices.
 */
static void
vw_write_groups(FILE *f, const struct rpt_db *db)
{
    struct rpt_groups g;
    char title[1024], err[256];

    rpt_db_title(db, title, sizeof title);
    fputs(",\n\"title\":", f);
    exp_json_str(f, title);
    if (rpt_db_groups(db, &g, err, sizeof err) != RPT_OK)
        return;
    fprintf(f, ",\n\"groups\":{\"main\":%lld,\"wrappers\":%u,\"processes\":[", g.main, g.nwrappers);
    for (uint32_t p = 0; p < g.nprocesses; p++) {
        const struct rpt_group *x = &g.processes[p];
        fprintf(f, "%s{\"pid\":%lld,\"rank\":%lld,\"command\":", p ? ",\n" : "\n", x->pid, x->rank);
        exp_json_str(f, rpt_program_name(x->program));
        fputs(",\"program\":", f);
        exp_json_str(f, x->program != NULL ? x->program : "");
        fputs(",\"images\":[", f);
        for (uint32_t k = 0; k < x->nimages; k++) {
            if (k)
                putc(',', f);
            exp_json_str(f, rpt_program_name(x->images[k]));
        }
        fprintf(f, "],\"threads\":%u,\"samples\":%.17g,\"cpuNs\":%.17g,\"wrapper\":%s}",
                x->nthreads, x->samples, x->cpu_ns, x->wrapper ? "true" : "false");
    }
    fputs("],\n\"threads\":[", f);
    for (uint32_t t = 0; t < g.nthreads; t++) {
        const struct rpt_group *x = &g.threads[t];
        fprintf(f,
                "%s{\"process\":%lld,\"pid\":%lld,\"tid\":%lld,\"rank\":%lld,\"samples\":%.17g,"
                "\"cpuNs\":%.17g,\"records\":%u}",
                t ? (t % 16 ? "," : ",\n") : "\n", x->process, x->pid, x->tid, x->rank, x->samples,
                x->cpu_ns, x->ninputs);
    }
    fputs("]}", f);
    rpt_groups_free(&g);
}

struct vw_data {
    const struct rpt_db *db;
    const struct rpt_tree *t;
    const struct vw_extra *x;
    const int *src_chunk; /* per file: source chunk number or -1 */
    const char *db_dir;
    const char *threads_script; /* "threads.js" when written, else NULL */
};

static int
vw_write_data(struct vw_out *o, const struct vw_data *d, const char *name, const char *var,
              const char *src_prefix, const char *base_name)
{
    const struct rpt_tree *t = d->t;
    const struct rpt_db *db = d->db;
    uint32_t n = t->nnodes, *order = NULL, *rank = NULL, nstr = 0;
    uint32_t *str_of = NULL, str_cap = 0, *str_list = NULL;
    int64_t *col = NULL;
    struct vw_pack pk = {0};
    FILE *f = NULL;
    int rc = 0;

    order = vw_preorder(t);
    rank = malloc((size_t)n * sizeof *rank);
    col = malloc((size_t)n * sizeof *col);
    str_list = malloc((size_t)n * sizeof *str_list);
    if (order == NULL || rank == NULL || col == NULL || str_list == NULL) {
        rc = vw_fail(o, RPT_ENOMEM, "out of memory");
        goto out;
    }
    for (uint32_t k = 0; k < n; k++)
        rank[order[k]] = k;
    /* string table: names in order of first use (name ids are sparse across trees) */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t id = t->nodes[order[k]].name;
        if (id >= str_cap) {
            uint32_t cap = id + 1 > 2 * str_cap ? id + 1 : 2 * str_cap;
            uint32_t *g = realloc(str_of, (size_t)cap * sizeof *g);
            if (g == NULL) {
                rc = vw_fail(o, RPT_ENOMEM, "out of memory");
                goto out;
            }
            for (uint32_t i = str_cap; i < cap; i++)
                g[i] = UINT32_MAX;
            str_of = g;
            str_cap = cap;
        }
        if (str_of[id] == UINT32_MAX) {
            str_of[id] = nstr;
            str_list[nstr++] = id;
        }
    }

    f = vw_create(o, name, &rc);
    if (f == NULL)
        goto out;
    fprintf(f, "window.%s = {\"format\":%d,\n\"program\":", var, VW_FORMAT);
    exp_json_str(f, db->program ? db->program : "?");
    fputs(",\n\"dbVersion\":", f);
    exp_json_str(f, db->version ? db->version : "?");
    fputs(",\n\"generator\":\"csprof-prof " CSPROF_VERSION "\"", f);
    if (base_name != NULL) {
        fputs(",\n\"base\":", f);
        exp_json_str(f, base_name);
    }
    fputs(",\n\"srcPrefix\":", f);
    exp_json_str(f, src_prefix);
    fputs(",\n\"metrics\":[", f);
    for (int c = 0; c < t->nvalues; c++) {
        const struct rpt_metric *m = &db->metrics[t->metric_of[c]];
        fputs(c ? ",{\"name\":" : "{\"name\":", f);
        exp_json_str(f, m->event ? m->event : m->name);
        fputs(",\"unit\":", f);
        exp_json_str(f, m->unit ? m->unit : "");
        fputs(",\"rawUnit\":", f);
        exp_json_str(f, m->raw_unit ? m->raw_unit : (m->unit ? m->unit : ""));
        fprintf(f, ",\"rawPerUnit\":%.17g}", m->raw_per_unit);
    }
    fputs("],\n\"otherMetrics\":[", f);
    for (int m = 0, k = 0; m < db->nmetrics; m++) {
        if (db->metrics[m].additive || db->metrics[m].stat != NULL || !db->metrics[m].inclusive)
            continue;
        if (k++)
            putc(',', f);
        exp_json_str(f, db->metrics[m].name);
    }
    putc(']', f);
    vw_write_derived(f, db);
    fputs(",\n\"modules\":[", f);
    for (int m = 0; m < db->nmodules; m++) {
        if (m)
            putc(',', f);
        exp_json_str(f, db->modules[m].name ? db->modules[m].name : "?");
    }
    fputs("],\n\"files\":[", f);
    for (int i = 0; i < db->nfiles; i++) {
        if (i)
            putc(',', f);
        exp_json_str(f, db->files[i] ? db->files[i] : "?");
    }
    fputs("],\n\"src\":{", f);
    for (int i = 0, k = 0; i < db->nfiles; i++)
        if (d->src_chunk[i] >= 0)
            fprintf(f, "%s\"%d\":%d", k++ ? "," : "", i, d->src_chunk[i]);
    fputs("},\n\"strings\":[", f);
    for (uint32_t s = 0; s < nstr; s++) {
        if (s)
            fputs(s % 64 ? "," : ",\n", f);
        exp_json_str(f, rpt_names_get(t->names, str_list[s]));
    }
    fprintf(f, "],\n\"n\":%u", n);
    /* frames whose calls are their call site's, shared with other callees (an indirect call:
       csprof-report's calls_per_call_site), as [node, callees] pairs */
    fputs(",\n\"callSiteCallees\":[", f);
    for (uint32_t k = 0, first = 1; k < n; k++)
        if (t->nodes[order[k]].calls_callees > 1) {
            fprintf(f, first ? "[%u,%u]" : ",[%u,%u]", k, t->nodes[order[k]].calls_callees);
            first = 0;
        }
    putc(']', f);

    /* columns, in preorder; parent as the distance back to it (root: 0) */
    pk.names = open_memstream(&pk.names_buf, &pk.names_len);
    if (pk.names == NULL) {
        rc = vw_fail(o, RPT_ENOMEM, "out of memory");
        goto out;
    }
    for (int c = 0; c < 9; c++) {
        static const char *const keys[] = {"parentDelta", "kind",   "name",   "lm",   "file",
                                           "line",        "csFile", "csLine", "calls"};
        for (uint32_t k = 0; k < n; k++) {
            const struct rpt_vnode *v = &t->nodes[order[k]];
            int64_t x = 0;
            switch (c) {
            case 0:
                x = k == 0 ? 0 : (int64_t)k - rank[v->parent];
                break;
            case 1:
                x = data_kind(v->kind);
                break;
            case 2:
                x = str_of[v->name];
                break;
            case 3:
                x = v->lm;
                break;
            case 4:
                x = v->file;
                break;
            case 5:
                x = v->line;
                break;
            case 6:
                x = v->cs_file;
                break;
            case 7:
                x = v->cs_line;
                break;
            default:
                x = (int64_t)llround(v->calls);
                break;
            }
            col[k] = x;
        }
        if (vw_pack_col(&pk, keys[c], -1, col, n, false) < 0)
            goto out_nomem;
    }
    for (int c = 0; c < t->nvalues; c++) {
        for (uint32_t k = 0; k < n; k++)
            col[k] = exp_raw(t, c, rpt_self(t, order[k], c));
        if (vw_pack_col(&pk, "self", c, col, n, true) < 0)
            goto out_nomem;
    }
    fclose(pk.names);
    pk.names = NULL;
    fputs(",\n\"packed\":{\"encoding\":\"gzip+base64\",\"columns\":[", f);
    fwrite(pk.names_buf, 1, pk.names_len, f);
    fprintf(f, "],\"bytes\":%zu,\n\"data\":", pk.len);
    if (vw_pack_write(&pk, f) < 0)
        goto out_nomem;
    fputs("}", f);
    fputs(",\n\"inputs\":[", f);
    for (int i = 0; i < db->ninputs; i++) {
        const struct rpt_input *in = &db->inputs[i];
        fputs(i ? ",\n{\"path\":" : "\n{\"path\":", f);
        exp_json_str(f, in->path ? in->path : "?");
        fprintf(f,
                ",\"read\":%s,\"pid\":%lld,\"tid\":%lld,\"thread\":%lld,\"process\":%lld,"
                "\"threadIndex\":%lld,\"rank\":%lld",
                in->read ? "true" : "false", in->pid, in->tid, in->thread, in->process,
                in->thread_index, in->rank);
        fprintf(f, ",\"samples\":%.17g,\"cpuNs\":%.17g}", in->samples, in->cpu_ns);
    }
    putc(']', f);
    vw_write_groups(f, db);
    fprintf(f, ",\n\"totals\":{\"threads\":%.17g,\"processes\":%.17g,\"samples\":%.17g",
            db->threads, db->processes, db->samples);
    fprintf(f, ",\"rootedPercent\":%.17g,\"unknownSamples\":%.17g,\"cpuSeconds\":%.17g}",
            db->rooted_percent, db->unknown_samples, db->cpu_seconds);
    vw_write_thread_values(f, d->db_dir, db, t);
    if (d->threads_script != NULL) {
        fputs(",\n\"threadsScript\":", f);
        exp_json_str(f, d->threads_script);
    }
    if (strcmp(var, "CSPROF_DB") == 0) { /* the base's addresses are not shown */
        int arc = vw_write_addr_script(o, t, order, col, "viewer/addr.js");
        if (arc < 0) {
            rc = arc;
            goto out;
        }
        fputs(",\n\"addrScript\":\"addr.js\"", f);
    }
    fputs(",\n\"summary\":[", f);
    if (d->x->summary_buf != NULL)
        fwrite(d->x->summary_buf, 1, d->x->summary_len, f);
    fputs("]};\n", f);
    rc = vw_close(o, f, name);
    f = NULL;
    goto out;
out_nomem:
    rc = vw_fail(o, RPT_ENOMEM, "out of memory");
out:
    if (f != NULL)
        fclose(f);
    if (pk.names != NULL)
        fclose(pk.names);
    free(pk.names_buf);
    free(pk.buf);
    free(order);
    free(rank);
    free(col);
    free(str_of);
    free(str_list);
    return rc;
}

/* Write the data script @name of database @db_dir (and its sources as @src_prefix-N.js);
 * @loaded is the database already read (borrowed), or NULL to read it here. */
static int
vw_write_db(struct vw_out *o, const char *db_dir, const struct rpt_db *loaded, const char *name,
            const char *var, const char *src_prefix, const char *src_var, const char *base_name)
{
    struct rpt_view_options opt = {
        .keep_inlines = true, .keep_loops = true, .statements = true, .keep_roots = true};
    struct rpt_db *owned = NULL;
    const struct rpt_db *db = loaded;
    struct rpt_tree *t = NULL;
    struct vw_extra x;
    int *src_chunk = NULL, rc;

    if (db == NULL) {
        rc = rpt_db_read(db_dir, &owned, o->err, o->errlen);
        if (rc < 0)
            return rc;
        db = owned;
    }
    rc = rpt_tree_build(db, &opt, NULL, &t, o->err, o->errlen);
    if (rc < 0)
        goto out_db;
    rc = vw_read_extra(o, db, &x);
    if (rc < 0)
        goto out_tree;
    src_chunk = malloc(((size_t)db->nfiles + 1) * sizeof *src_chunk);
    if (src_chunk == NULL) {
        rc = vw_fail(o, RPT_ENOMEM, "out of memory");
        goto out_extra;
    }
    for (int i = 0; i < db->nfiles; i++) {
        char chunk[64];
        src_chunk[i] = -1;
        if (i >= x.nfile_src || x.file_src[i] == NULL)
            continue;
        snprintf(chunk, sizeof chunk, "viewer/%s%d.js", src_prefix, i);
        rc = vw_write_source(o, db_dir, x.file_src[i], i, chunk, src_var);
        if (rc < 0)
            goto out_extra;
        if (rc == 0)
            src_chunk[i] = i;
    }
    {
        struct vw_data d = {.db = db, .t = t, .x = &x, .src_chunk = src_chunk, .db_dir = db_dir};
        if (strcmp(var, "CSPROF_DB") == 0) { /* the base's are not shown */
            rc = vw_write_thread_script(o, db_dir, db, t, "viewer/threads.js");
            if (rc < 0)
                goto out_extra;
            d.threads_script = rc > 0 ? "threads.js" : NULL;
        }
        rc = vw_write_data(o, &d, name, var, src_prefix, base_name);
    }
out_extra:
    free(src_chunk);
    vw_extra_free(&x);
out_tree:
    rpt_tree_free(t);
out_db:
    rpt_db_free(owned);
    return rc;
}

static int
vw_write_assets(struct vw_out *o)
{
    for (const struct vw_asset *a = vw_assets; a->name != NULL; a++) {
        char name[128];
        FILE *f;
        int rc = 0;

        snprintf(name, sizeof name, "%s%s", strcmp(a->name, "index.html") == 0 ? "" : "viewer/",
                 a->name);
        f = vw_create(o, name, &rc);
        if (f == NULL)
            return rc;
        fwrite(a->bytes, 1, a->size, f);
        if ((rc = vw_close(o, f, name)) < 0)
            return rc;
    }
    return 0;
}

int
vw_write(const char *db, const struct rpt_db *db_read, const char *base_db, const char *out,
         char *err, size_t errlen)
{
    struct vw_out o = {.dir = out, .err = err, .errlen = errlen};
    char *vdir;
    int rc;

    if (mkdir(out, 0755) != 0 && errno != EEXIST)
        return vw_fail(&o, RPT_EIO, "%s: cannot create the directory: %s", out, strerror(errno));
    vdir = vw_path(out, "viewer");
    if (vdir == NULL)
        return vw_fail(&o, RPT_ENOMEM, "out of memory");
    if (mkdir(vdir, 0755) != 0 && errno != EEXIST) {
        rc = vw_fail(&o, RPT_EIO, "%s: cannot create the directory: %s", vdir, strerror(errno));
        free(vdir);
        return rc;
    }
    {
        struct stat st;
        if (lstat(vdir, &st) != 0 || !S_ISDIR(st.st_mode)) { /* never write through a symlink */
            rc = vw_fail(&o, RPT_EIO,
                         "%s: is not a directory (csprof never writes through a symbolic link)",
                         vdir);
            free(vdir);
            return rc;
        }
    }
    free(vdir);
    if (base_db != NULL) {
        rc = vw_write_db(&o, base_db, NULL, "viewer/base.js", "CSPROF_BASE", "bsrc-", "CSPROF_BSRC",
                         NULL);
        if (rc < 0)
            return rc;
    }
    rc = vw_write_db(&o, db, db_read, "viewer/data.js", "CSPROF_DB", "src-", "CSPROF_SRC",
                     base_db != NULL ? "base.js" : NULL);
    if (rc < 0)
        return rc;
    return vw_write_assets(&o);
}
