/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * profile.h -- the analysis library: measurement files (lib/fmt) and program
 * structure (lib/structure) become one merged calling-context tree with
 * attribution to procedures, inlined frames, loops and statements, metrics
 * (inclusive, exclusive, derived), statistics across threads and processes,
 * a static (flat) view, and the experiment database that records it all
 * (share/schemas/experiment.dtd).
 *
 * Tool code (ordinary process context, never signal context).  The library
 * never prints and never exits.  Every function that can fail returns 0 (or
 * a count) on success and a negative enum prof_status on failure, with a
 * one-line message naming the file, option or value in prof_errmsg().
 * Problems that do not stop the analysis (a measurement file skipped, a load
 * module rebuilt since the measurement, a note about structure) are
 * collected as messages that the caller prints (prof_message()).
 * Allocation failure is returned as PROF_ENOMEM; after it the context may
 * only be passed to prof_free().
 *
 * Typical use (tools/csprof-prof):
 *   prof_new -> prof_load_structure_file* -> prof_add_measurements* ->
 *   prof_merge -> prof_add_derived_metric* -> prof_finish ->
 *   prof_summary_compute -> prof_write_database -> prof_free
 */
#ifndef CSP_PROFILE_H
#define CSP_PROFILE_H

/* The procedure that stands for time spent in the kernel on behalf of its caller's call
 * site (a measurement file's FMT_KERNEL_OFFSET leaf): no load module, no source. */
#define PROF_KERNEL_NAME "[kernel]"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trust/trust.h"

struct prof_ctx; /* opaque: fields live in profile_internal.h */

enum prof_status {
    PROF_OK = 0,
    PROF_ENOMEM = -1,  /* allocation failed: free the context, nothing else */
    PROF_EIO = -2,     /* a file could not be read or written (message names it) */
    PROF_EINVAL = -3,  /* bad input: a structure file, an expression, an option value */
    PROF_ENODATA = -4, /* no measurement file could be read */
    PROF_ESTATE = -5,  /* called in the wrong order (e.g. a derived metric after prof_finish) */
};

/* How the runs among the inputs (prof_run_count()) combine (prof_config.runs). */
enum prof_runs {
    PROF_RUNS_SUM = 0,      /* one column per event name, summed over runs */
    PROF_RUNS_SEPARATE = 1, /* one column per event and run: "CPUTIME [run 2]" */
};

/*
 * What the caller decides; the library reads no environment variable
 * (csprof-prof reads them and fills these).  Strings are borrowed: they
 * must stay valid until prof_free().
 */
struct prof_config {
    bool verbose;        /* also collect notes about load modules (PROF_MSG_NOTE) */
    enum prof_runs runs; /* see enum prof_runs */
    /* Threads that read and merge measurement files in prof_merge(); 0 or 1:
     * serial.  The result does not depend on it (byte for byte). */
    unsigned jobs;
    /* Root of separate debug files for struct_analyze() ($CSPROF_DEBUG_DIR);
     * NULL: /usr/lib/debug. */
    const char *debug_dir;
    /* Structure cache directory (struct_cache_dir() of $CSPROF_STRUCT_CACHE,
     * $XDG_CACHE_HOME, $HOME); NULL: no cache. */
    const char *struct_cache_dir;
};

/*
 * Create an empty analysis context.  @cfg may be NULL (defaults: all zero).
 * Returns 0 and sets *@out, or PROF_ENOMEM.  Free with prof_free().
 * [not async-signal-safe]
 */
int prof_new(const struct prof_config *cfg, struct prof_ctx **out);

/* Release everything the context owns (NULL is allowed).  [not async-signal-safe] */
void prof_free(struct prof_ctx *ctx);

/* Static text for a prof_status ("out of memory"...).  [not async-signal-safe] */
const char *prof_strerror(int status);

/*
 * The message of the last failure: one line naming the file, option or
 * value, without a program-name prefix; "" when none.  Owned by @ctx, valid
 * until the next call on it.  [not async-signal-safe]
 */
const char *prof_errmsg(const struct prof_ctx *ctx);

enum prof_msg_level {
    PROF_MSG_ERROR = 0,   /* something was skipped: "FILE: reason (file skipped)" */
    PROF_MSG_WARNING = 1, /* data is incomplete or approximated */
    PROF_MSG_NOTE = 2,    /* information (more of it with prof_config.verbose) */
};

/* Number of messages collected since the last prof_clear_messages(). */
size_t prof_message_count(const struct prof_ctx *ctx);
/*
 * Message @i (0 = oldest), one line, safe to print (no control bytes, valid
 * UTF-8); *@level (if non-NULL) receives its level.  Owned by @ctx.
 */
const char *prof_message(const struct prof_ctx *ctx, size_t i, enum prof_msg_level *level);
void prof_clear_messages(struct prof_ctx *ctx);

/*
 * Read the structure file @path (from csprof-struct) and use its modules
 * for the load modules whose build-id (or, without one, path) matches.
 * Returns 0, PROF_EINVAL (unreadable or invalid file), or PROF_ENOMEM.
 */
int prof_load_structure_file(struct prof_ctx *ctx, const char *path);

/*
 * Add measurement files: @arg is a directory (its *.cspm files, sorted by
 * name) or one file.  Each file joins the run of its run id (csrun's, in
 * the file), whichever call adds it; files without a run id (written
 * before run ids, or without csrun) make one run per call, as each call
 * did before (prof_run_count()).  A missing argument is recorded as a
 * skipped input with a PROF_MSG_ERROR message.  Returns the number of
 * inputs added, or PROF_ENOMEM.
 */
int prof_add_measurements(struct prof_ctx *ctx, const char *arg);

/* One run among the measurements added so far (prof_run_info()).  Strings are the context's. */
struct prof_run_info {
    const char *id;    /* its run id; "" for files written without one */
    const char *where; /* the prof_add_measurements() argument that named its first file */
    size_t files;      /* its measurement files (a file whose first record cannot be read
                        * counts with the other files of its argument) */
    uint64_t start_ns; /* the earliest record start among its files (CLOCK_REALTIME, ns); 0 */
};

/* The runs among the measurements added so far, in order of first appearance; with
 * PROF_RUNS_SEPARATE, run i's columns are "EVENT [run i+1]" (when there are several). */
size_t prof_run_count(const struct prof_ctx *ctx);

/* Run @i into *@out; 0, or PROF_EINVAL when there is no run @i. */
int prof_run_info(const struct prof_ctx *ctx, size_t i, struct prof_run_info *out);

/*
 * Read every input added so far and merge its calling-context trees.  A
 * file the reader rejects is skipped with a PROF_MSG_ERROR message.
 * Returns the number of files read (> 0), PROF_ENODATA when none could be
 * read, or PROF_ENOMEM.
 */
int prof_merge(struct prof_ctx *ctx);

/*
 * Merging spread over processes (csprof-prof-mpi), as hpcprof-mpi: every
 * process builds the same context (prof_new, structure files,
 * prof_add_measurements with the same arguments), process P of N calls
 * prof_merge_part(ctx, P, N, ...) and sends the buffer to one process,
 * which calls prof_merge_parts() with the N buffers in part order instead
 * of prof_merge(), and goes on alone.  The database is byte for byte the
 * one prof_merge() writes.  Buffers are for the same executable on the
 * same architecture (native byte order), not a file format.
 */

/*
 * Read and merge part @part of @nparts (a contiguous block of the inputs,
 * with prof_config.jobs threads) and pack the partial result into *@buf
 * (malloc'ed, *@len bytes; the caller frees it).  @ctx itself is not
 * changed, except for the error message.  Returns 0 or PROF_ENOMEM;
 * unreadable files are messages in the part, not errors.
 */
int prof_merge_part(struct prof_ctx *ctx, size_t part, size_t nparts, void **buf, size_t *len);

/*
 * Merge the @nparts packed parts of prof_merge_part(), @bufs[p] being
 * part p, into @ctx, as prof_merge() would have.  Returns as prof_merge(),
 * or PROF_EINVAL when a buffer is not a part of this context's inputs.
 */
int prof_merge_parts(struct prof_ctx *ctx, const void *const *bufs, const size_t *lens,
                     size_t nparts);

/*
 * Define a derived metric from @spec, "NAME=EXPR" (HPCView, [HPCView] §2):
 * EXPR uses numbers, the four operators + - * /, parentheses, the
 * functions min(a,b), max(a,b), sqrt(a), log(a) (natural) and metric
 * references by event name (CPUTIME, cycles, samples, calls; a name with
 * other characters is written in braces: {PAPI_TOT_CYC [run 2]}).  It is
 * evaluated on inclusive and on exclusive values of each node; a division
 * by zero or a log/sqrt out of domain gives 0 for that node.
 * Call after prof_merge() and before prof_finish().  Returns 0,
 * PROF_EINVAL (prof_errmsg(): "-M 'NAME=EXPR': position P: what is wrong"),
 * PROF_ESTATE, or PROF_ENOMEM.
 */
int prof_add_derived_metric(struct prof_ctx *ctx, const char *spec);

/*
 * Compute what the database holds: inclusive and exclusive values, the
 * static view, derived metrics, the numbering of threads and processes.
 * (Per-thread values and their statistics are computed in one pass while
 * prof_write_database() writes them.)  Returns 0, PROF_ESTATE, or
 * PROF_ENOMEM.
 */
int prof_finish(struct prof_ctx *ctx);

/* ---- the summary: plain data for the caller to print -------------------- */

struct prof_event_total {
    const char *name, *unit; /* owned by the context */
    double total;            /* display unit */
};

struct prof_stat_value {
    const char *name; /* owned by the context */
    uint64_t value;
};

struct prof_changed_module {
    const char *why; /* "PATH: changed since the measurement: ...", owned by the context */
    uint64_t samples;
};

struct prof_top_proc {
    uint32_t proc;    /* Procedure index in the database */
    const char *name; /* owned by the context */
    double value;     /* exclusive value of the ranking metric */
};

struct prof_top_path {
    uint32_t node;  /* a PF or A node */
    double value;   /* inclusive value of the ranking metric */
    char *path;     /* "main:12 > a > c", recursion folded; owned by the summary */
    uint64_t calls; /* call-edge count of the call site the last frame was called from */
};

/*
 * Everything csprof-prof reports after merging.  Strings are owned by the
 * context (or the summary where said) and valid until prof_free().
 */
struct prof_summary {
    size_t files, files_read, files_skipped; /* inputs, as in <Summary> */
    size_t threads, processes;
    size_t partial_threads; /* threads with only a checkpoint */
    struct prof_event_total *events;
    size_t nevents;
    struct prof_stat_value *stats; /* counters summed over the files read */
    size_t nstats;
    uint64_t samples;          /* in the tree */
    uint64_t main_samples;     /* of which under a procedure named main */
    uint64_t rooted_samples;   /* of which on a call path starting at an entry function */
    uint64_t unjudged_samples; /* of which the outermost frame is in a file without structure */
    uint64_t unknown_samples;  /* of which the leaf maps to no procedure */
    uint64_t changed_samples;  /* leaf samples in modules changed since the measurement */
    struct prof_changed_module *changed;
    size_t nchanged;
    uint64_t calls;           /* sum of call-edge counts */
    uint64_t cpu_ns;          /* CPU time while sampling was armed, summed over the threads */
    double samples_per_cpu_s; /* < 0 when no cpu_ns is known */
    /* The trust report (lib/trust): every thread read judged, the rooted share set. */
    struct trust_run trust;
    struct trust_verdict verdict;
    const char *rank_name, *rank_unit; /* the ranking metric: event 0, or "samples" */
    double rank_total;
    uint32_t top; /* the N of "top N" */
    struct prof_top_proc *top_procs;
    size_t ntop_procs;
    struct prof_top_path *top_paths;
    size_t ntop_paths;
};

/*
 * Fill @s (after prof_finish()) with the top @top procedures and call
 * paths.  Returns 0 or PROF_ENOMEM (then @s is empty).
 */
int prof_summary_compute(struct prof_ctx *ctx, uint32_t top, struct prof_summary *s);
void prof_summary_free(struct prof_summary *s);
/* A summed counter by name (0 when absent). */
uint64_t prof_summary_stat(const struct prof_summary *s, const char *name);

/* ---- the database --------------------------------------------------------- */

/*
 * Write @path (DB/experiment.xml) through "@path.tmp" renamed into place,
 * and the per-thread values beside it (DB/thread-values.bin, format in
 * share/schemas/thread-values.md).  Returns 0, PROF_EIO, or PROF_ENOMEM.
 */
int prof_write_database(struct prof_ctx *ctx, const struct prof_summary *s, const char *dir);

/* Where source files may be copied from (prof_copy_sources()). */
struct prof_source_options {
    const char *const *roots; /* -I DIR: only files below these directories are copied */
    size_t nroots;
    const char *const *replace_old; /* --replace-path OLD=NEW, applied first match wins */
    const char *const *replace_new;
    size_t nreplace;
};

/*
 * Copy the source files of the file table into @dir/src/, for source views.
 * A file is copied only when, after path replacement, it resolves (relative
 * names: below each root in turn) to a regular file below one of the roots
 * with no symbolic link on its way; names are sanitized.  Each copied file
 * is recorded in the database (File src=).  Call before
 * prof_write_database().  Returns the number of files copied, PROF_EIO
 * (the src directory could not be written), or PROF_ENOMEM; files refused
 * or not found are counted in messages, not errors.
 */
int prof_copy_sources(struct prof_ctx *ctx, const char *dir, const struct prof_source_options *opt);

/*
 * True if @name is a function where a thread's stack begins: the process
 * entry (_start, __libc_start_main, __libc_start_call_main, main) or a
 * thread's (start_thread, clone, clone3 and their glibc aliases).
 */
bool prof_is_entry_name(const char *name);

#endif /* CSP_PROFILE_H */
