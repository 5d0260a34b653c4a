/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * profile_internal.h -- private declarations of lib/profile, the analysis
 * library behind csprof-prof (public interface: profile.h).
 *
 * Tool code only (ordinary process context, never signal context).  The
 * pipeline is:
 *   prof_input.c   read measurement files, map their addresses to
 *                  procedure frames, inlined frames, loops and lines through
 *                  lib/structure, and merge their CCTs into one
 *                  presentation tree;
 *   prof_merge.c   the same merge in parallel (threads, or parts packed
 *                  for other processes) with the serial result;
 *   prof_tree.c    the presentation tree and its inclusive/exclusive metrics;
 *   prof_stats.c   per-thread and per-process values and their statistics;
 *   prof_flat.c    the static (flat) view;
 *   prof_derived.c derived metrics (over support/formula.h's parser);
 *   prof_source.c  source files copied into the database;
 *   prof_summary.c numbers for the run summary;
 *   prof_xml.c     DB/experiment.xml (share/schemas/experiment.dtd);
 *   prof_util.c    allocation, messages, hash maps, string interning.
 *
 * Allocation failure: prof_xmalloc() and friends never return NULL; they
 * longjmp to the innermost public entry point of the library that is
 * running on this thread (PROF_GUARD), which returns PROF_ENOMEM.  Every
 * structure is updated so that it stays freeable at any allocation point:
 * after PROF_ENOMEM the context can be freed, not used.
 */
#ifndef CSP_PROFILE_INTERNAL_H
#define CSP_PROFILE_INTERNAL_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"
#include "support/hashmap.h"
#include "support/scope.h"
#include "support/strtab.h"
#include "trust/trust.h"

struct csp_formula;
struct fmt_profile;
struct prof_modshare;
struct struct_module;

#define PROF_NONE UINT32_MAX /* "no index" in every table below */
_Static_assert(PROF_NONE == CSP_STRTAB_NONE, "a string not interned is PROF_NONE");

/*
 * The allocation-failure boundary of this thread: PROF_GUARD in each public
 * entry point sets it; prof_xmalloc() and friends longjmp to it.
 */
extern _Thread_local jmp_buf *prof_oom_env;

/*
 * Run @call (an int expression) with allocation failure returned as
 * PROF_ENOMEM from the enclosing function, recording the message in @ctx
 * (which may be NULL).  Nested guards restore the outer one.
 */
#define PROF_GUARD(ctx, call)                \
    do {                                     \
        jmp_buf prof_env_;                   \
        jmp_buf *prof_outer_ = prof_oom_env; \
        int prof_rc_;                        \
        if (setjmp(prof_env_) != 0) {        \
            prof_oom_env = prof_outer_;      \
            return prof_nomem(ctx);          \
        }                                    \
        prof_oom_env = &prof_env_;           \
        prof_rc_ = (call);                   \
        prof_oom_env = prof_outer_;          \
        return prof_rc_;                     \
    } while (0)

/*
 * Fault injection (tests only): when >= 0, the allocation after this many
 * more succeeds fails, and every one after it.  -1 (default): off.
 */
extern long prof_test_alloc_budget;

/* Record "out of memory" as @ctx's error (when non-NULL) and return PROF_ENOMEM. */
int prof_nomem(struct prof_ctx *ctx);
/* Record a formatted one-line error in @ctx and return @status. */
int prof_fail(struct prof_ctx *ctx, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Collect a message (cleaned like prof_xclean()) for the caller to print. */
void prof_msg(struct prof_ctx *ctx, enum prof_msg_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- prof_util.c ------------------------------------------------------ */

/* malloc/calloc/realloc/strdup that never return NULL: on failure they longjmp to
 * prof_oom_env (PROF_GUARD); outside any guard they abort (a library bug). */
void *prof_xmalloc(size_t size);
void *prof_xcalloc(size_t n, size_t size);
void *prof_xrealloc(void *p, size_t size);
char *prof_xstrdup(const char *s);
/*
 * A malloc'ed copy of @s (NULL: "") that is safe to print and to put in
 * XML: invalid UTF-8 and control bytes become "\xNN" (support/text.h).
 * Idempotent.
 */
char *prof_xclean(const char *s);
/* printf into a fresh malloc'ed string. */
char *prof_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow the array *@arr (element size @elem) so that it holds at least @need elements:
 * csp_vec_reserve (support/vec.h), with the allocation-failure injection of the tests, and
 * prof_oom() when it fails. */
void prof_grow(void *arr, size_t *cap, size_t need, size_t elem);

/* Map from a key of three 64-bit words to a 32-bit value: the keys and values in an array,
 * found through support/hashmap.h's csp_hmap in hashed-keys mode (the hash of the key ->
 * the entry's number + 1). */
struct prof_map_entry {
    uint64_t k[3];
    uint32_t val;
};
struct prof_map {
    struct csp_hmap index;
    struct prof_map_entry *e;
    size_t n, cap; /* entries used and allocated */
};
/* Value stored under (a, b, c), or PROF_NONE. */
uint32_t prof_map_get(const struct prof_map *m, uint64_t a, uint64_t b, uint64_t c);
/* Store @val under (a, b, c), replacing any previous value. */
void prof_map_put(struct prof_map *m, uint64_t a, uint64_t b, uint64_t c, uint32_t val);
/* Release the slots; the map may be used again (empty). */
void prof_map_free(struct prof_map *m);

/* String interning (support/strtab.h: dense ids 0, 1, 2, ...; csp_strtab_find answers
 * CSP_STRTAB_NONE, which is PROF_NONE): the id of @s, interned now when new; prof_oom()
 * when memory runs out (with the tests' failure injection). */
uint32_t prof_intern(struct csp_strtab *t, const char *s);

/* ---- prof_tree.c: the merged presentation tree ------------------------- */

/*
 * Node kinds of the presentation tree, as in HPCToolkit's experiment.xml:
 * a procedure frame (PF) holds its inlined frames (A), loops (L), call
 * sites (C) and statements (S); the callee frames of a call site are
 * children of its C node.
 */
/* A node's kind is an enum csp_scope (support/scope.h): ROOT; PROC; INLINE (proc = callee,
 * file/line = call site); LOOP (file/line = loop header); CALL (file/line of the call
 * instruction); STMT (file/line of the sampled instruction). */

struct prof_node {
    uint32_t parent; /* PROF_NONE for the root */
    uint32_t first_child, last_child, next_sibling;
    uint32_t kind;   /* enum csp_scope */
    uint32_t proc;   /* PF, A: procedure index; PROF_NONE otherwise */
    uint32_t file;   /* file index or PROF_NONE */
    uint32_t line;   /* 0 when unknown */
    uint32_t module; /* load module of the code, PROF_NONE when none */
    uint64_t offset; /* lowest module-relative address merged here (PF: procedure entry) */
    uint32_t nself;
    uint32_t span;    /* L without a line: bytes of its code from offset on; 0 otherwise */
    double *self;     /* values attributed to this node itself, display unit, per event */
    uint64_t samples; /* samples attributed to this node itself */
    uint64_t calls;   /* call-edge counts (C nodes) */
};

/*
 * The tree.  Node 0 is the root.  A child always has a larger index than
 * its parent, which prof_tree_compute() relies on.  After
 * prof_tree_compute(), incl/excl hold nevents values per node
 * (node * nevents + event) and incl_samples/excl_samples one per node.
 */
struct prof_tree {
    struct prof_node *nodes;
    size_t n, cap;
    struct prof_map children; /* (parent, kind<<32|proc, file<<32|line) -> child; a loop
                                 without a line: (parent, L<<32|PROF_LOOP_AT, offset) */
    uint32_t nevents;         /* set by prof_tree_compute */
    double *incl, *excl;
    uint64_t *incl_samples, *excl_samples;
};

#define PROF_NO_OFFSET UINT64_MAX

/* Initialise @t with its root.  */
void prof_tree_init(struct prof_tree *t);
/* The child of @parent with this key, created (appended last) if absent. */
uint32_t prof_tree_child(struct prof_tree *t, uint32_t parent, enum csp_scope kind, uint32_t proc,
                         uint32_t file, uint32_t line);
/*
 * A loop without a line (file PROF_NONE, line 0: stripped code) is known by
 * its address range alone: distinct loops of one frame must not merge into
 * one "?:0" node.  Such a child is keyed by its lowest address @offset
 * (PROF_LOOP_AT marks the key) and keeps @span, the bytes of its code.
 */
#define PROF_LOOP_AT (UINT32_MAX - 1)
static inline bool
prof_loop_lineless(uint32_t kind, uint32_t file, uint32_t line, uint64_t offset)
{
    return kind == CSP_SCOPE_LOOP && file == PROF_NONE && line == 0 && offset != PROF_NO_OFFSET;
}
uint32_t prof_tree_loop_child(struct prof_tree *t, uint32_t parent, uint64_t offset, uint32_t span);
/* Record that module @module's address @offset maps to @node (keeps the lowest). */
void prof_tree_note_address(struct prof_tree *t, uint32_t node, uint32_t module, uint64_t offset);
/* Add @value (display unit) of event @event to node @node's own value. */
void prof_tree_add_value(struct prof_tree *t, uint32_t node, uint32_t event, double value);
/* Add sample and call-edge counts to node @node itself. */
void prof_tree_add_counts(struct prof_tree *t, uint32_t node, uint64_t samples, uint64_t calls);
/*
 * Compute inclusive values (own + all descendants) and exclusive values for
 * @nevents events.  Exclusive: a C or S node's own value; a PF, A or L node's
 * own value plus the exclusive values of its children that are not procedure
 * frames (so a frame's exclusive covers its statements, loops and inlined
 * code, but not its callees); the root's own value for the root.
 */
void prof_tree_compute(struct prof_tree *t, uint32_t nevents);
/* Own value of @event at @node (0 when none). */
double prof_tree_self(const struct prof_tree *t, uint32_t node, uint32_t event);
static inline double
prof_tree_incl(const struct prof_tree *t, uint32_t node, uint32_t event)
{
    return t->incl[(size_t)node * t->nevents + event];
}
static inline double
prof_tree_excl(const struct prof_tree *t, uint32_t node, uint32_t event)
{
    return t->excl[(size_t)node * t->nevents + event];
}
void prof_tree_free(struct prof_tree *t);

/* ---- tables ------------------------------------------------------------ */

struct prof_event {
    char *name;         /* matched by name across files */
    char *unit;         /* raw unit */
    char *display_unit; /* unit after display_scale; values in the DB are in this unit */
    char *mechanism;
    uint64_t period;    /* period of the first file that had it */
    bool mixed_periods; /* files used different periods */
};

enum prof_module_state {
    PROF_MOD_UNLOADED = 0, /* structure not looked at yet */
    PROF_MOD_STRUCTURE,    /* structure from a -S file */
    PROF_MOD_ANALYZED,     /* structure from struct_analyze() */
    PROF_MOD_FAILED,       /* no structure: addresses become [unknown] procedures */
    PROF_MOD_CHANGED,      /* the file's build-id is not the measured one: addresses are
                              shown as module+0xOFFSET, never mapped through the new file */
};

struct prof_module {
    char *path;
    char *build_id; /* lowercase hex, "" when none */
    uint32_t state; /* enum prof_module_state */
    const struct struct_module *sm;
    struct struct_module *owned; /* freed at exit when analyzed here */
    char *source;                /* structure file path for PROF_MOD_STRUCTURE */
    char *why;                   /* PROF_MOD_FAILED, PROF_MOD_CHANGED: reason */
    uint64_t leaf_samples;       /* samples whose leaf lies in this module */
};

struct prof_file {
    uint32_t name; /* string id */
};

struct prof_proc {
    uint32_t name;      /* string id of the (demangled) name */
    uint32_t link_name; /* string id or PROF_NONE */
    uint32_t module;    /* module index or PROF_NONE */
    uint32_t file;      /* file index or PROF_NONE */
    uint32_t line;
    bool unknown; /* no procedure scope covered the address */
    bool is_main; /* name is "main" */
    bool is_root; /* an entry function (prof_is_entry_name) or the one holding its
                     module's ELF entry point: a call path that starts here is rooted */
};

/* One sequence of presentation steps for one (module, address, kind). */
struct prof_step {
    uint32_t kind; /* PF, A, L, C or S */
    uint32_t proc, file, line;
    uint32_t module; /* PROF_NONE when none */
    uint64_t offset; /* module-relative address of the scope (PF: entry) or PROF_NO_OFFSET */
    uint32_t span;   /* L without a line: bytes of the loop's code from offset on, else 0 */
};

/* One measurement file named on the command line (or found in a directory). */
struct prof_input {
    char *path;
    char *error; /* reader message when skipped, else NULL */
    uint32_t pid, tid, thread_index, generation;
    int32_t rank;
    uint64_t start_ns, end_ns, cpu_ns;
    uint64_t sampled_cpu_ns; /* CPU time while sampling was armed (fmt_profile_sampled_cpu_ns) */
    char *program, *command, *host;
    uint64_t samples;          /* sum of node sample counts */
    struct trust_thread trust; /* its record judged (lib/trust): the trust report's input */
    uint64_t nnodes;
    uint32_t run;                 /* its run (prof_ctx.runs, 0-based) */
    uint32_t thread, process;     /* indices among threads/processes read (PROF_NONE: skipped) */
    struct prof_contrib *contrib; /* own values this thread gave tree nodes */
    size_t ncontrib, contrib_cap;
    uint32_t nextra; /* records of this file after the first: the inputs appended for them */
    bool merged;     /* read already (another record of the same file) */
    bool partial;    /* only a checkpoint of this thread was written (killed run) */
};

/* A run among the inputs: a run id, or the argument that named files without one. */
struct prof_run {
    char *id;          /* "" for files without a run id */
    uint32_t arg;      /* the prof_add_measurements() call that named its first file */
    char *where;       /* that call's argument */
    size_t files;      /* inputs (files) in it */
    uint64_t start_ns; /* earliest record start seen, 0 unknown */
};

/* One -S structure module. */
struct prof_struct_input {
    struct struct_module *sm;
    char *file; /* the structure file it came from */
    bool used;
};

/* One value a thread contributed to a node's own value (per-thread values). */
struct prof_contrib {
    uint32_t node;
    uint32_t event; /* event index, or PROF_EV_SAMPLES */
    double value;
};
#define PROF_EV_SAMPLES UINT32_MAX

/* A collected message (profile.h: prof_message()). */
struct prof_message {
    enum prof_msg_level level;
    char *text;      /* cleaned */
    uint32_t module; /* module whose structure lookup said it (prof_merge.c), or PROF_NONE */
};

/* ---- prof_stats.c: statistics across threads and processes ------------- */

/* The statistics of a metric across threads or processes, in column order. */
enum prof_stat_kind {
    PROF_STAT_SUM = 0,
    PROF_STAT_MEAN, /* sum / N: a thread or process without a value counts as 0 */
    PROF_STAT_MIN,  /* 0 when some thread or process has no value */
    PROF_STAT_MAX,
    PROF_STAT_STDDEV, /* population: sqrt(sum(x^2)/N - mean^2) */
    PROF_STAT_CV,     /* stddev / mean (0 when mean is 0) */
    PROF_STAT_COUNT,  /* threads or processes with a nonzero value */
    PROF_NSTAT_KINDS
};
enum { PROF_OVER_THREADS = 0, PROF_OVER_PROCESSES = 1 };

/*
 * Accumulated statistics: for node v, event e, column c (0 inclusive,
 * 1 exclusive), over o: acc[(((v * nevents + e) * 2 + c) * 2 + o) * PROF_NACC + k]
 * with k = sum, sum of squares, minimum of present values, maximum, count.
 */
#define PROF_NACC 5
struct prof_stats {
    uint32_t nthreads, nprocesses; /* N of each statistic */
    uint32_t nevents;
    double *acc;
    /* Members of each thread / process: the inputs of group g of over o are
     * member[o][start[o][g] .. start[o][g + 1]). */
    uint32_t *member[2], *start[2];
};
void prof_stats_free(struct prof_stats *st);
/*
 * Visit the inclusive and exclusive values of every thread (@over =
 * PROF_OVER_THREADS) or process in turn, for every node and column where
 * one is nonzero: @fn(group, node, column, incl, excl, arg); column = event
 * index, or nevents for sample counts; nodes in decreasing order within a
 * group.  Groups are numbered as Input thread= / process= in the database.
 */
typedef void prof_group_visit_fn(uint32_t group, uint32_t node, uint32_t col, double incl,
                                 double excl, void *arg);
void prof_group_values(struct prof_ctx *ctx, int over, prof_group_visit_fn *fn, void *arg);

/* Number the threads and processes read (prof_finish): Input thread= / process=. */
void prof_stats_groups_compute(struct prof_ctx *ctx);
/*
 * Accumulate the statistics of every thread's and process's values, in one
 * propagation per thread (a process's values are the sums of its threads');
 * @fn (may be NULL) also receives every thread's values (prof_threads.c
 * writes them).  Before it, prof_stats_get() returns 0.
 */
void prof_stats_accumulate(struct prof_ctx *ctx, prof_group_visit_fn *fn, void *arg);
/* Statistic @k of (node, event, column, over). */
double prof_stats_get(const struct prof_ctx *ctx, uint32_t node, uint32_t event, int col, int over,
                      enum prof_stat_kind k);
/* ---- prof_flat.c: the static view ----------------------------------------- */

/* A flat node's kind is an enum csp_scope (support/scope.h): ROOT; MODULE (id: module index,
 * PROF_NONE: no module); FILE (id: file index, PROF_NONE: unknown file); PROC (id: procedure
 * index); INLINE (id: inlined procedure, file/line: call site); LOOP (file/line: loop
 * header); CALL (file/line: call site); STMT (file/line: statement). */

struct prof_flat_node {
    uint32_t parent, first_child, last_child, next_sibling;
    uint32_t kind, id, file, line;
    uint32_t module;
    uint64_t offset;
    uint32_t span; /* L without a line, as prof_node.span */
};

/*
 * The static view: load module > file > procedure > (inlined frame | loop)*
 * > call site | statement, each with inclusive and exclusive values per
 * event and for samples (column nevents).  incl/excl: [flat node * ncols +
 * column].  A static scope's inclusive value counts each sample once even
 * when the scope occurs several times on its call path (recursion).
 */
struct prof_flat {
    struct prof_flat_node *nodes;
    size_t n, cap;
    struct prof_map children;
    uint32_t ncols; /* nevents + 1 */
    double *incl, *excl;
    uint32_t *of_cct; /* CCT node -> flat node */
};
void prof_flat_compute(struct prof_ctx *ctx);
void prof_flat_free(struct prof_flat *f);

/* ---- prof_derived.c: derived metrics ------------------------------------- */

struct prof_derived {
    char *name, *formula;
    struct csp_formula *formula_code; /* compiled @formula (support/formula.h) */
    double *incl, *excl;              /* per CCT node (prof_finish) */
    double *flat_incl, *flat_excl;    /* per static-view node */
    size_t undefined;                 /* values (incl and excl, tree and static view)
                                         without a real result, stored as 0 */
};
/* Evaluate every derived metric on the tree and the static view (prof_finish). */
void prof_derived_compute(struct prof_ctx *ctx);
void prof_derived_free(struct prof_derived *d);

/*
 * Everything the library knows about one analysis: the configuration, the
 * tables the tree refers to (strings, events, modules, files, procedures),
 * the inputs, the merged tree and what prof_finish() derives from it.
 * Each part has its own structure and file; this only holds them together.
 */
struct prof_ctx {
    struct prof_config cfg;
    char *errmsg; /* last failure, or NULL */
    struct prof_message *msgs;
    size_t nmsgs, msgs_cap;
    uint32_t msg_module; /* tag of the messages collected now (struct prof_message.module) */
    struct prof_modshare *modshare; /* a part of a threaded merge: structure shared by the parts */
    bool finished;                  /* prof_finish() ran */
    uint32_t nruns;                 /* runs among the inputs (runs[], or a part's copy) */
    uint32_t nargs;                 /* prof_add_measurements() calls so far */
    struct prof_run *runs;          /* prof_run_info() */
    size_t runs_cap;

    struct csp_strtab strs;

    struct prof_event *events;
    size_t nevents, events_cap;

    struct prof_module *modules;
    size_t nmodules, modules_cap;
    struct prof_map module_index; /* (path id, build-id id, 0) -> module */

    struct prof_file *files;
    size_t nfiles, files_cap;
    struct prof_map file_index; /* (string id, 0, 0) -> file */

    struct prof_proc *procs;
    size_t nprocs, procs_cap;
    struct prof_map proc_index;   /* (module, name id, file<<32|line) -> proc */
    uint32_t unknown_module_proc; /* "[unknown module]", PROF_NONE until needed */

    struct prof_step *steps;
    size_t nsteps, steps_cap;
    struct prof_map expansion_index; /* (module+1, offset, leaf) -> first step; ends at C/S */
    struct prof_map walk_cache;      /* (tree node, first step, 0) -> node the steps end at */

    struct prof_struct_input *structs;
    size_t nstructs, structs_cap;

    struct prof_input *inputs;
    size_t ninputs, inputs_cap;
    size_t nread, nskipped;
    size_t npartial; /* threads with only checkpoint data */
    size_t ndamaged; /* records that could not be read (cut off by a kill) */

    /* Counters summed over all files read, in first-seen order. */
    char **stat_names;
    uint64_t *stat_values;
    size_t nstats, stats_cap;

    uint64_t unknown_samples; /* samples whose leaf is in no known procedure */
    size_t nchanged;          /* modules in state PROF_MOD_CHANGED */
    uint64_t total_calls;     /* sum of call-edge counts */

    struct prof_tree tree;

    struct prof_derived *derived; /* prof_derived.c */
    size_t nderived, derived_cap;
    struct prof_stats stats; /* prof_stats.c */
    struct prof_flat flat;   /* prof_flat.c */
    char **file_src;         /* per file: DB-relative copy ("src/..."), or NULL */
};

/* ---- prof_input.c ------------------------------------------------------ */

void prof_ctx_init(struct prof_ctx *ctx, const struct prof_config *cfg);
void prof_ctx_free(struct prof_ctx *ctx);

/* Add the files of @arg as run @run (prof_add_measurements). Returns the count added. */
size_t prof_collect_inputs(struct prof_ctx *ctx, const char *arg, uint32_t run);
/* The runs of inputs @first.. (added for argument @arg): by run id, or by argument for files
 * without one (profile.h, prof_run_info()). */
void prof_assign_runs(struct prof_ctx *ctx, size_t first, const char *arg);

/* Read input @i and merge it.  Returns 0 when merged, -1 when skipped (message collected). */
int prof_merge_input(struct prof_ctx *ctx, size_t i);

/* Look up the structure of module @mi in this context alone (prof_modshare_resolve). */
void prof_module_resolve_here(struct prof_ctx *ctx, uint32_t mi);

/* File index of an already cleaned name (prof_xclean), created if absent. */
uint32_t prof_file_get_clean(struct prof_ctx *ctx, const char *clean);

/* ---- prof_merge.c: merging in parallel ------------------------------------ */

/*
 * The structure of module @mi of a part (ctx->modshare set), looked up once
 * for all the parts of a threaded merge: the first part to meet the module
 * analyzes it, the others copy its state and messages.  Thread-safe.
 */
void prof_modshare_resolve(struct prof_ctx *ctx, uint32_t mi);
/* Merge every input: in order, or with cfg.jobs threads (same result).  prof_merge(). */
void prof_merge_inputs(struct prof_ctx *ctx);
/* The checks and messages after the last input is merged; returns prof_merge()'s value. */
int prof_merge_end(struct prof_ctx *ctx);
/* prof_merge_part() and prof_merge_parts() under their guard. */
int prof_merge_part_impl(struct prof_ctx *ctx, size_t part, size_t nparts, void **buf, size_t *len);
int prof_merge_parts_impl(struct prof_ctx *ctx, const void *const *bufs, const size_t *lens,
                          size_t nparts);

/*
 * Merge an already-read profile (tests call this directly).  @input
 * receives its identity and totals.
 */
void prof_merge_profile(struct prof_ctx *ctx, const struct fmt_profile *p,
                        struct prof_input *input);

/* Display name of a procedure. */
const char *prof_proc_name(const struct prof_ctx *ctx, uint32_t proc);

/* ---- prof_summary.c ----------------------------------------------------- */

/* Stat value by name (0 when absent). */
uint64_t prof_stat(const struct prof_ctx *ctx, const char *name);
/* Threads and processes read (distinct host, pid, generation[, tid]). */
size_t prof_count_distinct(const struct prof_ctx *ctx, bool threads);

/* ---- prof_xml.c --------------------------------------------------------- */

/* Write DB/thread-values.bin (prof_threads.c); returns 0 or PROF_EIO with the message set. */
int prof_write_thread_values(struct prof_ctx *ctx, const char *dir);
/* Write DB/experiment.xml; returns 0 or a prof_status with the message set. */
int prof_write_experiment(struct prof_ctx *ctx, const struct prof_summary *s, const char *path);

#endif /* CSP_PROFILE_INTERNAL_H */
