/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_table.c -- views as tables: text that fits a terminal, CSV, and
 * JSON (share/schemas/report-json.md); differential profiles likewise.
 *
 * Tool code.  Children are written in order of the sort column (largest
 * first, ties by name, so output is stable); nodes under the threshold or
 * below the depth limit are not written and are counted in the output.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_internal.h"

int64_t
exp_raw(const struct rpt_tree *t, int col, double v)
{
    const struct rpt_metric *m = &t->db->metrics[t->metric_of[col]];

    return (int64_t)llround(v * m->raw_per_unit);
}

/* ------------------------------------------------------------- quoting */

void
exp_json_str(FILE *out, const char *s)
{
    char buf[256], *tmp = NULL;
    size_t need = text_escaped_size(s);
    const char *p;

    /* names from a database are clean already; anything else is made so */
    if (!text_clean(s)) {
        tmp = need <= sizeof buf ? buf : malloc(need);
        if (tmp != NULL) {
            text_escape(tmp, s);
            s = tmp;
        } else {
            s = "?";
        }
    }
    putc('"', out);
    for (p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7f)
            fprintf(out, "\\u%04x", c); /* also safe inside an HTML <script> */
        else
            putc(c, out);
    }
    putc('"', out);
    if (tmp != NULL && tmp != buf)
        free(tmp);
}

void
exp_csv_str(FILE *out, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, out);
        return;
    }
    putc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            putc('"', out);
        putc(*s, out);
    }
    putc('"', out);
}

/* Display columns of UTF-8 @s (code points; the names hold no controls). */
static size_t
utf8_width(const char *s, size_t n)
{
    size_t w = 0;

    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)s[i] & 0xc0) != 0x80;
    return w;
}

/* Byte length of the longest prefix of @s that is at most @cols columns. */
static size_t
utf8_prefix(const char *s, size_t cols)
{
    size_t i = 0, w = 0;

    while (s[i] != '\0') {
        size_t j = i + 1;
        while (((unsigned char)s[j] & 0xc0) == 0x80)
            j++;
        if (w + 1 > cols)
            break;
        w++;
        i = j;
    }
    return i;
}

/* Write @s in at most @cols columns, ending in an ellipsis when cut. */
void
exp_fit(FILE *out, const char *s, size_t cols)
{
    size_t n = strlen(s);

    if (utf8_width(s, n) <= cols) {
        fputs(s, out);
        return;
    }
    if (cols == 0)
        return;
    fwrite(s, 1, utf8_prefix(s, cols - 1), out);
    fputs("\xe2\x80\xa6", out); /* U+2026 HORIZONTAL ELLIPSIS */
}

/* Write @s (@n bytes) in at most @cols columns: whole, or its head (a third) and its tail
 * with an ellipsis between them. */
static void
fit_middle(FILE *out, const char *s, size_t n, size_t cols)
{
    size_t head, tail, i;

    if (utf8_width(s, n) <= cols) {
        fwrite(s, 1, n, out);
        return;
    }
    if (cols < 2) {
        fputs(cols == 1 ? "\xe2\x80\xa6" : "", out);
        return;
    }
    head = (cols - 1) / 3;
    tail = cols - 1 - head;
    fwrite(s, 1, utf8_prefix(s, head), out);
    fputs("\xe2\x80\xa6", out); /* U+2026 HORIZONTAL ELLIPSIS */
    for (i = n; i > 0 && tail > 0; tail -= (((unsigned char)s[i] & 0xc0) != 0x80))
        i--;
    fwrite(s + i, 1, n - i, out);
}

void
exp_fit_name(FILE *out, const char *s, size_t cols)
{
    size_t n = strlen(s), tag = 0, last = 0, end = n;
    int depth = 0;
    const char *at;

    if (utf8_width(s, n) <= cols) {
        fputs(s, out);
        return;
    }
    /* the name proper: after a "[inline] " tag, before the " @file:line" of its call site */
    if (s[0] == '[' && (at = strstr(s, "] ")) != NULL)
        tag = (size_t)(at - s) + 2;
    if ((at = strstr(s + tag, " @")) != NULL)
        end = (size_t)(at - s);
    /* its scope qualifiers go first ("…run(…) @x.cc:6" for "ns::Worker<…>::run(…) @x.cc:6"):
     * the last component tells names apart, the scopes often do not */
    for (size_t i = tag; i + 1 < end; i++) {
        if (s[i] == '<' || s[i] == '(')
            depth++;
        else if ((s[i] == '>' || s[i] == ')') && depth > 0)
            depth--;
        else if (depth == 0 && s[i] == ':' && s[i + 1] == ':')
            last = i + 2;
    }
    if (last > 0) {
        char *buf = malloc(n + 4);
        if (buf != NULL) {
            snprintf(buf, n + 4, "%.*s\xe2\x80\xa6%s", (int)tag, s, s + last);
            fit_middle(out, buf, strlen(buf), cols);
            free(buf);
            return;
        }
    }
    fit_middle(out, s, n, cols);
}

/* ---------------------------------------------------------- node labels */

static const char *
kind_name(uint8_t kind)
{
    static const char *const names[CSP_SCOPE_NKINDS] = {
        [CSP_SCOPE_ROOT] = "root",  [CSP_SCOPE_PROC] = "frame",     [CSP_SCOPE_INLINE] = "inline",
        [CSP_SCOPE_LOOP] = "loop",  [CSP_SCOPE_STMT] = "statement", [CSP_SCOPE_TRUNC] = "truncated",
        [CSP_SCOPE_GROUP] = "group"};

    return kind < CSP_SCOPE_NKINDS && names[kind] != NULL ? names[kind] : "?";
}

/* Node @n's name for a text row: C++ template and parameter lists elided unless @full. */
static const char *
row_name(const struct rpt_tree *t, uint32_t n, bool full, char *buf, size_t len)
{
    const char *name = rpt_tree_name(t, n);

    if (full || text_short_name(buf, len, name) == 0)
        return name;
    return buf;
}

/* "a @fig1.c:59" for frames entered from a known call site (the line of the caller the
 * call was made from); the name otherwise. */
static void
label(const struct rpt_tree *t, uint32_t n, bool full, char *buf, size_t len)
{
    const struct rpt_vnode *v = &t->nodes[n];
    char shortened[1024];
    const char *name = row_name(t, n, full, shortened, sizeof shortened);

    if ((v->kind == CSP_SCOPE_PROC || v->kind == CSP_SCOPE_INLINE) && v->cs_line > 0)
        snprintf(buf, len, "%s%s @%s:%d", v->kind == CSP_SCOPE_INLINE ? "[inline] " : "", name,
                 rpt_file_base(t->db, v->cs_file), (int)v->cs_line);
    else
        snprintf(buf, len, "%s%s", v->kind == CSP_SCOPE_INLINE ? "[inline] " : "", name);
}

/* ------------------------------------------------------------- ordering */

struct sort_ctx {
    const struct rpt_tree *t;
    int col, col2; /* col2 >= 0: diffs sort by |col2 - col| */
    enum exp_sort sort;
};

static double
sort_value(const struct sort_ctx *c, uint32_t n)
{
    const struct rpt_tree *t = c->t;
    double calls = t->nodes[n].calls;

    switch (c->sort) {
    case EXP_SORT_EXCLUSIVE:
        return rpt_self(t, n, c->col);
    case EXP_SORT_CALLS:
        return calls;
    case EXP_SORT_PER_CALL:
        return calls > 0 ? rpt_incl(t, n, c->col) / calls : -1;
    case EXP_SORT_DELTA:
        if (c->col2 >= 0)
            return fabs(rpt_incl(t, n, c->col2) - rpt_incl(t, n, c->col));
        return fabs(rpt_incl(t, n, c->col));
    case EXP_SORT_DELTA_EXCLUSIVE:
        if (c->col2 >= 0)
            return fabs(rpt_self(t, n, c->col2) - rpt_self(t, n, c->col));
        return fabs(rpt_self(t, n, c->col));
    default:
        return fabs(rpt_incl(t, n, c->col));
    }
}

static int
cmp_nodes(const void *a, const void *b, void *arg)
{
    const struct sort_ctx *c = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int r;

    if (c->sort != EXP_SORT_NAME) {
        double vx = sort_value(c, x), vy = sort_value(c, y);
        if (vx != vy)
            return vx > vy ? -1 : 1;
    }
    r = strcmp(rpt_tree_name(c->t, x), rpt_tree_name(c->t, y));
    if (r != 0)
        return r;
    if (c->t->nodes[x].cs_line != c->t->nodes[y].cs_line)
        return c->t->nodes[x].cs_line < c->t->nodes[y].cs_line ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The children of @n in output order; *count gets their number.  NULL on ENOMEM/none. */
static uint32_t *
sorted_children(const struct sort_ctx *c, uint32_t n, size_t *count)
{
    const struct rpt_tree *t = c->t;
    size_t k = 0;
    uint32_t *v;

    for (uint32_t ch = t->nodes[n].first_child; ch != 0; ch = t->nodes[ch].next_sibling)
        k++;
    *count = k;
    if (k == 0)
        return NULL;
    v = malloc(k * sizeof *v);
    if (v == NULL)
        return NULL;
    k = 0;
    for (uint32_t ch = t->nodes[n].first_child; ch != 0; ch = t->nodes[ch].next_sibling)
        v[k++] = ch;
    qsort_r(v, k, sizeof *v, cmp_nodes, (void *)c);
    return v;
}

static uint64_t
subtree_size(const struct rpt_tree *t, uint32_t n)
{
    uint64_t k = 1;

    for (uint32_t ch = t->nodes[n].first_child; ch != 0; ch = t->nodes[ch].next_sibling)
        k += subtree_size(t, ch);
    return k;
}

/* --------------------------------------------------------------- values */

static const char *
unit_of(const struct rpt_tree *t, int col)
{
    const char *u = t->db->metrics[t->metric_of[col]].unit;

    return u != NULL ? u : "";
}

static const char *
event_of(const struct rpt_tree *t, int col)
{
    return t->db->metrics[t->metric_of[col]].event;
}

/* How a metric's values read for people (issue 22, item 7). */
enum human_kind { H_OTHER, H_TIME, H_BYTES, H_COUNT };

static enum human_kind
human_kind(const struct rpt_metric *m, double *to_base)
{
    const char *u = m->unit != NULL ? m->unit : "";
    static const char *const counts[] = {"samples", "events", "calls",        "processes",
                                         "threads", "count",  "instructions", "cycles"};

    *to_base = 1;
    if (strcmp(u, "s") == 0)
        return H_TIME;
    if (strcmp(u, "ns") == 0) {
        *to_base = 1e-9;
        return H_TIME;
    }
    if (strcmp(u, "bytes") == 0 || strcmp(u, "B") == 0)
        return H_BYTES;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (strcmp(u, counts[i]) == 0)
            return H_COUNT;
    if (m->formula == NULL && m->integral && m->raw_per_unit == 1)
        return H_COUNT; /* a measured event counted in its own unit */
    return H_OTHER;
}

/* Display columns of @s (code points; the strings hold no controls). */
static size_t
utf8_cols(const char *s)
{
    size_t w = 0;

    for (; *s; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

size_t
exp_human(char *buf, size_t size, const struct rpt_metric *m, double v, bool word)
{
    static const char *const time_s[] = {"ns", "\xc2\xb5s", "ms", "s"}; /* U+00B5 MICRO SIGN */
    static const char *const byte_s[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    static const char *const count_s[] = {"", "k", "M", "G", "T", "P"};
    double to_base, a, mant;
    enum human_kind k = human_kind(m, &to_base);
    const char *const *sfx;
    int nsfx, dec, sw, i = 0;
    double base, scale = 1;
    bool whole;

    if (size == 0)
        return 0;
    if (k == H_OTHER || !isfinite(v)) { /* fixed point unless that loses digits */
        if (fabs(v) >= 1e5 || (v != 0 && fabs(v) < 0.9995e-3))
            snprintf(buf, size, "%.3g", v);
        else
            snprintf(buf, size, "%.4f", v);
        if (word && m->unit != NULL && m->unit[0] != '\0')
            snprintf(buf + strlen(buf), size - strlen(buf), " %s", m->unit);
        return utf8_cols(buf);
    }
    v *= to_base;
    a = fabs(v);
    if (k == H_TIME) { /* ns .. s: the largest unit the value is at least 1 of */
        sfx = time_s, nsfx = 4, dec = 2, sw = 2, base = 1000;
        scale = 1e-9;
        while (i + 1 < nsfx && a >= scale * base * (1 - 0.5e-2 / base))
            scale *= base, i++;
    } else {
        sfx = k == H_BYTES ? byte_s : count_s, nsfx = 6, dec = 1;
        sw = k == H_BYTES ? 3 : 1, base = k == H_BYTES ? 1024 : 1000;
        while (i + 1 < nsfx && a >= scale * base * (1 - 0.5e-1 / base))
            scale *= base, i++;
    }
    mant = v / scale;
    /* whole counts and bytes in the base unit, and 0, print without decimals; blanks keep
     * the units digit where the decimal columns' is */
    whole = (k != H_TIME && i == 0 && fabs(mant - round(mant)) < 1e-9) || v == 0;
    {
        const char *u = v == 0 ? "" : sfx[i], *unit = m->unit != NULL ? m->unit : "";
        int n = whole ? snprintf(buf, size, "%.0f", mant) : snprintf(buf, size, "%.*f", dec, mant);
        size_t at = n > 0 && (size_t)n < size ? (size_t)n : strlen(buf);
        if (word) /* in a sentence: "1.28 s", "2.0 GiB", "12.3 k samples", "812 samples" */
            snprintf(buf + at, size - at, "%s%s%s%s", u[0] ? " " : "", u,
                     k == H_COUNT && unit[0] ? " " : "", k == H_COUNT ? unit : "");
        else /* in a column: whole values leave their decimals blank, so that right-aligned
                cells line up their units digits (and decimal points) */
            snprintf(buf + at, size - at, "%*s %s%*s", whole ? dec + 1 : 0, "", u,
                     sw - (int)utf8_cols(u), "");
    }
    return utf8_cols(buf);
}

void
exp_put_human(FILE *out, const struct rpt_metric *m, double v, int w)
{
    char buf[64];
    size_t cols = exp_human(buf, sizeof buf, m, v, false);

    fprintf(out, "%*s%s", w > (int)cols ? w - (int)cols : 0, "", buf);
}

void
exp_text_value(FILE *out, const struct rpt_tree *t, int col, double v, int w)
{
    exp_put_human(out, &t->db->metrics[t->metric_of[col]], v, w);
}

char *
exp_text_value_str(char *buf, size_t size, const struct rpt_tree *t, int col, double v)
{
    exp_human(buf, size, &t->db->metrics[t->metric_of[col]], v, true);
    return buf;
}

static double
pct(double v, double total)
{
    return total != 0 ? 100.0 * v / total : 0;
}

/* ---------------------------------------------------------- the writer */

struct table {
    const struct rpt_tree *t;
    const struct exp_table_options *opt;
    struct sort_ctx sc;
    FILE *out;
    double total;
    uint64_t hidden; /* nodes not written (threshold, depth, limit) */
    uint64_t written;
    size_t name_cols;
    bool first_json;
    int err;
    int samples_col;     /* the column holding the samples behind tb->opt->column's values, or -1 */
    double per_sample;   /* else its value per sample (the Ledger's), 0 when unknown */
    bool any_calls;      /* a row showed calls */
    bool blank_per_call; /* a row's incl/call was left blank: few samples per call */
    uint32_t shared_callees_min, shared_callees_max; /* callees of the indirect call sites of
                                                        the rows shown (0: none) */
};

/* Samples a value of a metric is the sum of, below which incl/call is left blank: fewer
 * than PER_CALL_MIN_SAMPLES in all, or fewer than PER_CALL_MIN_RATIO per counted call (a
 * short function's incl/call would otherwise be about one sample period, whatever it costs). */
#define PER_CALL_MIN_SAMPLES 10
#define PER_CALL_MIN_RATIO   2

/* Where the samples behind column @col come from, as rpt_diff_count() reads them: the
 * samples column itself, the samples column when the run measured one event, else the
 * event's total over its Ledger's samples. */
static void
samples_source(struct table *tb, int col)
{
    const struct rpt_tree *t = tb->t;
    int samples = -1, events = 0;
    double n;

    for (int c = 0; c < t->nvalues; c++) {
        if (strcmp(event_of(t, c), "samples") == 0)
            samples = c;
        else
            events++;
    }
    tb->samples_col = -1;
    tb->per_sample = 0;
    if (samples >= 0 && (col == samples || events == 1))
        tb->samples_col = samples;
    else if ((n = rpt_ledger_samples(t->db, event_of(t, col))) > 0)
        tb->per_sample = rpt_incl(t, 0, col) / n;
    else if (samples >= 0)
        tb->samples_col = samples; /* all events' samples: an upper bound */
}

/* Inclusive samples behind node @n's value, or -1 when unknown. */
static double
samples_behind(const struct table *tb, uint32_t n)
{
    if (tb->samples_col >= 0)
        return rpt_incl(tb->t, n, tb->samples_col);
    if (tb->per_sample > 0)
        return rpt_incl(tb->t, n, tb->opt->column) / tb->per_sample;
    return -1;
}

/* Whether node @n's incl/call means something: enough samples in all and per call, and
 * calls of its own (not its indirect call site's, shared with other callees). */
static bool
per_call_meaningful(const struct table *tb, uint32_t n)
{
    const struct rpt_vnode *v = &tb->t->nodes[n];
    double k = samples_behind(tb, n);

    return v->calls > 0 && v->calls_callees <= 1 && k >= PER_CALL_MIN_SAMPLES &&
           k >= PER_CALL_MIN_RATIO * v->calls;
}

/* Text rows: value columns of FIXED_WIDE (or, below 90 columns, FIXED_NARROW: no calls) */
#define FIXED_WIDE   57
#define FIXED_NARROW 37

/* Write @s wrapped at blanks to lines of at most @width columns, continuation lines
 * indented by 2 (a word longer than a line is cut by exp_fit). */
static void
text_wrap(FILE *out, const char *s, size_t width)
{
    size_t col = 0;

    while (*s != '\0') {
        size_t len = strcspn(s, " "), w = utf8_width(s, len);
        if (col > 0 && col + 1 + w > width) {
            fputs("\n  ", out);
            col = 2;
        } else if (col > 0) {
            fputc(' ', out);
            col++;
        }
        if (col + w > width) {
            char word[512];
            snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word ? len : sizeof word - 1),
                     s);
            exp_fit(out, word, width - col);
            col = width;
        } else {
            fwrite(s, 1, len, out);
            col += w;
        }
        s += len;
        while (*s == ' ')
            s++;
    }
    fputc('\n', out);
}

/* Under a table with calls: what the calls column counts, and why some cells are blank. */
static void
calls_legend(struct table *tb)
{
    char line[512];

    if (tb->opt->format != EXP_TEXT || tb->opt->width < 90 || !tb->any_calls)
        return;
    text_wrap(tb->out,
              "calls* = calls (sampled): calls counted by the trampoline at sampled contexts, a "
              "lower bound",
              tb->opt->width);
    if (tb->blank_per_call) {
        snprintf(line, sizeof line,
                 "incl/call -: under %d samples, or under %d per call (it would be about the "
                 "sample period), or calls \xe2\x80\xa0",
                 PER_CALL_MIN_SAMPLES, PER_CALL_MIN_RATIO);
        text_wrap(tb->out, line, tb->opt->width);
    }
    if (tb->shared_callees_max > 1) {
        char n[32];
        if (tb->shared_callees_min == tb->shared_callees_max)
            snprintf(n, sizeof n, "%u", tb->shared_callees_max);
        else
            snprintf(n, sizeof n, "%u to %u", tb->shared_callees_min, tb->shared_callees_max);
        snprintf(line, sizeof line,
                 "\xe2\x80\xa0 calls of the call site, shared by its %s callees (indirect call)",
                 n);
        text_wrap(tb->out, line, tb->opt->width);
    }
}

static void
text_line(struct table *tb, const char *s)
{
    exp_fit(tb->out, s, tb->opt->width);
    fputc('\n', tb->out);
}

static void
text_header(struct table *tb)
{
    const struct rpt_tree *t = tb->t;
    const struct rpt_db *db = t->db;
    const char *unit = unit_of(t, tb->opt->column);
    char line[2048], num[64];
    size_t n = 0;

    n = (size_t)snprintf(line, sizeof line, "csprof-report %s: ", tb->opt->view);
    rpt_db_title(db, line + n, sizeof line - n);
    n = 0;
    text_line(tb, line);
    snprintf(line, sizeof line, "metric %s (%s); %% of total %s", event_of(t, tb->opt->column),
             unit, exp_text_value_str(num, sizeof num, t, tb->opt->column, tb->total));
    text_line(tb, line);
    line[0] = '\0';
    if (db->samples >= 0)
        n += (size_t)snprintf(line + n, sizeof line - n, "%.0f samples", db->samples);
    if (db->threads >= 0 && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, ", %.0f thread(s)", db->threads);
    if (db->processes >= 0 && n < sizeof line)
        n += (size_t)snprintf(line + n, sizeof line - n, ", %.0f process(es)", db->processes);
    if (db->rooted_percent >= 0 && n < sizeof line)
        snprintf(line + n, sizeof line - n, "; %.1f%% rooted", db->rooted_percent);
    if (line[0] != '\0')
        text_line(tb, line);
    /* the label's line is the caller's, which readers take for f's own */
    if (tb->opt->tree)
        text_wrap(tb->out,
                  strcmp(tb->opt->view, "bottom-up") == 0
                      ? "caller @file:line = the call site in that caller: the line it called "
                        "the row above from"
                      : "f @file:line = f called from that line (the call site in its caller)",
                  tb->opt->width);
    if (tb->opt->width >= 90)
        fprintf(tb->out, "%10s %6s %10s %6s %7s  %10s  ", "inclusive", "%", "exclusive", "%",
                "calls*", "incl/call");
    else
        fprintf(tb->out, "%10s %6s %10s %6s  ", "inclusive", "%", "exclusive", "%");
    if (tb->opt->derived != NULL) {
        char a[64], b[64];
        snprintf(a, sizeof a, "%.6s (I)", tb->opt->derived_name);
        snprintf(b, sizeof b, "%.6s (E)", tb->opt->derived_name);
        fprintf(tb->out, "%10s %10s  ", a, b);
    }
    exp_fit(tb->out,
            strcmp(tb->opt->view, "bottom-up") == 0 ? "procedure (callers below)"
            : strcmp(tb->opt->view, "flat") == 0    ? "scope"
                                                    : "calling context",
            tb->name_cols);
    fputc('\n', tb->out);
}

static void
write_row(struct table *tb, uint32_t n, uint32_t parent_out, unsigned depth)
{
    const struct rpt_tree *t = tb->t;
    const struct rpt_vnode *v = &t->nodes[n];
    int col = tb->opt->column;
    double incl = rpt_incl(t, n, col), self = rpt_self(t, n, col), calls = v->calls;
    char name[1200];
    FILE *out = tb->out;

    label(t, n, tb->opt->full_names, name, sizeof name);
    tb->written++;
    switch (tb->opt->format) {
    case EXP_TEXT: {
        size_t indent = tb->opt->tree ? 2 * (size_t)depth : 0, cols = tb->name_cols;
        exp_text_value(out, t, col, incl, 10);
        fprintf(out, " %5.1f%% ", pct(incl, tb->total));
        exp_text_value(out, t, col, self, 10);
        fprintf(out, " %5.1f%% ", pct(self, tb->total));
        if (tb->opt->width < 90) {
            fputs(" ", out);
        } else if (calls > 0) {
            /* "521†": the calls of an indirect call site, shared by its callees */
            static char calls_unit[] = "calls";
            const struct rpt_metric count = {.unit = calls_unit, .integral = true};
            char num[48];
            if (calls < 1e5)
                snprintf(num, sizeof num, "%.0f", calls);
            else
                exp_human(num, sizeof num, &count, calls, false);
            fprintf(out, "%7.7s", num);
            tb->any_calls = true;
            fputs(v->calls_callees > 1 ? "\xe2\x80\xa0 " : "  ", out); /* U+2020 DAGGER */
            if (v->calls_callees > 1) {
                if (v->calls_callees > tb->shared_callees_max)
                    tb->shared_callees_max = v->calls_callees;
                if (tb->shared_callees_min == 0 || v->calls_callees < tb->shared_callees_min)
                    tb->shared_callees_min = v->calls_callees;
            }
            if (per_call_meaningful(tb, n)) {
                exp_text_value(out, t, col, incl / calls, 10);
            } else {
                fprintf(out, "%10s", "-");
                tb->blank_per_call = true;
            }
            fputs("  ", out);
        } else {
            fprintf(out, "%7s  %10s  ", "-", "-");
        }
        if (tb->opt->derived != NULL)
            fprintf(out, "%10.4g %10.4g  ", rpt_formula_eval(tb->opt->derived, t, n, true),
                    rpt_formula_eval(tb->opt->derived, t, n, false));
        if (indent > cols / 2) { /* deep paths: show the depth instead of more indentation */
            char mark[32];
            int k = snprintf(mark, sizeof mark, "[%u] ", depth);
            indent = cols / 2 > (size_t)k ? cols / 2 - (size_t)k : 0;
            fprintf(out, "%*s%s", (int)indent, "", mark);
            indent += (size_t)k;
        } else {
            fprintf(out, "%*s", (int)indent, "");
        }
        exp_fit_name(out, name, cols > indent ? cols - indent : 1);
        fputc('\n', out);
        break;
    }
    case EXP_CSV:
        fprintf(out, "%u,%u,%u,%s,", n, parent_out, depth, kind_name(v->kind));
        exp_csv_str(out, rpt_tree_name(t, n));
        fprintf(out, ",");
        exp_csv_str(out, v->file >= 0 && v->file < t->db->nfiles ? t->db->files[v->file] : "");
        fprintf(out, ",%d,", (int)v->line);
        exp_csv_str(out,
                    v->cs_file >= 0 && v->cs_file < t->db->nfiles ? t->db->files[v->cs_file] : "");
        fprintf(out, ",%d,%.10g,%.10g,%.4f,%.4f,%.0f,", (int)v->cs_line, incl, self,
                pct(incl, tb->total), pct(self, tb->total), calls);
        if (calls > 0)
            fprintf(out, "%.10g", incl / calls);
        if (tb->opt->derived != NULL)
            fprintf(out, ",%.10g,%.10g", rpt_formula_eval(tb->opt->derived, t, n, true),
                    rpt_formula_eval(tb->opt->derived, t, n, false));
        fputc('\n', out);
        break;
    case EXP_JSON:
        fprintf(out,
                "%s\n    {\"id\": %u, \"parent\": %u, \"depth\": %u, \"kind\": \"%s\", \"name\": ",
                tb->first_json ? "" : ",", n, parent_out, depth, kind_name(v->kind));
        tb->first_json = false;
        exp_json_str(out, rpt_tree_name(t, n));
        if (v->lm >= 0 && v->lm < t->db->nmodules) {
            fputs(", \"module\": ", out);
            exp_json_str(out, t->db->modules[v->lm].name);
        }
        if (v->file >= 0 && v->file < t->db->nfiles) {
            fputs(", \"file\": ", out);
            exp_json_str(out, t->db->files[v->file]);
        }
        if (v->line > 0)
            fprintf(out, ", \"line\": %d", (int)v->line);
        if (v->cs_line > 0) {
            fputs(", \"callsite\": {\"file\": ", out);
            exp_json_str(out, v->cs_file >= 0 && v->cs_file < t->db->nfiles
                                  ? t->db->files[v->cs_file]
                                  : "?");
            fprintf(out, ", \"line\": %d}", (int)v->cs_line);
        }
        fprintf(out, ", \"inclusive\": %.10g, \"exclusive\": %.10g, \"calls\": %.0f", incl, self,
                calls);
        if (calls > 0 && v->calls_callees > 1)
            fprintf(out, ", \"calls_per_call_site\": true, \"call_site_callees\": %u",
                    v->calls_callees);
        fputs(", \"values\": [", out);
        for (int c = 0; c < t->nvalues; c++)
            fprintf(out, "%s[%.10g, %.10g]", c ? ", " : "", rpt_incl(t, n, c), rpt_self(t, n, c));
        fputc(']', out);
        if (tb->opt->derived != NULL)
            fprintf(out, ", \"derived\": [%.10g, %.10g]",
                    rpt_formula_eval(tb->opt->derived, t, n, true),
                    rpt_formula_eval(tb->opt->derived, t, n, false));
        fputc('}', out);
        break;
    }
}

static bool
visible(struct table *tb, uint32_t n, unsigned depth)
{
    double v = fabs(rpt_incl(tb->t, n, tb->opt->column));

    if (tb->opt->max_depth != 0 && depth > tb->opt->max_depth)
        return false;
    return tb->opt->threshold <= 0 || v >= tb->opt->threshold / 100.0 * fabs(tb->total);
}

static void
walk(struct table *tb, uint32_t n, uint32_t parent_out, unsigned depth)
{
    size_t k = 0, limit = tb->opt->limit;
    uint32_t *ch;

    if (depth > 0)
        write_row(tb, n, parent_out, depth);
    ch = sorted_children(&tb->sc, n, &k);
    if (k > 0 && ch == NULL) {
        tb->err = ENOMEM;
        return;
    }
    for (size_t i = 0; i < k; i++) {
        if ((depth == 0 && limit != 0 && i >= limit) || !visible(tb, ch[i], depth + 1)) {
            tb->hidden += subtree_size(tb->t, ch[i]);
            continue;
        }
        walk(tb, ch[i], n, depth + 1);
    }
    free(ch);
}

int
export_table(const struct rpt_tree *t, const struct exp_table_options *opt, FILE *out)
{
    struct table tb;
    int col = opt->column;

    memset(&tb, 0, sizeof tb);
    tb.t = t;
    tb.opt = opt;
    tb.out = out;
    tb.total = rpt_incl(t, 0, col);
    tb.sc = (struct sort_ctx){t, col, -1, opt->sort};
    tb.first_json = true;
    samples_source(&tb, col);
    {
        unsigned fixed = (opt->width >= 90 ? FIXED_WIDE : FIXED_NARROW) + (opt->derived ? 22 : 0);
        tb.name_cols = opt->width > fixed + 12 ? opt->width - fixed : 12;
    }
    switch (opt->format) {
    case EXP_TEXT:
        text_header(&tb);
        break;
    case EXP_CSV:
        fputs("id,parent,depth,kind,name,file,line,callsite_file,callsite_line,inclusive,exclusive,"
              "inclusive_percent,exclusive_percent,calls,inclusive_per_call",
              out);
        fputs(opt->derived != NULL ? ",derived_inclusive,derived_exclusive\n" : "\n", out);
        break;
    case EXP_JSON:
        fputs("{\n  \"format\": \"csprof-report\",\n  \"version\": 1,\n  \"view\": ", out);
        exp_json_str(out, opt->view);
        fputs(",\n  \"database\": ", out);
        exp_json_str(out, t->db->path);
        fputs(",\n  \"program\": ", out);
        exp_json_str(out, t->db->program != NULL ? t->db->program : "");
        fputs(",\n  \"metric\": {\"event\": ", out);
        exp_json_str(out, event_of(t, col));
        fputs(", \"unit\": ", out);
        exp_json_str(out, unit_of(t, col));
        fprintf(out, ", \"column\": %d},\n", col);
        if (opt->derived != NULL) {
            fputs("  \"derived\": {\"name\": ", out);
            exp_json_str(out, opt->derived_name);
            fputs(", \"formula\": ", out);
            exp_json_str(out, opt->derived_formula != NULL ? opt->derived_formula : "");
            fputs("},\n", out);
        }
        fputs("  \"columns\": [", out);
        for (int c = 0; c < t->nvalues; c++) {
            fputs(c ? ", {\"event\": " : "{\"event\": ", out);
            exp_json_str(out, event_of(t, c));
            fputs(", \"unit\": ", out);
            exp_json_str(out, unit_of(t, c));
            fputc('}', out);
        }
        fprintf(
            out,
            "],\n  \"total\": %.10g,\n  \"root\": {\"inclusive\": %.10g, \"exclusive\": %.10g},\n"
            "  \"threshold_percent\": %g,\n  \"nodes\": [",
            tb.total, tb.total, rpt_self(t, 0, col), opt->threshold);
        break;
    }
    walk(&tb, 0, 0, 0);
    switch (opt->format) {
    case EXP_TEXT:
        if (rpt_self(t, 0, col) != 0) {
            char num[64];
            fprintf(out, "(cost outside any shown frame: %s)\n",
                    exp_text_value_str(num, sizeof num, t, col, rpt_self(t, 0, col)));
        }
        calls_legend(&tb);
        if (tb.hidden > 0)
            fprintf(out, "(%llu nodes not shown: %s)\n", (unsigned long long)tb.hidden,
                    opt->threshold > 0 ? "--threshold, --depth, --limit" : "--depth, --limit");
        if (t->db_total_difference > 1e-6 * fabs(tb.total) + 1e-12) {
            char line[160];
            snprintf(line, sizeof line, "(warning: the tree is %g off the stored total)",
                     t->db_total_difference);
            exp_fit(out, line, opt->width);
            fputc('\n', out);
        }
        break;
    case EXP_CSV:
        break;
    case EXP_JSON:
        fprintf(out, "\n  ],\n  \"nodes_not_shown\": %llu\n}\n", (unsigned long long)tb.hidden);
        break;
    }
    if (tb.err != 0) {
        errno = tb.err;
        return -1;
    }
    return ferror(out) ? -1 : 0;
}

/* ----------------------------------------------------------------- diff */

struct diff {
    const struct rpt_tree *uni; /* the union (count sources) */
    const struct rpt_tree *t;   /* the section's tree: the union or its flat view */
    const struct exp_table_options *opt;
    FILE *out;
    int cb, cc; /* base and current columns */
    double tb, tc;
    bool incl;    /* the measure: inclusive values, or self (--sort exclusive) */
    double z;     /* the section's normal quantile (rpt_diff_z) */
    uint8_t *sig; /* per node of t: 1 significant, 2 a descendant is (--significant) */
    struct sort_ctx sc;
    bool first;
    uint64_t hidden, not_significant;
    size_t name_cols;
    const char *section;
};

/* Which side had an inlined (@inl) or out-of-line instance: "", "base", "current", "base;current". */
static const char *
diff_sides(uint8_t f, bool inl)
{
    static const char *const s[] = {"", "base", "current", "base;current"};
    unsigned b = inl ? RPT_DIFF_INLINED_BASE : RPT_DIFF_OUTLINED_BASE;
    unsigned c = inl ? RPT_DIFF_INLINED_CUR : RPT_DIFF_OUTLINED_CUR;

    return s[((f & b) ? 1 : 0) | ((f & c) ? 2 : 0)];
}

/* "[inline] f @x.c:52" as in the tables; a procedure inlined on one side only is
 * "[inline in base] f", in some instances only "[partly inline] f"; a call that moved
 * "f @x.c:52→54". */
static void
diff_label(const struct rpt_tree *t, uint32_t n, bool full, char *buf, size_t len)
{
    char shortened[1024];
    const struct rpt_vnode *v = &t->nodes[n];
    unsigned f = v->diff, inl = f & (RPT_DIFF_INLINED_BASE | RPT_DIFF_INLINED_CUR);
    unsigned outl = f & (RPT_DIFF_OUTLINED_BASE | RPT_DIFF_OUTLINED_CUR);
    const char *pre = inl && !outl ? "[inline] " : "";
    char at[64] = "";

    if (v->kind == CSP_SCOPE_PROC && v->cs_line > 0) {
        if (f & RPT_DIFF_MOVED)
            snprintf(at, sizeof at, " @%s:%d\xe2\x86\x92%d", rpt_file_base(t->db, v->cs_file),
                     (int)v->cs_line, (int)v->cur_cs_line); /* U+2192 RIGHTWARDS ARROW */
        else
            snprintf(at, sizeof at, " @%s:%d", rpt_file_base(t->db, v->cs_file), (int)v->cs_line);
    }
    if (inl && outl)
        pre = inl == RPT_DIFF_INLINED_BASE && outl == RPT_DIFF_OUTLINED_CUR ? "[inline in base] "
              : inl == RPT_DIFF_INLINED_CUR && outl == RPT_DIFF_OUTLINED_BASE
                  ? "[inline in current] "
                  : "[partly inline] ";
    snprintf(buf, len, "%s%s%s", pre, row_name(t, n, full, shortened, sizeof shortened), at);
}

static void
diff_row(struct diff *d, uint32_t n, uint32_t parent_out, unsigned depth)
{
    const struct rpt_tree *t = d->t;
    const struct rpt_vnode *v = &t->nodes[n];
    double b = rpt_incl(t, n, d->cb), c = rpt_incl(t, n, d->cc);
    double bs = rpt_self(t, n, d->cb), cs = rpt_self(t, n, d->cc);
    struct rpt_change ch;
    FILE *out = d->out;
    char name[1200];

    rpt_diff_change(d->uni, t, n, d->cb, d->incl, d->z, &ch);
    diff_label(t, n, d->opt->full_names, name, sizeof name);
    switch (d->opt->format) {
    case EXP_TEXT: {
        size_t indent = d->opt->tree ? 2 * (size_t)depth : 0;
        if (indent > d->name_cols / 2)
            indent = d->name_cols / 2;
        exp_text_value(out, t, d->cb, ch.base, 10);
        fputc(' ', out);
        exp_text_value(out, t, d->cb, ch.cur, 10);
        fputc(' ', out);
        exp_text_value(out, t, d->cb, ch.cur - ch.base, 10);
        fprintf(out, " %+7.2f%% ", ch.cur_share - ch.base_share);
        if (isnan(ch.lo))
            fprintf(out, "%15s", "-");
        else
            fprintf(out, "[%+6.2f,%+6.2f]", ch.lo, ch.hi);
        fprintf(out, " %c %*s", ch.significant ? '*' : ' ', (int)indent, "");
        exp_fit_name(out, name, d->name_cols - indent);
        fputc('\n', out);
        break;
    }
    case EXP_CSV:
        fprintf(out, "%s,%u,%u,%u,", d->section, n, parent_out, depth);
        exp_csv_str(out, rpt_tree_name(t, n));
        fprintf(out, ",%d,%.10g,%.10g,%.10g,%.10g,%.10g,%.6f,%.10g,%.10g,", (int)v->cs_line, b, c,
                bs, cs, ch.cur - ch.base, ch.cur_share - ch.base_share, ch.base_n, ch.cur_n);
        if (!isnan(ch.lo))
            fprintf(out, "%.6f,%.6f", ch.lo, ch.hi);
        else
            fputc(',', out);
        fprintf(out, ",%d,%s,%s,%d\n", ch.significant, diff_sides(v->diff, true),
                diff_sides(v->diff, false), (v->diff & RPT_DIFF_MOVED) ? (int)v->cur_cs_line : 0);
        break;
    case EXP_JSON:
        fprintf(out,
                "%s\n    {\"id\": %u, \"parent\": %u, \"depth\": %u, \"kind\": \"%s\", \"name\": ",
                d->first ? "" : ",", n, parent_out, depth, kind_name(v->kind));
        d->first = false;
        exp_json_str(out, rpt_tree_name(t, n));
        if (v->cs_line > 0)
            fprintf(out, ", \"callsite_line\": %d", (int)v->cs_line);
        if (v->diff & RPT_DIFF_MOVED)
            fprintf(out, ", \"current_callsite_line\": %d", (int)v->cur_cs_line);
        for (int k = 0; k < 2; k++) {
            const char *sides = diff_sides(v->diff, k == 0);
            fprintf(out, ", \"%s\": [%s%s%s]", k == 0 ? "inlined" : "out_of_line",
                    sides[0] == 'b' ? "\"base\"" : "", strchr(sides, ';') != NULL ? ", " : "",
                    strstr(sides, "current") != NULL ? "\"current\"" : "");
        }
        fprintf(out,
                ", \"base\": {\"inclusive\": %.10g, \"exclusive\": %.10g}, \"current\": "
                "{\"inclusive\": %.10g, \"exclusive\": %.10g}, \"delta\": %.10g, "
                "\"delta_exclusive\": %.10g, \"delta_normalized_percent\": %.6f, "
                "\"samples\": {\"base\": %.10g, \"current\": %.10g}, \"interval\": ",
                b, bs, c, cs, c - b, cs - bs, ch.cur_share - ch.base_share, ch.base_n, ch.cur_n);
        if (isnan(ch.lo))
            fputs("null", out);
        else
            fprintf(out, "[%.6f, %.6f]", ch.lo, ch.hi);
        fprintf(out, ", \"significant\": %s}", ch.significant ? "true" : "false");
        break;
    }
}

static bool
diff_visible(struct diff *d, uint32_t n, unsigned depth)
{
    double b = fabs(rpt_incl(d->t, n, d->cb)), c = fabs(rpt_incl(d->t, n, d->cc));
    double thr = d->opt->threshold / 100.0;

    if (d->opt->max_depth != 0 && depth > d->opt->max_depth)
        return false;
    return d->opt->threshold <= 0 || b >= thr * fabs(d->tb) || c >= thr * fabs(d->tc);
}

static void
diff_walk(struct diff *d, uint32_t n, uint32_t parent_out, unsigned depth, unsigned max_rows)
{
    size_t k = 0, shown = 0;
    uint32_t *ch;

    if (depth > 0)
        diff_row(d, n, parent_out, depth);
    ch = sorted_children(&d->sc, n, &k);
    for (size_t i = 0; ch != NULL && i < k; i++) {
        if (d->sig != NULL && d->sig[ch[i]] == 0) {
            d->not_significant += subtree_size(d->t, ch[i]);
            continue;
        }
        if ((max_rows != 0 && shown >= max_rows) || !diff_visible(d, ch[i], depth + 1)) {
            d->hidden += subtree_size(d->t, ch[i]);
            continue;
        }
        shown++;
        diff_walk(d, ch[i], n, depth + 1, max_rows);
    }
    free(ch);
}

/* The significance of every node of d->t: 1 significant, 2 with a significant descendant
 * (kept in a tree as the path to it), 0 neither.  Returns 0 or -1 (ENOMEM). */
static int
diff_mark(struct diff *d)
{
    const struct rpt_tree *t = d->t;

    d->sig = calloc(t->nnodes ? t->nnodes : 1, 1);
    if (d->sig == NULL)
        return -1;
    for (uint32_t n = t->nnodes; n-- > 1;) {
        struct rpt_change ch;
        rpt_diff_change(d->uni, t, n, d->cb, d->incl, d->z, &ch);
        if (ch.significant)
            d->sig[n] = 1;
        if (d->sig[n] != 0 && d->sig[t->nodes[n].parent] == 0)
            d->sig[t->nodes[n].parent] = 2;
    }
    return 0;
}

int
export_diff(const struct rpt_tree *uni, const struct rpt_tree *flat,
            const struct exp_table_options *opt, const char *base_name, const char *cur_name,
            FILE *out)
{
    struct diff d;
    int half = uni->nvalues / 2;
    const struct rpt_tree *parts[2] = {flat, uni};
    const char *sections[2] = {"procedures", "contexts"};
    double z[2], nb, nc;
    size_t m[2];
    const char *measure;

    memset(&d, 0, sizeof d);
    d.uni = uni;
    d.opt = opt;
    d.out = out;
    d.cb = opt->column;
    d.cc = half + opt->column;
    d.tb = rpt_incl(uni, 0, d.cb);
    d.tc = rpt_incl(uni, 0, d.cc);
    d.incl = opt->sort != EXP_SORT_EXCLUSIVE;
    measure = d.incl ? "inclusive" : "exclusive";
    d.name_cols = opt->width > 61 + 12 ? opt->width - 61 : 12;
    nb = rpt_diff_count(uni, uni, 0, d.cb, true);
    nc = rpt_diff_count(uni, uni, 0, d.cc, true);
    for (int s = 0; s < 2; s++) {
        m[s] = rpt_diff_tests(uni, parts[s], d.cb, d.incl);
        z[s] = rpt_diff_z(RPT_DIFF_ALPHA, m[s]);
    }
    if (opt->format == EXP_JSON) {
        fputs("{\n  \"format\": \"csprof-report-diff\",\n  \"version\": 1,\n  \"base\": ", out);
        exp_json_str(out, base_name);
        fputs(",\n  \"current\": ", out);
        exp_json_str(out, cur_name);
        fputs(",\n  \"metric\": {\"event\": ", out);
        exp_json_str(out, event_of(uni, d.cb));
        fputs(", \"unit\": ", out);
        exp_json_str(out, unit_of(uni, d.cb));
        fprintf(out, "},\n  \"base_total\": %.10g,\n  \"current_total\": %.10g", d.tb, d.tc);
        fprintf(out, ",\n  \"base_samples\": %.10g,\n  \"current_samples\": %.10g", nb, nc);
        fprintf(out, ",\n  \"measure\": \"%s\",\n  \"significant_only\": %s", measure,
                opt->significant ? "true" : "false");
        fprintf(out,
                ",\n  \"significance\": {\"confidence\": %g, \"method\": \"newcombe-wilson\", "
                "\"correction\": \"bonferroni\", \"tests\": {\"procedures\": %zu, \"contexts\": "
                "%zu}, \"z\": {\"procedures\": %.6f, \"contexts\": %.6f}}",
                1 - RPT_DIFF_ALPHA, m[0], m[1], z[0], z[1]);
    } else if (opt->format == EXP_CSV) {
        fputs("section,id,parent,depth,name,callsite_line,base_inclusive,current_inclusive,"
              "base_exclusive,current_exclusive,delta,delta_normalized_percent,base_samples,"
              "current_samples,interval_low,interval_high,significant,inlined,out_of_line,"
              "current_callsite_line\n",
              out);
    } else {
        size_t w = opt->width > 40 ? opt->width - 28 : 12;
        char line[512], a[64], b[64];
        fputs("csprof-report diff: base    ", out);
        exp_fit(out, base_name, w);
        fputs("\n                   current ", out);
        exp_fit(out, cur_name, w);
        fputc('\n', out);
        snprintf(line, sizeof line, "metric %s (%s), %s; totals %s -> %s (%+.2f%%)",
                 event_of(uni, d.cb), unit_of(uni, d.cb), measure,
                 exp_text_value_str(a, sizeof a, uni, d.cb, d.tb),
                 exp_text_value_str(b, sizeof b, uni, d.cb, d.tc),
                 d.tb != 0 ? 100.0 * (d.tc - d.tb) / d.tb : 0.0);
        if (nb >= 0 && nc >= 0)
            snprintf(line + strlen(line), sizeof line - strlen(line), "; %.0f -> %.0f samples", nb,
                     nc);
        exp_fit(out, line, opt->width);
        fputc('\n', out);
        exp_fit(out, "norm: change of the share of each run's own total, in points", opt->width);
        fputc('\n', out);
        text_wrap(out, "f @file:line = f called from that line (the call site in its caller)",
                  opt->width);
        exp_fit(out,
                "interval: 95% interval of norm from the sample counts, all rows of a section "
                "together; * significant",
                opt->width);
        fputc('\n', out);
    }
    for (int s = 0; s < 2; s++) {
        d.t = parts[s];
        d.section = sections[s];
        d.z = z[s];
        d.sc = (struct sort_ctx){parts[s], d.cb, opt->sort == EXP_SORT_NAME ? -1 : d.cc,
                                 opt->sort == EXP_SORT_NAME ? EXP_SORT_NAME
                                 : d.incl                   ? EXP_SORT_DELTA
                                                            : EXP_SORT_DELTA_EXCLUSIVE};
        d.first = true;
        if (opt->significant && diff_mark(&d) != 0) {
            errno = ENOMEM;
            return -1;
        }
        if (opt->format == EXP_JSON) {
            fprintf(out, ",\n  \"%s\": [", sections[s]);
        } else if (opt->format == EXP_TEXT) {
            char line[256];
            snprintf(line, sizeof line, "%s, by %s of %s (z = %.2f for %zu rows):", sections[s],
                     opt->sort == EXP_SORT_NAME ? "name" : "size of the change", measure, z[s],
                     m[s]);
            fputc('\n', out);
            exp_fit(out, line, opt->width);
            fprintf(out, "\n%10s %10s %10s %8s %15s   %s\n", "base", "current", "delta", "norm",
                    "interval", s == 0 ? "procedure" : "calling context");
        }
        {
            struct exp_table_options o = *opt;
            o.tree = s == 1 && opt->tree;
            d.opt = &o;
            diff_walk(&d, 0, 0, 0, s == 0 ? opt->limit : 0);
            d.opt = opt;
        }
        free(d.sig);
        d.sig = NULL;
        if (opt->format == EXP_JSON)
            fputs("\n  ]", out);
    }
    if (opt->format == EXP_JSON) {
        fprintf(out, ",\n  \"nodes_not_shown\": %llu,\n  \"not_significant\": %llu\n}\n",
                (unsigned long long)d.hidden, (unsigned long long)d.not_significant);
    } else if (opt->format == EXP_TEXT) {
        if (d.hidden > 0)
            fprintf(out, "(%llu rows not shown: below %g%% of both, --depth, --limit)\n",
                    (unsigned long long)d.hidden, opt->threshold);
        if (d.not_significant > 0)
            fprintf(out, "(%llu rows not shown: not significant)\n",
                    (unsigned long long)d.not_significant);
    }
    return ferror(out) ? -1 : 0;
}
