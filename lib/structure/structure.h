/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * structure.h -- program structure of a load module: the scope tree
 * load module -> file -> procedure -> inlined code / loop -> statement,
 * each scope with the module-relative address ranges it covers
 * ([HPCView] §2.3 and §3, "bloop").
 *
 * Built from a binary with elfutils libelf/libdw (struct_analyze), written
 * to and read from the XML structure file (share/schemas/csprof-structure.dtd),
 * and queried by csprof-prof to map a sampled address to its innermost
 * scope (struct_lookup).  Tool code only: never linked into libcsprof.so.
 */
#ifndef CSP_STRUCTURE_H
#define CSP_STRUCTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "support/scope.h"

enum struct_status {
    STRUCT_OK = 0,
    STRUCT_EIO = -1,     /* cannot open/read the file (errno kept) */
    STRUCT_ENOTELF = -2, /* not an ELF file, or truncated/corrupt ELF */
    STRUCT_EARCH = -3,   /* ELF for a machine we do not support */
    STRUCT_EXML = -4,    /* structure file does not parse or does not validate */
    STRUCT_ENOMEM = -5,
};

/* A scope's kind is an enum csp_scope (support/scope.h): MODULE (the root: the load module),
 * FILE (a source file, children of the module), PROC (a procedure), INLINE (callee code
 * inlined at a call site, "alien" in HPCToolkit), LOOP (found by interval analysis of the
 * CFG), STMT (the code of one source line), CALL (one call instruction, never returned by
 * struct_lookup). */

/* struct struct_scope.flags */
enum struct_scope_flag {
    STRUCT_SCOPE_F_IRREDUCIBLE = 1, /* LOOP: entered at more than one block */
    STRUCT_SCOPE_F_INDIRECT = 2,    /* CALL: through a register or memory: no target */
    STRUCT_SCOPE_F_TAIL = 4,        /* CALL: a jump to another procedure (tail call) */
    STRUCT_SCOPE_F_NORETURN = 8,    /* CALL: the callee does not return */
};

/* Half-open module-relative address range [lo, hi). */
struct struct_range {
    uint64_t lo, hi;
};

/*
 * One scope.  Strings and ranges are owned by the module that holds the
 * scope.  Scopes of one kind have kind-specific meanings of the fields:
 *   FILE   name = source path
 *   PROC   name = demangled name, link_name = symbol (mangled), file/line = declaration
 *   INLINE name = demangled callee, file/line = callee's declaration,
 *          call_file/call_line = the call site in the enclosing code
 *   LOOP   file/line = loop header; entries = ranges of the blocks through which
 *          the loop is entered (its header; several blocks when irreducible)
 *   STMT   file/line = the statement's source line
 *   CALL   ranges = the call (or tail-call jump) instruction, whose end is the
 *          return address; file/line = its statement; target = callee entry
 *          (0 when indirect or unknown); name = callee name when known
 */
struct struct_scope {
    enum csp_scope kind;
    uint32_t id;           /* unique within the module, > 0 */
    const char *name;      /* may be NULL */
    const char *link_name; /* may be NULL */
    const char *file;      /* may be NULL when unknown */
    uint32_t line;         /* 0 when unknown */
    const char *call_file; /* INLINE only */
    uint32_t call_line;    /* INLINE only */
    struct struct_range *ranges;
    size_t nranges;
    struct struct_scope *parent;
    struct struct_scope *first_child;
    struct struct_scope *next_sibling;
    struct struct_range *entries; /* LOOP only */
    size_t nentries;
    uint64_t target; /* CALL only */
    unsigned flags;  /* enum struct_scope_flag */
};

struct struct_module; /* opaque */

/* Zero-initialized options give the defaults. */
struct struct_options {
    int verbose;      /* notes on stderr (e.g. "no DWARF: procedures only") */
    int no_normalize; /* nonzero: raw object-code loop structure ([HPCView] §3 rules not applied) */
    int jobs;         /* threads decoding procedures; <= 0: one per available core */
    /* Root of separate debug files (DIR/.build-id/xx/yyyy.debug and
     * DIR/<binary's directory>/<debuglink>); NULL: /usr/lib/debug.  After
     * them libdwfl asks debuginfod when DEBUGINFOD_URLS is set. */
    const char *debug_dir;
    /* Directory of csprof-structure.dtd for struct_read_xml_opt(); NULL:
     * <directory of the running executable>/../share/csprof/schemas. */
    const char *schema_dir;
    /* Structure cache directory for struct_analyze_cached(); NULL: no cache. */
    const char *cache_dir;
};

/* What the analysis saw, for reports (counts over the whole module). */
struct struct_stats {
    size_t procedures;       /* procedures decoded */
    size_t instructions;     /* instructions decoded */
    size_t loops;            /* loops found (before normalization) */
    size_t irreducible;      /* of which irreducible */
    size_t calls;            /* call sites, tail calls included */
    size_t bad_bytes;        /* bytes that did not decode as instructions */
    size_t unresolved_jumps; /* indirect jumps with neither a jump table nor labels */
    size_t jump_tables;      /* indirect jumps resolved through a jump table */
    size_t label_jumps;      /* indirect jumps bounded by address-taken labels (computed goto) */
};

/*
 * Analyze the ELF executable or shared library at @path.  On success *out
 * owns the scope tree.  A binary without DWARF (or stripped) succeeds with
 * procedures only and sets *note (if non-NULL) to a static explanation.
 * On failure returns a negative struct_status and writes one line naming
 * @path and the problem into @err.  [not async-signal-safe]
 */
int struct_analyze(const char *path, const struct struct_options *opt, struct struct_module **out,
                   const char **note, char *err, size_t errlen);

/*
 * Whether @note, as struct_analyze() set it, says that no DWARF was found
 * for the binary (stripped, or built without -g, and no separate debug
 * file): its procedures have no lines, its loops are known by address.
 */
bool struct_note_no_dwarf(const char *note);

/*
 * For a binary struct_analyze() found no DWARF for (struct_note_no_dwarf):
 * one line (no newline) saying what was looked for and what would name it,
 * into @buf of @len bytes, returned.  "looked for" the build-id debug file
 * DEBUGDIR/.build-id/xx/yyyy.debug (@build_id: lowercase hex, "" when none;
 * DEBUGDIR as @opt->debug_dir), its .gnu_debuglink name, and debuginfod when
 * DEBUGINFOD_URLS is set; then, when a Debian package owns @path (dpkg's
 * file lists under $DPKG_ADMINDIR, else /var/lib/dpkg, as `dpkg -S`), "install
 * PACKAGE-dbgsym".  Reads the binary and dpkg's file lists (tens of ms).
 * [not async-signal-safe]
 */
const char *struct_debug_hint(const char *path, const char *build_id,
                              const struct struct_options *opt, char *buf, size_t len);

/*
 * struct_analyze() through a cache of analyzed modules keyed by GNU
 * build-id, in @opt->cache_dir (as hpcstruct's cache): an entry
 * CACHE/<build-id>-n<no_normalize>.struct is used only when the file at
 * @path has that build-id and the size, modification time, path and
 * csprof version recorded with the entry, and, for an entry made without
 * DWARF, when no debug file has appeared since under @opt->debug_dir and
 * no debuginfod server is configured (DEBUGINFOD_URLS: it is asked again);
 * else the binary is analyzed and the entry (re)written: to a temporary
 * file renamed into place, so concurrent runs never see a partial
 * entry.  A cache that cannot be read or written is not an error (the
 * analysis result is returned).  Binaries without a build-id are never
 * cached.  *note as struct_analyze (also for a cache hit).  Returns as
 * struct_analyze.  [not async-signal-safe]
 */
int struct_analyze_cached(const char *path, const struct struct_options *opt,
                          struct struct_module **out, const char **note, char *err, size_t errlen);

/*
 * The cache directory for a setting and the environment the caller read:
 * @setting (e.g. $CSPROF_STRUCT_CACHE) "" or "off" disables the cache
 * (returns NULL); NULL or "default" gives @xdg_cache_home/csprof, else
 * @home/.cache/csprof (NULL when neither is an absolute path); another
 * value is the directory itself.  Writes into @buf of @len bytes and
 * returns it, or NULL (also when it does not fit).
 */
const char *struct_cache_dir(const char *setting, const char *xdg_cache_home, const char *home,
                             char *buf, size_t len);

/*
 * Write @n modules as one XML structure document to @out.  Deterministic:
 * the same input gives byte-identical output.  Returns 0 or STRUCT_EIO.
 */
int struct_write_xml(FILE *out, struct struct_module *const *mods, size_t n);

/*
 * Read a structure file (one or more modules).  *mods is a malloc'ed array
 * of *n modules, each released with struct_module_free(), the array with
 * free().  Errors as struct_analyze, naming the file and line.
 */
int struct_read_xml(const char *path, struct struct_module ***mods, size_t *n, char *err,
                    size_t errlen);

/* Same, with the DTD looked up in @opt->schema_dir (@opt may be NULL: the default). */
int struct_read_xml_opt(const char *path, const struct struct_options *opt,
                        struct struct_module ***mods, size_t *n, char *err, size_t errlen);

/* The module's root scope (kind MODULE; name = module path).  */
const struct struct_scope *struct_module_root(const struct struct_module *m);

/*
 * Counts from struct_analyze() (all zero for a module read from XML).
 * Points into @m.
 */
const struct struct_stats *struct_module_stats(const struct struct_module *m);

/* Path the module was built from, and its GNU build-id as lowercase hex ("" if none). */
const char *struct_module_path(const struct struct_module *m);
const char *struct_module_build_id(const struct struct_module *m);

/*
 * The module's ELF entry point e_entry (module-relative, as every address
 * here), or 0 when unknown (a structure file written before it was
 * recorded, or an ELF file without one).  The procedure containing it is
 * the process's outermost frame (_start) even when the binary is stripped.
 */
uint64_t struct_module_entry(const struct struct_module *m);

/*
 * Innermost scope containing module-relative address @offset: a STMT when
 * line information covers it, else the deepest INLINE/LOOP/PROC (a STMT
 * may be inside LOOPs inside INLINEs inside the PROC); never a CALL, whose
 * instruction also belongs to a STMT; NULL when no procedure contains it.  O(log n) after the first call builds an index.
 */
const struct struct_scope *struct_lookup(const struct struct_module *m, uint64_t offset);

/* Release a module; NULL is allowed. */
void struct_module_free(struct struct_module *m);

/* Text of a status.  Static storage. */
const char *struct_strerror(int status);

#endif /* CSP_STRUCTURE_H */
