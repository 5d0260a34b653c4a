/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * structure_internal.h -- private parts of lib/structure: the module
 * object, its string interner, range-set helpers and the lookup index.
 *
 * Tool code only (csprof-struct, csprof-prof).  Nothing here runs in a
 * profiled process or in signal context.  Other modules include only
 * structure.h.
 */
#ifndef CSP_STRUCTURE_INTERNAL_H
#define CSP_STRUCTURE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "structure/structure.h"
#include "support/arena.h"
#include "support/hashmap.h"

/* Name of the FILE scope that holds procedures whose source file is unknown. */
#define STRUCT_UNKNOWN_FILE "<unknown file>"

/* Version written to and accepted from <csprof-structure version="...">. */
#define STRUCT_XML_VERSION "1"

/* One leaf of the lookup index: [lo, hi) maps to its innermost scope. */
struct struct_index_entry {
    uint64_t lo, hi;
    const struct struct_scope *scope;
};

/* A growable array of ranges (malloc-backed; for building, not for the model). */
struct struct_rvec {
    struct struct_range *v;
    size_t n, cap;
};

struct struct_module {
    struct arena arena;       /* scopes, ranges and strings: freed at once */
    struct arena *xarenas;    /* more arenas for scopes built by worker threads */
    size_t nxarenas;          /* entries in xarenas */
    bool large;               /* arenas in huge-page chunks (struct_module_new_large) */
    struct struct_scope root; /* kind MODULE, name = path */
    const char *build_id;     /* lowercase hex, "" when none */
    uint64_t entry;           /* ELF e_entry (module-relative address); 0 when unknown */
    uint32_t next_id;         /* next scope id to hand out */

    /* String interner: string hash -> the copy in the arena (see struct_intern). */
    struct csp_hmap strings;

    struct struct_stats stats; /* from struct_analyze() */

    /* Lookup index, built lazily by struct_lookup() (hence mutable behind const). */
    struct struct_index_entry *index;
    size_t nindex;
    bool index_built;
};

/*
 * Create an empty module whose root is named @path (copied).
 * Returns NULL on allocation failure.
 */
struct struct_module *struct_module_new(const char *path);

/*
 * Same, and when @large its arenas take memory in 2 MB chunks the kernel
 * may back with transparent huge pages: for modules that grow to many
 * megabytes (struct_analyze), where 4 KB page faults cost much time.
 */
struct struct_module *struct_module_new_large(const char *path, bool large);

/*
 * File of the nearest PROC or INLINE enclosing @s (NULL when unknown): the
 * file an S, L or C without its own f attribute belongs to (the XML
 * writer omits it, the reader restores it).
 */
const char *struct_enclosing_file(const struct struct_scope *s);

/* Allocate @size zeroed bytes that live as long as @m; NULL on failure. */
void *struct_module_alloc(struct struct_module *m, size_t size);

/*
 * Return the module's single copy of @s (NULL gives NULL).  Equal strings
 * give the same pointer.  NULL (and @s non-NULL) on allocation failure.
 */
const char *struct_intern(struct struct_module *m, const char *s);

/*
 * New scope of @kind appended as the last child of @parent (no id yet:
 * struct_module_number() assigns ids).  Ranges are copied.  NULL on
 * allocation failure.
 */
struct struct_scope *struct_scope_new(struct struct_module *m, struct struct_scope *parent,
                                      enum csp_scope kind, const struct struct_range *r, size_t nr);

/*
 * Same as struct_scope_new(), allocating from @a (the module's arena or
 * one from struct_module_arenas()).  Thread-safe when @a belongs to the
 * calling thread and no other thread touches @parent.
 */
struct struct_scope *struct_scope_new_in(struct arena *a, struct struct_scope *parent,
                                         enum csp_scope kind, const struct struct_range *r,
                                         size_t nr);

/*
 * Add @n empty arenas to @m, freed with it: one per worker thread, so
 * threads can build scopes at the same time.  Returns the first of them,
 * or NULL on allocation failure.  A later call may move the arenas an
 * earlier one returned (not the memory they handed out): finish with
 * them first.
 */
struct arena *struct_module_arenas(struct struct_module *m, size_t n);

/*
 * Make the array @v (NULL, or from this function) hold at least @n
 * elements of @size (at most 64 KB) bytes; *cap is its capacity in
 * elements.  For large temporary arrays: the memory is an anonymous
 * mapping (64 KB and up, doubling) grown with mremap, so growing copies
 * nothing, and from 2 MB on advised for transparent huge pages, so
 * filling it takes few page faults.  Returns the array, which may have
 * moved, or NULL on failure (@v and *cap are then unchanged).  Release
 * with struct_vec_free(v, *cap, size), never free().
 */
void *struct_vec_reserve(void *v, size_t *cap, size_t n, size_t size);
void struct_vec_free(void *v, size_t cap, size_t size);

/*
 * Sort every scope's children (by lowest address, then kind, line, name),
 * and number the scopes in pre-order from 1.  Deterministic.
 */
void struct_module_finalize(struct struct_module *m);

/* --- range vectors (ranges.c); all return 0 or STRUCT_ENOMEM --- */

int struct_rvec_push(struct struct_rvec *rv, uint64_t lo, uint64_t hi);
void struct_rvec_free(struct struct_rvec *rv);

/* Sort and merge overlapping or touching ranges; drops empty ones. */
void struct_rvec_normalize(struct struct_rvec *rv);

/* out = a ∩ b, for normalized a and b (out is cleared first). */
int struct_ranges_intersect(const struct struct_range *a, size_t na, const struct struct_range *b,
                            size_t nb, struct struct_rvec *out);

/* out = a \ b, for normalized a and b (out is cleared first). */
int struct_ranges_subtract(const struct struct_range *a, size_t na, const struct struct_range *b,
                           size_t nb, struct struct_rvec *out);

/*
 * Format ranges as "0x10-0x20 0x30-0x40" into a malloc'ed string (NULL on
 * allocation failure; "" for no ranges).
 */
char *struct_ranges_format(const struct struct_range *r, size_t n);

/* Most characters one range takes in that format: "0x" + 16 digits, twice, '-', ' '. */
#define STRUCT_RANGE_CHARS 38

/*
 * Same format into @buf, which must hold n * STRUCT_RANGE_CHARS + 1
 * bytes.  Returns the length written (a '\0' follows).
 */
size_t struct_ranges_format_buf(const struct struct_range *r, size_t n, char *buf);

/*
 * Write "0x" and @v in lowercase hex without leading zeros (as printf
 * "0x%" PRIx64) at @p, which must hold 18 bytes; no '\0'.  Returns the
 * end of what was written.
 */
char *struct_put_hex(char *p, uint64_t v);

/*
 * Parse the format above into @out (cleared first).  Returns 0, or -1 on a
 * syntax error (lo >= hi counts as one), or STRUCT_ENOMEM.
 */
int struct_ranges_parse(const char *s, struct struct_rvec *out);

/*
 * Demangle a C++ (Itanium ABI) symbol.  Returns a malloc'ed string, or
 * NULL when @mangled is not a mangled name (or on allocation failure).
 * Implemented in demangle.cc with abi::__cxa_demangle.
 */
char *struct_demangle(const char *mangled);

/*
 * Read a structure file of exactly one module that this library wrote
 * (a cache entry), streaming: one procedure's XML nodes at a time, the
 * content checks of struct_read_xml() but no DTD validation.  Returns 0
 * and *out, or a negative struct_status with one line in @err.
 */
int struct_read_xml_stream(const char *path, struct struct_module **out, char *err, size_t errlen);

/* Does the sorted, normalized range list @r contain @addr? */
bool struct_ranges_contain(const struct struct_range *r, size_t n, uint64_t addr);

struct struct_cfg_env;

/* One procedure to restructure with loops and call sites. */
struct struct_proc_in {
    struct struct_scope *scope; /* PROC with its INLINE and STMT scopes built */
    uint64_t entry;             /* entry address (inside scope's ranges) */
};

struct struct_loop_job;

/*
 * Decode every procedure of @procs (in parallel, opt->jobs threads),
 * find its loops and call sites, and rebuild its subtree so loops sit
 * inside the inlined-code tree and statements inside loops; then apply
 * the [HPCView] §3 normalization unless opt->no_normalize.  The result
 * depends only on the inputs, never on the number of threads.  Adds to
 * m->stats.  Implemented in loopnest.c.
 *
 * Two steps, so decoding overlaps the caller's own work: _start() sets up
 * *out and lets opt->jobs - 1 threads decode procedures while the caller
 * goes on; _finish() decodes the rest and does everything else, then
 * frees the job.  Between the two the caller may add scopes (statements)
 * and move PROC scopes, but must not change their ranges, @procs or @env,
 * which must live until _finish() returns.  _finish(job, true) only stops
 * the threads and frees the job (on the caller's error path; returns
 * nonzero).  Both return 0 or STRUCT_ENOMEM (or STRUCT_EIO when no
 * decoder can be opened).
 */
int struct_recover_loops_start(struct struct_module *m, struct struct_proc_in *procs, size_t nprocs,
                               const struct struct_cfg_env *env, const struct struct_options *opt,
                               struct struct_loop_job **out);
int struct_recover_loops_finish(struct struct_loop_job *job, bool cancel);

#endif /* CSP_STRUCTURE_INTERNAL_H */
