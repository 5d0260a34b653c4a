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
    struct struct_scope root; /* kind MODULE, name = path */
    const char *build_id;     /* lowercase hex, "" when none */
    uint32_t next_id;         /* next scope id to hand out */

    /* String interner: open addressing, pointers into the arena. */
    const char **strtab;
    size_t strtab_cap, strtab_used;

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
                                      enum struct_scope_kind kind, const struct struct_range *r,
                                      size_t nr);

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

/* Does the sorted, normalized range list @r contain @addr? */
bool struct_ranges_contain(const struct struct_range *r, size_t n, uint64_t addr);

struct struct_cfg_env;

/* One procedure to restructure with loops and call sites. */
struct struct_proc_in {
    struct struct_scope *scope; /* PROC with its INLINE and STMT scopes built */
    uint64_t entry;             /* entry address (inside scope's ranges) */
};

/*
 * Decode every procedure of @procs (in parallel, opt->jobs threads),
 * find its loops and call sites, and rebuild its subtree so loops sit
 * inside the inlined-code tree and statements inside loops; then apply
 * the seed 003 §3 normalization unless opt->no_normalize.  The result
 * depends only on the inputs, never on the number of threads.  Adds to
 * m->stats.  Returns 0 or STRUCT_ENOMEM (or STRUCT_EIO when no decoder
 * can be opened).  Implemented in loopnest.c.
 */
int struct_recover_loops(struct struct_module *m, struct struct_proc_in *procs, size_t nprocs,
                         const struct struct_cfg_env *env, const struct struct_options *opt);

#endif /* CSP_STRUCTURE_INTERNAL_H */
