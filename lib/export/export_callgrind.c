/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_callgrind.c -- the callgrind profile format (Valgrind manual,
 * "Callgrind Format Specification"), read by callgrind_annotate and
 * KCachegrind.  Tool code.
 *
 * The calling-context tree is projected onto a graph of functions (one per
 * frame name): a function's self cost goes on the line of the statement
 * that had it (or its declaration line), and every caller -> callee edge at
 * a call-site line gets "calls=" from the sampled call counts and a cost.
 * A reader computes a function's inclusive cost as its self cost plus the
 * costs of the calls it makes (callgrind_annotate --inclusive=yes,
 * KCachegrind), so under recursion, direct or mutual, each sample must
 * reach a function F once: through F's self cost when the sample's leaf is
 * in F, else through the call out of the outermost F frame on its path.
 * The cost of a call from frame m (function F) into frame n is therefore
 *   0                                   when m has an F frame above it,
 *   incl(n) - self of the F frames in n's subtree   otherwise,
 * and every function's inclusive cost is then the cost of the samples with
 * F on their path, counted once: the flat view's inclusive value.  The
 * subtracted part is found by walking up from each F frame with self cost
 * that has an F frame above it (only recursive frames walk).  Costs are
 * integers in the metric's raw unit, one event per value column.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_internal.h"

struct rec {
    uint32_t fn, callee; /* callee UINT32_MAX: a self-cost record */
    int32_t line;
    double calls;
    int64_t *cost; /* nvalues */
};

struct cg {
    const struct rpt_tree *t;
    int nv;
    struct rec *recs;
    size_t nrecs;
    int64_t *costs; /* backing store of the records' cost arrays */
    int64_t *incl;  /* raw inclusive per node and column */
    int64_t *sub;   /* per node and column: see export_callgrind() */
};

static int
cmp_rec(const void *a, const void *b)
{
    const struct rec *x = a, *y = b;

    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    if (x->callee != y->callee) /* self records (UINT32_MAX) last, after the calls */
        return x->callee < y->callee ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return 0;
}

static bool
is_fn(const struct rpt_vnode *v)
{
    return v->kind != RPT_STMT;
}

/* The function node that holds @n (itself unless a statement). */
static uint32_t
fn_node(const struct rpt_tree *t, uint32_t n)
{
    while (n != 0 && !is_fn(&t->nodes[n]))
        n = t->nodes[n].parent;
    return n;
}

/*
 * The outermost frame above @n with @n's function's name and the node just
 * below it on the path (*below), or 0 when none is above.
 */
static uint32_t
outermost_same(const struct rpt_tree *t, uint32_t n, uint32_t *below)
{
    uint32_t f = fn_node(t, n), name = t->nodes[f].name, outer = 0, prev = f;

    for (uint32_t a = t->nodes[f].parent; a != 0; prev = a, a = t->nodes[a].parent)
        if (is_fn(&t->nodes[a]) && t->nodes[a].name == name) {
            outer = a;
            *below = prev;
        }
    return outer;
}

static bool
on_path_above(const struct rpt_tree *t, uint32_t n)
{
    for (uint32_t a = t->nodes[n].parent; a != 0; a = t->nodes[a].parent)
        if (is_fn(&t->nodes[a]) && t->nodes[a].name == t->nodes[n].name)
            return true;
    return false;
}

/* callgrind_annotate reads event names as words */
static void
event_name(FILE *out, const char *s)
{
    for (; *s; s++)
        putc(isalnum((unsigned char)*s) || *s == '_' ? *s : '_', out);
}

/* File names are written in full each time (the format allows both). */
static void
put_file(FILE *out, const char *key, const char *name)
{
    fprintf(out, "%s=%s\n", key, name);
}

static void
put_name(FILE *out, const char *key, uint32_t id, bool *seen, const char *name)
{
    if (seen[id]) {
        fprintf(out, "%s=(%u)\n", key, id + 1);
        return;
    }
    seen[id] = true;
    fprintf(out, "%s=(%u) %s\n", key, id + 1, name);
}

int
export_callgrind(const struct rpt_tree *t, FILE *out)
{
    struct cg g = {t, t->nvalues, NULL, 0, NULL, NULL, NULL};
    size_t nv = (size_t)t->nvalues, maxrec = 2 * (size_t)t->nnodes;
    uint32_t maxname = 0;
    bool *fn_seen = NULL;
    uint32_t *fn_first = NULL; /* name -> a node with it (+1) */
    int rc = -1;

    for (uint32_t n = 0; n < t->nnodes; n++)
        if (t->nodes[n].name > maxname)
            maxname = t->nodes[n].name;
    g.recs = calloc(maxrec, sizeof *g.recs);
    g.costs = calloc(maxrec * (nv ? nv : 1), sizeof *g.costs);
    g.incl = calloc((size_t)t->nnodes * (nv ? nv : 1), sizeof *g.incl);
    g.sub = calloc((size_t)t->nnodes * (nv ? nv : 1), sizeof *g.sub);
    fn_seen = calloc((size_t)maxname + 1, sizeof *fn_seen);
    fn_first = calloc((size_t)maxname + 1, sizeof *fn_first);
    if (g.recs == NULL || g.costs == NULL || g.incl == NULL || g.sub == NULL || fn_seen == NULL ||
        fn_first == NULL) {
        errno = ENOMEM;
        goto out_free;
    }
    for (uint32_t n = 0; n < t->nnodes; n++)
        for (size_t c = 0; c < nv; c++)
            g.incl[n * nv + c] = exp_raw(t, (int)c, rpt_self(t, n, (int)c));
    for (uint32_t n = t->nnodes; n-- > 1;)
        for (size_t c = 0; c < nv; c++)
            g.incl[t->nodes[n].parent * nv + c] += g.incl[n * nv + c];
    /* sub[n]: self cost in n's subtree of the function of the frame n was called from */
    for (uint32_t n = 1; n < t->nnodes; n++) {
        uint32_t below = 0;
        bool any = false;
        for (size_t c = 0; c < nv; c++)
            any |= exp_raw(t, (int)c, rpt_self(t, n, (int)c)) != 0;
        if (!any || fn_node(t, n) == 0 || outermost_same(t, n, &below) == 0)
            continue;
        for (size_t c = 0; c < nv; c++)
            g.sub[below * nv + c] += exp_raw(t, (int)c, rpt_self(t, n, (int)c));
    }

    for (uint32_t n = 0; n < t->nnodes; n++) {
        const struct rpt_vnode *v = &t->nodes[n];
        uint32_t f = fn_node(t, n);
        struct rec *r;
        bool any = false;

        if (fn_first[t->nodes[f].name] == 0)
            fn_first[t->nodes[f].name] = f + 1;
        /* self cost, on the statement's line or the function's declaration */
        r = &g.recs[g.nrecs];
        r->cost = &g.costs[g.nrecs * nv];
        for (size_t c = 0; c < nv; c++) {
            r->cost[c] = exp_raw(t, (int)c, rpt_self(t, n, (int)c));
            any |= r->cost[c] != 0;
        }
        if (any) {
            r->fn = t->nodes[f].name;
            r->callee = UINT32_MAX;
            r->line = v->kind == RPT_STMT ? v->line : (v->line > 0 ? v->line : 0);
            g.nrecs++;
        }
        /* the call that entered this function from its caller */
        if (n != 0 && is_fn(v) && fn_node(t, v->parent) != 0) {
            bool rec = on_path_above(t, fn_node(t, v->parent)); /* the caller is not outermost */
            r = &g.recs[g.nrecs];
            r->cost = &g.costs[g.nrecs * nv];
            r->fn = t->nodes[fn_node(t, v->parent)].name;
            r->callee = v->name;
            r->line = v->cs_line;
            r->calls = v->calls;
            for (size_t c = 0; c < nv; c++)
                r->cost[c] = rec ? 0 : g.incl[n * nv + c] - g.sub[n * nv + c];
            g.nrecs++;
        }
    }
    qsort(g.recs, g.nrecs, sizeof *g.recs, cmp_rec);

    fputs("# callgrind format\nversion: 1\ncreator: csprof-report\ncmd: ", out);
    fputs(t->db->program != NULL ? t->db->program : "?", out);
    fputs("\npositions: line\nevents:", out);
    for (size_t c = 0; c < nv; c++) {
        putc(' ', out);
        event_name(out, t->db->metrics[t->metric_of[c]].event);
    }
    fputs("\nsummary:", out);
    for (size_t c = 0; c < nv; c++)
        fprintf(out, " %lld", (long long)g.incl[c]);
    fputs("\n", out);

    for (size_t i = 0; i < g.nrecs;) {
        uint32_t fn = g.recs[i].fn, node = fn_first[fn] - 1;
        int32_t file = t->nodes[node].kind == RPT_ROOT ? -1 : t->nodes[node].file;

        fputc('\n', out);
        if (file >= 0 && file < t->db->nfiles)
            put_file(out, "fl", t->db->files[file]);
        else
            put_file(out, "fl", "???");
        put_name(out, "fn", fn, fn_seen, rpt_names_get(t->names, fn));
        while (i < g.nrecs && g.recs[i].fn == fn) {
            struct rec r = g.recs[i];
            double calls = 0;
            int64_t *sum = r.cost;
            /* merge equal (fn, callee, line) records */
            calls = r.calls;
            for (i++; i < g.nrecs && cmp_rec(&g.recs[i], &r) == 0; i++) {
                calls += g.recs[i].calls;
                for (size_t c = 0; c < nv; c++)
                    sum[c] += g.recs[i].cost[c];
            }
            if (r.callee != UINT32_MAX) {
                uint32_t cn = fn_first[r.callee] - 1;
                int32_t cf = t->nodes[cn].file;
                if (cf >= 0 && cf < t->db->nfiles)
                    put_file(out, "cfl", t->db->files[cf]);
                else
                    put_file(out, "cfl", "???");
                put_name(out, "cfn", r.callee, fn_seen, rpt_names_get(t->names, r.callee));
                fprintf(out, "calls=%.0f %d\n", calls,
                        t->nodes[cn].line > 0 ? t->nodes[cn].line : 0);
            }
            fprintf(out, "%d", r.line > 0 ? r.line : 0);
            for (size_t c = 0; c < nv; c++)
                fprintf(out, " %lld", (long long)sum[c]);
            fputc('\n', out);
        }
    }
    rc = ferror(out) ? -1 : 0;
out_free:
    free(g.recs);
    free(g.costs);
    free(g.incl);
    free(g.sub);
    free(fn_seen);
    free(fn_first);
    return rc;
}
