/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_summary.c -- the numbers csprof-prof reports after merging: thread
 * and process counts, event totals, sample statistics, the share of samples
 * rooted at a thread's entry, modules rebuilt since the measurement,
 * effective sampling rate, top procedures and top call paths.
 *
 * Tool code; computes, never prints: tools/csprof-prof prints struct
 * prof_summary, one "key: value" fact per line so that scripts can grep it,
 * and prof_xml.c writes the same numbers into the <Summary> element of
 * experiment.xml.  The text csprof-prof prints:
 *
 *   measurement files: R read, K skipped
 *   K of M measurement files skipped          (only when K > 0)
 *   threads: T
 *   processes: P
 *   event NAME: TOTAL UNIT                    (one line per event)
 *   samples: N
 *   samples.recorded: N                       (every samples.* counter of the files)
 *   samples at unknown addresses: N (X.XX%)
 *   samples rooted at a process or thread entry: X.XX% (R of M)
 *   samples not rooted (partial call paths): U (P whose walk reported stopping early, Q more ...)
 *   samples whose root cannot be judged (...): J     (only when J > 0)
 *   modules changed since the measurement: K (N samples kept as module+0xOFFSET, ...)
 *     PATH: changed since the measurement: build-id ... (N samples)   (one per module)
 *   effective samples per CPU-second: X.X     (or "unknown (no CPU time in headers)")
 *   trust: VERDICT: ...                       (lib/trust's trust_print, every line)
 *     NAME@PERIOD (MECHANISM): ... measured, ... samples' worth: ... recorded, ...
 *     overhead: ...
 *     threads: ...
 *     call paths: ...
 *     thread ...                              (the most doubtful threads)
 *   top N procedures by exclusive NAME:
 *     RANK  X.XX%  VALUE UNIT  PROCEDURE
 *   top N call paths by inclusive NAME:
 *     RANK  X.XX%  VALUE UNIT  main > a > c
 *
 * Top procedures: exclusive cost summed over every context of a procedure,
 * inlined code counted for the inlined procedure.  Top call paths: the call
 * paths (procedure and inlined frames from the root) that end in a frame
 * with cost of its own code (exclusive, inlined callees excluded), ranked
 * by the inclusive cost of that last frame; pure prefixes such as
 * "_start > __libc_start_main" are not listed on their own.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "support/text.h"

uint64_t
prof_stat(const struct prof_ctx *ctx, const char *name)
{
    size_t i;

    for (i = 0; i < ctx->nstats; i++)
        if (strcmp(ctx->stat_names[i], name) == 0)
            return ctx->stat_values[i];
    return 0;
}

/* The ranking metric: event 0 when there is one, else sample counts. */
static double
prof_rank_self(const struct prof_ctx *ctx, uint32_t node)
{
    if (ctx->nevents > 0)
        return prof_tree_self(&ctx->tree, node, 0);
    return (double)ctx->tree.nodes[node].samples;
}

static double
prof_rank_incl(const struct prof_ctx *ctx, uint32_t node)
{
    if (ctx->nevents > 0)
        return prof_tree_incl(&ctx->tree, node, 0);
    return (double)ctx->tree.incl_samples[node];
}

static int
prof_cmp_top_proc(const void *a, const void *b)
{
    const struct prof_top_proc *x = a, *y = b;

    if (x->value != y->value)
        return x->value < y->value ? 1 : -1;
    return x->proc < y->proc ? -1 : x->proc > y->proc;
}

static int
prof_cmp_top_path(const void *a, const void *b)
{
    const struct prof_top_path *x = a, *y = b;

    if (x->value != y->value)
        return x->value < y->value ? 1 : -1;
    return x->node < y->node ? -1 : x->node > y->node;
}

/*
 * Fold recursion in a path string (frames separated by " > "): a block of 1
 * to 4 frames repeated 3 or more times in a row becomes "[a:5 > b:9] x5000"
 * ("a:5 x5000" for one frame), so a path 100 000 frames deep prints as one
 * line of a few frames.  Frees @path; returns a new string.
 */
static char *
prof_path_fold(char *path)
{
    size_t nseg = 1, i, j, o = 0, len = strlen(path);
    const char **seg;
    size_t *seglen;
    char *out, *p;

    for (p = path; (p = strstr(p, " > ")) != NULL; p += 3)
        nseg++;
    seg = prof_xcalloc(nseg, sizeof(*seg));
    seglen = prof_xcalloc(nseg, sizeof(*seglen));
    for (i = 0, p = path; i < nseg; i++) {
        char *end = strstr(p, " > ");

        seg[i] = p;
        seglen[i] = end != NULL ? (size_t)(end - p) : strlen(p);
        p = end != NULL ? end + 3 : p + seglen[i];
    }
    out = prof_xmalloc(len + 1 + 32); /* a fold never lengthens more than its " xN" suffix */
    for (i = 0; i < nseg;) {
        size_t block = 0, reps = 1;

        for (size_t b = 1; b <= 4 && block == 0; b++) {
            size_t r = 1;

            while (i + (r + 1) * b <= nseg) {
                for (j = 0; j < b; j++)
                    if (seglen[i + j] != seglen[i + r * b + j] ||
                        memcmp(seg[i + j], seg[i + r * b + j], seglen[i + j]) != 0)
                        break;
                if (j < b)
                    break;
                r++;
            }
            if (r >= 3) {
                block = b;
                reps = r;
            }
        }
        if (o > 0) {
            memcpy(out + o, " > ", 3);
            o += 3;
        }
        if (block == 0) {
            memcpy(out + o, seg[i], seglen[i]);
            o += seglen[i];
            i++;
            continue;
        }
        if (block > 1)
            out[o++] = '[';
        for (j = 0; j < block; j++) {
            if (j > 0) {
                memcpy(out + o, " > ", 3);
                o += 3;
            }
            memcpy(out + o, seg[i + j], seglen[i + j]);
            o += seglen[i + j];
        }
        if (block > 1)
            out[o++] = ']';
        o += (size_t)sprintf(out + o, " x%zu", reps);
        i += block * reps;
    }
    out[o] = '\0';
    free(seg);
    free(seglen);
    free(path);
    return out;
}

/*
 * "main:12 > a:45 > c": names of the PF and A frames from the root down to
 * @node, each caller followed by the line of the call site (C node) through
 * which the path continues, so that two calls of c from different lines of
 * a are told apart.
 */
static char *
prof_path_string(const struct prof_ctx *ctx, uint32_t node)
{
    const struct prof_tree *t = &ctx->tree;
    size_t len = 1, n;
    uint32_t v, line = 0;
    bool first = true;
    char *s;

    for (v = node; v != PROF_NONE; v = t->nodes[v].parent)
        if (t->nodes[v].kind == CSP_SCOPE_PROC || t->nodes[v].kind == CSP_SCOPE_INLINE)
            len += strlen(prof_proc_name(ctx, t->nodes[v].proc)) + 3 + 11;
    s = prof_xmalloc(len);
    n = len - 1;
    s[n] = '\0';
    for (v = node; v != PROF_NONE; v = t->nodes[v].parent) {
        const struct prof_node *pn = &t->nodes[v];
        char suffix[12] = "";
        const char *name;
        size_t k;

        if (pn->kind == CSP_SCOPE_CALL) {
            line = pn->line;
            continue;
        }
        if (pn->kind != CSP_SCOPE_PROC && pn->kind != CSP_SCOPE_INLINE)
            continue;
        if (line != 0)
            snprintf(suffix, sizeof(suffix), ":%u", line);
        line = 0;
        name = prof_proc_name(ctx, pn->proc);
        if (!first) {
            n -= 3;
            memcpy(s + n, " > ", 3);
        }
        first = false;
        k = strlen(suffix);
        n -= k;
        memcpy(s + n, suffix, k);
        k = strlen(name);
        n -= k;
        memcpy(s + n, name, k);
    }
    if (n > 0) /* the budget of unused suffixes and separators */
        memmove(s, s + n, len - n);
    return prof_path_fold(s);
}

size_t
prof_count_distinct(const struct prof_ctx *ctx, bool threads)
{
    struct csp_strtab hosts = {0};
    struct prof_map seen = {0};
    size_t i, n = 0;

    for (i = 0; i < ctx->ninputs; i++) {
        const struct prof_input *in = &ctx->inputs[i];
        uint64_t host, who;

        if (in->error != NULL)
            continue;
        host = prof_intern(&hosts, in->host);
        who = (uint64_t)in->pid << 32 | in->generation;
        if (prof_map_get(&seen, host, who, threads ? in->tid : 0) == PROF_NONE) {
            prof_map_put(&seen, host, who, threads ? in->tid : 0, 1);
            n++;
        }
    }
    prof_map_free(&seen);
    csp_strtab_free(&hosts);
    return n;
}

enum prof_rooted {
    PROF_NOT_ROOTED = 0,
    PROF_ROOTED = 1,
    PROF_ROOT_UNKNOWN = 2, /* no structure for the outermost frame's file */
};

/* Is the call path whose outermost node is @n (a child of the root) rooted? */
static uint8_t
prof_judge_root(const struct prof_ctx *ctx, const struct prof_node *n)
{
    const struct prof_proc *p;
    const struct prof_module *m;

    if ((n->kind != CSP_SCOPE_PROC && n->kind != CSP_SCOPE_INLINE) || n->proc == PROF_NONE)
        return PROF_NOT_ROOTED;
    p = &ctx->procs[n->proc];
    if (p->is_root)
        return PROF_ROOTED;
    if (p->module == PROF_NONE)
        return PROF_NOT_ROOTED; /* in no load module: JIT code or garbage, never an entry */
    m = &ctx->modules[p->module];
    if ((m->state == PROF_MOD_CHANGED || m->state == PROF_MOD_FAILED) && m->path[0] == '/')
        return PROF_ROOT_UNKNOWN; /* its _start would be nameless: cannot tell */
    return PROF_NOT_ROOTED;
}

static void prof_trust_compute(const struct prof_ctx *ctx, struct prof_summary *s,
                               const uint64_t *stops);
static int prof_summary_guarded(struct prof_ctx *ctx, uint32_t top, struct prof_summary *s);

static int
prof_summary_build(struct prof_ctx *ctx, uint32_t top, struct prof_summary *s)
{
    const struct prof_tree *t = &ctx->tree;
    uint32_t *inner = prof_xmalloc(t->n * sizeof(*inner));       /* innermost procedure */
    uint32_t *frame_of = prof_xmalloc(t->n * sizeof(*frame_of)); /* innermost PF/A node */
    double *frame_self = prof_xcalloc(t->n, sizeof(*frame_self));
    bool *under_main = prof_xcalloc(t->n, sizeof(*under_main));
    uint8_t *rooted = prof_xcalloc(t->n, sizeof(*rooted)); /* enum prof_rooted */
    /* the module of each node's outermost frame (ctx->nmodules: none), and the samples of
     * the paths that are not rooted by that module */
    uint32_t *outer = prof_xcalloc(t->n, sizeof(*outer));
    uint64_t *stops = prof_xcalloc(ctx->nmodules + 1, sizeof(*stops));
    double *proc_excl = prof_xcalloc(ctx->nprocs, sizeof(*proc_excl));
    size_t i, ncand = 0;

    s->top = top;
    s->files = ctx->ninputs;
    s->files_read = ctx->nread;
    s->files_skipped = ctx->nskipped;
    s->partial_threads = ctx->npartial;
    s->threads = prof_count_distinct(ctx, true);
    s->processes = prof_count_distinct(ctx, false);
    s->samples = t->incl_samples[0];
    s->unknown_samples = ctx->unknown_samples;
    s->calls = ctx->total_calls;
    s->stats = prof_xcalloc(ctx->nstats, sizeof(*s->stats));
    for (i = 0; i < ctx->nstats; i++) {
        s->stats[i].name = ctx->stat_names[i];
        s->stats[i].value = ctx->stat_values[i];
    }
    s->nstats = ctx->nstats;
    s->rank_name = ctx->nevents > 0 ? ctx->events[0].name : "samples";
    s->rank_unit = ctx->nevents > 0 ? ctx->events[0].display_unit : "samples";
    s->rank_total = ctx->nevents > 0 ? prof_tree_incl(t, 0, 0) : (double)s->samples;
    /* (the time sampling was armed: a process's CPU time before its exec is not this one's) */
    for (i = 0; i < ctx->ninputs; i++)
        if (ctx->inputs[i].error == NULL)
            s->cpu_ns += ctx->inputs[i].sampled_cpu_ns;
    s->samples_per_cpu_s = s->cpu_ns > 0 ? (double)s->samples / ((double)s->cpu_ns * 1e-9) : -1.0;
    s->events = prof_xcalloc(ctx->nevents, sizeof(*s->events));
    for (i = 0; i < ctx->nevents; i++) {
        s->events[i].name = ctx->events[i].name;
        s->events[i].unit = ctx->events[i].display_unit;
        s->events[i].total = prof_tree_incl(t, 0, (uint32_t)i);
    }
    s->nevents = ctx->nevents;
    s->changed = prof_xcalloc(ctx->nchanged, sizeof(*s->changed));
    for (i = 0; i < ctx->nmodules; i++)
        if (ctx->modules[i].state == PROF_MOD_CHANGED) {
            s->changed_samples += ctx->modules[i].leaf_samples;
            s->changed[s->nchanged].why = ctx->modules[i].why;
            s->changed[s->nchanged].samples = ctx->modules[i].leaf_samples;
            s->nchanged++;
        }

    /* One forward pass: parents come before children. */
    inner[0] = frame_of[0] = PROF_NONE;
    for (i = 0; i < t->n; i++) {
        const struct prof_node *n = &t->nodes[i];
        bool frame = n->kind == CSP_SCOPE_PROC || n->kind == CSP_SCOPE_INLINE;

        if (i > 0) {
            inner[i] = frame ? n->proc : inner[n->parent];
            frame_of[i] = frame ? (uint32_t)i : frame_of[n->parent];
            under_main[i] = under_main[n->parent] || (frame && ctx->procs[n->proc].is_main);
            /* The outermost frame of a path is a child of the root. */
            rooted[i] = n->parent == 0 ? prof_judge_root(ctx, n) : rooted[n->parent];
        }
        if (under_main[i])
            s->main_samples += n->samples;
        if (i > 0 && n->parent == 0)
            outer[i] = frame && n->proc != PROF_NONE && ctx->procs[n->proc].module != PROF_NONE
                           ? ctx->procs[n->proc].module
                           : (uint32_t)ctx->nmodules;
        else if (i > 0)
            outer[i] = outer[n->parent];
        if (i > 0 && rooted[i] == PROF_NOT_ROOTED)
            stops[outer[i]] += n->samples;
        if (rooted[i] == PROF_ROOTED)
            s->rooted_samples += n->samples;
        else if (rooted[i] == PROF_ROOT_UNKNOWN)
            s->unjudged_samples += n->samples;
        if (inner[i] != PROF_NONE) {
            proc_excl[inner[i]] += prof_rank_self(ctx, (uint32_t)i);
            frame_self[frame_of[i]] += prof_rank_self(ctx, (uint32_t)i);
        }
        if (frame)
            ncand++;
    }

    s->top_procs = prof_xcalloc(ctx->nprocs, sizeof(*s->top_procs));
    for (i = 0; i < ctx->nprocs; i++)
        if (proc_excl[i] != 0.0) {
            s->top_procs[s->ntop_procs].proc = (uint32_t)i;
            s->top_procs[s->ntop_procs].name = prof_proc_name(ctx, (uint32_t)i);
            s->top_procs[s->ntop_procs].value = proc_excl[i];
            s->ntop_procs++;
        }
    qsort(s->top_procs, s->ntop_procs, sizeof(*s->top_procs), prof_cmp_top_proc);
    if (s->ntop_procs > top)
        s->ntop_procs = top;

    s->top_paths = prof_xcalloc(ncand, sizeof(*s->top_paths));
    for (i = 0; i < t->n; i++) {
        const struct prof_node *n = &t->nodes[i];

        /* A path ends in a frame that has cost of its own: its prefixes are not listed. */
        if ((n->kind == CSP_SCOPE_PROC || n->kind == CSP_SCOPE_INLINE) && frame_self[i] != 0.0) {
            s->top_paths[s->ntop_paths].node = (uint32_t)i;
            s->top_paths[s->ntop_paths].value = prof_rank_incl(ctx, (uint32_t)i);
            s->ntop_paths++;
        }
    }
    qsort(s->top_paths, s->ntop_paths, sizeof(*s->top_paths), prof_cmp_top_path);
    if (s->ntop_paths > top)
        s->ntop_paths = top;
    for (i = 0; i < s->ntop_paths; i++) {
        uint32_t parent = t->nodes[s->top_paths[i].node].parent;

        s->top_paths[i].path = prof_path_string(ctx, s->top_paths[i].node);
        /* The call site the last frame was called from, and its call-edge count. */
        if (parent != PROF_NONE && t->nodes[parent].kind == CSP_SCOPE_CALL)
            s->top_paths[i].calls = t->nodes[parent].calls;
    }
    prof_trust_compute(ctx, s, stops);

    free(stops);
    free(outer);
    free(proc_excl);
    free(rooted);
    free(under_main);
    free(frame_self);
    free(frame_of);
    free(inner);
    return 0;
}

static int
prof_summary_guarded(struct prof_ctx *ctx, uint32_t top, struct prof_summary *s)
{
    PROF_GUARD(ctx, prof_summary_build(ctx, top, s));
}

int
prof_summary_compute(struct prof_ctx *ctx, uint32_t top, struct prof_summary *s)
{
    int rc;

    memset(s, 0, sizeof(*s));
    if (!ctx->finished)
        return prof_fail(ctx, PROF_ESTATE, "summary requested before prof_finish()");
    rc = prof_summary_guarded(ctx, top, s);
    if (rc < 0)
        prof_summary_free(s);
    return rc;
}

uint64_t
prof_summary_stat(const struct prof_summary *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->nstats; i++)
        if (strcmp(s->stats[i].name, name) == 0)
            return s->stats[i].value;
    return 0;
}

/*
 * The trust report (lib/trust): every thread read, in input order, then the
 * rooted share of the tree and the modules where incomplete call paths stop
 * (@stops: samples per module of the outermost frame of a path that is not
 * rooted, indexed by module, PROF_NONE's at ctx->nmodules).
 */
static void
prof_trust_compute(const struct prof_ctx *ctx, struct prof_summary *s, const uint64_t *stops)
{
    size_t i;

    trust_run_init(&s->trust);
    for (i = 0; i < ctx->ninputs; i++)
        if (ctx->inputs[i].error == NULL)
            trust_run_add(&s->trust, &ctx->inputs[i].trust);
    s->trust.processes = s->processes; /* (by host, pid and generation, as everywhere here) */
    trust_run_set_rooted(&s->trust, s->rooted_samples, s->unjudged_samples, s->samples);
    for (size_t k = 0; k < TRUST_MAX_STOPS; k++) { /* the heaviest modules, heaviest first */
        size_t best = PROF_NONE;

        for (i = 0; i <= ctx->nmodules; i++)
            if (stops[i] > 0 && (best == PROF_NONE || stops[i] > stops[best]))
                best = i;
        if (best == PROF_NONE)
            break;
        trust_run_add_stop(&s->trust,
                           best == ctx->nmodules ? "(no module)"
                                                 : text_basename(ctx->modules[best].path),
                           stops[best]);
        ((uint64_t *)stops)[best] = 0;
    }
    trust_judge(&s->trust, &s->verdict);
}

void
prof_summary_free(struct prof_summary *s)
{
    size_t i;

    for (i = 0; i < s->ntop_paths; i++)
        free(s->top_paths[i].path);
    free(s->top_paths);
    free(s->top_procs);
    free(s->events);
    free(s->stats);
    free(s->changed);
    memset(s, 0, sizeof(*s));
}
