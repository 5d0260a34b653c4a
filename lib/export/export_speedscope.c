/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_speedscope.c -- speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json): shared frames and
 * one "sampled" profile of one metric, so that speedscope opens on the
 * profile (its left-heavy and sandwich views), not on a timeline that never
 * happened.  Tool code.
 *
 * Each calling context with own cost is one stack ("samples": frame
 * indices, outermost first) with its own cost as weight ("weights", in the
 * metric's raw unit), depth first; a node with no cost is left out.  The
 * root's own cost is a stack of one frame named after the program, like the
 * other exports.  endValue is the sum of the weights: the same integer
 * total as the other exports.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_internal.h"

struct ss {
    const struct rpt_tree *t;
    int col;
    FILE *out;
    int64_t *frame_of_name; /* name id -> frame index + 1 */
    uint32_t *frames;       /* frame index -> a node that has the name */
    size_t nframes;
    size_t *stack; /* frame indices of the path being walked */
};

enum ss_pass { SS_SUM, SS_SAMPLES, SS_WEIGHTS };

/* Own cost of @n in raw units, negative rounding noise as 0. */
static int64_t
self_raw(const struct ss *s, uint32_t n)
{
    int64_t v = exp_raw(s->t, s->col, rpt_self(s->t, n, s->col));

    return v > 0 ? v : 0;
}

static size_t
frame_of(const struct ss *s, uint32_t n)
{
    return (size_t)s->frame_of_name[s->t->nodes[n].name] - 1;
}

/* One sample: the stack of @depth frames or its weight @v. */
static void
sample(struct ss *s, enum ss_pass pass, size_t depth, int64_t v, bool *first)
{
    if (pass == SS_SAMPLES) {
        fputs(*first ? "[" : ",\n[", s->out);
        for (size_t i = 0; i < depth; i++)
            fprintf(s->out, i ? ",%zu" : "%zu", s->stack[i]);
        fputc(']', s->out);
    } else if (pass == SS_WEIGHTS) {
        fprintf(s->out, *first ? "%lld" : ",%lld", (long long)v);
    }
    *first = false;
}

/*
 * The samples in the same order in every pass: the root's own cost, then
 * the nodes below it depth first (iteratively: trees of deep recursion).
 * Writes the stacks or the weights; returns the sum of the weights.
 */
static int64_t
samples(struct ss *s, enum ss_pass pass)
{
    const struct rpt_tree *t = s->t;
    int64_t sum = 0, v;
    size_t depth = 0;
    bool first = true;
    uint32_t n;

    if ((v = self_raw(s, 0)) > 0) {
        s->stack[0] = frame_of(s, 0);
        sample(s, pass, 1, v, &first);
        sum += v;
    }
    n = t->nodes[0].first_child;
    while (n != 0) {
        s->stack[depth++] = frame_of(s, n);
        if ((v = self_raw(s, n)) > 0) {
            sample(s, pass, depth, v, &first);
            sum += v;
        }
        if (t->nodes[n].first_child != 0) {
            n = t->nodes[n].first_child;
            continue;
        }
        while (n != 0 && t->nodes[n].next_sibling == 0) {
            n = t->nodes[n].parent;
            depth--;
        }
        if (n == 0)
            break;
        depth--;
        n = t->nodes[n].next_sibling;
    }
    return sum;
}

static const char *
speedscope_unit(const struct rpt_tree *t, int col)
{
    const struct rpt_metric *m = &t->db->metrics[t->metric_of[col]];
    const char *u = m->raw_unit != NULL ? m->raw_unit : m->unit;

    if (u == NULL)
        return "none";
    if (strcmp(u, "ns") == 0)
        return "nanoseconds";
    if (strcmp(u, "us") == 0)
        return "microseconds";
    if (strcmp(u, "ms") == 0)
        return "milliseconds";
    if (strcmp(u, "s") == 0)
        return "seconds";
    if (strcmp(u, "bytes") == 0 || strcmp(u, "B") == 0)
        return "bytes";
    return "none";
}

int
export_speedscope(const struct rpt_tree *t, int col, FILE *out)
{
    struct ss s = {t, col, out, NULL, NULL, 0, NULL};
    uint32_t maxname = 0;

    for (uint32_t n = 0; n < t->nnodes; n++)
        if (t->nodes[n].name > maxname)
            maxname = t->nodes[n].name;
    s.frame_of_name = calloc((size_t)maxname + 1, sizeof *s.frame_of_name);
    s.frames = malloc((size_t)t->nnodes * sizeof *s.frames);
    s.stack = malloc(((size_t)t->nnodes + 1) * sizeof *s.stack);
    if (s.frame_of_name == NULL || s.frames == NULL || s.stack == NULL) {
        free(s.frame_of_name);
        free(s.frames);
        free(s.stack);
        errno = ENOMEM;
        return -1;
    }
    for (uint32_t n = 0; n < t->nnodes; n++) {
        uint32_t nm = t->nodes[n].name;
        if (s.frame_of_name[nm] == 0) {
            s.frames[s.nframes++] = n;
            s.frame_of_name[nm] = (int64_t)s.nframes;
        }
    }
    fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
          "\"exporter\":\"csprof-report\",\n\"name\":",
          out);
    exp_json_str(out, rpt_tree_name(t, 0));
    fputs(",\n\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[\n", out);
    for (size_t i = 0; i < s.nframes; i++) {
        const struct rpt_vnode *v = &t->nodes[s.frames[i]];
        fputs(i ? ",\n{\"name\":" : "{\"name\":", out);
        exp_json_str(out, rpt_tree_name(t, s.frames[i]));
        if (v->kind != CSP_SCOPE_ROOT && v->file >= 0 && v->file < t->db->nfiles) {
            fputs(",\"file\":", out);
            exp_json_str(out, t->db->files[v->file]);
            if (v->line > 0)
                fprintf(out, ",\"line\":%d", (int)v->line);
        }
        fputc('}', out);
    }
    fputs("]},\n\"profiles\":[{\"type\":\"sampled\",\"name\":", out);
    exp_json_str(out, t->db->metrics[t->metric_of[col]].event);
    fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%lld,\n\"samples\":[\n",
            speedscope_unit(t, col), (long long)samples(&s, SS_SUM));
    samples(&s, SS_SAMPLES);
    fputs("],\n\"weights\":[", out);
    samples(&s, SS_WEIGHTS);
    fputs("]}]}\n", out);
    free(s.frame_of_name);
    free(s.frames);
    free(s.stack);
    return ferror(out) ? -1 : 0;
}
