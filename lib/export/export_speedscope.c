/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_speedscope.c -- speedscope's JSON file format
 * (https://www.speedscope.app/file-format-schema.json): shared frames and
 * one "evented" profile of one metric, whose open/close events walk the
 * calling-context tree depth first with "at" = the running sum of cost, as
 * speedscope's own exporters lay out aggregated trees.  Tool code.
 *
 * A node opens at t, its own cost comes first, then its children; it
 * closes at t + inclusive.  Nodes with no cost are left out.  Values are in
 * the metric's raw unit, so endValue is the same integer total as the
 * other exports.
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
    bool first;
};

static int64_t incl_raw(const struct ss *s, uint32_t n);

/* Inclusive in raw units as the sum of the rounded self values below. */
static int64_t
incl_raw(const struct ss *s, uint32_t n)
{
    int64_t v = exp_raw(s->t, s->col, rpt_self(s->t, n, s->col));

    if (v < 0)
        v = 0;
    for (uint32_t c = s->t->nodes[n].first_child; c != 0; c = s->t->nodes[c].next_sibling)
        v += incl_raw(s, c);
    return v;
}

static void
event(struct ss *s, char type, size_t frame, int64_t at)
{
    fprintf(s->out, "%s{\"type\":\"%c\",\"frame\":%zu,\"at\":%lld}", s->first ? "" : ",\n", type,
            frame, (long long)at);
    s->first = false;
}

static int64_t
walk(struct ss *s, uint32_t n, int64_t at)
{
    const struct rpt_tree *t = s->t;
    int64_t self = exp_raw(t, s->col, rpt_self(t, n, s->col)), end;
    size_t frame = (size_t)s->frame_of_name[t->nodes[n].name] - 1;

    if (self < 0)
        self = 0;
    event(s, 'O', frame, at);
    end = at + self;
    for (uint32_t c = t->nodes[n].first_child; c != 0; c = t->nodes[c].next_sibling)
        if (incl_raw(s, c) > 0)
            end = walk(s, c, end);
    event(s, 'C', frame, end);
    return end;
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
    struct ss s = {t, col, out, NULL, NULL, 0, true};
    uint32_t maxname = 0;
    int64_t total, at = 0;

    for (uint32_t n = 0; n < t->nnodes; n++)
        if (t->nodes[n].name > maxname)
            maxname = t->nodes[n].name;
    s.frame_of_name = calloc((size_t)maxname + 1, sizeof *s.frame_of_name);
    s.frames = malloc((size_t)t->nnodes * sizeof *s.frames);
    if (s.frame_of_name == NULL || s.frames == NULL) {
        free(s.frame_of_name);
        free(s.frames);
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
        if (v->kind != RPT_ROOT && v->file >= 0 && v->file < t->db->nfiles) {
            fputs(",\"file\":", out);
            exp_json_str(out, t->db->files[v->file]);
            if (v->line > 0)
                fprintf(out, ",\"line\":%d", (int)v->line);
        }
        fputc('}', out);
    }
    total = incl_raw(&s, 0);
    fputs("]},\n\"profiles\":[{\"type\":\"evented\",\"name\":", out);
    exp_json_str(out, t->db->metrics[t->metric_of[col]].event);
    fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%lld,\"events\":[\n",
            speedscope_unit(t, col), (long long)total);
    /* the root's own cost is a frame named after the program, like the other exports */
    {
        int64_t self = exp_raw(t, col, rpt_self(t, 0, col));
        if (self > 0) {
            event(&s, 'O', (size_t)s.frame_of_name[t->nodes[0].name] - 1, 0);
            event(&s, 'C', (size_t)s.frame_of_name[t->nodes[0].name] - 1, self);
            at = self;
        }
    }
    for (uint32_t c = t->nodes[0].first_child; c != 0; c = t->nodes[c].next_sibling)
        if (incl_raw(&s, c) > 0)
            at = walk(&s, c, at);
    fputs("]}]}\n", out);
    free(s.frame_of_name);
    free(s.frames);
    return ferror(out) ? -1 : 0;
}
