/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export.h -- writers of views (lib/report trees): the report's text, CSV
 * and JSON tables, and the exports read by other tools: folded stacks
 * (flamegraph.pl, inferno), pprof's profile.proto (gzipped), speedscope's
 * JSON file format, and callgrind's format (callgrind_annotate,
 * KCachegrind).
 *
 * Every writer takes an open stdio stream and writes to it only; none
 * prints elsewhere or exits.  Values written as integers are in the
 * metric's raw unit (ns for time, counts), rounded per node, so the totals
 * of all formats are the same integers (the sum of the nodes' self values).
 * Names are written as the database holds them (hostile bytes already \xNN)
 * with the quoting each format needs.
 *
 * Returns 0, or -1 with errno set when the stream fails or memory runs out.
 * [not async-signal-safe]
 */
#ifndef CSP_EXPORT_H
#define CSP_EXPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "report/report.h"

/* Columns a table can be sorted by. */
enum exp_sort {
    EXP_SORT_INCLUSIVE,
    EXP_SORT_EXCLUSIVE,
    EXP_SORT_CALLS,
    EXP_SORT_PER_CALL,
    EXP_SORT_NAME,
    EXP_SORT_DELTA,           /* diffs: |change of inclusive| */
    EXP_SORT_DELTA_EXCLUSIVE, /* diffs: |change of exclusive| */
};

enum exp_table_format { EXP_TEXT, EXP_CSV, EXP_JSON };

struct exp_table_options {
    enum exp_table_format format;
    const char *view; /* "top-down", "bottom-up", "flat", "diff" ... (written as is) */
    int column;       /* value column of the tree */
    enum exp_sort sort;
    double threshold;   /* percent of the total: smaller nodes are not written */
    unsigned max_depth; /* 0: all levels */
    unsigned limit;     /* rows of a one-level table (flat), 0: all */
    unsigned width;     /* text: terminal columns */
    bool tree;          /* text: indent children (top-down, bottom-up) */
    /* a derived metric shown as two more columns (inclusive, exclusive), or NULL */
    const struct rpt_formula *derived;
    const char *derived_name;    /* its name ("ipc") */
    const char *derived_formula; /* its formula, for the JSON header */
    bool significant;            /* diffs: only significant changes (in the tree, and the path
                                    to them) */
    bool full_names;             /* text: C++ names whole (else template and parameter lists
                                    elided: text_short_name()) */
};

/* Integer value in raw units (ns, counts) of column @col at @v (self or inclusive). */
int64_t exp_raw(const struct rpt_tree *t, int col, double v);

/* @s as a JSON string: quotes, backslashes, controls and <>& escaped; bytes
 * that are not clean UTF-8 become \xNN first (lib/support/text.h). */
void exp_json_str(FILE *out, const char *s);

/* @s in at most @cols terminal columns (code points), cut with an ellipsis (U+2026). */
void exp_fit(FILE *out, const char *s, size_t cols);

/* A row's label ("[inline] ns::C<…>::f(…) @x.cc:12") in at most @cols columns, never cut
 * at its end: when too long, first its scope qualifiers become an ellipsis ("…f(…) @x.cc:12",
 * the last component and the call site being what tells rows apart), then, if still too
 * long, its middle (a third of the width kept at the head, the rest at the tail). */
void exp_fit_name(FILE *out, const char *s, size_t cols);

/* A view as a table (text for a terminal, CSV or JSON as in share/schemas/report-json.md). */
int export_table(const struct rpt_tree *t, const struct exp_table_options *opt, FILE *out);

/*
 * A differential profile: @uni from rpt_tree_union() (columns c and
 * nvalues/2 + c), @flat its flat view by procedure.  The measure is the
 * inclusive value, or the exclusive one when opt->sort is
 * EXP_SORT_EXCLUSIVE; rows are sorted by the size of its change (or by
 * name).  "normalized" is the change of its share of each run's own total,
 * in percent points, with its confidence interval from the sample counts
 * (rpt_diff_change(): 95 % for all rows of a section together, Bonferroni
 * over the rows with samples); opt->significant keeps only the rows whose
 * interval excludes 0 (and, in the tree, their ancestors).
 */
int export_diff(const struct rpt_tree *uni, const struct rpt_tree *flat,
                const struct exp_table_options *opt, const char *base_name, const char *cur_name,
                FILE *out);

/* Folded stacks: "root;...;leaf N" for every node with self cost in column @col. */
int export_folded(const struct rpt_tree *t, int col, FILE *out);

/* pprof profile.proto, gzipped; one sample type per column, samples leaf first;
 * column @col's is the default sample type. */
int export_pprof(const struct rpt_tree *t, int col, FILE *out);

/* speedscope JSON file: one sampled profile for column @col (a stack per node with own
 * cost, weighted by it). */
int export_speedscope(const struct rpt_tree *t, int col, FILE *out);

/*
 * callgrind format, one event per column; inclusive costs of calls count only
 * calls to a procedure that is not already on the call path (so that
 * inclusive cost stays right under recursion).
 */
int export_callgrind(const struct rpt_tree *t, FILE *out);

/*
 * The hottest call paths of @t by the self cost in column @col of their last
 * node, one line each, at most @limit (0: all), elided in the middle to fit
 * @width columns; the "csprof-report paths" view.
 */
int export_paths(const struct rpt_tree *t, int col, unsigned limit, unsigned width, FILE *out);

/* export_paths() with C++ names whole (@full_names) or shortened (text_short_name()). */
int export_paths_names(const struct rpt_tree *t, int col, unsigned limit, unsigned width,
                       bool full_names, FILE *out);

struct exp_threads_options {
    enum exp_table_format format;
    unsigned width;     /* text: terminal columns */
    unsigned contexts;  /* contexts besides the whole run (0: 5) */
    unsigned rows;      /* threads/processes listed per context (0: text 12, else all) */
    const char *select; /* POSIX ERE: the outermost frames whose name or call path
                           ("main > solve > mpi_wait") matches; NULL: the hottest frames */
};

/*
 * The threads view of event metric @m of @db: for the whole run and the
 * chosen contexts, the inclusive and exclusive value of every process and
 * thread (largest first) from DB/thread-values.bin, with sum, mean, min,
 * max, stddev and cv over threads and over processes (and, in JSON, the
 * database's stored statistics of the same node).  Returns RPT_OK or an
 * RPT_E* value with the reason in @err; stream errors are left in @out.
 */
int export_threads(const struct rpt_db *db, int m, const struct exp_threads_options *opt, FILE *out,
                   char *err, size_t errlen);

#endif /* CSP_EXPORT_H */
