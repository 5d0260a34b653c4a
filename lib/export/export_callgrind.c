/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_callgrind.c -- the callgrind profile format (Valgrind manual,
 * "Callgrind Format Specification"), read by callgrind_annotate and
 * KCachegrind.  Tool code.
 *
 * The calling-context tree is projected onto a graph of functions (one per
 * frame name): a function's self cost goes on the line of the statement
 * that had it (or its declaration line), and every caller -> callee edge at
 * a call-site line gets "calls=" from the sampled call counts and the
 * inclusive cost of the call (the callee frame's inclusive cost), as the
 * format specifies.  Under recursion, direct or mutual, a call into a
 * function that is already on the call path gets cost 0 (its cost is inside
 * the call that entered the function first), so that the costs of the calls
 * into a function sum to the cost of the samples with that function on
 * their path, counted once: callgrind_annotate --inclusive=yes, which sums
 * the calls into each function, then shows the flat view's inclusive value
 * (test/report/mutual_recursion.xml is the golden case).  Call lines need a
 * nonzero count to be read as calls: a call without sampled calls is written
 * as calls=1.  Costs are integers in the metric's raw unit, one event per
 * value column.
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
    return v->kind != CSP_SCOPE_STMT;
}

/* The function node that holds @n (itself unless a statement). */
static uint32_t
fn_node(const struct rpt_tree *t, uint32_t n)
{
    while (n != 0 && !is_fn(&t->nodes[n]))
        n = t->nodes[n].parent;
    return n;
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
    struct cg g = {t, t->nvalues, NULL, 0, NULL, NULL};
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
    fn_seen = calloc((size_t)maxname + 1, sizeof *fn_seen);
    fn_first = calloc((size_t)maxname + 1, sizeof *fn_first);
    if (g.recs == NULL || g.costs == NULL || g.incl == NULL || fn_seen == NULL ||
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
            r->line = v->kind == CSP_SCOPE_STMT ? v->line : (v->line > 0 ? v->line : 0);
            g.nrecs++;
        }
        /* the call that entered this function from its caller */
        if (n != 0 && is_fn(v) && fn_node(t, v->parent) != 0) {
            bool rec = on_path_above(t, n);
            r = &g.recs[g.nrecs];
            r->cost = &g.costs[g.nrecs * nv];
            r->fn = t->nodes[fn_node(t, v->parent)].name;
            r->callee = v->name;
            r->line = v->cs_line;
            r->calls = v->calls;
            for (size_t c = 0; c < nv; c++)
                r->cost[c] = rec ? 0 : g.incl[n * nv + c];
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
        int32_t file = t->nodes[node].kind == CSP_SCOPE_ROOT ? -1 : t->nodes[node].file;

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
                fprintf(out, "calls=%.0f %d\n", calls >= 1 ? calls : 1,
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
    free(fn_seen);
    free(fn_first);
    return rc;
}
