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
enum rpt_cct_kind {
    RPT_CCT_ROOT,     /* SecCallPathProfileData: the whole run */
    RPT_CCT_FRAME,    /* PF: procedure frame */
    RPT_CCT_INLINE,   /* A: inlined frame */
    RPT_CCT_LOOP,     /* L */
    RPT_CCT_CALLSITE, /* C: call site; the callee frames are its children */
    RPT_CCT_STMT,     /* S: statement */
    RPT_CCT_TRUNC,    /* T: the rest of a path cut by csprof-prof */
};

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
};

struct rpt_node {
    uint32_t id;           /* the stored node id (attribute i; 0 for the root) */
    uint32_t parent;       /* index; the root (0) is its own parent */
    uint32_t first_child;  /* 0: none */
    uint32_t next_sibling; /* 0: none */
    uint8_t kind;          /* enum rpt_cct_kind */
    int32_t proc;          /* FRAME/INLINE: procedure index, else -1 */
    int32_t lm;            /* FRAME: load module or -1 */
    int32_t file, line;    /* -1 / 0 when absent */
    uint64_t addr;         /* a: address relative to the load module lm (a frame's entry,
                              a loop's or statement's first instruction); 0 when absent */
};

/* Kinds of stored static-view scopes (SecFlatProfileData; experiment.dtd Static*). */
enum rpt_static_kind {
    RPT_STATIC_ROOT,
    RPT_STATIC_MODULE, /* StaticLM */
    RPT_STATIC_FILE,   /* StaticF */
    RPT_STATIC_PROC,   /* StaticP */
    RPT_STATIC_INLINE, /* StaticA */
    RPT_STATIC_LOOP,   /* StaticL */
    RPT_STATIC_CALL,   /* StaticC */
    RPT_STATIC_STMT,   /* StaticS */
};

/* One scope of the stored static view. */
struct rpt_snode {
    uint32_t parent;    /* index; the root (0) is its own parent */
    uint8_t kind;       /* enum rpt_static_kind */
    int32_t proc;       /* PROC/INLINE: procedure index, else -1 */
    int32_t lm;         /* load module or -1 */
    int32_t file, line; /* -1 / 0 when absent */
};

struct rpt_db {
    char *path;    /* the experiment.xml read */
    char *program; /* Header n */
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
 * program of the process that started first, and for a database of several
 * processes how many more and of which programs, most frequent first
 * ("make (+ 37 processes: cc1 x12, as x12, collect2 x1, ...)"; the
 * multiplication sign is U+00D7).  Program names are basenames.
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
enum rpt_kind {
    RPT_ROOT,   /* the program */
    RPT_FRAME,  /* a procedure frame */
    RPT_INLINE, /* an inlined frame (--inlines keep) */
    RPT_LOOP,   /* a loop (--loops keep) */
    RPT_STMT,   /* a statement (only when rpt_view_options.statements) */
    RPT_TRUNC,  /* the part of a path the database cut */
    RPT_GROUP,  /* flat views: a file, module or line row */
};

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
    uint8_t kind;                                           /* enum rpt_kind */
    uint32_t name;                                          /* name id: rpt_tree_name() */
    int32_t proc;             /* procedure index in the tree's db, or -1 */
    int32_t lm;               /* load module index or -1 */
    int32_t file, line;       /* FRAME: declaration; LOOP/STMT: location; -1/0 if unknown */
    int32_t cs_file, cs_line; /* call site (file/line of the C or A), -1/0 if unknown */
    double calls;             /* sampled call count of the calls that entered this frame */
    uint64_t addr;            /* module-relative address (rpt_node.addr) of the first stored node
                      it was built from; 0 when unknown */
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
 * Bottom-up (callers) view of @td: the root's children are the procedures
 * (and loops, when kept) with their total self cost as self and their
 * recursion-free inclusive cost as inclusive; the children of a node are the
 * callers through which that cost came, with the part that came through
 * each.  Paths are followed at most @max_depth levels up (0: all).
 * Returns RPT_OK or RPT_ENOMEM.  The result's root inclusive and self
 * equal @td's (the root's self: cost in no frame, e.g. a hidden outermost one).
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
 * Flat (static) view of @td: one child of the root per procedure / file /
 * module / loop / line, self = the sum of self costs attributed to it,
 * inclusive = the sum of the inclusive costs of its outermost occurrences
 * (a recursive procedure is not counted twice).  Cost that no row encloses
 * is the root's self: @td's root's own and, by procedure, that of loops and
 * statements with no frame above them (every frame above hidden or elided);
 * so the root's self plus the rows' self make the total.  Returns RPT_OK or
 * RPT_ENOMEM.
 */
int rpt_tree_flat(const struct rpt_tree *td, enum rpt_flat_by by, struct rpt_tree **out);

/*
 * The flat view of @td's database by procedure, file or module read from the
 * database's stored static view instead of recomputed from the tree: rows
 * are that view's procedures (and inlined frames when @td keeps inlines),
 * files or load modules with their stored inclusive and exclusive values
 * (exclusive of a procedure less its inlined frames' when they are rows);
 * calls come from @td.  Only for trees built without --focus, --hide and
 * --hide-lib (whose changes the stored view cannot show); elided roots are
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

/*
 * Differential tree: the union of @base and @cur (built with the same name
 * table), nodes matched by kind, name and call-site line (never by address).
 * The result has 2 * nvalues columns: column c holds @base's values and
 * column nvalues + c @cur's, where nvalues is @base's (the two databases must
 * have the same value metrics by event name; RPT_EINVAL otherwise, with the
 * reason in @err).
 */
int rpt_tree_union(const struct rpt_tree *base, const struct rpt_tree *cur, struct rpt_tree **out,
                   char *err, size_t errlen);

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
struct rpt_group {
    long long pid, tid, rank, thread_index; /* -1 when unknown (tid: processes) */
    long long process;                      /* process index (threads), or -1 */
    uint32_t nthreads;                      /* processes: threads read */
    const char *program;                    /* owned by the db, or NULL */
};

/*
 * Per-thread and per-process values of some calling contexts.  Values are
 * in the metric's unit (as rpt_db_value()); a process's value is the sum of
 * its threads'.  Index: [context * nthreads + thread] and
 * [context * nprocesses + process].
 */
struct rpt_tvalues {
    uint32_t nthreads, nprocesses;
    struct rpt_group *threads, *processes;
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
