/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_paths.c -- the paths view: the hottest call paths, one line each
 * ("main > solve:12 > kernel"), by the self cost of their last frame,
 * elided in the middle to fit the terminal.  Tool code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_internal.h"

int
export_paths(const struct rpt_tree *t, int col, unsigned limit, unsigned width, FILE *out)
{
    return export_paths_names(t, col, limit, width, false, out);
}

/* One line per hot call path, elided in the middle to fit the width. */
int
export_paths_names(const struct rpt_tree *t, int col, unsigned limit, unsigned width,
                   bool full_names, FILE *out)
{
    char shortened[1024];
    uint32_t *leaf = malloc((size_t)t->nnodes * sizeof *leaf);
    size_t n = 0;
    double total = rpt_incl(t, 0, col);
    char *path = NULL;
    size_t cap = 0;

    if (leaf == NULL) {
        errno = ENOMEM;
        return -1;
    }
    for (uint32_t i = 1; i < t->nnodes; i++)
        if (rpt_self(t, i, col) > 0)
            leaf[n++] = i;
    /* selection by self cost, largest first */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && i < (limit ? (size_t)limit : n); j++)
            if (rpt_self(t, leaf[j], col) > rpt_self(t, leaf[i], col)) {
                uint32_t x = leaf[i];
                leaf[i] = leaf[j];
                leaf[j] = x;
            }
    {
        const struct rpt_metric *m = &t->db->metrics[t->metric_of[col]];
        char line[1024], num[64];
        size_t k = (size_t)snprintf(line, sizeof line, "csprof-report paths: ");

        rpt_db_title(t->db, line + k, sizeof line - k);
        exp_fit(out, line, width);
        fputc('\n', out);
        /* the table views' header, and their number format */
        snprintf(line, sizeof line, "metric %s (%s), self cost of each path's leaf; %% of total %s",
                 m->event, m->unit, exp_text_value_str(num, sizeof num, t, col, total));
        exp_fit(out, line, width);
        fputc('\n', out);
    }
    for (size_t i = 0; i < n && (limit == 0 || i < limit); i++) {
        size_t len = 0, nf = 0, w = width > 24 ? width - 24 : 16, keep_head, keep_tail;
        uint32_t frames[4096];
        for (uint32_t u = leaf[i]; u != 0 && nf < 4096; u = t->nodes[u].parent)
            frames[nf++] = u;
        for (size_t k = nf; k-- > 0;) {
            const char *s = rpt_tree_name(t, frames[k]);
            if (!full_names && text_short_name(shortened, sizeof shortened, s) > 0)
                s = shortened; /* C++ template and parameter lists elided */
            size_t need = len + strlen(s) + 32;
            int32_t line = k > 0 ? t->nodes[frames[k - 1]].cs_line : 0; /* call made from here */
            if (need > cap) {
                cap = need * 2;
                char *p = realloc(path, cap);
                if (p == NULL) {
                    free(path);
                    free(leaf);
                    errno = ENOMEM;
                    return -1;
                }
                path = p;
            }
            len += (size_t)sprintf(path + len, "%s%s", k + 1 == nf ? "" : " > ", s);
            if (line > 0)
                len += (size_t)sprintf(path + len, ":%d", (int)line);
        }
        fprintf(out, "%5.1f%% ", total != 0 ? 100 * rpt_self(t, leaf[i], col) / total : 0);
        exp_text_value(out, t, col, rpt_self(t, leaf[i], col), 10);
        fputs("  ", out);
        if (len <= w) {
            fwrite(path, 1, len, out);
        } else { /* elide the middle, keeping whole UTF-8 characters */
            keep_head = w / 3;
            keep_tail = w - keep_head - 5;
            while (keep_head > 0 && ((unsigned char)path[keep_head] & 0xc0) == 0x80)
                keep_head--;
            while (keep_tail > 0 && ((unsigned char)path[len - keep_tail] & 0xc0) == 0x80)
                keep_tail--;
            fwrite(path, 1, keep_head, out);
            fputs(" \xe2\x80\xa6 ", out);
            fwrite(path + len - keep_tail, 1, keep_tail, out);
        }
        fputc('\n', out);
    }
    free(path);
    free(leaf);
    return ferror(out) ? -1 : 0;
}
