/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report_main.c -- csprof-report: views, exports and differences of an
 * experiment database (DB/experiment.xml), read from the database alone.
 *
 * Tool code: option parsing and the one place that prints errors and exits;
 * the work is lib/report (reading, views, transforms) and lib/export
 * (writers).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "export/export.h"
#include "report/report.h"
#include "trust/trust.h"

static const char usage_text[] =
    "usage: csprof-report [options] DB\n"
    "       csprof-report [options] --diff BASE_DB DB\n"
    "Show an experiment database written by csprof-prof (DB or DB/experiment.xml).\n"
    "\n"
    "views and output:\n"
    "  --view V          top-down (calling contexts, default), bottom-up (callers of each\n"
    "                    procedure), flat (static: see --by), threads (per-thread and per-rank\n"
    "                    values and statistics of the hottest contexts, or of --focus RE),\n"
    "                    paths (hottest call paths, one line each), quality (the trust report:\n"
    "                    where each event's samples went, csprof's overhead, a verdict)\n"
    "  --by B            flat view rows: procedure (default), file, module, loop, line\n"
    "  --recompute       flat view: recompute from the call tree instead of reading the\n"
    "                    database's stored static view (always so with --focus/--hide)\n"
    "  --format F        text (default), csv, json (share/schemas/report-json.md);\n"
    "                    exports: folded, pprof (gzipped profile.proto), speedscope, callgrind\n"
    "  -o FILE           write to FILE instead of standard output\n"
    "  --metric NAME     event or metric to show (default: the first event); a derived metric\n"
    "                    (csprof-prof -M) adds its inclusive and exclusive columns; see\n"
    "                    --list-metrics\n"
    "  --list-metrics    print the metrics of the database and exit\n"
    "  --sort C          inclusive (default; bottom-up: exclusive), exclusive, calls,\n"
    "                    per-call, name\n"
    "  --width N         text width (default: the terminal's when standard output is one,\n"
    "                    else $COLUMNS, else 100)\n"
    "  --full-names      C++ names whole (default: template arguments and parameter lists\n"
    "                    elided, std::map<…>::find(…), as perf and pprof show them)\n"
    "  --limit N         rows of the flat, bottom-up and paths views (text default 40; 0: all);\n"
    "                    threads view: contexts besides the whole run (default 5)\n"
    "\n"
    "transforms (the same in every view and export):\n"
    "  --focus RE        only the subtrees under frames whose name matches RE (POSIX ERE);\n"
    "                    threads view: frames whose name or path (a > b > c) matches;\n"
    "                    no frame matching is an error (exit status 1)\n"
    "  --hide RE         merge frames whose name matches RE into their callers\n"
    "  --hide-lib RE     merge frames of load modules whose path matches RE into their callers\n"
    "  --collapse-recursion  merge a frame into its caller when both are the same procedure\n"
    "  --threshold PCT   do not show nodes below PCT% of the total (text default 0.5; tables only)\n"
    "  --depth N         show N levels at most (tables only; bottom-up text default 3: each\n"
    "                    procedure and two levels of its callers)\n"
    "  --inlines merge|keep  inlined frames as their own nodes (keep, default) or not\n"
    "  --loops hide|keep     loops as nodes (keep) or not (hide, default)\n"
    "  --keep-roots      do not elide _start, __libc_start_*, start_thread, clone, clone3\n"
    "\n"
    "  --diff BASE_DB DB differences of DB against BASE_DB: per procedure and per context,\n"
    "                    matched by procedure name (inlined or not, clone suffixes dropped)\n"
    "                    and call-site line, never by address; absolute, normalized by each\n"
    "                    run's total, and a 95% interval of the normalized change from the\n"
    "                    sample counts (* when it excludes 0); --sort inclusive (default),\n"
    "                    exclusive or name picks the value compared and the order\n"
    "  --significant     with --diff: only the significant changes (and their callers)\n"
    "  --fail-if 'NAME>+P%'  with --diff: exit 3 when procedure NAME's share of its run's\n"
    "                    total rose by more than P% of its base share (NAME>+Ppp: P points)\n"
    "                    and the rise is significant; repeatable\n"
    "  -h, --help        this text\n";

enum {
    OPT_VIEW = 256,
    OPT_BY,
    OPT_FORMAT,
    OPT_METRIC,
    OPT_SORT,
    OPT_WIDTH,
    OPT_LIMIT,
    OPT_FOCUS,
    OPT_HIDE,
    OPT_HIDE_LIB,
    OPT_COLLAPSE,
    OPT_THRESHOLD,
    OPT_DEPTH,
    OPT_INLINES,
    OPT_LOOPS,
    OPT_KEEP_ROOTS,
    OPT_DIFF,
    OPT_LIST_METRICS,
    OPT_RECOMPUTE,
    OPT_SIGNIFICANT,
    OPT_FAIL_IF,
    OPT_FULL_NAMES,
};

static const struct option long_options[] = {
    {"view", required_argument, NULL, OPT_VIEW},
    {"by", required_argument, NULL, OPT_BY},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"metric", required_argument, NULL, OPT_METRIC},
    {"list-metrics", no_argument, NULL, OPT_LIST_METRICS},
    {"sort", required_argument, NULL, OPT_SORT},
    {"width", required_argument, NULL, OPT_WIDTH},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"focus", required_argument, NULL, OPT_FOCUS},
    {"hide", required_argument, NULL, OPT_HIDE},
    {"hide-lib", required_argument, NULL, OPT_HIDE_LIB},
    {"collapse-recursion", no_argument, NULL, OPT_COLLAPSE},
    {"threshold", required_argument, NULL, OPT_THRESHOLD},
    {"depth", required_argument, NULL, OPT_DEPTH},
    {"inlines", required_argument, NULL, OPT_INLINES},
    {"loops", required_argument, NULL, OPT_LOOPS},
    {"keep-roots", no_argument, NULL, OPT_KEEP_ROOTS},
    {"diff", no_argument, NULL, OPT_DIFF},
    {"recompute", no_argument, NULL, OPT_RECOMPUTE},
    {"significant", no_argument, NULL, OPT_SIGNIFICANT},
    {"fail-if", required_argument, NULL, OPT_FAIL_IF},
    {"full-names", no_argument, NULL, OPT_FULL_NAMES},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

enum view { V_TOP_DOWN, V_BOTTOM_UP, V_FLAT, V_THREADS, V_PATHS, V_QUALITY };
enum format { F_TEXT, F_CSV, F_JSON, F_FOLDED, F_PPROF, F_SPEEDSCOPE, F_CALLGRIND };

struct options {
    enum view view;
    enum rpt_flat_by by;
    enum format format;
    const char *metric;
    const char *output;
    enum exp_sort sort;
    unsigned width;
    bool full_names;
    long limit;       /* -1: default */
    double threshold; /* < 0: default */
    unsigned depth;
    bool depth_set; /* --depth given */
    bool diff, list_metrics;
    bool limit_set; /* --limit given */
    bool recompute; /* flat view from the tree, not the stored static view */
    struct rpt_view_options vo;
    bool significant;        /* --diff: only significant changes */
    bool view_set, sort_set; /* --view, --sort given */
    const char *fail_if[32]; /* --diff: --fail-if conditions */
    int nfail_if;
};

static void
die_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "csprof-report: %s%s\nTry 'csprof-report --help'.\n", msg, arg);
    exit(2);
}

static int
pick(const char *opt, const char *arg, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], arg) == 0)
            return i;
    fprintf(stderr, "csprof-report: %s: unknown value '%s' (one of:", opt, arg);
    for (int i = 0; i < n; i++)
        fprintf(stderr, " %s", names[i]);
    fprintf(stderr, ")\n");
    exit(2);
}

static unsigned long
number(const char *opt, const char *arg, unsigned long max)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(arg, &end, 10);
    if (errno != 0 || *end != '\0' || end == arg || arg[0] == '-' || v > max) {
        fprintf(stderr, "csprof-report: %s: '%s' is not a number from 0 to %lu\n", opt, arg, max);
        exit(2);
    }
    return v;
}

/* A --fail-if condition: NAME>+LIMIT% (of the base share) or NAME>+LIMITpp (points). */
struct fail_if {
    const char *expr;
    char name[512]; /* the procedure, without clone suffixes */
    double limit;
    bool points;
};

static void
parse_fail_if(const char *expr, struct fail_if *f)
{
    const char *gt = strrchr(expr, '>');
    char *end;
    size_t len;

    memset(f, 0, sizeof *f);
    f->expr = expr;
    if (gt == NULL || gt == expr)
        die_usage("--fail-if: not NAME>+P% or NAME>+Ppp: ", expr);
    f->limit = strtod(gt + 1, &end);
    if (end == gt + 1 || !(f->limit >= 0) || !isfinite(f->limit))
        die_usage("--fail-if: not NAME>+P% or NAME>+Ppp (P a number >= 0): ", expr);
    if (strcmp(end, "pp") == 0)
        f->points = true;
    else if (strcmp(end, "%") != 0)
        die_usage("--fail-if: the limit ends in % (of the base share) or pp (points): ", expr);
    len = (size_t)(gt - expr);
    if (len >= sizeof f->name)
        die_usage("--fail-if: name too long: ", expr);
    memcpy(f->name, expr, len);
    f->name[rpt_proc_base_len(f->name)] = '\0';
}

/* Columns of text: the terminal's when standard output is one (TIOCGWINSZ), else
 * $COLUMNS (@cols), else 100; 40 to 1000 (--width overrides it). */
static unsigned
terminal_width(const char *cols)
{
    struct winsize ws;

    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col < 40 ? 40 : ws.ws_col > 1000 ? 1000 : ws.ws_col;
    if (cols != NULL && atoi(cols) >= 40 && atoi(cols) <= 1000)
        return (unsigned)atoi(cols);
    return 100;
}

static void
parse_options(int argc, char **argv, struct options *o)
{
    static const char *const views[] = {"top-down", "bottom-up", "flat",
                                        "threads",  "paths",     "quality"};
    static const char *const bys[] = {"procedure", "file", "module", "loop", "line"};
    static const char *const formats[] = {"text",  "csv",        "json",     "folded",
                                          "pprof", "speedscope", "callgrind"};
    static const char *const sorts[] = {"inclusive", "exclusive", "calls", "per-call", "name"};
    static const char *const inl[] = {"merge", "keep"};
    static const char *const loops[] = {"hide", "keep"};
    const char *cols = getenv("COLUMNS");
    int c;

    memset(o, 0, sizeof *o);
    o->limit = -1;
    o->threshold = -1;
    o->vo.keep_inlines = true;
    o->sort = (enum exp_sort) - 1;
    o->width = terminal_width(cols);
    while ((c = getopt_long(argc, argv, "ho:", long_options, NULL)) != -1) {
        switch (c) {
        case OPT_VIEW:
            o->view = (enum view)pick("--view", optarg, views, 6);
            o->view_set = true;
            break;
        case OPT_BY:
            o->by = (enum rpt_flat_by)pick("--by", optarg, bys, 5);
            break;
        case OPT_FORMAT:
            o->format = (enum format)pick("--format", optarg, formats, 7);
            break;
        case OPT_METRIC:
            o->metric = optarg;
            break;
        case OPT_LIST_METRICS:
            o->list_metrics = true;
            break;
        case OPT_SORT:
            o->sort = (enum exp_sort)pick("--sort", optarg, sorts, 5);
            o->sort_set = true;
            break;
        case OPT_FULL_NAMES:
            o->full_names = true;
            break;
        case OPT_WIDTH:
            o->width = (unsigned)number("--width", optarg, 10000);
            if (o->width < 40)
                o->width = 40;
            break;
        case OPT_LIMIT:
            o->limit = (long)number("--limit", optarg, 100000000);
            o->limit_set = true;
            break;
        case OPT_FOCUS:
            o->vo.focus = optarg;
            break;
        case OPT_HIDE:
            o->vo.hide = optarg;
            break;
        case OPT_HIDE_LIB:
            o->vo.hide_lib = optarg;
            break;
        case OPT_COLLAPSE:
            o->vo.collapse_recursion = true;
            break;
        case OPT_THRESHOLD: {
            char *end;
            o->threshold = strtod(optarg, &end);
            if (*end != '\0' || end == optarg || !(o->threshold >= 0 && o->threshold <= 100))
                die_usage("--threshold: not a percentage from 0 to 100: ", optarg);
            break;
        }
        case OPT_DEPTH:
            o->depth = (unsigned)number("--depth", optarg, 1000000);
            o->depth_set = true;
            break;
        case OPT_INLINES:
            o->vo.keep_inlines = pick("--inlines", optarg, inl, 2) == 1;
            break;
        case OPT_LOOPS:
            o->vo.keep_loops = pick("--loops", optarg, loops, 2) == 1;
            break;
        case OPT_KEEP_ROOTS:
            o->vo.keep_roots = true;
            break;
        case OPT_DIFF:
            o->diff = true;
            break;
        case OPT_RECOMPUTE:
            o->recompute = true;
            break;
        case OPT_SIGNIFICANT:
            o->significant = true;
            break;
        case OPT_FAIL_IF:
            if (o->nfail_if == (int)(sizeof o->fail_if / sizeof o->fail_if[0]))
                die_usage("--fail-if: too many conditions", "");
            o->fail_if[o->nfail_if++] = optarg;
            break;
        case 'o':
            o->output = optarg;
            break;
        case 'h':
            fputs(usage_text, stdout);
            exit(0);
        default:
            fprintf(stderr, "Try 'csprof-report --help'.\n");
            exit(2);
        }
    }
    if (argc - optind != (o->diff ? 2 : 1))
        die_usage(o->diff ? "--diff needs two databases: BASE_DB DB"
                          : "needs one database (DB directory or DB/experiment.xml)",
                  "");
    if (!o->diff && (o->significant || o->nfail_if > 0))
        die_usage(o->significant ? "--significant" : "--fail-if", " needs --diff");
    if (o->diff && o->view_set)
        die_usage("--view cannot be used with --diff (it shows procedures and contexts)", "");
    if (o->diff && o->sort_set && (o->sort == EXP_SORT_CALLS || o->sort == EXP_SORT_PER_CALL))
        die_usage("--sort calls and per-call cannot be used with --diff (use inclusive, "
                  "exclusive or name)",
                  "");
    for (int i = 0; i < o->nfail_if; i++) { /* (syntax errors before any work) */
        struct fail_if f;
        parse_fail_if(o->fail_if[i], &f);
    }
    if (o->diff && !o->vo.keep_inlines)
        die_usage("--inlines merge cannot be used with --diff: the inlined frames are what "
                  "match a procedure that one build inlined and the other did not",
                  "");
    if (o->view == V_BOTTOM_UP && o->format == F_TEXT && !o->depth_set)
        o->depth = 3; /* callers' chains run to main: two levels read, --depth N shows more */
    if (o->view == V_FLAT && o->by == RPT_FLAT_LOOP)
        o->vo.keep_loops = true;
    if (o->view == V_FLAT && o->by == RPT_FLAT_LINE)
        o->vo.statements = true;
    if (o->format == F_CALLGRIND)
        o->vo.statements = true; /* self cost on source lines */
    if (o->threshold < 0)
        o->threshold = o->format == F_TEXT && (o->view == V_TOP_DOWN || o->diff) ? 0.5 : 0;
    if (o->limit < 0)
        o->limit = o->format == F_TEXT ? 40 : 0;
    if ((int)o->sort < 0) /* bottom-up: the procedures that spend the time themselves first */
        o->sort = o->view == V_BOTTOM_UP ? EXP_SORT_EXCLUSIVE : EXP_SORT_INCLUSIVE;
}

/*
 * Check the --fail-if conditions on the procedure rows @flat of union @uni (column @col,
 * inclusive or exclusive values, z as the report's procedures section): one line each on
 * standard error.  Returns 3 when one regressed, 2 when a procedure is in neither database,
 * 1 when the counts are unknown, else 0.
 */
static int
check_fail_if(const struct options *o, const struct rpt_tree *uni, const struct rpt_tree *flat,
              int col, bool incl)
{
    double z = rpt_diff_z(RPT_DIFF_ALPHA, rpt_diff_tests(uni, flat, col, incl));
    const char *what = incl ? "inclusive" : "exclusive";
    int status = 0;

    for (int i = 0; i < o->nfail_if; i++) {
        struct fail_if f;
        struct rpt_change ch;
        uint32_t row = 0;
        double rise;
        bool bad;

        parse_fail_if(o->fail_if[i], &f);
        for (uint32_t n = flat->nodes[0].first_child; n != 0 && row == 0;
             n = flat->nodes[n].next_sibling)
            if (flat->nodes[n].kind == CSP_SCOPE_PROC &&
                strcmp(rpt_tree_name(flat, n), f.name) == 0)
                row = n;
        if (row == 0) {
            fprintf(stderr, "csprof-report: --fail-if '%s': no procedure %s in either database\n",
                    f.expr, f.name);
            status = status > 2 ? status : 2;
            continue;
        }
        rpt_diff_change(uni, flat, row, col, incl, z, &ch);
        if (isnan(ch.lo)) {
            fprintf(stderr,
                    "csprof-report: --fail-if '%s': the databases give no sample counts of this "
                    "metric, so no significance\n",
                    f.expr);
            status = status > 1 ? status : 1;
            continue;
        }
        rise = f.points            ? ch.cur_share - ch.base_share
               : ch.base_share > 0 ? 100 * (ch.cur_share - ch.base_share) / ch.base_share
               : ch.cur_share > 0  ? INFINITY
                                   : 0;
        bad = rise > f.limit && ch.significant && ch.lo > 0;
        fprintf(stderr,
                "csprof-report: --fail-if '%s': %s %.2f%% -> %.2f%% of the %s total (%+.2f%s; "
                "%+.2f points, 95%% interval %+.2f to %+.2f): %s\n",
                f.expr, f.name, ch.base_share, ch.cur_share, what, rise, f.points ? "pp" : "%",
                ch.cur_share - ch.base_share, ch.lo, ch.hi,
                bad              ? "REGRESSED"
                : rise > f.limit ? "a rise that is not significant"
                                 : "within the limit");
        if (bad)
            status = 3;
    }
    return status;
}

/* Whether @path is csrun's output rather than a database: a measurement file, or a directory
 * of them without experiment.xml. */
static bool
is_measurements(const char *path)
{
    size_t len = strlen(path);
    char xml[PATH_MAX];
    struct dirent *de;
    bool found = false;
    DIR *d;

    if (len > 5 && strcmp(path + len - 5, ".cspm") == 0)
        return true;
    snprintf(xml, sizeof xml, "%s/experiment.xml", path);
    if (access(xml, F_OK) == 0 || (d = opendir(path)) == NULL)
        return false;
    while (!found && (de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);

        found = n > 5 && strcmp(de->d_name + n - 5, ".cspm") == 0;
    }
    closedir(d);
    return found;
}

static struct rpt_db *
load(const char *path)
{
    char err[512];
    struct rpt_db *db;
    int rc;

    if (is_measurements(path)) {
        fprintf(stderr,
                "csprof-report: %s holds measurement files: run csprof-prof %s -o DB first, then "
                "csprof-report DB\n",
                path, path);
        exit(1);
    }
    rc = rpt_db_read(path, &db, err, sizeof err);
    if (rc != RPT_OK) {
        fprintf(stderr, "csprof-report: %s\n", err[0] ? err : rpt_strerror(rc));
        exit(1);
    }
    return db;
}

/* --focus RE that keeps nothing of @t (only its root): say so, exit 1, as grep does. */
static void
check_focus(const struct options *o, const struct rpt_tree *t, const char *db)
{
    if (o->vo.focus != NULL && t->nnodes < 2) {
        fprintf(stderr, "csprof-report: --focus '%s': no frame of %s matches\n", o->vo.focus, db);
        exit(1);
    }
}

static int
column_of(const struct rpt_db *db, const struct rpt_tree *t, const char *metric)
{
    int m = rpt_db_find_metric(db, metric);
    int col = m >= 0 ? rpt_tree_column(t, m) : -1;

    if (col < 0) {
        fprintf(
            stderr,
            "csprof-report: --metric: %s has no inclusive metric named '%s' (see --list-metrics)\n",
            db->path, metric != NULL ? metric : "(any)");
        exit(1);
    }
    return col;
}

static struct rpt_tree *
build(const struct rpt_db *db, const struct options *o, struct rpt_names *names)
{
    char err[512] = "";
    struct rpt_tree *t;
    int rc = rpt_tree_build(db, &o->vo, names, &t, err, sizeof err);

    if (rc != RPT_OK) {
        fprintf(stderr, "csprof-report: %s\n", err[0] ? err : rpt_strerror(rc));
        exit(rc == RPT_EINVAL ? 2 : 1);
    }
    return t;
}

static void
list_metrics(const struct rpt_db *db, FILE *out)
{
    fprintf(out, "%-4s %-28s %-12s %-10s %-8s %s\n", "i", "name", "event", "type", "unit",
            "--metric");
    for (int i = 0; i < db->nmetrics; i++) {
        const struct rpt_metric *m = &db->metrics[i];
        fprintf(out, "%-4d %-28s %-12s %-10s %-8s %s\n", i, m->name, m->event,
                m->inclusive ? "inclusive" : "exclusive", m->unit != NULL ? m->unit : "",
                m->formula != NULL               ? "yes (two more columns)"
                : !m->additive                   ? "no (a statistic: see --view threads)"
                : m->inclusive                   ? "yes"
                : strcmp(m->event, "calls") == 0 ? "(the calls column)"
                                                 : "(its inclusive partner)");
    }
}

/*
 * What main does with the options @o once the databases are read: @db and, with --diff,
 * @base (NULL otherwise), both owned by the caller.  Returns the exit status (0, 1, 2, or 3
 * from --fail-if); messages on standard error name the option, file or value at fault.
 */
static int
report(const struct options *opts, struct rpt_db *db, struct rpt_db *base)
{
    struct options o = *opts;
    struct exp_table_options to;
    struct rpt_tree *t, *view = NULL;
    FILE *out = stdout;
    struct rpt_formula *derived = NULL;
    int col, rc = 0, dm, status = 0;

    if (o.list_metrics) {
        list_metrics(db, stdout);
        return 0;
    }
    if (o.output != NULL) {
        out = fopen(o.output, o.format == F_PPROF ? "wb" : "w");
        if (out == NULL) {
            fprintf(stderr, "csprof-report: -o %s: %s\n", o.output, strerror(errno));
            return 1;
        }
    } else if (o.format == F_PPROF && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "csprof-report: --format pprof writes binary data: use -o FILE\n");
        return 2;
    }

    memset(&to, 0, sizeof to);
    to.format = o.format == F_CSV ? EXP_CSV : o.format == F_JSON ? EXP_JSON : EXP_TEXT;
    to.sort = o.sort;
    to.threshold = o.threshold;
    to.max_depth = o.depth;
    to.width = o.width;
    to.full_names = o.full_names;
    to.limit = (unsigned)o.limit;

    if (o.view == V_QUALITY && !o.diff) {
        struct trust_run run;
        struct trust_verdict verdict;

        if (rpt_db_trust(db, &run, &verdict) != RPT_OK) {
            fprintf(stderr,
                    "csprof-report: --view quality: %s has no trust report (written by an older "
                    "csprof-prof): run csprof-prof again\n",
                    db->path);
            return 1;
        }
        if (o.format == F_JSON)
            trust_print_json(out, &run, &verdict);
        else if (o.format == F_CSV)
            trust_print_csv(out, &run, &verdict);
        else
            trust_print(out, "", &run, &verdict, false);
        goto out_close;
    }
    if (o.view == V_THREADS && !o.diff) {
        struct exp_threads_options th = {to.format, o.width, o.limit_set ? (unsigned)o.limit : 0, 0,
                                         o.vo.focus};
        char err[512] = "";
        int m = rpt_db_find_metric(db, o.metric != NULL ? o.metric : db->metrics[0].event);
        if (m < 0) {
            fprintf(stderr,
                    "csprof-report: --metric: %s has no metric named '%s' (see --list-metrics)\n",
                    db->path, o.metric != NULL ? o.metric : "(any)");
            return 1;
        }
        rc = export_threads(db, m, &th, out, err, sizeof err);
        if (rc != RPT_OK) {
            fprintf(stderr, "csprof-report: --view threads: %s\n", err[0] ? err : rpt_strerror(rc));
            return rc == RPT_EINVAL ? 2 : 1;
        }
        goto out_close;
    }
    if (o.diff) {
        struct rpt_names *names = rpt_names_new();
        struct rpt_tree *tb, *tc, *uni, *flat;
        char err[512] = "";
        if (names == NULL)
            return 1;
        tb = build(base, &o, names);
        tc = build(db, &o, names);
        if (tb->nnodes < 2)
            check_focus(&o, tc, db->path);
        col = column_of(base, tb, o.metric);
        if (rpt_tree_union(tb, tc, &uni, err, sizeof err) != RPT_OK) {
            fprintf(stderr, "csprof-report: --diff: %s\n", err[0] ? err : "out of memory");
            return 1;
        }
        if (rpt_tree_flat(uni, RPT_FLAT_PROCEDURE, &flat) != RPT_OK) {
            fprintf(stderr, "csprof-report: out of memory\n");
            return 1;
        }
        to.view = "diff";
        to.column = col;
        to.tree = true;
        to.significant = o.significant;
        rc = export_diff(uni, flat, &to, base->path, db->path, out);
        if (rc == 0 && fflush(out) == 0)
            status = check_fail_if(&o, uni, flat, col, o.sort != EXP_SORT_EXCLUSIVE);
        rpt_tree_free(flat);
        rpt_tree_free(uni);
        rpt_tree_free(tc);
        rpt_tree_free(tb);
        rpt_names_free(names);
        goto out_close;
    }

    t = build(db, &o, NULL);
    check_focus(&o, t, db->path);
    if (rpt_db_find_metric(db, o.metric) < 0 && (dm = rpt_db_find_derived(db, o.metric)) >= 0) {
        /* a derived metric: two more columns beside the first event */
        char err[512] = "";
        if (rpt_formula_compile(t, db->metrics[dm].formula, &derived, err, sizeof err) != RPT_OK) {
            fprintf(stderr, "csprof-report: --metric %s: %s\n", o.metric,
                    err[0] ? err : "out of memory");
            return 1;
        }
        to.derived = derived;
        to.derived_name = db->metrics[dm].event;
        to.derived_formula = db->metrics[dm].formula;
        col = column_of(db, t, NULL);
    } else {
        col = column_of(db, t, o.metric);
    }
    if (t->db_total_difference > 1e-6 * fabs(rpt_incl(t, 0, col)) + 1e-9)
        fprintf(stderr,
                "csprof-report: warning: %s: the call tree sums to %g away from the stored total\n",
                db->path, t->db_total_difference);
    switch (o.format) {
    case F_FOLDED:
        rc = export_folded(t, col, out);
        break;
    case F_PPROF:
        rc = export_pprof(t, col, out);
        break;
    case F_SPEEDSCOPE:
        rc = export_speedscope(t, col, out);
        break;
    case F_CALLGRIND:
        rc = export_callgrind(t, out);
        break;
    default:
        to.column = col;
        switch (o.view) {
        case V_BOTTOM_UP:
            if (rpt_tree_bottom_up(t, o.depth ? o.depth + 1 : 0, &view) != RPT_OK)
                goto oom;
            to.view = "bottom-up";
            to.tree = true;
            break;
        case V_FLAT: {
            int frc = o.recompute ? RPT_EINVAL : rpt_tree_flat_stored(t, &o.vo, o.by, &view);
            if (frc == RPT_EINVAL)
                frc = rpt_tree_flat(t, o.by, &view);
            if (frc != RPT_OK)
                goto oom;
            to.view = "flat";
            to.max_depth = 1;
            break;
        }
        case V_PATHS:
            rc = export_paths_names(t, col, (unsigned)o.limit, o.width, o.full_names, out);
            break;
        default:
            to.view = "top-down";
            to.tree = true;
            to.limit = 0;
            break;
        }
        if (o.view != V_PATHS)
            rc = export_table(view != NULL ? view : t, &to, out);
        break;
    }
    rpt_tree_free(view);
    rpt_tree_free(t);
    rpt_formula_free(derived);
out_close:
    if (rc != 0 || fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "csprof-report: %s: %s\n", o.output != NULL ? o.output : "standard output",
                strerror(errno ? errno : EIO));
        return 1;
    }
    if (out != stdout && fclose(out) != 0) {
        fprintf(stderr, "csprof-report: %s: %s\n", o.output, strerror(errno));
        return 1;
    }
    return status;
oom:
    fprintf(stderr, "csprof-report: out of memory\n");
    return 1;
}

int
main(int argc, char **argv)
{
    struct options o;
    struct rpt_db *db, *base = NULL;
    int status;

    parse_options(argc, argv, &o);
    db = load(argv[argc - 1]);
    if (o.diff)
        base = load(argv[argc - 2]);
    status = report(&o, db, base);
    rpt_db_free(base);
    rpt_db_free(db);
    return status;
}
