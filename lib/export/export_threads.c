/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_threads.c -- the threads view: for chosen calling contexts, the
 * value of every thread and every process (MPI rank), and their summary
 * statistics, so that the slow ranks and threads of a context stand out.
 *
 * Tool code.  Values come from DB/thread-values.bin through
 * rpt_thread_values(); the statistics are computed here as the database's
 * stats columns compute them (rpt_stats_of) and, where the database stores
 * those columns, written beside them ("stored") so that a reader can check
 * one against the other.
 */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_internal.h"

/* The frames elided at the top of the views (lib/report/view.c). */
static const char elided_roots[] =
    "^(_start|__libc_start_main.*|__libc_start_call_main|start_thread|clone|clone3|__clone.*)$";

/* Procedure-frame call path of stored node @n, outermost first, elided roots left out. */
static void
node_path(const struct rpt_db *db, const regex_t *roots, uint32_t n, char *buf, size_t len)
{
    uint32_t chain[256];
    size_t k = 0, used = 0;

    for (uint32_t u = n; u != 0 && k < 256; u = db->nodes[u].parent)
        if (db->nodes[u].kind == CSP_SCOPE_PROC || db->nodes[u].kind == CSP_SCOPE_INLINE)
            if (regexec(roots, db->procs[db->nodes[u].proc].name, 0, NULL, 0) != 0)
                chain[k++] = u;
    buf[0] = '\0';
    if (n == 0) {
        snprintf(buf, len, "(whole run)");
        return;
    }
    while (k-- > 0 && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " > " : "",
                                 db->procs[db->nodes[chain[k]].proc].name);
}

static int
cmp_desc(const void *a, const void *b, void *arg)
{
    const double *v = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    if (v[x] != v[y])
        return v[x] > v[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* Index of the stored statistic @stat over @over of metric @of, or -1. */
static int
stored_stat(const struct rpt_db *db, int of, const char *stat, const char *over)
{
    for (int i = 0; i < db->nmetrics; i++) {
        const struct rpt_metric *m = &db->metrics[i];
        if (m->of == of && m->stat != NULL && strcmp(m->stat, stat) == 0 && m->over != NULL &&
            strcmp(m->over, over) == 0)
            return i;
    }
    return -1;
}

static const char *const stat_names[] = {"sum", "mean", "min", "max", "stddev", "cv"};

static double
stat_value(const struct rpt_stats *s, int k)
{
    const double v[] = {s->sum, s->mean, s->min, s->max, s->stddev, s->cv};

    return v[k];
}

/* Choose the contexts: the whole run, then frames by inclusive value. */
static int
choose(const struct rpt_db *db, int m, const struct exp_threads_options *o, const regex_t *roots,
       uint32_t **out, size_t *nout, char *err, size_t errlen)
{
    regex_t re;
    bool *covered = NULL;
    uint32_t *cand = malloc(((size_t)db->nnodes + 1) * sizeof *cand);
    double *incl = malloc(((size_t)db->nnodes + 1) * sizeof *incl);
    size_t n = 0, limit = o->contexts ? o->contexts : 5;
    char *path = malloc(8192);
    int rc;

    if (cand == NULL || incl == NULL || path == NULL)
        goto oom;
    if (o->select != NULL) {
        rc = regcomp(&re, o->select, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[200];
            regerror(rc, &re, msg, sizeof msg);
            snprintf(err, errlen, "--focus '%s': %s", o->select, msg);
            free(cand);
            free(incl);
            free(path);
            return RPT_EINVAL;
        }
        covered = calloc((size_t)db->nnodes + 1, sizeof *covered);
        if (covered == NULL) {
            regfree(&re);
            goto oom;
        }
    }
    for (uint32_t i = 1; i < db->nnodes; i++) {
        const struct rpt_node *nd = &db->nodes[i];
        bool frame = nd->kind == CSP_SCOPE_PROC;
        incl[i] = rpt_db_value(db, i, m);
        if (o->select != NULL) {
            /* outermost frames whose name or call path matches */
            covered[i] = covered[nd->parent];
            if (!frame || covered[i])
                continue;
            node_path(db, roots, i, path, 8192);
            if (regexec(&re, db->procs[nd->proc].name, 0, NULL, 0) == 0 ||
                regexec(&re, path, 0, NULL, 0) == 0) {
                covered[i] = true;
                cand[n++] = i;
            }
        } else if (frame && incl[i] > 0 &&
                   regexec(roots, db->procs[nd->proc].name, 0, NULL, 0) != 0) {
            cand[n++] = i;
        }
    }
    if (o->select != NULL) {
        regfree(&re);
        free(covered);
    }
    qsort_r(cand, n, sizeof *cand, cmp_desc, incl);
    if (n > limit)
        n = limit;
    memmove(cand + 1, cand, n * sizeof *cand);
    cand[0] = 0; /* the whole run */
    free(incl);
    free(path);
    *out = cand;
    *nout = n + 1;
    return RPT_OK;
oom:
    free(cand);
    free(incl);
    free(path);
    return RPT_ENOMEM;
}

/* The process of thread or process @k of @over (its own entry for processes), or NULL. */
static const struct rpt_group *
process_of(const struct rpt_tvalues *tv, bool procs, uint32_t k)
{
    long long p = procs ? (long long)k : tv->g.threads[k].process;

    return p >= 0 && p < (long long)tv->g.nprocesses ? &tv->g.processes[p] : NULL;
}

static bool
is_wrapper(const struct rpt_tvalues *tv, bool procs, uint32_t k)
{
    const struct rpt_group *p = process_of(tv, procs, k);

    return p != NULL && p->wrapper;
}

/* The command name of thread or process @k: its process's program's base name. */
static const char *
command_of(const struct rpt_tvalues *tv, bool procs, uint32_t k)
{
    const struct rpt_group *p = process_of(tv, procs, k);

    return rpt_program_name(p != NULL ? p->program : NULL);
}

/* @s cut to @cols code points (UTF-8) into @buf, an ellipsis marking a cut. */
static const char *
fit_name(const char *s, size_t cols, char *buf, size_t len)
{
    size_t n = 0, used = 0;

    for (const char *c = s; *c != '\0'; c++)
        n += ((unsigned char)*c & 0xc0) != 0x80;
    if (n <= cols || cols < 2) {
        snprintf(buf, len, "%s", s);
        return buf;
    }
    for (n = 0; s[used] != '\0' && used + 4 < len; used++) {
        if (((unsigned char)s[used] & 0xc0) != 0x80 && n++ == cols - 1)
            break;
    }
    snprintf(buf, len, "%.*s\xe2\x80\xa6", (int)used, s);
    return buf;
}

/* The statistics line and, in text, the rows of one context over threads or processes. */
static void
write_over(FILE *out, const struct exp_threads_options *o, const struct rpt_db *db, int m,
           const struct rpt_tvalues *tv, size_t ctx, uint32_t node, bool procs, uint32_t *order)
{
    uint32_t n = procs ? tv->g.nprocesses : tv->g.nthreads;
    const double *in = procs ? &tv->process_incl[ctx * n] : &tv->thread_incl[ctx * n];
    const double *ex = procs ? &tv->process_excl[ctx * n] : &tv->thread_excl[ctx * n];
    const struct rpt_group *g = procs ? tv->g.processes : tv->g.threads;
    const char *over = procs ? "processes" : "threads";
    struct rpt_stats st;
    unsigned rows = o->rows ? o->rows : (o->format == EXP_TEXT ? 12 : UINT32_MAX);
    bool ranks = false, with_bar;
    uint32_t shown = 0, nfolded = 0;
    unsigned used, name_cols;
    double folded = 0;
    char line[512], name[256];

    rpt_stats_of(in, n, &st);
    for (uint32_t k = 0; k < n; k++)
        order[k] = k;
    qsort_r(order, n, sizeof *order, cmp_desc, (void *)in);
    if (o->format == EXP_CSV) {
        for (uint32_t k = 0; k < n; k++) {
            const struct rpt_group *x = &g[order[k]];
            fprintf(out, "%zu,%u,%s,%u,%lld,%lld,%lld,%.10g,%.10g,%lld,", ctx, db->nodes[node].id,
                    over, order[k], x->rank, x->pid, procs ? -1 : x->tid, in[order[k]],
                    ex[order[k]], procs ? (long long)order[k] : x->process);
            exp_csv_str(out, command_of(tv, procs, order[k]));
            fprintf(out, ",%d\n", is_wrapper(tv, procs, order[k]));
        }
        return;
    }
    if (o->format == EXP_JSON) {
        fprintf(out, ",\n      \"%s\": {\"n\": %u", over, n);
        for (int k = 0; k < 6; k++)
            fprintf(out, ", \"%s\": %.10g", stat_names[k], stat_value(&st, k));
        fprintf(out, ", \"count\": %.0f, \"stored\": {", st.count);
        for (int k = 0, first = 1; k < 6; k++) {
            int s = stored_stat(db, m, stat_names[k], over);
            if (s < 0)
                continue;
            fprintf(out, "%s\"%s\": %.10g", first ? "" : ", ", stat_names[k],
                    rpt_db_value(db, node, s));
            first = 0;
        }
        fputs("},\n        \"values\": [", out);
        for (uint32_t k = 0; k < n && k < rows; k++) {
            const struct rpt_group *x = &g[order[k]];
            fprintf(out, "%s{\"index\": %u, \"rank\": %lld, \"pid\": %lld, ", k ? ", " : "",
                    order[k], x->rank, x->pid);
            if (!procs)
                fprintf(out, "\"tid\": %lld, \"process\": %lld, ", x->tid, x->process);
            fputs("\"command\": ", out);
            exp_json_str(out, command_of(tv, procs, order[k]));
            fprintf(out, ", \"inclusive\": %.10g, \"exclusive\": %.10g}", in[order[k]],
                    ex[order[k]]);
        }
        fputs("]}", out);
        return;
    }
    {
        char item[8][64];
        size_t col, w = o->width > 30 ? o->width : 30;
        const double sv[5] = {st.sum, st.mean, st.min, st.max, st.stddev};
        static const char *const sn[5] = {"sum", "mean", "min", "max", "stddev"};
        for (int k = 0; k < 5; k++) { /* in the metric's unit for people (exp_human) */
            char num[48];
            exp_human(num, sizeof num, &db->metrics[m], sv[k], true);
            snprintf(item[k], 64, "%s %s", sn[k], num);
        }
        snprintf(item[5], 64, "cv %.3f", st.cv);
        snprintf(item[6], 64, "max/mean %.2f", st.mean != 0 ? st.max / st.mean : 0);
        col = (size_t)snprintf(line, sizeof line, "  over %u %s:", n, over);
        fputs(line, out);
        for (int k = 0; k < 7; k++) { /* wrapped to the width, ASCII only */
            size_t len = strlen(item[k]) + (k < 6 ? 2 : 1);
            if (col + len > w) {
                fputs("\n   ", out);
                col = 3;
            }
            fprintf(out, " %s%s", item[k], k < 6 ? "," : "");
            col += len;
        }
        fputc('\n', out);
    }
    for (uint32_t k = 0; k < n; k++)
        ranks = ranks || g[k].rank >= 0;
    /* numbers and %max (58 columns for threads, 52 for processes, 5 more with ranks), then,
       as the width allows, a bar of 10 cells and the command (at least 8 columns, else cut
       to what is left, else left out) */
    used = (procs ? 24 : 30) + (ranks ? 5 : 0) + 28;
    with_bar = o->width >= (unsigned)used + 11 + 9;
    name_cols = o->width > (unsigned)used + (with_bar ? 11 : 0) + 4
                    ? o->width - (unsigned)used - (with_bar ? 11 : 0) - 1
                    : 0;
    if (procs)
        fprintf(out, "  %6s %7s %7s", "proc", "pid", "threads");
    else
        fprintf(out, "  %6s %5s %7s %7s", "thread", "proc", "pid", "tid");
    if (ranks)
        fprintf(out, " %4s", "rank");
    fprintf(out, " %10s %10s %5s", "inclusive", "exclusive", "%max");
    if (with_bar)
        fprintf(out, " %10s", "");
    fputs(name_cols > 0 ? " command\n" : "\n", out);
    for (uint32_t k = 0; k < n; k++) {
        const struct rpt_group *x = &g[order[k]];
        double share = st.max > 0 ? in[order[k]] / st.max : 0;
        int bar = (int)lround(share * 10);
        if (is_wrapper(tv, procs, order[k])) { /* folded into one line below */
            nfolded++;
            folded += in[order[k]];
            continue;
        }
        if (shown++ >= rows)
            continue;
        if (procs)
            fprintf(out, "  %6u %7lld %7u", order[k], x->pid, x->nthreads);
        else
            fprintf(out, "  %6u %5lld %7lld %7lld", order[k], x->process, x->pid, x->tid);
        if (ranks)
            fprintf(out, " %4lld", x->rank);
        fputc(' ', out);
        exp_put_human(out, &db->metrics[m], in[order[k]], 10);
        fputc(' ', out);
        exp_put_human(out, &db->metrics[m], ex[order[k]], 10);
        fprintf(out, " %5.1f", 100 * share);
        if (with_bar) /* U+2588 FULL BLOCK, 3 bytes each, padded to 10 cells */
            fprintf(out, " %.*s%*s", bar * 3,
                    "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88"
                    "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88",
                    10 - bar, "");
        if (name_cols > 0) {
            fputc(' ', out);
            fputs(fit_name(command_of(tv, procs, order[k]), name_cols, name, sizeof name), out);
        }
        fputc('\n', out);
    }
    if (shown > rows) {
        char num[48];
        exp_human(num, sizeof num, &db->metrics[m], st.min, true);
        snprintf(line, sizeof line, "  ... %u more %s (the lowest: %s)", shown - rows, over, num);
        exp_fit(out, line, o->width);
        fputc('\n', out);
    }
    if (nfolded > 0) {
        char num[48];
        exp_human(num, sizeof num, &db->metrics[m], folded, true);
        snprintf(
            line, sizeof line, "  + %u %s (folded): inclusive %s", nfolded,
            procs ? (nfolded == 1 ? "wrapper process" : "wrapper processes")
                  : (nfolded == 1 ? "thread of a wrapper process" : "threads of wrapper processes"),
            num);
        exp_fit(out, line, o->width);
        fputc('\n', out);
    }
}

int
export_threads(const struct rpt_db *db, int m, const struct exp_threads_options *o, FILE *out,
               char *err, size_t errlen)
{
    struct rpt_tvalues *tv = NULL;
    uint32_t *nodes = NULL, *order = NULL;
    size_t n = 0;
    regex_t roots;
    char line[2048], *path = NULL;
    int rc;

    if (regcomp(&roots, elided_roots, REG_EXTENDED | REG_NOSUB) != 0)
        return RPT_ENOMEM;
    rc = choose(db, m, o, &roots, &nodes, &n, err, errlen);
    if (rc == RPT_OK)
        rc = rpt_thread_values(db, m, nodes, n, &tv, err, errlen);
    if (rc != RPT_OK)
        goto out;
    order = malloc(((size_t)tv->g.nthreads + tv->g.nprocesses + 1) * sizeof *order);
    path = malloc(8192);
    if (order == NULL || path == NULL) {
        rc = RPT_ENOMEM;
        goto out;
    }
    if (o->format == EXP_TEXT) {
        size_t k = (size_t)snprintf(line, sizeof line, "csprof-report threads: ");
        rpt_db_title(db, line + k, sizeof line - k);
        exp_fit(out, line, o->width);
        k = (size_t)snprintf(line, sizeof line, "\nmetric %s (%s); %u thread(s) in %u process(es)",
                             db->metrics[m].event, db->metrics[m].unit ? db->metrics[m].unit : "",
                             tv->g.nthreads, tv->g.nprocesses);
        if (tv->g.nwrappers > 0 && k < sizeof line)
            snprintf(line + k, sizeof line - k, ", %u of them wrappers (folded)", tv->g.nwrappers);
        exp_fit(out, line, o->width + 1);
        fputs("\n(a thread without a value counts as 0; cv = stddev/mean)\n", out);
    } else if (o->format == EXP_CSV) {
        fputs("context,node,over,index,rank,pid,tid,inclusive,exclusive,process,command,wrapper\n",
              out);
    } else {
        fputs("{\n  \"format\": \"csprof-report\",\n  \"version\": 1,\n  \"view\": \"threads\",\n"
              "  \"title\": ",
              out);
        rpt_db_title(db, line, sizeof line);
        exp_json_str(out, line);
        fputs(",\n  \"program\": ", out);
        exp_json_str(out, db->program != NULL ? db->program : "");
        fprintf(out, ", \"main\": %lld, \"wrappers\": %u", tv->g.main, tv->g.nwrappers);
        fputs(",\n  \"metric\": ", out);
        exp_json_str(out, db->metrics[m].event);
        fputs(", \"unit\": ", out);
        exp_json_str(out, db->metrics[m].unit ? db->metrics[m].unit : "");
        fputs(",\n  \"threads\": [", out);
        for (uint32_t t = 0; t < tv->g.nthreads; t++) {
            const struct rpt_group *g = &tv->g.threads[t];
            fprintf(out,
                    "%s\n    {\"index\": %u, \"pid\": %lld, \"tid\": %lld, \"rank\": %lld, "
                    "\"process\": %lld, \"program\": ",
                    t ? "," : "", t, g->pid, g->tid, g->rank, g->process);
            exp_json_str(out, g->program ? g->program : "");
            fputs(", \"command\": ", out);
            exp_json_str(out, command_of(tv, false, t));
            fprintf(out, ", \"samples\": %.17g, \"cpu_ns\": %.17g, \"records\": %u}", g->samples,
                    g->cpu_ns, g->ninputs);
        }
        fputs("\n  ],\n  \"processes\": [", out);
        for (uint32_t p = 0; p < tv->g.nprocesses; p++) {
            const struct rpt_group *g = &tv->g.processes[p];
            fprintf(out,
                    "%s\n    {\"index\": %u, \"pid\": %lld, \"rank\": %lld, \"threads\": %u, "
                    "\"program\": ",
                    p ? "," : "", p, g->pid, g->rank, g->nthreads);
            exp_json_str(out, g->program ? g->program : "");
            fputs(", \"command\": ", out);
            exp_json_str(out, rpt_program_name(g->program));
            fputs(", \"images\": [", out);
            for (uint32_t k = 0; k < g->nimages; k++) {
                fputs(k ? ", " : "", out);
                exp_json_str(out, g->images[k]);
            }
            fprintf(out, "], \"wrapper\": %s, \"samples\": %.17g, \"cpu_ns\": %.17g}",
                    g->wrapper ? "true" : "false", g->samples, g->cpu_ns);
        }
        fputs("\n  ],\n  \"contexts\": [", out);
    }
    for (size_t c = 0; c < n; c++) {
        uint32_t node = nodes[c];
        node_path(db, &roots, node, path, 8192);
        if (o->format == EXP_TEXT) {
            snprintf(line, sizeof line, "\n[%zu] ", c);
            fputs(line, out);
            /* long call paths: keep the end, which names the context */
            if (strlen(path) > (o->width > 20 ? o->width - 8 : 12)) {
                size_t keep = o->width > 20 ? o->width - 12 : 8, len = strlen(path);
                const char *tail = path + len;
                size_t cols = 0;
                while (tail > path && cols < keep) {
                    tail--;
                    cols += ((unsigned char)*tail & 0xc0) != 0x80;
                }
                fputs("\xe2\x80\xa6", out);
                fputs(tail, out);
            } else {
                fputs(path, out);
            }
            fputc('\n', out);
        } else if (o->format == EXP_JSON) {
            fprintf(out, "%s\n    {\"node\": %u, \"name\": ", c ? "," : "", db->nodes[node].id);
            exp_json_str(out, node == 0 ? "(whole run)" : db->procs[db->nodes[node].proc].name);
            fputs(", \"path\": ", out);
            exp_json_str(out, path);
            fprintf(out, ", \"inclusive\": %.10g", rpt_db_value(db, node, m));
        }
        if (tv->g.nprocesses > 1 || o->format != EXP_TEXT)
            write_over(out, o, db, m, tv, c, node, true, order);
        write_over(out, o, db, m, tv, c, node, false, order);
        if (o->format == EXP_JSON)
            fputs("}", out);
    }
    if (o->format == EXP_JSON)
        fputs("\n  ]\n}\n", out);
out:
    regfree(&roots);
    free(path);
    free(order);
    free(nodes);
    rpt_tvalues_free(tv);
    return rc;
}
