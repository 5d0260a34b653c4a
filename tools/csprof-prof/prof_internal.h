/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_internal.h -- shared declarations of csprof-prof, the analysis tool
 * that turns measurement files into an experiment database.
 *
 * Tool code only (ordinary process context, never signal context).  The
 * pipeline is:
 *   prof_input.c   read measurement files, map their addresses to
 *                  procedure frames, inlined frames, loops and lines through
 *                  lib/structure, and merge their CCTs into one
 *                  presentation tree;
 *   prof_tree.c    the presentation tree and its inclusive/exclusive metrics;
 *   prof_summary.c numbers for the run summary (text and XML);
 *   prof_xml.c     DB/experiment.xml (share/schemas/experiment.dtd);
 *   prof_util.c    hash maps, string interning, checked allocation.
 * Allocation failure in this tool prints one line and exits with status 1
 * (prof_xmalloc and friends); nothing here returns partially built data.
 */
#ifndef CSP_PROF_INTERNAL_H
#define CSP_PROF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct fmt_profile;
struct struct_module;

#define PROF_NONE UINT32_MAX /* "no index" in every table below */

/* Exit statuses of the tool. */
enum prof_exit {
    PROF_EXIT_OK = 0,
    PROF_EXIT_FAIL = 1,  /* no readable measurement, DB refused or not written */
    PROF_EXIT_USAGE = 2, /* bad option or option value */
};

/* ---- prof_util.c ------------------------------------------------------ */

/* malloc/calloc/realloc/strdup that print "csprof-prof: out of memory" and exit(1). */
void *prof_xmalloc(size_t size);
void *prof_xcalloc(size_t n, size_t size);
void *prof_xrealloc(void *p, size_t size);
char *prof_xstrdup(const char *s);
/*
 * A malloc'ed copy of @s (NULL: "") that is safe to print and to put in
 * XML: invalid UTF-8 and control bytes become "\xNN" (support/text.h).
 * Idempotent.  Exits on allocation failure.
 */
char *prof_xclean(const char *s);
/*
 * Print "csprof-prof: MESSAGE" and a newline on stderr, MESSAGE formatted
 * like printf and cleaned like prof_xclean(): file and module names in it
 * cannot move the terminal's cursor or split the line.
 */
void prof_eprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* printf into a fresh malloc'ed string (exits on failure). */
char *prof_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow the array *@arr (element size @elem) so that it holds at least @need elements. */
void prof_grow(void *arr, size_t *cap, size_t need, size_t elem);

/* Open-addressing hash map from a key of three 64-bit words to a 32-bit value. */
struct prof_map_slot {
    uint64_t k[3];
    uint32_t val;
    uint32_t used;
};
struct prof_map {
    struct prof_map_slot *slots;
    size_t cap; /* power of two, or 0 before the first insertion */
    size_t n;
};
/* Value stored under (a, b, c), or PROF_NONE. */
uint32_t prof_map_get(const struct prof_map *m, uint64_t a, uint64_t b, uint64_t c);
/* Store @val under (a, b, c), replacing any previous value. */
void prof_map_put(struct prof_map *m, uint64_t a, uint64_t b, uint64_t c, uint32_t val);
/* Release the slots; the map may be used again (empty). */
void prof_map_free(struct prof_map *m);

/* String interning: each distinct string gets a dense id 0, 1, 2, ... */
struct prof_strtab {
    char **strs; /* owned copies, indexed by id */
    size_t n, cap;
    uint32_t *index; /* open addressing over ids; PROF_NONE = empty */
    size_t index_cap;
};
uint32_t prof_intern(struct prof_strtab *t, const char *s);
/* Id of @s if interned, else PROF_NONE. */
uint32_t prof_strtab_find(const struct prof_strtab *t, const char *s);
void prof_strtab_free(struct prof_strtab *t);

/* ---- prof_tree.c: the merged presentation tree ------------------------- */

/*
 * Node kinds of the presentation tree, as in HPCToolkit's experiment.xml:
 * a procedure frame (PF) holds its inlined frames (A), loops (L), call
 * sites (C) and statements (S); the callee frames of a call site are
 * children of its C node.
 */
enum prof_node_kind {
    PROF_NODE_ROOT = 0,
    PROF_NODE_PF = 1,
    PROF_NODE_A = 2, /* inlined frame: proc = callee; file/line = call site */
    PROF_NODE_L = 3, /* loop: file/line = loop header */
    PROF_NODE_C = 4, /* call site: file/line of the call instruction */
    PROF_NODE_S = 5, /* statement: file/line of the sampled instruction */
};

struct prof_node {
    uint32_t parent; /* PROF_NONE for the root */
    uint32_t first_child, last_child, next_sibling;
    uint32_t kind; /* enum prof_node_kind */
    uint32_t proc; /* PF, A: procedure index; PROF_NONE otherwise */
    uint32_t file; /* file index or PROF_NONE */
    uint32_t line; /* 0 when unknown */
    uint32_t nself;
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
    struct prof_map children; /* (parent, kind<<32|proc, file<<32|line) -> child */
    uint32_t nevents;         /* set by prof_tree_compute */
    double *incl, *excl;
    uint64_t *incl_samples, *excl_samples;
};

/* Initialise @t with its root.  */
void prof_tree_init(struct prof_tree *t);
/* The child of @parent with this key, created (appended last) if absent. */
uint32_t prof_tree_child(struct prof_tree *t, uint32_t parent, enum prof_node_kind kind,
                         uint32_t proc, uint32_t file, uint32_t line);
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
};

/* One measurement file named on the command line (or found in a directory). */
struct prof_input {
    char *path;
    char *error; /* reader message when skipped, else NULL */
    uint32_t pid, tid, thread_index, generation;
    int32_t rank;
    uint64_t start_ns, end_ns, cpu_ns;
    char *program, *command, *host;
    uint64_t samples; /* sum of node sample counts */
    uint64_t nnodes;
    bool merged;  /* read already (another record of the same file) */
    bool partial; /* only a checkpoint of this thread was written (killed run) */
};

/* One -S structure module. */
struct prof_struct_input {
    struct struct_module *sm;
    char *file; /* the structure file it came from */
    bool used;
};

struct prof_options {
    const char *db;
    bool force;
    bool verbose;
    uint32_t top;
};

/* Everything csprof-prof knows about one run. */
struct prof_ctx {
    struct prof_options opt;
    struct prof_strtab strs;

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
};

/* ---- prof_input.c ------------------------------------------------------ */

void prof_ctx_init(struct prof_ctx *ctx);
void prof_ctx_free(struct prof_ctx *ctx);

/*
 * Read the structure file @path (-S) and keep its modules for matching.
 * Returns 0, or -1 after printing one line naming the file.
 */
int prof_load_structure_file(struct prof_ctx *ctx, const char *path);

/*
 * Add the measurement files named by @arg: a directory (its *.cspm files,
 * sorted by name) or a file.  A missing/unreadable argument is reported and
 * recorded as a skipped input.  Returns the number of files added.
 */
size_t prof_collect_inputs(struct prof_ctx *ctx, const char *arg);

/*
 * Read input @i and merge it into the tree.  A file the reader rejects is
 * reported on stderr (the reader's message) and marked skipped.
 * Returns 0 when merged, -1 when skipped.
 */
int prof_merge_input(struct prof_ctx *ctx, size_t i);

/*
 * Merge an already-read profile (tests call this directly).  @input
 * receives its identity and totals.
 */
void prof_merge_profile(struct prof_ctx *ctx, const struct fmt_profile *p,
                        struct prof_input *input);

/*
 * True if @name is a function where a thread's stack begins: the process
 * entry (_start, __libc_start_main, __libc_start_call_main, main) or a
 * thread's (start_thread, clone, clone3 and their glibc aliases).
 */
bool prof_is_entry_name(const char *name);

/* Display name of a procedure. */
const char *prof_proc_name(const struct prof_ctx *ctx, uint32_t proc);

/* ---- prof_summary.c ----------------------------------------------------- */

struct prof_top_proc {
    uint32_t proc;
    double value; /* exclusive value of event 0, display unit */
};

struct prof_top_path {
    uint32_t node; /* a PF or A node */
    double value;  /* inclusive value of event 0 */
    char *path;    /* "main > a > c" */
};

struct prof_summary {
    size_t threads, processes;
    uint64_t samples;          /* in the tree */
    uint64_t main_samples;     /* of which under a procedure named main */
    uint64_t rooted_samples;   /* of which on a call path whose outermost frame is an entry
                                 function (struct prof_proc.is_root): the walk was complete */
    uint64_t unjudged_samples; /* of which the outermost frame lies in a file whose structure
                                  is unavailable (changed or unreadable): rooted or not unknown */
    uint64_t changed_samples;  /* leaf samples in modules changed since the measurement */
    uint64_t cpu_ns;           /* sum of headers' cpu_ns */
    double samples_per_cpu_s;  /* < 0 when no cpu_ns is known */
    double *event_totals;      /* per event, display unit */
    struct prof_top_proc *top_procs;
    size_t ntop_procs;
    struct prof_top_path *top_paths;
    size_t ntop_paths;
};

/* Compute the summary (after prof_tree_compute). */
void prof_summary_compute(const struct prof_ctx *ctx, struct prof_summary *s);
/* Print the summary text to @out (format documented in prof_summary.c). */
void prof_summary_print(const struct prof_ctx *ctx, const struct prof_summary *s, FILE *out);
void prof_summary_free(struct prof_summary *s);
/* Stat value by name (0 when absent). */
uint64_t prof_stat(const struct prof_ctx *ctx, const char *name);

/* ---- prof_xml.c --------------------------------------------------------- */

/*
 * Write @path (experiment.xml) through a temporary file renamed into place.
 * Returns 0, or -1 after printing one line naming the file.
 */
int prof_write_experiment(const struct prof_ctx *ctx, const struct prof_summary *s,
                          const char *path);

#endif /* CSP_PROF_INTERNAL_H */
