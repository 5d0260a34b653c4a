/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * report.h -- the experiment database read back into memory, and the views
 * the report and the exports are built from.
 *
 * rpt_db_read() loads DB/experiment.xml (share/schemas/experiment.dtd) with
 * libxml2's streaming reader into tables (metrics, load modules, files,
 * procedures, measurement inputs) and the calling-context tree exactly as
 * stored (PF/A/L/C/S/T nodes, values per metric).  Elements and attributes
 * this reader does not know are skipped, so newer databases still load.
 *
 * A view (struct rpt_tree) is a tree of frames derived from that CCT for one
 * set of options: procedure frames (with the call-site line and sampled call
 * count of the call that entered them), inlined frames and loops (kept or
 * merged into their enclosing frame), transformed by hide / focus /
 * collapse-recursion / elided roots.  Every node carries, for each value
 * metric, a self (exclusive) and an inclusive value with
 * inclusive = self + sum of the children's inclusive by construction.
 * Bottom-up (callers) and flat (static) views and differential trees are
 * built from views.
 *
 * The structs below are read-only data for the caller: they are plain
 * structs rather than opaque types because every writer walks all of them,
 * and accessors for each field would add nothing.  Ownership: everything
 * hangs off the rpt_db / rpt_tree it came from and is freed with it.
 *
 * Tool code: never prints, never exits; errors are negative RPT_E* values
 * with a message in a caller-supplied buffer.  [not async-signal-safe]
 */
#ifndef CSP_REPORT_H
#define CSP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "support/scope.h"

enum rpt_status {
    RPT_OK = 0,
    RPT_ENOMEM = -1,
    RPT_EIO = -2,     /* the database file cannot be opened or read */
    RPT_EFORMAT = -3, /* not an experiment database, or inconsistent */
    RPT_EINVAL = -4,  /* a bad option value (regular expression, metric name) */
    RPT_ENOENT = -5,  /* the database has no such part (a trust report, before they existed) */
};

/* Static text for an RPT_E* value.  [not async-signal-safe] */
const char *rpt_strerror(int err);

/* ---------------------------------------------------------------- database */

/* Kinds of stored CCT nodes (the element names of experiment.dtd). */
/* The kinds of experiment.xml's calling-context scopes are enum csp_scope (support/scope.h):
 * ROOT (SecCallPathProfileData: the whole run), PROC (PF: procedure frame), INLINE (A),
 * LOOP (L), CALL (C: call site; the callee frames are its children), STMT (S), TRUNC (T: the
 * rest of a path cut by csprof-prof). */

struct rpt_metric {
    char *name;          /* "CPUTIME (I)" */
    char *event;         /* "CPUTIME", "samples", "calls" */
    char *unit;          /* display unit of the stored values: "s", "samples" */
    char *raw_unit;      /* "ns", or NULL */
    bool inclusive;      /* t="inclusive" */
    int partner;         /* the other column of the same event, or -1 */
    double raw_per_unit; /* raw units per stored unit (1e9 for s -> ns); 1 when none */
    bool integral;       /* values are whole raw units (counts, ns): residues are rounded */
    char *stat;          /* newer databases: "mean", "min", ... for a statistic, else NULL */
    char *over;          /* "threads" or "processes" for a statistic, else NULL */
    int of;              /* a statistic: the Metric i it summarizes, else -1 */
    char *formula;       /* a derived metric (csprof-prof -M): its formula, else NULL */
    bool additive;       /* a measured event or samples: values add up along the tree (not a
                      derived metric or a statistic over threads, which views skip) */
};

struct rpt_module {
    char *name;     /* path of the load module */
    char *build_id; /* or NULL */
};

/* One element of experiment.xml's Summary (sample quality), kept as read. */
struct rpt_summary_el {
    char *el;     /* element name: "Summary", "Input", "Stat", ... */
    int depth;    /* 0 for Summary itself, 1 for its children, ... */
    int nattrs;   /* attribute pairs */
    char **attrs; /* 2 * nattrs strings: name, value, name, value, ... */
};

struct rpt_proc {
    char *name; /* escaped as in the database (\xNN for hostile bytes) */
    int lm;     /* load module index or -1 */
    int file;   /* file index or -1 */
    int line;   /* declaration line or 0 */
};

/* One measurement input (Summary/Inputs/Input): a thread of a process. */
struct rpt_input {
    char *path;
    bool read;          /* status="read" */
    long long pid, tid; /* -1 when absent */
    long long thread_index, rank;
    double samples;            /* -1 when absent */
    double cpu_ns;             /* -1 when absent */
    long long thread, process; /* thread / process index of thread-values.bin, -1 when absent */
    char *program;             /* the program of the process, or NULL */
    double start_ns;           /* start of the thread (ns since the epoch), -1 when absent */
    double end_ns;             /* end of the thread (ns since the epoch), -1 when absent */
};

struct rpt_node {
    uint32_t id;           /* the stored node id (attribute i; 0 for the root) */
    uint32_t parent;       /* index; the root (0) is its own parent */
    uint32_t first_child;  /* 0: none */
    uint32_t next_sibling; /* 0: none */
    uint8_t kind;          /* enum csp_scope */
    int32_t proc;          /* FRAME/INLINE: procedure index, else -1 */
    int32_t lm;            /* FRAME: load module or -1 */
    int32_t file, line;    /* -1 / 0 when absent */
    uint64_t addr;         /* a: address relative to the load module lm (a frame's entry,
                              a loop's or statement's first instruction); 0 when absent */
    uint64_t end;          /* end: a loop without a line: end of its code (addr..end,
                              half-open); 0 when absent */
};

/* Kinds of stored static-view scopes (SecFlatProfileData; experiment.dtd Static*). */
/* The stored static view's kinds are enum csp_scope: ROOT, MODULE (StaticLM), FILE (StaticF),
 * PROC (StaticP), INLINE (StaticA), LOOP (StaticL), CALL (StaticC), STMT (StaticS). */

/* One scope of the stored static view. */
struct rpt_snode {
    uint32_t parent;    /* index; the root (0) is its own parent */
    uint8_t kind;       /* enum csp_scope */
    int32_t proc;       /* PROC/INLINE: procedure index, else -1 */
    int32_t lm;         /* load module or -1 */
    int32_t file, line; /* -1 / 0 when absent */
};

struct rpt_db {
    char *path;    /* the experiment.xml read */
    char *program; /* the run's program (struct rpt_groups), else Header n */
    char *version; /* csprof-experiment version */

    struct rpt_metric *metrics;
    int nmetrics;
    struct rpt_module *modules;
    int nmodules;
    char **files;
    int nfiles;
    struct rpt_proc *procs;
    int nprocs;
    struct rpt_input *inputs;
    int ninputs;

    /* Summary attributes (-1 when absent) */
    double threads, processes, samples, rooted_percent, unknown_samples, cpu_seconds;

    struct rpt_node *nodes; /* nodes[0] is the root; parents precede children */
    uint32_t nnodes;
    double *values;   /* nnodes * nmetrics, 0 where the database has no M */
    int calls_metric; /* index of the "calls" metric, or -1 */

    /* the stored static (flat) view, when the database has one (nsnodes > 0):
       load module > file > procedure > inlined frame / loop > call site / statement,
       with the values csprof-prof computed (lib/profile/prof_flat.c) */
    struct rpt_snode *snodes; /* snodes[0] is the root; parents precede children */
    uint32_t nsnodes;
    double *svalues; /* nsnodes * nmetrics */

    uint64_t skipped_elements; /* unknown elements skipped (subtrees counted once) */

    char **file_src; /* nfiles entries: File src (the copy "src/..." in the database), or NULL */
    struct rpt_summary_el *summary; /* the Summary element and its descendants, in document
                                       order (the viewer's sample-quality panel) */
    size_t nsummary;
};

/*
 * The database's trust report (Summary/Trust) into @r and @v, as lib/trust
 * computed it in csprof-prof (the notable threads with the parts the
 * database keeps of them).  Returns RPT_OK, or RPT_ENOENT for a database
 * written before trust reports existed.  [not async-signal-safe]
 */
struct trust_run;
struct trust_verdict;
int rpt_db_trust(const struct rpt_db *db, struct trust_run *r, struct trust_verdict *v);

/*
 * Read @path (a database directory or its experiment.xml).  On success
 * *out owns everything and returns RPT_OK.  On failure returns RPT_EIO,
 * RPT_EFORMAT or RPT_ENOMEM and writes a one-line reason (naming the file and,
 * where known, the line) into @err (@errlen bytes).
 */
int rpt_db_read(const char *path, struct rpt_db **out, char *err, size_t errlen);

/*
 * A one-line title for @db in @buf (@len bytes, always terminated): the
 * run's program (struct rpt_groups: the last image of the process that
 * started first), the programs that process ran before it, and for a
 * database of several processes how many more and of which programs, most
 * frequent first, wrappers apart:
 *   "make (+ 37 processes: cc1 x12, as x12, collect2 x1, ...)"
 *   "python3.11 (via env > bash; + 40 wrapper processes: bash x39, basename x1)"
 * (in the text, U+00D7 for x and U+2192 for >).  Program names are
 * basenames, but a single process's program is its path.  A database without
 * process indices is titled by its Header's program.
 */
void rpt_db_title(const struct rpt_db *db, char *buf, size_t len);

/* Free @db and everything it owns; NULL is allowed.  [not async-signal-safe] */
void rpt_db_free(struct rpt_db *db);

/* Value of metric @m at stored node @n, in the metric's unit (0 where the database has none). */
static inline double
rpt_db_value(const struct rpt_db *db, uint32_t n, int m)
{
    return db->values[(size_t)n * (size_t)db->nmetrics + (size_t)m];
}

/*
 * Index of the additive inclusive metric named @name: an event name
 * ("CPUTIME", "samples") or a metric name ("CPUTIME (I)"), case-insensitive.
 * NULL selects the first one of the table.  Returns the index or -1.
 */
int rpt_db_find_metric(const struct rpt_db *db, const char *name);

/* ----------------------------------------------------------------- views */

/* Kinds of view nodes. */
/* A view node's kind is an enum csp_scope: ROOT (the program), PROC (a procedure frame),
 * INLINE (an inlined frame, --inlines keep), LOOP (--loops keep), STMT (only when
 * rpt_view_options.statements), TRUNC (the part of a path the database cut), GROUP (flat
 * views: a file, module or line row). */

struct rpt_view_options {
    bool keep_inlines;       /* --inlines keep (default) vs merge */
    bool keep_loops;         /* --loops keep vs hide (default) */
    bool statements;         /* add statement nodes (flat by line, callgrind lines) */
    bool keep_roots;         /* do not elide _start, __libc_start_*, start_thread, clone* */
    bool collapse_recursion; /* merge a frame into its caller when both are the same procedure */
    const char *focus;       /* POSIX ERE: keep only subtrees under matching frames, or NULL */
    const char *hide;        /* ERE: merge matching frames into their callers, or NULL */
    const char *hide_lib;    /* ERE on load module paths: merge their frames into the callers */
};

/*
 * One view node.  Names are interned in the tree's name table (shared by
 * trees built for a diff), so equal names have equal name ids.
 */
struct rpt_vnode {
    uint32_t parent, first_child, next_sibling, last_child; /* 0: none (root is 0) */
    uint8_t kind;                                           /* enum csp_scope */
    uint32_t name;                                          /* name id: rpt_tree_name() */
    int32_t proc;             /* procedure index in the tree's db, or -1 */
    int32_t lm;               /* load module index or -1 */
    int32_t file, line;       /* FRAME: declaration; LOOP/STMT: location; -1/0 if unknown */
    int32_t cs_file, cs_line; /* call site (file/line of the C or A), -1/0 if unknown */
    double calls;             /* sampled call count of the calls that entered this frame */
    uint32_t calls_callees;   /* > 1: calls are its call site's, shared by this many callee
                                 frames (an indirect call); 0 otherwise */
    uint64_t addr;            /* module-relative address (rpt_node.addr) of the first stored node
                      it was built from; 0 when unknown */
    uint8_t diff;             /* differential trees: enum rpt_diff_flags, else 0 */
    int32_t cur_cs_line;      /* differential trees, RPT_DIFF_MOVED: the current's call-site line */
};

struct rpt_names; /* opaque: interned strings */

struct rpt_tree {
    const struct rpt_db *db;
    struct rpt_names *names;
    bool owns_names;
    struct rpt_vnode *nodes; /* nodes[0] is the root; parents precede children */
    uint32_t nnodes;
    uint32_t cap;
    int nvalues;                /* value columns: one per additive inclusive metric */
    int *metric_of;             /* nvalues entries: db metric index of each column */
    double *self;               /* nnodes * nvalues */
    double *incl;               /* nnodes * nvalues; valid after rpt_tree_finish() */
    double db_total_difference; /* max |root inclusive - stored root value| over columns */
    /* where the sample counts of each column come from: rpt_tree_union() only, else NULL */
    struct rpt_count_source *counts;
};

/* Column of @db metric @m in trees of @db, or -1 when it has none. */
int rpt_tree_column(const struct rpt_tree *t, int m);

/* Self (exclusive) and inclusive value of column @col at view node @n. */
static inline double
rpt_self(const struct rpt_tree *t, uint32_t n, int col)
{
    return t->self[(size_t)n * (size_t)t->nvalues + (size_t)col];
}
static inline double
rpt_incl(const struct rpt_tree *t, uint32_t n, int col)
{
    return t->incl[(size_t)n * (size_t)t->nvalues + (size_t)col];
}

/*
 * Build the top-down view of @db under @opt.  @names: a name table to share
 * (for diffs), or NULL for a new one owned by the tree.  Regular
 * expressions that do not compile give RPT_EINVAL with the reason in @err.
 */
int rpt_tree_build(const struct rpt_db *db, const struct rpt_view_options *opt,
                   struct rpt_names *names, struct rpt_tree **out, char *err, size_t errlen);

/* Free @t (and its name table when it owns it); NULL is allowed. */
void rpt_tree_free(struct rpt_tree *t);

/* The interned name of a view node ("main", "loop at fig1.c:32").  Never NULL. */
const char *rpt_tree_name(const struct rpt_tree *t, uint32_t node);

/*
 * A new empty name table, for trees that will be compared; NULL on ENOMEM.
 * The caller frees it with rpt_names_free() after the trees that share it.
 */
struct rpt_names *rpt_names_new(void);

/* Free @names; NULL is allowed. */
void rpt_names_free(struct rpt_names *names);

/* The string of name @id (owned by @names), or "?" for an unknown id. */
const char *rpt_names_get(const struct rpt_names *names, uint32_t id);

/* Basename of file @f of the db ("fig1.c"), or "?" for -1. */
const char *rpt_file_base(const struct rpt_db *db, int f);

/*
 * Bottom-up (callers) view of @td, as defined in view.c ("bottom-up") and
 * docs/views.md: the root's children are the procedures (inlined and out-of-line
 * instances together; loops and statements are part of their procedure) with
 * their exclusive cost over all contexts as self and the inclusive cost of
 * their outermost instances (recursion counted once) as inclusive; the
 * children of a node are the callers through which that cost came, with the
 * part that came through each, keyed by the call-site line.  Paths are
 * followed at most @max_depth levels up (0: all).  Returns RPT_OK or
 * RPT_ENOMEM.  The result's root inclusive and self equal @td's (the root's
 * self: cost in no frame, e.g. a hidden outermost one).  Not async-signal-safe.
 */
int rpt_tree_bottom_up(const struct rpt_tree *td, unsigned max_depth, struct rpt_tree **out);

enum rpt_flat_by {
    RPT_FLAT_PROCEDURE,
    RPT_FLAT_FILE,
    RPT_FLAT_MODULE,
    RPT_FLAT_LOOP, /* loops only (build @td with keep_loops) */
    RPT_FLAT_LINE, /* statements (build @td with statements) */
};

/*
 * Flat (static) view of @td by docs/views.md's "Flat": one child of the
 * root per procedure (inlined and out-of-line instances together) / file
 * ("[unknown file]" for frames without one) / module / loop / line, self =
 * the sum of self costs attributed to it (a loop's: its own statements', not
 * its nested loops' nor the frames' called in it), inclusive = the sum of
 * the inclusive costs of its outermost occurrences (a recursive procedure is
 * not counted twice).  Cost that no row encloses is the root's self: @td's
 * root's own and, by procedure, that of loops and statements with no frame
 * above them (every frame above hidden or elided); so the root's self plus
 * the rows' self make the total.  Returns RPT_OK or RPT_ENOMEM.
 */
int rpt_tree_flat(const struct rpt_tree *td, enum rpt_flat_by by, struct rpt_tree **out);

/*
 * The flat view of @td's database by procedure, file or module read from the
 * database's stored static view instead of recomputed from the tree: rows
 * are that view's procedures, files or load modules with their stored
 * inclusive and exclusive values; calls come from @td.  Only for trees built
 * without --focus, --hide and --hide-lib (whose changes the stored view
 * cannot show), and not by procedure when @td keeps inlines and the view has
 * inlined scopes, nor by file when it has several scopes without a file
 * (docs/views.md's rows need the run-time nesting there); elided roots are
 * left out unless @td keeps them.  Returns RPT_OK, RPT_EINVAL (no stored
 * view, or a transform or @by it cannot serve: the caller recomputes with
 * rpt_tree_flat()) or RPT_ENOMEM.
 */
int rpt_tree_flat_stored(const struct rpt_tree *td, const struct rpt_view_options *opt,
                         enum rpt_flat_by by, struct rpt_tree **out);

/* --------------------------------------------------------- derived metrics */

struct rpt_formula; /* opaque: a compiled formula */

/*
 * Compile @text, a derived metric's formula (csprof-prof -M grammar:
 * + - * /, parentheses, min max sqrt log, event names, samples, calls),
 * against the value columns of @t.  Returns RPT_OK with *out (free with
 * rpt_formula_free), RPT_EINVAL with the position and reason in @err, or
 * RPT_ENOMEM.  [not async-signal-safe]
 */
int rpt_formula_compile(const struct rpt_tree *t, const char *text, struct rpt_formula **out,
                        char *err, size_t errlen);

/*
 * Value of @f at view node @node of @t (the tree it was compiled for, or one
 * derived from it): from the inclusive values when @inclusive, else from the
 * self values.  One undefined operation (x/0, sqrt(-1), log(0), overflow)
 * makes the whole value undefined, returned as 0 (as csprof-prof stores it).
 * Uses @f's scratch: one evaluation of @f at a time.  [not async-signal-safe]
 */
double rpt_formula_eval(const struct rpt_formula *f, const struct rpt_tree *t, uint32_t node,
                        bool inclusive);

/* Free @f; NULL is allowed. */
void rpt_formula_free(struct rpt_formula *f);

/*
 * Index of the inclusive derived metric named @name (its event name, "ipc",
 * or metric name, "ipc (I)"; case-insensitive), or -1.
 */
int rpt_db_find_derived(const struct rpt_db *db, const char *name);

/* ------------------------------------------------------------------- diff */

/* How the instances matched into a differential tree's node looked (rpt_vnode.diff). */
enum rpt_diff_flags {
    RPT_DIFF_INLINED_BASE = 1,  /* an instance in the base is an inlined frame */
    RPT_DIFF_INLINED_CUR = 2,   /* ... in the current */
    RPT_DIFF_OUTLINED_BASE = 4, /* an instance in the base is a procedure frame of its own */
    RPT_DIFF_OUTLINED_CUR = 8,  /* ... in the current */
    RPT_DIFF_MOVED = 16,        /* matched by procedure alone: the call-site lines differ
                                   (cs_line is the base's, cur_cs_line the current's) */
};

/* Where the sample counts behind a differential tree's column come from. */
struct rpt_count_source {
    int col;           /* the column that holds the samples of this column's event, or -1 */
    double per_sample; /* else the run's value per sample of the event (its total over its
                          Ledger's samples): count = value / per_sample; 0: unknown */
};

/*
 * Length of procedure name @name without the suffixes compilers give clones
 * of one source procedure: GCC's ".constprop.N", ".isra.N", ".part.N",
 * ".cold", ".lto_priv.N", ".localalias", ".clone.N", clang's ".llvm.N",
 * and C++ demanglers' " [clone .constprop.0]", any number of them
 * ("f.isra.0.cold" -> "f").  A name that is nothing but such a suffix is
 * kept whole.
 */
size_t rpt_proc_base_len(const char *name);

/*
 * Differential tree: the union of @base and @cur (built with the same name
 * table), matched by program structure, never by address or build-id.
 * Procedure frames and inlined frames are one kind here (an inlined and an
 * out-of-line instance of a procedure are the same procedure; the node's
 * diff flags say which each side had), named by rpt_proc_base_len()'s part
 * of their name.  Under matched parents, children are matched by (kind,
 * name, call-site line); of one name, the children left unmatched on both
 * sides are then paired in call-site line order when both sides have as
 * many (a call that moved a line, or whose line an inlined copy reports
 * differently), else left one-sided.  Loops match by file and line.  Files
 * of @cur are mapped to @base's by path, else by base name (-1 when
 * neither has it).  The result has 2 * nvalues columns: column c holds
 * @base's values and column nvalues + c @cur's, where nvalues is @base's
 * (the two databases must have the same value metrics by event name;
 * RPT_EINVAL otherwise, with the reason in @err), and the count sources of
 * every column (rpt_diff_count()).
 */
int rpt_tree_union(const struct rpt_tree *base, const struct rpt_tree *cur, struct rpt_tree **out,
                   char *err, size_t errlen);

/* The sample count of event @ev in @db's trust report (its Ledger element, csprof-prof's
 * Summary), or -1 when the database has none.  Not async-signal-safe. */
double rpt_ledger_samples(const struct rpt_db *db, const char *ev);

/*
 * Samples behind node @n's inclusive (@inclusive) or self value in base
 * column @col (0 <= col < nvalues / 2) or current column of @uni, read in
 * @t: @uni itself or a view built from it (rpt_tree_flat()).  -1 when the
 * database does not say (several events and no trust report).
 */
double rpt_diff_count(const struct rpt_tree *uni, const struct rpt_tree *t, uint32_t n, int col,
                      bool inclusive);

/* The family-wise error rate of a differential profile's intervals: 95 % confidence. */
#define RPT_DIFF_ALPHA 0.05

/*
 * The standard normal quantile of a two-sided interval at family-wise
 * confidence 1 - @alpha over @m intervals (Bonferroni):
 * z = Phi^-1(1 - alpha / (2 m)); m = 0 counts as 1.
 */
double rpt_diff_z(double alpha, size_t m);

/*
 * Newcombe's hybrid score interval (Newcombe 1998, Statistics in Medicine
 * 17:873, method 10) for p2 - p1, p1 = x1 / n1, p2 = x2 / n2, with normal
 * quantile @z: Wilson's score interval [l, u] of each proportion, then
 * lo = d - sqrt((p2 - l2)^2 + (u1 - p1)^2), hi = d + sqrt((u2 - p2)^2 + (p1 - l1)^2)
 * with d = p2 - p1.  Returns 0, or -1 (and NANs) when n1 or n2 is not positive.
 */
int rpt_diff_interval(double x1, double n1, double x2, double n2, double z, double *lo, double *hi);

/* One node's change between the runs of a differential tree (rpt_diff_change()). */
struct rpt_change {
    double base, cur;             /* values in the column's unit */
    double base_share, cur_share; /* percent of each run's own total */
    double base_n, cur_n;         /* samples behind them, -1 when unknown */
    double lo, hi;                /* interval of cur_share - base_share in percent points (NAN
                                     when the counts are unknown) */
    bool significant;             /* the interval excludes 0 */
};

/*
 * The change at node @n of @t (@uni or a view built from it) in base column
 * @col, inclusive or self values, with the interval of the change of share
 * at normal quantile @z (rpt_diff_z()).
 */
void rpt_diff_change(const struct rpt_tree *uni, const struct rpt_tree *t, uint32_t n, int col,
                     bool inclusive, double z, struct rpt_change *out);

/* Nodes of @t other than the root with a sample in either run: the m of rpt_diff_z(). */
size_t rpt_diff_tests(const struct rpt_tree *uni, const struct rpt_tree *t, int col,
                      bool inclusive);

/* ------------------------------------------------------ threads and ranks */

/* Summary statistics of values over threads or processes. */
struct rpt_stats {
    double sum, mean, min, max, stddev, cv; /* stddev: population; cv = stddev / mean */
    double count;                           /* how many of the values are nonzero */
};

/*
 * Statistics of @x[0..n) as the database's stats columns compute them
 * (lib/profile/prof_stats.c, after HPCToolkit): every value counts, zeros
 * included, so the mean shows imbalance and min is 0 where a thread never
 * reached the context.  All zero for n = 0.  [not async-signal-safe]
 */
void rpt_stats_of(const double *x, size_t n, struct rpt_stats *out);

/* A thread or a process of the database (from its Input rows). */
/*
 * One thread or process of a run, as every view names it.  A process is one
 * (host, pid, fork generation): the programs it exec'd in turn are its
 * images, and it is named by its last one; a thread is one tid of a process
 * (a main thread keeps its tid across exec).  Indices are experiment.xml's
 * Input thread= / process= (DB/thread-values.bin's).
 */
struct rpt_group {
    long long pid, tid, rank, thread_index; /* -1 when unknown (tid: processes) */
    long long process;                      /* process index (threads), or -1 */
    uint32_t nthreads;                      /* processes: threads read */
    const char *program;       /* the program of its last image (path; owned by the db), or NULL */
    const char *const *images; /* processes: the program of each image, in exec order, a
                                  program exec'd again in a row once (owned by the groups) */
    uint32_t nimages;
    uint32_t ninputs;        /* measurement records read */
    double samples, cpu_ns;  /* sums over its records (absent values left out) */
    double start_ns, end_ns; /* first start, last end (ns since the epoch), -1 when unknown */
    bool wrapper;            /* processes: a wrapper of the run's program (struct rpt_groups) */
};

/*
 * The threads and processes of a database, and the run's program: the last
 * image of the process that started first (`main`: what csrun's command
 * became after the execs of a wrapper, e.g. python3.11 behind a pyenv shim
 * that runs env, then bash).  When that process exec'd, every other process
 * that ended before its last image started is a wrapper (the wrapper's
 * helpers: `$(...)` subshells, readlink, basename); a run whose first
 * process never exec'd has none.
 */
struct rpt_groups {
    uint32_t nthreads, nprocesses;
    struct rpt_group *threads, *processes;
    long long main;         /* the run's process, -1 when no input was read */
    uint32_t nwrappers;     /* processes marked wrapper */
    const char **image_buf; /* storage of the processes' images */
};

/*
 * Fill @out with @db's threads and processes (rpt_groups_free frees it).
 * Returns RPT_OK, RPT_EFORMAT when a read input has no thread/process index
 * (a database older than thread-values.bin) or they are inconsistent, or
 * RPT_ENOMEM; the reason is in @err.
 */
int rpt_db_groups(const struct rpt_db *db, struct rpt_groups *out, char *err, size_t errlen);

/* Free what rpt_db_groups() put in @g (not @g itself); NULL is allowed. */
void rpt_groups_free(struct rpt_groups *g);

/* The base name of program path @path ("?" for NULL). */
const char *rpt_program_name(const char *path);

/*
 * Per-thread and per-process values of some calling contexts.  Values are
 * in the metric's unit (as rpt_db_value()); a process's value is the sum of
 * its threads'.  Index: [context * g.nthreads + thread] and
 * [context * g.nprocesses + process].
 */
struct rpt_tvalues {
    struct rpt_groups g;
    size_t ncontexts;
    double *thread_incl, *thread_excl;
    double *process_incl, *process_excl;
};

/*
 * Read the values of event metric @metric (an inclusive measured event, not
 * samples or calls) at the stored nodes @nodes[0..n) (indices into
 * db->nodes; 0 is the whole run) from thread-values.bin beside the
 * database's experiment.xml.  Returns RPT_OK with *out owned by the caller
 * (rpt_tvalues_free), RPT_EINVAL for a metric without per-thread values,
 * RPT_EIO when the file is missing, RPT_EFORMAT when it is damaged or does
 * not match experiment.xml, RPT_ENOMEM; the reason is in @err.
 */
int rpt_thread_values(const struct rpt_db *db, int metric, const uint32_t *nodes, size_t n,
                      struct rpt_tvalues **out, char *err, size_t errlen);

/* Free @tv; NULL is allowed. */
void rpt_tvalues_free(struct rpt_tvalues *tv);

#endif /* CSP_REPORT_H */
