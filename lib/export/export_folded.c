/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_folded.c -- folded stacks, the input of flamegraph.pl and inferno:
 * one line "outer;...;leaf N" per calling context with self cost, N in the
 * metric's raw unit.  Tool code.
 *
 * Frame names are written as the database holds them, except that ';' (the
 * frame separator) becomes "\x3b", the database's own escape for bytes it
 * cannot print.  Cost that no frame holds (the root's own) is written as a
 * one-frame stack named after the program, so the lines sum to the total.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_internal.h"

struct folded {
    const struct rpt_tree *t;
    int col;
    FILE *out;
    char *path;
    size_t len, cap;
};

static int
append(struct folded *f, const char *s)
{
    size_t need = f->len + 4 * strlen(s) + 2;

    if (need > f->cap) {
        size_t cap = f->cap ? f->cap : 1024;
        char *p;
        while (cap < need)
            cap *= 2;
        p = realloc(f->path, cap);
        if (p == NULL)
            return -1;
        f->path = p;
        f->cap = cap;
    }
    if (f->len > 0)
        f->path[f->len++] = ';';
    for (; *s; s++) {
        if (*s == ';') {
            memcpy(f->path + f->len, "\\x3b", 4);
            f->len += 4;
        } else {
            f->path[f->len++] = *s;
        }
    }
    return 0;
}

static int
walk(struct folded *f, uint32_t n)
{
    const struct rpt_tree *t = f->t;
    size_t saved = f->len;
    int64_t v;

    if (append(f, rpt_tree_name(t, n)) != 0)
        return -1;
    v = exp_raw(t, f->col, rpt_self(t, n, f->col));
    if (v != 0) {
        fwrite(f->path, 1, f->len, f->out);
        fprintf(f->out, " %lld\n", (long long)v);
    }
    for (uint32_t c = t->nodes[n].first_child; c != 0; c = t->nodes[c].next_sibling)
        if (walk(f, c) != 0)
            return -1;
    f->len = saved;
    return 0;
}

int
export_folded(const struct rpt_tree *t, int col, FILE *out)
{
    struct folded f = {t, col, out, NULL, 0, 0};
    int64_t v = exp_raw(t, col, rpt_self(t, 0, col));
    int rc = 0;

    if (v != 0)
        fprintf(out, "%s %lld\n", rpt_tree_name(t, 0), (long long)v);
    for (uint32_t c = t->nodes[0].first_child; c != 0 && rc == 0; c = t->nodes[c].next_sibling)
        rc = walk(&f, c);
    free(f.path);
    if (rc != 0) {
        errno = ENOMEM;
        return -1;
    }
    return ferror(out) ? -1 : 0;
}
