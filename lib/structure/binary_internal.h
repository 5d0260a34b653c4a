/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * binary_internal.h -- the binary front end of lib/structure: what
 * struct_analyze() reads from an ELF file before it builds scopes.
 *
 *   elf_image.c    ELF checks, executable ranges, build-id, loaded sections
 *   symbols.c      ELF function symbols (.symtab, else .dynsym)
 *   names.c        interning of DWARF strings, demangling caches
 *   plt.c          PLT stubs named from their GOT relocations
 *                  (relocation types per e_machine: arch/<isa>/reloc.c)
 *   ehframe.c      .eh_frame FDE ranges (stripped code)
 *   debuginfo.c    DWARF of the binary or of its separate debug file (libdwfl)
 *   dwarf_procs.c  DWARF subprograms and their inlined-subroutine trees
 *   dwarf_lines.c  line-table rows, clipped to their compilation unit
 * and, building the scope model from what those found:
 *   claim.c        which procedure candidate owns each address
 *   build.c        PROC/INLINE/STMT scopes, FILE grouping, loop recovery
 *   analyze.c      struct_analyze(): the order of the steps above
 *
 * Tool code only; nothing here runs in a profiled process.  Functions
 * return 0 or a negative struct_status and never print.
 */
#ifndef CSP_BINARY_INTERNAL_H
#define CSP_BINARY_INTERNAL_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "structure/cfg.h"
#include "structure/structure_internal.h"

enum cand_source { SRC_DWARF = 0, SRC_SYMBOL = 1, SRC_FDE = 2 };

/* An inlined call, as read from DWARF, before clipping. */
struct inl {
    const char *name, *file, *call_file;
    uint32_t line, call_line;
    struct struct_rvec ranges; /* normalized */
    struct inl *first_child, *last_child, *next_sibling;
};

/* A procedure candidate from one of the three sources. */
struct cand {
    enum cand_source src;
    const char *name, *link_name, *file;
    uint32_t line;
    struct struct_rvec raw;   /* normalized ranges as read */
    struct struct_rvec final; /* after claiming */
    struct inl root;          /* children: top-level inlined calls */
    uint64_t entry;           /* entry address (0: the start of the first range) */
    bool noreturn;            /* DW_AT_noreturn */
};

/* One row range of the line table. */
struct line_piece {
    uint64_t lo, hi;
    const char *file;
    uint32_t line;
};

/* A statement piece placed in its innermost scope. */
struct stmt_piece {
    struct struct_scope *scope;
    const char *file;
    uint32_t line;
    uint32_t group; /* rank of @scope among the scopes by address (build.c's sort) */
    uint64_t lo, hi;
};

/*
 * One entry of a direct-mapped cache from a string pointer to its
 * interned copy (or demangled name): DWARF gives the same pointers over
 * and over (file names of every line-table row, names of every instance
 * of an inlined function), and hashing the text each time is slow.
 */
struct str_cache_ent {
    const char *key;
    const char *val;
};

#define STR_CACHE_BITS 13

/*
 * One entry of a direct-mapped cache of what an inlined call takes from
 * its abstract origin (names, declaration file and line), keyed by the
 * origin DIE's offset: many instances share one origin.
 */
struct origin_ent {
    Dwarf_Off key; /* the origin's offset + 1; 0: empty */
    const char *name, *link, *file;
    uint32_t line;
};

#define ORIGIN_CACHE_BITS 13

/* A function symbol. */
struct sym {
    uint64_t lo, hi;
    bool sized; /* st_size > 0; unsized symbols extend to the next symbol */
    int rank;   /* 0 global, 1 weak, 2 local */
    const char *name;
};

struct analysis {
    struct struct_module *m;
    const char *path;
    const struct struct_options *opt;
    Elf *elf;
    int fd;
    Dwfl *dwfl; /* owns the separate debug file, when one is used */
    Dwarf *dw;  /* the binary's own DWARF (dwarf_end) or the debug file's (owned by dwfl) */
    bool dw_own;
    struct struct_rvec text; /* executable address ranges, normalized */
    struct cand *cands;
    size_t ncands, capcands;
    struct sym *syms;
    size_t nsyms;
    bool have_symtab;
    struct line_piece *lines;
    size_t nlines, caplines;
    /* Caches (NULL when they could not be allocated: no caching): DWARF
     * string -> interned copy; interned linkage name -> demangled name. */
    struct str_cache_ent *dw_strs, *demangled;
    struct origin_ent *origins; /* ORIGIN_CACHE_BITS slots, or NULL */
    /* per-CU state */
    struct struct_rvec cu_ranges; /* the CU's code ranges, normalized */
    const void *cu_unit;          /* Dwarf_Die.cu of the CU's DIEs */
    Dwarf_Off cu_off;             /* offset of the CU's DIE */
    Dwarf_Aranges *aranges;       /* .debug_aranges, NULL when absent */
    uint64_t ar_lo, ar_hi;        /* last arange found */
    Dwarf_Off ar_cu;              /* its CU DIE's offset */
    Dwarf_Files *cu_files;
    size_t cu_nfiles;
    int rc; /* first error while walking */
};

/* The notes struct_analyze() gives (index 0: none); the cache stores the index.  (analyze.c) */
enum { BIN_NOTE_NONE, BIN_NOTE_NO_LINES, BIN_NOTE_STRIPPED, BIN_NOTE_NO_DWARF, BIN_NOTES };
extern const char *const bin_notes[BIN_NOTES];

/* Format an error line into @err (may be NULL).  (analyze.c) */
void bin_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A new zeroed candidate of @src appended to an->cands; NULL when out of memory.  (analyze.c) */
struct cand *bin_cand_new(struct analysis *an, enum cand_source src);

/*
 * Check that an->elf is an executable or shared library of a machine we
 * can decode, whose headers and sections lie inside the file of @fsize
 * bytes; one line into @err otherwise.  (elf_image.c)
 */
int bin_check_elf(struct analysis *an, off_t fsize, char *err, size_t errlen);

/* an->text = executable sections (else PF_X segments), normalized.  (elf_image.c) */
int bin_collect_text(struct analysis *an);

/* The module's build-id (hex) and entry point.  (elf_image.c) */
int bin_read_build_id(struct analysis *an);

/*
 * Every allocated section with bytes in the file (code and jump tables),
 * sorted, overlaps dropped; *out is malloc'ed.  (elf_image.c)
 */
int bin_collect_image(struct analysis *an, struct struct_image_part **out, size_t *nout);

/* an->syms from .symtab (else .dynsym): function symbols, one per address.  (symbols.c) */
int bin_read_symbols(struct analysis *an);

/* The preferred symbol starting exactly at @addr, or NULL.  (symbols.c) */
const struct sym *bin_sym_at(const struct analysis *an, uint64_t addr);

/* One SRC_SYMBOL candidate per symbol.  (symbols.c) */
int bin_add_symbol_cands(struct analysis *an);

/* Demangled name of the interned @link (interned), or NULL when not mangled.  (names.c) */
const char *bin_demangled(struct analysis *an, const char *link);

/*
 * struct_intern() for a string that lives in libdw's data until
 * dwarf_end(), cached by its address.  (names.c)
 */
const char *bin_intern_dw(struct analysis *an, const char *s);

/* SRC_SYMBOL candidates "name@plt" for PLT stubs.  (plt.c) */
int bin_add_plt_cands(struct analysis *an);

/* SRC_FDE candidates for the .eh_frame FDE ranges.  (ehframe.c) */
int bin_add_fde_cands(struct analysis *an);

/*
 * Open DWARF: the binary's own, else its separate debug file found by
 * libdwfl's standard search (build-id, .gnu_debuglink with CRC), under
 * an->opt->debug_dir.  No DWARF is not an error.  (debuginfo.c)
 */
void bin_open_dwarf(struct analysis *an);

/* Normalized code ranges of @die, within an->text.  (dwarf_procs.c) */
int bin_die_ranges(struct analysis *an, Dwarf_Die *die, struct struct_rvec *out);

/* SRC_DWARF candidates with inlined trees, and all line rows.  (dwarf_procs.c) */
int bin_read_dwarf(struct analysis *an);

/* Append the rows of one CU's line table to an->lines.  (dwarf_lines.c) */
int bin_read_cu_lines(struct analysis *an, Dwarf_Die *cudie);

/*
 * Give each candidate of source @src the addresses no earlier candidate
 * claimed (DWARF, then symbols, then FDEs); @claimed grows.  (claim.c)
 */
int struct_claim(struct analysis *an, enum cand_source src, struct struct_rvec *claimed);

/*
 * Build PROC/INLINE/STMT scopes from the claimed candidates, group them
 * by FILE, recover loops and call sites, and finalize the module.  (build.c)
 */
int struct_build_tree(struct analysis *an);

#endif /* CSP_BINARY_INTERNAL_H */
